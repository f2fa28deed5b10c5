/* The context and the objects declared on it: sets, maps, dats, constants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <limits.h>
#include <strings.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "internal.h"
#include "um/distributed.h"
#include "pass.h"
#include "maputil.h"
#include "option_tables.h"
#include "../util/array.h"
#include "../util/checked.h"

void um_options_default(um_options *o) {
  memset(o, 0, sizeof *o); /* verbose 0, no log, no settings (hostc.compile off) */
  um__options_defaults(o); /* the rest from the declarations (run.block_size 256, ...: core/context.c and the others) */
}

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* A map object and what it holds (its name and entries); NULL: nothing. */
static void map_free(um_map *m) {
  if (!m) return;
  free(m->name);
  free(m->data);
  free(m->gtargets);
  free(m->gtargets32);
  free(m->halo_rows);
  free(m);
}

/* A new map object named `name` from `from` to `to` of `arity`, with room for `bytes` of entries (uninitialised);
 * NULL when out of memory. */
static um_map *map_new(um_context *ctx, const char *name, um_set *from, um_set *to, int arity, size_t bytes) {
  um_map *m = calloc(1, sizeof *m);
  if (m) {
    m->name = dupstr(name);
    m->data = malloc(bytes ? bytes : 1);
  }
  if (!m || !m->name || !m->data) {
    map_free(m);
    return NULL;
  }
  m->ctx = ctx;
  m->from = from;
  m->to = to;
  m->arity = arity;
  return m;
}

int um__check_name(um_context *ctx, const char *what, const char *name) {
  if (!name || !*name) return UM_ERROR(ctx, UM_ERR_ARG, "%s declared without a name: give every %s a name", what, what);
  const size_t n = strnlen(name, UM_MAX_NAME + 1);
  if (n > UM_MAX_NAME)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s '%.40s...': a name of %zu bytes; names are at most %d (UM_MAX_NAME)", what,
                    name, strlen(name), UM_MAX_NAME);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
      return UM_ERROR(ctx, UM_ERR_ARG, "%s '%.*s...': its name has a control character (byte %zu, code %d); names are "
                      "printable text", what, (int)i, name, i, (unsigned char)name[i]);
  return UM_SUCCESS;
}

int um__check_kernel_name(um_context *ctx, const um_kernel *k) {
  UM_CHECK(ctx, um__check_name(ctx, "kernel", k->name));
  if (!k->source) return UM_SUCCESS;
  for (const char *c = k->name; *c; c++) /* compiled code calls it by its name */
    if (!(isalpha((unsigned char)*c) || *c == '_' || (c > k->name && isdigit((unsigned char)*c))))
      return UM_ERROR(ctx, UM_ERR_ARG, "kernel '%s': a kernel with source is called by its name, which must be a C "
                      "identifier (letters, digits and '_', not starting with a digit): name it as its function", k->name);
  return UM_SUCCESS;
}

/* Pick the backend the options ask for (or the best available one) and let it
 * resolve the context's strategy. */
static int choose_backend(um_context *ctx) {
  const um_options *o = &ctx->opts;
  const char *want = o->backend && *o->backend ? o->backend : "auto";
  const um_backend_def *b = NULL;
  if (strcasecmp(want, "auto") == 0) {
    b = um__backend_best(o);
    if (!b) return UM_ERROR(ctx, UM_ERR_UNSUPPORTED, "backend auto: no backend is available");
  } else {
    char why[512];
    if (!um__backend_status(want, o, why, sizeof why)) {
      const um_backend_def *alt = um__backend_best(o);
      return UM_ERROR(ctx, UM_ERR_UNSUPPORTED, "backend '%s' cannot run here: %s; the %s backend can (backend auto)",
                      want, why, alt ? alt->name : "(none)");
    }
    b = um__backend_find(want, o);
  }
  if (!b->exec.run || !b->exec.strategy)
    return UM_ERROR(ctx, UM_ERR_ARG, "backend '%s' is incomplete: it needs a run and a strategy function", b->name);
  ctx->backend = b;
  ctx->opts.backend = b->name;
  return UM_SUCCESS;
}

/* Every setting must be a declared option's (checked against its declaration) or name a key its
 * backend declares, with one of the allowed values. */
