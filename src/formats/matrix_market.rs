//! Matrix Market (`.mtx`) files: `coordinate` matrices in and out as COO sparse tensors,
//! `array` matrices as dense column-major tensors.
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
//! [`SparseTensor::canonicalize`] for a sorted COO.
//!
//! Every malformed input is an [`ErrorKind::Parse`] naming the 1-based line of the file.
//! Nothing is allocated in proportion to the header's sizes before the bytes of the file
//! could hold them; large files are parsed by several threads, each on a share of whole
//! lines.

// The reader handles untrusted bytes: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::text::{
    concat, finish_line, line_of, next_line, parse_error, parse_u64, resolve_threads, run_chunks,
    skip_blanks, split_lines, write_coo_lines, write_parallel, LineError, ProgressCounter,
    TextValue, PROGRESS_STEP,
};
use super::Progress;
use crate::error::{fail, Error, ErrorKind, Result};
use crate::sparse::{CooIndex, CooOrder, SparseFormat, SparseIndex, SparseTensor};
use crate::tensor::{column_major_strides, Tensor};
use crate::types::{IndexType, NativeIndex, ValueType};
use crate::{ConvertOptions, IndexArray, Limits, Message, Validation};
use arrow_buffer::Buffer;
use std::borrow::Cow;
use std::ops::Range;

const FORMAT: &str = "Matrix Market";

/// The layout named by the banner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MtxFormat {
    /// `coordinate`: one line per stored entry (`row col [value]`).
    Coordinate,
    /// `array`: every value, column by column.
    Array,
}

/// The value field named by the banner (`complex` is refused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MtxField {
    /// `real` (or `double`): floating point values.
    Real,
    /// `integer`: integer values.
    Integer,
    /// `pattern`: no values; every stored entry is 1.
    Pattern,
}

/// The symmetry named by the banner (`hermitian` is refused).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MtxSymmetry {
    /// Every entry is stored.
    #[default]
    General,
    /// `a[i][j] == a[j][i]`; the lower triangle (diagonal included) is stored.
    Symmetric,
    /// `a[i][j] == -a[j][i]`; the strict lower triangle is stored.
    SkewSymmetric,
}

impl MtxSymmetry {
    fn name(self) -> &'static str {
        match self {
            MtxSymmetry::General => "general",
            MtxSymmetry::Symmetric => "symmetric",
            MtxSymmetry::SkewSymmetric => "skew-symmetric",
        }
    }
}

/// What the banner and the size line of a Matrix Market file say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MtxHeader {
    /// Coordinate or array.
    pub format: MtxFormat,
    /// Real, integer or pattern.
    pub field: MtxField,
    /// General, symmetric or skew-symmetric.
    pub symmetry: MtxSymmetry,
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Number of entries the file stores: the size line's count for `coordinate`, the
    /// number of values listed for `array` (`rows * cols`, or the stored triangle).
    pub entries: u64,
}

/// Options of [`read_matrix_market`].
#[derive(Clone)]
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
        }
    }
}

impl<'a> MtxReadOptions<'a> {
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

    /// Sets [`MtxReadOptions::index_type`].
    pub fn with_index_type(mut self, index_type: IndexType) -> Self {
        self.index_type = index_type;
        self
    }

    /// Sets [`MtxReadOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`MtxReadOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets [`MtxReadOptions::progress`].
    pub fn with_progress(mut self, progress: Progress<'a>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Sets [`MtxReadOptions::validation`].
    pub fn with_validation(mut self, validation: Validation) -> Self {
        self.validation = validation;
        self
    }
}

/// Options of [`write_matrix_market`].
#[derive(Clone, Debug, Default)]
pub struct MtxWriteOptions {
    /// The symmetry to write: `General` (the default) writes every stored entry;
    /// `Symmetric` and `SkewSymmetric` write the lower triangle and fail
    /// ([`ErrorKind::InvalidArgument`]) when the matrix does not have that symmetry.
    pub symmetry: MtxSymmetry,
    /// Threads formatting the output; 0 (the default) uses every core.
    pub threads: usize,
}

impl MtxWriteOptions {
    /// Sets [`MtxWriteOptions::symmetry`].
    pub fn with_symmetry(mut self, symmetry: MtxSymmetry) -> Self {
        self.symmetry = symmetry;
        self
    }

