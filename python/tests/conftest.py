"""Shared helpers of the Python suite: the Arrow C++ interop helper, tensor generators and
comparisons, resident memory."""

from __future__ import annotations

import json
import math
import re
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def needs(package: str, version: str) -> pytest.MarkDecorator:
    """Skips a test where the installed `package` is older than `version`. The suite also
    runs at the lowest versions python/pyproject.toml declares (scripts/wheel-check.sh:
    numpy 1.26, pyarrow 14, scipy 1.13), where a few tests of newer features skip."""
    from importlib.metadata import version as installed

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", v)[:3])

    have = installed(package)
    return pytest.mark.skipif(
        key(have) < key(version), reason=f"needs {package} >= {version} (found {have})"
    )

VALUE_TYPES = [
    "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
]  # fmt: skip
INDEX_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def rss_bytes() -> int:
    """Resident set size of this process."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def random_dense(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, density: float = 0.4,
                 specials: bool = True) -> np.ndarray:
    """A tensor with about `density` non-zeros; floats include NaN, +-inf and -0.0."""
    dt = np.dtype(dtype)
    n = math.prod(shape)
    if dt.kind == "f":
        vals = (rng.integers(-500, 500, n) / 8.0 + 0.125).astype(dt)
        if specials and n:
            pick = rng.integers(0, 12, n)
            vals[pick == 0] = np.nan
            vals[pick == 1] = np.inf
            vals[pick == 2] = -np.inf
            vals[pick == 3] = -0.0
    elif dt.kind == "i":
        info = np.iinfo(dt)
        vals = rng.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(dt)
        if n:
            vals[0] = info.min
    else:
        info = np.iinfo(dt)
        vals = rng.integers(1, min(info.max, 1000), n, endpoint=True).astype(dt)
        if n:
            vals[0] = info.max
    keep = rng.random(n) < density
    out = np.where(keep, vals, np.zeros((), dt)).astype(dt)
    if dt.kind == "f" and specials and n:
        # -0.0 stays in dense tensors (a zero for the sparse layouts).
        out[(~keep) & (rng.random(n) < 0.1)] = -0.0
    return out.reshape(shape)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shape, dtype and bits (NaN payloads and the sign of zero included)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    ua = np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")
    ub = np.ascontiguousarray(b).view(f"u{b.dtype.itemsize}")
    return bool(np.array_equal(ua, ub))


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shape and dtype, values equal with NaN equal to NaN (so -0.0 == 0.0: sparse
    layouts store -0.0 as a zero)."""
    return a.shape == b.shape and a.dtype == b.dtype and bool(
        np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    )


# ---------------------------------------------------------------------------------------
# The Arrow C++ interop helper (tests/interop/arrow_interop.cc, built against the pinned
# pyarrow wheel by tests/interop/build.sh).


@pytest.fixture(scope="session")
def arrow_helper() -> Path:
    out = ROOT / "target" / "interop" / "arrow_interop"
    subprocess.run(
        ["bash", str(ROOT / "tests" / "interop" / "build.sh"), sys.executable, str(out)],
        check=True,
    )
    return out


def _parse_int(s: str) -> Any:
    # The helper prints floats with %.17g: -0.0 comes out as "-0".
    return -0.0 if s == "-0" else int(s)


def arrow_write(helper: Path, specs: Iterable[str], path: Path) -> None:
    """Has Arrow C++ write one message per spec line into `path`."""
    p = subprocess.run(
        [str(helper), "write", str(path)], input="\n".join(specs).encode(), capture_output=True
    )
    assert p.returncode == 0, p.stderr.decode()


def arrow_read(helper: Path, path: Path) -> list[dict]:
    """Has Arrow C++ read every message of `path`: one description per message."""
    p = subprocess.run([str(helper), "read", str(path)], capture_output=True)
    assert p.returncode == 0, p.stderr.decode()
    return [
        json.loads(line, parse_int=_parse_int)
        for line in p.stdout.decode().splitlines()
        if line.strip()
    ]


def json_values(a: np.ndarray) -> list:
    """Values as the helper prints them (row-major; NaN and infinities as strings)."""
    out = []
    for v in np.asarray(a).reshape(-1).tolist():
        if isinstance(v, float):
            if math.isnan(v):
                v = "NaN"
            elif math.isinf(v):
                v = "Infinity" if v > 0 else "-Infinity"
        out.append(v)
    return out


def json_equal(a: list, b: list) -> bool:
    """Equal value lists; when either side is a float, by float value and sign of zero
    (the helper prints integral doubles without a fraction)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, float) or isinstance(y, float):
            if isinstance(x, str) or isinstance(y, str):
                return False
            fx, fy = float(x), float(y)
            if fx != fy or math.copysign(1, fx) != math.copysign(1, fy):
                return False
        elif x != y:
            return False
    return True


def pytest_report_header(config: Any) -> str:
    import arrow_tensor_ipc

    return f"arrow_tensor_ipc from {os.path.dirname(arrow_tensor_ipc.__file__)}"
