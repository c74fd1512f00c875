//! Any input, opened: a path (a file, a named pipe, a tiled dataset's directory) or a reader
//! (standard input), its kind told ([`Input::kind`]) and its tensors handed out one at a
//! time with where each came from ([`Input::tensors`]), whatever the kind: streams of
//! tensor messages, Arrow IPC streams and files and Parquet files of record batches (each
//! batch split into tensors, `record_batch::batch_to_messages`), tiled datasets, Matrix
//! Market, FROSTT, `.npy` and `.npz` files. Feature `input`.
//!
//! The kind is told by content first and name second
//! ([`formats::detect`](crate::formats::detect)); an input of a kind the crate does not
//! read (plain text, HDF5, gzip, a zip archive without `.npy` members, other binary data,
//! a directory without a dataset manifest) is an
//! [`ErrorKind::UnsupportedKind`](crate::ErrorKind::UnsupportedKind) naming the kind, so
//! that nothing is decoded as something it is not.
//!
//! # One shape
//! As every reader of the crate: [`Input::open`] (safe: files are read into memory, or
//! streamed where the kind allows) and `unsafe fn` [`Input::open_mmap`] (files are
//! memory-mapped), both taking [`InputOptions`]; [`Input::from_reader`] and
//! [`Input::from_reader_mmap`] for a reader. A reader (or a named pipe) holding tensor
//! messages or an Arrow IPC stream is read as it comes, memory bounded by one message;
//! any other kind needs its whole content at hand (a footer, a zip directory, a parser over
//! the whole text), so such an input is read into memory, or with `from_reader_mmap` (and
//! `open_mmap` of a pipe) copied into a temporary file that is mapped and removed when the
//! tensors are dropped.
//!
//! # Untrusted input
//! Every reader underneath checks what it reads against the options'
//! [`Limits`](crate::Limits) before allocating; a tensor read from a record batch or a file
//! format is also checked against the rank and stored-value limits before it is handed out.
//! Nothing panics on malformed input, and every error is an [`Error`](crate::Error) whose
//! kind says what is wrong and whose position where ([`InputTensors`] says how).
//!
//! ```
//! use arrow_tensor_ipc::formats::detect::FileKind;
//! use arrow_tensor_ipc::input::{Input, InputOptions, InputTensor};
//! use arrow_tensor_ipc::{Message, MessageWriter, Tensor, TensorOrigin, WriteOptions};
//!
//! // Two tensor messages arrive on a reader (standard input, say).
//! let t = Tensor::from_vec(vec![2, 2], vec![1.0f64, 2.0, 3.0, 4.0])?;
//! let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
//! w.write(&Message::from(t.clone()))?;
//! w.write(&Message::from(t.clone()))?;
//! let stream = w.finish()?;
//!
//! let input = Input::from_reader(std::io::Cursor::new(stream), &InputOptions::default())?;
//! assert_eq!(input.kind(), FileKind::TensorMessages);
//! assert_eq!(input.name(), "standard input");
//! let mut origins = Vec::new();
//! for tensor in input.tensors()? {
//!     let tensor = tensor?;
//!     assert!(tensor.message().as_tensor().unwrap().content_eq(&t));
//!     origins.push(tensor.origin());
//! }
//! assert_eq!(origins[0], TensorOrigin::Message { offset: 0 });
//!
//! // Plain text is named as such, not decoded.
//! let e = Input::from_reader(&b"a,b\n1,2\n"[..], &InputOptions::default()).unwrap_err();
//! assert!(e.to_string().starts_with("plain text, not a kind input::Input reads"));
//! # Ok::<(), arrow_tensor_ipc::Error>(())
//! ```

// Inputs come from strangers: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod batches;
mod files;
mod messages;
mod open;
mod options;
mod tensor;
mod tensors;

pub use messages::StreamEnding;
pub use options::InputOptions;
pub use tensor::InputTensor;
pub use tensors::InputTensors;

use crate::formats::detect::FileKind;
use open::Content;
use std::io::Read;
use std::path::Path;

/// An input, opened and its kind told: see the [module documentation](self).
pub struct Input<'a> {
    /// How the input is named in messages (its path, or `standard input`).
    name: String,
    kind: FileKind,
    content: Content,
    /// Whether files are memory-mapped: set only by the unsafe constructors.
    mapped: bool,
    /// The input's length in bytes, when known.
    size: Option<u64>,
    options: InputOptions<'a>,
}

