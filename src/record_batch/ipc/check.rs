//! The checks every IPC message passes before arrow-ipc reads it: the prefix, the
//! metadata, and each buffer of a record or dictionary batch against its body (arrow-ipc
//! slices buffers by the lengths a message claims and panics when they exceed the body).

use super::*;
use crate::codec::framing::{body_length, parse_head, Prefix};
use crate::Limits;

/// Checks one encapsulated message at the start of `bytes` (prefix, metadata, and the
/// buffers of a record or dictionary batch against its body, the metadata and body
/// lengths against `limits`) and returns its length, or `None` at an end-of-stream marker
/// or when fewer than 4 bytes remain. arrow-ipc slices
/// buffers by the lengths a message claims and panics when they exceed the body: every
/// message is checked here before arrow-ipc sees it.
pub(super) fn check_message(
    bytes: &[u8],
    at: usize,
    widths: &mut Option<Vec<(usize, String)>>,
    limits: &Limits,
) -> Result<Option<usize>> {
    let head = match parse_head(bytes, limits)? {
        None if bytes.len() < 4 => return Ok(None),
        None => {
            return fail(ErrorKind::Truncated {
                part: "prefix",
                needed: 8,
                available: bytes.len() as u64,
            })
        }
        Some(Prefix::EndOfStream { .. }) => return Ok(None),
        Some(Prefix::Message(head)) => head,
    };
    let (prefix, len) = (head.prefix_len, head.metadata_len);
    let Some(meta) = bytes.get(prefix..prefix + len) else {
        return fail(ErrorKind::Truncated {
            part: "metadata",
            needed: (prefix + len) as u64,
            available: bytes.len() as u64,
        });
    };
    let message = arrow_ipc::root_as_message(meta).map_err(ErrorKind::flatbuffer)?;
    let body = body_length(message.bodyLength(), limits)?;
    let end = (prefix + len) as u64 + body;
    if end > bytes.len() as u64 {
        return fail(ErrorKind::Truncated {
            part: "body",
            needed: end,
            available: bytes.len() as u64,
        });
    }
    if let Some(fb) = message.header_as_schema() {
        let schema = arrow_ipc::convert::try_fb_to_schema(fb)?;
        check_schema(&schema).map_err(|e| e.at(at as u64))?;
        *widths = Some(buffer_widths(&schema));
    }
    // Buffers whose length is not a whole number of elements make arrow-rs's validation
    // panic; they are refused here (record batches only: a dictionary batch's buffers
    // belong to no column of a supported schema).
    if let (Some(batch), Some(widths)) = (message.header_as_record_batch(), widths.as_ref()) {
        for (i, (b, (w, column))) in batch
            .buffers()
            .into_iter()
            .flatten()
            .zip(widths)
            .enumerate()
        {
            if b.length() % *w as i64 != 0 {
                return Err(crate::Error::from(ErrorKind::InvalidColumn {
                    column: column.clone(),
                    reason: format!(
                        "buffer {i} of the record batch holds {} bytes, not a whole number of {w}-byte elements",
                        b.length()
                    ),
                })
                .at(at as u64));
            }
        }
    }
    let batch = match message.header_type() {
        arrow_ipc::MessageHeader::RecordBatch => message.header_as_record_batch(),
        arrow_ipc::MessageHeader::DictionaryBatch => {
            message.header_as_dictionary_batch().and_then(|d| d.data())
        }
        _ => None,
    };
    if let Some(batch) = batch {
        // Array lengths beyond 2^32 - 1 (no tensor column holds more values in one batch)
        // would let arrow-rs's validation overflow computing child lengths.
        let lengths = std::iter::once((batch.length(), 0)).chain(
            batch
                .nodes()
                .into_iter()
                .flatten()
                .map(|n| (n.length(), n.null_count())),
        );
        for (length, nulls) in lengths {
            if !(0..=u32::MAX as i64).contains(&length) || !(0..=length).contains(&nulls) {
                return Err(crate::Error::from(ErrorKind::LimitExceeded {
                    what: "record batch array length (0 to 2^32 - 1, nulls at most the length)",
                    value: length as u64,
                    limit: u32::MAX as u64,
                })
                .at(at as u64));
            }
        }
        for b in batch.buffers().into_iter().flatten() {
            let fits = u64::try_from(b.offset())
                .ok()
                .zip(u64::try_from(b.length()).ok())
                .and_then(|(o, l)| o.checked_add(l))
                .is_some_and(|e| e <= body);
            if !fits {
                return Err(crate::Error::from(ErrorKind::BufferOutOfBody {
                    buffer: crate::BufferId::Body,
                    offset: b.offset(),
                    length: b.length(),
                    body_length: body,
                })
                .at(at as u64));
            }
        }
    }
    Ok(Some(end as usize))
}

