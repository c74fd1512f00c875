//! An Arrow IPC stream read as it comes (standard input, a pipe): one message at a time,
//! each record batch handed to the crate's [`IpcBatches`] together with the stream's
//! schema, so that every check of the in-memory reader applies and memory stays bounded by
//! one message.

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_tensor_ipc::record_batch::IpcBatches;
use arrow_tensor_ipc::Limits;
use std::io::Read;

/// The end-of-stream marker appended to each single-batch stream.
const EOS: [u8; 8] = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];

/// The record batches of an IPC stream read from a reader.
pub struct IpcStream {
    reader: Box<dyn Read>,
    limits: Limits,
    /// The schema message, as read.
    schema: Vec<u8>,
    /// Bytes read so far.
    consumed: u64,
    done: bool,
}

/// What follows in the stream.
enum Next {
    /// A message of this header type, with its bytes (prefix, metadata and body).
    Message(arrow_ipc::MessageHeader, Vec<u8>),
    /// The end-of-stream marker, or the end of the input.
    End,
}

impl IpcStream {
    /// Reads the schema message that starts the stream.
    pub fn open(reader: Box<dyn Read>, limits: Limits) -> Result<IpcStream, String> {
        let mut stream = IpcStream {
            reader,
            limits,
            schema: Vec::new(),
            consumed: 0,
            done: false,
        };
        match stream.next_message()? {
            Next::Message(arrow_ipc::MessageHeader::Schema, bytes) => stream.schema = bytes,
            _ => return Err("an Arrow IPC stream starts with a schema message".into()),
        }
        // The schema alone, checked as the in-memory reader checks it.
        stream.batches_with(&[])?;
        Ok(stream)
    }

    /// Bytes read so far.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Reads exactly `len` bytes (growing with the bytes that arrive, never with `len`).
    fn read_exact_len(&mut self, len: u64, what: &str) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let at = self.consumed;
        (&mut self.reader)
            .take(len)
            .read_to_end(&mut out)
            .map_err(|e| format!("byte {at}: cannot read the {what}: {e}"))?;
        self.consumed += out.len() as u64;
        if (out.len() as u64) < len {
            return Err(format!(
                "byte {at}: truncated {what}: {len} bytes needed, {} available",
                out.len()
            ));
        }
        Ok(out)
    }

    /// Reads the next message whole.
    fn next_message(&mut self) -> Result<Next, String> {
        let start = self.consumed;
        let mut bytes = self.read_exact_len(4, "message prefix").or_else(|e| {
            // A stream may also end without its marker.
            if self.consumed == start {
                Ok(Vec::new())
            } else {
                Err(e)
            }
        })?;
        let Some(first) = bytes.get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok()) else {
            return Ok(Next::End);
        };
        let mut len = first;
        if first == [0xFF; 4] {
            let more = self.read_exact_len(4, "metadata length")?;
            len.copy_from_slice(&more);
            bytes.extend_from_slice(&more);
        }
        let len = i32::from_le_bytes(len);
        if len == 0 {
            return Ok(Next::End);
        }
        let len = usize::try_from(len)
            .map_err(|_| format!("byte {start}: negative metadata length {len}"))?;
        if len > self.limits.max_metadata_len {
            return Err(format!(
                "byte {start}: metadata length {len} is over the limit of {}",
                self.limits.max_metadata_len
            ));
        }
        let prefix = bytes.len();
        bytes.extend(self.read_exact_len(len as u64, "metadata")?);
        let message = arrow_ipc::root_as_message(bytes.get(prefix..).unwrap_or_default())
            .map_err(|e| format!("byte {start}: invalid message metadata: {e}"))?;
        let header = message.header_type();
        let body = u64::try_from(message.bodyLength())
            .map_err(|_| format!("byte {start}: negative body length"))?;
        if body > self.limits.max_body_len {
            return Err(format!(
                "byte {start}: body length {body} is over the limit of {}",
                self.limits.max_body_len
            ));
        }
        bytes.extend(self.read_exact_len(body, "message body")?);
        Ok(Next::Message(header, bytes))
    }

    /// The batches of the schema followed by `message`, through the in-memory reader.
    fn batches_with(&self, message: &[u8]) -> Result<Vec<RecordBatch>, String> {
        let mut stream = Vec::with_capacity(self.schema.len() + message.len() + EOS.len());
        stream.extend_from_slice(&self.schema);
        stream.extend_from_slice(message);
        stream.extend_from_slice(&EOS);
        IpcBatches::new(Buffer::from_vec(stream))
            .and_then(|batches| batches.collect::<arrow_tensor_ipc::Result<Vec<_>>>())
            .map_err(|e| e.to_string())
    }
}

impl Iterator for IpcStream {
    type Item = Result<RecordBatch, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let batch = match self.next_message() {
            Ok(Next::End) => {
                self.done = true;
                return None;
            }
            Ok(Next::Message(arrow_ipc::MessageHeader::RecordBatch, bytes)) => {
                self.batches_with(&bytes).and_then(|mut batches| {
                    batches
                        .pop()
                        .ok_or_else(|| "a record batch message without a batch".to_string())
                })
            }
            Ok(Next::Message(header, _)) => Err(format!(
                "a {} message, where a stream read as it comes has record batches only \
                 (dictionaries: give a file)",
                header.variant_name().unwrap_or("unknown")
            )),
            Err(e) => Err(e),
        };
        if batch.is_err() {
            self.done = true;
        }
        Some(batch)
    }
}
