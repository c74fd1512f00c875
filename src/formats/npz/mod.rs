//! `.npz` archives: scipy sparse bundles (`scipy.sparse.save_npz` / `load_npz`), read into
//! one [`SparseTensor`](crate::SparseTensor) message and written from one, and bundles of
//! named arrays (`numpy.savez`, `numpy.savez_compressed`), read into one dense [`Tensor`]
//! message per member and written from dense messages: [`read`] and [`write()`] take either
//! kind; [`BundleWriter`] writes a bundle of named arrays a message at a time.
//!
//! A scipy sparse bundle is a zip archive of `.npy` members: `format.npy` (the bytes `csr`,
//! `csc` or `coo`; `bsr` and `dia` are refused), `shape.npy`, `data.npy` (the values), and
//! `indices.npy` + `indptr.npy` (CSR/CSC) or `row.npy` + `col.npy` (2-d COO, what scipy 1.17
//! writes for `coo_matrix` and `coo_array`) or `coords.npy` (n-d COO, an `(ndim, nnz)`
//! array). Other members (such as scipy's `_is_array.npy`) are ignored. An archive with a
//! `format.npy` member of text is read as such a bundle (as `load_npz` does); any other is
//! a bundle of named arrays, each member's name
//! kept in its message's [`CustomMetadata`](crate::CustomMetadata) under
//! [`NAME_KEY`](crate::NAME_KEY). Members may be stored or
//! deflate-compressed.
//!
//! The zip container is handled by the `zip` crate that `npyz` brings (`npyz::zip`); each
//! member's `.npy` content by [`super::npy`]. Before a member is read its declared
//! uncompressed size is checked: against [`Limits::max_body_len`], and against what its
//! compressed bytes could hold (a stored member is as long as its compressed size, a
//! deflated one at most 1032 times as long, and the compressed size at most the archive's
//! length), so that a lying or bomb-like entry is refused before memory is reserved for
//! it; the member is then read through a `take` of that size and must be exactly that long.
//! The values and index arrays are the members' own bytes (no copy after decompression
//! when aligned). The tensor is validated strictly by the [`SparseTensor`](crate::SparseTensor) constructors
//! (so a CSR/CSC whose indices are not sorted within each row/column is refused; a COO
//! may hold duplicates).

// Untrusted input: no panicking shortcuts (enforced by clippy in CI).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::npy;
use crate::array::IndexArray;
use crate::codec::{Limits, Message};
use crate::error::{ErrorKind, Location, Result};
use crate::tensor::Tensor;
use crate::types::{IndexType, ValueType};
use arrow_buffer::Buffer;
use npyz::zip;
use std::io::{Read, Seek, SeekFrom};

mod bundle;
mod sparse;

pub use bundle::BundleWriter;

/// The largest ratio of uncompressed to compressed size that deflate reaches (1032:1),
/// plus slack for tiny members.
const DEFLATE_MAX_RATIO: u64 = 1032;
const DEFLATE_SLACK: u64 = 1024;

fn member_error(name: &str, reason: impl Into<String>) -> crate::Error {
    ErrorKind::Parse {
        format: "npz",
        location: Location::Member(name.to_string()),
        reason: reason.into(),
    }
    .into()
}

/// Options of [`read`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct NpzReadOptions {
    /// Size limits: `max_body_len` per member and for all members of a bundle together,
    /// `max_rank`, `max_nnz`, and the `.npy` limits of each member.
    pub limits: Limits,
}

impl NpzReadOptions {
    /// Sets [`NpzReadOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

/// Options of [`write()`] and [`BundleWriter`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct NpzWriteOptions {
    /// Deflate-compress the members (as `save_npz(..., compressed=True)`, numpy's
    /// `savez_compressed`); default `false`, stored members (as `compressed=False`).
    pub compressed: bool,
}

impl NpzWriteOptions {
    /// Sets [`NpzWriteOptions::compressed`].
    pub fn with_compressed(mut self, compressed: bool) -> Self {
        self.compressed = compressed;
        self
    }
}

