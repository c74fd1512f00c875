//! The ndarray bridge (`integrations::ndarray`): views without copying, owned arrays taken
//! without copying in C and Fortran layouts, copies of other layouts, error cases, views of
//! decoded messages, and property tests of the round trips.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    decode_message, f16, ConvertOptions, ErrorKind, Message, MessageWriter, NativeValue,
    ReadOptions, SparseFormat, SparseTensor, Tensor, ValueType, WriteOptions,
};
use ndarray::{s, Array, ArrayD, Dimension, IxDyn, ShapeBuilder};
use proptest::prelude::*;

/// Distinct values `0, 1, 2, ...` (wrapping for narrow types) of any value type.
fn values<T: NativeValue>(n: usize) -> Vec<T> {
    (0..n).map(|i| T::usize_as(i % 100 + 1)).collect()
}

/// Encodes a message with the crate's writer and decodes it back (strict, zero-copy).
fn through_ipc(message: Message) -> (bytes::Bytes, Message) {
    let mut writer = MessageWriter::new(Vec::new(), &WriteOptions::default());
    writer.write(&message).unwrap();
    let bytes = bytes::Bytes::from(writer.finish().unwrap());
    let decoded = decode_message(&bytes, &ReadOptions::strict())
        .unwrap()
        .unwrap();
    (bytes, decoded.message)
}

/// Whether `ptr` lies inside `bytes`.
fn inside<T>(ptr: *const T, bytes: &[u8]) -> bool {
    let range = bytes.as_ptr_range();
    (ptr as *const u8) >= range.start && (ptr as *const u8) < range.end
}

/// Every check of one value type: C and Fortran round trips without copying, a copied
/// non-contiguous array, the owned copy back, an IPC round trip viewed in place.
fn round_trip_type<T: NativeValue + std::fmt::Debug>() {
    let shape = [3usize, 4, 5];
    let n = 60;
    // C layout: the Vec moves into the tensor, the view points at it.
    let a = Array::from_shape_vec(IxDyn(&shape), values::<T>(n)).unwrap();
    let expected = a.clone();
    let ptr = a.as_ptr();
    let t = Tensor::from_ndarray(a).unwrap();
    assert_eq!(t.value_type(), T::TYPE);
    assert!(t.is_row_major());
    assert_eq!(
        t.data().as_ptr() as *const T,
        ptr,
        "{:?}: C array copied",
        T::TYPE
    );
    let v = t.as_array_view::<T>().unwrap();
    assert_eq!(v.as_ptr(), ptr, "{:?}: view copied", T::TYPE);
    assert_eq!(v, expected);
    assert_eq!(t.to_ndarray::<T>().unwrap(), expected);

    // Fortran layout: same, column-major strides.
    let f = Array::from_shape_vec(IxDyn(&shape).f(), values::<T>(n)).unwrap();
    let expected_f = f.clone();
    let ptr = f.as_ptr();
    let t = Tensor::from_ndarray(f).unwrap();
    assert!(t.is_column_major() && !t.is_row_major());
    let w = T::TYPE.byte_width();
    assert_eq!(t.strides(), &[w, 3 * w, 12 * w]);
    assert_eq!(
        t.data().as_ptr() as *const T,
        ptr,
        "{:?}: F array copied",
        T::TYPE
    );
    let v = t.as_array_view::<T>().unwrap();
    assert_eq!(v.as_ptr(), ptr);
    assert_eq!(v.strides(), &[1, 3, 12]);
    assert_eq!(v, expected_f);
    let owned = t.to_ndarray::<T>().unwrap();
    assert_eq!(owned, expected_f);
    assert!(
        owned.t().is_standard_layout(),
        "the copy keeps Fortran order"
    );

    // Non-contiguous (every other column): copied into row-major order.
    let mut sliced = expected.clone();
    sliced.slice_collapse(s![.., ..;2, ..]);
    let t = Tensor::from_ndarray(sliced.clone()).unwrap();
    assert!(t.is_row_major());
    assert_eq!(t.as_array_view::<T>().unwrap(), sliced);

    // Through IPC: the decoded tensor's view points into the message bytes.
    let t = Tensor::from_ndarray(expected.clone()).unwrap();
    let (bytes, decoded) = through_ipc(t.into());
    let decoded = decoded.as_tensor().unwrap();
    let v = decoded.as_array_view::<T>().unwrap();
    assert!(
        inside(v.as_ptr(), &bytes),
        "{:?}: decoded view copied",
        T::TYPE
    );
    assert_eq!(v, expected);
}

