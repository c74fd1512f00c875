"""Type stubs of the native extension ``arrow_tensor_ipc._native`` (built from
``python/src`` over the Rust crate ``arrow-tensor-ipc``). Users call the public API of
``arrow_tensor_ipc``; this module is its engine."""

from os import PathLike
from typing import Any, Iterator, Optional, Sequence, Union

import numpy as np

class ArrowTensorError(ValueError):
    """An invalid message, or a tensor that cannot be built, converted or written; the
    message is the Rust crate's error.

    Raised by the crate, it also carries what went wrong and where, as data (``None``
    where unknown or not applicable, and on errors raised by the Python layer itself)."""

    kind: Optional[str]
    """The crate's error kind in snake_case (``"truncated"``, ``"coordinate_out_of_range"``, ...)."""
    position: Optional[str]
    """Where the error happened, as text (``"message at byte 128"``, ``"line 7"``, ...)."""
    message_offset: Optional[int]
    """Byte offset of the message in its stream or buffer."""
    line: Optional[int]
    """Line of a text file (1-based)."""
    member: Optional[str]
    """Member of an archive."""
    byte: Optional[int]
    """Byte offset in a file."""
    batch: Optional[int]
    """Record batch (0-based) of an Arrow input."""
    column: Optional[str]
    """Column of a record batch."""
    row: Optional[int]
    """Row of a record batch, or of a dataset's ``file``."""
    file: Optional[str]
    """File of a tiled dataset, relative to its directory (``_tensor.json`` for the manifest)."""

class BufferView:
    """A read-only byte buffer of a message, exported through the buffer protocol."""

    def __len__(self) -> int: ...
    @property
    def address(self) -> int:
        """Address of the first byte."""

_Views = list[tuple[BufferView, str]]

#: Schema metadata key of a COO table (the crate's ``record_batch::COO_TABLE_KEY``).
COO_TABLE_KEY: str
#: The name of a COO table's values column (``record_batch::VALUE_COLUMN``).
VALUE_COLUMN: str

#: One chunk of a column: its values buffer (any buffer-protocol object, ``None`` when it
#: has none), its validity bitmap (``None`` without nulls), its offset and its length.
_Chunk = tuple[Any, Any, int, int]
#: One column of a table: its name, its type name (``"int8"`` .. ``"float64"``, or
#: pyarrow's text of any other type) and, for the eleven tensor types, its chunks.
_Column = tuple[str, str, Optional[Sequence[_Chunk]]]

class Message:
    """One dense or sparse tensor message (immutable; buffers shared)."""

    @property
    def format(self) -> str: ...
    @property
    def value_type(self) -> str: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dim_names(self) -> tuple[str, ...]: ...
    @property
    def strides(self) -> Optional[tuple[int, ...]]: ...
    @property
    def nnz(self) -> Optional[int]: ...
    @property
    def is_canonical(self) -> Optional[bool]: ...
    @property
    def coords_order(self) -> Optional[str]: ...
    @property
    def axis_order(self) -> Optional[tuple[int, ...]]: ...
    def data(self) -> BufferView: ...
    def values(self) -> BufferView: ...
    def coords(self) -> tuple[BufferView, str]: ...
    def indptr(self) -> _Views: ...
    def indices(self) -> _Views: ...
    def get(self, coords: Sequence[int]) -> Union[int, float]: ...
    def to_dense_array(self, max_elements: Optional[int] = None) -> np.ndarray: ...
    def to_format(
        self,
        format: str,
        index_type: Optional[str] = None,
        axis_order: Union[Sequence[int], str, None] = None,
        drop_zeros: bool = False,
    ) -> Message: ...
    def with_dim_names(self, names: Sequence[str]) -> Message: ...
    def encode(self, arrow_compatible: bool = True, check: bool = False) -> bytes: ...
    @property
    def is_validated(self) -> bool: ...
    def check_index(self, receiver: str = "the caller") -> None: ...

class MessageStream(Iterator[Message]):
    """A lazy iterator over messages."""

    @staticmethod
    def from_path(path: Union[str, PathLike[str]], strict: bool = True) -> MessageStream:
        """The messages of a memory-mapped file, zero-copy.

        The file must not be truncated or modified while the stream or any array from it
        is alive (as for ``numpy.memmap``): the arrays view the file's pages.
        """
        ...
    @staticmethod
    def from_url(
        url: str, strict: bool = True, storage_options: Optional[Sequence[tuple[str, str]]] = None
    ) -> MessageStream:
        """The messages of an object in an object store, read with one request."""
        ...
    @staticmethod
    def from_buffer(data: Any, strict: bool = True) -> MessageStream: ...
    @staticmethod
    def from_file(file: Any, strict: bool = True) -> MessageStream: ...
    def __iter__(self) -> MessageStream: ...
    def __next__(self) -> Message: ...

