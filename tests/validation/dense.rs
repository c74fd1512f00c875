//! Dense tensors: shapes, strides, data extent.

use super::*;

#[test]
fn dense_strides_count_mismatch() {
    let e = Tensor::try_new(
        ValueType::Int32,
        vec![2, 3],
        vec![4],
        Buffer::from_vec(vec![0i32; 6]),
    )
    .unwrap_err();
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
    let (mut d, body) = crafted_dense();
    d.strides = Some(vec![12, 4, 4]);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::CountMismatch {
            expected: 2,
            found: 3,
            ..
        }
    ));
}

#[test]
fn dense_data_too_short() {
    let e = Tensor::try_new(
        ValueType::Int32,
        vec![2, 3],
        vec![12, 4],
        Buffer::from_vec(vec![0i32; 5]),
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::BufferTooShort {
                buffer: BufferId::TensorData,
                needed: 24,
                length: 20
            }
        ),
        "{e}"
    );
    let e = Tensor::from_vec(vec![2, 3], vec![0i32; 5]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    // In a message: explicit strides reaching past the body, and implicit ones (GH-50063).
    let (mut d, body) = crafted_dense();
    d.strides = Some(vec![16, 4]);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::BufferTooShort {
            needed: 28,
            length: 24,
            ..
        }
    ));
    let (mut d, body) = crafted_dense();
    d.strides = None;
    d.body_len = 20;
    d.data = (0, 20);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body[..20])),
        ErrorKind::BufferTooShort {
            needed: 24,
            length: 20,
            ..
        }
    ));
}

#[test]
fn dense_shape_overflow() {
    let e = Tensor::try_new(
        ValueType::Int8,
        vec![usize::MAX, 2],
        vec![2, 1],
        Buffer::from_vec(Vec::<u8>::new()),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow { .. }), "{e}");
    let e = Tensor::from_vec(vec![1 << 40, 1 << 40], vec![0u8]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow { .. }), "{e}");
    // Extent overflow with a huge stride.
    let e = Tensor::try_new(
        ValueType::Int64,
        vec![4],
        vec![usize::MAX / 2],
        Buffer::from_vec(vec![0i64; 4]),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Overflow { .. }), "{e}");
    // In messages (ARROW-11470).
    let (mut d, body) = crafted_dense();
    d.shape = vec![1 << 40, 1 << 40];
    d.strides = None;
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::Overflow { .. }
    ));
    let (mut d, body) = crafted_dense();
    d.shape = vec![4];
    d.strides = Some(vec![i64::MAX]);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::Overflow { .. }
    ));
    // Sparse to-dense of an enormous shape overflows or exceeds the limit, never allocates.
    let t = SparseTensor::coo([1 << 40, 1 << 40], vec![5i64, 7], vec![1f32]).unwrap();
    assert_eq!(t.get(&[5, 7]).unwrap(), Scalar::Float32(1.));
    assert!(matches!(
        t.to_dense().unwrap_err().kind(),
        ErrorKind::Overflow { .. }
    ));
    let t = SparseTensor::coo([1 << 20, 1 << 20], vec![5i64, 7], vec![1f32]).unwrap();
    assert!(matches!(
        t.to_dense_with(
            &arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(1 << 20)
        )
        .unwrap_err()
        .kind(),
        ErrorKind::LimitExceeded { .. }
    ));
}

#[test]
fn dense_negative_stride_crafted() {
    let (mut d, body) = crafted_dense();
    d.strides = Some(vec![12, -4]);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::Negative { value: -4, .. }
    ));
}
