//! One test per fact of `arrow-wire-facts.md` that concerns reading or writing messages.
//!
//! Reading facts use messages crafted byte for byte the way Arrow C++ 26 writes them
//! (sparse metadata padded only to 8, buffers back to back padded to 8 with padded lengths,
//! CSF lengths as element counts, dense bodies unpadded, ...). Writing facts inspect what
//! this crate writes through the generated flatbuffer code.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::__private::flatbuf as fb;
use arrow_tensor_ipc::__private::legacy_015 as lg;
use arrow_tensor_ipc::{
    decode_message, encode, CompressedAxis, CooIndex, CooOrder, CsfLengths, CsxIndex,
    DecodedMessage, ErrorKind, Framing, IndexArray, IndexType, Message, MessageIter, MessageReader,
    MessageWriter, MetadataVersion, ReadOptions, Scalar, SparseIndex, SparseTensor, Tensor,
    ValueType, WriteOptions,
};
use flatbuffers::{FlatBufferBuilder, WIPOffset};

mod common;

use common::craft::{self, Index, Vt, I32, I64};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn dec_with(bytes: &[u8], options: ReadOptions) -> arrow_tensor_ipc::Result<DecodedMessage> {
    common::seeds::record(bytes);
    decode_message(&bytes::Bytes::copy_from_slice(bytes), &options)
        .map(|m| m.expect("a message, not end of stream"))
}

fn dec(bytes: &[u8]) -> DecodedMessage {
    dec_with(bytes, ReadOptions::strict()).expect("strict decoding")
}

fn dec_err(bytes: &[u8]) -> ErrorKind {
    dec_with(bytes, ReadOptions::strict())
        .expect_err("decoding must fail")
        .into_kind()
}

fn sp(d: &DecodedMessage) -> &SparseTensor {
    d.message.as_sparse().expect("a sparse tensor")
}

fn dn(d: &DecodedMessage) -> &Tensor {
    d.message.as_tensor().expect("a dense tensor")
}

fn read_iter(bytes: &[u8]) -> Vec<DecodedMessage> {
    MessageIter::new(Buffer::from_slice_ref(bytes), &ReadOptions::strict())
        .collect::<Result<_, _>>()
        .expect("MessageIter")
}

fn read_stream(bytes: &[u8]) -> (Vec<DecodedMessage>, u64) {
    let mut r = MessageReader::new(bytes, &ReadOptions::strict());
    let mut out = Vec::new();
    while let Some(m) = r.read_message().expect("MessageReader") {
        out.push(m);
    }
    (out, r.offset())
}

/// A sparse body as Arrow C++ lays it out: buffers back to back, each padded to 8 with
/// zeros, offsets relative to the body start.
#[derive(Default)]
struct ArrowBody(Vec<u8>);

impl ArrowBody {
    fn place(&mut self, data: &[u8]) -> (i64, usize) {
        let off = self.0.len();
        self.0.extend_from_slice(data);
        let padded = data.len().div_ceil(8) * 8;
        self.0.resize(off + padded, 0);
        (off as i64, padded)
    }

    /// COO/CSX index buffers and values: `length` = padded byte length.
    fn push(&mut self, data: &[u8]) -> (i64, i64) {
        let (off, padded) = self.place(data);
        (off, padded as i64)
    }

    /// CSF index buffers: `length` = element count.
    fn push_count(&mut self, data: &[u8], width: usize) -> (i64, i64) {
        let (off, _) = self.place(data);
        (off, (data.len() / width) as i64)
    }

    fn len(&self) -> i64 {
        self.0.len() as i64
    }
}

/// Frames sparse metadata the way Arrow does: prefix + metadata padded only to 8.
fn arrow_sparse(s: &craft::Sparse, body: &[u8]) -> Vec<u8> {
    craft::frame(&craft::sparse(s), body, true, 8)
}

/// Frames dense metadata the way Arrow does: prefix + metadata padded to 64.
fn arrow_dense(d: &craft::Dense, body: &[u8]) -> Vec<u8> {
    craft::frame(&craft::dense(d), body, true, 64)
}

fn f64s(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The metadata of a message we wrote.
fn written(bytes: &[u8]) -> fb::Message<'_> {
    assert_eq!(&bytes[..4], &[0xFF; 4]);
    let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    flatbuffers::root::<fb::Message>(&bytes[8..8 + len]).expect("our metadata verifies")
}

fn enc(m: impl Into<Message>) -> Vec<u8> {
    encode(&m.into(), &WriteOptions::default())
        .expect("encode")
        .to_vec()
}

/// Arrow's layout of a 3 x 4 x 5 float32 COO with int32 coordinates (0,1,2) (1,0,4) (2,3,0):
/// indices 36 bytes (length 40, padded), values 12 bytes (length 16, padded).
fn arrow_coo() -> (craft::Sparse, Vec<u8>, SparseTensor) {
    let coords = [0i64, 1, 2, 1, 0, 4, 2, 3, 0];
    let mut body = ArrowBody::default();
    let idx = body.push(&craft::ints(&coords, 4));
    let data = body.push(&craft::f32s(&[1.5, -2.0, 3.0]));
    assert_eq!(idx, (0, 40));
    assert_eq!(data, (40, 16));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![3, 4, 5],
        names: vec![],
        nnz: 3,
        index: Index::Coo {
            ty: I32,
            strides: Some(vec![12, 4]),
            buf: idx,
            canonical: true,
        },
        data,
        body_len: body.len(),
        custom_metadata: false,
    };
    let expected = SparseTensor::coo(
        [3, 4, 5],
        coords.iter().map(|&c| c as i32).collect(),
        vec![1.5f32, -2.0, 3.0],
    )
    .unwrap();
    (s, body.0, expected)
}

/// A dense message as Arrow writes it: strides always, names "", data {0, bodyLength},
/// body unpadded.
fn arrow_dense_spec(vt: Vt, shape: &[i64], strides: &[i64], body_len: usize) -> craft::Dense {
    craft::Dense {
        version: 4,
        vt,
        shape: shape.to_vec(),
        names: vec![Some(""); shape.len()],
        strides: Some(strides.to_vec()),
        data: (0, body_len as i64),
        body_len: body_len as i64,
        custom_metadata: false,
    }
}

/// The 6 x 4 matrix of format/SparseTensor.fbs.
const M6X4: [[f64; 4]; 6] = [
    [0., 1., 2., 0.],
    [0., 0., 3., 0.],
    [0., 4., 0., 5.],
    [0., 0., 0., 0.],
    [6., 0., 7., 8.],
    [0., 9., 0., 0.],
];

fn m6x4_dense() -> Tensor {
    Tensor::from_vec(vec![6, 4], M6X4.iter().flatten().copied().collect()).unwrap()
}

// ---------------------------------------------------------------------------------------
// Framing
// ---------------------------------------------------------------------------------------

#[test]
fn framing_continuation_prefix_then_length_of_flatbuffer_and_padding() {
    let (s, body, expected) = arrow_coo();
    let meta = craft::sparse(&s);
    let bytes = craft::frame(&meta, &body, true, 8);
    assert_eq!(&bytes[..4], &[0xFF; 4]);
    let stored = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    // The stored length counts flatbuffer + padding, not the 8-byte prefix.
    assert!(stored >= meta.len() && stored < meta.len() + 8);
    assert_eq!((8 + stored) % 8, 0);
    let d = dec(&bytes);
    assert_eq!(d.framing, Framing::Continuation);
    assert_eq!(d.metadata_length, stored);
    assert_eq!(d.body_offset, 8 + stored);
    assert_eq!(d.body_length, body.len() as u64);
    assert_eq!(d.total_length(), bytes.len() as u64);
    assert!(sp(&d).content_eq(&expected));
    // Ours: the same prefix, the length counting flatbuffer and padding.
    let ours = encode(&expected.clone().into(), &WriteOptions::default()).unwrap();
    let h = ours.header();
    assert_eq!(&h[..4], &[0xFF; 4]);
    assert_eq!(
        i32::from_le_bytes(h[4..8].try_into().unwrap()) as usize + 8,
        h.len()
    );
}

#[test]
fn framing_legacy_prefix_is_read() {
    let (s, body, expected) = arrow_coo();
    let meta = craft::sparse(&s);
    let bytes = craft::frame(&meta, &body, false, 8);
    // No continuation marker: the first int32 is the length.
    let stored = i32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
    assert_eq!(4 + stored + body.len(), bytes.len());
    let d = dec(&bytes);
    assert_eq!(d.framing, Framing::Legacy);
    assert_eq!(d.body_offset, 4 + stored);
    assert!(sp(&d).content_eq(&expected));
    // In streams, mixed with modern framing and ended by a legacy EOS.
    let mut stream = bytes.clone();
    stream.extend(craft::frame(&meta, &body, true, 8));
    stream.extend(&bytes);
    stream.extend([0u8; 4]);
    for ms in [read_iter(&stream), read_stream(&stream).0] {
        let framings: Vec<Framing> = ms.iter().map(|m| m.framing).collect();
        assert_eq!(
            framings,
            vec![Framing::Legacy, Framing::Continuation, Framing::Legacy]
        );
        assert!(ms.iter().all(|m| sp(m).content_eq(&expected)));
    }
}

