//! FROSTT reader and writer: round trips of COO tensors of rank 1 to 5, dense tensors
//! written as their non-zeros, and malformed files refused with the line they concern.

use arrow_tensor_ipc::formats::frostt::{read_frostt, write_frostt, TnsReadOptions};
use arrow_tensor_ipc::{
    ConvertOptions, CooIndex, ErrorKind, IndexArray, IndexType, Limits, Location, Message, Scalar,
    SparseFormat, SparseIndex, SparseTensor, Tensor, ValueType,
};
use proptest::prelude::*;

fn read(bytes: &[u8]) -> arrow_tensor_ipc::Result<SparseTensor> {
    read_frostt(bytes, &TnsReadOptions::default())
}

fn write(m: &Message) -> Vec<u8> {
    let mut out = Vec::new();
    write_frostt(m, &mut out).expect("write");
    out
}

fn assert_line(e: &arrow_tensor_ipc::Error, line: u64, what: &str) {
    match e.kind() {
        ErrorKind::Parse {
            format, location, ..
        } => {
            assert_eq!(*format, "FROSTT", "{what}");
            assert_eq!(*location, Location::Line(line), "{what}: {e}");
        }
        other => panic!("{what}: expected a parse error at line {line}, got {other}"),
    }
}

#[test]
fn reads_comments_blank_lines_and_shape_from_data() {
    let text = b"# header comment\n\n1 2 3 1.5\n  # indented comment\n4 1 1 -2e-3\r\n2\t2\t2\t7";
    let t = read(text).expect("read");
    assert_eq!(t.shape(), &[4, 2, 3]);
    assert_eq!(t.nnz(), 3);
    assert_eq!(t.get(&[3, 0, 0]).expect("get"), Scalar::Float64(-2e-3));
    assert_eq!(t.get(&[1, 1, 1]).expect("get"), Scalar::Float64(7.0));
    let SparseIndex::Coo(c) = t.index() else {
        panic!("not COO")
    };
    assert!(!c.is_canonical());
    // A given shape is kept; integer values read into an integer type.
    let opts = TnsReadOptions::default()
        .with_shape(vec![10, 10])
        .with_value_type(ValueType::Int16)
        .with_index_type(IndexType::Int32);
    let t = read_frostt(b"1 1 -5\n3 10 9\n", &opts).expect("read");
    assert_eq!(t.shape(), &[10, 10]);
    assert_eq!(t.values::<i16>().expect("i16"), &[-5, 9]);
    let SparseIndex::Coo(c) = t.index() else {
        panic!("not COO")
    };
    assert!(c.is_canonical());
    assert_eq!(c.indices().index_type(), IndexType::Int32);
}

#[test]
fn writes_every_layout_and_dense_non_zeros() {
    let t = SparseTensor::coo([2, 3], vec![1i64, 2, 0, 0], vec![2.5f64, -1.0]).expect("coo");
    assert_eq!(
        write(&Message::SparseTensor(t.clone())),
        b"2 3 2.5\n1 1 -1\n"
    );
    let csr = t
        .to_format(SparseFormat::Csr, &ConvertOptions::default())
        .expect("csr");
    assert_eq!(write(&Message::SparseTensor(csr)), b"1 1 -1\n2 3 2.5\n");
    let csf = SparseTensor::coo([2, 2, 2], vec![0i64, 1, 1, 1, 0, 0], vec![3u8, 4])
        .expect("coo")
        .to_format(SparseFormat::Csf, &ConvertOptions::default())
        .expect("csf");
    assert_eq!(write(&Message::SparseTensor(csf)), b"1 2 2 3\n2 1 1 4\n");
    let d = Tensor::from_vec(vec![3], vec![0.0f32, -0.0, 0.5]).expect("dense");
    assert_eq!(write(&Message::Tensor(d)), b"3 0.5\n");
    let scalar = Tensor::from_vec(vec![], vec![1i32]).expect("rank 0");
    let e = write_frostt(&Message::Tensor(scalar), Vec::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidRank { .. }), "{e}");
}

