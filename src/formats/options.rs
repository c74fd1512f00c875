//! The format-agnostic options of [`read_path`](super::read_path) and
//! [`write_path`](super::write_path), and how they map onto each format's options.

use super::Progress;
use crate::types::{IndexType, ValueType};
use crate::{Limits, Validation};

/// Options of [`read_path`](super::read_path), for whichever format a file turns out to
/// be; each format uses the fields that concern it.
#[derive(Clone)]
#[non_exhaustive]
pub struct FileReadOptions<'a> {
    /// Size limits (every format).
    pub limits: Limits,
    /// Threads parsing a text file; 0 (the default) uses every core.
    pub threads: usize,
    /// Called with the number of input bytes parsed so far (the text formats as they go,
    /// the numpy formats once read).
    pub progress: Option<Progress<'a>>,
    /// Matrix Market: strict (the default) or permissive (also what `scipy.io.mmread`
    /// reads).
    pub validation: Validation,
    /// Matrix Market: expand a symmetric or skew-symmetric matrix (default true), or keep
    /// the stored triangle.
    pub expand_symmetry: bool,
    /// FROSTT: the tensor's shape (default: the largest coordinate of each dimension).
    pub shape: Option<Vec<usize>>,
    /// The text formats: the value type (default: float64, or int64 for a Matrix Market
    /// `integer` file).
    pub value_type: Option<ValueType>,
    /// The text formats: the integer type of the coordinates (default int64).
    pub index_type: IndexType,
}

impl Default for FileReadOptions<'_> {
    fn default() -> Self {
        FileReadOptions {
            limits: Limits::default(),
            threads: 0,
            progress: None,
            validation: Validation::Strict,
            expand_symmetry: true,
            shape: None,
            value_type: None,
            index_type: IndexType::Int64,
        }
    }
}

impl<'a> FileReadOptions<'a> {
    /// Sets [`FileReadOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`FileReadOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets [`FileReadOptions::progress`].
    pub fn with_progress(mut self, progress: Progress<'a>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Sets [`FileReadOptions::validation`].
    pub fn with_validation(mut self, validation: Validation) -> Self {
        self.validation = validation;
        self
    }

    /// Sets [`FileReadOptions::expand_symmetry`].
    pub fn with_expand_symmetry(mut self, expand: bool) -> Self {
        self.expand_symmetry = expand;
        self
    }

    /// Sets [`FileReadOptions::shape`].
    pub fn with_shape(mut self, shape: Vec<usize>) -> Self {
        self.shape = Some(shape);
        self
    }

    /// Sets [`FileReadOptions::value_type`].
    pub fn with_value_type(mut self, value_type: ValueType) -> Self {
        self.value_type = Some(value_type);
        self
    }

    /// Sets [`FileReadOptions::index_type`].
    pub fn with_index_type(mut self, index_type: IndexType) -> Self {
        self.index_type = index_type;
        self
    }
}

/// Options of [`write_path`](super::write_path), for whichever format the path names;
/// each format uses the fields that concern it.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct FileWriteOptions {
    /// Threads formatting a text file; 0 (the default) uses every core.
    pub threads: usize,
    /// `.npz`: deflate the members (default false: stored).
    pub compressed: bool,
    /// `.npy`: bounds the expansion of a sparse message to dense (`max_dense_elements`).
    pub limits: Limits,
    /// Matrix Market: the symmetry to write (default general).
    #[cfg(feature = "matrix-market")]
    pub symmetry: super::mtx::Symmetry,
}

impl FileWriteOptions {
    /// Sets [`FileWriteOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets [`FileWriteOptions::compressed`].
    pub fn with_compressed(mut self, compressed: bool) -> Self {
        self.compressed = compressed;
        self
    }

    /// Sets [`FileWriteOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`FileWriteOptions::symmetry`].
    #[cfg(feature = "matrix-market")]
    pub fn with_symmetry(mut self, symmetry: super::mtx::Symmetry) -> Self {
        self.symmetry = symmetry;
        self
    }
}

#[cfg(feature = "matrix-market")]
impl<'a> From<&FileReadOptions<'a>> for super::mtx::MtxReadOptions<'a> {
    fn from(o: &FileReadOptions<'a>) -> Self {
        super::mtx::MtxReadOptions {
            expand_symmetry: o.expand_symmetry,
            value_type: o.value_type,
            index_type: o.index_type,
            limits: o.limits,
            threads: o.threads,
            progress: o.progress,
            validation: o.validation,
            ..Default::default()
        }
    }
}

#[cfg(feature = "frostt")]
impl<'a> From<&FileReadOptions<'a>> for super::tns::TnsReadOptions<'a> {
    fn from(o: &FileReadOptions<'a>) -> Self {
        super::tns::TnsReadOptions {
            shape: o.shape.clone(),
            value_type: o.value_type.unwrap_or(ValueType::Float64),
            index_type: o.index_type,
            limits: o.limits,
            threads: o.threads,
            progress: o.progress,
            ..Default::default()
        }
    }
}

#[cfg(feature = "npy")]
impl From<&FileReadOptions<'_>> for super::npy::NpyReadOptions {
    fn from(o: &FileReadOptions<'_>) -> Self {
        super::npy::NpyReadOptions { limits: o.limits }
    }
}

#[cfg(feature = "npy")]
impl From<&FileReadOptions<'_>> for super::npz::NpzReadOptions {
    fn from(o: &FileReadOptions<'_>) -> Self {
        super::npz::NpzReadOptions { limits: o.limits }
    }
}

#[cfg(feature = "matrix-market")]
impl From<&FileWriteOptions> for super::mtx::MtxWriteOptions {
    fn from(o: &FileWriteOptions) -> Self {
        super::mtx::MtxWriteOptions {
            symmetry: o.symmetry,
            threads: o.threads,
        }
    }
}

#[cfg(feature = "frostt")]
impl From<&FileWriteOptions> for super::tns::TnsWriteOptions {
    fn from(o: &FileWriteOptions) -> Self {
        super::tns::TnsWriteOptions { threads: o.threads }
    }
}

#[cfg(feature = "npy")]
impl From<&FileWriteOptions> for super::npy::NpyWriteOptions {
    fn from(o: &FileWriteOptions) -> Self {
        super::npy::NpyWriteOptions { limits: o.limits }
    }
}

#[cfg(feature = "npy")]
impl From<&FileWriteOptions> for super::npz::NpzWriteOptions {
    fn from(o: &FileWriteOptions) -> Self {
        super::npz::NpzWriteOptions {
            compressed: o.compressed,
        }
    }
}
