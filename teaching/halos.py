"""Airfoil on the ranks of mpirun, for notebook 5: each rank declares its block of the mesh, the cells are
partitioned by PARTITIONER and the other sets follow; then every cell is marked with the rank that owns it (a
direct loop: each rank writes its own cells) and Airfoil runs ITERATIONS iterations. Rank r writes OUT/rank<r>.json:
the owner of every cell (the whole set, as Dat.fetch gathers it), the rms, the partition's facts and res_calc's
halo exchanges.

    mpirun -np 3 python3 teaching/halos.py MESH.h5 OUT [--partitioner rcb] [--iterations 20] [--reproducible]
"""
import argparse
import json
import os
import sys

import um
from um.examples.airfoil import Airfoil, read_mesh

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lab  # noqa: E402

MARK = '#include "um/kernel.h"\nUM_CONST double my_rank;\nUM_KERNEL void mark(double *owner) { owner[0] = my_rank; }\n'


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mesh", help="Airfoil's mesh as an OP2 HDF5 file (the airfoil.h5 umrun writes)")
    ap.add_argument("out", help="the folder for rank<r>.json (made if missing)")
    ap.add_argument("--partitioner", default="rcb", help="block, ranges, rcb, sfc, metis, ptscotch or auto (default rcb)")
    ap.add_argument("--iterations", type=int, default=20, help="Airfoil's iterations (default 20)")
    ap.add_argument("--reproducible", action="store_true", help="run.reproducible: the bits of one process")
    a = ap.parse_args(argv)
    rank, nranks = um.mpi_start()
    with um.Context(backend="seq", reproducible=a.reproducible) as ctx:
        app = Airfoil(ctx, read_mesh(a.mesh, blocks=nranks > 1), lab.kernels("airfoil"), blocks=nranks > 1,
                      partitioner=a.partitioner)
        owner = ctx.dat(app.cells, None, "owner", dim=1)  # declared after distribute: the cells as they are now
        ctx.decl_const("my_rank", float(rank))
        um.par_loop(um.Kernel(MARK, "mark"), app.cells, owner(um.WRITE))
        rms = app.run(a.iterations, every=a.iterations)[a.iterations]
        stats = lab.loop_table(ctx)
        res = stats.loc["res_calc", ["halo_exchanges", "halo_bytes"]]
        out = {"rank": rank, "nranks": nranks, "rms": rms, "partition": getattr(app, "partition", {}),
               "owner": owner.fetch(original_order=True).astype(int).tolist(),
               "res_calc_halo_exchanges": int(res["halo_exchanges"]), "res_calc_halo_bytes": float(res["halo_bytes"])}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "rank%d.json" % rank), "w") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
