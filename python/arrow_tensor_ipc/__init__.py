"""Apache Arrow Tensor and SparseTensor IPC messages for numpy, scipy and pyarrow.

pyarrow builds sparse tensors but cannot write or read them as IPC messages; this package
does both, for dense tensors and for COO, CSR, CSC and CSF sparse tensors, with the Rust
crate ``arrow-tensor-ipc``: messages are byte-compatible with Arrow C++ (and so with C++,
Rust and Java services), decoded zero-copy and validated strictly, so untrusted bytes are
safe to load.

Write::

    import numpy as np, scipy.sparse as sp
    import arrow_tensor_ipc as ati

    data = ati.dumps(sp.random_array((1000, 1000), density=0.01, format="csr"))
    data = ati.dumps(np.eye(4), format="coo", index_type="int32", dim_names=["r", "c"])
    ati.write("tensors.arrows", [np.arange(6).reshape(2, 3), ati.loads(data)])  # + end-of-stream

Read::

    msg = ati.loads(data)            # one message from bytes-like input, zero-copy
    msg.format, msg.shape, msg.dtype, msg.nnz, msg.dim_names
    msg.values, msg.indptr, msg.indices   # read-only numpy views of `data`
    msg.to_scipy(), msg.to_numpy(), msg.to_pyarrow(), msg.get((2, 3))
    for msg in ati.iter_messages("tensors.arrows"):  # memory-mapped, lazily
        ...

Accepted by :func:`dumps` and :func:`write`: numpy arrays of the 11 Arrow value types
(int8..int64, uint8..uint64, float16/32/64; any strides), ``pyarrow.Tensor``,
``pyarrow.SparseCOOTensor``/``SparseCSRMatrix``/``SparseCSCMatrix``/``SparseCSFTensor``,
scipy.sparse coo/csr/csc arrays and matrices, and this package's messages.

Every error of the Rust crate (a malformed message, a tensor that cannot be built,
converted or written) is raised as :class:`ArrowTensorError`, a ``ValueError``, with the
crate's message. Bad bytes never crash the interpreter.

Memory: a message decoded from a bytes-like object keeps that object alive and views its
memory; do not mutate a writable source (a ``bytearray``, a numpy array) while messages
over it are in use, as with ``numpy.frombuffer``. A message read from a path views a
read-only memory map of the file, which must not be truncated or rewritten meanwhile.
"""

from __future__ import annotations

import os
from typing import IO, Any, Iterable, Iterator, Mapping, Optional, Sequence, Union

from . import _native
from ._coo_table import from_coo_table, to_coo_table
from ._inputs import index_type_name, is_tensor_like, to_native
from ._message import Message, SparseTensor, Tensor, wrap
from ._native import ArrowTensorError

__all__ = [
    "ArrowTensorError",
    "Message",
    "SparseTensor",
    "Tensor",
    "dumps",
    "from_coo_table",
    "iter_messages",
    "loads",
    "read",
    "to_coo_table",
    "write",
]

__version__ = "0.1.0"

#: A file path.
PathLike = Union[str, "os.PathLike[str]"]
#: What :func:`read` and :func:`iter_messages` read: a path, a binary file or bytes-like.
Source = Union[PathLike, IO[bytes], bytes, bytearray, memoryview, Any]

_SPARSE = {"coo": "COO", "csr": "CSR", "csc": "CSC", "csf": "CSF"}


def _prepare(
    obj: Any,
    format: Optional[str],
    axis_order: Union[Sequence[int], str, None],
    index_type: Any,
    dim_names: Optional[Sequence[str]],
    validate: bool = True,
) -> _native.Message:
    m = to_native(obj, dim_names, validate=validate)
    if format is None and index_type is None and axis_order is None:
        return m
    target = m.format.lower() if format is None else format.lower()
    if target == "dense" and (index_type is not None or axis_order is not None):
        raise ArrowTensorError("index_type and axis_order need a sparse format")
    if target == m.format.lower() and index_type is None and axis_order is None:
        return m
    it = None if index_type is None else index_type_name(index_type)
    return m.to_format(target, it, axis_order, False)


