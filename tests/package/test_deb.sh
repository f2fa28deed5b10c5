#!/usr/bin/env bash
# ctest package.deb: the Debian packages (cmake/UmPackage.cmake), built from this build and checked
# installed into a clean root (docs/release.md).
#   test_deb.sh SOURCE_DIR BUILD_DIR WORK_DIR
# 1. cpack -G DEB: um_<v>_<arch>.deb and um-dev_<v>_<arch>.deb, the version of VERSION;
# 2. their control fields: the runtime depends on Debian's libyaml, METIS, Scotch, HDF5 (and Open MPI,
#    PT-Scotch when built with them), never on GoogleTest; -dev on um (= v) and the -dev packages (and
#    openmpi-bin's mpicc), gtest only suggested;
# 3. both unpacked into WORK/root (dpkg-deb -x: what dpkg -i puts in /), nothing installed on the machine; the
#    runtime's copyright file covers um and each third-party licence of the data it ships, whose texts it holds;
# 4. from a folder outside the source tree, the packaged umrun runs small configs of the package's own data
#    folder (WORK/root/usr/share/um/configs) and each says VALIDATION PASS; --version names the version and
#    the licence; a config copied elsewhere with its deck beside it runs (paths relative to the config);
# 5. a small C program builds against the -dev package with pkg-config and with find_package(um), and runs;
# 6. WORK removed (the packages and the root).
set -euo pipefail
SRC=$(cd "$1" && pwd) BUILD=$(cd "$2" && pwd) WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(( $(date +%s) - T0 )) s)"; }
T0=$(date +%s)
VERSION=$(head -1 "$SRC/VERSION")

step "cpack -G DEB (um $VERSION)"
cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/debs" > "$WORK/cpack.log" 2>&1 ||
  { cat "$WORK/cpack.log"; fail "cpack"; }
RT=$(ls "$WORK"/debs/um_"$VERSION"_*.deb 2>/dev/null | head -1)
DEV=$(ls "$WORK"/debs/um-dev_"$VERSION"_*.deb 2>/dev/null | head -1)
[ -f "$RT" ] && [ -f "$DEV" ] || { ls -l "$WORK/debs"; fail "um_${VERSION}_*.deb and um-dev_${VERSION}_*.deb not both made"; }
ls -l "$RT" "$DEV"

step "control fields"
field() { dpkg-deb -f "$1" "$2"; }
[ "$(field "$RT" Version)" = "$VERSION" ] || fail "um's Version is $(field "$RT" Version), VERSION says $VERSION"
[ "$(field "$DEV" Version)" = "$VERSION" ] || fail "um-dev's Version is $(field "$DEV" Version)"
RDEP=$(field "$RT" Depends) DDEP=$(field "$DEV" Depends)
echo "um depends: $RDEP"
echo "um-dev depends: $DDEP"
for p in libyaml-0-2 libmetis5 'libscotch-\|libptscotch-' libhdf5-; do # an MPI build's Scotch is PT-Scotch's
  grep -q "$p" <<< "$RDEP" || fail "um does not depend on $p*"
done
if ldd "$BUILD/bin/umrun" | grep -q libmpi; then
  grep -q "libopenmpi" <<< "$RDEP" || fail "an MPI build's um does not depend on libopenmpi*"
  grep -q "libopenmpi-dev" <<< "$DDEP" || fail "um-dev does not depend on libopenmpi-dev"
  grep -q "openmpi-bin" <<< "$DDEP" || fail "um-dev does not depend on openmpi-bin (mpicc: find_package(um) finds MPI with it)"
fi
grep -q "gtest" <<< "$RDEP" && fail "um depends on GoogleTest"
for p in "um (= $VERSION)" libyaml-dev libmetis-dev libscotch-dev libhdf5-dev; do
  grep -qF "$p" <<< "$DDEP" || fail "um-dev does not depend on $p"
done
grep -q libgtest-dev <<< "$(field "$DEV" Suggests)" || fail "um-dev does not suggest libgtest-dev"

