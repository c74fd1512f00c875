//! Property tests: every layout x value type x index type round-trips through encode and
//! strict decode (single messages, `MessageWriter` / `MessageReader` streams and
//! `MessageIter`), with equal contents and equal dense expansions.
//!
//! Sparse tensors are generated from a random dense tensor (random shape, random sparsity,
//! random bytes for the values) whose index the test builds itself.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    decode_message, encode, CompressedAxis, CooIndex, CooOrder, CsfIndex, CsxIndex, IndexArray,
    IndexType, IndexVisitor, Message, MessageIter, MessageReader, MessageWriter, NativeIndex,
    NativeValue, ReadOptions, Scalar, SparseIndex, SparseTensor, Tensor, ValueType, WriteOptions,
};
use proptest::prelude::*;

const CASES: u32 = 64;

// ---------------------------------------------------------------------------------------
// Generated input
// ---------------------------------------------------------------------------------------

/// A random dense tensor: shape, which cells are stored, 8 random bytes per cell (the first
/// `width` bytes are the value), a random order key per cell, names, an axis permutation.
#[derive(Clone, Debug)]
struct Case {
    shape: Vec<usize>,
    stored: Vec<bool>,
    bytes: Vec<u8>,
    keys: Vec<u32>,
    names: Vec<String>,
    perm: Vec<usize>,
    named: bool,
}

fn case(ranks: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Case> {
    ranks
        .prop_flat_map(|rank| prop::collection::vec(0usize..=5, rank))
        .prop_flat_map(|shape| {
            let n: usize = shape.iter().product();
            let rank = shape.len();
            (
                Just(shape),
                // Density: 0 (nothing stored) to 256 (everything stored).
                0u16..=256,
                prop::collection::vec(any::<u8>(), n),
                prop::collection::vec(any::<u8>(), n * 8),
                prop::collection::vec(any::<u32>(), n),
                prop::collection::vec(
                    prop::sample::select(vec!["", "x", "rows", "cols", "zeit", "ü"]),
                    rank,
                ),
                Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
                any::<bool>(),
            )
        })
        .prop_map(
            |(shape, density, coins, bytes, keys, names, perm, named)| Case {
                shape,
                stored: coins.iter().map(|&c| u16::from(c) < density).collect(),
                bytes,
                keys,
                names: names.into_iter().map(String::from).collect(),
                perm,
                named,
            },
        )
}

// ---------------------------------------------------------------------------------------
// Building tensors from a case
// ---------------------------------------------------------------------------------------

fn total(shape: &[usize]) -> usize {
    shape.iter().product()
}

fn unravel(shape: &[usize], mut l: usize) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for (ci, &d) in c.iter_mut().zip(shape).rev() {
        *ci = l % d;
        l /= d;
    }
    c
}

fn row_major_strides(shape: &[usize], width: usize) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut step = width;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = step;
        step *= d;
    }
    strides
}

/// Largest nnz such that every index value and every index array length fits the type
/// (CSF indptr arrays may have nnz + 1 entries).
fn nnz_cap(it: IndexType) -> usize {
    usize::try_from(it.max_value().min(1 << 20)).unwrap() - 1
}

/// The linear positions of the stored cells, in row-major order, capped for the type.
fn stored_cells(c: &Case, it: IndexType) -> Vec<usize> {
    let mut v: Vec<usize> = (0..c.stored.len()).filter(|&l| c.stored[l]).collect();
    v.truncate(nnz_cap(it));
    v
}

fn cell_bytes(c: &Case, l: usize, w: usize) -> &[u8] {
    &c.bytes[l * 8..l * 8 + w]
}

/// The expected dense tensor: stored cells hold their bytes, the others zero.
fn expected_dense(c: &Case, vt: ValueType, cells: &[usize]) -> Tensor {
    let w = vt.byte_width();
    let mut data = vec![0u8; total(&c.shape) * w];
    for &l in cells {
        data[l * w..(l + 1) * w].copy_from_slice(cell_bytes(c, l, w));
    }
    let t = Tensor::try_new(
        vt,
        c.shape.clone(),
        row_major_strides(&c.shape, w),
        Buffer::from_vec(data),
    )
    .unwrap();
    with_names_dense(t, c)
}

