//! Interop suite of the `record_batch` module against pyarrow 26 (the pinned venv).
//!
//! 1. We write, pyarrow reads: fixed-shape tensor columns (every value type, ranks 1..5,
//!    zero-size dimensions, dimension names, column-major sources transposed or kept with a
//!    `"permutation"`, first axis as rows or one tensor per row), variable-shape columns and
//!    COO tables of every layout and index type, as IPC streams and files. The helper
//!    `tests/interop/record_batch_check.py read` opens each with `pa.ipc.open_stream` /
//!    `open_file` and compares `to_numpy_ndarray()`, the storage arrays or the table columns
//!    with the values we list (bitwise, NaN payloads and -0.0 included).
//! 2. pyarrow writes, we read: `record_batch_check.py write` writes fixed-shape columns from
//!    `from_numpy_ndarray` (permuted cells, names, pyarrow's nullable items, several
//!    batches), variable-shape columns (pyarrow's registered C++ type, written through
//!    `wrap_array`) and bad inputs; our readers must give the values pyarrow itself reads
//!    and the typed errors listed.
//!
//! Permutations follow the canonical extension spec: logical dimension `i` of a cell is
//! physical dimension `permutation[i]`. pyarrow 26 is not self-consistent for permutations
//! that are not involutions (`pins` below): its `from_numpy_ndarray` writes the inverse
//! permutation and its `to_numpy_ndarray` computes strides that do not address every value;
//! for those the reference is the spec's view of the storage, which is also the shape and
//! names pyarrow's `to_tensor()` gives.
//!
//! Needs `.venv/bin/python` with the pinned pyarrow (`scripts/venv.sh`) or
//! `ARROW_TENSOR_PYTHON`. Missing prerequisites fail the suite; they never skip it.

use arrow_array::{Array, RecordBatch};
use arrow_buffer::Buffer;
use arrow_tensor_ipc::convert;
use arrow_tensor_ipc::record_batch::{
    batch_to_messages, coo_table_to_sparse, coordinate_type, fixed_shape_cells,
    fixed_shape_to_tensor, sparse_to_coo_table, tensor_to_fixed_shape, tensors_to_variable_shape,
    variable_shape_to_tensors, FixedShapeOptions, IpcBatches, IpcFormat, IpcReadOptions,
    IpcWriteOptions, IpcWriter, Layout, MessageOptions, Rows,
};
use arrow_tensor_ipc::{
    column_major_strides, row_major_strides, ConvertOptions, CsfAxisOrder, ErrorKind, IndexType,
    Message, SparseFormat, SparseIndex, SparseTensor, Tensor, ValueType,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------
// Environment.

#[path = "common/venv.rs"]
mod venv;

/// A fresh scratch directory under target/.
fn scratch(name: &str) -> PathBuf {
    venv::scratch("interop/record_batch", name)
}

/// Runs the pyarrow helper in `mode` on `dir`; its JSON answer.
fn helper(mode: &str, dir: &Path) -> Value {
    let v = venv::run_json("tests/interop/record_batch_check.py", mode, dir);
    assert_eq!(
        v["pyarrow"], "26.0.1",
        "the suite is pinned to pyarrow 26.0.1"
    );
    v
}

fn write_ipc(path: &Path, batches: &[RecordBatch], format: IpcFormat) {
    let mut w = IpcWriter::new(
        Vec::new(),
        batches[0].schema(),
        &IpcWriteOptions::default().with_format(format),
    )
    .unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    std::fs::write(path, w.finish().unwrap()).unwrap();
}

fn read_ipc(path: &Path) -> IpcBatches {
    IpcBatches::new(
        Buffer::from_vec(std::fs::read(path).unwrap()),
        &IpcReadOptions::default(),
    )
    .unwrap_or_else(|e| panic!("opening {}: {e}", path.display()))
}

fn ipc_name(format: IpcFormat) -> &'static str {
    match format {
        IpcFormat::Stream => "stream",
        _ => "file",
    }
}

// ---------------------------------------------------------------------------------------
// Values.

/// `n` values of `vt` as bytes in an 8-byte aligned buffer: pseudo-random bits (so every
/// float class occurs, NaN payloads included), the first ones NaN, -0.0, inf, a subnormal.
fn sample_bytes(vt: ValueType, n: usize, seed: u64) -> Buffer {
    let w = vt.byte_width();
    let mut words = vec![0u64; (n * w).div_ceil(8).max(1)];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for word in &mut words {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *word = x;
    }
    let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let specials: &[u64] = match vt {
        ValueType::Float16 => &[0x7e01, 0x8000, 0x7c00, 0x0001],
        ValueType::Float32 => &[0x7fc0_0001, 0x8000_0000, 0x7f80_0000, 0x0000_0001],
        ValueType::Float64 => &[
            0x7ff8_0000_0000_0001,
            0x8000_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x0000_0000_0000_0001,
        ],
        _ => &[],
    };
    for (i, &s) in specials.iter().enumerate().take(n) {
        bytes[i * w..(i + 1) * w].copy_from_slice(&s.to_le_bytes()[..w]);
    }
    let words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    Buffer::from_vec(words).slice_with_length(0, n * w)
}

