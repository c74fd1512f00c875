//! One output vector filled by several threads, each writing its own range of the
//! uninitialised memory. This module holds all the `unsafe` code of the outputs filled
//! this way: the dense expansion, and the coordinate matrix interleaved from a COO table's
//! columns ([`crate::record_batch`]).
//!
//! [`fill_parallel`] splits the spare capacity of a new vector into ranges and hands each
//! to a job as a [`DenseWriter`]. A writer keeps an initialised prefix of its range: its
//! methods write whole values only, never expose the uninitialised memory, and never
//! shrink the prefix (a [`Written`] part of the prefix only takes whole values). A job
//! must return the [`Filled`] proof that only [`DenseWriter::finish`] makes, and only when
//! the whole range is initialised; [`fill_parallel`] gives the vector its length once it
//! holds a proof for every range (and matches each proof to its range), so a job that does
//! not fill its range yields an error, never a vector exposing uninitialised memory.
//!
//! [`fill_parallel_pair`] fills two vectors whose ranges need not be filled whole: each
//! job returns a [`Prefix`] proof of how much of its ranges it initialised, and the
//! prefixes are moved together, in part order (the text readers, whose parts hold at most
//! one entry per line but may hold fewer).

use crate::error::{fail, ErrorKind, Result};
use crate::parallel::alloc::try_with_capacity;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

/// What [`ErrorKind::WorkerFailed`] names for [`fill_parallel`].
const JOB: &str = "a dense expansion";

/// Writes one range of an uninitialised output. The first [`DenseWriter::initialised`]
/// elements hold values; the others are uninitialised and cannot be read.
///
/// Only [`fill_parallel`] makes writers, one per range of its output.
pub(crate) struct DenseWriter<'a, T> {
    buf: &'a mut [MaybeUninit<T>],
    /// `buf[..init]` is initialised.
    init: usize,
}

impl<'a, T: Copy> DenseWriter<'a, T> {
    /// A writer over `buf`, nothing initialised yet.
    fn new(buf: &'a mut [MaybeUninit<T>]) -> Self {
        DenseWriter { buf, init: 0 }
    }

    /// Elements in the range.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    /// Elements initialised so far: the range's prefix of this length.
    #[inline(always)]
    pub(crate) fn initialised(&self) -> usize {
        self.init
    }

    /// Writes `v` at every element from [`DenseWriter::initialised`] up to `end` (at most
    /// the length of the range), extending the initialised prefix to `end`. Does nothing
    /// when `end` is within the prefix already.
    #[inline]
    pub(crate) fn fill_to(&mut self, end: usize, v: T) {
        let end = end.min(self.buf.len());
        if let Some(rest) = self.buf.get_mut(self.init..end) {
            rest.fill(MaybeUninit::new(v));
            self.init = end;
        }
    }

    /// Replaces the value at `o`, which must lie in the initialised prefix.
    ///
    /// # Panics
    /// When `o` is not below [`DenseWriter::initialised`].
    #[inline(always)]
    pub(crate) fn set(&mut self, o: usize, v: T) {
        self.buf[..self.init][o] = MaybeUninit::new(v);
    }

