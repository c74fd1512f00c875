//! `convert`: decode every message of a file (tensor messages, or the tensor columns of an
//! Arrow IPC stream or file) and write it again, as messages or as record batches.

use crate::files::{self, FileOptions};
use crate::progress::{Progress, When};
use crate::{read, report, Outcome};
use arrow_array::RecordBatch;
use arrow_tensor_ipc::formats::FileFormat;
use arrow_tensor_ipc::record_batch::{
    batch_to_messages, BatchBuilder, FixedShapeOptions, InputKind, IpcBatches, IpcFormat,
    IpcWriter, MessageOptions, TableFormat,
};
use arrow_tensor_ipc::{ConvertOptions, Message, SparseFormat};
use arrow_tensor_ipc::{ErrorKind, MessageWriter, ReadOptions, WriteOptions};
use std::collections::VecDeque;
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
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
}

/// Where `convert` reads from: tensor messages, or the record batches of an Arrow IPC
/// stream or file (each batch split into tensor messages).
enum Source {
    Messages(read::FileMessages),
    /// The tensor of a Matrix Market, FROSTT or `.npy` file, or the tensors of an `.npz`
    /// file, read on the first call of `next`.
    File {
        format: FileFormat,
        options: FileOptions,
        read: bool,
        size: u64,
        pending: VecDeque<Message>,
    },
    Batches {
        batches: IpcBatches,
        options: MessageOptions,
        pending: VecDeque<Message>,
        batch: u64,
        done: bool,
    },
}

/// One message of the input, or what went wrong and where.
type Item = Result<(String, Message), String>;

impl Source {
    fn open(
        input: &Path,
        read_options: ReadOptions,
        options: MessageOptions,
        file_options: &FileOptions,
    ) -> Result<Source, String> {
        if let Some(format) = FileFormat::from_path(input) {
            let size = fs::metadata(input)
                .map_err(|e| format!("{}: cannot open: {e}", input.display()))?
                .len();
            return Ok(Source::File {
                format,
                options: file_options.clone(),
                read: false,
                size,
                pending: VecDeque::new(),
            });
        }
        let mut head = Vec::with_capacity(64 << 10);
        let file =
            File::open(input).map_err(|e| format!("{}: cannot open: {e}", input.display()))?;
        let _ = file.take(64 << 10).read_to_end(&mut head);
        match InputKind::detect(&head) {
            InputKind::IpcStream | InputKind::IpcFile => {
                #[allow(unsafe_code)]
                // SAFETY: the CLI's contract (stated in its help and the README): input
                // files are not modified or truncated while a command reads them.
                let batches = unsafe { IpcBatches::open(input) }
                    .map_err(|e| format!("{}: {e}", input.display()))?;
                Ok(Source::Batches {
                    batches,
                    options,
                    pending: VecDeque::new(),
                    batch: 0,
                    done: false,
                })
            }
            _ => Ok(Source::Messages(read::open(input, read_options)?)),
        }
    }

    /// Input bytes consumed so far.
    fn consumed(&self) -> u64 {
        match self {
            Source::Messages(m) => m.consumed(),
            Source::Batches { batches, .. } => batches.position(),
            Source::File { read, size, .. } => {
                if *read {
                    *size
                } else {
                    0
                }
            }
        }
    }

