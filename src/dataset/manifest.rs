//! The manifest `_tensor.json` and the tile metadata of each file: writing them, and
//! reading them back with every check of the format.

use super::{grid_of, TensorInfo};
use crate::error::{fail, ErrorKind, Result};
use crate::{Limits, SparseFormat, ValueType};
use serde_json::{Map, Value};

/// The name of the manifest file in a dataset's directory.
pub const MANIFEST_FILE: &str = "_tensor.json";

/// The schema metadata key of each file's tile description: `{"tile": [...],
/// "tile_shape": [...], "grid": [...]}`.
pub const TILE_KEY: &str = "arrow_tensor_ipc.tile";

/// The manifest's version key and the version written.
const VERSION_KEY: &str = "arrow_tensor_ipc_dataset";
const VERSION: u64 = 1;

/// One data file of a tile.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileEntry {
    /// The path relative to the dataset's directory, `/`-separated.
    pub path: String,
    /// Its rows (stored values).
    pub nnz: u64,
}

impl FileEntry {
    /// The file `path` (relative to the dataset's directory, `/`-separated) of `nnz` rows.
    pub fn new(path: impl Into<String>, nnz: u64) -> FileEntry {
        FileEntry {
            path: path.into(),
            nnz,
        }
    }
}

/// One tile that holds stored values.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TileEntry {
    /// The tile's index along each dimension.
    pub tile: Vec<usize>,
    /// Its stored values (the sum over its files).
    pub nnz: u64,
    /// Its files.
    pub files: Vec<FileEntry>,
}

impl TileEntry {
    /// The tile `tile` with its `files` (its `nnz` is their sum).
    pub fn new(tile: Vec<usize>, files: Vec<FileEntry>) -> TileEntry {
        TileEntry {
            nnz: files.iter().map(|f| f.nnz).sum(),
            tile,
            files,
        }
    }
}

/// The content of `_tensor.json`: the tensor, the tile grid, and every tile with files.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Manifest {
    /// The tensor.
    pub info: TensorInfo,
    /// The extent of a tile along each dimension.
    pub tile_shape: Vec<usize>,
    /// The number of tiles along each dimension.
    pub grid: Vec<usize>,
    /// The stored values of the whole tensor.
    pub nnz: u64,
    /// The tiles that have files, in row-major order of their index.
    pub tiles: Vec<TileEntry>,
}

/// `[1,2,3]`.
fn json_list(v: &[usize]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(","))
}

impl Manifest {
    /// The manifest as the JSON of `_tensor.json`.
    pub fn to_json(&self) -> String {
        let tiles: Vec<String> = self
            .tiles
            .iter()
            .map(|t| {
                let files: Vec<String> = t
                    .files
                    .iter()
                    .map(|f| {
                        format!(
                            "{{\"path\":{},\"nnz\":{}}}",
                            Value::String(f.path.clone()),
                            f.nnz
                        )
                    })
                    .collect();
                format!(
                    "  {{\"tile\":{},\"nnz\":{},\"files\":[{}]}}",
                    json_list(&t.tile),
                    t.nnz,
                    files.join(",")
                )
            })
            .collect();
        let names = Value::Array(
            self.info
                .dim_names
                .iter()
                .map(|n| Value::String(n.clone()))
                .collect(),
        );
        let axis_order = match &self.info.axis_order {
            Some(o) => json_list(o),
            None => "null".into(),
        };
        format!(
            "{{\"{VERSION_KEY}\":{VERSION},\n\"shape\":{},\n\"dim_names\":{names},\n\
             \"value_type\":\"{}\",\n\"format\":\"{}\",\n\"axis_order\":{axis_order},\n\
             \"tile_shape\":{},\n\"grid\":{},\n\"nnz\":{},\n\"tiles\":[\n{}\n]}}\n",
            json_list(&self.info.shape),
            self.info.value_type.name(),
            self.info.format.name(),
            json_list(&self.tile_shape),
            json_list(&self.grid),
            self.nnz,
            tiles.join(",\n")
        )
    }

