"""Airfoil (OP2's benchmark) written in Python over um: the mesh from an OP2 HDF5 file (new_grid.h5, or the
airfoil.h5 umrun writes), the five loops of OP2's Airfoil with the kernels of apps/airfoil/airfoil_kernels.h, and
the rms of the update every 100 iterations, as the C app (apps/airfoil/airfoil.c) prints it.

    python3 -m um.examples.airfoil MESH.h5 [KERNELS.h] [--backend openmp] [--iterations 1000]
    mpirun -np 2 python3 -m um.examples.airfoil MESH.h5   # by blocks on 2 ranks

KERNELS.h defaults to apps/airfoil/airfoil_kernels.h as um.data_file finds it (an installed um's share/um, or the
checkout).
"""
import argparse
import math
import sys

import numpy as np

import um

LOOPS = ("save_soln", "adt_calc", "res_calc", "bres_calc", "update")


def constants():
    """gam, gm1, cfl, eps and the free stream qinf as upstream sets them: from single-precision literals (1.4f,
    0.9f, ...), on which the published residuals depend."""
    f = lambda x: float(np.float32(x))  # noqa: E731  (a C float literal, widened to double)
    gam = f(1.4)
    gm1 = gam - 1.0
    cfl, eps, mach, p, r = f(0.9), f(0.05), f(0.4), 1.0, 1.0
    u = math.sqrt(gam * p / r) * mach
    e = p / (r * gm1) + 0.5 * u * u
    return {"gam": gam, "gm1": gm1, "cfl": cfl, "eps": eps, "qinf": np.array([r, r * u, 0.0, r * e])}


SETS = ("nodes", "edges", "bedges", "cells")
#: each map and dat of the file: the set its rows belong to
ROWS = {"pedge": "edges", "pecell": "edges", "pbedge": "bedges", "pbecell": "bedges", "pcell": "cells",
        "p_bound": "bedges", "p_x": "nodes"}


def read_mesh(path, blocks=False):
    """The mesh of an OP2 HDF5 file: set sizes, maps and the node coordinates and boundary codes (h5py).
    blocks: only this rank's block of every set's rows (um.block_range), for a context declared by blocks; the
    set sizes stay the global ones."""
    import h5py

    with h5py.File(path, "r") as f:
        mesh = {s: int(np.asarray(f[s]).ravel()[0]) for s in SETS}
        for k, s in ROWS.items():
            b, c = um.block_range(mesh[s]) if blocks else (0, mesh[s])
            mesh[k] = np.asarray(f[k][b:b + c], dtype=np.float64 if k == "p_x" else np.int32)
    return mesh


