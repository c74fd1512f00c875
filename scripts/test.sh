#!/usr/bin/env bash
# Runs every test of the crate: unit, integration, doc tests, and the interop suite against
# Arrow C++ 26 (from the pinned pyarrow wheel, installed into ./.venv on first use); then
# builds the Python package (python/, with maturin), installs it into ./.venv and runs its
# pytest suite.
#
#   scripts/test.sh [extra cargo test arguments]
#
# Needs: Rust, a C++ compiler (g++; it builds the vendored flatc and the interop helper),
# python3 with venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/venv.sh

# The Python package's build and test requirements (pinned; nothing to do when installed).
.venv/bin/pip install --quiet --disable-pip-version-check -r python/requirements-dev.txt

cargo test --all-features "$@"

# Build and install the package when it or the crate changed since the last install (the
# build reuses python/target, so a rebuild is incremental).
stamp=.venv/.arrow-tensor-ipc-python.stamp
if [ ! -f "$stamp" ] || ! .venv/bin/python -c "import arrow_tensor_ipc" 2>/dev/null ||
  [ -n "$(find python/src python/arrow_tensor_ipc python/Cargo.toml python/Cargo.lock \
    python/pyproject.toml python/README.md src build.rs format vendor Cargo.toml Cargo.lock \
    -newer "$stamp" -print -quit)" ]; then
  echo "scripts/test.sh: building and installing the Python package (python/)" >&2
  PATH="$PWD/.venv/bin:$PATH" .venv/bin/pip install --quiet --disable-pip-version-check \
    --no-build-isolation --no-deps --force-reinstall ./python
  touch "$stamp"
fi
.venv/bin/python -m pytest python/tests -q
