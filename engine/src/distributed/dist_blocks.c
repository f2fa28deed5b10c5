/* dist_blocks.c: um_distribute on a context declared by blocks (um_decl_set_block, um_decl_map_block): no rank
 * ever holds the whole mesh.
 *
 * What is global (known on every rank, O(nranks) per set): each set's global size and every rank's declared
 * block [begin[q], begin[q+1]) (one MPI_Allgather), the counts of every rank's layout (um_set_partition).
 * Everything else is per rank and sized by what the rank holds: its declared block, its owned, exec and
 * non-exec elements; global numbers are 64-bit (long long) here, local indices int.
 *
 * The directory: the home of global number g of set S is the rank whose declared block holds g (binary search
 * of begin[]). The home keeps the owner of each of its elements (own_home) and answers owner queries
 * (umd_dir_owner: the numbers to their homes, the owners back, two MPI_Alltoallv).
 *
 * The steps, collective (each an MPI_Alltoall of counts then an MPI_Alltoallv of items, counts and
 * displacements in items: a record, a long long or an int, so no displacement overflows before 2^31 items):
 *   1. the blocks tile [0, gsize) in rank order for every set (else one error, the same on every rank);
 *   2. owners, with umd_derive_owners' rules (partition.h) made distributed: the primary set is owned by its
 *      declared blocks ("block") or by PT-Scotch's parts of its graph, each rank building its block's rows
 *      (dist_blocks_graph.c); a set with a map into a placed set takes the owner of each element's first
 *      target (asked of the target's home); a set that a map from a placed set reaches takes the owner of the
 *      lowest referencing element: each home of a from-element sends (target, its global number, its owner)
 *      to the target's home (the lowest per target first kept locally), which keeps the lowest; targets nobody
 *      references, and sets no map connects, take the block split floor(g * nranks / gsize);
 *   3. migration (dist_blocks_rows.c): each home sends the records of its elements (global number, map rows in
 *      global numbers) to their owners; the owners ask the homes for the owners of their rows'
 *      targets: an element reaching elements of other ranks is sent to each of them (their exec halo; core:
 *      reaching none), then each rank fetches from their owners the targets of its owned and exec rows it
 *      holds neither (its non-exec halo);
 *   4. the local order of umd_build_layout (the owned ascending where their core elements are one run of them,
 *      else core then the rest, each ascending; exec then non-exec, each by owner then global number), maps in it
 *      (targets through a hash map of global numbers, not a global-sized array), the import/export lists; then the dats, one at a time, each row pulled from its home
 *      (the numbers asked once per set, each dat's rows back in rounds of about 4 MB; its declared rows freed once
 *      all are sent), so that the transient beyond the mesh is one dat's local rows and two rounds of its rows in
 *      flight; and every rank's counts. The gather order of a whole-set um_dat_fetch / um_map_fetch
 *      (global-sized) is built at the first such call, not here. What the distribution freed is trimmed from the
 *      heap at the end of um_distribute (umd_heap_release).
 * umd_set keeps 64-bit local -> global numbers: a set may have more than INT_MAX elements (each rank's part stays
 * an int); the partitioners that number the graph in int refuse it (dist_blocks_graph.c). */
#include "dist_blocks.h"

#include <limits.h>

#ifdef UM_HAVE_MPI