    /// The next message with where it came from ("message at byte N", "record batch N",
    /// "the Matrix Market file"); `progress` hears the input bytes a text file's parser has
    /// consumed.
    fn next(
        &mut self,
        input: &Path,
        limits: &arrow_tensor_ipc::Limits,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Option<Item> {
        match self {
            Source::File {
                format,
                options,
                read,
                pending,
                ..
            } => {
                if !*read {
                    *read = true;
                    match files::read(*format, input, options, limits, progress) {
                        Ok(ms) => pending.extend(ms),
                        Err(e) => return Some(Err(e)),
                    }
                }
                let m = pending.pop_front()?;
                let at = match m.name() {
                    Some(name) => format!("member {name:?} of the {} file", format.name()),
                    None => format!("the {} file", format.name()),
                };
                Some(
                    check_limits(&m, limits)
                        .map(|()| (at, m))
                        .map_err(|e| format!("{}: {e}", input.display())),
                )
            }
            Source::Messages(messages) => {
                let limit = limits.max_dense_elements;
                Some(match messages.next()? {
                    Ok(m) => {
                        let at = format!("message at byte {}", m.offset);
                        match m
                            .message
                            .as_tensor()
                            .and_then(|t| read::aliased_expansion(t, limit))
                        {
                            Some(reason) => Err(format!(
                                "{}: {at}: cannot write it: {reason}",
                                input.display()
                            )),
                            None => Ok((at, m.message)),
                        }
                    }
                    Err(e) => Err(format!(
                        "{}: message at byte {}: {}",
                        input.display(),
                        e.offset,
                        e.description()
                    )),
                })
            }
            Source::Batches {
                batches,
                options,
                pending,
                batch,
                done,
            } => loop {
                if let Some(m) = pending.pop_front() {
                    return Some(Ok((format!("record batch {}", *batch - 1), m)));
                }
                if *done {
                    return None;
                }
                let b = match batches.next()? {
                    Ok(b) => b,
                    Err(e) => {
                        *done = true;
                        return Some(Err(format!(
                            "{}: record batch {batch}: {e}",
                            input.display()
                        )));
                    }
                };
                *batch += 1;
                match batch_to_messages(&b, options).and_then(|ms| {
                    for m in &ms {
                        check_limits(m, limits)?;
                    }
                    Ok(ms)
                }) {
                    Ok(ms) => pending.extend(ms),
                    Err(e) => {
                        *done = true;
                        return Some(Err(format!(
                            "{}: record batch {}: {e}",
                            input.display(),
                            *batch - 1
                        )));
                    }
                }
            },
        }
    }
}

/// The limits of the read options, applied to a tensor built from a record batch.
fn check_limits(m: &Message, limits: &arrow_tensor_ipc::Limits) -> arrow_tensor_ipc::Result<()> {
    let (rank, nnz) = match m {
        Message::Tensor(t) => (t.ndim(), 0),
        Message::SparseTensor(s) => (s.ndim(), s.nnz() as u64),
    };
    let exceeded =
        |what, value: u64, limit: u64| Err(ErrorKind::LimitExceeded { what, value, limit }.into());
    if rank > limits.max_rank {
        return exceeded("rank", rank as u64, limits.max_rank as u64);
    }
    if nnz > limits.max_nnz {
        return exceeded("nnz", nnz, limits.max_nnz);
    }
    Ok(())
}

/// Where `convert` writes to.
enum Sink {
    Messages(MessageWriter<BufWriter<File>>),
    Table {
        builder: BatchBuilder,
        file: Option<BufWriter<File>>,
        writer: Option<Box<IpcWriter<BufWriter<File>>>>,
        format: IpcFormat,
        batches: u64,
    },
    /// A file of one tensor, or an `.npz` bundle of dense tensors.
    File(files::FileWriter),
}

impl Sink {
    fn new(file: File, output: &Path, target: &Target, max_dense: usize) -> Sink {
        let buffered = |file| BufWriter::with_capacity(1 << 16, file);
        match target {
            Target::Messages(options) => {
                Sink::Messages(MessageWriter::new(buffered(file), *options))
            }
            Target::Table(format, options) => Sink::Table {
                builder: BatchBuilder::new(*format, options.clone()),
                file: Some(buffered(file)),
                writer: None,
                format: IpcFormat::for_path(output),
                batches: 0,
            },
            Target::File(format, options) => {
                Sink::File(files::FileWriter::new(*format, file, options, max_dense))
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
        }
    }

    fn write_batch(&mut self, batch: Option<RecordBatch>) -> arrow_tensor_ipc::Result<()> {
        let (
            Sink::Table {
                file,
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
            if let Some(f) = file.take() {
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
        match self {
            Sink::File(w) => w.finish().map(|()| None),
            Sink::Messages(w) => w
                .finish()
                .map_err(|e| e.to_string())
                .and_then(|w| w.into_inner().map_err(|e| e.into_error().to_string()))
                .map(|_| None),
            Sink::Table {
                writer, batches, ..
            } => match writer {
                None => Err("no messages to make a table of".to_string()),
                Some(w) => w
                    .finish()
                    .map_err(|e| e.to_string())
                    .and_then(|w| w.into_inner().map_err(|e| e.into_error().to_string()))
                    .map(|_| Some(batches)),
            },
        }
    }
}

/// Copies the messages of `input` (tensor messages, or the tensors of an Arrow IPC stream
/// or file) to `output` as `target` says.
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
    let mut source = match Source::open(input, read_options, message_options, file_options) {
        Ok(s) => s,
        Err(e) => {
            report(e);
            return Ok(Outcome::Failed);
        }
    };
    if same_file(input, output) {
        report(format_args!(
            "{}: input and output are the same file",
            output.display()
        ));
        return Ok(Outcome::Failed);
    }
    let file = match File::create(output) {
        Ok(f) => f,
        Err(e) => {
            report(format_args!("{}: cannot create: {e}", output.display()));
            return Ok(Outcome::Failed);
        }
    };
    let mut sink = Sink::new(
        file,
        output,
        &target,
        read_options.limits.max_dense_elements,
    );
    let mut count = 0u64;
    let mut failure = None;
    let size = fs::metadata(input).map_or(0, |m| m.len());
    let bar = Mutex::new(Progress::new(size, progress));
    let draw = |done: u64, count: u64, stage: &str, force: bool| {
        bar.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .update(done, count, stage, force);
    };
    let parsing = |done: u64| draw(done, 0, "parsing", false);
    let limits = read_options.limits;
    loop {
        draw(source.consumed(), count, "reading", false);
        let Some(item) = source.next(input, &limits, &parsing) else {
            break;
        };
        let (at, message) = match item {
            Ok(m) => m,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        let message = match &layout {
            None => Ok(message),
            Some((format, options)) => {
                draw(source.consumed(), count, "converting", true);
                relayout(message, *format, options, limits.max_dense_elements)
            }
        };
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                failure = Some(format!(
                    "{}: {at}: cannot convert it: {}",
                    input.display(),
                    e.kind()
                ));
                break;
            }
        };
        draw(source.consumed(), count, "writing", true);
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
                "{}: {at}: cannot write it to {}: {}{hint}",
                input.display(),
                output.display(),
                e.kind()
            ));
            break;
        }
        count += 1;
        draw(source.consumed(), count, "written", true);
    }
    let (failure, batches) = match failure {
        // Close the output before removing it.
        Some(f) => {
            drop(sink);
            (Some(f), None)
        }
        None => match sink.finish() {
            Ok(b) => (None, b),
            Err(e) => (
                Some(format!("{}: cannot write: {e}", output.display())),
                None,
            ),
        },
    };
    let stage = if failure.is_some() { "failed" } else { "done" };
    bar.into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .finish(source.consumed(), count, stage);
    if let Some(f) = failure {
        report(f);
        if fs::metadata(output).is_ok_and(|m| m.is_file()) && fs::remove_file(output).is_ok() {
            report(format_args!("{}: partial output removed", output.display()));
        }
        return Ok(Outcome::Failed);
    }
    let plural = if count == 1 { "message" } else { "messages" };
    match batches {
        None => writeln!(out, "{}: {count} {plural} written", output.display())?,
        Some(b) => {
            let bp = if b == 1 {
                "record batch"
            } else {
                "record batches"
            };
            writeln!(
                out,
                "{}: {count} {plural} written as {b} {bp}",
                output.display()
            )?
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
