//! Helpers shared by the hostile-input suites (`tests/malformed.rs`, `tests/limits.rs`,
//! `tests/validation`, `tests/wire_facts.rs`): the flatbuffer [`craft`] module that builds
//! messages no encoder of ours would write, small valid base messages, and decoding helpers
//! that run every reader (`decode_message`, `MessageIter`, `MessageReader`, `StreamDecoder`
//! fed whole, byte by byte and in random chunks) over the same bytes.
#![allow(dead_code)]

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    decode_message, encode, DecodedMessage, ErrorKind, Message, MessageIter, MessageReader,
    ReadOptions, StreamDecoder, Validation, WriteOptions,
};

pub mod craft;
pub mod seeds;

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
    seeds::record(bytes);
    decode_message(&aligned(bytes), &options).map(|m| m.expect("a message, not end of stream"))
}

/// Reads the first message with `MessageReader`.
pub fn read(bytes: &[u8], options: ReadOptions) -> arrow_tensor_ipc::Result<DecodedMessage> {
    MessageReader::new(bytes, &options)
        .next()
        .expect("a message, not end of stream")
}

/// Reads the first message with `MessageIter` (over an aligned copy).
pub fn iter_first(bytes: &[u8], options: ReadOptions) -> arrow_tensor_ipc::Result<DecodedMessage> {
    MessageIter::new(Buffer::from_slice_ref(bytes), &options)
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
    let mut d = StreamDecoder::new(&options);
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
    let mut d = StreamDecoder::new(&options);
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
/// `for_each_stored` and `to_dense_with` return errors, `get` on every cell and `value`
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
        .to_dense_with(
            &arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(DENSE_LIMIT),
        )
        .expect_err("to_dense_with of bad index data must fail");
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

/// Body offsets of every buffer of a message, in body order (dense: data; COO: indices,
/// values; CSX: indptr, indices, values; CSF: every indptr, every indices, values), read
/// from its metadata.
pub fn body_buffer_offsets(m: &arrow_tensor_ipc::__private::flatbuf::Message<'_>) -> Vec<i64> {
    if let Some(t) = m.header_as_tensor() {
        return vec![t.data().offset()];
    }
    let t = m
        .header_as_sparse_tensor()
        .expect("a Tensor or SparseTensor message");
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
    out
}
