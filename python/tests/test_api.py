"""The API contract: entry points, sources and sinks, keywords, attributes, errors, and the
docstring examples."""

from __future__ import annotations

import doctest
import io
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import arrow_tensor_ipc as ati
from arrow_tensor_ipc import _message
from conftest import needs

EOS = b"\xff\xff\xff\xff\x00\x00\x00\x00"


@needs("numpy", "2.0")  # the examples show numpy 2's reprs (np.float64(1.5))
def test_docstring_examples() -> None:
    for module in (ati, _message):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__
        assert result.attempted > 0, module.__name__


def test_error_class() -> None:
    assert issubclass(ati.ArrowTensorError, ValueError)
    assert ati.ArrowTensorError.__module__ == "arrow_tensor_ipc"


def test_write_and_read_every_sink_and_source(tmp_path: Path) -> None:
    objs = [np.arange(6).reshape(2, 3), sp.csr_array(np.eye(3)), np.float32(2.5)]
    path = tmp_path / "s.arrows"
    ati.write(path, objs)
    ati.write(str(path) + ".2", objs)
    f = io.BytesIO()
    ati.write(f, objs)
    data = path.read_bytes()
    assert data.endswith(EOS)
    assert f.getvalue() == data == Path(str(path) + ".2").read_bytes()
    assert data == b"".join(ati.dumps(o) for o in objs) + EOS
    for source in (path, str(path), data, memoryview(data), np.frombuffer(data, np.uint8), io.BytesIO(data)):
        msgs = ati.read(source)
        assert [m.format for m in msgs] == ["dense", "CSR", "dense"]
        assert np.array_equal(msgs[0].to_numpy(), objs[0])
        assert msgs[2].shape == () and msgs[2].to_numpy() == np.float32(2.5)
    with open(path, "rb") as fh:
        assert len(list(ati.iter_messages(fh))) == 3
    assert len(list(ati.iter_messages(path))) == 3
    # One object is a stream of one.
    ati.write(path, sp.coo_array(np.eye(2)))
    assert [m.format for m in ati.read(path)] == ["COO"]
    # Keywords apply to every object.
    ati.write(path, [np.eye(3), np.ones((2, 2))], format="csc", index_type=np.int16)
    assert [(m.format, m.indptr.dtype) for m in ati.read(path)] == [("CSC", np.int16)] * 2


def test_loads_takes_exactly_one_message() -> None:
    one = ati.dumps(np.ones(3))
    assert ati.loads(one + EOS).shape == (3,)
    with pytest.raises(ati.ArrowTensorError, match="more than one message"):
        ati.loads(one + one)
    for empty in (b"", EOS):
        with pytest.raises(ati.ArrowTensorError, match="no message"):
            ati.loads(empty)
    assert ati.read(b"") == []


def test_bad_sources_and_inputs() -> None:
    with pytest.raises(TypeError):
        ati.loads(12)  # type: ignore[arg-type]
    with pytest.raises(BufferError):
        ati.loads(np.zeros(100, np.uint8)[::2])
    with pytest.raises(TypeError, match="cannot write"):
        ati.dumps([1, 2, 3])
    with pytest.raises(TypeError, match="dtype"):
        ati.dumps(np.zeros(3, dtype=bool))
    with pytest.raises(TypeError, match="dtype"):
        ati.dumps(np.zeros(3, dtype=np.complex128))
    with pytest.raises(TypeError, match="not an Arrow layout"):
        ati.dumps(sp.lil_array((3, 3)))
    with pytest.raises(TypeError):
        ati.write(42, [np.ones(2)])  # type: ignore[arg-type]
    with pytest.raises(ati.ArrowTensorError, match="dimension names"):
        ati.dumps(np.ones((2, 2)), dim_names=["only one"])
    with pytest.raises(ati.ArrowTensorError, match="unknown format"):
        ati.dumps(np.ones((2, 2)), format="bsr")
    with pytest.raises(ati.ArrowTensorError):
        ati.dumps(np.ones(3), format="csr")  # CSR needs rank 2
    with pytest.raises(ati.ArrowTensorError):
        ati.dumps(np.ones((2, 2)), format="csf", axis_order=[0, 0])
    with pytest.raises(ati.ArrowTensorError):
        ati.dumps(np.ones((300, 2)), format="coo", index_type="int8")  # too narrow
    with pytest.raises(ati.ArrowTensorError, match="sparse format"):
        ati.dumps(np.ones((2, 2)), format="dense", index_type="int32")
    with pytest.raises(ati.ArrowTensorError):
        ati.dumps(np.ones((2, 2)), format="coo", index_type="float32")


