"""pyarrow's side of the Parquet rows of `compare`: the same jobs with pyarrow.parquet.

    pyarrow_parquet.py TABLE_FILE PARQUET_FILE CODEC REPS PEER_FILE

TABLE_FILE is an Arrow IPC file of the table (read into memory first, untimed);
PARQUET_FILE is the Parquet file our writer made of it (read into memory first, untimed).
pyarrow's own file of the table (pq.write_table with CODEC, its defaults otherwise) is
written to PEER_FILE, for our reader. Prints {"write_s": .., "read_s": .., "read_own_s":
.., "peer_bytes": ..}: the median seconds (after one warm-up) of
  - pq.write_table(table, BufferOutputStream, compression=CODEC);
  - pq.read_table(BufferReader(our file)) (pyarrow's defaults: threads on);
  - pq.read_table(BufferReader(its own file));
and the size of its own file.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq


def median_time(reps: int, f) -> float:
    f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    table_file, parquet_file, codec, reps, peer_file = sys.argv[1:6]
    reps = int(reps)
    with pa.memory_map(table_file) as source:
        table = pa.ipc.open_file(source).read_all()
    table = pa.table(
        [c.combine_chunks() for c in table.columns], schema=table.schema
    )
    with open(parquet_file, "rb") as f:
        data = pa.py_buffer(f.read())

    def write() -> pa.Buffer:
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression=codec)
        return sink.getvalue()

    def read() -> pa.Table:
        return pq.read_table(pa.BufferReader(data))

    own = write()
    with open(peer_file, "wb") as f:
        f.write(own.to_pybytes())
    print(
        json.dumps(
            {
                "write_s": median_time(reps, write),
                "read_s": median_time(reps, read),
                "read_own_s": median_time(
                    reps, lambda: pq.read_table(pa.BufferReader(own))
                ),
                "peer_bytes": own.size,
            }
        )
    )


if __name__ == "__main__":
    main()
