/* Reorderings: the object, propagation through the maps, and applying the
 * permutations to every set, map and dat of a context (see um/reorder.h). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "reorder_internal.h"
#include "../util/hash.h"

/* ---- names and options ------------------------------------------------------ */

const char *um_reorder_method_name(um_reorder_method m) {
  switch (m) {
  case UM_REORDER_NONE: return "none";
  case UM_REORDER_GPS: return "gps";
  case UM_REORDER_PARTITION: return "partition";
  }
  return "?";
}

int um_reorder_method_parse(const char *s, um_reorder_method *out) {
  if (!s || !out) return UM_ERR_ARG;
  for (int m = UM_REORDER_NONE; m <= UM_REORDER_PARTITION; m++)
    if (strcmp(s, um_reorder_method_name((um_reorder_method)m)) == 0) {
      *out = (um_reorder_method)m;
      return UM_SUCCESS;
    }
  return UM_ERR_ARG;
}

void um_reorder_options_default(um_reorder_options *o) {
  memset(o, 0, sizeof *o);
  o->block_size = 0;
  o->margin = 0.1;
  o->imbalance = 1.02;
  o->seed = 1;
}

/* ---- the object ----------------------------------------------------------------- */

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

int um__reordering_alloc(um_context *ctx, int nsets, um_reordering **out) {
  *out = NULL;
  um_reordering *r = calloc(1, sizeof *r);
  if (r) {
    r->nsets = nsets;
    r->names = calloc(nsets ? (size_t)nsets : 1, sizeof *r->names);
    r->sizes = calloc(nsets ? (size_t)nsets : 1, sizeof *r->sizes);
    r->perm = calloc(nsets ? (size_t)nsets : 1, sizeof *r->perm);
    r->map = dupstr("");
    r->map_hash = dupstr("");
    r->part_slot = -1;
  }
  if (!r || !r->names || !r->sizes || !r->perm || !r->map || !r->map_hash) {
    um_reordering_free(&r);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory creating a reordering of %d sets", nsets);
  }
  *out = r;
  return UM_SUCCESS;
}

int um__reordering_label(um_context *ctx, um_reordering *r, um_reorder_method m, const char *map, const char *hash) {
  char *a = dupstr(map ? map : ""), *b = dupstr(hash ? hash : "");
  if (!a || !b) {
    free(a);
    free(b);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory labelling a reordering");
  }
  free(r->map);
  free(r->map_hash);
  r->map = a;
  r->map_hash = b;
  r->method = m;
  return UM_SUCCESS;
}

void um_reordering_free(um_reordering **pr) {
  if (!pr || !*pr) return;
  um_reordering *r = *pr;
  for (int i = 0; i < r->nsets; i++) {
    if (r->names) free(r->names[i]);
    if (r->perm) free(r->perm[i]);
  }
  free(r->names);
  free(r->sizes);
  free(r->perm);
  free(r->map);
  free(r->map_hash);
  free(r->part_offset);
  free(r);
  *pr = NULL;
}

um_reorder_method um_reordering_method(const um_reordering *r) { return r->method; }
const char *um_reordering_map(const um_reordering *r) { return r->map; }
int um_reordering_nsets(const um_reordering *r) { return r->nsets; }
const char *um_reordering_set_name(const um_reordering *r, int i) {
  return (i >= 0 && i < r->nsets) ? r->names[i] : NULL;
}
int um_reordering_set_size(const um_reordering *r, int i) { return (i >= 0 && i < r->nsets) ? r->sizes[i] : -1; }
const int *um_reordering_perm(const um_reordering *r, const char *set_name) {
  if (!r || !set_name) return NULL;
  for (int i = 0; i < r->nsets; i++)
    if (strcmp(r->names[i], set_name) == 0) return r->perm[i];
  return NULL;
}

const int *um_set_permutation(const um_set *set) { return set ? set->perm : NULL; }

void um__map_hash(const um_map *m, char *buf) {
  uint64_t h = UM_FNV_OFFSET;
  size_t n = (size_t)m->from->size * (size_t)m->arity;
  for (size_t i = 0; i < n; i++) { /* each entry as 4 little-endian bytes, whatever the host */
    uint32_t v = (uint32_t)m->data[i];
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    h = um_fnv1a(h, b, 4);
  }
  snprintf(buf, 17, "%016llx", (unsigned long long)h);
}

