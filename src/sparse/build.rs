//! Building a [`SparseTensor`]: from parts at a chosen validation level, from the
//! converters' parts, and from plain vectors per layout ([`SparseTensor::coo`],
//! [`SparseTensor::csr`], [`SparseTensor::csc`], [`SparseTensor::csf`]).
//!
//! Every constructor takes the shape as `impl AsRef<[usize]>` (an array, a slice or a
//! `Vec`) and returns a `Result`: nothing is built that the layout's rules refuse.

use super::*;

impl SparseTensor {
    /// Builds a sparse tensor from parts and validates it strictly (a COO index with
    /// duplicate coordinates is refused: see [`SparseTensor::try_new_with_duplicates`]).
    ///
    /// `values` holds `nnz` little-endian values of `value_type`.
    pub fn try_new(
        value_type: ValueType,
        shape: impl AsRef<[usize]>,
        values: Buffer,
        index: SparseIndex,
    ) -> Result<Self> {
        let t = Self::try_new_with_duplicates(value_type, shape, values, index)?;
        // (Strict validation has confirmed a canonical flag: rows strictly increasing,
        // so no two are equal.)
        if let SparseIndex::Coo(coo) = &t.index {
            if let Some((first, second)) = coo.find_duplicate_unless_canonical() {
                return fail(ErrorKind::DuplicateCoordinate {
                    first: first as u64,
                    second: second as u64,
                    coords: (0..coo.ndim())
                        .map(|d| coo.coordinate(first, d).unwrap_or(0) as usize)
                        .collect(),
                });
            }
        }
        Ok(t)
    }

    /// Like [`SparseTensor::try_new`], but a non-canonical COO index may hold duplicate
    /// coordinates (the Arrow format allows them); [`SparseTensor::get`] and
    /// [`SparseTensor::to_dense`] sum duplicates, as scipy and pydata/sparse do.
    pub fn try_new_with_duplicates(
        value_type: ValueType,
        shape: impl AsRef<[usize]>,
        values: Buffer,
        index: SparseIndex,
    ) -> Result<Self> {
        Self::from_parts(
            value_type,
            shape.as_ref().to_vec(),
            values,
            index,
            Validation::Strict,
        )
    }

    /// Builds a sparse tensor from parts, validated at the given level:
    /// [`Validation::Strict`] is [`SparseTensor::try_new_with_duplicates`];
    /// [`Validation::Permissive`] checks the structure only (array lengths and types against
    /// the shape and nnz, O(ndim): what memory safety needs) and leaves the index values
    /// unchecked, as the decoder's permissive mode does. Such a tensor reports
    /// [`SparseTensor::is_validated`] `false` until [`SparseTensor::validate`] passes; its
    /// lookups and conversions do not rely on the layout's rules.
    ///
    /// Building permissively lets a caller run [`SparseTensor::check_contents`] at a time of
    /// its choosing, for example on another thread while the buffers are being encoded:
    ///
    /// ```
    /// use arrow_tensor_ipc::{encode, Message, SparseTensor, Validation, WriteOptions};
    /// let strict = SparseTensor::csr([2, 3], vec![0i32, 1, 2], vec![2, 0], vec![1.0f64, 2.0])?;
    /// let t = SparseTensor::try_new_with_validation(
    ///     strict.value_type(),
    ///     strict.shape().to_vec(),
    ///     strict.values_buffer().clone(),
    ///     strict.index().clone(),
    ///     Validation::Permissive,
    /// )?;
    /// assert!(!t.is_validated());
    /// let message = Message::SparseTensor(t);
    /// let (checked, encoded) = std::thread::scope(|s| {
    ///     let check = s.spawn(|| message.as_sparse().unwrap().check_contents());
    ///     let encoded = encode(&message, &WriteOptions::default());
    ///     (check.join().unwrap(), encoded)
    /// });
    /// checked?;
    /// assert!(encoded?.len() > 0);
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn try_new_with_validation(
        value_type: ValueType,
        shape: impl AsRef<[usize]>,
        values: Buffer,
        index: SparseIndex,
        validation: Validation,
    ) -> Result<Self> {
        Self::from_parts(
            value_type,
            shape.as_ref().to_vec(),
            values,
            index,
            validation,
        )
    }

    /// Checks every index value against the rules of its layout, as strict validation does
    /// (O(index)), whatever level the tensor was built or decoded with; the tensor is not
    /// changed (see [`SparseTensor::validate`] to record the result).
    pub fn check_contents(&self) -> Result<()> {
        if self.checked {
            return Ok(());
        }
        check_contents(&self.shape, &self.index)
    }

