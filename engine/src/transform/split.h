/* Automatic loop splitting (split.c), the pipeline's transform pass (core/pass.h: um_transform_pass). */
#ifndef UM_TRANSFORM_SPLIT_H
#define UM_TRANSFORM_SPLIT_H

#include "core/internal.h"
#include "core/pass.h"

/* The pass as the pipeline calls it (engine/src/passes.c installs it). */
extern const um_transform_pass um__split_pass;

/* um__split_prepare decides for this call of the loop (record rec_id) and returns the split's state (a
 * struct um_split_state), or NULL to run the loop whole; um__split_run runs elements [piece->begin,
 * piece->end) of the split loop (contributions, and with SCATTER their increments), copying the piece's
 * reduction partials back; um__split_finish runs what follows all pieces (GATHER's increments, exact
 * reductions) for elements [0, loop->end); um__split_timed takes the call's time (auto's measurements). */
int um__split_prepare(um_context *ctx, um_loop *loop, int rec_id, void **out);
int um__split_run(um_context *ctx, void *state, um_loop *piece);
int um__split_finish(um_context *ctx, void *state, um_loop *loop);
void um__split_timed(um_context *ctx, int rec_id, double seconds);
int um__split_measuring(const um_context *ctx, int rec_id); /* auto is timing this loop's calls */
/* 1 if the loop can be split (tuning: which variants to try): *gather 1 if the backend gathers (else its
 * split scatters), *fused 1 if it can also split inside its launches (FUSED) */
int um__split_variants(const um_context *ctx, const um_loop *loop, int *gather, int *fused);
void um__split_free(um_context *ctx);

#endif
