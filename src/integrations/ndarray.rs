//! Dense tensors as [`ndarray`](https://docs.rs/ndarray) arrays and back (feature `ndarray`).
//!
//! | from \ to | ndarray | cost |
//! |-----------|---------|------|
//! | [`Tensor`] | [`ArrayViewD`] by [`Tensor::as_array_view`] | no copy, O(ndim) |
//! | [`Tensor`] | [`ArrayD`] by [`Tensor::to_ndarray`] | one copy |
//! | [`SparseTensor`] | [`ArrayD`] by [`SparseTensor::to_ndarray`] | the dense expansion ([`crate::convert::to_dense`]) |
//!
//! | from \ to | [`Tensor`] | cost |
//! |-----------|------------|------|
//! | [`Array`] in C or Fortran layout | [`Tensor::from_ndarray`] | no copy: the array's `Vec` becomes the buffer, O(ndim) |
//! | [`Array`] in another layout | [`Tensor::from_ndarray`] | one copy into row-major order |
//! | [`ArrayView`] | [`Tensor::from_array_view`] | one copy (a tensor owns or shares an Arrow buffer, a view borrows) |
//!
//! A tensor's byte strides become element strides: a stride that is not a multiple of the
//! element width is an [`ErrorKind::InvalidStrides`], a value type other than `T` an
//! [`ErrorKind::TypeMismatch`], a data buffer that is not aligned for `T` an
//! [`ErrorKind::Misaligned`] (only a tensor built by [`Tensor::try_new`] over a misaligned
//! buffer has one: the decoder aligns, copying a misaligned body buffer or refusing it, as
//! [`Misaligned`](crate::Misaligned) says). Arrays with negative strides (such as `a.slice(s![..;-1])`)
//! cannot be tensors, whose strides are non-negative: they are copied. Dimension names are
//! not carried over (ndarray has none).
//!
//! ```
//! use arrow_tensor_ipc::Tensor;
//! use ndarray::{array, ArrayD};
//!
//! let a = array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]].into_dyn();
//! let ptr = a.as_ptr();
//! let t = Tensor::from_ndarray(a)?; // takes the array's Vec: no copy
//! assert_eq!(t.data().as_ptr() as *const f64, ptr);
//! let v = t.as_array_view::<f64>()?; // borrows the tensor's buffer: no copy
//! assert_eq!(v[[1, 2]], 6.0);
//! assert_eq!(v.as_ptr(), ptr);
//! let owned: ArrayD<f64> = t.to_ndarray()?; // a copy
//! assert_eq!(owned, v);
//! # Ok::<(), arrow_tensor_ipc::Error>(())
//! ```

// Tensors may come from untrusted messages: no panicking shortcuts (enforced by clippy).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::array::typed;
use crate::error::{fail, BufferId, ErrorKind, Result};
use crate::tensor::{column_major_strides, row_major_strides};
use crate::types::NativeValue;
use crate::{SparseTensor, Tensor};
use ::ndarray::{Array, ArrayD, ArrayView, ArrayViewD, Dimension, IxDyn, ShapeBuilder};
use arrow_buffer::Buffer;

