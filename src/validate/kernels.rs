//! Slice-level validation kernels, shared by the layouts' rules.
//!
//! Each fast path answers "is everything valid?" with branch-free passes that the compiler
//! vectorizes (no early exit per element), block by block so that the data is read from
//! memory once; only when the answer is no do the callers run the slower loops here that
//! locate the first culprit for the error message.

use crate::error::{fail, BufferId, Error, ErrorKind, Result};
use crate::types::{NativeIndex, SCAN_BLOCK};

/// Fails with [`ErrorKind::CountMismatch`] unless `expected == found`.
pub(crate) fn count(what: impl Into<String>, expected: usize, found: usize) -> Result<()> {
    if expected != found {
        return fail(ErrorKind::CountMismatch {
            what: what.into(),
            expected: expected as u64,
            found: found as u64,
        });
    }
    Ok(())
}

/// The size of dimension `dim` (0 for a dimension the shape does not have).
pub(crate) fn dim_size(shape: &[usize], dim: usize) -> usize {
    shape.get(dim).copied().unwrap_or(0)
}

/// The error of `value`, at `position` in `buffer`, outside `0..bound` of dimension `dim`.
#[inline]
pub(crate) fn out_of_bounds(
    buffer: BufferId,
    position: usize,
    value: i64,
    dim: usize,
    bound: usize,
) -> Error {
    ErrorKind::IndexOutOfBounds {
        buffer,
        position: position as u64,
        value,
        dim,
        bound: bound as u64,
    }
    .into()
}

/// Moves the position of an [`ErrorKind::IndexOutOfBounds`] forward by `by` (for a check
/// run on a part of a buffer); other errors pass unchanged.
pub(crate) fn shift_position(e: Error, by: usize) -> Error {
    match e.into_kind() {
        ErrorKind::IndexOutOfBounds {
            buffer,
            position,
            value,
            dim,
            bound,
        } => ErrorKind::IndexOutOfBounds {
            buffer,
            position: position + by as u64,
            value,
            dim,
            bound,
        }
        .into(),
        k => k.into(),
    }
}

/// Checks that every value of `s` is in `0..bound`: one pass ([`all_below`]), then, only
/// when it fails, a search for the first value outside, reported as an
/// [`ErrorKind::IndexOutOfBounds`] of dimension `dim` at its position in `s`.
#[inline]
pub(crate) fn check_bounds<I: NativeIndex>(
    s: &[I],
    bound: usize,
    dim: usize,
    buffer: BufferId,
) -> Result<()> {
    if !all_below(s, bound as u64) {
        if let Some((p, v)) = s
            .iter()
            .enumerate()
            .find(|(_, v)| v.as_index() as u64 >= bound as u64)
        {
            return Err(out_of_bounds(buffer, p, v.as_index(), dim, bound));
        }
    }
    Ok(())
}

/// Whether every value of `s` is in `0..bound`, compared in the index type's own width (a
/// vectorizable fold: widening to 64 bits first halves the lanes and, on baseline x86-64,
/// has no vector compare at all).
#[inline]
pub(crate) fn all_below<I: NativeIndex>(s: &[I], bound: u64) -> bool {
    let Some(zero) = I::from_u64(0) else {
        return false;
    };
    if bound == 0 {
        return s.is_empty();
    }
    // Largest valid value, clamped to the type's maximum.
    let last = I::from_u64((bound - 1).min(I::TYPE.max_value())).unwrap_or(zero);
    !s.iter()
        .fold(false, |bad, &v| bad | (v < zero) | (v > last))
}

/// Position of the first entry not strictly greater than its predecessor.
pub(crate) fn first_not_increasing<T: PartialOrd>(s: &[T]) -> Option<usize> {
    s.windows(2).position(|w| matches!(w, [a, b] if a >= b))
}

/// Number of adjacent pairs `s[k] >= s[k + 1]`.
pub(crate) fn non_increasing_pairs<I: PartialOrd>(s: &[I]) -> usize {
    s.iter()
        .zip(s.get(1..).unwrap_or_default())
        .fold(0usize, |n, (a, b)| n + usize::from(a >= b))
}

/// The non-increasing pairs `b - 1, b` of `s` at the distinct boundaries `0 < b < s.len()`
/// of `p` (the slow companion of [`scan_values`]).
fn boundary_pairs<P: NativeIndex, I: NativeIndex>(p: &[P], s: &[I]) -> usize {
    let mut at_boundaries = 0usize;
    let mut last = 0usize;
    for v in p {
        let b = usize::try_from(v.as_index()).unwrap_or(usize::MAX);
        if b != last && b < s.len() {
            if let (Some(x), Some(y)) = (b.checked_sub(1).and_then(|a| s.get(a)), s.get(b)) {
                at_boundaries += usize::from(x >= y);
            }
        }
        last = b;
    }
    at_boundaries
}

/// What one read of an index array found ([`scan_values`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Scan {
    /// Every value in `0..bound`.
    pub in_bounds: bool,
    /// Adjacent pairs that do not strictly increase.
    pub pairs: usize,
    /// Those of them that straddle a slice boundary of the indptr given.
    pub at_boundaries: usize,
}

