//! The two canonical tensor extension types: their parameters, the JSON metadata they
//! travel with, and the fields (storage types) that carry them.
//!
//! What we write is what both pyarrow and arrow-rs read: `"shape"` (fixed shape only),
//! `"dim_names"` only when names are set, `"permutation"` only when a layout is kept, never
//! a null, and non-nullable list items. What we read is what either writes: the spec's
//! `"permutation"` or arrow-rs's `"permutations"`, keys that are null or absent, nullable or
//! non-nullable items. Unknown keys are ignored (as pyarrow does).

use super::arrays::{data_type, value_type};
use crate::error::{fail, ErrorKind, Result};
use crate::ValueType;
use arrow_schema::{DataType, Field};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The extension name of fixed-shape tensor columns.
pub const FIXED_SHAPE_TENSOR: &str = "arrow.fixed_shape_tensor";
/// The extension name of variable-shape tensor columns.
pub const VARIABLE_SHAPE_TENSOR: &str = "arrow.variable_shape_tensor";

const NAME_KEY: &str = "ARROW:extension:name";
const METADATA_KEY: &str = "ARROW:extension:metadata";

/// The parameters of an `arrow.fixed_shape_tensor` column: every cell is a tensor of one
/// value type and one shape.
///
/// `shape` and `dim_names` describe the *physical* layout of a cell (its values in
/// row-major order of that shape). With a `permutation`, logical dimension `i` is physical
/// dimension `permutation[i]` (the spec's example: physical shape `[100, 200, 500]` with
/// permutation `[2, 0, 1]` is logical shape `[500, 100, 200]`). A cell of logical shape
/// `[a, b]` stored column-major has physical shape `[b, a]` and permutation `[1, 0]`.
///
/// ```
/// use arrow_tensor_ipc::record_batch::FixedShapeTensorType;
/// use arrow_tensor_ipc::ValueType;
///
/// let t = FixedShapeTensorType::new(ValueType::Float32, vec![2, 3]).with_dim_names(["H", "W"])?;
/// assert_eq!(t.metadata(), r#"{"shape":[2,3],"dim_names":["H","W"]}"#);
/// let field = t.field("images")?;
/// assert_eq!(FixedShapeTensorType::from_field(&field)?, t);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedShapeTensorType {
    value_type: ValueType,
    shape: Vec<usize>,
    dim_names: Option<Vec<String>>,
    permutation: Option<Vec<usize>>,
}

impl FixedShapeTensorType {
    /// Cells of `value_type` and (physical) `shape`, no names, no permutation.
    pub fn new(value_type: ValueType, shape: Vec<usize>) -> Self {
        FixedShapeTensorType {
            value_type,
            shape,
            dim_names: None,
            permutation: None,
        }
    }

    /// Names the (physical) dimensions: one name per dimension.
    pub fn with_dim_names<S: Into<String>>(
        mut self,
        names: impl IntoIterator<Item = S>,
    ) -> Result<Self> {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        check_len("dim_names", names.len(), self.shape.len())?;
        self.dim_names = Some(names);
        Ok(self)
    }

    /// Sets the permutation (logical dimension `i` is physical dimension `permutation[i]`; a
    /// permutation of `0..ndim`; the identity is stored as no permutation).
    pub fn with_permutation(mut self, permutation: Vec<usize>) -> Result<Self> {
        check_permutation(&permutation, self.shape.len())?;
        self.permutation = Some(permutation).filter(|p| !is_identity(p));
        Ok(self)
    }

    /// The value type of the cells.
    pub fn value_type(&self) -> ValueType {
        self.value_type
    }

    /// The physical shape of a cell.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The names of the physical dimensions, if set.
    pub fn dim_names(&self) -> Option<&[String]> {
        self.dim_names.as_deref()
    }

    /// The permutation, if not the identity.
    pub fn permutation(&self) -> Option<&[usize]> {
        self.permutation.as_deref()
    }

    /// The logical shape of a cell: dimension `i` has size `shape[permutation[i]]`.
    pub fn logical_shape(&self) -> Vec<usize> {
        permute_to_logical(&self.shape, self.permutation.as_deref())
    }

