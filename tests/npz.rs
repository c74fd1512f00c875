//! scipy sparse `.npz` bundles: `scipy.sparse.save_npz` files read to the same values, ours
//! read back by `scipy.sparse.load_npz`, round trips, and malformed archives (typed errors
//! naming the member, no panics).
//!
//! The scipy side is `examples/common/numpy_npz.py`, run by the venv's python (a missing
//! venv fails the tests: run `scripts/venv.sh`).

use arrow_buffer::Buffer;
use arrow_tensor_ipc::formats::{npy, npz};
use arrow_tensor_ipc::{
    ConvertOptions, ErrorKind, IndexType, Limits, Location, SparseFormat, SparseTensor, Tensor,
    ValueType,
};
use npyz::zip;
use proptest::prelude::*;
use serde_json::Value;
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

#[path = "common/venv.rs"]
mod venv;
use venv::hex;

fn scratch(name: &str) -> PathBuf {
    venv::scratch("interop/npz", name)
}

fn helper(mode: &str, dir: &Path) -> Value {
    venv::run_json("examples/common/numpy_npz.py", mode, dir)
}

fn format_name(f: SparseFormat) -> &'static str {
    match f {
        SparseFormat::Coo => "coo",
        SparseFormat::Csr => "csr",
        SparseFormat::Csc => "csc",
        SparseFormat::Csf => "csf",
    }
}

fn index_type(t: &SparseTensor) -> IndexType {
    match t.index() {
        arrow_tensor_ipc::SparseIndex::Coo(c) => c.indices().index_type(),
        arrow_tensor_ipc::SparseIndex::Csx(c) => c.indices().index_type(),
        arrow_tensor_ipc::SparseIndex::Csf(c) => c.indices()[0].index_type(),
    }
}

