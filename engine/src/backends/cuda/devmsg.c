/* Halo messages GPU to GPU: the CUDA backend's side of a device transport (distributed/transport_cuda.h, declared
 * by the distributed layer; the transport, e.g. engine/src/distributed/transports/nccl.c, issues the messages).
 *
 * The core packs a loop's halo rows into device buffers (rows_out, on the compute stream), then hands every
 * message of the exchange to the transport, which posts them here: the communication stream waits for the
 * packing, runs the transport's group (its sends and receives), and records its end; the compute stream goes on
 * with the core elements meanwhile. cu_transport_wait makes the compute stream wait for that end before it
 * unpacks (rows_in) and runs the rest: the host never waits for a halo. Three events per exchange (the group's
 * start and end on the communication stream, the end of the core work on the compute stream) give, once read at
 * the next synchronisation, how long the halo moved and how much of it the core work hid.
 *
 * With cuda.graphs, posts and waits are recorded into the current segment (graph.c) and each exchange's group is
 * captured as a CUDA graph from its second post on, so a step's graph holds its exchanges. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "distributed/transport_cuda.h"
#include "../../util/array.h"

int cu_transport_device_id(um_context *ctx, char *id, size_t n) {
  const cu_state *S = um_context_backend_state(ctx);
  size_t o = 0;
  for (int i = 0; i < 16 && o + 3 <= n; i++) o += (size_t)snprintf(id + o, n - o, "%02x", (unsigned char)S->prop.uuid.bytes[i]);
  return UM_SUCCESS;
}

void *cu_transport_alloc(um_context *ctx, size_t bytes) { return cu_dev_alloc(ctx, um_context_backend_state(ctx), bytes); }
void cu_transport_free(void *p) { cu_dev_free(p); }

int cu_transport_open(um_context *ctx, cu_transport_group group, void (*close)(void *arg), void *arg) {
  cu_state *S = um_context_backend_state(ctx);
  if (S->tgroup) return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "a device transport is open already");
  S->tgroup = group;
  S->tclose = close;
  S->targ = arg;
  int lo = 0, hi = 0; /* the communication stream first in line: halos are on the critical path */
  CU(ctx, cudaDeviceGetStreamPriorityRange(&lo, &hi), "reading the stream priorities");
  CU(ctx, cudaStreamCreateWithPriority(&S->comm_stream, cudaStreamNonBlocking, hi), "creating the halo stream");
  CU(ctx, cudaEventCreateWithFlags(&S->halo_ready, cudaEventDisableTiming), "creating a halo event");
  return UM_SUCCESS;
}

void cu_transport_describe(um_context *ctx, const char *words) {
  cu_state *S = um_context_backend_state(ctx);
  snprintf(S->desc + strlen(S->desc), sizeof S->desc - strlen(S->desc), "%s", words);
}

/* The messages as one group on the communication stream: the transport's. */
static int group(um_context *ctx, cu_state *S, const um_transport_msg *msgs, int n) {
  return S->tgroup(ctx, S->targ, msgs, n, (void *)S->comm_stream);
}

/* An exchange's post, on the streams now: the communication stream waits for the packing, runs the group (its
 * captured graph when it has one), and records its start and end. */
static int issue_post(um_context *ctx, cu_state *S, int id, const um_transport_msg *msgs, int n, cudaGraphExec_t exec,
                      cudaEvent_t start, cudaEvent_t stop) {
  CU(ctx, cudaEventRecord(S->halo_ready, S->stream), "recording a halo event");
  CU(ctx, cudaStreamWaitEvent(S->comm_stream, S->halo_ready, 0), "ordering a halo after its packing");
  CU(ctx, cudaEventRecord(start, S->comm_stream), "recording a halo event");
  const double t0 = um_wtime();
  if (exec) CU(ctx, cudaGraphLaunch(exec, S->comm_stream), "launching the CUDA graph of a halo exchange");
  else UM_BACKEND_CHECK(ctx, group(ctx, S, msgs, n));
  um_backend_counter_add(ctx, id, CU_COUNTER_HALO_POST, um_wtime() - t0);
  CU(ctx, cudaEventRecord(stop, S->comm_stream), "recording a halo event");
  S->last_loop = "a halo exchange GPU to GPU";
  return UM_SUCCESS;
}

int cu_peer_issue_post(um_context *ctx, cu_state *S, int id, const cu_xgraph *x, cudaEvent_t start, cudaEvent_t stop) {
  return issue_post(ctx, S, id, NULL, 0, x->exec, start, stop);
}

int cu_peer_issue_wait(um_context *ctx, cu_state *S, cudaEvent_t core, cudaEvent_t stop) {
  CU(ctx, cudaEventRecord(core, S->stream), "recording a halo event");
  CU(ctx, cudaStreamWaitEvent(S->stream, stop, 0), "ordering the halo's readers after it");
  return UM_SUCCESS;
}

static int same_msgs(const um_transport_msg *a, const um_transport_msg *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].peer != b[i].peer || a[i].send != b[i].send || a[i].buf != b[i].buf || a[i].bytes != b[i].bytes ||
        a[i].tag != b[i].tag)
      return 0;
  return 1;
}

/* With graphs: the exchange (this buffer generation's, same loop, same messages), kept at its first post; from its
 * second on, with its group captured as a graph. Every rank gets here for the same exchanges in the same
 * order with the same answer (cu_xgraph), so each exchange is captured on every rank or on none, as NCCL asks.
 * A capture that fails is an error, not a fallback: the other ranks would be replaying theirs. */
