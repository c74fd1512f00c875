//! One test per validation rule: each breaks exactly that rule and checks the specific
//! [`ErrorKind`], through the constructors, through decoding a message whose body was patched
//! after encoding, and through messages crafted with the flatbuffer builder. Permissive
//! reading of the same broken messages must succeed, and using the result must return errors
//! (never panic).

use arrow_buffer::Buffer;
use arrow_tensor_ipc::__private::flatbuf as fb;
use arrow_tensor_ipc::{
    decode_message, encode, BufferId, CompressedAxis, CooIndex, CsfIndex, CsxIndex, DecodedMessage,
    ErrorKind, IndexArray, IndexType, Limits, Message, MessageIter, Misaligned, ReadOptions,
    Scalar, SparseIndex, SparseTensor, Tensor, ValueType, WriteOptions,
};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn enc(m: impl Into<Message>) -> Vec<u8> {
    encode(&m.into(), &WriteOptions::default())
        .expect("encode")
        .to_vec()
}

fn dec(bytes: &[u8], options: ReadOptions) -> arrow_tensor_ipc::Result<DecodedMessage> {
    decode_message(&bytes::Bytes::copy_from_slice(bytes), &options)
        .map(|m| m.expect("a message, not end of stream"))
}

fn strict_err(bytes: &[u8]) -> ErrorKind {
    dec(bytes, ReadOptions::strict())
        .expect_err("strict decoding must fail")
        .into_kind()
}

fn sparse(d: &DecodedMessage) -> &SparseTensor {
    d.message.as_sparse().expect("a sparse tensor")
}

/// Offset of the body from the message start (continuation framing).
fn body_offset(bytes: &[u8]) -> usize {
    let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap());
    8 + len as usize
}

/// Body offsets of the buffers of an encoded sparse message, in body order (COO: indices,
/// values; CSX: indptr, indices, values; CSF: all indptr, all indices, values), read from
/// the metadata.
fn sparse_buffer_offsets(bytes: &[u8]) -> Vec<usize> {
    let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let msg = flatbuffers::root::<fb::Message>(&bytes[8..8 + len]).unwrap();
    let t = msg.header_as_sparse_tensor().unwrap();
    let mut out = Vec::new();
    if let Some(c) = t.sparseIndex_as_sparse_tensor_index_coo() {
        out.push(c.indicesBuffer().offset());
    } else if let Some(c) = t.sparseIndex_as_sparse_matrix_index_csx() {
        out.push(c.indptrBuffer().offset());
        out.push(c.indicesBuffer().offset());
    } else if let Some(c) = t.sparseIndex_as_sparse_tensor_index_csf() {
        out.extend(c.indptrBuffers().iter().map(|b| b.offset()));
        out.extend(c.indicesBuffers().iter().map(|b| b.offset()));
    }
    out.push(t.data().offset());
    let out: Vec<usize> = out.into_iter().map(|o| o as usize).collect();
    // What the encoder promises: every buffer at a 64-byte offset, in body order.
    assert!(out.iter().all(|o| o % 64 == 0), "{out:?}");
    assert!(out.windows(2).all(|w| w[0] <= w[1]), "{out:?}");
    out
}

/// Encodes `t`, then overwrites element `elem` (of `width` bytes) of body buffer `buffer`
/// with `value` (little-endian, two's complement truncated to the width).
fn patched(t: &SparseTensor, buffer: usize, width: usize, elem: usize, value: i64) -> Vec<u8> {
    let mut bytes = enc(t.clone());
    // The unpatched message is valid.
    let ok = dec(&bytes, ReadOptions::strict()).expect("valid before patching");
    assert!(sparse(&ok).content_eq(t));
    let at = body_offset(&bytes) + sparse_buffer_offsets(&bytes)[buffer] + elem * width;
    assert_eq!(ok.body_offset, body_offset(&bytes));
    bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
    bytes
}

/// Decodes a broken message permissively and checks that using it fails without panicking.
fn permissive_errors(bytes: &[u8], lookups: &[&[usize]]) -> Vec<arrow_tensor_ipc::Result<Scalar>> {
    let d = dec(bytes, ReadOptions::permissive()).expect("permissive decoding succeeds");
    let t = sparse(&d);
    assert!(!t.is_validated());
    assert!(t.iter().is_err(), "iter must fail");
    assert!(t.to_dense().is_err(), "to_dense must fail");
    assert!(
        t.for_each_stored(|_, _| {}).is_err(),
        "for_each_stored must fail"
    );
    // Lookups never panic; the caller checks which fail.
    lookups.iter().map(|c| t.get(c)).collect()
}

// Base tensors used by the patch tests.

/// 3 x 4 COO, int32 coordinates (0,1) (1,2) (2,3), float32 values. Canonical.
fn coo_base() -> SparseTensor {
    let t = SparseTensor::coo(&[3, 4], vec![0i32, 1, 1, 2, 2, 3], vec![1f32, 2., 3.]).unwrap();
    match t.index() {
        SparseIndex::Coo(c) => assert!(c.is_canonical()),
        _ => unreachable!(),
    }
    t
}

/// 3 x 4 CSR: row 0 -> cols 0, 2; row 1 empty; row 2 -> cols 1, 3. int64 index, f64 values.
fn csr_base() -> SparseTensor {
    SparseTensor::csr(
        [3, 4],
        vec![0i64, 2, 2, 4],
        vec![0i64, 2, 1, 3],
        vec![1f64, 2., 3., 4.],
    )
    .unwrap()
}

/// The seed CSF example: 2 x 3 x 4, (0,0,1)=1 (0,2,3)=2 (1,1,0)=3 (1,1,2)=4, int32 indices.
fn csf_base() -> SparseTensor {
    SparseTensor::csf(
        &[2, 3, 4],
        vec![0, 1, 2],
        vec![vec![0i32, 2, 3], vec![0, 1, 2, 4]],
        vec![vec![0i32, 1], vec![0, 2, 1], vec![1, 3, 0, 2]],
        vec![1f32, 2., 3., 4.],
    )
    .unwrap()
}

// CSF body buffer numbers for the rank-3 base.
const CSF_PTR0: usize = 0;
const CSF_PTR1: usize = 1;
const CSF_IDX0: usize = 2;
const CSF_IDX1: usize = 3;
const CSF_IDX2: usize = 4;

fn csf_parts(
    shape: &[usize],
    order: Vec<usize>,
    ptr: Vec<Vec<i32>>,
    idx: Vec<Vec<i32>>,
    values: Vec<f32>,
) -> arrow_tensor_ipc::Result<SparseTensor> {
    SparseTensor::csf(shape, order, ptr, idx, values)
}

// ---------------------------------------------------------------------------------------
// Flatbuffer crafting (messages no encoder of ours would write)
// ---------------------------------------------------------------------------------------

