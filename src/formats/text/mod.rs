//! What the text readers and writers (Matrix Market, FROSTT) share: splitting a byte slice
//! into chunks at line boundaries and parsing them on several threads (or a bounded batch at
//! a time), the loop over entry lines that skips blank and comment lines, the fields of a
//! line, and turning a byte offset into the 1-based line number an error names. Numbers
//! are in [`value`], the entries a reader collects and their canonical-order merge in
//! [`entries`], the faster path for runs of plain lines in [`run`], the parallel writers in
//! [`write`].

// The readers handle untrusted bytes: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

pub(crate) mod chunks;
pub(crate) mod entries;
pub(crate) mod run;
pub(crate) mod value;
pub(crate) mod write;

pub(crate) use value::parse_u64;

use super::Progress;
use crate::error::{Error, ErrorKind, Location};
use crate::parallel::fill::fill_parallel_pair;
use crate::types::NativeIndex;
use entries::{verdict, Entries, Merged, Ranges, Store};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use value::TextValue;

/// Smallest chunk handed to a thread of its own: smaller inputs are parsed on the
/// calling thread.
const MIN_CHUNK: usize = 1 << 20;

/// Shares of the input per parsing thread in [`parse_parallel`] when there are several:
/// each thread takes the next share not yet taken, so that a thread slowed down (by other
/// work on its core) does not hold up the whole read.
const SHARES_PER_THREAD: usize = 16;

/// Entries per batch of the chunked readers, by default.
pub(crate) const CHUNK_ENTRIES: usize = 1 << 20;

/// The `with_*` setters that the read options of both text formats share (for their
/// fields `index_type`, `limits`, `threads`, `progress` and `chunk_entries`).
macro_rules! read_option_setters {
    ($options:ident) => {
        impl<'a> $options<'a> {
            /// Sets the integer type of the coordinates (`index_type`).
            pub fn with_index_type(mut self, index_type: $crate::IndexType) -> Self {
                self.index_type = index_type;
                self
            }

            /// Sets the size limits (`limits`).
            pub fn with_limits(mut self, limits: $crate::Limits) -> Self {
                self.limits = limits;
                self
            }

            /// Sets the number of parsing threads (`threads`; 0: every core).
            pub fn with_threads(mut self, threads: usize) -> Self {
                self.threads = threads;
                self
            }

            /// Sets the progress callback (`progress`).
            pub fn with_progress(mut self, progress: $crate::formats::Progress<'a>) -> Self {
                self.progress = Some(progress);
                self
            }

            /// Sets the entries per batch of `read_chunks` (`chunk_entries`; at least 1).
            pub fn with_chunk_entries(mut self, entries: usize) -> Self {
                self.chunk_entries = entries.max(1);
                self
            }
        }
    };
}
pub(crate) use read_option_setters;

/// Bytes parsed between two calls of the progress callback (per thread).
pub(crate) const PROGRESS_STEP: usize = 1 << 22;

/// An error found while parsing a chunk: the byte offset (in the whole file) of the line it
/// concerns and what is wrong. Turned into an [`Error`] naming the line by [`LineError::into_error`].
#[derive(Debug)]
pub(crate) struct LineError {
    /// Offset of a byte of the offending line.
    pub offset: usize,
    /// What is wrong.
    pub reason: String,
}

impl LineError {
    /// An error at byte `offset`.
    pub fn new(offset: usize, reason: impl Into<String>) -> Self {
        LineError {
            offset,
            reason: reason.into(),
        }
    }

    /// The [`ErrorKind::Parse`] error naming the 1-based line of `bytes` holding the offset.
    pub fn into_error(self, format: &'static str, bytes: &[u8]) -> Error {
        parse_error(format, line_of(bytes, self.offset), self.reason)
    }
}

/// The 1-based number of the line of `bytes` that holds byte `offset` (one more than the
/// number of newlines before it).
pub(crate) fn line_of(bytes: &[u8], offset: usize) -> u64 {
    let before = bytes.get(..offset).unwrap_or(bytes);
    1 + before.iter().filter(|&&b| b == b'\n').count() as u64
}

/// An [`ErrorKind::Parse`] error at a line.
pub(crate) fn parse_error(format: &'static str, line: u64, reason: impl Into<String>) -> Error {
    ErrorKind::Parse {
        format,
        location: Location::Line(line),
        reason: reason.into(),
    }
    .into()
}

/// The number of threads to use: `threads`, or one per core (at most 8) when 0, by the
/// crate's one thread policy ([`crate::parallel::thread_count`]).
pub(crate) fn resolve_threads(threads: usize) -> usize {
    crate::parallel::thread_count(threads)
}

