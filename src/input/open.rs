//! Opening an input: where its bytes are ([`Content`]), its kind told from its first
//! bytes, a reader's content spooled or read into memory for kinds that need it whole; and
//! the readers its tensors come from, chosen by kind and content.

use super::batches::{BatchTensors, Batches};
use super::files::{FileBytes, FileTensors};
use super::messages::MessageStream;
use super::tensors::{DatasetTensor, InputTensors, Source};
use super::{Input, InputOptions};
use crate::dataset::{DatasetReadOptions, MANIFEST_FILE};
use crate::error::{ErrorKind, Result};
use crate::formats::detect::{detect, read_prefix, FileKind};
use crate::record_batch::{
    IpcBatches, IpcReadOptions, IpcStreamReader, ParquetBatches, ParquetReadOptions,
};
use crate::Error;
use std::fs::File;
use std::io::{self, Cursor, Read, Write};
use std::path::{Path, PathBuf};

/// The kinds an input may hold, in the error for any other.
const KINDS_READ: &str = "tensor messages, Arrow IPC streams and files, Parquet, Matrix Market, \
     FROSTT, .npy, .npz";

/// Where an input's bytes are.
pub(super) enum Content {
    /// A regular file: its path, and the file opened past the bytes peeked from its start
    /// (for a reader that streams it).
    File {
        path: PathBuf,
        prefix: Vec<u8>,
        file: File,
    },
    /// A reader's content copied into a temporary file (removed when dropped).
    Spooled(tempfile::NamedTempFile),
    /// Read as it comes: the bytes peeked, then the rest.
    Stream {
        prefix: Vec<u8>,
        rest: Box<dyn Read + Send>,
    },
    /// The whole content, in memory.
    Memory(bytes::Bytes),
    /// The directory of a tiled dataset.
    Dataset(PathBuf),
    /// A tiled dataset at an object-store URL.
    #[cfg(feature = "object-store")]
    DatasetUrl(String, crate::storage::StorageOptions),
}

impl Content {
    /// The file or directory holding the content, if any.
    pub(super) fn path(&self) -> Option<&Path> {
        match self {
            Content::File { path, .. } | Content::Dataset(path) => Some(path),
            Content::Spooled(t) => Some(t.path()),
            Content::Stream { .. } | Content::Memory(_) => None,
            #[cfg(feature = "object-store")]
            Content::DatasetUrl(..) => None,
        }
    }
}

/// The error of an I/O `step` on an input.
fn io_failed(step: impl Into<String>) -> impl FnOnce(io::Error) -> Error {
    move |source| {
        ErrorKind::InputIo {
            step: step.into(),
            source,
        }
        .into()
    }
}

/// The error of an input of a kind the crate does not read, `found` in words.
fn not_read(found: impl Into<String>) -> Error {
    ErrorKind::UnsupportedKind {
        operation: "input::Input reads",
        found: found.into(),
        kinds: KINDS_READ,
    }
    .into()
}

/// `kind`, or the error naming it when the crate does not read it.
fn readable(kind: FileKind) -> Result<FileKind> {
    if kind.is_readable() {
        Ok(kind)
    } else {
        Err(not_read(kind.phrase()))
    }
}

/// Opens `path` (see [`Input::open`]).
pub(super) fn open_path<'a>(
    path: &Path,
    options: &InputOptions<'a>,
    mapped: bool,
) -> Result<Input<'a>> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(io_failed("cannot open"))?;
    let input = |kind, content, size| Input {
        name: name.clone(),
        kind,
        content,
        mapped,
        size,
        options: options.clone(),
    };
    if meta.is_dir() {
        if !path.join(MANIFEST_FILE).is_file() {
            return Err(not_read(format!(
                "a directory (not a tiled dataset: it holds no {MANIFEST_FILE})"
            )));
        }
        let kind = readable(FileKind::Dataset)?;
        return Ok(input(kind, Content::Dataset(path.to_path_buf()), None));
    }
    let file = File::open(path).map_err(io_failed("cannot open"))?;
    if meta.is_file() {
        let prefix = read_prefix(&mut &file).map_err(io_failed("cannot read"))?;
        let kind = readable(detect(&prefix, Some(path)))?;
        let content = Content::File {
            path: path.to_path_buf(),
            prefix,
            file,
        };
        return Ok(input(kind, content, Some(meta.len())));
    }
    // A pipe or a device: read as it comes, like standard input.
    open_reader(name, Box::new(file), Some(path), options, mapped)
}

