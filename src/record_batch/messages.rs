//! Whole streams: tensor messages to record batches of one schema ([`BatchBuilder`]), and
//! record batches back to tensor messages ([`batch_to_messages`]).

use super::coo_table::{
    coo_table_to_sparse_with, dense_to_coo_table, sparse_to_coo_table, COO_TABLE_KEY,
};
use super::extension::{extension_name, FIXED_SHAPE_TENSOR, VARIABLE_SHAPE_TENSOR};
use super::fixed_shape::{
    fixed_shape_cells_with, fixed_shape_to_tensor_with, tensor_to_fixed_shape,
};
use super::fixed_shape::{FixedShapeOptions, Rows};
use super::variable_shape::{
    check_fits, tensors_to_variable_shape, variable_shape_to_tensors_with,
};
use crate::error::{fail, ErrorKind, Result};
use crate::ConvertOptions;
use crate::{Limits, Message, SparseFormat, Tensor};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

/// The column name [`BatchBuilder`] gives fixed- and variable-shape tensor columns.
pub const TENSOR_COLUMN: &str = "tensor";

/// The table a stream of tensor messages becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableFormat {
    /// One `arrow.fixed_shape_tensor` column; every message dense, of one value type and
    /// cell shape.
    FixedShapeTensor,
    /// One `arrow.variable_shape_tensor` column; each dense message one row.
    VariableShapeTensor,
    /// A COO table; each message (sparse or dense) one batch.
    CooTable,
}

/// Turns tensor messages, one at a time, into record batches of one schema: the schema is
/// fixed by the first message, and a later message that does not fit it is an
/// [`ErrorKind::Inconsistent`] error naming the message and what differs.
///
/// ```
/// use arrow_tensor_ipc::record_batch::{BatchBuilder, FixedShapeOptions, TableFormat};
/// use arrow_tensor_ipc::{Message, Tensor};
///
/// let mut b = BatchBuilder::new(TableFormat::FixedShapeTensor, FixedShapeOptions::default());
/// let m: Message = Tensor::from_vec(vec![3, 2], vec![1.0f64; 6])?.into();
/// let batch = b.push(&m)?.expect("one batch per message");
/// assert_eq!(batch.num_rows(), 3);
/// let other: Message = Tensor::from_vec(vec![3, 4], vec![1.0f64; 12])?.into();
/// assert!(b.push(&other).is_err()); // cell shape [4], not [2]
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub struct BatchBuilder {
    format: TableFormat,
    options: FixedShapeOptions,
    schema: Option<SchemaRef>,
    pending: Vec<Tensor>,
    pending_bytes: usize,
    index: usize,
    /// Rows of a variable-shape batch: flushed at this many tensors or bytes.
    max_rows: usize,
    max_bytes: usize,
}

impl BatchBuilder {
    /// A builder of `format` tables (`options` apply to fixed-shape columns).
    pub fn new(format: TableFormat, options: FixedShapeOptions) -> Self {
        BatchBuilder {
            format,
            options,
            schema: None,
            pending: Vec::new(),
            pending_bytes: 0,
            index: 0,
            max_rows: 1024,
            max_bytes: 64 << 20,
        }
    }

    /// The schema, once the first message fixed it.
    pub fn schema(&self) -> Option<SchemaRef> {
        self.schema.clone()
    }