fn row_major(vt: ValueType, shape: &[usize], seed: u64) -> Tensor {
    let n = shape.iter().product();
    let strides = row_major_strides(shape, vt.byte_width());
    Tensor::try_new(vt, shape, strides, sample_bytes(vt, n, seed)).unwrap()
}

fn column_major(vt: ValueType, shape: &[usize], seed: u64) -> Tensor {
    let n = shape.iter().product();
    let strides = column_major_strides(shape, vt.byte_width());
    Tensor::try_new(vt, shape, strides, sample_bytes(vt, n, seed)).unwrap()
}

/// A tensor whose first axis is outermost and whose cells are stored with their logical
/// dimensions in `order` (outermost first): physical cell dimension `j` is logical `order[j]`.
fn permuted_cells(vt: ValueType, shape: &[usize], order: &[usize], seed: u64) -> Tensor {
    let w = vt.byte_width();
    let mut physical = vec![shape[0]];
    physical.extend(order.iter().map(|&l| shape[1 + l]));
    let ps = row_major_strides(&physical, w);
    let mut strides = vec![ps[0]; shape.len()];
    for (j, &l) in order.iter().enumerate() {
        strides[1 + l] = ps[1 + j];
    }
    let n = shape.iter().product();
    Tensor::try_new(vt, shape, strides, sample_bytes(vt, n, seed)).unwrap()
}

fn names(shape: &[usize]) -> Vec<String> {
    ["batch", "C", "H", "W", "D"][..shape.len()]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

// ---------------------------------------------------------------------------------------
// 1. We write, pyarrow reads.

/// What pyarrow must find in one fixed-shape column we wrote from `tensor`. With a kept
/// layout, `order` is the physical order of the cell dimensions we expect (outermost first;
/// `None` where dimensions of size 1 leave it open).
fn fixed_case(
    dir: &Path,
    name: &str,
    tensor: &Tensor,
    options: &FixedShapeOptions,
    format: IpcFormat,
    split: bool,
    order: Option<&[usize]>,
) -> Value {
    let whole = options.rows == Rows::Whole;
    let cell_from = usize::from(!whole);
    let cell_shape = &tensor.shape()[cell_from..];
    let cell_names = &tensor.dim_names()[cell_from..];
    let named = cell_names.iter().any(|n| !n.is_empty());
    // The physical layout and permutation we expect (spec: logical dimension i is physical
    // dimension permutation[i]).
    let kept = options.layout == Layout::Keep && !tensor.is_row_major() && !tensor.is_empty();
    let (physical, permutation, physical_names) = match (kept, order) {
        (false, _) => (Some(cell_shape.to_vec()), None, Some(cell_names.to_vec())),
        (true, Some(order)) => {
            let mut perm = vec![0; order.len()];
            for (j, &l) in order.iter().enumerate() {
                perm[l] = j;
            }
            let physical: Vec<usize> = order.iter().map(|&l| cell_shape[l]).collect();
            let pnames: Vec<String> = order.iter().map(|&l| cell_names[l].clone()).collect();
            (Some(physical), Some(perm), Some(pnames))
        }
        (true, None) => (None, None, None),
    };
    let mut full = if whole { vec![1] } else { vec![] };
    full.extend(tensor.shape());

    let batches: Vec<RecordBatch> = if split && tensor.shape()[0] >= 2 {
        // Two batches: row 0, then the other rows.
        let w = tensor.value_type().byte_width();
        let t = tensor.to_row_major();
        let row = t.strides()[0];
        let n = t.shape()[0];
        let part = |from: usize, rows: usize| {
            let mut shape = t.shape().to_vec();
            shape[0] = rows;
            Tensor::try_new(
                t.value_type(),
                shape.clone(),
                row_major_strides(&shape, w),
                t.data().slice_with_length(from * row, rows * row),
            )
            .unwrap()
            .with_dim_names(t.dim_names().to_vec())
            .unwrap()
        };
        [part(0, 1), part(1, n - 1)]
            .iter()
            .map(|p| {
                tensor_to_fixed_shape(p, options)
                    .unwrap()
                    .into_record_batch("tensor")
                    .unwrap()
            })
            .collect()
    } else {
        vec![tensor_to_fixed_shape(tensor, options)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .into_record_batch("tensor")
            .unwrap()]
    };
    let path = dir.join(format!("{name}.{}", ipc_name(format)));
    write_ipc(&path, &batches, format);
    let expected = dir.join(format!("{name}.expected"));
    std::fs::write(&expected, tensor.row_major_bytes().as_slice()).unwrap();

    // Our own reading of what we wrote gives the tensor back.
    let mut back = Vec::new();
    let mut read = read_ipc(&path);
    let schema = read.schema().clone();
    for b in read.by_ref() {
        let b = b.unwrap();
        let t = fixed_shape_to_tensor(schema.field(0), b.column(0)).unwrap();
        back.extend_from_slice(t.row_major_bytes().as_slice());
    }
    assert_eq!(
        back,
        tensor.row_major_bytes().as_slice(),
        "{name}: our reading"
    );

    json!({
        "kind": "fixed",
        "name": name,
        "path": path,
        "ipc": ipc_name(format),
        "column": "tensor",
        "dtype": tensor.value_type().name(),
        "shape": full,
        "physical_shape": physical,
        "permutation": permutation,
        "physical_dim_names": if named { physical_names } else { None },
        "logical_dim_names": if named { Some(cell_names.to_vec()) } else { None },
        "expected": expected,
        "batches": batches.len(),
    })
}

/// (name suffix, tensor, options, container, split into two batches, expected cell order).
type FixedCase<'a> = (
    &'a str,
    &'a Tensor,
    &'a FixedShapeOptions,
    IpcFormat,
    bool,
    Option<&'a [usize]>,
);

