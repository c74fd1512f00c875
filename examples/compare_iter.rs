//! Times the walks over a sparse tensor's entries from a crate that depends on this one
//! (an example is compiled as a crate of its own, so nothing inlines that a user's crate
//! could not inline).
//!
//! ```text
//! cargo run --release --example compare_iter [-- --reps N]
//! ```
//!
//! A 1,000,000 x 1000 CSR matrix (int64 indices, float64 values) with 10 stored values per
//! row (10,000,000 in all) is walked three ways, each summing the column coordinate and
//! the value of every entry: [`SparseTensor::iter`] (a `Entry` per entry, its value a
//! `Scalar`), [`SparseTensor::iter_as`] with `next_entry` (coordinates lent as a slice,
//! the value an `f64`), and [`SparseTensor::for_each_stored`] (coordinates and positions,
//! the value read from the values slice). It prints one JSON line per walk:
//! `ns_per_entry` is the median over `--reps` runs (default 5, after a warm-up).

use arrow_tensor_ipc::{Scalar, SparseTensor};
use std::hint::black_box;
use std::time::Instant;

/// Rows, columns and stored values per row of the matrix.
const ROWS: usize = 1_000_000;
const COLS: usize = 1000;
const PER_ROW: usize = 10;

fn matrix() -> SparseTensor {
    let nnz = ROWS * PER_ROW;
    let indptr: Vec<i64> = (0..=ROWS).map(|r| (r * PER_ROW) as i64).collect();
    let indices: Vec<i64> = (0..nnz)
        .map(|k| ((k % PER_ROW) * (COLS / PER_ROW) + (k / PER_ROW) % 7) as i64)
        .collect();
    let values: Vec<f64> = (0..nnz).map(|k| (k % 1000) as f64 * 0.5).collect();
    SparseTensor::csr([ROWS, COLS], indptr, indices, values)
        .and_then(SparseTensor::validate)
        .expect("a valid CSR")
}

/// A walk to time: its name, what it does, and the walk (returning a sum to keep).
type Walk<'a> = (&'static str, &'static str, Box<dyn FnMut() -> f64 + 'a>);

/// The median of `reps` timed runs of `f` (after one untimed run), in ns per entry.
fn time(reps: usize, nnz: usize, mut f: impl FnMut() -> f64) -> f64 {
    black_box(f());
    let mut ns: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed().as_secs_f64() * 1e9 / nnz as f64
        })
        .collect();
    ns.sort_by(f64::total_cmp);
    ns[ns.len() / 2]
}

fn main() {
    let mut reps = 5usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).expect("--reps N"),
            _ => panic!("usage: compare_iter [--reps N]"),
        }
    }
    let t = matrix();
    let nnz = t.nnz();
    let values = t.values::<f64>().expect("float64 values");
    let walks: [Walk<'_>; 3] = [
        (
            "iter",
            "SparseTensor::iter: Entry per entry, nz.coords[1] + nz.value (Scalar::Float64)",
            Box::new(|| {
                let mut sum = 0.0;
                for nz in t.iter().expect("checked") {
                    if let Scalar::Float64(v) = nz.value {
                        sum += nz.coords[1] as f64 + v;
                    }
                }
                sum
            }),
        ),
        (
            "iter_as",
            "SparseTensor::iter_as::<f64>: while let Some((coords, v)) = next_entry(), coords[1] + v",
            Box::new(|| {
                let mut sum = 0.0;
                let mut entries = t.iter_as::<f64>().expect("float64 values");
                while let Some((coords, v)) = entries.next_entry() {
                    sum += coords[1] as f64 + v;
                }
                sum
            }),
        ),
        (
            "for_each_stored",
            "SparseTensor::for_each_stored: coords[1] + values[position]",
            Box::new(|| {
                let mut sum = 0.0;
                t.for_each_stored(|coords, p| sum += coords[1] as f64 + values[p])
                    .expect("checked");
                sum
            }),
        ),
    ];
    for (name, what, mut f) in walks {
        let ns = time(reps, nnz, &mut f);
        println!(
            "{{\"kind\": \"sparse_iter_csr_10m_{name}\", \"nnz\": {nnz}, \"ns_per_entry\": {ns:.2}, \"what\": \"{what}\"}}"
        );
    }
}
