//! COO tables over the crate's `record_batch` module: the columns cross as buffers
//! ([`BufferView`] out, [`source_buffer`] in, no copies), pyarrow assembles the table from
//! them or hands them over; the rules of the table (schema, metadata, which columns, shape,
//! checks, row order, duplicates, the result's layout) are the crate's.

use crate::buffer::{source_buffer, BufferView};
use crate::message::PyMessage;
use crate::to_py_err;
use arrow_array::{make_array, Array, ArrayRef, NullArray, RecordBatch};
use arrow_buffer::{BooleanBufferBuilder, Buffer, MutableBuffer, NullBuffer};
use arrow_data::{ArrayData, ArrayDataBuilder};
use arrow_schema::{DataType, Field, Schema};
use arrow_tensor_ipc::record_batch::{
    dense_to_coo_table, sparse_to_coo_table, CooColumns, VALUE_COLUMN,
};
use arrow_tensor_ipc::{ConvertOptions, Error, ErrorKind, Message, SparseFormat, ValueType};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::HashMap;
use std::sync::Arc;

/// The Arrow type of a tensor value type (the eleven primitive types a column crosses as).
fn data_type(t: ValueType) -> DataType {
    match t {
        ValueType::Int8 => DataType::Int8,
        ValueType::Int16 => DataType::Int16,
        ValueType::Int32 => DataType::Int32,
        ValueType::Int64 => DataType::Int64,
        ValueType::UInt8 => DataType::UInt8,
        ValueType::UInt16 => DataType::UInt16,
        ValueType::UInt32 => DataType::UInt32,
        ValueType::UInt64 => DataType::UInt64,
        ValueType::Float16 => DataType::Float16,
        ValueType::Float32 => DataType::Float32,
        ValueType::Float64 => DataType::Float64,
    }
}

/// The type name (numpy's dtype name) of a column of one of the eleven primitive types.
fn type_name(t: &DataType) -> Option<&'static str> {
    ValueType::ALL
        .into_iter()
        .find(|&v| data_type(v) == *t)
        .map(ValueType::name)
}

/// An error of the crate's kind `kind`, as Python sees it.
fn kind_err(kind: ErrorKind) -> PyErr {
    to_py_err(Error::from(kind))
}

/// The COO table of a message (`record_batch::dense_to_coo_table` for a dense tensor,
/// `sparse_to_coo_table` for a sparse one): the column names, each column's values as a
/// view with its type name, and the schema metadata. The columns share the tensor's buffers
/// where their types agree.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn to_coo_table(
    py: Python<'_>,
    message: &Bound<'_, PyMessage>,
) -> PyResult<(
    Vec<String>,
    Vec<(BufferView, &'static str)>,
    Vec<(String, String)>,
)> {
    let inner = &message.get().inner;
    let table = py
        .detach(|| match inner {
            Message::Tensor(t) => dense_to_coo_table(t),
            Message::SparseTensor(t) => sparse_to_coo_table(t),
        })
        .map_err(to_py_err)?;
    let schema = table.schema();
    let mut names = Vec::with_capacity(table.num_columns());
    let mut columns = Vec::with_capacity(table.num_columns());
    for (field, array) in schema.fields().iter().zip(table.columns()) {
        let data = array.to_data();
        let (Some(name), Some(width), Some(buffer)) = (
            type_name(data.data_type()),
            data.data_type().primitive_width(),
            data.buffers().first(),
        ) else {
            return Err(kind_err(ErrorKind::Internal {
                invariant: format!(
                    "a COO table column of type {} (not one of the tensor types)",
                    data.data_type()
                ),
            }));
        };
        names.push(field.name().clone());
        columns.push((
            BufferView::new(buffer.slice_with_length(data.offset() * width, data.len() * width)),
            name,
        ));
    }
    let metadata = schema
        .metadata()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok((names, columns, metadata))
}

/// One chunk of a column as pyarrow holds it: its values buffer (`None` when it has none),
/// its validity bitmap (`None` without nulls), its offset and its length.
type Chunk<'py> = (
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyAny>>,
    usize,
    usize,
);

