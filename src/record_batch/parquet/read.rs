//! [`ParquetBatches`] and its options.

use super::check::{check_metadata, contain, footer_range, invalid};
use super::flat;
use super::options::ParquetReadOptions;
use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::retype;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, FieldRef, Schema, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::file::metadata::ParquetMetaDataReader;
use std::collections::VecDeque;
use std::sync::Arc;
use std::thread::JoinHandle;

/// The record batches of one Parquet file held in memory (a buffer or a memory map),
/// decoded batch by batch, with the Arrow schema the file stores.
///
/// [`ParquetBatches`] reads a file held in memory (or memory-mapped) batch by batch. Before
/// the `parquet` crate sees a byte, the reader checks the magic bytes at both ends, that the
/// footer fits the file and [`Limits::max_metadata_len`](crate::Limits::max_metadata_len),
/// and the nesting depth and size of the schema; from the decoded footer it checks the row
/// group, column and row counts against [`ParquetReadOptions`], that every column chunk
/// lies inside the file, and, from the page headers, that every page lies inside its column
/// chunk and holds the uncompressed size it declares (checked before decoding for Snappy
/// and uncompressed pages, by the `parquet` crate for the other codecs). Pages of every
/// codec pyarrow writes are read: none, Snappy, gzip, Brotli, LZ4 (`LZ4_RAW`, and the older
/// `LZ4`) and Zstandard. The `parquet` crate still panics on some corrupt files: every call
/// into it runs under [`std::panic::catch_unwind`], a panic becomes
/// [`ErrorKind::ParquetPanicked`](crate::ErrorKind::ParquetPanicked) and the reader stops
/// (this needs the default `panic = "unwind"`; the panic is still reported by the panic
/// hook, on standard error by default). Any other failure is an
/// [`ErrorKind::InvalidParquet`](crate::ErrorKind::InvalidParquet) naming the part of the
/// file, or a [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) /
/// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded).
///
/// Files whose columns are all flat, required numbers (integers of 8 to 64 bits, floats;
/// every COO table this crate writes), stored uncompressed or with Snappy, are decoded by
/// this crate itself, straight into arrays of their Arrow width; the memory of a batch the
/// caller drops is reused for the next batch. Every other file is decoded by the `parquet`
/// crate's Arrow reader. Both give the same batches.
///
/// The batches read are checked by the same functions as those of an IPC file when they
/// are turned into tensors ([`coo_table_to_sparse`](crate::record_batch::coo_table_to_sparse),
/// [`fixed_shape_to_tensor`](crate::record_batch::fixed_shape_to_tensor), ...), so metadata that lies
/// fails alike.
///
/// ```
/// use arrow_tensor_ipc::record_batch::{
///     coo_table_to_sparse, sparse_to_coo_table, ParquetBatches, ParquetReadOptions,
///     ParquetWriteOptions, ParquetWriter,
/// };
/// use arrow_tensor_ipc::SparseTensor;
///
/// // A 3 x 4 matrix with three stored values, as a COO table.
/// let tensor = SparseTensor::coo([3, 4], vec![0i64, 1, 1, 3, 2, 0], vec![1.5f64, 2.5, 3.5])?;
/// let table = sparse_to_coo_table(&tensor)?;
///
/// let mut writer = ParquetWriter::new(Vec::new(), table.schema(), &ParquetWriteOptions::default())?;
/// writer.write(&table)?;
/// let bytes = writer.finish()?;
///
/// let mut batches = ParquetBatches::new(bytes, &ParquetReadOptions::default())?;
/// assert_eq!(batches.num_rows(), 3);
/// assert_eq!(batches.schema(), &table.schema()); // with the COO-table metadata
/// let read = batches.next().unwrap()?;
/// assert!(batches.next().is_none());
/// let back = coo_table_to_sparse(&read, None)?;
/// assert_eq!(back.shape(), &[3, 4]);
/// let dense = back.to_dense()?;
/// assert_eq!(dense.as_slice::<f64>().unwrap()[7], 2.5); // row 1, column 3
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub struct ParquetBatches {
    schema: SchemaRef,
    num_rows: u64,
    /// `None` once the batches are exhausted or an error stopped them.
    reader: Option<Decoder>,
    /// Batches returned so far.
    batches: u64,
    /// Rows returned so far.
    rows_read: u64,
    /// Rows per batch.
    batch_rows: u64,
}

