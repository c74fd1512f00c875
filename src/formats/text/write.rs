//! Writing text lines in parallel: blocks of entries formatted on several threads, written
//! in order; the COO entry lines both text formats write.

use super::resolve_threads;
use super::value::TextValue;
use crate::error::ErrorKind;
use std::ops::Range;

/// Writes `pieces` of work formatted in parallel: `count` items are split into rounds of
/// `threads` blocks of `block` items, each block formatted by `format(range, buffer)` on a
/// thread of its own, then the round's buffers are written to `out` in order. Compiled
/// once: the writer and the formatter are called through references to trait objects, a
/// call per block.
pub(crate) fn write_parallel(
    out: &mut dyn std::io::Write,
    count: usize,
    threads: usize,
    block: usize,
    format: &(dyn Fn(Range<usize>, &mut Vec<u8>) + Sync),
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
            std::thread::scope(|scope| {
                for (buf, r) in buffers.iter_mut().zip(&ranges) {
                    let r = r.clone();
                    scope.spawn(move || {
                        // Formatted into a vector owned by the thread: the buffers' headers
                        // share a cache line, which every append would otherwise write.
                        let mut own = std::mem::take(buf);
                        own.clear();
                        format(r, &mut own);
                        *buf = own;
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
pub(crate) fn write_coo_lines(
    out: &mut dyn std::io::Write,
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
    let idx = coo.indices();
    crate::dispatch_value!(tensor.value_type(), T => {
        let values = tensor.values::<T>().unwrap_or_default();
        write_parallel(out, nnz, threads, WRITE_BLOCK, &|range, buf| {
            buf.reserve(range.len() * (ndim * 8 + 24));
            // A few thousand entries at a time: their coordinates as `i64`, row after
            // row (in a buffer that stays in cache), then their lines.
            let mut coords = Vec::with_capacity(GATHER * ndim);
            let mut start = range.start;
            while start < range.end {
                let part = start..(start + GATHER).min(range.end);
                block_coords(idx, nnz, ndim, order, part.clone(), &mut coords);
                format_coo::<T>(&coords, values, ndim, part.clone(), buf);
                start = part.end;
            }
        })
    })
}

/// Entries whose coordinates [`block_coords`] gathers at a time.
const GATHER: usize = 2048;

/// Replaces `out` with the coordinates of entries `range` of a COO index as `i64`, `ndim`
/// per entry, entry after entry (compiled per index type; the formatting per value type).
fn block_coords(
    idx: &crate::IndexArray,
    nnz: usize,
    ndim: usize,
    order: crate::CooOrder,
    range: Range<usize>,
    out: &mut Vec<i64>,
) {
    out.clear();
    crate::dispatch_index!(idx.index_type(), I => {
        let idx = idx.values::<I>().unwrap_or_default();
        for i in range {
            for d in 0..ndim {
                let slot = match order {
                    crate::CooOrder::RowMajor => i * ndim + d,
                    crate::CooOrder::ColumnMajor => d * nnz + i,
                };
                out.push(idx.get(slot).map_or(0, |v| crate::types::NativeIndex::as_index(*v)));
            }
        }
    })
}

/// Formats entries `range` of a COO matrix (see [`write_coo_lines`]), whose coordinates
/// [`block_coords`] gathered into `coords`, into `buf`.
fn format_coo<T: TextValue>(
    coords: &[i64],
    values: &[T],
    ndim: usize,
    range: Range<usize>,
    buf: &mut Vec<u8>,
) {
    for (k, i) in range.enumerate() {
        let row = coords.get(k * ndim..(k + 1) * ndim).unwrap_or_default();
        for &c in row {
            match u64::try_from(c.wrapping_add(1)) {
                Ok(c) => push_decimal(buf, c, b' '),
                // (Negative only in a tensor never validated: written as it is.)
                Err(_) => {
                    buf.extend_from_slice(itoa::Buffer::new().format(c.wrapping_add(1)).as_bytes());
                    buf.push(b' ');
                }
            }
        }
        values.get(i).copied().unwrap_or(T::ZERO).write(buf);
        buf.push(b'\n');
    }
}

/// Appends `v` in decimal, then `sep`. Numbers below 10^8 (every coordinate of all but
/// the largest tensors) take a path without branches: their eight digits computed at once,
/// the leading zeros shifted out, and one 16-byte word appended and cut back to the
/// number's length (no data-dependent branch to mispredict, no copy of unknown length).
#[inline(always)]
pub(crate) fn push_decimal(out: &mut Vec<u8>, v: u64, sep: u8) {
    let len = v.checked_ilog10().map_or(1, |l| l as usize + 1);
    let end = out.len() + len + 1;
    if v < 100_000_000 {
        let (hi, lo) = ((v / 10_000) as u32, (v % 10_000) as u32);
        let digits = [
            hi / 1000,
            hi / 100 % 10,
            hi / 10 % 10,
            hi % 10,
            lo / 1000,
            lo / 100 % 10,
            lo / 10 % 10,
            lo % 10,
        ];
        // The digits as text, most significant first (in the lowest byte).
        let text = digits
            .iter()
            .rev()
            .fold(0u64, |w, &d| (w << 8) | u64::from(b'0' + d as u8));
        // Without the 8 - len leading zeros, then the separator.
        let word = u128::from(text >> (8 * (8 - len))) | (u128::from(sep) << (8 * len));
        out.extend_from_slice(&word.to_le_bytes());
    } else {
        // u64::MAX has 20 digits; the separator follows the last.
        let mut digits = [sep; 24];
        let mut x = v;
        for slot in digits.iter_mut().take(len).rev() {
            *slot = b'0' + (x % 10) as u8;
            x /= 10;
        }
        out.extend_from_slice(&digits);
    }
    out.truncate(end);
}

#[cfg(test)]
mod tests {
    use super::push_decimal;

    #[test]
    fn push_decimal_writes_the_number_and_the_separator() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut cases = vec![
            0,
            1,
            9,
            10,
            99,
            100,
            999_999,
            1_000_000,
            99_999_999,
            100_000_000,
            u64::MAX,
        ];
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push(x >> (x % 64));
        }
        for v in cases {
            let mut out = b"ab".to_vec();
            push_decimal(&mut out, v, b' ');
            assert_eq!(out, format!("ab{v} ").into_bytes());
        }
    }
}
