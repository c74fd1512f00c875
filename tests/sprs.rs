//! The sprs bridge (`integrations::sprs`): CSR/CSC views without copying (checked by
//! sprs), owned matrices taken without copying, copies in every index type, COO <->
//! triplet matrices, views of decoded messages, error cases and property tests.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    decode_message, f16, CompressedAxis, ConvertOptions, CsxIndex, ErrorKind, IndexArray,
    IndexType, Message, MessageWriter, NativeIndex, NativeValue, ReadOptions, Scalar, SparseFormat,
    SparseIndex, SparseTensor, Tensor, ValueType, WriteOptions,
};
use proptest::prelude::*;
use sprs::{CsMatI, SpIndex, TriMat, TriMatI};

/// Encodes with the crate's writer and decodes back (zero-copy) with `options`.
fn through_ipc(t: &SparseTensor, options: &ReadOptions) -> (bytes::Bytes, SparseTensor) {
    // uint64 indices are written too (Arrow C++ does not read them; this crate does).
    let mut write = WriteOptions::default();
    write.arrow_compatible = false;
    let mut writer = MessageWriter::new(Vec::new(), &write);
    writer.write(&Message::from(t.clone())).unwrap();
    let bytes = bytes::Bytes::from(writer.finish().unwrap());
    let decoded = decode_message(&bytes, options).unwrap().unwrap();
    (bytes, decoded.message.as_sparse().unwrap().clone())
}

fn inside<T>(ptr: *const T, bytes: &[u8]) -> bool {
    let range = bytes.as_ptr_range();
    (ptr as *const u8) >= range.start && (ptr as *const u8) < range.end
}

/// A 5 x 7 dense matrix with a dozen non-zeros, of any value type.
fn dense<T: NativeValue>() -> Tensor {
    let vals: Vec<T> = (0..35usize)
        .map(|i| {
            if i % 3 == 0 {
                T::usize_as(i % 50 + 1)
            } else {
                T::ZERO
            }
        })
        .collect();
    Tensor::from_vec(vec![5, 7], vals).unwrap()
}

/// Views, copies and ownership for one value type and one index type, CSR and CSC.
fn check<T, I>()
where
    T: NativeValue + std::fmt::Debug,
    I: NativeIndex + SpIndex,
{
    let d = dense::<T>();
    for format in [SparseFormat::Csr, SparseFormat::Csc] {
        let options = ConvertOptions::default().with_index_type(<I as NativeIndex>::TYPE);
        let t = d.to_sparse_with(format, &options).unwrap();
        // The view shares every buffer.
        let v = t.as_csmat_view::<T, I, I>().unwrap();
        assert_eq!(v.is_csr(), format == SparseFormat::Csr);
        assert_eq!(v.shape(), (5, 7));
        assert_eq!(v.nnz(), t.nnz());
        let SparseIndex::Csx(csx) = t.index() else {
            unreachable!()
        };
        assert_eq!(v.data().as_ptr(), t.values::<T>().unwrap().as_ptr());
        assert_eq!(
            v.indices().as_ptr(),
            csx.indices().values::<I>().unwrap().as_ptr()
        );
        assert_eq!(
            v.indptr().raw_storage().as_ptr(),
            csx.indptr().values::<I>().unwrap().as_ptr()
        );
        for (r, c) in (0..5).flat_map(|r| (0..7).map(move |c| (r, c))) {
            let want = d.get(&[r, c]).unwrap();
            let got = v
                .get(r, c)
                .map_or(Scalar::zero(T::TYPE), |x| x.into_scalar());
            assert!(got.bits_eq(&want), "{format:?} ({r}, {c})");
        }
        // The owned copy, then back without copying.
        let m: CsMatI<T, I, I> = t.to_csmat().unwrap();
        assert_eq!(m.view(), v);
        let (dp, ip) = (m.data().as_ptr(), m.indices().as_ptr());
        let back = SparseTensor::from_csmat(m).unwrap();
        assert!(back.is_validated());
        assert!(back.content_eq(&t), "{format:?} {:?}", T::TYPE);
        assert_eq!(back.values::<T>().unwrap().as_ptr(), dp);
        let SparseIndex::Csx(bcsx) = back.index() else {
            unreachable!()
        };
        assert_eq!(bcsx.indices().values::<I>().unwrap().as_ptr(), ip);
        // Through IPC: the decoded tensor is viewed in the message bytes.
        let (bytes, decoded) = through_ipc(&t, &ReadOptions::strict());
        let dv = decoded.as_csmat_view::<T, I, I>().unwrap();
        assert!(inside(dv.data().as_ptr(), &bytes) || dv.nnz() == 0);
        assert!(inside(dv.indices().as_ptr(), &bytes));
        assert!(inside(dv.indptr().raw_storage().as_ptr(), &bytes));
        assert_eq!(dv, v);
    }
}

