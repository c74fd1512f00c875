//! One test per validation rule: each breaks exactly that rule and checks the specific
//! [`ErrorKind`], through the constructors, through decoding a message whose body was patched
//! after encoding, and through messages crafted with the flatbuffer builder. Permissive
//! reading of the same broken messages must succeed, and using the result must return errors
//! (never panic). Metadata rules that do not belong to one layout (framing, versions, unions,
//! value and index types, buffers outside the body, overlaps, alignment) are the subject of
//! `tests/malformed.rs`.
//!
//! One module per section; the crafting helpers are shared with the other hostile-input
//! suites (`tests/common`).

use arrow_buffer::Buffer;
use arrow_tensor_ipc::__private::flatbuf as fb;
use arrow_tensor_ipc::{
    decode_message, encode, BufferId, CompressedAxis, CooIndex, CsfIndex, CsxIndex, DecodedMessage,
    ErrorKind, IndexArray, IndexType, Message, ReadOptions, Scalar, SparseIndex, SparseTensor,
    Tensor, ValueType, WriteOptions,
};

#[path = "../common/mod.rs"]
mod common;

mod blocks;
mod coo;
mod csf;
mod csx;
mod dense;
mod permissive;
mod values;

use common::craft::{self, Index, Vt, I32};
use common::{crafted_coo, crafted_csf, crafted_csr, crafted_dense, dense_msg, sparse_msg};

fn enc(m: impl Into<Message>) -> Vec<u8> {
    encode(&m.into(), &WriteOptions::default())
        .expect("encode")
        .to_vec()
}

fn dec(bytes: &[u8], options: ReadOptions) -> arrow_tensor_ipc::Result<DecodedMessage> {
    common::seeds::record(bytes);
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
    assert!(
        msg.header_as_sparse_tensor().is_some(),
        "a sparse tensor message"
    );
    let out: Vec<usize> = common::body_buffer_offsets(&msg)
        .into_iter()
        .map(|o| o as usize)
        .collect();
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
    let t = SparseTensor::coo([3, 4], vec![0i32, 1, 1, 2, 2, 3], vec![1f32, 2., 3.]).unwrap();
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
        [2, 3, 4],
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
