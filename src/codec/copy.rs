//! Copying a message into one piece of memory: the strategy behind
//! [`EncodedMessage::to_vec`](super::EncodedMessage::to_vec),
//! [`write_into`](super::EncodedMessage::write_into) and
//! [`to_bytes`](super::EncodedMessage::to_bytes).
//!
//! For large copies glibc's x86-64 `memcpy` switches to non-temporal stores, which run 2 to
//! 3 times slower when the destination is a little ahead of the source modulo the page size
//! (4K aliasing). A message body lands 64 bytes (the header) past the start of a fresh
//! allocation, which is exactly such a distance from a page-aligned tensor buffer.
//! [`to_bytes`] places the message so that the largest buffer lands at its source's address
//! modulo 4 KiB; where the destination is not ours to place, [`append`] copies large
//! buffers at such a distance in 256 KiB pieces, which keeps glibc on its cached-store path.

use bytes::{BufMut, BytesMut};

/// Buffers at least this long are worth placing.
const LARGE: usize = 4 << 20;

/// The page size that the distance between destination and source is taken modulo.
const PAGE: usize = 4096;

/// Where [`to_bytes`] puts the largest buffer: this many bytes past its source's address,
/// modulo [`PAGE`].
const PLACED_DISTANCE: usize = 0;

/// Appends the pieces of a message (`len` bytes in all) to `out`.
pub(super) fn write_into(out: &mut Vec<u8>, pieces: &[&[u8]], len: usize) {
    out.reserve(len);
    for p in pieces {
        append(out, p);
    }
}

/// Appends `src` to `out` (whose capacity is reserved): in 256 KiB pieces when the copy is
/// large and the destination runs 1 to 511 bytes ahead of the source modulo the page size.
fn append(out: &mut Vec<u8>, src: &[u8]) {
    const PIECE: usize = 256 << 10;
    let dst = (out.as_ptr() as usize).wrapping_add(out.len());
    let distance = dst.wrapping_sub(src.as_ptr() as usize) % PAGE;
    let piece = if src.len() >= LARGE && (1..512).contains(&distance) {
        PIECE
    } else {
        src.len().max(1)
    };
    for part in src.chunks(piece) {
        out.extend_from_slice(part);
    }
}

/// The pieces of a message (`len` bytes in all) in one new vector.
pub(super) fn to_vec(pieces: &[&[u8]], len: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(len);
    write_into(&mut v, pieces, len);
    v
}

/// The pieces of a message (`len` bytes in all) in one new buffer, placed so that the
/// largest piece of [`LARGE`] bytes or more lands [`PLACED_DISTANCE`] bytes past its
/// source modulo [`PAGE`]. Allocates up to `PAGE` bytes more than `len`.
pub(super) fn to_bytes(pieces: &[&[u8]], len: usize) -> bytes::Bytes {
    // The largest large piece, and its offset in the message.
    let mut at = 0;
    let mut largest: Option<(usize, &[u8])> = None;
    for p in pieces {
        if p.len() >= LARGE && largest.is_none_or(|(_, l)| p.len() > l.len()) {
            largest = Some((at, p));
        }
        at += p.len();
    }
    let Some((offset, src)) = largest else {
        return to_vec(pieces, len).into();
    };
    let mut buf = BytesMut::with_capacity(len + PAGE);
    let base = buf.as_ptr() as usize;
    // Skip k bytes so that base + k + offset = src + PLACED_DISTANCE (mod PAGE).
    let k = (src.as_ptr() as usize)
        .wrapping_add(PLACED_DISTANCE)
        .wrapping_sub(base)
        .wrapping_sub(offset)
        % PAGE;
    buf.put_bytes(0, k);
    bytes::Buf::advance(&mut buf, k);
    for p in pieces {
        buf.extend_from_slice(p);
    }
    buf.freeze()
}
