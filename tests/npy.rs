//! `.npy` files: numpy's files read to the same values, ours read back by numpy, round
//! trips, and malformed input (typed errors, no panics).
//!
//! The numpy side is `examples/common/numpy_npz.py`, run by the venv's python (a missing
//! venv fails the tests: run `scripts/venv.sh`).

use arrow_buffer::Buffer;
use arrow_tensor_ipc::formats::npy;
use arrow_tensor_ipc::{
    column_major_strides, row_major_strides, ErrorKind, Limits, Location, Message, Tensor,
    ValueType,
};
use proptest::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

#[path = "common/venv.rs"]
mod venv;
use venv::hex;

/// `npy::read` of a byte slice (copied into a buffer once), which gives one dense message.
fn read_slice(bytes: &[u8], limits: &Limits) -> arrow_tensor_ipc::Result<Tensor> {
    read_buffer(Buffer::from(bytes), limits)
}

/// `npy::read` of a buffer (zero-copy when aligned), which gives one dense message.
fn read_buffer(buffer: Buffer, limits: &Limits) -> arrow_tensor_ipc::Result<Tensor> {
    let messages = npy::read(buffer, &npy::NpyReadOptions::default().with_limits(*limits))?;
    assert_eq!(messages.len(), 1, "a .npy file is one message");
    Ok(messages[0].as_tensor().expect("a dense message").clone())
}

/// `npy::write` of one dense tensor.
fn write_tensor(t: &Tensor, out: impl std::io::Write) -> arrow_tensor_ipc::Result<()> {
    npy::write(
        &[Message::from(t.clone())],
        out,
        &npy::NpyWriteOptions::default(),
    )
}

fn scratch(name: &str) -> PathBuf {
    venv::scratch("interop/npy", name)
}

fn helper(mode: &str, dir: &Path) -> Value {
    venv::run_json("examples/common/numpy_npz.py", mode, dir)
}

