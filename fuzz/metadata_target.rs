//! The body of the `record_batch_metadata` fuzz target, shared by
//! `fuzz/fuzz_targets/record_batch_metadata.rs` and `tests/record_batch.rs` (which replays
//! `fuzz/corpus/record_batch_metadata/`).
//!
//! Structure-aware: the input chooses a record batch of one of the three kinds the crate
//! reads (a COO table, an `arrow.fixed_shape_tensor` column, an
//! `arrow.variable_shape_tensor` column) with small data and metadata whose numbers are
//! drawn from the extremes (0, 1, 2^31 +- 1, 2^32, 2^40, 2^62, 2^63 - 1, 2^64 - 1, negative,
//! fractional, nested, strings, null). Every conversion the CLI offers then runs on it:
//! the batch to messages (each row mode, each sparse layout), the COO table to each layout,
//! every message to dense and to each sparse layout, back to a COO table, and encoding.
//! Nothing may panic, and nothing may allocate in proportion to a claimed size (libFuzzer's
//! `-malloc_limit_mb` catches that).

#![allow(dead_code)]

use arbitrary::{Result as ArbResult, Unstructured};
use arrow_array::builder::{FixedSizeListBuilder, ListBuilder, PrimitiveBuilder};
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema};
use arrow_tensor_ipc::record_batch::{
    batch_to_messages, coo_table_to_sparse_with, sparse_to_coo_table, MessageOptions, Rows,
    COO_TABLE_KEY,
};
use arrow_tensor_ipc::{encode, ConvertOptions, Limits, Message, SparseFormat, WriteOptions};
use std::collections::HashMap;
use std::sync::Arc;

/// Largest dense expansion attempted.
const DENSE_CAP: usize = 1 << 16;

/// Limits small enough that whatever they allow runs in microseconds: an allocation past
/// them is a bug the fuzzer reports (`-malloc_limit_mb`).
fn limits() -> Limits {
    Limits::default()
        .with_max_rank(8)
        .with_max_nnz(1 << 16)
        .with_max_dense_elements(DENSE_CAP)
        .with_max_index_len(1 << 16)
}

/// Metadata numbers at the edges of every integer width the readers convert to.
const EXTREMES: [&str; 16] = [
    "0",
    "1",
    "2",
    "3",
    "2147483647",
    "2147483648",
    "2147483649",
    "4294967295",
    "4294967296",
    "1099511627776",
    "4611686018427387904",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "-1",
    "-9223372036854775808",
];

/// One JSON value where the metadata expects a size.
fn number(u: &mut Unstructured) -> ArbResult<String> {
    Ok(match u.int_in_range(0u8..=9)? {
        0..=4 => EXTREMES[u.choose_index(EXTREMES.len())?].to_string(),
        5 => u.int_in_range(0u8..=6)?.to_string(),
        6 => format!("{}", u.arbitrary::<u64>()?),
        7 => ["1.5", "2.0", "1e300", "-0.0", "3e0"][u.choose_index(5)?].to_string(),
        8 => {
            ["[2]", "[[1,2]]", "{\"a\":1}", "\"3\"", "null", "true"][u.choose_index(6)?].to_string()
        }
        _ => format!("-{}", u.int_in_range(1u32..=u32::MAX)?),
    })
}

/// A JSON array of `n` sizes (or, rarely, something that is not an array).
fn sizes(u: &mut Unstructured, n: usize) -> ArbResult<String> {
    if u.ratio(1u8, 16)? {
        return Ok(["null", "3", "\"[1]\"", "{}"][u.choose_index(4)?].to_string());
    }
    let items: Vec<String> = (0..n).map(|_| number(u)).collect::<ArbResult<_>>()?;
    Ok(format!("[{}]", items.join(",")))
}

