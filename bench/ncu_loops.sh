#!/usr/bin/env bash
# What holds each large loop of an app on the GPU: Nsight Compute (ncu) over one step, each kernel named after its
# loop (um_loop_<loop>, um_reduce_<loop>; a split loop's um_loop_<loop>_contrib and the gathers' um_gather_d), then a
# table per loop taking 8% or more of the loop time (from the run's JSON; a split loop's rows are the loops it
# generated): registers, warps active, DRAM and L2 throughput, L2 hit rate, L2 reduction sectors (atomic
# increments), FP64 pipe, memory stalls, local-memory loads. LOOP=<name> profiles that loop's kernels only,
# selected by its NVTX range (ncu --nvtx --nvtx-include "<name>/"; the CUDA build names every loop call), with
# cuda.graphs off (a graph's replay launches its kernels outside the loops' ranges).
# Usage: bash bench/ncu_loops.sh NAME COUNT CONFIG [umrun --set ...]
#   NAME   a label (files $OUT/ncu_NAME.csv, NAME.json, the table NAME.md); COUNT: launches to profile
#   e.g.   bash bench/ncu_loops.sh lulesh 45 configs/lulesh_h200.yaml --set run.iterations=1
#          LOOP=res_calc bash bench/ncu_loops.sh res_calc 4 configs/airfoil_720k.yaml --set run.iterations=2
#          (airfoil_720k_h200.yaml runs the cells scheme: its loops are adt_calc, cells_stage1, cells_stage2_*)
# Needs ncu (CUDA toolkit) and performance counters (root, or NVreg_RestrictProfilingToAdminUsers=0); the clocks are
# left as the card runs them (--clock-control none).
# OUT defaults to out/ncu; U to build-gpu/bin/umrun (built by scripts/build-offline.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n '2,10p' "$0"; exit 2; }
NAME=$1 COUNT=$2
shift 2
OUT=$(realpath -m "${OUT:-out/ncu}")
U=${U:-build-gpu/bin/umrun}
mkdir -p "$OUT"
command -v ncu > /dev/null || { echo "ncu not found (CUDA toolkit's bin on PATH?)" >&2; exit 1; }
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum,lts__t_sector_hit_rate.pct
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size
M=$M,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum
M=$M,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
run=("$U" "$@" --quiet --no-validate --set run.backend=cuda --set output.dir=)
"${run[@]}" --json "$OUT/$NAME.json" > "$OUT/$NAME.log" 2>&1 || { tail -5 "$OUT/$NAME.log"; exit 1; }
if [ -n "${LOOP:-}" ]; then pick=(--nvtx --nvtx-include "$LOOP/"); run+=(--set cuda.graphs=0); else pick=(--kernel-name "regex:^um_(loop|reduce|gather)_"); fi
ncu --clock-control none "${pick[@]}" --launch-count "$COUNT" --metrics "$M" --csv --page raw "${run[@]}" \
  > "$OUT/ncu_$NAME.csv" 2> "$OUT/ncu_$NAME.err" || { tail -5 "$OUT/ncu_$NAME.err"; exit 1; }
python3 bench/ncu_table.py "$OUT/ncu_$NAME.csv" "$OUT/$NAME.json" | tee "$OUT/$NAME.md"
