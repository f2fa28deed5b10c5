/* The options of distributed runs (um/option_decl.h), declared once, here: how
 * the mesh is partitioned (read by um_distribute's caller and passed to it),
 * what is done with increments into other ranks' elements, and how CUDA ranks'
 * halos travel (context settings, before um_distribute). */
#include <stdio.h>

#include "core/option_tables.h"

static int opt_increments(um_context *ctx, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  return um_context_set_increments(ctx, (um_increments)v->i); /* the choices are um_increments' values in order */
}
static int opt_transport(um_context *ctx, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  return um_context_set_gpu_transport(ctx, (um_transport)v->i); /* the choices are um_transport's values in order */
}
static int opt_transport_min(um_context *ctx, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  return um_context_set_gpu_transport_min_bytes(ctx, (long)v->l);
}

/* mpi.increments' values, and its default: the per-loop form (mpi.loops.<loop>) takes the same */
static const char *const increments_choices[] = {"redundant", "reverse", "auto", NULL};
#define INCREMENTS_DEFAULT "redundant"

const um_option um_distributed_options[] = {
    {.key = "mpi.partitioner", .type = UM_OPT_CHOICE, .def = "metis", .choices = UM_CHOICES("metis", "ptscotch", "block"),
     .flags = UM_OPT_NEEDS_MPI,
     .help = "under mpirun: how the primary set is split over\n"
             "the ranks (metis: k-way of its graph, on rank 0; ptscotch: PT-Scotch\n"
             "k-way, every rank taking part; block: contiguous ranges)",
     .component = "distributed"}, /* read by the caller and passed to um_distribute */
    {.key = "mpi.increments", .type = UM_OPT_CHOICE, .def = INCREMENTS_DEFAULT, .choices = increments_choices,
     .flags = UM_OPT_NEEDS_MPI,
     .help = "increments into other ranks' elements:\n"
             "redundant runs the exec halo too (OP2); reverse sends them to their owners\n"
             "(PETSc's SFReduce); auto picks reverse for a loop whose exec halo's work\n"
             "is over 5x the bytes it would send back (LULESH's volume_force)",
     .component = "distributed", .to_context = opt_increments},
    /* set per loop by its caller (the runner: um_loop_set_increments), as mpi.increments is for every loop */
    {.key = "mpi.loops.<loop>", .type = UM_OPT_CHOICE, .def = INCREMENTS_DEFAULT, .choices = increments_choices,
     .flags = UM_OPT_NEEDS_MPI, .help = "mpi.increments for one loop: mpi.loops: {res_calc: reverse}",
     .component = "distributed"},
    {.key = "mpi.gpu_transport", .type = UM_OPT_CHOICE, .def = "auto", .choices = UM_CHOICES("auto", "host", "nccl", "loopback"),
     .flags = UM_OPT_NEEDS_MPI,
     .help = "halo messages of CUDA ranks: nccl sends device\n"
             "buffers GPU to GPU (NCCL, on a stream beside the compute stream: no host\n"
             "copy, no host wait); host packs rows into pinned host memory and sends\n"
             "them with MPI (any MPI; several ranks may share a GPU). auto: nccl when\n"
             "NCCL loads and every rank has its own GPU on one host, for exchanges\n"
             "of mpi.gpu_transport_min_bytes or more per rank; host below\n"
             "(NCCL takes ~1 ms of device time per small exchange, and ~1 s to connect\n"
             "at its first: small halos lose). loopback: the example transport\n"
             "(host buffers, MPI on a communicator of its own; any backend)",
     .component = "distributed", .to_context = opt_transport},
    {.key = "mpi.gpu_transport_min_bytes", .type = UM_OPT_LONG, .def = "1048576", .min = 0,
     .max = 1099511627776.0, .range_hint = "use 0 .. 2^40 bytes",
     .flags = UM_OPT_NEEDS_MPI | UM_OPT_RANGE | UM_OPT_HINT_DEFAULT,
     .help = "mpi.gpu_transport auto: the smallest exchange per rank that goes through NCCL",
     .component = "distributed", .to_context = opt_transport_min},
    {.key = "mpi.partition_set", .type = UM_OPT_STRING, .flags = UM_OPT_NEEDS_MPI,
     .help = "the primary set (default: the set the app's main map points into);\n"
             "the other sets follow it through the maps. Rank 0 prints, writes the\n"
             "outputs and validates; every rank exits with the same status",
     .component = "distributed"}, /* read by the caller and passed to um_distribute */
};
const int um_distributed_noptions = (int)(sizeof um_distributed_options / sizeof um_distributed_options[0]);
