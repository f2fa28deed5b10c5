/* Arguments, the um_par_loop pipeline and per-loop statistics.
 *
 * um_par_loop runs explicit stages, each a function below:
 *   0 tuning (first call)   the context's tuner (ctx->tuner, core/pass.h; tune/tune.c), above the
 *                           pipeline: it runs the pipeline's pieces (um_pipeline below) per setting
 *   1 check arguments       check_loop
 *   2 resolve layouts       um__resolve_layouts
 *   3 transform pass        transform: the context's pass (ctx->transform, core/pass.h; automatic
 *                           loop splitting, transform/split.c) makes the loops that run, or none
 *   4 exchange halos        halo_list, then exchange_begin/end in run_ranges (ctx->dist_ops,
 *                           core/pass.h: distributed/, set by um_distribute)
 *   5 the backend runs a range of the set   run_ranges (core elements while the halos travel); a
 *                           host backend runs the range compiled for the loop where it has one
 *                           (backends/host/hostc.c, consulted in its run)
 *   6 reductions combined   finish_reductions (once, in core, across ranks too), and a value
 *                           that became NaN or infinite stops the run there (UM_ERR_DIVERGED)
 *   7 statistics            record_stats (and halo flags of written dats); what backends report
 *                           and the statistics' API are in loop_stats.c
 *
 * Calls go one way: core names no room above it (transform/, tune/, backends/, distributed/): it
 * calls them through the tables of core/pass.h and the backend's um_backend_def. Between the loop
 * and the dats: loop.c calls dat.c (um__resolve_layouts, um_sync); dat.c calls nothing here.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "../util/trace.h"
#include "maputil.h"
#include "pass.h"
#include "../util/array.h"

static um_loop_rec *loop_find(um_context *ctx, const char *name) {
  for (int i = 0; i < ctx->nloops; i++)
    if (strcmp(ctx->loops[i].name, name) == 0) return &ctx->loops[i];
  return NULL;
}

um_loop_rec *um__loop_record(um_context *ctx, const char *name) {
  um_loop_rec *found = loop_find(ctx, name);
  if (found) return found;
  if (UM_GROW(ctx->loops, ctx->caploops, ctx->nloops)) return NULL;
  um_loop_rec *r = &ctx->loops[ctx->nloops];
  memset(r, 0, sizeof *r);
  size_t n = strlen(name) + 1;
  r->name = malloc(n);
  if (!r->name) return NULL;
  memcpy(r->name, name, n);
  ctx->nloops++;
  return r;
}

/* A loop's identity and the flags its arguments imply. */
static void describe_loop(um_loop *loop, const um_kernel *kernel, const char *name, um_set *set, int nargs,
                          const um_arg *args) {
  loop->kernel = kernel;
  loop->name = name;
  loop->set = set;
  loop->nargs = nargs;
  loop->args = args;
  for (int i = 0; i < nargs; i++) {
    if (args[i].kind == UM_ARG_DAT && args[i].map) {
      loop->indirect = 1;
      if (args[i].acc != UM_READ) loop->has_conflicts = 1;
      if (args[i].idx == UM_ALL) loop->has_vec = 1;
      if (args[i].map->whole && args[i].acc == UM_INC) loop->has_whole_inc = 1;
    }
    if (args[i].kind == UM_ARG_GBL && args[i].acc != UM_READ) loop->has_reduction = 1;
  }
}

/* Stage 1: the kernel, the set and every argument; fills the loop's flags. The loop runs `run` (nargs
 * entries the caller provides): args, with every whole-dat argument (idx UM_WHOLE) made a vector argument
 * through its set's whole map. */
static int check_loop(um_context *ctx, const um_kernel *kernel, const char *name, um_set *set, int nargs,
                      const um_arg *args, um_arg *run, um_loop *loop) {
  if (!kernel || (!kernel->range && !kernel->source)) /* a kernel from source alone: um_decl_kernel checked it */
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': no kernel given (UM_KERNEL_DEFINE, or um_decl_kernel)", name);
  if (!set) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': iteration set is NULL", name);
  if (set->ctx != ctx) return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': set '%s' belongs to another context", name, set->name);
  if (nargs < 0 || nargs > UM_MAX_ARGS || (nargs && !args))
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': %d args (at most %d)", name, nargs, UM_MAX_ARGS);
  if (kernel->nargs != nargs)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': kernel '%s' takes %d arguments but the loop passes %d", name,
                    kernel->name, kernel->nargs, nargs);
  for (int i = 0; i < nargs; i++) UM_CHECK(ctx, um__check_arg(ctx, name, set, i, &args[i]));
  UM_CHECK(ctx, um__check_minus(ctx, name, nargs, args));
  UM_CHECK(ctx, um__check_aliases(ctx, name, nargs, args));
  if (nargs) memcpy(run, args, (size_t)nargs * sizeof *args);
  for (int i = 0; i < nargs; i++)
    if (run[i].kind == UM_ARG_DAT && run[i].idx == UM_WHOLE) {
      UM_CHECK(ctx, um__whole_map(ctx, set, run[i].dat->set, &run[i].map));
      run[i].idx = UM_ALL;
    }
  describe_loop(loop, kernel, name, set, nargs, run);
  return UM_SUCCESS;
}

