//! CSF: per-level indptr structure, indices in bounds, sorted and unique per parent, axis order.

use super::*;

pub(crate) fn seed_ptr() -> Vec<Vec<i32>> {
    vec![vec![0, 2, 3], vec![0, 1, 2, 4]]
}
pub(crate) fn seed_idx() -> Vec<Vec<i32>> {
    vec![vec![0, 1], vec![0, 2, 1], vec![1, 3, 0, 2]]
}
fn seed_values() -> Vec<f32> {
    vec![1., 2., 3., 4.]
}

#[test]
fn csf_axis_order_not_a_permutation() {
    for order in [vec![0, 0, 2], vec![0, 1, 3], vec![2, 1, 1]] {
        let e = csf_parts(
            &[2, 3, 4],
            order.clone(),
            seed_ptr(),
            seed_idx(),
            seed_values(),
        )
        .unwrap_err();
        let expected: Vec<i64> = order.iter().map(|&v| v as i64).collect();
        assert!(
            matches!(e.kind(), ErrorKind::NotAPermutation(v) if *v == expected),
            "{order:?}: {e}"
        );
    }
    // Wrong length.
    let e = csf_parts(
        &[2, 3, 4],
        vec![0, 1],
        seed_ptr(),
        seed_idx(),
        seed_values(),
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{e}"
    );
    // In messages: duplicate, out of range, negative.
    let (mut s, body) = crafted_csf();
    for order in [vec![0, 0, 2], vec![0, 1, 3], vec![0, -1, 2]] {
        if let Index::Csf { order: o, .. } = &mut s.index {
            *o = order.clone();
        }
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(matches!(e, ErrorKind::NotAPermutation(_)), "{order:?}: {e}");
    }
    if let Index::Csf { order: o, .. } = &mut s.index {
        *o = vec![0, 1];
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::CountMismatch { .. }
    ));
}

#[test]
fn csf_wrong_number_of_arrays() {
    let mut ptr = seed_ptr();
    ptr.push(vec![0]);
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 2,
                found: 3,
                ..
            }
        ),
        "{e}"
    );
    let mut idx = seed_idx();
    idx.remove(0);
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{e}"
    );
    // In messages (GH-50161).
    let (s, body) = crafted_csf();
    let mut fewer = s.clone();
    if let Index::Csf { ptrs, .. } = &mut fewer.index {
        ptrs.pop();
    }
    assert!(matches!(
        strict_err(&sparse_msg(&fewer, &body)),
        ErrorKind::CountMismatch {
            expected: 2,
            found: 1,
            ..
        }
    ));
    let mut more = s.clone();
    if let Index::Csf { idxs, .. } = &mut more.index {
        idxs.push((0, 0));
    }
    assert!(matches!(
        strict_err(&sparse_msg(&more, &body)),
        ErrorKind::CountMismatch {
            expected: 3,
            found: 4,
            ..
        }
    ));
}

#[test]
fn csf_rank_zero_and_one() {
    let e = csf_parts(&[4], vec![0], vec![], vec![vec![1]], vec![1.]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::InvalidRank { rank: 1, .. }),
        "{e}"
    );
    let e = csf_parts(&[], vec![], vec![], vec![], vec![1.]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::InvalidRank { rank: 0, .. }),
        "{e}"
    );
    let (mut s, body) = crafted_csf();
    s.shape = vec![24];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::InvalidRank { rank: 1, .. }
    ));
    s.shape = vec![];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::InvalidRank { rank: 0, .. }
    ));
}

#[test]
fn csf_level_count_mismatch() {
    // indptr[1] must have (nodes of level 1) + 1 = 4 entries.
    let ptr = vec![vec![0, 2, 3], vec![0, 1, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 4,
                found: 3,
                ..
            }
        ),
        "{e}"
    );
    // The leaves must be nnz.
    let e = csf_parts(
        &[2, 3, 4],
        vec![0, 1, 2],
        seed_ptr(),
        seed_idx(),
        vec![1., 2., 3.],
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 3,
                found: 4,
                ..
            }
        ),
        "{e}"
    );
    // In a message: buffer lengths that make no consistent tree.
    let (mut s, body) = crafted_csf();
    if let Index::Csf { idxs, .. } = &mut s.index {
        idxs[1].1 = 2;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::CountMismatch { .. }
    ));
    // non_zero_length disagreeing with the leaf count.
    let (mut s, body) = crafted_csf();
    s.nnz = 3;
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::CountMismatch { .. }
    ));
}

