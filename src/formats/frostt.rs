//! FROSTT (`.tns`) files: one line per stored value, its 1-based coordinates then the
//! value, separated by blanks; any rank of 1 or more (every line the same). Lines starting
//! with `#` and blank lines are skipped. The file does not say its shape: it comes from the
//! caller or from the largest coordinate of each dimension.
//!
//! Malformed input is an [`ErrorKind::Parse`] naming the 1-based line. Large files are
//! parsed by several threads, each on a share of whole lines.

// The reader handles untrusted bytes: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::text::{
    concat, ends_field, finish_line, next_line, parse_u64, resolve_threads, run_chunks,
    skip_blanks, split_lines, write_coo_lines, LineError, ProgressCounter, TextValue,
    PROGRESS_STEP,
};
use super::Progress;
use crate::error::{fail, ErrorKind, Location, Result};
use crate::sparse::{CooIndex, CooOrder, SparseFormat, SparseIndex, SparseTensor};
use crate::types::{IndexType, NativeIndex, ValueType};
use crate::{ConvertOptions, IndexArray, Limits, Message};
use arrow_buffer::Buffer;
use std::borrow::Cow;
use std::ops::Range;

const FORMAT: &str = "FROSTT";

/// Options of [`read_frostt`].
#[derive(Clone)]
pub struct TnsReadOptions<'a> {
    /// The shape; `None` (the default) takes the largest coordinate of each dimension. A
    /// coordinate beyond a given shape is an error.
    pub shape: Option<Vec<usize>>,
    /// The value type (default float64). Integer types parse integers only.
    pub value_type: ValueType,
    /// The integer type of the coordinates (default int64).
    pub index_type: IndexType,
    /// Size limits (`max_nnz`, `max_rank`).
    pub limits: Limits,
    /// Threads parsing the file; 0 (the default) uses every core.
    pub threads: usize,
    /// Called with the number of bytes parsed so far.
    pub progress: Option<Progress<'a>>,
}

impl Default for TnsReadOptions<'_> {
    fn default() -> Self {
        TnsReadOptions {
            shape: None,
            value_type: ValueType::Float64,
            index_type: IndexType::Int64,
            limits: Limits::default(),
            threads: 0,
            progress: None,
        }
    }
}

impl<'a> TnsReadOptions<'a> {
    /// Sets [`TnsReadOptions::shape`].
    pub fn with_shape(mut self, shape: Vec<usize>) -> Self {
        self.shape = Some(shape);
        self
    }

    /// Sets [`TnsReadOptions::value_type`].
    pub fn with_value_type(mut self, value_type: ValueType) -> Self {
        self.value_type = value_type;
        self
    }

    /// Sets [`TnsReadOptions::index_type`].
    pub fn with_index_type(mut self, index_type: IndexType) -> Self {
        self.index_type = index_type;
        self
    }

    /// Sets [`TnsReadOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`TnsReadOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets [`TnsReadOptions::progress`].
    pub fn with_progress(mut self, progress: Progress<'a>) -> Self {
        self.progress = Some(progress);
        self
    }
}

/// Whether the line at `q` (blanks skipped) holds no entry; the start of the next line if so.
#[inline]
fn skip_empty(s: &[u8], q: usize) -> Option<usize> {
    match s.get(q) {
        None => Some(q),
        Some(b'\n') => Some(q + 1),
        Some(b'#') => Some(next_line(s, q)),
        Some(b'\r') if matches!(s.get(q + 1), None | Some(b'\n')) => Some(next_line(s, q)),
        _ => None,
    }
}

/// Number of blank-separated fields of the line starting at `p`.
fn fields(s: &[u8], p: usize) -> usize {
    let end = next_line(s, p);
    words(s.get(p..end).unwrap_or_default())
}

fn words(line: &[u8]) -> usize {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .count()
}

/// Reads a FROSTT file into a COO tensor, entries in file order (the canonical flag set
/// exactly when they are strictly increasing in row-major order).
///
/// ```
/// use arrow_tensor_ipc::formats::frostt::{read_frostt, TnsReadOptions};
/// use arrow_tensor_ipc::Scalar;
/// let t = read_frostt(b"# a 3-D tensor\n1 1 1 1.5\n2 3 1 -2\n", &TnsReadOptions::default())?;
/// assert_eq!(t.shape(), &[2, 3, 1]);
/// assert_eq!(t.get(&[1, 2, 0])?, Scalar::Float64(-2.0));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_frostt(bytes: &[u8], options: &TnsReadOptions) -> Result<SparseTensor> {
    crate::dispatch_value!(options.value_type, T => crate::dispatch_index!(options.index_type, I => {
        read_typed::<T, I>(bytes, options)
    }))
}

