/* dist_blocks_graph.c: the primary set's partition on a mesh declared by blocks (design: dist_blocks.c). Each rank
 * builds the graph rows of its own block, with umd_graph_rows' adjacency (partition.h: elements sharing a target
 * of a map from the set, elements one element of another set maps to together, elements a map of the set to
 * itself joins), from pairs of global numbers sent to the homes: no rank sees more than its rows. The candidates of
 * dist_choose.c's chain: PT-Scotch partitions that distributed graph (SCOTCH_dgraphPart), rcb and sfc the points
 * of the blocks (dist_blocks_geom.c), "block" keeps the declared blocks, metis gives way (it needs the whole
 * graph); the edge cut and the parts' connectedness come from lists of neighbours (dist_blocks_quality.c), so the
 * graph is built only for PT-Scotch. Collective. */
#include "dist_blocks.h"

#include <limits.h>

#ifdef UM_HAVE_MPI

/* Pairs (p, q) of global numbers, each for rank dest. */
typedef struct {
  long long *v; /* [2 n] */
  int *dest;
  int n, cap;
} umd_pairs;

static int pairs_add(umd_pairs *x, long long p, long long q, int dest) {
  if (x->n == x->cap) {
    const int nc = x->cap ? 2 * x->cap : 1024;
    long long *v = realloc(x->v, (size_t)nc * 2 * sizeof *v);
    if (v) x->v = v;
    int *d = realloc(x->dest, (size_t)nc * sizeof *d);
    if (d) x->dest = d;
    if (!v || !d) return UM_ERR_ALLOC;
    x->cap = nc;
  }
  x->v[2 * x->n] = p, x->v[2 * x->n + 1] = q;
  x->dest[x->n++] = dest;
  return UM_SUCCESS;
}
static void pairs_free(umd_pairs *x) {
  free(x->v), free(x->dest);
  memset(x, 0, sizeof *x);
}

/* Ascending order of a graph row: insertion sort for the short rows of a mesh (a few dozen numbers: no call per
 * comparison), qsort past 64. */
static void sort_row(long long *row, int n) {
  if (n > 64) {
    qsort(row, (size_t)n, sizeof *row, umd_cmp_ll);
    return;
  }
  for (int i = 1; i < n; i++) {
    const long long v = row[i];
    int j = i - 1;
    while (j >= 0 && row[j] > v) row[j + 1] = row[j], j--;
    row[j + 1] = v;
  }
}

/* The pairs (p, q) to their ranks (then emptied), where p is in [base, base + count): the q of the pairs sent here
 * grouped by p (a counting sort, in arrival order within each p): *val[(*off)[p - base] .. (*off)[p - base + 1]). */
static int pairs_send(umd_blocks *B, umd_pairs *x, long long base, int count, int **off, long long **val) {
  const int P = B->P;
  int *perm = malloc((size_t)(x->n ? x->n : 1) * sizeof *perm), *scnt = malloc((size_t)P * sizeof *scnt);
  int *rcnt = malloc((size_t)P * sizeof *rcnt), nr = 0;
  long long *sv = malloc((size_t)(x->n ? x->n : 1) * 2 * sizeof *sv), *rv = NULL;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  int rc = perm && scnt && rcnt && sv ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  if (rc == UM_SUCCESS) {
    umd_group(x->n, x->dest, P, perm, scnt);
    for (int j = 0; j < x->n; j++) memcpy(sv + 2 * j, x->v + 2 * perm[j], 2 * sizeof *sv);
    int m = MPI_Type_contiguous(2, MPI_LONG_LONG, &t);
    if (m == MPI_SUCCESS) m = MPI_Type_commit(&t);
    if (m != MPI_SUCCESS) rc = mpi_fail(B->ctx, m, "MPI_Type_contiguous (pairs)");
  }
  pairs_free(x);
  if (rc == UM_SUCCESS) rc = umd_a2a(B, t, 2 * sizeof *sv, sv, scnt, (void **)&rv, rcnt, &nr);
  *off = rc == UM_SUCCESS ? calloc((size_t)count + 2, sizeof **off) : NULL;
  *val = rc == UM_SUCCESS ? malloc((size_t)(nr ? nr : 1) * sizeof **val) : NULL;
  if (rc == UM_SUCCESS && (!*off || !*val)) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  if (rc == UM_SUCCESS) {
    int *o = *off;
    for (int i = 0; i < nr; i++) o[rv[2 * i] - base + 2]++;
    for (int r = 0; r < count; r++) o[r + 2] += o[r + 1];
    for (int i = 0; i < nr; i++) (*val)[o[rv[2 * i] - base + 1]++] = rv[2 * i + 1]; /* o[r + 1]: r's end after */
  }
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  free(perm), free(scnt), free(rcnt), free(sv), free(rv);
  return rc;
}