    /// The logical dimension names of a cell (`""` where unnamed).
    pub fn logical_dim_names(&self) -> Vec<String> {
        let physical = self
            .dim_names
            .clone()
            .unwrap_or_else(|| vec![String::new(); self.shape.len()]);
        permute_to_logical(&physical, self.permutation.as_deref())
    }

    /// Values per cell (the storage's list size).
    pub fn list_size(&self) -> Result<usize> {
        self.shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .filter(|&n| i32::try_from(n).is_ok())
            .ok_or_else(|| {
                ErrorKind::Overflow {
                    quantity: crate::Quantity::CellValues {
                        shape: self.shape.clone(),
                    },
                }
                .into()
            })
    }

    /// The JSON metadata (`ARROW:extension:metadata`) of the type.
    pub fn metadata(&self) -> String {
        let mut s = format!("{{\"shape\":{}", json_usizes(&self.shape));
        if let Some(names) = &self.dim_names {
            s.push_str(",\"dim_names\":");
            s.push_str(&json_strings(names));
        }
        if let Some(p) = &self.permutation {
            s.push_str(",\"permutation\":");
            s.push_str(&json_usizes(p));
        }
        s.push('}');
        s
    }

    /// The storage type: `fixed_size_list<item: T not null>[list_size]`.
    pub fn storage_type(&self) -> Result<DataType> {
        let size = self.list_size()? as i32;
        Ok(DataType::FixedSizeList(
            Arc::new(Field::new("item", data_type(self.value_type), false)),
            size,
        ))
    }

    /// A non-nullable field named `name` of this type (storage type plus extension
    /// metadata).
    pub fn field(&self, name: &str) -> Result<Field> {
        Ok(Field::new(name, self.storage_type()?, false)
            .with_metadata(extension_metadata(FIXED_SHAPE_TENSOR, self.metadata())))
    }

    /// Reads the type of a field: its extension name must be `arrow.fixed_shape_tensor`,
    /// its metadata valid and its storage type the one the metadata describes.
    pub fn from_field(field: &Field) -> Result<Self> {
        let column = field.name();
        let meta = extension_json(field, FIXED_SHAPE_TENSOR)?;
        let bad = |reason: String| -> crate::Error {
            ErrorKind::InvalidColumn {
                column: column.clone(),
                reason,
            }
            .into()
        };
        let Some(shape) = meta.get("shape").filter(|v| !v.is_null()) else {
            return Err(bad("fixed_shape_tensor metadata without \"shape\"".into()));
        };
        let shape = usizes(shape, "shape").map_err(bad)?;
        let (item, size) = match field.data_type() {
            DataType::FixedSizeList(item, size) => (item, *size),
            other => {
                return Err(bad(format!(
                    "fixed_shape_tensor storage must be a fixed_size_list, found {other}"
                )))
            }
        };
        let Some(vt) = value_type(item.data_type()) else {
            return Err(bad(format!(
                "fixed_shape_tensor values of type {} (not a tensor value type)",
                item.data_type()
            )));
        };
        let mut t = FixedShapeTensorType::new(vt, shape);
        if let Some(names) = meta.get("dim_names").filter(|v| !v.is_null()) {
            let names = strings(names, "dim_names").map_err(bad)?;
            t = t.with_dim_names(names).map_err(|e| bad(e.to_string()))?;
        }
        if let Some(p) = permutation_of(&meta).map_err(bad)? {
            t = t.with_permutation(p).map_err(|e| bad(e.to_string()))?;
        }
        let want = t.list_size().map_err(|e| bad(e.to_string()))?;
        if usize::try_from(size).ok() != Some(want) {
            return Err(bad(format!(
                "list size {size} is not the product of the shape {:?} ({want})",
                t.shape
            )));
        }
        Ok(t)
    }
}

