/* Arguments, par_loop (checks, dispatch, timing) and per-loop statistics. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

um_arg um_arg_dat(um_dat *dat, int idx, um_map *map, int dim, um_type type, um_access acc) {
  um_arg a;
  memset(&a, 0, sizeof a);
  a.kind = UM_ARG_DAT;
  a.dat = dat;
  a.map = map;
  a.idx = idx;
  a.dim = dim;
  a.type = type;
  a.acc = acc;
  return a;
}

um_arg um_arg_gbl(void *data, int dim, um_type type, um_access acc) {
  um_arg a;
  memset(&a, 0, sizeof a);
  a.kind = UM_ARG_GBL;
  a.gbl = data;
  a.idx = -1;
  a.dim = dim;
  a.type = type;
  a.acc = acc;
  return a;
}

static um_loop_rec *loop_record(um_context *ctx, const char *name) {
  for (int i = 0; i < ctx->nloops; i++)
    if (strcmp(ctx->loops[i].name, name) == 0) return &ctx->loops[i];
  if (ctx->nloops == ctx->caploops) {
    int nc = ctx->caploops ? 2 * ctx->caploops : 16;
    um_loop_rec *p = realloc(ctx->loops, (size_t)nc * sizeof *p);
    if (!p) return NULL;
    ctx->loops = p;
    ctx->caploops = nc;
  }
  um_loop_rec *r = &ctx->loops[ctx->nloops];
  memset(r, 0, sizeof *r);
  size_t n = strlen(name) + 1;
  r->name = malloc(n);
  if (!r->name) return NULL;
  memcpy(r->name, name, n);
  ctx->nloops++;
  return r;
}

/* Check one argument against the loop's set and its dat; message names the loop and arg. */
static int check_arg(um_context *ctx, const char *loop, const um_set *set, int i, const um_arg *a) {
  if (a->kind == UM_ARG_GBL) {
    if (!a->gbl) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: global arg with NULL data", loop, i);
    if (!um_type_size(a->type))
      return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: global arg of unknown type %d", loop, i, (int)a->type);
    if (a->dim < 1 || a->dim > UM_MAX_SCRATCH_DIM)
      return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: global arg dim %d outside 1..%d", loop, i, a->dim,
                      UM_MAX_SCRATCH_DIM);
    if (a->acc == UM_WRITE || a->acc == UM_RW)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "loop '%s', arg %d: a global arg may be READ, INC, MIN or MAX, not %s (use a dat for "
                      "per-element output)",
                      loop, i, um_access_name(a->acc));
    return UM_SUCCESS;
  }
  if (a->kind != UM_ARG_DAT) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: not an argument", loop, i);
  const um_dat *d = a->dat;
  if (!d) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: dat is NULL", loop, i);
  if (d->ctx != ctx) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: dat '%s' belongs to another context", loop, i, d->name);
  if (a->acc != UM_READ && a->acc != UM_WRITE && a->acc != UM_RW && a->acc != UM_INC)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d (dat '%s'): access %s is only for global args", loop, i,
                    d->name, um_access_name(a->acc));
  if (a->dim != d->dim)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: declared dim %d but dat '%s' has dim %d", loop, i, a->dim,
                    d->name, d->dim);
  if (a->type != d->type)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: declared type %s but dat '%s' holds %s", loop, i,
                    um_type_name(a->type), d->name, um_type_name(d->type));
  if (d->dim * (int)d->esize > UM_MAX_SCRATCH_DIM * (int)sizeof(double) && (d->layout == UM_SOA || d->layout_auto))
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: dat '%s' of dim %d is too wide for SoA (at most %d doubles)",
                    loop, i, d->name, d->dim, UM_MAX_SCRATCH_DIM);
  if (!a->map) {
    if (d->set != set)
      return UM_ERROR(ctx, UM_ERR_ARG,
                      "loop '%s', arg %d: dat '%s' lives on set '%s' but the loop runs over '%s'; "
                      "access it through a map from '%s'",
                      loop, i, d->name, d->set->name, set->name, set->name);
    if (a->idx != -1)
      return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d (dat '%s'): direct access needs idx -1 with UM_ID, got %d",
                      loop, i, d->name, a->idx);
    return UM_SUCCESS;
  }
  const um_map *m = a->map;
  if (m->ctx != ctx) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: map '%s' belongs to another context", loop, i, m->name);
  if (m->from != set)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: map '%s' goes from set '%s', but the loop runs over '%s'",
                    loop, i, m->name, m->from->name, set->name);
  if (m->to != d->set)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: map '%s' leads to set '%s', but dat '%s' lives on '%s'", loop,
                    i, m->name, m->to->name, d->name, d->set->name);
  if (a->idx < 0 || a->idx >= m->arity)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s', arg %d: index %d outside map '%s' of arity %d (0..%d)", loop, i,
                    a->idx, m->name, m->arity, m->arity - 1);
  return UM_SUCCESS;
}

