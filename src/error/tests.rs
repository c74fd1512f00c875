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
