//! Resource limits: every limit of [`Limits`] produces [`ErrorKind::LimitExceeded`], and
//! inputs that merely claim huge sizes cost no memory in proportion to the claim.
//!
//! This file is its own test binary and holds only light tests, so that the memory checks
//! (peak RSS from `/proc/self/status`, and the peak of a counting global allocator) measure
//! the decoder and nothing else.

mod common;

use arrow_tensor_ipc::{
    decode_message, BufferId, ErrorKind, Limits, MessageIter, MessageReader, ReadOptions,
    Validation,
};
use common::craft::{self, Index, Vt, I32};
use common::{
    all_errors, coo_msg, crafted_coo, crafted_csf, crafted_csr, crafted_dense, csx_msg, dec,
    dense_msg, read, sparse_msg,
};

/// A global allocator that counts live bytes and their peak, to check that decoding never
/// allocates in proportion to a size the input claims (RSS alone misses allocations whose
/// pages are never touched).
#[allow(unsafe_code)]
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    static CURRENT: AtomicUsize = AtomicUsize::new(0);
    static PEAK: AtomicUsize = AtomicUsize::new(0);

    struct Counting;

    fn grow(n: usize) {
        let now = CURRENT.fetch_add(n, Relaxed) + n;
        PEAK.fetch_max(now, Relaxed);
    }

    // SAFETY: every call is forwarded to the system allocator unchanged; the counters are
    // bookkeeping only.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let p = System.alloc(layout);
            if !p.is_null() {
                grow(layout.size());
            }
            p
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let p = System.alloc_zeroed(layout);
            if !p.is_null() {
                grow(layout.size());
            }
            p
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            System.dealloc(ptr, layout);
            CURRENT.fetch_sub(layout.size(), Relaxed);
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let p = System.realloc(ptr, layout, new_size);
            if !p.is_null() {
                // Old and new blocks may coexist during the move: count the new one first.
                grow(new_size);
                CURRENT.fetch_sub(layout.size(), Relaxed);
            }
            p
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    /// Starts a measurement: resets the peak to the bytes live now, which it returns.
    pub fn start() -> usize {
        let now = CURRENT.load(Relaxed);
        PEAK.store(now, Relaxed);
        now
    }

    /// The peak of live bytes since `start`, above what was live then.
    pub fn peak_since(base: usize) -> usize {
        PEAK.load(Relaxed).saturating_sub(base)
    }
}

/// Peak resident set size of this process (VmHWM), in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("a VmHWM line");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("VmHWM in kB");
    kb * 1024
}

const MIB: u64 = 1 << 20;

fn with_limits(limits: Limits) -> ReadOptions {
    ReadOptions::default().with_limits(limits)
}

#[test]
fn defaults_are_sensible() {
    let l = Limits::default();
    assert_eq!(l.max_metadata_len, 64 << 20);
    assert_eq!(l.max_body_len, 16 << 30);
    assert_eq!(l.max_rank, 64);
    assert_eq!(l.max_nnz, u32::MAX as u64);
    assert_eq!(l.max_dense_elements, 1 << 28);
    for o in [
        ReadOptions::default(),
        ReadOptions::strict(),
        ReadOptions::permissive(),
    ] {
        assert_eq!(o.limits, l);
    }
    assert_eq!(ReadOptions::permissive().validation, Validation::Permissive);
}

#[test]
fn metadata_length_limit() {
    let (s, body) = crafted_csr();
    let bytes = sparse_msg(&s, &body);
    let meta = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let limit = meta - 8;
    for (api, e) in all_errors(
        &bytes,
        with_limits(Limits::default().with_max_metadata_len(limit)),
    ) {
        assert!(
            matches!(e, ErrorKind::LimitExceeded { what: "metadata length", value, limit: l }
                if value == meta as u64 && l == limit as u64),
            "{api}: {e}"
        );
    }
    let exact = with_limits(Limits::default().with_max_metadata_len(meta));
    dec(&bytes, exact).unwrap();
    read(&bytes, exact).unwrap();
}

