//! Sparse and dense tensors to COO tables: the fast paths that take the columns of a CSR,
//! CSC or CSF index as they are, and the split of a COO coordinate matrix into columns.

use super::{cast_index, coordinate_type, shares, CooTableInfo, COO_TABLE_KEY, VALUE_COLUMN};
use crate::convert;
use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::{data_type, index_data_type, primitive_array};
use crate::ConvertOptions;
use crate::{
    CooIndex, IndexArray, IndexType, NativeIndex, SparseFormat, SparseIndex, SparseTensor, Tensor,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_buffer::Buffer;
use arrow_schema::{Field, Schema};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// A sparse tensor (any layout) as a COO table: its stored values in storage order (a COO
/// tensor's order, row by row for CSR, column by column for CSC, row-major for CSF),
/// coordinates in columns of the shape's [`coordinate_type`] (whatever the tensor's index
/// type, so that tensors of one shape and layout give one schema). CSR, CSC and CSF in the
/// identity axis order take no conversion: their (leaf) indices buffer is a column as it
/// is (copied only when its type differs), the other coordinates are expanded from indptr.
///
/// A tensor read permissively has its index checked first (strict validation's contents
/// check): a coordinate outside the shape or a malformed indptr is an error, not a table
/// of bogus coordinates. Entries out of order (indices unsorted within a row) are written
/// as stored; reading the table back sorts them.
///
/// ```
/// use arrow_tensor_ipc::record_batch::{coo_table_to_sparse, sparse_to_coo_table};
/// use arrow_tensor_ipc::{ConvertOptions, SparseFormat, SparseTensor};
///
/// let csr = SparseTensor::csr([3, 4], vec![0i32, 1, 1, 3], vec![2, 0, 3], vec![1.5f64, -2.0, 4.0])?
///     .with_dim_names(["row", "col"])?;
/// let table = sparse_to_coo_table(&csr)?;
/// assert_eq!(table.num_rows(), 3);
/// assert_eq!(table.schema().field(0).name(), "row");
/// // Coordinates below 4: int8 columns.
/// assert_eq!(table.schema().field(0).data_type(), &arrow_schema::DataType::Int8);
/// // Back with the index type a conversion picks by content (int8 here).
/// let back = coo_table_to_sparse(&table, None)?;
/// let by_content = csr.to_format_with(SparseFormat::Csr, &ConvertOptions::default())?;
/// assert!(back.content_eq(&by_content));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn sparse_to_coo_table(tensor: &SparseTensor) -> Result<RecordBatch> {
    check_coordinates(tensor)?;
    let it = coordinate_type(tensor.shape());
    let axis_order = match tensor.index() {
        SparseIndex::Csf(c) => Some(c.axis_order().to_vec()),
        _ => None,
    };
    let info = CooTableInfo {
        shape: tensor.shape().to_vec(),
        dim_names: tensor.dim_names().to_vec(),
        format: tensor.format(),
        index_type: it,
        axis_order,
    };
    if let SparseIndex::Csx(c) = tensor.index() {
        if let Some(columns) =
            crate::dispatch_signed!(it, I => csx_columns::<I>(tensor, c), else None)
        {
            return table_of_columns(columns, it, tensor, &info);
        }
    }
    if let SparseIndex::Csf(c) = tensor.index() {
        let st = c.indices().first().map_or(it, IndexArray::index_type);
        // (`it`, a coordinate type, is signed: an unsigned one takes the general path.)
        if let Some(columns) = crate::dispatch_index!(st, S => crate::dispatch_signed!(it, D => csf_columns::<S, D>(tensor, c), else Ok(None)))?
        {
            return table_of_columns(columns, it, tensor, &info);
        }
    }
    if let SparseIndex::Coo(c) = tensor.index() {
        // The coordinates as they are, in the shape's coordinate type (they fit: every one
        // lies inside the shape, checked above).
        let st = c.indices().index_type();
        let columns = crate::dispatch_index!(st, S => crate::dispatch_signed!(it, D => Some(split_columns::<S, D>(c, tensor.ndim(), tensor.nnz())), else None));
        if let Some(columns) = columns {
            return table_of_columns(columns?, it, tensor, &info);
        }
    }
    let coo = convert::convert(
        tensor,
        SparseFormat::Coo,
        &ConvertOptions::default().with_index_type(it),
    )?;
    table_of_coo(&coo, &info)
}