#[allow(dead_code)]
mod craft {
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
        /// An arbitrary `Type` discriminant (with an Int table as the union value).
        Raw(u8),
    }

    pub type IntT = (i32, bool);

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
            Vt::Raw(t) => (fb::Type(t), int(fbb, (32, true)).as_union_value()),
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

    fn finish(
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
            fb::MessageHeader::SparseTensor,
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

    /// A message whose header is a RecordBatch, a Schema, or an arbitrary discriminant.
    pub fn other_header(header_type: fb::MessageHeader) -> Vec<u8> {
        let mut fbb = FlatBufferBuilder::new();
        let header = match header_type {
            fb::MessageHeader::RecordBatch => Some(
                fb::RecordBatch::create(&mut fbb, &fb::RecordBatchArgs::default()).as_union_value(),
            ),
            fb::MessageHeader::Schema => {
                Some(fb::Schema::create(&mut fbb, &fb::SchemaArgs::default()).as_union_value())
            }
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

    /// Little-endian bytes of integers truncated to `w` bytes each.
    pub fn ints(v: &[i64], w: usize) -> Vec<u8> {
        v.iter()
            .flat_map(|x| x.to_le_bytes()[..w].to_vec())
            .collect()
    }

    pub fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
}

use craft::{Index, Vt};

const I32: craft::IntT = (32, true);
const I64: craft::IntT = (64, true);

/// A valid crafted COO message: 3 x 4 float32, int32 coordinates (0,1) (1,2) (2,3); body:
/// indices at 0 (24 bytes), values at 24 (12 bytes, padded to 16).
fn crafted_coo() -> (craft::Sparse, Vec<u8>) {
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

fn sparse_msg(s: &craft::Sparse, body: &[u8]) -> Vec<u8> {
    craft::frame(&craft::sparse(s), body, true, 8)
}

/// A valid crafted CSR message: the 3 x 4 base (int64 indptr and indices, float64 values).
fn crafted_csr() -> (craft::Sparse, Vec<u8>) {
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

/// A valid crafted CSF message: the seed 2 x 3 x 4 example, int32 indices, CSF lengths as
/// element counts (what Arrow C++ writes); buffers back to back, each padded to 8.
fn crafted_csf() -> (craft::Sparse, Vec<u8>) {
    let arrays: [&[i64]; 5] = [
        &[0, 2, 3],
        &[0, 1, 2, 4],
        &[0, 1],
        &[0, 2, 1],
        &[1, 3, 0, 2],
    ];
    let mut body = Vec::new();
    let mut refs = Vec::new();
    for a in arrays {
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

/// A valid crafted dense message: int32 [2, 3], row-major strides, body 24 bytes.
fn crafted_dense() -> (craft::Dense, Vec<u8>) {
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

fn dense_msg(d: &craft::Dense, body: &[u8]) -> Vec<u8> {
    craft::frame(&craft::dense(d), body, true, 64)
}

#[test]
fn crafted_bases_are_valid() {
    let (s, b) = crafted_coo();
    let d = dec(&sparse_msg(&s, &b), ReadOptions::strict()).unwrap();
    assert!(sparse(&d).content_eq(&coo_base()));
    let (s, b) = crafted_csr();
    let d = dec(&sparse_msg(&s, &b), ReadOptions::strict()).unwrap();
    assert!(sparse(&d).content_eq(&csr_base()));
    let (s, b) = crafted_csf();
    let d = dec(&sparse_msg(&s, &b), ReadOptions::strict()).unwrap();
    assert!(sparse(&d).content_eq(&csf_base()));
    let (t, b) = crafted_dense();
    let d = dec(&dense_msg(&t, &b), ReadOptions::strict()).unwrap();
    let expected = Tensor::from_vec(vec![2, 3], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    assert!(d.message.as_tensor().unwrap().content_eq(&expected));
}

// ---------------------------------------------------------------------------------------
// COO
// ---------------------------------------------------------------------------------------

#[test]
fn coo_out_of_bounds_constructor() {
    let e = SparseTensor::coo(&[3, 4], vec![0i32, 1, 1, 4], vec![1f32, 2.]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CooIndices,
                position: 3,
                value: 4,
                dim: 1,
                bound: 4
            }
        ),
        "{e}"
    );
    // Also an unsigned type and the first dimension.
    let e = SparseTensor::coo(&[3, 4], vec![3u8, 0], vec![1f32]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                dim: 0,
                bound: 3,
                ..
            }
        ),
        "{e}"
    );
    // Column-major layout, through try_new.
    let idx = CooIndex::with_order(
        IndexArray::from_vec(vec![0i64, 1, 0, 5]),
        2,
        arrow_tensor_ipc::CooOrder::ColumnMajor,
    )
    .unwrap();
    let e = SparseTensor::try_new(
        ValueType::Float32,
        vec![3, 4],
        Buffer::from_vec(vec![1f32, 2.]),
        SparseIndex::Coo(idx),
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                dim: 1,
                value: 5,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn coo_out_of_bounds_decoded() {
    let bytes = patched(&coo_base(), 0, 4, 3, 4); // entry 1, dim 1 -> 4
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CooIndices,
            position: 3,
            value: 4,
            dim: 1,
            bound: 4
        }
    ));
}

#[test]
fn coo_negative_coordinate_constructor() {
    let e = SparseTensor::coo(&[3, 4], vec![0i16, 1, -1, 2], vec![1f32, 2.]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                value: -1,
                dim: 0,
                ..
            }
        ),
        "{e}"
    );
    let e = SparseTensor::coo(&[3, 4], vec![0i64, i64::MIN], vec![1f32]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                value: i64::MIN,
                dim: 1,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn coo_negative_coordinate_decoded() {
    let bytes = patched(&coo_base(), 0, 4, 2, -1); // entry 1, dim 0 -> -1
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            value: -1,
            dim: 0,
            position: 2,
            ..
        }
    ));
}

#[test]
fn coo_canonical_flag_with_unsorted_coordinates_decoded() {
    // Entry 0 becomes (2, 0): (2,0) (1,2) (2,3) is not sorted, but the flag says canonical.
    let bytes = patched(&coo_base(), 0, 4, 0, 2);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CooIndices,
            position: 1,
            ..
        }
    ));
}

#[test]
fn coo_canonical_flag_with_duplicates_decoded() {
    // Entry 1 becomes (0, 1), equal to entry 0.
    let mut bytes = patched(&coo_base(), 0, 4, 2, 0);
    let at = body_offset(&bytes) + 3 * 4;
    bytes[at..at + 4].copy_from_slice(&1i32.to_le_bytes());
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CooIndices,
            position: 1,
            ..
        }
    ));
}

#[test]
fn coo_canonical_flag_column_major_unsorted_crafted() {
    // Column-major coordinates (1,0) (0,1) flagged canonical.
    let mut body = craft::ints(&[1, 0, 0, 1], 4);
    body.extend(craft::f32s(&[1., 2.]));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![2, 2],
        names: vec![],
        nnz: 2,
        index: Index::Coo {
            ty: I32,
            strides: Some(vec![4, 8]),
            buf: (0, 16),
            canonical: true,
        },
        data: (16, 8),
        body_len: 24,
        custom_metadata: false,
    };
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::NotIncreasing { position: 1, .. }
    ));
    // Without the flag it is a valid non-canonical COO.
    let mut s = s;
    if let Index::Coo { canonical, .. } = &mut s.index {
        *canonical = false;
    }
    let d = dec(&sparse_msg(&s, &body), ReadOptions::strict()).unwrap();
    let t = sparse(&d);
    assert_eq!(t.get(&[1, 0]).unwrap(), Scalar::Float32(1.));
    assert_eq!(t.get(&[0, 1]).unwrap(), Scalar::Float32(2.));
    assert_eq!(t.get(&[0, 0]).unwrap(), Scalar::Float32(0.));
}

#[test]
fn coo_duplicates_refused_by_constructors_accepted_with_duplicates() {
    let coords = vec![1i32, 2, 0, 1, 1, 2];
    let values = vec![1.5f64, 10., 2.25];
    let e = SparseTensor::coo(&[3, 4], coords.clone(), values.clone()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::DuplicateCoordinate {
                first: 0,
                second: 2
            }
        ),
        "{e}"
    );
    let index =
        || SparseIndex::Coo(CooIndex::new(IndexArray::from_vec(coords.clone()), 2).unwrap());
    let e = SparseTensor::try_new(
        ValueType::Float64,
        vec![3, 4],
        Buffer::from_vec(values.clone()),
        index(),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::DuplicateCoordinate { .. }),
        "{e}"
    );

    let t = SparseTensor::try_new_with_duplicates(
        ValueType::Float64,
        vec![3, 4],
        Buffer::from_vec(values.clone()),
        index(),
    )
    .unwrap();
    match t.index() {
        SparseIndex::Coo(c) => assert!(!c.is_canonical()),
        _ => unreachable!(),
    }
    assert_eq!(t.nnz(), 3);
    assert_eq!(t.get(&[1, 2]).unwrap(), Scalar::Float64(3.75));
    assert_eq!(t.get(&[0, 1]).unwrap(), Scalar::Float64(10.));
    assert_eq!(t.get(&[2, 2]).unwrap(), Scalar::Float64(0.));
    let dense = t.to_dense().unwrap();
    let mut expected = vec![0f64; 12];
    expected[4 + 2] = 3.75;
    expected[1] = 10.;
    assert_eq!(dense.to_vec::<f64>().unwrap(), expected);
    // Iteration reports every stored entry, duplicates included.
    let entries: Vec<_> = t.iter().unwrap().map(|n| (n.coords, n.value)).collect();
    assert_eq!(
        entries,
        vec![
            (vec![1, 2], Scalar::Float64(1.5)),
            (vec![0, 1], Scalar::Float64(10.)),
            (vec![1, 2], Scalar::Float64(2.25)),
        ]
    );
    // Integer duplicates sum with wrapping.
    let t = SparseTensor::try_new_with_duplicates(
        ValueType::UInt8,
        vec![2],
        Buffer::from_vec(vec![200u8, 100]),
        SparseIndex::Coo(CooIndex::new(IndexArray::from_vec(vec![1u8, 1]), 1).unwrap()),
    )
    .unwrap();
    assert_eq!(t.get(&[1]).unwrap(), Scalar::UInt8(44));
    assert_eq!(t.to_dense().unwrap().to_vec::<u8>().unwrap(), vec![0, 44]);

    // A non-canonical message with duplicates is valid Arrow and decodes strictly.
    let t = SparseTensor::try_new_with_duplicates(
        ValueType::Float64,
        vec![3, 4],
        Buffer::from_vec(values),
        index(),
    )
    .unwrap();
    let d = dec(&enc(t.clone()), ReadOptions::strict()).unwrap();
    assert!(sparse(&d).content_eq(&t));
    assert_eq!(sparse(&d).get(&[1, 2]).unwrap(), Scalar::Float64(3.75));
}

