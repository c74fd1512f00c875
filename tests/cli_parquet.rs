//! The `arrow-tensor` tool and Parquet files: `.parquet` outputs of `convert` (the table
//! format chosen by `--format`, by default from the first message), Parquet inputs read
//! like IPC files by every verb (from a path or standard input), and bad Parquet inputs
//! reported as errors naming the file and what is wrong.

use arrow_tensor_ipc::record_batch::{
    coo_table_to_sparse, ParquetBatches, ParquetReadOptions, COO_TABLE_KEY, FIXED_SHAPE_TENSOR,
    VARIABLE_SHAPE_TENSOR,
};
use arrow_tensor_ipc::{Message, MessageWriter, SparseTensor, Tensor, WriteOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_arrow-tensor");

/// A path under the temporary directory with extension `ext`, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str, ext: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!(
            "arrow-tensor-cli-parquet-{}-{n}-{tag}.{ext}",
            std::process::id()
        );
        let path = std::env::temp_dir().join(name);
        let _ = std::fs::remove_file(&path);
        TempFile(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn run(args: &[&str], files: &[&Path]) -> Output {
    let out = Command::new(BIN)
        .args(args)
        .args(files)
        .output()
        .expect("run arrow-tensor");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked at"), "{args:?}: {err}");
    out
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run arrow-tensor");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for arrow-tensor");
    writer.join().unwrap();
    out
}

fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn failed(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8(out.stderr.clone()).unwrap()
}

fn messages_file(tag: &str, messages: &[Message]) -> TempFile {
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    for m in messages {
        w.write(m).unwrap();
    }
    let f = TempFile::new(tag, "arrows");
    std::fs::write(f.path(), w.finish().unwrap()).unwrap();
    f
}

/// `dump --json` of `file`, one value per tensor: the fields that say what the tensor
/// holds (not where it came from, nor the message's encoding or index type).
fn dump(file: &Path) -> Vec<Value> {
    ok(&run(&["dump", "--json"], &[file]))
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if let Value::Object(m) = &mut v {
                m.retain(|k, _| {
                    matches!(
                        k.as_str(),
                        "kind"
                            | "shape"
                            | "type"
                            | "values"
                            | "dense"
                            | "coords"
                            | "dim_names"
                            | "nnz"
                    )
                });
            }
            v
        })
        .collect()
}

fn sparse() -> SparseTensor {
    let coords: Vec<i64> = vec![0, 1, 0, 2, 1, 0, 3, 2, 3, 3];
    SparseTensor::coo([4, 5], coords, vec![1.5f64, -2.0, 3.0, 4.25, 5.0]).unwrap()
}

fn dense() -> Tensor {
    Tensor::from_vec(vec![3, 2, 2], (0..12i32).collect()).unwrap()
}

fn read_parquet(path: &Path) -> (arrow_schema::SchemaRef, Vec<arrow_array::RecordBatch>) {
    let r =
        ParquetBatches::new(std::fs::read(path).unwrap(), &ParquetReadOptions::default()).unwrap();
    let schema = r.schema().clone();
    (schema, r.map(|b| b.unwrap()).collect())
}

#[test]
fn a_sparse_input_becomes_a_coo_table_by_default() {
    let input = messages_file("sparse", &[sparse().into()]);
    let out = TempFile::new("sparse-out", "parquet");
    let summary = ok(&run(&["convert"], &[input.path(), out.path()]));
    assert!(
        summary.contains("1 message written as 1 record batch"),
        "{summary}"
    );
    let (schema, batches) = read_parquet(out.path());
    assert!(schema.metadata().contains_key(COO_TABLE_KEY));
    let back = coo_table_to_sparse(&batches[0], None).unwrap();
    assert_eq!(back.nnz(), 5);
    // Every verb reads the Parquet file like the messages it came from.
    assert_eq!(dump(out.path()), dump(input.path()));
    ok(&run(&["validate"], &[out.path()]));
    let inspect = ok(&run(&["inspect"], &[out.path()]));
    assert!(inspect.contains("nnz"), "{inspect}");
    // And back to messages.
    let again = TempFile::new("sparse-again", "arrows");
    ok(&run(&["convert"], &[out.path(), again.path()]));
    assert_eq!(dump(again.path()), dump(input.path()));
}

