//! [`IpcStreamReader`]: the record batches of an Arrow IPC stream read as it comes from a
//! [`std::io::Read`] (standard input, a pipe, a socket), memory bounded by one message.

use super::{IpcBatches, IpcReadOptions};
use crate::codec::framing::{parse_head, Prefix, EOS};
use crate::error::{fail, ErrorKind, Result};
use crate::Limits;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use std::io::Read;

/// The record batches of an Arrow IPC stream read from `R` as it comes: each message is
/// read whole (its prefix, metadata and body lengths checked against the options' limits
/// before anything is allocated), then decoded and checked as [`IpcBatches`] decodes a
/// stream in memory. A stream read this way holds record batches only: a dictionary batch
/// is refused (read a file, or a stream in memory, with [`IpcBatches`]). Errors carry the
/// message's byte offset in the stream.
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
    /// The schema message, framed, as read.
    schema_message: Vec<u8>,
    schema: SchemaRef,
    consumed: u64,
    done: bool,
}

/// What the stream holds next.
enum Next {
    /// A whole message (prefix, metadata, body) and its header type.
    Message(arrow_ipc::MessageHeader, Vec<u8>),
    /// The end-of-stream marker, or the end of the input between messages.
    End,
}

impl<R: Read> IpcStreamReader<R> {
    /// Reads the stream's schema message from `reader`.
    pub fn new(reader: R, options: &IpcReadOptions) -> Result<Self> {
        let mut stream = IpcStreamReader {
            reader,
            options: *options,
            schema_message: Vec::new(),
            schema: std::sync::Arc::new(arrow_schema::Schema::empty()),
            consumed: 0,
            done: false,
        };
        match stream.next_message()? {
            Next::Message(arrow_ipc::MessageHeader::Schema, bytes) => {
                stream.schema_message = bytes;
            }
            Next::Message(header, _) => return stream.not_schema(header.variant_name()),
            Next::End => return stream.not_schema(None),
        }
        let decoded = stream.decode(&[])?;
        stream.schema = decoded.schema().clone();
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

    fn not_schema<T>(&self, found: Option<&str>) -> Result<T> {
        fail(ErrorKind::UnsupportedLayout {
            operation: "an Arrow IPC stream",
            expected: "a Schema message first",
            found: found.map_or("the end of the stream".into(), |h| format!("a {h} message")),
        })
    }

    /// Appends up to `len` bytes of the input to `out`: an error naming `part` when the
    /// input ends first.
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

    fn next_message(&mut self) -> Result<Next> {
        let start = self.consumed;
        self.read_message().map_err(|e| e.at(start))
    }

    fn read_message(&mut self) -> Result<Next> {
        let limits: Limits = self.options.limits;
        let mut bytes = Vec::with_capacity(8);
        let start = self.consumed;
        if let Err(e) = self.read_into(&mut bytes, 4, "prefix") {
            // The input may end between messages (a stream without its end marker).
            return if bytes.is_empty() && self.consumed == start {
                Ok(Next::End)
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
            Prefix::EndOfStream { .. } => return Ok(Next::End),
            Prefix::Message(head) => head,
        };
        let metadata_at = bytes.len();
        self.read_into(&mut bytes, head.metadata_len as u64, "metadata")?;
        let message = arrow_ipc::root_as_message(bytes.get(metadata_at..).unwrap_or_default())
            .map_err(ErrorKind::flatbuffer)?;
        let header = message.header_type();
        let body_len = message.bodyLength();
        let body = u64::try_from(body_len).map_err(|_| ErrorKind::NegativeBodyLength(body_len))?;
        if body > limits.max_body_len {
            return fail(ErrorKind::LimitExceeded {
                what: "body length",
                value: body,
                limit: limits.max_body_len,
            });
        }
        self.read_into(&mut bytes, body, "body")?;
        Ok(Next::Message(header, bytes))
    }

    /// The stream of the schema message, `message` and the end marker, decoded.
    fn decode(&self, message: &[u8]) -> Result<IpcBatches> {
        let mut stream = Vec::with_capacity(self.schema_message.len() + message.len() + 8);
        stream.extend_from_slice(&self.schema_message);
        stream.extend_from_slice(message);
        stream.extend_from_slice(&EOS);
        IpcBatches::new(stream, &self.options)
    }

    fn step(&mut self) -> Result<Option<RecordBatch>> {
        let start = self.consumed;
        match self.next_message()? {
            Next::End => Ok(None),
            Next::Message(arrow_ipc::MessageHeader::RecordBatch, bytes) => {
                let batch = self.decode(&bytes).and_then(|mut b| b.next().transpose());
                match batch {
                    Ok(Some(b)) => Ok(Some(b)),
                    Ok(None) => fail(ErrorKind::MissingField("RecordBatch")),
                    Err(e) => Err(e.at(start)),
                }
            }
            Next::Message(header, _) => fail(ErrorKind::UnsupportedLayout {
                operation: "an Arrow IPC stream read as it comes",
                expected: "record batches (dictionaries: read the whole stream with IpcBatches)",
                found: format!("a {} message", header.variant_name().unwrap_or("unknown")),
            })
            .map_err(|e: crate::Error| e.at(start)),
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
