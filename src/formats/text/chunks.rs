//! The batches of a chunked text reader: the entry lines parsed in order, a bounded number
//! of entries at a time, with the checks of the whole-file reader applied as the counts
//! grow.

use super::entries::Entries;
use super::value::TextValue;
use super::{parse_lines, LineParser, ProgressCounter};
use crate::error::Result;
use crate::formats::{EntryBatch, EntrySource};
use crate::IndexArray;
use arrow_buffer::Buffer;

/// Checks the counts so far: entry lines, entries (mirrors included), whether the input
/// has ended, and the input.
pub(crate) type CountCheck = Box<dyn FnMut(u64, u64, bool, &[u8]) -> Result<()> + Send>;

/// What a chunked reader of one format needs.
pub(crate) struct TextChunks<T, P> {
    /// The whole file.
    pub data: Buffer,
    /// Where the next batch starts.
    pub pos: usize,
    /// The format's name, as errors give it.
    pub format: &'static str,
    /// The byte that starts a comment line.
    pub comment: u8,
    /// The rank.
    pub ndim: usize,
    /// Entries per batch (a line may add one more).
    pub batch: usize,
    /// The parser of one entry line.
    pub parse: P,
    /// The checks after each batch.
    pub check: CountCheck,
    /// The type of the batches' coordinates (parsed as `i64`, then stored as this type).
    pub index_type: crate::IndexType,
    /// Marker of the entry types.
    pub entries: std::marker::PhantomData<fn() -> T>,
}

/// The state of a chunked reader between batches.
struct Source<T, P> {
    job: TextChunks<T, P>,
    max: Vec<u64>,
    seen: bool,
    lines: u64,
    nnz: u64,
    done: bool,
}

/// The source of [`EntryChunks`](crate::formats::EntryChunks) batches of a text format.
pub(crate) fn source<T, P>(job: TextChunks<T, P>) -> Box<dyn EntrySource>
where
    T: TextValue,
    P: LineParser<T, i64> + Send + 'static,
{
    let ndim = job.ndim;
    Box::new(Source {
        job,
        max: vec![0; ndim],
        seen: false,
        lines: 0,
        nnz: 0,
        done: false,
    })
}

impl<T, P> EntrySource for Source<T, P>
where
    T: TextValue,
    P: LineParser<T, i64> + Send + 'static,
{
    fn next_batch(&mut self) -> Option<Result<EntryBatch>> {
        if self.done {
            return None;
        }
        let job = &mut self.job;
        let bytes = job.data.as_slice();
        let batch = job.batch.max(1);
        let mut sink = Entries::<T, i64>::with_capacity(job.ndim, batch.min(1 << 16) + 2);
        let progress = ProgressCounter::new(None, 0);
        let parsed = parse_lines(
            bytes,
            job.pos..bytes.len(),
            job.comment,
            &mut sink,
            &job.parse,
            batch,
            &progress,
        );
        match parsed {
            Ok(p) => job.pos = p,
            Err(e) => {
                self.done = true;
                return Some(Err(e.into_error(job.format, bytes)));
            }
        }
        self.lines += sink.lines;
        self.nnz += sink.len() as u64;
        if sink.len() > 0 {
            self.seen = true;
            for (m, &x) in self.max.iter_mut().zip(&sink.max) {
                *m = (*m).max(x);
            }
        }
        let at_end = job.pos >= bytes.len();
        if let Err(e) = (job.check)(self.lines, self.nnz, at_end, bytes) {
            self.done = true;
            return Some(Err(e));
        }
        self.done = at_end;
        if sink.len() == 0 {
            return None;
        }
        Some(Ok(EntryBatch {
            coords: IndexArray::from_i64_as(sink.store.coords, job.index_type),
            values: Buffer::from_vec(sink.store.values),
            value_type: T::TYPE,
            ndim: job.ndim,
            end_offset: job.pos as u64,
        }))
    }

    fn extent(&self) -> Vec<usize> {
        if !self.seen {
            return vec![0; self.job.ndim];
        }
        self.max.iter().map(|&m| m as usize + 1).collect()
    }
}
