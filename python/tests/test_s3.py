"""Datasets and message files in object storage, against a real S3-compatible server:
``s3s-fs`` (installed by ``.ci/run``, pinned) serving a scratch directory on 127.0.0.1,
started by the tests on a free port and always stopped. pyarrow's own ``S3FileSystem``
against the same server judges what we write and writes what we read; the two-process
``LocalCluster`` reads and writes datasets there."""

from __future__ import annotations

import json
import logging
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import dask.array as da
import numpy as np
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pytest
import scipy.sparse as sp

import arrow_tensor_ipc as ati
import arrow_tensor_ipc.dask as atd

KEY, SECRET, BUCKET = "test-access-key", "test-secret-key", "bucket"
WAIT = 120


class S3:
    """A running ``s3s-fs`` and how to reach it."""

    def __init__(self, root: Path) -> None:
        exe = shutil.which("s3s-fs")
        assert exe, "s3s-fs is not installed: run .ci/run (it installs s3s-fs 0.14.1)"
        (root / BUCKET).mkdir(parents=True)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.root = root
        self.proc = subprocess.Popen(
            [exe, "--host", "127.0.0.1", "--port", str(self.port),
             "--access-key", KEY, "--secret-key", SECRET, str(root)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "s3s-fs did not listen within 30 s"
                time.sleep(0.05)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def options(self) -> dict[str, str]:
        return {
            "aws_endpoint": self.endpoint,
            "aws_allow_http": "true",
            "aws_access_key_id": KEY,
            "aws_secret_access_key": SECRET,
            "aws_region": "us-east-1",
            "timeout": "30s",
        }

    def pyarrow_fs(self) -> Any:
        return pafs.S3FileSystem(
            access_key=KEY, secret_key=SECRET, endpoint_override=self.endpoint,
            scheme="http", region="us-east-1",
        )  # fmt: skip

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3]:
    server = S3(tmp_path_factory.mktemp("s3"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
        dashboard_address=None, silence_logs=logging.ERROR, timeout=WAIT, death_timeout=WAIT,
    )  # fmt: skip
    try:
        c = Client(cluster, timeout=WAIT, set_as_default=False)
        try:
            c.wait_for_workers(2, timeout=WAIT)
            yield c
        finally:
            c.close(timeout=30)
    finally:
        cluster.close(timeout=30)


def matrix(seed: int = 1) -> sp.csr_array:
    return sp.random_array((500, 400), density=0.02, format="csr", random_state=seed)


def test_datasets_round_trip_through_s3_and_pyarrow_judges(s3: S3) -> None:
    m = matrix()
    url = f"s3://{BUCKET}/ds"
    atd.write_dataset(da.from_array(m.toarray(), chunks=(128, 200)), url, storage_options=s3.options)
    assert (s3.root / BUCKET / "ds" / "_tensor.json").is_file()
    for fmt in ("coo", "csr", "dense"):
        got = atd.read_dataset(url, format=fmt, storage_options=s3.options).compute()
        got = got.todense() if hasattr(got, "todense") else got
        assert np.array_equal(np.asarray(got), m.toarray()), fmt
    # pyarrow reads our objects over S3 and copies them, manifest included, elsewhere.
    fs = s3.pyarrow_fs()
    infos = [i for i in fs.get_file_info(pafs.FileSelector(f"{BUCKET}/ds", recursive=True))
             if i.type == pafs.FileType.File]  # fmt: skip
    parts = sorted(i.path for i in infos if i.path.endswith(".parquet"))
    table = pads.dataset(parts, filesystem=fs, format="parquet").to_table()
    assert table.num_rows == m.nnz and table.column_names == ["dim_0", "dim_1", "value"]
    assert abs(sum(table.column("value").to_pylist()) - m.sum()) < 1e-9
    for info in infos:
        rel = info.path[len(f"{BUCKET}/ds/"):]
        with fs.open_input_stream(info.path) as src, fs.open_output_stream(f"{BUCKET}/copy/{rel}") as dst:
            dst.write(src.read())
    back = atd.read_dataset(f"s3://{BUCKET}/copy", format="csr", storage_options=s3.options)
    assert abs(back.compute() - m).max() == 0
    # Each task's spec lists its own tile's files only.
    arr = atd.read_dataset(url, storage_options=s3.options)
    for key, task in dict(arr.__dask_graph__()).items():
        spec = task[1] if isinstance(task, tuple) else task.args[0]
        listed = [t["tile"] for t in json.loads(spec.manifest)["tiles"]]
        assert listed in ([], [list(key[1:])]), (key, listed)


def test_a_cluster_reads_and_writes_datasets_in_s3(s3: S3, client: Any) -> None:
    m = matrix(3)
    url = f"s3://{BUCKET}/cluster"
    atd.write_dataset(da.from_array(m.toarray(), chunks=(128, 400)), url, storage_options=s3.options)
    arr = atd.read_dataset(url, format="csr", storage_options=s3.options)
    v = np.random.default_rng(1).random(400)

    def compute() -> Any:
        return client.compute([arr.dot(v), arr.sum(axis=1), arr.sum(axis=0)], sync=True)

    y, rows, cols = compute()
    np.testing.assert_allclose(y, m @ v, rtol=1e-12)
    np.testing.assert_allclose(np.ravel(rows), m.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(np.ravel(cols), m.sum(axis=0), rtol=1e-12)

    def write_back() -> None:
        with client.as_current():
            atd.write_dataset(arr * 2, f"s3://{BUCKET}/doubled", storage_options=s3.options)

    write_back()
    back = atd.read_dataset(f"s3://{BUCKET}/doubled", format="csr", storage_options=s3.options)
    assert abs(back.compute() - 2 * m).max() == 0


def test_message_files_at_urls(s3: S3) -> None:
    url = f"s3://{BUCKET}/files/t.arrows"
    ati.write(url, [np.arange(6.0).reshape(2, 3), matrix(5)], format="csr",
              storage_options=s3.options)  # fmt: skip
    assert (s3.root / BUCKET / "files" / "t.arrows").is_file()
    msgs = ati.read(url, storage_options=s3.options)
    assert [m.format for m in msgs] == ["CSR", "CSR"]
    assert abs(msgs[1].to_scipy() - matrix(5)).max() == 0
    assert len(list(ati.iter_messages(url, storage_options=s3.options))) == 2


def test_store_errors_name_the_url(s3: S3) -> None:
    missing = f"s3://{BUCKET}/nothing/here.arrows"
    with pytest.raises(ati.ArrowTensorError) as e:
        ati.read(missing, storage_options=s3.options)
    assert e.value.kind == "object_store" and missing in str(e.value)
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(f"s3://{BUCKET}/nothing", storage_options=s3.options)
    assert e.value.kind == "dataset" and e.value.file == "_tensor.json"
    wrong = {**s3.options, "aws_secret_access_key": "wrong"}
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(f"s3://{BUCKET}/ds", storage_options=wrong)
    assert e.value.kind == "object_store"
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(f"s3://{BUCKET}/ds", storage_options={"no_such_option": "1"})
    assert e.value.kind == "object_store" and "no_such_option" in str(e.value)


# ---------------------------------------------------------------------------------------
# Faults, through a small fault-injecting HTTP proxy on 127.0.0.1 in front of the server.


class FaultProxy:
    """Forwards every request to the server, except those whose path contains a planted
    key: they get the planted fault, a given number of times (then pass)."""

    def __init__(self, upstream_port: int) -> None:
        import http.client
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.faults: dict[str, list] = {}
        self.seen: list[tuple[str, str]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def relay(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                proxy.seen.append((self.command, self.path))
                fault = proxy.take(self.path)
                if fault in ("500", "403"):
                    self.send_response(int(fault))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if fault == "reset":
                    import struct

                    self.connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )
                    self.close_connection = True
                    self.connection.close()
                    return
                if fault == "slow":
                    time.sleep(4)
                conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=30)
                headers = {k: v for k, v in self.headers.items()}
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                head = self.command == "HEAD"
                for k, v in resp.getheaders():
                    drop = ("transfer-encoding", "connection") + (() if head else ("content-length",))
                    if k.lower() not in drop:
                        self.send_header(k, v)
                if not head:
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if fault == "truncate":
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.wfile.write(data)
                conn.close()

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = relay

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def plant(self, key: str, fault: str, times: int) -> None:
        self.faults[key] = [fault, times]

    def take(self, path: str) -> Any:
        from urllib.parse import unquote

        path = unquote(path)
        for key, plan in self.faults.items():
            if key in path and plan[1] > 0:
                plan[1] -= 1
                return plan[0]
        return None

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def proxy(s3: S3) -> Iterator[FaultProxy]:
    p = FaultProxy(s3.port)
    try:
        yield p
    finally:
        p.stop()


def through(proxy: FaultProxy, s3: S3, timeout: str = "30s") -> dict[str, str]:
    return {**s3.options, "aws_endpoint": f"http://127.0.0.1:{proxy.port}", "timeout": timeout}


def test_faults_are_retried_or_typed_errors_naming_the_url(s3: S3, proxy: FaultProxy) -> None:
    m = matrix(7)
    atd.write_dataset(da.from_array(m.toarray(), chunks=(250, 400)), f"s3://{BUCKET}/faults",
                      storage_options=s3.options)  # fmt: skip
    url = f"s3://{BUCKET}/faults"
    part = "tile_0=1/tile_1=0/part-00000.parquet"
    read = lambda **kw: atd.read_dataset(url, format="csr", storage_options=through(proxy, s3, **kw))  # noqa: E731
    # A 500, a reset connection and a response slower than the timeout, once each: retried.
    for fault, kw in (("500", {}), ("reset", {}), ("slow", {"timeout": "2s"})):
        proxy.plant(part, fault, 1)
        got = read(**kw).compute()
        assert abs(got - m).max() == 0, fault
        assert proxy.faults[part][1] == 0, f"{fault} was not met"
    # A 403 is not retried: a typed error naming the file and the URL.
    proxy.plant(part, "403", 1)
    with pytest.raises(ati.ArrowTensorError) as e:
        read().compute()
    assert e.value.kind == "dataset_file" and e.value.file == part
    assert f"{url}/{part}" in str(e.value)
    # A body cut short: an error (retried first), never a hang or a short tile.
    proxy.plant(part, "truncate", 20)
    with pytest.raises(ati.ArrowTensorError) as e:
        read(timeout="5s").compute()
    assert e.value.file == part
    proxy.faults.clear()
    # A missing object (deleted behind the reader's back).
    arr = read()
    (s3.root / BUCKET / "faults" / part).unlink()
    with pytest.raises(ati.ArrowTensorError) as e:
        arr.compute()
    assert e.value.file == part and "missing" in str(e.value)


def test_a_failed_write_leaves_no_manifest(s3: S3, proxy: FaultProxy) -> None:
    m = matrix(9)
    url = f"s3://{BUCKET}/unfinished"
    proxy.plant("tile_0=1/", "403", 1000)
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.write_dataset(da.from_array(m.toarray(), chunks=(250, 400)), url,
                          storage_options=through(proxy, s3))  # fmt: skip
    assert e.value.kind == "object_store" and "tile_0=1" in str(e.value)
    assert not (s3.root / BUCKET / "unfinished" / "_tensor.json").exists()
    with pytest.raises(ati.ArrowTensorError) as e:
        atd.read_dataset(url, storage_options=s3.options)
    assert e.value.kind == "dataset" and "unfinished write" in str(e.value)
