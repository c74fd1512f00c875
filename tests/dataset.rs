//! The `dataset` module: round trips of every layout and rank through tiled datasets, and
//! every reader check of `docs/dataset-format.md` as a typed error naming the file.

#[path = "common/venv.rs"]
mod venv;
use arrow_tensor_ipc::dataset::{
    Dataset, DatasetReadOptions, DatasetWriteOptions, DatasetWriter, Manifest, MANIFEST_FILE,
};
use arrow_tensor_ipc::TensorInfo;
use arrow_tensor_ipc::{
    ConvertOptions, CsfAxisOrder, ErrorKind, IndexArray, Position, SparseFormat, SparseTensor,
    Tensor, Validation, ValueType,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!(
            "arrow-tensor-dataset-{tag}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        TempDir(p)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A deterministic pseudo-random sequence.
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

/// A COO tensor of `shape` with about `nnz` distinct random coordinates.
fn random_coo(shape: &[usize], nnz: usize, seed: u64) -> SparseTensor {
    let mut rng = Lcg(seed);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..nnz {
        let c: Vec<i64> = shape
            .iter()
            .map(|&s| (rng.next() % s as u64) as i64)
            .collect();
        seen.insert(c);
    }
    let coords: Vec<i64> = seen.iter().flatten().copied().collect();
    let values: Vec<f64> = (0..seen.len()).map(|i| i as f64 * 0.5 + 1.0).collect();
    SparseTensor::coo(shape, coords, values).unwrap()
}

fn write(dir: &Path, t: &SparseTensor, tile: &[usize], options: &DatasetWriteOptions) -> Manifest {
    let mut w = DatasetWriter::new(dir, &TensorInfo::of_sparse(t), tile, options).unwrap();
    w.write_sparse(t).unwrap();
    w.finish().unwrap()
}

fn open(dir: &Path) -> Dataset {
    Dataset::open(dir, &DatasetReadOptions::default()).unwrap()
}

#[test]
fn coo_round_trips_rank_1_to_4_with_ragged_tiles() {
    let cases: [(&[usize], &[usize]); 6] = [
        (&[100], &[7]),
        (&[30, 41], &[8, 10]),
        (&[30, 41], &[30, 41]),   // one tile
        (&[30, 41], &[100, 100]), // one tile larger than the tensor
        (&[9, 10, 11], &[4, 3, 5]),
        (&[5, 6, 7, 8], &[2, 4, 3, 8]),
    ];
    for (k, (shape, tile)) in cases.into_iter().enumerate() {
        let t = random_coo(shape, 200, k as u64 + 1);
        let dir = TempDir::new("coo");
        let m = write(dir.path(), &t, tile, &DatasetWriteOptions::default());
        assert_eq!(m.nnz, t.nnz() as u64);
        let grid: Vec<usize> = shape
            .iter()
            .zip(tile)
            .map(|(s, t)| s.div_ceil(*t))
            .collect();
        assert_eq!(m.grid, grid);
        let d = open(dir.path());
        let back = d.read_all().unwrap();
        assert_eq!(back.format(), SparseFormat::Coo);
        assert!(
            back.to_dense().unwrap().content_eq(&t.to_dense().unwrap()),
            "{shape:?} {tile:?}"
        );
        // Every tile read locally equals the slice of the dense tensor.
        let dense = t.to_dense().unwrap();
        let mut total = 0;
        for entry in d.tiles() {
            let tile_t = d.read_tile(&entry.tile).unwrap();
            assert_eq!(tile_t.nnz() as u64, entry.nnz);
            total += tile_t.nnz();
            for nz in tile_t.iter().unwrap() {
                let global: Vec<usize> = nz
                    .coords
                    .iter()
                    .zip(&entry.tile)
                    .zip(tile.iter())
                    .map(|((c, i), t)| c + i * t)
                    .collect();
                assert_eq!(dense.get(&global).unwrap(), nz.value);
            }
        }
        assert_eq!(total, t.nnz());
    }
}

#[test]
fn csr_csc_csf_and_dense_come_back_in_their_layouts() {
    let coo = random_coo(&[37, 23], 300, 7);
    let o = ConvertOptions::default();
    for format in [SparseFormat::Csr, SparseFormat::Csc] {
        let t = coo
            .to_format_with(format, &o)
            .unwrap()
            .with_dim_names(["r", "c"])
            .unwrap();
        let dir = TempDir::new("csx");
        write(dir.path(), &t, &[10, 6], &DatasetWriteOptions::default());
        let back = open(dir.path()).read_all().unwrap();
        assert_eq!(back.format(), format);
        assert_eq!(back.dim_names(), ["r", "c"]);
        assert!(back.to_dense().unwrap().content_eq(&t.to_dense().unwrap()));
    }
    let coo3 = random_coo(&[8, 9, 10], 150, 9);
    let csf = coo3
        .to_format_with(
            SparseFormat::Csf,
            &ConvertOptions::default().with_axis_order(CsfAxisOrder::Explicit(vec![2, 0, 1])),
        )
        .unwrap();
    let dir = TempDir::new("csf");
    let m = write(
        dir.path(),
        &csf,
        &[3, 3, 3],
        &DatasetWriteOptions::default(),
    );
    assert_eq!(m.info.axis_order, Some(vec![2, 0, 1]));
    let back = open(dir.path()).read_all().unwrap();
    assert_eq!(back.format(), SparseFormat::Csf);
    match back.index() {
        arrow_tensor_ipc::SparseIndex::Csf(c) => assert_eq!(c.axis_order(), [2, 0, 1]),
        _ => panic!("not CSF"),
    }
    assert!(back
        .to_dense()
        .unwrap()
        .content_eq(&coo3.to_dense().unwrap()));

    // Dense: only the non-zeros are stored, the layout recorded is COO.
    let data: Vec<i32> = (0..60).map(|i| if i % 7 == 0 { i } else { 0 }).collect();
    let dense = Tensor::from_vec(vec![6, 10], data)
        .unwrap()
        .with_dim_names(["y", "x"])
        .unwrap();
    let dir = TempDir::new("dense");
    let mut w = DatasetWriter::new(
        dir.path(),
        &TensorInfo::of_dense(&dense),
        [4, 4],
        &DatasetWriteOptions::default(),
    )
    .unwrap();
    w.write_dense(&dense).unwrap();
    let m = w.finish().unwrap();
    assert_eq!(m.nnz, 8); // 7, 14, ..., 56 (0 is a zero)
    let back = open(dir.path()).read_all().unwrap();
    assert_eq!(back.format(), SparseFormat::Coo);
    assert!(back
        .to_dense()
        .unwrap()
        .content_eq(&dense.clone().with_dim_names(["y", "x"]).unwrap()));
}

#[test]
fn a_tiny_budget_writes_many_parts_per_tile_and_empty_tiles_have_no_files() {
    // Entries only in the left half: the right tiles are empty.
    let mut coords = Vec::new();
    let mut values = Vec::new();
    for r in 0..400i64 {
        for c in 0..250i64 {
            coords.extend([r, c]);
            values.push((r * 1000 + c) as f32);
        }
    }
    let t = SparseTensor::coo([400, 500], coords.clone(), values.clone()).unwrap();
    let dir = TempDir::new("tiny");
    let info = TensorInfo::of_sparse(&t);
    let options = DatasetWriteOptions::default()
        .with_memory(1 << 20)
        .with_threads(2);
    let mut w = DatasetWriter::new(dir.path(), &info, [200, 250], &options).unwrap();
    // Entries in pieces, in reverse order: the writer sorts within each file.
    for (cs, vs) in coords.chunks(2 * 7001).rev().zip(values.chunks(7001).rev()) {
        let bytes: Vec<u8> = vs.iter().flat_map(|v| v.to_le_bytes()).collect();
        w.write_entries(&IndexArray::from_slice(cs), &bytes)
            .unwrap();
    }
    let m = w.finish().unwrap();
    assert_eq!(m.nnz, 100_000);
    assert_eq!(m.tiles.len(), 2, "only the two left tiles hold values");
    assert!(m.tiles.iter().all(|t| t.tile[1] == 0));
    assert!(m.tiles.iter().any(|t| t.files.len() > 1), "{m:?}");
    let d = open(dir.path());
    let empty = d.read_tile(&[1, 1]).unwrap();
    assert_eq!((empty.nnz(), empty.shape()), (0, &[200usize, 250][..]));
    assert!(d
        .read_all()
        .unwrap()
        .to_dense()
        .unwrap()
        .content_eq(&t.to_dense().unwrap()));
    // Rows within each file are in row-major order.
    for tile in d.tiles() {
        for batch in d.tile_batches(&tile.tile).unwrap() {
            let b = batch.unwrap();
            let r = b
                .column(0)
                .as_any()
                .downcast_ref::<arrow_array::Int16Array>()
                .unwrap();
            let c = b
                .column(1)
                .as_any()
                .downcast_ref::<arrow_array::Int16Array>()
                .unwrap();
            for i in 1..b.num_rows() {
                assert!((r.value(i - 1), c.value(i - 1)) < (r.value(i), c.value(i)));
            }
        }
    }
}

#[test]
fn the_writer_refuses_bad_setups_and_duplicates() {
    let dir = TempDir::new("refuse");
    for (names, reserved) in [(["tile_1", "x"], "tile_1"), (["x", "tile_12"], "tile_12")] {
        let info = TensorInfo::new([4, 4], ValueType::Float64).with_dim_names(names);
        let e = DatasetWriter::new(dir.path(), &info, [2, 2], &DatasetWriteOptions::default())
            .err()
            .unwrap();
        assert!(
            matches!(e.kind(), ErrorKind::ReservedName { what: "dimension name", name, .. }
                if name == reserved),
            "{e}"
        );
    }
    let info = TensorInfo::new([4, 4], ValueType::Float64).with_dim_names(["x"]);
    let e = DatasetWriter::new(dir.path(), &info, [2, 2], &DatasetWriteOptions::default())
        .err()
        .unwrap();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 2,
                found: 1,
                ..
            }
        ),
        "{e}"
    );
    let info = TensorInfo::new([4, 4], ValueType::Float64).with_dim_names(["x", "x"]);
    let e = DatasetWriter::new(dir.path(), &info, [2, 2], &DatasetWriteOptions::default())
        .err()
        .unwrap();
    assert!(matches!(e.kind(), ErrorKind::DuplicateName { .. }), "{e}");
    let info = TensorInfo::new([4, 4], ValueType::Float64);
    let e = DatasetWriter::new(dir.path(), &info, [0, 2], &DatasetWriteOptions::default())
        .err()
        .unwrap();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::OutOfRange { what, value: 0, min: 1, max: i64::MAX }
                if what == "the extent of dimension 0 of tile shape [0, 2]"
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "the extent of dimension 0 of tile shape [0, 2] is 0, below the minimum of 1"
    );
    let e = DatasetWriter::new(dir.path(), &info, [2], &DatasetWriteOptions::default())
        .err()
        .unwrap();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 2,
                found: 1,
                ..
            }
        ),
        "{e}"
    );
    let scalar = TensorInfo::new(Vec::<usize>::new(), ValueType::Float64);
    let e = DatasetWriter::new(
        dir.path(),
        &scalar,
        [0usize; 0],
        &DatasetWriteOptions::default(),
    )
    .err()
    .unwrap();
    assert!(
        matches!(e.kind(), ErrorKind::InvalidRank { rank: 0, .. }),
        "{e}"
    );
    let mut w =
        DatasetWriter::new(dir.path(), &info, [2, 2], &DatasetWriteOptions::default()).unwrap();
    let out = w.write_entries(&IndexArray::from_vec(vec![1i32, 4]), &1f64.to_le_bytes());
    assert!(matches!(
        out.unwrap_err().kind(),
        ErrorKind::CoordinateOutOfRange { .. }
    ));
    w.write_entries(
        &IndexArray::from_vec(vec![1i32, 1, 1, 1]),
        &[1f64.to_le_bytes(), 2f64.to_le_bytes()].concat(),
    )
    .unwrap();
    let e = w.finish().unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::DuplicateCoordinate { first: 0, second: 1, coords } if coords == &[1, 1]
        ),
        "{e}"
    );
    // A non-empty directory is refused.
    std::fs::write(dir.path().join("x"), b"x").unwrap();
    let e = DatasetWriter::new(dir.path(), &info, [2, 2], &DatasetWriteOptions::default())
        .err()
        .unwrap();
    assert!(
        matches!(e.kind(), ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::DirectoryNotEmpty),
        "{e}"
    );
    assert!(e.to_string().contains("not empty"), "{e}");
}

