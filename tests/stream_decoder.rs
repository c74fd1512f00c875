//! `StreamDecoder`: streams of several messages give what `MessageReader` gives under every
//! chunking; a message inside one chunk is decoded zero-copy; end-of-stream markers of
//! both framings; truncation reported by `finish`; errors stop the decoder and carry the
//! offset of their message; memory follows the bytes pushed, not the lengths claimed.
//! (Single-message errors are compared across every reader in `tests/malformed.rs` and
//! `tests/limits.rs`, through `common::all_errors`.)

mod common;

use arrow_buffer::Buffer;
use arrow_tensor_ipc::{
    DecodedMessage, ErrorKind, Framing, Limits, Message, MessageReader, MessageWriter, Misaligned,
    ReadOptions, SparseTensor, StreamDecoder, Tensor, WriteOptions,
};
use common::craft::{self, Vt};
use common::{crafted_csr, crafted_dense, random_chunks, sparse_msg};

/// A global allocator that counts the live bytes allocated by each thread and their peak,
/// so that a test measures its own allocations while others run.
#[allow(unsafe_code)]
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static CURRENT: Cell<usize> = const { Cell::new(0) };
        static PEAK: Cell<usize> = const { Cell::new(0) };
    }

    struct Counting;

    fn grow(n: usize) {
        let _ = CURRENT.try_with(|c| {
            let now = c.get() + n;
            c.set(now);
            let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
        });
    }

    fn shrink(n: usize) {
        let _ = CURRENT.try_with(|c| c.set(c.get().saturating_sub(n)));
    }

    // SAFETY: every call is forwarded to the system allocator unchanged; the counters are
    // bookkeeping only (const-initialised thread locals, which never allocate).
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let p = System.alloc(layout);
            if !p.is_null() {
                grow(layout.size());
            }
            p
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let p = System.alloc_zeroed(layout);
            if !p.is_null() {
                grow(layout.size());
            }
            p
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            System.dealloc(ptr, layout);
            shrink(layout.size());
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let p = System.realloc(ptr, layout, new_size);
            if !p.is_null() {
                grow(new_size);
                shrink(layout.size());
            }
            p
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    /// The peak of this thread's live bytes while `f` runs, above what was live before.
    pub fn peak_of(f: impl FnOnce()) -> usize {
        let base = CURRENT.with(Cell::get);
        PEAK.with(|p| p.set(base));
        f();
        PEAK.with(Cell::get).saturating_sub(base)
    }
}

/// A stream of every kind of message (dense, COO, CSR, CSC, CSF, one with an empty body),
/// ended by an end-of-stream marker.
fn stream() -> Vec<u8> {
    let messages: Vec<Message> = vec![
        Tensor::from_vec(vec![2, 3], vec![1.0f64, 2., 3., 4., 5., 6.])
            .unwrap()
            .into(),
        SparseTensor::coo([3, 4], vec![0i64, 1, 2, 3], vec![1.5f32, 2.5])
            .unwrap()
            .into(),
        SparseTensor::csr([3, 4], vec![0i32, 1, 1, 3], vec![2, 0, 3], vec![7u8, 8, 9])
            .unwrap()
            .into(),
        SparseTensor::csc([3, 4], vec![0i64, 1, 1, 2, 2], vec![2, 0], vec![-1i16, 4])
            .unwrap()
            .into(),
        SparseTensor::csf(
            [2, 3, 4],
            vec![0, 1, 2],
            vec![vec![0i32, 1, 2], vec![0, 1, 2]],
            vec![vec![0, 1], vec![0, 2], vec![1, 3]],
            vec![1.0f64, 2.0],
        )
        .unwrap()
        .into(),
        Tensor::from_vec(vec![0, 5], Vec::<i32>::new())
            .unwrap()
            .into(),
        Tensor::from_vec(vec![40, 50], (0..2000).map(|i| i as u32).collect())
            .unwrap()
            .into(),
    ];
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    for m in &messages {
        w.write(m).unwrap();
    }
    w.finish().unwrap()
}

/// What matters of a decoded message, to compare readers.
fn summary(m: &DecodedMessage) -> String {
    let contents = match &m.message {
        Message::Tensor(t) => format!(
            "{:?} {:?} {:?}",
            t.shape(),
            t.strides(),
            t.iter().collect::<Vec<_>>()
        ),
        Message::SparseTensor(t) => format!(
            "{:?} {:?} {:?}",
            t.format(),
            t.shape(),
            t.to_dense().map(|d| d.iter().collect::<Vec<_>>())
        ),
    };
    format!(
        "{} {:?} {:?} {} {} {} {contents}",
        m.offset, m.framing, m.version, m.metadata_length, m.body_length, m.body_offset
    )
}

