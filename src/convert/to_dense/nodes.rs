//! CSR and identity-order CSF on several threads: the nodes of the level above the leaves
//! (CSR: the rows) come in row-major order, each owning the output from its base to the
//! next node's base, so the output splits at node boundaries into one range per thread.

use super::fill::SortedFill;
use super::{csf, csx, Tuning};
use crate::error::Result;
use crate::parallel::fill::fill_parallel;
use crate::sparse::{typed_index, CompressedAxis, SparseIndex};
use crate::types::NativeValue;
use crate::SparseTensor;
use arrow_buffer::ArrowNativeType;

/// The dense output of CSR or identity-order CSF `s` on up to `parts` threads; `None` for
/// the other layouts.
pub(super) fn fill_parallel_by_node<T: NativeValue>(
    s: &SparseTensor,
    values: &[T],
    total: usize,
    parts: usize,
    t: &Tuning,
) -> Result<Option<Vec<T>>> {
    let shape = s.shape();
    let (parents, starts, leaves) = match s.index() {
        SparseIndex::Csx(c) if c.axis() == CompressedAxis::Row => {
            let ncols = shape[1];
            let starts = csx::indptr(c)?;
            let parents: Vec<usize> = (0..shape[0]).map(|r| r * ncols).collect();
            (parents, starts, c.indices())
        }
        SparseIndex::Csf(c) if c.axis_order().iter().enumerate().all(|(k, &d)| k == d) => {
            let (parents, starts) = csf::parents(c, shape)?;
            match c.indices().last() {
                Some(leaves) => (parents, starts, leaves),
                None => return Ok(None),
            }
        }
        _ => return Ok(None),
    };
    let nodes = parents.len();
    let parts = parts.clamp(1, nodes.max(1));
    // Output boundaries at the bases of the first node of every part.
    let first = |p: usize| nodes * p / parts;
    let bounds: Vec<usize> = (0..=parts)
        .map(|p| match p {
            0 => 0,
            p if p == parts => total,
            p => parents[first(p)],
        })
        .collect();
    let out = crate::dispatch_index!(leaves.index_type(), I => {
        let leaves = typed_index::<I>(leaves)?;
        let (parents, starts, bounds) = (&parents, &starts, &bounds);
        fill_parallel(total, bounds, |p, out| {
            let lo = bounds[p];
            let mut fill = SortedFill::new(out, t.fill_bytes);
            for n in first(p)..first(p + 1) {
                let base = parents[n] - lo;
                let (a, b) = (starts[n], starts[n + 1]);
                for (j, &v) in leaves[a..b].iter().zip(&values[a..b]) {
                    fill.put(base + j.as_usize(), v);
                }
            }
            fill.finish()
        })?
    });
    Ok(Some(out))
}
