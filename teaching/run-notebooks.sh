#!/usr/bin/env bash
# The lab's notebooks as CI runs them (ctest teaching.notebooks): every Solution notebook executed whole (its
# assertions are the test), every Begin notebook up to its exercise (teaching/run-notebooks.py), with the package
# from python/ and libum.so, umrun from the build (UM_LIBRARY, UM_UMRUN; default build/). Run from anywhere:
#   bash teaching/run-notebooks.sh [NAME-PATTERN ...]
# Exits 77 (ctest: skipped) when the interpreter lacks one of the packages the notebooks need, naming them
# (run-notebooks.py checks); notebook 5 (3 MPI ranks) is skipped, saying why, without mpirun or an MPI build.
set -euo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3  # Debian's interpreter, which has the packages (another python3 first on PATH may not)
[ -x "$py" ] || py=$(command -v python3)
export UM_LIBRARY=${UM_LIBRARY:-$PWD/build/lib/libum.so} UM_UMRUN=${UM_UMRUN:-$PWD/build/bin/umrun}
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} MPLBACKEND=Agg PYDEVD_DISABLE_FILE_VALIDATION=1
exec "$py" teaching/run-notebooks.py "$@"
