/* transport.c: the transports (transport_list.h) and the one place a distributed context's transport is chosen
 * (um__transport_setup), from every rank's facts, and opened by every rank together. */
#include "dist_impl.h"
#include "transport.h"

#include <strings.h>

#define UM_TRANSPORT(sym) extern const um_transport_def um_transport_##sym;
#include "transport_list.h"
#undef UM_TRANSPORT

static const um_transport_def *const builtin[] = {
#define UM_TRANSPORT(sym) &um_transport_##sym,
#include "transport_list.h"
#undef UM_TRANSPORT
    NULL};
#define NBUILTIN ((int)(sizeof builtin / sizeof builtin[0]) - 1)

static int ntransports(const um_context *ctx) {
  const int nextra = ctx && ctx->opts.extra_transports ? ctx->opts.nextra_transports : 0;
  return NBUILTIN + (nextra > 0 ? nextra : 0);
}

/* The i-th transport ctx offers: the list's, then the caller's (um_options.extra_transports); NULL past them. */
static const um_transport_def *transport_at(const um_context *ctx, int i) {
  if (i < NBUILTIN) return builtin[i];
  const int k = i - NBUILTIN;
  return i < ntransports(ctx) ? ctx->opts.extra_transports[k] : NULL;
}

const um_transport_def *um__transport_find(const um_context *ctx, const char *name) {
  for (int i = 0; name && i < ntransports(ctx); i++)
    if (transport_at(ctx, i) && !strcasecmp(transport_at(ctx, i)->name, name)) return transport_at(ctx, i);
  return NULL;
}

/* 1 if the space-separated list names backend (NULL: every backend) */
static int serves(const um_transport_def *t, const char *backend) {
  if (!t->backends) return 1;
  const size_t l = backend ? strlen(backend) : 0;
  for (const char *p = t->backends; l && *p;) {
    const size_t w = strcspn(p, " ");
    if (w == l && !strncasecmp(p, backend, l)) return 1;
    p += w + (p[w] == ' ');
  }
  return 0;
}

const um_transport_def *um__transport_for_backend(const um_context *ctx, const char *backend) {
  for (int i = 0; i < ntransports(ctx); i++) {
    const um_transport_def *t = transport_at(ctx, i);
    if (t && t->device && serves(t, backend)) return t;
  }
  return NULL;
}

int um__transport_count(void) { return NBUILTIN; }
const char *um__transport_at(int i) { return i >= 0 && i < NBUILTIN ? builtin[i]->name : NULL; }

int umd_choose_transport(int want, const char *name, int nranks, const int *usable, const char *const *why,
                         const char *const *host, const char *const *dev, char *note, size_t n) {
  if (want == UM_TRANSPORT_HOST) {
    snprintf(note, n, "asked for: rows packed on the device, sent with MPI from pinned host buffers");
    return UM_TRANSPORT_HOST;
  }
  char reason[200] = "";
  if (!name) {
    snprintf(reason, sizeof reason, "the backend has no device-to-device transport");
  } else {
    for (int r = 0; r < nranks && !reason[0]; r++)
      if (!usable[r]) snprintf(reason, sizeof reason, "rank %d cannot use %s: %s", r, name, why[r] ? why[r] : "");
    for (int r = 0; r < nranks && !reason[0]; r++)
      for (int q = r + 1; q < nranks && !reason[0]; q++)
        if (!strcmp(dev[r], dev[q]) && !strcmp(host[r], host[q]))
          snprintf(reason, sizeof reason, "ranks %d and %d share one GPU (%s needs a GPU per rank)", r, q, name);
    for (int r = 1; r < nranks && !reason[0] && want == UM_TRANSPORT_AUTO; r++)
      if (strcmp(host[r], host[0]))
        snprintf(reason, sizeof reason, "ranks 0 and %d are on different hosts (%.60s, %.60s)", r, host[0], host[r]);
  }
  if (reason[0] && want == UM_TRANSPORT_DEVICE) {
    snprintf(note, n, "mpi.gpu_transport %s cannot run: %s; use mpi.gpu_transport host (or auto)", name ? name : "device",
             reason);
    return -1;
  }
  if (reason[0]) {
    snprintf(note, n, "%s: rows sent with MPI from pinned host buffers", reason);
    return UM_TRANSPORT_HOST;
  }
  if (want == UM_TRANSPORT_DEVICE) snprintf(note, n, "asked for: device buffers sent GPU to GPU");
  else snprintf(note, n, "every rank has its own GPU on one host: device buffers sent GPU to GPU");
  return UM_TRANSPORT_DEVICE;
}