    /// Sets [`MtxWriteOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
}

/// Reads the banner and size line of a Matrix Market file, under strict rules (a
/// `hermitian` banner or a skew-symmetric `pattern` matrix is refused; see
/// [`MtxReadOptions::validation`]).
///
/// ```
/// use arrow_tensor_ipc::formats::matrix_market::{read_header, MtxField, MtxFormat};
/// let h = read_header(b"%%MatrixMarket matrix coordinate real general\n% c\n3 4 2\n1 1 1.5\n2 4 -2\n")?;
/// assert_eq!((h.format, h.field, h.rows, h.cols, h.entries), (MtxFormat::Coordinate, MtxField::Real, 3, 4, 2));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_header(bytes: &[u8]) -> Result<MtxHeader> {
    read_header_with(bytes, Validation::Strict)
}

/// Reads the banner and size line of a Matrix Market file under `validation`: permissive
/// reports a `hermitian` banner of real values as `Symmetric`, as the reader treats it.
pub fn read_header_with(bytes: &[u8], validation: Validation) -> Result<MtxHeader> {
    parse_header(bytes, validation).map(|(h, _, _)| h)
}

/// Splits a line into its whitespace-separated words.
fn words(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
}

/// Parses the header: returns it, the offset of the first byte after the size line and the
/// size line's number.
fn parse_header(bytes: &[u8], validation: Validation) -> Result<(MtxHeader, usize, u64)> {
    let permissive = validation == Validation::Permissive;
    let end = next_line(bytes, 0);
    let banner = bytes.get(..end).unwrap_or_default();
    let w: Vec<&[u8]> = words(banner).collect();
    let err = |reason: String| parse_error(FORMAT, 1, reason);
    let is = |a: &[u8], b: &str| a.eq_ignore_ascii_case(b.as_bytes());
    if !w.first().is_some_and(|f| is(f, "%%MatrixMarket")) {
        return Err(err("missing the %%MatrixMarket banner".into()));
    }
    let [_, object, format, field, symmetry] = w.as_slice() else {
        return Err(err(format!(
            "the banner needs 5 words (%%MatrixMarket matrix <format> <field> <symmetry>), found {}",
            w.len()
        )));
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    if !is(object, "matrix") {
        return Err(err(format!(
            "object {:?} is not supported (only matrix)",
            text(object)
        )));
    }
    let format = if is(format, "coordinate") {
        MtxFormat::Coordinate
    } else if is(format, "array") {
        MtxFormat::Array
    } else {
        return Err(err(format!(
            "unknown format {:?} (coordinate or array)",
            text(format)
        )));
    };
    let field = if is(field, "real") || is(field, "double") {
        MtxField::Real
    } else if is(field, "integer") {
        MtxField::Integer
    } else if is(field, "pattern") {
        MtxField::Pattern
    } else if is(field, "complex") {
        return Err(err("complex matrices are not supported".into()));
    } else {
        return Err(err(format!(
            "unknown field {:?} (real, integer or pattern)",
            text(field)
        )));
    };
    let symmetry = if is(symmetry, "general") {
        MtxSymmetry::General
    } else if is(symmetry, "symmetric") {
        MtxSymmetry::Symmetric
    } else if is(symmetry, "skew-symmetric") {
        MtxSymmetry::SkewSymmetric
    } else if is(symmetry, "hermitian") {
        // The field was checked above: the values are real, so hermitian is symmetric.
        if !permissive {
            return Err(err(
                "hermitian matrices are not supported (a real-valued one reads as symmetric in permissive mode)".into(),
            ));
        }
        MtxSymmetry::Symmetric
    } else {
        return Err(err(format!(
            "unknown symmetry {:?} (general, symmetric or skew-symmetric)",
            text(symmetry)
        )));
    };
    if field == MtxField::Pattern && format == MtxFormat::Array {
        return Err(err("an array matrix cannot have the pattern field".into()));
    }
    if field == MtxField::Pattern && symmetry == MtxSymmetry::SkewSymmetric && !permissive {
        return Err(err(
            "a pattern matrix cannot be skew-symmetric (permissive mode reads its mirrors as -1)"
                .into(),
        ));
    }
    // The size line: the first line after the banner that is neither blank nor a comment.
    let mut p = end;
    let mut line = 2u64;
    loop {
        if p >= bytes.len() {
            return Err(parse_error(
                FORMAT,
                line,
                "the file ends before the size line",
            ));
        }
        let q = skip_blanks(bytes, p);
        match bytes.get(q) {
            Some(b'%') | Some(b'\n') => {}
            Some(b'\r') if matches!(bytes.get(q + 1), None | Some(b'\n')) => {}
            _ => break,
        }
        p = next_line(bytes, q);
        line += 1;
    }
    let err = |reason: String| parse_error(FORMAT, line, reason);
    let wanted = if format == MtxFormat::Coordinate {
        3
    } else {
        2
    };
    let mut sizes = [0u64; 3];
    let mut q = skip_blanks(bytes, p);
    for (k, slot) in sizes.iter_mut().take(wanted).enumerate() {
        let (v, r) = parse_u64(bytes, q).map_err(|e| {
            err(format!(
                "size line (rows cols{}): {e}",
                if wanted == 3 { " entries" } else { "" }
            ))
        })?;
        *slot = v;
        q = skip_blanks(bytes, r);
        let _ = k;
    }
    let data_start = finish_line(bytes, q).map_err(|_| {
        err(format!(
            "the size line of a {} matrix holds {wanted} numbers",
            if wanted == 3 { "coordinate" } else { "array" }
        ))
    })?;
    let [rows, cols, count] = sizes;
    let to_usize =
        |v: u64| usize::try_from(v).map_err(|_| err(format!("size {v} does not fit this machine")));
    let (rows, cols) = (to_usize(rows)?, to_usize(cols)?);
    if symmetry != MtxSymmetry::General && rows != cols {
        return Err(err(format!(
            "a {} matrix must be square, this one is {rows} x {cols}",
            symmetry.name()
        )));
    }
    let entries = match format {
        MtxFormat::Coordinate => count,
        MtxFormat::Array => {
            let (r, c) = (rows as u64, cols as u64);
            let n = match symmetry {
                MtxSymmetry::General => r.checked_mul(c),
                MtxSymmetry::Symmetric => r.checked_mul(r.saturating_add(1)).map(|v| v / 2),
                MtxSymmetry::SkewSymmetric => r.checked_mul(r.saturating_sub(1)).map(|v| v / 2),
            };
            n.ok_or_else(|| {
                Error::from(ErrorKind::Overflow {
                    quantity: crate::Quantity::ElementCount {
                        shape: vec![rows, cols],
                    },
                })
            })?
        }
    };
    let header = MtxHeader {
        format,
        field,
        symmetry,
        rows,
        cols,
        entries,
    };
    Ok((header, data_start, line))
}

/// Reads a whole Matrix Market file: a `coordinate` matrix as a COO
/// [`Message::SparseTensor`], an `array` matrix as a dense column-major [`Message::Tensor`].
///
/// ```
/// use arrow_tensor_ipc::formats::matrix_market::{read_matrix_market, MtxReadOptions};
/// use arrow_tensor_ipc::{Message, Scalar};
/// let file = b"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4\n3 1 -1.5\n";
/// let Message::SparseTensor(t) = read_matrix_market(file, &MtxReadOptions::default())? else { panic!() };
/// assert_eq!(t.nnz(), 3); // (3, 1) and its mirror (1, 3)
/// assert_eq!(t.get(&[0, 2])?, Scalar::Float64(-1.5));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_matrix_market(bytes: &[u8], options: &MtxReadOptions) -> Result<Message> {
    let (header, data_start, size_line) = parse_header(bytes, options.validation)?;
    let value_type = options.value_type.unwrap_or(match header.field {
        MtxField::Integer => ValueType::Int64,
        MtxField::Real | MtxField::Pattern => ValueType::Float64,
    });
    if header.field == MtxField::Real && !value_type.is_float() {
        return fail(ErrorKind::TypeMismatch {
            expected: value_type.name().into(),
            found: "real values (Matrix Market field real)".into(),
        });
    }
    let ctx = Ctx {
        bytes,
        header: &header,
        data: data_start..bytes.len(),
        size_line,
        options,
    };
    match header.format {
        MtxFormat::Coordinate => {
            crate::dispatch_value!(value_type, T => crate::dispatch_index!(options.index_type, I => {
                read_coordinate::<T, I>(&ctx).map(Message::SparseTensor)
            }))
        }
        MtxFormat::Array => {
            crate::dispatch_value!(value_type, T => read_array::<T>(&ctx).map(Message::Tensor))
        }
    }
}

