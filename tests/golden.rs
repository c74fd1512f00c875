//! The worked examples of Arrow's `format/SparseTensor.fbs` and of the seed layouts, as
//! golden tests: build with the constructors, encode, decode, compare, and check `get`,
//! `iter` and `to_dense` against the values the documents give.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::__private::flatbuf as fb;
use arrow_tensor_ipc::{
    decode_message, encode, BufferId, CooIndex, CooOrder, ErrorKind, IndexArray, ReadOptions,
    Scalar, SparseFormat, SparseIndex, SparseTensor, Tensor, ValueType, WriteOptions,
};

fn encode_bytes(t: &SparseTensor, options: &WriteOptions) -> Vec<u8> {
    encode(&t.clone().into(), options).expect("encode").to_vec()
}

/// Encodes, decodes strictly, checks equality and the encoder's 64-byte layout, returns the
/// decoded tensor.
fn roundtrip(t: &SparseTensor) -> SparseTensor {
    roundtrip_with(t, &WriteOptions::default())
}

fn roundtrip_with(t: &SparseTensor, options: &WriteOptions) -> SparseTensor {
    let bytes = encode_bytes(t, options);
    assert_eq!(bytes.len() % 64, 0);
    let d = decode_message(&bytes::Bytes::from(bytes.clone()), &ReadOptions::strict())
        .expect("decode")
        .expect("a message");
    assert_eq!(d.body_offset % 64, 0);
    assert_eq!(d.total_length(), bytes.len() as u64);
    let back = d.message.as_sparse().expect("sparse").clone();
    assert!(back.is_validated());
    assert!(back.content_eq(t), "decoded {back:?}\noriginal {t:?}");
    assert_eq!(back.format(), t.format());
    // The decoded tensor answers exactly like the original.
    let (a, b) = (t.to_dense().unwrap(), back.to_dense().unwrap());
    assert!(a.content_eq(&b));
    let ia: Vec<_> = t.iter().unwrap().collect();
    let ib: Vec<_> = back.iter().unwrap().collect();
    assert_eq!(ia, ib);
    back
}

