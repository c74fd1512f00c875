//! [`Dataset`]: a dataset's manifest checked on opening, its files checked as they are
//! read, tile by tile or whole.

use super::manifest::{
    parse_tile_metadata, FileEntry, Manifest, TileEntry, MANIFEST_FILE, TILE_KEY,
};
use super::tile_batches::TileBatches;
use super::{tile_bounds, DatasetReadOptions, TensorInfo};
use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::data_type;
use crate::record_batch::{coordinate_type, CooTableInfo, ParquetBatches, VALUE_COLUMN};
use crate::{
    ConvertOptions, CooIndex, CsfAxisOrder, IndexArray, SparseFormat, SparseIndex, SparseTensor,
    Validation, ValueType,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type};
use arrow_array::{Array, RecordBatch};
use arrow_buffer::Buffer;
use arrow_schema::{DataType, Schema};
use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A tiled dataset opened for reading (see the [module documentation](super)).
#[derive(Debug)]
pub struct Dataset {
    dir: PathBuf,
    manifest: Manifest,
    options: DatasetReadOptions,
    #[cfg_attr(not(feature = "mmap"), allow(dead_code))]
    mapped: bool,
}

/// An error of the format's rules about `file`.
pub(super) fn rule<T>(file: &str, row: Option<u64>, rule: String) -> Result<T> {
    fail(ErrorKind::Dataset {
        file: file.to_string(),
        row,
        rule,
    })
}

/// `e`, the error of the reader of `file`, as an error naming the file.
pub(super) fn in_file(file: &str, e: crate::Error) -> crate::Error {
    match e.kind() {
        ErrorKind::Dataset { .. } | ErrorKind::DatasetFile { .. } => e,
        _ => ErrorKind::DatasetFile {
            file: file.to_string(),
            source: Box::new(e),
        }
        .into(),
    }
}

impl Dataset {
    /// Opens the dataset in `dir`: reads and checks its manifest (see
    /// [`Manifest::parse`]) and that every file it lists exists. Files are read into
    /// memory one at a time as they are needed.
    pub fn open(dir: impl AsRef<Path>, options: &DatasetReadOptions) -> Result<Dataset> {
        Self::open_inner(dir.as_ref(), options, false)
    }

