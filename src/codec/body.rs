//! The body: a [`MessageMeta`]'s plan laid over the body bytes -> [`Message`], zero-copy
//! (every tensor buffer is a slice of the body, except misaligned ones when the policy
//! copies them), with every offset and length checked before anything is sliced.

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::metadata::{neg, BufRef, IndexPlan, MessageMeta, Plan};
use super::options::ReadOptions;
use super::Message;
use crate::array::{align_buffer, IndexArray, Misaligned};
use crate::error::{fail, BufferId, ErrorKind, Quantity, Result};
use crate::sparse::{CooIndex, CooOrder, CsfIndex, CsxIndex, SparseIndex, SparseTensor};
use crate::tensor::Tensor;
use crate::types::IndexType;
use crate::validate::Validation;
use arrow_buffer::Buffer;

/// Slices body buffers with every check a hostile message needs.
struct BodySlicer<'a> {
    body: &'a Buffer,
    policy: Misaligned,
    used: Vec<(usize, usize, BufferId)>,
}

impl BodySlicer<'_> {
    /// The first `needed` bytes of the region `r`, aligned to `align`.
    fn take(&mut self, r: BufRef, needed: u64, align: usize, id: BufferId) -> Result<Buffer> {
        let body_len = self.body.len() as u64;
        if r.offset < 0 {
            return Err(neg(format!("offset of {id}"), r.offset));
        }
        if r.length < 0 {
            return Err(neg(format!("length of {id}"), r.length));
        }
        let (off, len) = (r.offset as u64, r.length as u64);
        let out_of_body = || ErrorKind::BufferOutOfBody {
            buffer: id,
            offset: r.offset,
            length: r.length,
            body_length: body_len,
        };
        match off.checked_add(len) {
            Some(end) if end <= body_len => {}
            _ => return Err(out_of_body().into()),
        }
        if len < needed {
            return fail(ErrorKind::BufferTooShort {
                buffer: id,
                needed,
                length: len,
            });
        }
        // off + needed <= off + len <= body length, which fits in usize.
        let (off, needed) = (off as usize, needed as usize);
        if needed > 0 {
            self.used.push((off, off + needed, id));
        }
        let slice = self.body.slice_with_length(off, needed);
        align_buffer(slice, align, id, off as u64, self.policy)
    }

    fn index(&mut self, r: BufRef, t: IndexType, count: u64, id: BufferId) -> Result<IndexArray> {
        let w = t.byte_width() as u64;
        let needed = count.checked_mul(w).ok_or(ErrorKind::Overflow {
            quantity: Quantity::BufferLength(id),
        })?;
        let buf = self.take(r, needed, t.byte_width(), id)?;
        IndexArray::try_new(t, buf)
    }

    fn check_overlap(&mut self) -> Result<()> {
        self.used.sort_unstable_by_key(|u| u.0);
        for w in self.used.windows(2) {
            if let [(_, end, first), (start, _, second)] = *w {
                if start < end {
                    return fail(ErrorKind::Overlap { first, second });
                }
            }
        }
        Ok(())
    }
}

