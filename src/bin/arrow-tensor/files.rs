//! The file formats of [`arrow_tensor_ipc::formats`] (Matrix Market, FROSTT, `.npy`,
//! `.npz`) as inputs and outputs of `convert`, and as files `inspect` describes. Each such
//! file holds one tensor, except an `.npz` bundle of named arrays (`numpy.savez`), which
//! holds one dense tensor per member.

use arrow_tensor_ipc::formats::{self, mtx, npz, tns, FileFormat};
use arrow_tensor_ipc::{ErrorKind, Limits, Message, Validation};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// How `convert` reads and writes these files (from its command line).
#[derive(Clone, Debug, Default)]
pub struct FileOptions {
    /// Matrix Market: keep a symmetric or skew-symmetric matrix as stored (one triangle)
    /// instead of expanding it.
    pub as_stored: bool,
    /// FROSTT: the tensor's shape (else the largest coordinate of each dimension).
    pub shape: Option<Vec<usize>>,
    /// `.npz`: deflate the members.
    pub compressed: bool,
    /// Worker threads of the text readers and writers (0: one per core).
    pub threads: usize,
    /// Matrix Market: strict, or permissive (also what `scipy.io.mmread` reads).
    pub validation: Validation,
}

impl FileOptions {
    /// The format-agnostic read options of [`arrow_tensor_ipc::formats`].
    fn read_options<'a>(
        &self,
        limits: &Limits,
        progress: &'a (dyn Fn(u64) + Sync),
    ) -> formats::ReadOptions<'a> {
        let mut o = formats::ReadOptions::default()
            .with_limits(*limits)
            .with_threads(self.threads)
            .with_validation(self.validation)
            .with_expand_symmetry(!self.as_stored)
            .with_progress(progress);
        if let Some(shape) = &self.shape {
            o = o.with_shape(shape.clone());
        }
        o
    }

    /// The format-agnostic write options, a sparse tensor bound for `.npy` expanded up to
    /// `max_dense` elements.
    fn write_options(&self, max_dense: usize) -> formats::WriteOptions {
        formats::WriteOptions::default()
            .with_threads(self.threads)
            .with_compressed(self.compressed)
            .with_limits(Limits::default().with_max_dense_elements(max_dense))
    }
}

/// The file's bytes, memory-mapped.
#[allow(unsafe_code)]
fn map(path: &Path) -> Result<bytes::Bytes, String> {
    // SAFETY: the CLI's contract (stated in its help and the README): input files are not
    // modified or truncated while a command reads them; a spooled standard input is a
    // temporary file of the tool's own.
    unsafe { arrow_tensor_ipc::map_file(path) }.map_err(|e| format!("cannot map: {e}"))
}