#ifdef UM_HAVE_MPI

/* What each rank knows of itself: can it use the candidate, on which host and device. */
struct who {
  int usable;
  char why[200], host[MPI_MAX_PROCESSOR_NAME + 1], dev[80];
};

/* Every rank's facts gathered, then the rule: UM_TRANSPORT_DEVICE (T), UM_TRANSPORT_HOST, or an error. */
static int decide(um_context *ctx, struct um_dist *D, const um_transport_def *T, int want, int *choice) {
  um_partition_info *info = &D->info;
  struct who me, *all = calloc((size_t)D->nranks, sizeof *all);
  const char **why = calloc((size_t)D->nranks, sizeof *why), **host = calloc((size_t)D->nranks, sizeof *host),
             **dev = calloc((size_t)D->nranks, sizeof *dev);
  int *usable = calloc((size_t)D->nranks, sizeof *usable);
  if (!all || !why || !host || !dev || !usable) {
    free(all), free(why), free(host), free(dev), free(usable);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory choosing the GPU transport");
  }
  memset(&me, 0, sizeof me);
  int len = 0, rc = UM_SUCCESS;
  MPI_Get_processor_name(me.host, &len);
  if (T && want != UM_TRANSPORT_HOST) {
    me.usable = T->usable(ctx, me.why, sizeof me.why);
    if (me.usable && T->device_id(ctx, me.dev, sizeof me.dev) != UM_SUCCESS) {
      me.usable = 0;
      snprintf(me.why, sizeof me.why, "%s", um_error_message(ctx));
    }
  }
  int m = MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, D->comm);
  if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Allgather (GPU transport)");
  *choice = UM_TRANSPORT_HOST;
  if (rc == UM_SUCCESS) {
    for (int r = 0; r < D->nranks; r++) usable[r] = all[r].usable, why[r] = all[r].why, host[r] = all[r].host, dev[r] = all[r].dev;
    *choice = umd_choose_transport(want, T ? T->name : NULL, D->nranks, usable, why, host, dev, info->transport_note,
                                   sizeof info->transport_note);
    if (*choice < 0) rc = UM_ERROR(ctx, UM_ERR_CONFIG, "%s", info->transport_note);
    else if (*choice == UM_TRANSPORT_DEVICE && want == UM_TRANSPORT_DEVICE && T->what)
      snprintf(info->transport_note, sizeof info->transport_note, "asked for: %s", T->what);
  }
  free(all), free(why), free(host), free(dev), free(usable);
  return rc;
}

/* Rank 0's token to every rank, then every rank joins T. *fallback 1 (auto) when some rank could not: the note
 * says which and why, every rank then sends through host memory. */
