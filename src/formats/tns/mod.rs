//! FROSTT (`.tns`) files: one line per stored value, its 1-based coordinates then the
//! value, separated by blanks; any rank of 1 or more (every line the same). Lines starting
//! with `#` and blank lines are skipped. The file does not say its shape: it comes from the
//! caller or from the largest coordinate of each dimension.
//!
//! [`read`] reads a file into a COO tensor, [`read_chunks`] hands out its entries a bounded
//! batch at a time, [`write()`] writes one. Every malformed line is an
//! [`ErrorKind::Parse`] naming the 1-based line (a file without entries and without a given
//! shape, at [`Location::File`]); an entry count or rank over [`Limits`] is an
//! [`ErrorKind::LimitExceeded`]. Large files are parsed by several threads, each on a share
//! of whole lines.

// The reader handles untrusted bytes: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod chunks;

pub use chunks::read_chunks;

use super::text::entries::{Entries, Store};
use super::text::run::Run;
use super::text::value::TextValue;
use super::text::write::write_coo_lines;
use super::text::{
    count_words, finish_line, parse_parallel, parse_u64, parse_value, skip_blanks, skip_empty,
    LineError, LineParser, LineShape,
};
use super::Progress;
use crate::error::{fail, ErrorKind, Location, Result};
use crate::sparse::{CooIndex, CooOrder, SparseFormat, SparseIndex, SparseTensor};
use crate::types::{IndexType, NativeIndex, ValueType};
use crate::{ConvertOptions, IndexArray, Limits, Message};
use arrow_buffer::Buffer;
use std::borrow::Cow;

const FORMAT: &str = "FROSTT";

/// Options of [`read`] and [`read_chunks`].
#[derive(Clone)]
#[non_exhaustive]
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
    /// Entries per batch of [`read_chunks`] (default 2^20).
    pub chunk_entries: usize,
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
            chunk_entries: super::text::CHUNK_ENTRIES,
        }
    }
}

super::text::read_option_setters!(TnsReadOptions);

impl TnsReadOptions<'_> {
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
}

/// Options of [`write()`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct TnsWriteOptions {
    /// Threads formatting the output; 0 (the default) uses every core.
    pub threads: usize,
}

impl TnsWriteOptions {
    /// Sets [`TnsWriteOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
}

/// Reads a FROSTT file into one message: a COO tensor, entries in file order (the
/// canonical flag set exactly when they are strictly increasing in row-major order).
///
/// `data` is anything that becomes an Arrow [`Buffer`] (a `Vec<u8>`, `bytes::Bytes` such as
/// a memory map, a `Buffer`: no copy; a `&[u8]`: copied).
///
/// ```
/// use arrow_tensor_ipc::formats::tns;
/// use arrow_tensor_ipc::Scalar;
/// let messages = tns::read(b"# a 3-D tensor\n1 1 1 1.5\n2 3 1 -2\n", &tns::TnsReadOptions::default())?;
/// let t = messages[0].as_sparse().unwrap();
/// assert_eq!(t.shape(), &[2, 3, 1]);
/// assert_eq!(t.get(&[1, 2, 0])?, Scalar::Float64(-2.0));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read(data: impl Into<Buffer>, options: &TnsReadOptions) -> Result<Vec<Message>> {
    read_buffer(&data.into(), options)
}

/// [`read`] of a buffer (not generic: compiled in this crate only).
fn read_buffer(data: &Buffer, options: &TnsReadOptions) -> Result<Vec<Message>> {
    let bytes = data.as_slice();
    let t = crate::dispatch_value!(options.value_type, T => read_typed::<T>(bytes, options))?;
    Ok(vec![Message::SparseTensor(t)])
}

/// Where the entries start and what their lines look like.
pub(super) struct Layout {
    /// Offset of the first entry line (the end of the input when there is none).
    pub first: usize,
    /// The parser of the entry lines; `None` when the file holds no entry.
    pub lines: Option<TnsLines>,
}

/// Finds the first entry line, takes the rank from it and checks it against the limits and
/// the given shape.
pub(super) fn layout(bytes: &[u8], options: &TnsReadOptions) -> Result<Layout> {
    let mut p = 0;
    let first = loop {
        if p >= bytes.len() {
            break None;
        }
        let q = skip_blanks(bytes, p);
        match skip_empty(bytes, q, b'#') {
            Some(next) => p = next,
            None => break Some(p),
        }
    };
    let Some(first) = first else {
        if options.shape.is_none() {
            return Err(ErrorKind::Parse {
                format: FORMAT,
                location: Location::File,
                reason: "the file holds no entry, so its rank is unknown (give a shape)".into(),
            }
            .into());
        }
        return Ok(Layout {
            first: bytes.len(),
            lines: None,
        });
    };
    let line_err =
        |offset: usize, reason: String| LineError::new(offset, reason).into_error(FORMAT, bytes);
    let n_fields = count_words(bytes, first);
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
    Ok(Layout {
        first,
        lines: Some(TnsLines {
            rank,
            bound,
            // Coordinates are parsed as `i64` (then stored as the index type).
            index_max: options.index_type.max_value().min(i64::MAX as u64),
            index_type: options.index_type,
        }),
    })
}

