# %% [markdown]
# # 7. Six apps side by side
#
# **Question.** um runs six applications: Airfoil (finite volumes, edges), Volna (shallow water, tsunamis),
# BookLeaf (Lagrangian hydrodynamics), LULESH (hexahedral shock hydrodynamics), miniAero (compressible
# Navier-Stokes) and SIAC (filtering of discontinuous Galerkin fields). Do they stress the machine the same way?
# Where does each spend its time, and which could be limited by arithmetic rather than memory?
#
# **What you will do** (10-15 minutes):
# 1. run the six small cases with `umrun --suite teaching/six_apps.yaml --tags all` (a few seconds) and load its
#    `results.json` with `um.results`;
# 2. **exercise 1**: per app, the loops that take most of the time (the profile);
# 3. **exercise 2**: per app, the highest arithmetic intensity (counted ops per useful byte) of its loops, and which
#    apps have a loop above the balance of a modest CPU (4.8 ops/byte, notebook 1).
#
# **What you should see.** Most of each run is in one to three loops (Airfoil's `res_calc`, miniAero's
# `flux_faces`, LULESH's `volume_force` and `kinematics_gradients`, ...). Airfoil, Volna and BookLeaf stay well
# below the balance: memory-bound everywhere. LULESH's and miniAero's heavy kernels do 8 to 9 operations per
# byte, above it. SIAC's kernels run over trip counts known only at run time, so their operations cannot be
# counted from the source (`ops_unknown` in the JSON says why); SIAC counts them itself as it runs (its
# `gflops_<loop>` metrics, a lower bound: `ops_per_byte_run`), and they come to hundreds of operations per byte:
# the most arithmetic-bound of the six, as the report and docs/teaching.md show it.

# %%
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import um
import lab

s = um.results.load(lab.six_apps())
print(s.runs[["id", "app", "suite_status", "run_seconds", "threads"]])
own = s.loops[s.loops["parent"].isna()]          # the apps' own loops (not those a split generated)
own[["app", "loop", "calls", "percent", "bytes_per_call", "ops_estimate", "ops_per_byte", "ops_per_byte_run",
     "gb_per_s"]].head(12)

# %%
lab.check(sorted(s.runs["app"]) == sorted(["airfoil", "volna", "bookleaf", "lulesh", "miniaero", "siac"])
          and bool((s.runs["suite_status"] == "pass").all()), "six apps ran, each passed")

# %% [markdown]
# ## Exercise 1: the profile
# For each app, the share of its run (`percent`) in its top 3 loops: a DataFrame `profile` with one row per app
# and the columns `top_loop`, `top_percent`, `top3_percent`. (Timings on a busy machine move by several percent
# from run to run: read them, do not compare them to the decimal.)

# %% begin
profile = lab.todo("per app: its loop of largest percent, that percent, and the sum of its top 3 percents")

# %% solution
def top(loops):
    t = loops.sort_values("percent", ascending=False)
    return pd.Series({"top_loop": t["loop"].iloc[0], "top_percent": t["percent"].iloc[0],
                      "top3_percent": t["percent"].iloc[:3].sum()})


profile = own.groupby("app").apply(top)
profile

# %% solution
lab.check(bool((profile["top3_percent"] <= 100.0 + 1e-6).all()), "a run's loop shares add up to at most 100 %")

# %% [markdown]
# ## Exercise 2: which bound?
# `ops_per_byte` is counted from each kernel's source and the mesh (not timed: the same on every machine); where
# the source cannot be counted (SIAC's loops), `ops_per_byte_run` is the app's own count as it ran (its
# `gflops_<loop>` metric times `seconds_<loop>`: a lower bound, the report's "≥"). For each app, the largest
# intensity of its loops, `ops_per_byte` or else `ops_per_byte_run` (NaN where a loop has neither), into
# `peak_intensity` (a Series by app), and the set `compute_candidates` of the apps with a loop above `balance`.

# %%
balance = 2 * 3.0 * 16 / 20.0        # notebook 1's modest CPU: 96 GFLOP/s over 20 GB/s

# %% begin
peak_intensity = lab.todo("per app, the largest ops_per_byte (else ops_per_byte_run) of its loops")
compute_candidates = lab.todo("the apps with a loop above the balance")

# %% solution
intensity = own["ops_per_byte"].fillna(own["ops_per_byte_run"])
peak_intensity = intensity.groupby(own["app"]).max()
compute_candidates = set(peak_intensity[peak_intensity > balance].index)
print(peak_intensity.round(2).to_dict())
print("above the balance of %.1f ops/byte:" % balance, sorted(compute_candidates))

# %% solution
lab.check(compute_candidates == {"lulesh", "miniaero", "siac"},
          "LULESH, miniAero and SIAC have loops that can be bound by arithmetic on this CPU")
lab.check(all(peak_intensity[a] < 3.0 for a in ("airfoil", "volna", "bookleaf")),
          "Airfoil, Volna and BookLeaf stay below 3 ops/byte: memory-bound everywhere")
siac = own[own["app"] == "siac"]
lab.check(bool(siac["ops_estimate"].isna().all()) and peak_intensity["siac"] > 10 * balance,
          "SIAC's counts are unknown in its source, but its own count puts it over ten times the balance")

# %% [markdown]
# ## The pictures
# The report's figures, for the six runs: useful GB/s per loop against the copy bandwidth, and the roofline
# (SIAC's loops at their own count, marked ≥).

# %%
fig, ax = plt.subplots(figsize=(12, 4))
um.plots.bandwidth(s, ax=ax)
plt.show()
um.plots.roofline(s)
plt.show()

# %% [markdown]
# **What to take away.** The apps differ less in *how fast* than in *what limits them*: most loops move data and
# do little with it; a few heavy kernels (LULESH, miniAero) are dense in arithmetic, and SIAC's filter far more,
# where vectorisation and the GPU's compute roof matter. The whole picture for a class, from the repository's
# root: `build/bin/umrun --suite validation/suite.yaml --tags quick --out out/quick` then `build/bin/umrun
# --report report.html out/quick/results.json`.