/// How the batches are decoded.
enum Decoder {
    /// One reader over every row group, on the caller's thread.
    Sequential(ParquetRecordBatchReader),
    /// Row groups decoded ahead on worker threads, returned in order.
    Parallel(Box<Parallel>),
    /// Row groups of flat number columns decoded by [`flat`] on the caller's thread.
    Flat(Box<FlatGroups>),
}

/// The row groups of a file [`flat`] decodes, read one after the other.
struct FlatGroups {
    data: Bytes,
    arrow: ArrowReaderMetadata,
    plan: Arc<flat::Plan>,
    batch_rows: usize,
    starts: Vec<u64>,
    next_group: usize,
    /// The row group being read and its index.
    current: Option<(usize, flat::Group)>,
}

impl FlatGroups {
    fn next(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if let Some((group, reader)) = &mut self.current {
                let group = *group;
                let part = || part(&self.starts, group);
                match contain(part, || reader.next_batch()) {
                    Ok(Some(Ok(batch))) => return Some(Ok(batch)),
                    Ok(Some(Err(reason))) => {
                        self.current = None;
                        return Some(invalid(part(), reason));
                    }
                    Ok(None) => self.current = None,
                    Err(e) => {
                        self.current = None;
                        return Some(Err(e));
                    }
                }
            }
            let group = self.next_group;
            if group + 1 >= self.starts.len() {
                return None;
            }
            self.next_group += 1;
            let part = || part(&self.starts, group);
            let opened = contain(part, || {
                flat::Group::new(
                    &self.data,
                    &self.arrow,
                    self.plan.clone(),
                    group,
                    self.batch_rows,
                )
            });
            match opened {
                Ok(Ok(reader)) => self.current = Some((group, reader)),
                Ok(Err(reason)) => return Some(invalid(part(), reason)),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// `row group G (rows A..B)`, from the first row of each row group (and the file's rows
/// at the end).
fn part(starts: &[u64], group: usize) -> String {
    let start = starts.get(group).copied().unwrap_or(0);
    let end = starts.get(group + 1).copied().unwrap_or(start);
    format!("row group {group} (rows {start}..{end})")
}

/// Row groups decoded ahead on worker threads.
struct Parallel {
    data: Bytes,
    arrow: ArrowReaderMetadata,
    batch_rows: usize,
    /// The first row of each row group, and the file's rows at the end.
    starts: Vec<u64>,
    /// The next row group to hand to a worker.
    next_group: usize,
    threads: usize,
    /// Row groups being decoded, in order.
    pending: VecDeque<Worker>,
    /// How [`flat`] decodes the file, when it does.
    plan: Option<Arc<flat::Plan>>,
}

/// A thread decoding one row group, sending its batches as they are decoded (then an
/// error, if one stops it).
struct Worker {
    group: usize,
    batches: std::sync::mpsc::Receiver<Result<RecordBatch>>,
    thread: JoinHandle<()>,
}

impl Parallel {
    /// `row group G (rows A..B)`.
    fn part(&self, group: usize) -> String {
        part(&self.starts, group)
    }

    /// Starts workers until `threads` row groups are being decoded.
    fn spawn(&mut self) {
        while self.pending.len() < self.threads && self.next_group + 1 < self.starts.len() {
            let group = self.next_group;
            self.next_group += 1;
            let part = self.part(group);
            let (data, arrow, rows) = (self.data.clone(), self.arrow.clone(), self.batch_rows);
            let plan = self.plan.clone();
            let (send, batches) = std::sync::mpsc::channel();
            let thread = std::thread::spawn(move || {
                let decoded = contain(
                    || part.clone(),
                    || -> std::result::Result<(), String> {
                        if let Some(plan) = plan {
                            let mut reader = flat::Group::new(&data, &arrow, plan, group, rows)?;
                            while let Some(batch) = reader.next_batch() {
                                if send.send(Ok(batch?)).is_err() {
                                    return Ok(());
                                }
                            }
                            return Ok(());
                        }
                        let reader =
                            ParquetRecordBatchReaderBuilder::new_with_metadata(data, arrow)
                                .with_row_groups(vec![group])
                                .with_batch_size(rows)
                                .build()
                                .map_err(|e| e.to_string())?;
                        for batch in reader {
                            let batch = batch.map_err(|e| e.to_string())?;
                            if send.send(Ok(batch)).is_err() {
                                // The batches were dropped: nobody wants the rest.
                                return Ok(());
                            }
                        }
                        Ok(())
                    },
                );
                let failed = match decoded {
                    Ok(Ok(())) => return,
                    Ok(Err(reason)) => invalid(part, reason),
                    Err(e) => Err(e),
                };
                let _ = send.send(failed);
            });
            self.pending.push_back(Worker {
                group,
                batches,
                thread,
            });
        }
    }

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            self.spawn();
            let worker = self.pending.front()?;
            match worker.batches.recv() {
                Ok(batch) => return Some(batch),
                // The row group is done (its thread dropped its sender).
                Err(_) => {
                    let worker = self.pending.pop_front()?;
                    // The worker's own panics are contained: this is one outside the
                    // parquet crate.
                    if worker.thread.join().is_err() {
                        return Some(invalid(
                            self.part(worker.group),
                            "the thread decoding it stopped without a result",
                        ));
                    }
                }
            }
        }
    }
}

/// Bytes of uncompressed data a batch holds by default.
const BATCH_BYTES: u64 = 2 << 20;

impl ParquetBatches {
    /// Opens the Parquet file in `data`: checks and decodes its footer.
    pub fn new(data: impl Into<Bytes>, options: &ParquetReadOptions) -> Result<Self> {
        let data: Bytes = data.into();
        let footer = footer_range(&data, options)?;
        let footer_bytes = data.get(footer.clone()).unwrap_or_default();
        super::check::check_footer_thrift(footer_bytes, options)?;
        let metadata = contain(
            || "footer".to_string(),
            || ParquetMetaDataReader::decode_metadata(footer_bytes),
        )?
        .or_else(|e| invalid("footer", e.to_string()))?;
        let num_rows = check_metadata(&metadata, options, &data, footer.start as u64)?;
        let batch_rows = match options.batch_rows {
            Some(rows) => rows.max(1),
            None => {
                let per_row = metadata
                    .row_groups()
                    .iter()
                    .map(|g| {
                        let bytes: i64 = g
                            .columns()
                            .iter()
                            .map(|c| c.uncompressed_size().max(0))
                            .fold(0i64, i64::saturating_add);
                        (bytes.max(0) as u64).div_ceil(g.num_rows().max(1) as u64)
                    })
                    .max()
                    .unwrap_or(1)
                    .max(1);
                (BATCH_BYTES / per_row).clamp(1, 1 << 20) as usize
            }
        };
        let arrow = contain(
            || "footer (Arrow schema)".to_string(),
            || ArrowReaderMetadata::try_new(Arc::new(metadata), ArrowReaderOptions::new()),
        )?
        .or_else(|e| invalid("footer (Arrow schema)", e.to_string()))?;
        let stored = contain(
            || "footer (ARROW:schema)".to_string(),
            || stored_schema(arrow.metadata()),
        )?;
        let schema = match stored {
            Some(stored) => with_stored_nullability(arrow.schema(), &stored),
            None => arrow.schema().clone(),
        };
        for field in schema.fields() {
            check_type(field.name(), field.data_type(), options.limits.max_rank, 0)?;
        }
        let groups = arrow.metadata().num_row_groups();
        let threads = crate::parallel::thread_count(options.threads);
        let plan = flat::plan(&arrow).map(Arc::new);
        // The direct path knows the batch's size in memory: its arrays' widths.
        let batch_rows = match (&plan, options.batch_rows) {
            // A multiple of 8 rows: bit-packed values come in groups of eight.
            (Some(plan), None) => {
                ((BATCH_BYTES / plan.row_bytes()).clamp(8, 1 << 20) as usize) & !7
            }
            _ => batch_rows,
        };
        let mut starts = Vec::with_capacity(groups + 1);
        let mut at = 0u64;
        starts.push(0);
        for g in arrow.metadata().row_groups() {
            at = at.saturating_add(g.num_rows().max(0) as u64);
            starts.push(at);
        }
        let reader = if threads > 1 && groups > 1 {
            Decoder::Parallel(Box::new(Parallel {
                data,
                arrow,
                batch_rows,
                starts,
                next_group: 0,
                threads,
                pending: VecDeque::new(),
                plan,
            }))
        } else if let Some(plan) = plan {
            Decoder::Flat(Box::new(FlatGroups {
                data,
                arrow,
                plan,
                batch_rows,
                starts,
                next_group: 0,
                current: None,
            }))
        } else {
            let reader = contain(
                || "row groups".to_string(),
                || {
                    ParquetRecordBatchReaderBuilder::new_with_metadata(data, arrow)
                        .with_batch_size(batch_rows)
                        .build()
                },
            )?
            .or_else(|e| invalid("row groups", e.to_string()))?;
            Decoder::Sequential(reader)
        };
        Ok(ParquetBatches {
            schema,
            num_rows,
            reader: Some(reader),
            batches: 0,
            rows_read: 0,
            batch_rows: batch_rows as u64,
        })
    }

