"""Tensors as COO tables (``pyarrow.Table``) and back.

A COO table holds one stored value per row: one integer column per dimension (named by the
dimension name, ``dim_<d>`` when unnamed) holding the coordinates, then a ``value`` column.
Its schema is the one the Rust crate's ``record_batch::sparse_to_coo_table`` writes, so
tables made here and there are interchangeable (and so are the files of a tiled dataset,
see ``docs/dataset-format.md``):

- coordinate columns of the narrowest signed integer type that holds ``max(shape) - 1``
  (:func:`coordinate_type`), non-nullable;
- a non-nullable ``value`` column of the tensor's value type;
- schema metadata ``arrow_tensor_ipc.sparse_tensor``: JSON with ``shape``, ``format``,
  ``index_type`` and, when present, ``dim_names`` and ``axis_order``.

How the data crosses between numpy and Arrow: as numpy arrays that pyarrow wraps without
a copy (``pyarrow.array(ndarray)``, ``ChunkedArray.to_numpy()`` for non-null primitive
columns). This was chosen by measurement (``bench/coo_table.py``, 2-D float64, 2 cores):
``to_coo_table`` takes 3.4 ms for 1M rows and 29 ms for 10M. The IPC-bytes route spends
2.1 ms and 31 ms just encoding and decoding the table, on top of the same column work.
``from_coo_table`` takes 16 ms and 142 ms, mostly checking row order in numpy.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import _native
from ._dtypes import DTYPES, value_type_name
from ._inputs import to_native
from ._message import SparseTensor, Tensor, wrap
from ._native import ArrowTensorError

__all__ = [
    "COO_TABLE_KEY",
    "VALUE_COLUMN",
    "coordinate_type",
    "coo_table_metadata",
    "from_coo_table",
    "to_coo_table",
]

#: Schema metadata key of a COO table.
COO_TABLE_KEY = "arrow_tensor_ipc.sparse_tensor"
#: The name of the values column.
VALUE_COLUMN = "value"

_FORMATS = {"coo": "COO", "csr": "CSR", "csc": "CSC", "csf": "CSF"}
_SIGNED = [("int8", 127), ("int16", 32767), ("int32", 2**31 - 1), ("int64", 2**63 - 1)]


def error(kind: str, message: str, **where: Any) -> ArrowTensorError:
    """An :class:`ArrowTensorError` with ``kind`` and position attributes set, as the
    crate's errors carry them."""
    e = ArrowTensorError(message)
    e.kind = kind
    for k, v in where.items():
        setattr(e, k, v)
    return e


def coordinate_type(shape: Sequence[int]) -> str:
    """The type name of the coordinate columns of a COO table of a tensor of ``shape``: the
    narrowest signed integer type that holds ``max(shape) - 1``.

    >>> coordinate_type([3, 200])
    'int16'
    """
    widest = max((max(int(d) - 1, 0) for d in shape), default=0)
    return next(name for name, top in _SIGNED if widest <= top)


