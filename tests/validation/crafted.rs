//! Crafted metadata: tables no encoder of ours writes.

use super::*;

#[test]
fn negative_dimension_size() {
    let (mut s, body) = crafted_coo();
    s.shape = vec![3, -4];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::Negative { value: -4, .. }
    ));
    let (mut d, body) = crafted_dense();
    d.shape = vec![-2, 3];
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::Negative { value: -2, .. }
    ));
}

#[test]
fn negative_nnz() {
    for (s, body) in [crafted_coo(), crafted_csr(), crafted_csf()] {
        let mut s = s;
        s.nnz = -1;
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(matches!(e, ErrorKind::Negative { value: -1, .. }), "{e}");
    }
}

#[test]
fn negative_body_length() {
    let (mut s, body) = crafted_coo();
    s.body_len = -8;
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::NegativeBodyLength(-8)
    ));
    let (mut d, body) = crafted_dense();
    d.body_len = i64::MIN;
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::NegativeBodyLength(i64::MIN)
    ));
}

#[test]
fn negative_metadata_length() {
    let mut bytes = sparse_msg(&crafted_coo().0, &crafted_coo().1);
    bytes[4..8].copy_from_slice(&(-16i32).to_le_bytes());
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::NegativeMetadataLength(-16)
    ));
}

#[test]
fn unsupported_value_types() {
    for vt in [
        Vt::Utf8,
        Vt::Bool,
        Vt::Decimal,
        Vt::Int(12, true),
        Vt::Int(128, false),
        Vt::Float(3),
    ] {
        let (mut s, body) = crafted_coo();
        s.vt = vt;
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(e, ErrorKind::UnsupportedValueType(_)),
            "{vt:?}: {e}"
        );
        let (mut d, body) = crafted_dense();
        d.vt = vt;
        let e = strict_err(&dense_msg(&d, &body));
        assert!(
            matches!(e, ErrorKind::UnsupportedValueType(_)),
            "{vt:?}: {e}"
        );
    }
}

#[test]
fn non_integer_index_type() {
    // indicesType is an Int table: an unsupported bit width is what can go wrong.
    let (mut s, body) = crafted_coo();
    if let Index::Coo { ty, .. } = &mut s.index {
        *ty = (12, true);
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::UnsupportedIndexType { .. }
    ));
    let (s, body) = crafted_csr();
    for which in 0..2 {
        let mut s = s.clone();
        if let Index::Csx { ptr_ty, idx_ty, .. } = &mut s.index {
            if which == 0 {
                *ptr_ty = (12, false);
            } else {
                *idx_ty = (0, true);
            }
        }
        assert!(matches!(
            strict_err(&sparse_msg(&s, &body)),
            ErrorKind::UnsupportedIndexType { .. }
        ));
    }
    let (s, body) = crafted_csf();
    for which in 0..2 {
        let mut s = s.clone();
        if let Index::Csf { ptr_ty, idx_ty, .. } = &mut s.index {
            if which == 0 {
                *ptr_ty = (12, true);
            } else {
                *idx_ty = (24, true);
            }
        }
        assert!(matches!(
            strict_err(&sparse_msg(&s, &body)),
            ErrorKind::UnsupportedIndexType { .. }
        ));
    }
}

#[test]
fn unknown_versions() {
    for v in [0i16, 1, 2, 5, -1, i16::MAX] {
        let (mut s, body) = crafted_coo();
        s.version = v;
        let e = strict_err(&sparse_msg(&s, &body));
        assert!(
            matches!(e, ErrorKind::UnsupportedVersion(x) if x == v),
            "{v}: {e}"
        );
        let (mut d, body) = crafted_dense();
        d.version = v;
        let e = strict_err(&dense_msg(&d, &body));
        assert!(
            matches!(e, ErrorKind::UnsupportedVersion(x) if x == v),
            "{v}: {e}"
        );
    }
}

#[test]
fn record_batch_and_schema_are_not_tensors() {
    for h in [
        fb::MessageHeader::RecordBatch,
        fb::MessageHeader::Schema,
        fb::MessageHeader::NONE,
    ] {
        let bytes = craft::frame(&craft::other_header(h), &[], true, 8);
        let e = strict_err(&bytes);
        assert!(matches!(e, ErrorKind::NotATensor(_)), "{h:?}: {e}");
    }
}

#[test]
fn unknown_union_discriminants() {
    let bytes = craft::frame(&craft::other_header(fb::MessageHeader(9)), &[], true, 8);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::UnknownUnion { value: 9, .. }
    ));
    let (mut s, body) = crafted_coo();
    s.vt = Vt::Raw(99);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::UnknownUnion { value: 99, .. }
    ));
    let (mut d, body) = crafted_dense();
    d.vt = Vt::Raw(200);
    assert!(matches!(
        strict_err(&dense_msg(&d, &body)),
        ErrorKind::UnknownUnion { value: 200, .. }
    ));
    let (mut s, body) = crafted_coo();
    s.index = Index::Unknown(7);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::UnknownUnion { value: 7, .. }
    ));
}

