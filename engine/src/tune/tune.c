/* Per-loop auto-tuning (run.tune; um.h: um_context_set_tune).
 *
 * Above the pipeline: at a loop's first call (um_par_loop, before its stages
 * run, through the context's tuner: core/pass.h, installed by
 * engine/src/passes.c) um__tune_loop lists the settings the loop could take
 * -- the backend's strategies x block sizes x split variants, each knob only
 * where it changes how this loop runs and the user left it open -- and tries
 * each on the backend with the pipeline's pieces core hands it (um_pipeline,
 * core/loop.c: its halos, then prepare and run once per trial): one run that
 * compiles and builds its plans, then timed runs, the fastest kept. Every
 * run starts from the loop's outputs as they were before the call (kept once,
 * restored before each run and after the last), so trials change no result, and the call then runs with the
 * chosen settings as per-loop overrides: a tuned run computes what an untuned
 * run given those settings computes.
 *
 * Distributed: every rank lists the same settings (from facts every rank
 * shares), tries them in the same order with no message in between (the
 * loop's stale halos are exchanged before the trials), and the slowest rank's
 * time of each setting decides, so every rank keeps the same choice.
 *
 * run.tune once stores the choice, per device, backend, threads, ranks, loop
 * and mesh (a hash of the loop's arguments and of its maps' contents), as a
 * line of <cache>/tune.txt (tune_cache.c); a later run finds it, runs the stored choice once as a trial (a
 * choice the backend now refuses is tuned again) and starts tuned.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tune.h"
#include "core/option_tables.h"
#include "core/maputil.h"
#include "distributed/dist.h"
#include "util/hash.h"
#include "um/safe_file.h"
#include "util/cache_dir.h"

static const char *const tune_names[] = {"off", "once", "always"};
const char *um_tune_name(um_tune t) { return (unsigned)t < 3 ? tune_names[t] : "unknown"; }

int um_context_set_tune(um_context *ctx, um_tune mode) {
  UM_CTX_OK(ctx);
  if ((unsigned)mode > UM_TUNE_ALWAYS) return UM_ERROR(ctx, UM_ERR_ARG, "tune mode %d is unknown (off, once, always)", (int)mode);
  ctx->tune = mode;
  return UM_SUCCESS;
}

static int nvariants(const um_context *ctx) {
  int n = 0;
  while (ctx->backend->variants && ctx->backend->variants[n]) n++;
  return n;
}

const char *um_backend_variant_name(const um_context *ctx, int v) {
  if (!ctx || !ctx->backend) return NULL;
  if (v == 0 && !ctx->backend->variants) return "default";
  return v >= 0 && v < nvariants(ctx) ? ctx->backend->variants[v] : NULL;
}

int um_loop_set_variant(um_context *ctx, const char *loop_name, int v) {
  UM_CTX_OK(ctx);
  if (!loop_name) return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!loop_name)", __func__);
  if (!um_backend_variant_name(ctx, v))
    return UM_ERROR(ctx, UM_ERR_ARG, "loop '%s': the %s backend has no kernel variant %d (it has %d)", loop_name,
                    ctx->backend->name, v, nvariants(ctx) > 0 ? nvariants(ctx) : 1);
  um_loop_rec *r = um__loop_record(ctx, loop_name);
  if (!r) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  r->variant = v;
  r->variant_by_tune = 0;
  return UM_SUCCESS;
}

int um_loop_tune_info(const um_context *ctx, int i, um_tune_info *out) {
  if (!ctx || !out || i < 0 || i >= ctx->nloops || !ctx->loops[i].tune) return 0;
  *out = *ctx->loops[i].tune;
  return 1;
}

/* ---- the settings a loop can take -------------------------------------------------------------- */
#define TUNE_REPS 2            /* timed runs per setting after the one that compiles (the fastest counts) */
#define TUNE_FAILED 1e300      /* a setting that failed (on any rank) */
static const int tune_blocks[] = {128, 256, 512};

