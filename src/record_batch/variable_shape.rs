//! Dense tensors of one value type and rank, each with its own shape, as an
//! `arrow.variable_shape_tensor` column (`StructArray`), and back.

use super::arrays::{data_type, first_null, primitive_array, primitive_bytes};
use super::extension::{permute_to_logical, VariableShapeTensorType};
use crate::error::{fail, ErrorKind, Result};
use crate::ConvertOptions;

use crate::{row_major_strides, Tensor};
use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, Int32Array, ListArray, RecordBatch, StructArray,
};
use arrow_buffer::{Buffer, MutableBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields, Schema};
use std::sync::Arc;

/// A variable-shape tensor column: its type and its storage array.
#[derive(Clone, Debug)]
pub struct VariableShapeColumn {
    /// The extension type of the column.
    pub tensor_type: VariableShapeTensorType,
    /// The storage array (`struct<data, shape>`).
    pub array: StructArray,
}

impl VariableShapeColumn {
    /// The column's field, named `name`.
    pub fn field(&self, name: &str) -> Result<Field> {
        self.tensor_type.field(name)
    }

    /// A record batch holding this column alone, named `name`.
    pub fn into_record_batch(self, name: &str) -> Result<RecordBatch> {
        let schema = Arc::new(Schema::new(vec![self.field(name)?]));
        let array: ArrayRef = Arc::new(self.array);
        Ok(RecordBatch::try_new(schema, vec![array])?)
    }
}

/// Dense tensors (one value type, one rank, shapes free) as a variable-shape tensor column,
/// one row per tensor, each row's values in row-major order. The dimension names are the
/// first tensor's; every tensor must carry the same. One tensor that is already row-major
/// is not copied; several are concatenated into one values buffer.
///
/// ```
/// use arrow_tensor_ipc::record_batch::{tensors_to_variable_shape, variable_shape_to_tensors};
/// use arrow_tensor_ipc::Tensor;
///
/// let a = Tensor::from_vec(vec![2, 2], vec![1i16, 2, 3, 4])?;
/// let b = Tensor::from_vec(vec![1, 3], vec![5i16, 6, 7])?;
/// let column = tensors_to_variable_shape(&[a.clone(), b.clone()])?;
/// let batch = column.into_record_batch("cells")?;
/// let back = variable_shape_to_tensors(batch.schema().field(0), batch.column(0))?;
/// assert!(back[0].content_eq(&a) && back[1].content_eq(&b));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn tensors_to_variable_shape(tensors: &[Tensor]) -> Result<VariableShapeColumn> {
    let Some(first) = tensors.first() else {
        return fail(ErrorKind::Empty {
            operation: "a variable-shape tensor column",
            what: "tensor (its value type and rank)",
        });
    };
    let vt = first.value_type();
    let ndim = first.ndim();
    for (i, t) in tensors.iter().enumerate().skip(1) {
        check_fits(first, t, &format!("tensor {i}"))?;
    }
    let w = vt.byte_width();
    let total: usize = tensors.iter().map(Tensor::len).sum();
    if i32::try_from(total).is_err() {
        return fail(ErrorKind::Overflow {
            quantity: crate::Quantity::ListValues(total as u64),
        });
    }
    let mut offsets = Vec::with_capacity(tensors.len() + 1);
    offsets.push(0i32);
    let mut shapes = Vec::with_capacity(tensors.len() * ndim);
    for t in tensors {
        offsets.push(offsets.last().copied().unwrap_or(0) + t.len() as i32);
        for (dim, &d) in t.shape().iter().enumerate() {
            shapes.push(i32::try_from(d).map_err(|_| ErrorKind::Overflow {
                quantity: crate::Quantity::DimensionSize {
                    dim,
                    size: d as u64,
                    target: "int32",
                },
            })?);
        }
    }
    let data: Buffer = match tensors {
        [only] => only.row_major_bytes(),
        _ => {
            let mut buf = MutableBuffer::with_capacity(total * w);
            for t in tensors {
                buf.extend_from_slice(t.row_major_bytes().as_slice());
            }
            buf.into()
        }
    };
    let mut ty = VariableShapeTensorType::new(vt, ndim);
    if first.has_dim_names() {
        ty = ty.with_dim_names(first.dim_names().iter().cloned())?;
    }
    let DataType::Struct(fields) = ty.storage_type()? else {
        return fail(ErrorKind::Internal {
            invariant: "the storage type of a variable-shape tensor column is a struct".into(),
        });
    };
    let values = primitive_array(data_type(vt), data, total)?;
    let item = Arc::new(Field::new("item", data_type(vt), false));
    let list = ListArray::try_new(
        item,
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        values,
        None,
    )?;
    let shape_item = Arc::new(Field::new("item", DataType::Int32, false));
    let shape_values: ArrayRef = Arc::new(Int32Array::from(shapes));
    let shape = FixedSizeListArray::try_new_with_length(
        shape_item,
        ndim as i32,
        shape_values,
        None,
        tensors.len(),
    )?;
    let array = StructArray::try_new(
        Fields::clone(&fields),
        vec![Arc::new(list) as ArrayRef, Arc::new(shape) as ArrayRef],
        None,
    )?;
    Ok(VariableShapeColumn {
        tensor_type: ty,
        array,
    })
}

