//! The malformed-message suite: each case is one message that breaks one rule, and the test
//! asserts the specific [`ErrorKind`] from every reader (`decode_message`, `MessageIter`,
//! `MessageReader`). The same bytes read permissively are either rejected too or decode to
//! a tensor whose use (`iter`, `for_each_stored`, `to_dense_with`) fails, and whose
//! lookups (`get` on every cell) return without panicking.
//!
//! The first group rebuilds, as our own messages, every hardening fix Arrow C++'s sparse and
//! dense tensor readers needed; each test is named after the Arrow issue. Then come framing,
//! metadata and buffer rules.

mod common;

use arrow_tensor_ipc::__private::flatbuf as fb;
use arrow_tensor_ipc::{
    decode_message, encode, BufferId, ErrorKind, Limits, MessageIter, MessageReader, Misaligned,
    ReadOptions, Scalar, SparseIndex, SparseTensor, WriteOptions,
};
use common::craft::{self, Index, IntT, Vt, I16, I32, I64, I8, U64};
use common::{
    coo_msg, crafted_coo, crafted_csf, crafted_csr, crafted_dense, csf_msg, csx_msg, dec,
    dense_msg, sparse_msg, CSF_ARRAYS,
};

/// Asserts that every reader rejects the first message of `bytes` with an error matching
/// the pattern, and that permissive reading rejects it too or yields a tensor whose use
/// fails. Evaluates to `(strict error, permissively decoded message)`.
///
/// `rejects!(opts: OPTIONS, BYTES, PATTERN)` reads with OPTIONS instead of the defaults.
macro_rules! rejects {
    (opts: $opts:expr, $bytes:expr, $pat:pat $(if $guard:expr)? $(,)?) => {{
        let bytes: &[u8] = &$bytes;
        let opts: ReadOptions = $opts;
        let errors = common::all_errors(bytes, opts);
        for (api, e) in &errors {
            assert!(
                matches!(e, $pat $(if $guard)?),
                "{api}: expected {}, got {e:?} ({e})",
                stringify!($pat)
            );
        }
        let permissive = common::permissive_use_fails(bytes, opts);
        let (_, first) = errors.into_iter().next().expect("three readers");
        (first, permissive)
    }};
    ($bytes:expr, $pat:pat $(if $guard:expr)? $(,)?) => {
        rejects!(opts: ReadOptions::strict(), $bytes, $pat $(if $guard)?)
    };
}

/// Strict rejects with the pattern; permissive must decode (the rule broken is about index
/// contents) and then fail when used. Evaluates to the permissively decoded tensor.
macro_rules! rejects_contents {
    ($bytes:expr, $pat:pat $(if $guard:expr)? $(,)?) => {{
        let (_, permissive) = rejects!($bytes, $pat $(if $guard)?);
        let d = permissive.expect("permissive decoding of bad index contents succeeds");
        match d.message {
            arrow_tensor_ipc::Message::SparseTensor(t) => t,
            arrow_tensor_ipc::Message::Tensor(_) => unreachable!("a sparse tensor"),
        }
    }};
}

/// Strict and permissive both reject with the pattern (the rule is one memory safety needs).
macro_rules! rejects_structure {
    ($bytes:expr, $pat:pat $(if $guard:expr)? $(,)?) => {
        rejects_structure!(opts: ReadOptions::strict(), $bytes, $pat $(if $guard)?)
    };
    (opts: $opts:expr, $bytes:expr, $pat:pat $(if $guard:expr)? $(,)?) => {{
        let bytes: &[u8] = &$bytes;
        let opts: ReadOptions = $opts;
        let (e, permissive) = rejects!(opts: opts, bytes, $pat $(if $guard)?);
        assert!(
            permissive.is_none(),
            "permissive decoding must reject too: {e}"
        );
        for (api, e) in &common::all_errors(bytes, common::permissive_of(opts)) {
            assert!(
                matches!(e, $pat $(if $guard)?),
                "permissive {api}: expected {}, got {e:?} ({e})",
                stringify!($pat)
            );
        }
        e
    }};
}

/// Default options with the nnz limit lifted, to reach the arithmetic behind it.
fn unlimited_nnz() -> ReadOptions {
    ReadOptions::default().with_limits(Limits::default().with_max_nnz(u64::MAX))
}

fn f32s(v: &[f32]) -> Vec<f32> {
    v.to_vec()
}

/// The 3 x 4 CSR base: row 0 -> cols 0, 2; row 1 empty; row 2 -> cols 1, 3.
const CSR_PTR: [i64; 4] = [0, 2, 2, 4];
const CSR_IDX: [i64; 4] = [0, 2, 1, 3];
const VALUES4: [f32; 4] = [1., 2., 3., 4.];

fn csr(indptr: &[i64], indices: &[i64], t: IntT) -> Vec<u8> {
    csx_msg([3, 4], 0, (indptr, t), (indices, t), &VALUES4)
}

/// The seed CSF example with one of its five arrays replaced.
fn csf_with(which: usize, array: &[i64], t: IntT) -> Vec<u8> {
    let mut arrays = CSF_ARRAYS;
    arrays[which] = array;
    csf_msg(
        &[2, 3, 4],
        &[0, 1, 2],
        (&arrays[..2], t),
        (&arrays[2..], t),
        &VALUES4,
    )
}

/// The 3 x 4 COO base (0,1) (1,2) (2,3).
fn coo(coords: &[i64], t: IntT) -> Vec<u8> {
    coo_msg(&[3, 4], coords, t, &[1., 2., 3.], false)
}

#[test]
fn bases_are_valid() {
    let expect_coo = SparseTensor::coo([3, 4], vec![0i32, 1, 1, 2, 2, 3], f32s(&[1., 2., 3.]))
        .unwrap()
        .to_dense()
        .unwrap();
    for bytes in [
        coo(&[0, 1, 1, 2, 2, 3], I32),
        sparse_msg(&crafted_coo().0, &crafted_coo().1),
    ] {
        let d = dec(&bytes, ReadOptions::strict()).unwrap();
        let t = d.message.as_sparse().unwrap();
        assert!(t.to_dense().unwrap().content_eq(&expect_coo));
    }
    let expect_csr =
        SparseTensor::csr([3, 4], CSR_PTR.to_vec(), CSR_IDX.to_vec(), f32s(&VALUES4)).unwrap();
    let d = dec(&csr(&CSR_PTR, &CSR_IDX, I32), ReadOptions::strict()).unwrap();
    let t = d.message.as_sparse().unwrap();
    assert!(t
        .to_dense()
        .unwrap()
        .content_eq(&expect_csr.to_dense().unwrap()));
    let (s, body) = crafted_csr();
    dec(&sparse_msg(&s, &body), ReadOptions::strict()).unwrap();
    let (s, body) = crafted_csf();
    dec(&sparse_msg(&s, &body), ReadOptions::strict()).unwrap();
    let d = dec(&csf_with(0, CSF_ARRAYS[0], I32), ReadOptions::strict()).unwrap();
    let t = d.message.as_sparse().unwrap();
    assert_eq!(t.get(&[1, 1, 2]).unwrap(), Scalar::Float32(4.));
    let (d, body) = crafted_dense();
    dec(&dense_msg(&d, &body), ReadOptions::strict()).unwrap();
}

// =======================================================================================
// Arrow C++ hardening fixes, rebuilt
// =======================================================================================

/// GH-50063: a dense tensor without strides whose shape needs more bytes than the body.
#[test]
fn gh_50063_dense_without_strides_shape_needs_more_than_body() {
    let (mut d, body) = crafted_dense();
    d.strides = None;
    d.body_len = 20;
    d.data = (0, 20);
    rejects_structure!(
        dense_msg(&d, &body[..20]),
        ErrorKind::BufferTooShort {
            buffer: BufferId::TensorData,
            needed: 24,
            length: 20
        }
    );
    // An empty strides vector means row-major too (as Arrow C++ reads it).
    d.strides = Some(vec![]);
    rejects_structure!(
        dense_msg(&d, &body[..20]),
        ErrorKind::BufferTooShort {
            needed: 24,
            length: 20,
            ..
        }
    );
    // No body at all.
    d.body_len = 0;
    d.data = (0, 0);
    rejects_structure!(
        dense_msg(&d, &[]),
        ErrorKind::BufferTooShort {
            needed: 24,
            length: 0,
            ..
        }
    );
    // A large shape over a tiny body: float64 1000 x 1000.
    let (mut d, body) = crafted_dense();
    d.strides = None;
    d.vt = Vt::Float(2);
    d.shape = vec![1000, 1000];
    rejects_structure!(
        dense_msg(&d, &body),
        ErrorKind::BufferTooShort {
            needed: 8_000_000,
            length: 24,
            ..
        }
    );
    // 2^62 int8 elements: the byte count fits in int64, the body does not hold it.
    d.vt = Vt::Int(8, true);
    d.shape = vec![1 << 31, 1 << 31];
    rejects_structure!(
        dense_msg(&d, &body),
        ErrorKind::BufferTooShort {
            needed: 0x4000_0000_0000_0000,
            length: 24,
            ..
        }
    );
}

