#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang, ASan + UBSan) into build-fuzz/ and runs
# each for SECONDS (default 25) from its seed corpus (fuzz/corpus/<name>, never modified:
# the run works on a copy in build-fuzz/fuzz/work/<name>).
#
#   bash scripts/fuzz.sh            # CI: 25 s per harness
#   bash scripts/fuzz.sh 3600       # a longer run (docs/reliability.md)
#   bash scripts/fuzz.sh 600 config # one harness
#
# Exit status 1 when a harness finds a crash, a leak, a sanitizer finding or a
# timeout; the input that did it is in build-fuzz/fuzz/artifacts/<name>/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-25}
ONLY=${2:-}
B=build-fuzz
if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz: clang not found (apt-get install clang, or scripts/install-deps.sh)" >&2
  exit 1
fi
CC=clang CXX=clang++ cmake -S . -B $B -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUM_ENABLE_FUZZ=ON -DUM_BUILD_TESTS=OFF \
  -DUM_ENABLE_OPENMP=OFF -DUM_ENABLE_CUDA=OFF >/dev/null
cmake --build $B -j "$(nproc)" >/dev/null
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# one harness: its line on success, its log's tail and a status file on a finding
run_one() {
  local name=$1 corpus=$2
  local work=$B/fuzz/work/$name art=$B/fuzz/artifacts/$name
  rm -rf "$work" && mkdir -p "$work" "$art"
  local t0=$(date +%s)
  if "$B/fuzz/fuzz_$name" "$work" "$corpus" -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 \
       -max_len=65536 -artifact_prefix="$art/" -print_final_stats=1 >"$B/fuzz/$name.log" 2>&1; then
    echo "fuzz: $name: $(( $(date +%s) - t0 )) s, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$B/fuzz/$name.log" | grep -o '[0-9]*$') runs, no finding"
  else
    echo "fuzz: $name: FINDING (see $B/fuzz/$name.log and $art/)" >&2
    tail -40 "$B/fuzz/$name.log" >&2
    touch "$B/fuzz/failed.$name"
  fi
}
# the harnesses run side by side, one per core (each is single-threaded): the same time per harness, the
# whole in 1/cores of the wall time
rm -f $B/fuzz/failed.*
jobs_max=$(nproc)
while read -r name corpus; do
  [ -z "$name" ] && continue
  [ -n "$ONLY" ] && [ "$name" != "$ONLY" ] && continue
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  run_one "$name" "$corpus" &
done < $B/fuzz/harnesses.txt
wait
fail=0
ls $B/fuzz/failed.* >/dev/null 2>&1 && fail=1
exit $fail