#[test]
fn every_value_type_round_trips_without_copying() {
    round_trip_type::<i8>();
    round_trip_type::<i16>();
    round_trip_type::<i32>();
    round_trip_type::<i64>();
    round_trip_type::<u8>();
    round_trip_type::<u16>();
    round_trip_type::<u32>();
    round_trip_type::<u64>();
    round_trip_type::<f16>();
    round_trip_type::<f32>();
    round_trip_type::<f64>();
}

#[test]
fn ranks_zero_to_five_in_both_layouts() {
    let shapes: [&[usize]; 6] = [
        &[],
        &[7],
        &[2, 3],
        &[2, 3, 4],
        &[2, 1, 3, 2],
        &[2, 2, 1, 3, 2],
    ];
    for shape in shapes {
        let n: usize = shape.iter().product();
        for fortran in [false, true] {
            let dim = IxDyn(shape);
            let a = if fortran {
                Array::from_shape_vec(dim.f(), values::<f64>(n)).unwrap()
            } else {
                Array::from_shape_vec(dim, values::<f64>(n)).unwrap()
            };
            let expected = a.clone();
            let ptr = a.as_ptr();
            let t = Tensor::from_ndarray(a).unwrap();
            assert_eq!(t.shape(), shape);
            assert_eq!(t.data().as_ptr() as *const f64, ptr, "shape {shape:?}");
            let v = t.as_array_view::<f64>().unwrap();
            assert_eq!(v.as_ptr(), ptr);
            assert_eq!(v.ndim(), shape.len());
            assert_eq!(v, expected, "shape {shape:?} fortran {fortran}");
            // Element by element against the tensor's own lookup.
            for (idx, x) in v.indexed_iter() {
                let got = t.get(idx.slice()).unwrap();
                assert_eq!(got, (*x).into_scalar());
            }
        }
    }
}

#[test]
fn zero_size_dimensions() {
    for shape in [&[0usize][..], &[3, 0], &[0, 4, 2], &[2, 0, 0, 1]] {
        for fortran in [false, true] {
            let dim = IxDyn(shape);
            let a: ArrayD<i32> = if fortran {
                Array::from_shape_vec(dim.f(), vec![]).unwrap()
            } else {
                Array::from_shape_vec(dim, vec![]).unwrap()
            };
            let t = Tensor::from_ndarray(a).unwrap();
            assert_eq!(t.shape(), shape);
            assert!(t.is_empty());
            let v = t.as_array_view::<i32>().unwrap();
            assert_eq!(v.shape(), shape);
            assert_eq!(v.len(), 0);
            assert_eq!(t.to_ndarray::<i32>().unwrap().shape(), shape);
            let back = Tensor::from_array_view(v).unwrap();
            assert!(back.content_eq(&t));
        }
    }
    // A tensor without elements but with arbitrary strides over an empty buffer.
    let t = Tensor::try_new(
        ValueType::Int64,
        vec![0, 5],
        vec![1000, 3],
        Buffer::from_vec(Vec::<u8>::new()),
    )
    .unwrap();
    assert_eq!(t.as_array_view::<i64>().unwrap().shape(), &[0, 5]);
}