int um__parts_valid(const int *off, int nparts, int size, int block_size) {
  if (!off || nparts < 0 || block_size <= 0 || off[0] != 0 || off[nparts] != size) return 0;
  for (int b = 0; b < nparts; b++) {
    long long n = (long long)off[b + 1] - off[b];
    if (n < 1 || n > block_size) return 0;
  }
  return 1;
}

static int slot_of(um_context *ctx, um_reordering *r, const um_set *set) {
  (void)ctx;
  for (int i = 0; i < r->nsets; i++)
    if (strcmp(r->names[i], set->name) == 0) return i;
  return -1;
}

/* An identity reordering naming every set of ctx. */
static int alloc_for_ctx(um_context *ctx, um_reordering **out) {
  UM_CHECK(ctx, um__reordering_alloc(ctx, ctx->nsets, out));
  um_reordering *r = *out;
  for (int i = 0; i < ctx->nsets; i++) {
    r->names[i] = dupstr(ctx->sets[i]->name);
    r->sizes[i] = ctx->sets[i]->size;
    if (!r->names[i]) {
      um_reordering_free(out);
      return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory creating a reordering");
    }
  }
  return UM_SUCCESS;
}

int um_reordering_create(um_context *ctx, um_reordering **out) {
  UM_CTX_OK(ctx);
  if (!out) return UM_ERROR(ctx, UM_ERR_ARG, "um_reordering_create: out is NULL");
  UM_CHECK(ctx, alloc_for_ctx(ctx, out));
  return UM_SUCCESS;
}

int um_reordering_set_perm(um_context *ctx, um_reordering *r, const um_set *set, const int *n2o, int n) {
  UM_CTX_OK(ctx);
  if (!r || !set) return UM_ERROR(ctx, UM_ERR_ARG, "um_reordering_set_perm: reordering or set is NULL");
  int s = slot_of(ctx, r, set);
  if (s < 0 || set->ctx != ctx)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_reordering_set_perm: set '%s' is not one of the reordering's sets",
                    set->name);
  if (n != set->size || (n && !n2o))
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "um_reordering_set_perm: permutation of set '%s' has %d entries but the set has %d elements",
                    set->name, n, set->size);
  int ok = um__is_bijection(n2o, n);
  if (ok < 0) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory checking a permutation of '%s'", set->name);
  if (!ok)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "um_reordering_set_perm: the permutation of set '%s' is not a bijection of 0..%d (an index is "
                    "repeated or out of range)",
                    set->name, n - 1);
  int *p = malloc(n ? (size_t)n * sizeof *p : 1);
  if (!p) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory storing a permutation of '%s'", set->name);
  if (n) memcpy(p, n2o, (size_t)n * sizeof *p);
  free(r->perm[s]);
  r->perm[s] = p;
  if (r->part_slot == s) { /* the parts were for the old permutation */
    free(r->part_offset);
    r->part_offset = NULL;
    r->nparts = 0;
    r->part_block_size = 0;
    r->part_slot = -1;
  }
  return UM_SUCCESS;
}

/* Rule (b): first-touch order of the to-set of m (X -> S) scanning X in its new order. */
static int order_first_touch(const um_map *m, const int *n2o_X, int *n2o_S) {
  int nx = m->from->size, ns = m->to->size, ar = m->arity;
  unsigned char *seen = calloc(ns > 0 ? (size_t)ns : 1, 1);
  if (!seen) return UM_ERR_ALLOC;
  int next = 0;
  for (int i = 0; i < nx; i++) {
    int x = n2o_X ? n2o_X[i] : i;
    for (int k = 0; k < ar; k++) {
      int s = m->data[(size_t)x * ar + k];
      if (!seen[s]) {
        seen[s] = 1;
        n2o_S[next++] = s;
      }
    }
  }
  for (int s = 0; s < ns; s++)
    if (!seen[s]) n2o_S[next++] = s;
  free(seen);
  return UM_SUCCESS;
}

static int *inverse_perm(const int *n2o, int n) {
  int *o2n = malloc(n > 0 ? (size_t)n * sizeof *o2n : 1);
  if (o2n)
    for (int i = 0; i < n; i++) o2n[n2o[i]] = i;
  return o2n;
}

/* ---- compute ----------------------------------------------------------------------- */

