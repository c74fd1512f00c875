//! Sparse tensors as COO tables: one integer column per dimension and a `value` column,
//! one row per stored value, and back.
//!
//! The table is a plain record batch that any Arrow reader can filter and aggregate. Its
//! schema metadata (key [`COO_TABLE_KEY`]) records the shape, the dimension names, the
//! layout the tensor had (`COO`, `CSR`, `CSC`, `CSF` with its axis order) and the index type,
//! so that [`coo_table_to_sparse`] rebuilds the same tensor.

use super::arrays::index_data_type;
use super::extension::{json_strings, json_usizes};
use crate::error::{ErrorKind, Result};
use crate::{IndexArray, IndexType, NativeIndex, SparseFormat};
use arrow_array::{Array, RecordBatch};
use arrow_schema::Schema;
use serde_json::Value;

mod columns;
mod csf_rows;
mod from_table;
mod interleave;
mod scan;
mod to_table;

pub use columns::{coo_columns_to_sparse, CooColumns, CooSelection};
pub use from_table::{coo_table_to_sparse, coo_table_to_sparse_with};
pub use to_table::{dense_to_coo_table, sparse_to_coo_table};

/// Schema metadata key of a COO table: a JSON object with `shape`, `format` (`"COO"`,
/// `"CSR"`, `"CSC"` or `"CSF"`), `index_type`, and when present `dim_names` and
/// `axis_order` (CSF).
pub const COO_TABLE_KEY: &str = "arrow_tensor_ipc.sparse_tensor";

/// The name of the values column.
pub const VALUE_COLUMN: &str = "value";

/// What the schema metadata of a COO table records about the tensor (the tensor's
/// [`TensorInfo`](crate::TensorInfo) without the value type, which the value column's type
/// gives, and with the coordinate columns' index type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CooTableInfo {
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
            ErrorKind::InvalidMetadata {
                key: COO_TABLE_KEY,
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

/// `a` as an index array of type `to`: `a` itself when it has that type, else a copy made
/// in one pass that also folds every value's bits together. `None` when a value is
/// negative or does not fit `to`, or `a` is misaligned.
fn cast_index(a: &IndexArray, to: IndexType) -> Option<IndexArray> {
    if a.index_type() == to {
        return Some(a.clone());
    }
    crate::dispatch_index!(a.index_type(), S => crate::dispatch_index!(to, D => cast_values::<S, D>(a.values::<S>()?)))
}

/// `src` converted to `D`, or `None` when a value is negative or above `D`'s largest.
fn cast_values<S: NativeIndex, D: NativeIndex>(src: &[S]) -> Option<IndexArray> {
    // The largest value of every index type is `2^k - 1`: a value fits when its bits (a
    // negative one sign-extended, so with its top bit set) lie below bit `k`, and all of
    // them do exactly when the values' bits ORed together do. (From a signed type, bit 63
    // marks a negative value, so it is never within the limit.)
    let max = if S::TYPE.is_signed() {
        D::TYPE.max_value().min(i64::MAX as u64)
    } else {
        D::TYPE.max_value()
    };
    debug_assert_eq!(max & max.wrapping_add(1), 0);
    let mut bits = 0u64;
    let out: Vec<D> = src
        .iter()
        .map(|&v| {
            bits |= v.as_usize() as u64;
            D::usize_as(v.as_usize())
        })
        .collect();
    (bits <= max).then(|| IndexArray::from_vec(out))
}

/// Tables of at least this many rows are split, interleaved and rebuilt on several
/// threads: each row is a few bytes of copying, so a quarter of a million rows already
/// outweigh starting a thread many times over.
const TABLE_PARALLEL_MIN: usize = 1 << 18;

/// Threads for a job over `nnz` table rows: one below [`TABLE_PARALLEL_MIN`] rows, else
/// one per core ([`crate::parallel::thread_count`]).
fn table_threads(nnz: usize) -> usize {
    if nnz < TABLE_PARALLEL_MIN {
        1
    } else {
        crate::parallel::thread_count(0)
    }
}

/// The threads ([`table_threads`]) and the rows each handles when a coordinate matrix of
/// `nnz` rows is split or interleaved.
fn shares(nnz: usize) -> (usize, usize) {
    let threads = table_threads(nnz);
    (threads, nnz.div_ceil(threads).max(1))
}

/// Coordinate column `d` of a table as an index array of type `it`, sharing the column's
/// buffer; `None` when its type differs or it holds nulls (the general path then reports it).
fn index_column(table: &RecordBatch, d: usize, it: IndexType) -> Option<IndexArray> {
    let a = table.column(d);
    if a.data_type() != &index_data_type(it) || a.null_count() > 0 {
        return None;
    }
    let bytes = crate::record_batch::arrays::primitive_bytes(
        a.as_ref(),
        it.byte_width(),
        "",
        "coordinate",
        |i| i,
    )
    .ok()?;
    IndexArray::try_new(it, bytes).ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::cast_index;
    use crate::{IndexArray, IndexType};
    use arrow_buffer::Buffer;

    /// `values` (each representable in `t`) as an index array of type `t`.
    fn array(t: IndexType, values: &[i128]) -> IndexArray {
        let w = t.byte_width();
        let bytes: Vec<u8> = values
            .iter()
            .flat_map(|v| v.to_le_bytes().into_iter().take(w))
            .collect();
        IndexArray::try_new(t, Buffer::from_vec(bytes)).unwrap()
    }

    fn range(t: IndexType) -> (i128, i128) {
        let bits = 8 * t.byte_width() as u32;
        if t.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    }

    /// Values at and around each type's limits, cast from every type to every other,
    /// one at a time and all together, against the definition: kept when every value lies
    /// in `0..=max` of the target, refused otherwise.
    #[test]
    fn casts_keep_values_that_fit_and_refuse_the_rest() {
        let mut edges: Vec<i128> = vec![0, 1, 2, 3, -1, -2];
        for t in IndexType::ALL {
            let (lo, hi) = range(t);
            edges.extend([lo, lo + 1, hi - 1, hi, hi + 1]);
        }
        for from in IndexType::ALL {
            let (lo, hi) = range(from);
            let mine: Vec<i128> = edges
                .iter()
                .copied()
                .filter(|v| (lo..=hi).contains(v))
                .collect();
            for to in IndexType::ALL.into_iter().filter(|&t| t != from) {
                let fits = |v: &i128| (0..=to.max_value() as i128).contains(v);
                for v in &mine {
                    let got = cast_index(&array(from, &[*v]), to);
                    let want = fits(v).then(|| array(to, &[*v]));
                    assert_eq!(got, want, "{v} from {from:?} to {to:?}");
                }
                let got = cast_index(&array(from, &mine), to);
                let want = mine.iter().all(fits).then(|| array(to, &mine));
                assert_eq!(got, want, "all from {from:?} to {to:?}");
            }
        }
    }
}
