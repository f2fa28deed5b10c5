/* A loop's kernel: the description handed to the generator, the NVRTC
 * compilation, the module and the plan-derived arrays of its strategy. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "../../util/array.h"
#include "../../util/trace.h"

extern const char um_kernel_h_source[]; /* um/kernel.h, embedded by CMake */

/* ---- describing a loop to the generator ---------------------------------------- */

/* Strategy and staging ->
 * how the loop runs:
 *   direct loops                       one thread per element
 *   READ-only through maps             one thread per element; staged blocks with staging all
 *   atomics, staging none              one thread per element, atomics to the dat
 *   atomics, staging inc / all         plan blocks, atomics to shared memory, then to the dat
 *   atomics with RW / WRITE via a map  global colouring (atomics cannot serialise them)
 *   global                             global element colouring
 *   hierarchical                       plan blocks, block and thread colours
 *   run.split fused (um_loop.fused)    hierarchical, split in two phases inside each launch
 *   writes through one-to-one maps     one thread per element, plain writes and adds, no plan (any strategy) */
cu_mode cu_choose_mode(const um_loop *loop, um_strategy s, cu_staging staging) {
  cu_mode m = {UMC_EXEC_FLAT, staging == CU_STAGING_ALL, 0, 0, 0, 0, 0};
  if (!loop->indirect) return m;
  if (!loop->has_conflicts) {
    if (m.stage_all && (s == UM_STRATEGY_HIERARCHICAL || s == UM_STRATEGY_ATOMICS)) m.exec = UMC_EXEC_HIER;
    return m;
  }
  if (loop->one_to_one) { /* no two elements write one row: nothing to colour or serialise */
    m.stage_all = 0;
    m.one_to_one = 1;
    return m;
  }
  if (loop->fused) { /* run.split fused (variant B): plan blocks, block and thread colours, whatever the strategy */
    m.exec = UMC_EXEC_HIER;
    m.fused = 1;
    return m;
  }
  if (loop->has_whole_inc) { /* increments to any row of a whole dat: a thread per element, atomics */
    m.stage_all = 0;
    return m;
  }
  if (s == UM_STRATEGY_ATOMICS) {
    for (int i = 0; i < loop->nargs; i++) {
      const um_arg *a = &loop->args[i];
      if (a->kind == UM_ARG_DAT && a->map && (a->acc == UM_RW || a->acc == UM_WRITE)) {
        m.exec = UMC_EXEC_GLOBAL;
        return m;
      }
    }
    if (staging != CU_STAGING_NONE) m.exec = UMC_EXEC_HIER, m.block_atomics = 1;
    return m;
  }
  m.exec = s == UM_STRATEGY_GLOBAL ? UMC_EXEC_GLOBAL : UMC_EXEC_HIER;
  return m;
}

static int describe_args(const um_loop *loop, int layout, umc_loop *L, const um_dat **dats, const um_map **maps);
static void describe_inds(const um_loop *loop, umc_loop *L);

/* layout: -1 the dats' own; else UM_AOS / UM_SOA / UM_LAYOUT_AUTO (SoA unless
 * the loop reaches the dat through a map). */
int cu_describe(um_context *ctx, const um_loop *loop, cu_mode mode, int threads, int layout, umc_loop *L,
                    const um_dat **dats, const um_map **maps) {
  const umc_exec exec = mode.exec;
  memset(L, 0, sizeof *L);
  const um_kernel *k = loop->kernel;
  if (!k->source || !k->source_name)
    return UM_BACKEND_ERROR(ctx, UM_ERR_UNSUPPORTED,
                    "loop '%s': kernel '%s' has no source text, so the CUDA backend cannot compile it; define it "
                    "with UM_KERNEL_DEFINE(fn, n, <embedded header text>, \"<header name>\") (see um/kernel.h)",
                    loop->name, k->name);
  L->loop_name = loop->name;
  L->kernel_name = k->name;
  L->header_name = k->source_name;
  L->nargs = loop->nargs;
  L->exec = exec;
  L->block_threads = threads;
  /* cuda.max_registers: as many resident blocks per SM as a 64K-register file holds at that many registers per
   * thread (the launch bounds make the compiler fit them; --maxrregcount is ignored beside launch bounds) */
  const cu_state *S = !strcmp(um_context_backend(ctx), "cuda") ? ST(ctx) : NULL;
  if (mode.min_blocks > 0) L->min_blocks = mode.min_blocks; /* the loop's variants 1, 2 (launch.c) */
  else if (S && S->max_registers > 0 && threads > 0) {
    const int mb = 65536 / (S->max_registers * threads);
    L->min_blocks = mb < 1 ? 1 : mb;
  }
  L->stage_all = mode.stage_all;
  L->block_atomics = mode.block_atomics;
  L->fused = mode.fused;
  L->one_to_one = mode.one_to_one;
  int rc = describe_args(loop, layout, L, dats, maps);
  if (rc == UM_SUCCESS && mode.warp_combine) {
    const int *data[UM_MAX_ARGS];
    for (int m = 0; m < L->nmaps; m++) data[m] = um_map_data(maps[m]);
    umc_find_pairs(L, data, loop->begin, loop->end, mode.warp_combine);
  }
  if (rc != UM_SUCCESS || exec != UMC_EXEC_HIER) return rc;
  describe_inds(loop, L);
  return UM_SUCCESS;
}

