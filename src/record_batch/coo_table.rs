//! Sparse tensors as COO tables: one integer column per dimension and a `value` column,
//! one row per stored value, and back.
//!
//! The table is a plain record batch that any Arrow reader can filter and aggregate. Its
//! schema metadata (key [`COO_TABLE_KEY`]) records the shape, the dimension names, the
//! layout the tensor had (`COO`, `CSR`, `CSC`, `CSF` with its axis order) and the index type,
//! so that [`coo_table_to_sparse`] rebuilds the same tensor.

use super::arrays::{
    data_type, first_null, index_data_type, index_type, primitive_array, value_type,
};
use super::extension::{json_strings, json_usizes};
use crate::convert;
use crate::error::{fail, ErrorKind, Result};
use crate::{ConvertOptions, CsfAxisOrder};
use crate::{
    CooIndex, IndexArray, IndexType, NativeIndex, SparseFormat, SparseIndex, SparseTensor, Tensor,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::Buffer;
use arrow_schema::{Field, Schema};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// Schema metadata key of a COO table: a JSON object with `shape`, `format` (`"COO"`,
/// `"CSR"`, `"CSC"` or `"CSF"`), `index_type`, and when present `dim_names` and
/// `axis_order` (CSF).
pub const COO_TABLE_KEY: &str = "arrow_tensor_ipc.sparse_tensor";

/// The name of the values column.
pub const VALUE_COLUMN: &str = "value";

/// What the schema metadata of a COO table records about the tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CooTableInfo {
    /// The tensor's shape.
    pub shape: Vec<usize>,
    /// The dimension names (`""` where unnamed).
    pub dim_names: Vec<String>,
    /// The layout the tensor had.
    pub format: SparseFormat,
    /// The index type of the tensor's index arrays (and of the coordinate columns).
    pub index_type: IndexType,
    /// The CSF axis order, for `format` CSF.
    pub axis_order: Option<Vec<usize>>,
}

impl CooTableInfo {
    /// The column names: the dimension names, `dim_<i>` where unnamed, then `value`.
    pub fn column_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .dim_names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                if n.is_empty() {
                    format!("dim_{i}")
                } else {
                    n.clone()
                }
            })
            .collect();
        names.push(VALUE_COLUMN.to_string());
        names
    }

    /// The JSON written under [`COO_TABLE_KEY`].
    pub fn metadata(&self) -> String {
        let mut s = format!(
            "{{\"shape\":{},\"format\":\"{}\",\"index_type\":\"{}\"",
            json_usizes(&self.shape),
            self.format.name(),
            self.index_type.name()
        );
        if self.dim_names.iter().any(|n| !n.is_empty()) {
            s.push_str(",\"dim_names\":");
            s.push_str(&json_strings(&self.dim_names));
        }
        if let Some(order) = &self.axis_order {
            s.push_str(",\"axis_order\":");
            s.push_str(&json_usizes(order));
        }
        s.push('}');
        s
    }

    /// Reads the metadata of a COO table's schema.
    pub fn from_schema(schema: &Schema) -> Result<Self> {
        let bad = |reason: String| -> crate::Error {
            ErrorKind::InvalidColumn {
                column: "(schema)".into(),
                reason,
            }
            .into()
        };
        let text = schema
            .metadata()
            .get(COO_TABLE_KEY)
            .ok_or_else(|| bad(format!("no {COO_TABLE_KEY} metadata: not a COO table")))?;
        let meta: serde_json::Map<String, Value> = match serde_json::from_str(text) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                return Err(bad(format!(
                    "{COO_TABLE_KEY} is not a JSON object: {other}"
                )))
            }
            Err(e) => return Err(bad(format!("{COO_TABLE_KEY} is not JSON ({e}): {text:?}"))),
        };
        let sizes = |key: &str| -> Result<Option<Vec<usize>>> {
            match meta.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| {
                        v.as_u64()
                            .and_then(|n| usize::try_from(n).ok())
                            .filter(|&n| n <= i64::MAX as usize)
                            .ok_or_else(|| bad(format!("\"{key}\" holds {v}, not a size")))
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(Some),
                Some(v) => Err(bad(format!("\"{key}\" must be an array, found {v}"))),
            }
        };
        let shape = sizes("shape")?.ok_or_else(|| bad("no \"shape\"".into()))?;
        let axis_order = sizes("axis_order")?;
        let text_of = |key: &str| meta.get(key).and_then(Value::as_str);
        let format = match text_of("format") {
            Some("COO") => SparseFormat::Coo,
            Some("CSR") => SparseFormat::Csr,
            Some("CSC") => SparseFormat::Csc,
            Some("CSF") => SparseFormat::Csf,
            other => {
                return Err(bad(format!(
                    "\"format\" {other:?} is not COO, CSR, CSC or CSF"
                )))
            }
        };
        let index_type = text_of("index_type")
            .and_then(IndexType::from_name)
            .ok_or_else(|| {
                bad(format!(
                    "\"index_type\" {:?} is not an index type",
                    meta.get("index_type")
                ))
            })?;
        let dim_names = match meta.get("dim_names") {
            None | Some(Value::Null) => vec![String::new(); shape.len()],
            Some(Value::Array(items)) if items.len() == shape.len() => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(format!("\"dim_names\" holds {v}, not a string")))
                })
                .collect::<Result<Vec<_>>>()?,
            Some(v) => {
                return Err(bad(format!(
                    "\"dim_names\" {v} is not one string per dimension"
                )))
            }
        };
        Ok(CooTableInfo {
            shape,
            dim_names,
            format,
            index_type,
            axis_order,
        })
    }
}

