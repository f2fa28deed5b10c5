#!/usr/bin/env bash
# On a GPU host: BookLeaf on the CUDA backend, validation and the getacc_scatter benchmark.
#   1. build build-gpu offline (scripts/build-offline.sh) unless SKIP_BUILD=1
#   2. validate upstream's eight small decks (Lagrangian, Eulerian, mixed-material) on cuda for every strategy x layout
#      with the engine's scheme (inc), and upstream's corner-by-corner scheme
#   3. benchmark the locality paper's case, Sod on 4000 x 1000 = 4M elements
#      (apps/bookleaf/configs/bookleaf_sod_h200.yaml, STEPS steps), in one session:
#      params.scheme=inc with run.strategy=atomics|global|hierarchical, upstream's scheme
#      (one pass per corner) with the same strategies, and the gather scheme (no increments: one
#      run, getacc_gather in place of zero + scatter + apply); each run's JSON kept; a markdown
#      table ($OUT/bookleaf/bench.md): ms per step, per-loop device time and useful GB/s,
#      getacc_scatter per variant against the copy bandwidth (COPY_GBS), and the variants'
#      final metrics side by side (they must agree to round-off); and the multi-material Sod of the same size
#      beside the single-material one ($OUT/bookleaf/mixed.md: umrun --compare, per loop).
# Logs and JSON under $OUT/bookleaf (default OUT=out/gpu).
#   bash bench/bookleaf_gpu.sh [PROFILE]    (PROFILE: auto, h100, h200)
# SKIP_BUILD=1, SKIP_VALIDATION=1, SKIP_BENCH=1 leave steps out; STEPS (default 200); ROUNDS (default 1):
# how many times the default and the unfused inc variant alternate;
# COPY_GBS: the device's copy bandwidth in GB/s (read + written) for the % column (default 4063,
# measured on the H200 by bench/airfoil_bench.c: bench/results/h200_airfoil_720k.md).
set -uo pipefail
cd "$(dirname "$0")/.."
BENCH_APP=bookleaf
source bench/gpu_common.sh   # LOG, PROFILE, UM_CUDA_CACHE, the build, U, run()
STEPS=${STEPS:-200}
COPY_GBS=${COPY_GBS:-4063}
C=apps/bookleaf/configs

if [ "${SKIP_VALIDATION:-0}" != 1 ]; then
  echo "== validation (upstream BookLeaf_F90, element by element)"
  for d in sod_sm_lag_small noh_small sedov_lag_small blast_sm_lag_small sod_sm_eul_small sedov_eul_small \
           blast_sm_eul_small sod_mm_lag_small; do
    for s in atomics global hierarchical; do
      for layout in aos soa; do
        case $d in blast*) [ "$layout" = aos ] && continue ;; esac
        run "val_${d}_inc_${s}_${layout}" $C/bookleaf_$d.yaml --set run.strategy=$s --set run.layout=$layout \
          --set params.print_every=100000
      done
    done
    run "val_${d}_upstream" $C/bookleaf_$d.yaml --set params.scheme=upstream --set run.layout=soa \
      --set params.print_every=100000
  done
fi

[ "${SKIP_BENCH:-0}" = 1 ] && exit 0
echo "== benchmark: Sod 4000 x 1000, $STEPS steps, profile $PROFILE"
for scheme in inc upstream; do
  for s in atomics global hierarchical; do
    run "bench_${scheme}_${s}" $C/bookleaf_sod_h200.yaml --set run.iterations="$STEPS" \
      --set params.scheme=$scheme --set run.strategy=$s --set params.print_every=100000
  done
done
# the nodes gathering their elements' corners: no increments, so one run (the strategy does not apply); and the
# default (gather, fused state passes) against upstream's loops one by one (params.fused=false, inc, atomics): the
# issue-29 ratio, side by side, alternated ROUNDS times (default 1)
for i in $(seq 1 "${ROUNDS:-1}"); do
  run "bench_gather_r$i" $C/bookleaf_sod_h200.yaml --set run.iterations="$STEPS" --set params.scheme=gather \
    --set params.print_every=100000
  run "bench_unfused_inc_r$i" $C/bookleaf_sod_h200.yaml --set run.iterations="$STEPS" --set params.scheme=inc \
    --set params.fused=false --set run.strategy=atomics --set params.print_every=100000