/// Reads an `.npz` archive into messages: a scipy sparse bundle (one holding a
/// `format.npy` member of text, as `scipy.sparse.save_npz` writes it) gives its one
/// sparse tensor; any other archive is a bundle of named arrays (`numpy.savez`,
/// `numpy.savez_compressed`) and gives one dense [`Tensor`] per member, in archive order,
/// each with its name (the member's file name without `.npy`, the key `numpy.load` gives
/// it) in its custom metadata under [`NAME_KEY`](crate::NAME_KEY) ([`Message::name`]).
///
/// `data` is anything that becomes an Arrow [`Buffer`] (a `Vec<u8>`, `bytes::Bytes` such as
/// a memory map, a `Buffer`: no copy; a `&[u8]`: copied).
///
/// A scipy bundle's values may be of any of the 11 value types, its indices of any integer
/// type (scipy writes int32 or int64); the tensor is validated strictly. A missing or
/// malformed member (bad `.npy` content, a wrong dtype or rank, a size that its zip entry
/// cannot back) is an [`ErrorKind::Parse`] with [`Location::Member`]; an archive that is
/// not a zip is a `Parse` error at [`Location::File`]; an index that breaks the layout's
/// rules is reported by the crate's validation ([`ErrorKind::InvalidIndptr`],
/// [`ErrorKind::IndexOutOfBounds`], ...).
///
/// Each member of a bundle of named arrays must be a `.npy` of one of the 11 numeric
/// dtypes ([`super::npy`]): an object array (`|O`, whose elements are pickled Python
/// objects), a pickle, a bool or string array, or anything else is an [`ErrorKind::Parse`]
/// naming the member (pickles are never loaded). Directory entries are skipped; two
/// members of the same name are refused.
///
/// Sizes are checked before anything is read: every member's declared size (at most
/// [`Limits::max_body_len`] and what its compressed bytes can inflate to; inflation stops
/// at the declared size), the members' compressed sizes together at most the archive's
/// length (members sharing compressed bytes, the trick of overlapping zip bombs, are
/// refused), and their declared sizes together at most [`Limits::max_body_len`]; a scipy
/// bundle's rank and nnz against `max_rank` and `max_nnz` ([`ErrorKind::LimitExceeded`]).
/// Each array is then read zero-copy from its member's bytes when aligned and
/// little-endian.
///
/// ```
/// use arrow_tensor_ipc::formats::npz;
/// use arrow_tensor_ipc::{CustomMetadata, Message, SparseTensor, Tensor, NAME_KEY};
/// use std::io::Cursor;
///
/// // A bundle of named arrays.
/// let w = Tensor::from_vec(vec![2, 2], vec![0.5f32, 1.5, 2.5, 3.5])?;
/// let ids = Tensor::from_vec(vec![3], vec![7i64, 8, 9])?;
/// let messages = [
///     Message::from(w).with_custom_metadata(CustomMetadata::new([(NAME_KEY, "weights")])),
///     Message::from(ids), // unnamed: written as arr_0, as numpy.savez names it
/// ];
/// let mut file = Cursor::new(Vec::new());
/// npz::write(&messages, &mut file, &npz::NpzWriteOptions::default().with_compressed(true))?;
/// let back = npz::read(file.into_inner(), &npz::NpzReadOptions::default())?;
/// assert_eq!(back.len(), 2);
/// assert_eq!(back[0].name(), Some("weights"));
/// assert_eq!(back[1].name(), Some("arr_0"));
/// assert_eq!(back[1].as_tensor().unwrap().to_vec::<i64>()?, vec![7, 8, 9]);
///
/// // A scipy sparse bundle: one sparse message.
/// let csr = SparseTensor::csr([3, 4], vec![0i32, 1, 1, 3], vec![2, 0, 3], vec![1.5f64, -2.0, 4.0])?;
/// let mut file = Cursor::new(Vec::new());
/// npz::write(&[Message::from(csr.clone())], &mut file, &npz::NpzWriteOptions::default())?;
/// let back = npz::read(file.into_inner(), &npz::NpzReadOptions::default())?;
/// assert!(back[0].as_sparse().unwrap().content_eq(&csr));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read(data: impl Into<Buffer>, options: &NpzReadOptions) -> Result<Vec<Message>> {
    let data: Buffer = data.into();
    read_from(std::io::Cursor::new(data.as_slice()), &options.limits)
}

