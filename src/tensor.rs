//! The dense [`Tensor`].

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::array::typed;
use crate::custom_metadata::CustomMetadata;
use crate::error::{fail, ErrorKind, Result};
use crate::types::{NativeValue, Scalar, ValueType};
use arrow_buffer::{Buffer, MutableBuffer};

/// A dense n-dimensional array: value type, shape, byte strides, optional dimension names and
/// one data buffer (shared, zero-copy).
///
/// Element `idx` lives at byte `sum(idx[i] * strides[i])` of [`Tensor::data`]. Strides are
/// non-negative and need not be contiguous (row-major, column-major or any other layout).
///
/// ```
/// use arrow_tensor_ipc::{Scalar, Tensor};
/// let t = Tensor::from_vec(vec![2, 3], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
/// assert_eq!(t.strides(), &[12, 4]);
/// assert_eq!(t.get(&[1, 2]).unwrap(), Scalar::Int32(6));
/// ```
#[derive(Clone, Debug)]
pub struct Tensor {
    value_type: ValueType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    dim_names: Vec<String>,
    data: Buffer,
    len: usize,
    custom_metadata: Option<CustomMetadata>,
}

/// Row-major (C order) byte strides of a shape.
pub fn row_major_strides(shape: &[usize], width: usize) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut step = width;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = step;
        step = step.saturating_mul(d);
    }
    strides
}

/// Row-major byte strides of a shape, `None` when one of them (a product of the element
/// width and the sizes of the dimensions after it) exceeds `i64::MAX`, the largest stride a
/// message can hold. Checked whether or not the shape has elements.
pub(crate) fn checked_row_major_strides(shape: &[usize], width: usize) -> Option<Vec<usize>> {
    let max = i64::MAX as usize;
    let mut strides = vec![0; shape.len()];
    let mut step = Some(width).filter(|&w| w <= max);
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        let here = step?;
        *s = here;
        step = here.checked_mul(d).filter(|&v| v <= max);
    }
    Some(strides)
}

/// Column-major (Fortran order) byte strides of a shape.
pub fn column_major_strides(shape: &[usize], width: usize) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut step = width;
    for (s, &d) in strides.iter_mut().zip(shape) {
        *s = step;
        step = step.saturating_mul(d);
    }
    strides
}

/// Product of a shape, `None` on overflow.
pub fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Number of bytes a strided layout touches: `sum((shape[i] - 1) * strides[i]) + width`, or 0
/// when the shape has no element. `None` on overflow.
pub(crate) fn strided_extent(shape: &[usize], strides: &[usize], width: usize) -> Option<usize> {
    if shape.contains(&0) {
        return Some(0);
    }
    shape.iter().zip(strides).try_fold(width, |acc, (&d, &s)| {
        acc.checked_add((d - 1).checked_mul(s)?)
    })
}

/// Calls `f` with the byte offset of every element, in row-major logical order.
pub(crate) fn for_each_offset(shape: &[usize], strides: &[usize], mut f: impl FnMut(usize)) {
    if shape.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; shape.len()];
    let mut off = 0usize;
    loop {
        f(off);
        // Odometer step from the last dimension; `carried` stays true past the first one.
        let mut carried = true;
        for ((i, &d), &s) in idx.iter_mut().zip(shape).zip(strides).rev() {
            *i += 1;
            off += s;
            if *i < d {
                carried = false;
                break;
            }
            off -= s * *i;
            *i = 0;
        }
        if carried {
            return;
        }
    }
}

impl Tensor {
    /// A row-major tensor owning `data` (no copy). Fails when `data.len()` is not the product
    /// of `shape`.
    pub fn from_vec<T: NativeValue>(shape: impl AsRef<[usize]>, data: Vec<T>) -> Result<Self> {
        let shape = shape.as_ref().to_vec();
        let n = element_count(&shape).ok_or_else(|| ErrorKind::Overflow {
            quantity: crate::Quantity::ElementCount {
                shape: shape.clone(),
            },
        })?;
        if n != data.len() {
            return fail(ErrorKind::CountMismatch {
                what: format!("elements for shape {shape:?}"),
                expected: n as u64,
                found: data.len() as u64,
            });
        }
        let strides = row_major_strides(&shape, T::TYPE.byte_width());
        Self::try_new(T::TYPE, shape, strides, Buffer::from_vec(data))
    }