int umd_a2a(umd_blocks *B, MPI_Datatype t, size_t tsize, const void *sbuf, const int *scnt, void **rbuf, int *rcnt,
            int *nr) {
  um_context *ctx = B->ctx;
  const int P = B->P;
  *rbuf = NULL;
  *nr = 0;
  int *sd = malloc((size_t)P * sizeof *sd), *rd = malloc((size_t)P * sizeof *rd);
  if (!sd || !rd) {
    free(sd), free(rd);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing the blocks");
  }
  int m = MPI_Alltoall((void *)scnt, 1, MPI_INT, rcnt, 1, MPI_INT, B->D->comm);
  long long so = 0, ro = 0;
  for (int q = 0; m == MPI_SUCCESS && q < P; q++) {
    sd[q] = (int)so, rd[q] = (int)ro;
    so += scnt[q], ro += rcnt[q];
  }
  int rc = m == MPI_SUCCESS ? UM_SUCCESS : mpi_fail(ctx, m, "MPI_Alltoall (block counts)");
  if (rc == UM_SUCCESS && (so > INT_MAX || ro > INT_MAX))
    rc = UM_ERROR(ctx, UM_ERR_ARG, "um_distribute: rank %d exchanges more than %d items at once", B->rank, INT_MAX);
  if (rc == UM_SUCCESS && !(*rbuf = malloc((size_t)(ro ? ro : 1) * tsize)))
    rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing the blocks");
  if (rc == UM_SUCCESS) {
    m = MPI_Alltoallv((void *)sbuf, (int *)scnt, sd, t, *rbuf, rcnt, rd, t, B->D->comm);
    if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Alltoallv (blocks)");
  }
  free(sd), free(rd);
  if (rc != UM_SUCCESS) {
    free(*rbuf);
    *rbuf = NULL;
    return rc;
  }
  *nr = (int)ro;
  return UM_SUCCESS;
}

void umd_group(int n, const int *dest, int P, int *perm, int *cnt) {
  for (int q = 0; q < P; q++) cnt[q] = 0;
  for (int i = 0; i < n; i++) cnt[dest[i]]++;
  int start = 0; /* cnt: the starts, then the ends while placing, then the counts again */
  for (int q = 0; q < P; q++) {
    const int c = cnt[q];
    cnt[q] = start; /* start of q for now */
    start += c;
  }
  for (int i = 0; i < n; i++) perm[cnt[dest[i]]++] = i;
  for (int q = P - 1; q > 0; q--) cnt[q] -= cnt[q - 1]; /* cnt[q] is now the end of q: back to counts */
}

/* Owners of the numbers this rank is home to are read here; the others, each distinct number once (a hash map of
 * the numbers seen, then a counting sort by home: O(n)), are asked of their homes. So the buffers grow with the
 * distinct numbers of other homes, not with n: on a block-local mesh, a few. */
