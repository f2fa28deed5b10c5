/* dist_blocks_rows.c: the rows of a mesh declared by blocks on their way to their ranks (design: dist_blocks.c):
 * records from homes to owners, the exec halo (owners send the elements that reach other ranks), the non-exec
 * halo (fetched from the owners), then this rank's layout, dats, maps and halo lists. Collective throughout. */
#include "dist_blocks.h"

#include <limits.h>

#ifdef UM_HAVE_MPI

int umd_blocks_layout(umd_blocks *B, int narrow) {
  um_context *ctx = B->ctx;
  int *w = calloc((size_t)B->ns + 1, sizeof *w), m = MPI_SUCCESS;
  if (!w) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory laying out the rows");
  for (int s = 0; s < B->ns; s++) w[s] = narrow && B->S[s].gsize <= INT_MAX ? 4 : 8;
  for (int k = 0; k < ctx->nmaps; k++) /* 64-bit rows here (none declared: either) */
    if (ctx->maps[k]->gtargets) w[ctx->maps[k]->from->index] = 8;
  if (narrow) /* records travel: every rank's the same width */
    m = MPI_Allreduce(MPI_IN_PLACE, w, B->ns, MPI_INT, MPI_MAX, B->D->comm);
  for (int s = 0; s < B->ns; s++) B->S[s].w = w[s], B->S[s].rec = (size_t)w[s];
  free(w);
  if (m != MPI_SUCCESS) return mpi_fail(ctx, m, "MPI_Allreduce (record widths)");
  for (int k = 0; k < ctx->nmaps; k++) {
    umd_bset *S = &B->S[ctx->maps[k]->from->index];
    B->moff[k] = S->rec;
    S->rec += (size_t)ctx->maps[k]->arity * (size_t)S->w;
  }
  for (int s = 0; s < B->ns; s++) {
    umd_bset *S = &B->S[s];
    if (S->rec > INT_MAX) return UM_ERROR(ctx, UM_ERR_ARG, "set '%s': a row of %zu bytes", ctx->sets[s]->name, S->rec);
  }
  return UM_SUCCESS;
}

/* Records of set s packed by destination (sb, scnt[P] each) to their ranks: *out gets the ones sent here, by
 * source rank ascending, each source's in its order; *src (when asked) the source of each. */
int umd_send_packed(umd_blocks *B, int s, const char *sb, const int *scnt, char **out, int *nout, int **src) {
  const int P = B->P;
  const size_t rec = B->S[s].rec;
  int *rcnt = malloc((size_t)P * sizeof *rcnt);
  MPI_Datatype t = MPI_DATATYPE_NULL;
  int rc = rcnt ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory moving rows");
  if (rc == UM_SUCCESS) {
    int m = MPI_Type_contiguous((int)rec, MPI_BYTE, &t);
    if (m == MPI_SUCCESS) m = MPI_Type_commit(&t);
    if (m != MPI_SUCCESS) rc = mpi_fail(B->ctx, m, "MPI_Type_contiguous (rows)");
  }
  if (rc == UM_SUCCESS) rc = umd_a2a(B, t, rec, sb, scnt, (void **)out, rcnt, nout);
  if (rc == UM_SUCCESS && src) {
    *src = malloc((size_t)(*nout ? *nout : 1) * sizeof **src);
    if (!*src) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory moving rows");
    for (int q = 0, j = 0; *src && q < P; q++)
      for (int c = 0; c < rcnt[q]; c++) (*src)[j++] = q;
  }
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  free(rcnt);
  return rc;
}

/* np records recs[idx[j]] of set s to ranks dest[j] (grouped here): as send_packed. */
static int ship(umd_blocks *B, int s, const char *recs, int np, const int *idx, const int *dest, char **out, int *nout,
                int **src) {
  const int P = B->P;
  const size_t rec = B->S[s].rec;
  int *perm = malloc((size_t)(np ? np : 1) * sizeof *perm), *scnt = malloc((size_t)P * sizeof *scnt);
  char *sb = malloc((size_t)(np ? np : 1) * rec);
  int rc = perm && scnt && sb ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory moving rows");
  if (rc == UM_SUCCESS) {
    umd_group(np, dest, P, perm, scnt);
    for (int j = 0; j < np; j++) memcpy(sb + (size_t)j * rec, recs + (size_t)idx[perm[j]] * rec, rec);
  }
  free(perm);
  if (rc == UM_SUCCESS) rc = umd_send_packed(B, s, sb, scnt, out, nout, src);
  free(scnt), free(sb);
  return rc;
}

/* The records of the elements this rank is home to, from what it declared, packed by owner (*out, scnt[P] each):
 * written once, straight into the send order. */
static int home_records(umd_blocks *B, int s, char **out, int *scnt) {
  um_context *ctx = B->ctx;
  const umd_bset *S = &B->S[s];
  int *perm = malloc((size_t)(S->count ? S->count : 1) * sizeof *perm);
  char *r = calloc((size_t)(S->count ? S->count : 1), S->rec);
  if (!r || !perm) {
    free(r), free(perm);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory migrating set '%s'", ctx->sets[s]->name);
  }
  umd_group(S->count, S->own_home, B->P, perm, scnt); /* stable: ascending within each owner */
  for (int j = 0; j < S->count; j++) {
    const long long g = S->begin[B->rank] + perm[j];
    memcpy(r + (size_t)j * S->rec, &g, sizeof g);
  }
  for (int k = 0; k < ctx->nmaps; k++) {
    const um_map *mp = ctx->maps[k];
    const size_t row = (size_t)mp->arity * sizeof(long long);
    for (int j = 0; mp->from->index == s && j < S->count; j++)
      memcpy(r + (size_t)j * S->rec + B->moff[k], mp->gtargets + (size_t)perm[j] * mp->arity, row);
  }
  free(perm);
  *out = r;
  return UM_SUCCESS;
}

