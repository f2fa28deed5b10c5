/* Host -> device copies of large arrays (dats, maps) through pinned staging buffers that several host threads
 * fill at once (cuda.upload_threads). A copy from pageable memory goes at the speed of one host thread copying
 * into the driver's own staging: 4-7 GB/s on the lent H100 host, against 19-25 GB/s with four threads each filling
 * two pinned 2 MB chunks while the copy engine drains the others (docs/benchmarks.md, "Uploads"). That is most of
 * a large case's first step (miniAero 2.1M cells: 1.14 GB of dats and maps).
 *
 * Ordering is the main stream's: the staging streams wait for the work queued on it before the copy (an event),
 * and the main stream waits for theirs after it, so kernels queued later see the data; the call returns once every
 * byte has left the host array (the pinned chunks are the only thing still being read), as cudaMemcpyAsync from
 * pageable memory does. Small copies, the first CU_STAGE_AFTER bytes of a run, and every copy when the staging
 * cannot be set up (no pinned memory) go the plain way. Calls go one way: device_data.c calls this file. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "../../util/trace.h"

/* Chunks of 2 MB, two per thread; copies of 16 MB or more are staged once the run has copied 64 MB the plain way:
 * pinning the buffers costs about 10 ms (measured), which smaller cases would not win back (Airfoil 720K copies
 * 37 MB in all: 9 ms plain, 19 ms with the buffers made). */
enum { CU_STAGE_CHUNK = 2 << 20, CU_STAGE_MIN = 16 << 20, CU_STAGE_AFTER = 64 << 20 };

typedef struct {
  cudaStream_t stream;
  void *buf[2];
  cudaEvent_t used[2], done;
} cu_stage_worker;

typedef struct cu_stager cu_stager;
struct cu_stager {
  int n;
  cu_stage_worker *w;
  cudaEvent_t start;
};

typedef struct {
  const cu_state *S;
  cu_stage_worker *w;
  int i, n;
  char *d;
  const char *h;
  size_t bytes;
  cudaError_t err;
} cu_stage_job;

void cu_stager_free(cu_stager *G) {
  if (!G) return;
  for (int i = 0; i < G->n; i++) {
    cu_stage_worker *w = &G->w[i];
    if (w->stream) cudaStreamSynchronize(w->stream);
    for (int b = 0; b < 2; b++) {
      if (w->buf[b]) cudaFreeHost(w->buf[b]);
      if (w->used[b]) cudaEventDestroy(w->used[b]);
    }
    if (w->done) cudaEventDestroy(w->done);
    if (w->stream) cudaStreamDestroy(w->stream);
  }
  if (G->start) cudaEventDestroy(G->start);
  free(G->w);
  free(G);
}

/* The stager of S->upload_threads workers, made at the first large copy; NULL if it cannot be (the copies then
 * go the plain way, and it is not tried again). */
static cu_stager *stager(cu_state *S) {
  if (S->stager || S->upload_threads < 2) return S->stager;
  cu_stager *G = calloc(1, sizeof *G);
  if (G) G->w = calloc((size_t)S->upload_threads, sizeof *G->w);
  int ok = G && G->w && cudaEventCreateWithFlags(&G->start, cudaEventDisableTiming) == cudaSuccess;
  for (int i = 0; ok && i < S->upload_threads; i++, G->n++) {
    cu_stage_worker *w = &G->w[i];
    ok = cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking) == cudaSuccess &&
         cudaEventCreateWithFlags(&w->done, cudaEventDisableTiming) == cudaSuccess;
    for (int b = 0; ok && b < 2; b++)
      ok = cudaMallocHost(&w->buf[b], CU_STAGE_CHUNK) == cudaSuccess &&
           cudaEventCreateWithFlags(&w->used[b], cudaEventDisableTiming) == cudaSuccess;
  }
  if (!ok) {
    cudaGetLastError();
    cu_stager_free(G);
    S->upload_threads = 0;
    return NULL;
  }
  return S->stager = G;
}

