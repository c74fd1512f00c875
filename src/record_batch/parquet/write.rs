//! [`ParquetWriter`] and its options.

use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::retype;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{make_array, Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_buffer::ArrowNativeType;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnWriter, ArrowLeafColumn, ArrowRowGroupWriterFactory,
    ArrowWriterOptions,
};
use parquet::arrow::{
    encode_arrow_schema, ArrowSchemaConverter, ArrowWriter, ARROW_SCHEMA_META_KEY,
};
use parquet::basic::{BrotliLevel, Compression, Encoding, GzipLevel, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
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

    fn properties(&self) -> Result<WriterProperties> {
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
    /// The sink until the first batch chooses the encodings, then the file.
    state: State<W>,
    /// The writer's properties without per-column encodings.
    properties: WriterProperties,
    row_group_rows: usize,
    row_group_bytes: usize,
    threads: usize,
    /// The caller's schema, stored in the file.
    schema: SchemaRef,
    /// The schema of the arrays written (see [`relaxed`]).
    relaxed: SchemaRef,
}

enum State<W: Write + Send> {
    /// Nothing written yet.
    Pending(W),
    /// The file, once started.
    Open(Box<Open<W>>),
    /// Starting the file, or writing a batch, failed: the file cannot go on.
    Failed,
}

/// A started file and its row group being filled.
struct Open<W: Write + Send> {
    file: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    /// The column writers of the row group being filled (one per Parquet leaf).
    columns: Vec<ArrowColumnWriter>,
    /// Rows in the row group being filled.
    rows: usize,
    /// Row groups started (the one being filled included).
    row_groups: usize,
}

impl<W: Write + Send> Open<W> {
    /// The encoded bytes buffered for the row group being filled.
    fn buffered_bytes(&self) -> usize {
        self.columns
            .iter()
            .map(ArrowColumnWriter::get_estimated_total_bytes)
            .sum()
    }

    /// Column writers for the next row group.
    fn next_columns(&mut self) -> Result<Vec<ArrowColumnWriter>> {
        let columns = self
            .factory
            .create_column_writers(self.row_groups)
            .map_err(ErrorKind::parquet)?;
        self.row_groups += 1;
        Ok(columns)
    }

    /// Writes a row group of closed column writers.
    fn append(&mut self, columns: Vec<ArrowColumnWriter>) -> Result<()> {
        let mut group = self.file.next_row_group().map_err(ErrorKind::parquet)?;
        for column in columns {
            let chunk = column.close().map_err(ErrorKind::parquet)?;
            chunk
                .append_to_row_group(&mut group)
                .map_err(ErrorKind::parquet)?;
        }
        group.close().map_err(ErrorKind::parquet)?;
        Ok(())
    }

    /// Writes the row group being filled, when it holds rows.
    fn flush(&mut self) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let next = self.next_columns()?;
        let columns = std::mem::replace(&mut self.columns, next);
        self.rows = 0;
        self.append(columns)
    }
}

/// Batches of fewer rows are encoded on the caller's thread.
const PARALLEL_ROWS: usize = 1 << 16;