/// Row-major linear position of a coordinate.
fn linear(shape: &[usize], c: &[usize]) -> usize {
    c.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Every coordinate of a shape in row-major order.
fn all_coords(shape: &[usize]) -> Vec<Vec<usize>> {
    let total: usize = shape.iter().product();
    (0..total)
        .map(|mut l| {
            let mut c = vec![0; shape.len()];
            for (ci, &d) in c.iter_mut().zip(shape).rev() {
                *ci = l % d;
                l /= d;
            }
            c
        })
        .collect()
}

/// Checks `get` at every coordinate and `to_dense` against a list of non-zeros.
fn check_contents(t: &SparseTensor, nonzeros: &[(Vec<usize>, f64)]) {
    let shape = t.shape().to_vec();
    let total: usize = shape.iter().product();
    let mut expected = vec![0f64; total];
    for (c, v) in nonzeros {
        expected[linear(&shape, c)] = *v;
    }
    for c in all_coords(&shape) {
        let got = t.get(&c).unwrap().as_f64();
        assert_eq!(got, expected[linear(&shape, &c)], "at {c:?}");
    }
    let dense = t.to_dense().unwrap();
    assert_eq!(dense.shape(), &shape[..]);
    assert!(dense.is_row_major());
    let got: Vec<f64> = dense.iter().map(|s| s.as_f64()).collect();
    assert_eq!(got, expected);
    // Outside the shape and with the wrong rank: errors.
    let mut outside = vec![0; shape.len()];
    outside[0] = shape[0];
    assert!(matches!(
        t.get(&outside).unwrap_err().kind(),
        ErrorKind::CoordinateOutOfRange { .. }
    ));
    assert!(matches!(
        t.get(&vec![0; shape.len() + 1]).unwrap_err().kind(),
        ErrorKind::CoordinateOutOfRange { .. }
    ));
}

fn iter_entries(t: &SparseTensor) -> Vec<(Vec<usize>, f64, usize)> {
    t.iter()
        .unwrap()
        .map(|n| (n.coords.to_vec(), n.value.as_f64(), n.position))
        .collect()
}

// ---------------------------------------------------------------------------------------
// COO: the 2 x 3 x 4 x 5 example with 6 non-zeros (format/SparseTensor.fbs)
// ---------------------------------------------------------------------------------------

/// The assignments in the order the schema comment lists them.
const COO_ASSIGNED: [([usize; 4], f64); 6] = [
    ([0, 1, 2, 0], 1.),
    ([1, 1, 2, 3], 2.),
    ([0, 2, 1, 0], 3.),
    ([0, 1, 3, 0], 4.),
    ([0, 1, 2, 1], 5.),
    ([1, 2, 0, 4], 6.),
];

/// The comment's 4 x 6 index matrix (one column per non-zero), as written row by row: the
/// column-major layout of the (6 x 4) coordinate matrix.
const COO_MATRIX_4X6: [i64; 24] = [
    0, 0, 0, 0, 1, 1, //
    1, 1, 1, 2, 1, 2, //
    2, 2, 3, 1, 2, 0, //
    0, 1, 0, 0, 3, 4,
];

fn coo_sorted() -> Vec<([usize; 4], f64)> {
    let mut v = COO_ASSIGNED.to_vec();
    v.sort_by_key(|a| a.0);
    v
}

fn coo_nonzeros() -> Vec<(Vec<usize>, f64)> {
    COO_ASSIGNED.iter().map(|(c, v)| (c.to_vec(), *v)).collect()
}

#[test]
fn coo_4d_example_sorted_is_canonical() {
    let sorted = coo_sorted();
    // "Note that the indices are sorted in lexicographical order": the comment's matrix is
    // the sorted coordinates, one column per entry.
    for (i, (c, _)) in sorted.iter().enumerate() {
        for d in 0..4 {
            assert_eq!(COO_MATRIX_4X6[d * 6 + i], c[d] as i64);
        }
    }
    let coords: Vec<i64> = sorted
        .iter()
        .flat_map(|(c, _)| c.map(|x| x as i64))
        .collect();
    let values: Vec<f64> = sorted.iter().map(|(_, v)| *v).collect();
    assert_eq!(values, vec![1., 5., 4., 3., 2., 6.]);
    let t = SparseTensor::coo([2, 3, 4, 5], coords, values).unwrap();
    assert_eq!(t.format(), SparseFormat::Coo);
    assert_eq!(t.nnz(), 6);
    assert_eq!(t.total_elements(), Some(120));
    assert_eq!(t.sparsity(), 1.0 - 6.0 / 120.0);
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    assert!(c.is_canonical());
    assert_eq!(c.order(), CooOrder::RowMajor);
    assert_eq!(c.ndim(), 4);
    assert_eq!(c.nnz(), 6);
    assert_eq!(c.coordinate(3, 1), Some(2));
    assert_eq!(c.coordinate(6, 0), None);
    check_contents(&t, &coo_nonzeros());
    // Iteration in storage (sorted) order.
    let it = iter_entries(&t);
    let expected: Vec<_> = sorted
        .iter()
        .enumerate()
        .map(|(i, (c, v))| (c.to_vec(), *v, i))
        .collect();
    assert_eq!(it, expected);
    let back = roundtrip(&t);
    let SparseIndex::Coo(c) = back.index() else {
        unreachable!()
    };
    assert!(c.is_canonical());
    check_contents(&back, &coo_nonzeros());
}

#[test]
fn coo_4d_example_column_major_matrix() {
    // The comment's 4 x 6 matrix used as is: a column-major coordinate matrix.
    let sorted = coo_sorted();
    let index = CooIndex::with_order(
        IndexArray::from_vec(COO_MATRIX_4X6.to_vec()),
        4,
        CooOrder::ColumnMajor,
    )
    .unwrap();
    assert!(index.is_canonical());
    assert_eq!(index.nnz(), 6);
    let values: Vec<f64> = sorted.iter().map(|(_, v)| *v).collect();
    let t = SparseTensor::try_new(
        ValueType::Float64,
        vec![2, 3, 4, 5],
        Buffer::from_vec(values),
        SparseIndex::Coo(index),
    )
    .unwrap();
    check_contents(&t, &coo_nonzeros());
    let it: Vec<_> = iter_entries(&t)
        .into_iter()
        .map(|(c, v, _)| (c, v))
        .collect();
    let expected: Vec<_> = sorted.iter().map(|(c, v)| (c.to_vec(), *v)).collect();
    assert_eq!(it, expected);
    // Arrow-compatible (the default): written row-major, the matrix transposed, because
    // Arrow C++'s ToTensor ignores indicesStrides.
    let back = roundtrip(&t);
    let SparseIndex::Coo(c) = back.index() else {
        unreachable!()
    };
    assert_eq!(c.order(), CooOrder::RowMajor);
    assert!(c.is_canonical());
    let row_major: Vec<i64> = sorted
        .iter()
        .flat_map(|(c, _)| c.iter().map(|&x| x as i64))
        .collect();
    assert_eq!(c.indices().values::<i64>().unwrap(), &row_major[..]);
    check_contents(&back, &coo_nonzeros());
    // Otherwise the bytes are unchanged: the message carries the matrix as given.
    let back = roundtrip_with(&t, &WriteOptions::default().with_arrow_compatible(false));
    let SparseIndex::Coo(c) = back.index() else {
        unreachable!()
    };
    assert_eq!(c.order(), CooOrder::ColumnMajor);
    assert!(c.is_canonical());
    assert_eq!(c.indices().values::<i64>().unwrap(), &COO_MATRIX_4X6);
    check_contents(&back, &coo_nonzeros());
}

#[test]
fn coo_4d_example_in_assignment_order_is_not_canonical() {
    let coords: Vec<i32> = COO_ASSIGNED
        .iter()
        .flat_map(|(c, _)| c.map(|x| x as i32))
        .collect();
    let values: Vec<f32> = COO_ASSIGNED.iter().map(|(_, v)| *v as f32).collect();
    let t = SparseTensor::coo([2, 3, 4, 5], coords, values).unwrap();
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    assert!(!c.is_canonical());
    check_contents(&t, &coo_nonzeros());
    // Iteration follows storage order, which is the assignment order here.
    let it: Vec<_> = iter_entries(&t)
        .into_iter()
        .map(|(c, v, _)| (c, v))
        .collect();
    let expected: Vec<_> = COO_ASSIGNED.iter().map(|(c, v)| (c.to_vec(), *v)).collect();
    assert_eq!(it, expected);
    let back = roundtrip(&t);
    let SparseIndex::Coo(c) = back.index() else {
        unreachable!()
    };
    assert!(!c.is_canonical());
    check_contents(&back, &coo_nonzeros());
    assert_eq!(back.get(&[1, 2, 0, 4]).unwrap(), Scalar::Float32(6.));
}

// ---------------------------------------------------------------------------------------
// CSR: the 6 x 4 example (format/SparseTensor.fbs, Arrow 0.15 `SparseMatrixIndexCSR`)
// ---------------------------------------------------------------------------------------

const CSR_DENSE: [[i32; 4]; 6] = [
    [0, 1, 2, 0],
    [0, 0, 3, 0],
    [0, 4, 0, 5],
    [0, 0, 0, 0],
    [6, 0, 7, 8],
    [0, 9, 0, 0],
];
const CSR_INDPTR: [i64; 7] = [0, 2, 3, 5, 5, 8, 9];
const CSR_INDICES: [i64; 9] = [1, 2, 2, 1, 3, 0, 2, 3, 1];

fn csr_nonzeros() -> Vec<(Vec<usize>, f64)> {
    let mut out = Vec::new();
    for (r, row) in CSR_DENSE.iter().enumerate() {
        for (c, &v) in row.iter().enumerate() {
            if v != 0 {
                out.push((vec![r, c], v as f64));
            }
        }
    }
    out
}

fn csr_example() -> SparseTensor {
    SparseTensor::csr(
        [6, 4],
        CSR_INDPTR.to_vec(),
        CSR_INDICES.to_vec(),
        (1..=9).collect::<Vec<i32>>(),
    )
    .unwrap()
}

#[test]
fn csr_6x4_example() {
    let t = csr_example();
    assert_eq!(t.format(), SparseFormat::Csr);
    assert_eq!(t.nnz(), 9);
    check_contents(&t, &csr_nonzeros());
    // Row-major iteration, values 1..9 in order.
    let it = iter_entries(&t);
    let expected: Vec<_> = csr_nonzeros()
        .into_iter()
        .enumerate()
        .map(|(i, (c, v))| (c, v, i))
        .collect();
    assert_eq!(it, expected);
    let dense = t.to_dense().unwrap();
    let flat: Vec<i32> = CSR_DENSE.iter().flatten().copied().collect();
    assert!(dense.content_eq(&Tensor::from_vec(vec![6, 4], flat).unwrap()));
    let back = roundtrip(&t);
    check_contents(&back, &csr_nonzeros());
    assert_eq!(back.get(&[4, 3]).unwrap(), Scalar::Int32(8));
    assert_eq!(back.get(&[3, 1]).unwrap(), Scalar::Int32(0));
}

#[test]
fn csr_6x4_example_typo_indptr_ending_in_10_is_rejected() {
    // The schema comment says indptr = [0, 2, 3, 5, 5, 8, 10]; with 9 values that is wrong.
    let mut indptr = CSR_INDPTR.to_vec();
    indptr[6] = 10;
    let e = SparseTensor::csr(
        [6, 4],
        indptr,
        CSR_INDICES.to_vec(),
        (1..=9).collect::<Vec<i32>>(),
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsxIndptr,
                position: 6,
                value: 10,
                ..
            }
        ),
        "{e}"
    );
    // The same in a message: patch the last indptr entry of a valid encoding.
    let mut bytes = encode_bytes(&csr_example(), &WriteOptions::default());
    let body = 8 + i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    // indptr is the first body buffer (offset 0), int64.
    let at = body + 6 * 8;
    assert_eq!(i64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()), 9);
    bytes[at..at + 8].copy_from_slice(&10i64.to_le_bytes());
    let bytes = bytes::Bytes::from(bytes);
    let e = decode_message(&bytes, &ReadOptions::strict()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                position: 6,
                value: 10,
                ..
            }
        ),
        "{e}"
    );
    // Permissively it decodes; the last row then points past the indices.
    let d = decode_message(&bytes, &ReadOptions::permissive())
        .unwrap()
        .unwrap();
    let t = d.message.as_sparse().unwrap();
    assert_eq!(t.get(&[4, 3]).unwrap(), Scalar::Int32(8));
    assert!(t.get(&[5, 1]).is_err());
    assert!(t.iter().is_err());
    assert!(t.to_dense().is_err());
}

