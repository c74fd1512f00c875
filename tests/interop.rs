//! Interop suite: byte-level compatibility with Arrow C++ 26 (the library inside the pinned
//! pyarrow wheel) in both directions.
//!
//! A C++ helper (`tests/interop/arrow_interop.cc`, compiled here against the wheel) writes
//! messages with `arrow::ipc::WriteTensor` / `WriteSparseTensor` from case descriptions and
//! reads messages with `ReadTensor` / `ReadSparseTensor`, printing one JSON object per
//! message in the same shape as `arrow-tensor dump --json`. This suite:
//! 1. has Arrow write a generated matrix of cases and checks that we decode the same
//!    contents (and the expected dense values);
//! 2. writes the same matrix with our encoder and checks that Arrow (and
//!    `pyarrow.ipc.read_tensor` for dense tensors) decodes the same contents, and that
//!    Arrow's `ToTensor()` equals our dense expansion;
//! 3. pins Arrow's documented quirks on the bytes it writes.
//!
//! Needs `.venv/bin/python` with pyarrow (created by `scripts/test.sh`) or
//! `ARROW_TENSOR_PYTHON`. Missing prerequisites fail the suite; they never skip it.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::__private::flatbuf as fb;
use arrow_tensor_ipc::{
    CompressedAxis, CooIndex, CooOrder, CsfIndex, CsxIndex, DecodedMessage, IndexArray, IndexType,
    Message, MessageIter, MessageWriter, ReadOptions, SparseFormat, SparseIndex, SparseTensor,
    Tensor, ValueType, WriteOptions,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------
// Environment: python, the helper binary, scratch files.

#[path = "common/venv.rs"]
mod venv;
use venv::{python, root};

fn helper() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let out = root().join("target/interop/arrow_interop");
        let status = Command::new("bash")
            .arg(root().join("tests/interop/build.sh"))
            .arg(python())
            .arg(&out)
            .status()
            .expect("run tests/interop/build.sh");
        assert!(
            status.success(),
            "building the Arrow C++ interop helper failed"
        );
        out
    })
}

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/interop/scratch");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}-{}", std::process::id()))
}

/// Has Arrow write one message per spec line into `path`.
fn arrow_write(specs: &[String], path: &Path) {
    let mut child = Command::new(helper())
        .arg("write")
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(specs.join("\n").as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "arrow_interop write failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Has Arrow read every message of `path`; one JSON value per message.
fn arrow_read(path: &Path) -> Vec<Value> {
    let out = Command::new(helper())
        .arg("read")
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "arrow_interop read failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

// ---------------------------------------------------------------------------------------
// Our side: a decoded message as the same JSON the helper prints.

fn num_json<T: Copy>(v: T, f: impl Fn(T) -> Value) -> Value {
    f(v)
}

fn float_json(x: f64) -> Value {
    if x.is_nan() {
        json!("NaN")
    } else if x == f64::INFINITY {
        json!("Infinity")
    } else if x == f64::NEG_INFINITY {
        json!("-Infinity")
    } else {
        json!(x)
    }
}

fn values_json(vt: ValueType, bytes: &[u8]) -> Vec<Value> {
    let w = vt.byte_width();
    bytes
        .chunks_exact(w)
        .map(|c| {
            let s = arrow_tensor_ipc::Scalar::from_le_bytes(vt, c).unwrap();
            use arrow_tensor_ipc::Scalar as S;
            match s {
                S::Int8(v) => json!(v),
                S::Int16(v) => json!(v),
                S::Int32(v) => json!(v),
                S::Int64(v) => json!(v),
                S::UInt8(v) => json!(v),
                S::UInt16(v) => json!(v),
                S::UInt32(v) => json!(v),
                S::UInt64(v) => num_json(v, |v| json!(v)),
                S::Float16(v) => float_json(v.to_f64()),
                S::Float32(v) => float_json(v as f64),
                S::Float64(v) => float_json(v),
            }
        })
        .collect()
}

fn index_json(a: &IndexArray) -> Vec<Value> {
    let w = a.index_type().byte_width();
    a.buffer()
        .as_slice()
        .chunks_exact(w)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(c);
            if a.index_type().is_signed() {
                let shift = 64 - 8 * w as u32;
                json!((i64::from_le_bytes(b) << shift) >> shift)
            } else {
                json!(u64::from_le_bytes(b))
            }
        })
        .collect()
}

fn ours_json(d: &DecodedMessage) -> Value {
    let mut o = json!({
        "offset": d.offset,
        "metadata_version": d.version.name(),
        "metadata_length": d.metadata_length,
        "body_length": d.body_length,
    });
    let m = o.as_object_mut().unwrap();
    let body = message_json(&d.message);
    m.extend(body.as_object().unwrap().clone());
    o
}

fn message_json(msg: &Message) -> Value {
    match msg {
        Message::Tensor(t) => json!({
            "kind": "tensor",
            "type": t.value_type().name(),
            "shape": t.shape(),
            "dim_names": t.dim_names(),
            "strides": t.strides(),
            "values": values_json(t.value_type(), t.row_major_bytes().as_slice()),
        }),
        Message::SparseTensor(t) => {
            let mut o = json!({
                "kind": "sparse_tensor",
                "type": t.value_type().name(),
                "shape": t.shape(),
                "dim_names": t.dim_names(),
                "nnz": t.nnz(),
                "format": t.format().name(),
                "values": values_json(t.value_type(), t.values_buffer().as_slice()),
                "dense": values_json(t.value_type(), t.to_dense().unwrap().row_major_bytes().as_slice()),
            });
            let m = o.as_object_mut().unwrap();
            match t.index() {
                SparseIndex::Coo(c) => {
                    m.insert("index_type".into(), json!(c.indices().index_type().name()));
                    m.insert("is_canonical".into(), json!(c.is_canonical()));
                    let coords: Vec<Value> = (0..c.nnz())
                        .map(|i| {
                            json!((0..c.ndim())
                                .map(|d| c.coordinate(i, d).unwrap())
                                .collect::<Vec<_>>())
                        })
                        .collect();
                    m.insert("coords".into(), json!(coords));
                }
                SparseIndex::Csx(c) => {
                    m.insert("indptr_type".into(), json!(c.indptr().index_type().name()));
                    m.insert(
                        "indices_type".into(),
                        json!(c.indices().index_type().name()),
                    );
                    m.insert("indptr".into(), json!(index_json(c.indptr())));
                    m.insert("indices".into(), json!(index_json(c.indices())));
                }
                SparseIndex::Csf(c) => {
                    let t0 =
                        |a: &[IndexArray]| a.first().map_or("int64", |a| a.index_type().name());
                    m.insert("indptr_type".into(), json!(t0(c.indptr())));
                    m.insert("indices_type".into(), json!(t0(c.indices())));
                    m.insert("axis_order".into(), json!(c.axis_order()));
                    let lists = |a: &[IndexArray]| a.iter().map(index_json).collect::<Vec<_>>();
                    m.insert("indptr".into(), json!(lists(c.indptr())));
                    m.insert("indices".into(), json!(lists(c.indices())));
                }
            }
            o
        }
    }
}

/// Compares two JSON descriptions: numbers of float tensors by value (bitwise, NaN as
/// "NaN"), everything else exactly. Returns the first difference.
fn diff(path: &str, a: &Value, b: &Value, float: bool) -> Option<String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let same = if float {
                x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
            } else {
                x.as_i64() == y.as_i64() && x.as_u64() == y.as_u64()
            };
            (!same).then(|| format!("{path}: arrow {x} vs ours {y}"))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!(
                    "{path}: arrow has {} items, ours {}",
                    x.len(),
                    y.len()
                ));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| diff(&format!("{path}[{i}]"), p, q, float))
        }
        _ => (a != b).then(|| format!("{path}: arrow {a} vs ours {b}")),
    }
}