    /// Reads the file at `path` into memory and opens it.
    pub fn open(path: impl AsRef<std::path::Path>, options: &ParquetReadOptions) -> Result<Self> {
        Self::new(std::fs::read(path)?, options)
    }

    /// Memory-maps the file at `path` and opens it.
    ///
    /// # Safety
    ///
    /// As for [`map_file`](crate::map_file): the file must not be truncated or modified
    /// while the batches, or any array read from them, are alive.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn open_mmap(
        path: impl AsRef<std::path::Path>,
        options: &ParquetReadOptions,
    ) -> Result<Self> {
        // SAFETY: the caller upholds map_file's contract.
        let map = unsafe { crate::io::map_file(path.as_ref())? };
        Self::new(Bytes::from_owner(map), options)
    }

    /// The Arrow schema of the batches, with the metadata the file stores (the schema
    /// metadata and each field's, such as extension types).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The number of rows of the file, from its footer.
    pub fn num_rows(&self) -> u64 {
        self.num_rows
    }
}

impl ParquetBatches {
    /// `batch` with the stored schema: the parquet crate's batches carry the fields but
    /// not the schema's metadata, and take the nullability of nested fields from the
    /// Parquet schema (optional inside the tensor columns this crate writes, see
    /// `write::relaxed`), which the stored schema may declare non-nullable.
    fn restore(&self, batch: RecordBatch) -> Result<RecordBatch> {
        let columns = batch
            .columns()
            .iter()
            .zip(self.schema.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(c.clone())
                } else {
                    Ok(arrow_array::make_array(retype(c.to_data(), f.data_type())?))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &options,
        )?)
    }
}

