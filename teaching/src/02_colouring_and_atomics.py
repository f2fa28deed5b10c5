# %% [markdown]
# # 2. Colouring or atomics, and what a plan costs
#
# **Question.** `res_calc` runs over edges and adds into `res` of the edge's two cells (`res(INC, pecell[0])`,
# `res(INC, pecell[1])`). Two threads handling two edges of one cell would race. OP2 and um avoid it in three
# ways: **colouring** (a *plan*: edges cut into blocks, blocks that touch no common cell get one colour and run in
# parallel, colours one after another), **atomics** (every thread adds with an atomic operation, no plan order)
# or a **gather** (each edge stores its contributions, then each cell adds those of its edges: `run.split:
# gather`). What does a plan contain, what does it cost, how does the block size change it, and which of the
# three does this CPU backend really run?
#
# **What you will do** (10-15 minutes):
# 1. run Airfoil coloured on OpenMP (2 threads) and read the plan's statistics (`nblocks`, `nblock_colours`,
#    `nplans`, `plan_seconds`) for block sizes 64 to 512;
# 2. **exercise 1**: colour the blocks yourself (greedy, first fit, in block order) from `pecell`, and check you
#    find the engine's number of colours;
# 3. **exercise 2**: check your colouring is valid: no two blocks of one colour touch a common cell;
# 4. ask for atomics (`run.strategy: atomics`) and for the gather (`split="gather"`), and read what `res_calc`
#    actually ran: the loop table's `strategy`, `split` and `has_plan`.
#
# **What you should see.** Airfoil's blocks need only 2 or 3 colours (a block conflicts only with its
# neighbours); smaller blocks mean more blocks and sometimes more colours. A plan is built once per loop
# (`nplans` = 1 after many calls) and reused: its cost (`plan_seconds`) is paid at the first call. On this CPU
# backend atomics take only *vector* increments (`um_arg_vec`, as in SIAC's `per_element`): `res_calc`'s two
# per-index increments stay coloured when you ask for atomics (the engine warns, and the loop's `strategy` says
# `coloured`), so that run is the coloured run, bit for bit. The gather runs without a plan, colours or atomics,
# and adds in another order: the same results to rounding, not the same bits (notebook 6). On a GPU (`cuda`)
# atomics take every increment.

# %%
import numpy as np
import pandas as pd
import um
from um.examples.airfoil import Airfoil, read_mesh
import lab

mesh = read_mesh(lab.airfoil_mesh(20, 30))


def run_airfoil(block=256, options=None, **settings):
    """10 iterations of Airfoil on OpenMP with 2 threads: its rms and loop table. openmp.parallel_threshold 0:
    loops over fewer elements than the threshold (4096 by default) run on one thread, and this mesh is smaller."""
    options = dict({"openmp.parallel_threshold": 0}, **(options or {}))
    with um.Context(backend="openmp", threads=2, block_size=block, options=options, **settings) as ctx:
        rms = Airfoil(ctx, mesh, lab.kernels("airfoil")).run(10, every=10)[10]
        return rms, lab.loop_table(ctx)


COLUMNS = ["strategy", "calls", "nblocks", "nblock_colours", "nplans", "plan_seconds", "first_call_seconds",
           "seconds"]
rows, rms = {}, {}
for block in (64, 128, 256, 512):
    rms[block], table = run_airfoil(block, {"run.strategy": "coloured"})
    rows[block] = table.loc["res_calc", COLUMNS]
plans = pd.DataFrame(rows).T.infer_objects().rename_axis("block")
plans

# %% [markdown]
# `plan_seconds` is the time to build the plan, paid once (compare it with `seconds / calls`, the time of one
# call: on this small mesh the plan costs about as much as a few calls; on a large one it is amortised over
# thousands of calls).
#
# ## Exercise 1
# Write `block_colours(pecell, ncells, block)`: cut the edges into consecutive blocks of `block` edges; take the
# blocks in order and give each the smallest colour (0, 1, ...) that no earlier block touching one of its cells
# has. Return the list of the blocks' colours. The number of colours is `max + 1`.

# %% begin
def block_colours(pecell, ncells, block):
    return lab.todo("greedy first-fit colours of the blocks of `block` consecutive edges")


block_colours(mesh["pecell"], mesh["cells"], 256)

# %% solution
def block_colours(pecell, ncells, block):
    colours_at = [set() for _ in range(ncells)]      # the colours of the blocks that touched each cell
    out = []
    for start in range(0, len(pecell), block):
        cells = np.unique(pecell[start:start + block])
        used = set().union(*(colours_at[c] for c in cells))
        colour = next(c for c in range(len(used) + 1) if c not in used)
        out.append(colour)
        for c in cells:
            colours_at[c].add(colour)
    return out

# %%
mine = {block: max(block_colours(mesh["pecell"], mesh["cells"], block)) + 1 for block in (64, 128, 256, 512)}
print("my colours:", mine)
print("engine's:  ", plans["nblock_colours"].to_dict())

# %% solution
lab.check(all(mine[b] == plans.loc[b, "nblock_colours"] for b in mine),
          "greedy first-fit colouring in block order finds the engine's number of block colours")