static void add_trial(um_tune_info *T, um_strategy s, int bs, um_split sp, int variant) {
  for (int k = 0; k < T->ntrials; k++)
    if (T->trial[k].strategy == s && T->trial[k].block_size == bs && T->trial[k].split == sp &&
        T->trial[k].variant == variant)
      return;
  if (T->ntrials >= UM_TUNE_MAX_TRIALS) return;
  um_tune_trial *t = &T->trial[T->ntrials++];
  memset(t, 0, sizeof *t);
  t->strategy = s;
  t->block_size = bs;
  t->split = sp;
  t->variant = variant;
  t->seconds = -1;
}

/* The strategies the backend runs as themselves for this loop (its rule maps the others onto one of these; a
 * backend whose atomics are for vector increments only runs the loop's atomics as coloured when it has others). */
static int strategies(um_context *ctx, const um_loop *loop, um_strategy first, um_strategy *out) {
  if (loop->has_whole_inc) { /* runs by atomics (or serially) whatever the strategy: prepare() in loop.c */
    out[0] = first;
    return 1;
  }
  char keep[UM_ERRMSG_LEN];
  memcpy(keep, ctx->errmsg, sizeof keep);
  const int atomics_coloured = ctx->backend->caps.atomics_vec_only && !um_loop_vec_incs_only(loop);
  int n = 0;
  const um_strategy all[] = {first, UM_STRATEGY_COLOURED, UM_STRATEGY_ATOMICS, UM_STRATEGY_GLOBAL,
                             UM_STRATEGY_HIERARCHICAL};
  for (int i = 0; i < 5; i++) {
    um_strategy r = first;
    if (i > 0 && (ctx->backend->exec.strategy(ctx, ctx->bstate, all[i], &r) != UM_SUCCESS || r != all[i])) continue;
    if (atomics_coloured && r == UM_STRATEGY_ATOMICS) r = UM_STRATEGY_COLOURED;
    int seen = 0;
    for (int j = 0; j < n; j++) seen |= out[j] == r;
    if (!seen) out[n++] = r;
  }
  memcpy(ctx->errmsg, keep, sizeof keep); /* the refusals were questions, not errors */
  return n;
}

/* The loop's settings into T (the configured one first); 0 with why in T->note when there is one only. */
static int list_trials(um_context *ctx, const um_loop *loop, const um_loop_rec *rec, um_tune_info *T) {
  const um_strategy s0 = um__rec_strategy(ctx, rec);
  const int b0 = um__rec_block_size(ctx, rec);
  const um_split mode = um__rec_split(ctx, rec);
  const int planned = loop->has_conflicts && !loop->one_to_one; /* plans, colours or atomics */
  um_strategy ss[5];
  int ns = 1, blocks[4] = {b0}, nb = 1;
  ss[0] = s0;
  if (planned && rec->strategy == UM_STRATEGY_AUTO) ns = strategies(ctx, loop, s0, ss);
  const int bsz = ctx->backend->caps.block_sized;
  if (rec->block_size == 0 && (bsz == 2 || (bsz == 1 && planned)))
    for (int i = 0; i < 3; i++)
      if (tune_blocks[i] != b0) blocks[nb++] = tune_blocks[i];
  int gather = 0, fused = 0;
  const int split_knob = !ctx->reproducible && rec->split == 0 && mode == UM_SPLIT_AUTO &&
                         ctx->transform && ctx->transform->variants(ctx, loop, &gather, &fused);
  const um_split whole = split_knob ? UM_SPLIT_OFF : mode;
  for (int j = 0; j < nb; j++) /* whole (or as configured) first: every strategy and block size */
    for (int i = 0; i < ns; i++) add_trial(T, ss[i], blocks[j], whole, 0);
  for (int j = 0; split_knob && j < nb; j++) {
    if (gather) add_trial(T, s0, blocks[j], UM_SPLIT_GATHER, 0); /* no strategy: contributions direct, then gathers */
    else
      for (int i = 0; i < ns; i++) add_trial(T, ss[i], blocks[j], UM_SPLIT_SCATTER, 0);
    if (fused) add_trial(T, s0, blocks[j], UM_SPLIT_FUSED, 0); /* hierarchical inside, whatever the strategy */
  }
  if (T->ntrials > 1 || nvariants(ctx) > 1) return 1; /* (the variants are tried with the best setting) */
  snprintf(T->note, sizeof T->note, "nothing to tune (%s)",
           !loop->has_conflicts ? "no writes through a map; the block size does not matter here"
           : !planned            ? "its writes through maps never meet; the block size does not matter here"
                                 : "its knobs are fixed per loop, or have one value on this backend");
  return 0;
}