#[test]
fn csc_of_the_6x4_example() {
    // The same matrix compressed by column: indices are row numbers.
    let t = SparseTensor::csc(
        [6, 4],
        vec![0u16, 1, 4, 7, 9],
        vec![4u16, 0, 2, 5, 0, 1, 4, 2, 4],
        vec![6i32, 1, 4, 9, 2, 3, 7, 5, 8],
    )
    .unwrap();
    assert_eq!(t.format(), SparseFormat::Csc);
    check_contents(&t, &csr_nonzeros());
    assert!(t
        .to_dense()
        .unwrap()
        .content_eq(&csr_example().to_dense().unwrap()));
    // Column-major iteration.
    let it: Vec<_> = iter_entries(&t).into_iter().map(|(c, _, _)| c).collect();
    assert_eq!(&it[..4], &[vec![4, 0], vec![0, 1], vec![2, 1], vec![5, 1]]);
    let back = roundtrip(&t);
    check_contents(&back, &csr_nonzeros());
}

// ---------------------------------------------------------------------------------------
// CSF: the 2 x 3 x 4 x 5 example with 8 non-zeros (format/SparseTensor.fbs)
// ---------------------------------------------------------------------------------------

const CSF_ENTRIES: [([usize; 4], f64); 8] = [
    ([0, 0, 0, 1], 1.),
    ([0, 0, 0, 2], 2.),
    ([0, 1, 0, 0], 3.),
    ([0, 1, 0, 2], 4.),
    ([0, 1, 1, 0], 5.),
    ([1, 1, 1, 0], 6.),
    ([1, 1, 1, 1], 7.),
    ([1, 1, 1, 2], 8.),
];