/// A written dataset to break: a 20 x 30 float64 matrix in tiles of 8 x 8.
fn sample(tag: &str) -> (TempDir, SparseTensor, Manifest) {
    let t = random_coo(&[20, 30], 120, 42)
        .with_dim_names(["a", "b"])
        .unwrap();
    let dir = TempDir::new(tag);
    let m = write(dir.path(), &t, &[8, 8], &DatasetWriteOptions::default());
    (dir, t, m)
}

fn manifest_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(MANIFEST_FILE)).unwrap()
}

fn set_manifest(dir: &Path, text: &str) {
    std::fs::write(dir.join(MANIFEST_FILE), text).unwrap();
}

/// The error of opening and reading the whole dataset.
fn read_error(dir: &Path, options: &DatasetReadOptions) -> arrow_tensor_ipc::Error {
    match Dataset::open(dir, options) {
        Err(e) => e,
        Ok(d) => d.read_all().expect_err("the dataset reads without error"),
    }
}

/// Asserts a dataset error naming `file` (and `row` when given).
fn assert_names(e: &arrow_tensor_ipc::Error, file: &str, row: Option<u64>) {
    match e.position() {
        Some(Position::DatasetFile { file: f, row: r }) => {
            assert_eq!(f, file, "{e}");
            if row.is_some() {
                assert_eq!(r, row, "{e}");
            }
        }
        other => panic!("{e}: position {other:?}"),
    }
    assert!(e.to_string().contains(file), "{e}");
}

