/* Compiled host loops (hostc.c), consulted by the host backends (seq, openmp) in their run, and freed by
 * their finalize. */
#ifndef UM_BACKENDS_HOST_HOSTC_H
#define UM_BACKENDS_HOST_HOSTC_H

#include "core/internal.h"

/* Before the backend runs a piece of a loop's call: loop->compiled set when the loop's range is compiled
 * for its arguments (starting or advancing its compile as the context's compile mode says, from the
 * loop's time so far). The range is chosen once per call of the loop (its record's memo, um_hostc_memo),
 * so every piece of a call runs the same one; the record counts the calls that ran a compiled range. */
int um__hostc_range(um_context *ctx, um_loop *loop);
/* After it: the piece's time; a call's pieces summed choose between the scalar and SIMD ranges. */
void um__hostc_timed(um_context *ctx, const um_loop *loop, double seconds);
/* Free them with the context (a compile still running is stopped). */
void um__hostc_free(um_context *ctx);

#endif