/// The parameters of an `arrow.variable_shape_tensor` column: every cell is a tensor of
/// one value type and rank, each with its own shape.
///
/// Storage: `struct<data: list<T>, shape: fixed_size_list<int32>[ndim]>`, each cell's
/// values in row-major order of its (physical) shape. `dim_names`, `permutation` and
/// `uniform_shape` (sizes every cell shares, `None` where they vary) are optional.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariableShapeTensorType {
    value_type: ValueType,
    ndim: usize,
    dim_names: Option<Vec<String>>,
    permutation: Option<Vec<usize>>,
    uniform_shape: Option<Vec<Option<usize>>>,
}

impl VariableShapeTensorType {
    /// Cells of `value_type` and rank `ndim`, no names, no permutation, no uniform shape.
    pub fn new(value_type: ValueType, ndim: usize) -> Self {
        VariableShapeTensorType {
            value_type,
            ndim,
            dim_names: None,
            permutation: None,
            uniform_shape: None,
        }
    }

    /// Names the (physical) dimensions: one name per dimension.
    pub fn with_dim_names<S: Into<String>>(
        mut self,
        names: impl IntoIterator<Item = S>,
    ) -> Result<Self> {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        check_len("dim_names", names.len(), self.ndim)?;
        self.dim_names = Some(names);
        Ok(self)
    }

    /// Sets the permutation (logical dimension `i` is physical dimension `permutation[i]`).
    pub fn with_permutation(mut self, permutation: Vec<usize>) -> Result<Self> {
        check_permutation(&permutation, self.ndim)?;
        self.permutation = Some(permutation).filter(|p| !is_identity(p));
        Ok(self)
    }

    /// Sets the sizes every cell shares (`None` where cells differ).
    pub fn with_uniform_shape(mut self, uniform_shape: Vec<Option<usize>>) -> Result<Self> {
        check_len("uniform_shape", uniform_shape.len(), self.ndim)?;
        self.uniform_shape = Some(uniform_shape);
        Ok(self)
    }

    /// The value type of the cells.
    pub fn value_type(&self) -> ValueType {
        self.value_type
    }

    /// The rank of every cell.
    pub fn ndim(&self) -> usize {
        self.ndim
    }

    /// The names of the physical dimensions, if set.
    pub fn dim_names(&self) -> Option<&[String]> {
        self.dim_names.as_deref()
    }

    /// The permutation, if not the identity.
    pub fn permutation(&self) -> Option<&[usize]> {
        self.permutation.as_deref()
    }

    /// The uniform shape, if set.
    pub fn uniform_shape(&self) -> Option<&[Option<usize>]> {
        self.uniform_shape.as_deref()
    }

    /// The logical dimension names (`""` where unnamed).
    pub fn logical_dim_names(&self) -> Vec<String> {
        let physical = self
            .dim_names
            .clone()
            .unwrap_or_else(|| vec![String::new(); self.ndim]);
        permute_to_logical(&physical, self.permutation.as_deref())
    }

    /// The JSON metadata of the type (`{}` when nothing is set). The uniform shape is
    /// written only when every size in it is known (a null in the metadata is not read by
    /// every implementation).
    pub fn metadata(&self) -> String {
        let mut parts = Vec::new();
        if let Some(names) = &self.dim_names {
            parts.push(format!("\"dim_names\":{}", json_strings(names)));
        }
        if let Some(p) = &self.permutation {
            parts.push(format!("\"permutation\":{}", json_usizes(p)));
        }
        if let Some(u) = &self.uniform_shape {
            if let Some(all) = u.iter().copied().collect::<Option<Vec<usize>>>() {
                parts.push(format!("\"uniform_shape\":{}", json_usizes(&all)));
            }
        }
        format!("{{{}}}", parts.join(","))
    }

    /// The storage type: `struct<data: list<item: T not null> not null, shape:
    /// fixed_size_list<item: int32 not null>[ndim] not null>`.
    pub fn storage_type(&self) -> Result<DataType> {
        let ndim = i32::try_from(self.ndim).map_err(|_| ErrorKind::Overflow {
            quantity: crate::Quantity::Rank(self.ndim),
        })?;
        let item = Arc::new(Field::new("item", data_type(self.value_type), false));
        let shape_item = Arc::new(Field::new("item", DataType::Int32, false));
        Ok(DataType::Struct(
            vec![
                Field::new("data", DataType::List(item), false),
                Field::new("shape", DataType::FixedSizeList(shape_item, ndim), false),
            ]
            .into(),
        ))
    }

