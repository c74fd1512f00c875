//! Layout conversions (`arrow_tensor_ipc::convert`): properties over random tensors of every
//! value type, and the cases Arrow C++ gets wrong.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    column_major_strides, row_major_strides, CooIndex, ErrorKind, IndexArray, IndexType, Scalar,
    SparseFormat, SparseIndex, SparseTensor, Tensor, ValueType,
};
use arrow_tensor_ipc::{convert, ConvertOptions, CsfAxisOrder};
use half::f16;
use proptest::prelude::*;
use proptest::sample::select;

// ---------------------------------------------------------------------------------------
// Building inputs

/// Little-endian bytes of a scalar.
fn scalar_bytes(s: Scalar) -> Vec<u8> {
    match s {
        Scalar::Int8(v) => v.to_le_bytes().to_vec(),
        Scalar::Int16(v) => v.to_le_bytes().to_vec(),
        Scalar::Int32(v) => v.to_le_bytes().to_vec(),
        Scalar::Int64(v) => v.to_le_bytes().to_vec(),
        Scalar::UInt8(v) => v.to_le_bytes().to_vec(),
        Scalar::UInt16(v) => v.to_le_bytes().to_vec(),
        Scalar::UInt32(v) => v.to_le_bytes().to_vec(),
        Scalar::UInt64(v) => v.to_le_bytes().to_vec(),
        Scalar::Float16(v) => v.to_le_bytes().to_vec(),
        Scalar::Float32(v) => v.to_le_bytes().to_vec(),
        Scalar::Float64(v) => v.to_le_bytes().to_vec(),
    }
}

/// A value of type `vt` from a code: 0 zero, 1 negative zero, 2 NaN, 3 +inf, 4 -inf,
/// 5 a NaN with a payload, anything else `x / 2` (integers: `x`, wrapping).
fn make_value(vt: ValueType, code: u8, x: i32) -> Scalar {
    let f = match code {
        0 => 0.0,
        1 => -0.0,
        2 => f64::NAN,
        3 => f64::INFINITY,
        4 => f64::NEG_INFINITY,
        5 => f64::from_bits(0x7ff8_0000_0000_1234),
        _ => f64::from(x) / 2.0,
    };
    let i = if code <= 1 { 0 } else { x as i64 };
    match vt {
        ValueType::Int8 => Scalar::Int8(i as i8),
        ValueType::Int16 => Scalar::Int16(i as i16),
        ValueType::Int32 => Scalar::Int32(i as i32),
        ValueType::Int64 => Scalar::Int64(i.wrapping_mul(0x1_0000_0001)),
        ValueType::UInt8 => Scalar::UInt8(i as u8),
        ValueType::UInt16 => Scalar::UInt16(i as u16),
        ValueType::UInt32 => Scalar::UInt32(i as u32),
        ValueType::UInt64 => Scalar::UInt64((i as u64).wrapping_mul(0x1_0000_0001)),
        ValueType::Float16 => Scalar::Float16(if code == 5 {
            f16::from_bits(0x7e12)
        } else {
            f16::from_f64(f)
        }),
        ValueType::Float32 => Scalar::Float32(if code == 5 {
            f32::from_bits(0x7fc0_1234)
        } else {
            f as f32
        }),
        ValueType::Float64 => Scalar::Float64(f),
    }
}

/// How a dense tensor's elements are laid out in its buffer.
#[derive(Clone, Debug)]
enum Layout {
    RowMajor,
    ColumnMajor,
    /// Dimensions nested in the order `perm` (last innermost), with `pad[d]` unused slots
    /// after each run of dimension `d`.
    Strided {
        perm: Vec<usize>,
        pad: Vec<usize>,
    },
    /// Row-major, one byte into the buffer (misaligned data).
    Misaligned,
}

/// A dense tensor with `values` (row-major logical order) laid out as `layout`; unused
/// slots hold non-zero garbage.
fn make_tensor(vt: ValueType, shape: &[usize], values: &[Scalar], layout: &Layout) -> Tensor {
    let w = vt.byte_width();
    let strides = match layout {
        Layout::RowMajor | Layout::Misaligned => row_major_strides(shape, w),
        Layout::ColumnMajor => column_major_strides(shape, w),
        Layout::Strided { perm, pad } => {
            let mut strides = vec![0; shape.len()];
            let mut step = w;
            for &d in perm.iter().rev() {
                strides[d] = step;
                step *= shape[d] + pad[d];
            }
            strides
        }
    };
    let extent = if shape.contains(&0) {
        0
    } else {
        shape
            .iter()
            .zip(&strides)
            .map(|(&d, &s)| (d - 1) * s)
            .sum::<usize>()
            + w
    };
    let lead = usize::from(matches!(layout, Layout::Misaligned));
    let mut bytes = vec![0x5au8; lead + extent];
    let rm = row_major_strides(shape, 1);
    for (k, v) in values.iter().enumerate() {
        let off: usize = shape
            .iter()
            .zip(&rm)
            .zip(&strides)
            .map(|((&d, &r), &s)| (k / r) % d * s)
            .sum();
        bytes[lead + off..lead + off + w].copy_from_slice(&scalar_bytes(*v));
    }
    let buffer = Buffer::from_vec(bytes).slice(lead);
    Tensor::try_new(vt, shape, strides, buffer).unwrap()
}

// ---------------------------------------------------------------------------------------
// Checking results

fn is_zero(s: &Scalar) -> bool {
    match *s {
        Scalar::Float16(v) => v == f16::ZERO,
        Scalar::Float32(v) => v == 0.0,
        Scalar::Float64(v) => v == 0.0,
        Scalar::Int64(v) => v == 0,
        Scalar::UInt64(v) => v == 0,
        s => s.as_f64() == 0.0,
    }
}

