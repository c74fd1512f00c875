//! Tiled datasets (`docs/dataset-format.md`) for the `arrow_tensor_ipc.dask` layer, over the
//! crate's `dataset` module: the manifest opened and checked once by the caller, one tile
//! read or written per task, the manifest written last. Every rule of the format is the
//! crate's; this module only moves arrays across.
//!
//! A task carries a small spec: the dataset's directory, the manifest of its own tile
//! ([`Manifest::for_tile`], JSON) and the tile's index. It reads that tile's files only
//! (memory-mapped, each checked against the manifest) and returns the chunk's arrays in the
//! layout asked for, handed over to numpy from the vectors the crate built (no copy).

use crate::message::{buffer_array, owned_array, PyMessage};
use crate::{to_py_err, value_type_of, ArrowTensorError};
use arrow_buffer::Buffer;
use arrow_tensor_ipc::dataset::{
    Dataset, DatasetReadOptions, DatasetWriteOptions, DatasetWriter, FileEntry, Manifest, TileEntry,
};
use arrow_tensor_ipc::record_batch::{ParquetCompression, ParquetWriteOptions};
use arrow_tensor_ipc::storage::StorageOptions;
use arrow_tensor_ipc::{
    convert, ConvertOptions, CooIndex, IndexArray, IndexType, Message, Result, SparseFormat,
    SparseIndex, SparseTensor, TensorInfo, ValueType,
};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A dataset opened by the caller of `read_dataset`: its manifest read and checked, every
/// listed file present, no unlisted data file (the native half of the Dask layer's graph
/// building).
#[pyclass(module = "arrow_tensor_ipc._native", name = "Dataset", frozen)]
pub struct PyDataset {
    inner: Dataset,
}

#[pymethods]
impl PyDataset {
    /// Opens the dataset at `root` (a directory, or an object-store URL with
    /// `storage_options`) and checks its manifest and its listing.
    #[new]
    #[pyo3(signature = (root, storage_options = None))]
    fn new(
        py: Python<'_>,
        root: String,
        storage_options: Option<Vec<(String, String)>>,
    ) -> PyResult<Self> {
        let storage = to_storage(storage_options);
        let inner = py
            .detach(|| -> Result<Dataset> {
                let d = Dataset::open_url(&root, &storage, &DatasetReadOptions::default())?;
                d.check_files()?;
                Ok(d)
            })
            .map_err(to_py_err)?;
        Ok(PyDataset { inner })
    }

    /// The tensor's shape.
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.inner.info().shape.clone()
    }

    /// The dimension names (`""` where unnamed).
    #[getter]
    fn dim_names(&self) -> Vec<String> {
        self.inner.info().dim_names.clone()
    }

    /// The value type's name (`"float64"`, ...).
    #[getter]
    fn value_type(&self) -> &'static str {
        self.inner.info().value_type.name()
    }

    /// The layout the tensor had (`"COO"`, `"CSR"`, `"CSC"`, `"CSF"`).
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.info().format.name()
    }

    /// The extent of a tile along each dimension.
    #[getter]
    fn tile_shape(&self) -> Vec<usize> {
        self.inner.manifest().tile_shape.clone()
    }

    /// The number of tiles along each dimension.
    #[getter]
    fn grid(&self) -> Vec<usize> {
        self.inner.manifest().grid.clone()
    }

    /// Dask's chunks: the extent of each tile along each dimension (smaller at the far
    /// edge of the grid).
    #[getter]
    fn chunks(&self) -> PyResult<Vec<Vec<usize>>> {
        let grid = &self.inner.manifest().grid;
        let mut out = Vec::with_capacity(grid.len());
        for (d, &g) in grid.iter().enumerate() {
            let mut extents = Vec::with_capacity(g);
            for i in 0..g {
                let mut tile = vec![0; grid.len()];
                if let Some(x) = tile.get_mut(d) {
                    *x = i;
                }
                let shape = self.inner.tile_shape_of(&tile).map_err(to_py_err)?;
                extents.push(shape.get(d).copied().unwrap_or(0));
            }
            out.push(extents);
        }
        Ok(out)
    }

    /// The stored values of the whole tensor.
    #[getter]
    fn nnz(&self) -> u64 {
        self.inner.manifest().nnz
    }

    /// The manifest's JSON, as `_tensor.json` holds it (normalised).
    fn manifest_json(&self) -> String {
        self.inner.manifest().to_json()
    }

    /// The manifest of one tile (JSON): what the task that reads it needs.
    fn tile_manifest(&self, tile: Vec<usize>) -> String {
        self.inner.manifest().for_tile(&tile).to_json()
    }
}

