//! Parquet files of record batches (feature `parquet`): round trips through our reader and
//! arrow-rs's own, pyarrow 26 reading what we write and writing what we read, bounded
//! row groups, and hostile files (truncations, bit flips, crafted footers, the known panics
//! of the `parquet` crate) giving typed errors.
//!
//! The pyarrow half needs `.venv/bin/python` with the pinned pyarrow or
//! `ARROW_TENSOR_PYTHON`; a missing interpreter fails the suite, it never skips it.

use arrow_array::{Array, RecordBatch};
use arrow_tensor_ipc::record_batch::{
    coo_table_to_sparse, fixed_shape_to_tensor, sparse_to_coo_table, tensor_to_fixed_shape,
    tensors_to_variable_shape, variable_shape_to_tensors, FixedShapeOptions, IpcBatches, IpcFormat,
    IpcReadOptions, IpcWriteOptions, IpcWriter, ParquetBatches, ParquetCompression,
    ParquetReadOptions, ParquetWriteOptions, ParquetWriter, COO_TABLE_KEY,
};
use arrow_tensor_ipc::{ConvertOptions, ErrorKind, Limits, SparseFormat, SparseTensor, Tensor};
use bytes::Bytes;
use serde_json::Value;
use std::sync::Arc;

#[path = "common/venv.rs"]
mod venv;

fn write(batches: &[RecordBatch], options: &ParquetWriteOptions) -> Vec<u8> {
    let mut w = ParquetWriter::new(Vec::new(), batches[0].schema(), options).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap()
}

fn read_all(bytes: &[u8]) -> (arrow_schema::SchemaRef, Vec<RecordBatch>) {
    let r = ParquetBatches::new(bytes.to_vec(), &ParquetReadOptions::default()).unwrap();
    let schema = r.schema().clone();
    let batches = r.collect::<Result<Vec<_>, _>>().unwrap();
    (schema, batches)
}

/// Asserts that two row-major tensors hold the same type, shape and values.
fn same(a: &Tensor, b: &Tensor) {
    assert!(a.is_row_major() && b.is_row_major());
    assert_eq!(a.value_type(), b.value_type());
    assert_eq!(a.shape(), b.shape());
    assert_eq!(a.data().as_slice(), b.data().as_slice());
}

/// A 6 x 5 matrix with 7 stored values.
fn matrix() -> Tensor {
    let mut dense = vec![0f64; 30];
    for (i, v) in [
        (0, 1.5),
        (4, -2.0),
        (7, 3.0),
        (13, 4.5),
        (20, 5.0),
        (22, -6.5),
        (29, 7.0),
    ] {
        dense[i] = v;
    }
    Tensor::from_vec(vec![6, 5], dense).unwrap()
}

fn every_kind() -> Vec<(&'static str, RecordBatch)> {
    let dense = Tensor::from_vec(vec![4, 2, 3], (0..24i16).collect()).unwrap();
    let fixed = tensor_to_fixed_shape(&dense, &FixedShapeOptions::default())
        .unwrap()
        .into_record_batch("cells")
        .unwrap();
    let variable = tensors_to_variable_shape(&[
        Tensor::from_vec(vec![2, 3], (0..6u32).collect()).unwrap(),
        Tensor::from_vec(vec![1, 4], (10..14u32).collect()).unwrap(),
        Tensor::from_vec(vec![0, 2], Vec::<u32>::new()).unwrap(),
    ])
    .unwrap()
    .into_record_batch("shapes")
    .unwrap();
    let options = ConvertOptions::default();
    let mut out = vec![("fixed", fixed), ("variable", variable)];
    for (name, format) in [
        ("coo", SparseFormat::Coo),
        ("csr", SparseFormat::Csr),
        ("csc", SparseFormat::Csc),
    ] {
        let sparse = matrix().to_sparse_with(format, &options).unwrap();
        out.push((name, sparse_to_coo_table(&sparse).unwrap()));
    }
    let cube = Tensor::from_vec(
        vec![3, 4, 5],
        (0..60).map(|i| (i % 7 == 0) as i64 * i).collect(),
    )
    .unwrap();
    let csf = cube.to_sparse_with(SparseFormat::Csf, &options).unwrap();
    out.push(("csf", sparse_to_coo_table(&csf).unwrap()));
    out
}

#[test]
fn every_kind_round_trips_with_its_schema() {
    for compression in [
        ParquetCompression::None,
        ParquetCompression::Snappy,
        ParquetCompression::Lz4,
        ParquetCompression::Zstd(3),
        ParquetCompression::Gzip(6),
        ParquetCompression::Brotli(1),
    ] {
        let options = ParquetWriteOptions::default().with_compression(compression);
        for (name, batch) in every_kind() {
            let bytes = write(std::slice::from_ref(&batch), &options);
            let (schema, batches) = read_all(&bytes);
            assert_eq!(schema, batch.schema(), "{name} {compression:?}");
            assert_eq!(batches, vec![batch.clone()], "{name} {compression:?}");
        }
    }
}

#[test]
fn tensors_come_back_through_the_record_batch_readers() {
    let kinds = every_kind();
    let bytes = write(std::slice::from_ref(&kinds[0].1), &Default::default());
    let (schema, batches) = read_all(&bytes);
    let t = fixed_shape_to_tensor(schema.field(0), batches[0].column(0)).unwrap();
    same(
        &t,
        &Tensor::from_vec(vec![4, 2, 3], (0..24i16).collect()).unwrap(),
    );

    let bytes = write(std::slice::from_ref(&kinds[1].1), &Default::default());
    let (schema, batches) = read_all(&bytes);
    let ts = variable_shape_to_tensors(schema.field(0), batches[0].column(0)).unwrap();
    assert_eq!(ts.len(), 3);
    same(
        &ts[1],
        &Tensor::from_vec(vec![1, 4], (10..14u32).collect()).unwrap(),
    );

    for (name, batch) in &kinds[2..] {
        let original = coo_table_to_sparse(batch, None).unwrap();
        let bytes = write(std::slice::from_ref(batch), &Default::default());
        let (_, batches) = read_all(&bytes);
        let back = coo_table_to_sparse(&batches[0], None).unwrap();
        assert_eq!(back.format(), original.format(), "{name}");
        same(&back.to_dense().unwrap(), &original.to_dense().unwrap());
    }
}

