//! A CSF tensor straight from the columns of a COO table whose rows strictly increase in
//! row-major order: the levels of the tree built in one pass over the rows, on several
//! threads for large tables (runs cut where the first coordinate changes, then joined).

use super::{index_column, CooTableInfo};
use crate::error::Result;
use crate::{IndexArray, IndexType, NativeIndex, SparseIndex, SparseTensor};
use arrow_array::RecordBatch;
use arrow_buffer::Buffer;

/// A CSF tensor in the identity axis order straight from a table whose rows strictly
/// increase in row-major order and lie inside the shape, as [`sparse_to_coo_table`] writes
/// a CSF tensor: one pass over the rows opens a node at every level from the first
/// coordinate that differs from the row before; the last coordinate column and the values
/// column are the leaf level and the values as they are (no copies when the column type is
/// the result's index type, the narrowest that holds the sizes, nnz and every indptr's
/// length, as a conversion picks by default). Valid by construction. `None` when the
/// columns are not so (the general path then reports or sorts them).
pub(super) fn csf_from_columns<I: NativeIndex>(
    table: &RecordBatch,
    info: &CooTableInfo,
    it: IndexType,
    vt: crate::ValueType,
    values: Buffer,
) -> Option<Result<SparseTensor>> {
    let nnz = table.num_rows();
    let max_dim = info.shape.iter().max().map_or(0, |&d| d as u64);
    let f = IndexType::narrowest_for(max_dim.max(nnz as u64));
    crate::dispatch_index!(f, F => csf_from_columns_as::<I, F>(table, info, it, vt, values))
}

/// [`csf_from_columns`] with the result's index arrays of type `F`.
// Every row index is below `nnz`, the length every column slice is cut to, and every level
// below `ndim`, the number of columns: the indexing cannot go out of bounds.
#[allow(clippy::indexing_slicing)]
fn csf_from_columns_as<I: NativeIndex, F: NativeIndex>(
    table: &RecordBatch,
    info: &CooTableInfo,
    it: IndexType,
    vt: crate::ValueType,
    values: Buffer,
) -> Option<Result<SparseTensor>> {
    let ndim = info.shape.len();
    let nnz = table.num_rows();
    let mut columns: Vec<IndexArray> = (0..ndim)
        .map(|d| index_column(table, d, it))
        .collect::<Option<_>>()?;
    let cols: Vec<&[I]> = columns
        .iter()
        .map(|c| c.values::<I>().and_then(|v| v.get(..nnz)))
        .collect::<Option<_>>()?;
    let bounds: Vec<I> = info
        .shape
        .iter()
        .map(|&n| I::from_u64(n.checked_sub(1)? as u64))
        .collect::<Option<_>>()?;
    let last = ndim.checked_sub(1)?;
    // The leaf level is the last column as it is when its type is the result's, else cast
    // into a new array by the runs over the rows (every value is checked against its bound).
    let cast_leaves = I::TYPE != F::TYPE;
    let (indices, mut indptr, leaves) = csf_levels::<I, F>(&cols, &bounds, cast_leaves)?;
    for k in 0..last {
        let end = if k + 1 < last {
            indices[k + 1].len()
        } else {
            nnz
        };
        indptr[k].push(F::usize_as(end));
    }
    // A conversion would pick a wider type for an indptr longer than the type holds (the
    // pointers, at most nnz, fit `F`, which holds nnz).
    let longest_ptr = indptr.iter().map(Vec::len).max().unwrap_or(0) as u64;
    let max_dim = info.shape.iter().max().map_or(0, |&d| d as u64);
    if IndexType::narrowest_for(max_dim.max(nnz as u64).max(longest_ptr)) != F::TYPE {
        return None;
    }
    let mut level_indices: Vec<IndexArray> =
        indices.into_iter().map(IndexArray::from_vec).collect();
    level_indices.push(if cast_leaves {
        IndexArray::from_vec(leaves)
    } else {
        columns.pop()?
    });
    let index = crate::CsfIndex::from_arrays(
        (0..ndim).collect(),
        indptr.into_iter().map(IndexArray::from_vec).collect(),
        level_indices,
    );
    Some(
        SparseTensor::from_converted_parts(vt, info.shape.clone(), values, SparseIndex::Csf(index))
            .and_then(|t| t.with_dim_names(info.dim_names.clone())),
    )
}

