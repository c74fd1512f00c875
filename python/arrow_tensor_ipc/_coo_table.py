"""Tensors as COO tables (``pyarrow.Table``) and back, with the Rust crate's
``record_batch`` module.

A COO table holds one stored value per row: one integer column per dimension (named by the
dimension name, ``dim_<d>`` when unnamed) holding the coordinates, then a ``value`` column,
and schema metadata under ``arrow_tensor_ipc.sparse_tensor`` (shape, layout, dimension
names, index type). The crate writes and reads it (``sparse_to_coo_table``,
``dense_to_coo_table``, ``CooColumns``/``coo_columns_to_sparse``), so tables made here and
in Rust are the same (and so are the files of a tiled dataset, see
``docs/dataset-format.md``). This module only moves columns between pyarrow and the native
module; every rule of the format is the crate's.

How the data crosses: as buffers, without copies. A table's columns go to Rust as the
buffers of their pyarrow chunks (the buffer protocol); the columns of a table made in Rust
come back as read-only views of its buffers that pyarrow wraps (``pyarrow.py_buffer``,
``Array.from_buffers``). A column of several chunks is concatenated in Rust (one copy) when
it is read; columns the table does not use (partition keys, ...) are never read.
Measurements: ``bench/coo_table.py``.
"""

from __future__ import annotations

import sys
from typing import Any, Optional, Sequence

import numpy as np

from . import _native
from ._dtypes import DTYPES, index_type_name, value_type_name
from ._inputs import to_native
from ._message import SparseTensor, wrap
from ._native import ArrowTensorError

__all__ = [
    "COO_TABLE_KEY",
    "VALUE_COLUMN",
    "coordinate_type",
    "from_coo_table",
    "to_coo_table",
]

#: Schema metadata key of a COO table (the crate's ``record_batch::COO_TABLE_KEY``).
COO_TABLE_KEY: str = _native.COO_TABLE_KEY
#: The name of the values column (the crate's ``record_batch::VALUE_COLUMN``).
VALUE_COLUMN: str = _native.VALUE_COLUMN


def coordinate_type(shape: Sequence[int]) -> str:
    """The type name of the coordinate columns of a COO table of a tensor of ``shape``
    (the crate's ``record_batch::coordinate_type``).

    >>> coordinate_type([3, 200])
    'int16'
    """
    return _native.coordinate_type([int(d) for d in shape])


# ---------------------------------------------------------------------------------------
# To a table.


def _from_pydata(obj: Any, pydata: Any, dim_names: Optional[Sequence[str]]) -> _native.Message:
    """The native COO message of a pydata ``sparse`` array: its coordinates (``ndim x nnz``)
    as the row-major matrix the native builder takes, and its data."""
    if not isinstance(obj, pydata.COO):
        obj = obj.tocoo()
    if not obj.fill_value == 0:
        e = ArrowTensorError(
            f"a sparse.COO with fill value {obj.fill_value!r} is not a tensor with zeros "
            "where nothing is stored"
        )
        e.kind = "unsupported_layout"
        raise e
    coords = np.ascontiguousarray(np.asarray(obj.coords).T)
    values = np.asarray(obj.data)
    values = np.ascontiguousarray(values.astype(values.dtype.newbyteorder("<"), copy=False))
    coords = coords.astype(coords.dtype.newbyteorder("<"), copy=False)
    names = None if dim_names is None else ["" if n is None else str(n) for n in dim_names]
    return _native.coo(
        value_type_name(values.dtype, "the values"),
        [int(d) for d in obj.shape],
        values,
        coords,
        index_type_name(coords.dtype),
        names,
        True,
    )


def _message(obj: Any, dim_names: Optional[Sequence[str]]) -> _native.Message:
    """The native message of a tensor-like object: what :func:`arrow_tensor_ipc.dumps`
    takes, pydata ``sparse`` arrays, and scipy arrays of any format (converted to COO when
    not CSR, CSC or COO; a COO input with duplicates has them summed first)."""
    sp = sys.modules.get("scipy.sparse")
    if sp is not None and sp.issparse(obj):
        if obj.format not in ("csr", "csc", "coo"):
            obj = obj.tocoo()
        if obj.format == "coo" and not obj.has_canonical_format:
            obj = obj.copy()
            obj.sum_duplicates()
    pydata = sys.modules.get("sparse")
    if pydata is not None and isinstance(obj, getattr(pydata, "SparseArray", ())):
        return _from_pydata(obj, pydata, dim_names)
    return to_native(obj, dim_names)


