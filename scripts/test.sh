#!/usr/bin/env bash
# Runs every test of the crate: unit, integration, doc tests, and the interop suite against
# Arrow C++ 26 (from the pinned pyarrow wheel, installed into ./.venv on first use); then
# builds the Python package (python/, with maturin: one abi3 wheel), installs it into ./.venv
# and runs its pytest suite, then installs the same wheel into fresh venvs without Rust on
# PATH (pinned and lowest declared numpy, pyarrow, scipy) and runs the README examples and
# the core tests there (scripts/wheel-check.sh).
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

scripts/python-package.sh
.venv/bin/python -m pytest python/tests -q
scripts/wheel-check.sh