/// Splits `range` of `bytes` into at most `parts` chunks of at least [`MIN_CHUNK`] bytes
/// (but one), each ending just after a newline (the last at the end of the range).
pub(crate) fn split_lines(bytes: &[u8], range: Range<usize>, parts: usize) -> Vec<Range<usize>> {
    let len = range.end.saturating_sub(range.start);
    let n = parts.clamp(1, (len / MIN_CHUNK).max(1));
    let mut out = Vec::with_capacity(n);
    let mut start = range.start;
    for k in 1..n {
        let target = range.start + len / n * k;
        if target <= start {
            continue;
        }
        let end = match bytes
            .get(target..range.end)
            .and_then(|s| s.iter().position(|&b| b == b'\n'))
        {
            Some(p) => target + p + 1,
            None => break,
        };
        out.push(start..end);
        start = end;
    }
    out.push(start..range.end);
    out
}

/// Runs `f` on every chunk on at most `threads` threads (the first the calling thread), each
/// taking the next chunk not yet taken, and returns the results in chunk order; a
/// panicking chunk is [`ErrorKind::WorkerFailed`] ([`crate::parallel::run`]).
pub(crate) fn run_chunks<R: Send>(
    threads: usize,
    chunks: &[Range<usize>],
    f: impl Fn(Range<usize>) -> R + Sync,
) -> crate::Result<Vec<R>> {
    crate::parallel::run(threads, chunks.to_vec(), "text parsing", |_, c| f(c))
}

/// Sums the bytes parsed by every thread and reports the total to a progress callback.
pub(crate) struct ProgressCounter<'a> {
    total: AtomicU64,
    callback: Option<Progress<'a>>,
}

impl<'a> ProgressCounter<'a> {
    /// A counter starting at `start` bytes (the header) reporting to `callback`.
    pub fn new(callback: Option<Progress<'a>>, start: usize) -> Self {
        ProgressCounter {
            total: AtomicU64::new(start as u64),
            callback,
        }
    }

    /// Adds `n` parsed bytes and reports the new total.
    pub fn add(&self, n: usize) {
        if let Some(cb) = self.callback {
            let now = self.total.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
            cb(now);
        }
    }

    /// Whether a callback listens (parsers skip the bookkeeping otherwise).
    pub fn active(&self) -> bool {
        self.callback.is_some()
    }
}

/// Position of the first byte at or after `p` that is neither a space nor a tab.
#[inline]
pub(crate) fn skip_blanks(s: &[u8], mut p: usize) -> usize {
    while let Some(&b) = s.get(p) {
        if b == b' ' || b == b'\t' {
            p += 1;
        } else {
            break;
        }
    }
    p
}

/// Position just after the newline ending the line that holds `p` (or the end of `s`).
#[inline]
pub(crate) fn next_line(s: &[u8], p: usize) -> usize {
    match s.get(p..).and_then(|r| r.iter().position(|&b| b == b'\n')) {
        Some(q) => p + q + 1,
        None => s.len(),
    }
}

/// Whether `b` ends a number: a separator, the end of a line or of the input.
#[inline]
pub(crate) fn ends_field(b: Option<&u8>) -> bool {
    matches!(b, None | Some(b' ' | b'\t' | b'\n' | b'\r'))
}

/// Checks that only blanks (and a `\r`) follow `p` up to the end of the line; returns the
/// position after the newline.
#[inline]
pub(crate) fn finish_line(s: &[u8], p: usize) -> Result<usize, &'static str> {
    let mut p = skip_blanks(s, p);
    if s.get(p) == Some(&b'\r') {
        p += 1;
    }
    match s.get(p) {
        None => Ok(p),
        Some(b'\n') => Ok(p + 1),
        Some(_) => Err("unexpected text after the last field"),
    }
}

/// Whether the line whose first non-blank byte is at `q` holds no entry: it is empty, or a
/// comment (starting with `comment`). Returns the start of the next line when so.
#[inline]
pub(crate) fn skip_empty(s: &[u8], q: usize, comment: u8) -> Option<usize> {
    match s.get(q) {
        None => Some(q),
        Some(b'\n') => Some(q + 1),
        Some(&c) if c == comment => Some(next_line(s, q)),
        Some(b'\r') if matches!(s.get(q + 1), None | Some(b'\n')) => Some(next_line(s, q)),
        _ => None,
    }
}

/// The whitespace-separated words of a line.
pub(crate) fn words(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
}

/// The number of whitespace-separated words of the line that starts at `p`.
#[cfg_attr(not(feature = "frostt"), allow(dead_code))] // FROSTT counts the fields of a line
pub(crate) fn count_words(s: &[u8], p: usize) -> usize {
    words(s.get(p..next_line(s, p)).unwrap_or_default()).count()
}

