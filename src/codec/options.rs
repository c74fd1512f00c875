//! Options of reading and writing: [`ReadOptions`] (with its [`Limits`]) and
//! [`WriteOptions`] (with [`CsfLengths`]).
//!
//! Every options struct is `#[non_exhaustive]`: start from `default()` (or
//! [`ReadOptions::strict`] / [`ReadOptions::permissive`]) and change it with the `with_*`
//! methods, or assign a public field of a value you hold. New options can then be added
//! without breaking callers.

use crate::array::Misaligned;
use crate::validate::Validation;

/// Size limits applied while decoding untrusted input.
///
/// ```
/// use arrow_tensor_ipc::{Limits, ReadOptions};
/// let options = ReadOptions::strict().with_limits(Limits::default().with_max_nnz(1 << 20));
/// assert_eq!(options.limits.max_nnz, 1 << 20);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest metadata (flatbuffer) length accepted. Default 64 MiB.
    pub max_metadata_len: usize,
    /// Largest body length accepted. Default 16 GiB (streams allocate only what arrives).
    pub max_body_len: u64,
    /// Largest rank accepted. Default 64.
    pub max_rank: usize,
    /// Largest nnz accepted. Default `u32::MAX` (2^32 - 1).
    pub max_nnz: u64,
    /// Largest element count of a dense tensor that would be materialised from little
    /// data. Default 2^28. Decoding refuses a dense tensor whose zero or overlapping strides
    /// describe more elements than this while its data holds fewer bytes than their
    /// row-major copy would (re-encoding or copying it would allocate that copy); callers
    /// pass it to [`SparseTensor::to_dense_with`](crate::SparseTensor::to_dense_with)
    /// to bound the expansion of decoded sparse tensors.
    pub max_dense_elements: usize,
    /// Longest index array (or list) a conversion or reader may build beyond what its
    /// input backs. Default 2^28 (2 GiB of int64). A CSR or CSC result needs an indptr of
    /// `shape[k] + 1` entries whatever it stores: a conversion (and reading a COO table,
    /// whose shape is a metadata claim) refuses one longer than both this and the input's
    /// own backing (its stored values, elements or index arrays, plus one) with
    /// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded) (or
    /// [`ErrorKind::ColumnLimitExceeded`](crate::ErrorKind::ColumnLimitExceeded) naming the
    /// column) before allocating it. Reading fixed-shape cells without values one message
    /// per row refuses more rows than this.
    pub max_index_len: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_metadata_len: 64 << 20,
            max_body_len: 16 << 30,
            max_rank: 64,
            max_nnz: u32::MAX as u64,
            max_dense_elements: 1 << 28,
            max_index_len: 1 << 28,
        }
    }
}

impl Limits {
    /// Sets [`Limits::max_metadata_len`].
    pub fn with_max_metadata_len(mut self, bytes: usize) -> Self {
        self.max_metadata_len = bytes;
        self
    }

    /// Sets [`Limits::max_body_len`].
    pub fn with_max_body_len(mut self, bytes: u64) -> Self {
        self.max_body_len = bytes;
        self
    }

    /// Sets [`Limits::max_rank`].
    pub fn with_max_rank(mut self, rank: usize) -> Self {
        self.max_rank = rank;
        self
    }

    /// Sets [`Limits::max_nnz`].
    pub fn with_max_nnz(mut self, nnz: u64) -> Self {
        self.max_nnz = nnz;
        self
    }

    /// Sets [`Limits::max_dense_elements`].
    pub fn with_max_dense_elements(mut self, elements: usize) -> Self {
        self.max_dense_elements = elements;
        self
    }

    /// Sets [`Limits::max_index_len`].
    pub fn with_max_index_len(mut self, entries: usize) -> Self {
        self.max_index_len = entries;
        self
    }
}

/// Options for decoding.
///
/// ```
/// use arrow_tensor_ipc::{Misaligned, ReadOptions, Validation};
/// let options = ReadOptions::permissive().with_misaligned(Misaligned::Error);
/// assert_eq!(options.validation, Validation::Permissive);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Strict (default) or permissive validation.
    pub validation: Validation,
    /// Copy (default) or reject buffers that are misaligned for their element type.
    pub misaligned: Misaligned,
    /// Size limits.
    pub limits: Limits,
}

impl ReadOptions {
    /// Strict validation and default limits.
    pub fn strict() -> Self {
        Self::default()
    }

    /// Permissive validation and default limits.
    pub fn permissive() -> Self {
        Self::default().with_validation(Validation::Permissive)
    }

    /// Sets [`ReadOptions::validation`].
    pub fn with_validation(mut self, validation: Validation) -> Self {
        self.validation = validation;
        self
    }

    /// Sets [`ReadOptions::misaligned`].
    pub fn with_misaligned(mut self, misaligned: Misaligned) -> Self {
        self.misaligned = misaligned;
        self
    }

    /// Sets [`ReadOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

/// How CSF index buffer lengths are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CsfLengths {
    /// Element counts, what Arrow C++ (26 and earlier) writes and reads (default).
    #[default]
    Elements,
    /// Byte lengths, what the format document says (Arrow C++ misreads them).
    Bytes,
}

/// Options for encoding.
///
/// ```
/// use arrow_tensor_ipc::{CsfLengths, WriteOptions};
/// let options = WriteOptions::default().with_arrow_compatible(false);
/// assert_eq!(options.csf_lengths, CsfLengths::Elements);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOptions {
    /// Convention for CSF buffer lengths.
    pub csf_lengths: CsfLengths,
    /// Refuse messages that Arrow C++ cannot read (uint64 indices, index types too narrow
    /// for the lengths Arrow checks), and write COO coordinates row-major: Arrow C++
    /// ignores `indicesStrides` when it expands or converts a COO tensor, so a
    /// column-major coordinate matrix ([`crate::CooOrder::ColumnMajor`]) is transposed
    /// into a new buffer while encoding (the one case in which the body does not share the
    /// tensor's buffers). Default true. When false, such a matrix is written as it is, with
    /// column-major `indicesStrides` (legal, and read correctly by this crate).
    pub arrow_compatible: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            csf_lengths: CsfLengths::Elements,
            arrow_compatible: true,
        }
    }
}

impl WriteOptions {
    /// Sets [`WriteOptions::csf_lengths`].
    pub fn with_csf_lengths(mut self, csf_lengths: CsfLengths) -> Self {
        self.csf_lengths = csf_lengths;
        self
    }

    /// Sets [`WriteOptions::arrow_compatible`].
    pub fn with_arrow_compatible(mut self, arrow_compatible: bool) -> Self {
        self.arrow_compatible = arrow_compatible;
        self
    }
}