static int check_loops_not_run(um_context *ctx, const char *what) {
  for (int i = 0; i < ctx->nloops; i++)
    if (ctx->loops[i].calls > 0 || ctx->loops[i].kernel)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "%s: loop '%s' has already run on this context; reorder after declaring the sets, maps and "
                      "dats and before the first loop",
                      what, ctx->loops[i].name);
  return UM_SUCCESS;
}

static int compute_impl(um_context *ctx, um_reorder_method method, const um_map *map, const um_reorder_options *opts,
                        um_reordering *r, um_reorder_stats *st) {
  int ns = ctx->nsets;
  /* r->perm[i] is the slot of ctx->sets[i] (alloc_for_ctx keeps the order) */
  if (method == UM_REORDER_NONE) return UM_SUCCESS;
  um_set *F = map->from, *T = map->to;
  int fi = F->index, ti = T->index;
  r->perm[fi] = malloc((size_t)F->size * sizeof(int) + 1);
  r->perm[ti] = malloc((size_t)T->size * sizeof(int) + 1);
  if (!r->perm[fi] || !r->perm[ti])
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory reordering sets '%s' and '%s'", F->name, T->name);
  if (method == UM_REORDER_GPS) {
    UM_CHECK(ctx, um__reorder_gps(ctx, map, r->perm[fi], r->perm[ti]));
  } else {
    UM_CHECK(ctx, um__reorder_partition(ctx, map, opts, r->perm[fi], r->perm[ti], st, &r->part_offset, &r->nparts));
    r->part_slot = fi;
    r->part_block_size = opts->block_size;
  }
  /* settle the other sets through the maps, in rounds */
  /* a round uses only sets settled in earlier rounds, so a set is ordered
   * through a map to the nearest of F and T (Airfoil's bedges by their cells) */
  unsigned char *before = calloc((size_t)ns + 1, 1);
  if (!before) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory reordering");
  for (int progress = 1; progress;) {
    progress = 0;
    for (int s = 0; s < ns; s++) before[s] = r->perm[s] != NULL;
    for (int s = 0; s < ns; s++) {
      if (r->perm[s]) continue;
      um_set *S = ctx->sets[s];
      const um_map *via = NULL;
      int rule = 0;
      for (int j = 0; j < ctx->nmaps && !via; j++) {
        const um_map *m = ctx->maps[j];
        if (m->from == S && m->to != S && before[m->to->index]) via = m, rule = 'a';
      }
      for (int j = 0; j < ctx->nmaps && !via; j++) {
        const um_map *m = ctx->maps[j];
        if (m->to == S && m->from != S && before[m->from->index]) via = m, rule = 'b';
      }
      if (!via) continue;
      int *p = malloc((size_t)S->size * sizeof(int) + 1);
      if (!p) {
        free(before);
        return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory reordering set '%s'", S->name);
      }
      int rc;
      if (rule == 'a') {
        int *o2n = inverse_perm(r->perm[via->to->index], via->to->size);
        rc = o2n ? um__order_by_targets(via, o2n, p) : UM_ERR_ALLOC;
        free(o2n);
      } else {
        rc = order_first_touch(via, r->perm[via->from->index], p);
      }
      if (rc != UM_SUCCESS) {
        free(p);
        free(before);
        return UM_ERROR(ctx, rc, "out of memory reordering set '%s' through map '%s'", S->name, via->name);
      }
      r->perm[s] = p;
      progress = 1;
    }
  }
  free(before);
  return UM_SUCCESS;
}

/* A mesh declared by blocks (um_decl_set_block) holds only this rank's block of each set: no reordering of it. */
static int check_not_blocks(um_context *ctx, const char *fn) {
  for (int i = 0; i < ctx->nsets; i++)
    if (ctx->sets[i]->block)
      return UM_ERROR(ctx, UM_ERR_UNSUPPORTED, "%s: set '%s' is declared by blocks; a mesh declared by blocks is not "
                      "reordered (yet)", fn, ctx->sets[i]->name);
  return UM_SUCCESS;
}

