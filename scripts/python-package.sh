#!/usr/bin/env bash
# Builds the Python package (python/, with maturin, release) as one abi3 wheel in
# python/dist/ and installs it into ./.venv, when it or the crate changed since the last
# install (the build reuses python/target, so a rebuild is incremental). Creates the venv
# and its pinned requirements first if needed. scripts/wheel-check.sh installs the same
# wheel into fresh venvs.
#
#   scripts/python-package.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/venv.sh

# The Python package's build and test requirements (pinned; nothing to do when installed).
.venv/bin/pip install --quiet --disable-pip-version-check -r python/requirements-dev.txt

stamp=.venv/.arrow-tensor-ipc-python.stamp
if [ ! -f "$stamp" ] || ! .venv/bin/python -c "import arrow_tensor_ipc" 2>/dev/null ||
  [ -n "$(find python/src python/arrow_tensor_ipc python/Cargo.toml python/Cargo.lock \
    python/pyproject.toml python/README.md src build.rs format vendor Cargo.toml Cargo.lock \
    -newer "$stamp" -print -quit)" ]; then
  echo "scripts/python-package.sh: building and installing the Python package (python/)" >&2
  rm -rf python/dist
  PATH="$PWD/.venv/bin:$PATH" .venv/bin/maturin build --quiet --release \
    --manifest-path python/Cargo.toml --out python/dist >&2
  .venv/bin/pip install --quiet --disable-pip-version-check --no-deps --force-reinstall \
    python/dist/*.whl
  touch "$stamp"
fi
