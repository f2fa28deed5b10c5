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
  long long gsize;   /* elements over all ranks (== size on one rank; 64-bit: a set declared by blocks may pass
                        INT_MAX): um_set_gsize */
  int core_size; /* elements that reach no halo (== size on one rank)     */
  int core_begin; /* they are [core_begin, core_begin + core_size) (0 unless distributed) */
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
  /* declared by blocks (um_decl_set_block) over more than one rank: this rank holds the declared elements
   * [block_begin, block_begin + size) of the global numbering until um_distribute (dist_blocks.c) */
  int block;
  long long block_begin;
  /* um_decl_set_halo_block: this rank's halo as the app declared it (global numbers, each list ascending), taken by
   * um_distribute's "ranges" instead of finding it; freed by um_distribute */
  int halo_declared, halo_nexec, halo_nnonexec;
  long long *halo_exec, *halo_nonexec;
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
  /* 1: a whole map (um__whole_map): every element's row is the one row data[0 .. arity) = 0, 1, .., arity-1 of
   * the to-set, for whole-dat arguments; held by the context apart from its maps (never reordered, distributed,
   * written or planned through) */
  int whole;
  /* um_map_set_read_only: every loop argument through it READ, so a distribution's exec halo does not follow it */
  int read_only;
  /* um__map_column_one_to_one's cache: columns checked / found one to one, for this data */
  const int *one_data;
  unsigned long long one_known, one_cols;
  /* um__map_distinct_targets' cache: (columns, rows) -> distinct targets, for this data */
  const int *distinct_data;
  struct {
    unsigned long long cols;
    int rows;
    size_t count;
  } distinct[4];
  int ndistinct;
  /* um_decl_map_block over more than one rank: the declared rows' targets in the to-set's global numbering
   * ([from->size * arity]) until um_distribute turns them into local indices in data; NULL otherwise. gtargets32:
   * the same as 32-bit numbers (um_decl_map_block_take_i32; at most one of the two is set) */
  long long *gtargets;
  int *gtargets32;
  /* um_decl_map_halo_block: the rows of its from-set's declared exec halo ([halo_nexec * arity] global numbers) */
  long long *halo_rows;
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
  int contrib;           /* a split loop's contribution temporary (split.c)        */
  int host_zeros;        /* the host copy is the zeros it was allocated with (declared without data, a
                            temporary); cleared by any write to it, kept by moves (layout, migration,
                            renumbering): a backend zeroes its first copy instead of uploading this one */
  /* checkpoints (io/checkpoint.c): what the steps since um_checkpoint_mark did to it */
  int ck_first;          /* this step's first access: 0 none yet, 1 a read (or a partial write), 2 a whole overwrite */
  int ck_written;        /* written since the mark (by a loop or um_dat_update) */
  long ck_read_steps;    /* steps ended whose first access read it */
  long ck_over_steps;    /* steps ended whose first access overwrote it whole */
  int ck_writer;         /* the loop record (ctx->loops) of its first whole overwrite; -1 none */
  int ck_restored;       /* filled from a checkpoint (um_checkpoint_restore): the mark counts it as changed */
};

typedef struct {
  char *name;
  int dim;
  um_type type;
  size_t esize;
  void *data;
} um_const;

/* hostc.c's memo per loop record (the host backends reach it through the loop's id): the module of the
 * last call's shape, and the choice between its scalar and SIMD ranges (each timed on the first calls). */
typedef struct {
  void *last;        /* the module (hostc.c's entry) of the last call's shape */
  uint64_t shape;
  int ran;           /* range of the call in flight: 0 scalar, 1 SIMD, -1 none */
  int trials;        /* calls timed so far */
  int pick;          /* -1 undecided, else the range chosen */
  double best[2];    /* fastest timed call of each range (seconds) */
  long call;         /* the context's call_serial when the range of the call in flight was chosen; 0: none */
  um_compiled_range fn; /* that range (NULL: the kernel's own), for every piece of that call */
  double seconds;    /* the pieces of that call so far */
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
  int one_to_one;       /* the last call's um_loop.one_to_one */
  int block_size;       /* per-loop override, 0 = context's */
  um_strategy strategy; /* per-loop override (resolved by the backend) */
  um_strategy ran_strategy; /* the strategy the last call ran with (um__strategy_run) */
  int strategy_noted;   /* 1: the warning that atomics run coloured for this loop was given */
  int increments;       /* per-loop override: 0 the context's, else um_increments + 1 */
  int last_reverse;     /* 1: the last call sent its increments back to their owners */
  /* automatic loop splitting (split.c) */
  int split;            /* per-loop override: 0 the context's, else um_split + 1 */
  int split_variant;    /* the last call's: UM_SPLIT_OFF, _SCATTER, _GATHER or _FUSED */
  char split_reason[200];
  struct um_split_state *sp; /* the split's temporaries and generated loops; NULL if never split */
  int parent;           /* generated by a split: the index of the loop it belongs to + 1; 0 otherwise */
  int split_contrib;    /* generated: the contribution loop (its device calls count as the parent's calls) */
  uint64_t split_memo;  /* the inputs of the last final split decision (split.c), 0: none */
  int split_measuring;  /* split auto on a device times this call */
  int auto_trial;       /* split auto on a device: calls measured so far */
  double auto_time[2];  /* the measured call of each choice (whole, split) */
  /* per-loop auto-tuning (tune.c) */
  int variant;          /* per-loop: the backend's kernel variant (um_loop.variant; 0 its default) */
  int variant_by_tune;  /* 1: variant is run.tune's, timed on the loop as it runs (split: its contribution loop) */
  int split_by_tune;    /* 1: the split override above is run.tune's choice (split.c names it so) */
  um_tune_info *tune;   /* what tuning tried and kept (its choice, if any, is in the overrides above); NULL if it
                           never looked */
  const um_plan *last_plan;
  int last_plan_begin; /* the first element of the set last_plan covers */
  int nplans;
  double plan_seconds;
  double first_call_seconds; /* wall time of the first call, after its argument checks to its return */
  int bytes_due;        /* useful bytes not counted yet: counted from the first call's arguments when first asked
                           (um__loop_rec_bytes; reports), so the counting is not inside the timed loop; a loop
                           that writes through maps on a device counts them at its first call, as split auto asks
                           at its next calls (a one-off cost is then in the first step, not in a later one) */
  um_set *bytes_set;
  int bytes_nargs;
  um_arg bytes_args[UM_MAX_ARGS];
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
  int rank_fastest, rank_slowest;
  double bytes_ranks, set_size_ranks; /* and its useful bytes per call and elements, summed over the ranks */
} um_loop_rec;

