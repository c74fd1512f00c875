//! Sparse tensors as COO tables: one integer column per dimension and a `value` column,
//! one row per stored value, and back.
//!
//! The table is a plain record batch that any Arrow reader can filter and aggregate. Its
//! schema metadata (key [`COO_TABLE_KEY`]) records the shape, the dimension names, the
//! layout the tensor had (`COO`, `CSR`, `CSC`, `CSF` with its axis order) and the index type,
//! so that [`coo_table_to_sparse`] rebuilds the same tensor.

use super::arrays::{
    data_type, first_null, index_data_type, index_type, primitive_array, value_type,
};
use super::extension::{json_strings, json_usizes};
use crate::convert;
use crate::error::{fail, ErrorKind, Result};
use crate::validate::kernels;
use crate::Limits;
use crate::{ConvertOptions, CsfAxisOrder};
use crate::{
    CooIndex, IndexArray, IndexType, NativeIndex, SparseFormat, SparseIndex, SparseTensor, Tensor,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::{ArrowNativeType, Buffer};
use arrow_schema::{Field, Schema};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// Schema metadata key of a COO table: a JSON object with `shape`, `format` (`"COO"`,
/// `"CSR"`, `"CSC"` or `"CSF"`), `index_type`, and when present `dim_names` and
/// `axis_order` (CSF).
pub const COO_TABLE_KEY: &str = "arrow_tensor_ipc.sparse_tensor";

/// The name of the values column.
pub const VALUE_COLUMN: &str = "value";

/// What the schema metadata of a COO table records about the tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CooTableInfo {
    /// The tensor's shape.
    pub shape: Vec<usize>,
    /// The dimension names (`""` where unnamed).
    pub dim_names: Vec<String>,
    /// The layout the tensor had.
    pub format: SparseFormat,
    /// The index type of the coordinate columns: what [`coordinate_type`] gives for the
    /// shape (tables written before it was so may record the tensor's own index type).
    /// Reading a table back does not take it from here: the result's index arrays get the
    /// narrowest type that holds them, as a conversion picks by default.
    pub index_type: IndexType,
    /// The CSF axis order, for `format` CSF.
    pub axis_order: Option<Vec<usize>>,
}

impl CooTableInfo {
    /// The column names: the dimension names, `dim_<i>` where unnamed, then `value`.
    pub fn column_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .dim_names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                if n.is_empty() {
                    format!("dim_{i}")
                } else {
                    n.clone()
                }
            })
            .collect();
        names.push(VALUE_COLUMN.to_string());
        names
    }

    /// The JSON written under [`COO_TABLE_KEY`].
    pub fn metadata(&self) -> String {
        let mut s = format!(
            "{{\"shape\":{},\"format\":\"{}\",\"index_type\":\"{}\"",
            json_usizes(&self.shape),
            self.format.name(),
            self.index_type.name()
        );
        if self.dim_names.iter().any(|n| !n.is_empty()) {
            s.push_str(",\"dim_names\":");
            s.push_str(&json_strings(&self.dim_names));
        }
        if let Some(order) = &self.axis_order {
            s.push_str(",\"axis_order\":");
            s.push_str(&json_usizes(order));
        }
        s.push('}');
        s
    }

    /// Reads the metadata of a COO table's schema.
    pub fn from_schema(schema: &Schema) -> Result<Self> {
        let bad = |reason: String| -> crate::Error {
            ErrorKind::InvalidColumn {
                column: "(schema)".into(),
                reason,
            }
            .into()
        };
        let text = schema
            .metadata()
            .get(COO_TABLE_KEY)
            .ok_or_else(|| bad(format!("no {COO_TABLE_KEY} metadata: not a COO table")))?;
        let meta: serde_json::Map<String, Value> = match serde_json::from_str(text) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                return Err(bad(format!(
                    "{COO_TABLE_KEY} is not a JSON object: {other}"
                )))
            }
            Err(e) => return Err(bad(format!("{COO_TABLE_KEY} is not JSON ({e}): {text:?}"))),
        };
        let sizes = |key: &str| -> Result<Option<Vec<usize>>> {
            match meta.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| {
                        v.as_u64()
                            .and_then(|n| usize::try_from(n).ok())
                            .filter(|&n| n <= i64::MAX as usize)
                            .ok_or_else(|| bad(format!("\"{key}\" holds {v}, not a size")))
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(Some),
                Some(v) => Err(bad(format!("\"{key}\" must be an array, found {v}"))),
            }
        };
        let shape = sizes("shape")?.ok_or_else(|| bad("no \"shape\"".into()))?;
        let axis_order = sizes("axis_order")?;
        let text_of = |key: &str| meta.get(key).and_then(Value::as_str);
        let format = match text_of("format") {
            Some("COO") => SparseFormat::Coo,
            Some("CSR") => SparseFormat::Csr,
            Some("CSC") => SparseFormat::Csc,
            Some("CSF") => SparseFormat::Csf,
            other => {
                return Err(bad(format!(
                    "\"format\" {other:?} is not COO, CSR, CSC or CSF"
                )))
            }
        };
        let index_type = text_of("index_type")
            .and_then(IndexType::from_name)
            .ok_or_else(|| {
                bad(format!(
                    "\"index_type\" {:?} is not an index type",
                    meta.get("index_type")
                ))
            })?;
        let dim_names = match meta.get("dim_names") {
            None | Some(Value::Null) => vec![String::new(); shape.len()],
            Some(Value::Array(items)) if items.len() == shape.len() => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(format!("\"dim_names\" holds {v}, not a string")))
                })
                .collect::<Result<Vec<_>>>()?,
            Some(v) => {
                return Err(bad(format!(
                    "\"dim_names\" {v} is not one string per dimension"
                )))
            }
        };
        if let Some(order) = &axis_order {
            let mut seen = vec![false; shape.len()];
            let ok = order.len() == shape.len()
                && order
                    .iter()
                    .all(|&d| seen.get_mut(d).is_some_and(|s| !std::mem::replace(s, true)));
            if !ok {
                return Err(bad(format!(
                    "\"axis_order\" {order:?} is not a permutation of the {} dimensions",
                    shape.len()
                )));
            }
        }
        Ok(CooTableInfo {
            shape,
            dim_names,
            format,
            index_type,
            axis_order,
        })
    }
}

