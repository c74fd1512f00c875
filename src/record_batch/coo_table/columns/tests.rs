//! Tests of `CooColumns`: resolving columns against a schema, and reading tables with and
//! without the crate's metadata.

#![allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
use super::{coo_columns_to_sparse, CooColumns};
use crate::record_batch::{sparse_to_coo_table, COO_TABLE_KEY};
use crate::{ConvertOptions, ErrorKind, Limits, SparseFormat, SparseIndex, SparseTensor};
use arrow_array::{
    ArrayRef, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array,
    RecordBatch, StringArray, UInt32Array, UInt64Array, UInt8Array,
};
use arrow_schema::Schema;
use std::collections::HashMap;
use std::sync::Arc;

fn table(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

fn i64s(v: &[i64]) -> ArrayRef {
    Arc::new(Int64Array::from(v.to_vec()))
}

fn f64s(v: &[f64]) -> ArrayRef {
    Arc::new(Float64Array::from(v.to_vec()))
}

fn read(t: &RecordBatch, c: &CooColumns, f: Option<SparseFormat>) -> crate::Result<SparseTensor> {
    coo_columns_to_sparse(t, c, f, &ConvertOptions::default())
}

fn dense(t: &SparseTensor) -> Vec<f64> {
    let d = t.to_dense().unwrap();
    let shape = t.shape().to_vec();
    let mut out = Vec::new();
    let n: usize = shape.iter().product();
    for k in 0..n {
        let mut rest = k;
        let mut idx = vec![0; shape.len()];
        for (slot, &s) in idx.iter_mut().zip(&shape).rev() {
            *slot = rest % s;
            rest /= s;
        }
        out.push(d.get(&idx).unwrap().as_f64());
    }
    out
}

/// A table of the crate's own schema reads back the same through the selection,
/// with extra columns beside it and with its columns renamed.
#[test]
fn the_crates_tables_read_back_whatever_columns_surround_them() {
    let csr = SparseTensor::csr(
        [3, 4],
        vec![0i32, 1, 1, 3],
        vec![2, 0, 3],
        vec![1.5f64, -2.0, 4.0],
    )
    .unwrap()
    .with_dim_names(["row", ""])
    .unwrap();
    let t = sparse_to_coo_table(&csr).unwrap();
    let back = read(&t, &CooColumns::new(), None).unwrap();
    assert_eq!(back.format(), SparseFormat::Csr);
    assert_eq!(back.dim_names(), &["row", ""]);
    assert_eq!(dense(&back), dense(&csr));
    // A partition key in front: ignored.
    let mut cols: Vec<(&str, ArrayRef)> = vec![("tile_0", i64s(&[0, 0, 0]))];
    let schema = t.schema();
    for (f, a) in schema.fields().iter().zip(t.columns()) {
        cols.push((f.name().as_str(), a.clone()));
    }
    let wider = table(cols);
    let schema =
        Schema::new(wider.schema().fields().clone()).with_metadata(t.schema().metadata().clone());
    let wider = RecordBatch::try_new(Arc::new(schema), wider.columns().to_vec()).unwrap();
    let sel = CooColumns::new().resolve(wider.schema_ref()).unwrap();
    assert_eq!(sel.coordinate_columns(), &[1, 2]);
    assert_eq!(sel.value_column(), 3);
    assert_eq!(sel.shape(), Some(&[3usize, 4][..]));
    assert_eq!(sel.format(), SparseFormat::Csr);
    assert_eq!(
        dense(
            &sel.to_sparse(&wider, None, &ConvertOptions::default())
                .unwrap()
        ),
        dense(&csr)
    );
    // The shape given must agree with the metadata's.
    let e = read(&t, &CooColumns::new().with_shape([3, 5]), None).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Inconsistent { .. }), "{e}");
    assert!(read(&t, &CooColumns::new().with_shape([3, 4]), None).is_ok());
    // Bad metadata.
    let schema = Schema::new(t.schema().fields().clone()).with_metadata(HashMap::from([(
        COO_TABLE_KEY.to_string(),
        "{\"shape\":[2,\"x\"]}".to_string(),
    )]));
    let bad = RecordBatch::try_new(Arc::new(schema), t.columns().to_vec()).unwrap();
    let e = read(&bad, &CooColumns::new(), None).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidMetadata { .. }), "{e}");
}