/* The loop's arguments as the generator sees them: dat and map slots, layouts, arities. */
static int describe_args(const um_loop *loop, int layout, umc_loop *L, const um_dat **dats, const um_map **maps) {
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    umc_arg *x = &L->args[i];
    x->acc = a->acc;
    x->type = a->type;
    x->dim = a->dim;
    x->dat = x->map = x->ind = -1;
    x->idx = a->idx;
    if (a->kind == UM_ARG_GBL) {
      x->gbl = 1;
      continue;
    }
    const um_dat *d = a->dat;
    int s = 0;
    while (s < L->ndats && dats[s] != d) s++;
    if (s == L->ndats) dats[L->ndats++] = d;
    x->dat = s;
    int soa;
    if (layout < 0) soa = um_dat_storage_layout(d) == UM_SOA;
    else if (layout == UM_SOA) soa = 1;
    else if (layout == UM_LAYOUT_AUTO) { /* rows wider than registers hold stay AoS (as in um_exec) */
      soa = (size_t)um_dat_dim(d) * (a->type == UM_DOUBLE ? 8 : 4) <= UM_EXEC_STAGE_BYTES;
      for (int j = 0; j < loop->nargs; j++)
        if (loop->args[j].kind == UM_ARG_DAT && loop->args[j].dat == d && loop->args[j].map) soa = 0;
    } else
      soa = 0;
    x->soa = soa && um_dat_dim(d) > 1;
    x->stride = um_dat_rows(d); /* SoA columns are allocated rows long */
    x->store = um_dat_contribution(d) && !a->map && a->acc == UM_INC;
    x->minus = x->store && a->minus;
    if (a->map) {
      x->indirect = 1;
      int m = 0;
      while (m < L->nmaps && maps[m] != a->map) m++;
      if (m == L->nmaps) maps[L->nmaps++] = a->map;
      x->map = m;
      x->arity = um_map_arity(a->map);
      x->vec = a->idx == UM_ALL; /* never staged: in no ind */
      x->whole = um_map_is_whole(a->map);
    }
  }
  return UM_SUCCESS;
}

/* Hierarchical: the staging lists and target lists. */
static void describe_inds(const um_loop *loop, umc_loop *L) {
  /* inds: distinct (dat, map) pairs in argument order (as the plan builder numbers them);
   * target lists: distinct (map, set of map indices) */
  int tl_map[UM_MAX_ARGS], tl_n[UM_MAX_ARGS], tl_idx[UM_MAX_ARGS][UM_MAX_ARGS], ntl = 0;
  for (int i = 0; i < loop->nargs; i++) {
    umc_arg *x = &L->args[i];
    if (x->gbl || !x->indirect || x->vec) continue;
    int s = 0;
    while (s < L->ninds && !(L->inds[s].dat == x->dat && L->inds[s].map == x->map)) s++;
    if (s == L->ninds) {
      umc_ind *in = &L->inds[L->ninds++];
      in->dat = x->dat;
      in->map = x->map;
      in->dim = x->dim;
      in->type = x->type;
      in->soa = x->soa;
      in->stride = x->stride;
    }
    x->ind = s;
  }
  for (int s = 0; s < L->ninds; s++) {
    int idx[UM_MAX_ARGS], n = 0;
    for (int i = 0; i < loop->nargs; i++) {
      const umc_arg *x = &L->args[i];
      if (x->gbl || x->ind != s) continue;
      int j = 0;
      while (j < n && idx[j] < x->idx) j++;
      if (j < n && idx[j] == x->idx) continue;
      memmove(idx + j + 1, idx + j, (size_t)(n - j) * sizeof(int));
      idx[j] = x->idx;
      n++;
    }
    int t = 0;
    while (t < ntl && !(tl_map[t] == L->inds[s].map && tl_n[t] == n && !memcmp(tl_idx[t], idx, (size_t)n * sizeof(int))))
      t++;
    if (t == ntl) {
      tl_map[t] = L->inds[s].map;
      tl_n[t] = n;
      memcpy(tl_idx[t], idx, (size_t)n * sizeof(int));
      ntl++;
    }
    L->inds[s].tlist = t;
  }
}