/// The index type scipy and pydata keep for arrays of up to `max` entries: int32 when it
/// holds them, else int64.
fn index_type_for(max: usize) -> IndexType {
    if max < i32::MAX as usize {
        IndexType::Int32
    } else {
        IndexType::Int64
    }
}

/// A COO index's coordinates as int64 (borrowed when they are int64 already).
fn coords_i64(a: &IndexArray) -> std::borrow::Cow<'_, [i64]> {
    match a.values::<i64>() {
        Some(v) => std::borrow::Cow::Borrowed(v),
        None => std::borrow::Cow::Owned(a.to_i64_vec()),
    }
}

/// The parts of a chunk, in the layout the task asked for.
enum Chunk {
    /// `(rank, nnz)` int64 coordinates (row-major order), the values.
    Coo {
        coords: Vec<i64>,
        rank: usize,
        values: Buffer,
        value_type: ValueType,
    },
    /// A compressed-sparse 2-D matrix: values, indices, indptr.
    Compressed(SparseTensor),
    /// Row-major dense values.
    Dense(arrow_tensor_ipc::Tensor),
}

/// A tile as a CSR matrix of `(shape[0], product of the other extents)` (`(1, shape[0])`
/// for rank 1): pydata's GCXS with `compressed_axes=(0,)` (none for rank 1) is that matrix.
fn gcxs(tile: &SparseTensor) -> Result<SparseTensor> {
    let shape = tile.shape();
    let rank = shape.len();
    let (rows, cols) = match shape {
        [n] => (1, *n),
        [n, rest @ ..] => (*n, rest.iter().product()),
        [] => (1, 1),
    };
    let it = index_type_for(rows.max(cols).max(tile.nnz()));
    let options = ConvertOptions::default().with_index_type(it);
    if rank == 2 {
        return tile.to_format_with(SparseFormat::Csr, &options);
    }
    let SparseIndex::Coo(coo) = tile.index() else {
        return tile.to_format_with(SparseFormat::Csr, &options);
    };
    let c = coords_i64(coo.indices());
    let mut flat = Vec::with_capacity(tile.nnz() * 2);
    for entry in c.chunks_exact(rank.max(1)) {
        let (row, col) = match entry {
            [only] => (0, *only),
            [first, rest @ ..] => {
                let mut col = 0i64;
                for (&x, &n) in rest.iter().zip(shape.iter().skip(1)) {
                    col = col * n as i64 + x;
                }
                (*first, col)
            }
            [] => (0, 0),
        };
        flat.push(row);
        flat.push(col);
    }
    let index = CooIndex::new(IndexArray::from_vec(flat), 2)?;
    let matrix = SparseTensor::try_new(
        tile.value_type(),
        [rows, cols],
        tile.values_buffer().clone(),
        SparseIndex::Coo(index),
    )?;
    matrix.to_format_with(SparseFormat::Csr, &options)
}

/// Reads one tile and lays it out as `layout` asks.
fn read_chunk(
    root: &str,
    storage: &StorageOptions,
    manifest: &str,
    tile: &[usize],
    layout: &str,
) -> Result<Chunk> {
    let options = DatasetReadOptions::default();
    let manifest = Manifest::parse(manifest, &options.limits, options.max_files)?;
    let dataset = if arrow_tensor_ipc::storage::is_url(root) {
        Dataset::with_manifest_url(root, storage, manifest, &options)?
    } else {
        // SAFETY: the files are mapped for the length of this call only: `read_tile`
        // copies every value and coordinate into vectors it owns, and the dataset (and its
        // maps) is dropped before returning. Readers are told not to rewrite a dataset's
        // files while it is read (as pyarrow's memory-mapped reads need).
        #[allow(unsafe_code)]
        unsafe {
            Dataset::with_manifest_mmap(root, manifest, &options)?
        }
    };
    let mut tensor = dataset.read_tile(tile)?;
    drop(dataset);
    if matches!(tensor.index(), SparseIndex::Coo(c) if !c.is_canonical()) {
        tensor = tensor.to_format(SparseFormat::Coo)?;
    }
    let extent_max = tensor.shape().iter().copied().max().unwrap_or(0);
    let compressed = |format| {
        let it = index_type_for(extent_max.max(tensor.nnz()));
        tensor.to_format_with(format, &ConvertOptions::default().with_index_type(it))
    };
    Ok(match layout {
        "coo" => {
            let rank = tensor.ndim();
            let nnz = tensor.nnz();
            let mut coords = vec![0i64; rank * nnz];
            if let SparseIndex::Coo(c) = tensor.index() {
                let c = coords_i64(c.indices());
                for (k, entry) in c.chunks_exact(rank.max(1)).enumerate() {
                    for (d, &x) in entry.iter().enumerate() {
                        if let Some(slot) = coords.get_mut(d * nnz + k) {
                            *slot = x;
                        }
                    }
                }
            }
            Chunk::Coo {
                coords,
                rank,
                values: tensor.values_buffer().clone(),
                value_type: tensor.value_type(),
            }
        }
        "csr" => Chunk::Compressed(compressed(SparseFormat::Csr)?),
        "csc" => Chunk::Compressed(compressed(SparseFormat::Csc)?),
        "gcxs" => Chunk::Compressed(gcxs(&tensor)?),
        _ => Chunk::Dense(convert::to_dense(&tensor, &ConvertOptions::default())?),
    })
}