/// `-0.0` becomes `+0.0`: what a dropped zero expands back to.
fn normalize(s: Scalar) -> Scalar {
    if is_zero(&s) {
        Scalar::zero(s.value_type())
    } else {
        s
    }
}

fn is_nan(s: &Scalar) -> bool {
    s.as_f64().is_nan()
}

/// Bitwise equality, except that any two NaNs are equal when `any_nan` (the payload of a
/// NaN produced by arithmetic, such as summing duplicates, is unspecified).
fn assert_eq_mode(found: &[Scalar], expected: &[Scalar], any_nan: bool, what: &str) {
    assert_eq!(found.len(), expected.len(), "{what}: element count");
    for (k, (a, b)) in found.iter().zip(expected).enumerate() {
        let same = a.bits_eq(b) || (any_nan && is_nan(a) && is_nan(b));
        assert!(same, "{what}: element {k}: {a:?} != {b:?}");
    }
}

fn assert_bits_eq(found: &[Scalar], expected: &[Scalar], what: &str) {
    assert_eq_mode(found, expected, false, what);
}

/// Both expansions (the fast one and the model's) give `expected` bitwise.
fn check_dense(s: &SparseTensor, expected: &[Scalar], what: &str) {
    check_dense_mode(s, expected, false, what);
}

fn check_dense_mode(s: &SparseTensor, expected: &[Scalar], any_nan: bool, what: &str) {
    let fast = s.to_dense().unwrap();
    assert!(fast.is_row_major());
    assert_eq!(fast.shape(), s.shape());
    assert_eq!(fast.dim_names(), s.dim_names());
    assert_eq_mode(&fast.iter().collect::<Vec<_>>(), expected, any_nan, what);
    let model = s.to_dense().unwrap();
    assert_eq_mode(&model.iter().collect::<Vec<_>>(), expected, any_nan, what);
}

/// Whether the stored coordinates strictly increase in row-major order.
fn strictly_row_major(s: &SparseTensor) -> bool {
    let coords: Vec<Vec<usize>> = s.iter().unwrap().map(|nz| nz.coords.to_vec()).collect();
    coords.windows(2).all(|w| w[0] < w[1])
}

/// The result is strictly valid (rebuilt through the checking constructor), in the
/// requested layout, with a truthful canonical flag.
fn check_valid(s: &SparseTensor, format: SparseFormat, what: &str) {
    assert!(s.is_validated(), "{what}: not validated");
    assert_eq!(s.format(), format, "{what}: layout");
    let rebuilt = SparseTensor::try_new(
        s.value_type(),
        s.shape(),
        s.values_buffer().clone(),
        s.index().clone(),
    );
    assert!(rebuilt.is_ok(), "{what}: not strictly valid: {rebuilt:?}");
    if let SparseIndex::Coo(c) = s.index() {
        // Every COO the converters produce is canonical, and truly so.
        assert!(c.is_canonical(), "{what}: COO result not flagged canonical");
        assert!(
            strictly_row_major(s),
            "{what}: COO flagged canonical but not sorted"
        );
    }
}

/// The narrowest Arrow-readable type for a result, computed from its arrays.
fn narrowest(s: &SparseTensor) -> IndexType {
    let max_dim = s.shape().iter().copied().max().unwrap_or(0) as u64;
    let nnz = s.nnz() as u64;
    let bound = match s.index() {
        SparseIndex::Coo(_) => max_dim.max(nnz).max(s.ndim() as u64),
        SparseIndex::Csx(c) => max_dim.max(nnz).max(c.indptr().len() as u64),
        SparseIndex::Csf(c) => {
            let longest = c.indptr().iter().map(|a| a.len()).max().unwrap_or(0) as u64;
            max_dim.max(nnz).max(longest)
        }
    };
    IndexType::narrowest_for(bound)
}

fn index_types(s: &SparseTensor) -> Vec<IndexType> {
    match s.index() {
        SparseIndex::Coo(c) => vec![c.indices().index_type()],
        SparseIndex::Csx(c) => vec![c.indptr().index_type(), c.indices().index_type()],
        SparseIndex::Csf(c) => c
            .indptr()
            .iter()
            .chain(c.indices())
            .map(|a| a.index_type())
            .collect(),
    }
}

/// The layouts a rank takes.
fn formats_for(ndim: usize) -> Vec<SparseFormat> {
    let mut f = vec![SparseFormat::Coo];
    if ndim == 2 {
        f.extend([SparseFormat::Csr, SparseFormat::Csc]);
    }
    if ndim >= 2 {
        f.push(SparseFormat::Csf);
    }
    f
}

/// Converts, or checks that the failure is a requested index type too narrow for the
/// result (`None` then).
fn convert_checked(
    result: arrow_tensor_ipc::Result<SparseTensor>,
    opts: &ConvertOptions,
    shape: &[usize],
    nnz: usize,
    format: SparseFormat,
    what: &str,
) -> Option<SparseTensor> {
    match result {
        Ok(s) => {
            let types = index_types(&s);
            match opts.index_type {
                Some(t) => assert!(types.iter().all(|&x| x == t), "{what}: index type"),
                None => {
                    let n = narrowest(&s);
                    assert!(
                        types.iter().all(|&x| x == n),
                        "{what}: {types:?} not narrowest {n}"
                    );
                }
            }
            Some(s)
        }
        Err(e) => {
            let t = opts.index_type.unwrap_or_else(|| panic!("{what}: {e}"));
            assert!(
                matches!(e.kind(), ErrorKind::IndexTypeTooNarrow { .. }),
                "{what}: {e}"
            );
            let max_coord = shape.iter().max().map_or(0, |&d| d.saturating_sub(1)) as u64;
            let counts = if format == SparseFormat::Coo {
                0
            } else {
                nnz as u64
            };
            assert!(
                t.max_value() < max_coord.max(counts),
                "{what}: {t} was wide enough"
            );
            None
        }
    }
}