const COMPARED: &[&str] = &[
    "kind",
    "type",
    "shape",
    "dim_names",
    "strides",
    "nnz",
    "format",
    "index_type",
    "is_canonical",
    "coords",
    "indptr_type",
    "indices_type",
    "indptr",
    "indices",
    "axis_order",
    "values",
    "dense",
];

fn compare(case: &str, arrow: &Value, ours: &Value, arrow_dense: bool) -> Result<(), String> {
    if let Some(e) = arrow.get("error") {
        return Err(format!("case {case}: Arrow failed: {e}\n  ours: {ours}"));
    }
    let float = arrow["type"]
        .as_str()
        .is_some_and(|t| t.starts_with("float"));
    for key in COMPARED {
        let (a, o) = (&arrow[*key], &ours[*key]);
        if *key == "dense" && (a.is_null() || !arrow_dense) {
            continue; // Arrow could not expand it (too large, or its ToTensor would misread).
        }
        if let Some(d) = diff(key, a, o, float && matches!(*key, "values" | "dense")) {
            return Err(format!(
                "case {case}: {d}\n  arrow: {arrow}\n  ours:  {ours}"
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The case matrix.

/// A deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One case: the helper's spec line and the same tensor built by us.
struct Case {
    spec: String,
    ours: Message,
    /// Expected row-major dense contents.
    dense: Vec<f64>,
    /// Whether Arrow's `ToTensor` handles this case (it ignores COO index strides).
    arrow_dense: bool,
}

fn fmt_value(vt: ValueType, v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if v == 0.0 && v.is_sign_negative() {
        "-0".into()
    } else if vt.is_float() {
        format!("{v:?}")
    } else {
        format!("{}", v as i64)
    }
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().collect::<Vec<_>>().join(",")
}

fn value_bytes(vt: ValueType, vals: &[f64]) -> Vec<u8> {
    let mut out = Vec::new();
    for &v in vals {
        match vt {
            ValueType::Int8 => out.extend((v as i8).to_le_bytes()),
            ValueType::Int16 => out.extend((v as i16).to_le_bytes()),
            ValueType::Int32 => out.extend((v as i32).to_le_bytes()),
            ValueType::Int64 => out.extend((v as i64).to_le_bytes()),
            ValueType::UInt8 => out.extend((v as u8).to_le_bytes()),
            ValueType::UInt16 => out.extend((v as u16).to_le_bytes()),
            ValueType::UInt32 => out.extend((v as u32).to_le_bytes()),
            ValueType::UInt64 => out.extend((v as u64).to_le_bytes()),
            ValueType::Float16 => out.extend(half::f16::from_f64(v).to_le_bytes()),
            ValueType::Float32 => out.extend((v as f32).to_le_bytes()),
            ValueType::Float64 => out.extend(v.to_le_bytes()),
        }
    }
    out
}

fn index_array(it: IndexType, vals: &[usize]) -> IndexArray {
    let mut out = Vec::new();
    for &v in vals {
        out.extend_from_slice(&(v as u64).to_le_bytes()[..it.byte_width()]);
    }
    IndexArray::try_new(it, Buffer::from_vec(out)).unwrap()
}

/// Values for a tensor of `n` elements: about `density` non-zeros. Floats include the
/// special values (NaN, infinities, and -0.0 when `neg_zero`), exactly representable in
/// every float width.
fn gen_values(rng: &mut Rng, vt: ValueType, n: usize, density: u64, neg_zero: bool) -> Vec<f64> {
    (0..n)
        .map(|_| {
            if rng.below(100) >= density {
                return 0.0;
            }
            let r = rng.below(1000) as f64;
            match vt {
                t if t.is_float() => match rng.below(12) {
                    0 => f64::NAN,
                    1 => f64::INFINITY,
                    2 => f64::NEG_INFINITY,
                    3 if neg_zero => -0.0,
                    _ => (r - 500.0) / 8.0 + 0.125,
                },
                ValueType::Int8 => (r % 250.0) - 125.0,
                ValueType::UInt8 => (r % 250.0) + 1.0,
                t if t.byte_width() >= 2
                    && !matches!(t, ValueType::UInt16 | ValueType::UInt32 | ValueType::UInt64) =>
                {
                    r * 37.0 - 18000.0
                }
                _ => r * 37.0 + 1.0,
            }
        })
        .map(|v| {
            if v == 0.0 && !v.is_sign_negative() {
                0.0
            } else {
                v
            }
        })
        .map(|v: f64| if !vt.is_float() && v == 0.0 { 1.0 } else { v })
        .collect()
}

fn names_for(rng: &mut Rng, ndim: usize) -> Option<Vec<String>> {
    match rng.below(3) {
        0 => None,
        1 => Some((0..ndim).map(|i| format!("d{i}")).collect()),
        _ => Some(
            (0..ndim)
                .map(|i| {
                    if i % 2 == 0 {
                        String::new()
                    } else {
                        format!("x{i}")
                    }
                })
                .collect(),
        ),
    }
}

fn common_spec(kind: &str, vt: ValueType, shape: &[usize], names: &Option<Vec<String>>) -> String {
    let mut s = format!(
        "kind={kind} type={} shape={}",
        vt.name(),
        list(shape.iter().map(|d| d.to_string()))
    );
    if let Some(n) = names {
        if !shape.is_empty() {
            s += &format!(" names={}", n.join(","));
        }
    }
    s
}

fn row_major_coords(shape: &[usize], mut lin: usize) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = lin % shape[d];
        lin /= shape[d];
    }
    c
}

/// Dense tensor case in a given memory layout.
fn dense_case(
    vt: ValueType,
    shape: &[usize],
    layout: &str,
    vals: Vec<f64>,
    names: Option<Vec<String>>,
) -> Case {
    let w = vt.byte_width();
    let n = vals.len();
    let t = match layout {
        "row" => Tensor::try_new(
            vt,
            shape,
            row_strides(shape, w),
            Buffer::from_vec(value_bytes(vt, &vals)),
        )
        .unwrap(),
        "col" => {
            let strides = col_strides(shape, w);
            let mut bytes = vec![0u8; n * w];
            let src = value_bytes(vt, &vals);
            for lin in 0..n {
                let c = row_major_coords(shape, lin);
                let off: usize = c.iter().zip(&strides).map(|(a, b)| a * b).sum();
                bytes[off..off + w].copy_from_slice(&src[lin * w..(lin + 1) * w]);
            }
            Tensor::try_new(vt, shape, strides, Buffer::from_vec(bytes)).unwrap()
        }
        _ => {
            // The last dimension doubled, logical values at even positions.
            let mut big = shape.to_vec();
            *big.last_mut().unwrap() *= 2;
            let mut strides = row_strides(&big, w);
            *strides.last_mut().unwrap() *= 2;
            let total: usize = big.iter().product();
            let mut bytes = vec![0u8; total * w];
            let src = value_bytes(vt, &vals);
            for lin in 0..n {
                let c = row_major_coords(shape, lin);
                let off: usize = c.iter().zip(&strides).map(|(a, b)| a * b).sum();
                bytes[off..off + w].copy_from_slice(&src[lin * w..(lin + 1) * w]);
            }
            Tensor::try_new(vt, shape, strides, Buffer::from_vec(bytes)).unwrap()
        }
    };
    let t = match &names {
        Some(n) => t.with_dim_names(n.clone()).unwrap(),
        None => t,
    };
    let mut spec = common_spec("dense", vt, shape, &names);
    spec += &format!(
        " layout={layout} values={}",
        list(vals.iter().map(|&v| fmt_value(vt, v)))
    );
    Case {
        spec,
        ours: Message::Tensor(t),
        dense: vals,
        arrow_dense: true,
    }
}

fn row_strides(shape: &[usize], w: usize) -> Vec<usize> {
    let mut s = vec![0; shape.len()];
    let mut step = w;
    for d in (0..shape.len()).rev() {
        s[d] = step;
        step *= shape[d];
    }
    s
}

fn col_strides(shape: &[usize], w: usize) -> Vec<usize> {
    let mut s = vec![0; shape.len()];
    let mut step = w;
    for d in 0..shape.len() {
        s[d] = step;
        step *= shape[d];
    }
    s
}

/// Sparse case converted from a dense tensor (Arrow converts on its side; we build the same
/// index here).
fn sparse_case(
    kind: &str,
    vt: ValueType,
    it: IndexType,
    shape: &[usize],
    vals: Vec<f64>,
    names: Option<Vec<String>>,
    csf_order: Option<Vec<usize>>,
) -> Case {
    let nz: Vec<(Vec<usize>, f64)> = vals
        .iter()
        .enumerate()
        .filter(|(_, v)| **v != 0.0)
        .map(|(i, &v)| (row_major_coords(shape, i), v))
        .collect();
    let (index, stored): (SparseIndex, Vec<f64>) = match kind {
        "coo" => {
            let flat: Vec<usize> = nz.iter().flat_map(|(c, _)| c.clone()).collect();
            let idx = CooIndex::new(index_array(it, &flat), shape.len()).unwrap();
            (SparseIndex::Coo(idx), nz.iter().map(|x| x.1).collect())
        }
        "csr" | "csc" => {
            let axis = if kind == "csr" { 0 } else { 1 };
            let mut entries = nz.clone();
            entries.sort_by_key(|(c, _)| (c[axis], c[1 - axis]));
            let mut indptr = vec![0usize; shape[axis] + 1];
            for (c, _) in &entries {
                indptr[c[axis] + 1] += 1;
            }
            for i in 0..shape[axis] {
                indptr[i + 1] += indptr[i];
            }
            let indices: Vec<usize> = entries.iter().map(|(c, _)| c[1 - axis]).collect();
            let ax = if axis == 0 {
                CompressedAxis::Row
            } else {
                CompressedAxis::Column
            };
            (
                SparseIndex::Csx(
                    CsxIndex::new(ax, index_array(it, &indptr), index_array(it, &indices)).unwrap(),
                ),
                entries.iter().map(|x| x.1).collect(),
            )
        }
        _ => {
            let order = csf_order
                .clone()
                .unwrap_or_else(|| (0..shape.len()).collect());
            let mut entries: Vec<(Vec<usize>, f64)> = nz
                .iter()
                .map(|(c, v)| (order.iter().map(|&a| c[a]).collect(), *v))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let n = shape.len();
            let mut indices: Vec<Vec<usize>> = vec![Vec::new(); n];
            let mut children: Vec<Vec<usize>> = vec![Vec::new(); n - 1];
            let mut indptr: Vec<Vec<usize>> = vec![Vec::new(); n - 1];
            let mut prev: Option<&Vec<usize>> = None;
            for (c, _) in &entries {
                // First level where this entry departs from the previous one.
                let start = prev.map_or(0, |p| (0..n).find(|&l| p[l] != c[l]).unwrap());
                for l in start..n {
                    indices[l].push(c[l]);
                    if l + 1 < n {
                        children[l].push(0);
                    }
                    if l > 0 {
                        *children[l - 1].last_mut().unwrap() += 1;
                    }
                }
                prev = Some(c);
            }
            let parent_counts = children;
            for l in 0..n - 1 {
                let mut acc = 0;
                indptr[l] = std::iter::once(0)
                    .chain(parent_counts[l].iter().map(|&k| {
                        acc += k;
                        acc
                    }))
                    .collect();
            }
            let idx = CsfIndex::new(
                order,
                indptr.iter().map(|p| index_array(it, p)).collect(),
                indices.iter().map(|p| index_array(it, p)).collect(),
            )
            .unwrap();
            (SparseIndex::Csf(idx), entries.iter().map(|x| x.1).collect())
        }
    };
    let t = SparseTensor::try_new(vt, shape, Buffer::from_vec(value_bytes(vt, &stored)), index)
        .unwrap_or_else(|e| panic!("building {kind} {shape:?}: {e}"));
    let t = match &names {
        Some(n) => t.with_dim_names(n.clone()).unwrap(),
        None => t,
    };
    let mut spec = common_spec(kind, vt, shape, &names);
    spec += &format!(
        " index={} values={}",
        it.name(),
        list(vals.iter().map(|&v| fmt_value(vt, v)))
    );
    Case {
        spec,
        ours: Message::SparseTensor(t),
        dense: vals,
        arrow_dense: true,
    }
}

/// COO built from explicit coordinates: unsorted (not canonical) or stored column-major.
fn coo_explicit_case(
    rng: &mut Rng,
    vt: ValueType,
    it: IndexType,
    shape: &[usize],
    column_major: bool,
) -> Case {
    let total: usize = shape.iter().product();
    // Distinct cells in a shuffled order.
    let mut cells: Vec<usize> = (0..total).filter(|_| rng.below(3) == 0).collect();
    for i in (1..cells.len()).rev() {
        cells.swap(i, rng.below(i as u64 + 1) as usize);
    }
    if column_major {
        cells.sort_unstable();
    }
    let nnz = cells.len();
    let vals = gen_values(rng, vt, nnz, 100, true);
    let coords: Vec<Vec<usize>> = cells.iter().map(|&c| row_major_coords(shape, c)).collect();
    let stored: Vec<usize> = if column_major {
        (0..shape.len())
            .flat_map(|d| coords.iter().map(move |c| c[d]))
            .collect()
    } else {
        coords.iter().flatten().copied().collect()
    };
    let order = if column_major {
        CooOrder::ColumnMajor
    } else {
        CooOrder::RowMajor
    };
    let index = CooIndex::with_order(index_array(it, &stored), shape.len(), order).unwrap();
    let t = SparseTensor::try_new(
        vt,
        shape,
        Buffer::from_vec(value_bytes(vt, &vals)),
        SparseIndex::Coo(index),
    )
    .unwrap();
    let mut dense = vec![0.0; total];
    for (&c, &v) in cells.iter().zip(&vals) {
        dense[c] = v;
    }
    let canonical = column_major || nnz <= 1 || cells.windows(2).all(|w| w[0] < w[1]);
    let mut spec = common_spec("coo_explicit", vt, shape, &None);
    spec += &format!(
        " index={} nnz={nnz} canonical={} coords_layout={} coords={} nzvalues={}",
        it.name(),
        canonical as u8,
        if column_major { "col" } else { "row" },
        list(coords.iter().flatten().map(|c| c.to_string())),
        list(vals.iter().map(|&v| fmt_value(vt, v)))
    );
    Case {
        spec,
        ours: Message::SparseTensor(t),
        dense,
        arrow_dense: !column_major || nnz <= 1,
    }
}

const ARROW_INDEX_TYPES: [IndexType; 7] = [
    IndexType::Int8,
    IndexType::Int16,
    IndexType::Int32,
    IndexType::Int64,
    IndexType::UInt8,
    IndexType::UInt16,
    IndexType::UInt32,
];

fn cases() -> Vec<Case> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    let dense_shapes: &[&[usize]] = &[&[], &[5], &[2, 3], &[3, 1, 4], &[0, 3], &[2, 2, 2, 2]];
    for vt in ValueType::ALL {
        for shape in dense_shapes {
            for layout in ["row", "col", "strided"] {
                if layout == "strided" && (shape.is_empty() || shape.contains(&0)) {
                    continue;
                }
                let n: usize = shape.iter().product();
                let vals = gen_values(&mut rng, vt, n, 70, true);
                let names = names_for(&mut rng, shape.len());
                out.push(dense_case(vt, shape, layout, vals, names));
            }
        }
    }
    let sparse_shapes: &[(&str, &[usize])] = &[
        ("coo", &[4, 5]),
        ("coo", &[3, 2, 4]),
        ("coo", &[6]),
        ("coo", &[2, 0]),
        ("csr", &[5, 4]),
        ("csr", &[3, 6]),
        ("csc", &[5, 4]),
        ("csc", &[4, 7]),
        ("csf", &[2, 3]),
        ("csf", &[4, 2, 3]),
        ("csf", &[2, 3, 2, 2]),
        ("csf", &[2, 2, 1, 2, 3]),
    ];
    for vt in ValueType::ALL {
        for (i, (kind, shape)) in sparse_shapes.iter().enumerate() {
            // Rotate index types through the matrix so every pair occurs.
            for it in [
                ARROW_INDEX_TYPES[(i + vt as usize) % 7],
                ARROW_INDEX_TYPES[(i + vt as usize + 3) % 7],
            ] {
                let n: usize = shape.iter().product();
                let density = if rng.below(8) == 0 { 0 } else { 40 };
                let vals = gen_values(&mut rng, vt, n, density, false);
                let names = names_for(&mut rng, shape.len());
                out.push(sparse_case(kind, vt, it, shape, vals, names, None));
            }
        }
    }
    for vt in ValueType::ALL {
        for (k, shape) in [&[5usize, 4][..], &[3, 2, 4][..]].into_iter().enumerate() {
            let it = ARROW_INDEX_TYPES[(vt as usize + k) % 7];
            out.push(coo_explicit_case(&mut rng, vt, it, shape, false));
            out.push(coo_explicit_case(&mut rng, vt, it, shape, true));
        }
    }
    out
}

/// Cases only we can produce (Arrow's converters do not): CSF with non-identity axis
/// orders of our choosing.
fn our_only_cases() -> Vec<Case> {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut out = Vec::new();
    for vt in ValueType::ALL {
        for (shape, order) in [
            (&[3usize, 4][..], vec![1usize, 0]),
            (&[2, 3, 4][..], vec![2, 0, 1]),
            (&[3, 2, 2, 3][..], vec![3, 1, 0, 2]),
        ] {
            let it = ARROW_INDEX_TYPES[rng.below(7) as usize];
            let n: usize = shape.iter().product();
            let vals = gen_values(&mut rng, vt, n, 50, false);
            out.push(sparse_case(
                "csf",
                vt,
                it,
                shape,
                vals,
                names_for(&mut rng, shape.len()),
                Some(order),
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The tests.

fn decode_file(path: &Path) -> Vec<DecodedMessage> {
    let bytes = std::fs::read(path).unwrap();
    MessageIter::new(bytes::Bytes::from(bytes), &ReadOptions::strict())
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("decoding {}: {e}", path.display()))
}

fn expected_dense_json(c: &Case) -> Value {
    let vt = match &c.ours {
        Message::Tensor(t) => t.value_type(),
        Message::SparseTensor(t) => t.value_type(),
    };
    json!(values_json(vt, &value_bytes(vt, &c.dense)))
}

#[test]
fn arrow_writes_we_read() {
    let cases = cases();
    let specs: Vec<String> = cases.iter().map(|c| c.spec.clone()).collect();
    let file = scratch("arrow-written.arrows");
    arrow_write(&specs, &file);
    let arrow = arrow_read(&file);
    let ours = decode_file(&file);
    assert_eq!(
        arrow.len(),
        cases.len(),
        "Arrow read a different number of messages"
    );
    assert_eq!(
        ours.len(),
        cases.len(),
        "we read a different number of messages"
    );
    let mut failures = Vec::new();
    for (i, ((case, a), o)) in cases.iter().zip(&arrow).zip(&ours).enumerate() {
        let ours_json = ours_json(o);
        let name = format!("#{i} `{}`", case.spec);
        if let Err(e) = compare(&name, a, &ours_json, case.arrow_dense) {
            failures.push(e);
            continue;
        }
        // Independent truth: the dense values the case was built from.
        let dense_key = if ours_json["kind"] == "tensor" {
            "values"
        } else {
            "dense"
        };
        let float = ours_json["type"].as_str().unwrap().starts_with("float");
        if let Some(d) = diff(
            dense_key,
            &expected_dense_json(case),
            &ours_json[dense_key],
            float,
        ) {
            failures.push(format!("case {name}: expected dense contents differ: {d}"));
        }
        for key in [
            "offset",
            "metadata_version",
            "metadata_length",
            "body_length",
        ] {
            if a[key] != ours_json[key] {
                failures.push(format!(
                    "case {name}: {key}: arrow {} vs ours {}",
                    a[key], ours_json[key]
                ));
            }
        }
    }
    eprintln!(
        "arrow_writes_we_read: {} cases, {} failures",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(cases.len() >= 300, "only {} cases", cases.len());
}

#[test]
fn we_write_arrow_reads() {
    let mut cases = cases();
    cases.extend(our_only_cases());
    let file = scratch("ours-written.arrows");
    let mut w = MessageWriter::new(
        std::fs::File::create(&file).unwrap(),
        &WriteOptions::default(),
    );
    for c in &cases {
        w.write(&c.ours).unwrap();
    }
    w.finish().unwrap();
    let arrow = arrow_read(&file);
    let ours = decode_file(&file);
    assert_eq!(
        arrow.len(),
        cases.len(),
        "Arrow read a different number of messages"
    );
    let mut failures = Vec::new();
    for (i, ((case, a), o)) in cases.iter().zip(&arrow).zip(&ours).enumerate() {
        let name = format!("#{i} `{}`", case.spec);
        let ours_json = ours_json(o);
        // Arrow's view of our bytes equals ours (strided sources are written row-major)...
        if let Err(e) = compare(&name, a, &ours_json, true) {
            failures.push(e);
            continue;
        }
        // ...and Arrow's ToTensor equals our dense expansion, which equals the source.
        let dense_key = if ours_json["kind"] == "tensor" {
            "values"
        } else {
            "dense"
        };
        let float = ours_json["type"].as_str().unwrap().starts_with("float");
        // We write every COO index row-major, so Arrow's ToTensor, which ignores
        // indicesStrides, expands every one of ours right (column-major sources included).
        let is_coo =
            matches!(&case.ours, Message::SparseTensor(t) if t.format() == SparseFormat::Coo);
        if !case.arrow_dense && !is_coo {
            continue;
        }
        if a[dense_key].is_null() {
            failures.push(format!("case {name}: Arrow did not expand it: {a}"));
        } else if let Some(d) = diff(dense_key, &a[dense_key], &expected_dense_json(case), float) {
            failures.push(format!(
                "case {name}: Arrow's dense differs from the source: {d}"
            ));
        }
    }
    eprintln!(
        "we_write_arrow_reads: {} cases, {} failures",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(cases.len() >= 300, "only {} cases", cases.len());
}

#[test]
fn pyarrow_reads_our_dense_tensors() {
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| matches!(c.ours, Message::Tensor(_)))
        .collect();
    let file = scratch("ours-dense.arrows");
    let mut w = MessageWriter::new(
        std::fs::File::create(&file).unwrap(),
        &WriteOptions::default(),
    );
    for c in &cases {
        w.write(&c.ours).unwrap();
    }
    drop(w.into_inner());
    let script = r#"
import json, math, sys
import pyarrow as pa
def enc(x):
    if isinstance(x, float):
        if math.isnan(x): return "NaN"
        if math.isinf(x): return "Infinity" if x > 0 else "-Infinity"
    return x
with pa.memory_map(sys.argv[1]) as f:
    while f.tell() < f.size():
        t = pa.ipc.read_tensor(f)
        vals = [enc(v) for v in t.to_numpy().ravel(order="C").tolist()]
        print(json.dumps({"type": str(t.type), "shape": list(t.shape), "strides": list(t.strides),
                          "dim_names": list(t.dim_names), "values": vals}))
"#;
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pyarrow failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), cases.len());
    let py_type = |vt: ValueType| match vt {
        ValueType::Float16 => "halffloat".to_string(),
        ValueType::Float32 => "float".to_string(),
        ValueType::Float64 => "double".to_string(),
        t => t.name().to_string(),
    };
    let mut failures = Vec::new();
    for (i, (c, p)) in cases.iter().zip(&lines).enumerate() {
        let t = c.ours.as_tensor().unwrap();
        let float = t.value_type().is_float();
        if p["type"] != py_type(t.value_type()) || p["shape"] != json!(t.shape()) {
            failures.push(format!("#{i} `{}`: pyarrow saw {p}", c.spec));
        } else if let Some(d) = diff("values", &p["values"], &expected_dense_json(c), float) {
            failures.push(format!("#{i} `{}`: {d}", c.spec));
        }
        let names: Vec<String> = t.dim_names().to_vec();
        if t.has_dim_names() && p["dim_names"] != json!(names) {
            failures.push(format!(
                "#{i} `{}`: pyarrow dim names {}",
                c.spec, p["dim_names"]
            ));
        }
    }
    eprintln!(
        "pyarrow_reads_our_dense_tensors: {} cases, {} failures",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Arrow's quirks, pinned on the bytes it writes, so a change in a future pyarrow is noticed.
#[test]
fn arrow_quirks_are_pinned() {
    let specs = [
        "kind=csf type=int32 shape=2,3 index=int16 values=0,1,0,2,0,3",
        "kind=coo_explicit type=float32 shape=3,4 index=int32 coords= nzvalues=",
        "kind=csr type=int8 shape=2,3 index=int32 values=1,0,2,0,0,3",
        "kind=dense type=int8 shape=3 values=1,2,3",
        "kind=dense type=int8 shape=3 values=4,5,6",
    ];
    let specs: Vec<String> = specs
        .iter()
        .map(|s| s.to_string())
        .chain([
            // Column-major coordinates: Arrow's ToTensor ignores the index strides.
            "kind=coo_explicit type=int32 shape=3,4 index=int32 canonical=1 coords_layout=col \
             coords=0,1,1,0,2,3 nzvalues=7,8,9"
                .to_string(),
        ])
        .collect();
    let file = scratch("quirks.arrows");
    arrow_write(&specs, &file);
    let bytes = std::fs::read(&file).unwrap();
    let ours = decode_file(&file);
    assert_eq!(ours.len(), 6);
    let meta = |d: &DecodedMessage| {
        let start = d.offset as usize
            + if d.framing == arrow_tensor_ipc::Framing::Continuation {
                8
            } else {
                4
            };
        flatbuffers::root::<fb::Message>(&bytes[start..d.offset as usize + d.body_offset]).unwrap()
    };
    // CSF: Buffer.length of index buffers is an element count (int16: 2 bytes each).
    let csf = meta(&ours[0]).header_as_sparse_tensor().unwrap();
    let idx = csf.sparseIndex_as_sparse_tensor_index_csf().unwrap();
    let lens: Vec<i64> = idx.indicesBuffers().iter().map(|b| b.length()).collect();
    let counts: Vec<usize> = match ours[0].message.as_sparse().unwrap().index() {
        SparseIndex::Csf(c) => c.indices().iter().map(IndexArray::len).collect(),
        _ => unreachable!(),
    };
    assert_eq!(
        lens,
        counts.iter().map(|&c| c as i64).collect::<Vec<_>>(),
        "CSF lengths are element counts"
    );
    // COO with nnz = 0: strides [w, w].
    let coo = meta(&ours[1]).header_as_sparse_tensor().unwrap();
    let strides: Vec<i64> = coo
        .sparseIndex_as_sparse_tensor_index_coo()
        .unwrap()
        .indicesStrides()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(strides, vec![4, 4]);
    // CSR: buffers padded to 8 with padded lengths; metadata padded only to 8.
    let csr_msg = &ours[2];
    assert_eq!(csr_msg.body_offset % 8, 0);
    assert_ne!(
        csr_msg.body_offset % 64,
        0,
        "Arrow pads sparse metadata to 8, not 64"
    );
    let csr = meta(csr_msg).header_as_sparse_tensor().unwrap();
    let values = csr.data();
    assert_eq!(values.length(), 8, "3 int8 values padded to 8 bytes");
    // Dense: body not padded; the next message starts right after it.
    assert_eq!(ours[3].body_length, 3);
    assert_eq!(ours[4].offset, ours[3].offset + ours[3].total_length());
    assert_eq!(ours[4].offset % 8, 3);
    assert_eq!(
        ours[4].message.as_tensor().unwrap().to_vec::<i8>().unwrap(),
        vec![4, 5, 6]
    );
}

/// Arrow C++ re-writing a CSF tensor it read from a message writes a broken message: its
/// reader takes each index buffer's `length` as an element count and slices that many
/// *bytes*, so `WriteSparseTensor` copies only the first `count` bytes of every index buffer
/// (a quarter of an int32 array) and records `count / width` elements. Our strict reader
/// refuses the result with a typed error; the values buffer survives intact.
#[test]
fn arrow_rewrites_csf_it_read_with_truncated_index_buffers() {
    // 4 x 4 with 6 stored values: last-level indices hold 6 int32 elements.
    let spec = "kind=csf type=float64 shape=4,4 index=int32 \
                values=1,0,2,0,0,0,3,0,4,0,0,5,0,6,0,0";
    let file = scratch("csf-rewrite-in.arrows");
    arrow_write(&[spec.to_string()], &file);
    let original = decode_file(&file);
    assert_eq!(original.len(), 1);
    assert_eq!(original[0].message.as_sparse().unwrap().nnz(), 6);

    let out = scratch("csf-rewrite-out.arrows");
    let status = Command::new(helper())
        .arg("roundtrip")
        .arg(&file)
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "arrow_interop roundtrip failed: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let rewritten = std::fs::read(&out).unwrap();
    let input = std::fs::read(&file).unwrap();
    assert!(
        rewritten.len() < input.len(),
        "Arrow's rewrite is shorter ({} < {} bytes)",
        rewritten.len(),
        input.len()
    );
    let err =
        arrow_tensor_ipc::decode_message(&bytes::Bytes::from(rewritten), &ReadOptions::strict())
            .expect_err("the truncated CSF index is refused");
    let text = err.to_string();
    assert!(text.contains("CSF buffer lengths"), "{text}");
    assert!(text.contains("expected 6, found 1"), "{text}");
}

// ---------------------------------------------------------------------------------------
// COO coordinate order: Arrow C++'s ToTensor ignores indicesStrides and reads every COO
// coordinate buffer as a row-major matrix, so we write column-major coordinates
// transposed (with the default, Arrow-compatible options). Arrow's own expansion is the
// judge.

/// A COO tensor with column-major coordinates: distinct cells of `shape`, sorted
/// (canonical) or shuffled, and its dense contents.
fn column_major_coo(
    rng: &mut Rng,
    vt: ValueType,
    it: IndexType,
    shape: &[usize],
    sorted: bool,
) -> (SparseTensor, Vec<f64>) {
    let total: usize = shape.iter().product();
    let mut cells: Vec<usize> = (0..total).filter(|_| rng.below(3) == 0).collect();
    for i in (1..cells.len()).rev() {
        cells.swap(i, rng.below(i as u64 + 1) as usize);
    }
    if sorted {
        cells.sort_unstable();
    }
    let vals = gen_values(rng, vt, cells.len(), 100, false);
    let coords: Vec<Vec<usize>> = cells.iter().map(|&c| row_major_coords(shape, c)).collect();
    let stored: Vec<usize> = (0..shape.len())
        .flat_map(|d| coords.iter().map(move |c| c[d]))
        .collect();
    let index =
        CooIndex::with_order(index_array(it, &stored), shape.len(), CooOrder::ColumnMajor).unwrap();
    let t = SparseTensor::try_new(
        vt,
        shape,
        Buffer::from_vec(value_bytes(vt, &vals)),
        SparseIndex::Coo(index),
    )
    .unwrap();
    let mut dense = vec![0.0; total];
    for (&c, &v) in cells.iter().zip(&vals) {
        dense[c] = v;
    }
    (t, dense)
}

/// Writes `messages` with `options` and has Arrow read them back.
fn arrow_reads_ours(name: &str, messages: &[Message], options: WriteOptions) -> Vec<Value> {
    let file = scratch(name);
    let mut w = MessageWriter::new(std::fs::File::create(&file).unwrap(), &options);
    for m in messages {
        w.write(m).unwrap();
    }
    w.finish().unwrap();
    let arrow = arrow_read(&file);
    assert_eq!(arrow.len(), messages.len(), "{name}: Arrow's message count");
    arrow
}

/// Checks that Arrow read a row-major coordinate matrix and expanded it to `dense`.
fn check_arrow_expansion(name: &str, a: &Value, vt: ValueType, dense: &[f64], ndim: usize) {
    assert!(a.get("error").is_none(), "{name}: Arrow failed: {a}");
    let w = vt_index_width(a);
    let nnz = a["nnz"].as_u64().unwrap();
    if nnz > 1 && ndim > 1 {
        assert_eq!(
            a["coords_strides"],
            json!([ndim as i64 * w, w]),
            "{name}: indicesStrides are not row-major"
        );
    }
    let expected = json!(values_json(vt, &value_bytes(vt, dense)));
    assert!(
        !a["dense"].is_null(),
        "{name}: Arrow did not expand it: {}",
        a["dense_error"]
    );
    if let Some(d) = diff("dense", &a["dense"], &expected, vt.is_float()) {
        panic!("{name}: Arrow's expansion differs from the tensor: {d}");
    }
}

/// Byte width of the coordinate type Arrow reported.
fn vt_index_width(a: &Value) -> i64 {
    let name = a["index_type"].as_str().unwrap();
    IndexType::ALL
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("index type {name}"))
        .byte_width() as i64
}

/// (a) Column-major COO tensors we build, encoded with the default options: Arrow's
/// `ToTensor` gives their dense contents. Written with `arrow_compatible(false)` the
/// column-major strides are kept, which Arrow's `ToTensor` misreads (pinned on the
/// issue's 3 x 4 example, where it reads a coordinate outside the shape).
#[test]
fn arrow_expands_the_column_major_coo_we_encode() {
    let mut rng = Rng(0x0C00_0DE5_1DEA_5EED);
    let mut built: Vec<(SparseTensor, Vec<f64>)> = Vec::new();
    for (k, vt) in [
        ValueType::Int32,
        ValueType::Float64,
        ValueType::Int8,
        ValueType::Float32,
    ]
    .into_iter()
    .enumerate()
    {
        for (j, shape) in [&[3usize, 4][..], &[5, 4], &[3, 2, 4], &[2, 3, 2, 2], &[7]]
            .into_iter()
            .enumerate()
        {
            let it = ARROW_INDEX_TYPES[(k + j) % 7];
            built.push(column_major_coo(&mut rng, vt, it, shape, false));
            built.push(column_major_coo(&mut rng, vt, it, shape, true));
        }
    }
    // The issue's example: (0,1) (1,0) (1,3) (2,3) in a 3 x 4 tensor.
    let example = SparseTensor::try_new(
        ValueType::Int32,
        vec![3, 4],
        Buffer::from_vec(vec![10i32, 20, 30, 40]),
        SparseIndex::Coo(
            CooIndex::with_order(
                IndexArray::from_vec(vec![0i32, 1, 1, 2, 1, 0, 3, 3]),
                2,
                CooOrder::ColumnMajor,
            )
            .unwrap(),
        ),
    )
    .unwrap();
    let mut example_dense = vec![0.0; 12];
    for (c, v) in [(1, 10.0), (4, 20.0), (7, 30.0), (11, 40.0)] {
        example_dense[c] = v;
    }
    built.push((example.clone(), example_dense));
    let messages: Vec<Message> = built.iter().map(|(t, _)| t.clone().into()).collect();
    let arrow = arrow_reads_ours("coo-column-major", &messages, WriteOptions::default());
    for (i, ((t, dense), a)) in built.iter().zip(&arrow).enumerate() {
        check_arrow_expansion(&format!("#{i}"), a, t.value_type(), dense, t.ndim());
    }
    eprintln!("{} column-major COO tensors expanded by Arrow", built.len());

    // Kept column-major: Arrow reads the coordinates right, its ToTensor does not.
    let kept = arrow_reads_ours(
        "coo-column-major-kept",
        &[example.into()],
        WriteOptions::default().with_arrow_compatible(false),
    );
    assert_eq!(kept[0]["coords_strides"], json!([4, 16]));
    assert_eq!(kept[0]["coords"], json!([[0, 1], [1, 0], [1, 3], [2, 3]]));
    assert!(kept[0]["dense"].is_null(), "{}", kept[0]);
    assert!(
        kept[0]["dense_error"]
            .as_str()
            .unwrap()
            .contains("coordinate 3 of non-zero 3"),
        "{}",
        kept[0]
    );
}

/// (a) Re-encoding: a column-major message Arrow C++ itself wrote (what Arrow 0.15 wrote),
/// decoded and encoded again with the default options, is one Arrow expands right.
#[test]
fn arrow_expands_a_column_major_message_we_re_encode() {
    let specs = [
        "kind=coo_explicit type=int32 shape=3,4 index=int32 canonical=1 coords_layout=col \
         coords=0,1,1,0,1,3,2,3 nzvalues=10,20,30,40",
        "kind=coo_explicit type=float64 shape=2,3,4 index=int16 canonical=0 coords_layout=col \
         coords=1,2,3,0,0,1,1,0,2,0,2,0 nzvalues=1.5,-2,4,8",
        "kind=coo_explicit type=uint8 shape=5,5 index=uint8 canonical=0 coords_layout=col \
         coords=4,0,0,4,2,2,3,1,1,3 nzvalues=1,2,3,4,5",
    ];
    /// Value type, shape, and the stored (coordinates, value) pairs.
    type Expected = (ValueType, Vec<usize>, Vec<(Vec<usize>, f64)>);
    let dense: [Expected; 3] = [
        (
            ValueType::Int32,
            vec![3, 4],
            vec![
                (vec![0, 1], 10.0),
                (vec![1, 0], 20.0),
                (vec![1, 3], 30.0),
                (vec![2, 3], 40.0),
            ],
        ),
        (
            ValueType::Float64,
            vec![2, 3, 4],
            vec![
                (vec![1, 2, 3], 1.5),
                (vec![0, 0, 1], -2.0),
                (vec![1, 0, 2], 4.0),
                (vec![0, 2, 0], 8.0),
            ],
        ),
        (
            ValueType::UInt8,
            vec![5, 5],
            vec![
                (vec![4, 0], 1.0),
                (vec![0, 4], 2.0),
                (vec![2, 2], 3.0),
                (vec![3, 1], 4.0),
                (vec![1, 3], 5.0),
            ],
        ),
    ];
    let file = scratch("coo-arrow-column-major.arrows");
    arrow_write(&specs.map(String::from), &file);
    let decoded = decode_file(&file);
    assert_eq!(decoded.len(), specs.len());
    let mut messages = Vec::new();
    for (d, (_, shape, _)) in decoded.iter().zip(&dense) {
        let t = d.message.as_sparse().unwrap();
        let SparseIndex::Coo(c) = t.index() else {
            panic!("not COO")
        };
        assert_eq!(c.order(), CooOrder::ColumnMajor, "Arrow wrote column-major");
        assert_eq!(t.shape(), &shape[..]);
        messages.push(d.message.clone());
    }
    let arrow = arrow_reads_ours("coo-re-encoded", &messages, WriteOptions::default());
    for (i, (a, (vt, shape, entries))) in arrow.iter().zip(&dense).enumerate() {
        let mut expected = vec![0.0; shape.iter().product()];
        for (c, v) in entries {
            expected[c.iter().zip(shape).fold(0, |acc, (&x, &d)| acc * d + x)] = *v;
        }
        check_arrow_expansion(&format!("re-encoded #{i}"), a, *vt, &expected, shape.len());
    }
}

/// (b) A scipy COO `.npz` (2-d: `row.npy` and `col.npy`; 3-d: `coords.npy`, one row per
/// dimension) converted by `arrow-tensor convert m.npz out.arrows`: Arrow's expansion of
/// what we wrote equals scipy's `toarray()`.
#[cfg(feature = "cli")]
#[test]
fn arrow_expands_what_we_write_from_a_scipy_coo_npz() {
    let script = r#"
import json, sys
import numpy as np, scipy.sparse as sp
rng = np.random.default_rng(20)
out = []
for k, (shape, nnz, it) in enumerate([((20, 30), 150, np.int32), ((9, 7), 40, np.int64),
                                      ((4, 5, 6), 60, np.int64)]):
    size = int(np.prod(shape))
    cells = rng.choice(size, nnz, replace=False)
    coords = tuple(c.astype(it) for c in np.unravel_index(cells, shape))
    data = rng.integers(1, 1000, nnz).astype(np.float64)
    m = sp.coo_array((data, coords), shape=shape)
    path = f"{sys.argv[1]}/m{k}.npz"
    sp.save_npz(path, m, compressed=(k == 1))
    out.append({"path": path, "shape": list(shape), "dense": m.toarray().ravel().tolist()})
print(json.dumps(out))
"#;
    let dir = scratch("scipy-coo-npz");
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scipy failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(files.len(), 3);
    for f in &files {
        let npz = f["path"].as_str().unwrap();
        let arrows = format!("{npz}.arrows");
        let run = Command::new(env!("CARGO_BIN_EXE_arrow-tensor"))
            .args(["convert", npz, &arrows])
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "convert {npz}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let arrow = arrow_read(Path::new(&arrows));
        assert_eq!(arrow.len(), 1);
        let dense: Vec<f64> = f["dense"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let ndim = f["shape"].as_array().unwrap().len();
        check_arrow_expansion(npz, &arrow[0], ValueType::Float64, &dense, ndim);
    }
}