macro_rules! for_index_types {
    ($t:ty) => {
        check::<$t, i16>();
        check::<$t, i32>();
        check::<$t, i64>();
        check::<$t, u16>();
        check::<$t, u32>();
        check::<$t, u64>();
    };
}

#[test]
fn every_value_and_index_type_views_and_round_trips_without_copying() {
    for_index_types!(i8);
    for_index_types!(i16);
    for_index_types!(i32);
    for_index_types!(i64);
    for_index_types!(u8);
    for_index_types!(u16);
    for_index_types!(u32);
    for_index_types!(u64);
    for_index_types!(f16);
    for_index_types!(f32);
    for_index_types!(f64);
}

#[test]
fn indptr_and_indices_of_different_types() {
    let csr = SparseTensor::try_new(
        ValueType::Float64,
        vec![2, 3],
        Buffer::from_vec(vec![1.0f64, 2.0]),
        SparseIndex::Csx(
            CsxIndex::new(
                CompressedAxis::Row,
                IndexArray::from_vec(vec![0i64, 1, 2]),
                IndexArray::from_vec(vec![2i32, 0]),
            )
            .unwrap(),
        ),
    )
    .unwrap();
    let v = csr.as_csmat_view::<f64, i32, i64>().unwrap();
    assert_eq!(v.get(0, 2), Some(&1.0));
    let err = csr.as_csmat_view::<f64, i64, i64>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("indices"), "{err}");
    let m: CsMatI<f64, i32, i64> = csr.to_csmat().unwrap();
    let back = SparseTensor::from_csmat(m).unwrap();
    assert!(back.content_eq(&csr));
}

#[test]
fn copies_handle_usize_and_8_bit_indices() {
    let d = dense::<f32>();
    for format in [SparseFormat::Csr, SparseFormat::Csc] {
        // The default conversion picks int8 here: no sprs view, a copy works.
        let t = d
            .to_sparse_with(format, &ConvertOptions::default())
            .unwrap();
        let SparseIndex::Csx(csx) = t.index() else {
            unreachable!()
        };
        assert_eq!(csx.indices().index_type(), IndexType::Int8);
        let m: sprs::CsMat<f32> = t.to_csmat().unwrap();
        assert_eq!(m.nnz(), t.nnz());
        // sprs's usize matrix back through sprs's own type conversion.
        let back = SparseTensor::from_csmat(m.to_other_types::<i64, f32, i64>()).unwrap();
        let expected = t
            .to_format_with(
                format,
                &ConvertOptions::default().with_index_type(IndexType::Int64),
            )
            .unwrap();
        assert!(back.content_eq(&expected));
    }
}

#[test]
fn empty_and_degenerate_matrices() {
    for shape in [[0usize, 0], [0, 5], [4, 0], [3, 3]] {
        let t = Tensor::from_vec(shape, vec![0.0f64; shape[0] * shape[1]]).unwrap();
        for format in [SparseFormat::Csr, SparseFormat::Csc] {
            let opts = ConvertOptions::default().with_index_type(IndexType::Int32);
            let s = t.to_sparse_with(format, &opts).unwrap();
            let v = s.as_csmat_view::<f64, i32, i32>().unwrap();
            assert_eq!(v.shape(), (shape[0], shape[1]));
            assert_eq!(v.nnz(), 0);
            let m: CsMatI<f64, i32, i32> = s.to_csmat().unwrap();
            assert!(SparseTensor::from_csmat(m).unwrap().content_eq(&s));
            let tri: TriMatI<f64, usize> = s.to_trimat().unwrap();
            assert_eq!(tri.nnz(), 0);
            let coo = SparseTensor::from_trimat(&tri).unwrap();
            assert_eq!(coo.shape(), &shape);
            assert_eq!(coo.nnz(), 0);
        }
    }
}