/// The levels above the leaves of a CSF tree in the identity axis order, from coordinate
/// columns whose rows strictly increase in row-major order: for every level but the last,
/// its node indices and its indptr without the closing entry (the last upper level's
/// pointers are row numbers within `cols`). `None` when a row does not follow the one
/// before or an upper level's coordinate lies outside `bounds` (the largest coordinate of
/// each dimension; the leaf column's bounds are the caller's). `reserve` rows of room are
/// set aside in every level (address space, touched only as the level grows).
///
/// `N` is the rank when it is known at compile time (each row is then read into an array
/// and the loops over levels unroll), or 0 for any rank.
// Every row index is below `nnz`, the length of every column (checked first), and every
// level below the rank, the number of columns and bounds (checked first): the indexing
// stays in bounds. (The row loops index every column by the row number.)
#[allow(
    clippy::indexing_slicing,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
fn csf_upper<I: NativeIndex, F: NativeIndex, const N: usize>(
    cols: &[&[I]],
    bounds: &[I],
    reserve: usize,
) -> Option<(Vec<Vec<F>>, Vec<Vec<F>>)> {
    let nnz = cols.first().map_or(0, |c| c.len());
    let ndim = cols.len();
    if ndim < 2 || (N > 0 && ndim != N) || bounds.len() != ndim {
        return None;
    }
    if cols.iter().any(|c| c.len() != nnz) {
        return None;
    }
    let last = ndim - 1;
    let mut upper = Upper::<F>::new(last, reserve.max(nnz));
    if nnz == 0 {
        return Some((upper.indices, upper.indptr));
    }
    if N > 0 {
        // Each column cut to `nnz` rows (its length, checked above), so that the row reads
        // need no bounds checks.
        let cols: [&[I]; N] = std::array::from_fn(|k| &cols[k][..nnz]);
        let mut prev: [I; N] = std::array::from_fn(|k| cols[k][0]);
        if !upper.open(0, 0, &prev, bounds) {
            return None;
        }
        for i in 1..nnz {
            let row: [I; N] = std::array::from_fn(|k| cols[k][i]);
            // The first level at which the row differs from the one before.
            let mut d = 0;
            while d < last && row[d] == prev[d] {
                d += 1;
            }
            if row[d] <= prev[d] || (d < last && !upper.open(d, i, &row, bounds)) {
                return None;
            }
            prev = row;
        }
    } else {
        let mut row: Vec<I> = cols.iter().map(|c| c[0]).collect();
        if !upper.open(0, 0, &row, bounds) {
            return None;
        }
        for i in 1..nnz {
            let mut d = 0;
            while d < last && cols[d][i] == cols[d][i - 1] {
                d += 1;
            }
            if cols[d][i] <= cols[d][i - 1] {
                return None;
            }
            if d < last {
                for (v, c) in row.iter_mut().zip(cols) {
                    *v = c[i];
                }
                if !upper.open(d, i, &row, bounds) {
                    return None;
                }
            }
        }
    }
    Some((upper.indices, upper.indptr))
}

/// The levels above the leaves as they are built: node indices and indptr (without the
/// closing entry) of each.
struct Upper<F> {
    indices: Vec<Vec<F>>,
    indptr: Vec<Vec<F>>,
}

impl<F: NativeIndex> Upper<F> {
    /// `levels` empty levels with room for `reserve` nodes each.
    fn new(levels: usize, reserve: usize) -> Self {
        Upper {
            indices: (0..levels).map(|_| Vec::with_capacity(reserve)).collect(),
            indptr: (0..levels).map(|_| Vec::with_capacity(reserve)).collect(),
        }
    }

    /// Opens a node at every level from `d` on for row `i`, whose coordinates are `row`:
    /// its index, checked against its bound in `bounds`, and where its children start
    /// (where the next level now ends, or row `i` for the last upper level). `false` when
    /// a coordinate is out of bounds.
    fn open<I: NativeIndex>(&mut self, d: usize, i: usize, row: &[I], bounds: &[I]) -> bool {
        let levels = self.indices.len();
        let Some(zero) = I::from_u64(0) else {
            return false;
        };
        for k in d..levels {
            let (Some(&v), Some(&b)) = (row.get(k), bounds.get(k)) else {
                return false;
            };
            if v < zero || v > b {
                return false;
            }
            let next = match self.indices.get(k + 1) {
                Some(below) => below.len(),
                None => i,
            };
            if let (Some(ix), Some(ptr)) = (self.indices.get_mut(k), self.indptr.get_mut(k)) {
                ix.push(F::usize_as(v.as_usize()));
                ptr.push(F::usize_as(next));
            }
        }
        true
    }
}

/// Gives back the reservation of levels much shorter than it (a level filling a quarter or
/// more keeps it rather than be copied).
fn trim<F>(levels: &mut [Vec<F>]) {
    for level in levels {
        if level.len() <= level.capacity() / 4 {
            level.shrink_to_fit();
        }
    }
}

