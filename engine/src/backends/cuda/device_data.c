/* Dats, maps and constants on the GPU. Calls go one way: this file calls timing.c (cu_sync, before
 * a dat is read back) and cuda_error.c; timing.c calls nothing here. */
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "../../util/array.h"

/* ---- small helpers -------------------------------------------------------------- */

int cu_dalloc(um_context *ctx, void **p, size_t bytes, const char *what, const char *name) {
  *p = NULL;
  if (!bytes) bytes = 16;
  cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    size_t fr = 0, tot = 0;
    cudaGetLastError();
    cudaMemGetInfo(&fr, &tot);
    return um_backend_error(ctx, UM_ERR_ALLOC, __FILE__, __LINE__,
                     "CUDA: cannot allocate %zu bytes on the GPU for %s '%s' (%zu of %zu MB free): %s; use a "
                     "smaller mesh",
                     bytes, what, name, fr >> 20, tot >> 20, cudaGetErrorString(e));
  }
  return UM_SUCCESS;
}

int cu_upload(um_context *ctx, void **d, const void *h, size_t bytes, const char *what, const char *name) {
  UM_BACKEND_CHECK(ctx, cu_dalloc(ctx, d, bytes, what, name));
  UM_BACKEND_CHECK(ctx, cu_flush(ctx, ST(ctx)));
  return bytes ? cu_copy_in(ctx, *d, h, bytes, what, name) : UM_SUCCESS;
}

void cu_dfree(void **p) {
  if (*p) cudaFree(*p);
  *p = NULL;
}

/* ---- dats, maps, constants on the device ------------------------------------------- */

cu_dat *cu_dat_state(const um_dat *d) { return (cu_dat *)um_dat_backend_data(d); }

/* Uploads are timed for the loop cu_run is running (upload_seconds): the host's time in the allocation and the
 * copy since t0 (a copy from pageable memory returns once the driver has staged it). */
static void count_upload(um_context *ctx, double t0) {
  if (ST(ctx)->cur_loop >= 0) um_backend_counter_add(ctx, ST(ctx)->cur_loop, CU_COUNTER_UPLOAD_SECONDS, um_wtime() - t0);
}

/* The device copy of d, allocated at first use (all its rows) and refreshed
 * from the host whenever the host copy is the only current one (cu_dat_on_device times it). */
static int dat_on_device(um_context *ctx, um_dat *d) {
  cu_dat *c = cu_dat_state(d);
  int fresh = 0;
  if (!c) {
    fresh = 1;
    c = calloc(1, sizeof *c);
    if (!c) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
    c->bytes = um_dat_bytes(d);
    int rc = cu_dalloc(ctx, &c->d, c->bytes, "dat", um_dat_name(d));
    if (rc != UM_SUCCESS) {
      free(c);
      return um_backend_trace(ctx, rc, __FILE__, __LINE__);
    }
    um_dat_set_backend_data(d, c);
  }
  if (!(um_dat_valid(d) & UM_VALID_DEVICE) && fresh && um_dat_host_zeros(d)) {
    /* declared without data, or a split loop's new temporary: its host copy is zeros never written (calloc);
     * zeroing on the GPU spares the upload of every row (GBs at scale) and the host's faulting in of its pages */
    UM_BACKEND_CHECK(ctx, cu_flush(ctx, ST(ctx)));
    if (c->bytes)
      CU(ctx, cudaMemsetAsync(c->d, 0, c->bytes, ST(ctx)->stream), "zeroing dat '%s' on the GPU", um_dat_name(d));
    um_dat_set_valid(d, um_dat_valid(d) | UM_VALID_DEVICE);
  }
  if (!(um_dat_valid(d) & UM_VALID_DEVICE)) {
    UM_BACKEND_CHECK(ctx, cu_flush(ctx, ST(ctx)));
    if (c->bytes && ST(ctx)->cur_loop >= 0) um_backend_counter_add(ctx, ST(ctx)->cur_loop, CU_COUNTER_UPLOAD, (double)c->bytes);
    if (c->bytes) UM_BACKEND_CHECK(ctx, cu_copy_in(ctx, c->d, um_dat_host_data(d), c->bytes, "dat", um_dat_name(d)));
    um_dat_set_valid(d, um_dat_valid(d) | UM_VALID_DEVICE);
  }
  return UM_SUCCESS;
}

