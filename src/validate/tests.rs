//! Property tests: every block-wise kernel of [`super::kernels`] and every indptr rule of
//! [`super::indptr`] agrees with an obviously correct plain loop (written here) on random
//! inputs of every index type, with lengths around every block boundary and single
//! violations placed at the first and last element of a block, or anywhere.
//!
//! Large arrays are filled from a seed (a few proptest parameters describe a case), so
//! that a case of tens of thousands of values stays cheap.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::indptr::{check_ends, check_indptr, first_decrease, slice_bounds};
use super::kernels::{
    all_below, block_len, check_bounds, check_rows_in_bounds, check_sorted_slices, coo_block_rows,
    coo_row_major_scan, first_not_increasing, non_increasing_pairs, scan_values, Scan,
};
use crate::error::{BufferId, ErrorKind, Result};
use crate::types::{NativeIndex, SCAN_BLOCK};
use proptest::prelude::*;

/// An index type with its range, for building test data of any width.
pub(crate) trait TestIndex: NativeIndex + std::fmt::Debug {
    /// Smallest value.
    const LO: i128;
    /// Largest value.
    const HI: i128;
    /// `v` in the type (`v` must be in `MIN..=MAX`).
    fn of(v: i128) -> Self;
}

macro_rules! test_index {
    ($($t:ty),*) => {$(
        impl TestIndex for $t {
            const LO: i128 = <$t>::MIN as i128;
            const HI: i128 = <$t>::MAX as i128;
            fn of(v: i128) -> Self {
                <$t>::try_from(v).expect("value in range")
            }
        }
    )*};
}
test_index!(i8, i16, i32, i64, u8, u16, u32, u64);

/// A small deterministic generator (splitmix64) to fill large arrays from one seed.
pub(crate) struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 for `n == 0`).
    pub fn below(&mut self, n: u128) -> u128 {
        if n == 0 {
            0
        } else {
            (u128::from(self.next()) << 64 | u128::from(self.next())) % n
        }
    }

    /// A value in `lo..=hi`.
    pub fn range(&mut self, lo: i128, hi: i128) -> i128 {
        lo + self.below((hi - lo) as u128 + 1) as i128
    }
}

/// `n` strictly increasing values in `0..domain` (`n <= domain`): one at random in each
/// of `n` equal steps.
pub(crate) fn increasing(rng: &mut Rng, n: usize, domain: u128) -> Vec<u128> {
    let step = domain.checked_div(n as u128).unwrap_or(0);
    (0..n as u128).map(|i| i * step + rng.below(step)).collect()
}

/// Lengths around the block boundaries of a kernel of `block` elements, and random ones.
fn lengths(block: usize) -> impl Strategy<Value = usize> {
    prop_oneof![
        1 => prop::sample::select(vec![0, 1, 2]),
        6 => prop::sample::select(vec![
            block - 1,
            block,
            block + 1,
            2 * block - 1,
            2 * block,
            2 * block + 1,
        ]),
        3 => 0..3 * block + 2,
    ]
}

/// Row counts around the blocks of `block` rows of the fused COO scan and the 64 rows of
/// its bounds template, and random ones.
fn row_counts(block: usize) -> impl Strategy<Value = usize> {
    prop_oneof![
        6 => prop::sample::select(vec![
            block - 1,
            block,
            block + 1,
            2 * block - 1,
            2 * block,
            2 * block + 1,
        ]),
        2 => prop::sample::select(vec![0, 1, 2, 63, 64, 65, 127, 128, 129]),
        2 => 0..3 * block + 2,
    ]
}

/// A position in `0..len` (`len > 0`): the first or last element of the first two
/// blocks, the last element, or `r % len`, as `sel` says.
fn position(len: usize, block: usize, sel: u8, r: usize) -> usize {
    let candidates = [
        0,
        block - 1,
        block,
        2 * block - 1,
        2 * block,
        len - 1,
        r % len,
    ];
    candidates[usize::from(sel) % candidates.len()].min(len - 1)
}

/// Debug form of a result, to compare errors (kind and every field) with a reference.
fn shown(r: Result<()>) -> String {
    match r {
        Ok(()) => "Ok".into(),
        Err(e) => format!("{:?}", e.kind()),
    }
}

fn shown_kind(k: Option<ErrorKind>) -> String {
    k.map_or_else(|| "Ok".into(), |k| format!("{k:?}"))
}

