/* The OpenMP backend.
 *
 * Loops that write nothing through a map are split into chunks of block_size
 * elements shared among the threads. Loops that write (INC/RW/WRITE) through
 * a map run on the loop's plan: blocks of one block colour in parallel, one
 * block per thread at a time, colours in sequence, so no two threads ever
 * write the same target.
 *
 * Loops over fewer than parallel_threshold elements run the same way on one
 * thread: forking and a barrier per block colour cost more than they save.
 *
 * Global reductions are accumulated per chunk (block) and the partial results
 * combined in chunk order afterwards, so a reduction gives the same bits
 * whatever the number of threads or the schedule. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "../core/internal.h"

static int omp_init(um_context *ctx) {
  if (ctx->opts.nthreads < 0)
    return UM_ERROR(ctx, UM_ERR_ARG, "nthreads %d is negative; use 0 for the OpenMP default", ctx->opts.nthreads);
  return UM_SUCCESS;
}

/* Run chunk k: elements [b, e); save its reduction partials into part (if any). */
static void run_chunk(const um_loop *loop, um_exec *x, int b, int e, double *part, int gwidth) {
  if (gwidth) um__gbl_init(x, loop);
  if (e > b) loop->kernel->range(x, b, e);
  if (!gwidth) return;
  for (int i = 0, o = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_GBL || a->acc == UM_READ) continue;
    memcpy(part + o, x->scratch[i], (size_t)a->dim * um_type_size(a->type));
    o += a->dim;
  }
}

static int omp_par_loop(um_context *ctx, um_loop *loop) {
  const um_plan *plan = NULL;
  if (loop->has_conflicts) UM_CHECK(ctx, um__get_plan(ctx, loop, &plan));
  const int n = loop->set->size, bs = loop->block_size;
  const int nchunks = plan ? plan->nblocks : (n + bs - 1) / bs;
  int gwidth = 0; /* doubles per chunk of reduction partials */
  for (int i = 0; i < loop->nargs; i++)
    if (loop->args[i].kind == UM_ARG_GBL && loop->args[i].acc != UM_READ) gwidth += loop->args[i].dim;
  int nthreads = ctx->opts.nthreads > 0 ? ctx->opts.nthreads : omp_get_max_threads();
  /* a small loop costs less on one thread than a fork and a barrier per colour */
  if (n < ctx->opts.parallel_threshold) nthreads = 1;
  um_exec *xs = malloc((size_t)nthreads * sizeof *xs);
  double *parts = gwidth ? malloc((size_t)(nchunks > 0 ? nchunks : 1) * (size_t)gwidth * sizeof(double)) : NULL;
  if (!xs || (gwidth && !parts)) {
    free(xs);
    free(parts);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory running loop '%s'", loop->name);
  }
#pragma omp parallel num_threads(nthreads)
  {
    um_exec *x = &xs[omp_get_thread_num()];
    um__exec_init(x, loop);
    um__gbl_init(x, loop);
    if (!plan) {
#pragma omp for schedule(static)
      for (int k = 0; k < nchunks; k++) {
        int b = k * bs, e = b + bs < n ? b + bs : n;
        run_chunk(loop, x, b, e, parts ? parts + (size_t)k * gwidth : NULL, gwidth);
      }
    } else {
      for (int c = 0; c < plan->nblock_colours; c++) {
#pragma omp for schedule(dynamic, 1)
        for (int k = plan->colour_offset[c]; k < plan->colour_offset[c + 1]; k++) {
          int blk = plan->block_order[k];
          run_chunk(loop, x, plan->block_offset[blk], plan->block_offset[blk + 1],
                    parts ? parts + (size_t)blk * gwidth : NULL, gwidth);
        }
        /* implicit barrier: colour c+1 starts when colour c is done */
      }
    }
  }
  if (gwidth) {
    /* combine partials in chunk order into a fresh accumulator */
    um_exec *acc = &xs[0], *tmp = nthreads > 1 ? &xs[1] : NULL;
    um_exec *tmp_own = NULL;
    if (!tmp) tmp = tmp_own = malloc(sizeof *tmp);
    if (!tmp) {
      free(xs);
      free(parts);
      return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory combining the reductions of loop '%s'", loop->name);
    }
    um__exec_init(acc, loop);
    um__gbl_init(acc, loop);
    um__exec_init(tmp, loop);
    for (int k = 0; k < nchunks; k++) {
      const double *part = parts + (size_t)k * gwidth;
      for (int i = 0, o = 0; i < loop->nargs; i++) {
        const um_arg *a = &loop->args[i];
        if (a->kind != UM_ARG_GBL || a->acc == UM_READ) continue;
        memcpy(tmp->scratch[i], part + o, (size_t)a->dim * um_type_size(a->type));
        o += a->dim;
      }
      um__gbl_combine(loop, acc, tmp);
    }
    um__gbl_finish(loop, acc);
    free(tmp_own);
  }
  free(xs);
  free(parts);
  return UM_SUCCESS;
}

const um_backend_ops um_backend_openmp_ops = {"openmp", omp_init, NULL, omp_par_loop, NULL};