    /// Strictly validates a tensor built or decoded permissively and marks it validated
    /// ([`SparseTensor::is_validated`]); a no-op for one already validated.
    pub fn validate(mut self) -> Result<Self> {
        self.check_contents()?;
        self.checked = true;
        Ok(self)
    }

    /// Builds and validates at the given level (the decoder's entry point).
    pub(crate) fn from_parts(
        value_type: ValueType,
        shape: Vec<usize>,
        values: Buffer,
        index: SparseIndex,
        validation: Validation,
    ) -> Result<Self> {
        let values = crate::array::align_buffer(
            values,
            value_type.byte_width(),
            BufferId::Values,
            0,
            crate::Misaligned::Copy,
        )?;
        let mut index = index;
        if let SparseIndex::Coo(coo) = &mut index {
            coo.set_rank0_nnz(values.len() / value_type.byte_width());
        }
        check_structure(value_type, &shape, &values, &index)?;
        if validation == Validation::Strict {
            check_contents(&shape, &index)?;
        }
        Ok(SparseTensor {
            value_type,
            dim_names: vec![String::new(); shape.len()],
            shape,
            values,
            index,
            checked: validation == Validation::Strict,
            custom_metadata: None,
        })
    }

    /// Builds a tensor whose index the conversions produced (valid by construction):
    /// structure checked, contents trusted in release builds and checked in debug builds
    /// (every test run), marked as strictly validated.
    pub(crate) fn from_converted_parts(
        value_type: ValueType,
        shape: Vec<usize>,
        values: Buffer,
        index: SparseIndex,
    ) -> Result<Self> {
        let mut t = Self::from_parts(value_type, shape, values, index, Validation::Permissive)?;
        debug_assert!(
            check_contents(&t.shape, &t.index).is_ok(),
            "a conversion produced an invalid index: {:?}",
            check_contents(&t.shape, &t.index)
        );
        t.checked = true;
        Ok(t)
    }

    /// The tensor with its values read as `value_type`, a type of the same byte width (for
    /// conversions that move values as unsigned integers of their width).
    pub(crate) fn with_values_as(mut self, value_type: ValueType) -> Self {
        debug_assert_eq!(value_type.byte_width(), self.value_type.byte_width());
        if value_type.byte_width() == self.value_type.byte_width() {
            self.value_type = value_type;
        }
        self
    }

    /// A COO tensor from row-major coordinates (`nnz * ndim` integers) and `nnz` values.
    /// The canonical flag is set when the coordinates are sorted; duplicates are refused.
    pub fn coo<T: NativeValue, I: NativeIndex>(
        shape: impl AsRef<[usize]>,
        coords: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        let shape = shape.as_ref();
        let index = CooIndex::new(IndexArray::from_vec(coords), shape.len())?;
        Self::try_new(
            T::TYPE,
            shape,
            Buffer::from_vec(values),
            SparseIndex::Coo(index),
        )
    }

    /// A CSR matrix.
    pub fn csr<T: NativeValue, I: NativeIndex>(
        shape: impl AsRef<[usize]>,
        indptr: Vec<I>,
        indices: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        Self::csx(CompressedAxis::Row, shape, indptr, indices, values)
    }

    /// A CSC matrix (`indices` are row numbers).
    pub fn csc<T: NativeValue, I: NativeIndex>(
        shape: impl AsRef<[usize]>,
        indptr: Vec<I>,
        indices: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        Self::csx(CompressedAxis::Column, shape, indptr, indices, values)
    }

    fn csx<T: NativeValue, I: NativeIndex>(
        axis: CompressedAxis,
        shape: impl AsRef<[usize]>,
        indptr: Vec<I>,
        indices: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        let index = CsxIndex::new(
            axis,
            IndexArray::from_vec(indptr),
            IndexArray::from_vec(indices),
        )?;
        Self::try_new(
            T::TYPE,
            shape,
            Buffer::from_vec(values),
            SparseIndex::Csx(index),
        )
    }

    /// A CSF tensor: `axis_order`, `ndim - 1` indptr arrays and `ndim` indices arrays.
    pub fn csf<T: NativeValue, I: NativeIndex>(
        shape: impl AsRef<[usize]>,
        axis_order: Vec<usize>,
        indptr: Vec<Vec<I>>,
        indices: Vec<Vec<I>>,
        values: Vec<T>,
    ) -> Result<Self> {
        let index = CsfIndex::new(
            axis_order,
            indptr.into_iter().map(IndexArray::from_vec).collect(),
            indices.into_iter().map(IndexArray::from_vec).collect(),
        )?;
        Self::try_new(
            T::TYPE,
            shape,
            Buffer::from_vec(values),
            SparseIndex::Csf(index),
        )
    }
}
