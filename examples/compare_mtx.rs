//! Times this crate's Matrix Market and FROSTT readers and writers against scipy.
//!
//! ```text
//! cargo run --release --features matrix-market,frostt,mmap --example compare_mtx [-- --reps N] [--nnz N[,N...]]
//! ```
//!
//! For each size (default 1M and 10M entries) it generates a random `coordinate real
//! general` matrix of `nnz` entries (rows = cols = nnz / 10, uniform coordinates, uniform
//! values in [0, 1) printed shortest round-trip) under `target/compare_mtx/`, and a rank-3
//! FROSTT file of the same entries. It times, best of `reps` runs, in process:
//! - `mtx_read`: the file memory-mapped ([`arrow_tensor_ipc::map_file`], as the CLI reads
//!   it) plus `formats::mtx::read` (default options, every core);
//! - `mtx_read_small_pages`: the same with the huge-page advice for the outputs turned off
//!   (`ARROW_TENSOR_IPC_HUGE_PAGES=0`), which shows what the advice is worth;
//! - `mtx_parse_in_memory`: `formats::mtx::read` alone on the bytes already read (still
//!   against scipy's time from the file, to show what the file read costs us);
//! - `mtx_write`: `formats::mtx::write` of the matrix read to a file;
//! - `tns_read` / `tns_read_small_pages` / `tns_write`: the same (memory-mapped) for
//!   `formats::tns::read` / `write`;
//!
//! and runs `examples/common/scipy_mtx.py` in `.venv` to time `scipy.io.mmread` /
//! `scipy.io.mmwrite` (scipy 1.17: fast_matrix_market, parallel C++) on the same file, and
//! pyarrow's multi-threaded CSV reader and writer (space-delimited) on the FROSTT file.
//! One JSON object per line:
//!
//! `{"op":..,"nnz":..,"bytes":..,"ours_s":..,"python_s":..,"ratio":..,"baseline":..}`
//!
//! `ratio` is `python_s / ours_s` (higher is better for us); `bytes` is the file size.

// Memory maps (`read_mmap`, `map_file`) of files this program writes and nothing modifies
// while they are mapped.
#![allow(unsafe_code)]

use arrow_tensor_ipc::formats::{mtx, tns};
use arrow_tensor_ipc::{Message, SparseTensor};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Best seconds of `reps` runs of `f`.
fn best<R>(reps: usize, mut f: impl FnMut() -> R) -> f64 {
    let mut t_best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        let r = black_box(f());
        t_best = t_best.min(t.elapsed().as_secs_f64());
        drop(r);
    }
    t_best
}

/// A random `n x n` COO matrix of `nnz` entries (xorshift; coordinates uniform, values in [0, 1)).
fn random_matrix(nnz: usize) -> SparseTensor {
    let n = (nnz / 10).max(1);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut coords = Vec::with_capacity(nnz * 2);
    let mut values = Vec::with_capacity(nnz);
    for _ in 0..nnz {
        coords.push((next() % n as u64) as i64);
        coords.push((next() % n as u64) as i64);
        values.push((next() >> 11) as f64 / (1u64 << 53) as f64);
    }
    let index = arrow_tensor_ipc::CooIndex::new(arrow_tensor_ipc::IndexArray::from_vec(coords), 2)
        .expect("index");
    SparseTensor::try_new_with_duplicates(
        arrow_tensor_ipc::ValueType::Float64,
        vec![n, n],
        arrow_buffer::Buffer::from_vec(values),
        arrow_tensor_ipc::SparseIndex::Coo(index),
    )
    .expect("matrix")
}

/// A rank-3 COO tensor with the same entries (the column split in two coordinates).
fn rank3(m: &SparseTensor) -> SparseTensor {
    let n = m.shape()[1];
    let k = (n as f64).sqrt().ceil() as usize;
    let arrow_tensor_ipc::SparseIndex::Coo(coo) = m.index() else {
        unreachable!()
    };
    let src = coo.indices().values::<i64>().expect("i64");
    let mut coords = Vec::with_capacity(m.nnz() * 3);
    for e in src.chunks_exact(2) {
        coords.extend([e[0], e[1] / k as i64, e[1] % k as i64]);
    }
    let index = arrow_tensor_ipc::CooIndex::new(arrow_tensor_ipc::IndexArray::from_vec(coords), 3)
        .expect("index");
    SparseTensor::try_new_with_duplicates(
        m.value_type(),
        vec![m.shape()[0], n.div_ceil(k), k],
        m.values_buffer().clone(),
        arrow_tensor_ipc::SparseIndex::Coo(index),
    )
    .expect("tensor")
}

/// Runs `f` with the huge-page advice for large outputs turned off (the crate's
/// `ARROW_TENSOR_IPC_HUGE_PAGES=0`), for the rows that show what the advice is worth.
fn small_pages<R>(f: impl FnOnce() -> R) -> R {
    const ENV: &str = "ARROW_TENSOR_IPC_HUGE_PAGES";
    let before = std::env::var_os(ENV);
    std::env::set_var(ENV, "0");
    let r = f();
    match before {
        Some(v) => std::env::set_var(ENV, v),
        None => std::env::remove_var(ENV),
    }
    r
}

