/* transport.h: how halo messages travel between ranks (docs/transports.md).
 *
 * The built-in way is MPI from host memory (dist_exchange.c: malloc'ed buffers on host backends, the backend's
 * pinned host_alloc buffers when rows are packed on a device): it needs no table and is always there. A
 * transport is another way, one table of functions, um_transport_def, in one file under transports/, listed by
 * one line in transport_list.h (or passed by the caller in um_options.extra_transports); um__transport_choose (transport.c) is the one place that picks one, from every
 * rank's facts. The core hands it the messages of an exchange (um_transport_msg) after packing the rows into the
 * buffers it allocated, and waits with it before unpacking. */
#ifndef UM_DIST_TRANSPORT_H
#define UM_DIST_TRANSPORT_H

#include <stddef.h>
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One message of an exchange: `bytes` bytes sent from, or received into, buf (from the transport's alloc),
 * to or from rank `peer`. Between two ranks, the k-th send of one matches the k-th receive of the other. `tag`
 * names what the message carries the same way on every rank (the dat's index and the direction), so a
 * transport can tell exchanges apart identically on every rank; alloc is called on every rank at the same
 * exchanges (buffers are sized by global halo totals). */
typedef struct {
  int peer;     /* the other rank                          */
  int send;     /* 1 send, 0 receive                       */
  void *buf;    /* memory from the transport's alloc       */
  size_t bytes; /* the message's size                      */
  int tag;      /* 2 x dat index + 1 for reverse increments */
} um_transport_msg;

/** A transport. Every member is required unless marked "may be NULL". */
typedef struct um_transport_def {
  const char *name;     /* what um_partition_info.transport and mpi.gpu_transport call it ("nccl") */
  const char *what;     /* the note's words when it is asked for: "device buffers sent GPU to GPU" */
  /* the backends it serves, by name, space separated ("cuda"); NULL: every backend */
  const char *backends;
  /* 1: its buffers are device memory the backend's rows_out / rows_in write and read (it serves backends that
   * keep dats on a device only), and mpi.gpu_transport auto / device take it for those backends; 0: host
   * memory, taken only when asked for by name (um_transport UM_TRANSPORT_LOOPBACK) */
  int device;
  /* 1 if this process can use it (its library loads), else 0 with why */
  int (*usable)(um_context *ctx, char *why, size_t n);
  /* an identity of this rank's device, the same for two ranks only when they share it (e.g. its UUID) */
  int (*device_id)(um_context *ctx, char *id, size_t n);
  /* rank 0 only: a connection token of at most cap bytes, its size in *len, handed to every rank's open (may be
   * NULL: an empty token) */
  int (*token)(um_context *ctx, void *token, size_t cap, size_t *len);
  /* every rank, together: join the transport as rank of nranks; *state is passed to the calls below */
  int (*open)(um_context *ctx, const void *token, size_t len, int rank, int nranks, void **state);
  /* message buffers (every rank at the same exchanges); free needs no state: it may run after the backend's
   * finalize and after close */
  void *(*alloc)(um_context *ctx, void *state, size_t bytes);
  void (*free)(um_context *ctx, void *p);
  /* after the work queued so far (the packing of the send buffers): every message of msgs as one group; work
   * queued after it may run while it moves. id: the loop record it is for (um_backend_halo_time). */
  int (*post)(um_context *ctx, void *state, const um_transport_msg *msgs, int n, int id);
  /* the messages posted have arrived before any work queued from now on (the unpacking) reads them; a device
   * transport orders the device's work after them, the host need not wait */
  int (*wait)(um_context *ctx, void *state, int id);
  /* the context ends (after the backend's finalize; MPI may be finalized already); may be NULL */
  void (*close)(um_context *ctx, void *state);
} um_transport_def;

/** The transports a context offers: the list (transport_list.h), then the caller's, um_options.extra_transports
 * as um_init kept them in ctx (NULL: the list alone). The transport called name among them, or NULL. */
const um_transport_def *um__transport_find(const um_context *ctx, const char *name);
/** The device transport mpi.gpu_transport auto / device take for backend `backend` in ctx: the first of those
 * with device set that serves it, or NULL (its halos then travel through host memory). */
const um_transport_def *um__transport_for_backend(const um_context *ctx, const char *backend);
/** The number of transports of this build (the list, without a context's extra ones) and their names. */
int um__transport_count(void);
const char *um__transport_at(int i);

/** The rule (pure, the same answer on every rank from the same facts): the transport of a distributed run
 * (um_context_set_gpu_transport): want 0 auto, 1 host, 2 device; name: the candidate transport, NULL if there
 * is none; for each rank r of nranks: usable[r] (it can load the transport; why[r] if not), host[r] and dev[r]
 * (its host name and device identity). Returns UM_TRANSPORT_DEVICE (the transport) or UM_TRANSPORT_HOST, or -1
 * when device was asked for and cannot run; note says why in one sentence. Auto takes the transport only when
 * every rank can load it, no two ranks share a device and all ranks are on one host. */
int umd_choose_transport(int want, const char *name, int nranks, const int *usable, const char *const *why,
                         const char *const *host, const char *const *dev, char *note, size_t n);

#ifdef __cplusplus
}
#endif
#endif
