//! Tables that hold a COO tensor without the whole of the COO-table metadata: query-engine
//! results, dataframes, tables with extra columns (Hive partition keys). [`CooColumns`] says
//! which columns hold the coordinates, the shape and the dimension names;
//! [`CooColumns::resolve`] settles them against a schema and its [`COO_TABLE_KEY`] metadata
//! ([`CooSelection`]); [`CooSelection::to_sparse`] projects the columns, infers the shape
//! where none is known and reads the tensor as [`coo_table_to_sparse_with`] reads a COO
//! table.

use super::from_table::coo_table_to_sparse_with;
use super::{coordinate_type, CooTableInfo, COO_TABLE_KEY, VALUE_COLUMN};
use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::{index_data_type, index_type, primitive_array, value_type};
use crate::{ConvertOptions, IndexArray, IndexType, NativeIndex, SparseFormat, SparseTensor};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_buffer::Buffer;
use arrow_schema::{Field, Schema};
use std::collections::HashMap;
use std::sync::Arc;

/// What a caller says about the COO tensor a table holds, for tables that do not carry (all
/// of) the [`COO_TABLE_KEY`] metadata [`sparse_to_coo_table`](super::sparse_to_coo_table)
/// writes. Every field is optional; [`CooColumns::resolve`] completes them from the table's
/// schema:
///
/// - the shape is the metadata's when the table has it (a [`shape`](Self::shape) given must
///   then be the same), else the one given, else (at [`CooSelection::to_sparse`]) the
///   largest coordinate + 1 of each coordinate column (0 for a table without rows);
/// - the coordinate columns are the ones given, else those the metadata names, else
///   `dim_0`, `dim_1`, ... (as many as the shape has dimensions, or as the table has from
///   `dim_0` on without a gap). Other columns are ignored. The values are the
///   [`VALUE_COLUMN`] column;
/// - the dimension names are the ones given, else the metadata's, else the coordinate
///   columns' names, where a column named `dim_<d>` for its own dimension `d` gives an
///   unnamed dimension (the names [`sparse_to_coo_table`](super::sparse_to_coo_table)
///   gives columns, read back).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CooColumns {
    /// The tensor's shape.
    pub shape: Option<Vec<usize>>,
    /// The names of the coordinate columns, in dimension order.
    pub columns: Option<Vec<String>>,
    /// The dimension names (`""` for an unnamed dimension), one per coordinate column.
    pub dim_names: Option<Vec<String>>,
}

impl CooColumns {
    /// Nothing said: everything from the table (see [`CooColumns`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`CooColumns::shape`].
    pub fn with_shape(mut self, shape: impl Into<Vec<usize>>) -> Self {
        self.shape = Some(shape.into());
        self
    }

    /// Sets [`CooColumns::columns`].
    pub fn with_columns<S: Into<String>>(mut self, columns: impl IntoIterator<Item = S>) -> Self {
        self.columns = Some(columns.into_iter().map(Into::into).collect());
        self
    }

