//! What a file is, judged by its first bytes (content first, extension second): the kinds
//! this crate reads (streams of tensor messages, Arrow IPC streams and files, Matrix
//! Market, FROSTT, `.npy`, `.npz`, Parquet with the `parquet` feature) and the common kinds
//! it does not read (other zip archives, HDF5, gzip, plain text, other binary data), so that a tool can name a file
//! it cannot read instead of decoding it as something it is not.
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
use std::path::Path;

/// How many bytes from the start of a file [`detect`] looks at, at most. Fewer are fine
/// when the file is shorter; [`wanted`] says how many suffice for a given start.
pub const PREFIX_LEN: usize = 4096;

/// What a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// Tensor / SparseTensor messages, one after another (also an empty file, and bytes
    /// framed as a message whose metadata cannot be checked: the message decoder then says
    /// what is wrong).
    TensorMessages,
    /// An Arrow IPC stream of record batches: its first message is a Schema.
    IpcStream,
    /// An Arrow IPC file (`ARROW1` magic).
    IpcFile,
    /// Matrix Market (`%%MatrixMarket` banner, or a text file ending in `.mtx`).
    MatrixMarket,
    /// FROSTT (text lines of integer coordinates and a value, or a text file ending in
    /// `.tns`).
    Frostt,
    /// NumPy `.npy` (`\x93NUMPY` magic).
    Npy,
    /// A zip archive of `.npy` members (numpy `savez`, scipy `save_npz`), or any zip
    /// archive named `.npz`.
    Npz,
    /// Apache Parquet (`PAR1` magic). Read with the `parquet` feature
    /// (`record_batch::ParquetBatches`).
    Parquet,
    /// A zip archive that is not an `.npz` bundle. Not read by this crate.
    Zip,
    /// HDF5 (`\x89HDF\r\n\x1a\n` signature). Not read by this crate.
    Hdf5,
    /// gzip-compressed data. Not read by this crate.
    Gzip,
    /// Text in no format of this crate (CSV, JSON, ...). Not read by this crate.
    Text,
    /// Binary data of no kind named here. Not read by this crate.
    Binary,
}

