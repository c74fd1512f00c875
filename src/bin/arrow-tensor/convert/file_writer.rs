//! A file of a format of `arrow_tensor_ipc::formats` (Matrix Market, FROSTT, `.npy`,
//! `.npz`) as `convert`'s output, written as the messages come. Each such file holds one
//! tensor, except an `.npz` bundle of named arrays (`numpy.savez`), which holds one dense
//! tensor per member.

use arrow_tensor_ipc::formats::{self, detect::FileKind, mtx, npz, tns};
use arrow_tensor_ipc::{ErrorKind, Message};
use std::fs::File;
use std::io::{BufWriter, Write};

/// Writes messages into a file of one format, as they come: one tensor (a sparse tensor
/// bound for `.npy` is expanded to dense, up to the options' `max_dense_elements`), or for
/// `.npz`
/// either one sparse tensor (a scipy sparse bundle) or any number of dense tensors (a
/// bundle of named arrays, names from the messages' metadata, else `arr_0`, `arr_1`, ...).
pub struct FileWriter {
    format: FileKind,
    options: formats::FileWriteOptions,
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
    /// A writer of a file of `format` (one of [`FileKind::is_format_file`]) into `file`.
    pub fn new(format: FileKind, file: File, options: &formats::FileWriteOptions) -> Self {
        FileWriter {
            format,
            options: options.clone(),
            state: WriterState::Empty(file),
        }
    }

    /// Writes the next message.
    pub fn write(&mut self, message: &Message) -> arrow_tensor_ipc::Result<()> {
        let state = std::mem::replace(&mut self.state, WriterState::One);
        match (state, message) {
            (WriterState::Empty(file), Message::Tensor(_)) if self.format == FileKind::Npz => {
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
                    FileKind::MatrixMarket => "a Matrix Market file (it holds one tensor)",
                    FileKind::Frostt => "a FROSTT file (it holds one tensor)",
                    FileKind::Npy => "a .npy file (it holds one tensor)",
                    _ => {
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
    format: FileKind,
    message: &Message,
    file: File,
    options: &formats::FileWriteOptions,
) -> arrow_tensor_ipc::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, file);
    let one = std::slice::from_ref(message);
    match format {
        FileKind::MatrixMarket => mtx::write(one, &mut out, &options.into())?,
        FileKind::Frostt => tns::write(one, &mut out, &options.into())?,
        FileKind::Npy => formats::npy::write(one, &mut out, &options.into())?,
        FileKind::Npz => npz::write(one, &mut out, &options.into())?,
        kind => {
            return Err(ErrorKind::UnsupportedKind {
                operation: "convert writes",
                found: format!("a {kind} output"),
                kinds: "Matrix Market .mtx, FROSTT .tns, .npy, .npz",
            }
            .into())
        }
    }
    out.flush()?;
    Ok(())
}