impl Iterator for ParquetBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let reader = self.reader.as_mut()?;
        let batch = self.batches;
        let (start, end) = (
            self.rows_read,
            self.rows_read.saturating_add(self.batch_rows),
        );
        let end = end.min(self.num_rows);
        let part = || format!("rows {start}..{end}");
        let next = match reader {
            Decoder::Sequential(reader) => match contain(part, || reader.next()) {
                Ok(Some(Ok(b))) => Ok(Some(Ok(b))),
                Ok(Some(Err(e))) => Ok(Some(invalid(part(), e.to_string()))),
                Ok(None) => Ok(None),
                Err(e) => Err(e),
            },
            Decoder::Parallel(p) => Ok(p.next()),
            Decoder::Flat(f) => Ok(f.next()),
        };
        let result = match next {
            // The parquet crate's batches carry the fields but not the schema's metadata.
            Ok(Some(Ok(b))) => self.restore(b).map_err(|e| match e.into_kind() {
                kind @ (ErrorKind::InvalidColumn { .. } | ErrorKind::NullCell { .. }) => {
                    kind.into()
                }
                kind => ErrorKind::InvalidParquet {
                    part: part(),
                    reason: format!("a batch does not match the file's schema: {kind}"),
                }
                .into(),
            }),
            Ok(Some(Err(e))) => Err(e),
            Ok(None) => {
                self.reader = None;
                return None;
            }
            Err(e) => Err(e),
        };
        match &result {
            Ok(b) => self.rows_read += b.num_rows() as u64,
            Err(_) => self.reader = None,
        }
        self.batches += 1;
        Some(result.map_err(|e| e.at_batch(batch)))
    }
}

