/* dist_exchange.c: the halo exchange (owner -> halo rows, PetscSF's Bcast), reverse increments
 * (halo -> owner rows, PetscSF's Reduce), reductions across ranks, the global view of dats and maps
 * and the loop statistics combined across ranks. The lists it uses are built by dist_migrate.c. */
#include "dist_impl.h"

#include <limits.h>

#ifdef UM_HAVE_MPI

/* ---- the halo exchange ------------------------------------------------------------------- */

/* After rows of d changed where on_device says: that copy alone is current. */
static void rows_changed(um_dat *d, int dev) {
  if (dev) um_dat_set_valid(d, UM_VALID_DEVICE);
  else um__dat_host_changed(d);
}

/* The device's queued work is done (packed rows are in the send buffer; the receive buffer may
 * be written again). */
static int device_wait(um_context *ctx) {
  if (ctx->backend->exec.sync) UM_CHECK(ctx, ctx->backend->exec.sync(ctx, ctx->bstate));
  return UM_SUCCESS;
}

/* The message buffers: pinned host memory the device reads and writes when halo rows move on the
 * device, else malloc'ed. Sized by the largest exchange so far (to a whole page), not a power of two
 * above it: an exchange of wide rows (miniAero's 20 doubles a halo row) would hold up to twice its
 * bytes in each direction. Contents need not survive growth: the old buffer goes first (once the
 * device has stopped reading it), so the two are never held together. */
static int ensure(um_context *ctx, int peer, char **buf, size_t *cap, size_t need) {
  if (need <= *cap) return UM_SUCCESS;
  const size_t nc = (need + 4095) / 4096 * 4096;
  const int dev = on_device(ctx);
  if (*buf && dev) UM_CHECK(ctx, device_wait(ctx));
  const int host_grows = *buf && !peer && !dev;
  buffer_free(ctx, peer, *buf);
  *buf = NULL;
  *cap = 0;
  if (host_grows) umd_heap_release(); /* the smaller buffer's pages: not kept resident in a heap hole */
  char *p = peer ? ctx->dist->T->alloc(ctx, ctx->dist->tstate, nc)
            : dev ? ctx->backend->data.host_alloc(ctx, ctx->bstate, nc)
                  : malloc(nc);
  if (!p)
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of %s memory for %zu bytes of halo messages",
                    peer ? (ctx->dist->T->device ? "device" : "transport") : dev ? "pinned" : "host", nc);
  *buf = p;
  *cap = nc;
  return UM_SUCCESS;
}

/* Post the messages of n dats: forward (owner -> halo copies: each neighbour's export rows sent, its
 * import rows received) or backward (reverse increments: halo copies -> owner, the mirror). The
 * received rows wait in the receive buffer (D->pend says where) for the caller to copy or add them. */