/// Opens a reader named `name` (`path`, when known, tells the kind by its extension where
/// the content leaves it open): see [`Input::from_reader`].
pub(super) fn open_reader<'a>(
    name: String,
    mut reader: Box<dyn Read + Send>,
    path: Option<&Path>,
    options: &InputOptions<'a>,
    mapped: bool,
) -> Result<Input<'a>> {
    let prefix = read_prefix(&mut reader).map_err(io_failed("cannot read"))?;
    let kind = readable(detect(&prefix, path))?;
    let (content, size) = if kind.is_sequential() {
        (
            Content::Stream {
                prefix,
                rest: reader,
            },
            None,
        )
    } else if mapped {
        let spooled = spool(&prefix, &mut reader).map_err(io_failed(format!(
            "cannot copy into a temporary file (a {kind} input needs its whole content)"
        )))?;
        let size = spooled.as_file().metadata().map(|m| m.len()).ok();
        (Content::Spooled(spooled), size)
    } else {
        let mut data = prefix;
        reader
            .read_to_end(&mut data)
            .map_err(io_failed("cannot read"))?;
        let size = data.len() as u64;
        (Content::Memory(bytes::Bytes::from(data)), Some(size))
    };
    Ok(Input {
        name,
        kind,
        content,
        mapped,
        size,
        options: options.clone(),
    })
}

/// Copies `prefix` and the rest of `reader` into a new temporary file.
fn spool(prefix: &[u8], reader: &mut impl Read) -> io::Result<tempfile::NamedTempFile> {
    let mut tmp = tempfile::Builder::new()
        .prefix("arrow-tensor-input-")
        .tempfile()?;
    tmp.write_all(prefix)?;
    io::copy(reader, &mut tmp)?;
    tmp.flush()?;
    Ok(tmp)
}

/// The content's bytes from its start, read as they come.
fn stream(content: Content) -> Result<(Box<dyn Read + Send>, Option<tempfile::NamedTempFile>)> {
    Ok(match content {
        Content::File { prefix, file, .. } => (Box::new(Cursor::new(prefix).chain(file)), None),
        Content::Stream { prefix, rest } => (Box::new(Cursor::new(prefix).chain(rest)), None),
        Content::Spooled(tmp) => {
            let file = tmp.reopen().map_err(io_failed("cannot reopen"))?;
            (Box::new(file), Some(tmp))
        }
        Content::Memory(bytes) => (Box::new(Cursor::new(bytes)), None),
        #[cfg(feature = "object-store")]
        Content::DatasetUrl(..) => {
            return Err(ErrorKind::Internal {
                invariant: "a dataset's prefix is not read as a stream".into(),
            }
            .into())
        }
        Content::Dataset(_) => {
            return Err(ErrorKind::Internal {
                invariant: "a dataset's directory is not read as a stream".into(),
            }
            .into())
        }
    })
}

