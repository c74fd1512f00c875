"""Times arrow_tensor_ipc against what a Python user does without it.

    .venv/bin/python python/bench/compare.py [--reps N] [--max-dense BYTES] [--only SUBSTRING]

One JSON object per line, like ``cargo run --release --example compare``:

    {"op":..,"bytes":..,"ours_s":..,"base":..,"base_s":..,"ratio":..,"memcpy_s":..,"per":..,"gbps":..}

- ``dense_<size>_loads_to_numpy``: ``ati.loads(data).to_numpy()`` of a dense float64 message
  of 1 KiB, 16 KiB, .. 1 GiB (x16 steps), against ``pyarrow.ipc.read_tensor(pyarrow.py_buffer(data)).to_numpy()``
  on the same bytes. ``bytes`` is the message length.
- ``csr_1M_dumps``: ``ati.dumps(csr)`` of a 100,000 x 100,000 float64 CSR matrix with
  1,000,000 stored values (int32 indices), against
  ``scipy.sparse.save_npz(BytesIO(), csr, compressed=False)``; ``memcpy_s`` times a numpy copy
  of the same number of bytes (``np.copy`` of the message, allocation included as in
  ``dumps``) and ``memcpy_share`` is ``memcpy_s / ours_s`` (1.0 = memcpy bandwidth).
- ``csr_1M_loads_to_scipy``: ``ati.loads(data).to_scipy()`` against
  ``scipy.sparse.load_npz(BytesIO(npz))`` of what ``save_npz`` wrote.

Times are medians of ``--reps`` runs after one warm-up; ``ratio`` is ``base_s / ours_s``
(higher is better for us); ``gbps`` is ``bytes / ours_s / 1e9``.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import statistics
import time
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import scipy.sparse as sp

import arrow_tensor_ipc as ati


def timed(reps: int, f: Callable[[], Any]) -> float:
    """Median seconds of `reps` runs of `f` after one warm-up (results dropped untimed)."""
    f()
    out = []
    for _ in range(reps):
        gc.disable()
        t0 = time.perf_counter()
        r = f()
        t1 = time.perf_counter()
        gc.enable()
        del r
        out.append(t1 - t0)
    return statistics.median(out)


def emit(op: str, nbytes: int, ours: float, base: str | None, base_s: float | None,
         per: str, memcpy_s: float | None = None) -> None:
    row: dict[str, Any] = {
        "op": op,
        "bytes": nbytes,
        "ours_s": float(f"{ours:.6e}"),
        "base": base,
        "base_s": None if base_s is None else float(f"{base_s:.6e}"),
        "ratio": None if base_s is None else round(base_s / ours, 3),
        "memcpy_s": None if memcpy_s is None else float(f"{memcpy_s:.6e}"),
    }
    if memcpy_s is not None:
        row["memcpy_share"] = round(memcpy_s / ours, 3)
    row["per"] = per
    row["gbps"] = round(nbytes / ours / 1e9, 3)
    print(json.dumps(row), flush=True)


def size_name(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n >> shift}{unit}"
    return f"{n}B"


def dense_rows(reps: int, max_dense: int, only: str | None) -> None:
    size = 1 << 10
    while size <= max_dense:
        op = f"dense_{size_name(size)}_loads_to_numpy"
        if only is None or only in op:
            data = ati.dumps(np.arange(size // 8, dtype=np.float64))
            r = reps if size < 1 << 28 else max(3, reps // 4)
            ours = timed(r, lambda: ati.loads(data).to_numpy())
            base = timed(r, lambda: pa.ipc.read_tensor(pa.py_buffer(data)).to_numpy())
            emit(op, len(data), ours, "pyarrow.ipc.read_tensor(pa.py_buffer(data)).to_numpy()",
                 base, "loads + to_numpy")
            del data
            gc.collect()
        size <<= 4  # 1 KiB, 16 KiB, 256 KiB, 4 MiB, 64 MiB, 1 GiB


def csr_rows(reps: int, only: str | None) -> None:
    rng = np.random.default_rng(0)
    n = 100_000
    csr = sp.random_array((n, n), density=1e-4, format="csr", rng=rng, dtype=np.float64)
    assert csr.nnz == 1_000_000
    data = ati.dumps(csr)
    npz = io.BytesIO()
    sp.save_npz(npz, csr, compressed=False)
    npz_bytes = npz.getvalue()

    if only is None or only in "csr_1M_dumps":
        def save() -> bytes:
            b = io.BytesIO()
            sp.save_npz(b, csr, compressed=False)
            return b.getvalue()

        src = np.frombuffer(data, dtype=np.uint8)
        ours = timed(reps, lambda: ati.dumps(csr))
        base = timed(reps, save)
        memcpy = timed(reps, lambda: np.copy(src))
        emit("csr_1M_dumps", len(data), ours,
             "scipy.sparse.save_npz(BytesIO(), csr, compressed=False) + getvalue()", base,
             "dumps of a 1M-nnz float64 CSR (int32 indices)", memcpy)

    if only is None or only in "csr_1M_loads_to_scipy":
        ours = timed(reps, lambda: ati.loads(data).to_scipy())
        base = timed(reps, lambda: sp.load_npz(io.BytesIO(npz_bytes)))
        emit("csr_1M_loads_to_scipy", len(data), ours,
             "scipy.sparse.load_npz(BytesIO(npz))", base, "loads + to_scipy")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=21)
    ap.add_argument("--max-dense", type=int, default=1 << 30)
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    dense_rows(args.reps, args.max_dense, args.only)
    csr_rows(args.reps, args.only)


if __name__ == "__main__":
    main()