fn csf_4d_example() -> SparseTensor {
    SparseTensor::csf(
        [2, 3, 4, 5],
        vec![0, 1, 2, 3],
        vec![vec![0i64, 2, 3], vec![0, 1, 3, 4], vec![0, 2, 4, 5, 8]],
        vec![
            vec![0i64, 1],
            vec![0, 1, 1],
            vec![0, 0, 1, 1],
            vec![1, 2, 0, 2, 0, 0, 1, 2],
        ],
        (1..=8).map(|v| v as f64).collect::<Vec<f64>>(),
    )
    .unwrap()
}

#[test]
fn csf_4d_example_tree() {
    let t = csf_4d_example();
    assert_eq!(t.format(), SparseFormat::Csf);
    assert_eq!(t.nnz(), 8);
    let nonzeros: Vec<_> = CSF_ENTRIES.iter().map(|(c, v)| (c.to_vec(), *v)).collect();
    check_contents(&t, &nonzeros);
    // Depth-first iteration visits the leaves in order.
    let it = iter_entries(&t);
    let expected: Vec<_> = CSF_ENTRIES
        .iter()
        .enumerate()
        .map(|(i, (c, v))| (c.to_vec(), *v, i))
        .collect();
    assert_eq!(it, expected);
    let back = roundtrip(&t);
    check_contents(&back, &nonzeros);
    let SparseIndex::Csf(c) = back.index() else {
        unreachable!()
    };
    assert_eq!(c.axis_order(), &[0, 1, 2, 3]);
    assert_eq!(c.indptr().len(), 3);
    assert_eq!(c.indices().len(), 4);
    assert_eq!(c.indptr()[2].to_i64_vec(), vec![0, 2, 4, 5, 8]);
    assert_eq!(c.indices()[3].to_i64_vec(), vec![1, 2, 0, 2, 0, 0, 1, 2]);
}

