//! Matrix Market (`.mtx`) files: `coordinate` matrices in and out as COO sparse tensors,
//! `array` matrices as dense column-major tensors; [`read`], [`write()`], [`read_header`] and
//! [`read_chunks`] (the entries of a large file a bounded batch at a time).
//!
//! Reading accepts the fields `real` (also spelled `double`), `integer` and `pattern`
//! (every value 1) and the symmetries `general`, `symmetric` and `skew-symmetric`; `complex`
//! and `hermitian` are refused. The banner is matched case-insensitively. `%` comment
//! lines and blank lines may appear anywhere after the banner. Symmetric and skew-symmetric
//! matrices are expanded to the full matrix by default: every stored entry off the diagonal
//! is followed by its mirror (negated for skew-symmetric; a zero is mirrored as `+0`). An entry above the diagonal of a
//! symmetric file is mirrored likewise; an entry on the diagonal of a skew-symmetric file is
//! an error.
//!
//! [`Validation::Permissive`] (see [`MtxReadOptions::validation`]) reads the real-valued files
//! that `scipy.io.mmread` reads and strict mode refuses: an entry on the diagonal of a
//! skew-symmetric file is kept as stored (once, not mirrored); a `pattern` matrix may be
//! skew-symmetric (its mirrors are -1); a `hermitian` matrix of `real`, `integer` or
//! `pattern` values is read as `symmetric` (the conjugate of a real value is itself).
//! Permissive mode still refuses everything scipy does not read the same way: complex values,
//! counts that differ from the size line, trailing words on a line, non-square symmetric
//! matrices, a real value in an `integer` file.
//!
//! A `coordinate` matrix comes back as COO in the order of the file (mirrors right after
//! their entry), duplicates kept (they sum, as in scipy); the canonical flag is set exactly
//! when the entries come out strictly increasing in row-major order. Call
//! [`SparseTensor::canonicalize`](crate::SparseTensor::canonicalize) for a sorted COO.
//!
//! Every malformed line (the banner, the size line, an entry, a value whose skew-symmetric
//! mirror does not fit the value type) and a count of entries that differs from the size
//! line's is an [`ErrorKind::Parse`] naming the 1-based line of the file. Sizes are typed
//! errors of their own: over [`Limits`] a [`ErrorKind::LimitExceeded`], beyond what this
//! machine addresses an [`ErrorKind::Overflow`], coordinates beyond the index type an
//! [`ErrorKind::IndexTypeTooNarrow`]; a `real` file read into an integer type is an
//! [`ErrorKind::TypeMismatch`]. Nothing is allocated in proportion to the header's sizes before the bytes of the file
//! could hold them; large files are parsed by several threads, each on a share of whole
//! lines.

mod array;
mod chunks;
mod coordinate;
mod header;
mod write;

pub use chunks::read_chunks;

use super::Progress;
use crate::error::{fail, ErrorKind, Result};
use crate::types::{IndexType, ValueType};
use crate::{Limits, Message, Validation};
use arrow_buffer::Buffer;

const FORMAT: &str = "Matrix Market";

/// The layout named by the banner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `coordinate`: one line per stored entry (`row col [value]`).
    Coordinate,
    /// `array`: every value, column by column.
    Array,
}

/// The value field named by the banner (`complex` is refused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `real` (or `double`): floating point values.
    Real,
    /// `integer`: integer values.
    Integer,
    /// `pattern`: no values; every stored entry is 1.
    Pattern,
}

/// The symmetry named by the banner (`hermitian` is refused).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// Every entry is stored.
    #[default]
    General,
    /// `a[i][j] == a[j][i]`; the lower triangle (diagonal included) is stored.
    Symmetric,
    /// `a[i][j] == -a[j][i]`; the strict lower triangle is stored.
    SkewSymmetric,
}

impl Symmetry {
    /// The banner's word for the symmetry.
    pub fn name(self) -> &'static str {
        match self {
            Symmetry::General => "general",
            Symmetry::Symmetric => "symmetric",
            Symmetry::SkewSymmetric => "skew-symmetric",
        }
    }
}

