"""The message classes: :class:`Tensor` (dense) and :class:`SparseTensor`.

Both wrap a native message of the Rust crate. Their arrays are read-only numpy views of the
message's memory (no copy); they keep that memory (and the bytes, file map or arrays it came
from) alive for as long as they exist.
"""

from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np

from . import _native
from ._dtypes import DTYPES, index_type_name

__all__ = ["Tensor", "SparseTensor", "Message", "wrap"]


def _array(view: _native.BufferView, type_name: str) -> np.ndarray:
    """A read-only 1-D numpy array over a native buffer view (no copy)."""
    return np.frombuffer(view, dtype=DTYPES[type_name])


class _Base:
    """What dense and sparse messages share."""

    __slots__ = ("_m",)

    def __init__(self, native: _native.Message) -> None:
        self._m = native

    @property
    def format(self) -> str:
        """``"dense"``, ``"COO"``, ``"CSR"``, ``"CSC"`` or ``"CSF"``."""
        return self._m.format

    @property
    def shape(self) -> tuple[int, ...]:
        """The logical shape."""
        return self._m.shape

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self._m.shape)

    @property
    def dim_names(self) -> tuple[str, ...]:
        """One name per dimension, ``""`` for an unnamed dimension."""
        return self._m.dim_names

    @property
    def dtype(self) -> np.dtype:
        """The value type as a numpy dtype."""
        return DTYPES[self._m.value_type]

    def get(self, coords: Sequence[int]) -> Any:
        """The value at a logical index, as a numpy scalar of :attr:`dtype`.

        A position where a sparse tensor stores nothing holds zero; duplicates of a
        non-canonical COO tensor are summed.

        >>> import numpy as np, arrow_tensor_ipc as ati
        >>> ati.loads(ati.dumps(np.eye(3), format="csr")).get((1, 1))
        np.float64(1.0)
        """
        return self.dtype.type(self._m.get([int(c) for c in coords]))

    def to_format(
        self,
        format: str,
        *,
        index_type: Union[str, np.dtype, type, None] = None,
        axis_order: Union[Sequence[int], str, None] = None,
        drop_zeros: bool = False,
    ) -> "Message":
        """Converts to another layout with the Rust crate's converters.

        ``format`` is ``"dense"``, ``"coo"``, ``"csr"``, ``"csc"`` or ``"csf"`` (any case);
        converting to the same layout re-encodes it (another index type, CSF axis order,
        a canonical COO). ``index_type`` is the integer type of the index arrays (default:
        the narrowest that Arrow C++ reads), ``axis_order`` the CSF dimension order (a
        permutation, ``"identity"`` (default) or ``"ascending_size"``, Arrow C++'s choice),
        ``drop_zeros`` leaves out stored zeros of a sparse input.

        >>> import numpy as np, arrow_tensor_ipc as ati
        >>> t = ati.loads(ati.dumps(np.array([[0, 1], [2, 0]], dtype=np.int32)))
        >>> t.to_format("coo").coords.tolist()
        [[0, 1], [1, 0]]
        """
        it = None if index_type is None else index_type_name(index_type)
        return wrap(self._m.to_format(format, it, axis_order, drop_zeros))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.to_numpy()
        if dtype is not None and np.dtype(dtype) != a.dtype:
            return a.astype(dtype)
        if copy:
            return a.copy()
        return a

    def to_numpy(self) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def _names_or_none(self) -> list[str] | None:
        names = list(self.dim_names)
        return names if any(names) else None

    def __repr__(self) -> str:
        extra = "" if self.format == "dense" else f" nnz={self._m.nnz}"
        names = f" dim_names={self.dim_names}" if any(self.dim_names) else ""
        return (
            f"<arrow_tensor_ipc.{type(self).__name__} {self.format} {self._m.value_type} "
            f"shape={self.shape}{extra}{names}>"
        )


