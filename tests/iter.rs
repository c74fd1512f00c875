//! `SparseTensor::iter`: the lazy walk gives exactly what the checked closure walk gives
//! (coordinates, positions, values, order) for every layout, and refuses bad index data of
//! a permissively built tensor up front.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{ConvertOptions, CsfAxisOrder};
use arrow_tensor_ipc::{
    CooIndex, CooOrder, Coords, IndexArray, Scalar, SparseFormat, SparseIndex, SparseTensor,
    Tensor, Validation, ValueType,
};

/// (coordinates, position, value) of every stored value, by the closure walk.
fn reference(t: &SparseTensor) -> Vec<(Vec<usize>, usize, Scalar)> {
    let mut out = Vec::new();
    t.for_each_stored(|c, p| out.push((c.to_vec(), p, t.value(p).unwrap())))
        .unwrap();
    out
}

fn lazy(t: &SparseTensor) -> Vec<(Vec<usize>, usize, Scalar)> {
    t.iter()
        .unwrap()
        .map(|nz| (nz.coords.to_vec(), nz.position, nz.value))
        .collect()
}

/// (coordinates, value) of every stored value, by the typed walk of `T`s.
fn typed<T: arrow_tensor_ipc::NativeValue>(t: &SparseTensor) -> Vec<(Vec<usize>, T)> {
    let mut out = Vec::new();
    let mut entries = t.iter_as::<T>().unwrap();
    while let Some((c, v)) = entries.next_entry() {
        out.push((c.to_vec(), v));
    }
    let mut again = Vec::new();
    t.iter_as::<T>()
        .unwrap()
        .for_each(|c, v| again.push((c.to_vec(), v)));
    assert_eq!(again, out, "for_each walks as next_entry does");
    out
}

/// The reference walk with its values as `f64`s.
fn reference_f64(t: &SparseTensor) -> Vec<(Vec<usize>, f64)> {
    reference(t)
        .into_iter()
        .map(|(c, _, v)| (c, v.as_f64()))
        .collect()
}

/// A dense tensor of `shape` with about one cell in three non-zero.
fn dense(shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let mut x = seed | 1;
    let values: Vec<f64> = (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(3) {
                i as f64 + 0.5
            } else {
                0.0
            }
        })
        .collect();
    Tensor::from_vec(shape, values).unwrap()
}

#[test]
fn every_layout_walks_like_the_closure_walk() {
    let shapes: [&[usize]; 7] = [
        &[7],
        &[5, 6],
        &[1, 9],
        &[4, 3, 5],
        &[2, 3, 2, 4],
        &[6, 1],
        &[0, 4],
    ];
    for (k, shape) in shapes.iter().enumerate() {
        let d = dense(shape, k as u64 + 11);
        let mut formats = vec![SparseFormat::Coo];
        if shape.len() >= 2 {
            formats.push(SparseFormat::Csf);
        }
        if shape.len() == 2 {
            formats.extend([SparseFormat::Csr, SparseFormat::Csc]);
        }
        for format in formats {
            let orders: Vec<CsfAxisOrder> = if format == SparseFormat::Csf {
                let rev: Vec<usize> = (0..shape.len()).rev().collect();
                vec![CsfAxisOrder::Identity, CsfAxisOrder::Explicit(rev)]
            } else {
                vec![CsfAxisOrder::Identity]
            };
            for order in orders {
                let opts = ConvertOptions::default().with_axis_order(order.clone());
                let t = d.to_sparse_with(format, &opts).unwrap();
                let want = reference(&t);
                assert_eq!(want.len(), t.nnz());
                assert_eq!(lazy(&t), want, "{format:?} {shape:?} {order:?}");
                assert_eq!(typed::<f64>(&t), reference_f64(&t), "{format:?} {shape:?}");
            }
        }
    }
}

