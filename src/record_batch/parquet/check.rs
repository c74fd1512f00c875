//! The checks a Parquet file passes before and after its footer is decoded, and the
//! boundary at which panics of the `parquet` crate are contained.

use super::read::ParquetReadOptions;
use super::PARQUET_MAGIC;
use crate::error::{fail, ErrorKind, Result};
use parquet::file::metadata::ParquetMetaData;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f` (a call into the `parquet` crate), turning a panic into
/// [`ErrorKind::ParquetPanicked`] naming `part`.
pub(super) fn contain<T>(part: impl FnOnce() -> String, f: impl FnOnce() -> T) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).or_else(|payload| {
        let message = if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "a panic without a message".to_string()
        };
        fail(ErrorKind::ParquetPanicked {
            part: part(),
            message,
        })
    })
}

/// An [`ErrorKind::InvalidParquet`].
pub(super) fn invalid<T>(part: impl Into<String>, reason: impl Into<String>) -> Result<T> {
    fail(ErrorKind::InvalidParquet {
        part: part.into(),
        reason: reason.into(),
    })
}

/// Checks the magic bytes at both ends and the footer length, and returns the byte range
/// of the footer's metadata (a Thrift `FileMetaData`).
pub(super) fn footer_range(data: &[u8], options: &ParquetReadOptions) -> Result<Range<usize>> {
    let len = data.len();
    // "PAR1", at least the metadata length, "PAR1".
    if len < 12 {
        if !data.starts_with(PARQUET_MAGIC) && !PARQUET_MAGIC.starts_with(data) {
            return invalid(
                "header",
                "the file does not start with the magic bytes PAR1",
            );
        }
        return fail(ErrorKind::Truncated {
            part: "Parquet file (magic, footer length, magic)",
            needed: 12,
            available: len as u64,
        });
    }
    if !data.starts_with(PARQUET_MAGIC) {
        return invalid(
            "header",
            "the file does not start with the magic bytes PAR1",
        );
    }
    let tail = data.get(len - 8..).unwrap_or_default();
    let (length, magic) = tail.split_at(4);
    if magic == b"PARE" {
        return invalid(
            "footer",
            "the footer is encrypted (PARE), which is not supported",
        );
    }
    if magic != PARQUET_MAGIC {
        return invalid(
            "footer",
            "the file does not end with the magic bytes PAR1 (truncated or not Parquet)",
        );
    }
    let mut word = [0u8; 4];
    word.copy_from_slice(length);
    let footer = u32::from_le_bytes(word) as u64;
    let room = (len - 12) as u64;
    if footer > room {
        return fail(ErrorKind::Truncated {
            part: "Parquet footer",
            needed: footer + 12,
            available: len as u64,
        });
    }
    if footer > options.limits.max_metadata_len as u64 {
        return fail(ErrorKind::LimitExceeded {
            what: "Parquet footer length (Limits::max_metadata_len)",
            value: footer,
            limit: options.limits.max_metadata_len as u64,
        });
    }
    let end = len - 8;
    Ok(end - footer as usize..end)
}

/// Checks what the decoded footer claims against the options and the file: row group,
/// column and row counts, and that every column chunk lies between the leading magic and
/// the footer (`data_end`).
pub(super) fn check_metadata(
    metadata: &ParquetMetaData,
    options: &ParquetReadOptions,
    data_end: u64,
) -> Result<u64> {
    let groups = metadata.row_groups();
    if groups.len() > options.max_row_groups {
        return fail(ErrorKind::LimitExceeded {
            what: "Parquet row groups (ParquetReadOptions::max_row_groups)",
            value: groups.len() as u64,
            limit: options.max_row_groups as u64,
        });
    }
    let columns = metadata.file_metadata().schema_descr().num_columns();
    if columns > options.max_columns {
        return fail(ErrorKind::LimitExceeded {
            what: "Parquet leaf columns (ParquetReadOptions::max_columns)",
            value: columns as u64,
            limit: options.max_columns as u64,
        });
    }
    let mut total: u64 = 0;
    for (g, group) in groups.iter().enumerate() {
        let part = || format!("row group {g}");
        let Ok(rows) = u64::try_from(group.num_rows()) else {
            return invalid(part(), format!("negative row count {}", group.num_rows()));
        };
        total = total.saturating_add(rows);
        if group.columns().len() != columns {
            return invalid(
                part(),
                format!(
                    "{} column chunks for a schema of {columns} leaf columns",
                    group.columns().len()
                ),
            );
        }
        for column in group.columns() {
            let part = || format!("row group {g}, column {:?}", column.column_path().string());
            let start = column
                .dictionary_page_offset()
                .unwrap_or_else(|| column.data_page_offset());
            let length = column.compressed_size();
            let range = u64::try_from(start)
                .ok()
                .zip(u64::try_from(length).ok())
                .and_then(|(s, l)| Some(s..s.checked_add(l)?));
            match range {
                Some(r) if r.start >= PARQUET_MAGIC.len() as u64 && r.end <= data_end => {}
                _ => {
                    return invalid(
                        part(),
                        format!(
                            "the column chunk at byte {start} of {length} bytes lies outside the data of the file (bytes 4 to {data_end})"
                        ),
                    )
                }
            }
            let Ok(uncompressed) = u64::try_from(column.uncompressed_size()) else {
                return invalid(
                    part(),
                    format!("negative uncompressed size {}", column.uncompressed_size()),
                );
            };
            if uncompressed > options.limits.max_body_len {
                return fail(ErrorKind::LimitExceeded {
                    what: "Parquet column chunk uncompressed size (Limits::max_body_len)",
                    value: uncompressed,
                    limit: options.limits.max_body_len,
                });
            }
            if column.num_values() < 0 {
                return invalid(
                    part(),
                    format!("negative value count {}", column.num_values()),
                );
            }
        }
    }
    if total > options.max_rows {
        return fail(ErrorKind::LimitExceeded {
            what: "Parquet rows (ParquetReadOptions::max_rows)",
            value: total,
            limit: options.max_rows,
        });
    }
    let claimed = metadata.file_metadata().num_rows();
    if u64::try_from(claimed).ok() != Some(total) {
        return fail(ErrorKind::CountMismatch {
            what: "Parquet rows: the footer's num_rows against the sum of its row groups"
                .to_string(),
            expected: total,
            found: claimed as u64,
        });
    }
    Ok(total)
}

/// Reads the Thrift compact encoding of the footer (`FileMetaData`) far enough to check the
/// schema before the `parquet` crate builds it (recursively, without a bound on the
/// nesting): the nesting depth against [`ParquetReadOptions::max_schema_depth`] and the
/// leaf columns against [`ParquetReadOptions::max_columns`]. Other fields are skipped; a
/// malformed encoding is left to the `parquet` crate's decoder to report.
pub(super) fn check_footer_thrift(footer: &[u8], options: &ParquetReadOptions) -> Result<()> {
    let mut r = Thrift {
        bytes: footer,
        at: 0,
    };
    let mut last_id = 0i16;
    while let Some((kind, id)) = r.field(&mut last_id) {
        if id == 2 && kind == LIST {
            return check_schema_list(&mut r, options);
        }
        if r.skip(kind, 0).is_none() {
            return Ok(());
        }
    }
    Ok(())
}

const I32: u8 = 5;
const LIST: u8 = 9;
const STRUCT: u8 = 12;

/// Deepest nesting of Thrift values followed while skipping.
const SKIP_DEPTH: usize = 32;

fn check_schema_list(r: &mut Thrift<'_>, options: &ParquetReadOptions) -> Result<()> {
    let Some((elem, size)) = r.list_header() else {
        return Ok(());
    };
    if elem != STRUCT {
        return Ok(());
    }
    // Children still to come of each open group, innermost last.
    let mut open: Vec<u64> = Vec::new();
    let mut leaves = 0usize;
    for index in 0..size {
        let mut children = None;
        let mut last_id = 0i16;
        loop {
            let Some((kind, id)) = r.field(&mut last_id) else {
                return Ok(());
            };
            if kind == STOP {
                break;
            }
            if id == 5 && kind == I32 {
                let Some(v) = r.varint() else { return Ok(()) };
                children = Some(zigzag(v));
            } else if r.skip(kind, 0).is_none() {
                return Ok(());
            }
        }
        let children = children.unwrap_or(0).max(0) as u64;
        if index > 0 {
            while open.last() == Some(&0) {
                open.pop();
            }
            match open.last_mut() {
                Some(left) => *left -= 1,
                // An element after the root's children: the parquet crate reports it.
                None => return Ok(()),
            }
        }
        if children == 0 {
            if index > 0 {
                leaves += 1;
                if leaves > options.max_columns {
                    return fail(ErrorKind::LimitExceeded {
                        what: "Parquet leaf columns (ParquetReadOptions::max_columns)",
                        value: leaves as u64,
                        limit: options.max_columns as u64,
                    });
                }
            }
        } else {
            open.push(children);
            // The root is depth 0.
            let depth = open.len() - 1;
            if depth > options.max_schema_depth {
                return fail(ErrorKind::LimitExceeded {
                    what: "Parquet schema nesting depth (ParquetReadOptions::max_schema_depth)",
                    value: depth as u64,
                    limit: options.max_schema_depth as u64,
                });
            }
        }
    }
    Ok(())
}

const STOP: u8 = 0;

fn zigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A reader of the Thrift compact protocol over a byte slice: every method returns `None`
/// when the bytes end or break the encoding.
struct Thrift<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Thrift<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn advance(&mut self, n: u64) -> Option<()> {
        let end = (self.at as u64).checked_add(n)?;
        if end > self.bytes.len() as u64 {
            return None;
        }
        self.at = end as usize;
        Some(())
    }

    /// The next field header of a struct: its type and id (`STOP` ends the struct).
    fn field(&mut self, last_id: &mut i16) -> Option<(u8, i16)> {
        let b = self.byte()?;
        let kind = b & 0x0f;
        if kind == STOP {
            return Some((STOP, 0));
        }
        let delta = (b >> 4) as i16;
        let id = if delta == 0 {
            zigzag(self.varint()?) as i16
        } else {
            last_id.wrapping_add(delta)
        };
        *last_id = id;
        Some((kind, id))
    }

    fn list_header(&mut self) -> Option<(u8, u64)> {
        let b = self.byte()?;
        let size = match b >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        Some((b & 0x0f, size))
    }

    /// Skips one value of type `kind` (list elements use the same codes, booleans there
    /// taking one byte).
    fn skip(&mut self, kind: u8, depth: usize) -> Option<()> {
        if depth > SKIP_DEPTH {
            return None;
        }
        match kind {
            1 | 2 => Some(()),
            3 => self.advance(1),
            4..=6 => self.varint().map(|_| ()),
            7 => self.advance(8),
            8 => {
                let n = self.varint()?;
                self.advance(n)
            }
            9 | 10 => {
                let (elem, size) = self.list_header()?;
                for _ in 0..size {
                    if elem == 1 || elem == 2 {
                        self.advance(1)?;
                    } else {
                        // Every element takes at least one byte: a size past the end fails
                        // here without looping over it.
                        let before = self.at;
                        self.skip(elem, depth + 1)?;
                        if self.at == before {
                            return None;
                        }
                    }
                }
                Some(())
            }
            11 => {
                let size = self.varint()?;
                if size == 0 {
                    return Some(());
                }
                let kinds = self.byte()?;
                for _ in 0..size {
                    let before = self.at;
                    self.skip(kinds >> 4, depth + 1)?;
                    self.skip(kinds & 0x0f, depth + 1)?;
                    if self.at == before {
                        return None;
                    }
                }
                Some(())
            }
            STRUCT => {
                let mut last_id = 0i16;
                loop {
                    let (k, _) = self.field(&mut last_id)?;
                    if k == STOP {
                        return Some(());
                    }
                    self.skip(k, depth + 1)?;
                }
            }
            _ => None,
        }
    }
}