/// ARROW-11470: shape or stride products that overflow int64.
#[test]
fn arrow_11470_shape_or_stride_products_overflow_int64() {
    // Element counts (implicit row-major strides).
    for shape in [
        vec![1 << 32, 1 << 32],
        vec![i64::MAX, 2],
        vec![3_037_000_500, 3_037_000_500],
        vec![1 << 21, 1 << 21, 1 << 21],
        vec![1 << 31, 1 << 31, 4],
    ] {
        let (mut d, body) = crafted_dense();
        d.strides = None;
        d.shape = shape;
        rejects_structure!(dense_msg(&d, &body), ErrorKind::Overflow { .. });
    }
    // The same shapes with explicit strides.
    let (mut d, body) = crafted_dense();
    d.shape = vec![1 << 32, 1 << 32];
    d.strides = Some(vec![1 << 34, 4]);
    rejects_structure!(dense_msg(&d, &body), ErrorKind::Overflow { .. });
    // Stride products: (shape - 1) x stride summed over the dimensions.
    for (shape, strides) in [
        (vec![4], vec![i64::MAX]),
        (vec![5, 2], vec![1 << 62, 8]),
        (vec![2, 2, 2], vec![i64::MAX, i64::MAX, 4]),
    ] {
        let (mut d, body) = crafted_dense();
        d.vt = Vt::Int(64, true);
        d.shape = shape;
        d.strides = Some(strides);
        rejects_structure!(dense_msg(&d, &body), ErrorKind::Overflow { .. });
    }
    // A sparse tensor may describe a shape whose element count overflows: it decodes (the
    // index is valid) and lookups work, but expanding it overflows instead of allocating.
    let bytes = coo_msg(&[1 << 40, 1 << 40], &[5, 7], I64, &[1.], true);
    let d = dec(&bytes, ReadOptions::strict()).unwrap();
    let t = d.message.as_sparse().unwrap();
    assert_eq!(t.get(&[5, 7]).unwrap(), Scalar::Float32(1.));
    assert_eq!(t.get(&[1 << 39, 3]).unwrap(), Scalar::Float32(0.));
    assert_eq!(t.total_elements(), None);
    assert!(matches!(
        t.to_dense_with(
            &arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(usize::MAX)
        )
        .unwrap_err()
        .kind(),
        ErrorKind::Overflow { .. }
    ));
    let bytes = csx_msg(
        [4, 1 << 62],
        0,
        (&[0, 1, 1, 1, 1], I64),
        (&[(1 << 62) - 1], I64),
        &[2.],
    );
    let d = dec(&bytes, ReadOptions::strict()).unwrap();
    let t = d.message.as_sparse().unwrap();
    assert_eq!(t.get(&[0, (1 << 62) - 1]).unwrap(), Scalar::Float32(2.));
    assert!(matches!(
        t.to_dense_with(
            &arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(usize::MAX)
        )
        .unwrap_err()
        .kind(),
        ErrorKind::Overflow { .. }
    ));
}

/// ARROW-7633: a strides vector whose length differs from the shape's.
#[test]
fn arrow_7633_strides_count_differs_from_shape_count() {
    for (shape, strides) in [
        (vec![2, 3], vec![12, 4, 4]),
        (vec![2, 3], vec![4]),
        (vec![6], vec![4, 4]),
        (vec![], vec![4]),
        (vec![1, 2, 3], vec![24, 12]),
    ] {
        let (mut d, body) = crafted_dense();
        let (rank, count) = (shape.len() as u64, strides.len() as u64);
        d.shape = shape;
        d.strides = Some(strides);
        rejects_structure!(
            dense_msg(&d, &body),
            ErrorKind::CountMismatch { expected, found, .. } if *expected == rank && *found == count
        );
    }
    // COO indicesStrides have two entries (one step per entry, one per dimension).
    for strides in [vec![8], vec![8, 4, 4], vec![4, 4, 4, 4]] {
        let (mut s, body) = crafted_coo();
        if let Index::Coo { strides: st, .. } = &mut s.index {
            *st = Some(strides.clone());
        }
        rejects_structure!(
            sparse_msg(&s, &body),
            ErrorKind::InvalidCooStrides(v) if *v == strides
        );
    }
}

/// GH-50054: COO with a huge nnz and a small indices buffer (nnz x ndim x width overflows).
#[test]
fn gh_50054_coo_huge_nnz_small_indices_buffer() {
    // The default nnz limit stops it first.
    let (mut s, body) = crafted_coo();
    s.nnz = 1 << 40;
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::LimitExceeded {
            what: "non_zero_length",
            value: 0x100_0000_0000,
            ..
        }
    );
    // Without the limit: the arithmetic overflows, or the buffer is too short.
    let opts = unlimited_nnz();
    for nnz in [i64::MAX, 1 << 62, (1 << 61) + 1] {
        let (mut s, body) = crafted_coo();
        s.nnz = nnz;
        rejects_structure!(opts: opts, sparse_msg(&s, &body), ErrorKind::Overflow { .. });
    }
    let (mut s, body) = crafted_coo();
    s.nnz = 1 << 40;
    rejects_structure!(
        opts: opts,
        sparse_msg(&s, &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CooIndices,
            needed: 0x800_0000_0000,
            length: 24
        }
    );
    // int8 coordinates: nnz x ndim x 1 = 2^63 bytes fits in u64, not in the body.
    let (mut s, body) = crafted_coo();
    s.nnz = 1 << 62;
    if let Index::Coo { ty, strides, .. } = &mut s.index {
        *ty = I8;
        *strides = Some(vec![2, 1]);
    }
    rejects_structure!(
        opts: opts,
        sparse_msg(&s, &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CooIndices,
            needed: 0x8000_0000_0000_0000,
            ..
        }
    );
    // Rank 3, int64: nnz x ndim fits, x 8 does not.
    let bytes = coo_msg(&[3, 4, 5], &[0, 1, 2], I64, &[1.], true);
    let d = dec(&bytes, ReadOptions::strict()).unwrap();
    assert_eq!(d.message.as_sparse().unwrap().nnz(), 1);
    let mut s = crafted_coo().0;
    s.shape = vec![3, 4, 5];
    s.nnz = (u64::MAX / 3 / 8 + 1) as i64;
    if let Index::Coo { ty, strides, .. } = &mut s.index {
        *ty = I64;
        *strides = Some(vec![24, 8]);
    }
    rejects_structure!(opts: opts, sparse_msg(&s, &crafted_coo().1), ErrorKind::Overflow { .. });
}

/// GH-50077: CSX with nnz or shape[axis] near i64::MAX.
#[test]
fn gh_50077_csx_nnz_or_compressed_dimension_near_i64_max() {
    // nnz: stopped by the default limit, else the indices length overflows or is short.
    let (mut s, body) = crafted_csr();
    s.nnz = i64::MAX;
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::LimitExceeded {
            what: "non_zero_length",
            ..
        }
    );
    let opts = unlimited_nnz();
    rejects_structure!(opts: opts, sparse_msg(&s, &body), ErrorKind::Overflow { .. });
    for nnz in [i64::MAX, i64::MAX - 1, 1 << 61] {
        s.nnz = nnz;
        rejects_structure!(opts: opts, sparse_msg(&s, &body), ErrorKind::Overflow { .. });
    }
    if let Index::Csx { idx_ty, .. } = &mut s.index {
        *idx_ty = I8;
    }
    s.nnz = i64::MAX;
    rejects_structure!(
        opts: opts,
        sparse_msg(&s, &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CsxIndices,
            needed,
            length: 32
        } if *needed == i64::MAX as u64
    );
    // shape[axis] + 1 indptr entries: overflows with int64, is short with int8.
    for (shape, axis) in [
        (vec![i64::MAX, 4], 0),
        (vec![4, i64::MAX], 1),
        (vec![i64::MAX - 1, 4], 0),
        (vec![1 << 61, 4], 0),
    ] {
        let (mut s, body) = crafted_csr();
        s.shape = shape;
        if let Index::Csx { axis: a, .. } = &mut s.index {
            *a = axis;
        }
        rejects_structure!(sparse_msg(&s, &body), ErrorKind::Overflow { .. });
    }
    let (mut s, body) = crafted_csr();
    s.shape = vec![i64::MAX, 4];
    if let Index::Csx { ptr_ty, .. } = &mut s.index {
        *ptr_ty = I8;
    }
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CsxIndptr,
            needed: 0x8000_0000_0000_0000,
            length: 32
        }
    );
    // The other (non-compressed) dimension may be that large: valid, and bounded uses.
    let bytes = csx_msg(
        [3, i64::MAX],
        0,
        (&CSR_PTR, I64),
        (&[0, 5, 1, i64::MAX - 1], I64),
        &VALUES4,
    );
    let d = dec(&bytes, ReadOptions::strict()).unwrap();
    let t = d.message.as_sparse().unwrap();
    assert_eq!(
        t.get(&[2, i64::MAX as usize - 1]).unwrap(),
        Scalar::Float32(4.)
    );
    assert_eq!(t.get(&[1, 1 << 62]).unwrap(), Scalar::Float32(0.));
    assert_eq!(t.iter().unwrap().count(), 4);
    assert!(matches!(
        t.to_dense_with(
            &arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(usize::MAX)
        )
        .unwrap_err()
        .kind(),
        ErrorKind::Overflow { .. }
    ));
}

/// GH-50161: CSF with wrong numbers of indptr buffers, indices buffers or axisOrder
/// entries, and CSF of rank 0 and 1.
#[test]
fn gh_50161_csf_wrong_counts_and_rank_0_and_1() {
    let count = |what: &str, expected: u64, found: u64, f: &dyn Fn(&mut Index)| {
        let (mut s, body) = crafted_csf();
        f(&mut s.index);
        let e = rejects_structure!(
            sparse_msg(&s, &body),
            ErrorKind::CountMismatch { expected: x, found: y, .. } if *x == expected && *y == found
        );
        assert!(e.to_string().contains(what), "{e}");
    };
    let ptrs = |f: fn(&mut Vec<(i64, i64)>)| {
        move |i: &mut Index| {
            if let Index::Csf { ptrs, .. } = i {
                f(ptrs)
            }
        }
    };
    let idxs = |f: fn(&mut Vec<(i64, i64)>)| {
        move |i: &mut Index| {
            if let Index::Csf { idxs, .. } = i {
                f(idxs)
            }
        }
    };
    let order = |o: Vec<i32>| {
        move |i: &mut Index| {
            if let Index::Csf { order, .. } = i {
                *order = o.clone()
            }
        }
    };
    count(
        "indptrBuffers",
        2,
        1,
        &ptrs(|p| {
            p.pop();
        }),
    );
    count("indptrBuffers", 2, 0, &ptrs(|p| p.clear()));
    count("indptrBuffers", 2, 3, &ptrs(|p| p.push(p[1])));
    count(
        "indicesBuffers",
        3,
        2,
        &idxs(|p| {
            p.pop();
        }),
    );
    count("indicesBuffers", 3, 0, &idxs(|p| p.clear()));
    count("indicesBuffers", 3, 4, &idxs(|p| p.push(p[2])));
    count("axisOrder", 3, 2, &order(vec![0, 1]));
    count("axisOrder", 3, 4, &order(vec![0, 1, 2, 3]));
    count("axisOrder", 3, 0, &order(vec![]));
    // Buffer lengths that do not make a tree: 3 leaves for nnz 4, a level-0 indptr of 4
    // entries over 3 nodes of level 1.
    let (mut s, body) = crafted_csf();
    if let Index::Csf { idxs, .. } = &mut s.index {
        idxs[2].1 = 3;
    }
    rejects_structure!(sparse_msg(&s, &body), ErrorKind::CountMismatch { .. });
    let (mut s, body) = crafted_csf();
    if let Index::Csf { ptrs, .. } = &mut s.index {
        ptrs[0].1 = 4;
    }
    rejects_structure!(sparse_msg(&s, &body), ErrorKind::CountMismatch { .. });
    // Rank 0 and rank 1, with otherwise consistent counts.
    rejects_structure!(
        csf_msg(&[], &[], (&[], I32), (&[], I32), &[]),
        ErrorKind::InvalidRank {
            layout: "CSF",
            rank: 0,
            ..
        }
    );
    rejects_structure!(
        csf_msg(&[], &[], (&[], I32), (&[], I32), &[1.]),
        ErrorKind::InvalidRank { rank: 0, .. }
    );
    rejects_structure!(
        csf_msg(&[5], &[0], (&[], I32), (&[&[1, 3]], I32), &[1., 2.]),
        ErrorKind::InvalidRank {
            layout: "CSF",
            rank: 1,
            ..
        }
    );
    // Rank 1 with the buffers a rank-2 tree would have.
    rejects_structure!(
        csf_msg(
            &[5],
            &[0, 1],
            (&[&[0, 1]], I32),
            (&[&[0], &[1]], I32),
            &[1.]
        ),
        ErrorKind::InvalidRank { rank: 1, .. }
    );
}

