/* dist_impl.h: private to engine/src/dist (dist.c, dist_migrate.c, dist_exchange.c): the MPI
 * state of a distributed context (struct um_dist, one umd_set per set), MPI error wrapping, and the
 * row helpers the migration and the exchange share. Only this folder names MPI. */
#ifndef UM_DIST_DIST_IMPL_H
#define UM_DIST_DIST_IMPL_H

#include "dist.h"

#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "partition.h"
#include "transport.h"
#include "util/array.h"
#include "util/hash.h"

#ifdef UM_HAVE_MPI
#include <mpi.h>
#include <metis.h>
#ifdef UM_HAVE_PTSCOTCH
#include <ptscotch.h>
#endif

typedef struct {
  int total;
  /* [total] local -> global (64-bit: a set declared by blocks may pass INT_MAX); NULL while implicit: then the
   * owned rows' numbers (the set's size of them) are l2g_base + e and the halo rows' l2g_halo[total - size] (ranges,
   * a set whose owned rows keep their declared order), and umd_l2g_ready makes the array */
  long long *l2g, *l2g_halo;
  long long l2g_base;
  int nnb;                       /* neighbour ranks: imports from or exports to */
  int *nb;                       /* [nnb] ranks, ascending */
  int *imp_off, *imp;            /* [nnb+1], local halo rows received from nb[j] */
  int *exp_off, *exp;            /* [nnb+1], local owned rows sent to nb[j]      */
  int *all_owned, *all_exec, *all_nonexec; /* [nranks] */
  int *gather_g;                 /* [gsize]: global index of each owned row, ranks in order; a mesh declared by
                                    blocks: NULL until the first whole-set fetch (umd_gather_order); int: a
                                    whole-set fetch is refused past INT_MAX elements */
} umd_set;

struct um_dist {
  int rank, nranks;
  MPI_Comm comm;
  int nsets;
  umd_set *sets;
  um_partition_info info;
  /* the exchange in flight */
  /* message buffers: [0] host memory (pinned when rows move on the device), [1] the transport's (its alloc),
   * for the transport T; an exchange uses buf[use_peer] */
  struct msgbuf {
    char *s, *r;
    size_t scap, rcap;
  } buf[2];
  MPI_Request *reqs;
  int nreqs, capreqs;
  struct pending {
    um_dat *d;
    int j;        /* neighbour */
    size_t off;   /* into buf[use_peer].r */
  } *pend;
  int npend, cappend;
  double t_begin;
  /* the transport (um_context_set_gpu_transport, transport.c): peer 1 when the transport T is open on every
   * rank; an exchange whose halo rows average peer_min bytes or more per rank goes through it (use_peer, set
   * per exchange: the same on every rank), a smaller one through host memory. T stays set (closed with the
   * context) on a rank that opened it while another rank could not (peer 0 then). */
  const um_transport_def *T;
  void *tstate;
  int peer, use_peer;
  double peer_min;
  um_transport_msg *msgs;
  int capmsgs;
};

