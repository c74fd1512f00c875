//! The body of the `file_formats` fuzz target, shared by `fuzz/fuzz_targets/file_formats.rs`
//! (cargo-fuzz) and `tests/formats_fuzz.rs` (stable `cargo test`, which replays the corpus).
//!
//! The first byte picks the reader (Matrix Market, FROSTT, `.npy`, `.npz`), the rest is the
//! file. A target panics only when the library breaks a promise: a reader panicked, or what
//! a reader accepted and its writer wrote cannot be read again.

#![allow(dead_code)]

use arrow_tensor_ipc::formats::{frostt, matrix_market, npy, npz};
use arrow_tensor_ipc::{Limits, Message};
use std::io::Cursor;

fn small_limits() -> Limits {
    Limits::default()
        .with_max_body_len(1 << 22)
        .with_max_rank(8)
        .with_max_nnz(1 << 16)
        .with_max_dense_elements(1 << 16)
}

/// Reads `data[1..]` with the reader `data[0]` picks (on one and on two threads for the
/// text formats, which must agree), then writes what it read and reads that again.
pub fn file_formats(data: &[u8]) {
    let Some((&which, file)) = data.split_first() else {
        return;
    };
    let limits = small_limits();
    match which % 4 {
        0 => {
            let read = |threads: usize, bytes: &[u8]| {
                let o = matrix_market::MtxReadOptions::default()
                    .with_limits(limits)
                    .with_threads(threads);
                matrix_market::read_matrix_market(bytes, &o)
            };
            let one = read(1, file);
            let two = read(2, file);
            assert_eq!(one.is_ok(), two.is_ok(), "threads disagree");
            if let Ok(m) = one {
                let mut out = Vec::new();
                if matrix_market::write_matrix_market(
                    &m,
                    &mut out,
                    &matrix_market::MtxWriteOptions::default(),
                )
                .is_ok()
                {
                    let again = read(1, &out);
                    assert!(again.is_ok(), "our .mtx does not read back: {again:?}");
                }
            }
        }
        1 => {
            let read = |threads: usize, bytes: &[u8]| {
                let o = frostt::TnsReadOptions::default()
                    .with_limits(limits)
                    .with_threads(threads);
                frostt::read_frostt(bytes, &o)
            };
            let one = read(1, file);
            let two = read(2, file);
            assert_eq!(one.is_ok(), two.is_ok(), "threads disagree");
            if let Ok(t) = one {
                let shape = t.shape().to_vec();
                let mut out = Vec::new();
                if frostt::write_frostt(&Message::SparseTensor(t), &mut out).is_ok() {
                    let o = frostt::TnsReadOptions::default()
                        .with_limits(limits)
                        .with_shape(shape);
                    let again = frostt::read_frostt(&out, &o);
                    assert!(again.is_ok(), "our .tns does not read back: {again:?}");
                }
            }
        }
        2 => {
            if let Ok(t) = npy::read_npy(file, &limits) {
                let mut out = Vec::new();
                if npy::write_npy(&t, &mut out).is_ok() {
                    let again = npy::read_npy(&out, &limits);
                    match again {
                        Ok(back) => assert!(back.content_eq(&t), "our .npy reads back different"),
                        Err(e) => panic!("our .npy does not read back: {e}"),
                    }
                }
            }
        }
        _ => {
            if let Ok(t) = npz::read_npz(Cursor::new(file), &limits) {
                let mut out = Cursor::new(Vec::new());
                if npz::write_npz(&t, &mut out, &npz::NpzWriteOptions::default()).is_ok() {
                    let again = npz::read_npz(Cursor::new(out.into_inner()), &limits);
                    assert!(again.is_ok(), "our .npz does not read back: {again:?}");
                }
            }
            // Both kinds of archive (scipy sparse bundles, bundles of named arrays).
            if let Ok(ms) = npz::read_npz_messages(Cursor::new(file), &limits) {
                let mut out = Cursor::new(Vec::new());
                if npz::write_npz_messages(&ms, &mut out, &npz::NpzWriteOptions::default()).is_ok()
                {
                    let again = npz::read_npz_messages(Cursor::new(out.into_inner()), &limits);
                    match again {
                        Ok(back) => assert_eq!(back.len(), ms.len(), "our bundle lost members"),
                        Err(e) => panic!("our .npz bundle does not read back: {e}"),
                    }
                }
            }
        }
    }
}
