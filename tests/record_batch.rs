//! The record-batch bridge on its own: round trips of every kind of column, zero copies
//! where promised, the metadata both Arrow implementations write, and typed errors for bad
//! input (including every truncation and many corruptions of valid streams and files).

use arrow_array::{Array, ArrayRef, FixedSizeListArray, Float32Array, RecordBatch};
use arrow_buffer::{Buffer, NullBuffer};
use arrow_schema::{DataType, Field, Schema};
use arrow_tensor_ipc::formats::detect::{detect, FileKind};
use arrow_tensor_ipc::record_batch::{
    batch_to_messages, coo_table_to_sparse, fixed_shape_cells, fixed_shape_to_tensor,
    sparse_to_coo_table, tensor_to_fixed_shape, tensors_to_variable_shape,
    variable_shape_to_tensors, BatchBuilder, BatchWriter, FixedShapeOptions, FixedShapeTensorType,
    IpcBatches, IpcFormat, IpcReadOptions, IpcStreamReader, IpcWriteOptions, IpcWriter, Layout,
    MessageOptions, Rows, TableFormat, VariableShapeTensorType, COO_TABLE_KEY,
};
use arrow_tensor_ipc::{
    column_major_strides, encode, ConvertOptions, ErrorKind, Message, SparseFormat, SparseIndex,
    SparseTensor, Tensor, ValueType, WriteOptions,
};
use std::collections::HashMap;
use std::sync::Arc;

/// `s` in its own layout (and CSF axis order) with the index type a conversion picks by
/// content: what reading its COO table back gives.
fn by_content(s: &SparseTensor) -> SparseTensor {
    let mut options = arrow_tensor_ipc::ConvertOptions::default();
    if let SparseIndex::Csf(c) = s.index() {
        options = options.with_axis_order(arrow_tensor_ipc::CsfAxisOrder::Explicit(
            c.axis_order().to_vec(),
        ));
    }
    arrow_tensor_ipc::convert::convert(s, s.format(), &options).unwrap()
}

fn f32_tensor(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_vec(shape, (0..n).map(|v| v as f32 * 0.5 - 3.0).collect()).unwrap()
}

/// A column-major copy of a row-major tensor (same logical values).
fn column_major(t: &Tensor) -> Tensor {
    let w = t.value_type().byte_width();
    let shape = t.shape().to_vec();
    let strides = column_major_strides(&shape, w);
    let mut data = vec![0u8; t.len() * w];
    let rm = t.row_major_bytes();
    let n = t.len();
    for lin in 0..n {
        // Row-major coordinates of element `lin`.
        let mut rest = lin;
        let mut off = 0;
        for d in (0..shape.len()).rev() {
            let c = rest % shape[d];
            rest /= shape[d];
            off += c * strides[d];
        }
        data[off..off + w].copy_from_slice(&rm[lin * w..lin * w + w]);
    }
    Tensor::try_new(t.value_type(), shape, strides, Buffer::from_vec(data))
        .unwrap()
        .with_dim_names(t.dim_names().to_vec())
        .unwrap()
}

#[test]
fn row_major_tensor_becomes_a_column_without_a_copy() {
    let t = f32_tensor(&[4, 2, 3])
        .with_dim_names(["n", "h", "w"])
        .unwrap();
    let col = tensor_to_fixed_shape(&t, &FixedShapeOptions::default()).unwrap();
    assert_eq!(col.tensor_type.shape(), &[2, 3]);
    assert_eq!(col.tensor_type.dim_names().unwrap(), &["h", "w"]);
    assert_eq!(col.array.len(), 4);
    assert_eq!(col.array.value_length(), 6);
    let values = col.array.values().to_data();
    assert_eq!(
        values.buffers()[0].as_ptr(),
        t.data().as_ptr(),
        "the list values are the tensor's buffer"
    );
    assert_eq!(
        col.tensor_type.metadata(),
        r#"{"shape":[2,3],"dim_names":["h","w"]}"#
    );
    let batch = col.into_record_batch("x").unwrap();
    let field = batch.schema().field(0).clone();
    assert!(!field.is_nullable());
    let DataType::FixedSizeList(item, 6) = field.data_type() else {
        panic!("{}", field.data_type())
    };
    assert!(!item.is_nullable(), "items are written non-nullable");
    let back = fixed_shape_to_tensor(&field, batch.column(0)).unwrap();
    assert!(back.content_eq(&t), "{back:?}");
    assert_eq!(
        back.data().as_ptr(),
        t.data().as_ptr(),
        "read back without a copy"
    );
}

#[test]
fn every_value_type_and_rank_round_trips() {
    for vt in ValueType::ALL {
        for rank in 1..=5usize {
            for zero in [false, true] {
                let shape: Vec<usize> = (0..rank)
                    .map(|d| if zero && d == rank - 1 { 0 } else { 2 + d % 2 })
                    .collect();
                let n: usize = shape.iter().product();
                let bytes: Vec<u8> = (0..n * vt.byte_width())
                    .map(|i| (i * 7 + 3) as u8)
                    .collect();
                let strides = arrow_tensor_ipc::row_major_strides(&shape, vt.byte_width());
                let t =
                    Tensor::try_new(vt, shape.clone(), strides, Buffer::from_vec(bytes)).unwrap();
                for rows in [Rows::FirstAxis, Rows::Whole] {
                    let opts = FixedShapeOptions::default().with_rows(rows);
                    let batch = tensor_to_fixed_shape(&t, &opts)
                        .unwrap()
                        .into_record_batch("t")
                        .unwrap();
                    let field = batch.schema().field(0).clone();
                    let back = match rows {
                        Rows::FirstAxis => fixed_shape_to_tensor(&field, batch.column(0)).unwrap(),
                        _ => {
                            let cells = fixed_shape_cells(&field, batch.column(0)).unwrap();
                            assert_eq!(cells.len(), 1);
                            cells.into_iter().next().unwrap()
                        }
                    };
                    assert!(back.content_eq(&t), "{vt} {shape:?} {rows:?}");
                }
                let col = tensors_to_variable_shape(&[t.clone(), t.clone()]).unwrap();
                let batch = col.into_record_batch("v").unwrap();
                let back =
                    variable_shape_to_tensors(batch.schema().field(0), batch.column(0)).unwrap();
                assert_eq!(back.len(), 2);
                assert!(
                    back[0].content_eq(&t) && back[1].content_eq(&t),
                    "{vt} {shape:?}"
                );
            }
        }
    }
}

#[test]
fn column_major_is_transposed_by_default_and_kept_with_a_permutation_on_request() {
    let rm = f32_tensor(&[3, 4]).with_dim_names(["r", "c"]).unwrap();
    let cm = column_major(&rm);
    assert!(cm.is_column_major() && cm.content_eq(&rm));
    let whole = FixedShapeOptions::default().with_rows(Rows::Whole);

    let col = tensor_to_fixed_shape(&cm, &whole).unwrap();
    assert_eq!(col.tensor_type.permutation(), None);
    assert_eq!(col.tensor_type.shape(), &[3, 4]);
    let batch = col.into_record_batch("t").unwrap();
    let back = &fixed_shape_cells(batch.schema().field(0), batch.column(0)).unwrap()[0];
    assert!(back.is_row_major() && back.content_eq(&rm));

    let col = tensor_to_fixed_shape(&cm, &whole.clone().with_layout(Layout::Keep)).unwrap();
    assert_eq!(col.tensor_type.permutation(), Some(&[1usize, 0][..]));
    assert_eq!(col.tensor_type.shape(), &[4, 3], "the physical shape");
    assert_eq!(col.tensor_type.dim_names().unwrap(), &["c", "r"]);
    assert_eq!(
        col.tensor_type.metadata(),
        r#"{"shape":[4,3],"dim_names":["c","r"],"permutation":[1,0]}"#
    );
    assert_eq!(
        col.array.values().to_data().buffers()[0].as_ptr(),
        cm.data().as_ptr(),
        "a kept layout is not copied"
    );
    let batch = col.into_record_batch("t").unwrap();
    let back = &fixed_shape_cells(batch.schema().field(0), batch.column(0)).unwrap()[0];
    assert!(back.is_column_major() && back.content_eq(&rm));

    // First axis as rows: a column-major [N, a] tensor cannot keep its layout.
    let err = tensor_to_fixed_shape(&cm, &FixedShapeOptions::default().with_layout(Layout::Keep))
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidStrides { .. }),
        "{err}"
    );
}

