//! The coordinate columns of a COO table interleaved into one row-major coordinate matrix,
//! on several threads for large tables, with strict validation's row scan run on each block
//! while it is in cache.

use super::scan::{scan_columns, ColumnBounds};
use super::shares;
use crate::error::{fail, ErrorKind, Result};
use crate::parallel::fill::{fill_parallel_with, DenseWriter};
use crate::record_batch::arrays::{first_null, index_data_type};
use crate::validate::kernels;
use crate::{IndexArray, IndexType, NativeIndex};
use arrow_array::{Array, RecordBatch};
use arrow_buffer::Buffer;

/// Appends a block of coordinate columns to `out` as rows of a row-major coordinate matrix
/// of type `F`: the values as they are when the types agree or the block is known to be in
/// bounds (`clamp` is `None`: `F` holds every coordinate then), else each coordinate above
/// `clamp` (negative ones included) written as `clamp`.
#[inline(always)]
fn interleave_block<I: NativeIndex, F: NativeIndex>(
    out: &mut DenseWriter<'_, F>,
    cols: &[&[I]],
    clamp: Option<u64>,
) {
    let Some(clamp) = clamp.filter(|_| I::TYPE != F::TYPE) else {
        interleave_with(out, cols, |v: I| F::usize_as(v.as_usize()));
        return;
    };
    interleave_with(out, cols, |v: I| {
        F::usize_as((v.as_index() as u64).min(clamp) as usize)
    });
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
    interleave_on::<I, F>(table, shape, it, crate::parallel::wide::enabled())
}