#[test]
fn end_of_stream_markers() {
    let (s, body, expected) = arrow_coo();
    let msg = arrow_sparse(&s, &body);
    for eos in [
        vec![0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0],
        vec![0, 0, 0, 0],
        vec![],
    ] {
        let mut stream = msg.clone();
        stream.extend(&msg);
        stream.extend(&eos);
        if !eos.is_empty() {
            // Anything after the marker is not read.
            stream.extend(b"not a message at all");
            assert!(
                decode_message(&bytes::Bytes::from(eos.clone()), &ReadOptions::strict())
                    .unwrap()
                    .is_none()
            );
        }
        let ms = read_iter(&stream);
        assert_eq!(ms.len(), 2, "{eos:?}");
        assert!(ms.iter().all(|m| sp(m).content_eq(&expected)));
        let (ms, consumed) = read_stream(&stream);
        assert_eq!(ms.len(), 2, "{eos:?}");
        assert_eq!(consumed, (2 * msg.len() + eos.len()) as u64);
    }
    // We write FFFFFFFF 00000000.
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    w.write(&expected.clone().into()).unwrap();
    let out = w.finish().unwrap();
    assert_eq!(&out[out.len() - 8..], &[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
}

#[test]
fn versions_v4_and_v5_are_read_others_rejected() {
    let (s, body, expected) = arrow_coo();
    for (v, version) in [(3i16, MetadataVersion::V4), (4, MetadataVersion::V5)] {
        let mut s = s.clone();
        s.version = v;
        let d = dec(&arrow_sparse(&s, &body));
        assert_eq!(d.version, version);
        assert!(sp(&d).content_eq(&expected));
        let dd = arrow_dense_spec(Vt::Int(8, true), &[3], &[1], 3);
        let dd = craft::Dense { version: v, ..dd };
        assert_eq!(dec(&arrow_dense(&dd, &[1, 2, 3])).version, version);
    }
    for v in [0i16, 1, 2, 5, 6] {
        let mut s = s.clone();
        s.version = v;
        assert!(matches!(
            dec_err(&arrow_sparse(&s, &body)),
            ErrorKind::UnsupportedVersion(x) if x == v
        ));
    }
    // A missing version field defaults to V1 and is rejected.
    let mut s = s.clone();
    s.version = 0;
    let meta = craft::sparse(&s);
    let m = flatbuffers::root::<fb::Message>(&meta).unwrap();
    assert_eq!(
        m._tab.vtable().get(fb::Message::VT_VERSION),
        0,
        "field absent"
    );
    assert!(matches!(
        dec_err(&craft::frame(&meta, &body, true, 8)),
        ErrorKind::UnsupportedVersion(0)
    ));
}

#[test]
fn we_write_v5_and_no_custom_metadata() {
    let (_, _, coo) = arrow_coo();
    for bytes in [
        enc(coo),
        enc(Tensor::from_vec(vec![2], vec![1u8, 2]).unwrap()),
    ] {
        let m = written(&bytes);
        assert_eq!(m.version(), fb::MetadataVersion::V5);
        assert!(m.custom_metadata().is_none());
    }
}

#[test]
fn custom_metadata_is_accepted_and_ignored() {
    let (mut s, body, expected) = arrow_coo();
    s.custom_metadata = true;
    let meta = craft::sparse(&s);
    assert_eq!(
        flatbuffers::root::<fb::Message>(&meta)
            .unwrap()
            .custom_metadata()
            .unwrap()
            .len(),
        1
    );
    let d = dec(&craft::frame(&meta, &body, true, 8));
    assert!(sp(&d).content_eq(&expected));
    let mut dd = arrow_dense_spec(Vt::Int(16, false), &[2], &[2], 4);
    dd.custom_metadata = true;
    let d = dec(&arrow_dense(&dd, &[1, 0, 2, 0]));
    assert_eq!(dn(&d).to_vec::<u16>().unwrap(), vec![1, 2]);
}

#[test]
fn metadata_needs_no_padding_and_message_start_no_alignment() {
    let (s, body, expected) = arrow_coo();
    let meta = craft::sparse(&s);
    // Metadata followed by 3 padding bytes: the body starts at an odd offset.
    let mut bytes = vec![0xFF; 4];
    bytes.extend(((meta.len() + 3) as i32).to_le_bytes());
    bytes.extend(&meta);
    bytes.extend([0u8; 3]);
    bytes.extend(&body);
    let d = dec(&bytes);
    assert_eq!(d.body_offset, 8 + meta.len() + 3);
    assert_eq!(d.body_offset % 2, 1);
    assert!(sp(&d).content_eq(&expected));
    // The message itself at an odd address.
    let mut shifted = vec![0u8];
    shifted.extend(&bytes);
    let shifted = bytes::Bytes::from(shifted).slice(1..);
    let d = decode_message(&shifted, &ReadOptions::strict())
        .unwrap()
        .unwrap();
    assert!(sp(&d).content_eq(&expected));
    // And after another message in a stream.
    let mut stream = bytes.clone();
    stream.extend(&bytes);
    for ms in [read_iter(&stream), read_stream(&stream).0] {
        assert_eq!(ms.len(), 2);
        assert_eq!(ms[1].offset, bytes.len() as u64);
        assert!(sp(&ms[1]).content_eq(&expected));
    }
}

/// Builds a Tensor or SparseTensor table without some of its fields (the generated
/// builders refuse to omit required fields, so the table is built slot by slot).
fn message_without(sparse: bool, missing: &str) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let int = craft::int(&mut fbb, I32);
    let shape = craft::dims(&mut fbb, &[2, 2], &[]);
    // Sparse values follow the 8-byte COO index; dense values fill the body.
    let data = if sparse {
        fb::Buffer::new(8, 8)
    } else {
        fb::Buffer::new(0, 16)
    };
    let index = if sparse {
        let t = craft::int(&mut fbb, I32);
        let strides = fbb.create_vector(&[8i64, 4]);
        let b = fb::Buffer::new(0, 8);
        Some(fb::SparseTensorIndexCOO::create(
            &mut fbb,
            &fb::SparseTensorIndexCOOArgs {
                indicesType: Some(t),
                indicesStrides: Some(strides),
                indicesBuffer: Some(&b),
                isCanonical: true,
            },
        ))
    } else {
        None
    };
    let start = fbb.start_table();
    let (vt_type_type, vt_type, vt_shape, vt_data) = if sparse {
        (
            fb::SparseTensor::VT_TYPE_TYPE,
            fb::SparseTensor::VT_TYPE_,
            fb::SparseTensor::VT_SHAPE,
            fb::SparseTensor::VT_DATA,
        )
    } else {
        (
            fb::Tensor::VT_TYPE_TYPE,
            fb::Tensor::VT_TYPE_,
            fb::Tensor::VT_SHAPE,
            fb::Tensor::VT_DATA,
        )
    };
    if missing != "data" {
        fbb.push_slot_always::<&fb::Buffer>(vt_data, &data);
    }
    if sparse {
        fbb.push_slot::<i64>(fb::SparseTensor::VT_NON_ZERO_LENGTH, 1, 0);
    }
    if missing != "type" {
        fbb.push_slot_always(vt_type, int);
    }
    if missing != "shape" {
        fbb.push_slot_always(vt_shape, shape);
    }
    if let Some(index) = index {
        if missing != "sparseIndex" {
            fbb.push_slot_always(fb::SparseTensor::VT_SPARSEINDEX, index);
            fbb.push_slot::<fb::SparseTensorIndex>(
                fb::SparseTensor::VT_SPARSEINDEX_TYPE,
                fb::SparseTensorIndex::SparseTensorIndexCOO,
                fb::SparseTensorIndex::NONE,
            );
        }
    }
    if missing != "type" {
        fbb.push_slot::<fb::Type>(vt_type_type, fb::Type::Int, fb::Type::NONE);
    }
    let table = fbb.end_table(start);
    let header = WIPOffset::new(table.value());
    let h = if sparse {
        fb::MessageHeader::SparseTensor
    } else {
        fb::MessageHeader::Tensor
    };
    let meta = craft::finish(fbb, 4, h, Some(header), 16, false);
    let mut body = craft::ints(&[1, 1], 4);
    body.extend(craft::ints(&[7], 4));
    body.resize(16, 0);
    craft::frame(&meta, &body, true, 8)
}

#[test]
fn required_fields_are_enforced() {
    // Complete tables decode (sanity check of the slot-by-slot builder).
    let d = dec(&message_without(false, ""));
    assert_eq!(dn(&d).shape(), &[2, 2]);
    let d = dec(&message_without(true, ""));
    assert_eq!(sp(&d).get(&[1, 1]).unwrap(), Scalar::Int32(7));
    for missing in ["type", "shape", "data"] {
        let e = dec_err(&message_without(false, missing));
        assert!(
            matches!(&e, ErrorKind::InvalidFlatbuffer { reason }
                if reason.starts_with("Missing required field")),
            "Tensor without {missing}: {e}"
        );
    }
    for missing in ["type", "shape", "sparseIndex", "data"] {
        let e = dec_err(&message_without(true, missing));
        assert!(
            matches!(&e, ErrorKind::InvalidFlatbuffer { reason }
                if reason.starts_with("Missing required field")),
            "SparseTensor without {missing}: {e}"
        );
    }
}

/// A rank-2 CSF message (the 2 x 3 example with 3 non-zeros) whose index table lacks
/// `axisOrder`, or has it when `with_axis_order`.
fn csf_message(with_axis_order: bool) -> Vec<u8> {
    let mut body = ArrowBody::default();
    let p = body.push_count(&craft::ints(&[0, 1, 3], 4), 4);
    let i0 = body.push_count(&craft::ints(&[0, 1], 4), 4);
    let i1 = body.push_count(&craft::ints(&[2, 0, 1], 4), 4);
    let data = body.push(&f64s(&[5., 6., 7.]));
    let mut fbb = FlatBufferBuilder::new();
    let pt = craft::int(&mut fbb, I32);
    let it = craft::int(&mut fbb, I32);
    let ptrs = fbb.create_vector(&[fb::Buffer::new(p.0, p.1)]);
    let idxs = fbb.create_vector(&[fb::Buffer::new(i0.0, i0.1), fb::Buffer::new(i1.0, i1.1)]);
    let order = fbb.create_vector(&[0i32, 1]);
    let start = fbb.start_table();
    fbb.push_slot_always(fb::SparseTensorIndexCSF::VT_INDPTRTYPE, pt);
    fbb.push_slot_always(fb::SparseTensorIndexCSF::VT_INDPTRBUFFERS, ptrs);
    fbb.push_slot_always(fb::SparseTensorIndexCSF::VT_INDICESTYPE, it);
    fbb.push_slot_always(fb::SparseTensorIndexCSF::VT_INDICESBUFFERS, idxs);
    if with_axis_order {
        fbb.push_slot_always(fb::SparseTensorIndexCSF::VT_AXISORDER, order);
    }
    let csf = fbb.end_table(start);
    let (type_type, type_) = craft::vt(&mut fbb, Vt::Float(2));
    let shape = craft::dims(&mut fbb, &[2, 3], &[]);
    let data = fb::Buffer::new(data.0, data.1);
    let t = fb::SparseTensor::create(
        &mut fbb,
        &fb::SparseTensorArgs {
            type_type,
            type_: Some(type_),
            shape: Some(shape),
            non_zero_length: 3,
            sparseIndex_type: fb::SparseTensorIndex::SparseTensorIndexCSF,
            sparseIndex: Some(WIPOffset::new(csf.value())),
            data: Some(&data),
        },
    );
    let meta = craft::finish(
        fbb,
        4,
        fb::MessageHeader::SparseTensor,
        Some(t.as_union_value()),
        body.len(),
        false,
    );
    craft::frame(&meta, &body.0, true, 8)
}

#[test]
fn required_fields_of_sparse_indices_are_enforced() {
    let d = dec(&csf_message(true));
    assert_eq!(sp(&d).get(&[1, 1]).unwrap(), Scalar::Float64(7.));
    let e = dec_err(&csf_message(false));
    assert!(
        matches!(&e, ErrorKind::InvalidFlatbuffer { reason }
            if reason.starts_with("Missing required field `axisOrder`")),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// Dense tensors
// ---------------------------------------------------------------------------------------

#[test]
fn dense_body_unpadded_next_message_at_unaligned_offset() {
    // int8[3]: bodyLength 3, not padded; the next message starts right after.
    let m1 = arrow_dense(
        &arrow_dense_spec(Vt::Int(8, true), &[3], &[1], 3),
        &[1, 2, 0xFD],
    );
    let m2 = arrow_dense(
        &arrow_dense_spec(Vt::Int(32, true), &[2, 2], &[8, 4], 16),
        &craft::ints(&[10, 20, 30, 40], 4),
    );
    let m3 = arrow_dense(&arrow_dense_spec(Vt::Float(2), &[], &[], 8), &f64s(&[2.5]));
    assert_eq!(m1.len() % 64, 3);
    let mut stream = m1.clone();
    stream.extend(&m2);
    stream.extend(&m3);
    let starts = [0, m1.len(), m1.len() + m2.len()];
    let (ms_reader, consumed) = read_stream(&stream);
    assert_eq!(consumed, stream.len() as u64);
    for ms in [read_iter(&stream), ms_reader] {
        assert_eq!(ms.len(), 3);
        let offsets: Vec<usize> = ms.iter().map(|m| m.offset as usize).collect();
        assert_eq!(offsets, starts);
        assert_eq!(ms[0].body_length, 3);
        assert_eq!(ms[0].body_offset % 64, 0);
        assert_eq!(dn(&ms[0]).to_vec::<i8>().unwrap(), vec![1, 2, -3]);
        assert_eq!(dn(&ms[1]).to_vec::<i32>().unwrap(), vec![10, 20, 30, 40]);
        assert_eq!(dn(&ms[1]).get(&[1, 0]).unwrap(), Scalar::Int32(30));
        assert_eq!(dn(&ms[2]).get(&[]).unwrap(), Scalar::Float64(2.5));
    }
}

#[test]
fn dense_value_types() {
    let cases: [(Vt, ValueType, Vec<u8>, [Scalar; 2]); 11] = [
        (
            Vt::Int(8, true),
            ValueType::Int8,
            vec![0xFF, 5],
            [Scalar::Int8(-1), Scalar::Int8(5)],
        ),
        (
            Vt::Int(8, false),
            ValueType::UInt8,
            vec![0xFF, 5],
            [Scalar::UInt8(255), Scalar::UInt8(5)],
        ),
        (
            Vt::Int(16, true),
            ValueType::Int16,
            craft::ints(&[-300, 7], 2),
            [Scalar::Int16(-300), Scalar::Int16(7)],
        ),
        (
            Vt::Int(16, false),
            ValueType::UInt16,
            craft::ints(&[65535, 7], 2),
            [Scalar::UInt16(65535), Scalar::UInt16(7)],
        ),
        (
            Vt::Int(32, true),
            ValueType::Int32,
            craft::ints(&[-70000, 7], 4),
            [Scalar::Int32(-70000), Scalar::Int32(7)],
        ),
        (
            Vt::Int(32, false),
            ValueType::UInt32,
            craft::ints(&[4_000_000_000, 7], 4),
            [Scalar::UInt32(4_000_000_000), Scalar::UInt32(7)],
        ),
        (
            Vt::Int(64, true),
            ValueType::Int64,
            craft::ints(&[i64::MIN, 7], 8),
            [Scalar::Int64(i64::MIN), Scalar::Int64(7)],
        ),
        (
            Vt::Int(64, false),
            ValueType::UInt64,
            craft::ints(&[-1, 7], 8),
            [Scalar::UInt64(u64::MAX), Scalar::UInt64(7)],
        ),
        (
            Vt::Float(0),
            ValueType::Float16,
            [half::f16::from_f32(1.5), half::f16::from_f32(-2.0)]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
            [
                Scalar::Float16(half::f16::from_f32(1.5)),
                Scalar::Float16(half::f16::from_f32(-2.0)),
            ],
        ),
        (
            Vt::Float(1),
            ValueType::Float32,
            craft::f32s(&[1.25, -0.5]),
            [Scalar::Float32(1.25), Scalar::Float32(-0.5)],
        ),
        (
            Vt::Float(2),
            ValueType::Float64,
            f64s(&[1e300, -0.25]),
            [Scalar::Float64(1e300), Scalar::Float64(-0.25)],
        ),
    ];
    for (vt, t, body, values) in cases {
        let w = t.byte_width() as i64;
        let d = dec(&arrow_dense(
            &arrow_dense_spec(vt, &[2], &[w], body.len()),
            &body,
        ));
        let x = dn(&d);
        assert_eq!(x.value_type(), t);
        assert_eq!(x.get(&[0]).unwrap(), values[0], "{t}");
        assert_eq!(x.get(&[1]).unwrap(), values[1], "{t}");
        // The same type as a sparse value type.
        let mut sbody = ArrowBody::default();
        let idx = sbody.push(&craft::ints(&[0, 1], 1));
        let data = sbody.push(&body);
        let s = craft::Sparse {
            version: 4,
            vt,
            shape: vec![2],
            names: vec![],
            nnz: 2,
            index: Index::Coo {
                ty: (8, true),
                strides: Some(vec![1, 1]),
                buf: idx,
                canonical: true,
            },
            data,
            body_len: sbody.len(),
            custom_metadata: false,
        };
        let d = dec(&arrow_sparse(&s, &sbody.0));
        assert_eq!(sp(&d).value_type(), t);
        assert_eq!(sp(&d).get(&[1]).unwrap(), values[1], "{t}");
    }
}

#[test]
fn we_write_strides_row_major_column_major_or_copied() {
    let data: Vec<i16> = (1..=6).collect();
    // Row-major as is.
    let t = Tensor::from_vec(vec![2, 3], data.clone()).unwrap();
    let bytes = enc(t.clone());
    let m = written(&bytes);
    let x = m.header_as_tensor().unwrap();
    assert_eq!(x.strides().unwrap().iter().collect::<Vec<_>>(), vec![6, 2]);
    // Column-major as is: same bytes, column-major strides.
    let col = Tensor::try_new(
        ValueType::Int16,
        vec![2, 3],
        vec![2, 4],
        Buffer::from_vec(data.clone()),
    )
    .unwrap();
    assert!(col.is_column_major());
    let bytes = enc(col.clone());
    let m = written(&bytes);
    let x = m.header_as_tensor().unwrap();
    assert_eq!(x.strides().unwrap().iter().collect::<Vec<_>>(), vec![2, 4]);
    let body = &bytes[bytes.len() - m.bodyLength() as usize..];
    assert_eq!(&body[..12], Buffer::from_vec(data.clone()).as_slice());
    let d = dec(&bytes);
    assert!(dn(&d).content_eq(&col));
    assert!(dn(&d).is_column_major());
    // Any other layout: copied to row-major.
    let padded: Vec<i16> = vec![1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0, 0];
    let other = Tensor::try_new(
        ValueType::Int16,
        vec![2, 3],
        vec![12, 2],
        Buffer::from_vec(padded),
    )
    .unwrap();
    let bytes = enc(other.clone());
    let m = written(&bytes);
    let x = m.header_as_tensor().unwrap();
    assert_eq!(x.strides().unwrap().iter().collect::<Vec<_>>(), vec![6, 2]);
    let body = &bytes[bytes.len() - m.bodyLength() as usize..];
    assert_eq!(&body[..12], Buffer::from_vec(data).as_slice());
    assert!(dn(&dec(&bytes)).content_eq(&other));
    // Tensor.data = {0, data length}.
    let data = x.data();
    assert_eq!((data.offset(), data.length()), (0, 12));
}

#[test]
fn dense_rank_zero() {
    // Empty shape, empty strides, body = one element.
    let d = dec(&arrow_dense(
        &arrow_dense_spec(Vt::Int(32, true), &[], &[], 4),
        &craft::ints(&[-9], 4),
    ));
    let t = dn(&d);
    assert_eq!(t.ndim(), 0);
    assert_eq!(t.len(), 1);
    assert_eq!(t.get(&[]).unwrap(), Scalar::Int32(-9));
    // Strides absent as well.
    let mut spec = arrow_dense_spec(Vt::Int(32, true), &[], &[], 4);
    spec.strides = None;
    assert_eq!(
        dn(&dec(&arrow_dense(&spec, &craft::ints(&[-9], 4))))
            .get(&[])
            .unwrap(),
        Scalar::Int32(-9)
    );
    // What we write.
    let ours = Tensor::from_vec(vec![], vec![2.5f32]).unwrap();
    let bytes = enc(ours.clone());
    let m = written(&bytes);
    let x = m.header_as_tensor().unwrap();
    assert_eq!(x.shape().len(), 0);
    assert_eq!(x.strides().map(|s| s.len()), Some(0));
    assert_eq!(x.data().length(), 4);
    assert!(dn(&dec(&bytes)).content_eq(&ours));
}

#[test]
fn dense_zero_size_dimensions() {
    // Arrow writes every stride = element width for zero-size shapes: [4, 4] for int32 [0, 3].
    for shape in [[0i64, 3], [3, 0], [0, 0]] {
        let d = dec(&arrow_dense(
            &arrow_dense_spec(Vt::Int(32, true), &shape, &[4, 4], 0),
            &[],
        ));
        let t = dn(&d);
        assert_eq!(t.shape(), &[shape[0] as usize, shape[1] as usize]);
        assert_eq!(t.len(), 0);
        assert_eq!(t.iter().count(), 0);
        assert!(t.get(&[0, 0]).is_err());
    }
    // What we write for them decodes to the same.
    let t = Tensor::from_vec(vec![0, 3], Vec::<i32>::new()).unwrap();
    assert!(dn(&dec(&enc(t.clone()))).content_eq(&t));
}

#[test]
fn dim_names_absent_and_empty_read_the_same() {
    let body = craft::ints(&[1, 2, 3, 4], 1);
    let mut a = arrow_dense_spec(Vt::Int(8, false), &[2, 2], &[2, 1], 4);
    a.names = vec![None, None];
    let mut b = a.clone();
    b.names = vec![Some(""), Some("")];
    let mut c = a.clone();
    c.names = vec![Some("rows"), None];
    let (da, db, dc) = (
        dec(&arrow_dense(&a, &body)),
        dec(&arrow_dense(&b, &body)),
        dec(&arrow_dense(&c, &body)),
    );
    assert!(dn(&da).content_eq(dn(&db)));
    assert_eq!(dn(&da).dim_names(), &["", ""]);
    assert!(!dn(&da).has_dim_names());
    assert_eq!(dn(&dc).dim_names(), &["rows", ""]);
    assert_eq!(dn(&dc).dim_name(0), Some("rows"));
    assert_eq!(dn(&dc).dim_name(1), None);
    // Sparse too.
    let (mut s, sbody, expected) = arrow_coo();
    s.names = vec![None, Some(""), None];
    assert!(sp(&dec(&arrow_sparse(&s, &sbody))).content_eq(&expected));
    s.names = vec![Some("x"), None, Some("z")];
    assert_eq!(
        sp(&dec(&arrow_sparse(&s, &sbody))).dim_names(),
        &["x", "", "z"]
    );
}

#[test]
fn we_write_strides_and_names_always() {
    let t = Tensor::from_vec(vec![2, 1], vec![1u32, 2]).unwrap();
    for bytes in [
        enc(t.clone()),
        enc(t.clone().with_dim_names(["a", ""]).unwrap()),
    ] {
        let m = written(&bytes);
        let x = m.header_as_tensor().unwrap();
        assert_eq!(x.strides().map(|s| s.len()), Some(2));
        for d in x.shape() {
            assert!(d.name().is_some(), "every TensorDim has a name");
        }
    }
    let (_, _, coo) = arrow_coo();
    let bytes = enc(coo.with_dim_names(["", "y", ""]).unwrap());
    let m = written(&bytes);
    let names: Vec<Option<&str>> = m
        .header_as_sparse_tensor()
        .unwrap()
        .shape()
        .iter()
        .map(|d| d.name())
        .collect();
    assert_eq!(names, vec![Some(""), Some("y"), Some("")]);
}

#[test]
fn dense_tensor_data_is_checked_strictly_and_read_from_the_body_permissively() {
    // Arrow C++ reads the values from the start of the body whatever `Tensor.data` says;
    // our permissive mode does the same, strict mode refuses a region that cannot hold
    // the tensor.
    let body = craft::ints(&[5, 6, 7], 2);
    for data in [(1000, 5), (0, 0), (-4, 2)] {
        let mut spec = arrow_dense_spec(Vt::Int(16, true), &[3], &[2], 6);
        spec.data = data;
        let bytes = arrow_dense(&spec, &body);
        let d = dec_with(&bytes, ReadOptions::permissive()).expect("permissive decoding");
        assert_eq!(dn(&d).to_vec::<i16>().unwrap(), vec![5, 6, 7], "{data:?}");
        let e = dec_err(&bytes);
        assert!(
            matches!(
                e,
                ErrorKind::BufferOutOfBody { .. }
                    | ErrorKind::BufferTooShort { .. }
                    | ErrorKind::Negative { .. }
            ),
            "{data:?}: {e}"
        );
    }
}

#[test]
fn dense_absent_or_empty_strides_are_row_major() {
    let body = craft::ints(&[1, 2, 3, 4, 5, 6], 4);
    for strides in [None, Some(vec![])] {
        let mut spec = arrow_dense_spec(Vt::Int(32, false), &[2, 3], &[], 24);
        spec.strides = strides.clone();
        let d = dec(&arrow_dense(&spec, &body));
        let t = dn(&d);
        assert_eq!(t.strides(), &[12, 4], "{strides:?}");
        assert_eq!(t.get(&[1, 0]).unwrap(), Scalar::UInt32(4));
    }
}

#[test]
fn dense_reader_checks() {
    let body = craft::ints(&[1, 2, 3, 4, 5, 6], 4);
    let spec =
        |shape: &[i64], strides: &[i64]| arrow_dense_spec(Vt::Int(32, true), shape, strides, 24);
    // Strides count = ndim (ARROW-7633).
    assert!(matches!(
        dec_err(&arrow_dense(&spec(&[2, 3], &[12, 4, 4]), &body)),
        ErrorKind::CountMismatch { .. }
    ));
    assert!(matches!(
        dec_err(&arrow_dense(&spec(&[2, 3], &[4]), &body)),
        ErrorKind::CountMismatch { .. }
    ));
    // No negative dimensions (GH-50304).
    assert!(matches!(
        dec_err(&arrow_dense(&spec(&[2, -3], &[12, 4]), &body)),
        ErrorKind::Negative { .. }
    ));
    // No negative strides, except on size-0 dimensions.
    assert!(matches!(
        dec_err(&arrow_dense(&spec(&[2, 3], &[12, -4]), &body)),
        ErrorKind::Negative { .. }
    ));
    let d = dec(&arrow_dense(&spec(&[0, 3], &[-12, 4]), &body));
    assert_eq!(dn(&d).len(), 0);
    // The extent max((shape[i] - 1) x stride[i]) + width within the body.
    assert!(matches!(
        dec_err(&arrow_dense(&spec(&[2, 3], &[16, 4]), &body)),
        ErrorKind::BufferTooShort { .. }
    ));
    dec(&arrow_dense(&spec(&[2, 3], &[12, 4]), &body));
    // Implicit strides checked against the body too (GH-50063).
    let mut s = spec(&[3, 3], &[]);
    s.strides = None;
    assert!(matches!(
        dec_err(&arrow_dense(&s, &body)),
        ErrorKind::BufferTooShort { needed: 36, .. }
    ));
    // Overflow-checked (ARROW-11470).
    assert!(matches!(
        dec_err(&arrow_dense(&spec(&[3, 1 << 62], &[4, 4]), &body)),
        ErrorKind::Overflow { .. }
    ));
    assert!(matches!(
        dec_err(&arrow_dense(&spec(&[3, 2], &[i64::MAX, 4]), &body)),
        ErrorKind::Overflow { .. }
    ));
}

#[test]
fn dense_accepts_zero_overlapping_and_odd_strides() {
    // Zero stride: every element is the first one.
    let d = dec(&arrow_dense(
        &arrow_dense_spec(Vt::Int(32, true), &[3], &[0], 4),
        &craft::ints(&[7], 4),
    ));
    assert_eq!(dn(&d).to_vec::<i32>().unwrap(), vec![7, 7, 7]);
    // Overlapping: [[a, b], [b, c]].
    let d = dec(&arrow_dense(
        &arrow_dense_spec(Vt::Int(32, true), &[2, 2], &[4, 4], 12),
        &craft::ints(&[1, 2, 3], 4),
    ));
    assert_eq!(dn(&d).to_vec::<i32>().unwrap(), vec![1, 2, 2, 3]);
    // A stride that is not a multiple of the width.
    let mut body = craft::ints(&[0x0102_0304], 4);
    body.extend([0x05, 0x06, 0x07]);
    let d = dec(&arrow_dense(
        &arrow_dense_spec(Vt::Int(32, false), &[2], &[3], 7),
        &body,
    ));
    assert_eq!(
        dn(&d).to_vec::<u32>().unwrap(),
        vec![0x0102_0304, u32::from_le_bytes([0x01, 0x05, 0x06, 0x07])]
    );
}

// ---------------------------------------------------------------------------------------
// Sparse tensors
// ---------------------------------------------------------------------------------------

#[test]
fn sparse_coo_as_arrow_writes_it() {
    let (s, body, expected) = arrow_coo();
    let bytes = arrow_sparse(&s, &body);
    // Metadata padded only to 8.
    let d = dec(&bytes);
    assert_eq!(d.body_offset % 8, 0);
    assert_eq!(d.body_length, 56);
    let t = sp(&d);
    assert!(t.content_eq(&expected));
    assert_eq!(t.get(&[2, 3, 0]).unwrap(), Scalar::Float32(3.0));
    // Also found by a stream reader.
    let mut stream = bytes.clone();
    stream.extend(&bytes);
    assert_eq!(read_stream(&stream).0.len(), 2);
    assert_eq!(read_iter(&stream).len(), 2);
}

fn arrow_csx(axis: i16, indptr: &[i64], indices: &[i64], values: &[f64]) -> Vec<u8> {
    let mut body = ArrowBody::default();
    let ptr = body.push(&craft::ints(indptr, 8));
    let idx = body.push(&craft::ints(indices, 4));
    let data = body.push(&f64s(values));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(2),
        shape: vec![6, 4],
        names: vec![],
        nnz: values.len() as i64,
        index: Index::Csx {
            axis,
            ptr_ty: I64,
            ptr,
            idx_ty: I32,
            idx,
        },
        data,
        body_len: body.len(),
        custom_metadata: false,
    };
    let meta = craft::sparse(&s);
    // compressedAxis Row is the default and is omitted from the table.
    let m = flatbuffers::root::<fb::Message>(&meta).unwrap();
    let csx = m
        .header_as_sparse_tensor()
        .unwrap()
        .sparseIndex_as_sparse_matrix_index_csx()
        .unwrap();
    let present = csx
        ._tab
        .vtable()
        .get(fb::SparseMatrixIndexCSX::VT_COMPRESSEDAXIS)
        != 0;
    assert_eq!(present, axis != 0);
    craft::frame(&meta, &body.0, true, 8)
}

#[test]
fn sparse_csr_and_csc_as_arrow_writes_them() {
    // CSR (axis omitted), int64 indptr and int32 indices: different types per role.
    let indptr = [0i64, 2, 3, 5, 5, 8, 9];
    let indices = [1i64, 2, 2, 1, 3, 0, 2, 3, 1];
    let values: Vec<f64> = (1..=9).map(f64::from).collect();
    let d = dec(&arrow_csx(0, &indptr, &indices, &values));
    let t = sp(&d);
    let expected = SparseTensor::try_new(
        ValueType::Float64,
        vec![6, 4],
        Buffer::from_vec(values.clone()),
        SparseIndex::Csx(
            CsxIndex::new(
                CompressedAxis::Row,
                IndexArray::from_vec(indptr.to_vec()),
                IndexArray::from_vec(indices.iter().map(|&v| v as i32).collect::<Vec<_>>()),
            )
            .unwrap(),
        ),
    )
    .unwrap();
    assert!(t.content_eq(&expected));
    let SparseIndex::Csx(c) = t.index() else {
        unreachable!()
    };
    assert_eq!(c.axis(), CompressedAxis::Row);
    assert_eq!(c.indptr().index_type(), IndexType::Int64);
    assert_eq!(c.indices().index_type(), IndexType::Int32);
    assert!(t.to_dense().unwrap().content_eq(&m6x4_dense()));
    // CSC: indptr over columns, indices are row numbers.
    let d = dec(&arrow_csx(
        1,
        &[0, 1, 4, 7, 9],
        &[4, 0, 2, 5, 0, 1, 4, 2, 4],
        &[6., 1., 4., 9., 2., 3., 7., 5., 8.],
    ));
    let t = sp(&d);
    let SparseIndex::Csx(c) = t.index() else {
        unreachable!()
    };
    assert_eq!(c.axis(), CompressedAxis::Column);
    assert!(t.to_dense().unwrap().content_eq(&m6x4_dense()));
    assert_eq!(t.get(&[5, 1]).unwrap(), Scalar::Float64(9.));
    // Exactly rank 2.
    let mut body = ArrowBody::default();
    let ptr = body.push(&craft::ints(&[0, 1], 8));
    let idx = body.push(&craft::ints(&[0], 4));
    let data = body.push(&f64s(&[1.]));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(2),
        shape: vec![1, 1, 1],
        names: vec![],
        nnz: 1,
        index: Index::Csx {
            axis: 0,
            ptr_ty: I64,
            ptr,
            idx_ty: I32,
            idx,
        },
        data,
        body_len: body.len(),
        custom_metadata: false,
    };
    assert!(matches!(
        dec_err(&arrow_sparse(&s, &body.0)),
        ErrorKind::InvalidRank { rank: 3, .. }
    ));
}

/// A CSF message as Arrow writes it: indptr and indices buffers back to back (padded to 8),
/// lengths as element counts, int64 indptr and int32 indices.
fn arrow_csf(
    shape: &[i64],
    order: &[i32],
    indptr: &[&[i64]],
    indices: &[&[i64]],
    values: &[f64],
    byte_lengths: bool,
) -> Vec<u8> {
    let mut body = ArrowBody::default();
    let mut push = |a: &[i64], w: usize| {
        let bytes = craft::ints(a, w);
        if byte_lengths {
            let (off, _) = body.place(&bytes);
            (off, bytes.len() as i64)
        } else {
            body.push_count(&bytes, w)
        }
    };
    let ptrs: Vec<_> = indptr.iter().map(|a| push(a, 8)).collect();
    let idxs: Vec<_> = indices.iter().map(|a| push(a, 4)).collect();
    let data = body.push(&f64s(values));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(2),
        shape: shape.to_vec(),
        names: vec![],
        nnz: values.len() as i64,
        index: Index::Csf {
            ptr_ty: I64,
            ptrs,
            idx_ty: I32,
            idxs,
            order: order.to_vec(),
        },
        data,
        body_len: body.len(),
        custom_metadata: false,
    };
    arrow_sparse(&s, &body.0)
}