fn with_names_dense(t: Tensor, c: &Case) -> Tensor {
    if c.named {
        t.with_dim_names(c.names.clone()).unwrap()
    } else {
        t
    }
}

fn with_names(t: SparseTensor, c: &Case) -> SparseTensor {
    if c.named {
        t.with_dim_names(c.names.clone()).unwrap()
    } else {
        t
    }
}

fn values_buffer(c: &Case, vt: ValueType, order: &[usize]) -> Buffer {
    let w = vt.byte_width();
    let mut v = Vec::with_capacity(order.len() * w);
    for &l in order {
        v.extend_from_slice(cell_bytes(c, l, w));
    }
    Buffer::from_vec(v)
}

fn index_array(it: IndexType, v: &[usize]) -> IndexArray {
    struct Build<'a>(&'a [usize]);
    impl IndexVisitor for Build<'_> {
        type Output = IndexArray;
        fn visit<I: NativeIndex + NativeValue>(self) -> IndexArray {
            IndexArray::from_vec(
                self.0
                    .iter()
                    .map(|&x| I::from_u64(x as u64).expect("fits the index type"))
                    .collect::<Vec<I>>(),
            )
        }
    }
    it.visit(Build(v))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Coo {
    Sorted,
    Shuffled,
    ColumnMajor,
}

fn build_coo(c: &Case, vt: ValueType, it: IndexType, kind: Coo) -> SparseTensor {
    let mut cells = stored_cells(c, it);
    if kind == Coo::Shuffled {
        cells.sort_by_key(|&l| c.keys[l]);
    }
    let ndim = c.shape.len();
    let coords: Vec<Vec<usize>> = cells.iter().map(|&l| unravel(&c.shape, l)).collect();
    let (flat, order) = if kind == Coo::ColumnMajor {
        let flat = (0..ndim)
            .flat_map(|d| coords.iter().map(move |x| x[d]))
            .collect::<Vec<_>>();
        (flat, CooOrder::ColumnMajor)
    } else {
        (coords.concat(), CooOrder::RowMajor)
    };
    let index = CooIndex::with_order(index_array(it, &flat), ndim, order).unwrap();
    let t = SparseTensor::try_new(
        vt,
        c.shape.clone(),
        values_buffer(c, vt, &cells),
        SparseIndex::Coo(index),
    )
    .unwrap();
    with_names(t, c)
}

fn build_csx(c: &Case, vt: ValueType, it: IndexType, axis: CompressedAxis) -> SparseTensor {
    let cells = stored_cells(c, it);
    let outer = axis.dim();
    let inner = 1 - outer;
    let mut entries: Vec<(usize, usize, usize)> = cells
        .iter()
        .map(|&l| {
            let x = unravel(&c.shape, l);
            (x[outer], x[inner], l)
        })
        .collect();
    entries.sort();
    let mut indptr = vec![0usize; c.shape[outer] + 1];
    for &(o, _, _) in &entries {
        indptr[o + 1] += 1;
    }
    for k in 1..indptr.len() {
        indptr[k] += indptr[k - 1];
    }
    let indices: Vec<usize> = entries.iter().map(|e| e.1).collect();
    let order: Vec<usize> = entries.iter().map(|e| e.2).collect();
    let index = CsxIndex::new(axis, index_array(it, &indptr), index_array(it, &indices)).unwrap();
    let t = SparseTensor::try_new(
        vt,
        c.shape.clone(),
        values_buffer(c, vt, &order),
        SparseIndex::Csx(index),
    )
    .unwrap();
    with_names(t, c)
}

