//! FROSTT reader and writer: round trips of COO tensors of rank 1 to 5, dense tensors
//! written as their non-zeros, and malformed files refused with the line they concern.

use arrow_tensor_ipc::formats::tns;
use arrow_tensor_ipc::{
    ConvertOptions, CooIndex, ErrorKind, IndexArray, IndexType, Limits, Location, Message, Scalar,
    SparseFormat, SparseIndex, SparseTensor, Tensor, ValueType,
};
use proptest::prelude::*;

fn read(bytes: &[u8]) -> arrow_tensor_ipc::Result<SparseTensor> {
    read_frostt(bytes, &tns::TnsReadOptions::default())
}

/// `tns::read`, which gives one sparse message per file.
fn read_frostt(
    bytes: &[u8],
    options: &tns::TnsReadOptions,
) -> arrow_tensor_ipc::Result<SparseTensor> {
    let messages = tns::read(bytes, options)?;
    assert_eq!(messages.len(), 1, "a FROSTT file is one message");
    Ok(messages[0].as_sparse().expect("a sparse message").clone())
}

fn write(m: &Message) -> Vec<u8> {
    let mut out = Vec::new();
    write_frostt(m, &mut out).expect("write");
    out
}

/// `tns::write` of one message.
fn write_frostt(m: &Message, out: impl std::io::Write) -> arrow_tensor_ipc::Result<()> {
    tns::write(
        std::slice::from_ref(m),
        out,
        &tns::TnsWriteOptions::default(),
    )
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
    let opts = tns::TnsReadOptions::default()
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
        .to_format_with(SparseFormat::Csr, &ConvertOptions::default())
        .expect("csr");
    assert_eq!(write(&Message::SparseTensor(csr)), b"1 1 -1\n2 3 2.5\n");
    let csf = SparseTensor::coo([2, 2, 2], vec![0i64, 1, 1, 1, 0, 0], vec![3u8, 4])
        .expect("coo")
        .to_format_with(SparseFormat::Csf, &ConvertOptions::default())
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
        let e = read(text.as_bytes()).unwrap_err();
        assert_line(&e, line, what);
        // The chunked reader finds the same error.
        let o = tns::TnsReadOptions::default().with_chunk_entries(1);
        let e2 = read_chunked(text.as_bytes(), &o).unwrap_err();
        assert_eq!(e2.to_string(), e.to_string(), "{what}");
    }
    let shaped = tns::TnsReadOptions::default().with_shape(vec![2, 2]);
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
    let narrow = tns::TnsReadOptions::default().with_index_type(IndexType::Int8);
    assert_line(
        &read_frostt(b"1 1\n200 1\n", &narrow).unwrap_err(),
        2,
        "index type",
    );
    let int = tns::TnsReadOptions::default().with_value_type(ValueType::UInt8);
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
    let t = read_frostt(
        b"",
        &tns::TnsReadOptions::default().with_shape(vec![3, 4, 5]),
    )
    .expect("empty");
    assert_eq!((t.shape(), t.nnz()), (&[3usize, 4, 5][..], 0));
    let limits = tns::TnsReadOptions::default().with_limits(Limits::default().with_max_nnz(1));
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
    let one = read_frostt(
        text.as_bytes(),
        &tns::TnsReadOptions::default().with_threads(1),
    )
    .expect("1");
    let four = read_frostt(
        text.as_bytes(),
        &tns::TnsReadOptions::default().with_threads(4),
    )
    .expect("4");
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
            &tns::TnsReadOptions::default().with_threads(threads),
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
        let opts = tns::TnsReadOptions::default().with_shape(t.shape().to_vec());
        if t.nnz() == 0 {
            prop_assert!(text.is_empty());
        }
        let back = read_frostt(&text, &opts).unwrap();
        prop_assert!(back.content_eq(&t));
    }

    /// Entry lines of the plain shape `c1 .. cN value\n` (ranks 2 to 4) go through the
    /// reader's faster path, every other line through the line-by-line one. The same file
    /// with a tab for the first space of each line (which only the line-by-line path takes)
    /// must read to the same tensor, or fail with the same error, whatever mixture of plain
    /// and other lines, coordinates out of the shape or the index type, malformed values,
    /// threads and batch sizes.
    #[test]
    fn plain_lines_read_as_the_line_by_line_path_reads_them(
        rank in 1usize..6,
        lines in proptest::collection::vec(
            (0usize..30, proptest::collection::vec(0u64..9, 5), 0usize..60),
            1..120,
        ),
        shaped in any::<bool>(),
        narrow in any::<bool>(),
        integer in any::<bool>(),
        threads in 1usize..4,
        batch in 1usize..7,
    ) {
        let values = [
            "1.5", "-2e3", "0.48058787404949177", "7", "1e400", "-0", "NaN", "abc", "",
        ];
        let ints = ["1", "-2", "7", "0", "99999999999999999999", "x", "+3", "", "-0"];
        let mut body = String::new();
        for (form, key, v) in &lines {
            // Mostly well-formed values, so that a run's coordinates are what decides.
            let good = format!("{v}");
            let v = match (integer, *v) {
                (false, v) if v < values.len() => values[v],
                (true, v) if v < ints.len() => ints[v],
                _ => &good,
            };
            // Coordinates of 3 digits (beyond an 8-bit index type) where a line asks for it.
            let key: Vec<String> = key[..rank]
                .iter()
                .map(|&k| if *form == 5 { format!("{}", k * 40) } else { k.to_string() })
                .collect();
            let key = key.join(" ");
            body.push_str(&match form {
                0..=5 | 12.. => format!("{key} {v}\n"),
                6 => format!("{key}\t{v}\n"),
                7 => format!("{key}  {v} \r\n"),
                8 => format!("0000000{key} {v}\n"),
                9 => "# a comment\n".to_string(),
                10 => "\n".to_string(),
                _ => format!("{key} {v}"),
            });
        }
        // A tab for the first space of each line: the same bytes for the line-by-line path,
        // which the faster one never takes (it wants a space after the first coordinate).
        let tabbed: String = body.split_inclusive('\n').map(|l| l.replacen(' ', "\t", 1)).collect();
        let mut options = tns::TnsReadOptions::default()
            .with_threads(threads)
            .with_value_type(if integer { ValueType::Int32 } else { ValueType::Float64 });
        if shaped {
            options = options.with_shape(vec![6; rank]);
        }
        if narrow {
            options = options.with_index_type(IndexType::Int8);
        }
        let outcome = |bytes: &[u8]| {
            read_frostt(bytes, &options)
                .map(|t| {
                    let width = t.value_type().byte_width();
                    (
                        t.shape().to_vec(),
                        t.index().clone(),
                        t.values_buffer()[..t.nnz() * width].to_vec(),
                    )
                })
                .map_err(|e| e.to_string())
        };
        prop_assert_eq!(outcome(body.as_bytes()), outcome(tabbed.as_bytes()));
        let chunked = |bytes: &[u8]| {
            read_chunked(bytes, &options.clone().with_chunk_entries(batch)).map_err(|e| e.to_string())
        };
        prop_assert_eq!(chunked(body.as_bytes()), chunked(tabbed.as_bytes()));
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
        let mut opts = tns::TnsReadOptions::default().with_limits(Limits::default().with_max_nnz(100).with_max_rank(8));
        if shaped {
            opts = opts.with_shape(vec![5, 5, 5]);
        }
        let _ = read_frostt(&bytes, &opts);
    }
}