#[test]
fn arrow_rs_reads_what_we_write_with_the_extension_types() {
    use arrow_schema::extension::{FixedShapeTensor, VariableShapeTensor};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    for (name, batch) in every_kind() {
        let bytes = Bytes::from(write(std::slice::from_ref(&batch), &Default::default()));
        // arrow-rs's own reader: the values, the field and schema metadata; the nested
        // fields of tensor columns are nullable there (optional Parquet leaves, which
        // pyarrow needs to restore its extension types).
        let reader = ParquetRecordBatchReaderBuilder::try_new(bytes.clone()).unwrap();
        assert_eq!(
            reader.schema().metadata(),
            batch.schema().metadata(),
            "{name}"
        );
        let read: Vec<RecordBatch> = reader.build().unwrap().map(|b| b.unwrap()).collect();
        assert_eq!(read.len(), 1, "{name}");
        let (got, want) = (&read[0], &batch);
        for (i, field) in want.schema().fields().iter().enumerate() {
            assert_eq!(got.schema().field(i).metadata(), field.metadata(), "{name}");
            let expected = nullable_inside(want.column(i).to_data());
            assert_eq!(got.column(i).to_data(), expected, "{name}");
        }
        // Through ParquetBatches, the stored schema: arrow-rs's extension types accept it.
        let ours = ParquetBatches::new(bytes, &ParquetReadOptions::default()).unwrap();
        let schema = ours.schema().clone();
        match name {
            "fixed" => {
                let t = schema
                    .field(0)
                    .try_extension_type::<FixedShapeTensor>()
                    .unwrap();
                assert_eq!(t.shape(), &[2, 3]);
            }
            "variable" => {
                let t = schema
                    .field(0)
                    .try_extension_type::<VariableShapeTensor>()
                    .unwrap();
                assert_eq!(t.dimensions(), 2);
            }
            _ => assert!(schema.metadata().contains_key(COO_TABLE_KEY), "{name}"),
        }
    }
}

/// `data` with every nested field made nullable.
fn nullable_inside(data: arrow_data::ArrayData) -> arrow_data::ArrayData {
    use arrow_schema::{DataType as D, Field};
    let open = |f: &Arc<Field>, child: &arrow_data::ArrayData| {
        Arc::new(
            f.as_ref()
                .clone()
                .with_nullable(true)
                .with_data_type(child.data_type().clone()),
        )
    };
    let children: Vec<arrow_data::ArrayData> = data
        .child_data()
        .iter()
        .cloned()
        .map(nullable_inside)
        .collect();
    let t = match data.data_type() {
        D::List(f) => D::List(open(f, &children[0])),
        D::FixedSizeList(f, n) => D::FixedSizeList(open(f, &children[0]), *n),
        D::Struct(fields) => D::Struct(
            fields
                .iter()
                .zip(&children)
                .map(|(f, c)| open(f, c))
                .collect(),
        ),
        t => t.clone(),
    };
    data.into_builder()
        .data_type(t)
        .child_data(children)
        .build()
        .unwrap()
}

#[test]
fn pyarrow_reads_what_we_write() {
    let dir = venv::scratch("parquet", "pyarrow_reads");
    let kinds = every_kind();
    for (name, batch) in &kinds {
        let options = ParquetWriteOptions::default().with_row_group_rows(2);
        let bytes = write(std::slice::from_ref(batch), &options);
        std::fs::write(dir.join(format!("{name}.parquet")), bytes).unwrap();
    }
    let seen = venv::run_json("tests/interop/parquet_check.py", "read", &dir);
    assert_eq!(seen["pyarrow"], "26.0.1");

    let fixed = &seen["fixed.parquet"]["fields"][0];
    assert_eq!(fixed["extension"], "arrow.fixed_shape_tensor");
    assert_eq!(fixed["shape"], serde_json::json!([4, 2, 3]));
    let values: Vec<i64> = (0..24).collect();
    assert_eq!(fixed["values"], serde_json::json!(values));

    let variable = &seen["variable.parquet"]["fields"][0];
    assert_eq!(variable["extension"], "arrow.variable_shape_tensor");
    assert_eq!(
        variable["values"][1]["shape"],
        serde_json::json!([1, 4]),
        "{variable}"
    );
    assert_eq!(
        variable["values"][1]["data"],
        serde_json::json!([10, 11, 12, 13])
    );
    assert_eq!(seen["variable.parquet"]["rows"], 3);

    for (name, batch) in &kinds[2..] {
        let file = &seen[format!("{name}.parquet")];
        let meta = batch.schema().metadata()[COO_TABLE_KEY].clone();
        assert_eq!(
            file["metadata"][COO_TABLE_KEY],
            Value::String(meta),
            "{name}"
        );
        for (i, field) in batch.schema().fields().iter().enumerate() {
            let got = &file["fields"][i];
            assert_eq!(got["name"], field.name().as_str(), "{name}");
            let column = batch.column(i);
            let expected: Vec<f64> = (0..column.len())
                .map(|r| arrow_cast_f64(column.as_ref(), r))
                .collect();
            let got: Vec<f64> = got["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            assert_eq!(got, expected, "{name} column {}", field.name());
        }
    }
}

/// Row `r` of a numeric column, as f64.
fn arrow_cast_f64(a: &dyn Array, r: usize) -> f64 {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_schema::DataType as D;
    match a.data_type() {
        D::Int8 => a.as_primitive::<Int8Type>().value(r) as f64,
        D::Int16 => a.as_primitive::<Int16Type>().value(r) as f64,
        D::Int32 => a.as_primitive::<Int32Type>().value(r) as f64,
        D::Int64 => a.as_primitive::<Int64Type>().value(r) as f64,
        D::Float64 => a.as_primitive::<Float64Type>().value(r),
        t => panic!("unexpected column type {t}"),
    }
}

#[test]
fn we_read_what_pyarrow_writes() {
    let dir = venv::scratch("parquet", "pyarrow_writes");
    let answer = venv::run_json("tests/interop/parquet_check.py", "write", &dir);
    assert_eq!(answer["pyarrow"], "26.0.1");
    same_as_pyarrow_wrote(&dir, "fixed.parquet", "coo.parquet");
}

/// Reads the two files `parquet_check.py write` (or `codecs`) writes in `dir` and checks
/// their values: a fixed-shape tensor column of two (3, 4) float32 cells holding 0..24, and
/// a COO table of a 5 x 7 matrix with four values.
fn same_as_pyarrow_wrote(dir: &std::path::Path, fixed: &str, coo: &str) {
    let bytes = std::fs::read(dir.join(fixed)).unwrap();
    let r = ParquetBatches::new(bytes, &ParquetReadOptions::default()).unwrap();
    assert_eq!(r.num_rows(), 2, "{fixed}");
    let schema = r.schema().clone();
    let batches: Vec<RecordBatch> = r.map(|b| b.unwrap()).collect();
    let mut values = Vec::new();
    for b in &batches {
        let t = fixed_shape_to_tensor(schema.field(0), b.column(0)).unwrap();
        assert_eq!(&t.shape()[1..], &[3, 4], "{fixed}");
        values.extend_from_slice(t.as_slice::<f32>().unwrap());
    }
    assert_eq!(
        values,
        (0..24).map(|i| i as f32).collect::<Vec<_>>(),
        "{fixed}"
    );

    let bytes = std::fs::read(dir.join(coo)).unwrap();
    let (_, batches) = read_all(&bytes);
    let sparse = coo_table_to_sparse(&batches[0], None).unwrap();
    assert_eq!(sparse.shape(), &[5, 7], "{coo}");
    let dense = sparse.to_dense().unwrap();
    let d = dense.as_slice::<f64>().unwrap();
    assert_eq!(d[2], 1.5, "{coo}");
    assert_eq!(d[7], -2.0, "{coo}");
    assert_eq!(d[3 * 7 + 6], 3.25, "{coo}");
    assert_eq!(d[4 * 7 + 5], 4.0, "{coo}");
    assert_eq!(d.iter().filter(|v| **v != 0.0).count(), 4, "{coo}");
}

/// The codec of every column chunk of the Parquet file `bytes`, by its Parquet name
/// (`"GZIP"`, `"LZ4_RAW"`, ..., without a level).
fn codecs_of(bytes: &[u8]) -> Vec<String> {
    let meta = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&Bytes::from(bytes.to_vec()))
        .unwrap();
    meta.row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .map(|c| {
            let name = c.compression().to_string();
            name.split('(').next().unwrap().to_string()
        })
        .collect()
}