#[test]
fn owned_arrays_sliced_along_the_first_axis_keep_their_allocation() {
    // Rows 1..3 of a 4 x 3 array: still standard layout, first element at offset 3.
    let a = Array::from_shape_vec((4, 3), values::<u32>(12)).unwrap();
    let base = a.as_ptr();
    let rows = a.slice_move(s![1..3, ..]);
    let expected = rows.clone();
    let t = Tensor::from_ndarray(rows).unwrap();
    assert_eq!(t.data().as_ptr() as *const u32, base.wrapping_add(3));
    assert_eq!(t.as_array_view::<u32>().unwrap(), expected.into_dyn());
}

#[test]
fn negative_strides_and_views_are_copied() {
    let a = Array::from_shape_vec((3, 4), values::<i16>(12)).unwrap();
    // Negative strides: a row-major copy.
    let rev = a.slice(s![..;-1, ..]);
    let t = Tensor::from_array_view(rev).unwrap();
    assert!(t.is_row_major());
    assert_eq!(t.as_array_view::<i16>().unwrap(), rev.into_dyn());
    let owned_rev = a.slice(s![.., ..;-2]).to_owned();
    // `to_owned` of a negative-stride view is contiguous again; reverse an owned array in
    // place to keep its negative strides.
    let mut neg = a.clone();
    neg.invert_axis(ndarray::Axis(1));
    assert!(neg.strides()[1] < 0);
    let expected = neg.clone();
    let t = Tensor::from_ndarray(neg).unwrap();
    assert!(t.is_row_major());
    assert_eq!(t.as_array_view::<i16>().unwrap(), expected.into_dyn());
    assert_eq!(
        Tensor::from_ndarray(owned_rev.clone())
            .unwrap()
            .to_ndarray::<i16>()
            .unwrap(),
        owned_rev.into_dyn()
    );

    // A contiguous view is copied in its memory order (one copy, Fortran kept).
    let f = Array::from_shape_vec((3, 4).f(), values::<i16>(12)).unwrap();
    let t = Tensor::from_array_view(f.view()).unwrap();
    assert!(t.is_column_major());
    assert_ne!(
        t.data().as_ptr() as *const i16,
        f.as_ptr(),
        "a view is copied"
    );
    assert_eq!(t.as_array_view::<i16>().unwrap(), f.into_dyn());
    // Broadcast (stride 0) views copy into a full row-major tensor.
    let row = ndarray::arr1(&[1.0f32, 2.0, 3.0]);
    let b = row.broadcast((2, 3)).unwrap();
    let t = Tensor::from_array_view(b).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
}

#[test]
fn tensors_with_other_strides_view_in_place() {
    // Every other element of a 2 x 6 int32 buffer: byte strides [24, 8].
    let data = Buffer::from_vec((0..12i32).collect::<Vec<_>>());
    let t = Tensor::try_new(ValueType::Int32, vec![2, 3], vec![24, 8], data.clone()).unwrap();
    let v = t.as_array_view::<i32>().unwrap();
    assert_eq!(v.strides(), &[6, 2]);
    assert_eq!(v.as_ptr() as *const u8, data.as_ptr());
    assert_eq!(v, ndarray::array![[0, 2, 4], [6, 8, 10]].into_dyn());
    // Stride 0 (a broadcast row) is a valid read-only view.
    let t = Tensor::try_new(ValueType::Int32, vec![3, 2], vec![0, 4], data).unwrap();
    assert_eq!(
        t.as_array_view::<i32>().unwrap(),
        ndarray::array![[0, 1], [0, 1], [0, 1]].into_dyn()
    );
}

#[test]
fn wrong_type_is_a_type_mismatch() {
    let t = Tensor::from_vec(vec![2, 2], vec![1.0f32; 4]).unwrap();
    for err in [
        t.as_array_view::<i32>().unwrap_err(),
        t.as_array_view::<f64>().unwrap_err(),
        t.to_ndarray::<u32>().unwrap_err(),
    ] {
        assert!(
            matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
            "{err}"
        );
    }
    let sparse = SparseTensor::coo([2, 2], vec![0i32, 1], vec![1u8]).unwrap();
    let err = sparse.to_ndarray::<i8>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err}"
    );
}

