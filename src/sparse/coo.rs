//! Coordinate (COO) index.

use crate::array::IndexArray;
use crate::error::{fail, BufferId, ErrorKind, Result};
use crate::types::NativeIndex;
use crate::validate::kernels::{self, count};

/// How the nnz x ndim coordinate matrix is laid out in its buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CooOrder {
    /// One row of `ndim` coordinates per stored value (Arrow's usual layout).
    #[default]
    RowMajor,
    /// One column of `nnz` coordinates per dimension (what Arrow 0.15 wrote).
    ColumnMajor,
}

/// A COO index: the coordinates of every stored value.
#[derive(Clone, Debug)]
pub struct CooIndex {
    pub(crate) indices: IndexArray,
    pub(crate) order: CooOrder,
    pub(crate) ndim: usize,
    pub(crate) nnz: usize,
    pub(crate) is_canonical: bool,
}

impl PartialEq for CooIndex {
    /// Same coordinates in the same byte layout. A matrix with at most one entry or at most
    /// one dimension is row-major and column-major at once (the same bytes; a message cannot
    /// tell them apart, e.g. nnz = 0 is always written with strides `[w, w]`), so its
    /// [`CooOrder`] is not compared.
    fn eq(&self, other: &Self) -> bool {
        let same_layout = self.order == other.order || self.nnz <= 1 || self.ndim <= 1;
        self.indices == other.indices
            && self.ndim == other.ndim
            && self.nnz == other.nnz
            && self.is_canonical == other.is_canonical
            && same_layout
    }
}

impl CooIndex {
    /// A row-major coordinate matrix of `ndim` columns; the canonical flag is computed
    /// (true when the rows are strictly increasing in row-major order).
    pub fn new(indices: IndexArray, ndim: usize) -> Result<Self> {
        Self::with_order(indices, ndim, CooOrder::RowMajor)
    }

    /// A coordinate matrix with an explicit layout; the canonical flag is computed.
    pub fn with_order(indices: IndexArray, ndim: usize, order: CooOrder) -> Result<Self> {
        let mut index = Self::with_flag(indices, ndim, order, false)?;
        index.is_canonical = index.first_unsorted().is_none();
        Ok(index)
    }

    /// A coordinate matrix carrying the canonical flag as given (a decoder's flag, checked
    /// by strict validation): O(1), the coordinates are not read.
    pub(crate) fn with_flag(
        indices: IndexArray,
        ndim: usize,
        order: CooOrder,
        is_canonical: bool,
    ) -> Result<Self> {
        if ndim == 0 && !indices.is_empty() {
            return fail(ErrorKind::CountMismatch {
                what: "COO coordinates of a rank-0 index".into(),
                expected: 0,
                found: indices.len() as u64,
            });
        }
        if ndim != 0 && !indices.len().is_multiple_of(ndim) {
            return fail(ErrorKind::CountMismatch {
                what: format!("COO coordinates (a multiple of ndim = {ndim})"),
                expected: (indices.len() / ndim * ndim) as u64,
                found: indices.len() as u64,
            });
        }
        let nnz = indices.len().checked_div(ndim).unwrap_or(0);
        Ok(CooIndex {
            indices,
            order,
            ndim,
            nnz,
            is_canonical,
        })
    }

    /// Sets the canonical flag as a message would carry it (checked by strict validation).
    pub(crate) fn with_canonical_flag(mut self, flag: bool) -> Self {
        self.is_canonical = flag;
        self
    }

    /// The coordinate matrix.
    pub fn indices(&self) -> &IndexArray {
        &self.indices
    }

    /// Layout of the coordinate matrix.
    pub fn order(&self) -> CooOrder {
        self.order
    }

    /// Whether the coordinates are sorted row-major without duplicates (as flagged).
    pub fn is_canonical(&self) -> bool {
        self.is_canonical
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.ndim
    }

    /// Number of stored coordinates.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// A rank-0 tensor has no coordinates to count its entries: take nnz from the values.
    /// The canonical flag is recomputed only when nnz changes, so that a flag read from a
    /// message (set after the decoder called this with the message's nnz) is kept and
    /// checked.
    pub(crate) fn set_rank0_nnz(&mut self, nnz: usize) {
        if self.ndim == 0 && self.nnz != nnz {
            self.nnz = nnz;
            self.is_canonical = nnz <= 1;
        }
    }

