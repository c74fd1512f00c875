//! Layout conversions: dense <-> COO <-> CSR / CSC <-> CSF.
//!
//! | from \ to      | dense          | COO / CSR / CSC / CSF |
//! |----------------|----------------|-----------------------|
//! | dense (any strides) | -         | [`to_sparse`], [`Tensor::to_sparse`] |
//! | any sparse     | [`to_dense`], [`SparseTensor::to_dense`] | [`convert`], [`SparseTensor::to_format`] |
//!
//! CSR and CSC need rank 2, CSF rank 2 or more; COO takes any rank (rank 0 included).
//! Converting a layout to itself re-encodes it (another index type, another CSF axis
//! order, a canonical COO). Each conversion has one function here and two methods, a short
//! form with [`ConvertOptions::default`] and a `_with` form that takes options.
//!
//! ```
//! use arrow_tensor_ipc::{convert, ConvertOptions};
//! use arrow_tensor_ipc::{IndexType, SparseFormat, Tensor};
//!
//! let dense = Tensor::from_vec(vec![2, 3], vec![0.0f64, 1.5, 0.0, -2.0, 0.0, 4.0])?;
//! let csr = dense.to_sparse(SparseFormat::Csr)?;
//! assert_eq!(csr.nnz(), 3);
//! assert_eq!(csr.values::<f64>().unwrap(), &[1.5, -2.0, 4.0]);
//! // The narrowest index type Arrow C++ reads that holds the sizes.
//! assert_eq!(csr.index().format(), SparseFormat::Csr);
//!
//! let csc = csr.to_format_with(SparseFormat::Csc, &ConvertOptions::default().with_index_type(IndexType::Int64))?;
//! assert!(csc.to_dense()?.content_eq(&dense));
//! # Ok::<(), arrow_tensor_ipc::Error>(())
//! ```
//!
//! # Zeros
//! A value is a *non-zero*, and is stored when a dense tensor is converted, exactly when
//! it is not equal to zero ([`NativeValue::is_zero`](crate::NativeValue::is_zero) is false): `-0.0` is a zero (it is
//! not stored, and comes back from [`to_dense`] as `+0.0`), `NaN` is a non-zero (stored,
//! bits kept), infinities are non-zeros. Every converter applies this one rule. Sparse to
//! sparse conversions keep every stored value, zeros included, unless
//! [`ConvertOptions::drop_zeros`] asks to leave out those that are zeros by the same rule.
//!
//! # Duplicates and canonical COO
//! A non-canonical COO index may store one coordinate several times; the format's meaning,
//! and this crate's ([`SparseTensor::get`], [`to_dense`]), is the sum of those values.
//! Converting such a tensor sums the duplicates, in storage order, with
//! [`NativeValue::combine`](crate::NativeValue::combine) (wrapping for integers) — what scipy's `sum_duplicates`,
//! pydata/sparse and torch's `coalesce` do; sums that come out zero stay stored, as there.
//! [`canonicalize`] does just that for COO: entries sorted row-major, duplicates summed,
//! `isCanonical` set.
//!
//! Every COO this module produces is canonical (sorted row-major, no duplicates, flag set);
//! CSR/CSC indices and CSF siblings come out strictly increasing. Every result is strictly
//! valid by construction; debug builds re-check it with strict validation (so every test
//! run does), release builds check its structure and trust its contents, which saves a
//! pass over the index.
//!
//! # Index types and CSF axis order
//! [`ConvertOptions::index_type`] picks the integer type of every index array of the
//! result; by default the narrowest of int8, int16, int32, int64 that holds every
//! dimension size, the number of stored values and the length of every index array (so
//! that Arrow C++, which checks these lengths against the type, reads the result).
//! [`ConvertOptions::axis_order`] gives a CSF result's dimension order: by default the
//! identity; [`CsfAxisOrder::AscendingSize`](crate::CsfAxisOrder::AscendingSize) is Arrow C++'s choice.
//!
//! # Cost
//! - Dense to sparse: one pass over the elements in memory order (a row-major or a
//!   column-major tensor is read front to back), 64 elements at a time into a bit mask of
//!   non-zeros, then counting sorts over the stored entries where the target needs
//!   another order (row-major input: none for COO, CSR, CSF; one for CSC).
//! - Sparse to sparse: O(nnz x ndim) plus one counting sort (O(nnz + size of the
//!   dimension)) per dimension that is out of order; dimensions much larger than nnz fall
//!   back to one O(nnz log nnz) comparison sort.
//! - Sparse to dense: a zeroed output plus one write per stored value, the output written
//!   front to back a cache-sized block at a time.
//!
//! No allocation per element; memory stays within a small multiple of input plus output.
//! Large dense inputs can be scanned by several threads ([`ConvertOptions::threads`]), and
//! [`to_dense`] splits a large canonical COO, CSR, CSC or identity-order CSF expansion
//! between threads, each zeroing and filling its own part of the output. By default both use
//! one thread per core (at most 8) for tensors of 2^20 elements or more; `threads: 1` keeps
//! the work on the calling thread, as Arrow C++'s converters run.
//!
//! # Where Arrow C++ 26 goes wrong
//! - Dense to COO from a column-major tensor that is not square yields out-of-range
//!   coordinates flagged canonical; here, any strides give in-range coordinates sorted
//!   row-major.
//! - Tensors holding `-0.0` are counted as holding fewer non-zeros than the conversion then
//!   writes (buffer overruns, lost values); here `-0.0` is a zero for every step.

mod dense_to_sparse;
pub(crate) mod entries;
pub(crate) mod options;
mod sparse_to_sparse;
mod to_dense;