#[test]
fn metadata_of_either_implementation_is_read() {
    let item = |nullable| Arc::new(Field::new("item", DataType::Float32, nullable));
    let field = |meta: &str, nullable| {
        Field::new("t", DataType::FixedSizeList(item(nullable), 6), false).with_metadata(
            HashMap::from([
                (
                    "ARROW:extension:name".to_string(),
                    "arrow.fixed_shape_tensor".to_string(),
                ),
                ("ARROW:extension:metadata".to_string(), meta.to_string()),
            ]),
        )
    };
    // pyarrow: "permutation", nullable items.
    let py = FixedShapeTensorType::from_field(&field(
        r#"{"shape":[2,3],"permutation":[1,0],"dim_names":["H","W"]}"#,
        true,
    ))
    .unwrap();
    assert_eq!(py.permutation(), Some(&[1usize, 0][..]));
    assert_eq!(py.logical_shape(), vec![3, 2]);
    assert_eq!(py.logical_dim_names(), vec!["W", "H"]);
    // arrow-rs: "permutations", explicit nulls.
    let rs = FixedShapeTensorType::from_field(&field(
        r#"{"shape":[2,3],"dim_names":null,"permutations":null}"#,
        false,
    ))
    .unwrap();
    assert_eq!(
        rs,
        FixedShapeTensorType::new(ValueType::Float32, vec![2, 3])
    );
    let rs = FixedShapeTensorType::from_field(&field(
        r#"{"shape":[2,3],"dim_names":null,"permutations":[1,0]}"#,
        false,
    ))
    .unwrap();
    assert_eq!(rs.permutation(), Some(&[1usize, 0][..]));
    // Unknown keys are ignored; identity permutations are stored as none.
    let t = FixedShapeTensorType::from_field(&field(
        r#"{"shape":[2,3],"permutation":[0,1],"extra":1}"#,
        true,
    ))
    .unwrap();
    assert_eq!(t.permutation(), None);
    // Errors name the column.
    for (meta, want) in [
        ("not json", "not JSON"),
        ("[1]", "not a JSON object"),
        (r#"{"dim_names":["a","b"]}"#, "without \"shape\""),
        (r#"{"shape":[2,4]}"#, "list size 6 is not the product"),
        (r#"{"shape":[2,3],"permutation":[0,0]}"#, "permutation"),
        (
            r#"{"shape":[2,3],"permutation":[1,0],"permutations":[0,1]}"#,
            "differ",
        ),
        (r#"{"shape":[2,-3]}"#, "not a size"),
        (r#"{"shape":[2,3],"dim_names":["a"]}"#, "dim_names"),
    ] {
        let err = FixedShapeTensorType::from_field(&field(meta, false)).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidColumn { column, .. } if column == "t"),
            "{meta}: {err}"
        );
        assert!(err.to_string().contains(want), "{meta}: {err}");
    }
    // Variable shape: {} and uniform_shape with nulls.
    let vfield = |meta: &str| {
        let ty = VariableShapeTensorType::new(ValueType::Int32, 2);
        let f = ty.field("v").unwrap();
        let mut m = f.metadata().clone();
        m.insert("ARROW:extension:metadata".to_string(), meta.to_string());
        f.with_metadata(m)
    };
    let v = VariableShapeTensorType::from_field(&vfield(
        r#"{"uniform_shape":[null,3],"permutations":[1,0]}"#,
    ))
    .unwrap();
    assert_eq!(v.uniform_shape(), Some(&[None, Some(3)][..]));
    assert_eq!(v.permutation(), Some(&[1usize, 0][..]));
    assert!(VariableShapeTensorType::from_field(&vfield("")).is_err());
}

#[test]
fn null_cells_and_null_values_name_the_column_and_row() {
    let ty = FixedShapeTensorType::new(ValueType::Float32, vec![2]);
    let mut field = ty.field("img").unwrap();
    let DataType::FixedSizeList(_, _) = field.data_type() else {
        unreachable!()
    };
    let nullable_item = Arc::new(Field::new("item", DataType::Float32, true));
    field = Field::new(
        "img",
        DataType::FixedSizeList(nullable_item.clone(), 2),
        true,
    )
    .with_metadata(field.metadata().clone());
    let values: ArrayRef = Arc::new(Float32Array::from(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    let list = FixedSizeListArray::try_new(
        nullable_item.clone(),
        2,
        values,
        Some(NullBuffer::from(vec![true, true, false])),
    )
    .unwrap();
    let err = fixed_shape_to_tensor(&field, &list).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::NullCell { column, row: 2, what: "cell" } if column == "img"),
        "{err}"
    );
    let values: ArrayRef = Arc::new(Float32Array::from(vec![
        Some(1.0),
        Some(2.0),
        Some(3.0),
        None,
    ]));
    let list = FixedSizeListArray::try_new(nullable_item, 2, values, None).unwrap();
    let err = fixed_shape_to_tensor(&field, &list).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::NullCell { row: 1, .. }),
        "{err}"
    );
    // Nullable items without nulls read fine.
    let values: ArrayRef = Arc::new(Float32Array::from(vec![Some(1.0), Some(2.0)]));
    let list = FixedSizeListArray::try_new(
        Arc::new(Field::new("item", DataType::Float32, true)),
        2,
        values,
        None,
    )
    .unwrap();
    assert_eq!(
        fixed_shape_to_tensor(&field, &list)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![1.0, 2.0]
    );
}

fn every_layout() -> Vec<SparseTensor> {
    let dense = Tensor::from_vec(
        vec![3, 4],
        vec![
            0.0f64, 1.5, 0.0, 0.0, -2.0, 0.0, 0.0, 3.0, 0.0, 0.0, 4.0, 0.0,
        ],
    )
    .unwrap()
    .with_dim_names(["row", "col"])
    .unwrap();
    let mut out = Vec::new();
    for f in [
        SparseFormat::Coo,
        SparseFormat::Csr,
        SparseFormat::Csc,
        SparseFormat::Csf,
    ] {
        out.push(dense.to_sparse_with(f, &Default::default()).unwrap());
    }
    let cube = Tensor::from_vec(vec![2, 3, 2], (0..12).map(|v| (v % 3) as i16).collect()).unwrap();
    out.push(
        cube.to_sparse_with(SparseFormat::Coo, &Default::default())
            .unwrap(),
    );
    out.push(
        cube.to_sparse_with(
            SparseFormat::Csf,
            &arrow_tensor_ipc::ConvertOptions::default()
                .with_axis_order(arrow_tensor_ipc::CsfAxisOrder::Explicit(vec![2, 0, 1])),
        )
        .unwrap(),
    );
    out
}

#[test]
fn sparse_tensors_round_trip_through_coo_tables() {
    for t in every_layout() {
        let table = sparse_to_coo_table(&t).unwrap();
        assert_eq!(table.num_rows(), t.nnz());
        assert_eq!(table.num_columns(), t.ndim() + 1);
        let names: Vec<String> = table
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        if t.ndim() == 2 {
            assert_eq!(names, ["row", "col", "value"]);
        } else {
            assert_eq!(names, ["dim_0", "dim_1", "dim_2", "value"]);
        }
        let meta = table.schema().metadata()[COO_TABLE_KEY].clone();
        assert!(
            meta.contains(&format!("\"format\":\"{}\"", t.format().name())),
            "{meta}"
        );
        let back = coo_table_to_sparse(&table, None).unwrap();
        assert_eq!(back.format(), t.format());
        assert!(back.content_eq(&t), "{:?}\n{:?}", back, t);
        // Other layouts on request give the same dense values.
        for f in [SparseFormat::Coo, SparseFormat::Csr, SparseFormat::Csf] {
            if f != SparseFormat::Coo && t.ndim() != 2 && f == SparseFormat::Csr {
                continue;
            }
            let other = coo_table_to_sparse(&table, Some(f)).unwrap();
            assert_eq!(other.format(), f);
            assert!(other.to_dense().unwrap().content_eq(&t.to_dense().unwrap()));
        }
    }
}

#[test]
fn coo_tables_with_bad_contents_are_refused() {
    let t = &every_layout()[1];
    let table = sparse_to_coo_table(t).unwrap();
    // A coordinate outside its dimension.
    let mut cols: Vec<ArrayRef> = table.columns().to_vec();
    let rows = arrow_array::Int8Array::from(vec![0i8, 1, 7, 2]);
    cols[0] = Arc::new(rows);
    let bad = RecordBatch::try_new(table.schema(), cols).unwrap();
    let err = coo_table_to_sparse(&bad, None).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::CoordinateOutOfBounds { column, row: 2, value: 7, dim: 0, size: 3 } if column == "row"),
        "{err}"
    );
    // Metadata that is not JSON, or missing.
    for meta in [
        None,
        Some("{"),
        Some(r#"{"shape":[3,4],"format":"XYZ","index_type":"int32"}"#),
    ] {
        let mut m = HashMap::new();
        if let Some(s) = meta {
            m.insert(COO_TABLE_KEY.to_string(), s.to_string());
        }
        let schema = Schema::new(table.schema().fields().clone()).with_metadata(m);
        let bad = RecordBatch::try_new(Arc::new(schema), table.columns().to_vec()).unwrap();
        let err = coo_table_to_sparse(&bad, None).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidMetadata { .. }),
            "{meta:?}: {err}"
        );
    }
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