class Airfoil:
    """Airfoil's sets, maps, dats and loops on a context, as apps/airfoil/airfoil.c declares and runs them."""

    def __init__(self, ctx, mesh, kernel_source, blocks=False, partitioner="block"):
        """mesh: read_mesh's; blocks: declared by blocks (read_mesh(path, blocks=True)) and distributed over the
        ranks of mpirun by `partitioner` (Context.distribute's; cells primary, as umrun's Airfoil)."""
        self.ctx = ctx
        c = constants()
        for name in ("gam", "gm1", "cfl", "eps", "qinf"):
            ctx.decl_const(name, c[name])
        decl_set, decl_map = (ctx.set_block, ctx.map_block) if blocks else (ctx.set, ctx.map)
        nodes, edges = decl_set(mesh["nodes"], "nodes"), decl_set(mesh["edges"], "edges")
        bedges, cells = decl_set(mesh["bedges"], "bedges"), decl_set(mesh["cells"], "cells")
        self.nodes, self.edges, self.bedges, self.cells = nodes, edges, bedges, cells
        self.pedge = decl_map(edges, nodes, mesh["pedge"], "pedge")
        self.pecell = decl_map(edges, cells, mesh["pecell"], "pecell")
        self.pbedge = decl_map(bedges, nodes, mesh["pbedge"], "pbedge")
        self.pbecell = decl_map(bedges, cells, mesh["pbecell"], "pbecell")
        self.pcell = decl_map(cells, nodes, mesh["pcell"], "pcell")
        self.p_x = ctx.dat(nodes, mesh["p_x"], "p_x")
        self.p_bound = ctx.dat(bedges, mesh["p_bound"], "p_bound")
        self.p_q = ctx.dat(cells, np.tile(c["qinf"], (cells.decl_rows, 1)), "p_q")
        self.p_qold = ctx.dat(cells, None, "p_qold", dim=4)
        self.p_res = ctx.dat(cells, None, "p_res", dim=4)
        self.p_adt = ctx.dat(cells, None, "p_adt", dim=1)
        self.k = dict(zip(LOOPS, um.kernels(kernel_source, *LOOPS, source_name="airfoil_kernels.h")))
        if blocks:
            self.partition = ctx.distribute(cells, partitioner)

    def step(self):
        """One iteration: save_soln, then twice adt_calc, res_calc, bres_calc, update; returns the last update's
        sum of squared changes."""
        from um import READ, WRITE, RW, INC

        k, x, q, adt, res = self.k, self.p_x, self.p_q, self.p_adt, self.p_res
        um.par_loop(k["save_soln"], self.cells, q(READ), self.p_qold(WRITE))
        for _ in range(2):
            um.par_loop(k["adt_calc"], self.cells, x(READ, self.pcell[0]), x(READ, self.pcell[1]),
                        x(READ, self.pcell[2]), x(READ, self.pcell[3]), q(READ), adt(WRITE))
            um.par_loop(k["res_calc"], self.edges, x(READ, self.pedge[0]), x(READ, self.pedge[1]),
                        q(READ, self.pecell[0]), q(READ, self.pecell[1]), adt(READ, self.pecell[0]),
                        adt(READ, self.pecell[1]), res(INC, self.pecell[0]), res(INC, self.pecell[1], minus=0))
            um.par_loop(k["bres_calc"], self.bedges, x(READ, self.pbedge[0]), x(READ, self.pbedge[1]),
                        q(READ, self.pbecell[0]), adt(READ, self.pbecell[0]), res(INC, self.pbecell[0]),
                        self.p_bound(READ))
            sum_sq = um.par_loop(k["update"], self.cells, self.p_qold(READ), q(WRITE), res(RW), adt(READ),
                                 um.Global(0.0, INC))
        return sum_sq

    def run(self, iterations, every=100):
        """Run the iterations; returns {iteration: rms} every `every` iterations and at the last, with
        rms = sqrt(sum / cells) as the C app prints it."""
        out = {}
        for it in range(1, iterations + 1):
            s = self.step()
            if it % every == 0 or it == iterations:
                out[it] = math.sqrt(s / self.cells.size)
        return out


def main(argv=None):
    ap = argparse.ArgumentParser(description="Airfoil in Python over um (OP2's five loops)")
    ap.add_argument("mesh", help="an OP2 HDF5 mesh (new_grid.h5, or the airfoil.h5 umrun writes)")
    ap.add_argument("kernels", nargs="?", help="the kernels' header (default: apps/airfoil/airfoil_kernels.h of "
                    "the installed um, UM_PREFIX's, or of the checkout: um.data_file)")
    ap.add_argument("--backend", default="auto", help="seq, openmp, cuda or auto")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=0, help="OpenMP threads (0: the runtime's default)")
    ap.add_argument("--reproducible", action="store_true", help="run.reproducible: the same bits on any backend "
                    "and any number of ranks")
    a = ap.parse_args(argv)
    with open(a.kernels or um.data_file("apps/airfoil/airfoil_kernels.h")) as f:
        source = f.read()
    # under mpirun: MPI started by mpi4py where it is installed (else by um), each rank reads and declares its
    # blocks only, and rank 0 prints
    comm = None
    if um.mpi_launched():
        try:
            from mpi4py import MPI

            comm = MPI.COMM_WORLD
        except ImportError:
            pass
    rank, nranks = um.mpi_start()
    if comm is not None and (comm.Get_rank(), comm.Get_size()) != (rank, nranks):
        raise RuntimeError("mpi4py's ranks (%d of %d) are not um's (%d of %d): the two are built against different "
                           "MPI libraries" % (comm.Get_rank(), comm.Get_size(), rank, nranks))
    with um.Context(backend=a.backend, threads=a.threads, reproducible=a.reproducible) as ctx:
        app = Airfoil(ctx, read_mesh(a.mesh, blocks=nranks > 1), source, blocks=nranks > 1)
        for it, rms in app.run(a.iterations).items():
            if rank == 0:
                print(" %5d  %.17e" % (it, rms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
