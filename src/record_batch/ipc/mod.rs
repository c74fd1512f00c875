//! Arrow IPC streams and files of record batches, through arrow-ipc's own decoders and
//! writers, over bytes in memory (a memory map or a buffer): batches are slices of the
//! input, and every length the input claims is checked against the bytes that exist
//! before anything is read.

use crate::error::{fail, ErrorKind, Result};
use crate::Limits;
use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::{FileDecoder, StreamDecoder};
use arrow_ipc::writer::{FileWriter, StreamWriter};
use arrow_ipc::Block;
use arrow_schema::{DataType, Schema, SchemaRef};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

mod check;
mod options;
mod stream_reader;

pub use options::{IpcFormat, IpcReadOptions, IpcWriteOptions};
pub use stream_reader::IpcStreamReader;

#[cfg(feature = "parquet")]
pub(crate) use check::plain_leaf;
use check::{buffer_widths, check_message, check_schema, check_stream};

/// The magic bytes an Arrow IPC file starts and ends with.
const FILE_MAGIC: &[u8; 6] = b"ARROW1";

/// Writes record batches of one schema as an Arrow IPC stream or file (arrow-ipc's writers,
/// buffers aligned to 64 bytes).
pub struct IpcWriter<W: Write> {
    inner: Inner<W>,
    schema: SchemaRef,
}

enum Inner<W: Write> {
    Stream(StreamWriter<W>),
    File(FileWriter<W>),
}

impl<W: Write> IpcWriter<W> {
    /// Starts a stream or file of batches of `schema` on `out` (writes the schema).
    pub fn new(out: W, schema: SchemaRef, options: &IpcWriteOptions) -> Result<Self> {
        let inner = match options.format {
            IpcFormat::Stream => Inner::Stream(StreamWriter::try_new(out, &schema)?),
            IpcFormat::File => Inner::File(FileWriter::try_new(out, &schema)?),
        };
        Ok(IpcWriter { inner, schema })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Writes one batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match &mut self.inner {
            Inner::Stream(w) => w.write(batch)?,
            Inner::File(w) => w.write(batch)?,
        }
        Ok(())
    }

    /// Ends the stream (end-of-stream marker) or file (footer) and returns the output.
    pub fn finish(self) -> Result<W> {
        Ok(match self.inner {
            Inner::Stream(mut w) => {
                w.finish()?;
                w.into_inner()?
            }
            Inner::File(mut w) => {
                w.finish()?;
                w.into_inner()?
            }
        })
    }
}

/// The record batches of an Arrow IPC stream or file held in memory, decoded lazily and
/// without copying (each batch's arrays are slices of the input).
///
/// ```
/// use arrow_tensor_ipc::record_batch::{
///     tensor_to_fixed_shape, FixedShapeOptions, IpcBatches, IpcFormat, IpcReadOptions,
///     IpcWriteOptions, IpcWriter,
/// };
/// use arrow_tensor_ipc::Tensor;
///
/// let t = Tensor::from_vec(vec![4, 2], (0..8u8).collect())?;
/// let batch = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())?.into_record_batch("t")?;
/// let mut w = IpcWriter::new(Vec::new(), batch.schema(), &IpcWriteOptions::default().with_format(IpcFormat::File))?;
/// w.write(&batch)?;
/// let bytes = w.finish()?;
///
/// let mut read = IpcBatches::new(arrow_buffer::Buffer::from_vec(bytes), &IpcReadOptions::default())?;
/// assert_eq!(read.schema(), &batch.schema());
/// assert_eq!(read.next().unwrap()?, batch);
/// assert!(read.next().is_none());
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub struct IpcBatches {
    schema: SchemaRef,
    source: Source,
    /// The input's length.
    total: usize,
}

enum Source {
    Stream {
        decoder: StreamDecoder,
        rest: Buffer,
        first: Option<RecordBatch>,
        done: bool,
    },
    File {
        decoder: FileDecoder,
        data: Buffer,
        blocks: Vec<Block>,
        next: usize,
    },
}

impl IpcBatches {
    /// Opens the stream or file in `data` (a file when it starts with the `ARROW1` magic).
    pub fn new(data: impl Into<Buffer>, options: &IpcReadOptions) -> Result<Self> {
        let data = data.into();
        if data.starts_with(FILE_MAGIC) {
            Self::file(data, &options.limits)
        } else {
            Self::stream(data, &options.limits)
        }
    }

    /// Reads the file at `path` into memory and opens it.
    pub fn open(path: impl AsRef<Path>, options: &IpcReadOptions) -> Result<Self> {
        Self::new(std::fs::read(path)?, options)
    }

    /// Memory-maps the file at `path` and opens it.
    ///
    /// # Safety
    ///
    /// As for [`map_file`](crate::map_file): the file must not be truncated or modified
    /// while the batches, or any array read from them, are alive.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn open_mmap(path: impl AsRef<Path>, options: &IpcReadOptions) -> Result<Self> {
        // SAFETY: the caller upholds map_file's contract.
        Self::new(unsafe { crate::io::map_file(path.as_ref())? }, options)
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// How far into the input the batches returned so far reach, in bytes (for progress
    /// reports).
    pub fn position(&self) -> u64 {
        match &self.source {
            Source::Stream { rest, first, .. } => {
                let total = self.total as u64;
                if first.is_some() {
                    0
                } else {
                    total - rest.len() as u64
                }
            }
            Source::File { blocks, next, .. } => match blocks.get(*next) {
                Some(b) => b.offset().max(0) as u64,
                None => self.total as u64,
            },
        }
    }