/// Every message `MessageReader` reads from `bytes`, then its end (or error).
fn by_reader(bytes: &[u8], options: ReadOptions) -> Vec<String> {
    let mut r = MessageReader::new(bytes, &options);
    let mut out = Vec::new();
    loop {
        match r.read_message() {
            Ok(Some(m)) => out.push(summary(&m)),
            Ok(None) => {
                out.push(format!("end at {}", r.offset()));
                return out;
            }
            Err(e) => {
                out.push(failure(&e));
                return out;
            }
        }
    }
}

/// Every message a `StreamDecoder` gives for `chunks` pushed in order, then its end (or
/// error), through `push` / `next_message`.
fn by_push<'a>(chunks: impl IntoIterator<Item = &'a [u8]>, options: ReadOptions) -> Vec<String> {
    let mut d = StreamDecoder::new(&options);
    let mut out = Vec::new();
    for chunk in chunks {
        d.push(Buffer::from_slice_ref(chunk));
        loop {
            match d.next_message() {
                Ok(Some(m)) => out.push(summary(&m)),
                Ok(None) => break,
                Err(e) => {
                    out.push(failure(&e));
                    return out;
                }
            }
        }
    }
    match d.finish() {
        Ok(()) => out.push(format!("end at {}", d.offset())),
        Err(e) => out.push(failure(&e)),
    }
    out
}

/// How an error shows in a summary: its kind and the offset of the message it names.
fn failure(e: &arrow_tensor_ipc::Error) -> String {
    format!("error {:?} at {:?}", e.kind(), e.message_offset())
}

/// The same through `decode_slice`.
fn by_decode_slice<'a>(
    chunks: impl IntoIterator<Item = &'a [u8]>,
    options: ReadOptions,
) -> Vec<String> {
    let mut d = StreamDecoder::new(&options);
    let mut out = Vec::new();
    'chunks: for chunk in chunks {
        let mut rest = chunk;
        loop {
            match d.decode_slice(&mut rest) {
                Ok(Some(m)) => out.push(summary(&m)),
                Ok(None) if d.is_finished() => break 'chunks,
                Ok(None) => {
                    assert!(rest.is_empty(), "Ok(None) before the chunk was used up");
                    break;
                }
                Err(e) => {
                    out.push(failure(&e));
                    return out;
                }
            }
        }
    }
    match d.finish() {
        Ok(()) => out.push(format!("end at {}", d.offset())),
        Err(e) => out.push(failure(&e)),
    }
    out
}

/// Checks that `StreamDecoder` gives what `MessageReader` gives for `bytes`: whole, byte by
/// byte, in chunks of fixed sizes and in `seeds` random chunkings.
fn chunkings(bytes: &[u8], options: ReadOptions, seeds: u64) {
    let expected = by_reader(bytes, options);
    assert_eq!(by_push([bytes], options), expected, "whole");
    assert_eq!(by_push(bytes.chunks(1), options), expected, "byte by byte");
    assert_eq!(
        by_decode_slice(bytes.chunks(1), options),
        expected,
        "byte by byte, slices"
    );
    for size in [2, 3, 7, 8, 63, 64, 65, 1000] {
        assert_eq!(
            by_push(bytes.chunks(size), options),
            expected,
            "chunks of {size}"
        );
    }
    for seed in 0..seeds {
        let chunks = random_chunks(bytes, seed);
        assert_eq!(
            by_push(chunks.iter().copied(), options),
            expected,
            "seed {seed}"
        );
        assert_eq!(
            by_decode_slice(chunks.iter().copied(), options),
            expected,
            "seed {seed}, slices"
        );
    }
}

