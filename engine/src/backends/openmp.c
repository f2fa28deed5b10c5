/* The OpenMP backend.
 *
 * Loops that write nothing through a map are split into chunks of block_size
 * elements shared among the threads. Loops that write (INC/RW/WRITE) through
 * a map run on the loop's plan: blocks of one block colour in parallel, one
 * block per thread at a time, colours in sequence, so no two threads ever
 * write the same target.
 *
 * Under strategy atomics, a loop whose only writes through maps are vector
 * increments (um_arg_vec INC) runs in chunks like a direct loop, without a
 * plan, each increment a compare-and-swap (um_vec_inc_d, um/kernel.h): for
 * stencils whose rows overlap many others' (SIAC's per element), where block
 * colouring needs many colours of few blocks. The order of the additions then
 * varies from run to run (round-off); run.reproducible keeps the colours.
 * Other loops stay coloured (the core refuses atomics set for one of them by
 * name: backend flag atomics_vec_only). Loops that increment a whole dat
 * (um_arg_whole) always run by atomics (the core sets their strategy), or on
 * one thread in element order under run.reproducible.
 *
 * Loops over fewer than openmp.parallel_threshold elements run the same way on one
 * thread: forking and a barrier per block colour cost more than they save.
 *
 * Global reductions are accumulated per chunk (block) and the partial results
 * combined in chunk order afterwards, so a reduction gives the same bits
 * whatever the number of threads or the schedule. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "um/backend.h"
#include "core/option_tables.h"
#include "plan/plan.h"
#include "host/host.h"
#include "host/hostc.h"

/* Run chunk k: elements [b, e); save its reduction partials into part (if any). */
static void run_chunk(const um_loop *loop, um_exec *x, int b, int e, double *part, int gwidth) {
  if (gwidth) um_exec_gbl_init(x, loop);
  if (e > b) um_exec_range(x, b, e);
  if (!gwidth) return;
  for (int i = 0, o = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_GBL || a->acc == UM_READ) continue;
    memcpy(part + o, x->scratch[i], (size_t)a->dim * um_type_size(a->type));
    o += a->dim;
  }
}

/* The backend's state: its settings, read once at um_init. */
typedef struct {
  int threshold; /* openmp.parallel_threshold */
} omp_state;

static int omp_run(um_context *ctx, void *state, um_loop *loop) {
  const omp_state *st = state;
  UM_BACKEND_CHECK(ctx, um__hostc_range(ctx, loop)); /* its range compiled for its arguments, where there is one */
  const double t0 = um_wtime();
  const um_options *opts = um_context_options(ctx);
  const um_plan *plan = NULL;
  const int conflicts = loop->has_conflicts && !loop->one_to_one;
  /* run.reproducible keeps the colours: vector arguments are never split, so their sums stay in a fixed order */
  const int atomics = conflicts && loop->strategy == UM_STRATEGY_ATOMICS && !um_context_reproducible(ctx) &&
                      um_loop_vec_incs_only(loop);
  /* increments to a whole dat (um_arg_whole) cannot be coloured: under run.reproducible, one thread in order */
  const int serial = conflicts && loop->has_whole_inc && um_context_reproducible(ctx) && um_loop_vec_incs_only(loop);
  if (conflicts && !atomics && !serial) UM_BACKEND_CHECK(ctx, um_loop_plan(ctx, loop, &plan));
  const int b0 = loop->begin, n = loop->end - loop->begin, bs = loop->block_size;
  const int nchunks = plan ? plan->nblocks : (int)(((long long)n + bs - 1) / bs); /* n, bs up to INT_MAX */
  int gwidth = 0; /* doubles per chunk of reduction partials */
  for (int i = 0; i < loop->nargs; i++)
    if (loop->args[i].kind == UM_ARG_GBL && loop->args[i].acc != UM_READ) gwidth += loop->args[i].dim;
  int nthreads = opts->nthreads > 0 ? opts->nthreads : omp_get_max_threads();
  /* a small loop costs less on one thread than a fork and a barrier per colour */
  if (n < (st ? st->threshold : um__openmp_threshold(opts)) || serial) nthreads = 1;
  um_exec *xs = malloc((size_t)nthreads * sizeof *xs);
  double *parts = gwidth ? malloc((size_t)(nchunks > 0 ? nchunks : 1) * (size_t)gwidth * sizeof(double)) : NULL;
  if (!xs || (gwidth && !parts)) {
    free(xs);
    free(parts);
    return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory running loop '%s'", loop->name);
  }
#pragma omp parallel num_threads(nthreads)
  {
    um_exec *x = &xs[omp_get_thread_num()];
    um_exec_init(x, loop);
    um_exec_gbl_init(x, loop);
    for (int i = 0; atomics && nthreads > 1 && i < loop->nargs; i++)
      if (x->a[i].kind == UM_X_VEC && x->a[i].acc == UM_INC) x->vec[i].atomic = 1;
    if (!plan) {
#pragma omp for schedule(static)
      for (int k = 0; k < nchunks; k++) {
        const long long lb = b0 + (long long)k * bs, le = lb + bs < (long long)b0 + n ? lb + bs : (long long)b0 + n;
        const int b = (int)lb, e = (int)le;
        run_chunk(loop, x, b, e, parts ? parts + (size_t)k * gwidth : NULL, gwidth);
      }
    } else {
      for (int c = 0; c < plan->nblock_colours; c++) {
#pragma omp for schedule(dynamic, 1)
        for (int k = plan->colour_offset[c]; k < plan->colour_offset[c + 1]; k++) {
          int blk = plan->block_order[k];
          run_chunk(loop, x, b0 + plan->block_offset[blk], b0 + plan->block_offset[blk + 1],
                    parts ? parts + (size_t)blk * gwidth : NULL, gwidth);
        }
        /* implicit barrier: colour c+1 starts when colour c is done */
      }
    }
  }
  /* combine the partials in chunk order: the same bits for any thread count */
  for (int k = 0; gwidth && k < nchunks; k++) {
    const double *part = parts + (size_t)k * gwidth;
    for (int i = 0, o = 0; i < loop->nargs; i++) {
      const um_arg *a = &loop->args[i];
      if (a->kind != UM_ARG_GBL || a->acc == UM_READ) continue;
      um_reduce_into(loop, i, part + o);
      o += a->dim;
    }
  }
  free(xs);
  free(parts);
  um__hostc_timed(ctx, loop, um_wtime() - t0);
  return UM_SUCCESS;
}