static void apply(um_loop_rec *rec, const um_tune_trial *t, int split_knob) {
  rec->strategy = t->strategy;
  rec->block_size = t->block_size;
  rec->variant = t->variant;
  rec->variant_by_tune = 1;
  if (split_knob) {
    rec->split = (int)t->split + 1;
    rec->split_by_tune = 1;
  }
}

/* ---- the loop's outputs, kept and restored around the trials --------------------------------------- */
typedef struct {
  um_dat *d;
  void *dev;  /* the backend's copy of its device rows */
  void *host; /* or a copy of its host rows */
  int valid, stale, zeros;
} kept_dat;

static int keep_outputs(um_context *ctx, const um_loop *loop, kept_dat *k, int *nk) {
  *nk = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT || a->acc == UM_READ) continue;
    int seen = 0;
    for (int j = 0; j < *nk; j++) seen |= k[j].d == a->dat;
    if (seen) continue;
    kept_dat *o = &k[(*nk)++];
    memset(o, 0, sizeof *o);
    um_dat *d = a->dat;
    o->d = d;
    o->valid = d->valid;
    o->stale = d->halo_stale;
    o->zeros = d->host_zeros;
    if (ctx->backend->data.dat_keep) { /* on the device first, so that no trial uploads it */
      if (!(d->valid & UM_VALID_DEVICE)) {
        UM_CHECK(ctx, ctx->backend->data.dat_to_device(ctx, ctx->bstate, d));
        o->valid = d->valid;
      }
      UM_CHECK(ctx, ctx->backend->data.dat_keep(ctx, ctx->bstate, d, &o->dev));
      continue;
    }
    if (!(d->valid & UM_VALID_HOST)) {
      UM_CHECK(ctx, um__dat_to_host(ctx, d));
      o->valid = d->valid;
    }
    const size_t bytes = um_dat_bytes(d);
    o->host = malloc(bytes ? bytes : 1);
    if (!o->host)
      return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory keeping dat '%s' (%zu bytes) for tuning loop '%s'", d->name,
                      bytes, loop->name);
    memcpy(o->host, d->data, bytes);
  }
  return UM_SUCCESS;
}

static int restore_outputs(um_context *ctx, kept_dat *k, int nk) {
  for (int j = 0; j < nk; j++) {
    um_dat *d = k[j].d;
    if (k[j].dev) UM_CHECK(ctx, ctx->backend->data.dat_restore(ctx, ctx->bstate, d, k[j].dev));
    else memcpy(d->data, k[j].host, um_dat_bytes(d));
    d->valid = k[j].valid; /* a device trial wrote only the device rows, now as they were */
    d->halo_stale = k[j].stale;
    d->host_zeros = k[j].zeros;
  }
  return UM_SUCCESS;
}

static void free_kept(um_context *ctx, kept_dat *k, int nk) {
  if (nk && ctx->backend->exec.sync) ctx->backend->exec.sync(ctx, ctx->bstate); /* copies in flight finish first */
  for (int j = 0; j < nk; j++) {
    if (k[j].dev) ctx->backend->data.dat_drop(ctx, ctx->bstate, &k[j].dev);
    free(k[j].host);
  }
}

/* ---- the loops' statistics: trials are not calls ---------------------------------------------------- */
typedef struct {
  long calls, dev_calls, compiled_calls, simd_calls;
  double seconds, dev_seconds;
} rec_times;

static rec_times *save_times(const um_context *ctx, int *n) {
  *n = ctx->nloops;
  rec_times *t = malloc((size_t)(*n ? *n : 1) * sizeof *t);
  for (int i = 0; t && i < *n; i++) {
    const um_loop_rec *r = &ctx->loops[i];
    t[i] = (rec_times){r->calls, r->dev_calls, r->compiled_calls, r->simd_calls, r->seconds, r->dev_seconds};
  }
  return t;
}

static void restore_times(um_context *ctx, const rec_times *t, int n) {
  for (int i = 0; i < ctx->nloops; i++) {
    um_loop_rec *r = &ctx->loops[i];
    const rec_times z = {0, 0, 0, 0, 0, 0}, *s = t && i < n ? &t[i] : &z; /* records the trials added: none */
    r->calls = s->calls, r->dev_calls = s->dev_calls, r->compiled_calls = s->compiled_calls;
    r->simd_calls = s->simd_calls, r->seconds = s->seconds, r->dev_seconds = s->dev_seconds;
  }
}