#[test]
fn streams_and_files_round_trip_and_are_detected() {
    let t = f32_tensor(&[5, 3]);
    let batch = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())
        .unwrap()
        .into_record_batch("t")
        .unwrap();
    let msg_bytes = encode(&Message::from(t.clone()), &WriteOptions::default())
        .unwrap()
        .to_vec();
    assert_eq!(detect(&msg_bytes, None), FileKind::TensorMessages);
    for format in [IpcFormat::Stream, IpcFormat::File] {
        let bytes = ipc_bytes(&[batch.clone(), batch.clone()], format);
        let kind = detect(&bytes, None);
        assert_eq!(
            kind,
            if format == IpcFormat::File {
                FileKind::IpcFile
            } else {
                FileKind::IpcStream
            }
        );
        let read: Vec<RecordBatch> =
            IpcBatches::new(Buffer::from_vec(bytes), &IpcReadOptions::default())
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
        assert_eq!(read.len(), 2);
        for b in &read {
            let msgs = batch_to_messages(b, &MessageOptions::default()).unwrap();
            assert_eq!(msgs.len(), 1);
            assert!(msgs[0].as_tensor().unwrap().content_eq(&t));
            let rows =
                batch_to_messages(b, &MessageOptions::default().with_rows(Rows::Whole)).unwrap();
            assert_eq!(rows.len(), 5);
        }
    }
    assert_eq!(IpcFormat::for_path("a/x.arrow".as_ref()), IpcFormat::File);
    assert_eq!(IpcFormat::for_path("x.feather".as_ref()), IpcFormat::File);
    assert_eq!(IpcFormat::for_path("x.arrows".as_ref()), IpcFormat::Stream);
}

/// Every truncation and a sweep of byte corruptions of a stream and a file: an error or a
/// result, never a panic.
#[test]
fn hostile_streams_and_files_give_errors_not_panics() {
    let t = f32_tensor(&[3, 2]);
    let fixed = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())
        .unwrap()
        .into_record_batch("t")
        .unwrap();
    let coo = sparse_to_coo_table(&every_layout()[3]).unwrap();
    for batch in [fixed, coo] {
        for format in [IpcFormat::Stream, IpcFormat::File] {
            let good = ipc_bytes(std::slice::from_ref(&batch), format);
            let run = |bytes: Vec<u8>| {
                if let Ok(read) =
                    IpcBatches::new(Buffer::from_vec(bytes), &IpcReadOptions::default())
                {
                    for b in read.flatten() {
                        let _ = batch_to_messages(&b, &MessageOptions::default());
                    }
                }
            };
            for cut in 0..good.len() {
                run(good[..cut].to_vec());
            }
            for i in 0..good.len() {
                for v in [0x00u8, 0xFF, 0x80, 0x01] {
                    let mut b = good.clone();
                    b[i] = v;
                    run(b);
                }
            }
        }
    }
}

#[test]
fn batch_builder_keeps_one_schema_and_names_the_message_that_differs() {
    let mut b = BatchBuilder::new(TableFormat::FixedShapeTensor, FixedShapeOptions::default());
    assert!(b.push(&f32_tensor(&[2, 3]).into()).unwrap().is_some());
    assert!(
        b.push(&f32_tensor(&[7, 3]).into()).unwrap().is_some(),
        "rows may differ"
    );
    let err = b.push(&f32_tensor(&[2, 4]).into()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Inconsistent { what, .. } if what.contains("message 2")),
        "{err}"
    );
    let sparse: Message = every_layout()[0].clone().into();
    let err = b.push(&sparse).unwrap_err();
    assert!(err.to_string().contains("message 3"), "{err}");

    let mut v = BatchBuilder::new(
        TableFormat::VariableShapeTensor,
        FixedShapeOptions::default(),
    );
    for n in 1..=3 {
        assert!(v.push(&f32_tensor(&[n, 2]).into()).unwrap().is_none());
    }
    let err = v.push(&f32_tensor(&[2]).into()).unwrap_err();
    assert!(err.to_string().contains("rank of message 3"), "{err}");
    let batch = v.finish().unwrap().unwrap();
    assert_eq!(batch.num_rows(), 3);
    let msgs = batch_to_messages(&batch, &MessageOptions::default()).unwrap();
    assert_eq!(msgs[2].as_tensor().unwrap().shape(), &[3, 2]);

    let mut c = BatchBuilder::new(TableFormat::CooTable, FixedShapeOptions::default());
    let layouts = every_layout();
    let first = c.push(&layouts[1].clone().into()).unwrap().unwrap();
    let back = batch_to_messages(&first, &MessageOptions::default()).unwrap();
    assert!(back[0].as_sparse().unwrap().content_eq(&layouts[1]));
    let err = c.push(&layouts[4].clone().into()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Inconsistent { .. }),
        "{err}"
    );
}

#[path = "../fuzz/record_batch_target.rs"]
mod fuzz_target;

#[path = "common/replay.rs"]
mod replay;

/// Valid streams and files of every kind of column, for the fuzz corpus: written to
/// `$ARROW_TENSOR_IPC_RB_SEEDS` when set.
fn seed_inputs() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let t = f32_tensor(&[3, 2, 2])
        .with_dim_names(["n", "h", "w"])
        .unwrap();
    let fixed = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())
        .unwrap()
        .into_record_batch("t")
        .unwrap();
    let kept = tensor_to_fixed_shape(
        &column_major(&f32_tensor(&[2, 3])),
        &FixedShapeOptions::default()
            .with_rows(Rows::Whole)
            .with_layout(Layout::Keep),
    )
    .unwrap()
    .into_record_batch("k")
    .unwrap();
    let var = tensors_to_variable_shape(&[f32_tensor(&[2, 2]), f32_tensor(&[1, 3])])
        .unwrap()
        .into_record_batch("v")
        .unwrap();
    let mut tables = vec![("fixed", fixed), ("kept", kept), ("variable", var)];
    for (i, s) in every_layout().into_iter().enumerate() {
        tables.push((
            ["coo", "csr", "csc", "csf", "coo3", "csf3"][i],
            sparse_to_coo_table(&s).unwrap(),
        ));
    }
    for (name, batch) in tables {
        out.push((
            format!("{name}-stream"),
            ipc_bytes(std::slice::from_ref(&batch), IpcFormat::Stream),
        ));
        out.push((format!("{name}-file"), ipc_bytes(&[batch], IpcFormat::File)));
    }
    out
}

#[test]
fn fuzz_seeds_and_corpus_replay() {
    let seeds = seed_inputs();
    if let Ok(dir) = std::env::var("ARROW_TENSOR_IPC_RB_SEEDS") {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in &seeds {
            std::fs::write(std::path::Path::new(&dir).join(name), bytes).unwrap();
        }
    }
    for (_, bytes) in &seeds {
        fuzz_target::record_batches(bytes);
    }
    replay::replay_corpus("record_batches", fuzz_target::record_batches);
}