    /// A tensor over an existing buffer with explicit byte strides. Fails when an element
    /// would lie outside `data` or the strides do not match the shape. A misaligned `data`
    /// is accepted (elements are read bytewise); [`Tensor::as_slice`] then returns `None`.
    pub fn try_new(
        value_type: ValueType,
        shape: impl AsRef<[usize]>,
        strides: impl AsRef<[usize]>,
        data: Buffer,
    ) -> Result<Self> {
        let (shape, strides) = (shape.as_ref().to_vec(), strides.as_ref().to_vec());
        if strides.len() != shape.len() {
            return fail(ErrorKind::CountMismatch {
                what: "strides (one per dimension)".into(),
                expected: shape.len() as u64,
                found: strides.len() as u64,
            });
        }
        // A message holds strides as int64: larger ones could not be written.
        if let Some(i) = strides.iter().position(|&s| s > i64::MAX as usize) {
            return fail(ErrorKind::Overflow {
                quantity: crate::Quantity::Stride { dim: i },
            });
        }
        let len = element_count(&shape).ok_or_else(|| ErrorKind::Overflow {
            quantity: crate::Quantity::ElementCount {
                shape: shape.clone(),
            },
        })?;
        // The row-major size must be addressable too: expansions and encoding produce it.
        len.checked_mul(value_type.byte_width())
            .filter(|&b| isize::try_from(b).is_ok())
            .ok_or_else(|| ErrorKind::Overflow {
                quantity: crate::Quantity::ByteSize {
                    shape: shape.clone(),
                },
            })?;
        let extent =
            strided_extent(&shape, &strides, value_type.byte_width()).ok_or_else(|| {
                ErrorKind::Overflow {
                    quantity: crate::Quantity::Extent {
                        shape: shape.clone(),
                        strides: strides.clone(),
                    },
                }
            })?;
        if extent > data.len() {
            return fail(ErrorKind::BufferTooShort {
                buffer: crate::BufferId::TensorData,
                needed: extent as u64,
                length: data.len() as u64,
            });
        }
        // Keep a whole number of elements so that typed views of the data are possible.
        let whole = data.len() / value_type.byte_width() * value_type.byte_width();
        let data = if whole != data.len() && whole >= extent {
            data.slice_with_length(0, whole)
        } else {
            data
        };
        let dim_names = vec![String::new(); shape.len()];
        Ok(Tensor {
            value_type,
            shape,
            strides,
            dim_names,
            data,
            len,
            custom_metadata: None,
        })
    }

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
    /// writes). Kept by decoding and encoding, by [`Tensor::to_row_major`] and by the
    /// conversions to sparse layouts ([`Tensor::to_sparse`]); ignored by
    /// [`Tensor::content_eq`].
    pub fn custom_metadata(&self) -> Option<&CustomMetadata> {
        self.custom_metadata.as_ref()
    }

    /// The value type.
    pub fn value_type(&self) -> ValueType {
        self.value_type
    }

    /// The shape (size of each dimension).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Byte strides, one per dimension.
    pub fn strides(&self) -> &[usize] {
        &self.strides
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

    /// Whether any dimension is named.
    pub fn has_dim_names(&self) -> bool {
        self.dim_names.iter().any(|n| !n.is_empty())
    }

    /// The data buffer (may be longer than the elements need).
    pub fn data(&self) -> &Buffer {
        &self.data
    }

    /// Total number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tensor has no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the elements are contiguous in row-major order (trivially true without
    /// elements).
    pub fn is_row_major(&self) -> bool {
        self.len == 0 || self.strides_match(&row_major_strides(&self.shape, self.width()))
    }

    /// Whether the elements are contiguous in column-major order (trivially true without
    /// elements).
    pub fn is_column_major(&self) -> bool {
        self.len == 0 || self.strides_match(&column_major_strides(&self.shape, self.width()))
    }

    fn strides_match(&self, expected: &[usize]) -> bool {
        // Strides of size-1 dimensions never matter.
        self.shape
            .iter()
            .zip(self.strides.iter().zip(expected))
            .all(|(&d, (a, b))| d == 1 || a == b)
    }

    fn width(&self) -> usize {
        self.value_type.byte_width()
    }

    /// The element at a logical index.
    pub fn get(&self, index: &[usize]) -> Result<Scalar> {
        if index.len() != self.shape.len() || index.iter().zip(&self.shape).any(|(i, d)| i >= d) {
            return fail(ErrorKind::CoordinateOutOfRange {
                coords: index.to_vec(),
                shape: self.shape.clone(),
            });
        }
        // In bounds: the extent check at construction covers every such offset.
        let off: usize = index.iter().zip(&self.strides).map(|(i, s)| i * s).sum();
        let bytes = self.data.as_slice().get(off..).unwrap_or_default();
        Scalar::from_le_bytes(self.value_type, bytes).ok_or_else(|| {
            ErrorKind::BufferTooShort {
                buffer: crate::BufferId::TensorData,
                needed: (off + self.width()) as u64,
                length: self.data.len() as u64,
            }
            .into()
        })
    }

    /// The elements as a typed slice in row-major order, without copying: `Some` only when
    /// `T` is the value type and the data is row-major contiguous and aligned.
    pub fn as_slice<T: NativeValue>(&self) -> Option<&[T]> {
        if T::TYPE != self.value_type || !self.is_row_major() {
            return None;
        }
        typed::<T>(&self.data)?.get(..self.len)
    }

    /// The elements in row-major logical order.
    pub fn iter(&self) -> impl Iterator<Item = Scalar> + '_ {
        let mut offsets = Vec::with_capacity(self.len);
        for_each_offset(&self.shape, &self.strides, |o| offsets.push(o));
        offsets.into_iter().filter_map(move |o| {
            Scalar::from_le_bytes(self.value_type, self.data.as_slice().get(o..)?)
        })
    }

