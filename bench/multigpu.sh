#!/usr/bin/env bash
# On a host with several GPUs (issue 30): the halo transports of CUDA ranks, one GPU each, checked and
# timed side by side in one call.
#   build   scripts/build-offline.sh build-gpu (umrun and um_mpi_tests only) unless SKIP_BUILD=1
#   smoke   each app's small case on 2 ranks with mpi.gpu_transport=nccl: validated, and the run must say
#           it sent its halos with NCCL (stops here if one does not)
#   suite   umrun --suite validation/suite.yaml --tags multigpu, once per transport in $TRANSPORTS
#   scale   each case of $CASES on each rank count of $RANKS (1 rank once; more ranks once per transport),
#           JSON per run, then the table (bench/multigpu_table.py): loop time (slowest rank), speed-up
#           over 1 GPU, the share of halo time hidden behind core elements, validation
#   graphs  umrun --suite validation/suite.yaml --tags graphs, then --tags graphs_nccl (cuda.graphs=1: every
#           app validated with its loop sequences replayed as CUDA graphs, 1 and 2 GPUs; then on 2 and 4
#           GPUs with NCCL halos, the exchanges inside the graphs)
# STAGES (default "build smoke suite scale"), CASES, RANKS (default "1 2 4", capped by the GPUs),
# TRANSPORTS (default "auto nccl host"), GRAPHS (default "0"; "0 1": every scaling run also with
# cuda.graphs=1, named ..._g), BUDGET_S (default 540: runs that would start later are skipped and
# listed). Everything under $WORK (default out/multigpu); logs and JSON tarred into multigpu.tar.gz there, and
# with RESULT set, the tarball, the table and the build log's end copied into that folder (few files: the
# device tool brings back at most 8).
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
OUT=$(realpath -m "${WORK:-out/multigpu}")
mkdir -p "$OUT/runs"
export NCCL_NVLS_ENABLE=0 # NVLink multicast stays off (docs/architecture.md, "Several GPUs of one host")
export UM_CUDA_CACHE=$PWD/build-gpu/cuda-cache
STAGES=${STAGES:-build smoke suite scale}
TRANSPORTS=${TRANSPORTS:-auto nccl host}
GRAPHS=${GRAPHS:-0}
BUDGET_S=${BUDGET_S:-540}
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
RANKS=${RANKS:-1 2 4}
CASES=${CASES:-airfoil_2880k lulesh_300 volna_2p4m bookleaf_14m miniaero_16m airfoil_11m}
U=build-gpu/bin/umrun
MPI=(mpirun --allow-run-as-root --bind-to none -x NCCL_NVLS_ENABLE -x UM_CUDA_CACHE)
has() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
left() { echo $((BUDGET_S - ($(date +%s) - T0))); }
finish() {
  tar czf "$OUT/multigpu.tar.gz" -C "$OUT" --exclude multigpu.tar.gz --exclude build-gpu . 2>/dev/null
  if [ -n "${RESULT:-}" ]; then
    mkdir -p "$RESULT"
    cp "$OUT/multigpu.tar.gz" "$RESULT/"
    [ -f "$OUT/table.md" ] && cp "$OUT/table.md" "$RESULT/"
    tail -60 "$OUT/build.log" > "$RESULT/build_tail.log" 2>/dev/null
  fi
  exit "${1:-0}"
}

nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader > "$OUT/gpus.txt" 2>&1
nvidia-smi topo -m > "$OUT/topo.txt" 2>&1
echo "GPUs: $NGPU ($(head -1 "$OUT/gpus.txt"))"
if has build; then
  UM_TARGETS="umrun um_mpi_tests" bash scripts/build-offline.sh build-gpu > "$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; finish 1; }
  grep -E "NCCL|CUDA=" "$OUT/build.log" | head -3
  echo "built in $(($(date +%s) - T0)) s"
fi

# one umrun on P ranks: name P transport, then umrun arguments
run() {
  local name=$1 np=$2 tr=$3
  shift 3
  local log=$OUT/runs/$name.log
  if [ "$np" -gt 1 ]; then
    timeout 300 "${MPI[@]}" -np "$np" "$U" "$@" --set run.backend=cuda --set output.dir= \
      --set mpi.gpu_transport="$tr" --json "$OUT/runs/$name.json" > "$log" 2>&1
  else
    timeout 300 "$U" "$@" --set run.backend=cuda --set output.dir= --json "$OUT/runs/$name.json" > "$log" 2>&1
  fi
  local rc=$?
  echo "$name: exit $rc; $(grep -m1 -E '^mpi: halos' "$log") $(grep -m1 -oE 'VALIDATION (PASS|FAIL)' "$log")"
  return $rc
}

