"""Hostile bytes: the crate's fuzz corpus, truncations and bit flips of valid messages.
Each input either decodes or raises ArrowTensorError; nothing crashes, and whatever decodes
can be used (arrays, lookups, conversions) without crashing either."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import arrow_tensor_ipc as ati
from conftest import ROOT, random_dense

CORPUS = sorted(p for p in (ROOT / "fuzz" / "corpus").glob("*/*") if p.is_file())


def exercise(m: ati.Message) -> None:
    """Touch everything a user could touch; only ArrowTensorError may come out."""
    m.shape, m.dim_names, m.dtype, repr(m)
    if isinstance(m, ati.SparseTensor):
        m.values, m.nnz, m.is_canonical, m.axis_order
        if m.format == "COO":
            m.coords
        else:
            m.indptr, m.indices
    small = math.prod(m.shape) <= 1 << 20
    for step in (
        (lambda: m.get([0] * m.ndim)) if all(m.shape) else None,
        m.to_numpy if small or isinstance(m, ati.Tensor) else None,
        (lambda: m.to_format("coo")) if isinstance(m, ati.SparseTensor) else None,
        (lambda: ati.dumps(m, arrow_compatible=False)) if small or isinstance(m, ati.SparseTensor) else None,
    ):
        if step is None:
            continue
        try:
            step()
        except ati.ArrowTensorError:
            pass


def attempt(data: bytes) -> int:
    """Decodes `data` every way; returns how many messages decoded."""
    ok = 0
    for strict in (True, False):
        for call in (ati.loads, ati.read):
            try:
                out = call(data, strict=strict)
            except ati.ArrowTensorError:
                continue
            for m in out if isinstance(out, list) else [out]:
                ok += 1
                exercise(m)
    return ok


def test_corpus_present() -> None:
    assert len(CORPUS) >= 50, "fuzz/corpus is missing"


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.name[:12]}")
def test_fuzz_corpus(path: Path) -> None:
    attempt(path.read_bytes())


def valid_messages() -> list[bytes]:
    rng = np.random.default_rng(30)
    a = random_dense(rng, (5, 6), "float32")
    b = random_dense(rng, (3, 2, 4), "int16")
    return [
        ati.dumps(a),
        ati.dumps(a, format="coo"),
        ati.dumps(a, format="csr"),
        ati.dumps(a, format="csc", index_type="int16"),
        ati.dumps(b, format="csf", axis_order=[2, 0, 1]),
        ati.dumps(b, format="coo", index_type="uint8", arrow_compatible=False),
    ]


def test_truncations_raise() -> None:
    for data in valid_messages():
        for n in range(len(data)):
            with pytest.raises(ati.ArrowTensorError):
                ati.loads(data[:n])
        assert attempt(data) == 4


def test_bit_flips_never_crash() -> None:
    rng = np.random.default_rng(31)
    decoded = failed = 0
    for data in valid_messages():
        for pos in range(len(data)):
            for bit in rng.choice(8, size=2, replace=False):
                bad = bytearray(data)
                bad[pos] ^= 1 << int(bit)
                try:
                    m = ati.loads(bytes(bad))
                except ati.ArrowTensorError:
                    failed += 1
                    continue
                decoded += 1
                exercise(m)
    assert failed > 0 and decoded > 0  # both outcomes are exercised


def test_permissive_bad_index_data_raises_on_use() -> None:
    data = bytearray(ati.dumps(np.eye(4), format="coo", index_type="int64"))
    m = ati.loads(bytes(data))
    coords_at = data.find(m.coords.tobytes())
    assert coords_at > 0
    data[coords_at : coords_at + 8] = (1000).to_bytes(8, "little")  # out of bounds
    with pytest.raises(ati.ArrowTensorError, match="out of bounds"):
        ati.loads(bytes(data))
    loose = ati.loads(bytes(data), strict=False)
    with pytest.raises(ati.ArrowTensorError):
        loose.to_numpy()
    with pytest.raises(ati.ArrowTensorError):
        loose.to_format("csr")


def test_errors_carry_the_crate_message() -> None:
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.loads(b"\xff\xff\xff\xff\x10\x00\x00\x00short")
    assert isinstance(e.value, ValueError)
    assert "message at byte 0" in str(e.value)
    huge = b"\xff\xff\xff\xff" + (1 << 30).to_bytes(4, "little")
    with pytest.raises(ati.ArrowTensorError, match="over the limit"):
        ati.loads(huge)


@pytest.mark.parametrize("nnz", [10, 300_000])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_dumps_validates_scipy_input(fmt: str, nnz: int) -> None:
    """`dumps` checks a scipy matrix's index while it copies (small messages before, large
    ones on a second thread): an out-of-range index raises and a valid one round-trips."""
    import scipy.sparse as sp

    rng = np.random.default_rng(nnz)
    n = 1000
    rows = rng.integers(0, n, nnz)
    cols = rng.integers(0, n, nnz)
    m = sp.coo_array((rng.random(nnz), (rows, cols)), shape=(n, n)).asformat(fmt)
    if fmt == "coo":
        m.sum_duplicates()
    good = ati.loads(ati.dumps(m)).to_scipy()
    assert (good != m).nnz == 0
    if fmt == "coo":
        m.col[nnz // 3] = n + 5
    else:
        m.indices[len(m.indices) // 3] = n + 5
    with pytest.raises(ati.ArrowTensorError, match="out of bounds"):
        ati.dumps(m)
