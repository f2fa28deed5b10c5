#!/usr/bin/env python3
"""Are two builds of um the same, bit for bit, on every app's references?

    scripts/compare-builds.py A/bin/umrun B/bin/umrun [--tags quick,split] [--out DIR]
    scripts/compare-builds.py --dirs SUITE_OUT_A SUITE_OUT_B

Runs `umrun --suite validation/suite.yaml --tags TAGS` with each umrun (default tags quick,split: every
app's small references on seq and OpenMP, both layouts, reorderings, split loops and reproducible mode),
or takes two suite output folders, and compares every run's metrics (runs/*.json, written by umrun with
17 significant digits, so equal text is equal bits) and every validated value. Timings are left out
(names with seconds, ms_per, per_second, gb_s, gflops, speedup: times, and rates and ratios of times).
Prints one line per run and a summary; exits 1 if any run is missing on one side, failed on one side, or
differs in any metric.

Use it to show that a refactor changed no result: build the previous commit and the new one
(scripts/build-offline.sh or cmake), then run this with both umruns.
"""
import argparse
import json
import os
import re
import subprocess
import sys

TIMING = re.compile(r"seconds|ms_per|per_second|gb_s|gflops|speedup|_time$|bandwidth", re.I)


def run_suite(umrun, tags, out):
    cmd = [umrun, "--suite", "validation/suite.yaml", "--tags", tags, "--out", out]
    print("running:", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = os.path.join(out, "compare-builds.log")
    os.makedirs(out, exist_ok=True)
    with open(log, "w") as f:
        f.write(r.stdout)
    last = [l for l in r.stdout.splitlines() if l.strip()][-1:] or ["(no output)"]
    print("  exit %d: %s" % (r.returncode, last[0]), flush=True)


def values(path):
    """The run's metrics and validated values as {name: text}, timings left out."""
    with open(path) as f:
        d = json.load(f)
    out = {}
    for k, v in (d.get("metrics") or {}).items():
        if not TIMING.search(k):
            out["metric " + k] = json.dumps(v)
    val = d.get("validation") or {}
    for m in val.get("metrics") or []:
        name = m.get("name", "?")
        if not TIMING.search(name):
            out["validated " + name] = json.dumps(m.get("got"))
    out["status"] = json.dumps(d.get("status"))
    out["validation passed"] = json.dumps(val.get("passed", val.get("status")))
    return out


def compare(a, b):
    ra, rb = os.path.join(a, "runs"), os.path.join(b, "runs")
    na = sorted(f for f in os.listdir(ra) if f.endswith(".json")) if os.path.isdir(ra) else []
    nb = sorted(f for f in os.listdir(rb) if f.endswith(".json")) if os.path.isdir(rb) else []
    if not na:
        print("no runs in %s" % ra)
        return 1
    bad = 0
    nvals = 0
    for name in sorted(set(na) | set(nb)):
        if name not in na or name not in nb:
            print("MISSING  %s (only in %s)" % (name, a if name in na else b))
            bad += 1
            continue
        try:
            va, vb = values(os.path.join(ra, name)), values(os.path.join(rb, name))
        except (OSError, ValueError) as e:
            print("UNREADABLE %s: %s" % (name, e))
            bad += 1
            continue
        diff = [k for k in sorted(set(va) | set(vb)) if va.get(k) != vb.get(k)]
        nvals += len(va)
        if diff:
            bad += 1
            print("DIFFERS  %s: %s" % (name, "; ".join("%s %s vs %s" % (k, va.get(k), vb.get(k)) for k in diff[:4])))
        else:
            print("same     %s (%d values)" % (name, len(va)))
    print("%d runs, %d values compared: %s" % (len(set(na) | set(nb)), nvals,
                                               "all bit-identical" if not bad else "%d runs differ" % bad))
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("umrun", nargs="*", help="the two umrun programs (A, then B)")
    p.add_argument("--tags", default="quick,split", help="suite tags to run (default quick,split)")
    p.add_argument("--out", default="out/compare-builds", help="where the two suites write (DIR/a, DIR/b)")
    p.add_argument("--dirs", nargs=2, metavar=("A", "B"), help="compare two suite output folders instead")
    o = p.parse_args()
    if o.dirs:
        return compare(*o.dirs)
    if len(o.umrun) != 2:
        p.error("give two umrun programs, or --dirs A B")
    for u in o.umrun:
        if not os.access(u, os.X_OK):
            p.error("%s is not an executable umrun" % u)
    a, b = os.path.join(o.out, "a"), os.path.join(o.out, "b")
    run_suite(o.umrun[0], o.tags, a)
    run_suite(o.umrun[1], o.tags, b)
    return compare(a, b)


if __name__ == "__main__":
    sys.exit(main())