/* Set s's declared map rows, now in its home records: its maps' global targets and placeholder rows are freed
 * (umd_blocks_install gives each its distributed rows; a failed um_distribute leaves the context to be
 * finalized). */
static void drop_declared(umd_blocks *B, int s) {
  um_context *ctx = B->ctx;
  for (int k = 0; k < ctx->nmaps; k++) {
    um_map *mp = ctx->maps[k];
    if (mp->from->index != s) continue;
    free(mp->gtargets), free(mp->data);
    mp->gtargets = NULL, mp->data = NULL;
  }
}

int umd_blocks_migrate(umd_blocks *B) {
  int rc = UM_SUCCESS;
  for (int s = 0; rc == UM_SUCCESS && s < B->ns; s++) {
    umd_bset *S = &B->S[s];
    char *home = NULL;
    int *scnt = malloc((size_t)B->P * sizeof *scnt);
    rc = scnt ? home_records(B, s, &home, scnt) : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory");
    if (rc == UM_SUCCESS) drop_declared(B, s);
    if (rc == UM_SUCCESS && B->ranges) { /* every record stays here, in its declared (ascending) order */
      S->own = home, S->nown = S->count, home = NULL;
    } else if (rc == UM_SUCCESS) {
      /* homes in rank order hold ascending blocks: the owned records arrive in ascending global order */
      rc = umd_send_packed(B, s, home, scnt, &S->own, &S->nown, NULL);
    }
    free(home), free(scnt);
  }
  return rc;
}

/* (element, rank) pairs of the exec halo, ordered by element then rank. */
typedef struct {
  int e, q;
} epair;
static int cmp_epair(const void *a, const void *b) {
  const epair *x = a, *y = b;
  if (x->e != y->e) return x->e < y->e ? -1 : 1;
  return (x->q > y->q) - (x->q < y->q);
}

/* The exec halo of set s: the owners of the owned rows' targets (from their homes), map by map; each element sent
 * once to every other rank owning one of its targets through a map not read-only (pairs kept only for those: few
 * on a partitioned mesh); core: reaching none, through any map. */
static int exec_halo(umd_blocks *B, int s) {
  um_context *ctx = B->ctx;
  umd_bset *S = &B->S[s];
  int rc = UM_SUCCESS, np = 0, cap = 0;
  epair *pr = NULL;
  S->core = malloc((size_t)(S->nown ? S->nown : 1));
  if (!S->core) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the exec halo");
  for (int e = 0; rc == UM_SUCCESS && e < S->nown; e++) S->core[e] = 1;
  for (int k = 0; k < ctx->nmaps; k++) { /* collective: every rank takes each map, agreeing first */
    const um_map *mp = ctx->maps[k];
    if (mp->from->index != s) continue;
    const int ar = mp->arity, m = S->nown * ar;
    int *o = malloc((size_t)(m ? m : 1) * sizeof *o);
    long long *tg = malloc((size_t)(m ? m : 1) * sizeof *tg);
    for (int e = 0; tg && e < S->nown; e++)
      for (int a = 0; a < ar; a++) tg[(size_t)e * ar + a] = umd_rec_t(S->own, S->rec, e, B->moff[k], a);
    if (rc == UM_SUCCESS && (!o || !tg)) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the exec halo");
    rc = umd_agree(B, rc, "building the exec halo");
    if (rc == UM_SUCCESS) rc = umd_dir_owner(B, mp->to->index, m, tg, o);
    free(tg);
    for (int j = 0; rc == UM_SUCCESS && j < m; j++) {
      if (o[j] == B->rank) continue;
      S->core[j / ar] = 0;
      if (mp->read_only) continue; /* no loop writes through it: the exec halo does not follow it */
      if (np == cap) {
        cap = cap ? 2 * cap : 1024;
        epair *n2 = realloc(pr, (size_t)cap * sizeof *pr);
        if (!n2)
          rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the exec halo");
        else
          pr = n2;
      }
      if (rc == UM_SUCCESS) pr[np++] = (epair){j / ar, o[j]};
    }
    free(o);
  }
  int *idx = NULL, *dst = NULL, w = 0;
  if (rc == UM_SUCCESS) {
    if (np) qsort(pr, (size_t)np, sizeof *pr, cmp_epair); /* each other rank once per element, elements ascending */
    idx = malloc((size_t)(np ? np : 1) * sizeof *idx), dst = malloc((size_t)(np ? np : 1) * sizeof *dst);
    if (!idx || !dst) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the exec halo");
    for (int j = 0; rc == UM_SUCCESS && j < np; j++)
      if (!w || pr[j].e != idx[w - 1] || pr[j].q != dst[w - 1]) idx[w] = pr[j].e, dst[w++] = pr[j].q;
  }
  free(pr);
  if (rc == UM_SUCCESS) rc = ship(B, s, S->own, w, idx, dst, &S->ex, &S->nex, &S->ex_owner);
  /* each source's in ascending global order, sources ascending: sorted by owner then global number */
  free(idx), free(dst);
  return rc;
}