    /// Parses and checks the JSON of `_tensor.json`: every key present with the right type,
    /// `grid` that of `shape` and `tile_shape`, every tile inside the grid, listed once and
    /// in row-major order, every path relative and inside the directory, the counts adding
    /// up, and the sizes under `limits` and `max_files`. Errors are
    /// [`ErrorKind::Dataset`] naming `_tensor.json`.
    pub fn parse(text: &str, limits: &Limits, max_files: usize) -> Result<Manifest> {
        let root: Map<String, Value> = match serde_json::from_str(text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return bad("the manifest is not a JSON object"),
            Err(e) => return bad(format!("the manifest is not JSON: {e}")),
        };
        match root.get(VERSION_KEY).and_then(Value::as_u64) {
            Some(VERSION) => {}
            Some(v) => return bad(format!("unsupported {VERSION_KEY} version {v} (1 is read)")),
            None => {
                return bad(format!(
                    "no \"{VERSION_KEY}\": 1 key: not a dataset manifest"
                ))
            }
        }
        let shape = sizes(&root, "shape")?;
        let rank = shape.len();
        if rank == 0 {
            return bad("\"shape\" is empty (rank 0)");
        }
        if rank > limits.max_rank {
            return bad(format!(
                "rank {rank} is over the limit of {} (Limits::max_rank)",
                limits.max_rank
            ));
        }
        let dim_names = match root.get("dim_names") {
            None | Some(Value::Null) => vec![String::new(); rank],
            Some(Value::Array(items)) if items.len() == rank => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| err(format!("\"dim_names\" holds {v}, not a string")))
                })
                .collect::<Result<_>>()?,
            Some(v) => return bad(format!("\"dim_names\" {v} is not one string per dimension")),
        };
        let value_type = root
            .get("value_type")
            .and_then(Value::as_str)
            .and_then(ValueType::from_name)
            .ok_or_else(|| {
                err(format!(
                    "\"value_type\" {:?} is not a value type name (int8 ... float64)",
                    root.get("value_type")
                ))
            })?;
        let format = match root.get("format").and_then(Value::as_str) {
            Some("COO") => SparseFormat::Coo,
            Some("CSR") => SparseFormat::Csr,
            Some("CSC") => SparseFormat::Csc,
            Some("CSF") => SparseFormat::Csf,
            other => return bad(format!("\"format\" {other:?} is not COO, CSR, CSC or CSF")),
        };
        if matches!(format, SparseFormat::Csr | SparseFormat::Csc) && rank != 2 {
            return bad(format!(
                "\"format\" {} needs rank 2, the shape has rank {rank}",
                format.name()
            ));
        }
        let axis_order = match root.get("axis_order") {
            None | Some(Value::Null) => None,
            Some(_) => Some(sizes(&root, "axis_order")?),
        };
        if let Some(order) = &axis_order {
            let mut seen = vec![false; rank];
            let ok = order.len() == rank
                && order
                    .iter()
                    .all(|&d| seen.get_mut(d).is_some_and(|s| !std::mem::replace(s, true)));
            if !ok || format != SparseFormat::Csf {
                return bad(format!(
                    "\"axis_order\" {order:?} is not a permutation of the {rank} dimensions of a CSF tensor"
                ));
            }
        }
        let tile_shape = sizes(&root, "tile_shape")?;
        if tile_shape.len() != rank || tile_shape.contains(&0) {
            return bad(format!(
                "\"tile_shape\" {tile_shape:?} is not one positive extent per dimension of shape {shape:?}"
            ));
        }
        let grid = sizes(&root, "grid")?;
        let expected = grid_of(&shape, &tile_shape);
        if grid != expected {
            return bad(format!(
                "\"grid\" {grid:?} disagrees with shape {shape:?} and tile_shape {tile_shape:?}, which give {expected:?}"
            ));
        }
        let nnz = count(&root, "nnz", "the manifest")?;
        if nnz > limits.max_nnz {
            return bad(format!(
                "\"nnz\" {nnz} is over the limit of {} (Limits::max_nnz)",
                limits.max_nnz
            ));
        }
        let Some(Value::Array(items)) = root.get("tiles") else {
            return bad("\"tiles\" is not an array");
        };
        if items.len() > max_files {
            return bad(format!(
                "{} tiles listed, over the limit of {max_files} files",
                items.len()
            ));
        }
        let mut tiles = Vec::with_capacity(items.len());
        let mut files_seen = 0usize;
        let mut paths = std::collections::HashSet::new();
        let mut total = 0u64;
        let mut previous: Option<Vec<usize>> = None;
        for (k, item) in items.iter().enumerate() {
            let Value::Object(t) = item else {
                return bad(format!("tiles[{k}] is not an object"));
            };
            let tile = sizes(t, "tile").map_err(|e| at_tile(e, k))?;
            if tile.len() != rank || tile.iter().zip(&grid).any(|(i, g)| i >= g) {
                return bad(format!(
                    "tiles[{k}]: tile {tile:?} is outside the grid {grid:?}"
                ));
            }
            if let Some(p) = &previous {
                if p >= &tile {
                    return bad(format!(
                        "tiles[{k}]: tile {tile:?} is listed twice or out of row-major order (after {p:?})"
                    ));
                }
            }
            previous = Some(tile.clone());
            let tile_nnz = count(t, "nnz", &format!("tiles[{k}]"))?;
            let Some(Value::Array(list)) = t.get("files") else {
                return bad(format!("tiles[{k}]: \"files\" is not an array"));
            };
            if list.is_empty() {
                return bad(format!("tiles[{k}]: tile {tile:?} is listed without files"));
            }
            files_seen = files_seen.saturating_add(list.len());
            if files_seen > max_files {
                return bad(format!("more than {max_files} files listed (the limit)"));
            }
            let mut files = Vec::with_capacity(list.len());
            let mut sum = 0u64;
            for (j, f) in list.iter().enumerate() {
                let where_ = format!("tiles[{k}].files[{j}]");
                let Value::Object(f) = f else {
                    return bad(format!("{where_} is not an object"));
                };
                let Some(path) = f.get("path").and_then(Value::as_str) else {
                    return bad(format!("{where_}: \"path\" is not a string"));
                };
                check_path(path).map_err(|rule| err(format!("{where_}: path {path:?} {rule}")))?;
                if !paths.insert(path.to_string()) {
                    return bad(format!("{where_}: path {path:?} is listed twice"));
                }
                let n = count(f, "nnz", &where_)?;
                sum = sum.saturating_add(n);
                files.push(super::FileEntry {
                    path: path.to_string(),
                    nnz: n,
                });
            }
            if sum != tile_nnz {
                return bad(format!(
                    "tiles[{k}]: \"nnz\" is {tile_nnz}, its files hold {sum}"
                ));
            }
            total = total.saturating_add(tile_nnz);
            tiles.push(TileEntry {
                tile,
                nnz: tile_nnz,
                files,
            });
        }
        if total != nnz {
            return bad(format!("\"nnz\" is {nnz}, the tiles hold {total}"));
        }
        let info = TensorInfo {
            shape,
            dim_names,
            value_type,
            format,
            axis_order,
        };
        Ok(Manifest {
            info,
            tile_shape,
            grid,
            nnz,
            tiles,
        })
    }

    /// The manifest of the tiles that independent writers wrote
    /// ([`DatasetWriter::for_tiles`](super::DatasetWriter::for_tiles)): `tiles` in any
    /// order, empty ones dropped, sorted row-major. A tile outside the grid of `info.shape`
    /// and `tile_shape`, or one listed twice, is an [`ErrorKind::Dataset`] naming
    /// `_tensor.json`.
    pub fn from_tiles(
        info: &TensorInfo,
        tile_shape: &[usize],
        tiles: impl IntoIterator<Item = TileEntry>,
    ) -> Result<Manifest> {
        let grid = grid_of(&info.shape, tile_shape);
        let mut tiles: Vec<TileEntry> = tiles.into_iter().filter(|t| t.nnz > 0).collect();
        tiles.sort_by(|a, b| a.tile.cmp(&b.tile));
        for (k, t) in tiles.iter().enumerate() {
            if t.tile.len() != grid.len() || t.tile.iter().zip(&grid).any(|(i, g)| i >= g) {
                return bad(format!("tile {:?} is outside the grid {grid:?}", t.tile));
            }
            if k > 0 && tiles.get(k - 1).is_some_and(|p| p.tile == t.tile) {
                return bad(format!("tile {:?} is written twice", t.tile));
            }
        }
        Ok(Manifest {
            info: info.clone(),
            tile_shape: tile_shape.to_vec(),
            grid,
            nnz: tiles.iter().map(|t| t.nnz).sum(),
            tiles,
        })
    }

    /// The manifest of the one tile `tile`: the same tensor and grid, with only that
    /// tile's entry (none when it holds nothing) and its count as `nnz`. It is what a task
    /// that reads one tile needs ([`Dataset::with_manifest`](super::Dataset::with_manifest)),
    /// small whatever the number of tiles.
    pub fn for_tile(&self, tile: &[usize]) -> Manifest {
        // (The tiles are in row-major order: sorted as index vectors.)
        let tiles: Vec<TileEntry> = self
            .tiles
            .binary_search_by(|t| t.tile.as_slice().cmp(tile))
            .ok()
            .and_then(|k| self.tiles.get(k))
            .cloned()
            .into_iter()
            .collect();
        Manifest {
            info: self.info.clone(),
            tile_shape: self.tile_shape.clone(),
            grid: self.grid.clone(),
            nnz: tiles.iter().map(|t| t.nnz).sum(),
            tiles,
        }
    }

    /// Writes the manifest into `dir` as `_tensor.json`, under a temporary name first and
    /// then renamed, so that a reader sees the whole manifest or none.
    pub fn write(&self, dir: impl AsRef<std::path::Path>) -> Result<()> {
        super::root::Root::Dir(dir.as_ref().to_path_buf())
            .write_whole(MANIFEST_FILE, &self.to_json())
    }

    /// Writes the manifest as `_tensor.json` at `url`, a prefix of an object store (feature
    /// `object-store`), with one put, or into a local directory when `url` is a path.
    #[cfg(feature = "object-store")]
    pub fn write_url(&self, url: &str, storage: &crate::storage::StorageOptions) -> Result<()> {
        super::root::Root::of(url, storage)?.write_whole(MANIFEST_FILE, &self.to_json())
    }
}

