/* Dat storage: layouts (AoS / SoA) and copies to and from the user. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Transpose n x dim values of esize bytes: AoS -> SoA (to_soa) or back. */
static void transpose(char *dst, const char *src, size_t n, int dim, size_t esize, int to_soa) {
  for (size_t e = 0; e < n; e++)
    for (int c = 0; c < dim; c++) {
      size_t aos = (e * (size_t)dim + (size_t)c) * esize, soa = ((size_t)c * n + e) * esize;
      if (to_soa) memcpy(dst + soa, src + aos, esize);
      else memcpy(dst + aos, src + soa, esize);
    }
}

int um__dat_convert(um_context *ctx, um_dat *d, um_layout to) {
  if (to == d->layout || d->dim == 1) {
    d->layout = to;
    return UM_SUCCESS;
  }
  if (ctx->hooks && ctx->hooks->dat_to_host) UM_CHECK(ctx, ctx->hooks->dat_to_host(ctx, d));
  size_t n = (size_t)d->set->size, bytes = n * (size_t)d->dim * d->esize;
  char *buf = malloc(bytes ? bytes : 1);
  if (!buf) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory converting dat '%s' to %s", d->name, um_layout_name(to));
  transpose(buf, d->data, n, d->dim, d->esize, to == UM_SOA);
  free(d->data);
  d->data = buf;
  d->layout = to;
  if (ctx->hooks && ctx->hooks->dat_host_changed) ctx->hooks->dat_host_changed(ctx, d);
  return UM_SUCCESS;
}

int um_dat_set_layout(um_context *ctx, um_dat *d, um_layout layout) {
  if (!ctx || !d) return UM_ERR_ARG;
  if (layout != UM_AOS && layout != UM_SOA && layout != UM_LAYOUT_AUTO)
    return UM_ERROR(ctx, UM_ERR_ARG, "dat '%s': unknown layout %d", d->name, (int)layout);
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

static int check_bytes(um_context *ctx, const um_dat *d, size_t bytes, const char *fn) {
  size_t want = (size_t)d->set->size * (size_t)d->dim * d->esize;
  if (bytes != want)
    return UM_ERROR(ctx, UM_ERR_ARG, "%s('%s'): buffer is %zu bytes but the dat holds %d x %d %s = %zu bytes", fn,
                    d->name, bytes, d->set->size, d->dim, um_type_name(d->type), want);
  return UM_SUCCESS;
}

int um_dat_fetch(um_context *ctx, const um_dat *d, void *out, size_t bytes) {
  if (!ctx || !d || (!out && bytes)) return UM_ERR_ARG;
  UM_CHECK(ctx, check_bytes(ctx, d, bytes, "um_dat_fetch"));
  UM_CHECK(ctx, um_sync(ctx));
  if (!bytes) return UM_SUCCESS;
  if (ctx->hooks && ctx->hooks->dat_to_host) UM_CHECK(ctx, ctx->hooks->dat_to_host(ctx, d));
  if (d->layout == UM_SOA && d->dim > 1) transpose(out, d->data, (size_t)d->set->size, d->dim, d->esize, 0);
  else memcpy(out, d->data, bytes);
  return UM_SUCCESS;
}

int um_dat_update(um_context *ctx, um_dat *d, const void *in, size_t bytes) {
  if (!ctx || !d || (!in && bytes)) return UM_ERR_ARG;
  UM_CHECK(ctx, check_bytes(ctx, d, bytes, "um_dat_update"));
  UM_CHECK(ctx, um_sync(ctx));
  if (!bytes) return UM_SUCCESS;
  if (d->layout == UM_SOA && d->dim > 1) transpose(d->data, in, (size_t)d->set->size, d->dim, d->esize, 1);
  else memcpy(d->data, in, bytes);
  if (ctx->hooks && ctx->hooks->dat_host_changed) ctx->hooks->dat_host_changed(ctx, d);
  return UM_SUCCESS;
}
