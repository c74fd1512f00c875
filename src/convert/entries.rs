//! The common middle of every conversion: a list of stored entries (coordinates and
//! values) sorted in a known lexicographic dimension order, re-sorted by counting sorts and
//! turned into a COO, CSR/CSC or CSF index.
//!
//! Coordinates are held in a *work type* `W` (`i32` when every dimension fits, else `i64`),
//! one row of `ndim` coordinates per entry; the index arrays of the result are written in
//! the final index type `F`, chosen from the options and the actual sizes once they are
//! known.

use crate::array::IndexArray;
use crate::error::{fail, ErrorKind, Result};
use crate::parallel::alloc::{try_vec, try_with_capacity};
use crate::sparse::{CompressedAxis, CooIndex, CooOrder, CsfIndex, CsxIndex, SparseIndex};
use crate::types::{IndexType, NativeIndex, NativeValue};
use crate::{SparseFormat, SparseTensor};
use arrow_buffer::ArrowNativeType;
use arrow_buffer::Buffer;
use std::cmp::Ordering;

/// Runs `$body` with `$W` bound to the work coordinate type: `i64` when `$wide`, else `i32`.
macro_rules! dispatch_work {
    ($wide:expr, $W:ident => $body:expr) => {{
        if $wide {
            type $W = i64;
            $body
        } else {
            type $W = i32;
            $body
        }
    }};
}
pub(crate) use dispatch_work;

/// Whether coordinates of `shape` need the wide (`i64`) work type; fails when a coordinate
/// would not fit `i64` at all.
pub(crate) fn needs_wide(shape: &[usize]) -> Result<bool> {
    let max_coord = shape.iter().max().map_or(0, |&d| d.saturating_sub(1)) as u64;
    if max_coord > i64::MAX as u64 {
        return fail(ErrorKind::IndexTypeTooNarrow {
            role: "coordinates",
            index_type: IndexType::Int64,
            needed: max_coord,
            note: " (dimension too large to convert)",
        });
    }
    Ok(max_coord > i32::MAX as u64)
}

/// Stored entries: `coords` holds one row of `ndim` coordinates (in dimension order) per
/// value.
pub(crate) struct Entries<T, W> {
    pub ndim: usize,
    pub coords: Vec<W>,
    pub values: Vec<T>,
    /// `Some(order)`: the entries strictly increase lexicographically by the dimensions of
    /// `order` (dimensions of size 1 may be missing from it), so there are no duplicates.
    /// `None`: any order, duplicates possible.
    pub order: Option<Vec<usize>>,
}

/// `order` without the dimensions of size 1 (they never need sorting).
fn significant(order: &[usize], shape: &[usize]) -> Vec<usize> {
    order.iter().copied().filter(|&d| shape[d] > 1).collect()
}

