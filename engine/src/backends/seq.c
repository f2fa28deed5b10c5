/* The sequential backend: a plain loop over the range, the reference for all others. Like openmp, it runs
 * a loop's range compiled for its arguments where the host compiler has one (host/hostc.c). */
#include <stdlib.h>
#include "um/backend.h"
#include "host/host.h"
#include "host/hostc.h"

int um__host_strategy(um_context *ctx, void *state, um_strategy want, um_strategy *out) {
  (void)state;
  if (want == UM_STRATEGY_AUTO || want == UM_STRATEGY_COLOURED || want == UM_STRATEGY_HIERARCHICAL) {
    *out = UM_STRATEGY_COLOURED;
    return UM_SUCCESS;
  }
  return UM_BACKEND_ERROR(ctx, UM_ERR_UNSUPPORTED,
                  "strategy '%s' needs the cuda backend; the %s backend runs blocks by block colour (strategy auto, "
                  "coloured or hierarchical)",
                  um_strategy_name(want), um_context_backend(ctx));
}

/* The host backends' finalize: their compiled loops go with the context. */
void um__host_finalize(um_context *ctx, void *state) {
  (void)state;
  um__hostc_free(ctx);
}

static int seq_run(um_context *ctx, void *state, um_loop *loop) {
  (void)state;
  UM_BACKEND_CHECK(ctx, um__hostc_range(ctx, loop));
  const double t0 = um_wtime();
  um_exec *x = malloc(sizeof *x);
  if (!x) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory running loop '%s'", loop->name);
  um_exec_init(x, loop);
  um_exec_gbl_init(x, loop);
  if (loop->end > loop->begin) um_exec_range(x, loop->begin, loop->end);
  um_exec_reduce(loop, x);
  free(x);
  um__hostc_timed(ctx, loop, um_wtime() - t0);
  return UM_SUCCESS;
}

static int seq_gather(um_context *ctx, void *state, const um_gather *g) {
  (void)ctx;
  (void)state;
  um_exec_gather(g, 0, g->ntargets);
  return UM_SUCCESS;
}

const um_backend_def um_backend_seq = {
    .name = "seq",
    .caps.ranges = 1,
    .caps.host_code = 1,
    .caps.contrib_store = 1,
    .caps.contrib_drop = 1,
    .priority = 10,
    .description = "sequential, one core: the reference",
    .exec.finalize = um__host_finalize,
    .exec.strategy = um__host_strategy,
    .exec.run = seq_run,
    .extras.gather = seq_gather,
};