fn fixed_cases(dir: &Path) -> Vec<Value> {
    let shapes: &[&[usize]] = &[
        &[4],
        &[3, 5],
        &[2, 3, 4],
        &[2, 1, 3, 2],
        &[2, 2, 3, 4],
        &[2, 2, 1, 2, 3],
        &[0, 3],
        &[3, 0, 2],
        &[2, 3, 0],
    ];
    let mut cases = Vec::new();
    let mut seed = 1;
    for vt in ValueType::ALL {
        for shape in shapes {
            let tag = format!(
                "{}-{}",
                vt.name(),
                shape
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join("x")
            );
            seed += 1;
            let first = FixedShapeOptions::default();
            let whole = FixedShapeOptions::default().with_rows(Rows::Whole);
            let keep = whole.clone().with_layout(Layout::Keep);
            let rm = row_major(vt, shape, seed);
            let cm = column_major(vt, shape, seed);
            let named = rm.clone().with_dim_names(names(shape)).unwrap();
            let cm_named = cm.clone().with_dim_names(names(shape)).unwrap();
            let stream = IpcFormat::Stream;
            let file = IpcFormat::File;
            let all_rev: Vec<usize> = (0..shape.len()).rev().collect();
            let cell_rev: Vec<usize> = (0..shape.len() - 1).rev().collect();
            let ones = shape[1..].contains(&1);
            let cases_of: Vec<FixedCase> = vec![
                ("rows", &rm, &first, stream, true, None),
                ("whole", &rm, &whole, file, false, None),
                ("named", &named, &first, file, true, None),
                ("named-whole", &named, &whole, stream, false, None),
                ("cm", &cm, &first, file, false, None),
                // A column-major source keeps its layout as the reversed permutation (an
                // involution, which pyarrow 26 reads right), size-1 dimensions or not.
                ("cm-kept", &cm, &keep, stream, false, Some(&all_rev)),
                (
                    "cm-kept-named",
                    &cm_named,
                    &keep,
                    file,
                    false,
                    Some(&all_rev),
                ),
            ];
            for (what, t, o, f, split, order) in cases_of {
                cases.push(fixed_case(
                    dir,
                    &format!("{tag}-{what}"),
                    t,
                    o,
                    f,
                    split,
                    order,
                ));
            }
            // First axis as rows with a kept layout: cells stored with their dimensions
            // reversed (column-major cells) and, for rank-3 cells, in an order that is not
            // an involution (the direction of the permutation matters).
            let k = shape.len() - 1;
            let keep_rows = first.clone().with_layout(Layout::Keep);
            if k >= 2 {
                let t = permuted_cells(vt, shape, &cell_rev, seed)
                    .with_dim_names(names(shape))
                    .unwrap();
                let name = format!("{tag}-cells-reversed");
                cases.push(fixed_case(
                    dir,
                    &name,
                    &t,
                    &keep_rows,
                    stream,
                    false,
                    Some(&cell_rev),
                ));
            }
            if k >= 3 {
                let mut rotated: Vec<usize> = (1..k).collect();
                rotated.push(0);
                let t = permuted_cells(vt, shape, &rotated, seed)
                    .with_dim_names(names(shape))
                    .unwrap();
                let order = if ones { None } else { Some(&rotated[..]) };
                let name = format!("{tag}-cells-rotated");
                cases.push(fixed_case(dir, &name, &t, &keep_rows, file, false, order));
            }
        }
    }
    cases
}

