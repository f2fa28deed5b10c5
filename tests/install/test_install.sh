#!/usr/bin/env bash
# ctest install.example: um as an installed library (docs/library.md).
#   test_install.sh SOURCE_DIR BUILD_DIR WORK_DIR [SANITIZE]
# Installs BUILD_DIR into WORK_DIR/prefix, checks that nothing installed names the
# source or build tree, then builds examples/heat2d from a copy outside the tree
# against the installed package only, two ways -- CMake find_package(um) with
# um_add_kernels(), and pkg-config with a plain cc line and the um-embed tool --
# runs each (VALIDATION PASS on the CPU backends), runs the installed umrun from
# another folder (references found in PREFIX/share/um), and checks that asking
# for a version the package is not gives a clear error from CMake and pkg-config.
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
         include/um/version.h share/um/validation/jacobi/grid16.ref.yaml; do
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

step "the installed umrun, from another folder, validates against PREFIX/share/um"
(cd "$WORK" && "$PREFIX/bin/umrun" "$PREFIX/share/um/configs/jacobi.yaml" --quiet --set run.backend=seq) \
  > "$WORK/umrun.log" 2>&1 || { cat "$WORK/umrun.log"; fail "installed umrun"; }
grep -q "VALIDATION PASS" "$WORK/umrun.log" || { cat "$WORK/umrun.log"; fail "installed umrun did not validate"; }

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
# shellcheck disable=SC2046,SC2086
cc -O2 $FLAGS -o "$WORK/heat2d-pc" "$WORK/heat2d/main.c" "$WORK/heat2d/heat2d.c" "$WORK/kernels_src.c" \
  $(pkg-config --cflags --libs um) || fail "cc with pkg-config --cflags --libs um"
run_example "$WORK/heat2d-pc"

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
V=$(head -1 "$SRC/VERSION")
grep -qF "$V" "$WORK/want99.log" ||
  { cat "$WORK/want99.log"; fail "find_package(um 9.9): the message does not name the installed version"; }
if pkg-config --print-errors "um >= 9.9" > "$WORK/pc99.log" 2>&1; then fail "pkg-config 'um >= 9.9' succeeded"; fi
grep -qF "version '$V'" "$WORK/pc99.log" || { cat "$WORK/pc99.log"; fail "pkg-config: no version in the message"; }
step "install.example: all checks passed"
