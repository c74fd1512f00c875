//! Times this crate's `.npz` and `.npy` readers and writers side by side with
//! `scipy.sparse.load_npz` / `save_npz` and `numpy.load` / `numpy.save`.
//!
//! ```text
//! cargo run --release --features npy --example compare_npz [-- --reps N] [--nnz N] [--npy-mib M]
//! ```
//!
//! Inputs: a CSR matrix of `--nnz` (default 1,000,000) float64 values with int32 indices
//! (10 per row), written by us to `target/compare_npz/` stored and deflated, and a
//! float64 `.npy` array of `--npy-mib` MiB (default 64). Ours is timed in-process (best
//! of the reps after one warm-up), reading from and writing to memory; the python side
//! (`examples/common/numpy_npz.py time-npz|time-npy FILE REPS`, run by `.venv/bin/python`)
//! times scipy/numpy inside python on the same files, also from and to memory
//! (`io.BytesIO`). One JSON object per line:
//!
//! `{"op":..,"bytes":..,"ours_s":..,"theirs_s":..,"ratio":..}`
//!
//! `ratio` is `theirs_s / ours_s` (higher is better for us); `bytes` is the file length.
//! The `.npy` zero-copy read (`npy::read` of a `Buffer`) has no numpy equivalent that copies
//! nothing either; it is compared with `numpy.load` all the same and marked `zero_copy`.

use arrow_tensor_ipc::formats::{npy, npz};
use arrow_tensor_ipc::{Limits, Message, SparseTensor, Tensor};
use std::hint::black_box;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn python_times(mode: &str, file: &Path, reps: usize) -> serde_json::Value {
    let out = Command::new(root().join(".venv/bin/python"))
        .arg(root().join("examples/common/numpy_npz.py"))
        .arg(mode)
        .arg(file)
        .arg(reps.to_string())
        .output()
        .expect("run .venv/bin/python (scripts/venv.sh creates it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON from the python helper")
}

/// A deterministic pseudo-random CSR: `nnz / 10` rows of 10 sorted distinct columns.
fn csr(nnz: usize) -> SparseTensor {
    let per_row = 10usize;
    let rows = nnz.div_ceil(per_row);
    let cols = rows.max(per_row);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut indptr = Vec::with_capacity(rows + 1);
    let mut indices = Vec::with_capacity(nnz);
    let mut values = Vec::with_capacity(nnz);
    indptr.push(0i32);
    let band = cols / per_row;
    for r in 0..rows {
        let here = per_row.min(nnz - r * per_row);
        for k in 0..here {
            // One column in each of `per_row` bands: sorted and distinct.
            indices.push((k * band + (next() as usize % band)) as i32);
            values.push((next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5);
        }
        indptr.push(indices.len() as i32);
    }
    SparseTensor::csr([rows, cols], indptr, indices, values).expect("a valid CSR")
}

fn row(op: &str, bytes: usize, ours: f64, theirs: f64, extra: &str) {
    println!(
        "{{\"op\":\"{op}\",\"bytes\":{bytes},\"ours_s\":{ours:.6},\"theirs_s\":{theirs:.6},\"ratio\":{:.3}{extra}}}",
        theirs / ours
    );
}

fn main() {
    let mut reps = 10usize;
    let mut nnz = 1_000_000usize;
    let mut npy_mib = 64usize;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).and_then(|v| v.parse().ok());
        match (args[i].as_str(), value) {
            ("--reps", Some(v)) => reps = v,
            ("--nnz", Some(v)) => nnz = v,
            ("--npy-mib", Some(v)) => npy_mib = v,
            _ => panic!("usage: compare_npz [--reps N] [--nnz N] [--npy-mib M]"),
        }
        i += 2;
    }
    let dir = root().join("target/compare_npz");
    std::fs::create_dir_all(&dir).expect("create target/compare_npz");
    let read_options = npz::NpzReadOptions::default().with_limits(Limits::default());
    let npy_options = npy::NpyReadOptions::default().with_limits(Limits::default());

    let t = csr(nnz);
    for compressed in [false, true] {
        let options = npz::NpzWriteOptions::default().with_compressed(compressed);
        let t = [Message::from(t.clone())];
        let mut file = Cursor::new(Vec::new());
        npz::write(&t, &mut file, &options).expect("npz::write");
        let bytes = arrow_buffer::Buffer::from_vec(file.into_inner());
        let kind = if compressed { "deflated" } else { "stored" };
        let path = dir.join(format!("csr_{nnz}_{kind}.npz"));
        std::fs::write(&path, &bytes).expect("write the file");
        let read_s = best(reps, || {
            black_box(npz::read(bytes.clone(), &read_options).expect("npz::read"));
        });
        let write_s = best(reps, || {
            let mut out = Cursor::new(Vec::new());
            npz::write(&t, &mut out, &options).expect("npz::write");
            black_box(out);
        });
        let py = python_times("time-npz", &path, reps);
        let extra = format!(",\"nnz\":{nnz}");
        row(
            &format!("npz read csr f64/i32 {kind} (load_npz)"),
            bytes.len(),
            read_s,
            py["load_s"].as_f64().unwrap_or(f64::NAN),
            &extra,
        );
        row(
            &format!("npz write csr f64/i32 {kind} (save_npz)"),
            bytes.len(),
            write_s,
            py["save_s"].as_f64().unwrap_or(f64::NAN),
            &extra,
        );
    }

    let n = npy_mib * (1 << 20) / 8;
    let dense = Tensor::from_vec(
        vec![n / 1024, 1024],
        (0..n).map(|k| k as f64 * 0.5).collect(),
    )
    .expect("a tensor");
    let mut bytes = Vec::new();
    let dense = [Message::from(dense)];
    npy::write(&dense, &mut bytes, &npy::NpyWriteOptions::default()).expect("npy::write");
    let path = dir.join(format!("f64_{npy_mib}mib.npy"));
    std::fs::write(&path, &bytes).expect("write the file");
    let py = python_times("time-npy", &path, reps);
    let load = py["load_s"].as_f64().unwrap_or(f64::NAN);
    let read_s = best(reps, || {
        black_box(npy::read(&bytes[..], &npy_options).expect("npy::read"));
    });
    row(
        "npy read f64 (copy; numpy.load)",
        bytes.len(),
        read_s,
        load,
        "",
    );
    let buffer = arrow_buffer::Buffer::from_vec(bytes.clone());
    let zero_s = best(reps, || {
        black_box(npy::read(buffer.clone(), &npy_options).expect("npy::read"));
    });
    row(
        "npy read of a Buffer f64 (numpy.load)",
        bytes.len(),
        zero_s,
        load,
        ",\"zero_copy\":true",
    );
    let write_s = best(reps, || {
        let mut out = Vec::new();
        npy::write(&dense, &mut out, &npy::NpyWriteOptions::default()).expect("npy::write");
        black_box(out);
    });
    row(
        "npy write f64 (numpy.save)",
        bytes.len(),
        write_s,
        py["save_s"].as_f64().unwrap_or(f64::NAN),
        "",
    );
}