#define TOKEN_MAX 1024
static int open_all(um_context *ctx, struct um_dist *D, const um_transport_def *T, int want, int *fallback) {
  um_partition_info *info = &D->info;
  unsigned char token[TOKEN_MAX];
  size_t tlen = 0;
  int ok = D->rank != 0 || !T->token || T->token(ctx, token, sizeof token, &tlen) == UM_SUCCESS;
  int hdr[2] = {ok, (int)tlen}, m;
  *fallback = 0;
  if ((m = MPI_Bcast(hdr, 2, MPI_INT, 0, D->comm)) != MPI_SUCCESS) return mpi_fail(ctx, m, "MPI_Bcast (GPU transport)");
  if (hdr[0] && hdr[1] && (m = MPI_Bcast(token, hdr[1], MPI_BYTE, 0, D->comm)) != MPI_SUCCESS)
    return mpi_fail(ctx, m, "MPI_Bcast (GPU transport)");
  char msg[UM_ERRMSG_LEN] = "";
  if (!hdr[0]) snprintf(msg, sizeof msg, "%s", D->rank == 0 ? um_error_message(ctx) : "");
  else if (T->open(ctx, token, (size_t)hdr[1], D->rank, D->nranks, &D->tstate) != UM_SUCCESS)
    snprintf(msg, sizeof msg, "%s", um_error_message(ctx));
  else D->T = T; /* open here: closed with the context, even if another rank failed */
  struct { int v, r; } in = {msg[0] || !hdr[0], D->rank}, out; /* the first rank that failed */
  if ((m = MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, D->comm)) != MPI_SUCCESS)
    return mpi_fail(ctx, m, "MPI_Allreduce (GPU transport)");
  const int first = out.v ? out.r : -1;
  if (first < 0) return UM_SUCCESS;
  /* that rank's words to every rank */
  if ((m = MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, D->comm)) != MPI_SUCCESS)
    return mpi_fail(ctx, m, "MPI_Bcast (GPU transport)");
  msg[sizeof msg - 1] = 0;
  if (want == UM_TRANSPORT_DEVICE)
    return UM_ERROR(ctx, UM_ERR_BACKEND, "mpi.gpu_transport %s: rank %d could not start it: %s", T->name, first, msg);
  snprintf(info->transport_note, sizeof info->transport_note,
           "%s could not start on rank %d (%.150s): rows sent with MPI from pinned host buffers", T->name, first, msg);
  *fallback = 1;
  return UM_SUCCESS;
}

int um__transport_setup(um_context *ctx, struct um_dist *D) {
  um_partition_info *info = &D->info;
  const um_backend_def *B = ctx->backend;
  int want = ctx->transport;
  const um_transport_def *T = NULL;
  if (want == UM_TRANSPORT_LOOPBACK) { /* by name, on any backend (its buffers are host memory) */
    T = um__transport_find(ctx, "loopback");
    want = UM_TRANSPORT_DEVICE;
  } else if (!on_device(ctx)) {
    snprintf(info->transport, sizeof info->transport, "host");
    snprintf(info->transport_note, sizeof info->transport_note, "the %s backend keeps dats in host memory%s",
             B->name, ctx->transport == UM_TRANSPORT_DEVICE ? " (mpi.gpu_transport applies to GPU ranks only)" : "");
    return UM_SUCCESS;
  } else {
    T = um__transport_for_backend(ctx, B->name);
  }
  int choice = UM_TRANSPORT_HOST, fallback = 0;
  UM_CHECK(ctx, decide(ctx, D, T, want, &choice));
  if (choice == UM_TRANSPORT_DEVICE) UM_CHECK(ctx, open_all(ctx, D, T, want, &fallback));
  D->peer = choice == UM_TRANSPORT_DEVICE && !fallback;
  D->peer_min = ctx->transport == UM_TRANSPORT_AUTO ? (double)ctx->transport_min_bytes : 0;
  if (D->peer && D->peer_min > 0) {
    snprintf(info->transport, sizeof info->transport, "%s+host", T->name);
    const size_t l = strlen(info->transport_note);
    snprintf(info->transport_note + l, sizeof info->transport_note - l,
             ", for exchanges of %.0f KiB or more per rank; smaller ones through pinned host buffers",
             D->peer_min / 1024);
  } else {
    snprintf(info->transport, sizeof info->transport, "%s", D->peer ? T->name : "host");
  }
  return UM_SUCCESS;
}

void um__transport_close(um_context *ctx, struct um_dist *D) {
  if (D->T && D->T->close) D->T->close(ctx, D->tstate);
  D->T = NULL;
  D->tstate = NULL;
}

#endif /* UM_HAVE_MPI */
