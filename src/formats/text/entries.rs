//! The entries a text reader collects from a run of lines (0-based coordinates and values,
//! with what deciding the canonical flag needs), where they are stored ([`Store`]: vectors
//! of their own, or a run's ranges of one shared output), and the verdict on the runs that
//! several threads parsed, in file order.

use super::value::TextValue;
use crate::parallel::fill::{DenseWriter, Prefix};
use crate::types::NativeIndex;
use std::marker::PhantomData;

/// Where a run's coordinates and values go.
pub(crate) trait Store<T, I> {
    /// Appends an entry of rank `N`; false (the store left as it was or partly written)
    /// when there is no room.
    fn push_n<const N: usize>(&mut self, coords: [I; N], value: T) -> bool;
    /// Appends an entry of any rank; false when there is no room.
    fn push(&mut self, coords: impl Iterator<Item = I>, value: T) -> bool;
    /// Appends `n` entries of rank `N`, their coordinates and values in order; false (the
    /// store left as it was) when there is no room for all of them.
    fn push_rows<const N: usize>(
        &mut self,
        n: usize,
        coords: impl Iterator<Item = [I; N]>,
        values: impl Iterator<Item = T>,
    ) -> bool;
    /// The number of entries stored.
    fn len(&self) -> usize;
}

/// Entries in vectors of their own (the batches of the chunked readers).
pub(crate) struct Columns<T, I> {
    /// Coordinates, `ndim` per entry, entry after entry (row-major).
    pub coords: Vec<I>,
    /// Values, one per entry.
    pub values: Vec<T>,
}

impl<T, I> Store<T, I> for Columns<T, I> {
    #[inline(always)]
    fn push_n<const N: usize>(&mut self, coords: [I; N], value: T) -> bool {
        self.coords.extend(coords);
        self.values.push(value);
        true
    }

    #[inline]
    fn push(&mut self, coords: impl Iterator<Item = I>, value: T) -> bool {
        self.coords.extend(coords);
        self.values.push(value);
        true
    }

    #[inline(always)]
    fn push_rows<const N: usize>(
        &mut self,
        _n: usize,
        coords: impl Iterator<Item = [I; N]>,
        values: impl Iterator<Item = T>,
    ) -> bool {
        self.coords.extend(coords.flatten());
        self.values.extend(values);
        true
    }

    fn len(&self) -> usize {
        self.values.len()
    }
}

/// Entries written into one part's ranges of the shared outputs of a whole-file read
/// ([`crate::parallel::fill::fill_parallel_pair`]).
pub(crate) struct Ranges<'a, T, I> {
    /// The part's range of the coordinates.
    pub coords: DenseWriter<'a, I>,
    /// The part's range of the values.
    pub values: DenseWriter<'a, T>,
}

impl<'a, T: Copy, I: Copy> Ranges<'a, T, I> {
    /// The proofs of what the part wrote, coordinates then values.
    pub fn finish(self) -> (Prefix<'a>, Prefix<'a>) {
        (self.coords.finish_prefix(), self.values.finish_prefix())
    }
}

impl<T: Copy, I: Copy> Store<T, I> for Ranges<'_, T, I> {
    #[inline(always)]
    fn push_n<const N: usize>(&mut self, coords: [I; N], value: T) -> bool {
        self.coords.push_row(coords) && self.values.push(value)
    }

    #[inline]
    fn push(&mut self, mut coords: impl Iterator<Item = I>, value: T) -> bool {
        coords.all(|c| self.coords.push(c)) && self.values.push(value)
    }

    #[inline(always)]
    fn push_rows<const N: usize>(
        &mut self,
        n: usize,
        coords: impl Iterator<Item = [I; N]>,
        values: impl Iterator<Item = T>,
    ) -> bool {
        let fits = |w: usize, len: usize, initialised: usize| {
            n.checked_mul(w)
                .is_some_and(|need| need <= len.saturating_sub(initialised))
        };
        if !fits(N, self.coords.len(), self.coords.initialised())
            || !fits(1, self.values.len(), self.values.initialised())
        {
            return false;
        }
        self.coords.extend_rows(coords);
        self.values.extend(values);
        true
    }

    fn len(&self) -> usize {
        self.values.initialised()
    }
}