/// The entries of a file through `tns::read_chunks`: its extent, the row-major coordinates
/// and the values' bytes.
fn read_chunked(
    bytes: &[u8],
    options: &tns::TnsReadOptions,
) -> arrow_tensor_ipc::Result<(Vec<usize>, Vec<i64>, Vec<u8>)> {
    let mut chunks = tns::read_chunks(bytes, options)?;
    let header = chunks.header().clone();
    assert_eq!(header.shape, options.shape);
    let (mut coords, mut values) = (Vec::new(), Vec::new());
    for batch in chunks.by_ref() {
        let batch = batch?;
        assert!(!batch.is_empty() && batch.len() <= options.chunk_entries);
        assert_eq!(
            (batch.ndim, batch.value_type),
            (header.ndim, header.value_type)
        );
        coords.extend(batch.coords.to_i64_vec());
        values.extend_from_slice(&batch.values);
    }
    Ok((chunks.extent(), coords, values))
}

/// What `tns::read` gives, in the form of [`read_chunked`].
fn read_whole(bytes: &[u8], options: &tns::TnsReadOptions) -> (Vec<usize>, Vec<i64>, Vec<u8>) {
    let t = read_frostt(bytes, options).unwrap();
    let SparseIndex::Coo(c) = t.index() else {
        panic!("FROSTT reads as COO")
    };
    let values = t.values_buffer()[..t.nnz() * t.value_type().byte_width()].to_vec();
    (
        t.shape().to_vec(),
        c.to_row_major().indices().to_i64_vec(),
        values,
    )
}

#[test]
fn chunks_concatenated_equal_read() {
    let files = [
        "# a comment\n1 1 1 1.5\n\n2 3 1 -2\n1 1 1 4\n4 1 2 0.25\n",
        "3 7\n1 -1\n2 5\n",
        "1 2 3 4 5 6 7 8 9 10 0.5\n9 8 7 6 5 4 3 2 1 1 2\n",
    ];
    for file in files {
        for batch in [1, 2, 3, 1000] {
            let o = tns::TnsReadOptions::default()
                .with_index_type(IndexType::Int16)
                .with_chunk_entries(batch);
            let chunked = read_chunked(file.as_bytes(), &o).unwrap();
            assert_eq!(chunked, read_whole(file.as_bytes(), &o), "{file} {batch}");
        }
    }
    // A given shape; an empty file with one.
    let o = tns::TnsReadOptions::default()
        .with_shape(vec![5, 5])
        .with_chunk_entries(1);
    let e = read_chunked(b"3 7\n1 -1\n", &o).unwrap_err(); // rank 1 lines, a rank 2 shape
    assert_line(&e, 1, "rank differs from the shape");
    let shaped = tns::TnsReadOptions::default()
        .with_shape(vec![5, 5])
        .with_chunk_entries(2);
    assert_eq!(
        read_chunked(b"# only\n", &shaped).unwrap(),
        (vec![5, 5], vec![], vec![])
    );
    // The entry limit, as the batches come.
    let limited = tns::TnsReadOptions::default()
        .with_limits(Limits::default().with_max_nnz(2))
        .with_chunk_entries(1);
    let e = read_chunked(b"1 1\n2 2\n3 3\n", &limited).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
}
