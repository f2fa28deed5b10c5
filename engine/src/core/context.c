/* The context and the objects declared on it: sets, maps, dats, constants. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

void um_options_default(um_options *o) {
  memset(o, 0, sizeof *o);
  o->backend = UM_BACKEND_AUTO;
  o->strategy = UM_STRATEGY_AUTO;
  o->layout = UM_AOS;
  o->block_size = 256;
  o->nthreads = 0;
  o->parallel_threshold = 4096;
  o->check_plans = 0;
  o->verbose = 0;
}

int um_backend_available(um_backend b) {
  switch (b) {
  case UM_BACKEND_SEQ: return 1;
  case UM_BACKEND_OPENMP:
#ifdef UM_HAVE_OPENMP
    return 1;
#else
    return 0;
#endif
  case UM_BACKEND_CUDA:
#ifdef UM_HAVE_CUDA
    return um__cuda_available(NULL, 0);
#else
    return 0;
#endif
  case UM_BACKEND_AUTO: return 1;
  }
  return 0;
}

int um_backend_status(um_backend b, char *why, size_t n) {
  if (why && n) why[0] = '\0';
  if (b == UM_BACKEND_CUDA) {
#ifdef UM_HAVE_CUDA
    char reason[256] = "";
    if (um__cuda_available(reason, sizeof reason)) return 1;
    if (why && n) snprintf(why, n, "this machine has no usable GPU (CUDA runtime: %s)", reason);
#else
    if (why && n)
      snprintf(why, n, "this build of um has no CUDA backend (configure with -DUM_ENABLE_CUDA=ON and the CUDA toolkit)");
#endif
    return 0;
  }
  if (um_backend_available(b)) return 1;
  if (why && n) snprintf(why, n, "this build of um has no %s backend", um_backend_name(b));
  return 0;
}

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static int check_name(um_context *ctx, const char *what, const char *name) {
  if (!name || !*name) return UM_ERROR(ctx, UM_ERR_ARG, "%s declared without a name: give every %s a name", what, what);
  return UM_SUCCESS;
}

/* Grow a pointer array by doubling. */
static int grow(void **arr, int *cap, int n, size_t elem) {
  if (n < *cap) return UM_SUCCESS;
  int nc = *cap ? 2 * *cap : 16;
  void *p = realloc(*arr, (size_t)nc * elem);
  if (!p) return UM_ERR_ALLOC;
  *arr = p;
  *cap = nc;
  return UM_SUCCESS;
}

int um_init(um_context **out, const um_options *opts) {
  if (!out) return UM_ERR_ARG;
  *out = NULL;
  um_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return UM_ERR_ALLOC;
  if (opts) ctx->opts = *opts;
  else um_options_default(&ctx->opts);
  ctx->plans = um_plan_cache_create();
  if (!ctx->plans) {
    free(ctx);
    return UM_ERR_ALLOC;
  }
  int rc = UM_SUCCESS;
  if (ctx->opts.block_size <= 0)
    rc = UM_ERROR(ctx, UM_ERR_ARG, "block size %d is not positive: use e.g. 256", ctx->opts.block_size);
  um_backend b = ctx->opts.backend;
  if (rc == UM_SUCCESS && b == UM_BACKEND_AUTO) {
    b = um_backend_available(UM_BACKEND_CUDA) ? UM_BACKEND_CUDA
        : um_backend_available(UM_BACKEND_OPENMP) ? UM_BACKEND_OPENMP
                                                  : UM_BACKEND_SEQ;
  }
#ifdef UM_HAVE_CUDA
  char why[512];
  if (rc == UM_SUCCESS && b == UM_BACKEND_CUDA && !um__cuda_available(why, sizeof why))
    rc = UM_ERROR(ctx, UM_ERR_UNSUPPORTED, "backend 'cuda': no usable GPU: %s; run on the CPU with backend openmp",
                  why);
#endif
  if (rc == UM_SUCCESS && !um_backend_available(b))
    rc = UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                  "backend '%s' is not available in this build: %s", um_backend_name(b),
                  b == UM_BACKEND_OPENMP ? "rebuild with -DUM_ENABLE_OPENMP=ON, or use backend seq"
                                         : "the CUDA backend is not built yet; use backend openmp or seq");
  if (rc == UM_SUCCESS) {
    ctx->backend = b;
    ctx->ops = &um_backend_seq_ops;
#ifdef UM_HAVE_OPENMP
    if (b == UM_BACKEND_OPENMP) ctx->ops = &um_backend_openmp_ops;
#endif
#ifdef UM_HAVE_CUDA
    if (b == UM_BACKEND_CUDA) ctx->ops = &um_backend_cuda_ops;
#endif
    um_strategy s = ctx->opts.strategy;
    if (b == UM_BACKEND_CUDA) s = UM_STRATEGY_COLOURED; /* its init resolves ctx->strategy */
    if (s == UM_STRATEGY_AUTO || s == UM_STRATEGY_HIERARCHICAL) s = UM_STRATEGY_COLOURED;
    if (s != UM_STRATEGY_COLOURED)
      rc = UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "strategy '%s' needs the cuda backend; the %s backend runs blocks by block colour "
                    "(strategy auto, coloured or hierarchical)",
                    um_strategy_name(s), um_backend_name(b));
    ctx->strategy = b == UM_BACKEND_CUDA ? ctx->opts.strategy : s;
  }
  if (rc == UM_SUCCESS && ctx->ops->init) rc = ctx->ops->init(ctx);
  if (rc != UM_SUCCESS) {
    /* keep the context so the caller can read the message */
    *out = ctx;
    return rc;
  }
  *out = ctx;
  return UM_SUCCESS;
}