/* Send n long longs, v grouped by destination with scnt[P] each, to their ranks: *rv, *nr of them (umd_a2a of
 * MPI_LONG_LONG). */
static int send_lls(umd_blocks *B, const long long *v, const int *scnt, long long **rv, int *nr) {
  int *rcnt = malloc((size_t)B->P * sizeof *rcnt);
  int rc = rcnt ? umd_a2a(B, MPI_LONG_LONG, sizeof **rv, v, scnt, (void **)rv, rcnt, nr)
                : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  free(rcnt);
  return rc;
}

/* The elements of each target of map mp this rank is home to, from (target, element) sent to the homes (a pair
 * whose target is homed here is read where it is, never copied into the exchange: on a mesh declared by blocks
 * nearly all are): lists *off [T->count + 1] into *val (local pairs first, then the received ones). Buffers sized
 * exactly (a count pass, then a fill). */
int umd_target_lists(umd_blocks *B, const um_map *mp, int **off, long long **val) {
  const umd_bset *F = &B->S[mp->from->index], *T = &B->S[mp->to->index];
  const int P = B->P, ar = mp->arity, me = B->rank;
  const size_t n = (size_t)F->count * (size_t)ar;
  const long long base = T->begin[me], e0 = F->begin[me];
  int *scnt = calloc((size_t)P + 1, sizeof *scnt), *pos = malloc(((size_t)P + 1) * sizeof *pos), nr = 0;
  long long *sv = NULL, *rv = NULL;
  int rc = scnt && pos ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  for (size_t k = 0; rc == UM_SUCCESS && k < n; k++) {
    const int q = umd_home(T, P, mp->gtargets[k]);
    if (q != me) scnt[q] += 2;
  }
  for (int q = 0, at = 0; rc == UM_SUCCESS && q < P; q++) pos[q] = at, at += scnt[q];
  if (rc == UM_SUCCESS && !(sv = malloc(((size_t)pos[P - 1] + scnt[P - 1] + 1) * sizeof *sv)))
    rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  for (size_t k = 0; rc == UM_SUCCESS && k < n; k++) {
    const long long t = mp->gtargets[k];
    const int q = umd_home(T, P, t);
    if (q != me) sv[pos[q]++] = t, sv[pos[q]++] = e0 + (long long)(k / (size_t)ar);
  }
  rc = umd_agree(B, rc, "building the graph");
  if (rc == UM_SUCCESS) rc = send_lls(B, sv, scnt, &rv, &nr);
  free(sv), free(scnt), free(pos);
  size_t nl = 0; /* pairs homed here */
  for (size_t k = 0; rc == UM_SUCCESS && k < n; k++) nl += mp->gtargets[k] >= base && mp->gtargets[k] < base + T->count;
  *off = rc == UM_SUCCESS ? calloc((size_t)T->count + 2, sizeof **off) : NULL;
  *val = rc == UM_SUCCESS ? malloc((nl + (size_t)nr / 2 + 1) * sizeof **val) : NULL;
  if (rc == UM_SUCCESS && (!*off || !*val)) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  if (rc == UM_SUCCESS) { /* a counting sort by target: the local pairs, then the received ones */
    int *o = *off;
    for (size_t k = 0; k < n; k++)
      if (mp->gtargets[k] >= base && mp->gtargets[k] < base + T->count) o[mp->gtargets[k] - base + 2]++;
    for (int i = 0; i < nr; i += 2) o[rv[i] - base + 2]++;
    for (int r = 0; r < T->count; r++) o[r + 2] += o[r + 1];
    for (size_t k = 0; k < n; k++)
      if (mp->gtargets[k] >= base && mp->gtargets[k] < base + T->count)
        (*val)[o[mp->gtargets[k] - base + 1]++] = e0 + (long long)(k / (size_t)ar);
    for (int i = 0; i < nr; i += 2) (*val)[o[rv[i] - base + 1]++] = rv[i + 1];
  }
  free(rv);
  return rc;
}

