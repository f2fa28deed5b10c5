/* Automatic loop splitting: the pipeline's transform stage (um/um.h: um_split).
 *
 * A loop that increments dats through maps is run as a sequence of loops the
 * engine makes, with no change to the app or its kernel:
 *
 *   <loop>:contrib   the user's kernel, once per element, with every INC-through-
 *                    a-map argument redirected to an engine-owned temporary on
 *                    the iteration set (direct, set to -0.0 first), so it writes
 *                    nothing through a map: no colouring, no atomics;
 *   SCATTER          <loop>:inc<i>, one loop per such argument i: the temporary
 *                    added through the argument's map (coloured or atomic as the
 *                    strategy says: the paper's update1/update2);
 *   GATHER           <loop>:gather: each target row adds its incident elements'
 *                    contributions through an inverse (CSR) map, in a fixed
 *                    order: by the contributing element's global number, then
 *                    argument. On one rank that is the order the sequential
 *                    backend adds them in when the loop runs whole.
 *
 * An argument declared um_arg_minus of another (the same dat and map, another index; um/args.h) is, under GATHER,
 * stored only on the loop's first calls of a shape, until one with contributions not all zero checks it against the
 * partner's, negated (check_minus);
 * then the gather reads the partner's contributions negated for it (um_gather.negate) and the contribution loop
 * drops its stores (um_loop.drop), on backends with contrib_drop.
 *
 * Reproducible mode (um_context_set_reproducible) runs every such loop with GATHER,
 * and also redirects each floating-point global INC reduction to a temporary
 * per element, summed exactly (fixed point, rounded once) over the owned
 * elements and across ranks: the result's bits depend neither on the order,
 * the backend, the strategy nor the number of ranks.
 *
 * The temporaries live as long as the context (ctx->temps), one per argument, sized to the iteration set with
 * its halos; each generated loop has its own record (statistics, plans, compiled ranges, device modules, kernel
 * variant: run.tune's for the loop, else its own; a variant set for the loop by name is for its whole kernel)
 * whose parent is the user's loop. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "split.h"
#include "split_state.h"
#include "um/kernel.h"
#include "util/array.h"
#include "distributed/dist.h"
#include "core/maputil.h"
#include "xsum.h"

/* ---- the generated increment loops' kernels (host and JIT source alike) ---- */
#define SPLIT_KERNELS(X)                                                                            \
  X(double, um_split_add_d)                                                                         \
  X(float, um_split_add_f)                                                                          \
  X(int, um_split_add_i)

/* one body, compiled here for the host and handed as text to JIT backends */
#define SPLIT_BODY { for (int k = 0; k < *dim; k++) t[k] += c[k]; }
#define SPLIT_STR_(x) #x
#define SPLIT_STR(x) SPLIT_STR_(x)
#define SPLIT_DEF(T, fn) UM_KERNEL void fn(const T *c, T *t, const int *dim) SPLIT_BODY
#define SPLIT_SRC(T, fn) "UM_KERNEL void " #fn "(const " #T " *c, " #T " *t, const int *dim) " SPLIT_STR(SPLIT_BODY) "\n"
SPLIT_KERNELS(SPLIT_DEF)

static const char split_source[] =
    "/* engine/src/transform/split.c: the increments of split loops */\n"
    "#include \"um/kernel.h\"\n" SPLIT_KERNELS(SPLIT_SRC);

UM_KERNEL_DEFINE(um_split_add_d, 3, split_source, "um_split.h");
UM_KERNEL_DEFINE(um_split_add_f, 3, split_source, "um_split.h");
UM_KERNEL_DEFINE(um_split_add_i, 3, split_source, "um_split.h");

static const um_kernel *add_kernel(um_type t) {
  return t == UM_DOUBLE ? &um_split_add_d_kernel : t == UM_FLOAT ? &um_split_add_f_kernel : &um_split_add_i_kernel;
}

#define XS_WORDS UM_XSUM_WORDS /* exact sums (reproducible reductions): xsum.h */

const char *um_split_name(um_split s) {
  static const char *const n[] = {"off", "scatter", "gather", "auto", "fused"};
  return (unsigned)s < 5 ? n[s] : "unknown";
}

int um_context_set_split(um_context *ctx, um_split mode) {
  UM_CTX_OK(ctx);
  if ((unsigned)mode > UM_SPLIT_FUSED) return UM_ERROR(ctx, UM_ERR_ARG, "split mode %d is unknown", (int)mode);
  ctx->split = mode;
  return UM_SUCCESS;
}

int um_loop_set_split(um_context *ctx, const char *loop_name, um_split mode) {
  UM_CTX_OK(ctx);
  if (!loop_name)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!loop_name)", __func__);
  if ((unsigned)mode > UM_SPLIT_FUSED)
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': split mode %d is unknown", loop_name, (int)mode);
  um_loop_rec *r = um__loop_record(ctx, loop_name);
  if (!r) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  r->split = (int)mode + 1;
  return UM_SUCCESS;
}

