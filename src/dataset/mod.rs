//! Tiled tensor datasets (feature `parquet`): one tensor, sparse or dense, of any rank, as a
//! directory of plain Parquet COO tables cut along a grid of tiles, with a manifest
//! `_tensor.json` written last. The format is `docs/dataset-format.md`; in short:
//!
//! ```text
//! DIR/_tensor.json                                 the manifest (shape, names, tiles, nnz)
//! DIR/tile_0=0/tile_1=3/part-00000.parquet         rows of tile (0, 3), global coordinates
//! ```
//!
//! Every row of every file is one stored value with its **global** coordinates, so an
//! engine that reads `DIR/**/*.parquet` (DuckDB, pyarrow, polars, Dask dataframes) sees the
//! whole tensor as one COO table, and the Hive-style directories let it skip tiles.
//!
//! - [`DatasetWriter`] writes a dataset tile by tile or entry by entry: entries with global
//!   coordinates in any order ([`DatasetWriter::write_entries`],
//!   [`DatasetWriter::write_sparse`], [`DatasetWriter::write_dense`]) or one tile's entries
//!   in local coordinates ([`DatasetWriter::write_tile`]). Entries are routed to their
//!   tiles and buffered; when the buffers reach their share of
//!   [`DatasetWriteOptions::memory`], the largest tiles are sorted (row-major) and written
//!   as part files on several threads, so memory stays bounded whatever the input size.
//!   [`DatasetWriter::finish`] writes the last parts and then the manifest.
//! - [`Dataset`] opens a dataset ([`Dataset::open`], or [`Dataset::open_mmap`] to map its
//!   files), checks its manifest, and reads one tile ([`Dataset::read_tile`], local
//!   coordinates), the record batches of a tile or of all tiles ([`Dataset::tile_batches`],
//!   [`Dataset::batches`], global coordinates) or the whole tensor
//!   ([`Dataset::read_all`], in the manifest's layout or another). Every check of the
//!   format is made on the way; a file that breaks a rule is an
//!   [`ErrorKind::Dataset`](crate::ErrorKind::Dataset) (or
//!   [`ErrorKind::DatasetFile`](crate::ErrorKind::DatasetFile) wrapping the Parquet
//!   reader's error) naming the file, and the row when the rule concerns one.
//!
//! ```
//! use arrow_tensor_ipc::dataset::{Dataset, DatasetReadOptions, DatasetWriteOptions, DatasetWriter, TensorInfo};
//! use arrow_tensor_ipc::{SparseFormat, SparseTensor, ValueType};
//!
//! let dir = std::env::temp_dir().join(format!("doc-dataset-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! // A 5 x 6 CSR matrix cut into tiles of 2 x 4 (a grid of 3 x 2 tiles).
//! let csr = SparseTensor::csr([5, 6], vec![0i32, 1, 2, 2, 3, 4], vec![0, 5, 2, 4], vec![1.0f64, 2.0, 3.0, 4.0])?;
//! let info = TensorInfo::of_sparse(&csr);
//! let mut writer = DatasetWriter::new(&dir, &info, &[2, 4], &DatasetWriteOptions::default())?;
//! writer.write_sparse(&csr)?;
//! let manifest = writer.finish()?;
//! assert_eq!(manifest.grid, [3, 2]);
//! assert_eq!(manifest.nnz, 4);
//!
//! let dataset = Dataset::open(&dir, &DatasetReadOptions::default())?;
//! // Tile (2, 1) holds row 4 and columns 4..6: the value 4.0 at (4, 4), locally (0, 0).
//! let tile = dataset.read_tile(&[2, 1])?;
//! assert_eq!(tile.shape(), [1, 2]);
//! assert_eq!(tile.get(&[0, 0])?, arrow_tensor_ipc::Scalar::Float64(4.0));
//! // The whole tensor, in the layout it was cut from.
//! let back = dataset.read_all()?;
//! assert_eq!(back.format(), SparseFormat::Csr);
//! assert!(back.to_dense()?.content_eq(&csr.to_dense()?));
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), arrow_tensor_ipc::Error>(())
//! ```

// Manifests and files come from strangers: no panicking shortcuts (enforced by clippy in
// CI; the module's own tests are exempt).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod files;
mod manifest;
mod options;
mod part;
mod read;
mod route;
mod tile_batches;
mod write;

pub use manifest::{FileEntry, Manifest, TileEntry, MANIFEST_FILE, TILE_KEY};
pub use options::{DatasetReadOptions, DatasetWriteOptions};
pub use read::Dataset;
pub use tile_batches::TileBatches;
pub use write::DatasetWriter;

use crate::{SparseFormat, SparseTensor, Tensor, ValueType};