/// What the readers of the data lines need.
struct Ctx<'b, 'o, 'p> {
    bytes: &'b [u8],
    header: &'b MtxHeader,
    data: Range<usize>,
    size_line: u64,
    options: &'o MtxReadOptions<'p>,
}

impl Ctx<'_, '_, '_> {
    /// Fails fast when the header claims more entries than the data bytes could hold, at
    /// `min_line` bytes per entry line (the last one without its newline).
    fn check_claim(&self, min_line: u64) -> Result<()> {
        let available = self.data.len() as u64;
        let claim = self.header.entries;
        let could_hold = (available + 1) / min_line;
        if claim > could_hold {
            return Err(parse_error(
                FORMAT,
                self.size_line,
                format!(
                    "the header declares {claim} entries, but the {available} bytes after it hold at most {could_hold}"
                ),
            ));
        }
        Ok(())
    }

    /// The error for a file whose entry count differs from the header's: too few names the
    /// last line of the file, too many the first entry line past the count.
    fn count_error(&self, found: u64) -> Error {
        let claim = self.header.entries;
        if found < claim {
            return parse_error(
                FORMAT,
                line_of(self.bytes, self.bytes.len().saturating_sub(1)),
                format!(
                    "the file ends after {found} entries, the header (line {}) declares {claim}",
                    self.size_line
                ),
            );
        }
        // The first entry line past the claim.
        let mut p = self.data.start;
        let mut seen = 0u64;
        while p < self.bytes.len() {
            let q = skip_blanks(self.bytes, p);
            let blank = matches!(self.bytes.get(q), None | Some(b'\n' | b'%'))
                || (self.bytes.get(q) == Some(&b'\r')
                    && matches!(self.bytes.get(q + 1), None | Some(b'\n')));
            if !blank {
                if seen == claim {
                    break;
                }
                seen += 1;
            }
            p = next_line(self.bytes, q);
        }
        parse_error(
            FORMAT,
            line_of(self.bytes, p),
            format!(
                "more entries than the {claim} the header (line {}) declares",
                self.size_line
            ),
        )
    }
}