int umd_dir_owner(umd_blocks *B, int s, int n, const long long *g, int *out) {
  const umd_bset *S = &B->S[s];
  const int P = B->P;
  if (B->ranges) { /* every owner is its element's home: known here, on every rank alike (no exchange) */
    for (int i = 0; i < n; i++) out[i] = umd_home(S, P, g[i]);
    return UM_SUCCESS;
  }
  const long long b0 = S->begin[B->rank], b1 = S->begin[B->rank + 1];
  int nu = 0, nr = 0, ng = 0;
  umd_gmap seen = {0}; /* a remote number -> its place in u, then in su */
  long long *u = NULL, *su = NULL, *rg = NULL;
  int *scnt = calloc((size_t)P, sizeof *scnt), *rcnt = malloc((size_t)P * sizeof *rcnt), *ans = NULL, *got = NULL;
  int *pos = malloc((size_t)P * sizeof *pos), *home = NULL;
  long long lo, hi;
  const size_t nrem = umd_span_outside(g, (size_t)(n > 0 ? n : 0), b0, b1, &lo, &hi);
  int rc = scnt && rcnt && pos && umd_gmap_init_span(&seen, nrem + 64, lo, hi) == UM_SUCCESS ? UM_SUCCESS : UM_ERR_ALLOC;
  for (int i = 0; rc == UM_SUCCESS && i < n; i++) {
    if (g[i] >= b0 && g[i] < b1) {
      out[i] = S->own_home[g[i] - b0];
      continue;
    }
    if (umd_gmap_get(&seen, g[i]) >= 0) continue;
    if ((rc = umd_gmap_add(&seen, g[i], nu)) == UM_SUCCESS) nu++;
  }
  if (rc == UM_SUCCESS && (!(u = malloc((size_t)(nu ? nu : 1) * sizeof *u)) || !(su = malloc((size_t)(nu ? nu : 1) * sizeof *su)) ||
                           !(home = malloc((size_t)(nu ? nu : 1) * sizeof *home))))
    rc = UM_ERR_ALLOC;
  for (size_t k = 0; rc == UM_SUCCESS && k < umd_gmap_slots(&seen); k++) {
    long long x;
    const int at = umd_gmap_at(&seen, k, &x);
    if (at >= 0) u[at] = x;
  }
  for (int i = 0; rc == UM_SUCCESS && i < nu; i++) scnt[home[i] = umd_home(S, P, u[i])]++;
  for (int q = 0, at = 0; rc == UM_SUCCESS && q < P; q++) pos[q] = at, at += scnt[q];
  for (int i = 0; rc == UM_SUCCESS && i < nu; i++) { /* grouped by home; seen now gives the place in su */
    const int at = pos[home[i]]++;
    su[at] = u[i];
    umd_gmap_set(&seen, u[i], at);
  }
  free(u), free(home), free(pos);
  if (rc == UM_ERR_ALLOC) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory asking for owners");
  rc = umd_agree(B, rc, "asking for owners"); /* the exchanges below are collective */
  if (rc == UM_SUCCESS) rc = umd_a2a(B, MPI_LONG_LONG, sizeof *su, su, scnt, (void **)&rg, rcnt, &nr);
  if (rc == UM_SUCCESS && !(ans = malloc((size_t)(nr ? nr : 1) * sizeof *ans)))
    rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory answering for owners");
  if (rc == UM_SUCCESS) {
    for (int i = 0; i < nr; i++) ans[i] = S->own_home[rg[i] - b0];
    int *back = malloc((size_t)P * sizeof *back);
    rc = back ? umd_a2a(B, MPI_INT, sizeof *ans, ans, rcnt, (void **)&got, back, &ng)
              : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory");
    free(back);
  }
  for (int i = 0; rc == UM_SUCCESS && i < n; i++) /* got[k]: the owner of su[k] (answers come back in asked order) */
    if (g[i] < b0 || g[i] >= b1) out[i] = got[umd_gmap_get(&seen, g[i])];
  umd_gmap_free(&seen);
  free(su), free(rg), free(scnt), free(rcnt), free(ans), free(got);
  return rc;
}

int umd_blocks_mode(um_context *ctx, MPI_Comm comm, int *blocks) {
  int nb = 0, rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  for (int s = 0; s < ctx->nsets; s++) nb += ctx->sets[s]->block != 0;
  const int mode = nb == 0 ? 0 : nb == ctx->nsets ? 1 : 2;
  int mine[3] = {mode, -mode, mode == 2 ? -rank : -P}, all[3];
  MPI_TRY(ctx, MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, comm), "MPI_Allreduce (declared by blocks?)");
  *blocks = all[0] == 1;
  if (all[0] == 2)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "um_distribute: rank %d declares some sets by blocks (um_decl_set_block) and others whole: declare "
                    "every set by blocks, or none",
                    -all[2]);
  if (all[0] != -all[1])
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "um_distribute: some ranks declare the mesh by blocks (um_decl_set_block) and others whole: every "
                    "rank declares the same way");
  return UM_SUCCESS;
}

/* Every rank's declared blocks (one MPI_Allgather), and whether they tile [0, gsize) in rank order: the same
 * data on every rank, so the same verdict and the same words. */