int um_finalize(um_context **pctx) {
  if (!pctx || !*pctx) return UM_SUCCESS;
  um_context *ctx = *pctx;
  if (ctx->ops && ctx->ops->finalize) ctx->ops->finalize(ctx);
  for (int i = 0; i < ctx->nsets; i++) {
    free(ctx->sets[i]->name);
    free(ctx->sets[i]->perm);
    free(ctx->sets[i]->part_offset);
    free(ctx->sets[i]);
  }
  for (int i = 0; i < ctx->nmaps; i++) {
    free(ctx->maps[i]->name);
    free(ctx->maps[i]->data);
    free(ctx->maps[i]);
  }
  for (int i = 0; i < ctx->ndats; i++) {
    free(ctx->dats[i]->name);
    free(ctx->dats[i]->data);
    free(ctx->dats[i]);
  }
  for (int i = 0; i < ctx->nconsts; i++) {
    free(ctx->consts[i].name);
    free(ctx->consts[i].data);
  }
  for (int i = 0; i < ctx->nloops; i++) free(ctx->loops[i].name);
  free(ctx->sets);
  free(ctx->maps);
  free(ctx->dats);
  free(ctx->consts);
  free(ctx->loops);
  um_plan_cache_destroy(ctx->plans);
  free(ctx);
  *pctx = NULL;
  return UM_SUCCESS;
}

um_backend um_context_backend(const um_context *ctx) { return ctx->backend; }
um_strategy um_context_strategy(const um_context *ctx) { return ctx->strategy; }
const um_options *um_context_options(const um_context *ctx) { return &ctx->opts; }

int um_decl_set(um_context *ctx, int size, const char *name, um_set **out) {
  if (!ctx || !out) return UM_ERR_ARG;
  *out = NULL;
  UM_CHECK(ctx, check_name(ctx, "set", name));
  if (size < 0) return UM_ERROR(ctx, UM_ERR_ARG, "set '%s' declared with negative size %d", name, size);
  if (um_find_set(ctx, name)) return UM_ERROR(ctx, UM_ERR_ARG, "a set named '%s' is already declared", name);
  if (grow((void **)&ctx->sets, &ctx->capsets, ctx->nsets, sizeof(um_set *)))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring set '%s'", name);
  um_set *s = calloc(1, sizeof *s);
  if (!s || !(s->name = dupstr(name))) {
    free(s);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring set '%s'", name);
  }
  s->ctx = ctx;
  s->size = size;
  s->index = ctx->nsets;
  ctx->sets[ctx->nsets++] = s;
  *out = s;
  return UM_SUCCESS;
}

