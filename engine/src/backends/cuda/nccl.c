/* Halo rows GPU to GPU with NCCL (um/backend.h: the peer hooks; mpi.gpu_transport nccl).
 *
 * The core packs a loop's halo rows into device buffers (rows_out, on the compute stream), then
 * hands every message of the exchange to peer_post: the communication stream waits for the
 * packing, runs the sends and receives as one NCCL group (ncclSend / ncclRecv of bytes), and
 * records its end; the compute stream goes on with the core elements meanwhile. peer_wait makes
 * the compute stream wait for that end before it unpacks (rows_in) and runs the rest: the host
 * never waits for a halo. Three events per exchange (the group's start and end on the
 * communication stream, the end of the core work on the compute stream) give, once read at the
 * next synchronisation, how long the halo moved and how much of it the core work hid.
 *
 * With cuda.graphs, posts and waits are recorded into the current segment (graph.c) and each exchange's
 * group is captured as a CUDA graph from its second post on, so a step's graph holds its exchanges.
 *
 * NCCL is loaded at run time (dlopen), so a build with its header runs on machines without it:
 * peer_usable then says why and mpi.gpu_transport auto sends from host memory. Only nccl.h's
 * declarations are used, through pointers of their own types.
 *
 * NVLink multicast (NVLS) is switched off (NCCL_NVLS_ENABLE=0) before the communicator is
 * made: it serves only collectives (halo messages are point to point), and on shared hosts a
 * program that leaves multicast objects behind can take the host's GPUs out of service. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "../../util/array.h"

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 7, 0)
#error "um's NCCL transport needs NCCL 2.7 or newer (ncclSend / ncclRecv)"
#endif

static struct {
  int tried, ok;
  char why[300];
  void *lib;
  __typeof__(&ncclGetVersion) version;
  __typeof__(&ncclGetUniqueId) unique_id;
  __typeof__(&ncclCommInitRank) init_rank;
  __typeof__(&ncclCommDestroy) destroy;
  __typeof__(&ncclGroupStart) group_start;
  __typeof__(&ncclGroupEnd) group_end;
  __typeof__(&ncclSend) send;
  __typeof__(&ncclRecv) recv;
  __typeof__(&ncclGetErrorString) error_string;
} N;

/* dlsym into a typed pointer without a cast from void * to a function pointer */
#define SYM(field, name)                                                         \
  do {                                                                           \
    void *p_ = dlsym(N.lib, name);                                               \
    if (!p_) {                                                                   \
      snprintf(N.why, sizeof N.why, "%s has no symbol %s", where, name);         \
      return 0;                                                                  \
    }                                                                            \
    memcpy(&N.field, &p_, sizeof p_);                                            \
  } while (0)

static int load_symbols(const char *where) {
  SYM(version, "ncclGetVersion");
  SYM(unique_id, "ncclGetUniqueId");
  SYM(init_rank, "ncclCommInitRank");
  SYM(destroy, "ncclCommDestroy");
  SYM(group_start, "ncclGroupStart");
  SYM(group_end, "ncclGroupEnd");
  SYM(send, "ncclSend");
  SYM(recv, "ncclRecv");
  SYM(error_string, "ncclGetErrorString");
  int v = 0;
  if (N.version(&v) != ncclSuccess || v < NCCL_VERSION(2, 7, 0)) {
    snprintf(N.why, sizeof N.why, "%s is NCCL version code %d; ncclSend/ncclRecv need 2.7 or newer", where, v);
    return 0;
  }
  return 1;
}

/* Once per process: UM_NCCL_LIBRARY if set, else libnccl.so.2 from the loader's path, else the library
 * the build found. */
static int nccl_load(void) {
  if (N.tried) return N.ok;
  N.tried = 1;
  const char *env = getenv("UM_NCCL_LIBRARY");
  const char *cands[3] = {env && *env ? env : NULL, env && *env ? NULL : "libnccl.so.2", NULL};
#ifdef UM_NCCL_FOUND_AT
  if (!(env && *env)) cands[2] = UM_NCCL_FOUND_AT;
#endif
  char tried[600] = "";
  for (int i = 0; i < 3 && !N.ok; i++) {
    if (!cands[i]) continue;
    N.lib = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
    if (!N.lib) {
      const char *e = dlerror();
      size_t l = strlen(tried);
      snprintf(tried + l, sizeof tried - l, "%s%s", l ? "; " : "", e ? e : cands[i]);
      continue;
    }
    N.ok = load_symbols(cands[i]);
    if (!N.ok) {
      dlclose(N.lib);
      N.lib = NULL;
      snprintf(tried, sizeof tried, "%s", N.why);
    }
  }
  if (!N.ok)
    snprintf(N.why, sizeof N.why, "NCCL could not be loaded (%s); install NCCL 2.7 or newer or set UM_NCCL_LIBRARY",
             tried);
  return N.ok;
}

