/* dist_ranges.c: um_distribute by blocks with "ranges" (every rank owns the blocks it declared, every set).
 *
 * The general steps (dist_blocks_rows.c) pack every declared row into a record, send it to its owner (here the
 * rank itself) and build the local rows from records through hash maps of global numbers: on a rank's share of a
 * generated mesh that is more time than generating it. Here nothing moves but the halos:
 *   1. the exec halo of each set: an owned element with a target outside this rank's block of the target's set
 *      (found by one vectorised pass over each map, which also rewrites 32-bit rows as offsets from the to-set's
 *      block here: a core row of a set that keeps its order is then already local; its owner is its home: a binary
 *      search of the blocks' starts) is not core, and its record (built from the declared rows; 4 bytes a number
 *      where the set's global numbers and every map's declared rows are 32-bit) goes to each other owner of one of
 *      its targets; the targets outside of the rows that are not core are kept in a list, with their span;
 *   2. the non-exec halo: the targets of owned rows that are not core and of exec rows, neither owned nor exec
 *      here, asked of their owners, who note them for their export lists (nothing comes back: no loop runs a
 *      non-exec row, so its map rows are zeros, as on every path);
 *   3. the local order of dist_blocks.c (exec, non-exec, each by owner then global number, after the owned; the
 *      owned in their order where the core rows are one run of them, as on a block of a generated mesh, else core
 *      then the rest, each ascending): pos[] gives an owned element's local index (none where they keep their
 *      order), a map of the halo's global numbers the others'; where they keep their order the local -> global
 *      numbers are left implicit (the block's, then the halo's: made for their first reader, a fetch by blocks, a
 *      checkpoint or a reproducible split loop, by umd_l2g_ready);
 *   4. each map's global rows become local ones in the buffer that held them (8 bytes an entry become 4; the core
 *      rows, through pos alone, only ever move down), each dat's owned rows stay in theirs (realloc to the local
 *      rows) or move within it (the core rows down, the few others after them); its halo rows are left stale, for
 *      the first loop that reads them to exchange (a dat no loop reads there never travels).
 * Where the app declared every set's halo with its blocks (um_decl_set_halo_block, um_decl_map_halo_block: a
 * generator that knows its neighbours), steps 1 and 2 take it: the pass over each map still gives the core flags
 * (and rewrites the 32-bit rows), but no row leaving the block is asked which ranks it reaches, no record is made
 * or sent (the exec rows and numbers are read from the declaration), and each owner learns its export lists from
 * one exchange of the declared numbers (exec, then non-exec); UM_TEST_RANGES_UNDECLARED=1 drops the declarations
 * (tests/check_declared_halo.sh compares the two).
 * The result is the general steps' to the byte once the halos are exchanged (tests/test_mpi_blocks.cpp,
 * RangesInstall), with no page of the rank's mesh copied. UM_TEST_RANGES_GENERAL=1 in the environment takes the
 * general steps instead (the tests). */
#include "dist_blocks.h"

#include <stdlib.h>

#ifdef UM_HAVE_MPI

static inline int in_block(const umd_bset *T, int rank, long long g) {
  return g >= T->begin[rank] && g < T->begin[rank + 1];
}

/* Row e of a map's global rows (64-bit g64, else 32-bit g32 holding offsets from base: rows_outside rewrites
 * them so) of ar entries, as 64-bit global numbers in row. */
static inline void global_row(const long long *g64, const int *g32, long long base, int ar, size_t e, long long *row) {
  if (g64)
    memcpy(row, g64 + e * (size_t)ar, (size_t)ar * sizeof *row);
  else
    for (int a = 0; a < ar; a++) row[a] = base + g32[e * (size_t)ar + (size_t)a];
}

/* Map mp's to-set's block start here: what its 32-bit rows are offsets from, once rows_outside has run. */
static inline long long map_base(const umd_blocks *B, const um_map *mp) { return B->S[mp->to->index].begin[B->rank]; }

/* Record i of set S's records recs (S->w bytes a number): its global number, and entry a of the map row at byte
 * offset off. */
static inline long long rec_g(const umd_bset *S, const char *recs, int i) {
  return umd_rec_num(recs + (size_t)i * S->rec, S->w, 0);
}
static inline long long rec_t(const umd_bset *S, const char *recs, int i, size_t off, int a) {
  return umd_rec_num(recs + (size_t)i * S->rec + off, S->w, (size_t)a);
}

/* The records of elements el[n] of this rank's block of set s into sb: their global numbers and their maps'
 * declared global rows, S->w bytes a number (4: every one of them 32-bit). */
static void own_records(const umd_blocks *B, int s, const int *el, int n, char *sb) {
  const um_context *ctx = B->ctx;
  const umd_bset *S = &B->S[s];
  const long long b0 = S->begin[B->rank];
  for (int j = 0; j < n; j++) {
    char *r = sb + (size_t)j * S->rec;
    if (S->w == 4) {
      const int g = (int)(b0 + el[j]);
      memcpy(r, &g, sizeof g);
    } else {
      const long long g = b0 + el[j];
      memcpy(r, &g, sizeof g);
    }
  }
  for (int k = 0; k < ctx->nmaps; k++) {
    const um_map *mp = ctx->maps[k];
    if (mp->from->index != s) continue;
    const size_t ar = (size_t)mp->arity;
    const long long base = map_base(B, mp);
    for (int j = 0; j < n; j++) { /* 8-byte numbers: at a multiple of 8 of the buffer (rec and moff are) */
      char *r = sb + (size_t)j * S->rec + B->moff[k];
      if (S->w == 4) { /* every number fits 32 bits: the row's offsets plus base, through a row on the stack */
        int row[64];
        const int *o = mp->gtargets32 + (size_t)el[j] * ar;
        for (size_t a0 = 0; a0 < ar; a0 += 64) {
          const size_t m = ar - a0 < 64 ? ar - a0 : 64;
          for (size_t a = 0; a < m; a++) row[a] = (int)(base + o[a0 + a]);
          memcpy(r + a0 * sizeof *row, row, m * sizeof *row);
        }
      } else
        global_row(mp->gtargets, mp->gtargets32, base, (int)ar, (size_t)el[j], (long long *)(void *)r);
    }
  }
}