/// What the banner and the size line of a Matrix Market file say.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    /// Coordinate or array.
    pub format: Format,
    /// Real, integer or pattern.
    pub field: Field,
    /// General, symmetric or skew-symmetric.
    pub symmetry: Symmetry,
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Number of entries the file stores: the size line's count for `coordinate`, the
    /// number of values listed for `array` (`rows * cols`, or the stored triangle).
    pub entries: u64,
}

/// Options of [`read`], [`read_header`] and [`read_chunks`].
#[derive(Clone)]
#[non_exhaustive]
pub struct MtxReadOptions<'a> {
    /// Expand symmetric and skew-symmetric matrices to the full matrix (default true);
    /// false keeps the stored triangle only (the upper triangle of a dense result is zero).
    pub expand_symmetry: bool,
    /// The value type of the result; by default float64 for `real` and `pattern`, int64 for
    /// `integer`. A `real` file is refused ([`ErrorKind::TypeMismatch`]) into an integer type;
    /// an integer value that does not fit the type is a parse error.
    pub value_type: Option<ValueType>,
    /// The integer type of the COO coordinates (default int64).
    pub index_type: IndexType,
    /// Size limits (`max_nnz` for coordinate files, `max_dense_elements` for array files).
    pub limits: Limits,
    /// Threads parsing the file; 0 (the default) uses every core.
    pub threads: usize,
    /// Called with the number of bytes parsed so far.
    pub progress: Option<Progress<'a>>,
    /// Strict (the default) refuses files that break the Matrix Market rules; permissive
    /// also reads the real-valued files `scipy.io.mmread` reads (see the module docs).
    pub validation: Validation,
    /// Entries per batch of [`read_chunks`] (default 2^20; a mirrored entry may make a
    /// batch one longer).
    pub chunk_entries: usize,
}

impl Default for MtxReadOptions<'_> {
    fn default() -> Self {
        MtxReadOptions {
            expand_symmetry: true,
            value_type: None,
            index_type: IndexType::Int64,
            limits: Limits::default(),
            threads: 0,
            progress: None,
            validation: Validation::Strict,
            chunk_entries: super::text::CHUNK_ENTRIES,
        }
    }
}

super::text::read_option_setters!(MtxReadOptions);

impl MtxReadOptions<'_> {
    /// Sets [`MtxReadOptions::expand_symmetry`].
    pub fn with_expand_symmetry(mut self, expand: bool) -> Self {
        self.expand_symmetry = expand;
        self
    }

    /// Sets [`MtxReadOptions::value_type`].
    pub fn with_value_type(mut self, value_type: ValueType) -> Self {
        self.value_type = Some(value_type);
        self
    }

    /// Sets [`MtxReadOptions::validation`].
    pub fn with_validation(mut self, validation: Validation) -> Self {
        self.validation = validation;
        self
    }
}

/// Options of [`write()`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct MtxWriteOptions {
    /// The symmetry to write: `General` (the default) writes every stored entry;
    /// `Symmetric` and `SkewSymmetric` write the lower triangle and fail
    /// ([`ErrorKind::UnsupportedLayout`]) when the matrix does not have that symmetry.
    pub symmetry: Symmetry,
    /// Threads formatting the output; 0 (the default) uses every core.
    pub threads: usize,
}

impl MtxWriteOptions {
    /// Sets [`MtxWriteOptions::symmetry`].
    pub fn with_symmetry(mut self, symmetry: Symmetry) -> Self {
        self.symmetry = symmetry;
        self
    }

    /// Sets [`MtxWriteOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
}

/// Reads the banner and size line at the start of a Matrix Market file under
/// `options.validation`: strict refuses a `hermitian` banner or a skew-symmetric `pattern`
/// matrix; permissive reports a `hermitian` banner of real values as `Symmetric`, as the
/// reader treats it. Only the file's first lines are needed.
///
/// ```
/// use arrow_tensor_ipc::formats::mtx::{self, Field, Format};
/// let file = b"%%MatrixMarket matrix coordinate real general\n% c\n3 4 2\n1 1 1.5\n2 4 -2\n";
/// let h = mtx::read_header(file, &mtx::MtxReadOptions::default())?;
/// assert_eq!((h.format, h.field, h.rows, h.cols, h.entries), (Format::Coordinate, Field::Real, 3, 4, 2));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_header(data: &[u8], options: &MtxReadOptions) -> Result<Header> {
    header::parse_header(data, options.validation).map(|(h, _, _)| h)
}