    /// Position of coordinate `d` of entry `i` within the matrix buffer.
    #[inline]
    pub(crate) fn slot(&self, i: usize, d: usize) -> usize {
        match self.order {
            CooOrder::RowMajor => i * self.ndim + d,
            CooOrder::ColumnMajor => d * self.nnz() + i,
        }
    }

    /// Coordinate `d` of entry `i` (as `i64`).
    pub fn coordinate(&self, i: usize, d: usize) -> Option<i64> {
        if i >= self.nnz() || d >= self.ndim {
            return None;
        }
        self.indices.get(self.slot(i, d))
    }

    /// The same coordinates as a row-major matrix: `self` (a cheap clone, buffers shared)
    /// when it is row-major already or cannot be told apart from one (at most one entry or
    /// one dimension), else a transposed copy (one pass over the matrix, at memory speed).
    /// The canonical flag is kept.
    ///
    /// ```
    /// use arrow_tensor_ipc::{CooIndex, CooOrder, IndexArray};
    /// // Entries (0, 1) and (2, 3), stored one column per dimension.
    /// let c = CooIndex::with_order(IndexArray::from_vec(vec![0i32, 2, 1, 3]), 2, CooOrder::ColumnMajor)?;
    /// let r = c.to_row_major();
    /// assert_eq!(r.order(), CooOrder::RowMajor);
    /// assert_eq!(r.indices().values::<i32>().unwrap(), &[0, 1, 2, 3]);
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn to_row_major(&self) -> CooIndex {
        if self.order == CooOrder::RowMajor || self.nnz <= 1 || self.ndim <= 1 {
            return CooIndex {
                order: CooOrder::RowMajor,
                ..self.clone()
            };
        }
        let (nnz, ndim) = (self.nnz, self.ndim);
        let indices = crate::dispatch_index!(self.indices.index_type(), I => {
            let src = self.indices.values::<I>().unwrap_or_default();
            let mut dst = vec![I::default(); nnz * ndim];
            columns_to_rows(src, nnz, ndim, &mut dst);
            IndexArray::from_vec(dst)
        });
        CooIndex {
            indices,
            order: CooOrder::RowMajor,
            ndim,
            nnz,
            is_canonical: self.is_canonical,
        }
    }

    /// Whether `other` holds the same coordinates entry by entry (same index type, rank,
    /// nnz and canonical flag), whatever the order of either matrix.
    pub fn same_coordinates(&self, other: &CooIndex) -> bool {
        if self.ndim != other.ndim
            || self.nnz != other.nnz
            || self.is_canonical != other.is_canonical
            || self.indices.index_type() != other.indices.index_type()
        {
            return false;
        }
        if self == other {
            return true;
        }
        if self.order == other.order || self.indices.len() != other.indices.len() {
            return false;
        }
        self.to_row_major().indices == other.to_row_major().indices
    }

    /// Index of the first entry that is not strictly greater (row-major) than its
    /// predecessor, `None` when the entries are strictly increasing.
    pub(crate) fn first_unsorted(&self) -> Option<usize> {
        crate::dispatch_index!(self.indices.index_type(), I => {
            let s = self.indices.values::<I>()?;
            first_unsorted::<I>(s, self.nnz(), self.ndim, self.order)
        })
    }

    /// [`CooIndex::find_duplicate`], or `None` at once for an index flagged canonical
    /// (strictly increasing rows, once strict validation has confirmed the flag).
    pub(crate) fn find_duplicate_unless_canonical(&self) -> Option<(usize, usize)> {
        if self.is_canonical {
            return None;
        }
        self.find_duplicate()
    }

    /// Finds the first pair of entries with equal coordinates.
    pub(crate) fn find_duplicate(&self) -> Option<(usize, usize)> {
        let nnz = self.nnz();
        let mut rows: Vec<usize> = (0..nnz).collect();
        let key = |i: usize| -> Vec<i64> {
            (0..self.ndim)
                .map(|d| self.indices.get(self.slot(i, d)).unwrap_or(i64::MIN))
                .collect()
        };
        rows.sort_by_cached_key(|&i| key(i));
        rows.windows(2).find_map(|w| match *w {
            [a, b] if key(a) == key(b) => Some((a.min(b), a.max(b))),
            _ => None,
        })
    }
}

