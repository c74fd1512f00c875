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

use crate::error::{ErrorKind, Result};

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

/// A parsed prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefix {
    /// End of stream; `len` bytes of marker.
    EndOfStream {
        /// Length of the marker (4 or 8).
        len: usize,
    },
    /// A message follows.
    Message {
        /// The framing.
        framing: Framing,
        /// Bytes of prefix (4 or 8).
        prefix_len: usize,
        /// Bytes of metadata (flatbuffer + padding) after the prefix.
        metadata_len: usize,
    },
}

/// Parses the prefix at the start of `bytes`. `Ok(None)` when more bytes are needed (fewer
/// than 8 given and they do not already decide the prefix).
pub fn parse_prefix(bytes: &[u8]) -> Result<Option<Prefix>> {
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
        return Err(ErrorKind::NegativeMetadataLength(len).into());
    }
    if len == 0 {
        return Ok(Some(Prefix::EndOfStream { len: prefix_len }));
    }
    Ok(Some(Prefix::Message {
        framing,
        prefix_len,
        metadata_len: len as usize,
    }))
}

/// Rounds `n` up to a multiple of `align` (a power of two).
pub(crate) fn pad_to(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}