/// GH-50304: negative dimension sizes and a negative nnz.
#[test]
fn gh_50304_negative_dimension_sizes_and_nnz() {
    for shape in [vec![-1, 3], vec![2, -3], vec![i64::MIN, 3]] {
        let (mut d, body) = crafted_dense();
        d.shape = shape.clone();
        let neg = *shape.iter().find(|&&v| v < 0).unwrap();
        rejects_structure!(
            dense_msg(&d, &body),
            ErrorKind::Negative { value, .. } if *value == neg
        );
        for (s, body) in [crafted_coo(), crafted_csr()] {
            let mut s = s;
            s.shape = shape.clone();
            rejects_structure!(
                sparse_msg(&s, &body),
                ErrorKind::Negative { value, .. } if *value == neg
            );
        }
        let (mut s, body) = crafted_csf();
        s.shape = vec![shape[0], shape[1], 4];
        rejects_structure!(
            sparse_msg(&s, &body),
            ErrorKind::Negative { value, .. } if *value == neg
        );
    }
    for nnz in [-1, -4, i64::MIN] {
        for (s, body) in [crafted_coo(), crafted_csr(), crafted_csf()] {
            let mut s = s;
            s.nnz = nnz;
            let e = rejects_structure!(
                sparse_msg(&s, &body),
                ErrorKind::Negative { value, .. } if *value == nnz
            );
            assert!(e.to_string().contains("non_zero_length"), "{e}");
        }
    }
}

/// GH-50816: out-of-range and negative indices (every layout).
#[test]
fn gh_50816_out_of_range_and_negative_indices() {
    // COO.
    let t = rejects_contents!(
        coo(&[0, 1, 1, 4, 2, 3], I32),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CooIndices,
            position: 3,
            value: 4,
            dim: 1,
            bound: 4
        }
    );
    assert_eq!(t.get(&[2, 3]).unwrap(), Scalar::Float32(3.));
    rejects_contents!(
        coo(&[0, 1, 3, 2, 2, 3], I32),
        ErrorKind::IndexOutOfBounds {
            position: 2,
            value: 3,
            dim: 0,
            bound: 3,
            ..
        }
    );
    rejects_contents!(
        coo(&[0, 1, -1, 2, 2, 3], I32),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CooIndices,
            position: 2,
            value: -1,
            dim: 0,
            ..
        }
    );
    rejects_contents!(
        coo(&[0, 1, 1, 2, 2, i64::MIN], I64),
        ErrorKind::IndexOutOfBounds {
            position: 5,
            value: i64::MIN,
            ..
        }
    );
    // CSR and CSC.
    rejects_contents!(
        csr(&CSR_PTR, &[0, 4, 1, 3], I32),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsxIndices,
            position: 1,
            value: 4,
            dim: 1,
            bound: 4
        }
    );
    rejects_contents!(
        csr(&CSR_PTR, &[0, 2, -1, 3], I16),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsxIndices,
            position: 2,
            value: -1,
            ..
        }
    );
    rejects_contents!(
        csx_msg([4, 3], 1, (&CSR_PTR, I32), (&[0, 2, 1, 4], I32), &VALUES4),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsxIndices,
            position: 3,
            value: 4,
            dim: 0,
            bound: 4
        }
    );
    // CSF: root, middle and leaf levels.
    rejects_contents!(
        csf_with(2, &[0, 2], I32),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsfIndices(0),
            position: 1,
            value: 2,
            dim: 0,
            bound: 2
        }
    );
    rejects_contents!(
        csf_with(3, &[0, 2, -1], I32),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsfIndices(1),
            position: 2,
            value: -1,
            dim: 1,
            ..
        }
    );
    let t = rejects_contents!(
        csf_with(4, &[1, 3, 0, 4], I32),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsfIndices(2),
            position: 3,
            value: 4,
            dim: 2,
            bound: 4
        }
    );
    assert_eq!(t.get(&[0, 2, 3]).unwrap(), Scalar::Float32(2.));
}

/// GH-50816: indptr arrays that decrease, do not start at 0 or do not end at nnz.
#[test]
fn gh_50816_bad_indptr() {
    // Decreasing.
    let t = rejects_contents!(
        csr(&[0, 2, 1, 4], &CSR_IDX, I32),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsxIndptr,
            position: 2,
            value: 1,
            ..
        }
    );
    assert!(matches!(
        t.get(&[1, 0]).unwrap_err().kind(),
        ErrorKind::InvalidIndptr { .. }
    ));
    rejects_contents!(
        csf_with(1, &[0, 2, 1, 4], I32),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsfIndptr(1),
            position: 2,
            value: 1,
            ..
        }
    );
    // Not starting at 0.
    for first in [1, -1, 4] {
        rejects_contents!(
            csr(&[first, 2, 2, 4], &CSR_IDX, I64),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsxIndptr,
                position: 0,
                value,
                ..
            } if *value == first
        );
    }
    rejects_contents!(
        csf_with(0, &[1, 2, 3], I32),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsfIndptr(0),
            position: 0,
            value: 1,
            ..
        }
    );
    // Not ending at nnz (before it, or past it).
    for last in [3, 5, i64::MAX] {
        rejects_contents!(
            csr(&[0, 2, 2, last], &CSR_IDX, I64),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsxIndptr,
                position: 3,
                value,
                ..
            } if *value == last
        );
    }
    rejects_contents!(
        csf_with(1, &[0, 1, 2, 3], I32),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsfIndptr(1),
            position: 3,
            value: 3,
            ..
        }
    );
    rejects_contents!(
        csf_with(0, &[0, 2, 2], I32),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsfIndptr(0),
            position: 2,
            value: 2,
            ..
        }
    );
}

/// GH-50816: a CSF axisOrder that is not a permutation of 0..ndim.
#[test]
fn gh_50816_axis_order_not_a_permutation() {
    for order in [
        vec![0, 0, 1],
        vec![2, 1, 1],
        vec![0, 1, 3],
        vec![-1, 0, 1],
        vec![0, 1, i32::MAX],
        vec![i32::MIN, 1, 2],
    ] {
        let (mut s, body) = crafted_csf();
        if let Index::Csf { order: o, .. } = &mut s.index {
            *o = order.clone();
        }
        let expected: Vec<i64> = order.iter().map(|&v| v as i64).collect();
        rejects_structure!(
            sparse_msg(&s, &body),
            ErrorKind::NotAPermutation(v) if *v == expected
        );
    }
}

/// GH-50816: a values buffer shorter than nnz values.
#[test]
fn gh_50816_values_shorter_than_nnz() {
    for (s, body) in [crafted_coo(), crafted_csr(), crafted_csf()] {
        let w = if matches!(s.vt, Vt::Float(2)) { 8 } else { 4 };
        for short in [s.nnz - 1, 1, 0] {
            let mut s = s.clone();
            s.data.1 = short * w;
            rejects_structure!(
                sparse_msg(&s, &body),
                ErrorKind::BufferTooShort {
                    buffer: BufferId::Values,
                    needed,
                    length,
                } if *needed == (s.nnz * w) as u64 && *length == (short * w) as u64
            );
        }
    }
}

/// A CSX whose indptr type is too narrow to count its entries: int8 cannot count past 127,
/// so 200 rows of one entry each cannot be described (Arrow C++ checks the type against the
/// lengths; we check the values, which necessarily break the indptr rules).
#[test]
fn csx_indptr_type_too_narrow_for_its_entries() {
    let indices = vec![0i64; 200];
    let values = vec![1f32; 200];
    // Wrapping (what truncating each count to 8 bits writes): decreases at 128.
    let wrapped: Vec<i64> = (0..=200).map(|r| r as i8 as i64).collect();
    let t = rejects_contents!(
        csx_msg([200, 1], 0, (&wrapped, I8), (&indices, I8), &values),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsxIndptr,
            position: 128,
            value: -128,
            ..
        }
    );
    assert_eq!(t.get(&[5, 0]).unwrap(), Scalar::Float32(1.));
    assert!(t.get(&[150, 0]).is_err());
    // Saturating at 127: ends short of nnz.
    let saturated: Vec<i64> = (0..=200).map(|r: i64| r.min(127)).collect();
    let t = rejects_contents!(
        csx_msg([1, 200], 1, (&saturated, I8), (&indices, I16), &values),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsxIndptr,
            position: 200,
            value: 127,
            ..
        }
    );
    assert!(t.iter().is_err());
    // uint8 counts to 255: the same matrix is valid with it.
    let counts: Vec<i64> = (0..=200).collect();
    let d = dec(
        &csx_msg([200, 1], 0, (&counts, (8, false)), (&indices, I8), &values),
        ReadOptions::strict(),
    )
    .unwrap();
    assert_eq!(d.message.as_sparse().unwrap().iter().unwrap().count(), 200);
}

