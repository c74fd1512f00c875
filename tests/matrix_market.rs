//! Matrix Market reader and writer: files scipy writes read to scipy's values, files we
//! write read by scipy to ours, round trips of every value type and layout, and malformed
//! files refused with the line they concern (never a panic).

use arrow_buffer::Buffer;
use arrow_tensor_ipc::formats::mtx::{self, Field, Format, Symmetry};
use arrow_tensor_ipc::{
    f16, ConvertOptions, CooIndex, ErrorKind, IndexArray, IndexType, Limits, Location, Message,
    Scalar, SparseFormat, SparseIndex, SparseTensor, Tensor, ValueType,
};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The venv's Python (a missing venv fails the test: run `scripts/venv.sh`).
#[path = "common/venv.rs"]
mod venv;
use venv::python;

fn run_python(script: &str, dir: &Path) -> serde_json::Value {
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(dir)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON from python")
}

fn scratch(name: &str) -> PathBuf {
    venv::scratch("test-scratch", name)
}

fn read(bytes: &[u8]) -> arrow_tensor_ipc::Result<Message> {
    read_mtx(bytes, &mtx::MtxReadOptions::default())
}

/// `mtx::read`, which gives one message per file.
fn read_mtx(bytes: &[u8], options: &mtx::MtxReadOptions) -> arrow_tensor_ipc::Result<Message> {
    let mut messages = mtx::read(bytes, options)?;
    assert_eq!(messages.len(), 1, "a Matrix Market file is one message");
    Ok(messages.remove(0))
}

/// `mtx::write` of one message.
fn write_mtx(
    message: &Message,
    out: impl std::io::Write,
    options: &mtx::MtxWriteOptions,
) -> arrow_tensor_ipc::Result<()> {
    mtx::write(std::slice::from_ref(message), out, options)
}

fn dense(m: &Message) -> Tensor {
    match m {
        Message::Tensor(t) => t.clone(),
        Message::SparseTensor(s) => s.to_dense().expect("to_dense"),
    }
}

/// Whether our value equals the value scipy printed (`repr` of a float, `str` of an int),
/// the float rounded to our type first.
fn same_value(ours: Scalar, theirs: &str) -> bool {
    let f = || -> f64 {
        match theirs {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            s => s.parse().unwrap_or_else(|_| panic!("not a float: {s}")),
        }
    };
    let int = || -> i128 {
        theirs
            .parse::<i128>()
            .or_else(|_| theirs.parse::<f64>().map(|v| v as i128))
            .unwrap_or_else(|_| panic!("not an integer: {theirs}"))
    };
    match ours {
        Scalar::Float64(v) => {
            let t = f();
            (v.is_nan() && t.is_nan()) || v.to_bits() == t.to_bits() || (v == 0.0 && t == 0.0)
        }
        Scalar::Float32(v) => {
            let t = f() as f32;
            (v.is_nan() && t.is_nan()) || v.to_bits() == t.to_bits() || (v == 0.0 && t == 0.0)
        }
        Scalar::Float16(v) => {
            let t = f16::from_f64(f());
            (v.is_nan() && t.is_nan())
                || v.to_bits() == t.to_bits()
                || (v.to_f64() == 0.0 && t.to_f64() == 0.0)
        }
        Scalar::Int8(v) => i128::from(v) == int(),
        Scalar::Int16(v) => i128::from(v) == int(),
        Scalar::Int32(v) => i128::from(v) == int(),
        Scalar::Int64(v) => i128::from(v) == int(),
        Scalar::UInt8(v) => i128::from(v) == int(),
        Scalar::UInt16(v) => i128::from(v) == int(),
        Scalar::UInt32(v) => i128::from(v) == int(),
        Scalar::UInt64(v) => i128::from(v) == int(),
    }
}

