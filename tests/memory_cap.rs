//! The `arrow-tensor` CLI under a 1 GiB address-space limit (`ulimit -v`), on hostile inputs
//! whose metadata or headers claim sizes far beyond their data: every run ends in a clean
//! error exit (1) naming what is wrong, never an abort (134), a panic (101) or a signal.

use arrow_array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{Field, Schema};
use arrow_tensor_ipc::record_batch::{IpcFormat, IpcWriteOptions, IpcWriter, COO_TABLE_KEY};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

const BIN: &str = env!("CARGO_BIN_EXE_arrow-tensor");

/// Address-space limit of the CLI in KiB.
const CAP_KIB: u64 = 1 << 20;

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arrow-tensor-memcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Runs the CLI with `args` under the address-space cap.
fn run_capped(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {CAP_KIB} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .output()
        .expect("run arrow-tensor under sh")
}

/// Expects a clean failure whose message contains every one of `words`.
fn assert_clean_error(what: &str, out: &Output, words: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{what}: expected exit 1, got {:?}: {stderr}",
        out.status
    );
    for w in words {
        assert!(stderr.contains(w), "{what}: {w:?} missing from: {stderr}");
    }
}

/// A one-row COO table (coordinates of `index_type` columns) under `metadata`.
fn coo_table(path: &Path, metadata: &str, wide: bool) {
    let (dim0, dim1): (ArrayRef, ArrayRef) = if wide {
        (
            Arc::new(Int64Array::from(vec![0i64])),
            Arc::new(Int64Array::from(vec![1i64])),
        )
    } else {
        (
            Arc::new(Int32Array::from(vec![0i32])),
            Arc::new(Int32Array::from(vec![1i32])),
        )
    };
    let fields = vec![
        Field::new("dim_0", dim0.data_type().clone(), false),
        Field::new("dim_1", dim1.data_type().clone(), false),
        Field::new("value", arrow_schema::DataType::Float64, false),
    ];
    let schema = Arc::new(Schema::new(fields).with_metadata(HashMap::from([(
        COO_TABLE_KEY.to_string(),
        metadata.to_string(),
    )])));
    let values: ArrayRef = Arc::new(Float64Array::from(vec![2.5]));
    let batch = RecordBatch::try_new(schema.clone(), vec![dim0, dim1, values]).expect("batch");
    let file = std::fs::File::create(path).expect("create");
    let mut w = IpcWriter::new(
        file,
        schema.clone(),
        &IpcWriteOptions::default().with_format(IpcFormat::Stream),
    )
    .expect("writer");
    w.write(&batch).expect("write");
    w.finish().expect("finish");
}

#[test]
fn coo_tables_claiming_huge_shapes_fail_cleanly() {
    let dir = scratch();
    let out = dir.join("out.arrows");
    let out = out.to_str().expect("utf-8 path");
    let cases: [(&str, &str, bool); 6] = [
        (
            "CSR, 2^40 rows",
            r#"{"shape":[1099511627776,2],"format":"CSR","index_type":"int64"}"#,
            true,
        ),
        (
            "CSR, 2^63-1 rows",
            r#"{"shape":[9223372036854775807,2],"format":"CSR","index_type":"int64"}"#,
            true,
        ),
        (
            "CSC, 2^40 columns",
            r#"{"shape":[2,1099511627776],"format":"CSC","index_type":"int64"}"#,
            true,
        ),
        (
            "CSF, 2^40 x 2^40",
            r#"{"shape":[1099511627776,1099511627776],"format":"CSF","index_type":"int64"}"#,
            true,
        ),
        (
            "COO, int32 columns, 2^40 rows",
            r#"{"shape":[1099511627776,2],"format":"COO","index_type":"int32"}"#,
            false,
        ),
        (
            "COO, rank over the limit",
            r#"{"shape":[1,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"format":"COO","index_type":"int64"}"#,
            true,
        ),
    ];
    for (i, (what, metadata, wide)) in cases.iter().enumerate() {
        let input = dir.join(format!("table-{i}.arrows"));
        coo_table(&input, metadata, *wide);
        let input = input.to_str().expect("utf-8 path");
        for extra in [
            &[][..],
            &["--to", "csr"],
            &["--to", "csc"],
            &["--to", "csf"],
            &["--to", "dense"],
        ] {
            let mut args = vec!["convert", input, out];
            args.extend_from_slice(extra);
            let run = run_capped(&args);
            // A conversion whose output is small may succeed (one value as COO or CSF, a CSC
            // of 2 columns); one that would allocate from the claimed shape (an indptr of
            // 2^40 + 1 entries, a dense expansion) must be a clean error.
            let must_fail = extra.contains(&"dense")
                || i == 5
                || (i <= 1 && (extra.is_empty() || extra.contains(&"csr")))
                || (i == 2 && (extra.is_empty() || extra.contains(&"csc")));
            if run.status.code() == Some(0) && !must_fail {
                continue;
            }
            assert_clean_error(&format!("{what} {extra:?}"), &run, &[]);
        }
    }
}