def _json_text(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def coo_table_metadata(
    shape: Sequence[int],
    format: str = "COO",
    dim_names: Optional[Sequence[str]] = None,
    axis_order: Optional[Sequence[int]] = None,
) -> str:
    """The JSON text stored under ``arrow_tensor_ipc.sparse_tensor``, byte for byte as the
    Rust crate writes it (the COO-table metadata of ``record_batch::sparse_to_coo_table``)."""
    shape = [int(d) for d in shape]
    s = (
        f'{{"shape":{_json_text(shape)},"format":"{format}",'
        f'"index_type":"{coordinate_type(shape)}"'
    )
    if dim_names is not None and any(dim_names):
        s += ',"dim_names":' + _json_text([str(n) for n in dim_names])
    if axis_order is not None:
        s += ',"axis_order":' + _json_text([int(d) for d in axis_order])
    return s + "}"


def column_names(ndim: int, dim_names: Optional[Sequence[str]]) -> list[str]:
    """The coordinate column names: the dimension names, ``dim_<d>`` where unnamed."""
    names = list(dim_names) if dim_names is not None else [""] * ndim
    return [n if n else f"dim_{d}" for d, n in enumerate(names)]


def _parse_metadata(text: Union[str, bytes]) -> dict:
    """The COO-table metadata JSON, checked (shape, format, dim_names, axis_order)."""

    def bad(reason: str) -> ArrowTensorError:
        return error("invalid_metadata", f"{COO_TABLE_KEY}: {reason}")

    try:
        meta = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise bad(f"not JSON ({e})") from None
    if not isinstance(meta, dict):
        raise bad(f"not a JSON object: {meta!r}")

    def sizes(key: str) -> Optional[list[int]]:
        v = meta.get(key)
        if v is None:
            return None
        if not isinstance(v, list) or not all(
            type(x) is int and 0 <= x < 2**63 for x in v
        ):
            raise bad(f'"{key}" must be an array of sizes, found {v!r}')
        return v

    shape = sizes("shape")
    if shape is None:
        raise bad('no "shape"')
    fmt = meta.get("format")
    if fmt not in ("COO", "CSR", "CSC", "CSF"):
        raise bad(f'"format" {fmt!r} is not COO, CSR, CSC or CSF')
    names = meta.get("dim_names")
    if names is None:
        names = [""] * len(shape)
    elif not (
        isinstance(names, list)
        and len(names) == len(shape)
        and all(isinstance(n, str) for n in names)
    ):
        raise bad(f'"dim_names" {names!r} is not one string per dimension')
    order = sizes("axis_order")
    if order is not None and sorted(order) != list(range(len(shape))):
        raise bad(f'"axis_order" {order!r} is not a permutation of the {len(shape)} dimensions')
    return {"shape": shape, "format": fmt, "dim_names": names, "axis_order": order}


# ---------------------------------------------------------------------------------------
# To a table.


def _parts(obj: Any, dim_names: Optional[Sequence[str]]) -> tuple:
    """(shape, dim_names, format, axis_order, coordinate columns, values) of a tensor-like
    object; the columns are 1-D integer arrays, shared with ``obj`` where it has them."""
    sp = sys.modules.get("scipy.sparse")
    if sp is not None and sp.issparse(obj):
        fmt = obj.format
        if fmt in ("csr", "csc"):
            if not obj.has_canonical_format:
                obj = obj.copy()
                obj.sum_duplicates()
            major = np.repeat(
                np.arange(obj.shape[0 if fmt == "csr" else 1], dtype=np.int64),
                np.diff(obj.indptr),
            )
            cols = [major, obj.indices] if fmt == "csr" else [obj.indices, major]
            return (obj.shape, dim_names, fmt.upper(), None, cols, np.asarray(obj.data))
        if fmt != "coo":
            obj = obj.tocoo()
        if not obj.has_canonical_format:
            obj = obj.copy()
            obj.sum_duplicates()
        coords = getattr(obj, "coords", None) or (obj.row, obj.col)
        return (obj.shape, dim_names, "COO", None, list(coords), np.asarray(obj.data))
    pydata = sys.modules.get("sparse")
    if pydata is not None and isinstance(obj, getattr(pydata, "SparseArray", ())):
        if not isinstance(obj, pydata.COO):
            obj = obj.tocoo()
        if not obj.fill_value == 0:
            raise error(
                "unsupported_layout",
                f"a sparse.COO with fill value {obj.fill_value!r} is not a tensor with "
                "zeros where nothing is stored",
            )
        return (obj.shape, dim_names, "COO", None, list(obj.coords), np.asarray(obj.data))
    if isinstance(obj, np.ndarray) or isinstance(obj, Tensor):
        a = obj.to_numpy() if isinstance(obj, Tensor) else obj
        names = dim_names if dim_names is not None else (
            list(obj.dim_names) if isinstance(obj, Tensor) else None
        )
        value_type_name(a.dtype, "the array")
        if a.ndim == 0:
            a = a.reshape(1)
        nz = np.nonzero(a)
        return (a.shape, names, "COO", None, list(nz), a[nz])
    if not isinstance(obj, SparseTensor):
        m = to_native(obj, dim_names)
        obj = wrap(m)
        if isinstance(obj, Tensor):
            return _parts(obj, dim_names)
    names = dim_names if dim_names is not None else list(obj.dim_names)
    fmt = obj.format
    if fmt in ("CSR", "CSC"):
        obj.validate() if not obj.is_validated else None
        indptr = obj.indptr.astype(np.int64, copy=False)
        major = np.repeat(
            np.arange(obj.shape[0 if fmt == "CSR" else 1], dtype=np.int64), np.diff(indptr)
        )
        cols = [major, obj.indices] if fmt == "CSR" else [obj.indices, major]
        return (obj.shape, names, fmt, None, cols, obj.values)
    order = obj.axis_order if fmt == "CSF" else None
    coo = obj if fmt == "COO" else obj.to_format("coo")
    if not coo.is_validated:
        coo = coo.validate()
    coords = coo.coords
    return (obj.shape, names, fmt, order, [coords[:, d] for d in range(coords.shape[1])], coo.values)


def to_coo_table(obj: Any, *, dim_names: Optional[Sequence[str]] = None) -> Any:
    """A tensor as a COO table (``pyarrow.Table``): one row per stored value, one
    coordinate column per dimension, then ``value``, with the schema the Rust crate writes.

    ``obj`` is this package's :class:`SparseTensor` or :class:`Tensor`, a numpy array (its
    non-zeros become rows, row-major), a ``scipy.sparse`` array or matrix, a pydata
    ``sparse.COO``, or anything :func:`arrow_tensor_ipc.dumps` takes. ``dim_names`` names the
    dimensions (and so the columns). Rows come in storage order (row by row for CSR, column
    by column for CSC, row-major for COO and CSF); a scipy or pydata input with duplicates
    has them summed first.

    Columns share the memory of ``obj`` where its arrays already have the table's types;
    otherwise each column is one converting copy.

    >>> import numpy as np, arrow_tensor_ipc as ati
    >>> t = ati.to_coo_table(np.array([[0, 5], [7, 0]], dtype=np.int32))
    >>> t.column_names, t.column("value").to_pylist()
    (['dim_0', 'dim_1', 'value'], [5, 7])
    """
    import pyarrow as pa

    shape, names, fmt, order, cols, values = _parts(obj, dim_names)
    shape = [int(d) for d in shape]
    if names is not None and len(names) != len(shape):
        raise error(
            "count_mismatch",
            f"{len(names)} dimension names for a tensor of {len(shape)} dimensions",
        )
    names = None if names is None else ["" if n is None else str(n) for n in names]
    ct = coordinate_type(shape)
    cdt = DTYPES[ct]
    values = np.asarray(values)
    value_type_name(values.dtype, "the values")
    values = values.astype(values.dtype.newbyteorder("<"), copy=False)
    arrays = [pa.array(np.ascontiguousarray(c, dtype=cdt)) for c in cols]
    arrays.append(pa.array(np.ascontiguousarray(values)))
    col_names = column_names(len(shape), names)
    if len(set(col_names)) != len(col_names) or VALUE_COLUMN in col_names:
        raise error(
            "duplicate_name",
            f"column names {col_names} (from the dimension names) are not distinct from "
            "each other and from 'value'",
        )
    fields = [pa.field(n, a.type, nullable=False) for n, a in zip(col_names, arrays)]
    fields.append(pa.field(VALUE_COLUMN, arrays[-1].type, nullable=False))
    meta = {COO_TABLE_KEY: coo_table_metadata(shape, fmt, names, order)}
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=meta))


