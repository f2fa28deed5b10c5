#!/usr/bin/env bash
# Installs dependencies, builds um and runs the whole test suite (what CI runs):
#  1. the release build (CUDA when the toolkit is present) and every test;
#  2. the whole suite again, built with AddressSanitizer + UndefinedBehaviorSanitizer
#     (CUDA off, build-asan/): any sanitizer finding fails the run. The tests labelled "slow"
#     (umrun.new_app_folder: a full rebuild of the tree; the two long BookLeaf blasts), "package" (the
#     Debian packages, built and checked from the release build), "mpi" and "suite" (umrun.suite_quick and
#     umrun.suite_split: suites whose runs the apps' and the split's own tests make one by one), all run in
#     step 1, are left out; then the distributed engine's own tests (mpi.engine_np2, mpi.engine_np3: um_mpi_tests
#     on 2 and 3 ranks) under the same sanitizers, leaks unchecked (Open MPI's own outlive MPI_Finalize);
#  3. each libFuzzer harness (fuzz/, scripts/fuzz.sh) for UM_FUZZ_SECONDS (default 15) s.
# UM_CI_SANITIZE=0 or UM_CI_FUZZ=0 skip steps 2 or 3 (for a quick local run). OpenMP threads wait
# passively in steps 1 and 2 (OMP_WAIT_POLICY=passive): spinning threads on a shared 2-core machine only
# cost time.
# Time on a 2-core machine, a clean clone: docs/reliability.md, "CI time".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# the CUDA backend is built (and its NVRTC compile tests run, no GPU needed) when the toolkit is present
CUDA=OFF
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then CUDA=ON; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DUM_ENABLE_CUDA=$CUDA
cmake --build build -j "$(nproc)"
# OpenMP threads wait passively here too: two tests side by side on two cores, each with spinning threads, took
# 20x their time (miniaero_ramp_openmp: 146 s against 6 s on seq); no test times anything
OMP_WAIT_POLICY=passive ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"

if [ "${UM_CI_SANITIZE:-1}" != 0 ]; then
  echo "== the suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)"
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUM_ENABLE_CUDA=OFF -DUM_SANITIZE=address,undefined
  cmake --build build-asan -j "$(nproc)"
  # a finding stops the process with its own exit status (86 ASan, 87 UBSan): the test fails
  OMP_WAIT_POLICY=passive ASAN_OPTIONS=halt_on_error=1:exitcode=86:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87 \
    ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -LE "slow|mpi|package|suite" --timeout 1800
  echo "== the distributed engine's tests on 2 and 3 ranks, and LULESH's declared halos, under the same sanitizers"
  # detect_leaks=0: Open MPI's own allocations outlive MPI_Finalize and would be reported as leaks
  OMP_WAIT_POLICY=passive ASAN_OPTIONS=halt_on_error=1:exitcode=86:detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87 \
    ctest --test-dir build-asan --output-on-failure -R '^(mpi\.engine_np(2|3)|umrun\.mpi_lulesh_declared_halo)$' --timeout 1800
fi

if [ "${UM_CI_FUZZ:-1}" != 0 ]; then
  echo "== libFuzzer harnesses, ${UM_FUZZ_SECONDS:-15} s each (scripts/fuzz.sh)"
  bash scripts/fuzz.sh "${UM_FUZZ_SECONDS:-15}"
fi