impl Scan {
    /// What the scan of an array without values or pairs finds: valid, no pairs.
    pub const EMPTY: Scan = Scan {
        in_bounds: true,
        pairs: 0,
        at_boundaries: 0,
    };

    /// Every slice strictly increasing (for an indptr already checked: starts at 0,
    /// non-decreasing, ends at the array's length): every non-increasing pair straddles a
    /// slice boundary.
    pub fn slices_increasing(&self) -> bool {
        self.pairs == self.at_boundaries
    }
}

/// One read of `s`, block by block of [`SCAN_BLOCK`] values ([`NativeIndex::scan_block`]):
/// whether every value is in `0..bound`, how many adjacent pairs do not strictly increase,
/// and how many of those sit at a boundary `b` of the slices that `p` delimits (the pair
/// `b - 1, b`, for each distinct `0 < b < s.len()`), counted while the block holding them
/// is in cache. The boundary count is meaningful only for an indptr `p` that passes
/// [`super::indptr::check_indptr`]; any other `p` is read safely and its count ignored by
/// the callers.
pub(crate) fn scan_values<P: NativeIndex, I: NativeIndex>(s: &[I], bound: u64, p: &[P]) -> Scan {
    let last = bound
        .checked_sub(1)
        .and_then(|b| I::from_u64(b.min(I::TYPE.max_value())));
    let Some(last) = last else {
        // Nothing is in bounds (an empty dimension): no fast path needed.
        return Scan {
            in_bounds: s.is_empty(),
            pairs: non_increasing_pairs(s),
            at_boundaries: boundary_pairs(p, s),
        };
    };
    let mut scan = Scan::EMPTY;
    let (mut j, mut prev_b) = (0usize, 0usize);
    let mut start = 0;
    while start < s.len() {
        let end = (start + SCAN_BLOCK).min(s.len());
        // The block and the value before it: the first pair straddles the previous block.
        let from = start.saturating_sub(1);
        let (above, n) = I::scan_block(s.get(from..end).unwrap_or_default(), last);
        scan.in_bounds &= !above;
        scan.pairs += n;
        // The boundaries that fall in this block.
        while let Some(v) = p.get(j) {
            let b = usize::try_from(v.as_index()).unwrap_or(usize::MAX);
            if b >= end {
                break;
            }
            if b != prev_b {
                if let (Some(x), Some(y)) = (b.checked_sub(1).and_then(|a| s.get(a)), s.get(b)) {
                    scan.at_boundaries += usize::from(x >= y);
                }
            }
            prev_b = b;
            j += 1;
        }
        start = end;
    }
    scan
}

/// Within every slice `p[k]..p[k+1]` of `s`, values strictly increase; the first entry that
/// does not is reported as [`ErrorKind::NotIncreasing`] at its position in `s`. Assumes
/// `p` valid; `scan` is what [`scan_values`] found in `s` with `p`, and when it shows every
/// slice increasing, the slices are not read again.
pub(crate) fn check_sorted_slices<P: NativeIndex, I: NativeIndex>(
    p: &[P],
    s: &[I],
    scan: &Scan,
    buffer: BufferId,
    rule: &'static str,
) -> Result<()> {
    if scan.slices_increasing() {
        return Ok(());
    }
    for w in p.windows(2) {
        let [a, b] = w else { continue };
        let (a, b) = (a.as_index() as usize, b.as_index() as usize);
        let slice = s.get(a..b).unwrap_or_default();
        if let Some(k) = first_not_increasing(slice) {
            return fail(ErrorKind::NotIncreasing {
                buffer,
                position: (a + k + 1) as u64,
                rule,
            });
        }
    }
    Ok(())
}

// Row-major COO coordinates: `s` holds whole rows of `shape.len()` coordinates.

/// Elements per block of the fused COO scan ([`coo_row_major_scan`]): a block (16 KiB)
/// stays in L1 between the passes over it, so the index data is read from memory once.
pub(crate) fn block_len<I>() -> usize {
    ((16 << 10) / std::mem::size_of::<I>().max(1)).max(64)
}

/// Rows per block of [`coo_row_major_scan`] for rank `ndim > 0`: [`block_len`] elements
/// rounded up to a multiple of the 64 rows of a [`coo_row_template`].
pub(crate) fn coo_block_rows<I>(ndim: usize) -> usize {
    (block_len::<I>() / ndim.max(1)).next_multiple_of(64)
}

/// The largest valid value of every dimension repeated to a block of 64 whole rows
/// (`None` when a dimension is empty, or for rank 0).
fn coo_row_template<I: NativeIndex>(shape: &[usize]) -> Option<Vec<I>> {
    if shape.is_empty() || shape.contains(&0) {
        return None;
    }
    let max = I::TYPE.max_value();
    let lasts: Option<Vec<I>> = shape
        .iter()
        .map(|&d| I::from_u64((d as u64 - 1).min(max)))
        .collect();
    Some(
        lasts?
            .iter()
            .copied()
            .cycle()
            .take(64 * shape.len())
            .collect(),
    )
}