/* Stage 3: the pass that rewrites a loop into the loops that run (ctx->transform: automatic loop
 * splitting) returns the loop's sequence (contributions into temporaries, then increments), or NULL
 * to run it whole. */
static int transform(um_context *ctx, um_loop *loop, void **sp) {
  *sp = NULL;
  return ctx->transform ? ctx->transform->prepare(ctx, loop, loop->id, sp) : UM_SUCCESS;
}

/* Stage 5's unit: elements [loop->begin, loop->end) run whole, or as the pass's sequence. */
static int run_piece(um_context *ctx, um_loop *loop, void *sp) {
  const int rc = sp ? ctx->transform->run(ctx, sp, loop) : ctx->backend->exec.run(ctx, ctx->bstate, loop);
  loop->first_piece = 0; /* the call's next pieces */
  return rc;
}

/* After every piece: what the pass's sequence runs over elements [0, loop->end) (gathers, exact sums). */
static int finish_pieces(um_context *ctx, um_loop *loop, void *sp) {
  return sp ? ctx->transform->finish(ctx, sp, loop) : UM_SUCCESS;
}

/* Stage 5's range: owned elements, plus the exec halo when the loop writes
 * through a map (those increments must reach owned targets: OP2's rule). */
static void exec_range(um_loop *loop) {
  loop->begin = 0;
  loop->end = loop->set->size + (loop->has_conflicts ? loop->set->exec_halo : 0);
}

/* Append d to list[0..*n) unless it is there already (a dat named by several args counts once). */
static void add_dat_once(um_dat **list, int *n, um_dat *d) {
  for (int j = 0; j < *n; j++)
    if (list[j] == d) return;
  list[(*n)++] = d;
}

/* Stage 4: halos a loop reads must be current. A dat's halo is stale after a
 * loop wrote it; it is exchanged (owner -> halo copies) before a loop reads it
 * through a map, or reads it directly while running the exec halo. The choice
 * uses facts every rank shares (the staleness, whether any rank has a halo of
 * the set), so each message posted has its receiver. */
static void halo_list(um_context *ctx, const um_loop *loop, int reverse, um_dat **list, int *n) {
  *n = 0;
  const int runs_exec = !reverse && loop->has_conflicts && ctx->dist_ops->set_has_exec(ctx, loop->set);
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT || (a->acc != UM_READ && a->acc != UM_RW)) continue;
    if (!a->map && !runs_exec) continue;
    um_dat *d = a->dat;
    if (d->halo_stale && ctx->dist_ops->set_has_halo(ctx, d->set)) add_dat_once(list, n, d);
  }
}

/* ---- increments into other ranks' elements: redundant or reverse ---- */
static const char *const increments_names[] = {"redundant", "reverse", "auto"};
const char *um_increments_name(um_increments m) {
  return (unsigned)m < 3 ? increments_names[m] : "unknown";
}
int um_context_set_increments(um_context *ctx, um_increments mode) {
  UM_CTX_OK(ctx);
  if ((unsigned)mode > UM_INCREMENTS_AUTO) return UM_ERROR(ctx, UM_ERR_ARG, "increments mode %d is unknown", (int)mode);
  ctx->increments = mode;
  return UM_SUCCESS;
}

/* The dats the loop increments through a map, each once. */
static int inc_dats(const um_loop *loop, um_dat **inc) {
  int n = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind == UM_ARG_DAT && a->map && a->acc == UM_INC) add_dat_once(inc, &n, a->dat);
  }
  return n;
}

/* Bytes one element of the loop reads and writes (the same number on every rank). */
static double bytes_per_element(const um_loop *loop) {
  double b = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT) continue;
    /* a vector arg: every target of the row; a whole-dat arg: the rows the kernel picks, counted as one */
    const double n = a->idx == UM_ALL && !a->map->whole ? (double)a->map->arity : 1.0;
    b += n * ((double)a->dim * (double)a->dat->esize * (a->acc == UM_READ ? 1 : 2) + (a->map ? sizeof(int) : 0));
  }
  return b;
}

/* 1 if this call sends its increments back (REVERSE): asked for (or chosen by
 * AUTO), and possible: every write through a map is an INC into a dat the loop
 * reads nowhere else. Decided from facts every rank shares. */