/// Builds the CSF tree of the stored cells for an axis order (level k holds dimension
/// `order[k]`), as Arrow lays it out: no root pointer array.
fn build_csf(c: &Case, vt: ValueType, it: IndexType, order: &[usize]) -> SparseTensor {
    let cells = stored_cells(c, it);
    let n = c.shape.len();
    let mut tuples: Vec<(Vec<usize>, usize)> = cells
        .iter()
        .map(|&l| {
            let x = unravel(&c.shape, l);
            (order.iter().map(|&d| x[d]).collect(), l)
        })
        .collect();
    tuples.sort();
    let mut indices: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indptr: Vec<Vec<usize>> = vec![Vec::new(); n - 1];
    for (e, (t, _)) in tuples.iter().enumerate() {
        let first_new = if e == 0 {
            0
        } else {
            (0..n).find(|&k| t[k] != tuples[e - 1].0[k]).unwrap()
        };
        for k in first_new..n {
            if k + 1 < n {
                indptr[k].push(indices[k + 1].len());
            }
            indices[k].push(t[k]);
        }
    }
    for k in 0..n - 1 {
        let end = indices[k + 1].len();
        indptr[k].push(end);
    }
    let leaf_order: Vec<usize> = tuples.iter().map(|t| t.1).collect();
    let index = CsfIndex::new(
        order.to_vec(),
        indptr.iter().map(|a| index_array(it, a)).collect(),
        indices.iter().map(|a| index_array(it, a)).collect(),
    )
    .unwrap();
    let t = SparseTensor::try_new(
        vt,
        c.shape.clone(),
        values_buffer(c, vt, &leaf_order),
        SparseIndex::Csf(index),
    )
    .unwrap();
    with_names(t, c)
}

// ---------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------

fn options_for(it: IndexType) -> WriteOptions {
    // Arrow C++ reads no uint64 index; everything else is written Arrow-compatibly.
    WriteOptions::default().with_arrow_compatible(it.arrow_readable())
}

/// Encode, decode strictly, compare; returns the encoded bytes.
fn check_sparse(t: &SparseTensor, expected: &Tensor, it: IndexType, c: &Case) -> Vec<u8> {
    let original = t.to_dense().expect("to_dense");
    assert!(
        original.content_eq(expected),
        "to_dense of the built tensor"
    );
    if it == IndexType::UInt64 {
        let e = encode(&t.clone().into(), &WriteOptions::default()).unwrap_err();
        assert!(matches!(
            e.kind(),
            arrow_tensor_ipc::ErrorKind::NotArrowCompatible(_)
        ));
    }
    let encoded = encode(&t.clone().into(), &options_for(it)).expect("encode");
    assert_eq!(encoded.len() % 64, 0);
    let bytes = encoded.to_vec();
    let d = decode_message(&bytes::Bytes::from(bytes.clone()), &ReadOptions::strict())
        .expect("strict decode")
        .expect("a message");
    assert_eq!(d.total_length(), bytes.len() as u64);
    let back = d.message.as_sparse().expect("sparse");
    assert!(back.is_validated());
    assert!(
        back.content_eq(t),
        "round trip changed the tensor:\n{back:?}\n{t:?}"
    );
    assert_eq!(back.format(), t.format());
    assert!(back.to_dense().unwrap().content_eq(expected));
    let a: Vec<_> = t.iter().unwrap().collect();
    let b: Vec<_> = back.iter().unwrap().collect();
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((&x.coords, x.position), (&y.coords, y.position));
        assert!(x.value.bits_eq(&y.value), "{x:?} {y:?}");
    }
    // Lookups at a sample of cells (every stored one up to 16, and a spread of others).
    let n = total(&c.shape);
    let step = (n / 16).max(1);
    let stored = (0..n).filter(|&l| c.stored[l]).take(16);
    for l in stored.chain((0..n).step_by(step)) {
        let x = unravel(&c.shape, l);
        let want = expected.get(&x).unwrap();
        let got = back.get(&x).unwrap();
        assert!(got.bits_eq(&want), "get({x:?}) = {got:?}, want {want:?}");
    }
    bytes
}