static int check_backend_options(um_context *ctx) {
  const um_options *o = &ctx->opts;
  for (int i = 0; i < o->nsettings; i++) {
    const char *key = o->settings[i].key, *value = o->settings[i].value;
    const um_option *decl = um_option_find(key);
    if (decl && decl->renamed_to) decl = um_option_find(decl->renamed_to);
    if (decl) {
      um_option_value v;
      char err[700];
      if (!decl->to_options || um_option_parse(decl, value, &v, err, sizeof err))
        return UM_ERROR(ctx, UM_ERR_ARG, "option '%s': %s", key,
                        decl->to_options ? err : "not a setting of um_options (um_option_apply)");
      continue;
    }
    const char *dot = strchr(key, '.');
    char bname[64];
    snprintf(bname, sizeof bname, "%.*s", dot ? (int)(dot - key) : 0, key);
    const um_backend_def *b = um__backend_find(bname, o);
    if (!b) {
      /* settings of a backend not built here are harmless when another one runs */
      if (um__backend_missing(bname)) continue;
      char why[512];
      um__backend_status(bname, o, why, sizeof why);
      return UM_ERROR(ctx, UM_ERR_ARG, "option '%s': %s", key, why);
    }
    const um_option *opt = NULL;
    for (int k = 0; b->options && b->options[k].key; k++)
      if (strcmp(b->options[k].key, key) == 0) opt = &b->options[k];
    if (!opt) {
      char list[512] = "";
      for (int k = 0; b->options && b->options[k].key; k++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", b->options[k].key);
      }
      return UM_ERROR(ctx, UM_ERR_ARG, "option '%s': the %s backend has no such setting; it has: %s", key, b->name,
                      list[0] ? list : "none");
    }
    um_option_value v;
    char err[700];
    if (um_option_parse(opt, value, &v, err, sizeof err)) return UM_ERROR(ctx, UM_ERR_ARG, "option '%s': %s", key, err);
  }
  char err[1100];
  if (um__backend_env_check(ctx->backend, o, err, sizeof err)) return UM_ERROR(ctx, UM_ERR_ARG, "%s", err);
  return UM_SUCCESS;
}

int um_threads_max(void) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1) cores = 1;
  if (cores > 1 << 16) cores = 1 << 16;
  return (int)cores * UM_THREADS_PER_CORE;
}

int um_init(um_context **out, const um_options *opts) {
  if (!out) return UM_ERR_ARG;
  *out = NULL;
  um_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return UM_ERR_ALLOC;
  if (opts) ctx->opts = *opts;
  else um_options_default(&ctx->opts);
  um__passes_install(ctx); /* its transform pass and tuner (engine/src/passes.c) */
  ctx->plans = um_plan_cache_create();
  if (!ctx->plans) {
    free(ctx);
    return UM_ERR_ALLOC;
  }
  int rc = um__context_defaults(ctx); /* run.split, run.tune, mpi.*: their declared defaults */
  if (rc == UM_SUCCESS && (ctx->opts.block_size <= 0 || ctx->opts.block_size > UM_MAX_BLOCK_SIZE))
    rc = UM_ERROR(ctx, UM_ERR_ARG, "block size %d: use 1 .. %d, e.g. 256", ctx->opts.block_size, UM_MAX_BLOCK_SIZE);
  if (rc == UM_SUCCESS && (ctx->opts.row_align < 1 || ctx->opts.row_align > 4096))
    rc = UM_ERROR(ctx, UM_ERR_ARG, "row_align %d: use 1 .. 4096 (1: rows as the set's size)", ctx->opts.row_align);
  if (rc == UM_SUCCESS && ctx->opts.nthreads < 0)
    rc = UM_ERROR(ctx, UM_ERR_ARG, "nthreads %d is negative; use 0 for the OpenMP default", ctx->opts.nthreads);
  if (rc == UM_SUCCESS && ctx->opts.nthreads > um_threads_max())
    rc = UM_ERROR(ctx, UM_ERR_ARG, "nthreads %d: at most %d here (%d per core, %d cores); use 0 for the OpenMP default",
                  ctx->opts.nthreads, um_threads_max(), UM_THREADS_PER_CORE, um_threads_max() / UM_THREADS_PER_CORE);
  if (rc == UM_SUCCESS) rc = choose_backend(ctx);
  if (rc == UM_SUCCESS) rc = check_backend_options(ctx);
  if (rc == UM_SUCCESS && ctx->backend->exec.init) rc = ctx->backend->exec.init(ctx, &ctx->bstate);
  if (rc == UM_SUCCESS) rc = ctx->backend->exec.strategy(ctx, ctx->bstate, ctx->opts.strategy, &ctx->strategy);
  /* the caller's extra backend list need not outlive um_init */
  ctx->opts.extra_backends = NULL;
  ctx->opts.nextra_backends = 0;
  /* on failure keep the context so the caller can read the message */
  ctx->init_failed = rc != UM_SUCCESS;
  *out = ctx;
  return rc;
}

int um__ctx_init_failed(const um_context *ctx) { return ctx->init_failed; }

int um__ctx_failed(um_context *ctx) {
  static const char head[] = "this context's um_init failed";
  if (strncmp(ctx->errmsg, head, sizeof head - 1) != 0) {
    char why[UM_ERRMSG_LEN];
    snprintf(why, sizeof why, "%s", ctx->errmsg);
    why[strcspn(why, "\n")] = '\0'; /* its message, not its trail */
    UM_ERROR(ctx, UM_ERR_ARG, "%s (%s): nothing can be declared or run in it; um_finalize it and call um_init again",
             head, why);
  }
  return UM_ERR_ARG;
}