/// The tensors of `input` (see [`Input::tensors`]).
pub(super) fn tensors(input: Input<'_>) -> Result<InputTensors<'_>> {
    let Input {
        kind,
        content,
        mapped,
        size,
        options,
        ..
    } = input;
    let limits = options.read_options.limits;
    let (source, spool) = match (kind, content) {
        (FileKind::Dataset, Content::Dataset(dir)) => {
            let dataset_options = DatasetReadOptions::default()
                .with_limits(limits)
                .with_validation(options.read_options.validation);
            (
                Source::Dataset(DatasetTensor::new(dir, dataset_options, mapped)),
                None,
            )
        }
        #[cfg(feature = "object-store")]
        (FileKind::Dataset, Content::DatasetUrl(url, storage)) => {
            let dataset_options = DatasetReadOptions::default()
                .with_limits(limits)
                .with_validation(options.read_options.validation);
            (
                Source::Dataset(DatasetTensor::at_url(url, storage, dataset_options)),
                None,
            )
        }
        (kind, content) if kind.is_format_file() => {
            let (bytes, spool) = match content {
                Content::File { path, .. } => (FileBytes::Path { path, mapped }, None),
                Content::Spooled(tmp) => {
                    let path = tmp.path().to_path_buf();
                    (FileBytes::Path { path, mapped }, Some(tmp))
                }
                Content::Memory(data) => (FileBytes::Memory(data), None),
                content => {
                    // Not reached (a format file is not sequential), but read whole anyway.
                    let (mut reader, spool) = stream(content)?;
                    let mut data = Vec::new();
                    reader
                        .read_to_end(&mut data)
                        .map_err(io_failed("cannot read"))?;
                    (FileBytes::Memory(data.into()), spool)
                }
            };
            let files = FileTensors::new(kind, bytes, options.format_options(), size.unwrap_or(0));
            (Source::File(files), spool)
        }
        (FileKind::IpcStream | FileKind::IpcFile | FileKind::Parquet, content) => {
            let (batches, spool) = batches(kind, content, mapped, size, &options)?;
            (
                Source::Batches(BatchTensors::new(batches, options.message_options())),
                spool,
            )
        }
        (_, content) => {
            let (reader, spool) = stream(content)?;
            (
                Source::Messages(MessageStream::new(reader, &options.read_options)),
                spool,
            )
        }
    };
    Ok(InputTensors::new(source, spool))
}

/// The reader of the record batches of an IPC stream or file or a Parquet file.
fn batches(
    kind: FileKind,
    content: Content,
    mapped: bool,
    size: Option<u64>,
    options: &InputOptions<'_>,
) -> Result<(Batches, Option<tempfile::NamedTempFile>)> {
    let limits = options.read_options.limits;
    let ipc = IpcReadOptions::default().with_limits(limits);
    let parquet = ParquetReadOptions::default().with_limits(limits);
    let parquet_batches = |batches| Batches::Parquet {
        batches,
        rows: 0,
        size: size.unwrap_or(0),
    };
    let (path, spool) = match content {
        Content::File { path, .. } if mapped => (path, None),
        Content::Spooled(tmp) => (tmp.path().to_path_buf(), Some(tmp)),
        Content::Memory(data) => {
            return Ok((
                match kind {
                    FileKind::Parquet => parquet_batches(ParquetBatches::new(data, &parquet)?),
                    _ => Batches::Ipc(IpcBatches::new(data, &ipc)?),
                },
                None,
            ))
        }
        Content::File { path, .. } if kind != FileKind::IpcStream => {
            return Ok((
                match kind {
                    FileKind::Parquet => parquet_batches(ParquetBatches::open(&path, &parquet)?),
                    _ => Batches::Ipc(IpcBatches::open(&path, &ipc)?),
                },
                None,
            ))
        }
        // An IPC stream read as it comes (from a file: without reading it whole).
        content => {
            let (reader, spool) = stream(content)?;
            return Ok((Batches::Stream(IpcStreamReader::new(reader, &ipc)?), spool));
        }
    };
    #[allow(unsafe_code)]
    // SAFETY: `path` is mapped only when `mapped` is set, by `Input::open_mmap` (whose
    // caller promises that the file is not modified or truncated while the input, its
    // tensors or anything read from them are alive), or is the temporary copy of a reader
    // made by `Input::from_reader_mmap` or `Input::open_mmap` of a pipe (whose callers
    // promise the same of it).
    let batches = unsafe {
        match kind {
            FileKind::Parquet => parquet_batches(ParquetBatches::open_mmap(&path, &parquet)?),
            _ => Batches::Ipc(IpcBatches::open_mmap(&path, &ipc)?),
        }
    };
    Ok((batches, spool))
}

/// Opens `url` (see [`Input::open_url`]).
#[cfg(feature = "object-store")]
pub(super) fn open_url<'a>(
    url: &str,
    storage: &crate::storage::StorageOptions,
    options: &InputOptions<'a>,
) -> Result<Input<'a>> {
    let store = crate::storage::Store::open(url, storage)?;
    if store.size(MANIFEST_FILE)?.is_some() {
        let kind = readable(FileKind::Dataset)?;
        return Ok(Input {
            name: url.to_string(),
            kind,
            content: Content::DatasetUrl(url.to_string(), storage.clone()),
            mapped: false,
            size: None,
            options: options.clone(),
        });
    }
    // Its size first, so that a large object is fetched in concurrent parts (a missing
    // one fails on the GET, as not found).
    let bytes = match store.size("")? {
        Some(size) => store.get_sized("", size)?,
        None => store.get("")?,
    };
    let size = bytes.len() as u64;
    let mut input = open_reader(
        url.to_string(),
        Box::new(Cursor::new(bytes)),
        Some(Path::new(url)),
        options,
        false,
    )?;
    input.size = Some(size);
    Ok(input)
}
