//! The file formats sparse and dense data arrives in, read into and written from the
//! crate's model: Matrix Market ([`mtx`], `.mtx`), FROSTT ([`tns`], `.tns`), NumPy
//! ([`npy`], `.npy`), and `.npz` archives ([`npz`]: scipy's `save_npz` sparse bundles and
//! numpy's `savez` bundles of named arrays). Each format sits behind its own cargo feature
//! (`matrix-market`, `frostt`, `npy` for both numpy formats).
//!
//! Every format has the same shape: a module with
//!
//! - `read(data, &FileReadOptions) -> Result<Vec<Message>>`: `data` is anything that becomes an
//!   Arrow [`Buffer`](arrow_buffer::Buffer) (a `Vec<u8>`, a `bytes::Bytes` such as a memory
//!   map from [`map_file`](crate::map_file), a `Buffer`: no copy; a `&[u8]`: one copy); one
//!   message per file, except a numpy `savez` bundle, which gives one per array, named by
//!   [`Message::name`];
//! - `write(&[Message], out, &FileWriteOptions) -> Result<()>`: a format that holds one tensor
//!   refuses any other number of messages;
//! - `FileReadOptions` and `FileWriteOptions`: `Default`, `with_*` setters, `#[non_exhaustive]`;
//!   every `FileReadOptions` carries [`Limits`](crate::Limits).
//!
//! [`read_path`] and [`write_path`] pick the format of a path: [`read_path`] by the file's
//! content first and its name second, as [`detect`] tells its
//! [`FileKind`](detect::FileKind); [`write_path`] by the name's extension
//! ([`FileKind::from_extension`](detect::FileKind::from_extension)). Both take
//! format-agnostic [`FileReadOptions`] and [`FileWriteOptions`]. The text formats also hand out
//! their entries a bounded batch at a time (`mtx::read_chunks`, `tns::read_chunks`:
//! `EntryChunks`).
//!
//! Every reader treats its input as untrusted, like the message decoder: malformed input is
//! an [`ErrorKind::Parse`] naming the line, header or archive
//! member, sizes are checked against [`Limits`](crate::Limits), and nothing is allocated in
//! proportion to a size the input merely claims before the data backs it.
//!
//! ```
//! # #[cfg(all(feature = "matrix-market", feature = "npy"))] {
//! use arrow_tensor_ipc::formats::{self, mtx, npy};
//! use arrow_tensor_ipc::Message;
//!
//! // One format: read from memory, write to any `Write`.
//! let file = b"%%MatrixMarket matrix coordinate real general\n2 3 2\n1 2 0.5\n2 3 -1\n";
//! let messages = mtx::read(file, &mtx::MtxReadOptions::default())?;
//! let dense = messages[0].as_sparse().unwrap().to_dense()?;
//! let mut out = Vec::new();
//! npy::write(&[Message::from(dense)], &mut out, &npy::NpyWriteOptions::default())?;
//!
//! // Any format, by path.
//! let dir = std::env::temp_dir().join(format!("formats-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("m.npy");
//! formats::write_path(&path, &messages, &formats::FileWriteOptions::default())?;
//! let back = formats::read_path(&path, &formats::FileReadOptions::default())?;
//! assert_eq!(back[0].as_tensor().unwrap().to_vec::<f64>()?, vec![0.0, 0.5, 0.0, 0.0, 0.0, -1.0]);
//! # std::fs::remove_dir_all(&dir)?;
//! # }
//! # Ok::<(), arrow_tensor_ipc::Error>(())
//! ```

#[cfg(any(feature = "matrix-market", feature = "frostt"))]
mod chunks;
mod options;
pub(crate) mod path;

pub mod detect;
#[cfg(feature = "matrix-market")]
pub mod mtx;
#[cfg(feature = "npy")]
pub mod npy;
#[cfg(feature = "npy")]
pub mod npz;
#[cfg(any(feature = "matrix-market", feature = "frostt"))]
mod text;
#[cfg(feature = "frostt")]
pub mod tns;

#[cfg(any(feature = "matrix-market", feature = "frostt"))]
pub use chunks::{EntriesHeader, EntryBatch, EntryChunks};
pub use options::{FileReadOptions, FileWriteOptions};
pub use path::{read_path, write_path};

#[cfg(any(feature = "matrix-market", feature = "frostt"))]
pub(crate) use chunks::EntrySource;

use crate::error::{ErrorKind, Result};
use crate::Message;

/// Called by the text readers with the number of input bytes parsed so far (for a
/// progress bar); may be called from several threads.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// Runs `write` on a 1 MiB buffer in front of `out`, then flushes it: the text writers,
/// whose bodies take `&mut dyn Write` so that they are compiled in this crate only.
#[cfg(any(feature = "matrix-market", feature = "frostt"))]
pub(crate) fn write_buffered(
    out: impl std::io::Write,
    write: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>,
) -> Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    write(&mut out)?;
    std::io::Write::flush(&mut out).map_err(ErrorKind::Io)?;
    Ok(())
}

/// The one message of a file that holds one tensor (`what`: "writing a FROSTT file"), or the error
/// for any other number of messages: [`ErrorKind::Empty`] for none,
/// [`ErrorKind::UnsupportedLayout`] for several.
#[allow(dead_code)] // unused when no format that holds one tensor is compiled in
pub(crate) fn one_message<'m>(messages: &'m [Message], what: &'static str) -> Result<&'m Message> {
    match messages {
        [one] => Ok(one),
        [] => Err(ErrorKind::Empty {
            operation: what,
            what: "message",
        }
        .into()),
        _ => Err(ErrorKind::UnsupportedLayout {
            operation: what,
            expected: "one message (the file holds one tensor)",
            found: format!("{} messages", messages.len()),
        }
        .into()),
    }
}
