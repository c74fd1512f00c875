//! Integration tests of the `arrow-tensor` command-line tool.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    decode_message, CsfLengths, DecodedMessage, Message, MessageIter, MessageWriter, ReadOptions,
    SparseFormat, SparseTensor, Tensor, ValueType, WriteOptions,
};
use half::f16;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_arrow-tensor");

/// A file under the temporary directory, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("arrow-tensor-cli-{}-{n}-{tag}.arrows", std::process::id());
        let path = std::env::temp_dir().join(name);
        let _ = std::fs::remove_file(&path);
        TempFile(path)
    }

    /// A file named with extension `ext` instead of `.arrows`.
    fn with_ext(tag: &str, ext: &str) -> Self {
        let f = Self::new(tag);
        TempFile(f.0.with_extension(ext))
    }

    fn with_bytes(tag: &str, bytes: &[u8]) -> Self {
        let f = Self::new(tag);
        std::fs::write(&f.0, bytes).unwrap();
        f
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.0).unwrap()
    }

    fn name(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn stream(messages: &[Message], options: WriteOptions) -> Vec<u8> {
    let mut w = MessageWriter::new(Vec::new(), &options);
    for m in messages {
        w.write(m).unwrap();
    }
    w.finish().unwrap()
}

fn write_file(tag: &str, messages: &[Message]) -> TempFile {
    TempFile::with_bytes(tag, &stream(messages, WriteOptions::default()))
}

fn non_arrow() -> WriteOptions {
    WriteOptions::default().with_arrow_compatible(false)
}

fn run(args: &[&str], files: &[&Path]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    for f in files {
        cmd.arg(f);
    }
    let out = cmd.output().expect("run arrow-tensor");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked"),
        "arrow-tensor {args:?} panicked: {stderr}"
    );
    out
}

fn code(out: &Output) -> i32 {
    out.status
        .code()
        .expect("exit code (not killed by a signal)")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// Runs `dump --json` and parses every line.
fn dump(file: &Path, permissive: bool) -> (Vec<Value>, Output) {
    let args: &[&str] = if permissive {
        &["dump", "--json", "--permissive"]
    } else {
        &["dump", "--json"]
    };
    let out = run(args, &[file]);
    let lines = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l}: {e}")))
        .collect();
    (lines, out)
}

fn dump_ok(file: &Path) -> Vec<Value> {
    let (lines, out) = dump(file, false);
    assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
    lines
}

fn decode_all(bytes: &[u8], options: ReadOptions) -> Vec<DecodedMessage> {
    MessageIter::new(bytes::Bytes::from(bytes.to_vec()), &options)
        .collect::<Result<_, _>>()
        .unwrap()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_i64().unwrap_or_else(|| panic!("not an i64: {x}")))
        .collect()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
        .collect()
}