#[test]
fn numpy_files_read_to_the_same_values() {
    let dir = scratch("from-numpy");
    let summary = helper("write-npy", &dir);
    let manifest: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(summary["files"].as_u64().unwrap() as usize, manifest.len());
    // 11 dtypes x 8 shapes x 2 orders, x 2 byte orders for the 9 wider than a byte.
    assert_eq!(manifest.len(), 2 * 8 * 2 + 9 * 8 * 2 * 2);
    let mut fortran_seen = 0;
    let mut big_seen = 0;
    for m in &manifest {
        let file = m["file"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let shape: Vec<usize> = m["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let vt = ValueType::from_name(m["dtype"].as_str().unwrap()).unwrap();
        let fortran = m["fortran"].as_bool().unwrap();
        let buffer = Buffer::from_vec(bytes.clone());
        for t in [
            read_slice(&bytes, &Limits::default()).unwrap(),
            read_buffer(buffer.clone(), &Limits::default()).unwrap(),
        ] {
            assert_eq!(t.value_type(), vt, "{file}");
            assert_eq!(t.shape(), &shape[..], "{file}");
            assert_eq!(
                hex(t.row_major_bytes().as_slice()),
                m["hex"].as_str().unwrap(),
                "{file}"
            );
            let w = vt.byte_width();
            let expected = if fortran {
                column_major_strides(&shape, w)
            } else {
                row_major_strides(&shape, w)
            };
            assert_eq!(t.strides(), &expected[..], "{file}");
        }
        if fortran {
            fortran_seen += 1;
        }
        let zero_copy = read_buffer(buffer.clone(), &Limits::default()).unwrap();
        let inside = buffer.as_slice().as_ptr_range();
        let p = zero_copy.data().as_ptr();
        if file.contains("_be_") {
            big_seen += 1;
            if !zero_copy.is_empty() {
                assert!(!inside.contains(&p), "{file}: big-endian data is converted");
            }
        } else if !zero_copy.is_empty() {
            assert!(
                inside.contains(&p),
                "{file}: little-endian data is not copied"
            );
        }
    }
    assert!(fortran_seen > 50 && big_seen > 50);
}

/// A tensor of `vt` with the given shape, filled with a pattern of bytes, in one of three
/// layouts: 0 row-major, 1 column-major, 2 a strided view (every other element of a
/// larger row-major buffer along the last dimension).
fn sample(vt: ValueType, shape: &[usize], layout: u8, seed: u8) -> Tensor {
    let w = vt.byte_width();
    let n: usize = shape.iter().product();
    let pattern = |k: usize| -> u8 { (k as u8).wrapping_mul(37).wrapping_add(seed) };
    match layout {
        0 | 1 => {
            let data: Vec<u8> = (0..n * w).map(pattern).collect();
            let strides = if layout == 0 {
                row_major_strides(shape, w)
            } else {
                column_major_strides(shape, w)
            };
            Tensor::try_new(vt, shape, strides, Buffer::from_vec(data)).unwrap()
        }
        _ => {
            let mut big = shape.to_vec();
            if let Some(last) = big.last_mut() {
                *last *= 2;
            }
            let m: usize = big.iter().product();
            let data: Vec<u8> = (0..m * w).map(pattern).collect();
            let mut strides = row_major_strides(&big, w);
            if let Some(last) = strides.last_mut() {
                *last *= 2;
            }
            Tensor::try_new(vt, shape, strides, Buffer::from_vec(data)).unwrap()
        }
    }
}

#[test]
fn our_files_read_in_numpy() {
    let dir = scratch("to-numpy");
    let shapes: [&[usize]; 7] = [
        &[],
        &[4],
        &[0],
        &[2, 3],
        &[3, 0, 2],
        &[2, 3, 4],
        &[1, 2, 1, 3],
    ];
    let mut manifest = Vec::new();
    for vt in ValueType::ALL {
        for (si, shape) in shapes.iter().enumerate() {
            for layout in 0..3u8 {
                let t = sample(vt, shape, layout, si as u8)
                    .with_dim_names(shape.iter().map(|_| "dropped"))
                    .unwrap();
                let mut file = Vec::new();
                write_tensor(&t, &mut file).unwrap();
                assert_eq!(file.iter().position(|&b| b == b'\n').unwrap() % 64, 63);
                let name = format!("{}_{si}_{layout}.npy", vt.name());
                std::fs::write(dir.join(&name), &file).unwrap();
                let fortran = layout == 1 && !t.is_row_major();
                let dtype = match vt {
                    ValueType::Float16 => "float16".to_string(),
                    v => v.name().to_string(),
                };
                manifest.push(serde_json::json!({
                    "file": name,
                    "dtype": dtype,
                    "shape": shape,
                    "fortran": fortran,
                    "hex": hex(t.row_major_bytes().as_slice()),
                }));
            }
        }
    }
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
    let result = helper("check-npy", &dir);
    assert_eq!(result["checked"].as_u64().unwrap() as usize, manifest.len());
    assert_eq!(result["bad"], serde_json::json!([]), "{result}");
}

fn shape_strategy() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..5, 0..5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn round_trip(ti in 0usize..11, shape in shape_strategy(), layout in 0u8..3, seed: u8) {
        let vt = ValueType::ALL[ti];
        let t = sample(vt, &shape, layout, seed);
        let mut file = Vec::new();
        write_tensor(&t, &mut file).unwrap();
        for back in [
            read_slice(&file, &Limits::default()).unwrap(),
            read_buffer(Buffer::from_vec(file.clone()), &Limits::default()).unwrap(),
        ] {
            prop_assert!(back.content_eq(&t));
            if layout == 1 && !t.is_row_major() {
                prop_assert_eq!(back.strides(), t.strides());
            } else {
                prop_assert!(back.is_row_major());
            }
        }
    }

    #[test]
    fn mutated_files_never_panic(
        ti in 0usize..11,
        shape in shape_strategy(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        truncate: bool,
    ) {
        let t = sample(ValueType::ALL[ti], &shape, 0, 3);
        let mut file = Vec::new();
        write_tensor(&t, &mut file).unwrap();
        for (at, b) in edits {
            let i = at.index(file.len());
            file[i] = b;
        }
        if truncate {
            file.truncate(cut.index(file.len()));
        }
        let limits = Limits::default().with_max_dense_elements(1 << 20);
        let _ = read_slice(&file, &limits);
        let _ = read_buffer(Buffer::from_vec(file), &limits);
    }
}

fn npy_file(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn parse_location(e: &arrow_tensor_ipc::Error) -> Location {
    match e.kind() {
        ErrorKind::Parse {
            format, location, ..
        } => {
            assert_eq!(*format, "npy");
            location.clone()
        }
        other => panic!("expected a Parse error, got {other:?}"),
    }
}

#[test]
fn malformed_files_are_typed_errors() {
    let limits = Limits::default();
    let good = npy_file(
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n",
        &[1, 0, 0, 0, 2, 0, 0, 0],
    );
    assert_eq!(
        read_slice(&good, &limits).unwrap().to_vec::<i32>().unwrap(),
        vec![1, 2]
    );

    // Bad magic, truncated magic, version, header length, header.
    let mut bad_magic = good.clone();
    bad_magic[1] = b'X';
    assert_eq!(
        parse_location(&read_slice(&bad_magic, &limits).unwrap_err()),
        Location::Byte(0)
    );
    for cut in [0, 3, 7, 9, 20] {
        let e = read_slice(&good[..cut], &limits).unwrap_err();
        assert_eq!(parse_location(&e), Location::Header, "cut at {cut}");
    }
    let mut version = good.clone();
    version[6] = 9;
    assert_eq!(
        parse_location(&read_slice(&version, &limits).unwrap_err()),
        Location::Byte(6)
    );
    // A huge claimed header length on a short file: an error, not an allocation.
    let mut v2 = b"\x93NUMPY\x02\x00\xff\xff\xff\xff".to_vec();
    v2.extend_from_slice(&[b' '; 100]);
    assert_eq!(
        parse_location(&read_slice(&v2, &limits).unwrap_err()),
        Location::Header
    );

    // Truncated data and extra data.
    let e = read_slice(&good[..good.len() - 1], &limits).unwrap_err();
    assert!(matches!(parse_location(&e), Location::Byte(_)), "{e}");
    let mut extra = good.clone();
    extra.push(0);
    assert!(read_slice(&extra, &limits)
        .unwrap_err()
        .to_string()
        .contains("follow"));

    // Bad header dicts.
    for header in [
        "[1, 2]",
        "{'descr': '<i4', 'fortran_order': False}",
        "{'descr': '<i4', 'shape': (2,)}",
        "{'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<i4', 'fortran_order': 0, 'shape': (2,)}",
        "{'descr': '<i4', 'fortran_order': False, 'shape': [2]}",
        "{'descr': '<i4', 'fortran_order': False, 'shape': (-2,)}",
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2.5,)}",
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
        "{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2,)} trailing",
        "{'descr': '<i4, 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2,",
    ] {
        let file = npy_file(header, &[1, 0, 0, 0, 2, 0, 0, 0]);
        let e = read_slice(&file, &limits).unwrap_err();
        assert_eq!(parse_location(&e), Location::Header, "{header}: {e}");
    }

    // Shape lies: more elements than the data holds, fewer than it holds.
    let lies = npy_file(
        "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
        &[0; 8],
    );
    assert!(read_slice(&lies, &limits)
        .unwrap_err()
        .to_string()
        .contains("truncated"));
    // A huge claimed shape on a tiny file: refused at once by a limit or the data check.
    for shape in ["(1000000000000,)", "(100000, 100000, 100000)"] {
        let file = npy_file(
            &format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}"),
            &[0; 16],
        );
        let e = read_slice(&file, &limits).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::LimitExceeded { .. }),
            "{shape}: {e}"
        );
        let e = read_slice(
            &file,
            &Limits::default().with_max_dense_elements(usize::MAX),
        )
        .unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Parse { .. }
                    | ErrorKind::LimitExceeded { .. }
                    | ErrorKind::Overflow { .. }
            ),
            "{shape}: {e}"
        );
    }
    let overflow = npy_file(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
        &[],
    );
    assert!(matches!(
        read_slice(&overflow, &limits).unwrap_err().kind(),
        ErrorKind::Overflow { .. }
    ));
    // Rank over the limit.
    let rank = npy_file(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1), }",
        &[0; 8],
    );
    assert!(matches!(
        read_slice(&rank, &Limits::default().with_max_rank(3))
            .unwrap_err()
            .kind(),
        ErrorKind::LimitExceeded {
            what: "npy rank",
            ..
        }
    ));

    // Unsupported dtypes: bool, complex, strings, objects, structured.
    for descr in [
        "'|b1'", "'<c16'", "'|S3'", "'<U2'", "'|O'", "'<M8[s]'", "'<i3'", "'<f16'",
    ] {
        let file = npy_file(
            &format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (), }}"),
            &[0; 16],
        );
        let e = read_slice(&file, &limits).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::TypeMismatch { .. }),
            "{descr}: {e}"
        );
    }
    let structured = npy_file(
        "{'descr': [('a', '<i4'), ('b', [('c', '<f8')])], 'fortran_order': False, 'shape': (1,), }",
        &[0; 12],
    );
    let e = read_slice(&structured, &limits).unwrap_err();
    assert!(e.to_string().contains("structured"), "{e}");
}