#[test]
fn missing_extra_and_truncated_files_are_named() {
    let (dir, _, m) = sample("missing");
    let first = m.tiles[0].files[0].path.clone();
    std::fs::remove_file(dir.path().join(&first)).unwrap();
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    assert!(matches!(e.kind(), ErrorKind::Dataset { .. }));
    assert_names(&e, &first, None);

    let (dir, _, _) = sample("extra");
    let extra = "tile_0=9/tile_1=0/part-00000.parquet";
    std::fs::create_dir_all(dir.path().join("tile_0=9/tile_1=0")).unwrap();
    std::fs::write(dir.path().join(extra), b"PAR1").unwrap();
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    assert_names(&e, extra, None);
    assert!(e.to_string().contains("does not list"), "{e}");

    let (dir, _, m) = sample("truncated");
    let f = m.tiles[1].files[0].path.clone();
    let bytes = std::fs::read(dir.path().join(&f)).unwrap();
    for cut in [bytes.len() - 3, bytes.len() / 2, 10] {
        std::fs::write(dir.path().join(&f), &bytes[..cut]).unwrap();
        let e = read_error(dir.path(), &DatasetReadOptions::default());
        assert!(matches!(e.kind(), ErrorKind::DatasetFile { .. }), "{e}");
        assert_names(&e, &f, None);
        // Reading that one tile fails alike.
        let d = open(dir.path());
        let e = d.read_tile(&m.tiles[1].tile).unwrap_err();
        assert_names(&e, &f, None);
    }
    // No manifest: an unfinished write.
    std::fs::remove_file(dir.path().join(MANIFEST_FILE)).unwrap();
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    assert_names(&e, MANIFEST_FILE, None);
}