#define REVERSE_GAIN 5.0
static int use_reverse(um_context *ctx, const um_loop *loop, const um_loop_rec *rec) {
  if (!ctx->dist || !loop->has_conflicts) return 0;
  const um_increments mode = rec->increments ? (um_increments)(rec->increments - 1) : ctx->increments;
  if (mode == UM_INCREMENTS_REDUNDANT) return 0;
  if (ctx->reproducible) { /* the owner would add the increments sent back after its own: an order per partition */
    if (rec->calls == 0)
      um_backend_log(ctx, UM_LOG_DEBUG, "um: loop '%s': mpi.increments %s -> redundant (run.reproducible: every "
                     "target's increments gathered on its owner in global element order)", loop->name,
                     um_increments_name(mode));
    return 0;
  }
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT || !a->map || a->acc == UM_READ) continue;
    if (a->acc != UM_INC) return 0;
    for (int j = 0; j < loop->nargs; j++)
      if (loop->args[j].kind == UM_ARG_DAT && loop->args[j].dat == a->dat && loop->args[j].acc != UM_INC) return 0;
  }
  if (mode == UM_INCREMENTS_REVERSE) return 1;
  /* AUTO: the exec halo's work (its elements' bytes) against the halo rows sent back (zeroed, packed, added),
   * which also cost one more exchange (a message round, a wait) per call. Reverse must save REVERSE_GAIN
   * times the bytes it adds: measured on the 16-core host, 8 ranks (docs/benchmarks.md), reverse paid at
   * a work/back ratio of 6.7 (LULESH volume_force) and lost at 3.0 (Airfoil res_calc), 2.7 (BookLeaf
   * getacc_scatter) and 1.8 (miniAero flux_faces). */
  const double work = ctx->dist_ops->set_halo_total(ctx, loop->set, 1) * bytes_per_element(loop);
  um_dat *inc[UM_MAX_ARGS];
  const int ninc = inc_dats(loop, inc);
  double back = 0;
  for (int i = 0; i < ninc; i++)
    back += ctx->dist_ops->set_halo_total(ctx, inc[i]->set, 0) * (double)inc[i]->dim * (double)inc[i]->esize * 3.0;
  const int reverse = work > REVERSE_GAIN * back;
  if (rec->calls == 0)
    um_backend_log(ctx, UM_LOG_DEBUG, "um: loop '%s': mpi.increments auto -> %s (exec halo %.0f bytes of work, %.0f "
                   "bytes sent back; reverse when the first is over %.0f times the second)", loop->name,
                   reverse ? "reverse" : "redundant", work, back, REVERSE_GAIN);
  return reverse;
}

int um_context_set_gpu_transport(um_context *ctx, um_transport t) {
  UM_CTX_OK(ctx);
  if ((unsigned)t > UM_TRANSPORT_LOOPBACK) return UM_ERROR(ctx, UM_ERR_ARG, "GPU transport %d is unknown", (int)t);
  if (ctx->dist) return UM_ERROR(ctx, UM_ERR_ARG, "um_context_set_gpu_transport: the context is distributed already; set it before um_distribute");
  ctx->transport = t;
  return UM_SUCCESS;
}

int um_context_set_gpu_transport_min_bytes(um_context *ctx, long bytes) {
  UM_CTX_OK(ctx);
  if (bytes < 0) return UM_ERROR(ctx, UM_ERR_ARG, "GPU transport threshold %ld bytes: use 0 or more", bytes);
  if (ctx->dist)
    return UM_ERROR(ctx, UM_ERR_ARG, "um_context_set_gpu_transport_min_bytes: the context is distributed already; set it before um_distribute");
  ctx->transport_min_bytes = bytes;
  return UM_SUCCESS;
}

int um_loop_set_increments(um_context *ctx, const char *loop_name, um_increments mode) {
  UM_CTX_OK(ctx);
  if (!loop_name)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!loop_name)", __func__);
  UM_CHECK(ctx, um__check_name(ctx, "loop", loop_name));
  if ((unsigned)mode > UM_INCREMENTS_AUTO)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': increments mode %d is unknown", loop_name, (int)mode);
  um_loop_rec *r = um__loop_record(ctx, loop_name);
  if (!r) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  r->increments = (int)mode + 1;
  return UM_SUCCESS;
}

/* The exec halo [owned, end) of a distributed call: its increments into dats count, its reduction partials do not
 * (a copy of the loop runs it). Never inlined: the copy's 25 KB stay off par_loop's frame, so that a call on one
 * rank fits a small stack (ulimit -s 256) without a malloc per call. */
#if defined(__GNUC__)
#define UM_NOINLINE __attribute__((noinline))
#else
#define UM_NOINLINE
#endif
static UM_NOINLINE int run_exec_halo(um_context *ctx, const um_loop *loop, int owned, int end, void *sp) {
  um_loop tail;
  memcpy(&tail, loop, sizeof tail);
  tail.begin = owned;
  tail.end = end;
  return run_piece(ctx, &tail, sp);
}

