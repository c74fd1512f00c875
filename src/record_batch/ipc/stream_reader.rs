//! [`IpcStreamReader`]: the record batches of an Arrow IPC stream read as it comes from a
//! [`std::io::Read`] (standard input, a pipe, a socket), memory bounded by one message.

use super::check::check_message;
use super::IpcReadOptions;
use crate::codec::framing::{body_length, first_metadata, parse_head, Prefix};
use crate::error::{fail, ErrorKind, Result};
use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_schema::SchemaRef;
use std::io::Read;

/// The record batches of an Arrow IPC stream read from `R` as it comes: each message is
/// read whole (its prefix, metadata and body lengths checked against the options' limits
/// before anything is allocated), checked as [`IpcBatches`](super::IpcBatches) checks a
/// stream in memory, and handed to one arrow-ipc stream decoder, which keeps the schema and
/// dictionaries. Errors carry the message's byte offset in the stream.
///
/// ```
/// use arrow_tensor_ipc::record_batch::{
///     tensor_to_fixed_shape, FixedShapeOptions, IpcReadOptions, IpcStreamReader, IpcWriteOptions,
///     IpcWriter,
/// };
/// use arrow_tensor_ipc::Tensor;
///
/// let t = Tensor::from_vec(vec![4, 2], (0..8u8).collect())?;
/// let batch = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())?.into_record_batch("t")?;
/// let mut w = IpcWriter::new(Vec::new(), batch.schema(), &IpcWriteOptions::default())?;
/// w.write(&batch)?;
/// let bytes = w.finish()?;
///
/// let mut read = IpcStreamReader::new(bytes.as_slice(), &IpcReadOptions::default())?;
/// assert_eq!(read.schema(), &batch.schema());
/// assert_eq!(read.next().unwrap()?, batch);
/// assert!(read.next().is_none());
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub struct IpcStreamReader<R> {
    reader: R,
    options: IpcReadOptions,
    decoder: StreamDecoder,
    /// The element width of each buffer of a record batch, from the schema.
    widths: Option<Vec<(usize, String)>>,
    schema: SchemaRef,
    consumed: u64,
    done: bool,
}

impl<R: Read> IpcStreamReader<R> {
    /// Reads the stream's schema message from `reader`.
    pub fn new(reader: R, options: &IpcReadOptions) -> Result<Self> {
        let mut stream = IpcStreamReader {
            reader,
            options: *options,
            decoder: StreamDecoder::new(),
            widths: None,
            schema: std::sync::Arc::new(arrow_schema::Schema::empty()),
            consumed: 0,
            done: false,
        };
        let (header, bytes) = match stream.next_message()? {
            Some((arrow_ipc::MessageHeader::Schema, bytes)) => (None, bytes),
            Some((header, _)) => (
                Some(format!(
                    "a {} message",
                    header.variant_name().unwrap_or("unknown")
                )),
                Vec::new(),
            ),
            None => (Some("the end of the stream".to_string()), Vec::new()),
        };
        if let Some(found) = header {
            return fail(ErrorKind::UnsupportedLayout {
                operation: "an Arrow IPC stream",
                expected: "a Schema message first",
                found,
            });
        }
        // The decoder completes a message when the next one arrives: the schema is read
        // from the message here.
        let schema = first_metadata(&bytes)
            .and_then(|m| arrow_ipc::root_as_message(m).ok())
            .and_then(|m| m.header_as_schema())
            .map(arrow_ipc::convert::try_fb_to_schema)
            .transpose()?;
        stream.decode(bytes, 0)?;
        if let Some(schema) = schema {
            stream.schema = std::sync::Arc::new(schema);
        }
        Ok(stream)
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Bytes of the stream consumed so far.
    pub fn position(&self) -> u64 {
        self.consumed
    }

    /// The reader, positioned after the bytes consumed.
    pub fn into_inner(self) -> R {
        self.reader
    }

    /// Appends `len` bytes of the input to `out`: an error naming `part` when the input
    /// ends first.
    fn read_into(&mut self, out: &mut Vec<u8>, len: u64, part: &'static str) -> Result<()> {
        let before = out.len();
        (&mut self.reader).take(len).read_to_end(out)?;
        let got = (out.len() - before) as u64;
        self.consumed += got;
        if got < len {
            return fail(ErrorKind::Truncated {
                part,
                needed: len,
                available: got,
            });
        }
        Ok(())
    }

    /// The next whole message (prefix, metadata, body) and its header type; `None` at the
    /// end-of-stream marker, or at the end of the input between messages.
    fn next_message(&mut self) -> Result<Option<(arrow_ipc::MessageHeader, Vec<u8>)>> {
        let start = self.consumed;
        self.read_message().map_err(|e| e.at(start))
    }

    fn read_message(&mut self) -> Result<Option<(arrow_ipc::MessageHeader, Vec<u8>)>> {
        let limits = self.options.limits;
        let mut bytes = Vec::with_capacity(8);
        let start = self.consumed;
        if let Err(e) = self.read_into(&mut bytes, 4, "prefix") {
            // The input may end between messages (a stream without its end marker).
            return if bytes.is_empty() && self.consumed == start {
                Ok(None)
            } else {
                Err(e)
            };
        }
        let head = match parse_head(&bytes, &limits)? {
            Some(head) => head,
            None => {
                self.read_into(&mut bytes, 4, "prefix")?;
                parse_head(&bytes, &limits)?.ok_or(ErrorKind::Truncated {
                    part: "prefix",
                    needed: 8,
                    available: bytes.len() as u64,
                })?
            }
        };
        let head = match head {
            Prefix::EndOfStream { .. } => return Ok(None),
            Prefix::Message(head) => head,
        };
        let metadata_at = bytes.len();
        self.read_into(&mut bytes, head.metadata_len as u64, "metadata")?;
        let message = arrow_ipc::root_as_message(bytes.get(metadata_at..).unwrap_or_default())
            .map_err(ErrorKind::flatbuffer)?;
        let header = message.header_type();
        let body = body_length(message.bodyLength(), &limits)?;
        self.read_into(&mut bytes, body, "body")?;
        Ok(Some((header, bytes)))
    }

    /// Checks the message that starts at byte `start` of the stream and hands it to the
    /// decoder: a record batch, or `None` for a schema or dictionary message.
    fn decode(&mut self, bytes: Vec<u8>, start: u64) -> Result<Option<RecordBatch>> {
        let at = usize::try_from(start).unwrap_or(usize::MAX);
        check_message(&bytes, at, &mut self.widths, &self.options.limits)
            .map_err(|e| e.at(start))?;
        let mut buffer = Buffer::from_vec(bytes);
        self.decoder
            .decode(&mut buffer)
            .map_err(|e| crate::Error::from(e).at(start))
    }

    fn step(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            let start = self.consumed;
            let Some((_, bytes)) = self.next_message()? else {
                return Ok(None);
            };
            if let Some(batch) = self.decode(bytes, start)? {
                return Ok(Some(batch));
            }
        }
    }
}

impl<R: Read> Iterator for IpcStreamReader<R> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let step = self.step();
        if !matches!(step, Ok(Some(_))) {
            self.done = true;
        }
        step.transpose()
    }
}
