//! Flatbuffer crafting: messages built field by field, including the ones no encoder of
//! ours would write (missing or lying fields, wrong types, other header types).

use arrow_tensor_ipc::__private::flatbuf as fb;
use flatbuffers::{FlatBufferBuilder, UnionWIPOffset, WIPOffset};

/// A value type as the message states it.
#[derive(Clone, Copy, Debug)]
pub enum Vt {
    Int(i32, bool),
    Float(i16),
    Utf8,
    Bool,
    Decimal,
    /// Any `Type` of the schema, with its table built from default arguments.
    Other(fb::Type),
    /// An arbitrary `Type` discriminant (with an Int table as the union value).
    Raw(u8),
}

pub type IntT = (i32, bool);

pub const I8: IntT = (8, true);
pub const I16: IntT = (16, true);
pub const I32: IntT = (32, true);
pub const I64: IntT = (64, true);
pub const U64: IntT = (64, false);

/// Byte width of an integer type (bit widths that are not whole bytes round down).
pub fn width(t: IntT) -> usize {
    (t.0 / 8).max(1) as usize
}

pub fn vt(fbb: &mut FlatBufferBuilder<'_>, v: Vt) -> (fb::Type, WIPOffset<UnionWIPOffset>) {
    match v {
        Vt::Int(bits, signed) => (fb::Type::Int, int(fbb, (bits, signed)).as_union_value()),
        Vt::Float(p) => (
            fb::Type::FloatingPoint,
            fb::FloatingPoint::create(
                fbb,
                &fb::FloatingPointArgs {
                    precision: fb::Precision(p),
                },
            )
            .as_union_value(),
        ),
        Vt::Utf8 => (
            fb::Type::Utf8,
            fb::Utf8::create(fbb, &fb::Utf8Args {}).as_union_value(),
        ),
        Vt::Bool => (
            fb::Type::Bool,
            fb::Bool::create(fbb, &fb::BoolArgs {}).as_union_value(),
        ),
        Vt::Decimal => (
            fb::Type::Decimal,
            fb::Decimal::create(
                fbb,
                &fb::DecimalArgs {
                    precision: 10,
                    scale: 2,
                    bitWidth: 128,
                },
            )
            .as_union_value(),
        ),
        Vt::Other(t) => (t, other_type(fbb, t)),
        Vt::Raw(t) => (fb::Type(t), int(fbb, (32, true)).as_union_value()),
    }
}

/// The table of type `t` built from default arguments.
fn other_type(fbb: &mut FlatBufferBuilder<'_>, t: fb::Type) -> WIPOffset<UnionWIPOffset> {
    macro_rules! table {
        ($table:ident, $args:ident) => {
            fb::$table::create(fbb, &fb::$args::default()).as_union_value()
        };
    }
    match t {
        fb::Type::Null => table!(Null, NullArgs),
        fb::Type::Int => table!(Int, IntArgs),
        fb::Type::FloatingPoint => table!(FloatingPoint, FloatingPointArgs),
        fb::Type::Binary => table!(Binary, BinaryArgs),
        fb::Type::Utf8 => table!(Utf8, Utf8Args),
        fb::Type::Bool => table!(Bool, BoolArgs),
        fb::Type::Decimal => table!(Decimal, DecimalArgs),
        fb::Type::Date => table!(Date, DateArgs),
        fb::Type::Time => table!(Time, TimeArgs),
        fb::Type::Timestamp => table!(Timestamp, TimestampArgs),
        fb::Type::Interval => table!(Interval, IntervalArgs),
        fb::Type::List => table!(List, ListArgs),
        fb::Type::Struct_ => table!(Struct_, Struct_Args),
        fb::Type::Union => table!(Union, UnionArgs),
        fb::Type::FixedSizeBinary => table!(FixedSizeBinary, FixedSizeBinaryArgs),
        fb::Type::FixedSizeList => table!(FixedSizeList, FixedSizeListArgs),
        fb::Type::Map => table!(Map, MapArgs),
        fb::Type::Duration => table!(Duration, DurationArgs),
        fb::Type::LargeBinary => table!(LargeBinary, LargeBinaryArgs),
        fb::Type::LargeUtf8 => table!(LargeUtf8, LargeUtf8Args),
        fb::Type::LargeList => table!(LargeList, LargeListArgs),
        fb::Type::RunEndEncoded => table!(RunEndEncoded, RunEndEncodedArgs),
        fb::Type::BinaryView => table!(BinaryView, BinaryViewArgs),
        fb::Type::Utf8View => table!(Utf8View, Utf8ViewArgs),
        fb::Type::ListView => table!(ListView, ListViewArgs),
        fb::Type::LargeListView => table!(LargeListView, LargeListViewArgs),
        // NONE and unknown discriminants: some table as the union value.
        _ => table!(Null, NullArgs),
    }
}

