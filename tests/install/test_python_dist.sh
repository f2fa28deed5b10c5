#!/usr/bin/env bash
# ctest python.dist: the Python package's distributions (docs/python.md, docs/release.md).
#   test_python_dist.sh SOURCE_DIR WORK_DIR
# 1. the sdist of python/ (setuptools, as `python -m build` makes it), from a copy of the package with the
#    repository's VERSION and LICENSE beside it: it holds VERSION (VERSION's text) and LICENSE;
# 2. a wheel built from the unpacked sdist alone (what `python -m build`, `pip install um-X.Y.Z.tar.gz` and
#    every sdist-based distribution do): named with VERSION's version, the licence in its .dist-info;
# 3. the wheel installed into a fresh virtual environment: `import um` from another folder reports VERSION's
#    version (um.__version__, read from the installed metadata).
# Debian's interpreter with its setuptools and wheel, nothing fetched (exit 77, skipped, where one is missing).
set -euo pipefail
SRC=$(cd "$1" && pwd) WORK=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
if ! "$PY" -c "import setuptools, wheel, venv" 2> /dev/null; then
  echo "test_python_dist.sh: $PY lacks setuptools, wheel or venv (scripts/install-deps.sh): skipped" >&2
  exit 77
fi
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
V=$(head -1 "$SRC/VERSION")

step "sdist"
mkdir -p "$WORK/src"
cp "$SRC/VERSION" "$SRC/LICENSE" "$WORK/src/"
cp -a "$SRC/python" "$WORK/src/python" # its VERSION and LICENSE link ../VERSION and ../LICENSE
rm -rf "$WORK/src/python/build" "$WORK/src/python"/*.egg-info
(cd "$WORK/src/python" && "$PY" -c 'import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))' \
   "$WORK/dist") > "$WORK/sdist.log" 2>&1 || { cat "$WORK/sdist.log"; fail "building the sdist"; }
SDIST=$WORK/dist/um-$V.tar.gz
[ -f "$SDIST" ] || { ls -l "$WORK/dist"; fail "no um-$V.tar.gz"; }
mkdir -p "$WORK/unpacked" && tar xzf "$SDIST" -C "$WORK/unpacked"
S=$WORK/unpacked/um-$V
for f in VERSION LICENSE; do
  [ -f "$S/$f" ] && [ ! -L "$S/$f" ] || fail "the sdist holds no $f file"
  cmp -s "$S/$f" "$SRC/$f" || fail "the sdist's $f is not the repository's"
done

step "wheel from the sdist alone"
(cd "$S" && "$PY" -c 'import sys; from setuptools import build_meta as b; print(b.build_wheel(sys.argv[1]))' \
   "$WORK/wheel") > "$WORK/wheel.log" 2>&1 || { cat "$WORK/wheel.log"; fail "building a wheel from the sdist"; }
WHL=$(ls "$WORK"/wheel/um-"$V"-*.whl 2> /dev/null | head -1)
[ -f "$WHL" ] || { ls -l "$WORK/wheel"; fail "no um-$V-*.whl"; }
"$PY" - "$WHL" "$SRC/LICENSE" <<'PYCHECK' || fail "the wheel holds no licence"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
lic = [n for n in names if ".dist-info/" in n and "LICENSE" in n]
with open(sys.argv[2], "rb") as f:
    sys.exit(0 if lic and zipfile.ZipFile(sys.argv[1]).read(lic[0]) == f.read() else 1)
PYCHECK

step "the wheel installed: um.__version__"
"$PY" -m venv --system-site-packages "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --quiet --no-deps --no-index "$WHL" > "$WORK/pip.log" 2>&1 ||
  { cat "$WORK/pip.log"; fail "pip install the wheel"; }
got=$(cd "$WORK" && "$WORK/venv/bin/python" -c 'import um; print(um.__version__)')
[ "$got" = "$V" ] || fail "um.__version__ of the installed wheel is '$got', VERSION says $V"
rm -rf "$WORK"
echo "python.dist: all checks passed (um $V)"