fn expected_csf(
    shape: &[usize],
    order: &[usize],
    indptr: &[&[i64]],
    indices: &[&[i64]],
    values: &[f64],
) -> SparseTensor {
    SparseTensor::try_new(
        ValueType::Float64,
        shape,
        Buffer::from_vec(values.to_vec()),
        SparseIndex::Csf(
            arrow_tensor_ipc::CsfIndex::new(
                order.to_vec(),
                indptr
                    .iter()
                    .map(|a| IndexArray::from_vec(a.to_vec()))
                    .collect(),
                indices
                    .iter()
                    .map(|a| IndexArray::from_vec(a.iter().map(|&v| v as i32).collect::<Vec<_>>()))
                    .collect(),
            )
            .unwrap(),
        ),
    )
    .unwrap()
}

#[test]
fn sparse_csf_as_arrow_writes_it() {
    // Shape [3, 2, 4]: Arrow's writer picks axisOrder = argsort(shape) = [1, 0, 2].
    // X[0,1,3] = 1, X[2,0,0] = 2, X[2,1,2] = 3; stored as (j, i, k): (0,2,0) (1,0,3) (1,2,2).
    let indptr: [&[i64]; 2] = [&[0, 1, 3], &[0, 1, 2, 3]];
    let indices: [&[i64]; 3] = [&[0, 1], &[2, 0, 2], &[0, 3, 2]];
    let values = [2., 1., 3.];
    let expected = expected_csf(&[3, 2, 4], &[1, 0, 2], &indptr, &indices, &values);
    for byte_lengths in [false, true] {
        let bytes = arrow_csf(
            &[3, 2, 4],
            &[1, 0, 2],
            &indptr,
            &indices,
            &values,
            byte_lengths,
        );
        let d = dec(&bytes);
        let t = sp(&d);
        assert!(t.content_eq(&expected), "byte lengths: {byte_lengths}");
        assert_eq!(t.get(&[0, 1, 3]).unwrap(), Scalar::Float64(1.));
        assert_eq!(t.get(&[2, 0, 0]).unwrap(), Scalar::Float64(2.));
        assert_eq!(t.get(&[2, 1, 2]).unwrap(), Scalar::Float64(3.));
        assert_eq!(t.get(&[2, 1, 3]).unwrap(), Scalar::Float64(0.));
        let coords: Vec<Vec<usize>> = t.iter().unwrap().map(|n| n.coords.to_vec()).collect();
        assert_eq!(coords, vec![vec![2, 0, 0], vec![0, 1, 3], vec![2, 1, 2]]);
    }
    // Rank 2 CSF (Arrow writes it; the seed layout would not).
    let indptr: [&[i64]; 1] = [&[0, 1, 3]];
    let indices: [&[i64]; 2] = [&[0, 1], &[2, 0, 1]];
    let bytes = arrow_csf(&[2, 3], &[0, 1], &indptr, &indices, &[5., 6., 7.], false);
    let t = dec(&bytes);
    let t = sp(&t);
    assert!(t.content_eq(&expected_csf(
        &[2, 3],
        &[0, 1],
        &indptr,
        &indices,
        &[5., 6., 7.]
    )));
    assert_eq!(t.get(&[1, 1]).unwrap(), Scalar::Float64(7.));
    // nnz = 0 (2 x 3): indptr[0] = [0], indices and values empty.
    let indptr: [&[i64]; 1] = [&[0]];
    let indices: [&[i64]; 2] = [&[], &[]];
    for byte_lengths in [false, true] {
        let bytes = arrow_csf(&[2, 3], &[0, 1], &indptr, &indices, &[], byte_lengths);
        let d = dec(&bytes);
        let t = sp(&d);
        assert_eq!(t.nnz(), 0);
        assert!(t.content_eq(&expected_csf(&[2, 3], &[0, 1], &indptr, &indices, &[])));
        assert_eq!(t.iter().unwrap().count(), 0);
        assert_eq!(t.to_dense().unwrap().to_vec::<f64>().unwrap(), vec![0.; 6]);
    }
    // Rank 0 and 1 are rejected.
    let bytes = arrow_csf(&[4], &[0], &[], &[&[1]], &[1.], false);
    assert!(matches!(
        dec_err(&bytes),
        ErrorKind::InvalidRank { rank: 1, .. }
    ));
}