/* Stage 5: the backend runs the range. Distributed, it runs in pieces: the core
 * elements while the halos travel (when the backend runs ranges that start
 * past 0), the rest of the owned ones, then the exec halo with its reduction
 * partials dropped (their owner counts those elements). */
static int run_ranges(um_context *ctx, um_loop *loop, um_loop_rec *rec, um_dat **xd, int nx, int reverse,
                      void *sp) {
  loop->first_piece = 1;
  if (!ctx->dist) {
    UM_CHECK(ctx, run_piece(ctx, loop, sp));
    return finish_pieces(ctx, loop, sp);
  }
  const um_dist_ops *D = ctx->dist_ops;
  um_dat *inc[UM_MAX_ARGS];
  const int ninc = reverse ? inc_dats(loop, inc) : 0;
  for (int i = 0; i < ninc; i++) /* reverse: the halo copies of the incremented dats start from zero */
    UM_CHECK(ctx, D->zero_halo(ctx, inc[i]));
  const um_set *s = loop->set;
  const int end = loop->end, owned = s->size < end ? s->size : end;
  const int ranges = ctx->backend->caps.ranges;
  const int apart = loop->has_reduction && end > owned;
  if (apart && !ranges)
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "loop '%s' reduces into a global and writes through a map; on several ranks its exec halo runs "
                    "apart from the owned elements, which the %s backend cannot do yet: use a CPU backend per rank",
                    loop->name, ctx->backend->name);
  int done = 0; /* elements [0, done) have run */
  if (nx) {
    UM_CHECK(ctx, UM_TRACED("exchange", D->exchange_begin(ctx, xd, nx, rec))); /* a profiler range (trace.h) */
    /* the core elements [c0, c1) of the owned (core_begin: where the distribution kept them) */
    const int c0 = s->core_begin, c1 = ranges && s->core_size < owned ? c0 + s->core_size : c0;
    if (c1 > c0) {
      loop->begin = c0;
      loop->end = c1;
      /* on the host in pieces, MPI progress between them (dist.h); not where pieces change bits (a reduction, sp) */
      int piece = loop->has_reduction || ctx->reproducible || sp ? 0 : D->progress_piece(ctx, loop);
      if (piece <= 0) piece = c1 - c0; /* one piece */
      for (int b = c0; b < c1; b += piece) {
        loop->begin = b;
        loop->end = c1 - b > piece ? b + piece : c1;
        UM_CHECK(ctx, run_piece(ctx, loop, sp));
        if (loop->end < c1) UM_CHECK(ctx, D->progress(ctx));
      }
    }
    UM_CHECK(ctx, UM_TRACED("exchange", D->exchange_end(ctx, rec, c1 > c0)));
    for (int i = 0; i < nx; i++) xd[i]->halo_stale = 0;
    if (c1 > c0 && c0 > 0) { /* the owned elements before the core, now that the halos are in */
      loop->begin = 0;
      loop->end = c0;
      UM_CHECK(ctx, run_piece(ctx, loop, sp));
    }
    if (c1 > c0) done = c1;
  }
  const int stop = apart ? owned : end;
  if (stop > done || (done == 0 && !apart)) {
    loop->begin = done;
    loop->end = stop;
    UM_CHECK(ctx, run_piece(ctx, loop, sp));
  }
  if (apart) UM_CHECK(ctx, run_exec_halo(ctx, loop, owned, end, sp));
  loop->begin = 0;
  loop->end = end;
  UM_CHECK(ctx, finish_pieces(ctx, loop, sp)); /* gathers over every element that ran */
  if (reverse) UM_CHECK(ctx, D->reverse(ctx, inc, ninc, rec)); /* halo copies -> owners, added */
  return UM_SUCCESS;
}

/* Before stage 5: reduction partials start as INC zero, MIN/MAX the user's value. */
static void start_reductions(um_loop *loop) {
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_GBL || a->acc == UM_READ) continue;
    const size_t bytes = (size_t)a->dim * um_type_size(a->type);
    if (a->acc == UM_INC) memset(loop->red[i], 0, bytes);
    else memcpy(loop->red[i], a->gbl, bytes);
  }
}

/* Stage 6: the backend's partials, combined across ranks, then into the user's value, once. */
/* ... and the divergence check: a floating-point reduction whose value was
 * finite before the loop and is NaN or infinite after it stops the run here,
 * naming the loop, its call number and the argument, so a diverged run never
 * goes on (or ends with exit status 0) on NaN. The user's value holds the
 * result either way. */
