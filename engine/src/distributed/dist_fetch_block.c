/* dist_fetch_block.c: the global view by blocks (um/distributed.h: um_set_block, um_dat_fetch_block,
 * um_dat_fetch_block_original_order, um_map_fetch_block) and the turn-taking of outputs written by blocks
 * (um_in_turn, dist.h).
 *
 * A block is the block partitioner's range of a set's global size for this rank (um_block_range): element g
 * lives at home rank floor(g * P / G). Each rank numbers its owned rows (global numbers from l2g, or the
 * declared numbers where a reordering renumbered the set), counts them per home, and one all-to-all of the
 * counts and one of the rows (with their numbers) bring every row to its home, which puts it in place. No rank
 * allocates anything of the set's global size: a rank holds its owned rows, the rows it sends and its block.
 * Global numbers are 64-bit here (a set declared by blocks may pass INT_MAX elements); a map's targets, handed
 * out as int, are refused past INT_MAX. */
#include "dist_impl.h"

#include <limits.h>

#include "um/reorder.h"

int um_set_block(const um_context *ctx, const um_set *s, long long *begin, int *count) {
  if (!ctx || !s || !begin || !count) return UM_ERR_ARG;
  return um_block_range(s->gsize, um_context_rank(ctx), um_context_nranks(ctx), begin, count);
}

/* The block's bytes a caller's buffer must hold: the same check for dats and maps. */
static int check_block(um_context *ctx, const um_set *s, const char *fn, const char *name, size_t row, size_t bytes) {
  if (s->block && !ctx->dist)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "%s('%s'): set '%s' is declared by blocks: its blocks in the global numbering exist after "
                    "um_distribute",
                    fn, name, s->name);
  long long b = 0;
  int n = 0;
  if (um_set_block(ctx, s, &b, &n) != UM_SUCCESS)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s('%s'): set '%s' has no block on this rank", fn, name, s->name);
  if (bytes != (size_t)n * row)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "%s('%s'): buffer is %zu bytes but this rank's block of set '%s' is %d rows of %zu bytes = %zu "
                    "bytes (um_set_block gives the block)",
                    fn, name, bytes, s->name, n, row, (size_t)n * row);
  return UM_SUCCESS;
}

#ifdef UM_HAVE_MPI

/* The counts of rows for each home (g[0 .. n) numbered in [0, G): home floor(g * P / G)) exchanged (cs -> cr),
 * their displacements (ds, dr) and the packing positions (pos = ds); *got the rows this rank receives. rc: this
 * rank's agreed outcome so far (nothing done unless 0). Returns the all-to-all's MPI code. */
static int count_homes(const struct um_dist *D, int rc, int n, const long long *g, long long G, int *cs, int *cr,
                       int *ds, int *dr, int *pos, long long *got) {
  const int P = D->nranks;
  *got = 0;
  for (int e = 0; !rc && e < n; e++) cs[g[e] * P / G]++; /* G * P < 2^63: um_set_blocks_fit */
  const int m = rc ? MPI_SUCCESS : MPI_Alltoall(cs, 1, MPI_INT, cr, 1, MPI_INT, D->comm);
  for (int q = 0; !rc && q < P; q++) {
    ds[q] = q ? ds[q - 1] + cs[q - 1] : 0;
    dr[q] = q ? dr[q - 1] + cr[q - 1] : 0;
    pos[q] = ds[q];
    *got += cr[q];
  }
  return m;
}

/* Where a routed row comes from: rows (contiguous, `row` bytes each) or, rows NULL, dat d's local row. */
typedef struct {
  const char *rows;
  const um_dat *d;
} route_src;
static void src_row(const route_src *src, size_t row, int e, char *dst) {
  if (src->rows) memcpy(dst, src->rows + (size_t)e * row, row);
  else copy_row_out(src->d, e, dst);
}

/* Row number g's round of R: the R-th of its home's block it falls in (hb[P + 1]: the homes' blocks), so that in a
 * round each home receives one R-th of its block. */
static int route_round(long long g, long long G, int P, const long long *hb, int R) {
  const int q = (int)(g * P / G); /* G * P < 2^63: um_set_blocks_fit */
  const long long c = hb[q + 1] - hb[q];
  return c ? (int)((g - hb[q]) * R / c) : 0;
}