#[test]
fn coo_invalid_strides_crafted() {
    let (mut s, body) = crafted_coo();
    // nnz = 3, ndim = 2, w = 4: row-major is [8, 4], column-major [4, 12].
    for strides in [
        vec![4, 4],
        vec![8, 8],
        vec![12, 4],
        vec![8, 4, 1],
        vec![8],
        vec![-8, 4],
    ] {
        if let Index::Coo { strides: st, .. } = &mut s.index {
            *st = Some(strides.clone());
        }
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(&e, ErrorKind::InvalidCooStrides(v) if *v == strides),
            "{strides:?}: {e}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// CSX
// ---------------------------------------------------------------------------------------

fn csr(indptr: Vec<i64>, indices: Vec<i64>, n: usize) -> arrow_tensor_ipc::Result<SparseTensor> {
    SparseTensor::csr([3, 4], indptr, indices, (1..=n).map(|v| v as f64).collect())
}

#[test]
fn csx_indptr_not_starting_at_zero() {
    let e = csr(vec![1, 2, 2, 4], vec![0, 2, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsxIndptr,
                position: 0,
                value: 1,
                ..
            }
        ),
        "{e}"
    );
    let bytes = patched(&csr_base(), 0, 8, 0, 1);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsxIndptr,
            position: 0,
            ..
        }
    ));
}

#[test]
fn csx_indptr_decreasing() {
    let e = csr(vec![0, 3, 2, 4], vec![0, 2, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                position: 2,
                value: 2,
                ..
            }
        ),
        "{e}"
    );
    let bytes = patched(&csr_base(), 0, 8, 1, 3);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr { position: 2, .. }
    ));
}

#[test]
fn csx_indptr_not_ending_at_nnz() {
    let e = csr(vec![0, 2, 2, 3], vec![0, 2, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                position: 3,
                value: 3,
                ..
            }
        ),
        "{e}"
    );
    let bytes = patched(&csr_base(), 0, 8, 3, 3);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr {
            position: 3,
            value: 3,
            ..
        }
    ));
    // Ending beyond nnz.
    let bytes = patched(&csr_base(), 0, 8, 3, 5);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr {
            position: 3,
            value: 5,
            ..
        }
    ));
}

#[test]
fn csx_indptr_wrong_length() {
    for indptr in [vec![0i64, 2, 4], vec![0, 2, 2, 4, 4]] {
        let e = csr(indptr, vec![0, 2, 1, 3], 4).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::CountMismatch { expected: 4, .. }),
            "{e}"
        );
    }
    // CSC needs shape[1] + 1 entries.
    let e =
        SparseTensor::csc([3, 4], vec![0i64, 1, 2, 3], vec![0, 1, 2], vec![1u8, 2, 3]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 5,
                found: 4,
                ..
            }
        ),
        "{e}"
    );
    // indices of the wrong length (not nnz).
    let e = SparseTensor::csr(
        [3, 4],
        vec![0i64, 2, 2, 4],
        vec![0, 2, 1],
        vec![1u8, 2, 3, 4],
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    // In a message: an indptr buffer too short for shape[0] + 1 entries.
    let (mut s, body) = crafted_csr();
    if let Index::Csx { ptr, .. } = &mut s.index {
        ptr.1 = 24;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CsxIndptr,
            needed: 32,
            length: 24
        }
    ));
}

#[test]
fn csx_indices_out_of_bounds() {
    let e = csr(vec![0, 2, 2, 4], vec![0, 4, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CsxIndices,
                position: 1,
                value: 4,
                dim: 1,
                bound: 4
            }
        ),
        "{e}"
    );
    // CSC indices are row numbers, bounded by shape[0].
    let e = SparseTensor::csc([3, 4], vec![0i32, 1, 1, 1, 1], vec![3], vec![1f32]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                dim: 0,
                bound: 3,
                ..
            }
        ),
        "{e}"
    );
    // Negative.
    let e = csr(vec![0, 2, 2, 4], vec![0, 2, -1, 3], 4).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::IndexOutOfBounds { value: -1, .. }),
        "{e}"
    );
    let bytes = patched(&csr_base(), 1, 8, 3, 7);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsxIndices,
            position: 3,
            value: 7,
            ..
        }
    ));
}

#[test]
fn csx_indices_not_increasing_within_row() {
    let e = csr(vec![0, 2, 2, 4], vec![2, 0, 1, 3], 4).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotIncreasing {
                buffer: BufferId::CsxIndices,
                position: 1,
                ..
            }
        ),
        "{e}"
    );
    // Duplicates in a row.
    let e = csr(vec![0, 2, 2, 4], vec![0, 2, 3, 3], 4).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::NotIncreasing { position: 3, .. }),
        "{e}"
    );
    // Decreasing across rows is fine: rows are independent.
    csr(vec![0, 2, 2, 4], vec![2, 3, 0, 1], 4).unwrap();
    let bytes = patched(&csr_base(), 1, 8, 3, 0); // row 2: cols 1, 0
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CsxIndices,
            position: 3,
            ..
        }
    ));
}

#[test]
fn csx_rank_not_two() {
    for shape in [vec![4usize], vec![2, 2, 2], vec![]] {
        let index = CsxIndex::new(
            CompressedAxis::Row,
            IndexArray::from_vec(vec![0i32, 1, 1]),
            IndexArray::from_vec(vec![0i32]),
        );
        let e = SparseTensor::try_new(
            ValueType::Float32,
            shape.clone(),
            Buffer::from_vec(vec![1f32]),
            SparseIndex::Csx(index),
        )
        .unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::InvalidRank { rank, .. } if *rank == shape.len()),
            "{e}"
        );
    }
    let (mut s, body) = crafted_csr();
    s.shape = vec![3, 4, 1];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::InvalidRank { rank: 3, .. }
    ));
    s.shape = vec![12];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::InvalidRank { rank: 1, .. }
    ));
}

#[test]
fn csx_unknown_compressed_axis_crafted() {
    let (mut s, body) = crafted_csr();
    if let Index::Csx { axis, .. } = &mut s.index {
        *axis = 5;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::UnknownUnion { value: 5, .. }
    ));
}

// ---------------------------------------------------------------------------------------
// CSF
// ---------------------------------------------------------------------------------------

fn seed_ptr() -> Vec<Vec<i32>> {
    vec![vec![0, 2, 3], vec![0, 1, 2, 4]]
}
fn seed_idx() -> Vec<Vec<i32>> {
    vec![vec![0, 1], vec![0, 2, 1], vec![1, 3, 0, 2]]
}
fn seed_values() -> Vec<f32> {
    vec![1., 2., 3., 4.]
}

#[test]
fn csf_axis_order_not_a_permutation() {
    for order in [vec![0, 0, 2], vec![0, 1, 3], vec![2, 1, 1]] {
        let e = csf_parts(
            &[2, 3, 4],
            order.clone(),
            seed_ptr(),
            seed_idx(),
            seed_values(),
        )
        .unwrap_err();
        let expected: Vec<i64> = order.iter().map(|&v| v as i64).collect();
        assert!(
            matches!(e.kind(), ErrorKind::NotAPermutation(v) if *v == expected),
            "{order:?}: {e}"
        );
    }
    // Wrong length.
    let e = csf_parts(
        &[2, 3, 4],
        vec![0, 1],
        seed_ptr(),
        seed_idx(),
        seed_values(),
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{e}"
    );
    // In messages: duplicate, out of range, negative.
    let (mut s, body) = crafted_csf();
    for order in [vec![0, 0, 2], vec![0, 1, 3], vec![0, -1, 2]] {
        if let Index::Csf { order: o, .. } = &mut s.index {
            *o = order.clone();
        }
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(matches!(e, ErrorKind::NotAPermutation(_)), "{order:?}: {e}");
    }
    if let Index::Csf { order: o, .. } = &mut s.index {
        *o = vec![0, 1];
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::CountMismatch { .. }
    ));
}

