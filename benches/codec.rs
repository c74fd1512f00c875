//! Criterion benchmarks of the codec (issue 6): dense encode to a `Vec` (fresh and reused),
//! to `Bytes` and to a file, dense decode from `Bytes`, from a memory map (feature `mmap`),
//! through `StreamDecoder` (one chunk, and 64 KiB chunks) and through `MessageReader`,
//! sparse encode/decode
//! (COO, CSR, CSC, CSF; 1M and 10M non-zeros; int32 and int64 indices), strict validation
//! alone, and (at 1M non-zeros) random `get` lookups and full iteration.
//!
//! `cargo bench --bench codec --features mmap` (about 4 minutes: 10 samples, short
//! measurement windows). Dense bodies go from 1 KiB to 256 MiB: a 1 GiB body would need
//! about 3 GiB of resident memory per case and ~1 s per iteration, and the constant-time
//! decode and ~memcpy encode already show at 256 MiB; `examples/compare.rs` covers 1 GiB.
//! Inputs come from `examples/common/inputs.rs`, shared with `examples/compare.rs`.

// Memory maps (`read_mmap`, `map_file`) of files this program writes and nothing modifies
// while they are mapped.
#![allow(unsafe_code)]

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    decode_message, encode, Message, MessageReader, MessageWriter, NativeIndex, ReadOptions,
    Scalar, StreamDecoder, WriteOptions,
};
use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use std::hint::black_box;
use std::time::Duration;

#[path = "../examples/common/inputs.rs"]
mod inputs;

use inputs::LAYOUTS;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DENSE_SIZES: [usize; 4] = [1 << 10, 1 << 20, 64 << 20, 256 << 20];

fn configure<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    // Flat sampling: 10 samples of equal iteration counts (linear sampling would run
    // 1 + 2 + ... + 10 = 55 iterations of a 0.3 s case).
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(800));
    g
}

fn dense(c: &mut Criterion) {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-codec");
    std::fs::create_dir_all(&dir).expect("bench dir");
    let opts = WriteOptions::default();
    let mut g = configure(c, "dense");
    for &size in &DENSE_SIZES {
        let msg: Message = inputs::dense(size).into();
        let bytes = bytes::Bytes::from(encode(&msg, &opts).expect("encode").to_vec());
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::new("encode_to_vec", size), &msg, |b, m| {
            b.iter(|| encode(m, &opts).expect("encode").to_vec())
        });
        g.bench_with_input(BenchmarkId::new("encode_to_bytes", size), &msg, |b, m| {
            b.iter(|| encode(m, &opts).expect("encode").to_bytes())
        });
        let mut reused = Vec::with_capacity(bytes.len());
        g.bench_with_input(
            BenchmarkId::new("encode_into_reused_vec", size),
            &msg,
            |b, m| {
                b.iter(|| {
                    reused.clear();
                    encode(m, &opts).expect("encode").write_into(&mut reused);
                    reused.len()
                })
            },
        );
        drop(reused);
        let path = dir.join(format!("dense_{size}.arrows"));
        g.bench_with_input(BenchmarkId::new("encode_to_file", size), &msg, |b, m| {
            b.iter(|| {
                let f = std::fs::File::create(&path).expect("create");
                let mut w = MessageWriter::new(f, &opts);
                w.write(m).expect("write");
                w.into_inner()
            })
        });
        g.bench_with_input(BenchmarkId::new("decode_bytes", size), &bytes, |b, m| {
            b.iter(|| decode_message(m, &ReadOptions::strict()).expect("decode"))
        });
        let chunk = Buffer::from(bytes.clone());
        g.bench_with_input(BenchmarkId::new("stream_decoder", size), &chunk, |b, c| {
            b.iter(|| {
                let mut d = StreamDecoder::new(&ReadOptions::strict());
                d.push(c.clone());
                d.next_message().expect("decode").expect("a message")
            })
        });
        g.bench_with_input(
            BenchmarkId::new("stream_decoder_64KiB_chunks", size),
            &bytes,
            |b, m| {
                b.iter(|| {
                    let mut d = StreamDecoder::new(&ReadOptions::strict());
                    let mut out = None;
                    for piece in m.chunks(64 << 10) {
                        let mut piece = piece;
                        if let Some(msg) = d.decode_slice(&mut piece).expect("decode") {
                            out = Some(msg);
                        }
                    }
                    out.expect("a message")
                })
            },
        );
        g.bench_with_input(BenchmarkId::new("message_reader", size), &bytes, |b, m| {
            b.iter(|| {
                MessageReader::new(&m[..], &ReadOptions::strict())
                    .next()
                    .expect("a message")
                    .expect("decode")
            })
        });
        #[cfg(feature = "mmap")]
        g.bench_with_input(BenchmarkId::new("decode_mmap", size), &path, |b, p| {
            b.iter(|| {
                unsafe { arrow_tensor_ipc::read_mmap(p, &ReadOptions::strict()) }
                    .expect("map")
                    .next()
                    .expect("message")
                    .expect("decode")
            })
        });
        let _ = std::fs::remove_file(&path);
    }
    g.finish();
}

/// Encode, decode and strict validation of every layout; with `walks`, also iteration
/// and lookups.
fn sparse_for<I: NativeIndex>(c: &mut Criterion, idx: &str, nnz: usize, walks: bool) {
    let opts = WriteOptions::default();
    for layout in LAYOUTS {
        let t = inputs::sparse::<I>(layout, nnz);
        let msg: Message = t.clone().into();
        let bytes = bytes::Bytes::from(encode(&msg, &opts).expect("encode").to_vec());
        let mut g = configure(c, &format!("{}_{idx}_nnz{nnz}", layout.name()));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function("encode_to_vec", |b| {
            b.iter(|| encode(&msg, &opts).expect("encode").to_vec())
        });
        g.bench_function("decode_permissive", |b| {
            b.iter(|| decode_message(&bytes, &ReadOptions::permissive()).expect("decode"))
        });
        g.bench_function("decode_strict", |b| {
            b.iter(|| decode_message(&bytes, &ReadOptions::strict()).expect("decode"))
        });
        g.throughput(Throughput::Bytes(inputs::index_bytes(&t) as u64));
        g.bench_function("validate_strict", |b| {
            b.iter(|| inputs::validate_strict(&t))
        });
        if !walks {
            g.finish();
            continue;
        }
        g.bench_function("for_each_stored", |b| {
            b.iter(|| {
                let mut acc = 0usize;
                t.for_each_stored(|c, p| acc = acc.wrapping_add(c[0] ^ p))
                    .expect("walk");
                acc
            })
        });
        let keys = inputs::lookups(&t, 1000);
        g.throughput(Throughput::Elements(keys.len() as u64));
        g.bench_function("get_x1000", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|k| t.get(black_box(k)).expect("get") != Scalar::Float64(0.0))
                    .count()
            })
        });
        g.finish();
    }
}

fn sparse(c: &mut Criterion) {
    sparse_for::<i32>(c, "int32", 1_000_000, true);
    sparse_for::<i64>(c, "int64", 1_000_000, true);
    sparse_for::<i32>(c, "int32", 10_000_000, false);
    sparse_for::<i64>(c, "int64", 10_000_000, false);
}

criterion_group! {
    name = benches;
    // Plots take about as long as the measurements here.
    config = Criterion::default().without_plots();
    targets = dense, sparse
}
criterion_main!(benches);
