"""How Python reaches Arrow data for to_coo_table / from_coo_table: the numpy + pyarrow
route the package uses, against the cost the IPC-bytes route cannot avoid (one encode of
the whole table into bytes and one decode, measured with pyarrow's IPC writer and reader,
which are as fast as any: the bytes of the table are copied once, then wrapped).

    python python/bench/coo_table.py [NNZ ...]     # default: 1000000 10000000

Prints, per size and direction, the best of 5 runs in milliseconds.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

import numpy as np
import pyarrow as pa

import arrow_tensor_ipc as ati


def best(fn: Callable[[], Any], runs: int = 5) -> float:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out) * 1e3


def ipc_round(table: pa.Table) -> pa.Table:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return pa.ipc.open_stream(sink.getvalue()).read_all()


def ipc_bytes(table: pa.Table) -> Any:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue()


def main(sizes: list[int]) -> None:
    rng = np.random.default_rng(0)
    print("nnz        direction        numpy+pyarrow   IPC encode+decode   (IPC route >= split/interleave + this)")
    for nnz in sizes:
        n = int(np.sqrt(nnz * 100))
        key = np.unique(rng.integers(0, n * n, int(nnz * 1.02)))[:nnz]
        coords = np.stack([key // n, key % n], axis=1).astype(np.int64)
        values = rng.random(len(key))
        msg = _coo(coords, values, (n, n))
        table = ati.to_coo_table(msg)
        t_to = best(lambda: ati.to_coo_table(msg))
        t_from = best(lambda: ati.from_coo_table(table))
        t_ipc = best(lambda: ipc_round(table))
        data = ipc_bytes(table)
        t_dec = best(lambda: pa.ipc.open_stream(data).read_all())
        print(f"{nnz:<10} to_coo_table     {t_to:10.1f} ms   {t_ipc:10.1f} ms")
        print(f"{nnz:<10} from_coo_table   {t_from:10.1f} ms   {t_ipc:10.1f} ms  (decode alone {t_dec:.1f} ms)")


def _coo(coords: np.ndarray, values: np.ndarray, shape: tuple) -> Any:
    from arrow_tensor_ipc import _native

    return ati.loads(
        _native.coo("float64", list(shape), values, coords, "int64", None, True).encode()
    )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000_000, 10_000_000])