fn assert_matches_scipy(name: &str, ours: &Tensor, case: &serde_json::Value) {
    let shape: Vec<usize> = case["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|v| v.as_u64().expect("dim") as usize)
        .collect();
    assert_eq!(ours.shape(), shape.as_slice(), "{name}: shape");
    let theirs = case["dense"].as_array().expect("dense");
    let ours_values: Vec<Scalar> = ours.iter().collect();
    assert_eq!(ours_values.len(), theirs.len(), "{name}: element count");
    for (k, (o, t)) in ours_values.iter().zip(theirs).enumerate() {
        let t = t.as_str().expect("value string");
        assert!(
            same_value(*o, t),
            "{name}: element {k}: ours {o:?}, scipy {t}"
        );
    }
}

const SCIPY_WRITES: &str = r#"
import json, os, sys
import numpy as np, scipy.io, scipy.sparse as sp
d = sys.argv[1]
rng = np.random.default_rng(7)
cases = {}
def write(name, m, **kw):
    path = os.path.join(d, name)
    scipy.io.mmwrite(path, m, **kw)
    r = scipy.io.mmread(path)
    a = r.toarray() if sp.issparse(r) else np.asarray(r)
    info = scipy.io.mminfo(path)
    cases[name] = {"shape": list(a.shape), "format": info[3], "field": info[4], "symmetry": info[5],
                   "entries": int(info[2]),
                   "dense": [repr(x) if isinstance(x, float) else str(x) for x in a.ravel().tolist()]}
def rand_sparse(r, c, density, seed):
    m = sp.random(r, c, density=density, random_state=seed, format="coo")
    m.data = rng.standard_normal(m.nnz) * 10.0 ** rng.integers(-300, 300, m.nnz)
    return m
a = rand_sparse(7, 5, 0.4, 1)
write("real_general.mtx", a)
b = rand_sparse(6, 6, 0.3, 2)
write("real_symmetric.mtx", b + b.T, symmetry="symmetric")
write("real_skew.mtx", b - b.T, symmetry="skew-symmetric")
ia = a.copy(); ia.data = rng.integers(-2**62, 2**62, ia.nnz); ia = ia.astype(np.int64)
write("integer_general.mtx", ia)
ib = b.copy(); ib.data = rng.integers(-1000, 1000, ib.nnz); ib = ib.astype(np.int64)
write("integer_symmetric.mtx", ib + ib.T, symmetry="symmetric")
write("integer_skew.mtx", ib - ib.T, symmetry="skew-symmetric")
write("pattern_general.mtx", a, field="pattern")
write("pattern_symmetric.mtx", b + b.T, field="pattern", symmetry="symmetric")
write("array_real_general.mtx", rng.standard_normal((4, 3)) * 1e-5)
s = rng.standard_normal((4, 4)); write("array_real_symmetric.mtx", s + s.T, symmetry="symmetric")
write("array_real_skew.mtx", s - s.T, symmetry="skew-symmetric")
write("array_integer_general.mtx", rng.integers(-2**40, 2**40, (3, 5)))
write("array_integer_symmetric.mtx", (lambda t: t + t.T)(rng.integers(-9, 9, (3, 3))), symmetry="symmetric")
write("empty_coordinate.mtx", sp.coo_matrix((3, 4)))
# (An empty array, np.zeros((0, 3)), is left out: scipy 1.17 mmread dies of SIGFPE on it.)
write("zero_array.mtx", np.zeros((2, 3)))
write("comments.mtx", a, comment="first comment\nsecond comment line")
print(json.dumps(cases))
"#;

#[test]
fn files_written_by_scipy_read_to_scipys_values() {
    let dir = scratch("mtx_scipy_writes");
    let cases = run_python(SCIPY_WRITES, &dir);
    let cases = cases.as_object().expect("object");
    assert_eq!(cases.len(), 16, "every file scipy wrote");
    for (name, case) in cases {
        let bytes = std::fs::read(dir.join(name)).expect("read file");
        let h = mtx::read_header(&bytes, &mtx::MtxReadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let format = match h.format {
            Format::Coordinate => "coordinate",
            Format::Array => "array",
        };
        let field = match h.field {
            Field::Real => "real",
            Field::Integer => "integer",
            Field::Pattern => "pattern",
        };
        let symmetry = match h.symmetry {
            Symmetry::General => "general",
            Symmetry::Symmetric => "symmetric",
            Symmetry::SkewSymmetric => "skew-symmetric",
        };
        assert_eq!(format, case["format"], "{name}");
        assert_eq!(field, case["field"], "{name}");
        assert_eq!(symmetry, case["symmetry"], "{name}");
        let m = read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        match (&m, h.format) {
            (Message::SparseTensor(t), Format::Coordinate) => {
                assert_eq!(t.format(), SparseFormat::Coo);
                let expected = if h.field == Field::Integer {
                    ValueType::Int64
                } else {
                    ValueType::Float64
                };
                assert_eq!(t.value_type(), expected, "{name}");
            }
            (Message::Tensor(t), Format::Array) => assert!(t.is_column_major(), "{name}"),
            _ => panic!("{name}: wrong message kind"),
        }
        assert_matches_scipy(name, &dense(&m), case);
        // Kept as stored: the stored triangle only.
        if h.symmetry != Symmetry::General && h.format == Format::Coordinate {
            let opts = mtx::MtxReadOptions::default().with_expand_symmetry(false);
            let Message::SparseTensor(t) = read_mtx(&bytes, &opts).expect("read") else {
                panic!("{name}: not sparse");
            };
            assert_eq!(t.nnz() as u64, h.entries, "{name}");
        }
    }
}

fn coo<T: arrow_tensor_ipc::NativeValue>(
    shape: [usize; 2],
    coords: Vec<i64>,
    values: Vec<T>,
) -> SparseTensor {
    SparseTensor::coo(shape, coords, values).expect("coo")
}

#[test]
fn files_we_write_read_in_scipy_to_our_values() {
    let dir = scratch("mtx_we_write");
    let opts = ConvertOptions::default();
    let specials = coo(
        [3, 4],
        vec![0, 0, 0, 3, 1, 1, 1, 2, 2, 0, 2, 1, 2, 2, 2, 3],
        vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            1e-300,
            5e-324,
            f64::MAX,
            0.1,
        ],
    );
    let ints = coo([4, 3], vec![3, 2, 0, 1, 2, 0], vec![i32::MIN, i32::MAX, -7]);
    let csr = ints.to_format_with(SparseFormat::Csr, &opts).expect("csr");
    let csc = coo([3, 3], vec![0, 0, 2, 1], vec![u32::MAX, 9])
        .to_format_with(SparseFormat::Csc, &opts)
        .expect("csc");
    let dense_f64 =
        Tensor::from_vec(vec![2, 3], vec![1.5f64, -2.25, 0.0, 1e100, -1e-100, 3.0]).expect("dense");
    let sym_i64 =
        Tensor::from_vec(vec![3, 3], vec![1i64, 2, 3, 2, 5, -6, 3, -6, i64::MIN]).expect("dense");
    let sym_f32 = coo([3, 3], vec![0, 1, 1, 0, 2, 2], vec![0.1f32, 0.1, 3.5e-40]);
    let half = coo(
        [2, 2],
        vec![0, 0, 1, 1],
        vec![f16::from_f32(0.1), f16::from_f32(-65504.0)],
    );
    let skew = coo([3, 3], vec![0, 2, 2, 0, 2, 1, 1, 2], vec![5i64, -5, 7, -7]);
    let empty = coo::<f64>([3, 4], vec![], vec![]);
    let empty_dense = Tensor::from_vec(vec![2, 0], Vec::<f32>::new()).expect("dense");
    let cases: Vec<(&str, Message, Symmetry)> = vec![
        (
            "specials.mtx",
            Message::SparseTensor(specials),
            Symmetry::General,
        ),
        ("csr_i32.mtx", Message::SparseTensor(csr), Symmetry::General),
        ("csc_u32.mtx", Message::SparseTensor(csc), Symmetry::General),
        (
            "dense_f64.mtx",
            Message::Tensor(dense_f64),
            Symmetry::General,
        ),
        (
            "dense_sym_i64.mtx",
            Message::Tensor(sym_i64),
            Symmetry::Symmetric,
        ),
        (
            "sym_f32.mtx",
            Message::SparseTensor(sym_f32),
            Symmetry::Symmetric,
        ),
        ("half.mtx", Message::SparseTensor(half), Symmetry::General),
        (
            "skew_i64.mtx",
            Message::SparseTensor(skew),
            Symmetry::SkewSymmetric,
        ),
        ("empty.mtx", Message::SparseTensor(empty), Symmetry::General),
        (
            "empty_dense.mtx",
            Message::Tensor(empty_dense),
            Symmetry::General,
        ),
    ];
    for (name, m, symmetry) in &cases {
        let f = std::fs::File::create(dir.join(name)).expect("create");
        let o = mtx::MtxWriteOptions::default().with_symmetry(*symmetry);
        write_mtx(m, f, &o).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let script = r#"
import json, os, sys
import numpy as np, scipy.io, scipy.sparse as sp
d = sys.argv[1]
out = {}
for name in sorted(os.listdir(d)):
    r = scipy.io.mmread(os.path.join(d, name))
    a = r.toarray() if sp.issparse(r) else np.asarray(r)
    out[name] = {"shape": list(a.shape), "dense": [repr(x) if isinstance(x, float) else str(x) for x in a.ravel().tolist()]}
print(json.dumps(out))
"#;
    let theirs = run_python(script, &dir);
    for (name, m, _) in &cases {
        assert_matches_scipy(name, &dense(m), &theirs[*name]);
    }
}

#[test]
fn write_formats_specials_as_scipy_does() {
    let t = coo(
        [1, 4],
        vec![0, 0, 0, 1, 0, 2, 0, 3],
        vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e-7],
    );
    let mut out = Vec::new();
    write_mtx(
        &Message::SparseTensor(t),
        &mut out,
        &mtx::MtxWriteOptions::default(),
    )
    .expect("write");
    let text = String::from_utf8(out).expect("utf8");
    assert_eq!(
        text,
        "%%MatrixMarket matrix coordinate real general\n1 4 4\n1 1 NaN\n1 2 Infinity\n1 3 -Infinity\n1 4 1e-7\n"
    );
    let back = read(text.as_bytes()).expect("read");
    let v = back
        .as_sparse()
        .expect("sparse")
        .values::<f64>()
        .expect("f64")
        .to_vec();
    assert!(v[0].is_nan());
    assert_eq!(&v[1..], &[f64::INFINITY, f64::NEG_INFINITY, 1e-7]);
}

#[test]
fn symmetric_write_refuses_an_unsymmetric_matrix() {
    let t = coo([2, 2], vec![0, 1, 1, 0], vec![1.0f64, 2.0]);
    let e = write_mtx(
        &Message::SparseTensor(t),
        Vec::new(),
        &mtx::MtxWriteOptions::default().with_symmetry(Symmetry::Symmetric),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::UnsupportedLayout { .. }),
        "{e}"
    );
    let d = Tensor::from_vec(vec![2, 2], vec![1i32, 2, 3, 4]).expect("dense");
    let e = write_mtx(
        &Message::Tensor(d),
        Vec::new(),
        &mtx::MtxWriteOptions::default().with_symmetry(Symmetry::Symmetric),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::UnsupportedLayout { .. }),
        "{e}"
    );
    // A matrix that is not square is not symmetric, even with entries on the diagonal only.
    let tall = coo([3, 1], vec![0, 0], vec![1.0f64]);
    let e = write_mtx(
        &Message::SparseTensor(tall),
        Vec::new(),
        &mtx::MtxWriteOptions::default().with_symmetry(Symmetry::Symmetric),
    )
    .unwrap_err();
    assert!(e.to_string().contains("is square"), "{e}");
}

