//! [`InputOptions`]: how every kind of input is read, in one options type.

use crate::formats::{self, Progress};
use crate::record_batch::MessageOptions;
use crate::ReadOptions;

/// How an [`Input`](super::Input) is read, whatever its kind: the options of each reader
/// the input module calls, gathered.
///
/// [`InputOptions::read_options`] is the one source of validation and limits: the message
/// decoder takes them as they are, and every other reader their limits (the IPC and Parquet
/// readers, the file formats, the dataset reader, the record-batch split); the limits of
/// [`InputOptions::batch_options`] are replaced by them. Every tensor read from another
/// kind than tensor messages is checked against [`Limits::max_rank`](crate::Limits::max_rank)
/// and [`Limits::max_nnz`](crate::Limits::max_nnz) before it is handed out.
///
/// ```
/// use arrow_tensor_ipc::input::InputOptions;
/// use arrow_tensor_ipc::ReadOptions;
/// let options = InputOptions::default()
///     .with_read_options(ReadOptions::permissive())
///     .with_threads(2)
///     .with_shape(vec![10, 10, 10]);
/// assert_eq!(options.format_options().shape, Some(vec![10, 10, 10]));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct InputOptions<'a> {
    /// Validation and limits (default [`ReadOptions::default`], strict).
    pub read_options: ReadOptions,
    /// How record batches (Arrow IPC streams and files, Parquet files) become tensors: the
    /// tensor column to read, rows, the layout of COO tables. Its limits are those of
    /// [`InputOptions::read_options`].
    pub batch_options: MessageOptions,
    /// Threads parsing a Matrix Market or FROSTT file; 0 (the default) uses every core.
    pub threads: usize,
    /// Matrix Market: expand a symmetric or skew-symmetric matrix (default true), or keep
    /// the stored triangle.
    pub expand_symmetry: bool,
    /// FROSTT: the tensor's shape (default: the largest coordinate of each dimension).
    pub shape: Option<Vec<usize>>,
    /// Called with the number of input bytes parsed so far while a Matrix Market or
    /// FROSTT file is parsed (which happens in the first call of the tensors' `next`), and
    /// with the file's length once a `.npy` or `.npz` file is read; may be called from
    /// several threads. Progress through the other kinds is
    /// [`InputTensors::consumed`](super::InputTensors::consumed), between tensors.
    pub progress: Option<Progress<'a>>,
}

impl Default for InputOptions<'_> {
    fn default() -> Self {
        InputOptions {
            read_options: ReadOptions::default(),
            batch_options: MessageOptions::default(),
            threads: 0,
            expand_symmetry: true,
            shape: None,
            progress: None,
        }
    }
}

impl<'a> InputOptions<'a> {
    /// Sets [`InputOptions::read_options`].
    pub fn with_read_options(mut self, read_options: ReadOptions) -> Self {
        self.read_options = read_options;
        self
    }

    /// Sets [`InputOptions::batch_options`].
    pub fn with_batch_options(mut self, batch_options: MessageOptions) -> Self {
        self.batch_options = batch_options;
        self
    }

    /// Sets [`InputOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets [`InputOptions::expand_symmetry`].
    pub fn with_expand_symmetry(mut self, expand: bool) -> Self {
        self.expand_symmetry = expand;
        self
    }

    /// Sets [`InputOptions::shape`].
    pub fn with_shape(mut self, shape: Vec<usize>) -> Self {
        self.shape = Some(shape);
        self
    }

    /// Sets [`InputOptions::progress`].
    pub fn with_progress(mut self, progress: Progress<'a>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The options of the file-format readers ([`formats::FileReadOptions`]) these give: the
    /// limits and validation of [`InputOptions::read_options`], the threads, the symmetry
    /// expansion, the FROSTT shape and the progress callback. For a caller that reads a
    /// format file itself (a batch of entries at a time, say) as the input would.
    pub fn format_options(&self) -> formats::FileReadOptions<'a> {
        let mut o = formats::FileReadOptions::default()
            .with_limits(self.read_options.limits)
            .with_threads(self.threads)
            .with_validation(self.read_options.validation)
            .with_expand_symmetry(self.expand_symmetry);
        if let Some(shape) = &self.shape {
            o = o.with_shape(shape.clone());
        }
        if let Some(progress) = self.progress {
            o = o.with_progress(progress);
        }
        o
    }

    /// The options that split record batches into tensors: [`InputOptions::batch_options`]
    /// with the limits of [`InputOptions::read_options`].
    pub(crate) fn message_options(&self) -> MessageOptions {
        self.batch_options
            .clone()
            .with_limits(self.read_options.limits)
    }
}