/// uint64 index values above the shape (or above i64::MAX) are rejected; Arrow C++'s reader
/// aborts the process on a uint64 index type.
#[test]
fn uint64_indices_exceeding_the_shape() {
    let huge = [
        u64::MAX as i64,
        (1u64 << 63) as i64,
        ((1u64 << 63) + 1) as i64,
    ];
    for v in huge {
        rejects_contents!(
            csr(&CSR_PTR, &[0, 2, v, 3], U64),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CsxIndices,
                position: 2,
                value: i64::MAX,
                dim: 1,
                bound: 4
            }
        );
        rejects_contents!(
            coo(&[0, 1, 1, v, 2, 3], U64),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CooIndices,
                position: 3,
                value: i64::MAX,
                ..
            }
        );
        rejects_contents!(
            csf_with(4, &[1, 3, v, 2], U64),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CsfIndices(2),
                position: 2,
                value: i64::MAX,
                ..
            }
        );
        // As indptr values.
        rejects_contents!(
            csr(&[0, 2, 2, v], &CSR_IDX, U64),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsxIndptr,
                position: 3,
                value: i64::MAX,
                ..
            }
        );
        let t = rejects_contents!(
            csr(&[0, v, 2, 4], &CSR_IDX, U64),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsxIndptr,
                position: 2,
                value: 2,
                ..
            }
        );
        assert!(t.get(&[0, 0]).is_err());
        assert_eq!(t.get(&[2, 3]).unwrap(), Scalar::Float32(4.));
    }
    // Just past the shape.
    rejects_contents!(
        csr(&CSR_PTR, &[0, 2, 4, 3], U64),
        ErrorKind::IndexOutOfBounds {
            position: 2,
            value: 4,
            ..
        }
    );
}

/// uint64 index arrays whose values are valid are legal and decode (every layout).
#[test]
fn uint64_indices_with_valid_values_decode() {
    let expected = SparseTensor::csr(
        [3, 4],
        vec![0u64, 2, 2, 4],
        vec![0u64, 2, 1, 3],
        f32s(&VALUES4),
    )
    .unwrap();
    let bytes = csr(&CSR_PTR, &CSR_IDX, U64);
    let d = dec(&bytes, ReadOptions::strict()).unwrap();
    let t = d.message.as_sparse().unwrap();
    assert!(t.is_validated());
    assert!(t.content_eq(&expected), "{t:?}");
    assert_eq!(t.get(&[2, 3]).unwrap(), Scalar::Float32(4.));
    assert_eq!(t.get(&[1, 3]).unwrap(), Scalar::Float32(0.));
    assert_eq!(t.iter().unwrap().count(), 4);
    assert!(t
        .to_dense()
        .unwrap()
        .content_eq(&expected.to_dense().unwrap()));
    for d in [
        common::iter_first(&bytes, ReadOptions::strict()).unwrap(),
        common::read(&bytes, ReadOptions::strict()).unwrap(),
    ] {
        assert!(d.message.as_sparse().unwrap().content_eq(&expected));
    }
    // Our writer refuses uint64 unless told that Arrow C++ need not read the result.
    let e = encode(&t.clone().into(), &WriteOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NotArrowCompatible(_)), "{e}");
    let lenient = WriteOptions::default().with_arrow_compatible(false);
    let again = encode(&t.clone().into(), &lenient).unwrap().to_vec();
    let d = dec(&again, ReadOptions::strict()).unwrap();
    assert!(d.message.as_sparse().unwrap().content_eq(&expected));
    // CSC, COO and CSF with uint64 indices.
    let d = dec(
        &csx_msg([4, 3], 1, (&CSR_PTR, U64), (&CSR_IDX, U64), &VALUES4),
        ReadOptions::strict(),
    )
    .unwrap();
    assert_eq!(
        d.message.as_sparse().unwrap().get(&[3, 2]).unwrap(),
        Scalar::Float32(4.)
    );
    let d = dec(&coo(&[0, 1, 1, 2, 2, 3], U64), ReadOptions::strict()).unwrap();
    assert_eq!(
        d.message.as_sparse().unwrap().get(&[1, 2]).unwrap(),
        Scalar::Float32(2.)
    );
    let d = dec(&csf_with(0, CSF_ARRAYS[0], U64), ReadOptions::strict()).unwrap();
    let t = d.message.as_sparse().unwrap();
    assert_eq!(t.get(&[1, 1, 2]).unwrap(), Scalar::Float32(4.));
    assert_eq!(t.to_dense().unwrap().len(), 24);
}

// =======================================================================================
// Framing
// =======================================================================================

fn valid_message() -> Vec<u8> {
    let (s, body) = crafted_csr();
    sparse_msg(&s, &body)
}

fn metadata_len(bytes: &[u8]) -> usize {
    i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize
}

#[test]
fn truncated_prefix() {
    for bytes in [
        &[0xFF][..],
        &[0xFF; 3],
        &[0xFF; 4],
        &[0xFF, 0xFF, 0xFF, 0xFF, 0x10],
        &[0xFF, 0xFF, 0xFF, 0xFF, 0x10, 0, 0],
        // Legacy framing (no continuation marker).
        &[0x10],
        &[0x10, 0, 0],
    ] {
        rejects_structure!(bytes, ErrorKind::Truncated { part: "prefix", .. });
    }
    // Empty input and end-of-stream markers are not errors.
    let none = decode_message(&bytes::Bytes::new(), &ReadOptions::strict()).unwrap();
    assert!(none.is_none());
    for eos in [&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0][..], &[0, 0, 0, 0]] {
        let none = decode_message(&bytes::Bytes::copy_from_slice(eos), &ReadOptions::strict());
        assert!(none.unwrap().is_none());
        assert!(MessageReader::new(eos, &ReadOptions::strict())
            .next()
            .is_none());
    }
}

#[test]
fn truncated_metadata() {
    let bytes = valid_message();
    let meta = metadata_len(&bytes);
    for cut in [8, 9, 8 + meta / 2, 8 + meta - 1] {
        rejects_structure!(
            bytes[..cut],
            ErrorKind::Truncated {
                part: "metadata",
                available,
                ..
            } if *available < (8 + meta) as u64
        );
    }
    // Legacy framing.
    let (s, body) = crafted_csr();
    let legacy = craft::frame(&craft::sparse(&s), &body, false, 8);
    dec(&legacy, ReadOptions::strict()).unwrap();
    for cut in [4, 5, 40] {
        rejects_structure!(
            legacy[..cut],
            ErrorKind::Truncated {
                part: "metadata",
                ..
            }
        );
    }
}

#[test]
fn truncated_body() {
    let bytes = valid_message();
    let header = 8 + metadata_len(&bytes);
    let body_len = (bytes.len() - header) as u64;
    for cut in [header, header + 1, header + 40, bytes.len() - 1] {
        rejects_structure!(
            bytes[..cut],
            ErrorKind::Truncated {
                part: "body",
                needed,
                available,
            } if *needed == body_len && *available == (cut - header) as u64
        );
    }
    // A truncated second message in a stream: the first one reads, the error names the
    // offset of the second.
    let mut stream = bytes.clone();
    stream.extend_from_slice(&bytes[..bytes.len() - 8]);
    let from_reader: Vec<_> = MessageReader::new(&stream[..], &ReadOptions::strict()).collect();
    let from_iter: Vec<_> = MessageIter::new(
        arrow_buffer::Buffer::from_slice_ref(&stream),
        &ReadOptions::strict(),
    )
    .collect();
    for results in [from_reader, from_iter] {
        assert_eq!(results.len(), 2);
        assert!(results[0].is_ok());
        let e = results[1].as_ref().unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Truncated { part: "body", .. }),
            "{e}"
        );
        assert_eq!(e.message_offset(), Some(bytes.len() as u64));
    }
}

#[test]
fn negative_metadata_length() {
    let bytes = valid_message();
    for len in [-1i32, -8, i32::MIN] {
        let mut b = bytes.clone();
        b[4..8].copy_from_slice(&len.to_le_bytes());
        rejects_structure!(b, ErrorKind::NegativeMetadataLength(v) if *v == len);
    }
    // Legacy framing: the length comes first (-1 would be the continuation marker).
    for len in [-2i32, -1000, i32::MIN] {
        let mut b = len.to_le_bytes().to_vec();
        b.extend_from_slice(&bytes[8..]);
        rejects_structure!(b, ErrorKind::NegativeMetadataLength(v) if *v == len);
    }
}

#[test]
fn oversized_metadata_length() {
    let bytes = valid_message();
    let mut b = bytes.clone();
    b[4..8].copy_from_slice(&i32::MAX.to_le_bytes());
    rejects_structure!(
        b,
        ErrorKind::LimitExceeded {
            what: "metadata length",
            value: 0x7FFF_FFFF,
            limit: 0x400_0000
        }
    );
    let mut legacy = i32::MAX.to_le_bytes().to_vec();
    legacy.extend_from_slice(&bytes[8..]);
    rejects_structure!(
        legacy,
        ErrorKind::LimitExceeded {
            what: "metadata length",
            ..
        }
    );
    // Without the limit, the input ends first.
    let opts =
        ReadOptions::default().with_limits(Limits::default().with_max_metadata_len(usize::MAX));
    rejects_structure!(
        opts: opts,
        b,
        ErrorKind::Truncated {
            part: "metadata",
            needed,
            ..
        } if *needed >= i32::MAX as u64
    );
    // A metadata length reaching past the real metadata into the body: the flatbuffer then
    // carries trailing bytes, which is harmless, but the body is then short.
    let mut b = bytes.clone();
    let meta = metadata_len(&bytes);
    b[4..8].copy_from_slice(&((meta + 16) as i32).to_le_bytes());
    rejects_structure!(b, ErrorKind::Truncated { part: "body", .. });
}