int cu_gen_source(um_context *ctx, const umc_loop *L, umc_decisions *D, char **src) {
  char err[1024] = "";
  int rc = umc_decide(L, D, err, sizeof err);
  if (rc == UM_SUCCESS) rc = umc_generate(L, D, src, err, sizeof err);
  if (rc != UM_SUCCESS) return UM_BACKEND_ERROR(ctx, rc, "generating the CUDA kernel: %s", err);
  if (um_context_reproducible(ctx)) { /* um_cbrt / um_exp: the portable versions, as on the host (um/kernel.h) */
    static const char repro[] = "#define UM_REPRO_MATH 1\n";
    char *s2 = malloc(sizeof repro + strlen(*src));
    if (!s2) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory generating the CUDA kernel of loop '%s'", L->loop_name);
    memcpy(s2, repro, sizeof repro - 1);
    strcpy(s2 + sizeof repro - 1, *src);
    free(*src);
    *src = s2;
  }
  return UM_SUCCESS;
}

/* NVRTC's diagnostics and dumps reach the person running through the context's log. */
static void jit_log(void *user, const char *text) { um_backend_log((um_context *)user, UM_LOG_WARNING, "%s", text); }

void cu_jit_request(um_context *ctx, const um_kernel *k, const char *name, const char *src, int arch, int ptx,
                    const char *cache, int dump, const char *hn[2], const char *hs[2], umj_request *rq) {
  memset(rq, 0, sizeof *rq);
  rq->log = jit_log;
  rq->log_user = ctx;
  hn[0] = k->source_name;
  hs[0] = k->source;
  hn[1] = "um/kernel.h";
  hs[1] = um_kernel_h_source;
  rq->name = name;
  rq->source = src;
  rq->nheaders = 2;
  rq->header_names = hn;
  rq->header_sources = hs;
  rq->arch = arch;
  rq->ptx = ptx;
  rq->cache_dir = cache;
  rq->dump = dump;
}


/* Compile (or take from the disk cache) and load one module; `what` names it in messages (e.g. "loop
 * 'res_calc'"): a compile error, a corrupt or stale cache entry replaced, a failed load. *from_cache
 * says where it came from. */
int cu_load_module(um_context *ctx, const umj_request *rq, const char *what, cudaLibrary_t *lib, int *from_cache) {
  umj_result res;
  memset(&res, 0, sizeof res);
  char err[3000] = "";
  int rc = UM_TRACED("compile", umj_compile(rq, &res, err, sizeof err)); /* a range for the profilers (trace.h) */
  if (rc != UM_SUCCESS) rc = UM_BACKEND_ERROR(ctx, rc, "%s", err);
  if (rc == UM_SUCCESS && res.cache_rebuilt)
    um_backend_log(ctx, UM_LOG_WARNING, "um cuda: %s: the cached module %s was corrupt or stale; compiled it again",
                   what, res.cache_file);
  if (rc == UM_SUCCESS) {
    cudaError_t e = cudaLibraryLoadData(lib, res.image, NULL, NULL, 0, NULL, NULL, 0);
    if (e != cudaSuccess) {
      *lib = NULL;
      rc = cu_fail(ctx, e, __FILE__, __LINE__, "loading the compiled kernel of %s (%zu bytes, %s)", what, res.bytes,
                   res.from_cache ? res.cache_file : "just compiled");
    }
  }
  if (from_cache) *from_cache = res.from_cache;
  umj_result_free(&res);
  return rc;
}

int cu_threads_for(um_context *ctx, const um_loop *loop, umc_exec exec, int *threads) {
  int bs = loop->block_size;
  if (exec == UMC_EXEC_HIER && bs > UMC_MAX_BLOCK_THREADS)
    return UM_BACKEND_ERROR(ctx, UM_ERR_ARG,
                    "loop '%s': block size %d: the hierarchical strategy runs one CUDA block per plan block, and a "
                    "CUDA block has at most 1024 threads; use a block size of at most 1024",
                    loop->name, bs);
  *threads = bs < 1 ? 1 : bs > UMC_MAX_BLOCK_THREADS ? UMC_MAX_BLOCK_THREADS : bs;
  return UM_SUCCESS;
}

/* A loop's kernel settings, worked out in this one place for cu_run, cu_prepare and the variants: the backend's
 * strategy for it, the mode and staging that strategy runs as, the threads per block and the kernel's key. */