#[test]
fn stride_not_a_multiple_of_the_width_is_invalid_strides() {
    // Elements 6 bytes apart: readable bytewise, not viewable as &[i32].
    let bytes: Vec<u8> = (0..16).collect();
    let t = Tensor::try_new(ValueType::Int32, vec![2], vec![6], Buffer::from_vec(bytes)).unwrap();
    let err = t.as_array_view::<i32>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidStrides { .. }),
        "{err}"
    );
    // The owned copy reads it bytewise.
    let a = t.to_ndarray::<i32>().unwrap();
    assert_eq!(
        a.as_slice().unwrap(),
        &[
            i32::from_le_bytes([0, 1, 2, 3]),
            i32::from_le_bytes([6, 7, 8, 9])
        ]
    );
}

#[test]
fn misaligned_buffer_is_misaligned() {
    // One byte into a 64-byte aligned allocation: misaligned for every width above 1.
    let bytes: Vec<u8> = (0..33).collect();
    let data = Buffer::from_vec(bytes).slice(1);
    let t = Tensor::try_new(ValueType::Float64, vec![4], vec![8], data).unwrap();
    let err = t.as_array_view::<f64>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Misaligned { align: 8, .. }),
        "{err}"
    );
    // The owned copy reads bytewise.
    let a = t.to_ndarray::<f64>().unwrap();
    assert_eq!(a.len(), 4);
    assert_eq!(a[[0]].to_le_bytes(), [1, 2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn sparse_tensors_to_ndarray() {
    let dense = ndarray::array![[0.0f64, 1.5, 0.0], [-2.0, 0.0, 4.0]].into_dyn();
    let t = Tensor::from_ndarray(dense.clone()).unwrap();
    for format in [
        SparseFormat::Coo,
        SparseFormat::Csr,
        SparseFormat::Csc,
        SparseFormat::Csf,
    ] {
        let sparse = t
            .to_sparse_with(format, &ConvertOptions::default())
            .unwrap();
        assert_eq!(sparse.to_ndarray::<f64>().unwrap(), dense, "{format:?}");
    }
    // Duplicates of a non-canonical COO are summed, as by to_dense.
    let coo = SparseTensor::try_new_with_duplicates(
        ValueType::Int64,
        vec![2, 2],
        Buffer::from_vec(vec![1i64, 2, 5]),
        arrow_tensor_ipc::SparseIndex::Coo(
            arrow_tensor_ipc::CooIndex::new(
                arrow_tensor_ipc::IndexArray::from_vec(vec![1i32, 1, 0, 0, 1, 1]),
                2,
            )
            .unwrap(),
        ),
    )
    .unwrap();
    assert_eq!(
        coo.to_ndarray::<i64>().unwrap(),
        ndarray::array![[2, 0], [0, 6]].into_dyn()
    );
    // Rank 3 and rank 0.
    let cube = Array::from_shape_fn((2, 3, 4), |(i, j, k)| {
        if (i + j + k) % 3 == 0 {
            (i * 12 + j * 4 + k) as u16
        } else {
            0
        }
    })
    .into_dyn();
    let sparse = Tensor::from_ndarray(cube.clone())
        .unwrap()
        .to_sparse_with(SparseFormat::Csf, &ConvertOptions::default())
        .unwrap();
    assert_eq!(sparse.to_ndarray::<u16>().unwrap(), cube);
    let scalar = SparseTensor::coo::<f32, i64>(&[], vec![], vec![2.5]).unwrap();
    assert_eq!(
        scalar.to_ndarray::<f32>().unwrap(),
        ndarray::arr0(2.5f32).into_dyn()
    );
    // The limit is checked before allocating.
    let huge = SparseTensor::coo([1 << 20, 1 << 20], vec![5i64, 5], vec![1.0f64]).unwrap();
    let err = huge
        .to_ndarray_with::<f64>(&ConvertOptions::default().with_max_dense_elements(1 << 24))
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::LimitExceeded { .. }),
        "{err}"
    );
}

