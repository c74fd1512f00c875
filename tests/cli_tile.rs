//! `arrow-tensor tile IN DIR` from every kind of input, `convert DIR OUT` back, and the
//! memory bound of tiling a text file far larger than `--memory`.

use arrow_tensor_ipc::dataset::{Dataset, DatasetReadOptions};
use arrow_tensor_ipc::formats::{self, read_path, write_path};
use arrow_tensor_ipc::{
    ConvertOptions, CsfAxisOrder, Message, MessageWriter, SparseFormat, SparseTensor, Tensor,
    WriteOptions,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_arrow-tensor");

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!(
            "arrow-tensor-tile-{tag}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The one tensor of a file the crate reads, as a dense tensor.
fn dense_of(path: &Path) -> Tensor {
    let ms = read_path(path, &formats::FileReadOptions::default()).unwrap();
    assert_eq!(ms.len(), 1);
    match &ms[0] {
        Message::Tensor(t) => t.clone(),
        Message::SparseTensor(t) => t.to_dense().unwrap(),
    }
}

fn messages_file(path: &Path, m: Message) {
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    w.write(&m).unwrap();
    std::fs::write(path, w.finish().unwrap()).unwrap();
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn random_coo(shape: &[usize], nnz: usize, seed: u64) -> SparseTensor {
    let mut rng = Lcg(seed);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..nnz {
        seen.insert(
            shape
                .iter()
                .map(|&d| (rng.next() % d as u64) as i64)
                .collect::<Vec<_>>(),
        );
    }
    let coords: Vec<i64> = seen.iter().flatten().copied().collect();
    let values: Vec<f64> = (0..seen.len()).map(|i| i as f64 - 7.25).collect();
    SparseTensor::coo(shape, coords, values).unwrap()
}

#[test]
fn text_files_round_trip_through_tiles() {
    let dir = TempDir::new("text");
    // Matrix Market, symmetric: the mirror entries are tiled too.
    let mtx = dir.join("a.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate real symmetric\n7 7 5\n1 1 1.5\n3 1 2\n7 4 3\n6 6 4\n7 2 -1\n",
    )
    .unwrap();
    for (tile, memory) in [
        ("3,3", "512M"),
        ("7,7", "1M"),
        ("2,5", "1M"),
        ("100,1", "4M"),
    ] {
        let ds = dir.join(&format!("mtx-{}", tile.replace(',', "x")));
        let line = ok(&[
            "tile",
            s(&mtx),
            s(&ds),
            "--tile-shape",
            tile,
            "--memory",
            memory,
        ]);
        assert!(line.contains("8 stored values of shape [7, 7]"), "{line}");
        let back = dir.join(&format!("back-{}.mtx", tile.replace(',', "x")));
        ok(&["convert", s(&ds), s(&back)]);
        assert!(dense_of(&back).content_eq(&dense_of(&mtx)), "{tile}");
    }
    // FROSTT, rank 3 and 4, with and without --shape.
    for (shape, tile) in [(&[9usize, 8, 7][..], "4,4,4"), (&[5, 6, 7, 3], "2,6,3,1")] {
        let t = random_coo(shape, 150, shape.len() as u64);
        let tns = dir.join(&format!("t{}.tns", shape.len()));
        write_path(
            &tns,
            &[t.clone().into()],
            &formats::FileWriteOptions::default(),
        )
        .unwrap();
        let shape_arg = shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(",");
        for with_shape in [false, true] {
            let ds = dir.join(&format!("tns-{}-{with_shape}", shape.len()));
            let mut args = vec![
                "tile",
                s(&tns),
                s(&ds),
                "--tile-shape",
                tile,
                "--threads",
                "2",
            ];
            if with_shape {
                args.extend(["--shape", &shape_arg]);
            }
            ok(&args);
            let d = Dataset::open(&ds, &DatasetReadOptions::default()).unwrap();
            // Without --shape the extent is the largest coordinates + 1.
            let back = d.read_all().unwrap();
            let expected = if with_shape {
                t.clone()
            } else {
                let extent = d.info().shape.clone();
                assert!(extent.iter().zip(shape).all(|(e, s)| e <= s));
                let coo = t
                    .to_format_with(SparseFormat::Coo, &ConvertOptions::default())
                    .unwrap();
                let arrow_tensor_ipc::SparseIndex::Coo(c) = coo.index() else {
                    unreachable!()
                };
                SparseTensor::try_new(
                    coo.value_type(),
                    extent,
                    coo.values_buffer().clone(),
                    arrow_tensor_ipc::SparseIndex::Coo(c.clone()),
                )
                .unwrap()
            };
            assert!(back
                .to_dense()
                .unwrap()
                .content_eq(&expected.to_dense().unwrap()));
        }
    }
}

#[test]
fn messages_npy_coo_tables_and_parquet_round_trip_in_their_layouts() {
    let dir = TempDir::new("messages");
    let coo = random_coo(&[40, 30], 200, 3);
    let o = ConvertOptions::default();
    let csf = random_coo(&[6, 7, 8], 100, 4)
        .to_format_with(
            SparseFormat::Csf,
            &ConvertOptions::default().with_axis_order(CsfAxisOrder::Explicit(vec![1, 2, 0])),
        )
        .unwrap();
    let cases: Vec<(&str, Message, &str)> = vec![
        ("coo", coo.clone().into(), "16,16"),
        (
            "csr",
            coo.to_format_with(SparseFormat::Csr, &o)
                .unwrap()
                .with_dim_names(["r", "c"])
                .unwrap()
                .into(),
            "7,30",
        ),
        (
            "csc",
            coo.to_format_with(SparseFormat::Csc, &o).unwrap().into(),
            "40,1",
        ),
        ("csf", csf.into(), "3,3,3"),
        ("dense", coo.to_dense().unwrap().into(), "16,16"),
    ];
    for (name, m, tile) in cases {
        let input = dir.join(&format!("{name}.arrow-tensor"));
        messages_file(&input, m.clone());
        let ds = dir.join(&format!("ds-{name}"));
        ok(&["tile", s(&input), s(&ds), "--tile-shape", tile]);
        let out = dir.join(&format!("{name}-back.arrow-tensor"));
        ok(&["convert", s(&ds), s(&out)]);
        let bytes = std::fs::read(&out).unwrap();
        let back: Vec<_> =
            arrow_tensor_ipc::MessageIter::new(bytes, &arrow_tensor_ipc::ReadOptions::strict())
                .collect::<Result<_, _>>()
                .unwrap();
        assert_eq!(back.len(), 1);
        let back = back[0].message.as_sparse().unwrap();
        let (format, dense) = match &m {
            Message::SparseTensor(t) => (t.format(), t.to_dense().unwrap()),
            Message::Tensor(t) => (SparseFormat::Coo, t.clone()),
        };
        assert_eq!(back.format(), format, "{name}");
        assert!(back.to_dense().unwrap().content_eq(&dense), "{name}");
        if let Message::SparseTensor(t) = &m {
            assert_eq!(back.dim_names(), t.dim_names(), "{name}");
        }
        // --to picks another layout.
        let dense_out = dir.join(&format!("{name}-dense.npy"));
        ok(&["convert", s(&ds), s(&dense_out), "--to", "dense"]);
        let got = dense_of(&dense_out);
        assert_eq!(got.shape(), dense.shape(), "{name}");
        assert_eq!(
            got.to_vec::<f64>().unwrap(),
            dense.to_vec::<f64>().unwrap(),
            "{name}"
        );
    }
    // .npy, a COO table as an IPC file and as Parquet.
    let dense = coo.to_dense().unwrap();
    let npy = dir.join("d.npy");
    write_path(
        &npy,
        &[dense.clone().into()],
        &formats::FileWriteOptions::default(),
    )
    .unwrap();
    let table = dir.join("t.arrow");
    ok(&[
        "convert",
        s(&dir.join("coo.arrow-tensor")),
        s(&table),
        "--format",
        "coo-table",
    ]);
    let parquet = dir.join("t.parquet");
    ok(&["convert", s(&dir.join("coo.arrow-tensor")), s(&parquet)]);
    for input in [npy, table, parquet] {
        let ds = dir.join(&format!(
            "ds-{}",
            input.extension().unwrap().to_str().unwrap()
        ));
        ok(&["tile", s(&input), s(&ds), "--tile-shape", "9,9"]);
        let back = dir.join(&format!(
            "back-{}.mtx",
            input.extension().unwrap().to_str().unwrap()
        ));
        ok(&["convert", s(&ds), s(&back)]);
        assert!(dense_of(&back).content_eq(&dense), "{input:?}");
    }
}

#[test]
fn tile_refuses_bad_arguments_and_names_the_problem() {
    let dir = TempDir::new("bad");
    let mtx = dir.join("a.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n",
    )
    .unwrap();
    let ds = dir.join("ds");
    for (args, want) in [
        (vec!["--tile-shape", "2"], "tile shape"),
        (vec!["--tile-shape", "2,0"], "tile shape"),
        (
            vec!["--tile-shape", "2,2", "--memory", "lots"],
            "not a size",
        ),
    ] {
        let mut a = vec!["tile", s(&mtx), s(&ds)];
        a.extend(args);
        let out = run(&a);
        assert_eq!(out.status.code(), Some(1), "{a:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{a:?}: {err}");
    }
    ok(&["tile", s(&mtx), s(&ds), "--tile-shape", "2,2"]);
    let out = run(&["tile", s(&mtx), s(&ds), "--tile-shape", "2,2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not empty"));
    // A second tensor message is refused.
    let two = dir.join("two.arrow-tensor");
    let t: Message = random_coo(&[3, 3], 3, 1).into();
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    w.write(&t).unwrap();
    w.write(&t).unwrap();
    std::fs::write(&two, w.finish().unwrap()).unwrap();
    let out = run(&["tile", s(&two), s(&dir.join("ds2")), "--tile-shape", "2,2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("second tensor"));
    // convert of a broken dataset names the file.
    let f = std::fs::read_dir(ds.join("tile_0=0/tile_1=0"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&f, b"PAR1PAR1").unwrap();
    let out = run(&["convert", s(&ds), s(&dir.join("x.mtx"))]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tile_0=0/tile_1=0/part-00000.parquet"),
        "{err}"
    );
}

/// Peak `RssAnon` (KiB) of a child process, sampled every 5 ms until it exits.
fn peak_rss_anon(mut child: std::process::Child) -> (std::process::ExitStatus, u64) {
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_path) {
            for line in text.lines() {
                if let Some(v) = line.strip_prefix("RssAnon:") {
                    let kib: u64 = v.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
                    peak = peak.max(kib);
                }
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status, peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn tiling_a_text_file_far_larger_than_the_budget_stays_under_it() {
    let dir = TempDir::new("memory");
    // A FROSTT file of about 50 MB: 2.4M entries of a 3000 x 3000 x 3000 tensor.
    let tns = dir.join("big.tns");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tns).unwrap());
        let mut rng = Lcg(11);
        let mut i = 0u64;
        while i < 2_400_000 {
            // Distinct coordinates: the entry number spread over the first two dimensions.
            let (a, b) = (i / 3000, i % 3000);
            let c = rng.next() % 3000;
            writeln!(
                f,
                "{} {} {} {}.{}",
                a + 1,
                b + 1,
                c + 1,
                rng.next() % 1000,
                rng.next() % 100
            )
            .unwrap();
            i += 1;
        }
    }
    let size = std::fs::metadata(&tns).unwrap().len();
    assert!(size > 45_000_000, "{size}");
    let ds = dir.join("ds");
    let child = Command::new(BIN)
        .args([
            "tile",
            s(&tns),
            s(&ds),
            "--tile-shape",
            "1000,1000,1000",
            "--memory",
            "16M",
            "--shape",
            "3000,3000,3000",
            "--threads",
            "2",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, peak_kib) = peak_rss_anon(child);
    assert!(status.success());
    // The budget plus a constant for the runtime, the parser's threads and the Parquet
    // encoders: 16 MiB + 16 MiB.
    let limit_kib = (16 + 16) * 1024;
    assert!(
        peak_kib < limit_kib,
        "peak RssAnon {peak_kib} KiB, limit {limit_kib} KiB"
    );
    let d = Dataset::open(&ds, &DatasetReadOptions::default()).unwrap();
    assert_eq!(d.manifest().nnz, 2_400_000);
    // Many flushes: several part files per tile.
    let files: usize = d.tiles().iter().map(|t| t.files.len()).sum();
    assert!(
        files > d.tiles().len(),
        "{files} files for {} tiles",
        d.tiles().len()
    );
    assert!(d.check_files().is_ok());
    eprintln!("peak RssAnon {peak_kib} KiB for a {size}-byte file, {files} files");
}