    /// Adds one message; returns a batch when one is complete (fixed-shape and COO tables:
    /// one per message; variable-shape: every 1024 rows or 64 MiB of values).
    pub fn push(&mut self, message: &Message) -> Result<Option<RecordBatch>> {
        let i = self.index;
        self.index += 1;
        let dense = |what: &str| -> Result<&Tensor> {
            message.as_tensor().ok_or_else(|| {
                ErrorKind::Inconsistent {
                    what: format!("layout of message {i}"),
                    first: format!("dense (a {what} column holds dense tensors)"),
                    found: "sparse".into(),
                }
                .into()
            })
        };
        match self.format {
            TableFormat::FixedShapeTensor => {
                let t = dense("fixed-shape tensor")?;
                let batch =
                    tensor_to_fixed_shape(t, &self.options)?.into_record_batch(TENSOR_COLUMN)?;
                self.check_schema(&batch, i)?;
                Ok(Some(batch))
            }
            TableFormat::CooTable => {
                let batch = match message {
                    Message::Tensor(t) => dense_to_coo_table(t)?,
                    Message::SparseTensor(s) => sparse_to_coo_table(s)?,
                };
                self.check_schema(&batch, i)?;
                Ok(Some(batch))
            }
            TableFormat::VariableShapeTensor => {
                let t = dense("variable-shape tensor")?.clone();
                if let Some(first) = self.pending.first() {
                    check_fits(first, &t, &format!("message {i}"))?;
                }
                self.pending_bytes += t.len() * t.value_type().byte_width();
                self.pending.push(t);
                if self.pending.len() >= self.max_rows || self.pending_bytes >= self.max_bytes {
                    self.flush(i)
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// The last, partial batch (variable-shape tables), if any.
    pub fn finish(&mut self) -> Result<Option<RecordBatch>> {
        let i = self.index.saturating_sub(1);
        self.flush(i)
    }

    fn flush(&mut self, i: usize) -> Result<Option<RecordBatch>> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let tensors = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        let batch = tensors_to_variable_shape(&tensors)?.into_record_batch(TENSOR_COLUMN)?;
        self.check_schema(&batch, i)?;
        Ok(Some(batch))
    }

    fn check_schema(&mut self, batch: &RecordBatch, i: usize) -> Result<()> {
        match &self.schema {
            None => {
                self.schema = Some(batch.schema());
                Ok(())
            }
            Some(s) if s.as_ref() == batch.schema().as_ref() => Ok(()),
            Some(s) => fail(ErrorKind::Inconsistent {
                what: format!("table schema of message {i}"),
                first: describe(s),
                found: describe(&batch.schema()),
            }),
        }
    }
}

/// A schema in one line: each field's name, type and extension metadata, and the COO
/// table metadata.
fn describe(s: &arrow_schema::Schema) -> String {
    let fields: Vec<String> = s
        .fields()
        .iter()
        .map(|f| {
            let meta = f
                .metadata()
                .get("ARROW:extension:metadata")
                .map(|m| format!(" {m}"))
                .unwrap_or_default();
            format!("{}: {}{meta}", f.name(), f.data_type())
        })
        .collect();
    let coo = s
        .metadata()
        .get(COO_TABLE_KEY)
        .map(|m| format!(" {m}"))
        .unwrap_or_default();
    format!("[{}]{coo}", fields.join(", "))
}

/// How [`batch_to_messages`] picks and splits the tensors of a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MessageOptions {
    /// The tensor column to read, required when a batch has several.
    pub column: Option<String>,
    /// Fixed-shape columns: [`Rows::FirstAxis`] gives one message per batch (rows as the
    /// first axis), [`Rows::Whole`] one message per row.
    pub rows: Rows,
    /// COO tables: the layout of the messages (default: the recorded layout).
    pub format: Option<SparseFormat>,
    /// What the batch's metadata may claim (ranks, shapes, the index arrays a COO table's
    /// layout needs): see the `_with` readers. Default [`Limits::default`].
    pub limits: Limits,
}

impl MessageOptions {
    /// Sets [`MessageOptions::column`].
    pub fn with_column(mut self, column: impl Into<String>) -> Self {
        self.column = Some(column.into());
        self
    }

    /// Sets [`MessageOptions::rows`].
    pub fn with_rows(mut self, rows: Rows) -> Self {
        self.rows = rows;
        self
    }

    /// Sets [`MessageOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`MessageOptions::format`].
    pub fn with_format(mut self, format: SparseFormat) -> Self {
        self.format = Some(format);
        self
    }
}

/// The tensor messages a record batch holds: a fixed-shape column gives one message (or
/// one per row), a variable-shape column one per row, a COO table one sparse message.
pub fn batch_to_messages(batch: &RecordBatch, options: &MessageOptions) -> Result<Vec<Message>> {
    let schema = batch.schema();
    let convert = ConvertOptions::default().with_limits(options.limits);
    if schema.metadata().contains_key(COO_TABLE_KEY) && options.column.is_none() {
        return Ok(vec![coo_table_to_sparse_with(
            batch,
            options.format,
            &convert,
        )?
        .into()]);
    }
    let tensor_columns: Vec<usize> = schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            matches!(
                extension_name(f),
                Some(FIXED_SHAPE_TENSOR) | Some(VARIABLE_SHAPE_TENSOR)
            )
        })
        .map(|(i, _)| i)
        .collect();
    let names = || {
        tensor_columns
            .iter()
            .map(|&i| schema.field(i).name().as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let index = match &options.column {
        Some(name) => match schema.index_of(name) {
            Ok(i) => i,
            Err(_) => {
                return fail(ErrorKind::Selection {
                    reason: format!("no column {name:?} (tensor columns: {})", names()),
                })
            }
        },
        None => match tensor_columns.as_slice() {
            [only] => *only,
            [] => {
                return fail(ErrorKind::Selection {
                    reason: "no tensor column (arrow.fixed_shape_tensor or arrow.variable_shape_tensor) and no COO table metadata".into(),
                })
            }
            _ => {
                return fail(ErrorKind::Selection {
                    reason: format!("several tensor columns ({}): name one", names()),
                })
            }
        },
    };
    let field = schema.field(index);
    let array = batch.column(index);
    match extension_name(field) {
        Some(FIXED_SHAPE_TENSOR) => Ok(match options.rows {
            Rows::FirstAxis => {
                vec![fixed_shape_to_tensor_with(field, array, &convert)?.into()]
            }
            Rows::Whole => fixed_shape_cells_with(field, array, &convert)?
                .into_iter()
                .map(Message::from)
                .collect(),
        }),
        Some(VARIABLE_SHAPE_TENSOR) => Ok(variable_shape_to_tensors_with(field, array, &convert)?
            .into_iter()
            .map(Message::from)
            .collect()),
        other => fail(ErrorKind::InvalidColumn {
            column: field.name().clone(),
            reason: format!(
                "extension type {:?} is not a tensor type",
                other.unwrap_or("(none)")
            ),
        }),
    }
}
