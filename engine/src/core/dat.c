/* Dat storage: layouts (AoS / SoA), copies to and from the user, and um_sync (the backend's
 * queued work done, so host copies may be read). Calls go one way: loop.c calls this file
 * (um__resolve_layouts, um_sync); it calls nothing in loop.c. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "pass.h"

/* One transpose with the value size es known where it is inlined (8 and 4 below): each copy a single move,
 * where a copy of a size known only at run time is a library call per value (a 2.1M-cell miniAero's dats
 * went through 30M of them at declaration). Rows [e0, e1). */
static inline void transpose_es(char *dst, const char *src, size_t e0, size_t e1, size_t rows, int dim, size_t es,
                                int to_soa) {
  for (size_t e = e0; e < e1; e++)
    for (int c = 0; c < dim; c++) {
      const size_t aos = (e * (size_t)dim + (size_t)c) * es, soa = ((size_t)c * rows + e) * es;
      if (to_soa) memcpy(dst + soa, src + aos, es);
      else memcpy(dst + aos, src + soa, es);
    }
}

static void transpose_rows(char *dst, const char *src, size_t e0, size_t e1, size_t rows, int dim, size_t esize,
                           int to_soa) {
  if (esize == 8) transpose_es(dst, src, e0, e1, rows, dim, 8, to_soa);
  else if (esize == 4) transpose_es(dst, src, e0, e1, rows, dim, 4, to_soa);
  else transpose_es(dst, src, e0, e1, rows, dim, esize, to_soa);
}

/* Below this many bytes a pass stays on one thread (a thread team costs more than it saves). */
#define UM_PAR_BYTES ((size_t)1 << 20)

/* Transpose n x dim values of esize bytes: AoS -> SoA (to_soa) or back; the SoA side has columns of `rows`
 * values (rows >= n). Large ones by nthreads threads, each a range of rows (each value moves once: the same bytes
 * for any count). */
void um__transpose(char *dst, const char *src, size_t n, size_t rows, int dim, size_t esize, int to_soa, int nthreads) {
  const size_t bytes = n * (size_t)dim * esize;
  if (nthreads <= 1 || bytes < UM_PAR_BYTES) {
    transpose_rows(dst, src, 0, n, rows, dim, esize, to_soa);
    return;
  }
#pragma omp parallel num_threads(nthreads)
  {
    size_t e0 = 0, e1 = n;
    um__thread_range(n, &e0, &e1);
    transpose_rows(dst, src, e0, e1, rows, dim, esize, to_soa);
  }
}

void um__copy(void *dst, const void *src, size_t bytes, int nthreads) {
  if (nthreads <= 1 || bytes < UM_PAR_BYTES) {
    memcpy(dst, src, bytes);
    return;
  }
#pragma omp parallel num_threads(nthreads)
  {
    size_t b0 = 0, b1 = bytes;
    um__thread_range(bytes, &b0, &b1);
    memcpy((char *)dst + b0, (const char *)src + b0, b1 - b0);
  }
}

int um__dat_convert(um_context *ctx, um_dat *d, um_layout to) {
  if (to == d->layout || d->dim == 1) {
    d->layout = to;
    return UM_SUCCESS;
  }
  if (d->host_zeros && (d->valid & UM_VALID_HOST)) { /* zeros in either layout: nothing to move */
    d->layout = to;
    um__dat_host_moved(d);
    return UM_SUCCESS;
  }
  UM_CHECK(ctx, um__dat_to_host(ctx, d));
  /* every allocated row moves, halo and padding too */
  size_t n = (size_t)d->rows, bytes = n * (size_t)d->dim * d->esize;
  char *buf = malloc(bytes ? bytes : 1);
  if (!buf) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory converting dat '%s' to %s", d->name, um_layout_name(to));
  um__transpose(buf, d->data, n, n, d->dim, d->esize, to == UM_SOA, um_context_host_threads(ctx));
  free(d->data);
  d->data = buf;
  d->layout = to;
  um__dat_host_moved(d);
  return UM_SUCCESS;
}

/* A dat handed to a function of ctx must be one of ctx's (another context's data lives on its own backend). */
static int dat_of(um_context *ctx, const um_dat *d, const char *fn) {
  if (d->ctx == ctx) return UM_SUCCESS;
  return UM_ERROR(ctx, UM_ERR_ARG, "%s: dat '%s' belongs to another context; pass the context that declared it", fn,
                  d->name);
}

int um__dat_soa_refused(um_context *ctx, const char *name, int dim) {
  return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s' of dim %d is too wide for SoA (at most %d values of 8 bytes a row: a "
                  "loop gathers an SoA row into registers); keep it AoS", name, dim, UM_MAX_SCRATCH_DIM);
}

