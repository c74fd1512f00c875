//! `.npz` archives: scipy sparse bundles (`scipy.sparse.save_npz` / `load_npz`), read into a
//! [`SparseTensor`] and written from one, and bundles of named arrays (`numpy.savez`,
//! `numpy.savez_compressed`), read into one dense [`Tensor`] message per member and written
//! from dense messages.
//!
//! A scipy sparse bundle is a zip archive of `.npy` members: `format.npy` (the bytes `csr`,
//! `csc` or `coo`; `bsr` and `dia` are refused), `shape.npy`, `data.npy` (the values), and
//! `indices.npy` + `indptr.npy` (CSR/CSC) or `row.npy` + `col.npy` (2-d COO, what scipy 1.17
//! writes for `coo_matrix` and `coo_array`) or `coords.npy` (n-d COO, an `(ndim, nnz)`
//! array). Other members (such as scipy's `_is_array.npy`) are ignored. An archive with a
//! `format.npy` member of text is read as such a bundle (as `load_npz` does); any other is
//! a bundle of named arrays ([`read_npz_messages`], [`NpzBundleWriter`]), each member's name
//! kept in its message's [`CustomMetadata`] under [`NAME_KEY`]. Members may be stored or
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
//! when aligned). The tensor is validated strictly by the [`SparseTensor`] constructors
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
use crate::custom_metadata::{CustomMetadata, NAME_KEY};
use crate::error::{ErrorKind, Location, Result};
use crate::sparse::{CompressedAxis, CooIndex, CooOrder, CsxIndex, SparseIndex, SparseTensor};
use crate::tensor::Tensor;
use crate::types::{IndexType, ValueType};
use arrow_buffer::Buffer;
use npyz::zip;
use std::io::{Read, Seek, SeekFrom, Write};

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

/// Options of [`write_npz`], [`write_npz_messages`] and [`NpzBundleWriter`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NpzWriteOptions {
    /// Deflate-compress the members (as `save_npz(..., compressed=True)`, numpy's
    /// `savez_compressed`); default `false`, stored members (as `compressed=False`).
    pub compressed: bool,
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
        npy::read_npy_buffer(buffer, self.limits).map_err(|e| in_member(name, e))
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

