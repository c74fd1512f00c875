#!/usr/bin/env bash
# Installs the wheel that scripts/python-package.sh built (python/dist/, one abi3 wheel) as a
# user meets it: into fresh venvs, with no Rust toolchain on PATH, and runs the Python
# README's examples and the core tests there:
#
#   pins    the pinned numpy, pyarrow, scipy, dask, distributed and sparse of
#           tests/interop/requirements.txt and python/requirements-dev.txt: the README
#           examples and the core tests (the Dask tests ran at these pins in ./.venv);
#   floors  the lowest versions python/pyproject.toml declares, the `dask` extra's
#           included (numpy 1.26, pyarrow 14, scipy 1.13, dask and distributed 2024.8.0,
#           sparse 0.15.4): the same tests and the Dask tests; the few that need newer
#           versions skip themselves and say which (python/tests/conftest.py, `needs`).
#
# The Dask tests' `arrow-tensor` binary is the one `cargo test --all-features` built
# (target/debug), as no Rust is on PATH here.
#
#   scripts/wheel-check.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

wheels=(python/dist/*.whl)
if [ "${#wheels[@]}" != 1 ] || [ ! -f "${wheels[0]}" ]; then
  echo "scripts/wheel-check.sh: expected one wheel in python/dist (run scripts/python-package.sh)" >&2
  exit 1
fi
wheel="$root/${wheels[0]}"
case "$wheel" in
  *-cp311-abi3-*.whl) ;;
  *) echo "scripts/wheel-check.sh: $wheel is not an abi3 wheel for CPython 3.11+" >&2; exit 1 ;;
esac

pin() { sed -n "s/^$1==//p" tests/interop/requirements.txt python/requirements-dev.txt | head -n 1; }
pins=("numpy==$(pin numpy)" "pyarrow==$(pin pyarrow)" "scipy==$(pin scipy)"
  "dask[array]==$(pin 'dask\[array\]')" "distributed==$(pin distributed)"
  "sparse==$(pin sparse)" "pytest==$(pin pytest)")
floors=("numpy==1.26.4" "pyarrow==14.0.2" "scipy==1.13.1" "dask[array]==2024.8.0"
  "distributed==2024.8.0" "sparse==0.15.4" "pytest==$(pin pytest)")

# PATH without any Rust toolchain: the system directories only.
bare=/usr/local/bin:/usr/bin:/bin
if PATH="$bare" command -v cargo >/dev/null || PATH="$bare" command -v rustc >/dev/null; then
  echo "scripts/wheel-check.sh: cargo or rustc is on $bare; cannot check an install without Rust" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
core=(test_api.py test_roundtrip.py test_coo_table.py test_zero_copy.py test_errors.py test_imports.py)
cli="$root/target/debug/arrow-tensor"
if [ ! -x "$cli" ]; then
  echo "scripts/wheel-check.sh: $cli is missing (run cargo test --all-features first)" >&2
  exit 1
fi
for name in pins floors; do
  declare -n reqs="$name"
  venv="$work/$name"
  PATH="$bare" python3 -m venv "$venv"
  PATH="$bare" "$venv/bin/pip" install --quiet --disable-pip-version-check "${reqs[@]}"
  PATH="$bare" "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "$wheel"
  tests=("${core[@]}")
  if [ "$name" = floors ]; then tests+=(test_dask.py); fi
  echo "scripts/wheel-check.sh: $name (${reqs[*]}): the README examples and ${tests[*]}" >&2
  (cd "$work" && PATH="$bare" ARROW_TENSOR_CLI="$cli" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    --rootdir "$root/python/tests" "${tests[@]/#/$root/python/tests/}")
done
