//! The Parquet rows of `compare` (feature `parquet`): a 10M-nnz COO table and a 256 MiB
//! fixed-shape tensor column written to a Parquet file in memory and read back, ours
//! (`ParquetWriter`, `ParquetBatches`) beside pyarrow (`pyarrow.parquet.write_table` /
//! `read_table`, timed by `examples/common/pyarrow_parquet.py` on the same table and the
//! same file bytes, with the same compression: our default). Then the codec sweep that
//! chose that default: every codec, ours only, with the file size.

use super::inputs::{self, Layout};
use super::{size_name, time, Cfg};
use arrow_array::RecordBatch;
use arrow_tensor_ipc::record_batch::{
    sparse_to_coo_table, tensor_to_fixed_shape, FixedShapeOptions, IpcFormat, IpcWriteOptions,
    IpcWriter, ParquetBatches, ParquetCompression, ParquetReadOptions, ParquetWriteOptions,
    ParquetWriter,
};
use std::path::Path;
use std::process::Command;

/// pyarrow's side: its median seconds writing `table_file`'s table, reading
/// `parquet_file` (ours) and reading its own file, which it leaves in `peer_file`.
struct Peer {
    write_s: f64,
    read_s: f64,
    read_own_s: f64,
    bytes: usize,
}

fn pyarrow_times(
    table_file: &Path,
    parquet_file: &Path,
    codec: &str,
    reps: usize,
    peer_file: &Path,
) -> Peer {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var_os("ARROW_TENSOR_PYTHON")
        .map(Into::into)
        .unwrap_or_else(|| root.join(".venv/bin/python"));
    let out = Command::new(python)
        .arg(root.join("examples/common/pyarrow_parquet.py"))
        .arg(table_file)
        .arg(parquet_file)
        .arg(codec)
        .arg(reps.to_string())
        .arg(peer_file)
        .output()
        .expect("run pyarrow_parquet.py (scripts/venv.sh creates .venv)");
    assert!(
        out.status.success(),
        "pyarrow_parquet.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k}"));
    Peer {
        write_s: f("write_s"),
        read_s: f("read_s"),
        read_own_s: f("read_own_s"),
        bytes: f("peer_bytes") as usize,
    }
}

/// A row of `compare`'s fields and the sizes of our file and pyarrow's.
fn emit_sized(op: &str, bytes: usize, ours_s: f64, peer_s: f64, sizes: (usize, usize), per: &str) {
    println!(
        "{{\"op\":\"{op}\",\"bytes\":{bytes},\"ours_s\":{ours_s:.6e},\"arrow_s\":{peer_s:.6e},\"ratio\":{:.3},\"memcpy_s\":null,\"ours_bytes\":{},\"peer_bytes\":{},\"per\":\"{per}\",\"gbps\":{:.3}}}",
        peer_s / ours_s,
        sizes.0,
        sizes.1,
        bytes as f64 / ours_s / 1e9
    );
}

fn write(batch: &RecordBatch, options: &ParquetWriteOptions, capacity: usize) -> Vec<u8> {
    let mut w =
        ParquetWriter::new(Vec::with_capacity(capacity), batch.schema(), options).expect("writer");
    w.write(batch).expect("write");
    w.finish().expect("finish")
}

fn read(bytes: &bytes::Bytes) -> usize {
    let batches = ParquetBatches::new(bytes.clone(), &ParquetReadOptions::default()).expect("open");
    batches.map(|b| b.expect("batch").num_rows()).sum()
}

/// The two inputs, by name: built only when one of their rows is wanted.
fn input(name: &str) -> RecordBatch {
    if name == "coo_10m" {
        let coo = inputs::sparse::<i64>(Layout::Coo, 10_000_000);
        return sparse_to_coo_table(&coo).expect("table");
    }
    tensor_to_fixed_shape(&inputs::dense(256 << 20), &FixedShapeOptions::default())
        .expect("column")
        .into_record_batch("tensor")
        .expect("batch")
}

const CODECS: [(&str, ParquetCompression); 5] = [
    ("none", ParquetCompression::None),
    ("snappy", ParquetCompression::Snappy),
    ("lz4", ParquetCompression::Lz4),
    ("zstd1", ParquetCompression::Zstd(1)),
    ("zstd3", ParquetCompression::Zstd(3)),
];

fn table_bytes(batch: &RecordBatch) -> usize {
    batch
        .columns()
        .iter()
        .map(|c| c.get_buffer_memory_size())
        .sum()
}