/// Whether `t` is one of the plain leaf types the record-batch readers take from untrusted
/// files (numbers, booleans, strings, binary, dates), shared by the IPC and Parquet checks.
pub(crate) fn plain_leaf(t: &DataType) -> bool {
    use DataType as D;
    matches!(
        t,
        D::Null
            | D::Boolean
            | D::Int8
            | D::Int16
            | D::Int32
            | D::Int64
            | D::UInt8
            | D::UInt16
            | D::UInt32
            | D::UInt64
            | D::Float16
            | D::Float32
            | D::Float64
            | D::Utf8
            | D::LargeUtf8
            | D::Binary
            | D::LargeBinary
            | D::Date32
            | D::Date64
    )
}

/// Whether arrow-ipc reads columns of type `t` from untrusted bytes without panicking:
/// the types tensor columns and COO tables are made of, and the plain types a table may
/// carry beside them. arrow-ipc 60 slices union and other buffers by lengths it does not
/// check, so every other type is refused before a batch is decoded.
fn supported(t: &DataType) -> bool {
    use DataType as D;
    match t {
        t if plain_leaf(t) => true,
        D::List(f) | D::LargeList(f) | D::FixedSizeList(f, _) => supported(f.data_type()),
        D::Struct(fields) => fields.iter().all(|f| supported(f.data_type())),
        _ => false,
    }
}

/// The element width of every buffer of a record batch of `schema`, in the order the IPC
/// format lists them, with the column each belongs to (for the types [`supported`] allows;
/// validity bitmaps, booleans and bytes have width 1).
pub(super) fn buffer_widths(schema: &Schema) -> Vec<(usize, String)> {
    fn walk(t: &DataType, name: &str, out: &mut Vec<(usize, String)>) {
        use DataType as D;
        let mut push = |w: usize| out.push((w, name.to_string()));
        match t {
            D::Null => {}
            D::Boolean | D::Int8 | D::UInt8 => {
                push(1);
                push(1);
            }
            D::Int16 | D::UInt16 | D::Float16 => {
                push(1);
                push(2);
            }
            D::Int32 | D::UInt32 | D::Float32 | D::Date32 => {
                push(1);
                push(4);
            }
            D::Int64 | D::UInt64 | D::Float64 | D::Date64 => {
                push(1);
                push(8);
            }
            D::Utf8 | D::Binary => {
                push(1);
                push(4);
                push(1);
            }
            D::LargeUtf8 | D::LargeBinary => {
                push(1);
                push(8);
                push(1);
            }
            D::List(f) => {
                push(1);
                push(4);
                walk(f.data_type(), name, out);
            }
            D::LargeList(f) => {
                push(1);
                push(8);
                walk(f.data_type(), name, out);
            }
            D::FixedSizeList(f, _) => {
                push(1);
                walk(f.data_type(), name, out);
            }
            D::Struct(fields) => {
                push(1);
                for f in fields {
                    walk(f.data_type(), name, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for f in schema.fields() {
        walk(f.data_type(), f.name(), &mut out);
    }
    out
}

/// Refuses a schema with a column [`supported`] does not allow.
pub(super) fn check_schema(schema: &Schema) -> Result<()> {
    for f in schema.fields() {
        if !supported(f.data_type()) {
            return fail(ErrorKind::InvalidColumn {
                column: f.name().clone(),
                reason: format!(
                    "type {} is not read here (numbers, booleans, strings, binary, dates, lists and structs of them are)",
                    f.data_type()
                ),
            });
        }
    }
    Ok(())
}

/// Checks every message of a stream (see [`check_message`]).
pub(super) fn check_stream(data: &[u8], limits: &Limits) -> Result<()> {
    let mut at = 0;
    let mut widths = None;
    while let Some(rest) = data.get(at..) {
        match check_message(rest, at, &mut widths, limits).map_err(|e| e.at(at as u64))? {
            Some(n) => at += n,
            None => break,
        }
    }
    Ok(())
}