#[test]
fn malformed_files_name_their_line() {
    let cases: Vec<(&str, u64, &str)> = vec![
        ("1 1 1.0\n2 2\n", 2, "too few fields"),
        ("1 1 1.0\n2 2 2 2\n", 2, "too many fields"),
        (
            "# c\n\n1 1 1.0\n1 1 2.0 3\n",
            4,
            "too many fields after comments",
        ),
        ("1 1 x\n", 1, "bad value"),
        ("1 1.5 1\n", 1, "fractional coordinate"),
        ("1 -1 1\n", 1, "negative coordinate"),
        ("1 1 1\n0 1 1\n", 2, "coordinate 0"),
        ("5\n", 1, "no value"),
        ("1 1 1\n1 1 1e\n", 2, "bad exponent"),
    ];
    for (text, line, what) in cases {
        assert_line(&read(text.as_bytes()).unwrap_err(), line, what);
    }
    let shaped = TnsReadOptions::default().with_shape(vec![2, 2]);
    assert_line(
        &read_frostt(b"1 1 1\n\n2 3 1\n", &shaped).unwrap_err(),
        3,
        "beyond the shape",
    );
    assert_line(
        &read_frostt(b"# c\n1 1 1 1\n", &shaped).unwrap_err(),
        2,
        "rank differs from the shape",
    );
    let narrow = TnsReadOptions::default().with_index_type(IndexType::Int8);
    assert_line(
        &read_frostt(b"1 1\n200 1\n", &narrow).unwrap_err(),
        2,
        "index type",
    );
    let int = TnsReadOptions::default().with_value_type(ValueType::UInt8);
    assert_line(
        &read_frostt(b"1 1\n1 256\n", &int).unwrap_err(),
        2,
        "value out of range",
    );
    // No entry: the rank is unknown unless a shape is given.
    let e = read(b"# nothing\n\n").unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Parse {
                location: Location::File,
                ..
            }
        ),
        "{e}"
    );
    let t = read_frostt(b"", &TnsReadOptions::default().with_shape(vec![3, 4, 5])).expect("empty");
    assert_eq!((t.shape(), t.nnz()), (&[3usize, 4, 5][..], 0));
    let limits = TnsReadOptions::default().with_limits(Limits::default().with_max_nnz(1));
    assert!(matches!(
        read_frostt(b"1 1\n2 2\n", &limits).unwrap_err().kind(),
        ErrorKind::LimitExceeded { .. }
    ));
}

#[test]
fn parallel_chunks_agree_and_count_lines() {
    let mut text = String::from("# big\n");
    for k in 0..250_000u64 {
        text.push_str(&format!(
            "{} {} {} {}\n",
            k % 97 + 1,
            k % 13 + 1,
            k + 1,
            k as f64 * 0.5
        ));
    }
    let one = read_frostt(text.as_bytes(), &TnsReadOptions::default().with_threads(1)).expect("1");
    let four = read_frostt(text.as_bytes(), &TnsReadOptions::default().with_threads(4)).expect("4");
    assert!(one.content_eq(&four));
    assert_eq!(one.shape(), &[97, 13, 250_000]);
    let SparseIndex::Coo(c) = one.index() else {
        panic!("not COO")
    };
    assert!(!c.is_canonical());
    let broken = text.replacen(" 249997 124998\n", " 249997\n", 1);
    assert_ne!(broken, text);
    for threads in [1, 4] {
        let e = read_frostt(
            broken.as_bytes(),
            &TnsReadOptions::default().with_threads(threads),
        )
        .unwrap_err();
        assert_line(&e, 249_998, "late broken line");
    }
}

/// A COO tensor of rank 1..=5 with unique coordinates in shuffled order.
fn coo_tensor() -> impl Strategy<Value = SparseTensor> {
    (1usize..=5)
        .prop_flat_map(|rank| proptest::collection::vec(1usize..5, rank))
        .prop_flat_map(|shape| {
            let total: usize = shape.iter().product();
            (
                Just(shape),
                proptest::sample::subsequence((0..total).collect::<Vec<_>>(), 0..=total.min(30))
                    .prop_shuffle(),
                proptest::collection::vec(-1e6f64..1e6, 30),
            )
        })
        .prop_map(|(shape, cells, values)| {
            let mut coords = Vec::new();
            for &k in &cells {
                let mut rest = k;
                let mut c = vec![0i64; shape.len()];
                for d in (0..shape.len()).rev() {
                    c[d] = (rest % shape[d]) as i64;
                    rest /= shape[d];
                }
                coords.extend(c);
            }
            let index = CooIndex::new(IndexArray::from_vec(coords), shape.len()).unwrap();
            SparseTensor::try_new(
                ValueType::Float64,
                shape,
                arrow_buffer::Buffer::from_vec(values[..cells.len()].to_vec()),
                SparseIndex::Coo(index),
            )
            .unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn coo_roundtrip_is_identity(t in coo_tensor()) {
        let text = write(&Message::SparseTensor(t.clone()));
        let opts = TnsReadOptions::default().with_shape(t.shape().to_vec());
        if t.nnz() == 0 {
            prop_assert!(text.is_empty());
        }
        let back = read_frostt(&text, &opts).unwrap();
        prop_assert!(back.content_eq(&t));
    }

    #[test]
    fn mutated_files_never_panic(
        edits in proptest::collection::vec((any::<usize>(), 0u8..3, any::<u8>()), 1..8),
        shaped in any::<bool>(),
    ) {
        let mut bytes = b"# c\n1 2 3 1.5\n4 1 2 -2e3\n\n2 2 2 NaN\n".to_vec();
        for (pos, op, b) in edits {
            let p = pos % (bytes.len() + 1);
            match op {
                0 if p < bytes.len() => bytes[p] = b,
                1 => bytes.insert(p, b),
                _ if p < bytes.len() => { bytes.remove(p); }
                _ => {}
            }
        }
        let mut opts = TnsReadOptions::default().with_limits(Limits::default().with_max_nnz(100).with_max_rank(8));
        if shaped {
            opts = opts.with_shape(vec![5, 5, 5]);
        }
        let _ = read_frostt(&bytes, &opts);
    }
}
