//! Parquet files of record batches (feature `parquet`), through arrow-rs's `parquet` crate.
//!
//! [`ParquetWriter`] writes batches of one schema (fixed-shape and variable-shape tensor
//! columns, COO tables, any columns beside them) batch by batch: a row group is flushed as
//! soon as it holds [`ParquetWriteOptions::row_group_rows`] rows or about
//! [`ParquetWriteOptions::row_group_bytes`] bytes, so memory stays bounded by one row group
//! whatever the number of batches. The Arrow schema is stored in the file (key
//! `ARROW:schema`), so the extension types (field metadata `ARROW:extension:name` and
//! `ARROW:extension:metadata`) and the COO-table schema metadata
//! ([`COO_TABLE_KEY`](super::COO_TABLE_KEY)) come back in pyarrow and arrow-rs.
//!
//! [`ParquetBatches`] reads a file held in memory (or memory-mapped) batch by batch. Before
//! the `parquet` crate sees a byte, the reader checks the magic bytes at both ends, that the
//! footer fits the file and [`Limits::max_metadata_len`](crate::Limits::max_metadata_len),
//! and the nesting depth and size of the schema; from the decoded footer it checks the row
//! group, column and row counts against [`ParquetReadOptions`] and that every column chunk
//! lies inside the file. The `parquet` crate still panics on some corrupt files: every call
//! into it runs under [`std::panic::catch_unwind`], a panic becomes
//! [`ErrorKind::ParquetPanicked`](crate::ErrorKind::ParquetPanicked) and the reader stops
//! (this needs the default `panic = "unwind"`; the panic is still reported by the panic
//! hook, on standard error by default). Any other failure is an
//! [`ErrorKind::InvalidParquet`](crate::ErrorKind::InvalidParquet) naming the part of the
//! file, or a [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) /
//! [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded).
//!
//! The batches read are checked by the same functions as those of an IPC file when they
//! are turned into tensors ([`coo_table_to_sparse`](super::coo_table_to_sparse),
//! [`fixed_shape_to_tensor`](super::fixed_shape_to_tensor), ...), so metadata that lies
//! fails alike.
//!
//! ```
//! use arrow_tensor_ipc::record_batch::{
//!     coo_table_to_sparse, sparse_to_coo_table, ParquetBatches, ParquetReadOptions,
//!     ParquetWriteOptions, ParquetWriter,
//! };
//! use arrow_tensor_ipc::SparseTensor;
//!
//! // A 3 x 4 matrix with three stored values, as a COO table.
//! let tensor = SparseTensor::coo([3, 4], vec![0i64, 1, 1, 3, 2, 0], vec![1.5f64, 2.5, 3.5])?;
//! let table = sparse_to_coo_table(&tensor)?;
//!
//! let mut writer = ParquetWriter::new(Vec::new(), table.schema(), &ParquetWriteOptions::default())?;
//! writer.write(&table)?;
//! let bytes = writer.finish()?;
//!
//! let mut batches = ParquetBatches::new(bytes, &ParquetReadOptions::default())?;
//! assert_eq!(batches.num_rows(), 3);
//! assert_eq!(batches.schema(), &table.schema()); // with the COO-table metadata
//! let read = batches.next().unwrap()?;
//! assert!(batches.next().is_none());
//! let back = coo_table_to_sparse(&read, None)?;
//! assert_eq!(back.shape(), &[3, 4]);
//! let dense = back.to_dense()?;
//! assert_eq!(dense.as_slice::<f64>().unwrap()[7], 2.5); // row 1, column 3
//! # Ok::<(), arrow_tensor_ipc::Error>(())
//! ```

mod check;
mod options;
mod read;
mod thrift;
mod write;

pub use options::ParquetReadOptions;
pub use read::ParquetBatches;
pub use write::{ParquetCompression, ParquetWriteOptions, ParquetWriter};

/// The magic bytes a Parquet file starts and ends with.
pub const PARQUET_MAGIC: &[u8; 4] = b"PAR1";
