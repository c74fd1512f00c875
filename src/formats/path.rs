//! Reading and writing a file by its path, in the format its content or extension names.

use super::{FileFormat, ReadOptions, WriteOptions};
use crate::error::{ErrorKind, Result};
use crate::Message;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Reads the file at `path` into messages (one per file, or one per array of a numpy
/// `savez` bundle), in the format its content names where the format has a magic
/// ([`FileFormat::from_magic`]: `.npy`, `.npz`, Matrix Market), else in the format its
/// extension names ([`FileFormat::from_path`]: `.tns`). The options map onto the format's
/// own (see [`ReadOptions`]).
///
/// The file is read into memory (an `.npz` archive member by member); to read a large
/// text file from a memory map instead, map it ([`map_file`](crate::map_file)) and hand the
/// bytes to the format's `read`. A file of no format of this module (or of one whose cargo
/// feature is off) is an [`ErrorKind::UnsupportedLayout`] naming the path.
pub fn read_path(path: &Path, options: &ReadOptions) -> Result<Vec<Message>> {
    let mut file = File::open(path)?;
    let mut head = [0u8; 16];
    let mut n = 0;
    while n < head.len() {
        match file.read(head.get_mut(n..).unwrap_or_default())? {
            0 => break,
            k => n += k,
        }
    }
    let format = FileFormat::from_magic(head.get(..n).unwrap_or_default())
        .or_else(|| FileFormat::from_path(path))
        .ok_or_else(|| unknown_format("formats::read_path", path))?;
    file.seek(SeekFrom::Start(0))?;
    let report = |len: u64| {
        if let Some(progress) = options.progress {
            progress(len);
        }
    };
    match format {
        #[cfg(feature = "npy")]
        FileFormat::Npz => {
            let len = file.metadata()?.len();
            let messages = super::npz::read_from(std::io::BufReader::new(file), &options.limits)?;
            report(len);
            Ok(messages)
        }
        _ => {
            let mut bytes = Vec::with_capacity(
                file.metadata()
                    .map_or(0, |m| usize::try_from(m.len()).unwrap_or(0)),
            );
            file.read_to_end(&mut bytes)?;
            let len = bytes.len() as u64;
            read_bytes(
                format,
                path,
                arrow_buffer::Buffer::from_vec(bytes),
                options,
                || report(len),
            )
        }
    }
}

/// Reads a file held in memory in `format`.
#[allow(unused_variables)] // every format may be compiled out
fn read_bytes(
    format: FileFormat,
    path: &Path,
    data: arrow_buffer::Buffer,
    options: &ReadOptions,
    report: impl Fn(),
) -> Result<Vec<Message>> {
    match format {
        #[cfg(feature = "matrix-market")]
        FileFormat::MatrixMarket => super::mtx::read(data, &options.into()),
        #[cfg(feature = "frostt")]
        FileFormat::Frostt => super::tns::read(data, &options.into()),
        #[cfg(feature = "npy")]
        FileFormat::Npy => {
            let messages = super::npy::read(data, &options.into())?;
            report();
            Ok(messages)
        }
        #[cfg(feature = "npy")]
        FileFormat::Npz => {
            let messages = super::npz::read(data, &options.into())?;
            report();
            Ok(messages)
        }
        #[allow(unreachable_patterns)]
        _ => Err(not_compiled(format, path)),
    }
}

/// The error of a file of no format of this module.
fn unknown_format(operation: &'static str, path: &Path) -> crate::Error {
    ErrorKind::UnsupportedLayout {
        operation,
        expected: "a Matrix Market (.mtx), FROSTT (.tns), .npy or .npz file",
        found: format!("{} (no known magic or extension)", path.display()),
    }
    .into()
}

/// The error of a format whose cargo feature is off.
#[allow(dead_code)] // unused when every format is compiled in
fn not_compiled(format: FileFormat, path: &Path) -> crate::Error {
    let feature = match format {
        FileFormat::MatrixMarket => "matrix-market",
        FileFormat::Frostt => "frostt",
        FileFormat::Npy | FileFormat::Npz => "npy",
    };
    ErrorKind::UnsupportedLayout {
        operation: "this build",
        expected: "a format whose cargo feature is on",
        found: format!(
            "{}, a {} file (cargo feature {feature})",
            path.display(),
            format.name()
        ),
    }
    .into()
}

/// Writes messages into a new file at `path` (replacing one that exists), in the format
/// its extension names ([`FileFormat::from_path`]); the options map onto the format's own
/// (see [`WriteOptions`]). A format that holds one tensor refuses any other number of
/// messages; `.npz` writes one sparse message as a scipy sparse bundle and dense messages
/// as a bundle of named arrays. A path without a known extension (or of a format whose
/// cargo feature is off) is an [`ErrorKind::UnsupportedLayout`]. On an error the file may
/// be left partly written.
#[allow(unused_variables)] // every format may be compiled out
pub fn write_path(path: &Path, messages: &[Message], options: &WriteOptions) -> Result<()> {
    let format =
        FileFormat::from_path(path).ok_or_else(|| unknown_format("formats::write_path", path))?;
    let out = std::io::BufWriter::with_capacity(1 << 16, File::create(path)?);
    match format {
        #[cfg(feature = "matrix-market")]
        FileFormat::MatrixMarket => super::mtx::write(messages, out, &options.into()),
        #[cfg(feature = "frostt")]
        FileFormat::Frostt => super::tns::write(messages, out, &options.into()),
        #[cfg(feature = "npy")]
        FileFormat::Npy => super::npy::write(messages, out, &options.into()),
        #[cfg(feature = "npy")]
        FileFormat::Npz => super::npz::write(messages, out, &options.into()),
        #[allow(unreachable_patterns)]
        _ => Err(not_compiled(format, path)),
    }
}
