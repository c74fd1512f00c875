//! The entries of a FROSTT file a bounded batch at a time.

use super::{layout, nnz_limit, TnsReadOptions, FORMAT};
use crate::error::Result;
use crate::formats::text::chunks::{source, TextChunks};
use crate::formats::{EntriesHeader, EntryChunks, EntrySource};
use arrow_buffer::Buffer;

/// Reads the entries of a FROSTT file a batch at a time: the header (the given shape if
/// any, the rank of the first entry line, value and index types) first, then batches of
/// at most [`TnsReadOptions::chunk_entries`] entries in file order. The batches concatenated
/// are the entries [`read`](super::read) returns; each line is checked as `read` checks it,
/// with the same errors (naming the line), found at the batch that holds the line; the
/// entry count is checked against `max_nnz` as the batches come. Without a given shape,
/// [`EntryChunks::extent`] gives the shape once the batches have ended. Parsing runs on
/// the calling thread; `threads` and `progress` are not used (each batch says where it
/// ends in the file).
///
/// ```
/// use arrow_tensor_ipc::formats::tns;
/// let file = b"1 1 1.5\n2 3 -2\n4 1 0.5\n";
/// let mut chunks = tns::read_chunks(file, &tns::TnsReadOptions::default().with_chunk_entries(2))?;
/// assert_eq!((chunks.header().ndim, chunks.header().shape.clone()), (2, None));
/// let batches = chunks.by_ref().collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(batches.iter().map(|b| b.len()).collect::<Vec<_>>(), vec![2, 1]);
/// assert_eq!(chunks.extent(), vec![4, 3]);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_chunks(data: impl Into<Buffer>, options: &TnsReadOptions) -> Result<EntryChunks> {
    read_chunks_of(data.into(), options)
}

/// [`read_chunks`] of a buffer (not generic: compiled in this crate only).
fn read_chunks_of(data: Buffer, options: &TnsReadOptions) -> Result<EntryChunks> {
    let layout = layout(data.as_slice(), options)?;
    let ndim = layout
        .lines
        .as_ref()
        .map_or_else(|| options.shape.as_ref().map_or(0, Vec::len), |l| l.rank);
    let header = EntriesHeader {
        shape: options.shape.clone(),
        ndim,
        value_type: options.value_type,
        index_type: options.index_type,
        dim_names: None,
    };
    let source: Box<dyn EntrySource> = match layout.lines {
        None => Box::new(NoEntries { ndim }),
        Some(lines) => {
            crate::dispatch_value!(options.value_type, T => {
                let max_nnz = options.limits.max_nnz;
                let rank = lines.rank;
                source(TextChunks {
                    data,
                    pos: layout.first,
                    format: FORMAT,
                    comment: b'#',
                    ndim: rank,
                    batch: options.chunk_entries,
                    parse: lines,
                    check: Box::new(move |_, nnz, _, _| nnz_limit(nnz, max_nnz)),
                    index_type: options.index_type,
                    entries: std::marker::PhantomData::<fn() -> T>,
                })
            })
        }
    };
    Ok(EntryChunks::new(header, source))
}

/// The source of a file without entries.
struct NoEntries {
    ndim: usize,
}

impl EntrySource for NoEntries {
    fn next_batch(&mut self) -> Option<Result<crate::formats::EntryBatch>> {
        None
    }

    fn extent(&self) -> Vec<usize> {
        vec![0; self.ndim]
    }
}
