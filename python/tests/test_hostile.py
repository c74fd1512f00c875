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


# ---------------------------------------------------------------------------------------
# Handoffs to libraries that trust index arrays (scipy, pyarrow / Arrow C++): a message read
# with strict=False is validated first. Each case runs in a subprocess, so that a regression
# (a segfault in scipy or Arrow C++) fails the test instead of killing pytest.

import json
import subprocess
import sys


def _patched(data: bytes, old: np.ndarray, new: np.ndarray) -> bytes:
    """`data` with the bytes of the index array `old` (found in the body) replaced by `new`."""
    raw = bytearray(data)
    at = raw.find(old.tobytes())
    assert at > 0, "index array not found in the message"
    raw[at : at + new.nbytes] = new.tobytes()
    return bytes(raw)


def _corrupt_cases() -> dict[str, tuple[bytes, str]]:
    """Permissively readable messages whose index breaks a rule, with the text the error
    must contain (the buffer and the position)."""
    import scipy.sparse as sp

    m = sp.csr_array(([1.5, -2.0, 4.0], [2, 0, 3], [0, 1, 1, 3]), shape=(3, 4))
    csr = ati.dumps(m, index_type="int32")
    csc = ati.dumps(m.tocsc(), index_type="int32")
    coo = ati.dumps(m.tocoo(), index_type="int64")
    csf = ati.dumps(np.arange(24.0).reshape(2, 3, 4) % 5, format="csf", index_type="int32")
    csc_m = ati.loads(csc)
    coo_m = ati.loads(coo)
    csf_m = ati.loads(csf)
    leaves = csf_m.indices[-1]
    bad_leaves = leaves.copy()
    bad_leaves[1] = 1 << 20
    bad_coords = coo_m.coords.copy()
    bad_coords[2, 1] = 1 << 20
    bad_rows = csc_m.indices.copy()
    bad_rows[-1] = 1 << 20
    return {
        # Issue 20's reproducer: the first column index of a 3 x 4 CSR overwritten.
        "csr-indices": (
            _patched(csr, np.array([2, 0, 3], "<i4"), np.array([1 << 20], "<i4")),
            "CSX indices buffer[0] = 1048576 is out of bounds for dimension 1 of size 4",
        ),
        "csr-indptr": (
            _patched(csr, np.array([0, 1, 1, 3], "<i4"), np.array([0, 2, 1, 3], "<i4")),
            "CSX indptr buffer[2]",
        ),
        "csc-indices": (
            _patched(csc, csc_m.indices, bad_rows),
            f"CSX indices buffer[{len(bad_rows) - 1}] = 1048576 is out of bounds for dimension 0",
        ),
        "coo-coords": (
            _patched(coo, coo_m.coords, bad_coords),
            "COO indices buffer[5] = 1048576 is out of bounds for dimension 1 of size 4",
        ),
        "csf-indices": (
            _patched(csf, leaves, bad_leaves),
            "CSF indices buffer of level 2[1] = 1048576 is out of bounds for dimension 2",
        ),
    }


# What each handoff does with the result: enough to make scipy or Arrow C++ walk the index.
_HANDOFFS = {
    "to_scipy": "r = m.to_scipy(); r @ np.ones(r.shape[1]); r.toarray()",
    "to_pyarrow": "r = m.to_pyarrow(); r.to_tensor().to_numpy()",
}

_CHILD = """
import json, sys
import numpy as np
import arrow_tensor_ipc as ati
m = ati.loads(open(sys.argv[1], "rb").read(), strict=False)
out = {}
try:
    HANDOFF
    out["result"] = "ok"
except ati.ArrowTensorError as e:
    out["result"] = "ArrowTensorError"
    out["message"] = str(e)
    out["validated"] = m.is_validated
print(json.dumps(out))
"""


def _run_child(code: str, *args: str) -> dict:
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=300)
    assert p.returncode == 0, (
        f"the child process died (status {p.returncode}): {p.stderr.decode()[-2000:]}"
    )
    return json.loads(p.stdout.decode().strip().splitlines()[-1])


@pytest.mark.parametrize("handoff", sorted(_HANDOFFS))
@pytest.mark.parametrize("case", ["csr-indices", "csr-indptr", "csc-indices", "coo-coords", "csf-indices"])
def test_permissive_handoff_validates_first(tmp_path: Path, case: str, handoff: str) -> None:
    data, where = _corrupt_cases()[case]
    with pytest.raises(ati.ArrowTensorError):
        ati.loads(data)
    m = ati.loads(data, strict=False)  # loads, as permissive mode allows
    assert not m.is_validated
    path = tmp_path / "bad.arrows"
    path.write_bytes(data)
    out = _run_child(_CHILD.replace("HANDOFF", _HANDOFFS[handoff]), str(path))
    assert out["result"] == "ArrowTensorError", out
    assert where in out["message"], out["message"]
    assert out["validated"] is False


def test_permissive_handoff_validates_once() -> None:
    import scipy.sparse as sp

    m = sp.random_array((300, 400), density=0.05, format="csr", rng=0)
    loose = ati.loads(ati.dumps(m), strict=False)
    assert not loose.is_validated
    assert loose.validate() is loose and loose.is_validated
    # A valid message still goes to scipy and pyarrow without a copy.
    s = loose.to_scipy()
    assert np.shares_memory(s.indices, loose.indices)
    assert (s != m).nnz == 0
    assert (loose.to_pyarrow().to_scipy() != m).nnz == 0
    strict = ati.loads(ati.dumps(m))
    assert strict.is_validated


