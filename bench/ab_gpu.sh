#!/usr/bin/env bash
# A/B on one GPU: the previous commit's umrun (OLD_TREE with its build OLD_BUILD)
# against this tree's (NEW_BUILD), alternated REPEATS times, on Airfoil 720K and
# LULESH 150^3 (1000 cycles). Prints each run's loop time (Airfoil: the "all
# loops" seconds of the per-loop table; LULESH: ms per cycle after the first)
# and the ratios of the sums.
#
#   bash bench/ab_gpu.sh OLD_TREE OLD_BUILD NEW_BUILD [REPEATS] [GPU]   (GPU: h100 | h200, default h200)
set -euo pipefail
OLD_TREE=$1 OLD=$(cd "$2" && pwd)/bin/umrun NEW=$(cd "$3" && pwd)/bin/umrun REPEATS=${4:-3} GPU=${5:-h200}
air() { # tree umrun
  (cd "$1" && "$2" configs/airfoil_720k_$GPU.yaml --quiet --set output.dir= | awk '/^all loops/ {print $3}')
}
lul() {
  (cd "$1" && "$2" configs/lulesh_$GPU.yaml --quiet --set output.dir= --set run.iterations=1000 \
     --set validation.reference= | awk '/per cycle/ {for (i = 1; i < NF; i++) if ($(i + 1) == "ms") {print $i; exit}}')
}
sum() { awk -v a="$1" -v b="$2" 'BEGIN {print a + b}'; }
sa_o=0 sa_n=0 sl_o=0 sl_n=0
for r in $(seq "$REPEATS"); do
  ao=$(air "$OLD_TREE" "$OLD"); an=$(air . "$NEW")
  lo=$(lul "$OLD_TREE" "$OLD"); ln=$(lul . "$NEW")
  echo "repeat $r: airfoil 720K loops (s) old $ao new $an | lulesh 150 ms/cycle old $lo new $ln"
  sa_o=$(sum "$sa_o" "$ao"); sa_n=$(sum "$sa_n" "$an"); sl_o=$(sum "$sl_o" "$lo"); sl_n=$(sum "$sl_n" "$ln")
done
awk -v ao="$sa_o" -v an="$sa_n" -v lo="$sl_o" -v ln="$sl_n" 'BEGIN {
  printf "sums: airfoil old %.4f new %.4f (new/old %.3f); lulesh old %.4f new %.4f (new/old %.3f)\n",
         ao, an, an / ao, lo, ln, ln / lo }'
