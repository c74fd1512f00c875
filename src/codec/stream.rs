//! [`StreamDecoder`]: a push decoder. Bytes go in as they arrive, in chunks of any size;
//! messages come out when their last byte is in. No IO: async and network code feeds it
//! whatever its transport delivers, and [`MessageReader`](crate::MessageReader) is a loop
//! of `read` and [`StreamDecoder::decode_slice`].

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::decode::{complete, DecodedMessage};
use super::framing::{parse_head, MessageHead, Prefix};
use super::metadata::{decode_metadata, MessageMeta};
use super::options::ReadOptions;
use crate::error::{Error, ErrorKind, Result};
use arrow_buffer::{Buffer, MutableBuffer};
use std::collections::VecDeque;

/// Decodes a stream of messages from byte chunks pushed into it, without doing any IO.
///
/// Two ways to drive it:
/// - [`push`](StreamDecoder::push) each chunk as it arrives and take the messages out with
///   [`next_message`](StreamDecoder::next_message);
/// - or, as arrow-ipc's `StreamDecoder`, call [`decode`](StreamDecoder::decode) (or
///   [`decode_slice`](StreamDecoder::decode_slice) for borrowed bytes) on each chunk
///   until it returns `Ok(None)`: each call consumes bytes from the front of the chunk and
///   returns at most one message.
///
/// When the input ends, [`finish`](StreamDecoder::finish) reports a message cut short.
///
/// Either framing is accepted (`FFFFFFFF` + length, or the length alone as before Arrow
/// 0.15), and so is either end-of-stream marker (`FFFFFFFF 00000000`, or `00000000`); after
/// the marker no more messages come out, and bytes after it are not consumed.
///
/// A message whose body arrives in one [`Buffer`] is decoded zero-copy: the tensor's
/// buffers are slices of that chunk (when the body starts at an 8-byte aligned address, as
/// it does in chunks that start aligned and streams of aligned messages; else the body is
/// copied into aligned memory, so that the outcome never depends on where the stream was
/// cut). Bytes of a message split across chunks are gathered as they
/// arrive; memory grows with the bytes pushed, never with a length the input claims (a
/// prefix that announces a 1 TiB body costs nothing until body bytes come). The metadata
/// and body lengths are checked against [`Limits`](crate::Limits) as soon as they are known.
///
/// Errors carry the offset of the message they concern, counted from the first byte
/// pushed, and stop the decoder: after an error no more messages come out.
///
/// ```
/// use arrow_buffer::Buffer;
/// use arrow_tensor_ipc::{MessageWriter, ReadOptions, StreamDecoder, Tensor, WriteOptions};
///
/// let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
/// w.write(&Tensor::from_vec(vec![2, 2], vec![1i32, 2, 3, 4])?.into())?;
/// w.write(&Tensor::from_vec(vec![3], vec![0.5f32, 1.5, 2.5])?.into())?;
/// let stream = w.finish()?;
///
/// // Chunks as a network might deliver them.
/// let mut decoder = StreamDecoder::new(&ReadOptions::default());
/// let mut messages = Vec::new();
/// for chunk in stream.chunks(100) {
///     decoder.push(Buffer::from_slice_ref(chunk));
///     while let Some(m) = decoder.next_message()? {
///         messages.push(m);
///     }
/// }
/// decoder.finish()?; // errors if the stream stopped inside a message
/// assert!(decoder.is_finished());
/// assert_eq!(messages.len(), 2);
/// assert_eq!(messages[1].offset, messages[0].total_length());
///
/// // The same with `decode`, the whole stream in one chunk (zero-copy).
/// let mut decoder = StreamDecoder::new(&ReadOptions::default());
/// let mut buf = Buffer::from_vec(stream);
/// let first = decoder.decode(&mut buf)?.expect("a message");
/// assert_eq!(first.message.as_tensor().unwrap().as_slice::<i32>(), Some(&[1, 2, 3, 4][..]));
/// assert!(decoder.decode(&mut buf)?.is_some());
/// assert!(decoder.decode(&mut buf)?.is_none()); // the end-of-stream marker
/// assert!(decoder.is_finished() && buf.is_empty());
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
#[derive(Debug)]
pub struct StreamDecoder {
    options: ReadOptions,
    /// Stream offset of the message in progress: the bytes of the messages and marker
    /// before it.
    offset: u64,
    state: State,
    /// Messages (and at most one error, last) decoded by `push`, not yet taken out.
    ready: VecDeque<Result<DecodedMessage>>,
}

