//! The coordinate columns of a COO table interleaved into one row-major coordinate matrix,
//! on several threads for large tables, with strict validation's row scan run on each block
//! while it is in cache.

use super::shares;
use crate::error::{fail, ErrorKind, Result};
use crate::parallel::fill::{fill_parallel_with, DenseWriter};
use crate::record_batch::arrays::{first_null, index_data_type};
use crate::validate::kernels;
use crate::{IndexArray, IndexType, NativeIndex};
use arrow_array::{Array, RecordBatch};
use arrow_buffer::Buffer;

/// Appends a block of coordinate columns to `out` as rows of a row-major coordinate matrix
/// of type `F`: the values as they are when the types agree, else each coordinate above
/// `clamp` (negative ones included) written as `clamp`.
fn interleave_block<I: NativeIndex, F: NativeIndex>(
    out: &mut DenseWriter<'_, F>,
    cols: &[&[I]],
    clamp: u64,
) {
    if I::TYPE == F::TYPE {
        interleave_with(out, cols, |v: I| F::usize_as(v.as_usize()));
    } else {
        interleave_with(out, cols, |v: I| {
            F::usize_as((v.as_index() as u64).min(clamp) as usize)
        });
    }
}

/// [`interleave_block`] with the cast of each coordinate.
#[inline(always)]
fn interleave_with<I: NativeIndex, F: NativeIndex>(
    out: &mut DenseWriter<'_, F>,
    cols: &[&[I]],
    cast: impl Fn(I) -> F,
) {
    match cols {
        [a] => out.extend(a.iter().map(|&x| cast(x))),
        [a, b] => out.extend_rows(a.iter().zip(b.iter()).map(|(&x, &y)| [cast(x), cast(y)])),
        [a, b, c] => out.extend_rows(
            a.iter()
                .zip(b.iter().zip(c.iter()))
                .map(|(&x, (&y, &z))| [cast(x), cast(y), cast(z)]),
        ),
        _ => {
            let rows = cols.first().map_or(0, |c| c.len());
            let cast = &cast;
            out.extend((0..rows).flat_map(|k| {
                cols.iter()
                    .map(move |c| c.get(k).map_or_else(F::default, |&v| cast(v)))
            }))
        }
    }
}

/// The coordinate columns (of type `I`) of a COO table as one row-major coordinate matrix
/// of type `F`, with the result of strict validation's row scan over it: `Some(increasing)`
/// when every row is in bounds and the scan decided whether the rows strictly increase
/// (ranks 1 to 4), `None` when strict validation must decide (a coordinate out of bounds,
/// or rank 0 or above 4). `F` must hold every size in `shape`: a coordinate that does not
/// fit it is written as the largest size, which is out of bounds, so that the result is
/// `None` (the values then are not the table's: interleave with `F = I` to report them).
pub(super) fn interleave<I: NativeIndex, F: NativeIndex>(
    table: &RecordBatch,
    shape: &[usize],
    it: IndexType,
) -> Result<(Buffer, Option<bool>)> {
    let ndim = shape.len();
    let nnz = table.num_rows();
    let schema = table.schema();
    let mut columns = Vec::with_capacity(ndim);
    for d in 0..shape.len() {
        let field = schema.field(d);
        let array = table.column(d);
        let column = field.name();
        if array.data_type() != &index_data_type(it) {
            return fail(ErrorKind::InvalidColumn {
                column: column.clone(),
                reason: format!(
                    "coordinates of type {}, the first coordinate column has {}",
                    array.data_type(),
                    index_data_type(it)
                ),
            });
        }
        if let Some(row) = first_null(array.as_ref()) {
            return fail(ErrorKind::NullCell {
                column: column.clone(),
                row,
                what: "coordinate",
            });
        }
        let bytes = crate::record_batch::arrays::primitive_bytes(
            array.as_ref(),
            it.byte_width(),
            column,
            "coordinate",
            |i| i,
        )?;
        let col = IndexArray::try_new(it, bytes)?;
        if col.values::<I>().is_none() {
            return fail(ErrorKind::InvalidColumn {
                column: column.clone(),
                reason: "misaligned coordinates".into(),
            });
        }
        columns.push(col);
    }
    let cols: Vec<&[I]> = columns.iter().filter_map(|c| c.values::<I>()).collect();
    let clamp = shape.iter().max().map_or(0, |&d| d as u64);
    let (threads, per) = shares(nnz);
    let scan = (1..=4).contains(&ndim);
    // Share `p` is rows `p * per ..`: its range of the output, in elements.
    let bounds: Vec<usize> = (0..=threads).map(|p| (p * per).min(nnz) * ndim).collect();
    let (out, scans) = fill_parallel_with(
        nnz * ndim,
        &bounds,
        "interleaving the coordinate columns",
        |p, mut w: DenseWriter<'_, F>| {
            let (start, end) = ((p * per).min(nnz), ((p + 1) * per).min(nnz));
            let mine: Vec<&[I]> = cols
                .iter()
                .map(|c| c.get(start..end).unwrap_or_default())
                .collect();
            let r = interleave_and_scan(&mut w, &mine, shape, scan, clamp);
            Ok((w.finish()?, r))
        },
    )?;
    let starts: Vec<usize> = (0..threads).map(|p| (p * per).min(nnz)).collect();
    let mut checked = None;
    if scan && !out.is_empty() {
        let in_bounds = scans.iter().all(|&(b, _)| b);
        // Each share's rows were compared among themselves; the pairs of rows that
        // straddle two shares are compared here.
        let increasing = scans.iter().all(|&(_, inc)| inc)
            && starts.iter().skip(1).all(|&r| {
                out.get((r - 1) * ndim..(r + 1) * ndim)
                    .is_some_and(|pair| kernels::coo_row_major_scan(pair, shape, true).1)
            });
        checked = in_bounds.then_some(increasing);
    }
    Ok((Buffer::from_vec(out), checked))
}

/// Interleaves a share of the coordinate columns into `out` block by block, running
/// strict validation's row scan ([`kernels::coo_row_major_scan`]) on each block just
/// written when `scan`: whether all rows are in bounds and strictly increase.
fn interleave_and_scan<I: NativeIndex, F: NativeIndex>(
    out: &mut DenseWriter<'_, F>,
    cols: &[&[I]],
    shape: &[usize],
    scan: bool,
    clamp: u64,
) -> (bool, bool) {
    let ndim = cols.len();
    if !scan || ndim == 0 {
        interleave_block(out, cols, clamp);
        return (true, true);
    }
    let rows = kernels::coo_block_rows::<F>(ndim);
    let total = out.len() / ndim;
    let (mut in_bounds, mut increasing) = (true, true);
    let mut r0 = 0;
    while r0 < total {
        let r1 = (r0 + rows).min(total);
        let part: Vec<&[I]> = cols
            .iter()
            .map(|c| c.get(r0..r1).unwrap_or_default())
            .collect();
        interleave_block(out, &part, clamp);
        // The block's rows and the pair straddling the block before.
        let from = r0.saturating_sub(1) * ndim;
        let rows = out.written().get(from..r1 * ndim).unwrap_or_default();
        let (b, inc) = kernels::coo_row_major_scan(rows, shape, true);
        in_bounds &= b;
        increasing &= inc;
        r0 = r1;
    }
    (in_bounds, increasing)
}