/// A small permutation of `0..n`, or (sometimes) arbitrary numbers.
fn permutation(u: &mut Unstructured, n: usize) -> ArbResult<String> {
    if u.ratio(1u8, 3)? {
        return sizes(u, n);
    }
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = u.int_in_range(0..=i)?;
        p.swap(i, j);
    }
    Ok(format!(
        "[{}]",
        p.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
    ))
}

/// A value of type `T` from a byte.
trait FromByte: ArrowPrimitiveType {
    fn from_byte(b: u8) -> Self::Native;
}

macro_rules! from_byte {
    ($($t:ty => $f:expr),* $(,)?) => {
        $(impl FromByte for $t {
            fn from_byte(b: u8) -> Self::Native {
                ($f)(b)
            }
        })*
    };
}

from_byte!(
    Int8Type => |b: u8| b as i8,
    Int16Type => |b: u8| b as i16 - 8,
    Int32Type => |b: u8| b as i32 % 9 - 1,
    Int64Type => |b: u8| b as i64 % 9 - 1,
    UInt8Type => |b: u8| b,
    UInt16Type => |b: u8| b as u16 % 9,
    UInt32Type => |b: u8| b as u32 % 9,
    UInt64Type => |b: u8| if b == 255 { u64::MAX } else { b as u64 % 9 },
    Float32Type => |b: u8| b as f32 / 4.0,
    Float64Type => |b: u8| b as f64 / 4.0 - 1.0,
);

/// A primitive array of `n` values from the input's bytes, with a null now and then.
fn primitive<T: FromByte>(u: &mut Unstructured, n: usize) -> ArbResult<ArrayRef> {
    let mut b = PrimitiveBuilder::<T>::with_capacity(n);
    for _ in 0..n {
        let byte: u8 = u.arbitrary()?;
        if byte == 0xfe {
            b.append_null();
        } else {
            b.append_value(T::from_byte(byte));
        }
    }
    Ok(Arc::new(b.finish()))
}

/// An array of one of the ten primitive types, chosen by `code`.
fn column(u: &mut Unstructured, code: u8, n: usize) -> ArbResult<ArrayRef> {
    match code % 10 {
        0 => primitive::<Int8Type>(u, n),
        1 => primitive::<Int16Type>(u, n),
        2 => primitive::<Int32Type>(u, n),
        3 => primitive::<Int64Type>(u, n),
        4 => primitive::<UInt8Type>(u, n),
        5 => primitive::<UInt16Type>(u, n),
        6 => primitive::<UInt32Type>(u, n),
        7 => primitive::<UInt64Type>(u, n),
        8 => primitive::<Float32Type>(u, n),
        _ => primitive::<Float64Type>(u, n),
    }
}

const INDEX_TYPES: [&str; 9] = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
];
const FORMATS: [&str; 5] = ["COO", "CSR", "CSC", "CSF", "XYZ"];