/* Halo keys by owner, then global number. */
static int cmp_bkey(const void *a, const void *b) {
  const umd_bkey *x = a, *y = b;
  if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
  return (x->g > y->g) - (x->g < y->g);
}

/* The targets of owned and exec rows into set t that are neither owned nor exec here, with their owners. */
static int nonexec_wanted(umd_blocks *B, int t, umd_bkey **keys, int *nk) {
  um_context *ctx = B->ctx;
  const umd_bset *T = &B->S[t];
  umd_gmap cand = {0};
  long long *g = NULL;
  int n = 0, cap = 0, rc = umd_gmap_init(&cand, 16);
  for (int k = 0; rc == UM_SUCCESS && k < ctx->nmaps; k++) {
    const um_map *mp = ctx->maps[k];
    if (mp->to->index != t) continue;
    const umd_bset *F = &B->S[mp->from->index];
    for (int part = 0; part < 2 && rc == UM_SUCCESS; part++) {
      const char *recs = part ? F->ex : F->own;
      const int nr = part ? F->nex : F->nown;
      for (int e = 0; e < nr && rc == UM_SUCCESS; e++)
        for (int a = 0; a < mp->arity && rc == UM_SUCCESS; a++) {
          const long long x = umd_rec_t(recs, F->rec, e, B->moff[k], a);
          if (umd_gmap_get(&T->held, x) >= 0 || umd_gmap_get(&cand, x) >= 0) continue;
          if (n == cap) {
            cap = cap ? 2 * cap : 64;
            long long *ng = realloc(g, (size_t)cap * sizeof *g);
            if (!ng)
              rc = UM_ERR_ALLOC;
            else
              g = ng;
          }
          if (rc == UM_SUCCESS) rc = umd_gmap_add(&cand, x, n);
          if (rc == UM_SUCCESS) g[n++] = x;
        }
    }
  }
  umd_gmap_free(&cand);
  int *o = rc == UM_SUCCESS ? malloc((size_t)(n ? n : 1) * sizeof *o) : NULL;
  *keys = rc == UM_SUCCESS ? malloc((size_t)(n ? n : 1) * sizeof **keys) : NULL;
  rc = o && *keys ? umd_dir_owner(B, t, n, g, o) : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the halo");
  for (int i = 0; rc == UM_SUCCESS && i < n; i++) (*keys)[i] = (umd_bkey){o[i], g[i]};
  if (rc == UM_SUCCESS) qsort(*keys, (size_t)n, sizeof **keys, cmp_bkey);
  *nk = n;
  free(g), free(o);
  return rc;
}

/* The non-exec halo of set t: its rows asked of their owners (the global numbers there, the records back). */
static int nonexec_halo(umd_blocks *B, int t) {
  umd_bset *T = &B->S[t];
  const int P = B->P;
  umd_bkey *keys = NULL;
  int nk = 0, nr = 0, nb = 0;
  long long *sg = NULL, *rg = NULL;
  int *scnt = malloc((size_t)P * sizeof *scnt), *rcnt = malloc((size_t)P * sizeof *rcnt), *idx = NULL, *dst = NULL;
  int rc = scnt && rcnt ? nonexec_wanted(B, t, &keys, &nk) : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory");
  if (rc == UM_SUCCESS && !(sg = malloc((size_t)(nk ? nk : 1) * sizeof *sg)))
    rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory");
  if (rc == UM_SUCCESS) {
    for (int q = 0; q < P; q++) scnt[q] = 0;
    for (int i = 0; i < nk; i++) sg[i] = keys[i].g, scnt[keys[i].owner]++;
    rc = umd_a2a(B, MPI_LONG_LONG, sizeof *sg, sg, scnt, (void **)&rg, rcnt, &nr);
  }
  if (rc == UM_SUCCESS) { /* asked of this rank: its owned records, in the order asked, back to each asker */
    idx = malloc((size_t)(nr ? nr : 1) * sizeof *idx), dst = malloc((size_t)(nr ? nr : 1) * sizeof *dst);
    if (!idx || !dst) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory");
    for (int q = 0, i = 0; rc == UM_SUCCESS && q < P; q++)
      for (int c = 0; c < rcnt[q] && rc == UM_SUCCESS; c++, i++) {
        idx[i] = umd_gmap_get(&T->held, rg[i]), dst[i] = q;
        if (idx[i] < 0 || idx[i] >= T->nown)
          rc = UM_ERROR(B->ctx, UM_ERR_INTERNAL, "set '%s': rank %d was asked for element %lld, which it does not own",
                        B->ctx->sets[t]->name, B->rank, rg[i]);
      }
  }
  if (rc == UM_SUCCESS) rc = ship(B, t, T->own, nr, idx, dst, &T->nx, &nb, &T->nx_owner);
  if (rc == UM_SUCCESS && nb != nk)
    rc = UM_ERROR(B->ctx, UM_ERR_INTERNAL, "set '%s': %d halo rows back of %d", B->ctx->sets[t]->name, nb, nk);
  T->nnx = nb;
  free(keys), free(sg), free(rg), free(scnt), free(rcnt), free(idx), free(dst);
  return rc;
}

