//! Inputs shared by `benches/codec.rs` and `examples/compare.rs` (included with `#[path]`;
//! not a target of its own). Deterministic: splitmix64 with a fixed seed.

#![allow(dead_code)]

use arrow_tensor_ipc::{
    CompressedAxis, CooIndex, CsfIndex, CsxIndex, IndexArray, NativeIndex, SparseIndex,
    SparseTensor, Tensor, ValueType,
};

pub const SEED: u64 = 0x243F_6A88_85A3_08D3;

pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A row-major float64 tensor whose data is `body_bytes` long (a multiple of 1 KiB):
/// shape `[body_bytes / 1024, 128]`.
pub fn dense(body_bytes: usize) -> Tensor {
    let n = body_bytes / 8;
    let data: Vec<f64> = (0..n).map(|i| i as f64).collect();
    Tensor::from_vec(vec![n / 128, 128], data).expect("dense input")
}

/// The sparse layouts benchmarked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// 3-D COO, row-major coordinates, canonical.
    Coo,
    /// 2-D CSR.
    Csr,
    /// 2-D CSC.
    Csc,
    /// 3-D CSF, axis order 0, 1, 2.
    Csf,
}

pub const LAYOUTS: [Layout; 4] = [Layout::Coo, Layout::Csr, Layout::Csc, Layout::Csf];

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Coo => "coo",
            Layout::Csr => "csr",
            Layout::Csc => "csc",
            Layout::Csf => "csf",
        }
    }

    pub fn rank(self) -> usize {
        match self {
            Layout::Csr | Layout::Csc => 2,
            Layout::Coo | Layout::Csf => 3,
        }
    }
}

/// Side of a cube (or square) of `rank` dimensions with at least 16 cells per non-zero.
pub fn side(nnz: usize, rank: usize) -> usize {
    let cells = 16.0 * nnz as f64;
    (cells.powf(1.0 / rank as f64).ceil() as usize).max(2)
}

/// `nnz` strictly increasing linear positions in `0..total` (one per stride of
/// `total / nnz` cells, at a pseudo-random offset within it).
pub fn positions(total: usize, nnz: usize) -> Vec<usize> {
    let stride = total / nnz.max(1);
    let mut state = SEED;
    (0..nnz)
        .map(|i| i * stride + (splitmix64(&mut state) % stride as u64) as usize)
        .collect()
}

fn ix<I: NativeIndex>(v: usize) -> I {
    I::from_u64(v as u64).expect("index fits")
}

/// A float64 sparse tensor of `nnz` non-zeros in `layout` with index type `I`.
pub fn sparse<I: NativeIndex>(layout: Layout, nnz: usize) -> SparseTensor {
    let rank = layout.rank();
    let s = side(nnz, rank);
    let shape = vec![s; rank];
    let total: usize = shape.iter().product();
    let pos = positions(total, nnz);
    let values: Vec<f64> = (0..nnz).map(|i| (i % 1000 + 1) as f64).collect();
    let index = match layout {
        Layout::Coo => {
            let mut coords: Vec<I> = Vec::with_capacity(nnz * 3);
            for &p in &pos {
                coords.extend([ix::<I>(p / (s * s)), ix::<I>(p / s % s), ix::<I>(p % s)]);
            }
            SparseIndex::Coo(CooIndex::new(IndexArray::from_vec(coords), 3).expect("coo"))
        }
        Layout::Csr | Layout::Csc => {
            // Positions are (outer, inner) pairs in outer-major order for both layouts.
            let mut indptr: Vec<I> = Vec::with_capacity(s + 1);
            let mut indices: Vec<I> = Vec::with_capacity(nnz);
            indptr.push(ix(0));
            let mut k = 0;
            for outer in 0..s {
                while k < nnz && pos[k] / s == outer {
                    indices.push(ix(pos[k] % s));
                    k += 1;
                }
                indptr.push(ix(k));
            }
            let axis = if layout == Layout::Csr {
                CompressedAxis::Row
            } else {
                CompressedAxis::Column
            };
            SparseIndex::Csx(
                CsxIndex::new(
                    axis,
                    IndexArray::from_vec(indptr),
                    IndexArray::from_vec(indices),
                )
                .unwrap(),
            )
        }
        Layout::Csf => {
            let mut idx: [Vec<I>; 3] = Default::default();
            let mut ptr: [Vec<I>; 2] = [vec![ix(0)], vec![ix(0)]];
            let mut last: Option<(usize, usize)> = None;
            for &p in &pos {
                let (a, b, c) = (p / (s * s), p / s % s, p % s);
                if last.map(|l| l.0) != Some(a) {
                    if last.is_some() {
                        ptr[0].push(ix(idx[1].len()));
                    }
                    idx[0].push(ix(a));
                }
                if last != Some((a, b)) {
                    if last.is_some() {
                        ptr[1].push(ix(idx[2].len()));
                    }
                    idx[1].push(ix(b));
                }
                idx[2].push(ix(c));
                last = Some((a, b));
            }
            ptr[0].push(ix(idx[1].len()));
            ptr[1].push(ix(idx[2].len()));
            let [p0, p1] = ptr;
            SparseIndex::Csf(
                CsfIndex::new(
                    vec![0, 1, 2],
                    vec![IndexArray::from_vec(p0), IndexArray::from_vec(p1)],
                    idx.into_iter().map(IndexArray::from_vec).collect(),
                )
                .unwrap(),
            )
        }
    };
    SparseTensor::try_new_with_duplicates(
        ValueType::Float64,
        shape,
        arrow_buffer::Buffer::from_vec(values),
        index,
    )
    .expect("sparse input")
}

/// Bytes of index data (what strict validation reads).
pub fn index_bytes(t: &SparseTensor) -> usize {
    match t.index() {
        SparseIndex::Coo(c) => c.indices().buffer().len(),
        SparseIndex::Csx(c) => c.indptr().buffer().len() + c.indices().buffer().len(),
        SparseIndex::Csf(c) => c
            .indptr()
            .iter()
            .chain(c.indices())
            .map(|a| a.buffer().len())
            .sum(),
    }
}

/// Strict validation alone: rebuilds the tensor from its (shared) parts, which runs the
/// structure and content checks of a strict decode and nothing else.
pub fn validate_strict(t: &SparseTensor) -> SparseTensor {
    SparseTensor::try_new_with_duplicates(
        t.value_type(),
        t.shape(),
        t.values_buffer().clone(),
        t.index().clone(),
    )
    .expect("valid")
}

/// `n` lookup coordinates: even ones are stored entries, odd ones random cells.
pub fn lookups(t: &SparseTensor, n: usize) -> Vec<Vec<usize>> {
    let shape = t.shape().to_vec();
    let total: usize = shape.iter().product();
    let pos = positions(total, t.nnz());
    let mut state = SEED ^ 0x5555;
    (0..n)
        .map(|k| {
            let r = splitmix64(&mut state) as usize;
            let mut p = if k % 2 == 0 {
                pos[r % pos.len()]
            } else {
                r % total
            };
            let mut c = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                c[d] = p % shape[d];
                p /= shape[d];
            }
            c
        })
        .collect()
}
