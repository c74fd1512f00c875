"""Tiled tensor datasets (``docs/dataset-format.md``): the manifest, and one tile's files
read and written with pyarrow. The Dask layer (:mod:`arrow_tensor_ipc.dask`) runs these
functions as tasks; they need pyarrow but not Dask.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from ._coo_table import (
    COO_TABLE_KEY,
    VALUE_COLUMN,
    _parse_metadata,
    column_names,
    coo_table_metadata,
    coordinate_type,
    error,
    linear_order,
)
from ._dtypes import DTYPES, value_type_name

__all__ = ["MANIFEST", "TILE_KEY", "Manifest", "read_manifest", "read_tile", "write_tile"]

#: The manifest's file name inside a dataset directory.
MANIFEST = "_tensor.json"
#: Schema metadata key of a data file's tile.
TILE_KEY = "arrow_tensor_ipc.tile"
#: The largest rank and number of files a manifest may describe (as the crate's `Limits`).
MAX_RANK = 64
MAX_FILES = 1_000_000
_VALUE_TYPES = tuple(DTYPES)
_FORMATS = ("COO", "CSR", "CSC", "CSF")


def _bad(path: str, reason: str, kind: str = "invalid_metadata") -> Exception:
    return error(kind, f"{path}: {reason}", position=f"file {path}")


@dataclass(frozen=True)
class Manifest:
    """A dataset's manifest ``_tensor.json``, checked against the contract."""

    root: str
    shape: tuple[int, ...]
    dim_names: tuple[str, ...]
    value_type: str
    format: str
    axis_order: Optional[tuple[int, ...]]
    tile_shape: tuple[int, ...]
    grid: tuple[int, ...]
    nnz: int
    #: tile index -> [(relative path, rows)], in row-major tile order.
    tiles: dict

    @property
    def dtype(self) -> np.dtype:
        """The value type as a numpy dtype."""
        return DTYPES[self.value_type]

    def tile_bounds(self, tile: Sequence[int]) -> list[tuple[int, int]]:
        """``[lo, hi)`` of the tile along each dimension."""
        return [
            (i * t, min((i + 1) * t, s)) for i, t, s in zip(tile, self.tile_shape, self.shape)
        ]

    def chunks(self) -> tuple[tuple[int, ...], ...]:
        """Dask chunks: the tile extents along each dimension."""
        out = []
        for s, t, g in zip(self.shape, self.tile_shape, self.grid):
            out.append(tuple(min((i + 1) * t, s) - i * t for i in range(g)) if s else (0,))
        return tuple(out)

    def coo_metadata(self) -> str:
        """The ``arrow_tensor_ipc.sparse_tensor`` text every file carries."""
        return coo_table_metadata(self.shape, self.format, self.dim_names, self.axis_order)


def _sizes(v: Any, what: str, path: str, minimum: int = 0) -> tuple[int, ...]:
    if not isinstance(v, list) or not all(type(x) is int and minimum <= x < 2**63 for x in v):
        raise _bad(path, f'"{what}" must be an array of integers >= {minimum}, found {v!r}')
    return tuple(v)


def _safe_relative(rel: Any, path: str) -> str:
    if not isinstance(rel, str) or not rel:
        raise _bad(path, f"a file path {rel!r} is not a non-empty string")
    parts = rel.split("/")
    if (
        rel.startswith("/")
        or "\\" in rel
        or any(p in ("", ".", "..") for p in parts)
        or ":" in parts[0]
    ):
        raise _bad(path, f"file path {rel!r} does not stay inside the dataset directory")
    return rel