#[test]
fn bad_manifests_are_refused_naming_the_manifest() {
    let (dir, _, _) = sample("manifest");
    let good = manifest_text(dir.path());
    let edits: Vec<(String, &str)> = vec![
        ("{not json".into(), "not JSON"),
        ("[1, 2]".into(), "not a JSON object"),
        (good.replace("\"grid\":[3,4]", "\"grid\":[3,5]"), "grid"),
        (good.replacen("\"nnz\":", "\"nnz\":1", 1), "nnz"),
        (
            good.replace("\"value_type\":\"float64\"", "\"value_type\":\"float128\""),
            "value_type",
        ),
        (
            good.replace("\"tile_shape\":[8,8]", "\"tile_shape\":[8,0]"),
            "tile_shape",
        ),
        (
            good.replacen("\"path\":\"", "\"path\":\"../", 1),
            "leaves the dataset",
        ),
        (
            good.replacen("\"path\":\"", "\"path\":\"/tmp/", 1),
            "relative",
        ),
        (
            good.replace(
                "\"arrow_tensor_ipc_dataset\":1",
                "\"arrow_tensor_ipc_dataset\":7",
            ),
            "version",
        ),
    ];
    for (text, what) in edits {
        set_manifest(dir.path(), &text);
        let e = Dataset::open(dir.path(), &DatasetReadOptions::default()).unwrap_err();
        assert_names(&e, MANIFEST_FILE, None);
        assert!(e.to_string().contains(what), "{what}: {e}");
    }
    // A tile listed twice.
    let m = Manifest::parse(&good, &Default::default(), 100).unwrap();
    let mut twice = m.clone();
    twice.tiles.insert(1, m.tiles[0].clone());
    set_manifest(dir.path(), &twice.to_json());
    let e = Dataset::open(dir.path(), &DatasetReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
    // Limits: more files than allowed.
    set_manifest(dir.path(), &good);
    let e =
        Dataset::open(dir.path(), &DatasetReadOptions::default().with_max_files(2)).unwrap_err();
    assert_names(&e, MANIFEST_FILE, None);
}

#[test]
fn files_that_disagree_with_the_manifest_are_named() {
    let (dir, _, m) = sample("disagree");
    let good = manifest_text(dir.path());
    let f0 = m.tiles[0].files[0].path.clone();
    // Another shape (same grid): every file's metadata disagrees.
    set_manifest(
        dir.path(),
        &good.replace("\"shape\":[20,30]", "\"shape\":[19,30]"),
    );
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    assert_names(&e, &f0, None);
    assert!(e.to_string().contains("shape"), "{e}");
    // Other names.
    set_manifest(dir.path(), &good.replace("[\"a\",\"b\"]", "[\"a\",\"c\"]"));
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    assert_names(&e, &f0, None);
    // Another value type.
    set_manifest(dir.path(), &good.replace("\"float64\"", "\"float32\""));
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    assert_names(&e, &f0, None);
    // A row count that differs.
    let mut wrong = Manifest::parse(&good, &Default::default(), 100).unwrap();
    wrong.tiles[0].files[0].nnz += 1;
    wrong.tiles[0].nnz += 1;
    wrong.nnz += 1;
    set_manifest(dir.path(), &wrong.to_json());
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    assert_names(&e, &f0, None);
    assert!(e.to_string().contains("rows"), "{e}");
    // A file moved to another tile's place: its metadata names its own tile.
    let mut swapped = Manifest::parse(&good, &Default::default(), 100).unwrap();
    let (a, b) = (swapped.tiles[0].clone(), swapped.tiles[1].clone());
    swapped.tiles[0].files = b.files.clone();
    swapped.tiles[0].nnz = b.nnz;
    swapped.tiles[1].files = a.files.clone();
    swapped.tiles[1].nnz = a.nnz;
    set_manifest(dir.path(), &swapped.to_json());
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    assert!(matches!(e.kind(), ErrorKind::Dataset { .. }), "{e}");
    assert!(e.to_string().contains("tile"), "{e}");
}

#[test]
fn a_tile_outside_the_grid_is_a_coordinate_out_of_range() {
    let dir = TempDir::new("grid");
    let info = TensorInfo::new([4, 4], ValueType::Float64);
    let t = SparseTensor::coo([2, 2], vec![0i64, 1], vec![1.0f64]).unwrap();
    let mut w =
        DatasetWriter::new(dir.path(), &info, [2, 2], &DatasetWriteOptions::default()).unwrap();
    for tile in [&[2, 0][..], &[0][..]] {
        let e = w.write_tile(tile, &t).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::CoordinateOutOfRange { coords, shape }
                if coords == tile && shape == &[2, 2]),
            "{e}"
        );
    }
    w.write_tile(&[1, 1], &t).unwrap();
    w.finish().unwrap();
    let d = Dataset::open(dir.path(), &DatasetReadOptions::default()).unwrap();
    assert_eq!(d.tile_shape_of(&[1, 1]).unwrap(), [2, 2]);
    let e = d.tile_shape_of(&[0, 2]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::CoordinateOutOfRange { coords, shape }
            if coords == &[0, 2] && shape == &[2, 2]),
        "{e}"
    );
}

