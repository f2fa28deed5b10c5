/* Distributed memory inside the engine: the halo exchange, the combination of
 * reductions across ranks and the global view of dats. Only
 * engine/src/distributed names MPI; without MPI (or on one rank) ctx->dist is
 * NULL and none of these is called. Core calls them through um__dist_ops
 * (core/pass.h: um_dist_ops), which um_distribute sets beside ctx->dist; the
 * rooms above core (transform/, tune/, io/) call them by name. */
#ifndef UM_DIST_DIST_H
#define UM_DIST_DIST_H

#include "core/internal.h"
#include "core/pass.h"

/* UM_SUCCESS when name is one of mpi.partitioner's (built here or not), else UM_ERR_CONFIG listing them. */
int um__dist_partitioner_named(um_context *ctx, const char *name);

/* The calls core makes, as a table (core/pass.h). */
extern const um_dist_ops um__dist_ops;

/* Start exchanging the halos of n dats (owner -> halo copies: the rows the
 * set's import lists name), then finish: unpack into the halo rows. Between the
 * two, core elements may run. rec gets the traffic and the time. */
int um__dist_exchange_begin(um_context *ctx, um_dat *const *dats, int n, um_loop_rec *rec);
int um__dist_exchange_end(um_context *ctx, um_loop_rec *rec, int hidden);
/* While core elements run on the host between the two: the elements of a core piece after which MPI is given a
 * chance to move the messages (0: no pieces: a device runs the core asynchronously, or nothing is in flight), and
 * the call that gives it (MPI_Testall). Without it a message larger than MPI's eager size moves only when both
 * ranks are inside MPI, so a rank's halo leaves only once it has finished its own core elements. */
int um__dist_progress_piece(const um_context *ctx, const um_loop *loop);
int um__dist_progress(um_context *ctx);
/* REVERSE increments: zero the halo rows of d before the loop; after it, send
 * the halo rows of each dat to their owners, which add them into their rows
 * (neighbours in rank order: the same sums on every run). */
int um__dist_zero_halo(um_context *ctx, um_dat *d);
int um__dist_reverse(um_context *ctx, um_dat *const *dats, int n, um_loop_rec *rec);
/* Elements of set s over all ranks: exec halos (exec_only) or both halos. */
double um__dist_set_halo_total(const um_context *ctx, const um_set *s, int exec_only);
/* Combine the loop's reduction partials across ranks, in rank order (the same
 * bits on every rank; MIN/MAX keep NaN winning, as um__combine does). */
int um__dist_reduce(um_context *ctx, um_loop *loop);
/* The global view: dat values of all ranks in the global (declared, or last
 * reordered) numbering, AoS; and the reverse (every local row, halo too, from a
 * global array). */
int um__dist_fetch(um_context *ctx, const um_dat *d, void *out);
int um__dist_fill(um_context *ctx, um_dat *d, const void *in);
/* A map with global indices (owned rows of every rank, in the global order). */
int um__dist_map_fetch(um_context *ctx, const um_map *m, int *out);
/* Whether any rank has an exec halo / any halo of set s (the same answer on every rank). */
int um__dist_set_has_exec(const um_context *ctx, const um_set *s);
int um__dist_set_has_halo(const um_context *ctx, const um_set *s);
/* 1 on rank 0 (or when not distributed): the rank that writes shared files. */
int um__dist_root(const um_context *ctx);
/* Local -> global numbers of set s's rows (owned and halo) into *l2g, made at the first call where the distribution
 * left them implicit; NULL when not distributed. UM_SUCCESS, or UM_ERR_ALLOC reported (*l2g NULL). */
int um__dist_l2g(um_context *ctx, const um_set *s, const long long **l2g);
/* v[0..n) summed over the ranks, in place (integers: exact, any order). */
int um__dist_sum_i64(um_context *ctx, long long *v, int n);
/* v[0..n) replaced by each entry's largest value over the ranks (per-loop tuning: the slowest rank decides,
 * so every rank keeps the same choice). */
int um__dist_max_f64(um_context *ctx, double *v, int n);
/* One outcome of a step every rank takes (an output rank 0 writes from gathers every rank joins): each rank's rc
 * in, on every rank the same code and message out (the lowest failing rank's, its number said when it is not 0),
 * so that no rank goes on to a gather the others never reach. Not distributed: rc. */
int um__dist_agree(um_context *ctx, int rc);
/* n bytes of buf from rank 0 to every rank. */
int um__dist_bcast(um_context *ctx, void *buf, int n);
void um__dist_free(um_context *ctx);

#endif
