//! From tensor messages to Arrow record batches, and back (feature `record-batch`).
//!
//! Arrow 26 deprecated Tensor and SparseTensor messages in favour of extension arrays in
//! ordinary record batches, which every Arrow tool reads. This module maps:
//! - a dense [`Tensor`](crate::Tensor) to an `arrow.fixed_shape_tensor` column
//!   ([`tensor_to_fixed_shape`], zero-copy for row-major data; the first axis becomes the
//!   rows by default) and back ([`fixed_shape_to_tensor`], [`fixed_shape_cells`]);
//! - dense tensors of one rank and value type to an `arrow.variable_shape_tensor` column
//!   ([`tensors_to_variable_shape`], [`variable_shape_to_tensors`]);
//! - a sparse tensor of any layout to a COO table, one integer column per dimension and a
//!   `value` column ([`sparse_to_coo_table`], [`coo_table_to_sparse`]), and any table that
//!   holds one in some of its columns, without our metadata ([`coo_columns_to_sparse`]);
//! - whole streams of messages to batches of one schema ([`BatchBuilder`]) and batches to
//!   messages ([`batch_to_messages`]);
//! - Arrow IPC streams and files through arrow-ipc ([`IpcWriter`], [`IpcBatches`] over
//!   bytes in memory, [`IpcStreamReader`] over a `std::io::Read`);
//! - Parquet files through arrow-rs's `parquet` crate (feature `parquet`: `ParquetWriter`,
//!   `ParquetBatches`);
//! - [`BatchWriter`], the one trait of the record-batch writers (IPC, Parquet, datasets).
//!
//! # One shape for readers and writers
//! Every reader is `Reader::new(source, &Options)`, with `open(path, &Options)` (read into
//! memory) and `unsafe fn open_mmap(path, &Options)` (memory-mapped) where a file applies,
//! and `schema() -> &SchemaRef`; each is an iterator of `Result<RecordBatch>`. Every writer
//! is `Writer::new(sink, .., &Options)`, with `write(&batch)` and `finish()` (which returns
//! the sink), and implements [`BatchWriter`]. The same shape holds for the tensor messages
//! of the crate root (`MessageReader::new(read, &ReadOptions)`,
//! `MessageWriter::new(write, &WriteOptions)`) and for datasets (`dataset::Dataset::open`
//! / `open_mmap`, `dataset::DatasetWriter::new`).
//!
//! # Untrusted batches
//! Every reader takes [`Limits`](crate::Limits): the plain functions
//! ([`coo_table_to_sparse`], [`fixed_shape_to_tensor`], [`fixed_shape_cells`],
//! [`variable_shape_to_tensors`]) apply [`Limits::default`](crate::Limits::default), their
//! `_with` variants the limits given, and [`batch_to_messages`] those of
//! [`MessageOptions::limits`]. What the metadata claims (shapes, ranks, axis orders, index
//! types) is checked against the limits and against what the columns hold before anything
//! is allocated from it; a claim that fails is an
//! [`ErrorKind::ColumnLimitExceeded`](crate::ErrorKind::ColumnLimitExceeded) or
//! [`ErrorKind::InvalidColumn`](crate::ErrorKind::InvalidColumn) naming the column.
//!
//! What it writes, pyarrow 26 and arrow-rs 60 both read: non-nullable list items,
//! `"shape"`, `"dim_names"` only when set, `"permutation"` only for a kept layout, no
//! nulls in the metadata. It reads what either writes (see [`FixedShapeTensorType`]).

// Record batches come from strangers: no panicking shortcuts (enforced by clippy in CI;
// a module's own tests are exempt).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

pub(crate) mod arrays;
mod coo_table;
mod extension;
mod fixed_shape;
pub(crate) mod ipc;
mod messages;
#[cfg(feature = "parquet")]
mod parquet;
mod variable_shape;
mod writer;

#[cfg(feature = "parquet")]
pub use self::parquet::{
    ParquetBatches, ParquetCompression, ParquetReadOptions, ParquetWriteOptions, ParquetWriter,
};
// (The dataset module, behind `parquet`, reads and writes the COO-table metadata.)
#[cfg(feature = "parquet")]
pub(crate) use coo_table::CooTableInfo;
pub use coo_table::{
    coo_columns_to_sparse, coo_table_to_sparse, coo_table_to_sparse_with, coordinate_type,
    dense_to_coo_table, sparse_to_coo_table, CooColumns, CooSelection, COO_TABLE_KEY, VALUE_COLUMN,
};
pub use extension::{
    FixedShapeTensorType, VariableShapeTensorType, FIXED_SHAPE_TENSOR, VARIABLE_SHAPE_TENSOR,
};
pub use fixed_shape::{
    fixed_shape_cells, fixed_shape_cells_with, fixed_shape_to_tensor, fixed_shape_to_tensor_with,
    tensor_to_fixed_shape, FixedShapeColumn, FixedShapeOptions, Layout, Rows, ROWS_DIM_NAME_KEY,
};
pub use ipc::{IpcBatches, IpcFormat, IpcReadOptions, IpcStreamReader, IpcWriteOptions, IpcWriter};
pub use messages::{batch_to_messages, BatchBuilder, MessageOptions, TableFormat, TENSOR_COLUMN};
pub use variable_shape::{
    tensors_to_variable_shape, variable_shape_to_tensors, variable_shape_to_tensors_with,
    VariableShapeColumn,
};
pub use writer::BatchWriter;
