//! The [`SparseTensor`] model and its three index layouts.
//!
//! Each layout module holds its index type, its walks and lookups, and its validation
//! rules (structure and contents), built from the slice-level kernels and indptr rules of
//! `crate::validate`; [`check_structure`] and [`check_contents`] dispatch to them. The
//! dependency goes one way: the model uses `validate`, never the reverse.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

pub(crate) mod coo;
pub(crate) mod csf;
pub(crate) mod csx;

mod build;
mod iter;
#[cfg(test)]
mod tests;

use crate::array::{typed, IndexArray};
use crate::custom_metadata::CustomMetadata;
use crate::error::{fail, BufferId, ErrorKind, Result};
use crate::tensor::{check_dim_names, row_major_strides, Tensor};
use crate::types::{NativeIndex, NativeValue, Scalar, ValueType};
use crate::validate::Validation;
use arrow_buffer::{Buffer, MutableBuffer};

pub use coo::{CooIndex, CooOrder};
pub use csf::CsfIndex;
pub use csx::{CompressedAxis, CsxIndex};
pub use iter::{Coords, Entry, EntryIter, TypedEntries};

/// The index of a sparse tensor.
#[derive(Clone, Debug, PartialEq)]
pub enum SparseIndex {
    /// Coordinate list.
    Coo(CooIndex),
    /// Compressed sparse row or column (rank 2 only).
    Csx(CsxIndex),
    /// Compressed sparse fiber.
    Csf(CsfIndex),
}

/// The layout of a sparse tensor, as one name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SparseFormat {
    /// Coordinate list.
    Coo,
    /// Compressed sparse row.
    Csr,
    /// Compressed sparse column.
    Csc,
    /// Compressed sparse fiber.
    Csf,
}

impl SparseFormat {
    /// `COO`, `CSR`, `CSC` or `CSF`.
    pub fn name(self) -> &'static str {
        match self {
            SparseFormat::Coo => "COO",
            SparseFormat::Csr => "CSR",
            SparseFormat::Csc => "CSC",
            SparseFormat::Csf => "CSF",
        }
    }
}

impl SparseIndex {
    /// The layout.
    pub fn format(&self) -> SparseFormat {
        match self {
            SparseIndex::Coo(_) => SparseFormat::Coo,
            SparseIndex::Csx(c) if c.axis == CompressedAxis::Row => SparseFormat::Csr,
            SparseIndex::Csx(_) => SparseFormat::Csc,
            SparseIndex::Csf(_) => SparseFormat::Csf,
        }
    }
}

/// A sparse tensor: value type, shape, optional dimension names, the stored values and an
/// index ([`SparseIndex`]) saying where each value lives.
///
/// Every buffer is shared and aligned: typed views ([`SparseTensor::values`],
/// [`IndexArray::values`]) never copy.
///
/// ```
/// use arrow_tensor_ipc::{Scalar, SparseTensor};
/// // The seed COO example: a 4 x 4 float32 matrix with three non-zeros.
/// let t = SparseTensor::coo(&[4, 4], vec![0i64, 1, 2, 0, 3, 3], vec![1.5f32, -0.5, 2.0]).unwrap();
/// assert_eq!(t.nnz(), 3);
/// assert_eq!(t.get(&[2, 0]).unwrap(), Scalar::Float32(-0.5));
/// assert_eq!(t.get(&[1, 1]).unwrap(), Scalar::Float32(0.0));
/// assert_eq!(t.sparsity(), 1.0 - 3.0 / 16.0);
/// ```
#[derive(Clone, Debug)]
pub struct SparseTensor {
    value_type: ValueType,
    shape: Vec<usize>,
    dim_names: Vec<String>,
    values: Buffer,
    index: SparseIndex,
    /// Whether strict validation passed (enables binary searches and direct writes).
    checked: bool,
    custom_metadata: Option<CustomMetadata>,
}

impl SparseTensor {
    /// Sets the dimension names (one per dimension; `""` means unnamed).
    pub fn with_dim_names<S: Into<String>>(
        mut self,
        names: impl IntoIterator<Item = S>,
    ) -> Result<Self> {
        self.dim_names = check_dim_names(names, self.shape.len())?;
        Ok(self)
    }

