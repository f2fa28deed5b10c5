/* The last plan of a loop as a read-only view (um/stats.h: um_loop_plan_view): what tools draw. */
#include <string.h>
#include "internal.h"

int um_loop_plan_view(const um_context *ctx, int i, um_plan_view *out) {
  if (!ctx || !out || i < 0 || i >= ctx->nloops) return UM_ERR_ARG;
  memset(out, 0, sizeof *out);
  const um_loop_rec *r = &ctx->loops[i];
  const um_plan *p = r->last_plan;
  if (!p) return UM_ERR_UNSUPPORTED;
  out->begin = r->last_plan_begin;
  out->size = p->set_size;
  out->block_size = p->block_size;
  out->nblocks = p->nblocks;
  out->nblock_colours = p->nblock_colours;
  out->max_thread_colours = p->stats.max_thread_colours;
  out->block_offset = p->block_offset;
  out->block_colour = p->block_colour;
  out->nthread_colours = p->nthread_colours;
  out->thread_colour = p->thread_colour;
  return UM_SUCCESS;
}
