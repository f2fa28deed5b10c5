/* What a device transport for the CUDA backend (engine/src/distributed/transports/, e.g. nccl.c) needs from it:
 * the narrow side of the backend that halo messages between GPUs need, so the backend's table carries no
 * transport and a transport needs none of the backend's insides. Declared here, by the distributed layer, and
 * implemented by the CUDA backend (backends/cuda/devmsg.c): the dependency goes one way, the backend to this
 * layer (tests/check_layers.py); a transport includes no header of the backend. Every call takes a context that
 * runs the CUDA backend (a transport that serves "cuda" only is called with no other).
 *
 * A transport's messages are issued on the backend's communication stream (a stream of high priority beside the
 * compute stream): cu_transport_post orders it after the packing queued on the compute stream, has the
 * transport's group function issue the messages on it (with cuda.graphs, captured into a CUDA graph from an
 * exchange's second post on, and replayed inside the step's graphs), and records its end; cu_transport_wait
 * orders the compute stream's later work (the unpacking) after that end, without the host waiting. Three events
 * per exchange give the halo's exposed and hidden device time (um_backend_halo_time) at the next sync. */
#ifndef UM_DIST_TRANSPORT_CUDA_H
#define UM_DIST_TRANSPORT_CUDA_H

#include <stddef.h>
#include "transport.h"

/* An identity of the context's GPU: its UUID in hex. */
int cu_transport_device_id(um_context *ctx, char *id, size_t n);
/* Device memory for messages (NULL with a warning when there is none); each call starts a new generation of
 * exchanges (the buffers of those posted so far are gone). cu_transport_free needs no state. */
void *cu_transport_alloc(um_context *ctx, size_t bytes);
void cu_transport_free(void *p);
/* A transport's messages as one group on `stream` (a cudaStream_t): issued at a post, or captured. */
typedef int (*cu_transport_group)(um_context *ctx, void *arg, const um_transport_msg *msgs, int n, void *stream);
/* Every rank, before its transport connects: the communication stream, the transport's group function, and its
 * close(arg), which the backend's finalize calls once the stream has drained and the exchanges' graphs are gone
 * (the transport's communicator then ends: nothing the backend holds uses it any more). */
int cu_transport_open(um_context *ctx, cu_transport_group group, void (*close)(void *arg), void *arg);
/* Words appended to the device's description ("; halos GPU to GPU with NCCL 2.21.5"). */
void cu_transport_describe(um_context *ctx, const char *words);
/* An exchange's messages after the work queued so far, and the compute stream's wait for them (above). */
int cu_transport_post(um_context *ctx, const um_transport_msg *msgs, int n, int id);
int cu_transport_wait(um_context *ctx, int id);

#endif