    /// As [`Dataset::open`], but each file is memory-mapped when read instead of copied.
    ///
    /// # Safety
    ///
    /// As for [`map_file`](crate::map_file): no file of the dataset may be truncated or
    /// modified, by this process or another, while the dataset or anything read from it
    /// (batches, tensors) is alive.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn open_mmap(
        dir: impl AsRef<Path>,
        options: &DatasetReadOptions,
    ) -> Result<Dataset> {
        Self::open_inner(dir.as_ref(), options, true)
    }

    fn open_inner(dir: &Path, options: &DatasetReadOptions, mapped: bool) -> Result<Dataset> {
        let path = dir.join(MANIFEST_FILE);
        let max = (options.limits.max_metadata_len as u64).max(1 << 20);
        let text = match std::fs::File::open(&path) {
            Ok(f) => {
                let mut text = String::new();
                let mut f = f.take(max + 1);
                if let Err(e) = f.read_to_string(&mut text) {
                    return rule(
                        MANIFEST_FILE,
                        None,
                        format!("cannot be read as UTF-8 text: {e}"),
                    );
                }
                if text.len() as u64 > max {
                    return rule(
                        MANIFEST_FILE,
                        None,
                        format!("is over the limit of {max} bytes (Limits::max_metadata_len)"),
                    );
                }
                text
            }
            Err(e) => {
                return rule(
                    MANIFEST_FILE,
                    None,
                    format!(
                        "cannot be opened in {} ({e}): not a dataset, or an unfinished write",
                        dir.display()
                    ),
                )
            }
        };
        let manifest = Manifest::parse(&text, &options.limits, options.max_files)?;
        for tile in &manifest.tiles {
            for f in &tile.files {
                if !dir.join(&f.path).is_file() {
                    return rule(
                        &f.path,
                        None,
                        "is listed in the manifest but missing".into(),
                    );
                }
            }
        }
        Ok(Dataset {
            dir: dir.to_path_buf(),
            manifest,
            options: *options,
            mapped,
        })
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The tensor.
    pub fn info(&self) -> &TensorInfo {
        &self.manifest.info
    }

    /// The dataset's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The tiles that hold stored values, in row-major order.
    pub fn tiles(&self) -> &[TileEntry] {
        &self.manifest.tiles
    }

    /// The shape of `tile` (its extent, smaller at the far edges of the grid).
    ///
    /// A `tile` outside the grid, or of another rank, is an
    /// [`ErrorKind::CoordinateOutOfRange`] with the tile as `coords` and the grid as `shape`.
    pub fn tile_shape_of(&self, tile: &[usize]) -> Result<Vec<usize>> {
        let m = &self.manifest;
        if tile.len() != m.grid.len() || tile.iter().zip(&m.grid).any(|(i, g)| i >= g) {
            return fail(ErrorKind::CoordinateOutOfRange {
                coords: tile.to_vec(),
                shape: m.grid.clone(),
            });
        }
        Ok(tile_bounds(tile, &m.tile_shape, &m.info.shape)
            .iter()
            .map(|(lo, hi)| (hi - lo) as usize)
            .collect())
    }

    /// Checks that every `.parquet` file under the directory is listed in the manifest
    /// (names starting with `_` or `.` are skipped, as engines skip them).
    pub fn check_files(&self) -> Result<()> {
        let listed: HashSet<&str> = self
            .manifest
            .tiles
            .iter()
            .flat_map(|t| t.files.iter().map(|f| f.path.as_str()))
            .collect();
        let mut pending = vec![(self.dir.clone(), String::new())];
        let mut seen = 0usize;
        while let Some((dir, rel)) = pending.pop() {
            for entry in std::fs::read_dir(&dir)? {
                let entry = entry?;
                seen += 1;
                if seen
                    > self
                        .options
                        .max_files
                        .saturating_mul(4)
                        .saturating_add(1024)
                {
                    return rule(
                        ".",
                        None,
                        format!(
                            "holds more entries than {} files justify",
                            self.options.max_files
                        ),
                    );
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('_') || name.starts_with('.') {
                    continue;
                }
                let path = if rel.is_empty() {
                    name.clone()
                } else {
                    format!("{rel}/{name}")
                };
                let kind = entry.file_type()?;
                if kind.is_dir() {
                    pending.push((entry.path(), path));
                } else if name.ends_with(".parquet") && !listed.contains(path.as_str()) {
                    return rule(
                        &path,
                        None,
                        "is a data file the manifest does not list".into(),
                    );
                }
            }
        }
        Ok(())
    }

    /// The record batches of one tile, file after file, with global coordinates, each
    /// checked (schema, metadata, row count, every row inside the tile). A tile the
    /// manifest does not list is empty: no batches.
    pub fn tile_batches(&self, tile: &[usize]) -> Result<TileBatches<'_>> {
        self.tile_shape_of(tile)?;
        let files = self
            .manifest
            .tiles
            .iter()
            .find(|t| t.tile == tile)
            .map(|t| t.files.clone())
            .unwrap_or_default();
        Ok(TileBatches {
            dataset: self,
            tile: tile.to_vec(),
            bounds: tile_bounds(tile, &self.manifest.tile_shape, &self.manifest.info.shape),
            files: files.into_iter(),
            current: None,
        })
    }

    /// Every record batch of the dataset with its tile, tile after tile in row-major
    /// order, after [`Dataset::check_files`].
    pub fn batches(&self) -> Result<impl Iterator<Item = Result<(Vec<usize>, RecordBatch)>> + '_> {
        self.check_files()?;
        Ok(self.manifest.tiles.iter().flat_map(move |t| {
            let batches = match self.tile_batches(&t.tile) {
                Ok(b) => b,
                Err(e) => return Box::new(std::iter::once(Err(e))) as Box<dyn Iterator<Item = _>>,
            };
            let tile = t.tile.clone();
            Box::new(batches.map(move |b| b.map(|b| (tile.clone(), b))))
        }))
    }

    /// One tile as a COO tensor whose shape is the tile's extent and whose coordinates are
    /// **local** to the tile (global minus the tile's origin, `tile[d] * tile_shape[d]`),
    /// with the dataset's dimension names. An empty tile gives a tensor without entries.
    pub fn read_tile(&self, tile: &[usize]) -> Result<SparseTensor> {
        let extent = self.tile_shape_of(tile)?;
        let origin: Vec<i64> =
            tile_bounds(tile, &self.manifest.tile_shape, &self.manifest.info.shape)
                .iter()
                .map(|b| b.0 as i64)
                .collect();
        let mut acc = Entries::new(self.info().value_type);
        for b in self.tile_batches(tile)? {
            acc.push(&b?, &origin)?;
        }
        self.build(&extent, acc)
    }

    /// The whole tensor in the layout the manifest records (see [`Dataset::read_all_as`]).
    pub fn read_all(&self) -> Result<SparseTensor> {
        let info = self.info();
        let mut options = ConvertOptions::default()
            .with_threads(self.options.threads)
            .with_limits(self.options.limits);
        if let Some(order) = &info.axis_order {
            options = options.with_axis_order(CsfAxisOrder::Explicit(order.clone()));
        }
        self.read_all_as(info.format, &options)
    }

    /// The whole tensor in the layout `format` (converted with `options`), after
    /// [`Dataset::check_files`] and every check of each file. Under strict validation a
    /// coordinate stored twice is an error.
    pub fn read_all_as(
        &self,
        format: SparseFormat,
        options: &ConvertOptions,
    ) -> Result<SparseTensor> {
        let rank = self.info().ndim();
        let origin = vec![0i64; rank];
        let mut acc = Entries::new(self.info().value_type);
        for b in self.batches()? {
            let (_, b) = b?;
            acc.push(&b, &origin)?;
        }
        let coo = self.build(&self.info().shape, acc)?;
        if format == SparseFormat::Coo {
            return Ok(coo);
        }
        crate::convert::convert(&coo, format, options)
    }

    /// A COO tensor of `shape` from gathered entries, validated as the options say.
    fn build(&self, shape: &[usize], acc: Entries) -> Result<SparseTensor> {
        let rank = shape.len();
        let index = CooIndex::new(IndexArray::from_vec(acc.coords), rank)?;
        let values = Buffer::from_vec(acc.values);
        let t = match self.options.validation {
            Validation::Strict => {
                SparseTensor::try_new(acc.value_type, shape, values, SparseIndex::Coo(index))?
            }
            Validation::Permissive => SparseTensor::try_new_with_validation(
                acc.value_type,
                shape,
                values,
                SparseIndex::Coo(index),
                Validation::Permissive,
            )?,
        };
        if self.info().dim_names.iter().any(|n| !n.is_empty()) {
            return t.with_dim_names(self.info().dim_names.iter().cloned());
        }
        Ok(t)
    }

    /// Opens one file and checks its footer against the manifest.
    pub(super) fn open_file(&self, entry: &FileEntry, tile: &[usize]) -> Result<ParquetBatches> {
        let file = &entry.path;
        let path = self.dir.join(file);
        let batches = (|| -> Result<ParquetBatches> {
            #[cfg(feature = "mmap")]
            if self.mapped {
                #[allow(unsafe_code)]
                // SAFETY: `open_mmap`'s caller promised that the dataset's files are not
                // truncated or modified while anything read from them is alive.
                let map = unsafe { crate::map_file(&path)? };
                return ParquetBatches::try_new(map, &self.options.parquet);
            }
            let bytes = std::fs::read(&path)?;
            ParquetBatches::try_new(bytes, &self.options.parquet)
        })()
        .map_err(|e| in_file(file, e))?;
        if batches.num_rows() != entry.nnz {
            return rule(
                file,
                None,
                format!(
                    "holds {} rows, the manifest says {}",
                    batches.num_rows(),
                    entry.nnz
                ),
            );
        }
        self.check_schema(file, batches.schema(), tile)?;
        Ok(batches)
    }

    /// Checks a file's schema (columns, types, COO-table and tile metadata) against the
    /// manifest.
    fn check_schema(&self, file: &str, schema: &Schema, tile: &[usize]) -> Result<()> {
        let m = &self.manifest;
        let info = &m.info;
        let rank = info.ndim();
        let want = info.coo_table_info();
        let names = want.column_names();
        let coord_dt = data_type(ValueType::from_index_type(coordinate_type(&info.shape)));
        let fields = schema.fields();
        if fields.len() != rank + 1 {
            return rule(
                file,
                None,
                format!(
                    "has {} columns, a COO table of rank {rank} has {}",
                    fields.len(),
                    rank + 1
                ),
            );
        }
        for (d, (f, name)) in fields.iter().zip(&names).enumerate() {
            let dt = if d < rank {
                &coord_dt
            } else {
                &data_type(info.value_type)
            };
            if f.name() != name || f.data_type() != dt {
                return rule(
                    file,
                    None,
                    format!(
                        "column {d} is {:?} of type {}, the manifest gives {name:?} of type {dt}",
                        f.name(),
                        f.data_type()
                    ),
                );
            }
        }
        let found = CooTableInfo::from_schema(schema).map_err(|e| in_file(file, e))?;
        let checks: [(&str, String, String); 5] = [
            (
                "shape",
                format!("{:?}", found.shape),
                format!("{:?}", want.shape),
            ),
            (
                "dimension names",
                format!("{:?}", found.dim_names),
                format!("{:?}", want.dim_names),
            ),
            (
                "format",
                found.format.name().into(),
                want.format.name().into(),
            ),
            (
                "axis order",
                format!("{:?}", found.axis_order),
                format!("{:?}", want.axis_order),
            ),
            (
                "index type",
                found.index_type.name().into(),
                want.index_type.name().into(),
            ),
        ];
        for (what, f, w) in checks {
            if f != w {
                return rule(
                    file,
                    None,
                    format!("its metadata gives {what} {f}, the manifest {w}"),
                );
            }
        }
        let Some(text) = schema.metadata().get(TILE_KEY) else {
            return rule(file, None, format!("has no {TILE_KEY} metadata"));
        };
        let (t, ts, g) = parse_tile_metadata(text).or_else(|r| rule(file, None, r))?;
        if t != tile || ts != m.tile_shape || g != m.grid {
            return rule(
                file,
                None,
                format!(
                    "its tile metadata (tile {t:?}, tile_shape {ts:?}, grid {g:?}) disagrees with the manifest (tile {tile:?}, tile_shape {:?}, grid {:?})",
                    m.tile_shape, m.grid
                ),
            );
        }
        Ok(())
    }
}

