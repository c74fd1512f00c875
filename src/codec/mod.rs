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

use crate::custom_metadata::{CustomMetadata, NAME_KEY};
use crate::{SparseTensor, Tensor};

/// A decoded message: a dense or a sparse tensor, with the `custom_metadata` of the
/// `Message` table (kept on the tensor: [`Message::custom_metadata`]).
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

    /// The message's `custom_metadata` (the tensor's: [`Tensor::custom_metadata`],
    /// [`SparseTensor::custom_metadata`]).
    pub fn custom_metadata(&self) -> Option<&CustomMetadata> {
        match self {
            Message::Tensor(t) => t.custom_metadata(),
            Message::SparseTensor(t) => t.custom_metadata(),
        }
    }

    /// This message with its `custom_metadata` set (or removed with `None`).
    pub fn with_custom_metadata(self, metadata: impl Into<Option<CustomMetadata>>) -> Self {
        match self {
            Message::Tensor(t) => Message::Tensor(t.with_custom_metadata(metadata)),
            Message::SparseTensor(t) => Message::SparseTensor(t.with_custom_metadata(metadata)),
        }
    }

    /// The name kept in the `custom_metadata` under [`NAME_KEY`] (such as the member name
    /// of an `.npz` bundle), if any.
    ///
    /// ```
    /// use arrow_tensor_ipc::{CustomMetadata, Message, Tensor, NAME_KEY};
    /// let t = Tensor::from_vec(vec![1], vec![7u8])?;
    /// let m = Message::from(t).with_custom_metadata(CustomMetadata::new([(NAME_KEY, "ids")]));
    /// assert_eq!(m.name(), Some("ids"));
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn name(&self) -> Option<&str> {
        self.custom_metadata()?.get(NAME_KEY)
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
