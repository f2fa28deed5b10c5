/* Halo rows on the GPU, for distributed runs (um/backend.h: rows_out, rows_in,
 * rows_zero, host_alloc, host_free).
 *
 * The GPU hosts' MPI is not CUDA-aware, so messages leave from host memory:
 * pinned, mapped buffers the kernels below write and read directly (no device
 * staging buffer, no copy of a whole dat). A row list (which rows of a set go
 * to or come from one neighbour) is uploaded once, the first time it is used,
 * and kept. The kernels (codegen_halo.c: umc_halo_source) are compiled by NVRTC once per context, at the first
 * exchange (with the disk cache like every loop's module). Each call only
 * queues work on the backend's stream: copies and sums into one dat happen in
 * the order they were queued, so reverse increments add up in a fixed order. */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "../../util/array.h"

#define HALO_THREADS 256

static const char *const halo_kernel_names[UMC_HALO_KERNELS] = UMC_HALO_KERNEL_NAMES;

static int halo_module(um_context *ctx, cu_state *S) {
  if (S->halo_lib) return UM_SUCCESS;
  umj_request rq;
  memset(&rq, 0, sizeof rq);
  rq.name = "halo rows";
  rq.source = umc_halo_source();
  rq.arch = S->jit_arch;
  rq.ptx = S->jit_ptx;
  rq.cache_dir = S->cache_dir;
  rq.dump = S->dump;
  UM_BACKEND_CHECK(ctx, cu_load_module(ctx, &rq, "the halo rows", &S->halo_lib, NULL));
  for (int i = 0; i < UMC_HALO_KERNELS; i++)
    CU(ctx, cudaLibraryGetKernel(&S->halo_k[i], S->halo_lib, halo_kernel_names[i]), "finding the halo kernel %s",
       halo_kernel_names[i]);
  return UM_SUCCESS;
}

/* The device copy of a row list (uploaded at first use, kept with the state). */
static int row_list(um_context *ctx, cu_state *S, const int *rows, int n, int **out) {
  for (int i = 0; i < S->nlists; i++)
    if (S->lists[i].h == rows && S->lists[i].n == n) {
      *out = S->lists[i].d;
      return UM_SUCCESS;
    }
  if (UM_GROW(S->lists, S->caplists, S->nlists)) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  void *d = NULL;
  UM_BACKEND_CHECK(ctx, cu_upload(ctx, &d, rows, (size_t)n * sizeof(int), "halo rows", "of a set"));
  S->lists[S->nlists].h = rows;
  S->lists[S->nlists].n = n;
  S->lists[S->nlists].d = d;
  S->nlists++;
  *out = d;
  return UM_SUCCESS;
}

/* Blocks of HALO_THREADS threads for one thread per value. */
static long long blocks_for(long long values) { return (values + HALO_THREADS - 1) / HALO_THREADS; }

/* Kernel `which` of the halo module on the stream, `blocks` blocks of HALO_THREADS threads; a failure names the
 * kernel, the dat and the count of what it ran for. With sizes (each parameter's) and graphs on, recorded into the
 * current segment instead (graph.c); the caller has then not ended the segment. */
static int run_kernel(um_context *ctx, cu_state *S, umc_halo_kernel which, long long blocks, void **args,
                      const int *sizes, int nargs, const um_dat *d, long long count, const char *what) {
  dim3 grid = {(unsigned)blocks, 1, 1}, block = {HALO_THREADS, 1, 1};
  S->last_loop = halo_kernel_names[which];
  if (sizes && S->graphs)
    return cu_graph_kernel_args(ctx, S, S->halo_k[which], (unsigned)blocks, HALO_THREADS, args, sizes, nargs,
                                halo_kernel_names[which]);
  CU(ctx, cudaLaunchKernel((const void *)S->halo_k[which], grid, block, args, 0, S->stream),
     "launching %s for dat '%s' (%lld %s)", halo_kernel_names[which], um_dat_name(d), count, what);
  return UM_SUCCESS;
}

