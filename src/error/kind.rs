//! [`ErrorKind`]: what went wrong, one variant per rule or failure, with the fields that
//! say which value broke it.

use super::{range_text, BufferId, Error, Location, Quantity, TensorOrigin};

/// What went wrong. Match on this (through [`Error::kind`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing the underlying stream failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),

    /// The input ends before the named part of the message is complete.
    #[error("truncated {part}: needs {needed} bytes, {available} available")]
    Truncated {
        /// The prefix, metadata or body.
        part: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes present.
        available: u64,
    },

    /// The metadata length in the message prefix is negative.
    #[error("negative metadata length {0}")]
    NegativeMetadataLength(i32),

    /// The message declares a negative body length.
    #[error("negative bodyLength {0}")]
    NegativeBodyLength(i64),

    /// A size exceeds a configured limit of [`crate::Limits`].
    #[error("{what} is {value}, over the limit of {limit}")]
    LimitExceeded {
        /// Which limit.
        what: &'static str,
        /// The size found.
        value: u64,
        /// The configured limit.
        limit: u64,
    },

    /// The metadata is not a valid `Message` flatbuffer.
    #[error("metadata is not a valid Message flatbuffer: {reason}")]
    InvalidFlatbuffer {
        /// What the flatbuffers verifier found: the rule broken and the path to the field
        /// that breaks it.
        reason: String,
    },

    /// The metadata version is not V4 or V5.
    #[error("unsupported metadata version {0} (V4 = 3 and V5 = 4 are supported)")]
    UnsupportedVersion(i16),

    /// The message is not a Tensor or SparseTensor message.
    #[error("expected a Tensor or SparseTensor message, found {0}")]
    NotATensor(&'static str),

    /// A union discriminant outside the schema.
    #[error("unknown {union} discriminant {value}")]
    UnknownUnion {
        /// The union's name.
        union: &'static str,
        /// The discriminant found.
        value: u8,
    },

    /// A required field is missing.
    #[error("missing required field {0}")]
    MissingField(&'static str),

    /// The value type is not a fixed-width number that tensors may hold.
    #[error("unsupported tensor value type: {0}")]
    UnsupportedValueType(String),

    /// An index type that is not an 8/16/32/64-bit integer.
    #[error("unsupported {role} type: {found}")]
    UnsupportedIndexType {
        /// Which index array.
        role: &'static str,
        /// Description of the type found.
        found: String,
    },

    /// A negative dimension size, stride, count or offset.
    #[error("negative {what}: {value}")]
    Negative {
        /// What is negative.
        what: String,
        /// Its value.
        value: i64,
    },

    /// A size computed from a shape, a header or a message does not fit the integer type
    /// that must hold it (the machine's `usize`, or the int64/int32 of a wire format).
    #[error("{quantity} does not fit the integers that must hold it")]
    Overflow {
        /// Which size.
        quantity: Quantity,
    },

    /// Two counts that must agree do not.
    #[error("{what}: expected {expected}, found {found}")]
    CountMismatch {
        /// What is counted.
        what: String,
        /// The count required.
        expected: u64,
        /// The count present.
        found: u64,
    },

    /// A rank that the layout does not allow.
    #[error("{layout} needs {needed}, got rank {rank}")]
    InvalidRank {
        /// The layout.
        layout: &'static str,
        /// The allowed ranks.
        needed: &'static str,
        /// The rank found.
        rank: usize,
    },

    /// A buffer lies (partly) outside the message body.
    #[error("{buffer} at offset {offset} with length {length} lies outside the body of {body_length} bytes")]
    BufferOutOfBody {
        /// The buffer.
        buffer: BufferId,
        /// Its offset.
        offset: i64,
        /// Its length.
        length: i64,
        /// The body length.
        body_length: u64,
    },

    /// A buffer is shorter than its contents need.
    #[error("{buffer} has {length} bytes, needs {needed}")]
    BufferTooShort {
        /// The buffer.
        buffer: BufferId,
        /// Bytes needed.
        needed: u64,
        /// Bytes present.
        length: u64,
    },

    /// A buffer is not aligned for its element type (and copying was disabled).
    #[error("{buffer} at body offset {offset} is not aligned to {align} bytes")]
    Misaligned {
        /// The buffer.
        buffer: BufferId,
        /// Its offset.
        offset: u64,
        /// The alignment needed.
        align: usize,
    },

    /// Two buffers overlap.
    #[error("{first} and {second} overlap")]
    Overlap {
        /// One buffer.
        first: BufferId,
        /// The other.
        second: BufferId,
    },

    /// Dense strides that are not allowed.
    #[error("invalid strides {strides:?}: {reason}")]
    InvalidStrides {
        /// The strides.
        strides: Vec<i64>,
        /// The violated rule.
        reason: &'static str,
    },

    /// An index value (coordinate) outside its dimension.
    #[error("{buffer}[{position}] = {value} is out of bounds for dimension {dim} of size {bound}")]
    IndexOutOfBounds {
        /// The buffer holding it.
        buffer: BufferId,
        /// Element position within the buffer.
        position: u64,
        /// The value (as i64; u64 above i64::MAX saturates).
        value: i64,
        /// Logical dimension.
        dim: usize,
        /// Dimension size.
        bound: u64,
    },

    /// A coordinate passed to a lookup is outside the shape or has the wrong rank.
    #[error("coordinate {coords:?} is not inside shape {shape:?}")]
    CoordinateOutOfRange {
        /// The coordinate.
        coords: Vec<usize>,
        /// The shape.
        shape: Vec<usize>,
    },

    /// Entries that must be strictly increasing are not.
    #[error("{buffer}: entry {position} is not strictly greater than the one before ({rule})")]
    NotIncreasing {
        /// The buffer.
        buffer: BufferId,
        /// Position (entry number) of the offending entry.
        position: u64,
        /// The rule.
        rule: &'static str,
    },

    /// A duplicate coordinate where none is allowed.
    #[error("COO entries {first} and {second} have the same coordinates {coords:?}")]
    DuplicateCoordinate {
        /// First entry: its position in the COO index (for a dataset writer, among the
        /// entries of one tile written since its last part file).
        first: u64,
        /// Second entry, counted as `first`.
        second: u64,
        /// The coordinates both entries have.
        coords: Vec<usize>,
    },

    /// An indptr array breaks its structure rules.
    #[error("{buffer}[{position}] = {value}: {rule}")]
    InvalidIndptr {
        /// The buffer.
        buffer: BufferId,
        /// Position of the offending entry.
        position: u64,
        /// Its value.
        value: i64,
        /// The rule.
        rule: &'static str,
    },

    /// The CSF axisOrder is not a permutation of `0..ndim`.
    #[error("CSF axisOrder {0:?} is not a permutation of 0..ndim")]
    NotAPermutation(Vec<i64>),

    /// COO indicesStrides that are neither row-major nor column-major.
    #[error("COO indicesStrides {0:?} are neither row-major nor column-major")]
    InvalidCooStrides(Vec<i64>),

    /// Values of a different type than the one asked for.
    #[error("type mismatch: expected {expected}, found {found}")]
    TypeMismatch {
        /// The type asked for.
        expected: String,
        /// The type present.
        found: String,
    },

    /// An index type too narrow for what it must count, or not readable by Arrow C++.
    #[error("{role} type {index_type} cannot hold {needed}{note}")]
    IndexTypeTooNarrow {
        /// Which index array.
        role: &'static str,
        /// The type.
        index_type: crate::IndexType,
        /// The largest value it must hold.
        needed: u64,
        /// Extra explanation.
        note: &'static str,
    },

    /// A message that Arrow C++ cannot read was about to be written.
    #[error("not readable by Arrow C++: {0} (set WriteOptions::arrow_compatible = false to write it anyway)")]
    NotArrowCompatible(String),

    /// A key of a schema's metadata (such as the COO-table description) that does not hold
    /// what it must.
    #[error("schema metadata {key:?}: {reason}")]
    InvalidMetadata {
        /// The metadata key.
        key: &'static str,
        /// What is wrong.
        reason: String,
    },

    /// A buffer whose byte length is not a whole number of values of its type.
    #[error("{what} of {length} bytes is not a whole number of {width}-byte values")]
    PartialValue {
        /// The buffer (values, an index array).
        what: &'static str,
        /// Its length in bytes.
        length: u64,
        /// The width of one value.
        width: usize,
    },

    /// An operation that needs one layout (or kind of message) was given another.
    #[error("{operation} needs {expected}, got {found}")]
    UnsupportedLayout {
        /// The operation: a writer, a conversion, an integration.
        operation: &'static str,
        /// What it takes.
        expected: &'static str,
        /// What it was given.
        found: String,
    },

    /// A coordinate or index value that does not fit the index type it must be stored in.
    #[error("{what} does not fit {target}")]
    IndexDoesNotFit {
        /// Which value (a coordinate, `indptr[k] = v`, ...).
        what: String,
        /// The type it must fit.
        target: &'static str,
    },

    /// An operation that needs at least one input got none.
    #[error("{operation} needs at least one {what}")]
    Empty {
        /// The operation.
        operation: &'static str,
        /// What it needs one of.
        what: &'static str,
    },

    /// No item of the given name, or several where one must be named.
    #[error("{reason}")]
    Selection {
        /// What is missing or ambiguous, and the candidates.
        reason: String,
    },

    /// Two outputs (columns, archive members) would have the same name.
    #[error("two {what} would be named {name:?}{note}")]
    DuplicateName {
        /// What is named: columns of a COO table, members of an archive.
        what: &'static str,
        /// The name.
        name: String,
        /// How to avoid it.
        note: &'static str,
    },

    /// A library this crate integrates with refused the data.
    #[error("{library} refuses {what}: {reason}")]
    Refused {
        /// The library (`"sprs"`).
        library: &'static str,
        /// What it was given.
        what: String,
        /// Its reason.
        reason: String,
    },

    /// A number outside the range its parameter accepts (a codec level, a tile extent).
    #[error("{what} is {value}, {}", range_text(*min, *max))]
    OutOfRange {
        /// The parameter: `"the zstd level"`, `"the extent of dimension 1 of tile shape
        /// [2, 0]"`, ...
        what: String,
        /// The value given.
        value: i64,
        /// The smallest value accepted (`i64::MIN` when there is no lower bound).
        min: i64,
        /// The largest value accepted (`i64::MAX` when there is no upper bound).
        max: i64,
    },

    /// An output given to be written into is smaller than what must be written.
    #[error("{operation} needs {needed} bytes of output, has room for {available}")]
    OutputTooSmall {
        /// The operation (`"EncodedMessage::write_to_uninit"`).
        operation: &'static str,
        /// Bytes to be written.
        needed: u64,
        /// Bytes of room the output has.
        available: u64,
    },

    /// A name that is reserved for something the output holds besides the given names.
    #[error("{what} {name:?} is reserved for {reserved_for}")]
    ReservedName {
        /// What is named (`"dimension name"`).
        what: &'static str,
        /// The name given.
        name: String,
        /// What the name is reserved for.
        reserved_for: &'static str,
    },

    /// A rule this crate keeps within its own code does not hold: a bug of
    /// arrow-tensor-ipc, not of the input (please report it).
    #[error("internal error (a bug of arrow-tensor-ipc): {invariant}")]
    Internal {
        /// The rule that does not hold, and the values that break it.
        invariant: String,
    },

    /// Memory for an output could not be allocated.
    #[error("cannot allocate {bytes} bytes for {what}")]
    AllocationFailed {
        /// What the memory was for.
        what: &'static str,
        /// Bytes requested.
        bytes: u64,
    },

    /// A column of a record batch does not hold what its type or metadata says: extension
    /// metadata that is not the expected JSON, storage of the wrong type or list size, a
    /// COO table without its metadata.
    #[error("column {column:?}: {reason}")]
    InvalidColumn {
        /// The column (field) name.
        column: String,
        /// What is wrong.
        reason: String,
    },

    /// A size a record batch's metadata or storage claims (a shape, a rank, the length of
    /// an index array it would take to build) is over a limit of [`crate::Limits`] or more
    /// than the column's data can back. Checked before anything is allocated from it.
    #[error("column {column:?}: {what} is {value}, over the limit of {limit} ({rule})")]
    ColumnLimitExceeded {
        /// The column (field) name.
        column: String,
        /// What the size is.
        what: String,
        /// The size claimed.
        value: u64,
        /// The largest size accepted.
        limit: u64,
        /// The rule: the [`crate::Limits`] field, and what the data backs.
        rule: String,
    },

    /// A null where a tensor value or cell must be.
    #[error("column {column:?}, row {row}: null {what}")]
    NullCell {
        /// The column (field) name.
        column: String,
        /// The row of the column.
        row: usize,
        /// What is null: a cell, a value of a cell, a coordinate.
        what: &'static str,
    },

    /// A coordinate in a column of a COO table outside its dimension: negative, or not below
    /// the dimension's size. (A coordinate given to a lookup is
    /// [`ErrorKind::CoordinateOutOfRange`].)
    #[error(
        "column {column:?}, row {row}: coordinate {value} outside dimension {dim} of size {size}"
    )]
    CoordinateOutOfBounds {
        /// The column (field) name.
        column: String,
        /// The row of the column.
        row: usize,
        /// The coordinate (as i64; a u64 above i64::MAX saturates).
        value: i64,
        /// The dimension the column holds.
        dim: usize,
        /// The dimension's size.
        size: u64,
    },

    /// Two inputs that must agree (messages written into one column or table) differ.
    #[error("{what} differs from the first: {first} there, {found} here")]
    Inconsistent {
        /// What differs (value type, cell shape, ...) and where.
        what: String,
        /// The first input's.
        first: String,
        /// This input's.
        found: String,
    },

    /// The Arrow library (arrow-rs) failed reading or writing record batches.
    #[cfg(feature = "record-batch")]
    #[error("Arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),

    /// A file of a text or container format breaks that format's rules: a malformed line or
    /// header, a number that does not parse, a coordinate out of range, a count that
    /// disagrees with the header, a missing or malformed archive member.
    #[error("{format} {location}: {reason}")]
    Parse {
        /// The format: `"Matrix Market"`, `"FROSTT"`, `"npy"`, `"npz"`.
        format: &'static str,
        /// Where in the file.
        location: Location,
        /// What is wrong.
        reason: String,
    },

    /// A Parquet file that breaks the format's rules or a check of this crate's reader: bad
    /// magic bytes, a footer that does not fit the file, metadata that does not decode, a
    /// column chunk outside the file, a page that does not decode.
    #[error("Parquet {part}: {reason}")]
    InvalidParquet {
        /// Where in the file: `"footer"`, `"row group 2, column \"value\""`, ...
        part: String,
        /// What is wrong.
        reason: String,
    },

    /// The `parquet` crate panicked while decoding a file; the panic was contained at this
    /// crate's reader and the reader stops.
    #[error("the parquet crate panicked reading {part}: {message}")]
    ParquetPanicked {
        /// What was being read.
        part: String,
        /// The panic's message.
        message: String,
    },

    /// The `parquet` crate failed writing a file (its error's text: the crate's error type
    /// stays out of this crate's API).
    #[cfg(feature = "parquet")]
    #[error("Parquet: {reason}")]
    Parquet {
        /// What the `parquet` crate said.
        reason: String,
    },

    /// An object store refused or failed a request (feature `object-store`): `url` is the
    /// object (or prefix) and `reason` what the store or the client said (not found,
    /// forbidden, a server error after the retries, a timeout, a connection reset, a body
    /// shorter than announced).
    #[cfg(feature = "object-store")]
    #[error("object store {url}: {reason}")]
    ObjectStore {
        /// The object or prefix, as a URL.
        url: String,
        /// What failed.
        reason: String,
    },

    /// A tiled dataset (`docs/dataset-format.md`) breaks a rule of its format: a manifest
    /// that is not the JSON it must be or whose numbers disagree, a file missing or not
    /// listed, a file whose schema, metadata or row count disagrees with the manifest, a
    /// row outside its tile. `file` is the file (relative to the dataset's directory, or
    /// the directory itself) and `row` the row of that file, when the rule concerns one.
    #[error("dataset file {file}{}: {rule}", row.map(|r| format!(", row {r}")).unwrap_or_default())]
    Dataset {
        /// The file, relative to the dataset's directory (`_tensor.json` for the manifest).
        file: String,
        /// The row of the file (0-based), when the rule concerns one.
        row: Option<u64>,
        /// The rule broken.
        rule: String,
    },

    /// Reading one file of a tiled dataset failed (a truncated or corrupt Parquet file, an
    /// I/O error): `source` is the reader's error.
    #[error("dataset file {file}: {source}")]
    DatasetFile {
        /// The file, relative to the dataset's directory.
        file: String,
        /// The error of the reader.
        source: Box<Error>,
    },

    /// An input or output of a kind an operation does not take, in the words of
    /// `formats::detect::FileKind`: plain text, HDF5 or a zip archive without `.npy`
    /// members opened as an `input::Input`, an Arrow IPC file given to
    /// `formats::read_path`, a path whose extension names no format of
    /// `formats::write_path`.
    #[error("{found}, not a kind {operation} ({kinds})")]
    UnsupportedKind {
        /// The operation and its verb: `"input::Input reads"`, `"formats::write_path
        /// writes"`.
        operation: &'static str,
        /// What was found: `"plain text"`, `"a HDF5 file"`, `"m.arrow (an Arrow IPC
        /// file)"`.
        found: String,
        /// The kinds the operation takes.
        kinds: &'static str,
    },

    /// Opening or reading an input (`input::Input`) failed: `step` says what was being
    /// done (`"cannot open"`, `"cannot read"`, `"cannot copy into a temporary file (a npz
    /// input needs its whole content)"`), `source` why.
    #[error("{step}: {source}")]
    InputIo {
        /// The step that failed.
        step: String,
        /// The error of the operating system.
        source: std::io::Error,
    },

    /// Reading one tensor of an input (`input::InputTensors`) failed: `origin` says which
    /// (a record batch, the tensor of a file, a member of an `.npz` bundle), `source` is the
    /// reader's error.
    #[error("{origin}: {source}")]
    InputTensorFailed {
        /// Where the tensor comes from.
        origin: TensorOrigin,
        /// The error of the reader.
        source: Box<Error>,
    },

    /// A worker thread stopped before finishing its share of a parallel job.
    #[error("a worker thread of {job} did not finish its share")]
    WorkerFailed {
        /// The job.
        job: &'static str,
    },
}
