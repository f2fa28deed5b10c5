#!/usr/bin/env python3
"""The table of bench/ncu_loops.sh: python3 bench/ncu_table.py NCU.csv RUN.json

Names each profiled launch by its kernel's name: the CUDA backend names a loop's kernels after it
(um_loop_<loop>, um_reduce_<loop>, the loop's name with every byte outside [A-Za-z0-9_] as '_'), keeps the
loops taking 8% or more of the loop time in the run's JSON, and prints one row per loop: what ncu measured
of its first launch. A split loop (run.split, run.reproducible) runs as the loops it generates instead:
<loop>:contrib (um_loop_<loop>_contrib), then its gather (um_gather_d/f/i, a kernel every gather shares: the
first gather launch after the contribution loop's is counted as this loop's) or its <loop>:inc<i> loops."""
import csv
import io
import json
import re
import sys


def symbol(loop):
    """The loop kernel's name (engine/src/backends/cuda/codegen.h: umc_kernel_symbol)."""
    return "um_loop_" + re.sub(r"[^A-Za-z0-9_]", "_", loop)[:96]


def num(x):
    try:
        return float(x.replace(",", ""))
    except (AttributeError, ValueError):
        return float("nan")


def main():
    text = open(sys.argv[1]).read()
    rows = list(csv.reader(io.StringIO(text[text.index('"ID"'):])))
    head = rows[0]
    run = json.load(open(sys.argv[2]))
    loops = [l for l in run["loops"] if not l.get("parent")]
    total = sum(l["seconds"] for l in loops) or 1.0
    big = []
    for l in (l for l in loops if l["seconds"] >= 0.08 * total):  # a split loop: the loops it generated
        kids = [k for k in run["loops"] if k.get("parent") == l["name"] and k.get("calls")]
        big += kids if kids else [l]
    print("| loop | share | regs | grid x block | us | warps | DRAM | L2 thr. | L2 hit | L2 red sectors | FP64 | mem. stall | local loads (MB) |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    seen, picked = set(), []
    by_symbol = {symbol(l["name"]): l for l in big}
    last_contrib = None
    for r in rows[2:]:
        d = dict(zip(head, r))
        kernel = d.get("Kernel Name", "").split("(")[0].strip()
        l = by_symbol.get(kernel)
        if l is not None and l["name"].endswith(":contrib"):
            last_contrib = l["name"][: -len(":contrib")]
        if l is None and kernel.startswith("um_gather_") and last_contrib:
            l = next((x for x in big if x["name"] == last_contrib + ":gather"), None)
            last_contrib = None
        if l is None or l["name"] in seen:
            continue
        seen.add(l["name"])
        picked.append((l, d, int(num(d["launch__registers_per_thread"])), int(num(d["launch__grid_size"])),
                       int(num(d["launch__block_size"]))))
    for l, d, reg, grid, bs in sorted(picked, key=lambda p: -p[0]["seconds"]):
        print("| %s | %.0f%% | %d | %d x %d | %.1f | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.1fM | %.0f%% | %.0f%% | %.0f |" % (
            l["name"], 100 * l["seconds"] / total, reg, grid, bs, num(d["gpu__time_duration.sum"]) / 1e3,
            num(d["sm__warps_active.avg.pct_of_peak_sustained_active"]),
            num(d["dram__throughput.avg.pct_of_peak_sustained_elapsed"]),
            num(d["lts__throughput.avg.pct_of_peak_sustained_elapsed"]), num(d["lts__t_sector_hit_rate.pct"]),
            num(d["lts__t_sectors_op_red.sum"]) / 1e6,
            num(d["sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"]),
            num(d["smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct"]),
            num(d["l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"]) / 1e6))
    missing = [l["name"] for l in big if l["name"] not in seen]
    if missing:
        print("\nnot among the profiled launches (raise COUNT): " + ", ".join(missing))


if __name__ == "__main__":
    main()