pub fn rows(cfg: &Cfg) {
    let default = ParquetWriteOptions::default();
    for name in ["coo_10m", "fixed_256mib"] {
        let wanted = cfg.wants(&format!("parquet_write_{name}"))
            || cfg.wants(&format!("parquet_read_{name}"))
            || CODECS
                .iter()
                .any(|(c, _)| cfg.wants(&format!("parquet_codec_{c}_{name}")));
        if !wanted {
            continue;
        }
        let batch = input(name);
        let bytes = table_bytes(&batch);
        let reps = cfg.reps_for(bytes).min(7);
        let (write_op, read_op) = (
            format!("parquet_write_{name}"),
            format!("parquet_read_{name}"),
        );
        if cfg.wants(&write_op) || cfg.wants(&read_op) {
            let file = bytes::Bytes::from(write(&batch, &default, bytes));
            let ours_write = time(reps, || write(&batch, &default, bytes));
            let ours_read = time(reps, || read(&file));
            // The table for pyarrow as an IPC file, the Parquet bytes as written by us.
            let table_file = cfg.dir.join(format!("parquet_{name}.arrow"));
            let parquet_file = cfg.dir.join(format!("parquet_{name}.parquet"));
            {
                let f = std::fs::File::create(&table_file).expect("create");
                let mut w = IpcWriter::new(
                    std::io::BufWriter::new(f),
                    batch.schema(),
                    &IpcWriteOptions::default().with_format(IpcFormat::File),
                )
                .expect("ipc writer");
                w.write(&batch).expect("ipc write");
                w.finish().expect("ipc finish");
            }
            std::fs::write(&parquet_file, &file).expect("write parquet");
            let codec = default.compression.pyarrow_name();
            let peer_file = cfg.dir.join(format!("parquet_{name}.pyarrow.parquet"));
            let peer = pyarrow_times(&table_file, &parquet_file, codec, reps, &peer_file);
            let peer_bytes = bytes::Bytes::from(std::fs::read(&peer_file).expect("read"));
            // ARROW_TENSOR_KEEP_PARQUET=DIR keeps both files there, for a look inside.
            if let Some(keep) = std::env::var_os("ARROW_TENSOR_KEEP_PARQUET") {
                let keep = Path::new(&keep);
                std::fs::create_dir_all(keep).expect("create the kept files' directory");
                std::fs::copy(&parquet_file, keep.join(format!("{name}.ours.parquet")))
                    .expect("keep our file");
                std::fs::copy(&peer_file, keep.join(format!("{name}.pyarrow.parquet")))
                    .expect("keep pyarrow's file");
            }
            let _ = std::fs::remove_file(&table_file);
            let _ = std::fs::remove_file(&parquet_file);
            let _ = std::fs::remove_file(&peer_file);
            let sizes = (file.len(), peer.bytes);
            emit_sized(
                &write_op,
                bytes,
                ours_write,
                peer.write_s,
                sizes,
                "record batch in memory -> ParquetWriter (default options) into a Vec; pyarrow: pq.write_table of the same table into a BufferOutputStream, same codec; bytes: the table's columns; ours_bytes / peer_bytes: the two files",
            );
            // The same bytes through arrow-rs's reader alone (one thread, no checks, batches
            // of 2^20 rows), to tell the parquet crate's decoding from ours.
            let raw = time(reps, || {
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file.clone())
                    .expect("open")
                    .with_batch_size(1 << 20)
                    .build()
                    .expect("reader")
                    .map(|b| b.expect("batch").num_rows())
                    .sum::<usize>()
            });
            let one_thread = time(reps, || {
                let options = ParquetReadOptions::default().with_threads(1);
                ParquetBatches::new(file.clone(), &options)
                    .expect("open")
                    .map(|b| b.expect("batch").num_rows())
                    .sum::<usize>()
            });
            println!(
                "{{\"op\":\"{read_op}_detail\",\"ours_s\":{ours_read:.6e},\"ours_one_thread_s\":{one_thread:.6e},\"arrow_rs_alone_s\":{raw:.6e},\"pyarrow_s\":{:.6e}}}",
                peer.read_s
            );
            emit_sized(
                &read_op,
                bytes,
                ours_read,
                peer.read_s,
                sizes,
                "our Parquet file in memory -> ParquetBatches -> every batch; pyarrow: pq.read_table of the same bytes from a BufferReader; bytes: the table's columns",
            );
            // Each reader on the other's file: pyarrow's file read by us, against pyarrow
            // reading its own (a speed that holds only on our files shows here).
            assert_eq!(read(&peer_bytes), batch.num_rows());
            let ours_on_peer = time(reps, || read(&peer_bytes));
            emit_sized(
                &format!("parquet_read_peer_file_{name}"),
                bytes,
                ours_on_peer,
                peer.read_own_s,
                sizes,
                "pyarrow's Parquet file (pq.write_table, same codec) in memory -> ParquetBatches; pyarrow: pq.read_table of its own file; bytes: the table's columns",
            );
        }
        // The codec sweep behind the default (ours only).
        for (codec, compression) in CODECS {
            let op = format!("parquet_codec_{codec}_{name}");
            if !cfg.wants(&op) {
                continue;
            }
            let options = ParquetWriteOptions::default().with_compression(compression);
            let file = bytes::Bytes::from(write(&batch, &options, bytes));
            let reps = reps.min(3);
            let w = time(reps, || write(&batch, &options, bytes));
            let r = time(reps, || read(&file));
            println!(
                "{{\"op\":\"{op}\",\"bytes\":{bytes},\"file_bytes\":{},\"write_s\":{w:.6e},\"read_s\":{r:.6e},\"ratio_of_size\":{:.3},\"size\":\"{}\"}}",
                file.len(),
                file.len() as f64 / bytes as f64,
                size_name(file.len())
            );
        }
    }
}