/// Reads a sparse matrix (or n-d COO array) as written by `scipy.sparse.save_npz`.
///
/// Values may be of any of the 11 [`ValueType`]s, indices of any integer type (scipy
/// writes int32 or int64). The result is validated strictly. A missing member is an
/// [`ErrorKind::Parse`] with [`Location::Member`]; so is a malformed member (bad `.npy`
/// content, a wrong dtype or rank, a size that its zip entry cannot back); an archive that
/// is not a zip is a `Parse` error at [`Location::File`]; sizes over `limits` (`max_rank`,
/// `max_nnz`, `max_body_len` per member) are [`ErrorKind::LimitExceeded`]; an index that
/// breaks the layout's rules is reported by the crate's validation
/// ([`ErrorKind::InvalidIndptr`], [`ErrorKind::IndexOutOfBounds`], ...).
///
/// An archive without a `format.npy` member is a bundle of named arrays (`numpy.savez`),
/// not a sparse matrix: it is refused with an [`ErrorKind::Parse`] naming `format.npy` and
/// pointing to [`read_npz_messages`], which reads both kinds.
///
/// ```
/// use arrow_tensor_ipc::formats::npz::{read_npz, write_npz, NpzWriteOptions};
/// use arrow_tensor_ipc::{Limits, Scalar, SparseTensor};
/// use std::io::Cursor;
///
/// let csr = SparseTensor::csr([3, 4], vec![0i32, 1, 1, 3], vec![2, 0, 3], vec![1.5f64, -2.0, 4.0])?;
/// let mut file = Cursor::new(Vec::new());
/// write_npz(&csr, &mut file, &NpzWriteOptions { compressed: true })?;
///
/// file.set_position(0);
/// let back = read_npz(file, &Limits::default())?;
/// assert_eq!(back.get(&[2, 3])?, Scalar::Float64(4.0));
/// assert!(back.content_eq(&csr));
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_npz<R: Read + Seek>(reader: R, limits: &Limits) -> Result<SparseTensor> {
    let mut m = open_archive(reader, limits)?;
    if !m.has(FORMAT_MEMBER) {
        return Err(member_error(
            FORMAT_MEMBER,
            "the member is missing: this is not a scipy sparse bundle but a bundle of named \
             arrays (numpy.savez); read it with read_npz_messages",
        ));
    }
    read_sparse(&mut m)
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

/// Reads a scipy sparse bundle.
fn read_sparse<R: Read + Seek>(m: &mut Members<'_, R>) -> Result<SparseTensor> {
    let limits = m.limits;
    let format = m.format()?;
    let axis = match format.as_str() {
        "csr" => Some(CompressedAxis::Row),
        "csc" => Some(CompressedAxis::Column),
        "coo" => None,
        "bsr" | "dia" => {
            return Err(member_error(
                "format.npy",
                format!(
                    "scipy format {format:?} is not supported (save it as .tocsr() or .tocoo())"
                ),
            ))
        }
        other => {
            return Err(member_error(
                "format.npy",
                format!("unknown sparse format {other:?}"),
            ))
        }
    };
    let shape = m.shape()?;
    let (value_type, values) = m.vector("data.npy")?;
    let nnz = values.len() / value_type.byte_width();
    if nnz as u64 > limits.max_nnz {
        return Err(ErrorKind::LimitExceeded {
            what: "npz nnz",
            value: nnz as u64,
            limit: limits.max_nnz,
        }
        .into());
    }
    if let Some(axis) = axis {
        if shape.len() != 2 {
            return Err(member_error(
                "shape.npy",
                format!("{format} needs a 2-d shape, found {shape:?}"),
            ));
        }
        let indptr = m.index("indptr.npy")?;
        let indices = m.index("indices.npy")?;
        if indptr.index_type() != indices.index_type() {
            return Err(member_error(
                "indices.npy",
                format!(
                    "dtype {} differs from indptr.npy's {}",
                    indices.index_type(),
                    indptr.index_type()
                ),
            ));
        }
        let index = CsxIndex::new(axis, indptr, indices);
        return SparseTensor::try_new(value_type, shape, values, SparseIndex::Csx(index));
    }
    let ndim = shape.len();
    let coords = if m.has("coords.npy") {
        let name = "coords.npy";
        let t = m.tensor(name)?;
        if t.shape() != [ndim, nnz] {
            return Err(member_error(
                name,
                format!(
                    "shape {:?}, expected (ndim, nnz) = {:?}",
                    t.shape(),
                    [ndim, nnz]
                ),
            ));
        }
        IndexArray::try_new(index_type(name, t.value_type())?, t.row_major_bytes())?
    } else {
        if ndim != 2 {
            return Err(member_error(
                "coords.npy",
                format!("the member is missing (needed for a COO of shape {shape:?})"),
            ));
        }
        let row = m.index("row.npy")?;
        let col = m.index("col.npy")?;
        if row.index_type() != col.index_type() {
            return Err(member_error(
                "col.npy",
                format!(
                    "dtype {} differs from row.npy's {}",
                    col.index_type(),
                    row.index_type()
                ),
            ));
        }
        for (name, a) in [("row.npy", &row), ("col.npy", &col)] {
            if a.len() != nnz {
                return Err(member_error(
                    name,
                    format!("{} entries, data.npy has {nnz}", a.len()),
                ));
            }
        }
        // Interleaved into a row-major matrix (Arrow's usual layout) in the one copy that
        // joining the two arrays takes anyway.
        let both = crate::dispatch_index!(row.index_type(), I => {
            let (r, c) = (row.values::<I>(), col.values::<I>());
            let mut both = vec![I::default(); 2 * nnz];
            for (pair, (&x, &y)) in both
                .chunks_exact_mut(2)
                .zip(r.unwrap_or_default().iter().zip(c.unwrap_or_default()))
            {
                if let [p, q] = pair {
                    (*p, *q) = (x, y);
                }
            }
            IndexArray::from_vec(both)
        });
        return coo_tensor(value_type, shape, values, both, CooOrder::RowMajor);
    };
    // coords.npy (scipy's n-d COO, pydata/sparse) is one row per dimension: a column-major
    // matrix, kept as read (no further copy; encode writes it row-major for Arrow C++).
    coo_tensor(value_type, shape, values, coords, CooOrder::ColumnMajor)
}

/// A COO tensor read from a bundle (duplicates allowed, as scipy allows them).
fn coo_tensor(
    value_type: ValueType,
    shape: Vec<usize>,
    values: Buffer,
    coords: IndexArray,
    order: CooOrder,
) -> Result<SparseTensor> {
    let ndim = shape.len();
    let index = CooIndex::with_order(coords, ndim, order)?;
    SparseTensor::try_new_with_duplicates(value_type, shape, values, SparseIndex::Coo(index))
}

/// Reads an `.npz` archive into messages: a scipy sparse bundle (one holding a
/// `format.npy` member of text, as `scipy.sparse.save_npz` writes it) gives its one
/// [`SparseTensor`], as [`read_npz`] reads it; any other archive is a bundle of named
/// arrays (`numpy.savez`, `numpy.savez_compressed`) and gives one dense [`Tensor`] per
/// member, in archive order, each with its name (the member's file name without `.npy`,
/// the key `numpy.load` gives it) in its [`CustomMetadata`] under [`NAME_KEY`].
///
/// Each member must be a `.npy` of one of the 11 numeric dtypes ([`super::npy`]): an object
/// array (`|O`, whose elements are pickled Python objects), a pickle, a bool or string
/// array, or anything else is an [`ErrorKind::Parse`] naming the member (pickles are never
/// loaded). Directory entries are skipped; two members of the same name are refused.
///
/// Sizes are checked before anything is read: every member's declared size as for
/// [`read_npz`] (at most [`Limits::max_body_len`] and what its compressed bytes can
/// inflate to; inflation stops at the declared size), the members' compressed sizes
/// together at most the archive's length (members sharing compressed bytes, the trick of
/// overlapping zip bombs, are refused), and their declared sizes together at most
/// [`Limits::max_body_len`] ([`ErrorKind::LimitExceeded`]). Each array is then read
/// zero-copy from its member's bytes when aligned and little-endian.
///
/// ```
/// use arrow_tensor_ipc::formats::npz::{read_npz_messages, write_npz_messages, NpzWriteOptions};
/// use arrow_tensor_ipc::{CustomMetadata, Limits, Message, Tensor, NAME_KEY};
/// use std::io::Cursor;
///
/// let w = Tensor::from_vec(vec![2, 2], vec![0.5f32, 1.5, 2.5, 3.5])?;
/// let ids = Tensor::from_vec(vec![3], vec![7i64, 8, 9])?;
/// let messages = [
///     Message::from(w).with_custom_metadata(CustomMetadata::new([(NAME_KEY, "weights")])),
///     Message::from(ids), // unnamed: written as arr_0, as numpy.savez names it
/// ];
/// let mut file = Cursor::new(Vec::new());
/// write_npz_messages(&messages, &mut file, &NpzWriteOptions { compressed: true })?;
///
/// let back = read_npz_messages(Cursor::new(file.into_inner()), &Limits::default())?;
/// assert_eq!(back.len(), 2);
/// assert_eq!(back[0].name(), Some("weights"));
/// assert_eq!(back[1].name(), Some("arr_0"));
/// assert_eq!(back[1].as_tensor().unwrap().to_vec::<i64>()?, vec![7, 8, 9]);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn read_npz_messages<R: Read + Seek>(reader: R, limits: &Limits) -> Result<Vec<Message>> {
    let mut m = open_archive(reader, limits)?;
    if m.has(FORMAT_MEMBER) && m.format_is_text()? {
        return Ok(vec![Message::SparseTensor(read_sparse(&mut m)?)]);
    }
    read_bundle(&mut m)
}

