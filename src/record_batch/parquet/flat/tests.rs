//! The direct reader against the `parquet` crate's Arrow reader, on files that crate writes
//! with every encoding, page version and codec the direct reader takes.

use super::super::{ParquetBatches, ParquetReadOptions};
use crate::ErrorKind;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::{WriterProperties, WriterVersion};
use std::sync::Arc;

/// A xorshift generator: the same values on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const TYPES: [DataType; 10] = [
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::UInt8,
    DataType::UInt16,
    DataType::UInt32,
    DataType::UInt64,
    DataType::Float32,
    DataType::Float64,
];

/// `rows` values of `t`: runs, a few distinct values and the type's extremes, so that
/// dictionaries, RLE runs, bit-packed runs and wide deltas all occur.
fn column(t: &DataType, rows: usize, rng: &mut Rng) -> ArrayRef {
    let raw: Vec<u64> = (0..rows)
        .map(|i| match (i / 97) % 4 {
            0 => (i / 13) as u64,
            1 => rng.next() % 50,
            2 => rng.next(),
            _ => [0, u64::MAX, 1 << 63, (1 << 31) - 1][i % 4],
        })
        .collect();
    let array: ArrayRef = match t {
        DataType::Int8 => Arc::new(arrow_array::Int8Array::from_iter_values(
            raw.iter().map(|&v| v as i8),
        )),
        DataType::Int16 => Arc::new(arrow_array::Int16Array::from_iter_values(
            raw.iter().map(|&v| v as i16),
        )),
        DataType::Int32 => Arc::new(arrow_array::Int32Array::from_iter_values(
            raw.iter().map(|&v| v as i32),
        )),
        DataType::Int64 => Arc::new(arrow_array::Int64Array::from_iter_values(
            raw.iter().map(|&v| v as i64),
        )),
        DataType::UInt8 => Arc::new(arrow_array::UInt8Array::from_iter_values(
            raw.iter().map(|&v| v as u8),
        )),
        DataType::UInt16 => Arc::new(arrow_array::UInt16Array::from_iter_values(
            raw.iter().map(|&v| v as u16),
        )),
        DataType::UInt32 => Arc::new(arrow_array::UInt32Array::from_iter_values(
            raw.iter().map(|&v| v as u32),
        )),
        DataType::UInt64 => Arc::new(arrow_array::UInt64Array::from_iter_values(
            raw.iter().copied(),
        )),
        DataType::Float32 => Arc::new(arrow_array::Float32Array::from_iter_values(
            raw.iter().map(|&v| (v % 1000) as f32 / 8.0),
        )),
        _ => Arc::new(arrow_array::Float64Array::from_iter_values(
            raw.iter().map(|&v| f64::from_bits(v >> 2)),
        )),
    };
    array
}

