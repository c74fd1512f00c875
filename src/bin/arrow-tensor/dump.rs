//! `dump`: every message as one JSON object per line.

use crate::args::ReadArgs;
use crate::json::{self, JsonNumber, Object};
use crate::open::{self, Failure};
use crate::{report, Outcome};
use arrow_tensor_ipc::input::InputTensor;
use arrow_tensor_ipc::{
    CooIndex, CooOrder, CustomMetadata, DecodedMessage, IndexArray, IndexVisitor, Message,
    NativeIndex, NativeValue, Scalar, SparseIndex, SparseTensor, Tensor, ValueType, ValueVisitor,
};
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::PathBuf;

/// Largest number of elements for which `dense` is printed.
pub const MAX_DENSE_ELEMENTS: usize = 100_000;

/// The arguments of `dump`.
#[derive(clap::Args, Debug)]
pub struct DumpArgs {
    /// Print JSON Lines (the only format, and the default).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    read: ReadArgs,
    /// Input (`-`: standard input).
    file: PathBuf,
}

/// Dumps the tensors of `args.file` (`-`: standard input) to `out`.
pub fn run(args: &DumpArgs, out: &mut dyn Write) -> io::Result<Outcome> {
    let input = match open::open(&args.file, &args.read.input_options()) {
        Ok(i) => i,
        Err(e) => {
            report(e);
            return Ok(Outcome::Failed);
        }
    };
    let name = input.name().to_string();
    let tensors = match input.tensors() {
        Ok(t) => t,
        Err(e) => {
            report(format_args!("{name}: {e}"));
            return Ok(Outcome::Failed);
        }
    };
    for item in tensors {
        match item {
            Ok(InputTensor::Decoded(m)) => writeln!(out, "{}", message(&m))?,
            Ok(t) => writeln!(out, "{}", tensor_of(&t.origin().to_string(), t.message()))?,
            Err(e) => {
                let f = Failure::of(&e);
                let mut o = Object::new();
                match f.offset {
                    Some(offset) => o.number("offset", offset),
                    None => o.string("source", &f.at),
                }
                o.string("error", &f.description);
                writeln!(out, "{}", o.finish())?;
                report(f.full(&name));
                return Ok(Outcome::Failed);
            }
        }
    }
    Ok(Outcome::Ok)
}

/// Refuses to enumerate a dense tensor whose strides alias (zero or overlapping strides:
/// more logical elements than its buffer stores) when it has more than `limit` elements.
///
/// Such a tensor is valid (numpy broadcasting views look like this), but a message of a few
/// hundred bytes may then describe 2^40 elements, and listing or re-encoding them all would
/// exhaust memory. Tensors whose elements each have their own storage are always accepted:
/// their size is bounded by the body that was read.
pub fn aliased_expansion(t: &Tensor, limit: usize) -> Option<String> {
    let width = t.value_type().byte_width();
    let stored = t.data().len() / width;
    (t.len() > stored && t.len() > limit).then(|| {
        format!(
            "{} elements with strides {:?} share a buffer of {} values; expanding more than \
             {limit} elements of such a tensor is refused",
            t.len(),
            t.strides(),
            stored
        )
    })
}

/// The `kind` key of a tensor.
fn kind(m: &Message) -> &'static str {
    match m {
        Message::Tensor(_) => "tensor",
        Message::SparseTensor(_) => "sparse_tensor",
    }
}

/// One message of a stream of tensor messages as a JSON object.
pub fn message(m: &DecodedMessage) -> String {
    let mut o = Object::new();
    o.number("offset", m.offset);
    o.string("kind", kind(&m.message));
    o.string("metadata_version", m.version.name());
    o.number("metadata_length", m.metadata_length);
    o.number("body_length", m.body_length);
    body(&mut o, &m.message);
    o.finish()
}

