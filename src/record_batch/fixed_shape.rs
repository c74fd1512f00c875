//! Dense tensors as `arrow.fixed_shape_tensor` columns (`FixedSizeListArray`), and back.
//!
//! A row-major tensor becomes a column without a copy: the list's values buffer is the
//! tensor's data buffer. Reading a column back is zero-copy too, whatever its permutation
//! (the tensor gets the strides the permutation describes).

use super::arrays::{data_type, primitive_array, primitive_bytes};
use super::extension::{inverse_permutation, permute_to_logical, FixedShapeTensorType};
use crate::error::{fail, ErrorKind, Result};
use crate::ConvertOptions;
use crate::Limits;
use crate::{row_major_strides, Tensor};
use arrow_array::{Array, ArrayRef, FixedSizeListArray, RecordBatch};
use arrow_schema::{Field, Schema};
use std::sync::Arc;

/// Field metadata key holding the name of a tensor's first axis when that axis became the
/// rows of a column (the extension type itself names only the cell dimensions).
pub const ROWS_DIM_NAME_KEY: &str = "arrow_tensor_ipc.rows_dim_name";

/// How a tensor maps onto the rows of a fixed-shape tensor column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rows {
    /// The first axis becomes the rows: a `[N, a, b]` tensor is `N` cells of shape `[a, b]`
    /// (what Arrow C++'s `FixedShapeTensorArray::FromTensor` and pyarrow's
    /// `from_numpy_ndarray` do).
    #[default]
    FirstAxis,
    /// The whole tensor is one cell (one row).
    Whole,
}

/// What happens to a tensor whose data is not row-major.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layout {
    /// Copy it into row-major order (what every reader handles; the default).
    #[default]
    RowMajor,
    /// Keep its memory layout and record it as the type's `"permutation"` (no copy). The
    /// cells must be a permutation of a contiguous layout (column-major is one, written
    /// as the reversed permutation), and with
    /// [`Rows::FirstAxis`] the first axis must be the outermost.
    Keep,
}

/// Options of [`tensor_to_fixed_shape`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FixedShapeOptions {
    /// How the tensor maps onto rows.
    pub rows: Rows,
    /// Row-major copy or kept layout.
    pub layout: Layout,
}

impl FixedShapeOptions {
    /// Sets [`FixedShapeOptions::rows`].
    pub fn with_rows(mut self, rows: Rows) -> Self {
        self.rows = rows;
        self
    }

    /// Sets [`FixedShapeOptions::layout`].
    pub fn with_layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }
}

/// A fixed-shape tensor column: its type (the field's metadata) and its array.
#[derive(Clone, Debug)]
pub struct FixedShapeColumn {
    /// The extension type of the column.
    pub tensor_type: FixedShapeTensorType,
    /// The storage array.
    pub array: FixedSizeListArray,
    /// The name of the tensor dimension that became the rows, if it had one.
    pub rows_dim_name: Option<String>,
}

impl FixedShapeColumn {
    /// The column's field, named `name`.
    pub fn field(&self, name: &str) -> Result<Field> {
        let field = self.tensor_type.field(name)?;
        Ok(match &self.rows_dim_name {
            Some(n) => {
                let mut meta = field.metadata().clone();
                meta.insert(ROWS_DIM_NAME_KEY.to_string(), n.clone());
                field.with_metadata(meta)
            }
            None => field,
        })
    }

    /// A record batch holding this column alone, named `name`.
    pub fn into_record_batch(self, name: &str) -> Result<RecordBatch> {
        let schema = Arc::new(Schema::new(vec![self.field(name)?]));
        let array: ArrayRef = Arc::new(self.array);
        Ok(RecordBatch::try_new(schema, vec![array])?)
    }
}