/// The entries one thread parsed.
struct Chunk<T, I> {
    coords: Vec<I>,
    values: Vec<T>,
    max: Vec<u64>,
    sorted: bool,
    first: Vec<u64>,
    last: Vec<u64>,
}

fn read_typed<T: TextValue, I: NativeIndex>(
    bytes: &[u8],
    options: &TnsReadOptions,
) -> Result<SparseTensor> {
    // The rank, from the first line holding an entry.
    let mut p = 0;
    let first = loop {
        if p >= bytes.len() {
            break None;
        }
        let q = skip_blanks(bytes, p);
        match skip_empty(bytes, q) {
            Some(next) => p = next,
            None => break Some(p),
        }
    };
    let Some(first) = first else {
        let Some(shape) = options.shape.clone() else {
            return Err(ErrorKind::Parse {
                format: FORMAT,
                location: Location::File,
                reason: "the file holds no entry, so its rank is unknown (give a shape)".into(),
            }
            .into());
        };
        let ndim = shape.len();
        let index = CooIndex::with_flag(
            IndexArray::from_vec(Vec::<I>::new()),
            ndim,
            CooOrder::RowMajor,
            true,
        )?;
        return SparseTensor::try_new(
            T::TYPE,
            shape,
            Buffer::from_vec(Vec::<T>::new()),
            SparseIndex::Coo(index),
        );
    };
    let line_err =
        |offset: usize, reason: String| LineError::new(offset, reason).into_error(FORMAT, bytes);
    let n_fields = fields(bytes, first);
    if n_fields < 2 {
        return Err(line_err(
            first,
            "a line needs at least one coordinate and a value".into(),
        ));
    }
    let rank = n_fields - 1;
    if rank > options.limits.max_rank {
        return fail(ErrorKind::LimitExceeded {
            what: "FROSTT rank",
            value: rank as u64,
            limit: options.limits.max_rank as u64,
        });
    }
    if let Some(shape) = &options.shape {
        if shape.len() != rank {
            return Err(line_err(
                first,
                format!(
                    "the line has rank {rank} ({n_fields} fields), the given shape {shape:?} rank {}",
                    shape.len()
                ),
            ));
        }
    }
    let bound: Vec<u64> = match &options.shape {
        Some(s) => s.iter().map(|&d| d as u64).collect(),
        None => vec![u64::MAX; rank],
    };
    let limit_i = I::TYPE.max_value();
    let chunks = split_lines(bytes, first..bytes.len(), resolve_threads(options.threads));
    let progress = ProgressCounter::new(options.progress, first);

    let parse = |range: Range<usize>| -> Result<Chunk<T, I>, LineError> {
        let s = bytes.get(..range.end).unwrap_or_default();
        let guess = range.len() / (rank * 4 + 8) + 16;
        let mut c = Chunk {
            coords: Vec::with_capacity(guess * rank),
            values: Vec::with_capacity(guess),
            max: vec![0u64; rank],
            sorted: true,
            first: Vec::new(),
            last: vec![0u64; rank],
        };
        let mut key = vec![0u64; rank];
        let mut p = range.start;
        let mut reported = p;
        while p < range.end {
            let line = p;
            let q0 = skip_blanks(s, p);
            if let Some(next) = skip_empty(s, q0) {
                p = next;
                continue;
            }
            let wrong_fields = |reason: String| {
                let f = fields(s, line);
                if f != rank + 1 {
                    LineError::new(
                        line,
                        format!("the line has {f} fields, expected {} (rank {rank} as the first entry line)", rank + 1),
                    )
                } else {
                    LineError::new(line, reason)
                }
            };
            let mut q = q0;
            for (d, k) in key.iter_mut().enumerate() {
                let (v, r) = parse_u64(s, q)
                    .map_err(|x| wrong_fields(format!("coordinate {}: {x}", d + 1)))?;
                let b = bound.get(d).copied().unwrap_or(0);
                if v == 0 || v > b {
                    return Err(LineError::new(
                        line,
                        if b == u64::MAX {
                            format!("coordinate {} is {v}, coordinates start at 1", d + 1)
                        } else {
                            format!("coordinate {} is {v}, out of range 1..={b}", d + 1)
                        },
                    ));
                }
                if v - 1 > limit_i {
                    return Err(LineError::new(
                        line,
                        format!(
                            "coordinate {} is {v}, too large for index type {}",
                            d + 1,
                            I::TYPE
                        ),
                    ));
                }
                *k = v - 1;
                q = skip_blanks(s, r);
            }
            let (v, n) = T::parse(s.get(q..).unwrap_or_default())
                .map_err(|x| wrong_fields(format!("value: {x}")))?;
            if !ends_field(s.get(q + n)) {
                return Err(wrong_fields("value: not a number".into()));
            }
            p = finish_line(s, q + n).map_err(|x| wrong_fields(x.into()))?;
            if c.values.is_empty() {
                c.first.clone_from(&key);
            } else if key <= c.last {
                c.sorted = false;
            }
            for ((m, l), &k) in c.max.iter_mut().zip(c.last.iter_mut()).zip(&key) {
                *m = (*m).max(k);
                *l = k;
                c.coords.push(I::from_u64(k).unwrap_or(I::usize_as(0)));
            }
            c.values.push(v);
            if progress.active() && p - reported >= PROGRESS_STEP {
                progress.add(p - reported);
                reported = p;
            }
        }
        if progress.active() {
            progress.add(range.end.saturating_sub(reported));
        }
        Ok(c)
    };
    let results = run_chunks(&chunks, parse)?;
    let mut parts = Vec::with_capacity(results.len());
    for r in results {
        parts.push(r.map_err(|e| e.into_error(FORMAT, bytes))?);
    }
    let nnz: u64 = parts.iter().map(|c| c.values.len() as u64).sum();
    if nnz > options.limits.max_nnz {
        return fail(ErrorKind::LimitExceeded {
            what: "FROSTT entries",
            value: nnz,
            limit: options.limits.max_nnz,
        });
    }
    let mut max = vec![0u64; rank];
    let mut canonical = true;
    let mut last: Option<Vec<u64>> = None;
    for c in &parts {
        if c.values.is_empty() {
            continue;
        }
        canonical &= c.sorted;
        if let Some(l) = &last {
            canonical &= *l < c.first;
        }
        last = Some(c.last.clone());
        for (m, &x) in max.iter_mut().zip(&c.max) {
            *m = (*m).max(x);
        }
    }
    let shape: Vec<usize> = match &options.shape {
        Some(s) => s.clone(),
        None => max.iter().map(|&m| m as usize + 1).collect(),
    };
    let (coords, values) = concat(parts, |c| (c.coords, c.values));
    let index = CooIndex::with_flag(
        IndexArray::from_vec(coords),
        rank,
        CooOrder::RowMajor,
        canonical,
    )?;
    SparseTensor::from_converted_parts(
        T::TYPE,
        shape,
        Buffer::from_vec(values),
        SparseIndex::Coo(index),
    )
}

