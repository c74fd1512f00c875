//! The fast fills checked against a plain expander, on random inputs of every layout.
//!
//! Every input is expanded with the conversions' sizes ([`TUNING`]) and with tiny ones
//! ([`TINY`], [`SMALL`]) under which small inputs cross every boundary the fills use
//! (offset blocks, zero-fill blocks, groups, CSC bands, parallel ranges; [`TINY`] splits
//! every output between threads), on 1, 2, 3 and 7 threads. A last test uses the
//! conversions' sizes on outputs around 2^20 elements, where they split between threads.

use super::{to_dense_tuned, Tuning, TUNING};
use crate::sparse::{CompressedAxis, CooIndex, CooOrder, CsfIndex, CsxIndex, SparseIndex};
use crate::types::{NativeIndex, NativeValue};
use crate::{f16, IndexArray, SparseTensor};
use arrow_buffer::Buffer;
use proptest::prelude::*;

/// Offsets three at a time, zero-fill blocks of 8 bytes, groups and CSC bands of 32,
/// every output split between threads.
const TINY: Tuning = Tuning {
    offsets: 3,
    fill_bytes: 8,
    group_bytes: 32,
    parallel_min: 0,
};

/// Small blocks; outputs of 100 elements or more split between threads.
const SMALL: Tuning = Tuning {
    offsets: 16,
    fill_bytes: 64,
    group_bytes: 256,
    parallel_min: 100,
};

const TUNINGS: [Tuning; 3] = [TINY, SMALL, TUNING];

const THREADS: [usize; 4] = [1, 2, 3, 7];

/// Value types made from small integers; sums of a few stay exact.
trait Value: NativeValue {
    fn small(x: i8) -> Self;
}

impl Value for i32 {
    fn small(x: i8) -> Self {
        i32::from(x) * 1000 + 7
    }
}

impl Value for u8 {
    fn small(x: i8) -> Self {
        // Wraps when summed.
        (x as u8).wrapping_mul(17)
    }
}

impl Value for f64 {
    fn small(x: i8) -> Self {
        f64::from(x) / 4.0
    }
}

impl Value for f16 {
    fn small(x: i8) -> Self {
        f16::from_f32(f32::from(x) / 4.0)
    }
}

/// One stored entry: coordinates and value.
type Entry<T> = (Vec<usize>, T);

fn row_major_offset(shape: &[usize], coords: &[usize]) -> usize {
    coords.iter().zip(shape).fold(0, |o, (&x, &d)| o * d + x)
}

/// The plain expander: a zeroed row-major vector, every stored value added at its offset
/// in storage order.
fn expand<T: NativeValue>(shape: &[usize], entries: &[Entry<T>]) -> Vec<T> {
    let total: usize = shape.iter().product();
    let mut out = vec![T::ZERO; total];
    for (coords, v) in entries {
        let o = row_major_offset(shape, coords);
        out[o] = out[o].combine(*v);
    }
    out
}

fn coords_of(shape: &[usize], mut offset: usize) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for (x, &d) in c.iter_mut().zip(shape).rev() {
        *x = offset % d;
        offset /= d;
    }
    c
}

fn index<I: NativeIndex>(v: impl IntoIterator<Item = usize>) -> IndexArray {
    let v: Vec<I> = v
        .into_iter()
        .map(|x| I::from_u64(x as u64).expect("index fits"))
        .collect();
    IndexArray::from_vec(v)
}

fn tensor<T: NativeValue>(shape: &[usize], values: Vec<T>, index: SparseIndex) -> SparseTensor {
    SparseTensor::try_new_with_duplicates(T::TYPE, shape, Buffer::from_vec(values), index)
        .expect("a valid test input")
}

fn coo<T: NativeValue, I: NativeIndex>(
    shape: &[usize],
    entries: &[Entry<T>],
    order: CooOrder,
) -> SparseTensor {
    let (nnz, nd) = (entries.len(), shape.len());
    let mut coords = vec![0; nnz * nd];
    for (k, (c, _)) in entries.iter().enumerate() {
        for (d, &x) in c.iter().enumerate() {
            let slot = match order {
                CooOrder::RowMajor => k * nd + d,
                CooOrder::ColumnMajor => d * nnz + k,
            };
            coords[slot] = x;
        }
    }
    let index = CooIndex::with_order(index::<I>(coords), nd, order).expect("COO index");
    tensor(
        shape,
        entries.iter().map(|e| e.1).collect(),
        SparseIndex::Coo(index),
    )
}