/// Tables of more than 2^20 rows are split and interleaved on several threads: the same
/// coordinates come out as on one.
#[test]
fn large_coo_tables_round_trip() {
    for ndim in [2usize, 3, 4] {
        let nnz = (1 << 20) + 12_345;
        let side = 4096usize;
        let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ ndim as u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Distinct coordinates: row-major position k * step + jitter.
        let total = (side as u64).pow(ndim as u32);
        let step = total / nnz as u64;
        let mut coords = Vec::with_capacity(nnz * ndim);
        for k in 0..nnz as u64 {
            let mut lin = k * step + next() % step;
            let mut c = vec![0i64; ndim];
            for d in (0..ndim).rev() {
                c[d] = (lin % side as u64) as i64;
                lin /= side as u64;
            }
            coords.extend(c);
        }
        let values: Vec<f32> = (0..nnz).map(|i| i as f32).collect();
        let t = SparseTensor::coo(vec![side; ndim], coords.clone(), values).unwrap();
        let table = sparse_to_coo_table(&t).unwrap();
        for d in 0..ndim {
            // The coordinate columns have the shape's coordinate type (4095: int16).
            let col = table
                .column(d)
                .as_any()
                .downcast_ref::<arrow_array::Int16Array>()
                .unwrap();
            for k in [0, 1, nnz / 2, nnz - 1] {
                assert_eq!(
                    col.value(k) as i64,
                    coords[k * ndim + d],
                    "ndim {ndim} row {k} dim {d}"
                );
            }
        }
        let back = coo_table_to_sparse(&table, None).unwrap();
        assert!(back.content_eq(&by_content(&t)), "ndim {ndim}");
        // The CSF tree built from the sorted rows in runs, one per thread, joined.
        let csf = coo_table_to_sparse(&table, Some(SparseFormat::Csf)).unwrap();
        assert!(csf.content_eq(&csf_of(&t)), "CSF, ndim {ndim}");
    }
}

/// A COO table of more than 2^20 rows is interleaved and checked in shares, one per
/// thread: rows out of order exactly once, at the first row, in the middle, at the share
/// boundaries of 2 to 8 threads or at the last row, make a non-canonical tensor with the
/// same entries, and a coordinate out of range at any of those rows is reported by column
/// and row.
#[test]
fn large_coo_tables_are_checked_across_thread_shares() {
    use arrow_array::{Float32Array, Int16Array};
    let nnz = (1usize << 20) + 7;
    let side = 4096usize;
    // Columns of the shape's coordinate type (4095: int16).
    let rows: Vec<i16> = (0..nnz).map(|k| (k * 15 / side) as i16).collect();
    let cols: Vec<i16> = (0..nnz).map(|k| (k * 15 % side) as i16).collect();
    let values: Vec<f32> = (0..nnz).map(|k| k as f32).collect();
    let coords: Vec<i32> = rows
        .iter()
        .zip(&cols)
        .flat_map(|(&r, &c)| [r as i32, c as i32])
        .collect();
    let t = SparseTensor::coo([side, side], coords, values.clone()).unwrap();
    let table = sparse_to_coo_table(&t).unwrap();
    let back = coo_table_to_sparse(&table, None).unwrap();
    assert!(back.content_eq(&t));
    let SparseIndex::Coo(c) = back.index() else {
        panic!("not COO")
    };
    assert!(c.is_canonical());
    let with = |rows: Vec<i16>, cols: Vec<i16>, values: Vec<f32>| {
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(Int16Array::from(rows)),
            Arc::new(Int16Array::from(cols)),
            Arc::new(Float32Array::from(values)),
        ];
        RecordBatch::try_new(table.schema(), arrays).unwrap()
    };
    let mut positions = vec![1, nnz / 2, nnz - 1];
    positions.extend((2..=8).map(|t| nnz.div_ceil(t)));
    let csr = |s: &SparseTensor| {
        arrow_tensor_ipc::convert::convert(s, SparseFormat::Csr, &Default::default()).unwrap()
    };
    for p in positions {
        let (mut r, mut c, mut v) = (rows.clone(), cols.clone(), values.clone());
        r.swap(p - 1, p);
        c.swap(p - 1, p);
        v.swap(p - 1, p);
        let swapped = coo_table_to_sparse(&with(r.clone(), c.clone(), v.clone()), None).unwrap();
        let SparseIndex::Coo(index) = swapped.index() else {
            panic!("not COO")
        };
        assert!(!index.is_canonical(), "rows swapped at {p}");
        assert!(csr(&swapped).content_eq(&csr(&t)), "rows swapped at {p}");
        let mut bad = cols.clone();
        bad[p] = side as i16;
        let err = coo_table_to_sparse(&with(rows.clone(), bad, values.clone()), None).unwrap_err();
        match err.kind() {
            ErrorKind::CoordinateOutOfBounds { column, row, .. } => {
                assert_eq!(column, "dim_1");
                assert_eq!(*row, p);
            }
            other => panic!("{other:?}"),
        }
    }
}

/// A large CSF tensor in the identity axis order becomes a COO table without a
/// conversion; the table equals the one of its COO conversion, and reads back as the
/// same CSF tensor.
#[test]
fn large_csf_tensors_become_the_tables_of_their_coo_conversion() {
    let nnz = (1usize << 20) + 11;
    let shape = [64usize, 128, 1024];
    let coords: Vec<i64> = (0..nnz as i64)
        .flat_map(|k| {
            let lin = k * 7;
            [lin / (128 * 1024), lin / 1024 % 128, lin % 1024]
        })
        .collect();
    let values: Vec<f64> = (0..nnz).map(|k| k as f64 * 0.5).collect();
    let coo = SparseTensor::coo(shape, coords, values).unwrap();
    let csf = arrow_tensor_ipc::convert::convert(
        &coo,
        SparseFormat::Csf,
        &arrow_tensor_ipc::ConvertOptions::default()
            .with_index_type(arrow_tensor_ipc::IndexType::Int64),
    )
    .unwrap();
    let table = sparse_to_coo_table(&csf).unwrap();
    let reference = sparse_to_coo_table(&coo).unwrap();
    for d in 0..4 {
        // (Not assert_eq: a failure would print a million values.)
        assert!(
            table.column(d).to_data() == reference.column(d).to_data(),
            "column {d}"
        );
    }
    let back = coo_table_to_sparse(&table, None).unwrap();
    assert!(back.content_eq(&by_content(&csf)));
}

/// CSF trees of every shape of node (one leaf to thousands, lengths around the short-node
/// store, skipped stretches, nodes straddling the cut between thread shares) at ranks 2
/// to 4, in index types narrower, wider and equal to the table's coordinate type, give
/// the table of their COO conversion.
#[test]
fn irregular_csf_trees_give_the_tables_of_their_coo_conversion() {
    use arrow_tensor_ipc::IndexType;
    let nnz = 300_007usize;
    let cases: [(&[usize], IndexType); 6] = [
        (&[30_000, 6_000], IndexType::Int32),
        (&[60, 900, 5_000], IndexType::Int64),
        (&[60, 900, 5_000], IndexType::UInt32),
        (&[3, 40_000, 40_000], IndexType::Int32),
        (&[9, 10, 500, 5_000], IndexType::Int64),
        (&[2, 3, 5_000, 1 << 20], IndexType::Int64),
    ];
    for (shape, it) in cases {
        // Rows (all but the last dimension, in order) get a leaf count from a hash: mostly
        // 1..=40, sometimes hundreds or thousands, sometimes none, and now and then a
        // stretch of rows is skipped.
        let cols = *shape.last().unwrap();
        let rows: usize = shape[..shape.len() - 1].iter().product();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut cells = Vec::with_capacity(nnz);
        let mut row = 0;
        while cells.len() < nnz && row < rows {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let pick = (state >> 33) as usize;
            let len = match pick % 8 {
                0 => 0,
                1..=5 => 1 + pick / 8 % 40,
                6 => 1 + pick / 8 % 300,
                _ => pick / 8 % 5_000,
            }
            .min(cols);
            let step = cols / len.max(1);
            cells.extend((0..len).map(|c| row * cols + c * step));
            row += 1 + if pick % 16 == 15 {
                pick / 16 % 1_000
            } else {
                0
            };
        }
        let coords: Vec<i64> = cells
            .iter()
            .flat_map(|&cell| {
                let mut rest = cell;
                let mut row = vec![0i64; shape.len()];
                for (d, &n) in shape.iter().enumerate().rev() {
                    row[d] = (rest % n) as i64;
                    rest /= n;
                }
                row
            })
            .collect();
        let values: Vec<f64> = (0..cells.len()).map(|k| k as f64).collect();
        let coo = SparseTensor::coo(shape, coords, values).unwrap();
        let csf = arrow_tensor_ipc::convert::convert(
            &coo,
            SparseFormat::Csf,
            &arrow_tensor_ipc::ConvertOptions::default().with_index_type(it),
        )
        .unwrap();
        let table = sparse_to_coo_table(&csf).unwrap();
        let reference = sparse_to_coo_table(&coo).unwrap();
        assert_eq!(
            table.schema().fields(),
            reference.schema().fields(),
            "{shape:?} {it:?}"
        );
        for d in 0..=shape.len() {
            assert!(
                table.column(d).to_data() == reference.column(d).to_data(),
                "{shape:?} {it:?}: column {d}"
            );
        }
    }
}