def dumps(
    obj: Any,
    *,
    format: Optional[str] = None,
    axis_order: Union[Sequence[int], str, None] = None,
    index_type: Any = None,
    arrow_compatible: bool = True,
    dim_names: Optional[Sequence[str]] = None,
) -> bytes:
    """One encapsulated Arrow IPC message (no end-of-stream marker), as ``bytes``.

    ``format`` (``"dense"``, ``"coo"``, ``"csr"``, ``"csc"``, ``"csf"``) converts on the way
    with the Rust crate's converters, ``axis_order`` gives a CSF result's dimension order
    (a permutation, ``"identity"`` (default) or ``"ascending_size"``), ``index_type``
    (``"int32"``, ``np.int64``, ...) the integer type of the index arrays, ``dim_names``
    replaces the dimension names. The message is readable by Arrow C++ unless
    ``arrow_compatible=False`` (which allows uint64 and too narrow index types, and keeps
    column-major COO coordinates column-major: by default they are written row-major, as
    Arrow C++'s ``ToTensor`` reads them whatever the message's strides say).

    The tensor's buffers are copied once, straight into the result (column-major COO
    coordinates written row-major are transposed first); the index of a sparse input is
    validated strictly while they are copied (an invalid one raises
    :class:`ArrowTensorError`).

    >>> import numpy as np, arrow_tensor_ipc as ati
    >>> data = ati.dumps(np.array([[0.0, 2.5], [1.0, 0.0]]), format="csr", index_type="int32")
    >>> ati.loads(data).indptr.tolist()
    [0, 1, 2]
    """
    # Inputs other than our own messages are built unvalidated and checked by `encode`,
    # concurrently with the copy; our messages keep the validation they were read with.
    ours = isinstance(obj, (Tensor, SparseTensor))
    m = _prepare(obj, format, axis_order, index_type, dim_names, validate=ours)
    return m.encode(arrow_compatible, not ours)


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def write(
    sink: Union[PathLike, IO[bytes]],
    objs: Union[Iterable[Any], Any],
    *,
    format: Optional[str] = None,
    axis_order: Union[Sequence[int], str, None] = None,
    index_type: Any = None,
    arrow_compatible: bool = True,
    storage_options: Optional[Mapping[str, str]] = None,
) -> None:
    """Writes every object of ``objs`` as a message, then an end-of-stream marker, to a
    path (created or truncated), an object-store URL (``s3://bucket/key``, ``file://``;
    a multipart upload, credentials from the environment and ``storage_options`` as for
    :func:`arrow_tensor_ipc.dask.read_dataset`) or a binary file object.

    ``objs`` is an iterable of what :func:`dumps` takes (one such object is taken as a
    stream of one); the keywords are those of :func:`dumps`, applied to every object.
    Paths are written with vectored writes, without copying the bodies.

    >>> import numpy as np, io, arrow_tensor_ipc as ati
    >>> f = io.BytesIO()
    >>> ati.write(f, [np.zeros(3), np.eye(2)], format="coo")
    >>> [m.format for m in ati.read(f.getvalue())]
    ['COO', 'COO']
    """
    if is_tensor_like(objs):
        objs = [objs]
    messages = [_prepare(o, format, axis_order, index_type, None) for o in objs]
    if isinstance(sink, str) and _native.is_url(sink):
        _native.write_url(sink, messages, arrow_compatible, _pairs(storage_options))
    elif _is_path(sink):
        _native.write_path(os.fspath(sink), messages, arrow_compatible)
    elif hasattr(sink, "write"):
        _native.write_file(sink, messages, arrow_compatible)
    else:
        raise TypeError(f"expected a path or a binary file, got {type(sink).__name__}")


def loads(data: Any, strict: bool = True) -> Message:
    """The one message in a bytes-like object (``bytes``, ``bytearray``, ``memoryview``,
    a C-contiguous numpy array, ``pyarrow.Buffer``, ``mmap``), optionally followed by an
    end-of-stream marker. Zero-copy: the message's arrays view ``data``, which it keeps
    alive.

    ``strict=True`` validates every rule of the format on the index data (coordinates in
    bounds, sorted where the layout says so, ...); ``strict=False`` checks only what memory
    safety needs (lookups and conversions then report bad index data as errors).

    >>> import numpy as np, arrow_tensor_ipc as ati
    >>> ati.loads(ati.dumps(np.arange(3, dtype=np.int16))).to_numpy()
    array([0, 1, 2], dtype=int16)
    """
    return wrap(_native.decode_one(data, strict))


def _pairs(options: Optional[Mapping[str, str]]) -> Optional[list[tuple[str, str]]]:
    return None if options is None else [(str(k), str(v)) for k, v in options.items()]


def _stream(
    source: Source, strict: bool, storage_options: Optional[Mapping[str, str]] = None
) -> _native.MessageStream:
    if isinstance(source, str) and _native.is_url(source):
        return _native.MessageStream.from_url(source, strict, _pairs(storage_options))
    if _is_path(source):
        return _native.MessageStream.from_path(os.fspath(source), strict)
    if hasattr(source, "read") and not isinstance(source, memoryview):
        return _native.MessageStream.from_file(source, strict)
    return _native.MessageStream.from_buffer(source, strict)


def read(
    source: Source, strict: bool = True, *, storage_options: Optional[Mapping[str, str]] = None
) -> list[Message]:
    """Every message of a path (memory-mapped), an object-store URL (read with one
    request; ``storage_options`` as for :func:`write`), a binary file object or a
    bytes-like object, up to an end-of-stream marker or the end. Messages from paths, URLs
    and bytes-like objects are zero-copy views; from file objects each message owns a copy
    of its bytes.

    >>> import numpy as np, arrow_tensor_ipc as ati
    >>> data = ati.dumps(np.ones(2)) + ati.dumps(np.zeros(2))
    >>> [m.to_numpy().tolist() for m in ati.read(data)]
    [[1.0, 1.0], [0.0, 0.0]]
    """
    return [wrap(m) for m in _stream(source, strict, storage_options)]


def iter_messages(
    source: Source, strict: bool = True, *, storage_options: Optional[Mapping[str, str]] = None
) -> Iterator[Message]:
    """Like :func:`read`, lazily: one message at a time (a path is memory-mapped; a file
    object is read as far as the next message needs). Stops at the first error, which it
    raises.
    """
    for m in _stream(source, strict, storage_options):
        yield wrap(m)
