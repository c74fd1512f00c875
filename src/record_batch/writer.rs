//! [`BatchWriter`]: the one interface of the record-batch writers (IPC stream and file,
//! Parquet, and the tiled dataset of the `dataset` module), for code that writes batches to
//! whichever output it was given.

use crate::error::Result;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use std::io::Write;

/// A writer of record batches of one schema: every writer of this crate that takes
/// record batches implements it, so that code which writes to "some output" holds a
/// `Box<dyn BatchWriter>`.
///
/// Each writer also has inherent methods of the same names (`write`, and `finish`, which
/// returns the writer's output); the trait's [`BatchWriter::close`] ends the output the same
/// way and drops it.
///
/// ```
/// use arrow_tensor_ipc::record_batch::{
///     tensor_to_fixed_shape, BatchWriter, FixedShapeOptions, IpcWriteOptions, IpcWriter,
///     ParquetWriteOptions, ParquetWriter,
/// };
/// use arrow_tensor_ipc::Tensor;
///
/// let t = Tensor::from_vec(vec![4, 2], (0..8u8).collect())?;
/// let batch = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())?.into_record_batch("t")?;
/// let schema = batch.schema();
/// let writers: Vec<Box<dyn BatchWriter>> = vec![
///     Box::new(IpcWriter::new(Vec::new(), schema.clone(), &IpcWriteOptions::default())?),
///     Box::new(ParquetWriter::new(Vec::new(), schema, &ParquetWriteOptions::default())?),
/// ];
/// for mut w in writers {
///     w.write(&batch)?;
///     w.close()?;
/// }
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub trait BatchWriter {
    /// The schema every batch written must have.
    fn schema(&self) -> &SchemaRef;

    /// Writes one batch.
    fn write(&mut self, batch: &RecordBatch) -> Result<()>;

    /// Ends the output (an end-of-stream marker, a footer, a manifest), flushes it and
    /// drops the writer.
    fn close(self: Box<Self>) -> Result<()>;
}

impl<W: Write> BatchWriter for super::IpcWriter<W> {
    fn schema(&self) -> &SchemaRef {
        super::IpcWriter::schema(self)
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        super::IpcWriter::write(self, batch)
    }

    fn close(self: Box<Self>) -> Result<()> {
        self.finish()?.flush()?;
        Ok(())
    }
}

#[cfg(feature = "parquet")]
impl<W: Write + Send> BatchWriter for super::ParquetWriter<W> {
    fn schema(&self) -> &SchemaRef {
        super::ParquetWriter::schema(self)
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        super::ParquetWriter::write(self, batch)
    }

    fn close(self: Box<Self>) -> Result<()> {
        self.finish()?.flush()?;
        Ok(())
    }
}