static int exchange(um_context *ctx, cu_state *S, const um_transport_msg *msgs, int n, int id, int *at) {
  cu_xgraph *x = NULL;
  for (int i = 0; i < S->nxg && !x; i++) {
    cu_xgraph *c = &S->xg[i];
    if (c->gen == S->xg_gen && c->id == id && c->n == n && same_msgs(c->msgs, msgs, n)) x = c;
  }
  if (!x) {
    if (UM_GROW(S->xg, S->capxg, S->nxg)) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
    x = &S->xg[S->nxg++];
    memset(x, 0, sizeof *x);
    x->msgs = malloc((n ? (size_t)n : 1) * sizeof *msgs);
    if (!x->msgs) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
    memcpy(x->msgs, msgs, (size_t)n * sizeof *msgs);
    x->id = id;
    x->n = n;
    x->gen = S->xg_gen;
  }
  *at = (int)(x - S->xg);
  if (++x->seen < 2 || x->exec) return UM_SUCCESS;
  /* relaxed: the transport (NCCL) may set up its connections while capturing */
  CU(ctx, cudaStreamBeginCapture(S->comm_stream, cudaStreamCaptureModeRelaxed), "capturing a halo exchange");
  int rc = group(ctx, S, msgs, n);
  cudaGraph_t g = NULL;
  cudaError_t e = cudaStreamEndCapture(S->comm_stream, &g);
  if (rc != UM_SUCCESS) {
    if (g) cudaGraphDestroy(g);
    return rc;
  }
  if (e == cudaSuccess) e = cudaGraphInstantiate(&x->exec, g, 0);
  if (e != cudaSuccess) {
    if (g) cudaGraphDestroy(g);
    x->exec = NULL;
    return cu_fail(ctx, e, __FILE__, __LINE__, "capturing the message group of a halo exchange (%d messages) as a CUDA "
                   "graph; run without cuda.graphs, or with mpi.gpu_transport=host", n);
  }
  x->graph = g;
  return UM_SUCCESS;
}

int cu_transport_post(um_context *ctx, const um_transport_msg *msgs, int n, int id) {
  cu_state *S = um_context_backend_state(ctx);
  if (!S->tgroup) return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "a halo posted before the device transport was opened");
  if (S->nhalo_t == CU_MAX_HALO_TIMINGS) UM_BACKEND_CHECK(ctx, cu_sync(ctx, S)); /* reads the waited ones' times */
  if (S->nhalo_t == CU_MAX_HALO_TIMINGS) return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "device transport: too many halos in flight");
  cu_halo_timing *h = &S->halo_t[S->nhalo_t];
  UM_BACKEND_CHECK(ctx, cu_get_event(ctx, &h->start));
  UM_BACKEND_CHECK(ctx, cu_get_event(ctx, &h->stop));
  UM_BACKEND_CHECK(ctx, cu_get_event(ctx, &h->core));
  h->id = id;
  h->waited = 0;
  S->nhalo_t++;
  if (!S->graphs) return issue_post(ctx, S, id, msgs, n, NULL, h->start, h->stop);
  int x = -1;
  UM_BACKEND_CHECK(ctx, exchange(ctx, S, msgs, n, id, &x));
  if (S->xg[x].exec) return cu_graph_post(ctx, S, id, x, h->start, h->stop); /* issued by cu_flush, in a graph or not */
  /* its first post: the transport called now, after what the segment holds (so that every rank calls it in the same order) */
  UM_BACKEND_CHECK(ctx, cu_flush(ctx, S));
  return issue_post(ctx, S, id, msgs, n, NULL, h->start, h->stop);
}

int cu_transport_wait(um_context *ctx, int id) {
  cu_state *S = um_context_backend_state(ctx);
  cu_halo_timing *h = NULL;
  for (int i = S->nhalo_t - 1; i >= 0 && !h; i--)
    if (!S->halo_t[i].waited) h = &S->halo_t[i];
  if (!h) return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "device transport: a halo waited for that was never posted");
  h->waited = 1;
  if (S->graphs) return cu_graph_wait(ctx, S, id, h->core, h->stop);
  return cu_peer_issue_wait(ctx, S, h->core, h->stop);
}

void cu_peer_close(cu_state *S) {
  if (S->comm_stream) cudaStreamSynchronize(S->comm_stream);
  for (int i = 0; i < S->nxg; i++) {
    if (S->xg[i].exec) cudaGraphExecDestroy(S->xg[i].exec);
    if (S->xg[i].graph) cudaGraphDestroy(S->xg[i].graph);
    free(S->xg[i].msgs);
  }
  free(S->xg);
  S->xg = NULL;
  S->nxg = S->capxg = 0;
  if (S->tclose) S->tclose(S->targ); /* the transport's end (its communicator) */
  S->tgroup = NULL;
  S->tclose = NULL;
  S->targ = NULL;
  for (int i = 0; i < S->nhalo_t; i++) {
    cudaEventDestroy(S->halo_t[i].start);
    cudaEventDestroy(S->halo_t[i].stop);
    cudaEventDestroy(S->halo_t[i].core);
  }
  S->nhalo_t = 0;
  if (S->halo_ready) cudaEventDestroy(S->halo_ready);
  S->halo_ready = NULL;
  if (S->comm_stream) cudaStreamDestroy(S->comm_stream);
  S->comm_stream = NULL;
  cudaGetLastError();
}