    /// Writes `v` after the initialised prefix; false (nothing written) when the range is
    /// full.
    // Used by the text readers only.
    #[cfg_attr(
        not(any(feature = "matrix-market", feature = "frostt")),
        allow(dead_code)
    )]
    #[inline(always)]
    pub(crate) fn push(&mut self, v: T) -> bool {
        match self.buf.get_mut(self.init) {
            Some(slot) => {
                *slot = MaybeUninit::new(v);
                self.init += 1;
                true
            }
            None => false,
        }
    }

    /// Writes the `N` values of `row` after the initialised prefix; false (nothing
    /// written) when the range has no room for all of them.
    // Used by the text readers only.
    #[cfg_attr(
        not(any(feature = "matrix-market", feature = "frostt")),
        allow(dead_code)
    )]
    #[inline(always)]
    pub(crate) fn push_row<const N: usize>(&mut self, row: [T; N]) -> bool {
        let Some(Ok(dst)) = self
            .buf
            .get_mut(self.init..self.init.wrapping_add(N))
            .map(<&mut [MaybeUninit<T>; N]>::try_from)
        else {
            return false;
        };
        *dst = row.map(MaybeUninit::new);
        self.init += N;
        true
    }

    /// Elements `range` of the initialised prefix, to replace values in.
    ///
    /// # Panics
    /// When `range` does not lie within the prefix.
    #[inline]
    pub(crate) fn initialised_mut(&mut self, range: std::ops::Range<usize>) -> Written<'_, T> {
        Written(&mut self.buf[..self.init][range])
    }

    /// The proof that the whole range is initialised, or [`ErrorKind::WorkerFailed`] when
    /// it is not.
    pub(crate) fn finish(self) -> Result<Filled<'a>> {
        if self.init != self.buf.len() {
            return fail(ErrorKind::WorkerFailed { job: JOB });
        }
        Ok(Filled {
            start: self.buf.as_ptr().cast(),
            len: self.buf.len(),
            _range: PhantomData,
        })
    }
}

/// The bulk writes, used by the COO tables and the text readers only.
#[cfg_attr(
    not(any(
        feature = "record-batch",
        feature = "matrix-market",
        feature = "frostt"
    )),
    allow(dead_code)
)]
impl<T: Copy> DenseWriter<'_, T> {
    /// Writes rows of `N` values after the initialised prefix, one after the other, until
    /// `rows` ends or the range has no room for another whole row; extends the prefix by
    /// the rows written.
    #[inline(always)]
    pub(crate) fn extend_rows<const N: usize>(&mut self, rows: impl Iterator<Item = [T; N]>) {
        let Some(tail) = self.buf.get_mut(self.init..) else {
            return;
        };
        let mut written = 0;
        for (dst, row) in tail.chunks_exact_mut(N).zip(rows) {
            for (d, v) in dst.iter_mut().zip(row) {
                *d = MaybeUninit::new(v);
            }
            written += N;
        }
        self.init += written;
    }

    /// Writes `values` after the initialised prefix, one after the other, until they end or
    /// the range is full; extends the prefix by the values written.
    #[inline(always)]
    pub(crate) fn extend(&mut self, values: impl Iterator<Item = T>) {
        let Some(tail) = self.buf.get_mut(self.init..) else {
            return;
        };
        let mut written = 0;
        for (d, v) in tail.iter_mut().zip(values) {
            *d = MaybeUninit::new(v);
            written += 1;
        }
        self.init += written;
    }
}

impl<'a, T> DenseWriter<'a, T> {
    /// The proof of the initialised prefix, however long (for [`fill_parallel_pair`]).
    // Used by the text readers only.
    #[cfg_attr(
        not(any(feature = "matrix-market", feature = "frostt")),
        allow(dead_code)
    )]
    pub(crate) fn finish_prefix(self) -> Prefix<'a> {
        Prefix {
            start: self.buf.as_ptr().cast(),
            len: self.buf.len(),
            init: self.init,
            _range: PhantomData,
        }
    }
}

/// Proof that the first `init` of the `len` elements of the range at `start` are
/// initialised: made only by [`DenseWriter::finish_prefix`]. Its lifetime plays the part
/// of [`Filled`]'s.
// Used by the text readers only.
#[cfg_attr(
    not(any(feature = "matrix-market", feature = "frostt")),
    allow(dead_code)
)]
pub(crate) struct Prefix<'a> {
    start: *const (),
    len: usize,
    init: usize,
    _range: PhantomData<fn(&'a ()) -> &'a ()>,
}

/// A part of a writer's initialised prefix: values can be replaced, never read or
/// uninitialised, so the part stays initialised.
pub(crate) struct Written<'w, T>(&'w mut [MaybeUninit<T>]);

impl<T: Copy> Written<'_, T> {
    /// Replaces the value at `i` (panics when `i` is out of the part).
    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, v: T) {
        self.0[i] = MaybeUninit::new(v);
    }
}