#[test]
fn negative_body_length() {
    for len in [-1, -8, i64::MIN] {
        let (mut d, body) = crafted_dense();
        d.body_len = len;
        rejects_structure!(dense_msg(&d, &body), ErrorKind::NegativeBodyLength(v) if *v == len);
        let (mut s, body) = crafted_csf();
        s.body_len = len;
        rejects_structure!(sparse_msg(&s, &body), ErrorKind::NegativeBodyLength(v) if *v == len);
    }
}

#[test]
fn oversized_body_length() {
    let (mut d, body) = crafted_dense();
    d.body_len = i64::MAX;
    rejects_structure!(
        dense_msg(&d, &body),
        ErrorKind::LimitExceeded {
            what: "bodyLength",
            value: 0x7FFF_FFFF_FFFF_FFFF,
            limit: 0x4_0000_0000
        }
    );
    // Without the limit, the input ends first.
    let opts = ReadOptions::default().with_limits(Limits::default().with_max_body_len(u64::MAX));
    rejects_structure!(
        opts: opts,
        dense_msg(&d, &body),
        ErrorKind::Truncated {
            part: "body",
            needed: 0x7FFF_FFFF_FFFF_FFFF,
            available: 24
        }
    );
    // A declared body a little longer than the bytes present.
    let (mut s, body) = crafted_coo();
    s.body_len = body.len() as i64 + 8;
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::Truncated {
            part: "body",
            needed,
            available
        } if *needed == body.len() as u64 + 8 && *available == body.len() as u64
    );
    // A limit below a real body.
    let (d, body) = crafted_dense();
    let opts = ReadOptions::default().with_limits(Limits::default().with_max_body_len(16));
    rejects_structure!(
        opts: opts,
        dense_msg(&d, &body),
        ErrorKind::LimitExceeded {
            what: "bodyLength",
            value: 24,
            limit: 16
        }
    );
}

/// A deterministic xorshift generator for garbage bytes.
fn garbage(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The offset within `meta` of the 4-byte length prefix of the vector or string whose
/// data is `data`.
fn length_prefix_of(meta: &[u8], data: &[u8]) -> usize {
    data.as_ptr() as usize - meta.as_ptr() as usize - 4
}

#[test]
fn metadata_fails_flatbuffer_verification() {
    let expect = |meta: &[u8]| {
        // Unpadded: the metadata is exactly these bytes.
        let bytes = craft::frame(meta, &[0; 64], true, 1);
        rejects_structure!(bytes, ErrorKind::InvalidFlatbuffer { .. });
    };
    // Random garbage, all zeros, all ones.
    for seed in 0..200u64 {
        expect(&garbage(seed, 4 + (seed as usize * 7) % 300));
    }
    expect(&[0xFF; 64]);
    expect(&[0; 3]);
    let (mut d, _) = crafted_dense();
    d.names = vec![Some("rows"), Some("cols")];
    let meta = craft::dense(&d);
    dec(
        &craft::frame(&meta, &crafted_dense().1, true, 8),
        ReadOptions::strict(),
    )
    .unwrap();
    // All zeros do verify: a Message table whose empty vtable leaves every field at its
    // default, version V1 among them.
    rejects_structure!(
        craft::frame(&[0; 64], &[], true, 8),
        ErrorKind::UnsupportedVersion(0)
    );
    // The root table offset points outside the metadata.
    for root in [
        meta.len() as u32,
        meta.len() as u32 + 64,
        u32::MAX,
        u32::MAX - 3,
    ] {
        let mut m = meta.clone();
        m[..4].copy_from_slice(&root.to_le_bytes());
        expect(&m);
    }
    // The root table's vtable offset points outside.
    let root = u32::from_le_bytes(meta[..4].try_into().unwrap()) as usize;
    for soffset in [
        i32::MAX,
        i32::MIN,
        -(meta.len() as i32) * 2,
        meta.len() as i32 * 2,
    ] {
        let mut m = meta.clone();
        m[root..root + 4].copy_from_slice(&soffset.to_le_bytes());
        expect(&m);
    }
    // Vector and string lengths reaching outside.
    let msg = flatbuffers::root::<fb::Message>(&meta).unwrap();
    let t = msg.header_as_tensor().unwrap();
    let shape_at = length_prefix_of(&meta, t.shape().bytes());
    let strides_at = length_prefix_of(&meta, t.strides().unwrap().bytes());
    let name = t.shape().get(1).name().unwrap();
    let name_at = length_prefix_of(&meta, name.as_bytes());
    for at in [shape_at, strides_at, name_at] {
        for len in [u32::MAX, 0x7FFF_FFFF, meta.len() as u32] {
            let mut m = meta.clone();
            m[at..at + 4].copy_from_slice(&len.to_le_bytes());
            expect(&m);
        }
    }
    // The metadata cut short (the prefix declares the shorter length): the tables built
    // first, at the end of the flatbuffer, are missing.
    for keep in [4, meta.len() / 2, meta.len() - 4] {
        expect(&meta[..keep]);
    }
}

#[test]
fn unknown_or_future_metadata_version() {
    // V1 = 0, V2 = 1, V3 = 2; V4 = 3 and V5 = 4 are the supported ones.
    for v in [0i16, 1, 2, 5, 6, 100, i16::MAX, -1, i16::MIN] {
        let (mut d, body) = crafted_dense();
        d.version = v;
        rejects_structure!(dense_msg(&d, &body), ErrorKind::UnsupportedVersion(x) if *x == v);
        for (s, body) in [crafted_coo(), crafted_csr(), crafted_csf()] {
            let mut s = s;
            s.version = v;
            rejects_structure!(sparse_msg(&s, &body), ErrorKind::UnsupportedVersion(x) if *x == v);
        }
    }
    for v in [3, 4] {
        let (mut d, body) = crafted_dense();
        d.version = v;
        dec(&dense_msg(&d, &body), ReadOptions::strict()).unwrap();
    }
}

#[test]
fn record_batch_or_schema_where_a_tensor_is_expected() {
    for (h, name) in [
        (fb::MessageHeader::RecordBatch, "RecordBatch"),
        (fb::MessageHeader::Schema, "Schema"),
        (fb::MessageHeader::DictionaryBatch, "DictionaryBatch"),
        (fb::MessageHeader::NONE, "a message without header"),
    ] {
        let bytes = craft::frame(&craft::other_header(h), &[], true, 8);
        rejects_structure!(bytes, ErrorKind::NotATensor(n) if *n == name);
    }
    // Messages built with arrow-ipc's own generated code: a schema and a record batch.
    for (h, name) in [
        (arrow_ipc::MessageHeader::Schema, "Schema"),
        (arrow_ipc::MessageHeader::RecordBatch, "RecordBatch"),
    ] {
        rejects_structure!(arrow_ipc_message(h), ErrorKind::NotATensor(n) if *n == name);
    }
}

/// A Schema (one int32 field) or a RecordBatch (two int32 values) message built with
/// arrow-ipc's generated flatbuffer code.
fn arrow_ipc_message(header: arrow_ipc::MessageHeader) -> Vec<u8> {
    use arrow_ipc as ai;
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let (h, body): (_, &[u8]) = if header == ai::MessageHeader::RecordBatch {
        let nodes = fbb.create_vector(&[ai::FieldNode::new(2, 0)]);
        let buffers = fbb.create_vector(&[ai::Buffer::new(0, 0), ai::Buffer::new(0, 8)]);
        let mut b = ai::RecordBatchBuilder::new(&mut fbb);
        b.add_length(2);
        b.add_nodes(nodes);
        b.add_buffers(buffers);
        (b.finish().as_union_value(), &[1, 0, 0, 0, 2, 0, 0, 0])
    } else {
        let name = fbb.create_string("a");
        let mut i = ai::IntBuilder::new(&mut fbb);
        i.add_bitWidth(32);
        i.add_is_signed(true);
        let int = i.finish();
        let mut f = ai::FieldBuilder::new(&mut fbb);
        f.add_name(name);
        f.add_type_type(ai::Type::Int);
        f.add_type_(int.as_union_value());
        let field = f.finish();
        let fields = fbb.create_vector(&[field]);
        let mut s = ai::SchemaBuilder::new(&mut fbb);
        s.add_fields(fields);
        (s.finish().as_union_value(), &[])
    };
    let mut m = ai::MessageBuilder::new(&mut fbb);
    m.add_version(ai::MetadataVersion::V5);
    m.add_header_type(header);
    m.add_header(h);
    m.add_bodyLength(body.len() as i64);
    let m = m.finish();
    fbb.finish(m, None);
    craft::frame(fbb.finished_data(), body, true, 8)
}

#[test]
fn unknown_union_discriminants() {
    // MessageHeader.
    for v in [6u8, 7, 100, 255] {
        let bytes = craft::frame(&craft::other_header(fb::MessageHeader(v)), &[], true, 8);
        rejects_structure!(
            bytes,
            ErrorKind::UnknownUnion {
                union: "MessageHeader",
                value
            } if *value == v
        );
    }
    // Type (dense and sparse).
    for v in [27u8, 99, 255] {
        let (mut d, body) = crafted_dense();
        d.vt = Vt::Raw(v);
        rejects_structure!(
            dense_msg(&d, &body),
            ErrorKind::UnknownUnion { union: "Type", value } if *value == v
        );
        let (mut s, body) = crafted_coo();
        s.vt = Vt::Raw(v);
        rejects_structure!(
            sparse_msg(&s, &body),
            ErrorKind::UnknownUnion { union: "Type", value } if *value == v
        );
    }
    // SparseTensorIndex.
    for v in [4u8, 9, 255] {
        let (mut s, body) = crafted_coo();
        s.index = Index::Unknown(v);
        rejects_structure!(
            sparse_msg(&s, &body),
            ErrorKind::UnknownUnion {
                union: "SparseTensorIndex",
                value
            } if *value == v
        );
    }
    // The SparseMatrixCompressedAxis enum.
    for v in [2i16, 3, -1, i16::MAX] {
        let (mut s, body) = crafted_csr();
        if let Index::Csx { axis, .. } = &mut s.index {
            *axis = v;
        }
        rejects_structure!(
            sparse_msg(&s, &body),
            ErrorKind::UnknownUnion {
                union: "SparseMatrixCompressedAxis",
                ..
            }
        );
    }
}

#[test]
fn non_integer_index_types() {
    for bits in [12, 128, 0, -8, 1, 7, 256] {
        for signed in [true, false] {
            let t = (bits, signed);
            let mut cases: Vec<(Vec<u8>, &str)> = Vec::new();
            let (mut s, body) = crafted_coo();
            if let Index::Coo { ty, .. } = &mut s.index {
                *ty = t;
            }
            cases.push((sparse_msg(&s, &body), "COO indicesType"));
            for which in 0..2 {
                let (mut s, body) = crafted_csr();
                if let Index::Csx { ptr_ty, idx_ty, .. } = &mut s.index {
                    *[ptr_ty, idx_ty][which] = t;
                }
                cases.push((
                    sparse_msg(&s, &body),
                    ["CSX indptrType", "CSX indicesType"][which],
                ));
                let (mut s, body) = crafted_csf();
                if let Index::Csf { ptr_ty, idx_ty, .. } = &mut s.index {
                    *[ptr_ty, idx_ty][which] = t;
                }
                cases.push((
                    sparse_msg(&s, &body),
                    ["CSF indptrType", "CSF indicesType"][which],
                ));
            }
            for (bytes, name) in cases {
                rejects_structure!(
                    bytes,
                    ErrorKind::UnsupportedIndexType { role, .. } if *role == name
                );
            }
        }
    }
}

#[test]
fn value_types_that_are_not_fixed_width_numbers() {
    let mut types: Vec<Vt> = [
        fb::Type::Null,
        fb::Type::Binary,
        fb::Type::Utf8,
        fb::Type::Bool,
        fb::Type::Decimal,
        fb::Type::Date,
        fb::Type::Time,
        fb::Type::Timestamp,
        fb::Type::Interval,
        fb::Type::List,
        fb::Type::Struct_,
        fb::Type::Union,
        fb::Type::FixedSizeBinary,
        fb::Type::FixedSizeList,
        fb::Type::Map,
        fb::Type::Duration,
        fb::Type::LargeBinary,
        fb::Type::LargeUtf8,
        fb::Type::LargeList,
        fb::Type::RunEndEncoded,
        fb::Type::BinaryView,
        fb::Type::Utf8View,
        fb::Type::ListView,
        fb::Type::LargeListView,
    ]
    .into_iter()
    .map(Vt::Other)
    .collect();
    types.extend([
        Vt::Utf8,
        Vt::Bool,
        Vt::Decimal,
        Vt::Int(12, true),
        Vt::Int(128, false),
        Vt::Int(0, true),
        Vt::Int(-32, true),
        Vt::Float(3),
        Vt::Float(-1),
    ]);
    for vt in types {
        let (mut d, body) = crafted_dense();
        d.vt = vt;
        rejects_structure!(dense_msg(&d, &body), ErrorKind::UnsupportedValueType(_));
        for (s, body) in [crafted_coo(), crafted_csr(), crafted_csf()] {
            let mut s = s;
            s.vt = vt;
            rejects_structure!(sparse_msg(&s, &body), ErrorKind::UnsupportedValueType(_));
        }
    }
}

// =======================================================================================
// Tensor.data
// =======================================================================================

/// The crafted int32 [2, 3] tensor with its data region and body replaced.
fn dense_with_data(data: (i64, i64), body: &[u8]) -> Vec<u8> {
    let (mut d, _) = crafted_dense();
    d.data = data;
    d.body_len = body.len() as i64;
    dense_msg(&d, body)
}

/// Strict reading rejects the message with the pattern from every reader; permissive
/// reading takes the values from the start of the body, as Arrow C++ does.
macro_rules! rejects_data {
    ($bytes:expr, $pat:pat $(if $guard:expr)? $(,)?) => {{
        let bytes: Vec<u8> = $bytes;
        for (api, e) in common::all_errors(&bytes, ReadOptions::strict()) {
            assert!(
                matches!(e, $pat $(if $guard)?),
                "{api}: expected {}, got {e:?} ({e})",
                stringify!($pat)
            );
        }
        let d = dec(&bytes, ReadOptions::permissive()).expect("permissive falls back to the body");
        let t = d.message.as_tensor().expect("a dense tensor").clone();
        assert_eq!(t.to_vec::<i32>().unwrap(), [1, 2, 3, 4, 5, 6]);
    }};
}

#[test]
fn tensor_data_outside_the_body() {
    let body = craft::ints(&[1, 2, 3, 4, 5, 6], 4);
    rejects_data!(
        dense_with_data((24, 24), &body),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::TensorData,
            offset: 24,
            length: 24,
            body_length: 24
        }
    );
    rejects_data!(
        dense_with_data((i64::MAX, 24), &body),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::TensorData,
            offset: i64::MAX,
            ..
        }
    );
}

