"""Tiled tensor datasets as Dask arrays (``pip install "arrow-tensor-ipc[dask]"``).

A *tiled dataset* (``docs/dataset-format.md``) is a directory of plain Parquet COO tables,
one Hive partition directory per tile, plus a manifest ``_tensor.json``. It is what
``arrow-tensor tile`` writes, what ``arrow-tensor convert DIR OUT`` reassembles, and what
DuckDB, pyarrow or polars read as one table with ``DIR/**/*.parquet``.

- :func:`read_dataset` gives a lazy ``dask.array.Array`` with one chunk per tile, in the
  chunk format asked for: pydata ``sparse.COO`` (the default), scipy ``csr_array`` or
  ``csc_array`` (2-D), pydata ``sparse.GCXS`` (any rank) or numpy. Each task reads only its
  own tile's files with the Rust crate (memory-mapped, checked against the manifest) and
  builds its chunk from the arrays the crate returns, without copying them.
- :func:`write_dataset` writes a Dask array whose chunks are numpy arrays, pydata
  ``sparse`` arrays or ``scipy.sparse`` matrices and arrays: each chunk is written by a task
  on the worker that holds it, and the manifest last, by the caller.

Every rule of the format (the manifest, the files, their rows) is checked by the Rust
crate, and every error is its :class:`~arrow_tensor_ipc.ArrowTensorError`, with the kind
(``"dataset"`` for a broken rule, ``"dataset_file"`` for a file the Parquet reader
refuses), the ``file`` (relative to the dataset's directory) and the ``row`` where one
applies. Both functions run on Dask's default scheduler and, unchanged, on a
``distributed.Client``.

>>> import numpy as np, dask.array as da, tempfile, os
>>> from arrow_tensor_ipc.dask import read_dataset, write_dataset
>>> x = np.zeros((6, 5)); x[1, 2] = 3.0; x[5, 4] = -1.0
>>> path = os.path.join(tempfile.mkdtemp(), "ds")
>>> write_dataset(da.from_array(x, chunks=(4, 3)), path)
>>> arr = read_dataset(path)
>>> arr.chunks, float(arr.sum().compute())
(((4, 2), (3, 2)), 2.0)
>>> bool((read_dataset(path, format="dense").compute() == x).all())
True
>>> float((read_dataset(path, format="csr") @ np.ones(5)).sum().compute())
2.0
"""

from __future__ import annotations

import itertools
import os
import sys
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Union

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp
from dask.array.backends import _tensordot_scipy_sparse
from dask.array.dispatch import concatenate_lookup, tensordot_lookup
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from . import _native
from ._dtypes import DTYPES, value_type_name
from ._inputs import to_native

__all__ = ["CHUNK_FORMATS", "CSCChunk", "CSRChunk", "read_dataset", "write_dataset"]

PathLike = Union[str, "os.PathLike[str]"]

#: The chunk formats of :func:`read_dataset`.
CHUNK_FORMATS = ("coo", "csr", "csc", "gcxs", "dense")


@dataclass(frozen=True)
class _TileSpec:
    """What a task needs to read one tile (small, pickled to workers): the dataset's
    directory, the manifest of this tile alone (JSON), the tile, its extents and the chunk
    format."""

    root: str
    manifest: str
    tile: tuple[int, ...]
    extents: tuple[int, ...]
    format: str
    storage_options: Optional[tuple[tuple[str, str], ...]] = None


def _read_chunk(spec: _TileSpec) -> Any:
    """One task: the chunk of tile ``spec.tile`` in ``spec.format``."""
    options = None if spec.storage_options is None else list(spec.storage_options)
    parts = _native.read_tile(spec.root, spec.manifest, list(spec.tile), spec.format, options)
    shape = spec.extents
    if spec.format == "coo":
        import sparse

        coords, values = parts
        return sparse.COO(
            coords,
            values,
            shape=shape,
            has_duplicates=False,
            sorted=True,
            fill_value=values.dtype.type(0),
        )
    if spec.format == "dense":
        return parts[0].reshape(shape)
    values, indices, indptr = parts
    if spec.format == "gcxs":
        import sparse

        axes = (0,) if len(shape) > 1 else None
        return sparse.GCXS(
            (values, indices, indptr),
            shape=shape,
            compressed_axes=axes,
            fill_value=values.dtype.type(0),
        )
    cls = CSRChunk if spec.format == "csr" else CSCChunk
    return cls((values, indices, indptr), shape=shape)