// ---------------------------------------------------------------------------------------
// Strategies

fn value_code() -> impl Strategy<Value = (u8, i32)> {
    (
        prop_oneof![8 => Just(0u8), 2 => Just(1u8), 1 => 2u8..6, 6 => 6u8..8],
        -300i32..300,
    )
}

fn layout(ndim: usize) -> impl Strategy<Value = Layout> {
    let perm = Just((0..ndim).collect::<Vec<usize>>()).prop_shuffle();
    prop_oneof![
        Just(Layout::RowMajor),
        Just(Layout::ColumnMajor),
        Just(Layout::Misaligned),
        (perm, prop::collection::vec(0usize..3, ndim))
            .prop_map(|(perm, pad)| Layout::Strided { perm, pad }),
    ]
}

fn index_option() -> impl Strategy<Value = Option<IndexType>> {
    prop_oneof![3 => Just(None), 2 => select(IndexType::ALL.to_vec()).prop_map(Some)]
}

fn axis_order(ndim: usize) -> impl Strategy<Value = CsfAxisOrder> {
    let perm = Just((0..ndim).collect::<Vec<usize>>()).prop_shuffle();
    prop_oneof![
        Just(CsfAxisOrder::Identity),
        Just(CsfAxisOrder::AscendingSize),
        perm.prop_map(CsfAxisOrder::Explicit),
    ]
}

fn options(ndim: usize) -> impl Strategy<Value = ConvertOptions> {
    (index_option(), axis_order(ndim)).prop_map(|(index_type, axis_order)| {
        let mut o = ConvertOptions::default().with_axis_order(axis_order);
        o.index_type = index_type;
        o
    })
}

#[derive(Clone, Debug)]
struct DenseCase {
    tensor: Tensor,
    /// Row-major logical values.
    values: Vec<Scalar>,
    opts: ConvertOptions,
    opts2: ConvertOptions,
}

fn dense_case(max_rank: usize, max_dim: usize) -> impl Strategy<Value = DenseCase> {
    dense_case_of(prop::collection::vec(0usize..=max_dim, 1..=max_rank))
}

fn dense_case_of(shapes: impl Strategy<Value = Vec<usize>>) -> impl Strategy<Value = DenseCase> {
    (select(ValueType::ALL.to_vec()), shapes)
        .prop_flat_map(|(vt, shape)| {
            let n: usize = shape.iter().product();
            let ndim = shape.len();
            (
                Just(vt),
                Just(shape),
                prop::collection::vec(value_code(), n),
                layout(ndim),
                options(ndim),
                options(ndim),
                any::<bool>(),
            )
        })
        .prop_map(|(vt, shape, codes, layout, opts, opts2, named)| {
            let values: Vec<Scalar> = codes.iter().map(|&(c, x)| make_value(vt, c, x)).collect();
            let mut tensor = make_tensor(vt, &shape, &values, &layout);
            if named {
                let names: Vec<String> = (0..shape.len()).map(|d| format!("d{d}")).collect();
                tensor = tensor.with_dim_names(names).unwrap();
            }
            DenseCase {
                tensor,
                values,
                opts,
                opts2,
            }
        })
}

// ---------------------------------------------------------------------------------------
// Properties

/// Every path dense -> X -> Y -> dense gives the original back.
fn check_dense_case(case: &DenseCase) {
    let t = &case.tensor;
    let expected: Vec<Scalar> = case.values.iter().copied().map(normalize).collect();
    // The tensor reads back as built (guards the test's own layout code).
    assert_bits_eq(&t.iter().collect::<Vec<_>>(), &case.values, "input");
    let nonzeros = case.values.iter().filter(|v| !is_zero(v)).count();
    for f in formats_for(t.ndim()) {
        let what = format!("dense -> {}", f.name());
        let Some(s) = convert_checked(
            convert::to_sparse(t, f, &case.opts),
            &case.opts,
            t.shape(),
            nonzeros,
            f,
            &what,
        ) else {
            continue;
        };
        check_valid(&s, f, &what);
        assert_eq!(s.nnz(), nonzeros, "{what}: nnz");
        assert_eq!(s.dim_names(), t.dim_names(), "{what}: names");
        assert!(
            s.iter().unwrap().all(|nz| !is_zero(&nz.value)),
            "{what}: stored a zero"
        );
        if let (SparseIndex::Csf(c), CsfAxisOrder::Explicit(order)) =
            (s.index(), &case.opts.axis_order)
        {
            assert_eq!(c.axis_order(), order.as_slice());
        }
        check_dense(&s, &expected, &what);
        for g in formats_for(t.ndim()) {
            let what = format!("dense -> {} -> {}", f.name(), g.name());
            let Some(s2) = convert_checked(
                convert::convert(&s, g, &case.opts2),
                &case.opts2,
                t.shape(),
                nonzeros,
                g,
                &what,
            ) else {
                continue;
            };
            check_valid(&s2, g, &what);
            assert_eq!(s2.nnz(), nonzeros, "{what}: nnz");
            check_dense(&s2, &expected, &what);
        }
    }
}

#[derive(Clone, Debug)]
struct CooCase {
    tensor: SparseTensor,
    opts: ConvertOptions,
}