/* ---- the cache: one line per choice ------------------------------------------------------------------ */
static uint64_t mix(uint64_t h, uint64_t v) { return um_fnv1a(h, &v, sizeof v); }
static uint64_t mix_s(uint64_t h, const char *s) { return s ? um_fnv1a(h, s, strlen(s) + 1) : mix(h, 0); }

/* The mesh as one map sees it: its entries (owned and halo rows), all of them up to TUNE_HASH_SAMPLES, else that
 * many evenly spaced (hashing every entry of a big mesh cost ~0.1 s per loop; two meshes of one size that agree
 * on every sampled entry would only share a tuning choice, never a result). */
#define TUNE_HASH_SAMPLES 65536
static uint64_t map_sample_hash(uint64_t h, const um_map *m) {
  const size_t n = (size_t)um__set_total(m->from) * (size_t)m->arity;
  h = mix(h, (uint64_t)n);
  if (n <= TUNE_HASH_SAMPLES) return n ? um_fnv1a(h, m->data, n * sizeof(int)) : h;
  for (size_t i = 0; i < TUNE_HASH_SAMPLES; i++) h = mix(h, (uint64_t)(unsigned)m->data[i * (n / TUNE_HASH_SAMPLES)]);
  return mix(h, (uint64_t)(unsigned)m->data[n - 1]);
}

/* What the choice depends on: the device and backend, threads and ranks, the loop and its arguments, the
 * mesh (its maps' contents: rank 0's, which decides), and the settings listed. */
static uint64_t cache_key(um_context *ctx, const um_loop *loop, const um_tune_info *T) {
  uint64_t h = mix_s(UM_FNV_OFFSET, "um-tune-2");
  h = mix_s(h, ctx->backend->name);
  h = mix_s(h, ctx->backend->extras.device ? ctx->backend->extras.device(ctx, ctx->bstate) : "");
  h = mix(h, (uint64_t)ctx->opts.nthreads);
  h = mix_s(h, getenv("OMP_NUM_THREADS"));
  h = mix(h, (uint64_t)um_context_nranks(ctx));
  h = mix(h, (uint64_t)ctx->reproducible);
  h = mix_s(h, loop->name);
  h = mix_s(h, loop->kernel->name);
  h = mix(h, (uint64_t)loop->set->gsize);
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    h = mix(h, ((uint64_t)a->kind << 48) ^ ((uint64_t)a->acc << 40) ^ ((uint64_t)(unsigned)a->dim << 8) ^ (uint64_t)a->type);
    h = mix(h, (uint64_t)(int64_t)a->idx);
    if (a->kind != UM_ARG_DAT) continue;
    h = mix(h, ((uint64_t)a->dat->layout << 32) ^ (uint64_t)a->dat->set->gsize);
    if (!a->map) continue;
    h = mix(h, ((uint64_t)a->map->arity << 32) ^ (uint64_t)a->map->to->gsize);
    int first = 1;
    for (int j = 0; j < i; j++) first &= loop->args[j].map != a->map;
    if (first && !a->map->whole) h = map_sample_hash(h, a->map); /* (a whole map is one row: 0, 1, ..) */
  }
  for (int k = 0; k < T->ntrials; k++)
    h = mix(h, ((uint64_t)T->trial[k].strategy << 40) ^ ((uint64_t)T->trial[k].split << 32) ^ (uint64_t)T->trial[k].block_size);
  return h;
}

/* <cache>/tune.txt when the cache folder is on and can be trusted (util/cache_dir.h: the user's own, writable by
 * nobody else); else 0, with a note once a run saying why. */