impl Tensor {
    /// The tensor as an ndarray view of its buffer, without copying: element strides are
    /// the byte strides divided by the width of `T`. O(ndim).
    ///
    /// Fails with [`ErrorKind::TypeMismatch`] when `T` is not the value type,
    /// [`ErrorKind::InvalidStrides`] when a stride is not a multiple of the width of `T`,
    /// and [`ErrorKind::Misaligned`] when the data buffer is not aligned for `T` (the
    /// error's offset is 0, the start of the buffer). A tensor without elements is viewed
    /// as an empty array of its shape.
    ///
    /// ```
    /// use arrow_tensor_ipc::{column_major_strides, Tensor, ValueType};
    /// // A column-major 2 x 3 int32 tensor: the view has element strides [1, 2].
    /// let data = arrow_buffer::Buffer::from_vec(vec![1i32, 4, 2, 5, 3, 6]);
    /// let t = Tensor::try_new(ValueType::Int32, vec![2, 3], column_major_strides(&[2, 3], 4), data)?;
    /// let v = t.as_array_view::<i32>()?;
    /// assert_eq!(v.strides(), &[1, 2]);
    /// assert_eq!(v, ndarray::array![[1, 2, 3], [4, 5, 6]].into_dyn());
    /// assert!(t.as_array_view::<f32>().is_err()); // not the value type
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn as_array_view<T: NativeValue>(&self) -> Result<ArrayViewD<'_, T>> {
        check_type::<T>(self)?;
        let w = std::mem::size_of::<T>();
        if self.is_empty() {
            // No element to point at: the strides do not matter and the buffer may be empty.
            return ArrayView::from_shape(IxDyn(self.shape()), &[])
                .map_err(|e| shape_error(self, e));
        }
        if self.strides().iter().any(|s| !s.is_multiple_of(w)) {
            return fail(ErrorKind::InvalidStrides {
                strides: self.strides().iter().map(|&s| s as i64).collect(),
                reason: "a stride is not a multiple of the element width",
            });
        }
        let data = self.data();
        if !(data.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>()) {
            return fail(ErrorKind::Misaligned {
                buffer: BufferId::TensorData,
                offset: 0,
                align: std::mem::align_of::<T>(),
            });
        }
        // Aligned, and `Tensor::try_new` keeps a whole number of elements when the strides
        // are multiples of the width: the typed view exists.
        let slice: &[T] = typed::<T>(data).ok_or_else(|| ErrorKind::BufferTooShort {
            buffer: BufferId::TensorData,
            needed: data.len().div_ceil(w).saturating_mul(w) as u64,
            length: data.len() as u64,
        })?;
        let strides: Vec<usize> = self.strides().iter().map(|s| s / w).collect();
        ArrayView::from_shape(IxDyn(self.shape()).strides(IxDyn(&strides)), slice)
            .map_err(|e| shape_error(self, e))
    }

    /// The elements as an owned ndarray array (a copy, in the tensor's memory order when
    /// it is row-major or column-major, else row-major). Unlike
    /// [`Tensor::as_array_view`], works for any strides and alignment (elements are then
    /// read bytewise); fails only when `T` is not the value type.
    ///
    /// ```
    /// use arrow_tensor_ipc::Tensor;
    /// let t = Tensor::from_vec(vec![2, 2], vec![1u8, 2, 3, 4])?;
    /// let a = t.to_ndarray::<u8>()?;
    /// assert_eq!(a, ndarray::array![[1, 2], [3, 4]].into_dyn());
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn to_ndarray<T: NativeValue>(&self) -> Result<ArrayD<T>> {
        check_type::<T>(self)?;
        if let Ok(view) = self.as_array_view::<T>() {
            return Ok(view.to_owned());
        }
        let values = self.to_vec::<T>()?;
        ArrayD::from_shape_vec(IxDyn(self.shape()), values).map_err(|e| shape_error(self, e))
    }

    /// A row-major or column-major tensor owning an ndarray array's data.
    ///
    /// An array in standard (C) or Fortran layout gives its `Vec` to the tensor's buffer
    /// without copying (an array sliced along its first axes keeps its whole allocation;
    /// the buffer starts at its first element); any other array (non-contiguous, negative
    /// strides) is copied into a row-major buffer. Fails only when the byte size or a
    /// byte stride does not fit in an `isize` / int64.
    ///
    /// ```
    /// use arrow_tensor_ipc::Tensor;
    /// use ndarray::{Array, ShapeBuilder};
    /// // Fortran order: the tensor is column-major and shares the allocation.
    /// let a = Array::from_shape_vec((2, 3).f(), vec![1i64, 4, 2, 5, 3, 6]).unwrap();
    /// let ptr = a.as_ptr();
    /// let t = Tensor::from_ndarray(a)?;
    /// assert!(t.is_column_major());
    /// assert_eq!(t.strides(), &[8, 16]);
    /// assert_eq!(t.data().as_ptr() as *const i64, ptr);
    /// assert_eq!(t.to_vec::<i64>()?, [1, 2, 3, 4, 5, 6]); // row-major logical order
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn from_ndarray<T: NativeValue, D: Dimension>(array: Array<T, D>) -> Result<Tensor> {
        let shape = array.shape().to_vec();
        let w = std::mem::size_of::<T>();
        let strides = if array.is_standard_layout() {
            row_major_strides(&shape, w)
        } else if array.t().is_standard_layout() {
            column_major_strides(&shape, w)
        } else {
            return Tensor::from_array_view(array.view());
        };
        let (vec, offset) = array.into_raw_vec_and_offset();
        let buffer = Buffer::from_vec(vec);
        // `offset` is `None` only for an array without elements.
        let start = offset.unwrap_or(0).saturating_mul(w).min(buffer.len());
        let buffer = if start == 0 {
            buffer
        } else {
            buffer.slice(start)
        };
        Tensor::try_new(T::TYPE, shape, strides, buffer)
    }

    /// A tensor holding a copy of an ndarray view's elements: in the view's memory order
    /// when it is C or Fortran contiguous (one `memcpy`), else in row-major order (views
    /// with negative or other strides).
    ///
    /// ```
    /// use arrow_tensor_ipc::Tensor;
    /// use ndarray::{array, s};
    /// let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
    /// let reversed = a.slice(s![.., ..;-1]); // negative stride: copied
    /// let t = Tensor::from_array_view(reversed)?;
    /// assert!(t.is_row_major());
    /// assert_eq!(t.to_vec::<f32>()?, [3.0, 2.0, 1.0, 6.0, 5.0, 4.0]);
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn from_array_view<T: NativeValue, D: Dimension>(
        view: ArrayView<'_, T, D>,
    ) -> Result<Tensor> {
        let shape = view.shape().to_vec();
        let w = std::mem::size_of::<T>();
        let (values, strides) = if let Some(s) = view.as_slice() {
            (s.to_vec(), row_major_strides(&shape, w))
        } else if let Some(s) = view.t().as_slice() {
            (s.to_vec(), column_major_strides(&shape, w))
        } else {
            (view.iter().copied().collect(), row_major_strides(&shape, w))
        };
        Tensor::try_new(T::TYPE, shape, strides, Buffer::from_vec(values))
    }
}

