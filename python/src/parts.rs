//! Messages built from Python arrays, zero-copy: each array's memory becomes a buffer of
//! the tensor (see [`crate::buffer`]); the crate's constructors validate the parts.

use crate::buffer::{source_buffer, strided_source};
use crate::message::PyMessage;
use crate::{index_type_of, to_py_err, value_type_of, ArrowTensorError};
use arrow_tensor_ipc::{
    CompressedAxis, CooIndex, CsfIndex, CsxIndex, IndexArray, SparseIndex, SparseTensor, Tensor,
    Validation,
};
use pyo3::prelude::*;

fn index_array(obj: &Bound<'_, PyAny>, index_type: &str) -> PyResult<IndexArray> {
    IndexArray::try_new(index_type_of(index_type)?, source_buffer(obj)?).map_err(to_py_err)
}

/// The validation level of a sparse constructor: strict, or (`validate=False`) the structure
/// only, for `dumps`, which checks the index values while it copies the buffers
/// ([`PyMessage::encode`] with `check=True`) and never hands the message out.
fn validation(validate: bool) -> Validation {
    if validate {
        Validation::Strict
    } else {
        Validation::Permissive
    }
}

fn named_sparse(t: SparseTensor, dim_names: Option<Vec<String>>) -> PyResult<PyMessage> {
    let t = match dim_names {
        Some(names) => t.with_dim_names(names).map_err(to_py_err)?,
        None => t,
    };
    Ok(PyMessage::sparse(t))
}

/// A dense tensor over an array's memory (any non-negative strides, no copy).
///
/// `array` is any buffer-protocol object whose items are little-endian values of
/// `value_type` (a numpy array, a memoryview). With `scalar`, `array` holds one element
/// and the tensor has rank 0 (the buffer protocol has no shape for 0-d arrays).
#[pyfunction]
#[pyo3(signature = (value_type, array, dim_names = None, scalar = false))]
pub fn dense(
    value_type: &str,
    array: &Bound<'_, PyAny>,
    dim_names: Option<Vec<String>>,
    scalar: bool,
) -> PyResult<PyMessage> {
    let vt = value_type_of(value_type)?;
    let (buffer, mut shape, mut strides, item_size) = strided_source(array)?;
    if scalar {
        if shape.iter().product::<usize>() != 1 {
            return Err(ArrowTensorError::new_err(
                "a rank-0 tensor is built from exactly one element",
            ));
        }
        shape.clear();
        strides.clear();
    }
    if item_size != vt.byte_width() {
        return Err(ArrowTensorError::new_err(format!(
            "array items are {item_size} bytes wide, {value_type} values {}",
            vt.byte_width()
        )));
    }
    let mut t = Tensor::try_new(vt, shape, strides, buffer).map_err(to_py_err)?;
    if let Some(names) = dim_names {
        t = t.with_dim_names(names).map_err(to_py_err)?;
    }
    Ok(PyMessage::dense(t))
}

/// A COO tensor: `coords` holds the row-major `nnz x ndim` coordinate matrix (C-contiguous,
/// of `index_type`), `values` the `nnz` values. Duplicate coordinates are allowed (the
/// canonical flag is computed). `validate=False` defers the strict check of the
/// coordinates (see [`validation`]).
#[pyfunction]
#[pyo3(signature = (value_type, shape, values, coords, index_type, dim_names = None, validate = true))]
pub fn coo(
    value_type: &str,
    shape: Vec<usize>,
    values: &Bound<'_, PyAny>,
    coords: &Bound<'_, PyAny>,
    index_type: &str,
    dim_names: Option<Vec<String>>,
    validate: bool,
) -> PyResult<PyMessage> {
    let vt = value_type_of(value_type)?;
    let index = CooIndex::new(index_array(coords, index_type)?, shape.len()).map_err(to_py_err)?;
    let t = SparseTensor::try_new_with_validation(
        vt,
        shape,
        source_buffer(values)?,
        SparseIndex::Coo(index),
        validation(validate),
    )
    .map_err(to_py_err)?;
    named_sparse(t, dim_names)
}

/// A CSR (`row=True`) or CSC matrix from its three arrays (each C-contiguous).
/// `validate=False` defers the strict check of indptr and indices (see [`validation`]).
#[pyfunction]
#[pyo3(signature = (row, value_type, shape, values, indptr, indptr_type, indices, indices_type, dim_names = None, validate = true))]
#[allow(clippy::too_many_arguments)]
pub fn csx(
    row: bool,
    value_type: &str,
    shape: Vec<usize>,
    values: &Bound<'_, PyAny>,
    indptr: &Bound<'_, PyAny>,
    indptr_type: &str,
    indices: &Bound<'_, PyAny>,
    indices_type: &str,
    dim_names: Option<Vec<String>>,
    validate: bool,
) -> PyResult<PyMessage> {
    let vt = value_type_of(value_type)?;
    let axis = if row {
        CompressedAxis::Row
    } else {
        CompressedAxis::Column
    };
    let index = CsxIndex::new(
        axis,
        index_array(indptr, indptr_type)?,
        index_array(indices, indices_type)?,
    )
    .map_err(crate::to_py_err)?;
    let t = SparseTensor::try_new_with_validation(
        vt,
        shape,
        source_buffer(values)?,
        SparseIndex::Csx(index),
        validation(validate),
    )
    .map_err(to_py_err)?;
    named_sparse(t, dim_names)
}

/// A CSF tensor from `ndim - 1` indptr and `ndim` indices arrays (each C-contiguous, of
/// `index_type`) and its axis order. `validate=False` defers the strict check of the index
/// arrays (see [`validation`]).
#[pyfunction]
#[pyo3(signature = (value_type, shape, values, indptr, indices, index_type, axis_order, dim_names = None, validate = true))]
#[allow(clippy::too_many_arguments)]
pub fn csf(
    value_type: &str,
    shape: Vec<usize>,
    values: &Bound<'_, PyAny>,
    indptr: Vec<Bound<'_, PyAny>>,
    indices: Vec<Bound<'_, PyAny>>,
    index_type: &str,
    axis_order: Vec<usize>,
    dim_names: Option<Vec<String>>,
    validate: bool,
) -> PyResult<PyMessage> {
    let vt = value_type_of(value_type)?;
    let indptr = indptr
        .iter()
        .map(|a| index_array(a, index_type))
        .collect::<PyResult<Vec<_>>>()?;
    let indices = indices
        .iter()
        .map(|a| index_array(a, index_type))
        .collect::<PyResult<Vec<_>>>()?;
    let index = CsfIndex::new(axis_order, indptr, indices).map_err(crate::to_py_err)?;
    let t = SparseTensor::try_new_with_validation(
        vt,
        shape,
        source_buffer(values)?,
        SparseIndex::Csf(index),
        validation(validate),
    )
    .map_err(to_py_err)?;
    named_sparse(t, dim_names)
}
