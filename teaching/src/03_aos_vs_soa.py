# %% [markdown]
# # 3. AoS or SoA: how a dat's values lie in memory
#
# **Question.** Airfoil's `q` holds 4 doubles per cell. Stored *array of structures* (AoS) they lie
# `q[c*4 + k]`: a cell's 4 values side by side; stored *structure of arrays* (SoA), `q[k*N + c]`: all cells'
# component 0, then all component 1, ... Which is better? It depends on **which elements are read at the same
# time**: the same values, the same useful bytes, a different number of memory transactions.
#
# **What you will do** (10-15 minutes):
# 1. run Airfoil with `layout="aos"` and `layout="soa"` (`run.layout`): same results, same useful bytes;
# 2. **exercise 1**: count the 32-byte memory *sectors* a GPU warp (32 consecutive elements, one thread each)
#    touches when each thread reads its element's 4 values, in both layouts, for a direct loop (`update`) and an
#    indirect one (`res_calc` reading `q` through `pecell`);
# 3. **exercise 2**: count the 64-byte cache *lines* one CPU thread touches when it reads one element's 4 values.
#
# **What you should see.** On the GPU-like pattern SoA needs 4 times fewer sectors for the direct loop (the warp's
# reads of one component are contiguous) and fewer for the indirect one; on the CPU-like pattern AoS needs one
# line per element where SoA needs four. This is why GPU codes store directly accessed dats SoA (um's
# `run.layout: soa`, or `auto`: SoA unless a dat is accessed through a map) while AoS is um's default. No timing is
# needed to see it: only addresses.

# %%
import numpy as np
import um
from um.examples.airfoil import Airfoil, read_mesh
import lab

mesh = read_mesh(lab.airfoil_mesh(20, 30))


def run(layout, iterations=20):
    with um.Context(backend="openmp", threads=2, layout=layout) as ctx:
        app = Airfoil(ctx, mesh, lab.kernels("airfoil"))
        rms = app.run(iterations, every=iterations)
        return rms[iterations], app.p_q.layout, app.p_q.fetch(), lab.loop_table(ctx)


runs = {layout: run(layout) for layout in ("aos", "soa")}
for layout, (rms, used, q, stats) in runs.items():
    print("%s: dat q stored %s, rms %.17e" % (layout, used, rms))

# %%
(rms_a, _, q_a, st_a), (rms_s, _, q_s, st_s) = runs["aos"], runs["soa"]
lab.check(runs["soa"][1] == "soa" and runs["aos"][1] == "aos", "the dats are stored as asked")
lab.check(rms_a == rms_s and np.array_equal(q_a, q_s), "the layout changes no result, not even a bit")
lab.check(st_a["bytes"].equals(st_s["bytes"]), "and no loop's useful bytes: the same values must be moved")

# %% [markdown]
# ## Exercise 1: a GPU warp
# A warp is 32 threads that issue each load together; the memory system serves it in 32-byte **sectors**. Thread
# `t` of the warp handles element `e = t` (the first warp). For each component `k = 0..3`, the warp loads
# `q[element, k]`: count the distinct sectors of that load, and sum over `k`.
#
# Write `sectors(cells, layout)`: `cells` are the 32 cells the warp's threads read (for `update`, cells 0..31;
# for `res_calc`, `pecell[0:32, 0]`), `layout` is `"aos"` or `"soa"`; `n = mesh["cells"]` cells, 8-byte doubles.
# Byte address of `q[c, k]`: AoS `(c*4 + k)*8`, SoA `(k*n + c)*8`.

# %%
n = mesh["cells"]
direct_cells = np.arange(32)                 # update: thread t reads cell t
indirect_cells = mesh["pecell"][0:32, 0]     # res_calc: thread t reads cell pecell[t, 0]
print("res_calc's first warp reads cells", indirect_cells)

# %% begin
def sectors(cells, layout):
    return lab.todo("the distinct 32-byte sectors of the 4 loads q[cells, k], k = 0..3, summed over k")


sectors(direct_cells, "aos")  # try it: 128 expected

# %% solution
def address(cells, k, layout):
    cells = np.asarray(cells, dtype=np.int64)
    return (cells * 4 + k) * 8 if layout == "aos" else (k * n + cells) * 8


def sectors(cells, layout):
    return sum(lab.distinct(address(cells, k, layout) // 32) for k in range(4))

# %%
gpu = {(loop, layout): sectors(cells, layout) for loop, cells in (("update", direct_cells),
                                                                    ("res_calc", indirect_cells))
       for layout in ("aos", "soa")}
print(gpu)

# %% solution
lab.check(gpu["update", "aos"] == 4 * gpu["update", "soa"] == 4 * 32,
          "direct loop, GPU warp: AoS 4 x 32 sectors, SoA 4 x 8: 4 times fewer")
lab.check(gpu["res_calc", "soa"] < gpu["res_calc", "aos"],
          "indirect loop, GPU warp: SoA still needs fewer sectors (neighbouring edges reach neighbouring cells)")

# %% [markdown]
# ## Exercise 2: a CPU thread
# On the CPU each thread takes a run of elements and reads **all 4** values of one element before the next. Count
# the distinct 64-byte cache lines one element's 4 values lie in, for every cell, in both layouts:
# `lines_per_element[layout]` = the mean over the cells.

# %% begin
lines_per_element = lab.todo("{'aos': mean lines per cell, 'soa': mean lines per cell} for 64-byte lines")

# %% solution
cells = np.arange(n)
lines_per_element = {}
for layout in ("aos", "soa"):
    lines = np.stack([address(cells, k, layout) // 64 for k in range(4)], axis=1)
    lines_per_element[layout] = np.mean([len(set(row)) for row in lines])
print(lines_per_element)
lab.check(lines_per_element["aos"] == 1.0 and lines_per_element["soa"] == 4.0,
          "CPU thread: AoS one line per element, SoA four")

# %% [markdown]
# **What to take away.** A layout is good when the values read *at the same time* are *next to each other*:
# the 32 threads of a warp reading one component (SoA), or one thread reading one element's components (AoS).
# The useful bytes are the same; the transactions are not. Try it on a GPU:
# `umrun configs/airfoil_small.yaml --set run.layout=soa` against `aos`, and compare the per-loop GB/s.
