//! `input::Input`: one input of every kind the module reads (made by the crate's own
//! writers from `samples/nist_ex1.mtx`), opened from a path (in memory and mapped) and from
//! a reader (in memory and spooled), gives its kind and the tensors the kind's own reader
//! gives, with the origins and positions it reports; hostile inputs (cut short, of a kind
//! not read, a directory without a manifest, arbitrary bytes) are typed errors, never
//! panics.

use arrow_tensor_ipc::dataset::{Dataset, DatasetReadOptions, DatasetWriteOptions, DatasetWriter};
use arrow_tensor_ipc::formats::detect::FileKind;
use arrow_tensor_ipc::formats::{self, mtx, npy, npz, tns};
use arrow_tensor_ipc::input::{Input, InputOptions, InputTensor, InputTensors};
use arrow_tensor_ipc::record_batch::{
    batch_to_messages, sparse_to_coo_table, IpcBatches, IpcFormat, IpcReadOptions, IpcWriteOptions,
    IpcWriter, MessageOptions, ParquetBatches, ParquetReadOptions, ParquetWriter, COO_TABLE_KEY,
};
use arrow_tensor_ipc::TensorInfo;
use arrow_tensor_ipc::{
    CustomMetadata, Error, ErrorKind, Limits, Location, Message, MessageIter, MessageWriter,
    Position, ReadOptions, SparseTensor, Tensor, TensorOrigin, WriteOptions, NAME_KEY,
};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("input-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/nist_ex1.mtx")
}

/// The sample matrix, as the Matrix Market reader gives it.
fn matrix() -> SparseTensor {
    let bytes = std::fs::read(sample()).unwrap();
    let m = mtx::read(bytes, &mtx::MtxReadOptions::default()).unwrap();
    m[0].as_sparse().unwrap().clone()
}

fn same(a: &Message, b: &Message) -> bool {
    match (a, b) {
        (Message::Tensor(a), Message::Tensor(b)) => a.content_eq(b),
        (Message::SparseTensor(a), Message::SparseTensor(b)) => a.content_eq(b),
        _ => false,
    }
}

fn messages_bytes(messages: &[Message]) -> Vec<u8> {
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    for m in messages {
        w.write(m).unwrap();
    }
    w.finish().unwrap()
}

/// An IPC stream or file of two COO-table batches of the sample.
fn ipc_bytes(format: IpcFormat) -> Vec<u8> {
    let batch = sparse_to_coo_table(&matrix()).unwrap();
    let options = IpcWriteOptions::default().with_format(format);
    let mut w = IpcWriter::new(Vec::new(), batch.schema(), &options).unwrap();
    w.write(&batch).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap()
}

fn parquet_bytes() -> Vec<u8> {
    let batch = sparse_to_coo_table(&matrix()).unwrap();
    let mut w = ParquetWriter::new(Vec::new(), batch.schema(), &Default::default()).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap()
}