step "unpacked into a clean root"
ROOT=$WORK/root
dpkg-deb -x "$RT" "$ROOT" && dpkg-deb -x "$DEV" "$ROOT"
dpkg-deb -c "$RT" > "$WORK/rt.list" && dpkg-deb -c "$DEV" > "$WORK/dev.list"
for f in usr/bin/umrun usr/share/man/man1/umrun.1 usr/share/bash-completion/completions/umrun \
         usr/share/zsh/vendor-completions/_umrun usr/share/doc/um/LICENSE usr/share/doc/um/THIRD_PARTY.md \
         usr/share/doc/um/CHANGELOG.md usr/share/doc/um/copyright usr/share/um/VERSION usr/share/um/validation/bookleaf/LICENSE.upstream; do
  grep -q " \./$f$" "$WORK/rt.list" || fail "um does not hold /$f"
done
for f in usr/include/um/um.h usr/include/um/version.h usr/bin/um-embed usr/share/doc/um-dev/copyright; do
  grep -q " \./$f$" "$WORK/dev.list" || fail "um-dev does not hold /$f"
done
PC=$(cd "$ROOT" && find usr/lib -name um.pc | head -1) CM=$(cd "$ROOT" && find usr/lib -name umConfig.cmake | head -1)
[ -n "$PC" ] && [ -n "$CM" ] || fail "um-dev holds no um.pc or umConfig.cmake"
grep -q "BSD-3-Clause" "$ROOT/$PC" || fail "um.pc does not name the licence"
grep -q 'set(um_LICENSE "BSD-3-Clause")' "$ROOT/$CM" || fail "umConfig.cmake does not name the licence"
grep -q "BSD 3-Clause" "$ROOT/usr/share/doc/um/copyright" || fail "/usr/share/doc/um/copyright is not the licence"
# the runtime ships third-party validation data (THIRD_PARTY.md): its copyright file has a paragraph for each
# licence with its text, and each licence text of the tree (validation/*/LICENSE.upstream) is in the package
COPYRIGHT=$ROOT/usr/share/doc/um/copyright
head -1 "$COPYRIGHT" | grep -q "^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ||
  fail "/usr/share/doc/um/copyright is not in Debian's copyright format"