/// A one-row COO table (coordinates (0, 1), value 1.0, int64 columns) whose schema
/// metadata is `meta`.
fn claimed_table(meta: &str) -> RecordBatch {
    use arrow_array::{Float64Array, Int64Array};
    let fields = vec![
        Field::new("dim_0", DataType::Int64, false),
        Field::new("dim_1", DataType::Int64, false),
        Field::new("value", DataType::Float64, false),
    ];
    let schema = Schema::new(fields).with_metadata(HashMap::from([(
        COO_TABLE_KEY.to_string(),
        meta.to_string(),
    )]));
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![0i64])),
        Arc::new(Int64Array::from(vec![1i64])),
        Arc::new(Float64Array::from(vec![1.0f64])),
    ];
    RecordBatch::try_new(Arc::new(schema), arrays).unwrap()
}

fn expect_column_limit(err: arrow_tensor_ipc::Error, want_column: &str, rule: &str) {
    match err.kind() {
        ErrorKind::ColumnLimitExceeded {
            column, rule: r, ..
        } => {
            assert_eq!(column, want_column, "{err}");
            assert!(r.contains(rule), "{err}");
        }
        other => panic!("not a ColumnLimitExceeded: {other:?}"),
    }
}

/// The shape a COO table's metadata claims is input: a CSR (CSC) result whose indptr of
/// `shape[0] + 1` (`shape[1] + 1`) entries is longer than `Limits::max_index_len` and
/// than the rows back is refused, naming the column, before anything is allocated
/// (before, 2^40 rows aborted on an 8 TiB allocation and 2^63 - 1 panicked).
#[test]
fn claimed_coo_table_shapes_are_checked_before_allocating() {
    use arrow_tensor_ipc::record_batch::coo_table_to_sparse_with;
    use arrow_tensor_ipc::Limits;
    let big = 1u64 << 40;
    let max = i64::MAX as u64;
    for (shape, recorded, target, column) in [
        ([big, 2], "CSR", None, "dim_0"),
        ([max, 2], "CSR", None, "dim_0"),
        ([2, big], "CSC", None, "dim_1"),
        ([2, max], "CSC", None, "dim_1"),
        ([big, 2], "COO", Some(SparseFormat::Csr), "dim_0"),
        ([2, big], "CSR", Some(SparseFormat::Csc), "dim_1"),
    ] {
        let meta = format!(
            r#"{{"shape":[{},{}],"format":"{recorded}","index_type":"int64"}}"#,
            shape[0], shape[1]
        );
        let table = claimed_table(&meta);
        let err = coo_table_to_sparse(&table, target).unwrap_err();
        expect_column_limit(err, column, "max_index_len");
        // What needs no indptr of that size reads fine: COO, and the other axis.
        let coo = coo_table_to_sparse(&table, Some(SparseFormat::Coo)).unwrap();
        assert_eq!(coo.nnz(), 1);
        assert_eq!(coo.shape(), &[shape[0] as usize, shape[1] as usize]);
        let other = if column == "dim_0" {
            SparseFormat::Csc
        } else {
            SparseFormat::Csr
        };
        assert_eq!(coo_table_to_sparse(&table, Some(other)).unwrap().nnz(), 1);
    }
    // The limit is the caller's: 1000 rows fit the default, not a limit of 100.
    let table = claimed_table(r#"{"shape":[1000,2],"format":"CSR","index_type":"int64"}"#);
    assert_eq!(coo_table_to_sparse(&table, None).unwrap().nnz(), 1);
    let small = Limits::default().with_max_index_len(100);
    let err = coo_table_to_sparse_with(&table, None, &ConvertOptions::default().with_limits(small))
        .unwrap_err();
    expect_column_limit(err, "dim_0", "max_index_len");
    // So are the rank and the number of rows.
    let ones = vec!["1"; 65].join(",");
    let table = claimed_table(&format!(
        r#"{{"shape":[{ones}],"format":"COO","index_type":"int64"}}"#
    ));
    match coo_table_to_sparse(&table, None).unwrap_err().kind() {
        ErrorKind::LimitExceeded { what, value, .. } => {
            assert!(what.contains("Limits::max_rank"), "{what}");
            assert_eq!(*value, 65);
        }
        other => panic!("not a LimitExceeded: {other:?}"),
    }
    let table = claimed_table(r#"{"shape":[3,4],"format":"COO","index_type":"int64"}"#);
    let err = coo_table_to_sparse_with(
        &table,
        None,
        &ConvertOptions::default().with_limits(Limits::default().with_max_nnz(0)),
    )
    .unwrap_err();
    expect_column_limit(err, "value", "max_nnz");
    // Through batch_to_messages, with the limits of its options.
    let table = claimed_table(r#"{"shape":[1000,2],"format":"CSR","index_type":"int64"}"#);
    let err = batch_to_messages(&table, &MessageOptions::default().with_limits(small)).unwrap_err();
    expect_column_limit(err, "dim_0", "max_index_len");
}

/// An axis order that is not a permutation of the dimensions is refused when the schema
/// is read.
#[test]
fn claimed_axis_orders_must_be_permutations() {
    for order in [
        "[0,5]",
        "[0,0]",
        "[1]",
        "[0,1,2]",
        "[0,18446744073709551615]",
    ] {
        let meta = format!(
            r#"{{"shape":[3,4],"format":"CSF","index_type":"int64","axis_order":{order}}}"#
        );
        let err = coo_table_to_sparse(&claimed_table(&meta), None).unwrap_err();
        match err.kind() {
            ErrorKind::InvalidMetadata { key, reason } => {
                assert_eq!(*key, arrow_tensor_ipc::record_batch::COO_TABLE_KEY);
                assert!(reason.contains("axis_order"), "{reason}");
            }
            other => panic!("{order}: {other:?}"),
        }
    }
    let meta = r#"{"shape":[3,4],"format":"CSF","index_type":"int64","axis_order":[1,0]}"#;
    let t = coo_table_to_sparse(&claimed_table(meta), None).unwrap();
    let SparseIndex::Csf(c) = t.index() else {
        panic!("not CSF")
    };
    assert_eq!(c.axis_order(), &[1, 0]);
}

/// Fixed-shape columns: a cell rank over `Limits::max_rank` and a cell shape whose
/// element count the storage's list size does not hold are errors naming the column.
#[test]
fn claimed_fixed_shape_cells_are_checked() {
    use arrow_tensor_ipc::record_batch::{fixed_shape_to_tensor_with, FIXED_SHAPE_TENSOR};
    use arrow_tensor_ipc::Limits;
    let fsl = |size: i32, rows: usize| -> FixedSizeListArray {
        let item = Arc::new(Field::new("item", DataType::Float32, false));
        let values: ArrayRef = Arc::new(Float32Array::from(vec![1.0f32; size as usize * rows]));
        FixedSizeListArray::try_new(item, size, values, None).unwrap()
    };
    // Rank 64 cells: a tensor of rank 65.
    let ty = FixedShapeTensorType::new(ValueType::Float32, vec![1; 64]);
    let field = ty.field("t").unwrap();
    let array = fsl(1, 2);
    expect_column_limit(
        fixed_shape_to_tensor(&field, &array).unwrap_err(),
        "t",
        "max_rank",
    );
    let roomy = Limits::default().with_max_rank(65);
    let t = fixed_shape_to_tensor_with(
        &field,
        &array,
        &ConvertOptions::default().with_limits(roomy),
    )
    .unwrap();
    assert_eq!(t.ndim(), 65);
    // A huge cell shape over a list of one value.
    for shape in [
        "[1048576,1048576]",
        "[1099511627776]",
        "[9223372036854775807,2]",
    ] {
        let field = Field::new(
            "t",
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, false)), 1),
            false,
        )
        .with_metadata(HashMap::from([
            (
                "ARROW:extension:name".to_string(),
                FIXED_SHAPE_TENSOR.to_string(),
            ),
            (
                "ARROW:extension:metadata".to_string(),
                format!(r#"{{"shape":{shape}}}"#),
            ),
        ]));
        let err = fixed_shape_to_tensor(&field, &fsl(1, 2)).unwrap_err();
        match err.kind() {
            ErrorKind::InvalidColumn { column, .. } => assert_eq!(column, "t", "{err}"),
            other => panic!("{shape}: {other:?}"),
        }
        assert!(fixed_shape_cells(&field, &fsl(1, 2)).is_err());
    }
}

/// Variable-shape columns: a rank (shape list size) over `Limits::max_rank` is refused
/// before anything is allocated from it, and a shape cell claiming more elements than its
/// row holds is an error naming the column and row.
#[test]
fn claimed_variable_shapes_are_checked() {
    use arrow_array::{Int32Array, ListArray, StructArray};
    use arrow_buffer::{OffsetBuffer, ScalarBuffer};
    let column = |ndim: usize, sizes: Vec<i32>, values: Vec<f32>| -> (Field, StructArray) {
        let ty = VariableShapeTensorType::new(ValueType::Float32, ndim);
        let field = ty.field("v").unwrap();
        let DataType::Struct(fields) = ty.storage_type().unwrap() else {
            panic!("not a struct")
        };
        let n = values.len() as i32;
        let list = ListArray::try_new(
            Arc::new(Field::new("item", DataType::Float32, false)),
            OffsetBuffer::new(ScalarBuffer::from(vec![0i32, n])),
            Arc::new(Float32Array::from(values)),
            None,
        )
        .unwrap();
        let shape = FixedSizeListArray::try_new(
            Arc::new(Field::new("item", DataType::Int32, false)),
            ndim as i32,
            Arc::new(Int32Array::from(sizes)),
            None,
        )
        .unwrap();
        let array = StructArray::try_new(
            fields,
            vec![Arc::new(list) as ArrayRef, Arc::new(shape) as ArrayRef],
            None,
        )
        .unwrap();
        (field, array)
    };
    let (field, array) = column(100, vec![1; 100], vec![1.0]);
    expect_column_limit(
        variable_shape_to_tensors(&field, &array).unwrap_err(),
        "v",
        "max_rank",
    );
    for sizes in [
        vec![1 << 30, 1 << 30],
        vec![i32::MAX, 2],
        vec![65536, 65536],
        vec![3, 2],
    ] {
        let (field, array) = column(2, sizes.clone(), vec![1.0, 2.0, 3.0, 4.0]);
        let err = variable_shape_to_tensors(&field, &array).unwrap_err();
        match err.kind() {
            ErrorKind::InvalidColumn { column, reason } => {
                assert_eq!(column, "v");
                assert!(reason.starts_with("row 0:"), "{sizes:?}: {reason}");
            }
            other => panic!("{sizes:?}: {other:?}"),
        }
    }
    let (field, array) = column(2, vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        variable_shape_to_tensors(&field, &array).unwrap()[0].shape(),
        &[2, 2]
    );
}

/// A CSR read permissively with column indices out of order within a row
/// (`[2, 0]` in row 0).
fn unsorted_csr() -> SparseTensor {
    let strict = SparseTensor::csr(
        [2, 3],
        vec![0i32, 2, 3],
        vec![0, 2, 1],
        vec![1.0f64, 2.0, 3.0],
    )
    .unwrap();
    let SparseIndex::Csx(c) = strict.index() else {
        panic!("not CSR")
    };
    let indices = arrow_tensor_ipc::IndexArray::from_vec(vec![2i32, 0, 1]);
    let index = arrow_tensor_ipc::CsxIndex::new(c.axis(), c.indptr().clone(), indices).unwrap();
    SparseTensor::try_new_with_validation(
        ValueType::Float64,
        vec![2, 3],
        Buffer::from_vec(vec![1.0f64, 2.0, 3.0]),
        SparseIndex::Csx(index),
        arrow_tensor_ipc::Validation::Permissive,
    )
    .unwrap()
}

/// Tables come in any row order: reading one into CSR, CSC or CSF sorts (before, a CSR
/// exported from a permissive tensor with unsorted column indices came back refused:
/// "indices must strictly increase within a row").
#[test]
fn coo_tables_in_any_order_are_sorted_when_read() {
    let t = unsorted_csr();
    assert!(t.clone().validate().is_err());
    let table = sparse_to_coo_table(&t).unwrap();
    assert_eq!(table.num_rows(), 3);
    let dense = Tensor::from_vec(vec![2, 3], vec![2.0f64, 0.0, 1.0, 0.0, 3.0, 0.0]).unwrap();
    for format in [
        None,
        Some(SparseFormat::Csr),
        Some(SparseFormat::Csc),
        Some(SparseFormat::Csf),
        Some(SparseFormat::Coo),
    ] {
        let back = coo_table_to_sparse(&table, format).unwrap();
        assert_eq!(back.format(), format.unwrap_or(SparseFormat::Csr));
        assert!(back.is_validated());
        assert!(back.to_dense().unwrap().content_eq(&dense), "{format:?}");
    }
    let SparseIndex::Csx(c) = coo_table_to_sparse(&table, None).unwrap().index().clone() else {
        panic!("not CSR")
    };
    assert_eq!(c.indices().to_i64_vec(), vec![0, 2, 1]);
    // Rows in reverse, and a repeated coordinate (summed, as COO duplicates are).
    use arrow_array::{Float64Array, Int8Array};
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(Int8Array::from(vec![1i8, 0, 0, 0])),
        Arc::new(Int8Array::from(vec![1i8, 2, 0, 2])),
        Arc::new(Float64Array::from(vec![3.0f64, 0.5, 2.0, 0.5])),
    ];
    let shuffled = RecordBatch::try_new(table.schema(), arrays).unwrap();
    for format in [SparseFormat::Csr, SparseFormat::Csc, SparseFormat::Csf] {
        let back = coo_table_to_sparse(&shuffled, Some(format)).unwrap();
        assert!(back.to_dense().unwrap().content_eq(&dense), "{format:?}");
    }
}

