#!/usr/bin/env bash
# Installs dependencies, builds um and runs umrun with the given arguments
# (none: the embedded default job, a small validated Airfoil case on the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >&2
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >&2
cmake --build build -j "$(nproc)" >&2
exec ./build/bin/umrun "$@"
