//! Sparse to dense: the output is written once, front to back, a block at a time.
//!
//! The row-major linear offset of every stored value is computed from the index (loops
//! generic over the index types only, a block of offsets at a time). The output is then
//! produced block by block: a block is zero-filled at the end of the output vector and
//! its values written into it while it is in cache. Layouts whose values come in
//! row-major order (canonical COO, CSR, CSF with the identity axis order) feed the blocks
//! (256 KiB) directly; CSC is merged a band of rows (about 2 MiB) at a time, with a cursor
//! per column; the others (CSF in other orders, non-canonical COO) are first grouped by
//! block (2 MiB) with one counting sort over the stored values. There is no zeroing pass
//! before the writes, and no scattered write across the whole output.
//!
//! Large outputs of the sorted layouts and of CSC are split between threads, each
//! initialising and filling its own range ([`crate::parallel::fill`], which holds the
//! `unsafe` this needs).
//!
//! Files: this one chooses the path; `fill` writes an output on one thread (and groups
//! unsorted values by block); `crate::parallel::fill` splits one between threads; `coo`, `csx`, `csf`
//! read each layout; `nodes` splits CSR and CSF at node boundaries.

mod coo;
mod csf;
mod csx;
mod fill;
mod nodes;

#[cfg(test)]
mod tests;

use super::sparse_to_sparse::validated;
use crate::error::{fail, ErrorKind, Result};
use crate::parallel::thread_count;
use crate::sparse::{CompressedAxis, CooOrder, SparseIndex};
use crate::tensor::{element_count, row_major_strides};
use crate::types::NativeValue;
use crate::{SparseTensor, Tensor};
use arrow_buffer::Buffer;
use fill::Fill;

/// The sizes that decide how outputs are cut up: [`TUNING`] in the conversions; the tests
/// also use smaller ones, so that small inputs cross every boundary.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tuning {
    /// Offsets produced and consumed at a time.
    offsets: usize,
    /// Bytes of output zero-filled at a time when the values come in row-major order (the
    /// block stays in cache while its values go in).
    fill_bytes: usize,
    /// Bytes of output per group when the values must be grouped first (few enough groups
    /// that the grouping writes few streams at once), and per band of CSC rows.
    group_bytes: usize,
    /// Dense outputs of at least this many elements are filled by several threads.
    parallel_min: usize,
}

/// The sizes the conversions use.
const TUNING: Tuning = Tuning {
    offsets: 4096,
    fill_bytes: 256 * 1024,
    group_bytes: 2 * 1024 * 1024,
    parallel_min: crate::parallel::PARALLEL_MIN,
};

/// Expands to a dense row-major tensor; see [`crate::convert::to_dense`]. `threads` as in
/// [`crate::convert::ConvertOptions::threads`] (used by canonical COO, CSR, CSC and
/// identity-order CSF inputs of at least 2^20 elements).
pub(crate) fn expand(s: &SparseTensor, max_elements: usize, threads: usize) -> Result<Tensor> {
    to_dense_tuned(s, max_elements, threads, &TUNING)
}

/// [`expand`] with the sizes of `t`.
fn to_dense_tuned(
    s: &SparseTensor,
    max_elements: usize,
    threads: usize,
    t: &Tuning,
) -> Result<Tensor> {
    let total = element_count(s.shape()).ok_or_else(|| ErrorKind::Overflow {
        quantity: crate::Quantity::ElementCount {
            shape: s.shape().to_vec(),
        },
    })?;
    if total > max_elements {
        return fail(ErrorKind::LimitExceeded {
            what: "dense element count",
            value: total as u64,
            limit: max_elements as u64,
        });
    }
    let Ok(s) = validated(s) else {
        // Index data that breaks a rule: the checked general path reports or tolerates it.
        return s.to_dense_checked(max_elements);
    };
    let w = s.value_type().byte_width();
    match total.checked_mul(w) {
        Some(bytes) if bytes <= isize::MAX as usize => {}
        _ => {
            return fail(ErrorKind::Overflow {
                quantity: crate::Quantity::ByteSize {
                    shape: s.shape().to_vec(),
                },
            })
        }
    }
    // Values are moved, never computed with, unless duplicates are summed: the paths that
    // move them are compiled per byte width (an unsigned integer of the values' width
    // carries their bits), the one that sums per value type.
    let may_repeat = matches!(s.index(), SparseIndex::Coo(c) if !c.is_canonical());
    let data = if may_repeat {
        crate::dispatch_value!(s.value_type(), T => {
            let values = s.values::<T>().unwrap_or_default();
            Buffer::from_vec(fill_summed::<T>(&s, values, total, t)?)
        })
    } else {
        match w {
            1 => Buffer::from_vec(fill_dense::<u8>(&s, total, threads, t)?),
            2 => Buffer::from_vec(fill_dense::<u16>(&s, total, threads, t)?),
            4 => Buffer::from_vec(fill_dense::<u32>(&s, total, threads, t)?),
            _ => Buffer::from_vec(fill_dense::<u64>(&s, total, threads, t)?),
        }
    };
    Tensor::try_new(
        s.value_type(),
        s.shape(),
        row_major_strides(s.shape(), w),
        data,
    )?
    .with_dim_names(s.dim_names().iter().cloned())
}

