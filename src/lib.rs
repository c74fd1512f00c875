//! Read and write Apache Arrow **Tensor** and **SparseTensor** IPC messages (dense, COO,
//! CSR, CSC, CSF), byte-compatible with Arrow C++ and pyarrow, zero-copy and strictly
//! validated.
//!
//! Arrow defines two experimental message kinds besides record batches: a dense `Tensor`
//! and a `SparseTensor` whose index is COO, CSR/CSC or CSF. Each travels as an encapsulated
//! message (`FFFFFFFF`, metadata length, `Message` flatbuffer, body). Arrow C++ implements
//! them (deprecated since Arrow 26); pyarrow exposes only dense tensors. This crate reads
//! every such message Arrow ever wrote that is valid (including Arrow 0.15's CSR schema
//! and legacy framing), writes messages Arrow C++ reads, and treats its input as untrusted.
//!
//! # Layers
//! Data flows one way through small modules (`docs/ARCHITECTURE.md` draws the map):
//! - the flatbuffer schemas of `format/*.fbs`, compiled by flatc at build time (private);
//! - the model: [`ValueType`], [`IndexType`], [`Scalar`], [`Tensor`], [`SparseTensor`] with
//!   its [`SparseIndex`] ([`CooIndex`], [`CsxIndex`], [`CsfIndex`]) and [`IndexArray`];
//! - validation ([`Validation`]): structure always, index contents in strict mode;
//! - the sans-IO codec: [`decode_message`] / [`MessageIter`] (bytes in memory in, model
//!   out, zero-copy), [`StreamDecoder`] (byte chunks pushed in as they arrive, messages
//!   out; for async and network code) and [`encode`] (model in, [`EncodedMessage`] out);
//! - IO adapters: [`MessageReader`] over `std::io::Read` (a loop over a
//!   [`StreamDecoder`]), [`MessageWriter`] over `std::io::Write`, and `read_mmap` with the
//!   `mmap` feature;
//! - layout conversions ([`convert`]): dense, COO, CSR, CSC and CSF into one another, on
//!   several threads for large inputs;
//! - the bridge to Arrow record batches (module `record_batch`, feature `record-batch`):
//!   `arrow.fixed_shape_tensor` and `arrow.variable_shape_tensor` columns, COO tables,
//!   Arrow IPC streams and files;
//! - file formats ([`formats`], one feature each): Matrix Market `.mtx` (`matrix-market`),
//!   FROSTT `.tns` (`frostt`), NumPy `.npy` and `.npz` (`npy`);
//! - tiled datasets (module `dataset`, feature `parquet`): one tensor as a directory of
//!   Parquet COO tables cut along a grid of tiles, written and read tile by tile;
//! - inputs (module `input`, feature `input`): any input (a path, a dataset's directory,
//!   standard input) opened, its kind told, and its tensors handed out one at a time with
//!   where each came from, whatever the kind;
//! - integrations ([`integrations`]): `ndarray` arrays and `sprs` matrices (features
//!   `ndarray` and `sprs`);
//! - the `arrow-tensor` command-line tool (feature `cli`), argument handling and output
//!   formatting over `input`.
//!
//! # One pattern
//! The public API follows a few rules everywhere, so that learning one corner teaches the
//! rest:
//! - Constructors take shapes as `impl AsRef<[usize]>` (an array, a slice or a `Vec`) and
//!   are fallible: every `Tensor` and `SparseTensor` constructor, and every index
//!   constructor, returns a [`Result`] after checking what it is given.
//! - Every file format has the same two functions and two options types, named for the
//!   format: `formats::mtx::read(data, &MtxReadOptions) -> Result<Vec<Message>>` (one
//!   message for most files, several for a bundle) and
//!   `formats::mtx::write(&[Message], out, &MtxWriteOptions)`, likewise `tns`, `npy` and
//!   `npz`; `formats::read_path` and `formats::write_path` (with `FileReadOptions` and
//!   `FileWriteOptions`) pick the format from the file's content and name. Every options
//!   type has a name of its own: `ReadOptions` and `WriteOptions` are the messages'.
//! - Options structs are `#[non_exhaustive]`: start from `Default` (or a named preset such
//!   as [`ReadOptions::strict`]) and change fields with `with_*` setters. Options of readers
//!   carry [`Limits`], the bounds on what untrusted input may make the crate allocate.
//! - An operation with options has a short form with the defaults and a `_with` form that
//!   takes them: [`SparseTensor::to_dense`] / [`SparseTensor::to_dense_with`] (one
//!   implementation, [`convert::to_dense`]), [`Tensor::to_sparse`] /
//!   [`Tensor::to_sparse_with`] ([`convert::to_sparse`]), `to_ndarray` / `to_ndarray_with`,
//!   and the record-batch conversions (`coo_table_to_sparse_with`, ...); conversions take
//!   [`ConvertOptions`], which carries [`Limits`] and a thread count.
//! - Readers are `new(source, &Options)` (with `open(path, ..)` and `unsafe open_mmap(path,
//!   ..)` where a file applies); writers are `new(sink, .., &Options)` with `write` and
//!   `finish`; the record-batch writers share the trait `record_batch::BatchWriter`.
//! - Errors are data: [`Error::kind`] says what went wrong as an [`ErrorKind`] with fields,
//!   and [`Error::position`] says where as a [`Position`] (message offset, file line or
//!   archive member, record batch, column and row).
//!
//! # Example
//! ```
//! use arrow_tensor_ipc::{MessageIter, MessageWriter, ReadOptions, Scalar, SparseTensor, WriteOptions};
//!
//! // A 3 x 4 CSR matrix with three stored values.
//! let csr = SparseTensor::csr([3, 4], vec![0i32, 1, 1, 3], vec![2, 0, 3], vec![1.5f64, -2.0, 4.0])?
//!     .with_dim_names(["row", "col"])?;
//!
//! // Write it (64-byte aligned, readable by Arrow C++), then read it back zero-copy.
//! let mut writer = MessageWriter::new(Vec::new(), &WriteOptions::default());
//! writer.write(&csr.clone().into())?;
//! let bytes = bytes::Bytes::from(writer.finish()?);
//!
//! for decoded in MessageIter::new(bytes, &ReadOptions::strict()) {
//!     let decoded = decoded?;
//!     let t = decoded.message.as_sparse().unwrap();
//!     assert_eq!(t.get(&[2, 3])?, Scalar::Float64(4.0));
//!     assert_eq!(t.get(&[0, 0])?, Scalar::Float64(0.0));
//!     assert_eq!(t.values::<f64>().unwrap(), &[1.5, -2.0, 4.0]);
//!     assert!(t.content_eq(&csr));
//! }
//! # Ok::<(), arrow_tensor_ipc::Error>(())
//! ```
//!
//! # Untrusted input
//! Decoding never panics, never reads out of bounds and never allocates in proportion to a
//! size the input merely claims; every malformed input gets an [`Error`] whose
//! [`ErrorKind`] says what is wrong (which rule, buffer, index) and whose [`Position`] says
//! where (message offset, file line, record batch). Strict
//! validation ([`ReadOptions::strict`], the default) checks every rule of the format on the
//! index data; permissive validation ([`ReadOptions::permissive`]) checks only what memory
//! safety needs, and lookups then report bad index data as errors.

