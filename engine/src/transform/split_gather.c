/* Automatic loop splitting's gathers (split.c): each target's inverse map, and the arguments declared minus another
 * (um_arg_minus), stored once their first call has checked them. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "split_state.h"
#include "distributed/dist.h"

/* GATHER: each um_arg_minus arg whose partner also increments through its map gets the partner's index, and its
 * contribution argument keeps the declaration (a backend's kernel then stores it only where um_loop.drop says) --
 * on a backend with contrib_drop, for a host one where it stages the row (contrib_store). */
void um__split_mark_minus(um_context *ctx, const um_loop *loop, struct um_split_state *sp) {
  if (!ctx->backend->caps.contrib_drop) return;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (!a->minus || sp->tmp[i] < 0 || sp->exact[i]) continue;
    if (ctx->backend->caps.host_code && !um__contrib_staged(ctx->temps[sp->tmp[i]])) continue;
    const int j = um__minus_partner(loop->args, loop->nargs, i);
    if (j < 0 || sp->tmp[j] < 0) continue;
    sp->minus[i] = j;
    sp->drop |= 1ULL << i;
    sp->cargs[i].minus = a->minus;
  }
}

/* The inverse of target T's maps over elements [0, end): per target row, its (element, source) pairs
 * ordered by the element's global number, then source. */
int um__split_build_csr(um_context *ctx, const um_loop *loop, split_target *T, int end) {
  free(T->rows), free(T->off), free(T->ent), free(T->elem), free(T->slot);
  T->rows = T->off = T->ent = T->elem = NULL, T->slot = NULL;
  const int nt = um__set_total(T->dst->set), ns = T->nsrc;
  size_t n = (size_t)end * (size_t)ns;
  T->off = calloc((size_t)nt + 1, sizeof *T->off);
  T->ent = malloc((n ? n : 1) * sizeof *T->ent);
  int *fill = calloc((size_t)nt + 1, sizeof *fill);
  if (!T->off || !T->ent || !fill) {
    free(fill);
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory for the inverse map of loop '%s' (%zu entries)", loop->name, n);
  }
  for (int e = 0; e < end; e++)
    for (int k = 0; k < ns; k++) {
      const um_arg *a = &loop->args[T->arg[k]];
      T->off[a->map->data[(size_t)e * (size_t)a->map->arity + (size_t)a->idx] + 1]++;
    }
  for (int t = 0; t < nt; t++) T->off[t + 1] += T->off[t];
  for (int e = 0; e < end; e++) /* elements ascending, then sources: sorted unless distributed */
    for (int k = 0; k < ns; k++) {
      const um_arg *a = &loop->args[T->arg[k]];
      const int t = a->map->data[(size_t)e * (size_t)a->map->arity + (size_t)a->idx];
      T->ent[T->off[t] + fill[t]++] = e * ns + k;
    }
  free(fill);
  int touched = 0;
  for (int t = 0; t < nt; t++) touched += T->off[t + 1] > T->off[t];
  if (touched < nt) { /* only the rows some element increments (a boundary loop touches few) */
    T->rows = malloc((touched ? (size_t)touched : 1) * sizeof *T->rows);
    if (!T->rows) return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory for the inverse map of loop '%s'", loop->name);
    int q = 0;
    for (int t = 0; t < nt; t++)
      if (T->off[t + 1] > T->off[t]) {
        T->rows[q] = t;
        T->off[q] = T->off[t]; /* q <= t: the start moves down in place */
        q++;
      }
    T->off[q] = T->off[nt];
  }
  const long long *l2g = NULL;
  UM_CHECK(ctx, um__dist_l2g(ctx, loop->set, &l2g));
  const int ntg = T->rows ? touched : nt;
  if (l2g) /* by global element number: what one rank would add first comes first on every rank */
    for (int t = 0; t < ntg; t++)
      for (int j = T->off[t] + 1; j < T->off[t + 1]; j++) { /* rows are short: insertion sort */
        const int v = T->ent[j];
        const long long kv = l2g[v / ns] * ns + v % ns;
        int i = j - 1;
        while (i >= T->off[t] && l2g[T->ent[i] / ns] * ns + T->ent[i] % ns > kv) {
          T->ent[i + 1] = T->ent[i];
          i--;
        }
        T->ent[i + 1] = v;
      }
  const size_t nent = (size_t)T->off[ntg]; /* decoded once, for the host gathers (no division per entry) */
  T->elem = malloc((nent ? nent : 1) * sizeof *T->elem);
  T->slot = ns > 1 ? malloc(nent ? nent : 1) : NULL;
  if (!T->elem || (ns > 1 && !T->slot))
    return UM_ERROR(ctx, UM_ERR_ALLOC, "out of memory for the inverse map of loop '%s'", loop->name);
  for (size_t j = 0; j < nent; j++) {
    T->elem[j] = T->ent[j] / ns;
    if (T->slot) T->slot[j] = (unsigned char)(T->ent[j] % ns);
  }
  T->ntargets = ntg;
  T->total = nt;
  T->end = end;
  T->key = ++ctx->gather_keys; /* per context: a backend keeps its gathers per context */
  return UM_SUCCESS;
}

