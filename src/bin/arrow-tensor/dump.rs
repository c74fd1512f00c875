//! `dump`: every message as one JSON object per line.

use crate::json::{self, JsonNumber, Object};
use crate::{read, report, Outcome};
use arrow_tensor_ipc::{
    dispatch_index, dispatch_value, CooIndex, CooOrder, CustomMetadata, DecodedMessage, IndexArray,
    Message, NativeIndex, NativeValue, ReadOptions, Scalar, SparseIndex, SparseTensor, Tensor,
    ValueType,
};
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

/// Largest number of elements for which `dense` is printed.
pub const MAX_DENSE_ELEMENTS: usize = 100_000;

/// Dumps the messages of `path` to `out`.
pub fn run(path: &Path, options: ReadOptions, out: &mut dyn Write) -> io::Result<Outcome> {
    let messages = match read::open(path, options) {
        Ok(m) => m,
        Err(e) => {
            report(e);
            return Ok(Outcome::Failed);
        }
    };
    for item in messages {
        match item {
            Ok(m) => writeln!(out, "{}", message(&m))?,
            Err(e) => {
                let mut o = Object::new();
                o.number("offset", e.offset);
                o.string("error", &e.description());
                writeln!(out, "{}", o.finish())?;
                report(format_args!(
                    "{}: message at byte {}: {}",
                    path.display(),
                    e.offset,
                    e.description()
                ));
                return Ok(Outcome::Failed);
            }
        }
    }
    Ok(Outcome::Ok)
}

/// One message as a JSON object.
pub fn message(m: &DecodedMessage) -> String {
    let mut o = Object::new();
    o.number("offset", m.offset);
    o.string(
        "kind",
        match &m.message {
            Message::Tensor(_) => "tensor",
            Message::SparseTensor(_) => "sparse_tensor",
        },
    );
    o.string("metadata_version", m.version.name());
    o.number("metadata_length", m.metadata_length);
    o.number("body_length", m.body_length);
    if let Some(md) = m.message.custom_metadata() {
        custom_metadata(o.key("custom_metadata"), md);
    }
    match &m.message {
        Message::Tensor(t) => tensor(&mut o, t),
        Message::SparseTensor(t) => sparse(&mut o, t),
    }
    o.finish()
}

/// A message's `custom_metadata` as a list of `{"key": ..., "value": ...}` objects, in
/// order (keys may repeat).
fn custom_metadata(out: &mut String, md: &CustomMetadata) {
    out.push('[');
    for (i, (k, v)) in md.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let mut pair = Object::new();
        pair.string("key", k);
        pair.string("value", v);
        out.push_str(&pair.finish());
    }
    out.push(']');
}

fn header(o: &mut Object, value_type: ValueType, shape: &[usize], names: &[String]) {
    o.string("type", value_type.name());
    json::push_numbers(o.key("shape"), shape.iter().copied());
    json::push_strings(o.key("dim_names"), names.iter().map(String::as_str));
}

fn tensor(o: &mut Object, t: &Tensor) {
    header(o, t.value_type(), t.shape(), t.dim_names());
    json::push_numbers(o.key("strides"), t.strides().iter().copied());
    match read::aliased_expansion(t, MAX_DENSE_ELEMENTS) {
        None => tensor_values(o.key("values"), t),
        Some(reason) => {
            o.null("values");
            o.string("values_error", &reason);
        }
    }
}

/// The elements of a dense tensor in row-major logical order.
fn tensor_values(out: &mut String, t: &Tensor) {
    dispatch_value!(t.value_type(), T => match t.as_slice::<T>() {
        Some(s) => json::push_numbers(out, s.iter().copied()),
        None => match t.to_vec::<T>() {
            Ok(v) => json::push_numbers(out, v),
            // Unreachable (the type is the tensor's own); print the elements one by one.
            Err(_) => push_scalars(out, t.iter().map(Some)),
        },
    })
}

