//! Sparse to dense: a zeroed row-major output and one write per stored value.
//!
//! The linear offset of every stored value is computed from the index in blocks (generic
//! over the index types only), and the values are written in a loop generic over the value
//! type only. The output comes from a zeroed allocation (`calloc`: fresh pages cost no
//! write), and layouts that store values in row-major order (canonical COO, CSR, CSF with
//! the identity axis order) write it front to back.

use super::entries::try_with_capacity;
use super::sparse_to_sparse::validated;
use crate::error::{fail, ErrorKind, Result};
use crate::sparse::{typed_index, CooOrder, SparseIndex};
use crate::tensor::{element_count, row_major_strides};
use crate::types::NativeValue;
use crate::{SparseTensor, Tensor};
use arrow_buffer::ArrowNativeType;
use arrow_buffer::Buffer;

/// Offsets are produced and consumed this many at a time.
const BLOCK: usize = 4096;

/// Expands to a dense row-major tensor; see [`crate::convert::to_dense`].
pub(crate) fn to_dense_limited(s: &SparseTensor, max_elements: usize) -> Result<Tensor> {
    let total = element_count(s.shape())
        .ok_or_else(|| ErrorKind::Overflow(format!("element count of shape {:?}", s.shape())))?;
    if total > max_elements {
        return fail(ErrorKind::LimitExceeded {
            what: "dense element count",
            value: total as u64,
            limit: max_elements as u64,
        });
    }
    let Ok(s) = validated(s) else {
        // Index data that breaks a rule: the checked general path reports or tolerates it.
        return s.to_dense_limited(max_elements);
    };
    let w = s.value_type().byte_width();
    match total.checked_mul(w) {
        Some(bytes) if bytes <= isize::MAX as usize => {}
        _ => return fail(ErrorKind::Overflow("dense byte size".into())),
    }
    // Duplicates (only in a non-canonical COO index) are summed in storage order.
    let may_repeat = matches!(s.index(), SparseIndex::Coo(c) if !c.is_canonical());
    let data = crate::dispatch_value!(s.value_type(), T => {
        let values = s.values::<T>().unwrap_or_default();
        let mut out = zeroed::<T>(total)?;
        if may_repeat {
            let mut seen = vec![0u64; total.div_ceil(64)];
            for_each_offset_block(&s, &mut |offsets, first| {
                for (&o, &v) in offsets.iter().zip(&values[first..]) {
                    let (word, bit) = (o / 64, 1u64 << (o % 64));
                    out[o] = if seen[word] & bit != 0 { out[o].combine(v) } else { v };
                    seen[word] |= bit;
                }
            })?;
        } else {
            for_each_offset_block(&s, &mut |offsets, first| {
                for (&o, &v) in offsets.iter().zip(&values[first..]) {
                    out[o] = v;
                }
            })?;
        }
        Buffer::from_vec(out)
    });
    Tensor::try_new(
        s.value_type(),
        s.shape().to_vec(),
        row_major_strides(s.shape(), w),
        data,
    )?
    .with_dim_names(s.dim_names().iter().cloned())
}

/// `n` zeros, from a zeroed allocation; an error instead of an abort when the memory
/// cannot be had.
fn zeroed<T: NativeValue>(n: usize) -> Result<Vec<T>> {
    // Probe first: `vec!` would abort on failure, but it is the one way to get zeroed
    // (untouched) pages for the common types.
    drop(try_with_capacity::<T>(n, "the dense output")?);
    Ok(vec![T::ZERO; n])
}

