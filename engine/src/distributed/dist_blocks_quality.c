/* dist_blocks_quality.c: the edge cut and the connectedness of a candidate partition of a mesh declared by blocks
 * (design: dist_blocks.c), from lists of elements that are pairwise neighbours in the primary set's graph
 * (umd_graph_rows' adjacency, partition.h): the elements that reach one target of a map from the set (listed at
 * the target's home, umd_target_lists), the targets of one row of a map from another set into it, an element and
 * one target of a map of the set to itself. The graph's rows are never built, so checking a geometric partition
 * costs the lists, not a row of every neighbour of every element.
 *   connectedness  the members of a list in one part are chained, sorted by part then global number, each to the
 *                  next: a union in this rank's union-find when both are of its block, else the link is sent to
 *                  the part's rank, with, from the homes of its ends, each end and its local root; every local
 *                  component's root goes to its part's rank too, which counts the components of its part
 *                  (umd_components);
 *   cut            each pair of a list's members in different parts goes to the home of its lower number, which
 *                  counts the distinct pairs.
 * Collective; the same figures on every rank, equal to those of the graph's rows. */
#include "dist_blocks.h"

#include <limits.h>

#ifdef UM_HAVE_MPI

/* Messages of w numbers each, for rank dest[i]. */
typedef struct {
  long long *v;
  int *dest;
  int n, cap, w;
} qmsg;

static int msg_add(qmsg *x, int dest, long long a, long long b) {
  if (x->n == x->cap) {
    const int nc = x->cap ? 2 * x->cap : 1024;
    long long *v = realloc(x->v, (size_t)nc * x->w * sizeof *v);
    if (v) x->v = v;
    int *d = realloc(x->dest, (size_t)nc * sizeof *d);
    if (d) x->dest = d;
    if (!v || !d) return UM_ERR_ALLOC;
    x->cap = nc;
  }
  x->v[(size_t)x->n * x->w] = a;
  if (x->w > 1) x->v[(size_t)x->n * x->w + 1] = b;
  x->dest[x->n++] = dest;
  return UM_SUCCESS;
}

static void msg_free(qmsg *x) {
  free(x->v), free(x->dest);
  x->v = NULL, x->dest = NULL, x->n = x->cap = 0;
}

/* The messages to their ranks (then emptied), prior agreed first: *rv gets *nr messages of w numbers. */
static int msg_send(umd_blocks *B, qmsg *x, int prior, long long **rv, int *nr) {
  const int P = B->P, w = x->w;
  int *perm = malloc(((size_t)x->n + 1) * sizeof *perm), *scnt = malloc((size_t)P * sizeof *scnt);
  int *rcnt = malloc((size_t)P * sizeof *rcnt);
  long long *sv = malloc(((size_t)x->n + 1) * w * sizeof *sv);
  int rc = prior != UM_SUCCESS         ? prior
           : perm && scnt && rcnt && sv ? UM_SUCCESS
                                        : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
  if (rc == UM_SUCCESS && (long long)x->n * w > INT_MAX)
    rc = UM_ERROR(B->ctx, UM_ERR_ARG, "checking the parts: rank %d sends more than %d numbers", B->rank, INT_MAX);
  if (rc == UM_SUCCESS) {
    umd_group(x->n, x->dest, P, perm, scnt);
    for (int j = 0; j < x->n; j++) memcpy(sv + (size_t)j * w, x->v + (size_t)perm[j] * w, (size_t)w * sizeof *sv);
    for (int q = 0; q < P; q++) scnt[q] *= w;
  }
  msg_free(x);
  *rv = NULL, *nr = 0;
  rc = umd_agree(B, rc, "checking the parts");
  if (rc == UM_SUCCESS) rc = umd_a2a(B, MPI_LONG_LONG, sizeof *sv, sv, scnt, (void **)rv, rcnt, nr);
  *nr /= w;
  free(perm), free(scnt), free(rcnt), free(sv);
  return rc;
}

typedef struct {
  umd_blocks *B;
  const umd_bset *S;
  const int *part; /* [n]: the candidate's part of each element of this rank's block */
  long long b0;
  int n;
  int *uf;             /* [n] */
  unsigned char *flag; /* [n]: an end of a link that leaves the block */
  long long *ru;       /* the members of other blocks in the lists at hand, ascending, each once */
  int *rp, nru;        /* their parts */
  qmsg links, asks, cuts;
  long long *m; /* a list's members, sorted */
  int *mp, cap; /* their parts */
} qstate;

