"""arrow_tensor_ipc.dask: datasets written and read by Dask on the default scheduler and on
a two-process LocalCluster bound to 127.0.0.1, against scipy on the whole tensor; datasets
of the CLI; hostile datasets."""

from __future__ import annotations

import concurrent.futures
import doctest
import json
import logging
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterator

import dask
import dask.array as da
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp
import sparse

import arrow_tensor_ipc as ati
import arrow_tensor_ipc.dask as atd

#: Upper bound of every wait on the cluster, in seconds.
WAIT = 120


def bounded(fn: Callable[[], Any], seconds: float = WAIT) -> Any:
    """``fn()`` run in a thread, failing the test when it takes longer than ``seconds``
    (the cluster fixture then closes the cluster, so a stuck computation never hangs CI)."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        return pool.submit(fn).result(timeout=seconds)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """A LocalCluster of two single-threaded worker processes on 127.0.0.1, always closed."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
        timeout=WAIT,
        death_timeout=WAIT,
    )
    try:
        c = Client(cluster, timeout=WAIT, set_as_default=False)
        try:
            c.wait_for_workers(2, timeout=WAIT)
            yield c
        finally:
            c.close(timeout=30)
    finally:
        cluster.close(timeout=30)


def matrix(seed: int = 1, shape: tuple = (700, 500), density: float = 0.02) -> sp.csr_array:
    return sp.random_array(shape, density=density, format="csr", random_state=seed)


def test_docstring_examples() -> None:
    result = doctest.testmod(atd, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_round_trip_on_the_default_scheduler(tmp_path: Path) -> None:
    m = matrix()
    x = da.from_array(m.toarray(), chunks=(256, 200))
    atd.write_dataset(x, tmp_path / "ds", dim_names=["row", "col"])
    man = json.loads((tmp_path / "ds" / "_tensor.json").read_text())
    assert man["shape"] == [700, 500] and man["tile_shape"] == [256, 200]
    assert man["grid"] == [3, 3] and man["nnz"] == m.nnz and man["value_type"] == "float64"
    assert man["dim_names"] == ["row", "col"] and man["format"] == "COO"
    assert [t["tile"] for t in man["tiles"]] == sorted(t["tile"] for t in man["tiles"])
    # Each file: the contract's schema, metadata and Hive directory; rows row-major.
    f = man["tiles"][1]["files"][0]
    assert f["path"] == "tile_0=0/tile_1=1/part-00000.parquet"
    t = pq.read_table(tmp_path / "ds" / f["path"])
    assert t.column_names == ["row", "col", "value"]
    assert t.schema.field("row").type == pa.int16() and not t.schema.field("row").nullable
    meta = t.schema.metadata
    assert json.loads(meta[b"arrow_tensor_ipc.tile"]) == {
        "tile": [0, 1], "tile_shape": [256, 200], "grid": [3, 3]
    }  # fmt: skip
    assert meta[b"arrow_tensor_ipc.sparse_tensor"] == (
        b'{"shape":[700,500],"format":"COO","index_type":"int16","dim_names":["row","col"]}'
    )
    key = t.column("row").to_numpy().astype(np.int64) * 500 + t.column("col").to_numpy()
    assert np.all(np.diff(key) > 0)
    assert np.all((t.column("col").to_numpy() >= 200) & (t.column("col").to_numpy() < 400))

    arr = atd.read_dataset(tmp_path / "ds")
    assert arr.chunks == ((256, 256, 188), (200, 200, 100))
    assert isinstance(arr.blocks[0, 0].compute(), sparse.COO)
    v = np.random.default_rng(2).random(500)
    np.testing.assert_allclose(arr.dot(v).compute(), m @ v, rtol=1e-12)
    dense = atd.read_dataset(tmp_path / "ds", dense=True).compute()
    assert isinstance(dense, np.ndarray) and np.array_equal(dense, m.toarray())
    # The whole dataset as one COO table, back as the tensor.
    whole = pq.read_table(tmp_path / "ds", partitioning="hive")
    back = ati.from_coo_table(whole, shape=[700, 500], columns=["row", "col"])
    assert abs(back.to_scipy() - m).max() == 0


def test_chunk_kinds_and_rechunking(tmp_path: Path) -> None:
    m = matrix(3, (90, 70), 0.1)
    want = m.toarray()
    sources = {
        "scipy": da.from_array(sp.csr_matrix(m), chunks=(40, 30), asarray=False),
        "sparse": da.from_array(sparse.COO.from_scipy_sparse(m), chunks=(40, 30), asarray=False),
        "irregular": da.from_array(want, chunks=((20, 50, 20), (70,))),
        "given": da.from_array(want, chunks=(90, 70)),
    }
    for name, x in sources.items():
        ts = (25, 25) if name == "given" else None
        atd.write_dataset(x, tmp_path / name, tile_shape=ts)
        man = json.loads((tmp_path / name / "_tensor.json").read_text())
        expect = {"scipy": [40, 30], "sparse": [40, 30], "irregular": [50, 70], "given": [25, 25]}
        assert man["tile_shape"] == expect[name]
        assert man["format"] == ("CSR" if name == "scipy" else "COO")
        got = atd.read_dataset(tmp_path / name, dense=True).compute()
        assert np.array_equal(got, want), name


def test_compression_codecs(tmp_path: Path) -> None:
    x = da.from_array(matrix(2, (60, 50), 0.1).toarray(), chunks=(30, 50))
    # (pyarrow before 15 calls LZ4_RAW "LZ4".)
    for codec, names in [
        ("zstd", {"ZSTD"}),
        ("none", {"UNCOMPRESSED"}),
        ("lz4", {"LZ4_RAW", "LZ4"}),
        ("gzip", {"GZIP"}),
        ("brotli", {"BROTLI"}),
    ]:
        atd.write_dataset(x, tmp_path / codec, compression=codec)
        f = first_file(tmp_path / codec)
        assert pq.ParquetFile(f).metadata.row_group(0).column(0).compression in names
        got = atd.read_dataset(tmp_path / codec, format="dense").compute()
        assert np.array_equal(got, x.compute())
    with pytest.raises(ati.ArrowTensorError, match="unknown compression"):
        atd.write_dataset(x, tmp_path / "lzo", compression="lzo")


def test_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "x").write_text("")
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.write_dataset(da.zeros((3, 3), chunks=2), tmp_path / "ds")
    assert e.value.kind == "io"