/* Useful bytes per call: every dat once (twice if RW or INC), every map once.
 * A dat reached through maps counts only the targets the loop touches (a loop
 * over boundary edges reads a few cells, not all of them). */
static double useful_bytes(const um_loop *loop) {
  double bytes = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT) continue;
    int first = 1, mult = 0, map_first = a->map != NULL, direct = 0;
    for (int j = 0; j < loop->nargs; j++) {
      const um_arg *b = &loop->args[j];
      if (b->kind != UM_ARG_DAT) continue;
      if (b->dat == a->dat) {
        if (j < i) first = 0;
        int m = (b->acc == UM_RW || b->acc == UM_INC) ? 2 : 1;
        if (m > mult) mult = m;
        if (!b->map) direct = 1;
      }
      if (a->map && b->map == a->map && j < i) map_first = 0;
    }
    if (map_first) bytes += (double)a->map->from->size * a->map->arity * (double)sizeof(int);
    if (!first) continue;
    const size_t n = (size_t)a->dat->set->size;
    size_t touched = n;
    unsigned char *seen = direct || n == 0 ? NULL : calloc(n, 1);
    if (seen) { /* distinct targets over every map reference to this dat */
      touched = 0;
      for (int j = 0; j < loop->nargs; j++) {
        const um_arg *b = &loop->args[j];
        if (b->kind != UM_ARG_DAT || b->dat != a->dat) continue;
        const int *m = b->map->data;
        for (int e = 0; e < loop->set->size; e++) {
          int t = m[(size_t)e * (size_t)b->map->arity + (size_t)b->idx];
          if (!seen[t]) {
            seen[t] = 1;
            touched++;
          }
        }
      }
      free(seen);
    }
    bytes += (double)mult * (double)touched * a->dat->dim * (double)a->dat->esize;
  }
  return bytes;
}