static int post_messages(um_context *ctx, um_dat *const *dats, int n, um_loop_rec *rec, int backward) {
  struct um_dist *D = ctx->dist;
  const int dev = on_device(ctx);
  size_t sneed = 0, rneed = 0;
  int nmsg = 0;
  for (int i = 0; i < n; i++) {
    const umd_set *S = &D->sets[dats[i]->set->index];
    const size_t row = (size_t)dats[i]->dim * dats[i]->esize;
    sneed += (size_t)(backward ? S->imp_off : S->exp_off)[S->nnb] * row;
    rneed += (size_t)(backward ? S->exp_off : S->imp_off)[S->nnb] * row;
    nmsg += 2 * S->nnb;
  }
  /* device to device, or through host memory (the same choice on every rank: from global halo sizes) */
  double halo_bytes = 0;
  for (int i = 0; D->peer && i < n; i++)
    halo_bytes += um__dist_set_halo_total(ctx, dats[i]->set, 0) * (double)dats[i]->dim * (double)dats[i]->esize;
  D->use_peer = D->peer && halo_bytes / D->nranks >= D->peer_min;
  /* device buffers are sized by the global halo (no rank sends or receives more), so every rank reallocates
   * them at the same exchanges: a backend that keeps exchanges by their buffers (CUDA graphs of NCCL groups)
   * sees the same exchanges on every rank */
  if (D->use_peer) {
    size_t g = (size_t)halo_bytes;
    if (g < sneed) g = sneed;
    if (g < rneed) g = rneed;
    sneed = rneed = g;
  }
  struct msgbuf *B = &D->buf[D->use_peer];
  UM_CHECK(ctx, ensure(ctx, D->use_peer, &B->s, &B->scap, sneed + 1));
  UM_CHECK(ctx, ensure(ctx, D->use_peer, &B->r, &B->rcap, rneed + 1));
  char *const sbuf = B->s, *const rbuf = B->r;
  if (UM_GROW(D->reqs, D->capreqs, nmsg) || UM_GROW(D->pend, D->cappend, nmsg) ||
      (D->use_peer && UM_GROW(D->msgs, D->capmsgs, nmsg)))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory exchanging halos");
  /* pack: each dat's rows for all its neighbours, contiguous in neighbour order */
  size_t so = 0;
  for (int i = 0; i < n; i++) {
    um_dat *d = dats[i];
    const umd_set *S = &D->sets[d->set->index];
    const size_t row = (size_t)d->dim * d->esize;
    const int *soff = backward ? S->imp_off : S->exp_off, *sl = backward ? S->imp : S->exp;
    const int ns = soff[S->nnb] - soff[0];
    if (dev && ns) {
      UM_CHECK(ctx, ctx->backend->data.rows_out(ctx, ctx->bstate, d, sl + soff[0], ns, sbuf + so));
    } else if (ns) {
      UM_CHECK(ctx, um__dat_to_host(ctx, d));
      char *p = sbuf + so;
      for (int k = soff[0]; k < soff[S->nnb]; k++, p += row) copy_row_out(d, sl[k], p);
    }
    so += (size_t)ns * row;
  }
  /* host buffers: packed, and the last received rows read (rbuf is free); device buffers: the device
   * orders packing, messages and unpacking itself, the host does not wait */
  if (dev && !D->use_peer) UM_CHECK(ctx, device_wait(ctx));
  D->nreqs = D->npend = 0;
  int nm = 0;
  so = 0;
  size_t ro = 0;
  for (int i = 0; i < n; i++) {
    um_dat *d = dats[i];
    const umd_set *S = &D->sets[d->set->index];
    const size_t row = (size_t)d->dim * d->esize;
    const int *soff = backward ? S->imp_off : S->exp_off;
    const int *roff = backward ? S->exp_off : S->imp_off;
    for (int j = 0; j < S->nnb; j++) {
      const int nr = roff[j + 1] - roff[j], ns = soff[j + 1] - soff[j];
      if (nr && D->use_peer) {
        D->msgs[nm++] = (um_transport_msg){S->nb[j], 0, rbuf + ro, (size_t)nr * row, 2 * d->index + backward};
      } else if (nr) {
        MPI_TRY(ctx, MPI_Irecv(rbuf + ro, (int)((size_t)nr * row), MPI_BYTE, S->nb[j], d->index, D->comm,
                               &D->reqs[D->nreqs++]),
                "MPI_Irecv (halo)");
      }
      if (nr) {
        D->pend[D->npend++] = (struct pending){d, j, ro};
        ro += (size_t)nr * row;
      }
      if (ns && D->use_peer) {
        D->msgs[nm++] = (um_transport_msg){S->nb[j], 1, sbuf + so, (size_t)ns * row, 2 * d->index + backward};
      } else if (ns) {
        MPI_TRY(ctx, MPI_Isend(sbuf + so, (int)((size_t)ns * row), MPI_BYTE, S->nb[j], d->index, D->comm,
                               &D->reqs[D->nreqs++]),
                "MPI_Isend (halo)");
      }
      if (ns) {
        so += (size_t)ns * row;
        rec->halo_messages++;
        rec->halo_bytes += (double)ns * (double)row;
      }
    }
  }
  /* one group, queued after the packing (every rank posts its messages in the same dat order, so the k-th send
   * between two ranks meets the k-th receive) */
  if (D->use_peer) UM_CHECK(ctx, D->T->post(ctx, D->tstate, D->msgs, nm, (int)(rec - ctx->loops)));
  return UM_SUCCESS;
}