/* A received list: its target and where its k elements start in the stream. */
typedef struct {
  long long t;
  int at, k;
} tlist;
/* The lists of the targets homed on this rank (target_lists'): never sent to this rank itself. */
typedef struct {
  const int *off;
  const long long *val;
  long long base;
  int count;
} tlocal;
static int cmp_tlist(const void *a, const void *b) {
  const long long x = ((const tlist *)a)->t, y = ((const tlist *)b)->t;
  return (x > y) - (x < y);
}

/* A row's global numbers made ascending and distinct, self left out: how many remain (at the front of row). */
static int row_unique(long long *row, int n, long long self) {
  sort_row(row, n);
  int w = 0;
  for (int j = 0; j < n; j++)
    if (row[j] != self && (!w || row[j] != row[w - 1])) row[w++] = row[j];
  return w;
}

/* Room for n numbers in *row (grown by doubling); 0 or UM_ERR_ALLOC. */
static int row_room(long long **row, int *cap, long long n) {
  if (n <= *cap) return UM_SUCCESS;
  if (n > INT_MAX / 2) return UM_ERR_ALLOC;
  int nc = *cap ? *cap : 64;
  while (nc < n) nc *= 2;
  long long *r = realloc(*row, (size_t)nc * sizeof *r);
  if (!r) return UM_ERR_ALLOC;
  *row = r, *cap = nc;
  return UM_SUCCESS;
}

/* The lists (t, k, elements) grouped by rank in *sv (scnt[P] numbers each; freed once sent) to their ranks, then,
 * for each element i of this rank's block of mp's from-set, the elements of every list of its targets (read in
 * mine for a target homed here, which no rank sends to itself), each once,
 * ascending, itself left out: *roff [count + 1] into *rval (global numbers as int: the graph is int, as PT-Scotch
 * takes it). Rows made distinct here: with repeats they held every neighbour once per shared target. */
static int send_lists_join(umd_blocks *B, const um_map *mp, const tlocal *mine, long long **sv, const int *scnt,
                           int **roff, int **rval) {
  const umd_bset *F = &B->S[mp->from->index];
  const int ar = mp->arity;
  long long *rv = NULL, *row = NULL;
  int nr = 0, rc = send_lls(B, *sv, scnt, &rv, &nr), nl = 0, cap = 0;
  free(*sv);
  *sv = NULL;
  for (int i = 0; rc == UM_SUCCESS && i < nr; i += 2 + (int)rv[i + 1]) nl++;
  tlist *L = rc == UM_SUCCESS ? malloc((size_t)(nl + 1) * sizeof *L) : NULL;
  *roff = rc == UM_SUCCESS ? calloc((size_t)F->count + 1, sizeof **roff) : NULL;
  if (rc == UM_SUCCESS && (!L || !*roff)) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  for (int i = 0, l = 0; rc == UM_SUCCESS && i < nr; i += 2 + (int)rv[i + 1], l++) L[l] = (tlist){rv[i], i + 2, (int)rv[i + 1]};
  if (rc == UM_SUCCESS) qsort(L, (size_t)nl, sizeof *L, cmp_tlist);
  for (int pass = 0; rc == UM_SUCCESS && pass < 2; pass++) { /* count, then fill */
    if (pass) {
      for (int i = 0; i < F->count; i++) (*roff)[i + 1] += (*roff)[i];
      if (!(*rval = malloc(((size_t)(*roff)[F->count] + 1) * sizeof **rval))) rc = UM_ERR_ALLOC;
    }
    for (int i = 0; rc == UM_SUCCESS && i < F->count; i++) {
      int n = 0;
      for (int a = 0; a < ar && rc == UM_SUCCESS; a++) {
        const long long t = mp->gtargets[(size_t)i * ar + a];
        const long long *m = NULL; /* the list of t: here when t is homed here, else received */
        int k = 0;
        if (t >= mine->base && t < mine->base + mine->count) {
          m = mine->val + mine->off[t - mine->base], k = mine->off[t - mine->base + 1] - mine->off[t - mine->base];
        } else {
          const tlist key = {t, 0, 0};
          const tlist *f = bsearch(&key, L, (size_t)nl, sizeof *L, cmp_tlist);
          if (f) m = rv + f->at, k = f->k;
        }
        if (m && (rc = row_room(&row, &cap, (long long)n + k)) == UM_SUCCESS)
          memcpy(row + n, m, (size_t)k * sizeof *row), n += k;
      }
      if (rc != UM_SUCCESS) break;
      n = row_unique(row, n, F->begin[B->rank] + i);
      if (!pass) (*roff)[i + 1] = n;
      for (int j = 0; pass && j < n; j++) (*rval)[(*roff)[i] + j] = (int)row[j];
    }
  }
  if (rc == UM_ERR_ALLOC) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  free(L), free(rv), free(row);
  return rc;
}

