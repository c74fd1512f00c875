//! The options of the dataset writer and reader.

use crate::record_batch::{ParquetReadOptions, ParquetWriteOptions};
use crate::{Limits, Validation};

/// Options of [`DatasetWriter`](super::DatasetWriter).
///
/// ```
/// use arrow_tensor_ipc::dataset::DatasetWriteOptions;
/// let options = DatasetWriteOptions::default().with_memory(64 << 20).with_threads(2);
/// assert_eq!(options.memory, 64 << 20);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DatasetWriteOptions {
    /// The memory budget in bytes (default 512 MiB): the buffered entries take at most
    /// [`DatasetWriteOptions::BUFFER_SHARE`] of it; sorting and encoding the tiles being
    /// written take the rest.
    pub memory: usize,
    /// Threads that sort and encode tiles (0, the default: one per core, at most 8).
    pub threads: usize,
    /// How each part file is written (compression, row groups).
    pub parquet: ParquetWriteOptions,
}

impl Default for DatasetWriteOptions {
    fn default() -> Self {
        DatasetWriteOptions {
            memory: 512 << 20,
            threads: 0,
            parquet: ParquetWriteOptions::default(),
        }
    }
}

impl DatasetWriteOptions {
    /// The share of [`DatasetWriteOptions::memory`] that buffered entries may take (the
    /// rest is for the sort keys and encoders of the tiles being written): 2/5.
    pub const BUFFER_SHARE: (usize, usize) = (2, 5);

    /// Sets [`DatasetWriteOptions::memory`] (at least 1 MiB).
    pub fn with_memory(mut self, bytes: usize) -> Self {
        self.memory = bytes.max(1 << 20);
        self
    }

    /// Sets [`DatasetWriteOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets [`DatasetWriteOptions::parquet`].
    pub fn with_parquet(mut self, parquet: ParquetWriteOptions) -> Self {
        self.parquet = parquet;
        self
    }
}

/// Options of [`Dataset`](super::Dataset).
///
/// ```
/// use arrow_tensor_ipc::dataset::DatasetReadOptions;
/// use arrow_tensor_ipc::Validation;
/// let options = DatasetReadOptions::default().with_validation(Validation::Permissive).with_max_files(1000);
/// assert_eq!(options.max_files, 1000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DatasetReadOptions {
    /// Size limits: [`Limits::max_rank`] bounds the rank, [`Limits::max_nnz`] the stored
    /// values of the dataset, [`Limits::max_metadata_len`] (at least 1 MiB) the manifest's
    /// size.
    pub limits: Limits,
    /// Strict (the default): a reassembled tensor is checked for coordinates stored twice.
    /// Permissive: that check is skipped (every other check is made).
    pub validation: Validation,
    /// Most files (and tiles) accepted in a dataset, and most entries looked at under its
    /// directory when looking for files the manifest does not list. Default 2^20.
    pub max_files: usize,
    /// How each Parquet file is read (its limits, batch size).
    pub parquet: ParquetReadOptions,
    /// Threads of the conversion of a reassembled tensor to its layout (0: one per core).
    pub threads: usize,
}

impl Default for DatasetReadOptions {
    fn default() -> Self {
        DatasetReadOptions {
            limits: Limits::default(),
            validation: Validation::Strict,
            max_files: 1 << 20,
            parquet: ParquetReadOptions::default(),
            threads: 0,
        }
    }
}

impl DatasetReadOptions {
    /// Sets [`DatasetReadOptions::limits`] (also those of [`DatasetReadOptions::parquet`]).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self.parquet = self.parquet.with_limits(limits);
        self
    }

    /// Sets [`DatasetReadOptions::validation`].
    pub fn with_validation(mut self, validation: Validation) -> Self {
        self.validation = validation;
        self
    }

    /// Sets [`DatasetReadOptions::max_files`].
    pub fn with_max_files(mut self, files: usize) -> Self {
        self.max_files = files;
        self
    }

    /// Sets [`DatasetReadOptions::parquet`].
    pub fn with_parquet(mut self, parquet: ParquetReadOptions) -> Self {
        self.parquet = parquet;
        self
    }

    /// Sets [`DatasetReadOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
}
