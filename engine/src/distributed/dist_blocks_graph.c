/* dist_blocks_graph.c: the primary set's partition on a mesh declared by blocks (design: dist_blocks.c). Each rank
 * builds the graph rows of its own block, with umd_graph_rows' adjacency (partition.h: elements sharing a target
 * of a map from the set, elements one element of another set maps to together, elements a map of the set to
 * itself joins), from pairs of global numbers sent to the homes: no rank sees more than its rows. The candidates of
 * dist_choose.c's chain: PT-Scotch partitions that distributed graph (SCOTCH_dgraphPart), rcb and sfc the points
 * of the blocks (dist_blocks_geom.c), "block" keeps the declared blocks, metis gives way (it needs the whole
 * graph); the edge cut and the parts' connectedness come from the rows (dist_blocks_geom.c). Collective. */
#include "dist_blocks.h"

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

static int cmp_ll(const void *a, const void *b) {
  const long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
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

/* Elements of the primary set sharing a target of map mp (from the primary set to another): (target, element) to
 * the target's home, which pairs the elements of each target. */
static int shared_targets(umd_blocks *B, const um_map *mp, umd_pairs *out) {
  const umd_bset *F = &B->S[mp->from->index], *T = &B->S[mp->to->index];
  const int ar = mp->arity;
  umd_pairs mem = {0};
  long long *val = NULL;
  int *off = NULL, rc = UM_SUCCESS;
  for (int i = 0; rc == UM_SUCCESS && i < F->count; i++)
    for (int a = 0; a < ar && rc == UM_SUCCESS; a++) {
      const long long t = mp->gtargets[(size_t)i * ar + a];
      rc = pairs_add(&mem, t, F->begin[B->rank] + i, umd_home(T, B->P, t));
    }
  if (rc != UM_SUCCESS) rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
  rc = umd_agree(B, rc, "building the graph");
  if (rc == UM_SUCCESS) rc = pairs_send(B, &mem, T->begin[B->rank], T->count, &off, &val);
  pairs_free(&mem);
  for (int t = 0; rc == UM_SUCCESS && t < T->count; t++) /* each target's elements, paired */
    for (int x = off[t]; x < off[t + 1] && rc == UM_SUCCESS; x++)
      for (int y = off[t]; y < off[t + 1] && rc == UM_SUCCESS; y++)
        if (val[x] != val[y]) rc = pairs_add(out, val[x], val[y], umd_home(F, B->P, val[x]));
  free(off), free(val);
  return rc == UM_SUCCESS ? rc : UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory building the graph");
}

/* This rank's rows of the primary set's graph: *xadj [count + 1], *adj global numbers (int). */
static int build_graph(umd_blocks *B, int primary, int **xadj, int **adj) {
  um_context *ctx = B->ctx;
  const umd_bset *S = &B->S[primary];
  umd_pairs out = {0};
  int rc = UM_SUCCESS;
  long long *val = NULL;
  for (int k = 0; rc == UM_SUCCESS && k < ctx->nmaps; k++) {
    const um_map *mp = ctx->maps[k];
    const umd_bset *F = &B->S[mp->from->index];
    const int ar = mp->arity, from = mp->from->index, to = mp->to->index;
    if (from == primary && to != primary) rc = shared_targets(B, mp, &out);
    for (int i = 0; from != primary && to == primary && rc == UM_SUCCESS && i < F->count; i++) { /* mapped together */
      const long long *r = mp->gtargets + (size_t)i * ar;
      for (int a = 0; a < ar && rc == UM_SUCCESS; a++)
        for (int b = 0; b < ar && rc == UM_SUCCESS; b++)
          if (r[a] != r[b]) rc = pairs_add(&out, r[a], r[b], umd_home(S, B->P, r[a]));
    }
    for (int i = 0; from == primary && to == primary && rc == UM_SUCCESS && i < F->count; i++) /* the set to itself */
      for (int a = 0; a < ar && rc == UM_SUCCESS; a++) {
        const long long p = F->begin[B->rank] + i, t = mp->gtargets[(size_t)i * ar + a];
        rc = pairs_add(&out, p, t, B->rank);
        if (rc == UM_SUCCESS) rc = pairs_add(&out, t, p, umd_home(S, B->P, t));
      }
  }
  if (rc != UM_SUCCESS) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the graph");
  rc = umd_agree(B, rc, "building the graph");
  int *off = NULL;
  if (rc == UM_SUCCESS) rc = pairs_send(B, &out, S->begin[B->rank], S->count, &off, &val);
  pairs_free(&out);
  const int nr = rc == UM_SUCCESS ? off[S->count] : 0;
  *xadj = rc == UM_SUCCESS ? calloc((size_t)S->count + 1, sizeof **xadj) : NULL;
  *adj = rc == UM_SUCCESS ? malloc((size_t)(nr ? nr : 1) * sizeof **adj) : NULL;
  if (rc == UM_SUCCESS && (!*xadj || !*adj)) rc = UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory building the graph");
  int len = 0;
  for (int i = 0; rc == UM_SUCCESS && i < S->count; i++) { /* each row's neighbours once, ascending, no self loop */
    const long long p = S->begin[B->rank] + i, *v = val + off[i];
    const int n = off[i + 1] - off[i];
    qsort(val + off[i], (size_t)n, sizeof *val, cmp_ll);
    for (int j = 0; j < n; j++)
      if (v[j] != p && (j == 0 || v[j] != v[j - 1])) (*adj)[len++] = (int)v[j];
    (*xadj)[i + 1] = len;
  }
  free(off), free(val);
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
  int primary, graph;
  const int *xadj, *adj;
  int *cand; /* [count] */
  const um_dat *coords;
  const um_map *via;
  char coords_why[256];
  int coords_said;
} blocks_part;

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
  if (!strcmp(name, "metis")) {
    snprintf(why, wl, "METIS needs the whole graph on one rank, which a mesh declared by blocks never builds");
    return -1;
  }
  if (!strcmp(name, "ptscotch") && !X->graph) return snprintf(why, wl, "the graph could not be built"), -1;
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
  return X->graph ? umd_blocks_quality(B, X->primary, X->xadj, X->adj, X->cand, cut, disc) : UM_SUCCESS;
}

