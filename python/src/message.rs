//! [`PyMessage`]: one decoded or built message (a dense tensor or a sparse tensor), its
//! parts as shared byte views, and the crate's conversions and encoder over it.

use crate::buffer::{BufferView, Filler};
use crate::{index_type_of, to_py_err, ArrowTensorError};
use arrow_buffer::Buffer;
use arrow_tensor_ipc::convert;
use arrow_tensor_ipc::{
    encode, ConvertOptions, CsfAxisOrder, ErrorKind, IndexArray, Message, NativeValue, Scalar,
    SparseFormat, SparseIndex, SparseTensor, Tensor, ValueType, WriteOptions,
};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::sync::atomic::{AtomicBool, Ordering};

/// Copies above this size run without the GIL.
const DETACH_BYTES: usize = 1 << 20;

/// One Arrow Tensor or SparseTensor message (the native half of `arrow_tensor_ipc.Tensor`
/// and `arrow_tensor_ipc.SparseTensor`). Immutable; its buffers are shared, not copied.
#[pyclass(module = "arrow_tensor_ipc._native", name = "Message", frozen)]
pub struct PyMessage {
    /// The message.
    pub inner: Message,
    /// Whether the index of a sparse tensor has passed the strict check (always true for a
    /// dense tensor, and for a sparse one validated when it was decoded or built): set once
    /// by [`PyMessage::check_index`], so that a message is checked at most once however
    /// many handoffs follow.
    index_checked: AtomicBool,
}

impl PyMessage {
    /// Wraps a message.
    pub fn new(inner: Message) -> Self {
        let checked = inner.as_sparse().is_none_or(SparseTensor::is_validated);
        PyMessage {
            inner,
            index_checked: AtomicBool::new(checked),
        }
    }

    /// Wraps a dense tensor.
    pub fn dense(t: Tensor) -> Self {
        Self::new(Message::Tensor(t))
    }

    /// Wraps a sparse tensor.
    pub fn sparse(t: SparseTensor) -> Self {
        Self::new(Message::SparseTensor(t))
    }

    /// The sparse tensor whose index has not passed the strict check yet, if this is one.
    fn unchecked_sparse(&self) -> Option<&SparseTensor> {
        match &self.inner {
            Message::SparseTensor(t) if !self.index_checked.load(Ordering::Acquire) => Some(t),
            _ => None,
        }
    }

    fn sparse_ref(&self) -> PyResult<&SparseTensor> {
        self.inner
            .as_sparse()
            .ok_or_else(|| ArrowTensorError::new_err("a dense tensor has no sparse index"))
    }
}

fn index_view(a: &IndexArray) -> (BufferView, &'static str) {
    (BufferView::new(a.buffer().clone()), a.index_type().name())
}

/// Parses a layout name (`dense`, `coo`, `csr`, `csc`, `csf`, any case); `None` for dense.
fn parse_format(name: &str) -> PyResult<Option<SparseFormat>> {
    Ok(Some(match name.to_ascii_lowercase().as_str() {
        "dense" => return Ok(None),
        "coo" => SparseFormat::Coo,
        "csr" => SparseFormat::Csr,
        "csc" => SparseFormat::Csc,
        "csf" => SparseFormat::Csf,
        _ => {
            return Err(ArrowTensorError::new_err(format!(
                "unknown format {name:?} (expected dense, coo, csr, csc or csf)"
            )))
        }
    }))
}

/// A CSF axis order argument: `None` (identity), `"identity"`, `"ascending_size"` (Arrow
/// C++'s choice) or a permutation of the dimensions.
fn parse_axis_order(obj: Option<&Bound<'_, PyAny>>) -> PyResult<CsfAxisOrder> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(CsfAxisOrder::Identity);
    };
    if let Ok(s) = obj.extract::<String>() {
        return match s.as_str() {
            "identity" => Ok(CsfAxisOrder::Identity),
            "ascending_size" => Ok(CsfAxisOrder::AscendingSize),
            _ => Err(ArrowTensorError::new_err(format!(
                "unknown axis_order {s:?} (expected a permutation, \"identity\" or \"ascending_size\")"
            ))),
        };
    }
    let order: Vec<usize> = obj.extract().map_err(|_| {
        ArrowTensorError::new_err("axis_order must be a sequence of non-negative dimension numbers")
    })?;
    Ok(CsfAxisOrder::Explicit(order))
}

