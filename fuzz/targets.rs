//! The bodies of the fuzz targets, shared by `fuzz/fuzz_targets/*.rs` (cargo-fuzz, nightly)
//! and `tests/fuzz_replay.rs` (stable `cargo test`, which replays every corpus file).
//!
//! A target panics only when the library breaks a promise: decoding panicked, a decoded
//! tensor's accessors failed in a way they must not, or a re-encoded message decodes to
//! different contents.

#![allow(dead_code)]

use arbitrary::{Arbitrary, Unstructured};
use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    decode_message, encode, CompressedAxis, CooIndex, CooOrder, CsfIndex, CsxIndex, IndexArray,
    IndexType, Limits, Message, MessageReader, ReadOptions, SparseIndex, SparseTensor, Tensor,
    Validation, ValueType, WriteOptions,
};

/// Largest dense expansion the targets attempt.
const DENSE_CAP: usize = 1 << 16;

fn small_limits() -> Limits {
    Limits::default()
        .with_max_metadata_len(1 << 16)
        .with_max_body_len(1 << 20)
        .with_max_rank(8)
        .with_max_nnz(1 << 16)
        .with_max_dense_elements(DENSE_CAP)
}

/// Decodes one message from arbitrary bytes, strictly and permissively, and exercises
/// whatever decodes.
pub fn decode_one(data: &[u8]) {
    let bytes = bytes::Bytes::copy_from_slice(data);
    for validation in [Validation::Strict, Validation::Permissive] {
        let options = ReadOptions::default()
            .with_validation(validation)
            .with_limits(small_limits());
        if let Ok(Some(decoded)) = decode_message(&bytes, &options) {
            assert!(decoded.total_length() <= data.len() as u64);
            exercise(&decoded.message, validation, data);
        }
    }
}

/// Reads a stream of messages through `MessageReader` with small limits.
pub fn read_stream(data: &[u8]) {
    for validation in [Validation::Strict, Validation::Permissive] {
        let options = ReadOptions::default()
            .with_validation(validation)
            .with_limits(small_limits());
        let mut reader = MessageReader::new(data, &options);
        let mut count = 0;
        for item in reader.by_ref() {
            match item {
                Ok(decoded) => exercise(&decoded.message, validation, data),
                Err(_) => break,
            }
            count += 1;
            assert!(count <= data.len(), "more messages than bytes");
        }
        assert!(reader.offset() <= data.len() as u64);
    }
}

/// Uses every accessor of a decoded tensor; re-encodes it and checks the round trip.
fn exercise(message: &Message, validation: Validation, seed: &[u8]) {
    let strict = validation == Validation::Strict;
    match message {
        Message::Tensor(t) => {
            let _ = t.iter().count();
            let probe: Vec<usize> = t
                .shape()
                .iter()
                .enumerate()
                .map(|(i, &d)| seed.get(i).map_or(0, |&b| b as usize) % d.max(1))
                .collect();
            if !t.is_empty() {
                t.get(&probe).expect("in-range lookup of a decoded tensor");
            }
            let _ = t.row_major_bytes();
            let again = encode(&message.clone(), &WriteOptions::default())
                .expect("re-encode a dense tensor");
            let back = decode_message(&again.to_bytes(), &ReadOptions::strict())
                .expect("decode what we wrote")
                .expect("a message");
            assert!(back.message.as_tensor().expect("dense").content_eq(t));
        }
        Message::SparseTensor(t) => {
            let _ = t.values_buffer();
            let _ = t.sparsity();
            let _ = t.total_elements();
            let iterated = t.iter().map(|it| it.count());
            if strict {
                assert_eq!(iterated.expect("iterate a validated tensor"), t.nnz());
            }
            let probe: Vec<usize> = t
                .shape()
                .iter()
                .enumerate()
                .map(|(i, &d)| seed.get(i).map_or(0, |&b| b as usize) % d.max(1))
                .collect();
            if !t.shape().contains(&0) {
                let got = t.get(&probe);
                if strict {
                    got.expect("lookup in a validated tensor");
                }
            }
            let dense = t.to_dense_with(
                &arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(DENSE_CAP),
            );
            if strict && t.total_elements().is_some_and(|n| n <= DENSE_CAP as u64) {
                dense.expect("expand a validated tensor");
            }
            let options = WriteOptions::default().with_arrow_compatible(false);
            let again = encode(message, &options).expect("re-encode a sparse tensor");
            let read = if strict {
                ReadOptions::strict()
            } else {
                ReadOptions::permissive()
            };
            let back = decode_message(&again.to_bytes(), &read)
                .expect("decode what we wrote")
                .expect("a message");
            let back = back.message.as_sparse().expect("sparse").clone();
            assert_eq!(back.shape(), t.shape());
            assert_eq!(back.nnz(), t.nnz());
            assert_eq!(
                back.values_buffer().as_slice(),
                t.values_buffer().as_slice()
            );
            if strict {
                assert!(back.content_eq(t) || coo_flag_recomputed(&back, t));
            }
        }
    }
}