/// What an engine returns: no metadata, columns of several integer types, rows in any
/// order, duplicates summed.
#[test]
fn foreign_tables_infer_the_shape_and_convert_the_columns() {
    let t = table(vec![
        (
            "tile_0",
            Arc::new(Int32Array::from(vec![1, 0, 1, 0])) as ArrayRef,
        ),
        (
            "i",
            Arc::new(UInt32Array::from(vec![5, 0, 3, 0])) as ArrayRef,
        ),
        ("j", i64s(&[2, 7, 0, 7])),
        ("value", f64s(&[1.0, 2.0, 3.0, 0.5])),
    ]);
    let c = CooColumns::new().with_columns(["i", "j"]);
    for f in [
        SparseFormat::Coo,
        SparseFormat::Csr,
        SparseFormat::Csc,
        SparseFormat::Csf,
    ] {
        let m = read(&t, &c, Some(f)).unwrap();
        assert_eq!(m.format(), f);
        assert_eq!(m.shape(), &[6, 8]);
        assert_eq!(m.dim_names(), &["i", "j"]);
        assert_eq!(m.get(&[0, 7]).unwrap().as_f64(), 2.5, "{f:?}");
        assert_eq!(m.get(&[5, 2]).unwrap().as_f64(), 1.0);
        assert_eq!(m.get(&[3, 0]).unwrap().as_f64(), 3.0);
    }
    // A COO result keeps the table's rows, flagged non-canonical.
    let m = read(&t, &c, None).unwrap();
    let SparseIndex::Coo(index) = m.index() else {
        panic!()
    };
    assert!(!index.is_canonical());
    assert_eq!(m.nnz(), 4);
    // A shape given; names given; dim_<d> columns found by name and unnamed.
    let m = read(
        &t,
        &c.clone().with_shape([10, 10]).with_dim_names(["r", "s"]),
        None,
    )
    .unwrap();
    assert_eq!(m.shape(), &[10, 10]);
    assert_eq!(m.dim_names(), &["r", "s"]);
    let renamed = table(vec![
        ("dim_0", t.column(1).clone()),
        ("dim_1", t.column(2).clone()),
        ("value", t.column(3).clone()),
    ]);
    let m = read(&renamed, &CooColumns::new(), None).unwrap();
    assert_eq!(m.shape(), &[6, 8]);
    assert_eq!(m.dim_names(), &["", ""]);
    // A dim_<d> column at another dimension keeps its name.
    let m = read(
        &renamed,
        &CooColumns::new().with_columns(["dim_1", "dim_0"]),
        None,
    )
    .unwrap();
    assert_eq!(m.dim_names(), &["dim_1", "dim_0"]);
    assert_eq!(m.shape(), &[8, 6]);
    // One column of one type is used as it is.
    let one = table(vec![
        ("dim_0", Arc::new(Int8Array::from(vec![3i8, 1])) as ArrayRef),
        ("value", f64s(&[1.0, 2.0])),
    ]);
    let m = read(&one, &CooColumns::new(), Some(SparseFormat::Coo)).unwrap();
    assert_eq!(m.shape(), &[4]);
    // Without rows: sizes 0.
    let empty = table(vec![("dim_0", i64s(&[])), ("value", f64s(&[]))]);
    assert_eq!(
        read(&empty, &CooColumns::new(), None).unwrap().shape(),
        &[0]
    );
    // Rank 0 with a shape given.
    let scalar = table(vec![(
        "value",
        Arc::new(Float32Array::from(vec![2.5f32])) as ArrayRef,
    )]);
    let m = read(
        &scalar,
        &CooColumns::new().with_shape(Vec::<usize>::new()),
        None,
    )
    .unwrap();
    assert_eq!((m.ndim(), m.nnz()), (0, 1));
}

fn kind_of(t: &RecordBatch, c: &CooColumns) -> ErrorKind {
    read(t, c, None).unwrap_err().into_kind()
}