check_paragraph() { # $1: a Files: pattern, $2: its License: name, $3: a line of its text
  awk -v f="$1" -v l="License: $2" -v t="$3" 'BEGIN { RS = "" } index($0, "Files: ") == 1 && index($0, f) && index($0, l) \
      && index($0, t) { found = 1 } END { exit !found }' "$COPYRIGHT" ||
    { cat "$COPYRIGHT"; fail "the copyright file has no paragraph for $1 under $2 with '$3'"; }
}
check_paragraph "Files: *" BSD-3-Clause "Copyright (c) 2026, the um authors"
check_paragraph usr/share/um/validation/bookleaf/decks/ GPL-3+ "/usr/share/common-licenses/GPL-3"
check_paragraph usr/share/um/validation/miniaero/ BSD-3-Clause "Copyright (2014) Sandia Corporation."
check_paragraph usr/share/um/validation/volna/decks/ BSD-2-Clause "Copyright 2018, Frederic Dias, Serge Guillas, Istvan Reguly"
for lic in "$SRC"/validation/*/LICENSE.upstream; do
  f=usr/share/um/${lic#"$SRC"/}
  grep -q " \./$f$" "$WORK/rt.list" || fail "um does not hold /$f"
done
grep -q "usr/include/" "$WORK/rt.list" && fail "the runtime package holds headers"
UMRUN=$ROOT/usr/bin/umrun DATA=$ROOT/usr/share/um

step "umrun --version"
"$UMRUN" --version > "$WORK/version.log"
grep -q "^um $VERSION " "$WORK/version.log" || { cat "$WORK/version.log"; fail "umrun --version does not say um $VERSION"; }
grep -q "BSD-3-Clause" "$WORK/version.log" || { cat "$WORK/version.log"; fail "umrun --version names no licence"; }

step "the packaged configs, run from a folder outside the source tree"
ELSEWHERE=$(mktemp -d /tmp/um-package-run.XXXXXX)
trap 'rm -rf "$ELSEWHERE"' EXIT
for cfg in ${UM_PACKAGE_CONFIGS:-jacobi airfoil_small miniaero_small lulesh_small volna_lake_at_rest siac_uniform bookleaf_sod_sm_lag_small}; do
  t=$(date +%s)
  # seq: one thread each, so that the check costs its CPU time only on a busy machine (OpenMP threads
  # waiting for one another on shared cores took airfoil_small from 8 s to 150 s)
  (cd "$ELSEWHERE" && env -u UM_DATA_DIR "$UMRUN" "$DATA/configs/$cfg.yaml" --quiet --set run.backend=seq) \
    > "$WORK/$cfg.log" 2>&1 ||
    { tail -30 "$WORK/$cfg.log"; fail "$cfg from $ELSEWHERE"; }
  grep -q "VALIDATION PASS" "$WORK/$cfg.log" || { tail -30 "$WORK/$cfg.log"; fail "$cfg: no VALIDATION PASS"; }
  echo "  $cfg: VALIDATION PASS ($(( $(date +%s) - t )) s)"
done

step "a config copied elsewhere finds its deck beside it"
mkdir -p "$ELSEWHERE/case"
cp "$DATA/validation/volna/decks/lake_at_rest.vln" "$ELSEWHERE/case/my.vln"
sed -e 's|validation/volna/decks/lake_at_rest.vln|my.vln|' "$DATA/configs/volna_lake_at_rest.yaml" > "$ELSEWHERE/case/my.yaml"
grep -q "file: my.vln" "$ELSEWHERE/case/my.yaml" || fail "the copied config does not name my.vln"
(cd "$WORK" && "$UMRUN" "$ELSEWHERE/case/my.yaml" --quiet --set run.backend=seq) > "$WORK/copied.log" 2>&1 ||
  { tail -30 "$WORK/copied.log"; fail "a copied config with its deck beside it"; }
grep -q "VALIDATION PASS" "$WORK/copied.log" || { tail -30 "$WORK/copied.log"; fail "copied config: no PASS"; }

step "a small C program against um-dev: pkg-config"
mkdir -p "$WORK/prog"
cat > "$WORK/prog/hello_um.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "um/um.h"
#include "um/version.h"
int main(void) {
  um_context *ctx = NULL;
  if (um_init(&ctx, NULL)) return 1;
  printf("um %s backend %s\n", UM_VERSION_STRING, um_context_backend(ctx));
  return um_finalize(&ctx);
}
C
export PKG_CONFIG_PATH=$ROOT/$(dirname "$PC")
[ "$(pkg-config --modversion um)" = "$VERSION" ] || fail "pkg-config --modversion um is $(pkg-config --modversion um)"
# shellcheck disable=SC2046
cc -o "$WORK/prog/hello-pc" "$WORK/prog/hello_um.c" $(pkg-config --cflags --libs um) > "$WORK/cc.log" 2>&1 ||
  { cat "$WORK/cc.log"; fail "cc with pkg-config --cflags --libs um"; }
"$WORK/prog/hello-pc" | grep -q "^um $VERSION backend " || fail "the pkg-config program did not run"

step "a small C program against um-dev: find_package(um)"
cat > "$WORK/prog/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(hello_um LANGUAGES C)
find_package(um $VERSION EXACT REQUIRED)
add_executable(hello_um hello_um.c)
target_link_libraries(hello_um PRIVATE um::engine)
CM
cmake -S "$WORK/prog" -B "$WORK/prog/b" -DCMAKE_PREFIX_PATH="$ROOT/usr" > "$WORK/cmake.log" 2>&1 ||
  { cat "$WORK/cmake.log"; fail "find_package(um $VERSION) in the unpacked um-dev"; }
cmake --build "$WORK/prog/b" > "$WORK/cbuild.log" 2>&1 || { cat "$WORK/cbuild.log"; fail "building against um::engine"; }
"$WORK/prog/b/hello_um" | grep -q "^um $VERSION backend " || fail "the find_package program did not run"

step "removed"
rm -rf "$WORK"
step "package.deb: all checks passed"
