//! CSR/CSC/COO sparse tensors as [`sprs`](https://docs.rs/sprs) 0.11 matrices and back
//! (feature `sprs`).
//!
//! | conversion | cost |
//! |------------|------|
//! | CSR/CSC [`SparseTensor`] -> [`CsMatViewI`] by [`SparseTensor::as_csmat_view`] | no copy; sprs's constructor validates the index, O(nnz + rows) |
//! | [`CsMatI`] -> CSR/CSC [`SparseTensor`] by [`SparseTensor::from_csmat`] | no copy: the matrix's `Vec`s become the buffers, O(1) |
//! | CSR/CSC [`SparseTensor`] -> [`CsMatI`] by [`SparseTensor::to_csmat`] | one copy (any index types, `usize` included) |
//! | rank-2 [`SparseTensor`] (any layout) -> [`TriMatI`] by [`SparseTensor::to_trimat`] | one copy |
//! | [`TriMatBase`] -> COO [`SparseTensor`] by [`SparseTensor::from_trimat`] | one copy (int64 coordinates) |
//!
//! The zero-copy directions need index types that both crates hold: sprs's [`SpIndex`]
//! types that are also a [`NativeIndex`], i.e. `i16`, `i32`, `i64`, `u16`, `u32`, `u64`
//! (not sprs's default `usize`, which Arrow has no type for, nor the 8-bit types, which
//! sprs has not: convert those with [`SparseTensor::to_format`] and
//! [`ConvertOptions::with_index_type`](crate::ConvertOptions::with_index_type), or copy
//! with [`SparseTensor::to_csmat`]; a `CsMat<N>` with `usize` indices converts to `i64`
//! ones with sprs's `to_other_types`). The index types asked for must be the tensor's
//! (indptr and indices may differ, as sprs's `Iptr` and `I`) and `N` must be its value
//! type, else [`ErrorKind::TypeMismatch`]. A layout other than the one asked for is an
//! [`ErrorKind::UnsupportedLayout`], a rank other than 2 an [`ErrorKind::InvalidRank`].
//! Dimension names are not carried over (sprs has none).
//!
//! ```
//! use arrow_tensor_ipc::SparseTensor;
//!
//! // A 3 x 4 CSR matrix; its view shares the tensor's buffers.
//! let csr = SparseTensor::csr([3, 4], vec![0i32, 1, 1, 3], vec![2, 0, 3], vec![1.5f64, -2.0, 4.0])?;
//! let view = csr.as_csmat_view::<f64, i32, i32>()?;
//! assert_eq!(view.get(2, 3), Some(&4.0));
//! assert_eq!(view.data().as_ptr(), csr.values::<f64>().unwrap().as_ptr());
//!
//! // An owned sprs matrix becomes a tensor without copying its vectors.
//! let m = sprs::CsMatI::new((2, 2), vec![0i64, 1, 2], vec![1i64, 0], vec![7.0f32, 8.0]);
//! let t = SparseTensor::from_csmat(m)?;
//! assert_eq!(t.get(&[0, 1])?, arrow_tensor_ipc::Scalar::Float32(7.0));
//! # Ok::<(), arrow_tensor_ipc::Error>(())
//! ```

// Tensors may come from untrusted messages: no panicking shortcuts (enforced by clippy).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::array::IndexArray;
use crate::error::{fail, BufferId, ErrorKind, Result};
use crate::sparse::{CompressedAxis, CooIndex, CsxIndex, SparseIndex};
use crate::types::{NativeIndex, NativeValue};
use crate::{SparseFormat, SparseTensor};
use ::sprs::{CompressedStorage, CsMatI, CsMatViewI, SpIndex, TriMatBase, TriMatI};
use arrow_buffer::Buffer;
use std::ops::Deref;

