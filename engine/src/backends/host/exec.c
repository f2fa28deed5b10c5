/* Host execution helpers for backends that run kernels on the host (seq,
 * OpenMP, and any registered one, um/backend.h): argument descriptors, SoA
 * write-back and reduction partials. */
#include <float.h>
#include <limits.h>
#include <string.h>
#include "core/internal.h"

__thread int um_kernel_repro_math = 0; /* um/kernel.h: set by um_exec_range while it runs a range */

void um_exec_init(um_exec *x, const um_loop *loop) {
  x->kernel = loop->kernel;
  x->compiled = loop->compiled;
  x->repro_math = loop->set->ctx->reproducible; /* the loop's context's, for its kernels' um_cbrt / um_exp */
  x->nargs = loop->nargs;
  x->nsoa = 0;
  x->nsoa_write = 0;
  x->nvec = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    um_exec_arg *e = &x->a[i];
    memset(e, 0, sizeof *e);
    e->acc = (int)a->acc;
    e->dim = a->dim;
    e->type = (int)a->type;
    e->esize = (int)um_type_size(a->type);
    e->row = (size_t)e->dim * (size_t)e->esize;
    if (a->kind == UM_ARG_GBL) {
      e->kind = UM_X_GBL;
      e->base = (char *)x->scratch[i];
      e->row = 0; /* every element sees the same value */
      continue;
    }
    const um_dat *d = a->dat;
    e->base = d->data;
    e->stride = (size_t)d->rows * d->esize; /* SoA columns are allocated rows long */
    int soa = d->layout == UM_SOA && d->dim > 1;
    if (a->map && a->idx == UM_ALL) { /* every target: the kernel reads the dat in place, no staging */
      const int dsoa = um_dat_storage_layout(d) == UM_SOA;
      e->map = a->map->data;
      e->arity = a->map->arity;
      e->idx = UM_ALL;
      e->whole = a->map->whole;
      e->kind = UM_X_VEC;
      x->vec[i].idx = e->map;
      x->vec[i].base = d->data;
      x->vec[i].n = e->arity;
      x->vec[i].es = dsoa ? 1 : d->dim;
      x->vec[i].cs = dsoa ? d->rows : 1;
      x->vec[i].atomic = 0;
      x->nvec++;
      continue;
    }
    if (a->map) {
      e->map = a->map->data;
      e->arity = a->map->arity;
      e->idx = a->idx;
      e->kind = soa ? UM_X_INDIRECT_SOA : UM_X_INDIRECT_AOS;
    } else if (a->acc == UM_INC && um__contrib_staged(d)) {
      /* its row starts at -0.0 here and is stored, never read (um_backend_caps.contrib_store); not stored at all
       * where the loop drops it (um_loop.drop: base NULL, as the compiled range sees it too) */
      e->kind = UM_X_CONTRIB;
      if (loop->drop >> i & 1) e->base = NULL;
      x->nsoa++;
      x->nsoa_write++;
      continue;
    } else {
      e->kind = soa ? UM_X_DIRECT_SOA : UM_X_DIRECT_AOS;
    }
    if (soa) x->nsoa++;
    if (soa && a->acc != UM_READ) x->nsoa_write++;
  }
  for (int i = 0; i < loop->nargs; i++) { /* a vector argument: its um_vec (arity, strides, atomic: set per run) */
    x->cbase[i] = x->a[i].kind == UM_X_VEC ? (char *)&x->vec[i] : x->a[i].base;
    x->cmap[i] = x->a[i].map;
    x->cstride[i] = x->a[i].stride;
  }
}

void um_exec_scatter(um_exec *x, int e) {
  for (int i = 0; i < x->nargs; i++) {
    const um_exec_arg *a = &x->a[i];
    if (a->kind == UM_X_CONTRIB) { /* the whole row, stored (unless dropped) */
      if (a->base) memcpy(a->base + (size_t)e * a->row, x->scratch[i], a->row);
      continue;
    }
    if ((a->kind != UM_X_DIRECT_SOA && a->kind != UM_X_INDIRECT_SOA) || a->acc == UM_READ) continue;
    char *dst = a->base + um__target(a, e) * (size_t)a->esize;
    const char *s = (const char *)x->scratch[i];
    for (int c = 0; c < a->dim; c++, dst += a->stride, s += a->esize) {
      if (a->acc != UM_INC) {
        if (a->esize == 8) memcpy(dst, s, 8); /* fixed sizes: plain stores */
        else memcpy(dst, s, 4);
      } else if (a->type == UM_DOUBLE) {
        double v, d;
        memcpy(&v, s, sizeof v);
        memcpy(&d, dst, sizeof d);
        d += v;
        memcpy(dst, &d, sizeof d);
      } else if (a->type == UM_FLOAT) {
        float v, d;
        memcpy(&v, s, sizeof v);
        memcpy(&d, dst, sizeof d);
        d += v;
        memcpy(dst, &d, sizeof d);
      } else {
        int v, d;
        memcpy(&v, s, sizeof v);
        memcpy(&d, dst, sizeof d);
        d += v;
        memcpy(dst, &d, sizeof d);
      }
    }
  }
}

/* Globals: READ, MIN and MAX start from the user's value, INC from zero. */
void um_exec_gbl_init(um_exec *x, const um_loop *loop) {
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_GBL) continue;
    size_t bytes = (size_t)a->dim * um_type_size(a->type);
    if (a->acc == UM_INC) memset(x->scratch[i], 0, bytes);
    else memcpy(x->scratch[i], a->gbl, bytes);
  }
}

/* MIN and MAX propagate NaN: a NaN on either side wins, on every backend (the
 * CUDA backend's um_op in codegen.c is the same rule), so a NaN anywhere in a
 * reduction is never replaced by a finite number. `x != x` is true only for NaN;
 * ints have none. INC propagates NaN by arithmetic. */
