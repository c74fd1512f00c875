//! Where an error happened and what it concerns: a buffer of a message ([`BufferId`]), a
//! place in a file ([`Location`]), a place in any input ([`Position`]), where a tensor of
//! an input comes from ([`TensorOrigin`]), and a size that does not fit its integers
//! ([`Quantity`]).

use std::fmt;

/// Names one buffer of a message, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferId {
    /// The message metadata (the `Message` flatbuffer).
    Metadata,
    /// The message body as a whole.
    Body,
    /// A dense tensor's data.
    TensorData,
    /// A sparse tensor's values.
    Values,
    /// The COO coordinate matrix.
    CooIndices,
    /// The CSR/CSC indptr array.
    CsxIndptr,
    /// The CSR/CSC indices array.
    CsxIndices,
    /// The CSF indptr array of a level.
    CsfIndptr(usize),
    /// The CSF indices array of a level.
    CsfIndices(usize),
}

impl fmt::Display for BufferId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferId::Metadata => f.write_str("metadata"),
            BufferId::Body => f.write_str("body"),
            BufferId::TensorData => f.write_str("tensor data buffer"),
            BufferId::Values => f.write_str("values buffer"),
            BufferId::CooIndices => f.write_str("COO indices buffer"),
            BufferId::CsxIndptr => f.write_str("CSX indptr buffer"),
            BufferId::CsxIndices => f.write_str("CSX indices buffer"),
            BufferId::CsfIndptr(l) => write!(f, "CSF indptr buffer of level {l}"),
            BufferId::CsfIndices(l) => write!(f, "CSF indices buffer of level {l}"),
        }
    }
}

/// Where in a file of a text or container format (Matrix Market, FROSTT, `.npy`, `.npz`)
/// an error was found, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A line of a text file (1-based).
    Line(u64),
    /// The header of the file.
    Header,
    /// A member (file) of an archive, such as `indptr.npy` of an `.npz`.
    Member(String),
    /// A byte offset in the file.
    Byte(u64),
    /// The file as a whole.
    File,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(n) => write!(f, "line {n}"),
            Location::Header => f.write_str("header"),
            Location::Member(m) => write!(f, "member {m:?}"),
            Location::Byte(b) => write!(f, "byte {b}"),
            Location::File => f.write_str("file"),
        }
    }
}

/// A size that may not fit its integer type, for [`ErrorKind::Overflow`](super::ErrorKind::Overflow).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Quantity {
    /// The number of elements of a shape.
    ElementCount {
        /// The shape.
        shape: Vec<usize>,
    },
    /// The byte size of a row-major tensor of a shape.
    ByteSize {
        /// The shape.
        shape: Vec<usize>,
    },
    /// The bytes a shape spans with given strides.
    Extent {
        /// The shape.
        shape: Vec<usize>,
        /// The strides, in bytes.
        strides: Vec<usize>,
    },
    /// The row-major strides of a shape, which a message stores as int64.
    RowMajorStrides {
        /// The shape.
        shape: Vec<usize>,
    },
    /// The stride of one dimension (int64 in a message).
    Stride {
        /// The dimension.
        dim: usize,
    },
    /// The size of one dimension.
    DimensionSize {
        /// The dimension.
        dim: usize,
        /// Its size.
        size: u64,
        /// The type it must fit (`"usize"`, `"int32"`).
        target: &'static str,
    },
    /// The byte length of a buffer.
    BufferLength(BufferId),
    /// The number of integers of a COO coordinate matrix (`nnz * ndim`).
    CooEntries,
    /// The length of a CSR/CSC indptr array (`shape[axis] + 1`).
    IndptrLength,
    /// The metadata length of a message (int32 in the prefix).
    MetadataLength,
    /// The rank of a tensor (int32 in Arrow's extension metadata).
    Rank(usize),
    /// The values of one Arrow list column (int32 offsets).
    ListValues(u64),
    /// The values per cell of a fixed-shape column (int32 list size).
    CellValues {
        /// The cell shape.
        shape: Vec<usize>,
    },
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Quantity::ElementCount { shape } => write!(f, "the element count of shape {shape:?}"),
            Quantity::ByteSize { shape } => write!(f, "the byte size of shape {shape:?}"),
            Quantity::Extent { shape, strides } => {
                write!(f, "the extent of shape {shape:?} with strides {strides:?}")
            }
            Quantity::RowMajorStrides { shape } => {
                write!(f, "the row-major strides of shape {shape:?} (int64)")
            }
            Quantity::Stride { dim } => write!(f, "the stride of dimension {dim} (int64)"),
            Quantity::DimensionSize { dim, size, target } => {
                write!(f, "size {size} of dimension {dim} ({target})")
            }
            Quantity::BufferLength(id) => write!(f, "the byte length of the {id}"),
            Quantity::CooEntries => f.write_str("the COO coordinate count nnz x ndim"),
            Quantity::IndptrLength => f.write_str("the CSR/CSC indptr length"),
            Quantity::MetadataLength => f.write_str("the metadata length (int32)"),
            Quantity::Rank(r) => write!(f, "rank {r} (int32)"),
            Quantity::ListValues(n) => write!(f, "{n} values in one list column (int32 offsets)"),
            Quantity::CellValues { shape } => {
                write!(
                    f,
                    "the values per cell of shape {shape:?} (int32 list size)"
                )
            }
        }
    }
}