int um_reorder_compute(um_context *ctx, um_reorder_method method, const um_map *map, const um_reorder_options *opts,
                       um_reordering **out, um_reorder_stats *stats) {
  UM_CTX_OK(ctx);
  UM_CHECK(ctx, check_not_blocks(ctx, "um_reorder_compute"));
  if (!out) return UM_ERROR(ctx, UM_ERR_ARG, "um_reorder_compute: out is NULL");
  *out = NULL;
  if (method != UM_REORDER_NONE && method != UM_REORDER_GPS && method != UM_REORDER_PARTITION)
    return UM_ERROR(ctx, UM_ERR_ARG, "unknown reordering method %d: use none, gps or partition", (int)method);
  um_reorder_options o;
  if (opts) o = *opts;
  else um_reorder_options_default(&o);
  if (o.block_size == 0) o.block_size = ctx->opts.block_size;
  if (method != UM_REORDER_NONE) {
    if (!map)
      return UM_ERROR(ctx, UM_ERR_ARG, "reordering '%s' needs a map (e.g. the edges -> cells map of the main loop)",
                      um_reorder_method_name(method));
    if (map->ctx != ctx)
      return UM_ERROR(ctx, UM_ERR_ARG, "reordering '%s': map '%s' belongs to another context",
                      um_reorder_method_name(method), map->name);
    if (map->from == map->to)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "reordering '%s': map '%s' goes from set '%s' to itself; base the reordering on a map between "
                      "two different sets (iteration set -> target set)",
                      um_reorder_method_name(method), map->name, map->from->name);
  }
  if (method == UM_REORDER_PARTITION) {
    if (o.block_size <= 0 || !(o.margin >= 0.0 && o.margin < 1.0) || o.block_size * (1.0 - o.margin) < 1.0)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "reordering 'partition': block size %d with margin %g leaves no room; use a block size > 0 "
                      "and a margin in [0, 1), e.g. 256 and 0.1",
                      o.block_size, o.margin);
    if (!(o.imbalance >= 1.0 && o.imbalance <= 3.0))
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "reordering 'partition': imbalance %g must be between 1 and 3 (max part size over mean), "
                      "e.g. 1.02",
                      o.imbalance);
  }
  um_reorder_stats st;
  memset(&st, 0, sizeof st);
  double t0 = um_wtime();
  um_reordering *r = NULL;
  UM_CHECK(ctx, alloc_for_ctx(ctx, &r));
  char hash[17] = "";
  if (map && method != UM_REORDER_NONE) um__map_hash(map, hash);
  int rc = um__reordering_label(ctx, r, method, map && method != UM_REORDER_NONE ? map->name : "", hash);
  if (rc == UM_SUCCESS) rc = compute_impl(ctx, method, map, &o, r, &st);
  if (rc != UM_SUCCESS) {
    um_reordering_free(&r);
    return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  }
  st.compute_seconds = um_wtime() - t0;
  if (stats) {
    stats->compute_seconds = st.compute_seconds;
    stats->nparts = st.nparts;
    stats->max_part_size = st.max_part_size;
    stats->edgecut = st.edgecut;
  }
  *out = r;
  return UM_SUCCESS;
}

/* ---- apply ----------------------------------------------------------------------------- */

typedef struct {
  int *n2o, *o2n; /* NULL: identity */
} set_perm;

/* Permute the first n of `rows` allocated rows (SoA columns are rows long). */
static void permute_rows(char *dst, const char *src, const int *n2o, size_t n, size_t rows, int dim, size_t esize,
                         int soa) {
  if (!soa) {
    size_t row = (size_t)dim * esize;
    for (size_t i = 0; i < n; i++) memcpy(dst + i * row, src + (size_t)n2o[i] * row, row);
    return;
  }
  for (int c = 0; c < dim; c++) {
    char *d = dst + (size_t)c * rows * esize;
    const char *s = src + (size_t)c * rows * esize;
    if (esize == 8)
      for (size_t i = 0; i < n; i++) memcpy(d + i * 8, s + (size_t)n2o[i] * 8, 8);
    else
      for (size_t i = 0; i < n; i++) memcpy(d + i * esize, s + (size_t)n2o[i] * esize, esize);
  }
}

/* The reordering's sets are the context's (by name and size); *part_set: the set its parts split (checked to
 * be consecutive ranges), or NULL. */
