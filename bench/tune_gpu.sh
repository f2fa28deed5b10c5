#!/usr/bin/env bash
# Per-loop tuning (run.tune) against fixed settings, and the split variants, side by side on one GPU
# (issues 24 and 29). For each case, in this order in one call:
#   split_{off,gather,fused,auto}          run.split (off: the default config, loops whole)
#   strategy_{atomics,global,hierarchical} run.strategy fixed for every loop
#   tune1, tune2                           run.tune=once on a fresh run.cache: measured, then read back
# Usage: bash bench/tune_gpu.sh [auto|h100|h200]
#   CASES="airfoil lulesh miniaero volna bookleaf" (default: all five), SKIP_BUILD=1 to reuse build-gpu,
#   OUT (default out/gpu): JSONs and logs in $OUT/tune, the table in $OUT/tune/table.md (bench/tune_table.py).
set -uo pipefail
cd "$(dirname "$0")/.."
BENCH_APP=tune
source bench/gpu_common.sh
CASES=${CASES:-airfoil lulesh miniaero volna bookleaf}
args_of() {
  case $1 in
  airfoil) echo "configs/airfoil_720k_h200.yaml --no-validate --set run.iterations=${AIRFOIL_IT:-300}" ;;
  lulesh) echo "configs/lulesh_h200.yaml --no-validate --set run.iterations=${LULESH_CYCLES:-200}" ;;
  miniaero) echo "configs/miniaero_sod_h200.yaml --no-validate" ;;
  volna) echo "configs/volna_landslide_2p4m_h200.yaml --no-validate --set params.max_steps=${VOLNA_STEPS:-300}" ;;
  bookleaf) echo "configs/bookleaf_sod_h200.yaml --no-validate --set run.iterations=${BOOKLEAF_IT:-100}" ;;
  *) echo "unknown case $1 (airfoil lulesh miniaero volna bookleaf)" >&2; return 1 ;;
  esac
}
for c in $CASES; do
  a=$(args_of "$c") || exit 2
  # shellcheck disable=SC2086
  {
    for m in off gather fused auto; do run "${c}_split_$m" $a --set run.split=$m; done
    for s in atomics global hierarchical; do run "${c}_strategy_$s" $a --set run.strategy=$s; done
    rm -rf "$LOG/cache_$c"
    for t in 1 2; do run "${c}_tune$t" $a --set run.tune=once --set run.cache="$LOG/cache_$c"; done
  }
done
python3 bench/tune_table.py "$LOG" $CASES > "$LOG/table.md" && cat "$LOG/table.md"