/// A table column as it crosses: its name, its type name (one of the eleven tensor types'
/// names, or pyarrow's text for any other type) and, for the eleven types, its chunks.
type Column<'py> = (String, String, Option<Vec<Chunk<'py>>>);

/// The layout named `name` (`coo`, `csr`, `csc`, `csf`, any case).
fn table_format(name: &str) -> PyResult<SparseFormat> {
    match name.to_ascii_lowercase().as_str() {
        "coo" => Ok(SparseFormat::Coo),
        "csr" => Ok(SparseFormat::Csr),
        "csc" => Ok(SparseFormat::Csc),
        "csf" => Ok(SparseFormat::Csf),
        _ => Err(kind_err(ErrorKind::Selection {
            reason: format!("format {name:?} is not one of coo, csr, csc, csf"),
        })),
    }
}

/// The array of a chunk of column `column`: its buffers shared, checked against the type,
/// the offset and the length (a misaligned values buffer is copied into an aligned one).
fn chunk_data(column: &str, t: &DataType, chunk: &Chunk<'_>) -> PyResult<ArrayData> {
    let (data, validity, offset, len) = chunk;
    let values = match data {
        Some(obj) => source_buffer(obj)?,
        None => Buffer::from(Vec::<u8>::new()),
    };
    let nulls = validity.as_ref().map(source_buffer).transpose()?;
    let width = t.primitive_width().unwrap_or(1);
    let end = offset.checked_add(*len);
    let fits = |bytes: Option<usize>, have: usize| bytes.is_some_and(|b| b <= have);
    if !fits(end.and_then(|e| e.checked_mul(width)), values.len())
        || nulls
            .as_ref()
            .is_some_and(|n| !fits(end.map(|e| e.div_ceil(8)), n.len()))
    {
        return Err(kind_err(ErrorKind::InvalidColumn {
            column: column.to_string(),
            reason: format!(
                "a chunk of {len} values from {offset} over {} bytes of values{}",
                values.len(),
                nulls.as_ref().map_or(String::new(), |n| format!(
                    " and {} bytes of validity",
                    n.len()
                ))
            ),
        }));
    }
    ArrayDataBuilder::new(t.clone())
        .len(*len)
        .offset(*offset)
        .add_buffer(values)
        .null_bit_buffer(nulls)
        .align_buffers(true)
        .build()
        .map_err(|e| kind_err(ErrorKind::Arrow(e)))
}

/// One array of the chunks of a column (of a primitive type `t`): the chunk itself when
/// there is one, else their values and validity copied one after the other.
fn concatenated(t: &DataType, chunks: Vec<ArrayData>, rows: usize) -> PyResult<ArrayRef> {
    let mut chunks = chunks;
    if chunks.len() == 1 {
        if let Some(only) = chunks.pop() {
            return Ok(make_array(only));
        }
    }
    let width = t.primitive_width().unwrap_or(1);
    let mut values = MutableBuffer::with_capacity(rows.saturating_mul(width));
    let with_nulls = chunks.iter().any(|c| c.null_count() > 0);
    let mut validity = with_nulls.then(|| BooleanBufferBuilder::new(rows));
    let mut len = 0;
    for c in &chunks {
        let bytes = c
            .buffers()
            .first()
            .and_then(|b| {
                b.as_slice()
                    .get(c.offset() * width..(c.offset() + c.len()) * width)
            })
            .unwrap_or_default();
        values.extend_from_slice(bytes);
        if let Some(v) = validity.as_mut() {
            match c.nulls() {
                Some(n) => v.append_buffer(n.inner()),
                None => v.append_n(c.len(), true),
            }
        }
        len += c.len();
    }
    let nulls = validity.map(|mut v| NullBuffer::new(v.finish()));
    let data = ArrayDataBuilder::new(t.clone())
        .len(len)
        .add_buffer(values.into())
        .nulls(nulls)
        .build()
        .map_err(|e| kind_err(ErrorKind::Arrow(e)))?;
    Ok(make_array(data))
}

