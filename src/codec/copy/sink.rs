//! Recognising a writer that is a `Vec<u8>`, so that
//! [`EncodedMessage::write_to`](crate::EncodedMessage::write_to) (and with it
//! [`MessageWriter`](crate::MessageWriter)) copies into it as
//! [`EncodedMessage::write_into`](crate::EncodedMessage::write_into) does, with the
//! streaming copy of large pieces, instead of through `Vec`'s `Write` impl (the C library's
//! `memcpy`, which slows down where a message body lands just past a page boundary of a
//! page-aligned tensor buffer; see the parent module).
//!
//! A generic writer cannot be matched against a concrete type on stable Rust without a
//! `'static` bound, which `MessageWriter<&mut File>` and the like would not meet; so the
//! check compares type ids with lifetimes erased (`typeid::of`) and, on a match, casts the
//! pointer. This is sound because the two types it recognises hold no lifetime of their own
//! apart from the outer reference's: a type whose erased id is `Vec<u8>`'s is `Vec<u8>`, and
//! one whose erased id is `&'static mut Vec<u8>`'s is `&'a mut Vec<u8>` for some `'a` that
//! outlives the borrow of the writer. Miri checks both casts:
//! `cargo +nightly miri test --lib codec::copy::sink`.

#![allow(unsafe_code)]

use std::any::TypeId;

/// `w` as the vector it is, when its type is `Vec<u8>` or `&mut Vec<u8>`; `None` for any
/// other writer.
pub(crate) fn as_vec<W: ?Sized>(w: &mut W) -> Option<&mut Vec<u8>> {
    let id = typeid::of::<W>();
    if id == TypeId::of::<Vec<u8>>() {
        // SAFETY: `W` with its lifetimes erased is `Vec<u8>`, which has no lifetime
        // parameter, so `W` is `Vec<u8>` (and sized: the pointer carries no metadata). The
        // result borrows `w` mutably for as long as `w` was borrowed.
        return Some(unsafe { &mut *(w as *mut W).cast::<Vec<u8>>() });
    }
    if id == TypeId::of::<&'static mut Vec<u8>>() {
        // SAFETY: `W` is `&'a mut Vec<u8>` for some `'a` (the only lifetime erased), and
        // `'a` outlives the borrow of `w`. The outer reference lives no longer than that
        // borrow, and so does the vector reborrowed through it.
        let outer: &mut &mut Vec<u8> = unsafe { &mut *(w as *mut W).cast::<&mut Vec<u8>>() };
        return Some(&mut **outer);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::as_vec;
    use std::io::{Cursor, Write};

    #[test]
    fn a_vec_is_recognised_and_written_through() {
        let mut v = vec![1u8, 2];
        as_vec(&mut v).expect("a Vec<u8>").push(3);
        assert_eq!(v, [1, 2, 3]);
    }

    #[test]
    fn a_mutable_reference_to_a_vec_is_recognised() {
        let mut v = vec![1u8];
        {
            let mut r: &mut Vec<u8> = &mut v;
            as_vec(&mut r).expect("a &mut Vec<u8>").push(2);
            r.push(3);
        }
        assert_eq!(v, [1, 2, 3]);
    }

    #[test]
    fn other_writers_are_not() {
        assert!(as_vec(&mut Vec::<u16>::new()).is_none());
        assert!(as_vec(&mut Cursor::new(Vec::<u8>::new())).is_none());
        assert!(as_vec(&mut &mut Cursor::new(Vec::<u8>::new())).is_none());
        assert!(as_vec(&mut std::io::sink()).is_none());
        let mut v = Vec::<u8>::new();
        let w: &mut dyn Write = &mut v;
        assert!(as_vec(w).is_none());
        // A shared reference to a vector is not a writer, and is not taken for one.
        assert!(as_vec(&mut &v).is_none());
    }
}