/// Reads every member of a bundle of named arrays as a dense message.
fn read_bundle<R: Read + Seek>(m: &mut Members<'_, R>) -> Result<Vec<Message>> {
    // First pass over the central directory: the sizes of the whole bundle.
    let count = m.zip.len();
    let (mut compressed_total, mut size_total) = (0u64, 0u64);
    let mut names = std::collections::HashSet::new();
    for i in 0..count {
        let file = m.zip.by_index_raw(i).map_err(|e| ErrorKind::Parse {
            format: "npz",
            location: Location::File,
            reason: format!("cannot open member {i}: {e}"),
        })?;
        if file.is_dir() {
            continue;
        }
        let name = file.name().to_string();
        if !names.insert(name.clone()) {
            return Err(member_error(
                &name,
                "the archive holds two members of this name",
            ));
        }
        compressed_total = compressed_total.saturating_add(file.compressed_size());
        size_total = size_total.saturating_add(file.size());
    }
    if compressed_total > m.archive_len {
        return Err(ErrorKind::Parse {
            format: "npz",
            location: Location::File,
            reason: format!(
                "the members' compressed sizes add up to {compressed_total} bytes, more than \
                 the archive's {} (members that share bytes are refused)",
                m.archive_len
            ),
        }
        .into());
    }
    if size_total > m.limits.max_body_len {
        return Err(ErrorKind::LimitExceeded {
            what: "npz bundle size (all members)",
            value: size_total,
            limit: m.limits.max_body_len,
        }
        .into());
    }
    let mut out = Vec::with_capacity(names.len());
    for i in 0..count {
        let file = m.zip.by_index(i).map_err(|e| ErrorKind::Parse {
            format: "npz",
            location: Location::File,
            reason: format!("cannot open member {i}: {e}"),
        })?;
        if file.is_dir() {
            continue;
        }
        let member = file.name().to_string();
        let bytes = read_file(file, &member, m.archive_len, m.limits)?;
        let tensor = array_member(&member, bytes, m.limits)?;
        let name = member.strip_suffix(".npy").unwrap_or(&member);
        out.push(Message::Tensor(
            tensor.with_custom_metadata(CustomMetadata::new([(NAME_KEY, name)])),
        ));
    }
    Ok(out)
}