#define NC(ctx, call, what)                                                                                   \
  do {                                                                                                        \
    ncclResult_t nr_ = (call);                                                                                \
    if (nr_ != ncclSuccess)                                                                                   \
      return UM_ERROR(ctx, UM_ERR_BACKEND, "NCCL: %s failed: %s", what, N.error_string(nr_));                 \
  } while (0)

int cu_peer_usable(um_context *ctx, void *state, char *why, size_t n) {
  (void)ctx, (void)state;
  if (nccl_load()) return 1;
  snprintf(why, n, "%s", N.why);
  return 0;
}

int cu_peer_device(um_context *ctx, void *state, char *id, size_t n) {
  (void)ctx;
  const cu_state *S = state;
  size_t o = 0;
  for (int i = 0; i < 16 && o + 3 <= n; i++) o += (size_t)snprintf(id + o, n - o, "%02x", (unsigned char)S->prop.uuid.bytes[i]);
  return UM_SUCCESS;
}

int cu_peer_token(um_context *ctx, void *state, void *token, size_t cap, size_t *len) {
  (void)state;
  ncclUniqueId uid;
  if (cap < sizeof uid) return UM_ERROR(ctx, UM_ERR_INTERNAL, "NCCL: the unique id needs %zu bytes", sizeof uid);
  NC(ctx, N.unique_id(&uid), "ncclGetUniqueId");
  memcpy(token, &uid, sizeof uid);
  *len = sizeof uid;
  return UM_SUCCESS;
}

int cu_peer_open(um_context *ctx, void *state, const void *token, size_t len, int rank, int nranks) {
  cu_state *S = state;
  ncclUniqueId uid;
  if (len != sizeof uid) return UM_ERROR(ctx, UM_ERR_INTERNAL, "NCCL: a unique id of %zu bytes, not %zu", len, sizeof uid);
  memcpy(&uid, token, sizeof uid);
  setenv("NCCL_NVLS_ENABLE", "0", 1); /* see the top of this file */
  int lo = 0, hi = 0; /* the communication stream first in line: halos are on the critical path */
  CU(ctx, cudaDeviceGetStreamPriorityRange(&lo, &hi), "reading the stream priorities");
  CU(ctx, cudaStreamCreateWithPriority(&S->comm_stream, cudaStreamNonBlocking, hi), "creating the halo stream");
  CU(ctx, cudaEventCreateWithFlags(&S->halo_ready, cudaEventDisableTiming), "creating a halo event");
  ncclComm_t comm = NULL;
  NC(ctx, N.init_rank(&comm, nranks, uid, rank), "ncclCommInitRank");
  S->nccl = comm;
  int v = 0;
  N.version(&v);
  snprintf(S->desc + strlen(S->desc), sizeof S->desc - strlen(S->desc), "; halos GPU to GPU with NCCL %d.%d.%d",
           v / 10000, v / 100 % 100, v % 100);
  return UM_SUCCESS;
}

/* The messages as one NCCL group on the communication stream. */
static int group(um_context *ctx, cu_state *S, const um_peer_msg *msgs, int n) {
  NC(ctx, N.group_start(), "ncclGroupStart");
  for (int i = 0; i < n; i++) {
    const um_peer_msg *m = &msgs[i];
    ncclResult_t r = m->send ? N.send(m->buf, m->bytes, ncclInt8, m->peer, S->nccl, S->comm_stream)
                             : N.recv(m->buf, m->bytes, ncclInt8, m->peer, S->nccl, S->comm_stream);
    if (r != ncclSuccess) {
      N.group_end();
      return UM_ERROR(ctx, UM_ERR_BACKEND, "NCCL: %s of %zu bytes %s rank %d failed: %s", m->send ? "ncclSend" : "ncclRecv",
                      m->bytes, m->send ? "to" : "from", m->peer, N.error_string(r));
    }
  }
  NC(ctx, N.group_end(), "ncclGroupEnd");
  return UM_SUCCESS;
}

/* An exchange's post, on the streams now: the communication stream waits for the packing, runs the group (its
 * captured graph when it has one), and records its start and end. */
