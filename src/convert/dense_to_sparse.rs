//! Dense [`Tensor`] to any sparse layout: one pass over the elements in memory order.
//!
//! The elements are visited in the order they lie in memory (dimensions by decreasing
//! stride), so a row-major tensor is read front to back and a column-major one too; the
//! innermost dimension is scanned 64 elements at a time into a bit mask of non-zeros whose
//! set bits are then emitted (no branch per element). The entries come out sorted in that
//! memory order, and [`Entries::finish`] re-sorts them with counting sorts only where the
//! target layout needs another order (for a row-major matrix: none for COO, CSR and CSF,
//! one pass for CSC).

use super::entries::{check_index_len, check_rank, dispatch_work, needs_wide, Entries};
use super::ConvertOptions;
use crate::array::typed;
use crate::error::Result;
use crate::parallel;
use crate::tensor::row_major_strides;
use crate::types::{NativeIndex, NativeValue};
use crate::{SparseFormat, SparseTensor, Tensor, ValueType};
use arrow_buffer::Buffer;
use std::ops::Range;

/// Converts a dense tensor to `format`.
pub(crate) fn from_dense(
    t: &Tensor,
    format: SparseFormat,
    opts: &ConvertOptions,
) -> Result<SparseTensor> {
    let shape = t.shape();
    check_rank(format, shape.len())?;
    check_index_len(format, shape, t.len(), &opts.limits)?;
    let csf_order = match format {
        SparseFormat::Csf => opts.axis_order.resolve(shape)?,
        _ => Vec::new(),
    };
    let wide = needs_wide(shape)?;
    let (data, es) = element_view(t);
    let vt = t.value_type();
    // Integers are zero exactly when their bits are, whatever their sign: they are scanned
    // and moved as unsigned integers of their width (one compiled copy per width), floats
    // as themselves (-0.0 is zero, NaN is not).
    let job = Job {
        data: &data,
        es: &es,
        tensor: t,
        format,
        opts,
        csf_order: &csf_order,
        wide,
    };
    let out = match vt {
        ValueType::Float16 => job.run::<crate::f16>(),
        ValueType::Float32 => job.run::<f32>(),
        ValueType::Float64 => job.run::<f64>(),
        _ => match vt.byte_width() {
            1 => job.run::<u8>(),
            2 => job.run::<u16>(),
            4 => job.run::<u32>(),
            _ => job.run::<u64>(),
        },
    }?;
    Ok(out.with_values_as(vt))
}

/// What [`from_dense`] scans, for [`Job::run`].
struct Job<'a> {
    data: &'a Buffer,
    es: &'a [usize],
    tensor: &'a Tensor,
    format: SparseFormat,
    opts: &'a ConvertOptions,
    csf_order: &'a [usize],
    wide: bool,
}

impl Job<'_> {
    /// The scan and the sparse result with the elements read as `T`s (the result's value
    /// type is `T`'s).
    fn run<T: NativeValue>(&self) -> Result<SparseTensor> {
        let elements = typed::<T>(self.data).unwrap_or_default();
        let shape = self.tensor.shape();
        dispatch_work!(self.wide, W => {
            let entries = scan::<T, W>(elements, shape, self.es, self.opts.threads)?;
            entries.finish(
                self.format,
                shape,
                self.tensor.dim_names(),
                self.opts.index_type,
                self.csf_order,
            )
        })
    }
}

/// The data as an aligned buffer of whole elements with element strides: the tensor's own
/// buffer when possible, else a row-major copy.
fn element_view(t: &Tensor) -> (Buffer, Vec<usize>) {
    let w = t.value_type().byte_width();
    let data = t.data();
    let strides_whole = t
        .shape()
        .iter()
        .zip(t.strides())
        .all(|(&d, &s)| d <= 1 || s % w == 0);
    let aligned = data.is_empty() || (data.as_ptr() as usize).is_multiple_of(w);
    if strides_whole && aligned && data.len().is_multiple_of(w) {
        let es = t
            .shape()
            .iter()
            .zip(t.strides())
            .map(|(&d, &s)| if d <= 1 { 0 } else { s / w })
            .collect();
        return (data.clone(), es);
    }
    // Copy into a fresh (64-byte aligned) buffer in row-major order.
    let copy = Buffer::from_slice_ref(t.row_major_bytes().as_slice());
    (copy, row_major_strides(t.shape(), 1))
}

/// Row template of `N` coordinates (a fixed array) or of any length (a vector).
trait Template<W>: AsRef<[W]> + AsMut<[W]> {}
impl<W, const N: usize> Template<W> for [W; N] {}
impl<W> Template<W> for Vec<W> {}

