//! The encoding of each Parquet leaf [`ParquetWriter`](super::ParquetWriter) writes, chosen
//! from the first batch's values.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType};
use arrow_buffer::ArrowNativeType;
use arrow_schema::DataType;
use parquet::basic::Encoding;

/// Values of a leaf looked at to choose its encoding.
const SAMPLE: usize = 1 << 16;

/// The values of a column's one Parquet leaf: the column itself, or the values inside its
/// lists; `None` for structs and other nestings of several leaves.
pub(super) fn leaf_values(array: &ArrayRef) -> Option<ArrayRef> {
    match array.data_type() {
        DataType::List(_) => leaf_values(array.as_list_opt::<i32>()?.values()),
        DataType::LargeList(_) => leaf_values(array.as_list_opt::<i64>()?.values()),
        DataType::FixedSizeList(_, _) => leaf_values(array.as_fixed_size_list_opt()?.values()),
        t if t.is_primitive() => Some(array.clone()),
        _ => None,
    }
}

/// The encoding of a leaf, chosen from its first values (dictionary off); `None` keeps
/// the `parquet` crate's default (a dictionary, falling back to plain when it grows past
/// the dictionary page limit).
///
/// Integers: `DELTA_BINARY_PACKED` stores each block of values as bit-packed differences
/// from the previous value, so sorted columns (a COO table's first coordinate, a row's
/// column indices) and columns of small steps take a few bits per value, and it encodes
/// and decodes without hashing. A column whose values jump around a small set of distinct
/// values (the last coordinate of a COO table over a short axis) is smaller as dictionary
/// indices, one bit less per value than its differences need. So the first [`SAMPLE`]
/// values are measured both ways (the differences packed as the encoding packs them; the
/// bit width of the distinct count per value, plus the dictionary itself) and the smaller
/// wins, differences on a tie.
///
/// Floats: plain when more than a quarter of the first [`SAMPLE`] values are distinct
/// (tensor data, measurements), where a dictionary would only fill up and be dropped.
pub(super) fn leaf_encoding(array: &dyn Array) -> Option<Encoding> {
    let distinct_floats = |bits: Vec<u64>| {
        let quarter = bits.len() / 4;
        let mut distinct = std::collections::HashSet::with_capacity(1024);
        bits.into_iter()
            .any(|b| distinct.insert(b) && distinct.len() > quarter)
            .then_some(Encoding::PLAIN)
    };
    let values: Vec<i64> = match array.data_type() {
        DataType::Int8 => sample::<Int8Type>(array),
        DataType::Int16 => sample::<Int16Type>(array),
        DataType::Int32 => sample::<Int32Type>(array),
        DataType::Int64 => sample::<Int64Type>(array),
        DataType::UInt8 => sample::<UInt8Type>(array),
        DataType::UInt16 => sample::<UInt16Type>(array),
        DataType::UInt32 => sample::<UInt32Type>(array),
        DataType::UInt64 => sample::<UInt64Type>(array),
        DataType::Float32 => {
            let a = array.as_primitive_opt::<Float32Type>()?;
            let bits = a
                .values()
                .iter()
                .take(SAMPLE)
                .map(|v| u64::from(v.to_bits()));
            return distinct_floats(bits.collect());
        }
        DataType::Float64 => {
            let a = array.as_primitive_opt::<Float64Type>()?;
            let bits = a.values().iter().take(SAMPLE).map(|v| v.to_bits());
            return distinct_floats(bits.collect());
        }
        // Dates, times, timestamps: mostly sorted or of small steps.
        DataType::Date32
        | DataType::Date64
        | DataType::Time32(_)
        | DataType::Time64(_)
        | DataType::Timestamp(_, _)
        | DataType::Duration(_) => return Some(Encoding::DELTA_BINARY_PACKED),
        _ => return None,
    };
    if values.len() < 2 {
        return Some(Encoding::DELTA_BINARY_PACKED);
    }
    let width = |range: u64| u64::from(64 - range.leading_zeros());
    let deltas: Vec<i64> = values
        .iter()
        .zip(values.iter().skip(1))
        .map(|(a, b)| b.wrapping_sub(*a))
        .collect();
    // As DELTA_BINARY_PACKED stores them: blocks of 128 differences less the block's
    // smallest (a varint and 4 widths per block), bit-packed in 4 miniblocks of 32 at the
    // width of each miniblock's largest.
    let delta_bits: u64 = deltas
        .chunks(128)
        .map(|block| {
            let lo = block.iter().copied().min().unwrap_or(0);
            let packed: u64 = block
                .chunks(32)
                .map(|mini| {
                    let hi = mini.iter().copied().max().unwrap_or(lo);
                    32 * width(hi.wrapping_sub(lo) as u64)
                })
                .sum();
            packed + 48
        })
        .sum();
    let mut distinct = std::collections::HashSet::with_capacity(1024);
    for &v in &values {
        distinct.insert(v);
        if distinct.len() > SAMPLE / 4 {
            return Some(Encoding::DELTA_BINARY_PACKED);
        }
    }
    let entry_bits = if array.data_type().primitive_width() == Some(8) {
        64
    } else {
        32
    };
    let n = distinct.len() as u64;
    let dictionary_bits = values.len() as u64 * width(n.saturating_sub(1)) + n * entry_bits;
    (dictionary_bits >= delta_bits).then_some(Encoding::DELTA_BINARY_PACKED)
}

/// The first [`SAMPLE`] values of `array` (its nulls' slots included) as `i64` (past
/// `i64::MAX`: `i64::MAX`).
fn sample<T: ArrowPrimitiveType>(array: &dyn Array) -> Vec<i64> {
    array
        .as_primitive_opt::<T>()
        .map(|a| {
            a.values()
                .iter()
                .take(SAMPLE)
                .map(|v| v.to_i64().unwrap_or(i64::MAX))
                .collect()
        })
        .unwrap_or_default()
}