/// Writes the row-major `nnz x ndim` matrix whose column-major form (`ndim` columns of
/// `nnz`) is `src` into `dst` (both `nnz * ndim` long; a shorter one bounds the copy).
///
/// Ranks 2 to 8 interleave their columns in one pass (a loop per rank, unrolled over the
/// columns); higher ranks go in blocks of rows small enough for the block of `dst` to stay
/// in cache while each column's run is written into it.
pub(crate) fn columns_to_rows<I: Copy>(src: &[I], nnz: usize, ndim: usize, dst: &mut [I]) {
    /// Rows per block of the general case.
    const BLOCK_ROWS: usize = 512;
    if nnz == 0 || ndim == 0 {
        return;
    }
    let mut columns = src.chunks_exact(nnz);
    match (ndim, columns.next(), columns.next(), columns.next()) {
        (1, Some(a), ..) => {
            for (x, &v) in dst.iter_mut().zip(a) {
                *x = v;
            }
        }
        (2, Some(a), Some(b), _) => {
            for (row, (&x, &y)) in dst.chunks_exact_mut(2).zip(a.iter().zip(b)) {
                if let [p, q] = row {
                    (*p, *q) = (x, y);
                }
            }
        }
        (3, Some(a), Some(b), Some(c)) => {
            for (row, (&x, (&y, &z))) in dst.chunks_exact_mut(3).zip(a.iter().zip(b.iter().zip(c)))
            {
                if let [p, q, r] = row {
                    (*p, *q, *r) = (x, y, z);
                }
            }
        }
        (4, ..) => interleave::<I, 4>(src, nnz, dst),
        (5, ..) => interleave::<I, 5>(src, nnz, dst),
        (6, ..) => interleave::<I, 6>(src, nnz, dst),
        (7, ..) => interleave::<I, 7>(src, nnz, dst),
        (8, ..) => interleave::<I, 8>(src, nnz, dst),
        _ => {
            let columns: Vec<&[I]> = src.chunks_exact(nnz).take(ndim).collect();
            for (b, block) in dst.chunks_mut(BLOCK_ROWS * ndim).enumerate() {
                let first = b * BLOCK_ROWS;
                for (d, col) in columns.iter().enumerate() {
                    let run = col.get(first..).unwrap_or_default();
                    for (x, &v) in block.iter_mut().skip(d).step_by(ndim).zip(run) {
                        *x = v;
                    }
                }
            }
        }
    }
}

/// [`columns_to_rows`] for rank `N`: one pass over the rows of `dst`, each filled from the
/// `N` columns of `src`.
fn interleave<I: Copy, const N: usize>(src: &[I], nnz: usize, dst: &mut [I]) {
    let columns: [&[I]; N] =
        std::array::from_fn(|d| src.get(d * nnz..(d + 1) * nnz).unwrap_or_default());
    for (k, row) in dst.chunks_exact_mut(N).take(nnz).enumerate() {
        for (x, col) in row.iter_mut().zip(&columns) {
            if let Some(&v) = col.get(k) {
                *x = v;
            }
        }
    }
}

/// Generic core of [`CooIndex::first_unsorted`].
pub(crate) fn first_unsorted<I: NativeIndex>(
    s: &[I],
    nnz: usize,
    ndim: usize,
    order: CooOrder,
) -> Option<usize> {
    match order {
        // Rank 0: every entry is the one cell, so a second entry is a duplicate.
        _ if ndim == 0 => (nnz > 1).then_some(1),
        CooOrder::RowMajor => {
            let rows = s.chunks_exact(ndim).take(nnz);
            rows.clone()
                .zip(rows.skip(1))
                .position(|(a, b)| a >= b)
                .map(|k| k + 1)
        }
        CooOrder::ColumnMajor => {
            let columns: Vec<&[I]> = s.chunks_exact(nnz.max(1)).take(ndim).collect();
            (1..nnz).find(|&i| {
                for col in &columns {
                    if let [.., a, b] = col.get(..=i).unwrap_or_default() {
                        if a != b {
                            return a > b;
                        }
                    }
                }
                true
            })
        }
    }
}

