#!/usr/bin/env python3
"""Merge the per-rank gold files of one of upstream miniAero's *_Parallel tests
(results.<rank>.gold: each rank's owned cells, in its local numbering) into one
file in the cell order of a one-rank run: the cells sorted by centre x, then y,
then z, which is upstream's (and our) numbering c = (i*ny + j)*nz + k, since x
depends on i only, y grows with j within a column (also on the ramp) and z
depends on k only. Lines are kept as upstream printed them.

  merge_parallel_gold.py kokkos/tests/Ramp_Parallel > ramp_parallel.results.gold
"""
import glob, os, sys

lines = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "results.*.gold"))):
    with open(f) as fh:
        lines += [l.rstrip("\n") for l in fh if l.strip()]
lines.sort(key=lambda l: tuple(float(v) for v in l.split()[:3]))
keys = [tuple(l.split()[:3]) for l in lines]
if len(set(keys)) != len(keys):
    sys.exit("two cells print the same centre: the order would be ambiguous")
sys.stdout.write("".join(l + "\n" for l in lines))