pub fn int<'a>(fbb: &mut FlatBufferBuilder<'a>, t: IntT) -> WIPOffset<fb::Int<'a>> {
    fb::Int::create(
        fbb,
        &fb::IntArgs {
            bitWidth: t.0,
            is_signed: t.1,
        },
    )
}

type Dims<'a> = WIPOffset<flatbuffers::Vector<'a, flatbuffers::ForwardsUOffset<fb::TensorDim<'a>>>>;

pub fn dims<'a>(
    fbb: &mut FlatBufferBuilder<'a>,
    shape: &[i64],
    names: &[Option<&str>],
) -> Dims<'a> {
    let offs: Vec<_> = shape
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            let name = names
                .get(i)
                .copied()
                .flatten()
                .map(|n| fbb.create_string(n));
            fb::TensorDim::create(fbb, &fb::TensorDimArgs { size_: d, name })
        })
        .collect();
    fbb.create_vector(&offs)
}

fn buf(b: (i64, i64)) -> fb::Buffer {
    fb::Buffer::new(b.0, b.1)
}

#[derive(Clone, Debug)]
pub enum Index {
    Coo {
        ty: IntT,
        strides: Option<Vec<i64>>,
        buf: (i64, i64),
        canonical: bool,
    },
    Csx {
        axis: i16,
        ptr_ty: IntT,
        ptr: (i64, i64),
        idx_ty: IntT,
        idx: (i64, i64),
    },
    Csf {
        ptr_ty: IntT,
        ptrs: Vec<(i64, i64)>,
        idx_ty: IntT,
        idxs: Vec<(i64, i64)>,
        order: Vec<i32>,
    },
    /// An unknown SparseTensorIndex discriminant (an Int table as the union value).
    Unknown(u8),
}

#[derive(Clone, Debug)]
pub struct Sparse {
    pub version: i16,
    pub vt: Vt,
    pub shape: Vec<i64>,
    pub names: Vec<Option<&'static str>>,
    pub nnz: i64,
    pub index: Index,
    pub data: (i64, i64),
    pub body_len: i64,
    pub custom_metadata: bool,
}

#[derive(Clone, Debug)]
pub struct Dense {
    pub version: i16,
    pub vt: Vt,
    pub shape: Vec<i64>,
    pub names: Vec<Option<&'static str>>,
    pub strides: Option<Vec<i64>>,
    pub data: (i64, i64),
    pub body_len: i64,
    pub custom_metadata: bool,
}

pub fn finish(
    mut fbb: FlatBufferBuilder<'_>,
    version: i16,
    header_type: fb::MessageHeader,
    header: Option<WIPOffset<UnionWIPOffset>>,
    body_len: i64,
    custom_metadata: bool,
) -> Vec<u8> {
    let custom_metadata = custom_metadata.then(|| {
        let key = fbb.create_string("producer");
        let value = fbb.create_string("test");
        let kv = fb::KeyValue::create(
            &mut fbb,
            &fb::KeyValueArgs {
                key: Some(key),
                value: Some(value),
            },
        );
        fbb.create_vector(&[kv])
    });
    let m = fb::Message::create(
        &mut fbb,
        &fb::MessageArgs {
            version: fb::MetadataVersion(version),
            header_type,
            header,
            bodyLength: body_len,
            custom_metadata,
        },
    );
    fbb.finish(m, None);
    fbb.finished_data().to_vec()
}

pub fn sparse(s: &Sparse) -> Vec<u8> {
    sparse_with_header(s, fb::MessageHeader::SparseTensor)
}