int um_context_set_reproducible(um_context *ctx, int on) {
  UM_CTX_OK(ctx);
  ctx->reproducible = on != 0;
  return UM_SUCCESS;
}

int um_context_reproducible(const um_context *ctx) { return ctx && ctx->reproducible; }

/* ---- temporaries ---------------------------------------------------------------------------- */
static int new_temp(um_context *ctx, const char *loop, int arg, um_set *set, int dim, um_type type, int *out) {
  char name[256];
  snprintf(name, sizeof name, "%s:temp%d", loop, arg);
  for (int i = 0; i < ctx->ntemps; i++) { /* a loop's shapes never run at once: they share their temporaries */
    const um_dat *t = ctx->temps[i];
    if (t->set == set && t->dim == dim && t->type == type && t->rows == um__set_total(set) && !strcmp(t->name, name) &&
        t->layout == (!ctx->backend->caps.host_code && dim > 1 ? UM_SOA : UM_AOS)) {
      *out = i;
      return UM_SUCCESS;
    }
  }
  if (UM_GROW(ctx->temps, ctx->captemps, ctx->ntemps)) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  const size_t esize = um_type_size(type), rows = (size_t)um__set_total(set);
  um_dat *d = calloc(1, sizeof *d);
  if (d) {
    d->name = malloc(strlen(name) + 1);
    d->data = calloc(rows ? rows * (size_t)dim : 1, esize);
  }
  if (!d || !d->name || !d->data) {
    if (d) free(d->name), free(d->data);
    free(d);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory for the temporary of loop '%s', arg %d (%zu rows of %d values)",
                    loop, arg, rows, dim);
  }
  strcpy(d->name, name);
  d->ctx = ctx;
  d->set = set;
  d->dim = dim;
  d->type = type;
  d->esize = esize;
  d->layout = !ctx->backend->caps.host_code && dim > 1 ? UM_SOA : UM_AOS; /* a GPU stores each component coalesced */
  d->contrib = 1;
  d->host_zeros = 1;
  d->rows = (int)rows;
  d->valid = UM_VALID_HOST;
  d->index = -1 - ctx->ntemps; /* not among ctx->dats */
  ctx->temps[ctx->ntemps] = d;
  *out = ctx->ntemps++;
  return UM_SUCCESS;
}

int um_context_temp_count(const um_context *ctx) { return ctx ? ctx->ntemps : 0; }
um_dat *um_context_temp_at(const um_context *ctx, int i) {
  return ctx && i >= 0 && i < ctx->ntemps ? ctx->temps[i] : NULL;
}

static void free_state(struct um_split_state *sp) {
  while (sp) {
    struct um_split_state *next = sp->next;
    for (split_target *T = sp->tgt; T < sp->tgt + sp->ntgt; T++)
      free(T->rows), free(T->off), free(T->ent), free(T->elem), free(T->slot);
    free(sp);
    sp = next;
  }
}

void um__split_free(um_context *ctx) {
  for (int i = 0; i < ctx->nloops; i++) {
    free_state(ctx->loops[i].sp);
    ctx->loops[i].sp = NULL;
  }
  for (int i = 0; i < ctx->ntemps; i++) {
    free(ctx->temps[i]->name);
    free(ctx->temps[i]->data);
    free(ctx->temps[i]);
  }
  free(ctx->temps);
  ctx->temps = NULL;
  ctx->ntemps = ctx->captemps = 0;
}

/* ---- deciding ------------------------------------------------------------------------------- */
static uint64_t shape_of(const um_loop *loop) {
  uint64_t h = 1469598103934665603ULL;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ULL)
  MIX(um__set_total(loop->set));
  MIX(loop->nargs);
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    MIX((uintptr_t)a->dat);
    MIX((uintptr_t)a->map);
    MIX(a->idx);
    MIX(a->acc);
    MIX(a->kind);
    MIX(a->minus);
    if (a->kind == UM_ARG_DAT) MIX(um__set_total(a->dat->set));
  }
#undef MIX
  return h;
}