# ---------------------------------------------------------------------------------------
# From a table.


def _as_table(table: Any) -> Any:
    import pyarrow as pa

    if isinstance(table, pa.Table):
        return table
    if isinstance(table, pa.RecordBatch):
        return pa.Table.from_batches([table])
    if isinstance(table, pa.RecordBatchReader):
        return table.read_all()
    if hasattr(table, "__arrow_c_stream__"):
        return pa.table(table)
    for method in ("to_arrow_table", "to_arrow", "arrow"):
        f = getattr(table, method, None)
        if callable(f):
            return _as_table(f())
    raise TypeError(
        f"expected a pyarrow Table, RecordBatch or RecordBatchReader, got {type(table).__name__}"
    )


def _int_column(table: Any, name: str) -> np.ndarray:
    """An integer column as int64 numpy (shared when it is one chunk of non-null int64)."""
    import pyarrow as pa

    col = table.column(name)
    if not pa.types.is_integer(col.type):
        raise error(
            "invalid_column",
            f"coordinate column {name!r} has type {col.type}, not an integer type",
            column=name,
        )
    if col.null_count:
        row = _first_null(col)
        raise error(
            "null_cell",
            f"coordinate column {name!r} holds a null at row {row}",
            column=name,
            row=row,
        )
    a = col.to_numpy() if col.num_chunks != 1 else col.chunk(0).to_numpy()
    if a.dtype.kind == "u":
        if a.size and int(a.max()) > 2**63 - 1:
            row = int(np.argmax(a > 2**63 - 1))
            raise error(
                "coordinate_out_of_range",
                f"coordinate column {name!r} row {row} holds {int(a[row])}, beyond int64",
                column=name,
                row=row,
            )
    return a.astype(np.int64, copy=False)


