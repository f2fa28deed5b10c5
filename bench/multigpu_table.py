#!/usr/bin/env python3
"""The multi-GPU scaling table (bench/multigpu.sh): one row per run JSON named <case>_np<P>_<transport>[_g].json
(_g: cuda.graphs=1).

loops s      total_seconds - setup_seconds - compile s (the loops and the host's stepping, rank 0's clock)
compile s    NVRTC compilation during the loops (rank 0's compile_seconds; 0 with a warm module cache)
plan s       plans built during the loops (rank 0's plan_seconds; inside loops s: a first-cycle cost that a
             short run does not amortise)
speed-up     over the case's 1-rank run (with the same cuda.graphs setting)
first s      the app's first step (uploads, plans, compilation; `first_step_seconds`), "-" if the app did not say
step ms      the steady time per step after the first (`step_seconds`): the whole step, one-off costs left out
step x       its speed-up over the case's 1-rank run
graphs       calls run inside replayed CUDA graphs / all calls (rank 0), "-" without graphs
halo s       the slowest loop's halo time left exposed, summed over loops (rank 0)
hidden       hidden / (hidden + exposed) over every loop's halo (rank 0)
top loop     the loop with the most time on the slowest rank, and its share
"""
import json
import os
import re
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def compile_of(d):
    return sum(lp.get("compile_seconds", 0.0) or 0.0 for lp in d.get("loops", []))


def plan_of(d):
    return sum(lp.get("plan_seconds", 0.0) or 0.0 for lp in d.get("loops", []))


def loops_of(d):
    return d["total_seconds"] - d["setup_seconds"] - compile_of(d)


def main(paths):
    rows = []
    for p in paths:
        m = re.match(r"(.+)_np(\d+)_([a-z]+(?:_g)?)\.json$", os.path.basename(p))
        if not m:
            continue
        try:
            d = load(p)
        except (OSError, ValueError) as e:
            rows.append((m.group(1), int(m.group(2)), m.group(3), None, str(e)))
            continue
        rows.append((m.group(1), int(m.group(2)), m.group(3), d, ""))
    base, sbase = {}, {}
    for case, np_, tr, d, _ in rows:
        if d and np_ == 1:
            base[(case, tr.endswith("_g"))] = loops_of(d)
            if d.get("step_seconds"):
                sbase[(case, tr.endswith("_g"))] = d["step_seconds"]
    print("| case | GPUs | transport | graphs | loops s | speed-up | first s | step ms | step x | setup s | compile s | plan s | halo exposed s | hidden | top loop (share) | status |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case, np_, tr, d, err in sorted(rows, key=lambda r: (r[0], r[1], r[2])):
        if not d:
            print(f"| {case} | {np_} | {tr} | | | | | | | | | | | | | no JSON: {err} |")
            continue
        loops = loops_of(d)
        exposed = hidden = 0.0
        top, top_s, all_s = "", 0.0, 0.0
        calls = graphed = 0
        for lp in d.get("loops", []):
            if lp.get("parent"):
                continue
            calls += lp.get("calls", 0) or 0
            graphed += lp.get("graph_calls", 0) or 0
            h = lp.get("halo") or {}
            exposed += h.get("seconds", 0.0)
            hidden += h.get("hidden_seconds", 0.0)
            s = lp.get("seconds_rank_max", lp.get("seconds", 0.0)) or lp.get("seconds", 0.0)
            all_s += s
            if s > top_s:
                top, top_s = lp["name"], s
        share = f"{100 * hidden / (hidden + exposed):.0f}%" if hidden + exposed > 0 else "-"
        key = (case, tr.endswith("_g"))
        sp = f"{base[key] / loops:.2f}x" if key in base and loops > 0 else "-"
        gr = f"{100 * graphed / calls:.0f}%" if tr.endswith("_g") and calls else "-"
        tr_used = (d.get("partition") or {}).get("transport", "-") if np_ > 1 else "-"
        v = d.get("validation") or {}
        status = d.get("status", "?")
        if isinstance(v, dict) and "pass" in v:
            status += ", PASS" if v["pass"] else f", FAIL ({v.get('nfail')} metrics)"
        topc = f"{top} ({100 * top_s / all_s:.0f}%)" if all_s > 0 else "-"
        st = d.get("step_seconds")
        first = f"{d['first_step_seconds']:.2f}" if st else "-"
        stms = f"{1e3 * st:.3f}" if st else "-"
        stx = f"{sbase[key] / st:.2f}x" if st and key in sbase and np_ > 1 else "-"
        print(f"| {case} | {np_} | {tr_used} | {gr} | {loops:.3f} | {sp} | {first} | {stms} | {stx} | {d['setup_seconds']:.1f} | {compile_of(d):.1f} | {plan_of(d):.1f} | {exposed:.3f} | {share} | {topc} | {status} |")


if __name__ == "__main__":
    main(sys.argv[1:])