#define COMBINE(T, ISNAN)                                                       \
  do {                                                                          \
    T *d = (T *)dst;                                                            \
    const T *s = (const T *)src;                                                \
    for (int c = 0; c < dim; c++) {                                             \
      if (acc == UM_INC) d[c] += s[c];                                          \
      else if (acc == UM_MIN) d[c] = (s[c] < d[c] || ISNAN(s[c])) ? s[c] : d[c]; \
      else if (acc == UM_MAX) d[c] = (s[c] > d[c] || ISNAN(s[c])) ? s[c] : d[c]; \
    }                                                                           \
  } while (0)
#define UM__ISNAN_FP(x) ((x) != (x))
#define UM__ISNAN_INT(x) 0

void um__combine(void *dst, const void *src, int dim, um_type t, um_access acc) {
  if (t == UM_DOUBLE) COMBINE(double, UM__ISNAN_FP);
  else if (t == UM_FLOAT) COMBINE(float, UM__ISNAN_FP);
  else COMBINE(int, UM__ISNAN_INT);
}

void um_reduce_into(um_loop *loop, int i, const void *values) {
  const um_arg *a = &loop->args[i];
  if (a->kind == UM_ARG_GBL && a->acc != UM_READ) um__combine(loop->red[i], values, a->dim, a->type, a->acc);
}

void um_exec_reduce(um_loop *loop, const um_exec *x) {
  for (int i = 0; i < loop->nargs; i++) um_reduce_into(loop, i, x->scratch[i]);
}

/* ---- gathers of split loops (um/backend.h: um_gather) ----
 * Each target's values are summed in registers, from the target's value, in its entries' order (a source that
 * negate names read negated: -x exactly, so the same bits as the contribution it stands for; a NaN as it is, as
 * the kernel's -0.0 - NaN leaves it): the same
 * additions, in the same order, as adding each contribution into the row in memory, so the same bits. The
 * entries come decoded (element and source, once per inverse map, not divided per entry), and a target of
 * dim 1 to 4 runs a copy of the loop with the dim a constant (unrolled, in registers). */
#define UM__MINUS(x) ((x) != (x) ? (x) : -(x))
#define GATHER_ROWS(T, DIM)                                                                          \
  do {                                                                                               \
    T *dst = (T *)(void *)d->data;                                                                   \
    const T *base[UM_MAX_ARGS];                                                                      \
    for (int k = 0; k < g->nsrc; k++) base[k] = (const T *)(const void *)g->src[k]->data;            \
    const size_t es = ss ? 1 : (size_t)(DIM), sc = ss ? ss : 1; /* source element and component strides */ \
    for (int t = begin; t < end; t++) {                                                              \
      const int j0 = g->offset[t], j1 = g->offset[t + 1];                                            \
      if (j0 == j1) continue;                                                                        \
      T *r = dst + (size_t)(g->rows ? g->rows[t] : t) * rs;                                          \
      if ((DIM) <= 4) { /* every component in a register */                                         \
        T v[4];                                                                                      \
        for (int c = 0; c < (DIM); c++) v[c] = r[(size_t)c * cs];                                    \
        for (int j = j0; j < j1; j++) {                                                              \
          const int k = g->slot ? g->slot[j] : 0;                                                    \
          const T *s = base[k] + (size_t)g->elem[j] * es;                                            \
          const int neg = g->negate >> k & 1;                                                        \
          for (int c = 0; c < (DIM); c++) v[c] += neg ? UM__MINUS(s[(size_t)c * sc]) : s[(size_t)c * sc]; \
        }                                                                                            \
        for (int c = 0; c < (DIM); c++) r[(size_t)c * cs] = v[c];                                   \
      } else { /* one component at a time: each component's additions in the same order */          \
        for (int c = 0; c < (DIM); c++) {                                                            \
          T v = r[(size_t)c * cs];                                                                   \
          for (int j = j0; j < j1; j++) {                                                            \
            const int k = g->slot ? g->slot[j] : 0;                                                  \
            const T x = base[k][(size_t)g->elem[j] * es + (size_t)c * sc];                           \
            v += g->negate >> k & 1 ? UM__MINUS(x) : x;                                              \
          }                                                                                          \
          r[(size_t)c * cs] = v;                                                                     \
        }                                                                                            \
      }                                                                                              \
    }                                                                                                \
  } while (0)
#define GATHER_TYPE(T)                                                                               \
  do {                                                                                               \
    switch (dim) {                                                                                   \
    case 1: GATHER_ROWS(T, 1); break;                                                                \
    case 2: GATHER_ROWS(T, 2); break;                                                                \
    case 3: GATHER_ROWS(T, 3); break;                                                                \
    case 4: GATHER_ROWS(T, 4); break;                                                                \
    default: GATHER_ROWS(T, dim); break;                                                             \
    }                                                                                                \
  } while (0)

void um_exec_gather(const um_gather *g, int begin, int end) {
  const um_dat *d = g->dst;
  const int dim = d->dim;
  const int soa = um_dat_storage_layout(d) == UM_SOA;
  const size_t rs = soa ? 1 : (size_t)dim, cs = soa ? (size_t)d->rows : 1; /* row and component strides */
  /* the sources (all alike): SoA column length, 0 for AoS */
  const size_t ss = g->nsrc && um_dat_storage_layout(g->src[0]) == UM_SOA ? (size_t)g->src[0]->rows : 0;
  if (d->type == UM_DOUBLE) GATHER_TYPE(double);
  else if (d->type == UM_FLOAT) GATHER_TYPE(float);
  else GATHER_TYPE(int);
}