int um_options_set_backend(um_options *o, const char *key, const char *value) {
  if (!o || !key || !value) return UM_ERR_ARG;
  const char *dot = strchr(key, '.');
  if (!dot || dot == key || !dot[1] || strlen(key) >= sizeof o->settings[0].key ||
      strlen(value) >= sizeof o->settings[0].value)
    return UM_ERR_ARG;
  int i = 0;
  while (i < o->nsettings && strcmp(o->settings[i].key, key) != 0) i++;
  if (i == o->nsettings) {
    if (i == UM_MAX_SETTINGS) return UM_ERR_ARG;
    o->nsettings++;
  }
  snprintf(o->settings[i].key, sizeof o->settings[i].key, "%s", key);
  snprintf(o->settings[i].value, sizeof o->settings[i].value, "%s", value);
  return UM_SUCCESS;
}

const char *um_backend_option_value(const um_context *ctx, const char *key) {
  if (!ctx || !ctx->backend || !key) return NULL;
  char full[128];
  snprintf(full, sizeof full, "%s.%s", ctx->backend->name, key);
  for (int i = 0; i < ctx->opts.nsettings; i++)
    if (strcasecmp(ctx->opts.settings[i].key, full) == 0) return ctx->opts.settings[i].value;
  char env[128];
  um__backend_env_name(full, env, sizeof env); /* checked at um_init (um__backend_env_check) */
  const char *e = getenv(env);
  if (e) return e;
  for (int k = 0; ctx->backend->options && ctx->backend->options[k].key; k++)
    if (strcmp(ctx->backend->options[k].key, full) == 0)
      return ctx->backend->options[k].def ? ctx->backend->options[k].def : "";
  return NULL;
}

int um_finalize(um_context **pctx) {
  if (!pctx || !*pctx) return UM_SUCCESS;
  um_context *ctx = *pctx;
  um__reductions_free(ctx); /* (their buffers are the backend's host memory: freed while it runs) */
  if (ctx->backend && ctx->backend->exec.finalize) ctx->backend->exec.finalize(ctx, ctx->bstate); /* (host: compiled loops) */
  if (ctx->transform) ctx->transform->free(ctx); /* its temporaries and generated loops */
  if (ctx->dist_ops) ctx->dist_ops->free(ctx);
  for (int i = 0; i < ctx->nsets; i++) {
    free(ctx->sets[i]->name);
    free(ctx->sets[i]->perm);
    free(ctx->sets[i]->part_offset);
    free(ctx->sets[i]->halo_exec), free(ctx->sets[i]->halo_nonexec);
    free(ctx->sets[i]);
  }
  for (int i = 0; i < ctx->nmaps; i++) map_free(ctx->maps[i]);
  for (int i = 0; i < ctx->nwholes; i++) map_free(ctx->wholes[i]);
  free(ctx->wholes);
  for (int i = 0; i < ctx->ndats; i++) {
    free(ctx->dats[i]->name);
    free(ctx->dats[i]->data);
    free(ctx->dats[i]);
  }
  for (int i = 0; i < ctx->nconsts; i++) {
    free(ctx->consts[i].name);
    free(ctx->consts[i].data);
  }
  for (int i = 0; i < ctx->nloops; i++) {
    free(ctx->loops[i].name);
    free(ctx->loops[i].tune);
  }
  for (int i = 0; i < ctx->nkernels; i++) free(ctx->kernels[i]); /* descriptor and its strings: one block */
  free(ctx->kernels);
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

void *um_context_backend_state(const um_context *ctx) { return ctx ? ctx->bstate : NULL; }
const char *um_context_backend(const um_context *ctx) { return ctx && ctx->backend ? ctx->backend->name : ""; }
int um_context_on_host(const um_context *ctx) { return ctx && ctx->backend && ctx->backend->caps.host_code; }
int um_context_device_info(um_context *ctx, um_device_info *out) {
  UM_CTX_OK(ctx);
  if (!out)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!out)", __func__);
  memset(out, 0, sizeof *out);
  if (!ctx->backend || !ctx->backend->extras.device_info) return UM_ERR_UNSUPPORTED;
  return ctx->backend->extras.device_info(ctx, ctx->bstate, out);
}

const char *um_context_device(const um_context *ctx) {
  if (!ctx || !ctx->backend || !ctx->backend->extras.device) return "";
  const char *d = ctx->backend->extras.device(ctx, ctx->bstate);
  return d ? d : "";
}
um_strategy um_context_strategy(const um_context *ctx) { return ctx->strategy; }
const um_options *um_context_options(const um_context *ctx) { return &ctx->opts; }

int um_context_host_threads(const um_context *ctx) {
  if (ctx && ctx->opts.nthreads > 0) return ctx->opts.nthreads;
#ifdef _OPENMP
  const int n = omp_get_max_threads() / um_mpi_size();
  return n > 1 ? n : 1;
#else
  return 1;
#endif
}