impl<T: NativeValue, W: NativeIndex> Entries<T, W> {
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Sorts the entries lexicographically by the dimensions of `target` (a permutation of
    /// `0..ndim`), summing duplicates when the order was unknown.
    ///
    /// Least-significant-dimension-first counting sorts, one per dimension that is not
    /// already in place: when the entries are sorted by `p` and a suffix of `target` is a
    /// prefix of `p`, that suffix needs no pass. A dimension too large for a counting sort
    /// (more than `max(2 nnz, 65536)`) switches to one stable comparison sort.
    pub fn sort_to(&mut self, target: &[usize], shape: &[usize]) -> Result<()> {
        let q = significant(target, shape);
        let (skip, unknown) = match &self.order {
            Some(p) => {
                let p = significant(p, shape);
                let m = q.len();
                let j = (0..=m)
                    .find(|&j| p.len() >= m - j && q[j..] == p[..m - j])
                    .unwrap_or(m);
                (m - j, false)
            }
            None => (0, true),
        };
        let passes = &q[..q.len() - skip];
        let limit = (self.nnz().saturating_mul(2)).max(1 << 16);
        for &d in passes.iter().rev() {
            if shape[d] > limit {
                self.comparison_sort(&q)?;
                break;
            }
            self.counting_pass(d, shape[d])?;
        }
        if unknown {
            self.combine_duplicates();
        }
        self.order = Some(target.to_vec());
        Ok(())
    }

    /// Stable counting sort of the entries by coordinate `d` (of `size` values).
    fn counting_pass(&mut self, d: usize, size: usize) -> Result<()> {
        let n = self.ndim;
        let nnz = self.nnz();
        if nnz < 2 {
            return Ok(());
        }
        let mut start = try_vec(size + 1, 0usize, "a counting sort")?;
        for row in self.coords.chunks_exact(n) {
            start[row[d].as_usize() + 1] += 1;
        }
        let mut acc = 0;
        for s in start.iter_mut() {
            acc += *s;
            *s = acc;
        }
        let mut coords = try_vec(self.coords.len(), W::default(), "coordinates")?;
        let mut values = try_vec(nnz, T::ZERO, "values")?;
        match n {
            2 => scatter_rows::<T, W, 2>(
                &self.coords,
                &self.values,
                d,
                &mut start,
                &mut coords,
                &mut values,
            ),
            3 => scatter_rows::<T, W, 3>(
                &self.coords,
                &self.values,
                d,
                &mut start,
                &mut coords,
                &mut values,
            ),
            _ => {
                for (row, &v) in self.coords.chunks_exact(n).zip(&self.values) {
                    let slot = &mut start[row[d].as_usize()];
                    let k = *slot;
                    *slot += 1;
                    coords[k * n..(k + 1) * n].copy_from_slice(row);
                    values[k] = v;
                }
            }
        }
        self.coords = coords;
        self.values = values;
        Ok(())
    }

    /// Stable sort by all of `q` (for dimensions too large to count).
    fn comparison_sort(&mut self, q: &[usize]) -> Result<()> {
        let n = self.ndim;
        let c = &self.coords;
        let mut perm: Vec<usize> = try_with_capacity(self.nnz(), "a sort permutation")?;
        perm.extend(0..self.nnz());
        perm.sort_by(|&a, &b| {
            q.iter()
                .map(|&d| c[a * n + d].cmp(&c[b * n + d]))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        });
        let mut coords = try_with_capacity(c.len(), "coordinates")?;
        let mut values = try_with_capacity(perm.len(), "values")?;
        for &i in &perm {
            coords.extend_from_slice(&c[i * n..(i + 1) * n]);
            values.push(self.values[i]);
        }
        self.coords = coords;
        self.values = values;
        Ok(())
    }

    /// Sums runs of equal coordinates (the entries are sorted) in storage order.
    fn combine_duplicates(&mut self) {
        let n = self.ndim;
        let nnz = self.nnz();
        if nnz < 2 {
            return;
        }
        let mut w = 0usize;
        for i in 0..nnz {
            if w > 0 && self.coords[(w - 1) * n..w * n] == self.coords[i * n..(i + 1) * n] {
                self.values[w - 1] = self.values[w - 1].combine(self.values[i]);
            } else {
                if w != i {
                    self.coords.copy_within(i * n..(i + 1) * n, w * n);
                    self.values[w] = self.values[i];
                }
                w += 1;
            }
        }
        self.coords.truncate(w * n);
        self.values.truncate(w);
    }

    /// Removes the entries whose value is a zero (`NativeValue::is_zero`).
    pub fn drop_zeros(&mut self) {
        let n = self.ndim;
        let mut w = 0usize;
        for i in 0..self.nnz() {
            if !self.values[i].is_zero() {
                if w != i {
                    self.coords.copy_within(i * n..(i + 1) * n, w * n);
                    self.values[w] = self.values[i];
                }
                w += 1;
            }
        }
        self.coords.truncate(w * n);
        self.values.truncate(w);
    }

    /// Sorts the entries as `format` needs and builds the sparse tensor (validated).
    pub fn finish(
        mut self,
        format: SparseFormat,
        shape: &[usize],
        dim_names: &[String],
        index_type: Option<IndexType>,
        csf_order: &[usize],
    ) -> Result<SparseTensor> {
        let ndim = self.ndim;
        let index = match format {
            SparseFormat::Coo => {
                let identity: Vec<usize> = (0..ndim).collect();
                self.sort_to(&identity, shape)?;
                build_coo(self.coords, ndim, self.values.len(), shape, index_type)?
            }
            SparseFormat::Csr | SparseFormat::Csc => {
                check_rank(format, ndim)?;
                let axis = if format == SparseFormat::Csr {
                    CompressedAxis::Row
                } else {
                    CompressedAxis::Column
                };
                let o = axis.dim();
                if shape[0] > 1 && shape[1] > 1 && self.order.as_deref() == Some(&[1 - o, o]) {
                    // Sorted the other way round: one counting sort straight into the
                    // result (a transposition).
                    return self.finish_transposed(axis, shape, dim_names, index_type);
                }
                self.sort_to(&[o, 1 - o], shape)?;
                build_csx(&self.coords, axis, shape, index_type)?
            }
            SparseFormat::Csf => {
                check_rank(format, ndim)?;
                self.sort_to(csf_order, shape)?;
                build_csf(&self.coords, ndim, csf_order, shape, index_type)?
            }
        };
        let values = Buffer::from_vec(self.values);
        SparseTensor::from_converted_parts(T::TYPE, shape.to_vec(), values, index)?
            .with_dim_names(dim_names.iter().cloned())
    }
}

impl<T: NativeValue, W: NativeIndex> Entries<T, W> {
    /// CSR/CSC from matrix entries sorted by (other, compressed) dimension: counts per
    /// compressed coordinate, then every entry straight to its place in the result.
    fn finish_transposed(
        self,
        axis: CompressedAxis,
        shape: &[usize],
        dim_names: &[String],
        index_type: Option<IndexType>,
    ) -> Result<SparseTensor> {
        let o = axis.dim();
        let nnz = self.nnz();
        let outer = shape[o];
        let (bound, must_hold) = csx_bounds(shape, outer, nnz);
        let t = choose_type(index_type, bound, must_hold)?;
        let mut next = try_vec(outer + 1, 0usize, "indptr")?;
        for row in self.coords.chunks_exact(2) {
            next[row[o].as_usize() + 1] += 1;
        }
        for k in 0..outer {
            next[k + 1] += next[k];
        }
        let mut values = try_vec(nnz, T::ZERO, "values")?;
        let index = crate::dispatch_index!(t, F => {
            let indptr: Vec<F> = next.iter().map(|&p| F::usize_as(p)).collect();
            let mut indices = try_vec(nnz, F::default(), "indices")?;
            for (row, &v) in self.coords.chunks_exact(2).zip(&self.values) {
                let slot = &mut next[row[o].as_usize()];
                indices[*slot] = F::usize_as(row[1 - o].as_usize());
                values[*slot] = v;
                *slot += 1;
            }
            CsxIndex::from_arrays(axis, IndexArray::from_vec(indptr), IndexArray::from_vec(indices))
        });
        let values = Buffer::from_vec(values);
        SparseTensor::from_converted_parts(
            T::TYPE,
            shape.to_vec(),
            values,
            SparseIndex::Csx(index),
        )?
        .with_dim_names(dim_names.iter().cloned())
    }
}

/// The bound (sizes and lengths) and the largest stored value of a CSR/CSC index.
fn csx_bounds(shape: &[usize], outer: usize, nnz: usize) -> (u64, u64) {
    let bound = max_dim(shape).max(outer as u64 + 1).max(nnz as u64);
    let must_hold = max_dim(shape).saturating_sub(1).max(nnz as u64);
    (bound, must_hold)
}

/// Moves every entry to its slot (rows of a fixed `N` coordinates).
#[inline]
fn scatter_rows<T: Copy, W: NativeIndex, const N: usize>(
    src: &[W],
    vals: &[T],
    d: usize,
    start: &mut [usize],
    coords: &mut [W],
    values: &mut [T],
) {
    for (row, &v) in src.chunks_exact(N).zip(vals) {
        let slot = &mut start[row[d].as_usize()];
        let k = *slot;
        *slot += 1;
        coords[k * N..(k + 1) * N].copy_from_slice(row);
        values[k] = v;
    }
}

/// Refuses a CSR or CSC result whose indptr (`shape[k] + 1` entries, `k` the compressed
/// dimension) would be longer than both [`Limits::max_index_len`](crate::Limits::max_index_len)
/// and `backed + 1`, where `backed` is what the input holds (stored values or elements, the
/// length of its own index arrays): that much memory is not a question of the input's
/// size but of its claimed shape. Other layouts allocate in proportion to the stored
/// values only. Run before anything is allocated.
pub(crate) fn check_index_len(
    format: SparseFormat,
    shape: &[usize],
    backed: usize,
    limits: &crate::Limits,
) -> Result<()> {
    let outer = match (format, shape) {
        (SparseFormat::Csr, [rows, _]) => *rows,
        (SparseFormat::Csc, [_, cols]) => *cols,
        _ => return Ok(()),
    };
    let len = outer.saturating_add(1);
    if len > limits.max_index_len && len > backed.saturating_add(1) {
        return fail(ErrorKind::LimitExceeded {
            what: "indptr length of the CSR/CSC result (shape[k] + 1, longer than the input backs; Limits::max_index_len)",
            value: len as u64,
            limit: limits.max_index_len as u64,
        });
    }
    Ok(())
}

/// CSR and CSC need rank 2, CSF rank 2 or more.
pub(crate) fn check_rank(format: SparseFormat, ndim: usize) -> Result<()> {
    let (ok, layout, needed) = match format {
        SparseFormat::Coo => (true, "COO", "any rank"),
        SparseFormat::Csr | SparseFormat::Csc => (ndim == 2, "CSR/CSC", "rank 2"),
        SparseFormat::Csf => (ndim >= 2, "CSF", "rank 2 or more"),
    };
    if !ok {
        return fail(ErrorKind::InvalidRank {
            layout,
            needed,
            rank: ndim,
        });
    }
    Ok(())
}

/// The index type of a result: the explicit one when it holds `must_hold` (the largest
/// value the arrays store), else the narrowest Arrow-readable type holding `bound` (every
/// dimension size, count and array length).
pub(crate) fn choose_type(
    explicit: Option<IndexType>,
    bound: u64,
    must_hold: u64,
) -> Result<IndexType> {
    match explicit {
        Some(t) if t.max_value() >= must_hold => Ok(t),
        Some(t) => fail(ErrorKind::IndexTypeTooNarrow {
            role: "requested index",
            index_type: t,
            needed: must_hold,
            note: " (the result's coordinates and counts)",
        }),
        None if bound > i64::MAX as u64 => fail(ErrorKind::IndexTypeTooNarrow {
            role: "index",
            index_type: IndexType::Int64,
            needed: bound,
            note: "",
        }),
        None => Ok(IndexType::narrowest_for(bound)),
    }
}

fn max_dim(shape: &[usize]) -> u64 {
    shape.iter().max().copied().unwrap_or(0) as u64
}

/// Converts a vector of work coordinates to index type `F`, moving it when the types
/// agree. Every value fits (checked by [`choose_type`]).
fn into_index_array<W: NativeIndex>(v: Vec<W>, t: IndexType) -> IndexArray {
    if t == W::TYPE {
        return IndexArray::from_vec(v);
    }
    crate::dispatch_index!(t, F => IndexArray::from_vec(
        v.iter().map(|x| F::usize_as(x.as_usize())).collect::<Vec<F>>()
    ))
}

/// A canonical row-major COO index from coordinates sorted row-major without duplicates.
fn build_coo<W: NativeIndex>(
    coords: Vec<W>,
    ndim: usize,
    nnz: usize,
    shape: &[usize],
    explicit: Option<IndexType>,
) -> Result<SparseIndex> {
    let bound = max_dim(shape).max(nnz as u64).max(ndim as u64);
    let t = choose_type(explicit, bound, max_dim(shape).saturating_sub(1))?;
    Ok(SparseIndex::Coo(CooIndex {
        indices: into_index_array(coords, t),
        order: CooOrder::RowMajor,
        ndim,
        nnz,
        // Sorted and without duplicates by construction (strict validation re-checks).
        is_canonical: true,
    }))
}

/// A CSR/CSC index from rank-2 coordinates sorted by (compressed, other) dimension.
fn build_csx<W: NativeIndex>(
    coords: &[W],
    axis: CompressedAxis,
    shape: &[usize],
    explicit: Option<IndexType>,
) -> Result<SparseIndex> {
    let o = axis.dim();
    let nnz = coords.len() / 2;
    let outer = shape[o];
    let bound = max_dim(shape).max(outer as u64 + 1).max(nnz as u64);
    let must_hold = max_dim(shape).saturating_sub(1).max(nnz as u64);
    let t = choose_type(explicit, bound, must_hold)?;
    crate::dispatch_index!(t, F => {
        let mut indptr: Vec<F> = try_with_capacity(outer + 1, "indptr")?;
        let mut indices: Vec<F> = try_with_capacity(nnz, "indices")?;
        indptr.push(F::usize_as(0));
        for (k, row) in coords.chunks_exact(2).enumerate() {
            let r = row[o].as_usize();
            while indptr.len() <= r {
                indptr.push(F::usize_as(k));
            }
            indices.push(F::usize_as(row[1 - o].as_usize()));
        }
        indptr.resize(outer + 1, F::usize_as(nnz));
        Ok(SparseIndex::Csx(CsxIndex::from_arrays(
            axis,
            IndexArray::from_vec(indptr),
            IndexArray::from_vec(indices),
        )))
    })
}

/// The first level (in `order`) at which two coordinate rows differ (without a branch
/// per level: the count of leading equal levels).
#[inline]
fn first_difference<W: PartialEq>(prev: &[W], row: &[W], order: &[usize]) -> usize {
    let mut equal = true;
    let mut level = 0;
    for &d in order {
        equal &= prev[d] == row[d];
        level += usize::from(equal);
    }
    level
}

/// A CSF index from coordinates sorted by `order` without duplicates.
fn build_csf<W: NativeIndex>(
    coords: &[W],
    ndim: usize,
    order: &[usize],
    shape: &[usize],
    explicit: Option<IndexType>,
) -> Result<SparseIndex> {
    let nnz = coords.len() / ndim;
    // Pass 1: the level at which each entry starts a new node (the first level, in
    // `order`, whose coordinate differs from the entry before), and the number of nodes
    // of every level.
    let mut first_level: Vec<u32> = try_vec(nnz, 0, "CSF levels")?;
    let next_rows = coords.get(ndim..).unwrap_or_default().chunks_exact(ndim);
    for (slot, pair) in first_level
        .iter_mut()
        .skip(1)
        .zip(coords.chunks_exact(ndim).zip(next_rows))
    {
        *slot = first_difference(pair.0, pair.1, order) as u32;
    }
    let mut starts = vec![0usize; ndim + 1];
    for &l in &first_level {
        starts[l as usize] += 1;
    }
    let mut nodes = vec![0usize; ndim];
    let mut acc = 0;
    for (k, n) in nodes.iter_mut().enumerate() {
        acc += starts[k];
        *n = acc;
    }
    let longest_ptr = nodes[..ndim - 1].iter().max().map_or(0, |&n| n + 1) as u64;
    let bound = max_dim(shape).max(nnz as u64).max(longest_ptr);
    let must_hold = max_dim(shape).saturating_sub(1).max(nnz as u64);
    let t = choose_type(explicit, bound, must_hold)?;
    crate::dispatch_index!(t, F => {
        // Pass 2, level by level without a branch per entry: an entry starts a node of
        // level k when its first level is at most k; the node's children in level k + 1
        // start at the number of level k + 1 nodes before the entry.
        let last = ndim - 1;
        let mut indices: Vec<Vec<F>> = Vec::with_capacity(ndim);
        let mut indptr: Vec<Vec<F>> = Vec::with_capacity(last);
        for k in 0..last {
            let d = order[k];
            let level = k as u32;
            // One slot of slack: every entry writes, only node starts advance.
            let mut idx = try_vec(nodes[k] + 1, F::default(), "CSF indices")?;
            let mut ptr = try_vec(nodes[k] + 1, F::default(), "CSF indptr")?;
            let (mut count, mut below) = (0usize, 0usize);
            for (row, &l) in coords.chunks_exact(ndim).zip(&first_level) {
                idx[count] = F::usize_as(row[d].as_usize());
                ptr[count] = F::usize_as(below);
                count += usize::from(l <= level);
                below += usize::from(l <= level + 1);
            }
            ptr[count] = F::usize_as(below);
            idx.truncate(count);
            indices.push(idx);
            indptr.push(ptr);
        }
        let d = order[last];
        let mut leaves: Vec<F> = try_with_capacity(nnz, "CSF indices")?;
        leaves.extend(coords.chunks_exact(ndim).map(|row| F::usize_as(row[d].as_usize())));
        indices.push(leaves);
        Ok(SparseIndex::Csf(CsfIndex::from_arrays(
            order.to_vec(),
            indptr.into_iter().map(IndexArray::from_vec).collect(),
            indices.into_iter().map(IndexArray::from_vec).collect(),
        )))
    })
}