/// A tensor of another kind of input as a JSON object: `source` says where it came from.
pub fn tensor_of(at: &str, m: &Message) -> String {
    let mut o = Object::new();
    o.string("source", at);
    o.string("kind", kind(m));
    body(&mut o, m);
    o.finish()
}

/// The custom metadata and the tensor's own keys.
fn body(o: &mut Object, m: &Message) {
    if let Some(md) = m.custom_metadata() {
        custom_metadata(o.key("custom_metadata"), md);
    }
    match m {
        Message::Tensor(t) => tensor(o, t),
        Message::SparseTensor(t) => sparse(o, t),
    }
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
    match aliased_expansion(t, MAX_DENSE_ELEMENTS) {
        None => tensor_values(o.key("values"), t),
        Some(reason) => {
            o.null("values");
            o.string("values_error", &reason);
        }
    }
}

/// The elements of a dense tensor in row-major logical order.
fn tensor_values(out: &mut String, t: &Tensor) {
    struct Values<'a>(&'a mut String, &'a Tensor);
    impl ValueVisitor for Values<'_> {
        type Output = ();
        fn visit<T: NativeValue>(self) {
            let Values(out, t) = self;
            match t.as_slice::<T>() {
                Some(s) => json::push_numbers(out, s.iter().map(|v| v.into_scalar())),
                None => match t.to_vec::<T>() {
                    Ok(v) => json::push_numbers(out, v.into_iter().map(T::into_scalar)),
                    // Unreachable (the type is the tensor's own); print the elements one by one.
                    Err(_) => push_scalars(out, t.iter().map(Some)),
                },
            }
        }
    }
    t.value_type().visit(Values(out, t))
}

/// Values of any type (a fallback path; `None` prints `null`).
fn push_scalars(out: &mut String, values: impl Iterator<Item = Option<Scalar>>) {
    out.push('[');
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        match v {
            Some(v) => v.push_json(out),
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
    struct Indices<'a>(&'a mut String, &'a IndexArray);
    impl IndexVisitor for Indices<'_> {
        type Output = ();
        fn visit<I: NativeIndex + NativeValue>(self) {
            json::push_numbers(
                self.0,
                index_values::<I>(self.1).iter().map(|v| v.into_scalar()),
            )
        }
    }
    a.index_type().visit(Indices(out, a))
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
    struct Coords<'a>(&'a mut String, &'a CooIndex);
    impl IndexVisitor for Coords<'_> {
        type Output = ();
        fn visit<I: NativeIndex + NativeValue>(self) {
            let Coords(out, c) = self;
            let (nnz, ndim, order) = (c.nnz(), c.ndim(), c.order());
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
                        Some(v) => v.into_scalar().push_json(out),
                        None => out.push_str("null"),
                    }
                }
                out.push(']');
            }
            out.push(']');
        }
    }
    c.indices().index_type().visit(Coords(out, c))
}

/// The stored values of a sparse tensor.
fn sparse_values(out: &mut String, t: &SparseTensor) {
    struct Values<'a>(&'a mut String, &'a SparseTensor);
    impl ValueVisitor for Values<'_> {
        type Output = ();
        fn visit<T: NativeValue>(self) {
            let Values(out, t) = self;
            match t.values::<T>() {
                Some(s) => json::push_numbers(out, s.iter().map(|v| v.into_scalar())),
                None => push_scalars(out, (0..t.nnz()).map(|p| t.value(p))),
            }
        }
    }
    t.value_type().visit(Values(out, t))
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
    sparse_values(o.key("values"), t);
    match t.total_elements() {
        Some(n) if n <= MAX_DENSE_ELEMENTS as u64 => match t.to_dense_with(
            &arrow_tensor_ipc::ConvertOptions::default()
                .with_max_dense_elements(MAX_DENSE_ELEMENTS),
        ) {
            Ok(d) => tensor_values(o.key("dense"), &d),
            Err(e) => {
                o.null("dense");
                o.string("dense_error", &e.to_string());
            }
        },
        _ => o.null("dense"),
    }
}
