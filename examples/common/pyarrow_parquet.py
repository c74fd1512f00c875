"""pyarrow's side of the Parquet rows of `compare`: the same jobs with pyarrow.parquet.

    pyarrow_parquet.py TABLE_FILE PARQUET_FILE CODEC REPS

TABLE_FILE is an Arrow IPC file of the table (read into memory first, untimed);
PARQUET_FILE is the Parquet file our writer made of it (read into memory first, untimed).
Prints {"write_s": .., "read_s": ..}: the median seconds (after one warm-up) of
  - pq.write_table(table, BufferOutputStream, compression=CODEC);
  - pq.read_table(BufferReader(parquet bytes)) (pyarrow's defaults: threads on).
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
    table_file, parquet_file, codec, reps = sys.argv[1:5]
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

    print(
        json.dumps(
            {"write_s": median_time(reps, write), "read_s": median_time(reps, read)}
        )
    )


if __name__ == "__main__":
    main()
