//! What the text readers and writers (Matrix Market, FROSTT) share: splitting a byte slice
//! into chunks at line boundaries and parsing them on several threads, parsing and
//! formatting numbers without allocating, and turning a byte offset into the 1-based line
//! number an error names.

// The readers handle untrusted bytes: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::Progress;
use crate::error::{Error, ErrorKind, Location};
use crate::types::NativeValue;
use half::f16;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// Smallest chunk handed to a thread of its own: smaller inputs are parsed on the
/// calling thread.
const MIN_CHUNK: usize = 1 << 20;

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

/// The number of threads to use: `threads`, or the machine's parallelism when 0.
pub(crate) fn resolve_threads(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

/// Splits `range` of `bytes` into at most `threads` chunks of at least [`MIN_CHUNK`] bytes
/// (but one), each ending just after a newline (the last at the end of the range).
pub(crate) fn split_lines(bytes: &[u8], range: Range<usize>, threads: usize) -> Vec<Range<usize>> {
    let len = range.end.saturating_sub(range.start);
    let n = threads.clamp(1, (len / MIN_CHUNK).max(1));
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

/// Runs `f` on every chunk, each on a thread of its own (the only one on the calling
/// thread), and returns the results in chunk order.
pub(crate) fn run_chunks<R: Send>(
    chunks: &[Range<usize>],
    f: impl Fn(Range<usize>) -> R + Sync,
) -> crate::Result<Vec<R>> {
    if let [only] = chunks {
        return Ok(vec![f(only.clone())]);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|c| {
                let f = &f;
                let c = c.clone();
                scope.spawn(move || f(c))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().map_err(|_| {
                    ErrorKind::WorkerFailed {
                        job: "text parsing",
                    }
                    .into()
                })
            })
            .collect()
    })
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

/// Parses an unsigned decimal integer (digits only) at `p`, followed by a separator or the
/// end of the line. Returns the value and the position after it.
#[inline]
pub(crate) fn parse_u64(s: &[u8], p: usize) -> Result<(u64, usize), &'static str> {
    let mut v: u64 = 0;
    let mut q = p;
    while let Some(&b) = s.get(q) {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or("integer too large")?;
        q += 1;
    }
    if q == p {
        return Err(match s.get(p) {
            None | Some(b'\n' | b'\r') => "line ends early: a field is missing",
            Some(_) => "not an unsigned integer",
        });
    }
    if !ends_field(s.get(q)) {
        return Err("not an unsigned integer");
    }
    Ok((v, q))
}

/// A value type as the text formats read and write it.
// `ONE`, `checked_neg` and `same` serve the Matrix Market reader and writer only.
#[cfg_attr(not(feature = "matrix-market"), allow(dead_code))]
pub(crate) trait TextValue: NativeValue {
    /// One, the value of a `pattern` entry.
    const ONE: Self;
    /// Parses a number at the start of `s`; returns it and the bytes it took. The caller
    /// checks what follows.
    fn parse(s: &[u8]) -> Result<(Self, usize), &'static str>;
    /// Appends the number: integers in decimal, floats in the shortest form that reads back
    /// to the same bits (`NaN`, `Infinity`, `-Infinity` as scipy writes them).
    fn write(self, out: &mut Vec<u8>);
    /// The negation, `None` when the type cannot hold it.
    fn checked_neg(self) -> Option<Self>;
    /// Equality of the stored bits (a NaN equals a NaN of the same bits).
    fn same(self, other: Self) -> bool;
}

/// Parses an optionally signed decimal integer at the start of `s`.
#[inline]
fn parse_i128(s: &[u8]) -> Result<(i128, usize), &'static str> {
    let (neg, start) = match s.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let (mag, end) = parse_u64(s, start).map_err(|e| match e {
        "integer too large" => "integer out of range",
        "line ends early: a field is missing" if start == 0 => e,
        _ => "not an integer",
    })?;
    let v = i128::from(mag);
    Ok((if neg { -v } else { v }, end))
}