#[test]
fn csf_4d_example_byte_lengths_option() {
    // Written with byte lengths (what the format document says), read back the same.
    let options = WriteOptions::default().with_csf_lengths(arrow_tensor_ipc::CsfLengths::Bytes);
    let back = roundtrip_with(&csf_4d_example(), &options);
    let nonzeros: Vec<_> = CSF_ENTRIES.iter().map(|(c, v)| (c.to_vec(), *v)).collect();
    check_contents(&back, &nonzeros);
}

// ---------------------------------------------------------------------------------------
// Seed COO example: 4 x 4 float32, 3 non-zeros
// ---------------------------------------------------------------------------------------

fn seed_coo_nonzeros() -> Vec<(Vec<usize>, f64)> {
    vec![(vec![0, 1], 1.5), (vec![2, 0], -0.5), (vec![3, 3], 2.0)]
}

#[test]
fn seed_coo_4x4_example() {
    let t = SparseTensor::coo([4, 4], vec![0i64, 1, 2, 0, 3, 3], vec![1.5f32, -0.5, 2.0]).unwrap();
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    assert!(c.is_canonical()); // is_sorted = 0x01
    assert_eq!(t.sparsity(), 1.0 - 3.0 / 16.0);
    check_contents(&t, &seed_coo_nonzeros());
    assert_eq!(t.get(&[2, 0]).unwrap(), Scalar::Float32(-0.5));
    assert_eq!(t.values::<f32>().unwrap(), &[1.5, -0.5, 2.0]);
    let it = iter_entries(&t);
    assert_eq!(
        it,
        vec![
            (vec![0, 1], 1.5, 0),
            (vec![2, 0], -0.5, 1),
            (vec![3, 3], 2.0, 2)
        ]
    );
    let back = roundtrip(&t);
    check_contents(&back, &seed_coo_nonzeros());
}