#[test]
fn body_length_limit() {
    let (d, body) = crafted_dense();
    let bytes = dense_msg(&d, &body);
    for (api, e) in all_errors(&bytes, with_limits(Limits::default().with_max_body_len(23))) {
        assert!(
            matches!(
                e,
                ErrorKind::LimitExceeded {
                    what: "bodyLength",
                    value: 24,
                    limit: 23
                }
            ),
            "{api}: {e}"
        );
    }
    let exact = with_limits(Limits::default().with_max_body_len(24));
    dec(&bytes, exact).unwrap();
    read(&bytes, exact).unwrap();
}

#[test]
fn rank_limit() {
    let rank3 = with_limits(Limits::default().with_max_rank(2));
    let (mut d, body) = crafted_dense();
    d.shape = vec![1, 2, 3];
    d.strides = None;
    let dense3 = dense_msg(&d, &body);
    let (s, body) = crafted_csf();
    let csf3 = sparse_msg(&s, &body);
    let coo3 = coo_msg(&[2, 3, 4], &[1, 2, 3], I32, &[1.], true);
    for bytes in [&dense3, &csf3, &coo3] {
        dec(bytes, ReadOptions::default()).unwrap();
        for (api, e) in all_errors(bytes, rank3) {
            assert!(
                matches!(
                    e,
                    ErrorKind::LimitExceeded {
                        what: "rank",
                        value: 3,
                        limit: 2
                    }
                ),
                "{api}: {e}"
            );
        }
    }
    // The default: 64.
    let (mut d, body) = crafted_dense();
    d.shape = vec![1; 65];
    d.strides = None;
    d.vt = Vt::Int(8, true);
    let e = common::strict_err(&dense_msg(&d, &body));
    assert!(
        matches!(
            e,
            ErrorKind::LimitExceeded {
                what: "rank",
                value: 65,
                limit: 64
            }
        ),
        "{e}"
    );
    d.shape = vec![1; 64];
    dec(&dense_msg(&d, &body), ReadOptions::default()).unwrap();
    // CSF buffer and axis counts are bounded by the same limit, whatever the shape says.
    for (what, which) in [
        ("CSF indptrBuffers", 0),
        ("CSF indicesBuffers", 1),
        ("CSF axisOrder", 2),
    ] {
        let (mut s, body) = crafted_csf();
        if let Index::Csf {
            ptrs, idxs, order, ..
        } = &mut s.index
        {
            match which {
                0 => *ptrs = vec![(0, 0); 65],
                1 => *idxs = vec![(0, 0); 65],
                _ => *order = (0..65).collect(),
            }
        }
        let e = common::strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(e, ErrorKind::LimitExceeded { what: w, value: 65, limit: 64 } if w == what),
            "{e}"
        );
    }
}

#[test]
fn nnz_limit() {
    let three = with_limits(Limits::default().with_max_nnz(2));
    let four = with_limits(Limits::default().with_max_nnz(3));
    for (s, body) in [crafted_coo(), crafted_csr(), crafted_csf()] {
        let bytes = sparse_msg(&s, &body);
        let (opts, limit) = if s.nnz == 3 { (three, 2) } else { (four, 3) };
        for (api, e) in all_errors(&bytes, opts) {
            assert!(
                matches!(e, ErrorKind::LimitExceeded { what: "non_zero_length", value, limit: l }
                    if value == s.nnz as u64 && l == limit),
                "{api}: {e}"
            );
        }
        let exact = with_limits(Limits::default().with_max_nnz(s.nnz as u64));
        dec(&bytes, exact).unwrap();
    }
    // The default: u32::MAX.
    let (mut s, body) = crafted_coo();
    s.nnz = 1 << 32;
    let e = common::strict_err(&sparse_msg(&s, &body));
    assert!(
        matches!(
            e,
            ErrorKind::LimitExceeded {
                what: "non_zero_length",
                value: 0x1_0000_0000,
                limit: 0xFFFF_FFFF
            }
        ),
        "{e}"
    );
}