/// Proof that the range of `len` elements at `start` is initialised: made only by
/// [`DenseWriter::finish`] on a writer whose whole range is.
///
/// The lifetime is that of the writer's borrow of the output, and invariant, so a job of
/// [`fill_parallel`] (which must return a `Filled<'a>` for every `'a`) can only return
/// proofs of that call's writers; [`fill_parallel`] also checks that a job's proof names
/// the range it was given.
pub(crate) struct Filled<'a> {
    start: *const (),
    len: usize,
    /// Invariant in `'a`.
    _range: PhantomData<fn(&'a ()) -> &'a ()>,
}

/// Fills a dense output of `total` elements on up to `bounds.len() - 1` threads: part `p`
/// is the output range `bounds[p]..bounds[p + 1]` (`bounds` increase from 0 to `total`),
/// handed to `job(p, writer)`, which returns the writer's [`Filled`] proof (or an error).
///
/// The parts run through [`crate::parallel::run`], one thread per part. Each thread initialises only its
/// own ranges, when it fills them (while the memory is in its cache); no thread zeroes the
/// whole output first.
///
/// Errors: [`ErrorKind::Internal`] for `bounds` that do not increase from 0 to `total`
/// (the crate computes them), [`ErrorKind::AllocationFailed`], the first error a job
/// returns (in part order), and [`ErrorKind::WorkerFailed`] when a range was not filled,
/// a proof does not name its range or a job panicked.
pub(crate) fn fill_parallel<T, F>(total: usize, bounds: &[usize], job: F) -> Result<Vec<T>>
where
    T: Copy + Send,
    F: for<'a> Fn(usize, DenseWriter<'a, T>) -> Result<Filled<'a>> + Sync,
{
    let (out, _) = fill_parallel_with(total, bounds, JOB, |p, w| Ok((job(p, w)?, ())))?;
    Ok(out)
}

/// [`fill_parallel`] whose jobs also return a result each (`R`, given back in part order),
/// with `name` the job that [`ErrorKind::WorkerFailed`] names.
pub(crate) fn fill_parallel_with<T, R, F>(
    total: usize,
    bounds: &[usize],
    name: &'static str,
    job: F,
) -> Result<(Vec<T>, Vec<R>)>
where
    T: Copy + Send,
    R: Send,
    F: for<'a> Fn(usize, DenseWriter<'a, T>) -> Result<(Filled<'a>, R)> + Sync,
{
    fill_typed(total, bounds, name, &job)
}

/// The job of [`fill_parallel_with`], behind a reference.
type FillJob<'j, T, R> =
    &'j (dyn for<'a> Fn(usize, DenseWriter<'a, T>) -> Result<(Filled<'a>, R)> + Sync);

/// [`fill_parallel_with`] with the job behind a reference to a trait object: compiled once
/// per element and result type rather than once per job (a call through it per part).
fn fill_typed<T: Copy + Send, R: Send>(
    total: usize,
    bounds: &[usize],
    name: &'static str,
    job: FillJob<'_, T, R>,
) -> Result<(Vec<T>, Vec<R>)> {
    check_bounds(total, bounds)?;
    let mut out = try_with_capacity::<T>(total, "the dense output")?;
    super::huge_pages::advise(out.spare_capacity_mut());
    let parts = bounds.len() - 1;
    let writers = writers(&mut out, bounds);
    // The number of elements of the part's range, matched to its proof.
    let results = crate::parallel::run(parts, writers, name, |p, writer| -> Result<(usize, R)> {
        let (start, len) = (writer.buf.as_ptr().cast::<()>(), writer.len());
        let (proof, r) = job(p, writer)?;
        if proof.start != start || proof.len != len {
            return fail(ErrorKind::WorkerFailed { job: name });
        }
        Ok((len, r))
    })?;
    let mut filled = 0;
    let mut extra = Vec::with_capacity(parts);
    for r in results {
        let (len, r) = r?;
        filled += len;
        extra.push(r);
    }
    if filled != total {
        // Unreachable: every part returned its range's length.
        return fail(ErrorKind::WorkerFailed { job: name });
    }
    // SAFETY: the writers' ranges partition the first `total` elements of the spare
    // capacity (`bounds` increase from 0 to `total`, checked above; `total <= capacity`).
    // A range counts towards `filled` only when its job returned a `Filled` proof naming
    // the range (same start and length); a proof comes only from `DenseWriter::finish` on a
    // writer whose whole range is initialised (its methods write whole values and never
    // shrink the initialised prefix), and no two ranges share a start unless empty.
    // `parallel::run` hands each writer to one job call only, so each range counts at most
    // once, and `filled == total` means every range is initialised: the first `total`
    // elements are. `T: Copy`, so nothing needs dropping either way.
    #[allow(unsafe_code)]
    unsafe {
        out.set_len(total)
    };
    Ok((out, extra))
}

