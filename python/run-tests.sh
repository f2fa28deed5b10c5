#!/usr/bin/env bash
# The Python package's tests as CI runs them (ctest python.pytest): a fresh virtual environment that sees Debian's
# numpy, pandas, h5py, xarray, matplotlib, cffi and pytest (--system-site-packages; scripts/install-deps.sh installs
# them), `pip install ./python` into it, then pytest python/tests. Run from the repository's root:
#   bash python/run-tests.sh [VENV [PYTEST-ARGS...]]   (VENV default: build/python/venv; e.g. -k cuda)
# libum.so and umrun are found through UM_LIBRARY and UM_UMRUN (set by ctest), else in build/. Exits 77 (ctest:
# skipped) when the interpreter lacks one of the packages, naming them.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-build/python/venv}
shift || true
# Debian's interpreter, which has the packages (another python3 first on PATH, e.g. pyenv's, may not)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
missing=$("$py" -c 'import importlib.util as u
print(" ".join(m for m in ("numpy", "pandas", "h5py", "xarray", "matplotlib", "cffi", "pytest", "venv")
               if u.find_spec(m) is None))')
if [ -n "$missing" ]; then
  echo "python/run-tests.sh: $py lacks $missing: run scripts/install-deps.sh (Debian's python3-* packages);" \
       "the tests are skipped" >&2
  exit 77
fi
rm -rf "$venv"
"$py" -m venv --system-site-packages "$venv"
# the package alone: its dependencies are Debian's (no index is asked), built with Debian's setuptools
"$venv/bin/python" -m pip install --quiet --no-deps --no-build-isolation --no-index ./python
export UM_LIBRARY=${UM_LIBRARY:-$PWD/build/lib/libum.so} UM_UMRUN=${UM_UMRUN:-$PWD/build/bin/umrun}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} MPLBACKEND=Agg
# from outside the source folder, so the installed package is the one imported
cd "$venv"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$OLDPWD/python/tests" "$@"