#[test]
fn header_variants_numpy_accepts() {
    // Double quotes, other key order, no trailing comma, Python 2 longs, version 2 and 3.
    let data = [7u8, 0, 9, 0];
    for header in [
        "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<u2\"}",
        "{'descr':'<u2','fortran_order':False,'shape':(2L,)}  \n",
    ] {
        let t = read_slice(&npy_file(header, &data), &Limits::default()).unwrap();
        assert_eq!(t.to_vec::<u16>().unwrap(), vec![7, 9]);
    }
    for version in [2u8, 3] {
        let header = "{'descr': '>u2', 'fortran_order': False, 'shape': (2,), }\n";
        let mut file = b"\x93NUMPY".to_vec();
        file.extend_from_slice(&[version, 0]);
        file.extend_from_slice(&(header.len() as u32).to_le_bytes());
        file.extend_from_slice(header.as_bytes());
        file.extend_from_slice(&[0, 7, 0, 9]);
        let t = read_slice(&file, &Limits::default()).unwrap();
        assert_eq!(t.to_vec::<u16>().unwrap(), vec![7, 9]);
    }
}

#[test]
fn misaligned_buffer_is_copied() {
    let t = Tensor::from_vec(vec![3], vec![1.0f64, 2.0, 3.0]).unwrap();
    let mut file = vec![0u8];
    write_tensor(&t, &mut file).unwrap();
    let buffer = Buffer::from_vec(file).slice(1);
    let back = read_buffer(buffer, &Limits::default()).unwrap();
    assert_eq!(back.as_slice::<f64>(), Some(&[1.0, 2.0, 3.0][..]));
}
