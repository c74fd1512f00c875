//! placeholder
mod array;
pub mod codec;
mod error;
pub mod gen;
mod io;
pub mod sparse;
mod tensor;
mod types;
mod validate;
pub use array::{IndexArray, Misaligned};
pub use codec::{
    decode_message, encode, CsfLengths, DecodedMessage, EncodedMessage, Framing, Limits, Message,
    MessageIter, MetadataVersion, ReadOptions, WriteOptions,
};
pub use error::{BufferId, Error, ErrorKind, Result};
pub use io::{MessageReader, MessageWriter};
pub use sparse::{
    CompressedAxis, CooIndex, CooOrder, CsfIndex, CsxIndex, NonZero, SparseFormat, SparseIndex,
    SparseTensor,
};
pub use tensor::Tensor;
pub use types::{IndexType, NativeIndex, NativeValue, Scalar, ValueType};
pub use validate::Validation;