    /// Sets (or, with `None`, removes) the message's `custom_metadata` (see
    /// [`CustomMetadata`]).
    pub fn with_custom_metadata(mut self, metadata: impl Into<Option<CustomMetadata>>) -> Self {
        self.custom_metadata = metadata.into();
        self
    }

    /// The message's `custom_metadata`, `None` when the message has none (what Arrow C++
    /// writes). Kept by decoding and encoding and by the layout conversions
    /// ([`SparseTensor::to_format`], [`SparseTensor::to_dense`], ...); ignored by
    /// [`SparseTensor::content_eq`].
    pub fn custom_metadata(&self) -> Option<&CustomMetadata> {
        self.custom_metadata.as_ref()
    }

    /// The value type.
    pub fn value_type(&self) -> ValueType {
        self.value_type
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Dimension names, one per dimension, `""` for an unnamed one.
    pub fn dim_names(&self) -> &[String] {
        &self.dim_names
    }

    /// The name of dimension `i`, `None` when unnamed or out of range.
    pub fn dim_name(&self, i: usize) -> Option<&str> {
        self.dim_names
            .get(i)
            .map(String::as_str)
            .filter(|s| !s.is_empty())
    }

    /// The index.
    pub fn index(&self) -> &SparseIndex {
        &self.index
    }

    /// The layout.
    pub fn format(&self) -> SparseFormat {
        self.index.format()
    }

    /// Number of stored values.
    pub fn nnz(&self) -> usize {
        self.values.len() / self.value_type.byte_width()
    }

    /// Whether strict validation passed (always true for tensors built by the constructors).
    pub fn is_validated(&self) -> bool {
        self.checked
    }

    /// The values buffer (exactly `nnz` values, aligned).
    pub fn values_buffer(&self) -> &Buffer {
        &self.values
    }

    /// The stored values as a typed slice (no copy), `None` when `T` is not the value type.
    pub fn values<T: NativeValue>(&self) -> Option<&[T]> {
        (T::TYPE == self.value_type)
            .then(|| typed::<T>(&self.values))
            .flatten()
    }

    /// The stored value at `position`.
    pub fn value(&self, position: usize) -> Option<Scalar> {
        let w = self.value_type.byte_width();
        let bytes = self.values.as_slice().get(position.checked_mul(w)?..)?;
        Scalar::from_le_bytes(self.value_type, bytes)
    }

    /// Total number of logical elements, `None` when it overflows `u64`.
    pub fn total_elements(&self) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d as u64))
    }

    /// `1 - nnz / total` (0 for a tensor without elements).
    pub fn sparsity(&self) -> f64 {
        let total: f64 = self.shape.iter().map(|&d| d as f64).product();
        if total == 0.0 {
            0.0
        } else {
            1.0 - self.nnz() as f64 / total
        }
    }

    /// Calls `f(coords, position)` for every stored value in storage order (depth-first for
    /// CSF). Unvalidated (permissive) data that points out of range is an error.
    pub fn for_each_stored(&self, mut f: impl FnMut(&[usize], usize)) -> Result<()> {
        self.visit(&mut |c, p| {
            f(c, p);
            Ok(())
        })
    }

    fn visit(&self, f: &mut dyn FnMut(&[usize], usize) -> Result<()>) -> Result<()> {
        let nnz = self.nnz();
        let mut guarded = |c: &[usize], p: usize| -> Result<()> {
            if p >= nnz {
                return fail(ErrorKind::BufferTooShort {
                    buffer: BufferId::Values,
                    needed: (p as u64 + 1) * self.value_type.byte_width() as u64,
                    length: self.values.len() as u64,
                });
            }
            f(c, p)
        };
        match &self.index {
            SparseIndex::Coo(i) => coo::visit(i, &self.shape, &mut guarded),
            SparseIndex::Csx(i) => csx::visit(i, &self.shape, &mut guarded),
            SparseIndex::Csf(i) => csf::visit(i, &self.shape, &mut guarded),
        }
    }

    /// The value at a logical index: the stored value, zero when nothing is stored there,
    /// or the sum of all entries stored there (non-canonical COO may hold duplicates).
    ///
    /// Uses binary search for validated canonical COO, CSX rows and CSF levels, a linear
    /// scan otherwise.
    pub fn get(&self, coords: &[usize]) -> Result<Scalar> {
        if coords.len() != self.shape.len() || coords.iter().zip(&self.shape).any(|(c, d)| c >= d) {
            return fail(ErrorKind::CoordinateOutOfRange {
                coords: coords.to_vec(),
                shape: self.shape.clone(),
            });
        }
        let positions = match &self.index {
            SparseIndex::Coo(i) => coo::find(i, coords, self.checked && i.is_canonical),
            SparseIndex::Csx(i) => csx::find(i, coords, self.checked)?,
            SparseIndex::Csf(i) => csf::find(i, coords, self.checked)?,
        };
        crate::dispatch_value!(self.value_type, T => {
            let values = self.values::<T>().unwrap_or_default();
            let mut acc: Option<T> = None;
            for p in positions {
                let v = *values.get(p).ok_or(ErrorKind::BufferTooShort {
                    buffer: BufferId::Values,
                    needed: (p as u64 + 1) * self.value_type.byte_width() as u64,
                    length: self.values.len() as u64,
                })?;
                acc = Some(acc.map_or(v, |a| a.combine(v)));
            }
            Ok(acc.unwrap_or(T::ZERO).into_scalar())
        })
    }

    /// The checked serial expansion behind [`crate::convert::to_dense`] for index data that
    /// has not passed strict validation: every coordinate is checked as it is used, and
    /// index data that breaks a rule is reported (or, where harmless, tolerated).
    pub(crate) fn to_dense_checked(&self, max_elements: usize) -> Result<Tensor> {
        let total =
            crate::tensor::element_count(&self.shape).ok_or_else(|| ErrorKind::Overflow {
                quantity: crate::Quantity::ElementCount {
                    shape: self.shape.clone(),
                },
            })?;
        if total > max_elements {
            return fail(ErrorKind::LimitExceeded {
                what: "dense element count",
                value: total as u64,
                limit: max_elements as u64,
            });
        }
        let w = self.value_type.byte_width();
        let bytes = total.checked_mul(w).ok_or_else(|| ErrorKind::Overflow {
            quantity: crate::Quantity::ByteSize {
                shape: self.shape.clone(),
            },
        })?;
        let strides = row_major_strides(&self.shape, 1);
        let linear = |c: &[usize]| -> usize { c.iter().zip(&strides).map(|(a, b)| a * b).sum() };
        // Direct writes unless two entries may share a cell.
        let may_repeat =
            !self.checked || matches!(&self.index, SparseIndex::Coo(c) if !c.is_canonical);
        let data: Buffer = crate::dispatch_value!(self.value_type, T => {
            let values = self.values::<T>().unwrap_or_default();
            let mut out = vec![T::ZERO; total];
            let mut seen = if may_repeat { vec![false; total] } else { Vec::new() };
            self.visit(&mut |c, p| {
                let at = linear(c);
                let (Some(v), Some(slot)) = (values.get(p).copied(), out.get_mut(at)) else {
                    return Ok(());
                };
                if may_repeat {
                    if let Some(s) = seen.get_mut(at) {
                        *slot = if *s { slot.combine(v) } else { v };
                        *s = true;
                    }
                } else {
                    *slot = v;
                }
                Ok(())
            })?;
            Buffer::from_vec(out)
        });
        debug_assert_eq!(data.len(), bytes);
        let tensor = Tensor::try_new(
            self.value_type,
            self.shape.clone(),
            row_major_strides(&self.shape, w),
            data,
        )?;
        Ok(tensor
            .with_dim_names(self.dim_names.iter().cloned())?
            .with_custom_metadata(self.custom_metadata.clone()))
    }

    /// Equality of type, shape, names, layout, index arrays and values (values bitwise).
    /// COO coordinates are compared entry by entry, whatever the order of either
    /// coordinate matrix ([`CooOrder`]), as dense tensors are compared whatever their
    /// strides.
    pub fn content_eq(&self, other: &SparseTensor) -> bool {
        let same_index = match (&self.index, &other.index) {
            (SparseIndex::Coo(a), SparseIndex::Coo(b)) => a.same_coordinates(b),
            (a, b) => a == b,
        };
        self.value_type == other.value_type
            && self.shape == other.shape
            && self.dim_names == other.dim_names
            && same_index
            && self.values.as_slice() == other.values.as_slice()
    }
}