#[test]
fn csf_wrong_number_of_arrays() {
    let mut ptr = seed_ptr();
    ptr.push(vec![0]);
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 2,
                found: 3,
                ..
            }
        ),
        "{e}"
    );
    let mut idx = seed_idx();
    idx.remove(0);
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{e}"
    );
    // In messages (GH-50161).
    let (s, body) = crafted_csf();
    let mut fewer = s.clone();
    if let Index::Csf { ptrs, .. } = &mut fewer.index {
        ptrs.pop();
    }
    assert!(matches!(
        strict_err(&sparse_msg(&fewer, &body)),
        ErrorKind::CountMismatch {
            expected: 2,
            found: 1,
            ..
        }
    ));
    let mut more = s.clone();
    if let Index::Csf { idxs, .. } = &mut more.index {
        idxs.push((0, 0));
    }
    assert!(matches!(
        strict_err(&sparse_msg(&more, &body)),
        ErrorKind::CountMismatch {
            expected: 3,
            found: 4,
            ..
        }
    ));
}

#[test]
fn csf_rank_zero_and_one() {
    let e = csf_parts(&[4], vec![0], vec![], vec![vec![1]], vec![1.]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::InvalidRank { rank: 1, .. }),
        "{e}"
    );
    let e = csf_parts(&[], vec![], vec![], vec![], vec![1.]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::InvalidRank { rank: 0, .. }),
        "{e}"
    );
    let (mut s, body) = crafted_csf();
    s.shape = vec![24];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::InvalidRank { rank: 1, .. }
    ));
    s.shape = vec![];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::InvalidRank { rank: 0, .. }
    ));
}

#[test]
fn csf_level_count_mismatch() {
    // indptr[1] must have (nodes of level 1) + 1 = 4 entries.
    let ptr = vec![vec![0, 2, 3], vec![0, 1, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 4,
                found: 3,
                ..
            }
        ),
        "{e}"
    );
    // The leaves must be nnz.
    let e = csf_parts(
        &[2, 3, 4],
        vec![0, 1, 2],
        seed_ptr(),
        seed_idx(),
        vec![1., 2., 3.],
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 3,
                found: 4,
                ..
            }
        ),
        "{e}"
    );
    // In a message: buffer lengths that make no consistent tree.
    let (mut s, body) = crafted_csf();
    if let Index::Csf { idxs, .. } = &mut s.index {
        idxs[1].1 = 2;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::CountMismatch { .. }
    ));
    // non_zero_length disagreeing with the leaf count.
    let (mut s, body) = crafted_csf();
    s.nnz = 3;
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::CountMismatch { .. }
    ));
}

#[test]
fn csf_indices_out_of_bounds() {
    let mut idx = seed_idx();
    idx[2][1] = 4;
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CsfIndices(2),
                position: 1,
                value: 4,
                dim: 2,
                bound: 4
            }
        ),
        "{e}"
    );
    // With a non-identity axis order the bound is shape[axis_order[level]]: level 0 holds
    // dimension 2 (size 4) here, so 3 is fine at level 0 but not at level 2 (dimension 0).
    let e = csf_parts(
        &[2, 3, 4],
        vec![2, 1, 0],
        vec![vec![0, 1], vec![0, 1]],
        vec![vec![3], vec![2], vec![2]],
        vec![1.],
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CsfIndices(2),
                dim: 0,
                bound: 2,
                ..
            }
        ),
        "{e}"
    );
    let bytes = patched(&csf_base(), CSF_IDX1, 4, 2, 3);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CsfIndices(1),
            position: 2,
            value: 3,
            dim: 1,
            bound: 3
        }
    ));
    let bytes = patched(&csf_base(), CSF_IDX0, 4, 0, -2);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            value: -2,
            dim: 0,
            ..
        }
    ));
}

#[test]
fn csf_siblings_not_increasing() {
    // Root level.
    let mut idx = seed_idx();
    idx[0] = vec![1, 0];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotIncreasing {
                buffer: BufferId::CsfIndices(0),
                position: 1,
                ..
            }
        ),
        "{e}"
    );
    // Inner level: children of node 0 at level 1 are (2, 0).
    let mut idx = seed_idx();
    idx[1] = vec![2, 0, 1];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotIncreasing {
                buffer: BufferId::CsfIndices(1),
                position: 1,
                ..
            }
        ),
        "{e}"
    );
    // Leaf level duplicate siblings.
    let mut idx = seed_idx();
    idx[2] = vec![1, 3, 2, 2];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotIncreasing {
                buffer: BufferId::CsfIndices(2),
                position: 3,
                ..
            }
        ),
        "{e}"
    );
    // Decreasing across different parents is fine.
    let mut idx = seed_idx();
    idx[2] = vec![3, 3, 0, 2];
    csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), idx, seed_values()).unwrap();
    let bytes = patched(&csf_base(), CSF_IDX2, 4, 3, 0); // leaves of node 2: 0, 0
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CsfIndices(2),
            position: 3,
            ..
        }
    ));
    let bytes = patched(&csf_base(), CSF_IDX0, 4, 1, 0); // root: 0, 0
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CsfIndices(0),
            ..
        }
    ));
}

#[test]
fn csf_indptr_errors() {
    // Not starting at 0.
    let ptr = vec![vec![1, 2, 3], vec![0, 1, 2, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsfIndptr(0),
                position: 0,
                value: 1,
                ..
            }
        ),
        "{e}"
    );
    // Decreasing.
    let ptr = vec![vec![0, 2, 3], vec![0, 2, 1, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsfIndptr(1),
                position: 2,
                value: 1,
                ..
            }
        ),
        "{e}"
    );
    // Not ending at the number of children.
    let ptr = vec![vec![0, 2, 2], vec![0, 1, 2, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr {
                buffer: BufferId::CsfIndptr(0),
                position: 2,
                value: 2,
                ..
            }
        ),
        "{e}"
    );
    // Negative.
    let ptr = vec![vec![0, -1, 3], vec![0, 1, 2, 4]];
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], ptr, seed_idx(), seed_values()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidIndptr { .. }), "{e}");

    for (buffer, elem, value, level, position) in [
        (CSF_PTR0, 0, 1, 0, 0),
        (CSF_PTR1, 1, 3, 1, 2),
        (CSF_PTR1, 3, 3, 1, 3),
        (CSF_PTR0, 2, 4, 0, 2),
    ] {
        let bytes = patched(&csf_base(), buffer, 4, elem, value);
        let e = strict_err(&bytes);
        assert!(
            matches!(
                e,
                ErrorKind::InvalidIndptr { buffer: BufferId::CsfIndptr(l), position: p, .. }
                    if l == level && p == position
            ),
            "{buffer} {elem} {value}: {e}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

#[test]
fn values_shorter_than_nnz() {
    let e = SparseTensor::coo(&[3, 4], vec![0i32, 1, 1, 2, 2, 3], vec![1f32, 2.]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    let e = SparseTensor::csr(
        [3, 4],
        vec![0i64, 2, 2, 4],
        vec![0, 2, 1, 3],
        vec![1f64, 2., 3.],
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), seed_idx(), vec![1.]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    // A values buffer that is not a whole number of values.
    let e = SparseTensor::try_new(
        ValueType::Float32,
        vec![3, 4],
        Buffer::from_vec(vec![0u8; 10]),
        SparseIndex::Coo(
            CooIndex::new(IndexArray::from_vec(vec![0i32, 1, 1, 2, 2, 3]), 2).unwrap(),
        ),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidArgument(_)), "{e}");

    // In messages: the values buffer holds fewer than nnz values.
    for (s, body) in [crafted_coo(), crafted_csr(), crafted_csf()] {
        let mut s = s;
        let w = if matches!(s.vt, Vt::Float(2)) { 8 } else { 4 };
        s.data.1 = (s.nnz - 1) * w;
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(
                e,
                ErrorKind::BufferTooShort {
                    buffer: BufferId::Values,
                    ..
                }
            ),
            "{e}"
        );
        let e = dec(&sparse_msg(&s, &body), ReadOptions::permissive())
            .unwrap_err()
            .into_kind();
        assert!(
            matches!(
                e,
                ErrorKind::BufferTooShort {
                    buffer: BufferId::Values,
                    ..
                }
            ),
            "{e}"
        );
    }
    // Index buffers too short.
    let (mut s, body) = crafted_coo();
    if let Index::Coo { buf, .. } = &mut s.index {
        buf.1 = 20;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CooIndices,
            needed: 24,
            length: 20
        }
    ));
}

// ---------------------------------------------------------------------------------------
// Dense
// ---------------------------------------------------------------------------------------

#[test]
fn dense_strides_count_mismatch() {
    let e = Tensor::try_new(
        ValueType::Int32,
        vec![2, 3],
        vec![4],
        Buffer::from_vec(vec![0i32; 6]),
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 2,
                found: 1,
                ..
            }
        ),
        "{e}"
    );
    let (mut d, body) = crafted_dense();
    d.strides = Some(vec![12, 4, 4]);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::CountMismatch {
            expected: 2,
            found: 3,
            ..
        }
    ));
}

