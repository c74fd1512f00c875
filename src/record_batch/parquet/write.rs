//! [`ParquetWriter`] and its options.

use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::retype;
use arrow_array::{make_array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::arrow::{encode_arrow_schema, ARROW_SCHEMA_META_KEY};
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use std::io::Write;
use std::sync::Arc;

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
    fn codec(self) -> Result<Compression> {
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

/// Options of [`ParquetWriter`].
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
}

impl Default for ParquetWriteOptions {
    fn default() -> Self {
        ParquetWriteOptions {
            compression: ParquetCompression::default(),
            row_group_rows: 1 << 20,
            row_group_bytes: 128 << 20,
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

    fn properties(&self) -> Result<WriterProperties> {
        Ok(WriterProperties::builder()
            .set_compression(self.compression.codec()?)
            .set_max_row_group_row_count(Some(self.row_group_rows.max(1)))
            .set_max_row_group_bytes(Some(self.row_group_bytes.max(1)))
            // Min/max per column chunk (what engines prune row groups by); per-page
            // statistics and the page index cost time on every value and help few readers.
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_created_by(concat!("arrow-tensor-ipc ", env!("CARGO_PKG_VERSION")).to_string())
            .build())
    }
}

/// Writes record batches of one schema to a Parquet file, batch by batch, with the Arrow
/// schema stored in the file.
///
/// [`ParquetWriter`] writes batches of one schema (fixed-shape and variable-shape tensor
/// columns, COO tables, any columns beside them) batch by batch: a row group is flushed as
/// soon as it holds [`ParquetWriteOptions::row_group_rows`] rows or about
/// [`ParquetWriteOptions::row_group_bytes`] bytes, so memory stays bounded by one row group
/// whatever the number of batches. The Arrow schema is stored in the file (key
/// `ARROW:schema`), so the extension types (field metadata `ARROW:extension:name` and
/// `ARROW:extension:metadata`) and the COO-table schema metadata
/// ([`COO_TABLE_KEY`](crate::record_batch::COO_TABLE_KEY)) come back in pyarrow and arrow-rs.
///
/// ```
/// use arrow_tensor_ipc::record_batch::{
///     tensor_to_fixed_shape, FixedShapeOptions, ParquetBatches, ParquetReadOptions,
///     ParquetWriteOptions, ParquetWriter,
/// };
/// use arrow_tensor_ipc::Tensor;
///
/// let t = Tensor::from_vec(vec![4, 2], (0..8u8).collect())?;
/// let batch = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())?.into_record_batch("t")?;
/// let mut w = ParquetWriter::new(Vec::new(), batch.schema(), &ParquetWriteOptions::default())?;
/// w.write(&batch)?;
/// let bytes = w.finish()?;
///
/// let mut read = ParquetBatches::new(bytes, &ParquetReadOptions::default())?;
/// assert_eq!(read.next().unwrap()?, batch);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub struct ParquetWriter<W: Write + Send> {
    inner: ArrowWriter<W>,
    /// The caller's schema, stored in the file.
    schema: SchemaRef,
    /// The schema of the arrays written (see [`relaxed`]).
    relaxed: SchemaRef,
}

impl<W: Write + Send> ParquetWriter<W> {
    /// Starts a Parquet file of batches of `schema` on `writer` (writes the leading magic).
    pub fn new(writer: W, schema: SchemaRef, options: &ParquetWriteOptions) -> Result<Self> {
        let relaxed = relaxed(&schema);
        // The stored Arrow schema is the caller's; the Parquet schema (and the arrays
        // written) follow the relaxed one.
        let mut properties = options.properties()?;
        properties = properties
            .into_builder()
            .set_key_value_metadata(Some(vec![KeyValue::new(
                ARROW_SCHEMA_META_KEY.to_string(),
                encode_arrow_schema(&schema),
            )]))
            .build();
        let writer_options = ArrowWriterOptions::new()
            .with_properties(properties)
            .with_skip_arrow_metadata(true);
        let inner = ArrowWriter::try_new_with_options(writer, relaxed.clone(), writer_options)
            .map_err(ErrorKind::parquet)?;
        Ok(ParquetWriter {
            inner,
            schema,
            relaxed,
        })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Writes one batch (its schema must be the writer's); flushes the row groups it fills.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.schema().fields() != self.schema.fields() {
            return fail(ErrorKind::Inconsistent {
                what: "the fields of a batch written to a Parquet file".to_string(),
                first: format!("{:?}", self.schema.fields()),
                found: format!("{:?}", batch.schema().fields()),
            });
        }
        if Arc::ptr_eq(&self.schema, &self.relaxed) {
            self.inner.write(batch).map_err(ErrorKind::parquet)?;
            return Ok(());
        }
        let columns = batch
            .columns()
            .iter()
            .zip(self.relaxed.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(c.clone())
                } else {
                    Ok(make_array(retype(c.to_data(), f.data_type())?))
                }
            })
            .collect::<Result<Vec<ArrayRef>>>()?;
        let relaxed = RecordBatch::try_new(self.relaxed.clone(), columns)?;
        self.inner.write(&relaxed).map_err(ErrorKind::parquet)?;
        Ok(())
    }

    /// Bytes written to the sink so far (flushed row groups).
    pub fn bytes_written(&self) -> usize {
        self.inner.bytes_written()
    }

    /// Flushes the last row group, writes the footer and returns the sink.
    pub fn finish(self) -> Result<W> {
        self.inner
            .into_inner()
            .map_err(|e| ErrorKind::parquet(e).into())
    }
}

/// `schema` with every field nested inside a tensor extension column made nullable: the
/// Parquet schema is derived from it. pyarrow restores a `fixed_shape_tensor` (or
/// `variable_shape_tensor`) from a Parquet file only when the storage type it infers from
/// the Parquet schema equals the one its extension type builds, whose list items are
/// nullable; arrow-rs's extension types want non-nullable items, which the stored Arrow
/// schema keeps. Optional Parquet leaves holding no nulls serve both.
fn relaxed(schema: &SchemaRef) -> SchemaRef {
    let mut changed = false;
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let tensor = f.metadata().get("ARROW:extension:name").is_some_and(|n| {
                n == super::super::FIXED_SHAPE_TENSOR || n == super::super::VARIABLE_SHAPE_TENSOR
            });
            if tensor {
                changed = true;
                f.as_ref()
                    .clone()
                    .with_data_type(nullable_children(f.data_type()))
            } else {
                f.as_ref().clone()
            }
        })
        .collect();
    if !changed {
        return schema.clone();
    }
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `t` with every nested field nullable.
fn nullable_children(t: &DataType) -> DataType {
    let child = |f: &Arc<Field>| {
        Arc::new(
            f.as_ref()
                .clone()
                .with_nullable(true)
                .with_data_type(nullable_children(f.data_type())),
        )
    };
    match t {
        DataType::List(f) => DataType::List(child(f)),
        DataType::LargeList(f) => DataType::LargeList(child(f)),
        DataType::FixedSizeList(f, n) => DataType::FixedSizeList(child(f), *n),
        DataType::Struct(fields) => DataType::Struct(fields.iter().map(child).collect()),
        other => other.clone(),
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
