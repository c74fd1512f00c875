//! The two ways an output is written front to back: [`Fill`], a whole output grown a
//! zero-filled block at a time on one thread, and [`SortedFill`], one range of a parallel
//! fill zeroed a block ahead of its writes. Also the grouping of unsorted values by block.

use super::{for_each_offset_block, Tuning};
use crate::error::Result;
use crate::parallel::alloc::{try_vec, try_with_capacity};
use crate::parallel::fill::{DenseWriter, Filled};
use crate::types::NativeValue;
use crate::SparseTensor;

/// The output under construction: zero-filled a block at a time as values arrive in
/// increasing block order (any order within a block).
pub(super) struct Fill<T> {
    out: Vec<T>,
    total: usize,
    /// Blocks hold `1 << shift` elements.
    shift: u32,
    /// For inputs that may repeat a coordinate: which elements hold a value already.
    seen: Option<Vec<u64>>,
}

impl<T: NativeValue> Fill<T> {
    /// An empty output of `total` elements in blocks of `1 << shift`; `may_repeat` when an
    /// offset may come more than once (its values are then summed).
    pub(super) fn new(total: usize, shift: u32, may_repeat: bool) -> Result<Self> {
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
    pub(super) fn put_all(&mut self, offsets: &[usize], values: &[T]) {
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
    pub(super) fn put_rows<'a, I: 'a>(
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
    pub(super) fn put_block(&mut self, b: usize, rel: &[u32], values: &[T]) {
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

    /// The whole output, zeroed past the last block written.
    pub(super) fn finish(mut self) -> Vec<T> {
        self.out.resize(self.total, T::ZERO);
        self.out
    }
}

/// Writes the values of `s` into `fill` in any storage order: groups them by output block
/// first (one counting sort; stable, so duplicates keep storage order), then writes the
/// blocks in order.
pub(super) fn put_grouped<T: NativeValue>(
    s: &SparseTensor,
    values: &[T],
    fill: &mut Fill<T>,
    total: usize,
    t: &Tuning,
) -> Result<()> {
    let shift = fill.shift;
    let block = 1usize << shift;
    let blocks = total.div_ceil(block);
    let mut start = try_vec(blocks + 1, 0usize, "block counts")?;
    for_each_offset_block(s, t, &mut |offsets, _| {
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
    for_each_offset_block(s, t, &mut |offsets, first| {
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
    Ok(())
}

/// Writes values at increasing offsets of one range of a parallel fill, zeroing it a
/// block ahead of the writes; [`SortedFill::finish`] zeroes the rest.
pub(super) struct SortedFill<'a, T> {
    out: DenseWriter<'a, T>,
    /// Elements zeroed at a time.
    ahead: usize,
}

impl<'a, T: NativeValue> SortedFill<'a, T> {
    /// A fill of `out` that zeroes `fill_bytes` at a time.
    pub(super) fn new(out: DenseWriter<'a, T>, fill_bytes: usize) -> Self {
        let ahead = (fill_bytes / std::mem::size_of::<T>().max(1)).max(1);
        SortedFill { out, ahead }
    }

    /// Writes `v` at `o` (greater than every offset written before).
    #[inline(always)]
    pub(super) fn put(&mut self, o: usize, v: T) {
        let zeroed = self.out.initialised();
        if o >= zeroed {
            self.out.fill_to((o + 1).max(zeroed + self.ahead), T::ZERO);
        }
        self.out.set(o, v);
    }

    /// Zeroes what is left, so that every element is written, and returns the proof.
    pub(super) fn finish(mut self) -> Result<Filled<'a>> {
        self.out.fill_to(self.out.len(), T::ZERO);
        self.out.finish()
    }
}
