//! The entries a text reader collects from a run of lines (0-based coordinates and values,
//! with what deciding the canonical flag needs), and the merge of the runs that several
//! threads parsed, in file order.

use super::value::TextValue;
use crate::types::NativeIndex;

/// The entries parsed from a run of lines.
pub(crate) struct Entries<T, I> {
    /// Coordinates, `ndim` per entry, entry after entry (row-major).
    pub coords: Vec<I>,
    /// Values, one per entry.
    pub values: Vec<T>,
    /// Entry lines parsed (a line and its symmetric mirror count once).
    pub lines: u64,
    /// Whether the entries are strictly increasing in row-major order.
    pub sorted: bool,
    /// The first entry's coordinates (empty while there is none).
    pub first: Vec<u64>,
    /// The last entry's coordinates.
    pub last: Vec<u64>,
    /// The largest coordinate of each dimension.
    pub max: Vec<u64>,
}

impl<T: TextValue, I: NativeIndex> Entries<T, I> {
    /// No entries of rank `ndim`, with room for `capacity`.
    pub fn with_capacity(ndim: usize, capacity: usize) -> Self {
        Entries {
            coords: Vec::with_capacity(capacity.saturating_mul(ndim)),
            values: Vec::with_capacity(capacity),
            lines: 0,
            sorted: true,
            first: Vec::new(),
            last: vec![0; ndim],
            max: vec![0; ndim],
        }
    }

    /// Appends an entry. The caller has checked that every coordinate fits `I`. (Inlined
    /// into the line parsers, where the rank is often a constant.)
    #[inline(always)]
    pub fn push(&mut self, key: &[u64], value: T) {
        if self.values.is_empty() {
            self.first = key.to_vec();
        } else if key <= self.last.as_slice() {
            self.sorted = false;
        }
        for ((m, l), &k) in self.max.iter_mut().zip(self.last.iter_mut()).zip(key) {
            *m = (*m).max(k);
            *l = k;
            self.coords.push(I::from_u64(k).unwrap_or(I::usize_as(0)));
        }
        self.values.push(value);
    }

    /// [`Entries::push`] of an entry of rank `N`, the rank of these entries (the loops over
    /// its coordinates unroll).
    #[inline(always)]
    pub fn push_n<const N: usize>(&mut self, key: &[u64; N], value: T) {
        let (Ok(last), Ok(max)) = (
            <&mut [u64; N]>::try_from(self.last.as_mut_slice()),
            <&mut [u64; N]>::try_from(self.max.as_mut_slice()),
        ) else {
            return self.push(key, value);
        };
        if self.values.is_empty() {
            self.first = key.to_vec();
        } else if *key <= *last {
            self.sorted = false;
        }
        for (m, &k) in max.iter_mut().zip(key) {
            *m = (*m).max(k);
        }
        *last = *key;
        let zero = I::usize_as(0);
        self.coords
            .extend(key.map(|k| I::from_u64(k).unwrap_or(zero)));
        self.values.push(value);
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.values.len()
    }
}

/// The runs of entries joined in order.
pub(crate) struct Merged<T, I> {
    /// Coordinates, `ndim` per entry, row-major.
    pub coords: Vec<I>,
    /// Values.
    pub values: Vec<T>,
    /// Whether the entries are strictly increasing in row-major order.
    pub canonical: bool,
    /// The largest coordinate of each dimension (zeros when there is no entry).
    #[cfg_attr(not(feature = "frostt"), allow(dead_code))] // FROSTT's shape, when not given
    pub max: Vec<u64>,
}

/// Joins runs of rank `ndim` in order: the entries are canonical when every run is sorted
/// and each run's first entry follows the last entry of the runs before it.
pub(crate) fn merge<T: TextValue, I: NativeIndex>(
    ndim: usize,
    parts: Vec<Entries<T, I>>,
) -> Merged<T, I> {
    let mut max = vec![0u64; ndim];
    let mut canonical = true;
    let mut last: Option<&[u64]> = None;
    for c in &parts {
        if c.values.is_empty() {
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
    let (coords, values) = concat(parts, |c| (c.coords, c.values));
    Merged {
        coords,
        values,
        canonical,
        max,
    }
}

/// Joins the coordinate and value vectors of the chunks, in order: the first chunk's
/// vectors grow to hold the others (a large allocation grows in place where the allocator
/// can remap it), so only the later chunks are copied.
pub(crate) fn concat<C, T: Copy, I: Copy>(
    parts: Vec<C>,
    split: impl Fn(C) -> (Vec<I>, Vec<T>),
) -> (Vec<I>, Vec<T>) {
    let mut parts = parts.into_iter().map(split);
    let Some((mut coords, mut values)) = parts.next() else {
        return (Vec::new(), Vec::new());
    };
    let rest: Vec<(Vec<I>, Vec<T>)> = parts.collect();
    coords.reserve_exact(rest.iter().map(|p| p.0.len()).sum());
    values.reserve_exact(rest.iter().map(|p| p.1.len()).sum());
    for (c, v) in rest {
        coords.extend_from_slice(&c);
        values.extend_from_slice(&v);
    }
    (coords, values)
}
