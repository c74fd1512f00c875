//! The unit tests of [`detect`](super::detect): every kind from its first bytes, the bytes
//! detection wants, and arbitrary bytes that never panic.

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

/// A reader that hands out at most three bytes per call.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(3).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn prefixes_are_what_detection_wants() {
    let bytes = messages();
    let prefix = read_prefix(&mut Trickle(&bytes)).unwrap();
    assert_eq!(prefix.len(), wanted(&prefix));
    assert!(bytes.starts_with(&prefix));
    assert_eq!(detect(&prefix, None), FileKind::TensorMessages);
    let text = b"%%MatrixMarket matrix coordinate real general\n";
    assert_eq!(read_prefix(&mut Trickle(text)).unwrap(), text);
    assert_eq!(read_prefix(&mut Trickle(b"")).unwrap(), b"");
    let long = vec![b'x'; 3 * PREFIX_LEN];
    assert_eq!(read_prefix(&mut Trickle(&long)).unwrap().len(), PREFIX_LEN);
}

#[test]
fn kinds_named_by_more_than_content() {
    // A dataset is a directory: no bytes are one.
    assert_eq!(FileKind::Dataset.is_readable(), cfg!(feature = "parquet"));
    assert!(!FileKind::Dataset.is_sequential() && !FileKind::Dataset.is_format_file());
    assert_eq!(
        FileKind::from_extension(Path::new("a.NPZ")),
        Some(FileKind::Npz)
    );
    assert_eq!(
        FileKind::from_extension(Path::new("a.feather")),
        Some(FileKind::IpcFile)
    );
    assert_eq!(FileKind::from_extension(Path::new("noext")), None);
    for kind in [
        FileKind::MatrixMarket,
        FileKind::Frostt,
        FileKind::Npy,
        FileKind::Npz,
    ] {
        assert!(kind.is_format_file() && !kind.is_sequential());
        assert!(!kind.phrase().is_empty());
    }
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
