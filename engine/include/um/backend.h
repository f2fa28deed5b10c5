/** @file um/backend.h
 * What a backend author sees (libCEED's backend tier).
 *
 * A backend is one table of functions, um_backend_def, registered by one line
 * in engine/src/core/backend_list.h (built-in backends) or handed to
 * um_init through um_options.extra_backends (a test, an experiment). The core
 * never names a backend: it picks one by name or by priority, asks it which
 * strategy it runs, and hands it loops through this interface.
 *
 * um_par_loop runs these stages, in core (engine/src/core/loop.c), in this order:
 *   check arguments -> resolve layouts -> transform pass -> exchange halos
 *   -> backend->run(elements [begin, end) of the set)
 *   -> reductions combined once -> statistics
 * (run.tune, at a loop's first call, runs the same pieces above them). The
 * transform pass (automatic loop splitting, engine/src/transform/), the tuner
 * (engine/src/tune/) and the distributed operations (engine/src/distributed/)
 * reach core through the tables of engine/src/core/pass.h, as a backend does
 * through this one: core names none of them. The pass hands a backend the
 * loops it makes like any other loop, so a backend runs what it is given: a
 * range, filling reduction partials; it never touches the user's global
 * values, the halo flags or the loop statistics itself. A host backend runs
 * the loop's range compiled for its arguments where it has one (the seq and
 * openmp backends ask engine/src/backends/host/hostc.c in their run).
 */
#ifndef UM_BACKEND_H
#define UM_BACKEND_H

#include <stdarg.h>
#include <stddef.h>
#include "um/exec.h"
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One loop as the pipeline hands it to a backend. */
typedef struct um_loop {
  const um_kernel *kernel; /**< the kernel                                    */
  const char *name;      /**< the loop's name (statistics, plans, options)   */
  um_set *set;           /**< the iteration set                              */
  int nargs;             /**< arguments                                      */
  const um_arg *args;    /**< the arguments, checked, layouts resolved       */
  /** @{ the elements to run: [begin, end) of the set */
  int begin, end;
  /** @} */
  /** 1: [begin, end) is the first piece of this call of the loop (on several ranks a call runs in pieces: the
   * core elements while the halos travel, then the others) */
  int first_piece;
  int indirect;          /**< any arg through a map                          */
  int has_conflicts;     /**< any INC/RW/WRITE arg through a map             */
  int has_reduction;     /**< any global INC/MIN/MAX                         */
  /** run.split fused (a backend with fused_split only): the loop's increments
   * through maps as a split inside each launch (contributions, a barrier, the
   * increments); the backend runs the loop whole otherwise as usual */
  int fused;
  int has_vec;           /**< any vector arg (idx UM_ALL: every target of a map row) */
  /** any whole-dat INC (um_arg_whole): increments to rows no map names; a vector arg through the set's whole map
   * (um_map_whole: one shared row of every index), which no plan can colour: atomics, or one thread */
  int has_whole_inc;
  /** has_conflicts, but every arg that writes through a map does so through one map column whose targets are
   * all distinct (and no other arg names that dat another way): no two elements write one row, so the
   * elements may run at once, without plans, colours or atomics (e.g. LULESH's region loops) */
  int one_to_one;
  /** which of the backend's variants of the loop's kernel to run
   * (um_backend_def.variants; 0: its default), e.g. chosen by run.tune */
  int variant;
  int block_size;        /**< elements per plan block                        */
  um_strategy strategy;  /**< resolved by the backend's strategy rule        */
  int id;                /**< the loop's record, for um_backend_loop_* calls */
  /** host backends (host_code): the range compiled for this loop's arguments,
   * or NULL; set by the backend's run itself (seq and openmp: from the host
   * compiler, engine/src/backends/host/hostc.c; core leaves it NULL);
   * um_exec_init hands it on and um_exec_range runs it */
  um_compiled_range compiled;
  /** lazy reductions (um_arg_reduction): set by core when every reduction of this call is one and the call
   * runs in one piece, so a backend with lazy_reductions may leave their results to arrive later in
   * um_reduction_buffer(arg.red) instead of waiting */
  int lazy_ok;
  int deferred; /**< set by such a backend when it did (core then leaves the results to the handles) */
  /** a split loop's contribution loop on a backend with contrib_drop: bit i set, arg i (a contribution temporary
   * declared um_arg_minus) is computed but not stored (its gather reads the partner's, negated) */
  unsigned long long drop;
  /** Reductions: for each global INC/MIN/MAX arg i, red[i] holds dim values of
   * its type, set by core before run (INC: zero, MIN/MAX: the user's value).
   * The backend combines its elements' contributions into it (um_reduce_into);
   * core then combines across ranks and into the user's value, once. */
  double red[UM_MAX_ARGS][UM_MAX_SCRATCH_DIM];
} um_loop;

