//! Permissive reading: broken messages decode, using them returns errors.

use super::*;

#[test]
fn permissive_coo_out_of_bounds() {
    let bytes = patched(&coo_base(), 0, 4, 3, 9); // entry 1 -> (1, 9)
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds { .. }
    ));
    let got = permissive_errors(&bytes, &[&[0, 1], &[1, 2], &[2, 3], &[1, 9], &[0]]);
    // Lookups of in-range coordinates find what is stored there; out-of-range queries fail.
    assert_eq!(got[0].as_ref().unwrap(), &Scalar::Float32(1.));
    assert_eq!(got[1].as_ref().unwrap(), &Scalar::Float32(0.));
    assert_eq!(got[2].as_ref().unwrap(), &Scalar::Float32(3.));
    assert!(got[3].is_err());
    assert!(got[4].is_err());
    let d = dec(&bytes, ReadOptions::permissive()).unwrap();
    let e = sparse(&d).to_dense().unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::IndexOutOfBounds { value: 9, .. }),
        "{e}"
    );
    // Negative coordinates, permissively.
    let bytes = patched(&coo_base(), 0, 4, 0, -5);
    permissive_errors(&bytes, &[&[0, 1], &[2, 3]]);
}

#[test]
fn permissive_csx_bad_indptr() {
    // indptr[1] = 100: beyond the 4 indices.
    let bytes = patched(&csr_base(), 0, 8, 1, 100);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr { .. }
    ));
    let got = permissive_errors(&bytes, &[&[0, 0], &[1, 0], &[2, 1]]);
    for g in &got[..2] {
        assert!(
            matches!(
                g.as_ref().unwrap_err().kind(),
                ErrorKind::InvalidIndptr { .. }
            ),
            "{g:?}"
        );
    }
    // Row 2 uses indptr[2..4] = [2, 4], which is fine.
    assert_eq!(got[2].as_ref().unwrap(), &Scalar::Float64(3.));
    // Decreasing indptr.
    let bytes = patched(&csr_base(), 0, 8, 2, 1); // [0, 2, 1, 4]
    let got = permissive_errors(&bytes, &[&[1, 0]]);
    assert!(got[0].is_err());
    // Negative indptr.
    let bytes = patched(&csr_base(), 0, 8, 0, -3);
    let got = permissive_errors(&bytes, &[&[0, 0]]);
    assert!(got[0].is_err());
    // Indices out of bounds, permissively.
    let bytes = patched(&csr_base(), 1, 8, 0, 40);
    let got = permissive_errors(&bytes, &[&[0, 2], &[2, 1]]);
    assert_eq!(got[0].as_ref().unwrap(), &Scalar::Float64(2.));
    assert_eq!(got[1].as_ref().unwrap(), &Scalar::Float64(3.));
}

#[test]
fn permissive_csf_out_of_bounds() {
    let bytes = patched(&csf_base(), CSF_IDX2, 4, 0, 77);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::IndexOutOfBounds { .. }
    ));
    let got = permissive_errors(&bytes, &[&[1, 1, 2], &[0, 0, 1], &[5, 0, 0]]);
    assert_eq!(got[0].as_ref().unwrap(), &Scalar::Float32(4.));
    assert_eq!(got[1].as_ref().unwrap(), &Scalar::Float32(0.));
    assert!(got[2].is_err());
    // Bad indptr in a CSF level, permissively.
    let bytes = patched(&csf_base(), CSF_PTR1, 4, 1, 50);
    let got = permissive_errors(&bytes, &[&[0, 0, 1], &[1, 1, 2]]);
    assert!(got[0].is_err());
    // Unsorted siblings are read (linear search) without error.
    let bytes = patched(&csf_base(), CSF_IDX0, 4, 0, 1); // root 1, 1
    let d = dec(&bytes, ReadOptions::permissive()).unwrap();
    let t = sparse(&d);
    assert_eq!(t.iter().unwrap().count(), 4);
    t.to_dense().unwrap();
    t.get(&[1, 1, 2]).unwrap();
}

