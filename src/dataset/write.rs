//! [`DatasetWriter`]: entries routed to their tiles, buffered under a memory budget, and
//! written as sorted part files on several threads.

use super::manifest::{tile_metadata, FileEntry, Manifest, TileEntry, MANIFEST_FILE, TILE_KEY};
use super::part::{gather_coords, gather_values, sort_entries};
use super::root::Root;
use super::route::{div, Last, TileBuffer, DENSE_SLOTS};
use super::DatasetWriteOptions;
use super::{grid_of, tile_bounds, tile_dir, TensorInfo};
use crate::error::{fail, ErrorKind, Result};
#[cfg(any(feature = "matrix-market", feature = "frostt"))]
use crate::formats::EntryBatch;
use crate::record_batch::arrays::data_type;
use crate::record_batch::{ParquetWriter, COO_TABLE_KEY, VALUE_COLUMN};
use crate::{IndexArray, IndexType, NativeIndex, NativeValue, SparseTensor, Tensor, ValueType};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema, SchemaRef};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// Writes a tiled dataset (see the [module documentation](super)): entries in, part files
/// out as the memory budget fills, the manifest last.
///
/// A coordinate written twice is an error when both copies are buffered together (they
/// meet when the tile is sorted); copies that land in different part files are found by
/// a reader that reassembles the tensor under strict validation. Dropping the writer
/// without [`DatasetWriter::finish`] leaves part files but no manifest: an unfinished
/// dataset, which readers refuse.
pub struct DatasetWriter {
    root: Root,
    info: TensorInfo,
    tile_shape: Vec<usize>,
    grid: Vec<usize>,
    /// Row-major strides of the grid, for a tile's key.
    grid_strides: Vec<u64>,
    width: usize,
    coordinate_type: IndexType,
    fields: Vec<Field>,
    coo_metadata: String,
    /// The COO table schema of the whole tensor (the batches [`DatasetWriter::write_table`]
    /// takes).
    schema: SchemaRef,
    options: DatasetWriteOptions,
    buffers: Vec<TileBuffer>,
    slots: HashMap<u64, usize>,
    /// The slot of each tile by key when the grid is small (`u32::MAX`: none yet); `slots`
    /// otherwise.
    dense_slots: Option<Vec<u32>>,
    /// `1 / tile_shape[d]`, for a division by multiplication.
    inverses: Vec<f64>,
    last: Option<Last>,
    /// Bytes the buffers hold (their capacities).
    buffered: usize,
    /// The buffers' share of the budget.
    budget: usize,
    files: BTreeMap<Vec<usize>, Vec<FileEntry>>,
    scratch: Vec<u64>,
}

mod inputs;

impl DatasetWriter {
    /// Starts a dataset of the tensor `info` cut into tiles of `tile_shape` in `dir`
    /// (created if missing; it must be empty).
    ///
    /// Refused: a tensor of rank 0 ([`ErrorKind::InvalidRank`]); a tile shape of another
    /// rank than the tensor's or dimension names that are not one per dimension
    /// ([`ErrorKind::CountMismatch`]); a tile extent of 0 ([`ErrorKind::OutOfRange`]);
    /// dimension names that repeat or are `value` ([`ErrorKind::DuplicateName`]) or are
    /// `tile_<d>` for any `d` ([`ErrorKind::ReservedName`]); a grid of more tiles than a
    /// `u64` counts ([`ErrorKind::Overflow`] of the grid's element count); a `dir` that is
    /// not empty ([`ErrorKind::Io`] of kind [`std::io::ErrorKind::DirectoryNotEmpty`]).
    pub fn new(
        dir: impl AsRef<Path>,
        info: &TensorInfo,
        tile_shape: impl AsRef<[usize]>,
        options: &DatasetWriteOptions,
    ) -> Result<DatasetWriter> {
        Self::build(
            Root::Dir(dir.as_ref().to_path_buf()),
            info,
            tile_shape.as_ref(),
            options,
            true,
        )
    }