int um_decl_set(um_context *ctx, int size, const char *name, um_set **out) {
  UM_CTX_OK(ctx);
  if (!out)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!out)", __func__);
  *out = NULL;
  UM_CHECK(ctx, um__check_name(ctx, "set", name));
  if (size < 0) return UM_ERROR(ctx, UM_ERR_ARG, "set '%s' declared with negative size %d", name, size);
  if (um_find_set(ctx, name)) return UM_ERROR(ctx, UM_ERR_ARG, "a set named '%s' is already declared", name);
  if (ctx->dist)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "set '%s' declared after the mesh was distributed: declare every set and map before um_distribute",
                    name);
  if (UM_GROW(ctx->sets, ctx->capsets, ctx->nsets))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring set '%s'", name);
  um_set *s = calloc(1, sizeof *s);
  if (!s || !(s->name = dupstr(name))) {
    free(s);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring set '%s'", name);
  }
  s->ctx = ctx;
  s->size = size;
  s->gsize = size;
  s->core_size = size;
  s->index = ctx->nsets;
  ctx->sets[ctx->nsets++] = s;
  *out = s;
  return UM_SUCCESS;
}

static int owned(um_context *ctx, const void *obj, const char *what, const char *decl) {
  if (!obj) return UM_ERROR(ctx, UM_ERR_ARG, "%s: the %s is NULL", decl, what);
  return UM_SUCCESS;
}

/* um_decl_map, and um_decl_map_block's rows over several ranks (keep: the global targets, taken over; data
 * then holds placeholder zeros, not checked against this rank's block of the to-set). */
int um__decl_map(um_context *ctx, um_set *from, um_set *to, int arity, const int *data, const char *name,
                 um_map **out, long long *keep, int *keep32, int *take) {
  const int blocks = keep || keep32;
  UM_CTX_OK(ctx);
  if (!out)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!out)", __func__);
  *out = NULL;
  UM_CHECK(ctx, um__check_name(ctx, "map", name));
  UM_CHECK(ctx, owned(ctx, from, "from-set", name));
  UM_CHECK(ctx, owned(ctx, to, "to-set", name));
  if (from->ctx != ctx || to->ctx != ctx)
    return UM_ERROR(ctx, UM_ERR_ARG, "map '%s': its sets belong to another context", name);
  if (arity <= 0) return UM_ERROR(ctx, UM_ERR_ARG, "map '%s' declared with arity %d; arity must be >= 1", name, arity);
  if (um_find_map(ctx, name)) return UM_ERROR(ctx, UM_ERR_ARG, "a map named '%s' is already declared", name);
  if (ctx->dist)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "map '%s' declared after the mesh was distributed: declare every set and map before um_distribute",
                    name);
  if (!blocks && (from->block || to->block))
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "map '%s': set '%s' is declared by blocks (um_decl_set_block): declare its maps with "
                    "um_decl_map_block, in global numbers",
                    name, from->block ? from->name : to->name);
  size_t n, nbytes;
  if (um_size_mul((size_t)from->size, (size_t)arity, &n) || um_size_mul(n, sizeof(int), &nbytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "map '%s': %d elements x arity %d entries do not fit in memory (size overflow)", name,
                    from->size, arity);
  if (n && !data && !blocks) return UM_ERROR(ctx, UM_ERR_ARG, "map '%s' declared without data", name);
  const size_t i = blocks ? n : um__map_first_outside(data, n, um__set_total(to), um_context_host_threads(ctx));
  if (i < n)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "map '%s' (%s -> %s, arity %d): entry %zu (element %zu, index %zu) is %d, outside the "
                    "to-set '%s' of size %d; map indices are 0-based",
                    name, from->name, to->name, arity, i, i / (size_t)arity, i % (size_t)arity, data[i], to->name,
                    to->size);
  if (UM_GROW(ctx->maps, ctx->capmaps, ctx->nmaps))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring map '%s'", name);
  /* by blocks: rows come at um_distribute; taken: the caller's buffer */
  um_map *m = map_new(ctx, name, from, to, arity, n && !blocks && !take ? nbytes : 0);
  if (!m) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring map '%s' (%zu entries)", name, n);
  if (take) free(m->data), m->data = take;
  else if (n && !blocks) um__copy(m->data, data, n * sizeof(int), um_context_host_threads(ctx));
  m->gtargets = keep;
  m->gtargets32 = keep32;
  m->index = ctx->nmaps;
  ctx->maps[ctx->nmaps++] = m;
  *out = m;
  return UM_SUCCESS;
}

int um_decl_map(um_context *ctx, um_set *from, um_set *to, int arity, const int *data, const char *name,
                um_map **out) {
  return um__decl_map(ctx, from, to, arity, data, name, out, NULL, NULL, NULL);
}

int um_decl_map_take(um_context *ctx, um_set *from, um_set *to, int arity, int *data, const char *name,
                     um_map **out) {
  const int rc = um__decl_map(ctx, from, to, arity, data, name, out, NULL, NULL, data);
  if (rc != UM_SUCCESS) free(data);
  return rc;
}