/// COO tensors with unsorted coordinates and duplicates (values of any kind, zeros and
/// negative zeros included), in a row- or column-major coordinate matrix.
fn coo_case() -> impl Strategy<Value = CooCase> {
    (
        select(ValueType::ALL.to_vec()),
        prop::collection::vec(1usize..=5, 0..=4),
        0usize..40,
    )
        .prop_flat_map(|(vt, shape, nnz)| {
            let ndim = shape.len();
            let coord = prop::collection::vec(shape.iter().map(|&d| 0..d).collect::<Vec<_>>(), nnz);
            let nnz = if ndim == 0 { nnz.min(3) } else { nnz };
            (
                Just(vt),
                Just(shape),
                coord,
                prop::collection::vec(value_code(), nnz),
                any::<bool>(),
                options(ndim),
                any::<bool>(),
            )
        })
        .prop_map(
            |(vt, shape, coords, codes, column_major, opts, drop_zeros)| {
                let ndim = shape.len();
                let nnz = codes.len();
                let coords = &coords[..if ndim == 0 { 0 } else { nnz }];
                let flat: Vec<i64> = if column_major {
                    (0..ndim)
                        .flat_map(|d| coords.iter().map(move |c| c[d] as i64))
                        .collect()
                } else {
                    coords.iter().flatten().map(|&c| c as i64).collect()
                };
                let order = if column_major {
                    arrow_tensor_ipc::CooOrder::ColumnMajor
                } else {
                    arrow_tensor_ipc::CooOrder::RowMajor
                };
                let index = CooIndex::with_order(IndexArray::from_vec(flat), ndim, order).unwrap();
                let mut values = Vec::new();
                for &(c, x) in &codes {
                    values.extend(scalar_bytes(make_value(vt, c, x)));
                }
                let tensor = SparseTensor::try_new_with_duplicates(
                    vt,
                    shape,
                    Buffer::from_vec(values),
                    SparseIndex::Coo(index),
                )
                .unwrap();
                CooCase {
                    tensor,
                    opts: opts.with_drop_zeros(drop_zeros),
                }
            },
        )
}

fn check_coo_case(case: &CooCase) {
    let s = &case.tensor;
    // The model's expansion sums duplicates in storage order: the reference.
    let reference = s.to_dense().unwrap();
    let expected: Vec<Scalar> = reference.iter().collect();
    // Summed duplicates may be NaN, whose payload arithmetic leaves unspecified.
    check_dense_mode(s, &expected, true, "COO with duplicates -> dense");

    let canonical = convert::canonicalize(s).unwrap();
    check_valid(&canonical, SparseFormat::Coo, "canonicalize");
    check_dense_mode(&canonical, &expected, true, "canonicalize");
    let distinct = {
        let mut c: Vec<Vec<usize>> = s.iter().unwrap().map(|nz| nz.coords.to_vec()).collect();
        c.sort();
        c.dedup();
        c.len()
    };
    assert_eq!(
        canonical.nnz(),
        distinct,
        "canonicalize: one entry per coordinate"
    );
    if let (SparseIndex::Coo(a), SparseIndex::Coo(b)) = (s.index(), canonical.index()) {
        let max_coord = s.shape().iter().max().map_or(0, |&d| d - 1) as u64;
        if a.indices().index_type().max_value() >= max_coord {
            assert_eq!(a.indices().index_type(), b.indices().index_type());
        }
    }

    // drop_zeros: the expansion with zeros normalised, and no zero stored.
    let expected_dropped: Vec<Scalar> = if case.opts.drop_zeros {
        expected.iter().copied().map(normalize).collect()
    } else {
        expected.clone()
    };
    for f in formats_for(s.ndim()) {
        let what = format!("COO with duplicates -> {} ({:?})", f.name(), case.opts);
        let Some(r) = convert_checked(
            convert::convert(s, f, &case.opts),
            &case.opts,
            s.shape(),
            distinct,
            f,
            &what,
        ) else {
            continue;
        };
        check_valid(&r, f, &what);
        check_dense_mode(&r, &expected_dropped, true, &what);
        if case.opts.drop_zeros {
            assert!(r.iter().unwrap().all(|nz| !is_zero(&nz.value)), "{what}");
        } else {
            assert_eq!(r.nnz(), distinct, "{what}: nnz");
        }
    }
}

proptest! {
    // 256 cases unless PROPTEST_CASES says otherwise.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    #[test]
    fn dense_round_trips_any_rank(case in dense_case(4, 4)) {
        check_dense_case(&case);
    }

    #[test]
    fn dense_round_trips_matrices(case in dense_case(2, 12)) {
        check_dense_case(&case);
    }

    #[test]
    fn dense_round_trips_long_rows(
        // Rows of 64 elements and more: the scan's full 64-element chunks.
        case in dense_case_of((1usize..=3, 60usize..=200).prop_map(|(r, c)| vec![r, c]))
    ) {
        check_dense_case(&case);
    }

    #[test]
    fn coo_with_duplicates_converts_and_canonicalizes(case in coo_case()) {
        check_coo_case(&case);
    }
}

// ---------------------------------------------------------------------------------------
// What Arrow C++ gets wrong, and other fixed cases