int cu_loop_settings(um_context *ctx, cu_state *S, const um_loop *loop, cu_mode *mode, int *threads, cu_key *key) {
  um_strategy s = loop->strategy;
  UM_BACKEND_CHECK(ctx, cu_strategy(ctx, S, s, &s));
  *mode = cu_choose_mode(loop, s, cu_staging_for(S, s));
  *threads = 1;
  UM_BACKEND_CHECK(ctx, cu_threads_for(ctx, loop, mode->exec, threads));
  mode->warp_combine = S->warp_combine; /* umc_find_pairs pairs only where it applies: flat atomics */
  cu_make_key(loop, *mode, *threads, key);
  return UM_SUCCESS;
}

/* ---- building a loop's kernel -------------------------------------------------------- */

void cu_make_key(const um_loop *loop, cu_mode mode, int threads, cu_key *k) {
  memset(k, 0, sizeof *k);
  k->kernel = loop->kernel;
  k->set = loop->set;
  k->begin = loop->begin;
  k->end = loop->end;
  k->nargs = loop->nargs;
  k->exec = mode.exec;
  k->threads = threads;
  k->stage_all = mode.stage_all;
  k->block_atomics = mode.block_atomics;
  k->fused = mode.fused;
  k->one_to_one = mode.one_to_one;
  k->min_blocks = mode.min_blocks;
  k->warp_combine = mode.warp_combine;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    k->a[i].acc = a->acc;
    k->a[i].dim = a->dim;
    k->a[i].type = a->type;
    k->a[i].idx = a->idx;
    k->a[i].gbl = a->kind == UM_ARG_GBL;
    k->a[i].minus = a->minus;
    if (a->kind == UM_ARG_DAT) {
      k->a[i].dat = a->dat;
      k->a[i].map = a->map;
      k->a[i].soa = um_dat_storage_layout(a->dat) == UM_SOA;
    }
  }
}

size_t cu_key_bytes(const cu_key *k) {
  return offsetof(cu_key, a) + (size_t)k->nargs * sizeof k->a[0];
}

void cu_kern_free(cu_kern *k) {
  if (!k) return;
  if (k->lib) cudaLibraryUnload(k->lib);
  cu_dfree(&k->perm);
  cu_dfree(&k->blocks);
  cu_dfree(&k->boff);
  cu_dfree(&k->coff);
  cu_dfree(&k->cols);
  for (int i = 0; i < UM_MAX_ARGS; i++) {
    cu_dfree(&k->toff[i]);
    cu_dfree(&k->tgt[i]);
    cu_dfree(&k->loc[i]);
    cu_dfree(&k->part[i]);
    if (k->res_host[i]) cudaFreeHost(k->res_host[i]);
  }
  free(k->launch);
  free(k->params);
  free(k->name);
  free(k);
}

/* Per block of a thread-coloured loop: its threads sorted by thread colour (perm) and where each colour
 * starts (coff, cols), uploaded. */
static int upload_thread_order(um_context *ctx, const um_loop *loop, const um_plan *p, const umc_decisions *D,
                               cu_kern *k) {
  const int nb = p->nblocks;
  /* per block: threads sorted by thread colour, and where each colour starts */
  size_t ncols = 0;
  for (int b = 0; b < nb; b++) ncols += (size_t)p->nthread_colours[b] + 2;
  int *coff = malloc(((size_t)nb + 1) * sizeof(int)), *cols = malloc((ncols ? ncols : 1) * sizeof(int));
  void *perm = malloc((size_t)(p->set_size ? p->set_size : 1) * (D->perm_short ? sizeof(short) : sizeof(int)));
  int *count = malloc(((size_t)p->stats.max_thread_colours + 2) * sizeof(int));
  if (!coff || !cols || !perm || !count) {
    free(coff), free(cols), free(perm), free(count);
    return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory ordering the threads of loop '%s'", loop->name);
  }
  size_t pos = 0;
  for (int b = 0; b < nb; b++) {
    const int e0 = p->block_offset[b], e1 = p->block_offset[b + 1], nc = p->nthread_colours[b];
    coff[b] = (int)pos;
    cols[pos] = nc;
    for (int c = 0; c <= nc; c++) count[c] = 0;
    for (int e = e0; e < e1; e++) count[p->thread_colour[e] + 1]++;
    for (int c = 0; c < nc; c++) count[c + 1] += count[c];
    for (int c = 0; c <= nc; c++) cols[pos + 1 + c] = count[c];
    for (int e = e0; e < e1; e++) {
      int slot = e0 + count[p->thread_colour[e]]++;
      if (D->perm_short) ((short *)perm)[slot] = (short)(e - e0);
      else ((int *)perm)[slot] = e - e0;
    }
    pos += (size_t)nc + 2;
  }
  int rc = cu_upload(ctx, &k->coff, coff, (size_t)nb * sizeof(int), "thread colours", loop->name);
  if (rc == UM_SUCCESS) rc = cu_upload(ctx, &k->cols, cols, pos * sizeof(int), "thread colours", loop->name);
  if (rc == UM_SUCCESS)
    rc = cu_upload(ctx, &k->perm, perm, (size_t)p->set_size * (D->perm_short ? sizeof(short) : sizeof(int)),
                "thread order", loop->name);
  free(coff), free(cols), free(perm), free(count);
  UM_BACKEND_CHECK(ctx, rc);
  return UM_SUCCESS;
}

