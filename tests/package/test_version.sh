#!/usr/bin/env bash
# ctest release.version: one version number, VERSION's, reported everywhere (docs/release.md):
#   test_version.sh SOURCE_DIR BUILD_DIR UMRUN
# umrun --version (and the commit it names, the JSON's um_commit), um/version.h, um.pc, umConfigVersion.cmake, a
# run's JSON ("um_version", build.version),
# the CPack packages' version; and CHANGELOG.md (Keep a Changelog) has an [Unreleased] or a [VERSION] section.
set -euo pipefail
SRC=$1 BUILD=$2 UMRUN=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
V=$(head -1 "$SRC/VERSION")
[[ "$V" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "VERSION holds '$V', not MAJOR.MINOR.PATCH"
"$UMRUN" --version | grep -q "^um $V " || fail "umrun --version: $("$UMRUN" --version | head -1)"
grep -q "#define UM_VERSION_STRING \"$V\"" "$BUILD/engine/include/um/version.h" || fail "um/version.h is not $V"
grep -q "^Version: $V$" "$BUILD/um.pc" || fail "um.pc: $(grep ^Version "$BUILD/um.pc")"
grep -q "set(PACKAGE_VERSION \"$V\")" "$BUILD/umConfigVersion.cmake" || fail "umConfigVersion.cmake is not $V"
grep -q "^set(CPACK_PACKAGE_VERSION \"$V\")" "$BUILD/CPackConfig.cmake" || fail "CPackConfig.cmake is not $V"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
(cd "$T" && "$UMRUN" "$SRC/configs/jacobi.yaml" --quiet --set run.backend=seq --json "$T/run.json" > "$T/log" 2>&1) ||
  { cat "$T/log"; fail "the jacobi run"; }
grep -q "\"um_version\": \"$V\"" "$T/run.json" || fail "the run's JSON has no \"um_version\": \"$V\""
# the commit that tells builds of one VERSION apart: --version's is the JSON's (git's 12-digit short form of a hash)
C=$(sed -n 's/.*"um_commit": *"\([^"]*\)".*/\1/p' "$T/run.json" | head -1)
[ -n "$C" ] || fail "the run's JSON has no um_commit"
[[ "$C" =~ ^([0-9a-f]{12})[0-9a-f]{28}(-dirty)?$ ]] && C=${BASH_REMATCH[1]}${BASH_REMATCH[2]}
"$UMRUN" --version | grep -qF "um $V (commit $C, " || fail "umrun --version does not name commit $C: $("$UMRUN" --version | head -1)"
grep -q "^## \[Unreleased\]\|^## \[$V\]" "$SRC/CHANGELOG.md" || fail "CHANGELOG.md has no [Unreleased] or [$V] section"
grep -q "keepachangelog\|Keep a Changelog" "$SRC/CHANGELOG.md" || fail "CHANGELOG.md does not say its format"
echo "release.version: um $V everywhere"