impl<'a> Input<'a> {
    /// Opens `path` and tells its kind: a regular file (by its first bytes, then its name),
    /// a directory (a tiled dataset when it holds `_tensor.json`), a named pipe or a device
    /// (read as it comes, like [`Input::from_reader`]). Files are read into memory when
    /// their tensors are read (tensor messages and Arrow IPC streams as they come, `.npz`
    /// member by member).
    ///
    /// Errors: [`ErrorKind::InputIo`](crate::ErrorKind::InputIo) when the path cannot be
    /// opened or read, [`ErrorKind::UnsupportedKind`](crate::ErrorKind::UnsupportedKind)
    /// for a kind the crate does not read.
    pub fn open(path: impl AsRef<Path>, options: &InputOptions<'a>) -> crate::Result<Self> {
        open::open_path(path.as_ref(), options, false)
    }

    /// Opens `url`, an object in an object store or the prefix of a tiled dataset there
    /// (one that holds `_tensor.json`), and tells its kind (feature `object-store`; see
    /// [`crate::storage`] for the URLs and where credentials come from). An object is read
    /// into memory with one request; a dataset's files are read as its tensor is. A `url`
    /// that is a local path opens as [`Input::open`].
    ///
    /// Errors: [`ErrorKind::ObjectStore`](crate::ErrorKind::ObjectStore) naming the URL
    /// when a request fails, and those of [`Input::open`].
    #[cfg(feature = "object-store")]
    pub fn open_url(
        url: &str,
        storage: &crate::storage::StorageOptions,
        options: &InputOptions<'a>,
    ) -> crate::Result<Self> {
        if !crate::storage::is_url(url) {
            return Self::open(url, options);
        }
        open::open_url(url, storage, options)
    }

    /// As [`Input::open`], but files are memory-mapped: Matrix Market and FROSTT files,
    /// Arrow IPC streams and files, Parquet files, the files of a tiled dataset; a pipe
    /// holding another kind than tensor messages or an IPC stream is copied into a
    /// temporary file, which is mapped.
    ///
    /// # Safety
    ///
    /// As for [`map_file`](crate::map_file): the file (every file under a dataset's
    /// directory) must not be truncated or modified, by this process or another, while the
    /// input, its tensors or any tensor read from them are alive; nor the temporary copy of
    /// a pipe, which is created in [`std::env::temp_dir`] under a name of its own.
    #[allow(unsafe_code)]
    pub unsafe fn open_mmap(
        path: impl AsRef<Path>,
        options: &InputOptions<'a>,
    ) -> crate::Result<Self> {
        open::open_path(path.as_ref(), options, true)
    }

    /// Reads the first bytes of `reader` (standard input, a pipe) and tells its kind (by
    /// content alone). Tensor messages and Arrow IPC streams are then read as they come;
    /// any other kind is read into memory whole here. Named `standard input` in messages
    /// ([`Input::with_name`] renames it).
    pub fn from_reader(
        reader: impl Read + Send + 'static,
        options: &InputOptions<'a>,
    ) -> crate::Result<Self> {
        open::open_reader(
            "standard input".into(),
            Box::new(reader),
            None,
            options,
            false,
        )
    }

    /// As [`Input::from_reader`], but a kind that needs its whole content is copied into a
    /// temporary file (removed when the input or its tensors are dropped), which is
    /// memory-mapped: memory does not grow with such an input.
    ///
    /// # Safety
    ///
    /// As for [`map_file`](crate::map_file), of the temporary copy: it is created in
    /// [`std::env::temp_dir`] under a name of its own, and must not be truncated or
    /// modified by another process while the input, its tensors or any tensor read from
    /// them are alive.
    #[allow(unsafe_code)]
    pub unsafe fn from_reader_mmap(
        reader: impl Read + Send + 'static,
        options: &InputOptions<'a>,
    ) -> crate::Result<Self> {
        open::open_reader(
            "standard input".into(),
            Box::new(reader),
            None,
            options,
            true,
        )
    }

    /// The input renamed `name` (in messages).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// What the input holds.
    pub fn kind(&self) -> FileKind {
        self.kind
    }

    /// How the input is named in messages: its path, or `standard input`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input's length in bytes, when known: a file's, or the copy of a reader's;
    /// `None` for an input read as it comes and for a dataset.
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// The file (or directory) holding the input: the path opened, or the temporary copy
    /// of a reader; `None` for an input read as it comes or held in memory.
    pub fn path(&self) -> Option<&Path> {
        self.content.path()
    }

    /// The tensors of the input, one at a time (see [`InputTensors`]). Opens the readers
    /// that need to: an Arrow IPC file's footer or a Parquet file's is read here, and an
    /// error in it is returned here.
    pub fn tensors(self) -> crate::Result<InputTensors<'a>> {
        open::tensors(self)
    }
}

impl std::fmt::Debug for Input<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("path", &self.path())
            .field("size", &self.size)
            .field("mapped", &self.mapped)
            .finish_non_exhaustive()
    }
}