static int cache_path(um_context *ctx, char *path, size_t n) {
  char dir[512], why[1024] = "";
  um_option_value cache;
  if (um_options_get(&ctx->opts, "run.cache", &cache)) cache.s = NULL;
  if (um_cache_dir(cache.s, dir, sizeof dir) != 0)
    snprintf(why, sizeof why, "the cache folder's path is longer than the %zu characters it may have", sizeof dir - 1);
  else if (dir[0] && um_cache_dir_ready(dir, why, sizeof why) != 0 && !why[0])
    snprintf(why, sizeof why, "the cache folder '%s' cannot be used", dir);
  if (why[0] && !ctx->tune_cache_noted && um__dist_root(ctx))
    um_backend_log(ctx, UM_LOG_WARNING, "um: run.tune: run.cache: %s; tuning choices are not cached", why);
  if (why[0]) ctx->tune_cache_noted = 1;
  return !why[0] && dir[0] && snprintf(path, n, "%s/tune.txt", dir) < (int)n;
}

/* ---- tuning one loop ---------------------------------------------------------------------------------- */
static void first_line(char *dst, size_t n, const char *msg) {
  size_t i = 0;
  for (; i + 1 < n && msg[i] && msg[i] != '\n'; i++) dst[i] = msg[i];
  dst[i] = '\0';
}

/* Run setting k once (after restoring the outputs); its time, or -1 with the error in the trial's note. */
static double one_trial(um_context *ctx, const um_pipeline *P,
                        const um_loop *loop, um_tune_info *T, int k, kept_dat *kept, int nk,
                        int split_knob) {
  apply(&ctx->loops[loop->id], &T->trial[k], split_knob);
  double dt = -1;
  int rc = restore_outputs(ctx, kept, nk);
  if (!rc) rc = P->run(ctx, loop, &dt);
  if (!rc) return dt;
  first_line(T->trial[k].note, sizeof T->trial[k].note, ctx->errmsg);
  um_error_clear(ctx);
  if (ctx->backend->exec.sync) ctx->backend->exec.sync(ctx, ctx->bstate); /* leave the device idle, whatever failed */
  um_error_clear(ctx);
  return -1;
}

/* The backend gets ready for the settings that run the loop whole (or fused): e.g. the CUDA backend compiles
 * their kernels in parallel threads, so the trials' first runs only load them. */
static void prepare_trials(um_context *ctx, const um_pipeline *P,
                           const um_loop *loop, um_tune_info *T, int split_knob) {
  if (!ctx->backend->extras.prepare || T->ntrials < 2) return;
  um_loop *ls = calloc((size_t)T->ntrials, sizeof *ls);
  um_loop *ptr[UM_TUNE_MAX_TRIALS];
  if (!ls) return;
  char keep[UM_ERRMSG_LEN];
  memcpy(keep, ctx->errmsg, sizeof keep);
  int n = 0;
  for (int k = 0; k < T->ntrials; k++) {
    if (split_knob && T->trial[k].split != UM_SPLIT_OFF && T->trial[k].split != UM_SPLIT_FUSED) continue;
    apply(&ctx->loops[loop->id], &T->trial[k], split_knob);
    if (P->prepare(ctx, loop, &ls[n])) ptr[n] = &ls[n], n++;
  }
  if (n > 1) ctx->backend->extras.prepare(ctx, ctx->bstate, ptr, n);
  memcpy(ctx->errmsg, keep, sizeof keep); /* only a missed speed-up: the trials report what fails */
  free(ls);
}

/* The trials (T listed, the outputs kept); the times into T, the slowest rank's. */
/* Trials [from, T->ntrials); from 0: after the configured setting, what the budget allows (else not tuned,
 * with T->note saying why). */
