//! Where `convert` writes: tensor messages, record batches in an Arrow IPC stream or
//! file or a Parquet file, or a file of `arrow_tensor_ipc::formats`.

use crate::files::{self, FileOptions};
use arrow_array::RecordBatch;
use arrow_tensor_ipc::formats::FileFormat;
use arrow_tensor_ipc::record_batch::{
    BatchBuilder, FixedShapeOptions, IpcFormat, IpcWriter, ParquetWriteOptions, ParquetWriter,
    TableFormat,
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
    /// `.npz`).
    File(FileFormat, FileOptions),
    /// Record batches of a table format in a Parquet file; `None`: a COO table when the
    /// first message is sparse, a fixed-shape tensor column when it is dense.
    Parquet(Option<TableFormat>, FixedShapeOptions),
}

/// The writer under `convert`'s output: a file, or standard output.
type Out<'a> = BufWriter<Box<dyn Write + 'a>>;

/// Where `convert` writes to.
pub enum Sink<'a> {
    Messages(MessageWriter<Out<'a>>),
    Table {
        builder: BatchBuilder,
        out: Option<Out<'a>>,
        writer: Option<Box<IpcWriter<Out<'a>>>>,
        format: IpcFormat,
        batches: u64,
    },
    /// A file of one tensor, or an `.npz` bundle of dense tensors.
    File(files::FileWriter),
    /// Record batches in a Parquet file.
    Parquet {
        /// `None` until the first message chooses the table format (when not given).
        builder: Option<BatchBuilder>,
        format: Option<TableFormat>,
        fixed: FixedShapeOptions,
        out: Option<BufWriter<File>>,
        writer: Option<Box<ParquetWriter<BufWriter<File>>>>,
        batches: u64,
    },
}

/// Where the output goes.
pub enum Dest<'a> {
    File(File),
    Stdout(&'a mut dyn Write),
}

impl<'a> Sink<'a> {
    pub fn new(dest: Dest<'a>, output: &Path, target: &Target, max_dense: usize) -> Sink<'a> {
        let buffered = |dest| -> Out<'a> {
            let inner: Box<dyn Write + 'a> = match dest {
                Dest::File(f) => Box::new(f),
                Dest::Stdout(w) => Box::new(w),
            };
            BufWriter::with_capacity(1 << 16, inner)
        };
        match (target, dest) {
            (Target::Messages(options), dest) => {
                Sink::Messages(MessageWriter::new(buffered(dest), *options))
            }
            (Target::Table(format, options), dest) => Sink::Table {
                builder: BatchBuilder::new(*format, options.clone()),
                out: Some(buffered(dest)),
                writer: None,
                format: IpcFormat::for_path(output),
                batches: 0,
            },
            (Target::File(format, options), Dest::File(file)) => {
                Sink::File(files::FileWriter::new(*format, file, options, max_dense))
            }
            (Target::Parquet(format, fixed), Dest::File(file)) => Sink::Parquet {
                builder: format.map(|f| BatchBuilder::new(f, fixed.clone())),
                format: *format,
                fixed: fixed.clone(),
                out: Some(BufWriter::with_capacity(1 << 20, file)),
                writer: None,
                batches: 0,
            },
            // A file format is chosen by the output's extension, which `-` has not: standard
            // output gets messages.
            (Target::File(..) | Target::Parquet(..), dest) => {
                Sink::Messages(MessageWriter::new(buffered(dest), WriteOptions::default()))
            }
        }
    }

    pub fn write(&mut self, message: &Message) -> arrow_tensor_ipc::Result<()> {
        match self {
            Sink::Messages(w) => w.write(message).map(|_| ()),
            Sink::Table { builder, .. } => {
                let batch = builder.push(message)?;
                self.write_batch(batch)
            }
            Sink::File(w) => w.write(message),
            Sink::Parquet {
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
                self.write_parquet(batch)
            }
        }
    }

    fn write_parquet(&mut self, batch: Option<RecordBatch>) -> arrow_tensor_ipc::Result<()> {
        let (
            Sink::Parquet {
                out,
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
            if let Some(f) = out.take() {
                *writer = Some(Box::new(ParquetWriter::try_new(
                    f,
                    batch.schema(),
                    &ParquetWriteOptions::default(),
                )?));
            }
        }
        if let Some(w) = writer {
            w.write(&batch)?;
            *batches += 1;
        }
        Ok(())
    }

    fn write_batch(&mut self, batch: Option<RecordBatch>) -> arrow_tensor_ipc::Result<()> {
        let (
            Sink::Table {
                out,
                writer,
                format,
                batches,
                ..
            },
            Some(batch),
        ) = (self, batch)
        else {
            return Ok(());
        };
        if writer.is_none() {
            if let Some(f) = out.take() {
                *writer = Some(Box::new(IpcWriter::try_new(f, &batch.schema(), *format)?));
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
        if let Sink::Table { builder, .. } = &mut self {
            let last = builder.finish().map_err(|e| e.to_string())?;
            self.write_batch(last).map_err(|e| e.to_string())?;
        }
        if let Sink::Parquet {
            builder: Some(builder),
            ..
        } = &mut self
        {
            let last = builder.finish().map_err(|e| e.to_string())?;
            self.write_parquet(last).map_err(|e| e.to_string())?;
        }
        match self {
            Sink::File(w) => w.finish().map(|()| None),
            Sink::Messages(w) => w
                .finish()
                .map_err(|e| e.to_string())
                .and_then(|w| w.into_inner().map_err(|e| e.into_error().to_string()))
                .and_then(|mut w| w.flush().map_err(|e| e.to_string()))
                .map(|()| None),
            Sink::Parquet {
                writer, batches, ..
            } => match writer {
                None => Err("no messages to make a table of".to_string()),
                Some(w) => w
                    .finish()
                    .map_err(|e| e.to_string())
                    .and_then(|w| w.into_inner().map_err(|e| e.into_error().to_string()))
                    .and_then(|f| f.sync_all().map_err(|e| e.to_string()))
                    .map(|()| Some(batches)),
            },
            Sink::Table {
                writer, batches, ..
            } => match writer {
                None => Err("no messages to make a table of".to_string()),
                Some(w) => w
                    .finish()
                    .map_err(|e| e.to_string())
                    .and_then(|w| w.into_inner().map_err(|e| e.into_error().to_string()))
                    .and_then(|mut w| w.flush().map_err(|e| e.to_string()))
                    .map(|()| Some(batches)),
            },
        }
    }
}
