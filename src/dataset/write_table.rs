//! COO-table record batches into a dataset: [`DatasetWriter::write_table`], and the
//! dataset writer as a [`BatchWriter`].

use super::DatasetWriter;
use crate::error::{fail, ErrorKind, Result};
use crate::parallel::alloc::try_vec;
use crate::record_batch::arrays::data_type;
use crate::record_batch::BatchWriter;
use crate::IndexArray;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, SchemaRef};

impl DatasetWriter {
    /// Writes a batch of a COO table of the whole tensor, in global coordinates: one
    /// integer column (8 to 64 bits) per dimension, then the values in the tensor's type,
    /// without nulls (the columns of [`DatasetWriter::schema`], such as
    /// `record_batch::sparse_to_coo_table` makes). Rows may come in any order and fall in
    /// any tiles.
    pub fn write_table(&mut self, batch: &RecordBatch) -> Result<()> {
        let rank = self.info().ndim();
        let value_type = self.info().value_type;
        let columns = batch.columns();
        let name = |d: usize| batch.schema().field(d).name().clone();
        if columns.len() != rank + 1 {
            return fail(ErrorKind::CountMismatch {
                what: format!("columns of a COO-table batch of a rank-{rank} dataset"),
                expected: (rank + 1) as u64,
                found: columns.len() as u64,
            });
        }
        for (d, column) in columns.iter().enumerate() {
            if column.null_count() > 0 {
                let row = (0..column.len()).find(|&i| column.is_null(i)).unwrap_or(0);
                return fail(ErrorKind::NullCell {
                    column: name(d),
                    row,
                    what: if d < rank { "coordinate" } else { "value" },
                });
            }
        }
        let n = batch.num_rows();
        let mut coords = try_vec(n.saturating_mul(rank), 0i64, "coordinates")?;
        for (d, column) in columns.iter().take(rank).enumerate() {
            macro_rules! copy {
                ($t:ty) => {
                    for (slot, &x) in coords
                        .iter_mut()
                        .skip(d)
                        .step_by(rank)
                        .zip(column.as_primitive::<$t>().values().iter())
                    {
                        *slot = x as i64;
                    }
                };
            }
            match column.data_type() {
                DataType::Int8 => copy!(Int8Type),
                DataType::Int16 => copy!(Int16Type),
                DataType::Int32 => copy!(Int32Type),
                DataType::Int64 => copy!(Int64Type),
                other => {
                    return fail(ErrorKind::InvalidColumn {
                        column: name(d),
                        reason: format!("a coordinate column of type {other}"),
                    })
                }
            }
        }
        let Some(values) = columns.get(rank) else {
            return Ok(());
        };
        let expected = data_type(value_type);
        if values.data_type() != &expected {
            return fail(ErrorKind::TypeMismatch {
                expected: expected.to_string(),
                found: values.data_type().to_string(),
            });
        }
        let data = values.to_data();
        let width = value_type.byte_width();
        let bytes = data
            .buffers()
            .first()
            .and_then(|b| b.get(data.offset() * width..(data.offset() + n) * width));
        let Some(bytes) = bytes else {
            return fail(ErrorKind::InvalidColumn {
                column: name(rank),
                reason: "values buffer shorter than its length".into(),
            });
        };
        self.write_entries(&IndexArray::from_vec(coords), bytes)
    }
}

impl BatchWriter for DatasetWriter {
    fn schema(&self) -> &SchemaRef {
        DatasetWriter::schema(self)
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_table(batch)
    }

    fn close(self: Box<Self>) -> Result<()> {
        self.finish().map(drop)
    }
}
