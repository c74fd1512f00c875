//! The data lines of a `coordinate` matrix: one entry per line (`row column [value]`),
//! followed by its mirror when a symmetric matrix is expanded.

// Untrusted input: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::{Field, Header, MtxReadOptions, Symmetry, FORMAT};
use crate::error::{fail, Error, ErrorKind, Result};
use crate::formats::text::entries::{Entries, Store};
use crate::formats::text::run::Run;
use crate::formats::text::value::TextValue;
use crate::formats::text::{
    finish_line, line_of, next_line, parse_error, parse_parallel, parse_u64, parse_value,
    skip_blanks, LineError, LineParser, LineShape,
};
use crate::sparse::{CooIndex, CooOrder, SparseIndex, SparseTensor};
use crate::types::NativeIndex;
use crate::{IndexArray, Validation};
use arrow_buffer::Buffer;
use std::ops::Range;

/// What the readers of the data lines need.
pub(super) struct Ctx<'b, 'o, 'p> {
    /// The whole file.
    pub bytes: &'b [u8],
    /// Its header.
    pub header: &'b Header,
    /// The data lines: from the line after the size line to the end.
    pub data: Range<usize>,
    /// The size line's number.
    pub size_line: u64,
    /// How to read.
    pub options: &'o MtxReadOptions<'p>,
}

impl Ctx<'_, '_, '_> {
    /// Fails fast when the header claims more entries than the data bytes could hold, at
    /// `min_line` bytes per entry line (the last one without its newline).
    pub fn check_claim(&self, min_line: u64) -> Result<()> {
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
    pub fn count_error(&self, found: u64) -> Error {
        count_error(
            self.bytes,
            self.data.start,
            self.size_line,
            self.header.entries,
            found,
        )
    }
}

/// The error for a file whose entry count (`found`) differs from the header's (`claim`):
/// too few names the last line of the file, too many the first entry line past the count.
pub(super) fn count_error(
    bytes: &[u8],
    data_start: usize,
    size_line: u64,
    claim: u64,
    found: u64,
) -> Error {
    if found < claim {
        return parse_error(
            FORMAT,
            line_of(bytes, bytes.len().saturating_sub(1)),
            format!(
                "the file ends after {found} entries, the header (line {}) declares {claim}",
                size_line
            ),
        );
    }
    // The first entry line past the claim.
    let mut p = data_start;
    let mut seen = 0u64;
    while p < bytes.len() {
        let q = skip_blanks(bytes, p);
        let blank = matches!(bytes.get(q), None | Some(b'\n' | b'%'))
            || (bytes.get(q) == Some(&b'\r') && matches!(bytes.get(q + 1), None | Some(b'\n')));
        if !blank {
            if seen == claim {
                break;
            }
            seen += 1;
        }
        p = next_line(bytes, q);
    }
    parse_error(
        FORMAT,
        line_of(bytes, p),
        format!(
            "more entries than the {claim} the header (line {}) declares",
            size_line
        ),
    )
}

/// The mirror of a skew-symmetric entry: its negation, but a zero (of either sign) is
/// mirrored as `+0`.
#[inline]
pub(super) fn mirror_value<T: TextValue>(v: T) -> Option<T> {
    if v.is_zero() {
        Some(T::ZERO)
    } else {
        v.checked_neg()
    }
}

/// The parser of one entry line of a coordinate matrix, used by the whole-file and the
/// chunked readers alike.
#[derive(Clone, Copy, Debug)]
pub(super) struct CoordinateLines {
    rows: u64,
    cols: u64,
    pattern: bool,
    mirror: bool,
    skew: bool,
    strict: bool,
}

impl CoordinateLines {
    /// The parser of the lines of a file with this header, read with these options.
    pub fn new(h: &Header, options: &MtxReadOptions) -> Self {
        CoordinateLines {
            rows: h.rows as u64,
            cols: h.cols as u64,
            pattern: h.field == Field::Pattern,
            mirror: options.expand_symmetry && h.symmetry != Symmetry::General,
            skew: h.symmetry == Symmetry::SkewSymmetric,
            strict: options.validation == Validation::Strict,
        }
    }

    /// How the lines map to entries: rank 2, a mirrored entry where symmetry is
    /// expanded, at least `row column\n` (and ` value`) per line.
    pub fn shape(&self) -> LineShape {
        LineShape {
            ndim: 2,
            entries_per_line: if self.mirror { 2 } else { 1 },
            min_line: if self.pattern { 4 } else { 6 },
        }
    }
}

impl<T: TextValue, I: NativeIndex> LineParser<T, I> for CoordinateLines {
    #[inline]
    fn parse<S: Store<T, I>>(
        &self,
        s: &[u8],
        line: usize,
        q: usize,
        c: &mut Entries<T, I, S>,
    ) -> Result<usize, LineError> {
        let (r, col, v, p) = self.fields(s, line, q)?;
        self.add(line, r, col, v, c)?;
        Ok(p)
    }

    /// Runs of plain lines (general matrices of `real` and `integer` values): parsed
    /// first, then checked and stored as a whole ([`Run`]).
    #[inline]
    fn parse_run<S: Store<T, I>>(
        &self,
        s: &[u8],
        p: usize,
        room: usize,
        c: &mut Entries<T, I, S>,
    ) -> Result<usize, LineError> {
        if self.pattern {
            return Ok(p);
        }
        let per_line = if self.mirror { 2 } else { 1 };
        let mut run = Run::<T, 2>::new(p);
        run.parse(s, room / per_line);
        if run.within(&[self.rows, self.cols]) && !self.mirror && !self.skew {
            run.add_to(c);
        } else {
            // Line by line: the mirrored entries, or the error of the first line out of
            // range.
            for (start, [r, col], v) in run.lines() {
                self.add(start, r, col, v, c)?;
            }
        }
        Ok(run.end)
    }
}

