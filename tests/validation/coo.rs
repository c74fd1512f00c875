//! COO: coordinates in bounds, sorted and unique when canonical.

use super::*;

#[test]
fn coo_out_of_bounds_constructor() {
    let e = SparseTensor::coo([3, 4], vec![0i32, 1, 1, 4], vec![1f32, 2.]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                buffer: BufferId::CooIndices,
                position: 3,
                value: 4,
                dim: 1,
                bound: 4
            }
        ),
        "{e}"
    );
    // Also an unsigned type and the first dimension.
    let e = SparseTensor::coo([3, 4], vec![3u8, 0], vec![1f32]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                dim: 0,
                bound: 3,
                ..
            }
        ),
        "{e}"
    );
    // Column-major layout, through try_new.
    let idx = CooIndex::with_order(
        IndexArray::from_vec(vec![0i64, 1, 0, 5]),
        2,
        arrow_tensor_ipc::CooOrder::ColumnMajor,
    )
    .unwrap();
    let e = SparseTensor::try_new(
        ValueType::Float32,
        vec![3, 4],
        Buffer::from_vec(vec![1f32, 2.]),
        SparseIndex::Coo(idx),
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                dim: 1,
                value: 5,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn coo_out_of_bounds_decoded() {
    let bytes = patched(&coo_base(), 0, 4, 3, 4); // entry 1, dim 1 -> 4
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            buffer: BufferId::CooIndices,
            position: 3,
            value: 4,
            dim: 1,
            bound: 4
        }
    ));
}

#[test]
fn coo_negative_coordinate_constructor() {
    let e = SparseTensor::coo([3, 4], vec![0i16, 1, -1, 2], vec![1f32, 2.]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                value: -1,
                dim: 0,
                ..
            }
        ),
        "{e}"
    );
    let e = SparseTensor::coo([3, 4], vec![0i64, i64::MIN], vec![1f32]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::IndexOutOfBounds {
                value: i64::MIN,
                dim: 1,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn coo_negative_coordinate_decoded() {
    let bytes = patched(&coo_base(), 0, 4, 2, -1); // entry 1, dim 0 -> -1
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds {
            value: -1,
            dim: 0,
            position: 2,
            ..
        }
    ));
}

#[test]
fn coo_canonical_flag_with_unsorted_coordinates_decoded() {
    // Entry 0 becomes (2, 0): (2,0) (1,2) (2,3) is not sorted, but the flag says canonical.
    let bytes = patched(&coo_base(), 0, 4, 0, 2);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CooIndices,
            position: 1,
            ..
        }
    ));
}

#[test]
fn coo_canonical_flag_with_duplicates_decoded() {
    // Entry 1 becomes (0, 1), equal to entry 0.
    let mut bytes = patched(&coo_base(), 0, 4, 2, 0);
    let at = body_offset(&bytes) + 3 * 4;
    bytes[at..at + 4].copy_from_slice(&1i32.to_le_bytes());
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NotIncreasing {
            buffer: BufferId::CooIndices,
            position: 1,
            ..
        }
    ));
}

#[test]
fn coo_canonical_flag_column_major_unsorted_crafted() {
    // Column-major coordinates (1,0) (0,1) flagged canonical.
    let mut body = craft::ints(&[1, 0, 0, 1], 4);
    body.extend(craft::f32s(&[1., 2.]));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![2, 2],
        names: vec![],
        nnz: 2,
        index: Index::Coo {
            ty: I32,
            strides: Some(vec![4, 8]),
            buf: (0, 16),
            canonical: true,
        },
        data: (16, 8),
        body_len: 24,
        custom_metadata: false,
    };
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::NotIncreasing { position: 1, .. }
    ));
    // Without the flag it is a valid non-canonical COO.
    let mut s = s;
    if let Index::Coo { canonical, .. } = &mut s.index {
        *canonical = false;
    }
    let d = dec(&sparse_msg(&s, &body), ReadOptions::strict()).unwrap();
    let t = sparse(&d);
    assert_eq!(t.get(&[1, 0]).unwrap(), Scalar::Float32(1.));
    assert_eq!(t.get(&[0, 1]).unwrap(), Scalar::Float32(2.));
    assert_eq!(t.get(&[0, 0]).unwrap(), Scalar::Float32(0.));
}