/// A dense tensor as a fixed-shape tensor column.
///
/// ```
/// use arrow_array::Array;
/// use arrow_tensor_ipc::record_batch::{fixed_shape_to_tensor, tensor_to_fixed_shape, FixedShapeOptions};
/// use arrow_tensor_ipc::Tensor;
///
/// // Two 2 x 3 images: two rows.
/// let t = Tensor::from_vec(vec![2, 2, 3], (0..12).map(|v| v as f32).collect())?;
/// let column = tensor_to_fixed_shape(&t, &FixedShapeOptions::default())?;
/// assert_eq!(column.tensor_type.shape(), &[2, 3]);
/// assert_eq!(column.array.len(), 2);
/// // The list values are the tensor's own buffer.
/// let batch = column.into_record_batch("images")?;
/// let back = fixed_shape_to_tensor(batch.schema().field(0), batch.column(0))?;
/// assert!(back.content_eq(&t));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn tensor_to_fixed_shape(
    tensor: &Tensor,
    options: &FixedShapeOptions,
) -> Result<FixedShapeColumn> {
    let (rows, cell_from) = match options.rows {
        Rows::FirstAxis => match tensor.shape().first() {
            Some(&n) => (n, 1),
            None => {
                return fail(ErrorKind::InvalidRank {
                    layout: "Rows::FirstAxis (rows along the first axis; use Rows::Whole)",
                    needed: "rank >= 1",
                    rank: 0,
                })
            }
        },
        Rows::Whole => (1, 0),
    };
    let vt = tensor.value_type();
    let w = vt.byte_width();
    let cell_shape = tensor.shape().get(cell_from..).unwrap_or_default();
    let cell_names = tensor.dim_names().get(cell_from..).unwrap_or_default();
    let rows_dim_name = tensor
        .dim_names()
        .first()
        .filter(|n| cell_from == 1 && !n.is_empty())
        .cloned();
    let named = cell_names.iter().any(|n| !n.is_empty());

    let kept = match options.layout {
        Layout::Keep if !tensor.is_row_major() && !tensor.is_empty() => {
            Some(kept_permutation(tensor, cell_from)?)
        }
        _ => None,
    };
    let (ty, data) = match kept {
        None => {
            let mut ty = FixedShapeTensorType::new(vt, cell_shape.to_vec());
            if named {
                ty = ty.with_dim_names(cell_names.iter().cloned())?;
            }
            (ty, tensor.row_major_bytes())
        }
        Some(perm) => {
            // Physical dimension i is logical cell dimension perm[i].
            let physical: Vec<usize> = perm
                .iter()
                .filter_map(|&l| cell_shape.get(l).copied())
                .collect();
            let mut ty = FixedShapeTensorType::new(vt, physical);
            if named {
                ty = ty.with_dim_names(perm.iter().filter_map(|&l| cell_names.get(l).cloned()))?;
            }
            // The spec's permutation maps logical to physical: its inverse.
            ty = ty.with_permutation(inverse_permutation(&perm))?;
            let n = tensor.len() * w;
            (ty, tensor.data().slice_with_length(0, n))
        }
    };
    let size = ty.list_size()?;
    let values = primitive_array(data_type(vt), data, tensor.len())?;
    let item = Arc::new(Field::new("item", data_type(vt), false));
    let array = FixedSizeListArray::try_new_with_length(item, size as i32, values, None, rows)?;
    Ok(FixedShapeColumn {
        tensor_type: ty,
        array,
        rows_dim_name,
    })
}