#[test]
fn a_dense_input_becomes_a_fixed_shape_column_by_default() {
    let input = messages_file("dense", &[dense().into()]);
    let out = TempFile::new("dense-out", "parquet");
    ok(&run(&["convert"], &[input.path(), out.path()]));
    let (schema, _) = read_parquet(out.path());
    assert_eq!(
        schema.field(0).metadata()["ARROW:extension:name"],
        FIXED_SHAPE_TENSOR
    );
    assert_eq!(dump(out.path()), dump(input.path()));

    let variable = TempFile::new("variable-out", "parquet");
    ok(&run(
        &["convert", "--format", "variable-shape-tensor"],
        &[input.path(), variable.path()],
    ));
    let (schema, _) = read_parquet(variable.path());
    assert_eq!(
        schema.field(0).metadata()["ARROW:extension:name"],
        VARIABLE_SHAPE_TENSOR
    );

    // A dense tensor as a COO table when asked.
    let table = TempFile::new("dense-coo", "parquet");
    ok(&run(
        &["convert", "--format", "coo-table"],
        &[input.path(), table.path()],
    ));
    let (schema, _) = read_parquet(table.path());
    assert!(schema.metadata().contains_key(COO_TABLE_KEY));

    let err = failed(&run(
        &["convert", "--format", "messages"],
        &[input.path(), table.path()],
    ));
    assert!(
        err.contains("is a Parquet file: it holds record batches"),
        "{err}"
    );
}

#[test]
fn parquet_on_standard_input_is_spooled_and_read() {
    let input = messages_file("stdin", &[sparse().into()]);
    let out = TempFile::new("stdin-out", "parquet");
    ok(&run(&["convert"], &[input.path(), out.path()]));
    let bytes = std::fs::read(out.path()).unwrap();
    let from_stdin = ok(&run_stdin(&["dump", "--json", "-"], &bytes));
    let from_file = ok(&run(&["dump", "--json"], &[out.path()]));
    assert_eq!(from_stdin.lines().count(), 1);
    let strip = |s: &str| -> Value {
        let mut v: Value = serde_json::from_str(s.trim()).unwrap();
        if let Value::Object(m) = &mut v {
            m.remove("source");
            m.remove("file");
        }
        v
    };
    assert_eq!(strip(&from_stdin), strip(&from_file));
    let converted = run_stdin(&["convert", "-", "-"], &bytes);
    assert_eq!(converted.status.code(), Some(0));
    let messages: Vec<_> = arrow_tensor_ipc::MessageIter::new(
        converted.stdout,
        &arrow_tensor_ipc::ReadOptions::strict(),
    )
    .map(|m| m.unwrap())
    .collect();
    assert_eq!(messages.len(), 1);
}

