"""The per-call overhead of a par_loop from Python beside the same loop from C (docs/python.md's table).

The loop: y += 2 x, with the sum of y reduced, over N elements, its kernel declared from source in both (so both
run the same compiled host code); CALLS calls a round, ROUNDS rounds after a warm-up, the median round's
microseconds per call. The C side is python/bench/overhead.c, compiled here against libum.so.

    python3 python/bench/overhead.py [--backend seq] [--sizes 1 1000 100000] [--calls 2000] [--rounds 7]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import um
from um._lib import path as LIBUM

SOURCE = ('#include "um/kernel.h"\n'
          "UM_KERNEL void axpy(const double *x, double *y, double *s) { y[0] += 2.0 * x[0]; s[0] += y[0]; }\n")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")


def c_program(tmp):
    exe = os.path.join(tmp, "overhead")
    libdir = os.path.dirname(os.path.abspath(LIBUM))
    inc = [os.path.join(REPO, "engine", "include"), os.path.join(libdir, "..", "engine", "include")]
    subprocess.run(["cc", "-O2", "-o", exe, os.path.join(HERE, "overhead.c")] + ["-I" + i for i in inc] +
                   ["-L" + libdir, "-Wl,-rpath," + libdir, "-lum"], check=True)
    return exe


def c_times(exe, n, calls, rounds, backend):
    out = subprocess.run([exe, str(n), str(calls), str(rounds), backend], input=SOURCE, capture_output=True,
                         text=True, check=True).stdout
    return [float(t) for t in out.split()]


def py_times(n, calls, rounds, backend):
    k = um.Kernel(SOURCE, "axpy", "axpy.h")
    times = []
    with um.Context(backend=backend) as ctx:
        s = ctx.set(n, "s")
        x, y = ctx.dat(s, np.arange(float(n)), "x"), ctx.dat(s, None, "y", dim=1)
        for r in range(rounds + 1):
            t0 = time.perf_counter()
            for _ in range(calls):
                um.par_loop(k, s, x(um.READ), y(um.RW), um.Global(0.0, um.INC))
            if r:
                times.append(1e6 * (time.perf_counter() - t0) / calls)
    return times


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default="seq")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 1000, 100000])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        exe = c_program(tmp)
        print("| elements | C us/call | Python us/call | Python - C (us) |")
        print("|---:|---:|---:|---:|")
        for n in a.sizes:
            calls = max(10, a.calls if n <= 1000 else a.calls // 20)
            c = statistics.median(c_times(exe, n, calls, a.rounds, a.backend))
            p = statistics.median(py_times(n, calls, a.rounds, a.backend))
            print("| %d | %.2f | %.2f | %.2f |" % (n, c, p, p - c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
