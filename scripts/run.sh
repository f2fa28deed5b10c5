#!/usr/bin/env bash
# Installs dependencies, builds um and runs umrun with the given arguments
# (none: the embedded default job, a small validated Airfoil case: on the GPU when one is present, else the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >&2
# the CUDA backend is built when the toolkit is present (as scripts/test.sh does: one build folder for both); the
# run takes the GPU when one is usable (run.backend: auto) and the CPU otherwise
CUDA=OFF
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then CUDA=ON; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DUM_ENABLE_CUDA=$CUDA >&2
cmake --build build -j "$(nproc)" >&2
exec ./build/bin/umrun "$@"