#[test]
fn canonical_flag_is_honest() {
    let sorted = b"%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n1 3 2\n3 2 3\n";
    let unsorted = b"%%MatrixMarket matrix coordinate real general\n3 3 3\n1 3 1\n1 1 2\n3 2 3\n";
    let dup = b"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 3 1\n1 3 2\n";
    let flag = |b: &[u8]| match read(b).expect("read").as_sparse().expect("s").index() {
        SparseIndex::Coo(c) => c.is_canonical(),
        _ => panic!("not COO"),
    };
    assert!(flag(sorted));
    assert!(!flag(unsorted));
    assert!(!flag(dup));
    // Duplicates sum.
    let m = read(dup).expect("read");
    assert_eq!(
        m.as_sparse().expect("s").get(&[0, 2]).expect("get"),
        Scalar::Float64(3.0)
    );
}

/// A large file parsed by several threads gives what one thread gives, and an error in a
/// late chunk names its line.
#[test]
fn parallel_chunks_agree_and_count_lines() {
    let n = 300_000usize;
    let mut text = format!("%%MatrixMarket matrix coordinate real general\n% c\n\n1000 1000 {n}\n");
    for k in 0..n {
        if k % 1000 == 0 {
            text.push_str("% a comment\n\n");
        }
        text.push_str(&format!(
            "{} {} {}.25\n",
            k % 1000 + 1,
            (k * 7) % 1000 + 1,
            k
        ));
    }
    let one = read_mtx(
        text.as_bytes(),
        &mtx::MtxReadOptions::default().with_threads(1),
    )
    .expect("one thread");
    let four = read_mtx(
        text.as_bytes(),
        &mtx::MtxReadOptions::default().with_threads(4),
    )
    .expect("four threads");
    assert!(one
        .as_sparse()
        .expect("s")
        .content_eq(four.as_sparse().expect("s")));
    assert_eq!(one.as_sparse().expect("s").nnz(), n);
    // Break a line near the end: the error names it.
    let lines: Vec<&str> = text.lines().collect();
    let target = lines.len() - 10;
    let mut broken: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    broken[target] = "1 1 x".into();
    let broken = broken.join("\n") + "\n";
    for threads in [1, 4] {
        let e = read_mtx(
            broken.as_bytes(),
            &mtx::MtxReadOptions::default().with_threads(threads),
        )
        .unwrap_err();
        assert_parse_line(&e, target as u64 + 1);
    }
    let progress_total = std::sync::atomic::AtomicU64::new(0);
    let cb = |n: u64| {
        progress_total.fetch_max(n, std::sync::atomic::Ordering::Relaxed);
    };
    read_mtx(
        text.as_bytes(),
        &mtx::MtxReadOptions::default()
            .with_threads(4)
            .with_progress(&cb),
    )
    .expect("read");
    assert_eq!(
        progress_total.load(std::sync::atomic::Ordering::Relaxed),
        text.len() as u64
    );
}

