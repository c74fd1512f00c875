"""ArrowTensorError carries the crate's error kind and position as attributes."""

import numpy as np
import pytest

import arrow_tensor_ipc as ati


def test_stream_error_names_kind_and_message_offset() -> None:
    good = ati.dumps(np.arange(6, dtype=np.int32))
    bad = b"\xff\xff\xff\xff\x40\x00\x00\x00" + b"\x00" * 8  # claims 64 metadata bytes, has 8
    with pytest.raises(ati.ArrowTensorError) as info:
        ati.read(good + bad)
    e = info.value
    assert e.kind == "truncated"
    assert e.message_offset == len(good)
    assert e.position == f"message at byte {len(good)}"
    assert e.line is None and e.member is None and e.batch is None


def test_error_kind_of_a_bad_index() -> None:
    from arrow_tensor_ipc import _native

    with pytest.raises(ati.ArrowTensorError) as info:
        _native.coo(
            "float64",
            [2, 2],
            np.array([1.0]),
            np.array([[0, 5]], dtype=np.int64),
            "int64",
        )
    assert info.value.kind == "index_out_of_bounds"
    assert info.value.position is None


def test_python_raised_errors_have_none_attributes() -> None:
    e = ati.ArrowTensorError("plain")
    assert e.kind is None and e.position is None and e.row is None
