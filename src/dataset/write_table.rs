//! COO-table record batches into a dataset: [`DatasetWriter::write_table`], and the
//! dataset writer as a [`BatchWriter`].

use super::DatasetWriter;
use crate::error::{fail, ErrorKind, Result};
use crate::parallel::alloc::try_vec;
use crate::record_batch::arrays::{coordinates_into, data_type, first_null, primitive_bytes};
use crate::record_batch::BatchWriter;
use crate::IndexArray;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

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
        for (d, column) in columns.iter().take(rank).enumerate() {
            if let Some(row) = first_null(column) {
                return fail(ErrorKind::NullCell {
                    column: name(d),
                    row,
                    what: "coordinate",
                });
            }
        }
        let n = batch.num_rows();
        let mut coords = try_vec(n.saturating_mul(rank), 0i64, "coordinates")?;
        for (d, column) in columns.iter().take(rank).enumerate() {
            coordinates_into(column, &name(d), d, rank, 0, &mut coords)?;
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
        let bytes = primitive_bytes(values, value_type.byte_width(), &name(rank), "value", |i| i)?;
        self.write_entries(&IndexArray::from_vec(coords), &bytes)
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
