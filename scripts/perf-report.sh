#!/usr/bin/env bash
# Runs both side-by-side comparisons against Arrow C++ 26 and writes docs/performance.md
# (dated, with the machine and the commit). Takes a few minutes.
#
#   scripts/perf-report.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/venv.sh # the pinned pyarrow (Arrow C++) the comparisons run against
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo run --quiet --release --example compare --features mmap,record-batch -- --nnz 1000000,10000000 >"$tmp/compare.jsonl"
cargo run --quiet --release --example compare_convert >"$tmp/convert.jsonl"
python3 scripts/perf_report.py "$tmp/compare.jsonl" "$tmp/convert.jsonl" docs/performance.md
echo "scripts/perf-report.sh: wrote docs/performance.md"
