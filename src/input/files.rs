//! The tensors of a file of a format of [`formats`](crate::formats) (Matrix Market, FROSTT,
//! `.npy`, `.npz`): one, or the arrays of an `.npz` bundle in archive order, read whole on
//! the first call of `next` and handed out one at a time.

use super::tensor::{check_limits, failed, InputTensor};
use crate::error::Result;
use crate::formats::detect::FileKind;
use crate::formats::{self, path};
use crate::{Limits, Message, TensorOrigin};
use std::collections::VecDeque;
use std::path::PathBuf;

/// Where the file's bytes are.
pub(super) enum FileBytes {
    /// In a file; memory-mapped when `mapped` (set only by the unsafe constructors of
    /// [`Input`](super::Input)) and the format is a text one, else read into memory.
    Path { path: PathBuf, mapped: bool },
    /// In memory.
    Memory(bytes::Bytes),
}

/// The tensors of one file of a format; ends after the first error.
pub(super) struct FileTensors<'a> {
    kind: FileKind,
    bytes: FileBytes,
    options: formats::FileReadOptions<'a>,
    limits: Limits,
    /// The file's length, reported as consumed once it is read.
    size: u64,
    read: bool,
    pending: VecDeque<Message>,
}

impl<'a> FileTensors<'a> {
    pub(super) fn new(
        kind: FileKind,
        bytes: FileBytes,
        options: formats::FileReadOptions<'a>,
        size: u64,
    ) -> Self {
        FileTensors {
            kind,
            bytes,
            limits: options.limits,
            options,
            size,
            read: false,
            pending: VecDeque::new(),
        }
    }

    /// The file's length once it is read, else 0.
    pub(super) fn consumed(&self) -> u64 {
        if self.read {
            self.size
        } else {
            0
        }
    }

    /// Reads the whole file.
    fn read_all(&self) -> Result<Vec<Message>> {
        match &self.bytes {
            FileBytes::Path { path, mapped: true }
                if matches!(self.kind, FileKind::MatrixMarket | FileKind::Frostt) =>
            {
                #[allow(unsafe_code)]
                // SAFETY: `mapped` is set only by `Input::open_mmap`, whose caller promises
                // that the file is not modified or truncated while the input, its tensors or
                // anything read from them are alive, and by `Input::from_reader_mmap`, whose
                // caller promises the same of the temporary copy it makes.
                let data = unsafe { crate::map_file(path)? };
                path::read_bytes_as(self.kind, Some(path), data.into(), &self.options)
            }
            FileBytes::Path { path, .. } => path::read_file_as(self.kind, path, &self.options),
            FileBytes::Memory(data) => {
                path::read_bytes_as(self.kind, None, data.clone().into(), &self.options)
            }
        }
    }

    pub(super) fn next(&mut self) -> Option<Result<InputTensor>> {
        let format = self.kind.name();
        if !std::mem::replace(&mut self.read, true) {
            match self.read_all() {
                Ok(messages) => self.pending.extend(messages),
                Err(e) => return Some(Err(failed(TensorOrigin::File { format }, e))),
            }
        }
        let message = self.pending.pop_front()?;
        let origin = match message.name() {
            Some(name) => TensorOrigin::Member {
                format,
                name: name.to_string(),
            },
            None => TensorOrigin::File { format },
        };
        match check_limits(&message, &self.limits) {
            Ok(()) => Some(Ok(InputTensor::Read { message, origin })),
            Err(e) => {
                self.pending.clear();
                Some(Err(failed(origin, e)))
            }
        }
    }
}