/* The records of elements el[n] of this rank's block (grouped by destination, cnt[P] each) to their ranks:
 * umd_send_packed's *out, *nout, *src (collective). */
static int send_own(umd_blocks *B, int s, const int *el, int n, const int *cnt, char **out, int *nout, int **src) {
  const size_t rec = B->S[s].rec;
  char *sb = malloc((size_t)(n ? n : 1) * rec);
  int rc = umd_agree(B, sb ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory sending halo rows"),
                     "packing halo rows");
  if (rc == UM_SUCCESS) own_records(B, s, el, n, sb);
  if (rc == UM_SUCCESS) rc = umd_send_packed(B, s, sb, cnt, out, nout, src);
  free(sb);
  return rc;
}

/* A map from the set being scanned: its rows and its to-set's block here. */
typedef struct {
  const long long *tg; /* 64-bit rows, else tg32 (offsets from b0 once rows_outside has run) */
  int *tg32;
  int ar;
  long long b0, b1;
  umd_bset *T;
  int read_only; /* um_map_set_read_only: its rows make no exec halo */
  int hint; /* the home of the last target outside found: tried first */
} from_map;

/* The maps from set s (*nf of them, *arsum their arities summed): NULL on no memory. */
static from_map *maps_from(const umd_blocks *B, int s, int *nf, int *arsum) {
  const um_context *ctx = B->ctx;
  from_map *f = malloc(((size_t)ctx->nmaps + 1) * sizeof *f);
  *nf = *arsum = 0;
  for (int k = 0; f && k < ctx->nmaps; k++) {
    const um_map *mp = ctx->maps[k];
    if (mp->from->index != s) continue;
    umd_bset *T = &B->S[mp->to->index];
    f[(*nf)++] = (from_map){.tg = mp->gtargets,
                            .tg32 = mp->gtargets32,
                            .ar = mp->arity,
                            .b0 = T->begin[B->rank],
                            .b1 = T->begin[B->rank + 1],
                            .T = T,
                            .read_only = mp->read_only};
    *arsum += mp->arity;
  }
  return f;
}

/* out[e] |= 1 for each row e of map f (n rows) with a target outside this rank's block [b0, b1) of its to-set:
 * one pass over the map, x - b0 compared unsigned with b1 - b0, the common arities known to the compiler (a
 * vectorised loop). 32-bit rows compare in 32 bits (their to-set has at most INT_MAX elements, so x - b0 fits an
 * int) and are rewritten in the same pass as those offsets x - b0: the rows' local indices where the to-set keeps
 * its order, and their global numbers plus b0 for every later reader. */
#define ROWS_OUT(T, U, AR, STORE)                                                                                      \
  for (int e = 0; e < n; e++) {                                                                                        \
    int o = 0;                                                                                                         \
    for (int a = 0; a < (AR); a++) {                                                                                   \
      const size_t at = (size_t)e * (AR) + (size_t)a;                                                                  \
      const T x = t[at] - (T)f->b0;                                                                                    \
      STORE;                                                                                                           \
      o |= (U)x >= (U)w;                                                                                               \
    }                                                                                                                  \
    out[e] |= (unsigned char)o;                                                                                        \
  }
#define ROWS_OUT_ANY(T, U, rows, STORE)                                                                                \
  do {                                                                                                                 \
    T *t = (rows);                                                                                                     \
    switch (f->ar) {                                                                                                   \
    case 1: ROWS_OUT(T, U, 1, STORE) break;                                                                            \
    case 2: ROWS_OUT(T, U, 2, STORE) break;                                                                            \
    case 3: ROWS_OUT(T, U, 3, STORE) break;                                                                            \
    case 4: ROWS_OUT(T, U, 4, STORE) break;                                                                            \
    case 6: ROWS_OUT(T, U, 6, STORE) break;                                                                            \
    case 8: ROWS_OUT(T, U, 8, STORE) break;                                                                            \
    default: ROWS_OUT(T, U, f->ar, STORE) break;                                                                       \
    }                                                                                                                  \
  } while (0)
static void rows_outside(const from_map *f, int n, unsigned char *out) {
  const long long w = f->b1 - f->b0;
  if (f->tg)
    ROWS_OUT_ANY(const long long, unsigned long long, f->tg, (void)0);
  else
    ROWS_OUT_ANY(int, unsigned, f->tg32, t[at] = x);
}
#undef ROWS_OUT_ANY
#undef ROWS_OUT

int umd_ranges_leaving(umd_blocks *B, int s, unsigned char *out) {
  int nf = 0, arsum = 0;
  from_map *fm = maps_from(B, s, &nf, &arsum);
  if (!fm) return UM_ERR_ALLOC;
  for (int k = 0; k < nf; k++) rows_outside(&fm[k], B->S[s].count, out);
  free(fm);
  return UM_SUCCESS;
}

/* The other ranks element e of the block reaches through the maps fm[nf] that are not read-only, ascending, into q
 * (*nq of them): asked only for the rows rows_outside marked. */