# ---------------------------------------------------------------------------------------
# scipy chunks that Dask computes on.
#
# Dask's reductions call ``chunk.sum(..., keepdims=True)``, which scipy's ``sum`` does not
# take; its ``matmul`` calls ``numpy.matmul`` on the chunks, which scipy's arrays do not
# implement; its tensordot of scipy chunks refuses a 1-D operand (``arr.dot(v)``); and
# Dask before 2024.12 registers scipy's sparse matrices but not its sparse arrays for
# concatenation. The chunk classes below are scipy's CSR and CSC arrays with a ``sum``
# that takes ``keepdims`` and ``numpy.matmul`` through scipy's product, registered with
# Dask for tensordot (one contracted axis, operands of rank 1 or 2) and concatenation.
# Everything else is scipy's.


class _DaskMethods:
    """What Dask needs of a 2-D scipy chunk beyond scipy's own methods."""

    shape: tuple[int, ...]

    def sum(
        self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False
    ) -> Any:
        """scipy's ``sum``, also taking a tuple of axes and ``keepdims`` (a numpy array
        then)."""
        axes = _axes(axis)
        r = super().sum(axis=None if len(axes) == 2 else axes[0], dtype=dtype)  # type: ignore[misc]
        if keepdims:
            r = np.asarray(r).reshape([1 if d in axes else n for d, n in enumerate(self.shape)])
        if out is not None:
            out[...] = r
            return out
        return r

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``numpy.matmul`` as scipy's product; other ufuncs are not taken."""
        if ufunc is np.matmul and method == "__call__" and not kwargs and len(inputs) == 2:
            return _product(*inputs)
        return NotImplemented


class CSRChunk(_DaskMethods, sp.csr_array):
    """A scipy ``csr_array`` that Dask computes on (``sum`` with ``keepdims``,
    ``numpy.matmul``, tensordot with a vector): the chunk type of
    ``read_dataset(..., format="csr")``. Everything else is scipy's."""


class CSCChunk(_DaskMethods, sp.csc_array):
    """A scipy ``csc_array`` that Dask computes on: the chunk type of
    ``read_dataset(..., format="csc")``."""


def _axes(axis: Any) -> tuple[int, ...]:
    """A 2-D reduction's axes as a sorted tuple of non-negative axes."""
    if axis is None:
        return (0, 1)
    items = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted({int(a) % 2 for a in items}))


def _tensordot(a: Any, b: Any, axes: Any) -> Any:
    """Dask's tensordot of a sparse chunk with an operand of rank 1 or 2 (either side), one
    contracted axis: scipy's product, the contracted axes moved into place."""
    (ia,), (ib,) = ([x] if isinstance(x, int) else list(x) for x in axes)
    if np.ndim(a) > 2 or np.ndim(b) > 2:
        return _tensordot_scipy_sparse(a, b, axes=axes)
    left = a.T if (np.ndim(a) == 2 and ia % 2 == 0) else a
    right = b.T if (np.ndim(b) == 2 and ib % 2 == 1) else b
    return _product(left, right)


def _product(a: Any, b: Any) -> Any:
    """``a @ b`` with a sparse operand on either side (dense @ sparse runs as the
    transposed sparse product, which does not come back to numpy's ``matmul``)."""
    if sp.issparse(a) or not sp.issparse(b):
        return a @ b
    return (b.T @ np.transpose(a)).T


def _concatenate(chunks: Sequence[Any], axis: int = 0) -> Any:
    """Dask's concatenation of 2-D scipy chunks (rechunking, stacking)."""
    if axis % 2 == 0:
        return sp.vstack(chunks, format="csr")
    return sp.hstack(chunks, format="csc")


for _cls in (CSRChunk, CSCChunk):
    tensordot_lookup.register(_cls, _tensordot)
    concatenate_lookup.register(_cls, _concatenate)
# Older scipy gives its own arrays when a chunk is sliced (rechunking), and Dask versions
# that register scipy's sparse matrices but not its sparse arrays would concatenate them
# with numpy: they get the same registrations then.
if concatenate_lookup.dispatch(sp.csr_array) is np.concatenate:
    concatenate_lookup.register(sp.sparray, _concatenate)
    tensordot_lookup.register(sp.sparray, _tensordot)