#[test]
fn dense_data_too_short() {
    let e = Tensor::try_new(
        ValueType::Int32,
        vec![2, 3],
        vec![12, 4],
        Buffer::from_vec(vec![0i32; 5]),
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::BufferTooShort {
                buffer: BufferId::TensorData,
                needed: 24,
                length: 20
            }
        ),
        "{e}"
    );
    let e = Tensor::from_vec(vec![2, 3], vec![0i32; 5]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    // In a message: explicit strides reaching past the body, and implicit ones (GH-50063).
    let (mut d, body) = crafted_dense();
    d.strides = Some(vec![16, 4]);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::BufferTooShort {
            needed: 28,
            length: 24,
            ..
        }
    ));
    let (mut d, body) = crafted_dense();
    d.strides = None;
    d.body_len = 20;
    d.data = (0, 20);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body[..20])),
        ErrorKind::BufferTooShort {
            needed: 24,
            length: 20,
            ..
        }
    ));
}

#[test]
fn dense_shape_overflow() {
    let e = Tensor::try_new(
        ValueType::Int8,
        vec![usize::MAX, 2],
        vec![2, 1],
        Buffer::from_vec(Vec::<u8>::new()),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow(_)), "{e}");
    let e = Tensor::from_vec(vec![1 << 40, 1 << 40], vec![0u8]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow(_)), "{e}");
    // Extent overflow with a huge stride.
    let e = Tensor::try_new(
        ValueType::Int64,
        vec![4],
        vec![usize::MAX / 2],
        Buffer::from_vec(vec![0i64; 4]),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow(_)), "{e}");
    // In messages (ARROW-11470).
    let (mut d, body) = crafted_dense();
    d.shape = vec![1 << 40, 1 << 40];
    d.strides = None;
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::Overflow(_)
    ));
    let (mut d, body) = crafted_dense();
    d.shape = vec![4];
    d.strides = Some(vec![i64::MAX]);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::Overflow(_)
    ));
    // Sparse to-dense of an enormous shape overflows or exceeds the limit, never allocates.
    let t = SparseTensor::coo(&[1 << 40, 1 << 40], vec![5i64, 7], vec![1f32]).unwrap();
    assert_eq!(t.get(&[5, 7]).unwrap(), Scalar::Float32(1.));
    assert!(matches!(
        t.to_dense().unwrap_err().kind(),
        ErrorKind::Overflow(_)
    ));
    let t = SparseTensor::coo(&[1 << 20, 1 << 20], vec![5i64, 7], vec![1f32]).unwrap();
    assert!(matches!(
        t.to_dense_limited(1 << 20).unwrap_err().kind(),
        ErrorKind::LimitExceeded { .. }
    ));
}

#[test]
fn dense_negative_stride_crafted() {
    let (mut d, body) = crafted_dense();
    d.strides = Some(vec![12, -4]);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::Negative { value: -4, .. }
    ));
}

// ---------------------------------------------------------------------------------------
// Crafted metadata
// ---------------------------------------------------------------------------------------

#[test]
fn negative_dimension_size() {
    let (mut s, body) = crafted_coo();
    s.shape = vec![3, -4];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::Negative { value: -4, .. }
    ));
    let (mut d, body) = crafted_dense();
    d.shape = vec![-2, 3];
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::Negative { value: -2, .. }
    ));
}

#[test]
fn negative_nnz() {
    for (s, body) in [crafted_coo(), crafted_csr(), crafted_csf()] {
        let mut s = s;
        s.nnz = -1;
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(matches!(e, ErrorKind::Negative { value: -1, .. }), "{e}");
    }
}

#[test]
fn negative_body_length() {
    let (mut s, body) = crafted_coo();
    s.body_len = -8;
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::NegativeBodyLength(-8)
    ));
    let (mut d, body) = crafted_dense();
    d.body_len = i64::MIN;
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::NegativeBodyLength(i64::MIN)
    ));
}

#[test]
fn negative_metadata_length() {
    let mut bytes = sparse_msg(&crafted_coo().0, &crafted_coo().1);
    bytes[4..8].copy_from_slice(&(-16i32).to_le_bytes());
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NegativeMetadataLength(-16)
    ));
}

#[test]
fn unsupported_value_types() {
    for vt in [
        Vt::Utf8,
        Vt::Bool,
        Vt::Decimal,
        Vt::Int(12, true),
        Vt::Int(128, false),
        Vt::Float(3),
    ] {
        let (mut s, body) = crafted_coo();
        s.vt = vt;
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(e, ErrorKind::UnsupportedValueType(_)),
            "{vt:?}: {e}"
        );
        let (mut d, body) = crafted_dense();
        d.vt = vt;
        let e = strict_err(&dense_msg(&d, &body));
        assert!(
            matches!(e, ErrorKind::UnsupportedValueType(_)),
            "{vt:?}: {e}"
        );
    }
}

#[test]
fn non_integer_index_type() {
    // indicesType is an Int table: an unsupported bit width is what can go wrong.
    let (mut s, body) = crafted_coo();
    if let Index::Coo { ty, .. } = &mut s.index {
        *ty = (12, true);
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::UnsupportedIndexType { .. }
    ));
    let (s, body) = crafted_csr();
    for which in 0..2 {
        let mut s = s.clone();
        if let Index::Csx { ptr_ty, idx_ty, .. } = &mut s.index {
            if which == 0 {
                *ptr_ty = (12, false);
            } else {
                *idx_ty = (0, true);
            }
        }
        assert!(matches!(
            strict_err(&sparse_msg(&s, &body)),
            ErrorKind::UnsupportedIndexType { .. }
        ));
    }
    let (s, body) = crafted_csf();
    for which in 0..2 {
        let mut s = s.clone();
        if let Index::Csf { ptr_ty, idx_ty, .. } = &mut s.index {
            if which == 0 {
                *ptr_ty = (12, true);
            } else {
                *idx_ty = (24, true);
            }
        }
        assert!(matches!(
            strict_err(&sparse_msg(&s, &body)),
            ErrorKind::UnsupportedIndexType { .. }
        ));
    }
}

#[test]
fn unknown_versions() {
    for v in [0i16, 1, 2, 5, -1, i16::MAX] {
        let (mut s, body) = crafted_coo();
        s.version = v;
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(e, ErrorKind::UnsupportedVersion(x) if x == v),
            "{v}: {e}"
        );
        let (mut d, body) = crafted_dense();
        d.version = v;
        let e = strict_err(&dense_msg(&d, &body));
        assert!(
            matches!(e, ErrorKind::UnsupportedVersion(x) if x == v),
            "{v}: {e}"
        );
    }
}

#[test]
fn record_batch_and_schema_are_not_tensors() {
    for h in [
        fb::MessageHeader::RecordBatch,
        fb::MessageHeader::Schema,
        fb::MessageHeader::NONE,
    ] {
        let bytes = craft::frame(&craft::other_header(h), &[], true, 8);
        let e = strict_err(&bytes);
        assert!(matches!(e, ErrorKind::NotATensor(_)), "{h:?}: {e}");
    }
}

#[test]
fn unknown_union_discriminants() {
    let bytes = craft::frame(&craft::other_header(fb::MessageHeader(9)), &[], true, 8);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::UnknownUnion { value: 9, .. }
    ));
    let (mut s, body) = crafted_coo();
    s.vt = Vt::Raw(99);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::UnknownUnion { value: 99, .. }
    ));
    let (mut d, body) = crafted_dense();
    d.vt = Vt::Raw(200);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::UnknownUnion { value: 200, .. }
    ));
    let (mut s, body) = crafted_coo();
    s.index = Index::Unknown(7);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::UnknownUnion { value: 7, .. }
    ));
}

#[test]
fn buffers_outside_the_body() {
    // Past the end.
    let (mut s, body) = crafted_coo();
    s.data = (32, 16);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::Values,
            offset: 32,
            length: 16,
            body_length: 40
        }
    ));
    // offset + length overflows.
    let (mut s, body) = crafted_coo();
    if let Index::Coo { buf, .. } = &mut s.index {
        *buf = (8, i64::MAX);
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::CooIndices,
            ..
        }
    ));
    let (mut s, body) = crafted_csr();
    if let Index::Csx { idx, .. } = &mut s.index {
        *idx = (i64::MAX, 32);
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::CsxIndices,
            ..
        }
    ));
    let (mut s, body) = crafted_csf();
    if let Index::Csf { idxs, .. } = &mut s.index {
        idxs[2].0 = s.body_len;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::CsfIndices(2),
            ..
        }
    ));
    // Negative offsets and lengths.
    let (mut s, body) = crafted_coo();
    s.data = (-8, 16);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::Negative { value: -8, .. }
    ));
    let (mut s, body) = crafted_coo();
    s.data = (24, -16);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::Negative { value: -16, .. }
    ));
    // A body length beyond the bytes present.
    let (mut s, body) = crafted_coo();
    s.body_len = 48;
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::Truncated {
            part: "body",
            needed: 48,
            available: 40
        }
    ));
}