/// The parser of one entry line, used by the whole-file and the chunked readers alike.
pub(super) struct TnsLines {
    /// The rank, from the first entry line.
    pub rank: usize,
    /// The largest 1-based coordinate of each dimension (the given shape, else unbounded).
    bound: Vec<u64>,
    /// The largest coordinate the index type holds.
    index_max: u64,
    index_type: IndexType,
}

impl<T: TextValue, I: NativeIndex> LineParser<T, I> for TnsLines {
    /// Ranks 2 to 4 read the coordinates into an array of their length (the loops over
    /// them unroll).
    #[inline]
    fn parse<S: Store<T, I>>(
        &self,
        s: &[u8],
        line: usize,
        q: usize,
        c: &mut Entries<T, I, S>,
    ) -> Result<usize, LineError> {
        match self.rank {
            2 => self.parse_n::<T, I, S, 2>(s, line, q, c),
            3 => self.parse_n::<T, I, S, 3>(s, line, q, c),
            4 => self.parse_n::<T, I, S, 4>(s, line, q, c),
            _ => {
                // Any other rank: the coordinates on the stack up to rank 8.
                let mut small = [0u64; 8];
                let mut large = Vec::new();
                let key = match small.get_mut(..self.rank) {
                    Some(key) => key,
                    None => {
                        large.resize(self.rank, 0);
                        large.as_mut_slice()
                    }
                };
                let (v, p) = self.fields(s, line, q, key)?;
                c.lines += 1;
                c.push(key, v);
                Ok(p)
            }
        }
    }

    /// Runs of plain lines of ranks 2 to 4: parsed first, then checked and stored as a
    /// whole ([`Run`]).
    #[inline]
    fn parse_run<S: Store<T, I>>(
        &self,
        s: &[u8],
        p: usize,
        room: usize,
        c: &mut Entries<T, I, S>,
    ) -> Result<usize, LineError> {
        match self.rank {
            2 => self.run_n::<T, I, S, 2>(s, p, room, c),
            3 => self.run_n::<T, I, S, 3>(s, p, room, c),
            4 => self.run_n::<T, I, S, 4>(s, p, room, c),
            _ => Ok(p),
        }
    }
}

impl TnsLines {
    /// The fewest bytes an entry line takes: a digit per field, a blank between fields,
    /// a newline.
    fn min_line(&self) -> usize {
        2 * (self.rank + 1)
    }

    /// [`TnsLines::parse`] for lines of rank `N`, the rank of these lines.
    #[inline(always)]
    fn parse_n<T: TextValue, I: NativeIndex, S: Store<T, I>, const N: usize>(
        &self,
        s: &[u8],
        line: usize,
        q: usize,
        c: &mut Entries<T, I, S>,
    ) -> Result<usize, LineError> {
        let mut key = [0u64; N];
        let (v, p) = self.fields(s, line, q, &mut key)?;
        c.lines += 1;
        c.push_n(key, v);
        Ok(p)
    }

    /// [`TnsLines::parse_run`] for lines of rank `N`, the rank of these lines. A run whose
    /// coordinates all lie within the bounds and the index type is stored as a whole;
    /// otherwise its lines are parsed again one by one, which stores them up to the first
    /// one out of range and gives that line's error.
    #[inline(always)]
    fn run_n<T: TextValue, I: NativeIndex, S: Store<T, I>, const N: usize>(
        &self,
        s: &[u8],
        p: usize,
        room: usize,
        c: &mut Entries<T, I, S>,
    ) -> Result<usize, LineError> {
        let Ok(bounds) = <[u64; N]>::try_from(self.bound.as_slice()) else {
            return Ok(p);
        };
        // A 0-based coordinate must be below its dimension's bound and at most the index
        // type's largest value.
        let limits = bounds.map(|b| b.min(self.index_max.saturating_add(1)));
        let mut run = Run::<T, N>::new(p);
        run.parse(s, room);
        if run.within(&limits) {
            run.add_to(c);
        } else {
            for (start, _, _) in run.lines() {
                self.parse_n::<T, I, S, N>(s, start, start, c)?;
            }
        }
        Ok(run.end)
    }

