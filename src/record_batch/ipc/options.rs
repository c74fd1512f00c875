//! The options of the IPC readers and writer.

use crate::Limits;
use std::path::Path;

/// Options of [`IpcBatches`](super::IpcBatches) and
/// [`IpcStreamReader`](super::IpcStreamReader).
///
/// ```
/// use arrow_tensor_ipc::record_batch::IpcReadOptions;
/// use arrow_tensor_ipc::Limits;
/// let options = IpcReadOptions::default().with_limits(Limits::default().with_max_body_len(1 << 30));
/// assert_eq!(options.limits.max_body_len, 1 << 30);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct IpcReadOptions {
    /// Size limits: [`Limits::max_metadata_len`] bounds each message's metadata and
    /// [`Limits::max_body_len`] its body, checked before anything is read or allocated.
    pub limits: Limits,
}

impl IpcReadOptions {
    /// Sets [`IpcReadOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

/// Options of [`IpcWriter`](super::IpcWriter).
///
/// ```
/// use arrow_tensor_ipc::record_batch::{IpcFormat, IpcWriteOptions};
/// let options = IpcWriteOptions::default().with_format(IpcFormat::File);
/// assert_eq!(options.format, IpcFormat::File);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct IpcWriteOptions {
    /// The container: a stream (the default) or a file.
    pub format: IpcFormat,
}

impl IpcWriteOptions {
    /// Sets [`IpcWriteOptions::format`].
    pub fn with_format(mut self, format: IpcFormat) -> Self {
        self.format = format;
        self
    }

    /// The options for writing to `path`: the file format for paths ending in `.arrow` or
    /// `.feather`, the stream format otherwise.
    pub fn for_path(path: &Path) -> Self {
        IpcWriteOptions {
            format: IpcFormat::for_path(path),
        }
    }
}

/// Which IPC container to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum IpcFormat {
    /// The streaming format (schema, batches, end-of-stream marker).
    #[default]
    Stream,
    /// The file format (`ARROW1` magic, footer with the batch offsets).
    File,
}

impl IpcFormat {
    /// The file format for paths ending in `.arrow` or `.feather`, the stream format
    /// otherwise.
    pub fn for_path(path: &Path) -> IpcFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("arrow" | "feather") => IpcFormat::File,
            _ => IpcFormat::Stream,
        }
    }
}