impl SparseTensor {
    /// The dense expansion ([`crate::convert::to_dense`], duplicates summed) as an owned
    /// row-major ndarray array. Fails with [`ErrorKind::TypeMismatch`] when `T` is not the
    /// value type, and as `to_dense` does (with [`crate::ConvertOptions::default`], so the
    /// default [`crate::Limits::max_dense_elements`] applies; set other limits with
    /// [`SparseTensor::to_ndarray_with`]).
    ///
    /// ```
    /// use arrow_tensor_ipc::SparseTensor;
    /// let csr = SparseTensor::csr([2, 3], vec![0i32, 1, 2], vec![2, 0], vec![7i16, 8])?;
    /// let a = csr.to_ndarray::<i16>()?;
    /// assert_eq!(a, ndarray::array![[0, 0, 7], [8, 0, 0]].into_dyn());
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn to_ndarray<T: NativeValue>(&self) -> Result<ArrayD<T>> {
        self.to_ndarray_with(&crate::ConvertOptions::default())
    }

    /// Like [`SparseTensor::to_ndarray`], with the limits and threads of `options`: fails
    /// with [`ErrorKind::LimitExceeded`] when the tensor has more elements than
    /// `options.limits.max_dense_elements` (checked before allocating).
    pub fn to_ndarray_with<T: NativeValue>(
        &self,
        options: &crate::ConvertOptions,
    ) -> Result<ArrayD<T>> {
        if T::TYPE != self.value_type() {
            return fail(ErrorKind::TypeMismatch {
                expected: T::TYPE.to_string(),
                found: self.value_type().to_string(),
            });
        }
        let dense = crate::convert::to_dense(self, options)?;
        let shape = dense.shape().to_vec();
        // The expansion's buffer is not a `Vec` allocation (arrow's 64-byte aligned
        // memory): one copy into the array's `Vec`.
        let values = dense
            .as_slice::<T>()
            .map_or_else(|| dense.to_vec::<T>(), |s| Ok(s.to_vec()))?;
        ArrayD::from_shape_vec(IxDyn(&shape), values).map_err(|e| shape_error(&dense, e))
    }
}

/// Fails with [`ErrorKind::TypeMismatch`] unless `T` is the tensor's value type.
fn check_type<T: NativeValue>(t: &Tensor) -> Result<()> {
    if T::TYPE != t.value_type() {
        return fail(ErrorKind::TypeMismatch {
            expected: T::TYPE.to_string(),
            found: t.value_type().to_string(),
        });
    }
    Ok(())
}

/// An ndarray shape error about a tensor (not expected: the tensor's own checks cover
/// what ndarray checks), reported as invalid strides with ndarray's reason.
fn shape_error(t: &Tensor, e: ::ndarray::ShapeError) -> crate::Error {
    let reason = match e.kind() {
        ::ndarray::ErrorKind::OutOfBounds => "ndarray: the layout reaches outside the buffer",
        ::ndarray::ErrorKind::Overflow => "ndarray: the layout overflows isize",
        ::ndarray::ErrorKind::IncompatibleShape => "ndarray: incompatible shape",
        _ => "ndarray refused the layout",
    };
    ErrorKind::InvalidStrides {
        strides: t.strides().iter().map(|&s| s as i64).collect(),
        reason,
    }
    .into()
}