fn variable_cases(dir: &Path) -> Vec<Value> {
    let layouts: &[(&[&[usize]], bool)] = &[
        (&[&[3], &[0], &[5]], false),
        (&[&[7]], false),
        (&[&[2, 3], &[1, 1], &[0, 4], &[3, 2]], true),
        (&[&[2, 1, 3], &[1, 2, 2]], true),
        (&[&[1, 2, 1, 2], &[2, 2, 2, 2]], false),
        (&[&[1, 1, 1, 1, 2]], true),
    ];
    let mut cases = Vec::new();
    let mut seed = 1000;
    for vt in ValueType::ALL {
        for (li, &(shapes, named)) in layouts.iter().enumerate() {
            let ndim = shapes[0].len();
            let dim_names: Vec<String> = ["a", "b", "c", "d", "e"][..ndim]
                .iter()
                .map(|s| s.to_string())
                .collect();
            let tensors: Vec<Tensor> = shapes
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    seed += 1;
                    // Every other source column-major: written row-major.
                    let t = if i % 2 == 1 {
                        column_major(vt, s, seed)
                    } else {
                        row_major(vt, s, seed)
                    };
                    if named {
                        t.with_dim_names(dim_names.clone()).unwrap()
                    } else {
                        t
                    }
                })
                .collect();
            // Two batches when there are several tensors.
            let cut = tensors.len().div_ceil(2);
            let groups: Vec<&[Tensor]> = if tensors.len() > 1 {
                vec![&tensors[..cut], &tensors[cut..]]
            } else {
                vec![&tensors[..]]
            };
            let batches: Vec<RecordBatch> = groups
                .iter()
                .map(|g| {
                    tensors_to_variable_shape(g)
                        .unwrap()
                        .into_record_batch("cells")
                        .unwrap()
                })
                .collect();
            let format = if li.is_multiple_of(2) {
                IpcFormat::Stream
            } else {
                IpcFormat::File
            };
            let name = format!("var-{}-{li}", vt.name());
            let path = dir.join(format!("{name}.{}", ipc_name(format)));
            write_ipc(&path, &batches, format);
            let expected = dir.join(format!("{name}.expected"));
            let bytes: Vec<u8> = tensors
                .iter()
                .flat_map(|t| t.row_major_bytes().as_slice().to_vec())
                .collect();
            std::fs::write(&expected, &bytes).unwrap();
            // Our own reading gives the tensors back.
            let mut read = read_ipc(&path);
            let schema = read.schema().clone();
            let back: Vec<Tensor> = read
                .by_ref()
                .flat_map(|b| {
                    variable_shape_to_tensors(schema.field(0), b.unwrap().column(0)).unwrap()
                })
                .collect();
            assert_eq!(back.len(), tensors.len(), "{name}");
            for (a, b) in back.iter().zip(&tensors) {
                assert!(a.content_eq(b), "{name}: our reading");
            }
            cases.push(json!({
                "kind": "variable",
                "name": name,
                "path": path,
                "ipc": ipc_name(format),
                "column": "cells",
                "dtype": vt.name(),
                "ndim": ndim,
                "dim_names": if named { Some(dim_names) } else { None },
                "shapes": shapes,
                "expected": expected,
                "batches": batches.len(),
            }));
        }
    }
    cases
}

/// A dense tensor of `shape` with about a third of its values non-zero (small positive
/// integers, so that no value is a float zero).
fn sparse_source(vt: ValueType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let values: Vec<f64> = (0..n as u64)
        .map(|i| {
            let h = (i + 1).wrapping_mul(seed | 1).wrapping_mul(0x9E37_79B9) >> 7;
            if h % 3 == 0 {
                (1 + h % 100) as f64
            } else {
                0.0
            }
        })
        .collect();
    let w = vt.byte_width();
    let mut bytes = Vec::with_capacity(n * w);
    for v in values {
        match vt {
            ValueType::Float16 => {
                bytes.extend_from_slice(&arrow_tensor_ipc::f16::from_f64(v).to_le_bytes())
            }
            ValueType::Float32 => bytes.extend_from_slice(&(v as f32).to_le_bytes()),
            ValueType::Float64 => bytes.extend_from_slice(&v.to_le_bytes()),
            _ => bytes.extend_from_slice(&(v as u64).to_le_bytes()[..w]),
        }
    }
    bytes.resize(bytes.len().div_ceil(8) * 8, 0);
    let words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let data = Buffer::from_vec(words).slice_with_length(0, n * w);
    Tensor::try_new(vt, shape, row_major_strides(shape, w), data).unwrap()
}

/// The row-major positions of the non-zero values of a dense tensor, one list per dimension.
fn nonzero_coords(t: &Tensor) -> Vec<Vec<usize>> {
    let w = t.value_type().byte_width();
    let bytes = t.row_major_bytes();
    let shape = t.shape();
    let mut cols = vec![Vec::new(); shape.len()];
    for (k, v) in bytes.as_slice().chunks_exact(w).enumerate() {
        if v.iter().any(|&b| b != 0) {
            let mut rest = k;
            for d in (0..shape.len()).rev() {
                cols[d].push(rest % shape[d]);
                rest /= shape[d];
            }
        }
    }
    cols
}

/// The coordinates in the order a COO table of `format` lists them: a CSC tensor's in its
/// storage order (column by column), every other layout's row-major.
fn table_order(cols: Vec<Vec<usize>>, format: SparseFormat) -> Vec<Vec<usize>> {
    if format != SparseFormat::Csc {
        return cols;
    }
    let mut pairs: Vec<(usize, usize)> = cols[0]
        .iter()
        .copied()
        .zip(cols[1].iter().copied())
        .collect();
    pairs.sort_by_key(|&(r, c)| (c, r));
    vec![
        pairs.iter().map(|p| p.0).collect(),
        pairs.iter().map(|p| p.1).collect(),
    ]
}

