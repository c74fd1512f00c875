//! Copying a message into one piece of memory: the strategy behind
//! [`EncodedMessage::to_vec`](super::EncodedMessage::to_vec),
//! [`write_into`](super::EncodedMessage::write_into) and
//! [`to_bytes`](super::EncodedMessage::to_bytes).
//!
//! Every piece is copied once, with one `memcpy` (`copy_from_slice`) per piece: the C
//! library's copy picks its own method by size (cached stores, `rep movsb`, non-temporal
//! stores for the largest), which is what Arrow C++'s writer gets too.
//!
//! Where the destination is ours to place ([`to_bytes`]), the message is placed so that its
//! largest buffer lands [`PLACED_DISTANCE`] (half a page) past its source's address modulo
//! the 4 KiB page, away from the two distances at which glibc's x86-64 `memcpy` of a large
//! buffer can slow down:
//! - a destination 1 to 511 bytes ahead of the source is exposed to 4K aliasing (the CPU
//!   takes loads for dependents of recent stores to the same page offset), and on some
//!   CPUs glibc's non-temporal loop, used for the largest copies, then stalls;
//! - a destination within 256 bytes of the source (either side) makes glibc's cached-store
//!   loop copy backward to avoid that aliasing, which can run slower than its forward copy.
//!
//! A message built in memory puts its body 64 bytes (the header) past the start of a fresh
//! allocation, which is one of those distances from a page-aligned tensor buffer;
//! re-encoding a tensor decoded from a page-aligned message buffer gives the other
//! (distance 0). Placement costs up to 4 KiB of unused allocation.
//!
//! A `Vec` the caller passes to `write_into`, or the one `to_vec` allocates, starts where
//! the allocator put it, and the copy takes the distance it gets. It is not split into
//! pieces to dodge the stall: pieces small enough to keep glibc off its non-temporal path
//! run on cached stores (each store first reads the line it writes), below memcpy speed
//! wherever the stall does not occur, while a plain copy runs at memcpy speed there; where
//! the stall does occur, Arrow C++'s writer, which copies the body the same way, meets it
//! too.

use bytes::{BufMut, BytesMut};

/// Buffers at least this long are worth placing.
const LARGE: usize = 4 << 20;

/// The page size that the distance between destination and source is taken modulo.
const PAGE: usize = 4096;

/// Where [`to_bytes`] puts its largest buffer: this many bytes past its source's address,
/// modulo [`PAGE`].
const PLACED_DISTANCE: usize = PAGE / 2;

/// Appends the pieces of a message (`len` bytes in all) to `out`.
pub(super) fn write_into(out: &mut Vec<u8>, pieces: &[&[u8]], len: usize) {
    out.reserve(len);
    for p in pieces {
        out.extend_from_slice(p);
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
/// source's address modulo [`PAGE`]. Allocates up to `PAGE` bytes more than `len`.
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
