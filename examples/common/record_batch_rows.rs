//! The record-batch rows of `compare` (feature `record-batch`): tensors to fixed-shape
//! tensor columns, tensor messages to an IPC stream of fixed-shape batches and back
//! (ours beside pyarrow doing the same job), and sparse tensors to COO tables and back.

use super::inputs::{self, Layout};
use super::{emit, memcpy_s, size_name, time, Cfg, Row};
use arrow_buffer::Buffer;
use arrow_tensor_ipc::record_batch::{
    coo_table_to_sparse, fixed_shape_to_tensor, sparse_to_coo_table, tensor_to_fixed_shape,
    FixedShapeOptions, IpcBatches, IpcFormat, IpcReadOptions, IpcWriteOptions, IpcWriter,
};
use arrow_tensor_ipc::{decode_message, encode, Message, ReadOptions, WriteOptions};
use std::path::Path;
use std::process::Command;

/// pyarrow's times for the same jobs (median seconds), from
/// `examples/common/pyarrow_record_batch.py`.
struct PyTimes {
    to_stream_s: f64,
    from_stream_s: f64,
}

fn pyarrow_times(message_file: &Path, stream_file: &Path, reps: usize) -> PyTimes {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var_os("ARROW_TENSOR_PYTHON")
        .map(Into::into)
        .unwrap_or_else(|| root.join(".venv/bin/python"));
    let out = Command::new(python)
        .arg(root.join("examples/common/pyarrow_record_batch.py"))
        .arg(message_file)
        .arg(stream_file)
        .arg(reps.to_string())
        .output()
        .expect("run pyarrow_record_batch.py (scripts/venv.sh creates .venv)");
    assert!(
        out.status.success(),
        "pyarrow_record_batch.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    PyTimes {
        to_stream_s: v["to_stream_s"].as_f64().expect("to_stream_s"),
        from_stream_s: v["from_stream_s"].as_f64().expect("from_stream_s"),
    }
}

pub fn dense_rows(cfg: &Cfg, body: usize) {
    let name = format!("fixed_shape_{}", size_name(body));
    if !cfg.wants(&name) {
        return;
    }
    let t = inputs::dense(body);
    let reps = cfg.reps_for(body);
    let opts = FixedShapeOptions::default();
    let ours = time(reps, || tensor_to_fixed_shape(&t, &opts).expect("column"));
    emit(Row {
        op: format!("{name}_tensor_to_column"),
        bytes: body,
        ours_s: ours,
        arrow_s: None,
        memcpy_s: Some(memcpy_s(body, reps)),
        per: "tensor_to_fixed_shape of a row-major tensor (no copy: the list values are the tensor's buffer)",
    });

    // The message in memory, as read from a file.
    let msg: Message = t.into();
    let message = bytes::Bytes::from(
        encode(&msg, &WriteOptions::default())
            .expect("encode")
            .to_vec(),
    );
    drop(msg);
    let len = message.len();
    let mc = memcpy_s(len, reps);
    let to_stream = || {
        let d = decode_message(&message, &ReadOptions::strict())
            .expect("decode")
            .expect("a message");
        let batch = tensor_to_fixed_shape(d.message.as_tensor().expect("dense"), &opts)
            .expect("column")
            .into_record_batch("tensor")
            .expect("batch");
        let mut w = IpcWriter::new(
            Vec::with_capacity(len + 4096),
            batch.schema(),
            &IpcWriteOptions::default().with_format(IpcFormat::Stream),
        )
        .expect("writer");
        w.write(&batch).expect("write");
        w.finish().expect("finish")
    };
    let stream = to_stream();
    let ours_to = time(reps, to_stream);
    let stream = Buffer::from_vec(stream);
    let from_stream = || {
        let mut batches =
            IpcBatches::new(stream.clone(), &IpcReadOptions::default()).expect("open");
        let schema = batches.schema().clone();
        let batch = batches.next().expect("a batch").expect("batch");
        let t = fixed_shape_to_tensor(schema.field(0), batch.column(0)).expect("tensor");
        encode(&t.into(), &WriteOptions::default())
            .expect("encode")
            .to_bytes()
    };
    let ours_from = time(reps, from_stream);
    let mfile = cfg.dir.join(format!("{name}.arrows"));
    let sfile = cfg.dir.join(format!("{name}.stream.arrows"));
    std::fs::write(&mfile, &message).expect("write message file");
    std::fs::write(&sfile, stream.as_slice()).expect("write stream file");
    let py = pyarrow_times(&mfile, &sfile, reps);
    let _ = std::fs::remove_file(&mfile);
    let _ = std::fs::remove_file(&sfile);
    emit(Row {
        op: format!("{name}_message_to_stream"),
        bytes: len,
        ours_s: ours_to,
        arrow_s: Some(py.to_stream_s),
        memcpy_s: Some(mc),
        per: "tensor message in memory -> decode -> fixed-shape column -> IPC stream in a Vec; pyarrow: read_tensor + FixedShapeTensorArray.from_numpy_ndarray + ipc.new_stream to a BufferOutputStream",
    });
    emit(Row {
        op: format!("{name}_stream_to_message"),
        bytes: len,
        ours_s: ours_from,
        arrow_s: Some(py.from_stream_s),
        memcpy_s: Some(mc),
        per: "IPC stream in memory -> IpcBatches -> fixed_shape_to_tensor -> encode + to_bytes; pyarrow: open_stream + to_numpy_ndarray + write_tensor to a BufferOutputStream",
    });
}

pub fn sparse_rows(cfg: &Cfg, layout: Layout, nnz: usize) {
    let name = format!("coo_table_{}_int64_nnz{nnz}", layout.name());
    if !cfg.wants(&name) {
        return;
    }
    let t = inputs::sparse::<i64>(layout, nnz);
    let reps = cfg.reps_for(nnz * 32);
    let table = sparse_to_coo_table(&t).expect("table");
    let bytes: usize = table
        .columns()
        .iter()
        .map(|c| c.get_buffer_memory_size())
        .sum();
    let mc = memcpy_s(bytes, reps);
    let ours = time(reps, || sparse_to_coo_table(&t).expect("table"));
    emit(Row {
        op: format!("{name}_to_table"),
        bytes,
        ours_s: ours,
        arrow_s: None,
        memcpy_s: Some(mc),
        per: "sparse_to_coo_table (coordinate columns written, values shared); bytes: the table's columns",
    });
    let ours = time(reps, || coo_table_to_sparse(&table, None).expect("tensor"));
    emit(Row {
        op: format!("{name}_from_table"),
        bytes,
        ours_s: ours,
        arrow_s: None,
        memcpy_s: Some(mc),
        per: "coo_table_to_sparse in the recorded layout (coordinates checked and interleaved, strict validation, conversion); bytes: the table's columns",
    });
}