/// The value type a file is read into: the options' or the field's default, refusing a
/// `real` file into an integer type.
fn value_type_of(header: &Header, options: &MtxReadOptions) -> Result<ValueType> {
    let value_type = options.value_type.unwrap_or(match header.field {
        Field::Integer => ValueType::Int64,
        Field::Real | Field::Pattern => ValueType::Float64,
    });
    if header.field == Field::Real && !value_type.is_float() {
        return fail(ErrorKind::TypeMismatch {
            expected: value_type.name().into(),
            found: "real values (Matrix Market field real)".into(),
        });
    }
    Ok(value_type)
}

/// Reads a whole Matrix Market file into one message: a `coordinate` matrix as a COO
/// [`Message::SparseTensor`], an `array` matrix as a dense column-major [`Message::Tensor`].
///
/// `data` is anything that becomes an Arrow [`Buffer`] (a `Vec<u8>`, `bytes::Bytes` such as
/// a memory map, a `Buffer`: no copy; a `&[u8]`: copied).
///
/// ```
/// use arrow_tensor_ipc::formats::mtx;
/// use arrow_tensor_ipc::Scalar;
/// let file = b"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4\n3 1 -1.5\n";
/// let messages = mtx::read(file, &mtx::MtxReadOptions::default())?;
/// let t = messages[0].as_sparse().unwrap();
/// assert_eq!(t.nnz(), 3); // (3, 1) and its mirror (1, 3)
/// assert_eq!(t.get(&[0, 2])?, Scalar::Float64(-1.5));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read(data: impl Into<Buffer>, options: &MtxReadOptions) -> Result<Vec<Message>> {
    let data: Buffer = data.into();
    read_bytes(data.as_slice(), options).map(|m| vec![m])
}

/// [`read`] of a byte slice.
fn read_bytes(bytes: &[u8], options: &MtxReadOptions) -> Result<Message> {
    let (header, data_start, size_line) = header::parse_header(bytes, options.validation)?;
    let value_type = value_type_of(&header, options)?;
    let ctx = coordinate::Ctx {
        bytes,
        header: &header,
        data: data_start..bytes.len(),
        size_line,
        options,
    };
    match header.format {
        Format::Coordinate => {
            crate::dispatch_value!(value_type, T => {
                coordinate::read_coordinate::<T>(&ctx).map(Message::SparseTensor)
            })
        }
        Format::Array => {
            crate::dispatch_value!(value_type, T => array::read_array::<T>(&ctx).map(Message::Tensor))
        }
    }
}

/// Writes one rank-2 message as a Matrix Market file: a sparse tensor (any layout) as
/// `coordinate` (every stored entry, in storage order for COO, in row-major order for the
/// other layouts), a dense tensor as `array` (column by column). Integer value types are
/// written as field `integer`, floats as `real`, in the shortest text that reads back to
/// the same bits (`NaN`, `Infinity`, `-Infinity` as scipy spells them). A file holds one
/// matrix: any other number of messages is refused.
///
/// ```
/// use arrow_tensor_ipc::formats::mtx;
/// use arrow_tensor_ipc::{Message, SparseTensor};
/// let t = SparseTensor::coo(&[2, 3], vec![0i64, 1, 1, 2], vec![0.1f64, -2.0])?;
/// let mut out = Vec::new();
/// mtx::write(&[Message::from(t)], &mut out, &mtx::MtxWriteOptions::default())?;
/// assert_eq!(out, b"%%MatrixMarket matrix coordinate real general\n2 3 2\n1 2 0.1\n2 3 -2\n");
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn write<W: std::io::Write>(
    messages: &[Message],
    out: W,
    options: &MtxWriteOptions,
) -> Result<()> {
    super::write_buffered(out, &mut |w| write_to(messages, w, options))
}

/// [`write`] to a buffered writer (not generic: compiled in this crate only).
fn write_to(
    messages: &[Message],
    out: &mut dyn std::io::Write,
    options: &MtxWriteOptions,
) -> Result<()> {
    let message = super::one_message(messages, "writing a Matrix Market file")?;
    match message {
        Message::SparseTensor(t) => write::write_sparse(t, out, options),
        Message::Tensor(t) => write::write_dense(t, out, options),
    }
}
