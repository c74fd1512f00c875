"""scipy's side of `examples/compare_mtx.rs`: times scipy.io.mmread / mmwrite (scipy 1.17
uses fast_matrix_market, parallel C++) and pyarrow.csv on a FROSTT file.

    scipy_mtx.py MTX_FILE MTX_OUT TNS_FILE TNS_OUT REPS

Prints one JSON object: {"mmread_s", "mmwrite_s", "tns_read_s", "tns_write_s"}, each the
best of REPS runs timed inside Python (file to matrix, matrix to file). The FROSTT baseline
is pyarrow.csv.read_csv / write_csv with a space delimiter into/out of a table of int64
coordinate columns and a float64 value column (multi-threaded C++ parsing). TNS_FILE "-"
skips it.
"""

from __future__ import annotations

import json
import sys
import time

import scipy.io


def best_time(reps: int, f):
    best = float("inf")
    result = None
    for _ in range(reps):
        t0 = time.perf_counter()
        result = f()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main() -> None:
    mtx, mtx_out, tns, tns_out, reps = sys.argv[1:6]
    reps = int(reps)
    out = {}
    out["mmread_s"], m = best_time(reps, lambda: scipy.io.mmread(mtx))
    out["mmwrite_s"], _ = best_time(reps, lambda: scipy.io.mmwrite(mtx_out, m))
    out["nnz"] = int(m.nnz)
    if tns != "-":
        import pyarrow as pa
        import pyarrow.csv as csv

        with open(tns) as f:
            rank = len(f.readline().split()) - 1
        names = [f"i{d}" for d in range(rank)] + ["v"]
        types = {n: pa.int64() for n in names[:-1]}
        types["v"] = pa.float64()
        read_opts = csv.ReadOptions(column_names=names)
        parse_opts = csv.ParseOptions(delimiter=" ")
        conv = csv.ConvertOptions(column_types=types)
        out["tns_read_s"], table = best_time(
            reps, lambda: csv.read_csv(tns, read_opts, parse_opts, conv)
        )
        wopts = csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
        out["tns_write_s"], _ = best_time(reps, lambda: csv.write_csv(table, tns_out, wopts))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
