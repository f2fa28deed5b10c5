/* The options of distributed runs (um/option_decl.h), declared once, here: how
 * the mesh is partitioned (read by um_distribute's caller and passed to it),
 * what is done with increments into other ranks' elements, and how CUDA ranks'
 * halos travel (context settings, before um_distribute). */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "core/option_tables.h"

int um_context_set_partition_budget(um_context *ctx, double seconds) {
  UM_CTX_OK(ctx);
  if (!(seconds >= 0) || seconds > 86400)
    return UM_ERROR(ctx, UM_ERR_ARG, "partition budget %g s: use 0 (none) .. 86400 seconds", seconds);
  if (ctx->dist) return UM_ERROR(ctx, UM_ERR_ARG, "um_context_set_partition_budget: the context is distributed already");
  ctx->partition_budget_s = seconds;
  return UM_SUCCESS;
}

int um_context_set_partition_coords(um_context *ctx, const char *dat_name) {
  UM_CTX_OK(ctx);
  if (!dat_name) dat_name = "";
  if (strlen(dat_name) >= sizeof ctx->partition_coords)
    return UM_ERROR(ctx, UM_ERR_ARG, "partition coordinates: a dat name of %zu characters; at most %zu",
                    strlen(dat_name), sizeof ctx->partition_coords - 1);
  if (ctx->dist) return UM_ERROR(ctx, UM_ERR_ARG, "um_context_set_partition_coords: the context is distributed already");
  snprintf(ctx->partition_coords, sizeof ctx->partition_coords, "%s", dat_name);
  return UM_SUCCESS;
}

int um_map_set_read_only(um_map *m) {
  if (!m) return UM_ERR_ARG;
  UM_CTX_OK(m->ctx);
  if (m->ctx->dist)
    return UM_ERROR(m->ctx, UM_ERR_ARG,
                    "um_map_set_read_only: map '%s': the context is distributed already (its "
                    "halos follow the map); declare it before um_distribute",
                    m->name);
  m->read_only = 1;
  return UM_SUCCESS;
}

static int opt_budget(um_context *ctx, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  return um_context_set_partition_budget(ctx, v->d);
}
static int opt_coords(um_context *ctx, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  return um_context_set_partition_coords(ctx, v->s);
}

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
    {.key = "mpi.partitioner", .type = UM_OPT_CHOICE, .def = "auto",
     .choices = UM_CHOICES("auto", "ptscotch", "rcb", "sfc", "metis", "block", "ranges"), .flags = UM_OPT_NEEDS_MPI,
     .help = "under mpirun: how the primary set is split over\n"
             "the ranks. metis: k-way of its graph, on rank 0 (small meshes); ptscotch:\n"
             "PT-Scotch k-way, every rank taking part; rcb: recursive coordinate\n"
             "bisection of the elements' centroids, in parallel; sfc: a Hilbert curve\n"
             "through them cut into equal pieces; block: contiguous ranges, the other\n"
             "sets following it; ranges: every set in contiguous ranges of its own\n"
             "numbering (a mesh declared by blocks: each rank keeps what it declared),\n"
             "no partitioner and nothing moved, for meshes numbered alike through\n"
             "space (the generators'). auto: metis\n"
             "for a whole mesh of up to 2^20 elements, rcb for a mesh declared by blocks\n"
             "with coordinates, else ptscotch where built, else rcb where there are\n"
             "coordinates. One that fails, overruns\n"
             "mpi.partition_budget_s or leaves a part empty gives way to rcb, then\n"
             "block (one leaving parts not connected too, the fewest kept); the log\n"
             "line says which was used and why",
     .component = "distributed"}, /* read by the caller and passed to um_distribute */
    {.key = "mpi.partition_budget_s", .type = UM_OPT_DOUBLE, .def = "60", .min = 0, .max = 86400,
     .range_hint = "use 0 (no budget) .. 86400 seconds", .flags = UM_OPT_NEEDS_MPI | UM_OPT_RANGE | UM_OPT_HINT_DEFAULT,
     .help = "a partitioner that takes longer (the slowest rank's\n"
             "time) has its parts discarded and the next of the chain is used.\n"
             "METIS (rank 0) runs in a thread waited for at most this long;\n"
             "PT-Scotch, rcb and sfc are checked when they return. 0: no budget",
     .component = "distributed", .to_context = opt_budget},
    {.key = "mpi.partition_coords", .type = UM_OPT_STRING, .flags = UM_OPT_NEEDS_MPI,
     .help = "the dat rcb and sfc place the primary set's elements\n"
             "by: 2 or 3 doubles (or floats) per element of the primary set, or of a\n"
             "set a map from it reaches (then the centroid of each element's targets).\n"
             "Default: the first such dat named like coordinates (x, xy, xyz, *coord*,\n"
             "*_x, *_xy, *centre*), on the primary set before the others, else the\n"
             "first such dat; the log line names it",
     .component = "distributed", .to_context = opt_coords},
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
