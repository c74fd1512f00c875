//! The options of the Parquet reader and writer.

use crate::Limits;

/// Options of [`ParquetBatches`](super::ParquetBatches).
///
/// ```
/// use arrow_tensor_ipc::record_batch::ParquetReadOptions;
/// use arrow_tensor_ipc::Limits;
/// let options = ParquetReadOptions::default()
///     .with_limits(Limits::default().with_max_metadata_len(1 << 20))
///     .with_batch_rows(4096);
/// assert_eq!(options.batch_rows, Some(4096));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParquetReadOptions {
    /// Size limits: [`Limits::max_metadata_len`] bounds the footer,
    /// [`Limits::max_body_len`] the uncompressed size of a column chunk, and
    /// [`Limits::max_rank`] the nesting depth of the schema.
    pub limits: Limits,
    /// Rows per batch read. Default `None`: as many rows as hold about 2 MiB of
    /// uncompressed data by the footer's figures (at least 1, at most 2^20): batches that
    /// stay in a core's cache while they are decoded, and whose buffers the allocator
    /// reuses instead of asking the kernel for fresh zeroed pages.
    pub batch_rows: Option<usize>,
    /// Most row groups accepted in a file. Default 2^20.
    pub max_row_groups: usize,
    /// Most leaf columns accepted in a file. Default 2^16.
    pub max_columns: usize,
    /// Most rows accepted in a file. Default 2^40.
    pub max_rows: u64,
    /// Threads decoding row groups ahead of the batches returned (each decodes one whole
    /// row group at a time, so memory holds up to this many decoded row groups; 0: one
    /// per core, at most 8). Default 0. With 1 the batches are decoded on the caller's
    /// thread as they are asked for, one batch in memory at a time. A file of one row
    /// group is always decoded on the caller's thread.
    pub threads: usize,
    /// Deepest nesting of groups accepted in the Parquet schema (checked before the
    /// `parquet` crate builds the schema, recursively). Default 64; a tensor column
    /// nests 3 or 4 deep.
    pub max_schema_depth: usize,
}

impl Default for ParquetReadOptions {
    fn default() -> Self {
        ParquetReadOptions {
            limits: Limits::default(),
            batch_rows: None,
            max_row_groups: 1 << 20,
            max_columns: 1 << 16,
            max_rows: 1 << 40,
            max_schema_depth: 64,
            threads: 0,
        }
    }
}

impl ParquetReadOptions {
    /// Sets [`ParquetReadOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`ParquetReadOptions::batch_rows`] (at least 1).
    pub fn with_batch_rows(mut self, rows: usize) -> Self {
        self.batch_rows = Some(rows.max(1));
        self
    }

    /// Sets [`ParquetReadOptions::max_row_groups`].
    pub fn with_max_row_groups(mut self, row_groups: usize) -> Self {
        self.max_row_groups = row_groups;
        self
    }

    /// Sets [`ParquetReadOptions::max_columns`].
    pub fn with_max_columns(mut self, columns: usize) -> Self {
        self.max_columns = columns;
        self
    }

    /// Sets [`ParquetReadOptions::threads`] (0: one per core, at most 8).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets [`ParquetReadOptions::max_schema_depth`].
    pub fn with_max_schema_depth(mut self, depth: usize) -> Self {
        self.max_schema_depth = depth;
        self
    }

    /// Sets [`ParquetReadOptions::max_rows`].
    pub fn with_max_rows(mut self, rows: u64) -> Self {
        self.max_rows = rows;
        self
    }
}
