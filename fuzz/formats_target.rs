//! The body of the `file_formats` fuzz target, shared by `fuzz/fuzz_targets/file_formats.rs`
//! (cargo-fuzz) and `tests/formats_fuzz.rs` (stable `cargo test`, which replays the corpus).
//!
//! The first byte picks the reader (Matrix Market, FROSTT, `.npy`, `.npz`), the rest is the
//! file. A target panics only when the library breaks a promise: a reader panicked, or what
//! a reader accepted and its writer wrote cannot be read again.

#![allow(dead_code)]

use arrow_tensor_ipc::formats::{mtx, npy, npz, tns};
use arrow_tensor_ipc::Limits;

fn small_limits() -> Limits {
    Limits::default()
        .with_max_body_len(1 << 22)
        .with_max_rank(8)
        .with_max_nnz(1 << 16)
        .with_max_dense_elements(1 << 16)
}

/// Reads `data[1..]` with the reader `data[0]` picks (on one and on two threads for the
/// text formats, which must agree, and a batch at a time through the chunked reader, which
/// must agree with the whole-file one), then writes what it read and reads that again.
pub fn file_formats(data: &[u8]) {
    let Some((&which, file)) = data.split_first() else {
        return;
    };
    let limits = small_limits();
    match which % 4 {
        0 => {
            let read = |threads: usize, bytes: &[u8]| {
                let o = mtx::MtxReadOptions::default()
                    .with_limits(limits)
                    .with_threads(threads);
                mtx::read(bytes, &o)
            };
            let one = read(1, file);
            let two = read(2, file);
            assert_eq!(one.is_ok(), two.is_ok(), "threads disagree");
            let o = mtx::MtxReadOptions::default()
                .with_limits(limits)
                .with_chunk_entries(3);
            if let Ok(chunks) = mtx::read_chunks(file, &o) {
                let batches: Result<Vec<_>, _> = chunks.collect();
                if let Ok(m) = &one {
                    if let Some(t) = m[0].as_sparse() {
                        let batches = batches.expect("read accepts what read_chunks refuses");
                        let nnz: usize = batches.iter().map(|b| b.len()).sum();
                        assert_eq!(nnz, t.nnz(), "read_chunks and read disagree");
                    }
                } else {
                    assert!(batches.is_err(), "read_chunks accepts what read refuses");
                }
            }
            if let Ok(m) = one {
                let mut out = Vec::new();
                if mtx::write(&m, &mut out, &mtx::MtxWriteOptions::default()).is_ok() {
                    let again = read(1, &out);
                    assert!(again.is_ok(), "our .mtx does not read back: {again:?}");
                }
            }
        }
        1 => {
            let read = |threads: usize, bytes: &[u8]| {
                let o = tns::TnsReadOptions::default()
                    .with_limits(limits)
                    .with_threads(threads);
                tns::read(bytes, &o)
            };
            let one = read(1, file);
            let two = read(2, file);
            assert_eq!(one.is_ok(), two.is_ok(), "threads disagree");
            let o = tns::TnsReadOptions::default()
                .with_limits(limits)
                .with_chunk_entries(3);
            if let Ok(chunks) = tns::read_chunks(file, &o) {
                let batches: Result<Vec<_>, _> = chunks.collect();
                assert_eq!(
                    batches.is_ok(),
                    one.is_ok(),
                    "read_chunks and read disagree"
                );
            }
            if let Ok(m) = one {
                let shape = m[0]
                    .as_sparse()
                    .map(|t| t.shape().to_vec())
                    .unwrap_or_default();
                let mut out = Vec::new();
                if tns::write(&m, &mut out, &tns::TnsWriteOptions::default()).is_ok() {
                    let o = tns::TnsReadOptions::default()
                        .with_limits(limits)
                        .with_shape(shape);
                    let again = tns::read(&out[..], &o);
                    assert!(again.is_ok(), "our .tns does not read back: {again:?}");
                }
            }
        }
        2 => {
            let o = npy::NpyReadOptions::default().with_limits(limits);
            if let Ok(m) = npy::read(file, &o) {
                let mut out = Vec::new();
                if npy::write(&m, &mut out, &npy::NpyWriteOptions::default()).is_ok() {
                    match npy::read(out, &o) {
                        Ok(back) => assert!(
                            back[0]
                                .as_tensor()
                                .zip(m[0].as_tensor())
                                .is_some_and(|(b, t)| b.content_eq(t)),
                            "our .npy reads back different"
                        ),
                        Err(e) => panic!("our .npy does not read back: {e}"),
                    }
                }
            }
        }
        _ => {
            // Both kinds of archive (scipy sparse bundles, bundles of named arrays).
            let o = npz::NpzReadOptions::default().with_limits(limits);
            if let Ok(ms) = npz::read(file, &o) {
                let mut out = std::io::Cursor::new(Vec::new());
                if npz::write(&ms, &mut out, &npz::NpzWriteOptions::default()).is_ok() {
                    match npz::read(out.into_inner(), &o) {
                        Ok(back) => assert_eq!(back.len(), ms.len(), "our archive lost members"),
                        Err(e) => panic!("our .npz does not read back: {e}"),
                    }
                }
            }
        }
    }
}