#[test]
fn tensor_data_negative_offset() {
    let body = craft::ints(&[1, 2, 3, 4, 5, 6], 4);
    rejects_data!(
        dense_with_data((-8, 24), &body),
        ErrorKind::Negative { ref what, value: -8 } if what.contains("tensor data")
    );
}

#[test]
fn tensor_data_negative_length() {
    let body = craft::ints(&[1, 2, 3, 4, 5, 6], 4);
    rejects_data!(
        dense_with_data((0, -1), &body),
        ErrorKind::Negative { ref what, value: -1 } if what.contains("tensor data")
    );
}

#[test]
fn tensor_data_zero_length_for_a_non_empty_tensor() {
    let body = craft::ints(&[1, 2, 3, 4, 5, 6], 4);
    rejects_data!(
        dense_with_data((0, 0), &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::TensorData,
            needed: 24,
            length: 0
        }
    );
    // Shorter than shape x strides, though inside the body.
    rejects_data!(
        dense_with_data((0, 20), &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::TensorData,
            needed: 24,
            length: 20
        }
    );
}

#[test]
fn tensor_data_length_beyond_the_body() {
    let body = craft::ints(&[1, 2, 3, 4, 5, 6], 4);
    rejects_data!(
        dense_with_data((0, 32), &body),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::TensorData,
            offset: 0,
            length: 32,
            body_length: 24
        }
    );
    rejects_data!(
        dense_with_data((8, i64::MAX), &body),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::TensorData,
            length: i64::MAX,
            ..
        }
    );
}

#[test]
fn tensor_data_misaligned_offset() {
    // The six int32 values start at body offset 2.
    let mut body = vec![0xEE, 0xEE];
    body.extend(craft::ints(&[1, 2, 3, 4, 5, 6], 4));
    body.resize(32, 0xEE);
    let bytes = dense_with_data((2, 24), &body);
    let strict_no_copy = ReadOptions::strict().with_misaligned(Misaligned::Error);
    for (api, e) in common::all_errors(&bytes, strict_no_copy) {
        assert!(
            matches!(
                e,
                ErrorKind::Misaligned {
                    buffer: BufferId::TensorData,
                    offset: 2,
                    align: 4
                }
            ),
            "{api}: {e:?}"
        );
    }
    // Under the copy policy the values are copied to aligned memory, from where the field
    // points.
    for options in [ReadOptions::strict(), ReadOptions::permissive()] {
        let d = dec(&bytes, options).unwrap();
        let t = d.message.as_tensor().unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), [1, 2, 3, 4, 5, 6]);
        assert_eq!(t.data().as_ptr() as usize % 4, 0);
    }
}

#[test]
fn tensor_data_offset_is_honoured() {
    // Eight bytes of something else, then the values, then more: the tensor is the middle.
    let mut body = craft::ints(&[-7, -7], 4);
    body.extend(craft::ints(&[1, 2, 3, 4, 5, 6], 4));
    body.extend(craft::ints(&[-9, -9], 4));
    let bytes = dense_with_data((8, 24), &body);
    for options in [ReadOptions::strict(), ReadOptions::permissive()] {
        for (api, read) in [
            ("decode_message", common::dec as common::Reader),
            ("MessageIter", common::iter_first),
            ("MessageReader", common::read),
        ] {
            let d = read(&bytes, options).unwrap();
            let t = d.message.as_tensor().unwrap();
            assert_eq!(t.to_vec::<i32>().unwrap(), [1, 2, 3, 4, 5, 6], "{api}");
            assert_eq!(t.data().len(), 24, "{api}");
        }
    }
    // A data region longer than the tensor needs is accepted (strides decide what is read).
    let d = dec(&dense_with_data((8, 32), &body), ReadOptions::strict()).unwrap();
    let t = d.message.as_tensor().unwrap();
    assert_eq!(t.get(&[1, 2]).unwrap(), Scalar::Int32(6));
}

#[test]
fn tensor_data_of_an_empty_tensor_may_be_empty() {
    let (mut d, _) = crafted_dense();
    d.shape = vec![0, 3];
    d.strides = Some(vec![12, 4]);
    d.data = (0, 0);
    d.body_len = 0;
    let t = dec(&dense_msg(&d, &[]), ReadOptions::strict()).unwrap();
    assert_eq!(t.message.as_tensor().unwrap().len(), 0);
}

/// A SparseTensor table under a Tensor header: read as a Tensor table, its fields land on
/// the wrong slots (`strides` on `non_zero_length`, `data` on `sparseIndex_type`).
#[test]
fn tensor_header_over_a_sparse_tensor_table() {
    let (s, body) = crafted_coo();
    let meta = craft::sparse_with_header(&s, fb::MessageHeader::Tensor);
    let bytes = craft::frame(&meta, &body, true, 64);
    for (api, e) in common::all_errors(&bytes, ReadOptions::strict()) {
        assert!(
            matches!(
                e,
                ErrorKind::InvalidFlatbuffer { .. }
                    | ErrorKind::MissingField(_)
                    | ErrorKind::BufferOutOfBody { .. }
                    | ErrorKind::BufferTooShort { .. }
                    | ErrorKind::CountMismatch { .. }
            ),
            "{api}: {e:?}"
        );
    }
}