/** Does the loop write through maps, and only by vector increments (um_arg_vec INC)? (The loops that a
 * backend with atomics_vec_only runs by atomics under strategy atomics.) */
static inline int um_loop_vec_incs_only(const um_loop *loop) {
  int any = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const um_arg *a = &loop->args[i];
    if (a->kind != UM_ARG_DAT || !a->map || a->acc == UM_READ) continue;
    if (a->idx != UM_ALL || a->acc != UM_INC) return 0;
    any = 1;
  }
  return any;
}

/** The increments of a split loop gathered through an inverse map (automatic
 * loop splitting, variant GATHER): for each target row t in [0, ntargets), in
 * the order of its entries j in [offset[t], offset[t+1]),
 *   dst[t] += src[entry[j] % nsrc][entry[j] / nsrc]     (dim values, by type; negated where negate says)
 * where each src is a temporary of the loop's iteration set, AoS, with dst's
 * dim and type, and dst may be AoS or SoA. No two targets share a row, so the
 * targets may run in parallel; the order inside one target is fixed. The
 * arrays stay valid (and unchanged) as long as `key` does not change. */
typedef struct um_gather {
  um_dat *dst;        /**< the incremented dat                         */
  int nsrc;           /**< the temporaries (one per incremented argument) */
  um_dat *const *src; /**< AoS or SoA (um_dat_storage_layout), all alike */
  int ntargets;       /**< target rows to run                          */
  const int *rows;    /**< [ntargets]: the rows some element increments; NULL: every row */
  const int *offset;  /**< [ntargets + 1] */
  const int *entry;   /**< [offset[ntargets]] */
  const int *elem;    /**< [offset[ntargets]]: entry[j] / nsrc, decoded once */
  const unsigned char *slot; /**< [offset[ntargets]]: entry[j] % nsrc; NULL when nsrc is 1 */
  /** bit k: source k's values are added negated (um_arg_minus: src[k] is the partner's temporary); 0: none */
  unsigned long long negate;
  unsigned long key;  /**< changes whenever offset or entry change */
  int id;             /**< the record to time it under (um_backend_loop_time) */
} um_gather;

/** Exact sums (reproducible mode): a fixed-point accumulator of UM_XSUM_WORDS
 * int64 words: the value is the sum over i < UM_XSUM_DIGITS of
 * words[i] * 2^(32 i - UM_XSUM_BIAS) (each word a 32-bit digit plus carries),
 * then the counts of NaN, +inf and -inf values. A finite double
 * m * 2^(x - 1075) (its IEEE bits: x the biased exponent, at least 1, m the
 * significand with the hidden bit) adds m << (x - 1075 + UM_XSUM_BIAS), split
 * into 32-bit digits, to the words (subtracts, if negative); any order of
 * additions gives the same words after carrying. */
#define UM_XSUM_DIGITS 72
#define UM_XSUM_BIAS 1152                  /**< the exponent of the lowest digit is -UM_XSUM_BIAS */
#define UM_XSUM_WORDS (UM_XSUM_DIGITS + 3) /**< the digits, then the NaN, +inf and -inf counts  */

/** A split loop's contribution temporary (automatic loop splitting): the loop
 * that writes it passes it as a direct INC argument, and every element of the
 * range the backend runs adds into its own row, which starts at the additive
 * identity (-0.0 for floating point, so that a -0.0 target the loop adds
 * nothing or only -0.0 to stays -0.0, as in the unsplit loop; 0 for int). A
 * backend with contrib_store set keeps such a row in registers from -0.0 and
 * stores it (no read; the core then does not set it first). */
int um_dat_contribution(const um_dat *d);

/** 1 if the host copy of d still holds the zeros it was allocated with: a
 * dat declared without data, or a split loop's temporary, that nothing has
 * written since (its rows may have been moved: another layout, order or
 * rank). A device backend may zero its first copy of such a dat instead of
 * copying the host's (the upload of every row, GBs at scale). */
