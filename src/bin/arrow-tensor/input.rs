//! One input detection for every subcommand: a path or `-` (standard input) is opened, its
//! first bytes are peeked (and kept), [`detect()`] names its kind (content first, extension
//! second), and [`Source`] hands out the tensors it holds, whatever the kind.
//!
//! Standard input (or a pipe named by a path) holding tensor messages or an Arrow IPC
//! stream is read as it comes (memory bounded by one message): tensor messages through the
//! crate's streaming decoder, IPC streams one message at a time (the library's `IpcStreamReader`); any other
//! kind the crate reads needs its whole content at hand (a zip directory, an IPC footer, a
//! parser over the whole text), so such an input is first copied into a temporary file,
//! removed on exit.

use crate::files::{self, FileOptions};
use crate::read::{self, FileMessages};
use arrow_tensor_ipc::dataset::{Dataset, DatasetReadOptions, MANIFEST_FILE};
use arrow_tensor_ipc::formats::detect::{self, detect, FileKind};
use arrow_tensor_ipc::formats::FileFormat;
use arrow_tensor_ipc::record_batch::{
    batch_to_messages, IpcBatches, IpcReadOptions, IpcStreamReader, MessageOptions, ParquetBatches,
    ParquetReadOptions,
};
use arrow_tensor_ipc::{DecodedMessage, ErrorKind, Limits, Message, ReadOptions};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Whether a command-line path means standard input or output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// An input, opened and its kind detected.
pub struct Input {
    /// How the input is named in messages (its path, or `standard input`).
    pub name: String,
    /// What it holds.
    pub kind: FileKind,
    origin: Origin,
}

enum Origin {
    /// A regular file (mapped or reopened by the readers of its kind), and the file opened
    /// with the bytes peeked from its start, for reading it as a stream.
    File {
        path: PathBuf,
        stream: Option<(Vec<u8>, File)>,
    },
    /// Read as it comes (standard input, a pipe): the peeked bytes, then the rest (`None`
    /// once taken).
    Stream(Option<(Vec<u8>, Box<dyn Read>)>),
    /// Standard input or a pipe copied into a temporary file (removed when dropped).
    Spooled(tempfile::NamedTempFile),
}

/// Reads from `reader` until `prefix` holds as many bytes as detection wants, or the input
/// ends.
fn peek(reader: &mut impl Read, prefix: &mut Vec<u8>) -> io::Result<()> {
    loop {
        let want = detect::wanted(prefix);
        if prefix.len() >= want {
            return Ok(());
        }
        let mut chunk = vec![0u8; want - prefix.len()];
        let n = match reader.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(());
        }
        prefix.extend_from_slice(chunk.get(..n).unwrap_or_default());
    }
}

/// Opens `path` (`-`: standard input) and detects its kind; an input of a kind the tool
/// does not read is an error naming that kind.
pub fn open(path: &Path) -> Result<Input, String> {
    let mut prefix = Vec::with_capacity(detect::PREFIX_LEN);
    let (name, mut reader): (String, Box<dyn Read>) = if is_stdio(path) {
        ("standard input".into(), Box::new(io::stdin()))
    } else {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| format!("{name}: cannot open: {e}"))?;
        let meta = file
            .metadata()
            .map_err(|e| format!("{name}: cannot open: {e}"))?;
        if meta.is_dir() {
            return Err(format!(
                "{name}: is a directory (not a tiled dataset: it holds no {MANIFEST_FILE})"
            ));
        }
        if meta.is_file() {
            peek(&mut &file, &mut prefix).map_err(|e| format!("{name}: cannot read: {e}"))?;
            let kind = detect(&prefix, Some(path));
            let origin = Origin::File {
                path: path.to_path_buf(),
                stream: Some((prefix, file)),
            };
            return checked(Input { name, kind, origin });
        }
        // A pipe or a device: read as it comes, like standard input.
        (name, Box::new(file))
    };
    peek(&mut reader, &mut prefix).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let kind = detect(&prefix, (!is_stdio(path)).then_some(path));
    // Streams are read as they come, other kinds spooled (see the module docs).
    let origin = if kind.is_sequential() || !kind.is_readable() {
        Origin::Stream(Some((prefix, reader)))
    } else {
        Origin::Spooled(spool(&prefix, &mut reader).map_err(|e| {
            format!("{name}: cannot copy into a temporary file (a {kind} input needs its whole content): {e}")
        })?)
    };
    checked(Input { name, kind, origin })
}