/// The index type of a sparse tensor's coordinates (COO), indices (CSR/CSC) or last-level
/// indices (CSF).
fn index_type_of(t: &SparseTensor) -> IndexType {
    match t.index() {
        SparseIndex::Coo(c) => c.indices().index_type(),
        SparseIndex::Csx(c) => c.indices().index_type(),
        SparseIndex::Csf(c) => c
            .indices()
            .last()
            .map_or(IndexType::Int64, IndexArray::index_type),
    }
}

/// A sparse tensor (any layout) as a COO table: its stored values in the order the COO
/// layout of the tensor gives (row-major for CSR, canonical COO and identity-order CSF),
/// coordinates in columns of the tensor's index type.
///
/// ```
/// use arrow_tensor_ipc::record_batch::{coo_table_to_sparse, sparse_to_coo_table};
/// use arrow_tensor_ipc::SparseTensor;
///
/// let csr = SparseTensor::csr([3, 4], vec![0i32, 1, 1, 3], vec![2, 0, 3], vec![1.5f64, -2.0, 4.0])?
///     .with_dim_names(["row", "col"])?;
/// let table = sparse_to_coo_table(&csr)?;
/// assert_eq!(table.num_rows(), 3);
/// assert_eq!(table.schema().field(0).name(), "row");
/// let back = coo_table_to_sparse(&table, None)?;
/// assert!(back.content_eq(&csr));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn sparse_to_coo_table(tensor: &SparseTensor) -> Result<RecordBatch> {
    let it = index_type_of(tensor);
    let axis_order = match tensor.index() {
        SparseIndex::Csf(c) => Some(c.axis_order().to_vec()),
        _ => None,
    };
    let info = CooTableInfo {
        shape: tensor.shape().to_vec(),
        dim_names: tensor.dim_names().to_vec(),
        format: tensor.format(),
        index_type: it,
        axis_order,
    };
    let coo = match tensor.index() {
        SparseIndex::Coo(_) => tensor.clone(),
        _ => convert::convert(
            tensor,
            SparseFormat::Coo,
            &ConvertOptions::default().with_index_type(it),
        )?,
    };
    table_of_coo(&coo, &info)
}