/// A tensor read permissively with a coordinate outside its shape does not become a
/// table of bogus coordinates: the index is checked first.
#[test]
fn permissive_tensors_with_bad_coordinates_make_no_table() {
    let strict = SparseTensor::csr(
        [3, 4],
        vec![0i32, 1, 1, 3],
        vec![2, 0, 3],
        vec![1.5f64, -2.0, 4.0],
    )
    .unwrap();
    let SparseIndex::Csx(c) = strict.index() else {
        panic!("not CSR")
    };
    let indices = arrow_tensor_ipc::IndexArray::from_vec(vec![1_048_576i32, 0, 3]);
    let index = arrow_tensor_ipc::CsxIndex::new(c.axis(), c.indptr().clone(), indices).unwrap();
    let bad = SparseTensor::try_new_with_validation(
        ValueType::Float64,
        vec![3, 4],
        strict.values_buffer().clone(),
        SparseIndex::Csx(index),
        arrow_tensor_ipc::Validation::Permissive,
    )
    .unwrap();
    let err = sparse_to_coo_table(&bad).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::IndexOutOfBounds {
                value: 1_048_576,
                ..
            }
        ),
        "{err}"
    );
    // A COO one too, and through the batch builder.
    let coo = SparseTensor::try_new_with_validation(
        ValueType::Float64,
        vec![3, 4],
        Buffer::from_vec(vec![1.0f64]),
        SparseIndex::Coo(
            arrow_tensor_ipc::CooIndex::new(
                arrow_tensor_ipc::IndexArray::from_vec(vec![0i64, 9]),
                2,
            )
            .unwrap(),
        ),
        arrow_tensor_ipc::Validation::Permissive,
    )
    .unwrap();
    assert!(matches!(
        sparse_to_coo_table(&coo).unwrap_err().kind(),
        ErrorKind::IndexOutOfBounds { value: 9, .. }
    ));
    let mut b = BatchBuilder::new(TableFormat::CooTable, FixedShapeOptions::default());
    assert!(b.push(&Message::from(bad)).is_err());
}