/// Checks that `bounds` increase from 0 to `total` (and name at least one part).
fn check_bounds(total: usize, bounds: &[usize]) -> Result<()> {
    if bounds.first() != Some(&0)
        || bounds.last() != Some(&total)
        || bounds.windows(2).any(|w| w[0] > w[1])
    {
        return fail(ErrorKind::Internal {
            invariant: format!("output ranges {bounds:?} do not split 0..{total}"),
        });
    }
    Ok(())
}

/// One writer per range `bounds[p]..bounds[p + 1]` of the spare capacity of `out`, which
/// holds at least `bounds.last()` elements (checked by [`check_bounds`] and reserved).
fn writers<'a, T: Copy>(out: &'a mut Vec<T>, bounds: &[usize]) -> Vec<DenseWriter<'a, T>> {
    let total = bounds.last().copied().unwrap_or(0);
    let mut writers = Vec::with_capacity(bounds.len().saturating_sub(1));
    let mut rest = &mut out.spare_capacity_mut()[..total];
    for w in bounds.windows(2) {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(w[1] - w[0]);
        writers.push(DenseWriter::new(head));
        rest = tail;
    }
    writers
}

/// Fills two outputs in `parts` parts, the number of ranges of either, on up to `threads`
/// threads (each taking the next part not yet taken): part `p` writes the ranges
/// `bounds_a[p]..bounds_a[p + 1]` of the first and `bounds_b[p]..bounds_b[p + 1]` of the
/// second, through `job(p, a, b)`, which returns the [`Prefix`] proofs of both writers (and
/// a result of its own). Each part may leave the end of its ranges unwritten: the outputs
/// hold the parts' initialised prefixes one after the other, in part order (moved down over
/// the unwritten ends where there are any).
///
/// Errors: as [`fill_parallel_with`] (a proof naming another range is
/// [`ErrorKind::WorkerFailed`] naming `name`).
// Used by the text readers only.
#[cfg_attr(
    not(any(feature = "matrix-market", feature = "frostt")),
    allow(dead_code)
)]
pub(crate) fn fill_parallel_pair<A, B, R, F>(
    (total_a, bounds_a): (usize, &[usize]),
    (total_b, bounds_b): (usize, &[usize]),
    threads: usize,
    name: &'static str,
    job: F,
) -> Result<(Vec<A>, Vec<B>, Vec<R>)>
where
    A: Copy + Send,
    B: Copy + Send,
    R: Send,
    F: for<'x> Fn(
            usize,
            DenseWriter<'x, A>,
            DenseWriter<'x, B>,
        ) -> Result<(Prefix<'x>, Prefix<'x>, R)>
        + Sync,
{
    fill_pair_typed(
        (total_a, bounds_a),
        (total_b, bounds_b),
        threads,
        name,
        &job,
    )
}

/// The job of [`fill_parallel_pair`], behind a reference.
type PairJob<'j, A, B, R> = &'j (dyn for<'x> Fn(
    usize,
    DenseWriter<'x, A>,
    DenseWriter<'x, B>,
) -> Result<(Prefix<'x>, Prefix<'x>, R)>
         + Sync);