macro_rules! text_int {
    ($t:ty, $signed:expr) => {
        impl TextValue for $t {
            const ONE: Self = 1;
            #[inline]
            fn parse(s: &[u8]) -> Result<(Self, usize), &'static str> {
                let (v, n) = parse_i128(s)?;
                let v = <$t>::try_from(v)
                    .map_err(|_| concat!("integer out of range of ", stringify!($t)))?;
                Ok((v, n))
            }
            #[inline]
            fn write(self, out: &mut Vec<u8>) {
                out.extend_from_slice(itoa::Buffer::new().format(self).as_bytes());
            }
            fn checked_neg(self) -> Option<Self> {
                if $signed {
                    (0 as $t).checked_sub(self)
                } else {
                    (self == 0).then_some(0)
                }
            }
            fn same(self, other: Self) -> bool {
                self == other
            }
        }
    };
}
text_int!(i8, true);
text_int!(i16, true);
text_int!(i32, true);
text_int!(i64, true);
text_int!(u8, false);
text_int!(u16, false);
text_int!(u32, false);
text_int!(u64, false);

/// Appends a float formatted by ryu (or its special spelling), without a trailing `.0`.
#[inline]
fn write_float(out: &mut Vec<u8>, finite: bool, nan: bool, negative: bool, text: &str) {
    if !finite {
        out.extend_from_slice(match (nan, negative) {
            (true, _) => b"NaN".as_slice(),
            (false, false) => b"Infinity",
            (false, true) => b"-Infinity",
        });
        return;
    }
    let bytes = text.as_bytes();
    out.extend_from_slice(bytes.strip_suffix(b".0").unwrap_or(bytes));
}

/// Parses a float of type `T` with fast_float2.
#[inline]
fn parse_float<T: fast_float2::FastFloat>(s: &[u8]) -> Result<(T, usize), &'static str> {
    match fast_float2::parse_partial::<T, _>(s) {
        Ok(r) => Ok(r),
        Err(_) => Err(match s.first() {
            None | Some(b'\n' | b'\r') => "line ends early: a field is missing",
            Some(_) => "not a number",
        }),
    }
}

/// `TextValue` of `f32` and `f64`: parsed by `fast-float2`, written shortest round-trip by
/// `ryu`, compared bitwise.
macro_rules! text_float {
    ($($t:ty),*) => {$(
        impl TextValue for $t {
            const ONE: Self = 1.0;
            #[inline]
            fn parse(s: &[u8]) -> Result<(Self, usize), &'static str> {
                parse_float::<$t>(s)
            }
            #[inline]
            fn write(self, out: &mut Vec<u8>) {
                let mut b = ryu::Buffer::new();
                let text = if self.is_finite() {
                    b.format_finite(self)
                } else {
                    ""
                };
                write_float(
                    out,
                    self.is_finite(),
                    self.is_nan(),
                    self.is_sign_negative(),
                    text,
                );
            }
            fn checked_neg(self) -> Option<Self> {
                Some(-self)
            }
            fn same(self, other: Self) -> bool {
                self.to_bits() == other.to_bits()
            }
        }
    )*};
}

text_float!(f64, f32);

impl TextValue for f16 {
    const ONE: Self = f16::ONE;
    /// Parsed as `f64`, then rounded to half precision.
    #[inline]
    fn parse(s: &[u8]) -> Result<(Self, usize), &'static str> {
        parse_float::<f64>(s).map(|(v, n)| (f16::from_f64(v), n))
    }
    /// Written as the shortest `f32` text of the (exactly representable) value, which
    /// reads back to the same half-precision bits.
    #[inline]
    fn write(self, out: &mut Vec<u8>) {
        f32::from(self).write(out);
    }
    fn checked_neg(self) -> Option<Self> {
        Some(-self)
    }
    fn same(self, other: Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

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
        return Err(ErrorKind::InvalidArgument("write_coo_lines needs a COO tensor".into()).into());
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
