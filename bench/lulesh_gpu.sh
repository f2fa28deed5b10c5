#!/usr/bin/env bash
# On a GPU host: LULESH validation on the CUDA backend and the strategy benchmark.
#   1. build build-gpu offline (scripts/build-offline.sh) unless SKIP_BUILD=1
#   2. validate size 10 (configs/lulesh_small.yaml) with every strategy x layout x
#      force scheme, and size 30 (configs/lulesh.yaml) with the main ones
#   3. benchmark size $SIZE (default 150) for $ITERS cycles (default 500): every
#      strategy, layout and force scheme (fused loops; unfused for the two main
#      strategies) in one session, each run's JSON kept, and
#      a markdown table ($OUT/lulesh/bench.md): ms per cycle, zones per second,
#      the force loops' time, and the ratio to atomics and to the gather scheme.
# Logs and JSON under $OUT/lulesh (default OUT=out/gpu).
#   bash bench/lulesh_gpu.sh [PROFILE]    (PROFILE: auto, p100, h100, h200)
# SKIP_BUILD=1, SKIP_VALIDATION=1, SKIP_BENCH=1 leave steps out; SIZE, ITERS, BLOCK, VARIANTS as above.
set -uo pipefail
cd "$(dirname "$0")/.."
BENCH_APP=lulesh
source bench/gpu_common.sh   # LOG, PROFILE, UM_CUDA_CACHE, the build, U, run()
SIZE=${SIZE:-150}
ITERS=${ITERS:-500}
BLOCK=${BLOCK:-320}
# strategy:staging pairs, as the CUDA backend names them (docs/cuda.md)
VARIANTS=${VARIANTS:-"atomics:none atomics:inc global:inc hierarchical:inc hierarchical:all"}

if [ "${SKIP_VALIDATION:-0}" != 1 ]; then
  echo "== validation"
  for v in $VARIANTS; do
    for layout in aos soa; do
      for forces in inc gather; do
        run "val_s10_${v/:/_}_${layout}_${forces}" configs/lulesh_small.yaml --set run.strategy="${v%%:*}" \
          --set cuda.staging="${v##*:}" --set run.layout="$layout" --set params.forces="$forces"
      done
    done
  done
  for v in atomics:none hierarchical:inc global:inc; do
    for forces in inc gather; do
      run "val_s30_${v/:/_}_soa_${forces}" configs/lulesh.yaml --set run.strategy="${v%%:*}" \
        --set cuda.staging="${v##*:}" --set run.layout=soa --set params.forces="$forces"
    done
  done
fi

[ "${SKIP_BENCH:-0}" = 1 ] && exit 0
echo "== benchmark: size $SIZE, $ITERS cycles, block $BLOCK, profile $PROFILE"
for forces in inc gather; do
  for v in $VARIANTS; do
    for layout in soa aos; do
      run "bench_${v/:/_}_${layout}_${forces}" configs/lulesh_p100.yaml --set params.size="$SIZE" \
        --set run.iterations="$ITERS" --set validation.reference= --set run.block_size="$BLOCK" \
        --set run.strategy="${v%%:*}" --set cuda.staging="${v##*:}" --set run.layout="$layout" \
        --set params.forces="$forces"
    done
  done
  # one loop per upstream function (params.fused=false), for the two main strategies
  for v in atomics:none hierarchical:inc; do
    run "bench_${v/:/_}_soa_${forces}_unfused" configs/lulesh_p100.yaml --set params.size="$SIZE" \
      --set run.iterations="$ITERS" --set validation.reference= --set run.block_size="$BLOCK" \
      --set run.strategy="${v%%:*}" --set cuda.staging="${v##*:}" --set run.layout=soa \
      --set params.forces="$forces" --set params.fused=false
  done
done

python3 - "$LOG" "$SIZE" "$ITERS" > "$LOG/bench.md" << 'EOF'
import glob, json, os, sys
log, size, iters = sys.argv[1], sys.argv[2], sys.argv[3]
rows = []
for f in sorted(glob.glob(os.path.join(log, "bench_*.json"))):
    try:
        d = json.load(open(f))
    except Exception:
        continue
    if d.get("status") != "ok":
        continue
    m = {x["name"]: x["value"] for x in d["metrics"]} if isinstance(d["metrics"], list) else d["metrics"]
    loops = {l["name"]: l["seconds"] for l in d["loops"]}
    force = sum(loops.get(n, 0) for n in ("force_zero", "integrate_stress", "hourglass", "stress_corners",
                                          "hourglass_corners", "gather_forces", "volume_force",
                                          "volume_force_corners", "gather_force"))
    rows.append((os.path.basename(f)[6:-5], m["ms_per_iteration"], m["zones_per_second"], 1e3 * force / m["iterations"],
                 sum(loops.values()) * 1e3 / m["iterations"]))
base = {r[0]: r for r in rows}
atom = base.get("atomics_none_soa_inc")
gath = [r for r in rows if "_gather" in r[0]]
best_gather = min(gath, key=lambda r: r[1]) if gath else None
print(f"LULESH size {size} ({int(size)**3} elements), {iters} cycles; ms per cycle = wall time per cycle after the")
print("first (host stepping included); loops = device time of all loops per cycle; force loops = the nodal force")
print("loops' device time per cycle; ratios: the row's force time against")
print(f"atomics (staging none, SoA, inc) and against the fastest gather variant ({best_gather[0] if best_gather else '-'}).\n")
print("| variant | ms/cycle | zones/s | loops ms/cycle | force loops ms/cycle | force vs atomics | force vs best gather |")
print("|---|---:|---:|---:|---:|---:|---:|")
for r in sorted(rows, key=lambda r: r[1]):
    va = f"{atom[3] / r[3]:.2f}x" if atom else "-"
    vg = f"{best_gather[3] / r[3]:.2f}x" if best_gather else "-"
    print(f"| {r[0]} | {r[1]:.3f} | {r[2]:.3g} | {r[4]:.3f} | {r[3]:.3f} | {va} | {vg} |")
# per loop, for the fastest variant: device time and the host's time in um_par_loop per call
best = min(rows, key=lambda r: r[1])[0] if rows else None
if best:
    d = json.load(open(os.path.join(log, f"bench_{best}.json")))
    print(f"\nPer loop, {best}: device ms/call; host ms/call = um_par_loop's wall time less run-time compilation")
    print("(which on CUDA includes building the loop's plan); a loop with a reduction includes the wait for the GPU\n")
    print("| loop | calls | device ms/call | host ms/call | GB/s |")
    print("|---|---:|---:|---:|---:|")
    for l in d["loops"]:
        c = l["calls"]
        h = max(0.0, l.get("host_seconds", 0) - l.get("compile_seconds", 0)) / c
        print(f"| {l['name']} | {c} | {1e3 * l['seconds'] / c:.4f} | {1e3 * h:.4f} | {l['gb_per_s']:.0f} |")
EOF
cat "$LOG/bench.md"