int cu_dat_on_device(um_context *ctx, um_dat *d) {
  if (um_dat_valid(d) & UM_VALID_DEVICE) return UM_SUCCESS;
  const double t0 = um_wtime();
  const int rc = dat_on_device(ctx, d);
  count_upload(ctx, t0);
  return rc;
}

int cu_dat_to_host(um_context *ctx, void *state, um_dat *d) {
  (void)state;
  cu_dat *c = cu_dat_state(d);
  if (c && c->bytes) {
    UM_BACKEND_CHECK(ctx, cu_flush(ctx, ST(ctx)));
    CU(ctx, cudaMemcpyAsync(um_dat_host_data(d), c->d, c->bytes, cudaMemcpyDeviceToHost, ST(ctx)->stream),
       "copying dat '%s' from the GPU", um_dat_name(d));
    UM_BACKEND_CHECK(ctx, cu_sync(ctx, NULL));
  }
  return UM_SUCCESS;
}

/* Tuning trials (um_backend_data.dat_keep / dat_restore / dat_drop / dat_to_device): a device-side copy
 * of d's rows, restored after each trial. */
static int copy_rows(um_context *ctx, um_dat *d, void *to, const void *from, const char *what) {
  UM_BACKEND_CHECK(ctx, cu_flush(ctx, ST(ctx)));
  const size_t bytes = cu_dat_state(d)->bytes;
  if (bytes)
    CU(ctx, cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, ST(ctx)->stream), "%s dat '%s' for a tuning trial",
       what, um_dat_name(d));
  return UM_SUCCESS;
}

int cu_dat_keep(um_context *ctx, void *state, um_dat *d, void **copy) {
  (void)state;
  cu_dat *c = cu_dat_state(d);
  if (!c) return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "dat '%s' has no device copy to keep for tuning", um_dat_name(d));
  UM_BACKEND_CHECK(ctx, cu_dalloc(ctx, copy, c->bytes, "a tuning copy of dat", um_dat_name(d)));
  return copy_rows(ctx, d, *copy, c->d, "keeping");
}

int cu_dat_restore(um_context *ctx, void *state, um_dat *d, void *copy) {
  (void)state;
  cu_dat *c = cu_dat_state(d);
  if (!c) return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "dat '%s' has no device copy to restore for tuning", um_dat_name(d));
  return copy_rows(ctx, d, c->d, copy, "restoring");
}

void cu_dat_drop(um_context *ctx, void *state, void **copy) {
  (void)ctx;
  (void)state;
  cu_dfree(copy);
}

int cu_dat_to_device(um_context *ctx, void *state, um_dat *d) {
  (void)state;
  return cu_dat_on_device(ctx, d);
}

static int *map_on_device(cu_state *S, const um_map *m) {
  for (int i = 0; i < S->nmaps; i++)
    if (S->maps[i].map == m) return S->maps[i].d;
  return NULL;
}

/* the bytes of m's rows on this rank: owned, then both halos (um_set_size is the global count) */
static size_t map_bytes(um_context *ctx, const um_map *m) {
  if (um_map_is_whole(m)) return (size_t)um_map_arity(m) * sizeof(int); /* one row, shared by every element */
  int exec = 0, nonexec = 0, owned = 0;
  const um_set *from = um_map_from(m);
  um_set_ranges(from, NULL, &exec, &nonexec);
  um_set_partition(from, um_context_rank(ctx), &owned, NULL, NULL);
  return ((size_t)owned + (size_t)exec + (size_t)nonexec) * (size_t)um_map_arity(m) * sizeof(int);
}

