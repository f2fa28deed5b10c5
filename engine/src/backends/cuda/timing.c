/* Timing with CUDA events, synchronisation, and the copy benchmark. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "../../util/array.h"
#include "um/cuda.h"

/* ---- timing ---------------------------------------------------------------------- */

int cu_get_event(um_context *ctx, cudaEvent_t *ev) {
  cu_state *S = ST(ctx);
  if (S->nfree > 0) {
    *ev = S->free_events[--S->nfree];
    return UM_SUCCESS;
  }
  CU(ctx, cudaEventCreate(ev), "creating a timing event");
  return UM_SUCCESS;
}

static int put_event(um_context *ctx, cudaEvent_t ev) {
  cu_state *S = ST(ctx);
  if (UM_GROW(S->free_events, S->capfree, S->nfree)) {
    cudaEventDestroy(ev);
    return UM_SUCCESS;
  }
  S->free_events[S->nfree++] = ev;
  return UM_SUCCESS;
}

/* After the stream was synchronised: add the timings of finished loops. */
static int resolve_timings(um_context *ctx) {
  cu_state *S = ST(ctx);
  for (int i = 0; i < S->npending; i++) {
    cu_timing *t = &S->pending[i];
    float ms = 0;
    CU(ctx, cudaEventElapsedTime(&ms, t->start, t->stop), "reading the timing events of loop '%s'", t->name);
    um_backend_loop_time(ctx, t->rec, 1e-3 * ms);
    put_event(ctx, t->start);
    put_event(ctx, t->stop);
  }
  S->npending = 0;
  /* halos sent GPU to GPU and waited for: how long each moved, and how much of that the core work hid */
  int keep = 0;
  for (int i = 0; i < S->nhalo_t; i++) {
    cu_halo_timing *h = &S->halo_t[i];
    if (!h->waited) {
      S->halo_t[keep++] = *h;
      continue;
    }
    float total = 0, exposed = 0;
    CU(ctx, cudaEventElapsedTime(&total, h->start, h->stop), "reading the timing events of a halo exchange");
    CU(ctx, cudaEventElapsedTime(&exposed, h->core, h->stop), "reading the timing events of a halo exchange");
    exposed = exposed < 0 ? 0 : exposed > total ? total : exposed;
    um_backend_halo_time(ctx, h->id, 1e-3 * exposed, 1e-3 * (total - exposed));
    put_event(ctx, h->start);
    put_event(ctx, h->stop);
    put_event(ctx, h->core);
  }
  S->nhalo_t = keep;
  return UM_SUCCESS;
}

int cu_sync(um_context *ctx, void *state) {
  cu_state *S = state ? state : ST(ctx);
  if (!S) return UM_SUCCESS;
  cudaError_t e = cudaStreamSynchronize(S->stream);
  if (e != cudaSuccess)
    return cu_fail(ctx, e, __FILE__, __LINE__, "waiting for the GPU (the last loop launched was '%s'; run with "
                   "compute-sanitizer to find the failing access)", S->last_loop ? S->last_loop : "none");
  UM_CHECK(ctx, resolve_timings(ctx));
  return UM_SUCCESS;
}


int um_cuda_copy_bandwidth(um_context *ctx, double *gbs) {
  if (!ctx || !gbs) return UM_ERR_ARG;
  if (strcmp(um_context_backend(ctx), "cuda") != 0 || !ST(ctx))
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED, "um_cuda_copy_bandwidth: the context does not run on the CUDA backend");
  cu_state *S = ST(ctx);
  if (S->copy_gbs > 0) {
    *gbs = S->copy_gbs;
    return UM_SUCCESS;
  }
  UM_CHECK(ctx, cu_sync(ctx, NULL));
  const size_t bytes = (size_t)256 << 20;
  void *a = NULL, *b = NULL;
  UM_CHECK(ctx, cu_dalloc(ctx, &a, bytes, "the copy benchmark", "a"));
  int rc = cu_dalloc(ctx, &b, bytes, "the copy benchmark", "b");
  cudaEvent_t e0 = NULL, e1 = NULL;
  float ms[20];
  const int reps = 20;
  if (rc == UM_SUCCESS && (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess))
    rc = UM_ERROR(ctx, UM_ERR_BACKEND, "CUDA: cannot create events for the copy benchmark");
  if (rc == UM_SUCCESS) {
    cudaMemsetAsync(a, 1, bytes, S->stream);
    for (int i = 0; i < 3; i++) cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, S->stream);
    for (int i = 0; i < reps && rc == UM_SUCCESS; i++) {
      cudaEventRecord(e0, S->stream);
      cudaMemcpyAsync(i % 2 ? a : b, i % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice, S->stream);
      cudaEventRecord(e1, S->stream);
      cudaError_t e = cudaEventSynchronize(e1);
      if (e == cudaSuccess) e = cudaEventElapsedTime(&ms[i], e0, e1);
      if (e != cudaSuccess) rc = cu_fail(ctx, e, __FILE__, __LINE__, "timing the copy benchmark");
    }
  }
  if (rc == UM_SUCCESS) {
    for (int i = 1; i < reps; i++) /* sort for the median */
      for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
        float t = ms[j];
        ms[j] = ms[j - 1];
        ms[j - 1] = t;
      }
    double med = 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    S->copy_gbs = 2.0 * (double)bytes / (1e-3 * med) * 1e-9;
    *gbs = S->copy_gbs;
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  return rc;
}


/* um_context_device_info on the CUDA backend (the copy bandwidth measured once). */
int cu_device_info(um_context *ctx, void *state, um_device_info *out) {
  const cu_state *S = state;
  if (!S) return UM_ERR_UNSUPPORTED;
  snprintf(out->name, sizeof out->name, "%s", S->prop.name);
  snprintf(out->compute_capability, sizeof out->compute_capability, "%d.%d", S->prop.major, S->prop.minor);
  out->multiprocessors = S->prop.multiProcessorCount;
  out->memory_bytes = (double)S->prop.totalGlobalMem;
  int dv = 0, rv = 0;
  cudaDriverGetVersion(&dv);
  cudaRuntimeGetVersion(&rv);
  snprintf(out->driver, sizeof out->driver, "%d.%d", dv / 1000, dv % 1000 / 10);
  snprintf(out->runtime, sizeof out->runtime, "%d.%d", rv / 1000, rv % 1000 / 10);
  snprintf(out->profile, sizeof out->profile, "%s", S->profile ? S->profile->name : "");
  double gbs = 0;
  if (um_cuda_copy_bandwidth(ctx, &gbs) == UM_SUCCESS) out->copy_gbs = gbs;
  else um_error_clear(ctx);
  return UM_SUCCESS;
}