static int in_block(const qstate *Q, long long g) { return g >= Q->b0 && g < Q->b0 + Q->n; }

static int part_of(const qstate *Q, long long g) {
  if (in_block(Q, g)) return Q->part[g - Q->b0];
  const long long *f = bsearch(&g, Q->ru, (size_t)Q->nru, sizeof *Q->ru, umd_cmp_ll);
  return f ? Q->rp[f - Q->ru] : -1;
}

/* The parts of the members (k numbers, in lists) of other blocks, asked of their homes (collective). */
static int ask_parts(qstate *Q, const long long *all, size_t k, int prior) {
  free(Q->ru), free(Q->rp);
  Q->ru = NULL, Q->rp = NULL, Q->nru = 0;
  size_t nr = 0;
  for (size_t i = 0; i < k; i++) nr += !in_block(Q, all[i]);
  int rc = prior;
  if (rc == UM_SUCCESS && nr > INT_MAX) rc = UM_ERROR(Q->B->ctx, UM_ERR_ARG, "checking the parts: too many neighbours");
  if (rc == UM_SUCCESS && (!(Q->ru = malloc((nr + 1) * sizeof *Q->ru)) || !(Q->rp = malloc((nr + 1) * sizeof *Q->rp))))
    rc = UM_ERROR(Q->B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
  for (size_t i = 0; rc == UM_SUCCESS && i < k; i++)
    if (!in_block(Q, all[i])) Q->ru[Q->nru++] = all[i];
  if (rc == UM_SUCCESS) qsort(Q->ru, (size_t)Q->nru, sizeof *Q->ru, umd_cmp_ll);
  int w = 0;
  for (int i = 0; rc == UM_SUCCESS && i < Q->nru; i++)
    if (!w || Q->ru[i] != Q->ru[w - 1]) Q->ru[w++] = Q->ru[i];
  Q->nru = w;
  rc = umd_agree(Q->B, rc, "checking the parts");
  umd_bset *S = (umd_bset *)Q->S;
  int *keep = S->own_home; /* the homes answer from the candidate */
  S->own_home = (int *)Q->part;
  if (rc == UM_SUCCESS) rc = umd_agree(Q->B, umd_dir_owner(Q->B, (int)(S - Q->B->S), Q->nru, Q->ru, Q->rp), "checking the parts");
  S->own_home = keep;
  return rc;
}

/* Two members a, b of one part q joined: a union when both are of this block, else a link to q's rank and its ends
 * marked (here) or asked for (at their homes). */
static int join(qstate *Q, long long a, long long b, int q) {
  if (in_block(Q, a) && in_block(Q, b)) {
    const int ra = umd_uf_find(Q->uf, (int)(a - Q->b0)), rb = umd_uf_find(Q->uf, (int)(b - Q->b0));
    if (ra != rb) Q->uf[ra < rb ? rb : ra] = ra < rb ? ra : rb;
    return UM_SUCCESS;
  }
  int rc = msg_add(&Q->links, q, a, b);
  const long long ends[2] = {a, b};
  for (int e = 0; rc == UM_SUCCESS && e < 2; e++) {
    if (in_block(Q, ends[e])) Q->flag[ends[e] - Q->b0] = 1;
    else rc = msg_add(&Q->asks, umd_home(Q->S, Q->B->P, ends[e]), ends[e], 0);
  }
  return rc;
}

/* A list whose members are all of this block and of one part (most lists, inside a part): each member joined to the
 * first; 1 when so (the components do not depend on the order of the unions), 0 to take the general way. */
static int one_part_here(qstate *Q, const long long *list, int k) {
  if (k < 1 || !in_block(Q, list[0])) return 0;
  const int a = (int)(list[0] - Q->b0), q = Q->part[a];
  for (int i = 1; i < k; i++)
    if (!in_block(Q, list[i]) || Q->part[list[i] - Q->b0] != q) return 0;
  for (int i = 1; i < k; i++) {
    const int ra = umd_uf_find(Q->uf, a), rb = umd_uf_find(Q->uf, (int)(list[i] - Q->b0));
    if (ra != rb) Q->uf[ra < rb ? rb : ra] = ra < rb ? ra : rb;
  }
  return 1;
}

/* One list of k members: sorted by part then number (repeats dropped), each member chained to the next of its part,
 * and every pair in different parts sent for the cut. */
static int one_list(qstate *Q, const long long *list, int k) {
  if (one_part_here(Q, list, k)) return UM_SUCCESS;
  if (k > Q->cap) {
    const int nc = k > 2 * Q->cap ? k : 2 * Q->cap;
    long long *m = realloc(Q->m, (size_t)nc * sizeof *m);
    if (m) Q->m = m;
    int *p = realloc(Q->mp, (size_t)nc * sizeof *p);
    if (p) Q->mp = p;
    if (!m || !p) return UM_ERROR(Q->B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
    Q->cap = nc;
  }
  int n = 0;
  for (int i = 0; i < k; i++) { /* insertion by (part, number): a list is a few members */
    const long long g = list[i];
    const int q = part_of(Q, g);
    if (q < 0) return UM_ERROR(Q->B->ctx, UM_ERR_INTERNAL, "checking the parts: element %lld's part is unknown", g);
    int j = n;
    while (j > 0 && (Q->mp[j - 1] > q || (Q->mp[j - 1] == q && Q->m[j - 1] > g))) j--;
    if (j > 0 && Q->mp[j - 1] == q && Q->m[j - 1] == g) continue; /* a repeat */
    memmove(Q->m + j + 1, Q->m + j, (size_t)(n - j) * sizeof *Q->m);
    memmove(Q->mp + j + 1, Q->mp + j, (size_t)(n - j) * sizeof *Q->mp);
    Q->m[j] = g, Q->mp[j] = q, n++;
  }
  int rc = UM_SUCCESS;
  for (int i = 1; rc == UM_SUCCESS && i < n; i++)
    if (Q->mp[i] == Q->mp[i - 1]) rc = join(Q, Q->m[i - 1], Q->m[i], Q->mp[i]);
  for (int i = 0; rc == UM_SUCCESS && i < n; i++)
    for (int j = i + 1; rc == UM_SUCCESS && j < n; j++) {
      if (Q->mp[j] == Q->mp[i]) continue;
      const long long lo = Q->m[i] < Q->m[j] ? Q->m[i] : Q->m[j], hi = Q->m[i] < Q->m[j] ? Q->m[j] : Q->m[i];
      rc = msg_add(&Q->cuts, umd_home(Q->S, Q->B->P, lo), lo, hi);
    }
  return rc == UM_ERR_ALLOC ? UM_ERROR(Q->B->ctx, rc, "out of memory checking the parts") : rc;
}

/* Lists of equal length k (rows of a map into the set; pairs of a map of the set to itself), nl of them. */
static int row_lists(qstate *Q, const long long *rows, size_t nl, int k, int prior) {
  int rc = ask_parts(Q, rows, nl * (size_t)k, prior);
  for (size_t l = 0; rc == UM_SUCCESS && l < nl; l++) rc = one_list(Q, rows + l * (size_t)k, k);
  return rc;
}

/* Every rule's lists, map by map (collective: every rank takes every map, agreeing first). */
static int all_lists(qstate *Q, int primary) {
  umd_blocks *B = Q->B;
  um_context *ctx = B->ctx;
  int rc = UM_SUCCESS;
  for (int k = 0; k < ctx->nmaps; k++) {
    const um_map *mp = ctx->maps[k];
    const int from = mp->from->index, to = mp->to->index, ar = mp->arity;
    if (from == primary && to != primary) { /* elements sharing a target */
      int *off = NULL;
      long long *val = NULL;
      rc = umd_agree(B, rc, "checking the parts");
      if (rc == UM_SUCCESS) rc = umd_target_lists(B, mp, &off, &val);
      const int nt = B->S[to].count;
      rc = ask_parts(Q, val, rc == UM_SUCCESS ? (size_t)off[nt] : 0, rc);
      for (int t = 0; rc == UM_SUCCESS && t < nt; t++) rc = one_list(Q, val + off[t], off[t + 1] - off[t]);
      free(off), free(val);
    } else if (from != primary && to == primary) { /* elements one row maps to together */
      rc = row_lists(Q, mp->gtargets, (size_t)B->S[from].count, ar, rc);
    } else if (from == primary) { /* the set to itself: an element and each of its targets */
      const size_t n = (size_t)Q->n * ar;
      long long *pairs = malloc((n + 1) * 2 * sizeof *pairs);
      for (size_t i = 0; pairs && i < n; i++) pairs[2 * i] = Q->b0 + (long long)(i / ar), pairs[2 * i + 1] = mp->gtargets[i];
      if (!pairs && rc == UM_SUCCESS) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory checking the parts");
      rc = row_lists(Q, pairs, pairs ? n : 0, 2, rc);
      free(pairs);
    }
  }
  return umd_agree(B, rc, "checking the parts");
}

static int cmp_pair(const void *a, const void *b) {
  const long long *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The parts' components: the links received, each local component's root, and each marked element with its root,
 * counted at the part's rank. */
static int count_components(qstate *Q, int *ncomp) {
  long long *ra = NULL, *rl = NULL, *rv = NULL;
  int na = 0, nl = 0, nv = 0;
  int rc = msg_send(Q->B, &Q->asks, UM_SUCCESS, &ra, &na); /* the ends of links in other blocks: marked at home */
  for (int i = 0; rc == UM_SUCCESS && i < na; i++) Q->flag[ra[i] - Q->b0] = 1;
  free(ra);
  qmsg roots = {NULL, NULL, 0, 0, 2};
  for (int i = 0; rc == UM_SUCCESS && i < Q->n; i++) {
    const int r = umd_uf_find(Q->uf, i), q = Q->part[i];
    const long long g = Q->b0 + i, gr = Q->b0 + r;
    if (r == i || Q->flag[i]) rc = msg_add(&roots, q, g, g);
    if (rc == UM_SUCCESS && r != i && Q->flag[i]) rc = msg_add(&roots, q, g, gr);
  }
  if (rc == UM_ERR_ALLOC) rc = UM_ERROR(Q->B->ctx, rc, "out of memory checking the parts");
  rc = msg_send(Q->B, &roots, rc, &rv, &nv);
  if (rc == UM_SUCCESS) rc = msg_send(Q->B, &Q->links, rc, &rl, &nl);
  long long *all = rc == UM_SUCCESS ? realloc(rv, ((size_t)nv + nl + 1) * 2 * sizeof *all) : NULL;
  if (rc == UM_SUCCESS && !all) rc = UM_ERROR(Q->B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
  if (all) rv = all, memcpy(all + 2 * (size_t)nv, rl, (size_t)nl * 2 * sizeof *all);
  if (rc == UM_SUCCESS) rc = umd_components(Q->B, rv, nv + nl, ncomp);
  msg_free(&roots);
  free(rv), free(rl);
  return umd_agree(Q->B, rc, "checking the parts");
}

int umd_blocks_quality_lists(umd_blocks *B, int primary, const int *part, long *cut, int *disc) {
  const umd_bset *S = &B->S[primary];
  qstate Q = {B, S, part, S->begin[B->rank], S->count, NULL, NULL, NULL, NULL, 0,
              {NULL, NULL, 0, 0, 2}, {NULL, NULL, 0, 0, 1}, {NULL, NULL, 0, 0, 2}, NULL, NULL, 0};
  Q.uf = malloc(((size_t)Q.n + 1) * sizeof *Q.uf);
  Q.flag = calloc((size_t)Q.n + 1, 1);
  int rc = Q.uf && Q.flag ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
  for (int i = 0; rc == UM_SUCCESS && i < Q.n; i++) Q.uf[i] = i;
  rc = umd_agree(B, rc, "checking the parts");
  if (rc == UM_SUCCESS) rc = all_lists(&Q, primary);
  free(Q.ru), free(Q.rp), free(Q.m), free(Q.mp);
  long long *rc2 = NULL;
  int ncut = 0, ncomp = 0;
  rc = msg_send(B, &Q.cuts, rc, &rc2, &ncut); /* the cut pairs at the homes of their lower ends */
  if (rc == UM_SUCCESS) qsort(rc2, (size_t)ncut, 2 * sizeof *rc2, cmp_pair);
  long long distinct = 0;
  for (int i = 0; rc == UM_SUCCESS && i < ncut; i++)
    distinct += !i || cmp_pair(rc2 + 2 * (size_t)i, rc2 + 2 * ((size_t)i - 1)) != 0;
  free(rc2);
  if (rc == UM_SUCCESS) rc = count_components(&Q, &ncomp);
  else msg_free(&Q.links), msg_free(&Q.asks);
  long long mine[2] = {distinct, ncomp > 1}, sum[2] = {0, 0};
  if (rc == UM_SUCCESS && MPI_Allreduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, B->D->comm) != MPI_SUCCESS)
    rc = UM_ERROR(B->ctx, UM_ERR_BACKEND, "MPI_Allreduce (partition quality) failed");
  *cut = rc == UM_SUCCESS ? (long)sum[0] : -1;
  *disc = rc == UM_SUCCESS ? (int)sum[1] : 0;
  free(Q.uf), free(Q.flag);
  return rc;
}
#endif /* UM_HAVE_MPI */