#[test]
fn a_row_outside_its_tile_is_named_with_its_row() {
    // A file written by hand that claims tile (0, 0) of a 4 x 4 grid of 2 x 2 tiles but
    // holds (1, 3) in its third row.
    let dir = TempDir::new("outside");
    let info = TensorInfo::new([4, 4], ValueType::Float64);
    let t = SparseTensor::coo([2, 2], vec![0i64, 0, 0, 1, 1, 0], vec![1.0f64, 2.0, 3.0]).unwrap();
    let mut w =
        DatasetWriter::new(dir.path(), &info, [2, 2], &DatasetWriteOptions::default()).unwrap();
    w.write_tile(&[0, 0], &t).unwrap();
    let m = w.finish().unwrap();
    let f = m.tiles[0].files[0].path.clone();
    // Rewrite the file with the same schema and one coordinate outside.
    let bytes = std::fs::read(dir.path().join(&f)).unwrap();
    let mut read =
        arrow_tensor_ipc::record_batch::ParquetBatches::new(bytes, &Default::default()).unwrap();
    let batch = read.next().unwrap().unwrap();
    let cols = batch.columns();
    let c1 = arrow_array::Int8Array::from(vec![0i8, 1, 3]);
    let b = arrow_array::RecordBatch::try_new(
        batch.schema(),
        vec![cols[0].clone(), std::sync::Arc::new(c1), cols[2].clone()],
    )
    .unwrap();
    let mut pw = arrow_tensor_ipc::record_batch::ParquetWriter::new(
        std::fs::File::create(dir.path().join(&f)).unwrap(),
        batch.schema(),
        &Default::default(),
    )
    .unwrap();
    pw.write(&b).unwrap();
    pw.finish().unwrap();
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    assert_names(&e, &f, Some(2));
    assert!(e.to_string().contains("outside"), "{e}");
}

