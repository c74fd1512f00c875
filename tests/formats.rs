//! `formats::read_path` and `write_path`: every format by path, chosen by content first and
//! name second (`formats::detect`, `FileKind`) when read and by extension when written,
//! with the format-agnostic options mapped onto each format's; and the count of messages a
//! file of one tensor takes.

use arrow_tensor_ipc::formats::detect::{detect, FileKind};
use arrow_tensor_ipc::formats::{self, mtx};
use arrow_tensor_ipc::{
    CustomMetadata, ErrorKind, Limits, Message, SparseTensor, Tensor, Validation, NAME_KEY,
};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("formats-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn csr() -> SparseTensor {
    SparseTensor::csr(
        [3, 4],
        vec![0i32, 1, 1, 3],
        vec![2, 0, 3],
        vec![1.5f64, -2.0, 4.0],
    )
    .unwrap()
}

#[test]
fn every_format_round_trips_by_path() {
    let sparse = [Message::from(csr())];
    for name in ["m.mtx", "m.tns", "m.npy", "m.npz"] {
        let path = scratch(name);
        formats::write_path(&path, &sparse, &formats::FileWriteOptions::default()).unwrap();
        let back = formats::read_path(&path, &formats::FileReadOptions::default()).unwrap();
        assert_eq!(back.len(), 1, "{name}");
        let dense = match &back[0] {
            Message::Tensor(t) => t.clone(),
            Message::SparseTensor(s) => s.to_dense().unwrap(),
        };
        assert!(
            dense.content_eq(&csr().to_dense().unwrap()),
            "{name}: {dense:?}"
        );
    }
    // A bundle of named arrays.
    let a = Tensor::from_vec(vec![2], vec![1u8, 2]).unwrap();
    let named = [
        Message::from(a.clone()).with_custom_metadata(CustomMetadata::new([(NAME_KEY, "a")])),
        Message::from(a),
    ];
    let path = scratch("bundle.npz");
    let o = formats::FileWriteOptions::default().with_compressed(true);
    formats::write_path(&path, &named, &o).unwrap();
    let back = formats::read_path(&path, &formats::FileReadOptions::default()).unwrap();
    let names: Vec<_> = back.iter().map(|m| m.name().unwrap()).collect();
    assert_eq!(names, ["a", "arr_0"]);
}

#[test]
fn content_comes_before_the_extension() {
    // A .npy file named .mtx, a Matrix Market file named .tns: read by what they hold.
    let t = Tensor::from_vec(vec![2, 2], vec![1i32, 0, 0, 4]).unwrap();
    let npy = scratch("really-npy.mtx");
    let mut bytes = Vec::new();
    formats::npy::write(&[Message::from(t.clone())], &mut bytes, &Default::default()).unwrap();
    std::fs::write(&npy, &bytes).unwrap();
    let back = formats::read_path(&npy, &formats::FileReadOptions::default()).unwrap();
    assert!(back[0].as_tensor().unwrap().content_eq(&t));
    assert_eq!(detect(&bytes, None), FileKind::Npy);

    let mtx_path = scratch("really-mtx.tns");
    std::fs::write(
        &mtx_path,
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 2 4\n",
    )
    .unwrap();
    let back = formats::read_path(&mtx_path, &formats::FileReadOptions::default()).unwrap();
    assert_eq!(back[0].as_sparse().unwrap().nnz(), 1);

    // FROSTT has no magic: lines of coordinates and a value are FROSTT whatever the name.
    let frostt = scratch("entries.txt");
    std::fs::write(&frostt, "1 1 1\n2 3 -1\n").unwrap();
    let back = formats::read_path(&frostt, &formats::FileReadOptions::default()).unwrap();
    assert_eq!(back[0].as_sparse().unwrap().shape(), &[2, 3]);

    // Text in no format of the module is refused naming the path and the kind; so are
    // the crate's other kinds, and a path to write whose extension names no format.
    let unknown = scratch("data.txt");
    std::fs::write(&unknown, "a,b\n1,2\n").unwrap();
    let e = formats::read_path(&unknown, &formats::FileReadOptions::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnsupportedKind { .. }), "{e}");
    assert!(e.to_string().contains("data.txt (plain text)"), "{e}");
    let messages = scratch("m.arrows");
    let mut w = arrow_tensor_ipc::MessageWriter::new(Vec::new(), &Default::default());
    w.write(&Message::from(csr())).unwrap();
    std::fs::write(&messages, w.finish().unwrap()).unwrap();
    let e = formats::read_path(&messages, &formats::FileReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("tensor messages"), "{e}");
    for path in [unknown, scratch("m.parquet"), scratch("m.arrow")] {
        let e = formats::write_path(&path, &[], &formats::FileWriteOptions::default()).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::UnsupportedKind { .. }), "{e}");
    }
    assert!(!scratch("m.parquet").exists(), "nothing is created");
    for (name, kind, format_file) in [
        ("a.MTX", Some(FileKind::MatrixMarket), true),
        ("a.tns", Some(FileKind::Frostt), true),
        ("a.npy", Some(FileKind::Npy), true),
        ("a.npz", Some(FileKind::Npz), true),
        ("a.parquet", Some(FileKind::Parquet), false),
        ("a.feather", Some(FileKind::IpcFile), false),
        ("a.arrows", Some(FileKind::IpcStream), false),
        ("a", None, false),
    ] {
        let found = FileKind::from_extension(name.as_ref());
        assert_eq!(found, kind, "{name}");
        assert_eq!(
            found.is_some_and(FileKind::is_format_file),
            format_file,
            "{name}"
        );
    }
}

