//! Sparse to sparse: every layout to every layout, through a coordinate list.
//!
//! The stored entries are expanded to one coordinate row each, in the order the input
//! stores them (canonical COO: row-major; CSR: row-major; CSC: column-major; CSF: its
//! `axisOrder`; non-canonical COO: unknown), then [`Entries::finish`] re-sorts them with
//! counting sorts (summing duplicates when the order was unknown) and builds the result.
//! Everything is O(nnz x ndim) plus the size of the dimensions that need sorting.

use super::entries::{check_index_len, check_rank, dispatch_work, needs_wide, Entries};
use super::ConvertOptions;
use crate::error::{ErrorKind, Result};
use crate::parallel::alloc::try_vec;
use crate::sparse::{typed_index, CooOrder, SparseIndex};
use crate::types::{NativeIndex, NativeValue};
use crate::{SparseFormat, SparseTensor};
use arrow_buffer::ArrowNativeType;
use std::borrow::Cow;

/// A strictly validated view of `s`: itself, or a re-validated copy (sharing buffers) of a
/// tensor decoded permissively. Fails when the index breaks a rule.
pub(crate) fn validated(s: &SparseTensor) -> Result<Cow<'_, SparseTensor>> {
    if s.is_validated() {
        return Ok(Cow::Borrowed(s));
    }
    let t = SparseTensor::try_new_with_duplicates(
        s.value_type(),
        s.shape(),
        s.values_buffer().clone(),
        s.index().clone(),
    )?
    .with_dim_names(s.dim_names().iter().cloned())?;
    Ok(Cow::Owned(t))
}

/// What a sparse tensor's data backs: its stored values and the length of its longest
/// index array (an indptr it already holds).
fn backing(s: &SparseTensor) -> usize {
    let longest = match s.index() {
        SparseIndex::Coo(_) => 0,
        SparseIndex::Csx(c) => c.indptr().len(),
        SparseIndex::Csf(c) => c.indptr().iter().map(|a| a.len()).max().unwrap_or(0),
    };
    s.nnz().max(longest)
}

/// Converts a sparse tensor to `format`.
pub(crate) fn convert(
    s: &SparseTensor,
    format: SparseFormat,
    opts: &ConvertOptions,
) -> Result<SparseTensor> {
    let shape = s.shape();
    check_rank(format, shape.len())?;
    check_index_len(format, shape, backing(s), &opts.limits)?;
    let s = validated(s)?;
    let csf_order = match format {
        SparseFormat::Csf => opts.axis_order.resolve(shape)?,
        _ => Vec::new(),
    };
    let wide = needs_wide(shape)?;
    crate::dispatch_value!(s.value_type(), T => dispatch_work!(wide, W => {
        let mut e = extract::<T, W>(&s)?;
        if opts.drop_zeros {
            if e.order.is_none() {
                // Sum duplicates first: the zero rule applies to what would be stored.
                let identity: Vec<usize> = (0..shape.len()).collect();
                e.sort_to(&identity, shape)?;
            }
            e.drop_zeros();
        }
        e.finish(format, shape, s.dim_names(), opts.index_type, &csf_order)
    }))
}

/// Expands the stored entries of a validated tensor, in storage order.
pub(crate) fn extract<T: NativeValue, W: NativeIndex>(s: &SparseTensor) -> Result<Entries<T, W>> {
    let ndim = s.ndim();
    let values = s
        .values::<T>()
        .ok_or_else(|| ErrorKind::TypeMismatch {
            expected: T::TYPE.to_string(),
            found: s.value_type().to_string(),
        })?
        .to_vec();
    let nnz = values.len();
    let mut coords = try_vec(nnz * ndim, W::default(), "coordinates")?;
    let order = match s.index() {
        SparseIndex::Coo(c) => {
            crate::dispatch_index!(c.indices().index_type(), I => {
                let src = typed_index::<I>(c.indices())?;
                match c.order() {
                    CooOrder::RowMajor => {
                        for (dst, &v) in coords.iter_mut().zip(src) {
                            *dst = W::usize_as(v.as_usize());
                        }
                    }
                    CooOrder::ColumnMajor => {
                        for (d, column) in src.chunks_exact(nnz.max(1)).take(ndim).enumerate() {
                            for (i, &v) in column.iter().enumerate() {
                                coords[i * ndim + d] = W::usize_as(v.as_usize());
                            }
                        }
                    }
                }
            });
            c.is_canonical().then(|| (0..ndim).collect())
        }
        SparseIndex::Csx(c) => {
            let o = c.axis().dim();
            crate::dispatch_index!(c.indptr().index_type(), P => {
                let indptr = typed_index::<P>(c.indptr())?;
                for (r, w) in indptr.windows(2).enumerate() {
                    for k in w[0].as_usize()..w[1].as_usize() {
                        coords[2 * k + o] = W::usize_as(r);
                    }
                }
            });
            crate::dispatch_index!(c.indices().index_type(), I => {
                let indices = typed_index::<I>(c.indices())?;
                for (k, &v) in indices.iter().enumerate() {
                    coords[2 * k + 1 - o] = W::usize_as(v.as_usize());
                }
            });
            Some(vec![o, 1 - o])
        }
        SparseIndex::Csf(c) => {
            extract_csf(c, ndim, nnz, &mut coords)?;
            Some(c.axis_order().to_vec())
        }
    };
    Ok(Entries {
        ndim,
        coords,
        values,
        order,
    })
}

/// Fills the coordinates of every CSF leaf: its own coordinate, then those of its
/// ancestors, level by level upwards (each level maps its nodes to their parents).
fn extract_csf<W: NativeIndex>(
    c: &crate::CsfIndex,
    ndim: usize,
    nnz: usize,
    coords: &mut [W],
) -> Result<()> {
    let order = c.axis_order();
    let ptr_type = crate::sparse::csf::common_type(c.indptr());
    let idx_type = crate::sparse::csf::common_type(c.indices());
    // ancestor[i]: the node of the current level above leaf i.
    let mut ancestor: Vec<usize> = try_vec(nnz, 0usize, "CSF ancestors")?;
    for (i, a) in ancestor.iter_mut().enumerate() {
        *a = i;
    }
    let mut parent: Vec<usize> = Vec::new();
    for level in (0..ndim).rev() {
        if level + 1 < ndim {
            // parent[node of level + 1] = its node of `level`.
            let children = c.indices()[level + 1].len();
            parent.clear();
            parent.resize(children, 0);
            crate::dispatch_index!(ptr_type, P => {
                let ptr = typed_index::<P>(&c.indptr()[level])?;
                for (j, w) in ptr.windows(2).enumerate() {
                    parent[w[0].as_usize()..w[1].as_usize()].fill(j);
                }
            });
            for a in ancestor.iter_mut() {
                *a = parent[*a];
            }
        }
        let dim = order[level];
        crate::dispatch_index!(idx_type, I => {
            let idx = typed_index::<I>(&c.indices()[level])?;
            for (row, &a) in coords.chunks_exact_mut(ndim).zip(&ancestor) {
                row[dim] = W::usize_as(idx[a].as_usize());
            }
        });
    }
    Ok(())
}