/// Refuses a column type the readers of this crate do not take from untrusted files (the
/// same set as for Arrow IPC: numbers, booleans, strings, binary, dates, and lists and
/// structs of them), or nested deeper than `max_depth`.
fn check_type(column: &str, t: &DataType, max_depth: usize, depth: usize) -> Result<()> {
    use DataType as D;
    if depth > max_depth {
        return fail(ErrorKind::ColumnLimitExceeded {
            column: column.to_string(),
            what: "nesting depth".to_string(),
            value: depth as u64,
            limit: max_depth as u64,
            rule: "Limits::max_rank".to_string(),
        });
    }
    let ok = match t {
        t if crate::record_batch::ipc::plain_leaf(t) => true,
        D::List(f) | D::LargeList(f) | D::FixedSizeList(f, _) => {
            return check_type(column, f.data_type(), max_depth, depth + 1)
        }
        D::Struct(fields) => {
            for f in fields {
                check_type(column, f.data_type(), max_depth, depth + 1)?;
            }
            true
        }
        _ => false,
    };
    if !ok {
        return fail(ErrorKind::InvalidColumn {
            column: column.to_string(),
            reason: format!(
                "type {t} is not read here (numbers, booleans, strings, binary, dates, lists and structs of them are)"
            ),
        });
    }
    Ok(())
}

/// The Arrow schema stored in the file (key `ARROW:schema`: base64 of an IPC schema
/// message), when present and readable. The parquet crate has read it already (its
/// types, field and schema metadata are in the schema it gives); only the nullability of
/// nested fields is taken from here.
fn stored_schema(metadata: &parquet::file::metadata::ParquetMetaData) -> Option<Schema> {
    let text = metadata
        .file_metadata()
        .key_value_metadata()?
        .iter()
        .find(|kv| kv.key == parquet::arrow::ARROW_SCHEMA_META_KEY)?
        .value
        .as_deref()?;
    let bytes = base64_decode(text.as_bytes())?;
    let meta = crate::codec::framing::first_metadata(&bytes)?;
    let message = arrow_ipc::root_as_message(meta).ok()?;
    arrow_ipc::convert::try_fb_to_schema(message.header_as_schema()?).ok()
}

/// Standard base64 (padding optional); `None` on any other byte.
fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let text = text
        .strip_suffix(b"==")
        .or_else(|| text.strip_suffix(b"="))
        .unwrap_or(text);
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for chunk in text.chunks(4) {
        let mut word = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            word |= value(c)? << (18 - 6 * i as u32);
        }
        let bytes = word.to_be_bytes();
        match chunk.len() {
            4 => out.extend_from_slice(bytes.get(1..4)?),
            3 => out.extend_from_slice(bytes.get(1..3)?),
            2 => out.extend_from_slice(bytes.get(1..2)?),
            _ => return None,
        }
    }
    Some(out)
}

/// `inferred` (the parquet crate's schema) with each field replaced by the stored one
/// where the two differ only in the nullability of nested fields.
fn with_stored_nullability(inferred: &SchemaRef, stored: &Schema) -> SchemaRef {
    if inferred.fields().len() != stored.fields().len() {
        return inferred.clone();
    }
    let mut changed = false;
    let fields: Vec<FieldRef> = inferred
        .fields()
        .iter()
        .zip(stored.fields())
        .map(|(i, s)| {
            if i != s
                && i.name() == s.name()
                && i.is_nullable() == s.is_nullable()
                && i.metadata() == s.metadata()
                && same_but_nullability(i.data_type(), s.data_type())
            {
                changed = true;
                s.clone()
            } else {
                i.clone()
            }
        })
        .collect();
    if !changed {
        return inferred.clone();
    }
    Arc::new(Schema::new_with_metadata(
        fields,
        inferred.metadata().clone(),
    ))
}

/// Whether `a` and `b` are equal but for the nullability of nested fields.
fn same_but_nullability(a: &DataType, b: &DataType) -> bool {
    use DataType as D;
    let field = |x: &FieldRef, y: &FieldRef| {
        x.name() == y.name() && same_but_nullability(x.data_type(), y.data_type())
    };
    match (a, b) {
        (D::List(x), D::List(y)) | (D::LargeList(x), D::LargeList(y)) => field(x, y),
        (D::FixedSizeList(x, n), D::FixedSizeList(y, m)) => n == m && field(x, y),
        (D::Struct(xs), D::Struct(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys.iter()).all(|(x, y)| field(x, y))
        }
        _ => a == b,
    }
}