/// A permissive COO flagged canonical but unsorted is re-encoded with the flag cleared;
/// anything else must round-trip exactly.
fn coo_flag_recomputed(a: &SparseTensor, b: &SparseTensor) -> bool {
    matches!((a.index(), b.index()), (SparseIndex::Coo(x), SparseIndex::Coo(y)) if x.indices() == y.indices())
}

/// A valid tensor of an arbitrary layout, value type and index type.
#[derive(Debug)]
struct Spec {
    value_type: ValueType,
    index_type: IndexType,
    shape: Vec<usize>,
    layout: u8,
    cells: Vec<bool>,
    seed: Vec<u8>,
    names: bool,
}

impl<'a> Arbitrary<'a> for Spec {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let value_type = *u.choose(&ValueType::ALL)?;
        let index_type = *u.choose(&IndexType::ALL)?;
        let rank = u.int_in_range(0..=4)?;
        let shape: Vec<usize> = (0..rank)
            .map(|_| u.int_in_range(0..=5))
            .collect::<Result<_, _>>()?;
        let total: usize = shape.iter().product();
        let cells = (0..total)
            .map(|_| u.ratio(1, 3))
            .collect::<Result<_, _>>()?;
        let seed_len = total * value_type.byte_width();
        let seed = (0..seed_len)
            .map(|_| u.arbitrary::<u8>())
            .collect::<Result<_, _>>()?;
        Ok(Spec {
            value_type,
            index_type,
            shape,
            layout: u.int_in_range(0..=5)?,
            cells,
            seed,
            names: u.arbitrary()?,
        })
    }
}

fn index_array(t: IndexType, values: &[usize]) -> IndexArray {
    let w = t.byte_width();
    let mut out = Vec::with_capacity(values.len() * w);
    for &v in values {
        out.extend_from_slice(&(v as u64).to_le_bytes()[..w]);
    }
    IndexArray::try_new(t, Buffer::from_vec(out)).expect("whole number of indices")
}

fn coords_of(shape: &[usize], mut lin: usize) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = lin % shape[d];
        lin /= shape[d];
    }
    c
}

