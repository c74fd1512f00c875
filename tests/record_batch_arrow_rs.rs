//! The `record_batch` module against arrow-rs 60 (`arrow-ipc`, and `arrow-schema`'s
//! `canonical_extension_types`):
//! 1. arrow-ipc's own readers open the streams and files we write, and arrow-rs's
//!    `FixedShapeTensor` / `VariableShapeTensor` accept our fields (non-nullable items, no
//!    nulls in the metadata) with the same shape, names and permutation; the values, viewed
//!    through arrow-rs's `logical_shape` and permutation, are our tensor's.
//! 2. Fields that arrow-rs writes (`FixedShapeTensor::try_new` + `with_extension_type`, which
//!    serializes `"permutations"` and explicit nulls), in arrow-ipc-written streams, convert
//!    to the right tensors with our readers.

use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, Int32Array, ListArray, RecordBatch, StructArray,
};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow_data::ArrayDataBuilder;
use arrow_ipc::reader::{FileReader, StreamReader};
use arrow_ipc::writer::{FileWriter, StreamWriter};
use arrow_schema::extension::{ExtensionType, FixedShapeTensor, VariableShapeTensor};
use arrow_schema::{DataType, Field, Schema};
use arrow_tensor_ipc::record_batch::{
    batch_to_messages, fixed_shape_to_tensor, tensor_to_fixed_shape, tensors_to_variable_shape,
    variable_shape_to_tensors, FixedShapeOptions, IpcBatches, IpcFormat, IpcReadOptions,
    IpcWriteOptions, IpcWriter, Layout, MessageOptions, Rows,
};
use arrow_tensor_ipc::{column_major_strides, row_major_strides, Tensor, ValueType};
use std::io::Cursor;
use std::sync::Arc;

fn arrow_type(vt: ValueType) -> DataType {
    match vt {
        ValueType::Int8 => DataType::Int8,
        ValueType::Int16 => DataType::Int16,
        ValueType::Int32 => DataType::Int32,
        ValueType::Int64 => DataType::Int64,
        ValueType::UInt8 => DataType::UInt8,
        ValueType::UInt16 => DataType::UInt16,
        ValueType::UInt32 => DataType::UInt32,
        ValueType::UInt64 => DataType::UInt64,
        ValueType::Float16 => DataType::Float16,
        ValueType::Float32 => DataType::Float32,
        ValueType::Float64 => DataType::Float64,
    }
}

/// `n` pseudo-random values of `vt` in an aligned buffer.
fn sample(vt: ValueType, n: usize, seed: u64) -> Buffer {
    let w = vt.byte_width();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let words: Vec<u64> = (0..(n * w).div_ceil(8).max(1))
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect();
    Buffer::from_vec(words).slice_with_length(0, n * w)
}

/// A tensor whose first axis is outermost and whose cells are stored with their logical
/// dimensions in `order` (outermost first).
fn permuted_cells(vt: ValueType, shape: &[usize], order: &[usize], seed: u64) -> Tensor {
    let w = vt.byte_width();
    let mut physical = vec![shape[0]];
    physical.extend(order.iter().map(|&l| shape[1 + l]));
    let ps = row_major_strides(&physical, w);
    let mut strides = vec![ps[0]; shape.len()];
    for (j, &l) in order.iter().enumerate() {
        strides[1 + l] = ps[1 + j];
    }
    let n = shape.iter().product();
    Tensor::try_new(vt, shape, strides, sample(vt, n, seed)).unwrap()
}

fn inverse(order: &[usize]) -> Vec<usize> {
    let mut p = vec![0; order.len()];
    for (j, &l) in order.iter().enumerate() {
        p[l] = j;
    }
    p
}

fn ipc_bytes(batches: &[RecordBatch], format: IpcFormat) -> Vec<u8> {
    let mut w = IpcWriter::new(
        Vec::new(),
        batches[0].schema(),
        &IpcWriteOptions::default().with_format(format),
    )
    .unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap()
}