#[test]
fn permissive_csf_indptr_past_the_end() {
    // Level 1 of a crafted tree: indptr [0, 2, 5] over 2 leaves.
    let (mut s, _) = crafted_csf();
    let mut body = Vec::new();
    let mut refs = Vec::new();
    let arrays: [&[i64]; 5] = [&[0, 2, 2], &[0, 2, 5], &[0, 1], &[0, 1], &[0, 1]];
    for a in arrays {
        refs.push((body.len() as i64, a.len() as i64));
        body.extend(craft::ints(a, 4));
        body.resize(body.len().div_ceil(8) * 8, 0);
    }
    let data = (body.len() as i64, 8);
    body.extend(craft::f32s(&[1., 2.]));
    s.nnz = 2;
    s.index = Index::Csf {
        ptr_ty: I32,
        ptrs: refs[..2].to_vec(),
        idx_ty: I32,
        idxs: refs[2..].to_vec(),
        order: vec![0, 1, 2],
    };
    s.data = data;
    s.body_len = body.len() as i64;
    let bytes = sparse_msg(&s, &body);
    assert!(matches!(
        strict_err(&bytes),
        ErrorKind::InvalidIndptr {
            buffer: BufferId::CsfIndptr(1),
            position: 2,
            value: 5,
            ..
        }
    ));
    let got = permissive_errors(&bytes, &[&[0, 0, 0], &[0, 0, 1], &[0, 1, 0], &[1, 0, 0]]);
    assert_eq!(got[0].as_ref().unwrap(), &Scalar::Float32(1.));
    assert_eq!(got[1].as_ref().unwrap(), &Scalar::Float32(2.));
    assert!(matches!(
        got[2].as_ref().unwrap_err().kind(),
        ErrorKind::InvalidIndptr { .. }
    ));
    assert_eq!(got[3].as_ref().unwrap(), &Scalar::Float32(0.));
}

#[test]
fn permissive_still_checks_structure() {
    // Permissive reading checks sizes: a CSF with too few indptr buffers still fails.
    let (mut s, body) = crafted_csf();
    if let Index::Csf { ptrs, .. } = &mut s.index {
        ptrs.pop();
    }
    let e = dec(&sparse_msg(&s, &body), ReadOptions::permissive())
        .unwrap_err()
        .into_kind();
    assert!(matches!(e, ErrorKind::CountMismatch { .. }), "{e}");
    let (mut s, body) = crafted_csf();
    if let Index::Csf { order, .. } = &mut s.index {
        *order = vec![1, 1, 0];
    }
    let e = dec(&sparse_msg(&s, &body), ReadOptions::permissive())
        .unwrap_err()
        .into_kind();
    assert!(matches!(e, ErrorKind::NotAPermutation(_)), "{e}");
}

#[test]
fn index_arrays_of_mixed_types_are_refused() {
    // CSF levels with different integer types cannot be written as one message.
    let index = CsfIndex::new(
        vec![0, 1],
        vec![IndexArray::from_vec(vec![0i32, 1])],
        vec![
            IndexArray::from_vec(vec![0i32]),
            IndexArray::from_vec(vec![2i64]),
        ],
    )
    .unwrap();
    let e = SparseTensor::try_new(
        ValueType::Float32,
        vec![2, 3],
        Buffer::from_vec(vec![1f32]),
        SparseIndex::Csf(index),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::TypeMismatch { .. }), "{e}");
    // IndexArray::try_new refuses a partial element.
    let e = IndexArray::try_new(IndexType::Int32, Buffer::from_vec(vec![0u8; 6])).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::PartialValue { .. }), "{e}");
}

#[test]
fn rank_zero_coo_canonical_flag_with_two_entries() {
    // A rank-0 COO has one cell: two entries there are duplicates, which the canonical
    // flag forbids.
    let body = craft::f32s(&[1., 2.]);
    let s = craft::Sparse {
        version: 4,
        vt: Vt::Float(1),
        shape: vec![],
        names: vec![],
        nnz: 2,
        index: Index::Coo {
            ty: I32,
            strides: Some(vec![4, 4]),
            buf: (0, 0),
            canonical: true,
        },
        data: (0, 8),
        body_len: 8,
        custom_metadata: false,
    };
    let e = strict_err(&sparse_msg(&s, &body));
    assert!(matches!(e, ErrorKind::NotIncreasing { .. }), "{e}");
    // Without the flag: valid, the duplicates sum.
    let mut s = s;
    if let Index::Coo { canonical, .. } = &mut s.index {
        *canonical = false;
    }
    let d = dec(&sparse_msg(&s, &body), ReadOptions::strict()).unwrap();
    assert_eq!(sparse(&d).get(&[]).unwrap(), Scalar::Float32(3.));
    // Constructors: try_new refuses the duplicate, try_new_with_duplicates accepts it.
    let index =
        || SparseIndex::Coo(CooIndex::new(IndexArray::from_vec(Vec::<i32>::new()), 0).unwrap());
    let values = || Buffer::from_vec(vec![1f32, 2.]);
    let e = SparseTensor::try_new(ValueType::Float32, vec![], values(), index()).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::DuplicateCoordinate { .. }),
        "{e}"
    );
    let t = SparseTensor::try_new_with_duplicates(ValueType::Float32, vec![], values(), index())
        .unwrap();
    assert_eq!(t.get(&[]).unwrap(), Scalar::Float32(3.));
    let SparseIndex::Coo(c) = t.index() else {
        unreachable!()
    };
    assert!(!c.is_canonical());
    let one = SparseTensor::try_new(
        ValueType::Float32,
        vec![],
        Buffer::from_vec(vec![1f32]),
        index(),
    )
    .unwrap();
    let SparseIndex::Coo(c) = one.index() else {
        unreachable!()
    };
    assert!(c.is_canonical());
}