def _meta(format: str, rank: int, dtype: np.dtype) -> Any:
    """An empty array of the chunk type (Dask's ``meta``)."""
    empty = np.empty((0,) * rank, dtype=dtype)
    if format == "dense":
        return empty
    if format in ("csr", "csc"):
        return (CSRChunk if format == "csr" else CSCChunk)((0, 0), dtype=dtype)
    import sparse

    coo = sparse.COO.from_numpy(empty)
    return coo if format == "coo" else sparse.GCXS(coo)


def _location(path: Union[PathLike, str]) -> str:
    """An object-store URL as it is, a local path made absolute (tasks may run elsewhere)."""
    text = os.fspath(path)
    return text if _native.is_url(text) else os.path.abspath(text)


def _pairs(options: Optional[Mapping[str, str]]) -> Optional[tuple[tuple[str, str], ...]]:
    return None if options is None else tuple((str(k), str(v)) for k, v in options.items())


def read_dataset(
    path: PathLike,
    *,
    format: str = "coo",
    dense: bool = False,
    storage_options: Optional[Mapping[str, str]] = None,
) -> Any:
    """A tiled dataset as a lazy ``dask.array.Array``, one chunk per tile.

    The manifest is read and checked here, and the directory listed: a missing file, an
    unlisted ``.parquet`` file or a manifest that breaks a rule raise
    :class:`arrow_tensor_ipc.ArrowTensorError` at once. Each chunk's task reads only its
    tile's files (memory-mapped: do not rewrite them while a computation reads them),
    checks them against the manifest (schema, metadata, row count, every row inside the
    tile, no coordinate twice) and raises :class:`~arrow_tensor_ipc.ArrowTensorError`
    naming the ``file`` (and ``row``) when they disagree. Empty tiles are empty chunks and
    read no file.

    ``format`` is the chunk type: ``"coo"`` (pydata ``sparse.COO``), ``"csr"`` or
    ``"csc"`` (scipy ``csr_array``/``csc_array``, 2-D datasets only; int32 indices where
    they fit), ``"gcxs"`` (pydata ``sparse.GCXS`` compressed along the first axis, any
    rank) or ``"dense"`` (numpy). ``dense=True`` is ``format="dense"``.

    ``path`` may be an object-store URL (``s3://bucket/prefix``, ``http(s)://``,
    ``file://``): the caller lists the prefix once, and each task fetches only its own
    tile's objects. Credentials, region and endpoint come from the environment (``AWS_*``)
    and from ``storage_options`` (the ``object_store`` builders' keys: ``aws_endpoint``,
    ``aws_access_key_id``, ``aws_secret_access_key``, ``aws_region``, ``aws_allow_http``,
    ``timeout``, ...), which travel with every task of the graph.
    """
    if dense:
        format = "dense"
    format = str(format).lower()
    if format not in CHUNK_FORMATS:
        raise ValueError(f"format {format!r} is not one of {', '.join(CHUNK_FORMATS)}")
    root = _location(path)
    pairs = _pairs(storage_options)
    ds = _native.Dataset(root, None if pairs is None else list(pairs))
    shape = tuple(ds.shape)
    if format in ("csr", "csc") and len(shape) != 2:
        raise ValueError(
            f"format {format!r} needs a 2-D dataset; this one has shape {list(shape)} "
            "(use 'coo' or 'gcxs')"
        )
    chunks = tuple(tuple(c) for c in ds.chunks)
    manifest = ds.manifest_json()
    name = f"read-dataset-{tokenize(root, format, manifest)}"
    dsk = {}
    for tile in itertools.product(*(range(len(c)) for c in chunks)):
        extents = tuple(c[i] for c, i in zip(chunks, tile))
        spec = _TileSpec(root, ds.tile_manifest(list(tile)), tuple(tile), extents, format, pairs)
        dsk[(name,) + tuple(tile)] = (_read_chunk, spec)
    meta = _meta(format, len(shape), DTYPES[ds.value_type])
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
    if sp.issparse(meta) and meta.format in ("csr", "csc"):
        return meta.format.upper()
    return "COO"


