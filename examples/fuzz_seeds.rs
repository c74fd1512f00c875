//! Writes the seed corpora of the fuzz targets: valid messages of every layout, value type
//! and index type, several messages per stream, legacy framing, and the Arrow 0.15 sparse
//! schema.
//!
//! ```sh
//! cargo run --example fuzz_seeds -- fuzz/corpus
//! ```

use arrow_buffer::Buffer;
use arrow_tensor_ipc::__private::flatbuf as fb;
use arrow_tensor_ipc::__private::legacy_015 as legacy;
use arrow_tensor_ipc::{
    encode, CompressedAxis, CooIndex, CooOrder, CsfIndex, CsxIndex, IndexArray, IndexType, Message,
    SparseIndex, SparseTensor, Tensor, ValueType, WriteOptions,
};
use std::path::{Path, PathBuf};

fn index_array(t: IndexType, values: &[usize]) -> IndexArray {
    let w = t.byte_width();
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|&v| (v as u64).to_le_bytes()[..w].to_vec())
        .collect();
    IndexArray::try_new(t, Buffer::from_vec(bytes)).unwrap()
}

fn values(t: ValueType, n: usize) -> Buffer {
    Buffer::from_vec(
        (0..n * t.byte_width())
            .map(|i| (i * 37 % 251) as u8 | 1)
            .collect::<Vec<u8>>(),
    )
}

/// One tensor of each layout for a value type and an index type.
fn samples(vt: ValueType, it: IndexType) -> Vec<Message> {
    let mut out = Vec::new();
    let dense = Tensor::try_new(
        vt,
        vec![2, 3],
        arrow_tensor_ipc::row_major_strides(&[2, 3], vt.byte_width()),
        values(vt, 6),
    )
    .unwrap();
    out.push(Message::Tensor(dense.with_dim_names(["a", ""]).unwrap()));
    // The Arrow schema's COO example (2x3x4x5, 6 non-zeros), row- and column-major.
    let coords = [
        [0, 1, 2, 0],
        [0, 1, 2, 1],
        [0, 1, 3, 0],
        [0, 2, 1, 0],
        [1, 1, 2, 3],
        [1, 2, 0, 4],
    ];
    let flat: Vec<usize> = coords.iter().flatten().copied().collect();
    let coo = CooIndex::new(index_array(it, &flat), 4).unwrap();
    out.push(Message::SparseTensor(
        SparseTensor::try_new(vt, vec![2, 3, 4, 5], values(vt, 6), SparseIndex::Coo(coo)).unwrap(),
    ));
    let col: Vec<usize> = (0..4)
        .flat_map(|d| coords.iter().map(move |c| c[d]))
        .collect();
    let coo = CooIndex::with_order(index_array(it, &col), 4, CooOrder::ColumnMajor).unwrap();
    out.push(Message::SparseTensor(
        SparseTensor::try_new(vt, vec![2, 3, 4, 5], values(vt, 6), SparseIndex::Coo(coo)).unwrap(),
    ));
    // The 6x4 CSR example and its transpose as CSC.
    for axis in [CompressedAxis::Row, CompressedAxis::Column] {
        let (shape, indptr, indices): (Vec<usize>, Vec<usize>, Vec<usize>) = match axis {
            CompressedAxis::Row => (
                vec![6, 4],
                vec![0, 2, 3, 5, 5, 8, 9],
                vec![1, 2, 2, 1, 3, 0, 2, 3, 1],
            ),
            CompressedAxis::Column => (
                vec![4, 6],
                vec![0, 2, 3, 5, 5, 8, 9],
                vec![1, 2, 2, 1, 3, 0, 2, 3, 1],
            ),
        };
        let csx = CsxIndex::new(axis, index_array(it, &indptr), index_array(it, &indices)).unwrap();
        out.push(Message::SparseTensor(
            SparseTensor::try_new(vt, shape, values(vt, 9), SparseIndex::Csx(csx)).unwrap(),
        ));
    }
    // The seed CSF example (2x3x4, 4 non-zeros), identity and reversed axis order.
    for (order, indptr, indices) in [
        (
            vec![0, 1, 2],
            vec![vec![0, 2, 3], vec![0, 1, 2, 4]],
            vec![vec![0, 1], vec![0, 2, 1], vec![1, 3, 0, 2]],
        ),
        (
            vec![2, 1, 0],
            vec![vec![0, 1, 2, 3, 4], vec![0, 1, 2, 3, 4]],
            vec![vec![0, 1, 2, 3], vec![1, 0, 1, 2], vec![1, 0, 0, 1]],
        ),
    ] {
        let csf = CsfIndex::new(
            order,
            indptr.iter().map(|p| index_array(it, p)).collect(),
            indices.iter().map(|p| index_array(it, p)).collect(),
        )
        .unwrap();
        match SparseTensor::try_new(vt, vec![2, 3, 4], values(vt, 4), SparseIndex::Csf(csf)) {
            Ok(t) => out.push(Message::SparseTensor(t)),
            Err(e) => panic!("seed CSF: {e}"),
        }
    }
    out
}