/// Whether the line starting at `q` (blanks skipped) holds no entry: empty or a comment.
/// Returns the start of the next line when so.
#[inline]
fn skip_empty(s: &[u8], q: usize) -> Option<usize> {
    match s.get(q) {
        None => Some(q),
        Some(b'\n') => Some(q + 1),
        Some(b'%') => Some(next_line(s, q)),
        Some(b'\r') if matches!(s.get(q + 1), None | Some(b'\n')) => Some(next_line(s, q)),
        _ => None,
    }
}

/// Parses the value field at `q` of a line; returns it and the position after it.
#[inline]
fn parse_value<T: TextValue>(s: &[u8], q: usize) -> Result<(T, usize), &'static str> {
    let (v, n) = T::parse(s.get(q..).unwrap_or_default())?;
    if !super::text::ends_field(s.get(q + n)) {
        return Err("not a number");
    }
    Ok((v, q + n))
}

/// The mirror of a skew-symmetric entry: its negation, but a zero (of either sign) is
/// mirrored as `+0`.
#[inline]
fn mirror_value<T: TextValue>(v: T) -> Option<T> {
    if v.is_zero() {
        Some(T::ZERO)
    } else {
        v.checked_neg()
    }
}

/// The entries one thread parsed.
struct CooChunk<T, I> {
    coords: Vec<I>,
    values: Vec<T>,
    lines: u64,
    sorted: bool,
    first: Option<(u64, u64)>,
    last: Option<(u64, u64)>,
}