#[test]
fn scipy_files_read_to_the_same_values() {
    let dir = scratch("from-scipy");
    let summary = helper("write-npz", &dir);
    let manifest: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(summary["files"].as_u64().unwrap() as usize, manifest.len());
    // (10 dtypes + 4 special matrices) x 3 formats x 2 kinds x 2 index types x 2, + f16.
    assert_eq!(manifest.len(), 14 * 3 * 2 * 2 * 2 + 1);
    for it in ["int32", "int64"] {
        for f in ["csr", "csc", "coo"] {
            assert!(
                manifest
                    .iter()
                    .any(|m| m["index"] == it && m["format"] == f),
                "no {f} file with {it} indices"
            );
        }
    }
    for m in &manifest {
        let file = m["file"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let t = read_sparse(bytes, &Limits::default()).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            format_name(t.format()),
            m["format"].as_str().unwrap(),
            "{file}"
        );
        assert_eq!(
            t.value_type().name(),
            m["dtype"].as_str().unwrap(),
            "{file}"
        );
        assert_eq!(
            index_type(&t).name(),
            m["index"].as_str().unwrap(),
            "{file}"
        );
        let shape: Vec<usize> = m["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(t.shape(), &shape[..], "{file}");
        assert_eq!(t.nnz() as u64, m["nnz"].as_u64().unwrap(), "{file}");
        let dense = t.to_dense().unwrap();
        assert_eq!(
            hex(dense.row_major_bytes().as_slice()),
            m["hex"].as_str().unwrap(),
            "{file}"
        );
    }
}

/// Sparse tensors of every value type, three layouts, two index types, several shapes.
fn samples() -> Vec<(String, SparseTensor)> {
    let mut out = Vec::new();
    let shapes: [[usize; 2]; 4] = [[5, 7], [0, 0], [3, 4], [1, 1]];
    for vt in ValueType::ALL {
        if vt == ValueType::Float16 {
            // scipy.sparse has no float16.
            continue;
        }
        for (si, shape) in shapes.iter().enumerate() {
            let n = shape[0] * shape[1];
            let w = vt.byte_width();
            // Every third element non-zero (its first byte), the rest zero.
            let mut data = vec![0u8; n * w];
            for k in (0..n).step_by(3) {
                data[k * w] = (k as u8).wrapping_mul(13) | 1;
            }
            if si == 2 {
                data.iter_mut().for_each(|b| *b = 0);
            }
            let dense = Tensor::try_new(
                vt,
                shape,
                arrow_tensor_ipc::row_major_strides(shape, w),
                Buffer::from_vec(data),
            )
            .unwrap();
            for format in [SparseFormat::Coo, SparseFormat::Csr, SparseFormat::Csc] {
                for it in [IndexType::Int32, IndexType::Int64] {
                    let options = ConvertOptions::default().with_index_type(it);
                    let t = dense.to_sparse_with(format, &options).unwrap();
                    out.push((
                        format!(
                            "{}_{}_{si}_{}.npz",
                            format_name(format),
                            vt.name(),
                            it.name()
                        ),
                        t,
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn our_files_read_in_scipy() {
    let dir = scratch("to-scipy");
    let mut manifest = Vec::new();
    for (name, t) in samples() {
        for compressed in [false, true] {
            let mut file = Cursor::new(Vec::new());
            write_sparse(
                &t,
                &mut file,
                &npz::NpzWriteOptions::default().with_compressed(compressed),
            )
            .unwrap();
            let name = format!("{}{name}", if compressed { "z_" } else { "s_" });
            std::fs::write(dir.join(&name), file.get_ref()).unwrap();
            manifest.push(serde_json::json!({
                "file": name,
                "format": format_name(t.format()),
                "dtype": t.value_type().name(),
                "shape": t.shape(),
                "nnz": t.nnz(),
                "hex": hex(t.to_dense().unwrap().row_major_bytes().as_slice()),
            }));
        }
    }
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
    let result = helper("check-npz", &dir);
    assert_eq!(result["checked"].as_u64().unwrap() as usize, manifest.len());
    assert_eq!(result["bad"], serde_json::json!([]), "{result}");
}

fn round_trip_one(t: &SparseTensor, compressed: bool) -> SparseTensor {
    let mut file = Cursor::new(Vec::new());
    write_sparse(
        t,
        &mut file,
        &npz::NpzWriteOptions::default().with_compressed(compressed),
    )
    .unwrap();
    read_sparse(file.into_inner(), &Limits::default()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip(
        ti in 0usize..11,
        rows in 0usize..6,
        cols in 0usize..6,
        mask in any::<u64>(),
        fi in 0usize..3,
        wide: bool,
        compressed: bool,
    ) {
        let vt = ValueType::ALL[ti];
        let w = vt.byte_width();
        let n = rows * cols;
        let mut data = vec![0u8; n * w];
        for k in 0..n {
            if mask >> (k % 64) & 1 == 1 {
                data[k * w] = (k as u8) | 1;
            }
        }
        let dense = Tensor::try_new(
            vt, vec![rows, cols], arrow_tensor_ipc::row_major_strides(&[rows, cols], w),
            Buffer::from_vec(data),
        ).unwrap();
        let format = [SparseFormat::Coo, SparseFormat::Csr, SparseFormat::Csc][fi];
        let it = if wide { IndexType::Int64 } else { IndexType::Int32 };
        let t = dense.to_sparse_with(format, &ConvertOptions::default().with_index_type(it)).unwrap();
        let back = round_trip_one(&t, compressed);
        prop_assert_eq!(back.format(), t.format());
        prop_assert_eq!(index_type(&back), it);
        prop_assert!(back.to_dense().unwrap().content_eq(&dense));
        if format != SparseFormat::Coo {
            prop_assert!(back.content_eq(&t));
        }
    }

    #[test]
    fn mutated_archives_never_panic(
        si in any::<prop::sample::Index>(),
        compressed: bool,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        truncate: bool,
    ) {
        let samples = samples();
        let (_, t) = &samples[si.index(samples.len())];
        let mut file = Cursor::new(Vec::new());
        write_sparse(t, &mut file, &npz::NpzWriteOptions::default().with_compressed(compressed)).unwrap();
        let mut bytes = file.into_inner();
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        let _ = read_sparse(bytes, &Limits::default().with_max_body_len(1 << 24));
    }
}

#[test]
fn coo_layouts_and_rank_errors() {
    // An unsorted row-major COO index comes back (column-major, as scipy stores it).
    let coo = SparseTensor::coo([3, 3], vec![2i32, 1, 0, 0, 1, 2], vec![1.0f32, 2.0, 3.0]).unwrap();
    let back = round_trip_one(&coo, false);
    assert_eq!(back.nnz(), 3);
    assert!(back
        .to_dense()
        .unwrap()
        .content_eq(&coo.to_dense().unwrap()));
    // Duplicates (scipy allows them) are kept and summed by to_dense.
    let dup = archive(&[
        ("row.npy", npy(vec![3], vec![1i32, 0, 1])),
        ("col.npy", npy(vec![3], vec![2i32, 0, 2])),
        ("format.npy", string_npy("coo")),
        ("shape.npy", npy(vec![2], vec![2i64, 3])),
        ("data.npy", npy(vec![3], vec![1i64, 2, 40])),
    ]);
    let t = read(dup).unwrap();
    assert_eq!(t.nnz(), 3);
    assert_eq!(
        t.to_dense().unwrap().to_vec::<i64>().unwrap(),
        vec![2, 0, 0, 0, 0, 41]
    );
    // CSF and rank 3 are refused.
    let coo3 = SparseTensor::coo([2, 2, 2], vec![0i64, 1, 1], vec![5i16]).unwrap();
    let e = write_sparse(
        &coo3,
        Cursor::new(Vec::new()),
        &npz::NpzWriteOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidRank { .. }), "{e}");
    // A CSF matrix (rank 2) is refused for its layout.
    let coo2 = SparseTensor::coo([2, 2], vec![0i64, 1], vec![5i16]).unwrap();
    let csf = coo2
        .to_format_with(SparseFormat::Csf, &ConvertOptions::default())
        .unwrap();
    let e = write_sparse(
        &csf,
        Cursor::new(Vec::new()),
        &npz::NpzWriteOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::UnsupportedLayout { .. }),
        "{e}"
    );
}

/// An archive of the given members (name, `.npy` bytes), stored.
fn archive(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in members {
        zip.start_file(
            *name,
            zip::write::FileOptions::default().compression_method(zip::CompressionMethod::Stored),
        )
        .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn npy<T: arrow_tensor_ipc::NativeValue>(shape: Vec<usize>, v: Vec<T>) -> Vec<u8> {
    let mut out = Vec::new();
    npy::write(
        &[Message::from(Tensor::from_vec(shape, v).unwrap())],
        &mut out,
        &npy::NpyWriteOptions::default(),
    )
    .unwrap();
    out
}

fn string_npy(s: &str) -> Vec<u8> {
    let header = format!(
        "{{'descr': '|S{}', 'fortran_order': False, 'shape': (), }}\n",
        s.len()
    );
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(s.as_bytes());
    out
}

/// The members of a valid 2 x 3 CSR.
fn csr_members() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("indices.npy", npy(vec![3], vec![0i32, 2, 1])),
        ("indptr.npy", npy(vec![3], vec![0i32, 2, 3])),
        ("format.npy", string_npy("csr")),
        ("shape.npy", npy(vec![2], vec![2i64, 3])),
        ("data.npy", npy(vec![3], vec![1.0f64, 2.0, 3.0])),
    ]
}

fn member_of(e: &arrow_tensor_ipc::Error) -> String {
    match e.kind() {
        ErrorKind::Parse {
            format: "npz",
            location: Location::Member(m),
            ..
        } => m.clone(),
        other => panic!("expected a Parse error naming a member, got {other:?}"),
    }
}

fn read(bytes: Vec<u8>) -> arrow_tensor_ipc::Result<SparseTensor> {
    read_sparse(bytes, &Limits::default())
}

#[test]
fn malformed_archives_are_typed_errors() {
    let t = read(archive(&csr_members())).unwrap();
    assert_eq!(t.format(), SparseFormat::Csr);

    // Not a zip.
    let e = read(b"PK not really a zip archive".to_vec()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Parse {
                location: Location::File,
                ..
            }
        ),
        "{e}"
    );
    let e = read(npy(vec![2], vec![1u8, 2])).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::Parse {
            location: Location::File,
            ..
        }
    ));

    // Each member missing in turn (without format.npy the archive is a bundle of named
    // arrays: its members are read as dense arrays, see below).
    for missing in ["indices.npy", "indptr.npy", "shape.npy", "data.npy"] {
        let members: Vec<_> = csr_members()
            .into_iter()
            .filter(|(n, _)| *n != missing)
            .collect();
        let e = read(archive(&members)).unwrap_err();
        assert_eq!(member_of(&e), missing, "{e}");
        assert!(e.to_string().contains("missing"), "{e}");
    }
    let members: Vec<_> = csr_members()
        .into_iter()
        .filter(|(n, _)| *n != "format.npy")
        .collect();
    let arrays = read_all(archive(&members), &Limits::default()).unwrap();
    assert_eq!(arrays.len(), members.len());
    assert!(arrays.iter().all(|m| m.as_tensor().is_some()));
    let coo_missing = archive(&[
        ("row.npy", npy(vec![1], vec![0i32])),
        ("format.npy", string_npy("coo")),
        ("shape.npy", npy(vec![2], vec![2i64, 3])),
        ("data.npy", npy(vec![1], vec![1.0f64])),
    ]);
    assert_eq!(member_of(&read(coo_missing).unwrap_err()), "col.npy");

    let replace = |name: &str, bytes: Vec<u8>| {
        let members: Vec<_> = csr_members()
            .into_iter()
            .map(|(n, b)| {
                if n == name {
                    (n, bytes.clone())
                } else {
                    (n, b)
                }
            })
            .collect();
        read(archive(&members))
    };
    // Wrong dtypes, ranks, formats.
    for (name, bytes) in [
        ("indices.npy", npy(vec![3], vec![0.0f32, 2.0, 1.0])),
        ("indices.npy", npy(vec![3], vec![0i64, 2, 1])),
        ("shape.npy", npy(vec![2], vec![2.0f64, 3.0])),
        ("shape.npy", npy(vec![2], vec![-2i64, 3])),
        ("shape.npy", npy(vec![3], vec![2i64, 3, 1])),
        ("data.npy", npy(vec![3, 1], vec![1.0f64, 2.0, 3.0])),
        ("format.npy", string_npy("bsr")),
        ("format.npy", string_npy("dia")),
        ("format.npy", string_npy("xyz")),
        ("indices.npy", b"\x93NUMPY garbage".to_vec()),
        ("data.npy", string_npy("abc")),
    ] {
        let e = replace(name, bytes).unwrap_err();
        assert_eq!(member_of(&e), name, "{e}");
    }
    // Inconsistent indptr / indices: the crate's validation reports it.
    let e = replace("indptr.npy", npy(vec![3], vec![0i32, 3, 2])).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InvalidIndptr { .. }
                | ErrorKind::CountMismatch { .. }
                | ErrorKind::BufferTooShort { .. }
        ),
        "{e}"
    );
    let e = replace("indices.npy", npy(vec![3], vec![0i32, 7, 1])).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::IndexOutOfBounds { .. }),
        "{e}"
    );
    let e = replace("indptr.npy", npy(vec![2], vec![0i32, 3])).unwrap_err();
    assert!(!matches!(e.kind(), ErrorKind::Parse { .. }), "{e}");

    // Limits: nnz and member size.
    let e = read_sparse(archive(&csr_members()), &Limits::default().with_max_nnz(2)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    let e = read_sparse(
        archive(&csr_members()),
        &Limits::default().with_max_body_len(100),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
}

/// Rewrites the declared uncompressed size of every entry of a stored archive.
fn lie_about_sizes(mut bytes: Vec<u8>, size: u32) -> Vec<u8> {
    // Central directory headers: signature PK\x01\x02, uncompressed size at offset 24;
    // local headers: PK\x03\x04, uncompressed size at offset 22.
    let mut i = 0;
    while i + 30 <= bytes.len() {
        if bytes[i..i + 4] == *b"PK\x01\x02" {
            bytes[i + 24..i + 28].copy_from_slice(&size.to_le_bytes());
        } else if bytes[i..i + 4] == *b"PK\x03\x04" {
            bytes[i + 22..i + 26].copy_from_slice(&size.to_le_bytes());
        }
        i += 1;
    }
    bytes
}

#[test]
fn lying_and_huge_member_sizes_are_refused_before_reading() {
    // Declared sizes of 4 GB on a tiny archive: refused, nothing allocated for them.
    let e = read(lie_about_sizes(archive(&csr_members()), u32::MAX - 1)).unwrap_err();
    assert!(e.to_string().contains("declared size"), "{e}");
    member_of(&e);
    // A flipped data byte of a stored member: its CRC-32 no longer matches.
    let mut flipped = archive(&csr_members());
    let at = flipped
        .windows(8)
        .position(|w| w == 3.0f64.to_le_bytes())
        .unwrap();
    flipped[at + 7] ^= 0x01;
    let e = read(flipped).unwrap_err();
    assert_eq!(member_of(&e), "data.npy", "{e}");
    // A declared size smaller than the data: the bounded read finds it out.
    let e = read(lie_about_sizes(archive(&csr_members()), 20)).unwrap_err();
    member_of(&e);

    // A compressed member whose inflated size passes the member limit.
    let big = npy(vec![1 << 20], vec![0u8; 1 << 20]);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in csr_members() {
        let bytes = if name == "data.npy" {
            big.clone()
        } else {
            bytes
        };
        zip.start_file(
            name,
            zip::write::FileOptions::default().compression_method(zip::CompressionMethod::Deflated),
        )
        .unwrap();
        zip.write_all(&bytes).unwrap();
    }
    let bomb = zip.finish().unwrap().into_inner();
    assert!(bomb.len() < 20_000);
    let e = read_sparse(bomb, &Limits::default().with_max_body_len(1 << 16)).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LimitExceeded {
                what: "npz member size",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn coords_member_of_nd_coo_is_read() {
    // scipy 1.17 writes an n-d coo_array with `coords` (ndim x nnz).
    let bytes = archive(&[
        ("coords.npy", npy(vec![3, 2], vec![0i64, 1, 1, 0, 0, 2])),
        ("format.npy", string_npy("coo")),
        ("shape.npy", npy(vec![3], vec![2i64, 2, 3])),
        ("data.npy", npy(vec![2], vec![4i8, -5])),
    ]);
    let t = read(bytes).unwrap();
    assert_eq!(t.shape(), &[2, 2, 3]);
    assert_eq!(
        t.get(&[0, 1, 0]).unwrap(),
        arrow_tensor_ipc::Scalar::Int8(4)
    );
    assert_eq!(
        t.get(&[1, 0, 2]).unwrap(),
        arrow_tensor_ipc::Scalar::Int8(-5)
    );
    let bad = archive(&[
        ("coords.npy", npy(vec![2, 2], vec![0i64, 1, 1, 0])),
        ("format.npy", string_npy("coo")),
        ("shape.npy", npy(vec![3], vec![2i64, 2, 3])),
        ("data.npy", npy(vec![2], vec![4i8, -5])),
    ]);
    assert_eq!(member_of(&read(bad).unwrap_err()), "coords.npy");
}

// ---------------------------------------------------------------------------------------
// Bundles of named arrays (numpy.savez / savez_compressed).

use arrow_tensor_ipc::{CustomMetadata, Message, NAME_KEY};

fn bundle(bytes: Vec<u8>) -> arrow_tensor_ipc::Result<Vec<Message>> {
    read_all(bytes, &Limits::default())
}

/// `npz::read` under `limits`.
fn read_all(bytes: impl Into<Buffer>, limits: &Limits) -> arrow_tensor_ipc::Result<Vec<Message>> {
    npz::read(bytes, &npz::NpzReadOptions::default().with_limits(*limits))
}

/// `npz::read` of a scipy sparse bundle: its one sparse message.
fn read_sparse(
    bytes: impl Into<Buffer>,
    limits: &Limits,
) -> arrow_tensor_ipc::Result<SparseTensor> {
    let messages = read_all(bytes, limits)?;
    assert_eq!(messages.len(), 1, "a scipy bundle is one message");
    Ok(messages[0].as_sparse().expect("a sparse message").clone())
}

/// `npz::write` of one sparse tensor (a scipy sparse bundle).
fn write_sparse<W: std::io::Write + std::io::Seek>(
    t: &SparseTensor,
    out: W,
    options: &npz::NpzWriteOptions,
) -> arrow_tensor_ipc::Result<()> {
    npz::write(&[Message::from(t.clone())], out, options)
}

/// What `check-bundles` compares: name, dtype, shape, little-endian row-major bytes.
fn describe(messages: &[Message]) -> Value {
    Value::Array(
        messages
            .iter()
            .map(|m| {
                let t = m.as_tensor().expect("a dense message");
                serde_json::json!({
                    "name": m.name().expect("a name"),
                    "dtype": t.value_type().name(),
                    "shape": t.shape(),
                    "hex": hex(t.row_major_bytes().as_slice()),
                })
            })
            .collect(),
    )
}

#[test]
fn numpy_bundles_read_as_named_dense_messages_in_archive_order() {
    let dir = scratch("bundles-from-numpy");
    let summary = helper("write-bundles", &dir);
    let manifest: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(summary["files"].as_u64().unwrap() as usize, manifest.len());
    assert_eq!(manifest.len(), 4);
    for m in &manifest {
        let file = m["file"].as_str().unwrap();
        let messages = bundle(std::fs::read(dir.join(file)).unwrap())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(describe(&messages), m["members"], "{file}");
    }
    // The plain bundle holds every dtype, a 0-d and empty arrays, Fortran order, big-endian.
    let plain = bundle(std::fs::read(dir.join("plain.npz")).unwrap()).unwrap();
    assert_eq!(plain.len(), 15);
    assert!(plain.iter().any(|m| m.as_tensor().unwrap().ndim() == 0));
    assert!(plain.iter().any(|m| m.as_tensor().unwrap().is_empty()));
    assert!(plain.iter().any(|m| !m.as_tensor().unwrap().is_row_major()));
    // No member is taken for a scipy bundle's: every message is dense.
    assert!(plain.iter().all(|m| m.as_sparse().is_none()));
    // Object arrays, pickles and bools are refused, naming the member.
    for (file, member, says) in [
        ("object.npz", "obj.npy", "object array"),
        ("pickle.npz", "evil.npy", "pickle"),
        ("bool.npz", "flags.npy", "bool"),
    ] {
        let e = bundle(std::fs::read(dir.join(file)).unwrap()).unwrap_err();
        assert_eq!(member_of(&e), member, "{file}: {e}");
        assert!(e.to_string().contains(says), "{file}: {e}");
    }
}

#[test]
fn our_bundles_read_in_numpy() {
    let from = scratch("bundles-from-numpy-2");
    helper("write-bundles", &from);
    let to = scratch("bundles-to-numpy");
    let mut manifest = Vec::new();
    for (k, file) in ["plain.npz", "positional.npz", "empty_bundle.npz"]
        .iter()
        .enumerate()
    {
        let messages = bundle(std::fs::read(from.join(file)).unwrap()).unwrap();
        for compressed in [false, true] {
            let name = format!("{}{k}.npz", if compressed { "z" } else { "s" });
            let mut out = Cursor::new(Vec::new());
            npz::write(
                &messages,
                &mut out,
                &npz::NpzWriteOptions::default().with_compressed(compressed),
            )
            .unwrap();
            std::fs::write(to.join(&name), out.get_ref()).unwrap();
            // And back through our reader: the same names and bytes.
            assert_eq!(
                describe(&bundle(out.into_inner()).unwrap()),
                describe(&messages)
            );
            manifest.push(serde_json::json!({"file": name, "members": describe(&messages)}));
        }
    }
    // Unnamed, strided and column-major tensors: arr_0, arr_1 (numpy.load gives C-order
    // values either way).
    let cm = Tensor::try_new(
        ValueType::UInt16,
        vec![2, 3],
        arrow_tensor_ipc::column_major_strides(&[2, 3], 2),
        Buffer::from_vec(vec![1u16, 2, 3, 4, 5, 6]),
    )
    .unwrap();
    let strided = Tensor::try_new(
        ValueType::Int8,
        vec![2, 2],
        vec![4, 1],
        Buffer::from_vec(vec![1i8, 2, 0, 0, 3, 4, 0, 0]),
    )
    .unwrap();
    let named = Tensor::from_vec(vec![], vec![1.5f64]).unwrap();
    let messages = vec![
        Message::from(cm),
        Message::from(named).with_custom_metadata(CustomMetadata::new([(NAME_KEY, "x")])),
        Message::from(strided),
    ];
    let mut out = Cursor::new(Vec::new());
    npz::write(
        &messages,
        &mut out,
        &npz::NpzWriteOptions::default().with_compressed(true),
    )
    .unwrap();
    let back = bundle(out.get_ref().clone()).unwrap();
    let names: Vec<_> = back.iter().map(|m| m.name().unwrap().to_string()).collect();
    assert_eq!(names, ["arr_0", "x", "arr_1"]);
    std::fs::write(to.join("mixed.npz"), out.get_ref()).unwrap();
    manifest.push(serde_json::json!({"file": "mixed.npz", "members": describe(&back)}));
    assert_eq!(
        describe(&back)[0]["hex"],
        hex(&[1, 0, 3, 0, 5, 0, 2, 0, 4, 0, 6, 0])
    );
    std::fs::write(
        to.join("manifest.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
    let result = helper("check-bundles", &to);
    assert_eq!(result["checked"].as_u64().unwrap() as usize, manifest.len());
    assert_eq!(result["bad"], serde_json::json!([]), "{result}");
}

#[test]
fn bundle_writer_names_duplicates_and_kinds() {
    let t = Tensor::from_vec(vec![2], vec![1i32, 2]).unwrap();
    let named = |n: &str| {
        Message::from(t.clone()).with_custom_metadata(CustomMetadata::new([(NAME_KEY, n)]))
    };
    // A name used twice, and an explicit name that collides with a generated one.
    for ms in [
        vec![named("a"), named("a")],
        vec![Message::from(t.clone()), named("arr_0")],
    ] {
        let e = npz::write(
            &ms,
            Cursor::new(Vec::new()),
            &npz::NpzWriteOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::DuplicateName { .. }), "{e}");
    }
    // A sparse message among dense ones is refused; alone it is a scipy bundle.
    let csr = SparseTensor::csr([2, 3], vec![0i32, 1, 2], vec![2, 0], vec![7u8, 9]).unwrap();
    let e = npz::write(
        &[named("a"), Message::from(csr.clone())],
        Cursor::new(Vec::new()),
        &npz::NpzWriteOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::UnsupportedLayout { .. }),
        "{e}"
    );
    let mut out = Cursor::new(Vec::new());
    npz::write(
        &[Message::from(csr.clone())],
        &mut out,
        &npz::NpzWriteOptions::default(),
    )
    .unwrap();
    let back = bundle(out.into_inner()).unwrap();
    assert_eq!(back.len(), 1);
    assert!(back[0].as_sparse().unwrap().content_eq(&csr));
    // The streaming writer returns the names it used.
    let mut w = npz::BundleWriter::new(Cursor::new(Vec::new()), &npz::NpzWriteOptions::default());
    assert_eq!(w.write_tensor(None, &t).unwrap(), "arr_0");
    assert_eq!(w.write_tensor(Some("dir/w"), &t).unwrap(), "dir/w");
    assert_eq!(w.write(&Message::from(t.clone())).unwrap(), "arr_1");
    let bytes = w.finish().unwrap().into_inner();
    let names: Vec<_> = bundle(bytes)
        .unwrap()
        .iter()
        .map(|m| m.name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["arr_0", "dir/w", "arr_1"]);
}

#[test]
fn bundle_sizes_are_bounded_before_reading() {
    let members = |n: usize| -> Vec<(String, Vec<u8>)> {
        (0..n)
            .map(|i| (format!("m{i}.npy"), npy(vec![1000], vec![i as u8; 1000])))
            .collect()
    };
    let arch = |ms: &[(String, Vec<u8>)]| {
        let refs: Vec<(&str, Vec<u8>)> = ms.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
        archive(&refs)
    };
    let ok = arch(&members(3));
    assert_eq!(bundle(ok.clone()).unwrap().len(), 3);
    // The members together over max_body_len, each under it.
    let e = read_all(ok.clone(), &Limits::default().with_max_body_len(2500)).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::LimitExceeded { what, .. } if what.contains("bundle")),
        "{e}"
    );
    // One member over it.
    let e = read_all(ok, &Limits::default().with_max_body_len(500)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    // Lying sizes: refused before reading.
    let e = bundle(lie_about_sizes(arch(&members(2)), u32::MAX - 1)).unwrap_err();
    assert!(e.to_string().contains("declared size"), "{e}");
    // Two central-directory entries sharing one member's bytes (an overlapping zip bomb).
    let one = arch(&members(1));
    let cd = one.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    let eocd = one.windows(4).position(|w| w == b"PK\x05\x06").unwrap();
    let entry = one[cd..eocd].to_vec();
    let mut twin = entry.clone();
    let name_at = twin.windows(6).position(|w| w == b"m0.npy").unwrap();
    twin[name_at + 1] = b'1';
    let mut bomb = one[..eocd].to_vec();
    bomb.extend_from_slice(&twin);
    let mut end = one[eocd..].to_vec();
    // Entry counts (this disk, total) and the central directory size.
    end[8..10].copy_from_slice(&2u16.to_le_bytes());
    end[10..12].copy_from_slice(&2u16.to_le_bytes());
    end[12..16].copy_from_slice(&((2 * entry.len()) as u32).to_le_bytes());
    bomb.extend_from_slice(&end);
    let e = bundle(bomb).unwrap_err();
    assert!(e.to_string().contains("share bytes"), "{e}");
    // Two members of one name.
    let dup = archive(&[
        ("a.npy", npy(vec![1], vec![1u8])),
        ("a.npy", npy(vec![1], vec![2u8])),
    ]);
    assert_eq!(member_of(&bundle(dup).unwrap_err()), "a.npy");
    // A member that is not .npy.
    let junk = archive(&[
        ("a.npy", npy(vec![1], vec![1u8])),
        ("b.txt", b"hello".to_vec()),
    ]);
    assert_eq!(member_of(&bundle(junk).unwrap_err()), "b.txt");
    // No members: no messages.
    assert!(bundle(archive(&[])).unwrap().is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn mutated_bundles_never_panic(
        compressed: bool,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        truncate: bool,
    ) {
        let ms = vec![
            Message::from(Tensor::from_vec(vec![2, 3], vec![1.5f64; 6]).unwrap()),
            Message::from(Tensor::from_vec(vec![], vec![7i16]).unwrap()),
            Message::from(Tensor::from_vec(vec![0, 4], Vec::<u32>::new()).unwrap()),
        ];
        let mut file = Cursor::new(Vec::new());
        npz::write(&ms, &mut file, &npz::NpzWriteOptions::default().with_compressed(compressed)).unwrap();
        let mut bytes = file.into_inner();
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        let _ = read_all(bytes, &Limits::default().with_max_body_len(1 << 24));
    }
}

#[test]
fn a_numeric_member_named_format_makes_no_scipy_bundle() {
    // numpy.savez(f, format=np.arange(3), shape=...): a bundle of named arrays, both ways.
    let t = Tensor::from_vec(vec![3], vec![0i64, 1, 2]).unwrap();
    let ms: Vec<Message> = ["format", "shape"]
        .iter()
        .map(|n| {
            Message::from(t.clone()).with_custom_metadata(CustomMetadata::new([(NAME_KEY, *n)]))
        })
        .collect();
    let mut out = Cursor::new(Vec::new());
    npz::write(&ms, &mut out, &npz::NpzWriteOptions::default()).unwrap();
    let back = bundle(out.into_inner()).unwrap();
    let names: Vec<_> = back.iter().map(|m| m.name().unwrap()).collect();
    assert_eq!(names, ["format", "shape"]);
    // A text format.npy is scipy's, also through npz::read.
    let scipy = bundle(archive(&csr_members())).unwrap();
    assert_eq!(scipy[0].as_sparse().unwrap().format(), SparseFormat::Csr);
}