    /// A non-nullable field named `name` of this type.
    pub fn field(&self, name: &str) -> Result<Field> {
        Ok(Field::new(name, self.storage_type()?, false)
            .with_metadata(extension_metadata(VARIABLE_SHAPE_TENSOR, self.metadata())))
    }

    /// Reads the type of a field (extension name `arrow.variable_shape_tensor`).
    pub fn from_field(field: &Field) -> Result<Self> {
        let column = field.name();
        let bad = |reason: String| -> crate::Error {
            ErrorKind::InvalidColumn {
                column: column.clone(),
                reason,
            }
            .into()
        };
        let meta = extension_json(field, VARIABLE_SHAPE_TENSOR)?;
        let DataType::Struct(fields) = field.data_type() else {
            return Err(bad(format!(
                "variable_shape_tensor storage must be a struct, found {}",
                field.data_type()
            )));
        };
        let data = fields.iter().find(|f| f.name() == "data");
        let shape = fields.iter().find(|f| f.name() == "shape");
        let (Some(data), Some(shape)) = (data, shape) else {
            return Err(bad(
                "variable_shape_tensor storage needs fields \"data\" and \"shape\"".into(),
            ));
        };
        let DataType::List(item) = data.data_type() else {
            return Err(bad(format!(
                "variable_shape_tensor \"data\" must be a list, found {}",
                data.data_type()
            )));
        };
        let Some(vt) = value_type(item.data_type()) else {
            return Err(bad(format!(
                "variable_shape_tensor values of type {} (not a tensor value type)",
                item.data_type()
            )));
        };
        let ndim = match shape.data_type() {
            DataType::FixedSizeList(i, n) if i.data_type() == &DataType::Int32 && *n >= 0 => {
                *n as usize
            }
            other => {
                return Err(bad(format!(
                    "variable_shape_tensor \"shape\" must be fixed_size_list<int32>, found {other}"
                )))
            }
        };
        let mut t = VariableShapeTensorType::new(vt, ndim);
        if let Some(names) = meta.get("dim_names").filter(|v| !v.is_null()) {
            let names = strings(names, "dim_names").map_err(bad)?;
            t = t.with_dim_names(names).map_err(|e| bad(e.to_string()))?;
        }
        if let Some(p) = permutation_of(&meta).map_err(bad)? {
            t = t.with_permutation(p).map_err(|e| bad(e.to_string()))?;
        }
        if let Some(u) = meta.get("uniform_shape").filter(|v| !v.is_null()) {
            let Value::Array(items) = u else {
                return Err(bad("\"uniform_shape\" must be an array".into()));
            };
            let sizes = items
                .iter()
                .map(|v| match v {
                    Value::Null => Ok(None),
                    v => v
                        .as_u64()
                        .and_then(|n| usize::try_from(n).ok())
                        .map(Some)
                        .ok_or_else(|| format!("\"uniform_shape\" holds {v}, not a size or null")),
                })
                .collect::<std::result::Result<Vec<_>, String>>()
                .map_err(bad)?;
            t = t
                .with_uniform_shape(sizes)
                .map_err(|e| bad(e.to_string()))?;
        }
        Ok(t)
    }
}

/// `values` reordered from physical to logical dimensions: logical `i` gets physical
/// `permutation[i]` (the spec's reading: numpy's `physical.transpose(permutation)`).
pub(crate) fn permute_to_logical<T: Clone>(values: &[T], permutation: Option<&[usize]>) -> Vec<T> {
    match permutation {
        None => values.to_vec(),
        Some(p) => p.iter().filter_map(|&j| values.get(j).cloned()).collect(),
    }
}

/// The inverse of a permutation (of `0..p.len()`).
pub(crate) fn inverse_permutation(p: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; p.len()];
    for (i, &v) in p.iter().enumerate() {
        if let Some(slot) = inv.get_mut(v) {
            *slot = i;
        }
    }
    inv
}