struct um_dist;
struct um_transform_pass;
struct um_tuner;
struct um_dist_ops;

struct um_context {
  um_options opts;
  const um_backend_def *backend;
  void *bstate;          /* the backend's state */
  um_strategy strategy;  /* resolved by the backend */
  um_increments increments; /* distributed runs: how increments reach other ranks' elements */
  um_transport transport;   /* distributed runs on a device: how halo messages travel (dist.c) */
  long transport_min_bytes; /* AUTO: an exchange goes device to device from this many bytes per rank on */
  double partition_budget_s; /* um_distribute: a partitioner's time past which its parts are discarded (0: none) */
  char partition_coords[64]; /* um_distribute: the dat rcb and sfc place the primary set by ("": the default) */
  char errmsg[UM_ERRMSG_LEN];
  int init_failed;       /* um_init returned an error: the context only holds its message (UM_CTX_OK) */
  long call_serial;      /* one more at each call that runs (um_par_loop, a tuning trial): its pieces share it */
  int nsets, nmaps, ndats, nconsts, nloops;
  int capsets, capmaps, capdats, capconsts, caploops;
  um_set **sets;
  um_map **maps;
  um_dat **dats;
  um_const *consts;
  um_loop_rec *loops;
  struct um_reduction **reductions; /* um_decl_reduction's handles (reduction.c) */
  int nreductions, capreductions;
  um_plan_cache *plans;
  int nkernels, capkernels;
  um_kernel **kernels;   /* run-time kernels (um_decl_kernel): copies owned by the context */
  struct um_dist *dist;  /* NULL: one process; else the partition and halos (distributed/) */
  const struct um_dist_ops *dist_ops; /* what core calls on it (core/pass.h), set with dist by um_distribute */
  const struct um_transform_pass *transform; /* the pipeline's transform pass (core/pass.h; NULL: none) */
  const struct um_tuner *tuner; /* run.tune's tuner (core/pass.h; NULL: none) */
  unsigned const_gen;    /* bumped by every um_decl_const (compiled host loops copy constants when it moves) */
  struct um_hostc *hostc; /* compiled host loops (hostc.c); NULL until the first */
  struct {                /* the host compiler's settings (hostc.*), read once at the first loop (hostc.c) */
    int read;             /* 1: the fields below hold them */
    int mode;             /* hostc.compile (um_compile) */
    int simd;             /* hostc.compile_simd: 0 off, 1 auto, 2 on */
    double after;         /* hostc.compile_after */
  } hostc_set;
  um_split split;        /* automatic loop splitting: the default mode (split.c) */
  int reproducible;      /* 1: increments gathered in a fixed order, reductions summed exactly */
  um_tune tune;          /* per-loop auto-tuning (tune.c) */
  int tune_cache_noted;  /* 1: tune.txt was read once in this run (its bad lines noted then, tune_cache.c) */
  int tune_cache_full;   /* tune.txt reached its bound: appends refused (said at the first, tune_cache.c) */
  int ntemps, captemps;
  um_dat **temps;        /* the engine's temporaries (split loops), not among dats[] */
  unsigned long gather_keys; /* split.c: the last um_gather.key given out on this context */
  int nwholes, capwholes;
  um_map **wholes;       /* whole maps (um__whole_map), not among maps[] */
  /* checkpoints (io/checkpoint.c): the accesses of the steps since um_checkpoint_mark are recorded per dat */
  int ck_tracking;       /* 1 after um_checkpoint_mark */
  int ck_quiet;          /* >0: the engine's own fetches and updates (a checkpoint written or read) are not accesses */
  long ck_steps;         /* steps ended since the mark (um_checkpoint_step) */
  struct {                /* set-up by phase (setup_phases.c): a stack of the open phases, the innermost timed */
    int state;            /* 0: never opened, 1: open, 2: closed */
    int depth;            /* phases open (stack[0]: the window's base) */
    unsigned char stack[8];
    double mark;          /* when the innermost phase was last charged */
    double seconds[UM_SETUP_NPHASES];
    long faults_mark; /* the process's minor page faults then */
    double faulted[UM_SETUP_NPHASES]; /* bytes touched for the first time (minor faults x page size) */
  } setup;
};

#endif
