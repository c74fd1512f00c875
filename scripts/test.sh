#!/usr/bin/env bash
# Runs every test of the crate: unit, integration, doc tests, and the interop suite against
# Arrow C++ 26 (from the pinned pyarrow wheel, installed into ./.venv on first use).
#
#   scripts/test.sh [extra cargo test arguments]
#
# Needs: Rust, a C++ compiler (g++; it builds the vendored flatc and the interop helper),
# python3 with venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/venv.sh

cargo test --all-features "$@"
