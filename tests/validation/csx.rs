//! CSX (CSR and CSC): indptr structure, indices in bounds, sorted and unique per slice.

use super::*;

fn csr(indptr: Vec<i64>, indices: Vec<i64>, n: usize) -> arrow_tensor_ipc::Result<SparseTensor> {
    SparseTensor::csr([3, 4], indptr, indices, (1..=n).map(|v| v as f64).collect())
}

#[test]
fn csx_indptr_not_starting_at_zero() {
    let e = csr(vec![1, 2, 2, 4], vec![0, 2, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsxIndptr,
                position: 0,
                value: 1,
                ..
            }
        ),
        "{e}"
    );
    let bytes = patched(&csr_base(), 0, 8, 0, 1);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsxIndptr,
            position: 0,
            ..
        }
    ));
}

#[test]
fn csx_indptr_decreasing() {
    let e = csr(vec![0, 3, 2, 4], vec![0, 2, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                position: 2,
                value: 2,
                ..
            }
        ),
        "{e}"
    );
    let bytes = patched(&csr_base(), 0, 8, 1, 3);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr { position: 2, .. }
    ));
}

#[test]
fn csx_indptr_not_ending_at_nnz() {
    let e = csr(vec![0, 2, 2, 3], vec![0, 2, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                position: 3,
                value: 3,
                ..
            }
        ),
        "{e}"
    );
    let bytes = patched(&csr_base(), 0, 8, 3, 3);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr {
            position: 3,
            value: 3,
            ..
        }
    ));
    // Ending beyond nnz.
    let bytes = patched(&csr_base(), 0, 8, 3, 5);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr {
            position: 3,
            value: 5,
            ..
        }
    ));
}

#[test]
fn csx_indptr_wrong_length() {
    for indptr in [vec![0i64, 2, 4], vec![0, 2, 2, 4, 4]] {
        let e = csr(indptr, vec![0, 2, 1, 3], 4).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::CountMismatch { expected: 4, .. }),
            "{e}"
        );
    }
    // CSC needs shape[1] + 1 entries.
    let e =
        SparseTensor::csc([3, 4], vec![0i64, 1, 2, 3], vec![0, 1, 2], vec![1u8, 2, 3]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 5,
                found: 4,
                ..
            }
        ),
        "{e}"
    );
    // indices of the wrong length (not nnz).
    let e = SparseTensor::csr(
        [3, 4],
        vec![0i64, 2, 2, 4],
        vec![0, 2, 1],
        vec![1u8, 2, 3, 4],
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    // In a message: an indptr buffer too short for shape[0] + 1 entries.
    let (mut s, body) = crafted_csr();
    if let Index::Csx { ptr, .. } = &mut s.index {
        ptr.1 = 24;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CsxIndptr,
            needed: 32,
            length: 24
        }
    ));
}

#[test]
fn csx_indices_out_of_bounds() {
    let e = csr(vec![0, 2, 2, 4], vec![0, 4, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CsxIndices,
                position: 1,
                value: 4,
                dim: 1,
                bound: 4
            }
        ),
        "{e}"
    );
    // CSC indices are row numbers, bounded by shape[0].
    let e = SparseTensor::csc([3, 4], vec![0i32, 1, 1, 1, 1], vec![3], vec![1f32]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                dim: 0,
                bound: 3,
                ..
            }
        ),
        "{e}"
    );
    // Negative.
    let e = csr(vec![0, 2, 2, 4], vec![0, 2, -1, 3], 4).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::IndexOutOfBounds { value: -1, .. }),
        "{e}"
    );
    let bytes = patched(&csr_base(), 1, 8, 3, 7);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsxIndices,
            position: 3,
            value: 7,
            ..
        }
    ));
}

#[test]
fn csx_indices_not_increasing_within_row() {
    let e = csr(vec![0, 2, 2, 4], vec![2, 0, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotIncreasing {
                buffer: BufferId::CsxIndices,
                position: 1,
                ..
            }
        ),
        "{e}"
    );
    // Duplicates in a row.
    let e = csr(vec![0, 2, 2, 4], vec![0, 2, 3, 3], 4).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::NotIncreasing { position: 3, .. }),
        "{e}"
    );
    // Decreasing across rows is fine: rows are independent.
    csr(vec![0, 2, 2, 4], vec![2, 3, 0, 1], 4).unwrap();
    let bytes = patched(&csr_base(), 1, 8, 3, 0); // row 2: cols 1, 0
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CsxIndices,
            position: 3,
            ..
        }
    ));
}

#[test]
fn csx_rank_not_two() {
    for shape in [vec![4usize], vec![2, 2, 2], vec![]] {
        let index = CsxIndex::new(
            CompressedAxis::Row,
            IndexArray::from_vec(vec![0i32, 1, 1]),
            IndexArray::from_vec(vec![0i32]),
        )
        .unwrap();
        let e = SparseTensor::try_new(
            ValueType::Float32,
            shape.clone(),
            Buffer::from_vec(vec![1f32]),
            SparseIndex::Csx(index),
        )
        .unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::InvalidRank { rank, .. } if *rank == shape.len()),
            "{e}"
        );
    }
    let (mut s, body) = crafted_csr();
    s.shape = vec![3, 4, 1];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::InvalidRank { rank: 3, .. }
    ));
    s.shape = vec![12];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::InvalidRank { rank: 1, .. }
    ));
}

#[test]
fn csx_unknown_compressed_axis_crafted() {
    let (mut s, body) = crafted_csr();
    if let Index::Csx { axis, .. } = &mut s.index {
        *axis = 5;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::UnknownUnion { value: 5, .. }
    ));
}