#[test]
fn dense_to_sparse_of_a_decoded_fortran_tensor() {
    // A column-major tensor goes through IPC as written and comes back viewable.
    let f = Array::from_shape_vec((4, 3).f(), values::<f32>(12))
        .unwrap()
        .into_dyn();
    let t = Tensor::from_ndarray(f.clone()).unwrap();
    let (bytes, decoded) = through_ipc(t.into());
    let decoded = decoded.as_tensor().unwrap();
    let v = decoded.as_array_view::<f32>().unwrap();
    assert!(inside(v.as_ptr(), &bytes));
    assert_eq!(v, f);
}

/// A shape of rank 0..=4 with dimensions 0..=4.
fn shapes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..=4, 0..=4)
}

proptest! {
    #[test]
    fn prop_owned_round_trip(shape in shapes(), fortran in any::<bool>(), seed in any::<u64>()) {
        let n: usize = shape.iter().product();
        let vals: Vec<i64> = (0..n as u64).map(|i| (i ^ seed) as i64).collect();
        let dim = IxDyn(&shape);
        let a = if fortran {
            Array::from_shape_vec(dim.f(), vals).unwrap()
        } else {
            Array::from_shape_vec(dim, vals).unwrap()
        };
        let expected = a.clone();
        let ptr = a.as_ptr();
        let t = Tensor::from_ndarray(a).unwrap();
        if n > 0 {
            prop_assert_eq!(t.data().as_ptr() as *const i64, ptr);
        }
        let v = t.as_array_view::<i64>().unwrap();
        prop_assert_eq!(&v, &expected);
        prop_assert_eq!(t.to_ndarray::<i64>().unwrap(), expected.clone());
        // And through IPC.
        let (_, decoded) = through_ipc(t.into());
        prop_assert_eq!(decoded.as_tensor().unwrap().as_array_view::<i64>().unwrap(), expected);
    }

    #[test]
    fn prop_sliced_views_round_trip(
        shape in prop::collection::vec(1usize..=5, 1..=4),
        step in 1isize..=3,
        reverse in any::<bool>(),
    ) {
        let n: usize = shape.iter().product();
        let a = Array::from_shape_vec(IxDyn(&shape), values::<f64>(n)).unwrap();
        let step = if reverse { -step } else { step };
        let view = a.slice_each_axis(|_| ndarray::Slice::new(0, None, step));
        let t = Tensor::from_array_view(view.view()).unwrap();
        prop_assert_eq!(t.shape(), view.shape());
        prop_assert_eq!(t.as_array_view::<f64>().unwrap(), view.clone());
        let owned = view.to_owned();
        prop_assert_eq!(Tensor::from_ndarray(owned.clone()).unwrap().to_ndarray::<f64>().unwrap(), owned);
    }

    #[test]
    fn prop_sparse_to_ndarray_matches_to_dense(
        shape in prop::collection::vec(1usize..=5, 2..=2),
        density in 0u64..=100,
        seed in any::<u64>(),
    ) {
        let n: usize = shape.iter().product();
        let vals: Vec<f32> = (0..n as u64)
            .map(|i| if (i.wrapping_mul(0x9E37_79B9) ^ seed) % 100 < density { (i + 1) as f32 } else { 0.0 })
            .collect();
        let a = Array::from_shape_vec(IxDyn(&shape), vals).unwrap();
        let t = Tensor::from_ndarray(a.clone()).unwrap();
        for format in [SparseFormat::Coo, SparseFormat::Csr, SparseFormat::Csc, SparseFormat::Csf] {
            let sparse = t.to_sparse_with(format, &ConvertOptions::default()).unwrap();
            prop_assert_eq!(sparse.to_ndarray::<f32>().unwrap(), a.clone());
        }
    }
}

