//! The indptr rules shared by CSX and CSF: an indptr array of `n + 1` entries delimits `n`
//! consecutive slices `p[k]..p[k + 1]` of the array it points into. It starts at 0, never
//! decreases and ends at the length of that array, so the slices cover it exactly once.
//!
//! Strict validation checks the whole array at once ([`check_indptr`]); the permissive
//! walks and lookups check both ends first ([`check_ends`]) and then each slice they use
//! ([`slice_bounds`]). Both report the same error for the same broken rule.

use crate::error::{BufferId, Error, ErrorKind, Result};
use crate::types::NativeIndex;

/// Rule of an indptr whose first entry is not 0.
const START: &str = "indptr must start at 0";
/// Rule of an indptr entry smaller than its predecessor.
const NON_DECREASING: &str = "indptr must be non-decreasing";
/// Rule of an indptr whose last entry is not the length of the array it points into.
const END: &str = "indptr must end at the number of entries it delimits";
/// Rule of an indptr entry that points outside the array (found by [`slice_bounds`]).
const RANGE: &str = "outside 0..=length of the array it points into";

/// The [`ErrorKind::InvalidIndptr`] of the entry at `position` breaking `rule`.
fn invalid(buffer: BufferId, position: usize, value: i64, rule: &'static str) -> Error {
    ErrorKind::InvalidIndptr {
        buffer,
        position: position as u64,
        value,
        rule,
    }
    .into()
}

/// The first entry is 0 (an empty array counts as starting at 0).
#[inline]
fn check_start<P: NativeIndex>(p: &[P], buffer: BufferId) -> Result<()> {
    let first = p.first().map_or(0, |v| v.as_index());
    if first != 0 {
        return Err(invalid(buffer, 0, first, START));
    }
    Ok(())
}

/// The last entry is `len` (an empty array counts as ending at 0).
#[inline]
fn check_end<P: NativeIndex>(p: &[P], len: usize, buffer: BufferId) -> Result<()> {
    let last = p.last().map_or(0, |v| v.as_index());
    if usize::try_from(last).ok() != Some(len) {
        return Err(invalid(buffer, p.len().saturating_sub(1), last, END));
    }
    Ok(())
}

/// Position of the first entry smaller than its predecessor: one branch-free pass that the
/// compiler vectorizes answers whether there is one, and only then a second pass finds it.
#[inline]
pub(crate) fn first_decrease<P: NativeIndex>(p: &[P]) -> Option<usize> {
    let decreasing = p
        .iter()
        .zip(p.get(1..).unwrap_or_default())
        .fold(false, |bad, (a, b)| bad | (a > b));
    if !decreasing {
        return None;
    }
    p.windows(2)
        .position(|w| matches!(w, [a, b] if a > b))
        .map(|k| k + 1)
}

/// Every indptr rule on the whole array (strict validation): starts at 0, non-decreasing,
/// ends at `len`, checked in that order.
pub(crate) fn check_indptr<P: NativeIndex>(p: &[P], len: usize, buffer: BufferId) -> Result<()> {
    check_start(p, buffer)?;
    if let Some(k) = first_decrease(p) {
        let value = p.get(k).map_or(0, |v| v.as_index());
        return Err(invalid(buffer, k, value, NON_DECREASING));
    }
    check_end(p, len, buffer)
}

/// Checks that `indptr` starts at 0 and ends at `len`: with every slice non-decreasing
/// (checked slice by slice by [`slice_bounds`]), the slices then cover `0..len` exactly
/// once. A permissive walk checks this first, so that it reports bad index data instead of
/// silently skipping stored values.
#[inline]
pub(crate) fn check_ends<P: NativeIndex>(indptr: &[P], len: usize, buffer: BufferId) -> Result<()> {
    check_start(indptr, buffer)?;
    check_end(indptr, len, buffer)
}

/// The range `indptr[r]..indptr[r + 1]` of slice `r`, with the checks a permissive reader
/// needs: both ends in `0..=limit` and in order.
#[inline]
pub(crate) fn slice_bounds<P: NativeIndex>(
    indptr: &[P],
    r: usize,
    limit: usize,
    buffer: BufferId,
) -> Result<(usize, usize)> {
    let get = |p: usize| -> Result<usize> {
        let v = indptr.get(p).map_or(-1, |v| v.as_index());
        if v < 0 || v as u64 > limit as u64 {
            return Err(invalid(buffer, p, v, RANGE));
        }
        Ok(v as usize)
    };
    let (a, b) = (get(r)?, get(r + 1)?);
    if a > b {
        return Err(invalid(buffer, r + 1, b as i64, NON_DECREASING));
    }
    Ok((a, b))
}
