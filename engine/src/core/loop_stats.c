/* Per-loop statistics: what backends report into a loop's record (um/backend.h) and the statistics' API
 * (um/stats.h, um/loop.h). The records are core/loop.c's (um__loop_record). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "maputil.h"

/* ---- what backends report (um/backend.h) ---- */
void um_backend_loop_time(um_context *ctx, int id, double seconds) {
  if (!ctx || id < 0 || id >= ctx->nloops) return;
  ctx->loops[id].dev_seconds += seconds;
  ctx->loops[id].dev_calls++;
  const int p = ctx->loops[id].parent - 1; /* a split loop's device time is its generated loops' */
  if (p >= 0 && p < ctx->nloops) {
    ctx->loops[p].dev_seconds += seconds;
    if (ctx->loops[id].split_contrib) ctx->loops[p].dev_calls++;
  }
}

static int counter_ok(const um_context *ctx, int id, int counter) {
  if (!ctx || id < 0 || id >= ctx->nloops || counter < 0 || counter >= UM_MAX_COUNTERS) return 0;
  for (int k = 0; k <= counter; k++)
    if (!ctx->backend->counters || !ctx->backend->counters[k]) return 0;
  return 1;
}
void um_backend_counter_add(um_context *ctx, int id, int counter, double value) {
  if (counter_ok(ctx, id, counter)) ctx->loops[id].counters[counter] += value;
}
void um_backend_counter_set(um_context *ctx, int id, int counter, double value) {
  if (counter_ok(ctx, id, counter)) ctx->loops[id].counters[counter] = value;
}
void um_backend_halo_time(um_context *ctx, int id, double exposed, double hidden) {
  if (!ctx || id < 0 || id >= ctx->nloops) return;
  ctx->loops[id].halo_seconds += exposed > 0 ? exposed : 0;
  ctx->loops[id].halo_hidden += hidden > 0 ? hidden : 0;
}

int um_loop_stats_count(const um_context *ctx) { return ctx->nloops; }

int um_loop_arg_count(const um_context *ctx, int i) {
  return ctx && i >= 0 && i < ctx->nloops ? ctx->loops[i].nargs : 0;
}
int um_loop_arg_get(const um_context *ctx, int i, int j, um_arg *out) {
  if (!ctx || !out || i < 0 || i >= ctx->nloops || j < 0 || j >= ctx->loops[i].nargs) return UM_ERR_ARG;
  *out = ctx->loops[i].args[j];
  out->gbl = NULL;
  return UM_SUCCESS;
}
const um_kernel *um_loop_kernel(const um_context *ctx, int i) {
  return ctx && i >= 0 && i < ctx->nloops ? ctx->loops[i].kernel : NULL;
}
um_set *um_loop_set(const um_context *ctx, int i) {
  return ctx && i >= 0 && i < ctx->nloops ? ctx->loops[i].set : NULL;
}

int um_loop_stats_get(const um_context *ctx, int i, um_loop_stats *o) {
  if (!ctx || !o || i < 0 || i >= ctx->nloops) return UM_ERR_ARG;
  const um_loop_rec *r = &ctx->loops[i];
  memset(o, 0, sizeof *o);
  o->name = r->name;
  o->calls = r->calls;
  o->compiled_calls = r->compiled_calls;
  o->simd_calls = r->simd_calls;
  o->ranks_timed = r->ranks_timed;
  o->seconds_rank_min = r->rank_min;
  o->seconds_rank_mean = r->rank_mean;
  o->seconds_rank_max = r->rank_max;
  o->rank_fastest = r->ranks_timed > 1 ? r->rank_fastest : -1, o->rank_slowest = r->ranks_timed > 1 ? r->rank_slowest : -1;
  o->bytes_all_ranks = r->ranks_timed > 1 ? r->bytes_ranks : 0;
  o->set_size_all_ranks = r->ranks_timed > 1 ? (long long)r->set_size_ranks : 0;
  o->seconds = r->seconds;
  o->host_seconds = r->seconds;
  o->bytes = um__loop_rec_bytes(&((um_context *)ctx)->loops[i]); /* counted once, when first asked */
  o->set_size = r->set_size;
  o->indirect = r->indirect;
  o->one_to_one = r->one_to_one;
  o->strategy = r->ran_strategy;
  o->nplans = r->nplans;
  o->plan_seconds = r->plan_seconds;
  o->first_call_seconds = r->first_call_seconds;
  o->halo_exchanges = r->halo_exchanges;
  o->halo_messages = r->halo_messages;
  o->halo_bytes = r->halo_bytes;
  o->halo_seconds = r->halo_seconds;
  o->halo_hidden_seconds = r->halo_hidden;
  o->reverse_increments = r->last_reverse;
  o->split = um_split_name((um_split)r->split_variant);
  o->split_reason = r->split_reason[0] ? r->split_reason : NULL;
  o->parent = r->parent > 0 && r->parent <= ctx->nloops ? ctx->loops[r->parent - 1].name : NULL;
  for (int t = 0; t < ctx->ntemps; t++) { /* the temporaries named after this loop */
    const size_t n = strlen(r->name);
    const um_dat *d = ctx->temps[t];
    if (!strncmp(d->name, r->name, n) && !strncmp(d->name + n, ":temp", 5))
      o->temp_bytes += (double)d->rows * d->dim * (double)d->esize;
  }
  if (r->dev_calls > 0) {
    o->device_timed = 1;
    o->seconds = r->dev_seconds;
  }
  for (int k = 0; ctx->backend && ctx->backend->counters && k < UM_MAX_COUNTERS && ctx->backend->counters[k]; k++) {
    o->counter_names[k] = ctx->backend->counters[k];
    o->counters[k] = r->counters[k];
    o->ncounters = k + 1;
  }
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

int um_loop_stats_counter(const um_loop_stats *s, const char *name, double *value) {
  for (int k = 0; s && name && k < s->ncounters; k++)
    if (s->counter_names[k] && strcmp(s->counter_names[k], name) == 0) {
      if (value) *value = s->counters[k];
      return 1;
    }
  return 0;
}

int um_plan_cache_size(const um_context *ctx) { return um_plan_cache_count(ctx->plans); }

void um_loop_stats_reset(um_context *ctx) {
  for (int i = 0; i < ctx->nloops; i++) {
    ctx->loops[i].calls = 0;
    ctx->loops[i].seconds = 0;
    ctx->loops[i].dev_calls = 0;
    ctx->loops[i].dev_seconds = 0;
    ctx->loops[i].halo_exchanges = 0;
    ctx->loops[i].halo_messages = 0;
    ctx->loops[i].halo_bytes = 0;
    ctx->loops[i].halo_seconds = 0;
    ctx->loops[i].halo_hidden = 0;
  }
}
