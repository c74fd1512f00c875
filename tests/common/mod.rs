//! Helpers shared by the hostile-input suites (`tests/malformed.rs`, `tests/limits.rs`):
//! a flatbuffer `craft` module that builds messages no encoder of ours would write (copied
//! from `tests/validation.rs` and extended), small valid base messages, and decoding helpers
//! that run every reader (`decode_message`, `MessageIter`, `MessageReader`, `StreamDecoder`
//! fed whole, byte by byte and in random chunks) over the same bytes.
#![allow(dead_code)]

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    decode_message, encode, DecodedMessage, ErrorKind, Message, MessageIter, MessageReader,
    ReadOptions, StreamDecoder, Validation, WriteOptions,
};

// ---------------------------------------------------------------------------------------
// Flatbuffer crafting
// ---------------------------------------------------------------------------------------

pub mod craft {
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

    type Dims<'a> =
        WIPOffset<flatbuffers::Vector<'a, flatbuffers::ForwardsUOffset<fb::TensorDim<'a>>>>;

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
}

use craft::{Index, IntT, Vt, I32, I64};

// ---------------------------------------------------------------------------------------
// Bodies and base messages
// ---------------------------------------------------------------------------------------

/// A body under construction: every buffer starts at a multiple of 8.
#[derive(Default)]
pub struct Body(pub Vec<u8>);

impl Body {
    /// Appends `bytes` at the next multiple of 8; returns `(offset, length)` in bytes.
    pub fn push(&mut self, bytes: &[u8]) -> (i64, i64) {
        self.0.resize(self.0.len().div_ceil(8) * 8, 0);
        let off = self.0.len() as i64;
        self.0.extend_from_slice(bytes);
        (off, bytes.len() as i64)
    }

    /// Appends integers of type `t`.
    pub fn ints(&mut self, v: &[i64], t: IntT) -> (i64, i64) {
        self.push(&craft::ints(v, craft::width(t)))
    }

    /// The body padded to a multiple of 8.
    pub fn finish(mut self) -> Vec<u8> {
        self.0.resize(self.0.len().div_ceil(8) * 8, 0);
        self.0
    }
}

/// A float32 sparse message with the given shape, nnz and index.
pub fn sparse_of(shape: &[i64], nnz: i64, index: Index, data: (i64, i64), body: &[u8]) -> Vec<u8> {
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: shape.to_vec(),
        names: vec![],
        nnz,
        index,
        data,
        body_len: body.len() as i64,
        custom_metadata: false,
    };
    sparse_msg(&s, body)
}

/// A row-major COO message (float32 values, coordinates of type `ty`).
pub fn coo_msg(
    shape: &[i64],
    coords: &[i64],
    ty: IntT,
    values: &[f32],
    canonical: bool,
) -> Vec<u8> {
    let mut body = Body::default();
    let buf = body.ints(coords, ty);
    let data = body.push(&craft::f32s(values));
    let w = craft::width(ty) as i64;
    let index = Index::Coo {
        ty,
        strides: Some(vec![shape.len() as i64 * w, w]),
        buf,
        canonical,
    };
    sparse_of(shape, values.len() as i64, index, data, &body.finish())
}

/// A CSR (`axis` 0) or CSC (`axis` 1) message with float32 values.
pub fn csx_msg(
    shape: [i64; 2],
    axis: i16,
    (indptr, ptr_ty): (&[i64], IntT),
    (indices, idx_ty): (&[i64], IntT),
    values: &[f32],
) -> Vec<u8> {
    let mut body = Body::default();
    let ptr = body.ints(indptr, ptr_ty);
    let idx = body.ints(indices, idx_ty);
    let data = body.push(&craft::f32s(values));
    let index = Index::Csx {
        axis,
        ptr_ty,
        ptr,
        idx_ty,
        idx,
    };
    sparse_of(&shape, values.len() as i64, index, data, &body.finish())
}