class Tensor(_Base):
    """A dense Arrow tensor message.

    >>> import numpy as np, arrow_tensor_ipc as ati
    >>> t = ati.loads(ati.dumps(np.arange(6, dtype=np.float32).reshape(2, 3), dim_names=["r", "c"]))
    >>> t.format, t.shape, t.dim_names, t.dtype
    ('dense', (2, 3), ('r', 'c'), dtype('float32'))
    >>> t.to_numpy().flags.writeable   # a view of the message's bytes
    False
    """

    __slots__ = ()

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides of the data (any non-negative layout)."""
        return self._m.strides

    @property
    def nnz(self) -> int:
        """Number of non-zero elements (``-0.0`` is a zero, ``NaN`` is not)."""
        return int(np.count_nonzero(self.to_numpy()))

    @property
    def values(self) -> np.ndarray:
        """The elements: the same read-only view as :meth:`to_numpy`."""
        return self.to_numpy()

    def to_numpy(self) -> np.ndarray:
        """The tensor as a read-only ndarray sharing memory with the message (zero-copy,
        with the message's strides)."""
        return np.ndarray(
            self._m.shape,
            dtype=self.dtype,
            buffer=self._m.data(),
            offset=0,
            strides=self._m.strides,
        )

    def to_pyarrow(self) -> Any:
        """A ``pyarrow.Tensor`` over the same memory (dimension names kept)."""
        import pyarrow as pa

        return pa.Tensor.from_numpy(self.to_numpy(), dim_names=self._names_or_none())

    def to_scipy(self) -> Any:
        """A ``scipy.sparse.coo_array`` of the non-zeros (converted by the crate)."""
        return self.to_format("coo").to_scipy()


class SparseTensor(_Base):
    """A sparse Arrow tensor message: COO, CSR, CSC or CSF.

    The raw arrays (:attr:`values`, :attr:`coords`, :attr:`indptr`, :attr:`indices`) are
    read-only numpy views of the message's memory. An array a layout does not have
    raises ``AttributeError``.

    >>> import scipy.sparse as sp, arrow_tensor_ipc as ati
    >>> m = ati.loads(ati.dumps(sp.csr_array([[0.0, 1.5], [2.0, 0.0]])))
    >>> m.format, m.nnz, m.indptr.tolist(), m.indices.tolist(), m.values.tolist()
    ('CSR', 2, [0, 1, 2], [1, 0], [1.5, 2.0])
    >>> (m.to_scipy() != sp.csr_array([[0.0, 1.5], [2.0, 0.0]])).nnz
    0
    """

    __slots__ = ()

    @property
    def nnz(self) -> int:
        """Number of stored values."""
        return self._m.nnz

    @property
    def values(self) -> np.ndarray:
        """The stored values (``nnz``), read-only, zero-copy."""
        return _array(self._m.values(), self._m.value_type)

    @property
    def coords(self) -> np.ndarray:
        """COO: the coordinates, shape ``(nnz, ndim)``, read-only, zero-copy."""
        if self.format != "COO":
            raise AttributeError(f"a {self.format} tensor has no coords")
        view, it = self._m.coords()
        flat = _array(view, it)
        nnz, ndim = self._m.nnz, len(self._m.shape)
        if self._m.coords_order == "column":
            return flat.reshape(ndim, nnz).T
        return flat.reshape(nnz, ndim)

    @property
    def is_canonical(self) -> bool | None:
        """COO: whether the coordinates are flagged sorted without duplicates (``None``
        for other layouts)."""
        return self._m.is_canonical

    @property
    def axis_order(self) -> tuple[int, ...] | None:
        """CSF: the order in which the levels store the dimensions (``None`` for other
        layouts)."""
        return self._m.axis_order

    @property
    def indptr(self) -> Union[np.ndarray, list[np.ndarray]]:
        """CSR/CSC: the indptr array; CSF: the list of ``ndim - 1`` indptr arrays."""
        if self.format == "COO":
            raise AttributeError("a COO tensor has no indptr")
        arrays = [_array(v, t) for v, t in self._m.indptr()]
        return arrays if self.format == "CSF" else arrays[0]

    @property
    def indices(self) -> Union[np.ndarray, list[np.ndarray]]:
        """CSR/CSC: the indices array; CSF: the list of ``ndim`` indices arrays."""
        if self.format == "COO":
            raise AttributeError("a COO tensor has no indices")
        arrays = [_array(v, t) for v, t in self._m.indices()]
        return arrays if self.format == "CSF" else arrays[0]

    @property
    def is_validated(self) -> bool:
        """Whether the index is known to follow every rule of its layout: read or built
        with strict validation, or checked since (by :meth:`validate` or a handoff to
        scipy or pyarrow)."""
        return self._m.is_validated

    def validate(self) -> "SparseTensor":
        """Checks the index strictly, as ``loads(..., strict=True)`` does, and returns
        ``self``; raises :class:`ArrowTensorError` naming the buffer, position and rule of
        the first violation. Done once: a validated message is not checked again.

        :meth:`to_scipy` and :meth:`to_pyarrow` call it first, whatever mode the message
        was read in, because scipy and Arrow C++ trust index arrays and read (or write)
        out of bounds on bad ones."""
        self._m.check_index()
        return self

    def to_numpy(self) -> np.ndarray:
        """The dense contents as a new writable ndarray, expanded by the crate (duplicates
        of a non-canonical COO are summed, as in scipy)."""
        return self._m.to_dense_array().reshape(self._m.shape)

    def to_scipy(self) -> Any:
        """COO -> ``scipy.sparse.coo_array``, CSR -> ``csr_array``, CSC -> ``csc_array``,
        sharing the message's arrays (read-only; scipy copies index types narrower than
        int32). CSF is converted to COO first.

        scipy trusts the index arrays it is given, so a message read with ``strict=False``
        is validated first (once; see :meth:`validate`): a bad index raises
        :class:`ArrowTensorError` instead of crashing the interpreter later."""
        import scipy.sparse as sp

        fmt = self.format
        if fmt == "CSF":
            return self.to_format("coo").to_scipy()
        self._m.check_index("scipy")
        if fmt == "COO":
            coords = self.coords
            return sp.coo_array(
                (self.values, tuple(coords[:, d] for d in range(coords.shape[1]))),
                shape=self.shape,
            )
        cls = sp.csr_array if fmt == "CSR" else sp.csc_array
        return cls((self.values, self.indices, self.indptr), shape=self.shape)

    def to_pyarrow(self) -> Any:
        """The matching pyarrow class: ``SparseCOOTensor``, ``SparseCSRMatrix``,
        ``SparseCSCMatrix`` or ``SparseCSFTensor`` (dimension names kept), over the
        message's arrays. A message read with ``strict=False`` is validated first (once;
        see :meth:`validate`), since Arrow C++ trusts index arrays."""
        import pyarrow as pa

        # Arrow C++ does not check index values (its conversions then read and write out
        # of bounds): validated first, once.
        self._m.check_index("pyarrow")
        names = self._names_or_none()
        fmt = self.format
        if fmt == "COO":
            return pa.SparseCOOTensor.from_numpy(
                self.values, np.ascontiguousarray(self.coords), self.shape, dim_names=names
            )
        if fmt in ("CSR", "CSC"):
            cls = pa.SparseCSRMatrix if fmt == "CSR" else pa.SparseCSCMatrix
            return cls.from_numpy(
                self.values, self.indptr, self.indices, self.shape, dim_names=names
            )
        return pa.SparseCSFTensor.from_numpy(
            self.values,
            self.indptr,
            self.indices,
            self.shape,
            axis_order=list(self.axis_order or ()),
            dim_names=names,
        )


#: A decoded or built message.
Message = Union[Tensor, SparseTensor]


def wrap(native: _native.Message) -> Message:
    """The public class of a native message."""
    return Tensor(native) if native.format == "dense" else SparseTensor(native)
