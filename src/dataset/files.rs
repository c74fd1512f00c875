//! The dataset's file checks: opening one data file of a tile and checking its footer
//! (row count, schema, COO-table and tile metadata) against the manifest, and the errors
//! that name a file and row.

use super::manifest::{parse_tile_metadata, FileEntry, Manifest, TILE_KEY};
use super::root::Root;
use super::DatasetReadOptions;
use crate::error::{fail, ErrorKind, Result};
use crate::record_batch::arrays::data_type;
use crate::record_batch::{coordinate_type, CooTableInfo, ParquetBatches};
use crate::ValueType;
use arrow_schema::Schema;

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

/// What opening a dataset's files needs: its directory or store, its checked manifest,
/// the read options, whether files are memory-mapped, and (a store) the sizes the listing
/// gave.
#[derive(Clone, Copy)]
pub(super) struct DataFiles<'a> {
    pub root: &'a Root,
    pub manifest: &'a Manifest,
    pub options: &'a DatasetReadOptions,
    pub mapped: bool,
    pub sizes: Option<&'a std::collections::HashMap<String, u64>>,
}

impl DataFiles<'_> {
    /// Opens one file and checks its footer against the manifest.
    pub(super) fn open(&self, entry: &FileEntry, tile: &[usize]) -> Result<ParquetBatches> {
        let file = &entry.path;
        // A store's object is read as the size listed (a size that changed since is an
        // error naming the object).
        let listed = self.sizes.and_then(|s| s.get(file.as_str())).copied();
        let bytes = self
            .root
            .read(file, self.mapped, listed)
            .map_err(|e| in_file(file, e))?;
        let batches =
            ParquetBatches::new(bytes, &self.options.parquet).map_err(|e| in_file(file, e))?;
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
        let m = self.manifest;
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