/* The messages posted have arrived (MPI: waited for on the host; device transport: the device's later work
 * waits for them, the host does not). */
static int wait_messages(um_context *ctx, um_loop_rec *rec, const char *what) {
  struct um_dist *D = ctx->dist;
  if (D->use_peer) return D->T->wait(ctx, D->tstate, (int)(rec - ctx->loops));
  MPI_TRY(ctx, MPI_Waitall(D->nreqs, D->reqs, MPI_STATUSES_IGNORE), what);
  return UM_SUCCESS;
}

int um__dist_exchange_begin(um_context *ctx, um_dat *const *dats, int n, um_loop_rec *rec) {
  struct um_dist *D = ctx->dist;
  const double t0 = MPI_Wtime();
  D->t_begin = t0;
  UM_CHECK(ctx, post_messages(ctx, dats, n, rec, 0));
  rec->halo_exchanges += n;
  rec->halo_seconds += MPI_Wtime() - t0;
  return UM_SUCCESS;
}

/* The received rows into their dat (forward: copied into the halo copies; backward: added into
 * the owned rows, in the order posted: dat by dat, neighbours by rank, so sums do not depend on
 * arrival). On the device the copies and sums are queued on its stream, in that order. */
static int unpack(um_context *ctx, int backward) {
  struct um_dist *D = ctx->dist;
  const int dev = on_device(ctx);
  for (int i = 0; i < D->npend; i++) {
    um_dat *d = D->pend[i].d;
    const umd_set *S = &D->sets[d->set->index];
    const size_t row = (size_t)d->dim * d->esize;
    const char *p = D->buf[D->use_peer].r + D->pend[i].off;
    const int j = D->pend[i].j;
    const int *off = backward ? S->exp_off : S->imp_off, *rows = (backward ? S->exp : S->imp) + off[j];
    const int nr = off[j + 1] - off[j];
    if (dev) {
      UM_CHECK(ctx, ctx->backend->data.rows_in(ctx, ctx->bstate, d, rows, nr, p, backward));
    } else {
      UM_CHECK(ctx, um__dat_to_host(ctx, d));
      for (int k = 0; k < nr; k++, p += row) {
        if (!backward) {
          copy_row_in(d, rows[k], p);
          continue;
        }
        for (int c = 0; c < d->dim; c++)
          um__combine(elem_ptr(d, rows[k], c), p + (size_t)c * d->esize, 1, d->type, UM_INC);
      }
    }
    rows_changed(d, dev);
  }
  D->nreqs = D->npend = 0;
  return UM_SUCCESS;
}

int um__dist_progress_piece(const um_context *ctx, const um_loop *loop) {
  const struct um_dist *D = ctx->dist;
  if (!D || D->use_peer || on_device(ctx) || D->nreqs == 0) return 0;
  /* about 16 pieces, none under 8192 elements, in whole blocks (the chunks of a piece are those of the whole) */
  const int bs = loop->block_size > 0 ? loop->block_size : 1;
  int piece = (loop->end - loop->begin) / 16;
  if (piece < 8192) piece = 8192;
  return (piece + bs - 1) / bs * bs;
}

int um__dist_progress(um_context *ctx) {
  struct um_dist *D = ctx->dist;
  int done = 0;
  MPI_TRY(ctx, MPI_Testall(D->nreqs, D->reqs, &done, MPI_STATUSES_IGNORE), "MPI_Testall (halo progress)");
  return UM_SUCCESS;
}