fn coo_cases(dir: &Path) -> Vec<Value> {
    let mut cases = Vec::new();
    let mut i = 0u64;
    let shape_sets: &[(SparseFormat, &[&[usize]])] = &[
        (
            SparseFormat::Coo,
            &[&[9], &[5, 7], &[3, 4, 5], &[2, 3, 2, 4], &[4, 0]],
        ),
        (SparseFormat::Csr, &[&[6, 5], &[1, 9]]),
        (SparseFormat::Csc, &[&[6, 5], &[9, 1]]),
        (SparseFormat::Csf, &[&[3, 4, 5], &[2, 3, 2, 4], &[7, 3]]),
    ];
    for &(format, shapes) in shape_sets {
        for it in IndexType::ALL {
            for (si, shape) in shapes.iter().enumerate() {
                i += 1;
                let vt = ValueType::ALL[i as usize % ValueType::ALL.len()];
                let mut dense = sparse_source(vt, shape, i);
                let named = si % 2 == 1;
                if named {
                    let n: Vec<String> = ["x", "y", "z", "t"][..shape.len()]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                    dense = dense.with_dim_names(n).unwrap();
                }
                let mut options = ConvertOptions::default().with_index_type(it);
                if format == SparseFormat::Csf && si == 1 {
                    // A CSF tensor whose axis order is not the identity.
                    options = options.with_axis_order(CsfAxisOrder::Explicit(vec![2, 0, 3, 1]));
                }
                let sparse: SparseTensor = match format {
                    SparseFormat::Coo => convert::to_sparse(&dense, SparseFormat::Coo, &options),
                    SparseFormat::Csr => convert::to_sparse(&dense, SparseFormat::Csr, &options),
                    SparseFormat::Csc => convert::to_sparse(&dense, SparseFormat::Csc, &options),
                    _ => convert::to_sparse(&dense, SparseFormat::Csf, &options),
                }
                .unwrap_or_else(|e| panic!("{format:?} {it:?} {shape:?}: {e}"));
                let table = sparse_to_coo_table(&sparse).unwrap();
                let ipc = if i.is_multiple_of(2) {
                    IpcFormat::Stream
                } else {
                    IpcFormat::File
                };
                let name = format!("coo-{}-{}-{}-{si}", format.name(), it.name(), vt.name());
                let path = dir.join(format!("{name}.{}", ipc_name(ipc)));
                write_ipc(&path, std::slice::from_ref(&table), ipc);
                // Our own reading rebuilds the tensor in its layout.
                let batch = read_ipc(&path).next().unwrap().unwrap();
                let back = coo_table_to_sparse(&batch, None).unwrap();
                assert_eq!(back.format(), format, "{name}");
                // Index types come back by content, as a conversion picks them.
                let mut by_content = ConvertOptions::default();
                if let SparseIndex::Csf(c) = sparse.index() {
                    by_content =
                        by_content.with_axis_order(CsfAxisOrder::Explicit(c.axis_order().to_vec()));
                }
                let expected = convert::convert(&sparse, format, &by_content).unwrap();
                assert!(back.content_eq(&expected), "{name}: our reading");
                let values = dir.join(format!("{name}.values"));
                let w = vt.byte_width();
                let nnz = table.num_rows();
                let vbuf = table.column(shape.len()).to_data().buffers()[0].clone();
                std::fs::write(&values, &vbuf.as_slice()[..nnz * w]).unwrap();
                let dense_path = dir.join(format!("{name}.dense"));
                std::fs::write(&dense_path, dense.row_major_bytes().as_slice()).unwrap();
                let columns: Vec<String> = if named {
                    dense.dim_names().to_vec()
                } else {
                    (0..shape.len()).map(|d| format!("dim_{d}")).collect()
                };
                let mut columns = columns;
                columns.push("value".into());
                cases.push(json!({
                    "kind": "coo",
                    "name": name,
                    "path": path,
                    "ipc": ipc_name(ipc),
                    "dtype": vt.name(),
                    // The columns' type: the shape's, whatever the tensor's.
                    "index_type": coordinate_type(shape).name(),
                    "shape": shape,
                    "format": format.name(),
                    "columns": columns,
                    "coords": table_order(nonzero_coords(&dense), format),
                    "values": values,
                    "dense": dense_path,
                }));
            }
        }
    }
    cases
}

#[test]
fn pyarrow_reads_what_we_write() {
    let dir = scratch("we-write");
    let fixed = fixed_cases(&dir);
    let variable = variable_cases(&dir);
    let coo = coo_cases(&dir);
    let counts = (fixed.len(), variable.len(), coo.len());
    let all: Vec<Value> = fixed.into_iter().chain(variable).chain(coo).collect();
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec_pretty(&all).unwrap(),
    )
    .unwrap();
    let out = helper("read", &dir);
    let failures = out["failures"].as_array().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} cases fail in pyarrow:\n{}",
        failures.len(),
        all.len(),
        serde_json::to_string_pretty(failures).unwrap()
    );
    assert_eq!(out["checked"], all.len());
    eprintln!(
        "pyarrow read {} of our streams/files: {} fixed-shape, {} variable-shape, {} COO tables",
        all.len(),
        counts.0,
        counts.1,
        counts.2
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// 2. pyarrow writes, we read.

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn sizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect()
}

