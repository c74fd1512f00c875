//! placeholder
pub mod gen;
mod array;
mod error;
pub mod sparse;
mod tensor;
mod types;
mod validate;
pub use array::{IndexArray, Misaligned};
pub use error::{BufferId, Error, ErrorKind, Result};
pub use sparse::{CompressedAxis, CooIndex, CooOrder, CsfIndex, CsxIndex, NonZero, SparseFormat, SparseIndex, SparseTensor};
pub use tensor::Tensor;
pub use types::{IndexType, NativeIndex, NativeValue, Scalar, ValueType};
pub use validate::Validation;