/// One task of `read_dataset`: tile `tile` of the dataset in `root`, whose manifest
/// (`manifest`, JSON; at least that tile's entry) was checked by the caller, in the chunk
/// layout `layout`:
///
/// - `"coo"`: `(coords, values)`, coords an int64 `(rank, nnz)` array in row-major order;
/// - `"csr"`, `"csc"`, `"gcxs"`: `(values, indices, indptr)`, int32 indices where they fit;
/// - `"dense"`: `(values,)`, flat and row-major.
///
/// Every array is writable and handed over from the vector the crate built, not copied.
#[pyfunction]
#[pyo3(signature = (root, manifest, tile, layout, storage_options = None))]
pub fn read_tile<'py>(
    py: Python<'py>,
    root: String,
    manifest: &str,
    tile: Vec<usize>,
    layout: &str,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let storage = to_storage(storage_options);
    if !matches!(layout, "coo" | "csr" | "csc" | "gcxs" | "dense") {
        return Err(ArrowTensorError::new_err(format!(
            "unknown chunk format {layout:?} (expected coo, csr, csc, gcxs or dense)"
        )));
    }
    let chunk = py
        .detach(|| read_chunk(&root, &storage, manifest, &tile, layout))
        .map_err(to_py_err)?;
    match chunk {
        Chunk::Coo {
            coords,
            rank,
            values,
            value_type,
        } => {
            let nnz = coords.len().checked_div(rank).unwrap_or(0);
            let coords = PyArray1::from_vec(py, coords).reshape([rank, nnz])?;
            (coords, buffer_array(py, values, value_type)?).into_pyobject(py)
        }
        Chunk::Compressed(t) => {
            let SparseIndex::Csx(c) = t.index() else {
                return Err(ArrowTensorError::new_err(
                    "internal: a compressed chunk without a CSR/CSC index",
                ));
            };
            let index = |a: &IndexArray| {
                buffer_array(
                    py,
                    a.buffer().clone(),
                    ValueType::from_index_type(a.index_type()),
                )
            };
            let (indices, indptr) = (index(c.indices())?, index(c.indptr())?);
            let values = buffer_array(py, t.values_buffer().clone(), t.value_type())?;
            (values, indices, indptr).into_pyobject(py)
        }
        Chunk::Dense(t) => (owned_array(py, &t)?,).into_pyobject(py),
    }
}

/// A part file a task wrote: its path (relative to the dataset's directory) and rows.
type WrittenFile = (String, u64);

/// What a dataset being written records: shape, dimension names, value type and layout.
fn tensor_info(
    shape: Vec<usize>,
    dim_names: Vec<String>,
    value_type: &str,
    format: &str,
) -> PyResult<TensorInfo> {
    let format = match format {
        "COO" => SparseFormat::Coo,
        "CSR" => SparseFormat::Csr,
        "CSC" => SparseFormat::Csc,
        "CSF" => SparseFormat::Csf,
        _ => {
            return Err(ArrowTensorError::new_err(format!(
                "unknown format {format:?} (expected COO, CSR, CSC or CSF)"
            )))
        }
    };
    Ok(TensorInfo::new(shape, value_type_of(value_type)?)
        .with_dim_names(dim_names)
        .with_format(format))
}