static int check_tiling(umd_blocks *B) {
  um_context *ctx = B->ctx;
  const int P = B->P, ns = B->ns;
  long long *mine = malloc((size_t)ns * 3 * sizeof *mine), *all = malloc((size_t)P * ns * 3 * sizeof *all);
  if (!mine || !all) {
    free(mine), free(all);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory checking the blocks");
  }
  for (int s = 0; s < ns; s++) {
    const um_set *st = ctx->sets[s];
    mine[3 * s] = st->gsize, mine[3 * s + 1] = st->block_begin, mine[3 * s + 2] = st->size;
  }
  int rc = UM_SUCCESS, m = MPI_Allgather(mine, 3 * ns, MPI_LONG_LONG, all, 3 * ns, MPI_LONG_LONG, B->D->comm);
  if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Allgather (blocks)");
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) {
    umd_bset *S = &B->S[s];
    S->gsize = all[3 * s];
    long long at = 0;
    for (int q = 0; rc == UM_SUCCESS && q < P; q++) {
      const long long *b = all + ((size_t)q * ns + (size_t)s) * 3;
      S->begin[q] = b[1];
      if (b[0] != S->gsize)
        rc = UM_ERROR(ctx, UM_ERR_ARG,
                      "um_distribute: set '%s' is declared with %lld elements on rank 0 and %lld on rank %d",
                      ctx->sets[s]->name, S->gsize, b[0], q);
      else if (b[1] != at)
        rc = UM_ERROR(ctx, UM_ERR_ARG,
                      "um_distribute: the blocks of set '%s' do not tile [0, %lld) in rank order: rank %d declares "
                      "[%lld, %lld), which should begin at %lld (%s)",
                      ctx->sets[s]->name, S->gsize, q, b[1], b[1] + b[2], at, q ? "where the previous rank's ends" : "rank 0");
      else if (q == P - 1 && b[1] + b[2] != S->gsize)
        rc = UM_ERROR(ctx, UM_ERR_ARG,
                      "um_distribute: the blocks of set '%s' do not tile [0, %lld) in rank order: rank %d, the last, "
                      "declares [%lld, %lld), which should end at %lld",
                      ctx->sets[s]->name, S->gsize, q, b[1], b[1] + b[2], S->gsize);
      at = b[1] + b[2];
    }
    S->begin[P] = S->gsize;
  }
  free(mine), free(all);
  return rc;
}

/* A set with a map into a placed set: the owner of each element's first target, asked of its home. */
static int rule_first_target(umd_blocks *B, const um_map *mp) {
  umd_bset *F = &B->S[mp->from->index];
  long long *t0 = malloc((size_t)(F->count ? F->count : 1) * sizeof *t0);
  if (!t0) return UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory placing set '%s'", mp->from->name);
  for (int i = 0; i < F->count; i++) t0[i] = mp->gtargets[(size_t)i * mp->arity];
  const int rc = umd_dir_owner(B, mp->to->index, F->count, t0, F->own_home);
  free(t0);
  return rc;
}

/* The homes of a map's targets keep, for each, the owner of the lowest referencing element (proposals of
 * (target, element, owner), the lowest per target kept here first); nobody's: the block split. */
