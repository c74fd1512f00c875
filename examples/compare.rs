//! Times this crate's codec side by side with Arrow C++'s IPC reader and writer.
//!
//! ```text
//! cargo run --release --example compare [--features mmap,record-batch] [-- --reps N] [--helper PATH]
//!     [--nnz N[,N...]] [--max-dense BYTES] [--only SUBSTRING]
//! ```
//!
//! For each operation it builds one input, times ours (median of the reps after one
//! warm-up), writes the very message we encoded to a file under `target/compare/` and lets
//! the interop helper (`arrow_interop time-io FILE REPS`, built by `tests/interop/build.sh`
//! against the pyarrow of `.venv` when missing) time Arrow C++'s `ReadTensor` /
//! `ReadSparseTensor` (from an in-memory buffer and from a memory-mapped file) and
//! `WriteTensor` / `WriteSparseTensor` (to a pre-sized `BufferOutputStream`) on the same
//! bytes, and times a single-thread `memcpy` of the same byte count between two
//! pre-faulted buffers. One JSON object per line:
//!
//! `{"op":..,"bytes":..,"ours_s":..,"arrow_s":..,"ratio":..,"memcpy_s":..}`
//!
//! `ratio` is `arrow_s / ours_s` (higher is better for us); `arrow_s` and `ratio` are null
//! where Arrow has no equivalent (strict validation, lookups, iteration, writing to a file).
//! `bytes` is the message length for encode/decode, the index bytes for validation and
//! iteration; `memcpy_s` is null for lookups. Extra fields: `per` (what one timed run does)
//! and `gbps` (bytes / ours_s / 1e9).
//!
//! Without `--features mmap` the rows of memory-mapped decoding are skipped (the crate's
//! `read_mmap` needs the feature). The last line reports the peak RSS of a child process
//! that decodes the largest dense message from a memory map (feature `mmap` only).
//!
//! With `--features record-batch` it also times the bridge to record batches
//! (`examples/common/record_batch_rows.rs`): a tensor to a fixed-shape column, a tensor
//! message to an IPC stream of fixed-shape batches and back (there `arrow_s` is pyarrow
//! doing the same job, timed by `examples/common/pyarrow_record_batch.py` in `.venv`), and
//! sparse tensors to COO tables and back.
//!
//! With `--features parquet` it also times Parquet (`examples/common/parquet_rows.rs`):
//! rows `parquet_write_coo_10m`, `parquet_read_coo_10m`, `parquet_write_fixed_256mib`,
//! `parquet_read_fixed_256mib` (a 10M-nnz 3-D COO table and a 256 MiB fixed-shape float64
//! column written to and read from a Parquet file in memory; `arrow_s` is
//! `pyarrow.parquet` on the same table and the same file, with the same codec, timed by
//! `examples/common/pyarrow_parquet.py`; fields `ours_bytes` and `peer_bytes` give the
//! sizes of our file and of pyarrow's), rows `parquet_read_peer_file_*` (pyarrow's file
//! read by us, against pyarrow reading it), then `parquet_codec_*` lines (ours only: write
//! and read seconds and file size per codec). `ARROW_TENSOR_KEEP_PARQUET=DIR` keeps both
//! sides' files in `DIR`.
//!
//! Both sides allocate through mimalloc (the allocator of Arrow C++'s default memory pool
//! in the pyarrow wheels).

// Memory maps (`read_mmap`, `map_file`) of files this program writes and nothing modifies
// while they are mapped.
#![allow(unsafe_code)]

use arrow_tensor_ipc::{
    decode_message, encode, Message, MessageWriter, NativeIndex, ReadOptions, SparseTensor,
    WriteOptions,
};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "common/inputs.rs"]
mod inputs;

use inputs::{Layout, LAYOUTS};

#[cfg(feature = "record-batch")]
#[path = "common/record_batch_rows.rs"]
mod record_batch_rows;