static void blocks_keep(void *self) {
  blocks_part *X = self;
  memcpy(X->B->S[X->primary].own_home, X->cand, (size_t)X->B->S[X->primary].count * sizeof *X->cand);
}

int umd_blocks_partition(umd_blocks *B, int primary, const char *method) {
  um_partition_info *info = &B->D->info;
  umd_bset *S = &B->S[primary];
  int *xadj = NULL, *adj = NULL;
  blocks_part X = {B, primary, 0, NULL, NULL, NULL, NULL, NULL, "", 0};
  X.graph = umd_agree(B, build_graph(B, primary, &xadj, &adj), "building the graph") == UM_SUCCESS;
  if (!X.graph) umd_add_note(info, "the primary set's graph could not be built");
  X.xadj = xadj, X.adj = adj;
  int rc = umd_coords_find(B->ctx, primary, &X.coords, &X.via, X.coords_why, sizeof X.coords_why);
  if (rc == UM_SUCCESS && !strcmp(method, "auto")) method = umd_auto(0, S->gsize, X.coords != NULL, info);
  if (rc == UM_SUCCESS && !(X.cand = malloc((size_t)(S->count ? S->count : 1) * sizeof *X.cand)))
    rc = UM_ERROR(B->ctx, UM_ERR_ALLOC, "out of memory partitioning");
  rc = umd_agree(B, rc, "partitioning");
  static const umd_part_ops ops = {blocks_run, blocks_quality, blocks_keep};
  if (rc == UM_SUCCESS) rc = umd_choose(B->ctx, B->D->comm, &ops, &X, method, X.coords != NULL, info);
  free(xadj), free(adj), free(X.cand);
  return rc;
}
#endif /* UM_HAVE_MPI */