/* Rows copied between a dat and a message buffer (recorded into graphs: an exchange does not end a segment). */
static int launch(um_context *ctx, cu_state *S, umc_halo_kernel which, um_dat *d, const int *rows, int n, const void *buf) {
  if (n <= 0) return UM_SUCCESS;
  UM_BACKEND_CHECK(ctx, halo_module(ctx, S));
  UM_BACKEND_CHECK(ctx, cu_dat_on_device(ctx, d)); /* uploaded whole once, if the host copy was the only current one */
  int *drows = NULL;
  UM_BACKEND_CHECK(ctx, row_list(ctx, S, rows, n, &drows));
  void *dbuf = (void *)buf; /* mapped pinned memory: with unified addressing, the same address on the GPU */
  const int dim = um_dat_dim(d);
  const size_t esize = um_type_size(um_dat_type(d));
  long long stride = um_dat_storage_layout(d) == UM_SOA ? (long long)(um_dat_bytes(d) / ((size_t)dim * esize)) : 0;
  void *dd = cu_dat_state(d)->d;
  void *args[] = {&dd, &dbuf, &drows, &n, (void *)&dim, &stride};
  static const int sizes[] = {sizeof(void *), sizeof(void *), sizeof(int *), sizeof(int), sizeof(int), sizeof(long long)};
  return run_kernel(ctx, S, which, blocks_for((long long)n * dim), args, sizes, 6, d, n, "rows");
}

int cu_rows_out(um_context *ctx, void *state, um_dat *d, const int *rows, int n, void *out) {
  return launch(ctx, state, um_type_size(um_dat_type(d)) == 8 ? UMC_HALO_OUT8 : UMC_HALO_OUT4, d, rows, n, out);
}

int cu_rows_in(um_context *ctx, void *state, um_dat *d, const int *rows, int n, const void *in, int add) {
  const um_type t = um_dat_type(d);
  umc_halo_kernel which = um_type_size(t) == 8 ? UMC_HALO_IN8 : UMC_HALO_IN4;
  if (add) which = t == UM_DOUBLE ? UMC_HALO_ADD_D : t == UM_FLOAT ? UMC_HALO_ADD_F : UMC_HALO_ADD_I;
  return launch(ctx, state, which, d, rows, n, in);
}

/* n values of esize bytes at p set to -0.0 (floating point; an int dat gets 0), as the host backends start
 * the halo copies of reverse increments, so a -0.0 target that other ranks add only -0.0 to stays -0.0 */
static int fill_negzero(um_context *ctx, cu_state *S, um_dat *d, char *p, size_t n) {
  if (!n) return UM_SUCCESS;
  const um_type t = um_dat_type(d);
  if (t == UM_INT) {
    UM_BACKEND_CHECK(ctx, cu_flush(ctx, S));
    CU(ctx, cudaMemsetAsync(p, 0, n * sizeof(int), S->stream), "zeroing the halo of dat '%s'", um_dat_name(d));
    return UM_SUCCESS;
  }
  const int wide = um_type_size(t) == 8;
  unsigned long long bits8 = 1ULL << 63;
  unsigned int bits4 = 1u << 31;
  long long count = (long long)n;
  void *args[] = {&p, &count, wide ? (void *)&bits8 : (void *)&bits4};
  const int sizes[] = {sizeof p, sizeof count, wide ? (int)sizeof bits8 : (int)sizeof bits4};
  const long long blocks = blocks_for(count); /* the kernel strides over the rest */
  return run_kernel(ctx, S, wide ? UMC_FILL8 : UMC_FILL4, blocks < 65535 ? blocks : 65535, args, sizes, 3, d, count,
                    "values set to -0.0");
}

int cu_rows_zero(um_context *ctx, void *state, um_dat *d, int begin, int end) {
  cu_state *S = state;
  if (end <= begin) return UM_SUCCESS;
  UM_BACKEND_CHECK(ctx, halo_module(ctx, S));
  UM_BACKEND_CHECK(ctx, cu_dat_on_device(ctx, d));
  const size_t dim = (size_t)um_dat_dim(d), esize = um_type_size(um_dat_type(d));
  char *dd = cu_dat_state(d)->d;
  if (um_dat_storage_layout(d) == UM_SOA) {
    const size_t rows = um_dat_bytes(d) / (dim * esize);
    for (size_t c = 0; c < dim; c++)
      UM_BACKEND_CHECK(ctx, fill_negzero(ctx, S, d, dd + (c * rows + (size_t)begin) * esize, (size_t)(end - begin)));
  } else {
    UM_BACKEND_CHECK(ctx, fill_negzero(ctx, S, d, dd + (size_t)begin * dim * esize, (size_t)(end - begin) * dim));
  }
  return UM_SUCCESS;
}

/* Halo message buffers: pinned host memory the kernels reach directly (host staging), or device memory
 * (halos GPU to GPU: distributed/transport_cuda.h). NULL when CUDA has none: the core then says out of which memory. */