def to_coo_table(obj: Any, *, dim_names: Optional[Sequence[str]] = None) -> Any:
    """A tensor as a COO table (``pyarrow.Table``): one row per stored value, one
    coordinate column per dimension, then ``value``, with the schema the Rust crate writes
    (its ``record_batch::sparse_to_coo_table``, or ``dense_to_coo_table`` for dense inputs).

    ``obj`` is this package's :class:`SparseTensor` or :class:`Tensor`, a numpy array (its
    non-zeros become rows, row-major), a ``scipy.sparse`` array or matrix, a pydata
    ``sparse.COO``, or anything :func:`arrow_tensor_ipc.dumps` takes. ``dim_names`` names the
    dimensions (and so the columns). Rows come in storage order (row by row for CSR, column
    by column for CSC, row-major for COO and CSF); a scipy input with duplicates has them
    summed first.

    The coordinate columns have the narrowest signed type that holds every coordinate of
    the shape (:func:`coordinate_type`); the ``value`` column shares the tensor's values
    where it can, and every column is made in Rust and wrapped by pyarrow without a copy.

    >>> import numpy as np, arrow_tensor_ipc as ati
    >>> t = ati.to_coo_table(np.array([[0, 5], [7, 0]], dtype=np.int32))
    >>> t.column_names, t.column("value").to_pylist()
    (['dim_0', 'dim_1', 'value'], [5, 7])
    """
    import pyarrow as pa

    names, columns, metadata = _native.to_coo_table(_message(obj, dim_names))
    arrays = []
    for view, type_name in columns:
        dtype = DTYPES[type_name]
        arrays.append(
            pa.Array.from_buffers(
                pa.from_numpy_dtype(dtype), len(view) // dtype.itemsize, [None, pa.py_buffer(view)]
            )
        )
    fields = [pa.field(n, a.type, nullable=False) for n, a in zip(names, arrays)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=dict(metadata)))


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


def _arrow_types(pa: Any) -> dict:
    """The pyarrow types of the eleven tensor types, to their names."""
    return {pa.from_numpy_dtype(dtype): name for name, dtype in DTYPES.items()}


def _column(col: Any, types: dict) -> tuple:
    """How a column crosses to the native side: its type name and, for the eleven tensor
    types, each chunk's values buffer, validity bitmap (when it has nulls), offset and
    length; any other type by pyarrow's name of it alone."""
    name = types.get(col.type)
    if name is None:
        return str(col.type), None
    chunks = []
    for c in col.chunks:
        validity, data = c.buffers()
        chunks.append((data, validity if c.null_count else None, c.offset, len(c)))
    return name, chunks


def from_coo_table(
    table: Any,
    *,
    shape: Optional[Sequence[int]] = None,
    columns: Optional[Sequence[str]] = None,
    format: Optional[str] = None,
    dim_names: Optional[Sequence[str]] = None,
) -> SparseTensor:
    """The sparse tensor a COO table holds: one row per stored value (the crate's
    ``record_batch::CooColumns`` and ``coo_columns_to_sparse``).

    ``table`` is a ``pyarrow.Table``, ``RecordBatch`` or ``RecordBatchReader``, or any
    object with ``__arrow_c_stream__`` (a DuckDB or polars result, ...). Columns may be
    chunked (a column of several chunks is concatenated, one copy) and of any integer type.

    - The shape is the one in the table's ``arrow_tensor_ipc.sparse_tensor`` metadata when
      present (``shape``, when also given, must agree), else ``shape``, else the largest
      coordinate + 1 in each coordinate column.
    - The coordinate columns are ``columns`` when given, else those the metadata names,
      else ``dim_0``, ``dim_1``, ... (as many as ``shape`` has dimensions, or as are
      present). Other columns (Hive partition keys such as ``tile_0``, ...) are ignored.
      The values are the ``value`` column.
    - ``format`` (``"coo"``, ``"csr"``, ``"csc"``, ``"csf"``) is the layout returned:
      by default the metadata's, else COO.
    - ``dim_names`` names the dimensions: by default the metadata's, else the names of the
      coordinate columns (a column ``dim_<d>`` of dimension ``d`` leaves it unnamed).

    Rows may come in any order. Rows with the same coordinates are summed: a CSR, CSC or
    CSF result is sorted and holds their sum; a COO result keeps the table's rows in their
    order, flagged canonical only when they strictly increase row-major (a non-canonical
    COO tensor means the sum of its duplicates). A coordinate outside the shape, a null or
    a coordinate column of a non-integer type raise :class:`ArrowTensorError` with
    ``kind`` (``"coordinate_out_of_bounds"``, ``"null_cell"``, ``"invalid_column"``) and
    ``column`` (and ``row``) set.

    >>> import numpy as np, pyarrow as pa, arrow_tensor_ipc as ati
    >>> t = pa.table({"i": [2, 0], "j": [1, 3], "value": [1.5, 2.5], "tile_0": [1, 0]})
    >>> m = ati.from_coo_table(t, columns=["i", "j"], format="csr")
    >>> m.shape, m.dim_names, m.to_numpy()[2, 1]
    ((3, 4), ('i', 'j'), np.float64(1.5))
    """
    import pyarrow as pa

    table = _as_table(table)
    types = _arrow_types(pa)
    cols = [(f.name, *_column(table.column(i), types)) for i, f in enumerate(table.schema)]
    native = _native.from_coo_table(
        cols,
        table.num_rows,
        list((table.schema.metadata or {}).items()),
        None if shape is None else [int(d) for d in shape],
        None if columns is None else [str(c) for c in columns],
        None if dim_names is None else [str(n) for n in dim_names],
        None if format is None else str(format),
    )
    return wrap(native)  # type: ignore[return-value]
