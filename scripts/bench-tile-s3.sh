#!/usr/bin/env bash
# Tiling into object storage (not part of CI): `arrow-tensor tile` of a Matrix Market file
# of N entries (default 10M; `scripts/bench-tile-s3.sh 100000000` for the 100M figure,
# 2.4 GB) to local disk and to an S3 bucket that `s3s-fs` (on PATH; `.ci/run` installs it)
# serves on 127.0.0.1, same options (2 threads, --memory 512M). Each run is timed and its
# peak RssAnon sampled every 50 ms (scripts/bench_tile.py measure); the server's own memory
# is not counted. Files go to $BENCH_DIR (default /tmp/bench-tile; the input is shared with
# scripts/bench-tile.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000000}
DIR=${BENCH_DIR:-/tmp/bench-tile}
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
mkdir -p "$DIR"
cargo build --release --features cli,object-store --bin arrow-tensor
BIN=target/release/arrow-tensor

MTX=$DIR/matrix-$N.mtx
GEN=$DIR/gen_tile_input
[ -x "$GEN" ] || rustc -O -o "$GEN" scripts/gen_tile_input.rs
[ -s "$MTX" ] || { echo "generating $MTX"; "$GEN" mtx "$MTX" "$N"; }
ls -l "$MTX"

# The server, on a free port, over a scratch directory; stopped on exit.
SRV=$DIR/s3
rm -rf "$SRV" && mkdir -p "$SRV/bucket"
PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
s3s-fs --host 127.0.0.1 --port "$PORT" --access-key k --secret-key s "$SRV" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done
export AWS_ENDPOINT=http://127.0.0.1:$PORT AWS_ALLOW_HTTP=true AWS_ACCESS_KEY_ID=k \
  AWS_SECRET_ACCESS_KEY=s AWS_REGION=us-east-1
uptime

ARGS=(--tile-shape 250000,250000 --threads 2 --memory 512M)
for run in 1 2; do
  rm -rf "$DIR/out-mtx-disk" "$SRV/bucket/ds"
  cat "$MTX" >/dev/null
  printf 'run %s  disk  ' "$run"
  "$PYTHON" scripts/bench_tile.py measure "$BIN" tile "$MTX" "$DIR/out-mtx-disk" "${ARGS[@]}"
  cat "$MTX" >/dev/null
  printf 'run %s  s3    ' "$run"
  "$PYTHON" scripts/bench_tile.py measure "$BIN" tile "$MTX" s3://bucket/ds "${ARGS[@]}"
  printf 'disk: %s files, %s; s3: %s objects, %s\n' \
    "$(find "$DIR/out-mtx-disk" -type f | wc -l)" "$(du -sh "$DIR/out-mtx-disk" | cut -f1)" \
    "$(find "$SRV/bucket/ds" -type f | wc -l)" "$(du -sh "$SRV/bucket/ds" | cut -f1)"
done
# The dataset in the bucket reads back whole and equal to the one on disk.
"$BIN" validate s3://bucket/ds
uptime