/// Where an error happened, as data: see [`Error::position`](super::Error::position).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Position {
    /// A message of a stream, buffer or file, by the byte offset of its start.
    Message {
        /// Byte offset of the message.
        offset: u64,
    },
    /// A place in a file of a text or container format.
    File(Location),
    /// A record batch of an Arrow IPC stream or file, a column and a row, as far as known.
    Batch {
        /// The record batch (0-based), when the reader knows it.
        batch: Option<u64>,
        /// The column (field) name.
        column: Option<String>,
        /// The row of the batch.
        row: Option<usize>,
    },
    /// A file of a tiled dataset (relative to its directory) and a row of it, as far as
    /// known.
    DatasetFile {
        /// The file, relative to the dataset's directory.
        file: String,
        /// The row of the file (0-based).
        row: Option<u64>,
    },
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Message { offset } => write!(f, "message at byte {offset}"),
            Position::File(l) => l.fmt(f),
            Position::Batch { batch, column, row } => {
                let mut sep = "";
                if let Some(b) = batch {
                    write!(f, "record batch {b}")?;
                    sep = ", ";
                }
                if let Some(c) = column {
                    write!(f, "{sep}column {c:?}")?;
                    sep = ", ";
                }
                if let Some(r) = row {
                    write!(f, "{sep}row {r}")?;
                }
                Ok(())
            }
            Position::DatasetFile { file, row } => {
                write!(f, "dataset file {file}")?;
                if let Some(r) = row {
                    write!(f, ", row {r}")?;
                }
                Ok(())
            }
        }
    }
}

/// Where a tensor of an input comes from (as `input::InputTensors` hands it out), and
/// which tensor failed in an
/// [`ErrorKind::InputTensorFailed`](super::ErrorKind::InputTensorFailed).
///
/// Displays as the tensor is named in messages: `message at byte 64`, `record batch 2`,
/// `the npy file`, `member "a" of the npz file`, `the dataset`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TensorOrigin {
    /// A message of a stream of tensor messages, by the byte offset of its start.
    Message {
        /// Byte offset of the message.
        offset: u64,
    },
    /// A record batch (0-based) of an Arrow IPC stream or file, or of a Parquet file.
    Batch {
        /// The record batch.
        batch: u64,
    },
    /// The tensor of a file that holds one (Matrix Market, FROSTT, `.npy`, a scipy sparse
    /// `.npz`).
    File {
        /// The file's kind, as `formats::detect::FileKind::name` names it (`"Matrix
        /// Market"`, `"npy"`).
        format: &'static str,
    },
    /// A named tensor of a file that holds several: an array of a numpy `savez` bundle.
    Member {
        /// The file's kind, as for [`TensorOrigin::File`].
        format: &'static str,
        /// The tensor's name (the archive member without `.npy`).
        name: String,
    },
    /// The tensor a tiled dataset holds, reassembled from its tiles.
    Dataset,
}

impl TensorOrigin {
    /// The origin as a [`Position`], where one fits (a dataset as a whole has none).
    pub(crate) fn position(&self) -> Option<Position> {
        match self {
            TensorOrigin::Message { offset } => Some(Position::Message { offset: *offset }),
            TensorOrigin::Batch { batch } => Some(Position::Batch {
                batch: Some(*batch),
                column: None,
                row: None,
            }),
            TensorOrigin::File { .. } => Some(Position::File(Location::File)),
            TensorOrigin::Member { name, .. } => {
                Some(Position::File(Location::Member(name.clone())))
            }
            TensorOrigin::Dataset => None,
        }
    }
}

impl fmt::Display for TensorOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorOrigin::Message { offset } => write!(f, "message at byte {offset}"),
            TensorOrigin::Batch { batch } => write!(f, "record batch {batch}"),
            TensorOrigin::File { format } => write!(f, "the {format} file"),
            TensorOrigin::Member { format, name } => {
                write!(f, "member {name:?} of the {format} file")
            }
            TensorOrigin::Dataset => f.write_str("the dataset"),
        }
    }
}