/* Owned, then exec elements of every set in its hash map of held elements. */
static int index_held(umd_blocks *B, int s) {
  umd_bset *S = &B->S[s];
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  for (int i = 0; i < S->nown; i++) {
    const long long g = umd_rec_g(S->own, S->rec, i);
    lo = g < lo ? g : lo, hi = g > hi ? g : hi;
  }
  for (int i = 0; i < S->nex; i++) {
    const long long g = umd_rec_g(S->ex, S->rec, i);
    lo = g < lo ? g : lo, hi = g > hi ? g : hi;
  }
  int rc = umd_gmap_init_span(&S->held, (size_t)S->nown + S->nex, lo, hi);
  for (int i = 0; rc == UM_SUCCESS && i < S->nown; i++) rc = umd_gmap_add(&S->held, umd_rec_g(S->own, S->rec, i), i);
  for (int i = 0; rc == UM_SUCCESS && i < S->nex; i++)
    rc = umd_gmap_add(&S->held, umd_rec_g(S->ex, S->rec, i), S->nown + i);
  return rc == UM_SUCCESS ? rc
                          : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory indexing set '%s'", B->ctx->sets[s]->name);
}

int umd_blocks_halos(umd_blocks *B) {
  int rc = UM_SUCCESS;
  for (int s = 0; rc == UM_SUCCESS && s < B->ns; s++) rc = exec_halo(B, s); /* every exec halo first */
  for (int s = 0; rc == UM_SUCCESS && s < B->ns; s++) rc = index_held(B, s);
  for (int s = 0; rc == UM_SUCCESS && s < B->ns; s++) rc = nonexec_halo(B, s);
  for (int s = 0; s < B->ns; s++) umd_gmap_free(&B->S[s].held); /* install orders the rows anew (g2l) */
  return rc;
}
/* Import lists (halo rows grouped by owner, in local order), then export lists from what each owner is asked. */
int umd_blocks_lists(umd_blocks *B, umd_set *S, int owned, const int *hown, const umd_gmap *g2l) {
  const int P = B->P, nh = S->total - owned;
  int *icnt = calloc((size_t)P, sizeof *icnt), *ecnt = calloc((size_t)P, sizeof *ecnt);
  int *perm = malloc((size_t)(nh ? nh : 1) * sizeof *perm), nr = 0;
  long long *req = malloc((size_t)(nh ? nh : 1) * sizeof *req), *want = NULL;
  int rc =
      icnt && ecnt && perm && req ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building halo lists");
  if (rc == UM_SUCCESS) {
    umd_group(nh, hown, P, perm, icnt); /* stable: local order within each owner */
    S->imp = malloc((size_t)(nh ? nh : 1) * sizeof *S->imp);
    for (int j = 0; S->imp && j < nh; j++) S->imp[j] = owned + perm[j], req[j] = S->l2g[owned + perm[j]];
    rc = S->imp ? umd_a2a(B, MPI_LONG_LONG, sizeof *req, req, icnt, (void **)&want, ecnt, &nr)
                : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building halo lists");
  }
  if (rc == UM_SUCCESS) {
    S->nnb = 0;
    for (int q = 0; q < P; q++) S->nnb += icnt[q] || ecnt[q];
    S->nb = malloc((size_t)(S->nnb ? S->nnb : 1) * sizeof(int));
    S->imp_off = calloc((size_t)S->nnb + 1, sizeof(int));
    S->exp_off = calloc((size_t)S->nnb + 1, sizeof(int));
    S->exp = malloc((size_t)(nr ? nr : 1) * sizeof(int));
    if (!S->nb || !S->imp_off || !S->exp_off || !S->exp)
      rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building halo lists");
  }
  for (int q = 0, j = 0; rc == UM_SUCCESS && q < P; q++) {
    if (!icnt[q] && !ecnt[q]) continue;
    S->nb[j] = q;
    S->imp_off[j + 1] = S->imp_off[j] + icnt[q];
    S->exp_off[j + 1] = S->exp_off[j] + ecnt[q];
    j++;
  }
  for (int i = 0; rc == UM_SUCCESS && i < nr; i++) {
    const int l = umd_gmap_get(g2l, want[i]);
    if (l < 0 || l >= owned)
      rc = UM_ERROR(B->ctx, UM_ERR_INTERNAL, "halo lists: rank %d was asked for element %lld, which it does not own",
                    B->rank, want[i]);
    else
      S->exp[i] = l;
  }
  free(icnt), free(ecnt), free(perm), free(req), free(want);
  return rc;
}

/* A walk over a set's records in its local order (core, rest of the owned, each ascending; the owned ascending where
 * the core rows are one run of them, keep_order; then exec, non-exec): next_row gives the
 * next record, NULL past the last. */
typedef struct {
  const umd_bset *S;
  int part, i; /* part 0: the core owned, 1: the rest of the owned, 2: exec, 3: non-exec; i: the next in it */
} row_walk;
static const char *next_row(row_walk *w) {
  const umd_bset *S = w->S;
  if (S->keep_order && w->part < 2) { /* the owned in their order, the core a run among them */
    if (w->i < S->nown) return S->own + (size_t)w->i++ * S->rec;
    w->part = 2, w->i = 0;
  }
  for (; w->part < 2; w->part++, w->i = 0) /* core, then the rest of the owned, each ascending */
    for (; w->i < S->nown; w->i++)
      if (S->core[w->i] == (w->part == 0)) return S->own + (size_t)w->i++ * S->rec;
  if (w->part == 2 && w->i < S->nex) return S->ex + (size_t)w->i++ * S->rec;
  if (w->part == 2) w->part = 3, w->i = 0;
  return w->i < S->nnx ? S->nx + (size_t)w->i++ * S->rec : NULL;
}