/* Whether the loop can be split; if not, why (into why). */
static int splittable(const um_loop *loop, char *why, size_t n) {
  int any = 0;
  for (int i = 0; i < loop->nargs; i++) { /* never split: its contributions would be arity rows per element */
    const um_arg *a = &loop->args[i];
    if (a->kind == UM_ARG_DAT && a->idx == UM_ALL && a->map->whole) {
      snprintf(why, n, "kept whole: arg %d passes every row of dat '%s' as one whole-dat argument (um_arg_whole); "
               "loops with vector arguments are never split", i, a->dat->name);
      return 0;
    }
    if (a->kind == UM_ARG_DAT && a->idx == UM_ALL) {
      snprintf(why, n, "kept whole: arg %d passes every target of map '%s' as one vector argument (never split)", i,
               a->map->name);
      return 0;
    }
  }
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT || !a->map || a->acc != UM_INC) continue;
    any = 1;
    for (int j = 0; j < loop->nargs; j++) {
      const um_arg *b = &loop->args[j];
      if (b->kind == UM_ARG_DAT && b->dat == a->dat && (b->acc != UM_INC || !b->map)) {
        snprintf(why, n, "kept whole: dat '%s' is incremented through a map (arg %d) and also %s %s (arg %d)",
                 a->dat->name, i, b->acc == UM_READ ? "read" : um_access_name(b->acc),
                 b->map ? "through a map" : "directly", j);
        return 0;
      }
    }
  }
  if (!any) snprintf(why, n, "nothing to split: no increments through a map");
  else if (loop->one_to_one && !loop->set->ctx->dist) { /* one to one on this rank's rows: under distribution the
                                                          * ranks could judge alike rows differently, and every rank
                                                          * must run the same loops */
    snprintf(why, n, "nothing to split: every map it increments through is one to one (one increment per row)");
    return 0;
  }
  return any;
}

/* A write (WRITE, RW) through a map column that elements share: the elements meeting at a target write it in the
 * order the strategy runs them, which no gather fixes. 1 (why in why) for the first such argument. */
static int order_dependent_write(const um_loop *loop, char *why, size_t n) {
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT || !a->map || (a->acc != UM_WRITE && a->acc != UM_RW)) continue;
    if (a->idx >= 0 && um__map_column_one_to_one(a->map, a->idx)) continue; /* each target one element's */
    snprintf(why, n, "arg %d %s dat '%s' through map '%s', whose elements share targets: those elements write them "
             "in the order the strategy runs them", i, a->acc == UM_RW ? "updates (RW)" : "writes", a->dat->name,
             a->map->name);
    return 1;
  }
  return 0;
}

/* Reproducible mode's word, at a loop's first call (rank 0 says it), on a write it cannot order. */
static void warn_order_dependent(um_context *ctx, const um_loop *loop) {
  char order[400];
  if (order_dependent_write(loop, order, sizeof order))
    um_backend_log(ctx, UM_LOG_WARNING,
                   "um: run.reproducible: in loop '%s', %s; its results may differ between strategies, backends, "
                   "block sizes, thread and rank counts", loop->name, order);
}

int um__split_variants(const um_context *ctx, const um_loop *loop, int *gather, int *fused) {
  char no[160];
  *gather = ctx->backend->extras.gather != NULL;
  *fused = 0;
  if (!splittable(loop, no, sizeof no)) return 0;
  int rw = 0;
  for (int i = 0; i < loop->nargs; i++)
    rw |= loop->args[i].map && (loop->args[i].acc == UM_RW || loop->args[i].acc == UM_WRITE);
  *fused = ctx->backend->caps.fused_split && !rw;
  return 1;
}

static int fp_reduction(const um_arg *a) {
  return a->kind == UM_ARG_GBL && a->acc == UM_INC && (a->type == UM_DOUBLE || a->type == UM_FLOAT);
}

/* split auto on a device (docs/benchmarks.md, H100: no loop of the five apps gained from splitting; those
 * nearest the paper's conditions were LULESH volume_force and miniAero flux_faces, at 27-48% of copy
 * bandwidth and occupancy 0.125) */
#define AUTO_BW_SHARE 0.5
#define AUTO_OCCUPANCY 0.25
#define AUTO_MIN_SECONDS 1e-4 /* a shorter loop cannot repay compiling its split (about a second) */
/* The trial's one-off cost: the inverse map is built on the host, about 30 ns per (element, incremented arg)
 * entry with its upload (LULESH 150^3 volume_force, 27M entries: 0.8 s; 300^3: 6-7 s on the H100 host); it is
 * timed only where that costs at most AUTO_REPAY_CALLS calls of the whole loop, so a trial that keeps the loop
 * whole (all of them on the H100) never costs the run more than a few calls */
#define AUTO_SECONDS_PER_ENTRY 30e-9
#define AUTO_REPAY_CALLS 10

/* The variant for this call (OFF: whole), with the reason in rec->split_reason; *final: 0 while split auto on a
 * device is still timing the loop (the next call may decide otherwise), 1 when the same inputs decide the same. */