/// Files whose shares hold fewer entries than lines, or more (a symmetric matrix's
/// mirrored entries, comments between entries, a diagonal that is not mirrored), and array
/// files: several threads read what one thread reads, entry for entry, and what a
/// reading that does not expand the symmetry gives, mirrored.
#[test]
fn parallel_shares_of_uneven_entries_agree() {
    let n = 1500usize;
    let entries = 200_000usize;
    let mut sym = format!("%%MatrixMarket matrix coordinate real symmetric\n{n} {n} {entries}\n");
    for k in 0..entries {
        if k % 5000 == 0 {
            sym.push_str("% between entries\n\n");
        }
        // Rows 200.., one entry on the diagonal (not mirrored) per 200, the others below it.
        let r = k / 200 + 200;
        let c = if k % 200 == 199 { r } else { k % 200 };
        sym.push_str(&format!("{} {} {}.5\n", r + 1, c + 1, k));
    }
    assert!(sym.len() > 3 << 20);
    let read = |text: &str, threads: usize, expand: bool| {
        read_mtx(
            text.as_bytes(),
            &mtx::MtxReadOptions::default()
                .with_threads(threads)
                .with_expand_symmetry(expand),
        )
        .expect("read")
    };
    let one = read(&sym, 1, true);
    let stored = read(&sym, 1, false);
    for threads in [2, 3, 4] {
        let many = read(&sym, threads, true);
        assert!(one
            .as_sparse()
            .expect("sparse")
            .content_eq(many.as_sparse().expect("sparse")));
        let many_stored = read(&sym, threads, false);
        assert!(stored
            .as_sparse()
            .expect("sparse")
            .content_eq(many_stored.as_sparse().expect("sparse")));
    }
    let diagonal = entries / 200;
    assert_eq!(stored.as_sparse().expect("s").nnz(), entries);
    assert_eq!(one.as_sparse().expect("s").nnz(), 2 * entries - diagonal);
    // Expanded = stored + its transpose off the diagonal.
    let s = dense(&stored);
    let e = dense(&one);
    for k in [0usize, 1, 199, 200, 12_345, 99_999, entries - 1] {
        let (r, c) = (
            k / 200 + 200,
            if k % 200 == 199 {
                k / 200 + 200
            } else {
                k % 200
            },
        );
        let v = Scalar::Float64(k as f64 + 0.5);
        assert_eq!(s.get(&[r, c]).expect("get"), v);
        assert_eq!(e.get(&[r, c]).expect("get"), v);
        assert_eq!(e.get(&[c, r]).expect("get"), v);
    }
    // An array file: one value per line, with comments between.
    let (rows, cols) = (700usize, 600usize);
    let mut arr = format!("%%MatrixMarket matrix array real general\n{rows} {cols}\n");
    for k in 0..rows * cols {
        if k % 10_000 == 0 {
            arr.push_str("% between values\n");
        }
        arr.push_str(&format!("{}.25\n", k));
    }
    let one = dense(&read(&arr, 1, true));
    for threads in [2, 4] {
        let many = dense(&read(&arr, threads, true));
        assert!(one.content_eq(&many));
    }
    // Column-major: value k is at row k % rows, column k / rows.
    for k in [0, 1, rows, rows * cols - 1, 123_456] {
        assert_eq!(
            one.get(&[k % rows, k / rows]).expect("get"),
            Scalar::Float64(k as f64 + 0.25)
        );
    }
}

fn assert_parse_line(e: &arrow_tensor_ipc::Error, line: u64) {
    match e.kind() {
        ErrorKind::Parse {
            format, location, ..
        } => {
            assert_eq!(*format, "Matrix Market");
            assert_eq!(*location, Location::Line(line), "{e}");
        }
        other => panic!("expected a parse error at line {line}, got {other}"),
    }
}

const HEAD: &str = "%%MatrixMarket matrix coordinate real general\n";

#[test]
fn malformed_files_name_their_line() {
    let cases: Vec<(String, u64, &str)> = vec![
        (format!("{HEAD}2 2 2\n1 1 1.0\n2 2\n"), 4, "truncated entry"),
        (
            format!("{HEAD}2 2 2\n1 1 1.0\n2\n% pad\n"),
            4,
            "truncated after row",
        ),
        (format!("{HEAD}2 2 1\n1 1 abc\n"), 3, "bad number"),
        (format!("{HEAD}2 2 1\n1 1 1.5e\n"), 3, "bad exponent"),
        (format!("{HEAD}2 2 1\n1.5 1 1\n"), 3, "fractional row"),
        (format!("{HEAD}2 2 1\n-1 1 1\n"), 3, "negative row"),
        (format!("{HEAD}2 2 1\n1 1 1 7\n"), 3, "extra field"),
        (format!("{HEAD}2 2 1\n0 1 1\n"), 3, "row 0"),
        (format!("{HEAD}2 2 1\n1 0 1\n"), 3, "column 0"),
        (format!("{HEAD}2 2 1\n3 1 1\n"), 3, "row beyond"),
        (format!("{HEAD}2 2 1\n1 3 1\n"), 3, "column beyond"),
        (
            format!("{HEAD}2 2 1\n99999999999999999999999 1 1\n"),
            3,
            "row overflows",
        ),
        (
            format!("{HEAD}% c\n\n2 2 3\n1 1 1\n% c\n2 2 2\n% padding padding\n"),
            8,
            "count too high",
        ),
        (format!("{HEAD}2 2 1\n1 1 1\n\n2 2 2\n"), 5, "count too low"),
        (format!("{HEAD}2 2 1000000000\n1 1 1\n"), 2, "huge claim"),
        (format!("{HEAD}% only comments\n"), 3, "missing size line"),
        (format!("{HEAD}2 2\n"), 2, "size line short"),
        (format!("{HEAD}2 2 1 5\n"), 2, "size line long"),
        (format!("{HEAD}2 x 1\n"), 2, "size line bad"),
        (
            "%%MatrixMarket matrix coordinate complex general\n2 2 0\n".into(),
            1,
            "complex",
        ),
        (
            "%%MatrixMarket matrix coordinate real hermitian\n2 2 0\n".into(),
            1,
            "hermitian",
        ),
        (
            "%%MatrixMarket matrix coordinate real\n2 2 0\n".into(),
            1,
            "short banner",
        ),
        (
            "%%MatrixMarket vector coordinate real general\n2 2 0\n".into(),
            1,
            "not a matrix",
        ),
        (
            "%%MatrixMarket matrix array pattern general\n2 2\n".into(),
            1,
            "pattern array",
        ),
        ("2 2 1\n1 1 1\n".into(), 1, "missing banner"),
        ("".into(), 1, "empty file"),
        (
            "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n".into(),
            2,
            "symmetric not square",
        ),
        (
            "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n".into(),
            3,
            "skew diagonal",
        ),
        (
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n".into(),
            3,
            "integer with fraction",
        ),
        (
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 99999999999999999999\n"
                .into(),
            3,
            "integer out of range",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n".into(),
            3,
            "pattern with value",
        ),
        (
            "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n% pad\n".into(),
            6,
            "array too short",
        ),
        (
            "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n".into(),
            5,
            "array too long",
        ),
        (
            "%%MatrixMarket matrix array real general\n1 2\n1 2\n3\n".into(),
            3,
            "array two per line",
        ),
        (
            "%%MatrixMarket matrix array real general\n10000 1000\n1\n".into(),
            2,
            "array huge claim",
        ),
    ];
    for (text, line, what) in &cases {
        let e = read(text.as_bytes()).expect_err(what);
        match e.kind() {
            ErrorKind::Parse { location, .. } => {
                assert_eq!(*location, Location::Line(*line), "{what}: {e}")
            }
            other => panic!("{what}: expected a parse error, got {other}"),
        }
        // The chunked reader finds the same error (at the header, or at a batch), except
        // for array files, which it does not read.
        if text.contains(" array ") {
            continue;
        }
        let e2 = match read_chunked(text.as_bytes(), 1) {
            Ok(_) => panic!("{what}: read_chunks accepts what read refuses"),
            Err(e2) => e2,
        };
        assert_eq!(e2.to_string(), e.to_string(), "{what}");
    }
    // A skew-symmetric value whose mirror does not fit the value type names its line, in
    // array files as in coordinate files.
    let int8 = mtx::MtxReadOptions::default().with_value_type(ValueType::Int8);
    for text in [
        "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n% c\n-128\n2\n",
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 1\n% c\n3 1 -128\n",
    ] {
        let e = read_mtx(text.as_bytes(), &int8).unwrap_err();
        assert_parse_line(&e, 5);
        assert!(e.to_string().contains("mirrored value"), "{e}");
        let stored = int8.clone().with_expand_symmetry(false);
        assert!(read_mtx(text.as_bytes(), &stored).is_ok(), "{text}");
    }
}