static int finish_reductions(um_context *ctx, um_loop *loop, const um_loop_rec *rec) {
  if (ctx->dist && loop->has_reduction) UM_CHECK(ctx, ctx->dist_ops->reduce(ctx, loop));
  int bad = -1, badc = 0;
  double before = 0, after = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_GBL || a->acc == UM_READ) continue;
    if (a->red) { um__reduction_finish(loop, i, rec->calls + 1); continue; } /* lazy: checked when read */
    const int fp = a->type == UM_DOUBLE || a->type == UM_FLOAT;
    double old[UM_MAX_SCRATCH_DIM];
    const int n = a->dim < UM_MAX_SCRATCH_DIM ? a->dim : UM_MAX_SCRATCH_DIM;
    for (int c = 0; fp && c < n; c++) old[c] = um__gbl_value(a->gbl, a->type, c);
    if (a->acc == UM_INC) um__combine(a->gbl, loop->red[i], a->dim, a->type, UM_INC);
    else memcpy(a->gbl, loop->red[i], (size_t)a->dim * um_type_size(a->type));
    for (int c = 0; fp && bad < 0 && c < n; c++) {
      const double v = um__gbl_value(a->gbl, a->type, c);
      if (!isfinite(v) && isfinite(old[c])) {
        bad = i;
        badc = c;
        before = old[c];
        after = v;
      }
    }
  }
  if (bad < 0) return UM_SUCCESS;
  const um_arg *a = &loop->args[bad];
  return UM_ERROR(ctx, UM_ERR_DIVERGED,
                  "loop '%s', call %ld: the global %s reduction (argument %d, component %d) became %g (it was %g "
                  "before the call): the run diverged, or a kernel produced a non-finite value; this is the first "
                  "loop where it was seen",
                  loop->name, rec->calls + 1, um_access_name(a->acc), bad, badc, after, before);
}

/* Stage 7: written dats' halos are stale (and they hold more than zeros); the loop's record counts the call. */
static void record_stats(um_context *ctx, um_loop *loop, um_loop_rec *rec, double seconds) {
  um__ck_loop(ctx, loop);
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind == UM_ARG_DAT && a->acc != UM_READ) a->dat->halo_stale = 1, a->dat->host_zeros = 0;
  }
  if (rec->calls == 0) {
    rec->bytes_due = 1;
    rec->bytes_set = loop->set;
    rec->bytes_nargs = loop->nargs;
    memcpy(rec->bytes_args, loop->args, (size_t)loop->nargs * sizeof *loop->args);
    if (!ctx->backend->caps.host_code && loop->has_conflicts) /* split auto on a device asks at the next calls: */
      um__loop_rec_bytes(rec);                            /* counted now, so one-off work stays in the first call */
    rec->set_size = loop->set->size;
    rec->indirect = loop->indirect;
  }
  rec->one_to_one = loop->one_to_one;
  rec->calls++;
  rec->seconds += seconds;
}

static int prepare(um_context *ctx, um_loop *loop, void **sp);
static const um_pipeline pipeline;

/* A loop that increments a whole dat (um_arg_whole INC) writes rows no map names: no plan can colour it, so it
 * runs by atomics whatever the strategy, where the backend has them. A backend without keeps the loop's strategy:
 * seq runs one element after another (nothing meets); one that would plan it is refused by um__get_plan. */
static void whole_inc_strategy(um_context *ctx, um_loop *loop) {
  char keep[UM_ERRMSG_LEN];
  memcpy(keep, ctx->errmsg, sizeof keep);
  um_strategy got = UM_STRATEGY_AUTO;
  if (ctx->backend->exec.strategy(ctx, ctx->bstate, UM_STRATEGY_ATOMICS, &got) == UM_SUCCESS && got == UM_STRATEGY_ATOMICS)
    loop->strategy = UM_STRATEGY_ATOMICS;
  else
    memcpy(ctx->errmsg, keep, sizeof keep); /* the refusal was a question */
}