/* Set s's local order: l2g and the halo rows' owners (hown). */
static int order_set(umd_blocks *B, int s, int *hown) {
  umd_bset *S = &B->S[s];
  umd_set *U = &B->D->sets[s];
  S->keep_order = umd_core_run(S->core, S->nown, &S->core_begin);
  U->total = S->nown + S->nex + S->nnx;
  U->l2g = malloc((size_t)(U->total ? U->total : 1) * sizeof *U->l2g);
  if (!U->l2g) return UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory ordering set '%s'", B->ctx->sets[s]->name);
  row_walk w = {S, 0, 0};
  for (int i = 0; i < U->total; i++) U->l2g[i] = umd_rec_g(next_row(&w), S->rec, 0);
  for (int i = 0; i < S->nex; i++) hown[i] = S->ex_owner[i];
  for (int i = 0; i < S->nnx; i++) hown[S->nex + i] = S->nx_owner[i];
  return UM_SUCCESS;
}

/* Set s's global numbers -> local indices, from l2g. */
static int index_set(umd_blocks *B, int s, umd_gmap *g2l) {
  const umd_set *U = &B->D->sets[s];
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  for (int i = 0; i < U->total; i++) lo = U->l2g[i] < lo ? U->l2g[i] : lo, hi = U->l2g[i] > hi ? U->l2g[i] : hi;
  int rc = umd_gmap_init_span(g2l, (size_t)U->total, lo, hi);
  for (int i = 0; rc == UM_SUCCESS && i < U->total; i++) rc = umd_gmap_add(g2l, U->l2g[i], i);
  return rc == UM_SUCCESS ? rc
                          : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory indexing set '%s'", B->ctx->sets[s]->name);
}

/* Dat k's rows in its set's local order (total rows, padded to the row alignment), zeros: *out. */
int umd_new_rows(umd_blocks *B, int k, int total, char **out, int *nrows) {
  um_context *ctx = B->ctx;
  const um_dat *d = ctx->dats[k];
  const size_t row = (size_t)d->dim * d->esize;
  const int align = ctx->opts.row_align > 1 ? ctx->opts.row_align : 1;
  *nrows = (total + align - 1) / align * align;
  *out = calloc((size_t)(*nrows ? *nrows : 1), row ? row : 1);
  return *out ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing dat '%s'", d->name);
}

/* Dat k's rows replaced by nd (nrows rows in the local order): its declared rows freed. */
void umd_install_rows(umd_blocks *B, int k, char *nd, int nrows) {
  um_dat *d = B->ctx->dats[k];
  free(d->data);
  d->data = nd;
  d->rows = nrows;
  um__dat_host_moved(d); /* a zero dat: zeros, as declared (host_zeros kept) */
  d->halo_stale = 0; /* every halo row came from its home */
}

/* The rows of a pull_dat round r of R: of n rows a peer exchanges, those in [n r / R, n (r + 1) / R). */
static int round_lo(int n, int r, int R) { return (int)((long long)n * r / R); }

/* One round of pull_dat: the rows asked of this rank (at, grouped by asker: acnt[P] each from aoff) packed from d
 * and sent, the rows from each home (qcnt[P] from qoff, in perm's order) received and put in place in tmp. Both
 * sides take the same share of each peer's rows, so no counts travel. */
static int pull_round(umd_blocks *B, const um_dat *d, um_dat *tmp, MPI_Datatype t, const int *at, const int *acnt,
                      const int *aoff, const int *qcnt, const int *qoff, const int *perm, int r, int R, char *sb,
                      char *rb, int *cnt) {
  const int P = B->P;
  const size_t row = (size_t)d->dim * d->esize;
  int *scnt = cnt, *sd = cnt + P, *rcnt = cnt + 2 * P, *rd = cnt + 3 * P, so = 0, ro = 0;
  for (int q = 0; q < P; q++) {
    const int a0 = round_lo(acnt[q], r, R), a1 = round_lo(acnt[q], r + 1, R);
    sd[q] = so, scnt[q] = a1 - a0;
    for (int i = a0; i < a1; i++) copy_row_out(d, at[aoff[q] + i], sb + (size_t)so++ * row);
    rd[q] = ro, rcnt[q] = round_lo(qcnt[q], r + 1, R) - round_lo(qcnt[q], r, R), ro += rcnt[q];
  }
  const int m = MPI_Alltoallv(sb, scnt, sd, t, rb, rcnt, rd, t, B->D->comm);
  if (m != MPI_SUCCESS) return mpi_fail(B->ctx, m, "MPI_Alltoallv (dat rows)");
  for (int q = 0, j = 0; q < P; q++)
    for (int i = round_lo(qcnt[q], r, R); i < round_lo(qcnt[q], r + 1, R); i++, j++)
      copy_row_in(tmp, perm[qoff[q] + i], rb + (size_t)j * row);
  return UM_SUCCESS;
}

/* Dat k's rows asked of this rank (at[nr]: rows of its declared block, grouped by asker, acnt[P] each) sent back
 * and its rows in the local order installed from what comes back (qcnt[P] from each home, in perm's order): in
 * rounds of about UMD_ROUND_BYTES (as many on every rank), each a share of every peer's rows, so that the
 * transient beyond the dat's declared and distributed rows is two rounds' rows, not two copies of the dat. */
