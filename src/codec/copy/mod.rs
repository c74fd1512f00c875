//! Copying a message into one piece of memory: the strategy behind
//! [`EncodedMessage::to_vec`](super::EncodedMessage::to_vec),
//! [`write_into`](super::EncodedMessage::write_into),
//! [`to_bytes`](super::EncodedMessage::to_bytes),
//! [`write_to_uninit`](super::EncodedMessage::write_to_uninit), and
//! [`write_to`](super::EncodedMessage::write_to) when its writer is a vector
//! ([`sink::as_vec`] recognises one).
//!
//! Every piece is copied once. Pieces of [`streaming::STREAMING_MIN`] bytes or more go
//! through [`streaming::copy`], which on x86-64 stores with non-temporal stores in address
//! order: its speed does not depend on where the destination lies relative to the source.
//! The C library's `memcpy` (what `copy_from_slice` calls) switches to non-temporal stores
//! for large copies too, but its loop slows down severalfold when the destination is a few
//! hundred bytes ahead of the source modulo the 4 KiB page, which is where a message body
//! lands when a page-aligned tensor buffer is encoded into a fresh, page-aligned
//! allocation (the body starts 64 bytes into the message). Smaller pieces go through
//! `copy_from_slice`: there the C library uses cached stores, which suit data the caller is
//! likely to read soon.

mod sink;
mod streaming;

pub(super) use sink::as_vec;

use std::mem::MaybeUninit;

/// Appends the pieces of a message (`len` bytes in all) to `out`.
pub(super) fn write_into(out: &mut Vec<u8>, pieces: &[&[u8]], len: usize) {
    out.reserve(len);
    for p in pieces {
        if p.len() >= streaming::STREAMING_MIN {
            streaming::extend(out, p);
        } else {
            out.extend_from_slice(p);
        }
    }
}

/// The pieces of a message (`len` bytes in all) in one new vector.
pub(super) fn to_vec(pieces: &[&[u8]], len: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(len);
    write_into(&mut v, pieces, len);
    v
}

/// Writes the pieces of a message back to back at the start of `out`, which holds at least
/// their total length; returns the bytes written.
pub(super) fn write_to_uninit<'a>(
    out: &'a mut [MaybeUninit<u8>],
    pieces: &[&[u8]],
) -> &'a mut [u8] {
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    let (out, _) = out.split_at_mut(len);
    let mut rest = &mut *out;
    for p in pieces {
        let (dst, tail) = std::mem::take(&mut rest).split_at_mut(p.len());
        streaming::copy(dst, p);
        rest = tail;
    }
    streaming::assume_written(out)
}
