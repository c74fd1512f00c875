"""Reading a tiled dataset from a local S3-compatible server against reading it from
local disk: read + SpMV with Dask's default scheduler (CSR chunks), best of ``--runs``
after a warm-up, and the CPU time the server spends serving one read; and the same read
through the object-store code path from a ``file://`` URL (no server). Not part of CI.

    python python/bench/s3_read.py --dir /tmp/spmv10m

``DIR`` is a dataset (``python/bench/dask_spmv.py`` writes one); it is copied into a
scratch bucket that ``s3s-fs`` (on PATH) serves on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import arrow_tensor_ipc.dask as atd


def best(fn: Callable[[], Any], runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    shutil.copytree(args.dir, work / "bucket" / "ds")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        ["s3s-fs", "--host", "127.0.0.1", "--port", str(port), "--access-key", "k",
         "--secret-key", "s", str(work)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        opts = {"aws_endpoint": f"http://127.0.0.1:{port}", "aws_allow_http": "true",
                "aws_access_key_id": "k", "aws_secret_access_key": "s", "aws_region": "us-east-1"}  # fmt: skip
        disk = atd.read_dataset(args.dir, format="csr")
        # The same files through the object-store code path with no server: file://.
        local = atd.read_dataset(Path(args.dir).resolve().as_uri(), format="csr")
        s3 = atd.read_dataset("s3://bucket/ds", format="csr", storage_options=opts)
        v = np.random.default_rng(1).random(disk.shape[1])
        t_disk = best(lambda: disk.dot(v).compute(), args.runs)
        t_file = best(lambda: local.dot(v).compute(), args.runs)
        server_before = cpu_seconds(server.pid)
        t_s3 = best(lambda: s3.dot(v).compute(), args.runs)
        # The server's CPU per read (warm-up included in the count).
        server_cpu = (cpu_seconds(server.pid) - server_before) / (args.runs + 1)
        size = sum(p.stat().st_size for p in Path(args.dir).rglob("*.parquet"))
        print(f"dataset {disk.shape}, {size / 2**20:.0f} MiB of Parquet in {disk.numblocks} tiles")
        print(f"read + SpMV from disk: {t_disk:.3f} s; from S3 on 127.0.0.1: {t_s3:.3f} s; "
              f"S3 at {t_disk / t_s3:.2f} of disk speed")  # fmt: skip
        print(f"through the store's code path from file:// (no server): {t_file:.3f} s, "
              f"{t_disk / t_file:.2f} of disk speed")  # fmt: skip
        print(f"the server spent {server_cpu:.2f} CPU s per read "
              f"({server_cpu / size * 2**20 * 1e3:.1f} ms per MiB served)")  # fmt: skip
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