#[test]
fn coo_duplicates_refused_by_constructors_accepted_with_duplicates() {
    let coords = vec![1i32, 2, 0, 1, 1, 2];
    let values = vec![1.5f64, 10., 2.25];
    let e = SparseTensor::coo([3, 4], coords.clone(), values.clone()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::DuplicateCoordinate {
                first: 0,
                second: 2,
                coords,
            } if coords == &[1, 2]
        ),
        "{e}"
    );
    let index =
        || SparseIndex::Coo(CooIndex::new(IndexArray::from_vec(coords.clone()), 2).unwrap());
    let e = SparseTensor::try_new(
        ValueType::Float64,
        vec![3, 4],
        Buffer::from_vec(values.clone()),
        index(),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::DuplicateCoordinate { .. }),
        "{e}"
    );

    let t = SparseTensor::try_new_with_duplicates(
        ValueType::Float64,
        vec![3, 4],
        Buffer::from_vec(values.clone()),
        index(),
    )
    .unwrap();
    match t.index() {
        SparseIndex::Coo(c) => assert!(!c.is_canonical()),
        _ => unreachable!(),
    }
    assert_eq!(t.nnz(), 3);
    assert_eq!(t.get(&[1, 2]).unwrap(), Scalar::Float64(3.75));
    assert_eq!(t.get(&[0, 1]).unwrap(), Scalar::Float64(10.));
    assert_eq!(t.get(&[2, 2]).unwrap(), Scalar::Float64(0.));
    let dense = t.to_dense().unwrap();
    let mut expected = vec![0f64; 12];
    expected[4 + 2] = 3.75;
    expected[1] = 10.;
    assert_eq!(dense.to_vec::<f64>().unwrap(), expected);
    // Iteration reports every stored entry, duplicates included.
    let entries: Vec<_> = t
        .iter()
        .unwrap()
        .map(|n| (n.coords.to_vec(), n.value))
        .collect();
    assert_eq!(
        entries,
        vec![
            (vec![1, 2], Scalar::Float64(1.5)),
            (vec![0, 1], Scalar::Float64(10.)),
            (vec![1, 2], Scalar::Float64(2.25)),
        ]
    );
    // Integer duplicates sum with wrapping.
    let t = SparseTensor::try_new_with_duplicates(
        ValueType::UInt8,
        vec![2],
        Buffer::from_vec(vec![200u8, 100]),
        SparseIndex::Coo(CooIndex::new(IndexArray::from_vec(vec![1u8, 1]), 1).unwrap()),
    )
    .unwrap();
    assert_eq!(t.get(&[1]).unwrap(), Scalar::UInt8(44));
    assert_eq!(t.to_dense().unwrap().to_vec::<u8>().unwrap(), vec![0, 44]);

    // A non-canonical message with duplicates is valid Arrow and decodes strictly.
    let t = SparseTensor::try_new_with_duplicates(
        ValueType::Float64,
        vec![3, 4],
        Buffer::from_vec(values),
        index(),
    )
    .unwrap();
    let d = dec(&enc(t.clone()), ReadOptions::strict()).unwrap();
    assert!(sparse(&d).content_eq(&t));
    assert_eq!(sparse(&d).get(&[1, 2]).unwrap(), Scalar::Float64(3.75));
}

#[test]
fn coo_invalid_strides_crafted() {
    let (mut s, body) = crafted_coo();
    // nnz = 3, ndim = 2, w = 4: row-major is [8, 4], column-major [4, 12].
    for strides in [
        vec![4, 4],
        vec![8, 8],
        vec![12, 4],
        vec![8, 4, 1],
        vec![8],
        vec![-8, 4],
    ] {
        if let Index::Coo { strides: st, .. } = &mut s.index {
            *st = Some(strides.clone());
        }
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(&e, ErrorKind::InvalidCooStrides(v) if *v == strides),
            "{strides:?}: {e}"
        );
    }
}
