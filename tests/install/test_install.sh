#!/usr/bin/env bash
# ctest install.example: um as an installed library (docs/library.md).
#   test_install.sh SOURCE_DIR BUILD_DIR WORK_DIR [SANITIZE]
# Installs BUILD_DIR into WORK_DIR/prefix, checks that nothing installed names the
# source or build tree, then builds examples/heat2d from a copy outside the tree
# against the installed package only, two ways -- CMake find_package(um) with
# um_add_kernels(), and pkg-config with a plain cc line and the um-embed tool --
# runs each (VALIDATION PASS on the CPU backends), runs the installed umrun from
# another folder (references found in PREFIX/share/um) and the installed suite's
# jacobi cases from there too, builds and runs a C++-only
# program (LANGUAGES CXX) against find_package(um), runs docs/python.md's first
# loop with the package from the tree and PREFIX/lib/libum.so, and checks that
# asking for a version the package is not gives a clear error from CMake and
# pkg-config. A BUILD_SHARED_LIBS=ON build (ctest install.shared,
# test_install_shared.sh) is checked the same way, and its libraries' versions
# (SONAME libum_X.so.MAJOR.MINOR) and libum.so's need of the engine as well.
# The release build runs it with CUDA when the toolkit is there; the sanitizer
# build (CUDA off) runs it again with SANITIZE (e.g. address,undefined) added
# to the example's compile and link lines.
set -euo pipefail
SRC=$(cd "$1" && pwd) BUILD=$(cd "$2" && pwd) WORK=$3 SAN=${4:-}
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
PREFIX=$WORK/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
FLAGS=""
[ -n "$SAN" ] && FLAGS="-fsanitize=$SAN -fno-sanitize-recover=all"

step "install into $PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX" > "$WORK/install.log" || { cat "$WORK/install.log"; fail "cmake --install"; }
for f in lib/cmake/um/umConfig.cmake lib/cmake/um/umConfigVersion.cmake lib/cmake/um/UmKernels.cmake \
         lib/pkgconfig/um.pc bin/umrun bin/um-embed include/um/um.h include/um/run.h include/um/app.h \
         include/um/version.h share/um/validation/jacobi/grid16.ref.yaml share/um/apps/airfoil/airfoil_kernels.h; do
  [ -e "$PREFIX/$f" ] || fail "$f was not installed"
done
[ -e "$PREFIX/include/um/build_config.h" ] && fail "include/um/build_config.h (private) was installed"
if [ -z "$SAN" ]; then
  step "no installed file names the source tree ($SRC) or the build tree ($BUILD)"
  if grep -rlF -e "$SRC" -e "$BUILD" "$PREFIX/bin" "$PREFIX/lib" "$PREFIX/include"; then
    fail "the files above name the source or build tree"
  fi
else # -g and the sanitizers' source locations name the tree by design (debuggers and reports find it)
  step "not checked for tree paths: a sanitizer build (debug information names the sources on purpose)"
fi

