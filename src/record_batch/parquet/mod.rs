//! Parquet files of record batches (feature `parquet`), through arrow-rs's `parquet` crate:
//! [`ParquetWriter`] and [`ParquetBatches`], re-exported by `record_batch`.

mod check;
mod encoding;
mod flat;
mod options;
mod read;
mod thrift;
mod write;

pub use options::{ParquetCompression, ParquetReadOptions, ParquetWriteOptions};
pub use read::ParquetBatches;
pub use write::ParquetWriter;

/// The magic bytes a Parquet file starts and ends with.
pub(crate) const PARQUET_MAGIC: &[u8; 4] = b"PAR1";
