//! Criterion benchmark of the layout conversions at the sizes of issue 5: a 4096 x 4096
//! float64 matrix (COO, CSR, CSC, CSF) and a 200 x 200 x 200 float64 tensor (COO, CSF),
//! each with 1,000,000 non-zeros at pseudo-random positions (the input of
//! `examples/compare_convert.rs` and `arrow_interop time-convert`).
//!
//! `cargo bench --bench convert` (about three minutes: 10 samples each). Every conversion
//! runs on one thread (`threads: 1`, as Arrow's converters) and with the default options
//! (every core); sparse to dense also, for reference, with the model's
//! `SparseTensor::to_dense`.
//!
//! The global allocator is mimalloc, the allocator of Arrow C++'s default memory pool in
//! the pyarrow wheels, so that these numbers compare with Arrow's.

use arrow_tensor_ipc::{convert, ConvertOptions};
use arrow_tensor_ipc::{SparseFormat, Tensor};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::time::Duration;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// splitmix64, seeded as in `arrow_interop time-convert`.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A float64 row-major tensor with `nnz` non-zeros at pseudo-random positions.
fn make_input(shape: &[usize], nnz: usize) -> Tensor {
    let total: usize = shape.iter().product();
    let mut data = vec![0.0f64; total];
    let mut state = 0x243F_6A88_85A3_08D3u64;
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

/// A shape, its name and the layouts benchmarked at it.
type Case<'a> = (&'a [usize], &'a str, &'a [(&'a str, SparseFormat)]);

fn conversions(c: &mut Criterion) {
    let cases: [Case; 2] = [
        (
            &[4096, 4096],
            "4096x4096",
            &[
                ("coo", SparseFormat::Coo),
                ("csr", SparseFormat::Csr),
                ("csc", SparseFormat::Csc),
                ("csf", SparseFormat::Csf),
            ],
        ),
        (
            &[200, 200, 200],
            "200x200x200",
            &[("coo", SparseFormat::Coo), ("csf", SparseFormat::Csf)],
        ),
    ];
    let one = ConvertOptions::default().with_threads(1);
    let all_cores = ConvertOptions::default();
    for (shape, name, kinds) in cases {
        let dense = make_input(shape, 1_000_000);
        let mut group = c.benchmark_group(format!("convert_{name}_nnz1M"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for &(kind, format) in kinds {
            group.bench_function(format!("dense_to_{kind}"), |b| {
                b.iter(|| convert::to_sparse(black_box(&dense), format, &one).unwrap())
            });
            group.bench_function(format!("dense_to_{kind}_all_cores"), |b| {
                b.iter(|| convert::to_sparse(black_box(&dense), format, &all_cores).unwrap())
            });
            let sparse = convert::to_sparse(&dense, format, &one).unwrap();
            group.bench_function(format!("{kind}_to_dense"), |b| {
                b.iter(|| convert::to_dense(black_box(&sparse), &one).unwrap())
            });
            group.bench_function(format!("{kind}_to_dense_all_cores"), |b| {
                b.iter(|| convert::to_dense(black_box(&sparse), &all_cores).unwrap())
            });
            group.bench_function(format!("{kind}_to_dense_model"), |b| {
                b.iter(|| black_box(&sparse).to_dense().unwrap())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, conversions);
criterion_main!(benches);