static int owned(um_context *ctx, const void *obj, const char *what, const char *decl) {
  if (!obj) return UM_ERROR(ctx, UM_ERR_ARG, "%s: the %s is NULL", decl, what);
  return UM_SUCCESS;
}

int um_decl_map(um_context *ctx, um_set *from, um_set *to, int arity, const int *data, const char *name,
                um_map **out) {
  if (!ctx || !out) return UM_ERR_ARG;
  *out = NULL;
  UM_CHECK(ctx, check_name(ctx, "map", name));
  UM_CHECK(ctx, owned(ctx, from, "from-set", name));
  UM_CHECK(ctx, owned(ctx, to, "to-set", name));
  if (from->ctx != ctx || to->ctx != ctx)
    return UM_ERROR(ctx, UM_ERR_ARG, "map '%s': its sets belong to another context", name);
  if (arity <= 0) return UM_ERROR(ctx, UM_ERR_ARG, "map '%s' declared with arity %d; arity must be >= 1", name, arity);
  if (um_find_map(ctx, name)) return UM_ERROR(ctx, UM_ERR_ARG, "a map named '%s' is already declared", name);
  size_t n = (size_t)from->size * (size_t)arity;
  if (n && !data) return UM_ERROR(ctx, UM_ERR_ARG, "map '%s' declared without data", name);
  for (size_t i = 0; i < n; i++)
    if (data[i] < 0 || data[i] >= to->size)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "map '%s' (%s -> %s, arity %d): entry %zu (element %zu, index %zu) is %d, outside the "
                      "to-set '%s' of size %d; map indices are 0-based",
                      name, from->name, to->name, arity, i, i / (size_t)arity, i % (size_t)arity, data[i], to->name,
                      to->size);
  if (grow((void **)&ctx->maps, &ctx->capmaps, ctx->nmaps, sizeof(um_map *)))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring map '%s'", name);
  um_map *m = calloc(1, sizeof *m);
  if (m) {
    m->name = dupstr(name);
    m->data = malloc(n ? n * sizeof(int) : 1);
  }
  if (!m || !m->name || !m->data) {
    if (m) { free(m->name); free(m->data); }
    free(m);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring map '%s' (%zu entries)", name, n);
  }
  if (n) memcpy(m->data, data, n * sizeof(int));
  m->ctx = ctx;
  m->from = from;
  m->to = to;
  m->arity = arity;
  m->index = ctx->nmaps;
  ctx->maps[ctx->nmaps++] = m;
  *out = m;
  return UM_SUCCESS;
}

int um_decl_dat(um_context *ctx, um_set *set, int dim, um_type type, const void *data, const char *name,
                um_dat **out) {
  if (!ctx || !out) return UM_ERR_ARG;
  *out = NULL;
  UM_CHECK(ctx, check_name(ctx, "dat", name));
  UM_CHECK(ctx, owned(ctx, set, "set", name));
  if (set->ctx != ctx) return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s': its set belongs to another context", name);
  if (dim <= 0) return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s' declared with dim %d; dim must be >= 1", name, dim);
  if (type != UM_DOUBLE && type != UM_FLOAT && type != UM_INT)
    return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s' declared with unknown type %d", name, (int)type);
  if (um_find_dat(ctx, name)) return UM_ERROR(ctx, UM_ERR_ARG, "a dat named '%s' is already declared", name);
  if (grow((void **)&ctx->dats, &ctx->capdats, ctx->ndats, sizeof(um_dat *)))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring dat '%s'", name);
  size_t esize = um_type_size(type);
  size_t bytes = (size_t)set->size * (size_t)dim * esize;
  um_dat *d = calloc(1, sizeof *d);
  if (d) {
    d->name = dupstr(name);
    d->data = bytes ? malloc(bytes) : malloc(1);
  }
  if (!d || !d->name || !d->data) {
    if (d) { free(d->name); free(d->data); }
    free(d);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring dat '%s' (%zu bytes)", name, bytes);
  }
  if (bytes) {
    if (data) memcpy(d->data, data, bytes);
    else memset(d->data, 0, bytes);
  }
  d->ctx = ctx;
  d->set = set;
  d->dim = dim;
  d->type = type;
  d->esize = esize;
  d->layout = UM_AOS;
  d->index = ctx->ndats;
  ctx->dats[ctx->ndats++] = d;
  *out = d;
  /* the context's default layout applies to dats declared from now on */
  if (ctx->opts.layout != UM_AOS) UM_CHECK(ctx, um_dat_set_layout(ctx, d, ctx->opts.layout));
  return UM_SUCCESS;
}

