"""The engines' side of tests/parquet.rs: pyarrow, DuckDB and polars read our Parquet files.

`parquet_engines.py read DIR`: for every `NAME.parquet` in DIR with its table beside it as an
Arrow IPC file `NAME.arrow` (the truth, read with pyarrow's IPC reader), reads the Parquet
file with `pyarrow.parquet.read_table`, DuckDB's `read_parquet` and `polars.read_parquet`,
and compares every column's values (lists flattened) with the truth's. Prints one JSON
object: the engines' versions, and per file and engine `"ok"` or what differs.
"""

import json
import pathlib
import sys

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq


def flat(column) -> np.ndarray:
    """A column's values, lists flattened, as float64."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if isinstance(column.type, pa.BaseExtensionType):
        column = column.storage
    while pa.types.is_list(column.type) or pa.types.is_large_list(column.type) or (
        pa.types.is_fixed_size_list(column.type)
    ):
        column = column.flatten()
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64)


def compare(truth: pa.Table, got: pa.Table) -> str:
    if got.num_rows != truth.num_rows:
        return f"{got.num_rows} rows, not {truth.num_rows}"
    for name in truth.column_names:
        if name not in got.column_names:
            return f"no column {name}"
        a, b = flat(truth[name]), flat(got[name])
        if a.shape != b.shape or not np.array_equal(a, b):
            return f"column {name} differs"
    return "ok"


def main() -> None:
    directory = pathlib.Path(sys.argv[2])
    con = duckdb.connect()
    files = {}
    for path in sorted(directory.glob("*.parquet")):
        with pa.memory_map(str(path.with_suffix(".arrow"))) as source:
            truth = pa.ipc.open_file(source).read_all()
        readers = {
            "pyarrow": lambda: pq.read_table(path),
            "duckdb": lambda: con.read_parquet(str(path)).to_arrow_table(),
            "polars": lambda: pl.read_parquet(path).to_arrow(),
        }
        result = {}
        for engine, read in readers.items():
            try:
                result[engine] = compare(truth, read())
            except Exception as e:  # noqa: BLE001 (the failure is the finding)
                result[engine] = f"{type(e).__name__}: {e}"
        files[path.stem] = result
    versions = {"pyarrow": pa.__version__, "duckdb": duckdb.__version__, "polars": pl.__version__}
    print(json.dumps({"versions": versions, "files": files}))


if __name__ == "__main__":
    main()
