//! Compressed sparse row / column (CSX) index of a matrix.

use crate::array::IndexArray;
use crate::error::{BufferId, ErrorKind, Result};
use crate::types::NativeIndex;

/// Which axis a CSX index compresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompressedAxis {
    /// Compressed rows: CSR.
    Row,
    /// Compressed columns: CSC.
    Column,
}

impl CompressedAxis {
    /// The compressed dimension (0 for rows, 1 for columns).
    pub fn dim(self) -> usize {
        match self {
            CompressedAxis::Row => 0,
            CompressedAxis::Column => 1,
        }
    }
}

/// A CSR or CSC index: `indptr` (one more entry than the compressed dimension has) and
/// `indices` (the other coordinate of every stored value).
#[derive(Clone, Debug, PartialEq)]
pub struct CsxIndex {
    pub(crate) axis: CompressedAxis,
    pub(crate) indptr: IndexArray,
    pub(crate) indices: IndexArray,
}

impl CsxIndex {
    /// Builds an index (checked against a shape when it is put into a [`crate::SparseTensor`]).
    pub fn new(axis: CompressedAxis, indptr: IndexArray, indices: IndexArray) -> Self {
        CsxIndex {
            axis,
            indptr,
            indices,
        }
    }

    /// The compressed axis.
    pub fn axis(&self) -> CompressedAxis {
        self.axis
    }

    /// The indptr array.
    pub fn indptr(&self) -> &IndexArray {
        &self.indptr
    }

    /// The indices array.
    pub fn indices(&self) -> &IndexArray {
        &self.indices
    }
}

/// Reads the range of outer slot `r` with the checks a permissive reader needs.
#[inline]
pub(crate) fn slice_bounds<P: NativeIndex>(
    indptr: &[P],
    r: usize,
    limit: usize,
    buffer: BufferId,
) -> Result<(usize, usize)> {
    let get = |p: usize| -> Result<usize> {
        let v = indptr.get(p).map_or(-1, |v| v.as_index());
        if v < 0 || v as u64 > limit as u64 {
            return Err(ErrorKind::InvalidIndptr {
                buffer,
                position: p as u64,
                value: v,
                rule: "outside 0..=length of the array it points into",
            }
            .into());
        }
        Ok(v as usize)
    };
    let (a, b) = (get(r)?, get(r + 1)?);
    if a > b {
        return Err(ErrorKind::InvalidIndptr {
            buffer,
            position: r as u64 + 1,
            value: b as i64,
            rule: "indptr must be non-decreasing",
        }
        .into());
    }
    Ok((a, b))
}

/// Checks that `indptr` starts at 0 and ends at `len`: with every slice non-decreasing
/// (checked slice by slice), the slices then cover `0..len` exactly once. A permissive
/// walk checks this first, so that it reports bad index data instead of silently skipping
/// stored values.
#[inline]
pub(crate) fn check_ends<P: NativeIndex>(indptr: &[P], len: usize, buffer: BufferId) -> Result<()> {
    let first = indptr.first().map_or(0, |v| v.as_index());
    if first != 0 {
        return Err(ErrorKind::InvalidIndptr {
            buffer,
            position: 0,
            value: first,
            rule: "indptr must start at 0",
        }
        .into());
    }
    let last = indptr.last().map_or(0, |v| v.as_index());
    if usize::try_from(last).ok() != Some(len) {
        return Err(ErrorKind::InvalidIndptr {
            buffer,
            position: indptr.len().saturating_sub(1) as u64,
            value: last,
            rule: "indptr must end at the number of entries it delimits",
        }
        .into());
    }
    Ok(())
}

/// Visits every stored value: `f(coords, position)`.
pub(crate) fn visit(
    index: &CsxIndex,
    shape: &[usize],
    f: &mut dyn FnMut(&[usize], usize) -> Result<()>,
) -> Result<()> {
    crate::dispatch_index!(index.indptr.index_type(), P => {
        crate::dispatch_index!(index.indices.index_type(), I => {
            visit_typed::<P, I>(index, shape, f)
        })
    })
}

fn visit_typed<P: NativeIndex, I: NativeIndex>(
    index: &CsxIndex,
    shape: &[usize],
    f: &mut dyn FnMut(&[usize], usize) -> Result<()>,
) -> Result<()> {
    let indptr = crate::sparse::typed_index::<P>(&index.indptr)?;
    let indices = crate::sparse::typed_index::<I>(&index.indices)?;
    let outer = index.axis.dim();
    let inner = 1 - outer;
    check_ends(indptr, indices.len(), BufferId::CsxIndptr)?;
    let n = indptr.len().saturating_sub(1);
    let mut visited = 0usize;
    for r in 0..n {
        let (a, b) = slice_bounds(indptr, r, indices.len(), BufferId::CsxIndptr)?;
        visited += b - a;
        if visited > indices.len() {
            return Err(ErrorKind::InvalidIndptr {
                buffer: BufferId::CsxIndptr,
                position: r as u64 + 1,
                value: b as i64,
                rule: "slices overlap (indptr must be non-decreasing)",
            }
            .into());
        }
        for k in a..b {
            let c = crate::sparse::check_coord(indices, k, shape, inner, BufferId::CsxIndices)?;
            let coords = if outer == 0 { [r, c] } else { [c, r] };
            f(&coords, k)?;
        }
    }
    Ok(())
}

/// Position of the value stored at `coords`, if any.
pub(crate) fn find(index: &CsxIndex, coords: &[usize], sorted: bool) -> Result<Vec<usize>> {
    crate::dispatch_index!(index.indptr.index_type(), P => {
        crate::dispatch_index!(index.indices.index_type(), I => {
            let indptr = crate::sparse::typed_index::<P>(&index.indptr)?;
            let indices = crate::sparse::typed_index::<I>(&index.indices)?;
            let outer = index.axis.dim();
            let (Some(&r), Some(&c)) = (coords.get(outer), coords.get(1 - outer)) else {
                return Ok(Vec::new());
            };
            let (a, b) = slice_bounds(indptr, r, indices.len(), BufferId::CsxIndptr)?;
            let slice = indices.get(a..b).unwrap_or_default();
            let c = c as i64;
            Ok(crate::sparse::search(slice, c, sorted).into_iter().map(|k| a + k).collect())
        })
    })
}