#[cfg(feature = "parquet")]
#[path = "common/parquet_rows.rs"]
mod parquet_rows;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Median seconds of `reps` runs of `f` after one warm-up run (results dropped untimed).
fn time<R>(reps: usize, mut f: impl FnMut() -> R) -> f64 {
    drop(black_box(f()));
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        let r = black_box(f());
        times.push(t.elapsed().as_secs_f64());
        drop(r);
    }
    median(times)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn helper(explicit: Option<PathBuf>) -> PathBuf {
    if let Some(p) = explicit {
        return p;
    }
    let out = root().join("target/interop/arrow_interop");
    let status = Command::new("bash")
        .arg(root().join("tests/interop/build.sh"))
        .arg(root().join(".venv/bin/python"))
        .arg(&out)
        .status()
        .expect("run tests/interop/build.sh");
    assert!(status.success(), "tests/interop/build.sh failed");
    out
}

/// Arrow's medians from `arrow_interop time-io`: (read, read from a memory map, write).
struct ArrowIo {
    read_s: f64,
    mmap_s: f64,
    write_s: f64,
    /// Dense only: writing a copy whose data has a buffer of its own.
    write_fresh_s: Option<f64>,
    /// The length of the message Arrow's write produced.
    written: usize,
}

fn arrow_io(helper: &Path, file: &Path, reps: usize) -> ArrowIo {
    let out = Command::new(helper)
        .arg("time-io")
        .arg(file)
        .arg(reps.to_string())
        .output()
        .expect("run the interop helper");
    assert!(
        out.status.success(),
        "helper failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("helper JSON");
    let f = |k: &str| v[k].as_f64().expect("helper field");
    ArrowIo {
        read_s: f("read_s"),
        mmap_s: f("read_mmap_s"),
        write_s: f("write_s"),
        write_fresh_s: v["write_fresh_s"].as_f64().filter(|&x| x >= 0.0),
        written: v["written_bytes"].as_u64().expect("helper field") as usize,
    }
}

/// Single-thread memcpy of `bytes` bytes between two pre-faulted buffers (median).
fn memcpy_s(bytes: usize, reps: usize) -> f64 {
    let src = vec![1u8; bytes];
    let mut dst = vec![2u8; bytes];
    time(reps, || {
        dst.copy_from_slice(black_box(&src));
        black_box(dst.as_ptr());
    })
}

struct Row<'a> {
    op: String,
    bytes: usize,
    ours_s: f64,
    arrow_s: Option<f64>,
    memcpy_s: Option<f64>,
    per: &'a str,
}

fn num(v: Option<f64>) -> String {
    v.map_or("null".into(), |x| format!("{x:.6e}"))
}

fn emit(r: Row) {
    let ratio = r.arrow_s.map(|a| a / r.ours_s);
    println!(
        "{{\"op\":\"{}\",\"bytes\":{},\"ours_s\":{:.6e},\"arrow_s\":{},\"ratio\":{},\"memcpy_s\":{},\"per\":\"{}\",\"gbps\":{:.3}}}",
        r.op,
        r.bytes,
        r.ours_s,
        num(r.arrow_s),
        ratio.map_or("null".into(), |x| format!("{x:.3}")),
        num(r.memcpy_s),
        r.per,
        r.bytes as f64 / r.ours_s / 1e9
    );
}

struct Cfg {
    reps: usize,
    helper: PathBuf,
    nnz: Vec<usize>,
    max_dense: usize,
    only: Option<String>,
    dir: PathBuf,
}

impl Cfg {
    fn wants(&self, op: &str) -> bool {
        self.only.as_deref().is_none_or(|o| op.contains(o))
    }

    /// Fewer reps for big inputs so that the run stays within minutes.
    fn reps_for(&self, bytes: usize) -> usize {
        if bytes >= 512 << 20 {
            self.reps.min(5)
        } else if bytes >= 32 << 20 {
            self.reps.min(9)
        } else {
            self.reps
        }
    }
}

fn size_name(b: usize) -> String {
    if b >= 1 << 30 {
        format!("{}GiB", b >> 30)
    } else if b >= 1 << 20 {
        format!("{}MiB", b >> 20)
    } else {
        format!("{}KiB", b >> 10)
    }
}