/// What a dataset records of its tensor: shape, dimension names, value type and the layout
/// it was cut from (the layout reassembly gives by default).
///
/// ```
/// use arrow_tensor_ipc::dataset::TensorInfo;
/// use arrow_tensor_ipc::{SparseFormat, ValueType};
/// let info = TensorInfo::new([100, 80], ValueType::Float32)
///     .with_dim_names(["row", "col"])
///     .with_format(SparseFormat::Csr);
/// assert_eq!(info.dim_names, ["row", "col"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TensorInfo {
    /// The shape of the whole tensor.
    pub shape: Vec<usize>,
    /// The dimension names, one per dimension, `""` where unnamed.
    pub dim_names: Vec<String>,
    /// The type of the values.
    pub value_type: ValueType,
    /// The layout the tensor had ([`SparseFormat::Coo`] for a dense tensor).
    pub format: SparseFormat,
    /// The CSF axis order, for `format` CSF (`None`: the identity).
    pub axis_order: Option<Vec<usize>>,
}

impl TensorInfo {
    /// A COO tensor of `shape` and `value_type`, its dimensions unnamed.
    pub fn new(shape: impl AsRef<[usize]>, value_type: ValueType) -> Self {
        let shape = shape.as_ref().to_vec();
        TensorInfo {
            dim_names: vec![String::new(); shape.len()],
            shape,
            value_type,
            format: SparseFormat::Coo,
            axis_order: None,
        }
    }

    /// What a dataset of `tensor` records (shape, names, value type, layout, CSF axis
    /// order).
    pub fn of_sparse(tensor: &SparseTensor) -> Self {
        let axis_order = match tensor.index() {
            crate::SparseIndex::Csf(c) => Some(c.axis_order().to_vec()),
            _ => None,
        };
        TensorInfo {
            shape: tensor.shape().to_vec(),
            dim_names: names_or_empty(tensor.dim_names(), tensor.ndim()),
            value_type: tensor.value_type(),
            format: tensor.format(),
            axis_order,
        }
    }

    /// What a dataset of the dense `tensor` records (layout COO).
    pub fn of_dense(tensor: &Tensor) -> Self {
        TensorInfo {
            shape: tensor.shape().to_vec(),
            dim_names: names_or_empty(tensor.dim_names(), tensor.ndim()),
            value_type: tensor.value_type(),
            format: SparseFormat::Coo,
            axis_order: None,
        }
    }

    /// Sets the dimension names (one per dimension; `""` for an unnamed one).
    pub fn with_dim_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.dim_names = names.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the layout recorded (the default of reassembly).
    pub fn with_format(mut self, format: SparseFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets the CSF axis order recorded.
    pub fn with_axis_order(mut self, order: Option<Vec<usize>>) -> Self {
        self.axis_order = order;
        self
    }

    /// The rank.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The COO-table description of the whole tensor, as each file's schema carries it.
    pub(crate) fn coo_table_info(&self) -> crate::record_batch::CooTableInfo {
        crate::record_batch::CooTableInfo {
            shape: self.shape.clone(),
            dim_names: self.dim_names.clone(),
            format: self.format,
            index_type: crate::record_batch::coordinate_type(&self.shape),
            axis_order: self.axis_order.clone(),
        }
    }
}

fn names_or_empty(names: &[String], ndim: usize) -> Vec<String> {
    if names.len() == ndim {
        names.to_vec()
    } else {
        vec![String::new(); ndim]
    }
}

/// The number of tiles along each dimension: `ceil(shape[d] / tile_shape[d])`, at least 1.
pub fn grid_of(shape: &[usize], tile_shape: &[usize]) -> Vec<usize> {
    shape
        .iter()
        .zip(tile_shape)
        .map(|(&s, &t)| s.div_ceil(t.max(1)).max(1))
        .collect()
}

/// The directory of a tile relative to the dataset's: `tile_0=i0/tile_1=i1/...`.
pub fn tile_dir(tile: &[usize]) -> String {
    tile.iter()
        .enumerate()
        .map(|(d, i)| format!("tile_{d}={i}"))
        .collect::<Vec<_>>()
        .join("/")
}

/// The range of global coordinates `[lo, hi)` of `tile` along each dimension.
pub(crate) fn tile_bounds(
    tile: &[usize],
    tile_shape: &[usize],
    shape: &[usize],
) -> Vec<(u64, u64)> {
    tile.iter()
        .zip(tile_shape)
        .zip(shape)
        .map(|((&i, &t), &s)| {
            let lo = (i as u64).saturating_mul(t as u64);
            let hi = lo.saturating_add(t as u64).min(s as u64);
            (lo.min(s as u64), hi)
        })
        .collect()
}
