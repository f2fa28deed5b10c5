/** @file um/args.h
 * Loop arguments (dats directly or through maps, globals) and reductions.
 * Part of the public API: include um/um.h. */
#ifndef UM_ARGS_H
#define UM_ARGS_H

#include "um/objects.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- arguments ----------------------------------------------------------- */
/** The map argument of um_arg_dat for direct access (no map). */
#define UM_ID NULL /* map for direct access */

/** What a loop argument refers to. */
typedef enum {
  UM_ARG_DAT = 0, /**< a dat, directly or through a map */
  UM_ARG_GBL      /**< a global value in user memory    */
} um_arg_kind;

/** One argument of a par_loop: built with um_arg_dat or um_arg_gbl. */
typedef struct {
  um_arg_kind kind; /**< dat or global                                  */
  um_dat *dat;     /**< UM_ARG_DAT                                    */
  um_map *map;     /**< NULL: direct                                  */
  int idx;         /**< map index, 0 <= idx < arity (-1 when direct, UM_ALL: a vector arg) */
  int dim;         /**< declared dim, checked against the dat's       */
  um_type type;    /**< declared type, checked against the dat's      */
  um_access acc;   /**< access mode                                   */
  void *gbl;       /**< UM_ARG_GBL: user memory of dim values         */
  struct um_reduction *red; /**< um_arg_reduction: the handle the loop reduces into (else NULL) */
  int minus;       /**< um_arg_minus: 1 + the map index of the argument whose increments this one's negate; 0: none */
} um_arg;

/** idx for um_arg_dat meaning "every target of the map, as one argument" (OP2's OP_ALL). */
#define UM_ALL (-2)

/** A dat argument: `dat` directly (map UM_ID, idx ignored) or through `map` at
 * index idx (UM_ALL: every index, a vector argument, see um_arg_vec); dim and
 * type must match the dat's (checked by um_par_loop). A dat incremented (UM_INC) by one argument of a loop may
 * not be read or written by another unless both are direct: an element would see rows others are adding to
 * (um_par_loop refuses it); increments by several arguments are fine. */
um_arg um_arg_dat(um_dat *dat, int idx, um_map *map, int dim, um_type type, um_access acc);
/** A vector argument: all `arity` targets of `map` at once; the kernel receives a `const um_vec *`
 * (um/kernel.h) and reads target j, component c as UM_VEC_D(v, j, c). The same as
 * um_arg_dat(dat, UM_ALL, map, dim, type, acc). The map is required, the dat must live on the map's
 * to-set, acc is UM_READ or UM_INC (increments through um_vec_inc_d / _f / _i). One argument however
 * large the arity, so stencils over many neighbours stay within UM_MAX_ARGS. */
um_arg um_arg_vec(um_dat *dat, um_map *map, int dim, um_type type, um_access acc);
/** idx for um_arg_dat meaning "every row of the dat, whatever the element" (um_arg_whole). */
#define UM_WHOLE (-3)
/** A whole-dat argument: every row of `dat` (on any set) as one argument, for kernels that find the rows they
 * need themselves (a search through a hash grid, a lookup table). The kernel receives a `const um_vec *` with
 * n = the dat's set size and reads row j, component c as UM_VEC_D(v, j, c); the same for every element. acc is
 * UM_READ, or UM_INC (add with um_vec_inc_d / _f / _i): increments to rows no map names cannot be coloured, so a
 * loop with one runs by atomics on backends that have them (CUDA; OpenMP), serially on seq and, under
 * run.reproducible, on one OpenMP thread. Not under distribution (every rank would need every row): a loop with
 * one is refused there. Row numbers are the current ones: after a reordering (um_app_prepare, run.reorder) index
 * tables the kernel reads must be built from the reordered data (um_dat_fetch). */
um_arg um_arg_whole(um_dat *dat, int dim, um_type type, um_access acc);
/** An INC argument through a map, declared to add exactly minus what the loop's argument that increments the
 * same dat through the same map at map index `idx` adds, element by element: the kernel's `l -= f` where the other
 * has `r += f` (a flux out of one cell into the other: Airfoil's res_calc, miniAero's face fluxes). Returns `a`
 * with the declaration. Nothing changes where the loop runs whole; where it is split with gathers (run.reproducible,
 * run.split: gather) a backend that can (um_backend_caps.contrib_drop) stores only the other argument's
 * contributions and the gather adds them negated: half the contributions written and read, the same bits (x - f from
 * -0.0 is -f exactly). The declaration is checked on the split loop's first call with contributions not all zero,
 * which stores both: if any value differs in any bit the loop keeps storing both, with a warning naming the
 * element. Floating-point dats only;
 * um_par_loop refuses a declaration whose partner is missing, not INC, or itself declared minus of another. */
um_arg um_arg_minus(um_arg a, int idx);
/** A global argument: dim values of type at `data`, read (UM_READ) or reduced
 * into (UM_INC, UM_MIN, UM_MAX) by the loop. */
um_arg um_arg_gbl(void *data, int dim, um_type type, um_access acc);

/** A reduction read lazily: loops reduce into it (um_arg_reduction) and return without waiting for the
 * result, which um_reduction_get delivers when the app asks (a GPU backend then runs on instead of stopping
 * at every reduction, e.g. Airfoil's rms, read every 100 iterations). Each call's result starts afresh (INC
 * from 0, MIN from the type's largest value, MAX from its smallest) and the handle holds the last call's. */
typedef struct um_reduction um_reduction;
/** Declare a lazy reduction of dim values (1 .. UM_MAX_SCRATCH_DIM of um/exec.h) of type, reduced by acc (UM_INC,
 * UM_MIN or UM_MAX); freed by um_finalize. */
int um_decl_reduction(um_context *ctx, int dim, um_type type, um_access acc, const char *name, um_reduction **out);
/** The argument through which a loop reduces into r (as um_arg_gbl with r's dim, type and access). */
um_arg um_arg_reduction(um_reduction *r);
/** The result of the last loop that reduced into r (bytes = dim values of its type), waiting for it if it
 * is still running. A non-finite sum, or a NaN minimum or maximum, is UM_ERR_DIVERGED naming the loop and
 * its call (the check an eager global gets at its call, made here). UM_ERR_ARG if no loop has reduced
 * into r yet. */
int um_reduction_get(um_context *ctx, um_reduction *r, void *out, size_t bytes);
/** 1 if the last call's result is not delivered yet (a GPU may still be computing it: um_reduction_get would
 * wait), 0 if um_reduction_get returns it at once (or no loop has reduced into r yet). Lets an app check a
 * result in the step that made it where that costs no wait, and in the next step otherwise. */
int um_reduction_pending(const um_reduction *r);

#ifdef __cplusplus
}
#endif
#endif