/// Builds the tensor of a message from its metadata and body (zero-copy).
pub(super) fn assemble(meta: MessageMeta, body: Buffer, options: &ReadOptions) -> Result<Message> {
    let MessageMeta {
        value_type,
        shape,
        dim_names,
        plan,
        ..
    } = meta;
    let w = value_type.byte_width();
    match plan {
        Plan::Dense { strides, data } => {
            let strides = dense_strides(strides, &shape, w)?;
            let body = dense_data(&body, data, &shape, &strides, w, options)?;
            let t = Tensor::try_new(value_type, shape, strides, body)?;
            // Zero or overlapping strides let a tiny body describe a huge tensor, whose
            // row-major copy (on re-encoding, `to_vec`, ...) would be huge: bound those.
            let limit = options.limits.max_dense_elements;
            if t.len().saturating_mul(w) > t.data().len() && t.len() > limit {
                return fail(ErrorKind::LimitExceeded {
                    what: "element count of a dense tensor with aliasing strides",
                    value: t.len() as u64,
                    limit: limit as u64,
                });
            }
            Ok(Message::Tensor(t.with_dim_names(dim_names)?))
        }
        Plan::Sparse { nnz, data, index } => {
            if nnz < 0 {
                return Err(neg("non_zero_length", nnz));
            }
            let nnz = nnz as u64;
            if nnz > options.limits.max_nnz {
                return fail(ErrorKind::LimitExceeded {
                    what: "non_zero_length",
                    value: nnz,
                    limit: options.limits.max_nnz,
                });
            }
            let mut slicer = BodySlicer {
                body: &body,
                policy: options.misaligned,
                used: Vec::new(),
            };
            let ndim = shape.len() as u64;
            let (index, nnz) = match index {
                IndexPlan::Coo {
                    index_type,
                    strides,
                    buffer,
                    canonical,
                } => {
                    let iw = index_type.byte_width() as i64;
                    let order = coo_order(strides.as_deref(), nnz, ndim, iw)?;
                    let cells = nnz.checked_mul(ndim).ok_or(ErrorKind::Overflow {
                        quantity: Quantity::CooEntries,
                    })?;
                    let arr = slicer.index(buffer, index_type, cells, BufferId::CooIndices)?;
                    // The flag as the message states it (strict validation checks it): no
                    // scan of the coordinates here, so permissive decoding stays O(1).
                    let mut coo = CooIndex::with_flag(arr, shape.len(), order, canonical)?;
                    // Rank 0 has no coordinates to count: take nnz from the message before
                    // the flag, so that the flag is kept (two entries flagged canonical are
                    // duplicates of the one cell) rather than recomputed.
                    if let Ok(n) = usize::try_from(nnz) {
                        coo.set_rank0_nnz(n);
                    }
                    (SparseIndex::Coo(coo.with_canonical_flag(canonical)), nnz)
                }
                IndexPlan::Csx {
                    axis,
                    indptr_type,
                    indptr,
                    indices_type,
                    indices,
                } => {
                    if shape.len() != 2 {
                        return fail(ErrorKind::InvalidRank {
                            layout: "CSR/CSC",
                            needed: "rank 2",
                            rank: shape.len(),
                        });
                    }
                    let outer = shape.get(axis.dim()).copied().unwrap_or(0) as u64;
                    let n = outer.checked_add(1).ok_or(ErrorKind::Overflow {
                        quantity: Quantity::IndptrLength,
                    })?;
                    let indptr = slicer.index(indptr, indptr_type, n, BufferId::CsxIndptr)?;
                    let indices = slicer.index(indices, indices_type, nnz, BufferId::CsxIndices)?;
                    (
                        SparseIndex::Csx(CsxIndex::from_arrays(axis, indptr, indices)),
                        nnz,
                    )
                }
                IndexPlan::Csf {
                    indptr_type,
                    indptr,
                    indices_type,
                    indices,
                    axis_order,
                } => csf_index(
                    &mut slicer,
                    &shape,
                    nnz,
                    indptr_type,
                    &indptr,
                    indices_type,
                    &indices,
                    &axis_order,
                )?,
            };
            let needed = nnz.checked_mul(w as u64).ok_or(ErrorKind::Overflow {
                quantity: Quantity::BufferLength(BufferId::Values),
            })?;
            let values = slicer.take(data, needed, w, BufferId::Values)?;
            if options.validation == Validation::Strict {
                slicer.check_overlap()?;
            }
            let t = SparseTensor::from_parts(value_type, shape, values, index, options.validation)?;
            Ok(Message::SparseTensor(t.with_dim_names(dim_names)?))
        }
    }
}

