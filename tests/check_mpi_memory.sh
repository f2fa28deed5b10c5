#!/usr/bin/env bash
# bash tests/check_mpi_memory.sh <umrun> <mpiexec> <work dir>   (from the source root)
# No rank holds the whole mesh: miniAero's Sod tube of 256 x 64 x 64 cells (1.05M cells, about 1 GB of maps and
# dats), set up and stepped once on one rank, then on 3 ranks declared by blocks (mpi.mesh: blocks, the default):
# every rank's peak resident memory (the JSON's memory.peak_rss_bytes.per_rank) must stay below half of the one
# rank's (measured on the 2-core machine: 542 MB against 1228 MB, 0.44).
set -u
UMRUN=$1 MPIEXEC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 10 900"
ARGS=(configs/miniaero_sod_h200.yaml --quiet --no-validate --set run.backend=seq --set output.dir= --set hostc.compile=off
      --set run.iterations=1 --set params.nx=256)
$T "$UMRUN" "${ARGS[@]}" --json "$WORK/one.json" > "$WORK/one.log" 2>&1 || { tail -20 "$WORK/one.log"; fail "one rank"; }
$T "$MPIEXEC" --oversubscribe -np 3 "$UMRUN" "${ARGS[@]}" --json "$WORK/three.json" > "$WORK/three.log" 2>&1 \
  || { tail -20 "$WORK/three.log"; fail "3 ranks"; }
python3 - "$WORK/one.json" "$WORK/three.json" <<'PY' || fail "a rank of 3 held half of the one rank's memory or more"
import json, sys
one, three = (json.load(open(p)) for p in sys.argv[1:3])
base = one["memory"]["peak_rss_bytes"]["max"]
ranks = three["memory"]["peak_rss_bytes"]["per_rank"]
assert len(ranks) == 3, ranks
for q, b in enumerate(ranks):
    print(f"rank {q} of 3: peak {b / 2**20:.0f} MB = {b / base:.2f} of one rank's {base / 2**20:.0f} MB")
sys.exit(0 if max(ranks) < 0.5 * base else 1)
PY