def _first_null(col: Any) -> int:
    base = 0
    for chunk in col.chunks:
        if chunk.null_count:
            return base + int(np.flatnonzero(chunk.is_null().to_numpy(zero_copy_only=False))[0])
        base += len(chunk)
    return 0


def _value_column(table: Any) -> np.ndarray:
    import pyarrow as pa

    if VALUE_COLUMN not in table.column_names:
        raise error(
            "invalid_column",
            f"no {VALUE_COLUMN!r} column (columns: {table.column_names})",
            column=VALUE_COLUMN,
        )
    col = table.column(VALUE_COLUMN)
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        raise error(
            "unsupported_value_type",
            f"the {VALUE_COLUMN!r} column has type {col.type}; tensors hold int8..int64, "
            "uint8..uint64, float16, float32 or float64",
            column=VALUE_COLUMN,
        )
    if col.null_count:
        row = _first_null(col)
        raise error(
            "null_cell",
            f"the {VALUE_COLUMN!r} column holds a null at row {row}",
            column=VALUE_COLUMN,
            row=row,
        )
    return col.to_numpy() if col.num_chunks != 1 else col.chunk(0).to_numpy()


def linear_order(cols: list[np.ndarray], shape: Sequence[int], what: str = "the table") -> np.ndarray:
    """The permutation that puts the rows of coordinate columns ``cols`` (int64, inside
    ``shape``) in row-major order, or an empty array when they already are; raises
    ``duplicate_coordinate`` (naming the row) when a coordinate appears twice."""
    n = len(cols[0]) if cols else 0
    if n < 2:
        return np.empty(0, dtype=np.intp)
    if math.prod(shape) <= 2**63 - 1:
        key = np.array(cols[0], dtype=np.int64)
        for c, d in zip(cols[1:], shape[1:]):
            np.multiply(key, d, out=key)
            np.add(key, c, out=key)
        if np.greater(key[1:], key[:-1]).all():
            return np.empty(0, dtype=np.intp)
        perm = np.argsort(key, kind="stable")
        skey = key[perm]
        dup = np.flatnonzero(skey[1:] == skey[:-1])
    else:
        perm = np.lexsort(cols[::-1])
        same = np.ones(n - 1, dtype=bool)
        for c in cols:
            sc = c[perm]
            same &= sc[1:] == sc[:-1]
        dup = np.flatnonzero(same)
    if dup.size:
        row = int(max(perm[dup[0]], perm[dup[0] + 1]))
        coord = tuple(int(c[row]) for c in cols)
        raise error(
            "duplicate_coordinate",
            f"{what}: coordinate {coord} is stored twice (again at row {row})",
            row=row,
        )
    return perm


