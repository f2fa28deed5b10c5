#!/usr/bin/env bash
# The edge cut and the imbalance of every partitioner of the primary set (mpi.partitioner: rcb, sfc, ptscotch,
# metis, block) on each app's mesh, on NP ranks (default 4), as a markdown table: what docs/benchmarks.md
# ("Partitioners") shows. Each run stops after one iteration (or time step); the figures come from the log line
#   mpi: 4 ranks; set 'cells' partitioned by rcb in 0.05 s: edge cut 863, imbalance 1.000; ...
# The edge cut counts the edges of the primary set's graph (elements sharing a map target, or joined by one
# element of another set) between parts; the imbalance is the largest part over the mean. A partitioner that
# gave way to another (its chain: docs/architecture.md) is shown with the one that was used, and parts that are
# not connected are counted.
#   scripts/partition-table.sh [build/bin/umrun] [NP]        (mpirun --oversubscribe: a 2-core machine will do)
set -euo pipefail
UMRUN=${1:-build/bin/umrun}
NP=${2:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
PARTS=(rcb sfc ptscotch metis block)
# name | config | extra settings (one iteration or step; larger meshes than the tests' small cases)
CASES=(
  "Airfoil 720K cells|apps/airfoil/configs/airfoil_720k.yaml|--set run.iterations=1"
  "LULESH 30^3 (nodes)|apps/lulesh/configs/lulesh.yaml|--set run.iterations=1"
  "miniAero Sod 64x32x32 cells|apps/miniaero/configs/miniaero_sod_h200.yaml|--set params.nx=64 --set params.ny=32 --set params.nz=32 --set run.iterations=1"
  "BookLeaf Sod medium (nodes)|apps/bookleaf/configs/bookleaf_sod_sm_lag_medium.yaml|--set run.iterations=1"
  "Volna landslide small cells|apps/volna/configs/volna_landslide_small.yaml|--set params.max_steps=1"
  "Jacobi 200x200 (nodes)|apps/jacobi/configs/jacobi.yaml|--set mesh.N=200 --set run.iterations=1"
  "SIAC uniform 64x64 (nodes)|apps/siac/configs/siac_uniform.yaml|--set params.n=64"
)
echo "| app, primary set | elements | $(printf '%s | ' "${PARTS[@]}")"
echo "|---|---:|$(printf -- '---|%.0s' "${PARTS[@]}")"
for c in "${CASES[@]}"; do
  IFS='|' read -r name cfg extra <<<"$c"
  row=""
  n=""
  for p in "${PARTS[@]}"; do
    # shellcheck disable=SC2086 # extra is a list of settings
    out=$(mpirun --oversubscribe -np "$NP" "$UMRUN" "$cfg" --quiet --no-validate --set run.backend=seq --set output.dir= \
          --set run.unknown_keys=warn --set mpi.partitioner="$p" $extra 2>&1 || true)
    line=$(grep -m1 "partitioned by" <<<"$out" || true)
    if [[ -z $line ]]; then
      row="$row failed |"
      continue
    fi
    used=$(sed -E 's/.*partitioned by ([a-z]+) in.*/\1/' <<<"$line")
    cut=$(sed -E 's/.*edge cut (-?[0-9]+),.*/\1/' <<<"$line")
    imb=$(sed -E 's/.*imbalance ([0-9.]+).*/\1/' <<<"$line")
    secs=$(sed -E 's/.* in ([0-9.]+) s:.*/\1/' <<<"$line")
    if [[ -z $n ]]; then
      set_name=$(sed -E "s/.*set '([^']+)'.*/\1/" <<<"$line")
      n=$(grep -E "^  $set_name +[0-9]+ elements" <<<"$out" | awk '{print $2}' | head -1)
    fi
    cell="$cut / $imb / ${secs} s"
    [[ $used != "$p" ]] && cell="$cell ($used)"
    dis=$(grep -oE "[0-9]+ of [0-9]+ parts are not connected" <<<"$line" | awk '{print $1}' || true)
    [[ -n $dis ]] && cell="$cell, $dis not connected"
    row="$row $cell |"
  done
  echo "| $name | ${n:-?} |$row"
done
echo
echo "Each cell: edge cut / imbalance (largest part / mean) / seconds of um_distribute (partition, migration, halos),"
echo "on $NP ranks (mpirun --oversubscribe), $(date -u +%Y-%m-%d), $(getconf _NPROCESSORS_ONLN) cores."