int um_dat_set_layout(um_context *ctx, um_dat *d, um_layout layout) {
  UM_CTX_OK(ctx);
  if (!d)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!d)", __func__);
  UM_CHECK(ctx, dat_of(ctx, d, __func__));
  if (layout != UM_AOS && layout != UM_SOA && layout != UM_LAYOUT_AUTO)
    return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s': unknown layout %d", d->name, (int)layout);
  if (layout != UM_AOS && !um__dat_soa_fits(d->dim, d->esize)) { /* a row gathered into registers: too wide */
    if (layout == UM_LAYOUT_AUTO) return um__dat_convert(ctx, d, UM_AOS); /* auto: the engine's choice, AoS */
    return um__dat_soa_refused(ctx, d->name, d->dim);
  }
  if (layout == UM_LAYOUT_AUTO) {
    /* Decided at first use: SoA while only accessed directly, AoS from the
     * first indirect access on (see um__resolve_layouts). */
    d->layout_auto = 1;
    UM_CHECK(ctx, um__dat_convert(ctx, d, UM_SOA));
    return UM_SUCCESS;
  }
  d->layout_auto = 0;
  UM_CHECK(ctx, um__dat_convert(ctx, d, layout));
  return UM_SUCCESS;
}

int um__resolve_layouts(um_context *ctx, const um_loop *loop) {
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT || !a->dat->layout_auto || !a->map) continue;
    a->dat->layout_auto = 0;
    UM_CHECK(ctx, um__dat_convert(ctx, a->dat, UM_AOS));
  }
  return UM_SUCCESS;
}

/* The caller's view is the whole set (every rank's elements when distributed). */
static int check_bytes(um_context *ctx, const um_dat *d, size_t bytes, const char *fn) {
  if (d->set->block && !ctx->dist)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s('%s'): set '%s' is declared by blocks: its whole view exists after um_distribute",
                    fn, d->name, d->set->name);
  size_t want = (size_t)d->set->gsize * (size_t)d->dim * d->esize;
  if (bytes != want)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s('%s'): buffer is %zu bytes but the dat holds %lld x %d %s = %zu bytes", fn,
                    d->name, bytes, d->set->gsize, d->dim, um_type_name(d->type), want);
  return UM_SUCCESS;
}

int um_sync(um_context *ctx) {
  UM_CTX_OK(ctx);
  if (ctx->backend && ctx->backend->exec.sync) UM_CHECK(ctx, ctx->backend->exec.sync(ctx, ctx->bstate));
  return UM_SUCCESS;
}

double um_context_mesh_bytes(const um_context *ctx) {
  if (!ctx) return 0;
  double b = 0;
  for (int i = 0; i < ctx->nmaps; i++)
    b += (double)um__set_total(ctx->maps[i]->from) * ctx->maps[i]->arity * sizeof(int);
  for (int i = 0; i < ctx->ndats; i++) b += (double)ctx->dats[i]->rows * ctx->dats[i]->dim * ctx->dats[i]->esize;
  return b;
}

int um_prefetch(um_context *ctx, double *bytes) {
  UM_CTX_OK(ctx);
  if (bytes) *bytes = 0;
  if (!ctx->backend || !ctx->backend->data.prefetch) return UM_SUCCESS;
  um_dat **list = malloc(sizeof *list * (size_t)(ctx->ndats ? ctx->ndats : 1));
  if (!list) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory listing %d dats to copy ahead", ctx->ndats);
  int n = 0;
  for (int i = 0; i < ctx->ndats; i++) /* a layout still to be decided would be transposed at its first loop */
    if (!ctx->dats[i]->layout_auto) list[n++] = ctx->dats[i];
  double b = 0;
  int rc = ctx->backend->data.prefetch(ctx, ctx->bstate, list, n, &b);
  free(list);
  if (rc) return rc;
  if (bytes) *bytes = b;
  return um_sync(ctx);
}