/// Whether `t` can share a variable-shape column with `first` (value type, rank and
/// dimension names), with an [`ErrorKind::Inconsistent`] error naming `which` when not.
pub(crate) fn check_fits(first: &Tensor, t: &Tensor, which: &str) -> Result<()> {
    if t.value_type() != first.value_type() {
        return fail(ErrorKind::Inconsistent {
            what: format!("value type of {which}"),
            first: first.value_type().to_string(),
            found: t.value_type().to_string(),
        });
    }
    if t.ndim() != first.ndim() {
        return fail(ErrorKind::Inconsistent {
            what: format!("rank of {which}"),
            first: first.ndim().to_string(),
            found: t.ndim().to_string(),
        });
    }
    if t.dim_names() != first.dim_names() {
        return fail(ErrorKind::Inconsistent {
            what: format!("dimension names of {which}"),
            first: format!("{:?}", first.dim_names()),
            found: format!("{:?}", t.dim_names()),
        });
    }
    Ok(())
}

/// Each row of a variable-shape tensor column as a tensor (logical shape and names, strides
/// from the permutation), without copying: every tensor is a slice of the column's values
/// buffer. A null cell, shape or value, a negative size, or a shape whose element count is
/// not the row's value count is an error naming the column and row. Under
/// [`ConvertOptions::default`]: see [`variable_shape_to_tensors_with`].
pub fn variable_shape_to_tensors(field: &Field, array: &dyn Array) -> Result<Vec<Tensor>> {
    variable_shape_to_tensors_with(field, array, &ConvertOptions::default())
}