    /// The elements in row-major logical order as a vector of `T`.
    pub fn to_vec<T: NativeValue>(&self) -> Result<Vec<T>> {
        if T::TYPE != self.value_type {
            return fail(ErrorKind::TypeMismatch {
                expected: T::TYPE.to_string(),
                found: self.value_type.to_string(),
            });
        }
        let bytes = self.row_major_bytes();
        Ok(bytes
            .chunks_exact(self.width())
            .filter_map(T::read_le)
            .collect())
    }

    /// The data of the elements in row-major order: the buffer itself (sliced, no copy) when
    /// already contiguous, else a copy.
    pub fn row_major_bytes(&self) -> Buffer {
        let w = self.width();
        let n = self.len * w;
        if self.is_row_major() {
            return self.data.slice_with_length(0, n);
        }
        let mut out = MutableBuffer::with_capacity(n);
        self.for_each_element(|e| out.extend_from_slice(e));
        out.into()
    }

    /// Calls `f` with the bytes of every element in row-major order.
    fn for_each_element(&self, mut f: impl FnMut(&[u8])) {
        let w = self.width();
        let src = self.data.as_slice();
        for_each_offset(&self.shape, &self.strides, |o| {
            // Every offset is within the extent checked at construction.
            f(src.get(o..o + w).unwrap_or(&[]))
        });
    }

    /// [`Tensor::row_major_bytes`], or [`ErrorKind::AllocationFailed`] when the copy (of a
    /// tensor whose zero or overlapping strides describe more elements than its data holds)
    /// cannot be allocated.
    pub(crate) fn try_row_major_bytes(&self) -> Result<Buffer> {
        let n = self.len.saturating_mul(self.width());
        if self.is_row_major() {
            return Ok(self.data.slice_with_length(0, n));
        }
        let mut out: Vec<u8> = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| ErrorKind::AllocationFailed {
                what: "the row-major copy of a tensor",
                bytes: n as u64,
            })?;
        self.for_each_element(|e| out.extend_from_slice(e));
        Ok(Buffer::from_vec(out))
    }

    /// This tensor with row-major contiguous data (shares the buffer when it already is).
    pub fn to_row_major(&self) -> Tensor {
        let data = self.row_major_bytes();
        Tensor {
            value_type: self.value_type,
            strides: row_major_strides(&self.shape, self.width()),
            shape: self.shape.clone(),
            dim_names: self.dim_names.clone(),
            data,
            len: self.len,
            custom_metadata: self.custom_metadata.clone(),
        }
    }

    /// Element-wise equality of type, shape, names and values (bitwise for floats: `NaN`
    /// equals `NaN`, `-0.0` differs from `0.0`), whatever the strides.
    pub fn content_eq(&self, other: &Tensor) -> bool {
        self.value_type == other.value_type
            && self.shape == other.shape
            && self.dim_names == other.dim_names
            && self.row_major_bytes().as_slice() == other.row_major_bytes().as_slice()
    }
}

/// Checks one name per dimension.
pub(crate) fn check_dim_names<S: Into<String>>(
    names: impl IntoIterator<Item = S>,
    ndim: usize,
) -> Result<Vec<String>> {
    let names: Vec<String> = names.into_iter().map(Into::into).collect();
    if names.len() != ndim {
        return fail(ErrorKind::CountMismatch {
            what: "dimension names (one per dimension)".into(),
            expected: ndim as u64,
            found: names.len() as u64,
        });
    }
    Ok(names)
}
