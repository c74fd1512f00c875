//! Typed, aligned views of byte buffers: [`IndexArray`] and the alignment helper used by
//! every buffer that the crate exposes as `&[T]`.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::error::{fail, BufferId, ErrorKind, Result};
use crate::types::{IndexType, NativeIndex};
use arrow_buffer::{Buffer, MutableBuffer, ScalarBuffer};

/// What to do with a buffer that is not aligned for its element type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Misaligned {
    /// Copy it into freshly allocated, aligned memory (the default).
    #[default]
    Copy,
    /// Fail with [`ErrorKind::Misaligned`].
    Error,
}

/// Returns `buffer` if its start is aligned to `align`, else an aligned copy or an error.
pub(crate) fn align_buffer(
    buffer: Buffer,
    align: usize,
    id: BufferId,
    body_offset: u64,
    policy: Misaligned,
) -> Result<Buffer> {
    if align <= 1 || buffer.is_empty() || (buffer.as_ptr() as usize).is_multiple_of(align) {
        return Ok(buffer);
    }
    match policy {
        // MutableBuffer allocations are 64-byte aligned.
        Misaligned::Copy => Ok(MutableBuffer::from(buffer.as_slice().to_vec()).into()),
        Misaligned::Error => fail(ErrorKind::Misaligned {
            buffer: id,
            offset: body_offset,
            align,
        }),
    }
}

/// A one-dimensional array of integers of one [`IndexType`]: a COO coordinate matrix, or a
/// CSX/CSF indptr or indices array.
///
/// The buffer holds exactly `len() * byte_width` bytes and is aligned for the type, so typed
/// views never copy.
#[derive(Clone, Debug)]
pub struct IndexArray {
    index_type: IndexType,
    buffer: Buffer,
}

impl IndexArray {
    /// Wraps a vector without copying.
    pub fn from_vec<T: NativeIndex>(values: Vec<T>) -> Self {
        IndexArray {
            index_type: T::TYPE,
            buffer: Buffer::from_vec(values),
        }
    }

    /// Copies a slice.
    pub fn from_slice<T: NativeIndex>(values: &[T]) -> Self {
        IndexArray {
            index_type: T::TYPE,
            buffer: Buffer::from_slice_ref(values),
        }
    }

    /// Wraps a buffer of little-endian integers of type `index_type` (zero-copy when the
    /// buffer is aligned, else copied).
    ///
    /// Fails when the length is not a multiple of the type's width.
    pub fn try_new(index_type: IndexType, buffer: Buffer) -> Result<Self> {
        let w = index_type.byte_width();
        if !buffer.len().is_multiple_of(w) {
            return fail(ErrorKind::PartialValue {
                what: "an index buffer",
                length: buffer.len() as u64,
                width: w,
            });
        }
        let buffer = align_buffer(buffer, w, BufferId::Body, 0, Misaligned::Copy)?;
        Ok(IndexArray { index_type, buffer })
    }

    /// The integer type.
    pub fn index_type(&self) -> IndexType {
        self.index_type
    }

    /// Number of integers.
    pub fn len(&self) -> usize {
        self.buffer.len() / self.index_type.byte_width()
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// The underlying bytes (little-endian).
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// A typed view, or `None` when `T` is not this array's type.
    pub fn values<T: NativeIndex>(&self) -> Option<&[T]> {
        if T::TYPE != self.index_type {
            return None;
        }
        typed(&self.buffer)
    }

    /// A typed, shared, zero-copy [`ScalarBuffer`], or `None` when `T` is not the type.
    pub fn scalar_buffer<T: NativeIndex>(&self) -> Option<ScalarBuffer<T>> {
        (T::TYPE == self.index_type).then(|| ScalarBuffer::new(self.buffer.clone(), 0, self.len()))
    }

    /// The integer at position `i` as `i64` (`u64` values above `i64::MAX` saturate).
    pub fn get(&self, i: usize) -> Option<i64> {
        crate::dispatch_index!(self.index_type, T => self.values::<T>()?.get(i).map(|v| v.as_index()))
    }

    /// All integers as `i64` (`u64` values above `i64::MAX` saturate).
    pub fn to_i64_vec(&self) -> Vec<i64> {
        crate::dispatch_index!(self.index_type, T => self
            .values::<T>()
            .map(|s| s.iter().map(|v| v.as_index()).collect())
            .unwrap_or_default())
    }

    /// Integers parsed as `i64` as an array of type `t` (each value must fit `t`: the
    /// text readers parse every coordinate as `i64`, check it against `t` and build the
    /// array of `t` here, so that their parsers are compiled once, not per index type).
    #[cfg(any(feature = "matrix-market", feature = "frostt"))]
    pub(crate) fn from_i64_as(v: Vec<i64>, t: IndexType) -> IndexArray {
        if t == IndexType::Int64 {
            return IndexArray::from_vec(v);
        }
        crate::dispatch_index!(t, F => IndexArray::from_vec(
            v.iter().map(|&x| <F as arrow_buffer::ArrowNativeType>::usize_as(x as usize)).collect::<Vec<F>>()
        ))
    }

    /// The largest value (0 when empty; negative values count as 0).
    pub fn max_value(&self) -> u64 {
        crate::dispatch_index!(self.index_type, T => self
            .values::<T>()
            .and_then(|s| s.iter().max().map(|v| v.as_index().max(0) as u64))
            .unwrap_or(0))
    }
}

impl PartialEq for IndexArray {
    fn eq(&self, other: &Self) -> bool {
        self.index_type == other.index_type && self.buffer.as_slice() == other.buffer.as_slice()
    }
}

/// Typed view of a buffer whose alignment and length the caller has established (every
/// buffer stored in this crate's types is aligned for its element type by construction).
pub(crate) fn typed<T: arrow_buffer::ArrowNativeType>(buffer: &Buffer) -> Option<&[T]> {
    if buffer.is_empty() {
        // An empty buffer may have a dangling, unaligned pointer: no typed view of it.
        return Some(&[]);
    }
    let aligned = (buffer.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>());
    (aligned && buffer.len().is_multiple_of(std::mem::size_of::<T>()))
        .then(|| buffer.typed_data::<T>())
}
