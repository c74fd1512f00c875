//! The body of the `record_batches` fuzz target, shared by
//! `fuzz/fuzz_targets/record_batches.rs` and `tests/record_batch.rs` (which replays
//! `fuzz/corpus/record_batches/`).
//!
//! Arbitrary bytes as an Arrow IPC stream or file: opening, reading every batch, splitting
//! batches into tensor messages and re-encoding those must never panic.

use arrow_buffer::Buffer;
use arrow_tensor_ipc::record_batch::{
    batch_to_messages, IpcBatches, IpcReadOptions, MessageOptions, Rows,
};
use arrow_tensor_ipc::{encode, Message, WriteOptions};

/// Largest dense expansion attempted.
const DENSE_CAP: usize = 1 << 16;

/// Reads `data` as record batches and converts what it can.
pub fn record_batches(data: &[u8]) {
    let Ok(batches) = IpcBatches::new(Buffer::from(data.to_vec()), &IpcReadOptions::default())
    else {
        return;
    };
    for batch in batches.take(64) {
        let Ok(batch) = batch else { break };
        for rows in [Rows::FirstAxis, Rows::Whole] {
            let options = MessageOptions::default().with_rows(rows);
            let Ok(messages) = batch_to_messages(&batch, &options) else {
                continue;
            };
            for m in messages.iter().take(64) {
                let _ = encode(m, &WriteOptions::default()).map(|e| e.to_vec());
                if let Message::SparseTensor(s) = m {
                    let _ = s.to_dense_with(
                        &arrow_tensor_ipc::ConvertOptions::default()
                            .with_max_dense_elements(DENSE_CAP),
                    );
                }
            }
        }
    }
}
