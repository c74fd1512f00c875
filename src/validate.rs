//! Validation of sparse tensor indices.
//!
//! Two levels:
//! - structure ([`check_structure`], always run, O(ndim)): counts and lengths of every
//!   array agree with the shape and nnz, CSF axis order is a permutation. This is all that
//!   memory safety needs: lookups, iteration and to-dense then check every index value they
//!   use and report bad ones as errors.
//! - contents ([`check_contents`], strict mode, O(index)): every rule of the seed layouts and
//!   the Arrow format on the index values: bounds, ordering, uniqueness, indptr structure.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::array::IndexArray;
use crate::error::{fail, BufferId, ErrorKind, Result};
use crate::sparse::csf::{common_type, levels};
use crate::sparse::{typed_index, CooIndex, CooOrder, CsfIndex, CsxIndex, SparseIndex};
use crate::types::{NativeIndex, ValueType};
use arrow_buffer::Buffer;

/// How thoroughly decoded messages are checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Validation {
    /// Every rule (the default): index values in bounds, sorted where the layout requires,
    /// no duplicates where forbidden, indptr arrays well formed.
    #[default]
    Strict,
    /// Only what memory safety needs (sizes and counts). Index values are checked when they
    /// are used, so lookups, iteration and to-dense may return errors instead.
    Permissive,
}

fn count(what: impl Into<String>, expected: usize, found: usize) -> Result<()> {
    if expected != found {
        return fail(ErrorKind::CountMismatch {
            what: what.into(),
            expected: expected as u64,
            found: found as u64,
        });
    }
    Ok(())
}

/// Checks that every array has the length the shape and nnz require.
pub(crate) fn check_structure(
    value_type: ValueType,
    shape: &[usize],
    values: &Buffer,
    index: &SparseIndex,
) -> Result<()> {
    let w = value_type.byte_width();
    if values.len() % w != 0 {
        return fail(ErrorKind::InvalidArgument(format!(
            "values buffer of {} bytes is not a whole number of {value_type} values",
            values.len()
        )));
    }
    let nnz = values.len() / w;
    let ndim = shape.len();
    match index {
        SparseIndex::Coo(c) => {
            count("COO index dimensions", ndim, c.ndim)?;
            count("COO entries (nnz)", nnz, c.nnz)?;
            let cells = nnz
                .checked_mul(ndim)
                .ok_or_else(|| ErrorKind::Overflow("COO nnz x ndim".into()))?;
            count("COO coordinates (nnz x ndim)", cells, c.indices.len())?;
        }
        SparseIndex::Csx(c) => {
            if ndim != 2 {
                return fail(ErrorKind::InvalidRank {
                    layout: "CSR/CSC",
                    needed: "rank 2",
                    rank: ndim,
                });
            }
            let outer = shape.get(c.axis.dim()).copied().unwrap_or(0);
            let n = outer
                .checked_add(1)
                .ok_or_else(|| ErrorKind::Overflow("indptr length".into()))?;
            count("CSX indptr entries (shape[axis] + 1)", n, c.indptr.len())?;
            count("CSX indices entries (nnz)", nnz, c.indices.len())?;
        }
        SparseIndex::Csf(c) => {
            if ndim < 2 {
                return fail(ErrorKind::InvalidRank {
                    layout: "CSF",
                    needed: "rank 2 or more",
                    rank: ndim,
                });
            }
            count("CSF axisOrder entries (ndim)", ndim, c.axis_order.len())?;
            count("CSF indptr arrays (ndim - 1)", ndim - 1, c.indptr.len())?;
            count("CSF indices arrays (ndim)", ndim, c.indices.len())?;
            let mut seen = vec![false; ndim];
            for &a in &c.axis_order {
                match seen.get_mut(a) {
                    Some(s) if !*s => *s = true,
                    _ => {
                        return fail(ErrorKind::NotAPermutation(
                            c.axis_order.iter().map(|&v| v as i64).collect(),
                        ))
                    }
                }
            }
            same_type("CSF indptr", &c.indptr)?;
            same_type("CSF indices", &c.indices)?;
            for (k, ptr) in c.indptr.iter().enumerate() {
                let parents = c.indices.get(k).map_or(0, IndexArray::len);
                count(
                    format!("CSF indptr entries of level {k} (nodes of level {k} + 1)"),
                    parents + 1,
                    ptr.len(),
                )?;
            }
            let leaves = c.indices.last().map_or(0, IndexArray::len);
            count("CSF leaf count (nnz)", nnz, leaves)?;
        }
    }
    Ok(())
}