fn read_coordinate<T: TextValue, I: NativeIndex>(ctx: &Ctx) -> Result<SparseTensor> {
    let h = ctx.header;
    let opts = ctx.options;
    if h.entries > opts.limits.max_nnz {
        return fail(ErrorKind::LimitExceeded {
            what: "Matrix Market entries",
            value: h.entries,
            limit: opts.limits.max_nnz,
        });
    }
    let pattern = h.field == MtxField::Pattern;
    ctx.check_claim(if pattern { 4 } else { 6 })?;
    let max_coord = h.rows.max(h.cols).saturating_sub(1) as u64;
    if I::from_u64(max_coord).is_none() {
        return fail(ErrorKind::IndexTypeTooNarrow {
            role: "coordinates",
            index_type: I::TYPE,
            needed: max_coord,
            note: "",
        });
    }
    let mirror = opts.expand_symmetry && h.symmetry != MtxSymmetry::General;
    let skew = h.symmetry == MtxSymmetry::SkewSymmetric;
    let strict = opts.validation == Validation::Strict;
    let (rows, cols) = (h.rows as u64, h.cols as u64);
    let bytes = ctx.bytes;
    let data_len = ctx.data.len().max(1) as u64;
    let chunks = split_lines(bytes, ctx.data.clone(), resolve_threads(opts.threads));
    let progress = ProgressCounter::new(opts.progress, ctx.data.start);

    let parse = |range: Range<usize>| -> Result<CooChunk<T, I>, LineError> {
        let s = bytes.get(..range.end).unwrap_or_default();
        // Expected entries of this chunk, from the header's count (bounded by the bytes).
        let share = (h.entries as u128 * range.len() as u128 / data_len as u128) as usize + 16;
        let share = if mirror { share * 2 } else { share };
        let mut c = CooChunk {
            coords: Vec::with_capacity(share * 2),
            values: Vec::with_capacity(share),
            lines: 0,
            sorted: true,
            first: None,
            last: None,
        };
        let push = |c: &mut CooChunk<T, I>, r: u64, col: u64, v: T| {
            let key = (r, col);
            if c.last.is_some_and(|l| l >= key) {
                c.sorted = false;
            }
            if c.first.is_none() {
                c.first = Some(key);
            }
            c.last = Some(key);
            // In range of I: checked against the largest dimension above.
            c.coords.push(I::from_u64(r).unwrap_or(I::usize_as(0)));
            c.coords.push(I::from_u64(col).unwrap_or(I::usize_as(0)));
            c.values.push(v);
        };
        let mut p = range.start;
        let mut reported = p;
        while p < range.end {
            let line = p;
            let q = skip_blanks(s, p);
            if let Some(next) = skip_empty(s, q) {
                p = next;
                continue;
            }
            let e = |what: &str, reason: &str| LineError::new(line, format!("{what}: {reason}"));
            let (r, q) = parse_u64(s, q).map_err(|x| e("row index", x))?;
            let (col, q) = parse_u64(s, skip_blanks(s, q)).map_err(|x| e("column index", x))?;
            let q = skip_blanks(s, q);
            let (v, q) = if pattern {
                (T::ONE, q)
            } else {
                parse_value::<T>(s, q).map_err(|x| e("value", x))?
            };
            p = finish_line(s, q).map_err(|x| {
                LineError::new(
                    line,
                    format!(
                        "{x} (a {} entry is `row column{}`)",
                        if pattern { "pattern" } else { "coordinate" },
                        if pattern { "" } else { " value" }
                    ),
                )
            })?;
            if r == 0 || r > rows {
                return Err(LineError::new(
                    line,
                    format!("row index {r} out of range 1..={rows}"),
                ));
            }
            if col == 0 || col > cols {
                return Err(LineError::new(
                    line,
                    format!("column index {col} out of range 1..={cols}"),
                ));
            }
            c.lines += 1;
            push(&mut c, r - 1, col - 1, v);
            if mirror && r != col {
                let m = if skew {
                    mirror_value(v).ok_or_else(|| {
                        LineError::new(
                            line,
                            format!("the mirrored value -{v:?} does not fit {}", T::TYPE),
                        )
                    })?
                } else {
                    v
                };
                push(&mut c, col - 1, r - 1, m);
            }
            if skew && r == col && strict {
                return Err(LineError::new(
                    line,
                    "an entry on the diagonal of a skew-symmetric matrix (permissive mode keeps it as stored)",
                ));
            }
            if progress.active() && p - reported >= PROGRESS_STEP {
                progress.add(p - reported);
                reported = p;
            }
        }
        if progress.active() {
            progress.add(range.end.saturating_sub(reported));
        }
        Ok(c)
    };
    let results = run_chunks(&chunks, parse)?;
    let mut parts = Vec::with_capacity(results.len());
    for r in results {
        parts.push(r.map_err(|e| e.into_error(FORMAT, bytes))?);
    }
    let lines: u64 = parts.iter().map(|c| c.lines).sum();
    if lines != h.entries {
        return Err(ctx.count_error(lines));
    }
    let nnz: usize = parts.iter().map(|c| c.values.len()).sum();
    if nnz as u64 > opts.limits.max_nnz {
        return fail(ErrorKind::LimitExceeded {
            what: "Matrix Market entries (symmetry expanded)",
            value: nnz as u64,
            limit: opts.limits.max_nnz,
        });
    }
    let mut canonical = true;
    let mut last: Option<(u64, u64)> = None;
    for c in &parts {
        canonical &= c.sorted;
        if let (Some(l), Some(f)) = (last, c.first) {
            canonical &= l < f;
        }
        if c.last.is_some() {
            last = c.last;
        }
    }
    let (coords, values) = concat(parts, |c| (c.coords, c.values));
    let index = CooIndex::with_flag(
        IndexArray::from_vec(coords),
        2,
        CooOrder::RowMajor,
        canonical,
    )?;
    SparseTensor::from_converted_parts(
        T::TYPE,
        vec![h.rows, h.cols],
        Buffer::from_vec(values),
        SparseIndex::Coo(index),
    )
}