/* Plan-derived arrays of the hierarchical scheme. */
static int build_hier(um_context *ctx, um_loop *loop, cu_kern *k, const cu_state *S) {
  const um_plan *p = NULL;
  UM_BACKEND_CHECK(ctx, um_loop_plan(ctx, loop, &p));
  const umc_loop *L = &k->L;
  const umc_decisions *D = &k->D;
  const int nb = p->nblocks;
  /* the generator numbered inds as the plan does */
  for (int i = 0; i < loop->nargs; i++)
    if (!L->args[i].gbl && L->args[i].indirect && p->arg_ind[i] != L->args[i].ind)
      return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "loop '%s': arg %d is in plan ind %d but generator ind %d", loop->name, i,
                      p->arg_ind[i], L->args[i].ind);
  if (L->block_atomics) { /* no block colours: every block in one launch, in mesh order */
    int *ident = malloc((size_t)(nb ? nb : 1) * sizeof(int));
    if (!ident) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
    for (int b = 0; b < nb; b++) ident[b] = b;
    int rc = cu_upload(ctx, &k->blocks, ident, (size_t)nb * sizeof(int), "block list", loop->name);
    free(ident);
    UM_BACKEND_CHECK(ctx, rc);
  } else {
    UM_BACKEND_CHECK(ctx, cu_upload(ctx, &k->blocks, p->block_order, (size_t)nb * sizeof(int), "block map", loop->name));
  }
  /* a range [begin, end) of the set: the kernel's elements are absolute (block offsets shifted by begin), the
   * per-element plan arrays (thread order, local indices) relative, reached through pointers shifted back by
   * begin (fill_params) */
  k->base = loop->begin;
  int *boff = malloc(((size_t)nb + 1) * sizeof(int));
  if (!boff) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int b = 0; b <= nb; b++) boff[b] = p->block_offset[b] + loop->begin;
  const int up = cu_upload(ctx, &k->boff, boff, ((size_t)nb + 1) * sizeof(int), "block offsets", loop->name);
  free(boff);
  UM_BACKEND_CHECK(ctx, up);
  if (D->colour_loop) {
    const int rc = upload_thread_order(ctx, loop, p, D, k); /* traced there */
    if (rc != UM_SUCCESS) return rc;
  }
  /* target lists (one per tlist, from its first ind) and local indices (one per slot) */
  size_t maxsh = 0; /* fused: the contributions, then the larger of the two phases' staged data */
  for (int b = 0; b < nb; b++) {
    size_t sh[2] = {0, 0};
    for (int i = 0; i < L->ninds; i++)
      if (D->ind_staged[i]) {
        size_t n = (size_t)(p->ind_offset[i][b + 1] - p->ind_offset[i][b]);
        sh[D->fused && !D->ind_load[i]] += (n * (size_t)L->inds[i].dim * (L->inds[i].type == UM_DOUBLE ? 8 : 4) + 15) &
                                           ~(size_t)15;
      }
    const size_t need = (size_t)D->contrib_bytes + (sh[0] > sh[1] ? sh[0] : sh[1]);
    if (need > maxsh) maxsh = need;
  }
  k->shmem = maxsh;
  for (int t = 0; t < D->ntlists; t++) {
    if (!D->tlist_used[t]) continue;
    int i = 0;
    while (L->inds[i].tlist != t || !D->ind_staged[i]) i++;
    UM_BACKEND_CHECK(ctx, cu_upload(ctx, &k->toff[t], p->ind_offset[i], ((size_t)nb + 1) * sizeof(int), "staging offsets",
                         loop->name));
    UM_BACKEND_CHECK(ctx, cu_upload(ctx, &k->tgt[t], p->ind_targets[i], (size_t)p->ind_offset[i][nb] * sizeof(int),
                         "staging lists", loop->name));
  }
  for (int l = 0; l < D->nlocs; l++) {
    int a = 0;
    while (D->loc_slot[a] != l) a++;
    const int *src = p->loc[a];
    const size_t n = (size_t)p->set_size;
    void *h = malloc((n ? n : 1) * (D->loc_short ? sizeof(short) : sizeof(int)));
    if (!h) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory for the local indices of loop '%s'", loop->name);
    for (size_t e = 0; e < n; e++) {
      if (D->loc_short) {
        if (src[e] > 32767) {
          free(h);
          return UM_BACKEND_ERROR(ctx, UM_ERR_INTERNAL, "loop '%s': local index %d does not fit 16 bits", loop->name, src[e]);
        }
        ((short *)h)[e] = (short)src[e];
      } else {
        ((int *)h)[e] = src[e];
      }
    }
    int rc = cu_upload(ctx, &k->loc[l], h, n * (D->loc_short ? sizeof(short) : sizeof(int)), "local indices", loop->name);
    free(h);
    UM_BACKEND_CHECK(ctx, rc);
  }
  /* one launch per block colour (or one for all), one CUDA block per plan block */
  if (L->block_atomics) {
    k->launch = calloc(1, sizeof *k->launch);
    if (!k->launch) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
    k->nlaunch = nb > 0;
    k->launch[0].n = k->launch[0].grid = nb;
    k->nparts = nb;
    return UM_SUCCESS;
  }
  k->nlaunch = p->nblock_colours;
  k->launch = calloc((size_t)(k->nlaunch ? k->nlaunch : 1), sizeof *k->launch);
  if (!k->launch) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  for (int c = 0; c < p->nblock_colours; c++) {
    cu_launch *l = &k->launch[c];
    l->start = p->colour_offset[c];
    l->n = p->colour_offset[c + 1] - p->colour_offset[c];
    l->grid = l->n;
    l->part = l->start;
  }
  k->nparts = nb;
  (void)S;
  return UM_SUCCESS;
}

