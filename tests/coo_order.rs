//! COO coordinates in both orders: a coordinate matrix stored row-major (one row of `ndim`
//! coordinates per stored value) or column-major (one column of `nnz` coordinates per
//! dimension, `indicesStrides [w, w * nnz]`) reads the same through every path that reads
//! coordinates: `iter`, `for_each_stored`, `get`, both dense expansions, every conversion,
//! the COO table, the encoder (which writes row-major for Arrow C++) and decoder, the file
//! writers (FROSTT, Matrix Market, scipy `.npz`) and the sprs and ndarray integrations.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_buffer::Buffer;
use arrow_schema::DataType;
use arrow_tensor_ipc::formats::{mtx, npz, tns};
use arrow_tensor_ipc::record_batch::{coo_table_to_sparse, sparse_to_coo_table};
use arrow_tensor_ipc::{
    convert, decode_message, encode, ConvertOptions, CooIndex, CooOrder, ErrorKind, IndexArray,
    IndexType, Message, ReadOptions, Scalar, SparseFormat, SparseIndex, SparseTensor, ValueType,
    WriteOptions,
};
use proptest::prelude::*;
use std::io::Cursor;

/// A COO tensor described by its coordinates as given.
#[derive(Clone, Debug)]
struct Case {
    shape: Vec<usize>,
    /// One coordinate tuple per stored value, in storage order (distinct).
    coords: Vec<Vec<usize>>,
    values: Vec<i32>,
    order: CooOrder,
    index_type: IndexType,
}

const INDEX_TYPES: [IndexType; 8] = [
    IndexType::Int8,
    IndexType::Int16,
    IndexType::Int32,
    IndexType::Int64,
    IndexType::UInt8,
    IndexType::UInt16,
    IndexType::UInt32,
    IndexType::UInt64,
];

fn linear(shape: &[usize], c: &[usize]) -> usize {
    c.iter().zip(shape).fold(0, |acc, (&x, &d)| acc * d + x)
}

fn coords_of(shape: &[usize], mut lin: usize) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = lin % shape[d];
        lin /= shape[d];
    }
    c
}

fn index_array(t: IndexType, values: &[usize]) -> IndexArray {
    let w = t.byte_width();
    let mut out = Vec::with_capacity(values.len() * w);
    for &v in values {
        out.extend_from_slice(&(v as u64).to_le_bytes()[..w]);
    }
    IndexArray::try_new(t, Buffer::from_vec(out)).unwrap()
}

impl Case {
    fn ndim(&self) -> usize {
        self.shape.len()
    }

    fn total(&self) -> usize {
        self.shape.iter().product()
    }

    /// The coordinate matrix in the case's order.
    fn flat(&self) -> Vec<usize> {
        match self.order {
            CooOrder::RowMajor => self.coords.iter().flatten().copied().collect(),
            CooOrder::ColumnMajor => (0..self.ndim())
                .flat_map(|d| self.coords.iter().map(move |c| c[d]))
                .collect(),
        }
    }

    fn tensor(&self) -> SparseTensor {
        let index = CooIndex::with_order(
            index_array(self.index_type, &self.flat()),
            self.ndim(),
            self.order,
        )
        .unwrap();
        SparseTensor::try_new(
            ValueType::Int32,
            self.shape.clone(),
            Buffer::from_vec(self.values.clone()),
            SparseIndex::Coo(index),
        )
        .unwrap()
    }

    fn dense(&self) -> Vec<i32> {
        let mut out = vec![0; self.total()];
        for (c, &v) in self.coords.iter().zip(&self.values) {
            out[linear(&self.shape, c)] = v;
        }
        out
    }

    /// The stored (coords, value) pairs sorted row-major.
    fn sorted_entries(&self) -> Vec<(Vec<usize>, i32)> {
        let mut e: Vec<(Vec<usize>, i32)> = self
            .coords
            .iter()
            .cloned()
            .zip(self.values.iter().copied())
            .collect();
        e.sort();
        e
    }