fn check_pyarrow_fixed(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let path = Path::new(c["path"].as_str().unwrap());
    let shape = sizes(&c["shape"]);
    let names = strs(&c["dim_names"]);
    let expected = std::fs::read(c["expected"].as_str().unwrap()).unwrap();
    let vt = ValueType::from_name(c["dtype"].as_str().unwrap()).unwrap();
    let mut read = read_ipc(path);
    let schema = read.schema().clone();
    let (index, field) = schema.column_with_name("tensor").unwrap();
    let mut rows = Vec::new();
    let mut values = Vec::new();
    let mut cells = Vec::new();
    for b in read.by_ref() {
        let b = b.unwrap_or_else(|e| panic!("{name}: {e}"));
        let t =
            fixed_shape_to_tensor(field, b.column(index)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.value_type(), vt, "{name}");
        assert_eq!(t.shape()[1..], shape[1..], "{name}: cell shape");
        if names.is_empty() {
            assert!(!t.has_dim_names(), "{name}: names {:?}", t.dim_names());
        } else {
            assert_eq!(
                t.dim_names(),
                &names[..],
                "{name}: names (pyarrow's to_tensor)"
            );
        }
        rows.push(t.shape()[0]);
        values.extend_from_slice(t.row_major_bytes().as_slice());
        // The messages of the batch: one tensor, or one per row.
        let m = batch_to_messages(&b, &MessageOptions::default()).unwrap();
        assert_eq!(m.len(), 1, "{name}");
        assert!(m[0].as_tensor().unwrap().content_eq(&t), "{name}: message");
        let per_row =
            batch_to_messages(&b, &MessageOptions::default().with_rows(Rows::Whole)).unwrap();
        assert_eq!(per_row.len(), t.shape()[0], "{name}: messages per row");
        let direct = fixed_shape_cells(field, b.column(index)).unwrap();
        for (m, d) in per_row.iter().zip(&direct) {
            let m = m.as_tensor().unwrap();
            assert!(m.content_eq(d), "{name}: per-row message");
            assert_eq!(m.shape(), &shape[1..], "{name}: per-row shape");
            cells.extend_from_slice(m.row_major_bytes().as_slice());
        }
    }
    let want_rows: Vec<usize> = sizes(&c["rows"]);
    assert_eq!(rows, want_rows, "{name}: rows per batch");
    assert_eq!(rows.iter().sum::<usize>(), shape[0], "{name}: rows");
    assert!(values == expected, "{name}: values differ from pyarrow's");
    assert!(
        cells == expected,
        "{name}: per-row values differ from pyarrow's"
    );
}

