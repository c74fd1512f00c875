"""Zero copy proven, not assumed: arrays of a loaded message share memory with its source,
stay valid after the caller drops the source, and memory stays flat over many cycles; a
1 GiB dense message loads without a copy."""

from __future__ import annotations

import gc
import io
import mmap
import weakref
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sp

import arrow_tensor_ipc as ati
from conftest import random_dense, rss_bytes


class Source(bytearray):
    """A bytes-like source that can be weakly referenced (bytes cannot)."""


def span(obj: object) -> tuple[int, int]:
    """Address range of a bytes-like object's memory."""
    a = np.frombuffer(obj, dtype=np.uint8)
    start = a.__array_interface__["data"][0]
    return start, start + a.nbytes


def address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def arrays_of(m: ati.Message) -> list[np.ndarray]:
    if isinstance(m, ati.Tensor):
        return [m.to_numpy(), m.values]
    out = [m.values]
    if m.format == "COO":
        out.append(m.coords)
    elif m.format == "CSF":
        out += m.indptr + m.indices
    else:
        out += [m.indptr, m.indices]
    return out


def messages() -> list[bytes]:
    rng = np.random.default_rng(20)
    a = random_dense(rng, (40, 30), "float64", specials=False)
    b = random_dense(rng, (4, 5, 6), "int32")
    return [
        ati.dumps(a),
        ati.dumps(a, format="coo"),
        ati.dumps(sp.csr_array(a)),
        ati.dumps(sp.csc_array(a)),
        ati.dumps(b, format="csf", axis_order=[2, 0, 1]),
    ]


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview", "numpy", "pyarrow", "mmap"])
def test_arrays_share_memory_with_the_source(kind: str, tmp_path: Path) -> None:
    for data in messages():
        if kind == "bytes":
            src: object = data
        elif kind == "bytearray":
            src = bytearray(data)
        elif kind == "memoryview":
            src = memoryview(bytearray(b"\0" * 64 + data))[64:]
        elif kind == "numpy":
            src = np.frombuffer(data, dtype=np.uint8).copy()
        elif kind == "pyarrow":
            src = pa.py_buffer(data)
        else:
            path = tmp_path / "m.arrows"
            path.write_bytes(data)
            f = open(path, "rb")
            src = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        m = ati.loads(src)
        lo, hi = span(src)
        raw = np.frombuffer(src, dtype=np.uint8)
        for arr in arrays_of(m):
            assert not arr.flags.writeable
            if arr.size:
                assert np.shares_memory(arr, raw), (kind, m)
                assert lo <= address(arr) < hi
        with pytest.raises(ValueError):
            arrays_of(m)[0][...] = 0
        if kind == "mmap":
            del m, arr, raw
            gc.collect()
            src.close()  # type: ignore[attr-defined]
            f.close()


def test_dense_to_numpy_and_scipy_are_views() -> None:
    data = ati.dumps(sp.csr_array(np.eye(50)))
    m = ati.loads(data)
    s = m.to_scipy()
    raw = np.frombuffer(data, dtype=np.uint8)
    for arr in (s.data, s.indices, s.indptr):
        assert np.shares_memory(arr, raw)
    d = ati.loads(ati.dumps(np.arange(100.0)))
    t = d.to_pyarrow()
    assert address(t.to_numpy()) == address(d.to_numpy())


def test_arrays_outlive_the_source() -> None:
    a = random_dense(np.random.default_rng(21), (30, 20), "float32", specials=False)
    for fmt in ("dense", "coo", "csr", "csf"):
        src = Source(ati.dumps(a, format=fmt))
        alive = weakref.ref(src)
        m = ati.loads(src)
        arrays = arrays_of(m)
        copies = [x.copy() for x in arrays]
        del src, m
        gc.collect()
        assert alive() is not None  # kept by the arrays
        for x, c in zip(arrays, copies):
            assert np.array_equal(x, c)
        del arrays, x
        gc.collect()
        assert alive() is None  # and released with them


def test_mapped_file_arrays_outlive_the_message(tmp_path: Path) -> None:
    a = np.arange(1 << 16, dtype=np.int64).reshape(256, 256)
    path = tmp_path / "big.arrows"
    ati.write(path, [a, sp.csr_array(a)])
    dense, csr = ati.read(path)
    maps = Path("/proc/self/maps").read_text().splitlines()
    regions = [
        (int(lo, 16), int(hi, 16))
        for line in maps
        if line.endswith(str(path))
        for lo, hi in [line.split()[0].split("-")]
    ]
    assert regions, "the file is not memory-mapped"
    arrays = [dense.to_numpy(), csr.values, csr.indices, csr.indptr]
    for x in arrays:
        assert any(lo <= address(x) < hi for lo, hi in regions)
    del dense, csr
    gc.collect()
    assert np.array_equal(arrays[0], a)
    assert np.array_equal(arrays[1], a.reshape(-1)[1:])


def test_ten_thousand_cycles_keep_memory_flat() -> None:
    rng = np.random.default_rng(22)
    csr = sp.random_array((200, 200), density=0.05, format="csr", random_state=rng)
    dense = random_dense(rng, (64, 64), "float32")
    datas = [ati.dumps(csr), ati.dumps(dense), ati.dumps(dense, format="csf")]

    def cycle() -> None:
        for data in datas:
            m = ati.loads(data)
            m.to_numpy()
            m.values
            if isinstance(m, ati.SparseTensor):
                m.to_scipy()
                ati.dumps(m.to_format("coo"))
            else:
                m.to_pyarrow()
                ati.dumps(m, format="csr")
        ati.read(datas[0] + datas[1])

    for _ in range(1000):  # warm up allocator pools
        cycle()
    gc.collect()
    before = rss_bytes()
    for _ in range(10_000):
        cycle()
    gc.collect()
    grown = rss_bytes() - before
    # A leak of one message per cycle would be >= 10,000 x 8 KiB = 80 MiB.
    assert grown < 8 << 20, f"RSS grew by {grown / 2**20:.1f} MiB over 10,000 cycles"


def test_one_gib_dense_message_loads_without_a_copy(tmp_path: Path) -> None:
    n = (1 << 30) // 8
    data = ati.dumps(np.zeros(n, dtype=np.float64))  # the input's zero pages stay unmapped
    assert len(data) > 1 << 30
    gc.collect()
    before = rss_bytes()
    m = ati.loads(data)
    arr = m.to_numpy()
    assert arr.shape == (n,)
    assert np.shares_memory(arr, np.frombuffer(data, dtype=np.uint8))
    assert rss_bytes() - before < 16 << 20
    del m, arr
    # The same through a file: memory-mapped, read only where touched.
    path = tmp_path / "big.arrows"
    ati.write(path, ati.loads(data))
    del data
    gc.collect()
    before = rss_bytes()
    (m,) = ati.read(path)
    arr = m.to_numpy()
    assert arr.nbytes == 1 << 30 and arr[123456] == 0.0
    assert rss_bytes() - before < 16 << 20


def test_iter_messages_reads_a_file_object_lazily() -> None:
    data = b"".join(messages())
    f = io.BytesIO(data + b"\xff\xff\xff\xff\x00\x00\x00\x00")
    it = ati.iter_messages(f)
    first = next(it)
    assert f.tell() == len(messages()[0])  # read no further than the first message
    assert first.format == "dense"
    assert [m.format for m in it] == ["COO", "CSR", "CSC", "CSF"]