static int run_trials(um_context *ctx, const um_pipeline *P,
                      const um_loop *loop, um_tune_info *T, int from, int reps, kept_dat *kept,
                      int nk, int split_knob) {
  int n = T->ntrials;
  double sec[UM_TUNE_MAX_TRIALS], first[2];
  for (int k = from; k < n; k++) {
    double warm = one_trial(ctx, P, loop, T, k, kept, nk, split_knob), best = warm < 0 ? TUNE_FAILED : INFINITY;
    for (int r = 0; warm >= 0 && r < reps; r++) {
      const double dt = one_trial(ctx, P, loop, T, k, kept, nk, split_knob);
      if (dt < 0) best = TUNE_FAILED;
      else if (dt < best) best = dt;
      if (dt < 0) break;
    }
    sec[k] = best;
    if (k > 0 || from > 0) continue;
    /* after the configured setting: can the others be afforded? (the same answer on every rank) */
    first[0] = warm < 0 ? TUNE_FAILED : warm;
    first[1] = best;
    UM_CHECK(ctx, um__dist_max_f64(ctx, first, 2));
    if (first[0] >= TUNE_FAILED || first[1] >= TUNE_FAILED) {
      snprintf(T->note, sizeof T->note, "not tuned: its configured setting failed in a trial (%s)",
               T->trial[0].note[0] ? T->trial[0].note : "on another rank");
      T->ntrials = 1;
      return UM_SUCCESS;
    }
    if (first[0] > UM_TUNE_BUDGET_SECONDS) {
      snprintf(T->note, sizeof T->note, "not tuned: its first call took %.3g s, more than the %.3g s trials may cost "
               "a loop", first[0], UM_TUNE_BUDGET_SECONDS);
      T->ntrials = 1;
      return UM_SUCCESS;
    }
    const double per = first[1] * (1 + reps); /* a setting's runs, compiles aside */
    if (per * (n - 1) > UM_TUNE_BUDGET_SECONDS) {
      reps = 1;
      const int fit = 1 + (int)(UM_TUNE_BUDGET_SECONDS / (2 * first[1]));
      if (fit < n) {
        for (int j = fit; j < n; j++) snprintf(T->trial[j].note, sizeof T->trial[j].note, "not tried: over the budget");
        n = fit;
      }
    }
  }
  UM_CHECK(ctx, um__dist_max_f64(ctx, sec + from, n - from));
  for (int k = from; k < n; k++) {
    T->trial[k].seconds = sec[k] >= TUNE_FAILED ? -1 : sec[k];
    if (sec[k] >= TUNE_FAILED && !T->trial[k].note[0]) snprintf(T->trial[k].note, sizeof T->trial[k].note, "failed on another rank");
  }
  return UM_SUCCESS;
}

/* The trial whose time is the least (the configured one on ties). */
static int fastest(const um_tune_info *T) {
  int c = -1;
  for (int k = 0; k < T->ntrials; k++)
    if (T->trial[k].seconds >= 0 && (c < 0 || T->trial[k].seconds < T->trial[c].seconds)) c = k;
  return c;
}

/* The backend's kernel variants (after the default), each with the best setting so far, where the budget
 * would have allowed every setting's runs, these included (a loop the budget cut tries none). */
static int variant_trials(um_context *ctx, const um_pipeline *P,
                          const um_loop *loop, um_tune_info *T, kept_dat *kept, int nk,
                          int split_knob) {
  const int nv = nvariants(ctx), c = fastest(T), n1 = T->ntrials;
  if (nv < 2 || c < 0) return UM_SUCCESS;
  const um_tune_trial best = T->trial[c];
  const double per = best.seconds * (1 + TUNE_REPS);
  if (per * (n1 - 1 + nv - 1) > UM_TUNE_BUDGET_SECONDS) return UM_SUCCESS; /* (the same on every rank) */
  for (int v = 1; v < nv; v++) add_trial(T, best.strategy, best.block_size, best.split, v);
  return run_trials(ctx, P, loop, T, n1, TUNE_REPS, kept, nk, split_knob);
}

const char *um_tune_trial_text(const um_context *ctx, const um_tune_trial *t, char *buf, size_t n) {
  const char *v = t->variant ? um_backend_variant_name(ctx, t->variant) : NULL;
  snprintf(buf, n, "%s, block %d, %s%s%s", um_strategy_name(t->strategy), t->block_size,
           t->split == UM_SPLIT_OFF ? "whole" : um_split_name(t->split), v ? ", " : "", v ? v : "");
  return buf;
}

/* Setting k once, the cache's choice before it is trusted: *failed 1 if it failed on any rank (the note says why). */
static int check_trial(um_context *ctx, const um_pipeline *P,
                       const um_loop *loop, um_tune_info *T, int k, kept_dat *kept, int nk,
                       int split_knob, int *failed) {
  double f = one_trial(ctx, P, loop, T, k, kept, nk, split_knob) < 0;
  UM_CHECK(ctx, um__dist_max_f64(ctx, &f, 1));
  *failed = f != 0;
  if (*failed && !T->trial[k].note[0]) snprintf(T->trial[k].note, sizeof T->trial[k].note, "failed on another rank");
  return UM_SUCCESS;
}

