//! Reading the messages of a file, with the offset of a failing message.

use arrow_tensor_ipc::{DecodedMessage, Error, MessageReader, ReadOptions};
use std::io::{self, BufReader, Read};

/// A message that failed to decode (or the read that failed), with where it starts.
pub struct ReadError {
    /// Byte offset of the message in the file.
    pub offset: u64,
    /// What went wrong.
    pub error: Error,
}

impl ReadError {
    /// The error without its offset (which callers print separately).
    pub fn description(&self) -> String {
        self.error.kind().to_string()
    }
}

/// The messages of one input, read one at a time (memory grows with one message, never
/// with the input). Ends after the first error.
pub struct FileMessages {
    reader: MessageReader<BufReader<Box<dyn Read>>>,
    done: bool,
    count: u64,
    consumed: u64,
}

/// The messages `reader` holds, from its start.
pub fn messages(reader: Box<dyn Read>, options: ReadOptions) -> FileMessages {
    FileMessages {
        reader: MessageReader::new(BufReader::with_capacity(1 << 16, reader), &options),
        done: false,
        count: 0,
        consumed: 0,
    }
}

/// What followed the last message of a file that was read to its end.
pub struct Ending {
    /// Bytes of end-of-stream marker (0 when the file simply ended).
    pub eos_len: u64,
    /// Bytes after the end-of-stream marker (ignored by readers).
    pub trailing: u64,
}

impl FileMessages {
    /// Messages decoded so far.
    pub fn decoded(&self) -> u64 {
        self.count
    }

    /// Bytes of the messages decoded so far.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Reads what follows the last message. Call after the iterator returned `None`
    /// without an error.
    pub fn ending(self) -> io::Result<Ending> {
        let eos_len = self.reader.offset().saturating_sub(self.consumed);
        let mut rest = self.reader.into_inner();
        let trailing = io::copy(&mut rest, &mut io::sink())?;
        Ok(Ending { eos_len, trailing })
    }
}

impl Iterator for FileMessages {
    type Item = Result<DecodedMessage, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        // The reader advances its offset only past complete messages, so before a read it
        // is where the next message starts.
        let start = self.reader.offset();
        match self.reader.read_message() {
            Ok(Some(m)) => {
                self.count += 1;
                self.consumed = self.consumed.saturating_add(m.total_length());
                Some(Ok(m))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(error) => {
                self.done = true;
                Some(Err(ReadError {
                    offset: error.message_offset().unwrap_or(start),
                    error,
                }))
            }
        }
    }
}

/// The largest power of two, up to 64, that divides `offset` (64 for offset 0).
pub fn alignment(offset: u64) -> u64 {
    if offset == 0 {
        64
    } else {
        (1u64 << offset.trailing_zeros().min(6)).min(64)
    }
}

/// Refuses to enumerate a dense tensor whose strides alias (zero or overlapping strides:
/// more logical elements than its buffer stores) when it has more than `limit` elements.
///
/// Such a tensor is valid (numpy broadcasting views look like this), but a message of a few
/// hundred bytes may then describe 2^40 elements, and listing or re-encoding them all would
/// exhaust memory. Tensors whose elements each have their own storage are always accepted:
/// their size is bounded by the body that was read.
pub fn aliased_expansion(t: &arrow_tensor_ipc::Tensor, limit: usize) -> Option<String> {
    let width = t.value_type().byte_width();
    let stored = t.data().len() / width;
    (t.len() > stored && t.len() > limit).then(|| {
        format!(
            "{} elements with strides {:?} share a buffer of {} values; expanding more than \
             {limit} elements of such a tensor is refused",
            t.len(),
            t.strides(),
            stored
        )
    })
}
