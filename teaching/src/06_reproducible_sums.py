# %% [markdown]
# # 6. Why sums differ, and the reproducible mode
#
# **Question.** Run Airfoil on one thread, on two, with colours or with atomics: the printed rms agrees to 15
# digits, not always to the last bit. Is one of them wrong? And how does um's reproducible mode
# (`run.reproducible: true`) give the same bits on every backend, strategy, thread and rank count?
#
# **What you will do** (10-15 minutes):
# 1. **exercise 1**: add the same numbers in different orders, as threads do, and see the last bits change; add
#    them exactly (`math.fsum`) and see the order stop mattering;
# 2. run Airfoil in four configurations (seq; OpenMP with 1 and 2 threads, coloured; OpenMP with atomics);
# 3. **exercise 2**: run the same four with `reproducible=True` and compare the bits.
#
# **What you should see.** Floating-point addition is not associative, so the order in which a loop's increments
# (`res_calc` adding into `res` through `pecell`) and a reduction's partial sums (`update`'s rms) are added
# changes the last bits: every result is right to rounding, none is "the" answer. The reproducible mode fixes the
# order (increments gathered by global element number) and makes the sums exact, so all four runs print the same
# bits.

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
# ## Airfoil in four configurations
# The same 50 iterations on the 1800-cell mesh. `ctx.strategy` is how the backend keeps `res_calc`'s increments
# from racing: colours (blocks of edges that touch no common cell run together) or atomic additions.

# %%
mesh = read_mesh(lab.airfoil_mesh(20, 30))
CONFIGS = {"seq": dict(backend="seq"),
           "openmp 1 thread": dict(backend="openmp", threads=1, options={"run.strategy": "coloured"}),
           "openmp 2 threads": dict(backend="openmp", threads=2, options={"run.strategy": "coloured"}),
           "openmp atomics": dict(backend="openmp", threads=2, options={"run.strategy": "atomics"})}


def rms(reproducible, iterations=50):
    out = {}
    for name, settings in CONFIGS.items():
        with um.Context(reproducible=reproducible, **settings) as ctx:
            out[name] = Airfoil(ctx, mesh, lab.kernels("airfoil")).run(iterations, every=iterations)[iterations]
    return out


plain_rms = rms(False)
for name, v in plain_rms.items():
    print("%-18s %.17e" % (name, v))
print("distinct results:", len(set(plain_rms.values())))

# %% [markdown]
# Sequential runs add `res_calc`'s increments in edge order; the coloured OpenMP runs in the plan's order (block
# colour by block colour), and the atomics in whatever order the threads get there, which can change from one run
# to the next. All are right to rounding.
#
# ## Exercise 2
# Run the four configurations again in reproducible mode (`rms(True)`), into `repro_rms`, and compare.

# %% begin
repro_rms = lab.todo("the four configurations with reproducible=True")

# %% solution
repro_rms = rms(True)
for name, v in repro_rms.items():
    print("%-18s %.17e" % (name, v))

# %% solution
scale = max(plain_rms.values())
lab.check(all(abs(v - scale) <= 1e-12 * scale for v in plain_rms.values()),
          "plain runs agree to rounding (1e-12 relative), whatever their last bits")
lab.check(len(set(repro_rms.values())) == 1,
          "reproducible runs give the same bits on seq, 1 and 2 threads, colours and atomics")

# %% [markdown]
# **What to take away.** Differences in the last bits between thread counts or strategies are the order of
# additions, not a bug; a test that compares them needs a tolerance (um's validation has one per metric). When
# the bits themselves matter (debugging, regression tests, comparing a GPU run with a CPU one), run with
# `run.reproducible: true`: the same bits everywhere, at some cost in speed (try `umrun configs/airfoil_small.yaml
# --set run.reproducible=true` and compare the per-loop times). Notebook 5 shows it across ranks.