/// CSR (`axis` Row) or CSC from entries without duplicates, sorted as the layout stores
/// them.
fn csx<T: NativeValue, I: NativeIndex>(
    shape: &[usize],
    entries: &[Entry<T>],
    axis: CompressedAxis,
) -> (SparseTensor, Vec<Entry<T>>) {
    let (outer, inner) = match axis {
        CompressedAxis::Row => (0, 1),
        CompressedAxis::Column => (1, 0),
    };
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|(c, _)| (c[outer], c[inner]));
    let mut indptr = vec![0; shape[outer] + 1];
    for (c, _) in &sorted {
        indptr[c[outer] + 1] += 1;
    }
    for k in 0..shape[outer] {
        indptr[k + 1] += indptr[k];
    }
    let index = CsxIndex::new(
        axis,
        index::<I>(indptr),
        index::<I>(sorted.iter().map(|(c, _)| c[inner])),
    )
    .unwrap();
    let t = tensor(
        shape,
        sorted.iter().map(|e| e.1).collect(),
        SparseIndex::Csx(index),
    );
    (t, sorted)
}

/// CSF in `order` from entries without duplicates.
fn csf<T: NativeValue, I: NativeIndex>(
    shape: &[usize],
    entries: &[Entry<T>],
    order: &[usize],
) -> (SparseTensor, Vec<Entry<T>>) {
    let nd = shape.len();
    let key = |c: &[usize]| order.iter().map(|&d| c[d]).collect::<Vec<_>>();
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|(c, _)| key(c));
    let mut indices: Vec<Vec<usize>> = vec![Vec::new(); nd];
    let mut indptr: Vec<Vec<usize>> = vec![Vec::new(); nd - 1];
    let mut prev: Option<Vec<usize>> = None;
    for (c, _) in &sorted {
        let k = key(c);
        // The first level where this entry leaves the path of the one before.
        let start = prev.as_ref().map_or(0, |p| {
            (0..nd).find(|&l| p[l] != k[l]).expect("no duplicates")
        });
        for l in start..nd {
            if l + 1 < nd {
                indptr[l].push(indices[l + 1].len());
            }
            indices[l].push(k[l]);
        }
        prev = Some(k);
    }
    for l in 0..nd - 1 {
        indptr[l].push(indices[l + 1].len());
    }
    let index = CsfIndex::new(
        order.to_vec(),
        indptr.into_iter().map(index::<I>).collect(),
        indices.into_iter().map(index::<I>).collect(),
    )
    .unwrap();
    let t = tensor(
        shape,
        sorted.iter().map(|e| e.1).collect(),
        SparseIndex::Csf(index),
    );
    (t, sorted)
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..n {
            let mut q = p.clone();
            q.insert(at, n - 1);
            out.push(q);
        }
    }
    out
}

/// Every layout of the stored entries `entries` (storage order, duplicates possible) that
/// takes the shape's rank, with the entries each stores in its storage order, and a name.
fn layouts<T: NativeValue, I: NativeIndex>(
    shape: &[usize],
    entries: &[Entry<T>],
) -> Vec<(String, SparseTensor, Vec<Entry<T>>)> {
    let offset = |c: &[usize]| row_major_offset(shape, c);
    let mut sorted_dups = entries.to_vec();
    sorted_dups.sort_by_key(|(c, _)| offset(c));
    // Without duplicates: the first entry of every coordinate.
    let mut unique = sorted_dups.clone();
    unique.dedup_by_key(|(c, _)| offset(c));
    let mut out = Vec::new();
    for order in [CooOrder::RowMajor, CooOrder::ColumnMajor] {
        for (what, list) in [
            ("as drawn", entries),
            ("sorted with duplicates", &sorted_dups),
            ("canonical", &unique),
        ] {
            let t = coo::<T, I>(shape, list, order);
            let name = format!(
                "COO {order:?} {what} (canonical flag {})",
                matches!(t.index(), SparseIndex::Coo(c) if c.is_canonical())
            );
            out.push((name, t, list.to_vec()));
        }
    }
    if shape.len() == 2 {
        for axis in [CompressedAxis::Row, CompressedAxis::Column] {
            let (t, list) = csx::<T, I>(shape, &unique, axis);
            out.push((format!("CSX {axis:?}"), t, list));
        }
    }
    if shape.len() >= 2 {
        for order in permutations(shape.len()) {
            let (t, list) = csf::<T, I>(shape, &unique, &order);
            out.push((format!("CSF {order:?}"), t, list));
        }
    }
    out
}