/// Checks that every array of `index` has the length the shape and nnz require, that
/// `values` holds a whole number of values, and, for a shape without elements, that its
/// row-major byte strides fit in an int64, so that its (empty) dense expansion exists, as
/// for a dense tensor (always run, O(ndim): all that memory safety needs). A shape with
/// elements may be far larger than any dense tensor: that is what sparse storage is for,
/// and expanding it fails with an error instead.
pub(crate) fn check_structure(
    value_type: ValueType,
    shape: &[usize],
    values: &Buffer,
    index: &SparseIndex,
) -> Result<()> {
    let w = value_type.byte_width();
    if shape.contains(&0) && crate::tensor::checked_row_major_strides(shape, w).is_none() {
        return fail(ErrorKind::Overflow {
            quantity: crate::Quantity::RowMajorStrides {
                shape: shape.to_vec(),
            },
        });
    }
    if !values.len().is_multiple_of(w) {
        return fail(ErrorKind::PartialValue {
            what: "the values buffer",
            length: values.len() as u64,
            width: w,
        });
    }
    let nnz = values.len() / w;
    match index {
        SparseIndex::Coo(c) => coo::check_structure(c, shape.len(), nnz),
        SparseIndex::Csx(c) => csx::check_structure(c, shape, nnz),
        SparseIndex::Csf(c) => csf::check_structure(c, shape.len(), nnz),
    }
}