#[test]
fn a_coordinate_stored_twice_is_found_under_strict_validation() {
    let (dir, t, m) = sample("twice");
    // A copy of a file listed as a second part of its tile.
    let f0 = m.tiles[0].files[0].clone();
    let copy = f0.path.replace("part-00000", "part-00001");
    std::fs::copy(dir.path().join(&f0.path), dir.path().join(&copy)).unwrap();
    let mut twice = m.clone();
    let mut extra = f0.clone();
    extra.path = copy;
    twice.tiles[0].files.push(extra);
    twice.tiles[0].nnz += f0.nnz;
    twice.nnz += f0.nnz;
    set_manifest(dir.path(), &twice.to_json());
    let e = read_error(dir.path(), &DatasetReadOptions::default());
    // The first row of the copy repeats the first row of the original.
    assert_names(&e, &twice.tiles[0].files[1].path, Some(0));
    assert!(e.to_string().contains("a second time"), "{e}");
    let e = open(dir.path()).read_tile(&m.tiles[0].tile).unwrap_err();
    assert_names(&e, &twice.tiles[0].files[1].path, Some(0));
    // Permissive: the entries come back (a COO tensor with duplicates sums them).
    let d = Dataset::open(
        dir.path(),
        &DatasetReadOptions::default().with_validation(Validation::Permissive),
    )
    .unwrap();
    let back = d
        .read_all_as(SparseFormat::Coo, &ConvertOptions::default())
        .unwrap();
    assert_eq!(back.nnz(), t.nnz() + f0.nnz as usize);
}

