//! Times this crate's dense <-> sparse conversions side by side with Arrow C++'s.
//!
//! ```text
//! cargo run --release --example compare_convert [-- --reps N] [--rounds N] [--helper PATH] [--only KIND]
//! ```
//!
//! For a 4096 x 4096 float64 matrix (COO, CSR, CSC, CSF) and a 200 x 200 x 200 float64
//! tensor (COO, CSF), each with 1,000,000 non-zeros at the same pseudo-random positions
//! on both sides, it prints one JSON line per conversion. `--rounds` rounds (default 3)
//! alternate between the sides; each times `--reps` runs (default 5, after a warm-up) of
//! ours on one thread (`threads: 1`, as Arrow's converters run; narrowest index type), with
//! int64 indices (Arrow's default) and with the default options (every core: dense scans
//! split their input, and canonical COO, CSR, CSC and identity-order CSF expansions their
//! output), then Arrow's converters through the interop helper (`arrow_interop
//! time-convert`, built by `tests/interop/build.sh` against the pyarrow of `.venv` when
//! missing). `ours_s` and `arrow_s` are medians over all runs (Arrow: the median of its
//! per-round medians), `ratio = arrow_s / ours_s`; `ratio_min` compares the fastest runs,
//! the better estimate when other work loads the machine.
//!
//! Both sides allocate through mimalloc (the allocator of Arrow C++'s default memory pool
//! in the pyarrow wheels), so that freed pages are reused alike: with the system
//! allocator, page faults on fresh memory dominate every conversion on both sides.

use arrow_tensor_ipc::{convert, ConvertOptions};
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
    Tensor::from_vec(shape, data).expect("input tensor")
}

/// Timings in seconds.
#[derive(Default)]
struct Samples(Vec<f64>);

impl Samples {
    fn median(&self) -> f64 {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n == 0 {
            f64::NAN
        } else if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    }