/* one call of the loop (um_par_loop: inside its profiler range) */
static int par_loop(um_context *ctx, const um_kernel *kernel, const char *name, um_set *set, int nargs,
                    const um_arg *args) {
  um_loop loop;
  memset(&loop, 0, offsetof(um_loop, red));
  um_arg run[UM_MAX_ARGS];
  UM_CHECK(ctx, check_loop(ctx, kernel, name, set, nargs, args, run, &loop));
  if (set->block && !ctx->dist) /* its maps hold global numbers until then */
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': set '%s' is declared by blocks; call um_distribute before the first loop",
                    name, set->name);
  args = run;
  um_loop_rec *rec = loop_find(ctx, name);
  if (!rec) { /* its first call: the name checked once (the record's is checked or the engine's own) */
    UM_CHECK(ctx, um__check_name(ctx, "loop", name));
    rec = um__loop_record(ctx, name);
  }
  if (!rec) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory recording loop '%s'", name);
  if (kernel->source && rec->kernel != kernel) /* a kernel not seen under this name: compiled code calls its name */
    UM_CHECK(ctx, um__check_kernel_name(ctx, kernel));
  loop.id = (int)(rec - ctx->loops);
  const double t_first = rec->calls ? 0 : um_wtime(); /* the first call is timed whole (first_call_seconds) */
  rec->kernel = kernel;
  rec->set = set;
  rec->nargs = nargs;
  if (nargs) memcpy(rec->args, args, (size_t)nargs * sizeof *args);
  if (ctx->tune != UM_TUNE_OFF && ctx->tuner && !rec->tune && !rec->parent) { /* (trials: never um_par_loop) */
    UM_CHECK(ctx, ctx->tuner->tune_loop(ctx, &loop, &pipeline)); /* run.tune: settings tried, the fastest kept */
    rec = &ctx->loops[loop.id];
  }
  void *sp = NULL;
  UM_CHECK(ctx, prepare(ctx, &loop, &sp));
  rec = &ctx->loops[loop.id]; /* the split may have added records */
  /* what the call ran: AUTO none needed (nothing that could race; split with gathers: each target sums its own);
   * the backend's fused split colours hierarchically whatever the strategy (um/transform.h) */
  const int gathered = sp && rec->split_variant == UM_SPLIT_GATHER;
  rec->ran_strategy =
      gathered ? UM_STRATEGY_AUTO : um__strategy_reported(&loop, loop.fused ? UM_STRATEGY_HIERARCHICAL : loop.strategy);
  um_dat *xd[UM_MAX_ARGS];
  int nx = 0;
  const int reverse = use_reverse(ctx, &loop, rec);
  rec->last_reverse = reverse;
  if (reverse) loop.end = loop.set->size; /* owned elements only */
  if (ctx->dist) halo_list(ctx, &loop, reverse, xd, &nx);
  start_reductions(&loop);
  loop.lazy_ok = loop.has_reduction && !sp && !ctx->dist && !ctx->reproducible && um__reductions_all_lazy(&loop);
  const int measuring = ctx->transform && ctx->transform->measuring(ctx, loop.id); /* split auto: whole calls */
  if (measuring) UM_CHECK(ctx, um_sync(ctx));
  const double t0 = um_wtime();
  ctx->call_serial++;
  UM_CHECK(ctx, run_ranges(ctx, &loop, rec, xd, nx, reverse, sp));
  if (measuring) UM_CHECK(ctx, um_sync(ctx));
  const double t1 = um_wtime();
  rec = &ctx->loops[loop.id];
  if (measuring) ctx->transform->timed(ctx, loop.id, t1 - t0);
  const int frc = finish_reductions(ctx, &loop, rec);
  record_stats(ctx, &loop, rec, t1 - t0);
  if (rec->calls == 1) rec->first_call_seconds = um_wtime() - t_first;
  return frc;
}

int um_par_loop(um_context *ctx, const um_kernel *kernel, const char *name, um_set *set, int nargs,
                const um_arg *args) {
  UM_CTX_OK(ctx);
  if (!name) name = kernel && kernel->name ? kernel->name : "(unnamed)";
  return UM_TRACED(name, par_loop(ctx, kernel, name, set, nargs, args)); /* the loop's range (util/trace.h) */
}

/* Stages 2 and 3 for one call: the loop's block size and strategy (its record's overrides, else the
 * context's), layouts, then the transform passes; the range it runs. */
static int prepare(um_context *ctx, um_loop *loop, void **sp) {
  um_loop_rec *rec = &ctx->loops[loop->id];
  loop->block_size = um__rec_block_size(ctx, rec);
  loop->strategy = um__rec_strategy(ctx, rec);
  loop->variant = rec->variant;
  UM_CHECK(ctx, um__resolve_layouts(ctx, loop));
  loop->one_to_one = um__loop_one_to_one(loop); /* writes that never meet: no plan, colours or atomics */
  if (loop->has_whole_inc) whole_inc_strategy(ctx, loop);
  /* atomics asked for this loop by name, where the backend has them for vector increments only */
  if (rec->strategy == UM_STRATEGY_ATOMICS && ctx->backend->caps.atomics_vec_only && loop->has_conflicts &&
      !loop->one_to_one && !um_loop_vec_incs_only(loop))
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "loop '%s': strategy 'atomics' was set for this loop, but the %s backend runs atomics only for "
                    "loops whose writes through maps are all vector increments (um_arg_vec INC), and this one "
                    "writes per map index; leave it to the run's strategy (it is then coloured) or use a backend "
                    "whose atomics take every increment",
                    loop->name, ctx->backend->name);
  /* the run's atomics on a backend that cannot take this loop's increments: coloured, and said once (rank 0) */
  const um_strategy ran = um__strategy_run(ctx, loop);
  if (ran != loop->strategy && !ctx->reproducible && !rec->strategy_noted) {
    rec->strategy_noted = 1;
    if (um_context_rank(ctx) == 0)
      um_backend_log(ctx, UM_LOG_WARNING,
                     "um: loop '%s' runs coloured, not by atomics (run.strategy: atomics): the %s backend's atomics "
                     "take only vector increments (um_arg_vec INC), and this loop increments through a map per "
                     "index; each loop's strategy in the loop statistics (umrun's JSON: loops[].strategy) says "
                     "what it ran",
                     loop->name, ctx->backend->name);
  }
  loop->strategy = ran;
  UM_CHECK(ctx, transform(ctx, loop, sp));
  exec_range(loop);
  return UM_SUCCESS;
}