fn dense_rows(cfg: &Cfg, body: usize) {
    let name = format!("dense_{}", size_name(body));
    if !cfg.wants(&name) {
        return;
    }
    let t = inputs::dense(body);
    let msg: Message = t.into();
    let opts = WriteOptions::default();
    let encoded = encode(&msg, &opts).expect("encode");
    let len = encoded.len();
    let reps = cfg.reps_for(len);
    let file = cfg.dir.join(format!("{name}.arrows"));
    std::fs::write(&file, encoded.to_vec()).expect("write message file");
    drop(encoded);
    let arrow = arrow_io(&cfg.helper, &file, reps);
    let mc = memcpy_s(len, reps);

    // The input Arrow encodes: the tensor read back from the message bytes (its data a
    // slice of the loaded message).
    let loaded = bytes::Bytes::from(std::fs::read(&file).expect("read back"));
    let read_back: Message = decode_message(&loaded, &ReadOptions::strict())
        .expect("decode")
        .expect("a message")
        .message;
    let ours = time(reps, || encode(&read_back, &opts).expect("encode").to_vec());
    emit(Row {
        op: format!("{name}_encode_to_vec"),
        bytes: len,
        ours_s: ours,
        arrow_s: Some(arrow.write_s),
        memcpy_s: Some(mc),
        per: "encode + EncodedMessage::to_vec (fresh Vec) of the tensor decoded from the message; Arrow: WriteTensor of the same to a pre-sized BufferOutputStream",
    });
    let ours = time(reps, || {
        encode(&read_back, &opts).expect("encode").to_bytes()
    });
    emit(Row {
        op: format!("{name}_encode_to_bytes"),
        bytes: len,
        ours_s: ours,
        arrow_s: Some(arrow.write_s),
        memcpy_s: Some(mc),
        per: "encode + EncodedMessage::to_bytes of the tensor decoded from the message; Arrow: WriteTensor of the same to a pre-sized BufferOutputStream",
    });
    drop(read_back);
    drop(loaded);
    let ours = time(reps, || encode(&msg, &opts).expect("encode").to_vec());
    emit(Row {
        op: format!("{name}_encode_fresh_to_vec"),
        bytes: len,
        ours_s: ours,
        arrow_s: arrow.write_fresh_s,
        memcpy_s: Some(mc),
        per: "encode + to_vec of a tensor whose data is a buffer of its own (page-aligned: the body copy runs 64 bytes ahead of its source modulo 4 KiB); Arrow: WriteTensor of such a tensor",
    });
    let ours = time(reps, || encode(&msg, &opts).expect("encode").to_bytes());
    emit(Row {
        op: format!("{name}_encode_fresh_to_bytes"),
        bytes: len,
        ours_s: ours,
        arrow_s: arrow.write_fresh_s,
        memcpy_s: Some(mc),
        per: "encode + to_bytes of the same tensor; Arrow: WriteTensor of such a tensor",
    });
    let ours = time(reps, || {
        let mut w = MessageWriter::new(Vec::new(), &opts);
        w.write(&msg).expect("write");
        w.into_inner()
    });
    emit(Row {
        op: format!("{name}_encode_writer_to_vec"),
        bytes: len,
        ours_s: ours,
        arrow_s: arrow.write_fresh_s,
        memcpy_s: Some(mc),
        per: "MessageWriter over a fresh Vec (vectored write: one reservation, one copy per piece) of the tensor with a buffer of its own; Arrow: WriteTensor of such a tensor",
    });
    let mut reused = Vec::with_capacity(len);
    let ours = time(reps, || {
        reused.clear();
        encode(&msg, &opts).expect("encode").write_into(&mut reused);
        reused.len()
    });
    drop(reused);
    emit(Row {
        op: format!("{name}_encode_into_reused_vec"),
        bytes: len,
        ours_s: ours,
        arrow_s: Some(arrow.write_s),
        memcpy_s: Some(mc),
        per: "encode + write_into a cleared Vec of sufficient capacity (the tensor with a buffer of its own); Arrow: WriteTensor of the tensor decoded from the message to a pre-sized BufferOutputStream",
    });
    let out_path = cfg.dir.join(format!("{name}.out.arrows"));
    let ours = time(reps, || {
        let f = std::fs::File::create(&out_path).expect("create");
        let mut w = MessageWriter::new(f, &opts);
        w.write(&msg).expect("write");
        w.into_inner()
    });
    let _ = std::fs::remove_file(&out_path);
    emit(Row {
        op: format!("{name}_encode_to_file"),
        bytes: len,
        ours_s: ours,
        arrow_s: None,
        memcpy_s: Some(mc),
        per: "File::create + MessageWriter::write (vectored, page cache)",
    });
    drop(msg);

    let bytes = bytes::Bytes::from(std::fs::read(&file).expect("read back"));
    let ro = ReadOptions::strict();
    let ours = time(cfg.reps_for(0), || {
        decode_message(&bytes, &ro)
            .expect("decode")
            .expect("a message")
    });
    emit(Row {
        op: format!("{name}_decode_bytes"),
        bytes: len,
        ours_s: ours,
        arrow_s: Some(arrow.read_s),
        memcpy_s: Some(mc),
        per: "decode_message from Bytes (strict; zero-copy); Arrow: ReadTensor from BufferReader",
    });
    drop(bytes);
    #[cfg(feature = "mmap")]
    {
        let ours = time(cfg.reps_for(0), || {
            unsafe { arrow_tensor_ipc::read_mmap(&file, &ReadOptions::strict()) }
                .expect("map")
                .next()
                .expect("a message")
                .expect("decode")
        });
        emit(Row {
            op: format!("{name}_decode_mmap"),
            bytes: len,
            ours_s: ours,
            arrow_s: Some(arrow.mmap_s),
            memcpy_s: Some(mc),
            per: "read_mmap + first message (open, map, decode, unmap); Arrow: MemoryMappedFile::Open + ReadTensor",
        });
    }
    #[cfg(not(feature = "mmap"))]
    let _ = arrow.mmap_s;
    let _ = std::fs::remove_file(&file);
}

