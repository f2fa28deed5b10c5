# Shared by bench/<app>_gpu.sh: sourced after `set -uo pipefail` and `cd` to the repository root, with
# BENCH_APP set (and the script's own arguments still in $@). Sets
#   LOG      $OUT/$BENCH_APP (OUT defaults to out/gpu), created
#   PROFILE  the script's first argument (auto, h100, h200; default auto)
#   U        build-gpu/bin/umrun, built offline first unless SKIP_BUILD=1 (build log in $LOG/build.log)
# exports UM_CUDA_CACHE (compiled modules kept in build-gpu/cuda-cache) and defines
#   run NAME ARGS...   one umrun run on cuda with PROFILE and no output.dir; its JSON and log go to
#                      $LOG/NAME.json and $LOG/NAME.log; prints "NAME: exit N" and its validation line
OUT=$(realpath -m "${OUT:-out/gpu}")
LOG=$OUT/$BENCH_APP
mkdir -p "$LOG"
PROFILE=${1:-auto}
export UM_CUDA_CACHE=$PWD/build-gpu/cuda-cache
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  bash scripts/build-offline.sh build-gpu > "$LOG/build.log" 2>&1 || { tail -40 "$LOG/build.log"; exit 1; }
fi
U=build-gpu/bin/umrun

run() { # name, then umrun arguments
  local name=$1
  shift
  "$U" "$@" --quiet --set run.backend=cuda --set cuda.profile="$PROFILE" --set output.dir= \
    --json "$LOG/$name.json" > "$LOG/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc $(grep -E 'VALIDATION (PASS|FAIL)' "$LOG/$name.log" | head -1)"
}