/// A COO table: `ndim` coordinate columns, a value column, metadata with extreme numbers.
fn coo_table(u: &mut Unstructured) -> ArbResult<RecordBatch> {
    let ndim = u.int_in_range(0usize..=5)?;
    let rows = u.int_in_range(0usize..=8)?;
    let coord_type: u8 = u.arbitrary()?;
    let mut fields = Vec::new();
    let mut arrays = Vec::new();
    for d in 0..ndim {
        // Usually one type for every coordinate column, sometimes another.
        let code = if u.ratio(1u8, 8)? {
            u.arbitrary()?
        } else {
            coord_type
        };
        let a = column(u, code, rows)?;
        fields.push(Field::new(format!("dim_{d}"), a.data_type().clone(), true));
        arrays.push(a);
    }
    let value_code: u8 = u.arbitrary()?;
    let values = column(u, value_code, rows)?;
    fields.push(Field::new("value", values.data_type().clone(), true));
    arrays.push(values);
    let claimed_rank = if u.ratio(1u8, 6)? {
        u.int_in_range(0usize..=9)?
    } else {
        ndim
    };
    let mut meta = format!(
        "{{\"shape\":{},\"format\":\"{}\",\"index_type\":\"{}\"",
        sizes(u, claimed_rank)?,
        FORMATS[u.choose_index(FORMATS.len())?],
        INDEX_TYPES[u.choose_index(INDEX_TYPES.len())?]
    );
    if u.arbitrary()? {
        meta.push_str(&format!(",\"axis_order\":{}", permutation(u, ndim)?));
    }
    if u.ratio(1u8, 4)? {
        let names: Vec<String> = (0..ndim).map(|d| format!("\"n{d}\"")).collect();
        meta.push_str(&format!(",\"dim_names\":[{}]", names.join(",")));
    }
    meta.push('}');
    let schema =
        Schema::new(fields).with_metadata(HashMap::from([(COO_TABLE_KEY.to_string(), meta)]));
    RecordBatch::try_new(Arc::new(schema), arrays).map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// Extension metadata on a field.
fn extension(field: Field, name: &str, meta: String) -> Field {
    field.with_metadata(HashMap::from([
        ("ARROW:extension:name".to_string(), name.to_string()),
        ("ARROW:extension:metadata".to_string(), meta),
    ]))
}

/// An `arrow.fixed_shape_tensor` column whose shape claims extreme sizes over small cells.
fn fixed_shape(u: &mut Unstructured) -> ArbResult<RecordBatch> {
    let ndim = u.int_in_range(0usize..=5)?;
    let list_size = u.int_in_range(0i32..=6)?;
    let rows = u.int_in_range(0usize..=4)?;
    let code: u8 = u.arbitrary()?;
    let values = column(u, code, rows * list_size as usize)?;
    let item = Arc::new(Field::new("item", values.data_type().clone(), false));
    let storage = arrow_array::FixedSizeListArray::try_new(item, list_size, values, None)
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let mut meta = format!("{{\"shape\":{}", sizes(u, ndim)?);
    if u.arbitrary()? {
        meta.push_str(&format!(",\"permutation\":{}", permutation(u, ndim)?));
    }
    meta.push('}');
    let field = extension(
        Field::new("tensor", storage.data_type().clone(), false),
        "arrow.fixed_shape_tensor",
        meta,
    );
    RecordBatch::try_new(
        Arc::new(Schema::new(vec![field])),
        vec![Arc::new(storage) as ArrayRef],
    )
    .map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// An `arrow.variable_shape_tensor` column whose shape cells claim extreme sizes.
fn variable_shape(u: &mut Unstructured) -> ArbResult<RecordBatch> {
    let ndim = u.int_in_range(0i32..=4)?;
    let rows = u.int_in_range(0usize..=4)?;
    let value_code: u8 = u.arbitrary()?;
    let mut data = ListBuilder::new(PrimitiveBuilder::<Float32Type>::new());
    let mut shapes = FixedSizeListBuilder::new(PrimitiveBuilder::<Int32Type>::new(), ndim)
        .with_field(Arc::new(Field::new("item", DataType::Int32, false)));
    for _ in 0..rows {
        let n = u.int_in_range(0usize..=6)?;
        for _ in 0..n {
            data.values().append_value(u.arbitrary::<u8>()? as f32);
        }
        data.append(true);
        for _ in 0..ndim {
            let v = match u.int_in_range(0u8..=5)? {
                0 => i32::MAX,
                1 => i32::MIN,
                2 => -1,
                3 => 65536,
                _ => u.int_in_range(0i32..=4)?,
            };
            shapes.values().append_value(v);
        }
        shapes.append(true);
    }
    let data: ArrayRef = Arc::new(data.finish());
    // Values of another type than float32, now and then.
    let data = if value_code.is_multiple_of(4) {
        arrow_cast_free(data, u, value_code)?
    } else {
        data
    };
    let shapes: ArrayRef = Arc::new(shapes.finish());
    let fields = Fields::from(vec![
        Field::new("data", data.data_type().clone(), false),
        Field::new("shape", shapes.data_type().clone(), false),
    ]);
    let storage = StructArray::try_new(fields, vec![data, shapes], None)
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let mut meta = String::from("{");
    let mut parts = Vec::new();
    if u.arbitrary()? {
        parts.push(format!(
            "\"permutation\":{}",
            permutation(u, ndim as usize)?
        ));
    }
    if u.arbitrary()? {
        parts.push(format!("\"uniform_shape\":{}", sizes(u, ndim as usize)?));
    }
    meta.push_str(&parts.join(","));
    meta.push('}');
    let field = extension(
        Field::new("tensor", storage.data_type().clone(), false),
        "arrow.variable_shape_tensor",
        meta,
    );
    RecordBatch::try_new(
        Arc::new(Schema::new(vec![field])),
        vec![Arc::new(storage) as ArrayRef],
    )
    .map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// A list column of another primitive type with the same offsets (no arrow-cast needed).
fn arrow_cast_free(list: ArrayRef, u: &mut Unstructured, code: u8) -> ArbResult<ArrayRef> {
    let list = list
        .as_any()
        .downcast_ref::<arrow_array::ListArray>()
        .ok_or(arbitrary::Error::IncorrectFormat)?;
    let values = column(u, code / 4, list.values().len())?;
    let item = Arc::new(Field::new("item", values.data_type().clone(), true));
    let out = arrow_array::ListArray::try_new(item, list.offsets().clone(), values, None)
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    Ok(Arc::new(out))
}

const LAYOUTS: [Option<SparseFormat>; 5] = [
    None,
    Some(SparseFormat::Coo),
    Some(SparseFormat::Csr),
    Some(SparseFormat::Csc),
    Some(SparseFormat::Csf),
];

/// Every conversion `convert --to` offers, then `--format coo-table`, then encoding.
fn exercise(m: &Message) {
    let options = ConvertOptions::default().with_limits(limits());
    let _ = encode(m, &WriteOptions::default()).map(|e| e.to_vec());
    for to in LAYOUTS {
        let out = match (m, to) {
            (Message::Tensor(t), None) => Ok(Message::Tensor(t.clone())),
            (Message::SparseTensor(t), None) => t
                .to_dense_with(
                    &arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(DENSE_CAP),
                )
                .map(Message::Tensor),
            (Message::Tensor(t), Some(f)) => {
                t.to_sparse_with(f, &options).map(Message::SparseTensor)
            }
            (Message::SparseTensor(t), Some(f)) => {
                t.to_format_with(f, &options).map(Message::SparseTensor)
            }
        };
        if let Ok(Message::SparseTensor(s)) = &out {
            let _ = sparse_to_coo_table(s);
            let _ = encode(&Message::SparseTensor(s.clone()), &WriteOptions::default())
                .map(|e| e.to_vec());
        }
    }
}

/// Builds a batch from `data` and runs every conversion on it.
pub fn record_batch_metadata(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let batch = match u.int_in_range(0u8..=2) {
        Ok(0) => coo_table(&mut u),
        Ok(1) => fixed_shape(&mut u),
        Ok(_) => variable_shape(&mut u),
        Err(_) => return,
    };
    let Ok(batch) = batch else { return };
    for format in [
        None,
        Some(SparseFormat::Coo),
        Some(SparseFormat::Csr),
        Some(SparseFormat::Csc),
        Some(SparseFormat::Csf),
    ] {
        let _ = coo_table_to_sparse_with(
            &batch,
            format,
            &arrow_tensor_ipc::ConvertOptions::default().with_limits(limits()),
        )
        .map(|t| exercise(&Message::SparseTensor(t)));
    }
    for rows in [Rows::FirstAxis, Rows::Whole] {
        let options = MessageOptions::default()
            .with_rows(rows)
            .with_limits(limits());
        if let Ok(messages) = batch_to_messages(&batch, &options) {
            for m in messages.iter().take(16) {
                exercise(m);
            }
        }
    }
}