/// Every codec pyarrow writes, by pyarrow's name, with the Parquet name of the codec it
/// stores in the footer.
const PYARROW_CODECS: [(&str, &str); 6] = [
    ("none", "UNCOMPRESSED"),
    ("snappy", "SNAPPY"),
    ("gzip", "GZIP"),
    ("brotli", "BROTLI"),
    ("lz4", "LZ4_RAW"),
    ("zstd", "ZSTD"),
];

#[test]
fn we_read_every_codec_pyarrow_writes() {
    let dir = venv::scratch("parquet", "pyarrow_codecs");
    let answer = venv::run_json("tests/interop/parquet_check.py", "codecs", &dir);
    assert_eq!(answer["pyarrow"], "26.0.1");
    for (codec, stored) in PYARROW_CODECS {
        let (fixed, coo) = (
            format!("fixed-{codec}.parquet"),
            format!("coo-{codec}.parquet"),
        );
        for name in [&fixed, &coo] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let codecs = codecs_of(&bytes);
            assert!(!codecs.is_empty(), "{name}");
            assert!(codecs.iter().all(|c| c == stored), "{name}: {codecs:?}");
        }
        same_as_pyarrow_wrote(&dir, &fixed, &coo);
    }
}

#[test]
fn pyarrow_reads_every_codec_we_write() {
    let dir = venv::scratch("parquet", "pyarrow_reads_codecs");
    let kinds = every_kind();
    let (fixed, coo) = (&kinds[0].1, &kinds[2].1);
    for (name, stored) in PYARROW_CODECS {
        let compression = ParquetCompression::from_name(name).unwrap();
        assert_eq!(compression.pyarrow_name(), name);
        let options = ParquetWriteOptions::default().with_compression(compression);
        for (kind, batch) in [("fixed", fixed), ("coo", coo)] {
            let bytes = write(std::slice::from_ref(batch), &options);
            assert!(codecs_of(&bytes).iter().all(|c| c == stored), "{name}");
            std::fs::write(dir.join(format!("{kind}-{name}.parquet")), bytes).unwrap();
        }
    }
    let seen = venv::run_json("tests/interop/parquet_check.py", "read", &dir);
    assert_eq!(seen["pyarrow"], "26.0.1");
    for (name, _) in PYARROW_CODECS {
        let file = &seen[format!("fixed-{name}.parquet")];
        let cells = &file["fields"][0];
        assert_eq!(cells["extension"], "arrow.fixed_shape_tensor", "{name}");
        assert_eq!(cells["shape"], serde_json::json!([4, 2, 3]), "{name}");
        assert_eq!(
            cells["values"],
            serde_json::json!((0..24).collect::<Vec<i64>>()),
            "{name}"
        );
        let file = &seen[format!("coo-{name}.parquet")];
        assert_eq!(
            file["metadata"][COO_TABLE_KEY],
            Value::String(coo.schema().metadata()[COO_TABLE_KEY].clone()),
            "{name}"
        );
        for (i, field) in coo.schema().fields().iter().enumerate() {
            let column = coo.column(i);
            let expected: Vec<f64> = (0..column.len())
                .map(|r| arrow_cast_f64(column.as_ref(), r))
                .collect();
            let got: Vec<f64> = file["fields"][i]["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            assert_eq!(got, expected, "{name} column {}", field.name());
        }
    }
}

#[test]
fn row_groups_are_flushed_as_they_fill() {
    let cells = Tensor::from_vec(
        vec![64, 1024],
        (0..64 * 1024).map(|i| i as f32 * 0.37).collect(),
    )
    .unwrap();
    let batch = tensor_to_fixed_shape(&cells, &FixedShapeOptions::default())
        .unwrap()
        .into_record_batch("t")
        .unwrap();
    let options = ParquetWriteOptions::default()
        .with_compression(ParquetCompression::None)
        .with_row_group_bytes(1 << 20);
    let mut w = ParquetWriter::new(Vec::new(), batch.schema(), &options).unwrap();
    let mut flushed = Vec::new();
    for _ in 0..16 {
        w.write(&batch).unwrap();
        flushed.push(w.bytes_written());
    }
    // 16 batches of 256 KiB: row groups of about 1 MiB reach the sink as they fill.
    assert_eq!(flushed[0], 4, "{flushed:?}");
    assert!(flushed[15] > 1 << 20, "{flushed:?}");
    let bytes = w.finish().unwrap();
    let meta = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&Bytes::from(bytes.clone()))
        .unwrap();
    assert!(meta.num_row_groups() >= 3, "{}", meta.num_row_groups());
    let (_, batches) = read_all(&bytes);
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 64 * 16);

    let options = ParquetWriteOptions::default().with_row_group_rows(10);
    let bytes = write(&[batch], &options);
    let meta = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&Bytes::from(bytes))
        .unwrap();
    assert_eq!(meta.num_row_groups(), 7);
}