#[test]
fn wrong_value_type_rank_or_layout() {
    let csr = SparseTensor::csr([2, 2], vec![0i32, 1, 2], vec![1, 0], vec![1.0f32, 2.0]).unwrap();
    let err = csr.as_csmat_view::<f64, i32, i32>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err}"
    );
    let err = csr.to_csmat::<i32, usize, usize>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err}"
    );
    let err = csr.to_trimat::<f64, usize>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err}"
    );

    // COO and CSF are not CsMat layouts.
    let coo = SparseTensor::coo([2, 2], vec![0i32, 1], vec![1.0f32]).unwrap();
    let err = coo.as_csmat_view::<f32, i32, i32>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::UnsupportedLayout { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("COO"), "{err}");
    let csf = csr
        .to_format_with(SparseFormat::Csf, &ConvertOptions::default())
        .unwrap();
    let err = csf.to_csmat::<f32, usize, usize>().unwrap_err();
    assert!(err.to_string().contains("CSF"), "{err}");
    // ... but every rank-2 layout gives a triplet matrix.
    let tri: TriMat<f32> = csf.to_trimat().unwrap();
    assert_eq!(
        tri.to_csr::<usize>(),
        csr.to_csmat::<f32, usize, usize>().unwrap()
    );

    // Rank 3 (COO, CSF) and rank 1.
    let cube = SparseTensor::coo([2, 2, 2], vec![0i64, 1, 1], vec![1u8]).unwrap();
    for err in [
        cube.to_trimat::<u8, usize>().unwrap_err(),
        cube.to_csmat::<u8, usize, usize>().unwrap_err(),
        cube.to_format_with(SparseFormat::Csf, &ConvertOptions::default())
            .unwrap()
            .as_csmat_view::<u8, i32, i32>()
            .unwrap_err(),
        SparseTensor::coo([4], vec![2i64], vec![1u8])
            .unwrap()
            .to_trimat::<u8, usize>()
            .unwrap_err(),
    ] {
        assert!(
            matches!(err.kind(), ErrorKind::InvalidRank { rank: 1 | 3, .. }),
            "{err}"
        );
    }
}

#[test]
fn sprs_rules_are_enforced_on_views() {
    // sprs needs the index type to hold the inner dimension itself: 32768 columns is too
    // many for i16 indices (Arrow allows it: the largest column is 32767).
    let csr = SparseTensor::csr([1, 32768], vec![0i16, 1], vec![32767], vec![1.0f64]).unwrap();
    let err = csr.as_csmat_view::<f64, i16, i16>().unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::Refused {
                library: "sprs",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("sprs"), "{err}");
    // The copy into a wider type works.
    let m: CsMatI<f64, i32, i32> = csr.to_csmat().unwrap();
    assert_eq!(m.get(0, 32767), Some(&1.0));
}

/// `t` encoded, with the first occurrence of `find` in the message bytes replaced by
/// `replace`, decoded permissively (strict decoding must refuse it).
fn corrupted(t: &SparseTensor, find: &[u8], replace: &[u8]) -> SparseTensor {
    let (bytes, _) = through_ipc(t, &ReadOptions::strict());
    let mut raw = bytes.to_vec();
    let at = raw
        .windows(find.len())
        .position(|w| w == find)
        .expect("pattern in the message");
    raw[at..at + replace.len()].copy_from_slice(replace);
    let raw = bytes::Bytes::from(raw);
    assert!(decode_message(&raw, &ReadOptions::strict()).is_err());
    let decoded = decode_message(&raw, &ReadOptions::permissive())
        .unwrap()
        .unwrap();
    let t = decoded.message.as_sparse().unwrap().clone();
    assert!(!t.is_validated());
    t
}

