//! [`ParquetWriter`].

use super::encoding::{leaf_encoding, leaf_values};
use super::options::ParquetWriteOptions;
use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::retype;
use arrow_array::{make_array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnWriter, ArrowLeafColumn, ArrowRowGroupWriterFactory,
    ArrowWriterOptions,
};
use parquet::arrow::{
    encode_arrow_schema, ArrowSchemaConverter, ArrowWriter, ARROW_SCHEMA_META_KEY,
};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use std::io::Write;
use std::sync::Arc;

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