/* Trials with the loop's outputs kept and restored around them, and its record's settings and the loops'
 * statistics as they were: every listed setting (check < 0: T->seconds their time), or setting `check` once. */
static int trials_kept(um_context *ctx, const um_pipeline *P,
                       um_loop *loop, um_tune_info *T, int split_knob, int check, int *failed) {
  um_loop_rec *rec = &ctx->loops[loop->id];
  const um_strategy keep_s = rec->strategy;
  const int keep_b = rec->block_size, keep_split = rec->split, keep_v = rec->variant, keep_vt = rec->variant_by_tune;
  const double t0 = um_wtime();
  UM_CHECK(ctx, P->halos(ctx, loop));
  int nt = 0;
  rec_times *times = save_times(ctx, &nt);
  kept_dat kept[UM_MAX_ARGS];
  int nk = 0;
  int rc = times ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory tuning loop '%s'", loop->name);
  if (!rc) rc = um_sync(ctx);
  if (!rc) rc = keep_outputs(ctx, loop, kept, &nk);
  if (!rc && check >= 0) rc = check_trial(ctx, P, loop, T, check, kept, nk, split_knob, failed);
  if (!rc && check < 0) prepare_trials(ctx, P, loop, T, split_knob);
  if (!rc && check < 0) rc = run_trials(ctx, P, loop, T, 0, TUNE_REPS, kept, nk, split_knob);
  if (!rc && check < 0 && !T->note[0]) rc = variant_trials(ctx, P, loop, T, kept, nk, split_knob);
  if (!rc) rc = restore_outputs(ctx, kept, nk);
  if (!rc) rc = um_sync(ctx);
  free_kept(ctx, kept, nk);
  restore_times(ctx, times, nt);
  free(times);
  rec = &ctx->loops[loop->id];
  rec->strategy = keep_s, rec->block_size = keep_b, rec->split = keep_split, rec->split_by_tune = 0;
  rec->variant = keep_v, rec->variant_by_tune = keep_vt;
  if (check < 0) T->seconds = um_wtime() - t0;
  return rc;
}

/* run.tune once: the cache's line for the loop (rank 0 reads it, every rank takes its answer), its choice tried
 * once before it is trusted; *hit 1: T holds it and the loop's record its settings. A choice that fails (the
 * backend refuses it now) is a miss, with a note naming the line: the loop is tuned again. */
static int from_cache(um_context *ctx, const um_pipeline *P,
                      um_loop *loop, um_tune_info *T, const char *path, uint64_t key,
                      int split_knob, int *hit) {
  *hit = 0;
  um_tune_info *C = malloc(sizeof *C);
  if (!C) return UM_SUCCESS; /* (a missed speed-up) */
  *C = *T;
  int found[2] = {0, 0}; /* found, its line */
  if (um__dist_root(ctx) && path[0]) {
    found[0] = um__tune_cache_read(ctx, path, key, C, !ctx->tune_cache_noted, &found[1]);
    ctx->tune_cache_noted = 1; /* a bad line or file is noted once a run */
  }
  int rc = um__dist_bcast(ctx, found, (int)sizeof found);
  if (!rc && found[0]) rc = um__dist_bcast(ctx, C, (int)sizeof *C); /* rank 0's line, for every rank */
  int failed = 0;
  if (!rc && found[0]) rc = trials_kept(ctx, P, loop, C, split_knob, C->chosen, &failed);
  char d[96];
  if (!rc && found[0]) um_tune_trial_text(ctx, &C->trial[C->chosen], d, sizeof d);
  if (!rc && found[0] && failed) {
    um_backend_log(ctx, UM_LOG_WARNING, "um: run.tune: %s:%d: loop '%s': the setting stored there (%s) failed when "
                   "tried (%s); the loop is tuned again", path, found[1], loop->name, d, C->trial[C->chosen].note);
  } else if (!rc && found[0]) {
    *T = *C;
    T->state = 2;
    snprintf(T->note, sizeof T->note, "from the cache (%s:%d): %s", path, found[1], d);
    apply(&ctx->loops[loop->id], &T->trial[T->chosen], split_knob);
    *hit = 1;
  }
  free(C);
  return rc;
}

