//! What a dataset writer takes, each routed tile by tile: entries with global coordinates,
//! the entry batches of the chunked text readers, sparse and dense tensors (whole or one
//! tile), and COO-table record batches ([`DatasetWriter::write_table`], and the writer as a
//! [`BatchWriter`]).

use super::*;
use crate::parallel::alloc::try_vec;
use crate::record_batch::arrays::{coordinates_into, first_null, primitive_bytes};
use crate::record_batch::BatchWriter;

impl DatasetWriter {
    /// Writes entries with global coordinates, in any order and any tiles: `coords` holds
    /// `rank` coordinates per entry, entry after entry (a row-major COO index), `values`
    /// one little-endian value of the tensor's type per entry.
    pub fn write_entries(&mut self, coords: &IndexArray, values: &[u8]) -> Result<()> {
        let rank = self.info.ndim();
        let n = values.len() / self.width;
        if !values.len().is_multiple_of(self.width) || coords.len() != n * rank {
            return fail(ErrorKind::CountMismatch {
                what: format!(
                    "coordinates of {n} entries of rank {rank} ({} bytes of {} values)",
                    values.len(),
                    self.info.value_type
                ),
                expected: (n * rank) as u64,
                found: coords.len() as u64,
            });
        }
        crate::dispatch_index!(coords.index_type(), I => self.write_typed::<I>(coords, values))
    }

    fn write_typed<I: NativeIndex>(&mut self, coords: &IndexArray, values: &[u8]) -> Result<()> {
        let Some(cs) = coords.values::<I>() else {
            return fail(ErrorKind::Internal {
                invariant: format!(
                    "an IndexArray of {} does not give its values as a slice of that type",
                    coords.index_type()
                ),
            });
        };
        let rank = self.info.ndim();
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = (|| {
            for (c, v) in cs.chunks_exact(rank).zip(values.chunks_exact(self.width)) {
                for (s, &x) in scratch.iter_mut().zip(c) {
                    let Some(x) = x.to_i64().filter(|&x| x >= 0) else {
                        return fail(ErrorKind::CoordinateOutOfRange {
                            coords: c.iter().map(|x| x.as_usize()).collect(),
                            shape: self.info.shape.clone(),
                        });
                    };
                    *s = x as u64;
                }
                self.push(&scratch, v)?;
            }
            Ok(())
        })();
        self.scratch = scratch;
        result
    }

    /// Writes a batch of a chunked text reader (`formats::mtx::read_chunks`,
    /// `formats::tns::read_chunks`).
    #[cfg(any(feature = "matrix-market", feature = "frostt"))]
    pub fn write_batch(&mut self, batch: &EntryBatch) -> Result<()> {
        if batch.value_type != self.info.value_type || batch.ndim != self.info.ndim() {
            return fail(ErrorKind::Inconsistent {
                what: "an entry batch written to a dataset (value type, rank)".into(),
                first: format!("{} rank {}", self.info.value_type, self.info.ndim()),
                found: format!("{} rank {}", batch.value_type, batch.ndim),
            });
        }
        self.write_entries(&batch.coords, batch.values.as_slice())
    }

    /// Writes the stored values of a sparse tensor of the dataset's shape (global
    /// coordinates; the whole tensor or any part of it).
    pub fn write_sparse(&mut self, tensor: &SparseTensor) -> Result<()> {
        self.check_type(tensor.value_type())?;
        if tensor.shape() != self.info.shape.as_slice() {
            return self.shape_mismatch("a sparse tensor", tensor.shape());
        }
        self.write_stored(tensor, &vec![0; tensor.ndim()])
    }

    /// Writes the entries of one tile: `tensor` has the tile's extent as its shape (smaller
    /// at the far edges of the grid) and coordinates local to the tile.
    ///
    /// A `tile` outside the grid, or of another rank, is an
    /// [`ErrorKind::CoordinateOutOfRange`] with the tile as `coords` and the grid as `shape`.
    pub fn write_tile(&mut self, tile: &[usize], tensor: &SparseTensor) -> Result<()> {
        self.check_type(tensor.value_type())?;
        if tile.len() != self.grid.len() || tile.iter().zip(&self.grid).any(|(i, g)| i >= g) {
            return fail(ErrorKind::CoordinateOutOfRange {
                coords: tile.to_vec(),
                shape: self.grid.clone(),
            });
        }
        let bounds = tile_bounds(tile, &self.tile_shape, &self.info.shape);
        let extent: Vec<usize> = bounds.iter().map(|(lo, hi)| (hi - lo) as usize).collect();
        if tensor.shape() != extent.as_slice() {
            return self.shape_mismatch("the tensor of a tile", tensor.shape());
        }
        let origin: Vec<u64> = bounds.iter().map(|b| b.0).collect();
        self.write_stored(tensor, &origin)
    }

