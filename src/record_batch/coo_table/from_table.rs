//! COO tables back to sparse tensors: the fast paths to CSR/CSC (indptr counted from a
//! sorted column) and CSF (one pass over sorted rows), and the general path that
//! interleaves the columns into a coordinate matrix, then sorts or converts.

use super::csf_rows::csf_from_columns;
use super::interleave::interleave;
use super::{cast_index, index_column, CooTableInfo, COO_TABLE_KEY, VALUE_COLUMN};
use crate::convert;
use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::{index_type, value_type};
use crate::Limits;
use crate::{ConvertOptions, CsfAxisOrder};
use crate::{
    CooIndex, IndexArray, IndexType, NativeIndex, SparseFormat, SparseIndex, SparseTensor,
};
use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_schema::Schema;

/// Rebuilds the sparse tensor a COO table holds: in the layout its metadata records, or in
/// `format` when given, with [`ConvertOptions::default`] (see [`coo_table_to_sparse_with`]).
///
/// The rows may come in any order (tables pass through query engines): CSR, CSC and CSF
/// results are sorted as their layout needs, and rows with the same coordinates are summed
/// (as a non-canonical COO index means); a COO result keeps the row order, flagged
/// canonical only when the rows strictly increase in row-major order. The result's index
/// arrays get the narrowest type that holds them (as [`crate::convert`] picks by default),
/// not the type the metadata records. Coordinates outside the shape
/// ([`ErrorKind::CoordinateOutOfBounds`]), nulls ([`ErrorKind::NullCell`]), and columns
/// that do not match the metadata are errors naming the column (and row).
pub fn coo_table_to_sparse(
    table: &RecordBatch,
    format: Option<SparseFormat>,
) -> Result<SparseTensor> {
    coo_table_to_sparse_with(table, format, &ConvertOptions::default())
}

