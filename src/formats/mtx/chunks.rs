//! The entries of a `coordinate` matrix a bounded batch at a time.

use super::coordinate::{check_coordinate, count_error, expanded_limit, CoordinateLines, Ctx};
use super::{header::parse_header, value_type_of, Format, MtxReadOptions, FORMAT};
use crate::error::{ErrorKind, Result};
use crate::formats::text::chunks::{source, TextChunks};
use crate::formats::text::value::TextValue;
use crate::formats::{EntriesHeader, EntryChunks};
use arrow_buffer::Buffer;

/// Reads the entries of a `coordinate` matrix a batch at a time: the header (shape, value
/// type, index type) first, then batches of at most [`MtxReadOptions::chunk_entries`] entries
/// (one more when the last line's mirror follows it) in file order, mirrors right after
/// their entry as [`read`](super::read) gives them. The batches concatenated are the
/// entries `read` returns; each line is checked as `read` checks it, and the errors are
/// the same (naming the line), found at the batch that holds the line. The entry count is
/// checked against the header as the batches come (too many at the batch that passes it,
/// too few at the last). Parsing runs on the calling thread; `threads` and `progress` are
/// not used (each batch says where it ends in the file).
///
/// An `array` file (a dense matrix) has no entries to hand out: it is an
/// [`ErrorKind::UnsupportedLayout`]; read it with [`read`](super::read).
///
/// ```
/// use arrow_tensor_ipc::formats::mtx;
/// let file = b"%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 5\n2 1 6\n2 2 7\n";
/// let mut chunks = mtx::read_chunks(file, &mtx::MtxReadOptions::default().with_chunk_entries(2))?;
/// assert_eq!(chunks.header().shape, Some(vec![2, 2]));
/// let batches = chunks.by_ref().collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(batches.len(), 2);
/// assert_eq!(batches[0].values::<i64>(), Some(&[5i64, 6][..]));
/// assert_eq!(batches[1].coords.to_i64_vec(), vec![1, 1]);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_chunks(data: impl Into<Buffer>, options: &MtxReadOptions) -> Result<EntryChunks> {
    read_chunks_of(data.into(), options)
}

/// [`read_chunks`] of a buffer (not generic: compiled in this crate only).
fn read_chunks_of(data: Buffer, options: &MtxReadOptions) -> Result<EntryChunks> {
    let bytes = data.as_slice();
    let (header, data_start, size_line) = parse_header(bytes, options.validation)?;
    if header.format == Format::Array {
        return Err(ErrorKind::UnsupportedLayout {
            operation: "mtx::read_chunks",
            expected: "a coordinate matrix",
            found: "an array (dense) matrix: read it whole with mtx::read".into(),
        }
        .into());
    }
    let value_type = value_type_of(&header, options)?;
    let ctx = Ctx {
        bytes,
        header: &header,
        data: data_start..bytes.len(),
        size_line,
        options,
    };
    check_coordinate(&ctx)?;
    let source =
        crate::dispatch_value!(value_type, T => coordinate_source::<T>(data.clone(), &ctx));
    let entries_header = EntriesHeader {
        shape: Some(vec![header.rows, header.cols]),
        ndim: 2,
        value_type,
        index_type: options.index_type,
        dim_names: None,
    };
    Ok(EntryChunks::new(entries_header, source))
}

fn coordinate_source<T: TextValue>(
    data: Buffer,
    ctx: &Ctx,
) -> Box<dyn crate::formats::EntrySource> {
    let lines = CoordinateLines::new(ctx.header, ctx.options);
    let (data_start, size_line, claim) = (ctx.data.start, ctx.size_line, ctx.header.entries);
    let max_nnz = ctx.options.limits.max_nnz;
    let check = move |found: u64, nnz: u64, at_end: bool, bytes: &[u8]| {
        if found > claim || (at_end && found != claim) {
            return Err(count_error(bytes, data_start, size_line, claim, found));
        }
        expanded_limit(nnz, max_nnz)
    };
    source(TextChunks {
        data,
        pos: data_start,
        format: FORMAT,
        comment: b'%',
        ndim: 2,
        batch: ctx.options.chunk_entries,
        parse: lines,
        check: Box::new(check),
        index_type: ctx.options.index_type,
        entries: std::marker::PhantomData::<fn() -> T>,
    })
}
