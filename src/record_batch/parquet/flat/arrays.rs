//! The arrays a batch's columns are decoded into, at their Arrow width, and the pool their
//! memory returns to when the caller drops the batch.

use arrow_buffer::Buffer;
use bytes::Bytes;
use std::sync::Arc;

/// The values of one batch's column as they are decoded, at the Arrow width.
pub(super) enum Out {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Out {
    pub(super) fn with_capacity(width: usize, rows: usize) -> Self {
        match width {
            1 => Out::U8(Vec::with_capacity(rows)),
            2 => Out::U16(Vec::with_capacity(rows)),
            4 => Out::U32(Vec::with_capacity(rows)),
            _ => Out::U64(Vec::with_capacity(rows)),
        }
    }

    /// Appends `values`, each cut to the array's width (the `parquet` crate's Arrow reader
    /// narrows `INT32` to 8 and 16 bits the same way).
    pub(super) fn extend(&mut self, values: &[u64]) {
        match self {
            Out::U8(v) => v.extend(values.iter().map(|&x| x as u8)),
            Out::U16(v) => v.extend(values.iter().map(|&x| x as u16)),
            Out::U32(v) => v.extend(values.iter().map(|&x| x as u32)),
            Out::U64(v) => v.extend_from_slice(values),
        }
    }

    /// Appends the values of `dictionary` at `indexes`, cut to the array's width.
    pub(super) fn extend_looked_up(
        &mut self,
        indexes: &[u64],
        dictionary: &[u64],
    ) -> Result<(), String> {
        // An index past the dictionary reads as 0 and marks the chunk; checked after it.
        let mut past = false;
        let mut at = |i: u64| match dictionary.get(i as usize) {
            Some(&v) => v,
            None => {
                past = true;
                0
            }
        };
        match self {
            Out::U8(v) => v.extend(indexes.iter().map(|&i| at(i) as u8)),
            Out::U16(v) => v.extend(indexes.iter().map(|&i| at(i) as u16)),
            Out::U32(v) => v.extend(indexes.iter().map(|&i| at(i) as u32)),
            Out::U64(v) => v.extend(indexes.iter().map(|&i| at(i))),
        }
        if past {
            let largest = indexes.iter().copied().max().unwrap_or(0);
            return Err(format!(
                "dictionary index {largest} past the dictionary's {} values",
                dictionary.len()
            ));
        }
        Ok(())
    }

    fn width(&self) -> usize {
        match self {
            Out::U8(_) => 1,
            Out::U16(_) => 2,
            Out::U32(_) => 4,
            Out::U64(_) => 8,
        }
    }

    fn capacity(&self) -> usize {
        match self {
            Out::U8(v) => v.capacity(),
            Out::U16(v) => v.capacity(),
            Out::U32(v) => v.capacity(),
            Out::U64(v) => v.capacity(),
        }
    }

    fn clear(&mut self) {
        match self {
            Out::U8(v) => v.clear(),
            Out::U16(v) => v.clear(),
            Out::U32(v) => v.clear(),
            Out::U64(v) => v.clear(),
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Out::U8(v) => v.len(),
            Out::U16(v) => v.len(),
            Out::U32(v) => v.len(),
            Out::U64(v) => v.len(),
        }
    }
}

/// The buffers of a reader's batches, handed back when the last array using one is
/// dropped and reused for the batches after it. Batches are decoded into fresh memory
/// otherwise, and a consumer that drops each batch before the next (the common case)
/// would have the allocator return pages to the kernel and take new, zeroed ones for every
/// batch. A buffer still in use when the reader is dropped is freed as usual.
#[derive(Default)]
pub(super) struct Pool {
    free: std::sync::Mutex<Vec<Out>>,
    /// Page buffers of row groups read to the end.
    pub(super) scratch: std::sync::Mutex<Vec<Vec<u8>>>,
}

/// Buffers the pool keeps at most (a batch has one per column).
pub(super) const POOL_BUFFERS: usize = 64;

impl Pool {
    /// An empty buffer of `width`-byte values with room for `rows`: one from the pool when
    /// one fits.
    pub(super) fn take(&self, width: usize, rows: usize) -> Out {
        if let Ok(mut free) = self.free.lock() {
            if let Some(i) = free
                .iter()
                .position(|b| b.width() == width && b.capacity() >= rows)
            {
                let mut out = free.swap_remove(i);
                out.clear();
                return out;
            }
        }
        Out::with_capacity(width, rows)
    }

    /// `out` as an Arrow buffer that returns to `pool` when dropped.
    pub(super) fn share(pool: &Arc<Pool>, out: Out) -> Buffer {
        Buffer::from(Bytes::from_owner(Pooled {
            out,
            pool: Arc::downgrade(pool),
        }))
    }
}

/// A buffer lent to a batch by a [`Pool`].
struct Pooled {
    out: Out,
    pool: std::sync::Weak<Pool>,
}

impl AsRef<[u8]> for Pooled {
    fn as_ref(&self) -> &[u8] {
        use arrow_buffer::ToByteSlice;
        match &self.out {
            Out::U8(v) => v.as_slice(),
            Out::U16(v) => v.to_byte_slice(),
            Out::U32(v) => v.to_byte_slice(),
            Out::U64(v) => v.to_byte_slice(),
        }
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.upgrade() {
            if let Ok(mut free) = pool.free.lock() {
                if free.len() < POOL_BUFFERS {
                    free.push(std::mem::replace(&mut self.out, Out::U8(Vec::new())));
                }
            }
        }
    }
}