fn read_array<T: TextValue>(ctx: &Ctx) -> Result<Tensor> {
    let h = ctx.header;
    let opts = ctx.options;
    let elements = h
        .rows
        .checked_mul(h.cols)
        .ok_or_else(|| ErrorKind::Overflow {
            quantity: crate::Quantity::ElementCount {
                shape: vec![h.rows, h.cols],
            },
        })?;
    if elements > opts.limits.max_dense_elements {
        return fail(ErrorKind::LimitExceeded {
            what: "Matrix Market array elements",
            value: elements as u64,
            limit: opts.limits.max_dense_elements as u64,
        });
    }
    ctx.check_claim(2)?;
    let bytes = ctx.bytes;
    let data_len = ctx.data.len().max(1) as u64;
    let chunks = split_lines(bytes, ctx.data.clone(), resolve_threads(opts.threads));
    let progress = ProgressCounter::new(opts.progress, ctx.data.start);
    let parse = |range: Range<usize>| -> Result<Vec<T>, LineError> {
        let s = bytes.get(..range.end).unwrap_or_default();
        let share = (h.entries as u128 * range.len() as u128 / data_len as u128) as usize + 16;
        let mut values = Vec::with_capacity(share);
        let mut p = range.start;
        let mut reported = p;
        while p < range.end {
            let line = p;
            let q = skip_blanks(s, p);
            if let Some(next) = skip_empty(s, q) {
                p = next;
                continue;
            }
            let (v, q) =
                parse_value::<T>(s, q).map_err(|x| LineError::new(line, format!("value: {x}")))?;
            p = finish_line(s, q).map_err(|x| {
                LineError::new(line, format!("{x} (an array line holds one value)"))
            })?;
            values.push(v);
            if progress.active() && p - reported >= PROGRESS_STEP {
                progress.add(p - reported);
                reported = p;
            }
        }
        if progress.active() {
            progress.add(range.end.saturating_sub(reported));
        }
        Ok(values)
    };
    let results = run_chunks(&chunks, parse)?;
    let mut parts = Vec::with_capacity(results.len());
    for r in results {
        parts.push(r.map_err(|e| e.into_error(FORMAT, bytes))?);
    }
    let found: u64 = parts.iter().map(|v| v.len() as u64).sum();
    if found != h.entries {
        return Err(ctx.count_error(found));
    }
    let (_, stored) = concat::<_, T, u8>(parts, |v| (Vec::new(), v));
    let n = h.rows;
    let full = match h.symmetry {
        MtxSymmetry::General => stored,
        sym => {
            // The stored lower triangle, column by column, into the full column-major matrix.
            let skew = sym == MtxSymmetry::SkewSymmetric;
            let mut full = vec![T::ZERO; elements];
            let mut it = stored.into_iter();
            for j in 0..n {
                for i in (if skew { j + 1 } else { j })..n {
                    let v = it.next().unwrap_or(T::ZERO);
                    if let Some(slot) = full.get_mut(j * n + i) {
                        *slot = v;
                    }
                    if opts.expand_symmetry && i != j {
                        let m = if skew {
                            mirror_value(v).ok_or_else(|| {
                                ErrorKind::InvalidArgument(format!(
                                    "the mirrored value -{v:?} of a skew-symmetric matrix does not fit {}",
                                    T::TYPE
                                ))
                            })?
                        } else {
                            v
                        };
                        if let Some(slot) = full.get_mut(i * n + j) {
                            *slot = m;
                        }
                    }
                }
            }
            full
        }
    };
    let shape = vec![h.rows, h.cols];
    let strides = column_major_strides(&shape, T::TYPE.byte_width());
    Tensor::try_new(T::TYPE, shape, strides, Buffer::from_vec(full))
}