static int match_sets(um_context *ctx, const um_reordering *r, um_set **part_set) {
  /* match the reordering's sets to the context's */
  for (int i = 0; i < r->nsets; i++) {
    um_set *s = um_find_set(ctx, r->names[i]);
    if (!s)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "um_reorder_apply: the reordering names set '%s', which this context does not declare; it was "
                      "made for another mesh or app",
                      r->names[i]);
    if (s->size != r->sizes[i])
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "um_reorder_apply: set '%s' has %d elements but the reordering was made for %d; it belongs to "
                      "another mesh",
                      s->name, s->size, r->sizes[i]);
  }
  if (r->part_offset) {
    *part_set = r->part_slot >= 0 && r->part_slot < r->nsets ? um_find_set(ctx, r->names[r->part_slot]) : NULL;
    if (!*part_set || !um__parts_valid(r->part_offset, r->nparts, (*part_set)->size, r->part_block_size))
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "um_reorder_apply: the reordering's parts (%d of at most %d elements) do not split set '%s' "
                      "into consecutive ranges; the reordering is corrupt",
                      r->nparts, r->part_block_size, *part_set ? (*part_set)->name : "?");
  }
  return UM_SUCCESS;
}

/* The new arrays (dbuf, mbuf), the sets' cumulative permutations (cum) and the parts take the old ones' places
 * (each taken is set to NULL); the plans go. */
static void commit(um_context *ctx, const um_reordering *r, const set_perm *sp, char **dbuf, int **mbuf, int **cum,
                   um_set *part_set, int **parts) {
  const int ns = ctx->nsets;
  for (int i = 0; i < ctx->ndats; i++)
    if (dbuf[i]) {
      free(ctx->dats[i]->data);
      ctx->dats[i]->data = dbuf[i];
      dbuf[i] = NULL;
      um__dat_host_moved(ctx->dats[i]);
    }
  for (int i = 0; i < ctx->nmaps; i++)
    if (mbuf[i]) {
      free(ctx->maps[i]->data);
      ctx->maps[i]->data = mbuf[i];
      mbuf[i] = NULL;
    }
  for (int s = 0; s < ns; s++) {
    if (!sp[s].o2n) continue;
    um_set *S = ctx->sets[s];
    for (int e = 0; e < S->size; e++) cum[s][e] = sp[s].o2n[S->perm ? S->perm[e] : e];
    free(S->perm);
    S->perm = cum[s];
    cum[s] = NULL;
    /* parts of an earlier partition do not survive a renumbering */
    free(S->part_offset);
    S->part_offset = NULL;
    S->nparts = 0;
    S->part_block_size = 0;
  }
  if (part_set) {
    free(part_set->part_offset);
    part_set->part_offset = *parts;
    part_set->nparts = r->nparts;
    part_set->part_block_size = r->part_block_size;
    *parts = NULL;
  }
  um_plan_cache_clear(ctx->plans);
  for (int i = 0; i < ctx->nloops; i++) ctx->loops[i].last_plan = NULL;
}