/// The non-zero entries of a strided tensor, in memory order, scanned by the threads
/// [`crate::parallel::threads_for`] gives for `threads` (each takes a range of the
/// outermost walked dimension).
fn scan<T: NativeValue, W: NativeIndex>(
    data: &[T],
    shape: &[usize],
    es: &[usize],
    threads: usize,
) -> Result<Entries<T, W>> {
    let ndim = shape.len();
    // Walk the dimensions of size > 1 by decreasing stride (stable: ties keep dimension
    // order); dimensions of size 1 stay at coordinate 0.
    let mut walk: Vec<usize> = (0..ndim).filter(|&d| shape[d] > 1).collect();
    walk.sort_by(|&a, &b| es[b].cmp(&es[a]));
    let mut e = Entries {
        ndim,
        coords: Vec::new(),
        values: Vec::new(),
        order: Some(walk.clone()),
    };
    if shape.contains(&0) {
        return Ok(e);
    }
    let total: usize = shape.iter().product();
    let outer_len = walk.first().map_or(1, |&d| shape[d]);
    let parts = parallel::threads_for(total, threads).clamp(1, outer_len);
    // Room for the expected entries up front: growing by doubling would copy them (only
    // a hint: without the memory, the vectors grow as they go).
    let expected = estimate_nnz(data, total);
    let _ = e.coords.try_reserve_exact(expected * ndim);
    let _ = e.values.try_reserve_exact(expected);
    let range = |p: usize| outer_len * p / parts..outer_len * (p + 1) / parts;
    if parts == 1 {
        scan_part(data, shape, es, &walk, range(0), &mut e);
        return Ok(e);
    }
    // The first part goes into `e`, which has room for all; the others into their own.
    let share = expected / parts + 1024;
    let mut parts_in = vec![e];
    parts_in.extend((1..parts).map(|_| unordered(ndim, share)));
    let walk = &walk;
    let found = parallel::run(parts, parts_in, "a dense to sparse scan", |p, mut part| {
        scan_part(data, shape, es, walk, range(p), &mut part);
        part
    })?;
    let mut found = found.into_iter();
    // One result per part: `parts > 1` of them.
    let mut e = found.next().unwrap_or_else(|| unordered(ndim, 0));
    for part in found {
        e.coords.extend_from_slice(&part.coords);
        e.values.extend_from_slice(&part.values);
    }
    Ok(e)
}

/// No entries, in no known order, with room for about `room` of them (a hint: without the
/// memory, the vectors grow as they go).
fn unordered<T: NativeValue, W: NativeIndex>(ndim: usize, room: usize) -> Entries<T, W> {
    let mut e = Entries {
        ndim,
        coords: Vec::new(),
        values: Vec::new(),
        order: None,
    };
    let _ = e.coords.try_reserve_exact(room * ndim);
    let _ = e.values.try_reserve_exact(room);
    e
}

/// Scans the positions `range` of the outermost walked dimension.
fn scan_part<T: NativeValue, W: NativeIndex>(
    data: &[T],
    shape: &[usize],
    es: &[usize],
    walk: &[usize],
    range: Range<usize>,
    e: &mut Entries<T, W>,
) {
    let w = W::default();
    match shape.len() {
        1 => scan_with(data, shape, es, walk, range, [w; 1], e),
        2 => scan_with(data, shape, es, walk, range, [w; 2], e),
        3 => scan_with(data, shape, es, walk, range, [w; 3], e),
        4 => scan_with(data, shape, es, walk, range, [w; 4], e),
        n => scan_with(data, shape, es, walk, range, vec![w; n], e),
    }
}

/// Entries are staged in fixed buffers (indexed writes, no capacity check per entry) and
/// appended to the result in batches of about this many.
const STAGE: usize = 1024;

/// The staging buffers: room for `STAGE + 64` entries.
struct Stage<T, W> {
    coords: Vec<W>,
    values: Vec<T>,
    len: usize,
}

impl<T: NativeValue, W: NativeIndex> Stage<T, W> {
    fn new(ndim: usize) -> Self {
        Stage {
            coords: vec![W::default(); (STAGE + 64) * ndim],
            values: vec![T::ZERO; STAGE + 64],
            len: 0,
        }
    }

    fn flush(&mut self, ndim: usize, e: &mut Entries<T, W>) {
        e.coords.extend_from_slice(&self.coords[..self.len * ndim]);
        e.values.extend_from_slice(&self.values[..self.len]);
        self.len = 0;
    }
}

