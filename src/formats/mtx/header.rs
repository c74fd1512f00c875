//! The banner and the size line of a Matrix Market file.

// Untrusted input: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::{Field, Format, Header, Symmetry, FORMAT};
use crate::error::{Error, ErrorKind, Result};
use crate::formats::text::{finish_line, next_line, parse_error, parse_u64, skip_blanks, words};
use crate::Validation;

/// Parses the header: returns it, the offset of the first byte after the size line and the
/// size line's number.
pub(super) fn parse_header(bytes: &[u8], validation: Validation) -> Result<(Header, usize, u64)> {
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
        Format::Coordinate
    } else if is(format, "array") {
        Format::Array
    } else {
        return Err(err(format!(
            "unknown format {:?} (coordinate or array)",
            text(format)
        )));
    };
    let field = if is(field, "real") || is(field, "double") {
        Field::Real
    } else if is(field, "integer") {
        Field::Integer
    } else if is(field, "pattern") {
        Field::Pattern
    } else if is(field, "complex") {
        return Err(err("complex matrices are not supported".into()));
    } else {
        return Err(err(format!(
            "unknown field {:?} (real, integer or pattern)",
            text(field)
        )));
    };
    let symmetry = if is(symmetry, "general") {
        Symmetry::General
    } else if is(symmetry, "symmetric") {
        Symmetry::Symmetric
    } else if is(symmetry, "skew-symmetric") {
        Symmetry::SkewSymmetric
    } else if is(symmetry, "hermitian") {
        // The field was checked above: the values are real, so hermitian is symmetric.
        if !permissive {
            return Err(err(
                "hermitian matrices are not supported (a real-valued one reads as symmetric in permissive mode)".into(),
            ));
        }
        Symmetry::Symmetric
    } else {
        return Err(err(format!(
            "unknown symmetry {:?} (general, symmetric or skew-symmetric)",
            text(symmetry)
        )));
    };
    if field == Field::Pattern && format == Format::Array {
        return Err(err("an array matrix cannot have the pattern field".into()));
    }
    if field == Field::Pattern && symmetry == Symmetry::SkewSymmetric && !permissive {
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
    let wanted = if format == Format::Coordinate { 3 } else { 2 };
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
    if symmetry != Symmetry::General && rows != cols {
        return Err(err(format!(
            "a {} matrix must be square, this one is {rows} x {cols}",
            symmetry.name()
        )));
    }
    let entries = match format {
        Format::Coordinate => count,
        Format::Array => {
            let (r, c) = (rows as u64, cols as u64);
            let n = match symmetry {
                Symmetry::General => r.checked_mul(c),
                Symmetry::Symmetric => r.checked_mul(r.saturating_add(1)).map(|v| v / 2),
                Symmetry::SkewSymmetric => r.checked_mul(r.saturating_sub(1)).map(|v| v / 2),
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
    let header = Header {
        format,
        field,
        symmetry,
        rows,
        cols,
        entries,
    };
    Ok((header, data_start, line))
}
