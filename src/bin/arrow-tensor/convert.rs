//! `convert`: decode every message of a file (tensor messages, or the tensor columns of an
//! Arrow IPC stream or file or a Parquet file) and write it again, as messages or as
//! record batches (an IPC stream or file, or a Parquet file).

use crate::files::{self, FileOptions};
use crate::input::{self, Entry, Source};
use crate::progress::{Progress, When};
use crate::{read, report, Outcome};
use arrow_array::RecordBatch;
use arrow_tensor_ipc::formats::FileFormat;
use arrow_tensor_ipc::record_batch::{
    BatchBuilder, FixedShapeOptions, IpcFormat, IpcWriter, MessageOptions, ParquetWriteOptions,
    ParquetWriter, TableFormat,
};
use arrow_tensor_ipc::{ConvertOptions, Message, SparseFormat};
use arrow_tensor_ipc::{ErrorKind, MessageWriter, ReadOptions, WriteOptions};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::{Mutex, PoisonError};

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(ma), Ok(mb)) = (fs::metadata(a), fs::metadata(b)) {
            return ma.dev() == mb.dev() && ma.ino() == mb.ino();
        }
    }
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(ca), Ok(cb)) => ca == cb,
        _ => false,
    }
}

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
enum Sink<'a> {
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
enum Dest<'a> {
    File(File),
    Stdout(&'a mut dyn Write),
}

