#!/usr/bin/env bash
# ctest install.shared: um built with BUILD_SHARED_LIBS=ON (docs/library.md) and checked installed as the static
# build is (test_install.sh: heat2d with find_package and with pkg-config + cc, a C++-only program, umrun from
# another folder, docs/python.md's first loop on PREFIX/lib/libum.so), plus the shared libraries' versions and
# libum.so's need of the engine.
#   test_install_shared.sh SOURCE_DIR WORK_DIR
# The libraries and umrun only (no tests, CUDA off): about half a minute on two cores. CC and CXX as the calling
# build's.
set -euo pipefail
SRC=$(cd "$1" && pwd) WORK=$2
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
echo "== configure and build (BUILD_SHARED_LIBS=ON) in $WORK/build"
cmake -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DUM_BUILD_TESTS=OFF \
  -DUM_ENABLE_CUDA=OFF > "$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; echo "FAIL: configure" >&2; exit 1; }
cmake --build "$WORK/build" -j 2 > "$WORK/build.log" 2>&1 || { tail -50 "$WORK/build.log"; echo "FAIL: build" >&2; exit 1; }
bash "$(dirname "$0")/test_install.sh" "$SRC" "$WORK/build" "$WORK/check"
rm -rf "$WORK"