    fn min(&self) -> f64 {
        self.0.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// Adds `reps` timed runs of `f` (after one warm-up run).
    fn time<R>(&mut self, reps: usize, mut f: impl FnMut() -> R) {
        drop(f());
        for _ in 0..reps {
            let t = Instant::now();
            let r = f();
            self.0.push(t.elapsed().as_secs_f64());
            drop(r);
        }
    }
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

/// Arrow's (median, min) to sparse and to dense, from `arrow_interop time-convert`.
fn arrow_times(
    helper: &Path,
    kind: &str,
    shape: &str,
    nnz: usize,
    reps: usize,
) -> ((f64, f64), (f64, f64)) {
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
    let get = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("helper field {k}"));
    (
        (get("to_sparse_s"), get("to_sparse_min_s")),
        (get("to_dense_s"), get("to_dense_min_s")),
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
    let mut reps = 5usize;
    let mut rounds = 3usize;
    let mut helper_path = None;
    let mut only: Option<String> = None;
    let usage = "usage: compare_convert [--reps N] [--rounds N] [--helper PATH] [--only KIND]";
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{usage}"));
        match a.as_str() {
            "--reps" => reps = value().parse().expect("--reps N"),
            "--rounds" => rounds = value().parse().expect("--rounds N"),
            "--helper" => helper_path = Some(PathBuf::from(value())),
            "--only" => only = Some(value()),
            _ => panic!("{usage}"),
        }
    }
    let helper = helper(helper_path);
    let nnz = 1_000_000;
    let cases: [(&[usize], &str, &[&str]); 2] = [
        (&[4096, 4096], "4096x4096", &["coo", "csr", "csc", "csf"]),
        (&[200, 200, 200], "200x200x200", &["coo", "csf"]),
    ];
    let defaults = ConvertOptions::default().with_threads(1);
    let int64 = defaults.clone().with_index_type(IndexType::Int64);
    let all_cores = ConvertOptions::default();
    for (shape, shape_name, kinds) in cases {
        let dense = make_input(shape, nnz);
        for &kind in kinds {
            if only.as_deref().is_some_and(|o| o != kind) {
                continue;
            }
            let format = format_of(kind);
            let sparse: SparseTensor = convert::to_sparse(&dense, format, &defaults).unwrap();
            let sparse64 = convert::to_sparse(&dense, format, &int64).unwrap();
            assert_eq!(sparse.nnz(), nnz);
            assert!(sparse.to_dense().unwrap().content_eq(&dense));
            assert!(sparse64.to_dense().unwrap().content_eq(&dense));

            // Rounds alternate between the two sides, so that a change of load on the
            // machine hits both alike.
            let (mut to_sparse, mut to_sparse64, mut to_sparse_par) = Default::default();
            let (mut to_dense, mut to_dense64, mut model) = Default::default();
            let mut to_dense_par = Samples::default();
            let (mut arrow_sparse, mut arrow_dense) = (Samples::default(), Samples::default());
            let mut arrow_min = (f64::INFINITY, f64::INFINITY);
            for _ in 0..rounds {
                Samples::time(&mut to_sparse, reps, || {
                    convert::to_sparse(&dense, format, &defaults)
                });
                Samples::time(&mut to_sparse64, reps, || {
                    convert::to_sparse(&dense, format, &int64)
                });
                Samples::time(&mut to_sparse_par, reps, || {
                    convert::to_sparse(&dense, format, &all_cores)
                });
                Samples::time(&mut to_dense, reps, || {
                    convert::to_dense(&sparse, &defaults)
                });
                Samples::time(&mut to_dense64, reps, || {
                    convert::to_dense(&sparse64, &int64)
                });
                Samples::time(&mut model, reps, || sparse.to_dense());
                Samples::time(&mut to_dense_par, reps, || {
                    convert::to_dense(&sparse, &all_cores)
                });
                let ((sm, smin), (dm, dmin)) = arrow_times(&helper, kind, shape_name, nnz, reps);
                arrow_sparse.0.push(sm);
                arrow_dense.0.push(dm);
                arrow_min = (arrow_min.0.min(smin), arrow_min.1.min(dmin));
            }
            let goal = match kind {
                "csr" | "csc" => 10.0,
                _ => 3.0,
            };
            let line = |conversion: String,
                        ours: &Samples,
                        ours64: &Samples,
                        arrow: &Samples,
                        arrow_min: f64,
                        goal: f64,
                        extra: String| {
                let (o, o64, a) = (ours.median(), ours64.median(), arrow.median());
                println!(
                    "{{\"conversion\":\"{conversion}\",\"shape\":\"{shape_name}\",\"nnz\":{nnz},\
                     \"index_type\":\"{}\",\"ours_s\":{o:.6},\"arrow_s\":{a:.6},\
                     \"ratio\":{:.2},\"goal\":{goal},\"ours_min_s\":{:.6},\"arrow_min_s\":{arrow_min:.6},\
                     \"ratio_min\":{:.2},\"ours_int64_s\":{o64:.6},\"ratio_int64\":{:.2}{extra}}}",
                    index_type_name(&sparse),
                    a / o,
                    ours.min(),
                    arrow_min / ours.min(),
                    a / o64,
                );
            };
            let par = to_sparse_par.median();
            line(
                format!("dense->{kind}"),
                &to_sparse,
                &to_sparse64,
                &arrow_sparse,
                arrow_min.0,
                goal,
                format!(
                    ",\"ours_all_cores_s\":{par:.6},\"ratio_all_cores\":{:.2}",
                    arrow_sparse.median() / par
                ),
            );
            line(
                format!("{kind}->dense"),
                &to_dense,
                &to_dense64,
                &arrow_dense,
                arrow_min.1,
                1.5,
                {
                    let par = to_dense_par.median();
                    format!(
                        ",\"model_to_dense_s\":{:.6},\"ours_all_cores_s\":{par:.6},\"ratio_all_cores\":{:.2}",
                        model.median(),
                        arrow_dense.median() / par
                    )
                },
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
