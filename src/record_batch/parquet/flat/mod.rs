//! The direct path of [`ParquetBatches`](super::ParquetBatches) for files whose columns are
//! all flat, required numbers (integers of 8 to 64 bits and floats: a COO table is one),
//! stored uncompressed or with Snappy. Each column chunk's page headers are read here, its
//! pages decompressed into one buffer the column reuses, and its values decoded
//! ([`values`]) straight into each batch's arrays at their Arrow width: no zeroed buffer
//! per page, no 32-bit array narrowed afterwards. Files with any other column, codec, or a
//! column chunk listing an encoding [`values`] does not decode, take the `parquet` crate's
//! Arrow reader.

mod arrays;
mod values;

use super::thrift::Thrift;
use arrays::{Pool, POOL_BUFFERS};
use arrow_array::{make_array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_data::ArrayData;
use arrow_schema::{DataType, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_reader::ArrowReaderMetadata;
use parquet::basic::{Compression, Encoding, Type as Physical};
use std::sync::Arc;
use values::{Delta, Values, CHUNK};

/// How each column of a file the direct path reads is decoded.
pub(super) struct Plan {
    columns: Vec<Column>,
    schema: SchemaRef,
    /// The buffers of batches already dropped, for the next ones.
    pool: Arc<Pool>,
}

/// One column: its leaf's physical width and its Arrow type.
struct Column {
    name: String,
    data_type: DataType,
    /// Bytes per value as stored: 4 (`INT32`, `FLOAT`) or 8 (`INT64`, `DOUBLE`).
    stored: usize,
    /// Whether the stored type is an integer (`DELTA_BINARY_PACKED` applies).
    integer: bool,
    /// Bytes per value in the Arrow array: 1, 2, 4 or 8.
    width: usize,
}

/// The plan for `arrow`'s file, when every column is a flat, required number stored as the
/// `parquet` crate's Arrow reader maps it, and every column chunk lists only encodings
/// decoded here.
pub(super) fn plan(arrow: &ArrowReaderMetadata) -> Option<Plan> {
    let schema = arrow.schema();
    let parquet = arrow.metadata().file_metadata().schema_descr();
    if schema.fields().len() != parquet.num_columns() || schema.fields().is_empty() {
        return None;
    }
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (i, field) in schema.fields().iter().enumerate() {
        let leaf = parquet.column(i);
        if leaf.max_def_level() != 0 || leaf.max_rep_level() != 0 || leaf.path().parts().len() != 1
        {
            return None;
        }
        let (stored, integer, width) = match (field.data_type(), leaf.physical_type()) {
            (DataType::Int8 | DataType::UInt8, Physical::INT32) => (4, true, 1),
            (DataType::Int16 | DataType::UInt16, Physical::INT32) => (4, true, 2),
            (DataType::Int32 | DataType::UInt32, Physical::INT32) => (4, true, 4),
            (DataType::Int64 | DataType::UInt64, Physical::INT64) => (8, true, 8),
            (DataType::Float32, Physical::FLOAT) => (4, false, 4),
            (DataType::Float64, Physical::DOUBLE) => (8, false, 8),
            _ => return None,
        };
        columns.push(Column {
            name: field.name().clone(),
            data_type: field.data_type().clone(),
            stored,
            integer,
            width,
        });
    }
    #[allow(deprecated)] // BIT_PACKED: levels only, and no column here has any.
    let decoded = |e: Encoding| {
        matches!(
            e,
            Encoding::PLAIN
                | Encoding::PLAIN_DICTIONARY
                | Encoding::RLE_DICTIONARY
                | Encoding::DELTA_BINARY_PACKED
                | Encoding::BYTE_STREAM_SPLIT
                // Level encodings, listed by writers even for columns without levels.
                | Encoding::RLE
                | Encoding::BIT_PACKED
        )
    };
    let listed = arrow.metadata().row_groups().iter().all(|g| {
        g.columns().iter().all(|c| {
            c.encodings().all(decoded)
                && matches!(
                    c.compression(),
                    Compression::UNCOMPRESSED | Compression::SNAPPY
                )
        })
    });
    listed.then(|| Plan {
        columns,
        schema: schema.clone(),
        pool: Arc::new(Pool::default()),
    })
}

impl Plan {
    /// Bytes of one row in the arrays.
    pub(super) fn row_bytes(&self) -> u64 {
        self.columns
            .iter()
            .map(|c| c.width as u64)
            .sum::<u64>()
            .max(1)
    }
}

/// The most a Snappy stream can expand: 64 bytes out for 3 in, rounded up.
const SNAPPY_EXPANSION: usize = 22;

/// The batches of one row group, decoded column by column.
pub(super) struct Group {
    plan: Arc<Plan>,
    cursors: Vec<Cursor>,
    rows_left: usize,
    batch_rows: usize,
}

impl Group {
    /// Starts reading row group `group` of the file in `data`, in batches of `batch_rows`.
    pub(super) fn new(
        data: &Bytes,
        arrow: &ArrowReaderMetadata,
        plan: Arc<Plan>,
        group: usize,
        batch_rows: usize,
    ) -> Result<Self, String> {
        let metadata = arrow.metadata().row_group(group);
        let rows = usize::try_from(metadata.num_rows()).map_err(|_| "a negative row count")?;
        let cursors = plan
            .columns
            .iter()
            .enumerate()
            .map(|(i, column)| {
                let chunk = metadata.column(i);
                let (start, len) = chunk.byte_range();
                let bytes = usize::try_from(start)
                    .ok()
                    .zip(usize::try_from(len).ok())
                    .and_then(|(s, l)| Some(s..s.checked_add(l)?))
                    .filter(|r| r.end <= data.len())
                    .map(|r| data.slice(r))
                    .ok_or_else(|| {
                        format!(
                            "column {}: the column chunk lies outside the file",
                            column.name
                        )
                    })?;
                Ok(Cursor {
                    chunk: bytes,
                    chunk_at: start,
                    at: 0,
                    snappy: chunk.compression() == Compression::SNAPPY,
                    scratch: plan
                        .pool
                        .scratch
                        .lock()
                        .ok()
                        .and_then(|mut s| s.pop())
                        .unwrap_or_default(),
                    page_range: 0..0,
                    page_in_scratch: false,
                    dictionary: None,
                    page: None,
                    page_left: 0,
                    pages_read: 0,
                    values_read: 0,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Group {
            plan,
            cursors,
            rows_left: rows,
            batch_rows: batch_rows.max(1),
        })
    }

    /// The next batch, `None` after the group's last row.
    pub(super) fn next_batch(&mut self) -> Option<Result<RecordBatch, String>> {
        if self.rows_left == 0 {
            return None;
        }
        let rows = self.rows_left.min(self.batch_rows);
        self.rows_left -= rows;
        let columns = self
            .cursors
            .iter_mut()
            .zip(&self.plan.columns)
            .map(|(cursor, column)| {
                cursor
                    .take(column, rows, &self.plan.pool)
                    .map_err(|e| format!("column {}: {e}", column.name))
            })
            .collect::<Result<Vec<_>, String>>();
        let batch = columns.and_then(|columns| {
            let options = RecordBatchOptions::new().with_row_count(Some(rows));
            RecordBatch::try_new_with_options(self.plan.schema.clone(), columns, &options)
                .map_err(|e| e.to_string())
        });
        if batch.is_err() {
            self.rows_left = 0;
        }
        Some(batch)
    }
}

impl Drop for Group {
    /// Hands the page buffers back for the next row group.
    fn drop(&mut self) {
        if let Ok(mut scratch) = self.plan.pool.scratch.lock() {
            for cursor in &mut self.cursors {
                if scratch.len() < POOL_BUFFERS {
                    scratch.push(std::mem::take(&mut cursor.scratch));
                }
            }
        }
    }
}

/// Where one column chunk's reading stands.
struct Cursor {
    /// The column chunk's bytes, from byte `chunk_at` of the file.
    chunk: Bytes,
    chunk_at: u64,
    /// The next page header's byte in `chunk`.
    at: usize,
    snappy: bool,
    /// The current page's decompressed bytes (reused from page to page).
    scratch: Vec<u8>,
    /// The current page's value bytes: this range of `scratch`, or of `chunk` when the page
    /// is stored uncompressed.
    page_range: std::ops::Range<usize>,
    page_in_scratch: bool,
    /// The dictionary page's values, widened as [`values`] yields them.
    dictionary: Option<Vec<u64>>,
    /// The data page being read and its values not yet taken.
    page: Option<Values>,
    page_left: usize,
    pages_read: usize,
    values_read: usize,
}

impl Cursor {
    /// The column's next `rows` values as an array.
    fn take(&mut self, column: &Column, rows: usize, pool: &Arc<Pool>) -> Result<ArrayRef, String> {
        let mut out = pool.take(column.width, rows);
        let mut chunk = [0u64; CHUNK];
        while out.len() < rows {
            if self.page_left == 0 {
                self.next_page(column)?;
                continue;
            }
            let n = (rows - out.len()).min(self.page_left).min(CHUNK);
            let page = self.page.as_mut().ok_or("no data page")?;
            let dictionary = self.dictionary.as_deref().unwrap_or_default();
            let source = if self.page_in_scratch {
                &self.scratch
            } else {
                &self.chunk[..]
            };
            let data = source.get(self.page_range.clone()).unwrap_or_default();
            let page_error = |e: String| format!("page {}: {e}", self.pages_read.saturating_sub(1));
            let values = chunk.get_mut(..n).unwrap_or_default();
            page.next(data, values).map_err(page_error)?;
            if page.indexes() {
                out.extend_looked_up(values, dictionary)
                    .map_err(page_error)?;
            } else {
                out.extend(values);
            }
            self.page_left -= n;
            self.values_read += n;
        }
        let data = ArrayData::builder(column.data_type.clone())
            .len(rows)
            .add_buffer(Pool::share(pool, out))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(make_array(data))
    }

    /// Reads page headers up to the next data page with values, keeping a dictionary page
    /// met on the way.
    fn next_page(&mut self, column: &Column) -> Result<(), String> {
        loop {
            let index = self.pages_read;
            let header_at = self.chunk_at + self.at as u64;
            if self.at >= self.chunk.len() {
                return Err(format!(
                    "the column chunk ends after {} values, before the row group's rows",
                    self.values_read
                ));
            }
            let mut r = Thrift {
                bytes: &self.chunk,
                at: self.at,
            };
            let header = r
                .page_header()
                .ok_or_else(|| format!("the page header at byte {header_at} does not decode"))?;
            let body_at = r.at;
            let (Ok(compressed), Ok(uncompressed), Ok(levels)) = (
                usize::try_from(header.compressed),
                usize::try_from(header.uncompressed),
                usize::try_from(header.levels),
            ) else {
                return Err(format!(
                    "the page at byte {header_at} claims a negative size"
                ));
            };
            let body = body_at
                .checked_add(compressed)
                .filter(|&end| end <= self.chunk.len())
                .map(|end| body_at..end)
                .ok_or_else(|| {
                    format!("the page at byte {header_at} runs past the end of its column chunk")
                })?;
            self.at = body.end;
            self.pages_read += 1;
            let page_error = |e: String| format!("page {index} (byte {header_at}): {e}");
            // Index pages carry no values.
            if header.page_type == 1 {
                continue;
            }
            if !matches!(header.page_type, 0 | 2 | 3) {
                return Err(page_error(format!("page type {}", header.page_type)));
            }
            // The page's bytes after its levels (stored as they are in a v2 page), through
            // the codec unless a v2 page says it is stored uncompressed.
            let levels = if header.page_type == 3 { levels } else { 0 };
            if levels > compressed.min(uncompressed) {
                return Err(page_error(format!("{levels} bytes of levels")));
            }
            let stored = body.start + levels..body.end;
            let expected = uncompressed - levels;
            // `check_pages` has bounded the declared size when the file was opened.
            if self.snappy && header.codec_applied {
                let input = self.chunk.get(stored).unwrap_or_default();
                let n = snap::raw::decompress_len(input).map_err(|e| page_error(e.to_string()))?;
                if n != expected {
                    return Err(page_error(format!(
                        "{n} bytes of Snappy data where the header declares {expected}"
                    )));
                }
                // A Snappy element yields at most 64 bytes from 3 (a copy with a 2-byte
                // offset): a larger claim cannot be true, and is refused before the buffer
                // grows to it.
                if n / SNAPPY_EXPANSION > input.len() {
                    return Err(page_error(format!(
                        "{n} bytes claimed from {} bytes of Snappy data",
                        input.len()
                    )));
                }
                if self.scratch.len() < n {
                    self.scratch.resize(n, 0);
                }
                let written = snap::raw::Decoder::new()
                    .decompress(input, self.scratch.get_mut(..n).unwrap_or_default())
                    .map_err(|e| page_error(e.to_string()))?;
                if written != n {
                    return Err(page_error(format!(
                        "{written} bytes of Snappy data where its length says {n}"
                    )));
                }
                self.page_range = 0..n;
                self.page_in_scratch = true;
            } else {
                if stored.len() != expected {
                    return Err(page_error(format!(
                        "{} bytes stored where the header declares {expected}",
                        stored.len()
                    )));
                }
                self.page_range = stored;
                self.page_in_scratch = false;
            }
            let source = if self.page_in_scratch {
                &self.scratch
            } else {
                &self.chunk[..]
            };
            let data = source.get(self.page_range.clone()).unwrap_or_default();
            let encoding = header.encoding;
            if header.page_type == 2 {
                if self.dictionary.is_some() {
                    return Err(page_error("a second dictionary page".to_string()));
                }
                // PLAIN (0) or PLAIN_DICTIONARY (2).
                if !matches!(encoding, 0 | 2) {
                    return Err(page_error(format!(
                        "a dictionary page in encoding {encoding}"
                    )));
                }
                let count = usize::try_from(header.dictionary_values)
                    .map_err(|_| page_error("a negative dictionary size".to_string()))?;
                let values = values::plain_all(data, column.stored, count).map_err(page_error)?;
                self.dictionary = Some(values);
                continue;
            }
            if header.nulls != 0 {
                return Err(page_error(format!(
                    "{} nulls in a required column",
                    header.nulls
                )));
            }
            let count = usize::try_from(header.values).unwrap_or(usize::MAX);
            // Encodings by their Thrift numbers: PLAIN 0, PLAIN_DICTIONARY 2,
            // DELTA_BINARY_PACKED 5, RLE_DICTIONARY 8, BYTE_STREAM_SPLIT 9.
            let page = match encoding {
                0 => Values::plain(data, column.stored, count),
                9 => Values::split(data, column.stored, count),
                5 if column.integer => {
                    Delta::new(data, count, 8 * column.stored as u32).map(Values::Delta)
                }
                2 | 8 => {
                    if self.dictionary.is_none() {
                        return Err(page_error(
                            "dictionary-encoded values before any dictionary page".to_string(),
                        ));
                    }
                    Values::dictionary(data)
                }
                other => Err(format!("values in encoding {other}, not read here")),
            }
            .map_err(page_error)?;
            self.page = Some(page);
            self.page_left = count;
            if count > 0 {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests;
