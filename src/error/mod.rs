//! The one error type of the crate.
//!
//! [`Error`] pairs an [`ErrorKind`], the variant a caller matches on, with the byte offset of
//! the message it concerns (when the error comes from decoding a stream or a buffer).

// The decode path handles untrusted bytes: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::fmt;

mod kind;
mod name;
mod places;

pub use kind::ErrorKind;
pub use places::{BufferId, Location, Position, Quantity, TensorOrigin};

/// The error type: an [`ErrorKind`] plus, when known, where it happened ([`Error::position`]).
///
/// One pointer wide (the kind and the place live in one heap allocation), so a
/// [`Result<T>`] is as small as `T` allows: `Result<()>` is one word.
pub struct Error(Box<Inner>);

/// What an [`Error`] holds.
struct Inner {
    kind: ErrorKind,
    offset: Option<u64>,
    batch: Option<u64>,
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// Consumes the error, returning its kind.
    pub fn into_kind(self) -> ErrorKind {
        self.0.kind
    }

    /// Byte offset of the message the error concerns, if known.
    pub fn message_offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// Attaches the byte offset of the message (keeps an offset already set).
    pub fn at(mut self, offset: u64) -> Self {
        self.0.offset.get_or_insert(offset);
        self
    }

    /// Attaches the number (0-based) of the record batch the error concerns (keeps one
    /// already set).
    pub fn at_batch(mut self, batch: u64) -> Self {
        self.0.batch.get_or_insert(batch);
        self
    }

    /// Where the error happened, when known: the message's byte offset in a stream, the
    /// line, header, member or byte of a file, or the record batch, column and row of an
    /// Arrow input.
    ///
    /// ```
    /// use arrow_tensor_ipc::{MessageIter, Position, ReadOptions};
    /// let tensor = arrow_tensor_ipc::Tensor::from_vec(vec![2], vec![1i32, 2])?;
    /// let mut stream = arrow_tensor_ipc::encode(&tensor.into(), &Default::default())?.to_vec();
    /// let first = stream.len() as u64;
    /// stream.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 64, 0, 0, 0]); // a truncated message
    /// let mut messages = MessageIter::new(stream, &ReadOptions::strict());
    /// assert!(messages.next().unwrap().is_ok());
    /// let e = messages.next().unwrap().unwrap_err();
    /// assert_eq!(e.position(), Some(Position::Message { offset: first }));
    /// # Ok::<(), arrow_tensor_ipc::Error>(())
    /// ```
    pub fn position(&self) -> Option<Position> {
        if let Some(offset) = self.0.offset {
            return Some(Position::Message { offset });
        }
        let (column, row) = match &self.0.kind {
            ErrorKind::Parse { location, .. } => return Some(Position::File(location.clone())),
            ErrorKind::InputTensorFailed { origin, source } => {
                return match (source.position(), origin) {
                    // A column or row of the record batch the origin names.
                    (
                        Some(Position::Batch {
                            batch: None,
                            column,
                            row,
                        }),
                        TensorOrigin::Batch { batch },
                    ) => Some(Position::Batch {
                        batch: Some(*batch),
                        column,
                        row,
                    }),
                    (Some(p), _) => Some(p),
                    (None, origin) => origin.position(),
                };
            }
            ErrorKind::Dataset { file, row, .. } => {
                return Some(Position::DatasetFile {
                    file: file.clone(),
                    row: *row,
                })
            }
            ErrorKind::DatasetFile { file, .. } => {
                return Some(Position::DatasetFile {
                    file: file.clone(),
                    row: None,
                })
            }
            ErrorKind::NullCell { column, row, .. }
            | ErrorKind::CoordinateOutOfBounds { column, row, .. } => {
                (Some(column.clone()), Some(*row))
            }
            ErrorKind::InvalidColumn { column, .. }
            | ErrorKind::ColumnLimitExceeded { column, .. } => (Some(column.clone()), None),
            _ => (None, None),
        };
        if self.0.batch.is_none() && column.is_none() {
            return None;
        }
        Some(Position::Batch {
            batch: self.0.batch,
            column,
            row,
        })
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("offset", &self.0.offset)
            .field("batch", &self.0.batch)
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Inner {
            kind,
            offset,
            batch,
        } = &*self.0;
        match (offset, batch) {
            (Some(o), _) => write!(f, "message at byte {o}: {kind}"),
            (None, Some(b)) => write!(f, "record batch {b}: {kind}"),
            (None, None) => kind.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0.kind)
    }
}

impl<E: Into<ErrorKind>> From<E> for Error {
    fn from(e: E) -> Self {
        Error(Box::new(Inner {
            kind: e.into(),
            offset: None,
            batch: None,
        }))
    }
}

impl ErrorKind {
    /// [`ErrorKind::InvalidFlatbuffer`] with the verifier's message (kept as text, so the
    /// public type does not carry the `flatbuffers` crate's error type).
    pub(crate) fn flatbuffer(e: flatbuffers::InvalidFlatbuffer) -> ErrorKind {
        ErrorKind::InvalidFlatbuffer {
            reason: e.to_string(),
        }
    }

    /// [`ErrorKind::Parquet`] with the `parquet` crate's message (kept as text, as for
    /// [`ErrorKind::flatbuffer`]).
    #[cfg(feature = "parquet")]
    pub(crate) fn parquet(e: ::parquet::errors::ParquetError) -> ErrorKind {
        ErrorKind::Parquet {
            reason: e.to_string(),
        }
    }
}

/// The accepted range of [`ErrorKind::OutOfRange`] in words: `outside 1..=22`, or the one
/// bound there is.
fn range_text(min: i64, max: i64) -> String {
    match (min, max) {
        (i64::MIN, i64::MAX) => "outside the range accepted".to_string(),
        (min, i64::MAX) => format!("below the minimum of {min}"),
        (i64::MIN, max) => format!("above the maximum of {max}"),
        (min, max) => format!("outside {min}..={max}"),
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Shorthand used inside the crate: `Err(kind.into())`.
pub(crate) fn fail<T>(kind: ErrorKind) -> Result<T> {
    Err(kind.into())
}

#[cfg(test)]
mod tests;
