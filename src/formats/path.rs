//! Reading and writing a file by its path, in the format its content or name names; and
//! reading a file or bytes of a kind already known (what `input::Input` does once it has
//! told the kind).

use super::detect::{self, FileKind};
use super::{FileReadOptions, FileWriteOptions};
use crate::error::{ErrorKind, Result};
use crate::Message;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The kinds [`read_path`] and [`write_path`] take, in their errors.
const FORMAT_FILES: &str = "Matrix Market .mtx, FROSTT .tns, .npy, .npz";

/// Reads the file at `path` into messages (one per file, or one per array of a numpy
/// `savez` bundle), in the format [`detect`](detect::detect) tells from its content first
/// and its name second (a text file is Matrix Market by its banner or a `.mtx` name, FROSTT
/// by lines of coordinates or a `.tns` name). The options map onto the format's own (see
/// [`FileReadOptions`]).
///
/// The file is read into memory (an `.npz` archive member by member); to read a large
/// text file from a memory map instead, map it ([`map_file`](crate::map_file)) and hand the
/// bytes to the format's `read`. A file of another kind (tensor messages, Arrow IPC,
/// Parquet, plain text, ...) is an [`ErrorKind::UnsupportedKind`] naming the path and the
/// kind; a format whose cargo feature is off is an [`ErrorKind::UnsupportedLayout`].
pub fn read_path(path: &Path, options: &FileReadOptions) -> Result<Vec<Message>> {
    let mut file = File::open(path)?;
    let prefix = detect::read_prefix(&mut file)?;
    let kind = detect::detect(&prefix, Some(path));
    if !kind.is_format_file() {
        return Err(not_a_format_file(
            "formats::read_path reads",
            path,
            kind.phrase(),
        ));
    }
    file.seek(SeekFrom::Start(0))?;
    read_open_file(kind, path, file, options)
}

/// Reads the file at `path`, of a kind [`FileKind::is_format_file`] already told, as
/// [`read_path`] does.
#[cfg_attr(not(feature = "input"), allow(dead_code))]
pub(crate) fn read_file_as(
    kind: FileKind,
    path: &Path,
    options: &FileReadOptions,
) -> Result<Vec<Message>> {
    read_open_file(kind, path, File::open(path)?, options)
}

/// Reads `file` (opened at its start) of `kind`.
fn read_open_file(
    kind: FileKind,
    path: &Path,
    mut file: File,
    options: &FileReadOptions,
) -> Result<Vec<Message>> {
    match kind {
        #[cfg(feature = "npy")]
        FileKind::Npz => {
            let len = file.metadata()?.len();
            let messages = super::npz::read_from(std::io::BufReader::new(file), &options.limits)?;
            if let Some(progress) = options.progress {
                progress(len);
            }
            Ok(messages)
        }
        _ => {
            let mut bytes = Vec::with_capacity(
                file.metadata()
                    .map_or(0, |m| usize::try_from(m.len()).unwrap_or(0)),
            );
            file.read_to_end(&mut bytes)?;
            read_bytes_as(
                kind,
                Some(path),
                arrow_buffer::Buffer::from_vec(bytes),
                options,
            )
        }
    }
}

/// Reads a file of `kind` held in memory (`path`, when known, names it in errors); the
/// numpy formats report their length to the progress callback once read, the text formats
/// as they parse.
#[allow(unused_variables)] // every format may be compiled out
pub(crate) fn read_bytes_as(
    kind: FileKind,
    path: Option<&Path>,
    data: arrow_buffer::Buffer,
    options: &FileReadOptions,
) -> Result<Vec<Message>> {
    let len = data.len() as u64;
    let report = || {
        if let Some(progress) = options.progress {
            progress(len);
        }
    };
    match kind {
        #[cfg(feature = "matrix-market")]
        FileKind::MatrixMarket => super::mtx::read(data, &options.into()),
        #[cfg(feature = "frostt")]
        FileKind::Frostt => super::tns::read(data, &options.into()),
        #[cfg(feature = "npy")]
        FileKind::Npy => {
            let messages = super::npy::read(data, &options.into())?;
            report();
            Ok(messages)
        }
        #[cfg(feature = "npy")]
        FileKind::Npz => {
            let messages = super::npz::read(data, &options.into())?;
            report();
            Ok(messages)
        }
        kind if kind.is_format_file() => Err(not_compiled(kind, path)),
        kind => Err(not_a_format_file(
            "formats::read_path reads",
            path.unwrap_or(Path::new("the input")),
            kind.phrase(),
        )),
    }
}

/// The error of a file (or path) of no format of this module.
fn not_a_format_file(operation: &'static str, path: &Path, what: &str) -> crate::Error {
    ErrorKind::UnsupportedKind {
        operation,
        found: format!("{} ({what})", path.display()),
        kinds: FORMAT_FILES,
    }
    .into()
}

/// The error of a format whose cargo feature is off.
#[allow(dead_code)] // unused when every format is compiled in
fn not_compiled(kind: FileKind, path: Option<&Path>) -> crate::Error {
    let feature = match kind {
        FileKind::MatrixMarket => "matrix-market",
        FileKind::Frostt => "frostt",
        _ => "npy",
    };
    let name = path.map_or_else(|| "the input".to_string(), |p| p.display().to_string());
    ErrorKind::UnsupportedLayout {
        operation: "this build",
        expected: "a format whose cargo feature is on",
        found: format!("{name}, a {} file (cargo feature {feature})", kind.name()),
    }
    .into()
}

/// Writes messages into a new file at `path` (replacing one that exists), in the format
/// its extension names ([`FileKind::from_extension`]); the options map onto the format's
/// own (see [`FileWriteOptions`]). A format that holds one tensor refuses any other number of
/// messages; `.npz` writes one sparse message as a scipy sparse bundle and dense messages
/// as a bundle of named arrays. A path whose extension names no format of this module is an
/// [`ErrorKind::UnsupportedKind`] (nothing is created); a format whose cargo feature is off
/// an [`ErrorKind::UnsupportedLayout`]. On an error the file may be left partly written.
#[allow(unused_variables)] // every format may be compiled out
pub fn write_path(path: &Path, messages: &[Message], options: &FileWriteOptions) -> Result<()> {
    let kind = match FileKind::from_extension(path) {
        Some(kind) if kind.is_format_file() => kind,
        other => {
            let what = other.map_or("no known extension", FileKind::phrase);
            return Err(not_a_format_file("formats::write_path writes", path, what));
        }
    };
    let out = std::io::BufWriter::with_capacity(1 << 16, File::create(path)?);
    match kind {
        #[cfg(feature = "matrix-market")]
        FileKind::MatrixMarket => super::mtx::write(messages, out, &options.into()),
        #[cfg(feature = "frostt")]
        FileKind::Frostt => super::tns::write(messages, out, &options.into()),
        #[cfg(feature = "npy")]
        FileKind::Npy => super::npy::write(messages, out, &options.into()),
        #[cfg(feature = "npy")]
        FileKind::Npz => super::npz::write(messages, out, &options.into()),
        kind => Err(not_compiled(kind, Some(path))),
    }
}
