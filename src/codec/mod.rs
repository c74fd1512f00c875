//! The sans-IO codec: bytes in, model out, and back.
//!
//! - [`framing`]: the message prefix and end-of-stream marker;
//! - [`decode`](mod@decode): metadata flatbuffer -> [`MessageMeta`] (a plan of the body) ->
//!   [`Message`] over a body [`Buffer`](arrow_buffer::Buffer), zero-copy;
//! - [`encode`](mod@encode): [`Message`] -> [`EncodedMessage`] (a header plus body pieces that
//!   borrow the tensor's buffers).

pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod framing;
pub(crate) mod options;

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

pub use decode::{decode_message, DecodedMessage, MessageIter, MetadataVersion};
pub use encode::{encode, BodyPart, EncodedMessage};
pub use framing::Framing;
pub use options::{CsfLengths, Limits, ReadOptions, WriteOptions};