#[derive(Debug)]
enum State {
    /// Gathering the prefix: the first `have` bytes of `bytes`.
    Prefix { bytes: [u8; 8], have: usize },
    /// Gathering the metadata flatbuffer (`bytes` holds what arrived of it).
    Metadata { head: MessageHead, bytes: Vec<u8> },
    /// Gathering the body (`bytes` holds what arrived of it).
    Body {
        head: MessageHead,
        meta: MessageMeta,
        bytes: MutableBuffer,
    },
    /// An end-of-stream marker was decoded or the input ended.
    Finished,
    /// An error stopped the decoder.
    Failed,
}

impl State {
    fn start() -> Self {
        State::Prefix {
            bytes: [0; 8],
            have: 0,
        }
    }
}

/// Input bytes, with the buffer that owns them when zero-copy slicing is possible.
struct Input<'a> {
    bytes: &'a [u8],
    owner: Option<&'a Buffer>,
    pos: usize,
}

impl<'a> Input<'a> {
    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or_default()
    }

    /// The next `n` bytes (at most what is left).
    fn take(&mut self, n: usize) -> &'a [u8] {
        let rest = self.rest();
        let n = n.min(rest.len());
        self.pos += n;
        rest.get(..n).unwrap_or_default()
    }

    /// The next `n` bytes as a slice of the owning buffer, if there is one, they are all
    /// present and they start at an address aligned to [`SHARED_ALIGN`].
    fn take_shared(&mut self, n: usize) -> Option<Buffer> {
        let owner = self.owner?;
        let rest = self.rest();
        if rest.len() < n || !(rest.as_ptr() as usize).is_multiple_of(SHARED_ALIGN) {
            return None;
        }
        let b = owner.slice_with_length(self.pos, n);
        self.pos += n;
        Some(b)
    }
}

/// A body is sliced from its chunk only when it starts at an address aligned to this, the
/// largest alignment an element needs; else it is gathered into aligned memory like a body
/// split across chunks. Either way each tensor buffer lands at the same alignment (its
/// offset in the body modulo 8), so whether it is aligned, copied or refused
/// ([`Misaligned`](crate::Misaligned)) never depends on how the stream was cut.
const SHARED_ALIGN: usize = 8;

/// Body bytes gathered from several chunks grow their allocation by doubling, from at
/// least this many bytes, and never past the declared body length.
const MIN_GROWTH: usize = 64 << 10;

impl StreamDecoder {
    /// A decoder at the start of a stream.
    pub fn new(options: &ReadOptions) -> Self {
        StreamDecoder {
            options: *options,
            offset: 0,
            state: State::start(),
            ready: VecDeque::new(),
        }
    }

    /// Consumes bytes from the front of `buf` until a message is complete, and returns it;
    /// `buf` then starts right after the message. `Ok(None)` when all of `buf` was consumed
    /// without completing one (push the next chunk), and at the end of the stream (bytes
    /// after an end-of-stream marker stay in `buf`).
    ///
    /// A message wholly inside `buf` is decoded zero-copy. Messages that
    /// [`push`](StreamDecoder::push) decoded and nobody took out yet come first: while
    /// there are any, this returns the oldest without consuming `buf`.
    pub fn decode(&mut self, buf: &mut Buffer) -> Result<Option<DecodedMessage>> {
        if let Some(r) = self.ready.pop_front() {
            return r.map(Some);
        }
        let owner = buf.clone();
        let mut input = Input {
            bytes: owner.as_slice(),
            owner: Some(&owner),
            pos: 0,
        };
        let result = self.step(&mut input);
        let consumed = input.pos;
        *buf = owner.slice(consumed);
        result
    }

