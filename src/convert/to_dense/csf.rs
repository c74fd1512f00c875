//! CSF to dense: the row-major offsets of the nodes above the leaves, the linear offsets
//! of the leaves (any axis order), and the direct fill of the identity order.

use super::fill::Fill;
use crate::error::Result;
use crate::parallel::alloc::try_with_capacity;
use crate::sparse::typed_index;
use crate::tensor::row_major_strides;
use crate::types::NativeValue;
use crate::CsfIndex;
use arrow_buffer::ArrowNativeType;

/// The row-major offsets of the nodes of the level above the leaves, and (as `usize`) the
/// indptr array that gives each of them its leaves.
pub(super) fn parents(c: &CsfIndex, shape: &[usize]) -> Result<(Vec<usize>, Vec<usize>)> {
    let rs = row_major_strides(shape, 1);
    let ndim = shape.len();
    let order = c.axis_order();
    let ptr_type = crate::sparse::csf::common_type(c.indptr());
    let idx_type = crate::sparse::csf::common_type(c.indices());
    crate::dispatch_index!(ptr_type, P => crate::dispatch_index!(idx_type, I => {
        let ptrs: Vec<&[P]> = c.indptr().iter().map(typed_index::<P>).collect::<Result<_>>()?;
        let idxs: Vec<&[I]> = c.indices().iter().map(typed_index::<I>).collect::<Result<_>>()?;
        // Offsets of the nodes of each level above the leaves, top down.
        let mut parents: Vec<usize> =
            idxs[0].iter().map(|&v| v.as_usize() * rs[order[0]]).collect();
        for level in 1..ndim - 1 {
            let st = rs[order[level]];
            let mut nodes = try_with_capacity(idxs[level].len(), "CSF node offsets")?;
            for (w, &base) in ptrs[level - 1].windows(2).zip(&parents) {
                let children = &idxs[level][w[0].as_usize()..w[1].as_usize()];
                nodes.extend(children.iter().map(|&v| base + v.as_usize() * st));
            }
            parents = nodes;
        }
        let starts = ptrs[ndim - 2].iter().map(|p| p.as_usize()).collect();
        Ok((parents, starts))
    }))
}

/// Calls `f(offsets, first)` with the row-major linear offsets of the stored values
/// `first..first + offsets.len()` of `c` (shape `shape`), at most `step` at a time, in
/// storage order; `block` is the buffer for them.
pub(super) fn offsets(
    c: &CsfIndex,
    shape: &[usize],
    step: usize,
    block: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize], usize),
) -> Result<()> {
    let (parents, starts) = parents(c, shape)?;
    let rs = row_major_strides(shape, 1);
    let st = rs[c.axis_order()[shape.len() - 1]];
    let idx_type = crate::sparse::csf::common_type(c.indices());
    crate::dispatch_index!(idx_type, I => {
        let leaves = c.indices().last().map(typed_index::<I>).transpose()?.unwrap_or_default();
        let mut first = 0;
        for (w, &base) in starts.windows(2).zip(&parents) {
            for &v in &leaves[w[0]..w[1]] {
                block.push(base + v.as_usize() * st);
                if block.len() == step {
                    f(block, first);
                    first += step;
                    block.clear();
                }
            }
        }
        f(block, first);
    });
    Ok(())
}

/// Identity-order CSF (the leaves come row-major) in one loop from index to output.
pub(super) fn put_sorted<T: NativeValue>(
    c: &CsfIndex,
    shape: &[usize],
    values: &[T],
    fill: &mut Fill<T>,
) -> Result<()> {
    let (parents, starts) = parents(c, shape)?;
    let idx_type = crate::sparse::csf::common_type(c.indices());
    crate::dispatch_index!(idx_type, I => {
        let leaves = c.indices().last().map(typed_index::<I>).transpose()?.unwrap_or_default();
        for (w, &base) in starts.windows(2).zip(&parents) {
            let (a, b) = (w[0], w[1]);
            fill.put_rows(leaves[a..b].chunks_exact(1), &values[a..b], |j| {
                base + j[0].as_usize()
            });
        }
    });
    Ok(())
}