/// Values of any type (a fallback path; `None` prints `null`).
fn push_scalars(out: &mut String, values: impl Iterator<Item = Option<Scalar>>) {
    out.push('[');
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        match v {
            Some(Scalar::Int8(v)) => v.push_json(out),
            Some(Scalar::Int16(v)) => v.push_json(out),
            Some(Scalar::Int32(v)) => v.push_json(out),
            Some(Scalar::Int64(v)) => v.push_json(out),
            Some(Scalar::UInt8(v)) => v.push_json(out),
            Some(Scalar::UInt16(v)) => v.push_json(out),
            Some(Scalar::UInt32(v)) => v.push_json(out),
            Some(Scalar::UInt64(v)) => v.push_json(out),
            Some(Scalar::Float16(v)) => v.push_json(out),
            Some(Scalar::Float32(v)) => v.push_json(out),
            Some(Scalar::Float64(v)) => v.push_json(out),
            None => out.push_str("null"),
        }
    }
    out.push(']');
}

/// The integers of an index array at their own type (exact for uint64 above `i64::MAX`).
fn index_values<I: NativeValue + NativeIndex>(a: &IndexArray) -> Cow<'_, [I]> {
    match a.values::<I>() {
        Some(s) => Cow::Borrowed(s),
        // Buffers of the crate's types are aligned, so this only guards against surprises.
        None => Cow::Owned(
            a.buffer()
                .as_slice()
                .chunks_exact(std::mem::size_of::<I>())
                .filter_map(I::read_le)
                .collect(),
        ),
    }
}

fn push_index_array(out: &mut String, a: &IndexArray) {
    dispatch_index!(a.index_type(), I => {
        json::push_numbers(out, index_values::<I>(a).iter().copied())
    })
}

fn push_index_arrays(out: &mut String, arrays: &[IndexArray]) {
    out.push('[');
    for (i, a) in arrays.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_index_array(out, a);
    }
    out.push(']');
}

/// The coordinate matrix as `nnz` rows of `ndim` integers, whatever its layout.
fn push_coords(out: &mut String, c: &CooIndex) {
    let (nnz, ndim, order) = (c.nnz(), c.ndim(), c.order());
    dispatch_index!(c.indices().index_type(), I => {
        let s = index_values::<I>(c.indices());
        out.push('[');
        for i in 0..nnz {
            if i > 0 {
                out.push(',');
            }
            out.push('[');
            for d in 0..ndim {
                if d > 0 {
                    out.push(',');
                }
                let slot = match order {
                    CooOrder::RowMajor => i.checked_mul(ndim).and_then(|k| k.checked_add(d)),
                    CooOrder::ColumnMajor => d.checked_mul(nnz).and_then(|k| k.checked_add(i)),
                };
                match slot.and_then(|k| s.get(k)) {
                    Some(v) => v.push_json(out),
                    None => out.push_str("null"),
                }
            }
            out.push(']');
        }
        out.push(']');
    })
}

fn sparse(o: &mut Object, t: &SparseTensor) {
    header(o, t.value_type(), t.shape(), t.dim_names());
    o.number("nnz", t.nnz());
    o.string("format", t.format().name());
    match t.index() {
        SparseIndex::Coo(c) => {
            o.string("index_type", c.indices().index_type().name());
            o.boolean("is_canonical", c.is_canonical());
            push_coords(o.key("coords"), c);
        }
        SparseIndex::Csx(c) => {
            o.string("indptr_type", c.indptr().index_type().name());
            o.string("indices_type", c.indices().index_type().name());
            push_index_array(o.key("indptr"), c.indptr());
            push_index_array(o.key("indices"), c.indices());
        }
        SparseIndex::Csf(c) => {
            for (key, arrays) in [("indptr_type", c.indptr()), ("indices_type", c.indices())] {
                match arrays.first() {
                    Some(a) => o.string(key, a.index_type().name()),
                    None => o.null(key),
                }
            }
            json::push_numbers(o.key("axis_order"), c.axis_order().iter().copied());
            push_index_arrays(o.key("indptr"), c.indptr());
            push_index_arrays(o.key("indices"), c.indices());
        }
    }
    dispatch_value!(t.value_type(), T => match t.values::<T>() {
        Some(s) => json::push_numbers(o.key("values"), s.iter().copied()),
        None => push_scalars(o.key("values"), (0..t.nnz()).map(|p| t.value(p))),
    });
    match t.total_elements() {
        Some(n) if n <= MAX_DENSE_ELEMENTS as u64 => match t.to_dense_limited(MAX_DENSE_ELEMENTS) {
            Ok(d) => tensor_values(o.key("dense"), &d),
            Err(e) => {
                o.null("dense");
                o.string("dense_error", &e.to_string());
            }
        },
        _ => o.null("dense"),
    }
}