pub(crate) use options::ConvertOptions;

use crate::error::Result;
use crate::sparse::{CooOrder, SparseIndex};
use crate::types::IndexType;
use crate::{SparseFormat, SparseTensor, Tensor};

/// Converts a dense tensor (any strides) to a sparse layout, storing its non-zeros: the
/// one implementation behind [`Tensor::to_sparse`] and [`Tensor::to_sparse_with`].
///
/// Fails when the layout does not take the tensor's rank, when an explicit index type is
/// too narrow, or when an explicit CSF axis order is not a permutation.
pub fn to_sparse(
    tensor: &Tensor,
    format: SparseFormat,
    options: &ConvertOptions,
) -> Result<SparseTensor> {
    dense_to_sparse::from_dense(tensor, format, options)
        .map(|t| t.with_custom_metadata(tensor.custom_metadata().cloned()))
}

/// Converts a sparse tensor to another layout (or re-encodes it in the same one), keeping
/// its stored values: the one implementation behind [`SparseTensor::to_format`] and
/// [`SparseTensor::to_format_with`] (duplicates of a non-canonical COO summed; stored zeros kept unless
/// [`ConvertOptions::drop_zeros`]).
///
/// A tensor decoded with permissive validation is validated strictly first; index data
/// that breaks a rule is an error.
pub fn convert(
    tensor: &SparseTensor,
    format: SparseFormat,
    options: &ConvertOptions,
) -> Result<SparseTensor> {
    sparse_to_sparse::convert(tensor, format, options)
        .map(|t| t.with_custom_metadata(tensor.custom_metadata().cloned()))
}

/// Expands a sparse tensor to a dense row-major tensor (duplicates summed): offsets computed
/// in blocks by loops generic over the index types, values written by loops generic over
/// the value type. [`SparseTensor::to_dense`] and [`SparseTensor::to_dense_with`] call this.
///
/// Fails with [`crate::ErrorKind::LimitExceeded`] when the tensor has more elements than
/// `options.limits.max_dense_elements` ([`crate::Limits`]; raise it for larger trusted
/// tensors). Large outputs use [`ConvertOptions::threads`] threads (canonical COO, CSR, CSC
/// and identity-order CSF split their output between them, each thread zeroing and filling
/// its own part; non-canonical COO and other CSF orders use one thread). The result does
/// not depend on the thread count. Index data that has not passed strict validation is
/// expanded by a checked path that reports what breaks a rule.
pub fn to_dense(tensor: &SparseTensor, options: &ConvertOptions) -> Result<Tensor> {
    to_dense::expand(tensor, options.limits.max_dense_elements, options.threads)
        .map(|t| t.with_custom_metadata(tensor.custom_metadata().cloned()))
}

/// Canonical COO: entries sorted row-major, duplicates summed in storage order (as scipy's
/// `sum_duplicates` and torch's `coalesce`; sums that are zero stay stored), row-major
/// coordinate matrix, `isCanonical` set.
///
/// A COO input keeps its index type when that type holds every coordinate of the shape; a
/// canonical, row-major, validated COO input is returned as is (a cheap clone). Other
/// layouts are converted with [`ConvertOptions::default`].
pub fn canonicalize(tensor: &SparseTensor) -> Result<SparseTensor> {
    let mut options = ConvertOptions::default();
    if let SparseIndex::Coo(c) = tensor.index() {
        if tensor.is_validated() && c.is_canonical() && c.order() == CooOrder::RowMajor {
            return Ok(tensor.clone());
        }
        let t: IndexType = c.indices().index_type();
        let max_coord = tensor
            .shape()
            .iter()
            .max()
            .map_or(0, |&d| d.saturating_sub(1));
        if t.max_value() >= max_coord as u64 {
            options.index_type = Some(t);
        }
    }
    convert(tensor, SparseFormat::Coo, &options)
}

impl Tensor {
    /// Converts to a sparse layout with [`ConvertOptions::default`]: see [`to_sparse`].
    pub fn to_sparse(&self, format: SparseFormat) -> Result<SparseTensor> {
        to_sparse(self, format, &ConvertOptions::default())
    }

    /// Converts to a sparse layout with `options` (index type, CSF axis order, threads,
    /// limits): see [`to_sparse`].
    pub fn to_sparse_with(
        &self,
        format: SparseFormat,
        options: &ConvertOptions,
    ) -> Result<SparseTensor> {
        to_sparse(self, format, options)
    }
}

impl SparseTensor {
    /// Converts to another sparse layout with [`ConvertOptions::default`]: see [`convert`].
    pub fn to_format(&self, format: SparseFormat) -> Result<SparseTensor> {
        convert(self, format, &ConvertOptions::default())
    }

    /// Converts to another sparse layout with `options`: see [`convert`].
    pub fn to_format_with(
        &self,
        format: SparseFormat,
        options: &ConvertOptions,
    ) -> Result<SparseTensor> {
        convert(self, format, options)
    }

    /// Canonical COO: see [`canonicalize`].
    pub fn canonicalize(&self) -> Result<SparseTensor> {
        canonicalize(self)
    }

    /// Expands to a dense row-major [`Tensor`] (duplicates summed) with
    /// [`ConvertOptions::default`]: see [`to_dense`].
    pub fn to_dense(&self) -> Result<Tensor> {
        to_dense(self, &ConvertOptions::default())
    }

    /// Expands to a dense row-major [`Tensor`] with the limits and threads of `options`: see
    /// [`to_dense`].
    pub fn to_dense_with(&self, options: &ConvertOptions) -> Result<Tensor> {
        to_dense(self, options)
    }
}