#[test]
fn column_major_non_square_to_coo_is_in_range_and_sorted() {
    // 3 x 5, column-major; non-zero (r, c) holds 10 r + c + 1 except a few zeros.
    let shape = [3usize, 5];
    let values: Vec<Scalar> = (0..15)
        .map(|k| {
            let (r, c) = (k / 5, k % 5);
            Scalar::Float64(if (r + c) % 3 == 0 {
                0.0
            } else {
                (10 * r + c + 1) as f64
            })
        })
        .collect();
    let t = make_tensor(ValueType::Float64, &shape, &values, &Layout::ColumnMajor);
    assert!(t.is_column_major() && !t.is_row_major());
    let coo = convert::to_sparse(&t, SparseFormat::Coo, &ConvertOptions::default()).unwrap();
    check_valid(&coo, SparseFormat::Coo, "column-major dense -> COO");
    let stored: Vec<(Vec<usize>, Scalar)> = coo
        .iter()
        .unwrap()
        .map(|nz| (nz.coords.to_vec(), nz.value))
        .collect();
    let expected: Vec<(Vec<usize>, Scalar)> = values
        .iter()
        .enumerate()
        .filter(|(_, v)| !is_zero(v))
        .map(|(k, v)| (vec![k / 5, k % 5], *v))
        .collect();
    assert_eq!(stored, expected);
    assert!(stored.iter().all(|(c, _)| c[0] < 3 && c[1] < 5));
    // Same for a 4-d column-major tensor and every other layout.
    let shape = [2usize, 3, 1, 4];
    let values: Vec<Scalar> = (0..24)
        .map(|k| Scalar::Int32(if k % 4 == 1 { 0 } else { k - 7 }))
        .collect();
    let t = make_tensor(ValueType::Int32, &shape, &values, &Layout::ColumnMajor);
    for f in formats_for(4) {
        let s = convert::to_sparse(&t, f, &ConvertOptions::default()).unwrap();
        check_valid(&s, f, "column-major 4-d");
        check_dense(&s, &values, "column-major 4-d");
    }
}

#[test]
fn negative_zero_is_a_zero_and_loses_no_non_zero() {
    // A matrix full of -0.0 with a few true non-zeros, NaN and infinities among them.
    let mut values = vec![Scalar::Float64(-0.0); 6 * 7];
    let specials = [
        (3, 1.5),
        (8, f64::NAN),
        (20, f64::INFINITY),
        (21, -2.0),
        (41, f64::NEG_INFINITY),
    ];
    for &(k, v) in &specials {
        values[k] = Scalar::Float64(v);
    }
    values[0] = Scalar::Float64(0.0);
    let expected: Vec<Scalar> = values.iter().copied().map(normalize).collect();
    for layout in [Layout::RowMajor, Layout::ColumnMajor] {
        let t = make_tensor(ValueType::Float64, &[6, 7], &values, &layout);
        for f in formats_for(2) {
            let s = convert::to_sparse(&t, f, &ConvertOptions::default()).unwrap();
            check_valid(&s, f, "-0.0");
            assert_eq!(s.nnz(), specials.len(), "{}: every non-zero kept", f.name());
            let stored: Vec<Scalar> = s.iter().unwrap().map(|nz| nz.value).collect();
            assert!(stored.iter().all(|v| !is_zero(v)));
            check_dense(&s, &expected, "-0.0");
        }
    }
    // Half and single precision too.
    for vt in [ValueType::Float16, ValueType::Float32] {
        let values: Vec<Scalar> = (0..12)
            .map(|k| make_value(vt, [1, 6, 1, 2, 0, 1][k % 6], 3))
            .collect();
        let t = make_tensor(vt, &[3, 4], &values, &Layout::RowMajor);
        let s = convert::to_sparse(&t, SparseFormat::Csr, &ConvertOptions::default()).unwrap();
        assert_eq!(s.nnz(), 4);
        check_dense(
            &s,
            &values.iter().copied().map(normalize).collect::<Vec<_>>(),
            "f16/f32",
        );
    }
}

#[test]
fn rank_zero_and_rank_one() {
    for (v, nnz) in [(5.0f32, 1), (0.0, 0), (-0.0, 0), (f32::NAN, 1)] {
        let t = Tensor::from_vec(vec![], vec![v]).unwrap();
        let coo = convert::to_sparse(&t, SparseFormat::Coo, &ConvertOptions::default()).unwrap();
        assert_eq!(coo.nnz(), nnz);
        check_valid(&coo, SparseFormat::Coo, "rank 0");
        check_dense(&coo, &[normalize(Scalar::Float32(v))], "rank 0");
        for f in [SparseFormat::Csr, SparseFormat::Csc, SparseFormat::Csf] {
            let e = convert::to_sparse(&t, f, &ConvertOptions::default()).unwrap_err();
            assert!(matches!(e.kind(), ErrorKind::InvalidRank { .. }), "{e}");
        }
    }
    let t = Tensor::from_vec(vec![5], vec![0u8, 7, 0, 0, 9]).unwrap();
    let coo = t
        .to_sparse_with(SparseFormat::Coo, &ConvertOptions::default())
        .unwrap();
    assert_eq!(coo.values::<u8>().unwrap(), &[7, 9]);
    let SparseIndex::Coo(c) = coo.index() else {
        unreachable!()
    };
    assert_eq!(c.indices().values::<i8>().unwrap(), &[1, 4]);
}

