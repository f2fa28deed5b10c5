#!/usr/bin/env python3
"""Tables of bench/tune_gpu.sh: python3 bench/tune_table.py LOG CASE...

Per case: each run's step time and loop device time against the default (split_off), and per loop taking
10% or more of the default run's loop time: ms per call, GB/s (useful bytes, GUIDE.md), % of the device's
copy bandwidth, occupancy and registers of each run, and the setting run.tune kept."""
import json
import os
import sys

RUNS = ["split_off", "split_gather", "split_fused", "split_auto", "strategy_atomics", "strategy_global",
        "strategy_hierarchical", "tune1", "tune2"]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def top_loops(d):
    return {l["name"]: l for l in d.get("loops", []) if not l.get("parent")}


def loop_time(d):
    return sum(l["seconds"] for l in top_loops(d).values())


def fmt(x, f="%.3f"):
    return f % x if x is not None else "-"


def main():
    log, cases = sys.argv[1], sys.argv[2:]
    for c in cases:
        runs = {r: load(os.path.join(log, "%s_%s.json" % (c, r))) for r in RUNS}
        base = runs["split_off"]
        if not base:
            print("### %s: no default run (split_off)\n" % c)
            continue
        dev = base.get("device") or {}
        copy = dev.get("copy_gb_per_s") or 0
        print("### %s (%s, copy %.0f GB/s)\n" % (c, dev.get("name", "?"), copy))
        print("| run | step ms | loops s (device) | vs default | first step s |")
        print("|---|---:|---:|---:|---:|")
        lt0 = loop_time(base)
        for r in RUNS:
            d = runs[r]
            if not d:
                print("| %s | failed | | | |" % r)
                continue
            lt = loop_time(d)
            print("| %s | %.3f | %.4f | %.3fx | %.3f |" % (r, 1e3 * d.get("step_seconds", 0), lt,
                                                          lt0 / lt if lt > 0 else 0, d.get("first_step_seconds", 0)))
        print()
        big = [n for n, l in top_loops(base).items() if lt0 > 0 and l["seconds"] >= 0.1 * lt0]
        for n in big:
            print("%s (%.0f%% of the default's loop time):\n" % (n, 100 * top_loops(base)[n]["seconds"] / lt0))
            print("| run | ms/call | GB/s | % copy | occupancy | registers | split |")
            print("|---|---:|---:|---:|---:|---:|---|")
            for r in RUNS:
                d = runs[r]
                l = top_loops(d).get(n) if d else None
                if not l or not l["calls"]:
                    continue
                per = l["seconds"] / l["calls"]
                gbs = l["bytes_per_call"] / per * 1e-9 if per > 0 else 0
                print("| %s | %.4f | %.0f | %s | %s | %s | %s |" % (
                    r, 1e3 * per, gbs, "%.0f%%" % (100 * gbs / copy) if copy else "-",
                    fmt(l.get("occupancy"), "%.3f"), fmt(l.get("registers"), "%.0f"), l.get("split", "off")))
            t = top_loops(runs["tune1"]).get(n, {}).get("tuned") if runs["tune1"] else None
            if t and t.get("chosen", -1) >= 0:
                ch = t["trials"][t["chosen"]]
                timed = [x for x in t["trials"] if x.get("seconds") is not None]
                worst = max(timed, key=lambda x: x["seconds"]) if timed else None
                print("\nrun.tune kept %s, block %d, %s: %.4f ms (trial); configured %.4f ms; slowest %s/%d/%s %.4f ms; "
                      "%d settings; trials %.2f s\n" % (
                          ch["strategy"], ch["block_size"], ch["split"], 1e3 * ch["seconds"],
                          1e3 * (t["trials"][0]["seconds"] or 0), worst["strategy"], worst["block_size"],
                          worst["split"], 1e3 * worst["seconds"], len(t["trials"]), t["seconds"]))
            elif t:
                print("\nrun.tune: %s\n" % t.get("note"))
            else:
                print()


if __name__ == "__main__":
    main()
