//! Compressed sparse fiber (CSF) index: a tree with one level per dimension.

use crate::array::IndexArray;
use crate::error::{BufferId, ErrorKind, Result};
use crate::types::NativeIndex;

/// A CSF index. Level `k` stores dimension `axis_order[k]`; `indices[k]` holds the
/// coordinate of every node of level `k`, and `indptr[k]` delimits, for each node of level
/// `k`, its children in level `k + 1`. The leaves (last level) map one to one to the values.
/// As in Arrow, there is no pointer array for the root: level 0 is one sorted slice.
#[derive(Clone, Debug, PartialEq)]
pub struct CsfIndex {
    pub(crate) indptr: Vec<IndexArray>,
    pub(crate) indices: Vec<IndexArray>,
    pub(crate) axis_order: Vec<usize>,
}

impl CsfIndex {
    /// Builds an index (checked when it is put into a [`crate::SparseTensor`]).
    pub fn new(axis_order: Vec<usize>, indptr: Vec<IndexArray>, indices: Vec<IndexArray>) -> Self {
        CsfIndex {
            indptr,
            indices,
            axis_order,
        }
    }

    /// The `ndim - 1` indptr arrays.
    pub fn indptr(&self) -> &[IndexArray] {
        &self.indptr
    }

    /// The `ndim` indices arrays.
    pub fn indices(&self) -> &[IndexArray] {
        &self.indices
    }

    /// The dimension stored at each level.
    pub fn axis_order(&self) -> &[usize] {
        &self.axis_order
    }
}

/// Typed per-level slices.
pub(crate) struct Levels<'a, P, I> {
    pub indptr: Vec<&'a [P]>,
    pub indices: Vec<&'a [I]>,
}

pub(crate) fn levels<'a, P: NativeIndex, I: NativeIndex>(
    index: &'a CsfIndex,
) -> Result<Levels<'a, P, I>> {
    Ok(Levels {
        indptr: index
            .indptr
            .iter()
            .map(crate::sparse::typed_index::<P>)
            .collect::<Result<_>>()?,
        indices: index
            .indices
            .iter()
            .map(crate::sparse::typed_index::<I>)
            .collect::<Result<_>>()?,
    })
}

/// Visits every leaf depth-first: `f(coords, position)`.
pub(crate) fn visit(
    index: &CsfIndex,
    shape: &[usize],
    f: &mut dyn FnMut(&[usize], usize) -> Result<()>,
) -> Result<()> {
    crate::dispatch_index!(common_type(&index.indptr), P => {
        crate::dispatch_index!(common_type(&index.indices), I => {
            visit_typed::<P, I>(index, shape, f)
        })
    })
}

pub(crate) fn common_type(arrays: &[IndexArray]) -> crate::IndexType {
    arrays
        .first()
        .map_or(crate::IndexType::Int64, IndexArray::index_type)
}

fn visit_typed<P: NativeIndex, I: NativeIndex>(
    index: &CsfIndex,
    shape: &[usize],
    f: &mut dyn FnMut(&[usize], usize) -> Result<()>,
) -> Result<()> {
    let lv = levels::<P, I>(index)?;
    let n = lv.indices.len();
    if n == 0 {
        return Ok(());
    }
    // Every level's slices must cover the next level exactly once.
    for (level, ptr) in lv.indptr.iter().enumerate() {
        let child_len = lv.indices.get(level + 1).map_or(0, |s| s.len());
        crate::sparse::csx::check_ends(ptr, child_len, BufferId::CsfIndptr(level))?;
    }
    let order = &index.axis_order;
    let mut coords = vec![0usize; n];
    // Stack of (level, next position, end) cursors; visits are counted per level so that
    // overlapping slices in an unvalidated index cannot blow up the walk.
    let mut visited = vec![0usize; n];
    let root_len = lv.indices.first().map_or(0, |s| s.len());
    let mut stack: Vec<(usize, usize, usize)> = vec![(0, 0, root_len)];
    while let Some(top) = stack.last_mut() {
        let (level, pos, end) = *top;
        if pos == end {
            stack.pop();
            continue;
        }
        top.1 += 1;
        let dim = order.get(level).copied().unwrap_or(usize::MAX);
        let level_indices = lv.indices.get(level).copied().unwrap_or_default();
        let c = crate::sparse::check_coord(
            level_indices,
            pos,
            shape,
            dim,
            BufferId::CsfIndices(level),
        )?;
        if let Some(slot) = coords.get_mut(dim) {
            *slot = c;
        }
        let seen = visited.get_mut(level).map_or(usize::MAX, |v| {
            *v += 1;
            *v
        });
        if seen > level_indices.len() {
            return Err(ErrorKind::InvalidIndptr {
                buffer: BufferId::CsfIndptr(level.saturating_sub(1)),
                position: 0,
                value: 0,
                rule: "slices overlap (indptr must be non-decreasing)",
            }
            .into());
        }
        if level + 1 == n {
            f(&coords, pos)?;
        } else {
            let ptr = lv.indptr.get(level).copied().unwrap_or_default();
            let child_len = lv.indices.get(level + 1).map_or(0, |s| s.len());
            let (a, b) =
                crate::sparse::csx::slice_bounds(ptr, pos, child_len, BufferId::CsfIndptr(level))?;
            stack.push((level + 1, a, b));
        }
    }
    Ok(())
}

/// Position of the leaf stored at `coords` (per-level search honouring the axis order).
pub(crate) fn find(index: &CsfIndex, coords: &[usize], sorted: bool) -> Result<Vec<usize>> {
    crate::dispatch_index!(common_type(&index.indptr), P => {
        crate::dispatch_index!(common_type(&index.indices), I => {
            let lv = levels::<P, I>(index)?;
            let n = lv.indices.len();
            let (mut a, mut b) = (0usize, lv.indices.first().map_or(0, |s| s.len()));
            for level in 0..n {
                let dim = index.axis_order.get(level).copied().unwrap_or(0);
                let q = coords.get(dim).copied().unwrap_or(0) as i64;
                let slice = lv.indices.get(level).and_then(|s| s.get(a..b)).unwrap_or_default();
                let Some(k) = crate::sparse::search(slice, q, sorted).first().copied() else {
                    return Ok(Vec::new());
                };
                let p = a + k;
                if level + 1 == n {
                    return Ok(vec![p]);
                }
                let child_len = lv.indices.get(level + 1).map_or(0, |s| s.len());
                let ptr = lv.indptr.get(level).copied().unwrap_or_default();
                (a, b) = crate::sparse::csx::slice_bounds(ptr, p, child_len, BufferId::CsfIndptr(level))?;
            }
            Ok(Vec::new())
        })
    })
}
