//! Sparse to dense: the output is written once, front to back, a block at a time.
//!
//! The row-major linear offset of every stored value is computed from the index (loops
//! generic over the index types only, a block of offsets at a time). The output is then
//! produced block by block: a block is zero-filled at the end of the output vector and
//! its values written into it while it is in cache. Layouts whose values come in
//! row-major order (canonical COO, CSR, CSF with the identity axis order) feed the blocks
//! (256 KiB) directly; CSC is merged a band of rows (about 2 MiB) at a time, with a cursor
//! per column; the others (CSF in other orders, non-canonical COO) are first grouped by
//! block (2 MiB) with one counting sort over the stored values. There is no zeroing pass
//! before the writes, and no scattered write across the whole output.

use super::entries::{try_vec, try_with_capacity};
use super::sparse_to_sparse::validated;
use crate::error::{fail, ErrorKind, Result};
use crate::sparse::{typed_index, CompressedAxis, CooOrder, CsxIndex, SparseIndex};
use crate::tensor::{element_count, row_major_strides};
use crate::types::{NativeIndex, NativeValue};
use crate::{SparseTensor, Tensor};
use arrow_buffer::{ArrowNativeType, Buffer};
use std::mem::MaybeUninit;

/// Offsets are produced and consumed this many at a time.
const BLOCK: usize = 4096;

/// Bytes of output zero-filled at a time when the values come in row-major order (the
/// block stays in cache while its values go in).
const FILL_BYTES: usize = 256 * 1024;

/// Bytes of output per group when the values must be grouped first: few enough groups
/// that the grouping writes few streams at once.
const GROUP_BYTES: usize = 2 * 1024 * 1024;