#[test]
fn buffers_outside_the_body() {
    // Past the end.
    let (mut s, body) = crafted_coo();
    s.data = (32, 16);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::Values,
            offset: 32,
            length: 16,
            body_length: 40
        }
    ));
    // offset + length overflows.
    let (mut s, body) = crafted_coo();
    if let Index::Coo { buf, .. } = &mut s.index {
        *buf = (8, i64::MAX);
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::CooIndices,
            ..
        }
    ));
    let (mut s, body) = crafted_csr();
    if let Index::Csx { idx, .. } = &mut s.index {
        *idx = (i64::MAX, 32);
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::CsxIndices,
            ..
        }
    ));
    let (mut s, body) = crafted_csf();
    if let Index::Csf { idxs, .. } = &mut s.index {
        idxs[2].0 = s.body_len;
    }
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::BufferOutOfBody {
            buffer: BufferId::CsfIndices(2),
            ..
        }
    ));
    // Negative offsets and lengths.
    let (mut s, body) = crafted_coo();
    s.data = (-8, 16);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::Negative { value: -8, .. }
    ));
    let (mut s, body) = crafted_coo();
    s.data = (24, -16);
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::Negative { value: -16, .. }
    ));
    // A body length beyond the bytes present.
    let (mut s, body) = crafted_coo();
    s.body_len = 48;
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::Truncated {
            part: "body",
            needed: 48,
            available: 40
        }
    ));
}

#[test]
fn overlapping_buffers() {
    // Values overlap the last 8 bytes of the indices (they then read as two coordinates).
    let mut body = craft::ints(&[0, 1, 1, 2], 4);
    body.extend(craft::f32s(&[5.]));
    let (mut s, _) = crafted_coo();
    s.nnz = 2;
    s.index = Index::Coo {
        ty: I32,
        strides: Some(vec![8, 4]),
        buf: (0, 16),
        canonical: true,
    };
    s.data = (8, 8);
    s.body_len = body.len() as i64;
    let bytes = sparse_msg(&s, &body);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::Overlap {
            first: BufferId::CooIndices,
            second: BufferId::Values
        }
    ));
    let d = dec(&bytes, ReadOptions::permissive()).unwrap();
    let t = sparse(&d);
    assert_eq!(t.nnz(), 2);
    assert_eq!(
        t.values::<f32>().unwrap(),
        &[f32::from_bits(1), f32::from_bits(2)]
    );
    assert_eq!(t.get(&[1, 2]).unwrap(), Scalar::Float32(f32::from_bits(2)));
    // The same buffer twice (CSX indptr and indices): strict rejects, permissive accepts.
    let (mut s, body) = crafted_csr();
    if let Index::Csx { idx, .. } = &mut s.index {
        *idx = (0, 32);
    }
    let bytes = sparse_msg(&s, &body);
    assert!(matches!(strict_err(&bytes), ErrorKind::Overlap { .. }));
    dec(&bytes, ReadOptions::permissive()).unwrap();
}

