//! COO to dense: the linear offsets of the coordinate rows (row- or column-major matrix),
//! the direct fill of a canonical row-major matrix, and its split between threads.

use super::fill::{Fill, SortedFill};
use super::Tuning;
use crate::error::Result;
use crate::parallel::fill::fill_parallel;
use crate::sparse::{typed_index, CooIndex, CooOrder};
use crate::tensor::row_major_strides;
use crate::types::NativeValue;
use arrow_buffer::ArrowNativeType;

/// Calls `f(offsets, first)` with the row-major linear offsets of the stored values
/// `first..first + offsets.len()` of `c` (shape `shape`, `nnz` stored values), at most
/// `t.offsets` at a time, in storage order; `block` is the buffer for them.
pub(super) fn offsets(
    c: &CooIndex,
    shape: &[usize],
    nnz: usize,
    t: &Tuning,
    block: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize], usize),
) -> Result<()> {
    let n = shape.len();
    let step = t.offsets;
    if n == 0 {
        // Rank 0: every stored value is the single element.
        let zeros = vec![0usize; nnz.min(step)];
        let mut first = 0;
        while first < nnz {
            let len = (nnz - first).min(step);
            f(&zeros[..len], first);
            first += len;
        }
        return Ok(());
    }
    let rs = row_major_strides(shape, 1);
    crate::dispatch_index!(c.indices().index_type(), I => {
        let src = typed_index::<I>(c.indices())?;
        match c.order() {
            CooOrder::RowMajor => {
                for (b, rows) in src.chunks(step * n).enumerate() {
                    block.clear();
                    match n {
                        2 => block.extend(rows.chunks_exact(2).map(|r| {
                            r[0].as_usize() * rs[0] + r[1].as_usize()
                        })),
                        3 => block.extend(rows.chunks_exact(3).map(|r| {
                            r[0].as_usize() * rs[0] + r[1].as_usize() * rs[1] + r[2].as_usize()
                        })),
                        _ => block.extend(rows.chunks_exact(n).map(|row| {
                            row.iter().zip(&rs).map(|(&v, &st)| v.as_usize() * st).sum::<usize>()
                        })),
                    }
                    f(block, b * step);
                }
            }
            CooOrder::ColumnMajor => {
                let mut first = 0;
                while first < nnz {
                    let len = (nnz - first).min(step);
                    block.clear();
                    block.resize(len, 0);
                    for (d, &st) in rs.iter().enumerate() {
                        let column = &src[d * nnz + first..d * nnz + first + len];
                        for (o, &v) in block.iter_mut().zip(column) {
                            *o += v.as_usize() * st;
                        }
                    }
                    f(block, first);
                    first += len;
                }
            }
        }
    });
    Ok(())
}

/// A sorted (canonical) row-major coordinate matrix of rank 1 or more, in one loop from
/// index to output (no offsets in between).
pub(super) fn put_sorted<T: NativeValue>(
    c: &CooIndex,
    shape: &[usize],
    values: &[T],
    fill: &mut Fill<T>,
) -> Result<()> {
    let rs = row_major_strides(shape, 1);
    crate::dispatch_index!(c.indices().index_type(), I => {
        let src = typed_index::<I>(c.indices())?;
        match *rs.as_slice() {
            [_] => fill.put_rows(src.chunks_exact(1), values, |r| r[0].as_usize()),
            [s0, _] => fill.put_rows(src.chunks_exact(2), values, |r| {
                r[0].as_usize() * s0 + r[1].as_usize()
            }),
            [s0, s1, _] => fill.put_rows(src.chunks_exact(3), values, |r| {
                r[0].as_usize() * s0 + r[1].as_usize() * s1 + r[2].as_usize()
            }),
            _ => fill.put_rows(src.chunks_exact(rs.len()), values, |r| {
                r.iter().zip(&rs).map(|(&v, &st)| v.as_usize() * st).sum()
            }),
        }
    });
    Ok(())
}

/// Canonical (row-major, no duplicates) COO of rank 1 or more on several threads: the
/// output splits into `parts` equal ranges, each taking the entries whose offsets fall in
/// it (found by binary search: the offsets increase).
pub(super) fn fill_sorted_parallel<T: NativeValue>(
    c: &CooIndex,
    shape: &[usize],
    values: &[T],
    total: usize,
    parts: usize,
    t: &Tuning,
) -> Result<Vec<T>> {
    let rs = row_major_strides(shape, 1);
    let nd = shape.len();
    let bounds: Vec<usize> = (0..=parts).map(|p| total * p / parts).collect();
    crate::dispatch_index!(c.indices().index_type(), I => {
        let coords = typed_index::<I>(c.indices())?;
        let rs = &rs;
        let offset = move |k: usize| -> usize {
            let r = &coords[k * nd..(k + 1) * nd];
            match *rs.as_slice() {
                [s0, _] => r[0].as_usize() * s0 + r[1].as_usize(),
                [s0, s1, _] => r[0].as_usize() * s0 + r[1].as_usize() * s1 + r[2].as_usize(),
                _ => r.iter().zip(rs).map(|(&v, &st)| v.as_usize() * st).sum(),
            }
        };
        let nnz = values.len();
        let entries: Vec<usize> = bounds
            .iter()
            .map(|&lo| partition_point(nnz, |k| offset(k) < lo))
            .collect();
        let (bounds, entries) = (&bounds, &entries);
        fill_parallel(total, bounds, |p, out| {
            let lo = bounds[p];
            let mut fill = SortedFill::new(out, t.fill_bytes);
            let (a, b) = (entries[p], entries[p + 1]);
            for (k, &v) in (a..b).zip(&values[a..b]) {
                fill.put(offset(k) - lo, v);
            }
            fill.finish()
        })
    })
}

/// The first `k` in `0..n` for which `pred(k)` is false (`pred` true then false).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