done

# what mixed cells cost: upstream's multi-material Sod on the same 4M elements (bookleaf_sod_mm_h200.yaml, a column
# of 1000 mixed cells, the mix_* loops) beside the single-material one, the same settings; per loop side by side
run "mixed_sm" $C/bookleaf_sod_h200.yaml --set run.iterations="$STEPS" --set params.print_every=100000
run "mixed_mm" $C/bookleaf_sod_mm_h200.yaml --set run.iterations="$STEPS" --set params.print_every=100000
"$U" --compare "$LOG/mixed_sm.json" "$LOG/mixed_mm.json" --allow mesh.file > "$LOG/mixed.md" 2>&1
echo "mixed cells: $LOG/mixed.md (single- against multi-material, per loop)"

python3 - "$LOG" "$COPY_GBS" > "$LOG/bench.md" << 'PY'
import glob, json, os, sys
log, copy = sys.argv[1], float(sys.argv[2])
rows = []
for f in sorted(glob.glob(os.path.join(log, "bench_*.json"))):
    try:
        d = json.load(open(f))
    except Exception:
        continue
    if d.get("status") != "ok":
        continue
    m = {x["name"]: x["value"] for x in d["metrics"]} if isinstance(d["metrics"], list) else d["metrics"]
    loops = d["loops"]
    steps = m["steps"]
    dev = sum(l["seconds"] for l in loops)
    sc = [l for l in loops if l["name"].startswith(("getacc_scatter", "getacc_gather"))]
    sc_ms = 1e3 * sum(l["seconds"] for l in sc) / steps
    sc_gbs = sum(l["bytes_per_call"] * l["calls"] for l in sc) / max(sum(l["seconds"] for l in sc), 1e-30) / 1e9
    rows.append(dict(name=os.path.basename(f)[6:-5], ms=m["ms_per_step"], dev=1e3 * dev / steps, sc_ms=sc_ms,
                     sc_gbs=sc_gbs, loops=loops, steps=steps, m=m))
if not rows:
    print("no benchmark run finished")
    sys.exit(0)
ref = {r["name"]: r for r in rows}.get("upstream_atomics")
print(f"\n### BookLeaf Sod 4000 x 1000 (4M elements): ms per step (wall, after the first step), loops (device time per step)\n")
print(f"Copy bandwidth used for %: {copy:.0f} GB/s.\n")
print("| variant (scheme_strategy) | ms/step | loops ms/step | getacc_scatter (or _gather) ms/step | its GB/s | % copy | vs upstream_atomics |")
print("|---|---:|---:|---:|---:|---:|---:|")
for r in sorted(rows, key=lambda r: r["dev"]):
    sp = ref["sc_ms"] / r["sc_ms"] if ref and r["sc_ms"] > 0 else 0
    print(f"| {r['name']} | {r['ms']:.3f} | {r['dev']:.3f} | {r['sc_ms']:.4f} | {r['sc_gbs']:.0f} | {100 * r['sc_gbs'] / copy:.0f} | {sp:.2f}x |")
best = min(rows, key=lambda r: r["dev"])
print(f"\nPer loop, {best['name']}: device ms per step and useful GB/s\n")
print("| loop | calls | ms/step | GB/s | % copy |")
print("|---|---:|---:|---:|---:|")
for l in sorted(best["loops"], key=lambda l: -l["seconds"]):
    print(f"| {l['name']} | {l['calls']} | {1e3 * l['seconds'] / best['steps']:.4f} | {l['gb_per_s']:.0f} | {100 * l['gb_per_s'] / copy:.0f} |")
print("\nFinal metrics of every variant (they must agree to round-off):\n")
keys = ["steps", "final_time", "total_ie", "total_ke", "total_energy", "energy_change", "sod_l1_density"]
print("| variant | " + " | ".join(keys) + " |")
print("|---|" + "---:|" * len(keys))
for r in rows:
    print(f"| {r['name']} | " + " | ".join(f"{r['m'].get(k, float('nan')):.10g}" for k in keys) + " |")
PY
cat "$LOG/bench.md"
