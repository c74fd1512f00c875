//! Arrow data types of the model's value and index types, and primitive arrays over the
//! model's buffers (zero-copy both ways), and [`retype`]: array data given a type that
//! differs from its own only in the nullability of nested fields.

use crate::error::{fail, ErrorKind, Result};
use crate::{IndexType, ValueType};
use arrow_array::{make_array, Array, ArrayRef};
use arrow_buffer::Buffer;
use arrow_data::ArrayDataBuilder;
use arrow_schema::DataType;

/// The Arrow data type of a value type.
pub(crate) fn data_type(t: ValueType) -> DataType {
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

/// The value type of an Arrow data type, if it is one of the eleven tensor value types.
pub(crate) fn value_type(t: &DataType) -> Option<ValueType> {
    ValueType::ALL.into_iter().find(|&v| &data_type(v) == t)
}

/// The Arrow data type of an index type.
pub(crate) fn index_data_type(t: IndexType) -> DataType {
    data_type(ValueType::from_index_type(t))
}

/// The index type of an Arrow integer data type.
pub(crate) fn index_type(t: &DataType) -> Option<IndexType> {
    IndexType::ALL
        .into_iter()
        .find(|&i| &index_data_type(i) == t)
}

/// A primitive array of `len` values of type `t` over `buffer` (no copy when the buffer is
/// aligned for the type; a misaligned one is copied into an aligned buffer).
pub(crate) fn primitive_array(t: DataType, buffer: Buffer, len: usize) -> Result<ArrayRef> {
    let data = ArrayDataBuilder::new(t)
        .len(len)
        .add_buffer(buffer)
        .align_buffers(true)
        .build()?;
    Ok(make_array(data))
}

/// The first null of `array`, if any.
pub(crate) fn first_null(array: &dyn Array) -> Option<usize> {
    if array.null_count() == 0 {
        return None;
    }
    (0..array.len()).find(|&i| array.is_null(i))
}

/// The bytes of the values of a primitive array with `width`-byte values (a slice of its
/// buffer, no copy). A null value is an error naming `column` and the row `row_of` maps the
/// value's position to.
pub(crate) fn primitive_bytes(
    array: &dyn Array,
    width: usize,
    column: &str,
    what: &'static str,
    row_of: impl Fn(usize) -> usize,
) -> Result<Buffer> {
    if let Some(i) = first_null(array) {
        return fail(ErrorKind::NullCell {
            column: column.to_string(),
            row: row_of(i),
            what,
        });
    }
    let data = array.to_data();
    let Some(buffer) = data.buffers().first() else {
        return fail(ErrorKind::InvalidColumn {
            column: column.to_string(),
            reason: format!("{} array without a values buffer", data.data_type()),
        });
    };
    let start = data.offset() * width;
    let len = data.len() * width;
    if start + len > buffer.len() {
        return fail(ErrorKind::InvalidColumn {
            column: column.to_string(),
            reason: format!(
                "values buffer of {} bytes for {} values from {}",
                buffer.len(),
                data.len(),
                data.offset()
            ),
        });
    }
    Ok(buffer.slice_with_length(start, len))
}

/// Writes coordinate column `d` of a COO table (any signed integer type) minus `origin`
/// into every `rank`-th slot of `out` from slot `d` on: one column of a row-major `i64`
/// coordinate matrix. Another column type is an error naming `column`.
#[cfg(feature = "parquet")]
pub(crate) fn coordinates_into(
    array: &dyn Array,
    column: &str,
    d: usize,
    rank: usize,
    origin: i64,
    out: &mut [i64],
) -> Result<()> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type};
    macro_rules! copy {
        ($t:ty) => {
            for (slot, &x) in out
                .iter_mut()
                .skip(d)
                .step_by(rank.max(1))
                .zip(array.as_primitive::<$t>().values().iter())
            {
                *slot = x as i64 - origin;
            }
        };
    }
    match array.data_type() {
        DataType::Int8 => copy!(Int8Type),
        DataType::Int16 => copy!(Int16Type),
        DataType::Int32 => copy!(Int32Type),
        DataType::Int64 => copy!(Int64Type),
        other => {
            return fail(ErrorKind::InvalidColumn {
                column: column.to_string(),
                reason: format!("a coordinate column of type {other}"),
            })
        }
    }
    Ok(())
}

/// `data` with its type, and its children's, replaced by `to`, which differs from its own
/// only in the nullability of nested fields. Fails (in the `build` checks of arrow-data)
/// where the new type does not fit the data.
#[cfg(feature = "parquet")]
pub(crate) fn retype(data: arrow_data::ArrayData, to: &DataType) -> Result<arrow_data::ArrayData> {
    let children: Vec<&DataType> = match to {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            vec![f.data_type()]
        }
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type()).collect(),
        _ => Vec::new(),
    };
    if children.len() != data.child_data().len() {
        return fail(ErrorKind::TypeMismatch {
            expected: to.to_string(),
            found: data.data_type().to_string(),
        });
    }
    let child_data = data
        .child_data()
        .iter()
        .zip(children)
        .map(|(c, t)| retype(c.clone(), t))
        .collect::<Result<Vec<_>>>()?;
    Ok(data
        .into_builder()
        .data_type(to.clone())
        .child_data(child_data)
        .build()?)
}
