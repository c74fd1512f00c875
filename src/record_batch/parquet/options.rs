//! The options of the Parquet reader and writer.

use crate::error::{ErrorKind, Result};
use crate::Limits;
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

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

/// The compression of the pages of a Parquet file.
///
/// The default, [`ParquetCompression::Snappy`], was chosen by measurement (see its
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ParquetCompression {
    /// No compression.
    None,
    /// Snappy, the default (also pyarrow's, DuckDB's and Spark's), chosen by measurement
    /// (`cargo run --release --features parquet --example compare -- --only
    /// parquet_codec`, one run on a 2-core VM): writing into memory and reading back a
    /// 10M-nnz 3-D COO table (int16 coordinates, float64 values, 140 MB of columns) and a
    /// 256 MiB fixed-shape float64 column:
    ///
    /// | codec | COO file | COO write / read | fixed file | fixed write / read |
    /// |---|---|---|---|---|
    /// | none | 24.9 MiB | 0.48 s / 0.070 s | 257 MiB | 0.33 s / 0.74 s |
    /// | snappy | 14.3 MiB | 0.52 s / 0.093 s | 124 MiB | 0.68 s / 1.06 s |
    /// | lz4 | 13.8 MiB | 0.45 s / 0.077 s | 128 MiB | 0.71 s / 1.08 s |
    /// | zstd(1) | 13.4 MiB | 0.49 s / 0.085 s | 25.1 MiB | 1.26 s / 1.23 s |
    /// | zstd(3) | 13.4 MiB | 0.48 s / 0.072 s | 25.1 MiB | 1.72 s / 1.29 s |
    ///
    /// On COO tables (dictionary- and run-length-encoded before any codec) the codecs
    /// differ by less than the noise in time and by 7% in size; on dense columns Snappy
    /// and LZ4 halve this (very regular) data at twice the cost of none, Zstandard shrinks
    /// it five times more at four to five times the write time. Snappy is the fastest
    /// codec that compresses and the one every Parquet reader supports (LZ4_RAW is
    /// missing from older readers); pick [`ParquetCompression::Zstd`] for files that cross
    /// a network or sit in storage, [`ParquetCompression::None`] for scratch files.
    #[default]
    Snappy,
    /// LZ4 (the `LZ4_RAW` codec of the Parquet format, what pyarrow calls `"lz4"`).
    Lz4,
    /// Zstandard at the given level (1 to 22; 1 is fastest).
    Zstd(i32),
    /// Gzip (deflate) at the given level (0 to 9; pyarrow's default is 9), the codec older
    /// readers (Hive, older Spark) share with the others.
    Gzip(u32),
    /// Brotli at the given level (0 to 11; pyarrow's default is 8).
    Brotli(u32),
}

/// The zstd levels the `parquet` crate's `ZstdLevel::try_new` accepts (its bounds are not
/// public; a unit test pins them).
const ZSTD_LEVELS: std::ops::RangeInclusive<i32> = -131072..=22;

/// The gzip levels of `GzipLevel::try_new` (pinned by the same unit test).
const GZIP_LEVELS: std::ops::RangeInclusive<u32> = 0..=9;

/// The brotli levels of `BrotliLevel::try_new` (pinned by the same unit test).
const BROTLI_LEVELS: std::ops::RangeInclusive<u32> = 0..=11;

/// [`ErrorKind::OutOfRange`] for `level` of `codec`, outside `levels`.
fn level_out_of_range<T: Copy + Into<i64>>(
    codec: &str,
    level: T,
    levels: &std::ops::RangeInclusive<T>,
) -> ErrorKind {
    ErrorKind::OutOfRange {
        what: format!("the {codec} level"),
        value: level.into(),
        min: (*levels.start()).into(),
        max: (*levels.end()).into(),
    }
}

impl ParquetCompression {
    pub(super) fn codec(self) -> Result<Compression> {
        Ok(match self {
            ParquetCompression::None => Compression::UNCOMPRESSED,
            ParquetCompression::Snappy => Compression::SNAPPY,
            ParquetCompression::Lz4 => Compression::LZ4_RAW,
            ParquetCompression::Zstd(level) => Compression::ZSTD(
                ZstdLevel::try_new(level)
                    .map_err(|_| level_out_of_range("zstd", level, &ZSTD_LEVELS))?,
            ),
            ParquetCompression::Gzip(level) => Compression::GZIP(
                GzipLevel::try_new(level)
                    .map_err(|_| level_out_of_range("gzip", level, &GZIP_LEVELS))?,
            ),
            ParquetCompression::Brotli(level) => Compression::BROTLI(
                BrotliLevel::try_new(level)
                    .map_err(|_| level_out_of_range("brotli", level, &BROTLI_LEVELS))?,
            ),
        })
    }

