"""numpy, scipy and pyarrow objects as native messages, sharing their memory.

Only layout glue lives here (which arrays, which dtype names); the tensors are built and
validated by the Rust crate. Copies happen only where the input's layout differs from
Arrow's: big-endian or negatively strided numpy arrays, scipy COO (separate coordinate
arrays), scipy CSR/CSC without canonical format (sorted, duplicates summed by scipy).
"""

from __future__ import annotations

import sys
from itertools import permutations
from typing import Any, Optional, Sequence

import numpy as np

from . import _native
from ._dtypes import index_type_name, value_type_name
from ._message import SparseTensor, Tensor

__all__ = ["to_native", "is_tensor_like", "index_type_name"]


def _little(a: np.ndarray) -> np.ndarray:
    """``a`` with little-endian items (copied only when it is big-endian)."""
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and sys.byteorder == "big"):
        return a.astype(a.dtype.newbyteorder("<"))
    return a


def _contiguous(a: Any, dtype: Optional[np.dtype] = None) -> np.ndarray:
    """A C-contiguous little-endian 1-D or n-D array (no copy when it already is one)."""
    a = _little(np.asarray(a))
    if dtype is not None and a.dtype != dtype:
        a = a.astype(dtype)
    return np.ascontiguousarray(a)


def _names(dim_names: Optional[Sequence[str]]) -> Optional[list[str]]:
    return None if dim_names is None else ["" if n is None else str(n) for n in dim_names]


def _from_numpy(a: np.ndarray, dim_names: Optional[Sequence[str]]) -> _native.Message:
    vt = value_type_name(a.dtype, "the array")
    a = _little(a)
    if a.ndim == 0:
        return _native.dense(vt, a.reshape(1), _names(dim_names), True)
    if any(s < 0 for s in a.strides):
        a = np.ascontiguousarray(a)
    return _native.dense(vt, a, _names(dim_names))


def _sparse_names(obj: Any, dim_names: Optional[Sequence[str]]) -> Optional[list[str]]:
    if dim_names is not None:
        return _names(dim_names)
    names = list(getattr(obj, "dim_names", None) or [])
    return names or None


def _from_pyarrow(
    obj: Any, pa: Any, dim_names: Optional[Sequence[str]], validate: bool = True
) -> Optional[_native.Message]:
    if isinstance(obj, pa.Tensor):
        names = dim_names if dim_names is not None else (list(obj.dim_names) or None)
        return _from_numpy(obj.to_numpy(), names)
    shape = list(obj.shape) if hasattr(obj, "shape") else None
    if isinstance(obj, pa.SparseCOOTensor):
        data, coords = obj.to_numpy()
        values = _contiguous(data.reshape(-1))
        coords = _contiguous(coords)
        return _native.coo(
            value_type_name(values.dtype, "the values"),
            shape,
            values,
            coords,
            index_type_name(coords.dtype),
            _sparse_names(obj, dim_names),
            validate,
        )
    if isinstance(obj, (pa.SparseCSRMatrix, pa.SparseCSCMatrix)):
        data, indptr, indices = obj.to_numpy()
        values = _contiguous(data.reshape(-1))
        indptr, indices = _contiguous(indptr), _contiguous(indices)
        return _native.csx(
            isinstance(obj, pa.SparseCSRMatrix),
            value_type_name(values.dtype, "the values"),
            shape,
            values,
            indptr,
            index_type_name(indptr.dtype),
            indices,
            index_type_name(indices.dtype),
            _sparse_names(obj, dim_names),
            validate,
        )
    if isinstance(obj, pa.SparseCSFTensor):
        data, indptr, indices = obj.to_numpy()
        values = _contiguous(data.reshape(-1))
        it = np.result_type(*indptr, *indices)
        indptr = [_contiguous(a, it) for a in indptr]
        indices = [_contiguous(a, it) for a in indices]
        order = _csf_axis_order(obj, pa, data, indptr, indices)
        return _native.csf(
            value_type_name(values.dtype, "the values"),
            shape,
            values,
            indptr,
            indices,
            index_type_name(it),
            order,
            _sparse_names(obj, dim_names),
            validate,
        )
    return None


def _csf_axis_order(obj: Any, pa: Any, data: Any, indptr: list, indices: list) -> list[int]:
    """The axis order of a pyarrow SparseCSFTensor, which pyarrow does not expose.

    Candidates are the permutations the index bounds allow, identity and ascending-size
    (Arrow's default) first. The first whose rebuilt tensor ``equals`` the input wins
    (Arrow's ``Equals`` compares axis orders). ``Equals`` is false for NaN values even for
    the same tensor; then the stored values are looked up in the dense expansion instead.
    """
    shape = list(obj.shape)
    n = len(shape)
    bounds = [int(a.max()) + 1 if a.size else 0 for a in indices]

    def fits(p: Sequence[int]) -> bool:
        return all(bounds[k] <= shape[p[k]] for k in range(n))

    first = [list(range(n)), sorted(range(n), key=lambda d: shape[d])]
    candidates: list[list[int]] = []
    for p in [*first, *map(list, permutations(range(n)))]:
        if p not in candidates and fits(p):
            candidates.append(p)
    if len(candidates) == 1:
        return candidates[0]
    for p in candidates:
        candidate = pa.SparseCSFTensor.from_numpy(data, indptr, indices, shape, axis_order=p)
        if candidate.equals(obj):
            return p
    values = np.asarray(data).reshape(-1)
    if values.dtype.kind == "f" and np.isnan(values).any():
        dense = obj.to_tensor().to_numpy()
        levels = _csf_leaf_coords(indptr, indices)
        bits = f"u{values.dtype.itemsize}"
        for p in candidates:
            coords = [None] * n
            for k in range(n):
                coords[p[k]] = levels[k]
            found = np.ascontiguousarray(dense[tuple(coords)])
            if np.array_equal(found.view(bits), np.ascontiguousarray(values).view(bits)):
                return p
    raise _native.ArrowTensorError("cannot determine the axis order of the SparseCSFTensor")


