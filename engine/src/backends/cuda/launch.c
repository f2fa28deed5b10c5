/* Running a loop: parameters, launches, reductions. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* ---- running a loop ------------------------------------------------------------------- */

static void put_ptr(unsigned char *buf, int off, const void *p) { memcpy(buf + off, &p, sizeof p); }
static void put_int(unsigned char *buf, int off, int v) { memcpy(buf + off, &v, sizeof v); }

/* A per-element plan array of a range starting at base, as the kernel indexes it: by absolute element. The
 * address is only ever used with an index of at least base. */
static const void *shifted(const void *p, int base, int is_short) {
  return (const void *)((uintptr_t)p - (uintptr_t)base * (is_short ? sizeof(short) : sizeof(int)));
}

/* A contribution temporary the loop computes but does not store (um_loop.drop): its kernel checks for NULL. */
static int dropped(const um_loop *loop, const um_dat *d) {
  for (int i = 0; loop->drop && i < loop->nargs; i++)
    if ((loop->drop >> i & 1) && loop->args[i].kind == UM_ARG_DAT && loop->args[i].dat == d) return 1;
  return 0;
}

static int fill_params(um_context *ctx, const um_loop *loop, cu_kern *k) {
  const umc_decisions *D = &k->D;
  for (int f = 0; f < D->nfields; f++) {
    const umc_field *F = &D->fields[f];
    unsigned char *b = k->params;
    switch (F->kind) {
    case UMC_F_DAT:
      put_ptr(b, F->offset, dropped(loop, k->dats[F->slot]) ? NULL : cu_dat_state(k->dats[F->slot])->d);
      break;
    case UMC_F_MAP: {
      int *d = NULL;
      UM_BACKEND_CHECK(ctx, cu_map_on_device(ctx, k->maps[F->slot], &d));
      put_ptr(b, F->offset, d);
      break;
    }
    case UMC_F_PERM: put_ptr(b, F->offset, shifted(k->perm, k->base, D->perm_short)); break;
    case UMC_F_BLOCKS: put_ptr(b, F->offset, k->blocks); break;
    case UMC_F_BOFF: put_ptr(b, F->offset, k->boff); break;
    case UMC_F_COFF: put_ptr(b, F->offset, k->coff); break;
    case UMC_F_COLS: put_ptr(b, F->offset, k->cols); break;
    case UMC_F_TOFF: put_ptr(b, F->offset, k->toff[F->slot]); break;
    case UMC_F_TGT: put_ptr(b, F->offset, k->tgt[F->slot]); break;
    case UMC_F_LOC: put_ptr(b, F->offset, shifted(k->loc[F->slot], k->base, D->loc_short)); break;
    case UMC_F_PART: put_ptr(b, F->offset, k->part[F->slot]); break;
    case UMC_F_RES: put_ptr(b, F->offset, k->res_dev[F->slot]); break;
    case UMC_F_GBL: memcpy(b + F->offset, loop->args[F->slot].gbl, (size_t)F->bytes); break;
    default: break; /* per launch */
    }
  }
  return UM_SUCCESS;
}

static int field_offset(const cu_kern *k, umc_field_kind kind) {
  for (int f = 0; f < k->D.nfields; f++)
    if (k->D.fields[f].kind == kind) return k->D.fields[f].offset;
  return -1;
}

cu_kern *cu_find_kern(cu_state *S, const cu_key *key) {
  const size_t n = cu_key_bytes(key);
  for (int i = S->nkerns - 1; i >= 0; i--)
    if (S->kerns[i]->key.kernel == key->kernel && !memcmp(&S->kerns[i]->key, key, n)) return S->kerns[i];
  return NULL;
}

/* The loop's variants 1 and 2: launch bounds asking for `more` (1, 2) more resident blocks per SM than its
 * default kernel holds (built first if need be), so the compiler fits fewer registers per thread: more warps to
 * hide the latency of register-bound loops, perhaps spills (LULESH's volume_force, 249 registers at 64 threads,
 * 1.10x with two more; eos_constraints,
 * latency-bound at half the SM's threads, 1.06x with one more and slower with two; the DRAM-bound nodal_update
 * and monoq slower with either: H200). Where the blocks cannot fit (threads or shared memory bind), it is the
 * default kernel itself (no compile: the same key). */
static int more_blocks(um_context *ctx, cu_state *S, um_loop *loop, int more, cu_mode *mode, int threads,
                       cu_key *key) {
  cu_kern *k0 = cu_find_kern(S, key); /* key: the default kernel's, on entry */
  if (!k0) {
    um_loop l0 = *loop;
    l0.variant = 0;
    UM_BACKEND_CHECK(ctx, cu_build_kern(ctx, &l0, *mode, threads, key, &k0));
  }
  const int nb = k0->blocks_per_sm;
  const int max = S->prop.maxThreadsPerMultiProcessor;
  if (nb > 0 && (nb + more) * threads <= max) mode->min_blocks = nb + more;
  cu_make_key(loop, *mode, threads, key);
  return UM_SUCCESS;
}