static int pull_dat(umd_blocks *B, int k, const int *at, int nr, const int *acnt, const int *qcnt, const int *perm,
                    int total) {
  um_context *ctx = B->ctx;
  const int P = B->P;
  um_dat *d = ctx->dats[k];
  const size_t row = (size_t)d->dim * d->esize;
  long long R = 1 + (long long)((size_t)(nr > total ? nr : total) * row / UMD_ROUND_BYTES);
  int *cnt = malloc((size_t)P * 6 * sizeof *cnt), *aoff = cnt ? cnt + 4 * P : NULL, *qoff = cnt ? cnt + 5 * P : NULL;
  char *nd = NULL, *sb = NULL, *rb = NULL;
  int nrows = 0, rc = cnt ? um__dat_to_host(ctx, d) : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  if (rc == UM_SUCCESS) rc = umd_new_rows(B, k, total, &nd, &nrows);
  /* the first collective: a rank that failed before this dat agrees here too (pull_dats) */
  rc = umd_agree(B, rc, "moving the dats' rows");
  const int all_here = rc == UM_SUCCESS; /* every rank is in this dat's pull */
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (all_here) { /* the rounds, as many on every rank */
    int m = MPI_Allreduce(MPI_IN_PLACE, &R, 1, MPI_LONG_LONG, MPI_MAX, B->D->comm);
    if (m == MPI_SUCCESS) m = MPI_Type_contiguous((int)row, MPI_BYTE, &t);
    if (m == MPI_SUCCESS) m = MPI_Type_commit(&t);
    if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Allreduce (dat rows)");
  }
  if (rc == UM_SUCCESS) { /* a round's rows: at most a share of each peer's, rounded up */
    sb = malloc(((size_t)nr / R + (size_t)P + 1) * row);
    rb = malloc(((size_t)total / R + (size_t)P + 1) * row);
    if (!sb || !rb) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory distributing dat '%s'", d->name);
  }
  if (all_here) rc = umd_agree(B, rc, "moving the dats' rows");
  for (int q = 0; rc == UM_SUCCESS && q < P; q++)
    aoff[q] = q ? aoff[q - 1] + acnt[q - 1] : 0, qoff[q] = q ? qoff[q - 1] + qcnt[q - 1] : 0;
  um_dat tmp = *d;
  tmp.data = nd, tmp.rows = nrows;
  for (int r = 0; rc == UM_SUCCESS && r < (int)R; r++)
    rc = pull_round(B, d, &tmp, t, at, acnt, aoff, qcnt, qoff, perm, r, (int)R, sb, rb, cnt);
  if (rc == UM_SUCCESS) umd_install_rows(B, k, nd, nrows), nd = NULL;
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  free(nd), free(sb), free(rb), free(cnt);
  return rc;
}

/* For each dat of set s (indexed by dat), 1 when it still holds the zeros it was declared with on every rank
 * (declared without data, not written since): such a dat is allocated in the local order, not moved. Collective;
 * NULL on no memory (on every rank: the reduction's answer is shared). */
int *umd_zero_dats(umd_blocks *B, int s) {
  um_context *ctx = B->ctx;
  int *z = calloc((size_t)ctx->ndats + 1, sizeof *z), *all = calloc((size_t)ctx->ndats + 1, sizeof *all);
  int ok = z && all ? 1 : 0, okall = 0;
  for (int k = 0; ok && k < ctx->ndats; k++)
    z[k] = (s < 0 || ctx->dats[k]->set->index == s) && um_dat_host_zeros(ctx->dats[k]) &&
           (ctx->dats[k]->valid & UM_VALID_HOST);
  MPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_MIN, B->D->comm);
  if (okall && MPI_Allreduce(z, all, ctx->ndats, MPI_INT, MPI_MIN, B->D->comm) == MPI_SUCCESS) {
    free(z);
    return all;
  }
  free(z), free(all);
  return NULL;
}

/* Set s's dats in its local order, pulled from the homes of its rows, one dat at a time: the global numbers asked
 * of each home once (grouped by home: perm), then each dat's rows back (pull_dat: in rounds). A dat's transient
 * is its local rows and two rounds' rows here, never the whole of the rank's mesh. */
