//! scipy sparse bundles (`scipy.sparse.save_npz` / `load_npz`): read into a
//! [`SparseTensor`] and written from one.

use super::{
    finish_archive, index_type, member_error, member_options, npy, Members, NpzWriteOptions,
};
use crate::array::IndexArray;
use crate::error::{ErrorKind, Result};
use crate::sparse::{CompressedAxis, CooIndex, CooOrder, CsxIndex, SparseIndex, SparseTensor};
use crate::types::{IndexType, ValueType};
use arrow_buffer::Buffer;
use npyz::zip;
use std::io::{Read, Seek, Write};

/// Reads a scipy sparse bundle.
pub(super) fn read_sparse<R: Read + Seek>(m: &mut Members<'_, R>) -> Result<SparseTensor> {
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
        let index = CsxIndex::new(axis, indptr, indices)?;
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
    zip.start_file(name, member_options(options.compressed, total))
        .map_err(|e| ErrorKind::Io(std::io::Error::other(e)))?;
    zip.write_all(&header)?;
    zip.write_all(data)?;
    Ok(())
}

fn index_descr(t: IndexType) -> &'static str {
    npy::descr_of(ValueType::from_index_type(t))
}

/// Writes a CSR, CSC or 2-d COO tensor as a scipy sparse bundle (see [`super::write`]).
pub(super) fn write_sparse<W: Write + Seek>(
    tensor: &SparseTensor,
    out: W,
    options: &NpzWriteOptions,
) -> Result<()> {
    if tensor.ndim() != 2 {
        return Err(ErrorKind::InvalidRank {
            layout: "a scipy .npz sparse matrix",
            needed: "rank 2",
            rank: tensor.ndim(),
        }
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
            return Err(ErrorKind::UnsupportedLayout {
                operation: "writing a scipy .npz sparse bundle",
                expected: "CSR, CSC or COO (convert CSF first)",
                found: "CSF".into(),
            }
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
    finish_archive(zip).map(drop)
}