/// [`interleave`], with the AVX-512 loops ([`crate::parallel::wide`]) allowed when `wide`.
fn interleave_on<I: NativeIndex, F: NativeIndex>(
    table: &RecordBatch,
    shape: &[usize],
    it: IndexType,
    wide: bool,
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
            let r = crate::parallel::wide::run(
                wide,
                #[inline(always)]
                || interleave_and_scan(&mut w, &mine, shape, scan, clamp),
            );
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

/// Rows per block of [`interleave_and_scan`]: the block's columns and its part of the
/// output stay in L1 between the scan and the interleaving.
const BLOCK_ROWS: usize = 2048;

/// Interleaves a share of the coordinate columns into `out` block by block; when `scan`
/// (ranks 1 to 4), it first runs strict validation's row scan on each block's columns
/// ([`scan_columns`]): whether all rows are in bounds and strictly increase, as
/// [`kernels::coo_row_major_scan`] decides them on the interleaved rows.
#[inline(always)]
fn interleave_and_scan<I: NativeIndex, F: NativeIndex>(
    out: &mut DenseWriter<'_, F>,
    cols: &[&[I]],
    shape: &[usize],
    scan: bool,
    clamp: u64,
) -> (bool, bool) {
    match (scan, cols) {
        (true, &[a]) => scan_blocks(out, [a], shape, clamp),
        (true, &[a, b]) => scan_blocks(out, [a, b], shape, clamp),
        (true, &[a, b, c]) => scan_blocks(out, [a, b, c], shape, clamp),
        (true, &[a, b, c, d]) => scan_blocks(out, [a, b, c, d], shape, clamp),
        _ => {
            interleave_block(out, cols, Some(clamp));
            (true, true)
        }
    }
}

/// [`interleave_and_scan`] for rank `N`: each block's columns are scanned, then
/// interleaved into `out`, while they are in cache.
#[inline(always)]
fn scan_blocks<I: NativeIndex, F: NativeIndex, const N: usize>(
    out: &mut DenseWriter<'_, F>,
    cols: [&[I]; N],
    shape: &[usize],
    clamp: u64,
) -> (bool, bool) {
    let rows = cols.iter().map(|c| c.len()).min().unwrap_or(0);
    let bounds = ColumnBounds::<I, N>::new(shape);
    let (mut in_bounds, mut increasing) = (true, bounds.ordered);
    let mut r0 = 0;
    while r0 < rows {
        let r1 = (r0 + BLOCK_ROWS).min(rows);
        // The block's rows, and the pair straddling the block before.
        let block = cols.map(|c| c.get(r0..r1).unwrap_or_default());
        let from = r0.saturating_sub(1);
        let (b, inc) = scan_columns(
            &bounds,
            block,
            cols.map(|c| c.get(from..r1).unwrap_or_default()),
        );
        in_bounds &= b;
        increasing &= inc;
        // A block in bounds fits `F` as it is.
        interleave_block(out, &block, (!b).then_some(clamp));
        r0 = r1;
    }
    (in_bounds, increasing)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::interleave_on;
    use crate::{IndexType, NativeIndex};
    use arrow_array::{ArrayRef, Int16Array, RecordBatch};
    use std::sync::Arc;

    /// What the interleaving must give, by definition: the rows (of `F`, each coordinate
    /// above the largest size, or negative, written as that size unless the types agree),
    /// and `Some(increasing)` exactly when there are rows and every coordinate lies inside
    /// the shape.
    fn by_definition<F: NativeIndex>(cols: &[Vec<i16>], shape: &[usize]) -> (Vec<F>, Option<bool>) {
        let rows = cols.first().map_or(0, Vec::len);
        let clamp = shape.iter().max().map_or(0, |&d| d as i64);
        let row = |i: usize| -> Vec<i16> { cols.iter().map(|c| c[i]).collect() };
        let mut out = Vec::new();
        for i in 0..rows {
            for v in row(i) {
                let v = if F::TYPE == IndexType::Int16 || (0..=clamp).contains(&i64::from(v)) {
                    i64::from(v)
                } else {
                    clamp
                };
                out.push(F::usize_as(v as usize));
            }
        }
        let in_bounds = (0..rows).all(|i| {
            row(i)
                .iter()
                .zip(shape)
                .all(|(&v, &d)| v >= 0 && (v as usize) < d)
        });
        let increasing = (1..rows).all(|i| row(i - 1) < row(i));
        (out, (rows > 0 && in_bounds).then_some(increasing))
    }

    fn table(cols: &[Vec<i16>]) -> RecordBatch {
        let arrays: Vec<(String, ArrayRef)> = cols
            .iter()
            .enumerate()
            .map(|(d, c)| {
                let a: ArrayRef = Arc::new(Int16Array::from(c.clone()));
                (format!("dim_{d}"), a)
            })
            .collect();
        RecordBatch::try_from_iter(arrays).unwrap()
    }

    fn check<F: NativeIndex>(cols: &[Vec<i16>], shape: &[usize]) {
        let (want, want_checked) = by_definition::<F>(cols, shape);
        // Both the loops compiled for AVX-512 (where the CPU has it) and the plain ones.
        for wide in [true, false] {
            let (buffer, checked) =
                interleave_on::<i16, F>(&table(cols), shape, IndexType::Int16, wide).unwrap();
            assert_eq!(checked, want_checked, "shape {shape:?}, wide {wide}");
            assert_eq!(buffer.typed_data::<F>(), want.as_slice(), "shape {shape:?}");
        }
    }

    /// Rows in row-major order (strictly increasing, repeated or swapped now and then) and
    /// coordinates pushed outside the shape, across blocks and thread shares, against the
    /// definition.
    #[test]
    fn the_column_scan_agrees_with_its_definition() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m.max(1)
        };
        let mut cases: Vec<(usize, usize)> = (0..300).map(|k| (k % 4 + 1, 0)).collect();
        cases.push((3, 300_000));
        cases.push((2, 300_000));
        for (ndim, big) in cases {
            let shape: Vec<usize> = if big > 0 {
                vec![if ndim == 2 { 1000 } else { 100 }; ndim]
            } else {
                (0..ndim)
                    .map(|_| match next(40) {
                        0 => 0,
                        _ => next(5) as usize + 1 + next(2) as usize * 60,
                    })
                    .collect()
            };
            let cells: u64 = shape.iter().map(|&d| d as u64).product();
            let mut rows = if big > 0 {
                big
            } else {
                next(5000) as usize * next(2) as usize
            };
            if next(3) > 0 {
                rows = rows.min(cells as usize);
            }
            // Strictly increasing positions while they fit the shape, then wrapping.
            let stride = (cells / rows.max(1) as u64).max(1);
            let mut cols = vec![Vec::with_capacity(rows); ndim];
            for i in 0..rows as u64 {
                let mut rest = (i * stride + next(stride)) % cells.max(1);
                for d in (0..ndim).rev() {
                    let size = shape[d].max(1) as u64;
                    cols[d].push((rest % size) as i16);
                    rest /= size;
                }
            }
            for _ in 0..next(4) {
                if rows == 0 {
                    break;
                }
                let (d, i) = (next(ndim as u64) as usize, next(rows as u64) as usize);
                cols[d][i] = match next(4) {
                    0 => -1 - next(3) as i16,
                    1 => shape[d] as i16 + next(3) as i16,
                    2 => i16::MAX,
                    _ => cols[d][(i + 1) % rows],
                };
            }
            check::<i16>(&cols, &shape);
            check::<i32>(&cols, &shape);
            // A row repeated across a block's edge, or across the thread shares' edge.
            for edge in [super::BLOCK_ROWS, rows / 2] {
                if edge > 0 && edge < rows {
                    let mut repeated = cols.clone();
                    for c in &mut repeated {
                        c[edge] = c[edge - 1];
                    }
                    check::<i32>(&repeated, &shape);
                }
            }
            if shape.iter().all(|&d| d <= 127) {
                check::<i8>(&cols, &shape);
            }
        }
    }
}
