# %% [markdown]
# # 4. Reordering for locality: GPS and METIS
#
# **Question.** A mesh from a generator or a file comes in *some* numbering. Does the numbering matter when every
# loop visits every element anyway? What do `run.reorder: gps` (Scotch's Gibbs-Poole-Stockmeyer ordering, a
# bandwidth-reducing numbering) and `run.reorder: partition` (METIS parts, numbered part by part) change?
#
# **What you will do** (10-15 minutes):
# 1. take Airfoil's mesh and **shuffle** its cells and edges (a worst case: a numbering with no locality);
# 2. **exercise 1**: measure locality: for each block of 256 consecutive edges (what one thread or GPU block
#    handles), the distinct 64-byte cache lines of `q` (4 doubles per cell) it reaches through `pecell`;
# 3. **exercise 2**: renumber the shuffled mesh with `ctx.reorder("gps", pecell)` and with
#    `ctx.reorder("partition", pecell)` and measure again, with the plan's block colours.
#
# **What you should see.** Shuffled, each block's 256 edges reach cells all over the mesh: about 4 times more
# cache lines per block than in the generator's order, and every block conflicts with every other, so the plan
# needs one colour per block (no parallelism left). GPS brings both back to the generator's level (2 colours);
# METIS partitions do most of the way. The results do not change (beyond rounding: another order of additions).
# On Volna's mesh, read from a file, the same renumberings halve the cache lines each block reaches.

# %%
import numpy as np
import pandas as pd
import um
from um.examples.airfoil import Airfoil, read_mesh
import lab

mesh = read_mesh(lab.airfoil_mesh(20, 30))


def shuffled(mesh, seed=4):
    """The same mesh with its cells and edges numbered at random (nodes and boundary edges kept)."""
    rng = np.random.default_rng(seed)
    m = dict(mesh)
    cell_order = rng.permutation(mesh["cells"])            # new cell i is old cell cell_order[i]
    new_number = np.argsort(cell_order).astype(np.int32)   # old cell c is new cell new_number[c]
    edge_order = rng.permutation(mesh["edges"])
    m["pcell"] = mesh["pcell"][cell_order]
    m["pecell"] = new_number[mesh["pecell"][edge_order]]
    m["pedge"] = mesh["pedge"][edge_order]
    m["pbecell"] = new_number[mesh["pbecell"]]
    return m


bad = shuffled(mesh)
print("first edges' cells, generator order:", mesh["pecell"][:4].tolist(), " shuffled:", bad["pecell"][:4].tolist())

# %% [markdown]
# ## Exercise 1
# Write `lines_per_block(pecell, block=256)`: the mean, over the blocks of `block` consecutive edges, of the
# number of distinct 64-byte lines of `q` the block's edges reach (cell `c`'s values lie at bytes
# `c*32 .. c*32+31`, AoS). Compare the generator's order with the shuffled one.

# %% begin
def lines_per_block(pecell, block=256):
    return lab.todo("mean distinct 64-byte lines of q reached per block of edges")


lines_per_block(mesh["pecell"])