/// The type of the coordinate columns of a COO table of a tensor of `shape`: the
/// narrowest signed integer type that holds its widest coordinate (`max(shape) - 1`), so
/// that every tensor of one shape gives one schema, whatever its own index type.
pub fn coordinate_type(shape: &[usize]) -> IndexType {
    let widest = shape.iter().max().map_or(0, |&d| d.saturating_sub(1));
    IndexType::narrowest_for(widest as u64)
}

/// `a` as an index array of type `to`: `a` itself when it has that type, else a copy
/// (one pass for the range, one tight converting pass). `None` when a value is negative or
/// does not fit `to`, or `a` is misaligned.
fn cast_index(a: &IndexArray, to: IndexType) -> Option<IndexArray> {
    if a.index_type() == to {
        return Some(a.clone());
    }
    crate::dispatch_index!(a.index_type(), S => {
        let src = a.values::<S>()?;
        let (lo, hi) = src
            .iter()
            .fold((0i64, 0i64), |(lo, hi), &v| (lo.min(v.as_index()), hi.max(v.as_index())));
        if lo < 0 || hi as u64 > to.max_value() {
            return None;
        }
        Some(crate::dispatch_index!(to, D => IndexArray::from_vec(
            src.iter().map(|&v| D::usize_as(v.as_index() as usize)).collect::<Vec<D>>()
        )))
    })
}

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
/// let by_content = csr.to_format(SparseFormat::Csr, &ConvertOptions::default())?;
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
        if let Some(columns) = crate::dispatch_index!(it, I => csx_columns::<I>(tensor, c)) {
            return table_of_columns(columns, it, tensor, &info);
        }
    }
    if let SparseIndex::Csf(c) = tensor.index() {
        if let Some(columns) = crate::dispatch_index!(it, I => csf_columns::<I>(tensor, c)) {
            return table_of_columns(columns, it, tensor, &info);
        }
    }
    let coo = match tensor.index() {
        SparseIndex::Coo(c) if c.indices().index_type() == it => tensor.clone(),
        SparseIndex::Coo(c) => {
            // The coordinates as they are, in the shape's coordinate type (they fit: the
            // tensor is validated).
            let Some(indices) = cast_index(c.indices(), it) else {
                return fail(ErrorKind::InvalidArgument(
                    "COO coordinates that do not fit the shape's coordinate type".into(),
                ));
            };
            let index = CooIndex::with_flag(indices, c.ndim(), c.order(), c.is_canonical())?;
            // Only the columns are taken from it (the coordinates were checked above).
            SparseTensor::try_new_with_validation(
                tensor.value_type(),
                tensor.shape().to_vec(),
                tensor.values_buffer().clone(),
                SparseIndex::Coo(index),
                crate::Validation::Permissive,
            )?
            .with_dim_names(tensor.dim_names().iter().cloned())?
        }
        _ => convert::convert(
            tensor,
            SparseFormat::Coo,
            &ConvertOptions::default().with_index_type(it),
        )?,
    };
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
        t.shape().to_vec(),
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
/// in storage (tree, which is row-major) order, without a conversion: the leaf level's indices buffer is its dimension's column as it
/// is (no copy), and every other level's indices are repeated over the leaves below each
/// node (one thread per level for large tensors). `None` when the tensor is not validated,
/// its axis order is not the identity, its index arrays are not all of type `I`, or its
/// tree is inconsistent (the conversion path then handles it).
fn csf_columns<I: NativeIndex>(t: &SparseTensor, c: &crate::CsfIndex) -> Option<Vec<Buffer>> {
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
        let mut level = Vec::with_capacity(nodes + 1);
        for j in 0..=nodes {
            let child = usize::try_from(ptr.get(j)?).ok()?;
            let leaf = if k == ndim - 2 {
                child
            } else {
                *bounds.get(k + 1)?.get(child)?
            };
            if leaf > nnz || level.last().is_some_and(|&prev| leaf < prev) {
                return None;
            }
            level.push(leaf);
        }
        if level.first() != Some(&0) || level.last() != Some(&nnz) {
            return None;
        }
        *bounds.get_mut(k)? = level;
    }
    let expand = |k: usize| -> Option<Vec<I>> {
        let ids = indices.get(k)?.values::<I>()?;
        let mut col: Vec<I> = vec![I::default(); nnz];
        let b = bounds.get(k)?;
        if b.len() != ids.len() + 1 {
            return None;
        }
        for (&id, w) in ids.iter().zip(b.windows(2)) {
            let &[lo, hi] = w else { return None };
            col.get_mut(lo..hi)?.fill(id);
        }
        Some(col)
    };
    let expanded: Option<Vec<Vec<I>>> = if nnz >= 1 << 20 {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..ndim - 1).map(|k| s.spawn(move || expand(k))).collect();
            handles
                .into_iter()
                .map(|h| h.join().ok().flatten())
                .collect()
        })
    } else {
        (0..ndim - 1).map(expand).collect()
    };
    let mut by_level: Vec<Buffer> = expanded?.into_iter().map(Buffer::from_vec).collect();
    by_level.push(
        indices
            .last()?
            .buffer()
            .slice_with_length(0, nnz * std::mem::size_of::<I>()),
    );
    let mut columns: Vec<Option<Buffer>> = vec![None; ndim];
    for (level, buf) in by_level.into_iter().enumerate() {
        *columns.get_mut(*order.get(level)?)? = Some(buf);
    }
    columns.into_iter().collect()
}