#[test]
fn batch_rows_and_limits_are_applied() {
    let sparse = matrix()
        .to_sparse_with(SparseFormat::Coo, &ConvertOptions::default())
        .unwrap();
    let table = sparse_to_coo_table(&sparse).unwrap();
    let bytes = write(&[table.clone(), table.clone(), table], &Default::default());
    let r = ParquetBatches::new(
        bytes.clone(),
        &ParquetReadOptions::default().with_batch_rows(5),
    )
    .unwrap();
    let sizes: Vec<usize> = r.map(|b| b.unwrap().num_rows()).collect();
    assert_eq!(sizes, vec![5, 5, 5, 5, 1]);

    let e = ParquetBatches::new(
        bytes.clone(),
        &ParquetReadOptions::default().with_max_rows(20),
    )
    .err()
    .unwrap();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LimitExceeded {
                value: 21,
                limit: 20,
                ..
            }
        ),
        "{e}"
    );
    let e = ParquetBatches::new(
        bytes.clone(),
        &ParquetReadOptions::default().with_max_columns(2),
    )
    .err()
    .unwrap();
    assert!(
        matches!(e.kind(), ErrorKind::LimitExceeded { limit: 2, .. }),
        "{e}"
    );
    let e = ParquetBatches::new(
        bytes.clone(),
        &ParquetReadOptions::default().with_limits(Limits::default().with_max_metadata_len(64)),
    )
    .err()
    .unwrap();
    assert!(
        matches!(e.kind(), ErrorKind::LimitExceeded { limit: 64, .. }),
        "{e}"
    );
    let (_, fixed) = every_kind().swap_remove(0);
    let bytes = write(&[fixed], &Default::default());
    assert!(ParquetBatches::new(
        bytes.clone(),
        &ParquetReadOptions::default().with_max_schema_depth(2)
    )
    .is_ok());
    let e = ParquetBatches::new(
        bytes,
        &ParquetReadOptions::default().with_max_schema_depth(1),
    )
    .err()
    .unwrap();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LimitExceeded {
                value: 2,
                limit: 1,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn row_groups_decoded_on_threads_come_back_in_order() {
    let sparse = matrix()
        .to_sparse_with(SparseFormat::Coo, &ConvertOptions::default())
        .unwrap();
    let table = sparse_to_coo_table(&sparse).unwrap();
    let tables: Vec<RecordBatch> = (0..9).map(|_| table.clone()).collect();
    let bytes = write(
        &tables,
        &ParquetWriteOptions::default().with_row_group_rows(5),
    );
    let read = |threads: usize| -> Vec<RecordBatch> {
        let options = ParquetReadOptions::default()
            .with_threads(threads)
            .with_batch_rows(4);
        ParquetBatches::new(bytes.clone(), &options)
            .unwrap()
            .map(|b| b.unwrap())
            .collect()
    };
    let one = read(1);
    assert_eq!(one.iter().map(|b| b.num_rows()).sum::<usize>(), 63);
    let rows = |batches: &[RecordBatch]| -> Vec<Vec<f64>> {
        batches
            .iter()
            .flat_map(|b| {
                (0..b.num_rows())
                    .map(|r| {
                        (0..3)
                            .map(|c| arrow_cast_f64(b.column(c).as_ref(), r))
                            .collect()
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    for threads in [2, 3, 8] {
        let many = read(threads);
        // Batches do not span row groups of 5 rows.
        assert!(many.iter().all(|b| b.num_rows() <= 4));
        assert_eq!(rows(&many), rows(&one), "{threads} threads");
        assert_eq!(many[0].schema(), table.schema());
    }
    // A page past its chunk in the eighth row group (rows 35..40), read on threads.
    let at = first_page(&bytes, 7, 2);
    let mut bad = bytes.clone();
    // The first page of the chunk: its type's varint zigzag-encoded, made an unknown type.
    assert_eq!(bad[at], 0x15);
    bad[at + 1] = 0x7e;
    let r = ParquetBatches::new(bad, &ParquetReadOptions::default().with_threads(2)).unwrap();
    let results: Vec<_> = r.collect();
    let e = results.last().unwrap().as_ref().unwrap_err();
    assert!(e.to_string().contains("row group 7 (rows 35..40)"), "{e}");
    let good = results.iter().filter(|r| r.is_ok()).count();
    assert!(good >= 7, "{good}");
}

#[test]
fn lying_extension_metadata_fails_as_in_an_ipc_file() {
    let (_, batch) = every_kind().swap_remove(0);
    let field = batch.schema().field(0).clone();
    let mut meta = field.metadata().clone();
    meta.insert(
        "ARROW:extension:metadata".to_string(),
        r#"{"shape":[2,4]}"#.to_string(),
    );
    let schema = Arc::new(arrow_schema::Schema::new(vec![field.with_metadata(meta)]));
    let lying = RecordBatch::try_new(schema.clone(), batch.columns().to_vec()).unwrap();

    let (read_schema, batches) =
        read_all(&write(std::slice::from_ref(&lying), &Default::default()));
    let from_parquet =
        fixed_shape_to_tensor(read_schema.field(0), batches[0].column(0)).unwrap_err();

    let mut w = IpcWriter::new(
        Vec::new(),
        schema.clone(),
        &IpcWriteOptions::default().with_format(IpcFormat::File),
    )
    .unwrap();
    w.write(&lying).unwrap();
    let ipc = w.finish().unwrap();
    let mut r = IpcBatches::new(
        arrow_buffer::Buffer::from_vec(ipc),
        &IpcReadOptions::default(),
    )
    .unwrap();
    let b = r.next().unwrap().unwrap();
    let from_ipc = fixed_shape_to_tensor(r.schema().field(0), b.column(0)).unwrap_err();
    assert!(
        matches!(from_parquet.kind(), ErrorKind::InvalidColumn { .. }),
        "{from_parquet}"
    );
    assert_eq!(from_parquet.to_string(), from_ipc.to_string());
}

// ---------------------------------------------------------------------------------------
// Hostile files.

/// A small file of every kind, concatenated for the mutation tests.
fn samples() -> Vec<Vec<u8>> {
    every_kind()
        .into_iter()
        .map(|(_, b)| write(&[b], &ParquetWriteOptions::default().with_row_group_rows(3)))
        .collect()
}

/// Opens `bytes` and reads every batch: the first error, or the batches' row count.
fn open_and_read(bytes: Vec<u8>) -> Result<usize, arrow_tensor_ipc::Error> {
    let r = ParquetBatches::new(bytes, &ParquetReadOptions::default())?;
    let mut rows = 0;
    for b in r {
        rows += b?.num_rows();
    }
    Ok(rows)
}

#[test]
fn every_truncation_is_a_typed_error() {
    for bytes in samples() {
        for len in 0..bytes.len() {
            let e = open_and_read(bytes[..len].to_vec()).unwrap_err();
            match e.kind() {
                ErrorKind::Truncated { .. } | ErrorKind::InvalidParquet { .. } => {}
                _ => panic!("truncated to {len} of {}: {e}", bytes.len()),
            }
        }
        // Cut inside the data, footer kept: the chunks now lie outside the data.
        let footer = u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap())
            as usize;
        let tail = &bytes[bytes.len() - 8 - footer..];
        let mut cut = bytes[..16].to_vec();
        cut.extend_from_slice(tail);
        let e = open_and_read(cut).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::InvalidParquet { .. }), "{e}");
        assert!(e.to_string().contains("lies outside"), "{e}");
    }
}

#[test]
fn the_envelope_is_checked_before_decoding() {
    let bytes = samples().swap_remove(0);
    let n = bytes.len();
    let mut bad = bytes.clone();
    bad[0] = b'X';
    let e = open_and_read(bad).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Parquet header: the file does not start with the magic bytes PAR1"
    );
    let mut bad = bytes.clone();
    bad[n - 1] = b'X';
    let e = open_and_read(bad).unwrap_err();
    assert!(
        e.to_string().contains("does not end with the magic bytes"),
        "{e}"
    );
    let mut bad = bytes.clone();
    bad[n - 8..n - 4].copy_from_slice(&(n as u32).to_le_bytes());
    let e = open_and_read(bad).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Truncated {
                part: "Parquet footer",
                ..
            }
        ),
        "{e}"
    );
    let mut bad = bytes.clone();
    bad[n - 4..].copy_from_slice(b"PARE");
    let e = open_and_read(bad).unwrap_err();
    assert!(e.to_string().contains("encrypted"), "{e}");
    let e = open_and_read(b"PAR1PAR1".to_vec()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
}

/// xorshift64*: a reproducible stream of mutations.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn bit_flips_and_mutations_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut outcomes = [0usize; 3];
    for bytes in samples() {
        // Every single-bit flip of the footer and its length.
        let footer = u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap())
            as usize;
        let start = bytes.len() - 8 - footer;
        for at in start..bytes.len() - 4 {
            for bit in 0..8 {
                let mut bad = bytes.clone();
                bad[at] ^= 1 << bit;
                outcomes[classify(open_and_read(bad))] += 1;
            }
        }
        // Random flips, byte overwrites and splices anywhere in the file.
        for _ in 0..200 {
            let mut bad = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bad.len());
                match rng.below(3) {
                    0 => bad[at] ^= 1 << rng.below(8),
                    1 => bad[at] = rng.next() as u8,
                    _ => {
                        let from = rng.below(bad.len());
                        bad[at] = bad[from];
                    }
                }
            }
            outcomes[classify(open_and_read(bad))] += 1;
        }
    }
    // Mutations mostly fail (a flip inside a value may still decode).
    assert!(outcomes[1] > outcomes[0], "{outcomes:?}");
}