    /// Sets [`CooColumns::dim_names`].
    pub fn with_dim_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.dim_names = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Settles which columns of a table of `schema` hold the tensor, its shape when known
    /// without reading the data, and its dimension names (see [`CooColumns`]). Reads the
    /// schema only, so a reader can fetch just the columns the selection names.
    ///
    /// Errors: [`ErrorKind::InvalidMetadata`] for [`COO_TABLE_KEY`] metadata that is not
    /// what [`sparse_to_coo_table`](super::sparse_to_coo_table) writes;
    /// [`ErrorKind::Inconsistent`] for a shape that differs from the metadata's;
    /// [`ErrorKind::CountMismatch`] for a shape or dimension names of another rank than the
    /// coordinate columns; [`ErrorKind::InvalidRank`] for no coordinate column and no shape;
    /// [`ErrorKind::DuplicateName`] for a column named twice, or the value column named as a
    /// coordinate column; [`ErrorKind::InvalidColumn`] for a column the schema does not have;
    /// [`ErrorKind::LimitExceeded`] for a size given above `i64::MAX`.
    pub fn resolve(&self, schema: &Schema) -> Result<CooSelection> {
        let meta = match schema.metadata().get(COO_TABLE_KEY) {
            Some(_) => Some(CooTableInfo::from_schema(schema)?),
            None => None,
        };
        if let Some(given) = &self.shape {
            if let Some(&size) = given.iter().find(|&&d| d as u64 > i64::MAX as u64) {
                return fail(ErrorKind::LimitExceeded {
                    what: "size of a dimension of the shape given (at most i64::MAX)",
                    value: size as u64,
                    limit: i64::MAX as u64,
                });
            }
        }
        let shape = match (&meta, &self.shape) {
            (Some(m), Some(given)) if *given != m.shape => {
                return fail(ErrorKind::Inconsistent {
                    what: format!(
                        "the shape given (here) against the shape the table's {COO_TABLE_KEY} metadata records (first)"
                    ),
                    first: format!("{:?}", m.shape),
                    found: format!("{given:?}"),
                })
            }
            (Some(m), _) => Some(m.shape.clone()),
            (None, given) => given.clone(),
        };
        let names: Vec<String> = match (&self.columns, &meta, &shape) {
            (Some(given), _, _) => given.clone(),
            (None, Some(m), _) => {
                let mut names = m.column_names();
                names.pop();
                names
            }
            (None, None, Some(s)) => (0..s.len()).map(|d| format!("dim_{d}")).collect(),
            (None, None, None) => {
                let mut names: Vec<String> = Vec::new();
                while schema.index_of(&format!("dim_{}", names.len())).is_ok() {
                    names.push(format!("dim_{}", names.len()));
                }
                if names.is_empty() {
                    return fail(ErrorKind::InvalidColumn {
                        column: "dim_0".into(),
                        reason: format!(
                            "no coordinate columns: the table has no {COO_TABLE_KEY} metadata and no dim_0 column (columns: {}); name the coordinate columns",
                            field_list(schema)
                        ),
                    });
                }
                names
            }
        };
        if let Some(s) = &shape {
            if s.len() != names.len() {
                return fail(ErrorKind::CountMismatch {
                    what: format!("coordinate columns {names:?} for the dimensions of shape {s:?}"),
                    expected: s.len() as u64,
                    found: names.len() as u64,
                });
            }
        } else if names.is_empty() {
            return fail(ErrorKind::InvalidRank {
                layout: "a COO table without a known shape",
                needed: "at least one coordinate column",
                rank: 0,
            });
        }
        for (i, name) in names.iter().enumerate() {
            if name == VALUE_COLUMN || names.get(..i).is_some_and(|before| before.contains(name)) {
                return fail(ErrorKind::DuplicateName {
                    what: "coordinate columns of the COO table",
                    name: name.clone(),
                    note:
                        " (each coordinate column holds one dimension, and the value column none)",
                });
            }
        }
        let mut columns = Vec::with_capacity(names.len());
        for name in &names {
            let Ok(i) = schema.index_of(name) else {
                return fail(ErrorKind::InvalidColumn {
                    column: name.clone(),
                    reason: format!(
                        "no such coordinate column (columns: {})",
                        field_list(schema)
                    ),
                });
            };
            columns.push(i);
        }
        let Ok(value) = schema.index_of(VALUE_COLUMN) else {
            return fail(ErrorKind::InvalidColumn {
                column: VALUE_COLUMN.into(),
                reason: format!("no value column (columns: {})", field_list(schema)),
            });
        };
        let dim_names = match (&self.dim_names, &meta) {
            (Some(given), _) => {
                if given.len() != names.len() {
                    return fail(ErrorKind::CountMismatch {
                        what: format!(
                            "dimension names {given:?} for the coordinate columns {names:?}"
                        ),
                        expected: names.len() as u64,
                        found: given.len() as u64,
                    });
                }
                given.clone()
            }
            (None, Some(m)) => m.dim_names.clone(),
            (None, None) => names
                .iter()
                .enumerate()
                .map(|(d, n)| {
                    if *n == format!("dim_{d}") {
                        String::new()
                    } else {
                        n.clone()
                    }
                })
                .collect(),
        };
        let format = meta.as_ref().map_or(SparseFormat::Coo, |m| m.format);
        let axis_order = meta
            .and_then(|m| m.axis_order)
            .filter(|_| format == SparseFormat::Csf);
        Ok(CooSelection {
            columns,
            names,
            value,
            shape,
            dim_names,
            format,
            axis_order,
        })
    }
}