/// A dense tensor as a COO table of its non-zero values (recorded layout COO).
pub fn dense_to_coo_table(tensor: &Tensor) -> Result<RecordBatch> {
    let options = ConvertOptions::default().with_index_type(coordinate_type(tensor.shape()));
    let coo = convert::dense_to_coo(tensor, &options)?;
    sparse_to_coo_table(&coo)
}

fn table_of_coo(coo: &SparseTensor, info: &CooTableInfo) -> Result<RecordBatch> {
    let SparseIndex::Coo(index) = coo.index() else {
        return fail(ErrorKind::InvalidArgument(
            "COO table of a non-COO tensor".into(),
        ));
    };
    let ndim = coo.ndim();
    let nnz = coo.nnz();
    let it = index.indices().index_type();
    let columns: Vec<Buffer> =
        crate::dispatch_index!(it, I => split_columns::<I>(index, ndim, nnz));
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
            return fail(ErrorKind::InvalidArgument(format!(
                "two columns of the COO table would be named {n:?} (dimension names must differ from each other and from \"{VALUE_COLUMN}\")"
            )));
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

/// The columns of an `nnz x ndim` coordinate matrix: slices of the matrix itself when
/// it is column-major or `ndim` is 1 (no copy), else split from the rows of the
/// row-major matrix.
// Its shares are cut from `nnz` rows of an index whose structure was checked.
#[allow(clippy::indexing_slicing)]
fn split_columns<I: NativeIndex>(index: &CooIndex, ndim: usize, nnz: usize) -> Vec<Buffer> {
    let buf = index.indices().buffer();
    let width = nnz * std::mem::size_of::<I>();
    if ndim == 1 || index.order() == crate::CooOrder::ColumnMajor {
        return (0..ndim)
            .map(|d| buf.slice_with_length(d * width, width))
            .collect();
    }
    let Some(coords) = index.indices().values::<I>() else {
        // A misaligned buffer: read element by element.
        return (0..ndim)
            .map(|d| {
                let col: Vec<I> = (0..nnz)
                    .map(|k| {
                        index
                            .coordinate(k, d)
                            .and_then(|v| I::from_u64(v as u64))
                            .unwrap_or_default()
                    })
                    .collect();
                Buffer::from_vec(col)
            })
            .collect();
    };
    let coords = coords.get(..nnz * ndim).unwrap_or(coords);
    let mut cols: Vec<Vec<I>> = (0..ndim).map(|_| vec![I::default(); nnz]).collect();
    {
        let mut parts: Vec<&mut [I]> = cols.iter_mut().map(Vec::as_mut_slice).collect();
        let per = rows_per_thread(nnz);
        std::thread::scope(|scope| {
            let mut start = 0;
            while start < nnz {
                let n = per.min(nnz - start);
                let mine: Vec<&mut [I]> = parts
                    .iter_mut()
                    .map(|p| {
                        let (head, tail) = std::mem::take(p).split_at_mut(n);
                        *p = tail;
                        head
                    })
                    .collect();
                let block = &coords[start * ndim..(start + n) * ndim];
                start += n;
                if start < nnz {
                    scope.spawn(move || split_block(block, mine));
                } else {
                    split_block(block, mine);
                }
            }
        });
    }
    cols.into_iter().map(Buffer::from_vec).collect()
}

/// Rows each thread handles when a coordinate matrix of `nnz` rows is split or
/// interleaved: all of them below 2^20 rows, else a share for each core (at most 8).
fn rows_per_thread(nnz: usize) -> usize {
    if nnz < 1 << 20 {
        return nnz.max(1);
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    nnz.div_ceil(threads).max(1)
}

/// Splits a block of a row-major coordinate matrix into its columns.
fn split_block<I: NativeIndex>(coords: &[I], mut cols: Vec<&mut [I]>) {
    match cols.as_mut_slice() {
        [a, b] => {
            for (row, (x, y)) in coords.chunks_exact(2).zip(a.iter_mut().zip(b.iter_mut())) {
                if let &[r0, r1] = row {
                    *x = r0;
                    *y = r1;
                }
            }
        }
        [a, b, c] => {
            for (row, (x, (y, z))) in coords
                .chunks_exact(3)
                .zip(a.iter_mut().zip(b.iter_mut().zip(c.iter_mut())))
            {
                if let &[r0, r1, r2] = row {
                    *x = r0;
                    *y = r1;
                    *z = r2;
                }
            }
        }
        _ => {
            let ndim = cols.len().max(1);
            for (k, row) in coords.chunks_exact(ndim).enumerate() {
                for (col, &v) in cols.iter_mut().zip(row) {
                    if let Some(slot) = col.get_mut(k) {
                        *slot = v;
                    }
                }
            }
        }
    }
}

/// Interleaves a block of coordinate columns into a row-major coordinate matrix.
fn interleave_block<I: NativeIndex>(out: &mut [I], cols: &[&[I]]) {
    match cols {
        [a, b] => {
            for (row, (&x, &y)) in out.chunks_exact_mut(2).zip(a.iter().zip(b.iter())) {
                if let [r0, r1] = row {
                    *r0 = x;
                    *r1 = y;
                }
            }
        }
        [a, b, c] => {
            for (row, (&x, (&y, &z))) in out
                .chunks_exact_mut(3)
                .zip(a.iter().zip(b.iter().zip(c.iter())))
            {
                if let [r0, r1, r2] = row {
                    *r0 = x;
                    *r1 = y;
                    *r2 = z;
                }
            }
        }
        _ => {
            let ndim = cols.len().max(1);
            for (k, row) in out.chunks_exact_mut(ndim).enumerate() {
                for (slot, col) in row.iter_mut().zip(cols) {
                    if let Some(&v) = col.get(k) {
                        *slot = v;
                    }
                }
            }
        }
    }
}

/// Rebuilds the sparse tensor a COO table holds: in the layout its metadata records, or in
/// `format` when given, under [`Limits::default`] (see [`coo_table_to_sparse_with`]).
///
/// The rows may come in any order (tables pass through query engines): CSR, CSC and CSF
/// results are sorted as their layout needs, and rows with the same coordinates are summed
/// (as a non-canonical COO index means); a COO result keeps the row order, flagged
/// canonical only when the rows strictly increase in row-major order. The result's index
/// arrays get the narrowest type that holds them (as [`crate::convert`] picks by default),
/// not the type the metadata records. Coordinates outside the shape, nulls, and columns
/// that do not match the metadata are errors naming the column (and row).
pub fn coo_table_to_sparse(
    table: &RecordBatch,
    format: Option<SparseFormat>,
) -> Result<SparseTensor> {
    coo_table_to_sparse_with(table, format, &Limits::default())
}

/// [`coo_table_to_sparse`] under `limits`. The metadata's claims are input: a rank over
/// [`Limits::max_rank`], more rows than [`Limits::max_nnz`], or a CSR/CSC result whose
/// indptr (`shape[k] + 1` entries) is longer than both [`Limits::max_index_len`] and the
/// rows plus one are refused with [`ErrorKind::ColumnLimitExceeded`] naming the column,
/// before anything is allocated from them.
pub fn coo_table_to_sparse_with(
    table: &RecordBatch,
    format: Option<SparseFormat>,
    limits: &Limits,
) -> Result<SparseTensor> {
    let schema = table.schema();
    let info = CooTableInfo::from_schema(&schema)?;
    let ndim = info.shape.len();
    if ndim > limits.max_rank {
        return fail(ErrorKind::ColumnLimitExceeded {
            column: "(schema)".into(),
            what: format!("rank claimed by the {COO_TABLE_KEY} metadata"),
            value: ndim as u64,
            limit: limits.max_rank as u64,
            rule: "Limits::max_rank".into(),
        });
    }
    if table.num_columns() != ndim + 1 {
        return fail(ErrorKind::InvalidColumn {
            column: "(schema)".into(),
            reason: format!(
                "{} columns for a tensor of rank {ndim} (one per dimension, then \"{VALUE_COLUMN}\")",
                table.num_columns()
            ),
        });
    }
    let nnz = table.num_rows();
    if nnz as u64 > limits.max_nnz {
        return fail(ErrorKind::ColumnLimitExceeded {
            column: schema.field(ndim).name().clone(),
            what: "number of rows (stored values)".into(),
            value: nnz as u64,
            limit: limits.max_nnz,
            rule: "Limits::max_nnz".into(),
        });
    }
    let target = format.unwrap_or(info.format);
    check_indptr_claim(&schema, &info.shape, target, nnz, limits)?;
    let value_field = schema.field(ndim);
    let value_array = table.column(ndim);
    let Some(vt) = value_type(value_field.data_type()) else {
        return fail(ErrorKind::InvalidColumn {
            column: value_field.name().clone(),
            reason: format!(
                "values of type {} (not a tensor value type)",
                value_field.data_type()
            ),
        });
    };
    let values = super::arrays::primitive_bytes(
        value_array.as_ref(),
        vt.byte_width(),
        value_field.name(),
        "value",
        |i| i,
    )?;
    let Some(it) = index_type(schema.field(0).data_type()).or(if ndim == 0 {
        Some(info.index_type)
    } else {
        None
    }) else {
        return fail(ErrorKind::InvalidColumn {
            column: schema.field(0).name().clone(),
            reason: format!(
                "coordinates of type {} (not an integer type)",
                schema.field(0).data_type()
            ),
        });
    };
    if matches!(target, SparseFormat::Csr | SparseFormat::Csc) && ndim == 2 {
        let fast = crate::dispatch_index!(it, I => csx_from_columns::<I>(table, &info, target, it, vt, values.clone()));
        if let Some(t) = fast {
            return t;
        }
    }
    let identity = |order: &[usize]| order.iter().copied().eq(0..order.len());
    if target == SparseFormat::Csf
        && ndim >= 2
        && (info.format != SparseFormat::Csf || info.axis_order.as_deref().is_none_or(identity))
    {
        let fast = crate::dispatch_index!(it, I => csf_from_columns::<I>(table, &info, it, vt, values.clone()));
        if let Some(t) = fast {
            return t;
        }
    }
    let (coords, checked) =
        crate::dispatch_index!(it, I => interleave::<I>(table, &info.shape, it))?;
    let coords = IndexArray::try_new(it, coords)?;
    // The interleaving threads run strict validation's row scan on each block they write
    // (while it is in cache): rows all in bounds with their order decided build the index
    // directly, flagged canonical when the rows strictly increase. Otherwise strict
    // validation reports an out-of-range coordinate by column and row: the index is first
    // flagged canonical, so that its one fused scan both checks the bounds and confirms the
    // order; rows out of order fall back to an index flagged non-canonical.
    let build = |canonical: bool| -> Result<SparseTensor> {
        let index =
            CooIndex::with_flag(coords.clone(), ndim, crate::CooOrder::RowMajor, canonical)?;
        SparseTensor::try_new_with_duplicates(
            vt,
            info.shape.clone(),
            values.clone(),
            SparseIndex::Coo(index),
        )
    };
    let trusted = |canonical: bool| -> Result<SparseTensor> {
        let index =
            CooIndex::with_flag(coords.clone(), ndim, crate::CooOrder::RowMajor, canonical)?;
        SparseTensor::from_converted_parts(
            vt,
            info.shape.clone(),
            values.clone(),
            SparseIndex::Coo(index),
        )
    };
    let coo = match checked {
        // The interleaving threads checked every row in bounds and decided the order.
        Some(canonical) => trusted(canonical),
        None => match build(true) {
            Err(e) if matches!(e.kind(), ErrorKind::NotIncreasing { .. }) => build(false),
            other => other,
        },
    }
    .map_err(|e| match e.into_kind() {
        ErrorKind::IndexOutOfBounds {
            buffer: crate::BufferId::CooIndices,
            position,
            value,
            dim,
            bound,
        } => ErrorKind::InvalidColumn {
            column: schema.field(dim).name().clone(),
            reason: format!(
                "row {}: coordinate {value} outside dimension {dim} of size {bound}",
                position / ndim.max(1) as u64
            ),
        }
        .into(),
        other => crate::Error::from(other),
    })?
    .with_dim_names(info.dim_names.clone())?;
    debug_assert_eq!(coo.nnz(), nnz);
    if target == SparseFormat::Coo {
        // The coordinates in the narrowest type that holds them, as a conversion to COO
        // picks (the columns' type holds the widest coordinate only).
        let max_dim = info.shape.iter().max().map_or(0, |&d| d as u64);
        let t = IndexType::narrowest_for(max_dim.max(nnz as u64).max(ndim as u64));
        if t == it {
            return Ok(coo);
        }
        let SparseIndex::Coo(c) = coo.index() else {
            return Ok(coo);
        };
        let Some(indices) = cast_index(c.indices(), t) else {
            return Ok(coo);
        };
        let index = CooIndex::with_flag(indices, ndim, c.order(), c.is_canonical())?;
        return SparseTensor::from_converted_parts(
            vt,
            info.shape.clone(),
            values,
            SparseIndex::Coo(index),
        )?
        .with_dim_names(info.dim_names.clone());
    }
    let mut options = ConvertOptions::default().with_limits(*limits);
    if target == SparseFormat::Csf {
        if let Some(order) = info
            .axis_order
            .clone()
            .filter(|_| info.format == SparseFormat::Csf)
        {
            options = options.with_axis_order(CsfAxisOrder::Explicit(order));
        }
    }
    convert::convert(&coo, target, &options)
}

/// Refuses a CSR/CSC result whose indptr, `shape[k] + 1` entries for the compressed
/// dimension `k` of the shape the metadata claims, would be longer than both
/// [`Limits::max_index_len`] and what the table's `nnz` rows back (`nnz + 1`).
fn check_indptr_claim(
    schema: &Schema,
    shape: &[usize],
    target: SparseFormat,
    nnz: usize,
    limits: &Limits,
) -> Result<()> {
    let k = match (target, shape.len()) {
        (SparseFormat::Csr, 2) => 0,
        (SparseFormat::Csc, 2) => 1,
        _ => return Ok(()),
    };
    let Some(&size) = shape.get(k) else {
        return Ok(());
    };
    let len = size.saturating_add(1);
    let limit = limits.max_index_len.max(nnz.saturating_add(1));
    if len > limit {
        let column = schema
            .fields()
            .get(k)
            .map_or_else(|| format!("dim_{k}"), |f| f.name().clone());
        return fail(ErrorKind::ColumnLimitExceeded {
            column,
            what: format!(
                "indptr length of the {} result (size {size} of dimension {k}, claimed by the {COO_TABLE_KEY} metadata, plus one)",
                target.name()
            ),
            value: len as u64,
            limit: limit as u64,
            rule: format!(
                "Limits::max_index_len ({}), or the {nnz} rows plus one it backs",
                limits.max_index_len
            ),
        });
    }
    Ok(())
}

/// A CSR (CSC) tensor straight from a table whose row (column) coordinates are
/// non-decreasing, as [`sparse_to_coo_table`] writes them: indptr counted from that
/// column, the other column the indices buffer and the values column the values (no
/// copies), then strict validation. `None` when the columns are not so (the general path
/// then sorts them).
fn csx_from_columns<I: NativeIndex>(
    table: &RecordBatch,
    info: &CooTableInfo,
    target: SparseFormat,
    it: IndexType,
    vt: crate::ValueType,
    values: Buffer,
) -> Option<Result<SparseTensor>> {
    let (axis, compressed, other) = match target {
        SparseFormat::Csr => (crate::CompressedAxis::Row, 0, 1),
        _ => (crate::CompressedAxis::Column, 1, 0),
    };
    let major = index_column(table, compressed, it)?;
    let minor = index_column(table, other, it)?;
    let n = *info.shape.get(compressed)?;
    let nnz = table.num_rows();
    let keys = major.values::<I>()?.get(..nnz)?;
    // The result's index type: the narrowest that holds the sizes, indptr's length and
    // nnz, as a conversion picks by default (the columns hold coordinates only).
    let max_dim = info.shape.iter().max().map_or(0, |&d| d as u64);
    let f = IndexType::narrowest_for(max_dim.max(n as u64 + 1).max(nnz as u64));
    // The other column as the indices (no copy when the types agree; values that do not
    // fit go the general way, which reports them).
    let minor = cast_index(&minor, f)?;
    let indptr = crate::dispatch_index!(f, F => counted_indptr::<I, F>(keys, n)?);
    let index = crate::CsxIndex::new(axis, indptr, minor);
    // Unsorted or repeated indices within a row, or any coordinate outside the shape: the
    // general path sorts, sums or reports them by column and row.
    let t = SparseTensor::try_new(vt, info.shape.clone(), values, SparseIndex::Csx(index)).ok()?;
    Some(t.with_dim_names(info.dim_names.clone()))
}

/// The indptr (`n + 1` entries of type `F`) of non-decreasing keys below `n`: entry `i + 1`
/// counts the keys up to `i`. `None` when a key decreases, is negative or is `n` or more.
/// `n + 1` is within [`Limits::max_index_len`] or the keys plus one (checked by the caller).
fn counted_indptr<I: NativeIndex, F: NativeIndex>(keys: &[I], n: usize) -> Option<IndexArray> {
    let nnz = keys.len();
    let mut indptr: Vec<F> = Vec::with_capacity(n.checked_add(1)?);
    indptr.push(F::usize_as(0));
    let mut rest = keys.iter().map(|k| usize::try_from(k.as_index()).ok());
    let mut next = rest.next();
    let mut k = 0usize;
    for i in 0..n {
        while let Some(key) = next {
            let key = key?;
            if key < i {
                return None;
            }
            if key != i {
                break;
            }
            k += 1;
            next = rest.next();
        }
        indptr.push(F::usize_as(k));
    }
    (k == nnz).then(|| IndexArray::from_vec(indptr))
}

/// Coordinate column `d` of a table as an index array of type `it`, sharing the column's
/// buffer; `None` when its type differs or it holds nulls (the general path then reports it).
fn index_column(table: &RecordBatch, d: usize, it: IndexType) -> Option<IndexArray> {
    let a = table.column(d);
    if a.data_type() != &index_data_type(it) || a.null_count() > 0 {
        return None;
    }
    let bytes =
        super::arrays::primitive_bytes(a.as_ref(), it.byte_width(), "", "coordinate", |i| i)
            .ok()?;
    IndexArray::try_new(it, bytes).ok()
}

/// A CSF tensor in the identity axis order straight from a table whose rows strictly
/// increase in row-major order and lie inside the shape, as [`sparse_to_coo_table`] writes
/// a CSF tensor: one pass over the rows opens a node at every level from the first
/// coordinate that differs from the row before; the last coordinate column and the values
/// column are the leaf level and the values as they are (no copies when the column type is
/// the result's index type, the narrowest that holds the sizes, nnz and every indptr's
/// length, as a conversion picks by default). Valid by construction. `None` when the
/// columns are not so (the general path then reports or sorts them).
fn csf_from_columns<I: NativeIndex>(
    table: &RecordBatch,
    info: &CooTableInfo,
    it: IndexType,
    vt: crate::ValueType,
    values: Buffer,
) -> Option<Result<SparseTensor>> {
    let nnz = table.num_rows();
    let max_dim = info.shape.iter().max().map_or(0, |&d| d as u64);
    let f = IndexType::narrowest_for(max_dim.max(nnz as u64));
    crate::dispatch_index!(f, F => csf_from_columns_as::<I, F>(table, info, it, vt, values))
}

/// [`csf_from_columns`] with the result's index arrays of type `F`.
fn csf_from_columns_as<I: NativeIndex, F: NativeIndex>(
    table: &RecordBatch,
    info: &CooTableInfo,
    it: IndexType,
    vt: crate::ValueType,
    values: Buffer,
) -> Option<Result<SparseTensor>> {
    let ndim = info.shape.len();
    let nnz = table.num_rows();
    let mut columns: Vec<IndexArray> = (0..ndim)
        .map(|d| index_column(table, d, it))
        .collect::<Option<_>>()?;
    let cols: Vec<&[I]> = columns
        .iter()
        .map(|c| c.values::<I>().and_then(|v| v.get(..nnz)))
        .collect::<Option<_>>()?;
    let bounds: Vec<I> = info
        .shape
        .iter()
        .map(|&n| I::from_u64(n.checked_sub(1)? as u64))
        .collect::<Option<_>>()?;
    let zero = I::from_u64(0)?;
    let last = ndim.checked_sub(1)?;
    let mut indices: Vec<Vec<F>> = vec![Vec::new(); last];
    let mut indptr: Vec<Vec<F>> = vec![Vec::new(); last];
    for i in 0..nnz {
        // The first level at which row i differs from row i - 1 (0 for the first row).
        let mut d = 0;
        if i > 0 {
            let at = |d: usize| -> Option<(I, I)> {
                let c = cols.get(d)?;
                Some((*c.get(i)?, *c.get(i - 1)?))
            };
            while d < last && at(d).is_some_and(|(a, b)| a == b) {
                d += 1;
            }
            let (a, b) = at(d)?;
            if a <= b {
                return None;
            }
        }
        for k in d..ndim {
            let v = *cols.get(k)?.get(i)?;
            if v < zero || v > *bounds.get(k)? {
                return None;
            }
            if k < last {
                indices.get_mut(k)?.push(F::usize_as(v.as_usize()));
                // The new node's children start where the next level now ends.
                let next = if k + 1 < last {
                    indices.get(k + 1)?.len()
                } else {
                    i
                };
                indptr.get_mut(k)?.push(F::from_u64(next as u64)?);
            }
        }
    }
    for k in 0..last {
        let end = if k + 1 < last {
            indices.get(k + 1)?.len()
        } else {
            nnz
        };
        indptr.get_mut(k)?.push(F::from_u64(end as u64)?);
    }
    // A conversion would pick a wider type for an indptr longer than the type holds.
    let longest_ptr = indptr.iter().map(Vec::len).max().unwrap_or(0) as u64;
    let max_dim = info.shape.iter().max().map_or(0, |&d| d as u64);
    if IndexType::narrowest_for(max_dim.max(nnz as u64).max(longest_ptr)) != F::TYPE {
        return None;
    }
    let mut level_indices: Vec<IndexArray> =
        indices.into_iter().map(IndexArray::from_vec).collect();
    level_indices.push(cast_index(&columns.pop()?, F::TYPE)?);
    let index = crate::CsfIndex::new(
        (0..ndim).collect(),
        indptr.into_iter().map(IndexArray::from_vec).collect(),
        level_indices,
    );
    Some(
        SparseTensor::from_converted_parts(vt, info.shape.clone(), values, SparseIndex::Csf(index))
            .and_then(|t| t.with_dim_names(info.dim_names.clone())),
    )
}

/// The coordinate columns of a COO table as one row-major coordinate matrix, with the
/// result of strict validation's row scan over it: `Some(increasing)` when every row is in
/// bounds and the scan decided whether the rows strictly increase (ranks 1 to 4), `None`
/// when strict validation must decide (a coordinate out of bounds, or rank 0 or above 4).
fn interleave<I: NativeIndex>(
    table: &RecordBatch,
    shape: &[usize],
    it: IndexType,
) -> Result<(Buffer, Option<bool>)> {
    let ndim = shape.len();
    let nnz = table.num_rows();
    let schema = table.schema();
    let mut columns = Vec::with_capacity(ndim);
    for d in 0..shape.len() {
        let field = schema.field(d);
        let array = table.column(d);
        let column = field.name();
        if array.data_type() != &index_data_type(it) {
            return fail(ErrorKind::InvalidColumn {
                column: column.clone(),
                reason: format!(
                    "coordinates of type {}, the first coordinate column has {}",
                    array.data_type(),
                    index_data_type(it)
                ),
            });
        }
        if let Some(row) = first_null(array.as_ref()) {
            return fail(ErrorKind::NullCell {
                column: column.clone(),
                row,
                what: "coordinate",
            });
        }
        let bytes = super::arrays::primitive_bytes(
            array.as_ref(),
            it.byte_width(),
            column,
            "coordinate",
            |i| i,
        )?;
        let col = IndexArray::try_new(it, bytes)?;
        if col.values::<I>().is_none() {
            return fail(ErrorKind::InvalidColumn {
                column: column.clone(),
                reason: "misaligned coordinates".into(),
            });
        }
        columns.push(col);
    }
    let cols: Vec<&[I]> = columns.iter().filter_map(|c| c.values::<I>()).collect();
    let mut out: Vec<I> = vec![I::default(); nnz * ndim];
    let per = rows_per_thread(nnz);
    let scan = (1..=4).contains(&ndim);
    let mut starts = Vec::new();
    let scans: Option<Vec<(bool, bool)>> = std::thread::scope(|scope| {
        let mut rest = out.as_mut_slice();
        let mut start = 0;
        let mut handles = Vec::new();
        let mut last = (true, true);
        while start < nnz {
            let n = per.min(nnz - start);
            let (block, tail) = std::mem::take(&mut rest).split_at_mut(n * ndim);
            rest = tail;
            let mine: Vec<&[I]> = cols
                .iter()
                .map(|c| c.get(start..start + n).unwrap_or_default())
                .collect();
            starts.push(start);
            start += n;
            let mut job = move || interleave_and_scan(block, &mine, shape, scan);
            if start < nnz {
                handles.push(scope.spawn(job));
            } else {
                last = job();
            }
        }
        let mut scans: Option<Vec<(bool, bool)>> =
            handles.into_iter().map(|h| h.join().ok()).collect();
        if let Some(s) = scans.as_mut() {
            s.push(last);
        }
        scans
    });
    let Some(scans) = scans else {
        return fail(ErrorKind::WorkerFailed {
            job: "interleaving the coordinate columns",
        });
    };
    let mut checked = None;
    if scan && !out.is_empty() {
        let in_bounds = scans.iter().all(|&(b, _)| b);
        // Each share's rows were compared among themselves; the pairs of rows that
        // straddle two shares are compared here.
        let increasing = scans.iter().all(|&(_, inc)| inc)
            && starts.iter().skip(1).all(|&r| {
                out.get((r - 1) * ndim..(r + 1) * ndim)
                    .is_some_and(|pair| kernels::coo_row_major_scan(pair, shape, true).1)
            });
        checked = in_bounds.then_some(increasing);
    }
    Ok((Buffer::from_vec(out), checked))
}

/// Interleaves a share of the coordinate columns into `out` block by block, running
/// strict validation's row scan ([`kernels::coo_row_major_scan`]) on each block just
/// written when `scan`: whether all rows are in bounds and strictly increase.
fn interleave_and_scan<I: NativeIndex>(
    out: &mut [I],
    cols: &[&[I]],
    shape: &[usize],
    scan: bool,
) -> (bool, bool) {
    let ndim = cols.len();
    if !scan || ndim == 0 {
        interleave_block(out, cols);
        return (true, true);
    }
    let rows = kernels::coo_block_rows::<I>(ndim);
    let total = out.len() / ndim;
    let (mut in_bounds, mut increasing) = (true, true);
    let mut r0 = 0;
    while r0 < total {
        let r1 = (r0 + rows).min(total);
        let part: Vec<&[I]> = cols
            .iter()
            .map(|c| c.get(r0..r1).unwrap_or_default())
            .collect();
        if let Some(block) = out.get_mut(r0 * ndim..r1 * ndim) {
            interleave_block(block, &part);
        }
        // The block's rows and the pair straddling the block before.
        let from = r0.saturating_sub(1) * ndim;
        let rows = out.get(from..r1 * ndim).unwrap_or_default();
        let (b, inc) = kernels::coo_row_major_scan(rows, shape, true);
        in_bounds &= b;
        increasing &= inc;
        r0 = r1;
    }
    (in_bounds, increasing)
}