def _block_message(block: Any) -> Any:
    """A chunk as a native message: numpy and scipy through the package's input glue,
    pydata sparse arrays by their COO coordinates."""
    pydata = sys.modules.get("sparse")
    if pydata is not None and isinstance(block, getattr(pydata, "SparseArray", ())):
        c = block if isinstance(block, pydata.COO) else block.tocoo()
        if not c.fill_value == 0:
            raise _native.ArrowTensorError(
                f"a sparse block with fill value {c.fill_value!r} is not a tensor with zeros "
                "where nothing is stored"
            )
        data = np.ascontiguousarray(c.data)
        vt = value_type_name(data.dtype, "the block")
        coords = np.ascontiguousarray(np.asarray(c.coords, dtype=np.int64).T)
        return _native.coo(vt, list(c.shape), data, coords, "int64", None, True)
    return to_native(block)


def _write_tile(
    block: Any,
    root: str,
    layout: tuple,
    tile: tuple,
    compression: str,
    storage: Optional[list[tuple[str, str]]],
) -> tuple:
    """One task: writes ``block`` as tile ``tile``; returns ``(tile, [(path, rows)])``."""
    message = _block_message(block)
    files = _native.write_tile(root, *layout, list(tile), message, compression, storage)
    return (tile, files)


def write_dataset(
    array: Any,
    path: PathLike,
    *,
    tile_shape: Optional[Sequence[int]] = None,
    dim_names: Optional[Sequence[str]] = None,
    compression: str = "snappy",
    storage_options: Optional[Mapping[str, str]] = None,
) -> None:
    """Writes a Dask array as a tiled dataset in ``path`` (created; it must not exist or
    be empty), or at an object-store URL (its prefix must hold no object; see
    :func:`read_dataset` for URLs and ``storage_options``).

    Chunks may be numpy arrays (their non-zeros are stored), pydata ``sparse`` arrays or
    ``scipy.sparse`` matrices and arrays (their stored values are stored). ``tile_shape``
    is by default the array's chunk shape, which must then be regular (equal chunks, a
    smaller last one allowed); otherwise the array is rechunked to ``tile_shape`` (to its
    largest chunks when ``tile_shape`` is not given). Every chunk is written by one task
    (on a ``distributed`` cluster, on the worker that holds it) as
    ``tile_0=i/tile_1=j/.../part-00000.parquet`` with its rows in row-major order; the
    caller writes the manifest ``_tensor.json`` once every task has finished.
    ``dim_names`` names the dimensions (and the coordinate columns); ``compression`` is
    the Parquet codec (``"snappy"``, ``"zstd"``, ``"lz4"``, ``"gzip"``, ``"brotli"`` or
    ``"none"``, at pyarrow's default levels). The manifest's
    ``format`` is ``CSR``/``CSC`` for scipy CSR/CSC chunks, else ``COO``.
    """
    if not isinstance(array, da.Array):
        array = da.asarray(array)
    if any(np.isnan(s) for s in array.shape):
        raise _native.ArrowTensorError(
            "the array has unknown chunk sizes; call compute_chunk_sizes()"
        )
    shape = tuple(int(s) for s in array.shape)
    rank = len(shape)
    vt = value_type_name(np.dtype(array.dtype), "the array")
    names = ["" if n is None else str(n) for n in (dim_names or [""] * rank)]
    if tile_shape is None:
        ts = _regular_tile_shape(array.chunks) or tuple(max(max(c), 1) for c in array.chunks)
    else:
        ts = tuple(int(t) for t in tile_shape)
    root = _location(path)
    storage = None if storage_options is None else list(_pairs(storage_options) or ())
    layout = (list(shape), names, vt, _chunk_format(getattr(array, "_meta", None)), list(ts))
    # The crate checks what the dataset records (rank, names, tile shape), the codec, and
    # that the directory is new or empty, before any task runs.
    _native.create_dataset(root, *layout, compression, storage)
    # Chunks of the tile shape are the tiles (a smaller last chunk is the grid's edge).
    if _regular_tile_shape(array.chunks) != ts:
        array = array.rechunk(ts)
    blocks = array.to_delayed()
    write = dask.delayed(_write_tile, pure=False)
    tasks = [
        write(blocks[tile], root, layout, tile, compression, storage)
        for tile in itertools.product(*(range(g) for g in array.numblocks))
    ]
    results = dask.compute(*tasks)
    tiles = [(list(t), files) for t, files in results if files]
    _native.write_manifest(root, *layout, tiles, storage)
