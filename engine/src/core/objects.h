/* The layouts of the engine's objects (core, reorder and plan glue only;
 * backends see them through um/backend.h). */
#ifndef UM_CORE_OBJECTS_H
#define UM_CORE_OBJECTS_H

#include <stddef.h>
#include <stdint.h>
#include "um/backend.h"
#include "../plan/plan.h"
#include "error.h"

struct um_set {
  um_context *ctx;
  char *name;
  int size;          /* owned elements                                        */
  int gsize;         /* elements over all ranks (== size on one rank): um_set_size */
  int core_size;     /* [0, core_size) reach no halo (== size on one rank)    */
  int exec_halo;     /* elements after the owned ones, executed redundantly   */
  int nonexec_halo;  /* then elements only read                               */
  int index;
  int *perm; /* old (as declared) -> current index after reorderings; NULL: never reordered (reorder/) */
  /* Parts of the last partition reordering that renumbered this set, in the
   * current numbering: part p is elements [part_offset[p], part_offset[p+1]),
   * each of 1..part_block_size elements. Loops over the set with that block
   * size use them as plan blocks. NULL: none; cleared when a later
   * reordering renumbers the set. */
  int *part_offset; /* [nparts+1] */
  int nparts;
  int part_block_size;
};

/* Elements with storage: owned plus both halos. */
static inline int um__set_total(const um_set *s) { return s->size + s->exec_halo + s->nonexec_halo; }

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
  um_layout layout;      /* AOS or SOA: storage order of data                     */
  int layout_auto;       /* layout still to be decided at first use               */
  int rows;              /* allocated rows (>= um__set_total(set)): the SoA stride */
  char *data;            /* host storage, rows*dim*esize bytes                    */
  int valid;             /* UM_VALID_HOST | UM_VALID_DEVICE: where current values are */
  int halo_stale;        /* written since its halo was last exchanged             */
  int index;
  void *backend_data;    /* the backend's (e.g. the device copy)                  */
};

typedef struct {
  char *name;
  int dim;
  um_type type;
  size_t esize;
  void *data;
} um_const;

/* hostc.c's memo per loop record: the module of the last call's shape, and the
 * choice between its scalar and SIMD ranges (each timed on the first calls). */
typedef struct {
  void *last;        /* the module (hostc.c's entry) of the last call's shape */
  uint64_t shape;
  int ran;           /* range of the call in flight: 0 scalar, 1 SIMD, -1 none */
  int trials;        /* calls timed so far */
  int pick;          /* -1 undecided, else the range chosen */
  double best[2];    /* fastest timed call of each range (seconds) */
} um_hostc_memo;

typedef struct {
  char *name;
  long calls;
  long compiled_calls;   /* calls that ran a compiled host range (hostc.c) */
  long simd_calls;       /* of those, calls that ran the SIMD range */
  um_hostc_memo hostc;   /* hostc.c's memo of this loop's module and range */
  double seconds;
  double bytes;
  int set_size;
  int indirect;
  int block_size;       /* per-loop override, 0 = context's */
  um_strategy strategy; /* per-loop override (resolved by the backend) */
  int increments;       /* per-loop override: 0 the context's, else um_increments + 1 */
  int last_reverse;     /* 1: the last call sent its increments back to their owners */
  const um_plan *last_plan;
  int nplans;
  double plan_seconds;
  /* the last call's kernel and arguments (gbl pointers not kept valid): lets
   * a backend generate a loop's kernel without running it (um/cuda.h) */
  const um_kernel *kernel;
  um_set *set;
  int nargs;
  um_arg args[UM_MAX_ARGS];
  /* reported by the backend (um_backend_loop_time, um_backend_counter_*) */
  double dev_seconds;
  long dev_calls;
  double counters[UM_MAX_COUNTERS];
  /* distributed runs: halo exchanges before this loop's calls */
  long halo_exchanges;   /* dats exchanged, summed over calls */
  long halo_messages;    /* messages sent */
  double halo_bytes;     /* bytes sent */
  double halo_seconds;   /* packing, waiting and unpacking */
  double halo_hidden;    /* of which spent while core elements ran (overlap) */
  /* um_loop_stats_across_ranks: this loop's seconds on the slowest, fastest and average rank */
  int ranks_timed;
  double rank_min, rank_mean, rank_max;
} um_loop_rec;

struct um_dist;

struct um_context {
  um_options opts;
  const um_backend_def *backend;
  void *bstate;          /* the backend's state */
  um_strategy strategy;  /* resolved by the backend */
  um_increments increments; /* distributed runs: how increments reach other ranks' elements */
  char errmsg[UM_ERRMSG_LEN];
  int nsets, nmaps, ndats, nconsts, nloops;
  int capsets, capmaps, capdats, capconsts, caploops;
  um_set **sets;
  um_map **maps;
  um_dat **dats;
  um_const *consts;
  um_loop_rec *loops;
  um_plan_cache *plans;
  int nkernels, capkernels;
  um_kernel **kernels;   /* run-time kernels (um_decl_kernel): copies owned by the context */
  struct um_dist *dist;  /* NULL: one process; else the partition and halos (dist/) */
  unsigned const_gen;    /* bumped by every um_decl_const (compiled host loops copy constants when it moves) */
  struct um_hostc *hostc; /* compiled host loops (hostc.c); NULL until the first */
};

#endif