/// Reads the tensors of a file of `format` (one, or an `.npz` bundle's members in archive
/// order, each named in its custom metadata); `progress` hears the input bytes parsed.
/// Text files are memory-mapped (their parsers read them once, front to back); the others
/// go through [`formats::read_path`]. Errors do not name the file (callers do).
pub fn read(
    format: FileFormat,
    path: &Path,
    options: &FileOptions,
    limits: &Limits,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Message>, String> {
    let o = options.read_options(limits, progress);
    let at = |e: arrow_tensor_ipc::Error| e.to_string();
    match format {
        FileFormat::MatrixMarket => mtx::read(map(path)?, &(&o).into()).map_err(at),
        FileFormat::Frostt => tns::read(map(path)?, &(&o).into()).map_err(at),
        FileFormat::Npy | FileFormat::Npz => formats::read_path(path, &o).map_err(at),
    }
}

/// Writes messages into a file of one format, as they come: one tensor (a sparse tensor
/// bound for `.npy` is expanded to dense, up to `max_dense` elements), or for `.npz`
/// either one sparse tensor (a scipy sparse bundle) or any number of dense tensors (a
/// bundle of named arrays, names from the messages' metadata, else `arr_0`, `arr_1`, ...).
pub struct FileWriter {
    format: FileFormat,
    options: formats::WriteOptions,
    state: WriterState,
}

enum WriterState {
    /// Nothing written yet.
    Empty(File),
    /// A file of one tensor was written.
    One,
    /// An `.npz` bundle of named arrays is being written.
    Bundle(Box<npz::BundleWriter<BufWriter<File>>>),
}

impl FileWriter {
    /// A writer of a file of `format` into `file`.
    pub fn new(format: FileFormat, file: File, options: &FileOptions, max_dense: usize) -> Self {
        FileWriter {
            format,
            options: options.write_options(max_dense),
            state: WriterState::Empty(file),
        }
    }

    /// Writes the next message.
    pub fn write(&mut self, message: &Message) -> arrow_tensor_ipc::Result<()> {
        let state = std::mem::replace(&mut self.state, WriterState::One);
        match (state, message) {
            (WriterState::Empty(file), Message::Tensor(_)) if self.format == FileFormat::Npz => {
                let out = BufWriter::with_capacity(1 << 16, file);
                let mut bundle = Box::new(npz::BundleWriter::new(out, &(&self.options).into()));
                bundle.write(message)?;
                self.state = WriterState::Bundle(bundle);
                Ok(())
            }
            (WriterState::Empty(file), _) => write(self.format, message, file, &self.options),
            (WriterState::Bundle(mut bundle), _) => {
                bundle.write(message)?;
                self.state = WriterState::Bundle(bundle);
                Ok(())
            }
            (WriterState::One, _) => Err(ErrorKind::UnsupportedLayout {
                operation: match self.format {
                    FileFormat::MatrixMarket => "a Matrix Market file (it holds one tensor)",
                    FileFormat::Frostt => "a FROSTT file (it holds one tensor)",
                    FileFormat::Npy => "a .npy file (it holds one tensor)",
                    FileFormat::Npz => {
                        "a scipy sparse .npz file (it holds one tensor; a bundle of named \
                         arrays holds dense ones)"
                    }
                },
                expected: "one tensor",
                found: "more than one message".into(),
            }
            .into()),
        }
    }

    /// Ends the file.
    pub fn finish(self) -> Result<(), String> {
        match self.state {
            WriterState::Empty(_) => Err(format!(
                "no tensor to write into a {} file",
                self.format.name()
            )),
            WriterState::One => Ok(()),
            WriterState::Bundle(bundle) => bundle.finish().map(drop).map_err(|e| e.to_string()),
        }
    }
}

/// Writes `message` as a file of `format`: a sparse tensor bound for `.npy` is expanded
/// to dense (up to the options' `max_dense_elements`); for `.npz`, a sparse tensor becomes
/// a scipy sparse bundle and a dense one a bundle of one named array.
fn write(
    format: FileFormat,
    message: &Message,
    file: File,
    options: &formats::WriteOptions,
) -> arrow_tensor_ipc::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, file);
    let one = std::slice::from_ref(message);
    match format {
        FileFormat::MatrixMarket => mtx::write(one, &mut out, &options.into())?,
        FileFormat::Frostt => tns::write(one, &mut out, &options.into())?,
        FileFormat::Npy => formats::npy::write(one, &mut out, &options.into())?,
        FileFormat::Npz => npz::write(one, &mut out, &options.into())?,
    }
    out.flush()?;
    Ok(())
}

/// The `inspect` line of a file of `format`: what the file declares (Matrix Market's
/// header) and the tensor it holds; for an `.npz` bundle of named arrays, a line with the
/// member count and one line per member (name, then the tensor). Errors name the file
/// `name`.
pub fn describe(
    format: FileFormat,
    path: &Path,
    name: &str,
    limits: &Limits,
    validation: Validation,
    tensor_line: impl Fn(&Message) -> String,
) -> Result<String, String> {
    let declared = match format {
        FileFormat::MatrixMarket => {
            let mapped = map(path).map_err(|e| format!("{name}: {e}"))?;
            let h = mtx::read_header(
                &mapped,
                &mtx::ReadOptions::default().with_validation(validation),
            )
            .map_err(|e| format!("{name}: {e}"))?;
            format!(
                " ({:?} {:?} {:?}, {} x {}, {} entries stored)",
                h.format, h.field, h.symmetry, h.rows, h.cols, h.entries
            )
            .to_lowercase()
        }
        _ => String::new(),
    };
    let options = FileOptions {
        validation,
        ..FileOptions::default()
    };
    let messages =
        read(format, path, &options, limits, &|_| {}).map_err(|e| format!("{name}: {e}"))?;
    let bundle = format == FileFormat::Npz && messages.iter().all(|m| m.as_tensor().is_some());
    if !bundle {
        let lines: Vec<String> = messages.iter().map(&tensor_line).collect();
        return Ok(format!(
            "{} file{declared}: {}",
            format.name(),
            lines.join("\n")
        ));
    }
    let plural = if messages.len() == 1 {
        "array"
    } else {
        "arrays"
    };
    let mut out = format!(
        "{} file (bundle of {} named {plural})",
        format.name(),
        messages.len()
    );
    for m in &messages {
        let mut member = String::new();
        crate::json::push_str(&mut member, m.name().unwrap_or_default());
        out.push_str(&format!("\nmember {member}: {}", tensor_line(m)));
    }
    Ok(out)
}