/// The sparse tensor a table holds (`record_batch::CooColumns` resolved against the table's
/// column names and metadata, then `CooSelection::to_sparse`), in `format` or the layout
/// the metadata records.
///
/// `table_columns` holds every column of the table (see [`Column`]), `num_rows` its rows,
/// `metadata` its schema metadata. Only the columns the selection names are read: one
/// chunk is shared as it is, several are concatenated (one copy). A selected column of a
/// type the tensor cannot hold is an `invalid_column` error naming it.
#[pyfunction]
#[pyo3(signature = (table_columns, num_rows, metadata, shape = None, columns = None, dim_names = None, format = None))]
#[allow(clippy::too_many_arguments)]
pub fn from_coo_table(
    py: Python<'_>,
    table_columns: Vec<Column<'_>>,
    num_rows: usize,
    metadata: Vec<(Bound<'_, PyBytes>, Bound<'_, PyBytes>)>,
    shape: Option<Vec<usize>>,
    columns: Option<Vec<String>>,
    dim_names: Option<Vec<String>>,
    format: Option<&str>,
) -> PyResult<PyMessage> {
    let format = format.map(table_format).transpose()?;
    let metadata: HashMap<String, String> = metadata
        .iter()
        .map(|(k, v)| {
            (
                String::from_utf8_lossy(k.as_bytes()).into_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let types: Vec<Option<DataType>> = table_columns
        .iter()
        .map(|(_, t, chunks)| {
            chunks.as_ref()?;
            ValueType::from_name(t).map(data_type)
        })
        .collect();
    let fields: Vec<Field> = table_columns
        .iter()
        .zip(&types)
        .map(|((name, _, _), t)| Field::new(name, t.clone().unwrap_or(DataType::Null), true))
        .collect();
    let schema = Schema::new(fields.clone()).with_metadata(metadata.clone());
    let mut spec = CooColumns::new();
    spec.shape = shape;
    spec.columns = columns;
    spec.dim_names = dim_names;
    let selection = spec.resolve(&schema).map_err(to_py_err)?;
    // The selected columns' data; every other column is left out (a column of nulls).
    let mut read_fields = Vec::with_capacity(fields.len());
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(fields.len());
    for (i, ((field, t), (name, text, chunks))) in
        fields.into_iter().zip(types).zip(table_columns).enumerate()
    {
        let coordinate = selection.coordinate_columns().contains(&i);
        if !coordinate && i != selection.value_column() {
            read_fields.push(Field::new(name, DataType::Null, true));
            arrays.push(Arc::new(NullArray::new(num_rows)));
            continue;
        }
        let (Some(t), Some(chunks)) = (t, chunks) else {
            let reason = if coordinate {
                format!("coordinates of type {text} (not an integer type)")
            } else {
                format!("values of type {text} (not a tensor value type)")
            };
            return Err(kind_err(ErrorKind::InvalidColumn {
                column: if coordinate {
                    name
                } else {
                    VALUE_COLUMN.into()
                },
                reason,
            }));
        };
        let data = chunks
            .iter()
            .map(|c| chunk_data(&name, &t, c))
            .collect::<PyResult<Vec<_>>>()?;
        arrays.push(concatenated(&t, data, num_rows)?);
        read_fields.push(field);
    }
    let read_schema = Arc::new(Schema::new(read_fields).with_metadata(metadata));
    let batch =
        RecordBatch::try_new(read_schema, arrays).map_err(|e| kind_err(ErrorKind::Arrow(e)))?;
    let tensor = py
        .detach(|| selection.to_sparse(&batch, format, &ConvertOptions::default()))
        .map_err(to_py_err)?;
    Ok(PyMessage::sparse(tensor))
}

/// The type name (`"int8"` .. `"int64"`) of the coordinate columns of a COO table of a
/// tensor of `shape` (`record_batch::coordinate_type`).
#[pyfunction]
pub fn coordinate_type(shape: Vec<usize>) -> &'static str {
    arrow_tensor_ipc::record_batch::coordinate_type(&shape).name()
}