/// 0: read; 1: a typed error other than a contained panic; 2: a contained panic.
fn classify(r: Result<usize, arrow_tensor_ipc::Error>) -> usize {
    match r {
        Ok(_) => 0,
        Err(e) if matches!(e.kind(), ErrorKind::ParquetPanicked { .. }) => 2,
        Err(_) => 1,
    }
}

/// A data page encoded with the dictionary in a column chunk whose dictionary page is not
/// one (its type changed to an index page). In a COO table (flat number columns, read by
/// the direct reader) that is a typed error naming the row group, column and page; in a
/// tensor column (read by the `parquet` crate's Arrow reader) it is a known panic of the
/// parquet crate (60), "Decoder for dict should have been set", contained at our boundary.
#[test]
fn a_missing_dictionary_is_refused_or_its_panic_contained() {
    /// `bytes` with the dictionary page of column chunk `column` of row group 0 marked
    /// as an index page.
    fn without_dictionary(mut bytes: Vec<u8>, column: usize) -> Vec<u8> {
        let meta = parquet::file::metadata::ParquetMetaDataReader::new()
            .parse_and_finish(&Bytes::from(bytes.clone()))
            .unwrap();
        let column = &meta.row_group(0).columns()[column];
        let at = column.dictionary_page_offset().expect("a dictionary page") as usize;
        // PageHeader field 1 (type, i32): DICTIONARY_PAGE = 2, zigzag 4.
        assert_eq!(&bytes[at..at + 2], &[0x15, 0x04]);
        bytes[at + 1] = 0x02; // INDEX_PAGE
        bytes
    }
    // Repeated values: the value column is dictionary-encoded.
    let shape = [1000usize, 1000];
    let coords: Vec<i64> = (0..500).flat_map(|i| [i, (i * 7) % 1000]).collect();
    let sparse = SparseTensor::coo(shape, coords, vec![2.5f64; 500]).unwrap();
    let table = sparse_to_coo_table(&sparse).unwrap();
    let bytes = without_dictionary(write(&[table], &Default::default()), 2);
    let e = open_and_read(bytes).unwrap_err();
    match e.kind() {
        ErrorKind::InvalidParquet { part, reason } => {
            assert_eq!(part, "row group 0 (rows 0..500)");
            assert!(
                reason.contains("column value: page 1")
                    && reason.contains("dictionary-encoded values before any dictionary page"),
                "{reason}"
            );
        }
        _ => panic!("{e}"),
    }
    assert_eq!(
        e.position(),
        Some(arrow_tensor_ipc::Position::Batch {
            batch: Some(0),
            column: None,
            row: None
        })
    );

    let cells = Tensor::from_vec(vec![50, 2, 2], vec![2.5f64; 200]).unwrap();
    let column = tensor_to_fixed_shape(&cells, &FixedShapeOptions::default())
        .unwrap()
        .into_record_batch("cells")
        .unwrap();
    let bytes = without_dictionary(write(&[column], &Default::default()), 0);
    let e = open_and_read(bytes).unwrap_err();
    match e.kind() {
        ErrorKind::ParquetPanicked { part, message } => {
            assert_eq!(part, "rows 0..50");
            assert!(message.contains("Decoder for dict"), "{message}");
        }
        _ => panic!("{e}"),
    }
}

