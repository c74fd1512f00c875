//! The entries of a text file a bounded batch at a time ([`mtx::read_chunks`],
//! [`tns::read_chunks`]): the header first, then batches of COO entries in file order, with
//! the validation and errors of the whole-file readers, so that a large file is handled in
//! bounded memory.
//!
//! [`mtx::read_chunks`]: super::mtx::read_chunks
//! [`tns::read_chunks`]: super::tns::read_chunks

use crate::error::Result;
use crate::types::{IndexType, NativeValue, ValueType};
use crate::IndexArray;
use arrow_buffer::Buffer;

/// What a chunked reader knows before the first entry.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EntriesHeader {
    /// The shape: the file's (Matrix Market) or the one given in the read options
    /// (FROSTT); `None` for a FROSTT file read without a shape, whose extent is known after
    /// its last entry ([`EntryChunks::extent`]).
    pub shape: Option<Vec<usize>>,
    /// The rank (the number of coordinates of each entry).
    pub ndim: usize,
    /// The type of the values.
    pub value_type: ValueType,
    /// The integer type of the coordinates.
    pub index_type: IndexType,
    /// The dimension names (neither text format names its dimensions: `None`).
    pub dim_names: Option<Vec<String>>,
}

/// A batch of entries, in file order.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EntryBatch {
    /// The 0-based coordinates, `ndim` per entry, entry after entry (a row-major COO
    /// index), of the header's index type.
    pub coords: IndexArray,
    /// The values, one per entry, of the header's value type.
    pub values: Buffer,
    /// The type of the values.
    pub value_type: ValueType,
    /// The rank.
    pub ndim: usize,
    /// The byte offset in the file just after the batch's last line (for progress).
    pub end_offset: u64,
}

impl EntryBatch {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.values.len() / self.value_type.byte_width()
    }

    /// Whether the batch holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values as a slice of `T`, `None` when `T` is not the value type.
    pub fn values<T: NativeValue>(&self) -> Option<&[T]> {
        (T::TYPE == self.value_type)
            .then(|| crate::array::typed::<T>(&self.values))
            .flatten()
    }
}

/// The source of the batches of a chunked reader.
pub(crate) trait EntrySource: Send {
    /// The next batch; `None` after the last one (or after an error).
    fn next_batch(&mut self) -> Option<Result<EntryBatch>>;
    /// One more than the largest coordinate of each dimension seen so far.
    fn extent(&self) -> Vec<usize>;
}

/// The entries of a file, a batch at a time: an iterator of [`EntryBatch`]es after an
/// [`EntriesHeader`]. A malformed line is an error item (naming the line) that ends the
/// iteration; so is a count or limit that the whole file breaks, found at the batch where
/// it shows.
pub struct EntryChunks {
    header: EntriesHeader,
    source: Box<dyn EntrySource>,
}

impl EntryChunks {
    pub(crate) fn new(header: EntriesHeader, source: Box<dyn EntrySource>) -> Self {
        EntryChunks { header, source }
    }

    /// What the file says before its entries.
    pub fn header(&self) -> &EntriesHeader {
        &self.header
    }

    /// The shape: the header's, else (a FROSTT file read without a shape) one more than the
    /// largest coordinate of each dimension among the entries handed out so far (the
    /// file's shape once the iteration has ended).
    pub fn extent(&self) -> Vec<usize> {
        match &self.header.shape {
            Some(s) => s.clone(),
            None => self.source.extent(),
        }
    }
}

impl Iterator for EntryChunks {
    type Item = Result<EntryBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.source.next_batch()
    }
}

impl std::fmt::Debug for EntryChunks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryChunks")
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}
