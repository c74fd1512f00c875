//! Values buffers: lengths and types.

use super::*;
use crate::csf::{seed_idx, seed_ptr};

#[test]
fn values_shorter_than_nnz() {
    let e = SparseTensor::coo([3, 4], vec![0i32, 1, 1, 2, 2, 3], vec![1f32, 2.]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    let e = SparseTensor::csr(
        [3, 4],
        vec![0i64, 2, 2, 4],
        vec![0, 2, 1, 3],
        vec![1f64, 2., 3.],
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    let e = csf_parts(&[2, 3, 4], vec![0, 1, 2], seed_ptr(), seed_idx(), vec![1.]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountMismatch { .. }), "{e}");
    // A values buffer that is not a whole number of values.
    let e = SparseTensor::try_new(
        ValueType::Float32,
        vec![3, 4],
        Buffer::from_vec(vec![0u8; 10]),
        SparseIndex::Coo(
            CooIndex::new(IndexArray::from_vec(vec![0i32, 1, 1, 2, 2, 3]), 2).unwrap(),
        ),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::PartialValue { .. }), "{e}");

    // In messages: the values buffer holds fewer than nnz values.
    for (s, body) in [crafted_coo(), crafted_csr(), crafted_csf()] {
        let mut s = s;
        let w = if matches!(s.vt, Vt::Float(2)) { 8 } else { 4 };
        s.data.1 = (s.nnz - 1) * w;
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(
                e,
                ErrorKind::BufferTooShort {
                    buffer: BufferId::Values,
                    ..
                }
            ),
            "{e}"
        );
        let e = dec(&sparse_msg(&s, &body), ReadOptions::permissive())
            .unwrap_err()
            .into_kind();
        assert!(
            matches!(
                e,
                ErrorKind::BufferTooShort {
                    buffer: BufferId::Values,
                    ..
                }
            ),
            "{e}"
        );
    }
    // Index buffers too short.
    let (mut s, body) = crafted_coo();
    if let Index::Coo { buf, .. } = &mut s.index {
        buf.1 = 20;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferTooShort {
            buffer: BufferId::CooIndices,
            needed: 24,
            length: 20
        }
    ));
}