/// A dense tensor as a COO table of its non-zero values (recorded layout COO).
pub fn dense_to_coo_table(tensor: &Tensor) -> Result<RecordBatch> {
    let coo = convert::dense_to_coo(tensor, &ConvertOptions::default())?;
    sparse_to_coo_table(&coo)
}

fn table_of_coo(coo: &SparseTensor, info: &CooTableInfo) -> Result<RecordBatch> {
    let SparseIndex::Coo(index) = coo.index() else {
        return fail(ErrorKind::InvalidArgument(
            "COO table of a non-COO tensor".into(),
        ));
    };
    let names = info.column_names();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return fail(ErrorKind::InvalidArgument(format!(
                "two columns of the COO table would be named {n:?} (dimension names must differ from each other and from \"{VALUE_COLUMN}\")"
            )));
        }
    }
    let ndim = coo.ndim();
    let nnz = coo.nnz();
    let it = index.indices().index_type();
    let columns: Vec<Buffer> =
        crate::dispatch_index!(it, I => split_columns::<I>(index, ndim, nnz));
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(ndim + 1);
    let mut fields = Vec::with_capacity(ndim + 1);
    for (buf, name) in columns.into_iter().zip(&names) {
        arrays.push(primitive_array(index_data_type(it), buf, nnz)?);
        fields.push(Field::new(name, index_data_type(it), false));
    }
    let vt = coo.value_type();
    let values = coo
        .values_buffer()
        .slice_with_length(0, nnz * vt.byte_width());
    arrays.push(primitive_array(data_type(vt), values, nnz)?);
    fields.push(Field::new(VALUE_COLUMN, data_type(vt), false));
    let schema = Schema::new(fields).with_metadata(HashMap::from([(
        COO_TABLE_KEY.to_string(),
        info.metadata(),
    )]));
    Ok(RecordBatch::try_new(Arc::new(schema), arrays)?)
}

/// The columns of a row-major `nnz x ndim` coordinate matrix (the matrix itself when
/// `ndim` is 1).
fn split_columns<I: NativeIndex>(index: &CooIndex, ndim: usize, nnz: usize) -> Vec<Buffer> {
    let buf = index.indices().buffer();
    if ndim == 1 {
        return vec![buf.slice_with_length(0, nnz * std::mem::size_of::<I>())];
    }
    let Some(coords) = index.indices().values::<I>() else {
        // A misaligned buffer: read element by element.
        return (0..ndim)
            .map(|d| {
                let col: Vec<I> = (0..nnz)
                    .map(|k| {
                        index
                            .coordinate(k, d)
                            .and_then(|v| I::from_u64(v as u64))
                            .unwrap_or_default()
                    })
                    .collect();
                Buffer::from_vec(col)
            })
            .collect();
    };
    let mut cols: Vec<Vec<I>> = (0..ndim).map(|_| Vec::with_capacity(nnz)).collect();
    for row in coords.chunks_exact(ndim).take(nnz) {
        for (col, &v) in cols.iter_mut().zip(row) {
            col.push(v);
        }
    }
    cols.into_iter().map(Buffer::from_vec).collect()
}