static inline int mpi_fail(um_context *ctx, int code, const char *what) {
  char msg[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(code, msg, &len);
  return UM_ERROR(ctx, UM_ERR_BACKEND, "MPI: %s failed: %s", what, msg);
}
#define MPI_TRY(ctx, call, what)                       \
  do {                                                 \
    int mrc_ = (call);                                 \
    if (mrc_ != MPI_SUCCESS) return mpi_fail(ctx, mrc_, what); \
  } while (0)

static inline int mpi_up(void) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

/* 1 when halo rows move on the device (the backend keeps dats there and packs their rows):
 * the device copy is brought up to date first if it is not, so no whole dat is copied. */
static inline int on_device(const um_context *ctx) {
  const um_backend_def *B = ctx->backend;
  return B && B->data.rows_out && B->data.rows_in && B->data.rows_zero && B->data.host_alloc && B->data.host_free;
}

/* A message buffer freed (buf[peer]): the transport's, or host memory (the backend is the context's for its whole
 * life; this also runs after the backend's finalize, which is why host_free and the transport's free need no
 * state). */
static inline void buffer_free(um_context *ctx, int peer, void *p) {
  if (!p) return;
  if (peer) ctx->dist->T->free(ctx, p);
  else if (on_device(ctx)) ctx->backend->data.host_free(p);
  else free(p);
}

/* dist_blocks.c: whether the context is declared by blocks (collective: every rank's answer, 1 only when all
 * are; an error on every rank when they differ or one mixes), and um_distribute's work on such a context. */
int umd_blocks_mode(um_context *ctx, MPI_Comm comm, int *blocks);
int umd_distribute_blocks(um_context *ctx, struct um_dist *D, int primary, const char *method);
/* dist_exchange.c: the gather order of set s (gather_g) for whole-set fetches, built at the first (collective);
 * UM_ERR_UNSUPPORTED for a set of more than INT_MAX elements (the same on every rank). */
int umd_gather_order(um_context *ctx, umd_set *S, const um_set *s);

#ifdef UM_HAVE_PTSCOTCH
/* dist_migrate.c: PT-Scotch's k-way partition of a distributed graph (this rank's nv rows, edges in the global
 * numbering) into loc[nv]; collective: 0 on every rank, or 1 on every rank when any failed. */
int umd_scotch_part(MPI_Comm comm, int nv, const int *xadj, const int *adj, int nparts, int *loc);
#endif
/* dist_blocks.c: another sentence in the partition's note ("; " between them). */
void umd_add_note(um_partition_info *info, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* dist_choose.c: the primary set's partition, chosen along a chain of partitioners (design at its top). A path
 * (whole declaration, declaration by blocks) gives its candidates through these: */
typedef struct {
  /* partition by `name` ("metis", "ptscotch", "rcb", "sfc", "block") into the path's candidate parts: 0, or
   * nonzero with why (a rank's own words; the chooser agrees on one outcome); collective */
  int (*run)(void *self, const char *name, char *why, size_t wl);
  /* the candidate's empty parts, parts not connected and edge cut (-1: not known), the same on every rank */
  int (*quality)(void *self, int *empty, int *disconnected, long *cut);
  /* the candidate becomes the partition */
  void (*keep)(void *self);
} umd_part_ops;
/* Try method's chain; info gets the partitioner used, the edge cut and the notes (collective). */
int umd_choose(um_context *ctx, MPI_Comm comm, const umd_part_ops *ops, void *self, const char *method,
               int have_coords, um_partition_info *info);
/* Whether graph partitioner `name` ("metis", "ptscotch") takes the graph of set `set` of n elements: METIS's idx_t
 * and PT-Scotch's SCOTCH_Num as built here, and um's int graph arrays (global numbers in [0, n)), take at most
 * INT_MAX vertices. 1, or 0 with why (the set, its size, the limit, what to use instead). */
int umd_graph_fits(const char *name, const char *set, long long n, char *why, size_t wl);
/* The test hook UM_TEST_PARTITION_FAULT's word for partitioner `name`: 'f' (fail), 'o' (overrun), 'h' (hang) or 0. */
char umd_fault(const char *name);
/* "auto" for a whole declaration (whole 1) or one by blocks, of n elements of the primary set: the name, said in
 * the note. */
const char *umd_auto(int whole, long long n, int have_coords, um_partition_info *info);

/* dist_whole_part.c: the primary set's parts part[n] when every rank holds the whole mesh (collective). */
int umd_partition_whole(um_context *ctx, struct um_dist *D, const umd_mesh *m, int primary, const char *method,
                        int *part);
/* dist_geom.c: rcb (sfc 0) or sfc (1) over every rank's n points (xyz[3 n], dim 2 or 3 used), gid their global
 * numbers: part[n] in [0, P) (collective; 0, an MPI code or UM_ERR_ALLOC, the same on every rank). */
int umd_geom_part(MPI_Comm comm, int sfc, int n, int dim, const double *xyz, const long long *gid, int P, int *part);
/* The primary set's coordinates: a dat (*dat) on it, or on a set a map from it (*via) reaches (the centroids of
 * the targets); mpi.partition_coords's dat, else the default (dist_geom.c); none: *dat NULL and why. An error only
 * for a named dat that cannot serve. */
int umd_coords_find(um_context *ctx, int primary, const um_dat **dat, const um_map **via, char *why, size_t wl);
void umd_coords_say(const um_dat *d, const um_map *via, char *out, size_t len);
/* Row e of a coordinate dat as 3 doubles (z 0 in 2-D). */
void umd_coord_row(const um_dat *d, int e, double *out);
/* The points of a whole declaration's primary elements [lo, hi) into xyz[3 (hi - lo)]. */
int umd_centroids(um_context *ctx, const um_dat *d, const um_map *via, int lo, int hi, double *xyz);

/* Set s's l2g made where the distribution left it implicit (dist_migrate.c; here alone): UM_SUCCESS, or UM_ERR_ALLOC
 * reported. Every reader of a umd_set's l2g after um_distribute calls it first. */
int umd_l2g_ready(um_context *ctx, int s);

/* transport.c: choose the context's transport from every rank's facts and open it (collective); close it. */
int um__transport_setup(um_context *ctx, struct um_dist *D);
void um__transport_close(um_context *ctx, struct um_dist *D);

/* The bytes of rows a rank sends or receives in one round of an exchange that goes in rounds (the distribution's
 * dats, fetches by blocks), about: what such an exchange holds in flight instead of a copy of all its rows. */
#define UMD_ROUND_BYTES ((size_t)4 << 20)

/* Freed heap memory handed back to the system. glibc keeps what a program frees inside its heap resident until it
 * is trimmed: its mmap threshold rises to the size of the first large block freed, so later large blocks (the
 * halo message buffers a run grows, loop by loop) come from the heap and leave holes there that nothing but a
 * trim returns (um_distribute trims its own transients when it ends). */
static inline void umd_heap_release(void) {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

/* Rows of a dat, element e, component c (AoS or SoA storage). */
static inline char *elem_ptr(const um_dat *d, int e, int c) {
  if (d->layout == UM_SOA && d->dim > 1) return d->data + ((size_t)c * d->rows + (size_t)e) * d->esize;
  return d->data + ((size_t)e * d->dim + (size_t)c) * d->esize;
}
static inline void copy_row_out(const um_dat *d, int e, char *dst) { /* -> AoS row */
  if (!(d->layout == UM_SOA && d->dim > 1)) {
    memcpy(dst, elem_ptr(d, e, 0), (size_t)d->dim * d->esize);
    return;
  }
  for (int c = 0; c < d->dim; c++) memcpy(dst + (size_t)c * d->esize, elem_ptr(d, e, c), d->esize);
}
static inline void copy_row_in(um_dat *d, int e, const char *src) {
  if (!(d->layout == UM_SOA && d->dim > 1)) {
    memcpy(elem_ptr(d, e, 0), src, (size_t)d->dim * d->esize);
    return;
  }
  for (int c = 0; c < d->dim; c++) memcpy(elem_ptr(d, e, c), src + (size_t)c * d->esize, d->esize);
}

#endif /* UM_HAVE_MPI */

#endif