fn sparse_rows<I: NativeIndex>(cfg: &Cfg, layout: Layout, nnz: usize, idx: &str) {
    let name = format!("{}_{}_nnz{}", layout.name(), idx, nnz);
    if !cfg.wants(&name) {
        return;
    }
    let t: SparseTensor = inputs::sparse::<I>(layout, nnz);
    let ib = inputs::index_bytes(&t);
    let msg: Message = t.clone().into();
    let opts = WriteOptions::default();
    let encoded = encode(&msg, &opts).expect("encode");
    let len = encoded.len();
    let reps = cfg.reps_for(len);
    let file = cfg.dir.join(format!("{name}.arrows"));
    std::fs::write(&file, encoded.to_vec()).expect("write message file");
    drop(encoded);
    let arrow = arrow_io(&cfg.helper, &file, reps);
    // Arrow's reader slices CSF index buffers to their element count in bytes, so its
    // re-write of the decoded tensor copies (and holds) fewer bytes than the message.
    let arrow_note = if arrow.written == len {
        String::new()
    } else {
        format!(
            " (Arrow wrote {} bytes, not {len}: a truncated message)",
            arrow.written
        )
    };
    let mc_msg = memcpy_s(len, reps);
    let mc_idx = memcpy_s(ib, reps);

    // As Arrow does: encode the tensor decoded from the message bytes.
    let bytes = bytes::Bytes::from(std::fs::read(&file).expect("read back"));
    let read_back: Message = decode_message(&bytes, &ReadOptions::strict())
        .expect("decode")
        .expect("a message")
        .message;
    let ours = time(reps, || encode(&read_back, &opts).expect("encode").to_vec());
    emit(Row {
        op: format!("{name}_encode_to_vec"),
        bytes: len,
        ours_s: ours,
        arrow_s: Some(arrow.write_s),
        memcpy_s: Some(mc_msg),
        per: &format!("encode + to_vec of the tensor decoded from the message; Arrow: WriteSparseTensor of the same to a pre-sized BufferOutputStream{arrow_note}"),
    });
    let ours = time(reps, || {
        encode(&read_back, &opts).expect("encode").to_bytes()
    });
    emit(Row {
        op: format!("{name}_encode_to_bytes"),
        bytes: len,
        ours_s: ours,
        arrow_s: Some(arrow.write_s),
        memcpy_s: Some(mc_msg),
        per: &format!("encode + to_bytes of the tensor decoded from the message; Arrow: WriteSparseTensor of the same to a pre-sized BufferOutputStream{arrow_note}"),
    });
    let mut reused = Vec::with_capacity(len);
    let ours = time(reps, || {
        reused.clear();
        encode(&read_back, &opts)
            .expect("encode")
            .write_into(&mut reused);
        reused.len()
    });
    drop(reused);
    drop(read_back);
    emit(Row {
        op: format!("{name}_encode_into_reused_vec"),
        bytes: len,
        ours_s: ours,
        arrow_s: Some(arrow.write_s),
        memcpy_s: Some(mc_msg),
        per: &format!("encode + write_into a cleared Vec of sufficient capacity of the tensor decoded from the message; Arrow: WriteSparseTensor of the same to a pre-sized BufferOutputStream{arrow_note}"),
    });
    let ours = time(reps, || encode(&msg, &opts).expect("encode").to_vec());
    emit(Row {
        op: format!("{name}_encode_fresh_to_vec"),
        bytes: len,
        ours_s: ours,
        arrow_s: None,
        memcpy_s: Some(mc_msg),
        per: "encode + to_vec of the tensor built in memory (buffers of its own)",
    });
    for (mode, ro) in [
        ("permissive", ReadOptions::permissive()),
        ("strict", ReadOptions::strict()),
    ] {
        let ours = time(reps, || {
            decode_message(&bytes, &ro)
                .expect("decode")
                .expect("a message")
        });
        emit(Row {
            op: format!("{name}_decode_{mode}"),
            bytes: len,
            ours_s: ours,
            arrow_s: Some(arrow.read_s),
            memcpy_s: Some(mc_msg),
            per: "decode_message from Bytes; Arrow: ReadSparseTensor from BufferReader",
        });
    }
    #[cfg(feature = "mmap")]
    {
        let ours = time(reps, || {
            unsafe { arrow_tensor_ipc::read_mmap(&file, &ReadOptions::permissive()) }
                .expect("map")
                .next()
                .expect("a message")
                .expect("decode")
        });
        emit(Row {
            op: format!("{name}_decode_mmap_permissive"),
            bytes: len,
            ours_s: ours,
            arrow_s: Some(arrow.mmap_s),
            memcpy_s: Some(mc_msg),
            per: "read_mmap + first message; Arrow: MemoryMappedFile::Open + ReadSparseTensor",
        });
    }
    #[cfg(not(feature = "mmap"))]
    let _ = arrow.mmap_s;
    let ours = time(reps, || inputs::validate_strict(&t));
    emit(Row {
        op: format!("{name}_validate_strict"),
        bytes: ib,
        ours_s: ours,
        arrow_s: None,
        memcpy_s: Some(mc_idx),
        per: "strict structure + content checks of the index (bytes = index bytes)",
    });
    let keys = inputs::lookups(&t, 1000);
    let ours = time(reps, || {
        let mut n = 0usize;
        for k in &keys {
            n += usize::from(t.get(k).expect("get") != arrow_tensor_ipc::Scalar::Float64(0.0));
        }
        n
    });
    emit(Row {
        op: format!("{name}_get_x1000"),
        bytes: ib,
        ours_s: ours,
        arrow_s: None,
        memcpy_s: None,
        per: "1000 random get() (half stored, half random cells)",
    });
    let ours = time(reps, || {
        let mut acc = 0usize;
        t.for_each_stored(|c, p| acc = acc.wrapping_add(c[0] ^ p))
            .expect("walk");
        acc
    });
    emit(Row {
        op: format!("{name}_for_each_stored"),
        bytes: ib,
        ours_s: ours,
        arrow_s: None,
        memcpy_s: Some(mc_idx),
        per: "full iteration (bytes = index bytes)",
    });
    let ours = time(reps, || {
        let mut acc = 0usize;
        let mut sum = 0.0f64;
        for nz in t.iter().expect("iter") {
            acc = acc.wrapping_add(nz.coords[0] ^ nz.position);
            if let arrow_tensor_ipc::Scalar::Float64(v) = nz.value {
                sum += v;
            }
        }
        (acc, sum)
    });
    emit(Row {
        op: format!("{name}_iter"),
        bytes: ib,
        ours_s: ours,
        arrow_s: None,
        memcpy_s: Some(mc_idx),
        per: "SparseTensor::iter: every Entry (coordinates, value, position) summed (bytes = index bytes)",
    });
    let _ = std::fs::remove_file(&file);
}

