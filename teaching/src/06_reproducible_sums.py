# %% [markdown]
# # 6. Why sums differ, and the reproducible mode
#
# **Question.** Run Airfoil sequentially, on OpenMP with blocks of 256 or 64 edges, or with `res_calc` split
# into contributions and their sums (`run.split`): the printed rms agrees to 15 digits, not to the last bit. Is
# one of them wrong? Why does the number of threads *not* change the bits here? And how does um's reproducible
# mode (`run.reproducible: true`) give the same bits on every backend, strategy, block size, thread and rank
# count?
#
# **What you will do** (10-15 minutes):
# 1. **exercise 1**: add the same numbers in different orders, as threads do, and see the last bits change; add
#    them exactly (`math.fsum`) and see the order stop mattering;
# 2. run Airfoil in six configurations: seq; OpenMP coloured on 1 and 2 threads (blocks of 256), on 2 threads
#    with blocks of 64; OpenMP with `res_calc`'s increments split (`split="scatter"`, `split="gather"`);
# 3. **exercise 2**: run the same six with `reproducible=True` and compare the bits.
#
# **What you should see.** Floating-point addition is not associative, so the order in which a loop's increments
# (`res_calc` adding into `res` through `pecell`) are added changes the last bits: every result is right to
# rounding, none is "the" answer. What sets that order on the CPU is the scheme, not the threads: seq adds in
# edge order, OpenMP's coloured runs in the plan's order (block colour by block colour: another block size,
# another order, but the same order on any number of threads, by design), the split runs in their own. The
# reproducible mode fixes the order (increments gathered by global element number) and makes the sums exact, so
# all six print the same bits.

# %%
import math
import numpy as np
import pandas as pd
import um
from um.examples.airfoil import Airfoil, read_mesh
import lab

print((0.1 + 0.2) + 0.3 == 0.1 + (0.2 + 0.3), (0.1 + 0.2) + 0.3, 0.1 + (0.2 + 0.3))

# %% [markdown]
# ## Exercise 1
# `values` are 100000 numbers of mixed sizes. Compute their sum in the orders below with a plain Python loop
# (`sum(...)`, left to right): forward, reversed, and as 2 "threads" (each sums its half, then the halves are
# added), and 7 threads likewise. Then the same four with `math.fsum` (exact, rounded once). Put the plain sums in
# `plain` and the exact ones in `exact` (dicts by order name).

# %%
rng = np.random.default_rng(61)
values = (rng.standard_normal(100_000) * 10.0 ** rng.integers(-8, 8, 100_000)).tolist()


def threads(v, p, add):
    """p threads: each adds its contiguous chunk, then the p partial sums are added in order."""
    chunks = np.array_split(np.asarray(v), p)
    return add([add(c.tolist()) for c in chunks])

# %% begin
plain = lab.todo("{'forward': ..., 'reversed': ..., '2 threads': ..., '7 threads': ...} with sum")
exact = lab.todo("the same four with math.fsum")

# %% solution
orders = {"forward": lambda add: add(values), "reversed": lambda add: add(values[::-1]),
          "2 threads": lambda add: threads(values, 2, add), "7 threads": lambda add: threads(values, 7, add)}
plain = {name: f(sum) for name, f in orders.items()}
exact = {name: f(math.fsum) for name, f in orders.items()}
pd.DataFrame({"plain": {k: repr(v) for k, v in plain.items()}, "exact": {k: repr(v) for k, v in exact.items()}})

# %% solution
lab.check(len(set(plain.values())) > 1, "plain sums of the same numbers in other orders differ in their last bits")
lab.check(len(set(exact.values())) == 1, "exact sums (fsum) are the same in every order")
lab.check(all(abs(p - exact["forward"]) <= 1e-9 * sum(map(abs, values)) for p in plain.values()),
          "and every plain sum is right to rounding")

# %% [markdown]
# ## Airfoil in six configurations
# The same 50 iterations on the 1800-cell mesh. On OpenMP, `openmp.parallel_threshold: 0` makes every loop run
# on the threads asked for: by default a loop over fewer than 4096 elements runs on one thread (forking costs
# more than it saves), and every loop of this mesh is smaller. `run.strategy` stays coloured throughout: OpenMP's
# atomics take only vector increments (notebook 2), so `res_calc` would run coloured anyway.

# %%
mesh = read_mesh(lab.airfoil_mesh(20, 30))
OMP = dict(backend="openmp", options={"openmp.parallel_threshold": 0, "run.strategy": "coloured"})
CONFIGS = {"seq": dict(backend="seq"),
           "openmp 1 thread": dict(OMP, threads=1),
           "openmp 2 threads": dict(OMP, threads=2),
           "openmp 2 threads, blocks of 64": dict(OMP, threads=2, block_size=64),
           "openmp split scatter": dict(OMP, threads=2, split="scatter"),
           "openmp split gather": dict(OMP, threads=2, split="gather")}


def rms(reproducible, iterations=50):
    out = {}
    for name, settings in CONFIGS.items():
        with um.Context(reproducible=reproducible, **settings) as ctx:
            out[name] = Airfoil(ctx, mesh, lab.kernels("airfoil")).run(iterations, every=iterations)[iterations]
    return out


plain_rms = rms(False)
for name, v in plain_rms.items():
    print("%-32s %.17e" % (name, v))
print("distinct results:", len(set(plain_rms.values())))

# %% [markdown]
# Sequential runs add `res_calc`'s increments in edge order. The coloured OpenMP runs add them in the plan's
# order: a cell's increments come from blocks of different colours, one colour after another, and within a block
# in edge order. Two blocks of one colour never touch one cell, so which thread runs which block cannot change
# that order: 1 and 2 threads give the same bits (and the reductions, such as the rms, are combined in block
# order too). Another block size is another plan, so another order. The split loops store each edge's
# contributions first, then add them: the scatter through the plan of each increment, the gather cell by cell,
# each in its own order. All are right to rounding.
#
# ## Exercise 2
# Run the six configurations again in reproducible mode (`rms(True)`), into `repro_rms`, and compare.

# %% begin
repro_rms = lab.todo("the six configurations with reproducible=True")

# %% solution
repro_rms = rms(True)
for name, v in repro_rms.items():
    print("%-32s %.17e" % (name, v))

# %% solution
scale = max(plain_rms.values())
lab.check(all(abs(v - scale) <= 1e-12 * scale for v in plain_rms.values()),
          "plain runs agree to rounding (1e-12 relative), whatever their last bits")
lab.check(len(set(plain_rms.values())) > 2,
          "plain runs in other orders of addition (seq, block sizes, splits) differ in their last bits")
lab.check(plain_rms["openmp 1 thread"] == plain_rms["openmp 2 threads"],
          "the coloured OpenMP run gives the same bits on 1 and 2 threads: the plan fixes the order")
lab.check(len(set(repro_rms.values())) == 1,
          "reproducible runs give the same bits on seq and OpenMP, 1 and 2 threads, every block size and split")

# %% [markdown]
# **What to take away.** Differences in the last bits between backends, block sizes, splits or strategies are
# the order of additions, not a bug; a test that compares them needs a tolerance (um's validation has one per
# metric). On the CPU that order is fixed by the scheme (same scheme, same bits, on any thread count); on a GPU
# atomics add in whatever order the threads arrive, which can change from one run to the next. When the bits
# themselves matter (debugging, regression tests, comparing a GPU run with a CPU one), run with
# `run.reproducible: true`: the same bits everywhere, at some cost in speed (try `build/bin/umrun
# configs/airfoil_small.yaml --set run.reproducible=true` and compare the per-loop times). Notebook 5 shows it
# across ranks.