/* Targets are independent rows: chunks of them in parallel, each target's sum in its fixed order. */
static int omp_gather(um_context *ctx, void *state, const um_gather *g) {
  const omp_state *st = state;
  const um_options *opts = um_context_options(ctx);
  int nthreads = opts->nthreads > 0 ? opts->nthreads : omp_get_max_threads();
  if (g->ntargets < (st ? st->threshold : um__openmp_threshold(opts))) nthreads = 1;
  const int chunk = 1024, n = g->ntargets;
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int b = 0; b < n; b += chunk) um_exec_gather(g, b, b + chunk < n ? b + chunk : n);
  return UM_SUCCESS;
}

/* run.threads is bounded by um_init; the OpenMP default (OMP_NUM_THREADS) is bounded here, before the first loop */
static int omp_init(um_context *ctx, void **state) {
  *state = NULL;
  const um_options *opts = um_context_options(ctx);
  const int n = omp_get_max_threads();
  if (opts->nthreads == 0 && n > um_threads_max())
    return UM_BACKEND_ERROR(ctx, UM_ERR_ARG,
                    "OpenMP would run %d threads (OMP_NUM_THREADS), more than the %d allowed here (%d per core); set "
                    "OMP_NUM_THREADS or run.threads to at most %d",
                    n, um_threads_max(), UM_THREADS_PER_CORE, um_threads_max());
  omp_state *st = malloc(sizeof *st);
  if (!st) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory starting the OpenMP backend");
  st->threshold = um__openmp_threshold(opts);
  *state = st;
  return UM_SUCCESS;
}

static void omp_finalize(um_context *ctx, void *state) {
  um__host_finalize(ctx, NULL);
  free(state);
}

/* Blocks by block colour (auto, coloured, hierarchical), or atomics for vector increments (see the top). */
static int omp_strategy(um_context *ctx, void *state, um_strategy want, um_strategy *out) {
  if (want == UM_STRATEGY_ATOMICS) {
    *out = want;
    return UM_SUCCESS;
  }
  if (want != UM_STRATEGY_GLOBAL) return um__host_strategy(ctx, state, want, out);
  return UM_BACKEND_ERROR(ctx, UM_ERR_UNSUPPORTED,
                  "strategy '%s' needs the cuda backend; the openmp backend runs blocks by block colour (strategy "
                  "auto, coloured or hierarchical), or vector increments by atomics (strategy atomics)",
                  um_strategy_name(want));
}

const um_backend_def um_backend_openmp = {
    .name = "openmp",
    .caps.ranges = 1,
    .caps.host_code = 1,
    .caps.contrib_store = 1,
    .caps.contrib_drop = 1,
    .caps.block_sized = 1,
    .caps.atomics_vec_only = 1,
    .priority = 20,
    .description = "OpenMP threads on the CPU; indirect increments by block colour (vector increments: atomics too)",
    .exec.init = omp_init,
    .exec.finalize = omp_finalize,
    .exec.strategy = omp_strategy,
    .exec.run = omp_run,
    .extras.gather = omp_gather,
};