/* Global colouring: the plan of one block spanning the set colours its elements. */
static int build_global(um_context *ctx, um_loop *loop, cu_kern *k) {
  um_loop whole = *loop;
  whole.block_size = loop->end > 0 ? loop->end : 1;
  whole.strategy = UM_STRATEGY_GLOBAL;
  const um_plan *p = NULL;
  UM_BACKEND_CHECK(ctx, um_loop_plan(ctx, &whole, &p));
  const int n = p->set_size, nc = p->nblocks ? p->nthread_colours[0] : 0;
  int *count = calloc((size_t)nc + 1, sizeof(int)), *perm = malloc((size_t)(n ? n : 1) * sizeof(int));
  k->launch = calloc((size_t)(nc ? nc : 1), sizeof *k->launch);
  if (!count || !perm || !k->launch) {
    free(count), free(perm);
    return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory colouring loop '%s'", loop->name);
  }
  for (int e = 0; e < n; e++) count[p->thread_colour[e] + 1]++;
  for (int c = 0; c < nc; c++) count[c + 1] += count[c];
  int part = 0;
  for (int c = 0; c < nc; c++) {
    cu_launch *l = &k->launch[k->nlaunch++];
    l->start = count[c];
    l->n = count[c + 1] - count[c];
    l->grid = (l->n + k->threads - 1) / k->threads;
    l->part = part;
    part += l->grid;
  }
  k->nparts = part;
  for (int e = 0; e < n; e++) perm[count[p->thread_colour[e]]++] = loop->begin + e; /* ascending within a colour */
  int rc = cu_upload(ctx, &k->perm, perm, (size_t)n * sizeof(int), "element colouring", loop->name);
  free(count);
  free(perm);
  return rc;
}

/* An atomic MIN / MAX reduction's row of keys set to the identity (umc_red_identity_key) before its first call. */
static int init_keys(um_context *ctx, void *row, const um_arg *x, const char *loop) {
  const long long id8 = umc_red_identity_key(x->acc, x->type);
  const int id4 = (int)id8;
  const size_t es = (size_t)um_type_size(x->type);
  unsigned char keys[16 * 8];
  for (int c = 0; c < x->dim; c += 16) {
    const int n = x->dim - c < 16 ? x->dim - c : 16;
    for (int i = 0; i < n; i++) memcpy(keys + (size_t)i * es, es == 8 ? (const void *)&id8 : (const void *)&id4, es);
    CU(ctx, cudaMemcpy((char *)row + (size_t)c * es, keys, (size_t)n * es, cudaMemcpyHostToDevice),
       "setting up a min/max reduction of loop '%s'", loop);
  }
  return UM_SUCCESS;
}