static void ranks_reached(from_map *fm, int nf, int P, int e, int *q, int *nq) {
  *nq = 0;
  for (int k = 0; k < nf; k++) {
    from_map *f = &fm[k];
    const umd_bset *T = f->T;
    if (f->read_only) continue;
    for (int a = 0; a < f->ar; a++) {
      const size_t at = (size_t)e * f->ar + a;
      const long long g = f->tg ? f->tg[at] : f->b0 + f->tg32[at];
      if (g >= f->b0 && g < f->b1) continue;
      const long long *bg = T->begin;
      const int h = g >= bg[f->hint] && g < bg[f->hint + 1] ? f->hint : (f->hint = umd_home(T, P, g));
      int i = *nq;
      while (i > 0 && q[i - 1] > h) i--; /* insertion: ascending, each rank once */
      if (i > 0 && q[i - 1] == h) continue;
      memmove(q + i + 1, q + i, (size_t)(*nq - i) * sizeof *q);
      q[i] = h, (*nq)++;
    }
  }
}

/* The targets of row e of the maps fm[nf] outside this rank's block of their to-sets, appended to each to-set's rg
 * (rn of them, least rlo, greatest rhi; exec_ranges gave it room for every entry of the rows that leave the block). */
static void targets_outside(const from_map *fm, int nf, int e) {
  for (int k = 0; k < nf; k++) {
    const from_map *f = &fm[k];
    umd_bset *T = f->T;
    const size_t ar = (size_t)f->ar;
    long long *rg = T->rg, lo = T->rlo, hi = T->rhi;
    const long long b0 = f->b0;
    const unsigned long long w = (unsigned long long)(f->b1 - b0);
    size_t rn = T->rn;
    for (size_t a = 0; a < ar; a++) {
      const long long o = f->tg ? f->tg[(size_t)e * ar + a] - b0 : f->tg32[(size_t)e * ar + a];
      if ((unsigned long long)o < w) continue;
      const long long g = b0 + o;
      rg[rn++] = g, lo = g < lo ? g : lo, hi = g > hi ? g : hi;
    }
    T->rn = rn, T->rlo = lo, T->rhi = hi;
  }
}

/* Set s's core flags and exec halo: each owned element reaching another rank's block through a map that is not
 * read-only is sent there once (elements ascending, so each destination's in ascending order); core: reaching
 * none, through any map. */
static int exec_ranges(umd_blocks *B, int s) {
  um_context *ctx = B->ctx;
  umd_bset *S = &B->S[s];
  const int P = B->P, n = S->count;
  int nf = 0, arsum = 0, np = 0, cap = 1024, nq = 0;
  from_map *fm = maps_from(B, s, &nf, &arsum);
  int *q = malloc(((size_t)arsum + 1) * sizeof *q), *el = malloc((size_t)cap * sizeof *el);
  int *dst = malloc((size_t)cap * sizeof *dst), *cnt = malloc((size_t)P * sizeof *cnt), *perm = NULL;
  int rc = (S->core = calloc((size_t)(n ? n : 1), 1)) && fm && q && el && dst && cnt ? UM_SUCCESS : UM_ERR_ALLOC;
  for (int k = 0; rc == UM_SUCCESS && k < nf; k++) rows_outside(&fm[k], n, S->core); /* 1: leaves the block */
  size_t nout = 0;
  for (int e = 0; rc == UM_SUCCESS && e < n; e++) nout += S->core[e];
  for (int k = 0; rc == UM_SUCCESS && nout && k < nf; k++) { /* room for every entry of those rows: one allocation */
    umd_bset *T = fm[k].T; /* (the pages of what stays unused are never touched) */
    long long *r2 = realloc(T->rg, (T->rcap + nout * (size_t)fm[k].ar) * sizeof *r2);
    if (r2)
      T->rg = r2, T->rcap += nout * (size_t)fm[k].ar;
    else
      rc = UM_ERR_ALLOC;
  }
  for (int e = 0; rc == UM_SUCCESS && e < n; e++) {
    if (!S->core[e]) { /* every row inside: core */
      S->core[e] = 1;
      continue;
    }
    ranks_reached(fm, nf, P, e, q, &nq); /* none: it leaves the block only through read-only maps */
    targets_outside(fm, nf, e); /* for nonexec_keys */
    S->core[e] = 0;
    if (np + nq > cap) {
      cap = 2 * (np + nq);
      int *e2 = realloc(el, (size_t)cap * sizeof *el), *d2 = e2 ? realloc(dst, (size_t)cap * sizeof *dst) : NULL;
      if (e2) el = e2;
      if (d2) dst = d2;
      if (!e2 || !d2) rc = UM_ERR_ALLOC;
    }
    for (int i = 0; rc == UM_SUCCESS && i < nq; i++) el[np] = e, dst[np++] = q[i];
  }
  if (rc == UM_SUCCESS && !(perm = malloc((size_t)(np ? np : 1) * sizeof *perm))) rc = UM_ERR_ALLOC;
  if (rc == UM_SUCCESS) { /* grouped by destination, each group's elements ascending */
    umd_group(np, dst, P, perm, cnt);
    for (int j = 0; j < np; j++) dst[j] = el[perm[j]];
  }
  free(fm), free(q), free(el), free(perm);
  if (rc != UM_SUCCESS) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the exec halo of set '%s'", ctx->sets[s]->name);
  long long any = np;
  rc = umd_agree_any(B, rc, "building the exec halo", &any);
  if (rc == UM_SUCCESS && any) rc = send_own(B, s, dst, np, cnt, &S->ex, &S->nex, &S->ex_owner); /* else none */
  S->sent_ex = dst, S->sent_ex_cnt = cnt; /* the export lists' first part (lists_ranges) */
  return rc;
}