fn scan_with<T: NativeValue, W: NativeIndex, R: Template<W>>(
    data: &[T],
    shape: &[usize],
    es: &[usize],
    walk: &[usize],
    range: Range<usize>,
    mut row: R,
    e: &mut Entries<T, W>,
) {
    let ndim = row.as_ref().len();
    let mut stage = Stage::new(ndim);
    match walk {
        [] => {
            // Every dimension has size 1 (or rank 0): one element.
            if let Some(&v) = data.first() {
                if !v.is_zero() {
                    e.coords.extend_from_slice(row.as_ref());
                    e.values.push(v);
                }
            }
        }
        &[inner] => {
            let (start, stride) = (range.start, es[inner]);
            let line = &data[start * stride..];
            scan_line(
                line,
                range.len(),
                stride,
                start,
                inner,
                &mut row,
                &mut stage,
                e,
            );
        }
        &[.., inner] => {
            let outer = &walk[..walk.len() - 1];
            let (len, stride) = (shape[inner], es[inner]);
            let mut idx = vec![0usize; outer.len()];
            idx[0] = range.start;
            let mut base = range.start * es[outer[0]];
            'lines: loop {
                for (&d, &i) in outer.iter().zip(&idx) {
                    row.as_mut()[d] = W::usize_as(i);
                }
                let line = if stride == 1 {
                    &data[base..base + len]
                } else {
                    &data[base..]
                };
                scan_line(line, len, stride, 0, inner, &mut row, &mut stage, e);
                // Next position of the outer dimensions (odometer, last one fastest).
                let mut k = outer.len();
                loop {
                    k -= 1;
                    let d = outer[k];
                    idx[k] += 1;
                    base += es[d];
                    if k == 0 {
                        if idx[0] < range.end {
                            break;
                        }
                        break 'lines;
                    }
                    if idx[k] < shape[d] {
                        break;
                    }
                    base -= es[d] * shape[d];
                    idx[k] = 0;
                }
            }
        }
    }
    stage.flush(ndim, e);
}

/// A capacity hint for the number of non-zeros of a large tensor: the density of 256
/// windows of 64 elements spread over the data, times the element count, plus 1/8.
fn estimate_nnz<T: NativeValue>(data: &[T], total: usize) -> usize {
    const WINDOWS: usize = 256;
    const WIDTH: usize = 64;
    if total < 1 << 16 || data.len() < WINDOWS * WIDTH {
        return 0;
    }
    let step = data.len() / WINDOWS;
    let seen: usize = (0..WINDOWS)
        .map(|k| non_zero_mask(&data[k * step..k * step + WIDTH]).count_ones() as usize)
        .sum();
    let density = seen as f64 / (WINDOWS * WIDTH) as f64;
    ((density * 1.125 * total as f64) as usize + 1024).min(total)
}

/// Bit `b` set when `chunk[b]` is a non-zero (`chunk.len() <= 64`).
#[inline(always)]
fn non_zero_mask<T: NativeValue>(chunk: &[T]) -> u64 {
    if chunk.len() == 64 {
        // Eight bytes of 0/1 flags gathered into eight bits by one multiplication: the
        // flags vectorize, and no bit needs a shift of its own.
        let mut mask = 0u64;
        for (k, group) in chunk.chunks_exact(8).enumerate() {
            let mut flags = [0u8; 8];
            for (f, v) in flags.iter_mut().zip(group) {
                *f = u8::from(!v.is_zero());
            }
            let bits = u64::from_le_bytes(flags).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            mask |= bits << (8 * k);
        }
        return mask;
    }
    let mut mask = 0u64;
    for (b, v) in chunk.iter().enumerate() {
        mask |= u64::from(!v.is_zero()) << b;
    }
    mask
}

/// Scans one line of the innermost walked dimension: `len` elements `stride` apart from
/// the start of `data`, at coordinates `first..first + len`, staging its non-zeros.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn scan_line<T: NativeValue, W: NativeIndex, R: Template<W>>(
    data: &[T],
    len: usize,
    stride: usize,
    first: usize,
    inner: usize,
    row: &mut R,
    stage: &mut Stage<T, W>,
    e: &mut Entries<T, W>,
) {
    let n = row.as_ref().len();
    let mut gathered = [T::ZERO; 64];
    let mut j0 = 0;
    while j0 < len {
        let m = (len - j0).min(64);
        let chunk: &[T] = if stride == 1 {
            &data[j0..j0 + m]
        } else {
            for (k, slot) in gathered[..m].iter_mut().enumerate() {
                *slot = data[(j0 + k) * stride];
            }
            &gathered[..m]
        };
        let mut mask = non_zero_mask(chunk);
        if stage.len > STAGE {
            stage.flush(n, e);
        }
        let mut k = stage.len;
        let (coords, values) = (&mut stage.coords[..], &mut stage.values[..]);
        // The template is copied as it is and the inner coordinate written over its slot:
        // writing the coordinate into the template first would make each copy wait for
        // that narrower store (a failed store-to-load forward, about a third of the time
        // of a dense to COO conversion).
        let row = row.as_ref();
        while mask != 0 {
            let b = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let entry = &mut coords[k * n..(k + 1) * n];
            entry.copy_from_slice(row);
            entry[inner] = W::usize_as(first + j0 + b);
            values[k] = chunk[b];
            k += 1;
        }
        stage.len = k;
        j0 += m;
    }
}