def read_manifest(root: str) -> Manifest:
    """Reads and checks ``root/_tensor.json``: its JSON, its numbers (grid against shape
    and tile shape, nnz against the tiles, tiles inside the grid, listed once, in order),
    its paths (inside ``root``, in the tile's Hive directory). Raises
    :class:`ArrowTensorError` naming the manifest and the rule."""
    root = os.fspath(root)
    path = os.path.join(root, MANIFEST)
    try:
        with open(path, "rb") as f:
            text = f.read(64 * 1024 * 1024 + 1)
    except OSError as e:
        raise error(
            "io", f"{path}: cannot read the dataset manifest ({e})", position=f"file {path}"
        ) from None
    if len(text) > 64 * 1024 * 1024:
        raise _bad(path, "the manifest is larger than 64 MiB", "limit_exceeded")
    try:
        m = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise _bad(path, f"not JSON ({e})") from None
    if not isinstance(m, dict):
        raise _bad(path, "not a JSON object")
    if m.get("arrow_tensor_ipc_dataset") != 1:
        raise _bad(
            path, f'"arrow_tensor_ipc_dataset" is {m.get("arrow_tensor_ipc_dataset")!r}, not 1'
        )
    shape = _sizes(m.get("shape"), "shape", path)
    rank = len(shape)
    if not 1 <= rank <= MAX_RANK:
        raise _bad(path, f"rank {rank} is outside 1..={MAX_RANK}", "invalid_rank")
    names = m.get("dim_names")
    if names is None:
        names = [""] * rank
    if not (isinstance(names, list) and len(names) == rank and all(isinstance(n, str) for n in names)):
        raise _bad(path, f'"dim_names" {names!r} is not one string per dimension')
    for n in names:
        if n.startswith("tile_") and n[5:].isdigit():
            raise _bad(path, f"dimension name {n!r} is reserved for partition keys")
    vt = m.get("value_type")
    if vt not in _VALUE_TYPES:
        raise _bad(path, f'"value_type" {vt!r} is not a value type name')
    fmt = m.get("format")
    if fmt not in _FORMATS:
        raise _bad(path, f'"format" {fmt!r} is not COO, CSR, CSC or CSF')
    order = m.get("axis_order")
    if order is not None:
        order = _sizes(order, "axis_order", path)
        if sorted(order) != list(range(rank)):
            raise _bad(path, f'"axis_order" {list(order)} is not a permutation of the dimensions')
    tile_shape = _sizes(m.get("tile_shape"), "tile_shape", path, 1)
    grid = _sizes(m.get("grid"), "grid", path, 1)
    if len(tile_shape) != rank or len(grid) != rank:
        raise _bad(path, f'"tile_shape" and "grid" need {rank} entries', "inconsistent")
    want = tuple(max(1, -(-s // t)) for s, t in zip(shape, tile_shape))
    if grid != want:
        raise _bad(
            path,
            f'"grid" {list(grid)} disagrees with shape {list(shape)} and tile_shape '
            f"{list(tile_shape)} (expected {list(want)})",
            "inconsistent",
        )
    nnz = m.get("nnz")
    if type(nnz) is not int or nnz < 0:
        raise _bad(path, f'"nnz" {nnz!r} is not a count')
    listed = m.get("tiles")
    if not isinstance(listed, list):
        raise _bad(path, '"tiles" is not an array')
    n_tiles = math.prod(grid)
    if len(listed) > n_tiles:
        raise _bad(path, f"{len(listed)} tiles listed for a grid of {n_tiles}", "inconsistent")
    if len(listed) > MAX_FILES:
        raise _bad(path, f"{len(listed)} tiles listed, over {MAX_FILES}", "limit_exceeded")
    tiles: dict = {}
    total = 0
    n_files = 0
    prev: Optional[tuple[int, ...]] = None
    seen_paths: set[str] = set()
    for entry in listed:
        if not isinstance(entry, dict):
            raise _bad(path, f"a tile entry {entry!r} is not an object")
        tile = _sizes(entry.get("tile"), "tile", path)
        if len(tile) != rank or any(i >= g for i, g in zip(tile, grid)):
            raise _bad(path, f"tile {list(tile)} is outside the grid {list(grid)}", "inconsistent")
        if prev is not None and tile <= prev:
            raise _bad(
                path,
                f"tile {list(tile)} is listed twice or out of row-major order",
                "inconsistent",
            )
        prev = tile
        files = entry.get("files")
        if not isinstance(files, list) or not files:
            raise _bad(path, f"tile {list(tile)} lists no files")
        n_files += len(files)
        if n_files > MAX_FILES:
            raise _bad(path, f"more than {MAX_FILES} files", "limit_exceeded")
        volume = math.prod(
            min((i + 1) * t, s) - i * t for i, t, s in zip(tile, tile_shape, shape)
        )
        hive = "/".join(f"tile_{d}={i}" for d, i in enumerate(tile)) + "/"
        parts = []
        tile_nnz = 0
        for f in files:
            if not isinstance(f, dict):
                raise _bad(path, f"a file entry {f!r} of tile {list(tile)} is not an object")
            rel = _safe_relative(f.get("path"), path)
            if not rel.startswith(hive) or "/" in rel[len(hive):] or not rel.endswith(".parquet"):
                raise _bad(
                    path,
                    f"file {rel!r} of tile {list(tile)} is not a .parquet file in {hive}",
                    "inconsistent",
                )
            if rel in seen_paths:
                raise _bad(path, f"file {rel!r} is listed twice", "inconsistent")
            seen_paths.add(rel)
            rows = f.get("nnz")
            if type(rows) is not int or rows < 0:
                raise _bad(path, f"file {rel!r} has nnz {rows!r}, not a count")
            tile_nnz += rows
            parts.append((rel, rows))
        if type(entry.get("nnz")) is not int or entry["nnz"] != tile_nnz:
            raise _bad(
                path,
                f"tile {list(tile)} has nnz {entry.get('nnz')!r} but its files hold {tile_nnz}",
                "inconsistent",
            )
        if tile_nnz > volume:
            raise _bad(
                path,
                f"tile {list(tile)} claims {tile_nnz} values in {volume} positions",
                "inconsistent",
            )
        total += tile_nnz
        tiles[tile] = parts
    if total != nnz:
        raise _bad(path, f'"nnz" {nnz} but the tiles hold {total}', "inconsistent")
    return Manifest(
        root=root,
        shape=shape,
        dim_names=tuple(names),
        value_type=vt,
        format=fmt,
        axis_order=None if order is None else tuple(order),
        tile_shape=tile_shape,
        grid=grid,
        nnz=nnz,
        tiles=tiles,
    )


def data_files(root: str) -> set[str]:
    """Relative paths (``/``-separated) of every ``.parquet`` data file under ``root``
    (names starting with ``_`` or ``.`` are not data, as engines skip them)."""
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(("_", "."))]
        rel_dir = os.path.relpath(dirpath, root)
        for name in filenames:
            if name.endswith(".parquet") and not name.startswith(("_", ".")):
                rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
                out.add(rel)
    return out


def check_files(man: Manifest) -> None:
    """Every listed file exists and no unlisted ``.parquet`` file lies under the dataset."""
    found = data_files(man.root)
    listed = {rel for parts in man.tiles.values() for rel, _ in parts}
    missing = sorted(listed - found)
    if missing:
        p = os.path.join(man.root, missing[0])
        raise error(
            "io",
            f"{p}: a file the manifest lists is missing ({len(missing)} missing)",
            position=f"file {p}",
        )
    extra = sorted(found - listed)
    if extra:
        p = os.path.join(man.root, extra[0])
        raise error(
            "inconsistent",
            f"{p}: a .parquet file the manifest does not list ({len(extra)} such files)",
            position=f"file {p}",
        )


@dataclass(frozen=True)
class TileSpec:
    """What a task needs to read or write one tile (small, pickled to workers)."""

    root: str
    tile: tuple[int, ...]
    files: tuple[tuple[str, int], ...]
    shape: tuple[int, ...]
    dim_names: tuple[str, ...]
    value_type: str
    format: str
    axis_order: Optional[tuple[int, ...]]
    tile_shape: tuple[int, ...]
    grid: tuple[int, ...]

    @staticmethod
    def of(man: Manifest, tile: tuple[int, ...]) -> "TileSpec":
        """The spec of ``tile`` of a manifest (no files when the tile is empty)."""
        return TileSpec(
            man.root,
            tile,
            tuple(man.tiles.get(tile, ())),
            man.shape,
            man.dim_names,
            man.value_type,
            man.format,
            man.axis_order,
            man.tile_shape,
            man.grid,
        )

    def bounds(self) -> list[tuple[int, int]]:
        return [
            (i * t, min((i + 1) * t, s)) for i, t, s in zip(self.tile, self.tile_shape, self.shape)
        ]

    def tile_metadata(self) -> str:
        return json.dumps(
            {"tile": list(self.tile), "tile_shape": list(self.tile_shape), "grid": list(self.grid)},
            separators=(",", ":"),
        )

    def coo_metadata(self) -> str:
        return coo_table_metadata(self.shape, self.format, self.dim_names, self.axis_order)

    def schema(self) -> Any:
        import pyarrow as pa

        ct = pa.from_numpy_dtype(DTYPES[coordinate_type(self.shape)])
        vt = pa.from_numpy_dtype(DTYPES[self.value_type])
        fields = [
            pa.field(n, ct, nullable=False)
            for n in column_names(len(self.shape), self.dim_names)
        ]
        fields.append(pa.field(VALUE_COLUMN, vt, nullable=False))
        return pa.schema(
            fields,
            metadata={COO_TABLE_KEY: self.coo_metadata(), TILE_KEY: self.tile_metadata()},
        )


def _check_schema(spec: TileSpec, schema: Any, path: str) -> None:
    """The file's Arrow schema is the one the manifest implies (columns, types,
    nullability, both metadata entries)."""
    want = spec.schema()
    got_names = list(schema.names)
    if got_names != list(want.names):
        raise _bad(path, f"columns {got_names} differ from the manifest's {list(want.names)}", "inconsistent")
    for f, w in zip(schema, want):
        if f.type != w.type:
            raise error(
                "type_mismatch",
                f"{path}: column {f.name!r} has type {f.type}, the manifest implies {w.type}",
                position=f"file {path}",
                column=f.name,
            )
        if f.nullable:
            # Parquet stores nullability; pyarrow restores `not null` from the stored schema.
            raise error(
                "inconsistent",
                f"{path}: column {f.name!r} is nullable; a dataset's columns are not",
                position=f"file {path}",
                column=f.name,
            )
    meta = schema.metadata or {}
    raw = meta.get(COO_TABLE_KEY.encode())
    if raw is None:
        raise _bad(path, f"no {COO_TABLE_KEY} schema metadata")
    try:
        coo = _parse_metadata(raw)
    except Exception as e:
        raise _bad(path, str(e)) from None
    expect = {
        "shape": list(spec.shape),
        "format": spec.format,
        "dim_names": list(spec.dim_names),
        "axis_order": None if spec.axis_order is None else list(spec.axis_order),
    }
    if coo != expect:
        raise _bad(
            path,
            f"{COO_TABLE_KEY} {coo} disagrees with the manifest {expect}",
            "inconsistent",
        )
    raw = meta.get(TILE_KEY.encode())
    if raw is None:
        raise _bad(path, f"no {TILE_KEY} schema metadata")
    try:
        tile = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise _bad(path, f"{TILE_KEY} is not JSON ({e})") from None
    expect_tile = {
        "tile": list(spec.tile),
        "tile_shape": list(spec.tile_shape),
        "grid": list(spec.grid),
    }
    if not isinstance(tile, dict) or {k: tile.get(k) for k in expect_tile} != expect_tile:
        raise _bad(path, f"{TILE_KEY} {tile!r} disagrees with the manifest {expect_tile}", "inconsistent")


def read_tile_coo(spec: TileSpec) -> tuple[np.ndarray, np.ndarray]:
    """The tile's stored values as (local coordinates ``(rank, nnz)`` int64, values),
    row-major, after checking every file against the manifest: schema and metadata, row
    count, rows inside the tile, no coordinate twice. Files are memory-mapped."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    bounds = spec.bounds()
    rank = len(spec.shape)
    names = column_names(rank, spec.dim_names)
    cols: list[list[np.ndarray]] = [[] for _ in range(rank)]
    vals: list[np.ndarray] = []
    for rel, rows in spec.files:
        path = os.path.join(spec.root, rel)
        try:
            f = pq.ParquetFile(path, memory_map=True)
            _check_schema(spec, f.schema_arrow, path)
            if f.metadata.num_rows != rows:
                raise error(
                    "count_mismatch",
                    f"{path}: {f.metadata.num_rows} rows, the manifest says {rows}",
                    position=f"file {path}",
                )
            table = f.read()
        except FileNotFoundError as e:
            raise error("io", f"{path}: missing ({e})", position=f"file {path}") from None
        except (pa.ArrowException, OSError) as e:
            raise error(
                "arrow", f"{path}: not a readable Parquet file ({e})", position=f"file {path}"
            ) from None
        if table.num_rows != rows:
            raise error(
                "count_mismatch",
                f"{path}: {table.num_rows} rows, the manifest says {rows}",
                position=f"file {path}",
            )
        for d, (name, (lo, hi)) in enumerate(zip(names, bounds)):
            a = table.column(d).to_numpy()
            if a.size and (int(a.min()) < lo or int(a.max()) >= hi):
                row = int(np.argmax((a < lo) | (a >= hi)))
                raise error(
                    "coordinate_out_of_range",
                    f"{path}: row {row} has {name} = {int(a[row])}, outside its tile "
                    f"{list(spec.tile)} ([{lo}, {hi}))",
                    position=f"file {path}, row {row}",
                    column=name,
                    row=row,
                )
            cols[d].append(a)
        vals.append(table.column(rank).to_numpy())
    extents = [hi - lo for lo, hi in bounds]
    if not vals:
        return np.zeros((rank, 0), dtype=np.int64), np.zeros(0, dtype=DTYPES[spec.value_type])
    values = np.concatenate(vals) if len(vals) > 1 else vals[0]
    # Local int64 coordinates, one converting pass per column.
    coords = np.empty((rank, len(values)), dtype=np.int64)
    for d, ((lo, _), parts) in enumerate(zip(bounds, cols)):
        a = np.concatenate(parts) if len(parts) > 1 else parts[0]
        np.subtract(a, lo, out=coords[d], dtype=np.int64)
    what = os.path.join(spec.root, spec.files[0][0]) if len(spec.files) == 1 else (
        f"tile {list(spec.tile)} of {spec.root}"
    )
    perm = linear_order(list(coords), extents, what)
    if perm.size:
        coords = coords[:, perm]
        values = values[perm]
    return coords, values


def block_coo(block: Any, origin: Sequence[int]) -> tuple[list[np.ndarray], np.ndarray, str]:
    """A Dask block (numpy, pydata sparse, scipy.sparse) as global row-major coordinate
    columns (int64), its stored non-zero values, and the layout name of the block."""
    import sys

    sp = sys.modules.get("scipy.sparse")
    pydata = sys.modules.get("sparse")
    if sp is not None and sp.issparse(block):
        fmt = block.format.upper() if block.format in ("csr", "csc") else "COO"
        c = block.tocoo()
        c.sum_duplicates()  # also sorts row-major
        coords = list(getattr(c, "coords", None) or (c.row, c.col))
        local = [np.asarray(x, dtype=np.int64) for x in coords]
        values = np.asarray(c.data)
    elif pydata is not None and isinstance(block, getattr(pydata, "SparseArray", ())):
        c = block.tocoo() if not isinstance(block, pydata.COO) else block
        if not c.fill_value == 0:
            raise error("unsupported_layout", f"a sparse block with fill value {c.fill_value!r}")
        local = [np.asarray(x, dtype=np.int64) for x in c.coords]
        values = np.asarray(c.data)
        fmt = "COO"
    else:
        a = np.asarray(block)
        nz = np.nonzero(a)
        local = [x.astype(np.int64, copy=False) for x in nz]
        values = a[nz]
        fmt = "COO"
    keep = values != 0
    if values.dtype.kind == "f":
        keep |= np.isnan(values)
    if not keep.all():
        local = [x[keep] for x in local]
        values = values[keep]
    return [x + o if o else x for x, o in zip(local, origin)], values, fmt


def write_tile(block: Any, spec: TileSpec, compression: str = "snappy") -> tuple:
    """Writes one block as tile ``spec.tile`` (``part-00000.parquet`` in its Hive
    directory, rows sorted row-major, through a temporary name then renamed); returns
    ``(tile, [(relative path, rows)], nnz)``, no file for an empty block."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    bounds = spec.bounds()
    extents = tuple(hi - lo for lo, hi in bounds)
    if tuple(np.shape(block)) != extents:
        raise error(
            "inconsistent",
            f"block of shape {tuple(np.shape(block))} for tile {list(spec.tile)} of extents {extents}",
        )
    cols, values, _ = block_coo(block, [lo for lo, _ in bounds])
    if values.size == 0:
        return (spec.tile, [], 0)
    value_type_name(values.dtype, "the array")
    perm = linear_order(cols, spec.shape, f"tile {list(spec.tile)}")
    if perm.size:
        cols = [c[perm] for c in cols]
        values = values[perm]
    schema = spec.schema()
    ct = DTYPES[coordinate_type(spec.shape)]
    arrays = [pa.array(c.astype(ct, copy=False)) for c in cols]
    vdt = DTYPES[spec.value_type]
    arrays.append(pa.array(np.ascontiguousarray(values.astype(vdt, copy=False))))
    table = pa.Table.from_arrays(arrays, schema=schema)
    hive = "/".join(f"tile_{d}={i}" for d, i in enumerate(spec.tile))
    rel = f"{hive}/part-00000.parquet"
    directory = os.path.join(spec.root, *hive.split("/"))
    os.makedirs(directory, exist_ok=True)
    final = os.path.join(directory, "part-00000.parquet")
    tmp = os.path.join(directory, f".part-00000.parquet.{os.getpid()}.tmp")
    pq.write_table(table, tmp, compression=compression)
    os.replace(tmp, final)
    return (spec.tile, [(rel, len(values))], len(values))


def manifest_json(
    shape: Sequence[int],
    dim_names: Sequence[str],
    value_type: str,
    format: str,
    tile_shape: Sequence[int],
    grid: Sequence[int],
    results: Sequence[tuple],
) -> str:
    """The manifest text for the results of :func:`write_tile` (any order)."""
    tiles = sorted((r for r in results if r[2]), key=lambda r: tuple(r[0]))
    doc = {
        "arrow_tensor_ipc_dataset": 1,
        "shape": [int(s) for s in shape],
        "dim_names": [str(n) for n in dim_names],
        "value_type": value_type,
        "format": format,
        "axis_order": None,
        "tile_shape": [int(t) for t in tile_shape],
        "grid": [int(g) for g in grid],
        "nnz": int(sum(r[2] for r in tiles)),
        "tiles": [
            {
                "tile": [int(i) for i in tile],
                "nnz": int(n),
                "files": [{"path": p, "nnz": int(k)} for p, k in files],
            }
            for tile, files, n in tiles
        ],
    }
    return json.dumps(doc, indent=1) + "\n"