    /// The fields of the entry line starting at `line` (first non-blank byte at `q`): its
    /// 0-based coordinates into `key` (one per dimension, each checked against its bound
    /// and the index type), then its value, returned with the position after the line.
    #[inline(always)]
    fn fields<T: TextValue>(
        &self,
        s: &[u8],
        line: usize,
        q: usize,
        key: &mut [u64],
    ) -> Result<(T, usize), LineError> {
        let rank = self.rank;
        let wrong_fields = |reason: String| {
            let f = count_words(s, line);
            if f != rank + 1 {
                LineError::new(
                    line,
                    format!(
                        "the line has {f} fields, expected {} (rank {rank} as the first entry line)",
                        rank + 1
                    ),
                )
            } else {
                LineError::new(line, reason)
            }
        };
        let mut q = q;
        for (d, k) in key.iter_mut().enumerate() {
            let (v, r) =
                parse_u64(s, q).map_err(|x| wrong_fields(format!("coordinate {}: {x}", d + 1)))?;
            let b = self.bound.get(d).copied().unwrap_or(0);
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
            if v - 1 > self.index_max {
                return Err(LineError::new(
                    line,
                    format!(
                        "coordinate {} is {v}, too large for index type {}",
                        d + 1,
                        self.index_type
                    ),
                ));
            }
            *k = v - 1;
            q = skip_blanks(s, r);
        }
        let (v, q) = parse_value::<T>(s, q).map_err(|x| wrong_fields(format!("value: {x}")))?;
        let p = finish_line(s, q).map_err(|x| wrong_fields(x.into()))?;
        Ok((v, p))
    }
}

/// The error of more entries than `max_nnz`.
pub(super) fn nnz_limit(nnz: u64, max_nnz: u64) -> Result<()> {
    if nnz > max_nnz {
        return fail(ErrorKind::LimitExceeded {
            what: "FROSTT entries",
            value: nnz,
            limit: max_nnz,
        });
    }
    Ok(())
}

fn read_typed<T: TextValue>(bytes: &[u8], options: &TnsReadOptions) -> Result<SparseTensor> {
    let layout = layout(bytes, options)?;
    let Some(lines) = layout.lines else {
        // No entry: the given shape (checked by `layout`) and no values.
        let shape = options.shape.clone().unwrap_or_default();
        let index = CooIndex::with_flag(
            IndexArray::from_i64_as(Vec::new(), options.index_type),
            shape.len(),
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
    let rank = lines.rank;
    let shape = LineShape {
        ndim: rank,
        entries_per_line: 1,
        min_line: lines.min_line(),
    };
    let merged = parse_parallel::<T, i64>(
        FORMAT,
        bytes,
        layout.first..bytes.len(),
        options.threads,
        b'#',
        options.progress,
        shape,
        &lines,
    )?;
    nnz_limit(merged.values.len() as u64, options.limits.max_nnz)?;
    let shape: Vec<usize> = match &options.shape {
        Some(s) => s.clone(),
        None => merged.max.iter().map(|&m| m as usize + 1).collect(),
    };
    let index = CooIndex::with_flag(
        IndexArray::from_i64_as(merged.coords, options.index_type),
        rank,
        CooOrder::RowMajor,
        merged.canonical,
    )?;
    SparseTensor::from_converted_parts(
        T::TYPE,
        shape,
        Buffer::from_vec(merged.values),
        SparseIndex::Coo(index),
    )
}

/// Writes one message as a FROSTT file: a sparse tensor (any layout) one line per stored
/// value (COO in storage order, other layouts in row-major order), a dense tensor one line
/// per non-zero. Rank 0 is refused; so is any number of messages other than one.
///
/// ```
/// use arrow_tensor_ipc::formats::tns;
/// use arrow_tensor_ipc::{Message, Tensor};
/// let t = Tensor::from_vec(vec![2, 2], vec![0i32, 7, 0, -1])?;
/// let mut out = Vec::new();
/// tns::write(&[Message::from(t)], &mut out, &tns::TnsWriteOptions::default())?;
/// assert_eq!(out, b"1 2 7\n2 2 -1\n");
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn write<W: std::io::Write>(
    messages: &[Message],
    out: W,
    options: &TnsWriteOptions,
) -> Result<()> {
    super::write_buffered(out, &mut |w| write_to(messages, w, options))
}

/// [`write`] to a buffered writer (not generic: compiled in this crate only).
fn write_to(
    messages: &[Message],
    out: &mut dyn std::io::Write,
    options: &TnsWriteOptions,
) -> Result<()> {
    let message = super::one_message(messages, "writing a FROSTT file")?;
    let coo: Cow<SparseTensor> = match message {
        Message::SparseTensor(t) => match t.index() {
            SparseIndex::Coo(_) => Cow::Borrowed(t),
            _ => Cow::Owned(t.to_format_with(SparseFormat::Coo, &ConvertOptions::default())?),
        },
        Message::Tensor(t) => {
            Cow::Owned(t.to_sparse_with(SparseFormat::Coo, &ConvertOptions::default())?)
        }
    };
    if coo.ndim() == 0 {
        return fail(ErrorKind::InvalidRank {
            layout: "a FROSTT file",
            needed: "rank 1 or more",
            rank: 0,
        });
    }
    write_coo_lines(out, &coo, options.threads)
}