/* One round of route_rows: the ns rows perm[0 .. ns) to their homes, put in place in out (block [begin, begin +
 * count)); *got counts the rows received. The receive buffers grow to what arrives (*rg, *rr, *rcap rows). prior:
 * this rank's outcome so far; every rank agrees twice, whatever it is, and moves rows only when all succeeded. */
static int route_round_move(um_context *ctx, const struct um_dist *D, int prior, const long long *g,
                            const route_src *src, size_t row, long long G, const int *perm, int ns, long long **rg,
                            char **rr, int *rcap, char *out, long long begin, int count, long long *got,
                            const char *what) {
  const int P = D->nranks;
  int *cs = calloc((size_t)P * 5, sizeof(int)), *cr = cs ? cs + P : NULL, *ds = cs ? cs + 2 * P : NULL,
      *dr = cs ? cs + 3 * P : NULL, *pos = cs ? cs + 4 * P : NULL;
  long long *sg = malloc(((size_t)ns + 1) * sizeof *sg);
  char *sr = malloc((size_t)ns * row + 1);
  int rc = prior;
  if (!rc && !(cs && sg && sr)) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching %s by blocks", what);
  rc = um__dist_agree(ctx, rc); /* no rank goes on to the all-to-all alone */
  int m = MPI_SUCCESS, nr = 0;
  for (int j = 0; !rc && j < ns; j++) cs[g[perm[j]] * P / G]++;
  if (!rc) m = MPI_Alltoall(cs, 1, MPI_INT, cr, 1, MPI_INT, D->comm);
  for (int q = 0; !rc && m == MPI_SUCCESS && q < P; q++) {
    ds[q] = q ? ds[q - 1] + cs[q - 1] : 0, dr[q] = q ? dr[q - 1] + cr[q - 1] : 0;
    pos[q] = ds[q], nr += cr[q];
  }
  if (!rc && m == MPI_SUCCESS && nr > *rcap) {
    free(*rg), free(*rr);
    *rg = malloc(((size_t)nr + 1) * sizeof **rg), *rr = malloc((size_t)nr * row + 1);
    *rcap = *rg && *rr ? nr : 0;
    if (!*rcap) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching %s by blocks", what);
  }
  if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Alltoall (fetching by blocks)");
  rc = um__dist_agree(ctx, rc); /* a receive buffer missing on one rank: none moves */
  for (int j = 0; !rc && j < ns; j++) {
    const int e = perm[j], k = pos[g[e] * P / G]++;
    sg[k] = g[e];
    src_row(src, row, e, sr + (size_t)k * row);
  }
  MPI_Datatype rt = MPI_DATATYPE_NULL;
  if (!rc) m = MPI_Alltoallv(sg, cs, ds, MPI_LONG_LONG, *rg, cr, dr, MPI_LONG_LONG, D->comm);
  if (!rc && m == MPI_SUCCESS) m = MPI_Type_contiguous((int)row, MPI_BYTE, &rt);
  if (!rc && m == MPI_SUCCESS) m = MPI_Type_commit(&rt);
  if (!rc && m == MPI_SUCCESS) m = MPI_Alltoallv(sr, cs, ds, rt, *rr, cr, dr, rt, D->comm);
  if (!rc && m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Alltoallv (fetching by blocks)");
  for (int k = 0; !rc && k < nr; k++) {
    if ((*rg)[k] < begin || (*rg)[k] >= begin + count) {
      rc = UM_ERROR(ctx, UM_ERR_INTERNAL, "fetching %s by blocks: row %lld reached the block [%lld, %lld)", what,
                    (*rg)[k], begin, begin + count);
      break;
    }
    memcpy(out + (size_t)((*rg)[k] - begin) * row, *rr + (size_t)k * row, row);
  }
  *got += rc ? 0 : nr;
  if (rt != MPI_DATATYPE_NULL) MPI_Type_free(&rt);
  free(cs), free(sg), free(sr);
  return rc;
}

/* The rows of this rank (n rows of `row` bytes from src, row e numbered g[e] in [0, G)) sent to their homes and
 * put in place in out (this rank's block of G). In rounds (as many on every rank): in round k each home receives
 * the rows of the k-th R-th of its block, so that no rank holds more than about UMD_ROUND_BYTES of rows in flight
 * (with a mesh's partition, whose rows are spread over the blocks, the sender too), not a copy of all of them. */
static int route_rows(um_context *ctx, const struct um_dist *D, int n, const long long *g, const route_src *src,
                      size_t row, long long G, char *out, const char *what) {
  const int P = D->nranks;
  long long begin = 0, got = 0, *hb = malloc(((size_t)P + 1) * sizeof *hb), *rg = NULL;
  int count = 0, *perm = malloc(((size_t)n + 1) * sizeof *perm), *off = NULL, rcap = 0;
  char *rr = NULL;
  um_block_range(G, D->rank, P, &begin, &count);
  int rc = hb && perm ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching %s by blocks", what);
  for (int e = 0; !rc && e < n; e++)
    if (g[e] < 0 || g[e] >= G)
      rc = UM_ERROR(ctx, UM_ERR_ARG, "fetching %s by blocks: row %d is numbered %lld, outside [0, %lld)", what, e,
                    g[e], G);
  rc = um__dist_agree(ctx, rc);
  long long R = 1 + (long long)((size_t)(n > count ? n : count) * (row + sizeof(long long)) / UMD_ROUND_BYTES);
  const int m = rc ? MPI_SUCCESS : MPI_Allreduce(MPI_IN_PLACE, &R, 1, MPI_LONG_LONG, MPI_MAX, D->comm);
  if (!rc && m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Allreduce (fetching by blocks)");
  const int rounds = rc ? 0 : (int)(R < INT_MAX / 2 ? R : INT_MAX / 2); /* the same on every rank */
  R = rounds;
  if (!rc && !(off = calloc((size_t)R + 2, sizeof *off)))
    rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching %s by blocks", what);
  for (int q = 0; !rc && q <= P; q++) {
    int c = 0;
    if (q < P) um_block_range(G, q, P, &hb[q], &c);
    else hb[P] = G;
  }
  /* the rows grouped by round, each round's in their order (a counting sort) */
  for (int e = 0; !rc && e < n; e++) off[route_round(g[e], G, P, hb, (int)R) + 2]++;
  for (long long k = 0; !rc && k < R; k++) off[k + 2] += off[k + 1];
  for (int e = 0; !rc && e < n; e++) perm[off[route_round(g[e], G, P, hb, (int)R) + 1]++] = e;
  for (int k = 0; k < rounds; k++) /* every round on every rank, each agreeing on its outcome */
    rc = route_round_move(ctx, D, rc, g, src, row, G, perm + (off ? off[k] : 0), off ? off[k + 1] - off[k] : 0, &rg,
                          &rr, &rcap, out, begin, count, &got, what);
  if (!rc && got != count)
    rc = UM_ERROR(ctx, UM_ERR_INTERNAL, "fetching %s by blocks: %lld rows reached this rank's block of %d", what, got,
                  count);
  free(hb), free(perm), free(off), free(rg), free(rr);
  return um__dist_agree(ctx, rc);
}

typedef struct {
  long long g, e;
} gpair;
static int gpair_cmp(const void *a, const void *b) {
  const long long x = ((const gpair *)a)->g, y = ((const gpair *)b)->g;
  return (x > y) - (x < y);
}

/* Targets t[0 .. n) of set s (current global numbers) replaced by their declared numbers (reordered: perm[declared]
 * = current): the distinct targets sorted, every declared element looked up among them. */
static int declared_targets(um_context *ctx, const um_set *s, size_t n, long long *t) {
  gpair *p = malloc((n + 1) * sizeof *p);
  if (!p) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory numbering set '%s' in its declared order", s->name);
  for (size_t i = 0; i < n; i++) p[i] = (gpair){t[i], (int)i};
  qsort(p, n, sizeof *p, gpair_cmp);
  size_t u = 0; /* distinct targets, each with its declared number in e */
  for (size_t i = 0; i < n; i++)
    if (!u || p[u - 1].g != p[i].g) p[u++] = (gpair){p[i].g, -1};
  for (long long i = 0; i < s->gsize; i++) { /* a reordered set: perm holds every element (gsize <= INT_MAX) */
    const gpair key = {s->perm[i], 0};
    gpair *hit = u ? bsearch(&key, p, u, sizeof *p, gpair_cmp) : NULL;
    if (hit) hit->e = i;
  }
  for (size_t i = 0; i < n; i++) {
    const gpair key = {t[i], 0};
    t[i] = ((const gpair *)bsearch(&key, p, u, sizeof *p, gpair_cmp))->e;
  }
  free(p);
  return UM_SUCCESS;
}

/* This rank's owned rows of set s (s->size rows of `row` bytes, in local order) to their homes, numbered
 * globally or, with declared, in the declared numbering of a reordered set: what both fetches end with. prior:
 * this rank's outcome so far; every rank agrees before routing, so none waits in the all-to-all for one that
 * failed. */
static int route_owned(um_context *ctx, const um_set *s, int declared, int prior, const route_src *src, size_t row,
                       char *out, const char *what) {
  const struct um_dist *D = ctx->dist;
  const int n = s->size, renumbered = declared && s->perm; /* else the global numbers are l2g's */
  long long *g = prior || !renumbered ? NULL : malloc(((size_t)n + 1) * sizeof *g);
  int rc = prior ? prior : umd_l2g_ready(ctx, s->index);
  if (!rc && renumbered && !g) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching %s by blocks", what);
  if (!rc && renumbered) memcpy(g, D->sets[s->index].l2g, (size_t)n * sizeof *g);
  if (!rc && renumbered) rc = declared_targets(ctx, s, (size_t)n, g);
  rc = um__dist_agree(ctx, rc);
  if (!rc) rc = route_rows(ctx, D, n, renumbered ? g : D->sets[s->index].l2g, src, row, s->gsize, out, what);
  free(g);
  return rc;
}

static int dist_fetch_block(um_context *ctx, const um_dat *d, int declared, void *out) {
  const size_t row = (size_t)d->dim * d->esize;
  const route_src src = {NULL, d}; /* the rows packed straight from the dat, round by round */
  char what[300];
  const int rc = um__dat_to_host(ctx, (um_dat *)d);
  snprintf(what, sizeof what, "dat '%s'", d->name);
  return route_owned(ctx, d->set, declared, rc, &src, row, out, what);
}

static int dist_map_fetch_block(um_context *ctx, const um_map *m, int declared, int *out) {
  const umd_set *T = &ctx->dist->sets[m->to->index];
  const size_t n = (size_t)m->from->size * m->arity;
  int *rows = malloc((n + 1) * sizeof(int));
  long long *t = declared && m->to->perm ? malloc((n + 1) * sizeof *t) : NULL;
  char what[300];
  int rc = rows && (t || !declared || !m->to->perm)
               ? UM_SUCCESS
               : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching map '%s' by blocks", m->name);
  if (!rc && m->to->gsize > INT_MAX) /* the same on every rank; route_owned agrees before any exchange */
    rc = UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                  "map '%s' by blocks: its to-set '%s' has %lld elements, more than the int targets a map fetch hands "
                  "out can number (um_map_fetch_block64: 64-bit targets)",
                  m->name, m->to->name, m->to->gsize);
  if (!rc) rc = umd_l2g_ready(ctx, m->to->index);
  for (size_t i = 0; !rc && !t && i < n; i++) rows[i] = (int)T->l2g[m->data[i]]; /* gsize <= INT_MAX */
  for (size_t i = 0; !rc && t && i < n; i++) t[i] = T->l2g[m->data[i]];
  if (!rc && t) rc = declared_targets(ctx, m->to, n, t);
  for (size_t i = 0; !rc && t && i < n; i++) rows[i] = (int)t[i];
  free(t);
  snprintf(what, sizeof what, "map '%s'", m->name);
  const route_src src = {(const char *)rows, NULL};
  rc = route_owned(ctx, m->from, declared, rc, &src, (size_t)m->arity * sizeof(int), (char *)out, what);
  free(rows);
  return rc;
}

/* The same with 64-bit targets: the to-set may pass INT_MAX elements. */
static int dist_map_fetch_block64(um_context *ctx, const um_map *m, int declared, long long *out) {
  const umd_set *T = &ctx->dist->sets[m->to->index];
  const size_t n = (size_t)m->from->size * m->arity;
  long long *t = malloc((n + 1) * sizeof *t);
  char what[300];
  int rc = t ? umd_l2g_ready(ctx, m->to->index)
             : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching map '%s' by blocks", m->name);
  for (size_t i = 0; !rc && i < n; i++) t[i] = T->l2g[m->data[i]];
  if (!rc && declared && m->to->perm) rc = declared_targets(ctx, m->to, n, t);
  snprintf(what, sizeof what, "map '%s'", m->name);
  const route_src src = {(const char *)t, NULL};
  rc = route_owned(ctx, m->from, declared, rc, &src, (size_t)m->arity * sizeof *t, (char *)out, what);
  free(t);
  return rc;
}

static int dist_rows_to_blocks(um_context *ctx, int n, const long long *keys, const void *rows, size_t row,
                               long long G, void *out) {
  const route_src src = {(const char *)rows, NULL};
  return route_rows(ctx, ctx->dist, n, keys, &src, row, G, out, "rows");
}

/* The reverse of a fetch: every local row of d (owned and halo) from the blocks of the global (declared, with
 * declared) numbering, each rank giving its block at in. Each rank asks the homes of its rows for them (one
 * all-to-all of the numbers) and the homes answer with the rows (one all-to-all back). */
static int dist_update_block(um_context *ctx, um_dat *d, int declared, const char *in) {
  const struct um_dist *D = ctx->dist;
  const umd_set *S = &D->sets[d->set->index];
  const int P = D->nranks, n = S->total;
  const long long G = d->set->gsize;
  const size_t row = (size_t)d->dim * d->esize;
  long long begin = 0;
  int count = 0;
  um_block_range(G, D->rank, P, &begin, &count);
  int *cs = calloc((size_t)P * 5, sizeof(int)), *cr = cs ? cs + P : NULL, *ds = cs ? cs + 2 * P : NULL,
      *dr = cs ? cs + 3 * P : NULL, *pos = cs ? cs + 4 * P : NULL;
  long long *g = malloc(((size_t)n + 1) * sizeof *g), *sg = malloc(((size_t)n + 1) * sizeof *sg);
  int *order = malloc(((size_t)n + 1) * sizeof(int));
  char *back = malloc((size_t)n * row + 1);
  int rc = cs && g && sg && order && back ? UM_SUCCESS
                                         : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory updating dat '%s' by blocks", d->name);
  if (!rc) rc = umd_l2g_ready(ctx, d->set->index);
  if (!rc) memcpy(g, S->l2g, (size_t)n * sizeof *g);
  if (!rc && declared && d->set->perm) rc = declared_targets(ctx, d->set, (size_t)n, g);
  rc = um__dist_agree(ctx, rc);
  long long asked = 0;
  int m = count_homes(D, rc, n, g, G, cs, cr, ds, dr, pos, &asked);
  for (int i = 0; !rc && m == MPI_SUCCESS && i < n; i++) {
    const int k = pos[g[i] * P / G]++;
    sg[k] = g[i];
    order[k] = i;
  }
  long long *rg = !rc && m == MPI_SUCCESS ? malloc(((size_t)asked + 1) * sizeof *rg) : NULL;
  char *ans = rg ? malloc((size_t)asked * row + 1) : NULL;
  if (!rc && m == MPI_SUCCESS && !ans) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory updating dat '%s' by blocks", d->name);
  rc = um__dist_agree(ctx, rc);
  if (!rc && m == MPI_SUCCESS) m = MPI_Alltoallv(sg, cs, ds, MPI_LONG_LONG, rg, cr, dr, MPI_LONG_LONG, D->comm);
  for (long long k = 0; !rc && m == MPI_SUCCESS && k < asked; k++) {
    if (rg[k] < begin || rg[k] >= begin + count) {
      rc = UM_ERROR(ctx, UM_ERR_INTERNAL, "updating dat '%s' by blocks: row %lld asked of the block [%lld, %lld)",
                    d->name, rg[k], begin, begin + count);
      break;
    }
    memcpy(ans + (size_t)k * row, in + (size_t)(rg[k] - begin) * row, row);
  }
  rc = um__dist_agree(ctx, rc);
  MPI_Datatype rt = MPI_DATATYPE_NULL;
  if (!rc && m == MPI_SUCCESS) m = MPI_Type_contiguous((int)row, MPI_BYTE, &rt);
  if (!rc && m == MPI_SUCCESS) m = MPI_Type_commit(&rt);
  if (!rc && m == MPI_SUCCESS) m = MPI_Alltoallv(ans, cr, dr, rt, back, cs, ds, rt, D->comm);
  if (!rc && m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Alltoallv (updating by blocks)");
  if (!rc) {
    for (int k = 0; k < n; k++) copy_row_in(d, order[k], back + (size_t)k * row);
    um__dat_host_changed(d);
    d->halo_stale = 0; /* every halo row came from its home */
  }
  if (rt != MPI_DATATYPE_NULL) MPI_Type_free(&rt);
  free(cs), free(g), free(sg), free(order), free(back), free(rg), free(ans);
  return rc;
}

int um_in_turn(um_context *ctx, int (*fn)(um_context *ctx, void *arg), void *arg) {
  if (!ctx || !fn) return UM_ERR_ARG;
  const struct um_dist *D = ctx->dist;
  if (!D) return fn(ctx, arg);
  /* the token: the lowest rank that failed so far, or nranks */
  int first = D->nranks, rc = UM_SUCCESS;
  if (D->rank > 0)
    MPI_TRY(ctx, MPI_Recv(&first, 1, MPI_INT, D->rank - 1, 0, D->comm, MPI_STATUS_IGNORE),
            "waiting for the turn to write");
  if (first == D->nranks) {
    rc = fn(ctx, arg);
    if (rc) first = D->rank;
  }
  if (D->rank + 1 < D->nranks)
    MPI_TRY(ctx, MPI_Send(&first, 1, MPI_INT, D->rank + 1, 0, D->comm), "passing the turn to write");
  return um__dist_agree(ctx, rc);
}

#else /* no MPI: one process */

static int dist_fetch_block(um_context *ctx, const um_dat *d, int declared, void *out) {
  return (void)d, (void)declared, (void)out, UM_ERROR(ctx, UM_ERR_INTERNAL, "a distributed context without MPI");
}
static int dist_map_fetch_block(um_context *ctx, const um_map *m, int declared, int *out) {
  return (void)m, (void)declared, (void)out, UM_ERROR(ctx, UM_ERR_INTERNAL, "a distributed context without MPI");
}
static int dist_map_fetch_block64(um_context *ctx, const um_map *m, int declared, long long *out) {
  return (void)m, (void)declared, (void)out, UM_ERROR(ctx, UM_ERR_INTERNAL, "a distributed context without MPI");
}
static int dist_rows_to_blocks(um_context *ctx, int n, const long long *keys, const void *rows, size_t row,
                               long long G, void *out) {
  return (void)n, (void)keys, (void)rows, (void)row, (void)G, (void)out,
         UM_ERROR(ctx, UM_ERR_INTERNAL, "a distributed context without MPI");
}
static int dist_update_block(um_context *ctx, um_dat *d, int declared, const char *in) {
  return (void)d, (void)declared, (void)in, UM_ERROR(ctx, UM_ERR_INTERNAL, "a distributed context without MPI");
}
int um_in_turn(um_context *ctx, int (*fn)(um_context *ctx, void *arg), void *arg) {
  if (!ctx || !fn) return UM_ERR_ARG;
  return fn(ctx, arg);
}

#endif

static int fetch_block(um_context *ctx, const um_dat *d, int declared, void *out, size_t bytes, const char *fn) {
  UM_CTX_OK(ctx);
  if (!d || (!out && bytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!d || (!out && bytes))", fn);
  UM_CHECK(ctx, check_block(ctx, d->set, fn, d->name, (size_t)d->dim * d->esize, bytes));
  UM_CHECK(ctx, um_sync(ctx));
  um__ck_read(ctx, d);
  if (!ctx->dist) /* one process: the block is the whole set */
    return declared ? um_dat_fetch_original_order(ctx, d, out, bytes) : um_dat_fetch(ctx, d, out, bytes);
  return dist_fetch_block(ctx, d, declared, out); /* collective, also for 0 bytes */
}

int um_dat_fetch_block(um_context *ctx, const um_dat *d, void *out, size_t bytes) {
  return fetch_block(ctx, d, 0, out, bytes, __func__);
}

int um_dat_fetch_block_original_order(um_context *ctx, const um_dat *d, void *out, size_t bytes) {
  return fetch_block(ctx, d, 1, out, bytes, __func__);
}

/* The whole map in the declared numbering, on one process (as um_dat_fetch_original_order for dats): row i is
 * current row perm[i] of the from-set, each target t the declared number of the to-set's current t. */
static int map_original_order(um_context *ctx, const um_map *m, int *out) {
  const int n = m->from->size, ar = m->arity, nt = m->to->size;
  int *decl = m->to->perm ? malloc(((size_t)nt + 1) * sizeof(int)) : NULL; /* one process: the whole set is here */
  if (m->to->perm && !decl) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching map '%s'", m->name);
  for (int i = 0; decl && i < nt; i++) decl[m->to->perm[i]] = i;
  for (int i = 0; i < n; i++) {
    const int *src = m->data + (size_t)(m->from->perm ? m->from->perm[i] : i) * ar;
    for (int k = 0; k < ar; k++) out[(size_t)i * ar + k] = decl ? decl[src[k]] : src[k];
  }
  free(decl);
  return UM_SUCCESS;
}

static int map_fetch_block(um_context *ctx, const um_map *m, int declared, int *out, size_t bytes, const char *fn) {
  UM_CTX_OK(ctx);
  if (!m || (!out && bytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!m || (!out && bytes))", fn);
  UM_CHECK(ctx, check_block(ctx, m->from, fn, m->name, (size_t)m->arity * sizeof(int), bytes));
  if (ctx->dist) return dist_map_fetch_block(ctx, m, declared, out);
  if (declared && (m->from->perm || m->to->perm)) return map_original_order(ctx, m, out);
  return um_map_fetch(ctx, m, out, bytes);
}

int um_map_fetch_block(um_context *ctx, const um_map *m, int *out, size_t bytes) {
  return map_fetch_block(ctx, m, 0, out, bytes, __func__);
}

int um_map_fetch_block_original_order(um_context *ctx, const um_map *m, int *out, size_t bytes) {
  return map_fetch_block(ctx, m, 1, out, bytes, __func__);
}

/* 64-bit targets: distributed, fetched as such; on one process (every set within INT_MAX) the int block widened. */
static int map_fetch_block64(um_context *ctx, const um_map *m, int declared, long long *out, size_t bytes,
                             const char *fn) {
  UM_CTX_OK(ctx);
  if (!m || (!out && bytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!m || (!out && bytes))", fn);
  UM_CHECK(ctx, check_block(ctx, m->from, fn, m->name, (size_t)m->arity * sizeof(long long), bytes));
  if (ctx->dist) return dist_map_fetch_block64(ctx, m, declared, out);
  const size_t n = bytes / sizeof(long long);
  int *narrow = malloc((n + 1) * sizeof *narrow);
  if (!narrow) return UM_ERROR(ctx, UM_ERR_ALLOC, "%s: out of memory fetching map '%s'", fn, m->name);
  const int rc = map_fetch_block(ctx, m, declared, narrow, n * sizeof(int), fn);
  for (size_t i = 0; !rc && i < n; i++) out[i] = narrow[i];
  free(narrow);
  return rc;
}

int um_map_fetch_block64(um_context *ctx, const um_map *m, long long *out, size_t bytes) {
  return map_fetch_block64(ctx, m, 0, out, bytes, __func__);
}

int um_map_fetch_block_original_order64(um_context *ctx, const um_map *m, long long *out, size_t bytes) {
  return map_fetch_block64(ctx, m, 1, out, bytes, __func__);
}

int um_rows_to_blocks64(um_context *ctx, int n, const long long *keys, const void *rows, size_t row_bytes,
                        long long gsize, void *out, size_t bytes) {
  UM_CTX_OK(ctx);
  if (n < 0 || (n && (!keys || !rows)) || !row_bytes || row_bytes > INT_MAX || gsize < 0 || (!out && bytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument", "um_rows_to_blocks");
  const int P = um_context_nranks(ctx);
  if (gsize > LLONG_MAX / P) /* the homes are g * P / gsize */
    return UM_ERROR(ctx, UM_ERR_ARG, "um_rows_to_blocks: a numbering of %lld elements over %d ranks passes 2^63",
                    gsize, P);
  long long b = 0;
  int count = 0;
  UM_CHECK(ctx, um_block_range(gsize, um_context_rank(ctx), um_context_nranks(ctx), &b, &count));
  if (bytes != (size_t)count * row_bytes)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: buffer is %zu bytes but this rank's block is %d rows of %zu bytes",
                    "um_rows_to_blocks", bytes, count, row_bytes);
  if (ctx->dist) return dist_rows_to_blocks(ctx, n, keys, rows, row_bytes, gsize, out);
  if (n != gsize)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: %d rows for a block of %lld: every element needs one row",
                    "um_rows_to_blocks", n, gsize);
  for (int e = 0; e < n; e++) {
    if (keys[e] < 0 || keys[e] >= gsize)
      return UM_ERROR(ctx, UM_ERR_ARG, "%s: row %d is numbered %lld, outside [0, %lld)", "um_rows_to_blocks", e,
                      keys[e], gsize);
    memcpy((char *)out + (size_t)keys[e] * row_bytes, (const char *)rows + (size_t)e * row_bytes, row_bytes);
  }
  return UM_SUCCESS;
}

int um_rows_to_blocks(um_context *ctx, int n, const int *keys, const void *rows, size_t row_bytes, long long gsize,
                      void *out, size_t bytes) {
  UM_CTX_OK(ctx);
  long long *k = n >= 0 ? malloc(((size_t)n + 1) * sizeof *k) : NULL; /* the keys widened to the 64-bit routing */
  int rc = k || n < 0 ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "um_rows_to_blocks: out of memory for %d keys", n);
  for (int e = 0; k && keys && e < n; e++) k[e] = keys[e];
  if (ctx->dist) rc = um__dist_agree(ctx, rc); /* a collective call: no rank goes on alone */
  if (!rc) rc = um_rows_to_blocks64(ctx, n, keys ? k : NULL, rows, row_bytes, gsize, out, bytes);
  free(k);
  return rc;
}

/* One process: the whole dat from the whole array, in the declared order (reordered: row i is current perm[i]). */
static int update_declared(um_context *ctx, um_dat *d, const void *in, size_t bytes) {
  const int *perm = d->set->perm;
  if (!perm) return um_dat_update(ctx, d, in, bytes);
  const size_t n = (size_t)d->set->gsize, row = (size_t)d->dim * d->esize;
  char *tmp = malloc(bytes ? bytes : 1);
  if (!tmp) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory updating dat '%s'", d->name);
  for (size_t i = 0; i < n; i++) memcpy(tmp + (size_t)perm[i] * row, (const char *)in + i * row, row);
  const int rc = um_dat_update(ctx, d, tmp, bytes);
  free(tmp);
  return rc;
}

static int update_block(um_context *ctx, um_dat *d, int declared, const void *in, size_t bytes, const char *fn) {
  UM_CTX_OK(ctx);
  if (!d || (!in && bytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!d || (!in && bytes))", fn);
  UM_CHECK(ctx, check_block(ctx, d->set, fn, d->name, (size_t)d->dim * d->esize, bytes));
  UM_CHECK(ctx, um_sync(ctx));
  if (!ctx->dist) return declared ? update_declared(ctx, d, in, bytes) : um_dat_update(ctx, d, in, bytes);
  um__ck_overwrite(ctx, d);
  return dist_update_block(ctx, d, declared, in); /* collective, also for 0 bytes */
}

int um_dat_update_block(um_context *ctx, um_dat *d, const void *in, size_t bytes) {
  return update_block(ctx, d, 0, in, bytes, __func__);
}

int um_dat_update_block_original_order(um_context *ctx, um_dat *d, const void *in, size_t bytes) {
  return update_block(ctx, d, 1, in, bytes, __func__);
}