#[test]
fn narrowest_index_types() {
    let opts = ConvertOptions::default();
    // 200 columns: int16 (int8 holds 127).
    let mut v = vec![0i32; 2 * 200];
    v[399] = 1;
    let t = Tensor::from_vec(vec![2, 200], v).unwrap();
    for f in formats_for(2) {
        let s = convert::to_sparse(&t, f, &opts).unwrap();
        assert_eq!(index_types(&s)[0], IndexType::Int16, "{}", f.name());
    }
    // 127 columns: CSC indptr has 128 entries (int16); COO and CSR fit int8.
    let t = Tensor::from_vec(vec![1, 127], vec![1i32; 127]).unwrap();
    let t2 = Tensor::from_vec(vec![127, 1], vec![1i32; 127]).unwrap();
    let ty = |t: &Tensor, f| index_types(&convert::to_sparse(t, f, &opts).unwrap())[0];
    assert_eq!(ty(&t, SparseFormat::Coo), IndexType::Int8);
    assert_eq!(ty(&t, SparseFormat::Csr), IndexType::Int8);
    assert_eq!(ty(&t, SparseFormat::Csc), IndexType::Int16);
    assert_eq!(ty(&t2, SparseFormat::Csr), IndexType::Int16);
    // CSF with identity order over 127 x 1: level 0 has 127 nodes, indptr 128 entries.
    assert_eq!(ty(&t2, SparseFormat::Csf), IndexType::Int16);
    assert_eq!(ty(&t, SparseFormat::Csf), IndexType::Int8);
    // 128 stored values: int16 everywhere (Arrow checks nnz against the type).
    let t = Tensor::from_vec(vec![2, 64], vec![1i32; 128]).unwrap();
    for f in formats_for(2) {
        assert_eq!(ty(&t, f), IndexType::Int16, "{}", f.name());
    }
    // Explicit types: too narrow is an error, wide enough is used.
    let e = convert::to_sparse(
        &t,
        SparseFormat::Csr,
        &opts.clone().with_index_type(IndexType::Int8),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::IndexTypeTooNarrow { .. }),
        "{e}"
    );
    let coo = convert::to_sparse(
        &t,
        SparseFormat::Coo,
        &opts.clone().with_index_type(IndexType::UInt8),
    )
    .unwrap();
    assert_eq!(index_types(&coo), vec![IndexType::UInt8]);
    let csf = convert::to_sparse(
        &t,
        SparseFormat::Csf,
        &opts.with_index_type(IndexType::UInt64),
    )
    .unwrap();
    assert!(index_types(&csf).iter().all(|&x| x == IndexType::UInt64));
}

#[test]
fn csf_axis_orders() {
    // 4 x 2 x 3: ascending size is [1, 2, 0].
    let values: Vec<f32> = (0..24)
        .map(|k| if k % 5 == 0 { 0.0 } else { k as f32 })
        .collect();
    let t = Tensor::from_vec(vec![4, 2, 3], values.clone()).unwrap();
    let expected: Vec<Scalar> = values.iter().map(|&v| Scalar::Float32(v)).collect();
    for (order, axes) in [
        (CsfAxisOrder::Identity, vec![0, 1, 2]),
        (CsfAxisOrder::AscendingSize, vec![1, 2, 0]),
        (CsfAxisOrder::Explicit(vec![2, 0, 1]), vec![2, 0, 1]),
    ] {
        let opts = ConvertOptions::default().with_axis_order(order);
        let s = convert::to_sparse(&t, SparseFormat::Csf, &opts).unwrap();
        let SparseIndex::Csf(c) = s.index() else {
            unreachable!()
        };
        assert_eq!(c.axis_order(), axes.as_slice());
        check_valid(&s, SparseFormat::Csf, "CSF order");
        check_dense(&s, &expected, "CSF order");
        // CSF -> CSF in another order, and back to COO.
        let again = convert::convert(&s, SparseFormat::Csf, &ConvertOptions::default()).unwrap();
        let SparseIndex::Csf(c2) = again.index() else {
            unreachable!()
        };
        assert_eq!(c2.axis_order(), &[0, 1, 2]);
        check_dense(&again, &expected, "CSF reorder");
    }
    let e = convert::to_sparse(
        &t,
        SparseFormat::Csf,
        &ConvertOptions::default().with_axis_order(CsfAxisOrder::Explicit(vec![0, 0, 1])),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NotAPermutation(_)), "{e}");
    // Ties in ascending size keep dimension order, as Arrow's stable sort does.
    assert_eq!(
        CsfAxisOrder::AscendingSize.resolve(&[3, 2, 3, 2]).unwrap(),
        vec![1, 3, 0, 2]
    );
}

#[test]
fn csr_csc_csf_round_trip_by_hand() {
    // [[0, 1, 0], [2, 0, 3]]
    let t = Tensor::from_vec(vec![2, 3], vec![0i16, 1, 0, 2, 0, 3]).unwrap();
    let opts = ConvertOptions::default();
    let csr = convert::to_sparse(&t, SparseFormat::Csr, &opts).unwrap();
    let SparseIndex::Csx(c) = csr.index() else {
        unreachable!()
    };
    assert_eq!(c.indptr().values::<i8>().unwrap(), &[0, 1, 3]);
    assert_eq!(c.indices().values::<i8>().unwrap(), &[1, 0, 2]);
    assert_eq!(csr.values::<i16>().unwrap(), &[1, 2, 3]);
    let csc = convert::convert(&csr, SparseFormat::Csc, &opts).unwrap();
    let SparseIndex::Csx(c) = csc.index() else {
        unreachable!()
    };
    assert_eq!(c.indptr().values::<i8>().unwrap(), &[0, 1, 2, 3]);
    assert_eq!(c.indices().values::<i8>().unwrap(), &[1, 0, 1]);
    assert_eq!(csc.values::<i16>().unwrap(), &[2, 1, 3]);
    let csf = convert::convert(&csc, SparseFormat::Csf, &opts).unwrap();
    let SparseIndex::Csf(c) = csf.index() else {
        unreachable!()
    };
    assert_eq!(c.indptr()[0].values::<i8>().unwrap(), &[0, 1, 3]);
    assert_eq!(c.indices()[0].values::<i8>().unwrap(), &[0, 1]);
    assert_eq!(c.indices()[1].values::<i8>().unwrap(), &[1, 0, 2]);
    let back = convert::convert(&csf, SparseFormat::Csr, &opts).unwrap();
    assert!(back.content_eq(&csr));
}

