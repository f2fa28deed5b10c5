/* Distributed memory over MPI: partition after declaration, migrate, halo
 * exchange, reductions across ranks, the global view of dats and maps.
 *
 * The model is OP2's (op_mpi_core.c): sets hold owned | exec halo | non-exec
 * halo elements (partition.h); a dat written by a loop has a stale halo, and
 * the exchange stage of um_par_loop brings it up to date (owner -> halo copy,
 * PetscSF's Bcast) before a loop reads it through a map, or directly while
 * running its exec halo. Increments into other ranks' elements follow OP2's
 * redundant rule: a loop that writes through a map also runs its exec halo, so
 * every increment into an owned element is computed where the element lives.
 *
 * Every rank holds the global mesh until um_distribute, which keeps only its
 * own rows: the memory peak is one global copy per rank (docs/architecture.md);
 * unless the mesh is declared by blocks (um_decl_set_block), when no rank ever
 * holds more than its block and its part (dist_blocks.c).
 * Only this folder names MPI; without MPI the public calls say so.
 *
 * The engine's distributed memory is in three files: dist.c (this one: the process, the calls
 * without MPI), dist_migrate.c (partitioning and migration, um_distribute) and dist_exchange.c (the
 * halo exchange, reverse increments, reductions, the global view); dist_impl.h holds what they share.
 * A mesh declared by blocks is partitioned and migrated by dist_blocks.c, dist_blocks_graph.c and
 * dist_blocks_rows.c (dist_blocks.h), called from um_distribute. */
#include "dist.h"

#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "partition.h"
#include "util/array.h"
#include "util/hash.h"

/* mpi.partitioner's names, whether this build has each or not. */
static const char *const partitioner_names[] = {"auto", "metis", "ptscotch", "rcb", "sfc", "block", "ranges"};

static int partitioner_known(const char *name) {
  for (size_t i = 0; name && i < sizeof partitioner_names / sizeof *partitioner_names; i++)
    if (!strcmp(name, partitioner_names[i])) return 1;
  return 0;
}

int um__dist_partitioner_named(um_context *ctx, const char *name) {
  if (partitioner_known(name)) return UM_SUCCESS;
  return UM_ERROR(ctx, UM_ERR_CONFIG,
                  "mpi.partitioner = '%s': the partitioners are auto, metis (k-way of the primary set's graph on "
                  "rank 0), ptscotch (PT-Scotch k-way, in parallel), rcb (recursive coordinate bisection), sfc "
                  "(Hilbert curve), block (contiguous ranges of the primary set) and ranges (every set as numbered or "
                  "declared, no partitioning); ParMETIS is not in Debian",
                  name ? name : "(null)");
}

/* Ranks of the job the launcher (Open MPI's mpirun, MPICH's Hydra, a PMIx launcher) started this
 * process in, from its environment: 0 when no launcher started it (1 when one did but names no size). */
static int launcher_ranks(void) {
  const char *v = getenv("OMPI_COMM_WORLD_SIZE");
  if (!v) v = getenv("PMI_SIZE");
  if (!v) v = getenv("PMIX_SIZE");
  if (v) return atoi(v) > 0 ? atoi(v) : 1;
  return getenv("PMIX_RANK") ? 1 : 0;
}

#ifdef UM_HAVE_MPI
#include "dist_impl.h"

/* ---- the process --------------------------------------------------------------------------- */

int um_mpi_built(void) { return 1; }
int um_mpi_partitioner_built(const char *name) {
#ifndef UM_HAVE_PTSCOTCH
  if (name && !strcmp(name, "ptscotch")) return 0;
#endif
  return partitioner_known(name);
}