int um_dat_host_zeros(const um_dat *d);

/** A backend's own setting "<backend>.<key>" is declared with um_option (um/option_decl.h), like every
 * option: the full key ("cuda.profile"), its type (UM_OPT_CHOICE with its choices, or UM_OPT_STRING), the
 * default, the help, component = the backend's name and to_options = um_option_to_setting; a choice's
 * values also as text "a|b|c" in range_hint (um_backend_option_at). UM_BACKEND_OPTION and
 * UM_BACKEND_CHOICE write one. */
#define UM_BACKEND_OPTION(backend, k, d, h)                                                                        \
  {.key = backend "." k, .type = UM_OPT_STRING, .def = d, .help = h, .component = backend,                         \
   .to_options = um_option_to_setting}
/** A backend's setting with choices: UM_BACKEND_CHOICE("cuda", "staging", "auto", "auto|inc", help, "auto", "inc"). */
#define UM_BACKEND_CHOICE(backend, k, d, text, h, ...)                                                             \
  {.key = backend "." k, .type = UM_OPT_CHOICE, .def = d, .choices = (const char *const[]){__VA_ARGS__, NULL},     \
   .range_hint = text, .help = h, .component = backend, .to_options = um_option_to_setting}

/** What a backend can do beyond running loops whole, as flags (0: it cannot; the core then does without). */
typedef struct {
  /** 1: run() takes any range [begin, end) (its plans then start at begin, see um_loop_plan), so a
   * distributed loop runs its core elements while halos travel; 0: ranges start at 0 (no overlap) */
  int ranges;
  /** 1: run() runs kernels on the host through um_exec_range, so the loops it runs may be compiled for
   * their arguments (um_loop.compiled) */
  int host_code;
  /** 1: run() compiles every kernel from its source text (a JIT such as NVRTC) and never calls its range
   * function, so kernels declared from source alone (um_decl_kernel without a range) run on it, as they do
   * on host_code backends (compiled for their arguments); other backends refuse them */
  int source_kernels;
  /** 1: run() stores contribution temporaries' rows from -0.0 (um_dat_contribution); a host_code backend
   * those whose row fits um_exec's staging (UM_EXEC_STAGE_BYTES), as um_exec_init does */
  int contrib_store;
  /** 1: run() computes but does not store the contribution args that um_loop.drop names (with contrib_store:
   * for a host_code backend those it stages), and gather() honours um_gather.negate: um_arg_minus halves a split
   * loop's contributions there */
  int contrib_drop;
  /** 1: strategy atomics changes only loops whose writes through maps are all vector increments
   * (um_loop_vec_incs_only); others run as under coloured, so run.tune does not try it on them */
  int atomics_vec_only;
  /** 1: run() may leave a loop's lazy reductions to arrive later (um_loop.lazy_ok / deferred) in buffers
   * from data.host_alloc, which um_decl_reduction then allocates */
  int lazy_reductions;
  /** 1: run() honours um_loop.fused (run.split fused, variant B) */
  int fused_split;
  /** What the block size (um_loop.block_size) changes, for per-loop tuning (run.tune): 0 nothing (the
   * loop runs in element order), 1 the plans of loops that write through maps (their blocks and colours),
   * 2 every loop (e.g. a GPU's threads per block too). */
  int block_sized;
} um_backend_caps;

/** Running loops: what every backend fills (init, finalize and sync may be NULL). */
typedef struct {
  int (*init)(um_context *ctx, void **state);     /**< start: *state is passed to every other call (may be NULL) */
  void (*finalize)(um_context *ctx, void *state); /**< free the state (may be NULL) */
  /** The strategy rule, the one place it lives: what `want` (AUTO included) runs as on this backend, or an
   * error saying which strategies it has. */
  int (*strategy)(um_context *ctx, void *state, um_strategy want, um_strategy *out);
  int (*run)(um_context *ctx, void *state, um_loop *loop); /**< run elements [loop->begin, loop->end) of the loop */
  int (*sync)(um_context *ctx, void *state);               /**< wait for the work queued (may be NULL) */
} um_backend_exec;

/** Moving data, for backends that keep copies of dats elsewhere than the host (a device). All NULL: the
 * data lives on the host only (seq, openmp). */