/// Visits every entry: `f(coords, position)`. Out-of-range coordinates are errors.
pub(crate) fn visit(
    index: &CooIndex,
    shape: &[usize],
    f: &mut dyn FnMut(&[usize], usize) -> Result<()>,
) -> Result<()> {
    crate::dispatch_index!(index.indices.index_type(), I => {
        let s = crate::sparse::typed_index::<I>(&index.indices)?;
        let mut coords = vec![0usize; index.ndim];
        for i in 0..index.nnz() {
            for (d, c) in coords.iter_mut().enumerate() {
                let slot = index.slot(i, d);
                *c = crate::sparse::check_coord(s, slot, shape, d, BufferId::CooIndices)?;
            }
            f(&coords, i)?;
        }
        Ok(())
    })
}

/// Positions of the entries stored at `coords` (binary search when `sorted` is trusted).
pub(crate) fn find(index: &CooIndex, coords: &[usize], sorted: bool) -> Vec<usize> {
    crate::dispatch_index!(index.indices.index_type(), I => {
        let Some(s) = index.indices.values::<I>() else { return Vec::new() };
        let matches = |i: usize| -> std::cmp::Ordering {
            for (d, &c) in coords.iter().enumerate() {
                let v = s.get(index.slot(i, d)).map_or(i64::MIN, |v| v.as_index());
                match v.cmp(&(c as i64)) {
                    std::cmp::Ordering::Equal => continue,
                    o => return o,
                }
            }
            std::cmp::Ordering::Equal
        };
        let nnz = index.nnz();
        if sorted {
            // partition_point over entry numbers.
            let (mut lo, mut hi) = (0usize, nnz);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if matches(mid) == std::cmp::Ordering::Less { lo = mid + 1 } else { hi = mid }
            }
            if lo < nnz && matches(lo) == std::cmp::Ordering::Equal { vec![lo] } else { Vec::new() }
        } else {
            (0..nnz).filter(|&i| matches(i) == std::cmp::Ordering::Equal).collect()
        }
    })
}

// Validation rules of the layout (dispatched by `sparse::check_structure` and
// `sparse::check_contents`), built from the kernels of `crate::validate`.

/// Structure: the index has one column per dimension and one row per stored value.
pub(crate) fn check_structure(c: &CooIndex, ndim: usize, nnz: usize) -> Result<()> {
    count("COO index dimensions", ndim, c.ndim)?;
    count("COO entries (nnz)", nnz, c.nnz)?;
    let cells = nnz.checked_mul(ndim).ok_or(ErrorKind::Overflow {
        quantity: crate::Quantity::CooEntries,
    })?;
    count("COO coordinates (nnz x ndim)", cells, c.indices.len())
}

/// Contents: every coordinate below its dimension's size, and, when the index is flagged
/// canonical, the entries strictly increasing in row-major order. Assumes
/// [`check_structure`] passed.
pub(crate) fn check_contents(c: &CooIndex, shape: &[usize]) -> Result<()> {
    crate::dispatch_index!(c.indices.index_type(), I => check_contents_typed::<I>(c, shape))
}

/// [`check_contents`] for the index types the caller dispatched on.
fn check_contents_typed<I: NativeIndex>(c: &CooIndex, shape: &[usize]) -> Result<()> {
    let s = crate::sparse::typed_index::<I>(&c.indices)?;
    let (nnz, ndim) = (c.nnz, c.ndim);
    // Row-major: whether the fused scan found the rows strictly increasing.
    let mut sorted_known = false;
    match c.order {
        CooOrder::RowMajor => {
            let (in_bounds, increasing) = kernels::coo_row_major_scan(s, shape, c.is_canonical);
            sorted_known = increasing;
            if !in_bounds {
                kernels::check_rows_in_bounds(s, shape, BufferId::CooIndices)?;
            }
        }
        CooOrder::ColumnMajor => {
            for (d, &bound) in shape.iter().enumerate() {
                let col = s.get(d * nnz..(d + 1) * nnz).unwrap_or_default();
                kernels::check_bounds(col, bound, d, BufferId::CooIndices)
                    .map_err(|e| kernels::shift_position(e, d * nnz))?;
            }
        }
    }
    if c.is_canonical && !sorted_known {
        if let Some(i) = first_unsorted(s, nnz, ndim, c.order) {
            return fail(ErrorKind::NotIncreasing {
                buffer: BufferId::CooIndices,
                position: i as u64,
                rule: "isCanonical requires strictly increasing row-major coordinates",
            });
        }
    }
    Ok(())
}