/// Entries gathered from batches: coordinates (minus an origin) and value bytes.
struct Entries {
    value_type: ValueType,
    coords: Vec<i64>,
    values: Vec<u8>,
}

impl Entries {
    fn new(value_type: ValueType) -> Self {
        Entries {
            value_type,
            coords: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Appends the rows of a checked batch (coordinates minus `origin`).
    fn push(&mut self, batch: &RecordBatch, origin: &[i64]) -> Result<()> {
        let rank = origin.len();
        let n = batch.num_rows();
        let start = self.coords.len();
        self.coords.resize(start + n * rank, 0);
        for (d, &o) in origin.iter().enumerate() {
            let Some(column) = batch.columns().get(d) else {
                continue;
            };
            let out = self.coords.get_mut(start..).unwrap_or_default();
            macro_rules! copy {
                ($t:ty) => {
                    for (slot, &x) in out
                        .iter_mut()
                        .skip(d)
                        .step_by(rank)
                        .zip(column.as_primitive::<$t>().values().iter())
                    {
                        *slot = x as i64 - o;
                    }
                };
            }
            match column.data_type() {
                DataType::Int8 => copy!(Int8Type),
                DataType::Int16 => copy!(Int16Type),
                DataType::Int32 => copy!(Int32Type),
                DataType::Int64 => copy!(Int64Type),
                other => {
                    return fail(ErrorKind::InvalidColumn {
                        column: format!("dimension {d}"),
                        reason: format!("coordinate column of type {other}"),
                    })
                }
            }
        }
        let Some(values) = batch.columns().get(rank) else {
            return fail(ErrorKind::InvalidColumn {
                column: VALUE_COLUMN.into(),
                reason: "missing".into(),
            });
        };
        let data = values.to_data();
        let width = self.value_type.byte_width();
        let bytes = data
            .buffers()
            .first()
            .and_then(|b| b.get(data.offset() * width..(data.offset() + data.len()) * width));
        match bytes {
            Some(b) => self.values.extend_from_slice(b),
            None => {
                return fail(ErrorKind::InvalidColumn {
                    column: VALUE_COLUMN.into(),
                    reason: "values buffer shorter than its length".into(),
                })
            }
        }
        Ok(())
    }
}
