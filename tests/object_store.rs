//! Datasets in object storage, against a real S3-compatible server: `s3s-fs` (installed by
//! `.ci/run`, pinned) serving a scratch directory on 127.0.0.1, started by each test on a
//! free port and killed when the test ends. pyarrow's own `S3FileSystem` against the same
//! server judges what we write, and writes what we read.

#[path = "common/venv.rs"]
mod venv;

use arrow_tensor_ipc::dataset::{
    Dataset, DatasetReadOptions, DatasetWriteOptions, DatasetWriter, MANIFEST_FILE,
};
use arrow_tensor_ipc::storage::{StorageOptions, Store};
use arrow_tensor_ipc::{ErrorKind, Limits, Position, SparseTensor, TensorInfo};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const KEY: &str = "test-access-key";
const SECRET: &str = "test-secret-key";
const BUCKET: &str = "bucket";

/// An `s3s-fs` server on 127.0.0.1 over a scratch directory, killed on drop.
struct Server {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Server {
    fn start(name: &str) -> Server {
        let dir = venv::scratch("object-store", name);
        std::fs::create_dir_all(dir.join(BUCKET)).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("s3s-fs")
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", KEY, "--secret-key", SECRET])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("s3s-fs is not installed: run .ci/run, or `cargo install s3s-fs --version 0.14.1 --features binary --locked`");
        let server = Server { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "s3s-fs did not listen within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn options(&self) -> StorageOptions {
        StorageOptions::new()
            .with("aws_endpoint", self.endpoint())
            .with("aws_allow_http", "true")
            .with("aws_access_key_id", KEY)
            .with("aws_secret_access_key", SECRET)
            .with("aws_region", "us-east-1")
            .with("timeout", "20s")
    }

    /// The server's directory of `key` in the bucket.
    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(BUCKET).join(key)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A 60 x 50 float64 matrix with about 300 values.
fn matrix() -> SparseTensor {
    let mut coords = Vec::new();
    let mut values = Vec::new();
    for k in 0..300u64 {
        let (r, c) = ((k * 7919) % 60, (k * 104729) % 50);
        coords.push((r as i64, c as i64));
    }
    coords.sort();
    coords.dedup();
    let flat: Vec<i64> = coords.iter().flat_map(|&(r, c)| [r, c]).collect();
    for k in 0..coords.len() {
        values.push(k as f64 + 0.5);
    }
    SparseTensor::coo([60, 50], flat, values)
        .unwrap()
        .with_dim_names(["row", "col"])
        .unwrap()
}

fn write(url: &str, options: &StorageOptions, t: &SparseTensor) {
    let mut w = DatasetWriter::new_url(
        url,
        options,
        &TensorInfo::of_sparse(t),
        [16, 32],
        &DatasetWriteOptions::default(),
    )
    .unwrap();
    w.write_sparse(t).unwrap();
    w.finish().unwrap();
}

fn same(a: &SparseTensor, b: &SparseTensor) -> bool {
    a.to_dense().unwrap().content_eq(&b.to_dense().unwrap())
}

fn assert_names(e: &arrow_tensor_ipc::Error, file: &str) {
    match e.position() {
        Some(Position::DatasetFile { file: f, .. }) => assert_eq!(f, file, "{e}"),
        other => panic!("{e}: position {other:?}"),
    }
}

#[test]
fn a_dataset_written_to_s3_reads_back_and_lies_where_engines_find_it() {
    let server = Server::start("round-trip");
    let options = server.options();
    let t = matrix();
    let url = format!("s3://{BUCKET}/datasets/m");
    write(&url, &options, &t);
    // The objects are the dataset's files, under the prefix.
    assert!(server.path("datasets/m").join(MANIFEST_FILE).is_file());
    let local = venv::scratch("object-store", "round-trip-local");
    let mut w = DatasetWriter::new(
        &local,
        &TensorInfo::of_sparse(&t),
        [16, 32],
        &DatasetWriteOptions::default(),
    )
    .unwrap();
    w.write_sparse(&t).unwrap();
    let manifest = w.finish().unwrap();
    for tile in &manifest.tiles {
        for f in &tile.files {
            assert!(
                server.path("datasets/m").join(&f.path).is_file(),
                "{}",
                f.path
            );
        }
    }
    let d = Dataset::open_url(&url, &options, &DatasetReadOptions::default()).unwrap();
    assert_eq!(d.manifest(), &manifest);
    assert_eq!(d.location(), url);
    assert!(d.dir().is_none());
    d.check_files().unwrap();
    assert!(same(&d.read_all().unwrap(), &t));
    // One tile with the manifest of that tile alone, as a cluster task reads it.
    let tile = manifest.tiles[1].tile.clone();
    let one = Dataset::with_manifest_url(
        &url,
        &options,
        manifest.for_tile(&tile),
        &DatasetReadOptions::default(),
    )
    .unwrap();
    assert_eq!(
        one.read_tile(&tile).unwrap().nnz() as u64,
        manifest.tiles[1].nnz
    );
    // A prefix with objects is not written over.
    let e = DatasetWriter::new_url(
        &url,
        &options,
        &TensorInfo::of_sparse(&t),
        [16, 32],
        &DatasetWriteOptions::default(),
    )
    .err()
    .expect("a non-empty prefix is refused");
    assert!(matches!(e.kind(), ErrorKind::ObjectStore { .. }), "{e}");
    assert!(e.to_string().contains(&url), "{e}");
    let _ = std::fs::remove_dir_all(local);
}

#[test]
fn pyarrow_s3_filesystem_reads_what_we_write_and_writes_what_we_read() {
    let server = Server::start("pyarrow");
    let options = server.options();
    let t = matrix();
    write(&format!("s3://{BUCKET}/ours"), &options, &t);
    // pyarrow reads our files over S3 as one table and copies the dataset, manifest
    // included, to another prefix with its own S3 client.
    let script = format!(
        r#"
import json, pyarrow.dataset as ds, pyarrow.fs as fs
s3 = fs.S3FileSystem(access_key="{KEY}", secret_key="{SECRET}", endpoint_override="{endpoint}",
                     scheme="http", region="us-east-1")
infos = [i for i in s3.get_file_info(fs.FileSelector("{BUCKET}/ours", recursive=True))
         if i.type == fs.FileType.File]
parts = sorted(i.path for i in infos if i.path.endswith(".parquet"))
table = ds.dataset(parts, filesystem=s3, format="parquet").to_table()
for info in infos:
    rel = info.path[len("{BUCKET}/ours/"):]
    with s3.open_input_stream(info.path) as src, s3.open_output_stream("{BUCKET}/theirs/" + rel) as dst:
        dst.write(src.read())
print(json.dumps({{"rows": table.num_rows, "sum": sum(table.column("value").to_pylist()),
                   "columns": table.column_names}}))
"#,
        endpoint = server.endpoint()
    );
    let out = Command::new(venv::python())
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"], t.nnz() as u64);
    assert_eq!(v["columns"], serde_json::json!(["row", "col", "value"]));
    let sum: f64 = (0..t.nnz()).map(|k| k as f64 + 0.5).sum();
    assert!((v["sum"].as_f64().unwrap() - sum).abs() < 1e-9);
    let theirs = Dataset::open_url(
        &format!("s3://{BUCKET}/theirs"),
        &options,
        &DatasetReadOptions::default(),
    )
    .unwrap();
    assert!(same(&theirs.read_all().unwrap(), &t));
}

#[test]
fn what_the_directory_reader_refuses_is_refused_from_s3() {
    let server = Server::start("refused");
    let options = server.options();
    let t = matrix();
    let url = format!("s3://{BUCKET}/ds");
    write(&url, &options, &t);
    let open = || Dataset::open_url(&url, &options, &DatasetReadOptions::default());
    let manifest = open().unwrap().manifest().clone();
    let first = manifest.tiles[0].files[0].path.clone();
    let on_disk = server.path("ds").join(&first);
    let bytes = std::fs::read(&on_disk).unwrap();

    // An object that changes size between the listing and the read.
    let d = open().unwrap();
    std::fs::write(&on_disk, &bytes[..bytes.len() - 10]).unwrap();
    let e = d.read_tile(&manifest.tiles[0].tile).unwrap_err();
    assert_names(&e, &first);
    assert!(e.to_string().contains("changed while read"), "{e}");

    // A listed object that is missing.
    std::fs::remove_file(&on_disk).unwrap();
    let e = open().unwrap_err();
    assert_names(&e, &first);
    assert!(e.to_string().contains("missing"), "{e}");

    // An object the manifest does not list.
    std::fs::write(&on_disk, &bytes).unwrap();
    let extra = first.replace("part-00000", "part-00009");
    std::fs::write(server.path("ds").join(&extra), &bytes).unwrap();
    let e = open().unwrap().check_files().unwrap_err();
    assert_names(&e, &extra);
    std::fs::remove_file(server.path("ds").join(&extra)).unwrap();

    // A key that escapes the prefix.
    let text = std::fs::read_to_string(server.path("ds").join(MANIFEST_FILE)).unwrap();
    std::fs::write(
        server.path("ds").join(MANIFEST_FILE),
        text.replacen(&first, "../escape.parquet", 1),
    )
    .unwrap();
    let e = open().unwrap_err();
    assert_names(&e, MANIFEST_FILE);

    // A manifest larger than the limits allow (at least 1 MiB is always allowed).
    let padded = format!("{text}{}", " ".repeat(1 << 20));
    std::fs::write(server.path("ds").join(MANIFEST_FILE), padded).unwrap();
    let small =
        DatasetReadOptions::default().with_limits(Limits::default().with_max_metadata_len(64));
    let e = Dataset::open_url(&url, &options, &small).unwrap_err();
    assert_names(&e, MANIFEST_FILE);
    assert!(e.to_string().contains("over the limit"), "{e}");

    // No manifest: not a dataset (or an unfinished write), naming the URL.
    std::fs::remove_file(server.path("ds").join(MANIFEST_FILE)).unwrap();
    let e = open().unwrap_err();
    assert_names(&e, MANIFEST_FILE);
    assert!(e.to_string().contains(&url), "{e}");
}

#[test]
fn store_requests_fail_with_typed_errors_naming_the_url() {
    let server = Server::start("store");
    let store = Store::open(&format!("s3://{BUCKET}/x"), &server.options()).unwrap();
    store.put("a/b.bin", vec![1u8, 2, 3]).unwrap();
    assert_eq!(&store.get("a/b.bin").unwrap()[..], &[1, 2, 3]);
    assert_eq!(&store.get_range("a/b.bin", 1..3).unwrap()[..], &[2, 3]);
    assert_eq!(store.size("a/b.bin").unwrap(), Some(3));
    assert_eq!(store.size("nothing").unwrap(), None);
    assert_eq!(store.list(10).unwrap(), vec![("a/b.bin".to_string(), 3)]);
    let e = store.get("missing.bin").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::ObjectStore { .. }), "{e}");
    assert!(
        e.to_string()
            .contains(&format!("s3://{BUCKET}/x/missing.bin")),
        "{e}"
    );
    assert_eq!(e.kind().name(), "object_store");
    // Wrong credentials: forbidden, named.
    let wrong = server.options().with("aws_secret_access_key", "wrong");
    let e = Store::open(&format!("s3://{BUCKET}/x"), &wrong)
        .unwrap()
        .get("a/b.bin")
        .unwrap_err();
    assert!(e.to_string().contains("a/b.bin"), "{e}");
    // A large object through the multipart writer, in parts.
    let big: Vec<u8> = (0..20_000_000u32).map(|i| (i % 251) as u8).collect();
    let mut w = store.writer("big.bin").unwrap();
    for chunk in big.chunks(1 << 20) {
        std::io::Write::write_all(&mut w, chunk).unwrap();
    }
    assert_eq!(w.finish().unwrap(), big.len() as u64);
    assert_eq!(store.get("big.bin").unwrap().len(), big.len());
    // Read back in concurrent ranged parts (three parts, the last one short): the same
    // bytes; a size that is not the object's is refused as a change.
    assert!(big.len() as u64 > 2 * arrow_tensor_ipc::storage::RANGED_PART);
    assert_eq!(store.get_sized("big.bin", big.len() as u64).unwrap(), big);
    for wrong in [big.len() as u64 - 1, big.len() as u64 + 1] {
        let e = store.get_sized("big.bin", wrong).unwrap_err();
        assert!(e.to_string().contains("big.bin"), "{e}");
        assert!(e.to_string().contains("changed while read"), "{e}");
    }
    // A writer dropped unfinished leaves no object.
    let mut w = store.writer("dropped.bin").unwrap();
    std::io::Write::write_all(&mut w, &big[..1000]).unwrap();
    drop(w);
    assert_eq!(store.size("dropped.bin").unwrap(), None);
    // Not a URL of a store.
    assert!(Store::open("ftp://host/x", &StorageOptions::new()).is_err());
    assert!(!arrow_tensor_ipc::storage::is_url("/tmp/x"));
    let _ = Path::new("");
}

/// The `arrow-tensor` tool with the server's endpoint and credentials in the environment.
fn cli(server: &Server, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arrow-tensor"))
        .args(args)
        .env("AWS_ENDPOINT", server.endpoint())
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET)
        .env("AWS_REGION", "us-east-1")
        .output()
        .unwrap()
}

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_cli_takes_urls_wherever_it_takes_a_path() {
    use arrow_tensor_ipc::{Message, MessageReader, MessageWriter, ReadOptions, WriteOptions};
    let server = Server::start("cli");
    let t = matrix();
    let local = venv::scratch("object-store", "cli-local");
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    w.write(&Message::SparseTensor(t.clone())).unwrap();
    let bytes = w.finish().unwrap();
    std::fs::write(local.join("m.arrows"), &bytes).unwrap();
    let m = local.join("m.arrows");
    let m = m.to_str().unwrap();

    // tile to a prefix; inspect, validate and convert the dataset there.
    let ds = format!("s3://{BUCKET}/cli/ds");
    let out = ok(&cli(&server, &["tile", m, &ds, "--tile-shape", "16,32"]));
    assert!(out.contains(&format!("{} stored values", t.nnz())), "{out}");
    assert!(server.path("cli/ds").join(MANIFEST_FILE).is_file());
    let back = local.join("back.arrows");
    ok(&cli(&server, &["convert", &ds, back.to_str().unwrap()]));
    let read = std::fs::read(&back).unwrap();
    let mut reader = MessageReader::new(&read[..], &ReadOptions::default());
    let decoded = reader.next().transpose().unwrap().map(|d| d.message);
    let Some(Message::SparseTensor(got)) = decoded else {
        panic!("no sparse tensor in {}", back.display());
    };
    assert!(same(&got, &t));

    // A message file in the store: inspect, dump and validate read it over S3.
    let store = Store::open(&format!("s3://{BUCKET}/cli"), &server.options()).unwrap();
    store.put("m.arrows", bytes.clone()).unwrap();
    let url = format!("s3://{BUCKET}/cli/m.arrows");
    let out = ok(&cli(&server, &["validate", &url]));
    assert!(out.contains("1 message OK"), "{out}");
    let out = ok(&cli(&server, &["dump", "--json", &url]));
    assert!(out.contains("\"nnz\""), "{out}");
    ok(&cli(&server, &["inspect", &url]));
    // A missing object: an error naming its URL, not a hang.
    let missing = format!("s3://{BUCKET}/cli/missing.arrows");
    let out = cli(&server, &["inspect", &missing]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&missing) && err.contains("not found"), "{err}");
    let _ = std::fs::remove_dir_all(local);
}
