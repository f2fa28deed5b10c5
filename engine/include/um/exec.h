/** @file um/exec.h
 * How the host backends hand resolved arguments to a kernel.
 *
 * A backend fills one um_exec per thread with a descriptor per argument
 * (base pointer, map, layout), then calls kernel->range(x, begin, end).
 * The range function, generated in the app by UM_KERNEL_DEFINE, builds one
 * pointer per argument with um_exec_args(), calls the user kernel, and for
 * SoA arguments that the kernel writes, scatters the values back with
 * um_exec_scatter(). The kernel body itself is never copied.
 */
#ifndef UM_EXEC_H
#define UM_EXEC_H

#include <string.h>
#include "um/um.h"
#include "um/kernel.h" /* um_vec */

#ifdef __cplusplus
extern "C" {
#endif

#define UM_MAX_ARGS 48        /**< arguments per loop                 */
#define UM_MAX_SCRATCH_DIM 64 /**< largest dim of a SoA or global arg */
/** Bytes of one argument's staging (um_exec.scratch[i]): the widest row a host backend stages */
#define UM_EXEC_STAGE_BYTES (UM_MAX_SCRATCH_DIM * sizeof(double))

/** How the range function reaches one argument's values (um_exec_arg.kind). */
typedef enum {
  UM_X_DIRECT_AOS = 0, /**< a dat, directly, AoS: base + e * row                 */
  UM_X_INDIRECT_AOS,   /**< a dat through a map, AoS: base + map[e][idx] * row   */
  UM_X_DIRECT_SOA,     /**< a dat, directly, SoA: staged in um_exec.scratch       */
  UM_X_INDIRECT_SOA,   /**< a dat through a map, SoA: staged in um_exec.scratch   */
  UM_X_GBL,            /**< a global: base itself (the per-thread value)         */
  UM_X_VEC,            /**< every target of a map row: um_exec.vec (um_vec)      */
  UM_X_CONTRIB         /**< a split loop's contribution temporary (um_dat_contribution), directly, AoS:
                            staged in um_exec.scratch from -0.0 and stored, not added (its row is not read) */
} um_exec_kind;

/** One resolved argument of a loop, as the range function reads it. */
typedef struct {
  int kind;          /**< um_exec_kind                                   */
  char *base;        /**< dat storage (or the global's value)            */
  const int *map;    /**< indirect: map data                             */
  /** @{ indirect: map arity and index (UM_ALL for a vector arg) */
  int arity, idx;
  /** @} */
  int dim;           /**< values per element                             */
  int esize;         /**< bytes per value                                */
  size_t row;        /**< AoS: bytes per element (dim * esize)           */
  size_t stride;     /**< SoA: bytes between components (set size * esize)*/
  int acc;           /**< um_access                                      */
  int type;          /**< um_type                                        */
  int whole;         /**< a vector arg over a whole dat (um_arg_whole): one row for all elements */
} um_exec_arg;

/** A loop's range compiled for its arguments (engine/src/backends/host/hostc.c): base
 * pointers (a global's: its per-thread value; a vector argument's: its um_vec in um_exec.vec,
 * read when the range starts), maps and SoA column strides (bytes) per argument, then the
 * elements [begin, end). */
typedef void (*um_compiled_range)(char *const *base, const int *const *map, const size_t *stride, int begin,
                                  int end);

/** What a host backend hands a kernel's range function (one per thread): the
 * loop's kernel, its resolved arguments and the staging for SoA ones. Initialised in place by
 * um_exec_init and never copied after (a vector argument's cbase points into it, at vec). */
typedef struct um_exec {
  const struct um_kernel *kernel; /**< the loop's kernel (its user data: kernel->user) */
  um_compiled_range compiled;     /**< NULL: the kernel's own range function runs */
  char *cbase[UM_MAX_ARGS];       /**< the compiled range's arguments, from a[] (a vector argument's: &vec[i]) */
  const int *cmap[UM_MAX_ARGS];   /**< the compiled range's maps (NULL: direct)   */
  size_t cstride[UM_MAX_ARGS];    /**< the compiled range's SoA column strides (bytes) */
  int nargs;         /**< arguments of the loop                          */
  int nsoa;          /**< staged args, SoA or contributions (0: every arg takes the fast AoS path) */
  int nsoa_write;    /**< staged args that the kernel may write           */
  int nvec;          /**< vector args (um_arg_vec): they take the general path too */
  um_exec_arg a[UM_MAX_ARGS]; /**< the arguments, in the kernel's order */
  /** vector args: the um_vec the kernel receives (idx moved per element) */
  um_vec vec[UM_MAX_ARGS];
  /** per-thread staging for SoA args (one element's values, as AoS) */
  double scratch[UM_MAX_ARGS][UM_MAX_SCRATCH_DIM];
  /** 1: the loop's context is in reproducible mode (um_exec_init): its kernels' um_cbrt / um_exp take the
   * portable versions (um/kernel.h) while um_exec_range runs them */
  int repro_math;
} um_exec;

static inline size_t um__target(const um_exec_arg *a, int e) {
  return a->map ? (size_t)a->map[(size_t)e * (size_t)a->arity + (size_t)a->idx] : (size_t)e;
}

/** Fast path when no arg is SoA: p[i] = base + target * row, where a global
 * has row 0 and a direct arg no map. n is a compile-time constant in the
 * range functions, so the loop unrolls. */
static inline void um_exec_args_aos(const um_exec *x, int e, void **p, int n) {
  for (int i = 0; i < n; i++) {
    const um_exec_arg *a = &x->a[i];
    p[i] = a->base + um__target(a, e) * a->row;
  }
}

/** General path: fill p[0..nargs) for element e, staging SoA args. */
static inline void um_exec_args(um_exec *x, int e, void **p) {
  for (int i = 0; i < x->nargs; i++) {
    const um_exec_arg *a = &x->a[i];
    switch (a->kind) {
    case UM_X_DIRECT_AOS: p[i] = a->base + (size_t)e * a->row; break;
    case UM_X_INDIRECT_AOS: p[i] = a->base + um__target(a, e) * a->row; break;
    case UM_X_GBL: p[i] = a->base; break;
    case UM_X_VEC:
      x->vec[i].idx = a->whole ? a->map : a->map + (size_t)e * (size_t)a->arity;
      p[i] = &x->vec[i];
      break;
    default: { /* SoA or a contribution: one element's values staged in scratch */
      char *s = (char *)x->scratch[i];
      if (a->acc == UM_INC) { /* floating point from -0.0, the additive identity: a target stays -0.0 */
        if (a->type == UM_DOUBLE)
          for (int c = 0; c < a->dim; c++) ((double *)(void *)s)[c] = -0.0;
        else if (a->type == UM_FLOAT)
          for (int c = 0; c < a->dim; c++) ((float *)(void *)s)[c] = -0.0f;
        else
          memset(s, 0, (size_t)a->dim * (size_t)a->esize);
      } else if (a->acc != UM_WRITE) {
        const char *src = a->base + um__target(a, e) * (size_t)a->esize;
        /* fixed-size copies, so the compiler makes them plain loads */
        if (a->esize == 8)
          for (int c = 0; c < a->dim; c++) memcpy(s + 8 * (size_t)c, src + (size_t)c * a->stride, 8);
        else
          for (int c = 0; c < a->dim; c++) memcpy(s + 4 * (size_t)c, src + (size_t)c * a->stride, 4);
      }
      p[i] = s;
    }
    }
  }
}

/** Write staged values back after the kernel ran on element e (SoA rows; contributions stored). */
void um_exec_scatter(um_exec *x, int e);

/** This thread's reproducible-math setting for the kernels' um_cbrt / um_exp (um/kernel.h), set by
 * um_exec_range from x->repro_math while it runs a range. */
extern __thread int um_kernel_repro_math;

/** Run elements [begin, end): the compiled range when the loop has one, else
 * the kernel's (UM_KERNEL_DEFINE's) range function. Same results, bit for bit.
 * The kernels' math follows x->repro_math while it runs (a compiled range is
 * built per mode). */
static inline void um_exec_range(um_exec *x, int begin, int end) {
  const int repro = um_kernel_repro_math;
  um_kernel_repro_math = x->repro_math;
  if (x->compiled) x->compiled(x->cbase, x->cmap, x->cstride, begin, end);
  else x->kernel->range(x, begin, end);
  um_kernel_repro_math = repro;
}

#ifdef __cplusplus
}
#endif
#endif