/// One shape, one schema: the coordinate columns have the shape's coordinate type
/// whatever the index type of the tensor (before, a stream of an all-zero CSR, int16, and
/// a non-zero one, int32, of one shape failed as a COO table); reading back picks index
/// types by content; different shapes stay an error naming the difference.
#[test]
fn coo_tables_of_one_shape_share_one_schema() {
    use arrow_tensor_ipc::record_batch::coordinate_type;
    use arrow_tensor_ipc::{ConvertOptions, IndexType};
    assert_eq!(coordinate_type(&[512, 512]), IndexType::Int16);
    assert_eq!(coordinate_type(&[128, 3]), IndexType::Int8);
    assert_eq!(coordinate_type(&[129, 3]), IndexType::Int16);
    assert_eq!(coordinate_type(&[]), IndexType::Int8);
    let zeros = Tensor::from_vec(vec![512, 512], vec![0.0f32; 512 * 512]).unwrap();
    let ones = Tensor::from_vec(vec![512, 512], vec![1.0f32; 512 * 512]).unwrap();
    let opts = ConvertOptions::default();
    let a = zeros.to_sparse_with(SparseFormat::Csr, &opts).unwrap();
    let b = ones.to_sparse_with(SparseFormat::Csr, &opts).unwrap();
    let c = ones
        .to_sparse_with(
            SparseFormat::Csr,
            &opts.clone().with_index_type(IndexType::Int64),
        )
        .unwrap();
    let mut builder = BatchBuilder::new(TableFormat::CooTable, FixedShapeOptions::default());
    let mut tables = Vec::new();
    for m in [a.clone(), b.clone(), c] {
        tables.push(builder.push(&Message::from(m)).unwrap().unwrap());
    }
    assert_eq!(tables[0].schema(), tables[1].schema());
    assert_eq!(tables[0].schema().field(0).data_type(), &DataType::Int16);
    // Dense messages of that shape (recorded as COO) likewise.
    let mut dense = BatchBuilder::new(TableFormat::CooTable, FixedShapeOptions::default());
    dense.push(&Message::from(zeros.clone())).unwrap();
    dense.push(&Message::from(ones.clone())).unwrap();
    // Back by content: the all-zero CSR as the conversion gives it, the full one int32.
    let back = coo_table_to_sparse(&tables[0], None).unwrap();
    assert!(back.content_eq(&a));
    let back = coo_table_to_sparse(&tables[1], None).unwrap();
    assert!(back.content_eq(&b));
    let SparseIndex::Csx(ci) = back.index() else {
        panic!("not CSR")
    };
    assert_eq!(ci.indptr().index_type(), IndexType::Int32);
    let back = coo_table_to_sparse(&tables[2], None).unwrap();
    assert!(back.content_eq(&b));
    // A small int32 CSR comes back int8.
    let small = SparseTensor::csr(
        [3, 4],
        vec![0i32, 1, 1, 3],
        vec![2, 0, 3],
        vec![1.5f64, -2.0, 4.0],
    )
    .unwrap();
    let back = coo_table_to_sparse(&sparse_to_coo_table(&small).unwrap(), None).unwrap();
    assert!(back.content_eq(&by_content(&small)));
    let SparseIndex::Csx(ci) = back.index() else {
        panic!("not CSR")
    };
    assert_eq!(ci.indices().index_type(), IndexType::Int8);
    // Another shape: an error naming the shapes.
    let other = Tensor::from_vec(vec![512, 256], vec![1.0f32; 512 * 256]).unwrap();
    let err = builder.push(&Message::from(other)).unwrap_err();
    assert!(err.to_string().contains("[512,256]"), "{err}");
    assert!(err.to_string().contains("message 3"), "{err}");
}

/// Rows of fixed-shape cells without values back no memory: more of them than
/// `Limits::max_index_len` are refused as one message per row.
#[test]
fn rows_of_empty_fixed_shape_cells_are_bounded() {
    use arrow_tensor_ipc::record_batch::fixed_shape_cells_with;
    use arrow_tensor_ipc::Limits;
    let ty = FixedShapeTensorType::new(ValueType::Float32, vec![0, 3]);
    let field = ty.field("t").unwrap();
    let item = Arc::new(Field::new("item", DataType::Float32, false));
    let values: ArrayRef = Arc::new(Float32Array::from(Vec::<f32>::new()));
    let array = FixedSizeListArray::try_new_with_length(item, 0, values, None, 1000).unwrap();
    assert_eq!(fixed_shape_cells(&field, &array).unwrap().len(), 1000);
    let small = Limits::default().with_max_index_len(999);
    expect_column_limit(
        fixed_shape_cells_with(
            &field,
            &array,
            &ConvertOptions::default().with_limits(small),
        )
        .unwrap_err(),
        "t",
        "max_index_len",
    );
    // As one tensor it allocates nothing per row.
    let t = fixed_shape_to_tensor(&field, &array).unwrap();
    assert_eq!(t.shape(), &[1000, 0, 3]);
}

/// A COO table whose coordinate columns are wider (int64, as query engines return them) or
/// narrower than the COO result's index type: the coordinates are cast on the way, and a
/// coordinate that the cast would change (too large for the result's type, or negative)
/// is reported with its own value, not the cast one.
#[test]
fn coo_tables_with_other_column_types_keep_their_values() {
    use arrow_array::{Float64Array, Int64Array, Int8Array};
    use arrow_tensor_ipc::IndexType;
    let table_of = |rows: ArrayRef, cols: ArrayRef, n: usize, it: IndexType| {
        // The metadata of a writer that recorded the tensor's own index type.
        let metadata = format!(
            "{{\"shape\":[3,4],\"format\":\"COO\",\"index_type\":\"{}\"}}",
            it.name()
        );
        let dt = rows.data_type().clone();
        let schema = Schema::new(vec![
            Field::new("row", dt.clone(), false),
            Field::new("col", dt, false),
            Field::new("value", DataType::Float64, false),
        ])
        .with_metadata(HashMap::from([(COO_TABLE_KEY.to_string(), metadata)]));
        let values: ArrayRef = Arc::new(Float64Array::from(
            (0..n).map(|i| i as f64 + 1.0).collect::<Vec<_>>(),
        ));
        RecordBatch::try_new(Arc::new(schema), vec![rows, cols, values]).unwrap()
    };
    // int64 columns: the result is int8, with the same entries.
    let good = table_of(
        Arc::new(Int64Array::from(vec![0i64, 1, 2])),
        Arc::new(Int64Array::from(vec![3i64, 0, 2])),
        3,
        IndexType::Int64,
    );
    let t = coo_table_to_sparse(&good, None).unwrap();
    let SparseIndex::Coo(c) = t.index() else {
        panic!("not COO")
    };
    assert_eq!(c.indices().index_type(), IndexType::Int8);
    let expected = SparseTensor::coo([3, 4], vec![0i64, 3, 1, 0, 2, 2], vec![1.0f64, 2.0, 3.0]);
    assert!(t
        .to_dense()
        .unwrap()
        .content_eq(&expected.unwrap().to_dense().unwrap()));
    // A coordinate of 2^32 + 1, which an int8 or int32 cast would turn into 1 (in bounds).
    for bad in [(1i64 << 32) + 1, (1 << 8) + 1, -255] {
        let table = table_of(
            Arc::new(Int64Array::from(vec![0i64, bad, 2])),
            Arc::new(Int64Array::from(vec![3i64, 0, 2])),
            3,
            IndexType::Int64,
        );
        let err = coo_table_to_sparse(&table, None).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::CoordinateOutOfBounds { column, row: 1, value, dim: 0, size: 3 } if column == "row" && *value == bad),
            "{bad}: {err}"
        );
    }
    // int8 columns and 300 rows: the result is int16 (nnz needs it); a negative coordinate
    // is reported as it is.
    let n = 300;
    let rows: Vec<i8> = (0..n).map(|i| (i % 3) as i8).collect();
    let mut cols: Vec<i8> = (0..n).map(|i| (i % 4) as i8).collect();
    let t = coo_table_to_sparse(
        &table_of(
            Arc::new(Int8Array::from(rows.clone())),
            Arc::new(Int8Array::from(cols.clone())),
            n,
            IndexType::Int8,
        ),
        None,
    )
    .unwrap();
    let SparseIndex::Coo(c) = t.index() else {
        panic!("not COO")
    };
    assert_eq!(c.indices().index_type(), IndexType::Int16);
    assert_eq!(t.nnz(), n);
    cols[7] = -3;
    let err = coo_table_to_sparse(
        &table_of(
            Arc::new(Int8Array::from(rows)),
            Arc::new(Int8Array::from(cols)),
            n,
            IndexType::Int8,
        ),
        None,
    )
    .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::CoordinateOutOfBounds { column, row: 7, value: -3, dim: 1, size: 4 } if column == "col"),
        "{err}"
    );
}