fn table(types: &[DataType], rows: usize, seed: u64) -> RecordBatch {
    let mut rng = Rng(seed);
    let fields: Vec<Field> = types
        .iter()
        .enumerate()
        .map(|(i, t)| Field::new(format!("c{i}"), t.clone(), false))
        .collect();
    let columns = types.iter().map(|t| column(t, rows, &mut rng)).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

fn write(batch: &RecordBatch, props: WriterProperties) -> Bytes {
    let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    Bytes::from(w.into_inner().unwrap())
}

/// Each column's values as bytes, over all batches, and the columns' types.
fn flatten(batches: &[RecordBatch]) -> Vec<(DataType, Vec<u8>)> {
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

fn theirs(file: &Bytes) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

fn ours(file: &Bytes, threads: usize, batch_rows: Option<usize>) -> Vec<RecordBatch> {
    let mut options = ParquetReadOptions::default().with_threads(threads);
    if let Some(rows) = batch_rows {
        options = options.with_batch_rows(rows);
    }
    ParquetBatches::new(file.clone(), &options)
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

fn planned(file: &Bytes) -> bool {
    let arrow = ArrowReaderMetadata::load(file, ArrowReaderOptions::new()).unwrap();
    super::plan(&arrow).is_some()
}

#[test]
fn every_encoding_page_version_and_codec_reads_as_the_parquet_crate_does() {
    let batch = table(&TYPES, 5000, 7);
    let mut files = 0;
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        for compression in [Compression::UNCOMPRESSED, Compression::SNAPPY] {
            for encoding in [
                None,
                Some(Encoding::PLAIN),
                Some(Encoding::DELTA_BINARY_PACKED),
                Some(Encoding::BYTE_STREAM_SPLIT),
            ] {
                let mut props = WriterProperties::builder()
                    .set_writer_version(version)
                    .set_compression(compression)
                    .set_max_row_group_row_count(Some(1800))
                    .set_data_page_size_limit(700)
                    .set_data_page_row_count_limit(333)
                    .set_write_batch_size(100);
                if let Some(e) = encoding {
                    props = props.set_dictionary_enabled(false).set_encoding(e);
                    if e == Encoding::DELTA_BINARY_PACKED {
                        // Floats keep PLAIN: the encoding is for integers.
                        for name in ["c8", "c9"] {
                            props = props.set_column_encoding(name.into(), Encoding::PLAIN);
                        }
                    }
                }
                let file = write(&batch, props.build());
                assert!(planned(&file), "{version:?} {compression:?} {encoding:?}");
                let expected = flatten(&theirs(&file));
                for (threads, rows) in [(1, None), (2, None), (1, Some(777)), (2, Some(1))] {
                    if rows == Some(1) && version == WriterVersion::PARQUET_2_0 {
                        continue; // one row per batch: once is enough
                    }
                    let got = flatten(&ours(&file, threads, rows));
                    assert!(
                        got == expected,
                        "{version:?} {compression:?} {encoding:?} threads {threads} rows {rows:?}"
                    );
                }
                files += 1;
            }
        }
    }
    assert_eq!(files, 16);
}

#[test]
fn other_columns_and_codecs_take_the_parquet_crates_reader() {
    // Nullable: definition levels.
    let nullable = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, true)])),
        vec![Arc::new(arrow_array::Int32Array::from(vec![Some(1), None]))],
    )
    .unwrap();
    let props = || WriterProperties::builder().build();
    assert!(!planned(&write(&nullable, props())));
    // A type the direct reader does not take.
    let dates = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("d", DataType::Date32, false)])),
        vec![Arc::new(arrow_array::Date32Array::from(vec![1, 2]))],
    )
    .unwrap();
    assert!(!planned(&write(&dates, props())));
    // A codec it does not decompress; the values still come back.
    let batch = table(&TYPES, 300, 3);
    let file = write(
        &batch,
        WriterProperties::builder()
            .set_compression(Compression::ZSTD(Default::default()))
            .build(),
    );
    assert!(!planned(&file));
    assert!(flatten(&ours(&file, 1, None)) == flatten(&theirs(&file)));
    // The same table uncompressed is read directly.
    let file = write(&batch, props());
    assert!(planned(&file));
}

#[test]
fn batches_dropped_lend_their_memory_to_the_next() {
    let batch = table(&[DataType::Int64, DataType::Float64], 20_000, 5);
    let file = write(
        &batch,
        WriterProperties::builder()
            .set_max_row_group_row_count(Some(20_000))
            .build(),
    );
    let mut batches = ParquetBatches::new(
        file.clone(),
        &ParquetReadOptions::default()
            .with_threads(1)
            .with_batch_rows(1000),
    )
    .unwrap();
    let first = batches.next().unwrap().unwrap();
    let address = first.column(0).to_data().buffers()[0].as_ptr();
    drop(first);
    let second = batches.next().unwrap().unwrap();
    assert_eq!(second.column(0).to_data().buffers()[0].as_ptr(), address);
    // A batch still held keeps its memory: the next batch gets other memory.
    let third = batches.next().unwrap().unwrap();
    assert_ne!(
        third.column(0).to_data().buffers()[0].as_ptr(),
        second.column(0).to_data().buffers()[0].as_ptr()
    );
    let rest: Vec<RecordBatch> = std::iter::once(second)
        .chain(std::iter::once(third))
        .chain(batches.map(|b| b.unwrap()))
        .collect();
    assert_eq!(
        flatten(&rest),
        flatten(&theirs(&file))
            .iter()
            .map(|(t, v)| (t.clone(), v[1000 * 8..].to_vec()))
            .collect::<Vec<_>>()
    );
}

