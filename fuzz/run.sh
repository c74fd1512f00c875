#!/usr/bin/env bash
# Fuzzes one target for a while, starting from fuzz/seeds/<target>/ (see fuzz/seed.sh), and
# prints libFuzzer's final statistics. New crashes land in fuzz/artifacts/<target>/; copy
# each into fuzz/corpus/<target>/ once fixed, so that tests/fuzz_replay.rs replays it.
#
#   fuzz/run.sh TARGET SECONDS     (needs nightly and `cargo install cargo-fuzz`)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
target=$1
seconds=$2
[ -d "seeds/$target" ] || { echo "fuzz/run.sh: run fuzz/seed.sh first" >&2; exit 1; }
cargo +nightly fuzz run "$target" "seeds/$target" -- \
  -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096
