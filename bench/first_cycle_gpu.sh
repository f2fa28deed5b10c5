#!/usr/bin/env bash
# On a GPU host, in one call: what a run costs before its steady state, and whole runs beside upstream's.
#   1. the first cycle / step of LULESH 150^3, Airfoil 720K and miniAero 2.1M with a warm module cache (three
#      short runs each after one that fills the cache) and LULESH's with an empty one, and per loop what the
#      first call cost ($LOG/first_cycle.md: first_call_seconds, compile_seconds, upload_seconds, uploaded MB);
#   2. whole runs, process start to end, alternated ROUNDS times (default 2): LULESH 150^3 to the end time with an
#      empty module cache, against UPSTREAM_LULESH if given (a binary of upstream's CUDA port you built outside
#      the repository; run as `UPSTREAM_LULESH -s 150`); Airfoil 720K x 1000 against UPSTREAM_AIRFOIL if given (a
#      command line, e.g. OP2's CUDA Airfoil, run as is; its own timing line is printed as it prints it).
# Tables in $LOG/first_cycle.md and $LOG/whole_runs.md (LOG = $OUT/first_cycle, OUT defaults to out/gpu).
#   bash bench/first_cycle_gpu.sh [PROFILE]          (PROFILE: auto, h100, h200)
# SKIP_BUILD=1 uses build-gpu as it is.
set -uo pipefail
cd "$(dirname "$0")/.."
BENCH_APP=first_cycle
source bench/gpu_common.sh # LOG, PROFILE, UM_CUDA_CACHE, the build, U, run()
ROUNDS=${ROUNDS:-2}
case_args() {
  case $1 in
    lulesh) echo "configs/lulesh_h200.yaml --set run.iterations=3 --set validation.reference=" ;;
    airfoil) echo "configs/airfoil_720k_h200.yaml --set run.iterations=3 --no-validate" ;;
    miniaero) echo "configs/miniaero_sod_h200.yaml --set run.iterations=3 --no-validate" ;;
  esac
}
for c in lulesh airfoil miniaero; do
  # shellcheck disable=SC2046
  run "${c}_fill" $(case_args $c) > /dev/null
  # shellcheck disable=SC2046
  for i in 1 2 3; do run "${c}_warm$i" $(case_args $c); done
done
rm -rf "$LOG/empty_cache"
# shellcheck disable=SC2046
UM_CUDA_CACHE=$LOG/empty_cache run lulesh_cold $(case_args lulesh)
python3 - "$LOG" > "$LOG/first_cycle.md" <<'PY'
import json, os, sys
log = sys.argv[1]
def load(n):
    p = os.path.join(log, n + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
def g(l, k):
    v = l.get(k)
    return v if isinstance(v, (int, float)) else 0
print("| run | first cycle / step (s) | setup (s) | sum of first calls (s) | compile (s) | uploads (s) | uploaded (MB) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for n in ["lulesh_warm1", "lulesh_warm2", "lulesh_warm3", "lulesh_cold", "airfoil_warm1", "airfoil_warm2",
          "airfoil_warm3", "miniaero_warm1", "miniaero_warm2", "miniaero_warm3"]:
    d = load(n)
    if not d:
        print("| %s | no JSON | | | | | |" % n)
        continue
    L = [l for l in d["loops"] if not l.get("parent")]
    print("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f |" % (n, d["first_step_seconds"], d["setup_seconds"],
          sum(g(l, "first_call_seconds") for l in L), sum(g(l, "compile_seconds") for l in L),
          sum(g(l, "upload_seconds") for l in L), sum(g(l, "upload_bytes") for l in L) / 1e6))
d = load("lulesh_warm3")
if d:
    print("\nLULESH, warm module cache: the loops whose first call cost most\n")
    print("| loop | first call (s) | compile (s) | uploads (s) | uploaded (MB) | steady call (ms) |")
    print("|---|---:|---:|---:|---:|---:|")
    for l in sorted(d["loops"], key=lambda l: -g(l, "first_call_seconds"))[:8]:
        print("| %s | %.4f | %.4f | %.4f | %.0f | %.4f |" % (l["name"], g(l, "first_call_seconds"), g(l, "compile_seconds"),
              g(l, "upload_seconds"), g(l, "upload_bytes") / 1e6, 1e3 * l["seconds"] / max(1, l["calls"])))
PY
cat "$LOG/first_cycle.md"

now() { date +%s.%N; }
secs() { python3 -c "print('%.3f' % ($2 - $1))"; }
{
  echo "| round | what | process wall (s) | its own timing |"
  echo "|---|---|---:|---|"
  for r in $(seq "$ROUNDS"); do
    if [ -n "${UPSTREAM_LULESH:-}" ]; then
      s=$(now); (cd "$LOG" && "$UPSTREAM_LULESH" -s 150 > "$LOG/upstream_lulesh_r$r.log" 2>&1); rc=$?; e=$(now)
      echo "| $r | upstream LULESH 150 (exit $rc) | $(secs "$s" "$e") | $(grep -E 'Elapsed time|Iteration count' \
        "$LOG/upstream_lulesh_r$r.log" | tr -s ' ' | tr '\n' ' ') |"
    fi
    rm -rf "$LOG/cold_r$r"
    s=$(now); UM_CUDA_CACHE=$LOG/cold_r$r run lulesh_whole_r$r configs/lulesh_h200.yaml > /dev/null; e=$(now)
    echo "| $r | um LULESH 150, empty module cache | $(secs "$s" "$e") | $(grep -E 'time stepping|VALIDATION' \
      "$LOG/lulesh_whole_r$r.log" | tr -s ' ' | tr '\n' ' ') |"
    if [ -n "${UPSTREAM_AIRFOIL:-}" ]; then
      s=$(now); (cd "$LOG" && eval "$UPSTREAM_AIRFOIL" > "$LOG/upstream_airfoil_r$r.log" 2>&1); rc=$?; e=$(now)
      echo "| $r | upstream Airfoil (exit $rc) | $(secs "$s" "$e") | $(tail -1 "$LOG/upstream_airfoil_r$r.log") |"
    fi
    s=$(now); run airfoil_whole_r$r configs/airfoil_720k_h200.yaml > /dev/null; e=$(now)
    echo "| $r | um Airfoil 720K x 1000 | $(secs "$s" "$e") | $(python3 -c "
import json; d = json.load(open('$LOG/airfoil_whole_r$r.json')); L = [l for l in d['loops'] if not l.get('parent')]
print('run %.4f s, loops on the GPU %.4f s' % (d['run_seconds'], sum(l['seconds'] for l in L)))") $(grep -o \
      'VALIDATION [A-Z]*' "$LOG/airfoil_whole_r$r.log" | head -1) |"
  done
} | tee "$LOG/whole_runs.md"
