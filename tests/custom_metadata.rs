//! The `custom_metadata` of the `Message` table: kept by every decode path, written back by
//! encode, kept by conversions, read by Arrow C++ (pyarrow 26), and typed errors for a
//! malformed list. Messages without it stay byte-identical (tests/golden.rs pins those).

use arrow_buffer::Buffer;
use arrow_tensor_ipc::__private::flatbuf as fb;
use arrow_tensor_ipc::{
    decode_message, encode, ConvertOptions, CustomMetadata, ErrorKind, Message, MessageIter,
    MessageReader, MessageWriter, ReadOptions, SparseFormat, SparseTensor, StreamDecoder, Tensor,
    WriteOptions, NAME_KEY,
};
use std::process::Command;

#[path = "common/venv.rs"]
mod venv;

fn md() -> CustomMetadata {
    CustomMetadata::new([
        (NAME_KEY, "weights"),
        ("unit", "métres ✓"),
        ("unit", "a repeated key"),
        ("", ""),
    ])
}

fn messages() -> Vec<Message> {
    let dense = Tensor::from_vec(vec![2, 3], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    let csr = SparseTensor::csr([2, 3], vec![0i32, 1, 2], vec![2, 0], vec![7.5f64, -1.0]).unwrap();
    let coo = csr
        .to_format_with(SparseFormat::Coo, &ConvertOptions::default())
        .unwrap();
    vec![
        Message::from(dense.clone()).with_custom_metadata(md()),
        Message::from(csr).with_custom_metadata(md()),
        Message::from(coo).with_custom_metadata(CustomMetadata::default()),
        Message::from(dense),
    ]
}

fn stream(messages: &[Message]) -> Vec<u8> {
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    for m in messages {
        w.write(m).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn every_decode_path_keeps_it_and_encode_writes_it_back() {
    let ms = messages();
    let bytes = stream(&ms);
    let want: Vec<Option<CustomMetadata>> =
        ms.iter().map(|m| m.custom_metadata().cloned()).collect();
    assert_eq!(want[0].as_ref().unwrap().get(NAME_KEY), Some("weights"));
    assert_eq!(want[0].as_ref().unwrap().get("unit"), Some("métres ✓"));

    let from_iter: Vec<_> =
        MessageIter::new(Buffer::from_vec(bytes.clone()), &ReadOptions::default())
            .map(|m| m.unwrap().message.custom_metadata().cloned())
            .collect();
    assert_eq!(from_iter, want);

    let mut reader = MessageReader::new(bytes.as_slice(), &ReadOptions::default());
    let mut from_reader = Vec::new();
    while let Some(m) = reader.read_message().unwrap() {
        from_reader.push(m.message.custom_metadata().cloned());
    }
    assert_eq!(from_reader, want);

    // Byte by byte through the push decoder.
    let mut d = StreamDecoder::new(&ReadOptions::default());
    let mut from_stream = Vec::new();
    for b in &bytes {
        d.push(Buffer::from_slice_ref([*b]));
        while let Some(m) = d.next_message().unwrap() {
            from_stream.push(m.message.custom_metadata().cloned());
        }
    }
    assert_eq!(from_stream, want);

    // Decode then encode: the same bytes.
    let first = decode_message(&bytes::Bytes::from(bytes.clone()), &ReadOptions::default())
        .unwrap()
        .unwrap();
    let again = encode(&first.message, &WriteOptions::default())
        .unwrap()
        .to_vec();
    assert_eq!(again, bytes[..first.total_length() as usize]);
    assert_eq!(first.message.name(), Some("weights"));

    // Without it, the message is the one without metadata; an empty list is written.
    let plain = encode(&ms[3], &WriteOptions::default()).unwrap();
    let named = encode(&ms[0], &WriteOptions::default()).unwrap();
    assert!(named.header().len() > plain.header().len());
    let removed = ms[0].clone().with_custom_metadata(None);
    assert_eq!(
        encode(&removed, &WriteOptions::default()).unwrap().to_vec(),
        plain.to_vec()
    );
}

#[test]
fn conversions_keep_it() {
    let ms = messages();
    let dense = ms[0].as_tensor().unwrap();
    let opts = ConvertOptions::default();
    for f in [
        SparseFormat::Coo,
        SparseFormat::Csr,
        SparseFormat::Csc,
        SparseFormat::Csf,
    ] {
        let s = dense.to_sparse_with(f, &opts).unwrap();
        assert_eq!(s.custom_metadata(), Some(&md()), "{f:?}");
        let back = s.to_format_with(SparseFormat::Coo, &opts).unwrap();
        assert_eq!(back.custom_metadata(), Some(&md()), "{f:?}");
        assert_eq!(back.to_dense().unwrap().custom_metadata(), Some(&md()));
        assert_eq!(s.to_dense().unwrap().custom_metadata(), Some(&md()));
    }
    assert_eq!(dense.to_row_major().custom_metadata(), Some(&md()));
    // Content equality ignores it.
    assert!(dense.content_eq(ms[3].as_tensor().unwrap()));
}

/// A dense int8 `[1]` message whose `custom_metadata` holds one `KeyValue` built by `kv`.
fn message_with(
    kv: impl FnOnce(&mut flatbuffers::FlatBufferBuilder<'_>) -> Option<&'static str>,
) -> Vec<u8> {
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let int = fb::Int::create(
        &mut fbb,
        &fb::IntArgs {
            bitWidth: 8,
            is_signed: true,
        },
    );
    let name = fbb.create_string("");
    let dim = fb::TensorDim::create(
        &mut fbb,
        &fb::TensorDimArgs {
            size_: 1,
            name: Some(name),
        },
    );
    let shape = fbb.create_vector(&[dim]);
    let strides = fbb.create_vector(&[1i64]);
    let data = fb::Buffer::new(0, 1);
    let tensor = fb::Tensor::create(
        &mut fbb,
        &fb::TensorArgs {
            type_type: fb::Type::Int,
            type_: Some(int.as_union_value()),
            shape: Some(shape),
            strides: Some(strides),
            data: Some(&data),
        },
    );
    let value = kv(&mut fbb);
    let key = fbb.create_string("k");
    let value = value.map(|v| fbb.create_string(v));
    let pair = fb::KeyValue::create(
        &mut fbb,
        &fb::KeyValueArgs {
            key: Some(key),
            value,
        },
    );
    let list = fbb.create_vector(&[pair]);
    let msg = fb::Message::create(
        &mut fbb,
        &fb::MessageArgs {
            version: fb::MetadataVersion::V5,
            header_type: fb::MessageHeader::Tensor,
            header: Some(tensor.as_union_value()),
            bodyLength: 8,
            custom_metadata: Some(list),
        },
    );
    fbb.finish(msg, None);
    let mut meta = fbb.finished_data().to_vec();
    meta.resize(meta.len().div_ceil(8) * 8, 0);
    let mut out = vec![0xff; 4];
    out.extend_from_slice(&(meta.len() as i32).to_le_bytes());
    out.extend_from_slice(&meta);
    out.extend_from_slice(&[5, 0, 0, 0, 0, 0, 0, 0]);
    out
}

fn decode(bytes: Vec<u8>) -> arrow_tensor_ipc::Result<Message> {
    decode_message(&bytes::Bytes::from(bytes), &ReadOptions::default()).map(|m| m.unwrap().message)
}

#[test]
fn malformed_lists_are_typed_errors() {
    let ok = decode(message_with(|_| Some("vvvv"))).unwrap();
    assert_eq!(ok.custom_metadata().unwrap().get("k"), Some("vvvv"));
    // A KeyValue without a value.
    let e = decode(message_with(|_| None)).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::MissingField("KeyValue.value")),
        "{e}"
    );
    // Invalid UTF-8 in a value: the flatbuffer verifier refuses the message.
    let mut bad = message_with(|_| Some("vvvv"));
    let at = bad.windows(4).position(|w| w == b"vvvv").unwrap();
    bad[at + 1] = 0xff;
    let e = decode(bad).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::InvalidFlatbuffer { reason } if reason.contains("Utf8")),
        "{e}"
    );
}

