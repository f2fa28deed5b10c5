/* Internal definitions shared by the engine's sources (not installed). */
#ifndef UM_INTERNAL_H
#define UM_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include "um/um.h"
#include "um/exec.h"
#include "../plan/plan.h"

#define UM_ERRMSG_LEN 4096

/* Record an error (message formatted from fmt) and return code. */
int um__error(um_context *ctx, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Append " (at file:line)" to the stored message and return code: used by UM_CHECK. */
int um__trace(um_context *ctx, int code, const char *file, int line);

#define UM_ERROR(ctx, code, ...) um__error((ctx), (code), __FILE__, __LINE__, __VA_ARGS__)
/* Propagate a failing call's error code, recording where it passed. */
#define UM_CHECK(ctx, call)                                                      \
  do {                                                                           \
    int um__rc = (call);                                                         \
    if (um__rc != UM_SUCCESS) return um__trace((ctx), um__rc, __FILE__, __LINE__); \
  } while (0)

struct um_set {
  um_context *ctx;
  char *name;
  int size;
  int index;
  int *perm; /* old (as declared) -> current index after reorderings; NULL: never reordered (reorder/) */
  /* Parts of the last partition reordering that renumbered this set, in the
   * current numbering: part p is elements [part_offset[p], part_offset[p+1]),
   * each of 1..part_block_size elements. Loops over the set with that block
   * size use them as plan blocks (um__get_plan). NULL: none; cleared when a
   * later reordering renumbers the set. */
  int *part_offset; /* [nparts+1] */
  int nparts;
  int part_block_size;
};

struct um_map {
  um_context *ctx;
  char *name;
  um_set *from, *to;
  int arity;
  int *data;
  int index;
};

struct um_dat {
  um_context *ctx;
  char *name;
  um_set *set;
  int dim;
  um_type type;
  size_t esize;
  um_layout layout;      /* AOS or SOA: storage order of data          */
  int layout_auto;       /* layout still to be decided at first use    */
  char *data;            /* host storage, size*dim*esize bytes         */
  int index;
  /* backend-private state (device copies, dirty flags) */
  void *backend_data;
};

typedef struct {
  char *name;
  int dim;
  um_type type;
  size_t esize;
  void *data;
} um_const;

typedef struct {
  char *name;
  long calls;
  double seconds;
  double bytes;
  int set_size;
  int indirect;
  int block_size;       /* per-loop override, 0 = context's */
  um_strategy strategy; /* per-loop override                */
  const um_plan *last_plan;
  int nplans;
  double plan_seconds;
  /* the last call's kernel and arguments (gbl pointers not kept valid): lets
   * the CUDA backend generate a loop's kernel without running it (um/cuda.h) */
  const um_kernel *kernel;
  um_set *set;
  int nargs;
  um_arg args[UM_MAX_ARGS];
  /* filled by backends that time on the device (CUDA events) */
  double dev_seconds;
  long dev_calls;
  double jit_seconds;   /* run-time compilation and module loading */
  int modules, modules_cached;
  double occupancy;     /* theoretical, of the last kernel run (0 = not known) */
} um_loop_rec;

typedef struct um_backend_ops um_backend_ops;
typedef struct um_backend_hooks um_backend_hooks;

struct um_context {
  um_options opts;
  um_backend backend;
  um_strategy strategy;
  const um_backend_ops *ops;
  void *backend_state;
  char errmsg[UM_ERRMSG_LEN];
  int nsets, nmaps, ndats, nconsts, nloops;
  int capsets, capmaps, capdats, capconsts, caploops;
  um_set **sets;
  um_map **maps;
  um_dat **dats;
  um_const *consts;
  um_loop_rec *loops;
  um_plan_cache *plans;
  const um_backend_hooks *hooks; /* NULL unless the backend needs them */
};

/* A loop as handed to a backend: validated args plus the loop record. */
typedef struct {
  const um_kernel *kernel;
  const char *name;
  um_set *set;
  int nargs;
  const um_arg *args;
  int indirect;          /* any arg through a map            */
  int has_conflicts;     /* any INC/RW/WRITE arg through a map */
  int has_reduction;     /* any global INC/MIN/MAX           */
  int block_size;
  um_strategy strategy;
  um_loop_rec *rec;
} um_loop;

struct um_backend_ops {
  const char *name;
  int (*init)(um_context *ctx);
  void (*finalize)(um_context *ctx);
  int (*par_loop)(um_context *ctx, um_loop *loop);
  int (*sync)(um_context *ctx);
};

/* Optional hooks of backends that keep copies of dats and constants elsewhere
 * (the CUDA backend sets ctx->hooks in its init). */
struct um_backend_hooks {
  int (*dat_to_host)(um_context *ctx, const um_dat *d); /* make d->data current       */
  void (*dat_host_changed)(um_context *ctx, um_dat *d); /* d->data changed on the host */
  int (*const_changed)(um_context *ctx, int index);     /* ctx->consts[index] changed  */
};

extern const um_backend_ops um_backend_seq_ops;
#ifdef UM_HAVE_OPENMP
extern const um_backend_ops um_backend_openmp_ops;
#endif
#ifdef UM_HAVE_CUDA
extern const um_backend_ops um_backend_cuda_ops;
/* 1 if a CUDA device can be used; else 0 and why (the CUDA runtime's words). */
int um__cuda_available(char *why, size_t n);
#endif

/* Helpers used by backends. */
/* Get (building and caching on first use) the plan for a loop. */
int um__get_plan(um_context *ctx, um_loop *loop, const um_plan **plan);
/* Fill the exec descriptors for a loop (host storage). gbl args point at gbl_buf[i]
 * which the caller initialises (see um__gbl_init/um__gbl_combine). */
void um__exec_init(um_exec *x, const um_loop *loop);
void um__gbl_init(um_exec *x, const um_loop *loop);
void um__gbl_combine(const um_loop *loop, um_exec *into, const um_exec *from);
void um__gbl_finish(const um_loop *loop, const um_exec *x);
/* Resolve AUTO layouts for the dats of a loop and convert storage if needed. */
int um__resolve_layouts(um_context *ctx, const um_loop *loop);
int um__dat_convert(um_context *ctx, um_dat *d, um_layout to);

#endif