/// A page whose compressed size runs past its column chunk is refused before decoding.
#[test]
fn a_page_past_its_chunk_is_refused() {
    let (_, batch) = every_kind().swap_remove(2);
    let mut bytes = write(
        &[batch],
        &ParquetWriteOptions::default().with_compression(ParquetCompression::None),
    );
    let at = first_page(&bytes, 0, 0);
    // Field 1 (type), then field 2 (uncompressed size), then field 3 (compressed size): a
    // one-byte varint for these small pages, made 63 (zigzag 126).
    assert_eq!(bytes[at], 0x15);
    assert_eq!(bytes[at + 2], 0x15);
    assert_eq!(bytes[at + 4], 0x15);
    bytes[at + 5] = 126;
    let e = open_and_read(bytes).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidParquet { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("runs past the end of its column chunk"),
        "{e}"
    );
    assert!(
        e.to_string().contains("row group 0, column \"dim_0\""),
        "{e}"
    );
}

/// The byte range and value of the `uncompressed_page_size` (field 2, an i32 varint) of the
/// page header at `at`, found by decoding the Thrift compact fields before it (field 1, the
/// page type, an i32).
fn uncompressed_page_size(bytes: &[u8], at: usize) -> (std::ops::Range<usize>, i64) {
    let varint = |mut i: usize| -> (u64, usize) {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let b = bytes[i];
            i += 1;
            v |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return (v, i);
            }
        }
    };
    // Short-form field headers: (id delta << 4) | type 5 (i32).
    assert_eq!(bytes[at], 0x15, "field 1 (type)");
    let (_, next) = varint(at + 1);
    assert_eq!(bytes[next], 0x15, "field 2 (uncompressed_page_size)");
    let (z, end) = varint(next + 1);
    (next + 1..end, ((z >> 1) as i64) ^ -((z & 1) as i64))
}

/// The zigzag varint of `v`.
fn zigzag_varint(v: i64) -> Vec<u8> {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    let mut out = Vec::new();
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
    out
}

/// A page whose header declares an uncompressed size other than what its data holds is
/// refused, whatever the codec: under Snappy and without compression by the page checks
/// (the parquet crate would pad a Snappy page that claims more with zeros, and takes an
/// uncompressed page's bytes whatever it claims), under the other codecs by the parquet
/// crate's comparison of what it decompressed. pyarrow refuses every compressed one
/// ("Page didn't decompress to expected size" and the like) and reads the uncompressed
/// ones, whose values are intact: there the reader is stricter than pyarrow.
#[test]
fn a_page_that_lies_about_its_uncompressed_size_is_refused() {
    let dir = venv::scratch("parquet", "lying_pages");
    let (_, batch) = every_kind().swap_remove(0);
    for (name, _) in PYARROW_CODECS {
        let compression = ParquetCompression::from_name(name).unwrap();
        let bytes = write(
            std::slice::from_ref(&batch),
            &ParquetWriteOptions::default().with_compression(compression),
        );
        assert_eq!(open_and_read(bytes.clone()).unwrap(), 4, "{name}");
        std::fs::write(dir.join(format!("{name}.parquet")), &bytes).unwrap();
        let at = first_page(&bytes, 0, 0);
        let (field, size) = uncompressed_page_size(&bytes, at);
        for delta in [8i64, -8] {
            let lie = zigzag_varint(size + delta);
            assert_eq!(lie.len(), field.len(), "{name}: {size} {delta}");
            let mut bad = bytes.clone();
            bad[field.clone()].copy_from_slice(&lie);
            let file = format!("{name}{delta:+}.parquet");
            std::fs::write(dir.join(&file), &bad).unwrap();
            let e = open_and_read(bad).unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::InvalidParquet { .. }),
                "{file}: {e}"
            );
            let text = e.to_string();
            let claim = format!(
                "the page at byte {at} claims {} bytes uncompressed",
                size + delta
            );
            match name {
                "snappy" => assert!(
                    text.contains("row group 0, column")
                        && text.contains(&format!("{claim}, but its Snappy data holds {size}")),
                    "{file}: {e}"
                ),
                "none" => assert!(
                    text.contains("row group 0, column")
                        && text.contains(&format!(
                            "{claim}, but stores {size} bytes without compression"
                        )),
                    "{file}: {e}"
                ),
                // The parquet crate's errors, on the rows being decoded.
                _ => assert!(text.contains("Parquet rows 0..4: "), "{file}: {e}"),
            }
        }
    }
    let seen = venv::run_json("tests/interop/parquet_check.py", "refuses", &dir);
    assert_eq!(seen["pyarrow"], "26.0.1");
    for (name, _) in PYARROW_CODECS {
        assert_eq!(
            seen[format!("{name}.parquet")],
            Value::Null,
            "{name}: {seen}"
        );
        for delta in ["+8", "-8"] {
            let refusal = &seen[format!("{name}{delta}.parquet")];
            if name == "none" {
                assert_eq!(refusal, &Value::Null, "{name}{delta}");
            } else {
                assert!(refusal.is_string(), "{name}{delta}: {seen}");
            }
        }
    }
    assert!(
        seen["snappy+8.parquet"]
            .as_str()
            .unwrap()
            .contains("Page didn't decompress to expected size"),
        "{seen}"
    );
}