/// [`variable_shape_to_tensors`] under the limits of `options`: a rank (the storage's shape list size)
/// over [`crate::Limits::max_rank`] is an [`ErrorKind::ColumnLimitExceeded`] naming the column,
/// checked before anything is allocated from it; a shape cell that claims more (or fewer)
/// elements than its row's values is an [`ErrorKind::InvalidColumn`] naming the column and
/// row.
pub fn variable_shape_to_tensors_with(
    field: &Field,
    array: &dyn Array,
    options: &ConvertOptions,
) -> Result<Vec<Tensor>> {
    let limits = &options.limits;
    let ty = VariableShapeTensorType::from_field(field)?;
    let column = field.name();
    if ty.ndim() > limits.max_rank {
        return fail(ErrorKind::ColumnLimitExceeded {
            column: column.clone(),
            what: "rank of the cells (the size of the storage's shape lists)".into(),
            value: ty.ndim() as u64,
            limit: limits.max_rank as u64,
            rule: "Limits::max_rank".into(),
        });
    }
    let bad = |reason: String| {
        crate::Error::from(ErrorKind::InvalidColumn {
            column: column.clone(),
            reason,
        })
    };
    let strukt = array
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| {
            bad(format!(
                "storage must be a struct, found {}",
                array.data_type()
            ))
        })?;
    let null = |row: usize, what: &'static str| {
        fail(ErrorKind::NullCell {
            column: column.clone(),
            row,
            what,
        })
    };
    if let Some(row) = first_null(strukt) {
        return null(row, "cell");
    }
    let list = strukt
        .column_by_name("data")
        .and_then(|a| a.as_any().downcast_ref::<ListArray>())
        .ok_or_else(|| bad("\"data\" is not a list array".into()))?;
    let shapes = strukt
        .column_by_name("shape")
        .and_then(|a| a.as_any().downcast_ref::<FixedSizeListArray>())
        .ok_or_else(|| bad("\"shape\" is not a fixed_size_list array".into()))?;
    if let Some(row) = first_null(list) {
        return null(row, "data list");
    }
    if let Some(row) = first_null(shapes) {
        return null(row, "shape");
    }
    let ndim = ty.ndim();
    let shape_values = shapes
        .values()
        .as_any()
        .downcast_ref::<Int32Array>()
        .ok_or_else(|| bad("shape values are not int32".into()))?;
    if let Some(i) = first_null(shape_values) {
        return null(i / ndim.max(1), "shape size");
    }
    let vt = ty.value_type();
    if list.values().data_type() != &data_type(vt) {
        return Err(bad(format!(
            "values of type {}, the field says {vt}",
            list.values().data_type()
        )));
    }
    let w = vt.byte_width();
    let offsets = list.value_offsets();
    let data = primitive_bytes(list.values().as_ref(), w, column, "value in a cell", |i| {
        offsets
            .partition_point(|&o| (o as usize) <= i)
            .saturating_sub(1)
    })?;
    let sizes = shape_values.values();
    let logical_names = ty.logical_dim_names();
    let named = logical_names.iter().any(|n| !n.is_empty());
    let mut out = Vec::with_capacity(strukt.len());
    for row in 0..strukt.len() {
        let start = row * ndim;
        let physical: Vec<usize> = start
            .checked_add(ndim)
            .and_then(|end| sizes.get(start..end))
            .ok_or_else(|| {
                bad(format!(
                    "row {row}: its shape cell holds fewer than {ndim} sizes"
                ))
            })?
            .iter()
            .map(|&d| usize::try_from(d))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| bad(format!("row {row}: negative size in its shape")))?;
        if let Some(u) = ty.uniform_shape() {
            for (d, (&size, want)) in physical.iter().zip(u).enumerate() {
                if want.is_some_and(|w| w != size) {
                    return Err(bad(format!(
                        "row {row}: size {size} of dimension {d} differs from the uniform shape {u:?}"
                    )));
                }
            }
        }
        let (lo, hi) = match (offsets.get(row), offsets.get(row + 1)) {
            (Some(&lo), Some(&hi)) => (
                usize::try_from(lo).unwrap_or(0),
                usize::try_from(hi).unwrap_or(0),
            ),
            _ => return Err(bad(format!("row {row}: no list offsets"))),
        };
        let have = hi
            .checked_sub(lo)
            .ok_or_else(|| bad(format!("row {row}: list offsets {lo}..{hi} decrease")))?;
        let count = crate::element_count(&physical).ok_or_else(|| {
            bad(format!(
                "row {row}: element count of shape {physical:?} overflows"
            ))
        })?;
        if have != count {
            return Err(bad(format!(
                "row {row}: {have} values for shape {physical:?} ({count} elements)"
            )));
        }
        if hi.checked_mul(w).is_none_or(|end| end > data.len()) {
            return Err(bad(format!(
                "row {row}: values {lo}..{hi} beyond the {} values of the column",
                data.len() / w.max(1)
            )));
        }
        let strides = permute_to_logical(&row_major_strides(&physical, w), ty.permutation());
        let shape = permute_to_logical(&physical, ty.permutation());
        let bytes = data.slice_with_length(lo * w, count * w);
        let t = Tensor::try_new(vt, shape, strides, bytes)?;
        out.push(if named {
            t.with_dim_names(logical_names.clone())?
        } else {
            t
        });
    }
    Ok(out)
}
