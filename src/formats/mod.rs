//! The file formats sparse and dense data arrives in, read into and written from the
//! crate's model: Matrix Market (`.mtx`), FROSTT (`.tns`), NumPy `.npy`, and `.npz` archives
//! (scipy's `save_npz` sparse bundles and numpy's `savez` bundles of named arrays). Each
//! format sits behind its own cargo feature.
//!
//! Every reader treats its input as untrusted, like the message decoder: malformed input is
//! an [`ErrorKind::Parse`](crate::ErrorKind::Parse) naming the line, header or archive
//! member, sizes are checked against [`Limits`](crate::Limits), and nothing is allocated in
//! proportion to a size the input merely claims before the data backs it.

use std::path::Path;

pub mod detect;
#[cfg(feature = "frostt")]
pub mod frostt;
#[cfg(feature = "matrix-market")]
pub mod matrix_market;
#[cfg(feature = "npy")]
pub mod npy;
#[cfg(feature = "npy")]
pub mod npz;
#[cfg(any(feature = "matrix-market", feature = "frostt"))]
mod text;

/// Called by the text readers with the number of input bytes parsed so far (for a
/// progress bar); may be called from several threads.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// A file format of this module, as named by a file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileFormat {
    /// Matrix Market, `.mtx`.
    MatrixMarket,
    /// FROSTT, `.tns`.
    Frostt,
    /// NumPy, `.npy`.
    Npy,
    /// `.npz`: a scipy `save_npz` sparse bundle or a numpy `savez` bundle of named arrays.
    Npz,
}

impl FileFormat {
    /// The format a path's extension names (case-insensitive), if any.
    ///
    /// ```
    /// use arrow_tensor_ipc::formats::FileFormat;
    /// assert_eq!(FileFormat::from_path("a/b.MTX".as_ref()), Some(FileFormat::MatrixMarket));
    /// assert_eq!(FileFormat::from_path("t.arrows".as_ref()), None);
    /// ```
    pub fn from_path(path: &Path) -> Option<FileFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "mtx" => Some(FileFormat::MatrixMarket),
            "tns" => Some(FileFormat::Frostt),
            "npy" => Some(FileFormat::Npy),
            "npz" => Some(FileFormat::Npz),
            _ => None,
        }
    }

    /// The format's name, as in error messages.
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::MatrixMarket => "Matrix Market",
            FileFormat::Frostt => "FROSTT",
            FileFormat::Npy => "npy",
            FileFormat::Npz => "npz",
        }
    }
}
