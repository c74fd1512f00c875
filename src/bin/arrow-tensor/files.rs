//! The file formats of [`arrow_tensor_ipc::formats`] (Matrix Market, FROSTT, `.npy`,
//! `.npz`) as inputs and outputs of `convert`, and as files `inspect` describes. Each such
//! file holds one tensor, except an `.npz` bundle of named arrays (`numpy.savez`), which
//! holds one dense tensor per member.

use arrow_tensor_ipc::formats::{frostt, matrix_market, npy, npz, FileFormat};
use arrow_tensor_ipc::{ErrorKind, Limits, Message, Validation};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
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
/// Errors do not name the file (callers do).
pub fn read(
    format: FileFormat,
    path: &Path,
    options: &FileOptions,
    limits: &Limits,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Message>, String> {
    let at = |e: arrow_tensor_ipc::Error| e.to_string();
    match format {
        FileFormat::MatrixMarket | FileFormat::Frostt => {
            let mapped = map(path)?;
            let bytes: &[u8] = &mapped;
            if format == FileFormat::MatrixMarket {
                let o = matrix_market::MtxReadOptions::default()
                    .with_expand_symmetry(!options.as_stored)
                    .with_limits(*limits)
                    .with_threads(options.threads)
                    .with_validation(options.validation)
                    .with_progress(progress);
                matrix_market::read_matrix_market(bytes, &o)
                    .map(|m| vec![m])
                    .map_err(at)
            } else {
                let mut o = frostt::TnsReadOptions::default()
                    .with_limits(*limits)
                    .with_threads(options.threads)
                    .with_progress(progress);
                if let Some(shape) = &options.shape {
                    o = o.with_shape(shape.clone());
                }
                frostt::read_frostt(bytes, &o)
                    .map(|t| vec![Message::SparseTensor(t)])
                    .map_err(at)
            }
        }
        FileFormat::Npy => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
            progress(bytes.len() as u64);
            npy::read_npy_buffer(arrow_buffer::Buffer::from_vec(bytes), limits)
                .map(|t| vec![Message::Tensor(t)])
                .map_err(at)
        }
        FileFormat::Npz => {
            let file = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
            npz::read_npz_messages(BufReader::new(file), limits).map_err(at)
        }
    }
}

/// Writes messages into a file of one format, as they come: one tensor (a sparse tensor
/// bound for `.npy` is expanded to dense, up to `max_dense` elements), or for `.npz`
/// either one sparse tensor (a scipy sparse bundle) or any number of dense tensors (a
/// bundle of named arrays, names from the messages' metadata, else `arr_0`, `arr_1`, ...).
pub struct FileWriter {
    format: FileFormat,
    options: FileOptions,
    max_dense: usize,
    state: WriterState,
}

enum WriterState {
    /// Nothing written yet.
    Empty(File),
    /// A file of one tensor was written.
    One,
    /// An `.npz` bundle of named arrays is being written.
    Bundle(Box<npz::NpzBundleWriter<BufWriter<File>>>),
}

impl FileWriter {
    /// A writer of a file of `format` into `file`.
    pub fn new(format: FileFormat, file: File, options: &FileOptions, max_dense: usize) -> Self {
        FileWriter {
            format,
            options: options.clone(),
            max_dense,
            state: WriterState::Empty(file),
        }
    }

    /// Writes the next message.
    pub fn write(&mut self, message: &Message) -> arrow_tensor_ipc::Result<()> {
        let state = std::mem::replace(&mut self.state, WriterState::One);
        match (state, message) {
            (WriterState::Empty(file), Message::Tensor(_)) if self.format == FileFormat::Npz => {
                let out = BufWriter::with_capacity(1 << 16, file);
                let o = npz::NpzWriteOptions {
                    compressed: self.options.compressed,
                };
                let mut bundle = Box::new(npz::NpzBundleWriter::new(out, &o));
                bundle.write(message)?;
                self.state = WriterState::Bundle(bundle);
                Ok(())
            }
            (WriterState::Empty(file), _) => {
                write(self.format, message, file, &self.options, self.max_dense)
            }
            (WriterState::Bundle(mut bundle), _) => {
                bundle.write(message)?;
                self.state = WriterState::Bundle(bundle);
                Ok(())
            }
            (WriterState::One, _) => {
                let what = if self.format == FileFormat::Npz {
                    "a scipy sparse .npz file holds one sparse tensor (a bundle of named \
                     arrays holds dense ones)"
                        .to_string()
                } else {
                    format!("a {} file holds one tensor", self.format.name())
                };
                Err(ErrorKind::InvalidArgument(format!(
                    "{what} and the input has more than one message"
                ))
                .into())
            }
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
/// to dense (up to `max_dense` elements); for `.npz`, a sparse tensor becomes a scipy
/// sparse bundle and a dense one a bundle of one named array.
fn write(
    format: FileFormat,
    message: &Message,
    file: File,
    options: &FileOptions,
    max_dense: usize,
) -> arrow_tensor_ipc::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, file);
    match format {
        FileFormat::MatrixMarket => {
            let o = matrix_market::MtxWriteOptions::default().with_threads(options.threads);
            matrix_market::write_matrix_market(message, &mut out, &o)?;
        }
        FileFormat::Frostt => frostt::write_frostt(message, &mut out)?,
        FileFormat::Npy => match message {
            Message::Tensor(t) => npy::write_npy(t, &mut out)?,
            Message::SparseTensor(s) => npy::write_npy(
                &s.to_dense_with(
                    &arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(max_dense),
                )?,
                &mut out,
            )?,
        },
        FileFormat::Npz => {
            let o = npz::NpzWriteOptions {
                compressed: options.compressed,
            };
            npz::write_npz_messages([message], &mut out, &o)?;
        }
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
            let h = matrix_market::read_header_with(&mapped, validation)
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