/// [`read`] from a seekable reader (such as a file), which is not read into memory whole.
pub(crate) fn read_from<R: Read + Seek>(reader: R, limits: &Limits) -> Result<Vec<Message>> {
    bundle::read_archive(reader, limits)
}

/// Writes messages as an `.npz` archive, the counterpart of [`read`]: one sparse message
/// as a scipy sparse bundle (a CSR, CSC or 2-d COO, as `scipy.sparse.save_npz` writes it,
/// so that `scipy.sparse.load_npz` reads it as a `csr_matrix`, `csc_matrix` or
/// `coo_matrix`), dense messages as a bundle of named arrays ([`BundleWriter`]: names from
/// [`NAME_KEY`](crate::NAME_KEY), else `arr_0`, `arr_1`, ...). Sparse messages among
/// others or a CSF tensor are an [`ErrorKind::UnsupportedLayout`], a sparse tensor of rank
/// other than 2 an [`ErrorKind::InvalidRank`], a name used twice an
/// [`ErrorKind::DuplicateName`].
///
/// A scipy bundle's members are written in scipy's order (`indices`, `indptr` or `row`,
/// `col`; then `format`, `shape`, `data`), stored or deflated per
/// [`NpzWriteOptions::compressed`]; the index arrays keep their integer type; no `_is_array`
/// member is written (wrap the result in `csr_array(...)` for an array). Dimension names
/// are dropped. See [`read`] for an example.
pub fn write<W: std::io::Write + Seek>(
    messages: &[Message],
    out: W,
    options: &NpzWriteOptions,
) -> Result<()> {
    if let [Message::SparseTensor(t)] = messages {
        return sparse::write_sparse(t, out, options);
    }
    let mut w = BundleWriter::new(out, options);
    for m in messages {
        w.write(m)?;
    }
    w.finish().map(drop)
}

/// Reads one member into memory after checking its declared size.
fn read_member<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
    archive_len: u64,
    limits: &Limits,
) -> Result<Option<Buffer>> {
    let file = match zip.by_name(name) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(member_error(name, format!("cannot open the member: {e}"))),
    };
    read_file(file, name, archive_len, limits).map(Some)
}

/// The most bytes a member's compressed bytes can inflate to, or an error for a
/// compression method other than stored and deflated.
fn most_inflated(name: &str, method: zip::CompressionMethod, compressed: u64) -> Result<u64> {
    match method {
        zip::CompressionMethod::Stored => Ok(compressed),
        zip::CompressionMethod::Deflated => Ok(compressed
            .saturating_mul(DEFLATE_MAX_RATIO)
            .saturating_add(DEFLATE_SLACK)),
        other => Err(member_error(
            name,
            format!("unsupported compression method {other:?}"),
        )),
    }
}

/// Reads an opened member after checking its declared size: against what its compressed
/// bytes can hold and against [`Limits::max_body_len`]. The read is bounded by the declared
/// size (inflation stops one byte past it) and must be exactly that long.
fn read_file(
    mut file: zip::read::ZipFile<'_>,
    name: &str,
    archive_len: u64,
    limits: &Limits,
) -> Result<Buffer> {
    let size = file.size();
    let compressed = file.compressed_size();
    if compressed > archive_len {
        return Err(member_error(
            name,
            format!("compressed size {compressed} exceeds the archive's {archive_len} bytes"),
        ));
    }
    let most = most_inflated(name, file.compression(), compressed)?;
    if size > most {
        return Err(member_error(
            name,
            format!("declared size {size} is more than its {compressed} compressed bytes can hold"),
        ));
    }
    if size > limits.max_body_len {
        return Err(ErrorKind::LimitExceeded {
            what: "npz member size",
            value: size,
            limit: limits.max_body_len,
        }
        .into());
    }
    let cap = usize::try_from(size)
        .map_err(|_| member_error(name, format!("declared size {size} is not addressable")))?;
    let mut bytes = Vec::with_capacity(cap);
    (&mut file)
        .take(size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| member_error(name, format!("cannot read the member: {e}")))?;
    if bytes.len() as u64 != size {
        return Err(member_error(
            name,
            format!("holds {} bytes, its entry declares {size}", bytes.len()),
        ));
    }
    Ok(Buffer::from_vec(bytes))
}