typedef struct {
  /** Make the host copy current (core then marks it valid). */
  int (*dat_to_host)(um_context *ctx, void *state, um_dat *d);
  /** A constant changed (um_decl_const): publish the new value. */
  int (*const_changed)(um_context *ctx, void *state, const char *name, int dim, um_type type, const void *data);
  /** @{ Halo rows on the device, for distributed runs (NULL: the host copies are exchanged then). Used
   * for a dat whose device copy is valid; each call only queues its work, and exec.sync waits for it.
   *   rows_out   rows[0..n) of d, packed as n rows of dim values (AoS) into `out`, a buffer from
   *              host_alloc or from the transport's alloc;
   *   rows_in    n packed rows from `in` copied (add 0) or added (add 1) into rows[0..n) of d, which are
   *              distinct;
   *   rows_zero  rows [begin, end) of d set to zero;
   *   host_alloc / host_free  buffers the device reads and writes directly (pinned, mapped); host_free
   *              needs no state (it may run after finalize). The row lists stay valid as long as the context.
   * The core then marks the device copy of d the only current one. */
  int (*rows_out)(um_context *ctx, void *state, um_dat *d, const int *rows, int n, void *out);
  int (*rows_in)(um_context *ctx, void *state, um_dat *d, const int *rows, int n, const void *in, int add);
  int (*rows_zero)(um_context *ctx, void *state, um_dat *d, int begin, int end);
  void *(*host_alloc)(um_context *ctx, void *state, size_t bytes);
  void (*host_free)(void *p);
  /** @} */
  /** @{ Tuning trials (run.tune): a copy of d's device copy, which is current (NULL: only host copies are
   * kept then).
   *   dat_keep       *copy = a new copy of d's device rows (queued; exec.sync waits for it);
   *   dat_restore    d's device rows = *copy (queued);
   *   dat_drop       free *copy (after a sync), set it to NULL;
   *   dat_to_device  make d's device copy current (from the host copy if that is the only current one). */
  int (*dat_keep)(um_context *ctx, void *state, um_dat *d, void **copy);
  int (*dat_restore)(um_context *ctx, void *state, um_dat *d, void *copy);
  void (*dat_drop)(um_context *ctx, void *state, void **copy);
  int (*dat_to_device)(um_context *ctx, void *state, um_dat *d);
  /** @} */
  /** Copying ahead (um_prefetch): make the device copies of dats[0..n) and of every map declared so far
   * current now, before the loops that will use them. When they would not fit comfortably in the device's
   * free memory it copies nothing (the loops then copy what they use, as without it). *bytes: what it
   * copied or zeroed. */
  int (*prefetch)(um_context *ctx, void *state, um_dat *const *dats, int n, double *bytes);
} um_backend_data;

/** Optional extras, each NULL when the backend has none (the core's default is said beside it). */
typedef struct {
  /** A one-line description of the device (um_context_device). */
  const char *(*device)(const um_context *ctx, void *state);
  /** The device's facts for um_context_device_info (NULL: host backends). */
  int (*device_info)(um_context *ctx, void *state, um_device_info *out);
  /** @{ Lazy reductions (NULL: um_reduction_get waits with exec.sync): reduction_mark marks the point in
   * the backend's queue where the deferred result of the call just run is complete, in *mark (NULL the
   * first time: the backend makes it, then reuses it) and returns 1, or 0 where it cannot mark (the handle
   * then waits with sync); reduction_wait waits for that point only, so the work queued after it keeps
   * running while the app reads the value; reduction_mark_free frees a mark (before finalize). */
  int (*reduction_mark)(um_context *ctx, void *state, void **mark);
  int (*reduction_wait)(um_context *ctx, void *state, void *mark);
  void (*reduction_mark_free)(um_context *ctx, void *state, void *mark);
  /** @} */
  /** Run a gather (um_gather above). NULL: split loops apply their increments with generated loops
   * (SCATTER) instead. */
  int (*gather)(um_context *ctx, void *state, const um_gather *g);
  /** Exact sums of rows [0, n) of d (double or float, AoS): for each component c,
   * words[c * UM_XSUM_WORDS ..] += its accumulator (above). NULL: the core sums the host copy. */
  int (*exact_sum)(um_context *ctx, void *state, um_dat *d, int n, long long *words);
  /** Backends that hold launched work back (the CUDA backend's graphs do): start everything queued so
   * far, without waiting for it. The core calls it before the host blocks in MPI while core elements
   * should run (halo overlap). NULL: nothing is held back. */
  int (*flush)(um_context *ctx, void *state);
  /** Compiling ahead: get ready to run each of the n loops (settings run.tune is about to try), e.g.
   * compile their kernels in parallel; nothing runs. A loop it cannot prepare is left for its run, which
   * reports what is wrong; so it returns an error only for its own failures (none is fatal to the run).
   * NULL: each loop is built at its first run. */
  int (*prepare)(um_context *ctx, void *state, um_loop *const *loops, int n);
} um_backend_extras;