#[test]
fn pyarrow_reads_all_files_as_one_table() {
    let python = venv::python();
    let t = random_coo(&[50, 40, 30], 2000, 5)
        .with_dim_names(["i", "j", "k"])
        .unwrap();
    let dir = TempDir::new("pyarrow");
    let m = write(
        dir.path(),
        &t,
        &[16, 16, 16],
        &DatasetWriteOptions::default().with_memory(1 << 20),
    );
    let expected: Vec<String> = t
        .iter()
        .unwrap()
        .map(|nz| {
            format!(
                "{},{},{},{}",
                nz.coords[0],
                nz.coords[1],
                nz.coords[2],
                nz.value.as_f64()
            )
        })
        .collect();
    let script = r#"
import sys, json, glob, pyarrow.dataset as ds, pyarrow.parquet as pq
root = sys.argv[1]
files = sorted(glob.glob(root + "/**/*.parquet", recursive=True))
table = ds.dataset(root, format="parquet", partitioning="hive").to_table()
meta = pq.read_schema(files[0]).metadata
info = json.loads(meta[b"arrow_tensor_ipc.sparse_tensor"])
tile = json.loads(meta[b"arrow_tensor_ipc.tile"])
rows = sorted(zip(*(table.column(n).to_pylist() for n in ["i", "j", "k", "value"])))
print(len(files), info["shape"], tile["grid"], table.schema.names)
for r in rows:
    print("%d,%d,%d,%r" % r)
"#;
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let files: usize = m.tiles.iter().map(|t| t.files.len()).sum();
    assert_eq!(
        lines.next().unwrap(),
        format!(
            "{files} [50, 40, 30] [4, 3, 2] ['i', 'j', 'k', 'value', 'tile_0', 'tile_1', 'tile_2']"
        )
    );
    let got: Vec<String> = lines.map(str::to_string).collect();
    let mut want = expected;
    want.sort_by_key(|s| {
        s.split(',')
            .take(3)
            .map(|x| x.parse::<i64>().unwrap())
            .collect::<Vec<_>>()
    });
    let want: Vec<String> = want
        .into_iter()
        .map(|s| {
            let mut p: Vec<&str> = s.split(',').collect();
            let v: f64 = p[3].parse().unwrap();
            let v = format!("{v:?}");
            p[3] = &v;
            p.join(",")
        })
        .collect();
    assert_eq!(got, want);
}

/// A dataset writer is a `BatchWriter`: COO-table batches of global coordinates (any
/// integer width, any order) written through the trait make the dataset that
/// `write_sparse` makes of the same tensor, and bad batches are refused by name.
#[test]
fn coo_table_batches_written_through_the_batch_writer_trait() {
    use arrow_array::{ArrayRef, Float64Array, Int16Array, Int64Array, RecordBatch};
    use arrow_tensor_ipc::record_batch::BatchWriter;
    use std::sync::Arc;
    let t = random_coo(&[40, 30], 300, 7);
    let dir = TempDir::new("batch-writer");
    let w = DatasetWriter::new(
        dir.path(),
        &TensorInfo::of_sparse(&t),
        [16, 16],
        &DatasetWriteOptions::default(),
    )
    .unwrap();
    let schema = w.schema().clone();
    let mut w: Box<dyn BatchWriter> = Box::new(w);
    assert_eq!(w.schema(), &schema);
    let arrow_tensor_ipc::SparseIndex::Coo(index) = t.index() else {
        panic!("a COO tensor")
    };
    let coords: Vec<i64> = index.indices().values::<i64>().unwrap().to_vec();
    let values = t.values::<f64>().unwrap();
    // Two batches, the second first, rows reversed; coordinates as int16 and int64.
    let half = values.len() / 2;
    for range in [half..values.len(), 0..half] {
        let rows: Vec<usize> = range.rev().collect();
        let coords = &coords;
        let row_col = |d: usize| rows.iter().map(move |&r| coords[r * 2 + d]);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int16Array::from_iter_values(row_col(0).map(|x| x as i16))),
            Arc::new(Int64Array::from_iter_values(row_col(1))),
            Arc::new(Float64Array::from_iter_values(
                rows.iter().map(|&r| values[r]),
            )),
        ];
        let batch = RecordBatch::try_from_iter(
            schema
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .zip(columns),
        )
        .unwrap();
        w.write(&batch).unwrap();
    }
    // Two columns for a rank-2 tensor: refused, naming the count.
    let short =
        RecordBatch::try_from_iter([("x", Arc::new(Int64Array::from(vec![1i64])) as ArrayRef)])
            .unwrap();
    let e = w.write(&short).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CountMismatch {
                expected: 3,
                found: 1,
                ..
            }
        ),
        "{e}"
    );
    w.close().unwrap();
    let back = open(dir.path()).read_all().unwrap();
    assert_eq!(back.nnz(), t.nnz());
    assert!(back.to_dense().unwrap().content_eq(&t.to_dense().unwrap()));
}

