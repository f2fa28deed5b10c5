/* The NCCL transport (mpi.gpu_transport nccl, or auto on CUDA ranks): halo rows GPU to GPU, for the CUDA backend.
 *
 * The core packs a loop's halo rows into device buffers (rows_out, on the compute stream) and posts every message
 * of the exchange; the CUDA backend's side (distributed/transport_cuda.h, devmsg.c) orders the communication
 * stream after the packing and calls group() below on it -- the sends and receives as one NCCL group (ncclSend /
 * ncclRecv of bytes) -- or, with cuda.graphs, captures that group once into a CUDA graph; the wait orders the
 * compute stream's unpacking after the group's end: the host never waits for a halo. The communicator is made
 * at open (every rank together, from rank 0's unique id) and connects on the first exchange; it ends with the
 * backend's finalize, once the graphs that captured its groups are gone.
 *
 * NCCL is loaded at run time (dlopen), so a build with its header runs on machines without it: usable then says
 * why and mpi.gpu_transport auto sends from host memory. Only nccl.h's declarations are used, through pointers
 * of their own types.
 *
 * NVLink multicast (NVLS) is switched off (NCCL_NVLS_ENABLE=0) before the communicator is made: it serves only
 * collectives (halo messages are point to point), and on shared hosts a program that leaves multicast objects
 * behind can take the host's GPUs out of service. */
#if defined(UM_HAVE_NCCL) && defined(UM_HAVE_MPI)
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "distributed/transport_cuda.h"

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

static int nccl_usable(um_context *ctx, char *why, size_t n) {
  (void)ctx;
  if (nccl_load()) return 1;
  snprintf(why, n, "%s", N.why);
  return 0;
}

static int nccl_token(um_context *ctx, void *token, size_t cap, size_t *len) {
  ncclUniqueId uid;
  if (cap < sizeof uid) return UM_ERROR(ctx, UM_ERR_INTERNAL, "NCCL: the unique id needs %zu bytes", sizeof uid);
  NC(ctx, N.unique_id(&uid), "ncclGetUniqueId");
  memcpy(token, &uid, sizeof uid);
  *len = sizeof uid;
  return UM_SUCCESS;
}

/* A context's communicator (NULL until made); ended by the CUDA backend's finalize (cu_transport_open). */
typedef struct {
  ncclComm_t comm;
} nccl_state;

static void nccl_end(void *arg) {
  nccl_state *T = arg;
  if (T && T->comm) N.destroy(T->comm);
  free(T);
}

/* The messages as one NCCL group on the communication stream. */
static int group(um_context *ctx, void *arg, const um_transport_msg *msgs, int n, void *stream) {
  const nccl_state *T = arg;
  cudaStream_t st = (cudaStream_t)stream;
  NC(ctx, N.group_start(), "ncclGroupStart");
  for (int i = 0; i < n; i++) {
    const um_transport_msg *m = &msgs[i];
    ncclResult_t r = m->send ? N.send(m->buf, m->bytes, ncclInt8, m->peer, T->comm, st)
                             : N.recv(m->buf, m->bytes, ncclInt8, m->peer, T->comm, st);
    if (r != ncclSuccess) {
      N.group_end();
      return UM_ERROR(ctx, UM_ERR_BACKEND, "NCCL: %s of %zu bytes %s rank %d failed: %s", m->send ? "ncclSend" : "ncclRecv",
                      m->bytes, m->send ? "to" : "from", m->peer, N.error_string(r));
    }
  }
  NC(ctx, N.group_end(), "ncclGroupEnd");
  return UM_SUCCESS;
}

static int nccl_open(um_context *ctx, const void *token, size_t len, int rank, int nranks, void **state) {
  ncclUniqueId uid;
  if (len != sizeof uid) return UM_ERROR(ctx, UM_ERR_INTERNAL, "NCCL: a unique id of %zu bytes, not %zu", len, sizeof uid);
  memcpy(&uid, token, sizeof uid);
  setenv("NCCL_NVLS_ENABLE", "0", 1); /* see the top of this file */
  nccl_state *T = calloc(1, sizeof *T);
  if (!T) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory opening NCCL");
  const int rc = cu_transport_open(ctx, group, nccl_end, T); /* the backend owns T from here */
  if (rc != UM_SUCCESS) {
    free(T);
    return rc;
  }
  NC(ctx, N.init_rank(&T->comm, nranks, uid, rank), "ncclCommInitRank");
  int v = 0;
  N.version(&v);
  char words[80];
  snprintf(words, sizeof words, "; halos GPU to GPU with NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
  cu_transport_describe(ctx, words);
  *state = T;
  return UM_SUCCESS;
}

static void *nccl_alloc(um_context *ctx, void *state, size_t bytes) {
  (void)state;
  return cu_transport_alloc(ctx, bytes);
}

static void nccl_free(um_context *ctx, void *p) {
  (void)ctx;
  cu_transport_free(p);
}

static int nccl_post(um_context *ctx, void *state, const um_transport_msg *msgs, int n, int id) {
  const nccl_state *T = state;
  if (!T || !T->comm) return UM_ERROR(ctx, UM_ERR_INTERNAL, "NCCL: a halo posted before the communicator was made");
  return cu_transport_post(ctx, msgs, n, id);
}

static int nccl_wait(um_context *ctx, void *state, int id) {
  (void)state;
  return cu_transport_wait(ctx, id);
}

const um_transport_def um_transport_nccl = {
    .name = "nccl",
    .what = "device buffers sent GPU to GPU",
    .backends = "cuda",
    .device = 1,
    .usable = nccl_usable,
    .device_id = cu_transport_device_id,
    .token = nccl_token,
    .open = nccl_open,
    .alloc = nccl_alloc,
    .free = nccl_free,
    .post = nccl_post,
    .wait = nccl_wait,
    .close = NULL, /* the communicator ends with the backend (nccl_end) */
};

#else
typedef int um_transport_nccl_not_built; /* (no NCCL, or no MPI, in this build) */
#endif