/// The names of a schema's fields, for error messages.
fn field_list(schema: &Schema) -> String {
    let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
    format!("{names:?}")
}

/// Which columns of a table hold a COO tensor, and what is known of it without reading the
/// data: what [`CooColumns::resolve`] settles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CooSelection {
    /// Positions of the coordinate columns in the schema, in dimension order.
    columns: Vec<usize>,
    /// Their names.
    names: Vec<String>,
    /// Position of the value column.
    value: usize,
    /// The shape, when the metadata records it or the caller gave it.
    shape: Option<Vec<usize>>,
    /// The dimension names.
    dim_names: Vec<String>,
    /// The layout the metadata records (COO without metadata).
    format: SparseFormat,
    /// The CSF axis order the metadata records.
    axis_order: Option<Vec<usize>>,
}

impl CooSelection {
    /// Positions of the coordinate columns in the schema, in dimension order.
    pub fn coordinate_columns(&self) -> &[usize] {
        &self.columns
    }

    /// Position of the value column in the schema.
    pub fn value_column(&self) -> usize {
        self.value
    }

    /// The shape, when the metadata records it or the caller gave it (`None`: inferred from
    /// the coordinates by [`CooSelection::to_sparse`]).
    pub fn shape(&self) -> Option<&[usize]> {
        self.shape.as_deref()
    }

    /// The dimension names (`""` for an unnamed dimension).
    pub fn dim_names(&self) -> &[String] {
        &self.dim_names
    }

    /// The layout the table's metadata records ([`SparseFormat::Coo`] without metadata):
    /// the result's layout unless [`CooSelection::to_sparse`] is given another.
    pub fn format(&self) -> SparseFormat {
        self.format
    }