int um__tune_loop(um_context *ctx, um_loop *loop, const um_pipeline *P) {
  um_loop_rec *rec = &ctx->loops[loop->id];
  um_tune_info *T = calloc(1, sizeof *T);
  if (!T) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory tuning loop '%s'", loop->name);
  rec->tune = T;
  T->chosen = -1;
  if (ctx->dist && ctx->reproducible) {
    snprintf(T->note, sizeof T->note, "not tuned: run.reproducible on several ranks (its exact sums cross ranks)");
    return UM_SUCCESS;
  }
  if (loop->set->gsize == 0) {
    snprintf(T->note, sizeof T->note, "not tuned: its set is empty");
    return UM_SUCCESS;
  }
  /* facts every rank shares: one to one only if it is so on every rank */
  um_loop L = *loop;
  L.one_to_one = um__loop_one_to_one(&L);
  double not_one = !L.one_to_one;
  UM_CHECK(ctx, um__dist_max_f64(ctx, &not_one, 1));
  L.one_to_one = not_one == 0;
  if (!list_trials(ctx, &L, rec, T)) return UM_SUCCESS;
  const int split_knob = T->trial[T->ntrials - 1].split != T->trial[0].split;

  /* the cache */
  char path[600] = "";
  const int cached = ctx->tune == UM_TUNE_ONCE || ctx->tune == UM_TUNE_ALWAYS ? cache_path(ctx, path, sizeof path) : 0;
  const uint64_t key = cache_key(ctx, loop, T);
  if (ctx->tune == UM_TUNE_ONCE) {
    int hit = 0;
    UM_CHECK(ctx, from_cache(ctx, P, loop, T, cached ? path : "", key, split_knob, &hit));
    if (hit) return UM_SUCCESS;
  }

  /* the trials */
  const int rc = trials_kept(ctx, P, loop, T, split_knob, -1, NULL);
  rec = &ctx->loops[loop->id];
  if (rc) return rc;
  if (T->note[0]) return UM_SUCCESS; /* not tuned: the note says why */
  T->chosen = fastest(T);
  if (T->chosen < 0) {
    snprintf(T->note, sizeof T->note, "not tuned: every setting failed in its trial");
    return UM_SUCCESS;
  }
  T->state = 1;
  int timed = 0;
  for (int k = 0; k < T->ntrials; k++) timed += T->trial[k].seconds >= 0;
  char d[96];
  um_tune_trial_text(ctx, &T->trial[T->chosen], d, sizeof d);
  snprintf(T->note, sizeof T->note, "measured: %s, the fastest of %d settings timed (%.3g ms a call; the configured "
           "one %.3g ms); trials took %.3g s", d, timed, 1e3 * T->trial[T->chosen].seconds, 1e3 * T->trial[0].seconds,
           T->seconds);
  apply(rec, &T->trial[T->chosen], split_knob);
  if (cached && um__dist_root(ctx)) um__tune_cache_write(ctx, path, key, loop->name, T);
  um_backend_log(ctx, UM_LOG_INFO, "um: run.tune: loop '%s': %s", loop->name, T->note);
  return UM_SUCCESS;
}

const um_tuner um__tuner = {.tune_loop = um__tune_loop};

/* ---- the option tuning reads (um/option_decl.h): declared here, once ------------------------------------------ */

static int opt_tune(um_context *ctx, const um_option *d, const um_option_value *v, char *err, size_t len) {
  (void)d, (void)err, (void)len;
  return um_context_set_tune(ctx, (um_tune)v->i); /* the choices are um_tune's values in order */
}

const um_option um_tune_options[] = {
    {.key = "run.tune", .type = UM_OPT_CHOICE, .def = "off", .choices = UM_CHOICES("off", "once", "always"),
     .help = "per-loop auto-tuning: at its first call each loop is run with\n"
             "every setting it could take (the backend's strategies x block sizes\n"
             "x split variants), on copies of its outputs, and keeps the fastest\n"
             "(the JSON's tuned record lists them). once: the choice is stored per\n"
             "device and mesh in run.cache (tune.txt) and later runs start tuned;\n"
             "always: tuned in every run. A loop whose first call takes over 2 s\n"
             "is not tuned",
     .component = "tune", .to_context = opt_tune},
};
const int um_tune_noptions = (int)(sizeof um_tune_options / sizeof um_tune_options[0]);