int um_par_loop(um_context *ctx, const um_kernel *kernel, const char *name, um_set *set, int nargs,
                const um_arg *args) {
  if (!ctx) return UM_ERR_ARG;
  if (!name) name = kernel && kernel->name ? kernel->name : "(unnamed)";
  if (!kernel || !kernel->range)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': no kernel given (define it with UM_KERNEL_DEFINE)", name);
  if (!set) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': iteration set is NULL", name);
  if (set->ctx != ctx) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': set '%s' belongs to another context", name, set->name);
  if (nargs < 0 || nargs > UM_MAX_ARGS || (nargs && !args))
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': %d args (at most %d)", name, nargs, UM_MAX_ARGS);
  if (kernel->nargs != nargs)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': kernel '%s' takes %d arguments but the loop passes %d", name,
                    kernel->name, kernel->nargs, nargs);
  um_loop loop;
  memset(&loop, 0, sizeof loop);
  loop.kernel = kernel;
  loop.name = name;
  loop.set = set;
  loop.nargs = nargs;
  loop.args = args;
  for (int i = 0; i < nargs; i++) {
    UM_CHECK(ctx, check_arg(ctx, name, set, i, &args[i]));
    if (args[i].kind == UM_ARG_DAT && args[i].map) {
      loop.indirect = 1;
      if (args[i].acc != UM_READ) loop.has_conflicts = 1;
    }
    if (args[i].kind == UM_ARG_GBL && args[i].acc != UM_READ) loop.has_reduction = 1;
  }
  um_loop_rec *rec = loop_record(ctx, name);
  if (!rec) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory recording loop '%s'", name);
  loop.rec = rec;
  rec->kernel = kernel;
  rec->set = set;
  rec->nargs = nargs;
  if (nargs) memcpy(rec->args, args, (size_t)nargs * sizeof *args);
  loop.block_size = rec->block_size > 0 ? rec->block_size : ctx->opts.block_size;
  loop.strategy = rec->strategy != UM_STRATEGY_AUTO ? rec->strategy : ctx->strategy;
  UM_CHECK(ctx, um__resolve_layouts(ctx, &loop));
  double t0 = um_wtime();
  int rc = ctx->ops->par_loop(ctx, &loop);
  double t1 = um_wtime();
  if (rc != UM_SUCCESS) return um__trace(ctx, rc, __FILE__, __LINE__);
  if (rec->calls == 0) {
    rec->bytes = useful_bytes(&loop);
    rec->set_size = set->size;
    rec->indirect = loop.indirect;
  }
  rec->calls++;
  rec->seconds += t1 - t0;
  return UM_SUCCESS;
}

int um__get_plan(um_context *ctx, um_loop *loop, const um_plan **out) {
  um_plan_key key;
  memset(&key, 0, sizeof key);
  key.set = loop->set;
  key.nargs = loop->nargs;
  key.block_size = loop->block_size;
  key.strategy = (int)loop->strategy;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    key.arg[i].dat = a->kind == UM_ARG_DAT ? (const void *)a->dat : NULL;
    key.arg[i].map = a->map;
    key.arg[i].idx = a->idx;
    key.arg[i].acc = (int)a->acc;
  }
  um_plan *p = um_plan_cache_find(ctx->plans, &key);
  if (!p) {
    double t0 = um_wtime();
    um_plan_arg pargs[UM_MAX_ARGS];
    memset(pargs, 0, sizeof pargs);
    for (int i = 0; i < loop->nargs; i++) {
      const um_arg *a = &loop->args[i];
      if (a->kind != UM_ARG_DAT || !a->map) continue;
      pargs[i].map = a->map->data;
      pargs[i].arity = a->map->arity;
      pargs[i].idx = a->idx;
      pargs[i].to_size = a->map->to->size;
      pargs[i].dat_id = a->dat->index;
      pargs[i].map_id = a->map->index;
      pargs[i].dim = a->dat->dim;
      pargs[i].esize = (int)a->dat->esize;
      pargs[i].acc = a->acc;
    }
    um_plan_input in;
    memset(&in, 0, sizeof in);
    in.set_size = loop->set->size;
    in.block_size = loop->block_size;
    in.nargs = loop->nargs;
    in.args = pargs;
    /* after a partition reordering made for this block size, its parts are the blocks */
    const um_set *s = loop->set;
    if (s->part_offset && s->part_block_size == loop->block_size) {
      in.block_offset = s->part_offset;
      in.nblocks = s->nparts;
    }
    char err[512] = "";
    int rc = um_plan_build(&in, &p, err, sizeof err);
    if (rc != UM_SUCCESS) return UM_ERROR(ctx, rc, "building the plan of loop '%s': %s", loop->name, err);
    if (ctx->opts.check_plans) {
      rc = um_plan_check(p, &in, err, sizeof err);
      if (rc != UM_SUCCESS) {
        um_plan_free(p);
        return UM_ERROR(ctx, rc, "plan check failed for loop '%s': %s", loop->name, err);
      }
    }
    rc = um_plan_cache_insert(ctx->plans, &key, p);
    if (rc != UM_SUCCESS) {
      um_plan_free(p);
      return UM_ERROR(ctx, rc, "out of memory caching the plan of loop '%s'", loop->name);
    }
    loop->rec->nplans++;
    loop->rec->plan_seconds += um_wtime() - t0;
  }
  loop->rec->last_plan = p;
  *out = p;
  return UM_SUCCESS;
}

