#!/usr/bin/env bash
# Prints this crate's build budget next to what it measures now (a report, not a test):
# the compile time of the library unit in `cargo build --release` (default features, as a
# dependency's user builds it) and the LLVM IR lines `cargo llvm-lines` counts in it.
# scripts/build-report.sh measures the full set of build figures (docs/performance.md).
#
#   scripts/build-budget.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

LIB_SECONDS_BUDGET=45
LIB_LINES_BUDGET=1400000

# Compiled afresh, so that --timings reports the unit (build.rs reuses $FLATC when set).
cargo clean --quiet --release -p arrow-tensor-ipc
cargo build --quiet --release --lib --timings 2>/dev/null
seconds=$(python3 - <<'PY'
import glob, json, os, re
f = max(glob.glob("target/cargo-timings/cargo-timing-*.html"), key=os.path.getmtime)
data = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", open(f).read(), re.S).group(1))
print(next(round(u["duration"], 1) for u in data if u["name"] == "arrow-tensor-ipc" and not u["target"].strip()))
PY
)
lines=$(cargo llvm-lines --release --lib 2>/dev/null | awk '/\(TOTAL\)/ {print $1; exit}')
echo "build budget: lib unit (release, default features) ${seconds} s, budget ${LIB_SECONDS_BUDGET} s"
echo "build budget: LLVM IR lines (release, default features) ${lines}, budget ${LIB_LINES_BUDGET}"