    fn stream(data: Buffer, limits: &Limits) -> Result<Self> {
        check_stream(&data, limits)?;
        let mut decoder = StreamDecoder::new();
        let total = data.len();
        let mut rest = data;
        let first = decoder.decode(&mut rest)?;
        let Some(schema) = decoder.schema() else {
            return fail(ErrorKind::Truncated {
                part: "Arrow IPC stream schema",
                needed: 8,
                available: rest.len() as u64,
            });
        };
        let done = first.is_none();
        if done {
            decoder.finish()?;
        }
        Ok(IpcBatches {
            schema,
            total,
            source: Source::Stream {
                decoder,
                rest,
                first,
                done,
            },
        })
    }

    fn file(data: Buffer, limits: &Limits) -> Result<Self> {
        let len = data.len();
        let trailer_at = len.checked_sub(10).filter(|&t| t >= FILE_MAGIC.len());
        let Some(trailer_at) = trailer_at else {
            return fail(ErrorKind::Truncated {
                part: "Arrow IPC file",
                needed: 16,
                available: len as u64,
            });
        };
        let mut trailer = [0u8; 10];
        if let Some(bytes) = data.get(trailer_at..) {
            trailer.copy_from_slice(bytes);
        }
        let footer_len = arrow_ipc::reader::read_footer_length(trailer)?;
        let Some(footer_at) = trailer_at.checked_sub(footer_len) else {
            return fail(ErrorKind::Truncated {
                part: "Arrow IPC file footer",
                needed: footer_len as u64,
                available: trailer_at as u64,
            });
        };
        let footer = arrow_ipc::root_as_footer(data.get(footer_at..trailer_at).unwrap_or_default())
            .map_err(ErrorKind::flatbuffer)?;
        let Some(fb_schema) = footer.schema() else {
            return fail(ErrorKind::MissingField("Footer.schema"));
        };
        let schema = arrow_ipc::convert::try_fb_to_schema(fb_schema)?;
        check_schema(&schema)?;
        let widths = Some(buffer_widths(&schema));
        let schema = Arc::new(schema);
        let mut decoder = FileDecoder::new(schema.clone(), footer.version());
        let slice = |b: &Block| -> Result<Buffer> {
            let offset = usize::try_from(b.offset()).ok();
            let meta = usize::try_from(b.metaDataLength()).ok();
            let body = usize::try_from(b.bodyLength()).ok();
            match (offset, meta, body) {
                (Some(o), Some(m), Some(n))
                    if o.checked_add(m)
                        .and_then(|x| x.checked_add(n))
                        .is_some_and(|end| end <= footer_at) =>
                {
                    let block = data.get(o..o + m + n).unwrap_or_default();
                    if check_message(block, o, &mut widths.clone(), limits)?
                        .is_none_or(|len| len > m + n)
                    {
                        return fail(ErrorKind::Truncated {
                            part: "Arrow IPC file block",
                            needed: (m + n) as u64 + 1,
                            available: (m + n) as u64,
                        });
                    }
                    Ok(data.slice_with_length(o, m + n))
                }
                _ => fail(ErrorKind::BufferOutOfBody {
                    buffer: crate::BufferId::Body,
                    offset: b.offset(),
                    length: b.metaDataLength() as i64 + b.bodyLength(),
                    body_length: footer_at as u64,
                }),
            }
        };
        for b in footer.dictionaries().into_iter().flatten() {
            decoder.read_dictionary(b, &slice(b)?)?;
        }
        let blocks: Vec<Block> = footer
            .recordBatches()
            .into_iter()
            .flatten()
            .copied()
            .collect();
        for b in &blocks {
            slice(b)?;
        }
        Ok(IpcBatches {
            schema,
            total: len,
            source: Source::File {
                decoder,
                data,
                blocks,
                next: 0,
            },
        })
    }
}

impl Iterator for IpcBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.source {
            Source::Stream {
                decoder,
                rest,
                first,
                done,
            } => {
                if let Some(b) = first.take() {
                    return Some(Ok(b));
                }
                if *done {
                    return None;
                }
                match decoder.decode(rest) {
                    Ok(Some(b)) => Some(Ok(b)),
                    Ok(None) => {
                        *done = true;
                        decoder.finish().err().map(|e| Err(e.into()))
                    }
                    Err(e) => {
                        *done = true;
                        Some(Err(e.into()))
                    }
                }
            }
            Source::File {
                decoder,
                data,
                blocks,
                next,
            } => loop {
                let b = blocks.get(*next)?;
                *next += 1;
                let o = b.offset() as usize;
                let n = b.metaDataLength() as usize + b.bodyLength() as usize;
                let buf = data.slice_with_length(o, n);
                match decoder.read_record_batch(b, &buf) {
                    Ok(Some(batch)) => return Some(Ok(batch)),
                    Ok(None) => continue,
                    Err(e) => {
                        *next = blocks.len();
                        return Some(Err(e.into()));
                    }
                }
            },
        }
    }
}
