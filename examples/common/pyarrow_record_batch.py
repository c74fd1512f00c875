"""pyarrow's side of the record-batch rows of `compare`: the same jobs with pyarrow's API.

    pyarrow_record_batch.py MESSAGE_FILE STREAM_FILE REPS

Prints {"to_stream_s": .., "from_stream_s": ..}: the median seconds (after one warm-up) of
  - a tensor message in memory -> read_tensor -> FixedShapeTensorArray.from_numpy_ndarray
    -> ipc.new_stream into a BufferOutputStream;
  - an IPC stream of one fixed-shape batch in memory -> open_stream -> to_numpy_ndarray
    -> write_tensor into a BufferOutputStream.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import pyarrow as pa


def median_time(reps: int, f) -> float:
    f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    message_file, stream_file, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(message_file, "rb") as f:
        message = pa.py_buffer(f.read())
    with open(stream_file, "rb") as f:
        stream = pa.py_buffer(f.read())

    def to_stream() -> pa.Buffer:
        tensor = pa.ipc.read_tensor(pa.BufferReader(message))
        array = pa.FixedShapeTensorArray.from_numpy_ndarray(tensor.to_numpy())
        batch = pa.record_batch([array], names=["tensor"])
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema) as w:
            w.write_batch(batch)
        return sink.getvalue()

    def from_stream() -> pa.Buffer:
        reader = pa.ipc.open_stream(stream)
        batch = reader.read_next_batch()
        ndarray = batch.column(0).to_numpy_ndarray()
        sink = pa.BufferOutputStream()
        pa.ipc.write_tensor(pa.Tensor.from_numpy(ndarray), sink)
        return sink.getvalue()

    print(
        json.dumps(
            {
                "to_stream_s": median_time(reps, to_stream),
                "from_stream_s": median_time(reps, from_stream),
            }
        )
    )


if __name__ == "__main__":
    main()
