#!/usr/bin/env bash
# On a GPU host: Volna validation on the CUDA backend and the landslide_2p4m benchmark (issue 13).
#   1. build build-gpu offline (scripts/build-offline.sh) unless SKIP_BUILD=1
#   2. validate the four small decks (landslide_small, lake_at_rest, dambreak_1d, landslide_docs) on cuda with
#      every strategy x layout (the Init formulas run as NVRTC kernels generated from the deck's expressions)
#   3. benchmark landslide_2p4m.vln (2 405 400 cells, 252 steps to t = 1, checked against upstream's seq
#      run) for each strategy of SpaceDiscretization (atomics / global / hierarchical) x layout, each run's
#      JSON kept, and a markdown table ($OUT/volna/bench.md): ms per step, per-loop device time per step,
#      useful GB/s beside the measured device-to-device copy bandwidth, and the bytes per step that fusing
#      computeFluxes + SpaceDiscretization would save (input for automatic loop splitting).
# Logs and JSON under $OUT/volna (default OUT=out/gpu).
#   bash bench/volna_gpu.sh [PROFILE]    (PROFILE: auto, h100, h200)
# SKIP_BUILD=1, SKIP_VALIDATION=1, SKIP_BENCH=1 leave steps out; BENCH_REF=" " keeps the benchmark's
# reference (default: kept; BENCH_REF="--set validation.reference=" drops it).
set -uo pipefail
cd "$(dirname "$0")/.."
BENCH_APP=volna
source bench/gpu_common.sh   # LOG, PROFILE, UM_CUDA_CACHE, the build, U, run()
CFG=apps/volna/configs

if [ "${SKIP_VALIDATION:-0}" != 1 ]; then
  echo "== validation"
  for c in landslide_small lake_at_rest dambreak_1d landslide_docs; do
    for s in atomics global hierarchical; do
      for layout in aos soa; do
        run "val_${c}_${s}_${layout}" $CFG/volna_$c.yaml --set run.strategy=$s --set run.layout=$layout
      done
    done
  done
  # the formulas' generated kernels, shown once
  "$U" $CFG/volna_landslide_small.yaml --quiet --set run.backend=cuda --set output.dir= --set params.max_steps=1 \
    --set validation.reference= --set cuda.dump=1 > "$LOG/formula_kernel_dump.log" 2>&1
fi

[ "${SKIP_BENCH:-0}" = 1 ] && exit 0
echo "== benchmark: landslide_2p4m, profile $PROFILE"
for s in atomics global hierarchical; do
  for layout in soa aos; do
    run "bench_2p4m_${s}_${layout}" $CFG/volna_landslide_2p4m_h200.yaml --set run.strategy=$s \
      --set run.layout=$layout ${BENCH_REF:-}
  done
done
COPY=$(build-gpu/bin/um_bench_airfoil --I 200 --J 300 --iterations 2 --strategies atomics --layouts soa \
  --block-sizes 256 --profile "$PROFILE" 2>/dev/null | grep -o 'copy bandwidth: [0-9]*' | grep -o '[0-9]*$')

python3 - "$LOG" "${COPY:-0}" > "$LOG/bench.md" << 'PY'
import glob, json, os, sys
log, copy = sys.argv[1], float(sys.argv[2])
rows = []
for f in sorted(glob.glob(os.path.join(log, "bench_2p4m_*.json"))):
    try:
        d = json.load(open(f))
    except Exception:
        continue
    if d.get("status") != "ok":
        continue
    m = {x["name"]: x["value"] for x in d["metrics"]} if isinstance(d["metrics"], list) else d["metrics"]
    rows.append((os.path.basename(f)[11:-5], m, d["loops"]))
if not rows:
    sys.exit("no successful benchmark run")
print(f"### Volna landslide_2p4m (2 405 400 cells), {rows[0][1]['steps']:.0f} steps to t = {rows[0][1]['final_time']:.6f}\n")
print(f"Device-to-device copy bandwidth: {copy:.0f} GB/s (um_bench_airfoil).\n")
print("| strategy_layout | ms/step | loops ms/step | SpaceDiscretization ms/call | its GB/s | % of copy |")
print("|---|---:|---:|---:|---:|---:|")
for name, m, loops in sorted(rows, key=lambda r: r[1]["ms_per_step"]):
    steps = m["steps"]
    dev = sum(l["seconds"] for l in loops if l["name"] not in ("diagnostics", "getTotalVol"))
    sd = next(l for l in loops if l["name"] == "SpaceDiscretization")
    print(f"| {name} | {m['ms_per_step']:.3f} | {1e3 * dev / steps:.3f} | {1e3 * sd['seconds'] / sd['calls']:.4f} | "
          f"{sd['gb_per_s']:.0f} | {100 * sd['gb_per_s'] / copy if copy else 0:.0f} |")
name, m, loops = min(rows, key=lambda r: r[1]["ms_per_step"])
steps = m["steps"]
print(f"\nPer loop, {name}: device ms per step and useful GB/s\n")
print("| loop | calls | ms/step | GB/s |")
print("|---|---:|---:|---:|")
for l in sorted(loops, key=lambda l: -l["seconds"]):
    print(f"| {l['name']} | {l['calls']} | {1e3 * l['seconds'] / steps:.4f} | {l['gb_per_s']:.0f} |")
# fusing computeFluxes + SpaceDiscretization: the edge flux (3 floats) and bathymetry source (2 floats) are
# written by one loop and read by the next; fused, the edge loop reads the cells' values, the edge geometry
# and the map once and writes only the wave speed (NumericalFluxes' MIN needs all edges; it moves after)
cf = next(l for l in loops if l["name"] == "computeFluxes")
sd = next(l for l in loops if l["name"] == "SpaceDiscretization")
E, C = cf["set_size"], m["cells"]
fused = 16 * C + 32 * C + 4 * C + 8 * E + 4 * E + 8 * E + 4 * E + 4 * E  # in, out (INC), area, map, length, normal, wall, speed
sep = cf["bytes_per_call"] + sd["bytes_per_call"]
calls = cf["calls"] / steps
t_sep = 1e3 * (cf["seconds"] + sd["seconds"]) / steps
print(f"\nFusing computeFluxes + SpaceDiscretization: {sep / 1e6:.1f} MB -> {fused / 1e6:.1f} MB per call pair "
      f"({(sep - fused) / 1e6:.1f} MB saved, {100 * (sep - fused) / sep:.0f} %), {calls:.0f} pairs per step: "
      f"{calls * (sep - fused) / 1e6:.0f} MB per step; the two loops take {t_sep:.3f} ms per step now, "
      f"{t_sep * fused / sep:.3f} ms at the same bandwidth fused.")
PY
cat "$LOG/bench.md"