fn is_identity(p: &[usize]) -> bool {
    p.iter().enumerate().all(|(i, &v)| i == v)
}

fn check_len(what: &str, found: usize, ndim: usize) -> Result<()> {
    if found != ndim {
        return fail(ErrorKind::CountMismatch {
            what: format!("{what} (one per dimension)"),
            expected: ndim as u64,
            found: found as u64,
        });
    }
    Ok(())
}

fn check_permutation(p: &[usize], ndim: usize) -> Result<()> {
    check_len("permutation", p.len(), ndim)?;
    let mut seen = vec![false; ndim];
    for &v in p {
        match seen.get_mut(v) {
            Some(s) if !*s => *s = true,
            _ => {
                return fail(ErrorKind::NotAPermutation(
                    p.iter().map(|&x| x as i64).collect(),
                ))
            }
        }
    }
    Ok(())
}

fn extension_metadata(name: &str, metadata: String) -> HashMap<String, String> {
    HashMap::from([
        (NAME_KEY.to_string(), name.to_string()),
        (METADATA_KEY.to_string(), metadata),
    ])
}

/// The extension name of a field, if it has one.
pub(crate) fn extension_name(field: &Field) -> Option<&str> {
    field.metadata().get(NAME_KEY).map(String::as_str)
}

/// The field's extension metadata as a JSON object, after checking its extension name.
fn extension_json(field: &Field, name: &str) -> Result<Map<String, Value>> {
    let column = field.name().clone();
    match extension_name(field) {
        Some(n) if n == name => {}
        other => {
            return fail(ErrorKind::InvalidColumn {
                column,
                reason: format!(
                    "extension type {}, expected {name}",
                    other.map_or("(none)".to_string(), |n| format!("{n:?}"))
                ),
            })
        }
    }
    let text = field
        .metadata()
        .get(METADATA_KEY)
        .map(String::as_str)
        .unwrap_or("");
    if text.is_empty() {
        return fail(ErrorKind::InvalidColumn {
            column,
            reason: format!("{name} without {METADATA_KEY}"),
        });
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => fail(ErrorKind::InvalidColumn {
            column,
            reason: format!("{name} metadata is not a JSON object: {other}"),
        }),
        Err(e) => fail(ErrorKind::InvalidColumn {
            column,
            reason: format!("{name} metadata is not JSON ({e}): {text:?}"),
        }),
    }
}

/// The permutation under the spec's key `"permutation"` or arrow-rs's `"permutations"`
/// (null or absent: none). Both present and different is an error.
fn permutation_of(meta: &Map<String, Value>) -> std::result::Result<Option<Vec<usize>>, String> {
    let read = |key: &str| -> std::result::Result<Option<Vec<usize>>, String> {
        match meta.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => usizes(v, key).map(Some),
        }
    };
    match (read("permutation")?, read("permutations")?) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "\"permutation\" {a:?} and \"permutations\" {b:?} differ"
        )),
        (a, b) => Ok(a.or(b)),
    }
}

fn usizes(v: &Value, key: &str) -> std::result::Result<Vec<usize>, String> {
    let Value::Array(items) = v else {
        return Err(format!("\"{key}\" must be an array of sizes, found {v}"));
    };
    items
        .iter()
        .map(|x| {
            x.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n <= i64::MAX as usize)
                .ok_or_else(|| format!("\"{key}\" holds {x}, not a size"))
        })
        .collect()
}

fn strings(v: &Value, key: &str) -> std::result::Result<Vec<String>, String> {
    let Value::Array(items) = v else {
        return Err(format!("\"{key}\" must be an array of strings, found {v}"));
    };
    items
        .iter()
        .map(|x| {
            x.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("\"{key}\" holds {x}, not a string"))
        })
        .collect()
}

pub(crate) fn json_usizes(v: &[usize]) -> String {
    let items: Vec<String> = v.iter().map(usize::to_string).collect();
    format!("[{}]", items.join(","))
}

pub(crate) fn json_strings(v: &[String]) -> String {
    Value::Array(v.iter().map(|s| Value::String(s.clone())).collect()).to_string()
}