/// The fuzz finding `reencode-overflowing-strides`: a tensor without elements whose
/// implicit row-major strides do not fit in an int64 (they used to wrap around, and the
/// re-encoded message carried a negative stride).
#[test]
fn empty_tensor_with_overflowing_row_major_strides() {
    let (mut d, _) = crafted_dense();
    d.shape = vec![0, 3, 2_882_303_761_517_117_444];
    d.strides = None;
    d.data = (0, 0);
    d.body_len = 0;
    rejects_structure!(
        dense_msg(&d, &[]),
        ErrorKind::Overflow {
            quantity: arrow_tensor_ipc::Quantity::RowMajorStrides { .. }
        }
    );
    // The same shape built in memory is refused too.
    let e = arrow_tensor_ipc::Tensor::from_vec(
        vec![0, 3, 2_882_303_761_517_117_444],
        Vec::<i32>::new(),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow { .. }), "{e}");
    // The largest shape whose strides fit still decodes.
    d.shape = vec![0, 3, i64::MAX / 12];
    let t = dec(&dense_msg(&d, &[]), ReadOptions::strict()).unwrap();
    let t = t.message.as_tensor().unwrap();
    assert!(t.strides().iter().all(|&s| s <= i64::MAX as usize));
    // And re-encodes to a message our reader accepts.
    let again = common::enc(t.clone());
    dec(&again, ReadOptions::strict()).unwrap();
}

/// The fuzz input itself, as found.
#[test]
fn fuzz_finding_reencode_overflowing_strides() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/decode_one/finding-reencode-overflowing-strides"
    ))
    .unwrap();
    let e = dec(&bytes, ReadOptions::strict()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow { .. }), "{e}");
    let e = dec(&bytes, ReadOptions::permissive()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow { .. }), "{e}");
}

/// The fuzz finding `sparse-empty-overflowing-strides`: a sparse tensor without elements
/// whose row-major strides do not fit in an int64 decoded, and then could not be expanded
/// (or written) as a dense tensor. Refused like the dense case, in every mode.
#[test]
fn empty_sparse_tensor_with_overflowing_row_major_strides() {
    let huge = 3_602_879_701_896_396_803;
    rejects_structure!(
        coo_msg(&[0, huge], &[], I32, &[], true),
        ErrorKind::Overflow {
            quantity: arrow_tensor_ipc::Quantity::RowMajorStrides { .. }
        }
    );
    // Built in memory: refused too.
    let e =
        SparseTensor::coo([0, huge as usize], Vec::<i32>::new(), Vec::<f32>::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow { .. }), "{e}");
    // The largest such shape whose strides fit decodes, expands and re-encodes.
    let fits = i64::MAX / 4;
    let d = dec(
        &coo_msg(&[0, fits], &[], I32, &[], true),
        ReadOptions::strict(),
    )
    .unwrap();
    let t = d.message.as_sparse().unwrap();
    assert_eq!(t.to_dense().unwrap().len(), 0);
    dec(&common::enc(t.clone()), ReadOptions::strict()).unwrap();
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/decode_one/finding-sparse-empty-overflowing-strides"
    ))
    .unwrap();
    for options in [ReadOptions::strict(), ReadOptions::permissive()] {
        let e = dec(&bytes, options).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Overflow { .. }), "{e}");
    }
}

// =======================================================================================
// Buffers
// =======================================================================================

#[test]
fn buffers_out_of_the_body() {
    let out = |id: BufferId, s: &craft::Sparse, body: &[u8]| {
        rejects_structure!(
            sparse_msg(s, body),
            ErrorKind::BufferOutOfBody { buffer, body_length, .. }
                if *buffer == id && *body_length == body.len() as u64
        );
    };
    // Values (COO body: 40 bytes).
    for data in [
        (32, 16),
        (40, 1),
        (8, i64::MAX),
        (i64::MAX, 1),
        (i64::MAX, i64::MAX),
    ] {
        let (mut s, body) = crafted_coo();
        s.data = data;
        out(BufferId::Values, &s, &body);
    }
    // COO indices.
    for buf in [(24, 24), (0, 41), (i64::MAX - 8, 24)] {
        let (mut s, body) = crafted_coo();
        if let Index::Coo { buf: b, .. } = &mut s.index {
            *b = buf;
        }
        out(BufferId::CooIndices, &s, &body);
    }
    // CSX indptr and indices (body: 96 bytes).
    for r in [(90, 32), (96, 32), (0, i64::MAX), (i64::MAX, 32)] {
        let (mut s, body) = crafted_csr();
        if let Index::Csx { ptr, .. } = &mut s.index {
            *ptr = r;
        }
        out(BufferId::CsxIndptr, &s, &body);
        let (mut s, body) = crafted_csr();
        if let Index::Csx { idx, .. } = &mut s.index {
            *idx = r;
        }
        out(BufferId::CsxIndices, &s, &body);
    }
    // CSF levels (lengths are element counts).
    for k in 0..2 {
        let (mut s, body) = crafted_csf();
        let at = s.body_len - 4;
        if let Index::Csf { ptrs, .. } = &mut s.index {
            ptrs[k].0 = at;
        }
        out(BufferId::CsfIndptr(k), &s, &body);
    }
    for k in 0..3 {
        let (mut s, body) = crafted_csf();
        if let Index::Csf { idxs, .. } = &mut s.index {
            idxs[k].0 = i64::MAX - 2;
        }
        out(BufferId::CsfIndices(k), &s, &body);
    }
    // Negative offsets and lengths.
    let (mut s, body) = crafted_coo();
    s.data = (-8, 16);
    rejects_structure!(sparse_msg(&s, &body), ErrorKind::Negative { value: -8, .. });
    let (mut s, body) = crafted_coo();
    s.data = (24, -16);
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::Negative { value: -16, .. }
    );
    let (mut s, body) = crafted_csr();
    if let Index::Csx { ptr, .. } = &mut s.index {
        *ptr = (i64::MIN, 32);
    }
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::Negative {
            value: i64::MIN,
            ..
        }
    );
    let (mut s, body) = crafted_csf();
    if let Index::Csf { idxs, .. } = &mut s.index {
        idxs[1].0 = -1;
    }
    rejects_structure!(sparse_msg(&s, &body), ErrorKind::Negative { value: -1, .. });
    // A negative CSF length is not a count of anything: the tree does not add up.
    let (mut s, body) = crafted_csf();
    if let Index::Csf { idxs, .. } = &mut s.index {
        idxs[1].1 = -3;
    }
    rejects_structure!(sparse_msg(&s, &body), ErrorKind::CountMismatch { .. });
}

#[test]
fn overlapping_buffers() {
    // Strict rejects, permissive accepts (and reads what the bytes say).
    let overlap = |bytes: &[u8], first: BufferId, second: BufferId| {
        for (api, e) in common::all_errors(bytes, ReadOptions::strict()) {
            assert!(
                matches!(e, ErrorKind::Overlap { first: a, second: b } if a == first && b == second),
                "{api}: {e}"
            );
        }
        let d = dec(bytes, ReadOptions::permissive()).expect("permissive accepts overlaps");
        let t = d.message.as_sparse().unwrap().clone();
        for c in common::cells(t.shape(), 1 << 12) {
            let _ = t.get(&c);
        }
        let _ = t.iter();
        let _ = t.to_dense_with(
            &arrow_tensor_ipc::ConvertOptions::default()
                .with_max_dense_elements(common::DENSE_LIMIT),
        );
        t
    };
    // COO values over the last 8 bytes of the indices: they read as coordinates 1 and 2.
    let mut body = craft::ints(&[0, 1, 1, 2], 4);
    body.resize(16, 0);
    let (mut s, _) = crafted_coo();
    s.nnz = 2;
    s.index = Index::Coo {
        ty: I32,
        strides: Some(vec![8, 4]),
        buf: (0, 16),
        canonical: true,
    };
    s.data = (8, 8);
    s.body_len = 16;
    let t = overlap(
        &sparse_msg(&s, &body),
        BufferId::CooIndices,
        BufferId::Values,
    );
    assert_eq!(t.nnz(), 2);
    assert_eq!(
        t.values::<f32>().unwrap(),
        &[f32::from_bits(1), f32::from_bits(2)]
    );
    assert_eq!(t.get(&[1, 2]).unwrap(), Scalar::Float32(f32::from_bits(2)));
    // CSR indptr and indices over the same bytes: [0, 1, 2, 3] and [0, 1, 2].
    let body = craft::ints(&[0, 1, 2, 3, 0, 0], 4);
    let index = Index::Csx {
        axis: 0,
        ptr_ty: I32,
        ptr: (0, 16),
        idx_ty: I32,
        idx: (0, 12),
    };
    let bytes = common::sparse_of(&[3, 4], 3, index, (24, 12), &{
        let mut b = body.clone();
        b.extend(craft::f32s(&[1., 2., 3.]));
        b.resize(40, 0);
        b
    });
    // The values (3 x 4 bytes at 24) are apart; the two index buffers overlap.
    let t = overlap(&bytes, BufferId::CsxIndptr, BufferId::CsxIndices);
    assert_eq!(t.get(&[2, 2]).unwrap(), Scalar::Float32(3.));
    assert_eq!(t.iter().unwrap().count(), 3);
    // CSF: two levels of indices over the same bytes.
    let (mut s, body) = crafted_csf();
    if let Index::Csf { idxs, .. } = &mut s.index {
        idxs[0] = (idxs[1].0, 2);
    }
    overlap(
        &sparse_msg(&s, &body),
        BufferId::CsfIndices(0),
        BufferId::CsfIndices(1),
    );
    // Values over an index buffer.
    let (mut s, body) = crafted_csr();
    s.data = (32, 32);
    overlap(
        &sparse_msg(&s, &body),
        BufferId::CsxIndices,
        BufferId::Values,
    );
    // Empty buffers at the same offset do not overlap anything.
    let index = Index::Coo {
        ty: I32,
        strides: Some(vec![4, 4]),
        buf: (0, 0),
        canonical: true,
    };
    let bytes = common::sparse_of(&[3, 4], 0, index, (0, 0), &[]);
    let d = dec(&bytes, ReadOptions::strict()).unwrap();
    assert_eq!(d.message.as_sparse().unwrap().nnz(), 0);
}

