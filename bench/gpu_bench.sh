#!/usr/bin/env bash
# On a GPU host, after bench/gpu_validate.sh built build-gpu: the Airfoil 720K
# benchmark over strategy x layout x block size (bench/airfoil_bench.c), as a
# markdown table in $OUT/airfoil_bench.md.   bash bench/gpu_bench.sh [PROFILE] [REPEATS]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=$(realpath -m "${OUT:-out/gpu}")
mkdir -p "$OUT"
export UM_CUDA_CACHE=$PWD/build-gpu/cuda-cache
build-gpu/bin/um_bench_airfoil --profile "${1:-auto}" --repeats "${2:-3}" --markdown "$OUT/airfoil_bench.md" \
  ${BENCH_ARGS:-}