#[test]
fn csf_byte_lengths_are_also_read() {
    let t = SparseTensor::csf(
        [2, 3, 4],
        vec![2, 0, 1],
        vec![vec![0i16, 1, 2, 3, 4], vec![0, 1, 2, 3, 4]],
        vec![vec![0i16, 1, 2, 3], vec![1, 0, 1, 0], vec![1, 0, 1, 2]],
        vec![3.0f32, 1.0, 4.0, 2.0],
    )
    .unwrap();
    let options = WriteOptions::default().with_csf_lengths(CsfLengths::Bytes);
    let bytes = encode(&t.clone().into(), &options).unwrap().to_vec();
    let m = written(&bytes);
    let csf = m
        .header_as_sparse_tensor()
        .unwrap()
        .sparseIndex_as_sparse_tensor_index_csf()
        .unwrap();
    let lens: Vec<i64> = csf.indicesBuffers().iter().map(|b| b.length()).collect();
    assert_eq!(lens, vec![8, 8, 8]);
    let lens: Vec<i64> = csf.indptrBuffers().iter().map(|b| b.length()).collect();
    assert_eq!(lens, vec![10, 10]);
    assert!(sp(&dec(&bytes)).content_eq(&t));
}

#[test]
fn sparse_index_types_all_read_including_uint64() {
    for it in IndexType::ALL {
        let w = it.byte_width();
        let mut body = ArrowBody::default();
        let idx = body.push(&craft::ints(&[0, 1, 2, 3], w));
        let data = body.push(&craft::f32s(&[1., 2.]));
        let s = craft::Sparse {
            version: 4,
            vt: Vt::Float(1),
            shape: vec![3, 4],
            names: vec![],
            nnz: 2,
            index: Index::Coo {
                ty: ((w * 8) as i32, it.is_signed()),
                strides: Some(vec![2 * w as i64, w as i64]),
                buf: idx,
                canonical: true,
            },
            data,
            body_len: body.len(),
            custom_metadata: false,
        };
        let d = dec(&arrow_sparse(&s, &body.0));
        let t = sp(&d);
        let SparseIndex::Coo(c) = t.index() else {
            unreachable!()
        };
        assert_eq!(c.indices().index_type(), it);
        assert_eq!(t.get(&[2, 3]).unwrap(), Scalar::Float32(2.), "{it}");
    }
}