    /// The codec pyarrow calls `name` (any case), at pyarrow's default level: `"none"` (or
    /// `"uncompressed"`), `"snappy"`, `"lz4"`, `"zstd"` (level 1), `"gzip"` (level 9),
    /// `"brotli"` (level 8); `None` for other names.
    ///
    /// ```
    /// use arrow_tensor_ipc::record_batch::ParquetCompression;
    /// assert_eq!(ParquetCompression::from_name("ZSTD"), Some(ParquetCompression::Zstd(1)));
    /// assert_eq!(ParquetCompression::from_name("brotli"), Some(ParquetCompression::Brotli(8)));
    /// assert_eq!(ParquetCompression::from_name("lzo"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<ParquetCompression> {
        Some(match name.to_ascii_lowercase().as_str() {
            "none" | "uncompressed" => ParquetCompression::None,
            "snappy" => ParquetCompression::Snappy,
            "lz4" | "lz4_raw" => ParquetCompression::Lz4,
            "zstd" => ParquetCompression::Zstd(1),
            "gzip" => ParquetCompression::Gzip(9),
            "brotli" => ParquetCompression::Brotli(8),
            _ => return None,
        })
    }

    /// The name pyarrow gives the codec (`"none"`, `"snappy"`, `"lz4"`, `"zstd"`, `"gzip"`,
    /// `"brotli"`).
    pub fn pyarrow_name(self) -> &'static str {
        match self {
            ParquetCompression::None => "none",
            ParquetCompression::Snappy => "snappy",
            ParquetCompression::Lz4 => "lz4",
            ParquetCompression::Zstd(_) => "zstd",
            ParquetCompression::Gzip(_) => "gzip",
            ParquetCompression::Brotli(_) => "brotli",
        }
    }
}

/// Options of [`ParquetWriter`](super::ParquetWriter).
///
/// ```
/// use arrow_tensor_ipc::record_batch::{ParquetCompression, ParquetWriteOptions};
/// let options = ParquetWriteOptions::default()
///     .with_compression(ParquetCompression::Zstd(1))
///     .with_row_group_rows(1 << 16);
/// assert_eq!(options.row_group_rows, 1 << 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParquetWriteOptions {
    /// The compression of every column. Default [`ParquetCompression::Snappy`].
    pub compression: ParquetCompression,
    /// Most rows in one row group. Default 2^20.
    pub row_group_rows: usize,
    /// A row group is flushed once its buffered (encoded) data reaches about this many
    /// bytes, whatever its rows: this bounds the writer's memory. Default 128 MiB.
    pub row_group_bytes: usize,
    /// Threads encoding the columns of a batch, one column at a time each (0: one per
    /// core, at most 8). Default 0. A batch of fewer than 2^16 rows, or of one column, is
    /// encoded on the caller's thread.
    pub threads: usize,
}

impl Default for ParquetWriteOptions {
    fn default() -> Self {
        ParquetWriteOptions {
            compression: ParquetCompression::default(),
            row_group_rows: 1 << 20,
            row_group_bytes: 128 << 20,
            threads: 0,
        }
    }
}

impl ParquetWriteOptions {
    /// Sets [`ParquetWriteOptions::compression`].
    pub fn with_compression(mut self, compression: ParquetCompression) -> Self {
        self.compression = compression;
        self
    }

    /// Sets [`ParquetWriteOptions::row_group_rows`] (at least 1).
    pub fn with_row_group_rows(mut self, rows: usize) -> Self {
        self.row_group_rows = rows.max(1);
        self
    }

    /// Sets [`ParquetWriteOptions::row_group_bytes`] (at least 1).
    pub fn with_row_group_bytes(mut self, bytes: usize) -> Self {
        self.row_group_bytes = bytes.max(1);
        self
    }

    /// Sets [`ParquetWriteOptions::threads`] (0: one per core, at most 8).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    pub(super) fn properties(&self) -> Result<WriterProperties> {
        Ok(WriterProperties::builder()
            .set_compression(self.compression.codec()?)
            .set_max_row_group_row_count(Some(self.row_group_rows.max(1)))
            .set_max_row_group_bytes(Some(self.row_group_bytes.max(1)))
            // Min/max per column chunk (what engines prune row groups by); per-page
            // statistics and the page index cost time on every value and help few readers.
            .set_statistics_enabled(EnabledStatistics::Chunk)
            // Pages cut by size alone (about 1 MiB, as pyarrow cuts them), not every 20000
            // rows: fewer, larger pages of compact encodings decode faster.
            .set_data_page_row_count_limit(usize::MAX)
            .set_created_by(concat!("arrow-tensor-ipc ", env!("CARGO_PKG_VERSION")).to_string())
            .build())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn zstd_levels_are_the_parquet_crates() {
        let (min, max) = (*ZSTD_LEVELS.start(), *ZSTD_LEVELS.end());
        for level in [min, -1, 1, max] {
            assert!(ParquetCompression::Zstd(level).codec().is_ok(), "{level}");
        }
        for level in [min - 1, max + 1] {
            assert!(ParquetCompression::Zstd(level).codec().is_err(), "{level}");
        }
        let e = ParquetCompression::Zstd(max + 1).codec().unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::OutOfRange { what, value: 23, min: -131072, max: 22 }
                    if what == "the zstd level"
            ),
            "{e}"
        );
        assert_eq!(e.to_string(), "the zstd level is 23, outside -131072..=22");
        for (levels, codec, name) in [
            (
                GZIP_LEVELS,
                ParquetCompression::Gzip as fn(u32) -> _,
                "gzip",
            ),
            (BROTLI_LEVELS, ParquetCompression::Brotli, "brotli"),
        ] {
            let (min, max) = (*levels.start(), *levels.end());
            for level in [min, max] {
                assert!(codec(level).codec().is_ok(), "{name} {level}");
            }
            let e = codec(max + 1).codec().unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("the {name} level is {}, outside {min}..={max}", max + 1)
            );
            assert_eq!(codec(max).pyarrow_name(), name);
            assert_eq!(
                ParquetCompression::from_name(name).map(|c| c.pyarrow_name()),
                Some(name)
            );
        }
    }
}