    /// Up to `n` cells where nothing is stored.
    fn absent(&self, n: usize) -> Vec<Vec<usize>> {
        let stored: std::collections::HashSet<usize> =
            self.coords.iter().map(|c| linear(&self.shape, c)).collect();
        (0..self.total())
            .filter(|l| !stored.contains(l))
            .take(n)
            .map(|l| coords_of(&self.shape, l))
            .collect()
    }
}

fn case_strategy() -> impl Strategy<Value = Case> {
    let dim = prop_oneof![12 => 1usize..=5, 1 => Just(0usize)];
    prop::collection::vec(dim, 1..=4)
        .prop_flat_map(|shape| {
            let total: usize = shape.iter().product();
            (
                Just(shape),
                prop::collection::vec(any::<u32>(), total),
                0..=total.min(24),
                any::<bool>(),
                any::<bool>(),
                0..INDEX_TYPES.len(),
            )
        })
        .prop_map(|(shape, keys, nnz, sorted, column, it)| {
            // Distinct cells: the first `nnz` of a random permutation (sorted: canonical).
            let mut cells: Vec<usize> = (0..keys.len()).collect();
            cells.sort_by_key(|&c| (keys[c], c));
            cells.truncate(nnz);
            if sorted {
                cells.sort_unstable();
            }
            let coords: Vec<Vec<usize>> = cells.iter().map(|&l| coords_of(&shape, l)).collect();
            let values = (0..nnz as i32)
                .map(|k| (k + 1) * if k % 2 == 0 { 1 } else { -3 })
                .collect();
            Case {
                shape,
                coords,
                values,
                order: if column {
                    CooOrder::ColumnMajor
                } else {
                    CooOrder::RowMajor
                },
                index_type: INDEX_TYPES[it],
            }
        })
}

/// An integer column of a record batch as `i64`s.
fn column_ints(a: &dyn Array) -> Vec<i64> {
    macro_rules! ints {
        ($t:ty) => {
            a.as_primitive::<$t>()
                .values()
                .iter()
                .map(|&v| v as i64)
                .collect()
        };
    }
    match a.data_type() {
        DataType::Int8 => ints!(Int8Type),
        DataType::Int16 => ints!(Int16Type),
        DataType::Int32 => ints!(Int32Type),
        DataType::Int64 => ints!(Int64Type),
        DataType::UInt8 => ints!(UInt8Type),
        DataType::UInt16 => ints!(UInt16Type),
        DataType::UInt32 => ints!(UInt32Type),
        DataType::UInt64 => ints!(UInt64Type),
        t => panic!("not an integer column: {t}"),
    }
}

/// Checks that the COO table columns hold the coordinates and values of `c` in storage
/// order.
fn check_table(c: &Case, table: &RecordBatch) {
    assert_eq!(table.num_rows(), c.coords.len());
    assert_eq!(table.num_columns(), c.ndim() + 1);
    for d in 0..c.ndim() {
        let want: Vec<i64> = c.coords.iter().map(|k| k[d] as i64).collect();
        assert_eq!(
            column_ints(table.column(d).as_ref()),
            want,
            "column dim_{d}"
        );
    }
    let values: Vec<i32> = table
        .column(c.ndim())
        .as_primitive::<Int32Type>()
        .values()
        .to_vec();
    assert_eq!(values, c.values);
}

fn stored(t: &SparseTensor) -> Vec<(Vec<usize>, i32)> {
    let mut out: Vec<(Vec<usize>, i32)> = t
        .iter()
        .unwrap()
        .map(|nz| match nz.value {
            Scalar::Int32(v) => (nz.coords.to_vec(), v),
            other => panic!("value {other:?}"),
        })
        .collect();
    out.sort();
    out
}

fn dense_of(t: &SparseTensor) -> Vec<i32> {
    t.to_dense().unwrap().to_vec::<i32>().unwrap()
}