impl CoordinateLines {
    /// Parses the fields of the entry line at `q` (any blanks between them, a `\r` before
    /// the newline, the last line without one): row, column, value and the position after
    /// the line. Out of line: the plain lines a [`Run`] reads are the hot loop.
    #[inline(never)]
    fn fields<T: TextValue>(
        &self,
        s: &[u8],
        line: usize,
        q: usize,
    ) -> Result<(u64, u64, T, usize), LineError> {
        let pattern = self.pattern;
        let e = |what: &str, reason: &str| LineError::new(line, format!("{what}: {reason}"));
        let (r, q) = parse_u64(s, q).map_err(|x| e("row index", x))?;
        let (col, q) = parse_u64(s, skip_blanks(s, q)).map_err(|x| e("column index", x))?;
        let q = skip_blanks(s, q);
        let (v, q) = if pattern {
            (T::ONE, q)
        } else {
            parse_value::<T>(s, q).map_err(|x| e("value", x))?
        };
        let p = finish_line(s, q).map_err(|x| {
            LineError::new(
                line,
                format!(
                    "{x} (a {} entry is `row column{}`)",
                    if pattern { "pattern" } else { "coordinate" },
                    if pattern { "" } else { " value" }
                ),
            )
        })?;
        Ok((r, col, v, p))
    }

    /// Checks the coordinates of the entry line at `line` and adds its entry (and the
    /// mirrored one where symmetry is expanded).
    #[inline(always)]
    fn add<T: TextValue, I: NativeIndex, S: Store<T, I>>(
        &self,
        line: usize,
        r: u64,
        col: u64,
        v: T,
        c: &mut Entries<T, I, S>,
    ) -> Result<(), LineError> {
        if r == 0 || r > self.rows {
            return Err(LineError::new(
                line,
                format!("row index {r} out of range 1..={}", self.rows),
            ));
        }
        if col == 0 || col > self.cols {
            return Err(LineError::new(
                line,
                format!("column index {col} out of range 1..={}", self.cols),
            ));
        }
        c.lines += 1;
        c.push_n([r - 1, col - 1], v);
        if self.mirror && r != col {
            let m = if self.skew {
                mirror_value(v).ok_or_else(|| {
                    LineError::new(
                        line,
                        format!("the mirrored value -{v:?} does not fit {}", T::TYPE),
                    )
                })?
            } else {
                v
            };
            c.push_n([col - 1, r - 1], m);
        }
        if self.skew && r == col && self.strict {
            return Err(LineError::new(
                line,
                "an entry on the diagonal of a skew-symmetric matrix (permissive mode keeps it as stored)",
            ));
        }
        Ok(())
    }
}

/// The checks before any data line is parsed: the header's count against the limits and
/// the bytes present, the largest coordinate against the index type.
pub(super) fn check_coordinate(ctx: &Ctx) -> Result<()> {
    let h = ctx.header;
    let opts = ctx.options;
    if h.entries > opts.limits.max_nnz {
        return fail(ErrorKind::LimitExceeded {
            what: "Matrix Market entries",
            value: h.entries,
            limit: opts.limits.max_nnz,
        });
    }
    ctx.check_claim(if h.field == Field::Pattern { 4 } else { 6 })?;
    let max_coord = h.rows.max(h.cols).saturating_sub(1) as u64;
    if max_coord > opts.index_type.max_value() {
        return fail(ErrorKind::IndexTypeTooNarrow {
            role: "coordinates",
            index_type: opts.index_type,
            needed: max_coord,
            note: "",
        });
    }
    Ok(())
}

/// The error of more entries than `max_nnz` once symmetric entries are mirrored.
pub(super) fn expanded_limit(nnz: u64, max_nnz: u64) -> Result<()> {
    if nnz > max_nnz {
        return fail(ErrorKind::LimitExceeded {
            what: "Matrix Market entries (symmetry expanded)",
            value: nnz,
            limit: max_nnz,
        });
    }
    Ok(())
}

/// Reads the data lines of a coordinate matrix into a COO tensor, in file order.
pub(super) fn read_coordinate<T: TextValue>(ctx: &Ctx) -> Result<SparseTensor> {
    check_coordinate(ctx)?;
    let h = ctx.header;
    let opts = ctx.options;
    let lines = CoordinateLines::new(h, opts);
    let merged = parse_parallel::<T, i64>(
        FORMAT,
        ctx.bytes,
        ctx.data.clone(),
        opts.threads,
        b'%',
        opts.progress,
        lines.shape(),
        &lines,
    )?;
    if merged.lines != h.entries {
        return Err(ctx.count_error(merged.lines));
    }
    expanded_limit(merged.values.len() as u64, opts.limits.max_nnz)?;
    let index = CooIndex::with_flag(
        IndexArray::from_i64_as(merged.coords, opts.index_type),
        2,
        CooOrder::RowMajor,
        merged.canonical,
    )?;
    SparseTensor::from_converted_parts(
        T::TYPE,
        vec![h.rows, h.cols],
        Buffer::from_vec(merged.values),
        SparseIndex::Coo(index),
    )
}