/// Expands to a dense row-major tensor; see [`crate::convert::to_dense`]. `threads` as in
/// [`crate::convert::ConvertOptions::threads`] (used by canonical COO, CSR, CSC and
/// identity-order CSF inputs of at least 2^20 elements).
pub(crate) fn to_dense_limited(
    s: &SparseTensor,
    max_elements: usize,
    threads: usize,
) -> Result<Tensor> {
    let total = element_count(s.shape())
        .ok_or_else(|| ErrorKind::Overflow(format!("element count of shape {:?}", s.shape())))?;
    if total > max_elements {
        return fail(ErrorKind::LimitExceeded {
            what: "dense element count",
            value: total as u64,
            limit: max_elements as u64,
        });
    }
    let Ok(s) = validated(s) else {
        // Index data that breaks a rule: the checked general path reports or tolerates it.
        return s.to_dense_limited(max_elements);
    };
    let w = s.value_type().byte_width();
    match total.checked_mul(w) {
        Some(bytes) if bytes <= isize::MAX as usize => {}
        _ => return fail(ErrorKind::Overflow("dense byte size".into())),
    }
    let (sorted, may_repeat) = match s.index() {
        // Canonical: sorted row-major whatever the matrix layout; else duplicates possible.
        SparseIndex::Coo(c) => (c.is_canonical(), !c.is_canonical()),
        SparseIndex::Csx(c) => (c.axis().dim() == 0, false),
        SparseIndex::Csf(c) => (
            c.axis_order().iter().enumerate().all(|(k, &d)| k == d),
            false,
        ),
    };
    // A power of two, so that block numbers are shifts.
    let block_bytes = if sorted { FILL_BYTES } else { GROUP_BYTES };
    let shift = (block_bytes / w).max(1).ilog2();
    let block = 1usize << shift;
    let data = crate::dispatch_value!(s.value_type(), T => {
        let values = s.values::<T>().unwrap_or_default();
        if let SparseIndex::Csx(c) = s.index() {
            if c.axis() == CompressedAxis::Column {
                let out = csc_to_dense(c, s.shape(), values, threads)?;
                return Tensor::try_new(
                    s.value_type(),
                    s.shape().to_vec(),
                    row_major_strides(s.shape(), w),
                    Buffer::from_vec(out),
                )?
                .with_dim_names(s.dim_names().iter().cloned());
            }
        }
        let parts = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
            n => n,
        };
        if sorted && parts > 1 && total >= PARALLEL_MIN {
            let out = match s.index() {
                SparseIndex::Coo(c) if s.ndim() > 0 && c.order() == CooOrder::RowMajor => {
                    Some(fill_coo_parallel(c, s.shape(), values, total, parts)?)
                }
                _ => fill_nodes_parallel(&s, values, total, parts)?,
            };
            if let Some(out) = out {
                return Tensor::try_new(
                    s.value_type(),
                    s.shape().to_vec(),
                    row_major_strides(s.shape(), w),
                    Buffer::from_vec(out),
                )?
                .with_dim_names(s.dim_names().iter().cloned());
            }
        }
        let mut fill = Fill::<T>::new(total, shift, may_repeat)?;
        if sorted {
            if !fill_sorted_direct(&s, values, &mut fill)? {
                for_each_offset_block(&s, &mut |offsets, first| {
                    fill.put_all(offsets, &values[first..first + offsets.len()]);
                })?;
            }
        } else {
            // Group the values by output block (stable: duplicates keep storage order).
            let blocks = total.div_ceil(block);
            let mut start = try_vec(blocks + 1, 0usize, "block counts")?;
            for_each_offset_block(&s, &mut |offsets, _| {
                for &o in offsets {
                    start[(o >> shift) + 1] += 1;
                }
            })?;
            for b in 0..blocks {
                start[b + 1] += start[b];
            }
            let mut next = start.clone();
            let mut rel = try_vec(values.len(), 0u32, "block offsets")?;
            let mut grouped = try_vec(values.len(), T::ZERO, "grouped values")?;
            for_each_offset_block(&s, &mut |offsets, first| {
                for (&o, &v) in offsets.iter().zip(&values[first..]) {
                    let slot = &mut next[o >> shift];
                    rel[*slot] = (o & (block - 1)) as u32;
                    grouped[*slot] = v;
                    *slot += 1;
                }
            })?;
            for b in 0..blocks {
                let (lo, hi) = (start[b], start[b + 1]);
                fill.put_block(b, &rel[lo..hi], &grouped[lo..hi]);
            }
        }
        Buffer::from_vec(fill.finish())
    });
    Tensor::try_new(
        s.value_type(),
        s.shape().to_vec(),
        row_major_strides(s.shape(), w),
        data,
    )?
    .with_dim_names(s.dim_names().iter().cloned())
}

