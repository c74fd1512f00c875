"""DuckDB (the Python package) reads a tiled dataset with read_parquet('DIR/**/*.parquet'):
row sums and SpMV as a join give scipy's answers, and its result tables (with the Hive
partition columns) come back as the tensor through from_coo_table."""

from __future__ import annotations

from pathlib import Path

import dask.array as da
import duckdb
import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sp

import arrow_tensor_ipc as ati
import arrow_tensor_ipc.dask as atd


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, sp.csr_array]:
    m = sp.random_array((600, 450), density=0.02, format="csr", random_state=21)
    path = tmp_path_factory.mktemp("duck") / "ds"
    atd.write_dataset(da.from_array(m.toarray(), chunks=(256, 128)), path, dim_names=["i", "j"])
    return path, m


def glob(path: Path) -> str:
    return f"read_parquet('{path}/**/*.parquet', hive_partitioning = true)"


def test_row_sums(dataset: tuple[Path, sp.csr_array]) -> None:
    path, m = dataset
    con = duckdb.connect()
    rows = con.sql(f"SELECT i, sum(value) AS s FROM {glob(path)} GROUP BY i ORDER BY i").fetchnumpy()
    want = m.sum(axis=1)
    nz = np.flatnonzero(np.diff(m.indptr))
    assert np.array_equal(rows["i"], nz)
    np.testing.assert_allclose(rows["s"], want[nz], rtol=1e-12)


def test_spmv_as_a_join(dataset: tuple[Path, sp.csr_array]) -> None:
    path, m = dataset
    v = np.random.default_rng(4).random(450)
    con = duckdb.connect()
    con.register("vec", pa.table({"j": np.arange(450), "x": v}))
    y = con.sql(
        f"SELECT t.i, sum(t.value * vec.x) AS y FROM {glob(path)} t JOIN vec ON t.j = vec.j "
        "GROUP BY t.i ORDER BY t.i"
    ).fetchnumpy()
    full = np.zeros(600)
    full[y["i"]] = y["y"]
    np.testing.assert_allclose(full, m @ v, rtol=1e-12)


def test_hive_partitions_prune_and_types(dataset: tuple[Path, sp.csr_array]) -> None:
    path, m = dataset
    con = duckdb.connect()
    n = con.execute(
        f"SELECT count(*) FROM {glob(path)} WHERE tile_0 = 1 AND tile_1 = 2"
    ).fetchall()[0][0]
    assert n == m[256:512, 256:384].nnz
    types = {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM {glob(path)}").fetchall()}
    assert types["i"] == "SMALLINT" and types["value"] == "DOUBLE"


def test_duckdb_result_back_as_the_tensor(dataset: tuple[Path, sp.csr_array]) -> None:
    path, m = dataset
    con = duckdb.connect()
    # Rows in no particular order, with the tile_0/tile_1 partition columns.
    table = con.sql(f"SELECT * FROM {glob(path)} ORDER BY value").arrow()
    if isinstance(table, pa.RecordBatchReader):
        table = table.read_all()
    assert "tile_0" in table.column_names
    back = ati.from_coo_table(table, shape=[600, 450], columns=["i", "j"], format="csr")
    assert back.format == "CSR" and abs(back.to_scipy() - m).max() == 0
    # The stream itself (Arrow PyCapsule), shape from the largest coordinates.
    rel = con.sql(f"SELECT i, j, value FROM {glob(path)}")
    inferred = ati.from_coo_table(rel, columns=["i", "j"])
    assert inferred.nnz == m.nnz
    assert inferred.shape == tuple(int(c.max()) + 1 for c in m.nonzero())