int um_decl_set_block(um_context *ctx, long long gsize, long long begin, int count, const char *name, um_set **out) {
  UM_CTX_OK(ctx);
  if (!out) return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!out)", __func__);
  *out = NULL;
  UM_CHECK(ctx, um__check_name(ctx, "set", name));
  if (gsize < 0)
    return UM_ERROR(ctx, UM_ERR_ARG, "set '%s' declared by blocks with global size %lld: it must be 0 or more", name,
                    gsize);
  if (count < 0 || begin < 0 || begin + count > gsize)
    return UM_ERROR(ctx, UM_ERR_ARG, "set '%s': the block [%lld, %lld) is not inside [0, %lld)", name, begin,
                    begin + count, gsize);
  const int P = um_mpi_size();
  if (P == 1 && (begin != 0 || count != gsize))
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "set '%s': one rank declares the block [%lld, %lld) of %lld elements; on one rank the block is the "
                    "whole set%s",
                    name, begin, begin + count, gsize,
                    gsize > INT_MAX ? " (a rank's block is at most 2147483647 elements: run on more ranks)" : "");
  UM_CHECK(ctx, um_decl_set(ctx, count, name, out));
  if (P > 1) { /* this rank's block until um_distribute */
    (*out)->gsize = gsize;
    (*out)->block = 1;
    (*out)->block_begin = begin;
  }
  return UM_SUCCESS;
}

int um__whole_map(um_context *ctx, um_set *from, um_set *to, um_map **out) {
  for (int i = 0; i < ctx->nwholes; i++)
    if (ctx->wholes[i]->from == from && ctx->wholes[i]->to == to && ctx->wholes[i]->arity == um__set_total(to)) {
      *out = ctx->wholes[i];
      return UM_SUCCESS;
    }
  const int n = um__set_total(to);
  if (n < 1)
    return UM_ERROR(ctx, UM_ERR_ARG, "a whole-dat argument of set '%s' needs at least one row; the set is empty",
                    to->name);
  if (UM_GROW(ctx->wholes, ctx->capwholes, ctx->nwholes)) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  char name[300];
  snprintf(name, sizeof name, "whole(%s)", to->name);
  um_map *m = map_new(ctx, name, from, to, n, (size_t)n * sizeof(int));
  if (!m) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory for the rows of set '%s' (%d)", to->name, n);
  for (int i = 0; i < n; i++) m->data[i] = i;
  m->index = -1;
  m->whole = 1;
  ctx->wholes[ctx->nwholes++] = m;
  *out = m;
  return UM_SUCCESS;
}

/* A dat's checks and its rows (the set's elements and halos rounded up to run.row_align), for both declarations;
 * *given: the bytes of the caller's rows. */
static int dat_checks(um_context *ctx, um_set *set, int dim, um_type type, const char *name, um_dat **out,
                      long long *rows, size_t *bytes, size_t *given) {
  if (!out) return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!out)", __func__);
  *out = NULL;
  UM_CHECK(ctx, um__check_name(ctx, "dat", name));
  UM_CHECK(ctx, owned(ctx, set, "set", name));
  if (set->ctx != ctx) return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s': its set belongs to another context", name);
  if (dim <= 0) return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s' declared with dim %d; dim must be >= 1", name, dim);
  if (type != UM_DOUBLE && type != UM_FLOAT && type != UM_INT)
    return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s' declared with unknown type %d", name, (int)type);
  if (um_find_dat(ctx, name)) return UM_ERROR(ctx, UM_ERR_ARG, "a dat named '%s' is already declared", name);
  if (UM_GROW(ctx->dats, ctx->capdats, ctx->ndats))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring dat '%s'", name);
  const int align = ctx->opts.row_align > 1 ? ctx->opts.row_align : 1;
  *rows = ((long long)um__set_total(set) + align - 1) / align * align;
  if (*rows > INT_MAX) return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s': %lld rows do not fit an int", name, *rows);
  const size_t esize = um_type_size(type);
  if (um_size_mul3((size_t)*rows, (size_t)dim, esize, bytes) ||
      um_size_mul3((size_t)set->size, (size_t)dim, esize, given))
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "dat '%s': %lld rows x dim %d x %zu bytes do not fit in memory (size overflow); check the dim",
                    name, *rows, dim, esize);
  return UM_SUCCESS;
}

/* A new dat holding `storage` (its rows in `layout`: UM_AOS or UM_SOA), recorded on the context; NULL (and storage
 * left to the caller) when out of memory. */
static um_dat *dat_record(um_context *ctx, um_set *set, int dim, um_type type, const char *name, void *storage,
                          um_layout layout, long long rows) {
  um_dat *d = calloc(1, sizeof *d);
  if (!d || !(d->name = dupstr(name))) {
    free(d);
    return NULL;
  }
  d->data = storage;
  d->ctx = ctx;
  d->set = set;
  d->dim = dim;
  d->type = type;
  d->esize = um_type_size(type);
  d->layout = layout;
  d->rows = (int)rows;
  d->valid = UM_VALID_HOST;
  d->index = ctx->ndats;
  ctx->dats[ctx->ndats++] = d;
  return d;
}