/// The entries of a file through `mtx::read_chunks` in batches of `batch`: its shape, the
/// row-major coordinates and the values' bytes.
fn read_chunked(
    bytes: &[u8],
    batch: usize,
) -> arrow_tensor_ipc::Result<(Vec<usize>, Vec<i64>, Vec<u8>)> {
    read_chunked_with(
        bytes,
        &mtx::MtxReadOptions::default().with_chunk_entries(batch),
    )
}

fn read_chunked_with(
    bytes: &[u8],
    options: &mtx::MtxReadOptions,
) -> arrow_tensor_ipc::Result<(Vec<usize>, Vec<i64>, Vec<u8>)> {
    let chunks = mtx::read_chunks(bytes, options)?;
    let header = chunks.header().clone();
    assert_eq!(header.ndim, 2);
    let (mut coords, mut values) = (Vec::new(), Vec::new());
    let mut last_end = 0;
    for batch in chunks {
        let batch = batch?;
        assert!(!batch.is_empty());
        assert!(
            batch.len() <= options.chunk_entries + 1,
            "a batch is bounded"
        );
        assert!(batch.end_offset > last_end);
        last_end = batch.end_offset;
        assert_eq!(batch.coords.index_type(), header.index_type);
        coords.extend(batch.coords.to_i64_vec());
        assert_eq!(batch.value_type, header.value_type);
        values.extend_from_slice(&batch.values);
    }
    Ok((header.shape.unwrap(), coords, values))
}

/// What `mtx::read` gives for a coordinate file, in the form of [`read_chunked`].
fn read_whole(bytes: &[u8], options: &mtx::MtxReadOptions) -> (Vec<usize>, Vec<i64>, Vec<u8>) {
    let m = read_mtx(bytes, options).unwrap();
    let t = m.as_sparse().unwrap();
    let SparseIndex::Coo(c) = t.index() else {
        panic!("a coordinate file reads as COO")
    };
    let values = t.values_buffer()[..t.nnz() * t.value_type().byte_width()].to_vec();
    (
        t.shape().to_vec(),
        c.to_row_major().indices().to_i64_vec(),
        values,
    )
}

#[test]
fn chunks_concatenated_equal_read() {
    let files = [
        format!("{HEAD}% c\n3 4 3\n1 1 1.5\n\n3 4 -2\n2 1 7\n"),
        "%%MatrixMarket matrix coordinate real symmetric\n4 4 4\n1 1 1\n3 1 -2\n4 2 7\n4 4 0\n"
            .into(),
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -6\n".into(),
        "%%MatrixMarket matrix coordinate pattern general\n3 5 3\n1 5\n3 2\n1 5\n".into(),
        "%%MatrixMarket matrix coordinate real general\n0 0 0\n".into(),
    ];
    for file in &files {
        for expand in [true, false] {
            for batch in [1, 2, 3, 1000] {
                let o = mtx::MtxReadOptions::default()
                    .with_expand_symmetry(expand)
                    .with_index_type(IndexType::Int32)
                    .with_chunk_entries(batch);
                let chunked = read_chunked_with(file.as_bytes(), &o).unwrap();
                assert_eq!(chunked, read_whole(file.as_bytes(), &o), "{file} {batch}");
            }
        }
    }
    // Limits: the header's count, and the count once mirrored.
    let sym = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n3 1 1\n";
    let o = mtx::MtxReadOptions::default().with_limits(Limits::default().with_max_nnz(3));
    let whole = read_mtx(sym.as_bytes(), &o).unwrap_err();
    let chunked = read_chunked_with(sym.as_bytes(), &o.clone().with_chunk_entries(1)).unwrap_err();
    assert!(
        matches!(chunked.kind(), ErrorKind::LimitExceeded { .. }),
        "{chunked}"
    );
    assert_eq!(chunked.to_string(), whole.to_string());
    // An array file is refused.
    let e = mtx::read_chunks(
        &b"%%MatrixMarket matrix array real general\n1 1\n1\n"[..],
        &mtx::MtxReadOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::UnsupportedLayout { .. }),
        "{e}"
    );
}