static int decide(um_context *ctx, const um_loop *loop, um_loop_rec *rec, int *final) {
  const um_split mode = um__rec_split(ctx, rec);
  *final = 1;
  char *why = rec->split_reason;
  const size_t n = sizeof rec->split_reason;
  char no[160];
  const int can = splittable(loop, no, sizeof no);
  const int gather_ok = ctx->backend->extras.gather != NULL;
  if (ctx->reproducible) {
    if (rec->calls == 0 && um_context_rank(ctx) == 0) warn_order_dependent(ctx, loop);
    if (!can) {
      snprintf(why, n, "%s (run.reproducible)", no);
      /* every rank decides alike: rank 0 says it */
      if (rec->calls == 0 && strncmp(no, "nothing to split", 16) != 0 && um_context_rank(ctx) == 0)
        um_backend_log(ctx, UM_LOG_WARNING,
                       "um: run.reproducible: loop '%s' is %s; its increments follow the strategy's order, so its "
                       "results may differ in the last bits between strategies, backends and rank counts",
                       loop->name, no);
      return UM_SPLIT_OFF;
    }
    if (!gather_ok) {
      snprintf(why, n, "kept whole: run.reproducible needs gathers, which the %s backend cannot run",
               ctx->backend->name);
      return UM_SPLIT_OFF;
    }
    snprintf(why, n, "run.reproducible: increments gathered in a fixed order");
    return UM_SPLIT_GATHER;
  }
  if (mode == UM_SPLIT_OFF) {
    snprintf(why, n, "off (run.split)");
    return UM_SPLIT_OFF;
  }
  if (!can) {
    snprintf(why, n, "%s", no);
    return UM_SPLIT_OFF;
  }
  if (mode == UM_SPLIT_SCATTER) {
    snprintf(why, n, "run.split: scatter");
    return UM_SPLIT_SCATTER;
  }
  if (mode == UM_SPLIT_FUSED) { /* variant B: the backend splits inside its launches, which add only increments */
    int rw = -1;
    for (int i = 0; i < loop->nargs && rw < 0; i++)
      if (loop->args[i].map && (loop->args[i].acc == UM_RW || loop->args[i].acc == UM_WRITE)) rw = i;
    if (ctx->backend->caps.fused_split && rw < 0) {
      snprintf(why, n, "run.split: fused (contributions, a block barrier, the increments: one launch per block colour)");
      return UM_SPLIT_FUSED;
    }
    if (rw >= 0)
      snprintf(why, n, "run.split: fused, but arg %d is %s through a map (a fused split adds only increments): %s", rw,
               um_access_name(loop->args[rw].acc), gather_ok ? "gather" : "scatter");
    else
      snprintf(why, n, "run.split: fused, but the %s backend has no fused split: %s", ctx->backend->name,
               gather_ok ? "gather" : "scatter");
    return gather_ok ? UM_SPLIT_GATHER : UM_SPLIT_SCATTER;
  }
  if (mode == UM_SPLIT_GATHER) {
    if (gather_ok) {
      snprintf(why, n, "run.split: gather");
      return UM_SPLIT_GATHER;
    }
    snprintf(why, n, "run.split: gather, but the %s backend has no gathers: scatter", ctx->backend->name);
    return UM_SPLIT_SCATTER;
  }
  /* AUTO */
  if (ctx->backend->caps.host_code) {
    snprintf(why, n, "auto: kept whole on a CPU backend (the unsplit loop wins on CPUs; run.split: on measures it)");
    return UM_SPLIT_OFF;
  }
  /* a device: a loop well below the bandwidth with a low occupancy (the paper's conditions: register pressure,
   * a big footprint per element) is timed whole and split (one call each after a first that compiles) and keeps
   * the faster; any other stays whole without compiling its split */
  const int v = gather_ok ? UM_SPLIT_GATHER : UM_SPLIT_SCATTER;
  if (rec->auto_trial >= 5) return rec->auto_trial == 6 ? v : UM_SPLIT_OFF; /* decided; the reason stays */
  *final = 0;
  if (rec->auto_trial == 0) {
    if (rec->dev_calls < 2 || um__loop_rec_bytes(rec) <= 0) {
      snprintf(why, n, "auto: whole while its first calls are timed");
      return UM_SPLIT_OFF;
    }
    um_device_info info;
    memset(&info, 0, sizeof info);
    if (um_context_device_info(ctx, &info) != UM_SUCCESS) info.copy_gbs = 0;
    double occ = -1;
    for (int k = 0; ctx->backend->counters && k < UM_MAX_COUNTERS && ctx->backend->counters[k]; k++)
      if (!strcmp(ctx->backend->counters[k], "occupancy")) occ = rec->counters[k];
    const double gbs = rec->bytes / (rec->dev_seconds / (double)rec->dev_calls) / 1e9;
    const double per = rec->dev_seconds / (double)rec->dev_calls;
    if (!(info.copy_gbs > 0 && gbs < AUTO_BW_SHARE * info.copy_gbs && occ > 0 && occ <= AUTO_OCCUPANCY &&
          per >= AUTO_MIN_SECONDS)) {
      rec->auto_trial = 5;
      *final = 1;
      snprintf(why, n,
               "auto: kept whole: %.0f GB/s (%.0f%% of copy) at occupancy %.3g, %.3g ms a call; split is timed only "
               "for a loop under %.0f%% of copy at occupancy %.3g or less, of %.3g ms or more",
               gbs, info.copy_gbs > 0 ? 100 * gbs / info.copy_gbs : 0, occ, 1e3 * per, 100 * AUTO_BW_SHARE,
               AUTO_OCCUPANCY, 1e3 * AUTO_MIN_SECONDS);
      return UM_SPLIT_OFF;
    }
    int incs = 0;
    for (int i = 0; i < loop->nargs; i++) incs += loop->args[i].kind == UM_ARG_DAT && loop->args[i].map && loop->args[i].acc == UM_INC;
    const double entries = (double)(loop->set->size + loop->set->exec_halo) * (double)incs;
    const double trial = v == UM_SPLIT_GATHER ? entries * AUTO_SECONDS_PER_ENTRY : 0.0;
    if (trial > AUTO_REPAY_CALLS * per) {
      rec->auto_trial = 5;
      *final = 1;
      snprintf(why, n,
               "auto: kept whole: %.0f GB/s (%.0f%% of copy) at occupancy %.3g, but its split's inverse map (%.3g "
               "entries) would take about %.2g s to build, more than %d calls of the loop (%.3g ms each)",
               gbs, info.copy_gbs > 0 ? 100 * gbs / info.copy_gbs : 0, occ, entries, trial, AUTO_REPAY_CALLS,
               1e3 * per);
      return UM_SPLIT_OFF;
    }
    rec->auto_trial = 1;
  }
  snprintf(why, n, "auto: measuring (call %d of 4)", rec->auto_trial);
  rec->split_measuring = 1;
  return rec->auto_trial <= 2 ? UM_SPLIT_OFF : v;
}