/// A scalar as a Python int or float.
fn scalar_to_py(py: Python<'_>, s: Scalar) -> PyResult<Py<PyAny>> {
    Ok(match s {
        Scalar::Int8(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::Int16(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::Int32(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::Int64(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::UInt8(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::UInt16(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::UInt32(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::UInt64(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::Float16(v) => v.to_f64().into_pyobject(py)?.into_any().unbind(),
        Scalar::Float32(v) => f64::from(v).into_pyobject(py)?.into_any().unbind(),
        Scalar::Float64(v) => v.into_pyobject(py)?.into_any().unbind(),
    })
}

/// The bytes of a row-major dense tensor as a writable 1-D numpy array of its value type,
/// handed over without a copy when the buffer is a uniquely owned vector (the result of a
/// conversion), copied once otherwise.
pub(crate) fn owned_array<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    let data: Buffer =
        if t.is_row_major() && t.data().len() == t.len() * t.value_type().byte_width() {
            t.data().clone()
        } else {
            t.row_major_bytes()
        };
    buffer_array(py, data, t.value_type())
}

/// `data`, little-endian values of `vt`, as a writable 1-D numpy array: the vector handed
/// over without a copy when `data` owns it alone (a conversion's result), copied once
/// otherwise.
pub(crate) fn buffer_array<'py>(
    py: Python<'py>,
    data: Buffer,
    vt: ValueType,
) -> PyResult<Bound<'py, PyAny>> {
    match vt {
        ValueType::Int8 => vec_array::<i8>(py, data),
        ValueType::Int16 => vec_array::<i16>(py, data),
        ValueType::Int32 => vec_array::<i32>(py, data),
        ValueType::Int64 => vec_array::<i64>(py, data),
        ValueType::UInt8 => vec_array::<u8>(py, data),
        ValueType::UInt16 => vec_array::<u16>(py, data),
        ValueType::UInt32 => vec_array::<u32>(py, data),
        ValueType::UInt64 => vec_array::<u64>(py, data),
        ValueType::Float16 => vec_array::<arrow_tensor_ipc::f16>(py, data),
        ValueType::Float32 => vec_array::<f32>(py, data),
        ValueType::Float64 => vec_array::<f64>(py, data),
    }
}

/// `data` as a 1-D numpy array of `T`, taking the vector over when it is uniquely owned.
fn vec_array<'py, T: NativeValue + numpy::Element>(
    py: Python<'py>,
    data: Buffer,
) -> PyResult<Bound<'py, PyAny>> {
    match data.into_vec::<T>() {
        Ok(v) => Ok(PyArray1::from_vec(py, v).into_any()),
        Err(data) => Ok(PyArray1::from_slice(py, data.typed_data::<T>()).into_any()),
    }
}

#[pymethods]
impl PyMessage {
    /// `"dense"`, `"COO"`, `"CSR"`, `"CSC"` or `"CSF"`.
    #[getter]
    fn format(&self) -> &'static str {
        match &self.inner {
            Message::Tensor(_) => "dense",
            Message::SparseTensor(t) => t.format().name(),
        }
    }

    /// Value type name (`int8` .. `uint64`, `float16`, `float32`, `float64`).
    #[getter]
    fn value_type(&self) -> &'static str {
        match &self.inner {
            Message::Tensor(t) => t.value_type().name(),
            Message::SparseTensor(t) => t.value_type().name(),
        }
    }

    /// The shape.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let shape = match &self.inner {
            Message::Tensor(t) => t.shape(),
            Message::SparseTensor(t) => t.shape(),
        };
        PyTuple::new(py, shape)
    }

    /// The dimension names (`""` for an unnamed dimension).
    #[getter]
    fn dim_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let names = match &self.inner {
            Message::Tensor(t) => t.dim_names(),
            Message::SparseTensor(t) => t.dim_names(),
        };
        PyTuple::new(py, names)
    }

    /// Byte strides of a dense tensor (`None` for a sparse tensor).
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        match &self.inner {
            Message::Tensor(t) => Ok(Some(PyTuple::new(py, t.strides())?)),
            Message::SparseTensor(_) => Ok(None),
        }
    }

    /// Stored values of a sparse tensor (`None` for a dense tensor).
    #[getter]
    fn nnz(&self) -> Option<usize> {
        self.inner.as_sparse().map(SparseTensor::nnz)
    }

    /// Whether a COO index is flagged canonical (`None` for other layouts).
    #[getter]
    fn is_canonical(&self) -> Option<bool> {
        match self.inner.as_sparse()?.index() {
            SparseIndex::Coo(c) => Some(c.is_canonical()),
            _ => None,
        }
    }

    /// `"row"` or `"column"`: the layout of a COO coordinate matrix (`None` otherwise).
    #[getter]
    fn coords_order(&self) -> Option<&'static str> {
        match self.inner.as_sparse()?.index() {
            SparseIndex::Coo(c) => Some(match c.order() {
                arrow_tensor_ipc::CooOrder::RowMajor => "row",
                arrow_tensor_ipc::CooOrder::ColumnMajor => "column",
            }),
            _ => None,
        }
    }

    /// The CSF axis order (`None` for other layouts).
    #[getter]
    fn axis_order<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        match self.inner.as_sparse().map(SparseTensor::index) {
            Some(SparseIndex::Csf(c)) => Ok(Some(PyTuple::new(py, c.axis_order())?)),
            _ => Ok(None),
        }
    }

    /// The data buffer of a dense tensor (element `idx` at byte `sum(idx * strides)`).
    fn data(&self) -> PyResult<BufferView> {
        match &self.inner {
            Message::Tensor(t) => Ok(BufferView::new(t.data().clone())),
            Message::SparseTensor(_) => Err(ArrowTensorError::new_err(
                "a sparse tensor has no dense data buffer",
            )),
        }
    }

    /// The stored values of a sparse tensor (`nnz` values).
    fn values(&self) -> PyResult<BufferView> {
        Ok(BufferView::new(self.sparse_ref()?.values_buffer().clone()))
    }

    /// The COO coordinate matrix and its index type.
    fn coords(&self) -> PyResult<(BufferView, &'static str)> {
        match self.sparse_ref()?.index() {
            SparseIndex::Coo(c) => Ok(index_view(c.indices())),
            _ => Err(ArrowTensorError::new_err("only a COO tensor has coords")),
        }
    }

    /// The indptr arrays (one for CSR/CSC, `ndim - 1` for CSF) with their index types.
    fn indptr(&self) -> PyResult<Vec<(BufferView, &'static str)>> {
        match self.sparse_ref()?.index() {
            SparseIndex::Csx(c) => Ok(vec![index_view(c.indptr())]),
            SparseIndex::Csf(c) => Ok(c.indptr().iter().map(index_view).collect()),
            SparseIndex::Coo(_) => Err(ArrowTensorError::new_err("a COO tensor has no indptr")),
        }
    }

    /// The indices arrays (one for CSR/CSC, `ndim` for CSF) with their index types.
    fn indices(&self) -> PyResult<Vec<(BufferView, &'static str)>> {
        match self.sparse_ref()?.index() {
            SparseIndex::Csx(c) => Ok(vec![index_view(c.indices())]),
            SparseIndex::Csf(c) => Ok(c.indices().iter().map(index_view).collect()),
            SparseIndex::Coo(_) => Err(ArrowTensorError::new_err("a COO tensor has no indices")),
        }
    }

    /// The value at a logical index (a sum for duplicates of a non-canonical COO).
    fn get(&self, py: Python<'_>, coords: Vec<usize>) -> PyResult<Py<PyAny>> {
        let s = match &self.inner {
            Message::Tensor(t) => t.get(&coords),
            Message::SparseTensor(t) => t.get(&coords),
        }
        .map_err(to_py_err)?;
        scalar_to_py(py, s)
    }

    /// The dense contents, row-major, as a new writable 1-D numpy array (duplicates of a
    /// non-canonical COO summed); `max_elements` bounds the expansion.
    #[pyo3(signature = (max_elements = None))]
    fn to_dense_array<'py>(
        &self,
        py: Python<'py>,
        max_elements: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match &self.inner {
            Message::Tensor(t) => owned_array(py, t),
            Message::SparseTensor(t) => {
                let limit = max_elements.unwrap_or(usize::MAX);
                let dense = py
                    .detach(|| {
                        convert::to_dense(
                            t,
                            &arrow_tensor_ipc::ConvertOptions::default()
                                .with_max_dense_elements(limit),
                        )
                    })
                    .map_err(to_py_err)?;
                owned_array(py, &dense)
            }
        }
    }

    /// Converts to another layout with the crate's converters (`"dense"` expands).
    ///
    /// `index_type` names the integer type of the result's index arrays (default: the
    /// narrowest Arrow C++ reads); `axis_order` the CSF dimension order; `drop_zeros` leaves
    /// out stored zeros of a sparse input.
    #[pyo3(signature = (format, index_type = None, axis_order = None, drop_zeros = false))]
    fn to_format(
        &self,
        py: Python<'_>,
        format: &str,
        index_type: Option<&str>,
        axis_order: Option<&Bound<'_, PyAny>>,
        drop_zeros: bool,
    ) -> PyResult<PyMessage> {
        let target = parse_format(format)?;
        let mut options = ConvertOptions::default()
            .with_axis_order(parse_axis_order(axis_order)?)
            .with_drop_zeros(drop_zeros);
        if let Some(name) = index_type {
            options = options.with_index_type(index_type_of(name)?);
        }
        let inner = &self.inner;
        let result = py.detach(|| -> arrow_tensor_ipc::Result<Message> {
            Ok(match (inner, target) {
                (Message::Tensor(t), None) => Message::Tensor(t.clone()),
                (Message::SparseTensor(t), None) => Message::Tensor(t.to_dense()?),
                (Message::Tensor(t), Some(f)) => {
                    Message::SparseTensor(t.to_sparse_with(f, &options)?)
                }
                (Message::SparseTensor(t), Some(f)) => {
                    Message::SparseTensor(t.to_format_with(f, &options)?)
                }
            })
        });
        Ok(PyMessage::new(result.map_err(to_py_err)?))
    }

    /// The same message with other dimension names (one per dimension, `""` = unnamed).
    fn with_dim_names(&self, names: Vec<String>) -> PyResult<PyMessage> {
        let inner = match &self.inner {
            Message::Tensor(t) => {
                Message::Tensor(t.clone().with_dim_names(names).map_err(to_py_err)?)
            }
            Message::SparseTensor(t) => {
                Message::SparseTensor(t.clone().with_dim_names(names).map_err(to_py_err)?)
            }
        };
        let out = PyMessage::new(inner);
        if self.index_checked.load(Ordering::Acquire) {
            out.index_checked.store(true, Ordering::Release);
        }
        Ok(out)
    }

    /// One encapsulated message as `bytes` (each body buffer copied once, straight into the
    /// bytes object, which is never zero-filled first). `arrow_compatible` refuses what
    /// Arrow C++ cannot read. With `check`, a sparse tensor built without validating its
    /// index values (a constructor's `validate=False`) is validated strictly now, on a second
    /// thread while the buffers are copied when the message is large; an invalid index
    /// raises and no bytes are returned.
    #[pyo3(signature = (arrow_compatible = true, check = false))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        arrow_compatible: bool,
        check: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let unchecked = self.unchecked_sparse().filter(|_| check);
        let options = WriteOptions::default().with_arrow_compatible(arrow_compatible);
        let encoded = encode(&self.inner, &options).map_err(to_py_err)?;
        let len = encoded.len();
        if len < DETACH_BYTES {
            if let Some(t) = unchecked {
                t.check_contents().map_err(to_py_err)?;
            }
        }
        let (bytes, mut out) = crate::buffer::new_bytes(py, len)?;
        let fill = |out: &mut Filler<'_>| out.put_message(&encoded);
        if len >= DETACH_BYTES {
            py.detach(|| match unchecked {
                Some(t) => std::thread::scope(|s| {
                    let checker = s.spawn(|| t.check_contents());
                    fill(&mut out);
                    match checker.join() {
                        Ok(result) => result,
                        Err(_) => Err(ErrorKind::WorkerFailed {
                            job: "the index check of dumps",
                        }
                        .into()),
                    }
                }),
                None => {
                    fill(&mut out);
                    Ok(())
                }
            })
            .map_err(to_py_err)?;
        } else {
            fill(&mut out);
        }
        let bytes = bytes.finish(out)?;
        if unchecked.is_some() {
            self.index_checked.store(true, Ordering::Release);
        }
        Ok(bytes)
    }

    /// Whether the index is known to follow every rule of its layout: a dense tensor, a
    /// sparse tensor decoded or built with strict validation, or one whose index has passed
    /// [`PyMessage::check_index`] since.
    #[getter]
    fn is_validated(&self) -> bool {
        self.index_checked.load(Ordering::Acquire)
    }

    /// Checks a sparse tensor's index strictly (every rule of its layout, as strict
    /// decoding does: coordinates within the shape, indptr non-decreasing from 0 to nnz,
    /// ...) before its arrays are handed to `receiver`, a library that trusts them (scipy,
    /// pyarrow). O(index) at memory bandwidth, without the GIL for large indexes, and done
    /// once: the result is recorded, so a validated message is never checked again. A no-op
    /// for dense tensors. An invalid index raises `ArrowTensorError` naming the buffer,
    /// the position and the rule.
    #[pyo3(signature = (receiver = "the caller"))]
    fn check_index(&self, py: Python<'_>, receiver: &str) -> PyResult<()> {
        let Some(t) = self.unchecked_sparse() else {
            return Ok(());
        };
        let index_bytes: usize = match t.index() {
            SparseIndex::Coo(c) => c.indices().buffer().len(),
            SparseIndex::Csx(c) => c.indptr().buffer().len() + c.indices().buffer().len(),
            SparseIndex::Csf(c) => c
                .indptr()
                .iter()
                .chain(c.indices())
                .map(|a| a.buffer().len())
                .sum(),
        };
        let result = if index_bytes >= DETACH_BYTES {
            py.detach(|| t.check_contents())
        } else {
            t.check_contents()
        };
        result.map_err(|e| {
            ArrowTensorError::new_err(format!(
                "the index of this {} tensor (not validated when it was read) breaks the \
                 format's rules, so it is not handed to {receiver}: {e}",
                t.format().name()
            ))
        })?;
        self.index_checked.store(true, Ordering::Release);
        Ok(())
    }

    fn __repr__(&self) -> String {
        let (vt, shape) = match &self.inner {
            Message::Tensor(t) => (t.value_type(), t.shape()),
            Message::SparseTensor(t) => (t.value_type(), t.shape()),
        };
        format!(
            "<arrow_tensor_ipc._native.Message {} {} {:?}>",
            self.format(),
            vt.name(),
            shape
        )
    }
}