/// Writes a rank-2 tensor as a Matrix Market file: a sparse tensor (any layout) as
/// `coordinate` (every stored entry, in storage order for COO, in row-major order for the
/// other layouts), a dense tensor as `array` (column by column). Integer value types are
/// written as field `integer`, floats as `real`, in the shortest text that reads back to
/// the same bits (`NaN`, `Infinity`, `-Infinity` as scipy spells them).
///
/// ```
/// use arrow_tensor_ipc::formats::matrix_market::{write_matrix_market, MtxWriteOptions};
/// use arrow_tensor_ipc::{Message, SparseTensor};
/// let t = SparseTensor::coo(&[2, 3], vec![0i64, 1, 1, 2], vec![0.1f64, -2.0])?;
/// let mut out = Vec::new();
/// write_matrix_market(&Message::SparseTensor(t), &mut out, &MtxWriteOptions::default())?;
/// assert_eq!(out, b"%%MatrixMarket matrix coordinate real general\n2 3 2\n1 2 0.1\n2 3 -2\n");
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn write_matrix_market<W: std::io::Write>(
    message: &Message,
    out: W,
    options: &MtxWriteOptions,
) -> Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    match message {
        Message::SparseTensor(t) => write_sparse(t, &mut out, options)?,
        Message::Tensor(t) => write_dense(t, &mut out, options)?,
    }
    std::io::Write::flush(&mut out).map_err(ErrorKind::Io)?;
    Ok(())
}

fn field_name(t: ValueType) -> &'static str {
    if t.is_float() {
        "real"
    } else {
        "integer"
    }
}

fn check_rank(shape: &[usize], what: &'static str) -> Result<()> {
    if shape.len() != 2 {
        return fail(ErrorKind::InvalidRank {
            layout: what,
            needed: "rank 2",
            rank: shape.len(),
        });
    }
    Ok(())
}

fn write_sparse<W: std::io::Write>(
    t: &SparseTensor,
    out: &mut W,
    options: &MtxWriteOptions,
) -> Result<()> {
    check_rank(t.shape(), "a Matrix Market coordinate matrix")?;
    let mut coo: Cow<SparseTensor> = match t.index() {
        SparseIndex::Coo(_) => Cow::Borrowed(t),
        _ => Cow::Owned(t.to_format(SparseFormat::Coo, &ConvertOptions::default())?),
    };
    if options.symmetry != MtxSymmetry::General {
        let canonical = match coo.index() {
            SparseIndex::Coo(c) if c.is_canonical() => coo,
            _ => Cow::Owned(coo.canonicalize()?),
        };
        coo = Cow::Owned(crate::dispatch_value!(t.value_type(), T => {
            lower_triangle::<T>(&canonical, options.symmetry)?
        }));
    }
    let io = |e: std::io::Error| Error::from(ErrorKind::Io(e));
    let shape = coo.shape();
    writeln!(
        out,
        "%%MatrixMarket matrix coordinate {} {}\n{} {} {}",
        field_name(t.value_type()),
        options.symmetry.name(),
        shape.first().copied().unwrap_or(0),
        shape.get(1).copied().unwrap_or(0),
        coo.nnz()
    )
    .map_err(io)?;
    write_coo_lines(out, &coo, options.threads)
}

/// The lower triangle of a canonical COO matrix, after checking that the matrix is
/// symmetric (or skew-symmetric): every stored entry off the diagonal has a mirror of the
/// same (negated) value, or is zero when it has none.
fn lower_triangle<T: TextValue>(coo: &SparseTensor, symmetry: MtxSymmetry) -> Result<SparseTensor> {
    let SparseIndex::Coo(index) = coo.index() else {
        return fail(ErrorKind::InvalidArgument("expected COO".into()));
    };
    let skew = symmetry == MtxSymmetry::SkewSymmetric;
    let nnz = index.nnz();
    let raw = index.indices().to_i64_vec();
    let key = |i: usize| -> (i64, i64) {
        let (a, b) = match index.order() {
            CooOrder::RowMajor => (i * 2, i * 2 + 1),
            CooOrder::ColumnMajor => (i, nnz + i),
        };
        (
            raw.get(a).copied().unwrap_or(0),
            raw.get(b).copied().unwrap_or(0),
        )
    };
    let values = coo.values::<T>().unwrap_or_default();
    let keys: Vec<(i64, i64)> = (0..nnz).map(key).collect();
    let not = |r: i64, c: i64, why: String| {
        Error::from(ErrorKind::InvalidArgument(format!(
            "the matrix is not {}: entry ({}, {}) {why}",
            symmetry.name(),
            r + 1,
            c + 1
        )))
    };
    let mut coords = Vec::new();
    let mut kept = Vec::new();
    for (i, (&(r, c), &v)) in keys.iter().zip(values).enumerate() {
        let _ = i;
        if r == c {
            if skew && !v.is_zero() {
                return Err(not(r, c, format!("= {v:?} is on the diagonal")));
            }
            if !skew {
                coords.extend([r, c]);
                kept.push(v);
            }
            continue;
        }
        let want = if skew {
            v.checked_neg()
                .ok_or_else(|| not(r, c, format!("= {v:?} cannot be negated")))?
        } else {
            v
        };
        match keys.binary_search(&(c, r)) {
            Ok(j) => {
                let m = values.get(j).copied().unwrap_or(T::ZERO);
                if !(m.same(want) || (m.is_zero() && want.is_zero())) {
                    return Err(not(r, c, format!("= {v:?} but its mirror = {m:?}")));
                }
            }
            Err(_) if !v.is_zero() => {
                return Err(not(r, c, format!("= {v:?} has no mirror")));
            }
            Err(_) => {}
        }
        if r > c {
            coords.extend([r, c]);
            kept.push(v);
        }
    }
    let index = CooIndex::with_flag(IndexArray::from_vec(coords), 2, CooOrder::RowMajor, true)?;
    SparseTensor::from_converted_parts(
        T::TYPE,
        coo.shape().to_vec(),
        Buffer::from_vec(kept),
        SparseIndex::Coo(index),
    )
}