fn python() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    assert!(
        p.exists(),
        "{} is missing: run scripts/venv.sh to create the Python environment",
        p.display()
    );
    p
}

fn row(op: &str, nnz: usize, bytes: u64, ours: f64, python: f64, baseline: &str) {
    println!(
        "{{\"op\":\"{op}\",\"nnz\":{nnz},\"bytes\":{bytes},\"ours_s\":{ours:.4},\"python_s\":{python:.4},\"ratio\":{:.2},\"baseline\":\"{baseline}\"}}",
        python / ours
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut reps = 3usize;
    let mut sizes = vec![1_000_000usize, 10_000_000];
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--reps" => {
                reps = args[i + 1].parse().expect("--reps N");
                i += 1;
            }
            "--nnz" => {
                sizes = args[i + 1]
                    .split(',')
                    .map(|s| s.parse().expect("--nnz N[,N...]"))
                    .collect();
                i += 1;
            }
            other => panic!("unknown argument {other}"),
        }
        i += 1;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/compare_mtx");
    std::fs::create_dir_all(&dir).expect("create target/compare_mtx");
    for nnz in sizes {
        let mtx = dir.join(format!("random_{nnz}.mtx"));
        let tns = dir.join(format!("random_{nnz}.tns"));
        let m = random_matrix(nnz);
        let file = std::fs::File::create(&mtx).expect("create");
        mtx::write(
            &[Message::SparseTensor(m.clone())],
            file,
            &mtx::MtxWriteOptions::default(),
        )
        .expect("write mtx");
        let t3 = rank3(&m);
        tns::write(
            &[Message::SparseTensor(t3)],
            std::fs::File::create(&tns).expect("create"),
            &tns::TnsWriteOptions::default(),
        )
        .expect("write tns");
        drop(m);

        let read_mtx = || {
            let bytes = unsafe { arrow_tensor_ipc::map_file(&mtx) }.expect("map");
            mtx::read(bytes, &mtx::MtxReadOptions::default()).expect("parse")
        };
        let read_s = best(reps, read_mtx);
        let read_small_s = small_pages(|| best(reps, read_mtx));
        let in_memory = arrow_buffer::Buffer::from_vec(std::fs::read(&mtx).expect("read"));
        let parse_s = best(reps, || {
            mtx::read(in_memory.clone(), &mtx::MtxReadOptions::default()).expect("parse")
        });
        drop(in_memory);
        let message = read_mtx();
        let out = dir.join(format!("ours_{nnz}.mtx"));
        let write_s = best(reps, || {
            let f = std::fs::File::create(&out).expect("create");
            mtx::write(&message, f, &mtx::MtxWriteOptions::default()).expect("write")
        });
        drop(message);
        let read_tns = || {
            let bytes = unsafe { arrow_tensor_ipc::map_file(&tns) }.expect("map");
            tns::read(bytes, &tns::TnsReadOptions::default()).expect("parse")
        };
        let tns_read_s = best(reps, read_tns);
        let tns_read_small_s = small_pages(|| best(reps, read_tns));
        let tensor = read_tns();
        let tns_out = dir.join(format!("ours_{nnz}.tns"));
        let tns_write_s = best(reps, || {
            let f = std::fs::File::create(&tns_out).expect("create");
            tns::write(&tensor, f, &tns::TnsWriteOptions::default()).expect("write")
        });
        drop(tensor);

        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/common/scipy_mtx.py");
        let output = Command::new(python())
            .arg(&script)
            .arg(&mtx)
            .arg(dir.join(format!("scipy_{nnz}.mtx")))
            .arg(&tns)
            .arg(dir.join(format!("pyarrow_{nnz}.tns")))
            .arg(reps.to_string())
            .output()
            .expect("run python");
        assert!(
            output.status.success(),
            "scipy_mtx.py failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let py: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("JSON from scipy_mtx.py");
        assert_eq!(
            py["nnz"].as_u64(),
            Some(nnz as u64),
            "scipy read another nnz"
        );
        let f = |k: &str| py[k].as_f64().expect("a time");
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        row(
            "mtx_read",
            nnz,
            size(&mtx),
            read_s,
            f("mmread_s"),
            "scipy.io.mmread",
        );
        row(
            "mtx_read_small_pages",
            nnz,
            size(&mtx),
            read_small_s,
            f("mmread_s"),
            "scipy.io.mmread",
        );
        row(
            "mtx_parse_in_memory",
            nnz,
            size(&mtx),
            parse_s,
            f("mmread_s"),
            "scipy.io.mmread (from the file)",
        );
        row(
            "mtx_write",
            nnz,
            size(&out),
            write_s,
            f("mmwrite_s"),
            "scipy.io.mmwrite",
        );
        row(
            "tns_read",
            nnz,
            size(&tns),
            tns_read_s,
            f("tns_read_s"),
            "pyarrow.csv.read_csv",
        );
        row(
            "tns_read_small_pages",
            nnz,
            size(&tns),
            tns_read_small_s,
            f("tns_read_s"),
            "pyarrow.csv.read_csv",
        );
        row(
            "tns_write",
            nnz,
            size(&tns_out),
            tns_write_s,
            f("tns_write_s"),
            "pyarrow.csv.write_csv",
        );
    }
}