#[test]
fn canonicalize_sums_duplicates_like_scipy() {
    // Entries (1,1)=1, (0,2)=2, (1,1)=3, (0,0)=-4, (0,2)=-2: duplicates sum, a zero sum
    // stays stored.
    let coords = vec![1i64, 1, 0, 2, 1, 1, 0, 0, 0, 2];
    let index = CooIndex::new(IndexArray::from_vec(coords), 2).unwrap();
    assert!(!index.is_canonical());
    let s = SparseTensor::try_new_with_duplicates(
        ValueType::Int32,
        vec![2, 3],
        Buffer::from_vec(vec![1i32, 2, 3, -4, -2]),
        SparseIndex::Coo(index),
    )
    .unwrap();
    let c = s.canonicalize().unwrap();
    let SparseIndex::Coo(ci) = c.index() else {
        unreachable!()
    };
    assert!(ci.is_canonical());
    assert_eq!(ci.indices().values::<i64>().unwrap(), &[0, 0, 0, 2, 1, 1]);
    assert_eq!(c.values::<i32>().unwrap(), &[-4, 0, 4]);
    // drop_zeros leaves the zero sum out.
    let d = convert::convert(
        &s,
        SparseFormat::Coo,
        &ConvertOptions::default().with_drop_zeros(true),
    )
    .unwrap();
    assert_eq!(d.values::<i32>().unwrap(), &[-4, 4]);
    // A canonical tensor comes back as is.
    assert!(c.canonicalize().unwrap().content_eq(&c));
}

#[test]
fn permissively_decoded_input_is_validated_first() {
    use arrow_tensor_ipc::{MessageIter, MessageWriter, ReadOptions, WriteOptions};
    let s = SparseTensor::csr(
        [2, 3],
        vec![0i32, 1, 3],
        vec![1, 0, 2],
        vec![1.0f64, 2.0, 3.0],
    )
    .unwrap();
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    w.write(&s.clone().into()).unwrap();
    let bytes = bytes::Bytes::from(w.finish().unwrap());
    let decoded = MessageIter::new(bytes, &ReadOptions::permissive())
        .next()
        .unwrap()
        .unwrap();
    let p = decoded.message.as_sparse().unwrap();
    assert!(!p.is_validated());
    let coo = convert::convert(p, SparseFormat::Coo, &ConvertOptions::default()).unwrap();
    check_valid(&coo, SparseFormat::Coo, "permissive input");
    assert!(p.to_dense().unwrap().content_eq(&s.to_dense().unwrap()));
}

#[test]
fn larger_random_matrices_every_path() {
    // Deterministic pseudo-random 300 x 200 matrices (~5% non-zeros), row- and
    // column-major, plus a 40 x 30 x 20 tensor.
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for shape in [vec![300usize, 200], vec![40, 30, 20]] {
        let n: usize = shape.iter().product();
        let values: Vec<Scalar> = (0..n)
            .map(|_| {
                let r = next();
                Scalar::Float64(if r % 20 == 0 {
                    (r >> 40) as f64 - 1000.0
                } else {
                    0.0
                })
            })
            .collect();
        for layout in [Layout::RowMajor, Layout::ColumnMajor] {
            let t = make_tensor(ValueType::Float64, &shape, &values, &layout);
            for f in formats_for(shape.len()) {
                let s = convert::to_sparse(&t, f, &ConvertOptions::default()).unwrap();
                check_valid(&s, f, "large");
                check_dense(&s, &values, "large");
                for g in formats_for(shape.len()) {
                    let s2 = convert::convert(&s, g, &ConvertOptions::default()).unwrap();
                    check_valid(&s2, g, "large");
                    check_dense(&s2, &values, "large");
                }
            }
        }
    }
}

#[test]
fn threads_do_not_change_results() {
    // Above the size where scans are split among threads: 1100 x 1000 and 1000 x 3 x 400,
    // row- and column-major, ~3% non-zeros with -0.0 among the zeros.
    let mut state = 0x0bad_5eed_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for shape in [vec![1100usize, 1000], vec![1000, 3, 400]] {
        let n: usize = shape.iter().product();
        let values: Vec<Scalar> = (0..n)
            .map(|_| {
                let r = next();
                Scalar::Float32(match r % 64 {
                    0 | 1 => (r >> 40) as f32 - 100.0,
                    2 => -0.0,
                    _ => 0.0,
                })
            })
            .collect();
        let expected: Vec<Scalar> = values.iter().copied().map(normalize).collect();
        for layout in [Layout::RowMajor, Layout::ColumnMajor] {
            let t = make_tensor(ValueType::Float32, &shape, &values, &layout);
            for f in formats_for(shape.len()) {
                let one =
                    convert::to_sparse(&t, f, &ConvertOptions::default().with_threads(1)).unwrap();
                check_valid(&one, f, "threads");
                check_dense(&one, &expected, "threads");
                let dense_one = one.to_dense().unwrap();
                for threads in [0, 2, 3, 7] {
                    let opts = ConvertOptions::default().with_threads(threads);
                    let many = convert::to_sparse(&t, f, &opts).unwrap();
                    assert!(many.content_eq(&one), "{} with {threads} threads", f.name());
                    // And back (CSC splits its output rows between the threads).
                    let dense = convert::to_dense(&one, &opts).unwrap();
                    assert!(
                        dense.content_eq(&dense_one),
                        "{} to dense, {threads} threads",
                        f.name()
                    );
                }
            }
        }
    }
}