    /// The sparse tensor the selected columns of `table` hold (`table` has the schema the
    /// selection was resolved against), in `format` or else [`CooSelection::format`].
    ///
    /// Coordinate columns of one integer type are read as they are; columns of different
    /// types are each converted to [`coordinate_type`] of the shape, every coordinate
    /// checked on the way. Without a known shape, each size is the column's largest
    /// coordinate + 1. The projected columns, with the metadata this selection gives them,
    /// are then read by [`coo_table_to_sparse_with`] with `options`: rows in any order, rows
    /// with the same coordinates summed (a COO result keeps the table's row order and is
    /// flagged non-canonical when the rows do not strictly increase row-major), the limits
    /// of `options` bounding the shape, which is a claim of the caller or the metadata.
    ///
    /// Errors name the column (and row): [`ErrorKind::InvalidColumn`] for a coordinate
    /// column of a non-integer type or a value column of a type tensors do not hold,
    /// [`ErrorKind::NullCell`] for a null, [`ErrorKind::CoordinateOutOfBounds`] for a
    /// coordinate outside the shape (negative, or not below its size; without a known
    /// shape, a negative coordinate or one of `i64::MAX` or more), and
    /// [`ErrorKind::LimitExceeded`] for more coordinate columns than
    /// [`Limits::max_rank`](crate::Limits::max_rank).
    pub fn to_sparse(
        &self,
        table: &RecordBatch,
        format: Option<SparseFormat>,
        options: &ConvertOptions,
    ) -> Result<SparseTensor> {
        let schema = table.schema();
        let ndim = self.columns.len();
        if ndim > options.limits.max_rank {
            return fail(ErrorKind::LimitExceeded {
                what: "coordinate columns of a COO table (Limits::max_rank)",
                value: ndim as u64,
                limit: options.limits.max_rank as u64,
            });
        }
        let field = |i: usize, name: &str| -> Result<&Arc<Field>> {
            match schema.fields().get(i) {
                Some(f) if f.name() == name => Ok(f),
                _ => fail(ErrorKind::InvalidColumn {
                    column: name.to_string(),
                    reason: format!(
                        "not column {i} of this table (columns: {}): the selection was resolved against another schema",
                        field_list(&schema)
                    ),
                }),
            }
        };
        let value_field = field(self.value, VALUE_COLUMN)?;
        if value_type(value_field.data_type()).is_none() {
            return fail(ErrorKind::InvalidColumn {
                column: VALUE_COLUMN.into(),
                reason: format!(
                    "values of type {} (not a tensor value type)",
                    value_field.data_type()
                ),
            });
        }
        let mut coords = Vec::with_capacity(ndim);
        for (&i, name) in self.columns.iter().zip(&self.names) {
            let f = field(i, name)?;
            let Some(it) = index_type(f.data_type()) else {
                return fail(ErrorKind::InvalidColumn {
                    column: name.clone(),
                    reason: format!(
                        "coordinates of type {} (not an integer type)",
                        f.data_type()
                    ),
                });
            };
            let array = table.column(i);
            coords.push(Coordinates {
                name,
                array,
                it,
                field: f,
            });
        }
        let shape = match &self.shape {
            Some(s) => s.clone(),
            None => coords
                .iter()
                .enumerate()
                .map(|(d, c)| c.inferred_size(d))
                .collect::<Result<Vec<_>>>()?,
        };
        // One type for every column: used as it is (the reader checks every coordinate).
        // Otherwise the shape's coordinate type, which holds every coordinate inside it.
        let common = coords
            .first()
            .map(|c| c.it)
            .filter(|&first| coords.iter().all(|c| c.it == first));
        let it = common.unwrap_or_else(|| coordinate_type(&shape));
        let mut fields: Vec<Arc<Field>> = Vec::with_capacity(ndim + 1);
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(ndim + 1);
        for (d, c) in coords.iter().enumerate() {
            if c.it == it {
                fields.push(c.field.clone());
                arrays.push(c.array.clone());
            } else {
                let size = shape.get(d).copied().unwrap_or(0);
                fields.push(Arc::new(
                    Field::new(c.name, index_data_type(it), c.field.is_nullable())
                        .with_metadata(c.field.metadata().clone()),
                ));
                arrays.push(c.converted(d, size, it)?);
            }
        }
        fields.push(value_field.clone());
        arrays.push(table.column(self.value).clone());
        let info = CooTableInfo {
            shape,
            dim_names: self.dim_names.clone(),
            format: self.format,
            index_type: it,
            axis_order: self.axis_order.clone(),
        };
        let schema = Schema::new(fields).with_metadata(HashMap::from([(
            COO_TABLE_KEY.to_string(),
            info.metadata(),
        )]));
        let projected = RecordBatch::try_new(Arc::new(schema), arrays)?;
        coo_table_to_sparse_with(&projected, format, options)
    }
}

/// The sparse tensor the columns `columns` describes hold in `table`, in `format` or the
/// layout the table's metadata records (COO without metadata): [`CooColumns::resolve`]
/// against the table's schema, then [`CooSelection::to_sparse`].
///
/// ```
/// use arrow_array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, UInt32Array};
/// use arrow_tensor_ipc::record_batch::{coo_columns_to_sparse, CooColumns};
/// use arrow_tensor_ipc::{ConvertOptions, SparseFormat};
/// use std::sync::Arc;
///
/// // What a query engine returns: no metadata, columns of any integer types, rows in any
/// // order, a partition key besides.
/// let table = RecordBatch::try_from_iter([
///     ("tile_0", Arc::new(Int32Array::from(vec![1, 0, 1])) as ArrayRef),
///     ("i", Arc::new(UInt32Array::from(vec![5, 0, 3])) as ArrayRef),
///     ("j", Arc::new(Int64Array::from(vec![2, 7, 0])) as ArrayRef),
///     ("value", Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0])) as ArrayRef),
/// ])?;
/// let columns = CooColumns::new().with_columns(["i", "j"]);
/// let m = coo_columns_to_sparse(&table, &columns, Some(SparseFormat::Csr), &ConvertOptions::default())?;
/// assert_eq!(m.shape(), &[6, 8]); // the largest coordinates + 1
/// assert_eq!(m.dim_names(), &["i", "j"]);
/// assert_eq!(m.get(&[5, 2])?.as_f64(), 1.0);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn coo_columns_to_sparse(
    table: &RecordBatch,
    columns: &CooColumns,
    format: Option<SparseFormat>,
    options: &ConvertOptions,
) -> Result<SparseTensor> {
    columns
        .resolve(table.schema_ref())?
        .to_sparse(table, format, options)
}