#[test]
fn csf_indices_out_of_bounds() {
    let mut idx = seed_idx();
    idx[2][1] = 4;
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CsfIndices(2),
                position: 1,
                value: 4,
                dim: 2,
                bound: 4
            }
        ),
        "{e}"
    );
    // With a non-identity axis order the bound is shape[axis_order[level]]: level 0 holds
    // dimension 2 (size 4) here, so 3 is fine at level 0 but not at level 2 (dimension 0).
    let e = csf_parts(
        &[2, 3, 4],
        vec![2, 1, 0],
        vec![vec![0, 1], vec![0, 1]],
        vec![vec![3], vec![2], vec![2]],
        vec![1.],
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CsfIndices(2),
                dim: 0,
                bound: 2,
                ..
            }
        ),
        "{e}"
    );
    let bytes = patched(&csf_base(), CSF_IDX1, 4, 2, 3);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsfIndices(1),
            position: 2,
            value: 3,
            dim: 1,
            bound: 3
        }
    ));
    let bytes = patched(&csf_base(), CSF_IDX0, 4, 0, -2);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            value: -2,
            dim: 0,
            ..
        }
    ));
}

#[test]
fn csf_siblings_not_increasing() {
    // Root level.
    let mut idx = seed_idx();
    idx[0] = vec![1, 0];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotIncreasing {
                buffer: BufferId::CsfIndices(0),
                position: 1,
                ..
            }
        ),
        "{e}"
    );
    // Inner level: children of node 0 at level 1 are (2, 0).
    let mut idx = seed_idx();
    idx[1] = vec![2, 0, 1];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotIncreasing {
                buffer: BufferId::CsfIndices(1),
                position: 1,
                ..
            }
        ),
        "{e}"
    );
    // Leaf level duplicate siblings.
    let mut idx = seed_idx();
    idx[2] = vec![1, 3, 2, 2];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotIncreasing {
                buffer: BufferId::CsfIndices(2),
                position: 3,
                ..
            }
        ),
        "{e}"
    );
    // Decreasing across different parents is fine.
    let mut idx = seed_idx();
    idx[2] = vec![3, 3, 0, 2];
    csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap();
    let bytes = patched(&csf_base(), CSF_IDX2, 4, 3, 0); // leaves of node 2: 0, 0
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CsfIndices(2),
            position: 3,
            ..
        }
    ));
    let bytes = patched(&csf_base(), CSF_IDX0, 4, 1, 0); // root: 0, 0
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CsfIndices(0),
            ..
        }
    ));
}

#[test]
fn csf_indptr_errors() {
    // Not starting at 0.
    let ptr = vec![vec![1, 2, 3], vec![0, 1, 2, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsfIndptr(0),
                position: 0,
                value: 1,
                ..
            }
        ),
        "{e}"
    );
    // Decreasing.
    let ptr = vec![vec![0, 2, 3], vec![0, 2, 1, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsfIndptr(1),
                position: 2,
                value: 1,
                ..
            }
        ),
        "{e}"
    );
    // Not ending at the number of children.
    let ptr = vec![vec![0, 2, 2], vec![0, 1, 2, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsfIndptr(0),
                position: 2,
                value: 2,
                ..
            }
        ),
        "{e}"
    );
    // Negative.
    let ptr = vec![vec![0, -1, 3], vec![0, 1, 2, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidIndptr { .. }), "{e}");

    for (buffer, elem, value, level, position) in [
        (CSF_PTR0, 0, 1, 0, 0),
        (CSF_PTR1, 1, 3, 1, 2),
        (CSF_PTR1, 3, 3, 1, 3),
        (CSF_PTR0, 2, 4, 0, 2),
    ] {
        let bytes = patched(&csf_base(), buffer, 4, elem, value);
        let e = strict_err(&bytes);
        assert!(
            matches!(
                e,
                ErrorKind::InvalidIndptr { buffer: BufferId::CsfIndptr(l), position: p, .. }
                    if l == level && p == position
            ),
            "{buffer} {elem} {value}: {e}"
        );
    }
}