/// Parses the value field at `q` of a line, which must end at a separator or the end of
/// the line; returns it and the position after it.
#[inline]
pub(crate) fn parse_value<T: TextValue>(s: &[u8], q: usize) -> Result<(T, usize), &'static str> {
    let (v, n) = T::parse(s.get(q..).unwrap_or_default())?;
    if !ends_field(s.get(q + n)) {
        return Err("not a number");
    }
    Ok((v, q + n))
}

/// The parser of one format's entry lines.
pub(crate) trait LineParser<T, I>: Sync {
    /// Parses the entry line starting at `line` (first non-blank byte at `q`) of `s`, the
    /// input up to the end of the run, adds what it holds to `sink` and returns the
    /// position after the line.
    fn parse<S: Store<T, I>>(
        &self,
        s: &[u8],
        line: usize,
        q: usize,
        sink: &mut Entries<T, I, S>,
    ) -> Result<usize, LineError>;

    /// Parses a run of lines starting at `p` (a line start) whose shape this parser has a
    /// faster path for, adding at most `room` entries to `sink`, and returns the position
    /// after the run: `p` itself when the line at `p` is not of that shape. Every line of
    /// the run is accepted or rejected exactly as [`LineParser::parse`] would; the lines
    /// after it are left to `parse`. By default there is no faster path.
    #[inline]
    fn parse_run<S: Store<T, I>>(
        &self,
        _s: &[u8],
        p: usize,
        _room: usize,
        _sink: &mut Entries<T, I, S>,
    ) -> Result<usize, LineError> {
        Ok(p)
    }
}

/// Parses the entry lines of `range` of `bytes` into `sink`, skipping empty lines and
/// comment lines (starting with `comment`), until the range ends or `sink` holds at least
/// `limit` entries after a line. Returns the position after the last line parsed. Reports
/// the bytes parsed to `progress`.
pub(crate) fn parse_lines<T, I, S, P>(
    bytes: &[u8],
    range: Range<usize>,
    comment: u8,
    sink: &mut Entries<T, I, S>,
    line: &P,
    limit: usize,
    progress: &ProgressCounter<'_>,
) -> Result<usize, LineError>
where
    S: Store<T, I>,
    P: LineParser<T, I>,
{
    let s = bytes.get(..range.end).unwrap_or_default();
    let mut p = range.start;
    let mut reported = p;
    while p < range.end {
        let run = line.parse_run(s, p, limit.saturating_sub(sink.store.len()), sink)?;
        if run > p {
            p = run;
        } else {
            let q = skip_blanks(s, p);
            if let Some(next) = skip_empty(s, q, comment) {
                p = next;
                continue;
            }
            p = line.parse(s, p, q, sink)?;
        }
        if progress.active() && p - reported >= PROGRESS_STEP {
            progress.add(p - reported);
            reported = p;
        }
        if sink.store.len() >= limit {
            break;
        }
    }
    if progress.active() {
        progress.add(p.saturating_sub(reported));
    }
    Ok(p)
}

/// The number of newlines in `s`. (Counted in blocks of 64 bytes with one 8-bit counter
/// per byte position, which the compiler turns into vector compares and adds; the
/// counters are summed before any can pass 255.)
pub(crate) fn count_newlines(s: &[u8]) -> usize {
    const LANES: usize = 64;
    let mut n = 0;
    for run in s.chunks(255 * LANES) {
        let mut counts = [0u8; LANES];
        let blocks = run.chunks_exact(LANES);
        n += blocks.remainder().iter().filter(|&&b| b == b'\n').count();
        for block in blocks {
            for (c, &b) in counts.iter_mut().zip(block) {
                *c += u8::from(b == b'\n');
            }
        }
        n += counts.iter().map(|&c| usize::from(c)).sum::<usize>();
    }
    n
}

/// At most how many entry lines `s` can hold when an entry line takes at least
/// `min_line` bytes with its newline (the last line may lack one): no more than its lines,
/// nor than its length allows.
pub(crate) fn max_entry_lines(s: &[u8], min_line: usize) -> usize {
    let lines = count_newlines(s) + usize::from(s.last().is_some_and(|&b| b != b'\n'));
    lines.min((s.len() + 1) / min_line.max(1))
}

/// How the entry lines of a format map to entries, for sizing the outputs of
/// [`parse_parallel`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineShape {
    /// The rank: coordinates per entry.
    pub ndim: usize,
    /// At most how many entries a line adds (2 where a symmetric entry is mirrored).
    pub entries_per_line: usize,
    /// The fewest bytes an entry line takes with its newline.
    pub min_line: usize,
}