static int pull_dats(umd_blocks *B, int s) {
  um_context *ctx = B->ctx;
  const umd_bset *S = &B->S[s];
  const umd_set *U = &B->D->sets[s];
  const int P = B->P, total = U->total;
  int nd = 0;
  for (int k = 0; k < ctx->ndats; k++) nd += ctx->dats[k]->set->index == s;
  if (!nd) return UM_SUCCESS; /* the same on every rank: every rank declares the same dats */
  int *perm = malloc((size_t)(total ? total : 1) * sizeof *perm), *qcnt = malloc((size_t)P * sizeof *qcnt);
  int *acnt = malloc((size_t)P * sizeof *acnt), *at = NULL, nr = 0;
  long long *sg = malloc((size_t)(total ? total : 1) * sizeof *sg), *rg = NULL;
  int rc = perm && qcnt && acnt && sg ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  int *home = rc == UM_SUCCESS ? malloc((size_t)(total ? total : 1) * sizeof *home) : NULL;
  if (rc == UM_SUCCESS && !home) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  if (rc == UM_SUCCESS) {
    for (int i = 0; i < total; i++) home[i] = umd_home(S, P, U->l2g[i]);
    umd_group(total, home, P, perm, qcnt);
    for (int j = 0; j < total; j++) sg[j] = U->l2g[perm[j]];
  }
  free(home);
  rc = umd_agree(B, rc, "asking for the dats' rows");
  if (rc == UM_SUCCESS) rc = umd_a2a(B, MPI_LONG_LONG, sizeof *sg, sg, qcnt, (void **)&rg, acnt, &nr);
  free(sg);
  if (rc == UM_SUCCESS && !(at = malloc((size_t)(nr ? nr : 1) * sizeof *at)))
    rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int i = 0; rc == UM_SUCCESS && i < nr; i++) {
    const long long l = rg[i] - S->begin[B->rank];
    if (l < 0 || l >= S->count)
      rc = UM_ERROR(ctx, UM_ERR_INTERNAL, "set '%s': rank %d was asked for element %lld, outside its block",
                    ctx->sets[s]->name, B->rank, rg[i]);
    else
      at[i] = (int)l;
  }
  free(rg);
  int *zero = umd_zero_dats(B, s); /* collective, on every rank (a rank that failed above too): the same answer */
  if (rc == UM_SUCCESS && !zero) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int k = 0; k < ctx->ndats; k++) { /* collective: every rank takes each moved dat, agreeing first */
    if (ctx->dats[k]->set->index != s) continue;
    if (zero && zero[k]) { /* zeros on every rank: no exchange on any (a failure shows at the caller's agree) */
      char *nd = NULL;
      int nrows = 0;
      if (rc == UM_SUCCESS) rc = umd_new_rows(B, k, total, &nd, &nrows);
      if (rc == UM_SUCCESS) umd_install_rows(B, k, nd, nrows);
      continue;
    }
    rc = rc == UM_SUCCESS ? pull_dat(B, k, at, nr, acnt, qcnt, perm, total) : umd_agree(B, rc, "moving the dats' rows");
  }
  free(perm), free(qcnt), free(acnt), free(at), free(zero);
  return rc;
}

/* Row j of map k's local rows from record r: its targets local through tg (0 in a non-exec row for a target not held:
 * never run); UM_ERR_INTERNAL when an owned or exec row (j < run) reaches a target not held. */
static int map_row(const umd_blocks *B, int k, int ar, const char *r, const umd_gmap *tg, int j, int run, int *nd) {
  if (j >= run) { /* a non-exec row: never run, zeros (on every path) */
    memset(nd + (size_t)j * ar, 0, (size_t)ar * sizeof *nd);
    return UM_SUCCESS;
  }
  for (int a = 0; a < ar; a++) {
    long long t;
    memcpy(&t, r + B->moff[k] + (size_t)a * sizeof t, sizeof t);
    const int l = umd_gmap_get(tg, t);
    if (l < 0 && j < run) return UM_ERR_INTERNAL;
    nd[(size_t)j * ar + a] = l < 0 ? 0 : l;
  }
  return UM_SUCCESS;
}

/* A map's rows in its from-set's local order (walked over the records: no array of row pointers), targets local. */
static int install_map(umd_blocks *B, int k, const umd_gmap *tg) {
  um_map *mp = B->ctx->maps[k];
  const umd_set *F = &B->D->sets[mp->from->index];
  const umd_bset *S = &B->S[mp->from->index];
  const int ar = mp->arity, run = S->nown + S->nex;
  int *nd = malloc(((size_t)F->total * ar + 1) * sizeof *nd);
  if (!nd) return UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory distributing map '%s'", mp->name);
  row_walk w = {S, 0, 0};
  int j = 0, rc = UM_SUCCESS;
  for (const char *r; rc == UM_SUCCESS && j < F->total && (r = next_row(&w)); j++)
    rc = map_row(B, k, ar, r, tg, j, run, nd);
  if (rc != UM_SUCCESS) {
    free(nd);
    return UM_ERROR(B->ctx, UM_ERR_INTERNAL, "map '%s': local element %d reaches an element rank %d does not hold",
                    mp->name, j - 1, B->rank);
  }
  free(mp->data);
  mp->data = nd;
  free(mp->gtargets);
  mp->gtargets = NULL;
  return UM_SUCCESS;
}

/* Set s's records, once every map from it is in place. */
static void free_records(umd_bset *S) {
  free(S->own), free(S->ex), free(S->nx);
  S->own = S->ex = S->nx = NULL;
}

/* Every map into set t in its from-set's local order (targets through g2l, t's index); a from-set's records freed
 * once its last map is in place (left[] counts the maps still to place from each set). */
static int install_into(umd_blocks *B, int t, const umd_gmap *g2l, int *left) {
  um_context *ctx = B->ctx;
  int rc = UM_SUCCESS;
  for (int k = 0; rc == UM_SUCCESS && k < ctx->nmaps; k++) {
    const int f = ctx->maps[k]->from->index;
    if (ctx->maps[k]->to->index != t) continue;
    rc = install_map(B, k, g2l);
    if (rc == UM_SUCCESS && --left[f] == 0) free_records(&B->S[f]);
  }
  return rc;
}