/* Set t's list of outside targets (T->rg: the owned rows', exec_ranges) completed with the targets of the exec rows
 * (their records, every map into t) outside this rank's block [b0, b1), repeats and all: 0, or UM_ERR_ALLOC. */
static int exec_targets(umd_blocks *B, int t) {
  const um_context *ctx = B->ctx;
  umd_bset *T = &B->S[t];
  const long long b0 = T->begin[B->rank];
  const unsigned long long w = (unsigned long long)(T->begin[B->rank + 1] - b0);
  for (int k = 0; k < ctx->nmaps; k++) {
    const um_map *mp = ctx->maps[k];
    if (mp->to->index != t) continue;
    const umd_bset *F = &B->S[mp->from->index];
    const size_t ar = (size_t)mp->arity, most = T->rn + (size_t)F->nex * ar;
    if (most > T->rcap) {
      long long *r2 = realloc(T->rg, most * sizeof *r2);
      if (!r2) return UM_ERR_ALLOC;
      T->rg = r2, T->rcap = most;
    }
    long long lo = T->rlo, hi = T->rhi;
    size_t rn = T->rn;
    for (int e = 0; e < F->nex; e++) {
      const char *r = F->ex + (size_t)e * F->rec + B->moff[k];
      for (size_t a = 0; a < ar; a++) {
        const long long x = umd_rec_num(r, F->w, a);
        if ((unsigned long long)(x - b0) < w) continue;
        T->rg[rn++] = x, lo = x < lo ? x : lo, hi = x > hi ? x : hi;
      }
    }
    T->rn = rn, T->rlo = lo, T->rhi = hi;
  }
  return UM_SUCCESS;
}

/* The targets into set t of owned and exec rows held neither way here, ordered by owner then global number (the
 * homes ascend with the numbers: ascending numbers), each once: marked in a byte a number of their span where it
 * is at most 8 a target found (walked in order), else added to a map of global numbers; the exec rows' taken out. */
static int nonexec_keys(umd_blocks *B, int t, umd_bkey **keys, int *nk) {
  um_context *ctx = B->ctx;
  umd_bset *T = &B->S[t];
  umd_gmap cand = {0};
  unsigned char *mark = NULL;
  long long *g = NULL;
  int k = 0, rc = exec_targets(B, t); /* with the owned rows', found by exec_ranges */
  const size_t n = T->rn, span = n ? (size_t)(T->rhi - T->rlo) + 1 : 0;
  const long long lo = T->rlo, hi = T->rhi;
  const char *hash = getenv("UM_TEST_RANGES_HASH"); /* the tests: the targets through the hashed form */
  if (rc == UM_SUCCESS && hash && *hash == '1')
    rc = umd_gmap_init(&cand, n);
  else if (rc == UM_SUCCESS && n && span <= 8 * n + 4096)
    rc = (mark = calloc(span, 1)) ? UM_SUCCESS : UM_ERR_ALLOC;
  else if (rc == UM_SUCCESS)
    rc = umd_gmap_init_span(&cand, n, lo, hi);
  if (rc == UM_SUCCESS && mark)
    for (size_t i = 0; i < n; i++) mark[T->rg[i] - lo] = 1;
  else
    for (size_t i = 0; rc == UM_SUCCESS && i < n; i++) rc = umd_gmap_add(&cand, T->rg[i], 0);
  for (int i = 0; rc == UM_SUCCESS && i < T->nex; i++) { /* exec here */
    const long long x = rec_g(T, T->ex, i);
    if (mark && x >= lo && x <= hi)
      mark[x - lo] = 0;
    else if (!mark)
      umd_gmap_set(&cand, x, -1);
  }
  size_t most = mark ? 0 : cand.n;
  for (size_t i = 0; mark && i < span; i++) most += mark[i];
  if (rc == UM_SUCCESS &&
      (!(g = malloc((most ? most : 1) * sizeof *g)) || !(*keys = malloc((most ? most : 1) * sizeof **keys))))
    rc = UM_ERR_ALLOC;
  for (size_t i = 0; rc == UM_SUCCESS && mark && i < span; i++)
    if (mark[i]) g[k++] = lo + (long long)i;
  for (size_t i = 0; rc == UM_SUCCESS && !mark && i < umd_gmap_slots(&cand); i++) {
    long long x;
    if (umd_gmap_at(&cand, i, &x) >= 0) g[k++] = x;
  }
  if (rc == UM_SUCCESS && k > 1 && !mark && !cand.dense && !cand.page)
    qsort(g, (size_t)k, sizeof *g, umd_cmp_ll); /* hashed: no order */
  for (int i = 0, h = 0; rc == UM_SUCCESS && i < k; i++) { /* homes ascend with the numbers */
    while (g[i] >= T->begin[h + 1]) h++;
    (*keys)[i] = (umd_bkey){h, g[i]};
  }
  umd_gmap_free(&cand);
  free(mark), free(g), free(T->rg);
  T->rg = NULL, T->rn = T->rcap = 0;
  *nk = k;
  return rc == UM_SUCCESS ? rc : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the halo of set '%s'", ctx->sets[t]->name);
}

/* Set t's non-exec halo: its rows asked of their owners (the global numbers), who note them for their export lists;
 * nothing comes back: a non-exec row's global number and owner are all this rank keeps of it (no loop runs it: its
 * map rows are zeros), so T->nx holds the global numbers alone, 8 bytes each, in the asked order. */