/// The two most common sorted layouts, row-major COO and CSR, in one loop from index to
/// output (no offsets in between). Returns false for the other layouts.
fn fill_sorted_direct<T: NativeValue>(
    s: &SparseTensor,
    values: &[T],
    fill: &mut Fill<T>,
) -> Result<bool> {
    let shape = s.shape();
    match s.index() {
        SparseIndex::Coo(c) if c.order() == CooOrder::RowMajor && s.ndim() > 0 => {
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
            Ok(true)
        }
        SparseIndex::Csx(c) if c.axis() == CompressedAxis::Row => {
            let ncols = shape[1];
            let starts: Vec<usize> = crate::dispatch_index!(c.indptr().index_type(), P => {
                typed_index::<P>(c.indptr())?.iter().map(|p| p.as_usize()).collect()
            });
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
            Ok(true)
        }
        SparseIndex::Csf(c) => {
            // Sorted means the identity axis order: the leaves come row-major.
            let (parents, starts) = csf_parents(c, shape)?;
            let idx_type = crate::sparse::csf::common_type(c.indices());
            crate::dispatch_index!(idx_type, I => {
                let leaves = c.indices().last().map(typed_index::<I>).transpose()?.unwrap_or_default();
                for (w, &base) in starts.windows(2).zip(&parents) {
                    let (a, b) = (w[0], w[1]);
                    fill.put_rows(leaves[a..b].chunks_exact(1), &values[a..b], |j| {
                        base + j[0].as_usize()
                    });
                }
            });
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Dense outputs of at least this many elements are filled by several threads (CSC).
const PARALLEL_MIN: usize = 1 << 20;

/// CSR and identity-order CSF on several threads: the nodes of the level above the leaves
/// (CSR: the rows) come in row-major order, each owning the output from its base to the
/// next node's base, so the output splits at node boundaries into one range per thread.
/// `None` for the other layouts.
fn fill_nodes_parallel<T: NativeValue>(
    s: &SparseTensor,
    values: &[T],
    total: usize,
    parts: usize,
) -> Result<Option<Vec<T>>> {
    let shape = s.shape();
    let (parents, starts, leaves) = match s.index() {
        SparseIndex::Csx(c) if c.axis() == CompressedAxis::Row => {
            let ncols = shape[1];
            let starts: Vec<usize> = crate::dispatch_index!(c.indptr().index_type(), P => {
                typed_index::<P>(c.indptr())?.iter().map(|p| p.as_usize()).collect()
            });
            let parents: Vec<usize> = (0..shape[0]).map(|r| r * ncols).collect();
            (parents, starts, c.indices())
        }
        SparseIndex::Csf(c) if c.axis_order().iter().enumerate().all(|(k, &d)| k == d) => {
            let (parents, starts) = csf_parents(c, shape)?;
            match c.indices().last() {
                Some(leaves) => (parents, starts, leaves),
                None => return Ok(None),
            }
        }
        _ => return Ok(None),
    };
    let nodes = parents.len();
    let parts = parts.clamp(1, nodes.max(1));
    // Output boundaries at the bases of the first node of every part.
    let first = |p: usize| nodes * p / parts;
    let bounds: Vec<usize> = (0..=parts)
        .map(|p| match p {
            0 => 0,
            p if p == parts => total,
            p => parents[first(p)],
        })
        .collect();
    let out = crate::dispatch_index!(leaves.index_type(), I => {
        let leaves = typed_index::<I>(leaves)?;
        let (parents, starts, bounds) = (&parents, &starts, &bounds);
        fill_parallel(total, bounds, |p, chunk| {
            let lo = bounds[p];
            let mut fill = SortedFill::new(chunk);
            for n in first(p)..first(p + 1) {
                let base = parents[n] - lo;
                let (a, b) = (starts[n], starts[n + 1]);
                for (j, &v) in leaves[a..b].iter().zip(&values[a..b]) {
                    fill.put(base + j.as_usize(), v);
                }
            }
            fill.finish();
        })?
    });
    Ok(Some(out))
}

/// Canonical (row-major, no duplicates) COO on several threads: the output splits into
/// equal ranges, each taking the entries whose offsets fall in it (found by binary search:
/// the offsets increase).
fn fill_coo_parallel<T: NativeValue>(
    c: &crate::sparse::CooIndex,
    shape: &[usize],
    values: &[T],
    total: usize,
    parts: usize,
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
        fill_parallel(total, bounds, |p, chunk| {
            let lo = bounds[p];
            let mut fill = SortedFill::new(chunk);
            let (a, b) = (entries[p], entries[p + 1]);
            for (k, &v) in (a..b).zip(&values[a..b]) {
                fill.put(offset(k) - lo, v);
            }
            fill.finish();
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

/// Fills a dense output of `total` elements on up to `bounds.len() - 1` threads: part `p`
/// is the output range `bounds[p]..bounds[p + 1]` (`bounds` increase from 0 to `total`),
/// handed to `job` uninitialised. `job` must write every element of its part.
///
/// Each thread zeroes only what it fills, when it fills it (while the memory is in its
/// cache), so no thread zeroes the whole output first: an allocator that reuses memory
/// zeroes a `vec![0; n]` on the calling thread, which took half the time of a two-thread
/// CSC expansion (4096 x 4096 float64: 28.9 ms with it, 19.3 ms without).
fn fill_parallel<T: NativeValue>(
    total: usize,
    bounds: &[usize],
    job: impl Fn(usize, &mut [MaybeUninit<T>]) + Sync,
) -> Result<Vec<T>> {
    let mut out = try_with_capacity::<T>(total, "the dense output")?;
    let parts = bounds.len().saturating_sub(1);
    let mut chunks = Vec::with_capacity(parts);
    let mut rest = &mut out.spare_capacity_mut()[..total];
    for p in 0..parts {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(bounds[p + 1] - bounds[p]);
        chunks.push((p, head));
        rest = tail;
    }
    // Ranges handed out from a queue: a thread that cannot be had leaves its share to the
    // others (the calling thread works too).
    let queue = std::sync::Mutex::new(chunks);
    let work = || {
        let mut done = 0;
        loop {
            let next = queue.lock().ok().and_then(|mut q| q.pop());
            let Some((p, chunk)) = next else { break done };
            job(p, chunk);
            done += chunk.len();
        }
    };
    let filled: usize = std::thread::scope(|sc| {
        let others: Vec<_> = (1..parts)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(sc, work).ok())
            .collect();
        let mine = work();
        others
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .sum::<usize>()
            + mine
    });
    if filled != total {
        // Some range was never handed out (a poisoned queue): nothing half-written escapes.
        return fail(ErrorKind::InvalidArgument(
            "a thread filling the dense output did not finish".into(),
        ));
    }
    // SAFETY: the ranges partition the first `total` elements of the spare capacity
    // (`total <= capacity`: reserved above); every range was handed to `job`, which wrote
    // all of its elements (`filled == total` counts the finished ranges), so the first
    // `total` elements are initialised. Tested by tests/convert.rs
    // `threads_do_not_change_results` (every layout, 0, 2, 3 and 7 threads).
    #[allow(unsafe_code)]
    unsafe {
        out.set_len(total)
    };
    Ok(out)
}

/// Writes values at increasing offsets of an uninitialised range, zeroing it a block ahead
/// of the writes; [`SortedFill::finish`] zeroes the rest.
struct SortedFill<'a, T> {
    out: &'a mut [MaybeUninit<T>],
    zeroed: usize,
    ahead: usize,
}

impl<'a, T: NativeValue> SortedFill<'a, T> {
    fn new(out: &'a mut [MaybeUninit<T>]) -> Self {
        let ahead = (FILL_BYTES / std::mem::size_of::<T>().max(1)).max(1);
        SortedFill {
            out,
            zeroed: 0,
            ahead,
        }
    }

    /// Writes `v` at `o` (greater than every offset written before).
    #[inline(always)]
    fn put(&mut self, o: usize, v: T) {
        if o >= self.zeroed {
            let end = (o + 1).max(self.zeroed + self.ahead).min(self.out.len());
            self.out[self.zeroed..end].fill(MaybeUninit::new(T::ZERO));
            self.zeroed = end;
        }
        self.out[o].write(v);
    }

    /// Zeroes what is left: every element is then written.
    fn finish(self) {
        self.out[self.zeroed..].fill(MaybeUninit::new(T::ZERO));
    }
}

/// CSC to row-major. The rows are split into one range per thread; each range is written a
/// band of rows (about `GROUP_BYTES` of output) at a time, taking from every column the
/// entries that fall in the band (a cursor per column: the columns are merged rather than
/// sorted).
fn csc_to_dense<T: NativeValue>(
    c: &CsxIndex,
    shape: &[usize],
    values: &[T],
    threads: usize,
) -> Result<Vec<T>> {
    let (nrows, ncols) = (shape[0], shape[1]);
    let total = nrows * ncols;
    let colptr: Vec<usize> = crate::dispatch_index!(c.indptr().index_type(), P => {
        typed_index::<P>(c.indptr())?.iter().map(|p| p.as_usize()).collect()
    });
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
        n => n,
    };
    let parts = if total >= PARALLEL_MIN {
        threads.clamp(1, nrows)
    } else {
        1
    };
    let rows_per = nrows.div_ceil(parts.max(1));
    let band = (GROUP_BYTES / std::mem::size_of::<T>().max(1) / ncols.max(1)).max(1);
    let mut out = try_with_capacity::<T>(total, "the dense output")?;
    crate::dispatch_index!(c.indices().index_type(), I => {
        let indices = typed_index::<I>(c.indices())?;
        if parts <= 1 {
            // One thread: the output grows a zero-filled band at a time.
            let mut cursor = colptr.clone();
            let mut r0 = 0;
            while r0 < nrows {
                let r1 = (r0 + band).min(nrows);
                out.resize(r1 * ncols, T::ZERO);
                let seg = &mut out[r0 * ncols..];
                csc_band(indices, &colptr, &mut cursor, values, r0..r1, ncols, seg);
                r0 = r1;
            }
            return Ok(out);
        }
        // Several: each thread zeroes and fills its own rows.
        let colptr = &colptr;
        let bounds: Vec<usize> = (0..=parts).map(|p| (p * rows_per).min(nrows) * ncols).collect();
        out = fill_parallel(total, &bounds, |p, chunk| {
            let first = p * rows_per;
            let rows = first..first + chunk.len() / ncols;
            csc_rows(indices, colptr, values, rows, ncols, band, chunk);
        })?;
    });
    Ok(out)
}

/// Writes rows `rows` of a CSC matrix into `out` (those rows, row-major, uninitialised),
/// `band` rows at a time: every element of `out` is written.
fn csc_rows<T: NativeValue, I: NativeIndex>(
    indices: &[I],
    colptr: &[usize],
    values: &[T],
    rows: std::ops::Range<usize>,
    ncols: usize,
    band: usize,
    out: &mut [MaybeUninit<T>],
) {
    // Every column's first entry at or below the first row (a column's rows are sorted).
    let mut cursor: Vec<usize> = colptr
        .windows(2)
        .map(|w| w[0] + indices[w[0]..w[1]].partition_point(|r| r.as_usize() < rows.start))
        .collect();
    let mut r0 = rows.start;
    while r0 < rows.end {
        let r1 = (r0 + band).min(rows.end);
        let seg = &mut out[(r0 - rows.start) * ncols..(r1 - rows.start) * ncols];
        // Zeroing the band also brings it into the cache before the scattered writes.
        seg.fill(MaybeUninit::new(T::ZERO));
        csc_band(indices, colptr, &mut cursor, values, r0..r1, ncols, seg);
        r0 = r1;
    }
}

/// Writes the entries of rows `rows` into `seg` (which starts at row `rows.start`),
/// advancing every column's cursor past them.
#[inline]
fn csc_band<T: NativeValue, I: NativeIndex>(
    indices: &[I],
    colptr: &[usize],
    cursor: &mut [usize],
    values: &[T],
    rows: std::ops::Range<usize>,
    ncols: usize,
    seg: &mut [impl Slot<T>],
) {
    for (col, (k, &end)) in cursor.iter_mut().zip(&colptr[1..]).enumerate() {
        while *k < end {
            let r = indices[*k].as_usize();
            if r >= rows.end {
                break;
            }
            seg[(r - rows.start) * ncols + col].put(values[*k]);
            *k += 1;
        }
    }
}

/// An output element: a value, or one not yet initialised.
trait Slot<T> {
    fn put(&mut self, v: T);
}

impl<T> Slot<T> for T {
    #[inline(always)]
    fn put(&mut self, v: T) {
        *self = v;
    }
}

impl<T> Slot<T> for MaybeUninit<T> {
    #[inline(always)]
    fn put(&mut self, v: T) {
        self.write(v);
    }
}

/// The output under construction: zero-filled a block at a time as values arrive in
/// increasing block order (any order within a block).
struct Fill<T> {
    out: Vec<T>,
    total: usize,
    /// Blocks hold `1 << shift` elements.
    shift: u32,
    /// For inputs that may repeat a coordinate: which elements hold a value already.
    seen: Option<Vec<u64>>,
}

impl<T: NativeValue> Fill<T> {
    fn new(total: usize, shift: u32, may_repeat: bool) -> Result<Self> {
        let seen = if may_repeat {
            Some(try_vec(total.div_ceil(64), 0u64, "a seen bitmap")?)
        } else {
            None
        };
        Ok(Fill {
            out: try_with_capacity(total, "the dense output")?,
            total,
            shift,
            seen,
        })
    }

    /// Zero-fills the output through the block holding element `o`.
    #[inline]
    fn reach(&mut self, o: usize) {
        if o >= self.out.len() {
            let end = ((o >> self.shift) + 1) << self.shift;
            self.out.resize(end.min(self.total), T::ZERO);
        }
    }

    /// Writes `values` at the non-decreasing `offsets`.
    fn put_all(&mut self, offsets: &[usize], values: &[T]) {
        if self.seen.is_some() {
            for (&o, &v) in offsets.iter().zip(values) {
                self.put(o, v);
            }
            return;
        }
        let mut i = 0;
        while let Some(&o) = offsets.get(i) {
            self.reach(o);
            // Every offset below the zero-filled length goes in without further checks.
            let out = self.out.as_mut_slice();
            let len = out.len();
            for (&o, &v) in offsets[i..].iter().zip(&values[i..]) {
                if o >= len {
                    break;
                }
                out[o] = v;
                i += 1;
            }
        }
    }

    /// Writes `values` at the non-decreasing offsets `offset(row)` of `rows` (no repeats).
    #[inline]
    fn put_rows<'a, I: 'a>(
        &mut self,
        rows: impl Iterator<Item = &'a [I]>,
        values: &[T],
        offset: impl Fn(&[I]) -> usize,
    ) {
        let mut len = self.out.len();
        for (row, &v) in rows.zip(values) {
            let o = offset(row);
            if o >= len {
                self.reach(o);
                len = self.out.len();
            }
            self.out[o] = v;
        }
    }

    /// Writes `values` at offsets `rel` (any order) within block `b`.
    fn put_block(&mut self, b: usize, rel: &[u32], values: &[T]) {
        let Some(&first) = rel.first() else {
            return;
        };
        let base = b << self.shift;
        self.reach(base + first as usize);
        if self.seen.is_some() {
            for (&r, &v) in rel.iter().zip(values) {
                self.put(base + r as usize, v);
            }
            return;
        }
        let out = &mut self.out[base..];
        for (&r, &v) in rel.iter().zip(values) {
            out[r as usize] = v;
        }
    }

    /// Writes one value, summing it into one already written at the same offset.
    #[inline]
    fn put(&mut self, o: usize, v: T) {
        self.reach(o);
        match &mut self.seen {
            None => self.out[o] = v,
            Some(seen) => {
                let (word, bit) = (o / 64, 1u64 << (o % 64));
                let slot = &mut self.out[o];
                *slot = if seen[word] & bit != 0 {
                    slot.combine(v)
                } else {
                    v
                };
                seen[word] |= bit;
            }
        }
    }

    fn finish(mut self) -> Vec<T> {
        self.out.resize(self.total, T::ZERO);
        self.out
    }
}

/// The row-major offsets of the nodes of the level above the leaves, and (as `usize`) the
/// indptr array that gives each of them its leaves.
fn csf_parents(c: &crate::CsfIndex, shape: &[usize]) -> Result<(Vec<usize>, Vec<usize>)> {
    let rs = row_major_strides(shape, 1);
    let ndim = shape.len();
    let order = c.axis_order();
    let ptr_type = crate::sparse::csf::common_type(c.indptr());
    let idx_type = crate::sparse::csf::common_type(c.indices());
    crate::dispatch_index!(ptr_type, P => crate::dispatch_index!(idx_type, I => {
        let ptrs: Vec<&[P]> = c.indptr().iter().map(typed_index::<P>).collect::<Result<_>>()?;
        let idxs: Vec<&[I]> = c.indices().iter().map(typed_index::<I>).collect::<Result<_>>()?;
        // Offsets of the nodes of each level above the leaves, top down.
        let mut parents: Vec<usize> =
            idxs[0].iter().map(|&v| v.as_usize() * rs[order[0]]).collect();
        for level in 1..ndim - 1 {
            let st = rs[order[level]];
            let mut nodes = try_with_capacity(idxs[level].len(), "CSF node offsets")?;
            for (w, &base) in ptrs[level - 1].windows(2).zip(&parents) {
                let children = &idxs[level][w[0].as_usize()..w[1].as_usize()];
                nodes.extend(children.iter().map(|&v| base + v.as_usize() * st));
            }
            parents = nodes;
        }
        let starts = ptrs[ndim - 2].iter().map(|p| p.as_usize()).collect();
        Ok((parents, starts))
    }))
}

/// Calls `f(offsets, first)` with the row-major linear offsets of the stored values
/// `first..first + offsets.len()`, block by block, in storage order.
fn for_each_offset_block(s: &SparseTensor, f: &mut dyn FnMut(&[usize], usize)) -> Result<()> {
    let shape = s.shape();
    let rs = row_major_strides(shape, 1);
    let mut block: Vec<usize> = Vec::with_capacity(BLOCK);
    match s.index() {
        SparseIndex::Coo(c) => {
            let (n, nnz) = (s.ndim(), s.nnz());
            if n == 0 {
                // Rank 0: every stored value is the single element.
                let zeros = vec![0usize; nnz.min(BLOCK)];
                let mut first = 0;
                while first < nnz {
                    let len = (nnz - first).min(BLOCK);
                    f(&zeros[..len], first);
                    first += len;
                }
                return Ok(());
            }
            crate::dispatch_index!(c.indices().index_type(), I => {
                let src = typed_index::<I>(c.indices())?;
                match c.order() {
                    CooOrder::RowMajor => {
                        for (b, rows) in src.chunks(BLOCK * n).enumerate() {
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
                            f(&block, b * BLOCK);
                        }
                    }
                    CooOrder::ColumnMajor => {
                        let mut first = 0;
                        while first < nnz {
                            let len = (nnz - first).min(BLOCK);
                            block.clear();
                            block.resize(len, 0);
                            for (d, &st) in rs.iter().enumerate() {
                                let column = &src[d * nnz + first..d * nnz + first + len];
                                for (o, &v) in block.iter_mut().zip(column) {
                                    *o += v.as_usize() * st;
                                }
                            }
                            f(&block, first);
                            first += len;
                        }
                    }
                }
            });
        }
        SparseIndex::Csx(c) => {
            let ncols = shape[1];
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
                            if block.len() == BLOCK {
                                f(&block, first);
                                first += BLOCK;
                                block.clear();
                            }
                        }
                    }
                    f(&block, first);
                })
            });
        }
        SparseIndex::Csf(c) => {
            let (parents, starts) = csf_parents(c, shape)?;
            let st = rs[c.axis_order()[s.ndim() - 1]];
            let idx_type = crate::sparse::csf::common_type(c.indices());
            crate::dispatch_index!(idx_type, I => {
                let leaves = c.indices().last().map(typed_index::<I>).transpose()?.unwrap_or_default();
                let mut first = 0;
                for (w, &base) in starts.windows(2).zip(&parents) {
                    for &v in &leaves[w[0]..w[1]] {
                        block.push(base + v.as_usize() * st);
                        if block.len() == BLOCK {
                            f(&block, first);
                            first += BLOCK;
                            block.clear();
                        }
                    }
                }
                f(&block, first);
            });
        }
    }
    Ok(())
}