    /// As [`decode`](StreamDecoder::decode), for borrowed bytes: advances `bytes` past what
    /// it consumed. The bytes a message keeps are copied (into one aligned buffer per
    /// body), so this suits reading into a reused buffer; use `decode` to decode a chunk
    /// you own without copying.
    pub fn decode_slice(&mut self, bytes: &mut &[u8]) -> Result<Option<DecodedMessage>> {
        if let Some(r) = self.ready.pop_front() {
            return r.map(Some);
        }
        let mut input = Input {
            bytes,
            owner: None,
            pos: 0,
        };
        let result = self.step(&mut input);
        *bytes = input.rest();
        result
    }

    /// Feeds a chunk: decodes every message it completes (zero-copy when a message lies
    /// wholly inside it) and keeps them, in order, for
    /// [`next_message`](StreamDecoder::next_message). Never fails: an error is kept too,
    /// after the messages before it, and stops the decoder.
    pub fn push(&mut self, chunk: impl Into<Buffer>) {
        let owner: Buffer = chunk.into();
        let mut input = Input {
            bytes: owner.as_slice(),
            owner: Some(&owner),
            pos: 0,
        };
        while !input.rest().is_empty() {
            match self.step(&mut input) {
                Ok(Some(m)) => self.ready.push_back(Ok(m)),
                Ok(None) => break,
                Err(e) => {
                    self.ready.push_back(Err(e));
                    break;
                }
            }
        }
    }

    /// The next message decoded from the chunks pushed so far; `Ok(None)` when none is
    /// complete yet, or at the end of the stream.
    pub fn next_message(&mut self) -> Result<Option<DecodedMessage>> {
        self.ready.pop_front().transpose()
    }

    /// Ends the input. `Ok(())` when the stream stopped between two messages or after an
    /// end-of-stream marker (or at an error already returned); a
    /// [`ErrorKind::Truncated`] error naming the part cut short (prefix, metadata or body)
    /// when it stopped inside a message. Messages already decoded can still be taken out.
    pub fn finish(&mut self) -> Result<()> {
        let truncated = |part, needed: u64, available: usize| ErrorKind::Truncated {
            part,
            needed,
            available: available as u64,
        };
        let kind = match &self.state {
            State::Prefix { have: 0, .. } | State::Finished | State::Failed => None,
            State::Prefix { have, .. } => {
                let needed = if *have < 4 { 4 } else { 8 };
                Some(truncated("prefix", needed, *have))
            }
            State::Metadata { head, bytes } => {
                Some(truncated("metadata", head.metadata_len as u64, bytes.len()))
            }
            State::Body { meta, bytes, .. } => {
                Some(truncated("body", meta.body_length(), bytes.len()))
            }
        };
        match kind {
            None => {
                if !matches!(self.state, State::Failed) {
                    self.state = State::Finished;
                }
                Ok(())
            }
            Some(kind) => {
                self.state = State::Failed;
                Err(Error::from(kind).at(self.offset))
            }
        }
    }

    /// How many more bytes complete the part of the stream being decoded (the prefix, the
    /// metadata or the body of the current message); 0 when no more messages can come out.
    /// A reader that reads at most this many bytes at a time never reads past the end of
    /// a message or of the end-of-stream marker. For a body it is the declared length
    /// (under [`Limits::max_body_len`](crate::Limits::max_body_len)) minus what arrived:
    /// read it in pieces rather than allocate it.
    pub fn bytes_needed(&self) -> u64 {
        match &self.state {
            State::Prefix { have, .. } => {
                let want: usize = if *have < 4 { 4 } else { 8 };
                want.saturating_sub(*have) as u64
            }
            State::Metadata { head, bytes } => head.metadata_len.saturating_sub(bytes.len()) as u64,
            State::Body { meta, bytes, .. } => {
                meta.body_length().saturating_sub(bytes.len() as u64)
            }
            State::Finished | State::Failed => 0,
        }
    }

    /// Stream offset of the message being decoded: the bytes of the messages and marker
    /// before it. After the end-of-stream marker, the bytes consumed in all.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether no more messages can come out: an end-of-stream marker was decoded,
    /// [`finish`](StreamDecoder::finish) was called, or an error stopped the decoder.
    /// Messages already decoded by [`push`](StreamDecoder::push) may still wait in
    /// [`next_message`](StreamDecoder::next_message).
    pub fn is_finished(&self) -> bool {
        matches!(self.state, State::Finished | State::Failed)
    }

