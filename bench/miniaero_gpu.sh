#!/usr/bin/env bash
# On a GPU host: miniAero validation on the CUDA backend and the scheme/strategy benchmark.
#   1. build build-gpu offline (scripts/build-offline.sh) unless SKIP_BUILD=1
#   2. validate upstream's three gold cases and our own references on cuda with every
#      strategy x layout for the inc scheme, and the atomics and slots schemes
#   3. benchmark the ~2M-cell GPU configs (Sod 512x64x64, Ramp 256x128x64) for every
#      scheme x strategy in one session, each run's JSON kept, and a markdown table
#      ($OUT/miniaero/bench.md): ms per step, per-loop device time and useful GB/s.
# Logs and JSON under $OUT/miniaero (default OUT=out/gpu).
#   bash bench/miniaero_gpu.sh [PROFILE]    (PROFILE: auto, h100, h200)
# SKIP_BUILD=1, SKIP_VALIDATION=1, SKIP_BENCH=1 leave steps out; STEPS (default 50) for the benchmark;
# BENCH_REF=" " keeps the configs' references for the benchmark runs (default: none).
set -uo pipefail
cd "$(dirname "$0")/.."
BENCH_APP=miniaero
source bench/gpu_common.sh   # LOG, PROFILE, UM_CUDA_CACHE, the build, U, run()
STEPS=${STEPS:-50}

if [ "${SKIP_VALIDATION:-0}" != 1 ]; then
  echo "== validation"
  for c in sod ramp flatplate; do
    for s in atomics global hierarchical; do
      for layout in aos soa; do
        run "val_${c}_inc_${s}_${layout}" configs/miniaero_$c.yaml --set run.strategy=$s --set run.layout=$layout
      done
    done
    run "val_${c}_atomics_soa" configs/miniaero_$c.yaml --set params.scheme=atomics --set run.layout=soa
    run "val_${c}_slots_soa" configs/miniaero_$c.yaml --set params.scheme=slots --set run.layout=soa
    run "val_${c}_slots_aos_hier" configs/miniaero_$c.yaml --set params.scheme=slots --set run.strategy=hierarchical
  done
  for c in sod2 ramp1 plate_visc1 sod_visc2; do
    run "val_ref_${c}" configs/miniaero_small.yaml --set mesh.file=validation/miniaero/$c.inp \
      --set validation.reference=validation/miniaero/$c.ref.yaml --set run.layout=soa
  done
fi

[ "${SKIP_BENCH:-0}" = 1 ] && exit 0
echo "== benchmark: $STEPS steps, profile $PROFILE"
for c in sod ramp; do
  for v in inc:atomics inc:global inc:hierarchical atomics:atomics slots:auto; do
    for layout in soa aos; do
      [ "$layout" = aos ] && [ "$v" != inc:atomics ] && [ "$v" != slots:auto ] && continue
      run "bench_${c}_${v/:/_}_${layout}" configs/miniaero_${c}_h200.yaml --set run.iterations="$STEPS" \
        --set params.scheme="${v%%:*}" --set run.strategy="${v##*:}" --set run.layout="$layout" ${BENCH_REF:---set validation.reference=}
    done
  done
done

python3 - "$LOG" > "$LOG/bench.md" << 'PY'
import glob, json, os, sys
log = sys.argv[1]
for case in ("sod", "ramp"):
    rows = []
    for f in sorted(glob.glob(os.path.join(log, f"bench_{case}_*.json"))):
        try:
            d = json.load(open(f))
        except Exception:
            continue
        if d.get("status") != "ok":
            continue
        m = {x["name"]: x["value"] for x in d["metrics"]} if isinstance(d["metrics"], list) else d["metrics"]
        loops = d["loops"]
        steps = m["steps"]
        dev = sum(l["seconds"] for l in loops if l["name"] != "metrics")
        rows.append((os.path.basename(f)[7 + len(case):-5], m["ms_per_step"], 1e3 * dev / steps, loops, steps))
    if not rows:
        continue
    ref = {r[0]: r for r in rows}.get("atomics_atomics_soa")
    print(f"\n### {case}: ms per step (wall, after the first step) and loops (device time per step)\n")
    print("| variant (scheme_strategy_layout) | ms/step | loops ms/step | vs upstream-style atomics |")
    print("|---|---:|---:|---:|")
    for r in sorted(rows, key=lambda r: r[2]):
        print(f"| {r[0]} | {r[1]:.3f} | {r[2]:.3f} | {(ref[2] / r[2]) if ref else 0:.2f}x |")
    best = min(rows, key=lambda r: r[2])
    print(f"\nPer loop, {case} {best[0]}: device ms per step and useful GB/s\n")
    print("| loop | calls | ms/step | GB/s |")
    print("|---|---:|---:|---:|")
    for l in sorted(best[3], key=lambda l: -l["seconds"]):
        print(f"| {l['name']} | {l['calls']} | {1e3 * l['seconds'] / best[4]:.4f} | {l['gb_per_s']:.0f} |")
PY
cat "$LOG/bench.md"