/// A coordinate column of a table: its name, data, integer type and field.
struct Coordinates<'a> {
    name: &'a str,
    array: &'a ArrayRef,
    it: IndexType,
    field: &'a Arc<Field>,
}

impl Coordinates<'_> {
    /// The column's values as an index array (no copy when aligned; a misaligned buffer is
    /// copied); a null is [`ErrorKind::NullCell`].
    fn values(&self) -> Result<IndexArray> {
        let bytes = crate::record_batch::arrays::primitive_bytes(
            self.array.as_ref(),
            self.it.byte_width(),
            self.name,
            "coordinate",
            |i| i,
        )?;
        let a = IndexArray::try_new(self.it, bytes.clone())?;
        let aligned = crate::dispatch_index!(self.it, I => a.values::<I>().is_some());
        if aligned {
            Ok(a)
        } else {
            IndexArray::try_new(self.it, Buffer::from_slice_ref(bytes.as_slice()))
        }
    }

    /// The size of dimension `d` from its coordinates: the largest + 1 (0 without rows).
    fn inferred_size(&self, d: usize) -> Result<usize> {
        let a = self.values()?;
        crate::dispatch_index!(self.it, I => self.size_of::<I>(a.values::<I>().unwrap_or_default(), d))
    }

    fn size_of<I: NativeIndex>(&self, v: &[I], d: usize) -> Result<usize> {
        // The extremes in one pass without an early exit (it vectorises).
        let (lo, hi) = v.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &x| {
            let x = x.as_index();
            (lo.min(x), hi.max(x))
        });
        if v.is_empty() {
            return Ok(0);
        }
        // The largest size a shape may have is i64::MAX (as the metadata allows).
        let size = hi.checked_add(1).map_or(i64::MAX, |s| s.max(0)) as u64;
        let bad = if lo < 0 {
            Some(lo)
        } else if hi == i64::MAX {
            Some(hi)
        } else {
            None
        };
        match bad {
            None => Ok(hi as usize + 1),
            Some(b) => {
                let row = v.iter().position(|&x| x.as_index() == b).unwrap_or(0);
                fail(self.out_of_bounds(row, b, d, size))
            }
        }
    }

    fn out_of_bounds(&self, row: usize, value: i64, dim: usize, size: u64) -> ErrorKind {
        ErrorKind::CoordinateOutOfBounds {
            column: self.name.to_string(),
            row,
            value,
            dim,
            size,
        }
    }

    /// The column converted to `to`, a shape's coordinate type (signed; it holds every
    /// coordinate below `size`), each coordinate checked to lie in `0..size`.
    fn converted(&self, d: usize, size: usize, to: IndexType) -> Result<ArrayRef> {
        let a = self.values()?;
        let n = a.len();
        let unsigned = || {
            fail(ErrorKind::Internal {
                invariant: format!("a COO table's coordinate type is signed, not {to}"),
            })
        };
        let out = crate::dispatch_index!(self.it, S => crate::dispatch_signed!(to, D => self.checked::<S, D>(a.values::<S>().unwrap_or_default(), d, size), else unsigned()))?;
        primitive_array(index_data_type(to), out, n)
    }

    fn checked<S: NativeIndex, D: NativeIndex>(
        &self,
        v: &[S],
        d: usize,
        size: usize,
    ) -> Result<Buffer> {
        let last = i64::try_from(size).unwrap_or(i64::MAX).saturating_sub(1);
        let mut bad = false;
        let out: Vec<D> = v
            .iter()
            .map(|&x| {
                let x = x.as_index();
                bad |= (x < 0) | (x > last);
                D::usize_as(x as usize)
            })
            .collect();
        if bad {
            let row = v
                .iter()
                .position(|&x| !(0..=last).contains(&x.as_index()))
                .unwrap_or(0);
            let value = v.get(row).map_or(0, |x| x.as_index());
            return fail(self.out_of_bounds(row, value, d, size as u64));
        }
        Ok(Buffer::from_vec(out))
    }
}

#[cfg(test)]
mod tests;