static int nonexec_ranges(umd_blocks *B, int t) {
  um_context *ctx = B->ctx;
  umd_bset *T = &B->S[t];
  const int P = B->P;
  umd_bkey *keys = NULL;
  long long *sg = NULL, *rg = NULL;
  int nk = 0, nr = 0, *el = NULL, *own = NULL;
  int *scnt = calloc((size_t)P, sizeof *scnt), *rcnt = calloc((size_t)P, sizeof *rcnt); /* rcnt: 0 where none asks */
  int rc = scnt && rcnt ? nonexec_keys(B, t, &keys, &nk) : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  if (rc == UM_SUCCESS &&
      (!(sg = malloc((size_t)(nk ? nk : 1) * sizeof *sg)) || !(own = malloc((size_t)(nk ? nk : 1) * sizeof *own))))
    rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int i = 0; rc == UM_SUCCESS && i < nk; i++) sg[i] = keys[i].g, own[i] = keys[i].owner, scnt[keys[i].owner]++;
  long long any = nk;
  rc = umd_agree_any(B, rc, "asking for halo rows", &any);
  if (rc == UM_SUCCESS && any) rc = umd_a2a(B, MPI_LONG_LONG, sizeof *sg, sg, scnt, (void **)&rg, rcnt, &nr);
  if (rc == UM_SUCCESS && any && !(el = malloc((size_t)(nr ? nr : 1) * sizeof *el)))
    rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int i = 0; rc == UM_SUCCESS && i < nr; i++) {
    if (!in_block(T, B->rank, rg[i]))
      rc = UM_ERROR(ctx, UM_ERR_INTERNAL, "set '%s': rank %d was asked for element %lld, which it does not own",
                    ctx->sets[t]->name, B->rank, rg[i]);
    else
      el[i] = (int)(rg[i] - T->begin[B->rank]);
  }
  if (any) rc = umd_agree(B, rc, "answering for halo rows");
  if (rc == UM_SUCCESS) {
    T->nx = (char *)sg, T->nx_owner = own, T->nnx = nk; /* the keys' order: by owner, then global number */
    sg = NULL, own = NULL;
  }
  T->sent_nx = el, T->sent_nx_cnt = rcnt; /* the export lists' second part (lists_ranges): asked order, per asker */
  free(keys), free(sg), free(own), free(rg), free(scnt);
  return rc;
}

/* Set s's local order: pos[] of its block, l2g, the halo rows' owners (hown) and the map of their numbers. Where
 * the owned keep their order, l2g is left implicit (their numbers are the block's: only the halo's are kept, and
 * umd_l2g_ready makes the whole array for its first reader, if any). */
static int order_ranges(umd_blocks *B, int s, int *hown) {
  umd_bset *S = &B->S[s];
  umd_set *U = &B->D->sets[s];
  const int n = S->count, nh = S->nex + S->nnx;
  S->nown = n;
  U->total = n + nh;
  S->keep_order = umd_core_run(S->core, n, &S->core_begin);
  const long long b0 = S->begin[B->rank];
  long long *hg; /* the halo rows' global numbers */
  if (S->keep_order) {
    U->l2g_base = b0;
    hg = U->l2g_halo = malloc((size_t)(nh ? nh : 1) * sizeof *hg);
  } else {
    U->l2g = malloc((size_t)(U->total ? U->total : 1) * sizeof *U->l2g);
    S->pos = malloc((size_t)(n ? n : 1) * sizeof *S->pos);
    hg = U->l2g ? U->l2g + n : NULL;
  }
  if (!hg || (!S->keep_order && !S->pos))
    return UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory ordering set '%s'", B->ctx->sets[s]->name);
  if (!S->keep_order) {
    int ncore = 0;
    for (int e = 0; e < n; e++) ncore += S->core[e];
    for (int e = 0, c = 0, r = ncore; e < n; e++) {
      S->pos[e] = S->core[e] ? c++ : r++;
      U->l2g[S->pos[e]] = b0 + e;
    }
  }
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  for (int i = 0; i < nh; i++) {
    const long long g = i >= S->nex ? umd_rec_g(S->nx, sizeof g, i - S->nex)
                        : S->ex     ? rec_g(S, S->ex, i)
                                    : B->ctx->sets[s]->halo_exec[i]; /* declared (exec_declared) */
    hg[i] = g, hown[i] = i < S->nex ? S->ex_owner[i] : S->nx_owner[i - S->nex];
    lo = g < lo ? g : lo, hi = g > hi ? g : hi;
  }
  int rc = umd_gmap_init_span_hole(&S->halo, (size_t)nh, lo, hi, b0, b0 + n - 1); /* no halo row is owned */
  for (int i = 0; rc == UM_SUCCESS && i < nh; i++) rc = umd_gmap_add(&S->halo, hg[i], n + i);
  return rc == UM_SUCCESS ? rc : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory indexing set '%s'", B->ctx->sets[s]->name);
}

/* Set T's global numbers -> local indices: its block [b0, b0 + n) through pos, the others through the halo's map
 * (held in locals: the stores of a row alias nothing of it). */
typedef struct {
  long long b0;
  int n, same; /* same: pos[o] == o */
  const int *pos;
  const umd_gmap *halo;
} to_local;
static to_local local_index(const umd_bset *T, int rank) {
  return (to_local){T->begin[rank], T->count, T->keep_order, T->pos, &T->halo};
}

/* Element e of the block's local index. */
static inline int pos_of(const umd_bset *S, int e) { return S->keep_order ? e : S->pos[e]; }

/* The local index of the element o past the to-set's block start here (o < 0 or past the block: through the halo's
 * map); -1 where it is not held. */
static inline int local_of(const to_local *L, long long o) {
  return o >= 0 && o < L->n ? (L->same ? (int)o : L->pos[o]) : umd_gmap_get(L->halo, L->b0 + o);
}