#[test]
fn selections_that_do_not_fit_the_table_are_refused() {
    let t = table(vec![
        ("a", i64s(&[1])),
        ("b", i64s(&[1])),
        ("value", f64s(&[1.0])),
    ]);
    let c = CooColumns::new();
    assert!(
        matches!(kind_of(&t, &c), ErrorKind::InvalidColumn { column, .. } if column == "dim_0")
    );
    assert!(
        matches!(kind_of(&t, &c.clone().with_columns(["a", "x"])), ErrorKind::InvalidColumn { column, .. } if column == "x")
    );
    assert!(matches!(
        kind_of(&t, &c.clone().with_columns(["a", "a"])),
        ErrorKind::DuplicateName { .. }
    ));
    assert!(matches!(
        kind_of(&t, &c.clone().with_columns(["a", "value"])),
        ErrorKind::DuplicateName { .. }
    ));
    assert!(matches!(
        kind_of(&t, &c.clone().with_columns(["a"]).with_shape([2, 2])),
        ErrorKind::CountMismatch { .. }
    ));
    assert!(matches!(
        kind_of(
            &t,
            &c.clone().with_columns(["a"]).with_dim_names(["x", "y"])
        ),
        ErrorKind::CountMismatch { .. }
    ));
    assert!(matches!(
        kind_of(&t, &c.clone().with_columns(Vec::<String>::new())),
        ErrorKind::InvalidRank { .. }
    ));
    assert!(matches!(
        kind_of(&t, &c.clone().with_columns(["a"]).with_shape([usize::MAX])),
        ErrorKind::LimitExceeded { .. }
    ));
    let no_value = table(vec![("dim_0", i64s(&[1]))]);
    assert!(
        matches!(kind_of(&no_value, &c), ErrorKind::InvalidColumn { column, .. } if column == "value")
    );
    // A selection applied to a table of another schema.
    let sel = c
        .clone()
        .with_columns(["a"])
        .resolve(t.schema_ref())
        .unwrap();
    let other = table(vec![("value", f64s(&[1.0])), ("a", i64s(&[1]))]);
    let e = sel
        .to_sparse(&other, None, &ConvertOptions::default())
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidColumn { .. }), "{e}");
}

/// Bad cells are errors naming the column and the row, whichever path reads them.
#[test]
fn bad_cells_name_their_column_and_row() {
    let value = f64s(&[1.0, 2.0, 3.0]);
    let case = |a: ArrayRef, b: ArrayRef, shape: Option<[usize; 2]>| -> ErrorKind {
        let t = table(vec![("dim_0", a), ("dim_1", b), ("value", value.clone())]);
        let mut c = CooColumns::new();
        if let Some(s) = shape {
            c = c.with_shape(s);
        }
        kind_of(&t, &c)
    };
    let bounds = |k: ErrorKind| match k {
        ErrorKind::CoordinateOutOfBounds {
            column,
            row,
            value,
            dim,
            size,
        } => (column, row, value, dim, size),
        other => panic!("{other:?}"),
    };
    // Columns of one type (the reader's checks) and of two (the conversion's).
    for other in [
        i64s(&[1, 0, 1]),
        Arc::new(Int16Array::from(vec![1i16, 0, 1])) as ArrayRef,
    ] {
        let k = case(i64s(&[0, -1, 0]), other.clone(), Some([3, 3]));
        assert_eq!(bounds(k), ("dim_0".into(), 1, -1, 0, 3));
        let k = case(i64s(&[0, 1, 9]), other.clone(), Some([3, 3]));
        assert_eq!(bounds(k), ("dim_0".into(), 2, 9, 0, 3));
        let k = case(
            Arc::new(Int64Array::from(vec![Some(0), None, Some(2)])),
            other.clone(),
            Some([3, 3]),
        );
        assert!(
            matches!(&k, ErrorKind::NullCell { column, row: 1, .. } if column == "dim_0"),
            "{k:?}"
        );
        let k = case(
            Arc::new(Float64Array::from(vec![0.0, 1.0, 2.0])),
            other.clone(),
            None,
        );
        assert!(
            matches!(&k, ErrorKind::InvalidColumn { column, .. } if column == "dim_0"),
            "{k:?}"
        );
        // Without a shape: negative coordinates and ones of i64::MAX.
        let k = case(i64s(&[0, 4, -2]), other.clone(), None);
        assert_eq!(bounds(k), ("dim_0".into(), 2, -2, 0, 5));
        let k = case(i64s(&[0, i64::MAX, 1]), other.clone(), None);
        assert_eq!(bounds(k).1, 1);
        let k = case(
            Arc::new(UInt64Array::from(vec![0, u64::MAX, 1])),
            other,
            None,
        );
        assert_eq!(bounds(k).2, i64::MAX);
    }
    // A value column of a type tensors do not hold.
    let t = table(vec![
        ("dim_0", i64s(&[0])),
        ("value", Arc::new(StringArray::from(vec!["x"])) as ArrayRef),
    ]);
    assert!(
        matches!(kind_of(&t, &CooColumns::new()), ErrorKind::InvalidColumn { column, .. } if column == "value")
    );
}