/// A file of `kind` holding the sample (named arrays for an `.npz` bundle), and what the
/// kind's own reader gives with where each tensor comes from; `test` keeps the files of
/// tests that run at once apart.
fn file_of(kind: &str, test: &str) -> (PathBuf, FileKind, Vec<(Message, TensorOrigin)>) {
    let sparse = Message::from(matrix());
    let dense = Message::from(matrix().to_dense().unwrap());
    let path = scratch(&format!("{test}-sample.{kind}"));
    let file = |format| TensorOrigin::File { format };
    let read_back = |path: &Path, format| -> Vec<(Message, TensorOrigin)> {
        formats::read_path(path, &formats::FileReadOptions::default())
            .unwrap()
            .into_iter()
            .map(|m| (m, file(format)))
            .collect()
    };
    match kind {
        "arrows" => {
            let bytes = messages_bytes(&[sparse.clone(), dense.clone()]);
            std::fs::write(&path, &bytes).unwrap();
            let expected = MessageIter::new(bytes, &ReadOptions::strict())
                .map(|d| d.unwrap())
                .map(|d| (d.message, TensorOrigin::Message { offset: d.offset }))
                .collect();
            (path, FileKind::TensorMessages, expected)
        }
        "mtx" => {
            std::fs::copy(sample(), &path).unwrap();
            (
                path.clone(),
                FileKind::MatrixMarket,
                read_back(&path, "Matrix Market"),
            )
        }
        "tns" => {
            formats::write_path(&path, &[sparse], &Default::default()).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            let back = tns::read(bytes, &tns::TnsReadOptions::default()).unwrap();
            let expected = back.into_iter().map(|m| (m, file("FROSTT"))).collect();
            (path, FileKind::Frostt, expected)
        }
        "npy" => {
            let mut bytes = Vec::new();
            npy::write(&[dense], &mut bytes, &Default::default()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            let back = npy::read(bytes, &npy::NpyReadOptions::default()).unwrap();
            (
                path,
                FileKind::Npy,
                back.into_iter().map(|m| (m, file("npy"))).collect(),
            )
        }
        "npz" => {
            formats::write_path(&path, &[sparse], &Default::default()).unwrap();
            (path.clone(), FileKind::Npz, read_back(&path, "npz"))
        }
        "bundle.npz" => {
            let named = dense
                .clone()
                .with_custom_metadata(CustomMetadata::new([(NAME_KEY, "weights")]));
            formats::write_path(&path, &[named, dense], &Default::default()).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            let back = npz::read(bytes, &npz::NpzReadOptions::default()).unwrap();
            let expected = back
                .into_iter()
                .map(|m| {
                    let name = m.name().unwrap().to_string();
                    (
                        m,
                        TensorOrigin::Member {
                            format: "npz",
                            name,
                        },
                    )
                })
                .collect();
            (path, FileKind::Npz, expected)
        }
        "ipc-stream" | "ipc-file" => {
            let (format, kind) = match kind {
                "ipc-file" => (IpcFormat::File, FileKind::IpcFile),
                _ => (IpcFormat::Stream, FileKind::IpcStream),
            };
            let bytes = ipc_bytes(format);
            std::fs::write(&path, &bytes).unwrap();
            let batches = IpcBatches::new(bytes, &IpcReadOptions::default()).unwrap();
            (path, kind, split(batches.map(|b| b.unwrap())))
        }
        "parquet" => {
            let bytes = parquet_bytes();
            std::fs::write(&path, &bytes).unwrap();
            let batches = ParquetBatches::new(bytes, &ParquetReadOptions::default()).unwrap();
            (path, FileKind::Parquet, split(batches.map(|b| b.unwrap())))
        }
        "dataset" => {
            let _ = std::fs::remove_dir_all(&path);
            let tensor = matrix();
            let info = TensorInfo::of_sparse(&tensor);
            let mut w =
                DatasetWriter::new(&path, &info, [2, 2], &DatasetWriteOptions::default()).unwrap();
            w.write_sparse(&tensor).unwrap();
            w.finish().unwrap();
            let d = Dataset::open(&path, &DatasetReadOptions::default()).unwrap();
            let back = Message::from(d.read_all().unwrap());
            (path, FileKind::Dataset, vec![(back, TensorOrigin::Dataset)])
        }
        other => panic!("no kind {other}"),
    }
}

/// The tensors of record batches, batch by batch.
fn split(batches: impl Iterator<Item = arrow_array::RecordBatch>) -> Vec<(Message, TensorOrigin)> {
    let mut out = Vec::new();
    for (i, b) in batches.enumerate() {
        for m in batch_to_messages(&b, &MessageOptions::default()).unwrap() {
            out.push((m, TensorOrigin::Batch { batch: i as u64 }));
        }
    }
    out
}

const KINDS: [&str; 10] = [
    "arrows",
    "mtx",
    "tns",
    "npy",
    "npz",
    "bundle.npz",
    "ipc-stream",
    "ipc-file",
    "parquet",
    "dataset",
];

fn collect(tensors: InputTensors<'_>) -> Vec<(Message, TensorOrigin)> {
    tensors
        .map(|t| t.unwrap())
        .map(|t| {
            let origin = t.origin();
            (t.into_message(), origin)
        })
        .collect()
}

fn check(what: &str, got: &[(Message, TensorOrigin)], expected: &[(Message, TensorOrigin)]) {
    assert_eq!(got.len(), expected.len(), "{what}");
    for ((g, go), (e, eo)) in got.iter().zip(expected) {
        assert!(same(g, e), "{what}: {go} differs");
        assert_eq!(go, eo, "{what}");
    }
}

#[test]
fn every_kind_gives_what_its_reader_gives() {
    let options = InputOptions::default();
    for kind in KINDS {
        let (path, file_kind, expected) = file_of(kind, "every");
        let input = Input::open(&path, &options).unwrap();
        assert_eq!(input.kind(), file_kind, "{kind}");
        assert_eq!(input.name(), path.display().to_string());
        assert_eq!(input.path(), Some(path.as_path()));
        check(kind, &collect(input.tensors().unwrap()), &expected);

        #[allow(unsafe_code)]
        // SAFETY: the test's own files, not modified while read.
        let mapped = unsafe { Input::open_mmap(&path, &options) }.unwrap();
        assert_eq!(mapped.kind(), file_kind, "{kind}");
        check(kind, &collect(mapped.tensors().unwrap()), &expected);
        if kind == "dataset" {
            continue;
        }

        // From a reader: the kind by content alone (a `.npz` bundle's first member is a
        // `.npy` file, FROSTT lines look like FROSTT).
        let bytes = std::fs::read(&path).unwrap();
        let input = Input::from_reader(std::io::Cursor::new(bytes.clone()), &options).unwrap();
        assert_eq!(input.kind(), file_kind, "{kind} from a reader");
        assert_eq!(input.name(), "standard input");
        let sequential = file_kind.is_sequential();
        assert_eq!(
            input.size(),
            (!sequential).then_some(bytes.len() as u64),
            "{kind}"
        );
        assert_eq!(
            input.path(),
            None,
            "{kind}: read into memory or as it comes"
        );
        check(kind, &collect(input.tensors().unwrap()), &expected);

        #[allow(unsafe_code)]
        // SAFETY: the temporary copy is not modified while read.
        let spooled = unsafe { Input::from_reader_mmap(std::io::Cursor::new(bytes), &options) }
            .unwrap()
            .with_name("a pipe");
        assert_eq!(spooled.name(), "a pipe");
        let copy = spooled.path().map(Path::to_path_buf);
        assert_eq!(
            copy.is_some(),
            !sequential,
            "{kind}: a copy unless read as it comes"
        );
        check(kind, &collect(spooled.tensors().unwrap()), &expected);
        if let Some(copy) = copy {
            assert!(
                !copy.exists(),
                "{kind}: the copy is removed with the tensors"
            );
        }
    }
}

#[test]
fn options_reach_the_readers() {
    // Matrix Market: the stored triangle, and the progress of the parse.
    let path = scratch("sym.mtx");
    let text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 5\n3 1 2\n";
    std::fs::write(&path, text).unwrap();
    let heard = std::sync::atomic::AtomicU64::new(0);
    let progress = |n: u64| heard.store(n, std::sync::atomic::Ordering::Relaxed);
    let options = InputOptions::default()
        .with_expand_symmetry(false)
        .with_progress(&progress);
    let tensors = Input::open(&path, &options).unwrap().tensors().unwrap();
    assert_eq!(tensors.consumed(), 0);
    let got = collect(tensors);
    assert_eq!(got[0].0.as_sparse().unwrap().nnz(), 2);
    assert_eq!(
        heard.load(std::sync::atomic::Ordering::Relaxed),
        text.len() as u64
    );
    let options = InputOptions::default();
    let got = collect(Input::open(&path, &options).unwrap().tensors().unwrap());
    assert_eq!(got[0].0.as_sparse().unwrap().nnz(), 3);

    // FROSTT: the shape.
    let path = scratch("t.tns");
    std::fs::write(&path, "1 2 1.5\n").unwrap();
    let options = InputOptions::default().with_shape(vec![4, 4]);
    let got = collect(Input::open(&path, &options).unwrap().tensors().unwrap());
    assert_eq!(got[0].0.as_sparse().unwrap().shape(), &[4, 4]);

    // Record batches: one tensor per row of a COO table is not a thing, but the column
    // named must exist.
    let (path, _, _) = file_of("ipc-file", "options");
    let options =
        InputOptions::default().with_batch_options(MessageOptions::default().with_column("nope"));
    let e = Input::open(&path, &options)
        .unwrap()
        .tensors()
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::InputTensorFailed { .. }),
        "{e}"
    );

    // Limits: a rank above the limit, on a tensor of a file and of a record batch.
    let limits = ReadOptions::default().with_limits(Limits::default().with_max_rank(1));
    let options = InputOptions::default().with_read_options(limits);
    for kind in ["npy", "parquet"] {
        let (path, _, _) = file_of(kind, "options");
        let e = first_error(Input::open(&path, &options).unwrap().tensors().unwrap());
        let ErrorKind::InputTensorFailed { source, .. } = e.kind() else {
            panic!("{kind}: {e}")
        };
        assert!(
            matches!(
                source.kind(),
                ErrorKind::LimitExceeded { .. } | ErrorKind::ColumnLimitExceeded { .. }
            ),
            "{kind}: {e}"
        );
    }
}