def test_empty_tiles_have_no_files(tmp_path: Path) -> None:
    x = np.zeros((8, 8), dtype=np.int32)
    x[7, 7] = 4
    atd.write_dataset(da.from_array(x, chunks=4), tmp_path / "ds")
    man = json.loads((tmp_path / "ds" / "_tensor.json").read_text())
    assert [t["tile"] for t in man["tiles"]] == [[1, 1]]
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == ["_tensor.json", "tile_0=1"]
    got = atd.read_dataset(tmp_path / "ds").compute()
    assert got.dtype == np.int32 and np.array_equal(got.todense(), x)


# ---------------------------------------------------------------------------------------
# On a LocalCluster.


def test_spmv_and_axis_sums_on_a_cluster(client: Any, tmp_path: Path) -> None:
    m = matrix(5, (1200, 900), 0.01)
    atd.write_dataset(da.from_array(m.toarray(), chunks=(300, 400)), tmp_path / "ds")
    arr = atd.read_dataset(tmp_path / "ds")
    v = np.random.default_rng(3).random(900)
    y, rows, cols = bounded(
        lambda: client.compute([arr.dot(v), arr.sum(axis=1), arr.sum(axis=0)], sync=True)
    )
    np.testing.assert_allclose(y, m @ v, rtol=1e-12)
    np.testing.assert_allclose(rows.todense(), m.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(cols.todense(), m.sum(axis=0), rtol=1e-12)


def test_workers_write_a_3d_tensor_that_reads_back_equal(client: Any, tmp_path: Path) -> None:
    from distributed import get_task_stream

    x = sparse.random((40, 30, 20), density=0.05, random_state=9, format="coo")
    x = (x * 100).astype(np.int32)
    arr = da.from_array(x, chunks=(16, 16, 8), asarray=False)
    arr = bounded(lambda: client.persist(arr))
    bounded(lambda: client.wait_for_workers(2, timeout=WAIT))

    def write() -> Any:
        with client.as_current(), get_task_stream(client) as ts:
            atd.write_dataset(arr, tmp_path / "ds", dim_names=["i", "j", "k"])
        return ts.data

    stream = bounded(write)
    keys = [(t["key"] if isinstance(t["key"], str) else t["key"][0], t["worker"]) for t in stream]
    writers = {w for k, w in keys if k.startswith("_write_tile")}
    # The write tasks ran on the workers (both of them hold chunks), not in the caller.
    assert writers and writers <= set(client.scheduler_info()["workers"]), keys
    man = json.loads((tmp_path / "ds" / "_tensor.json").read_text())
    assert man["grid"] == [3, 2, 3] and man["nnz"] == x.nnz and man["value_type"] == "int32"
    back = bounded(lambda: client.compute(atd.read_dataset(tmp_path / "ds"), sync=True))
    assert back.dtype == np.int32 and np.array_equal(back.todense(), x.todense())
    dense = atd.read_dataset(tmp_path / "ds", dense=True)
    assert np.array_equal(bounded(lambda: client.compute(dense, sync=True)), x.todense())


CHUNK_TYPES = {
    "coo": lambda: sparse.COO,
    "csr": lambda: atd.CSRChunk,
    "csc": lambda: atd.CSCChunk,
    "gcxs": lambda: sparse.GCXS,
    "dense": lambda: np.ndarray,
}


def dense_of(x: Any) -> np.ndarray:
    """A computed result as numpy (pydata and scipy results densified)."""
    if hasattr(x, "todense"):
        x = x.todense()
    return np.asarray(x)


@pytest.mark.parametrize("fmt", atd.CHUNK_FORMATS)
def test_every_chunk_format_computes_on_a_cluster(client: Any, tmp_path: Path, fmt: str) -> None:
    m = matrix(21, (600, 500), 0.02)
    atd.write_dataset(da.from_array(m.toarray(), chunks=(256, 200)), tmp_path / "ds")
    arr = atd.read_dataset(tmp_path / "ds", format=fmt)
    block = bounded(lambda: client.compute(arr.blocks[1, 2], sync=True))
    assert isinstance(block, CHUNK_TYPES[fmt]()), type(block)
    assert block.shape == (256, 100) and block.dtype == np.float64
    if fmt in ("csr", "csc"):
        assert isinstance(block, sp.csr_array if fmt == "csr" else sp.csc_array)
        assert block.indices.dtype == np.int32 and block.has_sorted_indices
    persisted = bounded(lambda: client.persist(arr))
    v = np.random.default_rng(4).random(500)
    w = np.random.default_rng(5).random((500, 3))
    u = np.random.default_rng(6).random(600)
    y, y2, yw, yu, rows, cols, total = bounded(
        lambda: client.compute(
            [
                persisted.dot(v),
                persisted @ v,
                persisted @ da.from_array(w, chunks=(200, 3)),
                da.from_array(u, chunks=256) @ persisted,
                persisted.sum(axis=1),
                persisted.sum(axis=0),
                # (keepdims: distributed's serializer of pydata arrays drops the
                # fill value, which holds a 0-d sum.)
                persisted.sum(keepdims=True),
            ],
            sync=True,
        )
    )
    np.testing.assert_allclose(dense_of(y), m @ v, rtol=1e-12)
    np.testing.assert_allclose(dense_of(y2), m @ v, rtol=1e-12)
    np.testing.assert_allclose(dense_of(yw), m @ w, rtol=1e-12)
    np.testing.assert_allclose(dense_of(yu), u @ m, rtol=1e-12)
    np.testing.assert_allclose(dense_of(rows).ravel(), m.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(dense_of(cols).ravel(), m.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(dense_of(total), [[m.sum()]], rtol=1e-12)
    # Written back by the workers, from the persisted chunks: the same tensor.
    write_on(client, persisted, tmp_path / "back")
    man = json.loads((tmp_path / "back" / "_tensor.json").read_text())
    assert man["format"] == {"csr": "CSR", "csc": "CSC"}.get(fmt, "COO")
    assert man["nnz"] == m.nnz and man["tile_shape"] == [256, 200]
    back = atd.read_dataset(tmp_path / "back", format="dense").compute()
    assert np.array_equal(back, m.toarray())


@pytest.mark.parametrize("fmt", ["coo", "gcxs", "dense"])
def test_chunk_formats_of_any_rank(tmp_path: Path, fmt: str) -> None:
    x = sparse.random((30, 20, 10), density=0.05, random_state=2, format="coo")
    atd.write_dataset(da.from_array(x, chunks=(16, 8, 6), asarray=False), tmp_path / "ds")
    arr = atd.read_dataset(tmp_path / "ds", format=fmt)
    assert isinstance(arr.blocks[1, 2, 1].compute(), CHUNK_TYPES[fmt]())
    np.testing.assert_allclose(dense_of(arr.compute()), x.todense(), rtol=0)
    np.testing.assert_allclose(dense_of(arr.sum(axis=(0, 2)).compute()), x.sum(axis=(0, 2)).todense())
    y = sparse.random((7,), density=0.5, random_state=3, format="coo")
    atd.write_dataset(da.from_array(y, chunks=3, asarray=False), tmp_path / "vec")
    got = atd.read_dataset(tmp_path / "vec", format=fmt).compute()
    np.testing.assert_array_equal(dense_of(got), y.todense())


def test_csr_and_csc_need_two_dimensions(tmp_path: Path) -> None:
    atd.write_dataset(da.zeros((4, 4, 4), chunks=2), tmp_path / "ds")
    for fmt in ("csr", "csc"):
        with pytest.raises(ValueError, match="2-D"):
            atd.read_dataset(tmp_path / "ds", format=fmt)
    with pytest.raises(ValueError, match="not one of"):
        atd.read_dataset(tmp_path / "ds", format="bsr")
    # dense=True stays the alias of format="dense".
    assert isinstance(atd.read_dataset(tmp_path / "ds", dense=True).compute(), np.ndarray)


def test_dask_registrations_for_scipy_chunks() -> None:
    """What Dask computes on scipy chunks with: the package's registrations of its chunk
    classes (concatenate, tensordot), in the installed Dask."""
    from dask.array.dispatch import concatenate_lookup, tensordot_lookup

    for cls in (atd.CSRChunk, atd.CSCChunk):
        assert concatenate_lookup.dispatch(cls) is atd._concatenate
        assert tensordot_lookup.dispatch(cls) is atd._tensordot
    m = matrix(8, (50, 40), 0.1)
    c = atd.CSRChunk(m)
    assert np.array_equal(c.sum(axis=(1,), keepdims=True), m.sum(axis=1).reshape(50, 1))
    np.testing.assert_allclose(np.matmul(c, np.ones(40)), m @ np.ones(40))
    np.testing.assert_allclose(np.matmul(np.ones(50), c), np.ones(50) @ m)
    # Rechunking concatenates CSR chunks through Dask's scipy registration.
    x = da.from_array(c, chunks=(25, 20), asarray=False)
    stacked = da.concatenate([x, x]).compute()
    assert sp.issparse(stacked) and (abs(stacked - sp.vstack([m, m])).max() == 0)
    side = da.concatenate([x, x], axis=1).compute()
    assert sp.issparse(side) and (abs(side - sp.hstack([m, m])).max() == 0)


def test_typed_errors_cross_the_cluster(client: Any, tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    f = outside_tile(tmp_path / "ds")
    arr = atd.read_dataset(tmp_path / "ds")
    with pytest.raises(ati.ArrowTensorError) as e:
        bounded(lambda: client.compute(arr.sum(), sync=True))
    assert_rule(e.value, tmp_path / "ds", f, row=0)


# ---------------------------------------------------------------------------------------
# Hostile datasets.


def write_matrix(path: Path) -> sp.csr_array:
    m = matrix(11, (100, 80), 0.05)
    atd.write_dataset(da.from_array(m.toarray(), chunks=(50, 40)), path)
    return m


def assert_rule(
    e: ati.ArrowTensorError, root: Path, f: Path, row: Any = None, kind: str = "dataset"
) -> None:
    """``e`` is the crate's error for a broken rule of the dataset in ``root``: its kind,
    the file (relative to ``root``, in the message too) and the row where one applies."""
    rel = f.relative_to(root).as_posix()
    assert e.kind == kind, str(e)
    assert e.file == rel and rel in str(e), str(e)
    assert e.row == row, str(e)


def first_file(path: Path) -> Path:
    man = json.loads((path / "_tensor.json").read_text())
    return path / man["tiles"][0]["files"][0]["path"]


def outside_tile(path: Path) -> Path:
    """Rewrites the first file with its first row moved one tile down (same metadata)."""
    f = first_file(path)
    t = pq.read_table(f)
    rows = t.column(0).to_numpy().copy()
    rows[0] += 50
    t = t.set_column(0, t.schema.field(0), pa.array(rows))
    pq.write_table(t, f)
    return f


def edit_manifest(path: Path, fn: Callable[[dict], None]) -> None:
    man = json.loads((path / "_tensor.json").read_text())
    fn(man)
    (path / "_tensor.json").write_text(json.dumps(man))


def test_missing_file(tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    f = first_file(tmp_path / "ds")
    f.unlink()
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds")
    assert_rule(e.value, tmp_path / "ds", f)
    assert "missing" in str(e.value)


def test_file_vanishing_after_the_graph_is_built(tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    arr = atd.read_dataset(tmp_path / "ds")
    f = first_file(tmp_path / "ds")
    f.unlink()
    with pytest.raises(ati.ArrowTensorError) as e:
        arr.compute()
    assert_rule(e.value, tmp_path / "ds", f)


def test_unlisted_file(tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    f = first_file(tmp_path / "ds")
    shutil.copy(f, f.with_name("part-00001.parquet"))
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds")
    assert_rule(e.value, tmp_path / "ds", f.with_name("part-00001.parquet"))
    assert "does not list" in str(e.value)


def test_row_outside_its_tile(tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    f = outside_tile(tmp_path / "ds")
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds").compute()
    assert_rule(e.value, tmp_path / "ds", f, row=0)


def test_duplicate_row(tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    f = first_file(tmp_path / "ds")
    t = pq.read_table(f)
    dup = pa.concat_tables([t, t.slice(0, 1)])
    pq.write_table(dup, f)
    edit_manifest(tmp_path / "ds", lambda m: bump_first(m, 1))
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds").compute()
    assert_rule(e.value, tmp_path / "ds", f, row=t.num_rows)
    assert "second time" in str(e.value)


def bump_first(man: dict, n: int) -> None:
    man["tiles"][0]["files"][0]["nnz"] += n
    man["tiles"][0]["nnz"] += n
    man["nnz"] += n


def test_row_count_disagrees(tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    edit_manifest(tmp_path / "ds", lambda m: bump_first(m, -1))
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds").compute()
    assert_rule(e.value, tmp_path / "ds", first_file(tmp_path / "ds"))
    assert "rows" in str(e.value)


def test_schema_disagrees(tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    f = first_file(tmp_path / "ds")
    t = pq.read_table(f)
    pq.write_table(t.cast(t.schema.set(2, pa.field("value", pa.float32(), False))), f)
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds").compute()
    assert_rule(e.value, tmp_path / "ds", f)
    assert "value" in str(e.value)
    # Another tensor's shape in the metadata.
    t = t.replace_schema_metadata(
        {**t.schema.metadata, b"arrow_tensor_ipc.sparse_tensor": b'{"shape":[100,81],'
         b'"format":"COO","index_type":"int8"}'}
    )  # fmt: skip
    pq.write_table(t, f)
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds").compute()
    assert_rule(e.value, tmp_path / "ds", f)


def test_truncated_parquet(tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    f = first_file(tmp_path / "ds")
    data = f.read_bytes()
    f.write_bytes(data[: len(data) // 2])
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds").compute()
    assert_rule(e.value, tmp_path / "ds", f, kind="dataset_file")


@pytest.mark.parametrize(
    "edit, expect",
    [
        (lambda m: m.update(nnz=m["nnz"] + 1), '"nnz"'),
        (lambda m: m.update(grid=[9, 9]), '"grid"'),
        (lambda m: m["tiles"].append(m["tiles"][0]), "tiles[4]"),
        (lambda m: m["tiles"][0]["files"][0].update(path="../x.parquet"), "../x.parquet"),
        (lambda m: m["tiles"][0].update(tile=[7, 0]), "tiles[0]"),
        (lambda m: m.update(value_type="complex128"), '"value_type"'),
        (lambda m: m.update(shape=[100, -80]), '"shape"'),
        (lambda m: m.pop("arrow_tensor_ipc_dataset"), "arrow_tensor_ipc_dataset"),
    ],
)
def test_bad_manifest(tmp_path: Path, edit: Callable[[dict], None], expect: str) -> None:
    write_matrix(tmp_path / "ds")
    edit_manifest(tmp_path / "ds", edit)
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds")
    assert_rule(e.value, tmp_path / "ds", tmp_path / "ds" / "_tensor.json")
    assert expect in str(e.value)


def test_manifest_not_json_or_absent(tmp_path: Path) -> None:
    write_matrix(tmp_path / "ds")
    (tmp_path / "ds" / "_tensor.json").write_text("{not json")
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds")
    assert_rule(e.value, tmp_path / "ds", tmp_path / "ds" / "_tensor.json")
    assert "not JSON" in str(e.value)
    (tmp_path / "ds" / "_tensor.json").unlink()
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(tmp_path / "ds")
    assert_rule(e.value, tmp_path / "ds", tmp_path / "ds" / "_tensor.json")
    assert "cannot be opened" in str(e.value)


# ---------------------------------------------------------------------------------------
# Datasets of the CLI (`arrow-tensor tile` and `arrow-tensor convert DIR OUT`).


@pytest.fixture(scope="module")
def cli() -> Path:
    """The `arrow-tensor` binary: $ARROW_TENSOR_CLI, else built by cargo with the feature
    set of scripts/test.sh (a no-op after its `cargo test --all-features`)."""
    given = os.environ.get("ARROW_TENSOR_CLI")
    if given:
        return Path(given)
    root = Path(__file__).resolve().parents[2]
    subprocess.run(
        ["cargo", "build", "--quiet", "--all-features", "--bin", "arrow-tensor"],
        cwd=root,
        check=True,
        timeout=1800,
    )
    return root / "target" / "debug" / "arrow-tensor"


def write_on(client: Any, arr: Any, path: Path) -> None:
    """``write_dataset`` with ``client`` as the scheduler, bounded."""

    def go() -> None:
        with client.as_current():
            atd.write_dataset(arr, path)

    bounded(go)


def run_cli(cli: Path, *args: object) -> None:
    p = subprocess.run([str(cli), *map(str, args)], capture_output=True, timeout=WAIT)
    assert p.returncode == 0, p.stderr.decode()


def test_dask_computes_on_a_dataset_the_cli_tiled(cli: Path, client: Any, tmp_path: Path) -> None:
    import scipy.io

    m = matrix(13, (900, 700), 0.02)
    scipy.io.mmwrite(tmp_path / "m.mtx", sp.coo_matrix(m))
    run_cli(cli, "tile", tmp_path / "m.mtx", tmp_path / "ds", "--tile-shape", "256,300")
    arr = atd.read_dataset(tmp_path / "ds")
    assert arr.chunks == ((256, 256, 256, 132), (300, 300, 100))
    v = np.random.default_rng(8).random(700)
    y, rows = bounded(lambda: client.compute([arr.dot(v), arr.sum(axis=1)], sync=True))
    np.testing.assert_allclose(y, m @ v, rtol=1e-12)
    np.testing.assert_allclose(rows.todense(), m.sum(axis=1), rtol=1e-12)


def test_the_cli_reassembles_a_dataset_dask_wrote(cli: Path, client: Any, tmp_path: Path) -> None:
    import scipy.io

    m = matrix(17, (500, 300), 0.03)
    arr = da.from_array(m.toarray(), chunks=(128, 128))
    write_on(client, arr, tmp_path / "ds")
    run_cli(cli, "convert", tmp_path / "ds", tmp_path / "out.mtx")
    back = scipy.io.mmread(tmp_path / "out.mtx")
    assert back.shape == m.shape and abs(sp.csr_array(back) - m).max() == 0
    x = sparse.random((30, 20, 10), density=0.1, random_state=4, format="coo")
    write_on(client, da.from_array(x, chunks=(8, 8, 8), asarray=False), tmp_path / "t")
    run_cli(cli, "convert", tmp_path / "t", tmp_path / "t.arrows")
    (msg,) = ati.read(tmp_path / "t.arrows")
    assert msg.shape == (30, 20, 10) and np.array_equal(msg.to_numpy(), x.todense())