/// The CSF tree rebuilt from a table's sorted rows equals the conversion's, at every rank
/// from 2 to 5 (CSF needs rank 2; one run: small tables).
#[test]
fn small_tables_to_csf_at_every_rank() {
    let mut state = 0x51_7cc1_b727_220au64;
    let mut next = move |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    };
    for ndim in 2..=5usize {
        for _ in 0..20 {
            let shape: Vec<usize> = (0..ndim).map(|_| 1 + next(4) as usize).collect();
            let total: usize = shape.iter().product();
            // Distinct sorted positions, then their coordinates.
            let mut pos: Vec<usize> = (0..total).filter(|_| next(3) == 0).collect();
            pos.dedup();
            let mut coords = Vec::with_capacity(pos.len() * ndim);
            for &p in &pos {
                let mut c = vec![0i64; ndim];
                let mut lin = p;
                for d in (0..ndim).rev() {
                    c[d] = (lin % shape[d]) as i64;
                    lin /= shape[d];
                }
                coords.extend(c);
            }
            let values: Vec<f64> = (0..pos.len()).map(|i| i as f64 + 0.5).collect();
            let t = SparseTensor::coo(shape.clone(), coords, values).unwrap();
            let table = sparse_to_coo_table(&t).unwrap();
            let csf = coo_table_to_sparse(&table, Some(SparseFormat::Csf)).unwrap();
            assert!(csf.content_eq(&csf_of(&t)), "{shape:?} {pos:?}");
        }
    }
}

/// A large table (rebuilt as CSF in runs, one per thread, its leaves cast to a narrower
/// type) with one row out of order or one coordinate out of its dimension, at the first
/// row, in the middle or at the last row and at each level: rows out of order give the
/// same tensor as the conversion of their entries, a coordinate out of range an error
/// naming its column.
#[test]
fn large_tables_to_csf_check_every_row_and_level() {
    use arrow_array::{Float64Array, Int64Array};
    let nnz = (1usize << 19) + 3;
    let shape = [64usize, 128, 256];
    // Sorted distinct positions, spread over the tensor.
    let total = shape.iter().product::<usize>();
    let step = total / nnz;
    let coords_of = |p: usize| [p / (128 * 256), p / 256 % 128, p % 256];
    let base: Vec<[i64; 3]> = (0..nnz)
        .map(|k| coords_of(k * step + k % step).map(|c| c as i64))
        .collect();
    let values: Vec<f64> = (0..nnz).map(|k| k as f64 + 0.25).collect();
    let table_of = |rows: &[[i64; 3]]| {
        let t = SparseTensor::coo(
            shape,
            base.iter().flatten().copied().collect::<Vec<i64>>(),
            values.clone(),
        )
        .unwrap();
        let schema = sparse_to_coo_table(&t).unwrap().schema();
        let mut arrays: Vec<ArrayRef> = (0..3)
            .map(|d| Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r[d]))) as ArrayRef)
            .collect();
        arrays.push(Arc::new(Float64Array::from(values.clone())));
        // The schema of a table of int64 columns (the coordinate columns' type).
        let fields: Vec<arrow_schema::Field> = schema
            .fields()
            .iter()
            .zip(&arrays)
            .map(|(f, a)| f.as_ref().clone().with_data_type(a.data_type().clone()))
            .collect();
        let schema = arrow_schema::Schema::new_with_metadata(fields, schema.metadata().clone());
        RecordBatch::try_new(Arc::new(schema), arrays).unwrap()
    };
    let want_of = |rows: &[[i64; 3]]| {
        csf_of(
            &SparseTensor::coo(
                shape,
                rows.iter().flatten().copied().collect::<Vec<i64>>(),
                values.clone(),
            )
            .unwrap(),
        )
    };
    let csf = coo_table_to_sparse(&table_of(&base), Some(SparseFormat::Csf)).unwrap();
    assert!(csf.content_eq(&want_of(&base)));
    let columns: Vec<String> = (0..3)
        .map(|d| table_of(&base).schema().field(d).name().clone())
        .collect();
    for at in [0, nnz / 2 + 1, nnz - 1] {
        for (level, column) in columns.iter().enumerate() {
            // Out of order: the row swapped with its neighbour (distinct entries still).
            let mut rows = base.clone();
            let other = if at + 1 < nnz { at + 1 } else { at - 1 };
            rows.swap(at, other);
            rows[at][level] = rows[at][level].min(shape[level] as i64 - 1);
            let csf = coo_table_to_sparse(&table_of(&rows), Some(SparseFormat::Csf)).unwrap();
            assert!(csf.content_eq(&want_of(&rows)), "swap at {at}");
            // Out of range: the coordinate one past its dimension.
            let mut rows = base.clone();
            rows[at][level] = shape[level] as i64;
            let err = coo_table_to_sparse(&table_of(&rows), Some(SparseFormat::Csf))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(column.as_str()),
                "row {at} level {level}: {err}"
            );
        }
    }
}

/// The CSF conversion of `t` (identity axis order), what a table rebuilt as CSF must equal.
fn csf_of(t: &SparseTensor) -> SparseTensor {
    t.to_format_with(
        SparseFormat::Csf,
        &arrow_tensor_ipc::ConvertOptions::default(),
    )
    .unwrap()
}

/// A stream read as it comes gives the batches `IpcBatches` gives for the same bytes, and
/// every cut or lying prefix is an error with the message's offset, never a panic.
#[test]
fn streams_read_as_they_come_match_streams_in_memory() {
    let t = f32_tensor(&[6, 3, 2]);
    let batch = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())
        .unwrap()
        .into_record_batch("t")
        .unwrap();
    let bytes = ipc_bytes(
        &[batch.clone(), batch.clone(), batch.clone()],
        IpcFormat::Stream,
    );
    let options = IpcReadOptions::default();
    let mut read = IpcStreamReader::new(bytes.as_slice(), &options).unwrap();
    assert_eq!(read.schema(), &batch.schema());
    let batches: Vec<RecordBatch> = read.by_ref().map(|b| b.unwrap()).collect();
    assert_eq!(batches, vec![batch.clone(); 3]);
    assert_eq!(read.position(), bytes.len() as u64);

    // Cut anywhere after the schema: the batches before the cut, then one error (or the
    // end, when the cut falls between messages).
    for cut in (0..bytes.len()).step_by(7) {
        let Ok(read) = IpcStreamReader::new(&bytes[..cut], &options) else {
            continue;
        };
        let results: Vec<_> = read.collect();
        let errors = results.iter().filter(|r| r.is_err()).count();
        assert!(errors <= 1, "cut {cut}: {errors} errors");
        if let Some(Err(e)) = results.last() {
            assert!(e.message_offset().is_some(), "cut {cut}: {e} has no offset");
        }
    }
    // A metadata length over the limit is refused before anything is read.
    let tight = IpcReadOptions::default()
        .with_limits(arrow_tensor_ipc::Limits::default().with_max_metadata_len(16));
    let e = IpcStreamReader::new(bytes.as_slice(), &tight)
        .err()
        .unwrap();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LimitExceeded {
                what: "metadata length",
                ..
            }
        ),
        "{e}"
    );
    // Tensor messages are not a stream of record batches.
    let msg = encode(&Message::from(t), &WriteOptions::default())
        .unwrap()
        .to_vec();
    let e = IpcStreamReader::new(msg.as_slice(), &options)
        .err()
        .unwrap();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::UnsupportedLayout { .. } | ErrorKind::Arrow(_)
        ),
        "{e}"
    );
}

/// The writers of record batches share one trait: the same batches written through a
/// `Box<dyn BatchWriter>` of each kind read back equal.
#[test]
fn every_batch_writer_is_one_trait() {
    let t = f32_tensor(&[5, 2, 2]);
    let batch = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())
        .unwrap()
        .into_record_batch("t")
        .unwrap();
    for format in [IpcFormat::Stream, IpcFormat::File] {
        let mut out = Vec::new();
        let mut w: Box<dyn BatchWriter + '_> = Box::new(
            IpcWriter::new(
                &mut out,
                batch.schema(),
                &IpcWriteOptions::default().with_format(format),
            )
            .unwrap(),
        );
        assert_eq!(w.schema(), &batch.schema());
        w.write(&batch).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let read: Vec<RecordBatch> = IpcBatches::new(out, &IpcReadOptions::default())
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        assert_eq!(read, vec![batch.clone(); 2]);
    }
}