/// Whether a manifest path stays inside the dataset's directory: relative, `/`-separated,
/// no empty, `.` or `..` component, no backslash, ending in `.parquet`. The rule broken.
fn check_path(path: &str) -> std::result::Result<(), &'static str> {
    if path.is_empty() || path.starts_with('/') {
        return Err("is not a relative path");
    }
    if path.contains('\\') || path.contains(':') || path.contains('\0') {
        return Err("holds a backslash, colon or NUL (paths are /-separated and relative)");
    }
    if path
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err("leaves the dataset's directory or has an empty component");
    }
    if !path.ends_with(".parquet") {
        return Err("does not end in .parquet");
    }
    Ok(())
}

/// The tile description of a file's schema metadata.
pub(crate) fn tile_metadata(tile: &[usize], tile_shape: &[usize], grid: &[usize]) -> String {
    format!(
        "{{\"tile\":{},\"tile_shape\":{},\"grid\":{}}}",
        json_list(tile),
        json_list(tile_shape),
        json_list(grid)
    )
}

/// A file's tile metadata: `tile`, `tile_shape` and `grid`.
pub(crate) type TileMetadata = (Vec<usize>, Vec<usize>, Vec<usize>);

/// Parses a file's tile metadata; the rule broken otherwise.
pub(crate) fn parse_tile_metadata(text: &str) -> std::result::Result<TileMetadata, String> {
    let m = match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => {
            return Err(format!(
                "{TILE_KEY} metadata is not a JSON object: {text:?}"
            ))
        }
    };
    let get = |k: &str| sizes(&m, k).map_err(|e| e.to_string());
    Ok((get("tile")?, get("tile_shape")?, get("grid")?))
}