fn same_type(what: &str, arrays: &[IndexArray]) -> Result<()> {
    let t = common_type(arrays);
    if let Some(a) = arrays.iter().find(|a| a.index_type() != t) {
        return fail(ErrorKind::TypeMismatch {
            expected: format!("{what} arrays all of type {t}"),
            found: a.index_type().to_string(),
        });
    }
    Ok(())
}

/// Checks every index value (strict mode). Assumes [`check_structure`] passed.
pub(crate) fn check_contents(shape: &[usize], index: &SparseIndex) -> Result<()> {
    match index {
        SparseIndex::Coo(c) => {
            crate::dispatch_index!(c.indices.index_type(), I => check_coo::<I>(c, shape))
        }
        SparseIndex::Csx(c) => crate::dispatch_index!(c.indptr.index_type(), P => {
            crate::dispatch_index!(c.indices.index_type(), I => check_csx::<P, I>(c, shape))
        }),
        SparseIndex::Csf(c) => crate::dispatch_index!(common_type(&c.indptr), P => {
            crate::dispatch_index!(common_type(&c.indices), I => check_csf::<P, I>(c, shape))
        }),
    }
}

#[inline]
fn out_of_bounds(
    buffer: BufferId,
    position: usize,
    value: i64,
    dim: usize,
    bound: usize,
) -> crate::Error {
    ErrorKind::IndexOutOfBounds {
        buffer,
        position: position as u64,
        value,
        dim,
        bound: bound as u64,
    }
    .into()
}