#[test]
fn misaligned_buffers_with_misaligned_error() {
    let error = ReadOptions::default().with_misaligned(Misaligned::Error);
    let misaligned = |bytes: &[u8], id: BufferId, offset: u64, align: usize| {
        rejects_structure!(
            opts: error,
            bytes,
            ErrorKind::Misaligned { buffer, offset: o, align: a }
                if *buffer == id && *o == offset && *a == align
        );
        // The default copies the buffer: the message is valid.
        let d = dec(bytes, ReadOptions::default()).unwrap();
        let t = d.message.as_sparse().unwrap().clone();
        assert!(t.is_validated());
        assert_eq!(t.iter().unwrap().count(), t.nnz());
        t
    };
    // float64 values at body offset 4.
    let mut body = craft::ints(&[0, 2, 1, 3], 1);
    body.extend([1.5f64, -2.0].iter().flat_map(|v| v.to_le_bytes()));
    let index = Index::Coo {
        ty: (8, false),
        strides: Some(vec![2, 1]),
        buf: (0, 4),
        canonical: true,
    };
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(2),
        shape: vec![2, 4],
        names: vec![],
        nnz: 2,
        index,
        data: (4, 16),
        body_len: body.len() as i64,
        custom_metadata: false,
    };
    let t = misaligned(
        &craft::frame(&craft::sparse(&s), &body, true, 64),
        BufferId::Values,
        4,
        8,
    );
    let values = t.values::<f64>().unwrap();
    assert_eq!(values, &[1.5, -2.0]);
    assert_eq!(values.as_ptr() as usize % 8, 0, "the copy is aligned");
    // int32 COO indices at body offset 2.
    let mut body = vec![0u8; 2];
    body.extend(craft::ints(&[0, 2, 1, 3], 4));
    body.resize(24, 0);
    body.extend(craft::f32s(&[1., 2.]));
    let index = Index::Coo {
        ty: I32,
        strides: Some(vec![8, 4]),
        buf: (2, 16),
        canonical: true,
    };
    let bytes = common::sparse_of(&[2, 4], 2, index, (24, 8), &body);
    let t = misaligned(&bytes, BufferId::CooIndices, 2, 4);
    assert_eq!(t.get(&[1, 3]).unwrap(), Scalar::Float32(2.));
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!("a COO tensor")
    };
    let coords = c.indices().values::<i32>().unwrap();
    assert_eq!(coords, &[0, 2, 1, 3]);
    assert_eq!(coords.as_ptr() as usize % 4, 0, "the copy is aligned");
    // CSR: int64 indptr at 4 (int16 indices at 36, aligned).
    let mut body = vec![0u8; 4];
    body.extend(craft::ints(&CSR_PTR, 8));
    body.extend(craft::ints(&CSR_IDX, 2));
    body.resize(48, 0);
    body.extend(craft::f32s(&VALUES4));
    let index = |ptr_at: i64, idx_at: i64| Index::Csx {
        axis: 0,
        ptr_ty: I64,
        ptr: (ptr_at, 32),
        idx_ty: I16,
        idx: (idx_at, 8),
    };
    let bytes = common::sparse_of(&[3, 4], 4, index(4, 36), (48, 16), &body);
    misaligned(&bytes, BufferId::CsxIndptr, 4, 8);
    // indptr at 0 (aligned), indices at 33 (odd).
    let mut b = craft::ints(&CSR_PTR, 8);
    b.push(0);
    b.extend(craft::ints(&CSR_IDX, 2));
    b.resize(48, 0);
    b.extend(craft::f32s(&VALUES4));
    let bytes = common::sparse_of(&[3, 4], 4, index(0, 33), (48, 16), &b);
    misaligned(&bytes, BufferId::CsxIndices, 33, 2);
    // CSF: int32 indices of level 1 at an offset of 2 mod 4.
    let (mut s, mut body) = crafted_csf();
    if let Index::Csf { idxs, .. } = &mut s.index {
        let (off, n) = idxs[1];
        let bytes: Vec<u8> = body[off as usize..off as usize + 4 * n as usize].to_vec();
        let at = body.len();
        body.extend([0, 0]);
        body.extend(bytes);
        body.resize(body.len().div_ceil(8) * 8, 0);
        idxs[1].0 = at as i64 + 2;
    }
    s.body_len = body.len() as i64;
    let at = if let Index::Csf { idxs, .. } = &s.index {
        idxs[1].0 as u64
    } else {
        unreachable!()
    };
    misaligned(&sparse_msg(&s, &body), BufferId::CsfIndices(1), at, 4);
    // A dense body that starts at an odd address: the message header has odd length. Only
    // the zero-copy readers see it (MessageReader copies the body into aligned memory).
    let (d_base, body) = crafted_dense();
    let mut meta = craft::dense(&d_base);
    if meta.len().is_multiple_of(2) {
        meta.push(0);
    }
    let bytes = craft::frame(&meta, &body, true, 1);
    assert_eq!((8 + metadata_len(&bytes)) % 2, 1);
    for r in [
        dec(&bytes, error),
        common::iter_first(&bytes, error),
        dec(&bytes, common::permissive_of(error)),
    ] {
        let e = r.unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Misaligned {
                    buffer: BufferId::TensorData,
                    offset: 0,
                    align: 4
                }
            ),
            "{e}"
        );
    }
    let d = dec(&bytes, ReadOptions::default()).unwrap();
    let t = d.message.as_tensor().unwrap();
    assert_eq!(t.as_slice::<i32>().unwrap(), &[1, 2, 3, 4, 5, 6]);
    common::read(&bytes, error).unwrap();
    // The same in a stream: a one-byte int8 tensor without padding puts the next message,
    // and so its body, at an odd offset; the error names that message's offset.
    let one = craft::Dense {
        version: 4,
        vt: Vt::Int(8, true),
        shape: vec![1],
        names: vec![],
        strides: None,
        data: (0, 1),
        body_len: 1,
        custom_metadata: false,
    };
    let mut stream = dense_msg(&one, &[7]);
    let second = stream.len();
    assert_eq!(second % 2, 1);
    stream.extend(dense_msg(&d_base, &body));
    let buf = arrow_buffer::Buffer::from_slice_ref(&stream);
    let results: Vec<_> = MessageIter::new(buf.clone(), &error).collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    let e = results[1].as_ref().unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Misaligned {
                buffer: BufferId::TensorData,
                align: 4,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.message_offset(), Some(second as u64));
    let ok: Vec<_> = MessageIter::new(buf, &ReadOptions::default())
        .collect::<Result<_, _>>()
        .unwrap();
    let t = ok[1].message.as_tensor().unwrap();
    let values = t.as_slice::<i32>().unwrap();
    assert_eq!(values, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(values.as_ptr() as usize % 4, 0, "the copy is aligned");
}

#[test]
fn buffer_lengths_lying_about_their_content() {
    // Shorter than the content needs.
    let (mut s, body) = crafted_coo();
    if let Index::Coo { buf, .. } = &mut s.index {
        buf.1 = 20;
    }
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CooIndices,
            needed: 24,
            length: 20
        }
    );
    let (mut s, body) = crafted_coo();
    if let Index::Coo { buf, .. } = &mut s.index {
        buf.1 = 0;
    }
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CooIndices,
            needed: 24,
            length: 0
        }
    );
    let (mut s, body) = crafted_coo();
    s.data.1 = 11;
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::Values,
            needed: 12,
            length: 11
        }
    );
    let (mut s, body) = crafted_csr();
    if let Index::Csx { ptr, .. } = &mut s.index {
        ptr.1 = 24;
    }
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CsxIndptr,
            needed: 32,
            length: 24
        }
    );
    let (mut s, body) = crafted_csr();
    if let Index::Csx { idx, .. } = &mut s.index {
        idx.1 = 31;
    }
    rejects_structure!(
        sparse_msg(&s, &body),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CsxIndices,
            needed: 32,
            length: 31
        }
    );
    // CSF lengths state the tree's size (as counts or bytes): a lie breaks the tree.
    for (k, len) in [(0, 2), (1, 3), (2, 3), (3, 2), (4, 5), (4, 15)] {
        let (mut s, body) = crafted_csf();
        if let Index::Csf { ptrs, idxs, .. } = &mut s.index {
            let r = if k < 2 {
                &mut ptrs[k]
            } else {
                &mut idxs[k - 2]
            };
            r.1 = len;
        }
        rejects_structure!(sparse_msg(&s, &body), ErrorKind::CountMismatch { .. });
    }
    // Longer than needed but inside the body: padding, accepted.
    let (mut s, body) = crafted_csr();
    s.data = (64, 32);
    if let Index::Csx { ptr, .. } = &mut s.index {
        ptr.1 = 40;
    }
    dec(&sparse_msg(&s, &body), ReadOptions::strict()).unwrap();
}

/// Overwrites every aligned 32-bit word of each base message's metadata with hostile values:
/// whatever the readers make of it, they return (a message or an error) without panicking.
#[test]
fn metadata_word_sweep_never_panics() {
    let mut bases = vec![valid_message()];
    for (s, body) in [crafted_coo(), crafted_csf()] {
        bases.push(sparse_msg(&s, &body));
    }
    let (d, body) = crafted_dense();
    bases.push(dense_msg(&d, &body));
    for bytes in bases {
        let end = 8 + metadata_len(&bytes);
        for at in (8..end).step_by(4) {
            for v in [
                0u32,
                1,
                0xFF,
                0x7FFF_FFFF,
                0x8000_0000,
                u32::MAX,
                0xFFFF_FFF8,
            ] {
                let mut b = bytes.clone();
                b[at..at + 4].copy_from_slice(&v.to_le_bytes());
                for opts in [ReadOptions::strict(), ReadOptions::permissive()] {
                    if let Ok(d) = dec(&b, opts) {
                        exercise(&d.message);
                    }
                    let _ = common::read(&b, opts);
                }
            }
        }
    }
}

fn exercise(m: &arrow_tensor_ipc::Message) {
    match m {
        arrow_tensor_ipc::Message::Tensor(t) => {
            if t.len() <= 1 << 12 {
                let _ = t.iter().count();
            }
            for c in common::cells(t.shape(), 1 << 12) {
                let _ = t.get(&c);
            }
        }
        arrow_tensor_ipc::Message::SparseTensor(t) => {
            let _ = t.iter();
            let _ = t.to_dense_with(
                &arrow_tensor_ipc::ConvertOptions::default()
                    .with_max_dense_elements(common::DENSE_LIMIT),
            );
            for c in common::cells(t.shape(), 1 << 12) {
                let _ = t.get(&c);
            }
        }
    }
    let _ = encode(m, &WriteOptions::default());
}
