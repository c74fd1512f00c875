"""The dtype table: Arrow value and index type names and their numpy dtypes.

A leaf module: it imports nothing of the package but the native extension, so that the
message classes (``_message``) and the input glue (``_inputs``) both import it without
importing each other in a cycle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _native

__all__ = ["DTYPES", "index_type_name", "value_type_name"]

#: numpy dtypes of the Arrow value and index types, little-endian.
DTYPES = {
    name: np.dtype(code)
    for name, code in {
        "int8": "i1",
        "int16": "<i2",
        "int32": "<i4",
        "int64": "<i8",
        "uint8": "u1",
        "uint16": "<u2",
        "uint32": "<u4",
        "uint64": "<u8",
        "float16": "<f2",
        "float32": "<f4",
        "float64": "<f8",
    }.items()
}

#: The Arrow type name of each little-endian dtype in :data:`DTYPES`.
_NAMES = {dt: name for name, dt in DTYPES.items()}


def value_type_name(dtype: np.dtype, what: str) -> str:
    """The Arrow value type name of a numpy dtype; ``what`` names the input in the error."""
    name = _NAMES.get(dtype.newbyteorder("<"))
    if name is None or dtype.kind not in "iuf":
        raise TypeError(
            f"{what} has dtype {dtype}; Arrow tensors hold int8..int64, uint8..uint64, "
            "float16, float32 or float64"
        )
    return name


def index_type_name(t: Any) -> str:
    """The Arrow index type name of a dtype-like (``np.int32``, ``"int32"``, ...)."""
    dt = np.dtype(t)
    name = _NAMES.get(dt.newbyteorder("<"))
    if name is None or dt.kind not in "iu":
        raise _native.ArrowTensorError(
            f"unsupported index type {t!r} (expected int8..int64 or uint8..uint64)"
        )
    return name
