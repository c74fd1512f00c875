//! The rows of one part file: sorted row-major and gathered into Arrow arrays.

use crate::error::Result;
use crate::record_batch::arrays::{data_type, primitive_array};
use crate::{NativeIndex, ValueType};
use arrow_array::ArrayRef;
use arrow_buffer::Buffer;

/// The positions of the entries in row-major order of their coordinates: by a key local
/// to the tile when the tile's element count fits a `u64`, else by comparing coordinates.
pub(super) fn sort_entries(
    coords: &[u64],
    rank: usize,
    bounds: &[(u64, u64)],
) -> Result<Vec<usize>> {
    let n = coords.len() / rank.max(1);
    let mut strides = vec![0u64; rank];
    let mut acc = Some(1u64);
    for d in (0..rank).rev() {
        if let (Some(s), Some(a)) = (strides.get_mut(d), acc) {
            *s = a;
        }
        acc = acc.and_then(|a| bounds.get(d).and_then(|(lo, hi)| a.checked_mul(hi - lo)));
    }
    if acc.is_some() {
        let lo: Vec<u64> = bounds.iter().map(|b| b.0).collect();
        let mut keyed: Vec<(u64, usize)> = coords
            .chunks_exact(rank)
            .enumerate()
            .map(|(i, c)| {
                let key = c
                    .iter()
                    .zip(&lo)
                    .zip(&strides)
                    .map(|((&x, &l), &s)| (x - l) * s)
                    .sum();
                (key, i)
            })
            .collect();
        keyed.sort_unstable();
        return Ok(keyed.into_iter().map(|(_, i)| i).collect());
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&a, &b| {
        coords
            .get(a * rank..(a + 1) * rank)
            .cmp(&coords.get(b * rank..(b + 1) * rank))
    });
    Ok(order)
}

/// Coordinate column `d` of the entries at `order`, as an array of `I`.
pub(super) fn gather_coords<I: NativeIndex>(
    coords: &[u64],
    rank: usize,
    d: usize,
    order: &[usize],
) -> Result<ArrayRef> {
    let column: Vec<I> = order
        .iter()
        .map(|&i| I::usize_as(coords.get(i * rank + d).copied().unwrap_or(0) as usize))
        .collect();
    primitive_array(
        data_type(ValueType::from_index_type(I::TYPE)),
        Buffer::from_vec(column),
        order.len(),
    )
}

/// The values of the entries at `order`.
pub(super) fn gather_values(
    values: &[u8],
    width: usize,
    order: &[usize],
    t: ValueType,
) -> Result<ArrayRef> {
    fn gather<const W: usize>(values: &[u8], order: &[usize]) -> Vec<u8> {
        let mut out = Vec::with_capacity(order.len() * W);
        for &i in order {
            let v: [u8; W] = values
                .get(i * W..(i + 1) * W)
                .and_then(|s| s.try_into().ok())
                .unwrap_or([0; W]);
            out.extend_from_slice(&v);
        }
        out
    }
    let bytes = match width {
        1 => gather::<1>(values, order),
        2 => gather::<2>(values, order),
        4 => gather::<4>(values, order),
        _ => gather::<8>(values, order),
    };
    primitive_array(data_type(t), Buffer::from_vec(bytes), order.len())
}