/* The lists sent to the homes of their members, each list once to each such rank (the flags to[P] cleared after):
 * pass 0 counts numbers per rank into scnt, pass 1 writes head[0 .. nhead) then the k members at pos[q]. */
static void list_to_homes(const umd_bset *H, int P, int skip, const long long *list, int k, const long long *head,
                          int nhead, int pass, int *scnt, int *pos, long long *sv, unsigned char *to) {
  for (int x = 0; x < k; x++) {
    const int q = umd_home(H, P, list[x]);
    if (to[q] || q == skip) continue;
    to[q] = 1;
    if (!pass) {
      scnt[q] += nhead + k;
      continue;
    }
    if (nhead) memcpy(sv + pos[q], head, (size_t)nhead * sizeof *sv), pos[q] += nhead;
    memcpy(sv + pos[q], list, (size_t)k * sizeof *sv), pos[q] += k;
  }
  for (int x = 0; x < k; x++) to[umd_home(H, P, list[x])] = 0;
}

/* After the counting pass: where each rank's numbers start (pos) and the buffer for them all (*sv). */
static int lists_buffer(umd_blocks *B, const int *scnt, int *pos, long long **sv) {
  long long total = 0;
  for (int q = 0; q < B->P; q++) pos[q] = (int)total, total += scnt[q];
  if (total > INT_MAX)
    return UM_ERROR(B->ctx, UM_ERR_ARG, "the graph's lists exceed %d numbers on rank %d", INT_MAX, B->rank);
  if (!(*sv = malloc((size_t)(total + 1) * sizeof **sv)))
    return UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  return UM_SUCCESS;
}

/* Elements of the primary set sharing a target of map mp (from the primary set to another): each target's home sends
 * the target's list of elements, once, to every rank home to one of them (t, k, then the k elements); each rank then
 * joins, for each element of its block, the lists of its targets: rows[i] (global numbers, each once) as *roff
 * [count + 1] into *rval. prior: this rank's outcome so far (agreed first: collective). No pair is ever sent: a list
 * of k elements costs k numbers, not k (k - 1) pairs. */
static int shared_targets(umd_blocks *B, const um_map *mp, int prior, int **roff, int **rval) {
  const umd_bset *F = &B->S[mp->from->index], *T = &B->S[mp->to->index];
  const int P = B->P;
  int *off = NULL;
  long long *val = NULL, *sv = NULL;
  int *scnt = calloc((size_t)P + 1, sizeof *scnt), *pos = malloc(((size_t)P + 1) * sizeof *pos);
  unsigned char *to = calloc((size_t)P + 1, 1);
  int rc = scnt && pos && to ? prior : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  *roff = NULL, *rval = NULL;
  rc = umd_agree(B, rc, "building the graph"); /* every rank goes on, or none */
  if (rc == UM_SUCCESS) rc = umd_target_lists(B, mp, &off, &val);
  for (int pass = 0; rc == UM_SUCCESS && pass < 2; pass++) { /* count, then fill: each list to its ranks once */
    if (pass) rc = lists_buffer(B, scnt, pos, &sv);
    for (int t = 0; rc == UM_SUCCESS && t < T->count; t++) {
      const int k = off[t + 1] - off[t];
      const long long head[2] = {T->begin[B->rank] + t, k};
      if (k >= 2) list_to_homes(F, P, B->rank, val + off[t], k, head, 2, pass, scnt, pos, sv, to); /* alone: nobody */
    }
  }
  free(to), free(pos);
  rc = umd_agree(B, rc, "building the graph");
  const tlocal mine = {off, val, T->begin[B->rank], T->count};
  if (rc == UM_SUCCESS) rc = send_lists_join(B, mp, &mine, &sv, scnt, roff, rval);
  free(off), free(val), free(sv), free(scnt);
  return rc;
}

/* The rows of a map into the primary set that reach this rank's block: its own (local rows, never sent) and those
 * received from the other ranks. */