fn err(rule: impl Into<String>) -> crate::Error {
    ErrorKind::Dataset {
        file: MANIFEST_FILE.to_string(),
        row: None,
        rule: rule.into(),
    }
    .into()
}

fn bad<T>(rule: impl Into<String>) -> Result<T> {
    Err(err(rule))
}

fn at_tile(e: crate::Error, k: usize) -> crate::Error {
    match e.into_kind() {
        ErrorKind::Dataset { file, row, rule } => ErrorKind::Dataset {
            file,
            row,
            rule: format!("tiles[{k}]: {rule}"),
        }
        .into(),
        other => other.into(),
    }
}

/// A list of sizes under `key` (each at most `i64::MAX`, at most 64 of them).
fn sizes(m: &Map<String, Value>, key: &str) -> Result<Vec<usize>> {
    let Some(Value::Array(items)) = m.get(key) else {
        return bad(format!("\"{key}\" is not an array of sizes"));
    };
    if items.len() > 64 {
        return bad(format!(
            "\"{key}\" has {} items, more than any rank",
            items.len()
        ));
    }
    items
        .iter()
        .map(|v| {
            v.as_u64()
                .filter(|&n| n <= i64::MAX as u64)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| err(format!("\"{key}\" holds {v}, not a size")))
        })
        .collect()
}

/// A count under `key` of the object `what`.
fn count(m: &Map<String, Value>, key: &str, what: &str) -> Result<u64> {
    match m.get(key).and_then(Value::as_u64) {
        Some(n) => Ok(n),
        None => fail(ErrorKind::Dataset {
            file: MANIFEST_FILE.to_string(),
            row: None,
            rule: format!("{what}: \"{key}\" is not a count"),
        }),
    }
}
