"""Helpers of scripts/bench-tile.sh: tile a FROSTT or Matrix Market file with DuckDB or
pyarrow, and measure a command's time and peak anonymous memory.

    python bench_tile.py duckdb FILE DIR T0,T1,..  DuckDB COPY ... PARTITION_BY, 2 threads
    python bench_tile.py pyarrow FILE DIR T0,T1,.. pyarrow.csv streaming + write_dataset
    python bench_tile.py measure CMD ARGS...       wall time and peak RssAnon (sampled every
                                                   50 ms from /proc/PID/status)
"""

import subprocess
import sys
import time


def layout(path):
    """(skip rows, rank) of a FROSTT or Matrix Market file."""
    with open(path) as f:
        first = f.readline()
        if first.startswith("%%MatrixMarket"):
            skip = 1
            line = f.readline()
            while line.startswith("%"):
                skip += 1
                line = f.readline()
            return skip + 1, 2
        return 0, len(first.split()) - 1


def duckdb_tile(path, out, tiles):
    import duckdb

    skip, rank = layout(path)
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute("SET preserve_insertion_order = false")
    names = [f"dim_{d}" for d in range(rank)]
    columns = ", ".join(f"'{n}': 'BIGINT'" for n in names) + ", 'value': 'DOUBLE'"
    select = ", ".join(f"{n} - 1 AS {n}" for n in names)
    parts = ", ".join(f"({n} - 1) // {t} AS tile_{d}" for d, (n, t) in enumerate(zip(names, tiles)))
    by = ", ".join(f"tile_{d}" for d in range(rank))
    con.execute(
        f"COPY (SELECT {select}, value, {parts} FROM read_csv('{path}', delim=' ', header=false, "
        f"skip={skip}, columns={{{columns}}})) TO '{out}' (FORMAT parquet, PARTITION_BY ({by}))"
    )


def pyarrow_tile(path, out, tiles):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as csv
    import pyarrow.dataset as ds

    pa.set_cpu_count(2)
    pa.set_io_thread_count(2)
    skip, rank = layout(path)
    names = [f"dim_{d}" for d in range(rank)]
    types = {n: pa.int64() for n in names}
    types["value"] = pa.float64()
    reader = csv.open_csv(
        path,
        read_options=csv.ReadOptions(column_names=names + ["value"], skip_rows=skip, block_size=16 << 20),
        parse_options=csv.ParseOptions(delimiter=" "),
        convert_options=csv.ConvertOptions(column_types=types),
    )
    fields = [pa.field(n, pa.int64()) for n in names] + [pa.field("value", pa.float64())]
    fields += [pa.field(f"tile_{d}", pa.int64()) for d in range(rank)]
    schema = pa.schema(fields)

    def batches():
        for b in reader:
            cols = [pc.subtract(b.column(d), 1) for d in range(rank)]
            tile_cols = [pc.divide(c, t) for c, t in zip(cols, tiles)]
            yield pa.RecordBatch.from_arrays(cols + [b.column(rank)] + tile_cols, schema=schema)

    ds.write_dataset(
        batches(),
        out,
        schema=schema,
        format="parquet",
        partitioning=[f"tile_{d}" for d in range(rank)],
        partitioning_flavor="hive",
        max_open_files=1024,
    )


def measure(cmd):
    start = time.monotonic()
    child = subprocess.Popen(cmd)
    peak = 0
    status = f"/proc/{child.pid}/status"
    while child.poll() is None:
        try:
            with open(status) as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.05)
    elapsed = time.monotonic() - start
    print(f"time {elapsed:.2f} s  peak RssAnon {peak / 1024:.0f} MiB  exit {child.returncode}", flush=True)
    return child.returncode


def main():
    what = sys.argv[1]
    if what == "duckdb":
        duckdb_tile(sys.argv[2], sys.argv[3], [int(t) for t in sys.argv[4].split(",")])
    elif what == "pyarrow":
        pyarrow_tile(sys.argv[2], sys.argv[3], [int(t) for t in sys.argv[4].split(",")])
    elif what == "measure":
        sys.exit(measure(sys.argv[2:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
