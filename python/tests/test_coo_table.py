"""to_coo_table / from_coo_table: the crate's COO-table schema from every input, tables
from other engines (no metadata, other columns, any integer type, chunks), strict
validation."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sp
import sparse

import arrow_tensor_ipc as ati
from arrow_tensor_ipc import _coo_table

from conftest import needs, same_values


@needs("numpy", "2.0")  # the examples show numpy 2's reprs
def test_docstring_examples() -> None:
    result = doctest.testmod(_coo_table, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0


@pytest.mark.parametrize(
    "shape, expected",
    [((3, 4), "int8"), ((128, 2), "int8"), ((129,), "int16"), ((40000, 2), "int32"),
     ((2**31 + 1, 1), "int64"), ((0, 0), "int8")],
)  # fmt: skip
def test_coordinate_type(shape: tuple, expected: str) -> None:
    assert _coo_table.coordinate_type(shape) == expected


def test_schema_matches_the_crate() -> None:
    m = sp.random_array((300, 20), density=0.05, format="csr", random_state=3)
    t = ati.to_coo_table(m, dim_names=["row", "col"])
    assert t.column_names == ["row", "col", "value"]
    assert [f.type for f in t.schema] == [pa.int16(), pa.int16(), pa.float64()]
    assert not any(f.nullable for f in t.schema)
    meta = t.schema.metadata[b"arrow_tensor_ipc.sparse_tensor"].decode()
    # The exact text of CooTableInfo::metadata.
    assert meta == (
        '{"shape":[300,20],"format":"CSR","index_type":"int16","dim_names":["row","col"]}'
    )
    # Rows in storage order: row by row.
    rows = t.column("row").to_numpy()
    assert np.all(np.diff(rows) >= 0)
    back = ati.from_coo_table(t)
    assert back.format == "CSR" and back.dim_names == ("row", "col")
    assert (abs(back.to_scipy() - m)).max() == 0


def test_every_input_round_trips() -> None:
    rng = np.random.default_rng(7)
    x = rng.random((4, 5, 6))
    x[x < 0.6] = 0
    x[0, 0, 0] = np.nan
    inputs = [
        x,
        sparse.COO.from_numpy(x),
        ati.loads(ati.dumps(x)),
        ati.loads(ati.dumps(x, format="coo")),
        ati.loads(ati.dumps(x, format="csf", axis_order=[2, 0, 1])),
    ]
    for obj in inputs:
        t = ati.to_coo_table(obj)
        assert t.num_rows == np.count_nonzero(x)
        back = ati.from_coo_table(t)
        assert same_values(back.to_numpy(), x), type(obj)
    csf = ati.from_coo_table(ati.to_coo_table(inputs[-1]))
    assert csf.format == "CSF" and csf.axis_order == (2, 0, 1)
    m = sp.random_array((30, 40), density=0.1, format="csc", random_state=1)
    for obj in (m, m.tocoo(), sp.csr_matrix(m), ati.loads(ati.dumps(m))):
        back = ati.from_coo_table(ati.to_coo_table(obj)).to_scipy()
        assert abs(back - m).max() == 0


def test_scipy_duplicates_are_summed() -> None:
    m = sp.coo_array(([1.0, 2.0, 5.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    t = ati.to_coo_table(m)
    assert t.num_rows == 2
    assert ati.from_coo_table(t).to_numpy().tolist() == [[0.0, 3.0], [5.0, 0.0]]


def test_foreign_table_shape_and_columns() -> None:
    # What an engine gives: no metadata, uint32/int64 columns, extra columns, any order.
    t = pa.table(
        {
            "tile_0": pa.array([1, 0, 1], pa.int32()),
            "i": pa.array([5, 0, 3], pa.uint32()),
            "j": pa.array([2, 7, 0], pa.int64()),
            "value": pa.array([1.0, 2.0, 3.0]),
        }
    )
    m = ati.from_coo_table(t, columns=["i", "j"])
    assert m.shape == (6, 8) and m.format == "COO" and m.dim_names == ("i", "j")
    # A COO result keeps the table's rows, flagged non-canonical when they are not sorted.
    assert m.is_canonical is False
    assert m.coords.tolist() == [[5, 2], [0, 7], [3, 0]]
    assert m.values.tolist() == [1.0, 2.0, 3.0]
    assert ati.from_coo_table(t.sort_by([("i", "ascending")]), columns=["i", "j"]).is_canonical
    m = ati.from_coo_table(t, columns=["i", "j"], shape=[10, 10], format="csr")
    assert m.shape == (10, 10) and m.format == "CSR"
    # dim_<d> columns are found by name.
    t2 = t.rename_columns(["tile_0", "dim_0", "dim_1", "value"])
    m = ati.from_coo_table(t2)
    assert m.shape == (6, 8) and m.dim_names == ("", "")
    assert m.to_numpy()[5, 2] == 1.0


def test_chunked_columns() -> None:
    x = np.arange(1, 13, dtype=np.int16).reshape(3, 4)
    t = ati.to_coo_table(x)
    chunked = pa.Table.from_batches(t.to_batches(max_chunksize=5))
    assert chunked.column(0).num_chunks == 3
    assert same_values(ati.from_coo_table(chunked).to_numpy(), x)
    reader = pa.RecordBatchReader.from_batches(chunked.schema, chunked.to_batches())
    assert same_values(ati.from_coo_table(reader).to_numpy(), x)


def test_metadata_shape_wins_and_must_agree() -> None:
    t = ati.to_coo_table(np.eye(3))
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(t, shape=[4, 4])
    assert e.value.kind == "inconsistent"
    assert ati.from_coo_table(t, shape=[3, 3]).shape == (3, 3)


@pytest.mark.parametrize(
    "columns, kind, column, row",
    [
        ({"dim_0": [0, -1, 0], "dim_1": [1, 0, 2]}, "coordinate_out_of_bounds", "dim_0", 1),
        ({"dim_0": [0, 1, 2], "dim_1": [1, 0, 9]}, "coordinate_out_of_bounds", "dim_1", 2),
        ({"dim_0": [0, None, 2], "dim_1": [1, 0, 1]}, "null_cell", "dim_0", 1),
        ({"dim_0": [0.0, 1.0, 2.0], "dim_1": [1, 0, 1]}, "invalid_column", "dim_0", None),
        ({"dim_0": ["a", "b", "c"], "dim_1": [1, 0, 1]}, "invalid_column", "dim_0", None),
    ],
)
@pytest.mark.parametrize("mixed", [False, True])
def test_strict_validation(columns: dict, kind: str, column: str, row: object, mixed: bool) -> None:
    t = pa.table({**columns, "value": [1.0, 2.0, 3.0]})
    if mixed:
        # Columns of two integer types: converted (and checked) on the way.
        t = t.set_column(1, "dim_1", t.column("dim_1").cast(pa.int16()))
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(t, shape=[3, 3])
    assert e.value.kind == kind, str(e.value)
    assert (e.value.column, e.value.row) == (column, row)


def test_duplicates_are_summed() -> None:
    t = pa.table({"dim_0": [0, 1, 0], "dim_1": [1, 0, 1], "value": [1.0, 2.0, 3.0]})
    coo = ati.from_coo_table(t, shape=[3, 3])
    assert coo.nnz == 3 and coo.is_canonical is False
    assert coo.to_numpy()[0, 1] == 4.0
    csr = ati.from_coo_table(t, shape=[3, 3], format="csr")
    assert csr.nnz == 2 and csr.to_numpy()[0, 1] == 4.0


def test_bad_metadata_and_missing_columns() -> None:
    t = ati.to_coo_table(np.eye(2))
    bad = t.replace_schema_metadata({"arrow_tensor_ipc.sparse_tensor": '{"shape":[2,"x"]}'})
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(bad)
    assert e.value.kind == "invalid_metadata"
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(t.drop_columns(["value"]))
    assert e.value.kind == "invalid_column"
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(pa.table({"a": [1], "value": [1.0]}))
    assert e.value.kind == "invalid_column"
    meta = json.loads(t.schema.metadata[b"arrow_tensor_ipc.sparse_tensor"])
    assert meta == {"shape": [2, 2], "format": "COO", "index_type": "int8"}


def test_empty_table() -> None:
    t = ati.to_coo_table(np.zeros((3, 2), dtype=np.float32))
    assert t.num_rows == 0
    m = ati.from_coo_table(t)
    assert m.shape == (3, 2) and m.nnz == 0 and m.dtype == np.float32


def test_bad_value_columns_and_formats() -> None:
    t = pa.table({"dim_0": [0, 1], "value": ["x", "y"]})
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(t)
    assert (e.value.kind, e.value.column) == ("invalid_column", "value")
    t = pa.table({"dim_0": [0, 1], "value": pa.array([1.0, None])})
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(t)
    assert (e.value.kind, e.value.column, e.value.row) == ("null_cell", "value", 1)
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(ati.to_coo_table(np.eye(2)), format="bsr")
    assert e.value.kind == "selection"
    for columns, kind in [(["dim_0", "dim_0"], "duplicate_name"), (["dim_0", "value"], "duplicate_name"),
                          (["dim_0", "nope"], "invalid_column")]:  # fmt: skip
        with pytest.raises(ati.ArrowTensorError) as e:
            ati.from_coo_table(ati.to_coo_table(np.eye(2)), columns=columns)
        assert e.value.kind == kind, columns
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(pa.table({"a": [0], "value": [1.0]}), columns=["a"], shape=[2, 2])
    assert e.value.kind == "count_mismatch"


def test_chunks_with_nulls_and_slices() -> None:
    t = pa.Table.from_batches(
        [
            # (RecordBatch.from_arrays: pyarrow 14, a floor, has no record_batch(dict).)
            pa.RecordBatch.from_arrays(
                [pa.array([0, 1], pa.int32()), pa.array([1.0, 2.0])], names=["dim_0", "value"]
            ),
            pa.RecordBatch.from_arrays(
                [pa.array([2, None], pa.int32()), pa.array([3.0, 4.0])], names=["dim_0", "value"]
            ),
        ]
    )
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.from_coo_table(t)
    assert (e.value.kind, e.value.column, e.value.row) == ("null_cell", "dim_0", 3)
    # A slice of a table: its chunks start at an offset.
    m = ati.from_coo_table(t.slice(1, 2))
    assert m.shape == (3,) and m.coords.tolist() == [[1], [2]] and m.values.tolist() == [2.0, 3.0]
    # Unused columns of any type, chunked or not, are not read.
    t = pa.table({"tag": ["a", "b"], "k": pa.chunked_array([[1], [2]]), "dim_0": [1, 0],
                  "value": [1.0, 2.0]})  # fmt: skip
    assert ati.from_coo_table(t).to_numpy().tolist() == [2.0, 1.0]


def test_dim_names_from_columns() -> None:
    t = pa.table({"dim_1": [0, 1], "dim_0": [1, 0], "value": [1.0, 2.0]})
    m = ati.from_coo_table(t)
    assert m.dim_names == ("", "") and m.coords.tolist() == [[1, 0], [0, 1]]
    # A dim_<d> column of another dimension keeps its name.
    assert ati.from_coo_table(t, columns=["dim_1", "dim_0"]).dim_names == ("dim_1", "dim_0")
    assert ati.from_coo_table(t, columns=["dim_1", "dim_0"], dim_names=["a", "b"]).dim_names == ("a", "b")


def test_columns_cross_without_copies() -> None:
    x = ati.loads(ati.dumps(np.arange(1.0, 7.0).reshape(2, 3), format="coo"))
    t = ati.to_coo_table(x)
    # The value column is the message's values buffer, wrapped by pyarrow.
    assert t.column("value").chunk(0).buffers()[1].address == x.values.ctypes.data
    # And the tensor read back shares the table's value column.
    back = ati.from_coo_table(t)
    assert back.values.ctypes.data == t.column("value").chunk(0).buffers()[1].address


def test_scalars_and_pydata() -> None:
    t = ati.to_coo_table(np.array(2.5))
    assert t.column_names == ["value"] and t.num_rows == 1
    m = ati.from_coo_table(t)
    assert m.shape == () and m.to_numpy() == 2.5
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.to_coo_table(sparse.COO.from_numpy(np.eye(2), fill_value=1.0))
    assert e.value.kind == "unsupported_layout"
    x = np.zeros((3, 4), dtype=">f4")
    x[1, 2] = 5
    t = ati.to_coo_table(sparse.COO.from_numpy(x), dim_names=["a", "b"])
    assert t.column_names == ["a", "b", "value"] and t.column("value").to_pylist() == [5.0]


def test_native_refuses_chunks_beyond_their_buffers() -> None:
    from arrow_tensor_ipc import _native

    data = np.arange(4, dtype=np.int64)
    value = np.ones(4)
    for chunk in [(data, None, 2, 4), (data, None, 2**63, 2**63), (data, np.zeros(0, np.uint8), 0, 4)]:
        cols = [("dim_0", "int64", [chunk]), ("value", "float64", [(value, None, 0, 4)])]
        with pytest.raises(ati.ArrowTensorError) as e:
            _native.from_coo_table(cols, 4, [])
        assert (e.value.kind, e.value.column) == ("invalid_column", "dim_0")
    # Chunks that do not add up to the table's rows.
    cols = [("dim_0", "int64", [(data, None, 0, 3)]), ("value", "float64", [(value, None, 0, 4)])]
    with pytest.raises(ati.ArrowTensorError):
        _native.from_coo_table(cols, 4, [])