/// Whether `v` is in `0..bound`.
fn inside(v: i128, bound: usize) -> bool {
    v >= 0 && v < bound as i128
}

/// The reported value of an index: as `i64`, saturated as [`NativeIndex::as_index`] does.
fn reported(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Reference of [`check_bounds`]: the first value outside `0..bound`.
fn ref_bounds(s: &[i128], bound: usize, dim: usize, buffer: BufferId) -> Option<ErrorKind> {
    let p = s.iter().position(|&v| !inside(v, bound))?;
    Some(ErrorKind::IndexOutOfBounds {
        buffer,
        position: p as u64,
        value: reported(s[p]),
        dim,
        bound: bound as u64,
    })
}

/// Reference of [`scan_values`] for a valid indptr `p` of `s`.
fn ref_scan(s: &[i128], bound: usize, p: &[i128]) -> Scan {
    let pairs = (1..s.len()).filter(|&k| s[k - 1] >= s[k]).count();
    let mut boundaries: Vec<usize> = p
        .iter()
        .map(|&b| b as usize)
        .filter(|&b| 0 < b && b < s.len())
        .collect();
    boundaries.dedup();
    Scan {
        in_bounds: s.iter().all(|&v| inside(v, bound)),
        pairs,
        at_boundaries: boundaries.iter().filter(|&&b| s[b - 1] >= s[b]).count(),
    }
}

/// Reference of [`check_sorted_slices`]: row by row, pair by pair.
fn ref_sorted_slices(
    s: &[i128],
    p: &[i128],
    buffer: BufferId,
    rule: &'static str,
) -> Option<ErrorKind> {
    for r in 0..p.len().saturating_sub(1) {
        let (a, b) = (p[r] as usize, p[r + 1] as usize);
        for k in a + 1..b {
            if s[k - 1] >= s[k] {
                return Some(ErrorKind::NotIncreasing {
                    buffer,
                    position: k as u64,
                    rule,
                });
            }
        }
    }
    None
}

/// Reference of [`check_indptr`] (`ends_only`: of [`check_ends`]).
fn ref_indptr(p: &[i128], len: usize, buffer: BufferId, ends_only: bool) -> Option<ErrorKind> {
    let invalid = |position: usize, value: i128, rule| ErrorKind::InvalidIndptr {
        buffer,
        position: position as u64,
        value: reported(value),
        rule,
    };
    let first = p.first().copied().unwrap_or(0);
    if first != 0 {
        return Some(invalid(0, first, "indptr must start at 0"));
    }
    if !ends_only {
        if let Some(k) = (1..p.len()).find(|&k| p[k - 1] > p[k]) {
            return Some(invalid(k, p[k], "indptr must be non-decreasing"));
        }
    }
    let last = p.last().copied().unwrap_or(0);
    if last != len as i128 {
        let rule = "indptr must end at the number of entries it delimits";
        return Some(invalid(p.len().saturating_sub(1), last, rule));
    }
    None
}

/// Reference of [`slice_bounds`].
fn ref_slice(
    p: &[i128],
    r: usize,
    limit: usize,
    buffer: BufferId,
) -> std::result::Result<(usize, usize), String> {
    let invalid = |position: usize, value: i128, rule| {
        format!(
            "{:?}",
            ErrorKind::InvalidIndptr {
                buffer,
                position: position as u64,
                value: reported(value),
                rule,
            }
        )
    };
    let get = |k: usize| {
        let v = p.get(k).copied().unwrap_or(-1);
        if v < 0 || v > limit as i128 {
            Err(invalid(
                k,
                v,
                "outside 0..=length of the array it points into",
            ))
        } else {
            Ok(v as usize)
        }
    };
    let (a, b) = (get(r)?, get(r + 1)?);
    if a > b {
        return Err(invalid(r + 1, b as i128, "indptr must be non-decreasing"));
    }
    Ok((a, b))
}

/// A bound: empty, small, around the type's maximum, or far beyond it.
fn bound_for<I: TestIndex>(sel: u8, r: u64) -> usize {
    let max = I::HI.min(1 << 40) as usize;
    match sel % 6 {
        0 => 0,
        1 => 1 + (r % 100) as usize,
        2 => max,
        3 => max + 1,
        4 => max.saturating_add(1000),
        _ => 1 + (r as usize % max.max(1)),
    }
}

/// A value that breaks `0..bound`, when the type has one.
fn bad_value<I: TestIndex>(bound: usize, rng: &mut Rng) -> Option<i128> {
    let mut bad = Vec::new();
    if I::LO < 0 {
        bad.push(-1);
        bad.push(I::LO);
    }
    if (bound as i128) <= I::HI {
        bad.push(bound as i128);
        bad.push(I::HI);
    }
    (!bad.is_empty()).then(|| bad[rng.below(bad.len() as u128) as usize])
}

fn typed<I: TestIndex>(s: &[i128]) -> Vec<I> {
    s.iter().map(|&v| I::of(v)).collect()
}

/// Number of values `0..bound` of `I` can hold.
fn domain<I: TestIndex>(bound: usize) -> u128 {
    (bound as u128).min(I::HI as u128 + 1)
}

/// A valid indptr over `len` values: `rows` slices (some empty) whose lengths are at most
/// `max_slice` each when possible.
fn random_indptr(rng: &mut Rng, len: usize, rows: usize, max_slice: usize) -> Vec<i128> {
    let rows = rows.max(len.div_ceil(max_slice.max(1))).max(1);
    // `rows - 1` cut points in 0..=len, sorted, then sizes capped by re-spreading.
    let mut cuts: Vec<i128> = (0..rows - 1).map(|_| rng.range(0, len as i128)).collect();
    cuts.sort_unstable();
    let mut p = vec![0i128];
    p.extend(cuts);
    p.push(len as i128);
    // Too long a slice: fall back to an even split (every slice at most `max_slice`).
    if p.windows(2).any(|w| (w[1] - w[0]) as usize > max_slice) {
        p = (0..=rows).map(|k| (k * len / rows) as i128).collect();
    }
    p
}

/// Every index type, as a test module of its own.
macro_rules! kernel_tests {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        mod $name {
            use super::*;
            type I = $t;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(64))]

                /// `check_bounds` (and its fast `all_below`) against a check of each value.
                #[test]
                fn bounds(
                    len in lengths(block_len::<I>()),
                    bsel in any::<u8>(), braw in any::<u64>(),
                    random in any::<bool>(),
                    violation in any::<bool>(), psel in any::<u8>(), praw in any::<usize>(),
                    seed in any::<u64>(),
                ) {
                    let mut rng = Rng(seed);
                    let bound = bound_for::<I>(bsel, braw);
                    let d = domain::<I>(bound);
                    let mut s: Vec<i128> = (0..len)
                        .map(|_| if random || d == 0 {
                            rng.range(I::LO.max(-3), I::HI.min(bound as i128 + 3))
                        } else {
                            rng.below(d) as i128
                        })
                        .collect();
                    if violation && len > 0 {
                        if let Some(v) = bad_value::<I>(bound, &mut rng) {
                            s[position(len, block_len::<I>(), psel, praw)] = v;
                        }
                    }
                    let t = typed::<I>(&s);
                    let buffer = BufferId::CsxIndices;
                    prop_assert_eq!(all_below(&t, bound as u64), s.iter().all(|&v| inside(v, bound)));
                    prop_assert_eq!(
                        shown(check_bounds(&t, bound, 1, buffer)),
                        shown_kind(ref_bounds(&s, bound, 1, buffer))
                    );
                }

                /// `scan_values` (block-wise) and `check_sorted_slices` against pair scans,
                /// with indptr arrays of `i64` and, when they fit, of `I` itself.
                #[test]
                fn scan(
                    len in lengths(SCAN_BLOCK),
                    bsel in any::<u8>(), braw in any::<u64>(),
                    random in any::<bool>(),
                    rows in 0usize..64,
                    violation in 0u8..4, psel in any::<u8>(), praw in any::<usize>(),
                    seed in any::<u64>(),
                ) {
                    let mut rng = Rng(seed);
                    let bound = bound_for::<I>(bsel, braw);
                    // Values to fill the slices with: the valid ones, or a few invalid ones
                    // of an empty dimension.
                    let d = match domain::<I>(bound) {
                        0 => 100.min(I::HI as u128 + 1),
                        d => d,
                    };
                    let rows = if random { rows } else { rows.max(len / 16) };
                    let p = random_indptr(&mut rng, len, rows, d as usize);
                    let mut s = vec![0i128; len];
                    for w in p.windows(2) {
                        let (a, b) = (w[0] as usize, w[1] as usize);
                        let slice: Vec<i128> = if random {
                            (a..b).map(|_| rng.below(d.min(8)) as i128).collect()
                        } else {
                            increasing(&mut rng, b - a, d).into_iter().map(|v| v as i128).collect()
                        };
                        s[a..b].copy_from_slice(&slice);
                    }
                    if len > 0 {
                        let k = position(len, SCAN_BLOCK, psel, praw);
                        match violation {
                            // A repeat of the previous value: a non-increasing pair.
                            0 if k > 0 => s[k] = s[k - 1],
                            // A repeat of the next value.
                            1 if k + 1 < len => s[k] = s[k + 1],
                            2 => if let Some(v) = bad_value::<I>(bound, &mut rng) { s[k] = v },
                            _ => {}
                        }
                    }
                    let t = typed::<I>(&s);
                    let reference = ref_scan(&s, bound, &p);
                    let wide: Vec<i64> = p.iter().map(|&v| v as i64).collect();
                    let scan = scan_values(&t, bound as u64, &wide);
                    prop_assert_eq!(scan, reference);
                    if p.iter().all(|&v| v <= I::HI) {
                        prop_assert_eq!(scan_values(&t, bound as u64, &typed::<I>(&p)), reference);
                    }
                    prop_assert_eq!(non_increasing_pairs(&t), reference.pairs);
                    prop_assert_eq!(
                        first_not_increasing(&t),
                        (1..len).find(|&k| s[k - 1] >= s[k]).map(|k| k - 1)
                    );
                    let (buffer, rule) = (BufferId::CsxIndices, "rule");
                    prop_assert_eq!(
                        shown(check_sorted_slices(&wide, &t, &scan, buffer, rule)),
                        shown_kind(ref_sorted_slices(&s, &p, buffer, rule))
                    );
                }

                /// The indptr rules (`check_indptr`, `check_ends`, `slice_bounds`) against
                /// checks of each entry and each pair, for an indptr of type `I`.
                #[test]
                fn indptr(
                    n in lengths(64),
                    lraw in any::<u64>(),
                    corruption in 0u8..6, psel in any::<u8>(), praw in any::<usize>(),
                    delta in -3i128..=3,
                    seed in any::<u64>(),
                ) {
                    let mut rng = Rng(seed);
                    // The length of the array pointed into, representable in `I`.
                    let len = (lraw % (I::HI.min(100_000) as u64 + 1)) as usize;
                    let mut p = random_indptr(&mut rng, len, n, usize::MAX);
                    let last = p.len() - 1;
                    let k = position(p.len(), 64, psel, praw);
                    match corruption {
                        0 => p[0] = rng.range(I::LO, I::HI),
                        1 => p[last] = rng.range(I::LO, I::HI),
                        2 => p[k] += delta,
                        3 => p[k] = rng.range(I::LO, I::HI),
                        4 if k > 0 => p[k] = p[k - 1] - 1,
                        _ => {}
                    }
                    for v in &mut p {
                        *v = (*v).clamp(I::LO, I::HI);
                    }
                    let t = typed::<I>(&p);
                    let buffer = BufferId::CsfIndptr(2);
                    prop_assert_eq!(
                        first_decrease(&t),
                        (1..p.len()).find(|&k| p[k - 1] > p[k])
                    );
                    prop_assert_eq!(
                        shown(check_indptr(&t, len, buffer)),
                        shown_kind(ref_indptr(&p, len, buffer, false))
                    );
                    prop_assert_eq!(
                        shown(check_ends(&t, len, buffer)),
                        shown_kind(ref_indptr(&p, len, buffer, true))
                    );
                    let valid = check_indptr(&t, len, buffer).is_ok();
                    for r in [0, k.saturating_sub(1), k, last.saturating_sub(1), last] {
                        let fast = slice_bounds(&t, r, len, buffer)
                            .map_err(|e| format!("{:?}", e.kind()));
                        prop_assert_eq!(&fast, &ref_slice(&p, r, len, buffer));
                        // A valid indptr has valid slices.
                        prop_assert!(!valid || r >= last || fast.is_ok());
                    }
                }
            }

            proptest! {
                // More cases: a violation straddles a block only in a few of them.
                #![proptest_config(ProptestConfig::with_cases(160))]

                /// The fused row-major COO scan and the row bounds check against checks of
                /// each coordinate and each pair of consecutive rows.
                #[test]
                fn coo_rows(
                    (ndim, nrows) in (1usize..=5)
                        .prop_flat_map(|n| (Just(n), row_counts(coo_block_rows::<I>(n)))),
                    dims in prop::collection::vec((any::<u8>(), any::<u64>()), 5),
                    sorted in prop::bool::weighted(0.8),
                    random in prop::bool::weighted(0.2),
                    violation in prop_oneof![9 => 0u8..4, 1 => Just(4u8)],
                    psel in any::<u8>(), praw in any::<usize>(),
                    seed in any::<u64>(),
                ) {
                    let mut rng = Rng(seed);
                    let block = coo_block_rows::<I>(ndim);
                    let shape: Vec<usize> = dims[..ndim]
                        .iter()
                        .map(|&(sel, r)| match sel % 8 {
                            // Empty dimensions are rare: they reject every coordinate.
                            0 if sel < 32 => 0,
                            // Cell counts beyond u64 disable the sortedness fast path.
                            1 => 1 << 20,
                            2 => 1 << 40,
                            _ => bound_for::<I>(sel, r).max(1),
                        })
                        .collect();
                    // Representable coordinates per dimension, and their cell count.
                    let eff: Vec<u128> = shape.iter().map(|&n| domain::<I>(n).max(1)).collect();
                    let cells = eff.iter().try_fold(1u128, |a, &n| a.checked_mul(n)).unwrap_or(u128::MAX);
                    let mut rows: Vec<Vec<i128>> = if random {
                        (0..nrows)
                            .map(|_| eff.iter().map(|&n| rng.below(n.min(3)) as i128).collect())
                            .collect()
                    } else {
                        let n = nrows.min(cells.min(usize::MAX as u128) as usize);
                        increasing(&mut rng, n, cells)
                            .into_iter()
                            .map(|mut lin| {
                                let mut row = vec![0i128; ndim];
                                for (c, &n) in row.iter_mut().zip(&eff).rev() {
                                    *c = (lin % n) as i128;
                                    lin /= n;
                                }
                                row
                            })
                            .collect()
                    };
                    let nrows = rows.len();
                    if nrows > 0 {
                        let i = position(nrows, block, psel, praw);
                        let d = praw % ndim;
                        match violation {
                            0 if i > 0 => rows[i] = rows[i - 1].clone(),
                            1 if i + 1 < nrows => rows.swap(i, i + 1),
                            2 => if let Some(v) = bad_value::<I>(shape[d], &mut rng) { rows[i][d] = v },
                            3 if i > 0 => {
                                // Equal leading coordinates, a smaller last one.
                                let mut row = rows[i - 1].clone();
                                let last = row.len() - 1;
                                row[last] = (row[last] - 1).max(0);
                                rows[i] = row;
                            }
                            _ => {}
                        }
                    }
                    let s: Vec<i128> = rows.concat();
                    let t = typed::<I>(&s);
                    let in_bounds = rows.iter().all(|r| r.iter().zip(&shape).all(|(&v, &n)| inside(v, n)));
                    let increasing_rows = rows.windows(2).all(|w| w[0] < w[1]);
                    let fits = shape.iter().try_fold(1u64, |a, &n| a.checked_mul(n as u64)).is_some();
                    let (fast_in_bounds, fast_increasing) = coo_row_major_scan(&t, &shape, sorted);
                    prop_assert_eq!(fast_in_bounds, in_bounds);
                    if in_bounds {
                        // Decided by the fast path only where it applies; `false` sends the
                        // caller to the slow path.
                        let applies = sorted && ndim <= 4 && fits;
                        prop_assert_eq!(fast_increasing, applies && increasing_rows);
                    }
                    let buffer = BufferId::CooIndices;
                    let reference = s.iter().enumerate().find_map(|(p, &v)| {
                        let d = p % ndim;
                        (!inside(v, shape[d])).then(|| ErrorKind::IndexOutOfBounds {
                            buffer,
                            position: p as u64,
                            value: reported(v),
                            dim: d,
                            bound: shape[d] as u64,
                        })
                    });
                    prop_assert_eq!(
                        shown(check_rows_in_bounds(&t, &shape, buffer)),
                        shown_kind(reference)
                    );
                }
            }
        }
    )*};
}

kernel_tests!(
    int8: i8,
    int16: i16,
    int32: i32,
    int64: i64,
    uint8: u8,
    uint16: u16,
    uint32: u32,
    uint64: u64,
);