impl SparseTensor {
    /// A CSR or CSC tensor as a sprs matrix view over its buffers, without copying.
    ///
    /// `N` must be the value type, `I` the type of the indices array and `Iptr` that of
    /// the indptr array. A tensor decoded or built with permissive validation
    /// (`!is_validated()`) has its index checked strictly first
    /// ([`SparseTensor::check_contents`], O(nnz + rows); [`SparseTensor::validate`] records
    /// the result so that later views skip it), so a bad index fails with the error that
    /// names its buffer and position. The view is then built by sprs's checking
    /// constructor (`CsMatViewI::try_new` / `try_new_csc`, which reads the whole index
    /// again: sprs has no safe unchecked one), which also enforces sprs's own rules, e.g.
    /// `I` must hold the size of the uncompressed dimension (an `i16` CSR matrix may have
    /// at most 32767 columns).
    ///
    /// ```
    /// use arrow_tensor_ipc::{ErrorKind, SparseTensor};
    /// let csc = SparseTensor::csc([2, 2], vec![0u32, 1, 2], vec![1, 0], vec![5i64, 6])?;
    /// let v = csc.as_csmat_view::<i64, u32, u32>()?;
    /// assert!(v.is_csc());
    /// assert_eq!(v.get(1, 0), Some(&5));
    /// let wrong = csc.as_csmat_view::<i64, i32, i32>().unwrap_err();
    /// assert!(matches!(wrong.kind(), ErrorKind::TypeMismatch { .. }));
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn as_csmat_view<N, I, Iptr>(&self) -> Result<CsMatViewI<'_, N, I, Iptr>>
    where
        N: NativeValue,
        I: NativeIndex + SpIndex,
        Iptr: NativeIndex + SpIndex,
    {
        let (axis, csx, rows, cols) = self.csx_parts()?;
        let data = self.values::<N>().ok_or_else(|| ErrorKind::TypeMismatch {
            expected: N::TYPE.to_string(),
            found: self.value_type().to_string(),
        })?;
        let indptr = typed_index::<Iptr>(csx.indptr(), "indptr")?;
        let indices = typed_index::<I>(csx.indices(), "indices")?;
        self.check_contents()?;
        // sprs reads an indptr that does not start at 0 as a slice of a larger matrix;
        // Arrow requires 0 (checked here for tensors decoded permissively).
        check_indptr_start(indptr)?;
        let made = match axis {
            CompressedAxis::Row => CsMatViewI::try_new((rows, cols), indptr, indices, data),
            CompressedAxis::Column => CsMatViewI::try_new_csc((rows, cols), indptr, indices, data),
        };
        made.map_err(|(_, _, _, e)| refused(self.format(), e))
    }

    /// A CSR or CSC tensor copied into an owned sprs matrix, for any index types of the
    /// tensor and any [`SpIndex`] types `I` and `Iptr` (sprs's default `usize` included).
    /// Fails when a value does not fit in `I` / `Iptr`, or as
    /// [`SparseTensor::as_csmat_view`] does (the index of a tensor that is not validated is
    /// checked strictly first, then the matrix by sprs).
    ///
    /// ```
    /// use arrow_tensor_ipc::SparseTensor;
    /// // int8 indices (the narrowest type, which conversions pick for small matrices).
    /// let csr = SparseTensor::csr([2, 3], vec![0i8, 1, 2], vec![2, 0], vec![1.0f64, 2.0])?;
    /// let m: sprs::CsMat<f64> = csr.to_csmat()?;
    /// assert_eq!(m.get(1, 0), Some(&2.0));
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn to_csmat<N, I, Iptr>(&self) -> Result<CsMatI<N, I, Iptr>>
    where
        N: NativeValue,
        I: SpIndex,
        Iptr: SpIndex,
    {
        let (axis, csx, rows, cols) = self.csx_parts()?;
        self.check_contents()?;
        let data = self
            .values::<N>()
            .ok_or_else(|| ErrorKind::TypeMismatch {
                expected: N::TYPE.to_string(),
                found: self.value_type().to_string(),
            })?
            .to_vec();
        let indptr: Vec<Iptr> = convert_index(csx.indptr(), BufferId::CsxIndptr)?;
        let indices: Vec<I> = convert_index(csx.indices(), BufferId::CsxIndices)?;
        check_indptr_start(&indptr)?;
        let made = match axis {
            CompressedAxis::Row => CsMatI::try_new((rows, cols), indptr, indices, data),
            CompressedAxis::Column => CsMatI::try_new_csc((rows, cols), indptr, indices, data),
        };
        made.map_err(|(_, _, _, e)| refused(self.format(), e))
    }