#[test]
fn unusual_strides() {
    // A broadcast row (stride 0), a size-1 dimension with an odd stride, and strides that
    // are not multiples of the value width (read bytewise through a row-major copy).
    let data: Vec<u8> = [0.0f64, 2.0, 0.0, -3.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let t = Tensor::try_new(
        ValueType::Float64,
        vec![3, 4],
        vec![0, 8],
        Buffer::from_vec(data.clone()),
    )
    .unwrap();
    let expected: Vec<Scalar> = t.iter().collect();
    assert_eq!(expected.len(), 12);
    let t1 = Tensor::try_new(
        ValueType::Float64,
        vec![4, 1],
        vec![8, 1000],
        Buffer::from_vec(data),
    )
    .unwrap();
    let expected1: Vec<Scalar> = t1.iter().collect();
    let mut odd = vec![0u8; 3 * 9];
    odd[9..17].copy_from_slice(&7.25f64.to_le_bytes());
    let t2 = Tensor::try_new(ValueType::Float64, vec![3], vec![9], Buffer::from_vec(odd)).unwrap();
    let expected2: Vec<Scalar> = t2.iter().collect();
    assert_eq!(expected2[1], Scalar::Float64(7.25));
    for (t, expected) in [(&t, &expected), (&t1, &expected1), (&t2, &expected2)] {
        for f in formats_for(t.ndim()) {
            let s = convert::to_sparse(t, f, &ConvertOptions::default()).unwrap();
            check_valid(&s, f, "unusual strides");
            check_dense(&s, expected, "unusual strides");
        }
    }
}

#[test]
fn huge_sparse_shapes_convert_without_dense_work() {
    // 10^12 x 10^12 with three entries: sparse to sparse never allocates per element of
    // the shape (CSF and COO; a CSR would need 10^12 + 1 indptr entries by definition).
    let big = 1_000_000_000_000usize;
    let s = SparseTensor::coo(
        [big, big],
        vec![5i64, 7, 0, 999_999_999_999, 5, 3],
        vec![1u16, 2, 3],
    )
    .unwrap();
    assert!(!matches!(s.index(), SparseIndex::Coo(c) if c.is_canonical()));
    let c = convert::canonicalize(&s).unwrap();
    check_valid(&c, SparseFormat::Coo, "huge");
    let coords: Vec<Vec<usize>> = c.iter().unwrap().map(|nz| nz.coords.to_vec()).collect();
    assert_eq!(coords, vec![vec![0, big - 1], vec![5, 3], vec![5, 7]]);
    assert_eq!(c.values::<u16>().unwrap(), &[2, 3, 1]);
    let csf = convert::convert(&s, SparseFormat::Csf, &ConvertOptions::default()).unwrap();
    check_valid(&csf, SparseFormat::Csf, "huge");
    let back = convert::convert(&csf, SparseFormat::Coo, &ConvertOptions::default()).unwrap();
    assert!(back.content_eq(&c));
    // Too large to expand: an error, not an abort.
    assert!(s.to_dense().is_err());
    assert!(convert::to_dense(
        &s,
        &arrow_tensor_ipc::ConvertOptions::default().with_max_dense_elements(1 << 20)
    )
    .is_err());
}

/// An indptr of `shape[k] + 1` entries for a tensor of one value is a `Limits` question:
/// conversions to CSR/CSC refuse one longer than `Limits::max_index_len` and than what the
/// input backs, before allocating it (a dense input without elements, a COO or CSR/CSC of
/// one value); inputs that back the length, and larger limits, convert.
#[test]
fn indptr_lengths_beyond_the_input_are_a_limits_question() {
    use arrow_tensor_ipc::{ErrorKind, Limits};
    let big = 1usize << 40;
    let limit_exceeded = |r: arrow_tensor_ipc::Result<SparseTensor>| match r {
        Err(e) => assert!(
            matches!(e.kind(), ErrorKind::LimitExceeded { what, .. } if what.contains("max_index_len")),
            "{e}"
        ),
        Ok(t) => panic!("converted: {:?}", t.shape()),
    };
    let opts = ConvertOptions::default();
    // One value in a huge matrix.
    let coo = SparseTensor::coo([big, 2], vec![5i64, 1], vec![1.0f64]).unwrap();
    limit_exceeded(convert::convert(&coo, SparseFormat::Csr, &opts));
    let coo_t = SparseTensor::coo([2, big], vec![1i64, 5], vec![1.0f64]).unwrap();
    limit_exceeded(convert::convert(&coo_t, SparseFormat::Csc, &opts));
    let max = SparseTensor::coo([i64::MAX as usize, 2], vec![5i64, 1], vec![1.0f64]).unwrap();
    limit_exceeded(convert::convert(&max, SparseFormat::Csr, &opts));
    // What needs no such indptr converts.
    assert_eq!(
        convert::convert(&coo, SparseFormat::Csc, &opts)
            .unwrap()
            .nnz(),
        1
    );
    assert_eq!(
        convert::convert(&coo, SparseFormat::Csf, &opts)
            .unwrap()
            .nnz(),
        1
    );
    // A dense tensor without elements backs nothing.
    let empty = Tensor::from_vec(vec![big, 0], Vec::<f32>::new()).unwrap();
    limit_exceeded(convert::to_sparse(&empty, SparseFormat::Csr, &opts));
    assert_eq!(
        convert::to_sparse(&empty, SparseFormat::Coo, &opts)
            .unwrap()
            .nnz(),
        0
    );
    // The limit is the caller's.
    let coo = SparseTensor::coo([1000, 2], vec![5i64, 1], vec![1.0f64]).unwrap();
    let small = opts
        .clone()
        .with_limits(Limits::default().with_max_index_len(100));
    assert_eq!(
        convert::convert(&coo, SparseFormat::Csr, &opts)
            .unwrap()
            .nnz(),
        1
    );
    limit_exceeded(convert::convert(&coo, SparseFormat::Csr, &small));
    // An input that backs the length converts whatever the limit: a CSR re-encoded, a
    // dense matrix of as many elements.
    let csr = convert::convert(&coo, SparseFormat::Csr, &opts).unwrap();
    let again = convert::convert(&csr, SparseFormat::Csr, &small).unwrap();
    assert!(again.content_eq(&csr));
    let dense = Tensor::from_vec(vec![1000, 1], vec![1.0f32; 1000]).unwrap();
    assert_eq!(
        convert::to_sparse(&dense, SparseFormat::Csr, &small)
            .unwrap()
            .nnz(),
        1000
    );
}