impl<W: Write + Send> ParquetWriter<W> {
    /// Starts a Parquet file of batches of `schema` on `writer`. Nothing is written before
    /// the first batch (or [`ParquetWriter::finish`]): the first batch's values choose the
    /// encodings of its columns. Integer columns are written `DELTA_BINARY_PACKED` (a
    /// sorted coordinate column takes a few bits per value) unless a dictionary packs
    /// their first 2^16 values smaller (a coordinate over a short axis); float columns
    /// with a dictionary, or plain when more than a quarter of those values are distinct.
    pub fn new(writer: W, schema: SchemaRef, options: &ParquetWriteOptions) -> Result<Self> {
        let relaxed = relaxed(&schema);
        // The stored Arrow schema is the caller's; the Parquet schema (and the arrays
        // written) follow the relaxed one.
        let properties = options
            .properties()?
            .into_builder()
            .set_key_value_metadata(Some(vec![KeyValue::new(
                ARROW_SCHEMA_META_KEY.to_string(),
                encode_arrow_schema(&schema),
            )]))
            .build();
        Ok(ParquetWriter {
            state: State::Pending(writer),
            properties,
            row_group_rows: options.row_group_rows.max(1),
            row_group_bytes: options.row_group_bytes.max(1),
            threads: crate::parallel::thread_count(options.threads),
            schema,
            relaxed,
        })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The started file: started now, with encodings chosen from `first` (the relaxed
    /// columns of the first batch) when it is not yet.
    fn open(&mut self, first: &[ArrayRef]) -> Result<&mut Open<W>> {
        if let State::Pending(_) = self.state {
            let State::Pending(sink) = std::mem::replace(&mut self.state, State::Failed) else {
                unreachable!("matched above")
            };
            let parquet_schema = ArrowSchemaConverter::new()
                .convert(&self.relaxed)
                .map_err(ErrorKind::parquet)?;
            let mut properties = self.properties.clone().into_builder();
            for column in parquet_schema.columns() {
                // The first batch's values of the leaf, when its column nests lists only.
                let values = self
                    .relaxed
                    .fields()
                    .iter()
                    .position(|f| column.path().parts().first() == Some(f.name()))
                    .and_then(|i| first.get(i))
                    .and_then(leaf_values);
                if let Some(encoding) = values.and_then(|v| leaf_encoding(v.as_ref())) {
                    properties = properties
                        .set_column_dictionary_enabled(column.path().clone(), false)
                        .set_column_encoding(column.path().clone(), encoding);
                }
            }
            let writer_options = ArrowWriterOptions::new()
                .with_properties(properties.build())
                .with_skip_arrow_metadata(true);
            let (file, factory) =
                ArrowWriter::try_new_with_options(sink, self.relaxed.clone(), writer_options)
                    .and_then(ArrowWriter::into_serialized_writer)
                    .map_err(ErrorKind::parquet)?;
            let columns = factory
                .create_column_writers(0)
                .map_err(ErrorKind::parquet)?;
            self.state = State::Open(Box::new(Open {
                file,
                factory,
                columns,
                rows: 0,
                row_groups: 1,
            }));
        }
        match &mut self.state {
            State::Open(open) => Ok(open),
            _ => fail(ErrorKind::Refused {
                library: "parquet",
                what: "a batch".into(),
                reason: "the writer stopped at an earlier error".into(),
            }),
        }
    }

    /// Writes one batch (its schema must be the writer's); flushes the row groups it fills.
    ///
    /// The batch is cut at row group boundaries, and its parts' columns are encoded on
    /// [`ParquetWriteOptions::threads`] threads: one Parquet leaf of one row group at a
    /// time each. The encoded data of the row groups the batch fills is held until they
    /// are written, so memory holds about one row group, or one batch when a batch
    /// spans several row groups.
    ///
    /// A batch of other fields is refused and the writer goes on; any later failure
    /// (encoding, the sink) stops it: later calls fail.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.schema().fields() != self.schema.fields() {
            return fail(ErrorKind::Inconsistent {
                what: "the fields of a batch written to a Parquet file".to_string(),
                first: format!("{:?}", self.schema.fields()),
                found: format!("{:?}", batch.schema().fields()),
            });
        }
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let written = self.write_batch(batch);
        if written.is_err() {
            // Its column writers may hold part of the batch: the file cannot go on.
            self.state = State::Failed;
        }
        written
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<()> {
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
        // Bytes per row before anything is encoded: the batch's size in memory.
        let arrow_per_row = columns
            .iter()
            .map(|c| c.get_buffer_memory_size())
            .sum::<usize>()
            / batch.num_rows();
        let (group_rows, group_bytes, threads) =
            (self.row_group_rows, self.row_group_bytes, self.threads);
        let relaxed = self.relaxed.clone();
        let open = self.open(&columns)?;
        // The batch's parts: the rest of the row group being filled (by rows, and by
        // bytes at the encoded size per row so far), then whole row groups (by rows, and
        // by bytes at the batch's size per row), the last one perhaps partial.
        let bytes = open.buffered_bytes();
        let per_row = match open.rows {
            0 => arrow_per_row,
            rows => bytes / rows,
        }
        .max(1);
        let first = (group_rows - open.rows)
            .min((group_bytes.saturating_sub(bytes) / per_row).max(1))
            .min(batch.num_rows());
        let whole = group_rows.min((group_bytes / arrow_per_row.max(1)).max(1));
        let mut parts = Vec::new();
        parts.push(0..first);
        while parts.last().map_or(0, |p| p.end) < batch.num_rows() {
            let start = parts.last().map_or(0, |p| p.end);
            parts.push(start..(start + whole).min(batch.num_rows()));
        }
        // Each part's writers: the current row group's, then new ones.
        let mut writers = vec![std::mem::take(&mut open.columns)];
        for _ in 1..parts.len() {
            writers.push(open.next_columns()?);
        }
        let mut jobs = Vec::new();
        for (part, part_writers) in parts.iter().zip(writers.iter_mut()) {
            let mut leaves = Vec::with_capacity(part_writers.len());
            for (field, column) in relaxed.fields().iter().zip(&columns) {
                let slice = column.slice(part.start, part.len());
                leaves.extend(compute_leaves(field, &slice).map_err(ErrorKind::parquet)?);
            }
            jobs.extend(part_writers.iter_mut().zip(leaves));
        }
        let threads = if batch.num_rows() < PARALLEL_ROWS {
            1
        } else {
            threads.min(jobs.len())
        };
        encode(jobs, threads)?;
        // Every part but the last fills its row group; the last one stays open unless
        // full.
        let last = parts.len() - 1;
        let mut writers = writers.into_iter();
        for (i, part) in parts.iter().enumerate() {
            let part_writers = writers.next().unwrap_or_default();
            let rows = if i == 0 {
                open.rows + part.len()
            } else {
                part.len()
            };
            if i < last {
                open.append(part_writers)?;
            } else {
                open.columns = part_writers;
                open.rows = rows;
            }
        }
        if open.rows >= group_rows || open.buffered_bytes() >= group_bytes {
            open.flush()?;
        }
        Ok(())
    }

    /// Bytes written to the sink so far (flushed row groups).
    pub fn bytes_written(&self) -> usize {
        match &self.state {
            State::Open(open) => open.file.bytes_written(),
            _ => 0,
        }
    }

    /// Flushes the last row group, writes the footer and returns the sink.
    pub fn finish(mut self) -> Result<W> {
        let open = self.open(&[])?;
        open.flush()?;
        let State::Open(open) = self.state else {
            unreachable!("opened above")
        };
        open.file
            .into_inner()
            .map_err(|e| ErrorKind::parquet(e).into())
    }
}

/// Encodes each leaf into its column writer on `threads` threads, the jobs shared out as
/// threads free up.
fn encode(jobs: Vec<(&mut ArrowColumnWriter, ArrowLeafColumn)>, threads: usize) -> Result<()> {
    if threads <= 1 {
        for (writer, leaf) in jobs {
            writer.write(&leaf).map_err(ErrorKind::parquet)?;
        }
        return Ok(());
    }
    let jobs = std::sync::Mutex::new(jobs.into_iter());
    let next = || jobs.lock().ok().and_then(|mut j| j.next());
    let work = || -> parquet::errors::Result<()> {
        while let Some((writer, leaf)) = next() {
            writer.write(&leaf)?;
        }
        Ok(())
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut result = work();
        for worker in workers {
            let done = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            result = result.and(done);
        }
        result.map_err(|e| ErrorKind::parquet(e).into())
    })
}