int um__split_measuring(const um_context *ctx, int rec_id) { return ctx->loops[rec_id].split_measuring; }

void um__split_timed(um_context *ctx, int rec_id, double seconds) {
  um_loop_rec *rec = &ctx->loops[rec_id];
  if (!um__split_measuring(ctx, rec_id)) return;
  if (rec->auto_trial == 2) rec->auto_time[0] = seconds;
  if (rec->auto_trial == 4) rec->auto_time[1] = seconds;
  if (++rec->auto_trial < 5) return;
  const int split = rec->auto_time[1] < 0.95 * rec->auto_time[0];
  rec->auto_trial = split ? 6 : 5;
  snprintf(rec->split_reason, sizeof rec->split_reason, "auto: measured %.3g ms whole, %.3g ms %s: %s",
           1e3 * rec->auto_time[0], 1e3 * rec->auto_time[1],
           um_split_name(ctx->backend->extras.gather ? UM_SPLIT_GATHER : UM_SPLIT_SCATTER), split ? "split" : "kept whole");
}

/* A record for a generated loop: "<parent>:<what>". */
static int sub_record(um_context *ctx, int parent, const char *what, int *out) {
  char name[300];
  snprintf(name, sizeof name, "%s:%s", ctx->loops[parent].name, what);
  um_loop_rec *r = um__loop_record(ctx, name);
  if (!r) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  r->parent = parent + 1;
  r->split_contrib = !strcmp(what, "contrib");
  *out = (int)(r - ctx->loops);
  return UM_SUCCESS;
}