#[path = "../fuzz/parquet_target.rs"]
mod fuzz_target;

#[path = "common/replay.rs"]
mod replay;

/// The fuzz corpus (files of pyarrow with every codec it writes and of ours, pages lying
/// about their uncompressed size, and every finding) through the fuzz target's body:
/// nothing panics past the reader.
#[test]
fn replay_the_fuzz_corpus() {
    let files = replay::replay_corpus("parquet", fuzz_target::parquet);
    assert!(files.len() >= 20, "{files:?}");
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/parquet");
    for codec in ["none", "gzip", "brotli", "lz4", "zstd"] {
        for kind in ["coo-table", "fixed-shape"] {
            let file = corpus.join(format!("pyarrow-{kind}-{codec}.parquet"));
            let rows = open_and_read(std::fs::read(&file).unwrap()).unwrap();
            assert_eq!(rows, if kind == "coo-table" { 4 } else { 2 }, "{file:?}");
        }
    }
    for codec in ["snappy", "zstd", "none"] {
        let file = corpus.join(format!("lie-page-uncompressed-size-{codec}.parquet"));
        let e = open_and_read(std::fs::read(&file).unwrap()).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::InvalidParquet { .. }),
            "{file:?}: {e}"
        );
    }
    // The finding (a COO table whose dictionary page is marked as an index page) is
    // refused by the direct reader with a typed error; a_missing_dictionary_is_refused_or_
    // its_panic_contained shows the parquet crate's panic on a tensor column contained.
    let finding = std::fs::read(corpus.join("crash-dictionary-page-marked-index.parquet")).unwrap();
    let e = open_and_read(finding).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidParquet { .. }), "{e}");
}

/// A deterministic stream of pseudo-random numbers (splitmix64).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A sorted COO table of `nnz` distinct entries of `shape`, its values drawn from
/// `distinct_values` values.
fn coo_table(shape: &[usize], nnz: usize, distinct_values: u64, seed: u64) -> RecordBatch {
    let total: usize = shape.iter().product();
    let stride = total / nnz;
    let mut mix = Mix(seed);
    let mut coords = Vec::with_capacity(nnz * shape.len());
    let mut values = Vec::with_capacity(nnz);
    for i in 0..nnz {
        let mut p = i * stride + (mix.next() % stride as u64) as usize;
        let mut c = vec![0i64; shape.len()];
        for (d, &n) in shape.iter().enumerate().rev() {
            c[d] = (p % n) as i64;
            p /= n;
        }
        coords.extend(c);
        values.push((mix.next() % distinct_values) as f64 * 0.5);
    }
    sparse_to_coo_table(&SparseTensor::coo(shape, coords, values).unwrap()).unwrap()
}

/// The encodings of each column chunk of row group 0, by column path.
fn encodings(bytes: &[u8]) -> std::collections::BTreeMap<String, Vec<String>> {
    let meta = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&Bytes::copy_from_slice(bytes))
        .unwrap();
    meta.row_group(0)
        .columns()
        .iter()
        .map(|c| {
            let mut e: Vec<String> = c.encodings().map(|e| format!("{e:?}")).collect();
            e.sort();
            (c.column_path().string(), e)
        })
        .collect()
}

