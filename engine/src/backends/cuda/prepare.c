/* Compiling ahead (um_backend_def.prepare): the modules a set of loops will need, compiled by NVRTC in
 * parallel threads into the module cache (cuda.cache), so that the loops' first runs only load them.
 * run.tune (core/tune.c) hands it every setting of a loop it is about to try: the first tuned run of LULESH
 * compiles about 15 settings of each loop, one after the other otherwise.
 *
 * Only what umj_compile does runs in the threads (NVRTC and the cache file, both safe to run side by
 * side: each cache entry is written to a unique temporary and renamed); describing the loop and generating
 * its source stay on the calling thread, and nothing is loaded or launched. A setting that cannot be
 * prepared (its strategy refused, a generation error, a compile error) is left for its run, which reports
 * it as usual. Calls go one way: this file calls kernel_build.c, launch.c (cu_find_kern) and jit.c. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_internal.h"

typedef struct {
  umj_request rq;
  const char *hn[2], *hs[2];
  char *src;
} prep_job;

typedef struct {
  prep_job *jobs;
  int n, next;
  pthread_mutex_t mu;
} prep_pool;

static void *prep_worker(void *p) {
  prep_pool *P = p;
  for (;;) {
    pthread_mutex_lock(&P->mu);
    const int i = P->next++;
    pthread_mutex_unlock(&P->mu);
    if (i >= P->n) return NULL;
    umj_result r;
    char err[256];
    if (umj_compile(&P->jobs[i].rq, &r, err, sizeof err) == UM_SUCCESS) umj_result_free(&r);
  }
}

/* The job of one loop, or 0 if it has nothing to compile (already built, or it cannot be prepared). */
static int make_job(um_context *ctx, cu_state *S, um_loop *loop, prep_job *j) {
  if (loop->end <= loop->begin || loop->variant) return 0; /* a variant is built from its default (launch.c) */
  cu_mode mode;
  int threads;
  cu_key key;
  if (cu_loop_settings(ctx, S, loop, &mode, &threads, &key) != UM_SUCCESS || cu_find_kern(S, &key)) return 0;
  umc_loop L;
  umc_decisions D;
  const um_dat *dats[UM_MAX_ARGS];
  const um_map *maps[UM_MAX_ARGS];
  if (cu_describe(ctx, loop, mode, threads, -1, &L, dats, maps) != UM_SUCCESS) return 0;
  L.loop_name = loop->name;
  if (cu_gen_source(ctx, &L, &D, &j->src) != UM_SUCCESS) {
    free(j->src);
    j->src = NULL;
    return 0;
  }
  cu_jit_request(ctx, loop->kernel, loop->name, j->src, S->jit_arch, S->jit_ptx, S->cache_dir, 0, j->hn, j->hs, &j->rq);
  j->rq.header_names = j->hn; /* the job's own arrays: they outlive this call */
  j->rq.header_sources = j->hs;
  j->rq.no_fma = S->no_fma || um_context_reproducible(ctx); /* as cu_build_kern asks, so the cache entry is its */
  j->rq.log = NULL; /* no messages from the threads: the loop's own run reports a failed compile */
  return 1;
}

int cu_prepare(um_context *ctx, void *state, um_loop *const *loops, int n) {
  cu_state *S = state;
  if (!S || !S->cache_dir[0] || n < 2 || S->compile_threads == 1)
    return UM_SUCCESS; /* nowhere to keep the modules, nothing to overlap, or asked not to */
  char keep[UM_ERRMSG_LEN];
  memcpy(keep, um_error_message(ctx), sizeof keep);
  prep_job *jobs = calloc((size_t)n, sizeof *jobs);
  if (!jobs) return UM_SUCCESS; /* only a missed speed-up */
  int nj = 0;
  for (int i = 0; i < n; i++) nj += make_job(ctx, S, loops[i], &jobs[nj]);
  long cores = S->compile_threads > 1 ? S->compile_threads : sysconf(_SC_NPROCESSORS_ONLN);
  int nt = nj < (int)(cores > 0 ? cores : 1) ? nj : (int)(cores > 0 ? cores : 1);
  prep_pool P = {jobs, nj, 0, PTHREAD_MUTEX_INITIALIZER};
  pthread_t tid[64];
  if (nt > 64) nt = 64;
  int started = 0;
  for (; started < nt - 1; started++)
    if (pthread_create(&tid[started], NULL, prep_worker, &P) != 0) break;
  prep_worker(&P); /* this thread works too */
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
  for (int i = 0; i < n; i++) free(jobs[i].src);
  free(jobs);
  um_error_set(ctx, UM_SUCCESS, "%s", keep); /* settings that could not be prepared were questions, not errors */
  return UM_SUCCESS;
}
