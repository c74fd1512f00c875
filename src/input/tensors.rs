//! [`InputTensors`]: the tensors of an input, whatever its kind, one at a time with where
//! each came from.

use super::batches::BatchTensors;
use super::files::FileTensors;
use super::messages::{MessageStream, StreamEnding};
use super::tensor::InputTensor;
use crate::dataset::{Dataset, DatasetReadOptions};
use crate::error::Result;
use crate::{Message, TensorOrigin};
use std::path::PathBuf;

/// The tensors of an [`Input`](super::Input) ([`Input::tensors`](super::Input::tensors)),
/// an iterator of `Result<InputTensor>`: read one at a time where the kind allows (tensor
/// messages, record batches), all at once on the first call of `next` for a file format (one
/// tensor, or the arrays of an `.npz` bundle) and for a dataset. The iterator ends after
/// its first error.
///
/// Errors say where: an error of a tensor message carries the message's offset
/// ([`Error::position`](crate::Error::position)); an error of a record batch or a file
/// format is an [`ErrorKind::InputTensorFailed`](crate::ErrorKind::InputTensorFailed)
/// naming the batch, file or member (its `position()` is that of the reader's error where
/// it has one, else the origin's); an error of a dataset is the dataset reader's, naming
/// the file.
pub struct InputTensors<'a> {
    source: Source<'a>,
    /// The temporary copy of a spooled input, removed when the tensors are dropped.
    _spool: Option<tempfile::NamedTempFile>,
}

/// Where the tensors come from.
pub(super) enum Source<'a> {
    Messages(MessageStream),
    Batches(BatchTensors),
    File(FileTensors<'a>),
    Dataset(DatasetTensor),
}

impl<'a> InputTensors<'a> {
    /// The tensors of `source`, keeping the temporary file it may read alive.
    pub(super) fn new(source: Source<'a>, spool: Option<tempfile::NamedTempFile>) -> Self {
        InputTensors {
            source,
            _spool: spool,
        }
    }

    /// Input bytes consumed so far, for progress reports: the messages decoded, how far the
    /// record batches read reach (for Parquet, the share of rows read), the whole file once
    /// a file format is read; 0 for a dataset.
    pub fn consumed(&self) -> u64 {
        match &self.source {
            Source::Messages(m) => m.consumed(),
            Source::Batches(b) => b.consumed(),
            Source::File(f) => f.consumed(),
            Source::Dataset(_) => 0,
        }
    }

    /// What followed the last message of a stream of tensor messages: the length of its
    /// end-of-stream marker and the bytes after it, read to the end of the input. Call once
    /// the iterator returned `None` without an error. `None` for the other kinds.
    pub fn ending(self) -> Result<Option<StreamEnding>> {
        match self.source {
            Source::Messages(m) => m.ending().map(Some),
            _ => Ok(None),
        }
    }
}

impl Iterator for InputTensors<'_> {
    type Item = Result<InputTensor>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.source {
            Source::Messages(m) => Some(m.next()?.map(InputTensor::Decoded)),
            Source::Batches(b) => b.next(),
            Source::File(f) => f.next(),
            Source::Dataset(d) => d.next(),
        }
    }
}

impl std::fmt::Debug for InputTensors<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match &self.source {
            Source::Messages(_) => "tensor messages",
            Source::Batches(_) => "record batches",
            Source::File(_) => "a file format",
            Source::Dataset(_) => "a tiled dataset",
        };
        f.debug_struct("InputTensors")
            .field("source", &source)
            .field("consumed", &self.consumed())
            .finish_non_exhaustive()
    }
}

/// The one tensor of a tiled dataset, reassembled in the layout its manifest records on the
/// first call of `next`.
pub(super) struct DatasetTensor {
    dir: PathBuf,
    /// The object-store URL and options, for a dataset in a store (`dir` is then unused).
    #[cfg(feature = "object-store")]
    url: Option<(String, crate::storage::StorageOptions)>,
    options: DatasetReadOptions,
    /// Whether the dataset's files are memory-mapped (set only by the unsafe constructors
    /// of [`Input`](super::Input)).
    mapped: bool,
    read: bool,
}

impl DatasetTensor {
    /// The dataset at an object-store URL.
    #[cfg(feature = "object-store")]
    pub(super) fn at_url(
        url: String,
        storage: crate::storage::StorageOptions,
        options: DatasetReadOptions,
    ) -> Self {
        DatasetTensor {
            dir: PathBuf::new(),
            url: Some((url, storage)),
            options,
            mapped: false,
            read: false,
        }
    }

    pub(super) fn new(dir: PathBuf, options: DatasetReadOptions, mapped: bool) -> Self {
        DatasetTensor {
            dir,
            #[cfg(feature = "object-store")]
            url: None,
            options,
            mapped,
            read: false,
        }
    }

    fn next(&mut self) -> Option<Result<InputTensor>> {
        if std::mem::replace(&mut self.read, true) {
            return None;
        }
        #[cfg(feature = "object-store")]
        if let Some((url, storage)) = &self.url {
            let dataset = Dataset::open_url(url, storage, &self.options);
            return Some(
                dataset
                    .and_then(|d| d.read_all())
                    .map(|t| InputTensor::Read {
                        message: Message::SparseTensor(t),
                        origin: TensorOrigin::Dataset,
                    }),
            );
        }
        let dataset = if self.mapped {
            #[allow(unsafe_code)]
            // SAFETY: `mapped` is set only by `Input::open_mmap`, whose caller promises that
            // no file under the directory is modified or truncated while the input, its
            // tensors or anything read from them are alive.
            unsafe {
                Dataset::open_mmap(&self.dir, &self.options)
            }
        } else {
            Dataset::open(&self.dir, &self.options)
        };
        Some(
            dataset
                .and_then(|d| d.read_all())
                .map(|t| InputTensor::Read {
                    message: Message::SparseTensor(t),
                    origin: TensorOrigin::Dataset,
                }),
        )
    }
}