def _csf_leaf_coords(indptr: list, indices: list) -> list[np.ndarray]:
    """For every leaf of a CSF tree, its index at each level (level k's coordinate)."""
    n = len(indices)
    node = np.arange(len(indices[-1]))
    out = [np.empty(0, dtype=np.int64)] * n
    out[n - 1] = indices[n - 1]
    for k in range(n - 2, -1, -1):
        ptr = np.asarray(indptr[k], dtype=np.int64)
        parent = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
        node = parent[node]
        out[k] = np.asarray(indices[k])[node]
    return out


def _from_scipy(
    obj: Any, dim_names: Optional[Sequence[str]], validate: bool = True
) -> _native.Message:
    fmt = obj.format
    shape = list(obj.shape)
    names = _names(dim_names)
    if fmt in ("csr", "csc"):
        if not obj.has_canonical_format:
            obj = obj.copy()
            obj.sum_duplicates()
        values = _contiguous(obj.data)
        indptr, indices = _contiguous(obj.indptr), _contiguous(obj.indices)
        return _native.csx(
            fmt == "csr",
            value_type_name(values.dtype, "the values"),
            shape,
            values,
            indptr,
            index_type_name(indptr.dtype),
            indices,
            index_type_name(indices.dtype),
            names,
            validate,
        )
    if fmt == "coo":
        coords = getattr(obj, "coords", None)
        if coords is None:
            coords = (obj.row, obj.col)
        it = np.result_type(*coords) if coords else np.dtype(np.int64)
        matrix = np.empty((obj.nnz, len(shape)), dtype=it)
        for d, c in enumerate(coords):
            matrix[:, d] = c
        values = _contiguous(obj.data)
        return _native.coo(
            value_type_name(values.dtype, "the values"),
            shape,
            values,
            matrix,
            index_type_name(it),
            names,
            validate,
        )
    raise TypeError(
        f"scipy.sparse format {fmt!r} is not an Arrow layout: convert it with .tocsr(), "
        ".tocsc() or .tocoo() first"
    )


def _scipy_sparse(obj: Any) -> bool:
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(obj)


def _pyarrow_tensor(obj: Any) -> Any:
    pa = sys.modules.get("pyarrow")
    if pa is None:
        return None
    kinds = (pa.Tensor, pa.SparseCOOTensor, pa.SparseCSRMatrix, pa.SparseCSCMatrix, pa.SparseCSFTensor)
    return pa if isinstance(obj, kinds) else None


def is_tensor_like(obj: Any) -> bool:
    """Whether ``obj`` is one object that :func:`to_native` takes (not a collection of
    them)."""
    return (
        isinstance(obj, (Tensor, SparseTensor, np.ndarray, np.generic))
        or _scipy_sparse(obj)
        or _pyarrow_tensor(obj) is not None
    )


def to_native(
    obj: Any, dim_names: Optional[Sequence[str]] = None, *, validate: bool = True
) -> _native.Message:
    """The native message of a tensor-like object (our messages, numpy arrays, pyarrow
    tensors and sparse tensors, scipy.sparse coo/csr/csc), sharing its memory where the
    layouts agree. ``dim_names`` replaces the object's dimension names. ``validate=False``
    builds sparse inputs without checking their index values: only for a message that is
    encoded with ``check=True`` and never handed out."""
    if isinstance(obj, (Tensor, SparseTensor)):
        m = obj._m
        return m if dim_names is None else m.with_dim_names(list(dim_names))
    if isinstance(obj, np.generic):
        obj = np.asarray(obj)
    if isinstance(obj, np.ndarray):
        return _from_numpy(obj, dim_names)
    if _scipy_sparse(obj):
        return _from_scipy(obj, dim_names, validate)
    pa = _pyarrow_tensor(obj)
    if pa is not None:
        m = _from_pyarrow(obj, pa, dim_names, validate)
        if m is not None:
            return m
    raise TypeError(
        f"cannot write a {type(obj).__module__}.{type(obj).__qualname__}: expected a numpy "
        "array, a pyarrow Tensor or sparse tensor, a scipy.sparse coo/csr/csc array or "
        "matrix, or an arrow_tensor_ipc message"
    )