#[test]
fn misaligned_buffers() {
    // float64 values at body offset 4.
    let mut body = craft::ints(&[0, 2, 1, 3], 1);
    let data_off = 4;
    body.extend([1.5f64, -2.0].iter().flat_map(|v| v.to_le_bytes()));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(2),
        shape: vec![2, 4],
        names: vec![],
        nnz: 2,
        index: Index::Coo {
            ty: (8, false),
            strides: Some(vec![2, 1]),
            buf: (0, 4),
            canonical: true,
        },
        data: (data_off, 16),
        body_len: body.len() as i64,
        custom_metadata: false,
    };
    let bytes = craft::frame(&craft::sparse(&s), &body, true, 64);
    // An aligned copy of the message, so that only the buffer offset misaligns.
    let aligned = Buffer::from_slice_ref(&bytes);
    assert_eq!(aligned.as_ptr() as usize % 64, 0);
    let error_opts = ReadOptions::default().with_misaligned(Misaligned::Error);
    let e = MessageIter::new(aligned.clone(), error_opts)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Misaligned {
                buffer: BufferId::Values,
                offset: 4,
                align: 8
            }
        ),
        "{e}"
    );
    let d = MessageIter::new(aligned.clone(), ReadOptions::default())
        .next()
        .unwrap()
        .unwrap();
    let t = sparse(&d);
    let v = t.values::<f64>().expect("typed view");
    assert_eq!(v, &[1.5, -2.0]);
    assert_eq!(v.as_ptr() as usize % 8, 0);
    assert_eq!(t.get(&[1, 3]).unwrap(), Scalar::Float64(-2.0));

    // A misaligned index buffer (int32 at offset 2).
    let mut body = vec![0u8; 2];
    body.extend(craft::ints(&[0, 2, 1, 3], 4));
    body.resize(24, 0);
    body.extend(craft::f32s(&[1., 2.]));
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![2, 4],
        names: vec![],
        nnz: 2,
        index: Index::Coo {
            ty: I32,
            strides: Some(vec![8, 4]),
            buf: (2, 16),
            canonical: true,
        },
        data: (24, 8),
        body_len: body.len() as i64,
        custom_metadata: false,
    };
    let aligned = Buffer::from_slice_ref(craft::frame(&craft::sparse(&s), &body, true, 64));
    let e = MessageIter::new(aligned.clone(), error_opts)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Misaligned {
                buffer: BufferId::CooIndices,
                offset: 2,
                align: 4
            }
        ),
        "{e}"
    );
    let d = MessageIter::new(aligned, ReadOptions::default())
        .next()
        .unwrap()
        .unwrap();
    let t = sparse(&d);
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    let coords = c.indices().values::<i32>().expect("typed view");
    assert_eq!(coords, &[0, 2, 1, 3]);
    assert_eq!(coords.as_ptr() as usize % 4, 0);
    assert_eq!(t.get(&[0, 2]).unwrap(), Scalar::Float32(1.));

    // A dense body that starts misaligned: the message is placed at offset 1.
    let (d, body) = crafted_dense();
    // An int8 tensor of one element with an unpadded body puts the next message at an odd
    // offset.
    let one = craft::Dense {
        version: 4,
        vt: Vt::Int(8, true),
        shape: vec![1],
        names: vec![],
        strides: None,
        data: (0, 1),
        body_len: 1,
        custom_metadata: false,
    };
    let mut shifted = dense_msg(&one, &[7]);
    let second = shifted.len();
    assert_eq!(second % 2, 1);
    shifted.extend(dense_msg(&d, &body));
    let buf = Buffer::from_slice_ref(&shifted);
    let results: Vec<_> = MessageIter::new(buf.clone(), error_opts).collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    let e = results[1].as_ref().unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Misaligned {
                buffer: BufferId::TensorData,
                align: 4,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.message_offset(), Some(second as u64));
    let ok: Vec<_> = MessageIter::new(buf, ReadOptions::default())
        .collect::<Result<_, _>>()
        .unwrap();
    let t = ok[1].message.as_tensor().unwrap();
    let s = t.as_slice::<i32>().expect("aligned typed view");
    assert_eq!(s, &[1, 2, 3, 4, 5, 6]);
}

#[test]
fn limits_are_enforced() {
    let (mut s, body) = crafted_coo();
    s.nnz = 1 << 40;
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::LimitExceeded { .. }
    ));
    // COO nnz x ndim overflow when the nnz limit is lifted (GH-50054).
    let opts = ReadOptions::default().with_limits(Limits::default().with_max_nnz(u64::MAX));
    let (mut s, body) = crafted_coo();
    s.nnz = i64::MAX;
    let e = dec(&sparse_msg(&s, &body), opts).unwrap_err().into_kind();
    assert!(matches!(e, ErrorKind::Overflow { .. }), "{e}");
    // CSX sizes near i64::MAX (GH-50077).
    let (mut s, body) = crafted_csr();
    s.shape = vec![i64::MAX, 4];
    let e = strict_err(&sparse_msg(&s, &body));
    assert!(matches!(e, ErrorKind::Overflow { .. }), "{e}");
    // Rank.
    let (mut s, body) = crafted_coo();
    s.shape = vec![1; 65];
    assert!(matches!(
        strict_err(&sparse_msg(&s, &body)),
        ErrorKind::LimitExceeded { what: "rank", .. }
    ));
}

#[test]
fn truncated_messages() {
    let bytes = enc(coo_base());
    for cut in [3usize, 7, 20, body_offset(&bytes) + 1, bytes.len() - 1] {
        let e = dec(&bytes[..cut], ReadOptions::strict())
            .unwrap_err()
            .into_kind();
        assert!(matches!(e, ErrorKind::Truncated { .. }), "{cut}: {e}");
    }
    assert!(decode_message(&bytes::Bytes::new(), &ReadOptions::strict())
        .unwrap()
        .is_none());
}

#[test]
fn garbage_metadata_is_invalid_flatbuffer() {
    let bytes = craft::frame(&[0xAB; 24], &[], true, 8);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidFlatbuffer(_)
    ));
}
