/* um/cuda.h: generating and compiling a loop's kernel without a GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "um/cuda.h"

/* ---- code generation without a GPU (um/cuda.h) --------------------------------- */

void um_cuda_gen_options_default(um_cuda_gen_options *o) {
  memset(o, 0, sizeof *o);
  o->strategy = UM_STRATEGY_AUTO;
  o->layout = -1;
  o->arch = 90;
}

static int is_cuda(const um_context *ctx) { return strcmp(um_context_backend(ctx), "cuda") == 0; }

/* The loop as it last ran, with the strategy and staging to generate it for:
 * the options', else the loop's or the context's on a CUDA context, else
 * hierarchical (the strategy rule of profiles.c, without a device). */
static int recorded_loop(um_context *ctx, const char *name, const um_cuda_gen_options *o, um_loop *loop,
                         um_strategy *s, cu_staging *staging) {
  UM_BACKEND_CHECK(ctx, um_loop_recorded(ctx, name, loop));
  if (o->block_size > 0) loop->block_size = o->block_size;
  um_strategy want = o->strategy;
  if (want == UM_STRATEGY_AUTO) want = loop->strategy;
  if (want == UM_STRATEGY_AUTO && is_cuda(ctx)) want = um_context_strategy(ctx);
  UM_BACKEND_CHECK(ctx, cu_strategy(ctx, NULL, want, s));
  *staging = o->staging >= 1 && o->staging <= 3  ? (cu_staging)o->staging
             : *s == UM_STRATEGY_ATOMICS ? CU_STAGING_NONE
                                         : CU_STAGING_INC;
  loop->strategy = *s;
  return UM_SUCCESS;
}

int um_cuda_generate_loop(um_context *ctx, const char *loop_name, const um_cuda_gen_options *o, char **source) {
  if (!ctx || !loop_name || !source) return UM_ERR_ARG;
  *source = NULL;
  um_cuda_gen_options def;
  if (!o) um_cuda_gen_options_default(&def), o = &def;
  um_loop loop;
  um_strategy s = UM_STRATEGY_HIERARCHICAL;
  cu_staging staging = CU_STAGING_INC;
  int threads = 1;
  UM_BACKEND_CHECK(ctx, recorded_loop(ctx, loop_name, o, &loop, &s, &staging));
  if (o->fused) loop.fused = 1;
  cu_mode mode = cu_choose_mode(&loop, s, staging);
  UM_BACKEND_CHECK(ctx, cu_threads_for(ctx, &loop, mode.exec, &threads));
  mode.warp_combine = o->warp_combine; /* umc_find_pairs pairs only where it applies: flat atomics */
  umc_loop *L = malloc(sizeof *L);
  umc_decisions *D = malloc(sizeof *D);
  const um_dat *dats[UM_MAX_ARGS];
  const um_map *maps[UM_MAX_ARGS];
  int rc = L && D ? UM_SUCCESS : UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  if (rc == UM_SUCCESS) rc = cu_describe(ctx, &loop, mode, threads, o->layout, L, dats, maps);
  if (rc == UM_SUCCESS) rc = cu_gen_source(ctx, L, D, source);
  free(L);
  free(D);
  if (rc != UM_SUCCESS) return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  return UM_SUCCESS;
}

int um_cuda_compile_loop(um_context *ctx, const char *loop_name, const um_cuda_gen_options *o, double *seconds,
                         size_t *cubin_bytes) {
  if (!ctx || !loop_name) return UM_ERR_ARG;
  um_cuda_gen_options def;
  if (!o) um_cuda_gen_options_default(&def), o = &def;
  char *src = NULL;
  UM_BACKEND_CHECK(ctx, um_cuda_generate_loop(ctx, loop_name, o, &src));
  um_loop loop;
  UM_BACKEND_CHECK(ctx, um_loop_recorded(ctx, loop_name, &loop));
  if (!umj_arch_supported(o->arch)) {
    free(src);
    return UM_BACKEND_ERROR(ctx, UM_ERR_UNSUPPORTED, "NVRTC of this toolkit cannot build code for sm_%d", o->arch);
  }
  const char *hn[2], *hs[2];
  umj_request rq;
  umj_result res;
  cu_jit_request(ctx, loop.kernel, loop_name, src, o->arch, o->ptx != 0, NULL, um_context_options(ctx)->verbose >= 2,
                 hn, hs, &rq);
  rq.quick = o->quick != 0;
  char err[3000] = "";
  int rc = umj_compile(&rq, &res, err, sizeof err);
  free(src);
  if (rc != UM_SUCCESS) return UM_BACKEND_ERROR(ctx, rc, "%s", err);
  if (seconds) *seconds = res.seconds;
  if (cubin_bytes) *cubin_bytes = res.bytes;
  umj_result_free(&res);
  return UM_SUCCESS;
}

int um_cuda_nvrtc_version(int *major, int *minor) { return umj_nvrtc_version(major, minor); }
int um_cuda_arch_supported(int arch) { return umj_arch_supported(arch); }
