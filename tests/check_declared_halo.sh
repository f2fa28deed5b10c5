#!/usr/bin/env bash
# bash tests/check_declared_halo.sh <umrun> <mpiexec> <work dir> <python3>   (from the source root)
# A halo the app declares (um_decl_set_halo_block: LULESH's generator by blocks) against the halo "ranges" finds
# (UM_TEST_RANGES_UNDECLARED=1 drops the declared ones): on 2, 3 and 4 ranks, blocks of several planes, of about a
# plane and of less than one, run.reproducible: the declared one taken (the partition's note says so), the same
# owned, exec and non-exec counts of every set on every rank, every metric but the timings the same bits.
set -u
UMRUN=$1 MPIEXEC=$2 WORK=$3 PY=${4:-python3}
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
fail() { echo "FAIL: $*" >&2; exit 1; }
T="timeout -k 10 300"
for c in "10 2" "10 3" "6 4" "5 3" "3 4" "2 3"; do
  set -- $c
  for u in 0 1; do
    $T "$MPIEXEC" --oversubscribe -np "$2" -x UM_TEST_RANGES_UNDECLARED=$u "$UMRUN" configs/lulesh_small.yaml --quiet \
      --no-validate --set params.size="$1" --set run.iterations=20 --set run.backend=seq --set output.dir= \
      --set mpi.partitioner=ranges --set run.reproducible=true --json "$WORK/s$1_np$2_$u.json" > "$WORK/s$1_np$2_$u.log" 2>&1 \
      || { tail -20 "$WORK/s$1_np$2_$u.log"; fail "size $1 on $2 ranks (UM_TEST_RANGES_UNDECLARED=$u)"; }
  done
  "$PY" - "$WORK/s$1_np$2_0.json" "$WORK/s$1_np$2_1.json" "size $1 on $2 ranks" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
what = sys.argv[3]
def fail(msg):
    print("FAIL: %s: %s" % (what, msg), file=sys.stderr)
    sys.exit(1)
declared = "halo as the app declared it"
if declared not in a["partition"]["note"]:
    fail("the declared halos were not taken: %s" % a["partition"]["note"])
if declared in b["partition"]["note"]:
    fail("UM_TEST_RANGES_UNDECLARED=1 did not drop them: %s" % b["partition"]["note"])
if a["partition"]["sets"] != b["partition"]["sets"]:
    fail("the partitions differ:\n%s\n%s" % (a["partition"]["sets"], b["partition"]["sets"]))
timing = ("ms_per", "seconds", "per_second")
ma = {k: v for k, v in a["metrics"].items() if not any(t in k for t in timing)}
mb = {k: v for k, v in b["metrics"].items() if not any(t in k for t in timing)}
if len(ma) < 5 or ma != mb:
    fail("the metrics differ:\n%s\n%s" % (ma, mb))
ex = sum(sum(s["exec_halo"]) for s in a["partition"]["sets"])
print("%s: the declared halo (%d exec rows in all) gives the found one's partition and the same %d metrics"
      % (what, ex, len(ma)))
PY
done
echo "declared halos: the same partitions and bits as the halos found"