#[test]
fn streams_decode_alike_under_every_chunking() {
    let bytes = stream();
    let expected = by_reader(&bytes, ReadOptions::strict());
    assert_eq!(expected.len(), 8, "{expected:?}");
    assert_eq!(expected[7], format!("end at {}", bytes.len()));
    for options in [
        ReadOptions::strict(),
        ReadOptions::permissive(),
        ReadOptions::strict().with_misaligned(Misaligned::Error),
    ] {
        chunkings(&bytes, options, 20);
    }
    // Cut anywhere: the messages before the cut, then the truncation error of the message
    // cut short (or a clean end at a message boundary), under every chunking.
    let ends: Vec<usize> = by_reader(&bytes, ReadOptions::strict())
        .iter()
        .filter_map(|m| m.split(' ').next()?.parse().ok())
        .collect();
    let cuts = ends
        .iter()
        .flat_map(|&e| [e.saturating_sub(1), e + 1, e + 5, e + 8, e + 9, e + 70])
        .chain((0..bytes.len()).step_by(211))
        .chain([bytes.len() - 8, bytes.len() - 1])
        .filter(|&c| c < bytes.len());
    for cut in cuts {
        chunkings(&bytes[..cut], ReadOptions::strict(), 2);
    }
}

#[test]
fn legacy_framing_and_both_end_markers() {
    let (s, body) = crafted_csr();
    let meta = craft::sparse(&s);
    let legacy = craft::frame(&meta, &body, false, 8);
    let modern = craft::frame(&meta, &body, true, 8);
    for eos in [&[0u8, 0, 0, 0][..], &[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]] {
        let mut bytes = legacy.clone();
        bytes.extend_from_slice(&modern);
        bytes.extend_from_slice(&legacy);
        bytes.extend_from_slice(eos);
        let end = bytes.len();
        // Bytes after the marker are not read.
        bytes.extend_from_slice(b"trailing bytes after the marker");
        let expected = by_reader(&bytes, ReadOptions::strict());
        assert_eq!(expected.len(), 4);
        assert_eq!(expected[3], format!("end at {end}"));
        chunkings(&bytes, ReadOptions::strict(), 20);

        let mut d = StreamDecoder::new(&ReadOptions::strict());
        let mut buf = Buffer::from_vec(bytes.clone());
        let framings: Vec<Framing> = std::iter::from_fn(|| d.decode(&mut buf).unwrap())
            .map(|m| m.framing)
            .collect();
        assert_eq!(
            framings,
            [Framing::Legacy, Framing::Continuation, Framing::Legacy]
        );
        assert!(d.is_finished());
        assert_eq!(d.bytes_needed(), 0);
        assert_eq!(d.offset(), end as u64);
        assert_eq!(buf.as_slice(), b"trailing bytes after the marker");
        d.finish().unwrap();
    }
    // Empty input is an empty stream.
    let mut d = StreamDecoder::new(&ReadOptions::strict());
    assert!(d.next_message().unwrap().is_none());
    d.finish().unwrap();
    assert!(d.is_finished());
}

#[test]
fn a_message_in_one_chunk_is_zero_copy() {
    let t = Tensor::from_vec(vec![64, 64], (0..4096).map(|i| i as f64).collect()).unwrap();
    let mut w = MessageWriter::new(Vec::new(), &WriteOptions::default());
    w.write(&t.clone().into()).unwrap();
    let bytes = w.finish().unwrap();
    let chunk = Buffer::from_vec(bytes.clone());
    let range = chunk.as_ptr() as usize..chunk.as_ptr() as usize + chunk.len();
    let inside = |m: &DecodedMessage| {
        let data = m.message.as_tensor().unwrap().data().as_ptr() as usize;
        range.contains(&data)
    };

    let mut d = StreamDecoder::new(&ReadOptions::strict());
    let mut buf = chunk.clone();
    let m = d.decode(&mut buf).unwrap().unwrap();
    assert!(inside(&m), "decode copied the body");
    assert!(m.message.as_tensor().unwrap().content_eq(&t));

    let mut d = StreamDecoder::new(&ReadOptions::strict());
    d.push(chunk.clone());
    let m = d.next_message().unwrap().unwrap();
    assert!(inside(&m), "push copied the body");

    // Prefix and metadata in one chunk, the body in the next: the body is still a slice.
    let body_offset = m.body_offset;
    let head = Buffer::from_slice_ref(&bytes[..body_offset]);
    let rest = Buffer::from_slice_ref(&bytes[body_offset..]);
    let rest_range = rest.as_ptr() as usize..rest.as_ptr() as usize + rest.len();
    let mut d = StreamDecoder::new(&ReadOptions::strict());
    d.push(head);
    assert!(d.next_message().unwrap().is_none());
    assert_eq!(d.bytes_needed(), m.body_length);
    d.push(rest);
    let m = d.next_message().unwrap().unwrap();
    let data = m.message.as_tensor().unwrap().data().as_ptr() as usize;
    assert!(rest_range.contains(&data), "the body chunk was copied");

    // A body at an address that is not 8-byte aligned is gathered into aligned memory,
    // as when it arrives in pieces: refusing misaligned buffers does not depend on where
    // the stream was cut.
    let mut shifted = vec![0u8; 3];
    shifted.extend_from_slice(&bytes);
    let shifted = Buffer::from_vec(shifted).slice(3);
    let strict_no_copy = ReadOptions::strict().with_misaligned(Misaligned::Error);
    let mut d = StreamDecoder::new(&strict_no_copy);
    let mut buf = shifted.clone();
    let m = d.decode(&mut buf).unwrap().unwrap();
    let data = m.message.as_tensor().unwrap().data().as_ptr() as usize;
    assert_eq!(data % 8, 0);
    assert!(m.message.as_tensor().unwrap().content_eq(&t));
}