fn check_dense(t: &Tensor) -> Vec<u8> {
    let bytes = encode(&t.clone().into(), &WriteOptions::default())
        .unwrap()
        .to_vec();
    assert_eq!(bytes.len() % 64, 0);
    let d = decode_message(&bytes::Bytes::from(bytes.clone()), &ReadOptions::strict())
        .unwrap()
        .unwrap();
    let back = d.message.as_tensor().unwrap();
    assert!(back.content_eq(t), "{back:?}\n{t:?}");
    if t.is_column_major() && !t.is_row_major() {
        assert!(back.is_column_major());
    }
    let a: Vec<Scalar> = t.iter().collect();
    let b: Vec<Scalar> = back.iter().collect();
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(&b).all(|(x, y)| x.bits_eq(y)));
    bytes
}

/// Runs `f` for every value type x index type.
fn for_all_types(mut f: impl FnMut(ValueType, IndexType)) {
    for it in IndexType::ALL {
        for vt in ValueType::ALL {
            f(vt, it);
        }
    }
}

/// Reads a stream back with `MessageReader` and `MessageIter` and compares to what was
/// written.
fn check_stream(messages: &[Message], options: &WriteOptions) {
    let mut w = MessageWriter::new(Vec::new(), options);
    let mut starts = Vec::new();
    for m in messages {
        starts.push(w.write(m).unwrap());
    }
    let bytes = w.finish().unwrap();
    let from_reader: Vec<_> = MessageReader::new(&bytes[..], &ReadOptions::strict())
        .collect::<Result<_, _>>()
        .unwrap();
    let from_iter: Vec<_> = MessageIter::new(Buffer::from_vec(bytes), &ReadOptions::strict())
        .collect::<Result<_, _>>()
        .unwrap();
    for got in [from_reader, from_iter] {
        assert_eq!(got.len(), messages.len());
        for ((d, m), start) in got.iter().zip(messages).zip(&starts) {
            assert_eq!(d.offset, *start);
            match (&d.message, m) {
                (Message::Tensor(a), Message::Tensor(b)) => assert!(a.content_eq(b)),
                (Message::SparseTensor(a), Message::SparseTensor(b)) => {
                    assert!(a.content_eq(b))
                }
                _ => panic!("message kind changed"),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn coo_round_trips(c in case(0..=4)) {
        for_all_types(|vt, it| {
            let expected = expected_dense(&c, vt, &stored_cells(&c, it));
            for kind in [Coo::Sorted, Coo::Shuffled, Coo::ColumnMajor] {
                let t = build_coo(&c, vt, it, kind);
                let SparseIndex::Coo(index) = t.index() else { unreachable!() };
                if kind == Coo::Sorted {
                    assert!(index.is_canonical());
                }
                check_sparse(&t, &expected, it, &c);
            }
        });
    }

    #[test]
    fn csr_and_csc_round_trip(c in case(2..=2)) {
        for_all_types(|vt, it| {
            let expected = expected_dense(&c, vt, &stored_cells(&c, it));
            for axis in [CompressedAxis::Row, CompressedAxis::Column] {
                let t = build_csx(&c, vt, it, axis);
                check_sparse(&t, &expected, it, &c);
            }
        });
    }

    #[test]
    fn csf_round_trips(c in case(2..=4)) {
        for_all_types(|vt, it| {
            let expected = expected_dense(&c, vt, &stored_cells(&c, it));
            let identity: Vec<usize> = (0..c.shape.len()).collect();
            for order in [identity, c.perm.clone()] {
                let t = build_csf(&c, vt, it, &order);
                check_sparse(&t, &expected, it, &c);
                // Byte lengths instead of element counts read back the same.
                let options = options_for(it).with_csf_lengths(arrow_tensor_ipc::CsfLengths::Bytes);
                let bytes = encode(&t.clone().into(), &options).unwrap().to_bytes();
                let d = decode_message(&bytes, &ReadOptions::strict()).unwrap().unwrap();
                assert!(d.message.as_sparse().unwrap().content_eq(&t));
            }
        });
    }

    #[test]
    fn dense_round_trips(c in case(0..=4)) {
        for vt in ValueType::ALL {
            let w = vt.byte_width();
            let n = total(&c.shape);
            let data: Vec<u8> = (0..n).flat_map(|l| cell_bytes(&c, l, w).to_vec()).collect();
            // Row-major.
            let row = with_names_dense(
                Tensor::try_new(
                    vt,
                    c.shape.clone(),
                    row_major_strides(&c.shape, w),
                    Buffer::from_vec(data.clone()),
                )
                .unwrap(),
                &c,
            );
            check_dense(&row);
            // Column-major over the same bytes.
            let mut col_strides = vec![0; c.shape.len()];
            let mut step = w;
            for (s, &d) in col_strides.iter_mut().zip(&c.shape) {
                *s = step;
                step *= d;
            }
            let col = with_names_dense(
                Tensor::try_new(vt, c.shape.clone(), col_strides, Buffer::from_vec(data.clone()))
                    .unwrap(),
                &c,
            );
            check_dense(&col);
            // A permuted, padded layout (every stride doubled): written as row-major.
            let mut perm_strides = vec![0; c.shape.len()];
            let mut step = 2 * w;
            for &d in c.perm.iter().rev() {
                perm_strides[d] = step;
                step *= c.shape[d].max(1);
            }
            let padded = Buffer::from_vec(vec![0xA5u8; 2 * n.max(1) * w * 2]);
            let odd = Tensor::try_new(vt, c.shape.clone(), perm_strides, padded).unwrap();
            let bytes = check_dense(&odd);
            let d = decode_message(&bytes::Bytes::from(bytes), &ReadOptions::strict())
                .unwrap()
                .unwrap();
            let back = d.message.as_tensor().unwrap();
            assert!(back.is_row_major() || back.is_column_major());
        }
    }

    #[test]
    fn streams_of_mixed_messages(c in case(2..=3), picks in prop::collection::vec((0usize..11, 0usize..8, 0usize..6), 1..8)) {
        let mut messages = Vec::new();
        let mut lenient = false;
        for (v, i, layout) in picks {
            let vt = ValueType::ALL[v];
            let it = IndexType::ALL[i];
            lenient |= it == IndexType::UInt64;
            let m: Message = match layout {
                0 => build_coo(&c, vt, it, Coo::Sorted).into(),
                1 => build_coo(&c, vt, it, Coo::ColumnMajor).into(),
                2 if c.shape.len() == 2 => build_csx(&c, vt, it, CompressedAxis::Row).into(),
                3 if c.shape.len() == 2 => build_csx(&c, vt, it, CompressedAxis::Column).into(),
                4 => build_csf(&c, vt, it, &c.perm).into(),
                _ => expected_dense(&c, vt, &stored_cells(&c, it)).into(),
            };
            messages.push(m);
        }
        let options = WriteOptions::default().with_arrow_compatible(!lenient);
        check_stream(&messages, &options);
    }
}

// ---------------------------------------------------------------------------------------
// Fixed edge cases, every type
// ---------------------------------------------------------------------------------------

fn fixed_case(shape: &[usize], stored: &[usize]) -> Case {
    let n = total(shape);
    Case {
        shape: shape.to_vec(),
        stored: (0..n).map(|l| stored.contains(&l)).collect(),
        bytes: (0..n * 8).map(|b| (b * 37 % 251) as u8 + 1).collect(),
        keys: (0..n as u32).rev().collect(),
        names: (0..shape.len()).map(|d| format!("d{d}")).collect(),
        perm: (0..shape.len()).rev().collect(),
        named: true,
    }
}

#[test]
fn nnz_zero_and_zero_size_dimensions_every_type() {
    for (shape, stored) in [
        (vec![2usize, 3], vec![]),
        (vec![0, 3], vec![]),
        (vec![3, 0], vec![]),
        (vec![0, 0, 2], vec![]),
        (vec![2, 3, 4], vec![]),
        (vec![1, 1], vec![0]),
        (vec![5], vec![4]),
    ] {
        let c = fixed_case(&shape, &stored);
        for_all_types(|vt, it| {
            let expected = expected_dense(&c, vt, &stored_cells(&c, it));
            for kind in [Coo::Sorted, Coo::Shuffled, Coo::ColumnMajor] {
                check_sparse(&build_coo(&c, vt, it, kind), &expected, it, &c);
            }
            if shape.len() == 2 {
                for axis in [CompressedAxis::Row, CompressedAxis::Column] {
                    check_sparse(&build_csx(&c, vt, it, axis), &expected, it, &c);
                }
            }
            if shape.len() >= 2 {
                let identity: Vec<usize> = (0..shape.len()).collect();
                check_sparse(&build_csf(&c, vt, it, &identity), &expected, it, &c);
                check_sparse(&build_csf(&c, vt, it, &c.perm), &expected, it, &c);
            }
            check_dense(&expected);
        });
    }
}

#[test]
fn rank_zero_every_type() {
    let c = fixed_case(&[], &[0]);
    for vt in ValueType::ALL {
        let t = expected_dense(&c, vt, &[0]);
        assert_eq!(t.len(), 1);
        check_dense(&t);
    }
    for_all_types(|vt, it| {
        // A rank-0 COO holding its one value, and an empty one.
        for stored in [vec![0usize], vec![]] {
            let c = fixed_case(&[], &stored);
            let expected = expected_dense(&c, vt, &stored);
            check_sparse(&build_coo(&c, vt, it, Coo::Sorted), &expected, it, &c);
        }
    });
}

#[test]
fn full_tensors_every_type() {
    // Every cell stored, up to the cap of the narrowest index types.
    let shape = [4usize, 5, 6];
    let c = fixed_case(&shape, &(0..120).collect::<Vec<_>>());
    for_all_types(|vt, it| {
        let expected = expected_dense(&c, vt, &stored_cells(&c, it));
        check_sparse(&build_coo(&c, vt, it, Coo::Shuffled), &expected, it, &c);
        check_sparse(&build_csf(&c, vt, it, &[2, 0, 1]), &expected, it, &c);
    });
}

/// `to_bytes`, `to_vec`, `write_into` and `write_to_uninit` give the same bytes, for a large
/// body (copied with the streaming copy) from sources at every distance round 4 KiB, into
/// destinations at several offsets; small messages and sparse ones with several large
/// buffers too.
#[test]
fn every_flattening_gives_the_same_bytes() {
    let n = (5 << 20) / 8 + 3; // above the 4 MiB threshold
    let backing: Vec<f64> = (0..n + 600).map(|i| i as f64 * 0.5).collect();
    let whole = Buffer::from_vec(backing);
    for shift in [0usize, 1, 8, 63, 504] {
        // A buffer starting `shift` values (8 bytes each) into the allocation: distances
        // all round 4 KiB.
        let data = whole.slice_with_length(shift * 8, n * 8);
        let t = Tensor::try_new(ValueType::Float64, vec![n], vec![8], data.clone()).unwrap();
        let encoded = encode(&t.into(), &WriteOptions::default()).unwrap();
        let bytes = encoded.to_bytes();
        let vec = encoded.to_vec();
        assert!(
            bytes[..] == vec[..],
            "to_bytes differs from to_vec, shift {shift}"
        );
        for prefix in [0usize, 3, 64, 2048] {
            let mut out = vec![7u8; prefix];
            encoded.write_into(&mut out);
            assert!(
                out[prefix..] == vec[..],
                "write_into, shift {shift}, prefix {prefix}"
            );
            let mut room = vec![std::mem::MaybeUninit::new(9u8); prefix + encoded.len()];
            let written = encoded.write_to_uninit(&mut room[prefix..]).unwrap();
            assert!(
                written[..] == vec[..],
                "write_to_uninit, shift {shift}, prefix {prefix}"
            );
            // `write_to` into a vector (recognised, appended as `write_into` appends), into
            // a reference to one, and into writers that are not vectors.
            let mut out = vec![7u8; prefix];
            encoded.write_to(&mut out).unwrap();
            assert!(out[prefix..] == vec[..], "write_to Vec, prefix {prefix}");
            let mut out = vec![7u8; prefix];
            encoded.write_to(&mut &mut out).unwrap();
            assert!(
                out[prefix..] == vec[..],
                "write_to &mut Vec, prefix {prefix}"
            );
            let mut cursor = std::io::Cursor::new(vec![7u8; prefix]);
            cursor.set_position(prefix as u64);
            encoded.write_to(&mut cursor).unwrap();
            assert!(cursor.get_ref()[prefix..] == vec[..], "write_to Cursor");
            let mut dynamic = vec![7u8; prefix];
            encoded
                .write_to(&mut dynamic as &mut dyn std::io::Write)
                .unwrap();
            assert!(dynamic[prefix..] == vec[..], "write_to dyn Write");
        }
        let back = decode_message(&bytes, &ReadOptions::strict())
            .unwrap()
            .unwrap();
        let decoded = back.message.as_tensor().unwrap().data().clone();
        assert!(
            decoded.len() >= data.len() && decoded.as_slice()[..data.len()] == data.as_slice()[..],
            "decoded data differs, shift {shift}: {} vs {}",
            decoded.len(),
            data.len()
        );
    }
    // Too little room: a typed error, nothing written past it.
    let small = Tensor::from_vec(vec![3], vec![1.0f32, 2.0, 3.0]).unwrap();
    let encoded = encode(&small.clone().into(), &WriteOptions::default()).unwrap();
    let mut room = vec![std::mem::MaybeUninit::new(0u8); encoded.len() - 1];
    let err = encoded.write_to_uninit(&mut room).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            arrow_tensor_ipc::ErrorKind::OutputTooSmall { operation: "EncodedMessage::write_to_uninit", needed, available }
                if *needed == encoded.len() as u64 && *available == encoded.len() as u64 - 1
        ),
        "{err}"
    );
    // Small: the plain copy.
    let small = Tensor::from_vec(vec![3], vec![1.0f32, 2.0, 3.0]).unwrap();
    let encoded = encode(&small.into(), &WriteOptions::default()).unwrap();
    assert!(encoded.to_bytes()[..] == encoded.to_vec()[..], "small");
    // Sparse with two large buffers (coordinates and values): same bytes.
    let nnz = (5 << 20) / 8;
    let coords: Vec<i64> = (0..nnz as i64).collect();
    let values: Vec<f64> = (0..nnz).map(|i| i as f64 + 1.0).collect();
    let s = SparseTensor::coo([nnz], coords, values).unwrap();
    let message: Message = s.into();
    let encoded = encode(&message, &WriteOptions::default()).unwrap();
    assert!(encoded.to_bytes()[..] == encoded.to_vec()[..], "sparse");
    // A `MessageWriter` over a vector, over a reference to one and over a cursor writes the
    // same stream, at the same offsets.
    let small: Message = Tensor::from_vec(vec![3], vec![1.0f32, 2.0, 3.0])
        .unwrap()
        .into();
    let messages = [small.clone(), message, small];
    let mut owned = MessageWriter::new(Vec::new(), &WriteOptions::default());
    let mut target = vec![5u8; 8];
    let mut borrowed = MessageWriter::new(&mut target, &WriteOptions::default());
    let mut cursor = MessageWriter::new(std::io::Cursor::new(Vec::new()), &WriteOptions::default());
    for m in &messages {
        let at = owned.write(m).unwrap();
        assert_eq!(borrowed.write(m).unwrap(), at);
        assert_eq!(cursor.write(m).unwrap(), at);
    }
    let owned = owned.finish().unwrap();
    borrowed.finish().unwrap();
    let cursor = cursor.finish().unwrap().into_inner();
    assert!(
        owned == cursor,
        "MessageWriter over a Vec and over a Cursor"
    );
    assert!(target[8..] == owned[..], "MessageWriter over a &mut Vec");
    assert_eq!(target[..8], [5u8; 8]);
}
