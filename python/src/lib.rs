//! The native half of the `arrow_tensor_ipc` Python package: Arrow Tensor and SparseTensor
//! IPC messages over the `arrow-tensor-ipc` crate, zero-copy both ways.
//!
//! The Python package (`arrow_tensor_ipc/__init__.py`) turns numpy, scipy and pyarrow
//! objects into the plain arrays this module takes, and wraps [`message::PyMessage`] in the
//! public `Tensor` and `SparseTensor` classes. Decoding, validation, conversions, encoding
//! and COO tables ([`coo_table`]) are the crate's.
//!
//! Built for the stable ABI of CPython 3.11 and later (`abi3-py311`): the buffer protocol
//! this module uses in both directions is part of the limited API from 3.11, so one wheel
//! serves every later CPython at no cost to the zero-copy paths.

mod buffer;
mod coo_table;
mod dataset;
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

/// The attributes an `ArrowTensorError` carries besides its message: the kind of error and
/// where it happened (`None` where unknown or not applicable).
const ERROR_ATTRIBUTES: [&str; 10] = [
    "kind",
    "position",
    "file",
    "message_offset",
    "line",
    "member",
    "byte",
    "batch",
    "column",
    "row",
];

/// A crate error as an `ArrowTensorError` with the same message, its kind
/// ([`arrow_tensor_ipc::ErrorKind::name`]) and its position as attributes.
pub(crate) fn to_py_err(e: arrow_tensor_ipc::Error) -> PyErr {
    use arrow_tensor_ipc::{Location, Position};
    let err = ArrowTensorError::new_err(e.to_string());
    Python::attach(|py| {
        let value = err.value(py);
        let set = |name: &str, v: Bound<'_, PyAny>| {
            // Setting an attribute on a fresh exception instance does not fail; if it ever
            // did, the exception keeps its message and the class default (None).
            let _ = value.setattr(name, v);
        };
        set(
            "kind",
            pyo3::types::PyString::new(py, e.kind().name()).into_any(),
        );
        let Some(position) = e.position() else {
            return;
        };
        let text = position.to_string();
        set("position", pyo3::types::PyString::new(py, &text).into_any());
        let int = |v: u64| match v.into_pyobject(py) {
            Ok(o) => o.into_any(),
            Err(never) => match never {},
        };
        let string = |v: &str| pyo3::types::PyString::new(py, v).into_any();
        match position {
            Position::Message { offset } => set("message_offset", int(offset)),
            Position::File(Location::Line(n)) => set("line", int(n)),
            Position::File(Location::Byte(b)) => set("byte", int(b)),
            Position::File(Location::Member(m)) => set("member", string(&m)),
            Position::DatasetFile { file, row } => {
                set("file", string(&file));
                if let Some(r) = row {
                    set("row", int(r));
                }
            }
            Position::Batch { batch, column, row } => {
                if let Some(b) = batch {
                    set("batch", int(b));
                }
                if let Some(c) = column {
                    set("column", string(&c));
                }
                if let Some(r) = row {
                    set("row", int(r as u64));
                }
            }
            _ => {}
        }
    });
    err
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
    let error_type = m.py().get_type::<ArrowTensorError>();
    for name in ERROR_ATTRIBUTES {
        error_type.setattr(name, m.py().None())?;
    }
    m.add("ArrowTensorError", error_type)?;
    m.add_class::<message::PyMessage>()?;
    m.add_class::<buffer::BufferView>()?;
    m.add_class::<stream::MessageStream>()?;
    m.add_class::<dataset::PyDataset>()?;
    m.add_function(wrap_pyfunction!(dataset::read_tile, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::create_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::write_tile, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::write_manifest, m)?)?;
    m.add_function(wrap_pyfunction!(dataset::is_url, m)?)?;
    m.add_function(wrap_pyfunction!(parts::dense, m)?)?;
    m.add_function(wrap_pyfunction!(parts::coo, m)?)?;
    m.add_function(wrap_pyfunction!(parts::csx, m)?)?;
    m.add_function(wrap_pyfunction!(parts::csf, m)?)?;
    m.add_function(wrap_pyfunction!(coo_table::to_coo_table, m)?)?;
    m.add_function(wrap_pyfunction!(coo_table::from_coo_table, m)?)?;
    m.add_function(wrap_pyfunction!(coo_table::coordinate_type, m)?)?;
    m.add(
        "COO_TABLE_KEY",
        arrow_tensor_ipc::record_batch::COO_TABLE_KEY,
    )?;
    m.add("VALUE_COLUMN", arrow_tensor_ipc::record_batch::VALUE_COLUMN)?;
    m.add_function(wrap_pyfunction!(stream::decode_all, m)?)?;
    m.add_function(wrap_pyfunction!(stream::decode_one, m)?)?;
    m.add_function(wrap_pyfunction!(stream::write_path, m)?)?;
    m.add_function(wrap_pyfunction!(stream::write_file, m)?)?;
    m.add_function(wrap_pyfunction!(stream::write_url, m)?)?;
    Ok(())
}
