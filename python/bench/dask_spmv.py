"""SpMV on a tiled dataset with Dask (default scheduler, and a two-worker LocalCluster on
127.0.0.1) against scipy on the whole matrix in one process. Not part of CI.

    python python/bench/dask_spmv.py --nnz 10000000 --dir /tmp/spmv10m
    python python/bench/dask_spmv.py --nnz 100000000 --dir /tmp/spmv100m --formats csr,coo

The matrix is n x n with 100 stored values per row (n = nnz / 100), cut into
``--tiles`` row tiles; it is generated tile by tile by Dask and written with
``write_dataset`` (so no process ever holds all of it) when ``DIR`` has no manifest.
For each chunk format it prints (best of ``--runs`` after one warm-up run, which also pays
pydata sparse's numba compilation): read + SpMV from the files, SpMV on the persisted
array, and where one serial pass over the tiles in this process goes (the Rust read of
each tile into the chunk's arrays, and the products).
"""

from __future__ import annotations

import argparse
import itertools
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
from arrow_tensor_ipc import _native


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
    ap.add_argument("--formats", default="csr,coo", help="chunk formats, comma-separated")
    ap.add_argument("--no-cluster", action="store_true", help="skip the LocalCluster rows")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.dir, "_tensor.json")):
        generate(args.dir, args.nnz, args.tiles)
    ds = _native.Dataset(os.path.abspath(args.dir))
    shape = tuple(ds.shape)
    n_files = sum(
        os.path.getsize(os.path.join(root, f))
        for root, _, files in os.walk(args.dir)
        for f in files
        if f.endswith(".parquet")
    )
    print(f"matrix {shape}, nnz {ds.nnz}, tiles {ds.grid}, files {n_files / 2**20:.0f} MiB")
    v = np.random.default_rng(1).random(shape[1])

    # scipy on the whole matrix in one process.
    t = time.perf_counter()
    table = pq.read_table(args.dir, columns=["dim_0", "dim_1", "value"])
    m = sp.csr_array(
        (table.column(2).to_numpy(), (table.column(0).to_numpy(), table.column(1).to_numpy())),
        shape=shape,
    )
    del table
    load = time.perf_counter() - t
    t_scipy, y_ref = best(lambda: m @ v, args.runs)
    print(f"scipy: load whole matrix {load:.2f} s, SpMV {t_scipy * 1e3:.1f} ms")
    del m

    for fmt in args.formats.split(","):
        arr = atd.read_dataset(args.dir, format=fmt)
        t_read, y = best(lambda: arr.dot(v).compute(), args.runs)
        assert np.allclose(y, y_ref)
        persisted = arr.persist()
        t_spmv, y = best(lambda: persisted.dot(v).compute(), args.runs)
        assert np.allclose(y, y_ref)
        del persisted
        print(f"[{fmt}] dask default scheduler: read + SpMV {t_read:.2f} s; SpMV on the "
              f"persisted array {t_spmv * 1e3:.0f} ms = {t_spmv / t_scipy:.2f}x scipy's SpMV")  # fmt: skip

        # Where one serial pass goes, tile by tile in this process.
        t_tiles = t_mul = 0.0
        ts = ds.tile_shape
        for tile in itertools.product(*(range(g) for g in ds.grid)):
            ext = tuple(min(t, s - i * t) for i, t, s in zip(tile, ts, shape))
            spec = atd._TileSpec(os.path.abspath(args.dir), ds.tile_manifest(list(tile)),
                                 tuple(tile), ext, fmt)  # fmt: skip
            t0 = time.perf_counter()
            chunk = atd._read_chunk(spec)
            t1 = time.perf_counter()
            lo = tile[1] * ts[1]
            chunk.dot(v[lo : lo + ext[1]])
            t_tiles += t1 - t0
            t_mul += time.perf_counter() - t1
        print(f"[{fmt}] one serial pass: read the tiles into chunks {t_tiles:.2f} s, "
              f"products {t_mul:.2f} s")  # fmt: skip

        if args.no_cluster:
            continue
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                          dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:  # fmt: skip
            client.wait_for_workers(2, timeout=120)
            t_dist, y = best(lambda: client.compute(arr.dot(v), sync=True), args.runs)
            assert np.allclose(y, y_ref)
            print(f"[{fmt}] dask LocalCluster (2 workers x 1 thread): read + SpMV {t_dist:.2f} s")


if __name__ == "__main__":
    main()