/// Checks that the stored entries of a tensor read permissively have coordinates: index
/// arrays well formed and every coordinate inside the shape (strict validation's contents
/// check, at memory bandwidth), so that a table of them holds no bogus coordinates. The
/// order of the entries is not a table's concern: indices out of order within a row (or
/// siblings, or a COO flagged canonical but unsorted) pass, since strict validation checks
/// the bounds before the order. A validated tensor passes at once.
fn check_coordinates(t: &SparseTensor) -> Result<()> {
    if t.is_validated() {
        return Ok(());
    }
    match SparseTensor::try_new_with_duplicates(
        t.value_type(),
        t.shape(),
        t.values_buffer().clone(),
        t.index().clone(),
    ) {
        Err(e) if !matches!(e.kind(), ErrorKind::NotIncreasing { .. }) => Err(e),
        _ => Ok(()),
    }
}

/// The coordinate columns of a CSR/CSC tensor in storage order, without a conversion: the
/// compressed axis expanded from indptr, the other the indices buffer itself (no copy).
/// `None` when the compressed axis's numbers do not fit the indices' type or indptr is not
/// well formed (the conversion path then reports it).
fn csx_columns<I: NativeIndex>(t: &SparseTensor, c: &crate::CsxIndex) -> Option<Vec<Buffer>> {
    let axis = c.axis().dim();
    let n = *t.shape().get(axis)?;
    if n > 0 {
        I::from_u64(n as u64 - 1)?;
    }
    let nnz = t.nnz();
    let indptr = c.indptr();
    if indptr.len() != n + 1 || indptr.get(0) != Some(0) {
        return None;
    }
    let mut expanded: Vec<I> = Vec::with_capacity(nnz);
    for i in 0..n {
        let end = usize::try_from(indptr.get(i + 1)?).ok()?;
        if end < expanded.len() || end > nnz {
            return None;
        }
        expanded.resize(end, I::from_u64(i as u64)?);
    }
    if expanded.len() != nnz || c.indices().len() < nnz {
        return None;
    }
    let indices = cast_index(c.indices(), I::TYPE)?
        .buffer()
        .slice_with_length(0, nnz * std::mem::size_of::<I>());
    let expanded = Buffer::from_vec(expanded);
    Some(if axis == 0 {
        vec![expanded, indices]
    } else {
        vec![indices, expanded]
    })
}

/// The coordinate columns of a strictly validated CSF tensor in the identity axis order,
/// in storage (tree, which is row-major) order, without a conversion: the leaf level's
/// indices buffer is its dimension's column as it is (no copy when its type is `D`), and
/// every other level's indices are repeated over the leaves below each node. Large tensors
/// are cut into shares of leaves, one per thread, each filling its rows of every column.
/// `None` when the tensor is not validated, its axis order is not the identity, its index
/// arrays are not all of type `S`, or its tree is inconsistent (the conversion path then
/// handles it); [`ErrorKind::WorkerFailed`] when a thread fails.
fn csf_columns<S: NativeIndex, D: NativeIndex>(
    t: &SparseTensor,
    c: &crate::CsfIndex,
) -> Result<Option<Vec<Buffer>>> {
    let Some(bounds) = csf_leaf_bounds::<S>(t, c) else {
        return Ok(None);
    };
    let (nnz, indices) = (t.nnz(), c.indices());
    let upper: Option<Vec<&[S]>> = (0..bounds.len())
        .map(|k| indices.get(k)?.values::<S>())
        .collect();
    let (Some(upper), Some(leaf_array)) = (upper, indices.last()) else {
        return Ok(None);
    };
    let Some(leaves) = leaf_array.values::<S>().and_then(|v| v.get(..nnz)) else {
        return Ok(None);
    };
    let cast_leaves = S::TYPE != D::TYPE;
    // One output column per upper level, and one for the leaves when they change type.
    let mut cols: Vec<Vec<D>> = (0..bounds.len() + usize::from(cast_leaves))
        .map(|_| vec![D::default(); nnz])
        .collect();
    {
        let (threads, per) = shares(nnz);
        let parts = row_shares(&mut cols, nnz, per);
        let filled = crate::parallel::run(
            threads,
            parts,
            "expanding the CSF levels",
            |_, (rows, mut mine)| {
                let start = rows.start;
                for (k, out) in mine.iter_mut().enumerate() {
                    match (upper.get(k), bounds.get(k)) {
                        (Some(ids), Some(b)) => expand_level(ids, b, start, out)?,
                        _ => cast_into(leaves.get(start..start + out.len())?, out),
                    }
                }
                Some(())
            },
        )?;
        if filled.iter().any(Option::is_none) {
            return Ok(None);
        }
    }
    let mut cols = cols.into_iter().map(Buffer::from_vec);
    let mut by_level: Vec<Buffer> = cols.by_ref().take(bounds.len()).collect();
    by_level.push(match cols.next() {
        Some(cast) => cast,
        None => leaf_array
            .buffer()
            .slice_with_length(0, nnz * std::mem::size_of::<D>()),
    });
    Ok(csf_assemble(by_level, c.axis_order()))
}