/// The `total` row-major elements of the strictly validated `s`, whose index may hold
/// duplicates (a non-canonical COO index): grouped by block, duplicates summed as `T`s.
fn fill_summed<T: NativeValue>(
    s: &SparseTensor,
    values: &[T],
    total: usize,
    t: &Tuning,
) -> Result<Vec<T>> {
    let shift = (t.group_bytes / std::mem::size_of::<T>()).max(1).ilog2();
    let mut fill = Fill::<T>::new(total, shift, true)?;
    fill::put_grouped(s, values, &mut fill, total, t)?;
    Ok(fill.finish())
}

/// The `total` row-major elements of the strictly validated `s`, whose index holds no
/// duplicate, moved as `T`s: an unsigned integer type of the values' byte width.
fn fill_dense<T: NativeValue>(
    s: &SparseTensor,
    total: usize,
    threads: usize,
    t: &Tuning,
) -> Result<Vec<T>> {
    let values = crate::array::typed::<T>(s.values_buffer()).unwrap_or_default();
    let (sorted, may_repeat) = match s.index() {
        // Canonical: sorted row-major whatever the matrix layout; else duplicates possible.
        SparseIndex::Coo(c) => (c.is_canonical(), !c.is_canonical()),
        SparseIndex::Csx(c) => (c.axis().dim() == 0, false),
        SparseIndex::Csf(c) => (
            c.axis_order().iter().enumerate().all(|(k, &d)| k == d),
            false,
        ),
    };
    if let SparseIndex::Csx(c) = s.index() {
        if c.axis() == CompressedAxis::Column {
            return csx::csc_to_dense(c, s.shape(), values, threads, t);
        }
    }
    let parts = thread_count(threads);
    if sorted && parts > 1 && total >= t.parallel_min {
        let out = match s.index() {
            SparseIndex::Coo(c) if s.ndim() > 0 && c.order() == CooOrder::RowMajor => Some(
                coo::fill_sorted_parallel(c, s.shape(), values, total, parts, t)?,
            ),
            _ => nodes::fill_parallel_by_node(s, values, total, parts, t)?,
        };
        if let Some(out) = out {
            return Ok(out);
        }
    }
    // A power of two, so that block numbers are shifts.
    let block_bytes = if sorted { t.fill_bytes } else { t.group_bytes };
    let shift = (block_bytes / std::mem::size_of::<T>()).max(1).ilog2();
    let mut fill = Fill::<T>::new(total, shift, may_repeat)?;
    if sorted {
        // Row-major COO, CSR and identity-order CSF go from index to output directly; the
        // others (column-major and rank-0 COO) through blocks of offsets.
        match s.index() {
            SparseIndex::Coo(c) if c.order() == CooOrder::RowMajor && s.ndim() > 0 => {
                coo::put_sorted(c, s.shape(), values, &mut fill)?;
            }
            SparseIndex::Csx(c) if c.axis() == CompressedAxis::Row => {
                csx::put_csr(c, s.shape()[1], values, &mut fill)?;
            }
            SparseIndex::Csf(c) => csf::put_sorted(c, s.shape(), values, &mut fill)?,
            _ => for_each_offset_block(s, t, &mut |offsets, first| {
                fill.put_all(offsets, &values[first..first + offsets.len()]);
            })?,
        }
    } else {
        fill::put_grouped(s, values, &mut fill, total, t)?;
    }
    Ok(fill.finish())
}

/// Calls `f(offsets, first)` with the row-major linear offsets of the stored values
/// `first..first + offsets.len()`, at most `t.offsets` at a time, in storage order.
fn for_each_offset_block(
    s: &SparseTensor,
    t: &Tuning,
    f: &mut dyn FnMut(&[usize], usize),
) -> Result<()> {
    let mut block: Vec<usize> = Vec::with_capacity(t.offsets);
    match s.index() {
        SparseIndex::Coo(c) => coo::offsets(c, s.shape(), s.nnz(), t, &mut block, f),
        SparseIndex::Csx(c) => csx::offsets(c, s.shape()[1], t.offsets, &mut block, f),
        SparseIndex::Csf(c) => csf::offsets(c, s.shape(), t.offsets, &mut block, f),
    }
}
