#!/usr/bin/env bash
# Installs the wheel that scripts/python-package.sh built (python/dist/, one abi3 wheel) as a
# user meets it: into fresh venvs, with no Rust toolchain on PATH, and runs the Python
# README's examples and the core tests there:
#
#   pins    the pinned numpy, pyarrow and scipy of tests/interop/requirements.txt and
#           python/requirements-dev.txt: the README examples and the core tests;
#   floors  the lowest versions python/pyproject.toml declares (numpy 1.26, pyarrow 14,
#           scipy 1.13): the same tests; the few that need newer versions skip themselves
#           and say which (python/tests/conftest.py, `needs`).
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
# pytest and sparse (pydata, which the COO-table tests compare with) are the tests' own.
tools=("pytest==$(pin pytest)" "sparse==$(pin sparse)")
pins=("numpy==$(pin numpy)" "pyarrow==$(pin pyarrow)" "scipy==$(pin scipy)" "${tools[@]}")
floors=("numpy==1.26.4" "pyarrow==14.0.2" "scipy==1.13.1" "${tools[@]}")

# PATH without any Rust toolchain: the system directories only.
bare=/usr/local/bin:/usr/bin:/bin
if PATH="$bare" command -v cargo >/dev/null || PATH="$bare" command -v rustc >/dev/null; then
  echo "scripts/wheel-check.sh: cargo or rustc is on $bare; cannot check an install without Rust" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
core=(test_api.py test_roundtrip.py test_coo_table.py test_zero_copy.py test_errors.py test_imports.py)
for name in pins floors; do
  declare -n reqs="$name"
  venv="$work/$name"
  PATH="$bare" python3 -m venv "$venv"
  PATH="$bare" "$venv/bin/pip" install --quiet --disable-pip-version-check "${reqs[@]}"
  PATH="$bare" "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "$wheel"
  echo "scripts/wheel-check.sh: $name (${reqs[*]}): the README examples and the core tests" >&2
  (cd "$work" && PATH="$bare" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    --rootdir "$root/python/tests" "${core[@]/#/$root/python/tests/}")
done