int um_mpi_start(int *argc, char ***argv, int *rank, int *nranks) {
  if (launcher_ranks() > 0 && !mpi_up()) {
    int init = 0;
    MPI_Initialized(&init);
#ifdef UM_HAVE_PTSCOTCH
    /* Debian's PT-Scotch is built with threads that call MPI while the caller's thread does too */
    int provided = 0;
    if (!init && MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return UM_ERR_BACKEND;
#else
    if (!init && MPI_Init(argc, argv) != MPI_SUCCESS) return UM_ERR_BACKEND;
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  if (rank) *rank = um_mpi_rank();
  if (nranks) *nranks = um_mpi_size();
  return UM_SUCCESS;
}

int um_mpi_rank(void) {
  int r = 0;
  if (mpi_up()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int um_mpi_size(void) {
  int n = 1;
  if (mpi_up()) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

int um_mpi_agree(int status, double timeout_s) {
  if (!mpi_up() || um_mpi_size() == 1) return status;
  int all = status;
  MPI_Request rq;
  if (MPI_Iallreduce(&status, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq) != MPI_SUCCESS) return -1;
  const double t0 = MPI_Wtime();
  for (;;) {
    int done = 0;
    MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    if (done) return all;
    if (timeout_s > 0 && MPI_Wtime() - t0 > timeout_s) return -1; /* the caller says why and aborts */
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

void um_mpi_abort(int status) {
  fflush(stdout);
  fflush(stderr);
  if (mpi_up()) MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
  exit(status);
}

int um_mpi_finish(void) {
  if (mpi_up()) MPI_Finalize();
  return UM_SUCCESS;
}

int um_mpi_bcast_int(int *v, int n) {
  if (mpi_up() && um_mpi_size() > 1 && MPI_Bcast(v, n, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return UM_ERR_BACKEND;
  return UM_SUCCESS;
}

int um_mpi_allgather_double(double mine, double *all) {
  if (!all) return UM_ERR_ARG;
  if (!mpi_up() || um_mpi_size() < 2) return all[0] = mine, UM_SUCCESS;
  return MPI_Allgather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD) == MPI_SUCCESS ? UM_SUCCESS
                                                                                            : UM_ERR_BACKEND;
}

int um_mpi_barrier(void) {
  if (mpi_up() && um_mpi_size() > 1 && MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) return UM_ERR_BACKEND;
  return UM_SUCCESS;
}

#else /* no MPI: one process, and the calls that need MPI say so */
int um_loop_stats_across_ranks(um_context *ctx) { return ctx ? UM_SUCCESS : UM_ERR_ARG; }

int um_mpi_built(void) { return 0; }
int um_mpi_partitioner_built(const char *name) {
  (void)name;
  return 0;
}
int um_mpi_start(int *argc, char ***argv, int *rank, int *nranks) {
  (void)argc, (void)argv;
  if (rank) *rank = 0;
  if (nranks) *nranks = 1;
  return UM_SUCCESS;
}
int um_mpi_rank(void) { return 0; }
int um_mpi_size(void) { return 1; }
int um_mpi_agree(int status, double timeout_s) {
  (void)timeout_s;
  return status;
}
void um_mpi_abort(int status) { exit(status); }
int um_mpi_finish(void) { return UM_SUCCESS; }
int um_mpi_bcast_int(int *v, int n) {
  (void)v, (void)n;
  return UM_SUCCESS;
}
int um_mpi_barrier(void) { return UM_SUCCESS; }
int um_mpi_allgather_double(double mine, double *all) {
  if (!all) return UM_ERR_ARG;
  all[0] = mine;
  return UM_SUCCESS;
}
int um_distribute(um_context *ctx, const char *primary, const char *partitioner) {
  (void)primary;
  if (!ctx) return UM_ERR_ARG; /* one process: nothing to partition, but a name is checked */
  return um__dist_partitioner_named(ctx, partitioner && *partitioner ? partitioner : "auto");
}
int um_context_rank(const um_context *ctx) { return (void)ctx, 0; }
int um_context_nranks(const um_context *ctx) { return (void)ctx, 1; }
int um_partition_info_get(const um_context *ctx, um_partition_info *out) {
  return !ctx || !out ? UM_ERR_ARG : UM_ERR_UNSUPPORTED;
}
int um_set_partition(const um_set *s, int rank, int *owned, int *exec, int *nonexec) {
  if (!s || rank != 0) return UM_ERR_ARG;
  if (owned) *owned = s->size;
  if (exec) *exec = s->exec_halo;
  if (nonexec) *nonexec = s->nonexec_halo;
  return UM_SUCCESS;
}
int um__dist_root(const um_context *ctx) { return (void)ctx, 1; }
int um__dist_l2g(um_context *ctx, const um_set *s, const long long **l2g) {
  return (void)ctx, (void)s, *l2g = NULL, UM_SUCCESS;
}
int um__dist_sum_i64(um_context *ctx, long long *v, int n) { return (void)ctx, (void)v, (void)n, UM_SUCCESS; }
int um__dist_max_f64(um_context *ctx, double *v, int n) { return (void)ctx, (void)v, (void)n, UM_SUCCESS; }
int um__dist_bcast(um_context *ctx, void *buf, int n) { return (void)ctx, (void)buf, (void)n, UM_SUCCESS; }
int um__dist_agree(um_context *ctx, int rc) { return (void)ctx, rc; }
int um__dist_set_has_exec(const um_context *ctx, const um_set *s) { return (void)ctx, (void)s, 0; }
int um__dist_set_has_halo(const um_context *ctx, const um_set *s) { return (void)ctx, (void)s, 0; }
void um__dist_free(um_context *ctx) { (void)ctx; }
int um__dist_exchange_begin(um_context *ctx, um_dat *const *dats, int n, um_loop_rec *rec) {
  (void)dats, (void)n, (void)rec;
  return UM_ERROR(ctx, UM_ERR_INTERNAL, "halo exchange in a build without MPI");
}
int um__dist_exchange_end(um_context *ctx, um_loop_rec *rec, int hidden) {
  (void)rec, (void)hidden;
  return UM_ERROR(ctx, UM_ERR_INTERNAL, "halo exchange in a build without MPI");
}
int um__dist_progress_piece(const um_context *ctx, const um_loop *loop) { return (void)ctx, (void)loop, 0; }
int um__dist_progress(um_context *ctx) { return (void)ctx, UM_SUCCESS; }
int um__dist_zero_halo(um_context *ctx, um_dat *d) {
  (void)d;
  return UM_ERROR(ctx, UM_ERR_INTERNAL, "reverse increments in a build without MPI");
}
int um__dist_reverse(um_context *ctx, um_dat *const *dats, int n, um_loop_rec *rec) {
  (void)dats, (void)n, (void)rec;
  return UM_ERROR(ctx, UM_ERR_INTERNAL, "reverse increments in a build without MPI");
}
double um__dist_set_halo_total(const um_context *ctx, const um_set *s, int exec_only) {
  return (void)ctx, (void)s, (void)exec_only, 0;
}
int um__dist_reduce(um_context *ctx, um_loop *loop) {
  (void)loop;
  return UM_ERROR(ctx, UM_ERR_INTERNAL, "reduction across ranks in a build without MPI");
}
int um__dist_fetch(um_context *ctx, const um_dat *d, void *out) {
  (void)d, (void)out;
  return UM_ERROR(ctx, UM_ERR_INTERNAL, "distributed fetch in a build without MPI");
}
int um__dist_fill(um_context *ctx, um_dat *d, const void *in) {
  (void)d, (void)in;
  return UM_ERROR(ctx, UM_ERR_INTERNAL, "distributed update in a build without MPI");
}
int um__dist_map_fetch(um_context *ctx, const um_map *m, int *out) {
  (void)m, (void)out;
  return UM_ERROR(ctx, UM_ERR_INTERNAL, "distributed map fetch in a build without MPI");
}
#endif

/* What core calls on a distributed context (core/pass.h), set beside ctx->dist by um_distribute. */
const um_dist_ops um__dist_ops = {
    .exchange_begin = um__dist_exchange_begin,
    .exchange_end = um__dist_exchange_end,
    .progress_piece = um__dist_progress_piece,
    .progress = um__dist_progress,
    .zero_halo = um__dist_zero_halo,
    .reverse = um__dist_reverse,
    .set_halo_total = um__dist_set_halo_total,
    .set_has_exec = um__dist_set_has_exec,
    .set_has_halo = um__dist_set_has_halo,
    .reduce = um__dist_reduce,
    .fetch = um__dist_fetch,
    .fill = um__dist_fill,
    .free = um__dist_free,
};

/* Launched by mpirun (Open MPI, MPICH, PMIx) with more than one rank: known without MPI itself. */
int um_mpi_launched(void) { return launcher_ranks() > 1; }

int um_map_fetch(um_context *ctx, const um_map *m, int *out, size_t bytes) {
  UM_CTX_OK(ctx);
  if (!m || (!out && bytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!m || (!out && bytes))", __func__);
  if (m->from->block && !ctx->dist)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_map_fetch('%s'): set '%s' is declared by blocks: its whole view exists after "
                    "um_distribute", m->name, m->from->name);
  const size_t want = (size_t)m->from->gsize * (size_t)m->arity * sizeof(int);
  if (bytes != want)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "um_map_fetch('%s'): buffer is %zu bytes but the map holds %lld x %d ints = %zu bytes",
                    m->name, bytes, m->from->gsize, m->arity, want);
  if (ctx->dist) return um__dist_map_fetch(ctx, m, out);
  if (bytes) memcpy(out, m->data, bytes);
  return UM_SUCCESS;
}