#[test]
fn seed_coo_4x4_example_uint64_indices() {
    // The seed layout stores uint64 indices: Arrow C++ cannot read them, so writing them
    // needs arrow_compatible = false.
    let t = SparseTensor::coo([4, 4], vec![0u64, 1, 2, 0, 3, 3], vec![1.5f32, -0.5, 2.0]).unwrap();
    let e = encode(&t.clone().into(), &WriteOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NotArrowCompatible(_)), "{e}");
    let options = WriteOptions::default().with_arrow_compatible(false);
    let back = roundtrip_with(&t, &options);
    check_contents(&back, &seed_coo_nonzeros());
    let SparseIndex::Coo(c) = back.index() else {
        unreachable!()
    };
    assert_eq!(c.indices().values::<u64>().unwrap(), &[0, 1, 2, 0, 3, 3]);
}

#[test]
fn seed_coo_4x4_example_unsorted_is_linear_scanned() {
    // is_sorted = 0x00: the same entries in another order.
    let t = SparseTensor::coo([4, 4], vec![3i8, 3, 0, 1, 2, 0], vec![2.0f32, 1.5, -0.5]).unwrap();
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    assert!(!c.is_canonical());
    check_contents(&t, &seed_coo_nonzeros());
    let back = roundtrip(&t);
    check_contents(&back, &seed_coo_nonzeros());
}

// ---------------------------------------------------------------------------------------
// Seed CSF example: 2 x 3 x 4 float32, 4 non-zeros
// ---------------------------------------------------------------------------------------

fn seed_csf_nonzeros() -> Vec<(Vec<usize>, f64)> {
    vec![
        (vec![0, 0, 1], 1.0),
        (vec![0, 2, 3], 2.0),
        (vec![1, 1, 0], 3.0),
        (vec![1, 1, 2], 4.0),
    ]
}

fn seed_csf() -> SparseTensor {
    // Arrow has no root pointer array: pos_0 = [0, 2] of the seed is implicit.
    SparseTensor::csf(
        [2, 3, 4],
        vec![0, 1, 2],
        vec![vec![0i32, 2, 3], vec![0, 1, 2, 4]],
        vec![vec![0i32, 1], vec![0, 2, 1], vec![1, 3, 0, 2]],
        vec![1.0f32, 2.0, 3.0, 4.0],
    )
    .unwrap()
}

#[test]
fn seed_csf_2x3x4_example() {
    let t = seed_csf();
    assert_eq!(t.get(&[1, 1, 2]).unwrap(), Scalar::Float32(4.0));
    check_contents(&t, &seed_csf_nonzeros());
    let it = iter_entries(&t);
    let expected: Vec<_> = seed_csf_nonzeros()
        .into_iter()
        .enumerate()
        .map(|(i, (c, v))| (c, v, i))
        .collect();
    assert_eq!(it, expected);
    let back = roundtrip(&t);
    assert_eq!(back.get(&[1, 1, 2]).unwrap(), Scalar::Float32(4.0));
    check_contents(&back, &seed_csf_nonzeros());
}

#[test]
fn seed_csf_2x3x4_example_empty() {
    // nnz = 0: level 0 empty, every indptr [0].
    let t = SparseTensor::csf(
        [2, 3, 4],
        vec![0, 1, 2],
        vec![vec![0i32], vec![0]],
        vec![vec![], vec![], vec![]],
        Vec::<f32>::new(),
    )
    .unwrap();
    assert_eq!(t.nnz(), 0);
    check_contents(&t, &[]);
    assert_eq!(t.iter().unwrap().count(), 0);
    roundtrip(&t);
}

