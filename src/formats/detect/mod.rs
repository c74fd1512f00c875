//! What a file is, judged by its first bytes (content first, extension second): the kinds
//! this crate reads (streams of tensor messages, Arrow IPC streams and files, Matrix
//! Market, FROSTT, `.npy`, `.npz`, Parquet with the `parquet` feature) and the common kinds
//! it does not read (other zip archives, HDF5, gzip, plain text, other binary data), so
//! that a tool can name a file it cannot read instead of decoding it as something it is
//! not. [`read_prefix`] reads as many first bytes of a reader as [`detect`] wants.
//!
//! ```
//! use arrow_tensor_ipc::formats::detect::{detect, FileKind};
//! assert_eq!(detect(b"\x93NUMPY\x01\x00", None), FileKind::Npy);
//! assert_eq!(detect(b"PAR1\x15\x04", None), FileKind::Parquet);
//! assert_eq!(detect(b"1 2 3 4.5\n2 1 1 -1\n", Some("t.tns".as_ref())), FileKind::Frostt);
//! // An empty input is an empty stream of tensor messages.
//! assert_eq!(detect(b"", None), FileKind::TensorMessages);
//! ```

// Detection runs on untrusted bytes: no panicking shortcuts.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::codec::framing::{peek_head, Prefix, CONTINUATION};
use crate::gen::legacy_015 as legacy;
use crate::gen::org::apache::arrow::flatbuf as fb;
use std::io::{self, Read};
use std::path::Path;

mod kind;

pub use kind::FileKind;

/// How many bytes from the start of a file [`detect`] looks at, at most. Fewer are fine
/// when the file is shorter; [`wanted`] says how many suffice for a given start.
pub const PREFIX_LEN: usize = 4096;

/// How many bytes of a file [`detect`] wants, given the first bytes `prefix`: for a file
/// that starts like a message, the message's prefix and metadata (so a pipe need not be
/// read further than its first message), else [`PREFIX_LEN`]. Never more than
/// [`PREFIX_LEN`].
pub fn wanted(prefix: &[u8]) -> usize {
    match prefix.get(..4) {
        None => PREFIX_LEN,
        Some(first) if first == CONTINUATION => match peek_head(prefix) {
            Ok(Some(Prefix::Message(head))) => head.body_offset().min(PREFIX_LEN),
            // The length is still to come.
            Ok(None) => 8,
            // End of stream, or a negative length.
            _ => prefix.len().min(PREFIX_LEN),
        },
        Some(_) => PREFIX_LEN,
    }
}

/// Reads the first bytes of `reader`, as many as [`detect`] wants ([`wanted`], at most
/// [`PREFIX_LEN`]), or fewer when the reader ends first. A caller that goes on reading
/// the input reads it after these bytes (chain them in front: `Cursor::new(prefix).chain(reader)`).
///
/// ```
/// use arrow_tensor_ipc::formats::detect::{detect, read_prefix, FileKind};
/// let mut input: &[u8] = b"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5\n";
/// let prefix = read_prefix(&mut input)?;
/// assert_eq!(detect(&prefix, None), FileKind::MatrixMarket);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_prefix(reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut prefix = Vec::with_capacity(PREFIX_LEN);
    loop {
        let want = wanted(&prefix);
        if prefix.len() >= want {
            return Ok(prefix);
        }
        let mut chunk = vec![0u8; want - prefix.len()];
        let n = match reader.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(prefix);
        }
        prefix.extend_from_slice(chunk.get(..n).unwrap_or_default());
    }
}

/// What the file that starts with `prefix` holds (at most [`PREFIX_LEN`] bytes are
/// looked at; a shorter prefix is taken as the whole file). `path`, when known, is the
/// second witness: its extension decides between kinds the content alone leaves open
/// (a text file ending in `.tns` or `.mtx`, a zip archive ending in `.npz`). Never panics.
pub fn detect(prefix: &[u8], path: Option<&Path>) -> FileKind {
    let prefix = prefix.get(..PREFIX_LEN).unwrap_or(prefix);
    let ext = path
        .and_then(Path::extension)
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let ext = ext.as_deref();
    if prefix.is_empty() {
        return FileKind::TensorMessages;
    }
    if prefix.starts_with(b"ARROW1") {
        return FileKind::IpcFile;
    }
    if prefix.starts_with(b"\x93NUMPY") {
        return FileKind::Npy;
    }
    if prefix.starts_with(b"PAR1") {
        return FileKind::Parquet;
    }
    if prefix.starts_with(b"\x89HDF\r\n\x1a\n") {
        return FileKind::Hdf5;
    }
    if prefix.starts_with(&[0x1f, 0x8b]) {
        return FileKind::Gzip;
    }
    if prefix.starts_with(b"PK\x03\x04") || prefix.starts_with(b"PK\x05\x06") {
        return if ext == Some("npz") || first_zip_member_is_npy(prefix) {
            FileKind::Npz
        } else {
            FileKind::Zip
        };
    }
    if let Some(kind) = message_kind(prefix) {
        return kind;
    }
    if is_text(prefix) {
        if starts_with_ignore_case(prefix, b"%%MatrixMarket") || ext == Some("mtx") {
            return FileKind::MatrixMarket;
        }
        if ext == Some("tns") || looks_like_frostt(prefix) {
            return FileKind::Frostt;
        }
        return FileKind::Text;
    }
    FileKind::Binary
}