/** A backend: one table, registered by one line in engine/src/core/backend_list.h or passed in
 * um_options.extra_backends. By concern: who it is (name .. variants), what it can do (caps), how it runs
 * loops (exec: required), how it moves data (data: backends with a device) and its optional extras. */
typedef struct um_backend_def {
  const char *name;         /**< what options and configs call it              */
  int priority;             /**< auto picks the available one of highest       */
  const char *description;  /**< one line for umrun --help and --list-backends  */
  /** NULL: always available; else 1, or 0 with why (e.g. no device) */
  int (*available)(char *why, size_t n);
  const um_option *options;         /**< its settings ("<name>.<key>", um_option), ended by {NULL} */
  const char *const *counters;      /**< its per-loop counters, ended by NULL   */
  /** The backend's own variants of a loop's kernel (um_loop.variant), by name, ended by NULL; the first is
   * the default. run.tune tries each with the loop's best setting. NULL: one. */
  const char *const *variants;
  um_backend_caps caps;     /**< what it can do                                */
  um_backend_exec exec;     /**< running loops (required)                      */
  um_backend_data data;     /**< moving data (all NULL: host memory only)      */
  um_backend_extras extras; /**< optional extras                               */
} um_backend_def;

/* ---- what a backend may ask of the core ------------------------------------ */

/** A setting "<this backend>.<key>": the value given in the options, else the
 * environment variable UM_<BACKEND>_<KEY> (e.g. UM_CUDA_CACHE), else the
 * declared default. */
const char *um_backend_option_value(const um_context *ctx, const char *key);
/** The state the backend's init returned. */
void *um_context_backend_state(const um_context *ctx);
/** The context's options (block size, threads, verbosity, ...); also in um/um.h. */
const um_options *um_context_options(const um_context *ctx);
/** A message for the person running (through the context's log callback).
 * Errors are not logged: um_error_set (um/um.h) stores the message in the
 * context and returns the code. */