/* Every rank's counts of every set (um_set_partition), and the sets' sizes here: one gather for all of them. */
int umd_set_counts(umd_blocks *B) {
  um_context *ctx = B->ctx;
  const int P = B->P, ns = B->ns;
  int *mine = malloc((size_t)ns * 3 * sizeof *mine), *all = malloc((size_t)P * ns * 3 * sizeof *all), ok = mine && all;
  for (int s = 0; ok && s < ns; s++) {
    umd_set *U = &B->D->sets[s];
    U->all_owned = malloc((size_t)P * sizeof(int));
    U->all_exec = malloc((size_t)P * sizeof(int));
    U->all_nonexec = malloc((size_t)P * sizeof(int));
    ok = U->all_owned && U->all_exec && U->all_nonexec;
    mine[3 * s] = B->S[s].nown, mine[3 * s + 1] = B->S[s].nex, mine[3 * s + 2] = B->S[s].nnx;
  }
  int rc = umd_agree(B, ok ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory counting the partition"),
                     "counting the partition"); /* the gather is collective */
  const int m = rc == UM_SUCCESS ? MPI_Allgather(mine, 3 * ns, MPI_INT, all, 3 * ns, MPI_INT, B->D->comm) : MPI_SUCCESS;
  if (rc == UM_SUCCESS && m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Allgather (partition sizes)");
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) {
    const umd_bset *S = &B->S[s];
    umd_set *U = &B->D->sets[s];
    long long sum = 0;
    for (int q = 0; q < P; q++) {
      const int *a = all + ((size_t)q * ns + s) * 3;
      U->all_owned[q] = a[0], U->all_exec[q] = a[1], U->all_nonexec[q] = a[2];
      sum += a[0];
    }
    if (sum != S->gsize)
      rc = UM_ERROR(ctx, UM_ERR_INTERNAL, "set '%s': the ranks own %lld elements together, not %lld",
                    ctx->sets[s]->name, sum, S->gsize);
    um_set *st = ctx->sets[s];
    int core = 0;
    for (int i = 0; i < S->nown; i++) core += S->core[i];
    st->size = S->nown, st->core_size = core, st->exec_halo = S->nex, st->nonexec_halo = S->nnx;
    st->core_begin = S->keep_order ? S->core_begin : 0;
    st->block = 0;
    free(st->part_offset);
    st->part_offset = NULL;
    st->nparts = 0;
  }
  free(mine), free(all);
  return rc;
}

/* Set s's halo lists, with its index (built here and freed when no map reaches the set). */
static int set_lists(umd_blocks *B, int s, const int *hown, const umd_gmap *g2l) {
  umd_gmap own = {0};
  const umd_gmap *ix = g2l;
  int rc = UM_SUCCESS;
  if (!umd_gmap_made(g2l)) rc = index_set(B, s, &own), ix = &own;
  rc = umd_agree(B, rc, "building halo lists"); /* blocks_lists is collective */
  if (rc == UM_SUCCESS) rc = umd_blocks_lists(B, &B->D->sets[s], B->S[s].nown, hown, ix);
  umd_gmap_free(&own);
  return rc;
}

/* The local order of every set; then set by set, its index (for a set maps reach), the maps into it, and its halo
 * lists, the index freed after (one set's index held at a time; a set's records freed once the maps from it are in
 * place); then the dats pulled one by one (pull_dats: only l2g needed). */
int umd_blocks_install(umd_blocks *B) {
  um_context *ctx = B->ctx;
  const int ns = B->ns;
  int **hown = calloc((size_t)ns, sizeof *hown), *left = calloc((size_t)ns + 1, sizeof *left);
  int rc = hown && left ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int k = 0; rc == UM_SUCCESS && k < ctx->nmaps; k++) left[ctx->maps[k]->from->index]++;
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++) {
    const umd_bset *S = &B->S[s];
    hown[s] = malloc(((size_t)S->nex + S->nnx + 1) * sizeof **hown);
    rc = hown[s] ? order_set(B, s, hown[s]) : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  }
  for (int s = 0; rc == UM_SUCCESS && s < ns; s++)
    if (!left[s]) free_records(&B->S[s]); /* no map from it: its order is all it was needed for */
  rc = umd_agree(B, rc, "installing the maps");
  /* collective: every rank takes every set and agrees after each step, so a rank that failed on one set never
   * leaves the others waiting in the next set's exchange */
  for (int s = 0; s < ns; s++) {
    umd_gmap g2l = {0};
    int into = 0;
    for (int k = 0; k < ctx->nmaps; k++) into |= ctx->maps[k]->to->index == s;
    if (rc == UM_SUCCESS && into) rc = index_set(B, s, &g2l);
    if (rc == UM_SUCCESS && into) rc = install_into(B, s, &g2l, left);
    rc = umd_agree(B, rc, "installing the maps");
    if (rc == UM_SUCCESS) rc = set_lists(B, s, hown[s], &g2l);
    rc = umd_agree(B, rc, "building halo lists");
    umd_gmap_free(&g2l);
  }
  for (int s = 0; s < ns; s++) {
    if (hown) free(hown[s]);
    free_records(&B->S[s]);
  }
  free(hown), free(left);
  for (int s = 0; s < ns; s++) {
    if (rc == UM_SUCCESS) rc = pull_dats(B, s);
    rc = umd_agree(B, rc, "moving the dats' rows");
  }
  if (rc == UM_SUCCESS) rc = umd_set_counts(B);
  return umd_agree(B, rc, "counting the partition");
}
#endif /* UM_HAVE_MPI */