/// The SparseTensor table of `s` under the given header type (a lie when it is not
/// `SparseTensor`).
pub fn sparse_with_header(s: &Sparse, header_type: fb::MessageHeader) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let (index_type, index) = match &s.index {
        Index::Coo {
            ty,
            strides,
            buf: b,
            canonical,
        } => {
            let t = int(&mut fbb, *ty);
            let strides = strides.as_ref().map(|st| fbb.create_vector(st));
            let b = buf(*b);
            let coo = fb::SparseTensorIndexCOO::create(
                &mut fbb,
                &fb::SparseTensorIndexCOOArgs {
                    indicesType: Some(t),
                    indicesStrides: strides,
                    indicesBuffer: Some(&b),
                    isCanonical: *canonical,
                },
            );
            (
                fb::SparseTensorIndex::SparseTensorIndexCOO,
                coo.as_union_value(),
            )
        }
        Index::Csx {
            axis,
            ptr_ty,
            ptr,
            idx_ty,
            idx,
        } => {
            let pt = int(&mut fbb, *ptr_ty);
            let it = int(&mut fbb, *idx_ty);
            let (pb, ib) = (buf(*ptr), buf(*idx));
            let csx = fb::SparseMatrixIndexCSX::create(
                &mut fbb,
                &fb::SparseMatrixIndexCSXArgs {
                    compressedAxis: fb::SparseMatrixCompressedAxis(*axis),
                    indptrType: Some(pt),
                    indptrBuffer: Some(&pb),
                    indicesType: Some(it),
                    indicesBuffer: Some(&ib),
                },
            );
            (
                fb::SparseTensorIndex::SparseMatrixIndexCSX,
                csx.as_union_value(),
            )
        }
        Index::Csf {
            ptr_ty,
            ptrs,
            idx_ty,
            idxs,
            order,
        } => {
            let pt = int(&mut fbb, *ptr_ty);
            let it = int(&mut fbb, *idx_ty);
            let ptrs: Vec<fb::Buffer> = ptrs.iter().map(|b| buf(*b)).collect();
            let idxs: Vec<fb::Buffer> = idxs.iter().map(|b| buf(*b)).collect();
            let ptrs = fbb.create_vector(&ptrs);
            let idxs = fbb.create_vector(&idxs);
            let order = fbb.create_vector(order);
            let csf = fb::SparseTensorIndexCSF::create(
                &mut fbb,
                &fb::SparseTensorIndexCSFArgs {
                    indptrType: Some(pt),
                    indptrBuffers: Some(ptrs),
                    indicesType: Some(it),
                    indicesBuffers: Some(idxs),
                    axisOrder: Some(order),
                },
            );
            (
                fb::SparseTensorIndex::SparseTensorIndexCSF,
                csf.as_union_value(),
            )
        }
        Index::Unknown(d) => (
            fb::SparseTensorIndex(*d),
            int(&mut fbb, (32, true)).as_union_value(),
        ),
    };
    let (type_type, type_) = vt(&mut fbb, s.vt);
    let shape = dims(&mut fbb, &s.shape, &s.names);
    let data = buf(s.data);
    let t = fb::SparseTensor::create(
        &mut fbb,
        &fb::SparseTensorArgs {
            type_type,
            type_: Some(type_),
            shape: Some(shape),
            non_zero_length: s.nnz,
            sparseIndex_type: index_type,
            sparseIndex: Some(index),
            data: Some(&data),
        },
    );
    finish(
        fbb,
        s.version,
        header_type,
        Some(t.as_union_value()),
        s.body_len,
        s.custom_metadata,
    )
}

pub fn dense(d: &Dense) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let (type_type, type_) = vt(&mut fbb, d.vt);
    let shape = dims(&mut fbb, &d.shape, &d.names);
    let strides = d.strides.as_ref().map(|s| fbb.create_vector(s));
    let data = buf(d.data);
    let t = fb::Tensor::create(
        &mut fbb,
        &fb::TensorArgs {
            type_type,
            type_: Some(type_),
            shape: Some(shape),
            strides,
            data: Some(&data),
        },
    );
    finish(
        fbb,
        d.version,
        fb::MessageHeader::Tensor,
        Some(t.as_union_value()),
        d.body_len,
        d.custom_metadata,
    )
}

/// A V5 message whose header is a RecordBatch, a Schema, a DictionaryBatch, nothing
/// (NONE), or an arbitrary discriminant (with an Int table as the union value).
pub fn other_header(header_type: fb::MessageHeader) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let header = match header_type {
        fb::MessageHeader::RecordBatch => Some(
            fb::RecordBatch::create(&mut fbb, &fb::RecordBatchArgs::default()).as_union_value(),
        ),
        fb::MessageHeader::Schema => {
            Some(fb::Schema::create(&mut fbb, &fb::SchemaArgs::default()).as_union_value())
        }
        fb::MessageHeader::DictionaryBatch => Some(
            fb::DictionaryBatch::create(&mut fbb, &fb::DictionaryBatchArgs::default())
                .as_union_value(),
        ),
        fb::MessageHeader::NONE => None,
        _ => Some(int(&mut fbb, (32, true)).as_union_value()),
    };
    finish(fbb, 4, header_type, header, 0, false)
}

/// Frames metadata and body: continuation or legacy prefix, prefix + metadata padded to
/// a multiple of `align`.
pub fn frame(meta: &[u8], body: &[u8], continuation: bool, align: usize) -> Vec<u8> {
    let prefix = if continuation { 8 } else { 4 };
    let header = (prefix + meta.len()).div_ceil(align) * align;
    let mut out = Vec::with_capacity(header + body.len());
    if continuation {
        out.extend_from_slice(&[0xFF; 4]);
    }
    out.extend_from_slice(&((header - prefix) as i32).to_le_bytes());
    out.extend_from_slice(meta);
    out.resize(header, 0);
    out.extend_from_slice(body);
    out
}

/// Little-endian bytes of integers truncated to `w` bytes each (two's complement, so a
/// `u64` above `i64::MAX` is passed as its `i64` bit pattern).
pub fn ints(v: &[i64], w: usize) -> Vec<u8> {
    v.iter()
        .flat_map(|x| x.to_le_bytes()[..w].to_vec())
        .collect()
}

pub fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