/// Peak RSS of decoding `file` from a memory map in a fresh process (this example,
/// re-run with `--rss-child FILE`).
#[cfg(feature = "mmap")]
fn rss_child(file: &Path) {
    let t0 = Instant::now();
    let m = unsafe { arrow_tensor_ipc::read_mmap(file, &ReadOptions::strict()) }
        .expect("map")
        .next()
        .expect("a message")
        .expect("decode");
    let s = t0.elapsed().as_secs_f64();
    let t = m.message.as_tensor().expect("dense");
    black_box(t.len());
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse::<u64>().ok())
        .unwrap_or(0);
    println!("{{\"decode_s\":{s:.6e},\"peak_rss_kib\":{hwm}}}");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut reps = 15;
    let mut explicit = None;
    let mut nnz = vec![1_000_000];
    let mut max_dense = 1usize << 30;
    let mut only = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).expect("--reps N"),
            "--helper" => explicit = args.next().map(PathBuf::from),
            "--nnz" => {
                nnz = args
                    .next()
                    .expect("--nnz N[,N]")
                    .split(',')
                    .map(|v| v.parse().expect("nnz"))
                    .collect()
            }
            "--max-dense" => {
                max_dense = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--max-dense BYTES")
            }
            "--only" => only = args.next(),
            #[cfg(feature = "mmap")]
            "--rss-child" => {
                rss_child(Path::new(&args.next().expect("--rss-child FILE")));
                return;
            }
            "--bench" => {} // passed by `cargo bench --all-targets`
            other => panic!("unknown argument {other}"),
        }
    }
    let dir = root().join("target/compare");
    std::fs::create_dir_all(&dir).expect("create target/compare");
    let cfg = Cfg {
        reps,
        helper: helper(explicit),
        nnz,
        max_dense,
        only,
        dir,
    };
    #[cfg(not(feature = "mmap"))]
    eprintln!("compare: built without feature `mmap`: memory-map rows skipped");
    for body in [1usize << 10, 1 << 20, 64 << 20, 256 << 20, 1 << 30] {
        if body <= cfg.max_dense {
            dense_rows(&cfg, body);
        }
    }
    for &n in &cfg.nnz.clone() {
        for layout in LAYOUTS {
            sparse_rows::<i32>(&cfg, layout, n, "int32");
            sparse_rows::<i64>(&cfg, layout, n, "int64");
        }
    }
    #[cfg(feature = "record-batch")]
    {
        for body in [1usize << 10, 1 << 20, 64 << 20, 256 << 20, 1 << 30] {
            if body <= cfg.max_dense {
                record_batch_rows::dense_rows(&cfg, body);
            }
        }
        for &n in &cfg.nnz.clone() {
            for layout in LAYOUTS {
                record_batch_rows::sparse_rows(&cfg, layout, n);
            }
        }
    }
    #[cfg(not(feature = "record-batch"))]
    eprintln!("compare: built without feature `record-batch`: record-batch rows skipped");
    #[cfg(feature = "parquet")]
    parquet_rows::rows(&cfg);
    #[cfg(not(feature = "parquet"))]
    eprintln!("compare: built without feature `parquet`: Parquet rows skipped");
    #[cfg(feature = "mmap")]
    if cfg.only.is_none() {
        // Peak RSS of decoding the largest dense message from a memory map.
        let body = [1usize << 30, 256 << 20, 1 << 20]
            .into_iter()
            .find(|&b| b <= cfg.max_dense)
            .unwrap_or(1 << 10);
        let file = cfg.dir.join("rss.arrows");
        {
            let msg: Message = inputs::dense(body).into();
            let f = std::fs::File::create(&file).expect("create");
            let mut w = MessageWriter::new(std::io::BufWriter::new(f), &WriteOptions::default());
            w.write(&msg).expect("write");
            w.finish().expect("finish");
        }
        let out = Command::new(std::env::current_exe().expect("exe"))
            .arg("--rss-child")
            .arg(&file)
            .output()
            .expect("run the RSS child");
        let line = String::from_utf8_lossy(&out.stdout);
        println!(
            "{{\"op\":\"dense_{}_decode_mmap_peak_rss\",\"bytes\":{},\"child\":{}}}",
            size_name(body),
            body,
            line.trim()
        );
        let _ = std::fs::remove_file(&file);
    }
}
