//! IO adapters: [`MessageReader`] over [`std::io::Read`], [`MessageWriter`] over
//! [`std::io::Write`], and (feature `mmap`) memory-mapped files.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::codec::decode::{assemble, decode_metadata, DecodedMessage};
use crate::codec::encode::encode;
use crate::codec::framing::{parse_prefix, Prefix, EOS};
use crate::codec::options::{ReadOptions, WriteOptions};
use crate::codec::Message;
use crate::error::{Error, ErrorKind, Result};
use arrow_buffer::{Buffer, MutableBuffer};
use std::io::{Read, Write};

/// Reads messages from a byte stream until an end-of-stream marker or a clean end of file.
///
/// Memory grows with the bytes that actually arrive, never with the sizes a message
/// claims: a 16-byte input that declares a 1 TiB body fails with
/// [`ErrorKind::LimitExceeded`] or [`ErrorKind::Truncated`] after reading 16 bytes.
///
/// ```
/// use arrow_tensor_ipc::{MessageReader, MessageWriter, ReadOptions, Tensor, WriteOptions};
/// let mut w = MessageWriter::new(Vec::new(), WriteOptions::default());
/// w.write(&Tensor::from_vec(vec![3], vec![1u16, 2, 3]).unwrap().into()).unwrap();
/// let bytes = w.finish().unwrap();
/// let messages: Vec<_> = MessageReader::new(&bytes[..], ReadOptions::default())
///     .collect::<Result<_, _>>()
///     .unwrap();
/// assert_eq!(messages.len(), 1);
/// ```
pub struct MessageReader<R> {
    inner: R,
    options: ReadOptions,
    offset: u64,
    done: bool,
}

impl<R: Read> MessageReader<R> {
    /// A reader with the given options.
    pub fn new(inner: R, options: ReadOptions) -> Self {
        MessageReader {
            inner,
            options,
            offset: 0,
            done: false,
        }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads up to `buf.len()` bytes, fewer only at end of input.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut n = 0;
        while let Some(rest) = buf.get_mut(n..).filter(|r| !r.is_empty()) {
            match self.inner.read(rest) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(n)
    }

    fn exact(&mut self, len: u64, part: &'static str, start: u64) -> Result<Buffer> {
        // Grow with the data that arrives; never trust `len` for the allocation.
        const CHUNK: u64 = 1 << 20;
        let mut buf = MutableBuffer::new(len.min(CHUNK) as usize);
        let mut have = 0u64;
        while have < len {
            let step = (len - have).min(CHUNK.max(have)) as usize;
            let old = buf.len();
            buf.resize(old + step, 0);
            let got = self.fill(buf.as_slice_mut().get_mut(old..).unwrap_or_default())?;
            have += got as u64;
            if got < step {
                return Err(Error::from(ErrorKind::Truncated {
                    part,
                    needed: len,
                    available: have,
                })
                .at(start));
            }
        }
        Ok(buf.into())
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
        let start = self.offset;
        let at = |e: Error| e.at(start);
        let mut prefix = [0u8; 8];
        let n = self.fill(&mut prefix[..4])?;
        if n == 0 {
            return Ok(None);
        }
        let mut have = n;
        let parsed = loop {
            match parse_prefix(prefix.get(..have).unwrap_or_default()).map_err(at)? {
                Some(p) => break p,
                None if (4..8).contains(&have) => {
                    let k = self.fill(prefix.get_mut(have..).unwrap_or_default())?;
                    if k == 0 {
                        return Err(at(truncated("prefix", 8, have)));
                    }
                    have += k;
                }
                None => return Err(at(truncated("prefix", 4, have))),
            }
        };
        let (framing, prefix_len, metadata_len) = match parsed {
            Prefix::EndOfStream { len } => {
                self.offset += len as u64;
                return Ok(None);
            }
            Prefix::Message {
                framing,
                prefix_len,
                metadata_len,
            } => (framing, prefix_len, metadata_len),
        };
        let limits = self.options.limits;
        if metadata_len > limits.max_metadata_len {
            return Err(at(ErrorKind::LimitExceeded {
                what: "metadata length",
                value: metadata_len as u64,
                limit: limits.max_metadata_len as u64,
            }
            .into()));
        }
        let metadata = self.exact(metadata_len as u64, "metadata", start)?;
        let meta = decode_metadata(metadata.as_slice(), &self.options).map_err(at)?;
        let body_length = meta.body_length();
        let version = meta.version();
        let body = self.exact(body_length, "body", start)?;
        let body_offset = prefix_len + metadata_len;
        self.offset += body_offset as u64 + body_length;
        let message = assemble(meta, body, &self.options).map_err(at)?;
        Ok(Some(DecodedMessage {
            message,
            offset: start,
            framing,
            version,
            metadata_length: metadata_len,
            body_length,
            body_offset,
        }))
    }
}

fn truncated(part: &'static str, needed: u64, available: usize) -> Error {
    ErrorKind::Truncated {
        part,
        needed,
        available: available as u64,
    }
    .into()
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
    pub fn new(inner: W, options: WriteOptions) -> Self {
        MessageWriter {
            inner,
            options,
            offset: 0,
        }
    }

    /// Encodes and writes one message (vectored writes, the body is not copied); returns
    /// the offset at which it starts.
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
#[cfg(feature = "mmap")]
pub fn read_mmap(
    path: impl AsRef<std::path::Path>,
    options: ReadOptions,
) -> Result<crate::MessageIter> {
    let file = std::fs::File::open(path)?;
    #[allow(unsafe_code)]
    // SAFETY: the map is read-only; the usual caveat of memory maps applies (another process
    // truncating or rewriting the file while it is mapped is undefined behaviour), which is
    // why this function is opt-in behind the `mmap` feature.
    let map = unsafe { memmap2::Mmap::map(&file)? };
    let bytes = bytes::Bytes::from_owner(map);
    Ok(crate::MessageIter::new(bytes, options))
}