/// Checks every index value against the rules of its layout (strict mode, O(index)).
/// Assumes [`check_structure`] passed.
pub(crate) fn check_contents(shape: &[usize], index: &SparseIndex) -> Result<()> {
    match index {
        SparseIndex::Coo(c) => coo::check_contents(c, shape),
        SparseIndex::Csx(c) => csx::check_contents(c, shape),
        SparseIndex::Csf(c) => csf::check_contents(c, shape),
    }
}

/// Typed view of an index array whose type the caller dispatched on.
pub(crate) fn typed_index<I: NativeIndex>(a: &IndexArray) -> Result<&[I]> {
    a.values::<I>().ok_or_else(|| {
        ErrorKind::TypeMismatch {
            expected: I::TYPE.to_string(),
            found: a.index_type().to_string(),
        }
        .into()
    })
}

/// Reads `s[pos]` as a coordinate of dimension `dim` and checks it against the shape.
#[inline]
pub(crate) fn check_coord<I: NativeIndex>(
    s: &[I],
    pos: usize,
    shape: &[usize],
    dim: usize,
    buffer: BufferId,
) -> Result<usize> {
    let v = s.get(pos).map_or(-1, |v| v.as_index());
    let bound = shape.get(dim).copied().unwrap_or(0);
    if v < 0 || v as u64 >= bound as u64 {
        return fail(ErrorKind::IndexOutOfBounds {
            buffer,
            position: pos as u64,
            value: v,
            dim,
            bound: bound as u64,
        });
    }
    Ok(v as usize)
}

/// Offsets within `slice` whose value equals `q`: binary search when `sorted`, else scan.
pub(crate) fn search<I: NativeIndex>(slice: &[I], q: i64, sorted: bool) -> Vec<usize> {
    if sorted {
        let k = slice.partition_point(|v| v.as_index() < q);
        if slice.get(k).is_some_and(|v| v.as_index() == q) {
            vec![k]
        } else {
            Vec::new()
        }
    } else {
        slice
            .iter()
            .enumerate()
            .filter(|(_, v)| v.as_index() == q)
            .map(|(k, _)| k)
            .collect()
    }
}

/// Allocates an aligned zeroed buffer (used by encoders and converters).
#[allow(dead_code)]
pub(crate) fn zeroed(len: usize) -> MutableBuffer {
    MutableBuffer::from_len_zeroed(len)
}