static int build_state(um_context *ctx, const um_loop *loop, int rec_id, int variant, struct um_split_state **out) {
  struct um_split_state *sp = calloc(1, sizeof *sp);
  if (!sp) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory splitting loop '%s'", loop->name);
  sp->shape = shape_of(loop);
  sp->variant = variant;
  int rc = UM_SUCCESS;
  const char *lname = ctx->loops[rec_id].name;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    sp->cargs[i] = *a;
    sp->tmp[i] = -1;
    sp->minus[i] = -1;
    const int inc = variant != UM_SPLIT_OFF && a->kind == UM_ARG_DAT && a->map && a->acc == UM_INC;
    const int exact = ctx->reproducible && fp_reduction(a);
    if (!inc && !exact) continue;
    rc = new_temp(ctx, lname, i, loop->set, a->dim, a->type, &sp->tmp[i]);
    if (rc) break;
    um_arg *c = &sp->cargs[i];
    memset(c, 0, sizeof *c);
    c->kind = UM_ARG_DAT;
    c->dat = ctx->temps[sp->tmp[i]];
    c->idx = -1;
    c->dim = a->dim;
    c->type = a->type;
    c->acc = UM_INC;
    sp->exact[i] = exact;
  }
  if (!rc && variant == UM_SPLIT_GATHER) um__split_mark_minus(ctx, loop, sp);
  for (int i = 0; i < loop->nargs; i++) { /* the contribution loop's flags */
    const um_arg *c = &sp->cargs[i];
    if (c->kind == UM_ARG_DAT && c->map) {
      sp->c_indirect = 1;
      if (c->acc != UM_READ) sp->c_conflicts = 1;
    }
    if (c->kind == UM_ARG_GBL && c->acc != UM_READ) sp->c_reduction = 1;
  }
  if (!rc) rc = sub_record(ctx, rec_id, "contrib", &sp->cid);
  for (int i = 0; !rc && variant == UM_SPLIT_SCATTER && i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (sp->tmp[i] < 0 || sp->exact[i]) continue;
    const int u = sp->nupd++;
    char what[32];
    snprintf(what, sizeof what, "inc%d", i);
    rc = sub_record(ctx, rec_id, what, &sp->uid[u]);
    sp->udim[u] = a->dim;
    sp->uargs[u][0] = um_arg_dat(ctx->temps[sp->tmp[i]], -1, NULL, a->dim, a->type, UM_READ);
    sp->uargs[u][1] = um_arg_dat(a->dat, a->idx, a->map, a->dim, a->type, UM_INC);
    sp->uargs[u][2] = um_arg_gbl(&sp->udim[u], 1, UM_INT, UM_READ);
  }
  for (int i = 0; !rc && variant == UM_SPLIT_GATHER && i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (sp->tmp[i] < 0 || sp->exact[i]) continue;
    int t = 0;
    while (t < sp->ntgt && sp->tgt[t].dst != a->dat) t++;
    if (t == sp->ntgt) {
      sp->ntgt++;
      sp->tgt[t].dst = a->dat;
      sp->tgt[t].end = -1;
    }
    split_target *T = &sp->tgt[t];
    T->arg[T->nsrc] = i;
    T->src[T->nsrc++] = ctx->temps[sp->tmp[i]];
  }
  if (!rc && variant == UM_SPLIT_GATHER) rc = sub_record(ctx, rec_id, "gather", &sp->gid);
  if (rc) {
    free_state(sp);
    return rc;
  }
  *out = sp;
  return UM_SUCCESS;
}

int um__split_prepare(um_context *ctx, um_loop *loop, int rec_id, void **out) {
  *out = NULL;
  um_loop_rec *rec = &ctx->loops[rec_id];
  const uint64_t shape = shape_of(loop);
  /* the decision's inputs; a final decision is kept for them, so a loop's later calls skip deciding */
  const uint64_t key = (shape ^ ((uint64_t)um__rec_split(ctx, rec) << 56) ^ ((uint64_t)ctx->reproducible << 60)) | 1;
  rec->split_measuring = 0;
  int variant = rec->split_variant, final = 1;
  if (rec->split_memo != key) {
    variant = decide(ctx, loop, rec, &final);
    rec->split_memo = final ? key : 0;
    char *at = rec->split_by_tune ? strstr(rec->split_reason, "run.split") : NULL;
    if (at) { /* the per-loop setting is run.tune's choice (tune.c): say so */
      char t[sizeof rec->split_reason];
      snprintf(t, sizeof t, "%.*srun.tune, measured fastest%s", (int)(at - rec->split_reason), rec->split_reason,
               at + 9);
      memcpy(rec->split_reason, t, sizeof t);
    }
  }
  int exact = 0;
  for (int i = 0; ctx->reproducible && i < loop->nargs; i++) exact |= fp_reduction(&loop->args[i]);
  rec->split_variant = variant;
  loop->fused = variant == UM_SPLIT_FUSED; /* run whole, split by the backend inside its launches */
  if ((variant == UM_SPLIT_OFF && !exact) || loop->fused) return UM_SUCCESS;
  if (rec->calls == 0)
    um_backend_log(ctx, UM_LOG_DEBUG, "um: loop '%s': split %s (%s)%s", loop->name, um_split_name((um_split)variant),
                   rec->split_reason, exact ? "; global sums exact" : "");
  struct um_split_state *sp = rec->sp;
  while (sp && (sp->variant != variant || sp->shape != shape)) sp = sp->next;
  if (!sp) {
    UM_CHECK(ctx, build_state(ctx, loop, rec_id, variant, &sp));
    rec = &ctx->loops[rec_id]; /* records may have moved */
    sp->next = rec->sp;
    rec->sp = sp;
  }
  for (int i = 0; i < loop->nargs; i++) /* this call's globals: a caller's may move from call to call */
    if (sp->tmp[i] < 0) sp->cargs[i].gbl = loop->args[i].gbl;
  um__split_minus_reason(ctx, rec_id, sp, loop->nargs);
  *out = sp;
  return UM_SUCCESS;
}

/* ---- running ---------------------------------------------------------------------------------- */
/* Values [at, at + n) of d set to the additive identity: -0.0 for floating point (x + -0.0 is x for every x,
 * -0.0 included, so a target the loop adds only -0.0 to, or nothing, keeps its sign as in the unsplit loop;
 * +0.0 would turn a -0.0 target into +0.0), 0 for int. */