void um_backend_log(um_context *ctx, um_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** @{ Errors, as the core records them: the message (printf-style) is stored in the context with the
 * code's name and file:line, and the code is returned; UM_BACKEND_CHECK returns a failing call's code
 * with " <- file:line" added to the message, so an error carries the trail it came back by
 * (um_error_message). UM_ERRMSG_LEN: the longest message kept. */
#define UM_ERRMSG_LEN 4096
int um_backend_error(um_context *ctx, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
int um_backend_verror(um_context *ctx, int code, const char *file, int line, const char *fmt, va_list ap);
int um_backend_trace(um_context *ctx, int code, const char *file, int line);
#define UM_BACKEND_ERROR(ctx, code, ...) um_backend_error((ctx), (code), __FILE__, __LINE__, __VA_ARGS__)
#define UM_BACKEND_CHECK(ctx, call)                                                          \
  do {                                                                                       \
    int um__rc = (call);                                                                     \
    if (um__rc != UM_SUCCESS) return um_backend_trace((ctx), um__rc, __FILE__, __LINE__);    \
  } while (0)
/** @} */

/** Where a dat's valid copy lives (PETSc's offload mask). The host copy is
 * valid after declaration and every host-side change; a device backend sets
 * DEVICE after uploading and DEVICE alone after a loop writes it. */
enum {
  UM_VALID_HOST = 1,  /**< the host copy is current   */
  UM_VALID_DEVICE = 2 /**< the device copy is current */
};
/** Where the dat's valid copies are: UM_VALID_HOST, UM_VALID_DEVICE or both (a mask). */
int um_dat_valid(const um_dat *d);
/** Set the mask of the dat's valid copies (UM_VALID_HOST | UM_VALID_DEVICE). */
void um_dat_set_valid(um_dat *d, int mask);
/** Host storage: rows x dim values (AoS) or dim columns of rows values (SoA). */
void *um_dat_host_data(const um_dat *d);
/** Bytes of the host storage: rows * dim * sizeof(type). */
size_t um_dat_bytes(const um_dat *d); /* rows * dim * sizeof(type) */
/** How the host storage is laid out now: UM_SOA only for SoA dats of dim > 1. */
um_layout um_dat_storage_layout(const um_dat *d);
/** A backend's per-dat state (e.g. the device copy); NULL until set. */
void *um_dat_backend_data(const um_dat *d);
/** Attach the backend's per-dat state to d (the backend frees it itself). */
void um_dat_set_backend_data(um_dat *d, void *p);
/** The map's entries on the host (from->size * arity, 0-based); also in um/um.h. */
const int *um_map_data(const um_map *m);
/** 1 for the map a whole-dat argument (um_arg_whole) runs through: a vector argument whose row, data[0 .. arity)
 * = 0, 1, .., arity - 1 (every row of the to-set), is the same for every element (not one row per element). */
int um_map_is_whole(const um_map *m);

/** Statistics the backend measured: device time of one call of loop `id`
 * (may come after run returned, e.g. when events are read at a sync). */
void um_backend_loop_time(um_context *ctx, int id, double seconds);
/** Add value to counter `counter` (an index into def->counters) of loop `id` (summed over calls). */
void um_backend_counter_add(um_context *ctx, int id, int counter, double value);
/** A device-to-device halo exchange of loop `id` (a device transport,
 * engine/src/distributed/transport.h), measured on the device: the seconds
 * the loop's work waited for it (exposed) and the seconds it moved while core
 * elements ran (hidden). */
void um_backend_halo_time(um_context *ctx, int id, double exposed, double hidden);
/** Set counter `counter` (an index into def->counters) of loop `id` (the last value stays). */
void um_backend_counter_set(um_context *ctx, int id, int counter, double value);

/* ---- helpers for backends that run kernels on the host ----------------------- */

/** Fill exec descriptors for the loop (host storage, strides by allocated rows).
 * Global args point at x->scratch[i]: um_exec_gbl_init (re)starts them (READ,
 * MIN, MAX from the user's value, INC from zero) before a run of elements. */
void um_exec_init(um_exec *x, const um_loop *loop);
/** (Re)start the global arguments' per-thread values in x->scratch: READ, MIN
 * and MAX from the user's value, INC from zero; before each run of elements. */
void um_exec_gbl_init(um_exec *x, const um_loop *loop);
/** Combine x's reduction scratch into loop->red (in call order: deterministic). */
void um_exec_reduce(um_loop *loop, const um_exec *x);
/** The number of the engine's temporaries (split loops): not among um_dat_count's
 * dats, but a backend that keeps copies of dats must free theirs too. */
int um_context_temp_count(const um_context *ctx);
/** The engine's temporary i (0 <= i < um_context_temp_count), or NULL. */
um_dat *um_context_temp_at(const um_context *ctx, int i);
/** Host gathers: targets [begin, end) of g (the seq and openmp backends). */
void um_exec_gather(const um_gather *g, int begin, int end);
/** Where a deferred call of a lazy reduction writes its result (dim values of its type): memory from the
 * backend's host_alloc (pinned, mapped: the same address on the device), read by core after a sync. */
void *um_reduction_buffer(const struct um_reduction *r);
/** Combine `values` (dim values of the arg's type) into loop->red[i]. */
void um_reduce_into(um_loop *loop, int i, const void *values);
struct um_plan;
/** The loop's plan (built and cached by the one plan builder on first use), over
 * elements [loop->begin, loop->end), numbered from 0: the plan's element i is
 * element loop->begin + i of the set (its blocks, block offsets and local
 * indices count from begin). */
int um_loop_plan(um_context *ctx, um_loop *loop, const struct um_plan **plan);
/** The loop of that name as it last ran on this context (kernel, set, args,
 * block size, strategy override: AUTO if none), for building its kernel
 * without running it; gbl pointers are not valid. */
int um_loop_recorded(um_context *ctx, const char *name, um_loop *loop);
/** The number of constants declared on the context (um_decl_const), for
 * backends that must publish them to a new module. */
int um_const_count(const um_context *ctx);
/** Constant i: its name, dim, type and current value (any out pointer may be NULL). */
int um_const_at(const um_context *ctx, int i, const char **name, int *dim, um_type *type, const void **data);

#ifdef __cplusplus
}
#endif
#endif