/// Writes a tensor as a FROSTT file: a sparse tensor (any layout) one line per stored
/// value (COO in storage order, other layouts in row-major order), a dense tensor one line
/// per non-zero. Rank 0 is refused.
///
/// ```
/// use arrow_tensor_ipc::formats::frostt::write_frostt;
/// use arrow_tensor_ipc::{Message, Tensor};
/// let t = Tensor::from_vec(vec![2, 2], vec![0i32, 7, 0, -1])?;
/// let mut out = Vec::new();
/// write_frostt(&Message::Tensor(t), &mut out)?;
/// assert_eq!(out, b"1 2 7\n2 2 -1\n");
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn write_frostt<W: std::io::Write>(message: &Message, out: W) -> Result<()> {
    let coo: Cow<SparseTensor> = match message {
        Message::SparseTensor(t) => match t.index() {
            SparseIndex::Coo(_) => Cow::Borrowed(t),
            _ => Cow::Owned(t.to_format(SparseFormat::Coo, &ConvertOptions::default())?),
        },
        Message::Tensor(t) => {
            Cow::Owned(t.to_sparse(SparseFormat::Coo, &ConvertOptions::default())?)
        }
    };
    if coo.ndim() == 0 {
        return fail(ErrorKind::InvalidRank {
            layout: "a FROSTT file",
            needed: "rank 1 or more",
            rank: 0,
        });
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    write_coo_lines(&mut out, &coo, 0)?;
    std::io::Write::flush(&mut out).map_err(ErrorKind::Io)?;
    Ok(())
}