/// A member of a bundle of named arrays as a tensor; pickles and object arrays are named as
/// such, and never loaded.
fn array_member(member: &str, bytes: Buffer, limits: &Limits) -> Result<Tensor> {
    let head = bytes.as_slice();
    // A pickle starts with the PROTO opcode (protocol 2 and later).
    if head.first() == Some(&0x80) {
        return Err(member_error(
            member,
            "a Python pickle, not a .npy array: pickles are never loaded",
        ));
    }
    let header = npy::parse_header(head, limits).map_err(|e| in_member(member, e))?;
    if let Some(d) = header.descr.as_deref() {
        if d.ends_with('O') {
            return Err(member_error(
                member,
                format!(
                    "an object array (dtype {d:?}): its elements are pickled Python objects, \
                     which are never loaded"
                ),
            ));
        }
    }
    npy::read_npy_buffer(bytes, limits).map_err(|e| in_member(member, e))
}

/// Writes dense tensors as a bundle of named arrays (`numpy.savez` /
/// `numpy.savez_compressed`), one member at a time, for [`numpy.load`] to read.
///
/// Each tensor becomes a `.npy` member (see [`super::npy::write_npy`]: C or Fortran order
/// straight from its buffer, other layouts as a row-major copy; dimension names dropped)
/// named `NAME.npy`, where `NAME` is the name given to [`NpzBundleWriter::write_tensor`]
/// (by [`NpzBundleWriter::write`]: the message's [`NAME_KEY`] metadata) or, for an unnamed
/// one, `arr_0`, `arr_1`, ... counted over the unnamed tensors, as `numpy.savez` names its
/// positional arguments. A name used twice is an [`ErrorKind::InvalidArgument`].
///
/// [`numpy.load`]: https://numpy.org/doc/stable/reference/generated/numpy.load.html
pub struct NpzBundleWriter<W: Write + Seek> {
    zip: zip::ZipWriter<W>,
    compressed: bool,
    names: std::collections::HashSet<String>,
    unnamed: usize,
}

impl<W: Write + Seek> NpzBundleWriter<W> {
    /// A writer of a bundle into `out` (members stored, or deflated per
    /// [`NpzWriteOptions::compressed`]).
    pub fn new(out: W, options: &NpzWriteOptions) -> Self {
        NpzBundleWriter {
            zip: zip::ZipWriter::new(out),
            compressed: options.compressed,
            names: std::collections::HashSet::new(),
            unnamed: 0,
        }
    }