static void *buffer_or_warn(um_context *ctx, cudaError_t e, void *p, size_t bytes, const char *what) {
  if (e == cudaSuccess) return p;
  um_backend_log(ctx, UM_LOG_WARNING, "um cuda: cannot allocate %zu bytes of %s for halos: %s", bytes, what,
                 cudaGetErrorString(e));
  cudaGetLastError();
  return NULL;
}

void *cu_host_alloc(um_context *ctx, void *state, size_t bytes) {
  cu_state *S = state;
  void *p = NULL;
  if (!S || !S->prop.unifiedAddressing) {
    um_backend_log(ctx, UM_LOG_WARNING, "um cuda: the GPU has no unified addressing, which halo buffers need");
    return NULL;
  }
  cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
  return buffer_or_warn(ctx, e, p, bytes, "pinned host memory");
}

void cu_host_free(void *p) {
  if (p) cudaFreeHost(p);
}

void *cu_dev_alloc(um_context *ctx, void *state, size_t bytes) {
  cu_state *S = state;
  if (S) S->xg_gen++; /* new message buffers: the exchanges posted so far are not posted again (devmsg.c) */
  void *p = NULL;
  cudaError_t e = cudaMalloc(&p, bytes);
  return buffer_or_warn(ctx, e, p, bytes, "GPU memory");
}

void cu_dev_free(void *p) {
  if (p) cudaFree(p);
}

/* A split loop's gather: the inverse map and the sources' addresses uploaded once per key, then one
 * thread per target row, one component after another (timed under the gather's record, like a loop). */
int cu_gather(um_context *ctx, void *state, const um_gather *g) {
  cu_state *S = state;
  UM_BACKEND_CHECK(ctx, cu_flush(ctx, S));
  if (g->ntargets <= 0) return UM_SUCCESS;
  UM_BACKEND_CHECK(ctx, halo_module(ctx, S));
  UM_BACKEND_CHECK(ctx, cu_dat_on_device(ctx, g->dst));
  for (int k = 0; k < g->nsrc; k++) UM_BACKEND_CHECK(ctx, cu_dat_on_device(ctx, g->src[k]));
  int at = -1;
  for (int i = 0; i < S->ngathers; i++)
    if (S->gathers[i].key == g->key) at = i;
  if (at < 0) {
    if (UM_GROW(S->gathers, S->capgathers, S->ngathers)) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
    at = S->ngathers++;
    memset(&S->gathers[at], 0, sizeof S->gathers[at]);
    S->gathers[at].key = g->key;
    const size_t nent = (size_t)g->offset[g->ntargets];
    if (g->rows)
      UM_BACKEND_CHECK(ctx, cu_upload(ctx, &S->gathers[at].rows, g->rows, (size_t)g->ntargets * sizeof(int), "inverse map",
                              um_dat_name(g->dst)));
    UM_BACKEND_CHECK(ctx, cu_upload(ctx, &S->gathers[at].off, g->offset, ((size_t)g->ntargets + 1) * sizeof(int),
                            "inverse map", um_dat_name(g->dst)));
    UM_BACKEND_CHECK(ctx, cu_upload(ctx, &S->gathers[at].ent, g->entry, (nent ? nent : 1) * sizeof(int), "inverse map",
                            um_dat_name(g->dst)));
  }
  int same = S->gathers[at].src != NULL;
  for (int k = 0; k < g->nsrc; k++) same &= S->gathers[at].srcd[k] == g->src[k];
  if (!same) { /* the sources' addresses: once per key, again where they change (um_arg_minus, once checked) */
    void *srcs[UM_MAX_ARGS];
    for (int k = 0; k < g->nsrc; k++) srcs[k] = cu_dat_state(g->src[k])->d, S->gathers[at].srcd[k] = g->src[k];
    cu_dfree(&S->gathers[at].src);
    UM_BACKEND_CHECK(ctx, cu_upload(ctx, &S->gathers[at].src, srcs, (size_t)g->nsrc * sizeof(void *), "contributions",
                            um_dat_name(g->dst)));
  }
  const um_type t = um_dat_type(g->dst);
  const umc_halo_kernel which = t == UM_DOUBLE ? UMC_GATHER_D : t == UM_FLOAT ? UMC_GATHER_F : UMC_GATHER_I;
  const int dim = um_dat_dim(g->dst), nt = g->ntargets, nsrc = g->nsrc;
  const size_t esize = um_type_size(t);
  long long stride =
      um_dat_storage_layout(g->dst) == UM_SOA ? (long long)(um_dat_bytes(g->dst) / ((size_t)dim * esize)) : 0;
  void *dd = cu_dat_state(g->dst)->d;
  long long sstride = um_dat_storage_layout(g->src[0]) == UM_SOA ? (long long)um_dat_rows(g->src[0]) : 0;
  unsigned long long neg = g->negate;
  void *args[] = {&dd,         &S->gathers[at].src, &S->gathers[at].rows, &S->gathers[at].off, &S->gathers[at].ent,
                  (void *)&nt, (void *)&nsrc,       (void *)&dim,         &stride,               &sstride,
                  &neg};
  if (S->npending == MAX_PENDING) UM_BACKEND_CHECK(ctx, cu_sync(ctx, S));
  cu_timing *tm = &S->pending[S->npending];
  UM_BACKEND_CHECK(ctx, cu_get_event(ctx, &tm->start));
  UM_BACKEND_CHECK(ctx, cu_get_event(ctx, &tm->stop));
  tm->rec = g->id;
  tm->name = halo_kernel_names[which];
  tm->owned = 0;
  CU(ctx, cudaEventRecord(tm->start, S->stream), "recording a timing event");
  UM_BACKEND_CHECK(ctx, run_kernel(ctx, S, which, blocks_for(nt), args, NULL, 0, g->dst, nt, "targets"));
  CU(ctx, cudaEventRecord(tm->stop, S->stream), "recording a timing event");
  S->npending++;
  um_dat_set_valid(g->dst, UM_VALID_DEVICE);
  return UM_SUCCESS;
}