/// Write options with the Parquet codec pyarrow calls `compression`.
fn write_options(compression: &str) -> PyResult<DatasetWriteOptions> {
    let codec = ParquetCompression::from_name(compression).ok_or_else(|| {
        ArrowTensorError::new_err(format!(
            "unknown compression {compression:?} (expected none, snappy, gzip, brotli, lz4 or zstd)"
        ))
    })?;
    Ok(DatasetWriteOptions::default()
        .with_threads(1)
        .with_parquet(ParquetWriteOptions::default().with_compression(codec)))
}

/// Starts a dataset in `root` (created; it must not exist or be empty) after checking what
/// it records (rank, names, tile shape) and the codec: the caller of `write_dataset`,
/// before any task.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (root, shape, dim_names, value_type, format, tile_shape, compression, storage_options = None))]
pub fn create_dataset(
    py: Python<'_>,
    root: String,
    shape: Vec<usize>,
    dim_names: Vec<String>,
    value_type: &str,
    format: &str,
    tile_shape: Vec<usize>,
    compression: &str,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<()> {
    let info = tensor_info(shape, dim_names, value_type, format)?;
    let options = write_options(compression)?;
    let storage = to_storage(storage_options);
    py.detach(|| DatasetWriter::new_url(&root, &storage, &info, &tile_shape, &options).map(drop))
        .map_err(to_py_err)
}

/// One task of `write_dataset`: writes `block` (a tensor of the tile's extent, local
/// coordinates; a dense one stores its non-zeros) as tile `tile` of the dataset in `root`;
/// returns the files written as `(path, rows)` (none for an empty block).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (root, shape, dim_names, value_type, format, tile_shape, tile, block, compression, storage_options = None))]
pub fn write_tile(
    py: Python<'_>,
    root: String,
    shape: Vec<usize>,
    dim_names: Vec<String>,
    value_type: &str,
    format: &str,
    tile_shape: Vec<usize>,
    tile: Vec<usize>,
    block: &PyMessage,
    compression: &str,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<Vec<WrittenFile>> {
    let info = tensor_info(shape, dim_names, value_type, format)?;
    let options = write_options(compression)?;
    let storage = to_storage(storage_options);
    py.detach(|| -> Result<Vec<WrittenFile>> {
        let sparse;
        let tensor = match &block.inner {
            Message::SparseTensor(t) => t,
            Message::Tensor(t) => {
                sparse = t.to_sparse(SparseFormat::Coo)?;
                &sparse
            }
        };
        let mut writer =
            DatasetWriter::for_tiles_url(&root, &storage, &info, &tile_shape, &options)?;
        writer.write_tile(&tile, tensor)?;
        Ok(writer
            .finish_tiles()?
            .into_iter()
            .flat_map(|t| t.files)
            .map(|f| (f.path, f.nnz))
            .collect())
    })
    .map_err(to_py_err)
}

/// Writes the manifest of a dataset whose tiles the tasks wrote (`tiles`: each tile with
/// the files its task returned), last, as one file renamed into place.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (root, shape, dim_names, value_type, format, tile_shape, tiles, storage_options = None))]
pub fn write_manifest(
    py: Python<'_>,
    root: String,
    shape: Vec<usize>,
    dim_names: Vec<String>,
    value_type: &str,
    format: &str,
    tile_shape: Vec<usize>,
    tiles: Vec<(Vec<usize>, Vec<WrittenFile>)>,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<()> {
    let info = tensor_info(shape, dim_names, value_type, format)?;
    let storage = to_storage(storage_options);
    py.detach(|| -> Result<()> {
        let tiles = tiles.into_iter().map(|(tile, files)| {
            let files = files
                .into_iter()
                .map(|(path, nnz)| FileEntry::new(path, nnz))
                .collect();
            TileEntry::new(tile, files)
        });
        Manifest::from_tiles(&info, &tile_shape, tiles)?.write_url(&root, &storage)
    })
    .map_err(to_py_err)
}

/// `storage_options` (key, value pairs of the `object_store` builders' keys) as the crate's
/// options; none: the environment alone.
pub(crate) fn to_storage(pairs: Option<Vec<(String, String)>>) -> StorageOptions {
    pairs
        .unwrap_or_default()
        .into_iter()
        .fold(StorageOptions::new(), |o, (k, v)| o.with(k, v))
}

/// Whether `location` is an object-store URL (`s3://`, `s3a://`, `http(s)://`, `file://`)
/// rather than a local path.
#[pyfunction]
pub fn is_url(location: &str) -> bool {
    arrow_tensor_ipc::storage::is_url(location)
}
