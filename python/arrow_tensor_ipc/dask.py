"""Tiled tensor datasets as Dask arrays (``pip install "arrow-tensor-ipc[dask]"``).

A *tiled dataset* (``docs/dataset-format.md``) is a directory of plain Parquet COO tables,
one Hive partition directory per tile, plus a manifest ``_tensor.json``. It is what
``arrow-tensor tile`` writes, what ``arrow-tensor convert DIR OUT`` reassembles, and what
DuckDB, pyarrow or polars read as one table with ``DIR/**/*.parquet``.

- :func:`read_dataset` gives a lazy ``dask.array.Array`` with one chunk per tile: a
  pydata ``sparse.COO`` per chunk (numpy with ``dense=True``); each task memory-maps and
  checks only its own tile's files.
- :func:`write_dataset` writes a Dask array whose chunks are numpy arrays, ``sparse.COO``
  or ``scipy.sparse`` matrices: each chunk is written by a task on the worker that holds
  it, and the manifest last, by the caller.

Both run on Dask's default scheduler and, unchanged, on a ``distributed.Client``.

>>> import numpy as np, dask.array as da, tempfile, os
>>> from arrow_tensor_ipc.dask import read_dataset, write_dataset
>>> x = np.zeros((6, 5)); x[1, 2] = 3.0; x[5, 4] = -1.0
>>> path = os.path.join(tempfile.mkdtemp(), "ds")
>>> write_dataset(da.from_array(x, chunks=(4, 3)), path)
>>> arr = read_dataset(path)
>>> arr.chunks, float(arr.sum().compute())
(((4, 2), (3, 2)), 2.0)
>>> bool((read_dataset(path, dense=True).compute() == x).all())
True
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from typing import Any, Optional, Sequence, Union

import numpy as np

from ._coo_table import coordinate_type, error
from ._dataset import (
    MANIFEST,
    TileSpec,
    check_files,
    manifest_json,
    read_manifest,
    read_tile_coo,
    write_tile,
)
from ._dtypes import DTYPES, value_type_name

__all__ = ["read_dataset", "write_dataset"]

PathLike = Union[str, "os.PathLike[str]"]


def _read_chunk(spec: TileSpec, dense: bool) -> Any:
    """One task: the chunk of tile ``spec.tile``, as ``sparse.COO`` or numpy."""
    coords, values = read_tile_coo(spec)
    extents = tuple(hi - lo for lo, hi in spec.bounds())
    if dense:
        out = np.zeros(extents, dtype=DTYPES[spec.value_type])
        if values.size:
            out[tuple(coords)] = values
        return out
    import sparse

    return sparse.COO(
        coords,
        values,
        shape=extents,
        has_duplicates=False,
        sorted=True,
        fill_value=DTYPES[spec.value_type].type(0),
    )


def read_dataset(path: PathLike, *, dense: bool = False) -> Any:
    """A tiled dataset as a lazy ``dask.array.Array``, one chunk per tile.

    The manifest is read and checked here, and the directory listed: a missing file, an
    unlisted ``.parquet`` file or a manifest whose numbers disagree raise
    :class:`arrow_tensor_ipc.ArrowTensorError` at once. Each chunk's task reads only its
    tile's files (memory-mapped), checks them against the manifest (schema, metadata, row
    count, every row inside the tile, no coordinate twice) and raises
    :class:`~arrow_tensor_ipc.ArrowTensorError` naming the file (and row) when they
    disagree. Chunks are pydata ``sparse.COO`` arrays, or numpy arrays with
    ``dense=True``; empty tiles are empty chunks and read no file.
    """
    import dask.array as da
    from dask.highlevelgraph import HighLevelGraph

    root = os.path.abspath(os.fspath(path))
    man = read_manifest(root)
    check_files(man)
    chunks = man.chunks()
    dtype = DTYPES[man.value_type]
    token = __import__("dask.base", fromlist=["tokenize"]).tokenize(
        root, dense, open(os.path.join(root, MANIFEST), "rb").read()
    )
    name = f"read-dataset-{token}"
    dsk = {}
    for tile in itertools.product(*(range(len(c)) for c in chunks)):
        spec = TileSpec.of(man, tuple(tile))
        dsk[(name,) + tuple(tile)] = (_read_chunk, spec, dense)
    if dense:
        meta = np.empty((0,) * len(man.shape), dtype=dtype)
    else:
        import sparse

        meta = sparse.COO.from_numpy(np.empty((0,) * len(man.shape), dtype=dtype))
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=())
    return da.Array(graph, name, chunks, meta=meta)


def _regular_tile_shape(chunks: Sequence[Sequence[int]]) -> Optional[tuple[int, ...]]:
    """The tile shape of regular chunks (all equal but a smaller last), else ``None``."""
    out = []
    for c in chunks:
        first = c[0] if c else 0
        if any(x != first for x in c[:-1]) or (len(c) > 1 and c[-1] > first):
            return None
        out.append(max(first, 1))
    return tuple(out)


def _chunk_format(meta: Any) -> str:
    sp = sys.modules.get("scipy.sparse")
    if sp is not None and sp.issparse(meta) and meta.format in ("csr", "csc"):
        return meta.format.upper()
    return "COO"


def write_dataset(
    array: Any,
    path: PathLike,
    *,
    tile_shape: Optional[Sequence[int]] = None,
    dim_names: Optional[Sequence[str]] = None,
    compression: str = "snappy",
) -> None:
    """Writes a Dask array as a tiled dataset in ``path`` (created; it must not exist or
    be empty).

    Chunks may be numpy arrays (their non-zeros are stored), pydata ``sparse`` arrays or
    ``scipy.sparse`` matrices. ``tile_shape`` is by default the array's chunk shape, which
    must then be regular (equal chunks, a smaller last one allowed); otherwise the array is
    rechunked to ``tile_shape`` (to its largest chunks when ``tile_shape`` is not given).
    Every chunk is written by one task (on a ``distributed`` cluster, on the worker that
    holds it) as ``tile_0=i/tile_1=j/.../part-00000.parquet`` with its rows in row-major
    order; the caller writes the manifest ``_tensor.json`` once every task has finished.
    ``dim_names`` names the dimensions (and the coordinate columns); ``compression`` is
    the Parquet codec (pyarrow's names). The manifest's ``format`` is ``CSR``/``CSC`` for
    scipy CSR/CSC chunks, else ``COO``.
    """
    import dask
    import dask.array as da

    if not isinstance(array, da.Array):
        array = da.asarray(array)
    shape = tuple(int(s) for s in array.shape)
    if any(np.isnan(s) for s in array.shape):
        raise error("unsupported_layout", "the array has unknown chunk sizes; call compute_chunk_sizes()")
    rank = len(shape)
    if rank == 0:
        raise error("invalid_rank", "a dataset needs at least one dimension")
    vt = value_type_name(np.dtype(array.dtype), "the array")
    names = tuple("" if n is None else str(n) for n in (dim_names or [""] * rank))
    if len(names) != rank:
        raise error("count_mismatch", f"{len(names)} dimension names for {rank} dimensions")
    for n in names:
        if n.startswith("tile_") and n[5:].isdigit():
            raise error("reserved_name", f"dimension name {n!r} is reserved for partition keys")
    if tile_shape is None:
        ts = _regular_tile_shape(array.chunks)
        if ts is None:
            ts = tuple(max(max(c), 1) for c in array.chunks)
            array = array.rechunk(ts)
    else:
        ts = tuple(int(t) for t in tile_shape)
        if len(ts) != rank:
            raise error("count_mismatch", f"tile_shape {list(ts)} for a {rank}-D array")
        if any(t < 1 for t in ts):
            raise error("out_of_range", f"tile_shape {list(ts)}: every extent must be 1 or more")
        if _regular_tile_shape(array.chunks) != ts or any(
            len(c) != max(1, -(-s // t)) for c, s, t in zip(array.chunks, shape, ts)
        ):
            array = array.rechunk(ts)
    grid = tuple(max(1, -(-s // t)) for s, t in zip(shape, ts))
    root = os.path.abspath(os.fspath(path))
    if os.path.exists(root):
        if not os.path.isdir(root) or os.listdir(root):
            raise error("io", f"{root}: exists and is not an empty directory")
    os.makedirs(root, exist_ok=True)
    fmt = _chunk_format(getattr(array, "_meta", None))
    coordinate_type(shape)
    blocks = array.to_delayed()
    tasks = []
    for tile in itertools.product(*(range(g) for g in grid)):
        spec = TileSpec(root, tuple(tile), (), shape, names, vt, fmt, None, ts, grid)
        tasks.append(dask.delayed(write_tile, pure=False)(blocks[tile], spec, compression))
    results = dask.compute(*tasks)
    text = manifest_json(shape, names, vt, fmt, ts, grid, results)
    tmp = os.path.join(root, f".{MANIFEST}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(root, MANIFEST))