    /// Decodes from `input` until a message is complete or the input is used up.
    fn step(&mut self, input: &mut Input<'_>) -> Result<Option<DecodedMessage>> {
        match self.advance(input) {
            Ok(r) => Ok(r),
            Err(e) => {
                self.state = State::Failed;
                Err(e.at(self.offset))
            }
        }
    }

    fn advance(&mut self, input: &mut Input<'_>) -> Result<Option<DecodedMessage>> {
        loop {
            match &mut self.state {
                State::Finished | State::Failed => return Ok(None),
                State::Prefix { bytes, have } => {
                    let want = if *have < 4 { 4 } else { 8 };
                    let got = input.take(want - *have);
                    if let Some(dst) = bytes.get_mut(*have..*have + got.len()) {
                        dst.copy_from_slice(got);
                    }
                    *have += got.len();
                    if *have < want {
                        return Ok(None);
                    }
                    let parsed =
                        parse_head(bytes.get(..*have).unwrap_or_default(), &self.options.limits)?;
                    match parsed {
                        // A continuation marker: the length follows.
                        None => {}
                        Some(Prefix::EndOfStream { len }) => {
                            self.offset += len as u64;
                            self.state = State::Finished;
                            return Ok(None);
                        }
                        Some(Prefix::Message(head)) => {
                            self.state = State::Metadata {
                                head,
                                bytes: Vec::new(),
                            };
                        }
                    }
                }
                State::Metadata { head, bytes } => {
                    let head = *head;
                    let need = head.metadata_len - bytes.len();
                    let meta = if bytes.is_empty() && input.rest().len() >= need {
                        // All of it in this chunk: parse it in place.
                        decode_metadata(input.take(need), &self.options)?
                    } else {
                        bytes.extend_from_slice(input.take(need));
                        if bytes.len() < head.metadata_len {
                            return Ok(None);
                        }
                        decode_metadata(bytes, &self.options)?
                    };
                    self.state = State::Body {
                        head,
                        meta,
                        bytes: MutableBuffer::new(0),
                    };
                }
                State::Body { bytes, meta, .. } => {
                    let total = meta.body_length();
                    let need = total - bytes.len() as u64;
                    let shared = if bytes.is_empty() {
                        usize::try_from(need)
                            .ok()
                            .and_then(|n| input.take_shared(n))
                    } else {
                        None
                    };
                    let body = match shared {
                        Some(b) => b,
                        None => {
                            let got = input.take(usize::try_from(need).unwrap_or(usize::MAX));
                            gather(bytes, got, total)?;
                            if (bytes.len() as u64) < total {
                                return Ok(None);
                            }
                            std::mem::replace(bytes, MutableBuffer::new(0)).into()
                        }
                    };
                    // The state is the body just completed: take its head and plan, and
                    // start on the next message.
                    let State::Body { head, meta, .. } =
                        std::mem::replace(&mut self.state, State::start())
                    else {
                        return Ok(None);
                    };
                    let start = self.offset;
                    let decoded = complete(head, meta, body, start, &self.options)?;
                    self.offset = start + decoded.total_length();
                    return Ok(Some(decoded));
                }
            }
        }
    }
}

/// Appends `got` to the body bytes gathered so far, growing the allocation with what has
/// arrived (doubling, capped at the declared length `total`), never ahead of it.
fn gather(bytes: &mut MutableBuffer, got: &[u8], total: u64) -> Result<()> {
    let need = bytes.len() + got.len();
    if need > bytes.capacity() {
        let cap = usize::try_from(total).unwrap_or(usize::MAX);
        let target = need
            .max(bytes.capacity().saturating_mul(2))
            .max(MIN_GROWTH)
            .min(cap)
            .max(need);
        let failed = || ErrorKind::AllocationFailed {
            what: "message body",
            bytes: target as u64,
        };
        if target >= bytes.capacity().saturating_mul(2) {
            bytes
                .try_reserve(target - bytes.len())
                .map_err(|_| failed())?;
        } else {
            // `reserve` would double the capacity, past the declared length.
            let mut grown = MutableBuffer::try_with_capacity(target).map_err(|_| failed())?;
            grown.extend_from_slice(bytes.as_slice());
            *bytes = grown;
        }
    }
    bytes.extend_from_slice(got);
    Ok(())
}
