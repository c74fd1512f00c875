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
//! use arrow_tensor_ipc::dataset::{Dataset, DatasetReadOptions, DatasetWriteOptions, DatasetWriter};
//! use arrow_tensor_ipc::{SparseFormat, SparseTensor, TensorInfo, ValueType};
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
mod root;
mod route;
mod tile_batches;
mod write;

pub use manifest::{FileEntry, Manifest, TileEntry, MANIFEST_FILE, TILE_KEY};
pub use options::{DatasetReadOptions, DatasetWriteOptions};
pub use read::Dataset;
pub use tile_batches::TileBatches;
pub use write::DatasetWriter;

use crate::TensorInfo;

impl TensorInfo {
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

/// The number of tiles along each dimension: `ceil(shape[d] / tile_shape[d])`, at least 1.
pub(crate) fn grid_of(shape: &[usize], tile_shape: &[usize]) -> Vec<usize> {
    shape
        .iter()
        .zip(tile_shape)
        .map(|(&s, &t)| s.div_ceil(t.max(1)).max(1))
        .collect()
}

/// The directory of a tile relative to the dataset's: `tile_0=i0/tile_1=i1/...`.
pub(crate) fn tile_dir(tile: &[usize]) -> String {
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
