//! Validation of sparse tensor indices: the [`Validation`] level and the kernels the
//! layout rules are built from.
//!
//! Two levels of checks, both written next to each layout (`sparse::coo`, `sparse::csx`,
//! `sparse::csf`) and dispatched by `sparse::check_structure` / `sparse::check_contents`:
//! - structure (always run, O(ndim)): counts and lengths of every array agree with the
//!   shape and nnz, CSF axis order is a permutation. This is all that memory safety needs:
//!   lookups, iteration and to-dense then check every index value they use and report bad
//!   ones as errors.
//! - contents (strict mode, O(index)): every rule of the layouts and the Arrow format on the
//!   index values: bounds, ordering, uniqueness, indptr structure.
//!
//! This module is a leaf: it works on typed slices and imports nothing from the model, and
//! the model imports it. [`kernels`] holds the block-wise scans (bounds, adjacent pairs,
//! slice boundaries, row-major COO rows) and the slower loops that locate the first
//! culprit; [`indptr`] holds the one implementation of the indptr rules, used by strict
//! validation and by the permissive walks and lookups.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

pub(crate) mod indptr;
pub(crate) mod kernels;

#[cfg(test)]
pub(crate) mod tests;

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
