//! The record batches of an Arrow IPC stream or file or of a Parquet file, each split into
//! tensors ([`batch_to_messages`]); every failure is placed at its record batch.

use super::tensor::{check_limits, failed, InputTensor};
use crate::error::Result;
use crate::record_batch::{
    batch_to_messages, IpcBatches, IpcStreamReader, MessageOptions, ParquetBatches,
};
use crate::{Limits, Message, TensorOrigin};
use arrow_array::RecordBatch;
use std::collections::VecDeque;
use std::io::Read;

/// A reader of record batches.
pub(super) enum Batches {
    /// An IPC stream or file in memory or memory-mapped.
    Ipc(IpcBatches),
    /// An IPC stream read as it comes.
    Stream(IpcStreamReader<Box<dyn Read + Send>>),
    /// A Parquet file in memory or memory-mapped; the rows read so far and the file's
    /// size, for progress.
    Parquet {
        batches: ParquetBatches,
        rows: u64,
        size: u64,
    },
}

impl Batches {
    /// The next batch. The Parquet reader places its errors at the batch itself, which the
    /// origin of the failure names here, so it is taken off.
    fn next(&mut self) -> Option<Result<RecordBatch>> {
        match self {
            Batches::Ipc(b) => b.next(),
            Batches::Stream(s) => s.next(),
            Batches::Parquet { batches, rows, .. } => batches.next().map(|r| match r {
                Ok(b) => {
                    *rows += b.num_rows() as u64;
                    Ok(b)
                }
                Err(e) => Err(e.into_kind().into()),
            }),
        }
    }

    /// How far into the input the batches read so far reach, in bytes.
    fn position(&self) -> u64 {
        match self {
            Batches::Ipc(b) => b.position(),
            Batches::Stream(s) => s.position(),
            // The share of the file's rows read.
            Batches::Parquet {
                batches,
                rows,
                size,
            } => match batches.num_rows() {
                0 => *size,
                total => (u128::from(*size) * u128::from(*rows) / u128::from(total)) as u64,
            },
        }
    }
}

/// The tensors of a reader of record batches, a batch at a time; ends after the first
/// error.
pub(super) struct BatchTensors {
    batches: Batches,
    options: MessageOptions,
    pending: VecDeque<Message>,
    /// Batches read so far.
    batch: u64,
    done: bool,
}

impl BatchTensors {
    /// The tensors of `batches`, split with `options` (whose limits bound each tensor's
    /// rank and stored values too).
    pub(super) fn new(batches: Batches, options: MessageOptions) -> Self {
        BatchTensors {
            batches,
            options,
            pending: VecDeque::new(),
            batch: 0,
            done: false,
        }
    }

    /// How far into the input the batches read so far reach, in bytes.
    pub(super) fn consumed(&self) -> u64 {
        self.batches.position()
    }

    pub(super) fn next(&mut self) -> Option<Result<InputTensor>> {
        loop {
            if let Some(message) = self.pending.pop_front() {
                let origin = TensorOrigin::Batch {
                    batch: self.batch.saturating_sub(1),
                };
                return Some(Ok(InputTensor::Read { message, origin }));
            }
            if self.done {
                return None;
            }
            let origin = TensorOrigin::Batch { batch: self.batch };
            let split = match self.batches.next()? {
                Ok(b) => split(&b, &self.options, &self.options.limits),
                Err(e) => Err(e),
            };
            self.batch += 1;
            match split {
                Ok(messages) => self.pending.extend(messages),
                Err(e) => {
                    self.done = true;
                    return Some(Err(failed(origin, e)));
                }
            }
        }
    }
}

/// The tensors of one batch, each within the limits.
fn split(batch: &RecordBatch, options: &MessageOptions, limits: &Limits) -> Result<Vec<Message>> {
    let messages = batch_to_messages(batch, options)?;
    for m in &messages {
        check_limits(m, limits)?;
    }
    Ok(messages)
}