/* Row src (ar global targets) local into dst; a target not held: 0, and -1 back. */
static inline int local_row(const to_local *L, int ar, const long long *src, int *dst) {
  int bad = 0;
  for (int a = 0; a < ar; a++) {
    const int l = local_of(L, src[a] - L->b0);
    bad |= l < 0;
    dst[a] = l < 0 ? 0 : l;
  }
  return bad ? -1 : 0;
}

/* Row e of a map's rows (g64: global numbers, copied to row first, as dst may overlap their bytes; g32: offsets
 * from the to-set's block start, each read before its entry of dst is written, dst the row itself or apart) local
 * into dst; a target not held: 0, and -1 back. */
static inline int row_local(const to_local *L, const long long *g64, const int *g32, int ar, size_t e, long long *row,
                            int *dst) {
  if (g64) {
    memcpy(row, g64 + e * (size_t)ar, (size_t)ar * sizeof *row);
    return local_row(L, ar, row, dst);
  }
  int bad = 0;
  for (int a = 0; a < ar; a++) {
    const int l = local_of(L, g32[e * (size_t)ar + (size_t)a]);
    bad |= l < 0;
    dst[a] = l < 0 ? 0 : l;
  }
  return bad ? -1 : 0;
}

/* Entries [s0, s0 + m) of a map's global rows (g64, or g32 as offsets from L.b0), all in this rank's block of the
 * to-set (L), local into out[d0, d0 + m), d0 <= s0 in the same buffer: through a chunk on the stack, so each loop
 * runs over unaliased arrays (vectorised), and each chunk is read before its local indices are written (4 bytes an
 * entry, at or below where the entry's own bytes began). */
static void run_local(const long long *g64, const int *g32, size_t s0, size_t m, to_local L, int *out, size_t d0) {
  enum { C = 512 };
  long long x[C];
  for (size_t i = 0; i < m; i += C) {
    const size_t c = m - i < C ? m - i : C;
    if (g64)
      for (size_t j = 0; j < c; j++) x[j] = g64[s0 + i + j] - L.b0;
    else
      for (size_t j = 0; j < c; j++) x[j] = g32[s0 + i + j];
    int *o = out + d0 + i;
    if (L.same)
      for (size_t j = 0; j < c; j++) o[j] = (int)x[j];
    else
      for (size_t j = 0; j < c; j++) o[j] = L.pos[x[j]];
  }
}

/* The core rows of a map from set F (arity ar) local into out at their local positions: every target of a core row
 * is in this rank's block of the to-set (L), so pos gives it. A run of consecutive core rows has consecutive local
 * positions (pos[e] <= e): one run_local each. */
static void core_rows_local(const umd_bset *F, const long long *g64, const int *g32, int ar, to_local L, int *out) {
  for (int e = 0; e < F->count;) {
    if (!F->core[e]) {
      e++;
      continue;
    }
    int f = e + 1;
    while (f < F->count && F->core[f]) f++;
    run_local(g64, g32, (size_t)e * ar, (size_t)(f - e) * ar, L, out, (size_t)F->pos[e] * ar);
    e = f;
  }
}

/* Map k's rows in its from-set's local order, targets local, in the buffer of its global rows (64-bit, or 32-bit
 * offsets from the to-set's block): the owned rows that are not core first aside (unless the owned keep their
 * order: then each row in place, ascending; its core rows of 32-bit offsets into a to-set that keeps its order are
 * local already), then the core rows down in place (row e to pos[e] <= e: 4 bytes an entry written never past the
 * row's own entries, read before), the ones aside after them; then, once no owned global row is left to read, the
 * exec rows from their records and the non-exec rows (zeros) straight after the owned. */
static int install_map_ranges(umd_blocks *B, int k) {
  um_context *ctx = B->ctx;
  um_map *mp = ctx->maps[k];
  const umd_bset *F = &B->S[mp->from->index], *T = &B->S[mp->to->index];
  const int ar = mp->arity, n = F->count, nh = F->nex + F->nnx;
  int nnc = 0, bad = 0; /* nnc: the rows set aside (the owned that are not core, unless keep_order) */
  for (int e = 0; e < n && !F->keep_order; e++) nnc += !F->core[e];
  const size_t need = ((size_t)(n + nh) * ar + 1) * sizeof(int);
  const size_t have = ((size_t)n * ar > 0 ? (size_t)n * ar : 1) * (mp->gtargets ? sizeof(long long) : sizeof(int));
  void *buf = mp->gtargets ? (void *)mp->gtargets : (void *)mp->gtargets32;
  long long *row = malloc((size_t)ar * sizeof *row);
  int *aside = malloc(((size_t)nnc * ar + 1) * sizeof *aside);
  if (row && aside && need > have) {
    void *g2 = realloc(buf, need);
    if (!g2) free(aside), aside = NULL;
    else buf = g2;
  }
  if (mp->gtargets) mp->gtargets = buf;
  else mp->gtargets32 = buf;
  if (!row || !aside) {
    free(row), free(aside);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing map '%s'", mp->name);
  }
  const long long *g64 = mp->gtargets;
  const int *g32 = mp->gtargets32;
  const to_local L = local_index(T, B->rank);
  int *out = buf;
  if (F->keep_order) /* every row in place, ascending: row e's 4-byte entries end at or below where its own began */
    for (int e = 0; e < n;) {
      int f = e + 1;
      if (F->core[e]) {
        while (f < n && F->core[f]) f++;
        if (g64 || !L.same) run_local(g64, g32, (size_t)e * ar, (size_t)(f - e) * ar, L, out, (size_t)e * ar);
      } else
        bad |= row_local(&L, g64, g32, ar, (size_t)e, row, out + (size_t)e * ar);
      e = f;
    }
  else { /* the rows that are not core aside, read before the core rows move down over them */
    for (int e = 0, na = 0; e < n; e++)
      if (!F->core[e]) bad |= row_local(&L, g64, g32, ar, (size_t)e, row, aside + (size_t)na++ * ar);
    core_rows_local(F, g64, g32, ar, L, out);
    memcpy(out + (size_t)(n - nnc) * ar, aside, (size_t)nnc * ar * sizeof *aside);
  }
  for (int i = 0; i < F->nex; i++) { /* past the owned: no global row of theirs is left unread */
    const long long *src = F->ex ? row : mp->halo_rows + (size_t)i * ar; /* no records: declared (exec_declared) */
    for (int a = 0; F->ex && a < ar; a++) row[a] = rec_t(F, F->ex, i, B->moff[k], a);
    bad |= local_row(&L, ar, src, out + (size_t)(n + i) * ar);
  }
  memset(out + (size_t)(n + F->nex) * ar, 0, (size_t)F->nnx * ar * sizeof *out); /* non-exec rows: never run */
  free(aside), free(row);
  mp->gtargets = NULL, mp->gtargets32 = NULL;
  if (bad) {
    free(out);
    return UM_ERROR(ctx, UM_ERR_INTERNAL, "map '%s': a local row reaches an element rank %d does not hold", mp->name, B->rank);
  }
  int *shrunk = realloc(out, need);
  free(mp->data);
  mp->data = shrunk ? shrunk : out;
  return UM_SUCCESS;
}