    /// Writes a dense message as a member named by its [`Message::name`]; returns the
    /// name. A sparse message is an [`ErrorKind::InvalidArgument`] (a bundle holds dense
    /// arrays: expand it first).
    pub fn write(&mut self, message: &Message) -> Result<String> {
        match message {
            Message::Tensor(t) => self.write_tensor(message.name(), t),
            Message::SparseTensor(_) => Err(ErrorKind::InvalidArgument(
                "a .npz bundle of named arrays holds dense arrays; this message is sparse \
                 (expand it to dense first, or write it alone as a scipy sparse bundle)"
                    .into(),
            )
            .into()),
        }
    }

    /// Writes a tensor as the member `NAME.npy` (`name`, else the next `arr_N`); returns
    /// the name.
    pub fn write_tensor(&mut self, name: Option<&str>, tensor: &Tensor) -> Result<String> {
        let name = match name {
            Some(n) => n.to_string(),
            None => {
                self.unnamed += 1;
                format!("arr_{}", self.unnamed - 1)
            }
        };
        if self.names.contains(&name) {
            return Err(ErrorKind::InvalidArgument(format!(
                "two arrays of the bundle are named {name:?}"
            ))
            .into());
        }
        let total = (tensor.len() as u64)
            .saturating_mul(tensor.value_type().byte_width() as u64)
            .saturating_add(1 << 16);
        let method = if self.compressed {
            zip::CompressionMethod::Deflated
        } else {
            zip::CompressionMethod::Stored
        };
        let file_options = zip::write::FileOptions::default()
            .compression_method(method)
            .large_file(total >= u32::MAX as u64);
        self.zip
            .start_file(format!("{name}.npy"), file_options)
            .map_err(|e| ErrorKind::Io(std::io::Error::other(e)))?;
        npy::write_npy(tensor, &mut self.zip)?;
        self.names.insert(name.clone());
        Ok(name)
    }

    /// Writes the archive's central directory; returns the output.
    pub fn finish(mut self) -> Result<W> {
        let mut out = self
            .zip
            .finish()
            .map_err(|e| ErrorKind::Io(std::io::Error::other(e)))?;
        out.flush()?;
        Ok(out)
    }
}

/// Writes messages as an `.npz` archive, the counterpart of [`read_npz_messages`]: one
/// sparse message as a scipy sparse bundle ([`write_npz`]), dense messages as a bundle of
/// named arrays ([`NpzBundleWriter`]: names from [`NAME_KEY`], else `arr_0`, `arr_1`, ...).
/// Sparse messages among others, or a name used twice, are an
/// [`ErrorKind::InvalidArgument`]. See [`read_npz_messages`] for an example.
pub fn write_npz_messages<'a, W: Write + Seek>(
    messages: impl IntoIterator<Item = &'a Message>,
    out: W,
    options: &NpzWriteOptions,
) -> Result<()> {
    let messages: Vec<&Message> = messages.into_iter().collect();
    if let [Message::SparseTensor(t)] = messages.as_slice() {
        return write_npz(t, out, options);
    }
    let mut w = NpzBundleWriter::new(out, options);
    for m in messages {
        w.write(m)?;
    }
    w.finish().map(drop)
}

/// Writes one `.npy` member: header, then the little-endian data of a 1-d or scalar array.
fn write_member<W: Write + Seek>(
    zip: &mut zip::ZipWriter<W>,
    options: &NpzWriteOptions,
    name: &str,
    descr: &str,
    shape: &[usize],
    data: &[u8],
) -> Result<()> {
    let header = npy::header_bytes(descr, false, shape);
    let total = header.len() as u64 + data.len() as u64;
    let method = if options.compressed {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let file_options = zip::write::FileOptions::default()
        .compression_method(method)
        .large_file(total >= u32::MAX as u64);
    zip.start_file(name, file_options)
        .map_err(|e| ErrorKind::Io(std::io::Error::other(e)))?;
    zip.write_all(&header)?;
    zip.write_all(data)?;
    Ok(())
}

fn index_descr(t: IndexType) -> &'static str {
    npy::descr_of(ValueType::from_index_type(t))
}