/// Checks that every value of `s` is in `0..bound` (one pass, no early branch per element).
#[inline]
fn check_bounds<I: NativeIndex>(s: &[I], bound: usize, dim: usize, buffer: BufferId) -> Result<()> {
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
fn all_below<I: NativeIndex>(s: &[I], bound: u64) -> bool {
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

fn check_coo<I: NativeIndex>(c: &CooIndex, shape: &[usize]) -> Result<()> {
    let s = typed_index::<I>(&c.indices)?;
    let (nnz, ndim) = (c.nnz, c.ndim);
    // Row-major: whether the fused scan found the rows strictly increasing.
    let mut sorted_known = false;
    match c.order {
        CooOrder::RowMajor => {
            let (in_bounds, increasing) = coo_row_major_scan(s, shape, c.is_canonical);
            sorted_known = increasing;
            if ndim > 0 && !in_bounds {
                for (i, row) in s.chunks_exact(ndim).enumerate() {
                    for (d, (&v, &bound)) in row.iter().zip(shape).enumerate() {
                        if v.as_index() as u64 >= bound as u64 {
                            return Err(out_of_bounds(
                                BufferId::CooIndices,
                                i * ndim + d,
                                v.as_index(),
                                d,
                                bound,
                            ));
                        }
                    }
                }
            }
        }
        CooOrder::ColumnMajor => {
            for (d, &bound) in shape.iter().enumerate() {
                let col = s.get(d * nnz..(d + 1) * nnz).unwrap_or_default();
                check_bounds(col, bound, d, BufferId::CooIndices)
                    .map_err(|e| shift_position(e, d * nnz))?;
            }
        }
    }
    if c.is_canonical && !sorted_known {
        if let Some(i) = crate::sparse::coo::first_unsorted(s, nnz, ndim, c.order) {
            return fail(ErrorKind::NotIncreasing {
                buffer: BufferId::CooIndices,
                position: i as u64,
                rule: "isCanonical requires strictly increasing row-major coordinates",
            });
        }
    }
    Ok(())
}

fn shift_position(e: crate::Error, by: usize) -> crate::Error {
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

/// indptr rules shared by CSX and CSF: starts at 0, non-decreasing, ends at `end`.
fn check_indptr<P: NativeIndex>(p: &[P], end: usize, buffer: BufferId) -> Result<()> {
    let first = p.first().map_or(0, |v| v.as_index());
    if first != 0 {
        return fail(ErrorKind::InvalidIndptr {
            buffer,
            position: 0,
            value: first,
            rule: "indptr must start at 0",
        });
    }
    let decreasing = p
        .iter()
        .zip(p.get(1..).unwrap_or_default())
        .fold(false, |bad, (a, b)| bad | (a > b));
    if let Some(k) = p
        .windows(2)
        .position(|w| matches!(w, [a, b] if a > b))
        .filter(|_| decreasing)
    {
        return fail(ErrorKind::InvalidIndptr {
            buffer,
            position: k as u64 + 1,
            value: p.get(k + 1).map_or(0, |v| v.as_index()),
            rule: "indptr must be non-decreasing",
        });
    }
    let last = p.last().map_or(0, |v| v.as_index());
    if last != end as i64 {
        return fail(ErrorKind::InvalidIndptr {
            buffer,
            position: p.len().saturating_sub(1) as u64,
            value: last,
            rule: "indptr must end at the number of entries it delimits",
        });
    }
    Ok(())
}

/// Within every slice `p[k]..p[k+1]` of `s`, values strictly increase. Assumes `p` valid;
/// `scan` is what [`scan_values`] found in `s` with `p`.
fn check_sorted_slices<P: NativeIndex, I: NativeIndex>(
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

fn check_csx<P: NativeIndex, I: NativeIndex>(c: &CsxIndex, shape: &[usize]) -> Result<()> {
    let indptr = typed_index::<P>(&c.indptr)?;
    let indices = typed_index::<I>(&c.indices)?;
    check_indptr(indptr, indices.len(), BufferId::CsxIndptr)?;
    let inner = 1 - c.axis.dim();
    let bound = dim_size(shape, inner);
    let scan = scan_values(indices, bound as u64, indptr);
    if !scan.in_bounds {
        check_bounds(indices, bound, inner, BufferId::CsxIndices)?;
    }
    check_sorted_slices(
        indptr,
        indices,
        &scan,
        BufferId::CsxIndices,
        "indices must strictly increase within a row (column)",
    )
}

fn check_csf<P: NativeIndex, I: NativeIndex>(c: &CsfIndex, shape: &[usize]) -> Result<()> {
    let lv = levels::<P, I>(c)?;
    // Per level, in one pass: in bounds, non-increasing pairs, those at the boundaries of
    // the level's slices (level k + 1 is sliced by indptr[k]; the root is one slice).
    let mut scans = Vec::with_capacity(lv.indices.len());
    for (level, s) in lv.indices.iter().enumerate() {
        let dim = c.axis_order.get(level).copied().unwrap_or(usize::MAX);
        let bound = dim_size(shape, dim);
        let p = level
            .checked_sub(1)
            .and_then(|k| lv.indptr.get(k))
            .copied()
            .unwrap_or_default();
        let scan = scan_values(s, bound as u64, p);
        if !scan.in_bounds {
            check_bounds(s, bound, dim, BufferId::CsfIndices(level))?;
        }
        scans.push(scan);
    }
    for (level, p) in lv.indptr.iter().enumerate() {
        check_indptr(
            p,
            level_len(&lv.indices, level + 1),
            BufferId::CsfIndptr(level),
        )?;
    }
    // Siblings strictly increase: level 0 is one slice, level k + 1 is sliced by indptr[k].
    let rule = "sibling coordinates must strictly increase";
    // The root level is one slice (no indptr): check it directly, since its length need not
    // fit in the indptr type.
    if let Some(k) = lv
        .indices
        .first()
        .filter(|_| scans.first().is_some_and(|scan| scan.pairs > 0))
        .and_then(|s| first_not_increasing(s))
    {
        return fail(ErrorKind::NotIncreasing {
            buffer: BufferId::CsfIndices(0),
            position: (k + 1) as u64,
            rule,
        });
    }
    let none = Scan {
        in_bounds: true,
        pairs: 0,
        at_boundaries: 0,
    };
    for (level, p) in lv.indptr.iter().enumerate() {
        check_sorted_slices(
            p,
            lv.indices.get(level + 1).copied().unwrap_or_default(),
            scans.get(level + 1).unwrap_or(&none),
            BufferId::CsfIndices(level + 1),
            rule,
        )?;
    }
    Ok(())
}

/// Position of the first entry not strictly greater than its predecessor.
fn first_not_increasing<T: PartialOrd>(s: &[T]) -> Option<usize> {
    s.windows(2).position(|w| matches!(w, [a, b] if a >= b))
}

fn dim_size(shape: &[usize], dim: usize) -> usize {
    shape.get(dim).copied().unwrap_or(0)
}

fn level_len<I>(levels: &[&[I]], level: usize) -> usize {
    levels.get(level).map_or(0, |s| s.len())
}

// Fast paths. Each answers "is everything valid?" with branch-free passes that the compiler
// vectorizes (no early exit per element); only when the answer is no do the callers run
// their slower loops that locate the first culprit for the error message.

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

/// Elements per block of the fused COO scan: a block (16 KiB) stays in L1 between the
/// passes over it, so the index data is read from memory once.
fn block_len<I>() -> usize {
    ((16 << 10) / std::mem::size_of::<I>().max(1)).max(64)
}

/// What one read of an index array found ([`scan_values`]).
struct Scan {
    /// Every value in `0..bound`.
    in_bounds: bool,
    /// Adjacent pairs that do not strictly increase.
    pairs: usize,
    /// Those of them that straddle a slice boundary of the indptr given.
    at_boundaries: usize,
}

impl Scan {
    /// Every slice strictly increasing (for an indptr already checked: starts at 0,
    /// non-decreasing, ends at the array's length): every non-increasing pair straddles a
    /// slice boundary.
    fn slices_increasing(&self) -> bool {
        self.pairs == self.at_boundaries
    }
}

/// One read of `s`, block by block ([`NativeIndex::scan_block`]): whether every value is
/// in `0..bound`, how many adjacent pairs do not strictly increase, and how many of those
/// sit at a boundary `b` of the slices that `p` delimits (the pair `b - 1, b`, for each
/// distinct `0 < b < s.len()`), counted while the block holding them is in cache. The
/// boundary count is meaningful only for an indptr `p` that passes [`check_indptr`]; any
/// other `p` is read safely and its count ignored by the callers.
fn scan_values<P: NativeIndex, I: NativeIndex>(s: &[I], bound: u64, p: &[P]) -> Scan {
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
    let mut scan = Scan {
        in_bounds: true,
        pairs: 0,
        at_boundaries: 0,
    };
    let (mut j, mut prev_b) = (0usize, 0usize);
    let mut start = 0;
    while start < s.len() {
        let end = (start + crate::types::SCAN_BLOCK).min(s.len());
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

/// One read of row-major COO rows: whether they are all in bounds, and (when `sorted` is
/// asked for) whether they strictly increase, as decided by [`rows_increasing`] (`false`
/// also when that fast path does not apply).
fn coo_row_major_scan<I: NativeIndex>(s: &[I], shape: &[usize], sorted: bool) -> (bool, bool) {
    let ndim = shape.len();
    if ndim == 0 {
        return (true, false);
    }
    let template = coo_row_template::<I>(shape).unwrap_or_default();
    let rows = (block_len::<I>() / ndim).next_multiple_of(64);
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

/// Number of adjacent pairs `s[k] >= s[k + 1]`.
fn non_increasing_pairs<I: PartialOrd>(s: &[I]) -> usize {
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