/* Exact sums of a split loop's reduction temporary, component by component, on the device. */
int cu_exact_sum(um_context *ctx, void *state, um_dat *d, int n, long long *words) {
  cu_state *S = state;
  UM_BACKEND_CHECK(ctx, cu_flush(ctx, S));
  if (n <= 0) return UM_SUCCESS;
  UM_BACKEND_CHECK(ctx, halo_module(ctx, S));
  UM_BACKEND_CHECK(ctx, cu_dat_on_device(ctx, d));
  const size_t wbytes = UM_XSUM_WORDS * sizeof(long long);
  if (!S->xsum_words) UM_BACKEND_CHECK(ctx, cu_dalloc(ctx, &S->xsum_words, wbytes, "exact sum", um_dat_name(d)));
  const umc_halo_kernel which = um_dat_type(d) == UM_FLOAT ? UMC_XSUM_F : UMC_XSUM_D;
  const int dim = um_dat_dim(d);
  void *dd = cu_dat_state(d)->d;
  int blocks = S->prop.multiProcessorCount * 4;
  if ((long long)blocks * HALO_THREADS > n) blocks = (int)blocks_for(n);
  for (int c = 0; c < dim; c++) {
    CU(ctx, cudaMemsetAsync(S->xsum_words, 0, wbytes, S->stream), "zeroing an exact sum");
    long long stride = um_dat_storage_layout(d) == UM_SOA ? (long long)um_dat_rows(d) : 0;
    void *args[] = {&dd, &n, (void *)&dim, &c, &stride, &S->xsum_words};
    UM_BACKEND_CHECK(ctx, run_kernel(ctx, S, which, blocks, args, NULL, 0, d, n, "rows"));
    long long part[UM_XSUM_WORDS];
    CU(ctx, cudaMemcpyAsync(part, S->xsum_words, wbytes, cudaMemcpyDeviceToHost, S->stream), "reading an exact sum");
    CU(ctx, cudaStreamSynchronize(S->stream), "waiting for an exact sum");
    for (int i = 0; i < UM_XSUM_WORDS; i++) words[(size_t)c * UM_XSUM_WORDS + i] += part[i];
  }
  return UM_SUCCESS;
}

void cu_halo_free(cu_state *S) {
  cu_dfree(&S->xsum_words);
  for (int i = 0; i < S->ngathers; i++) {
    cudaFree(S->gathers[i].rows);
    cudaFree(S->gathers[i].off);
    cudaFree(S->gathers[i].ent);
    cudaFree(S->gathers[i].src);
  }
  free(S->gathers);
  S->gathers = NULL;
  S->ngathers = S->capgathers = 0;
  for (int i = 0; i < S->nlists; i++) cudaFree(S->lists[i].d);
  free(S->lists);
  S->lists = NULL;
  S->nlists = S->caplists = 0;
  if (S->halo_lib) cudaLibraryUnload(S->halo_lib);
  S->halo_lib = NULL;
}
