//! Writing a Matrix Market file: a sparse matrix as `coordinate`, a dense one as `array`,
//! with the check that a matrix written as symmetric or skew-symmetric is so.

// Untrusted input: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::{MtxWriteOptions, Symmetry};
use crate::error::{fail, Error, ErrorKind, Result};
use crate::formats::text::value::TextValue;
use crate::formats::text::write::{write_coo_lines, write_parallel, WRITE_BLOCK};
use crate::sparse::{CooIndex, CooOrder, SparseFormat, SparseIndex, SparseTensor};
use crate::tensor::Tensor;
use crate::types::ValueType;
use crate::{ConvertOptions, IndexArray};
use arrow_buffer::Buffer;
use std::borrow::Cow;

fn field_name(t: ValueType) -> &'static str {
    if t.is_float() {
        "real"
    } else {
        "integer"
    }
}

/// The error of a matrix that does not have the symmetry it is to be written with.
fn not_symmetric(symmetry: Symmetry, found: String) -> Error {
    ErrorKind::UnsupportedLayout {
        operation: "writing a Matrix Market file",
        expected: match symmetry {
            Symmetry::SkewSymmetric => "a skew-symmetric matrix",
            _ => "a symmetric matrix",
        },
        found,
    }
    .into()
}

/// Refuses to write a matrix that is not square as symmetric or skew-symmetric (no reader
/// would take the file).
fn check_square(shape: &[usize], symmetry: Symmetry) -> Result<()> {
    if let [rows, cols] = shape {
        if symmetry != Symmetry::General && rows != cols {
            return Err(not_symmetric(
                symmetry,
                format!(
                    "a {rows} x {cols} matrix (a {} matrix is square)",
                    symmetry.name()
                ),
            ));
        }
    }
    Ok(())
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

pub(super) fn write_sparse(
    t: &SparseTensor,
    out: &mut dyn std::io::Write,
    options: &MtxWriteOptions,
) -> Result<()> {
    check_rank(t.shape(), "a Matrix Market coordinate matrix")?;
    check_square(t.shape(), options.symmetry)?;
    let mut coo: Cow<SparseTensor> = match t.index() {
        SparseIndex::Coo(_) => Cow::Borrowed(t),
        _ => Cow::Owned(t.to_format_with(SparseFormat::Coo, &ConvertOptions::default())?),
    };
    if options.symmetry != Symmetry::General {
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
/// same (negated) value, or is zero when it has none; otherwise an
/// [`ErrorKind::UnsupportedLayout`] naming the entry.
fn lower_triangle<T: TextValue>(coo: &SparseTensor, symmetry: Symmetry) -> Result<SparseTensor> {
    let SparseIndex::Coo(index) = coo.index() else {
        return fail(ErrorKind::UnsupportedLayout {
            operation: "the lower triangle of a matrix",
            expected: "a COO matrix",
            found: format!("{:?}", coo.format()),
        });
    };
    let skew = symmetry == Symmetry::SkewSymmetric;
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
        not_symmetric(symmetry, format!("entry ({}, {}) {why}", r + 1, c + 1))
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

pub(super) fn write_dense(
    t: &Tensor,
    out: &mut dyn std::io::Write,
    options: &MtxWriteOptions,
) -> Result<()> {
    check_rank(t.shape(), "a Matrix Market array matrix")?;
    let (rows, cols) = (
        t.shape().first().copied().unwrap_or(0),
        t.shape().get(1).copied().unwrap_or(0),
    );
    let sym = options.symmetry;
    check_square(t.shape(), sym)?;
    let io = |e: std::io::Error| Error::from(ErrorKind::Io(e));
    writeln!(
        out,
        "%%MatrixMarket matrix array {} {}\n{rows} {cols}",
        field_name(t.value_type()),
        sym.name()
    )
    .map_err(io)?;
    crate::dispatch_value!(t.value_type(), T => write_dense_typed::<T>(t, out, options, rows, cols))
}

fn write_dense_typed<T: TextValue>(
    t: &Tensor,
    out: &mut dyn std::io::Write,
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
    let skew = sym == Symmetry::SkewSymmetric;
    if sym != Symmetry::General {
        for j in 0..cols {
            if skew && !at(j, j).is_zero() {
                return Err(not_symmetric(
                    sym,
                    format!("entry ({}, {}) on the diagonal, not zero", j + 1, j + 1),
                ));
            }
            for i in j + 1..rows {
                let (v, m) = (at(i, j), at(j, i));
                let want = if skew { v.checked_neg() } else { Some(v) };
                if !want.is_some_and(|w| w.same(m) || (w.is_zero() && m.is_zero())) {
                    return Err(not_symmetric(
                        sym,
                        format!(
                            "entry ({}, {}) = {v:?} but ({}, {}) = {m:?}",
                            i + 1,
                            j + 1,
                            j + 1,
                            i + 1
                        ),
                    ));
                }
            }
        }
    }
    // No values: nothing after the size line (a dimension of size 0 beside a huge one must
    // not cost a pass over the huge one).
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let block = (WRITE_BLOCK / rows.max(1)).max(1);
    write_parallel(out, cols, options.threads, block, &|range, buf| {
        for j in range {
            let first = match sym {
                Symmetry::General => 0,
                Symmetry::Symmetric => j,
                Symmetry::SkewSymmetric => j + 1,
            };
            for i in first..rows {
                at(i, j).write(buf);
                buf.push(b'\n');
            }
        }
    })
}