/// Rebuilds the sparse tensor a COO table holds: in the layout its metadata records, or in
/// `format` when given. Coordinates outside the shape, nulls, and columns that do not
/// match the metadata are errors naming the column (and row).
pub fn coo_table_to_sparse(
    table: &RecordBatch,
    format: Option<SparseFormat>,
) -> Result<SparseTensor> {
    let info = CooTableInfo::from_schema(&table.schema())?;
    let ndim = info.shape.len();
    let schema = table.schema();
    if table.num_columns() != ndim + 1 {
        return fail(ErrorKind::InvalidColumn {
            column: "(schema)".into(),
            reason: format!(
                "{} columns for a tensor of rank {ndim} (one per dimension, then \"{VALUE_COLUMN}\")",
                table.num_columns()
            ),
        });
    }
    let nnz = table.num_rows();
    let value_field = schema.field(ndim);
    let value_array = table.column(ndim);
    let Some(vt) = value_type(value_field.data_type()) else {
        return fail(ErrorKind::InvalidColumn {
            column: value_field.name().clone(),
            reason: format!(
                "values of type {} (not a tensor value type)",
                value_field.data_type()
            ),
        });
    };
    let values = super::arrays::primitive_bytes(
        value_array.as_ref(),
        vt.byte_width(),
        value_field.name(),
        "value",
        |i| i,
    )?;
    let Some(it) = index_type(schema.field(0).data_type()).or(if ndim == 0 {
        Some(info.index_type)
    } else {
        None
    }) else {
        return fail(ErrorKind::InvalidColumn {
            column: schema.field(0).name().clone(),
            reason: format!(
                "coordinates of type {} (not an integer type)",
                schema.field(0).data_type()
            ),
        });
    };
    let coords = crate::dispatch_index!(it, I => interleave::<I>(table, &info.shape, it))?;
    let index = CooIndex::new(IndexArray::try_new(it, coords)?, ndim)?;
    let coo = SparseTensor::try_new_with_duplicates(
        vt,
        info.shape.clone(),
        values,
        SparseIndex::Coo(index),
    )?
    .with_dim_names(info.dim_names.clone())?;
    debug_assert_eq!(coo.nnz(), nnz);
    let target = format.unwrap_or(info.format);
    if target == SparseFormat::Coo {
        return Ok(coo);
    }
    let mut options = ConvertOptions::default().with_index_type(info.index_type);
    if target == SparseFormat::Csf {
        if let Some(order) = info
            .axis_order
            .clone()
            .filter(|_| info.format == SparseFormat::Csf)
        {
            options = options.with_axis_order(CsfAxisOrder::Explicit(order));
        }
    }
    convert::convert(&coo, target, &options)
}

/// The coordinate columns of a COO table as one row-major coordinate matrix, each
/// coordinate checked against the shape.
fn interleave<I: NativeIndex>(
    table: &RecordBatch,
    shape: &[usize],
    it: IndexType,
) -> Result<Buffer> {
    let ndim = shape.len();
    let nnz = table.num_rows();
    let schema = table.schema();
    let mut out: Vec<I> = vec![I::default(); nnz * ndim];
    for (d, &size) in shape.iter().enumerate() {
        let field = schema.field(d);
        let array = table.column(d);
        let column = field.name();
        if array.data_type() != &index_data_type(it) {
            return fail(ErrorKind::InvalidColumn {
                column: column.clone(),
                reason: format!(
                    "coordinates of type {}, the first coordinate column has {}",
                    array.data_type(),
                    index_data_type(it)
                ),
            });
        }
        if let Some(row) = first_null(array.as_ref()) {
            return fail(ErrorKind::NullCell {
                column: column.clone(),
                row,
                what: "coordinate",
            });
        }
        let bytes = super::arrays::primitive_bytes(
            array.as_ref(),
            it.byte_width(),
            column,
            "coordinate",
            |i| i,
        )?;
        let col = IndexArray::try_new(it, bytes)?;
        let Some(vals) = col.values::<I>() else {
            return fail(ErrorKind::InvalidColumn {
                column: column.clone(),
                reason: "misaligned coordinates".into(),
            });
        };
        for (row, (&v, slot)) in vals
            .iter()
            .zip(out.iter_mut().skip(d).step_by(ndim.max(1)))
            .enumerate()
        {
            let c = v.as_index();
            if c < 0 || c as u64 >= size as u64 {
                return fail(ErrorKind::InvalidColumn {
                    column: column.clone(),
                    reason: format!(
                        "row {row}: coordinate {c} outside dimension {d} of size {size}"
                    ),
                });
            }
            *slot = v;
        }
    }
    Ok(Buffer::from_vec(out))
}
