//! A CSF tensor straight from the columns of a COO table whose rows strictly increase in
//! row-major order: the levels of the tree built in one pass over the rows, on several
//! threads for large tables (runs cut where the first coordinate changes, then joined).

use super::scan::{rows_increase, within};
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
    crate::dispatch_signed!(f, F => csf_from_columns_as::<I, F>(table, info, it, vt, values), else None)
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
/// `N` is the rank when it is known at compile time (2 to 4: the rows are then checked and
/// the levels built block by block, [`Upper::open_blocks`]), or 0 for any rank (one row at
/// a time).
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
        // Each column cut to `nnz` rows (its length, checked above).
        let cols: [&[I]; N] = std::array::from_fn(|k| &cols[k][..nnz]);
        if !upper.open_blocks(cols, bounds) {
            return None;
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

impl<F: NativeIndex> Upper<F> {
    /// The upper levels of rows of rank `N` (`N - 1` levels), block by block of
    /// [`CSF_BLOCK_ROWS`] rows: each block's rows are checked inside `bounds` and strictly
    /// increasing (after the row before the block) by branch-free folds over its columns,
    /// then every level opens its nodes at the rows where the coordinates up to its own
    /// change. Those rows are found as bit masks of 64 rows, so the loop over rows has no
    /// branch per row. `false` when a row is out of bounds or out of order.
    fn open_blocks<I: NativeIndex, const N: usize>(
        &mut self,
        cols: [&[I]; N],
        bounds: &[I],
    ) -> bool {
        let rows = cols.first().map_or(0, |c| c.len());
        let levels = N - 1;
        if self.indices.len() != levels || bounds.len() != N {
            return false;
        }
        // Nodes opened so far at each level (the pointers of the level above count them).
        let mut opened = [0usize; N];
        let mut r0 = 0;
        while r0 < rows {
            let r1 = (r0 + CSF_BLOCK_ROWS).min(rows);
            let block = cols.map(|c| c.get(r0..r1).unwrap_or_default());
            let in_bounds = block
                .iter()
                .zip(bounds)
                .fold(true, |ok, (c, &last)| ok & within(c, last));
            let span = cols.map(|c| c.get(r0.saturating_sub(1)..r1).unwrap_or_default());
            if !(in_bounds && rows_increase(span)) {
                return false;
            }
            let mut m0 = r0;
            while m0 < r1 {
                let m1 = (m0 + 64).min(r1);
                // Bit j of `masks[k]`: row `m0 + j` opens a node at level k (a coordinate up
                // to k differs from the row before; the first row opens every level).
                let mut masks = [0u64; N];
                let mut changed = 0u64;
                for (mask, c) in masks.iter_mut().zip(cols).take(levels) {
                    changed |= if m0 == 0 {
                        (differ(c.get(1..m1), c.get(..m1 - 1)) << 1) | 1
                    } else {
                        differ(c.get(m0..m1), c.get(m0 - 1..m1 - 1))
                    };
                    *mask = changed;
                }
                for k in 0..levels {
                    let (Some(&mask), Some(c)) = (masks.get(k), cols.get(k)) else {
                        return false;
                    };
                    let below = masks.get(k + 1).copied().unwrap_or(0);
                    let base_below = opened.get(k + 1).copied().unwrap_or(0);
                    let (Some(ix), Some(ptr)) = (self.indices.get_mut(k), self.indptr.get_mut(k))
                    else {
                        return false;
                    };
                    let mut bits = mask;
                    while bits != 0 {
                        let j = bits.trailing_zeros();
                        let row = m0 + j as usize;
                        // The children start where the level below stands at this row (the
                        // row itself for the last upper level).
                        let next = if k + 1 < levels {
                            base_below + (below & ((1u64 << j) - 1)).count_ones() as usize
                        } else {
                            row
                        };
                        ix.push(F::usize_as(c.get(row).map_or(0, |v| v.as_usize())));
                        ptr.push(F::usize_as(next));
                        bits &= bits - 1;
                    }
                    if let Some(n) = opened.get_mut(k) {
                        *n += mask.count_ones() as usize;
                    }
                }
                m0 = m1;
            }
            r0 = r1;
        }
        true
    }
}

/// Rows per block of [`Upper::open_blocks`] (a multiple of 64): a block's columns stay in
/// L1 between its checks and the building of its levels.
const CSF_BLOCK_ROWS: usize = 4096;

/// Bit `j` set where `a[j] != b[j]` (up to 64 pairs; `None` counts as no pair). The
/// comparisons fill one byte per pair (a loop that vectorises), then each eight bytes
/// become eight bits ([`byte_bits`]).
fn differ<I: PartialEq>(a: Option<&[I]>, b: Option<&[I]>) -> u64 {
    let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
    let mut flags = [0u8; 64];
    for (f, (x, y)) in flags.iter_mut().zip(a.iter().zip(b)) {
        *f = u8::from(x != y);
    }
    flags
        .chunks_exact(8)
        .enumerate()
        .fold(0u64, |m, (g, bytes)| {
            let word = bytes.try_into().map_or(0, u64::from_le_bytes);
            m | (byte_bits(word) << (8 * g))
        })
}

/// The eight bytes of `word`, each 0 or 1, as eight bits (byte `i` to bit `i`): the
/// multiplication adds byte `i`, shifted by `7 * (7 - i) + 7`, into bit `56 + i`, and no
/// other product or carry reaches bits 56 to 63.
fn byte_bits(word: u64) -> u64 {
    word.wrapping_mul(0x0102_0408_1020_4080) >> 56
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
        let inside = within(leaves, leaf_bound);
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

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::{byte_bits, csf_upper, differ, CSF_BLOCK_ROWS};

    /// The block path (rank known at compile time) against the row-at-a-time path (rank 0)
    /// on rows in row-major order, with rows repeated, swapped or pushed out of bounds at
    /// random and at the edges of blocks and masks.
    fn check(cols: &[Vec<i16>], bounds: &[i16], case: usize) {
        let ndim = cols.len();
        let c: Vec<&[i16]> = cols.iter().map(Vec::as_slice).collect();
        let slow = csf_upper::<i16, i32, 0>(&c, bounds, 0);
        let fast = match ndim {
            2 => csf_upper::<i16, i32, 2>(&c, bounds, 0),
            3 => csf_upper::<i16, i32, 3>(&c, bounds, 0),
            _ => csf_upper::<i16, i32, 4>(&c, bounds, 0),
        };
        // The caller checks the leaves (which the row-at-a-time path leaves to it).
        let leaves_inside = cols[ndim - 1].iter().all(|&v| v <= bounds[ndim - 1]);
        if leaves_inside {
            assert_eq!(fast, slow, "case {case}: bounds {bounds:?}");
        } else {
            assert_eq!(fast, None, "case {case}");
        }
    }

    #[test]
    fn both_row_paths_build_the_same_levels() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m.max(1)
        };
        for case in 0..240 {
            let ndim = 2 + case % 3;
            let shape: Vec<u64> = (0..ndim)
                .map(|_| 1 + next(3) + next(3) * next(40))
                .collect();
            let cells: u64 = shape.iter().product();
            let rows = (next(3 * CSF_BLOCK_ROWS as u64) + 1).min(cells);
            let stride = (cells / rows).max(1);
            let mut cols: Vec<Vec<i16>> = vec![Vec::new(); ndim];
            for i in 0..rows {
                let mut rest = (i * stride + next(stride)) % cells;
                for d in (0..ndim).rev() {
                    cols[d].push((rest % shape[d]) as i16);
                    rest /= shape[d];
                }
            }
            let rows = rows as usize;
            let edges = [CSF_BLOCK_ROWS, 64, 128, next(rows as u64) as usize];
            for _ in 0..next(3) {
                let (d, at) = (next(ndim as u64) as usize, edges[next(4) as usize]);
                if at == 0 || at >= rows {
                    continue;
                }
                match next(3) {
                    0 => (0..ndim).for_each(|k| cols[k][at] = cols[k][at - 1]),
                    1 => (0..ndim).for_each(|k| cols[k].swap(at, at - 1)),
                    _ => cols[d][at] = shape[d] as i16,
                }
            }
            let bounds: Vec<i16> = shape.iter().map(|&n| n as i16 - 1).collect();
            check(&cols, &bounds, case);
            // A row repeated across a block's edge.
            if rows > CSF_BLOCK_ROWS {
                (0..ndim).for_each(|k| cols[k][CSF_BLOCK_ROWS] = cols[k][CSF_BLOCK_ROWS - 1]);
                check(&cols, &bounds, case);
            }
        }
    }

    #[test]
    fn byte_bits_gathers_every_pattern() {
        for bits in 0u64..256 {
            let word = (0..8).fold(0u64, |w, i| w | (((bits >> i) & 1) << (8 * i)));
            assert_eq!(byte_bits(word), bits, "{bits:08b}");
        }
    }

    #[test]
    fn differ_marks_every_differing_pair() {
        let a: Vec<u16> = (0..70).map(|i| (i * 7 % 5) as u16).collect();
        let b: Vec<u16> = (0..70).map(|i| (i * 3 % 4) as u16).collect();
        for len in [0, 1, 7, 8, 9, 63, 64, 70] {
            let want = (0..len.min(64)).fold(0u64, |m, j| m | (u64::from(a[j] != b[j]) << j));
            assert_eq!(differ(a.get(..len), b.get(..len)), want, "{len}");
        }
        assert_eq!(differ::<u16>(None, b.get(..9)), 0);
    }
}
