"""SpMV on a tiled dataset with Dask (default scheduler, and a two-worker LocalCluster on
127.0.0.1) against scipy on the whole matrix in one process. Not part of CI.

    python python/bench/dask_spmv.py --nnz 10000000 --dir /tmp/spmv10m
    python python/bench/dask_spmv.py --nnz 100000000 --dir /tmp/spmv100m

The matrix is n x n with 100 stored values per row (n = nnz / 100), cut into
``--tiles`` row tiles; it is generated tile by tile by Dask and written with
``write_dataset`` (so no process ever holds all of it) when ``DIR`` has no manifest.
Prints the time of each side (best of ``--runs`` after one warm-up run, which also pays
pydata sparse's numba compilation) and, for the Dask side, where the time of one pass over
the tiles in this process goes: reading the Parquet files, checking and building the
``sparse.COO`` chunks, and the products.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from typing import Any, Callable

import dask
import dask.array as da
import numpy as np
import pyarrow.parquet as pq
import scipy.sparse as sp
import sparse

import arrow_tensor_ipc.dask as atd
from arrow_tensor_ipc._dataset import TileSpec, read_manifest, read_tile_coo


def gen_block(i: int, rows: int, n: int, per_row: int, seed: int) -> sparse.COO:
    """Rows of ``per_row`` values, one at a random column in each of ``per_row`` equal
    bands of columns (so sorted and unique by construction)."""
    rng = np.random.default_rng(seed + i)
    band = n // per_row
    cols = rng.integers(0, band, (rows, per_row)) + np.arange(per_row) * band
    coords = np.stack([np.repeat(np.arange(rows), per_row), cols.reshape(-1)])
    return sparse.COO(coords, rng.random(rows * per_row), shape=(rows, n), sorted=True,
                      has_duplicates=False)  # fmt: skip


def generate(path: str, nnz: int, tiles: int) -> None:
    n = max(nnz // 100, 1)
    rows = -(-n // tiles)
    blocks = []
    for i in range(tiles):
        r = min(rows, n - i * rows)
        d = dask.delayed(gen_block)(i, r, n, 100, 42)
        blocks.append(da.from_delayed(d, (r, n), dtype=np.float64,
                                      meta=sparse.COO.from_numpy(np.empty((0, 0)))))  # fmt: skip
    t = time.perf_counter()
    atd.write_dataset(da.concatenate(blocks, axis=0), path)
    print(f"generate+write_dataset: {time.perf_counter() - t:.2f} s")


def best(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    fn()
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nnz", type=int, default=10_000_000)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--tiles", type=int, default=8)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.dir, "_tensor.json")):
        generate(args.dir, args.nnz, args.tiles)
    man = read_manifest(args.dir)
    n_rows, n_cols = man.shape
    print(f"matrix {man.shape}, nnz {man.nnz}, tiles {man.grid}, files "
          f"{sum(os.path.getsize(os.path.join(args.dir, p)) for f in man.tiles.values() for p, _ in f) / 2**20:.0f} MiB")  # fmt: skip
    v = np.random.default_rng(1).random(n_cols)

    # scipy on the whole matrix in one process.
    t = time.perf_counter()
    table = pq.read_table(args.dir, columns=["dim_0", "dim_1", "value"])
    m = sp.csr_array(
        (table.column(2).to_numpy(), (table.column(0).to_numpy(), table.column(1).to_numpy())),
        shape=man.shape,
    )
    del table
    load = time.perf_counter() - t
    t_scipy, y_ref = best(lambda: m @ v, args.runs)
    print(f"scipy: load whole matrix {load:.2f} s, SpMV {t_scipy * 1e3:.1f} ms")
    del m

    arr = atd.read_dataset(args.dir)
    t_local, y = best(lambda: arr.dot(v).compute(), args.runs)
    assert np.allclose(y, y_ref)
    print(f"dask default scheduler (threads): {t_local:.2f} s  ratio to scipy SpMV "
          f"{t_local / t_scipy:.1f}x, to scipy load+SpMV {t_local / (load + t_scipy):.2f}x")  # fmt: skip

    # Where one pass goes, tile by tile in this process.
    t_read = t_build = t_mul = 0.0
    for tile in man.tiles:
        spec = TileSpec.of(man, tile)
        t0 = time.perf_counter()
        for rel, _ in spec.files:
            pq.ParquetFile(os.path.join(args.dir, rel), memory_map=True).read()
        t1 = time.perf_counter()
        coords, values = read_tile_coo(spec)
        ext = tuple(hi - lo for lo, hi in spec.bounds())
        chunk = sparse.COO(coords, values, shape=ext, sorted=True, has_duplicates=False)
        t2 = time.perf_counter()
        lo = spec.bounds()[1][0]
        part = v[lo : lo + ext[1]]
        if not t_mul:
            chunk.dot(part)  # compiles pydata sparse's kernel for this signature
            t2 = time.perf_counter()
        chunk.dot(part)
        t3 = time.perf_counter()
        t_read += t1 - t0
        t_build += (t2 - t1) - (t1 - t0)
        t_mul += t3 - t2
    print(f"one serial pass: read Parquet {t_read:.2f} s, check + build sparse.COO "
          f"{t_build:.2f} s, products {t_mul:.2f} s")  # fmt: skip

    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:  # fmt: skip
        client.wait_for_workers(2, timeout=120)
        t_dist, y = best(lambda: client.compute(arr.dot(v), sync=True), args.runs)
        assert np.allclose(y, y_ref)
        print(f"dask LocalCluster (2 workers x 1 thread): {t_dist:.2f} s  ratio to scipy SpMV "
              f"{t_dist / t_scipy:.1f}x, to scipy load+SpMV {t_dist / (load + t_scipy):.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
