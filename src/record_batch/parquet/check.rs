//! The checks a Parquet file passes before and after its footer is decoded, and the
//! boundary at which panics of the `parquet` crate are contained.

use super::options::ParquetReadOptions;
use super::thrift::{zigzag, Thrift, I32, LIST, STOP, STRUCT};
use super::PARQUET_MAGIC;
use crate::error::{fail, ErrorKind, Result};
use parquet::basic::Compression;
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
    data: &[u8],
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
            match &range {
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
            if let Some(r) = &range {
                let chunk = data
                    .get(r.start as usize..r.end as usize)
                    .unwrap_or_default();
                let codec = match column.compression() {
                    Compression::UNCOMPRESSED => PageCodec::None,
                    Compression::SNAPPY => PageCodec::Snappy,
                    _ => PageCodec::Other,
                };
                check_pages(chunk, r.start, column.num_values() as u64, codec)
                    .or_else(|reason| invalid(part(), reason))?;
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

/// Largest uncompressed size a page may claim whatever its compressed size; above it, a
/// page's compressed size must be at least 1/[`MAX_EXPANSION`] of what it claims. The
/// `parquet` crate allocates the claimed size before decompressing.
const PAGE_BYTES: u64 = 64 << 20;

/// See [`PAGE_BYTES`].
const MAX_EXPANSION: u64 = 1024;

/// The codec of a column chunk, as far as `check_pages` tells codecs apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PageCodec {
    /// `UNCOMPRESSED`: a page's data is stored as it is.
    None,
    /// `SNAPPY`: a page's compressed data starts with its uncompressed length.
    Snappy,
    /// Any other codec: the `parquet` crate compares what it decompresses with the size
    /// the page header declares.
    Other,
}

/// Walks the page headers of one column chunk (starting at byte `at` of the file) until
/// its data pages hold `values` values: every header must decode, every page lie inside
/// the chunk, no page claim more than [`PAGE_BYTES`] uncompressed unless its compressed
/// size backs the claim (1 byte per [`MAX_EXPANSION`]), and every page's declared
/// uncompressed size match what it stores: the same as its compressed size when no codec
/// applies to it (an `UNCOMPRESSED` column chunk, a v2 data page marked uncompressed), its
/// levels plus the length at the start of its Snappy data under Snappy. The `parquet`
/// crate checks the size other codecs decompress to; under Snappy it would pad a page that
/// claims more than its data holds with zeros.
fn check_pages(
    chunk: &[u8],
    at: u64,
    values: u64,
    codec: PageCodec,
) -> std::result::Result<(), String> {
    let mut r = Thrift {
        bytes: chunk,
        at: 0,
    };
    let mut seen = 0u64;
    while seen < values && r.at < chunk.len() {
        let start = r.at;
        let page_at = at + start as u64;
        let Some(header) = r.page_header() else {
            return Err(format!("the page header at byte {page_at} does not decode"));
        };
        let (Ok(compressed), Ok(uncompressed), Ok(levels)) = (
            u64::try_from(header.compressed),
            u64::try_from(header.uncompressed),
            u64::try_from(header.levels),
        ) else {
            return Err(format!(
                "the page at byte {page_at} claims a negative size ({} compressed, {} uncompressed, {} bytes of levels)",
                header.compressed, header.uncompressed, header.levels
            ));
        };
        if uncompressed > PAGE_BYTES && compressed.saturating_mul(MAX_EXPANSION) < uncompressed {
            return Err(format!(
                "the page at byte {page_at} claims {uncompressed} bytes uncompressed from {compressed} compressed (more than {PAGE_BYTES} bytes at over {MAX_EXPANSION} times its size)"
            ));
        }
        let body_at = r.at;
        if r.advance(compressed).is_none() {
            return Err(format!(
                "the page at byte {page_at} of {compressed} bytes runs past the end of its column chunk (byte {})",
                at + chunk.len() as u64
            ));
        }
        if levels > compressed.min(uncompressed) {
            return Err(format!(
                "the page at byte {page_at} claims {levels} bytes of levels in {compressed} bytes compressed, {uncompressed} uncompressed"
            ));
        }
        if codec == PageCodec::None || !header.codec_applied {
            if compressed != uncompressed {
                return Err(format!(
                    "the page at byte {page_at} claims {uncompressed} bytes uncompressed, but stores {compressed} bytes without compression"
                ));
            }
        } else if codec == PageCodec::Snappy {
            let data = chunk
                .get(body_at..body_at + compressed as usize)
                .and_then(|page| page.get(levels as usize..))
                .unwrap_or_default();
            // The parquet crate decompresses nothing when the page declares no data after
            // its levels.
            if uncompressed > levels || !data.is_empty() {
                let mut snappy = Thrift { bytes: data, at: 0 };
                let holds = snappy.varint().filter(|&n| n <= u64::from(u32::MAX));
                if holds != Some(uncompressed - levels) {
                    return Err(match holds {
                        Some(n) => format!(
                            "the page at byte {page_at} claims {uncompressed} bytes uncompressed, but its Snappy data holds {}",
                            n + levels
                        ),
                        None => format!(
                            "the page at byte {page_at}: its Snappy data does not start with its length"
                        ),
                    });
                }
            }
        }
        seen = seen.saturating_add(header.values);
    }
    Ok(())
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    /// A Thrift compact varint of the zigzag encoding of `v`.
    fn varint(v: i64, out: &mut Vec<u8>) {
        let mut z = ((v << 1) ^ (v >> 63)) as u64;
        while z >= 0x80 {
            out.push((z as u8) | 0x80);
            z >>= 7;
        }
        out.push(z as u8);
    }

    /// A data page header with the given sizes and value count, then `body` bytes.
    fn page(uncompressed: i64, compressed: i64, values: i64, body: usize) -> Vec<u8> {
        let mut b = vec![0x15, 0x00, 0x15];
        varint(uncompressed, &mut b);
        b.push(0x15);
        varint(compressed, &mut b);
        b.push(0x2c); // field 5, struct: DataPageHeader
        b.push(0x15);
        varint(values, &mut b);
        b.extend_from_slice(&[0x00, 0x00]);
        b.extend(std::iter::repeat_n(0u8, body));
        b
    }

    #[test]
    fn pages_are_walked_until_their_values() {
        let mut chunk = page(100, 50, 10, 50);
        chunk.extend(page(100, 60, 5, 60));
        assert_eq!(check_pages(&chunk, 4, 15, PageCodec::Other), Ok(()));
        // Trailing bytes after the values are not read.
        chunk.extend_from_slice(&[0xff; 7]);
        assert_eq!(check_pages(&chunk, 4, 15, PageCodec::Other), Ok(()));
        let e = check_pages(&chunk, 4, 16, PageCodec::Other).unwrap_err();
        assert!(e.contains("does not decode"), "{e}");
    }

    #[test]
    fn a_page_claiming_a_huge_expansion_is_refused() {
        let chunk = page(1 << 30, 100, 10, 100);
        let e = check_pages(&chunk, 4, 10, PageCodec::Other).unwrap_err();
        assert!(
            e.contains("claims 1073741824 bytes uncompressed from 100 compressed"),
            "{e}"
        );
        // Backed by enough compressed bytes, or small, the claim passes.
        assert_eq!(
            check_pages(
                &page(1 << 30, 1 << 20, 10, 1 << 20),
                4,
                10,
                PageCodec::Other
            ),
            Ok(())
        );
        assert_eq!(
            check_pages(&page(PAGE_BYTES as i64, 1, 10, 1), 4, 10, PageCodec::Other),
            Ok(())
        );
    }

    #[test]
    fn negative_and_overlong_pages_are_refused() {
        let e = check_pages(&page(-1, 10, 1, 10), 4, 1, PageCodec::Other).unwrap_err();
        assert!(e.contains("negative size"), "{e}");
        let e = check_pages(&page(10, 11, 1, 10), 4, 1, PageCodec::Other).unwrap_err();
        assert!(e.contains("runs past the end"), "{e}");
    }

    /// A v2 data page header (`is_compressed` as given) with the given sizes, value count
    /// and level bytes, then `body`.
    fn page_v2(uncompressed: i64, levels: i64, compressed: bool, body: &[u8]) -> Vec<u8> {
        let mut b = vec![0x15, 0x06, 0x15];
        varint(uncompressed, &mut b);
        b.push(0x15);
        varint(body.len() as i64, &mut b);
        b.push(0x5c); // field 8, struct: DataPageHeaderV2
        b.extend_from_slice(&[0x15, 0x02, 0x15, 0x00, 0x15, 0x02, 0x15, 0x00]);
        b.push(0x15); // field 5: definition_levels_byte_length
        varint(levels, &mut b);
        b.extend_from_slice(&[0x15, 0x00]); // field 6: repetition_levels_byte_length
        b.push(if compressed { 0x11 } else { 0x12 }); // field 7: is_compressed
        b.extend_from_slice(&[0x00, 0x00]);
        b.extend_from_slice(body);
        b
    }

    #[test]
    fn an_uncompressed_page_must_store_its_declared_size() {
        assert_eq!(
            check_pages(&page(50, 50, 1, 50), 4, 1, PageCodec::None),
            Ok(())
        );
        for (uncompressed, compressed) in [(58, 50), (42, 50)] {
            let chunk = page(uncompressed, compressed, 1, 50);
            let e = check_pages(&chunk, 4, 1, PageCodec::None).unwrap_err();
            assert_eq!(
                e,
                format!("the page at byte 4 claims {uncompressed} bytes uncompressed, but stores 50 bytes without compression")
            );
            // The codec's own check applies to the other codecs.
            assert_eq!(check_pages(&chunk, 4, 1, PageCodec::Other), Ok(()));
        }
        // A v2 page marked uncompressed, in a compressed column chunk.
        let body = [7u8; 12];
        assert_eq!(
            check_pages(&page_v2(12, 2, false, &body), 4, 1, PageCodec::Snappy),
            Ok(())
        );
        let e = check_pages(&page_v2(13, 2, false, &body), 4, 1, PageCodec::Snappy).unwrap_err();
        assert!(
            e.ends_with("claims 13 bytes uncompressed, but stores 12 bytes without compression"),
            "{e}"
        );
    }

    #[test]
    fn a_snappy_page_must_hold_its_declared_size() {
        // Snappy data of 300 bytes: its length (varint 0xac 0x02), then the data's bytes
        // (not read here).
        let data = [0xac, 0x02, 0, 0, 0];
        assert_eq!(
            check_pages(&page_with(300, &data), 4, 1, PageCodec::Snappy),
            Ok(())
        );
        for claim in [301, 299] {
            let e = check_pages(&page_with(claim, &data), 4, 1, PageCodec::Snappy).unwrap_err();
            assert_eq!(
                e,
                format!("the page at byte 4 claims {claim} bytes uncompressed, but its Snappy data holds 300")
            );
        }
        let e = check_pages(&page_with(300, &[0xff; 5]), 4, 1, PageCodec::Snappy).unwrap_err();
        assert!(
            e.ends_with("its Snappy data does not start with its length"),
            "{e}"
        );
        // A v2 page: its levels come first, uncompressed, and count in its declared size.
        let mut body = vec![1u8, 2, 3];
        body.extend_from_slice(&data);
        assert_eq!(
            check_pages(&page_v2(303, 3, true, &body), 4, 1, PageCodec::Snappy),
            Ok(())
        );
        let e = check_pages(&page_v2(300, 3, true, &body), 4, 1, PageCodec::Snappy).unwrap_err();
        assert!(
            e.ends_with("claims 300 bytes uncompressed, but its Snappy data holds 303"),
            "{e}"
        );
        let e = check_pages(&page_v2(303, 9, true, &body), 4, 1, PageCodec::Snappy).unwrap_err();
        assert!(
            e.ends_with("claims 9 bytes of levels in 8 bytes compressed, 303 uncompressed"),
            "{e}"
        );
        // A page without data after its levels holds nothing to check.
        assert_eq!(
            check_pages(&page_v2(3, 3, true, &[1, 2, 3]), 4, 1, PageCodec::Snappy),
            Ok(())
        );
    }

    /// A data page header of one value declaring `uncompressed` bytes, then `body`.
    fn page_with(uncompressed: i64, body: &[u8]) -> Vec<u8> {
        let mut b = page(uncompressed, body.len() as i64, 1, 0);
        b.extend_from_slice(body);
        b
    }

    #[test]
    fn deep_schemas_are_refused_before_decoding() {
        // FileMetaData { 1: version, 2: list<SchemaElement> } with 100 nested groups.
        // Field 1 (i32), then field 2 (list of 100 structs: size as an unsigned varint).
        let mut b = vec![0x15, 0x02, 0x19, 0xfc, 100];
        for _ in 0..100 {
            // SchemaElement { 4: name "g", 5: num_children 1 }
            b.extend_from_slice(&[0x48, 0x01, b'g', 0x15]);
            varint(1, &mut b);
            b.push(0x00);
        }
        b.push(0x00);
        let options = ParquetReadOptions::default();
        let e = check_footer_thrift(&b, &options).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LimitExceeded {
                    value: 65,
                    limit: 64,
                    ..
                }
            ),
            "{e}"
        );
        let options = options.with_max_schema_depth(200);
        assert!(check_footer_thrift(&b, &options).is_ok());
    }
}