/// An Arrow 0.15 CSR message (no compressedAxis), V4, with legacy framing.
fn legacy_csr() -> Vec<u8> {
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let args = |bits: i32| fb::IntArgs {
        bitWidth: bits,
        is_signed: true,
    };
    let it = fb::Int::create(&mut fbb, &args(64));
    let pt = fb::Int::create(&mut fbb, &args(64));
    let (ptr, idx) = (fb::Buffer::new(0, 24), fb::Buffer::new(24, 16));
    let csr = legacy::SparseMatrixIndexCSR::create(
        &mut fbb,
        &legacy::SparseMatrixIndexCSRArgs {
            indptrType: Some(pt),
            indptrBuffer: Some(&ptr),
            indicesType: Some(it),
            indicesBuffer: Some(&idx),
        },
    );
    let vt = fb::Int::create(&mut fbb, &args(32));
    let dims: Vec<_> = [2i64, 3]
        .iter()
        .map(|&d| {
            fb::TensorDim::create(
                &mut fbb,
                &fb::TensorDimArgs {
                    size_: d,
                    name: None,
                },
            )
        })
        .collect();
    let shape = fbb.create_vector(&dims);
    let data = fb::Buffer::new(40, 8);
    let st = legacy::SparseTensor::create(
        &mut fbb,
        &legacy::SparseTensorArgs {
            type_type: fb::Type::Int,
            type_: Some(vt.as_union_value()),
            shape: Some(shape),
            non_zero_length: 2,
            sparseIndex_type: legacy::SparseTensorIndex::SparseMatrixIndexCSR,
            sparseIndex: Some(csr.as_union_value()),
            data: Some(&data),
        },
    );
    let msg = legacy::Message::create(
        &mut fbb,
        &legacy::MessageArgs {
            version: fb::MetadataVersion::V4,
            header_type: legacy::MessageHeader::SparseTensor,
            header: Some(st.as_union_value()),
            bodyLength: 48,
            custom_metadata: None,
        },
    );
    fbb.finish(msg, None);
    let meta = fbb.finished_data();
    let padded = (meta.len() + 4).div_ceil(8) * 8 - 4;
    let mut out = (padded as i32).to_le_bytes().to_vec();
    out.extend_from_slice(meta);
    out.resize(4 + padded, 0);
    for v in [0i64, 1, 2, 1, 2] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&[7, 0, 0, 0, 9, 0, 0, 0]);
    out
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn main() {
    let root = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "fuzz/corpus".into()),
    );
    let options = WriteOptions::default();
    let mut count = 0;
    let mut stream = Vec::new();
    for (k, vt) in ValueType::ALL.into_iter().enumerate() {
        // Every index type appears with some value type; uint64 needs a non-Arrow message.
        let it = IndexType::ALL[k % IndexType::ALL.len()];
        let opts = options.with_arrow_compatible(it.arrow_readable());
        for (j, m) in samples(vt, it).into_iter().enumerate() {
            let bytes = encode(&m, &opts).unwrap().to_vec();
            write(
                &root.join("decode_one"),
                &format!("{}-{}-{j}", vt.name(), it.name()),
                &bytes,
            );
            if j < 2 {
                stream.extend_from_slice(&bytes);
            }
            count += 1;
        }
    }
    let legacy = legacy_csr();
    write(&root.join("decode_one"), "legacy-0.15-csr", &legacy);
    let mut with_eos = stream.clone();
    with_eos.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    write(&root.join("read_stream"), "all-layouts-eos", &with_eos);
    let mut legacy_stream = legacy.clone();
    legacy_stream.extend_from_slice(&legacy);
    legacy_stream.extend_from_slice(&[0, 0, 0, 0]);
    write(
        &root.join("read_stream"),
        "legacy-framing-eos",
        &legacy_stream,
    );
    for i in 0..16u8 {
        let seed: Vec<u8> = (0..64u32)
            .map(|j| (j as u8).wrapping_mul(31).wrapping_add(i.wrapping_mul(17)))
            .collect();
        write(&root.join("roundtrip"), &format!("seed-{i:02}"), &seed);
    }
    println!(
        "wrote {count} messages plus streams and round-trip seeds under {}",
        root.display()
    );
}