/// A CSF message with float32 values; buffer lengths are element counts (what Arrow C++
/// writes).
pub fn csf_msg(
    shape: &[i64],
    order: &[i32],
    (ptrs, ptr_ty): (&[&[i64]], IntT),
    (idxs, idx_ty): (&[&[i64]], IntT),
    values: &[f32],
) -> Vec<u8> {
    let mut body = Body::default();
    let count = |(off, len): (i64, i64), t: IntT| (off, len / craft::width(t) as i64);
    let ptrs: Vec<_> = ptrs
        .iter()
        .map(|p| count(body.ints(p, ptr_ty), ptr_ty))
        .collect();
    let idxs: Vec<_> = idxs
        .iter()
        .map(|p| count(body.ints(p, idx_ty), idx_ty))
        .collect();
    let data = body.push(&craft::f32s(values));
    let index = Index::Csf {
        ptr_ty,
        ptrs,
        idx_ty,
        idxs,
        order: order.to_vec(),
    };
    sparse_of(shape, values.len() as i64, index, data, &body.finish())
}

/// A valid crafted COO message: 3 x 4 float32, int32 coordinates (0,1) (1,2) (2,3); body:
/// indices at 0 (24 bytes), values at 24 (12 bytes, padded to 16).
pub fn crafted_coo() -> (craft::Sparse, Vec<u8>) {
    let mut body = craft::ints(&[0, 1, 1, 2, 2, 3], 4);
    body.extend(craft::f32s(&[1., 2., 3.]));
    body.resize(40, 0);
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![3, 4],
        names: vec![],
        nnz: 3,
        index: Index::Coo {
            ty: I32,
            strides: Some(vec![8, 4]),
            buf: (0, 24),
            canonical: true,
        },
        data: (24, 16),
        body_len: 40,
        custom_metadata: false,
    };
    (s, body)
}

pub fn sparse_msg(s: &craft::Sparse, body: &[u8]) -> Vec<u8> {
    craft::frame(&craft::sparse(s), body, true, 8)
}

/// A valid crafted CSR message: 3 x 4, row 0 -> cols 0, 2; row 1 empty; row 2 -> cols 1, 3
/// (int64 indptr and indices, float64 values 1..4).
pub fn crafted_csr() -> (craft::Sparse, Vec<u8>) {
    let mut body = craft::ints(&[0, 2, 2, 4], 8);
    body.extend(craft::ints(&[0, 2, 1, 3], 8));
    body.extend([1f64, 2., 3., 4.].iter().flat_map(|v| v.to_le_bytes()));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(2),
        shape: vec![3, 4],
        names: vec![],
        nnz: 4,
        index: Index::Csx {
            axis: 0,
            ptr_ty: I64,
            ptr: (0, 32),
            idx_ty: I64,
            idx: (32, 32),
        },
        data: (64, 32),
        body_len: 96,
        custom_metadata: false,
    };
    (s, body)
}

/// The arrays of the seed CSF example: 2 x 3 x 4, (0,0,1)=1 (0,2,3)=2 (1,1,0)=3 (1,1,2)=4;
/// indptr of levels 0 and 1, then indices of levels 0, 1, 2.
pub const CSF_ARRAYS: [&[i64]; 5] = [
    &[0, 2, 3],
    &[0, 1, 2, 4],
    &[0, 1],
    &[0, 2, 1],
    &[1, 3, 0, 2],
];

/// A valid crafted CSF message: the seed example, int32 indices, CSF lengths as element
/// counts (what Arrow C++ writes); buffers back to back, each padded to 8.
pub fn crafted_csf() -> (craft::Sparse, Vec<u8>) {
    let mut body = Vec::new();
    let mut refs = Vec::new();
    for a in CSF_ARRAYS {
        let off = body.len() as i64;
        body.extend(craft::ints(a, 4));
        body.resize(body.len().div_ceil(8) * 8, 0);
        refs.push((off, a.len() as i64));
    }
    let data = (body.len() as i64, 16);
    body.extend(craft::f32s(&[1., 2., 3., 4.]));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![2, 3, 4],
        names: vec![],
        nnz: 4,
        index: Index::Csf {
            ptr_ty: I32,
            ptrs: refs[..2].to_vec(),
            idx_ty: I32,
            idxs: refs[2..].to_vec(),
            order: vec![0, 1, 2],
        },
        data,
        body_len: body.len() as i64,
        custom_metadata: false,
    };
    (s, body)
}

/// A valid crafted dense message: int32 [2, 3] = 1..6, row-major strides, body 24 bytes.
pub fn crafted_dense() -> (craft::Dense, Vec<u8>) {
    let body = craft::ints(&[1, 2, 3, 4, 5, 6], 4);
    let d = craft::Dense {
        version: 4,
        vt: Vt::Int(32, true),
        shape: vec![2, 3],
        names: vec![],
        strides: Some(vec![12, 4]),
        data: (0, 24),
        body_len: 24,
        custom_metadata: false,
    };
    (d, body)
}