fn first_error(tensors: InputTensors<'_>) -> Error {
    let mut tensors = tensors;
    let e = tensors.find_map(Result::err).expect("an error");
    assert!(tensors.next().is_none(), "the tensors end after an error");
    e
}

#[test]
fn positions_are_reported() {
    // Tensor messages: each tensor at its offset; a cut message at its own, and what
    // follows the last message of a whole stream.
    let t = Tensor::from_vec(vec![2], vec![1i32, 2]).unwrap();
    let mut bytes = messages_bytes(&[t.clone().into(), t.into()]);
    let decoded: Vec<_> = MessageIter::new(bytes.clone(), &ReadOptions::strict())
        .map(|d| d.unwrap())
        .collect();
    let input = Input::from_reader(
        std::io::Cursor::new(bytes.clone()),
        &InputOptions::default(),
    );
    let mut tensors = input.unwrap().tensors().unwrap();
    for d in &decoded {
        let InputTensor::Decoded(m) = tensors.next().unwrap().unwrap() else {
            panic!("a message")
        };
        assert_eq!(m.offset, d.offset);
        assert_eq!(
            InputTensor::Decoded(m).origin().to_string(),
            format!("message at byte {}", d.offset)
        );
    }
    assert!(tensors.next().is_none());
    assert_eq!(
        tensors.consumed(),
        decoded.iter().map(|d| d.total_length()).sum::<u64>()
    );
    let ending = tensors.ending().unwrap().unwrap();
    assert_eq!((ending.end_marker, ending.trailing), (8, 0));

    bytes.truncate(decoded[1].offset as usize + 12);
    let input = Input::from_reader(std::io::Cursor::new(bytes), &InputOptions::default());
    let e = first_error(input.unwrap().tensors().unwrap());
    assert_eq!(
        e.position(),
        Some(Position::Message {
            offset: decoded[1].offset
        })
    );

    // A Matrix Market file: the line.
    let path = scratch("bad.mtx");
    std::fs::write(
        &path,
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n",
    )
    .unwrap();
    let e = first_error(
        Input::open(&path, &InputOptions::default())
            .unwrap()
            .tensors()
            .unwrap(),
    );
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InputTensorFailed {
                origin: TensorOrigin::File {
                    format: "Matrix Market"
                },
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.position(), Some(Position::File(Location::Line(3))));
    assert!(
        e.to_string()
            .starts_with("the Matrix Market file: Matrix Market line 3"),
        "{e}"
    );

    // An `.npz` bundle over the limits: the reader's own check, placed at the file; and a
    // member that is not an array, at the member.
    let (path, _, _) = file_of("bundle.npz", "positions");
    let limits = ReadOptions::default().with_limits(Limits::default().with_max_rank(1));
    let options = InputOptions::default().with_read_options(limits);
    let e = first_error(Input::open(&path, &options).unwrap().tensors().unwrap());
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InputTensorFailed {
                origin: TensorOrigin::File { format: "npz" },
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().starts_with("the npz file: "), "{e}");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(6).position(|w| w == b"\x93NUMPY").unwrap();
    bytes[at] = b'!';
    let cut = scratch("bad-member.npz");
    std::fs::write(&cut, &bytes).unwrap();
    let e = first_error(
        Input::open(&cut, &InputOptions::default())
            .unwrap()
            .tensors()
            .unwrap(),
    );
    assert!(
        matches!(e.position(), Some(Position::File(Location::Member(_)))),
        "{e}: {:?}",
        e.position()
    );

    // A COO table whose metadata claims a smaller shape than its coordinates: the batch
    // and the column.
    let batch = sparse_to_coo_table(&matrix()).unwrap();
    let mut meta = batch.schema().metadata().clone();
    meta.insert(
        COO_TABLE_KEY.to_string(),
        r#"{"shape":[2,2],"format":"COO","index_type":"int8"}"#.to_string(),
    );
    let schema = std::sync::Arc::new(batch.schema().as_ref().clone().with_metadata(meta));
    let lying =
        arrow_array::RecordBatch::try_new(schema.clone(), batch.columns().to_vec()).unwrap();
    let mut w = IpcWriter::new(Vec::new(), schema, &IpcWriteOptions::default()).unwrap();
    w.write(&lying).unwrap();
    let input = Input::from_reader(
        std::io::Cursor::new(w.finish().unwrap()),
        &InputOptions::default(),
    );
    let e = first_error(input.unwrap().tensors().unwrap());
    assert!(
        matches!(
            e.kind(),
            ErrorKind::InputTensorFailed {
                origin: TensorOrigin::Batch { batch: 0 },
                ..
            }
        ),
        "{e}"
    );
    assert!(
        matches!(e.position(), Some(Position::Batch { batch: Some(0), .. })),
        "{e}"
    );
    assert!(e.to_string().starts_with("record batch 0: "), "{e}");
}