static void identity_fill(um_dat *d, size_t at, size_t n) {
  if (d->type == UM_DOUBLE)
    for (double *p = (double *)(void *)d->data + at, *q = p + n; p < q; p++) *p = -0.0;
  else if (d->type == UM_FLOAT)
    for (float *p = (float *)(void *)d->data + at, *q = p + n; p < q; p++) *p = -0.0f;
  else memset(d->data + at * d->esize, 0, n * d->esize);
}

/* Rows [b, e) of a contribution temporary set to the additive identity before the contribution loop. */
static int zero_rows(um_context *ctx, um_dat *d, int b, int e) {
  const int host = ctx->backend->caps.host_code;
  if (e <= b) return UM_SUCCESS;
  if (ctx->backend->caps.contrib_store && (!host || um__contrib_staged(d))) { /* each row stored from -0.0 */
    if (host) d->host_zeros = 0; /* the host copy is written now */
    return UM_SUCCESS;
  }
  if (!host && ctx->backend->data.rows_zero) { /* +0.0: such a device loses -0.0 targets */
    UM_CHECK(ctx, ctx->backend->data.rows_zero(ctx, ctx->bstate, d, b, e));
    d->valid = UM_VALID_DEVICE;
    return UM_SUCCESS;
  }
  if (!(d->valid & UM_VALID_HOST)) UM_CHECK(ctx, um__dat_to_host(ctx, d));
  if (um_dat_storage_layout(d) == UM_SOA)
    for (int c = 0; c < d->dim; c++) identity_fill(d, (size_t)c * (size_t)d->rows + (size_t)b, (size_t)(e - b));
  else identity_fill(d, (size_t)b * (size_t)d->dim, (size_t)(e - b) * (size_t)d->dim);
  um__dat_host_changed(d); /* -0.0: no longer the zeros it was allocated with */
  return UM_SUCCESS;
}

/* Run one generated loop on the backend, with its record's statistics. */
static int run_sub(um_context *ctx, um_loop *l, int rid) {
  um_loop_rec *r = &ctx->loops[rid];
  l->strategy = um__strategy_run(ctx, l); /* as prepare() runs an app's loop; AUTO in the statistics: none needed */
  r->ran_strategy = um__strategy_reported(l, l->strategy);
  if (!r->kernel) {
    r->kernel = l->kernel;
    r->set = l->set;
    r->nargs = l->nargs;
    memcpy(r->args, l->args, (size_t)l->nargs * sizeof *l->args);
  }
  if (r->calls == 0 && r->bytes == 0) {
    r->bytes = um__useful_bytes(l);
    r->set_size = l->set->size;
    r->indirect = l->indirect;
  }
  l->id = rid;
  l->name = r->name;
  const double t0 = um_wtime(); /* the backend runs what it is given (a host one: maybe compiled, hostc.c) */
  const int rc = ctx->backend->exec.run(ctx, ctx->bstate, l);
  ctx->loops[rid].seconds += um_wtime() - t0;
  return rc;
}

int um__split_run(um_context *ctx, void *state, um_loop *piece) {
  struct um_split_state *sp = state;
  const int b = piece->begin, e = piece->end;
  for (int i = 0; i < piece->nargs; i++)
    if (sp->tmp[i] >= 0) UM_CHECK(ctx, zero_rows(ctx, ctx->temps[sp->tmp[i]], b, e));
  um_loop c = *piece;
  c.args = sp->cargs;
  c.indirect = sp->c_indirect;
  c.has_conflicts = sp->c_conflicts;
  c.one_to_one = piece->one_to_one && sp->c_conflicts; /* the same map args, or only temporaries */
  c.has_reduction = sp->c_reduction;
  c.compiled = NULL;
  c.variant = ctx->loops[piece->id].variant_by_tune ? piece->variant : ctx->loops[sp->cid].variant;
  c.drop = sp->minus_state == 1 ? sp->drop : 0;
  UM_CHECK(ctx, run_sub(ctx, &c, sp->cid));
  memcpy(piece->red, c.red, sizeof c.red);
  for (int u = 0; u < sp->nupd; u++) { /* in c's place (its partials taken): one 25 KB loop on the stack, not two */
    um_loop *const l = &c;
    memset(l, 0, offsetof(um_loop, red));
    l->kernel = add_kernel(sp->uargs[u][1].type);
    l->set = piece->set;
    l->nargs = 3;
    l->args = sp->uargs[u];
    l->begin = b;
    l->end = e;
    l->first_piece = piece->first_piece;
    l->indirect = 1;
    l->has_conflicts = 1;
    l->block_size = piece->block_size;
    l->strategy = piece->strategy;
    UM_CHECK(ctx, run_sub(ctx, l, sp->uid[u]));
  }
  return UM_SUCCESS;
}

