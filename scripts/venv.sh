#!/usr/bin/env bash
# Creates ./.venv with the pinned Python packages of tests/interop/requirements.txt (pyarrow,
# whose wheel carries the Arrow C++ library the interop suite and the comparisons run
# against), unless it already holds the pinned pyarrow.
#
#   scripts/venv.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

want=$(sed -n 's/^pyarrow==//p' tests/interop/requirements.txt)
if ! .venv/bin/python -c "import pyarrow, sys; sys.exit(pyarrow.__version__ != '$want')" 2>/dev/null; then
  echo "scripts/venv.sh: creating .venv with pyarrow==$want" >&2
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/interop/requirements.txt
fi