/// Every layout of the entries drawn by `raw`, expanded with every tuning and thread count,
/// against [`expand`]. `r` in `raw` stores `small(r >> 32)` at offset `r % total`.
fn check_all<T: Value, I: NativeIndex>(
    shape: &[usize],
    raw: &[u64],
    tunings: &[Tuning],
) -> Result<(), TestCaseError> {
    let total: usize = shape.iter().product();
    let entries: Vec<Entry<T>> = if total == 0 {
        Vec::new()
    } else {
        raw.iter()
            .map(|&r| {
                let c = coords_of(shape, (r % total as u64) as usize);
                (c, T::small((r >> 32) as i8))
            })
            .collect()
    };
    for (name, t, list) in layouts::<T, I>(shape, &entries) {
        let expected = Buffer::from_vec(expand(shape, &list));
        for tuning in tunings {
            for threads in THREADS {
                let dense = to_dense_tuned(&t, usize::MAX, threads, tuning)
                    .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
                prop_assert_eq!(dense.shape(), shape);
                let (found, want) = (dense.data().as_slice(), expected.as_slice());
                if found == want {
                    continue;
                }
                let w = T::TYPE.byte_width();
                let first_bad = found
                    .chunks(w)
                    .zip(want.chunks(w))
                    .position(|(a, b)| a != b);
                prop_assert!(
                    false,
                    "{} {:?} shape {:?}, {:?}, {} threads: element {:?} differs \
                     ({} bytes, {} expected)",
                    name,
                    T::TYPE,
                    shape,
                    tuning,
                    threads,
                    first_bad,
                    found.len(),
                    want.len()
                );
            }
        }
    }
    Ok(())
}

fn check_index_type<T: Value>(
    shape: &[usize],
    raw: &[u64],
    itype: u8,
) -> Result<(), TestCaseError> {
    match itype {
        0 => check_all::<T, i16>(shape, raw, &TUNINGS),
        1 => check_all::<T, i32>(shape, raw, &TUNINGS),
        _ => check_all::<T, i64>(shape, raw, &TUNINGS),
    }
}

/// Shapes of rank 0 to 4 (sizes 0 included), up to a few hundred elements.
fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        1 => Just(Vec::new()),
        2 => prop::collection::vec(0usize..=70, 1),
        4 => prop::collection::vec(0usize..=24, 2),
        3 => prop::collection::vec(0usize..=8, 3),
        2 => prop::collection::vec(0usize..=5, 4),
    ]
}

/// Entries: up to 300 draws (so small shapes get duplicates and long runs of stored
/// values, larger ones a sparse scatter).
fn draws() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(any::<u64>(), 0..300)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 40,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn fast_fills_agree_with_the_plain_expander_i32(
        shape in shape(), raw in draws(), itype in 0u8..3
    ) {
        check_index_type::<i32>(&shape, &raw, itype)?;
    }

    #[test]
    fn fast_fills_agree_with_the_plain_expander_f64(
        shape in shape(), raw in draws(), itype in 0u8..3
    ) {
        check_index_type::<f64>(&shape, &raw, itype)?;
    }

    #[test]
    fn fast_fills_agree_with_the_plain_expander_f16(
        shape in shape(), raw in draws(), itype in 0u8..3
    ) {
        check_index_type::<f16>(&shape, &raw, itype)?;
    }

    #[test]
    fn fast_fills_agree_with_the_plain_expander_u8(
        shape in shape(), raw in draws(), itype in 0u8..3
    ) {
        check_index_type::<u8>(&shape, &raw, itype)?;
    }
}

/// The conversions' sizes on outputs around 2^20 elements (`TUNING.parallel_min`): just
/// below (one thread), at and just above (split between threads), with one row (CSR in a
/// single range) and with enough stored values to cross every zero-fill block, group and
/// CSC band.
#[test]
fn fast_fills_agree_with_the_plain_expander_around_the_thread_threshold() {
    let mut state = 0x05ee_d0fd_3e5e_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let shapes: [&[usize]; 5] = [
        &[1023, 1025],
        &[1024, 1024],
        &[1, (1 << 20) + 5],
        &[3, 700, 500],
        &[(1 << 20) + 1],
    ];
    for shape in shapes {
        let raw: Vec<u64> = (0..20_000).map(|_| next()).collect();
        check_all::<f64, i64>(shape, &raw, &[TUNING]).unwrap_or_else(|e| panic!("{e}"));
        check_all::<i32, i32>(shape, &raw, &[TUNING]).unwrap_or_else(|e| panic!("{e}"));
    }
}