/// An npy-level error of a member, as a `Parse` error naming the member (limit errors keep
/// their kind).
fn in_member(name: &str, e: crate::Error) -> crate::Error {
    match e.into_kind() {
        k @ ErrorKind::LimitExceeded { .. } => k.into(),
        k => member_error(name, k.to_string()),
    }
}

/// The zip entry options of a member of `total` bytes: deflated or stored, with zip64
/// sizes when it may not fit 32 bits.
fn member_options(compressed: bool, total: u64) -> zip::write::FileOptions {
    let method = if compressed {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    zip::write::FileOptions::default()
        .compression_method(method)
        .large_file(total >= u32::MAX as u64)
}

/// Writes the archive's central directory and flushes the output; returns it.
fn finish_archive<W: std::io::Write + Seek>(mut zip: zip::ZipWriter<W>) -> Result<W> {
    let mut out = zip
        .finish()
        .map_err(|e| ErrorKind::Io(std::io::Error::other(e)))?;
    out.flush()?;
    Ok(out)
}

/// The error of a central-directory entry that cannot be opened.
fn entry_error(i: usize, e: zip::result::ZipError) -> crate::Error {
    ErrorKind::Parse {
        format: "npz",
        location: Location::File,
        reason: format!("cannot open member {i}: {e}"),
    }
    .into()
}

/// The integer type of an index member's dtype.
fn index_type(name: &str, t: ValueType) -> Result<IndexType> {
    let it = match t {
        ValueType::Int8 => IndexType::Int8,
        ValueType::Int16 => IndexType::Int16,
        ValueType::Int32 => IndexType::Int32,
        ValueType::Int64 => IndexType::Int64,
        ValueType::UInt8 => IndexType::UInt8,
        ValueType::UInt16 => IndexType::UInt16,
        ValueType::UInt32 => IndexType::UInt32,
        ValueType::UInt64 => IndexType::UInt64,
        _ => {
            return Err(member_error(
                name,
                format!("dtype {t} where integers are needed"),
            ))
        }
    };
    Ok(it)
}

struct Members<'a, R: Read + Seek> {
    zip: zip::ZipArchive<R>,
    archive_len: u64,
    limits: &'a Limits,
}

