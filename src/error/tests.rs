//! Display and position of errors.
use super::*;

#[test]
fn position_of_a_message_offset() {
    let e = Error::from(ErrorKind::MissingField("shape")).at(64).at(128);
    assert_eq!(e.position(), Some(Position::Message { offset: 64 }));
    assert_eq!(
        e.to_string(),
        "message at byte 64: missing required field shape"
    );
}

#[test]
fn position_of_a_file_line() {
    let e = Error::from(ErrorKind::Parse {
        format: "Matrix Market",
        location: Location::Line(7),
        reason: "bad".into(),
    });
    assert_eq!(e.position(), Some(Position::File(Location::Line(7))));
    assert_eq!(e.kind().name(), "parse");
}

#[test]
fn position_of_a_batch_column_and_row() {
    let e = Error::from(ErrorKind::NullCell {
        column: "t".into(),
        row: 3,
        what: "cell",
    })
    .at_batch(2);
    let p = e.position().unwrap_or(Position::Message { offset: 0 });
    assert_eq!(
        p,
        Position::Batch {
            batch: Some(2),
            column: Some("t".into()),
            row: Some(3)
        }
    );
    assert_eq!(p.to_string(), "record batch 2, column \"t\", row 3");
    assert!(e
        .to_string()
        .starts_with("record batch 2: column \"t\", row 3"));
}

#[test]
fn position_of_a_tensor_of_an_input() {
    let placed = |origin, source: ErrorKind| {
        Error::from(ErrorKind::InputTensorFailed {
            origin,
            source: Box::new(source.into()),
        })
    };
    // The reader's position, with the batch of the origin filled in.
    let e = placed(
        TensorOrigin::Batch { batch: 4 },
        ErrorKind::InvalidColumn {
            column: "t".into(),
            reason: "bad".into(),
        },
    );
    assert_eq!(e.kind().name(), "input_tensor_failed");
    assert_eq!(
        e.position(),
        Some(Position::Batch {
            batch: Some(4),
            column: Some("t".into()),
            row: None
        })
    );
    assert_eq!(e.to_string(), "record batch 4: column \"t\": bad");
    // The origin's position when the reader's error has none.
    let e = placed(
        TensorOrigin::Member {
            format: "npz",
            name: "a".into(),
        },
        ErrorKind::LimitExceeded {
            what: "rank",
            value: 3,
            limit: 2,
        },
    );
    assert_eq!(
        e.position(),
        Some(Position::File(Location::Member("a".into())))
    );
    assert_eq!(
        e.to_string(),
        "member \"a\" of the npz file: rank is 3, over the limit of 2"
    );
    let origins = [
        (TensorOrigin::Message { offset: 8 }, "message at byte 8"),
        (TensorOrigin::File { format: "FROSTT" }, "the FROSTT file"),
        (TensorOrigin::Dataset, "the dataset"),
    ];
    for (origin, text) in origins {
        assert_eq!(origin.to_string(), text);
    }
    let e = Error::from(ErrorKind::UnsupportedKind {
        operation: "input::Input reads",
        found: "plain text".into(),
        kinds: "tensor messages",
    });
    assert_eq!(e.kind().name(), "unsupported_kind");
    assert_eq!(
        e.to_string(),
        "plain text, not a kind input::Input reads (tensor messages)"
    );
}

#[test]
fn no_position_when_unknown() {
    let e = Error::from(ErrorKind::Overflow {
        quantity: Quantity::Stride { dim: 1 },
    });
    assert_eq!(e.position(), None);
    assert_eq!(e.kind().name(), "overflow");
    assert_eq!(
        e.to_string(),
        "the stride of dimension 1 (int64) does not fit the integers that must hold it"
    );
}

#[test]
fn error_is_one_pointer() {
    use std::mem::size_of;
    // The kind and the place sit behind one Box: an `Error` is a pointer, and a `Result`
    // of a value no larger than a pointer takes two words (`Result<()>` one, through the
    // Box's niche), whatever the size of the largest kind.
    assert_eq!(size_of::<Error>(), size_of::<usize>());
    assert_eq!(size_of::<Result<()>>(), size_of::<usize>());
    assert_eq!(size_of::<Result<u64>>(), 2 * size_of::<usize>());
    // The kinds themselves: a handful of words (three `String`s and two `u64`s at most).
    assert!(size_of::<ErrorKind>() <= 12 * size_of::<usize>());
}

#[test]
fn debug_shows_kind_and_place() {
    let e = Error::from(ErrorKind::MissingField("shape")).at(64);
    assert_eq!(
        format!("{e:?}"),
        "Error { kind: MissingField(\"shape\"), offset: Some(64), batch: None }"
    );
}

#[test]
fn typed_kinds_name_their_quantities() {
    let e = Error::from(ErrorKind::OutOfRange {
        what: "the zstd level".into(),
        value: 23,
        min: -131072,
        max: 22,
    });
    assert_eq!(e.kind().name(), "out_of_range");
    assert_eq!(e.to_string(), "the zstd level is 23, outside -131072..=22");
    let e = ErrorKind::OutOfRange {
        what: "the extent of dimension 1 of tile shape [2, 0]".into(),
        value: 0,
        min: 1,
        max: i64::MAX,
    };
    assert_eq!(
        e.to_string(),
        "the extent of dimension 1 of tile shape [2, 0] is 0, below the minimum of 1"
    );
    let e = ErrorKind::OutputTooSmall {
        operation: "EncodedMessage::write_to_uninit",
        needed: 200,
        available: 100,
    };
    assert_eq!(e.name(), "output_too_small");
    assert_eq!(
        e.to_string(),
        "EncodedMessage::write_to_uninit needs 200 bytes of output, has room for 100"
    );
    let e = ErrorKind::ReservedName {
        what: "dimension name",
        name: "tile_0".into(),
        reserved_for: "the tile partition directories (tile_<d>=<index>)",
    };
    assert_eq!(e.name(), "reserved_name");
    assert_eq!(
        e.to_string(),
        "dimension name \"tile_0\" is reserved for the tile partition directories (tile_<d>=<index>)"
    );
    let e = ErrorKind::Internal {
        invariant: "x".into(),
    };
    assert_eq!(e.name(), "internal");
    assert_eq!(
        e.to_string(),
        "internal error (a bug of arrow-tensor-ipc): x"
    );
    let e = ErrorKind::DuplicateCoordinate {
        first: 0,
        second: 2,
        coords: vec![1, 2],
    };
    assert_eq!(
        e.to_string(),
        "COO entries 0 and 2 have the same coordinates [1, 2]"
    );
}

#[test]
fn an_invalid_flatbuffer_keeps_the_verifiers_text() {
    let verifier = flatbuffers::InvalidFlatbuffer::DepthLimitReached;
    let text = verifier.to_string();
    let e = Error::from(ErrorKind::flatbuffer(verifier));
    assert_eq!(e.kind().name(), "invalid_flatbuffer");
    assert!(matches!(e.kind(), ErrorKind::InvalidFlatbuffer { reason } if *reason == text));
    assert_eq!(
        e.to_string(),
        format!("metadata is not a valid Message flatbuffer: {text}")
    );
}