int um_decl_dat(um_context *ctx, um_set *set, int dim, um_type type, const void *data, const char *name,
                um_dat **out) {
  UM_CTX_OK(ctx);
  long long rows = 0;
  size_t bytes = 0, given = 0;
  UM_CHECK(ctx, dat_checks(ctx, set, dim, type, name, out, &rows, &bytes, &given));
  /* the owned rows are the caller's; padding and halo rows start zeroed */
  void *storage = calloc(bytes ? bytes : 1, 1); /* zero pages: the copy below touches each page once */
  /* SoA by default (run.layout soa or auto): transposed straight from the caller's rows, not copied then
   * converted (at scale the second buffer cost as much as the copy: pages touched twice) */
  /* run.layout applies to the dats that can be SoA; a wider row stays AoS (um__dat_soa_fits) */
  const int soa_ok = um__dat_soa_fits(dim, um_type_size(type)),
            soa_now = dim > 1 && !ctx->dist && soa_ok && (ctx->opts.layout == UM_SOA || ctx->opts.layout == UM_LAYOUT_AUTO);
  um_dat *d = storage ? dat_record(ctx, set, dim, type, name, storage, soa_now ? UM_SOA : UM_AOS, rows) : NULL;
  if (!d) {
    free(storage);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring dat '%s' (%zu bytes)", name, bytes);
  }
  if (given && data && !ctx->dist) {
    const int nt = um_context_host_threads(ctx);
    if (soa_now) um__transpose(d->data, data, (size_t)set->size, (size_t)rows, dim, d->esize, 1, nt);
    else um__copy(d->data, data, given, nt);
  }
  d->host_zeros = !data; /* calloc'ed */
  *out = d;
  /* distributed: data holds the whole set (the app's view); this rank keeps its rows */
  if (ctx->dist && data) UM_CHECK(ctx, ctx->dist_ops->fill(ctx, d, data));
  /* the context's default layout applies to dats declared from now on */
  if (ctx->opts.layout != UM_AOS && soa_ok) UM_CHECK(ctx, um_dat_set_layout(ctx, d, ctx->opts.layout));
  return UM_SUCCESS;
}

/* um_decl_dat_take where the buffer cannot be the storage (distributed, padded rows): declared from AoS rows, then
 * given its layout; the buffer freed. */
static int take_by_copy(um_context *ctx, um_set *set, int dim, um_type type, void *data, um_layout layout,
                        const char *name, um_dat **out) {
  const size_t n = (size_t)(ctx->dist ? set->gsize : set->size), es = um_type_size(type);
  void *aos = layout == UM_AOS || dim == 1 ? data : malloc(n * (size_t)dim * es + 1);
  if (!aos) {
    free(data);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring dat '%s'", name);
  }
  if (aos != data) um__transpose(aos, data, n, n, dim, es, 0, um_context_host_threads(ctx));
  int rc = um_decl_dat(ctx, set, dim, type, aos, name, out);
  if (rc == UM_SUCCESS) rc = um_dat_set_layout(ctx, *out, layout);
  if (aos != data) free(aos);
  free(data);
  return rc;
}

int um_decl_dat_take(um_context *ctx, um_set *set, int dim, um_type type, void *data, um_layout layout,
                     const char *name, um_dat **out) {
  if (!ctx) return free(data), UM_ERR_ARG;
  long long rows = 0;
  size_t bytes = 0, given = 0;
  int rc = dat_checks(ctx, set, dim, type, name, out, &rows, &bytes, &given);
  if (rc == UM_SUCCESS && layout != UM_AOS && layout != UM_SOA && layout != UM_LAYOUT_AUTO)
    rc = UM_ERROR(ctx, UM_ERR_ARG, "dat '%s': unknown layout %d", name, (int)layout);
  if (rc == UM_SUCCESS && layout != UM_AOS && !um__dat_soa_fits(dim, um_type_size(type))) {
    if (layout == UM_SOA) rc = um__dat_soa_refused(ctx, name, dim);
    else layout = UM_AOS; /* auto: the engine's choice */
  }
  if (rc == UM_SUCCESS && given && !data)
    rc = UM_ERROR(ctx, UM_ERR_ARG, "dat '%s': um_decl_dat_take without data (um_decl_dat with NULL gives zeros)", name);
  if (rc != UM_SUCCESS) return free(data), rc;
  if (!data && !(data = calloc(1, 1))) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring dat '%s'", name);
  if (ctx->dist || rows != set->size) return take_by_copy(ctx, set, dim, type, data, layout, name, out);
  /* the layout as um_dat_set_layout gives it (auto: SoA until the first loop decides) */
  um_dat *d = dat_record(ctx, set, dim, type, name, data, layout == UM_AOS ? UM_AOS : UM_SOA, rows);
  if (!d) {
    free(data);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring dat '%s'", name);
  }
  d->layout_auto = layout == UM_LAYOUT_AUTO;
  *out = d;
  return UM_SUCCESS;
}

