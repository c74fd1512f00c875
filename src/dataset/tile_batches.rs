//! [`TileBatches`]: the record batches of one tile, every row checked against its tile.

use super::files::{in_file, rule, DataFiles};
use super::manifest::FileEntry;
use crate::error::Result;
use crate::record_batch::ParquetBatches;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type};
use arrow_array::Array;
use arrow_array::RecordBatch;
use arrow_schema::DataType;

/// The record batches of one tile (see [`Dataset::tile_batches`](super::Dataset::tile_batches)).
pub struct TileBatches<'a> {
    pub(super) files_of: DataFiles<'a>,
    pub(super) tile: Vec<usize>,
    pub(super) bounds: Vec<(u64, u64)>,
    pub(super) files: std::vec::IntoIter<FileEntry>,
    /// The file being read, its batches and the rows read so far.
    pub(super) current: Option<(FileEntry, ParquetBatches, u64)>,
}

impl TileBatches<'_> {
    fn step(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if self.current.is_none() {
                let entry = self.files.next()?;
                match self.files_of.open(&entry, &self.tile) {
                    Ok(b) => self.current = Some((entry, b, 0)),
                    Err(e) => return Some(Err(e)),
                }
            }
            let (entry, batches, rows) = self.current.as_mut()?;
            match batches.next() {
                None => {
                    let (entry, _, rows) = self.current.take()?;
                    if rows != entry.nnz {
                        return Some(rule(
                            &entry.path,
                            None,
                            format!("gave {rows} rows, the manifest says {}", entry.nnz),
                        ));
                    }
                }
                Some(Err(e)) => {
                    let file = entry.path.clone();
                    self.current = None;
                    self.files = Vec::new().into_iter();
                    return Some(Err(in_file(&file, e)));
                }
                Some(Ok(batch)) => {
                    let first = *rows;
                    *rows += batch.num_rows() as u64;
                    if let Err(e) = check_rows(&entry.path, &batch, &self.bounds, first) {
                        self.current = None;
                        self.files = Vec::new().into_iter();
                        return Some(Err(e));
                    }
                    return Some(Ok(batch));
                }
            }
        }
    }
}

impl Iterator for TileBatches<'_> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.step()
    }
}

/// Checks that no value is null and every coordinate of `batch` (rows `first..` of
/// `file`) lies inside the tile's `bounds`.
pub(super) fn check_rows(
    file: &str,
    batch: &RecordBatch,
    bounds: &[(u64, u64)],
    first: u64,
) -> Result<()> {
    for (d, column) in batch.columns().iter().enumerate() {
        if column.null_count() > 0 {
            let row = (0..column.len()).find(|&i| column.is_null(i)).unwrap_or(0);
            return rule(
                file,
                Some(first + row as u64),
                format!("column {d} holds a null"),
            );
        }
        let Some(&(lo, hi)) = bounds.get(d) else {
            continue;
        };
        let outside = |i: usize, x: i64| -> Result<()> {
            rule(
                file,
                Some(first + i as u64),
                format!("coordinate {x} of dimension {d} lies outside the tile's range {lo}..{hi}"),
            )
        };
        macro_rules! scan {
            ($t:ty) => {
                for (i, &x) in column.as_primitive::<$t>().values().iter().enumerate() {
                    let x = x as i64;
                    if x < lo as i64 || x >= hi as i64 {
                        return outside(i, x);
                    }
                }
            };
        }
        match column.data_type() {
            DataType::Int8 => scan!(Int8Type),
            DataType::Int16 => scan!(Int16Type),
            DataType::Int32 => scan!(Int32Type),
            DataType::Int64 => scan!(Int64Type),
            other => {
                return rule(
                    file,
                    None,
                    format!("coordinate column {d} has type {other}"),
                );
            }
        }
    }
    Ok(())
}