pub fn dense_msg(d: &craft::Dense, body: &[u8]) -> Vec<u8> {
    craft::frame(&craft::dense(d), body, true, 64)
}

// ---------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------

/// Owner of a 64-byte aligned copy, so that `bytes::Bytes` views of it are aligned.
struct Aligned(Buffer);

impl AsRef<[u8]> for Aligned {
    fn as_ref(&self) -> &[u8] {
        self.0.as_slice()
    }
}

/// A 64-byte aligned copy of `bytes`: where a buffer lands in memory then depends only on
/// its offset in the message.
pub fn aligned(bytes: &[u8]) -> bytes::Bytes {
    bytes::Bytes::from_owner(Aligned(Buffer::from_slice_ref(bytes)))
}

pub fn enc(m: impl Into<Message>) -> Vec<u8> {
    encode(&m.into(), &WriteOptions::default())
        .expect("encode")
        .to_vec()
}

/// Decodes the first message with `decode_message` (from an aligned copy).
pub fn dec(bytes: &[u8], options: ReadOptions) -> arrow_tensor_ipc::Result<DecodedMessage> {
    decode_message(&aligned(bytes), &options).map(|m| m.expect("a message, not end of stream"))
}

/// Reads the first message with `MessageReader`.
pub fn read(bytes: &[u8], options: ReadOptions) -> arrow_tensor_ipc::Result<DecodedMessage> {
    MessageReader::new(bytes, options)
        .next()
        .expect("a message, not end of stream")
}

/// Reads the first message with `MessageIter` (over an aligned copy).
pub fn iter_first(bytes: &[u8], options: ReadOptions) -> arrow_tensor_ipc::Result<DecodedMessage> {
    MessageIter::new(Buffer::from_slice_ref(bytes), options)
        .next()
        .expect("a message, not end of stream")
}

/// The first message a `StreamDecoder` gives for `chunks` pushed in order (or its first
/// error, or the error of `finish` when the input ends inside a message).
fn stream_first<'a>(
    options: ReadOptions,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    push: bool,
) -> arrow_tensor_ipc::Result<DecodedMessage> {
    let mut d = StreamDecoder::new(options);
    for chunk in chunks {
        if push {
            d.push(Buffer::from_slice_ref(chunk));
            if let Some(m) = d.next_message()? {
                return Ok(m);
            }
        } else {
            let mut rest = chunk;
            if let Some(m) = d.decode_slice(&mut rest)? {
                return Ok(m);
            }
        }
        if d.is_finished() {
            break;
        }
    }
    d.finish()?;
    panic!("a message, not end of stream")
}

/// `StreamDecoder::decode` over all of `bytes` in one (aligned) buffer: the zero-copy path.
pub fn stream_whole(
    bytes: &[u8],
    options: ReadOptions,
) -> arrow_tensor_ipc::Result<DecodedMessage> {
    let mut d = StreamDecoder::new(options);
    let mut buf = Buffer::from_slice_ref(bytes);
    if let Some(m) = d.decode(&mut buf)? {
        return Ok(m);
    }
    d.finish()?;
    panic!("a message, not end of stream")
}

/// `StreamDecoder::push`, one byte at a time.
pub fn stream_bytes(
    bytes: &[u8],
    options: ReadOptions,
) -> arrow_tensor_ipc::Result<DecodedMessage> {
    stream_first(options, bytes.chunks(1), true)
}

/// `bytes` cut into pseudo-random chunks of 1 to 97 bytes (splitmix64 from `seed`).
pub fn random_chunks(bytes: &[u8], seed: u64) -> Vec<&[u8]> {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = (1 + next() % 97).min(rest.len() as u64) as usize;
        let (a, b) = rest.split_at(n);
        out.push(a);
        rest = b;
    }
    out
}

/// `StreamDecoder` over random chunkings of `bytes` (several seeds, through `push` and
/// through `decode_slice`), which must all give the same result.
pub fn stream_random(
    bytes: &[u8],
    options: ReadOptions,
) -> arrow_tensor_ipc::Result<DecodedMessage> {
    let runs: Vec<_> = (1..=4u64)
        .map(|seed| stream_first(options, random_chunks(bytes, seed), seed % 2 == 1))
        .collect();
    let shown = |r: &arrow_tensor_ipc::Result<DecodedMessage>| match r {
        Ok(m) => format!(
            "Ok({:?}, offset {}, {} bytes)",
            m.framing,
            m.offset,
            m.total_length()
        ),
        Err(e) => format!("Err({:?}, {:?})", e.kind(), e.message_offset()),
    };
    for r in &runs[1..] {
        assert_eq!(shown(r), shown(&runs[0]), "chunkings disagree");
    }
    runs.into_iter().next().expect("four runs")
}