/// Parses the entry lines of `data` (a range of `bytes`) on up to `threads` threads (0:
/// one per core), in shares of whole lines ([`SHARES_PER_THREAD`] per thread when there
/// are several, each thread taking the next share not yet taken), into one pair of
/// outputs: coordinates and values in file order, with the verdict on their order. The
/// first malformed line is an [`ErrorKind::Parse`] of `format` naming its line.
///
/// Each share first counts its lines, which bounds its entries (`shape`); the outputs are
/// reserved at the total of those bounds and every share writes its entries straight into
/// its own ranges of them, so nothing is copied afterwards unless a share holds fewer
/// entries than lines (blank lines, comments, unmirrored diagonal entries): then the
/// shares after it move down.
#[allow(clippy::too_many_arguments)] // the readers name each part of the job at the call
pub(crate) fn parse_parallel<T: TextValue, I: NativeIndex>(
    format: &'static str,
    bytes: &[u8],
    data: Range<usize>,
    threads: usize,
    comment: u8,
    progress: Option<Progress<'_>>,
    shape: LineShape,
    line: &impl LineParser<T, I>,
) -> crate::Result<Merged<T, I>> {
    let threads = resolve_threads(threads);
    let shares = if threads > 1 {
        threads * SHARES_PER_THREAD
    } else {
        1
    };
    let chunks = split_lines(bytes, data.clone(), shares);
    let counts = run_chunks(threads, &chunks, |r: Range<usize>| {
        max_entry_lines(bytes.get(r).unwrap_or_default(), shape.min_line)
    })?;
    let mut value_bounds = Vec::with_capacity(chunks.len() + 1);
    let mut total = 0usize;
    value_bounds.push(0);
    for c in counts {
        total = c
            .checked_mul(shape.entries_per_line)
            .and_then(|c| total.checked_add(c))
            .ok_or(ErrorKind::Overflow {
                quantity: crate::Quantity::CooEntries,
            })?;
        value_bounds.push(total);
    }
    let coord_bounds = value_bounds
        .iter()
        .map(|&b| b.checked_mul(shape.ndim))
        .collect::<Option<Vec<usize>>>()
        .ok_or(ErrorKind::Overflow {
            quantity: crate::Quantity::CooEntries,
        })?;
    let coord_total = coord_bounds.last().copied().unwrap_or(0);
    let progress = ProgressCounter::new(progress, data.start);
    let (coords, values, runs) = fill_parallel_pair(
        (coord_total, &coord_bounds),
        (total, &value_bounds),
        threads,
        "text parsing",
        |p, coords, values| {
            let range = chunks.get(p).cloned().unwrap_or_default();
            let mut sink = Entries::new(shape.ndim, Ranges { coords, values });
            parse_lines(
                bytes,
                range,
                comment,
                &mut sink,
                line,
                usize::MAX,
                &progress,
            )
            .map_err(|e| e.into_error(format, bytes))?;
            if sink.overflow {
                return Err(ErrorKind::WorkerFailed {
                    job: "text parsing",
                }
                .into());
            }
            let summary = sink.summary();
            let (c, v) = sink.store.finish();
            Ok((c, v, summary))
        },
    )?;
    let (canonical, max, lines) = verdict(shape.ndim, &runs);
    Ok(Merged {
        coords,
        values,
        lines,
        canonical,
        max,
    })
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    #[test]
    fn newlines_counted_as_a_loop_counts_them() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in [
            0,
            1,
            63,
            64,
            65,
            255 * 64 - 1,
            255 * 64,
            255 * 64 + 1,
            40_000,
        ] {
            // Sparse newlines, dense ones, and nothing but newlines (every lane's counter
            // reaching 255 before the sum).
            for every in [1u64, 2, 37] {
                let s: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        if x.is_multiple_of(every) {
                            b'\n'
                        } else {
                            b'7'
                        }
                    })
                    .collect();
                let naive = s.iter().filter(|&&b| b == b'\n').count();
                assert_eq!(super::count_newlines(&s), naive, "{len} {every}");
            }
        }
        assert_eq!(super::max_entry_lines(b"1 1 1\n2 2 2", 6), 2);
        assert_eq!(super::max_entry_lines(b"1 1 1\n2 2 2\n", 6), 2);
        assert_eq!(super::max_entry_lines(b"", 6), 0);
        // Blank lines: bounded by the bytes, not the lines.
        assert_eq!(super::max_entry_lines(b"\n\n\n\n\n\n\n", 6), 1);
    }
}
