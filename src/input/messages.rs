//! The tensor messages of an input, read one at a time as they come (memory grows with one
//! message, never with the input), each failure placed at the offset of its message; and
//! what follows the last message.

use crate::error::{ErrorKind, Result};
use crate::{DecodedMessage, MessageReader, ReadOptions};
use std::io::{self, BufReader, Read};

/// What followed the last message of a stream of tensor messages read to its end
/// ([`InputTensors::ending`](super::InputTensors::ending)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamEnding {
    /// Bytes of the end-of-stream marker (0 when the stream simply ended).
    pub end_marker: u64,
    /// Bytes after the end-of-stream marker (which readers ignore).
    pub trailing: u64,
}

/// A stream of tensor messages; ends after the first error.
pub(super) struct MessageStream {
    reader: MessageReader<BufReader<Box<dyn Read + Send>>>,
    done: bool,
    consumed: u64,
}

impl MessageStream {
    /// The messages `reader` holds, from its start.
    pub(super) fn new(reader: Box<dyn Read + Send>, options: &ReadOptions) -> Self {
        MessageStream {
            reader: MessageReader::new(BufReader::with_capacity(1 << 16, reader), options),
            done: false,
            consumed: 0,
        }
    }

    /// Bytes of the messages decoded so far.
    pub(super) fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Reads what follows the last message (to the end of the input).
    pub(super) fn ending(self) -> Result<StreamEnding> {
        let end_marker = self.reader.offset().saturating_sub(self.consumed);
        let mut rest = self.reader.into_inner();
        let trailing =
            io::copy(&mut rest, &mut io::sink()).map_err(|source| ErrorKind::InputIo {
                step: "cannot read".into(),
                source,
            })?;
        Ok(StreamEnding {
            end_marker,
            trailing,
        })
    }

    /// The next message; an error carries the offset of the message it concerns.
    pub(super) fn next(&mut self) -> Option<Result<DecodedMessage>> {
        if self.done {
            return None;
        }
        // The reader advances its offset only past complete messages, so before a read it
        // is where the next message starts.
        let start = self.reader.offset();
        match self.reader.read_message() {
            Ok(Some(m)) => {
                self.consumed = self.consumed.saturating_add(m.total_length());
                Some(Ok(m))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(error) => {
                self.done = true;
                Some(Err(error.at(start)))
            }
        }
    }
}