/// The permutation (physical to logical cell dimensions) of a tensor whose cells, from
/// dimension `cell_from` on, are a permutation of a contiguous layout; with `cell_from` 1 the
/// first axis must also be outermost.
fn kept_permutation(tensor: &Tensor, cell_from: usize) -> Result<Vec<usize>> {
    let w = tensor.value_type().byte_width();
    let shape = tensor.shape().get(cell_from..).unwrap_or_default();
    let strides = tensor.strides().get(cell_from..).unwrap_or_default();
    // Whether the cells are stored with their dimensions in `order` (outermost first);
    // dimensions of size 1, whose stride does not matter, fit anywhere.
    let fits = |order: &[usize]| {
        let physical: Vec<usize> = order
            .iter()
            .filter_map(|&l| shape.get(l).copied())
            .collect();
        let expected = row_major_strides(&physical, w);
        order
            .iter()
            .zip(&expected)
            .all(|(&l, &e)| shape.get(l) == Some(&1) || strides.get(l) == Some(&e))
    };
    // Row-major cells need no permutation, and column-major cells keep the reversed order
    // (an involution, which every reader handles alike) even when dimensions of size 1
    // would allow another.
    let identity: Vec<usize> = (0..shape.len()).collect();
    let reversed: Vec<usize> = (0..shape.len()).rev().collect();
    let perm = if fits(&identity) {
        identity
    } else if fits(&reversed) {
        reversed
    } else {
        // Outermost first; dimensions of size 1 keep their place relative to each other.
        let mut perm: Vec<usize> = (0..shape.len()).collect();
        perm.sort_by(|&a, &b| {
            let key = |d: usize| {
                if shape.get(d) == Some(&1) {
                    0
                } else {
                    strides.get(d).copied().unwrap_or(0)
                }
            };
            key(b).cmp(&key(a)).then(a.cmp(&b))
        });
        perm
    };
    let physical: Vec<usize> = perm.iter().filter_map(|&l| shape.get(l).copied()).collect();
    let contiguous = fits(&perm);
    let cell_bytes = physical.iter().product::<usize>() * w;
    let outer_ok = cell_from == 0
        || tensor.shape().first().is_some_and(|&n| n <= 1)
        || tensor.strides().first() == Some(&cell_bytes);
    if !contiguous || !outer_ok {
        return fail(ErrorKind::InvalidStrides {
            strides: tensor.strides().iter().map(|&s| s as i64).collect(),
            reason: if contiguous {
                "keeping the layout with the first axis as rows needs that axis outermost"
            } else {
                "keeping the layout needs cells that are a permutation of a contiguous layout"
            },
        });
    }
    Ok(perm)
}

fn column_of<'a>(field: &Field, array: &'a dyn Array) -> Result<&'a FixedSizeListArray> {
    array
        .as_any()
        .downcast_ref::<FixedSizeListArray>()
        .ok_or_else(|| {
            ErrorKind::InvalidColumn {
                column: field.name().clone(),
                reason: format!(
                    "fixed_shape_tensor storage must be a fixed_size_list, found {}",
                    array.data_type()
                ),
            }
            .into()
        })
}

/// A fixed-shape tensor column as one tensor of shape `[rows, *cell shape]` (logical cell
/// shape, names from the metadata), without copying: the tensor's strides follow the
/// column's permutation. A null cell or value is an error naming the column and row.
/// Under [`ConvertOptions::default`]: see [`fixed_shape_to_tensor_with`].
pub fn fixed_shape_to_tensor(field: &Field, array: &dyn Array) -> Result<Tensor> {
    fixed_shape_to_tensor_with(field, array, &ConvertOptions::default())
}

/// [`fixed_shape_to_tensor`] under the limits of `options`: a cell shape whose rank (plus the rows' axis)
/// is over [`Limits::max_rank`] is an [`ErrorKind::ColumnLimitExceeded`], and one that
/// claims more values than the storage holds an [`ErrorKind::InvalidColumn`], both naming
/// the column.
pub fn fixed_shape_to_tensor_with(
    field: &Field,
    array: &dyn Array,
    options: &ConvertOptions,
) -> Result<Tensor> {
    let limits = &options.limits;
    let ty = FixedShapeTensorType::from_field(field)?;
    check_rank(field, ty.shape().len(), limits)?;
    let list = column_of(field, array)?;
    check_storage(field, list, &ty)?;
    let vt = ty.value_type();
    let w = vt.byte_width();
    let size = ty.list_size()?;
    let column = field.name();
    if let Some(row) = super::arrays::first_null(list) {
        return fail(ErrorKind::NullCell {
            column: column.clone(),
            row,
            what: "cell",
        });
    }
    let data = primitive_bytes(list.values().as_ref(), w, column, "value in a cell", |i| {
        i / size.max(1)
    })?;
    let physical_strides = row_major_strides(ty.shape(), w);
    let cell_strides = permute_to_logical(&physical_strides, ty.permutation());
    let mut shape = vec![list.len()];
    shape.extend(ty.logical_shape());
    let mut strides = vec![size * w];
    strides.extend(cell_strides);
    let mut names = vec![field
        .metadata()
        .get(ROWS_DIM_NAME_KEY)
        .cloned()
        .unwrap_or_default()];
    names.extend(ty.logical_dim_names());
    let t = Tensor::try_new(vt, shape, strides, data)?;
    if names.iter().any(|n| !n.is_empty()) {
        t.with_dim_names(names)
    } else {
        Ok(t)
    }
}