#[test]
fn bad_parquet_inputs_are_errors_naming_the_file() {
    let input = messages_file("bad", &[sparse().into()]);
    let good = TempFile::new("bad-src", "parquet");
    ok(&run(&["convert"], &[input.path(), good.path()]));
    let bytes = std::fs::read(good.path()).unwrap();
    let bad = TempFile::new("bad", "parquet");
    for (cut, expected) in [
        (bytes.len() - 1, "does not end with the magic bytes PAR1"),
        (bytes.len() / 2, "does not end with the magic bytes PAR1"),
        (6, "truncated Parquet file"),
    ] {
        std::fs::write(bad.path(), &bytes[..cut]).unwrap();
        for verb in ["dump", "validate", "inspect"] {
            let err = failed(&run(&[verb], &[bad.path()]));
            assert!(err.contains(&bad.path().display().to_string()), "{err}");
            assert!(err.contains(expected), "{verb} {cut}: {err}");
        }
        let out = TempFile::new("bad-out", "arrows");
        let err = failed(&run(&["convert"], &[bad.path(), out.path()]));
        assert!(err.contains(expected), "{err}");
    }
    // A COO table whose metadata claims a smaller shape than its coordinates: the
    // record-batch reader's error, naming the record batch.
    let (schema, batches) = read_parquet(good.path());
    let mut meta = schema.metadata().clone();
    meta.insert(
        COO_TABLE_KEY.to_string(),
        r#"{"shape":[2,2],"format":"COO","index_type":"int8"}"#.to_string(),
    );
    let lying = arrow_array::RecordBatch::try_new(
        std::sync::Arc::new(schema.as_ref().clone().with_metadata(meta)),
        batches[0].columns().to_vec(),
    )
    .unwrap();
    let mut w = arrow_tensor_ipc::record_batch::ParquetWriter::new(
        Vec::new(),
        lying.schema(),
        &Default::default(),
    )
    .unwrap();
    w.write(&lying).unwrap();
    std::fs::write(bad.path(), w.finish().unwrap()).unwrap();
    let err = failed(&run(&["validate"], &[bad.path()]));
    assert!(err.contains("record batch 0"), "{err}");
    assert!(
        err.contains("out of bounds") || err.contains("outside"),
        "{err}"
    );
}

/// Files whose dictionary page is marked as an index page while their data pages need
/// it: in a COO table (decoded by the crate itself) an error naming the file, row group,
/// column and page; in a tensor column (decoded by the parquet crate, which panics on it)
/// an error naming the file and the panic, and no panic report on standard error.
#[test]
fn a_missing_dictionary_is_an_error_and_so_is_the_parquet_crates_panic() {
    /// Converts `message` to Parquet and marks the dictionary page of column `column` of
    /// row group 0 as an index page.
    fn without_dictionary(tag: &str, message: Message, column: usize) -> TempFile {
        let input = messages_file(tag, &[message]);
        let out = TempFile::new(tag, "parquet");
        ok(&run(&["convert"], &[input.path(), out.path()]));
        let mut bytes = std::fs::read(out.path()).unwrap();
        let meta = parquet::file::metadata::ParquetMetaDataReader::new()
            .parse_and_finish(&bytes::Bytes::from(bytes.clone()))
            .unwrap();
        let at = meta.row_group(0).columns()[column]
            .dictionary_page_offset()
            .unwrap() as usize;
        assert_eq!(&bytes[at..at + 2], &[0x15, 0x04]);
        bytes[at + 1] = 0x02;
        std::fs::write(out.path(), &bytes).unwrap();
        out
    }
    let coords: Vec<i64> = (0..500).flat_map(|i| [i, (i * 7) % 1000]).collect();
    let sparse = SparseTensor::coo([1000, 1000], coords, vec![2.5f64; 500]).unwrap();
    let out = without_dictionary("no-dictionary", sparse.into(), 2);
    let err = failed(&run(&["validate"], &[out.path()]));
    assert!(err.contains(&out.path().display().to_string()), "{err}");
    assert!(err.contains("record batch 0"), "{err}");
    assert!(
        err.contains("row group 0 (rows 0..500): column value: page 1")
            && err.contains("dictionary-encoded values before any dictionary page"),
        "{err}"
    );

    let dense = Tensor::from_vec(vec![50, 2, 2], vec![2.5f64; 200]).unwrap();
    let out = without_dictionary("panic", dense.into(), 0);
    let output = run(&["validate"], &[out.path()]);
    let err = failed(&output);
    assert!(err.contains(&out.path().display().to_string()), "{err}");
    assert!(err.contains("record batch 0"), "{err}");
    assert!(
        err.contains("the parquet crate panicked reading rows 0.."),
        "{err}"
    );
    assert!(!err.contains("panicked at"), "{err}");
}