#[test]
fn bytes_needed_never_reaches_past_a_message() {
    let bytes = stream();
    let mut d = StreamDecoder::new(&ReadOptions::strict());
    let mut pos = 0;
    let mut messages = 0;
    let mut steps = Vec::new();
    while d.bytes_needed() > 0 {
        let n = d.bytes_needed() as usize;
        steps.push(n);
        let mut chunk = &bytes[pos..pos + n];
        pos += n;
        if d.decode_slice(&mut chunk).unwrap().is_some() {
            messages += 1;
        }
        assert!(chunk.is_empty());
    }
    assert_eq!(messages, 7);
    assert_eq!(pos, bytes.len());
    // Continuation marker, metadata length, metadata, body.
    assert_eq!(steps[..2], [4, 4]);
    assert!(d.is_finished());
}

#[test]
fn pushed_messages_come_out_before_later_ones() {
    let bytes = stream();
    let first_len = by_reader(&bytes, ReadOptions::strict())[1]
        .split(' ')
        .next()
        .unwrap()
        .parse::<usize>()
        .unwrap();
    let mut d = StreamDecoder::new(&ReadOptions::strict());
    d.push(Buffer::from_slice_ref(&bytes[..first_len + 3]));
    let mut rest = Buffer::from_slice_ref(&bytes[first_len + 3..]);
    let m = d.decode(&mut rest).unwrap().unwrap();
    assert_eq!(m.offset, 0, "the pushed message first");
    assert_eq!(
        rest.len(),
        bytes.len() - first_len - 3,
        "nothing consumed yet"
    );
    let m = d.decode(&mut rest).unwrap().unwrap();
    assert_eq!(m.offset, first_len as u64);
}

#[test]
fn errors_carry_their_offset_and_stop_the_decoder() {
    let good = stream();
    let good = &good[..good.len() - 8]; // without the marker
    let (mut dense, body) = crafted_dense();
    dense.vt = Vt::Utf8;
    let bad = common::dense_msg(&dense, &body);
    let mut bytes = good.to_vec();
    bytes.extend_from_slice(&bad);
    bytes.extend_from_slice(good);
    let expected = by_reader(&bytes, ReadOptions::strict());
    assert_eq!(expected.len(), 8);
    assert!(
        expected[7].starts_with("error UnsupportedValueType")
            && expected[7].ends_with(&format!("at Some({})", good.len())),
        "{}",
        expected[7]
    );
    chunkings(&bytes, ReadOptions::strict(), 20);

    let mut d = StreamDecoder::new(&ReadOptions::strict());
    d.push(Buffer::from_vec(bytes));
    for _ in 0..7 {
        d.next_message().unwrap().unwrap();
    }
    let e = d.next_message().unwrap_err();
    assert_eq!(e.message_offset(), Some(good.len() as u64));
    assert!(d.is_finished());
    assert!(d.next_message().unwrap().is_none());
    d.push(Buffer::from_slice_ref(good));
    assert!(d.next_message().unwrap().is_none());
    d.finish().unwrap();
}