int um_dat_fetch(um_context *ctx, const um_dat *d, void *out, size_t bytes) {
  UM_CTX_OK(ctx);
  if (!d || (!out && bytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!d || (!out && bytes))", __func__);
  UM_CHECK(ctx, dat_of(ctx, d, __func__));
  UM_CHECK(ctx, check_bytes(ctx, d, bytes, "um_dat_fetch"));
  UM_CHECK(ctx, um_sync(ctx));
  um__ck_read(ctx, d);
  if (ctx->dist) return ctx->dist_ops->fetch(ctx, d, out); /* collective, also for 0 bytes */
  if (!bytes) return UM_SUCCESS;
  UM_CHECK(ctx, um__dat_to_host(ctx, (um_dat *)d));
  const int nt = um_context_host_threads(ctx);
  if (d->layout == UM_SOA && d->dim > 1) um__transpose(out, d->data, (size_t)d->set->size, (size_t)d->rows, d->dim, d->esize, 0, nt);
  else um__copy(out, d->data, bytes, nt);
  return UM_SUCCESS;
}

int um_dat_update(um_context *ctx, um_dat *d, const void *in, size_t bytes) {
  UM_CTX_OK(ctx);
  if (!d || (!in && bytes))
    return UM_ERROR(ctx, UM_ERR_ARG, "%s: a NULL or out-of-range argument (!d || (!in && bytes))", __func__);
  UM_CHECK(ctx, dat_of(ctx, d, __func__));
  UM_CHECK(ctx, check_bytes(ctx, d, bytes, "um_dat_update"));
  UM_CHECK(ctx, um_sync(ctx));
  um__ck_overwrite(ctx, d);
  if (ctx->dist) return ctx->dist_ops->fill(ctx, d, in); /* every local row, halo too, from the global values */
  if (!bytes) return UM_SUCCESS;
  /* the host copy takes the owned rows; rows beyond them (halo, padding) must be current too */
  if (d->rows > d->set->size) UM_CHECK(ctx, um__dat_to_host(ctx, d));
  const int nt = um_context_host_threads(ctx);
  if (d->layout == UM_SOA && d->dim > 1) um__transpose(d->data, in, (size_t)d->set->size, (size_t)d->rows, d->dim, d->esize, 1, nt);
  else um__copy(d->data, in, bytes, nt);
  um__dat_host_changed(d);
  return UM_SUCCESS;
}

int um__dat_to_host(um_context *ctx, um_dat *d) {
  if (d->valid & UM_VALID_HOST) return UM_SUCCESS;
  if (!ctx->backend || !ctx->backend->data.dat_to_host)
    return UM_ERROR(ctx, UM_ERR_INTERNAL, "dat '%s': no valid copy on the host and the backend cannot provide one",
                    d->name);
  UM_CHECK(ctx, ctx->backend->data.dat_to_host(ctx, ctx->bstate, d));
  d->valid |= UM_VALID_HOST;
  d->host_zeros = 0;
  return UM_SUCCESS;
}

void um__dat_host_changed(um_dat *d) {
  d->valid = UM_VALID_HOST;
  d->host_zeros = 0;
}
void um__dat_host_moved(um_dat *d) { d->valid = UM_VALID_HOST; }

/* ---- what backends see of a dat (um/backend.h) ---- */
int um_dat_valid(const um_dat *d) { return d->valid; }
void um_dat_set_valid(um_dat *d, int mask) { d->valid = mask; }
void *um_dat_host_data(const um_dat *d) { return d->data; }
size_t um_dat_bytes(const um_dat *d) { return (size_t)d->rows * (size_t)d->dim * d->esize; }
void *um_dat_backend_data(const um_dat *d) { return d->backend_data; }
void um_dat_set_backend_data(um_dat *d, void *p) { d->backend_data = p; }
int um_dat_contribution(const um_dat *d) { return d && d->contrib; }
int um__contrib_staged(const um_dat *d) { return d && d->contrib && (size_t)d->dim * d->esize <= UM_EXEC_STAGE_BYTES; }
int um_dat_host_zeros(const um_dat *d) { return d && d->host_zeros; }
um_layout um_dat_storage_layout(const um_dat *d) { return d->layout == UM_SOA && d->dim > 1 ? UM_SOA : UM_AOS; }

/* ---- coordinates (mpi.partition_coords' default, umrun --draw) ---- */
static int coord_name(const char *s) {
  static const char *const exact[] = {"x", "xy", "xyz", "coords", "coordinates", NULL};
  static const char *const within[] = {"coord", "centre", "center", NULL};
  static const char *const tail[] = {"_x", "_xy", "_xyz", NULL};
  for (int i = 0; exact[i]; i++)
    if (!strcmp(s, exact[i])) return 1;
  for (int i = 0; within[i]; i++)
    if (strstr(s, within[i])) return 1;
  const size_t l = strlen(s);
  for (int i = 0; tail[i]; i++)
    if (l > strlen(tail[i]) && !strcmp(s + l - strlen(tail[i]), tail[i])) return 1;
  return 0;
}

int um_dat_is_coordinates(const um_dat *d, int by_name) {
  if (!d || !(d->type == UM_DOUBLE || d->type == UM_FLOAT) || !(d->dim == 2 || d->dim == 3)) return 0;
  return !by_name || coord_name(d->name);
}
