#!/usr/bin/env bash
# Measures the build figures of docs/performance.md ("Build") on a fresh clone of HEAD with
# empty target directories, and prints one JSON line per figure:
#
#   readme_command_1   the README's first command, whole (dependencies compiled, not
#                      downloaded: the registry cache of this machine is used)
#   crate_units_cli    this crate's lib + bin units in that build (cargo --timings)
#   lib_default        `cargo build --release`: this crate's lib unit alone
#   binary_stripped    the `arrow-tensor` release binary after `strip`, in bytes
#   llvm_lines_cli     `cargo llvm-lines --release --lib --features cli`: lines, copies
#   pip_install        `pip install ./python` into a fresh venv (release build)
#   ci_run             `.ci/run` (only with --ci: about ten minutes more)
#
# Each build runs alone; the whole takes 10 to 15 minutes on 2 cores (25 with --ci).
#
#   scripts/build-report.sh [--ci] > build.jsonl
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
with_ci=0
[ "${1:-}" = "--ci" ] && with_ci=1

LLVM_LINES_VERSION=0.4.48
if [ "$(cargo llvm-lines --version 2>/dev/null)" != "cargo-llvm-lines $LLVM_LINES_VERSION" ]; then
  echo "scripts/build-report.sh: installing cargo-llvm-lines $LLVM_LINES_VERSION" >&2
  cargo install cargo-llvm-lines --version "$LLVM_LINES_VERSION" --locked --quiet
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet "$root" "$work/clone"
cd "$work/clone"
echo "{\"figure\": \"measured\", \"date\": \"$(date -u +%Y-%m-%d)\", \"commit\": \"$(git rev-parse --short HEAD)\"}"
# The pinned venv's python (with pyarrow) is not needed for these builds.
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$1" "$2"; }
# This crate's units (lib, bin) in the newest --timings report under $1, in seconds.
units() {
  python3 - "$1" <<'EOF'
import glob, json, os, re, sys
f = max(glob.glob(os.path.join(sys.argv[1], "cargo-timings", "cargo-timing-*.html")), key=os.path.getmtime)
data = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", open(f).read(), re.S).group(1))
# The lib unit has an empty target name, the binary `arrow-tensor "bin"`; the build script's
# units are left out.
mine = [u for u in data if u["name"] == "arrow-tensor-ipc" and "build-script" not in u["target"]]
print(json.dumps({(u["target"].strip().split(" ")[0] or "lib"): round(u["duration"], 1) for u in mine}))
EOF
}

t0=$(now)
CARGO_TARGET_DIR="$work/t1" cargo run --quiet --release --features cli --timings --bin arrow-tensor -- \
  dump --json samples/arrow-cpp-26.arrows >/dev/null 2>"$work/run.log"
t1=$(now)
cmd1='cargo run --release --features cli --bin arrow-tensor -- dump --json samples/arrow-cpp-26.arrows'
echo "{\"figure\": \"readme_command_1\", \"seconds\": $(elapsed "$t0" "$t1"), \"goal_seconds\": 300, \"command\": \"$cmd1 (fresh clone, empty target/)\"}"
echo "{\"figure\": \"crate_units_cli\", \"units_seconds\": $(units "$work/t1"), \"goal_seconds\": 120, \"command\": \"cargo build --release --features cli --timings (lib + bin units of this crate)\"}"
strip -o "$work/arrow-tensor" "$work/t1/release/arrow-tensor"
echo "{\"figure\": \"binary_stripped\", \"bytes\": $(stat -c %s "$work/arrow-tensor"), \"goal_bytes\": 12000000, \"command\": \"strip target/release/arrow-tensor\"}"

CARGO_TARGET_DIR="$work/t2" cargo build --quiet --release --timings 2>"$work/lib.log"
echo "{\"figure\": \"lib_default\", \"units_seconds\": $(units "$work/t2"), \"goal_seconds\": 45, \"command\": \"cargo build --release --timings (the lib unit, default features)\"}"

CARGO_TARGET_DIR="$work/t1" cargo llvm-lines --release --lib --features cli 2>/dev/null >"$work/llvm-lines.txt"
total=$(awk '/\(TOTAL\)/ {print $1 ", \"copies\": " $2; exit}' "$work/llvm-lines.txt")
echo "{\"figure\": \"llvm_lines_cli\", \"lines\": $total, \"command\": \"cargo llvm-lines --release --lib --features cli\"}"
# The ten functions with the most lines (all their copies together).
python3 - "$work/llvm-lines.txt" <<'EOF'
import json, re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*(\d+) \(.*?\)\s+(\d+) \(.*?\)\s+(.*)", line)
    if m and m.group(3) != "(TOTAL)":
        rows.append({"figure": "llvm_lines_top", "lines": int(m.group(1)), "copies": int(m.group(2)), "function": m.group(3)})
for r in rows[:10]:
    print(json.dumps(r))
EOF

python3 -m venv "$work/venv"
t0=$(now)
CARGO_TARGET_DIR="$work/t3" "$work/venv/bin/pip" install --quiet --disable-pip-version-check ./python >"$work/pip.log" 2>&1
t1=$(now)
echo "{\"figure\": \"pip_install\", \"seconds\": $(elapsed "$t0" "$t1"), \"goal_seconds\": 240, \"command\": \"pip install ./python (fresh venv, release build)\"}"

if [ "$with_ci" = 1 ]; then
  t0=$(now)
  .ci/run >"$work/ci.log" 2>&1
  t1=$(now)
  echo "{\"figure\": \"ci_run\", \"seconds\": $(elapsed "$t0" "$t1"), \"goal_seconds\": 600, \"command\": \".ci/run (fresh clone; pinned tools already installed)\"}"
fi