/* ---- the pieces of the pipeline a tuner runs (core/pass.h: um_pipeline; run.tune, tune/tune.c) ---- */
/* The stale halos the loop reads, exchanged now (before its trials), so that its trials and its call read
 * current values and the call exchanges nothing. Collective, as a call is. */
static int trial_halos(um_context *ctx, const um_loop *base) {
  if (!ctx->dist) return UM_SUCCESS;
  um_loop loop;
  memcpy(&loop, base, offsetof(um_loop, red));
  exec_range(&loop);
  um_loop_rec *rec = &ctx->loops[loop.id];
  um_dat *xd[UM_MAX_ARGS];
  int nx = 0;
  halo_list(ctx, &loop, use_reverse(ctx, &loop, rec), xd, &nx);
  if (!nx) return UM_SUCCESS;
  UM_CHECK(ctx, ctx->dist_ops->exchange_begin(ctx, xd, nx, rec));
  UM_CHECK(ctx, ctx->dist_ops->exchange_end(ctx, &ctx->loops[loop.id], 0));
  for (int i = 0; i < nx; i++) xd[i]->halo_stale = 0;
  return UM_SUCCESS;
}

/* The loop as a trial runs it with the settings its record holds now: prepared, over every element a call
 * runs (owned only with reverse increments); *sp: the pass's sequence, or NULL. */
static int trial_setup(um_context *ctx, const um_loop *base, um_loop *loop, void **sp) {
  memcpy(loop, base, offsetof(um_loop, red));
  *sp = NULL;
  UM_CHECK(ctx, prepare(ctx, loop, sp));
  if (use_reverse(ctx, loop, &ctx->loops[loop->id])) loop->end = loop->set->size;
  return UM_SUCCESS;
}

/* One trial call with the settings the loop's record holds now: every element a call runs (owned only with
 * reverse increments), in one piece, on the backend, with no halo exchange, no reverse increments sent and its
 * reduction partials dropped; *seconds: from the device idle to the device idle again. The caller keeps and
 * restores what it writes. */
static int trial_run(um_context *ctx, const um_loop *base, double *seconds) {
  um_loop loop;
  void *sp;
  UM_CHECK(ctx, trial_setup(ctx, base, &loop, &sp));
  start_reductions(&loop);
  UM_CHECK(ctx, um_sync(ctx));
  const double t0 = um_wtime();
  ctx->call_serial++;
  loop.first_piece = 1;
  UM_CHECK(ctx, run_piece(ctx, &loop, sp));
  UM_CHECK(ctx, finish_pieces(ctx, &loop, sp));
  UM_CHECK(ctx, um_sync(ctx));
  *seconds = um_wtime() - t0;
  return UM_SUCCESS;
}

/* *out = the loop as a trial with its record's settings now hands it to the backend, for compiling ahead
 * (um_backend_def.prepare); 0 if those settings run it split into generated loops (not prepared), else 1. */
static int trial_prepare(um_context *ctx, const um_loop *base, um_loop *out) {
  void *sp;
  return trial_setup(ctx, base, out, &sp) == UM_SUCCESS && !sp;
}

static const um_pipeline pipeline = {.halos = trial_halos, .prepare = trial_prepare, .run = trial_run};