#[test]
fn int8_coordinates_with_more_than_127_entries_are_read() {
    // Arrow C++ rejects (or aborts on) this; the message is valid and we read it.
    let coords: Vec<i64> = (0..200).flat_map(|i| [i / 16, i % 16]).collect();
    let mut body = ArrowBody::default();
    let idx = body.push(&craft::ints(&coords, 1));
    let values: Vec<f32> = (0..200).map(|v| v as f32).collect();
    let data = body.push(&craft::f32s(&values));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![16, 16],
        names: vec![],
        nnz: 200,
        index: Index::Coo {
            ty: (8, true),
            strides: Some(vec![2, 1]),
            buf: idx,
            canonical: true,
        },
        data,
        body_len: body.len(),
        custom_metadata: false,
    };
    let d = dec(&arrow_sparse(&s, &body.0));
    assert_eq!(sp(&d).get(&[12, 7]).unwrap(), Scalar::Float32(199.));
}

fn coo_msg(
    shape: &[i64],
    coords: &[i64],
    strides: Option<Vec<i64>>,
    canonical: bool,
    values: &[f32],
) -> Vec<u8> {
    let mut body = ArrowBody::default();
    let idx = body.push(&craft::ints(coords, 8));
    let data = body.push(&craft::f32s(values));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: shape.to_vec(),
        names: vec![],
        nnz: values.len() as i64,
        index: Index::Coo {
            ty: I64,
            strides,
            buf: idx,
            canonical,
        },
        data,
        body_len: body.len(),
        custom_metadata: false,
    };
    arrow_sparse(&s, &body.0)
}