if has smoke; then
  bad=0
  for c in configs/airfoil_small.yaml configs/lulesh_small.yaml apps/miniaero/configs/miniaero_small.yaml \
           apps/volna/configs/volna_dambreak_1d.yaml apps/bookleaf/configs/bookleaf_sod_sm_lag_small.yaml; do
    n=smoke_$(basename "$c" .yaml)
    run "$n" 2 nccl "$c" --quiet || bad=1
    grep -q "^mpi: halos nccl" "$OUT/runs/$n.log" || bad=1
    grep -q "VALIDATION PASS" "$OUT/runs/$n.log" || bad=1
  done
  if [ $bad != 0 ]; then
    echo "smoke: FAILED; the first failing log:"
    for f in "$OUT"/runs/smoke_*.log; do
      grep -q "VALIDATION PASS" "$f" || { tail -30 "$f"; break; }
    done
    finish 1
  fi
fi

# one suite run: its name (out/log files suite_NAME), what to say of it, then umrun --suite arguments
suite() {
  local name=$1 what=$2
  shift 2
  "$U" --suite validation/suite.yaml --out "$OUT/suite_$name" "$@" > "$OUT/suite_$name.log" 2>&1
  echo "suite $what: exit $? ($(grep -oE '[0-9]+ of [0-9]+ runs pass' "$OUT/suite_$name.log"); $(left) s left)"
  grep -E "\.\.\. FAIL" "$OUT/suite_$name.log" | head -5
}

if has graphs; then
  for t in graphs graphs_nccl; do suite "$t" "$t" --tags "$t"; done
fi

if has suite; then
  for tr in $TRANSPORTS; do
    suite "$tr" "multigpu, mpi.gpu_transport=$tr" --tags multigpu --set mpi.gpu_transport="$tr"
  done
fi

# scaling cases: name, then umrun arguments
case_args() {
  case $1 in
  airfoil_2880k) echo "apps/airfoil/configs/airfoil_2880k.yaml --set output.hdf5=false --set cuda.profile=auto" ;;
  airfoil_11m) echo "apps/airfoil/configs/airfoil_2880k.yaml --set mesh.I=1600 --set mesh.J=2400 --set run.iterations=200
    --set validation.reference= --set output.hdf5=false --set cuda.profile=auto --set mpi.partitioner=block" ;;
  lulesh_300) echo "apps/lulesh/configs/lulesh_h200.yaml --set params.size=300 --set run.iterations=200
    --set validation.reference= --set cuda.profile=auto --set mpi.partitioner=block" ;;
  lulesh_150) echo "apps/lulesh/configs/lulesh_h200.yaml --set cuda.profile=auto" ;;
  miniaero_16m) echo "apps/miniaero/configs/miniaero_sod_h200.yaml --set params.nx=1024 --set params.ny=128
    --set params.nz=128 --set validation.reference= --set cuda.profile=auto --set mpi.partitioner=block" ;;
  volna_2p4m) echo "apps/volna/configs/volna_landslide_2p4m_h200.yaml --set cuda.profile=auto" ;;
  airfoil_720k) echo "configs/airfoil_720k.yaml --set cuda.profile=auto" ;;
  lulesh_small) echo "configs/lulesh_small.yaml" ;;
  miniaero_small) echo "apps/miniaero/configs/miniaero_small.yaml" ;;
  volna_small) echo "apps/volna/configs/volna_landslide_small.yaml" ;;
  bookleaf_small) echo "apps/bookleaf/configs/bookleaf_sod_sm_lag_small.yaml" ;;
  bookleaf_4m) echo "apps/bookleaf/configs/bookleaf_sod_h200.yaml --set cuda.profile=auto" ;;
  bookleaf_14m) echo "apps/bookleaf/configs/bookleaf_sod_h200.yaml --set params.nx=7500 --set params.ny=1880
    --set cuda.profile=auto --set mpi.partitioner=block" ;;
  *) echo "" ;;
  esac
}
if has scale; then
  skipped=()
  for c in $CASES; do
    read -r -a args <<< "$(case_args "$c" | tr '\n' ' ')"
    [ ${#args[@]} -gt 0 ] || { echo "unknown case $c"; continue; }
    for np in $RANKS; do
      [ "$np" -le "$NGPU" ] || continue
      for tr in $TRANSPORTS; do
        [ "$np" -gt 1 ] || [ "$tr" = "$(echo $TRANSPORTS | cut -d' ' -f1)" ] || continue
        for g in $GRAPHS; do
          sfx=$([ "$g" = 1 ] && echo _g)
          if [ "$(left)" -lt 25 ]; then skipped+=("${c}_np${np}_$tr$sfx"); continue; fi
          run "${c}_np${np}_$tr$sfx" "$np" "$tr" "${args[@]}" --set cuda.graphs="$g" --quiet
        done
      done
    done
  done
  [ ${#skipped[@]} -gt 0 ] && echo "skipped (budget): ${skipped[*]}"
  python3 bench/multigpu_table.py "$OUT"/runs/*_np*.json | tee "$OUT/table.md"
fi
echo "done in $(($(date +%s) - T0)) s"
finish 0
