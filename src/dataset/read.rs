//! [`Dataset`]: a dataset's manifest checked on opening, its files checked as they are
//! read, tile by tile or whole.

use super::files::{rule, DataFiles};
use super::manifest::{FileEntry, Manifest, TileEntry, MANIFEST_FILE};
use super::root::Root;
use super::tile_batches::TileBatches;
use super::{tile_bounds, DatasetReadOptions, TensorInfo};
use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::{coordinates_into, primitive_bytes};
use crate::record_batch::VALUE_COLUMN;
use crate::{
    ConvertOptions, CooIndex, CsfAxisOrder, IndexArray, SparseFormat, SparseIndex, SparseTensor,
    Validation, ValueType,
};
use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

/// A tiled dataset opened for reading (see the [module documentation](super)).
#[derive(Debug)]
pub struct Dataset {
    root: Root,
    manifest: Manifest,
    options: DatasetReadOptions,
    mapped: bool,
    /// The data files of an object store with their sizes, as listed or asked for (none
    /// for a directory).
    sizes: Option<HashMap<String, u64>>,
    /// Whether `sizes` is the listing of the whole prefix (else only the manifest's files).
    #[cfg_attr(not(feature = "object-store"), allow(dead_code))]
    listed: bool,
}

impl Dataset {
    /// What opening this dataset's files needs.
    fn data_files(&self) -> DataFiles<'_> {
        DataFiles {
            root: &self.root,
            manifest: &self.manifest,
            options: &self.options,
            mapped: self.mapped,
            sizes: self.sizes.as_ref(),
        }
    }

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
        Self::from_parts(dir, manifest, options, mapped)
    }

    /// Opens the dataset at `url`, a prefix of an object store (feature `object-store`;
    /// see [`crate::storage`] for the URLs and where credentials come from), or a local
    /// directory when `url` is a path: reads and checks its manifest as
    /// [`Dataset::open`] does, and lists the prefix once, which must hold every file the
    /// manifest lists. Each file is read with one request when it is needed, and refused
    /// when its size differs from the listing's.
    #[cfg(feature = "object-store")]
    pub fn open_url(
        url: &str,
        storage: &crate::storage::StorageOptions,
        options: &DatasetReadOptions,
    ) -> Result<Dataset> {
        if !crate::storage::is_url(url) {
            return Self::open(url, options);
        }
        let store = crate::storage::Store::open(url, storage)?;
        let max = (options.limits.max_metadata_len as u64).max(1 << 20);
        let text = match store.size(MANIFEST_FILE)? {
            None => {
                return rule(
                    MANIFEST_FILE,
                    None,
                    format!(
                        "cannot be opened at {} (not found): not a dataset, or an unfinished write",
                        store.url()
                    ),
                )
            }
            Some(n) if n > max => {
                return rule(
                    MANIFEST_FILE,
                    None,
                    format!("is over the limit of {max} bytes (Limits::max_metadata_len)"),
                )
            }
            Some(_) => store.get(MANIFEST_FILE)?,
        };
        if text.len() as u64 > max {
            return rule(
                MANIFEST_FILE,
                None,
                format!("is over the limit of {max} bytes (Limits::max_metadata_len)"),
            );
        }
        let Ok(text) = std::str::from_utf8(&text) else {
            return rule(MANIFEST_FILE, None, "is not UTF-8 text".into());
        };
        let manifest = Manifest::parse(text, &options.limits, options.max_files)?;
        Self::from_store(store, manifest, options)
    }

    /// As [`Dataset::with_manifest`], for a prefix of an object store (feature
    /// `object-store`): the store is asked for the size of each file `manifest` lists (a
    /// task that reads one tile asks for that tile's files only), and each read is checked
    /// against it. [`Dataset::check_files`] lists the prefix when it is called.
    #[cfg(feature = "object-store")]
    pub fn with_manifest_url(
        url: &str,
        storage: &crate::storage::StorageOptions,
        manifest: Manifest,
        options: &DatasetReadOptions,
    ) -> Result<Dataset> {
        if !crate::storage::is_url(url) {
            return Self::with_manifest(url, manifest, options);
        }
        let store = crate::storage::Store::open(url, storage)?;
        let mut sizes = HashMap::new();
        require_files(&manifest, |path| {
            let size = store
                .size(path)
                .map_err(|e| super::files::in_file(path, e))?;
            if let Some(n) = size {
                sizes.insert(path.to_string(), n);
            }
            Ok(size.is_some())
        })?;
        Ok(Dataset {
            root: Root::Store(store),
            manifest,
            options: *options,
            mapped: false,
            sizes: Some(sizes),
            listed: false,
        })
    }

    #[cfg(feature = "object-store")]
    fn from_store(
        store: crate::storage::Store,
        manifest: Manifest,
        options: &DatasetReadOptions,
    ) -> Result<Dataset> {
        let sizes = list_prefix(&store, options)?;
        require_files(&manifest, |path| Ok(sizes.contains_key(path)))?;
        Ok(Dataset {
            root: Root::Store(store),
            manifest,
            options: *options,
            mapped: false,
            sizes: Some(sizes),
            listed: true,
        })
    }

    /// The dataset in `dir` described by `manifest`, which the caller has read and checked
    /// before ([`Manifest::parse`]; [`Manifest::for_tile`] of a manifest so read gives what
    /// a task that reads one tile needs, without reading `_tensor.json` again). Checks that
    /// every file `manifest` lists exists; each file is checked against `manifest` as it is
    /// read, as with [`Dataset::open`].
    pub fn with_manifest(
        dir: impl AsRef<Path>,
        manifest: Manifest,
        options: &DatasetReadOptions,
    ) -> Result<Dataset> {
        Self::from_parts(dir.as_ref(), manifest, options, false)
    }

    /// As [`Dataset::with_manifest`], with each file memory-mapped when read.
    ///
    /// # Safety
    ///
    /// As for [`Dataset::open_mmap`].
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn with_manifest_mmap(
        dir: impl AsRef<Path>,
        manifest: Manifest,
        options: &DatasetReadOptions,
    ) -> Result<Dataset> {
        Self::from_parts(dir.as_ref(), manifest, options, true)
    }

    fn from_parts(
        dir: &Path,
        manifest: Manifest,
        options: &DatasetReadOptions,
        mapped: bool,
    ) -> Result<Dataset> {
        require_files(&manifest, |path| Ok(dir.join(path).is_file()))?;
        Ok(Dataset {
            root: Root::Dir(dir.to_path_buf()),
            manifest,
            options: *options,
            mapped,
            sizes: None,
            listed: false,
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

    /// The dataset's directory (`None` for a dataset in an object store).
    pub fn dir(&self) -> Option<&Path> {
        self.root.dir()
    }

    /// Where the dataset is: its directory, or its object store URL.
    pub fn location(&self) -> String {
        self.root.describe()
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
        #[cfg(feature = "object-store")]
        if let (Some(sizes), Root::Store(store)) = (&self.sizes, &self.root) {
            let listing;
            let sizes = if self.listed {
                sizes
            } else {
                listing = list_prefix(store, &self.options)?;
                &listing
            };
            let mut unlisted: Vec<&String> = sizes
                .keys()
                .filter(|path| {
                    let hidden = path
                        .split('/')
                        .any(|p| p.starts_with('_') || p.starts_with('.'));
                    !hidden && path.ends_with(".parquet") && !listed.contains(path.as_str())
                })
                .collect();
            unlisted.sort();
            if let Some(path) = unlisted.first() {
                return rule(
                    path,
                    None,
                    "is a data file the manifest does not list".into(),
                );
            }
            return Ok(());
        }
        let Some(dir) = self.root.dir() else {
            return Ok(());
        };
        let mut pending = vec![(dir.to_path_buf(), String::new())];
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
            files_of: self.data_files(),
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
        let files = self.manifest.tiles.iter().filter(|t| t.tile == tile);
        self.build(&extent, acc)
            .map_err(|e| at_file(e, files.flat_map(|t| &t.files)))
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
        let files = self.manifest.tiles.iter().flat_map(|t| &t.files);
        let coo = self
            .build(&self.info().shape, acc)
            .map_err(|e| at_file(e, files))?;
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
}

/// Every object under a store's prefix with its size; the listing is input too, bounded
/// as a directory walk is (`max_files` and then some).
#[cfg(feature = "object-store")]
fn list_prefix(
    store: &crate::storage::Store,
    options: &DatasetReadOptions,
) -> Result<HashMap<String, u64>> {
    let max = options.max_files.saturating_mul(4).saturating_add(1024);
    Ok(store.list(max)?.into_iter().collect())
}

/// Every file `manifest` lists is there, as `present` tells; the first that is not is a
/// rule naming it.
fn require_files(manifest: &Manifest, mut present: impl FnMut(&str) -> Result<bool>) -> Result<()> {
    for f in manifest.tiles.iter().flat_map(|t| &t.files) {
        if !present(&f.path)? {
            return rule(
                &f.path,
                None,
                "is listed in the manifest but missing".into(),
            );
        }
    }
    Ok(())
}

/// A coordinate stored twice among the entries of `files` (read in this order, one entry
/// per row) as the rule of the file and row of the second copy; other errors as they are.
fn at_file<'a>(e: crate::Error, files: impl IntoIterator<Item = &'a FileEntry>) -> crate::Error {
    let ErrorKind::DuplicateCoordinate { second, coords, .. } = e.kind() else {
        return e;
    };
    let mut start = 0u64;
    for f in files {
        if *second < start + f.nnz {
            return ErrorKind::Dataset {
                file: f.path.clone(),
                row: Some(second - start),
                rule: format!("stores the coordinates {coords:?} a second time"),
            }
            .into();
        }
        start += f.nnz;
    }
    e
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
        let out = self.coords.get_mut(start..).unwrap_or_default();
        for (d, (&o, column)) in origin.iter().zip(batch.columns()).enumerate() {
            coordinates_into(column, &format!("dimension {d}"), d, rank, o, out)?;
        }
        let Some(values) = batch.columns().get(rank) else {
            return fail(ErrorKind::InvalidColumn {
                column: VALUE_COLUMN.into(),
                reason: "missing".into(),
            });
        };
        let width = self.value_type.byte_width();
        let bytes = primitive_bytes(values, width, VALUE_COLUMN, "value", |i| i)?;
        self.values.extend_from_slice(&bytes);
        Ok(())
    }
}