/* Dat k's owned rows (an AoS buffer: row bytes rb) in the local order within the buffer, grown to nrows: where the
 * owned keep their order, nothing moves; else the rows that are not core aside, the core rows down in runs, the
 * others after them. The rows past the owned are left as the allocator gives them (no page of them touched here):
 * the halo rows are stale, exchanged before any loop reads them, and the rows past them are never read. */
static int move_rows(umd_blocks *B, int k, int nrows) {
  um_dat *d = B->ctx->dats[k];
  const umd_bset *S = &B->S[d->set->index];
  const size_t rb = (size_t)d->dim * d->esize;
  const int n = S->count;
  if (S->keep_order) { /* the owned rows stay where they are */
    char *nd = realloc(d->data, (size_t)(nrows ? nrows : 1) * rb);
    if (!nd) return UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory distributing dat '%s'", d->name);
    d->data = nd; /* the halo rows past them: stale until the first loop that reads them exchanges them */
    return UM_SUCCESS;
  }
  int nnc = 0;
  for (int e = 0; e < n; e++) nnc += !S->core[e];
  char *aside = malloc((size_t)(nnc ? nnc : 1) * rb), *nd = aside ? realloc(d->data, (size_t)(nrows ? nrows : 1) * rb) : NULL;
  if (!nd) {
    free(aside);
    return UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory distributing dat '%s'", d->name);
  }
  d->data = nd;
  for (int e = 0, j = 0; e < n; e++)
    if (!S->core[e]) memcpy(aside + (size_t)j++ * rb, nd + (size_t)e * rb, rb);
  for (int e = 0; e < n;) { /* a run of core rows [e, f) to pos[e] */
    if (!S->core[e]) {
      e++;
      continue;
    }
    int f = e + 1;
    while (f < n && S->core[f]) f++;
    if (S->pos[e] != e) memmove(nd + (size_t)S->pos[e] * rb, nd + (size_t)e * rb, (size_t)(f - e) * rb);
    e = f;
  }
  memcpy(nd + (size_t)(n - nnc) * rb, aside, (size_t)nnc * rb);
  free(aside);
  return UM_SUCCESS;
}

/* Dat k's owned rows (SoA storage) in the local order, in a new buffer of nrows rows. */
static int copy_rows(umd_blocks *B, int k, int total) {
  um_dat *d = B->ctx->dats[k];
  const umd_bset *S = &B->S[d->set->index];
  char *nd = NULL, *row = malloc((size_t)d->dim * d->esize);
  int nrows = 0, rc = row ? umd_new_rows(B, k, total, &nd, &nrows) : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory");
  um_dat to = *d;
  to.data = nd, to.rows = nrows;
  for (int e = 0; rc == UM_SUCCESS && e < S->count; e++) copy_row_out(d, e, row), copy_row_in(&to, pos_of(S, e), row);
  if (rc == UM_SUCCESS) free(d->data), d->data = nd, d->rows = nrows;
  free(row);
  return rc;
}

/* Set s's dats in its local order: zeros (zero[k], umd_zero_dats: on every rank) allocated so, the others' owned
 * rows moved within their buffers, their halo rows marked stale: the first loop that reads a dat's halo exchanges it
 * (loop.c's halo_list), and a dat no loop reads there never travels (nor are its halo rows' pages touched). */
static int dats_ranges(umd_blocks *B, int s, const int *zero) {
  um_context *ctx = B->ctx;
  const umd_set *U = &B->D->sets[s];
  int rc = UM_SUCCESS;
  const int align = ctx->opts.row_align > 1 ? ctx->opts.row_align : 1, nrows = (U->total + align - 1) / align * align;
  for (int k = 0; rc == UM_SUCCESS && k < ctx->ndats; k++) { /* here alone */
    um_dat *d = ctx->dats[k];
    if (d->set->index != s) continue;
    char *nd = NULL;
    int nr = 0;
    if (zero[k]) { /* zeros on every rank: no exchange on any */
      if ((rc = umd_new_rows(B, k, U->total, &nd, &nr)) == UM_SUCCESS) umd_install_rows(B, k, nd, nr);
      continue;
    }
    rc = um__dat_to_host(ctx, d);
    if (rc == UM_SUCCESS) rc = d->layout == UM_SOA && d->dim > 1 ? copy_rows(B, k, U->total) : move_rows(B, k, nrows);
    if (rc == UM_SUCCESS) d->rows = nrows;
    if (rc == UM_SUCCESS) um__dat_host_moved(d), d->halo_stale = 1;
  }
  return rc;
}