/// The upper levels of a CSF tree ([`csf_upper`]) and its leaf level (the last column,
/// checked against its bound, and cast to `F` when `cast_leaves`; empty otherwise) over
/// all the rows, on several threads for large tables: the rows are cut where the first
/// coordinate changes into one run per thread, each run builds the upper levels of its
/// own subtrees and writes its share of the leaves in place, and the runs' upper levels
/// are joined, their pointers shifted by what the runs before hold.
#[allow(clippy::type_complexity)]
fn csf_levels<I: NativeIndex, F: NativeIndex>(
    cols: &[&[I]],
    bounds: &[I],
    cast_leaves: bool,
) -> Option<(Vec<Vec<F>>, Vec<Vec<F>>, Vec<F>)> {
    let upper = |c: &[&[I]], reserve: usize| match c.len() {
        2 => csf_upper::<I, F, 2>(c, bounds, reserve),
        3 => csf_upper::<I, F, 3>(c, bounds, reserve),
        4 => csf_upper::<I, F, 4>(c, bounds, reserve),
        _ => csf_upper::<I, F, 0>(c, bounds, reserve),
    };
    let first = *cols.first()?;
    let leaf_col = *cols.last()?;
    let leaf_bound = *bounds.last()?;
    let zero = I::from_u64(0)?;
    let nnz = first.len();
    if cols.len() < 2 || leaf_col.len() != nnz {
        return None;
    }
    let threads = super::table_threads(nnz);
    // Cuts: near every nnz / threads rows, moved on to the next change of the first
    // coordinate (each run then starts a node of the first level).
    let mut cuts = vec![0];
    for t in 1..threads {
        let from = (nnz / threads * t).max(cuts.last().map_or(0, |&c| c + 1));
        let Some(at) = first
            .get(from..)
            .and_then(|rest| rest.windows(2).position(|w| w.first() != w.get(1)))
        else {
            break;
        };
        let cut = from + at + 1;
        if cut < nnz {
            cuts.push(cut);
        }
    }
    cuts.push(nnz);
    // The first coordinate must increase across every cut (the runs check the rest).
    if cuts
        .iter()
        .skip(1)
        .take(cuts.len() - 2)
        .any(|&c| first.get(c) <= first.get(c - 1))
    {
        return None;
    }
    // Run p: its rows of every column, and the upper levels of its subtrees when its
    // leaves lie inside their bound. The first run reserves room for every row, so that
    // the later runs' levels append to its vectors in place.
    let run = |p: usize| {
        let (lo, hi) = (*cuts.get(p)?, *cuts.get(p + 1)?);
        let c: Vec<&[I]> = cols.iter().map(|c| c.get(lo..hi)).collect::<Option<_>>()?;
        let leaves = *c.last()?;
        // A fold without an early exit, which vectorises.
        let inside = leaves
            .iter()
            .fold(true, |ok, &v| ok & (v >= zero) & (v <= leaf_bound));
        let levels = if inside {
            upper(&c, if p == 0 { nnz } else { 0 })
        } else {
            None
        };
        Some((lo, leaves, levels?))
    };
    let (leaves, parts) = if cast_leaves {
        // The leaves cast straight into the result, each run writing its own rows.
        let (leaves, parts) = crate::parallel::fill::fill_parallel_with(
            nnz,
            &cuts,
            "building the CSF levels",
            |p, mut w| {
                let part = run(p);
                if let Some((_, run_leaves, _)) = &part {
                    w.extend(run_leaves.iter().map(|&v| F::usize_as(v.as_usize())));
                } else {
                    // Rows refused: the result is dropped, so any value completes the range.
                    w.fill_to(w.len(), F::usize_as(0));
                }
                Ok((w.finish()?, part.map(|(lo, _, levels)| (lo, levels))))
            },
        )
        .ok()?;
        (leaves, parts)
    } else {
        let parts = crate::parallel::run(
            cuts.len() - 1,
            (0..cuts.len() - 1).collect(),
            "building the CSF levels",
            |_, p| run(p).map(|(lo, _, levels)| (lo, levels)),
        )
        .ok()?;
        (Vec::new(), parts)
    };
    let last = cols.len() - 1;
    let mut parts = parts.into_iter();
    let (_, (mut indices, mut indptr)) = parts.next()??;
    for part in parts {
        let (lo, (part_indices, part_indptr)) = part?;
        for k in 0..last {
            // Pointers of level k point into level k + 1 (into the rows for the last).
            let shift = if k + 1 < last {
                indices.get(k + 1)?.len()
            } else {
                lo
            };
            indptr.get_mut(k)?.extend(
                part_indptr
                    .get(k)?
                    .iter()
                    .map(|&p| F::usize_as(p.as_usize() + shift)),
            );
        }
        for (k, ids) in part_indices.into_iter().enumerate() {
            indices.get_mut(k)?.extend(ids);
        }
    }
    trim(&mut indices);
    trim(&mut indptr);
    Some((indices, indptr, leaves))
}