/// `input`, or an error naming its kind when the tool does not read it.
fn checked(input: Input) -> Result<Input, String> {
    if input.kind.is_readable() {
        return Ok(input);
    }
    let what = match input.kind {
        FileKind::Text => "plain text".to_string(),
        FileKind::Binary => "unknown binary data".to_string(),
        FileKind::Zip => "a zip archive without .npy members".to_string(),
        k => format!("a {k} file"),
    };
    Err(format!(
        "{}: {what}, not a kind arrow-tensor reads (tensor messages, Arrow IPC streams and \
         files, Parquet, Matrix Market, FROSTT, .npy, .npz)",
        input.name
    ))
}

/// Copies `prefix` and the rest of `reader` into a new temporary file.
fn spool(prefix: &[u8], reader: &mut impl Read) -> io::Result<tempfile::NamedTempFile> {
    let mut tmp = tempfile::Builder::new()
        .prefix("arrow-tensor-stdin-")
        .tempfile()?;
    tmp.write_all(prefix)?;
    io::copy(reader, &mut tmp)?;
    tmp.flush()?;
    Ok(tmp)
}

impl Input {
    /// The file holding the input (`None` for an input read as it comes).
    pub fn path(&self) -> Option<&Path> {
        match &self.origin {
            Origin::File { path, .. } => Some(path),
            Origin::Spooled(t) => Some(t.path()),
            Origin::Stream(_) => None,
        }
    }

    /// The input's size in bytes (0 when unknown: an input read as it comes).
    pub fn size(&self) -> u64 {
        self.path()
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len())
    }

    /// The file format of [`arrow_tensor_ipc::formats`] the input is in, if any.
    pub fn file_format(&self) -> Option<FileFormat> {
        match self.kind {
            FileKind::MatrixMarket => Some(FileFormat::MatrixMarket),
            FileKind::Frostt => Some(FileFormat::Frostt),
            FileKind::Npy => Some(FileFormat::Npy),
            FileKind::Npz => Some(FileFormat::Npz),
            _ => None,
        }
    }

    /// The input as a stream of tensor messages, read from its start (once).
    fn messages(&mut self, options: ReadOptions) -> Result<FileMessages, String> {
        Ok(read::messages(self.stream()?, options))
    }

    /// The input's bytes from its start, read as they come (once).
    fn stream(&mut self) -> Result<Box<dyn Read>, String> {
        let taken = match &mut self.origin {
            Origin::File { stream, .. } => stream
                .take()
                .map(|(prefix, file)| (prefix, Box::new(file) as Box<dyn Read>)),
            Origin::Stream(stream) => stream.take(),
            Origin::Spooled(t) => Some((
                Vec::new(),
                Box::new(
                    t.reopen()
                        .map_err(|e| format!("{}: cannot reopen: {e}", self.name))?,
                ) as Box<dyn Read>,
            )),
        };
        let Some((prefix, rest)) = taken else {
            return Err(format!("{}: already read", self.name));
        };
        Ok(Box::new(io::Cursor::new(prefix).chain(rest)))
    }
}

/// One tensor of an input.
pub enum Entry {
    /// A message of a stream of tensor messages, with where it sits in the stream.
    Decoded(DecodedMessage),
    /// A tensor of another kind of input, with where it came from ("record batch 2",
    /// "the Matrix Market file", "member \"a\" of the npz file").
    Tensor {
        /// Where it came from.
        at: String,
        /// The tensor.
        message: Message,
    },
}

impl Entry {
    /// Where the tensor came from.
    pub fn at(&self) -> String {
        match self {
            Entry::Decoded(m) => format!("message at byte {}", m.offset),
            Entry::Tensor { at, .. } => at.clone(),
        }
    }

    /// The tensor.
    pub fn message(&self) -> &Message {
        match self {
            Entry::Decoded(m) => &m.message,
            Entry::Tensor { message, .. } => message,
        }
    }

    /// The tensor, owned.
    pub fn into_message(self) -> Message {
        match self {
            Entry::Decoded(m) => m.message,
            Entry::Tensor { message, .. } => message,
        }
    }
}

/// A tensor that could not be read, and where.
pub struct EntryError {
    /// The byte offset of a failing tensor message.
    pub offset: Option<u64>,
    /// Where ("message at byte 40", "record batch 3", "the FROSTT file").
    pub at: String,
    /// What went wrong.
    pub description: String,
}