#[test]
fn seed_csf_2x3x4_example_non_identity_axis_orders() {
    // axis order [1, 0, 2]: levels j, i, k. Sorted (j, i, k): (0,0,1)=1 (1,1,0)=3 (1,1,2)=4
    // (2,0,3)=2.
    let jik = SparseTensor::csf(
        [2, 3, 4],
        vec![1, 0, 2],
        vec![vec![0u8, 1, 2, 3], vec![0, 1, 3, 4]],
        vec![vec![0u8, 1, 2], vec![0, 1, 0], vec![1, 0, 2, 3]],
        vec![1.0f32, 3.0, 4.0, 2.0],
    )
    .unwrap();
    // axis order [2, 0, 1]: levels k, i, j. Sorted (k, i, j): (0,1,1)=3 (1,0,0)=1 (2,1,1)=4
    // (3,0,2)=2.
    let kij = SparseTensor::csf(
        [2, 3, 4],
        vec![2, 0, 1],
        vec![vec![0i16, 1, 2, 3, 4], vec![0, 1, 2, 3, 4]],
        vec![vec![0i16, 1, 2, 3], vec![1, 0, 1, 0], vec![1, 0, 1, 2]],
        vec![3.0f32, 1.0, 4.0, 2.0],
    )
    .unwrap();
    let identity = seed_csf().to_dense().unwrap();
    for (t, order, storage) in [
        (
            &jik,
            [1, 0, 2],
            vec![(0, 1.0f64), (1, 3.0), (2, 4.0), (3, 2.0)],
        ),
        (
            &kij,
            [2, 0, 1],
            vec![(0, 3.0), (1, 1.0), (2, 4.0), (3, 2.0)],
        ),
    ] {
        assert_eq!(
            t.get(&[1, 1, 2]).unwrap(),
            Scalar::Float32(4.0),
            "{order:?}"
        );
        check_contents(t, &seed_csf_nonzeros());
        assert!(t.to_dense().unwrap().content_eq(&identity));
        // Iteration follows storage order but reports logical coordinates.
        let it = iter_entries(t);
        let got: Vec<_> = it.iter().map(|(_, v, p)| (*p, *v)).collect();
        assert_eq!(got, storage, "{order:?}");
        let mut logical: Vec<_> = it.into_iter().map(|(c, v, _)| (c, v)).collect();
        logical.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(logical, seed_csf_nonzeros());
        let back = roundtrip(t);
        let SparseIndex::Csf(c) = back.index() else {
            unreachable!()
        };
        assert_eq!(c.axis_order(), &order);
        assert_eq!(back.get(&[1, 1, 2]).unwrap(), Scalar::Float32(4.0));
        check_contents(&back, &seed_csf_nonzeros());
    }
}

#[test]
fn written_golden_messages_carry_the_example_arrays() {
    // The CSF example's metadata as written: element-count lengths, identity axis order.
    let bytes = encode_bytes(&csf_4d_example(), &WriteOptions::default());
    let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let msg = flatbuffers::root::<fb::Message>(&bytes[8..8 + len]).unwrap();
    let t = msg.header_as_sparse_tensor().unwrap();
    assert_eq!(t.non_zero_length(), 8);
    let csf = t.sparseIndex_as_sparse_tensor_index_csf().unwrap();
    let ptr_lens: Vec<i64> = csf.indptrBuffers().iter().map(|b| b.length()).collect();
    let idx_lens: Vec<i64> = csf.indicesBuffers().iter().map(|b| b.length()).collect();
    assert_eq!(ptr_lens, vec![3, 4, 5]);
    assert_eq!(idx_lens, vec![2, 3, 4, 8]);
    assert_eq!(
        csf.axisOrder().iter().collect::<Vec<i32>>(),
        vec![0, 1, 2, 3]
    );
    let shape: Vec<i64> = t.shape().iter().map(|d| d.size_()).collect();
    assert_eq!(shape, vec![2, 3, 4, 5]);
}