int um__dist_exchange_end(um_context *ctx, um_loop_rec *rec, int hidden) {
  struct um_dist *D = ctx->dist;
  const double t0 = MPI_Wtime();
  if (hidden && !D->use_peer) rec->halo_hidden += t0 - D->t_begin; /* device transport: measured by the backend */
  /* core work starts now (device transport: the device orders it, the host does not wait; a backend that
   * records a step as one graph keeps recording) */
  if (hidden && !D->use_peer && ctx->backend->extras.flush) UM_CHECK(ctx, ctx->backend->extras.flush(ctx, ctx->bstate));
  UM_CHECK(ctx, wait_messages(ctx, rec, "MPI_Waitall (halo)"));
  UM_CHECK(ctx, unpack(ctx, 0));
  rec->halo_seconds += MPI_Wtime() - t0;
  return UM_SUCCESS;
}

/* ---- reverse increments (PetscSF's Reduce) -------------------------------------------------- */

int um__dist_zero_halo(um_context *ctx, um_dat *d) {
  const umd_set *S = &ctx->dist->sets[d->set->index];
  if (on_device(ctx)) {
    UM_CHECK(ctx, ctx->backend->data.rows_zero(ctx, ctx->bstate, d, d->set->size, S->total));
    rows_changed(d, 1);
    return UM_SUCCESS;
  }
  UM_CHECK(ctx, um__dat_to_host(ctx, d));
  /* the additive identity: -0.0 for floating point, so an owner's -0.0 target that other ranks add only -0.0
   * to keeps its sign as on one process (+0.0 + -0.0 is +0.0); 0 for int (the device's rows_zero fills the
   * same) */
  for (int i = d->set->size; i < S->total; i++)
    for (int c = 0; c < d->dim; c++) {
      void *p = elem_ptr(d, i, c);
      if (d->type == UM_DOUBLE) *(double *)p = -0.0;
      else if (d->type == UM_FLOAT) *(float *)p = -0.0f;
      else memset(p, 0, d->esize);
    }
  um__dat_host_changed(d);
  return UM_SUCCESS;
}

int um__dist_reverse(um_context *ctx, um_dat *const *dats, int n, um_loop_rec *rec) {
  const double t0 = MPI_Wtime();
  UM_CHECK(ctx, post_messages(ctx, dats, n, rec, 1));
  UM_CHECK(ctx, wait_messages(ctx, rec, "MPI_Waitall (increments)"));
  UM_CHECK(ctx, unpack(ctx, 1));
  rec->halo_seconds += MPI_Wtime() - t0;
  return UM_SUCCESS;
}

double um__dist_set_halo_total(const um_context *ctx, const um_set *s, int exec_only) {
  const struct um_dist *D = ctx->dist;
  if (!D || s->index >= D->nsets) return 0;
  double n = 0;
  for (int q = 0; q < D->nranks; q++) n += D->sets[s->index].all_exec[q] + (exec_only ? 0 : D->sets[s->index].all_nonexec[q]);
  return n;
}

/* ---- reductions --------------------------------------------------------------------------- */

