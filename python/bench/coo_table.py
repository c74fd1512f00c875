"""How Python reaches Arrow data for to_coo_table / from_coo_table: the buffer route the
package uses (columns made in Rust wrapped by pyarrow, pyarrow's chunks read by Rust through
the buffer protocol), against the cost the IPC-bytes route cannot avoid (one encode of
the whole table into bytes and one decode, measured with pyarrow's IPC writer and reader,
which are as fast as any: the bytes of the table are copied once, then wrapped).

    python python/bench/coo_table.py [NNZ ...]     # default: 1000000 10000000

Prints, per size and direction, the median of 5 runs in milliseconds, and the memcpy share:
the time of a plain copy of the table's bytes (every column's buffer copied into new
memory, as numpy copies it) divided by ours, so 1 is the speed of one copy of the table.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

import numpy as np
import pyarrow as pa

import arrow_tensor_ipc as ati


def median(fn: Callable[[], Any], runs: int = 5) -> float:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return float(np.median(out)) * 1e3


def copy_table(table: pa.Table) -> list:
    """A plain copy of the table's bytes: every buffer of every chunk into new memory."""
    return [
        np.frombuffer(b, dtype=np.uint8).copy()
        for col in table.columns
        for chunk in col.chunks
        for b in chunk.buffers()
        if b is not None
    ]


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
    print(
        "nnz        direction        ours            memcpy share   IPC encode+decode"
        "   (IPC route >= split/interleave + this)"
    )
    for nnz in sizes:
        n = int(np.sqrt(nnz * 100))
        key = np.unique(rng.integers(0, n * n, int(nnz * 1.02)))[:nnz]
        coords = np.stack([key // n, key % n], axis=1).astype(np.int64)
        values = rng.random(len(key))
        msg = _coo(coords, values, (n, n))
        table = ati.to_coo_table(msg)
        t_copy = median(lambda: copy_table(table))
        t_to = median(lambda: ati.to_coo_table(msg))
        t_from = median(lambda: ati.from_coo_table(table))
        t_ipc = median(lambda: ipc_round(table))
        data = ipc_bytes(table)
        t_dec = median(lambda: pa.ipc.open_stream(data).read_all())
        mb = table.nbytes / 1e6
        print(f"{nnz:<10} to_coo_table     {t_to:10.1f} ms   {t_copy / t_to:10.2f}   {t_ipc:10.1f} ms")
        print(
            f"{nnz:<10} from_coo_table   {t_from:10.1f} ms   {t_copy / t_from:10.2f}   {t_ipc:10.1f} ms"
            f"  (decode alone {t_dec:.1f} ms; memcpy of the table's {mb:.0f} MB {t_copy:.1f} ms)"
        )

def _coo(coords: np.ndarray, values: np.ndarray, shape: tuple) -> Any:
    from arrow_tensor_ipc import _native

    return ati.loads(
        _native.coo("float64", list(shape), values, coords, "int64", None, True).encode()
    )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000_000, 10_000_000])