/// Builds the tensor a spec describes, `None` when the index type cannot hold it.
fn build(spec: &Spec) -> Option<Message> {
    let w = spec.value_type.byte_width();
    let shape = &spec.shape;
    let ndim = shape.len();
    let max_index = shape
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
        .max(spec.cells.len()) as u64
        + 1;
    if max_index > spec.index_type.max_value() {
        return None;
    }
    let nz: Vec<usize> = (0..spec.cells.len()).filter(|&i| spec.cells[i]).collect();
    let values: Vec<u8> = nz
        .iter()
        .flat_map(|&i| spec.seed[i * w..(i + 1) * w].to_vec())
        .collect();
    let names: Vec<String> = (0..ndim)
        .map(|i| {
            if spec.names {
                format!("n{i}")
            } else {
                String::new()
            }
        })
        .collect();
    let coords: Vec<Vec<usize>> = nz.iter().map(|&i| coords_of(shape, i)).collect();
    let index = match spec.layout {
        0 => {
            let t = Tensor::try_new(
                spec.value_type,
                shape.clone(),
                arrow_tensor_ipc::row_major_strides(shape, w),
                Buffer::from_vec(spec.seed.clone()),
            )
            .ok()?;
            return Some(Message::Tensor(t.with_dim_names(names).ok()?));
        }
        1 | 2 => {
            let column = spec.layout == 2 && ndim > 0;
            let flat: Vec<usize> = if column {
                (0..ndim)
                    .flat_map(|d| coords.iter().map(move |c| c[d]))
                    .collect()
            } else {
                coords.iter().flatten().copied().collect()
            };
            let order = if column {
                CooOrder::ColumnMajor
            } else {
                CooOrder::RowMajor
            };
            if ndim == 0 {
                return None;
            }
            SparseIndex::Coo(
                CooIndex::with_order(index_array(spec.index_type, &flat), ndim, order).ok()?,
            )
        }
        3 | 4 if ndim == 2 => {
            let axis = (spec.layout - 3) as usize;
            let mut entries = coords.iter().zip(0..).collect::<Vec<_>>();
            entries.sort_by_key(|(c, _)| (c[axis], c[1 - axis]));
            let mut indptr = vec![0usize; shape[axis] + 1];
            for (c, _) in &entries {
                indptr[c[axis] + 1] += 1;
            }
            for i in 0..shape[axis] {
                indptr[i + 1] += indptr[i];
            }
            let indices: Vec<usize> = entries.iter().map(|(c, _)| c[1 - axis]).collect();
            let values: Vec<u8> = entries
                .iter()
                .flat_map(|(_, k)| values[k * w..(k + 1) * w].to_vec())
                .collect();
            let ax = if axis == 0 {
                CompressedAxis::Row
            } else {
                CompressedAxis::Column
            };
            let index = CsxIndex::new(
                ax,
                index_array(spec.index_type, &indptr),
                index_array(spec.index_type, &indices),
            )
            .unwrap();
            let t = SparseTensor::try_new(
                spec.value_type,
                shape.clone(),
                Buffer::from_vec(values),
                SparseIndex::Csx(index),
            )
            .ok()?;
            return Some(Message::SparseTensor(t.with_dim_names(names).ok()?));
        }
        5 if ndim >= 2 => {
            // Identity axis order; coordinates are already sorted row-major.
            let n = ndim;
            let mut indices: Vec<Vec<usize>> = vec![Vec::new(); n];
            let mut children: Vec<Vec<usize>> = vec![Vec::new(); n - 1];
            let mut prev: Option<&Vec<usize>> = None;
            for c in &coords {
                let start = prev.map_or(0, |p| (0..n).find(|&l| p[l] != c[l]).unwrap_or(n));
                for l in start..n {
                    indices[l].push(c[l]);
                    if l + 1 < n {
                        children[l].push(0);
                    }
                    if l > 0 {
                        if let Some(k) = children[l - 1].last_mut() {
                            *k += 1;
                        }
                    }
                }
                prev = Some(c);
            }
            let indptr: Vec<Vec<usize>> = children
                .iter()
                .map(|ch| {
                    let mut acc = 0;
                    std::iter::once(0)
                        .chain(ch.iter().map(|k| {
                            acc += k;
                            acc
                        }))
                        .collect()
                })
                .collect();
            SparseIndex::Csf(
                CsfIndex::new(
                    (0..n).collect(),
                    indptr
                        .iter()
                        .map(|p| index_array(spec.index_type, p))
                        .collect(),
                    indices
                        .iter()
                        .map(|p| index_array(spec.index_type, p))
                        .collect(),
                )
                .unwrap(),
            )
        }
        _ => return None,
    };
    let t = SparseTensor::try_new(
        spec.value_type,
        shape.clone(),
        Buffer::from_vec(values),
        index,
    )
    .ok()?;
    Some(Message::SparseTensor(t.with_dim_names(names).ok()?))
}

/// Structure-aware round trip: arbitrary valid tensor -> encode -> decode -> equal
/// (`content_eq`, which compares COO coordinates by value whatever their order).
pub fn roundtrip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(spec) = Spec::arbitrary(&mut u) else {
        return;
    };
    let Some(message) = build(&spec) else { return };
    // Arrow-compatible encoding (which writes column-major COO coordinates transposed to
    // row-major) for every index type Arrow reads, on one input bit.
    let arrow = data.first().is_some_and(|b| b & 2 == 2) && spec.index_type.arrow_readable();
    let options = WriteOptions::default()
        .with_arrow_compatible(arrow)
        .with_csf_lengths(if data.first().is_some_and(|b| b & 1 == 1) {
            arrow_tensor_ipc::CsfLengths::Bytes
        } else {
            arrow_tensor_ipc::CsfLengths::Elements
        });
    let encoded = encode(&message, &options).expect("encode a valid tensor");
    assert_eq!(encoded.len() % 64, 0);
    let decoded = decode_message(&encoded.to_bytes(), &ReadOptions::strict())
        .expect("decode what we wrote")
        .expect("a message");
    match (&message, &decoded.message) {
        (Message::Tensor(a), Message::Tensor(b)) => assert!(a.content_eq(b)),
        (Message::SparseTensor(a), Message::SparseTensor(b)) => {
            assert!(a.content_eq(b), "{a:?}\n{b:?}");
            let (x, y) = (a.to_dense().expect("dense"), b.to_dense().expect("dense"));
            assert!(x.content_eq(&y));
        }
        _ => panic!("the kind changed"),
    }
}