#[test]
fn coo_strides_row_major_and_column_major() {
    // Entries (0,1,2) (1,0,3) (1,2,0) of a 2 x 3 x 4.
    let row = [0i64, 1, 2, 1, 0, 3, 1, 2, 0];
    let col = [0i64, 1, 1, 1, 0, 2, 2, 3, 0];
    let values = [1f32, 2., 3.];
    let a = dec(&coo_msg(&[2, 3, 4], &row, Some(vec![24, 8]), true, &values));
    let b = dec(&coo_msg(&[2, 3, 4], &col, Some(vec![8, 24]), true, &values));
    let (a, b) = (sp(&a), sp(&b));
    let (SparseIndex::Coo(ca), SparseIndex::Coo(cb)) = (a.index(), b.index()) else {
        unreachable!()
    };
    assert_eq!(ca.order(), CooOrder::RowMajor);
    assert_eq!(cb.order(), CooOrder::ColumnMajor);
    assert_eq!(
        cb.indices().values::<i64>().unwrap(),
        &col,
        "bytes unchanged"
    );
    assert!(a.to_dense().unwrap().content_eq(&b.to_dense().unwrap()));
    let ia: Vec<_> = a.iter().unwrap().collect();
    let ib: Vec<_> = b.iter().unwrap().collect();
    assert_eq!(ia, ib);
    assert_eq!(b.get(&[1, 0, 3]).unwrap(), Scalar::Float32(2.));
    // Absent strides are row-major.
    let c = dec(&coo_msg(&[2, 3, 4], &row, None, true, &values));
    assert!(sp(&c).content_eq(a));
}

#[test]
fn coo_strides_for_nnz_zero_and_rank_zero() {
    // Arrow computes [w, w] for nnz = 0 and for rank 0.
    let d = dec(&coo_msg(&[2, 3], &[], Some(vec![8, 8]), true, &[]));
    let t = sp(&d);
    assert_eq!(t.nnz(), 0);
    assert_eq!(t.to_dense().unwrap().to_vec::<f32>().unwrap(), vec![0.; 6]);
    let d = dec(&coo_msg(&[], &[], Some(vec![8, 8]), true, &[4.5]));
    let t = sp(&d);
    assert_eq!(t.ndim(), 0);
    assert_eq!(t.nnz(), 1);
    assert_eq!(t.get(&[]).unwrap(), Scalar::Float32(4.5));
    // We write [w, w] in both cases.
    let empty = SparseTensor::coo([2, 3], Vec::<i32>::new(), Vec::<f32>::new()).unwrap();
    let scalar = SparseTensor::try_new(
        ValueType::Float32,
        vec![],
        Buffer::from_vec(vec![4.5f32]),
        SparseIndex::Coo(CooIndex::new(IndexArray::from_vec(Vec::<i16>::new()), 0).unwrap()),
    )
    .unwrap();
    for (t, w) in [(empty, 4), (scalar, 2)] {
        let bytes = enc(t.clone());
        let m = written(&bytes);
        let coo = m
            .header_as_sparse_tensor()
            .unwrap()
            .sparseIndex_as_sparse_tensor_index_coo()
            .unwrap();
        let strides: Vec<i64> = coo.indicesStrides().unwrap().iter().collect();
        assert_eq!(strides, vec![w, w]);
        assert!(sp(&dec(&bytes)).content_eq(&t));
    }
}

