# %% [markdown]
# # 1. What bounds a loop? Useful bytes, operations and the roofline (Airfoil)
#
# **Question.** Airfoil's five loops run on the CPU at a few GB/s. Is that slow? What limits each loop: the
# memory system (bytes that must be moved) or the arithmetic (operations to do)?
#
# **What you will do** (10-15 minutes):
# 1. run Airfoil from Python and read the engine's *useful bytes* per call of each loop;
# 2. **exercise 1**: count `res_calc`'s useful bytes yourself from the mesh, and check you get the engine's number;
# 3. **exercise 2**: with the operations counted in each kernel (from `umrun`'s JSON), compute each loop's
#    arithmetic intensity (ops/byte) and decide which bound applies: the roofline.
#
# **What you should see.** Every Airfoil loop does less than one operation per useful byte, while a CPU can do
# several (of order 10) operations in the time it moves one byte: every loop is bound by memory, so its useful
# GB/s against the machine's copy bandwidth is the number that tells how good it is.

# %%
import numpy as np
import matplotlib.pyplot as plt
import um
from um.examples.airfoil import Airfoil, read_mesh
import lab

mesh_file = lab.airfoil_mesh(20, 30)          # 1800 cells, made by umrun (configs/airfoil_small.yaml, smaller)
mesh = read_mesh(mesh_file)
print({k: (v if np.isscalar(v) else v.shape) for k, v in mesh.items()})

with um.Context(backend="openmp", threads=2) as ctx:
    app = Airfoil(ctx, mesh, lab.kernels("airfoil"))
    for _ in range(10):
        app.step()
    stats = lab.loop_table(ctx)
stats[["calls", "set_size", "bytes", "seconds", "gbs"]]

# %% [markdown]
# `bytes` is the loop's **useful bytes per call**: what must cross the memory bus at least once per call if the
# caches were perfect. The engine counts (docs/output.md):
#
# - each dat the loop uses: every row it touches, once (`READ`, `WRITE`), or twice if it is read *and* written
#   (`RW`, `INC`): rows x dim x 8 bytes for doubles;
# - through a map, only the **distinct** target rows the loop reaches (a loop over boundary edges touches a few
#   cells, not all);
# - each map the loop uses, once: from-set size x arity x 4 bytes.
#
# `res_calc` runs over edges: `x(READ, pedge[0])`, `x(READ, pedge[1])`, `q(READ, pecell[0..1])`,
# `adt(READ, pecell[0..1])`, `res(INC, pecell[0..1])` with `x` of dim 2, `q` and `res` of dim 4, `adt` of dim 1.
#
# ## Exercise 1
# Compute `res_calc_bytes`, the useful bytes of one call of `res_calc`, from `mesh["pedge"]` (edges -> 2 nodes)
# and `mesh["pecell"]` (edges -> 2 cells). `lab.distinct(array)` counts distinct values.
# **You should get exactly** `stats.loc["res_calc", "bytes"]`.

# %% begin
res_calc_bytes = lab.todo("count res_calc's useful bytes per call from mesh['pedge'] and mesh['pecell']")

# %% solution
nodes_touched = lab.distinct(mesh["pedge"])        # x is read through pedge
cells_touched = lab.distinct(mesh["pecell"])       # q, adt read and res incremented through pecell
maps = mesh["pedge"].size * 4 + mesh["pecell"].size * 4
res_calc_bytes = (nodes_touched * 2 * 8            # x: READ, dim 2
                  + cells_touched * 4 * 8          # q: READ, dim 4
                  + cells_touched * 1 * 8          # adt: READ, dim 1
                  + 2 * cells_touched * 4 * 8      # res: INC, dim 4: read and written
                  + maps)
print("nodes touched", nodes_touched, "of", mesh["nodes"], "; cells touched", cells_touched, "of", mesh["cells"])

# %%
print("by hand:", res_calc_bytes, " engine:", stats.loc["res_calc", "bytes"])
lab.check(res_calc_bytes == stats.loc["res_calc", "bytes"], "res_calc's useful bytes counted by hand = the engine's")

# %% [markdown]
# ## Operations and intensity
# `umrun` counts the operations of each kernel in its source (`+ - * /` and math calls, helpers followed) and
# writes them to its JSON. Run the C app on the same mesh, as a suite of one case (`umrun --suite`: it also
# measures the machine, its copy bandwidth and the rate of a multiply-add loop on every thread, before and after
# the runs), and load its results with `um.results`:

# %%
import json
import os
suite = os.path.join(lab.WORK, "airfoil_roofline.yaml")
with open(suite, "w") as f:
    f.write("suite: notebook 1, Airfoil on the lab's mesh\n"
            "cases:\n"
            "  - name: airfoil\n"
            "    config: configs/airfoil_small.yaml\n"
            "    set: [%s, run.iterations=20, params.fused=false, validation.reference=, output.dir=,\n"
            "          run.threads=2]\n"
            "    matrix: {backend: [openmp]}\n" % json.dumps("mesh.file=" + mesh_file))  # quoted: any path