def dense(
    value_type: str, array: Any, dim_names: Optional[Sequence[str]] = None, scalar: bool = False
) -> Message: ...
def coo(
    value_type: str,
    shape: Sequence[int],
    values: Any,
    coords: Any,
    index_type: str,
    dim_names: Optional[Sequence[str]] = None,
    validate: bool = True,
) -> Message: ...
def csx(
    row: bool,
    value_type: str,
    shape: Sequence[int],
    values: Any,
    indptr: Any,
    indptr_type: str,
    indices: Any,
    indices_type: str,
    dim_names: Optional[Sequence[str]] = None,
    validate: bool = True,
) -> Message: ...
def csf(
    value_type: str,
    shape: Sequence[int],
    values: Any,
    indptr: Sequence[Any],
    indices: Sequence[Any],
    index_type: str,
    axis_order: Sequence[int],
    dim_names: Optional[Sequence[str]] = None,
    validate: bool = True,
) -> Message: ...
def decode_all(data: Any, strict: bool = True) -> list[Message]: ...
def decode_one(data: Any, strict: bool = True) -> Message: ...
def write_path(
    path: Union[str, PathLike[str]], messages: Sequence[Message], arrow_compatible: bool = True
) -> None: ...
def write_file(file: Any, messages: Sequence[Message], arrow_compatible: bool = True) -> None: ...
def coordinate_type(shape: Sequence[int]) -> str:
    """The type name of the coordinate columns of a COO table of a tensor of ``shape``."""
    ...
def to_coo_table(message: Message) -> tuple[list[str], _Views, list[tuple[str, str]]]:
    """The COO table of a message: its column names, each column's values as a view with
    its type name, and its schema metadata."""
    ...
def from_coo_table(
    table_columns: Sequence[_Column],
    num_rows: int,
    metadata: Sequence[tuple[bytes, bytes]],
    shape: Optional[Sequence[int]] = None,
    columns: Optional[Sequence[str]] = None,
    dim_names: Optional[Sequence[str]] = None,
    format: Optional[str] = None,
) -> Message:
    """The sparse tensor a table holds (the crate's ``CooColumns``, resolved against the
    table's columns and metadata); only the selected columns are read."""
    ...

_Options = Optional[Sequence[tuple[str, str]]]

class Dataset:
    """A tiled dataset opened by the caller of ``read_dataset``: its manifest read and
    checked, every listed file present, no unlisted data file."""

    def __init__(self, root: str, storage_options: _Options = None) -> None: ...
    @property
    def shape(self) -> list[int]: ...
    @property
    def dim_names(self) -> list[str]: ...
    @property
    def value_type(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def tile_shape(self) -> list[int]: ...
    @property
    def grid(self) -> list[int]: ...
    @property
    def chunks(self) -> list[list[int]]: ...
    @property
    def nnz(self) -> int: ...
    def manifest_json(self) -> str: ...
    def tile_manifest(self, tile: Sequence[int]) -> str: ...

def read_tile(
    root: str, manifest: str, tile: Sequence[int], layout: str, storage_options: _Options = None
) -> tuple[np.ndarray, ...]: ...
def is_url(location: str) -> bool: ...
def write_url(
    url: str,
    messages: Sequence[Message],
    arrow_compatible: bool = True,
    storage_options: _Options = None,
) -> None: ...
def create_dataset(
    root: str,
    shape: Sequence[int],
    dim_names: Sequence[str],
    value_type: str,
    format: str,
    tile_shape: Sequence[int],
    compression: str,
    storage_options: _Options = None,
) -> None: ...
def write_tile(
    root: str,
    shape: Sequence[int],
    dim_names: Sequence[str],
    value_type: str,
    format: str,
    tile_shape: Sequence[int],
    tile: Sequence[int],
    block: Message,
    compression: str,
    storage_options: _Options = None,
) -> list[tuple[str, int]]: ...
def write_manifest(
    root: str,
    shape: Sequence[int],
    dim_names: Sequence[str],
    value_type: str,
    format: str,
    tile_shape: Sequence[int],
    tiles: Sequence[tuple[Sequence[int], Sequence[tuple[str, int]]]],
    storage_options: _Options = None,
) -> None: ...
