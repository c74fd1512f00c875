//! Runs of plain entry lines: the shape nearly every line of a large file has,
//! `c1 c2 .. cN value\n` with one space between fields and coordinates of at most 7 digits.
//! The text readers parse a run of such lines first, each coordinate from one 8-byte word
//! and each field's end tested once, and only then check and store the whole run, so that
//! the parse loop carries nothing but positions and the store loop calls nothing out of
//! line. A line of any other shape ends the run and goes to the format's line-by-line
//! parser, which accepts a plain line with the same fields (or rejects it with the same
//! error), so the path a line takes never changes what a read gives.

use super::entries::{Entries, Store};
use super::value::{plain_u64, TextValue};
use crate::types::NativeIndex;

/// The most lines in one run.
pub(crate) const RUN: usize = 64;

/// The fields of a run of plain lines of rank `N`.
pub(crate) struct Run<T, const N: usize> {
    /// Where each line starts.
    pub starts: [usize; RUN],
    /// Each line's coordinates, 0-based (a coordinate `0` wraps around to `u64::MAX`, which
    /// no range check lets through).
    pub keys: [[u64; N]; RUN],
    /// Each line's value.
    pub values: [T; RUN],
    /// The number of lines in the run.
    pub len: usize,
    /// The position after the run.
    pub end: usize,
}

impl<T: TextValue, const N: usize> Run<T, N> {
    /// An empty run at `p`.
    #[inline(always)]
    pub fn new(p: usize) -> Self {
        Run {
            starts: [0; RUN],
            keys: [[0; N]; RUN],
            values: [T::ZERO; RUN],
            len: 0,
            end: p,
        }
    }

    /// Parses the plain lines from the run's start (the line start it was made at), at most
    /// `most` (and [`RUN`]) of them, up to the first line of another shape. Called once per
    /// run: the run is filled in place, not returned, so its buffers are not copied.
    #[inline(always)]
    pub fn parse(&mut self, s: &[u8], most: usize) {
        let mut q = self.end;
        let mut len = 0;
        for ((start, key), value) in self
            .starts
            .iter_mut()
            .zip(&mut self.keys)
            .zip(&mut self.values)
            .take(most)
        {
            let Some((k, v, next)) = plain_line::<T, N>(s, q) else {
                break;
            };
            *start = q;
            *key = k;
            *value = v;
            q = next;
            len += 1;
        }
        self.len = len;
        self.end = q;
    }

    /// The lines' 0-based coordinates and values.
    #[inline(always)]
    pub fn entries(&self) -> (&[[u64; N]], &[T]) {
        (
            self.keys.get(..self.len).unwrap_or_default(),
            self.values.get(..self.len).unwrap_or_default(),
        )
    }

    /// Whether every coordinate of dimension `d` is below `bounds[d]`.
    #[inline(always)]
    pub fn within(&self, bounds: &[u64; N]) -> bool {
        self.entries().0.iter().fold(true, |ok, key| {
            key.iter().zip(bounds).fold(ok, |ok, (&k, &b)| ok & (k < b))
        })
    }

    /// Adds the run's entries to `sink`, a line each, once the run has passed the format's
    /// checks.
    #[inline(always)]
    pub fn add_to<I: NativeIndex, S: Store<T, I>>(&self, sink: &mut Entries<T, I, S>) {
        let (keys, values) = self.entries();
        sink.lines += keys.len() as u64;
        sink.push_run(keys, values);
    }

    /// The lines one by one: where each starts, its 1-based coordinates as written, its
    /// value (for the line-by-line checks, when the run as a whole does not pass them).
    pub fn lines(&self) -> impl Iterator<Item = (usize, [u64; N], T)> + '_ {
        let (keys, values) = self.entries();
        self.starts
            .iter()
            .zip(keys)
            .zip(values)
            .map(|((&start, key), &v)| (start, key.map(|k| k.wrapping_add(1)), v))
    }
}

/// The fields of a plain line of rank `N` at `q`: its 0-based coordinates, its value and the
/// position after its newline. `None` for a line of any other shape.
#[inline(always)]
fn plain_line<T: TextValue, const N: usize>(s: &[u8], q: usize) -> Option<([u64; N], T, usize)> {
    let mut key = [0u64; N];
    let mut q = q;
    for k in &mut key {
        let (v, next) = plain_u64(s, q)?;
        *k = v.wrapping_sub(1);
        q = next;
    }
    let (v, n) = T::parse(s.get(q..)?).ok()?;
    let end = q + n;
    (s.get(end) == Some(&b'\n')).then_some((key, v, end + 1))
}
