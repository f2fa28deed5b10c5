/* Timing with CUDA events and synchronisation (cu_sync: the stream drained, the finished loops'
 * and halos' times read), and the events lazy reductions wait for. Calls go one way: device_data.c and
 * device_info.c call into this file; it calls only the error wrapper (cuda_error.c). */
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

int cu_put_event(um_context *ctx, cudaEvent_t ev) {
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
    if (!(t->owned & 1)) cu_put_event(ctx, t->start);
    if (!(t->owned & 2)) cu_put_event(ctx, t->stop);
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
    cu_put_event(ctx, h->start);
    cu_put_event(ctx, h->stop);
    cu_put_event(ctx, h->core);
  }
  S->nhalo_t = keep;
  return UM_SUCCESS;
}

int cu_sync(um_context *ctx, void *state) {
  cu_state *S = state ? state : ST(ctx);
  if (!S) return UM_SUCCESS;
  UM_BACKEND_CHECK(ctx, cu_flush(ctx, S));
  cudaError_t e = cudaStreamSynchronize(S->stream);
  if (e != cudaSuccess)
    return cu_fail(ctx, e, __FILE__, __LINE__, "waiting for the GPU (the last loop launched was '%s'; run with "
                   "compute-sanitizer to find the failing access)", S->last_loop ? S->last_loop : "none");
  UM_BACKEND_CHECK(ctx, resolve_timings(ctx));
  S->syncs++;
  return UM_SUCCESS;
}

/* ---- lazy reductions' marks (um_backend_def.reduction_mark): an event recorded after the loop ---- */

int cu_reduction_mark(um_context *ctx, void *state, void **mark) {
  (void)ctx;
  cu_state *S = state;
  if (!S || S->graphs) return 0; /* a recorded segment is launched later: um_reduction_get syncs (launching it) */
  cudaEvent_t ev = (cudaEvent_t)*mark;
  if (!ev && cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  *mark = (void *)ev;
  if (cudaEventRecord(ev, S->stream) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return 1;
}

int cu_reduction_wait(um_context *ctx, void *state, void *mark) {
  cu_state *S = state;
  cudaError_t e = cudaEventSynchronize((cudaEvent_t)mark);
  if (e != cudaSuccess)
    return cu_fail(ctx, e, __FILE__, __LINE__, "waiting for a lazy reduction (the last loop launched was '%s'; run "
                   "with compute-sanitizer to find the failing access)", S && S->last_loop ? S->last_loop : "none");
  return UM_SUCCESS;
}

void cu_reduction_mark_free(um_context *ctx, void *state, void *mark) {
  (void)ctx, (void)state;
  if (mark) cudaEventDestroy((cudaEvent_t)mark);
}