#[test]
fn mutated_pages_are_typed_errors_of_the_direct_reader() {
    let batch = table(
        &[DataType::Int16, DataType::Int64, DataType::Float64],
        4000,
        11,
    );
    let mut outcomes = [0usize; 2];
    for (version, dictionary) in [
        (WriterVersion::PARQUET_1_0, true),
        (WriterVersion::PARQUET_2_0, false),
    ] {
        let props = WriterProperties::builder()
            .set_writer_version(version)
            .set_dictionary_enabled(dictionary)
            .set_compression(Compression::SNAPPY)
            .set_data_page_size_limit(2000)
            .build();
        let file = write(&batch, props);
        assert!(planned(&file));
        let footer =
            u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap()) as usize;
        let data_end = file.len() - 8 - footer;
        let mut rng = Rng(0x5eed ^ data_end as u64);
        for _ in 0..1500 {
            let mut bad = file.to_vec();
            for _ in 0..1 + rng.next() % 3 {
                let at = 4 + (rng.next() as usize) % (data_end - 4);
                bad[at] ^= 1 << (rng.next() % 8);
            }
            let read = ParquetBatches::new(bad, &ParquetReadOptions::default().with_threads(1))
                .and_then(|b| {
                    b.map(|b| b.map(|b| b.num_rows()))
                        .sum::<crate::Result<usize>>()
                });
            match read {
                Ok(_) => outcomes[0] += 1,
                Err(e) => {
                    assert!(
                        !matches!(e.kind(), ErrorKind::ParquetPanicked { .. }),
                        "{e}"
                    );
                    outcomes[1] += 1;
                }
            }
        }
    }
    assert!(outcomes[1] > 0 && outcomes[0] > 0, "{outcomes:?}");
}

#[test]
fn a_snappy_page_claiming_more_than_snappy_expands_to_is_refused() {
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    let zigzag = |v: i64| ((v << 1) ^ (v >> 63)) as u64;
    let claimed = 10_000_000u64;
    let mut body = Vec::new();
    varint(claimed, &mut body);
    body.extend_from_slice(&[0, 0]);
    // PageHeader: type DATA_PAGE, sizes, a data page header of 1000 PLAIN values.
    let mut chunk = vec![0x15, 0x00, 0x15];
    varint(zigzag(claimed as i64), &mut chunk);
    chunk.push(0x15);
    varint(zigzag(body.len() as i64), &mut chunk);
    chunk.push(0x2c);
    chunk.push(0x15);
    varint(zigzag(1000), &mut chunk);
    chunk.extend_from_slice(&[0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x00, 0x00]);
    chunk.extend_from_slice(&body);
    let mut cursor = super::Cursor {
        chunk: Bytes::from(chunk),
        chunk_at: 4,
        at: 0,
        snappy: true,
        scratch: Vec::new(),
        page_range: 0..0,
        page_in_scratch: false,
        dictionary: None,
        page: None,
        page_left: 0,
        pages_read: 0,
        values_read: 0,
    };
    let column = super::Column {
        name: "v".to_string(),
        data_type: DataType::Float64,
        stored: 8,
        integer: false,
        width: 8,
    };
    let e = cursor.next_page(&column).unwrap_err();
    assert!(
        e.contains("10000000 bytes claimed from 6 bytes of Snappy data"),
        "{e}"
    );
    assert!(cursor.scratch.capacity() < 1 << 20);
}
