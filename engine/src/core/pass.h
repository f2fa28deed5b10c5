/* What the core's loop pipeline (core/loop.c) calls without naming the rooms that fill it (not installed).
 *
 * Calls go one way: core/ includes nothing from transform/, tune/, backends/ or distributed/; those rooms
 * include core/ (they work on core objects) and fill these tables:
 *   um_transform_pass  stage 3, a loop record in, the loops that run (and their temporaries) out:
 *                      automatic loop splitting (transform/split.c: um__split_pass)
 *   um_tuner           run.tune at a loop's first call, above the pipeline: it runs the pipeline's
 *                      pieces (um_pipeline, core/loop.c) with the settings it tries (tune/tune.c: um__tuner)
 *   um_dist_ops        the calls core makes on a distributed context: halos, reductions across ranks,
 *                      the global view of dats (distributed/dist.c: um__dist_ops, installed by
 *                      um_distribute beside ctx->dist)
 * Which transform pass and which tuner a context gets is engine/src/passes.c (um__passes_install, called
 * once by um_init). Backends keep their own interface (um/backend.h). */
#ifndef UM_CORE_PASS_H
#define UM_CORE_PASS_H

#include "objects.h"

/* A transform pass (stage 3). prepare decides for this call of the loop (record rec_id) and returns its
 * state: the sequence the loop runs as, or NULL to run the loop whole (it may set loop->fused: the backend
 * splits inside its launches); run runs elements [piece->begin, piece->end) of that sequence on the backend
 * (the loop's reduction partials copied back into piece->red); finish runs what follows every piece for
 * elements [0, loop->end); measuring / timed: the pass times this call whole (split auto on a device) and
 * takes its time; variants: 1 if the loop can be rewritten (run.tune: which settings to try), *gather and
 * *fused what the backend can run; free: the pass's temporaries and states, with the context. */
typedef struct um_transform_pass {
  const char *name;
  int (*prepare)(um_context *ctx, um_loop *loop, int rec_id, void **state);
  int (*run)(um_context *ctx, void *state, um_loop *piece);
  int (*finish)(um_context *ctx, void *state, um_loop *loop);
  int (*measuring)(const um_context *ctx, int rec_id);
  void (*timed)(um_context *ctx, int rec_id, double seconds);
  int (*variants)(const um_context *ctx, const um_loop *loop, int *gather, int *fused);
  void (*free)(um_context *ctx);
} um_transform_pass;

/* The pieces of the pipeline a tuner runs (core/loop.c fills them; each works on a copy of base):
 *   halos   the stale halos the loop reads exchanged now, before its trials, so that its trials and its
 *           call read current values and the call exchanges nothing (collective, as a call is);
 *   prepare *out = the loop as a trial with its record's settings now hands it to the backend (for compiling
 *           ahead: um_backend_def.prepare); 0 if those settings run it as generated loops, else 1;
 *   run     one trial call with the record's settings now: prepared, every element a call runs (owned only
 *           with reverse increments), in one piece, on the backend, with no halo exchange, no reverse
 *           increments sent and its reduction partials dropped; *seconds from the device idle to idle
 *           again. The tuner keeps and restores what it writes, and records its choice in the loop's record
 *           (its per-loop overrides), which the call then runs with. */
typedef struct um_pipeline {
  int (*halos)(um_context *ctx, const um_loop *base);
  int (*prepare)(um_context *ctx, const um_loop *base, um_loop *out);
  int (*run)(um_context *ctx, const um_loop *base, double *seconds);
} um_pipeline;

/* The tuner (run.tune): at a loop's first call with run.tune on, before the call's stages, the loop's
 * settings tried with the pipeline's pieces and the fastest kept as the loop's overrides. */
typedef struct um_tuner {
  int (*tune_loop)(um_context *ctx, um_loop *loop, const um_pipeline *pipeline);
} um_tuner;

/* A distributed context's operations, as core calls them (distributed/dist.h says what each does); set
 * beside ctx->dist whenever that is (NULL on one process). */
typedef struct um_dist_ops {
  int (*exchange_begin)(um_context *ctx, um_dat *const *dats, int n, um_loop_rec *rec);
  int (*exchange_end)(um_context *ctx, um_loop_rec *rec, int hidden);
  int (*progress_piece)(const um_context *ctx, const um_loop *loop);
  int (*progress)(um_context *ctx);
  int (*zero_halo)(um_context *ctx, um_dat *d);
  int (*reverse)(um_context *ctx, um_dat *const *dats, int n, um_loop_rec *rec);
  double (*set_halo_total)(const um_context *ctx, const um_set *s, int exec_only);
  int (*set_has_exec)(const um_context *ctx, const um_set *s);
  int (*set_has_halo)(const um_context *ctx, const um_set *s);
  int (*reduce)(um_context *ctx, um_loop *loop);
  int (*fetch)(um_context *ctx, const um_dat *d, void *out);
  int (*fill)(um_context *ctx, um_dat *d, const void *in);
  void (*free)(um_context *ctx);
} um_dist_ops;

/* engine/src/passes.c: the transform pass and the tuner of a new context (ctx->transform, ctx->tuner). */
void um__passes_install(um_context *ctx);

#endif