#[test]
fn coo_is_canonical_absent_is_false_and_duplicates_are_allowed() {
    // Sorted, but the flag is omitted: read as not canonical, lookups still right.
    let bytes = coo_msg(&[3, 3], &[0, 1, 2, 2], Some(vec![16, 8]), false, &[1., 2.]);
    let meta_len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let m = flatbuffers::root::<fb::Message>(&bytes[8..8 + meta_len]).unwrap();
    let coo = m
        .header_as_sparse_tensor()
        .unwrap()
        .sparseIndex_as_sparse_tensor_index_coo()
        .unwrap();
    assert_eq!(
        coo._tab
            .vtable()
            .get(fb::SparseTensorIndexCOO::VT_ISCANONICAL),
        0
    );
    let d = dec(&bytes);
    let SparseIndex::Coo(c) = sp(&d).index() else {
        unreachable!()
    };
    assert!(!c.is_canonical());
    assert_eq!(sp(&d).get(&[2, 2]).unwrap(), Scalar::Float32(2.));
    // Non-canonical COO may contain duplicates: decoded strictly, summed by get/to_dense.
    let bytes = coo_msg(
        &[3, 3],
        &[1, 1, 0, 2, 1, 1],
        Some(vec![16, 8]),
        false,
        &[1., 2., 4.],
    );
    let d = dec(&bytes);
    let t = sp(&d);
    assert_eq!(t.nnz(), 3);
    assert_eq!(t.get(&[1, 1]).unwrap(), Scalar::Float32(5.));
    let dense = t.to_dense().unwrap().to_vec::<f32>().unwrap();
    assert_eq!(dense, vec![0., 0., 2., 0., 5., 0., 0., 0., 0.]);
}

#[test]
fn we_write_is_canonical_only_when_sorted() {
    let sorted = SparseTensor::coo([3, 3], vec![0i32, 1, 2, 2], vec![1f32, 2.]).unwrap();
    let unsorted = SparseTensor::coo([3, 3], vec![2i32, 2, 0, 1], vec![2f32, 1.]).unwrap();
    for (t, canonical) in [(sorted, true), (unsorted, false)] {
        let bytes = enc(t.clone());
        let m = written(&bytes);
        let coo = m
            .header_as_sparse_tensor()
            .unwrap()
            .sparseIndex_as_sparse_tensor_index_coo()
            .unwrap();
        assert_eq!(coo.isCanonical(), canonical);
        // Omitted when false.
        let present = coo
            ._tab
            .vtable()
            .get(fb::SparseTensorIndexCOO::VT_ISCANONICAL)
            != 0;
        assert_eq!(present, canonical);
        let d = dec(&bytes);
        let SparseIndex::Coo(c) = sp(&d).index() else {
            unreachable!()
        };
        assert_eq!(c.is_canonical(), canonical);
    }
}

#[test]
fn arrow_0_15_coo_column_major_v4() {
    // Arrow 0.15 wrote COO column-major, version V4, without isCanonical. The 2 x 3 x 4 x 5
    // example of the schema comment.
    let matrix = [
        0i64, 0, 0, 0, 1, 1, 1, 1, 1, 2, 1, 2, 2, 2, 3, 1, 2, 0, 0, 1, 0, 0, 3, 4,
    ];
    let values = [1f32, 5., 4., 3., 2., 6.];
    let mut body = ArrowBody::default();
    let idx = body.push(&craft::ints(&matrix, 8));
    let data = body.push(&craft::f32s(&values));
    let s = craft::Sparse {
        version: 3,
        vt: Vt::Float(1),
        shape: vec![2, 3, 4, 5],
        names: vec![],
        nnz: 6,
        index: Index::Coo {
            ty: I64,
            strides: Some(vec![8, 48]),
            buf: idx,
            canonical: false,
        },
        data,
        body_len: body.len(),
        custom_metadata: false,
    };
    let d = dec(&arrow_sparse(&s, &body.0));
    assert_eq!(d.version, MetadataVersion::V4);
    let t = sp(&d);
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    assert_eq!(c.order(), CooOrder::ColumnMajor);
    for (coords, v) in [
        ([0, 1, 2, 0], 1.),
        ([1, 1, 2, 3], 2.),
        ([0, 2, 1, 0], 3.),
        ([0, 1, 3, 0], 4.),
        ([0, 1, 2, 1], 5.),
        ([1, 2, 0, 4], 6.),
    ] {
        assert_eq!(t.get(&coords).unwrap(), Scalar::Float32(v));
    }
    assert_eq!(t.get(&[1, 2, 3, 4]).unwrap(), Scalar::Float32(0.));
}

#[test]
fn arrow_0_15_csr_table_is_read_as_csr() {
    // The 0.15 schema (seed 000): SparseMatrixIndexCSR {indptrType, indptrBuffer,
    // indicesType, indicesBuffer} in union slot 2, no compressedAxis, version V4.
    let indptr = [0i64, 2, 3, 5, 5, 8, 9];
    let indices = [1i64, 2, 2, 1, 3, 0, 2, 3, 1];
    let values: Vec<f64> = (1..=9).map(f64::from).collect();
    let mut body = ArrowBody::default();
    let pb = body.push(&craft::ints(&indptr, 8));
    let ib = body.push(&craft::ints(&indices, 8));
    let db = body.push(&f64s(&values));
    let mut fbb = FlatBufferBuilder::new();
    let pt = craft::int(&mut fbb, I64);
    let it = craft::int(&mut fbb, I64);
    let (pb, ib, db) = (
        fb::Buffer::new(pb.0, pb.1),
        fb::Buffer::new(ib.0, ib.1),
        fb::Buffer::new(db.0, db.1),
    );
    let csr = lg::SparseMatrixIndexCSR::create(
        &mut fbb,
        &lg::SparseMatrixIndexCSRArgs {
            indptrType: Some(pt),
            indptrBuffer: Some(&pb),
            indicesType: Some(it),
            indicesBuffer: Some(&ib),
        },
    );
    let (type_type, type_) = craft::vt(&mut fbb, Vt::Float(2));
    let shape = craft::dims(&mut fbb, &[6, 4], &[]);
    let t = lg::SparseTensor::create(
        &mut fbb,
        &lg::SparseTensorArgs {
            type_type,
            type_: Some(type_),
            shape: Some(shape),
            non_zero_length: 9,
            sparseIndex_type: lg::SparseTensorIndex::SparseMatrixIndexCSR,
            sparseIndex: Some(csr.as_union_value()),
            data: Some(&db),
        },
    );
    let m = lg::Message::create(
        &mut fbb,
        &lg::MessageArgs {
            version: fb::MetadataVersion::V4,
            header_type: lg::MessageHeader::SparseTensor,
            header: Some(t.as_union_value()),
            bodyLength: body.len(),
            custom_metadata: None,
        },
    );
    fbb.finish(m, None);
    let meta = fbb.finished_data().to_vec();
    // It is not a valid message of the current schema.
    assert!(flatbuffers::root::<fb::Message>(&meta).is_err());
    let bytes = craft::frame(&meta, &body.0, true, 8);
    let d = dec(&bytes);
    assert_eq!(d.version, MetadataVersion::V4);
    let t = sp(&d);
    let expected = SparseTensor::csr([6, 4], indptr.to_vec(), indices.to_vec(), values).unwrap();
    assert!(t.content_eq(&expected));
    assert!(t.to_dense().unwrap().content_eq(&m6x4_dense()));
    // Strictly validated like any CSR: the schema comment's indptr ending in 10 fails.
    let mut broken = bytes.clone();
    let at = d.body_offset + 6 * 8;
    broken[at..at + 8].copy_from_slice(&10i64.to_le_bytes());
    assert!(matches!(
        dec_err(&broken),
        ErrorKind::InvalidIndptr { value: 10, .. }
    ));
}

#[test]
fn upstream_hardening_checks() {
    // GH-50304: negative dims and nnz.
    let (mut s, body, _) = arrow_coo();
    s.shape = vec![3, -4, 5];
    assert!(matches!(
        dec_err(&arrow_sparse(&s, &body)),
        ErrorKind::Negative { .. }
    ));
    let (mut s, body, _) = arrow_coo();
    s.nnz = -3;
    assert!(matches!(
        dec_err(&arrow_sparse(&s, &body)),
        ErrorKind::Negative { .. }
    ));
    // GH-50054: COO nnz x ndim x width overflow (nnz over the limit first).
    let (mut s, body, _) = arrow_coo();
    s.nnz = i64::MAX / 2;
    let e = dec_err(&arrow_sparse(&s, &body));
    assert!(
        matches!(
            e,
            ErrorKind::LimitExceeded { .. } | ErrorKind::Overflow { .. }
        ),
        "{e}"
    );
    // GH-50077: CSX sizes near i64::MAX.
    let indptr = [0i64, 1];
    let mut b = ArrowBody::default();
    let ptr = b.push(&craft::ints(&indptr, 8));
    let idx = b.push(&craft::ints(&[0], 8));
    let data = b.push(&f64s(&[1.]));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(2),
        shape: vec![i64::MAX, i64::MAX],
        names: vec![],
        nnz: 1,
        index: Index::Csx {
            axis: 1,
            ptr_ty: I64,
            ptr,
            idx_ty: I64,
            idx,
        },
        data,
        body_len: b.len(),
        custom_metadata: false,
    };
    assert!(matches!(
        dec_err(&arrow_sparse(&s, &b.0)),
        ErrorKind::Overflow { .. }
    ));
    // GH-50161: CSF buffer counts against ndim.
    let bytes = arrow_csf(
        &[2, 3, 4],
        &[0, 1, 2],
        &[&[0, 1]],
        &[&[0], &[1], &[2]],
        &[1.],
        false,
    );
    assert!(matches!(dec_err(&bytes), ErrorKind::CountMismatch { .. }));
    // GH-50816: index bounds, indptr structure, axisOrder, values length.
    let bytes = coo_msg(&[2, 2], &[0, 2], Some(vec![16, 8]), false, &[1.]);
    assert!(matches!(
        dec_err(&bytes),
        ErrorKind::IndexOutOfBounds { .. }
    ));
    let bytes = arrow_csf(&[2, 3], &[0, 1], &[&[0, 2]], &[&[0], &[0]], &[1.], false);
    assert!(matches!(
        dec_err(&bytes),
        ErrorKind::CountMismatch { .. } | ErrorKind::InvalidIndptr { .. }
    ));
    let bytes = arrow_csf(&[2, 3], &[1, 1], &[&[0, 1]], &[&[0], &[0]], &[1.], false);
    assert!(matches!(dec_err(&bytes), ErrorKind::NotAPermutation(_)));
    let (mut s, body, _) = arrow_coo();
    s.data.1 = 8;
    assert!(matches!(
        dec_err(&arrow_sparse(&s, &body)),
        ErrorKind::BufferTooShort { .. }
    ));
}

