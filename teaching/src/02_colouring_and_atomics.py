# %% [markdown]
# # 2. Colouring or atomics, and what a plan costs
#
# **Question.** `res_calc` runs over edges and adds into `res` of the edge's two cells (`res(INC, pecell[0])`,
# `res(INC, pecell[1])`). Two threads handling two edges of one cell would race. OP2 and um avoid it in two ways:
# **colouring** (a *plan*: edges cut into blocks, blocks that touch no common cell get one colour and run in
# parallel, colours one after another) or **atomics** (every thread adds with an atomic operation, no plan order).
# What does a plan contain, what does it cost, and how does the block size change it?
#
# **What you will do** (10-15 minutes):
# 1. run Airfoil with `run.strategy` coloured and atomics and read the plan's statistics (`nblocks`,
#    `nblock_colours`, `nplans`, `plan_seconds`) for block sizes 64 to 512;
# 2. **exercise 1**: colour the blocks yourself (greedy, first fit, in block order) from `pecell`, and check you
#    find the engine's number of colours;
# 3. **exercise 2**: check your colouring is valid: no two blocks of one colour touch a common cell.
#
# **What you should see.** Airfoil's blocks need only 2 or 3 colours (a block conflicts only with its
# neighbours); smaller blocks mean more blocks and sometimes more colours. A plan is built once per loop
# (`nplans` = 1 after many calls) and reused: its cost (`plan_seconds`) is paid at the first call. Atomics need
# no colour order and give the same results to rounding (notebook 6: not the same bits).

# %%
import numpy as np
import pandas as pd
import um
from um.examples.airfoil import Airfoil, read_mesh
import lab

mesh = read_mesh(lab.airfoil_mesh(20, 30))
COLUMNS = ["calls", "nblocks", "nblock_colours", "nplans", "plan_seconds", "first_call_seconds", "seconds"]
rows, rms = {}, {}
for strategy in ("coloured", "atomics"):
    for block in (64, 128, 256, 512):
        with um.Context(backend="openmp", threads=2, block_size=block, options={"run.strategy": strategy}) as ctx:
            rms[strategy, block] = Airfoil(ctx, mesh, lab.kernels("airfoil")).run(10, every=10)[10]
            rows[strategy, block] = lab.loop_table(ctx).loc["res_calc", COLUMNS]
plans = pd.DataFrame(rows).T
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
print("engine's:  ", plans.loc["coloured", "nblock_colours"].to_dict())

# %% solution
lab.check(all(mine[b] == plans.loc[("coloured", b), "nblock_colours"] for b in mine),
          "greedy first-fit colouring in block order finds the engine's number of block colours")
lab.check(all(plans.loc[("coloured", b), "nblocks"] == -(-mesh["edges"] // b) for b in mine),
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
# ## Colours or atomics: the results

# %%
for (strategy, block), v in rms.items():
    print("%-9s block %3d  rms %.17e" % (strategy, block, v))
ref = rms["coloured", 256]
lab.check(all(abs(v - ref) <= 1e-12 * ref for v in rms.values()),
          "every strategy and block size gives the same rms to rounding")

# %% [markdown]
# **What to take away.** A plan is a one-off investment (blocks, colours, and on the GPU thread colours within a
# block) that turns a racy loop into a few parallel phases; atomics skip the plan and the phases but pay per
# increment, and add in an unpredictable order. On a GPU the choice matters most: compare
# `umrun configs/airfoil_small.yaml --set run.strategy=atomics` with `coloured` (and `hierarchical`), or let
# `run.tune: once` try them. The plan's picture: notebook 4 shows what a bad numbering does to it.
