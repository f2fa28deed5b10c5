#!/usr/bin/env bash
# Installs dependencies, builds um and runs the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# the CUDA backend is built (and its NVRTC compile tests run, no GPU needed) when the toolkit is present
CUDA=OFF
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then CUDA=ON; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DUM_ENABLE_CUDA=$CUDA
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