/* A reproducible reduction: arg i's temporary over the owned elements, summed exactly (and over the ranks). */
static int exact_sum(um_context *ctx, struct um_split_state *sp, um_loop *loop, int i) {
  um_dat *d = ctx->temps[sp->tmp[i]];
  const int dim = d->dim, n = loop->set->size;
  um_xsum *x = calloc((size_t)dim, sizeof *x);
  long long *all = malloc((size_t)dim * XS_WORDS * sizeof *all);
  if (!x || !all) {
    free(x), free(all);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory summing a reduction of loop '%s'", loop->name);
  }
  int rc = UM_SUCCESS;
  if (ctx->backend->extras.exact_sum && (d->valid & UM_VALID_DEVICE) && !(d->valid & UM_VALID_HOST)) {
    memset(all, 0, (size_t)dim * XS_WORDS * sizeof *all); /* on the device, where the contributions are */
    rc = ctx->backend->extras.exact_sum(ctx, ctx->bstate, d, n, all);
    for (int c = 0; !rc && c < dim; c++) memcpy(x[c].w, all + (size_t)c * XS_WORDS, sizeof x[c].w);
  } else {
    if (!(d->valid & UM_VALID_HOST)) rc = um__dat_to_host(ctx, d);
    const int soa = um_dat_storage_layout(d) == UM_SOA;
    for (int e = 0; !rc && e < n; e++)
      for (int c = 0; c < dim; c++) {
        const size_t at = soa ? (size_t)c * (size_t)d->rows + (size_t)e : (size_t)e * dim + c;
        um__xs_add(&x[c], d->type == UM_DOUBLE ? ((const double *)d->data)[at] : (double)((const float *)d->data)[at]);
      }
  }
  if (!rc && ctx->dist) {
    for (int c = 0; c < dim; c++) {
      um__xs_norm(&x[c]);
      memcpy(all + (size_t)c * XS_WORDS, x[c].w, sizeof x[c].w);
    }
    rc = um__dist_sum_i64(ctx, all, dim * XS_WORDS);
    for (int c = 0; !rc && c < dim; c++) memcpy(x[c].w, all + (size_t)c * XS_WORDS, sizeof x[c].w);
  }
  /* every rank holds the whole sum: rank 0 reports it, the others 0, so the ranks' partials add up to it exactly */
  const int root = um__dist_root(ctx);
  for (int c = 0; !rc && c < dim; c++) {
    const double v = root ? um__xs_round(&x[c]) : 0.0;
    if (d->type == UM_DOUBLE) loop->red[i][c] = v;
    else ((float *)loop->red[i])[c] = (float)v;
  }
  free(x);
  free(all);
  return rc;
}

int um__split_finish(um_context *ctx, void *state, um_loop *loop) {
  struct um_split_state *sp = state;
  if (sp->drop && sp->minus_state == 0) UM_CHECK(ctx, um__split_check_minus(ctx, sp, loop));
  for (int t = 0; t < sp->ntgt; t++) {
    split_target *T = &sp->tgt[t];
    if (T->end != loop->end || T->total != um__set_total(T->dst->set))
      UM_CHECK(ctx, um__split_build_csr(ctx, loop, T, loop->end));
    um_gather g;
    memset(&g, 0, sizeof g);
    g.dst = T->dst;
    g.nsrc = T->nsrc;
    g.src = T->src;
    g.ntargets = T->ntargets;
    g.rows = T->rows;
    g.offset = T->off;
    g.entry = T->ent;
    g.elem = T->elem;
    g.slot = T->slot;
    g.negate = T->negate;
    g.key = T->key;
    g.id = sp->gid;
    um_loop_rec *r = &ctx->loops[sp->gid];
    if (r->calls == 0 && t == 0) {
      r->set_size = T->ntargets;
      r->indirect = 1;
    }
    if (r->calls == 0) /* contributions read once, targets read and written, the inverse map read */
      r->bytes += (double)T->off[T->ntargets] * ((double)T->dst->dim * (double)T->dst->esize + sizeof(int)) +
                  (double)T->ntargets * (2.0 * T->dst->dim * (double)T->dst->esize + (T->rows ? 2.0 : 1.0) * sizeof(int));
    const double t0 = um_wtime();
    UM_CHECK(ctx, ctx->backend->extras.gather(ctx, ctx->bstate, &g));
    ctx->loops[sp->gid].seconds += um_wtime() - t0;
  }
  if (sp->ntgt) ctx->loops[sp->gid].calls++;
  for (int i = 0; i < loop->nargs; i++)
    if (sp->exact[i]) UM_CHECK(ctx, exact_sum(ctx, sp, loop, i));
  ctx->loops[sp->cid].calls++;
  for (int u = 0; u < sp->nupd; u++) ctx->loops[sp->uid[u]].calls++;
  return UM_SUCCESS;
}

const um_transform_pass um__split_pass = {
    .name = "split",
    .prepare = um__split_prepare,
    .run = um__split_run,
    .finish = um__split_finish,
    .measuring = um__split_measuring,
    .timed = um__split_timed,
    .variants = um__split_variants,
    .free = um__split_free,
};