/// The writer picks each column's encoding from its first values (differences for sorted
/// and small-step integers, a dictionary for integers over few values and for repeated
/// floats, plain for distinct floats), and pyarrow 26, DuckDB and polars read every such
/// file with the values written.
#[test]
fn encodings_follow_the_data_and_every_engine_reads_them() {
    let dir = venv::scratch("parquet", "engines");
    let delta = vec!["DELTA_BINARY_PACKED".to_string(), "RLE".into()];
    let dictionary = vec!["PLAIN".to_string(), "RLE".into(), "RLE_DICTIONARY".into()];
    let plain = vec!["PLAIN".to_string(), "RLE".into()];

    // A 3-D table over a short last axis, values from 100 distinct ones.
    let short = coo_table(&[200, 300, 40], 200_000, 100, 1);
    // A 2-D table over a long last axis, values nearly all distinct.
    let long = coo_table(&[500, 1_000_000], 200_000, u64::MAX, 2);
    // Tensor columns: distinct float64 cells; int32 cells that count up.
    let cells = Tensor::from_vec(
        vec![512, 256],
        (0..512 * 256).map(|i| (i as f64).sqrt()).collect(),
    )
    .unwrap();
    let counts = Tensor::from_vec(vec![512, 256], (0..512 * 256).collect::<Vec<i32>>()).unwrap();
    let fixed = |t: &Tensor| {
        tensor_to_fixed_shape(t, &FixedShapeOptions::default())
            .unwrap()
            .into_record_batch("t")
            .unwrap()
    };
    // (file, table, the encodings expected per column)
    type Expected<'a> = Vec<(&'a str, &'a Vec<String>)>;
    let cases: Vec<(&str, RecordBatch, Expected)> = vec![
        (
            "short",
            short,
            vec![
                ("dim_0", &delta),
                ("dim_1", &delta),
                ("dim_2", &dictionary),
                ("value", &dictionary),
            ],
        ),
        (
            "long",
            long,
            vec![("dim_0", &delta), ("dim_1", &delta), ("value", &plain)],
        ),
        ("cells", fixed(&cells), vec![("t.list.item", &plain)]),
        ("counts", fixed(&counts), vec![("t.list.item", &delta)]),
    ];
    for (name, batch, expected) in &cases {
        // Two batches, so that the second follows the first one's choices.
        let half = batch.num_rows() / 2;
        let parts = [
            batch.slice(0, half),
            batch.slice(half, batch.num_rows() - half),
        ];
        let bytes = write(&parts, &ParquetWriteOptions::default());
        let found = encodings(&bytes);
        for (column, want) in expected {
            assert_eq!(&found[*column], *want, "{name}: {column} ({found:?})");
        }
        let (_, back) = read_all(&bytes);
        let mut at = 0;
        for b in &back {
            assert_eq!(
                b.columns(),
                batch.slice(at, b.num_rows()).columns(),
                "{name}"
            );
            at += b.num_rows();
        }
        assert_eq!(at, batch.num_rows(), "{name}");
        std::fs::write(dir.join(format!("{name}.parquet")), &bytes).unwrap();
        let mut w = IpcWriter::new(
            Vec::new(),
            batch.schema(),
            &IpcWriteOptions::default().with_format(IpcFormat::File),
        )
        .unwrap();
        w.write(batch).unwrap();
        std::fs::write(dir.join(format!("{name}.arrow")), w.finish().unwrap()).unwrap();
    }
    let seen = venv::run_json("tests/interop/parquet_engines.py", "read", &dir);
    assert_eq!(seen["versions"]["pyarrow"], "26.0.1");
    for (name, _, _) in &cases {
        for engine in ["pyarrow", "duckdb", "polars"] {
            assert_eq!(
                seen["files"][name][engine], "ok",
                "{engine} reading {name}: {seen}"
            );
        }
    }
}

/// A sink that takes `room` bytes, then fails.
#[derive(Debug)]
struct Full {
    room: usize,
}

impl std::io::Write for Full {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.room {
            return Err(std::io::Error::other("the disk is full"));
        }
        self.room -= buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A failure while a batch is written (here the sink's) stops the writer: later writes and
/// `finish` fail rather than write a file missing part of a batch; a batch of other fields
/// is refused without stopping it.
#[test]
fn a_failed_write_stops_the_writer() {
    // Row groups larger than the file writer's own buffer, so that a flush reaches the sink.
    let table = coo_table(&[400, 5000], 200_000, 1 << 20, 3);
    let options = ParquetWriteOptions::default().with_row_group_rows(50_000);
    let mut w = ParquetWriter::new(Full { room: 64 }, table.schema(), &options).unwrap();
    let other = RecordBatch::try_new(
        Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            "x",
            arrow_schema::DataType::Int32,
            false,
        )])),
        vec![Arc::new(arrow_array::Int32Array::from(vec![1]))],
    )
    .unwrap();
    assert!(w.write(&other).is_err());
    let e = w.write(&table).unwrap_err();
    assert!(e.to_string().contains("the disk is full"), "{e}");
    let e = w.write(&table.slice(0, 10)).unwrap_err();
    assert!(e.to_string().contains("earlier error"), "{e}");
    let e = w.finish().unwrap_err();
    assert!(e.to_string().contains("earlier error"), "{e}");
}

/// The byte offset of the first page (the dictionary page, if any) of column `column` in
/// row group `group` of the Parquet file `bytes`.
fn first_page(bytes: &[u8], group: usize, column: usize) -> usize {
    let meta = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&Bytes::copy_from_slice(bytes))
        .unwrap();
    let column = &meta.row_group(group).columns()[column];
    column
        .dictionary_page_offset()
        .unwrap_or(column.data_page_offset()) as usize
}

/// Each column's values as bytes over all batches, with its type.
fn column_bytes(batches: &[RecordBatch]) -> Vec<(arrow_schema::DataType, Vec<u8>)> {
    let n = batches.first().map_or(0, |b| b.num_columns());
    (0..n)
        .map(|i| {
            let mut bytes = Vec::new();
            for b in batches {
                let d = b.column(i).to_data();
                let w = d.data_type().primitive_width().unwrap();
                bytes.extend_from_slice(
                    &d.buffers()[0].as_slice()[d.offset() * w..(d.offset() + d.len()) * w],
                );
            }
            (batches[0].column(i).data_type().clone(), bytes)
        })
        .collect()
}

/// Files of flat number columns, which the direct reader decodes, written by pyarrow with
/// every encoding, page version and codec it takes: the values are those of the parquet
/// crate's own Arrow reader (which `we_read_what_pyarrow_writes` checks against pyarrow),
/// on one thread and on two, in uneven batches.
#[test]
fn pyarrow_files_of_number_columns_read_as_the_parquet_crate_reads_them() {
    let dir = venv::scratch("parquet", "pyarrow_flat");
    let answer = venv::run_json("tests/interop/parquet_check.py", "flat", &dir);
    let variants = answer["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 8);
    for variant in variants {
        let name = format!("flat-{}.parquet", variant.as_str().unwrap());
        let bytes = Bytes::from(std::fs::read(dir.join(&name)).unwrap());
        let expected: Vec<RecordBatch> =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
                .unwrap()
                .build()
                .unwrap()
                .map(|b| b.unwrap())
                .collect();
        let expected = column_bytes(&expected);
        assert_eq!(expected.len(), 10, "{name}");
        for (threads, rows) in [(1, None), (2, None), (2, Some(999))] {
            let mut options = ParquetReadOptions::default().with_threads(threads);
            if let Some(rows) = rows {
                options = options.with_batch_rows(rows);
            }
            let ours: Vec<RecordBatch> = ParquetBatches::new(bytes.clone(), &options)
                .unwrap()
                .map(|b| b.unwrap())
                .collect();
            assert!(
                column_bytes(&ours) == expected,
                "{name}, {threads} threads, batches of {rows:?}"
            );
        }
    }
}
