#!/usr/bin/env bash
# On a GPU host: build offline (scripts/build-offline.sh), run the whole test
# suite, compute-sanitizer memcheck and racecheck on Airfoil for each strategy,
# and Airfoil 720K with every strategy x layout through umrun, validated.
# Full logs: $OUT/logs.tar.gz (default OUT=out/gpu); a short summary is printed.
#   bash bench/gpu_validate.sh [CONFIG]     (default configs/airfoil_720k_h100.yaml)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=$(realpath -m "${OUT:-out/gpu}")
CFG=${1:-configs/airfoil_720k_h100.yaml}
LOG=$OUT/logs
mkdir -p "$LOG"
nvidia-smi > "$LOG/nvidia-smi.txt" 2>&1
nvcc --version | tail -2
export UM_CUDA_CACHE=$PWD/build-gpu/cuda-cache
if ! bash scripts/build-offline.sh build-gpu > "$LOG/build.log" 2>&1; then
  tail -40 "$LOG/build.log"; exit 1
fi
grep -E "warning" "$LOG/build.log" | head -20
NP=$(nproc)
(cd build-gpu && ctest -j "$NP" --output-on-failure --timeout 900 > "$LOG/ctest.log" 2>&1)
grep -E "tests passed|tests failed" "$LOG/ctest.log"
grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Exception|Child aborted)" "$LOG/ctest.log" | head -30
build-gpu/tests/um_cuda_tests --gtest_filter='CudaDevice.*' 2>&1 | grep -E "^device|copy:"

if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for v in "atomics none" "atomics inc" "global inc" "hierarchical inc" "hierarchical all"; do
    set -- $v
    for tool in memcheck racecheck; do
      f="$LOG/sanitizer_${tool}_$1_$2.log"
      "$CS" --tool "$tool" --error-exitcode 9 build-gpu/bin/umrun configs/airfoil_small.yaml --quiet \
        --set run.backend=cuda --set run.strategy="$1" --set cuda.staging="$2" --set run.layout=aos \
        --set run.iterations=10 --set validation.reference= --set output.dir= > "$f" 2>&1
      echo "$tool $1 staging=$2: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tr '\n' ' ')"
    done
  done
fi

for v in "atomics none" "atomics inc" "global inc" "hierarchical inc" "hierarchical all"; do
  set -- $v
  for l in aos soa auto; do
    f="$LOG/airfoil_$1_$2_${l}.log"
    build-gpu/bin/umrun "$CFG" --quiet --set run.strategy=$1 --set cuda.staging=$2 --set run.layout=$l > "$f" 2>&1
    echo "== $1 staging=$2 $l: exit $? $(grep -E '^VALIDATION|finished in' "$f" | tr '\n' ' ')"
    grep -E "^(res_calc|all loops) " "$f"
  done
done
tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$LOG"