/// A 13 x 7 float64 message (values 0..91) with its strides `[56, 8]` replaced by
/// `strides` in the metadata, decoded with `options`.
fn restrided(strides: [i64; 2], options: &ReadOptions) -> arrow_tensor_ipc::Result<Tensor> {
    let t = Tensor::from_vec(vec![13, 7], (0..91).map(f64::from).collect()).unwrap();
    let mut writer = MessageWriter::new(Vec::new(), &WriteOptions::default());
    writer.write(&Message::Tensor(t)).unwrap();
    let mut raw = writer.finish().unwrap();
    let old: Vec<u8> = [56i64, 8].iter().flat_map(|v| v.to_le_bytes()).collect();
    let new: Vec<u8> = strides.iter().flat_map(|v| v.to_le_bytes()).collect();
    let at = raw.windows(16).position(|w| w == old.as_slice()).unwrap();
    raw[at..at + 16].copy_from_slice(&new);
    let raw = bytes::Bytes::from(raw);
    let decoded = decode_message(&raw, options)?.unwrap();
    Ok(decoded.message.as_tensor().unwrap().clone())
}

#[test]
fn views_of_decoded_tensors_whose_strides_and_buffer_disagree() {
    for options in [ReadOptions::strict(), ReadOptions::permissive()] {
        // Strides that reach past the body: refused by the decoder in both modes, so no
        // view of such a tensor can exist.
        for strides in [[64, 8], [56, 16], [8, 112], [i64::MAX / 8, 8]] {
            let err = restrided(strides, &options).unwrap_err();
            assert!(
                matches!(
                    err.kind(),
                    ErrorKind::BufferTooShort { .. }
                        | ErrorKind::InvalidStrides { .. }
                        | ErrorKind::Overflow { .. }
                ),
                "{strides:?}: {err:?}"
            );
        }
        // Zero and overlapping strides inside the body (Arrow allows them): the view reads
        // what the strides say, without copying, and the owned copy agrees.
        let zero = restrided([0, 8], &options).unwrap();
        let v = zero.as_array_view::<f64>().unwrap();
        assert_eq!(v.strides(), &[0, 1]);
        assert!((0..13).all(|i| (0..7).all(|j| v[[i, j]] == j as f64)));
        assert_eq!(zero.to_ndarray::<f64>().unwrap(), v);
        let overlapping = restrided([8, 8], &options).unwrap();
        let v = overlapping.as_array_view::<f64>().unwrap();
        assert!((0..13).all(|i| (0..7).all(|j| v[[i, j]] == (i + j) as f64)));
        assert_eq!(overlapping.to_ndarray::<f64>().unwrap(), v);
        // A stride that is not a multiple of the width (Arrow accepts it): an error, not a
        // misread view.
        let odd = restrided([52, 8], &options).unwrap();
        assert!(matches!(
            odd.as_array_view::<f64>().unwrap_err().kind(),
            ErrorKind::InvalidStrides { .. }
        ));
    }
}

#[test]
fn sparse_to_ndarray_of_a_permissively_decoded_bad_index_is_an_error() {
    let t = SparseTensor::csr(
        [3, 4],
        vec![0i32, 1, 1, 3],
        vec![2, 0, 3],
        vec![1.5f64, -2.0, 4.0],
    )
    .unwrap();
    let mut writer = MessageWriter::new(Vec::new(), &WriteOptions::default());
    writer.write(&Message::from(t)).unwrap();
    let mut raw = writer.finish().unwrap();
    let old: Vec<u8> = [2i32, 0, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    let at = raw.windows(12).position(|w| w == old.as_slice()).unwrap();
    raw[at..at + 4].copy_from_slice(&(1i32 << 20).to_le_bytes());
    let raw = bytes::Bytes::from(raw);
    assert!(decode_message(&raw, &ReadOptions::strict()).is_err());
    let decoded = decode_message(&raw, &ReadOptions::permissive())
        .unwrap()
        .unwrap();
    let err = decoded
        .message
        .as_sparse()
        .unwrap()
        .to_ndarray::<f64>()
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::IndexOutOfBounds { position: 0, .. }),
        "{err:?}"
    );
}