/// Row-major COO coordinates (whole rows) all below their dimension's size, checked
/// against a [`coo_row_template`]: an element-wise comparison of two slices in the index
/// type's own width.
fn coo_rows_in_bounds<I: NativeIndex>(s: &[I], template: &[I]) -> bool {
    let Some(zero) = I::from_u64(0) else {
        return false;
    };
    if template.is_empty() {
        return s.is_empty();
    }
    let over = |bad: bool, (v, last): (&I, &I)| bad | (*v < zero) | (v > last);
    let mut chunks = s.chunks_exact(template.len());
    let mut bad = false;
    for chunk in &mut chunks {
        bad |= chunk.iter().zip(template).fold(false, over);
    }
    bad |= chunks.remainder().iter().zip(template).fold(false, over);
    !bad
}

/// Row-major COO rows (already checked in bounds) strictly increasing lexicographically:
/// for ranks 2 to 4 whose cell count fits in `u64`, the row-major linear positions of
/// consecutive rows strictly increase (one pass, no branch per row); `false` (use the slow
/// path) otherwise.
fn rows_increasing<I: NativeIndex>(s: &[I], shape: &[usize]) -> bool {
    match shape.len() {
        // Rank 0: nnz is not in `s` (every entry is the one cell): the slow path decides.
        0 => false,
        1 => non_increasing_pairs(s) == 0,
        2 => rows_increasing_n::<I, 2>(s, shape),
        3 => rows_increasing_n::<I, 3>(s, shape),
        4 => rows_increasing_n::<I, 4>(s, shape),
        _ => false,
    }
}

/// [`rows_increasing`] for rank `N`.
fn rows_increasing_n<I: NativeIndex, const N: usize>(s: &[I], shape: &[usize]) -> bool {
    // Bail out when the cell count overflows u64.
    let mut dims = [0u64; N];
    let mut cells = 1u64;
    for (slot, &n) in dims.iter_mut().zip(shape) {
        *slot = n as u64;
        match cells.checked_mul(n as u64) {
            Some(c) => cells = c,
            None => return false,
        }
    }
    // Row-major linear position (Horner), exact for in-bounds rows.
    let key = |row: &[I]| -> u64 {
        let mut k = 0u64;
        for (v, &n) in row.iter().zip(&dims) {
            k = k.wrapping_mul(n).wrapping_add(v.as_index() as u64);
        }
        k
    };
    let mut rows = s.chunks_exact(N);
    let Some(first) = rows.next() else {
        return true;
    };
    let mut prev = key(first);
    let mut bad = false;
    for row in rows {
        let k = key(row);
        bad |= k <= prev;
        prev = k;
    }
    !bad
}

/// One read of row-major COO rows, block by block of [`coo_block_rows`] rows: whether they
/// are all in bounds, and (when `sorted` is asked for) whether they strictly increase, as
/// decided by [`rows_increasing`] (`false` also when that fast path does not apply). The
/// second answer is meaningful only when the first is `true`.
pub(crate) fn coo_row_major_scan<I: NativeIndex>(
    s: &[I],
    shape: &[usize],
    sorted: bool,
) -> (bool, bool) {
    let ndim = shape.len();
    if ndim == 0 {
        return (true, false);
    }
    let template = coo_row_template::<I>(shape).unwrap_or_default();
    let rows = coo_block_rows::<I>(ndim);
    let check_sorted = sorted && ndim <= 4;
    let (mut in_bounds, mut increasing) = (true, check_sorted);
    let total = s.len() / ndim;
    let mut r0 = 0;
    while r0 < total {
        let r1 = (r0 + rows).min(total);
        in_bounds &= coo_rows_in_bounds(s.get(r0 * ndim..r1 * ndim).unwrap_or_default(), &template);
        if check_sorted {
            // Rows ending in this block (the first pair straddles the previous block).
            let from = r0.saturating_sub(1) * ndim;
            increasing &= rows_increasing(s.get(from..r1 * ndim).unwrap_or_default(), shape);
        }
        r0 = r1;
    }
    if s.is_empty() {
        in_bounds = coo_rows_in_bounds(s, &template);
        increasing = check_sorted && rows_increasing(s, shape);
    }
    (in_bounds, increasing)
}

/// The first coordinate of row-major COO rows outside its dimension, in buffer order, as
/// an [`ErrorKind::IndexOutOfBounds`] (the slow companion of [`coo_row_major_scan`]).
pub(crate) fn check_rows_in_bounds<I: NativeIndex>(
    s: &[I],
    shape: &[usize],
    buffer: BufferId,
) -> Result<()> {
    let ndim = shape.len();
    if ndim == 0 {
        return Ok(());
    }
    for (i, row) in s.chunks_exact(ndim).enumerate() {
        for (d, (&v, &bound)) in row.iter().zip(shape).enumerate() {
            if v.as_index() as u64 >= bound as u64 {
                return Err(out_of_bounds(buffer, i * ndim + d, v.as_index(), d, bound));
            }
        }
    }
    Ok(())
}