int um_loop_set_block_size(um_context *ctx, const char *loop_name, int block_size) {
  if (!ctx || !loop_name) return UM_ERR_ARG;
  if (block_size < 0) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': block size %d is negative", loop_name, block_size);
  um_loop_rec *r = loop_record(ctx, loop_name);
  if (!r) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  r->block_size = block_size;
  return UM_SUCCESS;
}

int um_loop_set_strategy(um_context *ctx, const char *loop_name, um_strategy s) {
  if (!ctx || !loop_name) return UM_ERR_ARG;
  if (ctx->backend != UM_BACKEND_CUDA && s != UM_STRATEGY_AUTO && s != UM_STRATEGY_COLOURED &&
      s != UM_STRATEGY_HIERARCHICAL)
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED, "loop '%s': strategy '%s' needs the cuda backend", loop_name,
                    um_strategy_name(s));
  um_loop_rec *r = loop_record(ctx, loop_name);
  if (!r) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  r->strategy = s == UM_STRATEGY_HIERARCHICAL && ctx->backend != UM_BACKEND_CUDA ? UM_STRATEGY_COLOURED : s;
  return UM_SUCCESS;
}

int um_sync(um_context *ctx) {
  if (!ctx) return UM_ERR_ARG;
  if (ctx->ops && ctx->ops->sync) UM_CHECK(ctx, ctx->ops->sync(ctx));
  return UM_SUCCESS;
}

int um_loop_stats_count(const um_context *ctx) { return ctx->nloops; }

int um_loop_stats_get(const um_context *ctx, int i, um_loop_stats *o) {
  if (!ctx || !o || i < 0 || i >= ctx->nloops) return UM_ERR_ARG;
  const um_loop_rec *r = &ctx->loops[i];
  memset(o, 0, sizeof *o);
  o->name = r->name;
  o->calls = r->calls;
  o->seconds = r->seconds;
  o->host_seconds = r->seconds;
  o->bytes = r->bytes;
  o->set_size = r->set_size;
  o->indirect = r->indirect;
  o->nplans = r->nplans;
  o->plan_seconds = r->plan_seconds;
  if (r->dev_calls > 0) {
    o->device_timed = 1;
    o->seconds = r->dev_seconds;
  }
  o->compile_seconds = r->jit_seconds;
  o->modules = r->modules;
  o->modules_cached = r->modules_cached;
  o->occupancy = r->occupancy;
  if (r->last_plan) {
    const um_plan *p = r->last_plan;
    o->has_plan = 1;
    o->block_size = p->block_size;
    o->nblocks = p->stats.nblocks;
    o->nblock_colours = p->stats.nblock_colours;
    o->mean_thread_colours = p->stats.mean_thread_colours;
    o->max_thread_colours = p->stats.max_thread_colours;
    o->shared_bytes_mean = p->stats.shared_bytes_mean;
    o->shared_bytes_max = p->stats.shared_bytes_max;
    o->reuse_factor = p->stats.reuse_factor;
    o->cache_lines_mean = p->stats.cache_lines_mean;
  }
  return UM_SUCCESS;
}

int um_plan_cache_size(const um_context *ctx) { return um_plan_cache_count(ctx->plans); }

void um_loop_stats_reset(um_context *ctx) {
  for (int i = 0; i < ctx->nloops; i++) {
    ctx->loops[i].calls = 0;
    ctx->loops[i].seconds = 0;
    ctx->loops[i].dev_calls = 0;
    ctx->loops[i].dev_seconds = 0;
  }
}