/// The byte strides of a dense tensor: the message's, or row-major ones when it has none
/// (absent, or empty for a non-scalar). Row-major strides whose products do not fit in an
/// int64 are refused even for a tensor without elements, as Arrow C++ refuses them: they
/// could not be written back.
fn dense_strides(strides: Option<Vec<i64>>, shape: &[usize], w: usize) -> Result<Vec<usize>> {
    match strides {
        Some(s) if !s.is_empty() || shape.is_empty() => {
            if s.len() != shape.len() {
                return fail(ErrorKind::CountMismatch {
                    what: "tensor strides (one per dimension)".into(),
                    expected: shape.len() as u64,
                    found: s.len() as u64,
                });
            }
            let mut out = Vec::with_capacity(s.len());
            for (i, (&st, &d)) in s.iter().zip(shape).enumerate() {
                if st < 0 && d != 0 {
                    return Err(neg(format!("stride of dimension {i}"), st));
                }
                out.push(usize::try_from(st.max(0)).map_err(|_| ErrorKind::Overflow {
                    quantity: Quantity::Stride { dim: i },
                })?);
            }
            Ok(out)
        }
        _ => crate::tensor::checked_row_major_strides(shape, w).ok_or_else(|| {
            ErrorKind::Overflow {
                quantity: Quantity::RowMajorStrides {
                    shape: shape.to_vec(),
                },
            }
            .into()
        }),
    }
}

/// The bytes of a dense tensor. Strict validation takes them from where `Tensor.data`
/// points: inside the body, not negative, long enough for the shape and strides, aligned
/// for the value type (or copied, as the misaligned policy says). Permissive decoding takes
/// the same region when it is usable and the whole body otherwise (Arrow C++ ignores the
/// field and reads the body).
fn dense_data(
    body: &Buffer,
    data: BufRef,
    shape: &[usize],
    strides: &[usize],
    w: usize,
    options: &ReadOptions,
) -> Result<Buffer> {
    let id = BufferId::TensorData;
    let extent =
        crate::tensor::strided_extent(shape, strides, w).ok_or_else(|| ErrorKind::Overflow {
            quantity: Quantity::Extent {
                shape: shape.to_vec(),
                strides: strides.to_vec(),
            },
        })? as u64;
    let body_len = body.len() as u64;
    let region = (|| {
        if data.offset < 0 {
            return Err(neg(format!("offset of {id}"), data.offset));
        }
        if data.length < 0 {
            return Err(neg(format!("length of {id}"), data.length));
        }
        let (off, len) = (data.offset as u64, data.length as u64);
        match off.checked_add(len) {
            Some(end) if end <= body_len => {}
            _ => {
                return fail(ErrorKind::BufferOutOfBody {
                    buffer: id,
                    offset: data.offset,
                    length: data.length,
                    body_length: body_len,
                })
            }
        }
        if len < extent {
            return fail(ErrorKind::BufferTooShort {
                buffer: id,
                needed: extent,
                length: len,
            });
        }
        // off + len <= body length, which fits in usize.
        Ok((off as usize, len as usize))
    })();
    let (off, len) = match (region, options.validation) {
        (Ok(r), _) => r,
        (Err(e), Validation::Strict) => return Err(e),
        (Err(_), Validation::Permissive) => (0, body.len()),
    };
    let slice = body.slice_with_length(off, len);
    align_buffer(slice, w, id, off as u64, options.misaligned)
}

/// Tells the layout of a COO matrix from its `indicesStrides`.
fn coo_order(strides: Option<&[i64]>, nnz: u64, ndim: u64, w: i64) -> Result<CooOrder> {
    let Some(s) = strides.filter(|s| !s.is_empty()) else {
        return Ok(CooOrder::RowMajor);
    };
    let &[entry_step, dim_step] = s else {
        return fail(ErrorKind::InvalidCooStrides(s.to_vec()));
    };
    if nnz == 0 || ndim == 0 || nnz == 1 && ndim == 1 {
        // Degenerate: any pair of strides describes the same (empty or single) cell; Arrow
        // writes [w, w] here.
        return Ok(CooOrder::RowMajor);
    }
    let row = (ndim as i64).checked_mul(w) == Some(entry_step) && dim_step == w;
    let col = entry_step == w && (nnz as i64).checked_mul(w) == Some(dim_step);
    // With one column (ndim = 1) or one row (nnz = 1) both layouts are the same bytes and
    // the step along the single-size axis is irrelevant.
    if row || (ndim == 1 && entry_step == w) || (nnz == 1 && dim_step == w) {
        Ok(CooOrder::RowMajor)
    } else if col {
        Ok(CooOrder::ColumnMajor)
    } else {
        fail(ErrorKind::InvalidCooStrides(s.to_vec()))
    }
}

