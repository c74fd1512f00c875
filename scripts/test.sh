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

want=$(sed -n 's/^pyarrow==//p' tests/interop/requirements.txt)
if ! .venv/bin/python -c "import pyarrow, sys; sys.exit(pyarrow.__version__ != '$want')" 2>/dev/null; then
  echo "scripts/test.sh: creating .venv with pyarrow==$want" >&2
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/interop/requirements.txt
fi

cargo test --all-features "$@"
