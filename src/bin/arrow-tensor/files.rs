//! The file formats of [`arrow_tensor_ipc::formats`] (Matrix Market, FROSTT, `.npy`,
//! `.npz`) as inputs and outputs of `convert`, and as files `inspect` describes. Each such
//! file holds one tensor.

use arrow_tensor_ipc::formats::{frostt, matrix_market, npy, npz, FileFormat};
use arrow_tensor_ipc::{ConvertOptions, Limits, Message, SparseFormat, Validation};
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
fn map(path: &Path) -> Result<bytes::Bytes, String> {
    arrow_tensor_ipc::map_file(path).map_err(|e| format!("{}: cannot map: {e}", path.display()))
}

/// Reads the one tensor of a file of `format`; `progress` hears the input bytes parsed.
pub fn read(
    format: FileFormat,
    path: &Path,
    options: &FileOptions,
    limits: &Limits,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Message, String> {
    let at = |e: arrow_tensor_ipc::Error| format!("{}: {e}", path.display());
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
                matrix_market::read_matrix_market(bytes, &o).map_err(at)
            } else {
                let mut o = frostt::TnsReadOptions::default()
                    .with_limits(*limits)
                    .with_threads(options.threads)
                    .with_progress(progress);
                if let Some(shape) = &options.shape {
                    o = o.with_shape(shape.clone());
                }
                frostt::read_frostt(bytes, &o)
                    .map(Message::SparseTensor)
                    .map_err(at)
            }
        }
        FileFormat::Npy => {
            let bytes =
                std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
            progress(bytes.len() as u64);
            npy::read_npy_buffer(arrow_buffer::Buffer::from_vec(bytes), limits)
                .map(Message::Tensor)
                .map_err(at)
        }
        FileFormat::Npz => {
            let file =
                File::open(path).map_err(|e| format!("{}: cannot open: {e}", path.display()))?;
            npz::read_npz(BufReader::new(file), limits)
                .map(Message::SparseTensor)
                .map_err(at)
        }
    }
}

/// Writes `message` as a file of `format`: a sparse tensor bound for `.npy` is expanded
/// to dense (up to `max_dense` elements), a dense one bound for `.npz` becomes CSR.
pub fn write(
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
            Message::SparseTensor(s) => npy::write_npy(&s.to_dense_limited(max_dense)?, &mut out)?,
        },
        FileFormat::Npz => {
            let o = npz::NpzWriteOptions {
                compressed: options.compressed,
            };
            match message {
                Message::SparseTensor(s) => npz::write_npz(s, &mut out, &o)?,
                Message::Tensor(t) => npz::write_npz(
                    &t.to_sparse(SparseFormat::Csr, &ConvertOptions::default())?,
                    &mut out,
                    &o,
                )?,
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The `inspect` line of a file of `format`: what the file declares (Matrix Market's
/// header) and the tensor it holds.
pub fn describe(
    format: FileFormat,
    path: &Path,
    limits: &Limits,
    validation: Validation,
    tensor_line: impl Fn(&Message) -> String,
) -> Result<String, String> {
    let declared = match format {
        FileFormat::MatrixMarket => {
            let mapped = map(path)?;
            let h = matrix_market::read_header_with(&mapped, validation)
                .map_err(|e| format!("{}: {e}", path.display()))?;
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
    let message = read(format, path, &options, limits, &|_| {})?;
    Ok(format!(
        "{} file{declared}: {}",
        format.name(),
        tensor_line(&message)
    ))
}