int um_decl_const(um_context *ctx, const char *name, int dim, um_type type, const void *data) {
  if (!ctx) return UM_ERR_ARG;
  UM_CHECK(ctx, check_name(ctx, "constant", name));
  if (dim <= 0 || !data) return UM_ERROR(ctx, UM_ERR_ARG, "constant '%s': dim must be >= 1 and data non-NULL", name);
  size_t esize = um_type_size(type);
  if (!esize) return UM_ERROR(ctx, UM_ERR_ARG, "constant '%s' declared with unknown type %d", name, (int)type);
  um_const *c = NULL;
  for (int i = 0; i < ctx->nconsts; i++)
    if (strcmp(ctx->consts[i].name, name) == 0) c = &ctx->consts[i];
  if (c && (c->dim != dim || c->type != type))
    return UM_ERROR(ctx, UM_ERR_ARG, "constant '%s' was declared as %d x %s, now as %d x %s", name, c->dim,
                    um_type_name(c->type), dim, um_type_name(type));
  if (!c) {
    if (grow((void **)&ctx->consts, &ctx->capconsts, ctx->nconsts, sizeof(um_const)))
      return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring constant '%s'", name);
    c = &ctx->consts[ctx->nconsts];
    memset(c, 0, sizeof *c);
    c->name = dupstr(name);
    c->data = malloc((size_t)dim * esize);
    if (!c->name || !c->data) {
      free(c->name);
      free(c->data);
      return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring constant '%s'", name);
    }
    c->dim = dim;
    c->type = type;
    c->esize = esize;
    ctx->nconsts++;
  }
  memcpy(c->data, data, (size_t)dim * esize);
  if (ctx->hooks && ctx->hooks->const_changed) UM_CHECK(ctx, ctx->hooks->const_changed(ctx, (int)(c - ctx->consts)));
  return UM_SUCCESS;
}

#define FIND(fn, T, arr, n)                                            \
  T *fn(const um_context *ctx, const char *name) {                     \
    if (!ctx || !name) return NULL;                                    \
    for (int i = 0; i < ctx->n; i++)                                   \
      if (strcmp(ctx->arr[i]->name, name) == 0) return ctx->arr[i];    \
    return NULL;                                                       \
  }
FIND(um_find_set, um_set, sets, nsets)
FIND(um_find_map, um_map, maps, nmaps)
FIND(um_find_dat, um_dat, dats, ndats)

const char *um_set_name(const um_set *s) { return s->name; }
int um_set_size(const um_set *s) { return s->size; }
const char *um_map_name(const um_map *m) { return m->name; }
int um_map_arity(const um_map *m) { return m->arity; }
um_set *um_map_from(const um_map *m) { return m->from; }
um_set *um_map_to(const um_map *m) { return m->to; }
const int *um_map_data(const um_map *m) { return m->data; }
const char *um_dat_name(const um_dat *d) { return d->name; }
um_set *um_dat_set(const um_dat *d) { return d->set; }
int um_dat_dim(const um_dat *d) { return d->dim; }
um_type um_dat_type(const um_dat *d) { return d->type; }
um_layout um_dat_layout(const um_dat *d) { return d->layout_auto ? UM_LAYOUT_AUTO : d->layout; }
int um_set_count(const um_context *ctx) { return ctx->nsets; }
int um_map_count(const um_context *ctx) { return ctx->nmaps; }
int um_dat_count(const um_context *ctx) { return ctx->ndats; }
um_set *um_set_at(const um_context *ctx, int i) { return (i >= 0 && i < ctx->nsets) ? ctx->sets[i] : NULL; }
um_map *um_map_at(const um_context *ctx, int i) { return (i >= 0 && i < ctx->nmaps) ? ctx->maps[i] : NULL; }
um_dat *um_dat_at(const um_context *ctx, int i) { return (i >= 0 && i < ctx->ndats) ? ctx->dats[i] : NULL; }
