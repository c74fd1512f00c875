//! Writing text lines in parallel: blocks of entries formatted on several threads, written
//! in order; the COO entry lines both text formats write.

use super::resolve_threads;
use super::value::TextValue;
use crate::error::ErrorKind;
use std::ops::Range;

/// Writes `pieces` of work formatted in parallel: `count` items are split into rounds of
/// `threads` blocks of `block` items, each block formatted by `format(range, buffer)` on a
/// thread of its own, then the round's buffers are written to `out` in order.
pub(crate) fn write_parallel<W: std::io::Write>(
    out: &mut W,
    count: usize,
    threads: usize,
    block: usize,
    format: impl Fn(Range<usize>, &mut Vec<u8>) + Sync,
) -> crate::Result<()> {
    let threads = resolve_threads(threads).max(1);
    let block = block.max(1);
    let mut buffers: Vec<Vec<u8>> = (0..threads).map(|_| Vec::new()).collect();
    let mut start = 0usize;
    while start < count {
        let ranges: Vec<Range<usize>> = (0..threads)
            .map(|k| {
                let a = start.saturating_add(k.saturating_mul(block)).min(count);
                a..a.saturating_add(block).min(count)
            })
            .filter(|r| !r.is_empty())
            .collect();
        let used = ranges.len();
        if used == 1 {
            if let (Some(buf), Some(r)) = (buffers.first_mut(), ranges.first()) {
                buf.clear();
                format(r.clone(), buf);
            }
        } else {
            let format = &format;
            std::thread::scope(|scope| {
                for (buf, r) in buffers.iter_mut().zip(&ranges) {
                    let r = r.clone();
                    scope.spawn(move || {
                        buf.clear();
                        format(r, buf);
                    });
                }
            });
        }
        for buf in buffers.iter().take(used) {
            out.write_all(buf).map_err(ErrorKind::Io)?;
        }
        start = ranges.last().map_or(count, |r| r.end);
    }
    Ok(())
}

/// Entries per block of the parallel writers.
pub(crate) const WRITE_BLOCK: usize = 1 << 17;

/// Writes every stored entry of a COO tensor, in storage order, one line each: the 1-based
/// coordinates then the value, separated by spaces. `threads` blocks are formatted at once.
pub(crate) fn write_coo_lines<W: std::io::Write>(
    out: &mut W,
    tensor: &crate::SparseTensor,
    threads: usize,
) -> crate::Result<()> {
    let crate::SparseIndex::Coo(coo) = tensor.index() else {
        return Err(ErrorKind::UnsupportedLayout {
            operation: "the entry lines of a text file",
            expected: "a COO tensor",
            found: format!("{:?}", tensor.format()),
        }
        .into());
    };
    let (nnz, ndim, order) = (coo.nnz(), coo.ndim(), coo.order());
    crate::dispatch_value!(tensor.value_type(), T => {
        crate::dispatch_index!(coo.indices().index_type(), I => {
            let values = tensor.values::<T>().unwrap_or_default();
            let idx = coo.indices().values::<I>().unwrap_or_default();
            write_parallel(out, nnz, threads, WRITE_BLOCK, |range, buf| {
                format_coo::<T, I>(idx, values, nnz, ndim, order, range, buf)
            })
        })
    })
}

/// Formats entries `range` of a COO matrix (see [`write_coo_lines`]) into `buf`.
fn format_coo<T: TextValue, I: crate::NativeIndex>(
    idx: &[I],
    values: &[T],
    nnz: usize,
    ndim: usize,
    order: crate::CooOrder,
    range: Range<usize>,
    buf: &mut Vec<u8>,
) {
    buf.reserve(range.len() * (ndim * 8 + 24));
    let mut ib = itoa::Buffer::new();
    for i in range {
        for d in 0..ndim {
            let slot = match order {
                crate::CooOrder::RowMajor => i * ndim + d,
                crate::CooOrder::ColumnMajor => d * nnz + i,
            };
            let c = idx.get(slot).map_or(0, |v| v.as_index());
            buf.extend_from_slice(ib.format(c.wrapping_add(1)).as_bytes());
            buf.push(b' ');
        }
        values.get(i).copied().unwrap_or(T::ZERO).write(buf);
        buf.push(b'\n');
    }
}
