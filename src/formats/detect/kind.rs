//! [`FileKind`]: what a file (or a directory) holds, with what the crate knows of each kind:
//! its name, whether the crate reads it, whether it can be read front to back from a pipe,
//! and the kind a file name's extension stands for.

use std::path::Path;

/// What a file holds, as [`detect`](super::detect) tells it from the file's first bytes
/// (and [`FileKind::from_extension`] from its name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// Tensor / SparseTensor messages, one after another (also an empty file, and bytes
    /// framed as a message whose metadata cannot be checked: the message decoder then says
    /// what is wrong).
    TensorMessages,
    /// An Arrow IPC stream of record batches: its first message is a Schema.
    IpcStream,
    /// An Arrow IPC file (`ARROW1` magic).
    IpcFile,
    /// Matrix Market (`%%MatrixMarket` banner, or a text file ending in `.mtx`).
    MatrixMarket,
    /// FROSTT (text lines of integer coordinates and a value, or a text file ending in
    /// `.tns`).
    Frostt,
    /// NumPy `.npy` (`\x93NUMPY` magic).
    Npy,
    /// A zip archive of `.npy` members (numpy `savez`, scipy `save_npz`), or any zip
    /// archive named `.npz`.
    Npz,
    /// Apache Parquet (`PAR1` magic). Read with the `parquet` feature
    /// (`record_batch::ParquetBatches`).
    Parquet,
    /// A tiled dataset: a directory holding the manifest `_tensor.json` (`dataset`
    /// module, `parquet` feature). Not a file: [`detect`](super::detect) never returns it,
    /// `input::Input` does for such a directory.
    Dataset,
    /// A zip archive that is not an `.npz` bundle. Not read by this crate.
    Zip,
    /// HDF5 (`\x89HDF\r\n\x1a\n` signature). Not read by this crate.
    Hdf5,
    /// gzip-compressed data. Not read by this crate.
    Gzip,
    /// Text in no format of this crate (CSV, JSON, ...). Not read by this crate.
    Text,
    /// Binary data of no kind named here. Not read by this crate.
    Binary,
}

impl FileKind {
    /// The kind's name, as in error messages ("Arrow IPC file", "Parquet", "plain text").
    pub fn name(self) -> &'static str {
        match self {
            FileKind::TensorMessages => "tensor messages",
            FileKind::IpcStream => "Arrow IPC stream",
            FileKind::IpcFile => "Arrow IPC file",
            FileKind::MatrixMarket => "Matrix Market",
            FileKind::Frostt => "FROSTT",
            FileKind::Npy => "npy",
            FileKind::Npz => "npz",
            FileKind::Parquet => "Parquet",
            FileKind::Dataset => "tiled dataset",
            FileKind::Zip => "zip archive",
            FileKind::Hdf5 => "HDF5",
            FileKind::Gzip => "gzip",
            FileKind::Text => "plain text",
            FileKind::Binary => "unknown binary data",
        }
    }

    /// The kind in a sentence of an error message: "plain text", "a zip archive without
    /// .npy members", "a HDF5 file".
    pub(crate) fn phrase(self) -> &'static str {
        match self {
            FileKind::TensorMessages => "tensor messages",
            FileKind::IpcStream => "an Arrow IPC stream",
            FileKind::IpcFile => "an Arrow IPC file",
            FileKind::MatrixMarket => "a Matrix Market file",
            FileKind::Frostt => "a FROSTT file",
            FileKind::Npy => "a .npy file",
            FileKind::Npz => "a .npz file",
            FileKind::Parquet => "a Parquet file",
            FileKind::Dataset => "a tiled dataset",
            FileKind::Zip => "a zip archive without .npy members",
            FileKind::Hdf5 => "a HDF5 file",
            FileKind::Gzip => "a gzip file",
            FileKind::Text => "plain text",
            FileKind::Binary => "unknown binary data",
        }
    }

    /// The kind a path's extension stands for (case-insensitive), if any: `.mtx`, `.tns`,
    /// `.npy`, `.npz`, `.parquet`, `.arrow` and `.feather` (an Arrow IPC file), `.arrows`
    /// (an Arrow IPC stream). For writers that choose a format by the name of the file
    /// they create; a reader goes by content first ([`detect`](super::detect)).
    ///
    /// ```
    /// use arrow_tensor_ipc::formats::detect::FileKind;
    /// assert_eq!(FileKind::from_extension("a/b.MTX".as_ref()), Some(FileKind::MatrixMarket));
    /// assert_eq!(FileKind::from_extension("t.parquet".as_ref()), Some(FileKind::Parquet));
    /// assert_eq!(FileKind::from_extension("notes.txt".as_ref()), None);
    /// ```
    pub fn from_extension(path: &Path) -> Option<FileKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "mtx" => FileKind::MatrixMarket,
            "tns" => FileKind::Frostt,
            "npy" => FileKind::Npy,
            "npz" => FileKind::Npz,
            "parquet" => FileKind::Parquet,
            "arrow" | "feather" => FileKind::IpcFile,
            "arrows" => FileKind::IpcStream,
            _ => return None,
        })
    }

    /// Whether the kind is a file format of [`formats`](crate::formats) (Matrix Market,
    /// FROSTT, `.npy`, `.npz`): what [`read_path`](crate::formats::read_path) reads and
    /// [`write_path`](crate::formats::write_path) writes.
    pub fn is_format_file(self) -> bool {
        matches!(
            self,
            FileKind::MatrixMarket | FileKind::Frostt | FileKind::Npy | FileKind::Npz
        )
    }

    /// Whether this crate has a reader for the kind (some behind cargo features: the
    /// record-batch bridge for IPC streams and files, `matrix-market`, `frostt`, `npy`;
    /// Parquet and tiled datasets only when built with `parquet`).
    pub fn is_readable(self) -> bool {
        if matches!(self, FileKind::Parquet | FileKind::Dataset) {
            return cfg!(feature = "parquet");
        }
        !matches!(
            self,
            FileKind::Zip | FileKind::Hdf5 | FileKind::Gzip | FileKind::Text | FileKind::Binary
        )
    }

    /// Whether the kind is read front to back in one pass (so it can come from a pipe);
    /// the others need their whole content at hand (a footer, a zip directory, or a parser
    /// over the whole file).
    pub fn is_sequential(self) -> bool {
        matches!(self, FileKind::TensorMessages | FileKind::IpcStream)
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
