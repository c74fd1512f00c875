#!/usr/bin/env bash
# Runs every side-by-side comparison and writes docs/performance.md (dated, with the machine
# and the commit): the codec and the COO tables against Arrow C++ 26, the layout
# conversions, the file formats against scipy, numpy and pyarrow, and the Python package
# against pyarrow and scipy, the walk over a sparse tensor's entries, and the build itself
# (scripts/build-report.sh: cold builds of a fresh clone). Takes about half an hour and some
# 4 GiB of memory.
#
# The large runs (scripts/bench-tile.sh, python/bench/dask_spmv.py) keep their figures in
# docs/performance-scale.md, which the report appends.
#
#   scripts/perf-report.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/python-package.sh # the pinned venv (pyarrow, numpy, scipy) and the Python package
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo run --quiet --release --example compare --features mmap,record-batch,parquet -- --nnz 1000000,10000000 >"$tmp/compare.jsonl"
cargo run --quiet --release --example compare_convert >"$tmp/convert.jsonl"
cargo run --quiet --release --example compare_mtx --features matrix-market,frostt,mmap -- --reps 3 >"$tmp/text.jsonl"
cargo run --quiet --release --example compare_npz --features npy >"$tmp/npz.jsonl"
.venv/bin/python python/bench/compare.py >"$tmp/python.jsonl"
cargo run --quiet --release --example compare_iter >"$tmp/iter.jsonl"
scripts/build-report.sh >"$tmp/build.jsonl"
python3 scripts/perf_report.py "$tmp/compare.jsonl" "$tmp/convert.jsonl" "$tmp/text.jsonl" \
  "$tmp/npz.jsonl" "$tmp/python.jsonl" "$tmp/iter.jsonl" "$tmp/build.jsonl" docs/performance.md
echo "scripts/perf-report.sh: wrote docs/performance.md"
