//! Block boundaries of the fused checks.

use super::*;

/// Writes `v` as the `width`-byte little-endian index element `k` of the buffer that starts
/// `buf` bytes into the body.
fn patch_index(bytes: &mut [u8], buf: usize, k: usize, width: usize, v: i64) {
    let at = body_offset(bytes) + buf + k * width;
    bytes[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
}

/// Positions around every multiple of `block` below `len` (and the ends).
fn near_boundaries(block: usize, len: usize) -> Vec<usize> {
    let mut out = vec![1, len - 1];
    let mut b = block;
    while b < len {
        out.extend([b - 1, b, b + 1]);
        b += block;
    }
    out.retain(|&p| p >= 1 && p < len);
    out.sort_unstable();
    out.dedup();
    out
}

/// Strict validation reads index data in cache-sized blocks (16 KiB). A broken rule at,
/// just before and just after every block boundary is found at the right position, and a
/// legitimate decrease at a CSR row start that falls on a boundary is not taken for one.
#[test]
fn fused_checks_find_violations_at_block_boundaries() {
    for (index_type, width) in [(IndexType::Int32, 4usize), (IndexType::Int64, 8)] {
        let block_values = (16 << 10) / width;
        // COO rank 2 and 3: row i holds the coordinates of cell 3 i (strictly increasing).
        for shape in [vec![100usize, 150], vec![20, 30, 40]] {
            let ndim = shape.len();
            let nnz = 4700;
            let mut coords = Vec::new();
            for i in 0..nnz {
                let mut cell = 3 * i;
                let mut row = vec![0i64; ndim];
                for d in (0..ndim).rev() {
                    row[d] = (cell % shape[d]) as i64;
                    cell /= shape[d];
                }
                coords.extend(row);
            }
            let t = coo_tensor(&shape, &coords, index_type);
            let good = enc(t);
            dec(&good, ReadOptions::strict()).expect("the unbroken COO is valid");
            let buf = sparse_buffer_offsets(&good)[0];
            let rows_per_block = (block_values / ndim).next_multiple_of(64);
            for r in near_boundaries(rows_per_block, nnz) {
                // Row r repeats row r - 1: not strictly increasing at row r.
                let mut bad = good.clone();
                for d in 0..ndim {
                    patch_index(
                        &mut bad,
                        buf,
                        r * ndim + d,
                        width,
                        coords[(r - 1) * ndim + d],
                    );
                }
                match strict_err(&bad) {
                    ErrorKind::NotIncreasing { position, .. } => {
                        assert_eq!(position, r as u64, "{index_type:?} {shape:?} row {r}")
                    }
                    other => panic!("{index_type:?} {shape:?} row {r}: {other:?}"),
                }
                // The last coordinate of row r is one past its dimension.
                let mut bad = good.clone();
                let k = r * ndim + ndim - 1;
                patch_index(&mut bad, buf, k, width, shape[ndim - 1] as i64);
                match strict_err(&bad) {
                    ErrorKind::IndexOutOfBounds { position, .. } => {
                        assert_eq!(position, k as u64, "{index_type:?} {shape:?} row {r}")
                    }
                    other => panic!("{index_type:?} {shape:?} row {r}: {other:?}"),
                }
            }
        }
        // CSR whose rows hold exactly one block of indices each: the row starts fall on
        // the block boundaries (int64), or on every other one (int32: rows of half a block).
        let row_len = (16 << 10) / 8;
        let (nrows, ncols) = (4usize, 2 * row_len);
        let indices: Vec<i64> = (0..nrows)
            .flat_map(|_| (0..row_len).map(|j| 2 * j as i64))
            .collect();
        let indptr: Vec<i64> = (0..=nrows).map(|r| (r * row_len) as i64).collect();
        // The same matrix as CSR, and as a rank-2 CSF (level 1 sliced by indptr[0]).
        let csr = enc(csr_tensor(nrows, ncols, &indptr, &indices, index_type));
        let rows: Vec<i64> = (0..nrows as i64).collect();
        let csf = enc(SparseTensor::try_new(
            ValueType::Float32,
            vec![nrows, ncols],
            Buffer::from_vec((0..indices.len()).map(|i| i as f32).collect::<Vec<f32>>()),
            SparseIndex::Csf(
                CsfIndex::new(
                    vec![0, 1],
                    vec![index_array(&indptr, index_type)],
                    vec![
                        index_array(&rows, index_type),
                        index_array(&indices, index_type),
                    ],
                )
                .unwrap(),
            ),
        )
        .unwrap());
        for (good, buf) in [
            (csr.clone(), sparse_buffer_offsets(&csr)[1]),
            (csf.clone(), sparse_buffer_offsets(&csf)[2]),
        ] {
            dec(&good, ReadOptions::strict()).expect("the unbroken CSR/CSF is valid");
            for p in near_boundaries(block_values, indices.len()) {
                if p % row_len == 0 {
                    continue; // a row start: any value may follow the previous row's last
                }
                let mut bad = good.clone();
                patch_index(&mut bad, buf, p, width, indices[p - 1]);
                match strict_err(&bad) {
                    ErrorKind::NotIncreasing { position, .. } => {
                        assert_eq!(position, p as u64, "{index_type:?} CSR position {p}")
                    }
                    other => panic!("{index_type:?} CSR position {p}: {other:?}"),
                }
                let mut bad = good.clone();
                patch_index(&mut bad, buf, p, width, ncols as i64);
                match strict_err(&bad) {
                    ErrorKind::IndexOutOfBounds { position, .. } => {
                        assert_eq!(position, p as u64, "{index_type:?} CSR position {p}")
                    }
                    other => panic!("{index_type:?} CSR position {p}: {other:?}"),
                }
            }
        }
    }
}

/// Rows whose columns keep increasing across row starts (row r holds columns
/// r * len .. (r + 1) * len): only a broken pair inside a row is an error, and a repeat
/// right at a row start is not.
#[test]
fn fused_checks_tell_row_starts_from_rows() {
    for (index_type, width) in [(IndexType::Int32, 4usize), (IndexType::Int64, 8)] {
        let row_len = 1000usize;
        let nrows = 9;
        let indices: Vec<i64> = (0..(nrows * row_len) as i64).collect();
        let indptr: Vec<i64> = (0..=nrows).map(|r| (r * row_len) as i64).collect();
        let good = enc(csr_tensor(
            nrows,
            nrows * row_len,
            &indptr,
            &indices,
            index_type,
        ));
        let buf = sparse_buffer_offsets(&good)[1];
        for r in 1..nrows {
            let b = r * row_len;
            // Row r starts with the value the previous row ended with: allowed.
            let mut ok = good.clone();
            patch_index(&mut ok, buf, b, width, indices[b - 1]);
            dec(&ok, ReadOptions::strict()).expect("a repeat across a row start is valid");
            // The second entry of row r repeats the first: an error at b + 1.
            let mut bad = good.clone();
            patch_index(&mut bad, buf, b + 1, width, indices[b]);
            match strict_err(&bad) {
                ErrorKind::NotIncreasing { position, .. } => {
                    assert_eq!(position, (b + 1) as u64, "{index_type:?} row {r}")
                }
                other => panic!("{index_type:?} row {r}: {other:?}"),
            }
        }
    }
}

fn index_array(v: &[i64], t: IndexType) -> IndexArray {
    match t {
        IndexType::Int32 => IndexArray::from_vec(v.iter().map(|&x| x as i32).collect()),
        IndexType::Int64 => IndexArray::from_vec(v.to_vec()),
        other => panic!("not used here: {other:?}"),
    }
}

fn coo_tensor(shape: &[usize], coords: &[i64], t: IndexType) -> SparseTensor {
    let nnz = coords.len() / shape.len();
    let index = CooIndex::new(index_array(coords, t), shape.len()).unwrap();
    assert!(index.is_canonical());
    SparseTensor::try_new(
        ValueType::Float32,
        shape,
        Buffer::from_vec((0..nnz).map(|i| i as f32 + 1.0).collect::<Vec<f32>>()),
        SparseIndex::Coo(index),
    )
    .unwrap()
}

fn csr_tensor(
    nrows: usize,
    ncols: usize,
    indptr: &[i64],
    indices: &[i64],
    t: IndexType,
) -> SparseTensor {
    let index = CsxIndex::new(
        CompressedAxis::Row,
        index_array(indptr, t),
        index_array(indices, t),
    )
    .unwrap();
    SparseTensor::try_new(
        ValueType::Float32,
        vec![nrows, ncols],
        Buffer::from_vec((0..indices.len()).map(|i| i as f32).collect::<Vec<f32>>()),
        SparseIndex::Csx(index),
    )
    .unwrap()
}