#[test]
fn overlapping_buffers() {
    // Values overlap the last 8 bytes of the indices (they then read as two coordinates).
    let mut body = craft::ints(&[0, 1, 1, 2], 4);
    body.extend(craft::f32s(&[5.]));
    let (mut s, _) = crafted_coo();
    s.nnz = 2;
    s.index = Index::Coo {
        ty: I32,
        strides: Some(vec![8, 4]),
        buf: (0, 16),
        canonical: true,
    };
    s.data = (8, 8);
    s.body_len = body.len() as i64;
    let bytes = sparse_msg(&s, &body);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::Overlap {
            first: BufferId::CooIndices,
            second: BufferId::Values
        }
    ));
    let d = dec(&bytes, ReadOptions::permissive()).unwrap();
    let t = sparse(&d);
    assert_eq!(t.nnz(), 2);
    assert_eq!(
        t.values::<f32>().unwrap(),
        &[f32::from_bits(1), f32::from_bits(2)]
    );
    assert_eq!(t.get(&[1, 2]).unwrap(), Scalar::Float32(f32::from_bits(2)));
    // The same buffer twice (CSX indptr and indices): strict rejects, permissive accepts.
    let (mut s, body) = crafted_csr();
    if let Index::Csx { idx, .. } = &mut s.index {
        *idx = (0, 32);
    }
    let bytes = sparse_msg(&s, &body);
    assert!(matches!(strict_err(&bytes), ErrorKind::Overlap { .. }));
    dec(&bytes, ReadOptions::permissive()).unwrap();
}

#[test]
fn misaligned_buffers() {
    // float64 values at body offset 4.
    let mut body = craft::ints(&[0, 2, 1, 3], 1);
    let data_off = 4;
    body.extend([1.5f64, -2.0].iter().flat_map(|v| v.to_le_bytes()));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(2),
        shape: vec![2, 4],
        names: vec![],
        nnz: 2,
        index: Index::Coo {
            ty: (8, false),
            strides: Some(vec![2, 1]),
            buf: (0, 4),
            canonical: true,
        },
        data: (data_off, 16),
        body_len: body.len() as i64,
        custom_metadata: false,
    };
    let bytes = craft::frame(&craft::sparse(&s), &body, true, 64);
    // An aligned copy of the message, so that only the buffer offset misaligns.
    let aligned = Buffer::from_slice_ref(&bytes);
    assert_eq!(aligned.as_ptr() as usize % 64, 0);
    let error_opts = ReadOptions::default().with_misaligned(Misaligned::Error);
    let e = MessageIter::new(aligned.clone(), error_opts)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Misaligned {
                buffer: BufferId::Values,
                offset: 4,
                align: 8
            }
        ),
        "{e}"
    );
    let d = MessageIter::new(aligned.clone(), ReadOptions::default())
        .next()
        .unwrap()
        .unwrap();
    let t = sparse(&d);
    let v = t.values::<f64>().expect("typed view");
    assert_eq!(v, &[1.5, -2.0]);
    assert_eq!(v.as_ptr() as usize % 8, 0);
    assert_eq!(t.get(&[1, 3]).unwrap(), Scalar::Float64(-2.0));

    // A misaligned index buffer (int32 at offset 2).
    let mut body = vec![0u8; 2];
    body.extend(craft::ints(&[0, 2, 1, 3], 4));
    body.resize(24, 0);
    body.extend(craft::f32s(&[1., 2.]));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![2, 4],
        names: vec![],
        nnz: 2,
        index: Index::Coo {
            ty: I32,
            strides: Some(vec![8, 4]),
            buf: (2, 16),
            canonical: true,
        },
        data: (24, 8),
        body_len: body.len() as i64,
        custom_metadata: false,
    };
    let aligned = Buffer::from_slice_ref(craft::frame(&craft::sparse(&s), &body, true, 64));
    let e = MessageIter::new(aligned.clone(), error_opts)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Misaligned {
                buffer: BufferId::CooIndices,
                offset: 2,
                align: 4
            }
        ),
        "{e}"
    );
    let d = MessageIter::new(aligned, ReadOptions::default())
        .next()
        .unwrap()
        .unwrap();
    let t = sparse(&d);
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    let coords = c.indices().values::<i32>().expect("typed view");
    assert_eq!(coords, &[0, 2, 1, 3]);
    assert_eq!(coords.as_ptr() as usize % 4, 0);
    assert_eq!(t.get(&[0, 2]).unwrap(), Scalar::Float32(1.));

    // A dense body that starts misaligned: the message is placed at offset 1.
    let (d, body) = crafted_dense();
    // An int8 tensor of one element with an unpadded body puts the next message at an odd
    // offset.
    let one = craft::Dense {
        version: 4,
        vt: Vt::Int(8, true),
        shape: vec![1],
        names: vec![],
        strides: None,
        data: (0, 1),
        body_len: 1,
        custom_metadata: false,
    };
    let mut shifted = dense_msg(&one, &[7]);
    let second = shifted.len();
    assert_eq!(second % 2, 1);
    shifted.extend(dense_msg(&d, &body));
    let buf = Buffer::from_slice_ref(&shifted);
    let results: Vec<_> = MessageIter::new(buf.clone(), error_opts).collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    let e = results[1].as_ref().unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Misaligned {
                buffer: BufferId::TensorData,
                align: 4,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.message_offset(), Some(second as u64));
    let ok: Vec<_> = MessageIter::new(buf, ReadOptions::default())
        .collect::<Result<_, _>>()
        .unwrap();
    let t = ok[1].message.as_tensor().unwrap();
    let s = t.as_slice::<i32>().expect("aligned typed view");
    assert_eq!(s, &[1, 2, 3, 4, 5, 6]);
}

#[test]
fn limits_are_enforced() {
    let (mut s, body) = crafted_coo();
    s.nnz = 1 << 40;
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::LimitExceeded { .. }
    ));
    // COO nnz x ndim overflow when the nnz limit is lifted (GH-50054).
    let opts = ReadOptions::default().with_limits(Limits::default().with_max_nnz(u64::MAX));
    let (mut s, body) = crafted_coo();
    s.nnz = i64::MAX;
    let e = dec(&sparse_msg(&s, &body), opts).unwrap_err().into_kind();
    assert!(matches!(e, ErrorKind::Overflow(_)), "{e}");
    // CSX sizes near i64::MAX (GH-50077).
    let (mut s, body) = crafted_csr();
    s.shape = vec![i64::MAX, 4];
    let e = strict_err(&sparse_msg(&s, &body));
    assert!(matches!(e, ErrorKind::Overflow(_)), "{e}");
    // Rank.
    let (mut s, body) = crafted_coo();
    s.shape = vec![1; 65];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::LimitExceeded { what: "rank", .. }
    ));
}

#[test]
fn truncated_messages() {
    let bytes = enc(coo_base());
    for cut in [3usize, 7, 20, body_offset(&bytes) + 1, bytes.len() - 1] {
        let e = dec(&bytes[..cut], ReadOptions::strict())
            .unwrap_err()
            .into_kind();
        assert!(matches!(e, ErrorKind::Truncated { .. }), "{cut}: {e}");
    }
    assert!(decode_message(&bytes::Bytes::new(), &ReadOptions::strict())
        .unwrap()
        .is_none());
}

#[test]
fn garbage_metadata_is_invalid_flatbuffer() {
    let bytes = craft::frame(&[0xAB; 24], &[], true, 8);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidFlatbuffer(_)
    ));
}

// ---------------------------------------------------------------------------------------
// Permissive reading
// ---------------------------------------------------------------------------------------

#[test]
fn permissive_coo_out_of_bounds() {
    let bytes = patched(&coo_base(), 0, 4, 3, 9); // entry 1 -> (1, 9)
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds { .. }
    ));
    let got = permissive_errors(&bytes, &[&[0, 1], &[1, 2], &[2, 3], &[1, 9], &[0]]);
    // Lookups of in-range coordinates find what is stored there; out-of-range queries fail.
    assert_eq!(got[0].as_ref().unwrap(), &Scalar::Float32(1.));
    assert_eq!(got[1].as_ref().unwrap(), &Scalar::Float32(0.));
    assert_eq!(got[2].as_ref().unwrap(), &Scalar::Float32(3.));
    assert!(got[3].is_err());
    assert!(got[4].is_err());
    let d = dec(&bytes, ReadOptions::permissive()).unwrap();
    let e = sparse(&d).to_dense().unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::IndexOutOfBounds { value: 9, .. }),
        "{e}"
    );
    // Negative coordinates, permissively.
    let bytes = patched(&coo_base(), 0, 4, 0, -5);
    permissive_errors(&bytes, &[&[0, 1], &[2, 3]]);
}