typedef struct {
  const long long *local;
  int nlocal;
  const long long *recv;
  int nrecv, ar;
  long long b0;
  int count; /* this rank's block of the primary set: [b0, b0 + count) */
} together;
static const long long *together_row(const together *T, int r) {
  return r < T->nlocal ? T->local + (size_t)r * T->ar : T->recv + (size_t)(r - T->nlocal) * T->ar;
}

/* For each element of the block, the other members of every row it is in, each once, ascending: the rows of each
 * element first (a count, then a fill: *roff [count + 1] into *rval, int), never a copy with repeats. */
static int together_rows(umd_blocks *B, const together *T, int **roff, int **rval) {
  const int nrows = T->nlocal + T->nrecv, ar = T->ar, n = T->count;
  int *off = calloc((size_t)n + 2, sizeof *off), *idx = NULL, cap = 0;
  long long *row = NULL;
  int rc = off ? UM_SUCCESS : UM_ERR_ALLOC;
  for (int r = 0; rc == UM_SUCCESS && r < nrows; r++) /* each element's rows: off/idx, a row once per member */
    for (int a = 0; a < ar; a++) {
      const long long m = together_row(T, r)[a];
      if (m >= T->b0 && m < T->b0 + n) off[m - T->b0 + 2]++;
    }
  for (int i = 0; rc == UM_SUCCESS && i < n; i++) off[i + 2] += off[i + 1];
  if (rc == UM_SUCCESS && !(idx = malloc(((size_t)off[n + 1] + 1) * sizeof *idx))) rc = UM_ERR_ALLOC;
  for (int r = 0; rc == UM_SUCCESS && r < nrows; r++)
    for (int a = 0; a < ar; a++) {
      const long long m = together_row(T, r)[a];
      if (m >= T->b0 && m < T->b0 + n) idx[off[m - T->b0 + 1]++] = r;
    }
  *roff = rc == UM_SUCCESS ? calloc((size_t)n + 1, sizeof **roff) : NULL;
  if (rc == UM_SUCCESS && !*roff) rc = UM_ERR_ALLOC;
  for (int pass = 0; rc == UM_SUCCESS && pass < 2; pass++) { /* count the distinct neighbours, then fill */
    if (pass) {
      for (int i = 0; i < n; i++) (*roff)[i + 1] += (*roff)[i];
      if (!(*rval = malloc(((size_t)(*roff)[n] + 1) * sizeof **rval))) rc = UM_ERR_ALLOC;
    }
    for (int i = 0; rc == UM_SUCCESS && i < n; i++) {
      const int k = off[i + 1] - off[i];
      if ((rc = row_room(&row, &cap, (long long)k * ar)) != UM_SUCCESS) break;
      for (int j = 0; j < k; j++) memcpy(row + (size_t)j * ar, together_row(T, idx[off[i] + j]), (size_t)ar * sizeof *row);
      const int u = row_unique(row, k * ar, T->b0 + i);
      if (!pass) (*roff)[i + 1] = u;
      for (int j = 0; pass && j < u; j++) (*rval)[(*roff)[i] + j] = (int)row[j];
    }
  }
  free(off), free(idx), free(row);
  return rc == UM_SUCCESS ? rc : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
}

/* Elements of the primary set one element of another set maps to together (map mp from another set into the
 * primary one): each row (k targets) goes once to every other rank home to one of its targets (a rank reads its
 * own rows where they are), which adds, for each target it is home to, the row's other targets to that element's
 * row (together_rows): *roff [count + 1] into *rval (global numbers as int, each once). k numbers a rank instead
 * of k (k - 1) pairs (LULESH's element -> 8 nodes: 8, not 56). prior: this rank's outcome so far (agreed first:
 * collective). */
static int mapped_together(umd_blocks *B, const um_map *mp, int prior, int **roff, int **rval) {
  const umd_bset *F = &B->S[mp->from->index], *S = &B->S[mp->to->index];
  const int P = B->P, ar = mp->arity;
  const long long b0 = S->begin[B->rank];
  int *scnt = calloc((size_t)P + 1, sizeof *scnt), *pos = malloc(((size_t)P + 1) * sizeof *pos), nr = 0;
  unsigned char *to = calloc((size_t)P + 1, 1);
  long long *sv = NULL, *rv = NULL;
  int rc = scnt && pos && to ? prior : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  *roff = NULL, *rval = NULL;
  for (int pass = 0; rc == UM_SUCCESS && pass < 2; pass++) { /* count, then fill: each row to its other homes once */
    if (pass) rc = lists_buffer(B, scnt, pos, &sv);
    for (int i = 0; rc == UM_SUCCESS && i < F->count; i++)
      list_to_homes(S, P, B->rank, mp->gtargets + (size_t)i * ar, ar, NULL, 0, pass, scnt, pos, sv, to);
  }
  free(to), free(pos);
  rc = umd_agree(B, rc, "building the graph"); /* every rank goes on, or none */
  if (rc == UM_SUCCESS) rc = send_lls(B, sv, scnt, &rv, &nr);
  free(sv), free(scnt);
  const together T = {mp->gtargets, F->count, rv, nr / ar, ar, b0, S->count};
  if (rc == UM_SUCCESS) rc = together_rows(B, &T, roff, rval);
  free(rv);
  return rc;
}