int um__dist_reduce(um_context *ctx, um_loop *loop) {
  struct um_dist *D = ctx->dist;
  size_t bytes = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind == UM_ARG_GBL && a->acc != UM_READ) bytes += (size_t)a->dim * um_type_size(a->type);
  }
  if (!bytes) return UM_SUCCESS;
  char *mine = malloc(bytes), *all = malloc(bytes * (size_t)D->nranks);
  if (!mine || !all) {
    free(mine), free(all);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory combining the reductions of loop '%s'", loop->name);
  }
  size_t o = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_GBL || a->acc == UM_READ) continue;
    const size_t b = (size_t)a->dim * um_type_size(a->type);
    memcpy(mine + o, loop->red[i], b);
    o += b;
  }
  int m = MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, D->comm);
  if (m != MPI_SUCCESS) {
    free(mine), free(all);
    return mpi_fail(ctx, m, "MPI_Allgather (reduction)");
  }
  o = 0;
  for (int i = 0; i < loop->nargs; i++) { /* rank 0's partial, then each rank's in order */
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_GBL || a->acc == UM_READ) continue;
    const size_t b = (size_t)a->dim * um_type_size(a->type);
    memcpy(loop->red[i], all + o, b);
    for (int q = 1; q < D->nranks; q++) { /* through an aligned copy: the packed partials of mixed types are not */
      double part[UM_MAX_SCRATCH_DIM];
      memcpy(part, all + (size_t)q * bytes + o, b);
      um__combine(loop->red[i], part, a->dim, a->type, a->acc);
    }
    o += b;
  }
  free(mine);
  free(all);
  return UM_SUCCESS;
}

/* ---- the global view ---------------------------------------------------------------------- */

int um__dist_agree(um_context *ctx, int rc) {
  struct um_dist *D = ctx->dist;
  if (!D) return rc;
  int first = D->nranks; /* the lowest rank that failed; nranks: none */
  MPI_TRY(ctx, MPI_Allreduce((int[]){rc ? D->rank : D->nranks}, &first, 1, MPI_INT, MPI_MIN, D->comm),
          "agreeing on an output step");
  if (first == D->nranks) return UM_SUCCESS;
  struct {
    int code;
    char msg[UM_ERRMSG_LEN];
  } m;
  memset(&m, 0, sizeof m);
  if (D->rank == first) {
    m.code = rc;
    snprintf(m.msg, sizeof m.msg, "%s", ctx->errmsg);
  }
  MPI_TRY(ctx, MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, D->comm), "agreeing on an output step");
  if (D->rank != first) {
    char msg[UM_ERRMSG_LEN];
    snprintf(msg, sizeof msg, "%s", m.msg);
    if (first) um_error_set(ctx, m.code, "rank %d: %s", first, msg);
    else um_error_set(ctx, m.code, "%s", msg);
  }
  return m.code;
}

int umd_gather_order(um_context *ctx, umd_set *S, const um_set *s) {
  struct um_dist *D = ctx->dist;
  if (S->gather_g) return UM_SUCCESS;
  if (s->gsize > INT_MAX) /* gsize is the same on every rank: so is the refusal, before any allocation */
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "set '%s' has %lld elements: a whole-set fetch (um_dat_fetch, um_map_fetch, the whole-array "
                    "outputs) takes at most %d; fetch it by blocks (um_dat_fetch_block, um_map_fetch_block)",
                    s->name, s->gsize, INT_MAX);
  UM_CHECK(ctx, umd_l2g_ready(ctx, s->index));
  int *dis = malloc(((size_t)D->nranks + 1) * sizeof *dis), *mine = malloc(((size_t)s->size + 1) * sizeof *mine);
  S->gather_g = malloc((size_t)(s->gsize ? s->gsize : 1) * sizeof(int));
  if (!dis || !mine || !S->gather_g) {
    free(dis), free(mine), free(S->gather_g);
    S->gather_g = NULL;
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory for the gather order of set '%s'", s->name);
  }
  dis[0] = 0;
  for (int q = 0; q < D->nranks; q++) dis[q + 1] = dis[q] + S->all_owned[q];
  for (int i = 0; i < s->size; i++) mine[i] = (int)S->l2g[i]; /* < gsize <= INT_MAX */
  const int m = MPI_Allgatherv(mine, s->size, MPI_INT, S->gather_g, S->all_owned, dis, MPI_INT, D->comm);
  free(dis), free(mine);
  if (m == MPI_SUCCESS) return UM_SUCCESS;
  free(S->gather_g);
  S->gather_g = NULL;
  return mpi_fail(ctx, m, "MPI_Allgatherv (owned elements)");
}

