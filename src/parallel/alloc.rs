//! Allocation that fails with an error instead of aborting: every output a conversion or a
//! parallel fill makes is sized from its input, and a size too large for the machine is
//! [`ErrorKind::AllocationFailed`], naming what was being allocated.

use crate::error::{ErrorKind, Result};

/// A vector of `len` copies of `fill`, or [`ErrorKind::AllocationFailed`] (instead of an
/// abort) when the memory cannot be had.
pub(crate) fn try_vec<T: Clone>(len: usize, fill: T, what: &'static str) -> Result<Vec<T>> {
    let mut v = try_with_capacity(len, what)?;
    v.resize(len, fill);
    Ok(v)
}

/// An empty vector with room for `len` elements, or [`ErrorKind::AllocationFailed`].
pub(crate) fn try_with_capacity<T>(len: usize, what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| ErrorKind::AllocationFailed {
            what,
            bytes: (len as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        })?;
    Ok(v)
}