#define MAX_LISTS 32 /* maps from or into the primary set whose rows join its elements */

/* This rank's rows of the primary set's graph: *xadj [count + 1], *adj global numbers (int). The rows of shared
 * targets come as lists per map (shared_targets); the other rules' pairs go to the homes (pairs_send). */
static int build_graph(umd_blocks *B, int primary, int **xadj, int **adj) {
  um_context *ctx = B->ctx;
  const umd_bset *S = &B->S[primary];
  umd_pairs out = {0};
  int rc = UM_SUCCESS, nlists = 0, *loff[MAX_LISTS] = {NULL}, *lval[MAX_LISTS] = {NULL};
  long long *val = NULL;
  for (int k = 0; k < ctx->nmaps; k++) {
    const um_map *mp = ctx->maps[k];
    const umd_bset *F = &B->S[mp->from->index];
    const int ar = mp->arity, from = mp->from->index, to = mp->to->index;
    if ((from == primary) != (to == primary) && nlists == MAX_LISTS) /* the same on every rank */
      rc = UM_ERROR(ctx, UM_ERR_UNSUPPORTED, "more than %d maps from or into the primary set '%s'", MAX_LISTS,
                    ctx->sets[primary]->name);
    else if (from == primary && to != primary) /* collective: called on every rank whatever rc is */
      rc = shared_targets(B, mp, rc, &loff[nlists], &lval[nlists]), nlists++;
    else if (from != primary && to == primary) /* mapped together; collective as well */
      rc = mapped_together(B, mp, rc, &loff[nlists], &lval[nlists]), nlists++;
    for (int i = 0; from == primary && to == primary && rc == UM_SUCCESS && i < F->count; i++) /* the set to itself */
      for (int a = 0; a < ar && rc == UM_SUCCESS; a++) {
        const long long p = F->begin[B->rank] + i, t = mp->gtargets[(size_t)i * ar + a];
        rc = pairs_add(&out, p, t, B->rank);
        if (rc == UM_SUCCESS) rc = pairs_add(&out, t, p, umd_home(S, B->P, t));
      }
  }
  if (rc == UM_ERR_ALLOC) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the graph");
  rc = umd_agree(B, rc, "building the graph");
  int *off = NULL;
  if (rc == UM_SUCCESS) rc = pairs_send(B, &out, S->begin[B->rank], S->count, &off, &val);
  pairs_free(&out);
  long long nr = rc == UM_SUCCESS ? off[S->count] : 0, longest = 0;
  for (int i = 0; rc == UM_SUCCESS && i < S->count; i++) {
    long long len = off[i + 1] - off[i];
    for (int l = 0; l < nlists; l++) len += loff[l][i + 1] - loff[l][i];
    longest = len > longest ? len : longest;
  }
  for (int l = 0; rc == UM_SUCCESS && l < nlists; l++) nr += loff[l][S->count];
  long long *row = rc == UM_SUCCESS ? malloc((size_t)(longest + 1) * sizeof *row) : NULL;
  *xadj = rc == UM_SUCCESS ? calloc((size_t)S->count + 1, sizeof **xadj) : NULL;
  *adj = rc == UM_SUCCESS && nr <= INT_MAX ? malloc((size_t)(nr ? nr : 1) * sizeof **adj) : NULL;
  if (rc == UM_SUCCESS && (!*xadj || !*adj || !row)) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the graph");
  int len = 0;
  for (int i = 0; rc == UM_SUCCESS && i < S->count; i++) { /* each row's neighbours once, ascending, no self loop */
    const long long p = S->begin[B->rank] + i;
    int n = off[i + 1] - off[i];
    memcpy(row, val + off[i], (size_t)n * sizeof *row);
    for (int l = 0; l < nlists; l++)
      for (int j = loff[l][i]; j < loff[l][i + 1]; j++) row[n++] = lval[l][j];
    sort_row(row, n);
    for (int j = 0; j < n; j++)
      if (row[j] != p && (j == 0 || row[j] != row[j - 1])) (*adj)[len++] = (int)row[j];
    (*xadj)[i + 1] = len;
  }
  free(off), free(val), free(row);
  for (int l = 0; l < nlists; l++) free(loff[l]), free(lval[l]);
  return rc;
}