    /// A CSR or CSC tensor owning a sprs matrix's vectors, without copying (O(1)).
    ///
    /// sprs's constructors guarantee what strict validation checks (indptr
    /// non-decreasing with one entry per compressed slot plus one, indices in bounds and
    /// strictly increasing within each slot), so the index is trusted, as a conversion's
    /// result is: its structure is checked, its contents in debug builds only, and the
    /// tensor counts as validated. (A matrix made with sprs's `unsafe new_unchecked`
    /// must uphold these rules too.) An indptr that does not start at 0 (a matrix whose
    /// indptr is a slice of a larger one's) is rebased, in a copy.
    ///
    /// ```
    /// use arrow_tensor_ipc::{SparseFormat, SparseTensor};
    /// let m = sprs::CsMatI::new_csc((3, 2), vec![0u16, 2, 3], vec![0u16, 2, 1], vec![1i8, 2, 3]);
    /// let ptr = m.data().as_ptr();
    /// let t = SparseTensor::from_csmat(m)?;
    /// assert_eq!(t.format(), SparseFormat::Csc);
    /// assert_eq!(t.values::<i8>().unwrap().as_ptr(), ptr);
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn from_csmat<N, I, Iptr>(matrix: CsMatI<N, I, Iptr>) -> Result<SparseTensor>
    where
        N: NativeValue,
        I: NativeIndex + SpIndex,
        Iptr: NativeIndex + SpIndex,
    {
        let (rows, cols) = matrix.shape();
        let axis = match matrix.storage() {
            CompressedStorage::CSR => CompressedAxis::Row,
            CompressedStorage::CSC => CompressedAxis::Column,
        };
        let (mut indptr, indices, data) = matrix.into_raw_storage();
        if let Some(&first) = indptr.first() {
            if first != Iptr::zero() {
                indptr = indptr.iter().map(|&p| p - first).collect();
            }
        }
        let index = CsxIndex::new(
            axis,
            IndexArray::from_vec(indptr),
            IndexArray::from_vec(indices),
        )?;
        SparseTensor::from_converted_parts(
            N::TYPE,
            vec![rows, cols],
            Buffer::from_vec(data),
            SparseIndex::Csx(index),
        )
    }

    /// A rank-2 tensor of any layout copied into a sprs triplet matrix, entries in storage
    /// order (a non-canonical COO tensor's duplicates stay: sprs sums them too). Fails
    /// when a coordinate does not fit in `I`, and on index data out of range (a tensor
    /// decoded permissively).
    ///
    /// ```
    /// use arrow_tensor_ipc::SparseTensor;
    /// let coo = SparseTensor::coo(&[2, 3], vec![0i64, 2, 1, 0], vec![1.0f32, 2.0])?;
    /// let tri: sprs::TriMat<f32> = coo.to_trimat()?;
    /// assert_eq!(tri.row_inds(), &[0, 1]);
    /// assert_eq!(tri.col_inds(), &[2, 0]);
    /// assert_eq!(tri.to_csr::<usize>().get(1, 0), Some(&2.0));
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn to_trimat<N, I>(&self) -> Result<TriMatI<N, I>>
    where
        N: NativeValue,
        I: SpIndex,
    {
        let (rows, cols) = matrix_shape(self)?;
        let values = self.values::<N>().ok_or_else(|| ErrorKind::TypeMismatch {
            expected: N::TYPE.to_string(),
            found: self.value_type().to_string(),
        })?;
        let n = self.nnz();
        let (mut r, mut c, mut d) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let mut narrow = None;
        self.for_each_stored(|coords, p| {
            let (Some(&i), Some(&j), Some(&v)) = (coords.first(), coords.get(1), values.get(p))
            else {
                return;
            };
            match (I::try_from_usize(i), I::try_from_usize(j)) {
                (Some(i), Some(j)) => {
                    r.push(i);
                    c.push(j);
                    d.push(v);
                }
                _ => {
                    narrow.get_or_insert(i.max(j));
                }
            }
        })?;
        if let Some(needed) = narrow {
            return fail(ErrorKind::IndexDoesNotFit {
                what: format!("coordinate {needed}"),
                target: "the sprs index type",
            });
        }
        // Every coordinate is within the shape (checked by the walk), so sprs's asserts hold.
        Ok(TriMatI::from_triplets((rows, cols), r, c, d))
    }