#![warn(missing_docs)]

mod array;
mod codec;
pub mod convert;
mod custom_metadata;
#[cfg(feature = "parquet")]
pub mod dataset;
mod error;
pub mod formats;
mod gen;
mod info;
#[cfg(feature = "input")]
pub mod input;
pub mod integrations;
mod io;
mod parallel;
#[cfg(feature = "record-batch")]
pub mod record_batch;
mod sparse;
#[cfg(feature = "object-store")]
pub mod storage;
mod tensor;
mod types;
mod validate;

pub use array::{IndexArray, Misaligned};
pub use codec::{
    decode_message, encode, BodyPart, CsfLengths, DecodedMessage, EncodedMessage, Framing, Limits,
    Message, MessageIter, MetadataVersion, ReadOptions, StreamDecoder, WriteOptions,
};
pub use convert::options::{ConvertOptions, CsfAxisOrder};
pub use custom_metadata::{CustomMetadata, NAME_KEY};
pub use error::{BufferId, Error, ErrorKind, Location, Position, Quantity, Result, TensorOrigin};
/// The half-precision float type of [`ValueType::Float16`] values (from the `half` crate).
pub use half::f16;
pub use info::TensorInfo;
#[cfg(feature = "mmap")]
pub use io::{map_file, read_mmap};
pub use io::{MessageReader, MessageWriter};
pub use sparse::{
    CompressedAxis, CooIndex, CooOrder, Coords, CsfIndex, CsxIndex, Entry, EntryIter, SparseFormat,
    SparseIndex, SparseTensor, TypedEntries,
};
pub use tensor::{column_major_strides, element_count, row_major_strides, Tensor};
#[cfg_attr(not(feature = "record-batch"), allow(unused_imports))]
pub(crate) use types::dispatch_signed;
pub(crate) use types::{dispatch_index, dispatch_value};
pub use types::{
    IndexType, IndexVisitor, NativeIndex, NativeValue, Scalar, ValueType, ValueVisitor,
};
pub use validate::Validation;

/// Items for this crate's own tests, fuzz targets and examples (the generated flatbuffer
/// code, to craft messages byte by byte). Not part of the public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::gen::legacy_015;
    pub use crate::gen::org::apache::arrow::flatbuf;
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