def from_coo_table(
    table: Any,
    *,
    shape: Optional[Sequence[int]] = None,
    columns: Optional[Sequence[str]] = None,
    format: Optional[str] = None,
    dim_names: Optional[Sequence[str]] = None,
) -> SparseTensor:
    """The sparse tensor a COO table holds: one row per stored value.

    ``table`` is a ``pyarrow.Table``, ``RecordBatch`` or ``RecordBatchReader``, or any
    object with ``__arrow_c_stream__`` (a DuckDB or polars result, ...). Columns may be
    chunked and of any integer type.

    - The shape is the one in the table's ``arrow_tensor_ipc.sparse_tensor`` metadata when
      present (``shape``, when also given, must agree), else ``shape``, else the largest
      coordinate + 1 in each coordinate column.
    - The coordinate columns are ``columns`` when given, else those the metadata names,
      else ``dim_0``, ``dim_1``, ... (as many as ``shape`` has dimensions, or as are
      present). Other columns (Hive partition keys such as ``tile_0``, ...) are ignored.
      The values are the ``value`` column.
    - ``format`` (``"coo"``, ``"csr"``, ``"csc"``, ``"csf"``) is the layout returned:
      by default the metadata's, else COO.
    - ``dim_names`` names the dimensions: by default the metadata's, else the names of
      ``columns`` when given.

    Rows may come in any order (they are sorted row-major); a negative coordinate, one
    outside the shape, a coordinate stored twice, a null or a non-integer coordinate column
    raise :class:`ArrowTensorError` with ``kind`` (``"negative"``,
    ``"coordinate_out_of_range"``, ``"duplicate_coordinate"``, ``"null_cell"``,
    ``"invalid_column"``) and ``row``/``column`` set.

    >>> import numpy as np, pyarrow as pa, arrow_tensor_ipc as ati
    >>> t = pa.table({"i": [2, 0], "j": [1, 3], "value": [1.5, 2.5], "tile_0": [1, 0]})
    >>> m = ati.from_coo_table(t, columns=["i", "j"], format="csr")
    >>> m.shape, m.dim_names, m.to_numpy()[2, 1]
    ((3, 4), ('i', 'j'), np.float64(1.5))
    """
    table = _as_table(table)
    raw = (table.schema.metadata or {}).get(COO_TABLE_KEY.encode())
    meta = _parse_metadata(raw) if raw is not None else None
    if meta is not None:
        if shape is not None and [int(d) for d in shape] != meta["shape"]:
            raise error(
                "inconsistent",
                f"shape {list(shape)} disagrees with the table's metadata shape {meta['shape']}",
            )
        shape = meta["shape"]
    if columns is not None:
        columns = [str(c) for c in columns]
    elif meta is not None:
        columns = column_names(len(meta["shape"]), meta["dim_names"])
    elif shape is not None:
        columns = [f"dim_{d}" for d in range(len(shape))]
    else:
        columns = []
        while f"dim_{len(columns)}" in table.column_names:
            columns.append(f"dim_{len(columns)}")
        if not columns:
            raise error(
                "invalid_column",
                f"no coordinate columns: the table has no {COO_TABLE_KEY} metadata and no "
                f"dim_0 column (columns: {table.column_names}); pass columns=[...]",
            )
    if shape is not None and len(shape) != len(columns):
        raise error(
            "invalid_rank",
            f"{len(columns)} coordinate columns {columns} for a shape of {len(shape)} "
            f"dimensions {list(shape)}",
        )
    if not columns:
        raise error("invalid_rank", "a COO table needs at least one coordinate column")
    if len(set(columns)) != len(columns):
        raise error("duplicate_name", f"coordinate columns {columns} name a column twice")
    for c in columns:
        if c not in table.column_names:
            raise error(
                "invalid_column",
                f"no coordinate column {c!r} (columns: {table.column_names})",
                column=c,
            )
    values = _value_column(table)
    vt = value_type_name(values.dtype, "the value column")
    cols = [_int_column(table, c) for c in columns]
    for c, a in zip(columns, cols):
        if a.size and int(a.min()) < 0:
            row = int(np.argmax(a < 0))
            raise error(
                "negative",
                f"coordinate column {c!r} row {row} holds {int(a[row])}, a negative coordinate",
                column=c,
                row=row,
            )
    if shape is None:
        shape = [int(a.max()) + 1 if a.size else 0 for a in cols]
    shape = [int(d) for d in shape]
    for c, a, d in zip(columns, cols, shape):
        if a.size and int(a.max()) >= d:
            row = int(np.argmax(a >= d))
            raise error(
                "coordinate_out_of_range",
                f"coordinate column {c!r} row {row} holds {int(a[row])}, outside dimension "
                f"size {d}",
                column=c,
                row=row,
            )
    perm = linear_order(cols, shape)
    widest = max((d - 1 for d in shape), default=0)
    it = coordinate_type([widest + 1]) if widest > 0 else "int8"
    coords = np.empty((len(values), len(cols)), dtype=DTYPES[it])
    for d, a in enumerate(cols):
        coords[:, d] = a[perm] if perm.size else a
    values = values[perm] if perm.size else values
    values = np.ascontiguousarray(values.astype(values.dtype.newbyteorder("<"), copy=False))
    if dim_names is None:
        if meta is not None:
            dim_names = meta["dim_names"]
        elif columns is not None and any(not c.startswith("dim_") for c in columns):
            dim_names = columns
    names = None if dim_names is None else [str(n) for n in dim_names]
    native = _native.coo(vt, shape, values, coords, it, names, False)
    # The rows were checked above (inside the shape, sorted, no duplicates): a canonical
    # COO index; `check_index` marks it validated with the crate's own strict pass.
    native.check_index("from_coo_table")
    target = format if format is not None else (meta["format"] if meta else "COO")
    target_l = str(target).lower()
    if target_l not in _FORMATS:
        raise error("selection", f"format {target!r} is not one of coo, csr, csc, csf")
    result = wrap(native)
    if target_l != "coo":
        order = meta["axis_order"] if (meta and target_l == "csf" and format is None) else None
        result = result.to_format(target_l, axis_order=order)
    return result  # type: ignore[return-value]
