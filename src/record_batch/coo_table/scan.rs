//! Strict validation's row scan on the coordinate columns of a COO table: whether every
//! coordinate lies inside the shape and whether the rows strictly increase in row-major
//! order, decided in the columns' own type with branch-free folds, block by block.

use crate::NativeIndex;

/// What the row scan compares the coordinates of rank `N` against, in the columns' type.
pub(super) struct ColumnBounds<I, const N: usize> {
    /// The largest valid coordinate of each dimension (capped at the type's maximum);
    /// `None` when a dimension is empty, so that no row is in bounds.
    lasts: Option<[I; N]>,
    /// Whether the rows' order is decided, as [`crate::validate::kernels::coo_row_major_scan`]
    /// decides it: only when the shape's cell count fits in `u64` (else the rows count as
    /// not increasing, and strict validation's slow path decides).
    pub(super) ordered: bool,
}

impl<I: NativeIndex, const N: usize> ColumnBounds<I, N> {
    /// The bounds of `shape` (of rank `N`; another rank has no row in bounds).
    pub(super) fn new(shape: &[usize]) -> Self {
        let max = I::TYPE.max_value();
        let mut lasts = [I::default(); N];
        let mut nonempty = shape.len() == N;
        for (slot, &d) in lasts.iter_mut().zip(shape) {
            match (d as u64)
                .checked_sub(1)
                .and_then(|l| I::from_u64(l.min(max)))
            {
                Some(l) => *slot = l,
                None => nonempty = false,
            }
        }
        let ordered = shape
            .iter()
            .try_fold(1u64, |cells, &d| cells.checked_mul(d as u64))
            .is_some();
        Self {
            lasts: nonempty.then_some(lasts),
            ordered,
        }
    }
}

/// Strict validation's row scan on the columns of a block of rank `N` (1 to 4): whether
/// every coordinate of `block` lies in its dimension, and whether the rows of `span` (the
/// block's rows, after the row before the block when there is one) strictly increase in
/// row-major order. Both are branch-free folds in the columns' own type.
#[inline(always)]
pub(super) fn scan_columns<I: NativeIndex, const N: usize>(
    bounds: &ColumnBounds<I, N>,
    block: [&[I]; N],
    span: [&[I]; N],
) -> (bool, bool) {
    let Some(lasts) = &bounds.lasts else {
        return (block.iter().all(|c| c.is_empty()), false);
    };
    let in_bounds = block
        .iter()
        .zip(lasts)
        .fold(true, |ok, (c, &last)| ok & within(c, last));
    let increasing = bounds.ordered && rows_increase(span);
    (in_bounds, increasing)
}

/// Every value of `c` lies in `0..=last` (a fold without an early exit, which vectorises).
#[inline(always)]
pub(super) fn within<I: NativeIndex>(c: &[I], last: I) -> bool {
    let zero = I::default();
    !c.iter()
        .fold(false, |bad, &v| bad | (v < zero) | (v > last))
}

/// The pairs of adjacent values of `c`.
fn pairs<I>(c: &[I]) -> std::iter::Zip<std::slice::Iter<'_, I>, std::slice::Iter<'_, I>> {
    c.iter().zip(c.get(1..).unwrap_or_default())
}

/// The rows of rank `N` (1 to 4) held by `cols` strictly increase lexicographically
/// (row-major order). Each pair of rows compares the last dimension, then lets each
/// dimension before it decide where it differs.
#[inline(always)]
pub(super) fn rows_increase<I: NativeIndex, const N: usize>(cols: [&[I]; N]) -> bool {
    let step = |gt: bool, (p, v): (&I, &I)| (v > p) | ((v == p) & gt);
    match *cols.as_slice() {
        [a] => !pairs(a).fold(false, |bad, (p, v)| bad | (v <= p)),
        [a, b] => !pairs(a)
            .zip(pairs(b))
            .fold(false, |bad, (x, y)| bad | !step(step(false, y), x)),
        [a, b, c] => !pairs(a)
            .zip(pairs(b))
            .zip(pairs(c))
            .fold(false, |bad, ((x, y), z)| {
                bad | !step(step(step(false, z), y), x)
            }),
        [a, b, c, d] => !pairs(a)
            .zip(pairs(b))
            .zip(pairs(c))
            .zip(pairs(d))
            .fold(false, |bad, (((x, y), z), w)| {
                bad | !step(step(step(step(false, w), z), y), x)
            }),
        _ => false,
    }
}