int um__get_plan(um_context *ctx, um_loop *loop, int begin, int n, const um_plan **out) {
  um_plan_key key;
  memset(&key, 0, sizeof key);
  key.set = loop->set;
  key.nargs = loop->nargs;
  key.block_size = loop->block_size;
  key.strategy = (int)loop->strategy;
  key.size = n;
  key.begin = begin;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    key.arg[i].dat = a->kind == UM_ARG_DAT ? (const void *)a->dat : NULL;
    key.arg[i].map = a->map;
    key.arg[i].idx = a->idx;
    key.arg[i].acc = (int)a->acc;
  }
  um_loop_rec *rec = &ctx->loops[loop->id];
  um_plan *p = um_plan_cache_find(ctx->plans, &key);
  if (!p) {
    double t0 = um_setup_begin(ctx, UM_SETUP_PLANS);
    um_plan_arg pargs[UM_MAX_ARGS];
    memset(pargs, 0, sizeof pargs);
    for (int i = 0; i < loop->nargs; i++) {
      const um_arg *a = &loop->args[i];
      if (a->kind != UM_ARG_DAT || !a->map) continue;
      if (a->map->whole) { /* read in place and never staged: as a direct arg to the plan (INC: never planned) */
        if (a->acc != UM_READ)
          return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                          "loop '%s' increments a whole dat (arg %d, um_arg_whole), which no plan can colour, and the "
                          "%s backend has no atomics for this loop (OpenMP has them when every write through a map is "
                          "a vector increment: pass per-index writes with um_arg_vec); or run it on seq or cuda",
                          loop->name, i, ctx->backend->name);
        continue;
      }
      pargs[i].map = a->map->data + (size_t)begin * (size_t)a->map->arity; /* elements from begin */
      pargs[i].arity = a->map->arity;
      pargs[i].idx = a->idx == UM_ALL ? UM_PLAN_ALL : a->idx; /* a vector arg: conflicts through every target */
      pargs[i].to_size = um__set_total(a->map->to);
      pargs[i].dat_id = a->dat->index;
      pargs[i].map_id = a->map->index;
      pargs[i].dim = a->dat->dim;
      pargs[i].esize = (int)a->dat->esize;
      pargs[i].acc = a->acc;
    }
    um_plan_input in;
    memset(&in, 0, sizeof in);
    in.set_size = n;
    in.block_size = loop->block_size;
    in.nargs = loop->nargs;
    in.args = pargs;
    /* after a partition reordering made for this block size, its parts are the blocks */
    const um_set *s = loop->set;
    if (s->part_offset && s->part_block_size == loop->block_size && begin == 0 && n == s->size) {
      in.block_offset = s->part_offset;
      in.nblocks = s->nparts;
    }
    char err[512] = "";
    int rc = UM_TRACED("plan", um_plan_build(&in, &p, err, sizeof err));
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
    rec->nplans++;
    rec->plan_seconds += um_setup_end(ctx, UM_SETUP_PLANS) - t0;
  }
  rec->last_plan = p, rec->last_plan_begin = begin;
  *out = p;
  return UM_SUCCESS;
}

int um_loop_plan(um_context *ctx, um_loop *loop, const um_plan **plan) {
  return um__get_plan(ctx, loop, loop->begin, loop->end - loop->begin, plan);
}

int um_loop_set_block_size(um_context *ctx, const char *loop_name, int block_size) {
  UM_CTX_OK(ctx);
  if (!loop_name)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!loop_name)", __func__);
  UM_CHECK(ctx, um__check_name(ctx, "loop", loop_name));
  if (block_size < 0 || block_size > UM_MAX_BLOCK_SIZE)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': block size %d: use 1 .. %d (0: the context's)", loop_name, block_size,
                    UM_MAX_BLOCK_SIZE);
  um_loop_rec *r = um__loop_record(ctx, loop_name);
  if (!r) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  r->block_size = block_size;
  return UM_SUCCESS;
}

int um_loop_set_strategy(um_context *ctx, const char *loop_name, um_strategy s) {
  UM_CTX_OK(ctx);
  if (!loop_name)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!loop_name)", __func__);
  UM_CHECK(ctx, um__check_name(ctx, "loop", loop_name));
  if ((int)s < UM_STRATEGY_AUTO || (int)s > UM_STRATEGY_HIERARCHICAL)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': unknown strategy %d (UM_STRATEGY_AUTO, _COLOURED, _ATOMICS, _GLOBAL "
                    "or _HIERARCHICAL)", loop_name, (int)s);
  um_strategy resolved = UM_STRATEGY_AUTO;
  if (s != UM_STRATEGY_AUTO) { /* AUTO: back to the context's */
    int rc = ctx->backend->exec.strategy(ctx, ctx->bstate, s, &resolved);
    if (rc != UM_SUCCESS) {
      char msg[UM_ERRMSG_LEN];
      snprintf(msg, sizeof msg, "%s", ctx->errmsg);
      return UM_ERROR(ctx, rc, "loop '%s': %s", loop_name, msg);
    }
  }
  um_loop_rec *r = um__loop_record(ctx, loop_name);
  if (!r) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  r->strategy = resolved;
  return UM_SUCCESS;
}

int um_loop_recorded(um_context *ctx, const char *name, um_loop *loop) {
  const um_loop_rec *r = NULL;
  for (int i = 0; i < ctx->nloops; i++)
    if (!strcmp(ctx->loops[i].name, name)) r = &ctx->loops[i];
  if (!r || !r->kernel)
    return UM_ERROR(ctx, UM_ERR_ARG, "no loop named '%s' has run on this context: run it first (on any backend)",
                    name);
  memset(loop, 0, offsetof(um_loop, red));
  describe_loop(loop, r->kernel, r->name, r->set, r->nargs, r->args);
  loop->one_to_one = um__loop_one_to_one(loop);
  loop->id = (int)(r - ctx->loops);
  loop->block_size = r->block_size > 0 ? r->block_size : ctx->opts.block_size;
  loop->strategy = r->strategy;
  exec_range(loop);
  return UM_SUCCESS;
}
