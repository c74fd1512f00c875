//! Encapsulated message framing: the prefix before the metadata flatbuffer, and the
//! end-of-stream marker.
//!
//! ```text
//! FFFFFFFF | int32 metadata length | Message flatbuffer + padding | body
//! ```
//! Before Arrow 0.15 the `FFFFFFFF` continuation marker was absent ("legacy" framing). A
//! metadata length of 0 marks the end of a stream in both framings.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::options::Limits;
use crate::error::{fail, ErrorKind, Result};

/// The continuation marker that starts every message since Arrow 0.15.
pub const CONTINUATION: [u8; 4] = [0xFF; 4];

/// The end-of-stream marker written by [`crate::MessageWriter::finish`].
pub const EOS: [u8; 8] = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];

/// Which prefix a message used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// `FFFFFFFF` then the metadata length (Arrow 0.15 and later).
    Continuation,
    /// The metadata length alone (before Arrow 0.15).
    Legacy,
}

/// What the prefix of a message says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageHead {
    /// The framing.
    pub framing: Framing,
    /// Bytes of prefix (4 or 8).
    pub prefix_len: usize,
    /// Bytes of metadata (flatbuffer + padding) after the prefix.
    pub metadata_len: usize,
}

impl MessageHead {
    /// Offset of the body from the message start.
    pub fn body_offset(&self) -> usize {
        self.prefix_len + self.metadata_len
    }
}

/// A parsed prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefix {
    /// End of stream; `len` bytes of marker.
    EndOfStream {
        /// Length of the marker (4 or 8).
        len: usize,
    },
    /// A message follows.
    Message(MessageHead),
}

/// Parses the prefix at the start of `bytes` and refuses a metadata length over
/// [`Limits::max_metadata_len`]. `Ok(None)` when more bytes are needed: fewer than 4, or
/// a continuation marker without the 4 length bytes after it.
pub fn parse_head(bytes: &[u8], limits: &Limits) -> Result<Option<Prefix>> {
    let Some(first) = bytes.get(..4) else {
        return Ok(None);
    };
    let (framing, prefix_len, len_bytes) = if first == CONTINUATION {
        match bytes.get(4..8) {
            Some(l) => (Framing::Continuation, 8, l),
            None => return Ok(None),
        }
    } else {
        (Framing::Legacy, 4, first)
    };
    let mut le = [0u8; 4];
    le.copy_from_slice(len_bytes);
    let len = i32::from_le_bytes(le);
    if len < 0 {
        return fail(ErrorKind::NegativeMetadataLength(len));
    }
    if len == 0 {
        return Ok(Some(Prefix::EndOfStream { len: prefix_len }));
    }
    let metadata_len = len as usize;
    if metadata_len > limits.max_metadata_len {
        return fail(ErrorKind::LimitExceeded {
            what: "metadata length",
            value: metadata_len as u64,
            limit: limits.max_metadata_len as u64,
        });
    }
    Ok(Some(Prefix::Message(MessageHead {
        framing,
        prefix_len,
        metadata_len,
    })))
}

/// The body length a message's metadata claims, refused when negative or over
/// [`Limits::max_body_len`] (before anything is read or allocated for it).
pub(crate) fn body_length(len: i64, limits: &Limits) -> Result<u64> {
    if len < 0 {
        return fail(ErrorKind::NegativeBodyLength(len));
    }
    if len as u64 > limits.max_body_len {
        return fail(ErrorKind::LimitExceeded {
            what: "bodyLength",
            value: len as u64,
            limit: limits.max_body_len,
        });
    }
    Ok(len as u64)
}

/// Parses the prefix at the start of `bytes` as [`parse_head`] does, with no bound on the
/// metadata length: for looking at a message, not reading it.
pub(crate) fn peek_head(bytes: &[u8]) -> Result<Option<Prefix>> {
    let unbounded = Limits {
        max_metadata_len: usize::MAX,
        ..Limits::default()
    };
    parse_head(bytes, &unbounded)
}

/// The metadata flatbuffer of the message at the start of `bytes` (either framing), when
/// its prefix and metadata are there in full; `None` at an end-of-stream marker and for
/// a negative length.
#[cfg(feature = "record-batch")]
pub(crate) fn first_metadata(bytes: &[u8]) -> Option<&[u8]> {
    match peek_head(bytes) {
        Ok(Some(Prefix::Message(head))) => bytes.get(head.prefix_len..head.body_offset()),
        _ => None,
    }
}

/// Rounds `n` up to a multiple of `align` (a power of two).
pub(crate) fn pad_to(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}