/* Shared memory: the largest block's staged data, within what the GPU and the profile allow (asked for
 * beyond the static limit). */
static int fit_shared_memory(um_context *ctx, const cu_state *S, const um_loop *loop, cu_kern *k) {
  int rc = UM_SUCCESS;
  struct cudaFuncAttributes fa;
  cudaError_t e = cudaFuncGetAttributes(&fa, (const void *)k->kloop);
  if (e != cudaSuccess) rc = cu_fail(ctx, e, __FILE__, __LINE__, "reading the attributes of loop '%s'", loop->name);
  size_t dev_max = (size_t)S->prop.sharedMemPerBlockOptin, prof_max = (size_t)S->profile->smem_optin;
  size_t limit = prof_max && prof_max < dev_max ? prof_max : dev_max;
  if (rc == UM_SUCCESS && k->shmem + fa.sharedSizeBytes > limit)
    rc = UM_BACKEND_ERROR(ctx, UM_ERR_UNSUPPORTED,
                  "loop '%s': block size %d needs %zu bytes of shared memory per block (%zu staged + %zu for "
                  "reductions), more than the %zu bytes %s allows; use a smaller block size, or "
                  "staging of incremented data only",
                  loop->name, loop->block_size, k->shmem + fa.sharedSizeBytes, k->shmem, (size_t)fa.sharedSizeBytes,
                  limit, prof_max && prof_max < dev_max ? "the device profile" : "the GPU");
  if (rc == UM_SUCCESS && k->shmem + fa.sharedSizeBytes > UMC_STATIC_SHARED_MAX) {
    e = cudaFuncSetAttribute((const void *)k->kloop, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)k->shmem);
    if (e != cudaSuccess)
      rc = cu_fail(ctx, e, __FILE__, __LINE__, "asking for %zu bytes of shared memory per block for loop '%s'",
                   k->shmem, loop->name);
  }
  return rc;
}

/* Theoretical occupancy: blocks resident per SM (registers, shared memory, block size) x warps per
 * block, over the SM's maximum resident warps; and the registers per thread that bind it. */
static void measure_occupancy(const cu_state *S, cu_kern *k, int threads) {
  struct cudaFuncAttributes fa;
  if (cudaFuncGetAttributes(&fa, (const void *)k->kloop) == cudaSuccess) k->registers = fa.numRegs;
  else (void)cudaGetLastError(); /* not known: leave 0 */
  int nb = 0;
  const int ws = S->prop.warpSize > 0 ? S->prop.warpSize : 32;
  const int max_warps = S->prop.maxThreadsPerMultiProcessor / ws;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, (const void *)k->kloop, threads, k->shmem) == cudaSuccess &&
      max_warps > 0) {
    double occ = (double)nb * (double)((threads + ws - 1) / ws) / (double)max_warps;
    k->occupancy = occ > 1 ? 1 : occ;
    k->blocks_per_sm = nb;
  } else {
    (void)cudaGetLastError(); /* not known: leave 0 */
  }
}