# %% solution
def lines_per_block(pecell, block=256):
    return float(np.mean([lab.distinct(pecell[i:i + block] * 32 // 64) for i in range(0, len(pecell), block)]))

# %%
print("lines per block: generator order %.1f, shuffled %.1f" % (lines_per_block(mesh["pecell"]),
                                                                lines_per_block(bad["pecell"])))

# %% [markdown]
# ## Exercise 2
# `run(m, method)` below runs 10 iterations of Airfoil on mesh `m`, first renumbering it with
# `ctx.reorder(method, app.pecell)` unless `method` is None, and returns the rms, the renumbered `pecell`
# (`app.pecell.fetch()`) and the plan's statistics of `res_calc`. Fill the table `table` with one row per case,
# indexed by the case's name: "generator" (`run(mesh, None)`), "shuffled" (`run(bad, None)`), "shuffled + gps"
# (`run(bad, "gps")`) and "shuffled + partition" (`run(bad, "partition")`), and the columns `lines_per_block`,
# `nblocks`, `nblock_colours`, `rms`.

# %%
def run(m, method):
    with um.Context(backend="openmp", threads=2) as ctx:
        app = Airfoil(ctx, m, lab.kernels("airfoil"))
        if method:
            print(method, ctx.reorder(method, app.pecell))
        rms = app.run(10, every=10)[10]
        return rms, app.pecell.fetch(), lab.loop_table(ctx).loc["res_calc"]

# %% begin
table = lab.todo("a DataFrame: one row per case, columns lines_per_block, nblocks, nblock_colours, rms")

# %% solution
cases = {"generator": (mesh, None), "shuffled": (bad, None), "shuffled + gps": (bad, "gps"),
         "shuffled + partition": (bad, "partition")}
rows = {}
for name, (m, method) in cases.items():
    rms, pecell, st = run(m, method)
    rows[name] = {"lines_per_block": lines_per_block(pecell), "nblocks": st["nblocks"],
                  "nblock_colours": st["nblock_colours"], "rms": rms}
table = pd.DataFrame(rows).T
table

# %% solution
t = table
lab.check(t.loc["shuffled", "lines_per_block"] > 3 * t.loc["generator", "lines_per_block"],
          "a random numbering reaches over 3 times more cache lines of q per block of edges")
lab.check(t.loc["shuffled", "nblock_colours"] == t.loc["shuffled", "nblocks"],
          "and its plan needs one colour per block: no two blocks can run together")
lab.check(t.loc["shuffled + gps", "lines_per_block"] <= 1.1 * t.loc["generator", "lines_per_block"]
          and t.loc["shuffled + gps", "nblock_colours"] <= t.loc["generator", "nblock_colours"],
          "GPS brings lines per block and colours back to the generator's level")
lab.check(t.loc["shuffled + partition", "lines_per_block"] < 0.5 * t.loc["shuffled", "lines_per_block"]
          and t.loc["shuffled + partition", "nblock_colours"] < t.loc["shuffled", "nblock_colours"],
          "METIS parts at least halve the lines per block and cut the colours")
lab.check(all(abs(r - t.loc["generator", "rms"]) <= 1e-12 * t.loc["generator", "rms"] for r in t["rms"]),
          "the numbering changes the results only by rounding")

# %% [markdown]
# ## Volna's mesh, read from a file
# The same measure on a real unstructured mesh: Volna's landslide case (a Gmsh triangulation) through `umrun`, with
# `run.reorder` none, gps and partition. The plan's statistics in the JSON count, for its indirect loop
# (`SpaceDiscretization`), the mean distinct cache lines a block reaches (`plan_cache_lines_mean`) and the uses of
# each value it reaches (`plan_reuse_factor`).

# %%
import os
volna = {}
for method in ("none", "gps", "partition"):
    path = os.path.join(lab.WORK, "volna_%s.json" % method)
    lab.umrun("apps/volna/configs/volna_landslide_small.yaml", "--quiet", "--set", "run.reorder=" + method,
              "--set", "run.backend=openmp", "--set", "run.threads=2", "--json", path)
    loops = um.results.load(path).loops.set_index("loop")
    volna[method] = loops.loc["SpaceDiscretization", ["plan_blocks", "plan_block_colours", "plan_cache_lines_mean",
                                                      "plan_reuse_factor"]]
volna = pd.DataFrame(volna).T
volna

# %% solution
lab.check(all(volna.loc[m, "plan_cache_lines_mean"] < 0.6 * volna.loc["none", "plan_cache_lines_mean"]
              and volna.loc[m, "plan_reuse_factor"] > volna.loc["none", "plan_reuse_factor"] for m in ("gps", "partition")),
          "on Volna's mesh as read, GPS and METIS cut the cache lines per block by over 40 % and raise the reuse")

# %% [markdown]
# **What to take away.** Locality is a property of the numbering: the same loop over the same mesh reaches 4 times
# more cache lines and loses all its parallel colours when the numbering is random. A bandwidth-reducing order
# (GPS) or a partition-by-partition order (METIS) restores it, once, before the run (`run.reorder`, saved with
# `run.reorder_file`). A mesh read from a file (Volna's) gains too: compare the GB/s of
# `umrun apps/volna/configs/volna_landslide_small.yaml --set run.reorder=gps` against `none` on a larger case.