#[allow(clippy::too_many_arguments)]
fn csf_index(
    slicer: &mut BodySlicer,
    shape: &[usize],
    nnz: u64,
    indptr_type: IndexType,
    indptr: &[BufRef],
    indices_type: IndexType,
    indices: &[BufRef],
    axis_order: &[i32],
) -> Result<(SparseIndex, u64)> {
    let ndim = shape.len();
    if ndim < 2 {
        return fail(ErrorKind::InvalidRank {
            layout: "CSF",
            needed: "rank 2 or more",
            rank: ndim,
        });
    }
    for (what, expected, found) in [
        ("CSF indptrBuffers (ndim - 1)", ndim - 1, indptr.len()),
        ("CSF indicesBuffers (ndim)", ndim, indices.len()),
        ("CSF axisOrder entries (ndim)", ndim, axis_order.len()),
    ] {
        if expected != found {
            return fail(ErrorKind::CountMismatch {
                what: what.into(),
                expected: expected as u64,
                found: found as u64,
            });
        }
    }
    let mut order = Vec::with_capacity(ndim);
    for &a in axis_order {
        match usize::try_from(a) {
            Ok(a) if a < ndim => order.push(a),
            _ => {
                return fail(ErrorKind::NotAPermutation(
                    axis_order.iter().map(|&v| v as i64).collect(),
                ))
            }
        }
    }
    let (pw, iw) = (
        indptr_type.byte_width() as i64,
        indices_type.byte_width() as i64,
    );
    // Arrow C++ writes element counts in Buffer.length; the format document says bytes. Use
    // whichever reading makes the tree consistent, counts first.
    let counts = |unit_p: i64, unit_i: i64| -> Option<(Vec<u64>, Vec<u64>)> {
        let conv = |r: &BufRef, unit: i64| -> Option<u64> {
            (r.length >= 0 && r.length % unit == 0).then(|| (r.length / unit) as u64)
        };
        let p: Vec<u64> = indptr
            .iter()
            .map(|r| conv(r, unit_p))
            .collect::<Option<_>>()?;
        let i: Vec<u64> = indices
            .iter()
            .map(|r| conv(r, unit_i))
            .collect::<Option<_>>()?;
        let consistent = i.last() == Some(&nnz)
            && p.iter()
                .zip(&i)
                .all(|(&np, &ni)| ni.checked_add(1) == Some(np));
        consistent.then_some((p, i))
    };
    let (np, ni) =
        counts(1, 1)
            .or_else(|| counts(pw, iw))
            .ok_or_else(|| ErrorKind::CountMismatch {
                what:
                    "CSF buffer lengths consistent with the tree (indices of the last level = nnz, \
                   indptr of level k = indices of level k + 1), read as element counts or as bytes"
                        .into(),
                expected: nnz,
                found: indices.last().map_or(0, |r| r.length.max(0) as u64),
            })?;
    let mut ptr_arrays = Vec::with_capacity(np.len());
    for (k, (r, &n)) in indptr.iter().zip(&np).enumerate() {
        let r = BufRef {
            offset: r.offset,
            length: n.saturating_mul(pw as u64) as i64,
        };
        ptr_arrays.push(slicer.index(r, indptr_type, n, BufferId::CsfIndptr(k))?);
    }
    let mut idx_arrays = Vec::with_capacity(ni.len());
    for (k, (r, &n)) in indices.iter().zip(&ni).enumerate() {
        let r = BufRef {
            offset: r.offset,
            length: n.saturating_mul(iw as u64) as i64,
        };
        idx_arrays.push(slicer.index(r, indices_type, n, BufferId::CsfIndices(k))?);
    }
    Ok((
        SparseIndex::Csf(CsfIndex::from_arrays(order, ptr_arrays, idx_arrays)),
        nnz,
    ))
}