/// Arrow C++ (pyarrow 26) reads messages with custom_metadata: the dense tensors' values,
/// and every message's `Message` table (which it parses, keys and values included).
#[test]
fn arrow_cpp_reads_messages_with_custom_metadata() {
    let ms = messages();
    let dir = venv::scratch("interop/custom-metadata", "messages");
    let file = dir.join("ms.arrows");
    std::fs::write(&file, stream(&ms)).unwrap();
    let script = r#"
import json, sys
import pyarrow as pa
out = []
with pa.memory_map(sys.argv[1]) as f:
    while True:
        pos = f.tell()
        try:
            m = pa.ipc.read_message(f)
        except EOFError:
            break
        entry = {"type": m.type, "body": m.body.size}
        if m.type == "tensor":
            f.seek(pos)
            t = pa.ipc.read_tensor(f)
            entry["values"] = t.to_numpy().ravel().tolist()
        out.append(entry)
print(json.dumps(out))
"#;
    let out = Command::new(venv::python())
        .arg("-c")
        .arg(script)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pyarrow failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = v.as_array().unwrap();
    assert_eq!(v.len(), 4, "{v:?}");
    assert_eq!(v[0]["type"], "tensor");
    assert_eq!(v[0]["values"], serde_json::json!([1, 2, 3, 4, 5, 6]));
    assert_eq!(v[1]["type"], "sparse tensor");
    assert_eq!(v[2]["type"], "sparse tensor");
    assert_eq!(v[3]["values"], serde_json::json!([1, 2, 3, 4, 5, 6]));
}