int um_decl_const(um_context *ctx, const char *name, int dim, um_type type, const void *data) {
  UM_CTX_OK(ctx);
  UM_CHECK(ctx, um__check_name(ctx, "constant", name));
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
    if (UM_GROW(ctx->consts, ctx->capconsts, ctx->nconsts))
      return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring constant '%s'", name);
    c = &ctx->consts[ctx->nconsts];
    memset(c, 0, sizeof *c);
    c->name = dupstr(name);
    size_t cbytes;
    c->data = um_size_mul((size_t)dim, esize, &cbytes) ? NULL : malloc(cbytes);
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
  ctx->const_gen++;
  if (ctx->backend && ctx->backend->data.const_changed)
    UM_CHECK(ctx, ctx->backend->data.const_changed(ctx, ctx->bstate, c->name, c->dim, c->type, c->data));
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

const char *um_set_name(const um_set *s) { return s ? s->name : ""; }
int um_set_size(const um_set *s) { return !s ? 0 : s->gsize <= INT_MAX ? (int)s->gsize : -1; }
long long um_set_gsize(const um_set *s) { return s ? s->gsize : 0; }
int um_set_decl_rows(const um_set *s) { return s && s->block ? s->size : um_set_size(s); }
void um_set_ranges(const um_set *s, int *core, int *exec_halo, int *nonexec_halo) {
  if (core) *core = s ? s->core_size : 0;
  if (exec_halo) *exec_halo = s ? s->exec_halo : 0;
  if (nonexec_halo) *nonexec_halo = s ? s->nonexec_halo : 0;
}
int um_set_core_begin(const um_set *s) { return s ? s->core_begin : 0; }
const char *um_map_name(const um_map *m) { return m ? m->name : ""; }
int um_map_arity(const um_map *m) { return m ? m->arity : 0; }
um_set *um_map_from(const um_map *m) { return m ? m->from : NULL; }
um_set *um_map_to(const um_map *m) { return m ? m->to : NULL; }
const int *um_map_data(const um_map *m) { return m ? m->data : NULL; }
int um_map_is_whole(const um_map *m) { return m && m->whole; }
const char *um_dat_name(const um_dat *d) { return d ? d->name : ""; }
um_set *um_dat_set(const um_dat *d) { return d ? d->set : NULL; }
int um_dat_rows(const um_dat *d) { return d ? d->rows : 0; }
int um_dat_dim(const um_dat *d) { return d ? d->dim : 0; }
um_type um_dat_type(const um_dat *d) { return d ? d->type : UM_DOUBLE; }
um_layout um_dat_layout(const um_dat *d) { return !d ? UM_AOS : d->layout_auto ? UM_LAYOUT_AUTO : d->layout; }
int um_set_count(const um_context *ctx) { return ctx ? ctx->nsets : 0; }
int um_map_count(const um_context *ctx) { return ctx ? ctx->nmaps : 0; }
int um_dat_count(const um_context *ctx) { return ctx ? ctx->ndats : 0; }
um_set *um_set_at(const um_context *ctx, int i) { return (ctx && i >= 0 && i < ctx->nsets) ? ctx->sets[i] : NULL; }
um_map *um_map_at(const um_context *ctx, int i) { return (ctx && i >= 0 && i < ctx->nmaps) ? ctx->maps[i] : NULL; }
um_dat *um_dat_at(const um_context *ctx, int i) { return (ctx && i >= 0 && i < ctx->ndats) ? ctx->dats[i] : NULL; }

int um_const_count(const um_context *ctx) { return ctx ? ctx->nconsts : 0; }
int um_const_at(const um_context *ctx, int i, const char **name, int *dim, um_type *type, const void **data) {
  if (!ctx || i < 0 || i >= ctx->nconsts) return UM_ERR_ARG;
  const um_const *c = &ctx->consts[i];
  if (name) *name = c->name;
  if (dim) *dim = c->dim;
  if (type) *type = c->type;
  if (data) *data = c->data;
  return UM_SUCCESS;
}

int um_decl_kernel(um_context *ctx, const um_kernel *k, const um_kernel **out) {
  UM_CTX_OK(ctx);
  if (!out)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!out)", __func__);
  *out = NULL;
  if (!k || !k->name || !*k->name || (!k->range && !k->source) || k->nargs < 1 || k->nargs > UM_MAX_ARGS)
    return UM_ERROR(ctx, UM_ERR_ARG,
                    "um_decl_kernel: a kernel needs a name, a range function or its source, and 1 to %d arguments "
                    "(got '%s', %d)",
                    UM_MAX_ARGS, k && k->name ? k->name : "(null)", k ? k->nargs : 0);
  UM_CHECK(ctx, um__check_kernel_name(ctx, k));
  if (!k->range && !ctx->backend->caps.host_code && !ctx->backend->caps.source_kernels)
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "um_decl_kernel '%s': a kernel from source alone (no range function) runs on backends that compile "
                    "host code or kernels from source (seq, openmp, cuda), not on '%s'; give it a range function",
                    k->name, um_context_backend(ctx));
  /* one block: the descriptor, then its three strings */
  const size_t ln = strlen(k->name) + 1, ls = k->source ? strlen(k->source) + 1 : 0,
               lh = k->source_name ? strlen(k->source_name) + 1 : 0;
  size_t bytes = sizeof(um_kernel);
  if (um_size_add(bytes, ln, &bytes) || um_size_add(bytes, ls, &bytes) || um_size_add(bytes, lh, &bytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "um_decl_kernel '%s': source too large", k->name);
  um_kernel *c = malloc(bytes);
  if (!c || UM_GROW(ctx->kernels, ctx->capkernels, ctx->nkernels)) {
    free(c);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory declaring kernel '%s'", k->name);
  }
  char *s = (char *)(c + 1);
  *c = *k;
  memcpy(s, k->name, ln);
  c->name = s;
  s += ln;
  if (ls) memcpy(s, k->source, ls), c->source = s, s += ls;
  if (lh) memcpy(s, k->source_name, lh), c->source_name = s;
  ctx->kernels[ctx->nkernels++] = c;
  *out = c;
  return UM_SUCCESS;
}

