//! What a caller controls in a conversion: [`ConvertOptions`] and [`CsfAxisOrder`].

use crate::codec::options::Limits;
use crate::error::{fail, ErrorKind, Result};
use crate::types::IndexType;

/// The order in which a CSF result stores the dimensions (its `axisOrder`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CsfAxisOrder {
    /// `0, 1, .., ndim - 1` (the default, as the seed CSF layout recommends): leaves come
    /// out in row-major order.
    #[default]
    Identity,
    /// Arrow C++'s choice: dimensions by ascending size, ties broken by dimension number
    /// (what `SparseCSFTensor::Make` produces from a dense tensor).
    AscendingSize,
    /// An explicit permutation of `0..ndim`.
    Explicit(Vec<usize>),
}

impl CsfAxisOrder {
    /// The permutation for a shape. Fails when an explicit order is not a permutation of
    /// `0..shape.len()`.
    pub fn resolve(&self, shape: &[usize]) -> Result<Vec<usize>> {
        let n = shape.len();
        match self {
            CsfAxisOrder::Identity => Ok((0..n).collect()),
            CsfAxisOrder::AscendingSize => {
                let mut order: Vec<usize> = (0..n).collect();
                // Stable: equal sizes keep their dimension order.
                order.sort_by_key(|&d| shape[d]);
                Ok(order)
            }
            CsfAxisOrder::Explicit(order) => {
                let mut seen = vec![false; n];
                let ok = order.len() == n
                    && order
                        .iter()
                        .all(|&d| d < n && !std::mem::replace(&mut seen[d], true));
                if !ok {
                    return fail(ErrorKind::NotAPermutation(
                        order.iter().map(|&d| d as i64).collect(),
                    ));
                }
                Ok(order.clone())
            }
        }
    }
}

/// Options of the conversions in [`crate::convert`].
///
/// ```
/// use arrow_tensor_ipc::{ConvertOptions, CsfAxisOrder};
/// use arrow_tensor_ipc::IndexType;
/// let opts = ConvertOptions::default()
///     .with_index_type(IndexType::Int64)
///     .with_axis_order(CsfAxisOrder::AscendingSize);
/// assert_eq!(opts.index_type, Some(IndexType::Int64));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// The integer type of every index array of the result. `None` (the default) picks the
    /// narrowest of int8, int16, int32 and int64 that holds every dimension size, the
    /// number of stored values and the length of every index array of the result: the
    /// narrowest type Arrow C++ reads the result with. An explicit type must hold every
    /// coordinate of the shape and, for CSR, CSC and CSF, the number of stored values;
    /// otherwise the conversion fails with [`ErrorKind::IndexTypeTooNarrow`].
    pub index_type: Option<IndexType>,
    /// The dimension order of a CSF result (ignored by the other layouts).
    pub axis_order: CsfAxisOrder,
    /// Sparse to sparse conversions keep every stored value, zeros included (a stored
    /// zero is data, as in scipy). With `drop_zeros`, stored values that are zeros (after
    /// duplicates are summed) are left out, by the same rule dense inputs follow: see
    /// [`crate::convert`]. Dense inputs never store zeros, whatever this says.
    pub drop_zeros: bool,
    /// Threads a dense input of at least 2^20 elements is scanned with, and a dense output
    /// of at least 2^20 elements filled with (from canonical COO, CSR, CSC and
    /// identity-order CSF): 0 (the default) for as many as
    /// [`std::thread::available_parallelism`] reports (at most 8), 1 for the calling thread
    /// only, `n` for up to `n`. The result does not depend on it. Smaller tensors always
    /// stay on the calling thread. Set 1 where the caller already keeps every core busy
    /// (more threads then do not make a conversion faster).
    pub threads: usize,
    /// Limits on what a conversion allocates beyond what its input backs: a CSR or CSC
    /// result whose indptr (`shape[k] + 1` entries) is longer than both
    /// [`Limits::max_index_len`] and the input's backing (its stored values or elements
    /// and its index arrays, plus one) is refused with
    /// [`ErrorKind::LimitExceeded`] before anything is allocated. Default
    /// [`Limits::default`].
    pub limits: Limits,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            index_type: None,
            axis_order: CsfAxisOrder::Identity,
            drop_zeros: false,
            threads: 0,
            limits: Limits::default(),
        }
    }
}

impl ConvertOptions {
    /// Sets [`ConvertOptions::index_type`] to an explicit type.
    pub fn with_index_type(mut self, index_type: IndexType) -> Self {
        self.index_type = Some(index_type);
        self
    }

    /// Sets [`ConvertOptions::axis_order`].
    pub fn with_axis_order(mut self, axis_order: CsfAxisOrder) -> Self {
        self.axis_order = axis_order;
        self
    }

    /// Sets [`ConvertOptions::threads`].
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets [`ConvertOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the `max_dense_elements` of [`ConvertOptions::limits`]: the largest dense
    /// tensor an expansion may produce.
    pub fn with_max_dense_elements(mut self, elements: usize) -> Self {
        self.limits.max_dense_elements = elements;
        self
    }

    /// Sets [`ConvertOptions::drop_zeros`].
    pub fn with_drop_zeros(mut self, drop_zeros: bool) -> Self {
        self.drop_zeros = drop_zeros;
        self
    }
}