/* One worker: chunks i, i + n, i + 2n, ... of the copy, through its two pinned buffers in turn. */
static void *stage_worker(void *p) {
  cu_stage_job *J = p;
  cu_stage_worker *w = J->w;
  cudaError_t e = cudaSetDevice(J->S->device);
  const size_t chunks = (J->bytes + CU_STAGE_CHUNK - 1) / CU_STAGE_CHUNK;
  int b = 0;
  for (size_t c = (size_t)J->i; e == cudaSuccess && c < chunks; c += (size_t)J->n, b ^= 1) {
    const size_t off = c * CU_STAGE_CHUNK, m = J->bytes - off < CU_STAGE_CHUNK ? J->bytes - off : CU_STAGE_CHUNK;
    e = cudaEventSynchronize(w->used[b]); /* the buffer's previous chunk has reached the GPU */
    if (e != cudaSuccess) break;
    memcpy(w->buf[b], J->h + off, m);
    e = cudaMemcpyAsync(J->d + off, w->buf[b], m, cudaMemcpyHostToDevice, w->stream);
    if (e == cudaSuccess) e = cudaEventRecord(w->used[b], w->stream);
  }
  J->err = e;
  return NULL;
}

static int copy_in(um_context *ctx, void *d, const void *h, size_t bytes, const char *what, const char *name);

int cu_copy_in(um_context *ctx, void *d, const void *h, size_t bytes, const char *what, const char *name) {
  um_setup_begin(ctx, UM_SETUP_UPLOADS); /* in the set-up window: its uploads phase */
  const int rc = UM_TRACED("upload", copy_in(ctx, d, h, bytes, what, name)); /* a range for the profilers (trace.h) */
  um_setup_end(ctx, UM_SETUP_UPLOADS);
  return rc;
}

static int copy_in(um_context *ctx, void *d, const void *h, size_t bytes, const char *what, const char *name) {
  cu_state *S = ST(ctx);
  cu_stager *G = bytes >= CU_STAGE_MIN && S->uploaded >= CU_STAGE_AFTER ? stager(S) : NULL;
  S->uploaded += bytes;
  if (!G) {
    CU(ctx, cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, S->stream), "copying %s '%s' to the GPU", what,
       name);
    return UM_SUCCESS;
  }
  if (S->cur_loop >= 0) um_backend_counter_add(ctx, S->cur_loop, CU_COUNTER_UPLOAD_STAGED, (double)bytes);
  CU(ctx, cudaEventRecord(G->start, S->stream), "ordering the copy of %s '%s'", what, name);
  cu_stage_job jobs[64];
  pthread_t th[64];
  int started[64] = {0};
  for (int i = 0; i < G->n; i++) /* (every fallible call before a thread starts: none outlives an early return) */
    CU(ctx, cudaStreamWaitEvent(G->w[i].stream, G->start, 0), "ordering the copy of %s '%s'", what, name);
  for (int i = 0; i < G->n; i++) {
    jobs[i] = (cu_stage_job){S, &G->w[i], i, G->n, d, h, bytes, cudaSuccess};
    started[i] = i > 0 && pthread_create(&th[i], NULL, stage_worker, &jobs[i]) == 0;
  }
  stage_worker(&jobs[0]); /* this thread is worker 0 */
  for (int i = 1; i < G->n; i++) {
    if (started[i]) pthread_join(th[i], NULL);
    else stage_worker(&jobs[i]); /* no thread: its chunks on this one */
  }
  for (int i = 0; i < G->n; i++) {
    cudaError_t e = jobs[i].err;
    if (e == cudaSuccess) e = cudaEventRecord(G->w[i].done, G->w[i].stream);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(S->stream, G->w[i].done, 0);
    CU(ctx, e, "copying %s '%s' to the GPU through pinned memory", what, name);
  }
  return UM_SUCCESS;
}