int cu_map_on_device(um_context *ctx, const um_map *m, int **out) {
  cu_state *S = ST(ctx);
  if ((*out = map_on_device(S, m)) != NULL) return UM_SUCCESS;
  if (UM_GROW(S->maps, S->capmaps, S->nmaps)) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  void *d = NULL;
  const double t0 = um_wtime();
  UM_BACKEND_CHECK(ctx, cu_upload(ctx, &d, um_map_data(m), map_bytes(ctx, m), "map", um_map_name(m)));
  count_upload(ctx, t0);
  S->maps[S->nmaps].map = m;
  S->maps[S->nmaps].d = d;
  S->nmaps++;
  *out = d;
  return UM_SUCCESS;
}

/* um_prefetch: the dats' and maps' device copies made current ahead of the loops, all or none: only when what is
 * missing takes at most half the device's free memory (a dat or map no loop uses would otherwise take room a
 * loop may need; the loops copy what they use then). */
int cu_prefetch(um_context *ctx, void *state, um_dat *const *dats, int n, double *bytes) {
  cu_state *S = state;
  *bytes = 0;
  size_t need = 0, fr = 0, tot = 0;
  for (int i = 0; i < n; i++)
    if (!cu_dat_state(dats[i])) need += um_dat_bytes(dats[i]);
  for (int i = 0; i < um_map_count(ctx); i++)
    if (!map_on_device(S, um_map_at(ctx, i))) need += map_bytes(ctx, um_map_at(ctx, i));
  if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
    cudaGetLastError(); /* not knowing the room: leave it to the loops */
    return UM_SUCCESS;
  }
  if (need > fr / 2) {
    um_backend_log(ctx, UM_LOG_INFO, "um cuda: not copying ahead: %zu MB of dats and maps against %zu MB free on the "
                   "GPU; the loops copy what they use", need >> 20, fr >> 20);
    return UM_SUCCESS;
  }
  for (int i = 0; i < n; i++) {
    if (um_dat_valid(dats[i]) & UM_VALID_DEVICE) continue;
    UM_BACKEND_CHECK(ctx, cu_dat_on_device(ctx, dats[i]));
    *bytes += (double)um_dat_bytes(dats[i]);
  }
  for (int i = 0; i < um_map_count(ctx); i++) {
    const um_map *m = um_map_at(ctx, i);
    int *d = NULL;
    if (map_on_device(S, m)) continue;
    UM_BACKEND_CHECK(ctx, cu_map_on_device(ctx, m, &d));
    *bytes += (double)map_bytes(ctx, m);
  }
  return UM_SUCCESS;
}

/* Publish a constant to one module (if its kernels use it). */
int cu_publish_const(um_context *ctx, cu_kern *k, const char *name, int dim, um_type type, const void *data) {
  void *p = NULL;
  size_t bytes = 0;
  const size_t want = (size_t)dim * um_type_size(type);
  cudaError_t e = cudaLibraryGetGlobal(&p, &bytes, k->lib, name);
  if (e == cudaErrorSymbolNotFound || e == cudaErrorInvalidValue) {
    cudaGetLastError();
    return UM_SUCCESS; /* not declared (or not used) by this kernel's header */
  }
  if (e != cudaSuccess)
    return cu_fail(ctx, e, __FILE__, __LINE__, "looking up constant '%s' in the module of loop '%s'", name, k->name);
  if (bytes != want)
    return UM_BACKEND_ERROR(ctx, UM_ERR_ARG,
                    "constant '%s': the kernel header declares %zu bytes but um_decl_const gave %d x %s (%zu bytes); "
                    "make the declarations agree",
                    name, bytes, dim, um_type_name(type), want);
  UM_BACKEND_CHECK(ctx, cu_flush(ctx, ST(ctx)));
  CU(ctx, cudaMemcpyAsync(p, data, bytes, cudaMemcpyHostToDevice, ST(ctx)->stream), "copying constant '%s' to the GPU",
     name);
  return UM_SUCCESS;
}

int cu_const_changed(um_context *ctx, void *state, const char *name, int dim, um_type type, const void *data) {
  cu_state *S = state;
  if (!S) return UM_SUCCESS;
  for (int i = 0; i < S->nkerns; i++) UM_BACKEND_CHECK(ctx, cu_publish_const(ctx, S->kerns[i], name, dim, type, data));
  return UM_SUCCESS;
}
