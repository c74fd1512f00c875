//! Criterion benchmark of the ndarray and sprs bridges at data sizes from 1 KiB to 64 MiB,
//! to show which conversions take a time independent of the size of the data:
//!
//! - `ndarray/as_array_view`: a float64 tensor viewed as an `ArrayViewD` (no copy, O(ndim));
//! - `ndarray/from_ndarray`: an owned C-order `ArrayD` taken as a tensor (no copy);
//! - `ndarray/to_ndarray_copy`: for contrast, the owned copy;
//! - `sprs/as_csmat_view`: a CSR float64 / int32 tensor viewed as a `CsMatViewI` (no copy,
//!   but sprs's constructor checks the whole index: O(nnz));
//! - `sprs/from_csmat`: an owned `CsMatI` taken as a tensor (no copy, O(1));
//! - `sprs/to_csmat_copy`: for contrast, the owned copy.
//!
//! The size is that of the values (float64): `size / 8` elements or stored values (CSR
//! matrices with 16 stored values per row, plus their int32 index arrays).
//!
//! `cargo bench --bench integrations --features ndarray,sprs -- --warm-up-time 1 --measurement-time 2`

use arrow_tensor_ipc::{SparseTensor, Tensor};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;

/// The data sizes, in bytes of float64 values.
const SIZES: [(usize, &str); 5] = [
    (1 << 10, "1KiB"),
    (64 << 10, "64KiB"),
    (1 << 20, "1MiB"),
    (16 << 20, "16MiB"),
    (64 << 20, "64MiB"),
];

/// Values per CSR row.
const PER_ROW: usize = 16;

/// A `(n / 64) x 64` C-order float64 array of `n` elements.
fn array(n: usize) -> ndarray::ArrayD<f64> {
    let values: Vec<f64> = (0..n).map(|i| i as f64).collect();
    ndarray::Array::from_shape_vec(ndarray::IxDyn(&[n / 64, 64]), values).expect("array")
}

/// A CSR float64 matrix with int32 indices, `nnz` stored values, 16 per row, spread over
/// 65536 columns.
fn csr(nnz: usize) -> SparseTensor {
    let rows = nnz / PER_ROW;
    let cols = 1usize << 16;
    let indptr: Vec<i32> = (0..=rows).map(|r| (r * PER_ROW) as i32).collect();
    let indices: Vec<i32> = (0..nnz)
        .map(|k| ((k % PER_ROW) * (cols / PER_ROW) + (k / PER_ROW) % 97) as i32)
        .collect();
    let values: Vec<f64> = (0..nnz).map(|k| k as f64 + 1.0).collect();
    SparseTensor::csr([rows, cols], indptr, indices, values).expect("csr")
}

fn ndarray_bridge(c: &mut Criterion) {
    let mut group = c.benchmark_group("ndarray");
    group.sample_size(10);
    for (bytes, name) in SIZES {
        let a = array(bytes / 8);
        let t = Tensor::from_ndarray(a.clone()).expect("tensor");
        group.bench_with_input(BenchmarkId::new("as_array_view", name), &t, |b, t| {
            b.iter(|| black_box(t.as_array_view::<f64>().expect("view")).len())
        });
        group.bench_with_input(BenchmarkId::new("from_ndarray", name), &a, |b, a| {
            b.iter_batched(
                || a.clone(),
                |a| Tensor::from_ndarray(black_box(a)).expect("tensor"),
                BatchSize::PerIteration,
            )
        });
        group.bench_with_input(BenchmarkId::new("to_ndarray_copy", name), &t, |b, t| {
            b.iter(|| t.to_ndarray::<f64>().expect("copy"))
        });
    }
    group.finish();
}

fn sprs_bridge(c: &mut Criterion) {
    let mut group = c.benchmark_group("sprs");
    group.sample_size(10);
    for (bytes, name) in SIZES {
        let t = csr(bytes / 8);
        let owned: sprs::CsMatI<f64, i32, i32> = t.to_csmat().expect("csmat");
        group.bench_with_input(BenchmarkId::new("as_csmat_view", name), &t, |b, t| {
            b.iter(|| black_box(t.as_csmat_view::<f64, i32, i32>().expect("view")).nnz())
        });
        group.bench_with_input(BenchmarkId::new("from_csmat", name), &owned, |b, m| {
            b.iter_batched(
                || m.clone(),
                |m| SparseTensor::from_csmat(black_box(m)).expect("tensor"),
                BatchSize::PerIteration,
            )
        });
        group.bench_with_input(BenchmarkId::new("to_csmat_copy", name), &t, |b, t| {
            b.iter(|| t.to_csmat::<f64, i32, i32>().expect("copy"))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2));
    targets = ndarray_bridge, sprs_bridge
}
criterion_main!(benches);
