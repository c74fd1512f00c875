#!/usr/bin/env bash
# Tiling benchmark (not part of CI): a FROSTT file and a Matrix Market file of N entries
# (default 10M; `scripts/bench-tile.sh 100000000` for the 100M-entry figures, ~3 GB each)
# cut into tiles by `arrow-tensor tile`, by DuckDB (COPY ... PARTITION_BY) and by pyarrow
# (pyarrow.csv streaming reader + pyarrow.dataset.write_dataset), 2 threads each. Each run
# is timed and its peak RssAnon sampled every 50 ms from /proc/PID/status (mapped file
# pages do not count). Files go to $BENCH_DIR (default /tmp/bench-tile).
#
# Needs: rustc (the generator, scripts/gen_tile_input.rs, is std only), and a Python with
# duckdb and pyarrow ($PYTHON, default .venv/bin/python).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000000}
DIR=${BENCH_DIR:-/tmp/bench-tile}
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
HELPER=scripts/bench_tile.py
mkdir -p "$DIR"
cargo build --release --features cli --bin arrow-tensor
BIN=target/release/arrow-tensor

TNS=$DIR/frostt-$N.tns
MTX=$DIR/matrix-$N.mtx
GEN=$DIR/gen_tile_input
[ -x "$GEN" ] || rustc -O -o "$GEN" scripts/gen_tile_input.rs
[ -s "$TNS" ] || { echo "generating $TNS"; "$GEN" tns "$TNS" "$N"; }
[ -s "$MTX" ] || { echo "generating $MTX"; "$GEN" mtx "$MTX" "$N"; }
ls -l "$TNS" "$MTX"
uptime

run() { # name input tiles extra-args...
  local name=$1 input=$2 tiles=$3; shift 3
  for side in arrow-tensor duckdb pyarrow; do
    local out=$DIR/out-$name-$side
    rm -rf "$out"
    # Drop nothing from the page cache: every side reads a warm file.
    cat "$input" > /dev/null
    printf '%-8s %-12s ' "$name" "$side"
    case $side in
      arrow-tensor) "$PYTHON" $HELPER measure "$BIN" tile "$input" "$out" --tile-shape "$tiles" --threads 2 --memory 512M "$@" ;;
      duckdb) "$PYTHON" $HELPER measure "$PYTHON" $HELPER duckdb "$input" "$out" "$tiles" ;;
      pyarrow) "$PYTHON" $HELPER measure "$PYTHON" $HELPER pyarrow "$input" "$out" "$tiles" ;;
    esac
    printf '%-8s %-12s %s files, %s\n' "" "" "$(find "$out" -name '*.parquet' | wc -l)" "$(du -sh "$out" | cut -f1)"
  done
}

run frostt "$TNS" 500,500,500 --shape 2000,2000,2000
run mtx "$MTX" 250000,250000
uptime