/// What `open` and `from_reader` make of `bytes` (named `name`), read to the end: never a
/// panic; the first error, if any.
fn read_all(name: &str, bytes: &[u8]) -> Vec<Option<Error>> {
    let path = scratch(name);
    std::fs::write(&path, bytes).unwrap();
    let options = InputOptions::default();
    let read = |input: arrow_tensor_ipc::Result<Input<'_>>| -> Option<Error> {
        let tensors = match input.and_then(Input::tensors) {
            Ok(t) => t,
            Err(e) => return Some(e),
        };
        tensors.take(1000).find_map(Result::err)
    };
    vec![
        read(Input::open(&path, &options)),
        read(Input::from_reader(
            std::io::Cursor::new(bytes.to_vec()),
            &options,
        )),
    ]
}

#[test]
fn cut_inputs_are_errors() {
    for kind in [
        "arrows",
        "npy",
        "npz",
        "bundle.npz",
        "ipc-stream",
        "ipc-file",
        "parquet",
    ] {
        let (path, _, _) = file_of(kind, "cut");
        let bytes = std::fs::read(&path).unwrap();
        for cut in [bytes.len() - 1, bytes.len() / 2, 12] {
            for (i, e) in read_all(&format!("cut-{cut}.{kind}"), &bytes[..cut])
                .into_iter()
                .enumerate()
            {
                let e = e.unwrap_or_else(|| panic!("{kind} cut at {cut} ({i}): no error"));
                assert!(!e.to_string().is_empty());
            }
        }
    }
    // Text formats cut anywhere either parse or fail cleanly.
    for kind in ["mtx", "tns"] {
        let (path, _, _) = file_of(kind, "cut");
        let bytes = std::fs::read(&path).unwrap();
        for cut in 0..bytes.len() {
            read_all(&format!("cut.{kind}"), &bytes[..cut]);
        }
    }
}

