#!/usr/bin/env bash
# SIAC on one GPU (issue 28): correctness of both schemes on every CUDA strategy, then per element
# against per point over King & Kirby's mesh sizes and degrees, and the strategies for per element's
# conflicting writes against each other. Everything in one call, so the ratios come from one card.
#   bash bench/siac_gpu.sh [PROFILE]      (OUT=out/gpu; logs and JSON in $OUT/siac, table in $OUT/siac/table.md)
# MESHES: the folder scripts/siac-meshes.sh wrote (default .ext/siac-meshes: make it with
#   `bash scripts/siac-meshes.sh -o .ext/siac-meshes 4 16 64 256` and carry it; .msh.gz files there are
#   unpacked first, to carry less); 1024k = 256k refined once.
# STAGES (default "check sweep strategies"), SIZES (default "4 16 64 256 1024"), DEGREES (default "1 2 3"),
# KINDS (default "low high"), POINT_THREADS (cell or point: per point's thread, default cell), SEARCH (map or grid:
# params.search, the neighbourhood map built once or King & Kirby's hash-grid searches inside the loops; default map),
# ELEMENT_THREADS (grid: per element's threads per cell, a number, nq for (k+1)^2 or 2nq for 2 (k+1)^2; default 1),
# POINT_SPLIT (grid: per point's threads per point, likewise; default 1),
# REPEAT (runs per scheme, the fastest kept; default 2), BUDGET_S (default 520: runs that would start later are
# skipped and listed).
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
BENCH_APP=siac
source bench/gpu_common.sh
MESHES=${MESHES:-.ext/siac-meshes}
if ls "$MESHES"/*.msh.gz > /dev/null 2>&1; then # gzipped meshes (smaller to carry): unpacked once
  mkdir -p build-gpu/siac-meshes
  for f in "$MESHES"/*.msh.gz; do
    g=build-gpu/siac-meshes/$(basename "$f" .gz)
    if [ ! -f "$g" ]; then gunzip -c "$f" > "$g.tmp" && mv "$g.tmp" "$g"; fi
  done
  MESHES=build-gpu/siac-meshes
fi
STAGES=${STAGES:-check sweep strategies}
SIZES=${SIZES:-4 16 64 256 1024}
DEGREES=${DEGREES:-1 2 3}
KINDS=${KINDS:-low high}
BUDGET_S=${BUDGET_S:-520}
REPEAT=${REPEAT:-2}
POINT_THREADS=${POINT_THREADS:-cell} # per point's parallel unit (params.point_threads): cell or point
SEARCH=${SEARCH:-map} # params.search: map or grid
ELEMENT_THREADS=${ELEMENT_THREADS:-1} # grid: per element's threads per cell (params.element_threads); nq: (k+1)^2, 2nq: 2 (k+1)^2
POINT_SPLIT=${POINT_SPLIT:-1} # grid: per point's threads per point (params.point_split); nq, 2nq likewise
# a thread count given as a number, nq ((k+1)^2) or 2nq (2 (k+1)^2), for degree $2
count_of() { case "$1" in nq) echo $((($2 + 1) * ($2 + 1))) ;; 2nq) echo $((2 * ($2 + 1) * ($2 + 1))) ;; *) echo "$1" ;; esac; }
SUFFIX=""
[ "$POINT_THREADS" = point ] && SUFFIX=_pt
if [ "$SEARCH" = grid ]; then # the thread counts in the names (bench/siac_table.py reads them back)
  SUFFIX=_grid
  [ "$ELEMENT_THREADS" != 1 ] && SUFFIX=${SUFFIX}_et$ELEMENT_THREADS
  [ "$POINT_SPLIT" != 1 ] && SUFFIX=${SUFFIX}_ps$POINT_SPLIT
fi
CFG=apps/siac/configs/siac_uniform.yaml
has() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
left() { echo $((BUDGET_S - ($(date +%s) - T0))); }
skipped=""
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader > "$LOG/gpu.txt" 2>&1
echo "GPU: $(cat "$LOG/gpu.txt")"

if has check; then # both schemes, every strategy and layout: validated, and per point == per element
  for cfg in siac_uniform siac_uniform_k2 siac_unstructured; do
    for st in atomics global hierarchical; do
      for lay in aos soa; do
        run "check_${cfg}_${st}_${lay}" apps/siac/configs/$cfg.yaml --set run.strategy=$st --set run.layout=$lay
      done
    done
  done
  for lay in aos soa; do # the searches inside the loops (per element's increments: atomics whatever the strategy)
    run "check_siac_grid_$lay" apps/siac/configs/siac_grid.yaml --set run.layout=$lay
  done
fi

mesh_args() { # kind size -> umrun settings
  local kind=$1 size=$2
  if [ "$size" = 1024 ]; then
    echo "--set params.mesh=${kind}_variance --set params.size=256 --set params.refine=1 --set mesh.dir=$MESHES"
  else
    echo "--set params.mesh=${kind}_variance --set params.size=$size --set mesh.dir=$MESHES"
  fi
}

if has sweep; then # per point against per element (atomics), each run once after a warm-up run
  for k in $DEGREES; do
    for kind in $KINDS; do
      for size in $SIZES; do
        name=sweep_${kind}_${size}k_k$k$SUFFIX
        if [ "$(left)" -lt 30 ]; then skipped="$skipped $name"; continue; fi
        threads="" # the grid's threads per cell and per point (set only with grid: nothing else reads them)
        if [ "$SEARCH" = grid ]; then
          threads="--set params.element_threads=$(count_of "$ELEMENT_THREADS" $k) --set params.point_split=$(count_of "$POINT_SPLIT" $k)"
        fi
        timeout "$(left)" "$U" $CFG --quiet --set validation.reference= $(mesh_args $kind $size) --set params.degree=$k \
          $threads \
          --set params.point_threads=$POINT_THREADS --set params.search=$SEARCH --set run.backend=cuda --set run.strategy=atomics --set cuda.profile="$PROFILE" --set params.repeat=$REPEAT \
          --set output.dir= --json "$LOG/$name.json" > "$LOG/$name.log" 2>&1
        echo "$name: exit $? $(grep -E 'per_element / per_point' "$LOG/$name.log" | head -1)"
      done
    done
  done
fi

if has strategies; then # per element's writes: atomics, global colouring, hierarchical colouring (k = 1, uniform
  # meshes: with the neighbourhoods of k = 2 on 64k cells, global colouring needs ~1600 colours, each a launch whose
  # threads each do 1/64k of the work: it did not finish in 400 s)
  for n in 64 128; do
    for st in atomics global hierarchical; do
      name=strategy_uniform${n}_k1_$st
      if [ "$(left)" -lt 30 ]; then skipped="$skipped $name"; continue; fi
      timeout 120 "$U" $CFG --quiet --set validation.reference= --set params.n=$n --set params.degree=1 \
        --set params.scheme=both --set run.backend=cuda --set run.strategy=$st --set cuda.profile="$PROFILE" \
        --set params.repeat=2 --set output.dir= --json "$LOG/$name.json" > "$LOG/$name.log" 2>&1
      echo "$name: exit $? $(grep -E 'per_element ' "$LOG/$name.log" | head -1)"
    done
  done
fi
[ -n "$skipped" ] && echo "skipped by the budget:$skipped"
python3 bench/siac_table.py "$LOG" > "$LOG/table.md" 2>&1
cat "$LOG/table.md"
