#!/usr/bin/env bash
# On a GPU host: build offline (scripts/build-offline.sh), run the CUDA tests and
# the whole suite, then Airfoil 720K with every strategy x layout, validated.
# Logs go to $OUT (default out/gpu). Prints a short summary last.
#   bash bench/gpu_validate.sh [CONFIG]     (default configs/airfoil_720k_h100.yaml)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/gpu}
CFG=${1:-configs/airfoil_720k_h100.yaml}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
nvcc --version | tail -2
export UM_CUDA_CACHE=$PWD/build-gpu/cuda-cache
if ! bash scripts/build-offline.sh build-gpu > "$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"; exit 1
fi
grep -E "warning|um 0" "$OUT/build.log" | head -20
NP=$(nproc)
(cd build-gpu && ctest -j "$NP" -R "Cuda" --output-on-failure --timeout 900 > "../$OUT/ctest_cuda.log" 2>&1)
(cd build-gpu && ctest -j "$NP" -E "Cuda" --output-on-failure --timeout 900 > "../$OUT/ctest_rest.log" 2>&1)
grep -E "tests passed|tests failed" "$OUT/ctest_cuda.log" "$OUT/ctest_rest.log"
grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Exception|Child aborted)" "$OUT/ctest_cuda.log" "$OUT/ctest_rest.log" | head -30
build-gpu/tests/um_cuda_tests --gtest_filter='CudaDevice.*' 2>&1 | grep -E "device|copy"
for s in atomics global hierarchical; do
  for l in aos soa auto; do
    log="$OUT/airfoil_${s}_${l}.log"
    build-gpu/bin/umrun "$CFG" --quiet --set run.strategy=$s --set run.layout=$l --json "$OUT/airfoil_${s}_${l}.json" \
      > "$log" 2>&1
    echo "== $s $l: exit $? $(grep -E 'VALIDATION|rms_1000 ' "$log" | tr -s ' ' | tr '\n' ' ')"
    grep -E "^(save_soln|adt_calc|res_calc|bres_calc|update|all loops) " "$log"
  done
done