/// Every path of the crate against the coordinates as given.
fn check_all_paths(c: &Case) {
    let t = c.tensor();
    let nnz = c.coords.len();
    let expected = c.dense();

    // iter and for_each_stored: storage order, coordinates as given.
    let it: Vec<_> = t.iter().unwrap().collect();
    assert_eq!(it.len(), nnz);
    for (k, nz) in it.iter().enumerate() {
        assert_eq!(nz.coords.to_vec(), c.coords[k], "iter entry {k}");
        assert_eq!(nz.value, Scalar::Int32(c.values[k]));
        assert_eq!(nz.position, k);
    }
    let mut seen = Vec::new();
    t.for_each_stored(|coords, p| seen.push((coords.to_vec(), p)))
        .unwrap();
    let want: Vec<(Vec<usize>, usize)> = c.coords.iter().cloned().zip(0..).collect();
    assert_eq!(seen, want, "for_each_stored");

    // get: every stored coordinate, and some absent ones.
    for (k, coords) in c.coords.iter().enumerate() {
        assert_eq!(
            t.get(coords).unwrap(),
            Scalar::Int32(c.values[k]),
            "get {coords:?}"
        );
    }
    for coords in c.absent(6) {
        assert_eq!(
            t.get(&coords).unwrap(),
            Scalar::Int32(0),
            "get absent {coords:?}"
        );
    }

    // Both dense expansions.
    assert_eq!(dense_of(&t), expected, "SparseTensor::to_dense");
    for threads in [1, 3] {
        let d = convert::to_dense(&t, &ConvertOptions::default().with_threads(threads)).unwrap();
        assert_eq!(d.to_vec::<i32>().unwrap(), expected, "convert::to_dense");
    }

    // Every conversion, and back to COO.
    let mut formats = vec![SparseFormat::Coo];
    if c.ndim() == 2 {
        formats.extend([SparseFormat::Csr, SparseFormat::Csc]);
    }
    if c.ndim() >= 2 {
        formats.push(SparseFormat::Csf);
    }
    for &f in &formats {
        let other = t.to_format_with(f, &ConvertOptions::default()).unwrap();
        assert_eq!(other.format(), f);
        assert_eq!(dense_of(&other), expected, "to {f:?}");
        assert_eq!(stored(&other), c.sorted_entries(), "entries of {f:?}");
        let back = other
            .to_format_with(SparseFormat::Coo, &ConvertOptions::default())
            .unwrap();
        assert_eq!(stored(&back), c.sorted_entries(), "{f:?} back to COO");
        let SparseIndex::Coo(ci) = back.index() else {
            panic!("not COO")
        };
        assert!(ci.is_canonical());
    }
    let canonical = t.canonicalize().unwrap();
    assert_eq!(stored(&canonical), c.sorted_entries(), "canonicalize");
    assert_eq!(dense_of(&canonical), expected);

    // The COO table, and back.
    let table = sparse_to_coo_table(&t).unwrap();
    check_table(c, &table);
    let back = coo_table_to_sparse(&table, None).unwrap();
    assert_eq!(stored(&back), c.sorted_entries(), "COO table back");
    assert_eq!(dense_of(&back), expected);

    // Encode and decode, with and without Arrow compatibility.
    let message = Message::SparseTensor(t.clone());
    for arrow in [true, false] {
        let options = WriteOptions::default().with_arrow_compatible(arrow);
        let encoded = match encode(&message, &options) {
            Ok(e) => e,
            Err(e) if arrow && c.index_type == IndexType::UInt64 => {
                assert!(matches!(e.kind(), ErrorKind::NotArrowCompatible(_)), "{e}");
                continue;
            }
            Err(e) => panic!("encode: {e}"),
        };
        let decoded = decode_message(&encoded.to_bytes(), &ReadOptions::strict())
            .unwrap()
            .unwrap();
        let back = decoded.message.as_sparse().unwrap();
        assert!(back.content_eq(&t), "decode(encode(t)) (arrow {arrow})");
        let SparseIndex::Coo(ci) = back.index() else {
            panic!("not COO")
        };
        let written = if arrow || nnz <= 1 || c.ndim() <= 1 {
            CooOrder::RowMajor
        } else {
            c.order
        };
        assert_eq!(ci.order(), written, "order written (arrow {arrow})");
        let it: Vec<Vec<usize>> = back.iter().unwrap().map(|nz| nz.coords.to_vec()).collect();
        assert_eq!(it, c.coords, "decoded coordinates (arrow {arrow})");
        assert_eq!(dense_of(back), expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_path_reads_coordinates_as_given(c in case_strategy()) {
        check_all_paths(&c);
    }
}

/// The example of the issue: (0,1) (1,0) (1,3) (2,3) in a 3 x 4 tensor.
fn issue_example(order: CooOrder) -> Case {
    Case {
        shape: vec![3, 4],
        coords: vec![vec![0, 1], vec![1, 0], vec![1, 3], vec![2, 3]],
        values: vec![10, 20, 30, 40],
        order,
        index_type: IndexType::Int32,
    }
}

#[test]
fn the_issue_example_in_both_orders() {
    for order in [CooOrder::RowMajor, CooOrder::ColumnMajor] {
        let c = issue_example(order);
        check_all_paths(&c);
        let table = sparse_to_coo_table(&c.tensor()).unwrap();
        assert_eq!(column_ints(table.column(0).as_ref()), vec![0, 1, 1, 2]);
        assert_eq!(column_ints(table.column(1).as_ref()), vec![1, 0, 3, 3]);
    }
}

/// Large outputs take the multi-threaded fill (2^20 elements and more): column-major
/// canonical and non-canonical COO against the row-major matrix of the same entries.
#[test]
fn large_dense_expansions_in_both_orders() {
    for shape in [vec![1024usize, 1024], vec![128, 64, 160]] {
        let total: usize = shape.iter().product();
        for sorted in [true, false] {
            let mut cells: Vec<usize> = (0..total).step_by(997).collect();
            if !sorted {
                cells.reverse();
            }
            let coords: Vec<Vec<usize>> = cells.iter().map(|&l| coords_of(&shape, l)).collect();
            let values: Vec<i32> = (1..=cells.len() as i32).collect();
            let mut c = Case {
                shape: shape.clone(),
                coords,
                values,
                order: CooOrder::ColumnMajor,
                index_type: IndexType::Int32,
            };
            let expected = c.dense();
            for order in [CooOrder::ColumnMajor, CooOrder::RowMajor] {
                c.order = order;
                let t = c.tensor();
                for threads in [1, 4] {
                    let d = convert::to_dense(&t, &ConvertOptions::default().with_threads(threads))
                        .unwrap();
                    assert!(
                        d.to_vec::<i32>().unwrap() == expected,
                        "{shape:?} sorted {sorted} {order:?} threads {threads}"
                    );
                }
                assert!(dense_of(&t) == expected, "{shape:?} {order:?} serial");
            }
        }
    }
}

/// The column-major example as every file writer writes it, read back.
#[test]
fn file_writers_honour_the_order() {
    let rm = issue_example(CooOrder::RowMajor).tensor();
    let cm = issue_example(CooOrder::ColumnMajor).tensor();
    let expected = issue_example(CooOrder::RowMajor).dense();

    // FROSTT: one line per entry in storage order, 1-based.
    let mut tns = Vec::new();
    tns::write(
        &[Message::SparseTensor(cm.clone())],
        &mut tns,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(tns.clone()).unwrap(),
        "1 2 10\n2 1 20\n2 4 30\n3 4 40\n"
    );
    let mut tns_rm = Vec::new();
    tns::write(
        &[Message::SparseTensor(rm.clone())],
        &mut tns_rm,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(tns, tns_rm);
    let back = tns::read(&tns[..], &tns::TnsReadOptions::default()).unwrap();
    let back = back[0].as_sparse().unwrap();
    assert_eq!(back.shape(), &[3, 4]);
    let as_f64: Vec<f64> = expected.iter().map(|&v| v as f64).collect();
    assert_eq!(back.to_dense().unwrap().to_vec::<f64>().unwrap(), as_f64);

    // Matrix Market.
    let mut mtx = Vec::new();
    mtx::write(
        &[Message::SparseTensor(cm.clone())],
        &mut mtx,
        &mtx::MtxWriteOptions::default(),
    )
    .unwrap();
    let mut mtx_rm = Vec::new();
    mtx::write(
        &[Message::SparseTensor(rm.clone())],
        &mut mtx_rm,
        &mtx::MtxWriteOptions::default(),
    )
    .unwrap();
    assert_eq!(mtx, mtx_rm);
    let back = mtx::read(&mtx[..], &mtx::MtxReadOptions::default()).unwrap();
    let back = back[0].as_sparse().unwrap();
    let as_i64: Vec<i64> = expected.iter().map(|&v| v as i64).collect();
    assert_eq!(back.to_dense().unwrap().to_vec::<i64>().unwrap(), as_i64);

    // scipy .npz: row.npy and col.npy.
    let mut npz = Cursor::new(Vec::new());
    npz::write(
        &[Message::from(cm.clone())],
        &mut npz,
        &npz::NpzWriteOptions::default(),
    )
    .unwrap();
    let back = npz::read(npz.into_inner(), &npz::NpzReadOptions::default()).unwrap();
    let back = back[0].as_sparse().unwrap().clone();
    assert_eq!(dense_of(&back), expected);
    assert!(back.content_eq(&rm), "npz: {back:?}");
}

#[test]
fn sprs_and_ndarray_honour_the_order() {
    let expected = issue_example(CooOrder::RowMajor).dense();
    let cm = issue_example(CooOrder::ColumnMajor).tensor();
    let tri: sprs::TriMat<i32> = cm.to_trimat().unwrap();
    let dense = tri.to_csr::<usize>().to_dense();
    assert_eq!(dense.iter().copied().collect::<Vec<_>>(), expected);
    let a = cm.to_ndarray::<i32>().unwrap();
    assert_eq!(a.shape(), &[3, 4]);
    assert_eq!(a.iter().copied().collect::<Vec<_>>(), expected);
}

/// `CooIndex::to_row_major` and `same_coordinates` at every rank with several entries
/// (the interleaving loops of ranks 2 to 8 and the blocked general case above), across
/// block boundaries.
#[test]
fn to_row_major_transposes_every_rank() {
    for ndim in 1..=10 {
        for nnz in [0usize, 1, 2, 511, 512, 513, 1500] {
            let rows: Vec<Vec<usize>> = (0..nnz)
                .map(|i| (0..ndim).map(|d| (i * 7 + d * 13) % 101).collect())
                .collect();
            let row_major: Vec<usize> = rows.iter().flatten().copied().collect();
            let column_major: Vec<usize> = (0..ndim)
                .flat_map(|d| rows.iter().map(move |r| r[d]))
                .collect();
            for it in [IndexType::Int8, IndexType::UInt16, IndexType::Int64] {
                let cm = CooIndex::with_order(
                    index_array(it, &column_major),
                    ndim,
                    CooOrder::ColumnMajor,
                )
                .unwrap();
                let rm = CooIndex::new(index_array(it, &row_major), ndim).unwrap();
                let t = cm.to_row_major();
                assert_eq!(t.order(), CooOrder::RowMajor);
                assert_eq!(t.is_canonical(), cm.is_canonical());
                assert!(t.indices() == rm.indices(), "ndim {ndim} nnz {nnz} {it}");
                assert!(cm.same_coordinates(&rm) && rm.same_coordinates(&cm));
                if nnz > 1 && ndim > 1 {
                    assert!(cm != rm, "the layouts differ");
                    // A different matrix is not the same coordinates.
                    let mut other = row_major.clone();
                    other.swap(0, ndim * nnz - 1);
                    if other != row_major {
                        let o = CooIndex::new(index_array(it, &other), ndim).unwrap();
                        assert!(!cm.same_coordinates(&o));
                    }
                }
            }
        }
    }
}
