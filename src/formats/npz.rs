//! scipy sparse `.npz` bundles (`scipy.sparse.save_npz` / `load_npz`), read into a
//! [`SparseTensor`] and written from one.
//!
//! Such a file is a zip archive of `.npy` members: `format.npy` (the bytes `csr`, `csc` or
//! `coo`; `bsr` and `dia` are refused), `shape.npy`, `data.npy` (the values), and
//! `indices.npy` + `indptr.npy` (CSR/CSC) or `row.npy` + `col.npy` (2-d COO, what scipy 1.17
//! writes for `coo_matrix` and `coo_array`) or `coords.npy` (n-d COO, an `(ndim, nnz)`
//! array). Other members (such as scipy's `_is_array.npy`) are ignored. Members may be
//! stored or deflate-compressed.
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
use crate::codec::Limits;
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

/// Options of [`write_npz`].
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
    let mut file = match zip.by_name(name) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(member_error(name, format!("cannot open the member: {e}"))),
    };
    let size = file.size();
    let compressed = file.compressed_size();
    if compressed > archive_len {
        return Err(member_error(
            name,
            format!("compressed size {compressed} exceeds the archive's {archive_len} bytes"),
        ));
    }
    let most = match file.compression() {
        zip::CompressionMethod::Stored => compressed,
        zip::CompressionMethod::Deflated => compressed
            .saturating_mul(DEFLATE_MAX_RATIO)
            .saturating_add(DEFLATE_SLACK),
        other => {
            return Err(member_error(
                name,
                format!("unsupported compression method {other:?}"),
            ))
        }
    };
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
    Ok(Some(Buffer::from_vec(bytes)))
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
pub fn read_npz<R: Read + Seek>(mut reader: R, limits: &Limits) -> Result<SparseTensor> {
    let archive_len = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(0))?;
    let zip = zip::ZipArchive::new(reader).map_err(|e| ErrorKind::Parse {
        format: "npz",
        location: Location::File,
        reason: format!("not a readable zip archive: {e}"),
    })?;
    let mut m = Members {
        zip,
        archive_len,
        limits,
    };
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