int cu_build_kern(um_context *ctx, um_loop *loop, cu_mode mode, int threads, const cu_key *key, cu_kern **out) {
  const umc_exec exec = mode.exec;
  cu_state *S = ST(ctx);
  const double t0 = um_setup_begin(ctx, UM_SETUP_COMPILE); /* the plan and uploads inside are their own phases */
  cu_kern *k = calloc(1, sizeof *k);
  if (!k) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  k->key = *key;
  k->threads = threads;
  size_t nl = strlen(loop->name) + 1;
  k->name = malloc(nl);
  int rc = k->name ? UM_SUCCESS : UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  if (k->name) memcpy(k->name, loop->name, nl);
  char *src = NULL;
  if (rc == UM_SUCCESS) rc = cu_describe(ctx, loop, mode, threads, -1, &k->L, k->dats, k->maps);
  if (rc == UM_SUCCESS) k->L.loop_name = k->name;
  if (rc == UM_SUCCESS) rc = cu_gen_source(ctx, &k->L, &k->D, &src);
  int from_cache = 0;
  if (rc == UM_SUCCESS) {
    const char *hn[2], *hs[2];
    umj_request rq;
    cu_jit_request(ctx, loop->kernel, loop->name, src, S->jit_arch, S->jit_ptx, S->cache_dir, S->dump, hn, hs, &rq);
    rq.no_fma = S->no_fma || um_context_reproducible(ctx); /* reproducible: the host's arithmetic, no contraction */
    char what[300];
    snprintf(what, sizeof what, "loop '%s'", loop->name);
    rc = cu_load_module(ctx, &rq, what, &k->lib, &from_cache);
  }
  if (rc == UM_SUCCESS) {
    char sym[UMC_SYMBOL_MAX], rsym[UMC_SYMBOL_MAX]; /* the kernels are named after the loop (codegen.h) */
    umc_kernel_symbol(k->L.loop_name, 0, sym, sizeof sym);
    umc_kernel_symbol(k->L.loop_name, 1, rsym, sizeof rsym);
    cudaError_t e = cudaLibraryGetKernel(&k->kloop, k->lib, sym);
    if (e == cudaSuccess && k->D.has_reduction) e = cudaLibraryGetKernel(&k->kreduce, k->lib, rsym);
    if (e != cudaSuccess) rc = cu_fail(ctx, e, __FILE__, __LINE__, "finding the kernels of loop '%s'", loop->name);
  }
  um_backend_counter_add(ctx, loop->id, CU_COUNTER_MODULES, 1);
  if (from_cache) um_backend_counter_add(ctx, loop->id, CU_COUNTER_CACHED, 1);
  free(src);
  for (int c = 0; rc == UM_SUCCESS && c < um_const_count(ctx); c++) {
    const char *cname;
    int cdim;
    um_type ctype;
    const void *cdata;
    um_const_at(ctx, c, &cname, &cdim, &ctype, &cdata);
    rc = cu_publish_const(ctx, k, cname, cdim, ctype, cdata);
  }

  /* execution: launches, plan arrays */
  if (rc == UM_SUCCESS) {
    if (exec == UMC_EXEC_HIER) rc = build_hier(ctx, loop, k, S);
    else if (exec == UMC_EXEC_GLOBAL) rc = build_global(ctx, loop, k);
    else {
      k->launch = calloc(1, sizeof *k->launch);
      if (!k->launch) rc = UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
      else {
        k->nlaunch = 1;
        k->launch[0].start = loop->begin;
        k->launch[0].n = loop->end - loop->begin;
        k->launch[0].grid = (k->launch[0].n + threads - 1) / threads;
        k->nparts = k->launch[0].grid;
      }
    }
  }
  if (rc == UM_SUCCESS && k->shmem > 0) rc = fit_shared_memory(ctx, S, loop, k);
  if (rc == UM_SUCCESS) measure_occupancy(S, k, threads);
  /* reductions */
  for (int a = 0; rc == UM_SUCCESS && a < loop->nargs; a++) {
    if (k->D.pass[a] != UMC_PASS_GBL_REDUCE) continue;
    const um_arg *x = &loop->args[a];
    const size_t row = (size_t)x->dim * um_type_size(x->type);
    const int atomic = umc_red_atomic(x->acc); /* one row of keys, from the identity (um_reduce resets it) */
    rc = cu_dalloc(ctx, &k->part[a], row * (size_t)(k->nparts && !atomic ? k->nparts : 1), "reduction partials",
                   loop->name);
    if (rc == UM_SUCCESS && atomic) rc = init_keys(ctx, k->part[a], x, loop->name);
    if (rc != UM_SUCCESS) break;
    cudaError_t e = cudaHostAlloc(&k->res_host[a], row, cudaHostAllocMapped);
    if (e == cudaSuccess) e = cudaHostGetDevicePointer(&k->res_dev[a], k->res_host[a], 0);
    if (e != cudaSuccess) rc = cu_fail(ctx, e, __FILE__, __LINE__, "allocating the result of a reduction of loop '%s'", loop->name);
  }
  if (rc == UM_SUCCESS) {
    k->params = calloc(1, (size_t)k->D.param_bytes);
    if (!k->params) rc = UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  }
  if (rc == UM_SUCCESS && UM_GROW(S->kerns, S->capkerns, S->nkerns)) rc = UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory");
  const double t1 = um_setup_end(ctx, UM_SETUP_COMPILE);
  if (rc != UM_SUCCESS) {
    cu_kern_free(k);
    return um_backend_trace(ctx, rc, __FILE__, __LINE__);
  }
  S->kerns[S->nkerns++] = k;
  um_backend_counter_add(ctx, loop->id, CU_COUNTER_COMPILE, t1 - t0);
  um_backend_log(ctx, UM_LOG_INFO, "um cuda: loop '%s': %s, %d threads per block, %d launch%s, %zu bytes of shared memory",
            loop->name, umc_exec_name(exec), threads, k->nlaunch, k->nlaunch == 1 ? "" : "es", k->shmem);
  *out = k;
  return UM_SUCCESS;
}