/// The entries parsed from a run of lines, and what is known of their order.
pub(crate) struct Entries<T, I, S = Columns<T, I>> {
    /// Where the coordinates and values are.
    pub store: S,
    /// Entry lines parsed (a line and its symmetric mirror count once).
    pub lines: u64,
    /// Whether the entries are strictly increasing in row-major order.
    pub sorted: bool,
    /// Whether an entry found the store full (which the readers size so that it cannot).
    pub overflow: bool,
    /// The first entry's coordinates (empty while there is none).
    pub first: Vec<u64>,
    /// The last entry's coordinates.
    pub last: Vec<u64>,
    /// The largest coordinate of each dimension.
    pub max: Vec<u64>,
    entries: PhantomData<fn() -> (T, I)>,
}

impl<T: TextValue, I: NativeIndex> Entries<T, I> {
    /// No entries of rank `ndim`, in vectors with room for `capacity`.
    pub fn with_capacity(ndim: usize, capacity: usize) -> Self {
        Entries::new(
            ndim,
            Columns {
                coords: Vec::with_capacity(capacity.saturating_mul(ndim)),
                values: Vec::with_capacity(capacity),
            },
        )
    }
}

impl<T: TextValue, I: NativeIndex, S: Store<T, I>> Entries<T, I, S> {
    /// No entries of rank `ndim`, to go to `store`.
    pub fn new(ndim: usize, store: S) -> Self {
        Entries {
            store,
            lines: 0,
            sorted: true,
            overflow: false,
            first: Vec::new(),
            last: vec![0; ndim],
            max: vec![0; ndim],
            entries: PhantomData,
        }
    }

    /// Appends an entry. The caller has checked that every coordinate fits `I`. (Inlined
    /// into the line parsers, where the rank is often a constant.)
    #[inline(always)]
    pub fn push(&mut self, key: &[u64], value: T) {
        if self.store.len() == 0 {
            self.first = key.to_vec();
        } else if key <= self.last.as_slice() {
            self.sorted = false;
        }
        for ((m, l), &k) in self.max.iter_mut().zip(self.last.iter_mut()).zip(key) {
            *m = (*m).max(k);
            *l = k;
        }
        let zero = I::usize_as(0);
        let coords = key.iter().map(|&k| I::from_u64(k).unwrap_or(zero));
        if !self.store.push(coords, value) {
            self.overflow = true;
        }
    }

    /// [`Entries::push`] of an entry of rank `N`, the rank of these entries (the loops over
    /// its coordinates unroll).
    #[inline(always)]
    pub fn push_n<const N: usize>(&mut self, key: [u64; N], value: T) {
        if !self.track(std::slice::from_ref(&key)) {
            return self.push(&key, value);
        }
        let zero = I::usize_as(0);
        if !self
            .store
            .push_n(key.map(|k| I::from_u64(k).unwrap_or(zero)), value)
        {
            self.overflow = true;
        }
    }

    /// [`Entries::push_n`] of a run of entries, in order: `keys` and `values` pair up.
    #[inline(always)]
    pub fn push_run<const N: usize>(&mut self, keys: &[[u64; N]], values: &[T]) {
        if !self.track(keys) {
            for (k, &v) in keys.iter().zip(values) {
                self.push(k, v);
            }
            return;
        }
        let zero = I::usize_as(0);
        let coords = keys
            .iter()
            .map(|k| k.map(|c| I::from_u64(c).unwrap_or(zero)));
        if !self
            .store
            .push_rows(keys.len(), coords, values.iter().copied())
        {
            self.overflow = true;
        }
    }

