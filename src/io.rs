//! IO adapters: [`MessageReader`] over [`std::io::Read`], [`MessageWriter`] over
//! [`std::io::Write`], and (feature `mmap`) memory-mapped files.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::codec::decode::DecodedMessage;
use crate::codec::encode::encode;
use crate::codec::framing::EOS;
use crate::codec::options::{ReadOptions, WriteOptions};
use crate::codec::stream::StreamDecoder;
use crate::codec::Message;
use crate::error::Result;
use std::io::{Read, Write};

/// Reads messages from a byte stream until an end-of-stream marker or a clean end of file.
///
/// A loop over a [`StreamDecoder`]: it reads what the decoder needs next (never past the
/// end of a message or of the end-of-stream marker, so the inner reader is left just after
/// the last byte consumed) and pushes it in. Errors, offsets and limits are the decoder's.
/// Memory grows with the bytes that actually arrive, never with the sizes a message
/// claims: a 16-byte input that declares a 1 TiB body fails with
/// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded) or
/// [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) after reading 16 bytes.
///
/// ```
/// use arrow_tensor_ipc::{MessageReader, MessageWriter, ReadOptions, Tensor, WriteOptions};
/// let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
/// w.write(&Tensor::from_vec(vec![3], vec![1u16, 2, 3]).unwrap().into()).unwrap();
/// let bytes = w.finish().unwrap();
/// let messages: Vec<_> = MessageReader::new(&bytes[..], &ReadOptions::default())
///     .collect::<Result<_, _>>()
///     .unwrap();
/// assert_eq!(messages.len(), 1);
/// ```
pub struct MessageReader<R> {
    inner: R,
    decoder: StreamDecoder,
    /// Where reads land before they are pushed (the decoder copies what it keeps).
    scratch: Vec<u8>,
    done: bool,
}

/// Largest read: big enough to keep the number of reads low, small enough that the copy
/// out of `scratch` reads from cache.
const READ_CHUNK: usize = 256 << 10;

impl<R: Read> MessageReader<R> {
    /// A reader with the given options.
    pub fn new(inner: R, options: &ReadOptions) -> Self {
        MessageReader {
            inner,
            decoder: StreamDecoder::new(options),
            scratch: Vec::new(),
            done: false,
        }
    }

    /// Bytes consumed so far: the end of the last message read (or of the end-of-stream
    /// marker); at an error, the start of the message it concerns.
    pub fn offset(&self) -> u64 {
        self.decoder.offset()
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads up to `buf.len()` bytes, fewer only at end of input.
    fn fill(inner: &mut R, buf: &mut [u8]) -> Result<usize> {
        let mut n = 0;
        while let Some(rest) = buf.get_mut(n..).filter(|r| !r.is_empty()) {
            match inner.read(rest) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(n)
    }

    /// Reads the next message; `Ok(None)` at the end of the stream.
    pub fn read_message(&mut self) -> Result<Option<DecodedMessage>> {
        if self.done {
            return Ok(None);
        }
        let result = self.read_inner();
        if !matches!(result, Ok(Some(_))) {
            self.done = true;
        }
        result
    }

    fn read_inner(&mut self) -> Result<Option<DecodedMessage>> {
        loop {
            let want = self.decoder.bytes_needed().min(READ_CHUNK as u64) as usize;
            if want == 0 {
                return Ok(None);
            }
            if self.scratch.len() < want {
                self.scratch.resize(want, 0);
            }
            let buf = self.scratch.get_mut(..want).unwrap_or_default();
            let n = Self::fill(&mut self.inner, buf)?;
            if n == 0 {
                self.decoder.finish()?;
                return Ok(None);
            }
            let mut got = self.scratch.get(..n).unwrap_or_default();
            if let Some(m) = self.decoder.decode_slice(&mut got)? {
                return Ok(Some(m));
            }
        }
    }
}

impl<R: Read> Iterator for MessageReader<R> {
    type Item = Result<DecodedMessage>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_message().transpose()
    }
}

/// Writes messages to a byte stream, each 64-byte aligned; [`MessageWriter::finish`]
/// appends the end-of-stream marker.
pub struct MessageWriter<W: Write> {
    inner: W,
    options: WriteOptions,
    offset: u64,
}

impl<W: Write> MessageWriter<W> {
    /// A writer with the given options.
    pub fn new(inner: W, options: &WriteOptions) -> Self {
        MessageWriter {
            inner,
            options: *options,
            offset: 0,
        }
    }

    /// Encodes and writes one message (vectored writes, the body is not copied on the way;
    /// into a `Vec<u8>` or `&mut Vec<u8>`, the copy of
    /// [`EncodedMessage::write_into`](crate::EncodedMessage::write_into)); returns the
    /// offset at which it starts.
    pub fn write(&mut self, message: &Message) -> Result<u64> {
        let encoded = encode(message, &self.options)?;
        encoded.write_to(&mut self.inner)?;
        let at = self.offset;
        self.offset += encoded.len() as u64;
        Ok(at)
    }

    /// Bytes written so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Writes the end-of-stream marker, flushes, and returns the underlying writer.
    pub fn finish(mut self) -> Result<W> {
        self.inner.write_all(&EOS)?;
        self.inner.flush()?;
        Ok(self.inner)
    }

    /// Returns the underlying writer without an end-of-stream marker.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// Memory-maps a file and iterates over its messages without copying.
///
/// # Safety
///
/// As for [`map_file`]: the file must not be truncated or modified, by this process or
/// another, while the map or any message decoded from it is alive.
#[cfg(feature = "mmap")]
#[allow(unsafe_code)]
pub unsafe fn read_mmap(
    path: impl AsRef<std::path::Path>,
    options: &ReadOptions,
) -> Result<crate::MessageIter> {
    // SAFETY: the caller upholds map_file's contract.
    Ok(crate::MessageIter::new(
        unsafe { map_file(path.as_ref())? },
        options,
    ))
}

/// Memory-maps a file read-only as [`bytes::Bytes`] (the map lives as long as the bytes),
/// for example to hand a large Matrix Market file to
/// `formats::mtx::read` ([`formats`](crate::formats)) without reading it into
/// memory first.
///
/// # Safety
///
/// The returned bytes view the file's pages directly, and Rust assumes that bytes behind a
/// shared reference never change. The caller must ensure that the file is not truncated or
/// modified, by this process or another, while the bytes (or any buffer sliced from them)
/// are alive: a truncation turns reads into `SIGBUS`, a modification into a data race.
/// This is the contract of `memmap2::Mmap::map`, passed on rather than hidden. Every reader
/// of the crate checks the bytes it is given, so a file that is merely malformed is an
/// error, not a safety problem.
#[cfg(feature = "mmap")]
#[allow(unsafe_code)]
pub unsafe fn map_file(path: &std::path::Path) -> Result<bytes::Bytes> {
    let file = std::fs::File::open(path)?;
    // SAFETY: read-only map; the caller upholds the no-truncation, no-modification contract
    // stated above.
    let map = unsafe { memmap2::Mmap::map(&file)? };
    Ok(bytes::Bytes::from_owner(map))
}
