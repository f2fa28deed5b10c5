#!/usr/bin/env bash
# On a GPU host with build-gpu built: small layout experiments on Airfoil 720K
# (atomics and hierarchical, per-dat layouts), one table each.
set -uo pipefail
cd "$(dirname "$0")/.."
export UM_CUDA_CACHE=$PWD/build-gpu/cuda-cache
B=build-gpu/bin/um_bench_airfoil
for dl in "" "p_q=aos,p_x=aos" "p_q=aos" "p_x=aos,p_adt=aos" "p_res=aos"; do
  echo "### dat layouts: ${dl:-(all as run.layout)}"
  $B --profile h100 --strategies atomics,hierarchical --layouts soa --block-sizes 128,256 --repeats 1 \
    ${dl:+--dat-layouts $dl} | grep "^| [ah]"
done