#[test]
fn finish_reports_the_part_cut_short() {
    let (s, body) = crafted_csr();
    let msg = sparse_msg(&s, &body);
    let meta_len = i32::from_le_bytes(msg[4..8].try_into().unwrap()) as usize;
    let body_len = msg.len() - 8 - meta_len;
    let mut second = msg.clone();
    second.extend_from_slice(&msg);
    let at = msg.len();
    for (cut, part, needed, available) in [
        (at + 2, "prefix", 4, 2),
        (at + 6, "prefix", 8, 6),
        (at + 8, "metadata", meta_len, 0),
        (at + 20, "metadata", meta_len, 12),
        (at + 8 + meta_len, "body", body_len, 0),
        (second.len() - 1, "body", body_len, body_len - 1),
    ] {
        let mut d = StreamDecoder::new(&ReadOptions::strict());
        d.push(Buffer::from_slice_ref(&second[..cut]));
        assert!(d.next_message().unwrap().is_some());
        assert!(d.next_message().unwrap().is_none());
        assert!(!d.is_finished());
        let e = d.finish().unwrap_err();
        assert_eq!(e.message_offset(), Some(at as u64), "cut {cut}");
        match e.kind() {
            ErrorKind::Truncated {
                part: p,
                needed: n,
                available: a,
            } => assert_eq!(
                (*p, *n, *a),
                (part, needed as u64, available as u64),
                "cut {cut}"
            ),
            k => panic!("cut {cut}: {k:?}"),
        }
        assert!(d.is_finished());
    }
}

/// A minimal dense message claiming a `body_len`-byte body, followed by `present` bytes.
fn tiny_dense(body_len: i64, present: usize) -> Vec<u8> {
    let d = craft::Dense {
        version: 4,
        vt: Vt::Int(8, true),
        shape: vec![],
        names: vec![],
        strides: None,
        data: (0, 0),
        body_len,
        custom_metadata: false,
    };
    craft::frame(&craft::dense(&d), &vec![1; present], true, 8)
}

#[test]
fn memory_follows_the_bytes_pushed() {
    const MIB: usize = 1 << 20;
    let unlimited =
        ReadOptions::default().with_limits(Limits::default().with_max_body_len(u64::MAX));
    // 2^40 and i64::MAX claimed, a few bytes present.
    for claim in [1i64 << 40, i64::MAX] {
        let tiny = tiny_dense(claim, 4);
        let peak = counting::peak_of(|| {
            for chunks in [tiny.chunks(tiny.len()), tiny.chunks(1)] {
                let mut d = StreamDecoder::new(&unlimited);
                for c in chunks {
                    d.push(Buffer::from_slice_ref(c));
                }
                assert!(d.next_message().unwrap().is_none());
                assert_eq!(d.bytes_needed(), claim as u64 - 4);
                let e = d.finish().unwrap_err();
                assert!(
                    matches!(
                        e.kind(),
                        ErrorKind::Truncated {
                            part: "body",
                            available: 4,
                            ..
                        }
                    ),
                    "{e}"
                );
            }
        });
        assert!(peak < MIB, "claim {claim}: peak {peak} bytes");
        // Under the default limit the claim is refused as soon as the metadata is in.
        let mut d = StreamDecoder::new(&ReadOptions::default());
        d.push(Buffer::from_slice_ref(&tiny));
        let e = d.next_message().unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LimitExceeded {
                    what: "bodyLength",
                    ..
                }
            ),
            "{e}"
        );
    }
    // 1 GiB claimed, 5 MiB arriving in 64 KiB chunks: memory grows with what arrived.
    let five = tiny_dense(1 << 30, 5 * MIB);
    let peak = counting::peak_of(|| {
        let mut d = StreamDecoder::new(&ReadOptions::default());
        for c in five.chunks(64 << 10) {
            d.push(Buffer::from_slice_ref(c));
        }
        let e = d.finish().unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Truncated { available, .. } if *available == 5 << 20),
            "{e}"
        );
    });
    assert!(peak <= 16 * MIB, "5 MiB pushed: peak {peak} bytes");
    // A 60 MiB metadata length with 10 bytes present.
    let mut meta_claim = vec![0xFF; 4];
    meta_claim.extend_from_slice(&(60i32 << 20).to_le_bytes());
    meta_claim.extend_from_slice(&[0; 10]);
    let peak = counting::peak_of(|| {
        let mut d = StreamDecoder::new(&ReadOptions::default());
        d.push(Buffer::from_slice_ref(&meta_claim));
        assert_eq!(d.bytes_needed(), (60 << 20) - 10);
        let e = d.finish().unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Truncated {
                    part: "metadata",
                    available: 10,
                    ..
                }
            ),
            "{e}"
        );
    });
    assert!(peak < MIB, "metadata claim: peak {peak} bytes");
    // Over the metadata limit: refused from the prefix alone.
    let mut d = StreamDecoder::new(
        &ReadOptions::default().with_limits(Limits::default().with_max_metadata_len(1024)),
    );
    d.push(Buffer::from_slice_ref(&meta_claim[..8]));
    let e = d.next_message().unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LimitExceeded {
                what: "metadata length",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.message_offset(), Some(0));
}