int um_reorder_apply(um_context *ctx, const um_reordering *r, um_reorder_stats *stats) {
  if (ctx && ctx->dist)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "reordering: the mesh is distributed already; reorder before um_distribute (um_app_prepare does)");
  UM_CTX_OK(ctx);
  if (!r) return UM_ERROR(ctx, UM_ERR_ARG, "um_reorder_apply: reordering is NULL");
  UM_CHECK(ctx, check_not_blocks(ctx, "um_reorder_apply"));
  UM_CHECK(ctx, check_loops_not_run(ctx, "um_reorder_apply"));
  double t0 = um_wtime();
  um_set *part_set = NULL;
  const int fits = match_sets(ctx, r, &part_set); /* its errors told there */
  if (fits != UM_SUCCESS) return fits;
  int ns = ctx->nsets, rc = UM_SUCCESS;
  int *parts = NULL;
  if (part_set) {
    parts = malloc(((size_t)r->nparts + 1) * sizeof *parts);
    if (parts) memcpy(parts, r->part_offset, ((size_t)r->nparts + 1) * sizeof *parts);
    else rc = UM_ERR_ALLOC;
  }
  set_perm *sp = calloc((size_t)ns + 1, sizeof *sp);
  char **dbuf = calloc((size_t)ctx->ndats + 1, sizeof *dbuf);
  int **mbuf = calloc((size_t)ctx->nmaps + 1, sizeof *mbuf);
  int **cum = calloc((size_t)ns + 1, sizeof *cum);
  if (!sp || !dbuf || !mbuf || !cum) rc = UM_ERR_ALLOC;
  for (int i = 0; i < r->nsets && rc == UM_SUCCESS; i++) {
    if (!r->perm[i]) continue;
    um_set *s = um_find_set(ctx, r->names[i]);
    sp[s->index].n2o = r->perm[i];
    sp[s->index].o2n = inverse_perm(r->perm[i], s->size);
    cum[s->index] = malloc((size_t)s->size * sizeof(int) + 1);
    if (!sp[s->index].o2n || !cum[s->index]) rc = UM_ERR_ALLOC;
  }
  /* build every new array first, so that running out of memory leaves ctx unchanged */
  for (int i = 0; i < ctx->ndats && rc == UM_SUCCESS; i++) {
    um_dat *d = ctx->dats[i];
    const set_perm *p = &sp[d->set->index];
    if (!p->n2o) continue;
    rc = um__dat_to_host(ctx, d);
    if (rc != UM_SUCCESS) break;
    size_t n = (size_t)d->set->size, bytes = (size_t)d->rows * (size_t)d->dim * d->esize;
    dbuf[i] = malloc(bytes ? bytes : 1);
    if (!dbuf[i]) {
      rc = UM_ERR_ALLOC;
      break;
    }
    memcpy(dbuf[i], d->data, bytes); /* rows past the owned ones (padding) stay as they are */
    permute_rows(dbuf[i], d->data, p->n2o, n, (size_t)d->rows, d->dim, d->esize, d->layout == UM_SOA && d->dim > 1);
  }
  for (int i = 0; i < ctx->nmaps && rc == UM_SUCCESS; i++) {
    um_map *m = ctx->maps[i];
    const set_perm *pf = &sp[m->from->index], *pt = &sp[m->to->index];
    if (!pf->n2o && !pt->o2n) continue;
    size_t nf = (size_t)m->from->size, ar = (size_t)m->arity;
    mbuf[i] = malloc(nf * ar * sizeof(int) + 1);
    if (!mbuf[i]) {
      rc = UM_ERR_ALLOC;
      break;
    }
    for (size_t e = 0; e < nf; e++) {
      size_t old = pf->n2o ? (size_t)pf->n2o[e] : e;
      for (size_t k = 0; k < ar; k++) {
        int t = m->data[old * ar + k];
        mbuf[i][e * ar + k] = pt->o2n ? pt->o2n[t] : t;
      }
    }
  }
  if (rc == UM_SUCCESS) commit(ctx, r, sp, dbuf, mbuf, cum, part_set, &parts);
  if (dbuf)
    for (int i = 0; i < ctx->ndats; i++) free(dbuf[i]);
  if (mbuf)
    for (int i = 0; i < ctx->nmaps; i++) free(mbuf[i]);
  if (sp && cum)
    for (int s = 0; s < ns; s++) {
      free(sp[s].o2n);
      free(cum[s]);
    }
  free(sp);
  free(dbuf);
  free(mbuf);
  free(cum);
  free(parts);
  if (rc == UM_ERR_ALLOC)
    return UM_ERROR(ctx, rc, "out of memory applying a reordering (it needs a second copy of every dat and map)");
  if (rc != UM_SUCCESS) return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  if (stats) stats->apply_seconds = um_wtime() - t0;
  return UM_SUCCESS;
}

int um_reorder(um_context *ctx, um_reorder_method method, const um_map *map, const um_reorder_options *opts,
               um_reorder_stats *stats) {
  UM_CTX_OK(ctx);
  UM_CHECK(ctx, check_loops_not_run(ctx, "um_reorder"));
  um_reordering *r = NULL;
  UM_CHECK(ctx, um_reorder_compute(ctx, method, map, opts, &r, stats));
  int rc = um_reorder_apply(ctx, r, stats);
  um_reordering_free(&r);
  if (rc != UM_SUCCESS) return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  return UM_SUCCESS;
}

int um_dat_fetch_original_order(um_context *ctx, const um_dat *d, void *out, size_t bytes) {
  UM_CTX_OK(ctx);
  if (!d)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!d)", __func__);
  const int *perm = d->set->perm;
  if (!perm) {
    UM_CHECK(ctx, um_dat_fetch(ctx, d, out, bytes));
    return UM_SUCCESS;
  }
  size_t n = (size_t)d->set->gsize, row = (size_t)d->dim * d->esize;
  char *tmp = malloc(bytes ? bytes : 1);
  if (!tmp) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching dat '%s'", d->name);
  int rc = um_dat_fetch(ctx, d, tmp, bytes);
  if (rc == UM_SUCCESS)
    for (size_t i = 0; i < n; i++) memcpy((char *)out + i * row, tmp + (size_t)perm[i] * row, row);
  free(tmp);
  if (rc != UM_SUCCESS) return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  return UM_SUCCESS;
}