/// Text and numpy headers that claim sizes their bytes cannot hold.
#[test]
fn file_headers_claiming_huge_sizes_fail_cleanly() {
    let dir = scratch();
    let out = dir.join("out.arrows");
    let out = out.to_str().expect("utf-8 path");
    let files: [(&str, &[u8], &[&str]); 3] = [
        (
            "huge.mtx",
            b"%%MatrixMarket matrix coordinate real general\n1099511627776 1099511627776 1\n1 1 1.0\n",
            &["--to", "csr"],
        ),
        (
            "huge-array.mtx",
            b"%%MatrixMarket matrix array real general\n1099511627776 2\n1.0\n",
            &[],
        ),
        (
            "huge.tns",
            b"1 1099511627776 2.0\n",
            &["--to", "csc"],
        ),
    ];
    for (name, bytes, extra) in files {
        let input = dir.join(name);
        std::fs::write(&input, bytes).expect("write");
        let input = input.to_str().expect("utf-8 path");
        let mut args = vec!["convert", input, out];
        args.extend_from_slice(extra);
        let run = run_capped(&args);
        assert_clean_error(name, &run, &[]);
    }
}

/// `producer | arrow-tensor convert - - | consumer` streams: 1.25 GiB of tensor messages,
/// more than the address-space cap, go through standard input and output with memory
/// bounded by about one message, and come out byte for byte as they went in.
#[test]
fn streamed_standard_input_stays_under_the_cap() {
    use arrow_tensor_ipc::{Message, MessageWriter, Tensor, WriteOptions};
    use std::io::{Read, Write};
    use std::process::Stdio;

    const MESSAGES: usize = 320;
    // One 4 MiB float64 tensor, encoded once and sent MESSAGES times.
    let t = Tensor::from_vec(vec![512, 1024], vec![0.5f64; 512 * 1024]).expect("tensor");
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    w.write(&Message::Tensor(t)).expect("encode");
    let message = w.into_inner();
    const EOS: [u8; 8] = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];
    let total = (message.len() * MESSAGES + EOS.len()) as u64;
    assert!(total > CAP_KIB << 10);

    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {CAP_KIB} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(["convert", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run arrow-tensor under sh");
    let mut stdin = child.stdin.take().expect("stdin");
    let sent = message.clone();
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        for _ in 0..MESSAGES {
            stdin.write_all(&message)?;
        }
        stdin.write_all(&EOS)
    });
    // Read the output as it comes, comparing it with what went in.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut read = 0u64;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = stdout.read(&mut buf).expect("read the output");
        if n == 0 {
            break;
        }
        let mut chunk = &buf[..n];
        let mut at = read as usize;
        while !chunk.is_empty() {
            let expected: &[u8] = if at < sent.len() * MESSAGES {
                &sent[at % sent.len()..]
            } else {
                EOS.get(at - sent.len() * MESSAGES..).unwrap_or_default()
            };
            let k = expected.len().min(chunk.len());
            assert!(k > 0, "output longer than the input at byte {at}");
            assert!(chunk[..k] == expected[..k], "output differs near byte {at}");
            chunk = &chunk[k..];
            at += k;
        }
        read += n as u64;
    }
    let out = child.wait_with_output().expect("wait");
    writer
        .join()
        .expect("writer thread")
        .expect("write the input");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read, total, "the output is the input, re-encoded alike");
}

/// An Arrow IPC stream on standard input is read as it comes too: 1.25 GiB of record
/// batches, more than the address-space cap (which a copy into a mapped temporary file
/// would exceed), validated batch by batch.
#[test]
fn streamed_ipc_stream_on_standard_input_stays_under_the_cap() {
    use arrow_tensor_ipc::record_batch::{tensor_to_fixed_shape, FixedShapeOptions};
    use arrow_tensor_ipc::Tensor;
    use std::io::Write;
    use std::process::Stdio;

    const BATCHES: usize = 320;
    let t = Tensor::from_vec(vec![512, 1024], vec![0.5f64; 512 * 1024]).expect("tensor");
    let batch = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())
        .expect("fixed shape")
        .into_record_batch("t")
        .expect("batch");
    let stream_of = |n: usize| {
        let mut w = IpcWriter::new(
            Vec::new(),
            batch.schema(),
            &IpcWriteOptions::default().with_format(IpcFormat::Stream),
        )
        .expect("writer");
        for _ in 0..n {
            w.write(&batch).expect("write");
        }
        w.finish().expect("finish")
    };
    // The schema message, one batch message and the end-of-stream marker, told apart by
    // the lengths of streams of one and two batches.
    let (one, two) = (stream_of(1), stream_of(2));
    let batch_len = two.len() - one.len();
    let schema_len = one.len() - batch_len - 8;
    let schema = one[..schema_len].to_vec();
    let message = one[schema_len..schema_len + batch_len].to_vec();
    let eos = one[schema_len + batch_len..].to_vec();
    assert!((message.len() * BATCHES) as u64 > CAP_KIB << 10);

    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {CAP_KIB} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(["validate", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run arrow-tensor under sh");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        stdin.write_all(&schema)?;
        for _ in 0..BATCHES {
            stdin.write_all(&message)?;
        }
        stdin.write_all(&eos)
    });
    let out = child.wait_with_output().expect("wait");
    writer
        .join()
        .expect("writer thread")
        .expect("write the input");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout,
        format!("standard input: {BATCHES} tensors OK (Arrow IPC stream)\n")
    );
}
