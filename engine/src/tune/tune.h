/* Per-loop auto-tuning (tune.c, tune_cache.c): run.tune, above the pipeline (core/pass.h: um_tuner). */
#ifndef UM_TUNE_TUNE_H
#define UM_TUNE_TUNE_H

#include "core/internal.h"
#include "core/pass.h"

/* The tuner as the pipeline calls it (engine/src/passes.c installs it). */
extern const um_tuner um__tuner;

/* At a loop's first call with run.tune on, its settings tried (the pipeline's pieces: its halos exchanged,
 * then trials) and the fastest kept as the loop's overrides. */
int um__tune_loop(um_context *ctx, um_loop *loop, const um_pipeline *pipeline);
/* run.tune's cache file (tune_cache.c): the last valid line of `path` for `key` whose settings are T's listing
 * (then the kernel variants tried with one of them) into T; 1 and *line its number, or 0. Bad lines are skipped
 * with a note naming the file and line: every bad line when note_all (a run's first read), else only this key's.
 * um__tune_cache_write appends T's choice (a failure is a note). Neither fails a run. */
int um__tune_cache_read(um_context *ctx, const char *path, uint64_t key, um_tune_info *T, int note_all, int *line);
void um__tune_cache_write(um_context *ctx, const char *path, uint64_t key, const char *loop, const um_tune_info *T);

#endif