/// The rows `0..nnz` of every column in `cols` (each `nnz` long) cut into shares of `per`
/// rows: each share's row range and its slice of every column.
fn row_shares<D>(
    cols: &mut [Vec<D>],
    nnz: usize,
    per: usize,
) -> Vec<(Range<usize>, Vec<&mut [D]>)> {
    let mut rest: Vec<&mut [D]> = cols.iter_mut().map(Vec::as_mut_slice).collect();
    let mut parts = Vec::with_capacity(nnz.div_ceil(per.max(1)));
    let mut start = 0;
    while start < nnz {
        let n = per.max(1).min(nnz - start);
        let mine = rest
            .iter_mut()
            .map(|p| {
                let (head, tail) = std::mem::take(p).split_at_mut(n);
                *p = tail;
                head
            })
            .collect();
        parts.push((start..start + n, mine));
        start += n;
    }
    parts
}

/// Fills `out`, the rows `start..start + out.len()` of the column of a CSF level whose
/// node `j` has index `ids[j]` and the leaves `bounds[j]..bounds[j + 1]` (non-decreasing,
/// from 0 to at least the share's end). `None` when the bounds do not cover the rows.
fn expand_level<S: NativeIndex, D: NativeIndex>(
    ids: &[S],
    bounds: &[usize],
    start: usize,
    out: &mut [D],
) -> Option<()> {
    // Rows a short node is written with in one fixed-size store; the rows it writes past
    // its own end belong to the nodes after it in the share, which overwrite them.
    let run = 32 / std::mem::size_of::<D>();
    let end = start + out.len();
    // The node holding row `start`: the last one starting at or before it.
    let first = bounds.partition_point(|&b| b <= start).checked_sub(1)?;
    let mut at = 0;
    for (&id, w) in ids
        .get(first..)?
        .iter()
        .zip(bounds.get(first..)?.windows(2))
    {
        if at == out.len() {
            break;
        }
        let &[_, hi] = w else { return None };
        let to = hi.min(end).checked_sub(start)?;
        let v = D::usize_as(id.as_usize());
        match out.get_mut(at..at + run) {
            Some(chunk) if to <= at + run => chunk.fill(v),
            _ => out.get_mut(at..to)?.fill(v),
        }
        at = to.max(at);
    }
    (at == out.len()).then_some(())
}

/// Writes `src` converted to `D` (which holds every value) into `out`, of the same length.
fn cast_into<S: NativeIndex, D: NativeIndex>(src: &[S], out: &mut [D]) {
    for (o, &v) in out.iter_mut().zip(src) {
        *o = D::usize_as(v.as_usize());
    }
}

/// The columns of [`csf_columns`] in dimension order from its columns in level order.
fn csf_assemble(by_level: Vec<Buffer>, order: &[usize]) -> Option<Vec<Buffer>> {
    let mut columns: Vec<Option<Buffer>> = vec![None; order.len()];
    for (level, buf) in by_level.into_iter().enumerate() {
        *columns.get_mut(*order.get(level)?)? = Some(buf);
    }
    columns.into_iter().collect()
}

/// For [`csf_columns`]: `bounds[k][j]..bounds[k][j + 1]` are the leaves below node `j` of
/// level `k`, for every level but the last; `None` as there.
fn csf_leaf_bounds<I: NativeIndex>(
    t: &SparseTensor,
    c: &crate::CsfIndex,
) -> Option<Vec<Vec<usize>>> {
    let ndim = t.ndim();
    let nnz = t.nnz();
    let (indptr, indices, order) = (c.indptr(), c.indices(), c.axis_order());
    if !t.is_validated()
        || ndim < 2
        || indices.len() != ndim
        || indptr.len() != ndim - 1
        || order.iter().copied().ne(0..ndim)
        || indices.iter().any(|a| a.values::<I>().is_none())
        || indices.last().is_none_or(|leaves| leaves.len() != nnz)
    {
        return None;
    }
    // bounds[k][j]..bounds[k][j + 1]: the leaves below node j of level k (k < ndim - 1).
    let mut bounds: Vec<Vec<usize>> = vec![Vec::new(); ndim - 1];
    for k in (0..ndim - 1).rev() {
        let nodes = indices.get(k)?.len();
        let ptr = indptr.get(k)?;
        if ptr.len() != nodes + 1 {
            return None;
        }
        // The children as `usize` (a negative one wraps above `nnz` and is refused below).
        let children: Vec<usize> = crate::dispatch_index!(ptr.index_type(), P => ptr
            .values::<P>()?
            .iter()
            .map(|&v| arrow_buffer::ArrowNativeType::as_usize(v))
            .collect());
        let level: Vec<usize> = if k == ndim - 2 {
            children
        } else {
            let below = bounds.get(k + 1)?;
            children
                .iter()
                .map(|&child| below.get(child).copied())
                .collect::<Option<_>>()?
        };
        if level.iter().any(|&leaf| leaf > nnz)
            || level.windows(2).any(|w| matches!(w, [a, b] if a > b))
        {
            return None;
        }
        if level.first() != Some(&0) || level.last() != Some(&nnz) {
            return None;
        }
        *bounds.get_mut(k)? = level;
    }
    Some(bounds)
}

