//! Property tests of strict validation per layout ([`check_contents`]): a random valid
//! index is accepted, and a random single corruption of it is rejected with exactly the
//! error that a plain reference of the layout's rules (written here, rule by rule, entry by
//! entry) predicts, for every index type.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::{check_contents, check_structure, CompressedAxis, CooIndex, CooOrder, CsfIndex};
use super::{CsxIndex, SparseIndex};
use crate::array::IndexArray;
use crate::error::{BufferId, ErrorKind};
use crate::types::{IndexType, ValueType};
use crate::validate::tests::{increasing, Rng, TestIndex};
use arrow_buffer::Buffer;
use proptest::prelude::*;

const TYPES: [IndexType; 8] = [
    IndexType::Int8,
    IndexType::Int16,
    IndexType::Int32,
    IndexType::Int64,
    IndexType::UInt8,
    IndexType::UInt16,
    IndexType::UInt32,
    IndexType::UInt64,
];

/// The range of an index type.
fn range(t: IndexType) -> (i128, i128) {
    crate::dispatch_index!(t, I => (<I as TestIndex>::LO, <I as TestIndex>::HI))
}

/// An index array of type `t` (every value must fit).
fn array(t: IndexType, v: &[i128]) -> IndexArray {
    crate::dispatch_index!(t, I => IndexArray::from_vec(v.iter().map(|&x| I::of(x)).collect::<Vec<I>>()))
}

fn reported(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Runs the structure check (which must pass: corruptions keep every length) and the
/// contents check, shown as the Debug form of the error kind.
fn strict(shape: &[usize], nnz: usize, index: &SparseIndex) -> String {
    let values = Buffer::from_vec(vec![0f64; nnz]);
    check_structure(ValueType::Float64, shape, &values, index).expect("structure");
    match check_contents(shape, index) {
        Ok(()) => "Ok".into(),
        Err(e) => format!("{:?}", e.kind()),
    }
}

fn shown(k: Option<ErrorKind>) -> String {
    k.map_or_else(|| "Ok".into(), |k| format!("{k:?}"))
}

fn inside(v: i128, bound: usize) -> bool {
    v >= 0 && v < bound as i128
}

/// A corruption of the value at `k` of `v`: a neighbour's value, a small change, or a value
/// at or beyond the type's ends or `bound`, clamped to the type's range `(lo, hi)`.
fn corrupt(v: &mut [i128], k: usize, kind: u8, bound: i128, (lo, hi): (i128, i128), rng: &mut Rng) {
    if v.is_empty() {
        return;
    }
    let k = k % v.len();
    let new = match kind % 7 {
        0 if k > 0 => v[k - 1],
        1 if k + 1 < v.len() => v[k + 1],
        2 => v[k] + 1,
        3 => v[k] - 1,
        4 => bound,
        5 => -1,
        _ => rng.range(lo, hi),
    };
    v[k] = new.clamp(lo, hi);
}

/// Reference of the indptr rules: starts at 0, non-decreasing, ends at `len`.
fn ref_indptr(p: &[i128], len: usize, buffer: BufferId) -> Option<ErrorKind> {
    let invalid = |position: usize, value: i128, rule| ErrorKind::InvalidIndptr {
        buffer,
        position: position as u64,
        value: reported(value),
        rule,
    };
    if p[0] != 0 {
        return Some(invalid(0, p[0], "indptr must start at 0"));
    }
    if let Some(k) = (1..p.len()).find(|&k| p[k - 1] > p[k]) {
        return Some(invalid(k, p[k], "indptr must be non-decreasing"));
    }
    let last = p.len() - 1;
    if p[last] != len as i128 {
        let rule = "indptr must end at the number of entries it delimits";
        return Some(invalid(last, p[last], rule));
    }
    None
}

/// Reference of a bounds rule: the first value of `s` outside `0..bound`.
fn ref_bounds(s: &[i128], bound: usize, dim: usize, buffer: BufferId) -> Option<ErrorKind> {
    let p = s.iter().position(|&v| !inside(v, bound))?;
    Some(ErrorKind::IndexOutOfBounds {
        buffer,
        position: p as u64,
        value: reported(s[p]),
        dim,
        bound: bound as u64,
    })
}

/// Reference of a sortedness rule: the first entry of a slice of `s` (delimited by `p`)
/// not greater than its predecessor.
fn ref_sorted(s: &[i128], p: &[i128], buffer: BufferId, rule: &'static str) -> Option<ErrorKind> {
    (0..p.len() - 1).find_map(|r| {
        let (a, b) = (p[r] as usize, p[r + 1] as usize);
        (a + 1..b)
            .find(|&k| s[k - 1] >= s[k])
            .map(|k| ErrorKind::NotIncreasing {
                buffer,
                position: k as u64,
                rule,
            })
    })
}

/// Reference of the COO rules: bounds in buffer order, then (when flagged canonical) rows
/// strictly increasing.
fn ref_coo(
    rows: &[Vec<i128>],
    s: &[i128],
    shape: &[usize],
    order: CooOrder,
    canonical: bool,
) -> Option<ErrorKind> {
    let (nnz, ndim) = (rows.len(), shape.len());
    for (p, &v) in s.iter().enumerate() {
        let d = match order {
            CooOrder::RowMajor => p % ndim,
            CooOrder::ColumnMajor => p / nnz,
        };
        if !inside(v, shape[d]) {
            return Some(ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CooIndices,
                position: p as u64,
                value: reported(v),
                dim: d,
                bound: shape[d] as u64,
            });
        }
    }
    let i = (1..nnz).find(|&i| canonical && rows[i - 1] >= rows[i])?;
    Some(ErrorKind::NotIncreasing {
        buffer: BufferId::CooIndices,
        position: i as u64,
        rule: "isCanonical requires strictly increasing row-major coordinates",
    })
}

