#!/usr/bin/env bash
# On a GPU host: the validation suite's GPU matrix twice and the comparison of the two, then the
# side-by-side report.
#   1. build build-gpu offline (scripts/build-offline.sh) unless SKIP_BUILD=1
#   2. umrun --suite validation/suite.yaml --tags gpu (profile auto: the card's own)  -> $OUT/suite/a
#   3. the same with --set cuda.profile=$PROFILE_B (default h100: where only one kind of GPU
#      can be had, a second device profile on the same card stands in for a second GPU; the
#      comparison says so)                                                            -> $OUT/suite/b
#   4. umrun --compare a b (markdown and JSON), umrun --report on a and b
# Everything under $OUT/suite (default OUT=out/gpu), logs tarred into $OUT/suite_logs.tar.gz.
#   bash bench/suite_gpu.sh            TAGS=gpu ONLY=<app> PROFILE_B=h100 SKIP_B=1 SKIP_BUILD=1
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=$(realpath -m "${OUT:-out/gpu}")
S=$OUT/suite
mkdir -p "$S"
export UM_CUDA_CACHE=$PWD/build-gpu/cuda-cache
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  bash scripts/build-offline.sh build-gpu > "$S/build.log" 2>&1 || { tail -40 "$S/build.log"; exit 1; }
fi
U=build-gpu/bin/umrun
ONLY_ARGS=()
[ -n "${ONLY:-}" ] && ONLY_ARGS=(--only "$ONLY")
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$S/nvidia-smi.csv" 2>&1
"$U" --suite validation/suite.yaml --tags "${TAGS:-gpu}" "${ONLY_ARGS[@]}" --out "$S/a" > "$S/a.log" 2>&1
echo "suite A (profile auto): exit $?"; tail -25 "$S/a.log"
if [ "${SKIP_B:-0}" != 1 ]; then
  "$U" --suite validation/suite.yaml --tags "${TAGS:-gpu}" "${ONLY_ARGS[@]}" --out "$S/b" \
    --set cuda.profile="${PROFILE_B:-h100}" > "$S/b.log" 2>&1
  echo "suite B (profile ${PROFILE_B:-h100}): exit $?"; tail -3 "$S/b.log"
  "$U" --compare "$S/a/results.json" "$S/b/results.json" --md "$S/compare.md" --json "$S/compare.json" \
    > "$S/compare.log" 2>&1
  echo "compare: exit $?"; tail -4 "$S/compare.log"
  "$U" --report "$S/report.html" "$S/a/results.json" "$S/b/results.json"
else
  "$U" --report "$S/report.html" "$S/a/results.json"
fi
tar czf "$OUT/suite_logs.tar.gz" --exclude="suite/*/runs" -C "$OUT" suite 2>/dev/null
ls -la "$OUT/suite_logs.tar.gz"
