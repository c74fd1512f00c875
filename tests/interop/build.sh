#!/usr/bin/env bash
# Builds the Arrow C++ interop helper against the Arrow C++ library shipped in
# the pyarrow wheel of the given Python interpreter.
#
#   tests/interop/build.sh PYTHON OUT_BINARY
#
# Skips the compile when OUT_BINARY is newer than arrow_interop.cc (and this
# script). The binary gets an rpath to pyarrow's lib dir, so it runs without
# LD_LIBRARY_PATH. Environment: CXX (default g++), EXTRA_CXXFLAGS.
set -euo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: $0 PYTHON OUT_BINARY" >&2
  exit 2
fi

PYTHON=$1
OUT=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC="$HERE/arrow_interop.cc"
CXX=${CXX:-g++}

if [ ! -f "$SRC" ]; then
  echo "build.sh: missing $SRC" >&2
  exit 1
fi

if [ -x "$OUT" ] && [ "$OUT" -nt "$SRC" ] && [ "$OUT" -nt "${BASH_SOURCE[0]}" ]; then
  exit 0
fi

# Query pyarrow for its include dir, library dir and the versioned libarrow.
PYINFO=$("$PYTHON" - <<'EOF'
import glob, os, re, sys
import pyarrow as pa
inc = pa.get_include()
libdirs = pa.get_library_dirs()
lib = None
for d in libdirs:
    cands = sorted(glob.glob(os.path.join(d, "libarrow.so.*")))
    # prefer the shortest versioned name, e.g. libarrow.so.2600
    cands = [c for c in cands if re.fullmatch(r"libarrow\.so\.[0-9.]+", os.path.basename(c))]
    if cands:
        cands.sort(key=lambda c: (len(os.path.basename(c)), c))
        lib = cands[0]
        break
if lib is None:
    sys.exit("libarrow.so.* not found in %r" % (libdirs,))
print(inc)
print(os.path.dirname(lib))
print(os.path.basename(lib))
print(pa.__version__)
EOF
) || { echo "build.sh: cannot locate pyarrow via $PYTHON" >&2; exit 1; }

INC=$(printf '%s\n' "$PYINFO" | sed -n 1p)
LIBDIR=$(printf '%s\n' "$PYINFO" | sed -n 2p)
LIBNAME=$(printf '%s\n' "$PYINFO" | sed -n 3p)
PAVER=$(printf '%s\n' "$PYINFO" | sed -n 4p)

if [ -z "$INC" ] || [ -z "$LIBDIR" ] || [ -z "$LIBNAME" ]; then
  echo "build.sh: incomplete pyarrow info: $PYINFO" >&2
  exit 1
fi

mkdir -p "$(dirname "$OUT")"
TMP="$OUT.tmp.$$"
trap 'rm -f "$TMP"' EXIT

echo "build.sh: compiling $SRC against pyarrow $PAVER ($LIBDIR/$LIBNAME)" >&2
# The program itself is C++17, but Arrow 26's public headers use C++20
# (std::span, std::bit_width, requires-clauses), so it is compiled as C++20.
# -D_GLIBCXX_USE_CXX11_ABI=1 matches the manylinux_2_28 pyarrow wheels.
# shellcheck disable=SC2086
"$CXX" -std=c++20 -O2 -Wall -Wno-deprecated-declarations \
  -D_GLIBCXX_USE_CXX11_ABI=1 \
  -I"$INC" \
  "$SRC" \
  -o "$TMP" \
  -L"$LIBDIR" "-l:$LIBNAME" \
  -Wl,-rpath,"$LIBDIR" \
  ${EXTRA_CXXFLAGS:-}

mv -f "$TMP" "$OUT"
trap - EXIT
echo "build.sh: wrote $OUT" >&2