impl<'a> Sink<'a> {
    fn new(dest: Dest<'a>, output: &Path, target: &Target, max_dense: usize) -> Sink<'a> {
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

    fn write(&mut self, message: &Message) -> arrow_tensor_ipc::Result<()> {
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
    fn finish(mut self) -> Result<Option<u64>, String> {
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

/// Copies the tensors of `input` (any kind the tool reads; `-` is standard input) to
/// `output` (`-` is standard output) as `target` says.
#[allow(clippy::too_many_arguments)]
pub fn run(
    input: &Path,
    output: &Path,
    read_options: ReadOptions,
    target: Target,
    message_options: MessageOptions,
    layout: Option<(Option<SparseFormat>, ConvertOptions)>,
    file_options: &FileOptions,
    progress: When,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    // The read limits bound what record batches claim and what conversions allocate.
    let message_options = message_options.with_limits(read_options.limits);
    let layout = layout.map(|(format, options)| (format, options.with_limits(read_options.limits)));
    let to_stdout = input::is_stdio(output);
    if !input::is_stdio(input) && !to_stdout && same_file(input, output) {
        report(format_args!(
            "{}: input and output are the same file",
            output.display()
        ));
        return Ok(Outcome::Failed);
    }
    // A tiled dataset (a directory holding `_tensor.json`) is reassembled whole.
    let (name, size, mut source) = if let Some(dir) = input::dataset_dir(input) {
        (dir.display().to_string(), 0, Source::dataset(dir))
    } else {
        let mut opened = match input::open(input) {
            Ok(i) => i,
            Err(e) => {
                report(e);
                return Ok(Outcome::Failed);
            }
        };
        match Source::open(&mut opened, read_options, message_options, file_options) {
            Ok(s) => (opened.name.clone(), opened.size(), s),
            Err(e) => {
                report(e);
                return Ok(Outcome::Failed);
            }
        }
    };
    let output_name = if to_stdout {
        "standard output".to_string()
    } else {
        output.display().to_string()
    };
    let (dest, summary): (Dest, Option<&mut dyn Write>) = if to_stdout {
        // Standard output carries the data: no summary line.
        (Dest::Stdout(out), None)
    } else {
        match File::create(output) {
            Ok(f) => (Dest::File(f), Some(out)),
            Err(e) => {
                report(format_args!("{output_name}: cannot create: {e}"));
                return Ok(Outcome::Failed);
            }
        }
    };
    let mut sink = Sink::new(
        dest,
        output,
        &target,
        read_options.limits.max_dense_elements,
    );
    let mut count = 0u64;
    let mut failure = None;
    let bar = Mutex::new(Progress::new(size, progress));
    let draw = |done: u64, count: u64, stage: &str| {
        bar.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .update(done, count, stage);
    };
    let parsing = |done: u64| draw(done, 0, "parsing");
    let limits = read_options.limits;
    let max_dense = limits.max_dense_elements;
    loop {
        draw(source.consumed(), count, "reading");
        let Some(item) = source.next(&limits, &parsing) else {
            break;
        };
        let entry = match item {
            Ok(e) => e,
            Err(e) => {
                failure = Some(e.full(&name));
                break;
            }
        };
        let at = entry.at();
        if let Some(reason) = match &entry {
            Entry::Decoded(m) => m
                .message
                .as_tensor()
                .and_then(|t| read::aliased_expansion(t, max_dense)),
            Entry::Tensor { .. } => None,
        } {
            failure = Some(format!("{name}: {at}: cannot write it: {reason}"));
            break;
        }
        let message = entry.into_message();
        let message = match &layout {
            None => Ok(message),
            Some((format, options)) => {
                draw(source.consumed(), count, "converting");
                relayout(message, *format, options, max_dense)
            }
        };
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                failure = Some(format!("{name}: {at}: cannot convert it: {}", e.kind()));
                break;
            }
        };
        draw(source.consumed(), count, "writing");
        if let Err(e) = sink.write(&message) {
            let hint = if matches!(
                e.kind(),
                ErrorKind::NotArrowCompatible(_) | ErrorKind::IndexTypeTooNarrow { .. }
            ) {
                " (--allow-non-arrow writes it anyway)"
            } else {
                ""
            };
            failure = Some(format!(
                "{name}: {at}: cannot write it to {output_name}: {}{hint}",
                e.kind()
            ));
            break;
        }
        count += 1;
        draw(source.consumed(), count, "written");
    }
    let (failure, batches) = match failure {
        // Close the output before removing it.
        Some(f) => {
            drop(sink);
            (Some(f), None)
        }
        None => match sink.finish() {
            Ok(b) => (None, b),
            Err(e) => (Some(format!("{output_name}: cannot write: {e}")), None),
        },
    };
    let stage = if failure.is_some() { "failed" } else { "done" };
    bar.into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .finish(source.consumed(), count, stage);
    if let Some(f) = failure {
        report(f);
        if !to_stdout
            && fs::metadata(output).is_ok_and(|m| m.is_file())
            && fs::remove_file(output).is_ok()
        {
            report(format_args!("{output_name}: partial output removed"));
        }
        return Ok(Outcome::Failed);
    }
    let Some(out) = summary else {
        return Ok(Outcome::Ok);
    };
    let plural = if count == 1 { "message" } else { "messages" };
    match batches {
        None => writeln!(out, "{output_name}: {count} {plural} written")?,
        Some(b) => {
            let bp = if b == 1 {
                "record batch"
            } else {
                "record batches"
            };
            writeln!(out, "{output_name}: {count} {plural} written as {b} {bp}")?
        }
    }
    Ok(Outcome::Ok)
}

/// Converts a message to another layout (`None`: dense).
fn relayout(
    message: Message,
    format: Option<SparseFormat>,
    options: &ConvertOptions,
    max_dense: usize,
) -> arrow_tensor_ipc::Result<Message> {
    Ok(match (message, format) {
        (Message::Tensor(t), None) => Message::Tensor(t),
        (Message::SparseTensor(t), None) => {
            Message::Tensor(t.to_dense_with(&options.clone().with_max_dense_elements(max_dense))?)
        }
        (Message::Tensor(t), Some(f)) => Message::SparseTensor(t.to_sparse(f, options)?),
        (Message::SparseTensor(t), Some(f)) => Message::SparseTensor(t.to_format(f, options)?),
    })
}
