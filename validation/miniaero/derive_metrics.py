#!/usr/bin/env python3
"""Print the reference metrics of a miniAero results file (upstream's format:
x y z rho rhou rhov rhow rhoE per cell, 6 significant digits) as lines for a
validation/miniaero/*.ref.yaml: sums, minima and maxima of the conserved
variables that are not zero by symmetry.

  derive_metrics.py RESULTS [--skip rhov,rhow]

The values are only as precise as the file's 6 digits: every printed value is
within 5e-6 (relative) of upstream's double, so these metrics carry
rel_tol 2e-5. A minimum or maximum that is round-off noise around zero (a
velocity component the flow does not have there) also gets an absolute
tolerance of 1e-9 of the column's largest magnitude. The field comparison of the whole file (fields:) is the
stricter check; these metrics are what a run without output files is held to.
"""
import argparse

NAMES = ["rho", "rhou", "rhov", "rhow", "rhoE"]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--skip", default="")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    cols = [[] for _ in NAMES]
    with open(a.results) as f:
        for line in f:
            v = line.split()
            if not v:
                continue
            for k in range(5):
                cols[k].append(float(v[3 + k]))
    print(f"  - {{name: cells, value: {len(cols[0])}, abs_tol: 0}}")
    for k, n in enumerate(NAMES):
        if n in skip:
            continue
        big = max(abs(v) for v in cols[k])
        print(f"  - {{name: sum_{n}, value: {sum(cols[k]):.9e}, rel_tol: 2.0e-5}}")
        for what, v in (("min", min(cols[k])), ("max", max(cols[k]))):
            noise = f", abs_tol: {1e-9 * big:.1e}" if abs(v) < 1e-9 * big else ""
            print(f"  - {{name: {what}_{n}, value: {v:.6e}, rel_tol: 2.0e-5{noise}}}")

main()