fn check_pyarrow_variable(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let path = Path::new(c["path"].as_str().unwrap());
    let expected = std::fs::read(c["expected"].as_str().unwrap()).unwrap();
    let names = strs(&c["dim_names"]);
    let want: Vec<Vec<usize>> = c["shapes"].as_array().unwrap().iter().map(sizes).collect();
    let mut read = read_ipc(path);
    let schema = read.schema().clone();
    let field = schema.field(0);
    let mut shapes = Vec::new();
    let mut values = Vec::new();
    for b in read.by_ref() {
        let b = b.unwrap();
        let tensors =
            variable_shape_to_tensors(field, b.column(0)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let messages = batch_to_messages(&b, &MessageOptions::default()).unwrap();
        assert_eq!(messages.len(), tensors.len(), "{name}");
        for (t, m) in tensors.iter().zip(&messages) {
            assert!(m.as_tensor().unwrap().content_eq(t), "{name}: message");
            if names.is_empty() {
                assert!(!t.has_dim_names(), "{name}");
            } else {
                assert_eq!(t.dim_names(), &names[..], "{name}: names");
            }
            shapes.push(t.shape().to_vec());
            values.extend_from_slice(t.row_major_bytes().as_slice());
        }
    }
    assert_eq!(shapes, want, "{name}: shapes");
    assert!(values == expected, "{name}: values differ from pyarrow's");
}

fn check_pyarrow_error(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let path = Path::new(c["path"].as_str().unwrap());
    let batch = read_ipc(path)
        .next()
        .unwrap()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let result: arrow_tensor_ipc::Result<Vec<Message>> = match c["column"].as_str() {
        Some(col) => batch_to_messages(&batch, &MessageOptions::default().with_column(col)),
        None => coo_table_to_sparse(&batch, None).map(|s| vec![s.into()]),
    };
    let err = match result {
        Ok(_) => panic!("{name}: read without an error"),
        Err(e) => e,
    };
    let want = &c["error"];
    match (err.kind(), want["kind"].as_str().unwrap()) {
        (ErrorKind::NullCell { column, row, what }, "NullCell") => {
            assert_eq!(column, want["column"].as_str().unwrap(), "{name}: {err}");
            assert_eq!(*row as u64, want["row"].as_u64().unwrap(), "{name}: {err}");
            assert_eq!(*what, want["what"].as_str().unwrap(), "{name}: {err}");
        }
        (
            ErrorKind::CoordinateOutOfBounds {
                column,
                row,
                value,
                dim,
                size,
            },
            "CoordinateOutOfBounds",
        ) => {
            assert_eq!(column, want["column"].as_str().unwrap(), "{name}: {err}");
            assert_eq!(*row as u64, want["row"].as_u64().unwrap(), "{name}: {err}");
            assert_eq!(*value, want["value"].as_i64().unwrap(), "{name}: {err}");
            assert_eq!(*dim as u64, want["dim"].as_u64().unwrap(), "{name}: {err}");
            assert_eq!(*size, want["size"].as_u64().unwrap(), "{name}: {err}");
        }
        (ErrorKind::InvalidColumn { column, reason }, "InvalidColumn") => {
            assert_eq!(column, want["column"].as_str().unwrap(), "{name}: {err}");
            let part = want["reason"].as_str().unwrap();
            assert!(reason.contains(part), "{name}: {err:?} should say {part:?}");
        }
        (
            ErrorKind::CountMismatch {
                what,
                expected,
                found,
            },
            "CountMismatch",
        ) => {
            let part = want["what"].as_str().unwrap();
            assert!(what.contains(part), "{name}: {err:?} should say {part:?}");
            assert_eq!(
                *expected,
                want["expected"].as_u64().unwrap(),
                "{name}: {err}"
            );
            assert_eq!(*found, want["found"].as_u64().unwrap(), "{name}: {err}");
        }
        (kind, w) => panic!("{name}: {kind:?}, expected {w}"),
    }
}

#[test]
fn we_read_what_pyarrow_writes() {
    let dir = scratch("pyarrow-writes");
    let out = helper("write", &dir);
    let cases: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(out["written"], cases.len());
    let count = |k: &str| cases.iter().filter(|c| c["kind"] == k).count();
    let (fixed, variable, errors) = (count("fixed"), count("variable"), count("error"));
    assert_eq!(fixed + variable + errors, cases.len());
    assert_eq!(fixed, 11 * 8, "fixed-shape cases");
    assert_eq!(variable, 11 * 5, "variable-shape cases");
    // pyarrow's default item field is nullable: every from_numpy_ndarray case has one.
    assert!(cases
        .iter()
        .filter(|c| c["kind"] == "fixed")
        .all(|c| c["nullable_item"] == true));
    // from_numpy_ndarray always writes a permutation; six layouts of eight permute.
    let identity = |p: &Value| sizes(p).iter().enumerate().all(|(i, &v)| i == v);
    let fixed_cases = cases.iter().filter(|c| c["kind"] == "fixed");
    assert!(fixed_cases.clone().all(|c| c["permutation"].is_array()));
    let permuted = fixed_cases.filter(|c| !identity(&c["permutation"])).count();
    assert_eq!(permuted, 11 * 6);
    for c in &cases {
        match c["kind"].as_str().unwrap() {
            "fixed" => check_pyarrow_fixed(c),
            "variable" => check_pyarrow_variable(c),
            _ => check_pyarrow_error(c),
        }
    }
    // pyarrow 26's quirks with permutations that are not involutions, pinned: its
    // `to_numpy_ndarray` disagrees with the spec view (its strides skip values), its
    // `to_tensor` shape is the spec's, and its `from_numpy_ndarray` does not describe the
    // array it was given (it writes the inverse permutation).
    let pins = &out["pins"];
    let all = |k: &str, v: bool| {
        let a = pins[k]
            .as_array()
            .unwrap_or_else(|| panic!("pin {k}: {pins}"));
        assert_eq!(a.len(), 22, "pin {k}");
        assert!(a.iter().all(|x| x == v), "pin {k}: {a:?}");
    };
    all("non_involution_to_numpy_differs_from_spec", true);
    all("non_involution_to_tensor_shape_is_spec", true);
    all("non_involution_from_numpy_is_input", false);
    assert!(pins.get("involution_mismatch").is_none(), "{pins}");
    eprintln!(
        "we read {} pyarrow streams/files: {fixed} fixed-shape, {variable} variable-shape, {errors} bad inputs",
        cases.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// 3. Permutations: pyarrow 26 against the canonical definition, every permutation of rank
//    3 and 4.

/// The element strides of a column's logical tensor by the definition: physical cell
/// dimension `permutation[i]` is logical dimension `i`, so logical stride `i` is the
/// row-major stride of physical dimension `permutation[i]` (the first axis, the rows, is
/// outermost).
fn definition_strides(rows: usize, physical: &[usize], permutation: &[usize]) -> Vec<usize> {
    let mut full = vec![rows];
    full.extend_from_slice(physical);
    let ps = row_major_strides(&full, 1);
    let mut out = vec![ps[0]];
    out.extend(permutation.iter().map(|&p| ps[p + 1]));
    out
}

/// The element strides Arrow C++ 26 computes for the same column
/// (`FixedShapeTensorType::ComputeStrides` as `ToTensor` calls it): it permutes the shape
/// into the logical order, then walks the permutation over that already permuted shape,
/// applying the permutation twice. The same as [`definition_strides`] exactly when the
/// permutation is its own inverse.
fn arrow26_strides(rows: usize, physical: &[usize], permutation: &[usize]) -> Vec<usize> {
    let full_perm: Vec<usize> = std::iter::once(0)
        .chain(permutation.iter().map(|&p| p + 1))
        .collect();
    let mut full = vec![rows];
    full.extend_from_slice(physical);
    let logical: Vec<usize> = full_perm.iter().map(|&i| full[i]).collect();
    let mut remaining: usize = full_perm
        .iter()
        .filter(|&&i| i > 0)
        .map(|&i| logical[i])
        .product();
    let mut walk = vec![remaining];
    for &i in full_perm.iter().filter(|&&i| i > 0) {
        remaining /= logical[i];
        walk.push(remaining);
    }
    full_perm.iter().map(|&i| walk[i]).collect()
}

fn inverse(p: &[usize]) -> Vec<usize> {
    let mut q = vec![0; p.len()];
    for (i, &x) in p.iter().enumerate() {
        q[x] = i;
    }
    q
}

fn ints(v: &Value) -> Vec<i32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap() as i32)
        .collect()
}

#[test]
fn permutations_pyarrow_against_the_definition() {
    let dir = scratch("permutations");
    let out = helper("permutations", &dir);
    let cases: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(out["written"], 30);
    assert_eq!(cases.len(), 6 + 24, "every permutation of rank 3 and 4");
    let mut involutions = 0;
    for c in &cases {
        let perm = sizes(&c["permutation"]);
        let physical = sizes(&c["physical"]);
        let rows = c["rows"].as_u64().unwrap() as usize;
        let name = format!("permutation {perm:?} of physical cells {physical:?}");
        let involution = inverse(&perm) == perm;
        involutions += usize::from(involution);

        // The definition, as the helper computed it with numpy, and as computed here.
        let def_shape = sizes(&c["definition_shape"]);
        let mut want_shape = vec![rows];
        want_shape.extend(perm.iter().map(|&p| physical[p]));
        assert_eq!(def_shape, want_shape, "{name}");
        let def_strides = definition_strides(rows, &physical, &perm);
        assert_eq!(sizes(&c["definition_strides"]), def_strides, "{name}");
        let definition = ints(&c["definition"]);

        // Our reading is the definition, for every permutation.
        let mut read = read_ipc(Path::new(c["path"].as_str().unwrap()));
        let schema = read.schema().clone();
        let field = schema.field(0).clone();
        let batch = read.next().unwrap().unwrap();
        let t = fixed_shape_to_tensor(&field, batch.column(0)).unwrap();
        assert_eq!(t.shape(), &def_shape[..], "{name}: our shape");
        assert_eq!(t.to_vec::<i32>().unwrap(), definition, "{name}: our values");

        // pyarrow's reading: the definition's shape always; the definition's strides and
        // values exactly when the permutation is its own inverse. Otherwise (pinned, as
        // pyarrow 26.0.1 does it) the strides Arrow C++ 26 computes, which are not the
        // definition's: when pyarrow fixes this, these assertions fail and say so.
        let np_shape = sizes(&c["to_numpy_shape"]);
        let np_strides = sizes(&c["to_numpy_strides"]);
        let np_values = ints(&c["to_numpy"]);
        assert_eq!(
            np_shape, def_shape,
            "{name}: pyarrow's to_numpy_ndarray shape"
        );
        assert_eq!(sizes(&c["to_tensor_shape"]), def_shape, "{name}: to_tensor");
        assert_eq!(
            sizes(&c["to_tensor_strides"]),
            np_strides,
            "{name}: to_tensor"
        );
        assert_eq!(
            np_strides,
            arrow26_strides(rows, &physical, &perm),
            "{name}"
        );
        if involution {
            assert_eq!(np_strides, def_strides, "{name}: pyarrow strides");
            assert_eq!(np_values, definition, "{name}: pyarrow values");
        } else {
            assert_ne!(
                np_strides, def_strides,
                "{name}: pyarrow 26 now reads this permutation by the definition (strides): \
                 update the pin and the README"
            );
            assert_ne!(
                np_values, definition,
                "{name}: pyarrow 26 now reads this permutation by the definition (values): \
                 update the pin and the README"
            );
        }

        // pyarrow's writer, given the definition's array: the physical storage and shape
        // as they are, with the inverse permutation (which, by the definition, describes
        // another array unless the permutation is its own inverse); its own round trip
        // gives the input back exactly for involutions.
        assert_eq!(
            sizes(&c["from_numpy_shape"]),
            physical,
            "{name}: from_numpy shape"
        );
        assert_eq!(c["from_numpy_storage_is_physical"], true, "{name}");
        assert_eq!(
            sizes(&c["from_numpy_permutation"]),
            inverse(&perm),
            "{name}: from_numpy_ndarray's permutation"
        );
        assert_eq!(
            c["round_trip_is_input"], involution,
            "{name}: pyarrow's from_numpy_ndarray -> to_numpy_ndarray round trip"
        );
    }
    assert_eq!(involutions, 4 + 10);
    let _ = std::fs::remove_dir_all(&dir);
}