def test_validate_names_what_and_where() -> None:
    data, where = _corrupt_cases()["csr-indices"]
    m = ati.loads(data, strict=False)
    with pytest.raises(ati.ArrowTensorError, match="CSR") as e:
        m.validate()
    assert where in str(e.value)
    assert not m.is_validated
    # Our own conversions refuse it too.
    with pytest.raises(ati.ArrowTensorError):
        m.to_numpy()
    with pytest.raises(ati.ArrowTensorError):
        m.to_format("coo")


# ---------------------------------------------------------------------------------------
# Under a memory cap: messages that claim huge sizes give ArrowTensorError (or convert
# within the cap), never an abort (a failed allocation) or a crash.

_CAPPED = """
import json, resource, sys
import numpy as np, scipy.sparse as sp, pyarrow
import arrow_tensor_ipc as ati

CASES = json.loads(sys.argv[1])
data = {name: open(path, "rb").read() for name, path in CASES.items()}
cap = 1 << 30
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

out = {}
def attempt(name, f):
    try:
        f()
        out[name] = "ok"
    except ati.ArrowTensorError as e:
        out[name] = "ArrowTensorError: " + str(e)
    except MemoryError as e:
        out[name] = "MemoryError: " + str(e)

for name, raw in data.items():
    for strict in (True, False):
        tag = f"{name} strict={strict}"
        try:
            m = ati.loads(raw, strict=strict)
        except ati.ArrowTensorError as e:
            out[tag + " loads"] = "ArrowTensorError: " + str(e)
            continue
        out[tag + " loads"] = "ok"
        attempt(tag + " to_numpy", m.to_numpy)
        attempt(tag + " to_scipy", m.to_scipy)
        for fmt in ("dense", "coo", "csr", "csc", "csf"):
            attempt(tag + " to_format " + fmt, lambda: m.to_format(fmt))
print(json.dumps(out))
"""


def _zero_strides() -> bytes:
    """A 2^20 x 2^20 float64 message whose strides are [0, 0] and whose body holds the 91
    values of the 13 x 7 message it was patched from (Arrow C++'s reader accepts it)."""
    raw = bytearray(ati.dumps(np.ones((13, 7))))
    for old, new in (([56, 8], [0, 0]), ([13], [1 << 20]), ([7], [1 << 20])):
        o = np.array(old, "<i8").tobytes()
        assert raw.count(o) == 1
        at = raw.find(o)
        raw[at : at + len(o)] = np.array(new, "<i8").tobytes()
    return bytes(raw)


def _huge_messages(tmp_path: Path) -> dict[str, str]:
    import scipy.sparse as sp

    big = 1 << 40
    messages = {
        # CSR with 2^40 columns: to CSC needs an indptr of 2^40 + 1 entries, to dense 2^41.
        "csr-wide": ati.dumps(
            sp.csr_array(([1.0, 2.0], [0, big - 1], [0, 1, 2]), shape=(2, big)), index_type="int64"
        ),
        # CSC with 2^40 rows: to CSR needs an indptr of 2^40 + 1 entries.
        "csc-tall": ati.dumps(
            sp.csc_array(([1.0, 2.0], [0, big - 1], [0, 1, 2]), shape=(big, 2)), index_type="int64"
        ),
        # COO with a huge shape (2^40 x 2^40: 2^80 elements).
        "coo-huge": ati.dumps(
            sp.coo_array(([1.0, 2.0], ([0, big - 1], [big - 1, 0])), shape=(big, big)),
            index_type="int64",
        ),
        # A dense tensor with zero strides claiming 2^40 elements over 91 values.
        "dense-zero-strides": _zero_strides(),
    }
    paths = {}
    for name, raw in messages.items():
        p = tmp_path / f"{name}.arrows"
        p.write_bytes(raw)
        paths[name] = str(p)
    return paths


def test_huge_claims_under_a_memory_cap(tmp_path: Path) -> None:
    out = _run_child(_CAPPED, json.dumps(_huge_messages(tmp_path)))
    bad = {k: v for k, v in out.items() if not (v == "ok" or v.startswith("ArrowTensorError"))}
    assert not bad, bad
    for strict in (True, False):
        # Nothing of these fits in 1 GiB densely: each expansion is refused.
        for name in ("csr-wide", "csc-tall", "coo-huge"):
            assert out[f"{name} strict={strict} loads"] == "ok"
            assert out[f"{name} strict={strict} to_numpy"].startswith("ArrowTensorError")
            assert out[f"{name} strict={strict} to_format dense"].startswith("ArrowTensorError")
            # scipy takes the index arrays as they are (no allocation from the shape).
            assert out[f"{name} strict={strict} to_scipy"] == "ok"
            assert out[f"{name} strict={strict} to_format coo"] == "ok"
        # The indptr of 2^40 + 1 entries cannot be had.
        assert out[f"csr-wide strict={strict} to_format csc"].startswith("ArrowTensorError")
        assert out[f"csc-tall strict={strict} to_format csr"].startswith("ArrowTensorError")
        assert out[f"coo-huge strict={strict} to_format csr"].startswith("ArrowTensorError")
        # Refused when decoded: its row-major copy (re-encoding it) would be 8 TiB.
        assert "aliasing strides" in out[f"dense-zero-strides strict={strict} loads"]
