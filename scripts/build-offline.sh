#!/usr/bin/env bash
# Builds um on an offline GPU host (no network) from the Debian packages that
# scripts/offline-deps.sh downloaded beforehand on a machine with package access:
# unpacks them with dpkg -x into a prefix inside the build folder and points
# CMake there. The CUDA backend is switched on when nvcc is found.
#
#   bash scripts/build-offline.sh [BUILD_DIR [extra cmake arguments...]]
#   (default BUILD_DIR: build; packages from $UM_DEBS, default .debs)
set -euo pipefail
cd "$(dirname "$0")/.."
DEBS=${UM_DEBS:-.debs}
BUILD=${1:-build}
shift || true
if ! ls "$DEBS"/*.deb >/dev/null 2>&1; then
  echo "build-offline: no packages in $DEBS/: run scripts/offline-deps.sh on a machine with package access and" \
       "copy $DEBS/ here" >&2
  exit 1
fi
PREFIX=$(pwd)/$BUILD/offline-deps
mkdir -p "$PREFIX"
for f in "$DEBS"/*.deb; do dpkg -x "$f" "$PREFIX"; done
CUDA=OFF
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then CUDA=ON; fi
# NCCL (halos GPU to GPU between CUDA ranks): the GPU hosts have it beside the CUDA toolkit, which CMake
# searches; where only pip's nvidia-nccl package has it, point CMake there (UM_NCCL_ROOT overrides)
NCCL=()
if [ "$CUDA" = ON ]; then
  root=${UM_NCCL_ROOT:-}
  if [ -z "$root" ] && ! ls /usr/include/nccl.h /usr/local/include/nccl.h /usr/local/cuda/include/nccl.h \
       /usr/local/cuda/targets/*/include/nccl.h >/dev/null 2>&1; then
    root=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__) if nvidia.nccl.__file__ else list(nvidia.nccl.__path__)[0])' 2>/dev/null || true)
  fi
  if [ -n "$root" ]; then NCCL=(-DUM_NCCL_ROOT="$root"); echo "build-offline: NCCL from $root"; fi
fi
# RPATH rather than RUNPATH (--disable-new-dtags): the unpacked libraries' own
# dependencies (libscotch -> libscotcherr) are then found without LD_LIBRARY_PATH
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX/usr" -DUM_ENABLE_CUDA=$CUDA \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags" "${NCCL[@]}" "$@"
cmake --build "$BUILD" -j "$(nproc)" ${UM_TARGETS:+--target $UM_TARGETS}
echo "build-offline: built in $BUILD (CUDA $CUDA); run the tests with: ctest --test-dir $BUILD"