    /// A COO tensor holding a copy of a sprs triplet matrix (owned or a view), with int64
    /// coordinates in row-major order. Duplicate entries, which sprs allows and sums, are
    /// kept (a non-canonical COO; [`SparseTensor::canonicalize`] sums them); the canonical
    /// flag is set when the entries are sorted without duplicates.
    ///
    /// ```
    /// use arrow_tensor_ipc::{Scalar, SparseTensor};
    /// let mut tri = sprs::TriMat::new((2, 2));
    /// tri.add_triplet(1, 1, 3.0f64);
    /// tri.add_triplet(1, 1, 4.0);
    /// let t = SparseTensor::from_trimat(&tri)?;
    /// assert_eq!(t.get(&[1, 1])?, Scalar::Float64(7.0));
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn from_trimat<N, I, IS, DS>(matrix: &TriMatBase<IS, DS>) -> Result<SparseTensor>
    where
        N: NativeValue,
        I: SpIndex,
        IS: Deref<Target = [I]>,
        DS: Deref<Target = [N]>,
    {
        let (rows, cols) = (matrix.rows(), matrix.cols());
        let (ri, ci) = (matrix.row_inds(), matrix.col_inds());
        let mut coords = Vec::with_capacity(ri.len().saturating_mul(2));
        for (&i, &j) in ri.iter().zip(ci) {
            let (Some(i), Some(j)) = (to_i64(i), to_i64(j)) else {
                return fail(ErrorKind::IndexDoesNotFit {
                    what: "a sprs triplet index".into(),
                    target: "int64",
                });
            };
            coords.push(i);
            coords.push(j);
        }
        let index = CooIndex::new(IndexArray::from_vec(coords), 2)?;
        SparseTensor::try_new_with_duplicates(
            N::TYPE,
            vec![rows, cols],
            Buffer::from_slice_ref(matrix.data()),
            SparseIndex::Coo(index),
        )
    }

    /// The axis, index and shape of a CSR/CSC matrix, or the error saying why not.
    fn csx_parts(&self) -> Result<(CompressedAxis, &CsxIndex, usize, usize)> {
        let (rows, cols) = matrix_shape(self)?;
        match self.index() {
            SparseIndex::Csx(c) => Ok((c.axis(), c, rows, cols)),
            _ => fail(ErrorKind::UnsupportedLayout {
                operation: "a sprs CsMat (convert with SparseTensor::to_format, or use to_trimat)",
                expected: "a CSR or CSC tensor",
                found: self.format().name().into(),
            }),
        }
    }
}

/// The shape of a rank-2 tensor, [`ErrorKind::InvalidRank`] for any other rank.
fn matrix_shape(t: &SparseTensor) -> Result<(usize, usize)> {
    match *t.shape() {
        [rows, cols] => Ok((rows, cols)),
        _ => fail(ErrorKind::InvalidRank {
            layout: "a sprs matrix",
            needed: "rank 2",
            rank: t.ndim(),
        }),
    }
}

/// The typed slice of an index array, [`ErrorKind::TypeMismatch`] when `T` is not its type.
fn typed_index<'a, T: NativeIndex>(a: &'a IndexArray, role: &str) -> Result<&'a [T]> {
    a.values::<T>().ok_or_else(|| {
        ErrorKind::TypeMismatch {
            expected: format!("{role} of {}", T::TYPE),
            found: format!("{role} of {}", a.index_type()),
        }
        .into()
    })
}

/// A copy of an index array in another integer type; negative values and values that do
/// not fit are errors.
fn convert_index<T: SpIndex>(a: &IndexArray, buffer: BufferId) -> Result<Vec<T>> {
    let values = a.to_i64_vec();
    values
        .iter()
        .enumerate()
        .map(|(k, &v)| {
            usize::try_from(v)
                .ok()
                .and_then(T::try_from_usize)
                .ok_or_else(|| {
                    ErrorKind::IndexDoesNotFit {
                        what: format!("{buffer}[{k}] = {v}"),
                        target: "the sprs index type",
                    }
                    .into()
                })
        })
        .collect()
}

/// Arrow's indptr starts at 0.
fn check_indptr_start<P: SpIndex>(indptr: &[P]) -> Result<()> {
    match indptr.first() {
        Some(&p) if p != P::zero() => fail(ErrorKind::InvalidIndptr {
            buffer: BufferId::CsxIndptr,
            position: 0,
            value: p.to_i64().unwrap_or(i64::MAX),
            rule: "indptr must start at 0",
        }),
        _ => Ok(()),
    }
}

/// A sprs index as `i64`, `None` when it does not fit.
fn to_i64<I: SpIndex>(i: I) -> Option<i64> {
    i.to_i64()
}

/// sprs's refusal of a matrix as an error of this crate.
fn refused(format: SparseFormat, e: ::sprs::errors::StructureError) -> crate::Error {
    ErrorKind::Refused {
        library: "sprs",
        what: format!("the {} matrix", format.name()),
        reason: e.to_string(),
    }
    .into()
}