def test_numpy_layouts_and_byte_orders() -> None:
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    for view in (a[::-1], a[:, ::-2], a.astype(">f8"), a.transpose(2, 0, 1), np.broadcast_to(a[0], (5, 3, 4))):
        m = ati.loads(ati.dumps(view))
        assert np.array_equal(m.to_numpy(), view)
        assert m.dtype == np.dtype("<f8")


def test_message_attributes() -> None:
    a = np.array([[0, 3, 0], [4, 0, 5]], dtype=np.uint16)
    csr = ati.loads(ati.dumps(a, format="csr", dim_names=["i", "j"]))
    assert (csr.format, csr.shape, csr.dim_names, csr.dtype, csr.nnz) == ("CSR", (2, 3), ("i", "j"), np.uint16, 3)
    assert csr.values.tolist() == [3, 4, 5]
    assert csr.indptr.tolist() == [0, 1, 3] and csr.indices.tolist() == [1, 0, 2]
    assert csr.axis_order is None and csr.is_canonical is None
    with pytest.raises(AttributeError):
        csr.coords
    assert csr.get((1, 2)) == np.uint16(5) and isinstance(csr.get((1, 2)), np.uint16)
    assert csr.get((0, 0)) == 0
    with pytest.raises(ati.ArrowTensorError):
        csr.get((2, 0))
    coo = csr.to_format("coo")
    assert coo.coords.tolist() == [[0, 1], [1, 0], [1, 2]] and coo.is_canonical
    with pytest.raises(AttributeError):
        coo.indptr
    csf = csr.to_format("csf", axis_order=[1, 0])
    assert csf.axis_order == (1, 0) and len(csf.indptr) == 1 and len(csf.indices) == 2
    assert np.array_equal(np.asarray(csf), a)
    dense = csr.to_format("dense")
    assert isinstance(dense, ati.Tensor) and dense.nnz == 3 and dense.dim_names == ("i", "j")
    assert dense.strides == (6, 2)
    assert isinstance(dense.to_scipy(), sp.coo_array)
    out = csr.to_numpy()
    out[0, 0] = 9  # a fresh, writable array
    assert csr.to_numpy()[0, 0] == 0
    assert "CSR" in repr(csr) and "nnz=3" in repr(csr)
    renamed = ati.loads(ati.dumps(csr, dim_names=["a", ""]))
    assert renamed.dim_names == ("a", "")
    assert ati.loads(ati.dumps(csr, format="csr")).indptr.dtype == csr.indptr.dtype


def test_strict_and_permissive_reading() -> None:
    # CSR with unsorted column indices in a row: structure fine, contents not.
    csr = ati.loads(ati.dumps(np.array([[1.0, 2.0], [0.0, 3.0]]), format="csr", index_type="int64"))
    data = bytearray(ati.dumps(csr))
    at = data.find(np.array([0, 1, 1], dtype=np.int64).tobytes())
    assert at > 0
    data[at : at + 16] = np.array([1, 0], dtype=np.int64).tobytes()
    with pytest.raises(ati.ArrowTensorError):
        ati.loads(bytes(data))
    with pytest.raises(ati.ArrowTensorError):
        ati.read(bytes(data), strict=True)
    m = ati.loads(bytes(data), strict=False)
    assert m.indices.tolist()[:2] == [1, 0]


def test_readme_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    from conftest import ROOT

    monkeypatch.chdir(tmp_path)
    blocks = []
    for readme in (ROOT / "README.md", ROOT / "python" / "README.md"):
        blocks += re.findall(r"```python\n(.*?)```", readme.read_text(), re.S)
    assert len(blocks) >= 3
    for code in blocks:
        exec(compile(code, "README", "exec"), {})