/// A dense tensor as a COO table of its non-zero values (recorded layout COO).
pub fn dense_to_coo_table(tensor: &Tensor) -> Result<RecordBatch> {
    let options = ConvertOptions::default().with_index_type(coordinate_type(tensor.shape()));
    let coo = convert::to_sparse(tensor, SparseFormat::Coo, &options)?;
    sparse_to_coo_table(&coo)
}

fn table_of_coo(coo: &SparseTensor, info: &CooTableInfo) -> Result<RecordBatch> {
    let SparseIndex::Coo(index) = coo.index() else {
        return fail(ErrorKind::UnsupportedLayout {
            operation: "a COO table",
            expected: "a COO tensor",
            found: coo.format().name().into(),
        });
    };
    let ndim = coo.ndim();
    let nnz = coo.nnz();
    let it = index.indices().index_type();
    let columns: Vec<Buffer> =
        crate::dispatch_index!(it, I => split_columns::<I, I>(index, ndim, nnz))?;
    table_of_columns(columns, it, coo, info)
}

/// The table of coordinate columns of type `it` and the values of `t`.
fn table_of_columns(
    columns: Vec<Buffer>,
    it: IndexType,
    t: &SparseTensor,
    info: &CooTableInfo,
) -> Result<RecordBatch> {
    let names = info.column_names();
    for (i, n) in names.iter().enumerate() {
        if names.get(..i).is_some_and(|before| before.contains(n)) {
            return fail(ErrorKind::DuplicateName {
                what: "columns of the COO table",
                name: n.to_string(),
                note: " (dimension names must differ from each other and from the value column's)",
            });
        }
    }
    let ndim = t.ndim();
    let nnz = t.nnz();
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(ndim + 1);
    let mut fields = Vec::with_capacity(ndim + 1);
    for (buf, name) in columns.into_iter().zip(&names) {
        arrays.push(primitive_array(index_data_type(it), buf, nnz)?);
        fields.push(Field::new(name, index_data_type(it), false));
    }
    let vt = t.value_type();
    let values = t
        .values_buffer()
        .slice_with_length(0, nnz * vt.byte_width());
    arrays.push(primitive_array(data_type(vt), values, nnz)?);
    fields.push(Field::new(VALUE_COLUMN, data_type(vt), false));
    let schema = Schema::new(fields).with_metadata(HashMap::from([(
        COO_TABLE_KEY.to_string(),
        info.metadata(),
    )]));
    Ok(RecordBatch::try_new(Arc::new(schema), arrays)?)
}

/// The columns, of type `D`, of an `nnz x ndim` coordinate matrix of type `S` whose every
/// coordinate `D` holds: slices of the matrix itself when the types agree and it is
/// column-major or `ndim` is 1 (no copy), else split (and cast) from its rows, in shares of
/// rows split between threads for large matrices.
fn split_columns<S: NativeIndex, D: NativeIndex>(
    index: &CooIndex,
    ndim: usize,
    nnz: usize,
) -> Result<Vec<Buffer>> {
    split_columns_on::<S, D>(index, ndim, nnz, crate::parallel::wide::enabled())
}