int um__dist_fetch(um_context *ctx, const um_dat *d, void *out) {
  struct um_dist *D = ctx->dist;
  umd_set *S = &D->sets[d->set->index];
  UM_CHECK(ctx, umd_gather_order(ctx, S, d->set));
  const size_t row = (size_t)d->dim * d->esize;
  UM_CHECK(ctx, um__dat_to_host(ctx, (um_dat *)d));
  char *mine = malloc((size_t)(d->set->size ? d->set->size : 1) * row);
  char *all = malloc((size_t)(d->set->gsize ? d->set->gsize : 1) * row);
  int *cnt = malloc((size_t)D->nranks * sizeof *cnt), *dis = malloc((size_t)D->nranks * sizeof *dis);
  MPI_Datatype rt = MPI_DATATYPE_NULL;
  int rc = mine && all && cnt && dis ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching dat '%s'", d->name);
  if (rc == UM_SUCCESS) {
    for (int e = 0; e < d->set->size; e++) copy_row_out(d, e, mine + (size_t)e * row);
    for (int q = 0, o = 0; q < D->nranks; q++) {
      cnt[q] = S->all_owned[q];
      dis[q] = o;
      o += cnt[q];
    }
    int m = MPI_Type_contiguous((int)row, MPI_BYTE, &rt);
    if (m == MPI_SUCCESS) m = MPI_Type_commit(&rt);
    if (m == MPI_SUCCESS) m = MPI_Allgatherv(mine, d->set->size, rt, all, cnt, dis, rt, D->comm);
    if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Allgatherv (dat fetch)");
  }
  if (rc == UM_SUCCESS)
    for (int j = 0; j < d->set->gsize; j++) memcpy((char *)out + (size_t)S->gather_g[j] * row, all + (size_t)j * row, row);
  if (rt != MPI_DATATYPE_NULL) MPI_Type_free(&rt);
  free(mine), free(all), free(cnt), free(dis);
  return rc;
}

int um__dist_fill(um_context *ctx, um_dat *d, const void *in) {
  const umd_set *S = &ctx->dist->sets[d->set->index];
  const size_t row = (size_t)d->dim * d->esize;
  UM_CHECK(ctx, umd_l2g_ready(ctx, d->set->index));
  for (int i = 0; i < S->total; i++) copy_row_in(d, i, (const char *)in + (size_t)S->l2g[i] * row);
  um__dat_host_changed(d);
  d->halo_stale = 0;
  return UM_SUCCESS;
}

int um__dist_map_fetch(um_context *ctx, const um_map *mp, int *out) {
  struct um_dist *D = ctx->dist;
  umd_set *F = &D->sets[mp->from->index];
  const umd_set *T = &D->sets[mp->to->index];
  UM_CHECK(ctx, umd_gather_order(ctx, F, mp->from));
  UM_CHECK(ctx, umd_l2g_ready(ctx, mp->to->index));
  if (mp->to->gsize > INT_MAX) /* the same on every rank */
    return UM_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "map '%s': its to-set '%s' has %lld elements, more than the int targets of a whole-map fetch "
                    "(um_map_fetch) hold; fetch it by blocks (um_map_fetch_block)",
                    mp->name, mp->to->name, mp->to->gsize);
  const int ar = mp->arity, n = mp->from->size;
  int *mine = malloc(((size_t)n * ar + 1) * sizeof(int)), *all = malloc(((size_t)mp->from->gsize * ar + 1) * sizeof(int));
  int *cnt = malloc((size_t)D->nranks * sizeof *cnt), *dis = malloc((size_t)D->nranks * sizeof *dis);
  int rc = mine && all && cnt && dis ? UM_SUCCESS : UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory fetching map '%s'", mp->name);
  if (rc == UM_SUCCESS) {
    for (size_t i = 0; i < (size_t)n * ar; i++) mine[i] = (int)T->l2g[mp->data[i]]; /* gsize <= INT_MAX */
    for (int q = 0, o = 0; q < D->nranks; q++) {
      cnt[q] = F->all_owned[q] * ar;
      dis[q] = o;
      o += cnt[q];
    }
    int m = MPI_Allgatherv(mine, n * ar, MPI_INT, all, cnt, dis, MPI_INT, D->comm);
    if (m != MPI_SUCCESS) rc = mpi_fail(ctx, m, "MPI_Allgatherv (map fetch)");
  }
  if (rc == UM_SUCCESS)
    for (int j = 0; j < mp->from->gsize; j++)
      memcpy(out + (size_t)F->gather_g[j] * ar, all + (size_t)j * ar, (size_t)ar * sizeof(int));
  free(mine), free(all), free(cnt), free(dis);
  return rc;
}