#[test]
fn size_errors_are_typed() {
    let big = "%%MatrixMarket matrix array real general\n100000 100000\n1\n";
    assert!(matches!(
        read(big.as_bytes()).unwrap_err().kind(),
        ErrorKind::LimitExceeded { .. }
    ));
    let overflow = "%%MatrixMarket matrix array real general\n18446744073709551615 3\n1\n";
    assert!(matches!(
        read(overflow.as_bytes()).unwrap_err().kind(),
        ErrorKind::Overflow { .. }
    ));
    let many = format!("{HEAD}2 2 5\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n");
    let opts = mtx::MtxReadOptions::default().with_limits(Limits::default().with_max_nnz(4));
    assert!(matches!(
        read_mtx(many.as_bytes(), &opts).unwrap_err().kind(),
        ErrorKind::LimitExceeded { .. }
    ));
    let wide = format!("{HEAD}300 2 1\n300 1 1\n");
    let opts = mtx::MtxReadOptions::default().with_index_type(IndexType::Int8);
    assert!(matches!(
        read_mtx(wide.as_bytes(), &opts).unwrap_err().kind(),
        ErrorKind::IndexTypeTooNarrow { .. }
    ));
    let opts = mtx::MtxReadOptions::default().with_value_type(ValueType::Int32);
    assert!(matches!(
        read_mtx(format!("{HEAD}1 1 0\n").as_bytes(), &opts)
            .unwrap_err()
            .kind(),
        ErrorKind::TypeMismatch { .. }
    ));
    // A claim of 10^12 entries on a tiny file fails before any allocation: over max_nnz, and
    // a claim under the limit that the bytes cannot hold names the size line.
    let e = read(format!("{HEAD}1000000 1000000 1000000000000\n").as_bytes()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    let e = read(format!("{HEAD}1000000 1000000 4000000000\n1 1 1\n").as_bytes()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Parse {
                location: Location::Line(2),
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn lenient_spellings_read() {
    // Case-insensitive banner, CRLF line ends, tabs, leading blanks, comments between entries.
    let text = "%%matrixMARKET Matrix COORDINATE Double General\r\n% c\r\n\r\n 2\t2 2\r\n1 1 -1.5E3\r\n% mid\r\n  2\t2\t+2 \r\n";
    let m = read(text.as_bytes()).expect("read");
    let t = m.as_sparse().expect("s");
    assert_eq!(t.values::<f64>().expect("f64"), &[-1500.0, 2.0]);
    // No newline at the end.
    let m = read(format!("{HEAD}1 1 1\n1 1 4").as_bytes()).expect("read");
    assert_eq!(m.as_sparse().expect("s").nnz(), 1);
    // Integer fields read into floats, pattern into integers.
    let i = "%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 1 -3\n1 2 4\n";
    let opts = mtx::MtxReadOptions::default().with_value_type(ValueType::Float32);
    let m = read_mtx(i.as_bytes(), &opts).expect("read");
    assert_eq!(
        m.as_sparse().expect("s").values::<f32>().expect("f32"),
        &[-3.0, 4.0]
    );
    let p = "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n";
    let opts = mtx::MtxReadOptions::default().with_value_type(ValueType::UInt8);
    let m = read_mtx(p.as_bytes(), &opts).expect("read");
    let t = m.as_sparse().expect("s");
    assert_eq!(t.values::<u8>().expect("u8"), &[1, 1, 1]);
    assert_eq!(t.get(&[0, 1]).expect("get"), Scalar::UInt8(1));
}

// ---- property tests ----

/// Values of type `vt` from raw bits (the low bytes of each `u64`); NaN bits become zero
/// (a NaN is written `NaN` and reads back as the canonical NaN).
fn values_buffer(vt: ValueType, bits: &[u64]) -> Buffer {
    let w = vt.byte_width();
    let mut bytes = Vec::with_capacity(bits.len() * w);
    for &b in bits {
        let le = b.to_le_bytes();
        let v = &le[..w];
        let nan = match vt {
            ValueType::Float16 => f16::from_bits(u16::from_le_bytes([v[0], v[1]])).is_nan(),
            ValueType::Float32 => f32::from_le_bytes(v.try_into().unwrap()).is_nan(),
            ValueType::Float64 => f64::from_le_bytes(v.try_into().unwrap()).is_nan(),
            _ => false,
        };
        if nan {
            bytes.extend(std::iter::repeat_n(0u8, w));
        } else {
            bytes.extend_from_slice(v);
        }
    }
    Buffer::from_vec(bytes)
}

fn value_type() -> impl Strategy<Value = ValueType> {
    (0..ValueType::ALL.len()).prop_map(|i| ValueType::ALL[i])
}

/// A rows x cols COO matrix with unique coordinates in shuffled order.
fn sparse_matrix() -> impl Strategy<Value = SparseTensor> {
    (1usize..9, 1usize..9, value_type()).prop_flat_map(|(r, c, vt)| {
        (
            proptest::sample::subsequence((0..r * c).collect::<Vec<_>>(), 0..=(r * c).min(20))
                .prop_shuffle(),
            proptest::collection::vec(any::<u64>(), 20),
        )
            .prop_map(move |(cells, bits)| {
                let coords: Vec<i64> = cells
                    .iter()
                    .flat_map(|&k| [(k / c) as i64, (k % c) as i64])
                    .collect();
                let index = CooIndex::new(IndexArray::from_vec(coords), 2).unwrap();
                SparseTensor::try_new(
                    vt,
                    vec![r, c],
                    values_buffer(vt, &bits[..cells.len()]),
                    SparseIndex::Coo(index),
                )
                .unwrap()
            })
    })
}

fn roundtrip(m: &Message, vt: ValueType, symmetry: Symmetry, threads: usize) -> Message {
    let mut out = Vec::new();
    write_mtx(
        m,
        &mut out,
        &mtx::MtxWriteOptions::default()
            .with_symmetry(symmetry)
            .with_threads(threads),
    )
    .unwrap();
    read_mtx(&out, &mtx::MtxReadOptions::default().with_value_type(vt)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn coo_roundtrip_is_identity(t in sparse_matrix(), threads in 1usize..4) {
        let back = roundtrip(&Message::SparseTensor(t.clone()), t.value_type(), Symmetry::General, threads);
        prop_assert!(back.as_sparse().unwrap().content_eq(&t));
    }

    #[test]
    fn csr_csc_roundtrip_to_the_same_matrix(t in sparse_matrix(), csc in any::<bool>()) {
        let format = if csc { SparseFormat::Csc } else { SparseFormat::Csr };
        let x = t.to_format_with(format, &ConvertOptions::default()).unwrap();
        let back = roundtrip(&Message::SparseTensor(x), t.value_type(), Symmetry::General, 2);
        let back = back.as_sparse().unwrap();
        prop_assert!(back.to_dense().unwrap().content_eq(&t.to_dense().unwrap()));
    }

    #[test]
    fn dense_roundtrip_is_identity(
        r in 0usize..7, c in 0usize..7, vt in value_type(),
        bits in proptest::collection::vec(any::<u64>(), 36),
    ) {
        let shape = vec![r, c];
        let strides = arrow_tensor_ipc::row_major_strides(&shape, vt.byte_width());
        let t = Tensor::try_new(vt, shape, strides, values_buffer(vt, &bits[..r * c])).unwrap();
        let back = roundtrip(&Message::Tensor(t.clone()), vt, Symmetry::General, 2);
        prop_assert!(back.as_tensor().unwrap().content_eq(&t));
    }

    #[test]
    fn symmetric_writes_read_back_to_the_matrix(t in sparse_matrix(), skew in any::<bool>(), dense_form in any::<bool>()) {
        // Symmetrise: lower entries mirrored (negated for skew, diagonal dropped).
        let vt = t.value_type();
        prop_assume!(!(skew && matches!(vt, ValueType::UInt8 | ValueType::UInt16 | ValueType::UInt32 | ValueType::UInt64)));
        let n = t.shape()[0].max(t.shape()[1]);
        let d = t.to_dense().unwrap();
        let mut cells = vec![Scalar::zero(vt); n * n];
        for i in 0..d.shape()[0] {
            for j in 0..d.shape()[1] {
                let (a, b) = (i.max(j), i.min(j));
                let v = d.get(&[i, j]).unwrap();
                if (skew && a == b) || v.as_f64() == 0.0 { continue; }
                let neg = negate(v);
                if skew && neg.is_none() { continue; }
                cells[a * n + b] = v;
                cells[b * n + a] = if skew { neg.unwrap() } else { v };
            }
        }
        let full = scalars_tensor(vt, n, &cells);
        let symmetry = if skew { Symmetry::SkewSymmetric } else { Symmetry::Symmetric };
        let m = if dense_form {
            Message::Tensor(full.clone())
        } else {
            Message::SparseTensor(full.to_sparse_with(SparseFormat::Coo, &ConvertOptions::default()).unwrap())
        };
        let back = roundtrip(&m, vt, symmetry, 2);
        prop_assert!(dense(&back).content_eq(&full));
    }

    #[test]
    fn chunks_of_written_files_equal_read(t in sparse_matrix(), batch in 1usize..5, sym in any::<bool>()) {
        let m = Message::SparseTensor(t.clone());
        let mut out = Vec::new();
        let symmetry = if sym { Symmetry::Symmetric } else { Symmetry::General };
        if write_mtx(&m, &mut out, &mtx::MtxWriteOptions::default().with_symmetry(symmetry)).is_ok() {
            let o = mtx::MtxReadOptions::default()
                .with_value_type(t.value_type())
                .with_chunk_entries(batch);
            prop_assert_eq!(read_chunked_with(&out, &o).unwrap(), read_whole(&out, &o));
        }
    }

    /// Entry lines of the plain shape `row column value\n` go through the reader's faster
    /// path, every other line through the line-by-line one. The same file with a tab for the
    /// first space of each line (which only the line-by-line path takes) must read to the same
    /// tensor, or fail with the same error, whatever mixture of plain and other lines,
    /// coordinates out of range, malformed values, symmetry, threads and batch sizes.
    #[test]
    fn plain_lines_read_as_the_line_by_line_path_reads_them(
        field in 0usize..2,
        symmetry in 0usize..3,
        lines in proptest::collection::vec((0usize..30, 0u64..9, 0u64..9, 0usize..60), 0..150),
        count_delta in 0usize..3,
        strict in any::<bool>(),
        expand in any::<bool>(),
        threads in 1usize..4,
        batch in 1usize..7,
    ) {
        let values = [
            "1.5", "-2e3", "0.48058787404949177", "7", "1e400", "-0", "NaN", "abc", "1.5x",
            "123456789012345678901234", "",
        ];
        let ints = ["1", "-2", "7", "0", "99999999999999999999", "x", "+3", "", "-0"];
        let field_name = ["real", "integer"][field];
        let mut entries = 0usize;
        let mut body = String::new();
        for &(form, r, c, v) in &lines {
            // Mostly well-formed values, so that a run's coordinates are what decides.
            let good = format!("{v}");
            let v = match (field, v) {
                (0, v) if v < values.len() => values[v],
                (1, v) if v < ints.len() => ints[v],
                _ => &good,
            };
            body.push_str(&match form {
                0..=5 | 12.. => { entries += 1; format!("{r} {c} {v}\n") }
                6 => { entries += 1; format!("{r}\t{c} {v}\n") }
                7 => { entries += 1; format!("{r} {c}  {v} \r\n") }
                8 => { entries += 1; format!("0000000{r} {c} {v}\n") }
                9 => "% a comment\n".to_string(),
                10 => "\n".to_string(),
                _ => { entries += 1; format!("{r} {c} {v}") }
            });
        }
        let count = (entries + count_delta).saturating_sub(1);
        let header = format!(
            "%%MatrixMarket matrix coordinate {field_name} {}\n6 6 {count}\n",
            ["general", "symmetric", "skew-symmetric"][symmetry]
        );
        // A tab for the first space of each line: the same bytes for the line-by-line path,
        // which the faster one never takes (it wants a space after the row).
        let tabbed: String = body.split_inclusive('\n').map(|l| l.replacen(' ', "\t", 1)).collect();
        let plain = format!("{header}{body}").into_bytes();
        let by_line = format!("{header}{tabbed}").into_bytes();
        let validation = if strict {
            arrow_tensor_ipc::Validation::Strict
        } else {
            arrow_tensor_ipc::Validation::Permissive
        };
        let options = mtx::MtxReadOptions::default()
            .with_validation(validation)
            .with_expand_symmetry(expand)
            .with_threads(threads);
        let outcome = |bytes: &[u8]| match read_mtx(bytes, &options) {
            Ok(m) => {
                let t = m.as_sparse().unwrap().clone();
                let width = t.value_type().byte_width();
                Ok((
                    t.shape().to_vec(),
                    t.index().clone(),
                    t.values_buffer()[..t.nnz() * width].to_vec(),
                ))
            }
            Err(e) => Err(e.to_string()),
        };
        prop_assert_eq!(outcome(&plain), outcome(&by_line));
        let chunked = |bytes: &[u8]| {
            read_chunked_with(bytes, &options.clone().with_chunk_entries(batch))
                .map_err(|e| e.to_string())
        };
        prop_assert_eq!(chunked(&plain), chunked(&by_line));
    }

    #[test]
    fn mutated_files_never_panic(
        base in 0usize..4,
        edits in proptest::collection::vec((any::<usize>(), 0u8..3, any::<u8>()), 1..8),
    ) {
        let bases = [
            "%%MatrixMarket matrix coordinate real symmetric\n% c\n4 4 3\n1 1 1.5\n3 1 -2e3\n4 2 7\n",
            "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n-2\n3\n",
            "%%MatrixMarket matrix coordinate pattern general\n3 5 2\n1 5\n3 2\n",
            "%%MatrixMarket matrix array real general\n2 2\n1\nNaN\n-Infinity\n1e-300\n",
        ];
        let mut bytes = bases[base].as_bytes().to_vec();
        for (pos, op, b) in edits {
            let p = pos % (bytes.len() + 1);
            match op {
                0 if p < bytes.len() => bytes[p] = b,
                1 => bytes.insert(p, b),
                _ if p < bytes.len() => { bytes.remove(p); }
                _ => {}
            }
        }
        let limits = Limits::default().with_max_nnz(1000).with_max_dense_elements(10_000);
        for expand in [true, false] {
            let opts = mtx::MtxReadOptions::default().with_limits(limits).with_expand_symmetry(expand);
            let _ = read_mtx(&bytes, &opts);
        }
        let _ = mtx::read_header(&bytes, &mtx::MtxReadOptions::default());
    }
}

fn negate(v: Scalar) -> Option<Scalar> {
    Some(match v {
        Scalar::Int8(x) => Scalar::Int8(x.checked_neg()?),
        Scalar::Int16(x) => Scalar::Int16(x.checked_neg()?),
        Scalar::Int32(x) => Scalar::Int32(x.checked_neg()?),
        Scalar::Int64(x) => Scalar::Int64(x.checked_neg()?),
        Scalar::Float16(x) => Scalar::Float16(-x),
        Scalar::Float32(x) => Scalar::Float32(-x),
        Scalar::Float64(x) => Scalar::Float64(-x),
        other if other == Scalar::zero(other.value_type()) => other,
        _ => return None,
    })
}

fn scalars_tensor(vt: ValueType, n: usize, cells: &[Scalar]) -> Tensor {
    let mut bytes = Vec::new();
    for s in cells {
        match *s {
            Scalar::Int8(v) => bytes.extend(v.to_le_bytes()),
            Scalar::Int16(v) => bytes.extend(v.to_le_bytes()),
            Scalar::Int32(v) => bytes.extend(v.to_le_bytes()),
            Scalar::Int64(v) => bytes.extend(v.to_le_bytes()),
            Scalar::UInt8(v) => bytes.extend(v.to_le_bytes()),
            Scalar::UInt16(v) => bytes.extend(v.to_le_bytes()),
            Scalar::UInt32(v) => bytes.extend(v.to_le_bytes()),
            Scalar::UInt64(v) => bytes.extend(v.to_le_bytes()),
            Scalar::Float16(v) => bytes.extend(v.to_le_bytes()),
            Scalar::Float32(v) => bytes.extend(v.to_le_bytes()),
            Scalar::Float64(v) => bytes.extend(v.to_le_bytes()),
        }
    }
    let shape = vec![n, n];
    let strides = arrow_tensor_ipc::row_major_strides(&shape, vt.byte_width());
    Tensor::try_new(vt, shape, strides, Buffer::from_vec(bytes)).unwrap()
}

#[test]
fn header_words_are_case_insensitive() {
    let mixed = read(b"%%matrixmarket MATRIX Coordinate Pattern Symmetric\n2 2 1\n2 1\n")
        .expect("a header in mixed case reads");
    let lower = read(b"%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n").unwrap();
    let (t, expected) = (dense(&mixed), dense(&lower));
    assert_eq!(t.shape(), &[2, 2]);
    assert_eq!(t.value_type(), expected.value_type());
    // Symmetric pattern: the stored (2, 1) and its mirror (1, 2), both 1; zero elsewhere.
    let zero = t.get(&[0, 0]).unwrap();
    for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let v = t.get(&[i, j]).unwrap();
        assert_eq!(v, expected.get(&[i, j]).unwrap(), "({i}, {j})");
        assert_eq!(v != zero, i != j, "({i}, {j}): {v:?}");
    }
}

/// Files scipy reads and strict mode refuses: permissive mode reads them to scipy's values
/// (scipy reads each file here too, as the judge); strict mode refuses each, naming the line.
#[test]
fn permissive_reads_what_scipy_reads() {
    use arrow_tensor_ipc::Validation;
    let files: [(&str, &str, u64); 5] = [
        // A skew-symmetric file with stored diagonal entries (as in scipy's own tests).
        (
            "skew_diagonal.mtx",
            "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 4\n1 1 5.0\n2 1 2.0\n3 2 -0.5\n3 3 -1.5\n",
            3,
        ),
        (
            "skew_diagonal_integer.mtx",
            "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 2\n1 1 7\n2 1 3\n",
            3,
        ),
        (
            "pattern_skew.mtx",
            "%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 2\n2 1\n3 1\n",
            1,
        ),
        (
            "real_hermitian.mtx",
            "%%MatrixMarket matrix coordinate real hermitian\n3 3 3\n1 1 1.0\n2 1 3.0\n3 2 -2.25\n",
            1,
        ),
        (
            "array_hermitian.mtx",
            "%%MatrixMarket matrix array real hermitian\n2 2\n1.0\n2.0\n3.0\n",
            1,
        ),
    ];
    let dir = scratch("mtx_permissive");
    for (name, text, _) in &files {
        std::fs::write(dir.join(name), text).expect("write file");
    }
    let cases = run_python(
        r#"
import json, os, sys
import numpy as np, scipy.io, scipy.sparse as sp
d = sys.argv[1]
cases = {}
for name in sorted(os.listdir(d)):
    r = scipy.io.mmread(os.path.join(d, name))
    a = r.toarray() if sp.issparse(r) else np.asarray(r)
    cases[name] = {"shape": list(a.shape),
                   "dense": [repr(x) if isinstance(x, float) else str(x) for x in a.ravel().tolist()]}
print(json.dumps(cases))
"#,
        &dir,
    );
    let permissive = mtx::MtxReadOptions::default().with_validation(Validation::Permissive);
    for (name, text, line) in &files {
        let m = read_mtx(text.as_bytes(), &permissive)
            .unwrap_or_else(|e| panic!("{name}: permissive: {e}"));
        // scipy's dense result is row-major; ours may be column-major (array files).
        let d = dense(&m);
        let (rows, cols) = (d.shape()[0], d.shape()[1]);
        let ours: Vec<f64> = (0..rows * cols)
            .map(|k| match d.get(&[k / cols, k % cols]).expect("get") {
                Scalar::Float64(v) => v,
                Scalar::Int64(v) => v as f64,
                other => panic!("{name}: value {other:?}"),
            })
            .collect();
        let theirs: Vec<f64> = cases[*name]["dense"]
            .as_array()
            .expect("dense")
            .iter()
            .map(|v| v.as_str().expect("string").parse::<f64>().expect("number"))
            .collect();
        assert_eq!(ours, theirs, "{name}: ours against scipy");
        // Strict mode refuses the file and names the line.
        let e = read(text.as_bytes()).expect_err(name);
        assert_parse_line(&e, *line);
    }
}

/// What permissive mode still refuses, as strict mode does: values that are not real.
#[test]
fn permissive_still_refuses_complex_values() {
    use arrow_tensor_ipc::Validation;
    let permissive = mtx::MtxReadOptions::default().with_validation(Validation::Permissive);
    for text in [
        "%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n2 1 1.0 2.0\n",
        "%%MatrixMarket matrix coordinate complex general\n2 2 1\n2 1 1.0 2.0\n",
    ] {
        let e = read_mtx(text.as_bytes(), &permissive).expect_err(text);
        assert_parse_line(&e, 1);
    }
}
