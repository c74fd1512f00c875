//! The sans-IO codec: bytes in, model out, and back. No module here does IO.
//!
//! Decoding, in the order the bytes flow:
//! - [`framing`]: the message prefix (either framing) and the end-of-stream marker;
//! - [`metadata`]: the `Message` flatbuffer -> [`MessageMeta`](metadata::MessageMeta), a
//!   checked plan of the body (Arrow 0.15's CSR schema included);
//! - [`body`]: the plan laid over the body [`Buffer`](arrow_buffer::Buffer) -> [`Message`],
//!   zero-copy;
//! - [`decode`](mod@decode): whole messages from memory ([`decode_message`],
//!   [`MessageIter`]);
//! - [`stream`]: [`StreamDecoder`], messages from byte chunks as they arrive.
//!
//! Encoding:
//! - [`encode`](mod@encode): [`Message`] -> [`EncodedMessage`] (a header plus body pieces
//!   that borrow the tensor's buffers);
//! - [`copy`]: how a message is copied into one piece of memory (`to_vec`, `write_into`,
//!   `to_bytes`).
//!
//! [`options`] holds the options of both directions.

pub(crate) mod body;
pub(crate) mod copy;
pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod framing;
pub(crate) mod metadata;
pub(crate) mod options;
pub(crate) mod stream;

use crate::{SparseTensor, Tensor};

/// A decoded message: a dense or a sparse tensor.
#[derive(Clone, Debug)]
pub enum Message {
    /// A dense tensor.
    Tensor(Tensor),
    /// A sparse tensor.
    SparseTensor(SparseTensor),
}

impl Message {
    /// The dense tensor, if this is one.
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Message::Tensor(t) => Some(t),
            Message::SparseTensor(_) => None,
        }
    }

    /// The sparse tensor, if this is one.
    pub fn as_sparse(&self) -> Option<&SparseTensor> {
        match self {
            Message::SparseTensor(t) => Some(t),
            Message::Tensor(_) => None,
        }
    }
}

impl From<Tensor> for Message {
    fn from(t: Tensor) -> Self {
        Message::Tensor(t)
    }
}

impl From<SparseTensor> for Message {
    fn from(t: SparseTensor) -> Self {
        Message::SparseTensor(t)
    }
}

pub use decode::{decode_message, DecodedMessage, MessageIter};
pub use encode::{encode, BodyPart, EncodedMessage};
pub use framing::Framing;
pub use metadata::MetadataVersion;
pub use options::{CsfLengths, Limits, ReadOptions, WriteOptions};
pub use stream::StreamDecoder;