/// A shape of `ndim` dimensions whose coordinates `t` can hold.
fn shape_for(ndim: usize, t: IndexType, rng: &mut Rng, cap: i128) -> Vec<usize> {
    let hi = range(t).1.min(cap);
    (0..ndim).map(|_| rng.range(1, hi) as usize).collect()
}

/// `n` distinct sorted cells of `shape` (as coordinate rows), `n` capped by the cells.
fn sorted_cells(rng: &mut Rng, n: usize, shape: &[usize]) -> Vec<Vec<i128>> {
    let cells: u128 = shape.iter().map(|&d| d as u128).product();
    let n = n.min(cells as usize);
    increasing(rng, n, cells)
        .into_iter()
        .map(|mut lin| {
            let mut row = vec![0i128; shape.len()];
            for (c, &d) in row.iter_mut().zip(shape).rev() {
                *c = (lin % d as u128) as i128;
                lin /= d as u128;
            }
            row
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// COO, both layouts of the matrix, canonical (sorted, unique) or not (any order).
    #[test]
    fn coo(
        tsel in 0usize..8, ndim in 1usize..=4, nnz in 0usize..300,
        column_major in any::<bool>(), canonical in any::<bool>(),
        at in any::<usize>(), kind in any::<u8>(), row_swap in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let t = TYPES[tsel];
        let mut rng = Rng(seed);
        let shape = shape_for(ndim, t, &mut rng, 40);
        let mut rows = if canonical {
            sorted_cells(&mut rng, nnz, &shape)
        } else {
            (0..nnz)
                .map(|_| shape.iter().map(|&d| rng.below(d as u128) as i128).collect())
                .collect()
        };
        let nnz = rows.len();
        let order = if column_major { CooOrder::ColumnMajor } else { CooOrder::RowMajor };
        let flatten = |rows: &[Vec<i128>]| -> Vec<i128> {
            match order {
                CooOrder::RowMajor => rows.concat(),
                CooOrder::ColumnMajor => (0..ndim).flat_map(|d| rows.iter().map(move |r| r[d])).collect(),
            }
        };
        let build = |s: &[i128]| {
            SparseIndex::Coo(CooIndex::with_flag(array(t, s), ndim, order, canonical).unwrap())
        };
        let s = flatten(&rows);
        prop_assert_eq!(strict(&shape, nnz, &build(&s)), "Ok");
        // One corruption: two neighbouring rows swapped, or one coordinate changed.
        let s = if row_swap && nnz >= 2 {
            let i = at % (nnz - 1);
            rows.swap(i, i + 1);
            flatten(&rows)
        } else {
            let mut s = s;
            if !s.is_empty() {
                let p = at % s.len();
                let d = match order { CooOrder::RowMajor => p % ndim, CooOrder::ColumnMajor => p / nnz };
                corrupt(&mut s, p, kind, shape[d] as i128, range(t), &mut rng);
                let coord = |i: usize, d: usize| match order {
                    CooOrder::RowMajor => s[i * ndim + d],
                    CooOrder::ColumnMajor => s[d * nnz + i],
                };
                rows = (0..nnz).map(|i| (0..ndim).map(|d| coord(i, d)).collect()).collect();
            }
            s
        };
        prop_assert_eq!(
            strict(&shape, nnz, &build(&s)),
            shown(ref_coo(&rows, &s, &shape, order, canonical))
        );
    }

    /// CSR and CSC, with indptr and indices of independent types.
    #[test]
    fn csx(
        psel in 0usize..8, isel in 0usize..8, column in any::<bool>(),
        outer in 0usize..200, per in 0usize..12,
        target in 0u8..2, at in any::<usize>(), kind in any::<u8>(),
        seed in any::<u64>(),
    ) {
        let (pt, it) = (TYPES[psel], TYPES[isel]);
        let mut rng = Rng(seed);
        let inner = shape_for(1, it, &mut rng, 500)[0];
        let axis = if column { CompressedAxis::Column } else { CompressedAxis::Row };
        // Slices of at most `per` entries, and at most the indptr type's maximum in all.
        let budget = range(pt).1.min(100_000) as usize;
        let mut indptr = vec![0i128];
        let mut indices = Vec::new();
        for _ in 0..outer {
            let room = budget - indices.len();
            let n = (rng.below(per as u128 + 1) as usize).min(inner).min(room);
            indices.extend(increasing(&mut rng, n, inner as u128).into_iter().map(|v| v as i128));
            indptr.push(indices.len() as i128);
        }
        let nnz = indices.len();
        let shape = match axis {
            CompressedAxis::Row => vec![outer, inner],
            CompressedAxis::Column => vec![inner, outer],
        };
        let build = |p: &[i128], s: &[i128]| SparseIndex::Csx(CsxIndex::new(axis, array(pt, p), array(it, s)).unwrap());
        prop_assert_eq!(strict(&shape, nnz, &build(&indptr, &indices)), "Ok");
        if target == 0 {
            corrupt(&mut indptr, at, kind, nnz as i128 + 1, range(pt), &mut rng);
        } else {
            corrupt(&mut indices, at, kind, inner as i128, range(it), &mut rng);
        }
        let rule = "indices must strictly increase within a row (column)";
        let reference = ref_indptr(&indptr, nnz, BufferId::CsxIndptr)
            .or_else(|| ref_bounds(&indices, inner, 1 - axis.dim(), BufferId::CsxIndices))
            .or_else(|| ref_sorted(&indices, &indptr, BufferId::CsxIndices, rule));
        prop_assert_eq!(strict(&shape, nnz, &build(&indptr, &indices)), shown(reference));
    }

    /// CSF of rank 2 to 4 with any axis order, built from distinct random cells.
    #[test]
    fn csf(
        psel in 0usize..8, isel in 0usize..8, ndim in 2usize..=4, n in 0usize..300,
        order_seed in any::<u64>(),
        target in any::<usize>(), at in any::<usize>(), kind in any::<u8>(),
        seed in any::<u64>(),
    ) {
        let (pt, it) = (TYPES[psel], TYPES[isel]);
        let mut rng = Rng(seed);
        let shape = shape_for(ndim, it, &mut rng, 12);
        // A random axis order, and distinct cells sorted in that order (level by level).
        let mut order: Vec<usize> = (0..ndim).collect();
        let mut orng = Rng(order_seed);
        for k in (1..ndim).rev() {
            order.swap(k, orng.below(k as u128 + 1) as usize);
        }
        let permuted: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
        // Every node count is at most the number of leaves: keep it within the indptr type.
        let n = n.min(range(pt).1 as usize);
        let cells = sorted_cells(&mut rng, n, &permuted);
        let nnz = cells.len();
        // Level k: one node per distinct prefix of length k + 1.
        let mut indices: Vec<Vec<i128>> = vec![Vec::new(); ndim];
        let mut indptr: Vec<Vec<i128>> = vec![vec![0]; ndim - 1];
        for (i, cell) in cells.iter().enumerate() {
            // The first level where this cell leaves its predecessor's path.
            let split = if i == 0 {
                0
            } else {
                (0..ndim).find(|&k| cells[i - 1][k] != cell[k]).unwrap()
            };
            for k in split..ndim {
                indices[k].push(cell[k]);
                if k > 0 {
                    // A new child of the last node of level k - 1.
                    *indptr[k - 1].last_mut().unwrap() = indices[k].len() as i128;
                }
                if k + 1 < ndim {
                    let end = indices[k + 1].len() as i128;
                    indptr[k].push(end);
                }
            }
        }
        let build = |p: &[Vec<i128>], s: &[Vec<i128>]| {
            SparseIndex::Csf(CsfIndex::new(
                order.clone(),
                p.iter().map(|v| array(pt, v)).collect(),
                s.iter().map(|v| array(it, v)).collect(),
            ).unwrap())
        };
        prop_assert_eq!(strict(&shape, nnz, &build(&indptr, &indices)), "Ok");
        // One corruption, in any of the 2 * ndim - 1 arrays.
        let k = target % (2 * ndim - 1);
        if k < ndim {
            corrupt(&mut indices[k], at, kind, shape[order[k]] as i128, range(it), &mut rng);
        } else {
            let level = k - ndim;
            let bound = indices[level + 1].len() as i128 + 1;
            corrupt(&mut indptr[level], at, kind, bound, range(pt), &mut rng);
        }
        let rule = "sibling coordinates must strictly increase";
        let root = [0, indices[0].len() as i128];
        let reference = (0..ndim)
            .find_map(|k| ref_bounds(&indices[k], shape[order[k]], order[k], BufferId::CsfIndices(k)))
            .or_else(|| {
                (0..ndim - 1).find_map(|k| {
                    ref_indptr(&indptr[k], indices[k + 1].len(), BufferId::CsfIndptr(k))
                })
            })
            .or_else(|| ref_sorted(&indices[0], &root, BufferId::CsfIndices(0), rule))
            .or_else(|| {
                (0..ndim - 1).find_map(|k| {
                    ref_sorted(&indices[k + 1], &indptr[k], BufferId::CsfIndices(k + 1), rule)
                })
            });
        prop_assert_eq!(strict(&shape, nnz, &build(&indptr, &indices)), shown(reference));
    }
}

/// A tensor built permissively keeps an invalid index until it is checked: `check_contents`
/// and `validate` report the same error strict construction does, and a valid one becomes
/// validated.
#[test]
fn permissive_construction_then_validate() {
    use crate::{SparseTensor, Validation};
    let csr = |indices: &[i32]| {
        SparseIndex::Csx(
            CsxIndex::new(
                CompressedAxis::Row,
                IndexArray::from_vec(vec![0i32, 1, 2]),
                IndexArray::from_vec(indices.to_vec()),
            )
            .unwrap(),
        )
    };
    let values = || Buffer::from_vec(vec![1.0f64, 2.0]);
    let bad = SparseTensor::try_new_with_validation(
        ValueType::Float64,
        vec![2, 3],
        values(),
        csr(&[1, 7]),
        Validation::Permissive,
    )
    .unwrap();
    assert!(!bad.is_validated());
    let strict = SparseTensor::try_new(ValueType::Float64, vec![2, 3], values(), csr(&[1, 7]))
        .unwrap_err()
        .to_string();
    assert_eq!(bad.check_contents().unwrap_err().to_string(), strict);
    assert!(matches!(
        bad.validate().unwrap_err().kind(),
        ErrorKind::IndexOutOfBounds { value: 7, .. }
    ));
    let good = SparseTensor::try_new_with_validation(
        ValueType::Float64,
        vec![2, 3],
        values(),
        csr(&[1, 2]),
        Validation::Permissive,
    )
    .unwrap();
    assert!(!good.is_validated());
    good.check_contents().unwrap();
    assert!(good.validate().unwrap().is_validated());
    // Structure is checked even permissively: 3 indices for 2 values.
    assert!(SparseTensor::try_new_with_validation(
        ValueType::Float64,
        vec![2, 3],
        values(),
        csr(&[0, 1, 2]),
        Validation::Permissive,
    )
    .is_err());
}