static int rule_first_ref(umd_blocks *B, const um_map *mp) {
  const umd_bset *F = &B->S[mp->from->index];
  umd_bset *T = &B->S[mp->to->index];
  const int P = B->P, ar = mp->arity;
  const size_t n = (size_t)F->count * ar;
  umd_gmap seen = {0}; /* each distinct target -> its first entry (ascending elements: the lowest referencing) */
  long long *sp = NULL, *rp = NULL, *best = malloc((size_t)(T->count ? T->count : 1) * sizeof *best);
  int *scnt = calloc((size_t)P, sizeof *scnt), *rcnt = malloc((size_t)P * sizeof *rcnt), *pos = NULL, np = 0, nr = 0;
  long long lo, hi;
  umd_span_outside(mp->gtargets, n, 0, 0, &lo, &hi);
  int rc = best && scnt && rcnt && umd_gmap_init_span(&seen, (size_t)T->count + 16, lo, hi) == UM_SUCCESS
               ? UM_SUCCESS
               : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory placing set '%s'", mp->to->name);
  for (size_t i = 0; rc == UM_SUCCESS && i < n; i++)
    if (umd_gmap_add(&seen, mp->gtargets[i], (int)(i / ar)) != UM_SUCCESS)
      rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory placing set '%s'", mp->to->name);
  np = (int)seen.n;
  if (rc == UM_SUCCESS && (!(sp = malloc(((size_t)np + 1) * 3 * sizeof *sp)) || !(pos = malloc((size_t)P * sizeof *pos))))
    rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory placing set '%s'", mp->to->name);
  long long x;
  for (size_t k = 0; rc == UM_SUCCESS && k < umd_gmap_slots(&seen); k++) /* proposals (target, element, owner) */
    if (umd_gmap_at(&seen, k, &x) >= 0) scnt[umd_home(T, P, x)] += 3;
  for (int q = 0, at = 0; rc == UM_SUCCESS && q < P; q++) pos[q] = at, at += scnt[q];
  for (size_t k = 0; rc == UM_SUCCESS && k < umd_gmap_slots(&seen); k++) {
    const int e = umd_gmap_at(&seen, k, &x);
    if (e < 0) continue;
    const int q = umd_home(T, P, x);
    long long *w = sp + pos[q];
    w[0] = x, w[1] = F->begin[B->rank] + e, w[2] = F->own_home[e];
    pos[q] += 3;
  }
  umd_gmap_free(&seen);
  rc = umd_agree(B, rc, "placing the sets");
  if (rc == UM_SUCCESS) rc = umd_a2a(B, MPI_LONG_LONG, sizeof *sp, sp, scnt, (void **)&rp, rcnt, &nr);
  free(sp);
  if (rc == UM_SUCCESS) {
    const long long b = T->begin[B->rank];
    for (int j = 0; j < T->count; j++) best[j] = LLONG_MAX, T->own_home[j] = -1;
    for (int i = 0; i + 2 < nr; i += 3) {
      const long long j = rp[i] - b;
      if (rp[i + 1] < best[j]) best[j] = rp[i + 1], T->own_home[j] = (int)rp[i + 2];
    }
    for (int j = 0; j < T->count; j++)
      if (T->own_home[j] < 0) T->own_home[j] = (int)((b + j) * P / T->gsize);
  }
  free(rp), free(best), free(scnt), free(rcnt), free(pos);
  return rc;
}

/* Every set's owners at its homes, by umd_derive_owners' rules in the same order (partition.h). */
static int derive_owners(umd_blocks *B, int primary) {
  um_context *ctx = B->ctx;
  char *placed = calloc((size_t)B->ns + 1, 1);
  if (!placed) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory placing the sets");
  placed[primary] = 1; /* umd_blocks_partition's */
  int rc = UM_SUCCESS;
  for (int progress = 1; progress && rc == UM_SUCCESS;) {
    progress = 0;
    for (int k = 0; k < ctx->nmaps && rc == UM_SUCCESS; k++) {
      const um_map *mp = ctx->maps[k];
      if (placed[mp->from->index] || !placed[mp->to->index]) continue;
      rc = rule_first_target(B, mp);
      placed[mp->from->index] = 1;
      progress = 1;
    }
    if (progress || rc != UM_SUCCESS) continue;
    for (int k = 0; k < ctx->nmaps; k++) {
      const um_map *mp = ctx->maps[k];
      if (!placed[mp->from->index] || placed[mp->to->index]) continue;
      rc = rule_first_ref(B, mp);
      placed[mp->to->index] = 1;
      progress = 1;
      break; /* the first rule again for the sets this one places */
    }
  }
  for (int s = 0; rc == UM_SUCCESS && s < B->ns; s++) { /* sets no map connects: the block split */
    umd_bset *S = &B->S[s];
    for (int i = 0; !placed[s] && i < S->count; i++) S->own_home[i] = (int)((S->begin[B->rank] + i) * B->P / S->gsize);
  }
  free(placed);
  return rc;
}

