//! Where `convert` writes: tensor messages, record batches in an Arrow IPC stream or
//! file or a Parquet file, or a file of `arrow_tensor_ipc::formats`.

use super::file_writer::FileWriter;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use arrow_tensor_ipc::formats::{self, detect::FileKind};
use arrow_tensor_ipc::record_batch::{
    BatchBuilder, BatchWriter, FixedShapeOptions, IpcWriteOptions, IpcWriter, ParquetWriteOptions,
    ParquetWriter, TableFormat,
};
use arrow_tensor_ipc::{Message, MessageWriter, WriteOptions};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// What `convert` writes.
#[derive(Clone, Debug)]
pub enum Target {
    /// Tensor messages (re-encoded with these options).
    Messages(WriteOptions),
    /// Record batches of a table format, as an Arrow IPC stream or file.
    Table(TableFormat, FixedShapeOptions),
    /// One tensor in a file of `arrow_tensor_ipc::formats` (Matrix Market, FROSTT, `.npy`,
    /// `.npz`), written with these options.
    File(FileKind, formats::FileWriteOptions),
    /// Record batches of a table format in a Parquet file; `None`: a COO table when the
    /// first message is sparse, a fixed-shape tensor column when it is dense.
    Parquet(Option<TableFormat>, FixedShapeOptions),
}

/// The writer under `convert`'s output: a file, or standard output.
type Out<'a> = BufWriter<Box<dyn Write + 'a>>;

/// Opens the record-batch writer of a table output once the first batch gives the schema.
type OpenBatches<'a> =
    Box<dyn FnOnce(SchemaRef) -> arrow_tensor_ipc::Result<Box<dyn BatchWriter + 'a>> + 'a>;

/// Where `convert` writes to.
pub enum Sink<'a> {
    Messages(MessageWriter<Out<'a>>),
    /// A file of one tensor, or an `.npz` bundle of dense tensors.
    File(FileWriter),
    /// Record batches of a table format in an Arrow IPC stream or file, or a Parquet file.
    Batches {
        /// `None` until the first message chooses the table format (when not given).
        builder: Option<BatchBuilder>,
        format: Option<TableFormat>,
        fixed: FixedShapeOptions,
        /// The writer, opened by `open` at the first batch.
        open: Option<OpenBatches<'a>>,
        writer: Option<Box<dyn BatchWriter + 'a>>,
        /// A file to sync to disk once written.
        sync: Option<File>,
        batches: u64,
    },
}

/// Where the output goes.
pub enum Dest<'a> {
    File(File),
    Stdout(&'a mut dyn Write),
}

impl<'a> Sink<'a> {
    pub fn new(dest: Dest<'a>, output: &Path, target: &Target) -> Sink<'a> {
        let buffered = |dest, capacity| -> Out<'a> {
            let inner: Box<dyn Write + 'a> = match dest {
                Dest::File(f) => Box::new(f),
                Dest::Stdout(w) => Box::new(w),
            };
            BufWriter::with_capacity(capacity, inner)
        };
        let batches =
            |format: Option<TableFormat>, fixed: &FixedShapeOptions, sync, open| Sink::Batches {
                builder: format.map(|f| BatchBuilder::new(f, fixed.clone())),
                format,
                fixed: fixed.clone(),
                open: Some(open),
                writer: None,
                sync,
                batches: 0,
            };
        match (target, dest) {
            (Target::Messages(options), dest) => {
                Sink::Messages(MessageWriter::new(buffered(dest, 1 << 16), options))
            }
            (Target::Table(format, options), dest) => {
                let out = buffered(dest, 1 << 16);
                let ipc = IpcWriteOptions::for_path(output);
                let open: OpenBatches<'a> = Box::new(move |schema| {
                    Ok(Box::new(IpcWriter::new(out, schema, &ipc)?) as Box<dyn BatchWriter>)
                });
                batches(Some(*format), options, None, open)
            }
            (Target::File(format, options), Dest::File(file)) => {
                Sink::File(FileWriter::new(*format, file, options))
            }
            (Target::Parquet(format, fixed), Dest::File(file)) => {
                let sync = file.try_clone().ok();
                let out = BufWriter::with_capacity(1 << 20, file);
                let open: OpenBatches<'a> = Box::new(move |schema| {
                    let w = ParquetWriter::new(out, schema, &ParquetWriteOptions::default())?;
                    Ok(Box::new(w) as Box<dyn BatchWriter>)
                });
                batches(*format, fixed, sync, open)
            }
            // A file format is chosen by the output's extension, which `-` has not: standard
            // output gets messages.
            (Target::File(..) | Target::Parquet(..), dest) => Sink::Messages(MessageWriter::new(
                buffered(dest, 1 << 16),
                &WriteOptions::default(),
            )),
        }
    }

    pub fn write(&mut self, message: &Message) -> arrow_tensor_ipc::Result<()> {
        match self {
            Sink::Messages(w) => w.write(message).map(|_| ()),
            Sink::File(w) => w.write(message),
            Sink::Batches {
                builder,
                format,
                fixed,
                ..
            } => {
                let builder = builder.get_or_insert_with(|| {
                    let f = format.unwrap_or(match message {
                        Message::SparseTensor(_) => TableFormat::CooTable,
                        Message::Tensor(_) => TableFormat::FixedShapeTensor,
                    });
                    BatchBuilder::new(f, fixed.clone())
                });
                let batch = builder.push(message)?;
                self.write_batch(batch)
            }
        }
    }

    /// Writes a batch to the table output, opening its writer at the first.
    fn write_batch(&mut self, batch: Option<RecordBatch>) -> arrow_tensor_ipc::Result<()> {
        let (
            Sink::Batches {
                open,
                writer,
                batches,
                ..
            },
            Some(batch),
        ) = (self, batch)
        else {
            return Ok(());
        };
        if writer.is_none() {
            if let Some(open) = open.take() {
                *writer = Some(open(batch.schema())?);
            }
        }
        if let Some(w) = writer {
            w.write(&batch)?;
            *batches += 1;
        }
        Ok(())
    }

    /// Ends the output; returns the number of record batches written (tables).
    pub fn finish(mut self) -> Result<Option<u64>, String> {
        if let Sink::Batches {
            builder: Some(builder),
            ..
        } = &mut self
        {
            let last = builder.finish().map_err(|e| e.to_string())?;
            self.write_batch(last).map_err(|e| e.to_string())?;
        }
        match self {
            Sink::File(w) => w.finish().map(|()| None),
            Sink::Messages(w) => w
                .finish()
                .map_err(|e| e.to_string())
                .and_then(|w| w.into_inner().map_err(|e| e.into_error().to_string()))
                .and_then(|mut w| w.flush().map_err(|e| e.to_string()))
                .map(|()| None),
            Sink::Batches {
                writer,
                batches,
                sync,
                ..
            } => match writer {
                None => Err("no messages to make a table of".to_string()),
                Some(w) => {
                    w.close().map_err(|e| e.to_string())?;
                    if let Some(file) = sync {
                        file.sync_all().map_err(|e| e.to_string())?;
                    }
                    Ok(Some(batches))
                }
            },
        }
    }
}
