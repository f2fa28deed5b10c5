/** @file um/transform.h
 * How the engine rewrites and tunes a loop on its own, without a change to the
 * app: automatic loop splitting (um_context_set_split), reproducible mode
 * (um_context_set_reproducible) and per-loop auto-tuning (um_context_set_tune). Included by
 * um/um.h; include that. */
#ifndef UM_TRANSFORM_H
#define UM_TRANSFORM_H

#include "um/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Automatic loop splitting (engine/src/transform/split.c): a loop that increments
 * dats through maps runs as a contribution loop (the user's kernel unchanged,
 * each INC-through-a-map argument redirected to an engine-owned temporary row
 * per element, direct) followed by the increments:
 *   - SCATTER  one generated loop per incremented argument, through its map
 *              (the paper's update1/update2: coloured or atomic as the strategy);
 *   - GATHER   each target row sums its incident elements' contributions through
 *              an inverse (CSR) map, in a fixed order: no colouring, no atomics,
 *              the same bits from run to run on every backend;
 *   - AUTO     the engine decides per loop (host backends keep loops whole);
 *   - FUSED    (variant B) the split inside one launch per block colour, on a
 *              backend that has it (um_backend_def.fused_split: CUDA): each
 *              plan block's elements write their contributions to shared
 *              memory, a block barrier, then the block's targets are staged
 *              and the contributions added by thread colour; hierarchical
 *              colouring whatever the strategy. Elsewhere: GATHER, saying so;
 *   - OFF      never.
 *
 * A loop that also reads or writes an incremented dat otherwise than INC is
 * kept whole (its stats say why). um_loop_split_info tells what a loop did. */
typedef enum {
  UM_SPLIT_OFF = 0,  /**< never split                                   */
  UM_SPLIT_SCATTER,  /**< contributions, then one loop per increment    */
  UM_SPLIT_GATHER,   /**< contributions, then a gather per target row   */
  UM_SPLIT_AUTO,     /**< the engine decides per loop                   */
  UM_SPLIT_FUSED     /**< contributions and increments in one launch    */
} um_split;
/** The name of a split mode ("off", "scatter", "gather", "auto", "fused"). */
const char *um_split_name(um_split s);
/** The split mode of every loop of the context (default AUTO). */
int um_context_set_split(um_context *ctx, um_split mode);
/** The split mode of one loop, by name (overrides the context's). */
int um_loop_set_split(um_context *ctx, const char *loop_name, um_split mode);
/** Reproducible mode on or off: every loop that increments through a map runs split with
 * GATHER, each target's contributions summed in the order of the contributing
 * elements' global numbers (so partitions and ranks do not change the sum),
 * and every global INC reduction of floating-point values is summed exactly
 * (a fixed-point accumulator, rounded once), so its bits depend neither on the
 * order nor on the backend, the strategy or the number of ranks.
 * @param ctx the context
 * @param on  1: on, 0: off (the default) */
int um_context_set_reproducible(um_context *ctx, int on);
/** 1 if the context runs in reproducible mode (um_context_set_reproducible). */
int um_context_reproducible(const um_context *ctx);

/** Per-loop auto-tuning (engine/src/tune/tune.c). At its first call a loop is
 * run with each setting it could take -- the backend's strategies x block
 * sizes x split variants (whole, gather or scatter, fused), then the
 * backend's kernel variants with the best of those, each knob only
 * where it changes how the loop runs and the user left it open -- on copies
 * of its outputs (restored after each trial, so the trials change no result),
 * each timed after a first run that compiles it; the fastest is kept for the
 * run and the call then runs with it, so a tuned run's results are those of
 * an untuned run with the chosen settings given per loop. Every rank keeps the
 * same choice (the slowest rank's time of each setting decides).
 *   - ONCE    the choice is stored per device, backend, rank count, loop and
 *             mesh in the cache folder (run.cache: tune.txt) and read
 *             back by later runs, which then run tuned from their first call;
 *   - ALWAYS  tuned in every run (and stored);
 *   - OFF     never (the default).
 * A loop whose one call takes longer than UM_TUNE_BUDGET_SECONDS is not
 * tuned (trials would cost more than they could save). um_loop_tune_info
 * tells what a loop tried and kept. */
typedef enum {
  UM_TUNE_OFF = 0, /**< no tuning                                  */
  UM_TUNE_ONCE,    /**< tune once per device and mesh, then cached  */
  UM_TUNE_ALWAYS   /**< tune in every run                          */
} um_tune;
/** Seconds of trial runs one loop may cost: a loop whose first (compiling) call
 * takes longer is kept as configured, and fewer settings are tried where all
 * of them would take longer. */
#define UM_TUNE_BUDGET_SECONDS 2.0
/** The most settings one loop tries. */
#define UM_TUNE_MAX_TRIALS 24
/** The name of a tune mode ("off", "once", "always"). */
const char *um_tune_name(um_tune t);
/** The tune mode of the context (before its loops run). */
int um_context_set_tune(um_context *ctx, um_tune mode);
/** One setting a tuned loop was tried with. */
typedef struct {
  um_strategy strategy; /**< the strategy it ran with (resolved)          */
  int block_size;       /**< elements per plan block                       */
  um_split split;       /**< UM_SPLIT_OFF (whole), _GATHER, _SCATTER or _FUSED */
  int variant;          /**< the backend's kernel variant (um_backend_variant_name; 0 its default) */
  double seconds;       /**< its fastest timed call (slowest rank); < 0: not timed (note says why) */
  char note[120];       /**< why it was not timed, or ""                   */
} um_tune_trial;
/** What tuning did for one loop. */
typedef struct {
  int state;            /**< 0 not tuned (note says why), 1 measured in this run, 2 read from the cache */
  int chosen;           /**< the setting kept: an index into trial (-1 if none) */
  int ntrials;          /**< settings listed                              */
  um_tune_trial trial[UM_TUNE_MAX_TRIALS]; /**< the settings, the first the loop's configured one */
  double seconds;       /**< wall time the trials took (their compiles included) */
  char note[256];       /**< a sentence: what was done and why            */
} um_tune_info;
/** What tuning did for loop i (as in um_loop_stats_get): 1 and *out filled if
 * run.tune looked at the loop (tuned or not, with why), 0 if it never did. */
int um_loop_tune_info(const um_context *ctx, int i, um_tune_info *out);
/** The name of the backend's kernel variant v (0: its default), or NULL if it
 * has no such variant. */
const char *um_backend_variant_name(const um_context *ctx, int v);
/** A tried setting in words, e.g. "atomics, block 256, whole" or "atomics, block
 * 128, whole, registers for one more block per SM" (the backend's default
 * kernel unnamed), into buf (n bytes); returns buf. */
const char *um_tune_trial_text(const um_context *ctx, const um_tune_trial *t, char *buf, size_t n);
/** Run one loop, by name, with the backend's kernel variant v (0: its default). */
int um_loop_set_variant(um_context *ctx, const char *loop_name, int v);

#ifdef __cplusplus
}
#endif

#endif