/// The kind of a file that starts like a stream of encapsulated messages, judged by the
/// first message's header type when its metadata is within `prefix`.
fn message_kind(prefix: &[u8]) -> Option<FileKind> {
    let continuation = prefix.starts_with(&CONTINUATION);
    let head = match peek_head(prefix) {
        // An end-of-stream marker: an empty stream.
        Ok(Some(Prefix::EndOfStream { .. })) => return Some(FileKind::TensorMessages),
        Ok(Some(Prefix::Message(head))) => Some(head),
        _ => None,
    };
    let header = head
        .and_then(|h| prefix.get(h.prefix_len..h.body_offset()))
        .and_then(header_type);
    match (header, continuation) {
        (Some(h), _) => Some(h),
        // The continuation marker is framing enough: the decoder says what is wrong.
        (None, true) => Some(FileKind::TensorMessages),
        // Legacy framing (no marker) has no magic of its own: only metadata that parses
        // makes bytes a message, except a metadata length padded to 8 as Arrow writes it
        // ahead of metadata longer than the prefix, in bytes that are not text.
        (None, false) => {
            let len = head?.metadata_len;
            let beyond = prefix.len() == PREFIX_LEN && len + 4 > PREFIX_LEN;
            (beyond && len % 8 == 0 && len <= 1 << 24 && !is_text(prefix))
                .then_some(FileKind::TensorMessages)
        }
    }
}

/// The kind that a `Message` flatbuffer's header type makes a stream, if it parses.
fn header_type(metadata: &[u8]) -> Option<FileKind> {
    let opts = flatbuffers::VerifierOptions {
        max_depth: 128,
        ..Default::default()
    };
    let header = match flatbuffers::root_with_opts::<fb::Message>(&opts, metadata) {
        Ok(m) => m.header_type(),
        // Arrow 0.15's CSR schema (which the message decoder reads too).
        Err(_) => fb::MessageHeader(
            flatbuffers::root_with_opts::<legacy::Message>(&opts, metadata)
                .ok()?
                .header_type()
                .0,
        ),
    };
    match header {
        fb::MessageHeader::Schema
        | fb::MessageHeader::RecordBatch
        | fb::MessageHeader::DictionaryBatch => Some(FileKind::IpcStream),
        _ => Some(FileKind::TensorMessages),
    }
}

/// Whether the first local file header of a zip archive names a `.npy` member.
fn first_zip_member_is_npy(prefix: &[u8]) -> bool {
    let Some(&[lo, hi]) = prefix.get(26..28) else {
        return false;
    };
    let name_len = usize::from(u16::from_le_bytes([lo, hi]));
    prefix
        .get(30..30 + name_len)
        .is_some_and(|name| name.len() >= 4 && ends_with_ignore_case(name, b".npy"))
}

fn starts_with_ignore_case(bytes: &[u8], start: &[u8]) -> bool {
    bytes
        .get(..start.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(start))
}

fn ends_with_ignore_case(bytes: &[u8], end: &[u8]) -> bool {
    bytes
        .len()
        .checked_sub(end.len())
        .and_then(|at| bytes.get(at..))
        .is_some_and(|b| b.eq_ignore_ascii_case(end))
}

/// Whether `prefix` reads as text: UTF-8 (a character cut by the end of the prefix
/// allowed) without control characters other than tab, line feed, form feed and carriage
/// return.
fn is_text(prefix: &[u8]) -> bool {
    let valid = match std::str::from_utf8(prefix) {
        Ok(s) => s,
        // Only an incomplete character at the very end is forgiven.
        Err(e) if e.error_len().is_none() && prefix.len() - e.valid_up_to() < 4 => {
            match prefix.get(..e.valid_up_to()).map(std::str::from_utf8) {
                Some(Ok(s)) => s,
                _ => return false,
            }
        }
        Err(_) => return false,
    };
    valid
        .chars()
        .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r' | '\x0c'))
}

/// Whether text looks like FROSTT: at least one entry line, and every complete line blank,
/// a `#` comment, or an entry (one or more unsigned integers, then a number), all entries
/// of one width.
fn looks_like_frostt(prefix: &[u8]) -> bool {
    let complete = if prefix.len() == PREFIX_LEN {
        // The last line may be cut.
        match prefix.iter().rposition(|&b| b == b'\n') {
            Some(end) => prefix.get(..end).unwrap_or_default(),
            None => return false,
        }
    } else {
        prefix
    };
    let mut width = None;
    for line in complete.split(|&b| b == b'\n') {
        let words: Vec<&[u8]> = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        if words.first().is_some_and(|w| w.starts_with(b"#")) {
            continue;
        }
        let Some((value, coords)) = words.split_last() else {
            continue;
        };
        if coords.is_empty()
            || !coords.iter().all(|c| c.iter().all(u8::is_ascii_digit))
            || !is_number(value)
        {
            return false;
        }
        if *width.get_or_insert(words.len()) != words.len() {
            return false;
        }
    }
    width.is_some()
}

/// Whether a word reads as a number (`1`, `-2.5e3`, `nan`, `inf`).
fn is_number(word: &[u8]) -> bool {
    std::str::from_utf8(word).is_ok_and(|s| s.parse::<f64>().is_ok())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests;
