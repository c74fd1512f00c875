//! [`InputTensor`]: one tensor of an input with where it came from; and what every reader
//! of the input module does to a tensor it hands out (the limits) or fails to read (the
//! error placed at its origin).

use crate::error::{ErrorKind, Result};
use crate::{DecodedMessage, Error, Limits, Message, TensorOrigin};

/// One tensor of an input, and where it came from.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum InputTensor {
    /// A message of a stream of tensor messages, with where it starts in the stream and how
    /// it is encoded (framing, metadata version and lengths).
    Decoded(DecodedMessage),
    /// A tensor of another kind of input: of a record batch, of a file format, of a
    /// dataset.
    Read {
        /// The tensor.
        message: Message,
        /// Where it came from.
        origin: TensorOrigin,
    },
}

impl InputTensor {
    /// The tensor.
    pub fn message(&self) -> &Message {
        match self {
            InputTensor::Decoded(m) => &m.message,
            InputTensor::Read { message, .. } => message,
        }
    }

    /// The tensor, owned.
    pub fn into_message(self) -> Message {
        match self {
            InputTensor::Decoded(m) => m.message,
            InputTensor::Read { message, .. } => message,
        }
    }

    /// Where the tensor came from (for a message: [`TensorOrigin::Message`] and its
    /// offset).
    pub fn origin(&self) -> TensorOrigin {
        match self {
            InputTensor::Decoded(m) => TensorOrigin::Message { offset: m.offset },
            InputTensor::Read { origin, .. } => origin.clone(),
        }
    }
}

/// The error of the tensor at `origin`: the reader's error `source`, placed.
pub(super) fn failed(origin: TensorOrigin, source: Error) -> Error {
    ErrorKind::InputTensorFailed {
        origin,
        source: Box::new(source),
    }
    .into()
}

/// The rank and stored values of a tensor read from a record batch or a file format,
/// against the limits (a message's are checked by its decoder).
pub(super) fn check_limits(m: &Message, limits: &Limits) -> Result<()> {
    let (rank, nnz) = match m {
        Message::Tensor(t) => (t.ndim(), 0),
        Message::SparseTensor(s) => (s.ndim(), s.nnz() as u64),
    };
    let exceeded = |what, value: u64, limit: u64| -> Result<()> {
        Err(ErrorKind::LimitExceeded { what, value, limit }.into())
    };
    if rank > limits.max_rank {
        return exceeded("rank", rank as u64, limits.max_rank as u64);
    }
    if nnz > limits.max_nnz {
        return exceeded("nnz", nnz, limits.max_nnz);
    }
    Ok(())
}