    /// Takes the keys of rank `N` about to be stored, in order, into what is known of the
    /// entries (the first key, the order, the last key, the largest coordinates), worked out
    /// over the whole slice with the running state in locals. False (nothing taken) when
    /// these entries are not of rank `N`.
    #[inline(always)]
    fn track<const N: usize>(&mut self, keys: &[[u64; N]]) -> bool {
        let (Ok(last), Ok(max)) = (
            <&mut [u64; N]>::try_from(self.last.as_mut_slice()),
            <&mut [u64; N]>::try_from(self.max.as_mut_slice()),
        ) else {
            return false;
        };
        let (Some(first), Some(end)) = (keys.first(), keys.last()) else {
            return true;
        };
        // The key each one must follow: the last one stored, or for the first entry of
        // all, itself (and so it is not compared).
        let empty = self.store.len() == 0;
        let mut prev = if empty { *first } else { *last };
        if empty {
            self.first = first.to_vec();
        }
        let mut sorted = self.sorted;
        let mut top = *max;
        for (i, k) in keys.iter().enumerate() {
            sorted &= (empty && i == 0) | follows(k, &prev);
            prev = *k;
            for (m, &c) in top.iter_mut().zip(k) {
                *m = (*m).max(c);
            }
        }
        self.sorted = sorted;
        *max = top;
        *last = *end;
        true
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// What the verdict on several runs needs of this one.
    pub fn summary(&self) -> Summary {
        Summary {
            len: self.len(),
            lines: self.lines,
            sorted: self.sorted,
            first: self.first.clone(),
            last: self.last.clone(),
            max: self.max.clone(),
        }
    }
}

/// Whether `key` comes strictly after `last` in row-major order, computed without a
/// branch on the comparison (in a file of unordered entries it is as likely true as
/// false, so a branch on it would be mispredicted at every other line).
#[inline(always)]
fn follows<const N: usize>(key: &[u64; N], last: &[u64; N]) -> bool {
    let mut after = false;
    for (&k, &l) in key.iter().zip(last).rev() {
        after = (k > l) | ((k == l) & after);
    }
    after
}

/// What is known of a run of entries once parsed: how many, and their order.
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    /// Entries.
    pub len: usize,
    /// Entry lines.
    pub lines: u64,
    /// Whether the entries are strictly increasing in row-major order.
    pub sorted: bool,
    /// The first entry's coordinates.
    pub first: Vec<u64>,
    /// The last entry's coordinates.
    pub last: Vec<u64>,
    /// The largest coordinate of each dimension.
    pub max: Vec<u64>,
}

/// The runs of a file, parsed into one pair of outputs.
pub(crate) struct Merged<T, I> {
    /// Coordinates, `ndim` per entry, row-major.
    pub coords: Vec<I>,
    /// Values.
    pub values: Vec<T>,
    /// Entry lines parsed.
    #[cfg_attr(not(feature = "matrix-market"), allow(dead_code))] // checked against the header
    pub lines: u64,
    /// Whether the entries are strictly increasing in row-major order.
    pub canonical: bool,
    /// The largest coordinate of each dimension (zeros when there is no entry).
    #[cfg_attr(not(feature = "frostt"), allow(dead_code))] // FROSTT's shape, when not given
    pub max: Vec<u64>,
}

/// The verdict on runs of rank `ndim` in file order: the entries are canonical when every
/// run is sorted and each run's first entry follows the last entry of the runs before it.
/// Returns the canonical flag, the largest coordinate of each dimension and the entry
/// lines.
pub(crate) fn verdict(ndim: usize, runs: &[Summary]) -> (bool, Vec<u64>, u64) {
    let mut max = vec![0u64; ndim];
    let mut canonical = true;
    let mut last: Option<&[u64]> = None;
    let mut lines = 0;
    for c in runs {
        lines += c.lines;
        if c.len == 0 {
            continue;
        }
        canonical &= c.sorted;
        if let Some(l) = last {
            canonical &= l < c.first.as_slice();
        }
        last = Some(&c.last);
        for (m, &x) in max.iter_mut().zip(&c.max) {
            *m = (*m).max(x);
        }
    }
    (canonical, max, lines)
}

#[cfg(test)]
mod tests {
    use super::follows;

    /// `follows` is the strict row-major order on keys of ranks 1 to 3, equal keys included.
    #[test]
    fn follows_is_strict_row_major_order() {
        let values = [0u64, 1, 2, u64::MAX];
        let mut keys3: Vec<[u64; 3]> = Vec::new();
        for &a in &values {
            for &b in &values {
                for &c in &values {
                    keys3.push([a, b, c]);
                }
            }
        }
        for k in &keys3 {
            for l in &keys3 {
                assert_eq!(follows(k, l), k > l, "{k:?} after {l:?}");
                let (k2, l2) = ([k[0], k[1]], [l[0], l[1]]);
                assert_eq!(follows(&k2, &l2), k2 > l2, "{k2:?} after {l2:?}");
                assert_eq!(follows(&[k[0]], &[l[0]]), k[0] > l[0]);
            }
        }
    }
}