// ---------------------------------------------------------------------------------------
// What we write
// ---------------------------------------------------------------------------------------

fn sample_messages() -> Vec<Message> {
    vec![
        Tensor::from_vec(vec![3], vec![1i8, 2, 3]).unwrap().into(),
        Tensor::from_vec(vec![2, 2], vec![1f64, 2., 3., 4.])
            .unwrap()
            .into(),
        SparseTensor::coo([3, 4], vec![0i16, 1, 2, 3], vec![1u8, 2])
            .unwrap()
            .into(),
        SparseTensor::csr([2, 3], vec![0i32, 1, 3], vec![2, 0, 1], vec![1f32, 2., 3.])
            .unwrap()
            .into(),
        SparseTensor::csc([2, 3], vec![0i8, 1, 2, 3], vec![1, 0, 1], vec![1u16, 2, 3])
            .unwrap()
            .into(),
        SparseTensor::csf(
            [2, 3, 4],
            vec![0, 1, 2],
            vec![vec![0i64, 2, 3], vec![0, 1, 2, 4]],
            vec![vec![0i64, 1], vec![0, 2, 1], vec![1, 3, 0, 2]],
            vec![1f32, 2., 3., 4.],
        )
        .unwrap()
        .into(),
    ]
}

#[test]
fn we_write_body_and_every_buffer_at_64_byte_offsets() {
    let mut stream = MessageWriter::new(Vec::new(), &WriteOptions::default());
    for msg in sample_messages() {
        let e = encode(&msg, &WriteOptions::default()).unwrap();
        assert_eq!(e.header().len() % 64, 0, "body at a 64-byte offset");
        assert_eq!(e.len() % 64, 0, "message length a multiple of 64");
        assert_eq!(e.body_length() % 64, 0);
        let bytes = e.to_vec();
        assert_eq!(bytes.len(), e.len());
        let m = written(&bytes);
        assert_eq!(m.bodyLength() as usize, e.body_length());
        let offsets = common::body_buffer_offsets(&m);
        assert!(offsets.iter().all(|o| o % 64 == 0), "{offsets:?}");
        assert!(
            offsets.windows(2).all(|w| w[0] < w[1]),
            "body order {offsets:?}"
        );
        let d = dec(&bytes);
        assert_eq!(d.body_offset, e.header().len());
        let at = stream.write(&msg).unwrap();
        assert_eq!(at % 64, 0);
    }
    let out = stream.finish().unwrap();
    let ms = read_iter(&out);
    assert_eq!(ms.len(), sample_messages().len());
    assert!(ms.iter().all(|m| m.offset % 64 == 0));
}

#[test]
fn we_write_csf_lengths_as_element_counts() {
    let Message::SparseTensor(t) = sample_messages().pop().unwrap() else {
        unreachable!()
    };
    let bytes = enc(t.clone());
    let m = written(&bytes);
    let csf = m
        .header_as_sparse_tensor()
        .unwrap()
        .sparseIndex_as_sparse_tensor_index_csf()
        .unwrap();
    let ptr: Vec<i64> = csf.indptrBuffers().iter().map(|b| b.length()).collect();
    let idx: Vec<i64> = csf.indicesBuffers().iter().map(|b| b.length()).collect();
    assert_eq!(ptr, vec![3, 4]);
    assert_eq!(idx, vec![2, 3, 4]);
    assert_eq!(csf.indptrType().bitWidth(), 64);
    assert_eq!(csf.axisOrder().iter().collect::<Vec<i32>>(), vec![0, 1, 2]);
    // The values buffer length is a byte length.
    assert_eq!(m.header_as_sparse_tensor().unwrap().data().length(), 16);
}

#[test]
fn we_write_coo_strides() {
    let row = SparseTensor::coo([3, 4, 5], vec![0i32, 1, 2, 1, 0, 4], vec![1f32, 2.]).unwrap();
    let col = SparseTensor::try_new(
        ValueType::Float32,
        vec![3, 4, 5],
        Buffer::from_vec(vec![1f32, 2.]),
        SparseIndex::Coo(
            CooIndex::with_order(
                IndexArray::from_vec(vec![0i32, 1, 1, 0, 2, 4]),
                3,
                CooOrder::ColumnMajor,
            )
            .unwrap(),
        ),
    )
    .unwrap();
    assert!(row.to_dense().unwrap().content_eq(&col.to_dense().unwrap()));
    // Arrow-compatible writing (the default) stores coordinates row-major, as Arrow C++
    // expands them whatever indicesStrides says; without it, the order is kept.
    let kept = WriteOptions::default().with_arrow_compatible(false);
    for (t, options, strides) in [
        (row.clone(), WriteOptions::default(), vec![12i64, 4]),
        (col.clone(), WriteOptions::default(), vec![12, 4]),
        (row, kept, vec![12, 4]),
        (col, kept, vec![4, 8]),
    ] {
        let bytes = encode(&t.clone().into(), &options)
            .expect("encode")
            .to_vec();
        let m = written(&bytes);
        let coo = m
            .header_as_sparse_tensor()
            .unwrap()
            .sparseIndex_as_sparse_tensor_index_coo()
            .unwrap();
        assert_eq!(
            coo.indicesStrides().unwrap().iter().collect::<Vec<_>>(),
            strides
        );
        assert!(sp(&dec(&bytes)).content_eq(&t));
    }
}

#[test]
fn we_write_compressed_axis() {
    let msgs = sample_messages();
    for (msg, axis) in [
        (&msgs[3], fb::SparseMatrixCompressedAxis::Row),
        (&msgs[4], fb::SparseMatrixCompressedAxis::Column),
    ] {
        let bytes = encode(msg, &WriteOptions::default()).unwrap().to_vec();
        let m = written(&bytes);
        let csx = m
            .header_as_sparse_tensor()
            .unwrap()
            .sparseIndex_as_sparse_matrix_index_csx()
            .unwrap();
        assert_eq!(csx.compressedAxis(), axis);
    }
}

#[test]
fn we_refuse_uint64_indices_unless_not_arrow_compatible() {
    let coo = SparseTensor::coo([3, 4], vec![0u64, 1], vec![1f32]).unwrap();
    let csr = SparseTensor::csr([2, 2], vec![0u64, 1, 1], vec![1], vec![1f32]).unwrap();
    let csf = SparseTensor::csf(
        [2, 2],
        vec![0, 1],
        vec![vec![0u64, 1]],
        vec![vec![1u64], vec![0]],
        vec![1f32],
    )
    .unwrap();
    let lenient = WriteOptions::default().with_arrow_compatible(false);
    for t in [coo, csr, csf] {
        let e = encode(&t.clone().into(), &WriteOptions::default()).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::NotArrowCompatible(_)), "{e}");
        let bytes = encode(&t.clone().into(), &lenient).unwrap().to_vec();
        assert!(sp(&dec(&bytes)).content_eq(&t));
    }
}

#[test]
fn we_refuse_int8_indices_with_more_than_127_entries() {
    let n = 200usize;
    let coords: Vec<i8> = (0..n)
        .flat_map(|i| [(i / 16) as i8, (i % 16) as i8])
        .collect();
    let coo = SparseTensor::coo([16, 16], coords, vec![1u8; n]).unwrap();
    // CSR with int8 indptr cannot even hold nnz = 200; int16 indptr and int8 indices can.
    let indptr: Vec<i16> = (0..=16).map(|r| (r * 16).min(n) as i16).collect();
    let indices: Vec<i16> = (0..n).map(|i| (i % 16) as i16).collect();
    let csr16 = SparseTensor::csr([16, 16], indptr.clone(), indices.clone(), vec![1u8; n]).unwrap();
    let csr = SparseTensor::try_new(
        ValueType::UInt8,
        vec![16, 16],
        Buffer::from_vec(vec![1u8; n]),
        SparseIndex::Csx(
            CsxIndex::new(
                CompressedAxis::Row,
                IndexArray::from_vec(indptr),
                IndexArray::from_vec(indices.iter().map(|&v| v as i8).collect::<Vec<_>>()),
            )
            .unwrap(),
        ),
    )
    .unwrap();
    // Exactly 127 entries is fine.
    let ok = SparseTensor::coo(
        [16, 16],
        (0..127usize)
            .flat_map(|i| [(i / 16) as i8, (i % 16) as i8])
            .collect(),
        vec![1u8; 127],
    )
    .unwrap();
    encode(&ok.into(), &WriteOptions::default()).unwrap();
    encode(&csr16.into(), &WriteOptions::default()).unwrap();
    let lenient = WriteOptions::default().with_arrow_compatible(false);
    for t in [coo, csr] {
        let e = encode(&t.clone().into(), &WriteOptions::default()).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::IndexTypeTooNarrow {
                    index_type: IndexType::Int8,
                    needed: 200,
                    ..
                }
            ),
            "{e}"
        );
        let bytes = encode(&t.clone().into(), &lenient).unwrap().to_vec();
        assert!(sp(&dec(&bytes)).content_eq(&t));
    }
}