#[test]
fn column_major_and_duplicate_coo() {
    // Entries (1, 2), (0, 3), (1, 2) stored column-major: all of dimension 0, then 1.
    let index = CooIndex::with_order(
        IndexArray::from_vec(vec![1i32, 0, 1, 2, 3, 2]),
        2,
        CooOrder::ColumnMajor,
    )
    .unwrap();
    let t = SparseTensor::try_new_with_duplicates(
        ValueType::Int16,
        [2, 4],
        Buffer::from_vec(vec![10i16, 20, 30]),
        SparseIndex::Coo(index),
    )
    .unwrap();
    let got = lazy(&t);
    assert_eq!(
        got,
        vec![
            (vec![1, 2], 0, Scalar::Int16(10)),
            (vec![0, 3], 1, Scalar::Int16(20)),
            (vec![1, 2], 2, Scalar::Int16(30)),
        ]
    );
    assert_eq!(got, reference(&t));
    assert_eq!(
        typed::<i16>(&t),
        vec![(vec![1, 2], 10), (vec![0, 3], 20), (vec![1, 2], 30)]
    );
    // Another type than the value type is refused.
    match t.iter_as::<i32>() {
        Err(e) => assert!(
            matches!(e.kind(), arrow_tensor_ipc::ErrorKind::TypeMismatch { .. }),
            "{e}"
        ),
        Ok(_) => panic!("iter_as::<i32> of int16 values"),
    }
}

#[test]
fn rank_beyond_the_inline_coordinates() {
    let rank = Coords::INLINE + 2;
    let shape = vec![2usize; rank];
    let d = dense(&shape, 5);
    for format in [SparseFormat::Coo, SparseFormat::Csf] {
        let t = d
            .to_sparse_with(format, &ConvertOptions::default())
            .unwrap();
        assert!(t.nnz() > 0);
        assert_eq!(lazy(&t), reference(&t), "{format:?}");
        assert_eq!(typed::<f64>(&t), reference_f64(&t), "{format:?}");
        assert!(t.iter().unwrap().all(|nz| nz.coords.len() == rank));
    }
}

#[test]
fn coords_compare_and_convert() {
    let c = Coords::new(&[3, 1, 4]);
    assert_eq!(c, [3, 1, 4]);
    assert_eq!(c, vec![3, 1, 4]);
    assert_eq!(&c[1..], &[1, 4]);
    assert_eq!(format!("{c:?}"), "[3, 1, 4]");
    assert_eq!(Vec::from(c.clone()), vec![3, 1, 4]);
    let long: Vec<usize> = (0..Coords::INLINE + 3).collect();
    assert_eq!(Coords::new(&long), long);
    assert_ne!(Coords::new(&[1, 2]), Coords::new(&[1, 2, 0]));
}

/// A permissively built 2 x 3 float32 CSR with rows [0, 2) and [2, 3) and these column
/// indices (unchecked).
fn permissive_csr(indices: Vec<i64>) -> SparseTensor {
    let index = SparseIndex::Csx(
        arrow_tensor_ipc::CsxIndex::new(
            arrow_tensor_ipc::CompressedAxis::Row,
            IndexArray::from_vec(vec![0i64, 2, 3]),
            IndexArray::from_vec(indices),
        )
        .unwrap(),
    );
    SparseTensor::try_new_with_validation(
        ValueType::Float32,
        [2, 3],
        Buffer::from_vec(vec![1.0f32, 2.0, 3.0]),
        index,
        Validation::Permissive,
    )
    .unwrap()
}

#[test]
fn permissive_index_out_of_range_fails_before_iterating() {
    // indices[2] = 9 lies outside the 3 columns; permissive building does not look.
    let t = permissive_csr(vec![0, 2, 9]);
    assert!(t.iter().is_err());
    assert!(t.iter_as::<f32>().is_err());
    assert!(t.for_each_stored(|_, _| ()).is_err());

    // The same tensor with a good index iterates without strict validation.
    let t = permissive_csr(vec![0, 2, 1]);
    assert_eq!(lazy(&t), reference(&t));
    assert_eq!(t.iter().unwrap().count(), 3);
    assert_eq!(
        typed::<f32>(&t),
        vec![(vec![0, 0], 1.0), (vec![0, 2], 2.0), (vec![1, 1], 3.0)]
    );
}