fn nested_ints(v: &Value) -> Vec<Vec<i64>> {
    v.as_array().unwrap().iter().map(ints).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

// Sample messages.

fn dense() -> Tensor {
    Tensor::from_vec(vec![2, 3], vec![1i32, -2, 3, 4, 5, i32::MIN])
        .unwrap()
        .with_dim_names(["rows", "cols"])
        .unwrap()
}

/// A float64 2 x 3 tensor stored column-major: logical [[1, 2, 3], [4, 5, 6]].
fn column_major() -> Tensor {
    let data = Buffer::from_vec(vec![1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0]);
    Tensor::try_new(ValueType::Float64, vec![2, 3], vec![8, 16], data).unwrap()
}

fn coo() -> SparseTensor {
    SparseTensor::coo([4, 4], vec![0i64, 1, 2, 0, 3, 3], vec![1.5f32, -0.5, 2.0])
        .unwrap()
        .with_dim_names(["", "j"])
        .unwrap()
}

fn csr() -> SparseTensor {
    SparseTensor::csr([2, 3], vec![0i32, 1, 2], vec![2, 0], vec![7u8, 9]).unwrap()
}

fn csc() -> SparseTensor {
    SparseTensor::csc([2, 3], vec![0i16, 1, 1, 2], vec![1, 0], vec![3i64, -4]).unwrap()
}

/// Shape [2, 3, 4] with (0,0,1) = 1, (0,2,3) = 2, (1,1,0) = 3.
fn csf() -> SparseTensor {
    SparseTensor::csf(
        [2, 3, 4],
        vec![0, 1, 2],
        vec![vec![0i64, 2, 3], vec![0, 1, 2, 3]],
        vec![vec![0, 1], vec![0, 2, 1], vec![1, 3, 0]],
        vec![1.0f64, 2.0, 3.0],
    )
    .unwrap()
}

fn samples() -> Vec<Message> {
    vec![
        dense().into(),
        column_major().into(),
        coo().into(),
        csr().into(),
        csc().into(),
        csf().into(),
    ]
}

fn dense_of(m: &Value) -> Vec<i64> {
    ints(&m["dense"])
}

#[test]
fn dump_every_layout() {
    let file = write_file("layouts", &samples());
    let lines = dump_ok(file.path());
    assert_eq!(lines.len(), 6);
    let decoded = decode_all(&file.bytes(), ReadOptions::strict());
    for (line, d) in lines.iter().zip(&decoded) {
        assert_eq!(line["offset"].as_u64(), Some(d.offset));
        assert_eq!(line["metadata_version"], "V5");
        assert_eq!(
            line["metadata_length"].as_u64(),
            Some(d.metadata_length as u64)
        );
        assert_eq!(line["body_length"].as_u64(), Some(d.body_length));
    }

    let t = &lines[0];
    assert_eq!(t["offset"], 0);
    assert_eq!(t["kind"], "tensor");
    assert_eq!(t["type"], "int32");
    assert_eq!(ints(&t["shape"]), [2, 3]);
    assert_eq!(strings(&t["dim_names"]), ["rows", "cols"]);
    assert_eq!(ints(&t["strides"]), [12, 4]);
    assert_eq!(ints(&t["values"]), [1, -2, 3, 4, 5, i32::MIN as i64]);
    assert!(t.get("nnz").is_none());

    let t = &lines[1];
    assert_eq!(t["type"], "float64");
    assert_eq!(strings(&t["dim_names"]), ["", ""]);
    assert_eq!(ints(&t["strides"]), [8, 16]);
    assert_eq!(floats(&t["values"]), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);

    let t = &lines[2];
    assert_eq!(t["kind"], "sparse_tensor");
    assert_eq!(t["type"], "float32");
    assert_eq!(t["format"], "COO");
    assert_eq!(t["nnz"], 3);
    assert_eq!(strings(&t["dim_names"]), ["", "j"]);
    assert_eq!(t["index_type"], "int64");
    assert_eq!(t["is_canonical"], true);
    assert_eq!(nested_ints(&t["coords"]), [[0, 1], [2, 0], [3, 3]]);
    assert_eq!(floats(&t["values"]), [1.5, -0.5, 2.0]);
    let mut expect = vec![0.0; 16];
    expect[1] = 1.5;
    expect[8] = -0.5;
    expect[15] = 2.0;
    assert_eq!(floats(&t["dense"]), expect);
    assert!(t.get("strides").is_none());

    let t = &lines[3];
    assert_eq!(t["format"], "CSR");
    assert_eq!(t["type"], "uint8");
    assert_eq!(t["indptr_type"], "int32");
    assert_eq!(t["indices_type"], "int32");
    assert_eq!(ints(&t["indptr"]), [0, 1, 2]);
    assert_eq!(ints(&t["indices"]), [2, 0]);
    assert_eq!(ints(&t["values"]), [7, 9]);
    assert_eq!(dense_of(t), [0, 0, 7, 9, 0, 0]);

    let t = &lines[4];
    assert_eq!(t["format"], "CSC");
    assert_eq!(t["type"], "int64");
    assert_eq!(t["indptr_type"], "int16");
    assert_eq!(ints(&t["indptr"]), [0, 1, 1, 2]);
    assert_eq!(ints(&t["indices"]), [1, 0]);
    assert_eq!(ints(&t["values"]), [3, -4]);
    assert_eq!(dense_of(t), [0, 0, -4, 3, 0, 0]);

    let t = &lines[5];
    assert_eq!(t["format"], "CSF");
    assert_eq!(t["nnz"], 3);
    assert_eq!(t["indptr_type"], "int64");
    assert_eq!(t["indices_type"], "int64");
    assert_eq!(ints(&t["axis_order"]), [0, 1, 2]);
    assert_eq!(nested_ints(&t["indptr"]), [vec![0, 2, 3], vec![0, 1, 2, 3]]);
    assert_eq!(
        nested_ints(&t["indices"]),
        [vec![0, 1], vec![0, 2, 1], vec![1, 3, 0]]
    );
    assert_eq!(floats(&t["values"]), [1.0, 2.0, 3.0]);
    let dense = floats(&t["dense"]);
    assert_eq!(dense.len(), 24);
    for (i, v) in dense.iter().enumerate() {
        let want = match i {
            1 => 1.0,
            11 => 2.0,
            16 => 3.0,
            _ => 0.0,
        };
        assert_eq!(*v, want, "dense[{i}]");
    }
}

#[test]
fn dump_key_order_is_stable() {
    let file = write_file("order", &[csr().into()]);
    let out = run(&["dump", "--json"], &[file.path()]);
    let text = stdout(&out);
    let keys = [
        "\"offset\"",
        "\"kind\"",
        "\"metadata_version\"",
        "\"metadata_length\"",
        "\"body_length\"",
        "\"type\"",
        "\"shape\"",
        "\"dim_names\"",
        "\"nnz\"",
        "\"format\"",
        "\"indptr_type\"",
        "\"indices_type\"",
        "\"indptr\"",
        "\"indices\"",
        "\"values\"",
        "\"dense\"",
    ];
    let positions: Vec<usize> = keys.iter().map(|k| text.find(k).unwrap()).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
    // `--json` is optional.
    assert_eq!(stdout(&run(&["dump"], &[file.path()])), text);
}

#[test]
fn floats_nan_infinity_and_negative_zero() {
    let f64s = vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.1,
        1e300,
        5e-324,
    ];
    let f32s = vec![f32::NAN, f32::NEG_INFINITY, 0.1f32, -0.0, f32::MAX];
    let f16s = vec![
        f16::NAN,
        f16::INFINITY,
        f16::from_f32(0.1),
        f16::MAX,
        f16::NEG_ZERO,
    ];
    let file = write_file(
        "floats",
        &[
            Tensor::from_vec(vec![7], f64s.clone()).unwrap().into(),
            Tensor::from_vec(vec![5], f32s.clone()).unwrap().into(),
            Tensor::from_vec(vec![5], f16s.clone()).unwrap().into(),
            SparseTensor::coo([3], vec![0i32, 2], vec![f64::NAN, f64::NEG_INFINITY])
                .unwrap()
                .into(),
        ],
    );
    let out = run(&["dump", "--json"], &[file.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let typed: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // serde_json's parser may miss by one ulp (without its `float_roundtrip` feature), so
    // compare the printed numbers with Rust's correctly rounded parser.
    let check = |line: &str, key: &str, want: &[f64]| {
        let got = raw_array(line, key);
        assert_eq!(got.len(), want.len(), "{line}");
        for (g, w) in got.iter().zip(want) {
            if w.is_nan() {
                assert_eq!(g, "\"NaN\"");
            } else if *w == f64::INFINITY {
                assert_eq!(g, "\"Infinity\"");
            } else if *w == f64::NEG_INFINITY {
                assert_eq!(g, "\"-Infinity\"");
            } else {
                let v: f64 = g.parse().unwrap_or_else(|e| panic!("{g}: {e}"));
                assert_eq!(v.to_bits(), w.to_bits(), "{g} != {w}");
            }
        }
    };
    check(lines[0], "values", &f64s);
    assert!(raw_array(lines[0], "values").contains(&"-0.0".to_string()));
    assert_eq!(typed[1]["type"], "float32");
    let want: Vec<f64> = f32s.iter().map(|&v| v as f64).collect();
    check(lines[1], "values", &want);
    assert_eq!(typed[2]["type"], "float16");
    let want: Vec<f64> = f16s.iter().map(|v| v.to_f64()).collect();
    check(lines[2], "values", &want);
    check(lines[3], "values", &[f64::NAN, f64::NEG_INFINITY]);
    check(lines[3], "dense", &[f64::NAN, 0.0, f64::NEG_INFINITY]);
    assert_eq!(typed[3]["values"][0], "NaN");
}

/// The elements of the flat array under `key` in a JSON line, as printed.
fn raw_array(line: &str, key: &str) -> Vec<String> {
    let start = line
        .find(&format!("\"{key}\":["))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        + key.len()
        + 4;
    let end = start + line[start..].find(']').unwrap();
    line[start..end]
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn integers_are_exact() {
    let big = vec![0u64, i64::MAX as u64 + 1, u64::MAX, 9_007_199_254_740_993];
    let sparse = SparseTensor::coo([3], vec![0u64, 2], vec![u64::MAX, 1]).unwrap();
    let bytes = stream(
        &[
            Tensor::from_vec(vec![4], big.clone()).unwrap().into(),
            Tensor::from_vec(vec![2], vec![i64::MIN, i64::MAX])
                .unwrap()
                .into(),
            sparse.into(),
        ],
        non_arrow(),
    );
    let file = TempFile::with_bytes("ints", &bytes);
    let lines = dump_ok(file.path());
    let u64s = |v: &Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect()
    };
    assert_eq!(lines[0]["type"], "uint64");
    assert_eq!(u64s(&lines[0]["values"]), big);
    assert_eq!(ints(&lines[1]["values"]), [i64::MIN, i64::MAX]);
    assert_eq!(lines[2]["index_type"], "uint64");
    assert_eq!(u64s(&lines[2]["values"]), [u64::MAX, 1]);
    assert_eq!(u64s(&lines[2]["dense"]), [u64::MAX, 0, 1]);
    assert!(stdout(&run(&["dump"], &[file.path()])).contains("18446744073709551615"));
}

#[test]
fn uint64_coordinate_above_i64_max_is_exact_in_permissive_mode() {
    let sparse = SparseTensor::coo([3, 3], vec![0u64, 1, 2, 2], vec![5i8, 6]).unwrap();
    let mut bytes = stream(&[sparse.into()], non_arrow());
    let body = decode_message(&bytes::Bytes::from(bytes.clone()), &ReadOptions::default())
        .unwrap()
        .unwrap()
        .body_offset;
    // The coordinate matrix is the first body buffer: patch entry 1, dimension 1.
    let at = body + 3 * 8;
    assert_eq!(bytes[at..at + 8], 2u64.to_le_bytes());
    bytes[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let file = TempFile::with_bytes("u64coord", &bytes);

    let (lines, out) = dump(file.path(), true);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let coords = &lines[0]["coords"];
    assert_eq!(coords[0][0], 0);
    assert_eq!(coords[1][1].as_u64(), Some(u64::MAX));
    assert!(stdout(&out).contains("[2,18446744073709551615]"));
    assert!(lines[0]["dense"].is_null());
    assert!(lines[0]["dense_error"]
        .as_str()
        .unwrap()
        .contains("out of bounds"));

    let out = run(&["validate"], &[file.path()]);
    assert_eq!(code(&out), 1);
}

#[test]
fn rank_zero() {
    let file = write_file(
        "rank0",
        &[Tensor::from_vec(vec![], vec![42i16]).unwrap().into()],
    );
    let lines = dump_ok(file.path());
    let t = &lines[0];
    assert_eq!(t["kind"], "tensor");
    assert_eq!(ints(&t["shape"]), Vec::<i64>::new());
    assert_eq!(strings(&t["dim_names"]), Vec::<String>::new());
    assert_eq!(ints(&t["strides"]), Vec::<i64>::new());
    assert_eq!(ints(&t["values"]), [42]);
    let out = run(&["inspect"], &[file.path()]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("shape []"), "{}", stdout(&out));
}

#[test]
fn rank_zero_sparse() {
    let t = SparseTensor::coo::<f64, i64>(&[], vec![], vec![2.5]).unwrap();
    let file = write_file("rank0sparse", &[t.into()]);
    let lines = dump_ok(file.path());
    let t = &lines[0];
    assert_eq!(t["format"], "COO");
    assert_eq!(t["nnz"], 1);
    assert_eq!(t["coords"], serde_json::json!([[]]));
    assert_eq!(floats(&t["values"]), [2.5]);
    assert_eq!(floats(&t["dense"]), [2.5]);
}

#[test]
fn empty_and_large_sparse() {
    // No stored value, and a tensor too large for `dense`.
    let empty = SparseTensor::csr([2, 2], vec![0i32, 0, 0], vec![], Vec::<f32>::new()).unwrap();
    let large = SparseTensor::coo([1000, 1000], vec![5i32, 7], vec![1u16]).unwrap();
    let file = write_file("emptylarge", &[empty.into(), large.into()]);
    let lines = dump_ok(file.path());
    assert_eq!(lines[0]["nnz"], 0);
    assert_eq!(floats(&lines[0]["values"]), Vec::<f64>::new());
    assert_eq!(floats(&lines[0]["dense"]), [0.0; 4]);
    assert_eq!(nested_ints(&lines[1]["coords"]), [[5, 7]]);
    assert!(lines[1]["dense"].is_null());
    assert!(lines[1].get("dense_error").is_none());
}

/// A 4 x 4 COO whose last coordinate is patched to 99 (still sorted, out of bounds).
fn out_of_bounds_coo() -> TempFile {
    let mut bytes = stream(&[coo().into()], WriteOptions::default());
    let body = decode_message(&bytes::Bytes::from(bytes.clone()), &ReadOptions::default())
        .unwrap()
        .unwrap()
        .body_offset;
    let at = body + 5 * 8;
    assert_eq!(bytes[at..at + 8], 3i64.to_le_bytes());
    bytes[at..at + 8].copy_from_slice(&99i64.to_le_bytes());
    TempFile::with_bytes("oobcoo", &bytes)
}

#[test]
fn strict_and_permissive_on_out_of_bounds_coordinate() {
    let file = out_of_bounds_coo();

    let out = run(&["validate"], &[file.path()]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(err.contains(&file.name()), "{err}");
    assert!(err.contains("message at byte 0"), "{err}");
    assert!(err.contains("out of bounds"), "{err}");
    assert!(stdout(&out).contains("INVALID"));

    let out = run(&["validate", "--permissive"], &[file.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        format!("{}: 1 message OK", file.name())
    );

    let (lines, out) = dump(file.path(), false);
    assert_eq!(code(&out), 1);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["offset"], 0);
    assert!(lines[0]["error"]
        .as_str()
        .unwrap()
        .contains("out of bounds"));
    assert_eq!(lines[0].as_object().unwrap().len(), 2);

    let (lines, out) = dump(file.path(), true);
    assert_eq!(code(&out), 0);
    assert_eq!(nested_ints(&lines[0]["coords"]), [[0, 1], [2, 0], [3, 99]]);
    assert!(lines[0]["dense"].is_null());
    assert!(lines[0]["dense_error"].as_str().unwrap().contains("99"));

    // inspect reads strictly too.
    assert_eq!(code(&run(&["inspect"], &[file.path()])), 1);
    assert_eq!(code(&run(&["inspect", "--permissive"], &[file.path()])), 0);

    // convert keeps the bad coordinate in permissive mode only.
    let out_file = TempFile::new("oobcoo-out");
    let out = run(&["convert"], &[file.path(), out_file.path()]);
    assert_eq!(code(&out), 1);
    assert!(!out_file.path().exists(), "partial output left behind");
    let out = run(
        &["convert", "--permissive"],
        &[file.path(), out_file.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (lines, _) = dump(out_file.path(), true);
    assert_eq!(nested_ints(&lines[0]["coords"]), [[0, 1], [2, 0], [3, 99]]);
}

/// The CSR sample with indptr patched from [0, 1, 2] to [0, 2, 1].
fn decreasing_indptr() -> TempFile {
    let mut bytes = stream(&[csr().into()], WriteOptions::default());
    let body = decode_message(&bytes::Bytes::from(bytes.clone()), &ReadOptions::default())
        .unwrap()
        .unwrap()
        .body_offset;
    assert_eq!(bytes[body..body + 12], [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
    bytes[body + 4] = 2;
    bytes[body + 8] = 1;
    TempFile::with_bytes("badindptr", &bytes)
}

#[test]
fn validate_good_and_bad_files() {
    let good = write_file("good", &samples());
    let out = run(&["validate"], &[good.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        format!("{}: 6 messages OK", good.name())
    );
    assert!(stderr(&out).is_empty());

    let bad = decreasing_indptr();
    let out = run(&["validate"], &[good.path(), bad.path()]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(text.contains(&format!("{}: 6 messages OK", good.name())));
    assert!(text.contains(&format!("{}: INVALID", bad.name())), "{text}");
    let err = stderr(&out);
    assert!(err.contains(&bad.name()), "{err}");
    assert!(err.contains("message at byte 0"), "{err}");
    assert!(err.contains("non-decreasing"), "{err}");

    // Permissive reading accepts the structure; expanding it fails.
    let out = run(&["validate", "--permissive"], &[bad.path()]);
    assert_eq!(code(&out), 0);
    let (lines, out) = dump(bad.path(), true);
    assert_eq!(code(&out), 0);
    assert_eq!(ints(&lines[0]["indptr"]), [0, 2, 1]);
    assert!(lines[0]["dense"].is_null());
    assert!(lines[0]["dense_error"].is_string());
}

#[test]
fn truncated_file() {
    let bytes = stream(&[dense().into(), coo().into()], WriteOptions::default());
    let second = decode_all(&bytes, ReadOptions::strict())[1].offset;
    let file = TempFile::with_bytes("truncated", &bytes[..bytes.len() - 20]);

    let out = run(&["validate"], &[file.path()]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(err.contains(&format!("message at byte {second}")), "{err}");
    assert!(err.contains("truncated"), "{err}");
    assert!(stdout(&out).contains("after 1 valid message"));

    let (lines, out) = dump(file.path(), false);
    assert_eq!(code(&out), 1);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["kind"], "tensor");
    assert_eq!(lines[1]["offset"].as_u64(), Some(second));
    assert!(lines[1]["error"].as_str().unwrap().contains("truncated"));

    let out = run(&["inspect"], &[file.path()]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out).lines().count(), 2);
}

#[test]
fn empty_missing_and_garbage_files() {
    let empty = TempFile::with_bytes("empty", &[]);
    let out = run(&["validate"], &[empty.path()]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("0 messages OK"));
    let (lines, out) = dump(empty.path(), false);
    assert_eq!(code(&out), 0);
    assert!(lines.is_empty());

    let missing = TempFile::new("missing");
    for args in [&["validate"][..], &["dump"], &["inspect"]] {
        let out = run(args, &[missing.path()]);
        assert_eq!(code(&out), 1, "{args:?}");
        assert!(stderr(&out).contains(&missing.name()));
    }

    // Text is named as such, not decoded as a message.
    let garbage = TempFile::with_bytes("garbage", b"this is not an Arrow message at all, sorry");
    let out = run(&["validate"], &[garbage.path()]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("plain text"), "{}", stderr(&out));
    let (lines, out) = dump(garbage.path(), true);
    assert_eq!(code(&out), 1);
    assert!(lines.is_empty());
    assert!(stderr(&out).contains("plain text"), "{}", stderr(&out));
    // Binary data framed as a message is decoded, and the decoder says what is wrong.
    let framed = TempFile::with_bytes("framed", &[0xFF, 0xFF, 0xFF, 0xFF, 8, 0, 0, 0, 1, 2, 3]);
    let (lines, out) = dump(framed.path(), true);
    assert_eq!(code(&out), 1);
    assert_eq!(lines[0]["offset"], 0);
    assert!(lines[0]["error"].is_string());
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["bogus"],
        &["dump"],
        &["validate"],
        &["inspect"],
        &["convert", "only-one"],
        &["convert", "--csf-lengths", "words", "a", "b"],
        &["dump", "--strict-ish", "x"],
    ] {
        let out = run(args, &[]);
        assert_eq!(code(&out), 2, "{args:?}");
    }
    assert_eq!(code(&run(&["--help"], &[])), 0);
}

#[test]
fn inspect_lines() {
    let file = write_file("inspect", &samples());
    let out = run(&["inspect"], &[file.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    let decoded = decode_all(&file.bytes(), ReadOptions::strict());
    for (line, d) in lines.iter().zip(&decoded) {
        assert!(line.starts_with(&format!("@{}: ", d.offset)), "{line}");
        let body_at = d.offset + d.body_offset as u64;
        assert!(
            line.contains(&format!("body@{body_at} (64-aligned)")),
            "{line}"
        );
        assert!(line.contains(&format!("metadata {} B", d.metadata_length)));
        assert!(line.contains(&format!("body {} B", d.body_length)));
        assert!(line.contains("V5"));
    }
    assert!(lines[0].contains("tensor int32 shape [2, 3] names [\"rows\", \"cols\"] row-major"));
    assert!(lines[1].contains("float64") && lines[1].contains("column-major"));
    assert!(lines[2].contains("sparse_tensor float32 shape [4, 4]"));
    assert!(
        lines[2].contains("COO nnz 3 (index int64, canonical)"),
        "{}",
        lines[2]
    );
    assert!(lines[3].contains("CSR nnz 2 (indptr int32, indices int32)"));
    assert!(lines[4].contains("CSC nnz 2 (indptr int16, indices int16)"));
    assert!(lines[5].contains("CSF nnz 3 (indptr int64, indices int64, axis order [0, 1, 2])"));

    // Several files: a header line per file.
    let other = write_file("inspect2", &[csr().into()]);
    let out = run(&["inspect"], &[file.path(), other.path()]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 9);
    assert!(text.contains(&format!("{}:\n", other.name())));
}

fn assert_same_content(a: &[u8], b: &[u8], options: ReadOptions) {
    let (a, b) = (decode_all(a, options), decode_all(b, options));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        match (&x.message, &y.message) {
            (Message::Tensor(x), Message::Tensor(y)) => assert!(x.content_eq(y)),
            (Message::SparseTensor(x), Message::SparseTensor(y)) => assert!(x.content_eq(y)),
            _ => panic!("kinds differ"),
        }
    }
}

#[test]
fn convert_round_trip() {
    let input = write_file("convert-in", &samples());
    let output = TempFile::new("convert-out");
    let out = run(&["convert"], &[input.path(), output.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("6 messages written"));
    let (a, b) = (input.bytes(), output.bytes());
    // Written by the same writer with the same options: the same bytes.
    assert_eq!(a, b);
    assert_same_content(&a, &b, ReadOptions::strict());
    let decoded = decode_all(&b, ReadOptions::strict());
    assert!(decoded[1].message.as_tensor().unwrap().is_column_major());

    // CSF lengths in bytes: different metadata, same content.
    let bytes_out = TempFile::new("convert-bytes");
    let out = run(
        &["convert", "--csf-lengths", "bytes"],
        &[input.path(), bytes_out.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_ne!(bytes_out.bytes(), a);
    assert_same_content(&a, &bytes_out.bytes(), ReadOptions::strict());
    let want = stream(
        &samples(),
        WriteOptions::default().with_csf_lengths(CsfLengths::Bytes),
    );
    assert_eq!(bytes_out.bytes(), want);

    // Refuses to overwrite its input.
    let out = run(&["convert"], &[input.path(), input.path()]);
    assert_eq!(code(&out), 1);
    assert_eq!(input.bytes(), a);
}

#[test]
fn convert_non_arrow_messages() {
    let sparse = SparseTensor::csr([2, 2], vec![0u64, 1, 1], vec![1], vec![1.0f32]).unwrap();
    let input = TempFile::with_bytes("nonarrow", &stream(&[sparse.into()], non_arrow()));
    let output = TempFile::new("nonarrow-out");
    let out = run(&["convert"], &[input.path(), output.path()]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("--allow-non-arrow"),
        "{}",
        stderr(&out)
    );
    assert!(!output.path().exists());
    let out = run(
        &["convert", "--allow-non-arrow"],
        &[input.path(), output.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_same_content(&input.bytes(), &output.bytes(), ReadOptions::strict());
}

#[test]
fn convert_legacy_layouts_to_the_writer_layout() {
    // A message whose body buffers are not where our writer puts them: rewrite the CSR
    // sample with the legacy 4-byte prefix (no continuation marker).
    let bytes = stream(&[csr().into()], WriteOptions::default());
    let meta_len = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
    let mut legacy = bytes[4..].to_vec();
    assert_eq!(
        u32::from_le_bytes(legacy[..4].try_into().unwrap()),
        meta_len
    );
    legacy.truncate(legacy.len() - 8);
    legacy.extend_from_slice(&[0, 0, 0, 0]);
    let input = TempFile::with_bytes("legacy", &legacy);
    let out = run(&["inspect"], &[input.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("legacy framing"));
    assert!(stdout(&out).contains("body@"));
    assert!(stdout(&out).contains("(4-aligned)"), "{}", stdout(&out));
    let output = TempFile::new("legacy-out");
    let out = run(&["convert"], &[input.path(), output.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(output.bytes(), bytes);
}

#[test]
fn end_of_stream_notes() {
    let bytes = stream(&[csr().into()], WriteOptions::default());
    let no_eos = TempFile::with_bytes("noeos", &bytes[..bytes.len() - 8]);
    let out = run(&["validate"], &[no_eos.path()]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("1 message OK (no end-of-stream marker)"));
    let mut trailing = bytes.clone();
    trailing.extend_from_slice(b"junk");
    let trailing = TempFile::with_bytes("trailing", &trailing);
    let out = run(&["validate"], &[trailing.path()]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("(4 bytes after the end-of-stream marker ignored)"));
}

/// Damage every byte of a small file in turn: the tool reports or accepts, never panics.
#[test]
fn corrupted_bytes_never_panic() {
    let bytes = stream(&[csf().into(), coo().into()], WriteOptions::default());
    let mut damaged = bytes.clone();
    let file = TempFile::new("fuzz");
    for i in 0..bytes.len() {
        for value in [0xFF, bytes[i] ^ 0x01] {
            damaged[i] = value;
            std::fs::write(file.path(), &damaged).unwrap();
            let (_, out) = dump(file.path(), true);
            assert!(matches!(code(&out), 0 | 1), "byte {i} = {value:#x}");
            if i % 7 == 0 {
                let out = run(&["validate"], &[file.path()]);
                assert!(matches!(code(&out), 0 | 1), "byte {i} = {value:#x}");
                let out = run(&["inspect", "--permissive"], &[file.path()]);
                assert!(matches!(code(&out), 0 | 1), "byte {i} = {value:#x}");
            }
        }
        damaged[i] = bytes[i];
    }
}

/// A float64 tensor [1, 2, 3] whose metadata is patched to shape [size] with stride 0:
/// `size` logical elements, all the first stored value.
fn zero_stride(tag: &str, size: i64) -> TempFile {
    let t = Tensor::from_vec(vec![3], vec![1.0f64, 2.0, 3.0]).unwrap();
    let mut bytes = stream(&[t.into()], WriteOptions::default());
    let meta_end = 8 + u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let find = |v: i64| -> usize {
        let hits: Vec<usize> = (8..meta_end - 8)
            .filter(|&i| bytes[i..i + 8] == v.to_le_bytes())
            .collect();
        assert_eq!(hits.len(), 1, "{v} found at {hits:?}");
        hits[0]
    };
    let (size_at, stride_at) = (find(3), find(8));
    bytes[size_at..size_at + 8].copy_from_slice(&size.to_le_bytes());
    bytes[stride_at..stride_at + 8].copy_from_slice(&0i64.to_le_bytes());
    TempFile::with_bytes(tag, &bytes)
}

#[test]
fn zero_strides() {
    let small = zero_stride("zerostride-small", 5);
    let lines = dump_ok(small.path());
    assert_eq!(ints(&lines[0]["shape"]), [5]);
    assert_eq!(ints(&lines[0]["strides"]), [0]);
    assert_eq!(floats(&lines[0]["values"]), [1.0; 5]);
    let out = run(&["inspect"], &[small.path()]);
    assert!(stdout(&out).contains("strided [0]"), "{}", stdout(&out));
    let output = TempFile::new("zerostride-out");
    let out = run(&["convert"], &[small.path(), output.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines = dump_ok(output.path());
    assert_eq!(ints(&lines[0]["strides"]), [8]);
    assert_eq!(floats(&lines[0]["values"]), [1.0; 5]);

    // 2^40 elements in a 200-byte message: the decoder refuses it (a row-major copy would
    // need 8 TiB), whatever the subcommand.
    let huge = zero_stride("zerostride-huge", 1 << 40);
    let out = run(&["validate"], &[huge.path()]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("aliasing strides"),
        "{}",
        stderr(&out)
    );
    let (lines, out) = dump(huge.path(), false);
    assert_eq!(code(&out), 1);
    assert!(lines[0]["error"]
        .as_str()
        .unwrap()
        .contains("over the limit"));
    // A medium one (under the limit, over the dump's 100000-element cap) is reported, not
    // expanded.
    let medium = zero_stride("zerostride-medium", 1 << 20);
    let lines = dump_ok(medium.path());
    assert_eq!(lines[0]["shape"][0].as_u64(), Some(1 << 20));
    assert!(lines[0]["values"].is_null());
    let out = run(&["convert"], &[huge.path(), output.path()]);
    assert_eq!(code(&out), 1);
    assert!(!output.path().exists());
}

#[test]
fn convert_to_every_layout_keeps_contents() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/arrow-cpp-26.arrows");
    let read = |p: &Path| -> Vec<arrow_tensor_ipc::Tensor> {
        let bytes = bytes::Bytes::from(std::fs::read(p).unwrap());
        arrow_tensor_ipc::MessageIter::new(bytes, &arrow_tensor_ipc::ReadOptions::strict())
            .map(|m| match m.unwrap().message {
                arrow_tensor_ipc::Message::Tensor(t) => t.to_row_major(),
                arrow_tensor_ipc::Message::SparseTensor(t) => t.to_dense().unwrap(),
            })
            .collect()
    };
    let original = read(&sample);
    for to in ["dense", "coo", "csr", "csc", "csf"] {
        let output = TempFile::new(&format!("to-{to}"));
        let out = run(
            &["convert", "--to", to, "--index-type", "int32"],
            &[&sample, output.path()],
        );
        if matches!(to, "csr" | "csc") {
            // The sample holds rank-3 and rank-4 tensors: CSX needs rank 2.
            assert_eq!(code(&out), 1, "{}", stderr(&out));
            continue;
        }
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let converted = read(output.path());
        assert_eq!(converted.len(), original.len());
        for (a, b) in original.iter().zip(&converted) {
            assert!(a.content_eq(b), "--to {to}");
        }
    }
}

#[test]
fn convert_progress_bar() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/arrow-cpp-26.arrows");
    let size = std::fs::metadata(&sample).unwrap().len();
    let output = TempFile::new("progress-out");
    // Forced: drawn in place with carriage returns, ending at 100% with every message.
    let out = run(
        &["convert", "--progress", "--to", "coo"],
        &[&sample, output.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains('\r'), "{err:?}");
    assert!(
        err.ends_with('\n'),
        "the last drawing ends the line: {err:?}"
    );
    let last = err.trim_end().rsplit('\r').next().unwrap();
    assert!(last.starts_with("[####"), "{last:?}");
    assert!(last.contains("] 100%"), "{last:?}");
    assert!(!last.contains('-'), "a full bar: {last:?}");
    assert!(last.ends_with("6 messages written  done"), "{last:?}");
    // Bytes read equal the input's size (both printed with the same unit), with the rate
    // and the time left.
    let sizes = last.split("100%  ").nth(1).unwrap();
    let (read, rest) = sizes.split_once(" / ").unwrap();
    let total = rest.split("  ").next().unwrap();
    assert_eq!(read, total, "{last:?}");
    assert!(
        total.ends_with(if size < 1024 { " B" } else { " KiB" }),
        "{last:?}"
    );
    assert!(last.contains("/s  ETA "), "{last:?}");
    for stage in ["reading", "converting", "writing", "written"] {
        assert!(err.contains(stage), "no {stage} in {err:?}");
    }
    // A small input into a pipe: no bar by default; never with --no-progress.
    for flags in [
        &["convert", "--to", "coo"][..],
        &["convert", "--no-progress"],
    ] {
        let out = run(flags, &[&sample, output.path()]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(!stderr(&out).contains('%'), "{}", stderr(&out));
    }
    // A failure ends the line with "failed" (rank-3 tensors cannot be CSR).
    let out = run(
        &["convert", "--progress", "--to", "csr"],
        &[&sample, output.path()],
    );
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("failed\n"), "{}", stderr(&out));
    // The two flags contradict each other.
    let out = run(
        &["convert", "--progress", "--no-progress"],
        &[&sample, output.path()],
    );
    assert_eq!(code(&out), 2);
}

#[test]
fn convert_threads_do_not_change_output() {
    // 1100 x 1000 float32 (above the size conversions split between threads), ~3%
    // non-zeros: every layout, and back to dense, byte for byte the same whatever
    // `--threads` says.
    let mut state = 0x5eed_1234_u64;
    let data: Vec<f32> = (0..1100 * 1000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if state.is_multiple_of(32) {
                (state >> 40) as f32
            } else {
                0.0
            }
        })
        .collect();
    let t = Tensor::from_vec(vec![1100, 1000], data).unwrap();
    let input = write_file("threads-in", &[Message::Tensor(t)]);
    for to in ["coo", "csr", "csc", "csf"] {
        let mut outputs = Vec::new();
        for threads in ["1", "2", "3"] {
            let sparse = TempFile::new("threads-sparse");
            let out = run(
                &["convert", "--to", to, "--threads", threads],
                &[input.path(), sparse.path()],
            );
            assert_eq!(code(&out), 0, "{}", stderr(&out));
            let dense = TempFile::new("threads-dense");
            let out = run(
                &["convert", "--to", "dense", "--threads", threads],
                &[sparse.path(), dense.path()],
            );
            assert_eq!(code(&out), 0, "{}", stderr(&out));
            outputs.push((
                std::fs::read(sparse.path()).unwrap(),
                std::fs::read(dense.path()).unwrap(),
            ));
        }
        assert!(outputs.windows(2).all(|w| w[0] == w[1]), "{to}");
        // And the expansion is the input again.
        assert!(outputs[0].1 == std::fs::read(input.path()).unwrap(), "{to}");
    }
}

/// `convert --format` to each table format and back again, IPC files and streams; a
/// message that does not fit the first one's table fails with nothing left behind.
#[test]
fn convert_to_record_batches_and_back() {
    let dense_messages: Vec<Message> = vec![dense().into(), dense().into()];
    let input = write_file("rb-in", &dense_messages);
    for (format, ext) in [
        ("fixed-shape-tensor", "arrow"),
        ("fixed-shape-tensor", "arrows"),
        ("variable-shape-tensor", "feather"),
        ("coo-table", "arrows"),
    ] {
        let table = TempFile::new(&format!("rb-{format}"));
        let table_path = table.path().with_extension(ext);
        let out = run(
            &["convert", "--format", format],
            &[input.path(), &table_path],
        );
        assert_eq!(code(&out), 0, "{format}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("2 messages written as"),
            "{}",
            stdout(&out)
        );
        let bytes = std::fs::read(&table_path).unwrap();
        assert_eq!(
            bytes.starts_with(b"ARROW1"),
            ext != "arrows",
            "{format} {ext}"
        );
        let back = TempFile::new(&format!("rb-{format}-back"));
        let out = run(&["convert"], &[&table_path, back.path()]);
        assert_eq!(code(&out), 0, "{format}: {}", stderr(&out));
        let decoded = decode_all(&back.bytes(), ReadOptions::strict());
        assert_eq!(decoded.len(), 2, "{format}");
        for d in &decoded {
            let t = match &d.message {
                Message::Tensor(t) => t.clone(),
                Message::SparseTensor(s) => s.to_dense().unwrap(),
            };
            assert_eq!(
                t.to_vec::<i32>().unwrap(),
                dense().to_vec::<i32>().unwrap(),
                "{format}"
            );
            assert_eq!(t.shape(), dense().shape());
        }
        let _ = std::fs::remove_file(&table_path);
    }

    // Rows as messages: each row one message of the cell shape.
    let table = TempFile::new("rb-rows");
    let out = run(
        &["convert", "--format", "fixed-shape-tensor"],
        &[input.path(), table.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let back = TempFile::new("rb-rows-back");
    let out = run(
        &["convert", "--rows", "message"],
        &[table.path(), back.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let decoded = decode_all(&back.bytes(), ReadOptions::strict());
    assert_eq!(decoded.len(), 4);
    assert_eq!(
        decoded[1]
            .message
            .as_tensor()
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![4, 5, i32::MIN]
    );

    // A COO table back in another layout.
    let sparse = write_file("rb-sparse", &[csr().into()]);
    let table = TempFile::new("rb-coo");
    let out = run(
        &["convert", "--format", "coo-table"],
        &[sparse.path(), table.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let back = TempFile::new("rb-coo-back");
    let out = run(&["convert", "--to", "csc"], &[table.path(), back.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let decoded = decode_all(&back.bytes(), ReadOptions::strict());
    let s = decoded[0].message.as_sparse().unwrap();
    assert_eq!(s.format(), SparseFormat::Csc);
    assert!(s.to_dense().unwrap().content_eq(&csr().to_dense().unwrap()));

    // A message of another cell shape: an error naming it, and no output left.
    let mixed = write_file("rb-mixed", &[dense().into(), column_major().into()]);
    let table = TempFile::new("rb-mixed-out");
    let out = run(
        &["convert", "--format", "fixed-shape-tensor"],
        &[mixed.path(), table.path()],
    );
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("message 1"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("partial output removed"),
        "{}",
        stderr(&out)
    );
    assert!(!table.path().exists());
}

/// The sample matrix of the Matrix Market format report (`samples/nist_ex1.mtx`).
fn nist_ex1() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/nist_ex1.mtx")
}

/// `convert` picks .mtx, .tns, .npy and .npz by extension, in and out: the sample matrix
/// goes to CSR messages, then into each format and back to messages with the same values;
/// `inspect` prints one line per such file.
#[test]
fn convert_through_file_formats_by_extension() {
    let messages = TempFile::new("ex1");
    let out = run(
        &[
            "convert",
            &nist_ex1().display().to_string(),
            &messages.name(),
            "--to",
            "csr",
        ],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let decoded = decode_all(&messages.bytes(), ReadOptions::strict());
    let Message::SparseTensor(csr) = &decoded[0].message else {
        panic!("not sparse")
    };
    assert_eq!(csr.format(), SparseFormat::Csr);
    assert_eq!(csr.shape(), &[5, 5]);
    assert_eq!(csr.nnz(), 8);
    let dense = csr.to_dense().unwrap();
    assert_eq!(dense.to_vec::<f64>().unwrap()[3 * 5 + 1], 250.5);
    for (ext, name) in [
        ("mtx", "Matrix Market"),
        ("tns", "FROSTT"),
        ("npy", "npy"),
        ("npz", "npz"),
    ] {
        let file = TempFile::with_ext("ex1", ext);
        let out = run(&["convert", &messages.name(), &file.name()], &[]);
        assert_eq!(code(&out), 0, "{ext}: {}", stderr(&out));
        let out = run(&["inspect", &file.name()], &[]);
        assert_eq!(code(&out), 0, "{ext}: {}", stderr(&out));
        assert!(
            stdout(&out).starts_with(&format!("{name} file"))
                && stdout(&out).contains("shape [5, 5]"),
            "{ext}: {}",
            stdout(&out)
        );
        let back = TempFile::new("ex1-back");
        let out = run(
            &["convert", &file.name(), &back.name(), "--to", "dense"],
            &[],
        );
        assert_eq!(code(&out), 0, "{ext}: {}", stderr(&out));
        let m = decode_all(&back.bytes(), ReadOptions::strict());
        let Message::Tensor(t) = &m[0].message else {
            panic!("{ext}: not dense")
        };
        assert!(t.content_eq(&dense), "{ext}");
    }
}

/// A file of one tensor refuses a second message (and is removed); a malformed text file
/// is refused with its line.
#[test]
fn file_formats_refuse_a_second_message_and_name_bad_lines() {
    let two = write_file(
        "two",
        &[Message::SparseTensor(csr()), Message::SparseTensor(csr())],
    );
    let mtx = TempFile::with_ext("two", "mtx");
    let out = run(&["convert", &two.name(), &mtx.name()], &[]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("holds one tensor"),
        "{}",
        stderr(&out)
    );
    assert!(!mtx.path().exists());
    let bad = TempFile::with_ext("bad", "mtx");
    std::fs::write(
        bad.path(),
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 2.0\n",
    )
    .unwrap();
    let out_file = TempFile::new("bad-out");
    let out = run(&["convert", &bad.name(), &out_file.name()], &[]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("line 4"), "{}", stderr(&out));
    assert!(!out_file.path().exists());
}

/// `--permissive` applies to Matrix Market inputs: a skew-symmetric file with a stored
/// diagonal entry (which scipy reads) converts and inspects; without it, both name the line.
#[test]
fn permissive_applies_to_matrix_market_inputs() {
    let skew = TempFile::with_ext("skew-diag", "mtx");
    std::fs::write(
        skew.path(),
        "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n1 1 5.0\n2 1 2.0\n",
    )
    .unwrap();
    let out_file = TempFile::new("skew-out");
    let out = run(&["convert", &skew.name(), &out_file.name()], &[]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("line 3"), "{}", stderr(&out));
    let out = run(&["inspect", &skew.name()], &[]);
    assert_eq!(code(&out), 1);
    let out = run(
        &[
            "convert",
            "--permissive",
            &skew.name(),
            &out_file.name(),
            "--to",
            "dense",
        ],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let m = decode_all(&out_file.bytes(), ReadOptions::strict());
    let Message::Tensor(t) = &m[0].message else {
        panic!("not dense")
    };
    assert_eq!(t.to_vec::<f64>().unwrap(), vec![5.0, -2.0, 2.0, 0.0]);
    let out = run(&["inspect", "--permissive", &skew.name()], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("skew"), "{}", stdout(&out));
}

/// A numpy-style bundle of named arrays goes both ways through `convert`: one dense message
/// per member (in archive order, names in custom_metadata, shown by `inspect` and `dump`),
/// and messages back into a bundle that reads to the same arrays; `inspect` lists members.
#[test]
fn npz_bundles_convert_both_ways_and_inspect_lists_members() {
    use arrow_tensor_ipc::formats::npz;
    use arrow_tensor_ipc::{CustomMetadata, NAME_KEY};
    let named = |n: &str, m: Message| m.with_custom_metadata(CustomMetadata::new([(NAME_KEY, n)]));
    let members = vec![
        named(
            "weights",
            Message::Tensor(Tensor::from_vec(vec![2, 2], vec![0.5f32, 1.5, 2.5, 3.5]).unwrap()),
        ),
        named(
            "ids",
            Message::Tensor(Tensor::from_vec(vec![3], vec![7i64, 8, 9]).unwrap()),
        ),
        named(
            "scalar",
            Message::Tensor(Tensor::from_vec(vec![], vec![4u8]).unwrap()),
        ),
    ];
    let mut npz = std::io::Cursor::new(Vec::new());
    npz::write(
        &members,
        &mut npz,
        &npz::NpzWriteOptions::default().with_compressed(true),
    )
    .unwrap();
    let bundle = TempFile::with_ext("bundle", "npz");
    std::fs::write(bundle.path(), npz.get_ref()).unwrap();

    let out = run(&["inspect", &bundle.name()], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("npz file (bundle of 3 named arrays)"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("member \"weights\": tensor float32 shape [2, 2]"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("member \"ids\": tensor int64 shape [3]"),
        "{text}"
    );
    assert!(
        lines[3].starts_with("member \"scalar\": tensor uint8 shape []"),
        "{text}"
    );

    let arrows = TempFile::new("bundle-msgs");
    let out = run(&["convert", &bundle.name(), &arrows.name()], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("3 messages written"),
        "{}",
        stdout(&out)
    );
    let decoded = decode_all(&arrows.bytes(), ReadOptions::strict());
    let names: Vec<_> = decoded.iter().map(|d| d.message.name().unwrap()).collect();
    assert_eq!(names, ["weights", "ids", "scalar"]);
    for (d, m) in decoded.iter().zip(&members) {
        assert!(d
            .message
            .as_tensor()
            .unwrap()
            .content_eq(m.as_tensor().unwrap()));
    }
    let out = run(&["inspect", &arrows.name()], &[]);
    assert!(
        stdout(&out).contains("custom_metadata {\"arrow_tensor_ipc.name\": \"weights\"}"),
        "{}",
        stdout(&out)
    );
    let json = dump_ok(arrows.path());
    assert_eq!(
        json[1]["custom_metadata"],
        serde_json::json!([{"key": "arrow_tensor_ipc.name", "value": "ids"}])
    );

    // Back into a bundle (stored): names and values kept.
    let again = TempFile::with_ext("bundle-again", "npz");
    let out = run(&["convert", &arrows.name(), &again.name()], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let back = npz::read(again.bytes(), &npz::NpzReadOptions::default()).unwrap();
    assert_eq!(back.len(), 3);
    for (b, m) in back.iter().zip(&members) {
        assert_eq!(b.name(), m.name());
        assert!(b.as_tensor().unwrap().content_eq(m.as_tensor().unwrap()));
    }

    // Unnamed dense messages get numpy's arr_N names; a sparse one among them is refused.
    let unnamed = write_file(
        "unnamed",
        &[
            Message::Tensor(Tensor::from_vec(vec![2], vec![1i32, 2]).unwrap()),
            Message::Tensor(Tensor::from_vec(vec![1], vec![3i32]).unwrap()),
        ],
    );
    let npz2 = TempFile::with_ext("unnamed", "npz");
    let out = run(
        &["convert", &unnamed.name(), &npz2.name(), "--compressed"],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let back = npz::read(npz2.bytes(), &npz::NpzReadOptions::default()).unwrap();
    let names: Vec<_> = back.iter().map(|m| m.name().unwrap()).collect();
    assert_eq!(names, ["arr_0", "arr_1"]);
    let mixed = write_file(
        "mixed",
        &[
            Message::Tensor(Tensor::from_vec(vec![2], vec![1i32, 2]).unwrap()),
            Message::SparseTensor(csr()),
        ],
    );
    let npz3 = TempFile::with_ext("mixed", "npz");
    let out = run(&["convert", &mixed.name(), &npz3.name()], &[]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("sparse"), "{}", stderr(&out));
    assert!(!npz3.path().exists());
}

/// Writes record batches as an Arrow IPC stream file.
fn write_batches(tag: &str, batches: &[arrow_array::RecordBatch]) -> TempFile {
    use arrow_tensor_ipc::record_batch::{IpcFormat, IpcWriteOptions, IpcWriter};
    let mut w = IpcWriter::new(
        Vec::new(),
        batches[0].schema(),
        &IpcWriteOptions::default().with_format(IpcFormat::Stream),
    )
    .unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    TempFile::with_bytes(tag, &w.finish().unwrap())
}

/// A one-row COO table, coordinates (0, 1), whose metadata claims `shape` and `format`.
fn claimed_coo_table(tag: &str, shape: &str, format: &str) -> TempFile {
    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let ndim = shape.split(',').count();
    let mut fields: Vec<Field> = (0..ndim)
        .map(|d| Field::new(format!("dim_{d}"), DataType::Int64, false))
        .collect();
    fields.push(Field::new("value", DataType::Float64, false));
    let meta = format!(r#"{{"shape":[{shape}],"format":"{format}","index_type":"int64"}}"#);
    let schema = Schema::new(fields).with_metadata(std::collections::HashMap::from([(
        arrow_tensor_ipc::record_batch::COO_TABLE_KEY.to_string(),
        meta,
    )]));
    let mut arrays: Vec<ArrayRef> = (0..ndim)
        .map(|d| Arc::new(Int64Array::from(vec![(d == 1) as i64])) as ArrayRef)
        .collect();
    arrays.push(Arc::new(Float64Array::from(vec![1.0f64])));
    let batch = RecordBatch::try_new(Arc::new(schema), arrays).unwrap();
    write_batches(tag, &[batch])
}

/// Runs `convert` with `extra` arguments on `input`; expects a clean error exit (never
/// 101 or 134, nor a signal) whose message holds every string of `want`.
fn convert_fails_cleanly(input: &Path, extra: &[&str], want: &[&str]) {
    let out_file = TempFile::new("claimed-out");
    let mut args = vec!["convert"];
    args.extend_from_slice(extra);
    let out = run(&args, &[input, out_file.path()]);
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{extra:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{extra:?}: {w:?} not in {err}");
    }
    assert!(!out_file.path().exists(), "{extra:?}: output left behind");
}

/// A COO table whose metadata claims a huge shape made `convert` abort on the allocation
/// of an indptr (exit 134) or panic with "capacity overflow" (exit 101): the fuzz finding
/// and its variations now fail cleanly, naming the column and the rule.
#[test]
fn convert_refuses_claimed_coo_table_shapes() {
    let finding = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus/record_batches/coo-table-claimed-rows.arrows");
    for extra in [
        &[][..],
        &["--to", "csc"],
        &["--to", "csr"],
        &["--format", "coo-table"],
    ] {
        convert_fails_cleanly(&finding, extra, &["\"dim_1\"", "Limits::max_index_len"]);
    }
    let max = i64::MAX.to_string();
    let big = (1u64 << 40).to_string();
    for (shape, format, column) in [
        (format!("{big},2"), "CSR", "\"dim_0\""),
        (format!("{max},2"), "CSR", "\"dim_0\""),
        (format!("2,{big}"), "CSC", "\"dim_1\""),
        (format!("2,{max}"), "CSC", "\"dim_1\""),
    ] {
        let table = claimed_coo_table("claimed", &shape, format);
        for extra in [
            &[][..],
            &["--to", "csr"],
            &["--to", "csc"],
            &["--to", "coo"],
        ] {
            convert_fails_cleanly(table.path(), extra, &[column, "Limits::max_index_len"]);
        }
    }
    // Recorded as COO, it reads; the conversion to CSR is what the limit refuses.
    let table = claimed_coo_table("claimed-coo", &format!("{big},2"), "COO");
    let out_file = TempFile::new("claimed-coo-out");
    let out = run(&["convert"], &[table.path(), out_file.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    convert_fails_cleanly(table.path(), &["--to", "csr"], &["Limits::max_index_len"]);
    convert_fails_cleanly(table.path(), &["--to", "dense"], &["over the limit"]);
    // A rank over the limit.
    let ones = vec!["1"; 65].join(",");
    let table = claimed_coo_table("claimed-rank", &ones, "COO");
    convert_fails_cleanly(table.path(), &[], &["schema metadata", "Limits::max_rank"]);
}

/// Fixed- and variable-shape columns whose metadata or shape cells claim more than the
/// storage holds, or a rank over the limit, fail cleanly naming the column.
#[test]
fn convert_refuses_claimed_tensor_column_shapes() {
    use arrow_array::{
        ArrayRef, FixedSizeListArray, Float32Array, Int32Array, ListArray, RecordBatch, StructArray,
    };
    use arrow_buffer::{OffsetBuffer, ScalarBuffer};
    use arrow_schema::{DataType, Field, Schema};
    use arrow_tensor_ipc::record_batch::{
        FixedShapeTensorType, VariableShapeTensorType, FIXED_SHAPE_TENSOR,
    };
    use std::sync::Arc;
    let item = |t: DataType| Arc::new(Field::new("item", t, false));
    let fsl = |size: i32, rows: usize| -> ArrayRef {
        let values: ArrayRef = Arc::new(Float32Array::from(vec![1.0f32; size as usize * rows]));
        Arc::new(FixedSizeListArray::try_new(item(DataType::Float32), size, values, None).unwrap())
    };
    let one_column = |field: Field, array: ArrayRef| {
        RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![array]).unwrap()
    };
    // A huge fixed-shape cell shape over lists of one value.
    for shape in [
        "[1048576,1048576]",
        "[1099511627776]",
        "[9223372036854775807,2]",
    ] {
        let field = Field::new(
            "t",
            DataType::FixedSizeList(item(DataType::Float32), 1),
            false,
        )
        .with_metadata(std::collections::HashMap::from([
            (
                "ARROW:extension:name".to_string(),
                FIXED_SHAPE_TENSOR.to_string(),
            ),
            (
                "ARROW:extension:metadata".to_string(),
                format!(r#"{{"shape":{shape}}}"#),
            ),
        ]));
        let file = write_batches("fixed-claimed", &[one_column(field, fsl(1, 2))]);
        convert_fails_cleanly(file.path(), &[], &["column \"t\""]);
        convert_fails_cleanly(file.path(), &["--rows", "message"], &["column \"t\""]);
    }
    // A fixed-shape rank over the limit.
    let field = FixedShapeTensorType::new(arrow_tensor_ipc::ValueType::Float32, vec![1; 64])
        .field("t")
        .unwrap();
    let file = write_batches("fixed-rank", &[one_column(field, fsl(1, 2))]);
    convert_fails_cleanly(file.path(), &[], &["column \"t\"", "Limits::max_rank"]);
    // Variable-shape: a huge shape cell over four values, and a rank over the limit.
    let variable = |ndim: usize, sizes: Vec<i32>| {
        let ty = VariableShapeTensorType::new(arrow_tensor_ipc::ValueType::Float32, ndim);
        let DataType::Struct(fields) = ty.storage_type().unwrap() else {
            panic!("not a struct")
        };
        let list = ListArray::try_new(
            item(DataType::Float32),
            OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 4])),
            Arc::new(Float32Array::from(vec![1.0f32; 4])),
            None,
        )
        .unwrap();
        let shape = FixedSizeListArray::try_new(
            item(DataType::Int32),
            ndim as i32,
            Arc::new(Int32Array::from(sizes)),
            None,
        )
        .unwrap();
        let array = StructArray::try_new(
            fields,
            vec![Arc::new(list) as ArrayRef, Arc::new(shape) as ArrayRef],
            None,
        )
        .unwrap();
        write_batches(
            "variable-claimed",
            &[one_column(ty.field("v").unwrap(), Arc::new(array))],
        )
    };
    for sizes in [
        vec![1 << 30, 1 << 30],
        vec![i32::MAX, i32::MAX],
        vec![65536, 65536],
    ] {
        let file = variable(2, sizes);
        convert_fails_cleanly(file.path(), &[], &["column \"v\"", "row 0"]);
    }
    let file = variable(100, vec![1; 100]);
    convert_fails_cleanly(file.path(), &[], &["column \"v\"", "Limits::max_rank"]);
}

/// A CSR with column indices out of order within a row, accepted with `--permissive`,
/// goes through a COO table and back (sorted); one with an index outside its shape makes
/// no table.
#[test]
fn permissive_csr_survives_a_coo_table_round_trip() {
    // CSR [2, 3]: row 0 holds columns 2 then 0 (out of order), row 1 column 1.
    let strict = SparseTensor::csr(
        [2, 3],
        vec![0i32, 2, 3],
        vec![0, 2, 1],
        vec![1.0f64, 2.0, 3.0],
    )
    .unwrap();
    let mut bytes = stream(&[strict.into()], WriteOptions::default());
    // The indices buffer holds int32 0, 2, 1: swap the first two.
    let pos = bytes
        .windows(12)
        .rposition(|w| w == [0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0])
        .expect("indices buffer");
    bytes[pos..pos + 8].copy_from_slice(&[2, 0, 0, 0, 0, 0, 0, 0]);
    let input = TempFile::with_bytes("unsorted-csr", &bytes);
    let table = TempFile::new("unsorted-table");
    let out = run(
        &["convert", "--format", "coo-table"],
        &[input.path(), table.path()],
    );
    assert_eq!(code(&out), 1, "strict mode refuses it: {}", stderr(&out));
    let out = run(
        &["convert", "--permissive", "--format", "coo-table"],
        &[input.path(), table.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for permissive in [false, true] {
        let back = TempFile::new("unsorted-back");
        let mut args = vec!["convert"];
        if permissive {
            args.push("--permissive");
        }
        let out = run(&args, &[table.path(), back.path()]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let decoded = decode_all(&back.bytes(), ReadOptions::strict());
        let s = decoded[0].message.as_sparse().unwrap();
        assert_eq!(s.format(), SparseFormat::Csr);
        assert_eq!(
            s.to_dense().unwrap().to_vec::<f64>().unwrap(),
            vec![2.0, 0.0, 1.0, 0.0, 3.0, 0.0]
        );
    }
    // An index outside the shape: no table, even permissively.
    let bytes_bad = {
        let mut b = bytes.clone();
        b[pos..pos + 4].copy_from_slice(&1_048_576i32.to_le_bytes());
        b
    };
    let input = TempFile::with_bytes("bad-csr", &bytes_bad);
    convert_fails_cleanly(
        input.path(),
        &["--permissive", "--format", "coo-table"],
        &["1048576"],
    );
}

/// A stream of an all-zero and a non-zero 512 x 512 message converted to CSR (index types
/// int16 and int32 by content) is one COO table stream (before: "table schema of message
/// 1 differs"); messages of another shape stay an error naming it.
#[test]
fn convert_one_shape_gives_one_coo_table_schema() {
    let zeros = Tensor::from_vec(vec![512, 512], vec![0.0f32; 512 * 512]).unwrap();
    let ones = Tensor::from_vec(vec![512, 512], vec![1.0f32; 512 * 512]).unwrap();
    let input = write_file("one-shape", &[zeros.into(), ones.into()]);
    let csr = TempFile::new("one-shape-csr");
    let out = run(&["convert", "--to", "csr"], &[input.path(), csr.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let table = TempFile::new("one-shape-table");
    let out = run(
        &["convert", "--format", "coo-table"],
        &[csr.path(), table.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("2 messages written as 2 record batches"),
        "{}",
        stdout(&out)
    );
    let back = TempFile::new("one-shape-back");
    let out = run(&["convert"], &[table.path(), back.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let decoded = decode_all(&back.bytes(), ReadOptions::strict());
    assert_eq!(decoded.len(), 2);
    assert_eq!(decoded[0].message.as_sparse().unwrap().nnz(), 0);
    assert_eq!(decoded[1].message.as_sparse().unwrap().nnz(), 512 * 512);
    // Another shape.
    let other = Tensor::from_vec(vec![512, 256], vec![1.0f32; 512 * 256]).unwrap();
    let mixed = write_file(
        "two-shapes",
        &[
            Tensor::from_vec(vec![512, 512], vec![1.0f32; 512 * 512])
                .unwrap()
                .into(),
            other.into(),
        ],
    );
    convert_fails_cleanly(
        mixed.path(),
        &["--format", "coo-table"],
        &["message 1", "[512,512]", "[512,256]"],
    );
}
/// The issue's example, (0,1) (1,0) (1,3) (2,3) in a 3 x 4 int32 tensor, with its
/// coordinates stored column-major (`indicesStrides [4, 16]`).
fn column_major_coo() -> SparseTensor {
    use arrow_tensor_ipc::{CooIndex, CooOrder, IndexArray, SparseIndex};
    let index = CooIndex::with_order(
        IndexArray::from_vec(vec![0i32, 1, 1, 2, 1, 0, 3, 3]),
        2,
        CooOrder::ColumnMajor,
    )
    .unwrap();
    SparseTensor::try_new(
        ValueType::Int32,
        vec![3, 4],
        Buffer::from_vec(vec![10i32, 20, 30, 40]),
        SparseIndex::Coo(index),
    )
    .unwrap()
}

#[test]
fn convert_column_major_coo_to_a_coo_table() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int8Type};
    let input = TempFile::with_bytes(
        "coo-col",
        &stream(&[column_major_coo().into()], non_arrow()),
    );
    let table = TempFile::new("coo-col-table");
    let out = run(
        &["convert", "--format", "coo-table"],
        &[input.path(), table.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let reader =
        arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(table.bytes()), None)
            .unwrap();
    let batches: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
    assert_eq!(batches.len(), 1);
    // Coordinate columns are typed by the shape: int8 holds every coordinate of 3 x 4.
    let coords = |i: usize| -> Vec<i8> {
        batches[0]
            .column(i)
            .as_primitive::<Int8Type>()
            .values()
            .to_vec()
    };
    assert_eq!(coords(0), vec![0, 1, 1, 2], "dim_0");
    assert_eq!(coords(1), vec![1, 0, 3, 3], "dim_1");
    let values: Vec<i32> = batches[0]
        .column(2)
        .as_primitive::<Int32Type>()
        .values()
        .to_vec();
    assert_eq!(values, vec![10, 20, 30, 40], "values");

    // And back: the same tensor.
    let back = TempFile::new("coo-col-table-back");
    let out = run(&["convert"], &[table.path(), back.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let decoded = decode_all(&back.bytes(), ReadOptions::strict());
    let t = decoded[0].message.as_sparse().unwrap();
    assert_eq!(
        t.to_dense().unwrap().to_vec::<i32>().unwrap(),
        vec![0, 10, 0, 0, 20, 0, 0, 30, 0, 0, 0, 40]
    );
}

#[test]
fn convert_writes_column_major_coo_row_major() {
    use arrow_tensor_ipc::{CooOrder, SparseIndex};
    let input = TempFile::with_bytes(
        "coo-col-in",
        &stream(&[column_major_coo().into()], non_arrow()),
    );
    let order = |bytes: &[u8]| -> CooOrder {
        let d = decode_all(bytes, ReadOptions::strict());
        match d[0].message.as_sparse().unwrap().index() {
            SparseIndex::Coo(c) => c.order(),
            _ => panic!("not COO"),
        }
    };
    assert_eq!(order(&input.bytes()), CooOrder::ColumnMajor);
    // Re-encoded for Arrow C++ (the default): row-major, same contents.
    let out_file = TempFile::new("coo-col-out");
    let out = run(&["convert"], &[input.path(), out_file.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(order(&out_file.bytes()), CooOrder::RowMajor);
    let a = decode_all(&out_file.bytes(), ReadOptions::strict());
    assert!(a[0]
        .message
        .as_sparse()
        .unwrap()
        .content_eq(&column_major_coo()));
    // The text writers: one line per entry, coordinates as given.
    let tns = TempFile::with_ext("coo-col-tns", "tns");
    let out = run(&["convert"], &[input.path(), tns.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        String::from_utf8(tns.bytes()).unwrap(),
        "1 2 10\n2 1 20\n2 4 30\n3 4 40\n"
    );
    let mtx = TempFile::with_ext("coo-col-mtx", "mtx");
    let out = run(&["convert"], &[input.path(), mtx.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8(mtx.bytes()).unwrap();
    assert!(
        text.ends_with("3 4 4\n1 2 10\n2 1 20\n2 4 30\n3 4 40\n"),
        "{text}"
    );
    // dump --json lists the coordinates as given.
    let lines = dump_ok(input.path());
    assert_eq!(
        nested_ints(&lines[0]["coords"]),
        vec![vec![0, 1], vec![1, 0], vec![1, 3], vec![2, 3]]
    );
}

/// Runs the tool with `input` on its standard input.
fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run arrow-tensor");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // The tool may stop reading early (an input of a kind it does not read).
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for arrow-tensor");
    writer.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked"),
        "arrow-tensor {args:?} panicked: {err}"
    );
    out
}

/// `producer | arrow-tensor convert - - --to coo | arrow-tensor dump -`: two processes
/// joined by a pipe give what the same conversion gives file to file, byte for byte.
#[test]
fn convert_pipes_standard_input_to_standard_output() {
    use std::io::Write;
    use std::process::Stdio;
    let input = stream(&samples(), WriteOptions::default());
    let file = TempFile::with_bytes("pipe-in", &input);
    let converted = TempFile::new("pipe-out");
    let out = run(
        &["convert", "--to", "coo"],
        &[file.path(), converted.path()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    let mut convert = Command::new(BIN)
        .args(["convert", "-", "-", "--to", "coo"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let dumping = Command::new(BIN)
        .args(["dump", "-"])
        .stdin(Stdio::from(convert.stdout.take().unwrap()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = convert.stdin.take().unwrap();
    let feed = input.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&feed).unwrap());
    let dumped = dumping.wait_with_output().unwrap();
    writer.join().unwrap();
    let converting = convert.wait_with_output().unwrap();
    assert_eq!(converting.status.code(), Some(0), "{}", stderr(&converting));
    // Standard output carries the data only: no summary line.
    assert!(converting.stdout.is_empty());
    assert_eq!(dumped.status.code(), Some(0), "{}", stderr(&dumped));
    let (from_file, out) = dump(converted.path(), false);
    assert_eq!(code(&out), 0);
    let from_pipe: Vec<Value> = stdout(&dumped)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(from_pipe.len(), 6);
    assert_eq!(from_pipe, from_file);

    // The same bytes through one process, and `validate -` names standard input.
    let piped = run_stdin(&["convert", "-", "-", "--to", "coo"], &input);
    assert_eq!(code(&piped), 0, "{}", stderr(&piped));
    assert_eq!(piped.stdout, converted.bytes());
    let validated = run_stdin(&["validate", "-"], &piped.stdout);
    assert_eq!(code(&validated), 0);
    assert_eq!(stdout(&validated), "standard input: 6 messages OK\n");
    // Standard input can be read once.
    let twice = run_stdin(&["validate", "-", "-"], &input);
    assert_eq!(code(&twice), 1);
    assert!(
        stderr(&twice).contains("more than once"),
        "{}",
        stderr(&twice)
    );
    // A failing message on standard input is reported with its offset.
    let second = decode_all(&input, ReadOptions::strict())[1].offset;
    let cut = run_stdin(&["validate", "-"], &input[..second as usize + 20]);
    assert_eq!(code(&cut), 1);
    assert!(stderr(&cut).contains(&format!("standard input: message at byte {second}")));
}

/// Files of every kind the tool reads, made from the sample matrix by `convert`.
fn every_kind() -> Vec<(&'static str, TempFile)> {
    let mut files = Vec::new();
    for (kind, ext, extra) in [
        ("messages", "arrows", &[][..]),
        ("mtx", "mtx", &[]),
        ("tns", "tns", &[]),
        ("npy", "npy", &[]),
        ("npz", "npz", &[]),
        ("ipc-stream", "arrows", &["--format", "coo-table"]),
        ("ipc-file", "arrow", &["--format", "coo-table"]),
    ] {
        let file = TempFile::with_ext(kind, ext);
        let mut args = vec!["convert".to_string(), nist_ex1().display().to_string()];
        args.push(file.name());
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&args, &[]);
        assert_eq!(code(&out), 0, "{kind}: {}", stderr(&out));
        files.push((kind, file));
    }
    files
}

/// `inspect`, `dump` and `validate` read every kind `convert` reads, from a file (named by
/// its content, whatever its extension) or from standard input, and `dump` prints the
/// tensor each holds.
#[test]
fn every_verb_reads_every_kind() {
    let expected: Vec<f64> = {
        let out = run(
            &[
                "convert",
                &nist_ex1().display().to_string(),
                "-",
                "--to",
                "dense",
            ],
            &[],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let m = decode_all(&out.stdout, ReadOptions::strict());
        m[0].message.as_tensor().unwrap().to_vec::<f64>().unwrap()
    };
    let check_dump = |kind: &str, out: &Output| {
        assert_eq!(code(out), 0, "{kind}: {}", stderr(out));
        let lines: Vec<Value> = stdout(out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 1, "{kind}");
        let m = &lines[0];
        assert_eq!(m["shape"], serde_json::json!([5, 5]), "{kind}");
        let values = if m["kind"] == "tensor" {
            &m["values"]
        } else {
            &m["dense"]
        };
        assert_eq!(floats(values), expected, "{kind}");
        // Messages have an offset, other tensors say where they came from.
        assert_eq!(m["offset"].is_u64(), kind == "messages", "{kind}: {m}");
        assert_eq!(m["source"].is_string(), kind != "messages", "{kind}: {m}");
    };
    for (kind, file) in every_kind() {
        let out = run(&["dump", "--json"], &[file.path()]);
        check_dump(kind, &out);
        let out = run_stdin(&["dump", "-"], &file.bytes());
        check_dump(kind, &out);

        let out = run(&["validate"], &[file.path()]);
        assert_eq!(code(&out), 0, "{kind}: {}", stderr(&out));
        let want = if kind == "messages" {
            "1 message OK"
        } else {
            "1 tensor OK"
        };
        assert!(stdout(&out).contains(want), "{kind}: {}", stdout(&out));
        let out = run_stdin(&["validate", "-"], &file.bytes());
        assert_eq!(code(&out), 0, "{kind}: {}", stderr(&out));

        let out = run(&["inspect"], &[file.path()]);
        assert_eq!(code(&out), 0, "{kind}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("shape [5, 5]"),
            "{kind}: {}",
            stdout(&out)
        );
        let from_stdin = run_stdin(&["inspect", "-"], &file.bytes());
        assert_eq!(stdout(&from_stdin), stdout(&out), "{kind}");

        // Content first: the same bytes under a misleading name.
        let renamed = TempFile::with_bytes(&format!("{kind}-renamed"), &file.bytes());
        let out = run(&["dump"], &[renamed.path()]);
        if kind != "tns" && kind != "mtx" {
            check_dump(kind, &out);
        }
    }
    // An IPC stream cut short on standard input (read as it comes) fails cleanly.
    let files = every_kind();
    let (_, ipc) = files.iter().find(|(k, _)| *k == "ipc-stream").unwrap();
    let bytes = ipc.bytes();
    for cut in [bytes.len() - 20, bytes.len() - 9, bytes.len() / 2] {
        let out = run_stdin(&["validate", "-"], &bytes[..cut]);
        assert_eq!(code(&out), 1, "cut at {cut}");
        assert!(
            stderr(&out).contains("truncated"),
            "cut at {cut}: {}",
            stderr(&out)
        );
    }
    // The regression of the issue: `dump --json x.npy` read the magic as a length.
    let npy = TempFile::with_ext("regression", "npy");
    let out = run(
        &["convert", &nist_ex1().display().to_string(), &npy.name()],
        &[],
    );
    assert_eq!(code(&out), 0);
    let out = run(&["dump", "--json"], &[npy.path()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("metadata length"));
}

/// A file of a kind the tool does not read is named as such by every verb, from a file
/// or from standard input, instead of being decoded as a message.
#[test]
fn kinds_not_read_are_named() {
    let mut zip = b"PK\x03\x04".to_vec();
    zip.resize(26, 0);
    zip.extend_from_slice(&8u16.to_le_bytes());
    zip.extend_from_slice(&0u16.to_le_bytes());
    zip.extend_from_slice(b"data.csv");
    for (bytes, ext, name) in [
        (&zip[..], "zip", "zip archive"),
        (b"\x89HDF\r\n\x1a\n\0\0\0\0", "h5", "HDF5"),
        (b"\x1f\x8b\x08\0\0\0\0\0", "gz", "gzip"),
        (b"a,b\n1,2\n", "csv", "plain text"),
        (
            b"\x01\x02\x03\x04\x05\x06\x07\x08\x09",
            "bin",
            "unknown binary data",
        ),
    ] {
        let file = TempFile::with_ext(ext, ext);
        std::fs::write(file.path(), bytes).unwrap();
        let output = TempFile::new("not-read-out");
        for args in [&["dump"][..], &["validate"], &["inspect"]] {
            for out in [
                run(args, &[file.path()]),
                run_stdin(&[args, &["-"]].concat(), bytes),
            ] {
                assert_eq!(code(&out), 1, "{ext} {args:?}");
                let err = stderr(&out);
                assert!(
                    err.contains(name) && err.contains("not a kind arrow-tensor reads"),
                    "{ext} {args:?}: {err}"
                );
                assert!(!err.contains("message at byte"), "{ext}: {err}");
            }
        }
        let out = run(&["convert"], &[file.path(), output.path()]);
        assert_eq!(code(&out), 1);
        assert!(stderr(&out).contains(name), "{ext}: {}", stderr(&out));
        assert!(!output.path().exists(), "{ext}: no output is created");
    }
}

/// `--help` states the inputs read, `-`, and the contract of memory-mapped input files.
#[test]
fn help_names_inputs_and_the_mapping_contract() {
    for args in [&["--help"][..], &["convert", "--help"], &["dump", "--help"]] {
        let out = run(args, &[]);
        assert_eq!(code(&out), 0);
        let help = stdout(&out);
        assert!(help.contains("`-` is standard input"), "{args:?}: {help}");
        assert!(
            help.contains("must not be modified or truncated"),
            "{args:?}: {help}"
        );
    }
}

/// A named pipe is read as it comes, like standard input: what detection peeked is not
/// lost (tensor messages), and other kinds are spooled.
#[cfg(unix)]
#[test]
fn named_pipes_are_read_like_standard_input() {
    let messages = write_file("fifo-src", &samples());
    let npz = TempFile::with_ext("fifo-src", "npz");
    let out = run(
        &["convert", &nist_ex1().display().to_string(), &npz.name()],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for (source, want) in [(&messages, "6 messages OK"), (&npz, "1 tensor OK (npz)")] {
        let fifo = TempFile::with_ext("fifo", "pipe");
        let script = "mkfifo \"$1\" || exit 9; cat \"$2\" > \"$1\" & exec \"$0\" validate \"$1\"";
        let out = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(BIN)
            .arg(fifo.path())
            .arg(source.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(stdout(&out).contains(want), "{}", stdout(&out));
    }
}
