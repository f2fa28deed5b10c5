#!/usr/bin/env python3
"""The SIAC benchmark's tables (bench/siac_gpu.sh) from the JSON of its runs: per element against
per point per mesh and degree, the intersection-test ratio, GFLOP/s against the card's FP64 peak,
and the strategies for per element's writes."""
import glob, json, os, sys

PEAK = {"H100": 67.0, "H200": 67.0}  # FP64 tensor-core peak, TFLOP/s (SXM); vector FP64 is half of it


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(d):
    rows = []
    for p in sorted(glob.glob(os.path.join(d, "sweep_*.json"))):
        j = load(p)
        if not j:
            continue
        m = j.get("metrics", {})
        name = os.path.basename(p)[len("sweep_"):-len(".json")]
        kind, size, k = name.split("_")[:3]
        unit = "point" if name.endswith("_pt") else "cell"
        if "_grid" in name:  # _grid[_et<T>][_ps<T>]: per element's threads a cell, per point's a point
            unit = "grid"
            for part in name.split("_grid", 1)[1].split("_")[1:]:
                if part.startswith("et"):
                    unit += f", {part[2:]} threads a cell (pe)"
                elif part.startswith("ps"):
                    unit += f", {part[2:]} threads a point (pp)"
        rows.append((kind, int(size[:-1]), int(k[1:]), unit, m))
    rows.sort(key=lambda r: (r[2], r[0], r[1], r[3]))
    print("| mesh | cells | k | per point: a thread per (grid: searched in the loops) | neighbours mean/max | "
          "per point s | per element s | per element speed-up | tests per point | tests pe / pp (Table 1: 0.53) | "
          "GFLOP/s pp / pe | filtered L2 / unfiltered L2 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, size, k, unit, m in rows:
        g = lambda key: m.get(key, float("nan"))
        nb = "-" if unit.startswith("grid") else f"{g('neighbours_mean'):.0f}/{int(g('neighbours_max'))}"
        print(f"| {kind} {size}k | {int(g('cells'))} | {k} | {unit} | {nb} | "
              f"{g('seconds_per_point'):.4f} | {g('seconds_per_element'):.4f} | {g('speedup_per_element'):.2f} | "
              f"{g('tests_per_point') / (g('cells') * (k + 1) ** 2):.0f} | "
              f"{g('tests_per_element') / g('tests_per_point'):.2f} | "
              f"{g('gflops_per_point'):.0f} / {g('gflops_per_element'):.0f} | "
              f"{g('filtered_l2'):.2e} / {g('unfiltered_l2'):.2e} |")
    print()
    print("| per element's writes (uniform, k = 1) | cells | strategy | per element s | per point s | "
          "per element speed-up |")
    print("|---|---|---|---|---|---|")
    for p in sorted(glob.glob(os.path.join(d, "strategy_*.json"))):
        j = load(p)
        if not j:
            continue
        m = j.get("metrics", {})
        parts = os.path.basename(p)[:-5].split("_")
        print(f"| {parts[1]} | {int(m.get('cells', 0))} | {parts[3]} | {m.get('seconds_per_element', float('nan')):.4f} | "
              f"{m.get('seconds_per_point', float('nan')):.4f} | {m.get('speedup_per_element', float('nan')):.2f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/gpu/siac")