#[test]
fn to_dense_element_limit() {
    let limits = Limits::default();
    // A valid 2^20 x 2^20 matrix with one value: lookups work, expansion is refused.
    let bytes = coo_msg(&[1 << 20, 1 << 20], &[5, 7], I32, &[1.], true);
    let d = dec(&bytes, ReadOptions::default()).unwrap();
    let t = d.message.as_sparse().unwrap();
    let e = t
        .to_dense_with(
            &arrow_tensor_ipc::ConvertOptions::default()
                .with_max_dense_elements(limits.max_dense_elements),
        )
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LimitExceeded {
                what: "dense element count",
                value: 0x100_0000_0000,
                limit: 0x1000_0000
            }
        ),
        "{e}"
    );
    // The limit is inclusive.
    let bytes = csx_msg([3, 4], 0, (&[0, 1, 1, 2], I32), (&[1, 3], I32), &[1., 2.]);
    let d = dec(&bytes, ReadOptions::default()).unwrap();
    let t = d.message.as_sparse().unwrap();
    let e = t
        .to_dense_with(&arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(11))
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LimitExceeded {
                value: 12,
                limit: 11,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        t.to_dense_with(&arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(12))
            .unwrap()
            .len(),
        12
    );
    // Dense tensors whose strides alias (zero strides) describe more elements than their
    // body holds: bounded by the same limit when decoded.
    let (mut d, _) = crafted_dense();
    d.vt = Vt::Int(8, true);
    d.shape = vec![1 << 20, 1 << 20];
    d.strides = Some(vec![0, 0]);
    d.data = (0, 8);
    d.body_len = 8;
    d.data = (0, 8);
    let bytes = dense_msg(&d, &[7; 8]);
    for (api, e) in all_errors(&bytes, ReadOptions::default()) {
        assert!(
            matches!(
                e,
                ErrorKind::LimitExceeded {
                    value: 0x100_0000_0000,
                    limit: 0x1000_0000,
                    ..
                }
            ),
            "{api}: {e}"
        );
    }
    let lifted = with_limits(Limits::default().with_max_dense_elements(usize::MAX));
    let d = dec(&bytes, lifted).unwrap();
    let t = d.message.as_tensor().unwrap();
    assert_eq!(t.len(), 1 << 40);
    assert_eq!(t.data().len(), 8);
}

/// The smallest dense message we can make (a rank-0 int8 tensor) claiming a body of
/// `body_len` bytes, followed by `present` body bytes.
fn tiny_dense(body_len: i64, present: usize) -> Vec<u8> {
    let d = craft::Dense {
        version: 4,
        vt: Vt::Int(8, true),
        shape: vec![],
        names: vec![],
        strides: None,
        data: (0, 0),
        body_len,
        custom_metadata: false,
    };
    craft::frame(&craft::dense(&d), &vec![1; present], true, 8)
}