#[test]
fn permissive_csx_bad_indptr() {
    // indptr[1] = 100: beyond the 4 indices.
    let bytes = patched(&csr_base(), 0, 8, 1, 100);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr { .. }
    ));
    let got = permissive_errors(&bytes, &[&[0, 0], &[1, 0], &[2, 1]]);
    for g in &got[..2] {
        assert!(
            matches!(
                g.as_ref().unwrap_err().kind(),
                ErrorKind::InvalidIndptr { .. }
            ),
            "{g:?}"
        );
    }
    // Row 2 uses indptr[2..4] = [2, 4], which is fine.
    assert_eq!(got[2].as_ref().unwrap(), &Scalar::Float64(3.));
    // Decreasing indptr.
    let bytes = patched(&csr_base(), 0, 8, 2, 1); // [0, 2, 1, 4]
    let got = permissive_errors(&bytes, &[&[1, 0]]);
    assert!(got[0].is_err());
    // Negative indptr.
    let bytes = patched(&csr_base(), 0, 8, 0, -3);
    let got = permissive_errors(&bytes, &[&[0, 0]]);
    assert!(got[0].is_err());
    // Indices out of bounds, permissively.
    let bytes = patched(&csr_base(), 1, 8, 0, 40);
    let got = permissive_errors(&bytes, &[&[0, 2], &[2, 1]]);
    assert_eq!(got[0].as_ref().unwrap(), &Scalar::Float64(2.));
    assert_eq!(got[1].as_ref().unwrap(), &Scalar::Float64(3.));
}

#[test]
fn permissive_csf_out_of_bounds() {
    let bytes = patched(&csf_base(), CSF_IDX2, 4, 0, 77);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds { .. }
    ));
    let got = permissive_errors(&bytes, &[&[1, 1, 2], &[0, 0, 1], &[5, 0, 0]]);
    assert_eq!(got[0].as_ref().unwrap(), &Scalar::Float32(4.));
    assert_eq!(got[1].as_ref().unwrap(), &Scalar::Float32(0.));
    assert!(got[2].is_err());
    // Bad indptr in a CSF level, permissively.
    let bytes = patched(&csf_base(), CSF_PTR1, 4, 1, 50);
    let got = permissive_errors(&bytes, &[&[0, 0, 1], &[1, 1, 2]]);
    assert!(got[0].is_err());
    // Unsorted siblings are read (linear search) without error.
    let bytes = patched(&csf_base(), CSF_IDX0, 4, 0, 1); // root 1, 1
    let d = dec(&bytes, ReadOptions::permissive()).unwrap();
    let t = sparse(&d);
    assert_eq!(t.iter().unwrap().count(), 4);
    t.to_dense().unwrap();
    t.get(&[1, 1, 2]).unwrap();
}

#[test]
fn permissive_csf_indptr_past_the_end() {
    // Level 1 of a crafted tree: indptr [0, 2, 5] over 2 leaves.
    let (mut s, _) = crafted_csf();
    let mut body = Vec::new();
    let mut refs = Vec::new();
    let arrays: [&[i64]; 5] = [&[0, 2, 2], &[0, 2, 5], &[0, 1], &[0, 1], &[0, 1]];
    for a in arrays {
        refs.push((body.len() as i64, a.len() as i64));
        body.extend(craft::ints(a, 4));
        body.resize(body.len().div_ceil(8) * 8, 0);
    }
    let data = (body.len() as i64, 8);
    body.extend(craft::f32s(&[1., 2.]));
    s.nnz = 2;
    s.index = Index::Csf {
        ptr_ty: I32,
        ptrs: refs[..2].to_vec(),
        idx_ty: I32,
        idxs: refs[2..].to_vec(),
        order: vec![0, 1, 2],
    };
    s.data = data;
    s.body_len = body.len() as i64;
    let bytes = sparse_msg(&s, &body);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsfIndptr(1),
            position: 2,
            value: 5,
            ..
        }
    ));
    let got = permissive_errors(&bytes, &[&[0, 0, 0], &[0, 0, 1], &[0, 1, 0], &[1, 0, 0]]);
    assert_eq!(got[0].as_ref().unwrap(), &Scalar::Float32(1.));
    assert_eq!(got[1].as_ref().unwrap(), &Scalar::Float32(2.));
    assert!(matches!(
        got[2].as_ref().unwrap_err().kind(),
        ErrorKind::InvalidIndptr { .. }
    ));
    assert_eq!(got[3].as_ref().unwrap(), &Scalar::Float32(0.));
}

#[test]
fn permissive_still_checks_structure() {
    // Permissive reading checks sizes: a CSF with too few indptr buffers still fails.
    let (mut s, body) = crafted_csf();
    if let Index::Csf { ptrs, .. } = &mut s.index {
        ptrs.pop();
    }
    let e = dec(&sparse_msg(&s, &body), ReadOptions::permissive())
        .unwrap_err()
        .into_kind();
    assert!(matches!(e, ErrorKind::CountMismatch { .. }), "{e}");
    let (mut s, body) = crafted_csf();
    if let Index::Csf { order, .. } = &mut s.index {
        *order = vec![1, 1, 0];
    }
    let e = dec(&sparse_msg(&s, &body), ReadOptions::permissive())
        .unwrap_err()
        .into_kind();
    assert!(matches!(e, ErrorKind::NotAPermutation(_)), "{e}");
}

#[test]
fn index_arrays_of_mixed_types_are_refused() {
    // CSF levels with different integer types cannot be written as one message.
    let index = CsfIndex::new(
        vec![0, 1],
        vec![IndexArray::from_vec(vec![0i32, 1])],
        vec![
            IndexArray::from_vec(vec![0i32]),
            IndexArray::from_vec(vec![2i64]),
        ],
    );
    let e = SparseTensor::try_new(
        ValueType::Float32,
        vec![2, 3],
        Buffer::from_vec(vec![1f32]),
        SparseIndex::Csf(index),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::TypeMismatch { .. }), "{e}");
    // IndexArray::try_new refuses a partial element.
    let e = IndexArray::try_new(IndexType::Int32, Buffer::from_vec(vec![0u8; 6])).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidArgument(_)), "{e}");
}

#[test]
fn rank_zero_coo_canonical_flag_with_two_entries() {
    // A rank-0 COO has one cell: two entries there are duplicates, which the canonical
    // flag forbids.
    let body = craft::f32s(&[1., 2.]);
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![],
        names: vec![],
        nnz: 2,
        index: Index::Coo {
            ty: I32,
            strides: Some(vec![4, 4]),
            buf: (0, 0),
            canonical: true,
        },
        data: (0, 8),
        body_len: 8,
        custom_metadata: false,
    };
    let e = strict_err(&sparse_msg(&s, &body));
    assert!(matches!(e, ErrorKind::NotIncreasing { .. }), "{e}");
    // Without the flag: valid, the duplicates sum.
    let mut s = s;
    if let Index::Coo { canonical, .. } = &mut s.index {
        *canonical = false;
    }
    let d = dec(&sparse_msg(&s, &body), ReadOptions::strict()).unwrap();
    assert_eq!(sparse(&d).get(&[]).unwrap(), Scalar::Float32(3.));
    // Constructors: try_new refuses the duplicate, try_new_with_duplicates accepts it.
    let index =
        || SparseIndex::Coo(CooIndex::new(IndexArray::from_vec(Vec::<i32>::new()), 0).unwrap());
    let values = || Buffer::from_vec(vec![1f32, 2.]);
    let e = SparseTensor::try_new(ValueType::Float32, vec![], values(), index()).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::DuplicateCoordinate { .. }),
        "{e}"
    );
    let t = SparseTensor::try_new_with_duplicates(ValueType::Float32, vec![], values(), index())
        .unwrap();
    assert_eq!(t.get(&[]).unwrap(), Scalar::Float32(3.));
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    assert!(!c.is_canonical());
    let one = SparseTensor::try_new(
        ValueType::Float32,
        vec![],
        Buffer::from_vec(vec![1f32]),
        index(),
    )
    .unwrap();
    let SparseIndex::Coo(c) = one.index() else {
        unreachable!()
    };
    assert!(c.is_canonical());
}