out = os.path.join(lab.WORK, "airfoil_roofline")
lab.umrun("--suite", suite, "--tags", "all", "--out", out)
r = um.results.load(os.path.join(out, "results.json"))
loops = r.loops.set_index("loop")
copy_gbs = r.runs["copy_gb_per_s"].iloc[0]      # um.results.copy_bandwidth: the host's, for a CPU run
host_gflops = r.raw["machine"]["host_peak_fp64_gflop_per_s"]
print("this machine: copy bandwidth %.1f GB/s, a multiply-add loop on every thread %.1f GFLOP/s"
      % (copy_gbs, host_gflops))
loops[["set_size", "bytes_per_call", "ops_estimate", "gb_per_s"]]

# %%
lab.check(bool(np.isfinite(copy_gbs) and copy_gbs > 0 and host_gflops > 0),
          "umrun --suite measured this machine's copy bandwidth and arithmetic rate")

# %%
# the same mesh, the same loops: the C app's useful bytes are the ones the Python run counted
same = all(loops.loc[n, "bytes_per_call"] == stats.loc[n, "bytes"] for n in stats.index)
lab.check(same, "the C app and the Python script count the same useful bytes for every loop")

# %% [markdown]
# ## Exercise 2
# For each loop compute its **arithmetic intensity** `I = ops per call / useful bytes per call` (`ops_estimate` is
# per element: multiply by `set_size`) and the roofline's bound on its speed,
# `min(peak, bandwidth x I)` in GFLOP/s, for a modest machine: `peak_gflops` (2 cores x 3 GHz x 16 double-precision
# operations a cycle: two AVX2 fused multiply-adds) and `bandwidth_gbs` (two channels of DDR4) below. The
# **balance** `peak / bandwidth` is the intensity above which a loop becomes compute-bound. Put `intensity` (a
# Series by loop) and `memory_bound` (a Series of bools) in variables.

# %%
peak_gflops, bandwidth_gbs = 2 * 3.0 * 16, 20.0
balance = peak_gflops / bandwidth_gbs
print("balance: %.1f operations per byte (the modest peak over the copy bandwidth measured here: %.1f; this "
      "machine's multiply-add rate over it: %.1f)" % (balance, peak_gflops / copy_gbs, host_gflops / copy_gbs))

# %% begin
intensity = lab.todo("ops per useful byte of each loop, from loops['ops_estimate'], 'set_size', 'bytes_per_call'")
memory_bound = lab.todo("True where the memory roof is the lower one")

# %% solution
intensity = loops["ops_estimate"] * loops["set_size"] / loops["bytes_per_call"]
attainable = np.minimum(peak_gflops, bandwidth_gbs * intensity)
memory_bound = bandwidth_gbs * intensity < peak_gflops
loops.assign(intensity=intensity, attainable_gflops=attainable, memory_bound=memory_bound)[
    ["ops_estimate", "intensity", "attainable_gflops", "gflop_per_s", "memory_bound"]]

# %%
lab.check(bool((intensity < 1.0).all()), "every Airfoil loop does less than one operation per useful byte")
lab.check(bool(memory_bound.all()), "so every Airfoil loop is bound by memory (intensity below the balance %.1f)" % balance)

# %% [markdown]
# ## The picture
# `um.plots.roofline` draws each loop at (intensity, GFLOP/s) under two roofs, each sloped (copy bandwidth x
# intensity) up to its ridge point (the balance), then flat (the arithmetic rate): the modest CPU of exercise 2,
# passed as `roofs`, and this machine's as `umrun --suite` measured it, the roof the report draws. Every loop
# sits left of the modest CPU's ridge, under its sloped roof. This machine's flat roof is what a plain
# multiply-add loop gets (a floor under the CPU's peak with vector fused multiply-adds), so its ridge is where
# that loop's rate meets the copy bandwidth, not the hardware's balance. (This small mesh fits in the caches, so
# a loop can even beat the copy bandwidth: cache speed, not memory.)

# %%
um.plots.roofline(r, roofs=[("modest CPU", bandwidth_gbs, peak_gflops)])
plt.show()

# %% [markdown]
# **What to take away.** The useful bytes are a property of the loop and the mesh, not of the machine; the
# intensity says which roof applies; for Airfoil it is the memory roof, so *useful GB/s over copy GB/s* (the
# report's "% of copy") is the figure of merit. Try it on the 11250-cell mesh: a suite like the one above with
# `set: [run.threads=2]` only, written to `airfoil.yaml` (`--suite` takes a suite, not a config), then
# `build/bin/umrun --suite airfoil.yaml --tags all --out out/airfoil` from the repository's root, and
# `build/bin/umrun --report r.html out/airfoil/results.json` shows the same numbers in the report's page, with
# this machine's roofline.