/// Writes a CSR, CSC or 2-d COO [`SparseTensor`] as `scipy.sparse.save_npz` does, so that
/// `scipy.sparse.load_npz` reads it (as a `csr_matrix`, `csc_matrix` or `coo_matrix`: no
/// `_is_array` member is written; wrap the result in `csr_array(...)` for an array).
///
/// Members are written in scipy's order (`indices`, `indptr` or `row`, `col`; then
/// `format`, `shape`, `data`), stored or deflated per [`NpzWriteOptions::compressed`];
/// the index arrays keep their integer type. Dimension names are dropped. A CSF tensor or
/// a COO of rank other than 2 is refused with [`ErrorKind::InvalidArgument`].
///
/// ```
/// use arrow_tensor_ipc::formats::npz::{read_npz, write_npz, NpzWriteOptions};
/// use arrow_tensor_ipc::{Limits, SparseTensor};
/// use std::io::Cursor;
///
/// let coo = SparseTensor::coo(&[2, 3], vec![0i64, 2, 1, 0], vec![7u8, 9])?;
/// let mut file = Cursor::new(Vec::new());
/// write_npz(&coo, &mut file, &NpzWriteOptions::default())?;
/// let back = read_npz(Cursor::new(file.into_inner()), &Limits::default())?;
/// assert_eq!(back.to_dense()?.to_vec::<u8>()?, vec![0, 0, 7, 9, 0, 0]);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
pub fn write_npz<W: Write + Seek>(
    tensor: &SparseTensor,
    out: W,
    options: &NpzWriteOptions,
) -> Result<()> {
    if tensor.ndim() != 2 {
        return Err(ErrorKind::InvalidArgument(format!(
            "scipy .npz holds 2-d matrices; this tensor has rank {}",
            tensor.ndim()
        ))
        .into());
    }
    let mut zip = zip::ZipWriter::new(out);
    let format = match tensor.index() {
        SparseIndex::Csx(c) => {
            let it = c.indices().index_type();
            let indptr = c.indptr();
            let indptr_descr = index_descr(indptr.index_type());
            write_member(
                &mut zip,
                options,
                "indices.npy",
                index_descr(it),
                &[c.indices().len()],
                c.indices().buffer().as_slice(),
            )?;
            write_member(
                &mut zip,
                options,
                "indptr.npy",
                indptr_descr,
                &[indptr.len()],
                indptr.buffer().as_slice(),
            )?;
            if c.axis() == CompressedAxis::Row {
                "csr"
            } else {
                "csc"
            }
        }
        SparseIndex::Coo(c) => {
            let it = c.indices().index_type();
            let w = it.byte_width();
            let nnz = c.nnz();
            let bytes = c.indices().buffer().as_slice();
            let (row, col): (Vec<u8>, Vec<u8>) = match c.order() {
                CooOrder::ColumnMajor => (
                    bytes.get(..nnz * w).unwrap_or_default().to_vec(),
                    bytes.get(nnz * w..2 * nnz * w).unwrap_or_default().to_vec(),
                ),
                CooOrder::RowMajor => {
                    let mut row = Vec::with_capacity(nnz * w);
                    let mut col = Vec::with_capacity(nnz * w);
                    for pair in bytes.chunks_exact(2 * w) {
                        let (r, c) = pair.split_at(w);
                        row.extend_from_slice(r);
                        col.extend_from_slice(c);
                    }
                    (row, col)
                }
            };
            write_member(&mut zip, options, "row.npy", index_descr(it), &[nnz], &row)?;
            write_member(&mut zip, options, "col.npy", index_descr(it), &[nnz], &col)?;
            "coo"
        }
        SparseIndex::Csf(_) => {
            return Err(ErrorKind::InvalidArgument(
                "scipy .npz has no CSF layout: convert to CSR, CSC or COO first".into(),
            )
            .into())
        }
    };
    write_member(
        &mut zip,
        options,
        "format.npy",
        "|S3",
        &[],
        format.as_bytes(),
    )?;
    let shape: Vec<u8> = tensor
        .shape()
        .iter()
        .flat_map(|&d| (d as i64).to_le_bytes())
        .collect();
    write_member(&mut zip, options, "shape.npy", "<i8", &[2], &shape)?;
    let vt = tensor.value_type();
    let values = tensor.values_buffer();
    let n = tensor.nnz() * vt.byte_width();
    write_member(
        &mut zip,
        options,
        "data.npy",
        npy::descr_of(vt),
        &[tensor.nnz()],
        values.as_slice().get(..n).unwrap_or_default(),
    )?;
    let mut out = zip
        .finish()
        .map_err(|e| ErrorKind::Io(std::io::Error::other(e)))?;
    out.flush()?;
    Ok(())
}