// ---------------------------------------------------------------------------------------
// Block boundaries of the fused checks
// ---------------------------------------------------------------------------------------

/// Writes `v` as the `width`-byte little-endian index element `k` of the buffer that starts
/// `buf` bytes into the body.
fn patch_index(bytes: &mut [u8], buf: usize, k: usize, width: usize, v: i64) {
    let at = body_offset(bytes) + buf + k * width;
    bytes[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
}

/// Positions around every multiple of `block` below `len` (and the ends).
fn near_boundaries(block: usize, len: usize) -> Vec<usize> {
    let mut out = vec![1, len - 1];
    let mut b = block;
    while b < len {
        out.extend([b - 1, b, b + 1]);
        b += block;
    }
    out.retain(|&p| p >= 1 && p < len);
    out.sort_unstable();
    out.dedup();
    out
}

/// Strict validation reads index data in cache-sized blocks (16 KiB). A broken rule at,
/// just before and just after every block boundary is found at the right position, and a
/// legitimate decrease at a CSR row start that falls on a boundary is not taken for one.
#[test]
fn fused_checks_find_violations_at_block_boundaries() {
    for (index_type, width) in [(IndexType::Int32, 4usize), (IndexType::Int64, 8)] {
        let block_values = (16 << 10) / width;
        // COO rank 2 and 3: row i holds the coordinates of cell 3 i (strictly increasing).
        for shape in [vec![100usize, 150], vec![20, 30, 40]] {
            let ndim = shape.len();
            let nnz = 4700;
            let mut coords = Vec::new();
            for i in 0..nnz {
                let mut cell = 3 * i;
                let mut row = vec![0i64; ndim];
                for d in (0..ndim).rev() {
                    row[d] = (cell % shape[d]) as i64;
                    cell /= shape[d];
                }
                coords.extend(row);
            }
            let t = coo_tensor(&shape, &coords, index_type);
            let good = enc(t);
            dec(&good, ReadOptions::strict()).expect("the unbroken COO is valid");
            let buf = sparse_buffer_offsets(&good)[0];
            let rows_per_block = (block_values / ndim).next_multiple_of(64);
            for r in near_boundaries(rows_per_block, nnz) {
                // Row r repeats row r - 1: not strictly increasing at row r.
                let mut bad = good.clone();
                for d in 0..ndim {
                    patch_index(
                        &mut bad,
                        buf,
                        r * ndim + d,
                        width,
                        coords[(r - 1) * ndim + d],
                    );
                }
                match strict_err(&bad) {
                    ErrorKind::NotIncreasing { position, .. } => {
                        assert_eq!(position, r as u64, "{index_type:?} {shape:?} row {r}")
                    }
                    other => panic!("{index_type:?} {shape:?} row {r}: {other:?}"),
                }
                // The last coordinate of row r is one past its dimension.
                let mut bad = good.clone();
                let k = r * ndim + ndim - 1;
                patch_index(&mut bad, buf, k, width, shape[ndim - 1] as i64);
                match strict_err(&bad) {
                    ErrorKind::IndexOutOfBounds { position, .. } => {
                        assert_eq!(position, k as u64, "{index_type:?} {shape:?} row {r}")
                    }
                    other => panic!("{index_type:?} {shape:?} row {r}: {other:?}"),
                }
            }
        }
        // CSR whose rows hold exactly one block of indices each: the row starts fall on
        // the block boundaries (int64), or on every other one (int32: rows of half a block).
        let row_len = (16 << 10) / 8;
        let (nrows, ncols) = (4usize, 2 * row_len);
        let indices: Vec<i64> = (0..nrows)
            .flat_map(|_| (0..row_len).map(|j| 2 * j as i64))
            .collect();
        let indptr: Vec<i64> = (0..=nrows).map(|r| (r * row_len) as i64).collect();
        // The same matrix as CSR, and as a rank-2 CSF (level 1 sliced by indptr[0]).
        let csr = enc(csr_tensor(nrows, ncols, &indptr, &indices, index_type));
        let rows: Vec<i64> = (0..nrows as i64).collect();
        let csf = enc(SparseTensor::try_new(
            ValueType::Float32,
            vec![nrows, ncols],
            Buffer::from_vec((0..indices.len()).map(|i| i as f32).collect::<Vec<f32>>()),
            SparseIndex::Csf(CsfIndex::new(
                vec![0, 1],
                vec![index_array(&indptr, index_type)],
                vec![
                    index_array(&rows, index_type),
                    index_array(&indices, index_type),
                ],
            )),
        )
        .unwrap());
        for (good, buf) in [
            (csr.clone(), sparse_buffer_offsets(&csr)[1]),
            (csf.clone(), sparse_buffer_offsets(&csf)[2]),
        ] {
            dec(&good, ReadOptions::strict()).expect("the unbroken CSR/CSF is valid");
            for p in near_boundaries(block_values, indices.len()) {
                if p % row_len == 0 {
                    continue; // a row start: any value may follow the previous row's last
                }
                let mut bad = good.clone();
                patch_index(&mut bad, buf, p, width, indices[p - 1]);
                match strict_err(&bad) {
                    ErrorKind::NotIncreasing { position, .. } => {
                        assert_eq!(position, p as u64, "{index_type:?} CSR position {p}")
                    }
                    other => panic!("{index_type:?} CSR position {p}: {other:?}"),
                }
                let mut bad = good.clone();
                patch_index(&mut bad, buf, p, width, ncols as i64);
                match strict_err(&bad) {
                    ErrorKind::IndexOutOfBounds { position, .. } => {
                        assert_eq!(position, p as u64, "{index_type:?} CSR position {p}")
                    }
                    other => panic!("{index_type:?} CSR position {p}: {other:?}"),
                }
            }
        }
    }
}

/// Rows whose columns keep increasing across row starts (row r holds columns
/// r * len .. (r + 1) * len): only a broken pair inside a row is an error, and a repeat
/// right at a row start is not.
#[test]
fn fused_checks_tell_row_starts_from_rows() {
    for (index_type, width) in [(IndexType::Int32, 4usize), (IndexType::Int64, 8)] {
        let row_len = 1000usize;
        let nrows = 9;
        let indices: Vec<i64> = (0..(nrows * row_len) as i64).collect();
        let indptr: Vec<i64> = (0..=nrows).map(|r| (r * row_len) as i64).collect();
        let good = enc(csr_tensor(
            nrows,
            nrows * row_len,
            &indptr,
            &indices,
            index_type,
        ));
        let buf = sparse_buffer_offsets(&good)[1];
        for r in 1..nrows {
            let b = r * row_len;
            // Row r starts with the value the previous row ended with: allowed.
            let mut ok = good.clone();
            patch_index(&mut ok, buf, b, width, indices[b - 1]);
            dec(&ok, ReadOptions::strict()).expect("a repeat across a row start is valid");
            // The second entry of row r repeats the first: an error at b + 1.
            let mut bad = good.clone();
            patch_index(&mut bad, buf, b + 1, width, indices[b]);
            match strict_err(&bad) {
                ErrorKind::NotIncreasing { position, .. } => {
                    assert_eq!(position, (b + 1) as u64, "{index_type:?} row {r}")
                }
                other => panic!("{index_type:?} row {r}: {other:?}"),
            }
        }
    }
}

fn index_array(v: &[i64], t: IndexType) -> IndexArray {
    match t {
        IndexType::Int32 => IndexArray::from_vec(v.iter().map(|&x| x as i32).collect()),
        IndexType::Int64 => IndexArray::from_vec(v.to_vec()),
        other => panic!("not used here: {other:?}"),
    }
}

fn coo_tensor(shape: &[usize], coords: &[i64], t: IndexType) -> SparseTensor {
    let nnz = coords.len() / shape.len();
    let index = CooIndex::new(index_array(coords, t), shape.len()).unwrap();
    assert!(index.is_canonical());
    SparseTensor::try_new(
        ValueType::Float32,
        shape.to_vec(),
        Buffer::from_vec((0..nnz).map(|i| i as f32 + 1.0).collect::<Vec<f32>>()),
        SparseIndex::Coo(index),
    )
    .unwrap()
}

fn csr_tensor(
    nrows: usize,
    ncols: usize,
    indptr: &[i64],
    indices: &[i64],
    t: IndexType,
) -> SparseTensor {
    let index = CsxIndex::new(
        CompressedAxis::Row,
        index_array(indptr, t),
        index_array(indices, t),
    );
    SparseTensor::try_new(
        ValueType::Float32,
        vec![nrows, ncols],
        Buffer::from_vec((0..indices.len()).map(|i| i as f32).collect::<Vec<f32>>()),
        SparseIndex::Csx(index),
    )
    .unwrap()
}
