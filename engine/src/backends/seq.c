/* The sequential backend: a plain loop over the set, the reference for all others. */
#include <stdlib.h>
#include "../core/internal.h"

static int seq_par_loop(um_context *ctx, um_loop *loop) {
  um_exec *x = malloc(sizeof *x);
  if (!x) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory running loop '%s'", loop->name);
  um__exec_init(x, loop);
  um__gbl_init(x, loop);
  if (loop->set->size > 0) loop->kernel->range(x, 0, loop->set->size);
  um__gbl_finish(loop, x);
  free(x);
  return UM_SUCCESS;
}

const um_backend_ops um_backend_seq_ops = {"seq", NULL, NULL, seq_par_loop, NULL};