/// arrow-ipc's own reading of a stream or file.
fn arrow_rs_read(bytes: &[u8], format: IpcFormat) -> (Arc<Schema>, Vec<RecordBatch>) {
    match format {
        IpcFormat::Stream => {
            let r = StreamReader::try_new(Cursor::new(bytes.to_vec()), None).unwrap();
            let schema = r.schema();
            (schema, r.map(Result::unwrap).collect())
        }
        _ => {
            let r = FileReader::try_new(Cursor::new(bytes.to_vec()), None).unwrap();
            let schema = r.schema();
            (schema, r.map(Result::unwrap).collect())
        }
    }
}

/// The cells of a fixed-shape column read by arrow-rs, as one tensor `[rows, *logical]`
/// built from arrow-rs's view alone: its physical shape, its permutation (logical `i` is
/// physical `permutations[i]`) and the list values.
fn arrow_rs_view(ext: &FixedShapeTensor, array: &dyn Array, vt: ValueType) -> Tensor {
    let list = array.as_any().downcast_ref::<FixedSizeListArray>().unwrap();
    let w = vt.byte_width();
    let physical = row_major_strides(ext.shape(), w);
    let mut shape = vec![list.len()];
    shape.extend(ext.logical_shape());
    let mut strides = vec![ext.list_size() * w];
    match ext.permutations() {
        Some(p) => strides.extend(p.iter().map(|&j| physical[j])),
        None => strides.extend(physical),
    }
    let values = list.values().to_data();
    let data = values.buffers()[0].slice_with_length(values.offset() * w, values.len() * w);
    Tensor::try_new(vt, shape, strides, data).unwrap()
}