#[test]
fn independent_writers_of_one_tile_each_and_one_manifest() {
    let t = random_coo(&[50, 40], 300, 7)
        .with_dim_names(["r", "c"])
        .unwrap();
    let info = TensorInfo::of_sparse(&t);
    let dir = TempDir::new("for-tiles");
    let tile_shape = [16usize, 16];
    // One writer per tile, as the tasks of a cluster: each writes its tile's entries in
    // local coordinates; the tiles they return make the manifest.
    let reference = write(
        TempDir::new("for-tiles-ref").path(),
        &t,
        &tile_shape,
        &DatasetWriteOptions::default(),
    );
    let whole = TempDir::new("for-tiles-whole");
    write(
        whole.path(),
        &t,
        &tile_shape,
        &DatasetWriteOptions::default(),
    );
    let source = open(whole.path());
    let mut tiles = Vec::new();
    for entry in reference.tiles.iter().rev() {
        let local = source.read_tile(&entry.tile).unwrap();
        let mut w = DatasetWriter::for_tiles(
            dir.path(),
            &info,
            tile_shape,
            &DatasetWriteOptions::default(),
        )
        .unwrap();
        w.write_tile(&entry.tile, &local).unwrap();
        tiles.extend(w.finish_tiles().unwrap());
    }
    assert!(!dir.path().join(MANIFEST_FILE).exists());
    let manifest = Manifest::from_tiles(&info, &tile_shape, tiles.clone()).unwrap();
    assert_eq!(manifest, reference);
    manifest.write(dir.path()).unwrap();
    let back = open(dir.path()).read_all().unwrap();
    assert!(back.to_dense().unwrap().content_eq(&t.to_dense().unwrap()));

    // A tile outside the grid, or written twice, is refused naming the manifest.
    let mut twice = tiles.clone();
    twice.push(tiles[0].clone());
    let e = Manifest::from_tiles(&info, &tile_shape, twice).unwrap_err();
    assert_names(&e, MANIFEST_FILE, None);
    let outside = arrow_tensor_ipc::dataset::TileEntry::new(
        vec![4, 0],
        vec![arrow_tensor_ipc::dataset::FileEntry::new(
            "tile_0=4/tile_1=0/part-00000.parquet",
            1,
        )],
    );
    let e = Manifest::from_tiles(&info, &tile_shape, [outside]).unwrap_err();
    assert_names(&e, MANIFEST_FILE, None);
    assert!(e.to_string().contains("outside the grid"), "{e}");
}

#[test]
fn one_tile_is_read_with_the_manifest_of_that_tile_alone() {
    let (dir, t, m) = sample("for-tile");
    let tile = m.tiles[1].tile.clone();
    let one = m.for_tile(&tile);
    assert_eq!(one.tiles, [m.tiles[1].clone()]);
    assert_eq!(one.nnz, m.tiles[1].nnz);
    // The manifest of one tile is a manifest: it parses back as it is.
    let text = one.to_json();
    let parsed = Manifest::parse(&text, &Default::default(), 16).unwrap();
    assert_eq!(parsed, one);
    // The other tiles' files are not needed.
    std::fs::remove_file(dir.path().join(&m.tiles[0].files[0].path)).unwrap();
    let d = Dataset::with_manifest(dir.path(), parsed, &DatasetReadOptions::default()).unwrap();
    let got = d.read_tile(&tile).unwrap();
    let want = Dataset::with_manifest(dir.path(), m.clone(), &DatasetReadOptions::default());
    assert!(want.is_err(), "the whole manifest lists the removed file");
    assert_eq!(got.nnz() as u64, m.tiles[1].nnz);
    let origin: Vec<usize> = tile.iter().map(|&i| i * 8).collect();
    for e in got.iter().unwrap() {
        let global: Vec<usize> = e.coords.iter().zip(&origin).map(|(c, o)| c + o).collect();
        assert_eq!(t.get(&global).unwrap(), e.value);
    }
    // An empty tile: no files, no entries.
    let empty = m.for_tile(&[99, 99]);
    assert!(empty.tiles.is_empty() && empty.nnz == 0);
}