/* ---- the options core reads (um/option_decl.h): declared here, once ------------------------------------------ */

static int set_backend(um_options *o, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  o->backend = v->s ? v->s : "auto";
  return UM_SUCCESS;
}
static int set_strategy(um_options *o, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  o->strategy = (um_strategy)v->i; /* the choices are um_strategy's values in order */
  return UM_SUCCESS;
}
static int set_layout(um_options *o, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  o->layout = (um_layout)v->i; /* the choices are um_layout's values in order */
  return UM_SUCCESS;
}
static int set_block_size(um_options *o, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  o->block_size = v->i;
  return UM_SUCCESS;
}
static int set_threads(um_options *o, const um_option *d, const um_option_value *v, char *err, size_t len) {
  if (v->i < 0 || v->i > um_threads_max()) {
    if (err && len)
      snprintf(err, len, "%s = %d: use 0 (OpenMP default) or 1 .. %d (at most %d threads per core, %d cores here)",
               d->key, v->i, um_threads_max(), UM_THREADS_PER_CORE, um_threads_max() / UM_THREADS_PER_CORE);
    return UM_ERR_ARG;
  }
  o->nthreads = v->i;
  return UM_SUCCESS;
}
static int set_check_plans(um_options *o, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  o->check_plans = v->i;
  return UM_SUCCESS;
}
static int set_row_align(um_options *o, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  o->row_align = v->i;
  return UM_SUCCESS;
}

const um_option um_core_options[] = {
    {.key = "run.backend", .type = UM_OPT_CHOICE, .def = "auto", .range_hint = "auto | a backend listed below",
     .help = "auto: the available one of highest priority: the GPU if present, else the CPU", .component = "core",
     .to_options = set_backend},
    {.key = "run.strategy", .type = UM_OPT_CHOICE, .def = "auto",
     .choices = UM_CHOICES("auto", "coloured", "atomics", "global", "hierarchical"),
     .help = "how a loop's increments through maps avoid races (auto: the backend's choice; openmp: coloured, or atomics "
             "for loops whose only increments through maps are vector ones, the others coloured, with a warning once "
             "per loop; cuda: every one); what each loop ran: its strategy in the loop statistics (the JSON's "
             "loops[].strategy)",
     .component = "core", .to_options = set_strategy},
    {.key = "run.layout", .type = UM_OPT_CHOICE, .def = "aos", .choices = UM_CHOICES("aos", "soa", "auto"),
     .help = "dats' layout (auto: SoA unless accessed through a map; a row of more than 64 doubles stays AoS)", .component = "core", .to_options = set_layout},
    {.key = "run.block_size", .type = UM_OPT_INT, .def = "256", .min = 1, .max = UM_MAX_BLOCK_SIZE,
     .range_hint = "use 1 .. 1048576 (typically 64 .. 1024)", .flags = UM_OPT_RANGE,
     .help = "elements per mini-partition (plan block)", .component = "core", .to_options = set_block_size},
    {.key = "run.threads", .type = UM_OPT_INT, .def = "0",
     .range_hint = "0 (OpenMP default) or 1 .. the cores here x UM_THREADS_PER_CORE",
     .help = "OpenMP threads (0: OMP_NUM_THREADS or all cores)", .component = "core", .to_options = set_threads},
    {.key = "run.check_plans", .type = UM_OPT_BOOL, .def = "false",
     .help = "verify every plan's colouring after building it", .component = "core", .to_options = set_check_plans},
    {.key = "run.row_align", .type = UM_OPT_INT, .def = "1", .min = 1, .max = 4096, .range_hint = "use 1 .. 4096",
     .flags = UM_OPT_RANGE, .help = "dats allocate rows rounded up to a multiple of this", .component = "core",
     .to_options = set_row_align},
    /* read by the host compiler (compiled loops) and by run.tune (tune.txt): a setting, um_options_get */
    {.key = "run.cache", .type = UM_OPT_STRING,
     .help = "where compiled loops and tuning choices are kept ($XDG_CACHE_HOME/um or\n"
             "~/.cache/um; off, or a HOME that is not a folder there: none); used only if it is this user's and\n"
             "nobody else can write it",
     .component = "core", .to_options = um_option_to_setting},
};
const int um_core_noptions = (int)(sizeof um_core_options / sizeof um_core_options[0]);