/// Values of a leaf looked at to choose its encoding.
const SAMPLE: usize = 1 << 16;

/// The values of a column's one Parquet leaf: the column itself, or the values inside its
/// lists; `None` for structs and other nestings of several leaves.
fn leaf_values(array: &ArrayRef) -> Option<ArrayRef> {
    match array.data_type() {
        DataType::List(_) => leaf_values(array.as_list_opt::<i32>()?.values()),
        DataType::LargeList(_) => leaf_values(array.as_list_opt::<i64>()?.values()),
        DataType::FixedSizeList(_, _) => leaf_values(array.as_fixed_size_list_opt()?.values()),
        t if t.is_primitive() => Some(array.clone()),
        _ => None,
    }
}

/// The encoding of a leaf, chosen from its first values (dictionary off); `None` keeps
/// the `parquet` crate's default (a dictionary, falling back to plain when it grows past
/// the dictionary page limit).
///
/// Integers: `DELTA_BINARY_PACKED` stores each block of values as bit-packed differences
/// from the previous value, so sorted columns (a COO table's first coordinate, a row's
/// column indices) and columns of small steps take a few bits per value, and it encodes
/// and decodes without hashing. A column whose values jump around a small set of distinct
/// values (the last coordinate of a COO table over a short axis) is smaller as dictionary
/// indices, one bit less per value than its differences need. So the first [`SAMPLE`]
/// values are measured both ways (the differences packed as the encoding packs them; the
/// bit width of the distinct count per value, plus the dictionary itself) and the smaller
/// wins, differences on a tie.
///
/// Floats: plain when more than a quarter of the first [`SAMPLE`] values are distinct
/// (tensor data, measurements), where a dictionary would only fill up and be dropped.
fn leaf_encoding(array: &dyn Array) -> Option<Encoding> {
    let distinct_floats = |bits: Vec<u64>| {
        let quarter = bits.len() / 4;
        let mut distinct = std::collections::HashSet::with_capacity(1024);
        bits.into_iter()
            .any(|b| distinct.insert(b) && distinct.len() > quarter)
            .then_some(Encoding::PLAIN)
    };
    let values: Vec<i64> = match array.data_type() {
        DataType::Int8 => sample::<Int8Type>(array),
        DataType::Int16 => sample::<Int16Type>(array),
        DataType::Int32 => sample::<Int32Type>(array),
        DataType::Int64 => sample::<Int64Type>(array),
        DataType::UInt8 => sample::<UInt8Type>(array),
        DataType::UInt16 => sample::<UInt16Type>(array),
        DataType::UInt32 => sample::<UInt32Type>(array),
        DataType::UInt64 => sample::<UInt64Type>(array),
        DataType::Float32 => {
            let a = array.as_primitive_opt::<Float32Type>()?;
            let bits = a
                .values()
                .iter()
                .take(SAMPLE)
                .map(|v| u64::from(v.to_bits()));
            return distinct_floats(bits.collect());
        }
        DataType::Float64 => {
            let a = array.as_primitive_opt::<Float64Type>()?;
            let bits = a.values().iter().take(SAMPLE).map(|v| v.to_bits());
            return distinct_floats(bits.collect());
        }
        // Dates, times, timestamps: mostly sorted or of small steps.
        DataType::Date32
        | DataType::Date64
        | DataType::Time32(_)
        | DataType::Time64(_)
        | DataType::Timestamp(_, _)
        | DataType::Duration(_) => return Some(Encoding::DELTA_BINARY_PACKED),
        _ => return None,
    };
    if values.len() < 2 {
        return Some(Encoding::DELTA_BINARY_PACKED);
    }
    let width = |range: u64| u64::from(64 - range.leading_zeros());
    let deltas: Vec<i64> = values
        .iter()
        .zip(values.iter().skip(1))
        .map(|(a, b)| b.wrapping_sub(*a))
        .collect();
    // As DELTA_BINARY_PACKED stores them: blocks of 128 differences less the block's
    // smallest (a varint and 4 widths per block), bit-packed in 4 miniblocks of 32 at the
    // width of each miniblock's largest.
    let delta_bits: u64 = deltas
        .chunks(128)
        .map(|block| {
            let lo = block.iter().copied().min().unwrap_or(0);
            let packed: u64 = block
                .chunks(32)
                .map(|mini| {
                    let hi = mini.iter().copied().max().unwrap_or(lo);
                    32 * width(hi.wrapping_sub(lo) as u64)
                })
                .sum();
            packed + 48
        })
        .sum();
    let mut distinct = std::collections::HashSet::with_capacity(1024);
    for &v in &values {
        distinct.insert(v);
        if distinct.len() > SAMPLE / 4 {
            return Some(Encoding::DELTA_BINARY_PACKED);
        }
    }
    let entry_bits = if array.data_type().primitive_width() == Some(8) {
        64
    } else {
        32
    };
    let n = distinct.len() as u64;
    let dictionary_bits = values.len() as u64 * width(n.saturating_sub(1)) + n * entry_bits;
    (dictionary_bits >= delta_bits).then_some(Encoding::DELTA_BINARY_PACKED)
}

/// The first [`SAMPLE`] values of `array` (its nulls' slots included) as `i64` (past
/// `i64::MAX`: `i64::MAX`).
fn sample<T: ArrowPrimitiveType>(array: &dyn Array) -> Vec<i64> {
    array
        .as_primitive_opt::<T>()
        .map(|a| {
            a.values()
                .iter()
                .take(SAMPLE)
                .map(|v| v.to_i64().unwrap_or(i64::MAX))
                .collect()
        })
        .unwrap_or_default()
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