V=$(head -1 "$SRC/VERSION")
SHARED=0
[ -e "$PREFIX/lib/libum_engine.so" ] && SHARED=1
if [ $SHARED = 1 ]; then
  step "shared libraries: versioned (docs/release.md), libum.so needs the engine"
  SOV=${V%.*}
  for l in um_engine um_driver um_run; do
    [ -f "$PREFIX/lib/lib$l.so.$V" ] || fail "lib/lib$l.so.$V was not installed"
    [ -L "$PREFIX/lib/lib$l.so" ] || fail "lib/lib$l.so (the link to link against) was not installed"
    soname=$(readelf -d "$PREFIX/lib/lib$l.so.$V" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$soname" = "lib$l.so.$SOV" ] || fail "lib$l.so.$V has the SONAME '$soname', not lib$l.so.$SOV"
  done
  if [ -e "$PREFIX/lib/libum.so" ]; then
    readelf -d "$PREFIX/lib/libum.so" | grep -q "NEEDED.*\[libum_engine.so.$SOV\]" ||
      { readelf -d "$PREFIX/lib/libum.so"; fail "libum.so does not need libum_engine.so.$SOV (the Python package finds nothing)"; }
  fi
fi

step "the installed umrun, from another folder, validates against PREFIX/share/um"
(cd "$WORK" && "$PREFIX/bin/umrun" "$PREFIX/share/um/configs/jacobi.yaml" --quiet --set run.backend=seq) \
  > "$WORK/umrun.log" 2>&1 || { cat "$WORK/umrun.log"; fail "installed umrun"; }
grep -q "VALIDATION PASS" "$WORK/umrun.log" || { cat "$WORK/umrun.log"; fail "installed umrun did not validate"; }

step "the installed suite, from another folder: its cases' configs found in PREFIX/share/um"
(cd "$WORK" && OMP_WAIT_POLICY=passive "$PREFIX/bin/umrun" --suite "$PREFIX/share/um/validation/suite.yaml" --only jacobi \
   --out "$WORK/suite") > "$WORK/suite.log" 2>&1 || { cat "$WORK/suite.log"; fail "the installed suite from $WORK"; }
grep -q "2 of 2 runs pass" "$WORK/suite.log" || { cat "$WORK/suite.log"; fail "the installed suite: not 2 of 2 runs pass"; }

cp -r "$SRC/examples/heat2d" "$WORK/heat2d"
run_example() { # $1: the program; runs heat2d.yaml on seq and openmp from the example's folder
  for b in seq openmp; do
    (cd "$WORK/heat2d" && "$1" heat2d.yaml --quiet --set run.backend=$b) > "$WORK/run_$b.log" 2>&1 ||
      { cat "$WORK/run_$b.log"; fail "$1 on $b"; }
    grep -q "VALIDATION PASS (4 metrics)" "$WORK/run_$b.log" || { cat "$WORK/run_$b.log"; fail "$1 on $b: no PASS"; }
  done
}

step "CMake: find_package(um) + um_add_kernels"
cmake -S "$WORK/heat2d" -B "$WORK/b-cmake" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_EXE_LINKER_FLAGS="$FLAGS" > "$WORK/cmake.log" 2>&1 ||
  { cat "$WORK/cmake.log"; fail "configuring the example"; }
cmake --build "$WORK/b-cmake" > "$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "building the example"; }
run_example "$WORK/b-cmake/heat2d"

step "pkg-config: um-embed + cc"
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
"$(pkg-config --variable=embed um)" "$WORK/heat2d/heat2d_kernels.h" heat2d_kernels_source "$WORK/kernels_src.c"
RPATH="" # shared libraries outside the loader's path: found through an rpath (docs/library.md)
[ $SHARED = 1 ] && RPATH="-Wl,-rpath,$(pkg-config --variable=libdir um)"
# shellcheck disable=SC2046,SC2086
cc -O2 $FLAGS -o "$WORK/heat2d-pc" "$WORK/heat2d/main.c" "$WORK/heat2d/heat2d.c" "$WORK/kernels_src.c" \
  $(pkg-config --cflags --libs um) $RPATH || fail "cc with pkg-config --cflags --libs um"
run_example "$WORK/heat2d-pc"

step "CMake: find_package(um) in a C++-only project (LANGUAGES CXX)"
mkdir -p "$WORK/cxxapp"
cat > "$WORK/cxxapp/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(cxxapp LANGUAGES CXX)
find_package(um REQUIRED)
add_executable(cxxapp main.cpp)
target_link_libraries(cxxapp PRIVATE um::engine)
CM
cat > "$WORK/cxxapp/main.cpp" <<'CPP'
#include <cstdio>
#include "um/um.h"
#include "um/version.h"
int main() {
  um_context *ctx = nullptr;
  if (um_init(&ctx, nullptr)) return 1;
  std::printf("um %s backend %s\n", UM_VERSION_STRING, um_context_backend(ctx));
  return um_finalize(&ctx);
}
CPP
cmake -S "$WORK/cxxapp" -B "$WORK/cxxapp/b" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_EXE_LINKER_FLAGS="$FLAGS" > "$WORK/cxxapp.log" 2>&1 ||
  { cat "$WORK/cxxapp.log"; fail "find_package(um) in a LANGUAGES CXX project"; }
cmake --build "$WORK/cxxapp/b" > "$WORK/cxxapp-build.log" 2>&1 || { cat "$WORK/cxxapp-build.log"; fail "building cxxapp"; }
"$WORK/cxxapp/b/cxxapp" | grep -q "^um $V backend " || fail "the C++ program did not run"

if [ -e "$PREFIX/lib/libum.so" ]; then # not built with sanitizers (python/CMakeLists.txt)
  PY=/usr/bin/python3 # Debian's, which has numpy and cffi (python/run-tests.sh)
  [ -x "$PY" ] || PY=$(command -v python3)
  if "$PY" -c "import numpy, cffi" 2> /dev/null; then
    step "Python: docs/python.md's first loop with UM_PREFIX=PREFIX"
    sed -n '/^## A first loop/,/^```$/p' "$SRC/docs/python.md" | sed '1,/^```python$/d;$d' > "$WORK/first.py"
    grep -q "um.par_loop" "$WORK/first.py" || fail "no first loop found in docs/python.md"
    echo 'import um._lib; print("libum.so:", um._lib.path)' >> "$WORK/first.py"
    (cd "$WORK" && env -u UM_LIBRARY UM_PREFIX="$PREFIX" PYTHONPATH="$SRC/python" XDG_CACHE_HOME="$WORK/cache" \
       OMP_WAIT_POLICY=passive "$PY" first.py) > "$WORK/first.log" 2>&1 || { cat "$WORK/first.log"; fail "first.py"; }
    grep -qF "999000.0 [0. 2. 4.]" "$WORK/first.log" || { cat "$WORK/first.log"; fail "first.py printed no 999000.0 [0. 2. 4.]"; }
    grep -qxF "libum.so: $PREFIX/lib/libum.so" "$WORK/first.log" || { cat "$WORK/first.log"; fail "not PREFIX's libum.so"; }
    step "Python: um.data_file finds the installed kernels (UM_PREFIX, then the loaded library's prefix)"
    want="$PREFIX/share/um/apps/airfoil/airfoil_kernels.h"
    for how in "UM_PREFIX=$PREFIX" "UM_LIBRARY=$PREFIX/lib/libum.so"; do
      got=$(cd "$WORK" && env -u UM_LIBRARY -u UM_PREFIX "$how" PYTHONPATH="$SRC/python" "$PY" -c \
        'import um; print(um.data_file("apps/airfoil/airfoil_kernels.h"))') || fail "um.data_file with $how"
      [ "$got" = "$want" ] || fail "um.data_file with $how gave $got, not $want"
    done
  else
    step "Python: not checked ($PY has no numpy or cffi: scripts/install-deps.sh)"
  fi
fi

step "a version the package is not: clear errors"
mkdir -p "$WORK/want99"
cat > "$WORK/want99/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(want99 LANGUAGES C)
find_package(um 9.9 REQUIRED)
CM
if cmake -S "$WORK/want99" -B "$WORK/want99/b" -DCMAKE_PREFIX_PATH="$PREFIX" > "$WORK/want99.log" 2>&1; then
  fail "find_package(um 9.9) succeeded"
fi
grep -qF "$V" "$WORK/want99.log" ||
  { cat "$WORK/want99.log"; fail "find_package(um 9.9): the message does not name the installed version"; }
if pkg-config --print-errors "um >= 9.9" > "$WORK/pc99.log" 2>&1; then fail "pkg-config 'um >= 9.9' succeeded"; fi
grep -qF "version '$V'" "$WORK/pc99.log" || { cat "$WORK/pc99.log"; fail "pkg-config: no version in the message"; }
step "install.example: all checks passed"