/// [`coo_table_to_sparse`] with `options`: its limits bound what the metadata claims, and
/// the conversion to `format` runs with its threads and index type. The metadata's claims
/// are input: a rank over
/// [`Limits::max_rank`], more rows than [`Limits::max_nnz`], or a CSR/CSC result whose
/// indptr (`shape[k] + 1` entries) is longer than both [`Limits::max_index_len`] and the
/// rows plus one are refused with [`ErrorKind::ColumnLimitExceeded`] naming the column,
/// before anything is allocated from them.
pub fn coo_table_to_sparse_with(
    table: &RecordBatch,
    format: Option<SparseFormat>,
    options: &ConvertOptions,
) -> Result<SparseTensor> {
    let limits = &options.limits;
    let schema = table.schema();
    let info = CooTableInfo::from_schema(&schema)?;
    let ndim = info.shape.len();
    if ndim > limits.max_rank {
        return fail(ErrorKind::LimitExceeded {
            what: "rank claimed by the COO table's schema metadata (Limits::max_rank)",
            value: ndim as u64,
            limit: limits.max_rank as u64,
        });
    }
    if table.num_columns() != ndim + 1 {
        return fail(ErrorKind::CountMismatch {
            what: format!(
                "columns of a COO table of rank {ndim} (one per dimension, then \"{VALUE_COLUMN}\")"
            ),
            expected: ndim as u64 + 1,
            found: table.num_columns() as u64,
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
    let values = crate::record_batch::arrays::primitive_bytes(
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
        // (Columns of unsigned types take the general path.)
        let fast = crate::dispatch_signed!(it, I => csx_from_columns::<I>(table, &info, target, it, vt, values.clone()), else None);
        if let Some(t) = fast {
            return t;
        }
    }
    let identity = |order: &[usize]| order.iter().copied().eq(0..order.len());
    if target == SparseFormat::Csf
        && ndim >= 2
        && (info.format != SparseFormat::Csf || info.axis_order.as_deref().is_none_or(identity))
    {
        let fast = crate::dispatch_signed!(it, I => csf_from_columns::<I>(table, &info, it, vt, values.clone()), else None);
        if let Some(t) = fast {
            return t;
        }
    }
    // A COO result's coordinates come in the narrowest type that holds them, as a
    // conversion to COO picks (the columns' type holds the widest coordinate only): the
    // interleaving casts to it on the way when every row is in bounds (it holds every
    // coordinate then), else the columns' own type keeps the values an error reports.
    let max_dim = info.shape.iter().max().map_or(0, |&d| d as u64);
    let narrowest = IndexType::narrowest_for(max_dim.max(nnz as u64).max(ndim as u64));
    // (Ranks the interleaving's row scan covers: other ranks leave the checks to strict
    // validation, which must see the columns' own values.)
    let mut ct = if target == SparseFormat::Coo && (1..=4).contains(&ndim) {
        narrowest
    } else {
        it
    };
    // (`ct` is `it` or a narrowest type, which is signed.)
    let (mut coords, mut checked) = if ct == it {
        crate::dispatch_index!(it, I => interleave::<I, I>(table, &info.shape, it))?
    } else {
        crate::dispatch_index!(it, I => crate::dispatch_signed!(ct, F => interleave::<I, F>(table, &info.shape, it), else {
            ct = it;
            interleave::<I, I>(table, &info.shape, it)
        }))?
    };
    if ct != it && checked.is_none() {
        ct = it;
        (coords, checked) =
            crate::dispatch_index!(it, I => interleave::<I, I>(table, &info.shape, it))?;
    }
    let coords = IndexArray::try_new(ct, coords)?;
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
        } => ErrorKind::CoordinateOutOfBounds {
            column: schema.field(dim).name().clone(),
            row: (position / ndim.max(1) as u64) as usize,
            value,
            dim,
            size: bound,
        }
        .into(),
        other => crate::Error::from(other),
    })?
    .with_dim_names(info.dim_names.clone())?;
    debug_assert_eq!(coo.nnz(), nnz);
    if target == SparseFormat::Coo {
        let t = narrowest;
        if t == ct {
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
    let mut options = options.clone();
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
/// column, the other column the indices (no copy when the types agree, checked as strict
/// validation checks them) and the values column the values (no copy). `None` when the
/// columns are not so (the general path then sorts them).
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
    let m = *info.shape.get(other)?;
    let indptr = crate::dispatch_signed!(f, F => counted_indptr::<I, F>(keys, n)?, else None?);
    // The other column as the indices (no copy when the types agree), checked as strict
    // validation checks them. Unsorted or repeated indices within a row, or any coordinate
    // outside the shape: the general path sorts, sums or reports them by column and row.
    let minor = crate::dispatch_signed!(f, F => checked_minor::<I, F>(indptr.values::<F>()?, &minor, m)?, else None?);
    let index = crate::CsxIndex::from_arrays(axis, indptr, minor);
    // Valid by construction: indptr counted from 0 to nnz, the indices checked.
    let t =
        SparseTensor::from_converted_parts(vt, info.shape.clone(), values, SparseIndex::Csx(index))
            .ok()?;
    Some(t.with_dim_names(info.dim_names.clone()))
}

/// The indices of a CSR/CSC result (type `F`, which holds `m`) from the `minor` column (type
/// `I`): `None` unless within every row of `indptr` they strictly increase and lie in
/// `0..m`, as strict validation requires. Shares the column when the types agree, else
/// casts it in the same pass.
fn checked_minor<I: NativeIndex, F: NativeIndex>(
    indptr: &[F],
    minor: &IndexArray,
    m: usize,
) -> Option<IndexArray> {
    let nnz = indptr.last()?.as_usize();
    let values = minor.values::<I>()?.get(..nnz)?;
    let cast = I::TYPE != F::TYPE;
    let mut out: Vec<F> = Vec::with_capacity(if cast { nnz } else { 0 });
    let bound = i64::try_from(m).ok()?;
    for w in indptr.windows(2) {
        let (lo, hi) = (w.first()?.as_usize(), w.get(1)?.as_usize());
        let row = values.get(lo..hi)?;
        // Strictly increasing from a first index of at least 0 to a last one below `m`:
        // every index then lies in `0..m`. (A fold without an early exit, which vectorises.)
        let increasing = row
            .iter()
            .zip(row.iter().skip(1))
            .fold(true, |ok, (a, b)| ok & (a < b));
        let in_range = match (row.first(), row.last()) {
            (Some(a), Some(b)) => a.as_index() >= 0 && b.as_index() < bound,
            _ => true,
        };
        if !(increasing && in_range) {
            return None;
        }
        if cast {
            out.extend(row.iter().map(|&v| F::usize_as(v.as_usize())));
        }
    }
    Some(if cast {
        IndexArray::from_vec(out)
    } else {
        minor.clone()
    })
}

/// The indptr (`n + 1` entries of type `F`) of non-decreasing keys below `n`: entry `i + 1`
/// counts the keys up to `i`. `None` when a key decreases, is negative or is `n` or more.
/// `n + 1` is within [`Limits::max_index_len`] or the keys plus one (checked by the caller).
fn counted_indptr<I: NativeIndex, F: NativeIndex>(keys: &[I], n: usize) -> Option<IndexArray> {
    let nnz = keys.len();
    // Non-decreasing (a fold without an early exit, which vectorises) from a first key of at
    // least 0 to a last key below `n`: every key then lies in `0..n`.
    let sorted = keys
        .iter()
        .zip(keys.get(1..).unwrap_or_default())
        .fold(true, |ok, (a, b)| ok & (a <= b));
    let in_range = match (keys.first(), keys.last()) {
        (Some(a), Some(b)) => a.as_index() >= 0 && (b.as_index() as u64) < n as u64,
        _ => true,
    };
    if !(sorted && in_range) {
        return None;
    }
    let mut indptr: Vec<F> = Vec::with_capacity(n.checked_add(1)?);
    indptr.push(F::usize_as(0));
    // Entry `row + 1` is where the keys above `row` start: found from where the row before
    // ended by a search that doubles its step, so that each row costs the logarithm of its
    // own length.
    let mut k = 0usize;
    for row in 0..n {
        let r = row as i64;
        let rest = keys.get(k..).unwrap_or_default();
        let mut hi = 1usize;
        while rest.get(hi - 1).is_some_and(|v| v.as_index() <= r) {
            hi = hi.saturating_mul(2);
        }
        let lo = hi / 2;
        let window = rest.get(lo..hi.min(rest.len())).unwrap_or_default();
        k += lo + window.partition_point(|v| v.as_index() <= r);
        indptr.push(F::usize_as(k));
    }
    (k == nnz).then(|| IndexArray::from_vec(indptr))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::{checked_minor, counted_indptr};
    use crate::IndexArray;

    /// The definitions the fast paths must agree with.
    fn indptr_by_definition(keys: &[i64], n: usize) -> Option<Vec<i32>> {
        if keys.windows(2).any(|w| w[1] < w[0]) || keys.iter().any(|&k| k < 0 || k >= n as i64) {
            return None;
        }
        Some(
            (0..=n)
                .map(|i| keys.iter().filter(|&&k| k < i as i64).count() as i32)
                .collect(),
        )
    }

    fn minor_by_definition(indptr: &[i32], values: &[i64], m: usize) -> bool {
        indptr.windows(2).all(|w| {
            let row = &values[w[0] as usize..w[1] as usize];
            row.windows(2).all(|p| p[0] < p[1]) && row.iter().all(|&v| v >= 0 && v < m as i64)
        })
    }

    #[test]
    fn indptr_and_minor_agree_with_their_definitions() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for case in 0..2000 {
            let n = next(6) as usize;
            let len = next(9) as usize;
            let mut keys: Vec<i64> = (0..len).map(|_| next(8) as i64 - 1).collect();
            if case % 2 == 0 {
                keys.sort();
            }
            let got =
                counted_indptr::<i64, i32>(&keys, n).map(|a| a.values::<i32>().unwrap().to_vec());
            assert_eq!(got, indptr_by_definition(&keys, n), "{keys:?} n={n}");
            if let Some(indptr) = got {
                let m = next(6) as usize;
                let mut values: Vec<i64> = (0..len).map(|_| next(7) as i64 - 1).collect();
                if case % 3 == 0 {
                    for w in indptr.windows(2) {
                        values[w[0] as usize..w[1] as usize].sort();
                    }
                }
                let minor = IndexArray::from_vec(values.clone());
                let fast = checked_minor::<i64, i32>(&indptr, &minor, m);
                assert_eq!(fast.is_some(), minor_by_definition(&indptr, &values, m));
                if let Some(cast) = fast {
                    let expect: Vec<i32> = values.iter().map(|&v| v as i32).collect();
                    assert_eq!(cast.values::<i32>().unwrap(), expect.as_slice());
                }
            }
        }
    }
}
