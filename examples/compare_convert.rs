//! Times this crate's dense <-> sparse conversions side by side with Arrow C++'s.
//!
//! ```text
//! cargo run --release --example compare_convert [-- --reps N] [--helper PATH] [--only KIND]
//! ```
//!
//! For a 4096 x 4096 float64 matrix (COO, CSR, CSC, CSF) and a 200 x 200 x 200 float64
//! tensor (COO, CSF), each with 1,000,000 non-zeros at the same pseudo-random positions
//! on both sides, it prints one JSON line per conversion: the median of `--reps` runs
//! (after one warm-up) of ours with the default options (narrowest index type) and with
//! int64 indices (Arrow's default), Arrow's median from the interop helper
//! (`arrow_interop time-convert`, built by `tests/interop/build.sh` against the pyarrow of
//! `.venv` when missing), and the ratios `arrow_s / ours_s`.
//!
//! Both sides allocate through mimalloc (the allocator of Arrow C++'s default memory pool
//! in the pyarrow wheels), so that freed pages are reused alike: with the system
//! allocator, page faults on fresh memory dominate every conversion on both sides.

use arrow_tensor_ipc::convert::{self, ConvertOptions};
use arrow_tensor_ipc::{IndexType, SparseFormat, SparseTensor, Tensor};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Seed and generator shared with `arrow_interop time-convert` (splitmix64).
const SEED: u64 = 0x243F_6A88_85A3_08D3;

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The float64 row-major input the helper builds: draw r sets element r % total, when
/// still zero, to ((r >> 32) % 1000) + 1, until `nnz` elements are set.
fn make_input(shape: &[usize], nnz: usize) -> Tensor {
    let total: usize = shape.iter().product();
    assert!(nnz <= total);
    let mut data = vec![0.0f64; total];
    let mut state = SEED;
    let mut placed = 0;
    while placed < nnz {
        let r = splitmix64(&mut state);
        let pos = (r % total as u64) as usize;
        if data[pos] == 0.0 {
            data[pos] = ((r >> 32) % 1000 + 1) as f64;
            placed += 1;
        }
    }
    Tensor::from_vec(shape.to_vec(), data).expect("input tensor")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Median seconds of `reps` runs of `f` after one warm-up run.
fn time<R>(reps: usize, mut f: impl FnMut() -> R) -> f64 {
    drop(f());
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        let r = f();
        times.push(t.elapsed().as_secs_f64());
        drop(r);
    }
    median(times)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The interop helper, built when missing or stale.
fn helper(explicit: Option<PathBuf>) -> PathBuf {
    if let Some(p) = explicit {
        return p;
    }
    let out = root().join("target/interop/arrow_interop");
    let python = root().join(".venv/bin/python");
    let status = Command::new("bash")
        .arg(root().join("tests/interop/build.sh"))
        .arg(&python)
        .arg(&out)
        .status()
        .expect("run tests/interop/build.sh");
    assert!(status.success(), "tests/interop/build.sh failed");
    out
}

/// Arrow's medians (to sparse, to dense) from `arrow_interop time-convert`.
fn arrow_times(helper: &Path, kind: &str, shape: &str, nnz: usize, reps: usize) -> (f64, f64) {
    let out = Command::new(helper)
        .args([
            "time-convert",
            kind,
            shape,
            &nnz.to_string(),
            &reps.to_string(),
        ])
        .output()
        .expect("run the interop helper");
    assert!(
        out.status.success(),
        "helper failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("helper JSON");
    assert_eq!(v["roundtrip_equal"], true, "Arrow's round trip differs");
    assert_eq!(v["nnz"].as_u64(), Some(nnz as u64), "Arrow's nnz");
    (
        v["to_sparse_s"].as_f64().expect("to_sparse_s"),
        v["to_dense_s"].as_f64().expect("to_dense_s"),
    )
}

fn format_of(kind: &str) -> SparseFormat {
    match kind {
        "coo" => SparseFormat::Coo,
        "csr" => SparseFormat::Csr,
        "csc" => SparseFormat::Csc,
        "csf" => SparseFormat::Csf,
        _ => panic!("unknown kind {kind}"),
    }
}

fn main() {
    let mut reps = 7usize;
    let mut helper_path = None;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).expect("--reps N"),
            "--helper" => helper_path = args.next().map(PathBuf::from),
            "--only" => only = args.next(),
            _ => panic!("usage: compare_convert [--reps N] [--helper PATH] [--only KIND]"),
        }
    }
    let helper = helper(helper_path);
    let nnz = 1_000_000;
    let cases: [(&[usize], &str, &[&str]); 2] = [
        (&[4096, 4096], "4096x4096", &["coo", "csr", "csc", "csf"]),
        (&[200, 200, 200], "200x200x200", &["coo", "csf"]),
    ];
    let defaults = ConvertOptions::default();
    let int64 = ConvertOptions::default().with_index_type(IndexType::Int64);
    for (shape, shape_name, kinds) in cases {
        let dense = make_input(shape, nnz);
        for &kind in kinds {
            if only.as_deref().is_some_and(|o| o != kind) {
                continue;
            }
            let format = format_of(kind);
            let sparse: SparseTensor = convert::from_dense(&dense, format, &defaults).unwrap();
            let sparse64 = convert::from_dense(&dense, format, &int64).unwrap();
            assert_eq!(sparse.nnz(), nnz);
            assert!(convert::to_dense(&sparse).unwrap().content_eq(&dense));

            let ours_to_sparse = time(reps, || convert::from_dense(&dense, format, &defaults));
            let ours64_to_sparse = time(reps, || convert::from_dense(&dense, format, &int64));
            let ours_to_dense = time(reps, || convert::to_dense(&sparse));
            let ours64_to_dense = time(reps, || convert::to_dense(&sparse64));
            let model_to_dense = time(reps, || sparse.to_dense());
            let (arrow_to_sparse, arrow_to_dense) =
                arrow_times(&helper, kind, shape_name, nnz, reps);

            let line = |conversion: String,
                        ours: f64,
                        ours64: f64,
                        arrow: f64,
                        goal: f64,
                        extra: &str| {
                println!(
                    "{{\"conversion\":\"{conversion}\",\"shape\":\"{shape_name}\",\"nnz\":{nnz},\
                     \"index_type\":\"{}\",\"ours_s\":{ours:.6},\"ours_int64_s\":{ours64:.6},\
                     \"arrow_s\":{arrow:.6},\"ratio\":{:.2},\"ratio_int64\":{:.2},\"goal\":{goal}{extra}}}",
                    index_type_name(&sparse),
                    arrow / ours,
                    arrow / ours64,
                );
            };
            let goal = match kind {
                "csr" | "csc" => 10.0,
                _ => 3.0,
            };
            line(
                format!("dense->{kind}"),
                ours_to_sparse,
                ours64_to_sparse,
                arrow_to_sparse,
                goal,
                "",
            );
            line(
                format!("{kind}->dense"),
                ours_to_dense,
                ours64_to_dense,
                arrow_to_dense,
                1.5,
                &format!(",\"model_to_dense_s\":{model_to_dense:.6}"),
            );
        }
    }
}

fn index_type_name(s: &SparseTensor) -> &'static str {
    use arrow_tensor_ipc::SparseIndex;
    match s.index() {
        SparseIndex::Coo(c) => c.indices().index_type().name(),
        SparseIndex::Csx(c) => c.indices().index_type().name(),
        SparseIndex::Csf(c) => c.indices()[0].index_type().name(),
    }
}