fn le(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn permissively_decoded_unsorted_row_is_refused_with_its_position() {
    // A CSR whose indices are unsorted within a row: valid structure, invalid contents.
    let good = SparseTensor::csr(
        [2, 4],
        vec![0i32, 2, 3],
        vec![1, 3, 0],
        vec![1.0f64, 2.0, 3.0],
    )
    .unwrap();
    // Swap the two indices of row 0 in the message bytes: [1, 3] -> [3, 1].
    let t = corrupted(&good, &le(&[1, 3, 0]), &le(&[3, 1]));
    for err in [
        t.as_csmat_view::<f64, i32, i32>().unwrap_err(),
        t.to_csmat::<f64, usize, usize>().unwrap_err(),
    ] {
        // The crate's strict check runs before sprs's, and says where.
        assert!(
            matches!(
                err.kind(),
                ErrorKind::NotIncreasing {
                    buffer: arrow_tensor_ipc::BufferId::CsxIndices,
                    position: 1,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("CSX indices buffer"), "{err}");
    }
}

#[test]
fn permissively_decoded_out_of_bounds_index_is_refused_before_sprs() {
    use arrow_tensor_ipc::BufferId;
    // The 3 x 4 CSR of issue 20 with its first column index overwritten by 1048576, a
    // decreasing indptr, and a CSC with a row number out of bounds.
    let csr = SparseTensor::csr(
        [3, 4],
        vec![0i32, 1, 1, 3],
        vec![2, 0, 3],
        vec![1.5f64, -2.0, 4.0],
    )
    .unwrap();
    let csc = SparseTensor::csc(
        [3, 4],
        vec![0i32, 1, 1, 3, 3],
        vec![2, 0, 1],
        vec![1.5f64, -2.0, 4.0],
    )
    .unwrap();
    let cases = [
        (
            "CSR indices",
            corrupted(&csr, &le(&[2, 0, 3]), &le(&[1 << 20])),
            BufferId::CsxIndices,
            0,
        ),
        (
            "CSR indptr",
            corrupted(&csr, &le(&[0, 1, 1, 3]), &le(&[0, 2, 1, 3])),
            BufferId::CsxIndptr,
            2,
        ),
        (
            "CSC indices",
            corrupted(&csc, &le(&[2, 0, 1]), &le(&[2, 0, 3])),
            BufferId::CsxIndices,
            2,
        ),
    ];
    for (name, t, buffer, position) in cases {
        let errors = [
            t.as_csmat_view::<f64, i32, i32>().unwrap_err(),
            t.to_csmat::<f64, usize, usize>().unwrap_err(),
        ];
        for err in errors {
            let (b, p) = match err.kind() {
                ErrorKind::IndexOutOfBounds {
                    buffer, position, ..
                }
                | ErrorKind::InvalidIndptr {
                    buffer, position, ..
                }
                | ErrorKind::NotIncreasing {
                    buffer, position, ..
                } => (*buffer, *position),
                _ => panic!("{name}: {err:?}"),
            };
            assert_eq!((b, p), (buffer, position), "{name}: {err}");
            assert!(err.to_string().contains(&buffer.to_string()), "{err}");
        }
        // The triplet copy walks the index with bounds checks.
        assert!(t.to_trimat::<f64, usize>().is_err(), "{name}");
    }
    // Validated once (recorded), a permissively decoded good tensor views as usual.
    let (_, t) = through_ipc(&csr, &ReadOptions::permissive());
    assert!(!t.is_validated());
    let t = t.validate().unwrap();
    assert!(t.is_validated());
    assert_eq!(
        t.as_csmat_view::<f64, i32, i32>().unwrap().get(2, 3),
        Some(&4.0)
    );
}

#[test]
fn non_proper_indptr_is_rebased() {
    // A sprs matrix whose indptr does not start at 0 (sprs allows it: a slice of a larger
    // matrix's indptr).
    let m = CsMatI::new((2, 3), vec![2i32, 3, 4], vec![1i32, 2], vec![5i64, 6]);
    let t = SparseTensor::from_csmat(m).unwrap();
    let SparseIndex::Csx(csx) = t.index() else {
        unreachable!()
    };
    assert_eq!(csx.indptr().values::<i32>().unwrap(), &[0, 1, 2]);
    assert_eq!(t.get(&[0, 1]).unwrap(), Scalar::Int64(5));
    assert_eq!(t.get(&[1, 2]).unwrap(), Scalar::Int64(6));
}

#[test]
fn coo_and_triplets() {
    let d = dense::<i32>();
    let coo = d
        .to_sparse_with(SparseFormat::Coo, &ConvertOptions::default())
        .unwrap();
    let tri: TriMatI<i32, u32> = coo.to_trimat().unwrap();
    assert_eq!(tri.nnz(), coo.nnz());
    assert_eq!(tri.shape(), (5, 7));
    let back = SparseTensor::from_trimat(&tri).unwrap();
    assert_eq!(back.format(), SparseFormat::Coo);
    let SparseIndex::Coo(c) = back.index() else {
        unreachable!()
    };
    assert!(c.is_canonical());
    assert_eq!(c.indices().index_type(), IndexType::Int64);
    assert!(back.to_dense().unwrap().content_eq(&d));
    // A view of triplets works the same.
    let view = tri.transpose_view();
    let tr = SparseTensor::from_trimat(&view).unwrap();
    assert_eq!(tr.shape(), &[7, 5]);
    assert_eq!(tr.get(&[3, 1]).unwrap(), d.get(&[1, 3]).unwrap());
    // Duplicates: kept (non-canonical), summed by lookups and expansions, as by sprs.
    let mut dup = TriMat::new((3, 3));
    dup.add_triplet(2, 0, 1.5f64);
    dup.add_triplet(0, 1, 2.0);
    dup.add_triplet(2, 0, 2.5);
    let t = SparseTensor::from_trimat(&dup).unwrap();
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    assert!(!c.is_canonical());
    assert_eq!(t.nnz(), 3);
    assert_eq!(t.get(&[2, 0]).unwrap(), Scalar::Float64(4.0));
    let summed: sprs::CsMat<f64> = dup.to_csr();
    let via_tensor: sprs::CsMat<f64> = t
        .to_format_with(SparseFormat::Csr, &ConvertOptions::default())
        .unwrap()
        .to_csmat()
        .unwrap();
    assert_eq!(summed, via_tensor);
    // A non-canonical COO tensor keeps its duplicates as triplets.
    let tri2: TriMat<f64> = t.to_trimat().unwrap();
    assert_eq!(tri2.nnz(), 3);
    assert_eq!(tri2.to_csr::<usize>(), summed);
    // Through IPC.
    let (_, decoded) = through_ipc(&t, &ReadOptions::strict());
    let tri3: TriMat<f64> = decoded.to_trimat().unwrap();
    assert_eq!(tri3.to_csr::<usize>(), summed);
    // Coordinates that do not fit the asked index type.
    let wide = SparseTensor::coo([2, 70_000], vec![1i64, 69_999], vec![1.0f64]).unwrap();
    let err = wide.to_trimat::<f64, u16>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::IndexDoesNotFit { .. }),
        "{err}"
    );
}

/// A rows x cols matrix with pseudo-random non-zeros.
fn random_dense(rows: usize, cols: usize, density: u64, seed: u64) -> Tensor {
    let vals: Vec<f64> = (0..(rows * cols) as u64)
        .map(|i| {
            let h = (i ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
            if h % 100 < density {
                (h % 1000) as f64 - 500.0
            } else {
                0.0
            }
        })
        .collect();
    Tensor::from_vec(vec![rows, cols], vals).unwrap()
}

proptest! {
    #[test]
    fn prop_csmat_round_trips(
        rows in 0usize..12, cols in 0usize..12, density in 0u64..=100, seed in any::<u64>(),
        csc in any::<bool>(), wide in any::<bool>(),
    ) {
        let d = random_dense(rows, cols, density, seed);
        let format = if csc { SparseFormat::Csc } else { SparseFormat::Csr };
        let index_type = if wide { IndexType::Int64 } else { IndexType::Int32 };
        let t = d.to_sparse_with(format, &ConvertOptions::default().with_index_type(index_type)).unwrap();
        let (_, decoded) = through_ipc(&t, &ReadOptions::strict());
        let owned: sprs::CsMat<f64> = decoded.to_csmat().unwrap();
        // sprs's own dense expansion agrees with the tensor's.
        let dense: Vec<f64> = owned.to_dense().iter().copied().collect();
        prop_assert_eq!(dense, d.to_vec::<f64>().unwrap());
        if wide {
            let v = decoded.as_csmat_view::<f64, i64, i64>().unwrap();
            prop_assert_eq!(v.nnz(), t.nnz());
            let back = SparseTensor::from_csmat(v.to_owned()).unwrap();
            prop_assert!(back.content_eq(&t));
        } else {
            let v = decoded.as_csmat_view::<f64, i32, i32>().unwrap();
            let back = SparseTensor::from_csmat(v.to_owned()).unwrap();
            prop_assert!(back.content_eq(&t));
        }
    }

    #[test]
    fn prop_trimat_round_trips(
        rows in 1usize..10, cols in 1usize..10,
        entries in prop::collection::vec((0usize..100, 0usize..100, -50i32..50), 0..30),
    ) {
        let mut tri = TriMat::new((rows, cols));
        for &(r, c, v) in &entries {
            tri.add_triplet(r % rows, c % cols, v);
        }
        let t = SparseTensor::from_trimat(&tri).unwrap();
        let expected: sprs::CsMat<i32> = tri.to_csr();
        let (_, decoded) = through_ipc(&t, &ReadOptions::strict());
        let back: TriMat<i32> = decoded.to_trimat().unwrap();
        prop_assert_eq!(back.to_csr::<usize>(), expected.clone());
        let canonical = decoded.canonicalize().unwrap();
        let csr: sprs::CsMat<i32> = canonical
            .to_format_with(SparseFormat::Csr, &ConvertOptions::default())
            .unwrap()
            .to_csmat()
            .unwrap();
        prop_assert_eq!(csr, expected);
    }
}