impl EntryError {
    /// `NAME: AT: DESCRIPTION`.
    pub fn full(&self, name: &str) -> String {
        if self.at.is_empty() {
            format!("{name}: {}", self.description)
        } else {
            format!("{name}: {}: {}", self.at, self.description)
        }
    }
}

/// The tensors of an input, read one at a time where the kind allows (tensor messages,
/// record batches), all at once for a file of one tensor or an `.npz` bundle.
pub enum Source {
    /// Tensor messages.
    Messages(FileMessages),
    /// A tiled dataset (a directory holding `_tensor.json`), reassembled in the layout its
    /// manifest records on the first call of `next`.
    Dataset { dir: PathBuf, read: bool },
    /// The tensor of a Matrix Market, FROSTT or `.npy` file, or the tensors of an `.npz`
    /// file, read on the first call of `next`.
    File {
        format: FileFormat,
        path: PathBuf,
        options: FileOptions,
        read: bool,
        size: u64,
        pending: VecDeque<Message>,
    },
    /// The record batches of an Arrow IPC stream or file, each split into tensors.
    Batches {
        batches: Batches,
        options: MessageOptions,
        pending: VecDeque<Message>,
        batch: u64,
        done: bool,
    },
}

/// `path` when it is a directory holding a tiled dataset's manifest (`_tensor.json`).
pub fn dataset_dir(path: &Path) -> Option<&Path> {
    (!is_stdio(path) && path.is_dir() && path.join(MANIFEST_FILE).is_file()).then_some(path)
}

impl Source {
    /// The tensor of the tiled dataset in `dir`.
    pub fn dataset(dir: &Path) -> Source {
        Source::Dataset {
            dir: dir.to_path_buf(),
            read: false,
        }
    }

    /// The tensors of `input`.
    pub fn open(
        input: &mut Input,
        read_options: ReadOptions,
        options: MessageOptions,
        file_options: &FileOptions,
    ) -> Result<Source, String> {
        if let (Some(format), Some(path)) = (input.file_format(), input.path()) {
            return Ok(Source::File {
                format,
                path: path.to_path_buf(),
                options: file_options.clone(),
                read: false,
                size: input.size(),
                pending: VecDeque::new(),
            });
        }
        match (input.kind, input.path()) {
            (FileKind::IpcStream | FileKind::IpcFile, Some(path)) => {
                #[allow(unsafe_code)]
                // SAFETY: the CLI's contract (stated in its help and the README): input
                // files are not modified or truncated while a command reads them; a spooled
                // standard input is a temporary file of the tool's own.
                let batches = unsafe { IpcBatches::open_mmap(path, &ipc_options(&read_options)) }
                    .map_err(|e| format!("{}: {e}", input.name))?;
                Ok(Source::Batches {
                    batches: Batches::Mapped(batches),
                    options,
                    pending: VecDeque::new(),
                    batch: 0,
                    done: false,
                })
            }
            (FileKind::Parquet, Some(path)) => {
                let parquet_options =
                    ParquetReadOptions::default().with_limits(read_options.limits);
                #[allow(unsafe_code)]
                // SAFETY: as for IPC files above.
                let batches = unsafe { ParquetBatches::open_mmap(path, &parquet_options) }
                    .map_err(|e| format!("{}: {e}", input.name))?;
                Ok(Source::Batches {
                    batches: Batches::Parquet {
                        rows: 0,
                        size: input.size(),
                        batches,
                    },
                    options,
                    pending: VecDeque::new(),
                    batch: 0,
                    done: false,
                })
            }
            (FileKind::IpcStream, None) => {
                let reader = input.stream()?;
                let batches = IpcStreamReader::new(reader, &ipc_options(&read_options))
                    .map_err(|e| format!("{}: {e}", input.name))?;
                Ok(Source::Batches {
                    batches: Batches::Stream(batches),
                    options,
                    pending: VecDeque::new(),
                    batch: 0,
                    done: false,
                })
            }
            _ => Ok(Source::Messages(input.messages(read_options)?)),
        }
    }

