/* The loopback transport (mpi.gpu_transport loopback, um_transport UM_TRANSPORT_LOOPBACK): the example of a
 * transport (docs/transports.md) and the one the MPI tests run on the seq and OpenMP backends, so the transport
 * table's path -- the choice, open, buffers, grouped posts, waits, close -- runs without a GPU. Its messages
 * leave from buffers of its own (malloc'ed; the backend's pinned host_alloc memory where rows are packed on a
 * device), sent with MPI_Isend / MPI_Irecv on a communicator of its own once the work queued before them is done,
 * and waited for on the host. The bytes are those of the host path, so are the results. */
#include "../dist_impl.h"

#ifdef UM_HAVE_MPI

typedef struct {
  MPI_Comm comm;
  MPI_Request *reqs;
  int nreqs, capreqs;
} loopback;

static int lb_usable(um_context *ctx, char *why, size_t n) {
  (void)ctx, (void)why, (void)n;
  return 1;
}

/* no device is shared: one identity per rank */
static int lb_device_id(um_context *ctx, char *id, size_t n) {
  (void)ctx;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(id, n, "loopback-%d", rank);
  return UM_SUCCESS;
}

static int lb_open(um_context *ctx, const void *token, size_t len, int rank, int nranks, void **state) {
  (void)token, (void)len, (void)rank, (void)nranks;
  loopback *L = calloc(1, sizeof *L);
  if (!L) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory opening the loopback transport");
  MPI_Comm_dup(MPI_COMM_WORLD, &L->comm); /* its messages never meet the host path's */
  *state = L;
  return UM_SUCCESS;
}

static void *lb_alloc(um_context *ctx, void *state, size_t bytes) {
  (void)state;
  return on_device(ctx) ? ctx->backend->data.host_alloc(ctx, ctx->bstate, bytes) : malloc(bytes);
}

static void lb_free(um_context *ctx, void *p) {
  if (on_device(ctx)) ctx->backend->data.host_free(p);
  else free(p);
}

static int lb_post(um_context *ctx, void *state, const um_transport_msg *msgs, int n, int id) {
  (void)id;
  loopback *L = state;
  /* after the queued work: a device backend's packing is in the buffers once it has synchronised */
  if (on_device(ctx) && ctx->backend->exec.sync) UM_CHECK(ctx, ctx->backend->exec.sync(ctx, ctx->bstate));
  if (UM_GROW(L->reqs, L->capreqs, L->nreqs + n)) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory posting halos");
  for (int i = 0; i < n; i++) {
    const um_transport_msg *m = &msgs[i];
    MPI_Request *r = &L->reqs[L->nreqs++];
    if (m->send) MPI_TRY(ctx, MPI_Isend(m->buf, (int)m->bytes, MPI_BYTE, m->peer, m->tag, L->comm, r), "MPI_Isend (loopback)");
    else MPI_TRY(ctx, MPI_Irecv(m->buf, (int)m->bytes, MPI_BYTE, m->peer, m->tag, L->comm, r), "MPI_Irecv (loopback)");
  }
  return UM_SUCCESS;
}

static int lb_wait(um_context *ctx, void *state, int id) {
  (void)id;
  loopback *L = state;
  const int n = L->nreqs;
  L->nreqs = 0;
  MPI_TRY(ctx, MPI_Waitall(n, L->reqs, MPI_STATUSES_IGNORE), "MPI_Waitall (loopback)");
  return UM_SUCCESS;
}

static void lb_close(um_context *ctx, void *state) {
  (void)ctx;
  loopback *L = state;
  if (!L) return;
  if (mpi_up()) MPI_Comm_free(&L->comm);
  free(L->reqs);
  free(L);
}

const um_transport_def um_transport_loopback = {
    .name = "loopback",
    .what = "host buffers of its own sent with MPI on a communicator of its own (the test transport)",
    .backends = NULL,
    .device = 0,
    .usable = lb_usable,
    .device_id = lb_device_id,
    .token = NULL,
    .open = lb_open,
    .alloc = lb_alloc,
    .free = lb_free,
    .post = lb_post,
    .wait = lb_wait,
    .close = lb_close,
};

#endif /* UM_HAVE_MPI */