/// A reader that hands out at most `chunk` bytes per call, like a socket.
struct Trickle<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.chunk).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Inputs that claim huge sizes: every reader fails fast, and neither the allocator's peak
/// nor the process's peak RSS grows with the claim. (The only test of this binary that
/// measures memory: the others allocate a few kilobytes at most.)
#[test]
fn claimed_sizes_cost_no_memory() {
    // Reset the peak RSS to the current RSS where the kernel allows it (Linux >= 4.0).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let rss_before = peak_rss();
    let unlimited = with_limits(Limits::default().with_max_body_len(u64::MAX));
    // Allocations: `limit` bytes at most for each step.
    let check = |what: &str, limit: u64, f: &dyn Fn()| {
        let base = counting::start();
        f();
        let peak = counting::peak_since(base) as u64;
        assert!(peak <= limit, "{what}: allocated {peak} bytes at peak");
        eprintln!("{what}: peak allocation {peak} bytes");
    };

    // A minimal dense message claiming a 2^40-byte body, followed by 4 body bytes.
    let tiny = tiny_dense(1 << 40, 4);
    eprintln!("tiny message: {} bytes", tiny.len());
    assert!(tiny.len() < 200);
    check("decode_message, 2^40", MIB, &|| {
        let e = decode_message(&bytes::Bytes::copy_from_slice(&tiny), &unlimited).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Truncated {
                    part: "body",
                    needed: 0x100_0000_0000,
                    available: 4
                }
            ),
            "{e}"
        );
        let e = decode_message(
            &bytes::Bytes::copy_from_slice(&tiny),
            &ReadOptions::default(),
        )
        .unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LimitExceeded {
                    what: "bodyLength",
                    ..
                }
            ),
            "{e}"
        );
        let e = MessageIter::new(arrow_buffer::Buffer::from_slice_ref(&tiny), &unlimited)
            .next()
            .unwrap()
            .unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
    });
    check("MessageReader default limits, 2^40", MIB, &|| {
        let e = MessageReader::new(&tiny[..], &ReadOptions::default())
            .next()
            .unwrap()
            .unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LimitExceeded {
                    what: "bodyLength",
                    value: 0x100_0000_0000,
                    limit: 0x4_0000_0000
                }
            ),
            "{e}"
        );
    });
    // Without the limit the reader allocates one first chunk (1 MiB), no more.
    check(
        "MessageReader max_body_len = u64::MAX, 2^40",
        2 * MIB,
        &|| {
            let e = MessageReader::new(&tiny[..], &unlimited)
                .next()
                .unwrap()
                .unwrap_err();
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::Truncated {
                        part: "body",
                        needed: 0x100_0000_0000,
                        available: 4
                    }
                ),
                "{e}"
            );
        },
    );
    // i64::MAX, the largest body a message can claim.
    check(
        "MessageReader max_body_len = u64::MAX, i64::MAX",
        2 * MIB,
        &|| {
            let huge = tiny_dense(i64::MAX, 0);
            let e = MessageReader::new(&huge[..], &unlimited)
                .next()
                .unwrap()
                .unwrap_err();
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::Truncated {
                        part: "body",
                        available: 0,
                        ..
                    }
                ),
                "{e}"
            );
        },
    );
    // A stream claiming a 1 GiB body (under the default limit) with 100 bytes present.
    let gib = tiny_dense(1 << 30, 100);
    check("MessageReader, 1 GiB claimed, 100 bytes", 2 * MIB, &|| {
        for opts in [ReadOptions::default(), ReadOptions::permissive()] {
            let e = MessageReader::new(&gib[..], &opts)
                .next()
                .unwrap()
                .unwrap_err();
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::Truncated {
                        part: "body",
                        needed: 0x4000_0000,
                        available: 100
                    }
                ),
                "{e}"
            );
        }
        let e = MessageReader::new(
            Trickle {
                data: &gib,
                chunk: 7,
            },
            &ReadOptions::default(),
        )
        .next()
        .unwrap()
        .unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Truncated { available: 100, .. }),
            "{e}"
        );
    });
    // ... and with 5 MiB present: memory follows the bytes that arrive.
    let five = tiny_dense(1 << 30, 5 << 20);
    check("MessageReader, 1 GiB claimed, 5 MiB", 24 * MIB, &|| {
        let e = MessageReader::new(
            Trickle {
                data: &five,
                chunk: 64 << 10,
            },
            &ReadOptions::default(),
        )
        .next()
        .unwrap()
        .unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Truncated { available, .. } if *available == 5 << 20),
            "{e}"
        );
    });
    drop(five);
    // A metadata length of 60 MiB (under the default limit) with 10 bytes present.
    let mut meta_claim = vec![0xFF; 4];
    meta_claim.extend_from_slice(&(60i32 << 20).to_le_bytes());
    meta_claim.extend_from_slice(&[0; 10]);
    check("MessageReader, 60 MiB metadata claimed", 2 * MIB, &|| {
        for e in [
            MessageReader::new(&meta_claim[..], &ReadOptions::default())
                .next()
                .unwrap()
                .unwrap_err(),
            decode_message(
                &bytes::Bytes::copy_from_slice(&meta_claim),
                &ReadOptions::default(),
            )
            .unwrap_err(),
        ] {
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::Truncated {
                        part: "metadata",
                        ..
                    }
                ),
                "{e}"
            );
        }
    });
    // Sizes claimed inside the metadata: shapes, nnz and strides over a tiny body.
    check("claims inside the metadata", MIB, &|| {
        let (mut d, body) = crafted_dense();
        d.vt = Vt::Int(8, true);
        d.shape = vec![1 << 31, 1 << 31];
        d.strides = None;
        let e = common::strict_err(&dense_msg(&d, &body));
        assert!(
            matches!(
                e,
                ErrorKind::BufferTooShort {
                    buffer: BufferId::TensorData,
                    ..
                }
            ),
            "{e}"
        );
        let (mut s, body) = crafted_coo();
        s.nnz = u32::MAX as i64;
        let e = common::strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(
                e,
                ErrorKind::BufferTooShort {
                    buffer: BufferId::CooIndices,
                    ..
                }
            ),
            "{e}"
        );
        let (mut s, body) = crafted_csr();
        s.shape = vec![1 << 40, 4];
        let e = common::strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(
                e,
                ErrorKind::BufferTooShort {
                    buffer: BufferId::CsxIndptr,
                    ..
                }
            ),
            "{e}"
        );
        let (mut s, body) = crafted_csf();
        s.nnz = u32::MAX as i64;
        let e = common::strict_err(&sparse_msg(&s, &body));
        assert!(matches!(e, ErrorKind::CountMismatch { .. }), "{e}");
        // A valid huge-shape sparse tensor: expansion refused before allocating.
        let bytes = coo_msg(&[1 << 30, 1 << 30], &[1, 2], I32, &[1.], true);
        let d = dec(&bytes, ReadOptions::default()).unwrap();
        let t = d.message.as_sparse().unwrap();
        assert!(t
            .to_dense_with(
                &arrow_tensor_ipc::ConvertOptions::default()
                    .with_max_dense_elements(Limits::default().max_dense_elements)
            )
            .is_err());
    });

    let rss_after = peak_rss();
    let grown = rss_after.saturating_sub(rss_before);
    eprintln!("peak RSS: {rss_before} -> {rss_after} bytes (+{grown})");
    assert!(
        grown <= 64 * MIB,
        "peak RSS grew by {grown} bytes ({rss_before} -> {rss_after})"
    );
}

/// Encoding a tensor built (not decoded) with zero strides over a shape of 2^40 elements
/// would copy it to row-major: the copy's allocation failure is a typed error, not an abort.
#[test]
fn encoding_a_huge_aliased_tensor_fails_cleanly() {
    let t = arrow_tensor_ipc::Tensor::try_new(
        arrow_tensor_ipc::ValueType::Float64,
        vec![1 << 20, 1 << 20],
        vec![0, 0],
        arrow_buffer::Buffer::from_vec(vec![1.0f64]),
    )
    .expect("zero strides over one value");
    let e = arrow_tensor_ipc::encode(&t.into(), &arrow_tensor_ipc::WriteOptions::default())
        .expect_err("8 TiB copy");
    assert!(
        matches!(
            e.kind(),
            arrow_tensor_ipc::ErrorKind::AllocationFailed { bytes, .. } if *bytes == 8 << 40
        ),
        "{e}"
    );
}