/// [`fill_parallel_pair`] with the job behind a reference to a trait object (compiled once
/// per element and result types).
fn fill_pair_typed<A: Copy + Send, B: Copy + Send, R: Send>(
    (total_a, bounds_a): (usize, &[usize]),
    (total_b, bounds_b): (usize, &[usize]),
    threads: usize,
    name: &'static str,
    job: PairJob<'_, A, B, R>,
) -> Result<(Vec<A>, Vec<B>, Vec<R>)> {
    check_bounds(total_a, bounds_a)?;
    check_bounds(total_b, bounds_b)?;
    if bounds_a.len() != bounds_b.len() {
        return fail(ErrorKind::Internal {
            invariant: format!(
                "output ranges {bounds_a:?} and {bounds_b:?} name different numbers of parts"
            ),
        });
    }
    let mut out_a = try_with_capacity::<A>(total_a, "the first output")?;
    let mut out_b = try_with_capacity::<B>(total_b, "the second output")?;
    super::huge_pages::advise(out_a.spare_capacity_mut());
    super::huge_pages::advise(out_b.spare_capacity_mut());
    let parts = bounds_a.len() - 1;
    let pairs: Vec<_> = writers(&mut out_a, bounds_a)
        .into_iter()
        .zip(writers(&mut out_b, bounds_b))
        .collect();
    let matches = |w_start: *const (), w_len: usize, proof: &Prefix<'_>| {
        proof.start == w_start && proof.len == w_len && proof.init <= w_len
    };
    // The initialised length of each part's two ranges, checked against its proofs.
    let results = crate::parallel::run(
        threads,
        pairs,
        name,
        |p, (a, b)| -> Result<(usize, usize, R)> {
            let (sa, la) = (a.buf.as_ptr().cast::<()>(), a.len());
            let (sb, lb) = (b.buf.as_ptr().cast::<()>(), b.len());
            let (pa, pb, r) = job(p, a, b)?;
            if !matches(sa, la, &pa) || !matches(sb, lb, &pb) {
                return fail(ErrorKind::WorkerFailed { job: name });
            }
            Ok((pa.init, pb.init, r))
        },
    )?;
    let mut inits = Vec::with_capacity(parts);
    let mut extra = Vec::with_capacity(parts);
    for r in results {
        let (ia, ib, r) = r?;
        inits.push((ia, ib));
        extra.push(r);
    }
    let len_a = compact(&mut out_a, bounds_a, inits.iter().map(|i| i.0));
    let len_b = compact(&mut out_b, bounds_b, inits.iter().map(|i| i.1));
    // SAFETY: `compact` returns the length of the prefix of the spare capacity that now
    // holds the parts' initialised prefixes one after the other (see there); `T: Copy`, so
    // nothing needs dropping either way.
    #[allow(unsafe_code)]
    unsafe {
        out_a.set_len(len_a);
        out_b.set_len(len_b);
    }
    Ok((out_a, out_b, extra))
}

/// Moves the initialised prefix of each range `bounds[p]..bounds[p + 1]` of the spare
/// capacity of `out` (of length `inits[p]`, at most the range's length) down to follow
/// the prefixes before it, in part order; returns their total length, the length of the
/// spare capacity's prefix they now fill.
///
/// Each prefix moves to an offset no greater than its range's start (the prefixes before
/// it are no longer than their ranges), over the unwritten end of the ranges before it or
/// over itself, so no prefix not yet moved is overwritten and every element of the result
/// is a copy of an initialised element.
// Used by the text readers only.
#[cfg_attr(
    not(any(feature = "matrix-market", feature = "frostt")),
    allow(dead_code)
)]
fn compact<T: Copy>(
    out: &mut Vec<T>,
    bounds: &[usize],
    inits: impl Iterator<Item = usize>,
) -> usize {
    let spare = out.spare_capacity_mut();
    let mut filled = 0;
    for (w, init) in bounds.windows(2).zip(inits) {
        let init = init.min(w[1] - w[0]);
        if filled != w[0] {
            spare.copy_within(w[0]..w[0] + init, filled);
        }
        filled += init;
    }
    filled
}

#[cfg(test)]
mod tests;