lab.check(all(plans.loc[b, "nblocks"] == -(-mesh["edges"] // b) for b in mine),
          "blocks = edges / block size, rounded up")
lab.check(bool((plans["nplans"] == 1).all()), "each plan was built once and reused by every later call")

# %% [markdown]
# ## The plan, drawn
# Each edge of the mesh as a segment between its two nodes, coloured by its block (left) and by its block's colour
# (right), block size 256, near the airfoil: blocks are runs of consecutive edges, and neighbouring blocks get
# different colours.

# %%
import matplotlib.pyplot as plt
from matplotlib.collections import LineCollection

segments = mesh["p_x"][mesh["pedge"]]                       # (edges, 2 nodes, 2 coordinates)
block_of_edge = np.arange(mesh["edges"]) // 256
colour_of_edge = np.array(block_colours(mesh["pecell"], mesh["cells"], 256))[block_of_edge]
fig, axes = plt.subplots(1, 2, figsize=(12, 5))
for ax, value, cmap, title in ((axes[0], block_of_edge, "tab20", "blocks of 256 edges"),
                               (axes[1], colour_of_edge, "coolwarm", "block colours")):
    ax.add_collection(LineCollection(segments, array=value, cmap=cmap, linewidths=1.2))
    ax.set_xlim(-4, 5), ax.set_ylim(-4, 4), ax.set_aspect("equal"), ax.set_title(title)
plt.show()

# %% [markdown]
# ## Exercise 2
# Check the colouring of block size 256: for each colour, the blocks of that colour must touch disjoint sets of
# cells (each cell in at most one of them). Set `valid` to True or False.

# %% begin
valid = lab.todo("True when no two blocks of one colour share a cell")

# %% solution
colours = block_colours(mesh["pecell"], mesh["cells"], 256)
valid = True
for colour in set(colours):
    cells = [np.unique(mesh["pecell"][i * 256:(i + 1) * 256]) for i, c in enumerate(colours) if c == colour]
    valid &= sum(len(c) for c in cells) == lab.distinct(np.concatenate(cells))
lab.check(valid, "blocks of one colour touch disjoint cells: they can run in parallel without a race")

# %% [markdown]
# ## Atomics on this CPU, and the gather
# OpenMP's atomics (`run.strategy: atomics`) make each increment of a **vector argument** (`um_arg_vec`: every
# target of a map row as one argument) a compare-and-swap. `res_calc`'s kernel adds into `res1[0]`, `res2[0]`
# through plain pointers, one argument per map index, which the backend cannot make atomic: on this backend such
# a loop keeps its plan and colours under `atomics`. The engine says so in a warning, once per loop, and in the
# loop table's `strategy` column, what each loop ran (`ctx.strategy` is the run's setting; `None`: the loop writes
# nothing through a map, so nothing can race).
#
# The CPU's way without colours is the **gather** (`split="gather"`, `run.split: gather`): `res_calc` stores each
# edge's contributions (the generated loop `res_calc:contrib`), then each cell adds those of its edges in a fixed
# order (`res_calc:gather`). No two threads write one cell, so there is no plan, no colour and no atomic, at the
# cost of writing and reading the contributions.

# %%
WAYS = {"coloured": dict(options={"run.strategy": "coloured"}),
        "atomics asked": dict(options={"run.strategy": "atomics"}),
        "gather": dict(split="gather")}
ways, ways_rms = {}, {}
for name, settings in WAYS.items():
    ways_rms[name], table = run_airfoil(256, **settings)
    ways[name] = table.loc["res_calc", ["strategy", "split", "has_plan", "nblocks", "nblock_colours"]]
ways = pd.DataFrame(ways).T.assign(rms=pd.Series(ways_rms).map("{:.17e}".format))
ways

# %%
lab.check(ways.loc["atomics asked", "strategy"] == "coloured"
          and ways.loc["atomics asked", "nblock_colours"] == ways.loc["coloured", "nblock_colours"],
          "asked for atomics, OpenMP ran res_calc's per-index increments on its plan, by colours, and said so")
lab.check(ways_rms["atomics asked"] == ways_rms["coloured"], "so that run is the coloured run, bit for bit")
lab.check(ways.loc["gather", "split"] == "gather" and ways.loc["gather", "has_plan"] == 0
          and pd.isna(ways.loc["gather", "strategy"]), "the gather needs no plan, no colours and no atomics")

# %% [markdown]
# ## The results

# %%
for block, v in rms.items():
    print("coloured block %3d  rms %.17e" % (block, v))
print("gather   block 256  rms %.17e" % ways_rms["gather"])
ref = rms[256]
lab.check(all(abs(v - ref) <= 1e-12 * ref for v in [*rms.values(), *ways_rms.values()]),
          "every block size, colours or the gather, gives the same rms to rounding")

# %% [markdown]
# **What to take away.** A plan is a one-off investment (blocks, colours, and on the GPU thread colours within a
# block) that turns a racy loop into a few parallel phases; atomics skip the plan and the phases but pay per
# increment, and add in an unpredictable order; a gather skips both and pays in memory traffic. Which of them a
# loop ran is a fact to read (its `strategy` and `split`), not the setting to assume: this CPU backend's atomics
# take vector increments only. On a GPU the choice matters most: on a machine with one, compare
# `build/bin/umrun configs/airfoil_small.yaml --set run.backend=cuda --set run.strategy=atomics` with `coloured`
# (and `hierarchical`), or let `run.tune: once` try them. The plan's picture: notebook 4 shows what a bad
# numbering does to it.
