//! Compressed sparse fiber (CSF) index: a tree with one level per dimension.

use crate::array::IndexArray;
use crate::error::{fail, BufferId, ErrorKind, Result};
use crate::types::NativeIndex;
use crate::validate::indptr::{self, check_ends, slice_bounds};
use crate::validate::kernels::{self, count};

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
    /// Builds an index. Fails when `axis_order` is not a permutation of its own positions;
    /// the array counts and contents are checked against a shape and nnz when the index is
    /// put into a [`crate::SparseTensor`].
    pub fn new(
        axis_order: Vec<usize>,
        indptr: Vec<IndexArray>,
        indices: Vec<IndexArray>,
    ) -> Result<Self> {
        let mut seen = vec![false; axis_order.len()];
        for &a in &axis_order {
            match seen.get_mut(a) {
                Some(s) if !*s => *s = true,
                _ => {
                    return fail(ErrorKind::NotAPermutation(
                        axis_order.iter().map(|&v| v as i64).collect(),
                    ))
                }
            }
        }
        Ok(Self::from_arrays(axis_order, indptr, indices))
    }

    /// The index of these arrays, unchecked (the decoder and the converters check the
    /// structure against the shape themselves).
    pub(crate) fn from_arrays(
        axis_order: Vec<usize>,
        indptr: Vec<IndexArray>,
        indices: Vec<IndexArray>,
    ) -> Self {
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

/// Typed per-level slices of a [`CsfIndex`].
pub(crate) struct Levels<'a, P, I> {
    /// `indptr[k]` delimits the children in level `k + 1` of each node of level `k`.
    pub indptr: Vec<&'a [P]>,
    /// `indices[k]` holds the coordinate of every node of level `k`.
    pub indices: Vec<&'a [I]>,
}

/// Views the arrays of `index` as typed slices (indptr as `P`, indices as `I`), failing
/// with [`ErrorKind::TypeMismatch`] on an array of another type.
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

/// The index type of a list of arrays: that of the first one (`Int64` for none). The
/// structure check makes sure the others share it.
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
        check_ends(ptr, child_len, BufferId::CsfIndptr(level))?;
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
            let (a, b) = slice_bounds(ptr, pos, child_len, BufferId::CsfIndptr(level))?;
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
                (a, b) = slice_bounds(ptr, p, child_len, BufferId::CsfIndptr(level))?;
            }
            Ok(Vec::new())
        })
    })
}

// Validation rules of the layout (dispatched by `sparse::check_structure` and
// `sparse::check_contents`), built from the kernels of `crate::validate`.

/// Structure: rank 2 or more, one level per dimension with the axis order a permutation,
/// the arrays of each kind of one type, an indptr entry per node plus one, a leaf per
/// stored value.
pub(crate) fn check_structure(c: &CsfIndex, ndim: usize, nnz: usize) -> Result<()> {
    if ndim < 2 {
        return fail(ErrorKind::InvalidRank {
            layout: "CSF",
            needed: "rank 2 or more",
            rank: ndim,
        });
    }
    count("CSF axisOrder entries (ndim)", ndim, c.axis_order.len())?;
    count("CSF indptr arrays (ndim - 1)", ndim - 1, c.indptr.len())?;
    count("CSF indices arrays (ndim)", ndim, c.indices.len())?;
    let mut seen = vec![false; ndim];
    for &a in &c.axis_order {
        match seen.get_mut(a) {
            Some(s) if !*s => *s = true,
            _ => {
                return fail(ErrorKind::NotAPermutation(
                    c.axis_order.iter().map(|&v| v as i64).collect(),
                ))
            }
        }
    }
    same_type("CSF indptr", &c.indptr)?;
    same_type("CSF indices", &c.indices)?;
    for (k, ptr) in c.indptr.iter().enumerate() {
        let parents = c.indices.get(k).map_or(0, IndexArray::len);
        count(
            format!("CSF indptr entries of level {k} (nodes of level {k} + 1)"),
            parents + 1,
            ptr.len(),
        )?;
    }
    let leaves = c.indices.last().map_or(0, IndexArray::len);
    count("CSF leaf count (nnz)", nnz, leaves)
}

/// Fails with [`ErrorKind::TypeMismatch`] unless every array has the type of the first.
fn same_type(what: &str, arrays: &[IndexArray]) -> Result<()> {
    let t = common_type(arrays);
    if let Some(a) = arrays.iter().find(|a| a.index_type() != t) {
        return fail(ErrorKind::TypeMismatch {
            expected: format!("{what} arrays all of type {t}"),
            found: a.index_type().to_string(),
        });
    }
    Ok(())
}

/// Contents, in this order: every coordinate of every level below its dimension's size
/// (level by level), the indptr rules of every level, siblings strictly increasing (the
/// root level, then each level's slices). Assumes [`check_structure`] passed.
pub(crate) fn check_contents(c: &CsfIndex, shape: &[usize]) -> Result<()> {
    crate::dispatch_index!(common_type(&c.indptr), P => {
        crate::dispatch_index!(common_type(&c.indices), I => check_contents_typed::<P, I>(c, shape))
    })
}

/// [`check_contents`] for the index types the caller dispatched on.
fn check_contents_typed<P: NativeIndex, I: NativeIndex>(
    c: &CsfIndex,
    shape: &[usize],
) -> Result<()> {
    let lv = levels::<P, I>(c)?;
    // Per level, in one pass: in bounds, non-increasing pairs, those at the boundaries of
    // the level's slices (level k + 1 is sliced by indptr[k]; the root is one slice).
    let mut scans = Vec::with_capacity(lv.indices.len());
    for (level, s) in lv.indices.iter().enumerate() {
        let dim = c.axis_order.get(level).copied().unwrap_or(usize::MAX);
        let bound = kernels::dim_size(shape, dim);
        let p = level
            .checked_sub(1)
            .and_then(|k| lv.indptr.get(k))
            .copied()
            .unwrap_or_default();
        let scan = kernels::scan_values(s, bound as u64, p);
        if !scan.in_bounds {
            kernels::check_bounds(s, bound, dim, BufferId::CsfIndices(level))?;
        }
        scans.push(scan);
    }
    for (level, p) in lv.indptr.iter().enumerate() {
        let children = lv.indices.get(level + 1).map_or(0, |s| s.len());
        indptr::check_indptr(p, children, BufferId::CsfIndptr(level))?;
    }
    let rule = "sibling coordinates must strictly increase";
    // The root level is one slice (no indptr): check it directly, since its length need not
    // fit in the indptr type.
    if let Some(k) = lv
        .indices
        .first()
        .filter(|_| scans.first().is_some_and(|scan| scan.pairs > 0))
        .and_then(|s| kernels::first_not_increasing(s))
    {
        return fail(ErrorKind::NotIncreasing {
            buffer: BufferId::CsfIndices(0),
            position: (k + 1) as u64,
            rule,
        });
    }
    // Level k + 1 is sliced by indptr[k].
    for (level, p) in lv.indptr.iter().enumerate() {
        kernels::check_sorted_slices(
            p,
            lv.indices.get(level + 1).copied().unwrap_or_default(),
            scans.get(level + 1).unwrap_or(&kernels::Scan::EMPTY),
            BufferId::CsfIndices(level + 1),
            rule,
        )?;
    }
    Ok(())
}
