//! Decoding whole messages from memory: [`decode_message`] and [`MessageIter`] over bytes
//! that are all present (a buffer, a memory map). [`StreamDecoder`](super::stream) takes
//! bytes as they arrive instead.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::body::assemble;
use super::framing::{parse_head, Framing, MessageHead, Prefix};
use super::metadata::{decode_metadata, MessageMeta, MetadataVersion};
use super::options::ReadOptions;
use super::Message;
use crate::error::{Error, ErrorKind, Result};
use arrow_buffer::Buffer;

/// A decoded message with facts about its encoding.
#[derive(Clone, Debug)]
pub struct DecodedMessage {
    /// The tensor.
    pub message: Message,
    /// Byte offset of the message start (in the stream or buffer it was read from).
    pub offset: u64,
    /// Prefix kind.
    pub framing: Framing,
    /// Metadata version.
    pub version: MetadataVersion,
    /// Metadata length as stored in the prefix (flatbuffer plus padding).
    pub metadata_length: usize,
    /// Body length as declared.
    pub body_length: u64,
    /// Offset of the body from the message start.
    pub body_offset: usize,
}

impl DecodedMessage {
    /// Total bytes the message occupies (prefix, metadata, body).
    pub fn total_length(&self) -> u64 {
        self.body_offset as u64 + self.body_length
    }
}

/// Decodes the message at the start of `bytes` (zero-copy: the tensor's buffers are slices
/// of `bytes`). Returns `Ok(None)` at an end-of-stream marker or when `bytes` is empty.
///
/// ```
/// use arrow_tensor_ipc::{decode_message, encode, ReadOptions, Tensor, WriteOptions};
/// let t = Tensor::from_vec(vec![2, 2], vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
/// let bytes = encode(&t.clone().into(), &WriteOptions::default()).unwrap().to_bytes();
/// let decoded = decode_message(&bytes, &ReadOptions::default()).unwrap().unwrap();
/// assert!(decoded.message.as_tensor().unwrap().content_eq(&t));
/// assert_eq!(decoded.total_length(), bytes.len() as u64);
/// ```
pub fn decode_message(
    bytes: &bytes::Bytes,
    options: &ReadOptions,
) -> Result<Option<DecodedMessage>> {
    decode_at(&Buffer::from(bytes.clone()), 0, options)
}

/// Decodes the message starting at `offset` of `buffer`.
pub(crate) fn decode_at(
    buffer: &Buffer,
    offset: usize,
    options: &ReadOptions,
) -> Result<Option<DecodedMessage>> {
    let bytes = buffer.as_slice().get(offset..).unwrap_or_default();
    if bytes.is_empty() {
        return Ok(None);
    }
    let at = |e: Error| e.at(offset as u64);
    let prefix = parse_head(bytes, &options.limits)
        .map_err(at)?
        .ok_or_else(|| {
            at(ErrorKind::Truncated {
                part: "prefix",
                needed: 8,
                available: bytes.len() as u64,
            }
            .into())
        })?;
    let head = match prefix {
        Prefix::EndOfStream { .. } => return Ok(None),
        Prefix::Message(head) => head,
    };
    let body_offset = head.body_offset();
    let Some(metadata) = bytes.get(head.prefix_len..body_offset) else {
        return Err(at(ErrorKind::Truncated {
            part: "metadata",
            needed: body_offset as u64,
            available: bytes.len() as u64,
        }
        .into()));
    };
    let meta = decode_metadata(metadata, options).map_err(at)?;
    let body_length = meta.body_length();
    let available = (bytes.len() - body_offset) as u64;
    if body_length > available {
        return Err(at(ErrorKind::Truncated {
            part: "body",
            needed: body_length,
            available,
        }
        .into()));
    }
    let body = buffer.slice_with_length(offset + body_offset, body_length as usize);
    complete(head, meta, body, offset as u64, options).map(Some)
}

/// Lays a message's metadata over its body and records how it was encoded. Errors carry
/// the message offset.
pub(super) fn complete(
    head: MessageHead,
    meta: MessageMeta,
    body: Buffer,
    offset: u64,
    options: &ReadOptions,
) -> Result<DecodedMessage> {
    let (version, body_length) = (meta.version(), meta.body_length());
    let custom_metadata = meta.custom_metadata.clone();
    let mut message = assemble(meta, body, options).map_err(|e| e.at(offset))?;
    if custom_metadata.is_some() {
        message = message.with_custom_metadata(custom_metadata);
    }
    Ok(DecodedMessage {
        message,
        offset,
        framing: head.framing,
        version,
        metadata_length: head.metadata_len,
        body_length,
        body_offset: head.body_offset(),
    })
}

/// Iterates over the messages in a buffer until its end or an end-of-stream marker.
/// Stops after the first error (which it yields).
pub struct MessageIter {
    buffer: Buffer,
    offset: usize,
    options: ReadOptions,
    done: bool,
}

impl MessageIter {
    /// Iterates over the messages of `bytes` (zero-copy).
    pub fn new(bytes: impl Into<Buffer>, options: &ReadOptions) -> Self {
        MessageIter {
            buffer: bytes.into(),
            offset: 0,
            options: *options,
            done: false,
        }
    }
}

impl Iterator for MessageIter {
    type Item = Result<DecodedMessage>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match decode_at(&self.buffer, self.offset, &self.options) {
            Ok(Some(m)) => {
                self.offset += m.total_length() as usize;
                Some(Ok(m))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
