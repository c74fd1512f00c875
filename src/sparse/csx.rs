//! Compressed sparse row / column (CSX) index of a matrix.

use crate::array::IndexArray;
use crate::error::{fail, BufferId, ErrorKind, Result};
use crate::types::NativeIndex;
use crate::validate::indptr;
// The indptr rules of the permissive walks and lookups, shared with CSF.
pub(crate) use crate::validate::indptr::{check_ends, slice_bounds};
use crate::validate::kernels::{self, count};

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
    /// Builds an index. Fails when `indptr` is empty (it holds `shape[axis] + 1 >= 1`
    /// entries); the rest is checked against a shape and nnz when the index is put into a
    /// [`crate::SparseTensor`]. The two arrays may have different index types.
    pub fn new(axis: CompressedAxis, indptr: IndexArray, indices: IndexArray) -> Result<Self> {
        if indptr.is_empty() {
            return fail(ErrorKind::CountMismatch {
                what: "CSX indptr entries (shape[axis] + 1, at least 1)".into(),
                expected: 1,
                found: 0,
            });
        }
        Ok(Self::from_arrays(axis, indptr, indices))
    }

    /// The index of these arrays, unchecked (the decoder and the converters check the
    /// structure against the shape themselves).
    pub(crate) fn from_arrays(
        axis: CompressedAxis,
        indptr: IndexArray,
        indices: IndexArray,
    ) -> Self {
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

// Validation rules of the layout (dispatched by `sparse::check_structure` and
// `sparse::check_contents`), built from the kernels of `crate::validate`.

/// Structure: a matrix, an indptr entry per compressed slot plus one, an indices entry per
/// stored value.
pub(crate) fn check_structure(c: &CsxIndex, shape: &[usize], nnz: usize) -> Result<()> {
    if shape.len() != 2 {
        return fail(ErrorKind::InvalidRank {
            layout: "CSR/CSC",
            needed: "rank 2",
            rank: shape.len(),
        });
    }
    let outer = kernels::dim_size(shape, c.axis.dim());
    let n = outer.checked_add(1).ok_or(ErrorKind::Overflow {
        quantity: crate::Quantity::IndptrLength,
    })?;
    count("CSX indptr entries (shape[axis] + 1)", n, c.indptr.len())?;
    count("CSX indices entries (nnz)", nnz, c.indices.len())
}

/// Contents, in this order: the indptr rules, every index below the other dimension's
/// size, indices strictly increasing within each slice. Assumes [`check_structure`] passed.
pub(crate) fn check_contents(c: &CsxIndex, shape: &[usize]) -> Result<()> {
    crate::dispatch_index!(c.indptr.index_type(), P => {
        crate::dispatch_index!(c.indices.index_type(), I => check_contents_typed::<P, I>(c, shape))
    })
}

/// [`check_contents`] for the index types the caller dispatched on.
fn check_contents_typed<P: NativeIndex, I: NativeIndex>(
    c: &CsxIndex,
    shape: &[usize],
) -> Result<()> {
    let indptr = crate::sparse::typed_index::<P>(&c.indptr)?;
    let indices = crate::sparse::typed_index::<I>(&c.indices)?;
    indptr::check_indptr(indptr, indices.len(), BufferId::CsxIndptr)?;
    let inner = 1 - c.axis.dim();
    let bound = kernels::dim_size(shape, inner);
    let scan = kernels::scan_values(indices, bound as u64, indptr);
    if !scan.in_bounds {
        kernels::check_bounds(indices, bound, inner, BufferId::CsxIndices)?;
    }
    kernels::check_sorted_slices(
        indptr,
        indices,
        &scan,
        BufferId::CsxIndices,
        "indices must strictly increase within a row (column)",
    )
}