fn write_dense<W: std::io::Write>(
    t: &Tensor,
    out: &mut W,
    options: &MtxWriteOptions,
) -> Result<()> {
    check_rank(t.shape(), "a Matrix Market array matrix")?;
    let (rows, cols) = (
        t.shape().first().copied().unwrap_or(0),
        t.shape().get(1).copied().unwrap_or(0),
    );
    let sym = options.symmetry;
    if sym != MtxSymmetry::General && rows != cols {
        return fail(ErrorKind::InvalidArgument(format!(
            "a {} matrix must be square, this one is {rows} x {cols}",
            sym.name()
        )));
    }
    let io = |e: std::io::Error| Error::from(ErrorKind::Io(e));
    writeln!(
        out,
        "%%MatrixMarket matrix array {} {}\n{rows} {cols}",
        field_name(t.value_type()),
        sym.name()
    )
    .map_err(io)?;
    crate::dispatch_value!(t.value_type(), T => write_dense_typed::<T, W>(t, out, options, rows, cols))
}

fn write_dense_typed<T: TextValue, W: std::io::Write>(
    t: &Tensor,
    out: &mut W,
    options: &MtxWriteOptions,
    rows: usize,
    cols: usize,
) -> Result<()> {
    let data = t.data().as_slice();
    let (s0, s1) = (
        t.strides().first().copied().unwrap_or(0),
        t.strides().get(1).copied().unwrap_or(0),
    );
    let at = |i: usize, j: usize| -> T {
        data.get(i * s0 + j * s1..)
            .and_then(T::read_le)
            .unwrap_or(T::ZERO)
    };
    let sym = options.symmetry;
    let skew = sym == MtxSymmetry::SkewSymmetric;
    if sym != MtxSymmetry::General {
        for j in 0..cols {
            if skew && !at(j, j).is_zero() {
                return fail(ErrorKind::InvalidArgument(format!(
                    "the matrix is not skew-symmetric: entry ({}, {}) is on the diagonal and not zero",
                    j + 1,
                    j + 1
                )));
            }
            for i in j + 1..rows {
                let (v, m) = (at(i, j), at(j, i));
                let want = if skew { v.checked_neg() } else { Some(v) };
                if !want.is_some_and(|w| w.same(m) || (w.is_zero() && m.is_zero())) {
                    return fail(ErrorKind::InvalidArgument(format!(
                        "the matrix is not {}: entry ({}, {}) = {v:?} but ({}, {}) = {m:?}",
                        sym.name(),
                        i + 1,
                        j + 1,
                        j + 1,
                        i + 1
                    )));
                }
            }
        }
    }
    // No values: nothing after the size line (a dimension of size 0 beside a huge one must
    // not cost a pass over the huge one).
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let block = (super::text::WRITE_BLOCK / rows.max(1)).max(1);
    write_parallel(out, cols, options.threads, block, |range, buf| {
        for j in range {
            let first = match sym {
                MtxSymmetry::General => 0,
                MtxSymmetry::Symmetric => j,
                MtxSymmetry::SkewSymmetric => j + 1,
            };
            for i in first..rows {
                at(i, j).write(buf);
                buf.push(b'\n');
            }
        }
    })
}