/// One way of reading the first message of some bytes.
pub type Reader = fn(&[u8], ReadOptions) -> arrow_tensor_ipc::Result<DecodedMessage>;

/// Every reader, by name.
pub const READERS: [(&str, Reader); 6] = [
    ("decode_message", dec),
    ("MessageIter", iter_first),
    ("MessageReader", read),
    ("StreamDecoder (whole)", stream_whole),
    ("StreamDecoder (byte by byte)", stream_bytes),
    ("StreamDecoder (random chunks)", stream_random),
];

/// The error of each reader (see [`READERS`]) on the first message of `bytes`; panics when
/// one of them decodes it.
pub fn all_errors(bytes: &[u8], options: ReadOptions) -> Vec<(&'static str, ErrorKind)> {
    READERS
        .into_iter()
        .map(|(api, run)| match run(bytes, options) {
            Ok(m) => panic!("{api} decoded a malformed message: {:?}", m.message),
            Err(e) => {
                assert_eq!(e.message_offset(), Some(0), "{api}: {e}");
                (api, e.into_kind())
            }
        })
        .collect()
}

pub fn strict_err(bytes: &[u8]) -> ErrorKind {
    dec(bytes, ReadOptions::strict())
        .expect_err("strict decoding must fail")
        .into_kind()
}

/// `options` with permissive validation.
pub fn permissive_of(options: ReadOptions) -> ReadOptions {
    options.with_validation(Validation::Permissive)
}

/// Element limit used when expanding permissively decoded tensors: far above the shapes of
/// the crafted messages, so that a `LimitExceeded` never hides the error under test.
pub const DENSE_LIMIT: usize = 1 << 16;

/// Decodes `bytes` permissively (`options` with permissive validation) with every reader.
/// Returns `None` when they all reject it. When they decode it (a sparse tensor whose index
/// contents strict mode rejects), checks that using it fails without panicking: iteration,
/// `for_each_stored` and `to_dense_limited` return errors, `get` on every cell and `value`
/// at every position return (errors or values) without panicking, and so does re-encoding.
pub fn permissive_use_fails(bytes: &[u8], options: ReadOptions) -> Option<DecodedMessage> {
    let options = permissive_of(options);
    let results: Vec<_> = READERS.iter().map(|(_, run)| run(bytes, options)).collect();
    let oks = results.iter().filter(|r| r.is_ok()).count();
    assert!(
        oks == 0 || oks == results.len(),
        "readers disagree: {:?}",
        results.iter().map(|r| r.as_ref().err()).collect::<Vec<_>>()
    );
    let d = results.into_iter().next()?.ok()?;
    let t = d
        .message
        .as_sparse()
        .unwrap_or_else(|| panic!("permissive decoding accepted a dense tensor strict rejects"));
    assert!(!t.is_validated());
    let e = t
        .iter()
        .err()
        .expect("iteration of bad index data must fail");
    assert!(!matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    let e = t
        .to_dense_limited(DENSE_LIMIT)
        .expect_err("to_dense_limited of bad index data must fail");
    assert!(!matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    assert!(t.for_each_stored(|_, _| {}).is_err());
    for coords in cells(t.shape(), 4096) {
        let _ = t.get(&coords);
    }
    for p in 0..=t.nnz() {
        let _ = t.value(p);
    }
    let _ = encode(&d.message, &WriteOptions::default());
    Some(d)
}

/// Every coordinate of `shape` in row-major order (none when there are more than `max`).
pub fn cells(shape: &[usize], max: usize) -> Vec<Vec<usize>> {
    let total = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    if !matches!(total, Some(t) if t <= max) {
        return Vec::new();
    }
    let mut out = vec![vec![]];
    for &d in shape {
        out = out
            .into_iter()
            .flat_map(|c| {
                (0..d).map(move |i| {
                    let mut c = c.clone();
                    c.push(i);
                    c
                })
            })
            .collect();
    }
    out
}