/* Bit for bit, is value e of temporary di minus that of dj (type t)? */
static int negates(const um_dat *di, const um_dat *dj, size_t at) {
  if (di->type == UM_DOUBLE) {
    const double v = -((const double *)(const void *)dj->data)[at];
    return !memcmp(&v, (const double *)(const void *)di->data + at, sizeof v);
  }
  const float v = -((const float *)(const void *)dj->data)[at];
  return !memcmp(&v, (const float *)(const void *)di->data + at, sizeof v);
}

/* The split's reason names the contributions not stored (again after decide() rewrites it). */
void um__split_minus_reason(um_context *ctx, int rec_id, const struct um_split_state *sp, int nargs) {
  char *why = ctx->loops[rec_id].split_reason;
  const size_t cap = sizeof ctx->loops[rec_id].split_reason;
  if (sp->minus_state != 1 || strstr(why, "(um_arg_minus)")) return;
  for (int i = 0; i < nargs; i++)
    if (sp->minus[i] >= 0 && strlen(why) + 60 < cap)
      snprintf(why + strlen(why), cap - strlen(why), "; arg %d read as minus arg %d's (um_arg_minus)", i, sp->minus[i]);
}

/* Calls a split shape stores both of each pair while its partners' contributions are all zero (nothing to check a
 * declaration against: -0 - 0 is -(+0) whatever the kernel does), before it keeps storing both for good. */
#define MINUS_ZERO_CALLS 8

/* After a call that stored every contribution: each um_arg_minus arg's contributions over elements [0, end)
 * against its partner's, negated. All equal, and some not zero: from now on the arg's contributions are not
 * stored and the gathers read the partner's negated (the same bits). Any other: the loop keeps storing both, with
 * a warning. All zero: checked again at the next call (at most MINUS_ZERO_CALLS calls). */
int um__split_check_minus(um_context *ctx, struct um_split_state *sp, um_loop *loop) {
  size_t informative = 0;
  for (int i = 0; i < loop->nargs && sp->minus_state == 0; i++) {
    if (sp->minus[i] < 0) continue;
    const int j = sp->minus[i];
    um_dat *di = ctx->temps[sp->tmp[i]], *dj = ctx->temps[sp->tmp[j]];
    if (!(di->valid & UM_VALID_HOST)) UM_CHECK(ctx, um__dat_to_host(ctx, di));
    if (!(dj->valid & UM_VALID_HOST)) UM_CHECK(ctx, um__dat_to_host(ctx, dj));
    const int soa = um_dat_storage_layout(di) == UM_SOA;
    for (int e = 0; e < loop->end && sp->minus_state == 0; e++)
      for (int c = 0; c < di->dim; c++) {
        const size_t at = soa ? (size_t)c * (size_t)di->rows + (size_t)e : (size_t)e * (size_t)di->dim + (size_t)c;
        const double vj = um__gbl_value(dj->data + at * dj->esize, dj->type, 0);
        if (negates(di, dj, at)) {
          informative += vj != 0.0;
          continue;
        }
        const double vi = um__gbl_value(di->data + at * di->esize, di->type, 0);
        um_backend_log(ctx, UM_LOG_WARNING,
                       "um: loop '%s': arg %d is declared um_arg_minus of arg %d, but element %d adds %.17g to "
                       "component %d where arg %d adds %.17g; the declaration is ignored (both stored, as without it)",
                       loop->name, i, j, e, vi, c, j, vj);
        sp->minus_state = -1;
        break;
      }
  }
  if (sp->minus_state == 0 && !informative && ++sp->minus_zero_calls >= MINUS_ZERO_CALLS) {
    um_backend_log(ctx, UM_LOG_INFO,
                   "um: loop '%s': its um_arg_minus declarations could not be checked (every contribution zero in "
                   "its first %d calls); both are stored, as without them",
                   loop->name, MINUS_ZERO_CALLS);
    sp->minus_state = -1;
  }
  if (sp->minus_state == -1) sp->drop = 0;
  if (sp->minus_state != 0 || !informative) return UM_SUCCESS;
  sp->minus_state = 1;
  um__split_minus_reason(ctx, loop->id, sp, loop->nargs);
  for (int i = 0; i < loop->nargs; i++) /* the contribution loop's bytes: the dropped rows are no longer written */
    if (sp->minus[i] >= 0) {
      um_loop one;
      memset(&one, 0, offsetof(um_loop, red));
      one.set = loop->set;
      one.nargs = 1;
      one.args = &sp->cargs[i];
      ctx->loops[sp->cid].bytes -= um__useful_bytes(&one);
    }
  for (split_target *T = sp->tgt; T < sp->tgt + sp->ntgt; T++) /* the partner's temporary, read negated */
    for (int k = 0; k < T->nsrc; k++)
      if (sp->minus[T->arg[k]] >= 0) {
        T->src[k] = ctx->temps[sp->tmp[sp->minus[T->arg[k]]]];
        T->negate |= 1ULL << k;
      }
  return UM_SUCCESS;
}