    fn write_stored(&mut self, tensor: &SparseTensor, origin: &[u64]) -> Result<()> {
        let values = tensor.values_buffer().clone();
        let width = self.width;
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut failed = None;
        let walk = tensor.for_each_stored(|c, p| {
            if failed.is_some() {
                return;
            }
            for ((s, &x), &o) in scratch.iter_mut().zip(c).zip(origin) {
                *s = x as u64 + o;
            }
            let v = values.get(p * width..(p + 1) * width).unwrap_or_default();
            if let Err(e) = self.push(&scratch, v) {
                failed = Some(e);
            }
        });
        self.scratch = scratch;
        walk?;
        failed.map_or(Ok(()), Err)
    }

    /// Writes the non-zeros of a dense tensor of the dataset's shape (any strides; a
    /// value equal to zero, `-0.0` included, is not stored, `NaN` is).
    pub fn write_dense(&mut self, tensor: &Tensor) -> Result<()> {
        self.check_type(tensor.value_type())?;
        if tensor.shape() != self.info.shape.as_slice() {
            return self.shape_mismatch("a dense tensor", tensor.shape());
        }
        crate::dispatch_value!(tensor.value_type(), T => self.write_dense_typed::<T>(tensor))
    }

    fn write_dense_typed<T: NativeValue>(&mut self, tensor: &Tensor) -> Result<()> {
        let shape = tensor.shape().to_vec();
        if shape.contains(&0) {
            return Ok(());
        }
        let strides = tensor.strides().to_vec();
        let data = tensor.data().clone();
        let width = self.width;
        let rank = shape.len();
        let mut index = vec![0usize; rank];
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = (|| loop {
            let offset: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
            if let Some(v) = data.get(offset..offset + width) {
                if T::read_le(v).is_some_and(|x| !x.is_zero()) {
                    for (s, &i) in scratch.iter_mut().zip(&index) {
                        *s = i as u64;
                    }
                    self.push(&scratch, v)?;
                }
            }
            // The next index in row-major order.
            let mut d = rank;
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                let (Some(i), Some(&n)) = (index.get_mut(d), shape.get(d)) else {
                    return Ok(());
                };
                *i += 1;
                if *i < n {
                    break;
                }
                *i = 0;
            }
        })();
        self.scratch = scratch;
        result
    }

    fn check_type(&self, t: ValueType) -> Result<()> {
        if t != self.info.value_type {
            return fail(ErrorKind::TypeMismatch {
                expected: self.info.value_type.to_string(),
                found: t.to_string(),
            });
        }
        Ok(())
    }

    fn shape_mismatch(&self, what: &str, shape: &[usize]) -> Result<()> {
        fail(ErrorKind::Inconsistent {
            what: format!("the shape of {what} written to a dataset"),
            first: format!("{:?}", self.info.shape),
            found: format!("{shape:?}"),
        })
    }

    /// Writes a batch of a COO table of the whole tensor, in global coordinates: one
    /// integer column (8 to 64 bits) per dimension, then the values in the tensor's type,
    /// without nulls (the columns of [`DatasetWriter::schema`], such as
    /// `record_batch::sparse_to_coo_table` makes). Rows may come in any order and fall in
    /// any tiles.
    pub fn write_table(&mut self, batch: &RecordBatch) -> Result<()> {
        let rank = self.info().ndim();
        let value_type = self.info().value_type;
        let columns = batch.columns();
        let name = |d: usize| batch.schema().field(d).name().clone();
        if columns.len() != rank + 1 {
            return fail(ErrorKind::CountMismatch {
                what: format!("columns of a COO-table batch of a rank-{rank} dataset"),
                expected: (rank + 1) as u64,
                found: columns.len() as u64,
            });
        }
        for (d, column) in columns.iter().take(rank).enumerate() {
            if let Some(row) = first_null(column) {
                return fail(ErrorKind::NullCell {
                    column: name(d),
                    row,
                    what: "coordinate",
                });
            }
        }
        let n = batch.num_rows();
        let mut coords = try_vec(n.saturating_mul(rank), 0i64, "coordinates")?;
        for (d, column) in columns.iter().take(rank).enumerate() {
            coordinates_into(column, &name(d), d, rank, 0, &mut coords)?;
        }
        let Some(values) = columns.get(rank) else {
            return Ok(());
        };
        let expected = data_type(value_type);
        if values.data_type() != &expected {
            return fail(ErrorKind::TypeMismatch {
                expected: expected.to_string(),
                found: values.data_type().to_string(),
            });
        }
        let bytes = primitive_bytes(values, value_type.byte_width(), &name(rank), "value", |i| i)?;
        self.write_entries(&IndexArray::from_vec(coords), &bytes)
    }
}

impl BatchWriter for DatasetWriter {
    fn schema(&self) -> &SchemaRef {
        DatasetWriter::schema(self)
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_table(batch)
    }

    fn close(self: Box<Self>) -> Result<()> {
        self.finish().map(drop)
    }
}