#[test]
fn agnostic_options_reach_the_format() {
    // Matrix Market: validation, symmetry expansion, limits; progress hears the bytes.
    let path = scratch("skew.mtx");
    let text = "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n1 1 5\n2 1 3\n";
    std::fs::write(&path, text).unwrap();
    assert!(formats::read_path(&path, &formats::FileReadOptions::default()).is_err());
    let heard = std::sync::atomic::AtomicU64::new(0);
    let progress = |n: u64| heard.store(n, std::sync::atomic::Ordering::Relaxed);
    let permissive = formats::FileReadOptions::default()
        .with_validation(Validation::Permissive)
        .with_progress(&progress);
    let m = formats::read_path(&path, &permissive).unwrap();
    assert_eq!(m[0].as_sparse().unwrap().nnz(), 3);
    assert_eq!(
        heard.load(std::sync::atomic::Ordering::Relaxed),
        text.len() as u64
    );
    let stored = permissive.clone().with_expand_symmetry(false);
    assert_eq!(
        formats::read_path(&path, &stored).unwrap()[0]
            .as_sparse()
            .unwrap()
            .nnz(),
        2
    );
    let limited = permissive.with_limits(Limits::default().with_max_nnz(2));
    let e = formats::read_path(&path, &limited).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");

    // FROSTT: the shape.
    let path = scratch("t.tns");
    std::fs::write(&path, "1 2 1.5\n").unwrap();
    let o = formats::FileReadOptions::default().with_shape(vec![4, 4]);
    assert_eq!(
        formats::read_path(&path, &o).unwrap()[0]
            .as_sparse()
            .unwrap()
            .shape(),
        &[4, 4]
    );

    // Writing: a symmetric Matrix Market file; .npy expands sparse under the limits.
    let sym = SparseTensor::coo([2, 2], vec![0i64, 1, 1, 0], vec![7.0f64, 7.0]).unwrap();
    let path = scratch("sym.mtx");
    let o = formats::FileWriteOptions::default().with_symmetry(mtx::Symmetry::Symmetric);
    formats::write_path(&path, &[Message::from(sym.clone())], &o).unwrap();
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("symmetric\n2 2 1\n"));
    let path = scratch("big.npy");
    let o = formats::FileWriteOptions::default()
        .with_limits(Limits::default().with_max_dense_elements(3));
    let e = formats::write_path(&path, &[Message::from(sym)], &o).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
}

#[test]
fn files_of_one_tensor_refuse_other_counts() {
    let two = [Message::from(csr()), Message::from(csr())];
    for (name, result) in [
        ("mtx", mtx::write(&two, Vec::new(), &Default::default())),
        (
            "tns",
            formats::tns::write(&[], Vec::new(), &Default::default()),
        ),
        (
            "npy",
            formats::npy::write(&two, Vec::new(), &Default::default()),
        ),
    ] {
        let e = result.unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::UnsupportedLayout { .. } | ErrorKind::Empty { .. }
            ),
            "{name}: {e}"
        );
    }
    // .npz: several sparse messages do not make a scipy bundle.
    let e = formats::npz::write(&two, std::io::Cursor::new(Vec::new()), &Default::default())
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::UnsupportedLayout { .. }),
        "{e}"
    );
}
