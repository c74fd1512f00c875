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
    // The leaf level is the last column as it is when its type is the result's, else
    // cast in the pass over the rows (every value is checked against its bound first).
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

/// The levels of a CSF tree in the identity axis order from coordinate columns whose rows
/// strictly increase in row-major order and lie inside `bounds` (the largest coordinate of
/// each dimension): for every level but the last, its node indices and its indptr without
/// the closing entry; and the leaf level cast to `F` when `cast_leaves`. `None` when a row
/// does not increase or a coordinate is out of bounds. `N` is the rank when it is known
/// at compile time (the loops over levels then unroll), or 0 for any rank.
// Every row index is below the rows of every column (checked first), every level below the
// rank, the number of columns and bounds (checked first): the indexing stays in bounds.
#[allow(clippy::indexing_slicing, clippy::type_complexity)]
fn csf_rows<I: NativeIndex, F: NativeIndex, const N: usize>(
    cols: &[&[I]],
    bounds: &[I],
    cast_leaves: bool,
    reserve: usize,
) -> Option<(Vec<Vec<F>>, Vec<Vec<F>>, Vec<F>)> {
    let ndim = if N > 0 { N } else { cols.len() };
    let nnz = cols.first().map_or(0, |c| c.len());
    if ndim == 0
        || cols.len() != ndim
        || bounds.len() != ndim
        || cols.iter().any(|c| c.len() != nnz)
    {
        return None;
    }
    let last = ndim - 1;
    let zero = I::from_u64(0)?;
    // A level holds at most one node per row: room for `reserve` rows (address space,
    // touched only as the level grows) spares the copies of growing vectors.
    let reserve = reserve.max(nnz);
    let mut leaves: Vec<F> = Vec::with_capacity(if cast_leaves { reserve } else { 0 });
    let mut indices: Vec<Vec<F>> = (0..last).map(|_| Vec::with_capacity(reserve)).collect();
    let mut indptr: Vec<Vec<F>> = (0..last).map(|_| Vec::with_capacity(reserve)).collect();
    for i in 0..nnz {
        // The first level at which row i differs from row i - 1 (0 for the first row).
        let mut d = 0;
        if i > 0 {
            while d < last && cols[d][i] == cols[d][i - 1] {
                d += 1;
            }
            if cols[d][i] <= cols[d][i - 1] {
                return None;
            }
        }
        for k in d..last {
            let v = cols[k][i];
            if v < zero || v > bounds[k] {
                return None;
            }
            indices[k].push(F::usize_as(v.as_usize()));
            // The new node's children start where the next level now ends.
            let next = if k + 1 < last {
                indices[k + 1].len()
            } else {
                i
            };
            indptr[k].push(F::usize_as(next));
        }
        let leaf = cols[last][i];
        if leaf < zero || leaf > bounds[last] {
            return None;
        }
        if cast_leaves {
            leaves.push(F::usize_as(leaf.as_usize()));
        }
    }
    Some((indices, indptr, leaves))
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

/// [`csf_rows`] over all the rows, on several threads for large tables: the rows are cut
/// where the first coordinate changes into one run per thread, each run builds the levels
/// of its own subtrees, and the runs' levels are joined, their pointers shifted by what the
/// runs before hold.
#[allow(clippy::type_complexity)]
fn csf_levels<I: NativeIndex, F: NativeIndex>(
    cols: &[&[I]],
    bounds: &[I],
    cast_leaves: bool,
) -> Option<(Vec<Vec<F>>, Vec<Vec<F>>, Vec<F>)> {
    let rows = |c: &[&[I]], reserve: usize| match c.len() {
        2 => csf_rows::<I, F, 2>(c, bounds, cast_leaves, reserve),
        3 => csf_rows::<I, F, 3>(c, bounds, cast_leaves, reserve),
        _ => csf_rows::<I, F, 0>(c, bounds, cast_leaves, reserve),
    };
    let first = *cols.first()?;
    let nnz = first.len();
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
    if cuts.len() <= 2 {
        let (mut indices, mut indptr, leaves) = rows(cols, nnz)?;
        trim(&mut indices);
        trim(&mut indptr);
        return Some((indices, indptr, leaves));
    }
    // The first coordinate must increase across every cut (the runs check the rest).
    if cuts
        .iter()
        .skip(1)
        .take(cuts.len() - 2)
        .any(|&c| first.get(c) <= first.get(c - 1))
    {
        return None;
    }
    let runs: Vec<(usize, Vec<&[I]>)> = cuts
        .windows(2)
        .map(|w| {
            let (lo, hi) = (
                w.first().copied().unwrap_or(0),
                w.get(1).copied().unwrap_or(0),
            );
            (
                lo,
                cols.iter()
                    .map(|c| c.get(lo..hi).unwrap_or_default())
                    .collect(),
            )
        })
        .collect();
    // The first run reserves room for every row, so that the later runs' levels append to
    // its vectors in place.
    let parts = crate::parallel::run(runs.len(), runs, "building the CSF levels", |_, (lo, c)| {
        rows(&c, if lo == 0 { nnz } else { 0 }).map(|levels| (lo, levels))
    })
    .ok()?;
    let last = cols.len() - 1;
    let mut parts = parts.into_iter();
    let (_, (mut indices, mut indptr, mut leaves)) = parts.next()??;
    for part in parts {
        let (lo, (part_indices, part_indptr, part_leaves)) = part?;
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
        leaves.extend(part_leaves);
    }
    trim(&mut indices);
    trim(&mut indptr);
    Some((indices, indptr, leaves))
}