/// What the caller claims is bounded by the limits before anything is allocated from it.
#[test]
fn claims_are_bounded_by_the_limits() {
    let t = table(vec![
        ("dim_0", i64s(&[0, 1])),
        ("dim_1", i64s(&[0, 1])),
        ("value", f64s(&[1.0, 2.0])),
    ]);
    let huge = CooColumns::new().with_shape([1 << 60, 2]);
    let e = read(&t, &huge, Some(SparseFormat::Csr)).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::ColumnLimitExceeded { .. }),
        "{e}"
    );
    let options = ConvertOptions::default().with_limits(Limits::default().with_max_rank(1));
    let e = coo_columns_to_sparse(&t, &CooColumns::new(), None, &options).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
}

/// Random small tables of random column types, shapes and selections: a tensor whose
/// every stored value is the sum of the table's rows at its coordinates, or an error;
/// never a panic.
#[test]
fn random_tables_give_their_sums_or_an_error() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m.max(1)
    };
    for _ in 0..3000 {
        let ndim = next(4) as usize;
        let rows = next(7) as usize;
        let mut cols: Vec<(String, ArrayRef)> = Vec::new();
        let mut data: Vec<Vec<i64>> = Vec::new();
        for d in 0..ndim {
            let mut v: Vec<i64> = (0..rows)
                .map(|_| next(6) as i64 - i64::from(next(9) == 0))
                .collect();
            let a: ArrayRef = match next(4) {
                0 => Arc::new(Int8Array::from(
                    v.iter().map(|&c| c as i8).collect::<Vec<_>>(),
                )),
                1 => {
                    // (-1 reads as 255.)
                    v.iter_mut().for_each(|c| *c = i64::from(*c as u8));
                    Arc::new(UInt8Array::from(
                        v.iter().map(|&c| c as u8).collect::<Vec<_>>(),
                    ))
                }
                2 => Arc::new(Int32Array::from(
                    v.iter().map(|&c| c as i32).collect::<Vec<_>>(),
                )),
                _ => i64s(&v),
            };
            data.push(v);
            cols.push((format!("dim_{d}"), a));
        }
        let values: Vec<f64> = (0..rows).map(|k| k as f64 + 1.0).collect();
        cols.push(("value".into(), f64s(&values)));
        let t = RecordBatch::try_from_iter(cols).unwrap();
        let mut c = CooColumns::new().with_columns((0..ndim).map(|d| format!("dim_{d}")));
        if next(2) == 0 {
            c = c.with_shape((0..ndim).map(|_| next(6) as usize).collect::<Vec<_>>());
        }
        let format = [
            None,
            Some(SparseFormat::Coo),
            Some(SparseFormat::Csr),
            Some(SparseFormat::Csf),
        ][next(4) as usize];
        let Ok(m) = read(&t, &c, format) else {
            continue;
        };
        // Every coordinate was in bounds of an unsigned-safe reading: the sums match.
        for k in 0..rows {
            let at: Vec<usize> = data.iter().map(|col| col[k] as usize).collect();
            let want: f64 = (0..rows)
                .filter(|&r| data.iter().all(|col| col[r] == col[k]))
                .map(|r| values[r])
                .sum();
            assert_eq!(m.get(&at).unwrap().as_f64(), want, "{data:?} {at:?}");
        }
    }
}
