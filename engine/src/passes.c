/* The passes a context gets (core/pass.h), one line each, as core/backend_list.h lists the backends:
 * the pipeline's transform pass (stage 3 of um_par_loop) and the tuner above it (run.tune). Called once
 * by um_init. The distributed operations are not listed here: um_distribute sets them (distributed/). */
#include "core/pass.h"
#include "transform/split.h"
#include "tune/tune.h"

void um__passes_install(um_context *ctx) {
  ctx->transform = &um__split_pass; /* automatic loop splitting (transform/split.c) */
  ctx->tuner = &um__tuner;          /* per-loop auto-tuning (tune/tune.c) */
}