/// Calls `f(offsets, first)` with the row-major linear offsets of the stored values
/// `first..first + offsets.len()`, block by block, in storage order.
fn for_each_offset_block(s: &SparseTensor, f: &mut dyn FnMut(&[usize], usize)) -> Result<()> {
    let shape = s.shape();
    let rs = row_major_strides(shape, 1);
    let mut block: Vec<usize> = Vec::with_capacity(BLOCK);
    match s.index() {
        SparseIndex::Coo(c) => {
            let (n, nnz) = (s.ndim(), s.nnz());
            if n == 0 {
                // Rank 0: every stored value is the single element.
                let zeros = vec![0usize; nnz.min(BLOCK)];
                let mut first = 0;
                while first < nnz {
                    let len = (nnz - first).min(BLOCK);
                    f(&zeros[..len], first);
                    first += len;
                }
                return Ok(());
            }
            crate::dispatch_index!(c.indices().index_type(), I => {
                let src = typed_index::<I>(c.indices())?;
                match c.order() {
                    CooOrder::RowMajor => {
                        for (b, rows) in src.chunks(BLOCK * n).enumerate() {
                            block.clear();
                            block.extend(rows.chunks_exact(n).map(|row| {
                                row.iter().zip(&rs).map(|(&v, &st)| v.as_usize() * st).sum::<usize>()
                            }));
                            f(&block, b * BLOCK);
                        }
                    }
                    CooOrder::ColumnMajor => {
                        let mut first = 0;
                        while first < nnz {
                            let len = (nnz - first).min(BLOCK);
                            block.clear();
                            block.resize(len, 0);
                            for (d, &st) in rs.iter().enumerate() {
                                let column = &src[d * nnz + first..d * nnz + first + len];
                                for (o, &v) in block.iter_mut().zip(column) {
                                    *o += v.as_usize() * st;
                                }
                            }
                            f(&block, first);
                            first += len;
                        }
                    }
                }
            });
        }
        SparseIndex::Csx(c) => {
            let ncols = shape[1];
            let row_major = c.axis().dim() == 0;
            crate::dispatch_index!(c.indptr().index_type(), P => {
                let indptr = typed_index::<P>(c.indptr())?;
                crate::dispatch_index!(c.indices().index_type(), I => {
                    let indices = typed_index::<I>(c.indices())?;
                    let mut first = 0;
                    for (r, w) in indptr.windows(2).enumerate() {
                        let (a, b) = (w[0].as_usize(), w[1].as_usize());
                        for &j in &indices[a..b] {
                            let j = j.as_usize();
                            block.push(if row_major { r * ncols + j } else { j * ncols + r });
                            if block.len() == BLOCK {
                                f(&block, first);
                                first += BLOCK;
                                block.clear();
                            }
                        }
                    }
                    f(&block, first);
                })
            });
        }
        SparseIndex::Csf(c) => {
            let ndim = s.ndim();
            let order = c.axis_order();
            let ptr_type = crate::sparse::csf::common_type(c.indptr());
            let idx_type = crate::sparse::csf::common_type(c.indices());
            crate::dispatch_index!(ptr_type, P => crate::dispatch_index!(idx_type, I => {
                let ptrs: Vec<&[P]> = c.indptr().iter().map(typed_index::<P>).collect::<Result<_>>()?;
                let idxs: Vec<&[I]> = c.indices().iter().map(typed_index::<I>).collect::<Result<_>>()?;
                // Offsets of the nodes of each level above the leaves, top down.
                let mut parents: Vec<usize> = idxs[0].iter().map(|&v| v.as_usize() * rs[order[0]]).collect();
                for level in 1..ndim - 1 {
                    let st = rs[order[level]];
                    let mut nodes = Vec::with_capacity(idxs[level].len());
                    for (w, &base) in ptrs[level - 1].windows(2).zip(&parents) {
                        let children = &idxs[level][w[0].as_usize()..w[1].as_usize()];
                        nodes.extend(children.iter().map(|&v| base + v.as_usize() * st));
                    }
                    parents = nodes;
                }
                let st = rs[order[ndim - 1]];
                let leaves = idxs[ndim - 1];
                let mut first = 0;
                for (w, &base) in ptrs[ndim - 2].windows(2).zip(&parents) {
                    for &v in &leaves[w[0].as_usize()..w[1].as_usize()] {
                        block.push(base + v.as_usize() * st);
                        if block.len() == BLOCK {
                            f(&block, first);
                            first += BLOCK;
                            block.clear();
                        }
                    }
                }
                f(&block, first);
            }));
        }
    }
    Ok(())
}