int um_loop_stats_across_ranks(um_context *ctx) {
  UM_CTX_OK(ctx);
  if (!ctx->dist || ctx->dist->nranks == 1) return UM_SUCCESS;
  const MPI_Comm comm = ctx->dist->comm;
  /* the same loops in the same order on every rank, or nothing is combined */
  uint64_t h = UM_FNV_OFFSET;
  for (int i = 0; i < ctx->nloops; i++) h = um_fnv1a(h, ctx->loops[i].name, strlen(ctx->loops[i].name) + 1);
  long id[4] = {ctx->nloops, -(long)ctx->nloops, (long)(h & 0x3fffffffffffffffULL), -(long)(h & 0x3fffffffffffffffULL)};
  long all[4];
  MPI_TRY(ctx, MPI_Allreduce(id, all, 4, MPI_LONG, MPI_MAX, comm), "comparing the ranks' loops");
  if (all[0] != -all[1] || all[2] != -all[3])
    return UM_ERROR(ctx, UM_ERR_BACKEND,
                    "the ranks ran different loops (%d here): their loop times cannot be put side by side",
                    ctx->nloops);
  const int n = ctx->nloops;
  /* p = [(t, rank), (-t, rank)]: one MAXLOC gives the slowest and (negated) the fastest rank and which they are;
   * one SUM the mean */
  struct tr {
    double t;
    int rank;
  } *p = malloc(4 * (size_t)(n > 0 ? n : 1) * sizeof *p);
  double *v = malloc(3 * (size_t)(n > 0 ? n : 1) * sizeof *v); /* seconds, bytes per call, elements */
  if (!p || !v) {
    free(p), free(v);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory combining loop times");
  }
  struct tr *mx = p + 2 * n;
  for (int i = 0; i < n; i++) {
    v[i] = ctx->loops[i].seconds;
    v[n + i] = um__loop_rec_bytes(&ctx->loops[i]);
    v[2 * n + i] = ctx->loops[i].set_size;
    p[i] = (struct tr){v[i], ctx->dist->rank};
    p[n + i] = (struct tr){-v[i], ctx->dist->rank};
  }
  int rc = MPI_Allreduce(p, mx, 2 * n, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  if (rc == MPI_SUCCESS) rc = MPI_Allreduce(MPI_IN_PLACE, v, 3 * n, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
    um_loop_rec *r = &ctx->loops[i];
    r->ranks_timed = ctx->dist->nranks;
    r->rank_max = mx[i].t;
    r->rank_slowest = mx[i].rank;
    r->rank_min = -mx[n + i].t;
    r->rank_fastest = mx[n + i].rank;
    r->rank_mean = v[i] / ctx->dist->nranks;
    r->bytes_ranks = v[n + i];
    r->set_size_ranks = v[2 * n + i];
  }
  free(p), free(v);
  if (rc != MPI_SUCCESS) return mpi_fail(ctx, rc, "combining loop times");
  return UM_SUCCESS;
}
#endif /* UM_HAVE_MPI */