/// Each row of a fixed-shape tensor column as its own tensor (logical cell shape, no
/// copy: every tensor is a slice of the column's values buffer). Under
/// [`ConvertOptions::default`]: see [`fixed_shape_cells_with`].
pub fn fixed_shape_cells(field: &Field, array: &dyn Array) -> Result<Vec<Tensor>> {
    fixed_shape_cells_with(field, array, &ConvertOptions::default())
}

/// [`fixed_shape_cells`] under the limits of `options` (as [`fixed_shape_to_tensor_with`]); cells without
/// values back no memory, so more rows of them than [`Limits::max_index_len`] are an
/// [`ErrorKind::ColumnLimitExceeded`].
pub fn fixed_shape_cells_with(
    field: &Field,
    array: &dyn Array,
    options: &ConvertOptions,
) -> Result<Vec<Tensor>> {
    let limits = &options.limits;
    let whole = fixed_shape_to_tensor_with(field, array, options)?;
    let vt = whole.value_type();
    let size = whole.strides().first().copied().unwrap_or(0);
    let shape = whole.shape().get(1..).unwrap_or_default().to_vec();
    let strides = whole.strides().get(1..).unwrap_or_default().to_vec();
    let names = whole.dim_names().get(1..).unwrap_or_default().to_vec();
    let named = names.iter().any(|n| !n.is_empty());
    let rows = whole.shape().first().copied().unwrap_or(0);
    let cell_len = shape.iter().product::<usize>();
    if cell_len == 0 && rows > limits.max_index_len {
        return fail(ErrorKind::ColumnLimitExceeded {
            column: field.name().clone(),
            what: "rows of cells without values".into(),
            value: rows as u64,
            limit: limits.max_index_len as u64,
            rule: "Limits::max_index_len (empty cells back no memory)".into(),
        });
    }
    let cell_bytes = cell_len * vt.byte_width();
    (0..rows)
        .map(|row| {
            let data = whole.data().slice_with_length(row * size, cell_bytes);
            let t = Tensor::try_new(vt, shape.clone(), strides.clone(), data)?;
            if named {
                t.with_dim_names(names.clone())
            } else {
                Ok(t)
            }
        })
        .collect()
}

/// A tensor of the cells' rank plus the rows' axis is within [`Limits::max_rank`].
fn check_rank(field: &Field, cell_rank: usize, limits: &Limits) -> Result<()> {
    let rank = cell_rank.saturating_add(1);
    if rank > limits.max_rank {
        return fail(ErrorKind::ColumnLimitExceeded {
            column: field.name().clone(),
            what: "rank of the tensor (the rows, then the cell shape of the fixed_shape_tensor metadata)".into(),
            value: rank as u64,
            limit: limits.max_rank as u64,
            rule: "Limits::max_rank".into(),
        });
    }
    Ok(())
}

/// The storage matches the type: list item type and size, and values for every cell.
fn check_storage(
    field: &Field,
    list: &FixedSizeListArray,
    ty: &FixedShapeTensorType,
) -> Result<()> {
    let want = ty.list_size()?;
    let bad = |reason: String| {
        fail(ErrorKind::InvalidColumn {
            column: field.name().clone(),
            reason,
        })
    };
    if usize::try_from(list.value_length()).ok() != Some(want) {
        return bad(format!(
            "list size {} is not the product of the shape {:?} ({want})",
            list.value_length(),
            ty.shape()
        ));
    }
    if list.values().data_type() != &data_type(ty.value_type()) {
        return bad(format!(
            "values of type {}, the field says {}",
            list.values().data_type(),
            ty.value_type()
        ));
    }
    let needed = list.len().checked_mul(want);
    if needed.is_none_or(|n| n > list.values().len()) {
        return bad(format!(
            "{} rows of cells of shape {:?} ({want} values each) and {} values",
            list.len(),
            ty.shape(),
            list.values().len()
        ));
    }
    Ok(())
}