    /// As [`DatasetWriter::new`], at `url`, a prefix of an object store (feature
    /// `object-store`; see [`crate::storage`]), or a local directory when `url` is a path.
    /// The prefix must hold no object. Each part file is written with a multipart upload
    /// of bounded memory, and the manifest last, with one put.
    #[cfg(feature = "object-store")]
    pub fn new_url(
        url: &str,
        storage: &crate::storage::StorageOptions,
        info: &TensorInfo,
        tile_shape: impl AsRef<[usize]>,
        options: &DatasetWriteOptions,
    ) -> Result<DatasetWriter> {
        Self::build(
            Root::of(url, storage)?,
            info,
            tile_shape.as_ref(),
            options,
            true,
        )
    }

    /// As [`DatasetWriter::for_tiles`], at `url` (see [`DatasetWriter::new_url`]).
    #[cfg(feature = "object-store")]
    pub fn for_tiles_url(
        url: &str,
        storage: &crate::storage::StorageOptions,
        info: &TensorInfo,
        tile_shape: impl AsRef<[usize]>,
        options: &DatasetWriteOptions,
    ) -> Result<DatasetWriter> {
        Self::build(
            Root::of(url, storage)?,
            info,
            tile_shape.as_ref(),
            options,
            false,
        )
    }

    /// A writer of some tiles of a dataset that several writers write at once, each its
    /// own tiles (the tasks of a cluster, one per tile): as [`DatasetWriter::new`], but
    /// `dir` may already hold other writers' files, and the writer ends with
    /// [`DatasetWriter::finish_tiles`], which returns its tiles instead of writing a
    /// manifest. Once every writer has finished, one caller writes the manifest with
    /// [`Manifest::from_tiles`] and [`Manifest::write`]. Two writers must not write the
    /// same tile (their part files would share names).
    ///
    /// ```
    /// use arrow_tensor_ipc::dataset::{Dataset, DatasetReadOptions, DatasetWriteOptions, DatasetWriter, Manifest};
    /// use arrow_tensor_ipc::{SparseTensor, TensorInfo, ValueType};
    ///
    /// let dir = std::env::temp_dir().join(format!("doc-for-tiles-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let info = TensorInfo::new([4, 4], ValueType::Float64);
    /// // Two writers (two tasks), one tile each, in local coordinates.
    /// let mut tiles = Vec::new();
    /// for (tile, value) in [([0, 0], 1.0f64), ([1, 1], 2.0)] {
    ///     let mut w = DatasetWriter::for_tiles(&dir, &info, [2, 2], &DatasetWriteOptions::default())?;
    ///     w.write_tile(&tile, &SparseTensor::coo([2, 2], vec![1i64, 1], vec![value])?)?;
    ///     tiles.extend(w.finish_tiles()?);
    /// }
    /// Manifest::from_tiles(&info, &[2, 2], tiles)?.write(&dir)?;
    /// let back = Dataset::open(&dir, &DatasetReadOptions::default())?.read_all()?;
    /// assert_eq!(back.get(&[3, 3])?, arrow_tensor_ipc::Scalar::Float64(2.0));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn for_tiles(
        dir: impl AsRef<Path>,
        info: &TensorInfo,
        tile_shape: impl AsRef<[usize]>,
        options: &DatasetWriteOptions,
    ) -> Result<DatasetWriter> {
        Self::build(
            Root::Dir(dir.as_ref().to_path_buf()),
            info,
            tile_shape.as_ref(),
            options,
            false,
        )
    }

    fn build(
        root: Root,
        info: &TensorInfo,
        tile_shape: &[usize],
        options: &DatasetWriteOptions,
        empty: bool,
    ) -> Result<DatasetWriter> {
        let rank = info.ndim();
        if rank == 0 {
            return fail(ErrorKind::InvalidRank {
                layout: "a dataset",
                needed: "rank 1 or more",
                rank,
            });
        }
        if tile_shape.len() != rank {
            return fail(ErrorKind::CountMismatch {
                what: format!(
                    "extents of tile shape {tile_shape:?} for the dimensions of shape {:?}",
                    info.shape
                ),
                expected: rank as u64,
                found: tile_shape.len() as u64,
            });
        }
        if let Some(d) = tile_shape.iter().position(|&t| t == 0) {
            return fail(ErrorKind::OutOfRange {
                what: format!("the extent of dimension {d} of tile shape {tile_shape:?}"),
                value: 0,
                min: 1,
                max: i64::MAX,
            });
        }
        if info.dim_names.len() != rank {
            return fail(ErrorKind::CountMismatch {
                what: "dimension names (one per dimension)".into(),
                expected: rank as u64,
                found: info.dim_names.len() as u64,
            });
        }
        let table = info.coo_table_info();
        let names = table.column_names();
        for (d, name) in names.iter().enumerate() {
            if names.iter().take(d).any(|n| n == name) {
                return fail(ErrorKind::DuplicateName {
                    what: "columns of a dataset",
                    name: name.clone(),
                    note: " (dimension names must differ from each other and from \"value\")",
                });
            }
            let partition = name
                .strip_prefix("tile_")
                .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
            if partition {
                return fail(ErrorKind::ReservedName {
                    what: "dimension name",
                    name: name.clone(),
                    reserved_for: "the tile partition directories (tile_<d>=<index>)",
                });
            }
        }
        let grid = grid_of(&info.shape, tile_shape);
        let mut grid_strides = vec![1u64; rank];
        let mut acc = 1u64;
        for d in (0..rank).rev() {
            if let Some(s) = grid_strides.get_mut(d) {
                *s = acc;
            }
            acc = grid
                .get(d)
                .and_then(|&g| acc.checked_mul(g as u64))
                .ok_or_else(|| ErrorKind::Overflow {
                    quantity: crate::Quantity::ElementCount {
                        shape: grid.clone(),
                    },
                })?;
        }
        root.prepare(empty)?;
        let coordinate_type = table.index_type;
        let coord_dt = data_type(ValueType::from_index_type(coordinate_type));
        let mut fields: Vec<Field> = names
            .iter()
            .take(rank)
            .map(|n| Field::new(n, coord_dt.clone(), false))
            .collect();
        fields.push(Field::new(VALUE_COLUMN, data_type(info.value_type), false));
        let schema = Arc::new(Schema::new_with_metadata(
            fields.clone(),
            HashMap::from([(COO_TABLE_KEY.to_string(), table.metadata())]),
        ));
        let budget = options.memory / DatasetWriteOptions::BUFFER_SHARE.1
            * DatasetWriteOptions::BUFFER_SHARE.0;
        Ok(DatasetWriter {
            root,
            info: info.clone(),
            tile_shape: tile_shape.to_vec(),
            grid,
            grid_strides,
            width: info.value_type.byte_width(),
            coordinate_type,
            fields,
            schema,
            coo_metadata: table.metadata(),
            options: *options,
            buffers: Vec::new(),
            slots: HashMap::new(),
            dense_slots: (acc <= DENSE_SLOTS).then(|| vec![u32::MAX; acc as usize]),
            inverses: tile_shape.iter().map(|&t| 1.0 / t as f64).collect(),
            last: None,
            buffered: 0,
            budget,
            files: BTreeMap::new(),
            scratch: vec![0; rank],
        })
    }

    /// The tensor being written.
    pub fn info(&self) -> &TensorInfo {
        &self.info
    }

    /// The number of tiles along each dimension.
    pub fn grid(&self) -> &[usize] {
        &self.grid
    }

    /// The COO table schema of the whole tensor: one integer column per dimension, then
    /// the values, with the COO-table metadata (what [`DatasetWriter::write_table`] takes).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Routes one entry (global coordinates, checked against the shape) to its tile.
    #[inline]
    fn push(&mut self, c: &[u64], value: &[u8]) -> Result<()> {
        let slot = match &self.last {
            Some(last)
                if c.iter()
                    .zip(&last.bounds)
                    .all(|(&x, &(lo, hi))| x >= lo && x < hi) =>
            {
                last.slot
            }
            _ => self.locate(c)?,
        };
        let Some(b) = self.buffers.get_mut(slot) else {
            return fail(ErrorKind::Internal {
                invariant: format!("the dataset writer has no tile buffer {slot}"),
            });
        };
        let before = b.bytes();
        b.coords.extend_from_slice(c);
        b.values.extend_from_slice(value);
        let after = b.bytes();
        self.buffered = self.buffered + after - before;
        if self.buffered > self.budget {
            self.flush(false)?;
        }
        Ok(())
    }

    /// The slot of the tile of `c` (a new one for a tile not seen yet).
    fn locate(&mut self, c: &[u64]) -> Result<usize> {
        let mut key = 0u64;
        let mut tile = Vec::with_capacity(c.len());
        for (d, &x) in c.iter().enumerate() {
            let (Some(&n), Some(&t), Some(&s)) = (
                self.info.shape.get(d),
                self.tile_shape.get(d),
                self.grid_strides.get(d),
            ) else {
                return fail(ErrorKind::CoordinateOutOfRange {
                    coords: c.iter().map(|&x| x as usize).collect(),
                    shape: self.info.shape.clone(),
                });
            };
            if x >= n as u64 {
                return fail(ErrorKind::CoordinateOutOfRange {
                    coords: c.iter().map(|&x| x as usize).collect(),
                    shape: self.info.shape.clone(),
                });
            }
            let i = div(x, t as u64, self.inverses.get(d).copied().unwrap_or(0.0));
            tile.push(i as usize);
            key += i * s;
        }
        let known = match &self.dense_slots {
            Some(v) => v
                .get(key as usize)
                .copied()
                .filter(|&s| s != u32::MAX)
                .map(|s| s as usize),
            None => self.slots.get(&key).copied(),
        };
        let slot = match known {
            Some(s) => s,
            None => {
                let s = self.buffers.len();
                self.buffers.push(TileBuffer {
                    tile: tile.clone(),
                    ..TileBuffer::default()
                });
                match &mut self.dense_slots {
                    Some(v) => {
                        if let Some(x) = v.get_mut(key as usize) {
                            *x = s as u32;
                        }
                    }
                    None => {
                        self.slots.insert(key, s);
                    }
                }
                s
            }
        };
        self.last = Some(Last {
            slot,
            bounds: tile_bounds(&tile, &self.tile_shape, &self.info.shape),
        });
        Ok(slot)
    }

    /// Writes buffered tiles as part files: all of them, or (`all` false) the largest until
    /// the buffers hold at most half their budget.
    fn flush(&mut self, all: bool) -> Result<()> {
        let mut order: Vec<usize> = (0..self.buffers.len())
            .filter(|&s| self.buffers.get(s).is_some_and(|b| !b.values.is_empty()))
            .collect();
        order
            .sort_by_key(|&s| std::cmp::Reverse(self.buffers.get(s).map_or(0, |b| b.values.len())));
        let mut jobs = Vec::new();
        for s in order {
            if !all && self.buffered <= self.budget / 2 {
                break;
            }
            let Some(b) = self.buffers.get_mut(s) else {
                continue;
            };
            let taken = TileBuffer {
                tile: b.tile.clone(),
                coords: std::mem::take(&mut b.coords),
                values: std::mem::take(&mut b.values),
            };
            self.buffered = self.buffered.saturating_sub(taken.bytes());
            let part = self.files.get(&taken.tile).map_or(0, Vec::len);
            let path = format!("{}/part-{part:05}.parquet", tile_dir(&taken.tile));
            jobs.push((taken, path));
        }
        if jobs.is_empty() {
            return Ok(());
        }
        let threads = crate::parallel::thread_count(self.options.threads);
        let this = &*self;
        let written =
            crate::parallel::run(threads, jobs, "writing dataset tiles", |_, (buf, path)| {
                let tile = buf.tile.clone();
                this.write_part(buf, &path).map(|nnz| (tile, path, nnz))
            })?;
        for result in written {
            let (tile, path, nnz) = result?;
            self.files
                .entry(tile)
                .or_default()
                .push(FileEntry { path, nnz });
        }
        Ok(())
    }

    /// Sorts one tile's buffered entries (row-major) and writes them as the part file
    /// `path`; returns its row count.
    fn write_part(&self, buf: TileBuffer, path: &str) -> Result<u64> {
        let rank = self.info.ndim();
        let width = self.width;
        let n = buf.values.len() / width;
        let bounds = tile_bounds(&buf.tile, &self.tile_shape, &self.info.shape);
        let order = sort_entries(&buf.coords, rank, &bounds)?;
        // Adjacent equal coordinates after the sort: one written twice.
        for pair in order.windows(2) {
            if let [a, b] = pair {
                let ca = buf.coords.get(a * rank..(a + 1) * rank);
                if ca == buf.coords.get(b * rank..(b + 1) * rank) {
                    return fail(ErrorKind::DuplicateCoordinate {
                        first: (*a).min(*b) as u64,
                        second: (*a).max(*b) as u64,
                        coords: ca.unwrap_or_default().iter().map(|&x| x as usize).collect(),
                    });
                }
            }
        }
        let mut metadata = HashMap::new();
        metadata.insert(COO_TABLE_KEY.to_string(), self.coo_metadata.clone());
        metadata.insert(
            TILE_KEY.to_string(),
            tile_metadata(&buf.tile, &self.tile_shape, &self.grid),
        );
        let schema: SchemaRef = Arc::new(Schema::new_with_metadata(self.fields.clone(), metadata));
        let mut writer = ParquetWriter::new(
            self.root.create(path)?,
            schema.clone(),
            &self.options.parquet,
        )?;
        const ROWS: usize = 1 << 16;
        for chunk in order.chunks(ROWS) {
            let mut columns: Vec<ArrayRef> = Vec::with_capacity(rank + 1);
            for d in 0..rank {
                let column = crate::dispatch_index!(self.coordinate_type, I => gather_coords::<I>(&buf.coords, rank, d, chunk));
                columns.push(column?);
            }
            columns.push(gather_values(
                &buf.values,
                width,
                chunk,
                self.info.value_type,
            )?);
            writer.write(&RecordBatch::try_new(schema.clone(), columns)?)?;
        }
        writer.finish()?.finish()?;
        Ok(n as u64)
    }

    /// Writes the buffered entries and then the manifest; returns the manifest.
    pub fn finish(self) -> Result<Manifest> {
        let root = self.root.clone();
        let (info, tile_shape) = (self.info.clone(), self.tile_shape.clone());
        let tiles = self.finish_tiles()?;
        let manifest = Manifest::from_tiles(&info, &tile_shape, tiles)?;
        root.write_whole(MANIFEST_FILE, &manifest.to_json())?;
        Ok(manifest)
    }

    /// Writes the buffered entries and returns the tiles written, without a manifest: the
    /// end of a writer made by [`DatasetWriter::for_tiles`], whose tiles go into
    /// [`Manifest::from_tiles`] with those of the other writers.
    pub fn finish_tiles(mut self) -> Result<Vec<TileEntry>> {
        self.flush(true)?;
        Ok(std::mem::take(&mut self.files)
            .into_iter()
            .map(|(tile, files)| TileEntry {
                nnz: files.iter().map(|f| f.nnz).sum(),
                tile,
                files,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn division_by_multiplication_is_exact() {
        for t in [1u64, 2, 3, 7, 500, 999, 1000, 250_000, 1 << 20, 123_456_789] {
            let inv = 1.0 / t as f64;
            for x in (0..5000u64).chain([
                t - 1,
                t,
                t + 1,
                3 * t - 1,
                3 * t,
                (1 << 52) - 1,
                1 << 52,
                u64::MAX,
            ]) {
                assert_eq!(super::div(x, t, inv), x / t, "{x} / {t}");
            }
        }
    }
}