/// [`split_columns`], with the AVX-512 loops ([`crate::parallel::wide`]) allowed when `wide`.
fn split_columns_on<S: NativeIndex, D: NativeIndex>(
    index: &CooIndex,
    ndim: usize,
    nnz: usize,
    wide: bool,
) -> Result<Vec<Buffer>> {
    let buf = index.indices().buffer();
    let width = nnz * std::mem::size_of::<S>();
    let by_column = ndim == 1 || index.order() == crate::CooOrder::ColumnMajor;
    if by_column && S::TYPE == D::TYPE {
        return Ok((0..ndim)
            .map(|d| buf.slice_with_length(d * width, width))
            .collect());
    }
    let Some(coords) = index.indices().values::<S>() else {
        // A misaligned buffer: read element by element.
        return Ok((0..ndim)
            .map(|d| {
                let col: Vec<D> = (0..nnz)
                    .map(|k| {
                        index
                            .coordinate(k, d)
                            .and_then(|v| D::from_u64(v as u64))
                            .unwrap_or_default()
                    })
                    .collect();
                Buffer::from_vec(col)
            })
            .collect());
    };
    let coords = coords.get(..nnz * ndim).unwrap_or(coords);
    if by_column {
        return Ok((0..ndim)
            .map(|d| {
                let col = coords.get(d * nnz..(d + 1) * nnz).unwrap_or_default();
                Buffer::from_vec(
                    col.iter()
                        .map(|&v| D::usize_as(v.as_usize()))
                        .collect::<Vec<D>>(),
                )
            })
            .collect());
    }
    let mut cols: Vec<Vec<D>> = (0..ndim).map(|_| vec![D::default(); nnz]).collect();
    {
        let (threads, per) = shares(nnz);
        let parts = row_shares(&mut cols, nnz, per);
        crate::parallel::run(
            threads,
            parts,
            "splitting the coordinate columns",
            |_, (rows, mine)| {
                let block = coords
                    .get(rows.start * ndim..rows.end * ndim)
                    .unwrap_or_default();
                crate::parallel::wide::run(
                    wide,
                    #[inline(always)]
                    || split_block(block, mine),
                )
            },
        )?;
    }
    Ok(cols.into_iter().map(Buffer::from_vec).collect())
}

/// Splits a block of a row-major coordinate matrix into its columns, casting each
/// coordinate to `D` (which holds it).
#[inline(always)]
fn split_block<S: NativeIndex, D: NativeIndex>(coords: &[S], mut cols: Vec<&mut [D]>) {
    let cast = |v: S| D::usize_as(v.as_usize());
    match cols.as_mut_slice() {
        [a, b] => {
            for (row, (x, y)) in coords.chunks_exact(2).zip(a.iter_mut().zip(b.iter_mut())) {
                if let &[r0, r1] = row {
                    *x = cast(r0);
                    *y = cast(r1);
                }
            }
        }
        [a, b, c] => {
            for (row, (x, (y, z))) in coords
                .chunks_exact(3)
                .zip(a.iter_mut().zip(b.iter_mut().zip(c.iter_mut())))
            {
                if let &[r0, r1, r2] = row {
                    *x = cast(r0);
                    *y = cast(r1);
                    *z = cast(r2);
                }
            }
        }
        _ => {
            let ndim = cols.len().max(1);
            for (k, row) in coords.chunks_exact(ndim).enumerate() {
                for (col, &v) in cols.iter_mut().zip(row) {
                    if let Some(slot) = col.get_mut(k) {
                        *slot = cast(v);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::split_columns_on;
    use crate::{CooIndex, IndexArray, NativeIndex};

    /// Splits `nnz` rows of rank `ndim` (row-major, of type `S`) into columns of type `D`,
    /// both with the loops compiled for AVX-512 (where the CPU has it) and the plain ones,
    /// against the definition; sizes across thread shares and vector widths.
    fn check<S: NativeIndex, D: NativeIndex>(ndim: usize, nnz: usize, top: u64) {
        let coords: Vec<S> = (0..nnz * ndim)
            .map(|k| S::from_u64((k as u64).wrapping_mul(0x9e37_79b9) % top).unwrap())
            .collect();
        let index = CooIndex::new(IndexArray::from_vec(coords.clone()), ndim).unwrap();
        for wide in [true, false] {
            let cols = split_columns_on::<S, D>(&index, ndim, nnz, wide).unwrap();
            assert_eq!(cols.len(), ndim);
            for (d, col) in cols.iter().enumerate() {
                let want: Vec<D> = (0..nnz)
                    .map(|k| D::from_u64(coords[k * ndim + d].as_usize() as u64).unwrap())
                    .collect();
                assert_eq!(
                    col.typed_data::<D>(),
                    want.as_slice(),
                    "{ndim} {nnz} {wide}"
                );
            }
        }
    }

    #[test]
    fn both_ways_split_the_rows_into_their_columns() {
        for ndim in 2..=5 {
            for nnz in [0, 1, 7, 8, 9, 63, 64, 65, 1000, (1 << 20) + 3] {
                check::<i64, i16>(ndim, nnz, 30_000);
                check::<i32, i8>(ndim, nnz, 120);
                check::<i64, i32>(ndim, nnz, 1 << 30);
                check::<i16, i64>(ndim, nnz, 30_000);
            }
        }
    }
}