#[test]
fn kinds_not_read_are_named() {
    let mut zip = b"PK\x03\x04".to_vec();
    zip.resize(26, 0);
    zip.extend_from_slice(&8u16.to_le_bytes());
    zip.extend_from_slice(&0u16.to_le_bytes());
    zip.extend_from_slice(b"data.csv");
    for (bytes, name) in [
        (&zip[..], "a zip archive without .npy members"),
        (b"\x89HDF\r\n\x1a\n\0\0\0\0", "a HDF5 file"),
        (b"\x1f\x8b\x08\0\0\0\0\0", "a gzip file"),
        (b"a,b\n1,2\n", "plain text"),
        (
            b"\x01\x02\x03\x04\x05\x06\x07\x08\x09",
            "unknown binary data",
        ),
    ] {
        for e in read_all("not-read.bin", bytes) {
            let e = e.expect("an error");
            let ErrorKind::UnsupportedKind { found, .. } = e.kind() else {
                panic!("{name}: {e}")
            };
            assert_eq!(found, name);
            assert!(
                e.to_string().contains("not a kind input::Input reads"),
                "{e}"
            );
        }
    }

    // A directory without a manifest, a missing path.
    let dir = scratch("no-manifest");
    std::fs::create_dir_all(&dir).unwrap();
    let e = Input::open(&dir, &InputOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnsupportedKind { .. }), "{e}");
    assert!(e.to_string().contains("_tensor.json"), "{e}");
    let e = Input::open(scratch("missing"), &InputOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InputIo { .. }), "{e}");
    assert!(e.to_string().starts_with("cannot open: "), "{e}");

    // A directory whose manifest is not one: the dataset reader's error, naming the file.
    std::fs::write(dir.join("_tensor.json"), "{not json").unwrap();
    let input = Input::open(&dir, &InputOptions::default()).unwrap();
    assert_eq!(input.kind(), FileKind::Dataset);
    let e = first_error(input.tensors().unwrap());
    assert!(matches!(e.kind(), ErrorKind::Dataset { .. }), "{e}");
    assert!(
        matches!(e.position(), Some(Position::DatasetFile { .. })),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Arbitrary bytes after the starts of every kind: an error or tensors, never a panic.
    #[test]
    fn arbitrary_inputs_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..2000),
        start in 0usize..8,
    ) {
        let starts: [&[u8]; 8] = [
            b"",
            &[0xFF, 0xFF, 0xFF, 0xFF],
            b"ARROW1\0\0",
            b"PAR1",
            b"PK\x03\x04",
            b"\x93NUMPY\x01\x00",
            b"%%MatrixMarket matrix coordinate real general\n",
            b"1 1 1.5\n",
        ];
        let mut input = starts[start].to_vec();
        input.extend_from_slice(&bytes);
        let options = InputOptions::default();
        if let Ok(opened) = Input::from_reader(std::io::Cursor::new(input), &options) {
            if let Ok(tensors) = opened.tensors() {
                for t in tensors.take(100) {
                    let _ = t.map(|t| t.origin());
                }
            }
        }
    }
}

/// An input and its tensors may move to another thread.
#[test]
fn inputs_are_send() {
    fn send<T: Send>() {}
    send::<Input<'static>>();
    send::<InputTensors<'static>>();
    send::<InputTensor>();
}