impl FileKind {
    /// The kind's name, as in error messages ("Arrow IPC file", "Parquet", "plain text").
    pub fn name(self) -> &'static str {
        match self {
            FileKind::TensorMessages => "tensor messages",
            FileKind::IpcStream => "Arrow IPC stream",
            FileKind::IpcFile => "Arrow IPC file",
            FileKind::MatrixMarket => "Matrix Market",
            FileKind::Frostt => "FROSTT",
            FileKind::Npy => "npy",
            FileKind::Npz => "npz",
            FileKind::Parquet => "Parquet",
            FileKind::Zip => "zip archive",
            FileKind::Hdf5 => "HDF5",
            FileKind::Gzip => "gzip",
            FileKind::Text => "plain text",
            FileKind::Binary => "unknown binary data",
        }
    }

    /// Whether this crate has a reader for the kind (some behind cargo features: the
    /// record-batch bridge for IPC streams and files, `matrix-market`, `frostt`, `npy`;
    /// Parquet only when built with `parquet`).
    pub fn is_readable(self) -> bool {
        if self == FileKind::Parquet {
            return cfg!(feature = "parquet");
        }
        !matches!(
            self,
            FileKind::Zip | FileKind::Hdf5 | FileKind::Gzip | FileKind::Text | FileKind::Binary
        )
    }

    /// Whether the kind is read front to back in one pass (so it can come from a pipe);
    /// the others need their whole content at hand (a footer, a zip directory, or a parser
    /// over the whole file).
    pub fn is_sequential(self) -> bool {
        matches!(self, FileKind::TensorMessages | FileKind::IpcStream)
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

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
mod tests {
    use super::*;
    use crate::{Message, MessageWriter, SparseTensor, Tensor, WriteOptions};
    use proptest::prelude::*;

    fn messages() -> Vec<u8> {
        let t = Tensor::from_vec(vec![2, 2], vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
        let s = SparseTensor::csr([2, 2], vec![0i32, 1, 2], vec![1, 0], vec![5i64, 6]).unwrap();
        let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
        w.write(&Message::Tensor(t)).unwrap();
        w.write(&Message::SparseTensor(s)).unwrap();
        w.finish().unwrap()
    }

    /// A Schema message as an Arrow IPC stream starts: the flatbuffer built by hand with
    /// the crate's generated code.
    fn schema_message(continuation: bool) -> Vec<u8> {
        let mut b = flatbuffers::FlatBufferBuilder::new();
        let fields = b.create_vector::<flatbuffers::WIPOffset<fb::Field>>(&[]);
        let schema = fb::Schema::create(
            &mut b,
            &fb::SchemaArgs {
                fields: Some(fields),
                ..Default::default()
            },
        );
        let message = fb::Message::create(
            &mut b,
            &fb::MessageArgs {
                version: fb::MetadataVersion::V5,
                header_type: fb::MessageHeader::Schema,
                header: Some(schema.as_union_value()),
                bodyLength: 0,
                custom_metadata: None,
            },
        );
        b.finish(message, None);
        let mut meta = b.finished_data().to_vec();
        meta.resize(meta.len().next_multiple_of(8), 0);
        let mut out = Vec::new();
        if continuation {
            out.extend_from_slice(&CONTINUATION);
        }
        out.extend_from_slice(&(meta.len() as i32).to_le_bytes());
        out.extend_from_slice(&meta);
        out
    }

    fn p(name: &str) -> Option<&Path> {
        Some(Path::new(name))
    }

    #[test]
    fn message_streams() {
        let bytes = messages();
        assert_eq!(detect(&bytes, None), FileKind::TensorMessages);
        assert_eq!(detect(&bytes, p("x.npy")), FileKind::TensorMessages);
        // Cut inside the first metadata: the marker still frames a message.
        assert_eq!(detect(&bytes[..12], None), FileKind::TensorMessages);
        // An end-of-stream marker alone, in both framings, and an empty file.
        assert_eq!(
            detect(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0], None),
            FileKind::TensorMessages
        );
        assert_eq!(detect(&[0, 0, 0, 0], None), FileKind::TensorMessages);
        assert_eq!(detect(b"", None), FileKind::TensorMessages);
        // Legacy framing: the metadata alone, without the marker.
        assert_eq!(detect(&bytes[4..], None), FileKind::TensorMessages);
    }

    #[test]
    fn ipc_streams_and_files() {
        assert_eq!(detect(&schema_message(true), None), FileKind::IpcStream);
        assert_eq!(detect(&schema_message(false), None), FileKind::IpcStream);
        assert_eq!(detect(b"ARROW1\0\0", p("x.tns")), FileKind::IpcFile);
    }

    #[test]
    fn text_formats() {
        let mtx = b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.5\n";
        assert_eq!(detect(mtx, None), FileKind::MatrixMarket);
        assert_eq!(
            detect(b"%%matrixmarket matrix array real general\n", None),
            FileKind::MatrixMarket
        );
        // A .mtx without its banner is still Matrix Market (whose reader names the fault).
        assert_eq!(detect(b"2 2 1\n", p("a.MTX")), FileKind::MatrixMarket);
        let tns = b"# comment\n1 1 1 1.5\n2 3 1 -2e3\n\n";
        assert_eq!(detect(tns, None), FileKind::Frostt);
        assert_eq!(detect(b"anything", p("x.tns")), FileKind::Frostt);
        // Entries of different widths, words, or a bare number are not FROSTT.
        assert_eq!(detect(b"1 1 1.5\n1 1 1 2\n", None), FileKind::Text);
        assert_eq!(detect(b"a,b,c\n1,2,3\n", None), FileKind::Text);
        assert_eq!(detect(b"1.5\n", None), FileKind::Text);
        assert_eq!(detect(b"{\"a\": 1}", p("x.json")), FileKind::Text);
        // A character cut by the end of the prefix is still text.
        let mut long = vec![b'x'; PREFIX_LEN - 1];
        long.extend_from_slice("é".as_bytes());
        assert_eq!(detect(&long, None), FileKind::Text);
    }

    #[test]
    fn numpy() {
        assert_eq!(
            detect(b"\x93NUMPY\x01\x00v\x00{'descr'", None),
            FileKind::Npy
        );
        let mut zip = b"PK\x03\x04".to_vec();
        zip.resize(26, 0);
        zip.extend_from_slice(&9u16.to_le_bytes());
        zip.extend_from_slice(&0u16.to_le_bytes());
        zip.extend_from_slice(b"data.NPY");
        assert_eq!(detect(&zip, None), FileKind::Zip, "name length 9 is cut");
        zip.truncate(26);
        zip.extend_from_slice(&8u16.to_le_bytes());
        zip.extend_from_slice(&0u16.to_le_bytes());
        zip.extend_from_slice(b"data.NPY");
        assert_eq!(detect(&zip, None), FileKind::Npz);
        assert_eq!(detect(b"PK\x03\x04", None), FileKind::Zip);
        assert_eq!(detect(b"PK\x03\x04", p("b.npz")), FileKind::Npz);
        assert_eq!(detect(b"PK\x05\x06", p("b.npz")), FileKind::Npz);
    }

    #[test]
    fn kinds_not_read() {
        for (bytes, kind) in [
            (&b"\x89HDF\r\n\x1a\n\0\0"[..], FileKind::Hdf5),
            (b"\x1f\x8b\x08\0", FileKind::Gzip),
            (b"\x01\x02\x03\x04\x05\x06\x07\x08", FileKind::Binary),
        ] {
            assert_eq!(detect(bytes, None), kind);
            assert!(!kind.is_readable());
            assert!(!kind.name().is_empty());
        }
        assert_eq!(detect(b"PAR1\x15\x04\x15", None), FileKind::Parquet);
        assert_eq!(FileKind::Parquet.is_readable(), cfg!(feature = "parquet"));
        // A text file is text whatever its name, unless the name is a text format's.
        assert_eq!(
            detect(b"this is not an Arrow message at all", p("x.arrows")),
            FileKind::Text
        );
    }

    #[test]
    fn wanted_bytes() {
        let bytes = messages();
        assert_eq!(wanted(b""), PREFIX_LEN);
        assert_eq!(wanted(&bytes[..4]), 8);
        let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
        assert_eq!(wanted(&bytes[..8]), 8 + len);
        assert_eq!(wanted(b"%%MatrixMarket"), PREFIX_LEN);
        // What the first metadata says is enough to tell the kind.
        assert_eq!(detect(&bytes[..8 + len], None), FileKind::TensorMessages);
        let schema = schema_message(true);
        assert_eq!(wanted(&schema), schema.len());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..5000), head in 0usize..4) {
            let mut bytes = bytes;
            // Starts that lead into the deeper checks.
            let starts: [&[u8]; 4] = [b"", &CONTINUATION, b"PK\x03\x04", b"1 2 "];
            bytes.splice(0..0, starts[head].iter().copied());
            let kind = detect(&bytes, None);
            let _ = (kind.name(), kind.is_readable(), kind.is_sequential());
            let _ = detect(&bytes, p("x.npz"));
            prop_assert!(wanted(&bytes) <= PREFIX_LEN);
        }
    }
}
