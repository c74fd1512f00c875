//! The native half of the `arrow_tensor_ipc` Python package: Arrow Tensor and SparseTensor
//! IPC messages over the `arrow-tensor-ipc` crate, zero-copy both ways.
//!
//! The Python package (`arrow_tensor_ipc/__init__.py`) turns numpy, scipy and pyarrow
//! objects into the plain arrays this module takes, and wraps [`message::PyMessage`] in the
//! public `Tensor` and `SparseTensor` classes. Decoding, validation, conversions and
//! encoding are the crate's.
//!
//! Built for the stable ABI of CPython 3.11 and later (`abi3-py311`): the buffer protocol
//! this module uses in both directions is part of the limited API from 3.11, so one wheel
//! serves every later CPython at no cost to the zero-copy paths.

mod buffer;
mod message;
mod parts;
mod stream;

use arrow_tensor_ipc::{IndexType, ValueType};
use pyo3::prelude::*;

pyo3::create_exception!(
    arrow_tensor_ipc,
    ArrowTensorError,
    pyo3::exceptions::PyValueError,
    "An invalid message, or a tensor that cannot be built, converted or written; the message is the Rust crate's error."
);

/// A crate error as an `ArrowTensorError` with the same message.
pub(crate) fn to_py_err(e: arrow_tensor_ipc::Error) -> PyErr {
    ArrowTensorError::new_err(e.to_string())
}

/// A value type from its name.
pub(crate) fn value_type_of(name: &str) -> PyResult<ValueType> {
    ValueType::from_name(name).ok_or_else(|| {
        ArrowTensorError::new_err(format!(
            "unsupported value type {name:?} (expected int8..int64, uint8..uint64, float16, float32 or float64)"
        ))
    })
}

/// An index type from its name.
pub(crate) fn index_type_of(name: &str) -> PyResult<IndexType> {
    IndexType::from_name(name).ok_or_else(|| {
        ArrowTensorError::new_err(format!(
            "unsupported index type {name:?} (expected int8..int64 or uint8..uint64)"
        ))
    })
}

/// The extension module `arrow_tensor_ipc._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ArrowTensorError", m.py().get_type::<ArrowTensorError>())?;
    m.add_class::<message::PyMessage>()?;
    m.add_class::<buffer::BufferView>()?;
    m.add_class::<stream::MessageStream>()?;
    m.add_function(wrap_pyfunction!(parts::dense, m)?)?;
    m.add_function(wrap_pyfunction!(parts::coo, m)?)?;
    m.add_function(wrap_pyfunction!(parts::csx, m)?)?;
    m.add_function(wrap_pyfunction!(parts::csf, m)?)?;
    m.add_function(wrap_pyfunction!(stream::decode_all, m)?)?;
    m.add_function(wrap_pyfunction!(stream::decode_one, m)?)?;
    m.add_function(wrap_pyfunction!(stream::write_path, m)?)?;
    m.add_function(wrap_pyfunction!(stream::write_file, m)?)?;
    Ok(())
}