int cu_run(um_context *ctx, void *state, um_loop *loop) {
  cu_state *S = state;
  if (loop->end <= loop->begin) return UM_SUCCESS; /* nothing to run; reductions keep the user's values */
  cu_mode mode;
  int threads;
  cu_key key;
  UM_BACKEND_CHECK(ctx, cu_loop_settings(ctx, S, loop, &mode, &threads, &key));
  if (loop->variant > 0) UM_BACKEND_CHECK(ctx, more_blocks(ctx, S, loop, loop->variant, &mode, threads, &key));
  cu_kern *k = cu_find_kern(S, &key);
  if (!k) UM_BACKEND_CHECK(ctx, cu_build_kern(ctx, loop, mode, threads, &key, &k));

  /* data on the device */
  S->cur_loop = loop->id;
  for (int i = 0; i < loop->nargs; i++)
    if (loop->args[i].kind == UM_ARG_DAT) {
      const int rc = cu_dat_on_device(ctx, loop->args[i].dat);
      if (rc != UM_SUCCESS) {
        S->cur_loop = -1;
        return um_backend_trace(ctx, rc, __FILE__, __LINE__);
      }
    }
  const int prc = fill_params(ctx, loop, k); /* (maps uploaded at their first use: timed for the loop) */
  S->cur_loop = -1;
  UM_BACKEND_CHECK(ctx, prc);
  /* lazy reductions (core says every one of this call is): um_reduce writes each result into its handle's
   * mapped buffer and the host goes on (with graphs too: a replay updates the nodes whose parameters changed,
   * and um_reduction_get's sync launches the segment first) */
  const int defer = loop->lazy_ok && k->D.has_reduction;
  for (int f = 0; defer && f < k->D.nfields; f++)
    if (k->D.fields[f].kind == UMC_F_RES)
      put_ptr(k->params, k->D.fields[f].offset, um_reduction_buffer(loop->args[k->D.fields[f].slot].red));
  if (S->poison)
    for (int i = 0; i < loop->nargs; i++) {
      const um_arg *a = &loop->args[i];
      if (a->kind == UM_ARG_DAT && !a->map && a->acc == UM_WRITE) {
        cu_dat *c = cu_dat_state(a->dat);
        CU(ctx, cudaMemsetAsync(c->d, 0xff, c->bytes, S->stream), "poisoning dat '%s'", um_dat_name(a->dat));
      }
    }
  const int off_n = field_offset(k, UMC_F_INT_N), off_start = field_offset(k, UMC_F_INT_START),
            off_part = field_offset(k, UMC_F_INT_PART);

  /* timing */
  if (S->npending == MAX_PENDING) UM_BACKEND_CHECK(ctx, cu_sync(ctx, S));
  cu_timing *t = &S->pending[S->npending];
  UM_BACKEND_CHECK(ctx, cu_get_event(ctx, &t->start));
  UM_BACKEND_CHECK(ctx, cu_get_event(ctx, &t->stop));
  t->rec = loop->id;
  t->name = k->name;
  t->owned = 0;
  UM_BACKEND_CHECK(ctx, cu_graph_event(ctx, S, loop->id, loop->first_piece ? 1 : 2, t->start, S->npending));
  S->last_loop = k->name;
  um_backend_counter_set(ctx, loop->id, CU_COUNTER_OCCUPANCY, k->occupancy);
  um_backend_counter_set(ctx, loop->id, CU_COUNTER_REGISTERS, k->registers);
  for (int l = 0; l < k->nlaunch; l++) {
    const cu_launch *L = &k->launch[l];
    if (L->n <= 0) continue;
    put_int(k->params, off_n, L->n);
    put_int(k->params, off_start, L->start);
    put_int(k->params, off_part, L->part);
    UM_BACKEND_CHECK(ctx, cu_graph_kernel(ctx, S, loop->id, k->kloop, (unsigned)L->grid, (unsigned)k->threads, k->shmem,
                                  k->params, k->D.param_bytes, loop->name));
  }
  if (k->D.has_reduction) {
    put_int(k->params, off_n, k->nparts);
    UM_BACKEND_CHECK(ctx, cu_graph_kernel(ctx, S, loop->id, k->kreduce, 1, UMC_REDUCE_THREADS, 0, k->params,
                                  k->D.param_bytes, loop->name));
  }
  UM_BACKEND_CHECK(ctx, cu_graph_event(ctx, S, loop->id, 0, t->stop, S->npending));
  S->npending++;

  /* written dats: the device copy is now the only current one */
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind == UM_ARG_DAT && a->acc != UM_READ) um_dat_set_valid(a->dat, UM_VALID_DEVICE);
  }
  if (defer) loop->deferred = 1;
  else if (k->D.has_reduction) {
    /* the API hands the value back when um_par_loop returns: wait for it; core combines it */
    UM_BACKEND_CHECK(ctx, cu_sync(ctx, S));
    for (int i = 0; i < loop->nargs; i++)
      if (k->D.pass[i] == UMC_PASS_GBL_REDUCE) um_reduce_into(loop, i, k->res_host[i]);
  }
  return UM_SUCCESS;
}