/* Set s's halo lists with no exchange: imports its halo rows grouped by owner (stable: local order); exports to
 * rank q what this rank sent q, its exec rows then the non-exec rows q asked for, as sent: q's halo rows from
 * here in q's local order (exec, then non-exec, each ascending). */
static int lists_ranges(umd_blocks *B, int s, const int *hown) {
  const umd_bset *S = &B->S[s];
  umd_set *U = &B->D->sets[s];
  const int P = B->P, n = S->count, nh = U->total - n;
  int *icnt = calloc((size_t)P, sizeof *icnt), *perm = malloc((size_t)(nh ? nh : 1) * sizeof *perm), ne = 0;
  for (int q = 0; q < P; q++) ne += S->sent_ex_cnt[q] + S->sent_nx_cnt[q];
  U->imp = malloc((size_t)(nh ? nh : 1) * sizeof *U->imp);
  U->exp = malloc((size_t)(ne ? ne : 1) * sizeof *U->exp);
  U->nb = malloc((size_t)P * sizeof *U->nb);
  U->imp_off = calloc((size_t)P + 1, sizeof *U->imp_off), U->exp_off = calloc((size_t)P + 1, sizeof *U->exp_off);
  if (!icnt || !perm || !U->imp || !U->exp || !U->nb || !U->imp_off || !U->exp_off) {
    free(icnt), free(perm);
    return UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the halo lists of set '%s'", B->ctx->sets[s]->name);
  }
  umd_group(nh, hown, P, perm, icnt);
  for (int j = 0; j < nh; j++) U->imp[j] = n + perm[j];
  U->nnb = 0;
  for (int q = 0, xo = 0, no = 0, e = 0; q < P; q++) {
    const int xc = S->sent_ex_cnt[q], nc = S->sent_nx_cnt[q];
    for (int i = 0; i < xc; i++) U->exp[e++] = pos_of(S, S->sent_ex[xo + i]);
    for (int i = 0; i < nc; i++) U->exp[e++] = pos_of(S, S->sent_nx[no + i]);
    xo += xc, no += nc;
    if (!icnt[q] && !xc && !nc) continue;
    U->nb[U->nnb] = q;
    U->imp_off[U->nnb + 1] = U->imp_off[U->nnb] + icnt[q];
    U->exp_off[U->nnb + 1] = U->exp_off[U->nnb] + xc + nc;
    U->nnb++;
  }
  free(icnt), free(perm);
  return UM_SUCCESS;
}

int umd_ranges_install(umd_blocks *B) {
  um_context *ctx = B->ctx;
  const int ns = B->ns;
  int declared = 0, rc = umd_blocks_layout(B, 1), **hown = calloc((size_t)ns, sizeof *hown);
  if (rc == UM_SUCCESS && !hown) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  if (rc == UM_SUCCESS) rc = umd_ranges_declared(B, &declared);
  long long undeclared = !declared; /* the declared halos are taken where every rank declared them */
  rc = umd_agree_any(B, rc, "laying out the rows", &undeclared);
  declared = !undeclared;
  if (rc == UM_SUCCESS && declared) umd_add_note(&B->D->info, "each set's halo as the app declared it");
  um_setup_begin(ctx, UM_SETUP_HALOS);
  for (int s = 0; s < ns; s++) B->S[s].rn = 0, B->S[s].rlo = LLONG_MAX, B->S[s].rhi = LLONG_MIN;
  if (rc == UM_SUCCESS && declared) rc = umd_halos_from_declared(B);
  for (int s = 0; rc == UM_SUCCESS && !declared && s < ns; s++) /* every exec halo first */
    rc = umd_agree(B, exec_ranges(B, s), "building the exec halo");
  for (int s = 0; rc == UM_SUCCESS && !declared && s < ns; s++)
    rc = umd_agree(B, nonexec_ranges(B, s), "building the halo");
  um_setup_end(ctx, UM_SETUP_HALOS);
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) {
    const umd_bset *S = &B->S[s];
    hown[s] = malloc(((size_t)S->nex + S->nnx + 1) * sizeof **hown);
    rc = hown[s] ? order_ranges(B, s, hown[s]) : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  }
  for (int k = 0; rc == UM_SUCCESS && k < ctx->nmaps; k++) rc = install_map_ranges(B, k);
  rc = umd_agree(B, rc, "installing the maps");
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) rc = lists_ranges(B, s, hown[s]);
  rc = umd_agree(B, rc, "building halo lists");
  for (int s = 0; s < ns; s++) {
    umd_bset *S = &B->S[s];
    free(hown ? hown[s] : NULL), free(S->ex), free(S->nx), free(S->rg);
    S->ex = S->nx = NULL, S->rg = NULL;
  }
  free(hown);
  int *zero = rc == UM_SUCCESS ? umd_zero_dats(B, -1) : NULL; /* collective: every set's at once */
  if (rc == UM_SUCCESS && !zero) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) rc = dats_ranges(B, s, zero); /* here alone */
  free(zero);
  rc = umd_agree(B, rc, "moving the dats' rows");
  if (rc == UM_SUCCESS) rc = umd_set_counts(B);
  return umd_agree(B, rc, "counting the partition");
}
#endif /* UM_HAVE_MPI */