/* PT-Scotch's k-way partition of the distributed graph into part[count] (0), or -1 with why (every rank alike). */
static int scotch_parts(umd_blocks *B, int primary, const int *xadj, const int *adj, int *part, char *why, size_t wl) {
#ifdef UM_HAVE_PTSCOTCH
  setenv("SCOTCH_PTHREAD_NUMBER", "1", 0); /* one thread per rank (dist_migrate.c's ptscotch_parts says why) */
  const int nv = B->S[primary].count;
  long edges = xadj[nv], all_edges = 0;
  MPI_Allreduce(&edges, &all_edges, 1, MPI_LONG, MPI_SUM, B->D->comm);
  int level = 0, failed = 0, any = 0;
  MPI_Query_thread(&level);
  if (B->S[primary].gsize < B->P)
    failed = 1, snprintf(why, wl, "the primary set has fewer elements (%lld) than ranks (%d)", B->S[primary].gsize, B->P);
  else if (all_edges == 0) failed = 1, snprintf(why, wl, "the primary set's graph has no edges");
  else if (level < MPI_THREAD_MULTIPLE)
    failed = 1, snprintf(why, wl, "MPI was started without MPI_THREAD_MULTIPLE, which this PT-Scotch needs");
  if (failed) return -1; /* the same facts on every rank */
  int *loc = malloc(((size_t)nv + 1) * sizeof *loc);
  any = umd_scotch_part(B->D->comm, nv, xadj, adj, B->P, loc);
  for (int i = 0; !any && i < nv; i++) part[i] = loc[i];
  if (any) snprintf(why, wl, "SCOTCH_dgraphPart failed on a rank (see the PT-Scotch message above)");
  free(loc);
  return any ? -1 : 0;
#else
  (void)B, (void)primary, (void)xadj, (void)adj, (void)part;
  snprintf(why, wl, "this build has no PT-Scotch");
  return -1;
#endif
}

/* The candidates of dist_choose.c's chain on a mesh declared by blocks: each gives the owners of this rank's block. */
typedef struct {
  umd_blocks *B;
  int primary, graph; /* graph: 0 not built yet, 1 built, -1 could not be built */
  int *xadj, *adj;
  int *cand; /* [count] */
  const um_dat *coords;
  const um_map *via;
  char coords_why[256];
  int coords_said;
} blocks_part;

/* The primary set's graph, built when PT-Scotch runs (the candidates' quality comes from lists:
 * dist_blocks_quality.c), so a geometric partition never builds it; 1 when it is there. Collective: every rank
 * reaches it at the same step of the chain. */
static int ensure_graph(blocks_part *X) {
  if (!X->graph) {
    X->graph = umd_agree(X->B, build_graph(X->B, X->primary, &X->xadj, &X->adj), "building the graph") == UM_SUCCESS ? 1 : -1;
    if (X->graph < 0) umd_add_note(&X->B->D->info, "the primary set's graph could not be built");
  }
  return X->graph > 0;
}

