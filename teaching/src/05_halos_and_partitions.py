# %% [markdown]
# # 5. Partitions and halos on 3 ranks
#
# **Question.** Under `mpirun -np 3`, each rank owns a third of Airfoil's cells. `res_calc` on an edge between a
# cell of rank 0 and a cell of rank 1 needs both cells' values: where do they come from, and how many are
# exchanged? Does the distributed run compute the same thing as one process?
#
# **What you will do** (10-15 minutes):
# 1. run `teaching/halos.py` on 3 ranks (`mpirun -np 3 python3 halos.py ...`, from the notebook): Airfoil
#    declared by blocks, its cells partitioned by recursive coordinate bisection (`rcb`), every cell marked with
#    its owner; and the same script on one process;
# 2. **exercise 1**: from the owners and `pecell`, find each rank's **halo**: the cells owned by another rank that
#    share an edge with one of its own (the copies it must receive before `res_calc`);
# 3. **exercise 2**: draw the partition (cells coloured by owner) and rank 0's halo.
#
# **What you should see.** Three compact parts; halos only along the cuts; the middle part, with two neighbours,
# has the largest halo and exchanges the most bytes. In reproducible mode the 3 ranks print the same rms bits as
# one process: the halos make the distributed loop the same loop.

# %%
import json
import os
import shutil
import subprocess
import sys
import numpy as np
import matplotlib.pyplot as plt
from matplotlib.collections import PolyCollection
from um.examples.airfoil import read_mesh
import lab

mesh_file = lab.airfoil_mesh(20, 30)
mesh = read_mesh(mesh_file)


def halos(ranks, out):
    """teaching/halos.py on `ranks` ranks (mpirun) or one process; returns each rank's results."""
    cmd = [sys.executable, "halos.py", mesh_file, out, "--partitioner", "rcb", "--reproducible"]
    if ranks > 1:
        cmd = [shutil.which("mpirun"), "--oversubscribe", "-np", str(ranks), *cmd]
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(lab.ENV, OMP_NUM_THREADS="1"), timeout=300)
    if r.returncode != 0:
        raise RuntimeError("%s failed:\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return [json.load(open(os.path.join(out, "rank%d.json" % i))) for i in range(ranks)]


three = halos(3, os.path.join(lab.WORK, "halos3"))
one = halos(1, os.path.join(lab.WORK, "halos1"))
owner = np.array(three[0]["owner"])
print("partition:", three[0]["partition"])
print("cells per rank:", np.bincount(owner).tolist())
for r in three:
    print("rank %d: res_calc exchanged halos %d times, %.0f bytes" % (r["rank"], r["res_calc_halo_exchanges"],
                                                                      r["res_calc_halo_bytes"]))
print("rms on 3 ranks %.17e, on one process %.17e" % (three[0]["rms"], one[0]["rms"]))

# %%
lab.check(all(r["owner"] == three[0]["owner"] for r in three), "every rank sees the same owner for every cell")
lab.check(np.bincount(owner).sum() == mesh["cells"] and set(owner) == {0, 1, 2}, "each cell has one owner of 3")
lab.check(all(r["rms"] == one[0]["rms"] for r in three),
          "reproducible mode: 3 ranks give the bits of one process")

# %% [markdown]
# ## Exercise 1
# An edge is *cut* when its two cells (`mesh["pecell"]`) have different owners. For each rank `r`, compute
# `halo[r]`: the set of cells, owned by another rank, that share an edge with a cell `r` owns. Also count
# `cut`, the number of cut edges. (The partitioner's own `edge_cut` counts the graph it partitioned, which may
# join cells through their nodes too: it need not equal yours.)

# %% begin
halo = lab.todo("{rank: set of halo cells} from owner and mesh['pecell']")

# %% solution
pe = mesh["pecell"]
is_cut = owner[pe[:, 0]] != owner[pe[:, 1]]
cut = int(is_cut.sum())
halo = {}
for r in range(3):
    mine = owner[pe] == r                                   # (edges, 2): which end is rank r's
    halo[r] = set(pe[is_cut & mine[:, 0], 1]) | set(pe[is_cut & mine[:, 1], 0])
print("cut edges:", cut, " halo cells per rank:", {r: len(h) for r, h in halo.items()})

# %% solution
sizes = [len(halo[r]) for r in range(3)]
sent = [three[r]["res_calc_halo_bytes"] for r in range(3)]
lab.check(all(owner[c] != r for r in range(3) for c in halo[r]), "a halo holds only other ranks' cells")
lab.check(all(s > 0 for s in sent), "every rank exchanged halo data for res_calc")
lab.check(int(np.argmax(sizes)) == int(np.argmax(sent)), "the rank with the largest halo exchanges the most bytes")

# %% [markdown]
# ## Exercise 2
# Draw the cells as quadrilaterals (corners `mesh["p_x"][mesh["pcell"]]`) coloured by owner, with rank 0's halo
# cells outlined, into `fig`.

# %% begin
fig = lab.todo("a matplotlib figure: cells coloured by owner, rank 0's halo outlined")

# %% solution
corners = mesh["p_x"][mesh["pcell"]]                        # (cells, 4, 2)
colours = np.array(["tab:blue", "tab:orange", "tab:green"])
fig, ax = plt.subplots(figsize=(6, 8))
ax.add_collection(PolyCollection(corners, facecolors=colours[owner], edgecolors="white", linewidths=0.1))
ax.add_collection(PolyCollection(corners[sorted(halo[0])], facecolors="none", edgecolors="black", linewidths=1.0))
ax.autoscale()
ax.set_aspect("equal")
ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=c) for c in colours] +
          [plt.Rectangle((0, 0), 1, 1, facecolor="none", edgecolor="black")],
          labels=["rank 0", "rank 1", "rank 2", "rank 0's halo"], loc="upper right")
ax.set_title("Airfoil's cells on 3 ranks (rcb)")
plt.show()

# %% [markdown]
# **What to take away.** Each rank runs the loop over its own cells and edges plus, where an edge is cut, a copy of
# the neighbour's cell values (its halo), refreshed before each loop that reads them (`halo exchanges` in umrun's
# table under mpirun). The halo grows with the cut, so a good partition keeps parts compact. Try it with the C app,
# from the repository's root: `mpirun -np 3 build/bin/umrun configs/airfoil_small.yaml --set mpi.partitioner=rcb
# --json a.json` and read the JSON's `partition` (owned, exec halo and non-exec halo per set and rank).