static int issue_post(um_context *ctx, cu_state *S, int id, const um_peer_msg *msgs, int n, cudaGraphExec_t exec,
                      cudaEvent_t start, cudaEvent_t stop) {
  CU(ctx, cudaEventRecord(S->halo_ready, S->stream), "recording a halo event");
  CU(ctx, cudaStreamWaitEvent(S->comm_stream, S->halo_ready, 0), "ordering a halo after its packing");
  CU(ctx, cudaEventRecord(start, S->comm_stream), "recording a halo event");
  const double t0 = um_wtime();
  if (exec) CU(ctx, cudaGraphLaunch(exec, S->comm_stream), "launching the CUDA graph of a halo exchange");
  else UM_CHECK(ctx, group(ctx, S, msgs, n));
  um_backend_counter_add(ctx, id, CU_COUNTER_HALO_POST, um_wtime() - t0);
  CU(ctx, cudaEventRecord(stop, S->comm_stream), "recording a halo event");
  S->last_loop = "an NCCL halo exchange";
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

static int same_msgs(const um_peer_msg *a, const um_peer_msg *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].peer != b[i].peer || a[i].send != b[i].send || a[i].buf != b[i].buf || a[i].bytes != b[i].bytes ||
        a[i].tag != b[i].tag)
      return 0;
  return 1;
}

/* With graphs: the exchange (this buffer generation's, same loop, same messages), kept at its first post; from its
 * second on, with its NCCL group captured as a graph. Every rank gets here for the same exchanges in the same
 * order with the same answer (cu_xgraph), so each exchange is captured on every rank or on none, as NCCL asks.
 * A capture that fails is an error, not a fallback: the other ranks would be replaying theirs. */
static int exchange(um_context *ctx, cu_state *S, const um_peer_msg *msgs, int n, int id, int *at) {
  cu_xgraph *x = NULL;
  for (int i = 0; i < S->nxg && !x; i++) {
    cu_xgraph *c = &S->xg[i];
    if (c->gen == S->xg_gen && c->id == id && c->n == n && same_msgs(c->msgs, msgs, n)) x = c;
  }
  if (!x) {
    if (UM_GROW(S->xg, S->capxg, S->nxg)) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
    x = &S->xg[S->nxg++];
    memset(x, 0, sizeof *x);
    x->msgs = malloc((n ? (size_t)n : 1) * sizeof *msgs);
    if (!x->msgs) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
    memcpy(x->msgs, msgs, (size_t)n * sizeof *msgs);
    x->id = id;
    x->n = n;
    x->gen = S->xg_gen;
  }
  *at = (int)(x - S->xg);
  if (++x->seen < 2 || x->exec) return UM_SUCCESS;
  /* relaxed: NCCL may set up its connections while capturing */
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
    return cu_fail(ctx, e, __FILE__, __LINE__, "capturing the NCCL group of a halo exchange (%d messages) as a CUDA "
                   "graph; run without cuda.graphs, or with mpi.gpu_transport=host", n);
  }
  x->graph = g;
  return UM_SUCCESS;
}

int cu_peer_post(um_context *ctx, void *state, const um_peer_msg *msgs, int n, int id) {
  cu_state *S = state;
  if (!S->nccl) return UM_ERROR(ctx, UM_ERR_INTERNAL, "NCCL: a halo posted before the communicator was made");
  if (S->nhalo_t == CU_MAX_HALO_TIMINGS) UM_CHECK(ctx, cu_sync(ctx, S)); /* reads the waited ones' times */
  if (S->nhalo_t == CU_MAX_HALO_TIMINGS) return UM_ERROR(ctx, UM_ERR_INTERNAL, "NCCL: too many halos in flight");
  cu_halo_timing *h = &S->halo_t[S->nhalo_t];
  UM_CHECK(ctx, cu_get_event(ctx, &h->start));
  UM_CHECK(ctx, cu_get_event(ctx, &h->stop));
  UM_CHECK(ctx, cu_get_event(ctx, &h->core));
  h->id = id;
  h->waited = 0;
  S->nhalo_t++;
  if (!S->graphs) return issue_post(ctx, S, id, msgs, n, NULL, h->start, h->stop);
  int x = -1;
  UM_CHECK(ctx, exchange(ctx, S, msgs, n, id, &x));
  if (S->xg[x].exec) return cu_graph_post(ctx, S, id, x, h->start, h->stop); /* issued by cu_flush, in a graph or not */
  /* its first post: NCCL called now, after what the segment holds (so that every rank calls NCCL in the same order) */
  UM_CHECK(ctx, cu_flush(ctx, S));
  return issue_post(ctx, S, id, msgs, n, NULL, h->start, h->stop);
}

int cu_peer_wait(um_context *ctx, void *state, int id) {
  cu_state *S = state;
  cu_halo_timing *h = NULL;
  for (int i = S->nhalo_t - 1; i >= 0 && !h; i--)
    if (!S->halo_t[i].waited) h = &S->halo_t[i];
  if (!h) return UM_ERROR(ctx, UM_ERR_INTERNAL, "NCCL: a halo waited for that was never posted");
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
  if (S->nccl) N.destroy((ncclComm_t)S->nccl);
  S->nccl = NULL;
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