/* rcb or sfc over the points of this rank's block (dist_blocks_geom.c, dist_geom.c). */
static int blocks_geom(blocks_part *X, int sfc, char *why, size_t wl) {
  umd_blocks *B = X->B;
  const umd_bset *S = &B->S[X->primary];
  if (!X->coords) return snprintf(why, wl, "%s", X->coords_why), -1;
  if (!X->coords_said) {
    char say[200];
    umd_coords_say(X->coords, X->via, say, sizeof say);
    umd_add_note(&B->D->info, "coordinates: %s", say);
    X->coords_said = 1;
  }
  double *xyz = malloc(((size_t)S->count + 1) * 3 * sizeof *xyz);
  long long *gid = malloc(((size_t)S->count + 1) * sizeof *gid);
  int rc = umd_agree(B, xyz && gid ? UM_SUCCESS : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory"), "placing points");
  if (rc == UM_SUCCESS) rc = umd_agree(B, umd_blocks_points(B, X->primary, X->coords, X->via, xyz), "placing points");
  for (int i = 0; rc == UM_SUCCESS && i < S->count; i++) gid[i] = S->begin[B->rank] + i;
  int geom = rc;
  if (rc == UM_SUCCESS) geom = umd_geom_part(B->D->comm, sfc, S->count, X->coords->dim, xyz, gid, B->P, X->cand);
  if (rc != UM_SUCCESS) snprintf(why, wl, "%s", um_error_message(B->ctx));
  else if (geom != UM_SUCCESS) snprintf(why, wl, "out of memory or an MPI call failed (code %d)", geom);
  free(xyz), free(gid);
  return rc == UM_SUCCESS && geom == UM_SUCCESS ? 0 : -1;
}

static int blocks_run(void *self, const char *name, char *why, size_t wl) {
  blocks_part *X = self;
  umd_blocks *B = X->B;
  const char *set = B->ctx->sets[X->primary]->name;
  const int graph = !strcmp(name, "metis") || !strcmp(name, "ptscotch");
  if (graph && !umd_graph_fits(name, set, B->S[X->primary].gsize, why, wl)) return -1; /* gsize: every rank's */
  if (!strcmp(name, "metis")) {
    snprintf(why, wl, "METIS needs the whole graph on one rank, which a mesh declared by blocks never builds (with umrun: "
                      "mpi.mesh: whole declares the mesh whole, for METIS)");
    return -1;
  }
  if (!strcmp(name, "ptscotch") && !ensure_graph(X)) return snprintf(why, wl, "the graph could not be built"), -1;
  if (!strcmp(name, "ptscotch")) return scotch_parts(B, X->primary, X->xadj, X->adj, X->cand, why, wl);
  if (!strcmp(name, "rcb") || !strcmp(name, "sfc")) return blocks_geom(X, !strcmp(name, "sfc"), why, wl);
  for (int i = 0; i < B->S[X->primary].count; i++) X->cand[i] = B->rank; /* block: the declared blocks */
  return 0;
}

static int blocks_quality(void *self, int *empty, int *disc, long *cut) {
  blocks_part *X = self;
  umd_blocks *B = X->B;
  const int n = B->S[X->primary].count;
  int *cnt = calloc((size_t)B->P, sizeof *cnt);
  if (!cnt) return UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory checking the parts");
  for (int i = 0; i < n; i++) cnt[X->cand[i]]++;
  int m = MPI_Allreduce(MPI_IN_PLACE, cnt, B->P, MPI_INT, MPI_SUM, B->D->comm);
  *empty = 0;
  for (int q = 0; q < B->P; q++) *empty += cnt[q] == 0;
  free(cnt);
  if (m != MPI_SUCCESS) return mpi_fail(B->ctx, m, "MPI_Allreduce (part sizes)");
  *cut = -1, *disc = 0;
  return umd_blocks_quality_lists(B, X->primary, X->cand, cut, disc);
}

static void blocks_keep(void *self) {
  blocks_part *X = self;
  memcpy(X->B->S[X->primary].own_home, X->cand, (size_t)X->B->S[X->primary].count * sizeof *X->cand);
}

int umd_blocks_partition(umd_blocks *B, int primary, const char *method) {
  um_partition_info *info = &B->D->info;
  umd_bset *S = &B->S[primary];
  blocks_part X = {B, primary, 0, NULL, NULL, NULL, NULL, NULL, "", 0};
  int rc = umd_coords_find(B->ctx, primary, &X.coords, &X.via, X.coords_why, sizeof X.coords_why);
  if (rc == UM_SUCCESS && !strcmp(method, "auto")) method = umd_auto(0, S->gsize, X.coords != NULL, info);
  if (rc == UM_SUCCESS && !(X.cand = malloc((size_t)(S->count ? S->count : 1) * sizeof *X.cand)))
    rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory partitioning");
  rc = umd_agree(B, rc, "partitioning");
  static const umd_part_ops ops = {blocks_run, blocks_quality, blocks_keep};
  if (rc == UM_SUCCESS) rc = umd_choose(B->ctx, B->D->comm, &ops, &X, method, X.coords != NULL, info);
  free(X.xadj), free(X.adj), free(X.cand);
  return rc;
}
#endif /* UM_HAVE_MPI */