impl<R: Read + Seek> Members<'_, R> {
    fn has(&self, name: &str) -> bool {
        self.zip.file_names().any(|n| n == name)
    }

    fn buffer(&mut self, name: &str) -> Result<Buffer> {
        read_member(&mut self.zip, name, self.archive_len, self.limits)?
            .ok_or_else(|| member_error(name, "the member is missing"))
    }

    fn tensor(&mut self, name: &str) -> Result<Tensor> {
        let buffer = self.buffer(name)?;
        npy::read_tensor(buffer, self.limits).map_err(|e| in_member(name, e))
    }

    /// A one-dimensional member's data as a buffer of its value type.
    fn vector(&mut self, name: &str) -> Result<(ValueType, Buffer)> {
        let t = self.tensor(name)?;
        if t.ndim() != 1 {
            return Err(member_error(
                name,
                format!("expected a 1-d array, found shape {:?}", t.shape()),
            ));
        }
        Ok((t.value_type(), t.row_major_bytes()))
    }

    /// A one-dimensional integer member as an index array.
    fn index(&mut self, name: &str) -> Result<IndexArray> {
        let (t, buffer) = self.vector(name)?;
        IndexArray::try_new(index_type(name, t)?, buffer)
    }

    /// Whether `format.npy` holds text (a bytes or unicode dtype), as in a scipy sparse
    /// bundle; a numeric array of that name belongs to a bundle of named arrays.
    fn format_is_text(&mut self) -> Result<bool> {
        let buffer = self.buffer(FORMAT_MEMBER)?;
        let header = npy::parse_header(buffer.as_slice(), self.limits)
            .map_err(|e| in_member(FORMAT_MEMBER, e))?;
        Ok(matches!(
            header.descr.as_deref().map(str::as_bytes),
            Some([b'|', b'S', ..] | [b'<' | b'>' | b'|' | b'=', b'U', ..])
        ))
    }

    /// The text of `format.npy`: a bytes (`|S`) or unicode (`<U`/`>U`) scalar.
    fn format(&mut self) -> Result<String> {
        let name = "format.npy";
        let buffer = self.buffer(name)?;
        let bytes = buffer.as_slice();
        let header = npy::parse_header(bytes, self.limits).map_err(|e| in_member(name, e))?;
        let data = bytes.get(header.data_offset..).unwrap_or_default();
        let descr = header.descr.unwrap_or_default();
        if !header.shape.is_empty() {
            return Err(member_error(
                name,
                format!("expected a scalar, found shape {:?}", header.shape),
            ));
        }
        let text: String = match descr.as_bytes() {
            [b'|', b'S', ..] => data.iter().map(|&b| b as char).collect(),
            [o @ (b'<' | b'>'), b'U', ..] => data
                .chunks_exact(4)
                .map(|c| {
                    let a = [
                        *c.first().unwrap_or(&0),
                        *c.get(1).unwrap_or(&0),
                        *c.get(2).unwrap_or(&0),
                        *c.get(3).unwrap_or(&0),
                    ];
                    let v = if *o == b'<' {
                        u32::from_le_bytes(a)
                    } else {
                        u32::from_be_bytes(a)
                    };
                    char::from_u32(v).unwrap_or('\u{fffd}')
                })
                .collect(),
            _ => {
                return Err(member_error(
                    name,
                    format!("expected a string, found dtype {descr:?}"),
                ))
            }
        };
        let expected = descr
            .get(2..)
            .and_then(|n| n.parse::<usize>().ok())
            .map(|n| if descr.contains('U') { n * 4 } else { n });
        if expected != Some(data.len()) {
            return Err(member_error(
                name,
                format!("dtype {descr:?} with {} data bytes", data.len()),
            ));
        }
        Ok(text.trim_end_matches('\0').to_string())
    }

    fn shape(&mut self) -> Result<Vec<usize>> {
        let name = "shape.npy";
        let (t, buffer) = self.vector(name)?;
        let it = index_type(name, t)?;
        let array = IndexArray::try_new(it, buffer)?;
        if array.len() > self.limits.max_rank {
            return Err(ErrorKind::LimitExceeded {
                what: "npz rank",
                value: array.len() as u64,
                limit: self.limits.max_rank as u64,
            }
            .into());
        }
        array
            .to_i64_vec()
            .into_iter()
            .map(|d| {
                usize::try_from(d)
                    .map_err(|_| member_error(name, format!("negative dimension size {d}")))
            })
            .collect()
    }
}

/// The member whose presence makes an archive a scipy sparse bundle.
const FORMAT_MEMBER: &str = "format.npy";

/// Opens the zip archive (its central directory) and notes its length.
fn open_archive<R: Read + Seek>(mut reader: R, limits: &Limits) -> Result<Members<'_, R>> {
    let archive_len = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(0))?;
    let zip = zip::ZipArchive::new(reader).map_err(|e| ErrorKind::Parse {
        format: "npz",
        location: Location::File,
        reason: format!("not a readable zip archive: {e}"),
    })?;
    Ok(Members {
        zip,
        archive_len,
        limits,
    })
}