int umd_cmp_ll(const void *a, const void *b) {
  const long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

int umd_agree(umd_blocks *B, int rc, const char *step) {
  int mine = rc, all = 0;
  int m = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, B->D->comm);
  if (m != MPI_SUCCESS) return mpi_fail(B->ctx, m, "MPI_Allreduce (blocks)");
  if (rc != UM_SUCCESS || !all) return rc;
  return UM_ERROR(B->ctx, all, "um_distribute: another rank failed %s", step);
}

int umd_agree_any(umd_blocks *B, int rc, const char *step, long long *n) {
  long long mine[2] = {rc, *n}, all[2] = {0, 0};
  const int m = MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_MAX, B->D->comm);
  if (m != MPI_SUCCESS) return mpi_fail(B->ctx, m, "MPI_Allreduce (blocks)");
  *n = all[1];
  if (rc != UM_SUCCESS || !all[0]) return rc;
  return UM_ERROR(B->ctx, (int)all[0], "um_distribute: another rank failed %s", step);
}

void umd_add_note(um_partition_info *info, const char *fmt, ...) {
  size_t l = strlen(info->note);
  if (l && l + 2 < sizeof info->note) {
    memcpy(info->note + l, "; ", 3);
    l += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(info->note + l, sizeof info->note - l, fmt, ap);
  va_end(ap);
}

static void blocks_free(umd_blocks *B) {
  for (int s = 0; B->S && s < B->ns; s++) {
    umd_bset *S = &B->S[s];
    free(S->begin), free(S->own_home), free(S->own), free(S->core), free(S->ex), free(S->nx);
    free(S->ex_owner), free(S->nx_owner);
    umd_gmap_free(&S->held), umd_gmap_free(&S->halo);
    free(S->pos), free(S->sent_ex), free(S->sent_ex_cnt), free(S->sent_nx), free(S->sent_nx_cnt);
  }
  free(B->S), free(B->moff);
}

/* "ranges": each rank owns the blocks it declared, every set; no partitioner, no placing rules. */
static void keep_ranges(umd_blocks *B) {
  for (int s = 0; s < B->ns; s++)
    for (int i = 0; B->S[s].own_home && i < B->S[s].count; i++) B->S[s].own_home[i] = B->rank;
  um_partition_info *info = &B->D->info;
  snprintf(info->partitioner, sizeof info->partitioner, "ranges");
  info->edge_cut = -1;
  umd_add_note(info, "ranges: every set as declared, each rank owning its blocks");
}

/* The imbalance of the primary set's partition (largest part / mean). */
static void blocks_info(umd_blocks *B, int primary) {
  const umd_set *S = &B->D->sets[primary];
  int mx = 0;
  for (int q = 0; q < B->P; q++) mx = S->all_owned[q] > mx ? S->all_owned[q] : mx;
  const long long n = B->S[primary].gsize;
  B->D->info.imbalance = n ? (double)mx * B->P / (double)n : 1.0;
}

/* The maps' 32-bit global rows (um_decl_map_block_take_i32) as 64-bit ones, in their buffer grown: the general
 * steps and the partitioners read 64-bit rows (dist_ranges.c reads both). Entries widen from the last down (entry
 * i's 8 bytes at 8 i never reach an unread entry j < i at 4 j). 0 or the error. */
static int widen_rows(um_context *ctx) {
  for (int k = 0; k < ctx->nmaps; k++) {
    um_map *mp = ctx->maps[k];
    if (!mp->gtargets32) continue;
    const size_t n = (size_t)mp->from->size * (size_t)mp->arity;
    char *w = realloc(mp->gtargets32, (n ? n : 1) * sizeof(long long));
    if (!w) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory widening the rows of map '%s'", mp->name);
    for (size_t i = n; i-- > 0;) {
      int t;
      memcpy(&t, w + i * sizeof t, sizeof t);
      const long long g = t;
      memcpy(w + i * sizeof g, &g, sizeof g);
    }
    mp->gtargets32 = NULL, mp->gtargets = (long long *)w;
  }
  return UM_SUCCESS;
}

int umd_distribute_blocks(um_context *ctx, struct um_dist *D, int primary, const char *method) {
  const double t0 = MPI_Wtime();
  umd_blocks B = {ctx, D, D->nranks, D->rank, ctx->nsets, NULL, NULL, !strcmp(method, "ranges")};
  B.S = calloc((size_t)B.ns, sizeof *B.S);
  B.moff = calloc((size_t)ctx->nmaps + 1, sizeof *B.moff);
  int rc = B.S && B.moff ? UM_SUCCESS : UM_ERR_ALLOC;
  const char *general = getenv("UM_TEST_RANGES_GENERAL"); /* the tests: "ranges" through the general steps */
  const int in_place = B.ranges && !(general && *general == '1');
  for (int s = 0; rc == UM_SUCCESS && s < B.ns; s++) {
    umd_bset *S = &B.S[s];
    S->count = ctx->sets[s]->size;
    S->begin = malloc(((size_t)B.P + 1) * sizeof *S->begin);
    if (!in_place) /* the owners the general steps ask of an element's home (in place: every one this rank) */
      S->own_home = malloc((size_t)(S->count ? S->count : 1) * sizeof *S->own_home);
    if (!S->begin || (!in_place && !S->own_home)) rc = UM_ERR_ALLOC;
  }
  if (rc != UM_SUCCESS) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing the blocks");
  if (rc == UM_SUCCESS && !in_place) rc = widen_rows(ctx);
  rc = umd_agree(&B, rc, "to start distributing the blocks");
  if (rc == UM_SUCCESS) rc = check_tiling(&B); /* the same verdict on every rank */
  if (rc == UM_SUCCESS && B.ranges) keep_ranges(&B);
  if (rc == UM_SUCCESS && !B.ranges) rc = umd_agree(&B, umd_blocks_partition(&B, primary, method), "partitioning");
  if (rc == UM_SUCCESS && !B.ranges) rc = umd_agree(&B, derive_owners(&B, primary), "placing the sets");
  const double t1 = MPI_Wtime();
  um_setup_begin(ctx, UM_SETUP_MIGRATE); /* inside um_distribute's partition phase, which ends it */
  D->info.partition_seconds = t1 - t0;
  if (rc == UM_SUCCESS && in_place) {
    rc = umd_agree(&B, umd_ranges_install(&B), "installing the ranges");
  } else {
    if (rc == UM_SUCCESS) rc = umd_agree(&B, umd_blocks_layout(&B, 0), "laying out the rows");
    if (rc == UM_SUCCESS) rc = umd_agree(&B, umd_blocks_migrate(&B), "migrating the rows");
    um_setup_begin(ctx, UM_SETUP_HALOS);
    if (rc == UM_SUCCESS) rc = umd_agree(&B, umd_blocks_halos(&B), "building the halos");
    um_setup_end(ctx, UM_SETUP_HALOS);
    if (rc == UM_SUCCESS) rc = umd_agree(&B, umd_blocks_install(&B), "installing the rows");
  }
  if (rc == UM_SUCCESS) blocks_info(&B, primary);
  D->info.migrate_seconds = MPI_Wtime() - t1;
  blocks_free(&B);
  for (int s = 0; s < ctx->nsets; s++) { /* the declared halos (um_decl_set_halo_block): taken, or not this one's */
    um_set *set = ctx->sets[s];
    free(set->halo_exec), free(set->halo_nonexec);
    set->halo_exec = set->halo_nonexec = NULL, set->halo_nexec = set->halo_nnonexec = 0;
  }
  for (int k = 0; k < ctx->nmaps; k++) free(ctx->maps[k]->halo_rows), ctx->maps[k]->halo_rows = NULL;
  return rc;
}
#endif /* UM_HAVE_MPI */