    /// Input bytes consumed so far.
    pub fn consumed(&self) -> u64 {
        match self {
            Source::Messages(m) => m.consumed(),
            Source::Dataset { .. } => 0,
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

    /// The next tensor; `progress` hears the input bytes a text file's parser has consumed.
    pub fn next(
        &mut self,
        limits: &Limits,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Option<Result<Entry, EntryError>> {
        match self {
            Source::Dataset { dir, read } => {
                if std::mem::replace(read, true) {
                    return None;
                }
                let options = DatasetReadOptions::default().with_limits(*limits);
                #[allow(unsafe_code)]
                // SAFETY: the CLI's contract (stated in its help and the README): input
                // files are not modified or truncated while a command reads them.
                let tensor = unsafe { Dataset::open_mmap(dir.as_path(), &options) }
                    .and_then(|d| d.read_all());
                Some(match tensor {
                    Ok(t) => Ok(Entry::Tensor {
                        at: "the dataset".into(),
                        message: Message::SparseTensor(t),
                    }),
                    Err(e) => Err(EntryError {
                        offset: None,
                        at: String::new(),
                        description: e.to_string(),
                    }),
                })
            }
            Source::File {
                format,
                path,
                options,
                read,
                pending,
                ..
            } => {
                let whole = format!("the {} file", format.name());
                if !*read {
                    *read = true;
                    match files::read(*format, path, options, limits, progress) {
                        Ok(ms) => pending.extend(ms),
                        Err(e) => {
                            return Some(Err(EntryError {
                                offset: None,
                                at: whole,
                                description: e,
                            }))
                        }
                    }
                }
                let m = pending.pop_front()?;
                let at = match m.name() {
                    Some(name) => format!("member {name:?} of {whole}"),
                    None => whole,
                };
                Some(match check_limits(&m, limits) {
                    Ok(()) => Ok(Entry::Tensor { at, message: m }),
                    Err(e) => Err(EntryError {
                        offset: None,
                        at,
                        description: e.to_string(),
                    }),
                })
            }
            Source::Messages(messages) => Some(match messages.next()? {
                Ok(m) => Ok(Entry::Decoded(m)),
                Err(e) => Err(EntryError {
                    offset: Some(e.offset),
                    at: format!("message at byte {}", e.offset),
                    description: e.description(),
                }),
            }),
            Source::Batches {
                batches,
                options,
                pending,
                batch,
                done,
            } => loop {
                if let Some(m) = pending.pop_front() {
                    return Some(Ok(Entry::Tensor {
                        at: format!("record batch {}", *batch - 1),
                        message: m,
                    }));
                }
                if *done {
                    return None;
                }
                let failed = |at: u64, e: String| EntryError {
                    offset: None,
                    at: format!("record batch {at}"),
                    description: e,
                };
                let b = match batches.next()? {
                    Ok(b) => b,
                    Err(e) => {
                        *done = true;
                        return Some(Err(failed(*batch, e)));
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
                        return Some(Err(failed(*batch - 1, e.to_string())));
                    }
                }
            },
        }
    }
}

/// The record batches of an IPC stream or file, or of a Parquet file.
pub enum Batches {
    /// A file (or a spooled input), memory-mapped.
    Mapped(IpcBatches),
    /// A stream read as it comes.
    Stream(IpcStreamReader<Box<dyn Read>>),
    /// A Parquet file (or a spooled input), memory-mapped; the rows read so far and the
    /// file's size, for progress.
    Parquet {
        batches: ParquetBatches,
        rows: u64,
        size: u64,
    },
}

impl Batches {
    fn next(&mut self) -> Option<Result<arrow_array::RecordBatch, String>> {
        match self {
            Batches::Mapped(b) => b.next().map(|r| r.map_err(|e| e.to_string())),
            Batches::Stream(s) => s.next().map(|r| r.map_err(|e| e.to_string())),
            Batches::Parquet { batches, rows, .. } => batches.next().map(|r| {
                r.inspect(|b| *rows += b.num_rows() as u64)
                    // The caller names the record batch.
                    .map_err(|e| e.kind().to_string())
            }),
        }
    }

    fn position(&self) -> u64 {
        match self {
            Batches::Mapped(b) => b.position(),
            Batches::Stream(s) => s.position(),
            // The share of the file's rows read.
            Batches::Parquet {
                batches,
                rows,
                size,
            } => match batches.num_rows() {
                0 => *size,
                total => (*size as u128 * *rows as u128 / total as u128) as u64,
            },
        }
    }
}

/// The options of the IPC readers: the limits of the read options.
fn ipc_options(read_options: &ReadOptions) -> IpcReadOptions {
    IpcReadOptions::default().with_limits(read_options.limits)
}

/// The limits of the read options, applied to a tensor built from a record batch or read
/// from a file format.
fn check_limits(m: &Message, limits: &Limits) -> arrow_tensor_ipc::Result<()> {
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
