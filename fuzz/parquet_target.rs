//! The body of the `parquet` fuzz target, shared by `fuzz/fuzz_targets/parquet.rs` and
//! `tests/parquet.rs` (which replays `fuzz/corpus/parquet/`).
//!
//! Arbitrary bytes as a Parquet file: opening it, reading every batch and splitting the
//! batches into tensor messages must never panic. Panics of the `parquet` crate are
//! contained by `ParquetBatches` (an `ErrorKind::ParquetPanicked`), so the fuzz target
//! puts the default panic hook back in place of libFuzzer's aborting one: a contained
//! panic is an error, a panic that escapes still ends the run.

use arrow_tensor_ipc::record_batch::{
    batch_to_messages, MessageOptions, ParquetBatches, ParquetReadOptions, Rows,
};
use arrow_tensor_ipc::Limits;

/// Reads `data` as a Parquet file and converts what it can.
pub fn parquet(data: &[u8]) {
    // Small limits: a claim the fuzzer makes up must not cost much time or memory.
    let limits = Limits::default()
        .with_max_metadata_len(1 << 20)
        .with_max_body_len(64 << 20);
    let options = ParquetReadOptions::default()
        .with_limits(limits)
        .with_batch_rows(4096);
    let Ok(batches) = ParquetBatches::new(data.to_vec(), &options) else {
        return;
    };
    for batch in batches.take(64) {
        let Ok(batch) = batch else { break };
        for rows in [Rows::FirstAxis, Rows::Whole] {
            let options = MessageOptions::default()
                .with_rows(rows)
                .with_limits(limits);
            let _ = batch_to_messages(&batch, &options);
        }
    }
}