#[test]
fn arrow_rs_reads_our_fixed_shape_columns() {
    let mut checked = 0;
    for (i, vt) in ValueType::ALL.into_iter().enumerate() {
        let seed = i as u64 + 1;
        let w = vt.byte_width();
        let shape = [3usize, 2, 3, 4];
        let rm = Tensor::try_new(
            vt,
            shape,
            row_major_strides(&shape, w),
            sample(vt, 72, seed),
        )
        .unwrap();
        let cm = Tensor::try_new(
            vt,
            shape,
            column_major_strides(&shape, w),
            sample(vt, 72, seed),
        )
        .unwrap();
        let named = |t: &Tensor| t.clone().with_dim_names(["n", "C", "H", "W"]).unwrap();
        let keep_rows = FixedShapeOptions::default().with_layout(Layout::Keep);
        let whole = FixedShapeOptions::default().with_rows(Rows::Whole);
        let cases: Vec<(Tensor, FixedShapeOptions, Option<Vec<usize>>)> = vec![
            (rm.clone(), FixedShapeOptions::default(), None),
            (named(&rm), FixedShapeOptions::default(), None),
            (named(&rm), whole.clone(), None),
            (named(&cm), FixedShapeOptions::default(), None),
            (
                named(&cm),
                whole.with_layout(Layout::Keep),
                Some(vec![3, 2, 1, 0]),
            ),
            (
                named(&permuted_cells(vt, &shape, &[1, 2, 0], seed)),
                keep_rows.clone(),
                Some(inverse(&[1, 2, 0])),
            ),
            (
                permuted_cells(vt, &shape, &[2, 0, 1], seed),
                keep_rows,
                Some(inverse(&[2, 0, 1])),
            ),
        ];
        for (k, (t, options, perm)) in cases.into_iter().enumerate() {
            let name = format!("{vt} case {k}");
            let column = tensor_to_fixed_shape(&t, &options).unwrap();
            let physical = column.tensor_type.shape().to_vec();
            let physical_names = column.tensor_type.dim_names().map(<[String]>::to_vec);
            let batch = column.into_record_batch("tensor").unwrap();
            for format in [IpcFormat::Stream, IpcFormat::File] {
                let bytes = ipc_bytes(std::slice::from_ref(&batch), format);
                let (schema, batches) = arrow_rs_read(&bytes, format);
                let field = schema.field(0);
                let ext = match field.try_extension_type::<FixedShapeTensor>() {
                    Ok(ext) => {
                        assert!(perm.is_none(), "{name}: arrow-rs read a \"permutation\"");
                        ext
                    }
                    Err(e) if perm.is_some() => {
                        // A kept layout is written with the spec's "permutation", which
                        // arrow-rs 60 refuses (it knows only its "permutations"): pinned.
                        assert!(
                            e.to_string().contains("unknown field `permutation`"),
                            "{name}: {e}"
                        );
                        // Under arrow-rs's spelling, it reads the same permutation.
                        let mut meta: std::collections::HashMap<String, String> = field
                            .metadata()
                            .iter()
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect();
                        let m = meta.get_mut("ARROW:extension:metadata").unwrap();
                        *m = m.replace("\"permutation\":", "\"permutations\":");
                        let renamed = field.as_ref().clone().with_metadata(meta);
                        renamed
                            .try_extension_type::<FixedShapeTensor>()
                            .unwrap_or_else(|e| panic!("{name}: {e}"))
                    }
                    Err(e) => panic!("{name}: arrow-rs refuses our field: {e}"),
                };
                assert_eq!(ext.value_type(), &arrow_type(vt), "{name}");
                assert_eq!(ext.shape(), &physical[..], "{name}");
                assert_eq!(
                    ext.dimension_names().map(<[String]>::to_vec),
                    physical_names,
                    "{name}"
                );
                assert_eq!(ext.permutations().map(<[usize]>::to_vec), perm, "{name}");
                let cells = match options.rows {
                    Rows::Whole => t.shape().to_vec(),
                    _ => t.shape()[1..].to_vec(),
                };
                assert_eq!(ext.logical_shape(), cells, "{name}: logical shape");
                assert_eq!(batches.len(), 1);
                let view = arrow_rs_view(&ext, batches[0].column(0).as_ref(), vt);
                let want = match options.rows {
                    Rows::Whole => {
                        let mut s = vec![1];
                        s.extend(t.shape());
                        let strides = row_major_strides(&s, w);
                        Tensor::try_new(vt, s, strides, t.row_major_bytes()).unwrap()
                    }
                    _ => t.clone().with_dim_names(vec![""; t.ndim()]).unwrap(),
                };
                assert_eq!(view.shape(), want.shape(), "{name}");
                assert!(
                    view.row_major_bytes() == want.row_major_bytes(),
                    "{name}: arrow-rs's view of our values"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 11 * 7 * 2);
}

#[test]
fn arrow_rs_reads_our_variable_shape_columns() {
    for vt in ValueType::ALL {
        let w = vt.byte_width();
        let tensors: Vec<Tensor> = [[2usize, 3], [0, 4], [1, 1]]
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let n = s.iter().product();
                Tensor::try_new(vt, s, row_major_strides(s, w), sample(vt, n, i as u64))
                    .unwrap()
                    .with_dim_names(["H", "W"])
                    .unwrap()
            })
            .collect();
        let batch = tensors_to_variable_shape(&tensors)
            .unwrap()
            .into_record_batch("cells")
            .unwrap();
        for format in [IpcFormat::Stream, IpcFormat::File] {
            let bytes = ipc_bytes(std::slice::from_ref(&batch), format);
            let (schema, batches) = arrow_rs_read(&bytes, format);
            let ext = schema
                .field(0)
                .try_extension_type::<VariableShapeTensor>()
                .unwrap_or_else(|e| panic!("{vt}: arrow-rs refuses our field: {e}"));
            assert_eq!(ext.value_type(), &arrow_type(vt));
            assert_eq!(ext.dimensions(), 2);
            assert_eq!(
                ext.dimension_names(),
                Some(&["H".to_string(), "W".to_string()][..])
            );
            assert_eq!(ext.permutations(), None);
            assert_eq!(ext.uniform_shapes(), None);
            // arrow-rs's storage: shapes and values per row.
            let s = batches[0]
                .column(0)
                .as_any()
                .downcast_ref::<StructArray>()
                .unwrap();
            let shapes = s
                .column_by_name("shape")
                .unwrap()
                .as_any()
                .downcast_ref::<FixedSizeListArray>()
                .unwrap();
            let data = s
                .column_by_name("data")
                .unwrap()
                .as_any()
                .downcast_ref::<ListArray>()
                .unwrap();
            for (row, t) in tensors.iter().enumerate() {
                let shape = shapes.value(row);
                let shape = shape.as_any().downcast_ref::<Int32Array>().unwrap();
                let shape: Vec<usize> = shape.values().iter().map(|&d| d as usize).collect();
                assert_eq!(shape, t.shape(), "{vt} row {row}");
                let values = data.value(row).to_data();
                let got = &values.buffers()[0].as_slice()
                    [values.offset() * w..(values.offset() + values.len()) * w];
                assert_eq!(got, t.row_major_bytes().as_slice(), "{vt} row {row}");
            }
        }
    }
}

/// A fixed-size-list storage array over `data` (`size` values per cell), as arrow-rs
/// builds it.
fn fixed_storage(vt: ValueType, data: Buffer, size: usize, rows: usize) -> FixedSizeListArray {
    let values = arrow_array::make_array(
        ArrayDataBuilder::new(arrow_type(vt))
            .len(size * rows)
            .add_buffer(data)
            .build()
            .unwrap(),
    );
    let item = Arc::new(Field::new("item", arrow_type(vt), false));
    FixedSizeListArray::try_new(item, size as i32, values, None).unwrap()
}

#[test]
fn we_read_arrow_rs_fixed_shape_fields() {
    let mut checked = 0;
    for (i, vt) in ValueType::ALL.into_iter().enumerate() {
        let shape = [2usize, 3, 4, 5];
        // (physical order of the cell dims, names): arrow-rs writes "permutations" (the
        // spec's permutation, the inverse of the order) and nulls for what is unset.
        let layouts: [(&[usize], bool); 5] = [
            (&[0, 1, 2], false),
            (&[0, 1, 2], true),
            (&[2, 1, 0], true),
            (&[1, 2, 0], false),
            (&[2, 0, 1], true),
        ];
        for (k, (order, named)) in layouts.into_iter().enumerate() {
            let name = format!("{vt} layout {k}");
            let source = permuted_cells(vt, &shape, order, (10 * i + k) as u64);
            let logical_names = ["C", "H", "W"];
            let physical: Vec<usize> = order.iter().map(|&l| shape[1 + l]).collect();
            let identity = order.iter().enumerate().all(|(a, &b)| a == b);
            let perm = (!identity).then(|| inverse(order));
            let names = named.then(|| {
                order
                    .iter()
                    .map(|&l| logical_names[l].to_string())
                    .collect()
            });
            let ext =
                FixedShapeTensor::try_new(arrow_type(vt), physical.clone(), names, perm).unwrap();
            let meta = ext.serialize_metadata().unwrap();
            assert!(
                meta.contains("\"permutations\":")
                    && (identity || !meta.contains("\"permutation\":")),
                "{name}: arrow-rs metadata {meta}"
            );
            if !named {
                assert!(meta.contains("\"dim_names\":null"), "{name}: {meta}");
            }
            let storage = fixed_storage(vt, source.data().clone(), 60, 2);
            let field =
                Field::new("tensor", storage.data_type().clone(), false).with_extension_type(ext);
            let schema = Arc::new(Schema::new(vec![field]));
            let batch =
                RecordBatch::try_new(schema.clone(), vec![Arc::new(storage) as ArrayRef]).unwrap();
            let mut expected = source.clone();
            if named {
                expected = expected.with_dim_names(["", "C", "H", "W"]).unwrap();
            }
            for file in [false, true] {
                let mut bytes = Vec::new();
                if file {
                    let mut w = FileWriter::try_new(&mut bytes, &schema).unwrap();
                    w.write(&batch).unwrap();
                    w.finish().unwrap();
                } else {
                    let mut w = StreamWriter::try_new(&mut bytes, &schema).unwrap();
                    w.write(&batch).unwrap();
                    w.finish().unwrap();
                }
                let mut read =
                    IpcBatches::new(Buffer::from_vec(bytes), &IpcReadOptions::default()).unwrap();
                let schema = read.schema().clone();
                let b = read.next().unwrap().unwrap();
                let t = fixed_shape_to_tensor(schema.field(0), b.column(0))
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(t.shape(), &shape, "{name}");
                assert!(
                    t.content_eq(&expected),
                    "{name}: {:?} {:?}",
                    t.shape(),
                    t.dim_names()
                );
                let m = batch_to_messages(&b, &MessageOptions::default()).unwrap();
                assert!(m[0].as_tensor().unwrap().content_eq(&expected), "{name}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 11 * 5 * 2);
}

#[test]
fn we_read_arrow_rs_variable_shape_fields() {
    for (i, vt) in ValueType::ALL.into_iter().enumerate() {
        let w = vt.byte_width();
        // Physical shapes of three cells, rank 3; permutation [2, 0, 1] (logical i is
        // physical perm[i]); uniform shape with a null.
        let physical: [[usize; 3]; 3] = [[2, 3, 4], [2, 1, 4], [2, 0, 4]];
        let perm = vec![2usize, 0, 1];
        for (k, with_meta) in [false, true].into_iter().enumerate() {
            let name = format!("{vt} {k}");
            let ext = if with_meta {
                VariableShapeTensor::try_new(
                    arrow_type(vt),
                    3,
                    Some(vec!["a".into(), "b".into(), "c".into()]),
                    Some(perm.clone()),
                    Some(vec![Some(2), None, Some(4)]),
                )
            } else {
                VariableShapeTensor::try_new(arrow_type(vt), 3, None, None, None)
            }
            .unwrap();
            let meta = ext.serialize_metadata().unwrap();
            if !with_meta {
                assert!(meta.contains("null"), "{name}: {meta}");
            }
            let counts: Vec<usize> = physical.iter().map(|s| s.iter().product()).collect();
            let total: usize = counts.iter().sum();
            let data = sample(vt, total, i as u64 + 7);
            let values = arrow_array::make_array(
                ArrayDataBuilder::new(arrow_type(vt))
                    .len(total)
                    .add_buffer(data.clone())
                    .build()
                    .unwrap(),
            );
            let mut offsets = vec![0i32];
            for c in &counts {
                offsets.push(offsets.last().unwrap() + *c as i32);
            }
            let list = ListArray::try_new(
                Arc::new(Field::new_list_field(arrow_type(vt), false)),
                OffsetBuffer::new(ScalarBuffer::from(offsets.clone())),
                values,
                None,
            )
            .unwrap();
            let shape_values: Vec<i32> = physical.iter().flatten().map(|&d| d as i32).collect();
            let shapes = FixedSizeListArray::try_new(
                Arc::new(Field::new_list_field(DataType::Int32, false)),
                3,
                Arc::new(Int32Array::from(shape_values)),
                None,
            )
            .unwrap();
            let DataType::Struct(fields) = DataType::Struct(
                vec![
                    Field::new("data", list.data_type().clone(), false),
                    Field::new("shape", shapes.data_type().clone(), false),
                ]
                .into(),
            ) else {
                unreachable!()
            };
            let storage = StructArray::try_new(
                fields,
                vec![Arc::new(list) as ArrayRef, Arc::new(shapes) as ArrayRef],
                None,
            )
            .unwrap();
            let field =
                Field::new("cells", storage.data_type().clone(), false).with_extension_type(ext);
            let schema = Arc::new(Schema::new(vec![field]));
            let batch =
                RecordBatch::try_new(schema.clone(), vec![Arc::new(storage) as ArrayRef]).unwrap();
            let mut bytes = Vec::new();
            let mut wr = StreamWriter::try_new(&mut bytes, &schema).unwrap();
            wr.write(&batch).unwrap();
            wr.finish().unwrap();
            drop(wr);
            let mut read =
                IpcBatches::new(Buffer::from_vec(bytes), &IpcReadOptions::default()).unwrap();
            let schema = read.schema().clone();
            let b = read.next().unwrap().unwrap();
            let tensors = variable_shape_to_tensors(schema.field(0), b.column(0))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(tensors.len(), 3);
            for (row, (t, p)) in tensors.iter().zip(&physical).enumerate() {
                let ps = row_major_strides(p, w);
                let start = offsets[row] as usize * w;
                let cell = data.slice_with_length(start, counts[row] * w);
                let want = if with_meta {
                    // The spec's logical view: numpy's physical.transpose(perm).
                    let shape: Vec<usize> = perm.iter().map(|&j| p[j]).collect();
                    let strides: Vec<usize> = perm.iter().map(|&j| ps[j]).collect();
                    Tensor::try_new(vt, shape, strides, cell)
                        .unwrap()
                        .with_dim_names(["c", "a", "b"])
                        .unwrap()
                } else {
                    Tensor::try_new(vt, p, ps, cell).unwrap()
                };
                assert!(
                    t.content_eq(&want),
                    "{name} row {row}: {:?} {:?}, expected {:?} {:?}",
                    t.shape(),
                    t.dim_names(),
                    want.shape(),
                    want.dim_names()
                );
            }
        }
    }
}
