//! CSR and CSC to dense: the linear offsets of the stored values, the direct fill of CSR,
//! and CSC merged into the row-major output a band of rows at a time.

use super::fill::Fill;
use super::Tuning;
use crate::error::Result;
use crate::parallel::alloc::try_with_capacity;
use crate::parallel::fill::{fill_parallel, DenseWriter, Filled};
use crate::parallel::thread_count;
use crate::sparse::{typed_index, CsxIndex};
use crate::types::{NativeIndex, NativeValue};
use arrow_buffer::ArrowNativeType;

/// The indptr array as `usize`.
pub(super) fn indptr(c: &CsxIndex) -> Result<Vec<usize>> {
    Ok(crate::dispatch_index!(c.indptr().index_type(), P => {
        typed_index::<P>(c.indptr())?.iter().map(|p| p.as_usize()).collect()
    }))
}

/// Calls `f(offsets, first)` with the row-major linear offsets of the stored values
/// `first..first + offsets.len()` of the `ncols`-column matrix `c`, at most `step` at a
/// time, in storage order; `block` is the buffer for them.
pub(super) fn offsets(
    c: &CsxIndex,
    ncols: usize,
    step: usize,
    block: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize], usize),
) -> Result<()> {
    let row_major = c.axis().dim() == 0;
    crate::dispatch_index!(c.indptr().index_type(), P => {
        let indptr = typed_index::<P>(c.indptr())?;
        crate::dispatch_index!(c.indices().index_type(), I => {
            let indices = typed_index::<I>(c.indices())?;
            let mut first = 0;
            for (r, w) in indptr.windows(2).enumerate() {
                let (a, b) = (w[0].as_usize(), w[1].as_usize());
                for &j in &indices[a..b] {
                    let j = j.as_usize();
                    block.push(if row_major { r * ncols + j } else { j * ncols + r });
                    if block.len() == step {
                        f(block, first);
                        first += step;
                        block.clear();
                    }
                }
            }
            f(block, first);
        })
    });
    Ok(())
}

/// CSR of `ncols` columns in one loop from index to output, a row at a time.
pub(super) fn put_csr<T: NativeValue>(
    c: &CsxIndex,
    ncols: usize,
    values: &[T],
    fill: &mut Fill<T>,
) -> Result<()> {
    let starts = indptr(c)?;
    crate::dispatch_index!(c.indices().index_type(), I => {
        let indices = typed_index::<I>(c.indices())?;
        for (r, w) in starts.windows(2).enumerate() {
            let base = r * ncols;
            let (a, b) = (w[0], w[1]);
            fill.put_rows(indices[a..b].chunks_exact(1), &values[a..b], |j| {
                base + j[0].as_usize()
            });
        }
    });
    Ok(())
}

/// CSC to row-major. The rows are split into one range per thread; each range is written a
/// band of rows (about `t.group_bytes` of output) at a time, taking from every column the
/// entries that fall in the band (a cursor per column: the columns are merged rather than
/// sorted).
pub(super) fn csc_to_dense<T: NativeValue>(
    c: &CsxIndex,
    shape: &[usize],
    values: &[T],
    threads: usize,
    t: &Tuning,
) -> Result<Vec<T>> {
    let (nrows, ncols) = (shape[0], shape[1]);
    let total = nrows * ncols;
    let colptr = indptr(c)?;
    let parts = if total >= t.parallel_min {
        thread_count(threads).clamp(1, nrows.max(1))
    } else {
        1
    };
    let rows_per = nrows.div_ceil(parts.max(1));
    let band = (t.group_bytes / std::mem::size_of::<T>().max(1) / ncols.max(1)).max(1);
    crate::dispatch_index!(c.indices().index_type(), I => {
        let indices = typed_index::<I>(c.indices())?;
        if parts <= 1 {
            // One thread: the output grows a zero-filled band at a time.
            let mut out = try_with_capacity::<T>(total, "the dense output")?;
            let mut cursor = colptr.clone();
            let mut r0 = 0;
            while r0 < nrows {
                let r1 = (r0 + band).min(nrows);
                out.resize(r1 * ncols, T::ZERO);
                let seg = &mut out[r0 * ncols..];
                csc_band(indices, &colptr, &mut cursor, values, r0..r1, ncols, move |i, v| {
                    seg[i] = v;
                });
                r0 = r1;
            }
            return Ok(out);
        }
        // Several: each thread zeroes and fills its own rows.
        let colptr = &colptr;
        let bounds: Vec<usize> = (0..=parts).map(|p| (p * rows_per).min(nrows) * ncols).collect();
        fill_parallel(total, &bounds, |p, out| {
            let rows = (p * rows_per).min(nrows)..((p + 1) * rows_per).min(nrows);
            csc_rows(indices, colptr, values, rows, ncols, band, out)
        })
    })
}

/// Writes rows `rows` of a CSC matrix into `out` (those rows, row-major), `band` rows at a
/// time: every element of `out` is written.
fn csc_rows<'a, T: NativeValue, I: NativeIndex>(
    indices: &[I],
    colptr: &[usize],
    values: &[T],
    rows: std::ops::Range<usize>,
    ncols: usize,
    band: usize,
    mut out: DenseWriter<'a, T>,
) -> Result<Filled<'a>> {
    // Every column's first entry at or below the first row (a column's rows are sorted).
    let mut cursor: Vec<usize> = colptr
        .windows(2)
        .map(|w| w[0] + indices[w[0]..w[1]].partition_point(|r| r.as_usize() < rows.start))
        .collect();
    let mut r0 = rows.start;
    while r0 < rows.end {
        let r1 = (r0 + band).min(rows.end);
        let (lo, hi) = ((r0 - rows.start) * ncols, (r1 - rows.start) * ncols);
        // Zeroing the band also brings it into the cache before the scattered writes.
        out.fill_to(hi, T::ZERO);
        let mut seg = out.initialised_mut(lo..hi);
        csc_band(
            indices,
            colptr,
            &mut cursor,
            values,
            r0..r1,
            ncols,
            move |i, v| {
                seg.set(i, v);
            },
        );
        r0 = r1;
    }
    out.finish()
}

/// Calls `put(i, value)` for the entries of rows `rows`, `i` counting row-major from the
/// start of row `rows.start`, advancing every column's cursor past them.
#[inline]
fn csc_band<T: NativeValue, I: NativeIndex>(
    indices: &[I],
    colptr: &[usize],
    cursor: &mut [usize],
    values: &[T],
    rows: std::ops::Range<usize>,
    ncols: usize,
    mut put: impl FnMut(usize, T),
) {
    for (col, (k, &end)) in cursor.iter_mut().zip(&colptr[1..]).enumerate() {
        while *k < end {
            let r = indices[*k].as_usize();
            if r >= rows.end {
                break;
            }
            put((r - rows.start) * ncols + col, values[*k]);
            *k += 1;
        }
    }
}
