/** @file um/um.h
 * um: parallel loops over unstructured meshes (public C API).
 *
 * Vocabulary follows OP2: a *set* is a collection of mesh entities, a *map*
 * connects every element of one set to `arity` elements of another, a *dat*
 * holds `dim` values of one type per element of a set, and a *par_loop*
 * applies a user *kernel* to every element of a set, passing one pointer per
 * *arg*. An arg names a dat accessed directly (UM_ID), a dat reached through
 * a map at index `idx`, or a global value, together with an *access mode*.
 *
 * Every function that can fail returns an int error code (UM_SUCCESS == 0).
 * The message of the last error, with the file:line trail through which it
 * propagated, is kept in the context: um_error_message(ctx).
 */
#ifndef UM_UM_H
#define UM_UM_H

#include <stddef.h>
#include <stdint.h>
#include "um/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes --------------------------------------------------------- */
/** The error codes every function that can fail returns (0 is success). */
typedef enum {
  UM_SUCCESS = 0,          /**< no error                                    */
  UM_ERR_ARG = 1,          /**< bad argument to an API call                  */
  UM_ERR_ALLOC = 2,        /**< out of memory                                */
  UM_ERR_IO = 3,           /**< file missing, unreadable or malformed        */
  UM_ERR_CONFIG = 4,       /**< bad configuration value or file              */
  UM_ERR_UNSUPPORTED = 5,  /**< feature or backend not built / not available */
  UM_ERR_BACKEND = 6,      /**< failure inside a backend (CUDA, OpenMP, ...) */
  UM_ERR_VALIDATION = 7,   /**< a result failed validation                   */
  UM_ERR_PLAN = 8,         /**< plan construction or plan check failed       */
  UM_ERR_INTERNAL = 9,     /**< bug: please report                           */
  UM_ERR_DIVERGED = 10     /**< a global reduction became NaN or infinite    */
} um_error;

/** The name of an error code ("UM_ERR_ARG", ...); "UM_ERR_UNKNOWN" for codes outside um_error. */
const char *um_error_name(int code);
/** Seconds on a monotonic clock (for intervals): the one timer of the engine, apps and runner. */
double um_wtime(void);
/** For functions that report through a caller's buffer: format the message into
 * err (if err != NULL and errlen > 0) and return code.
 * @param err    the caller's buffer, may be NULL
 * @param errlen its size in bytes (0: nothing written)
 * @param code   returned as it is
 * @param fmt    printf format of the message
 * @return code */
int um_format_error(char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- enums ----------------------------------------------------------------*/
/** Access mode of a loop argument (OP2's). */
typedef enum {
  UM_READ = 0, /**< read only                                                      */
  UM_WRITE,    /**< written only: every element's value is overwritten             */
  UM_RW,       /**< read and written                                               */
  UM_INC,      /**< incremented (through a map: contributions summed; a global: a sum) */
  UM_MIN,      /**< global reduction to the minimum                                */
  UM_MAX       /**< global reduction to the maximum                                */
} um_access;
/** Type of the values of a dat, a constant or a global argument. */
typedef enum {
  UM_DOUBLE = 0, /**< double */
  UM_FLOAT,      /**< float  */
  UM_INT         /**< int    */
} um_type;
/** Storage layout of a dat. */
typedef enum {
  UM_AOS = 0,     /**< array of structures: the dim values of an element together  */
  UM_SOA,         /**< structure of arrays: one column of rows values per component */
  UM_LAYOUT_AUTO  /**< decided at the first loop: SoA if only ever accessed directly, AoS otherwise */
} um_layout;
/** How a backend runs loops that increment through maps (the conflicts between elements). */
typedef enum {
  UM_STRATEGY_AUTO = 0,     /**< the backend's default                              */
  UM_STRATEGY_COLOURED,     /**< blocks of one block colour in parallel (CPU)       */
  UM_STRATEGY_ATOMICS,      /**< increments through maps with atomics (GPU)         */
  UM_STRATEGY_GLOBAL,       /**< global element colouring (GPU)                     */
  UM_STRATEGY_HIERARCHICAL  /**< block + thread colouring, shared-memory staging    */
} um_strategy;

/** The name of an access mode ("READ", "INC", ...; "?" if out of range). */
const char *um_access_name(um_access a);
/** The name of a type ("double", "float", "int"). */
const char *um_type_name(um_type t);
/** Bytes per value of a type (sizeof(double), ...). */
size_t um_type_size(um_type t);
/** The name of a layout ("aos", "soa", "auto"). */
const char *um_layout_name(um_layout l);
/** The name of a strategy ("auto", "coloured", "atomics", "global", "hierarchical"). */
const char *um_strategy_name(um_strategy s);
/** Parse a type name ("double", "float", "int") into *out; UM_ERR_ARG if unknown. */
int um_type_parse(const char *s, um_type *out);
/** Parse a layout name ("aos", "soa", "auto") into *out; UM_ERR_ARG if unknown. */
int um_layout_parse(const char *s, um_layout *out);
/** Parse a strategy name (as um_strategy_name writes it) into *out; UM_ERR_ARG if unknown. */
int um_strategy_parse(const char *s, um_strategy *out);

/* ---- objects ------------------------------------------------------------- */
/** A context: everything of a run hangs off it (sets, maps, dats, plans, the
 * backend, statistics, the last error). Created by um_init, freed by um_finalize. */
typedef struct um_context um_context;
/** A set: a collection of mesh entities (cells, edges, nodes, ...). Declared with um_decl_set. */
typedef struct um_set um_set;
/** A map: every element of one set connected to `arity` elements of another. Declared with um_decl_map. */
typedef struct um_map um_map;
/** A dat: `dim` values of one type per element of a set. Declared with um_decl_dat. */
typedef struct um_dat um_dat;

/** Messages the engine has for a person (warnings, progress of slow steps,
 * verbose details). The library never prints: it hands them to this callback
 * (umrun prints them on stderr); without one they are dropped. */
typedef enum {
  UM_LOG_WARNING = 0, /**< something the person running should know about          */
  UM_LOG_INFO = 1,    /**< progress and choices (um_options.verbose >= 1)           */
  UM_LOG_DEBUG = 2    /**< details (um_options.verbose >= 2)                        */
} um_log_level;
/** The log callback (um_options.log): `user` is um_options.log_user; `message` has no final newline. */
typedef void (*um_log_fn)(void *user, um_log_level level, const char *message);

struct um_backend_def;
/** The most backend settings ("<backend>.<key>" = value) one um_options holds. */
#define UM_MAX_BACKEND_OPTIONS 16

/** Compiled host loops (um_options.compile): off; compiled in the background
 * once a loop has run compile_after seconds, the kernel's own range running
 * meanwhile; or compiled before a loop's first call (a failed compile is then
 * an error, not a warning). */
typedef enum {
  UM_COMPILE_OFF = 0, /**< never compile                                  */
  UM_COMPILE_AUTO,    /**< in the background, once a loop is busy enough  */
  UM_COMPILE_WAIT     /**< before a loop's first call                     */
} um_compile;
/** The compiler flags of compiled host loops unless um_options.cflags says
 * otherwise: this machine's instruction set (the cache key names the CPU), no
 * contraction into FMA and no errno from sqrt, so the results stay those of
 * the generic range, bit for bit. */
#define UM_HOSTC_DEFAULT_CFLAGS "-O3 -march=native -ffp-contract=off -fno-math-errno -fopenmp-simd"
/** Elements per group of the SIMD range of a compiled host loop (um_options.compile_simd). */
#define UM_HOSTC_LANES 8
/** The name of a um_compile value ("off", "auto", "wait"). */
const char *um_compile_name(um_compile c);
/** Parse "off", "auto" or "wait" into *out; UM_ERR_ARG if unknown. */
int um_compile_parse(const char *s, um_compile *out);

/** Execution options, fixed at um_init (layout and block size may also be set
 * per dat / per loop later). Start from um_options_default. */
typedef struct {
  const char *backend;    /**< a registered backend's name ("seq", "openmp",
                             "cuda", ...) or NULL / "auto": the available
                             backend of highest priority                      */
  um_strategy strategy;   /**< UM_STRATEGY_AUTO: the backend's default           */
  um_layout layout;       /**< default layout of dats declared from now on       */
  int block_size;         /**< plan mini-partition size (elements), > 0          */
  int nthreads;           /**< OpenMP threads, 0 = runtime default; at most um_threads_max() */
  int parallel_threshold; /**< OpenMP: loops over fewer elements run on one thread
                             (same plan and colour order); 0 = always parallel */
  int check_plans;        /**< 1: verify every plan after building it            */
  int verbose;            /**< 0 quiet, 1 info, 2 debug (messages to log)        */
  int row_align;          /**< dats allocate their rows rounded up to a multiple
                             of this (>= 1; SoA columns start aligned)         */
  /** Host backends (seq, openmp): each loop's range compiled for its arguments
   * (dims, maps, layouts, globals known to the compiler) with a C compiler at
   * run time and kept in a disk cache; the same results, bit for bit, as the
   * range UM_KERNEL_DEFINE built (engine/src/core/hostc.c).
   * UM_COMPILE_OFF (default), _AUTO or _WAIT. */
  um_compile compile;
  double compile_after;   /**< AUTO: seconds a loop runs before it is compiled   */
  /** A loop whose indirect and global arguments are all read also gets a SIMD
   * range: elements in groups of UM_HOSTC_LANES, their indirect data gathered
   * into local rows, the kernel run on the group under `omp simd` (the same
   * operations per element, so the same bits). -1: never; 0 (default): its
   * first calls alternate the two ranges, the faster one stays; 1: always. */
  int compile_simd;
  char cc[256];           /**< compiler command; "": the one um was built with   */
  char cflags[256];       /**< "": UM_HOSTC_DEFAULT_CFLAGS                       */
  char cache[512];        /**< "": $XDG_CACHE_HOME/um or ~/.cache/um; "off": none */
  um_log_fn log;          /**< where messages go (NULL: dropped)                 */
  void *log_user;         /**< passed to log as its first argument               */
  /** Backends' own settings, "<backend>.<key>" = value (e.g. "cuda.profile" =
   * "h100"): set with um_options_set_backend; each backend declares its keys
   * (um_backend_option_count / _at), and um_init refuses unknown ones.
   * nbackend_options: the entries of backend_options in use. */
  int nbackend_options;
  /** The backend settings themselves (nbackend_options of them). */
  struct {
    char key[64];    /**< "<backend>.<key>", e.g. "cuda.profile" */
    char value[256]; /**< its value as text                       */
  } backend_options[UM_MAX_BACKEND_OPTIONS];
  /** Backends defined by the caller, offered besides the built-in ones (a test,
   * an experimental backend): see um/backend.h. The tables must outlive the
   * contexts that use them; the list itself is read only by um_init. */
  const struct um_backend_def *const *extra_backends;
  int nextra_backends;    /**< entries of extra_backends                         */
} um_options;

/** Defaults: backend auto, strategy AUTO, layout AOS, block_size 256, checks off,
 * parallel_threshold 4096, row_align 1, no log, no backend options. */
void um_options_default(um_options *opts);
/** The most threads a context may run: UM_THREADS_PER_CORE x the cores online
 * (more only adds start-up cost and memory; 100,000 crashed libgomp). */
#define UM_THREADS_PER_CORE 8
/** UM_THREADS_PER_CORE x the cores online: the largest um_options.nthreads um_init accepts. */
int um_threads_max(void);

/** Set (or replace) "<backend>.<key>" = value; UM_ERR_ARG if the key is malformed,
 * the value too long or the table full (checked against the backend at um_init). */
int um_options_set_backend(um_options *opts, const char *key, const char *value);

/** Create a context: check the options, pick and start the backend.
 * @param ctx  *ctx receives the new context. On a failure after the context was
 *             allocated it is still set, so the caller can read
 *             um_error_message(*ctx); free it with um_finalize either way.
 * @param opts the options (NULL: um_options_default's)
 * @return UM_SUCCESS or an error code */
int um_init(um_context **ctx, const um_options *opts);
/** Free everything of the context (sets, maps, dats, plans, the backend's state); *ctx set to NULL. */
int um_finalize(um_context **ctx); /* frees everything; *ctx set to NULL */

/** The version of the um library linked, "MAJOR.MINOR.PATCH"; the headers' own
 * is UM_VERSION_STRING (um/version.h). A program can compare the two. */
const char *um_version(void);

/** The message of the last error (empty string if none). */
const char *um_error_message(const um_context *ctx);
/** Store a message for an error found outside the engine (an app, a driver), so
 * every error of a run is read from one place; returns code. */
int um_error_set(um_context *ctx, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** Clear the last error's message. */
void um_error_clear(um_context *ctx);

/** The backend in use after auto resolution (its registered name). */
const char *um_context_backend(const um_context *ctx);
/** 1 when the context's loops run their kernels on the host CPU (seq, openmp: the backends that can run
 * compiled host code), 0 on a device (cuda): for apps whose best formulation differs between the two. */
int um_context_on_host(const um_context *ctx);
/** The strategy the backend resolved the options' strategy to. */
um_strategy um_context_strategy(const um_context *ctx);
/** The context's options (block size, threads, verbosity, ...), as um_init took them. */
const um_options *um_context_options(const um_context *ctx);
/** A one-line description of where the context runs, from its backend (e.g. the
 * GPU and its profile); "" when the backend has none. */
const char *um_context_device(const um_context *ctx);

/** The device a context runs on, for records compared across machines (umrun
 * --json, --suite); the backend fills what it knows. */
typedef struct {
  char name[256];              /**< the device's name, e.g. "NVIDIA H100 80GB HBM3"   */
  char compute_capability[16]; /**< e.g. "9.0"                                      */
  int multiprocessors;         /**< streaming multiprocessors                       */
  double memory_bytes;         /**< device memory                                   */
  char driver[32];             /**< the driver's level, e.g. "13.0"                 */
  char runtime[32];            /**< the runtime um was built with                   */
  char profile[32];            /**< the device profile in use                       */
  double copy_gbs;             /**< measured device-to-device copy, GB/s (0: unknown) */
  /** peak double-precision rate of the device's vector units (no tensor cores), GFLOP/s: multiprocessors x
   * FP64 fused multiply-adds per multiprocessor and clock x 2 x the highest clock (0: unknown) */
  double peak_fp64_gflops;
} um_device_info;
/** Fill *out with the context's device. Host backends:
 * UM_ERR_UNSUPPORTED (no message is left in the context). */
int um_context_device_info(um_context *ctx, um_device_info *out);

/* ---- the backend registry -------------------------------------------------- */
/** The number of backends this build knows, built in or not. A backend that is
 * known but not built (e.g. cuda in a build without the CUDA toolkit) is
 * listed, and is never available. */
int um_backend_count(void);
/** The name of backend i (0 <= i < um_backend_count()), by decreasing priority. */
const char *um_backend_at(int i);
/** 1 if the named backend can run here; else 0 and why (not built into this
 * build and how to build it, or no usable device with the runtime's reason, or
 * no backend of that name).
 * @param name a backend's name ("seq", "openmp", "cuda", ...)
 * @param why  a buffer for the reason (may be NULL)
 * @param n    its size */
int um_backend_status(const char *name, char *why, size_t n);
/** 1 if the named backend can run here (um_backend_status without the reason). */
int um_backend_available(const char *name);
/** The highest-priority available backend ("auto"). */
const char *um_backend_auto(void);
/** The number of the backend's own settings (0 for an unknown backend). */
int um_backend_option_count(const char *backend);
/** The backend's setting i: key (without the "<backend>." prefix), default,
 * allowed values ("a|b|c", or NULL for any) and help text. Any out pointer may be NULL. */
int um_backend_option_at(const char *backend, int i, const char **key, const char **def, const char **choices,
                         const char **help);

/** Declare a set of `size` elements. Names must be unique per kind.
 * @param ctx  the context
 * @param size elements of the set (>= 0)
 * @param name the set's name, unique among sets
 * @param set  *set receives the set, owned by the context */
int um_decl_set(um_context *ctx, int size, const char *name, um_set **set);
/** Declare a map from -> to of `arity` targets per element: data holds
 * size(from) * arity 0-based indices into `to`, copied (and checked to lie in range). */
int um_decl_map(um_context *ctx, um_set *from, um_set *to, int arity, const int *data,
                const char *name, um_map **map);
/** Declare a dat of `dim` values of `type` per element of `set`, in the
 * options' default layout; data (AoS, size * dim values) is copied, NULL: zeros. */
int um_decl_dat(um_context *ctx, um_set *set, int dim, um_type type, const void *data,
                const char *name, um_dat **dat);
/** A global constant readable by kernels (see um/kernel.h, UM_CONST). The value
 * is copied now and published to devices; call again to change it. */
int um_decl_const(um_context *ctx, const char *name, int dim, um_type type, const void *data);

/** The set of that name, or NULL. */
um_set *um_find_set(const um_context *ctx, const char *name);
/** The map of that name, or NULL. */
um_map *um_find_map(const um_context *ctx, const char *name);
/** The dat of that name, or NULL. */
um_dat *um_find_dat(const um_context *ctx, const char *name);
/** The set's name. */
const char *um_set_name(const um_set *s);
/** Elements of the whole set (over every rank when distributed). */
int um_set_size(const um_set *s); /* elements of the whole set (over every rank when distributed) */
/** Element ranges as OP2 lays them out for distributed runs: [0, core) touch no
 * halo, [0, size) are owned, then exec_halo elements executed redundantly and
 * nonexec_halo elements only read. On one rank core == size, halos 0. */
void um_set_ranges(const um_set *s, int *core, int *exec_halo, int *nonexec_halo);
/** The map's name. */
const char *um_map_name(const um_map *m);
/** Targets per element of the from-set. */
int um_map_arity(const um_map *m);
/** The set the map goes from (the one a loop iterates over). */
um_set *um_map_from(const um_map *m);
/** The set the map points into. */
um_set *um_map_to(const um_map *m);
/** The map's entries: from->size * arity, 0-based (this rank's, when distributed). */
const int *um_map_data(const um_map *m); /* from->size * arity, 0-based */
/** The dat's name. */
const char *um_dat_name(const um_dat *d);
/** The set the dat lives on. */
um_set *um_dat_set(const um_dat *d);
/** Rows allocated for the dat (>= its set's size plus halos): the SoA stride. */
int um_dat_rows(const um_dat *d);
/** Values per element. */
int um_dat_dim(const um_dat *d);
/** The type of the dat's values. */
um_type um_dat_type(const um_dat *d);
/** The dat's layout (UM_LAYOUT_AUTO until its first loop resolves it). */
um_layout um_dat_layout(const um_dat *d);
/** Sets declared on the context. */
int um_set_count(const um_context *ctx);
/** Maps declared on the context. */
int um_map_count(const um_context *ctx);
/** Dats declared on the context (the engine's temporaries not counted). */
int um_dat_count(const um_context *ctx);
/** Set i in declaration order (0 <= i < um_set_count), or NULL. */
um_set *um_set_at(const um_context *ctx, int i);
/** Map i in declaration order, or NULL. */
um_map *um_map_at(const um_context *ctx, int i);
/** Dat i in declaration order, or NULL. */
um_dat *um_dat_at(const um_context *ctx, int i);

/** Change a dat's storage layout (contents preserved). UM_LAYOUT_AUTO is
 * resolved at the first loop that uses the dat: SoA if only ever accessed
 * directly, AoS otherwise. */
int um_dat_set_layout(um_context *ctx, um_dat *dat, um_layout layout);

/** Copy a dat back to the host, always as AoS (size * dim values).
 * `bytes` must equal size*dim*sizeof(type). Collective when distributed. */
int um_dat_fetch(um_context *ctx, const um_dat *dat, void *out, size_t bytes);
/** Replace a dat's values from AoS host data (the reverse of um_dat_fetch). */
int um_dat_update(um_context *ctx, um_dat *dat, const void *in, size_t bytes);

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
} um_arg;

/** idx for um_arg_dat meaning "every target of the map, as one argument" (OP2's OP_ALL). */
#define UM_ALL (-2)

/** A dat argument: `dat` directly (map UM_ID, idx ignored) or through `map` at
 * index idx (UM_ALL: every index, a vector argument, see um_arg_vec); dim and
 * type must match the dat's (checked by um_par_loop). */
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

/* ---- kernels -------------------------------------------------------------- */
struct um_exec;
/** Describes one user kernel: produced by UM_KERNEL_DEFINE in um/kernel.h. */
typedef struct um_kernel {
  const char *name;     /**< function name in the kernel header          */
  int nargs;            /**< number of pointer parameters                */
  /** Host entry: runs elements [begin, end) of the iteration set,
   * with arguments resolved by the engine (see um/exec.h). */
  void (*range)(struct um_exec *x, int begin, int end);
  const char *source;   /**< text of the kernel header (for JIT backends), may be NULL */
  const char *source_name; /**< the header's file name, for messages and generated code */
  /** Kernels built at run time (e.g. from a formula read from an input file):
   * whatever the range function needs besides the arguments (an expression
   * program); it reads it as x->kernel->user. NULL for UM_KERNEL_DEFINE. The
   * source text then is generated too (a header defining `name`), so JIT
   * backends compile the same function the host interprets. The descriptor,
   * its strings and user data must outlive the loops that use it, and a JIT
   * backend keys compiled code by the descriptor's address and source text. */
  const void *user;
} um_kernel;

/** Run `kernel` over every element of `set` (OP2's op_par_loop).
 * @param ctx   the context
 * @param kernel the kernel's descriptor (UM_KERNEL_DEFINE's `<fn>_kernel`, or from um_decl_kernel)
 * @param name  the loop's name: statistics, per-loop options and plans are kept under it
 * @param set   the iteration set
 * @param nargs the number of arguments, kernel->nargs
 * @param args  one argument per kernel parameter, in order
 * @return UM_SUCCESS or an error code (message in um_error_message) */
int um_par_loop(um_context *ctx, const um_kernel *kernel, const char *name, um_set *set,
                int nargs, const um_arg *args);

/** A kernel built at run time (see um_kernel.user): the context keeps a copy of
 * the descriptor with its name, source and source_name strings until
 * um_finalize, so loops recorded with it (statistics, code generation for a
 * JIT backend) stay valid after the caller frees its own. The user data is not
 * copied: it must live while loops with the kernel run. *out is the copy to
 * pass to um_par_loop. UM_ERR_ARG without a name, a range function or nargs in
 * 1..UM_MAX_ARGS (48). */
int um_decl_kernel(um_context *ctx, const um_kernel *kernel, const um_kernel **out);

#ifndef __cplusplus
/** Convenience: UM_PAR_LOOP(ctx, kernel, "name", set, arg, arg, ...) counts the
 * arguments and calls um_par_loop with &kernel (in C++: um_par_loop_list). */
#define UM_PAR_LOOP(ctx, kernel, name, set, ...)                                         \
  um_par_loop((ctx), &(kernel), (name), (set),                                           \
              (int)(sizeof((um_arg[]){__VA_ARGS__}) / sizeof(um_arg)), (um_arg[]){__VA_ARGS__})
#else
#define UM_PAR_LOOP(ctx, kernel, name, set, ...) \
  um_par_loop_list((ctx), &(kernel), (name), (set), {__VA_ARGS__})
#endif

/** Per-loop block size (0 keeps the context's). */
int um_loop_set_block_size(um_context *ctx, const char *loop_name, int block_size);
/** Per-loop strategy (UM_STRATEGY_AUTO keeps the context's). */
int um_loop_set_strategy(um_context *ctx, const char *loop_name, um_strategy strategy);

/** Wait for all outstanding device work (no-op on CPU backends). */
int um_sync(um_context *ctx);
/** Put the data declared so far on the device now, as OP2 does when data is declared, rather than at the first
 * loop that uses each: every dat (but those whose layout is still to be decided, UM_LAYOUT_AUTO) and every map,
 * after set-up has reordered and distributed them. Returns when the copies are done. A backend without a device
 * copies nothing; a device copies nothing when they would not fit comfortably in its free memory (the loops
 * then copy what they use). *bytes (may be NULL): what went to the device. A dat the host changes afterwards
 * (um_dat_update) is copied again at its next loop, as before. */
int um_prefetch(um_context *ctx, double *bytes);

/* ---- distributed memory (MPI) ---------------------------------------------
 * A run on P ranks declares the whole mesh on every rank, as one process
 * would, then calls um_distribute once before its first loop: the engine
 * partitions a primary set, places the other sets' elements through the maps
 * (OP2's rule), keeps on each rank its owned elements plus an exec halo and a
 * non-exec halo, and from then on exchanges stale halos before the loops that
 * read them and combines reductions across ranks. The app keeps the global
 * view: um_set_size is the global size, um_dat_fetch / um_dat_update take
 * arrays of the whole set (collective calls: every rank makes them), and dats
 * declared later take their global values. um_map_data and um_set_ranges are
 * the local ones. */

/** 1 if this build has MPI. */
int um_mpi_built(void);
/** 1 if this build has the partitioner `name` for um_distribute ("metis",
 * "block": with MPI; "ptscotch": with MPI and PT-Scotch). */
int um_mpi_partitioner_built(const char *name);
/** Start MPI when the process was launched by mpirun (MPI_Init), so that
 * contexts can be distributed; else (or without MPI) nothing: one process.
 * rank and nranks (may be NULL) say where it runs. */
int um_mpi_start(int *argc, char ***argv, int *rank, int *nranks);
/** 1 if the process was launched by mpirun with more than one rank (whether or
 * not this build can use it): lets a program without MPI refuse clearly. */
int um_mpi_launched(void);
/** This process's rank (0 without MPI). */
int um_mpi_rank(void);
/** The number of ranks (1 without MPI). */
int um_mpi_size(void);
/** Every rank agrees on one status (>= 0): the largest of the ranks' `status`.
 * With timeout_s > 0, returns -1 when the others have not all arrived by then
 * (they wait in a loop for this rank, which failed): the caller then says why
 * and calls um_mpi_abort rather than hang. Without MPI: returns status. */
int um_mpi_agree(int status, double timeout_s);
/** End every rank with exit status `status` (MPI_Abort; exit without MPI). */
void um_mpi_abort(int status);
/** End MPI if um_mpi_start started it (MPI_Finalize); else nothing. */
int um_mpi_finish(void);
/** Broadcast n ints from rank 0 to every rank (a no-op on one rank): for
 * drivers that must take one decision (validation on rank 0, say). */
int um_mpi_bcast_int(int *v, int n);
/** Wait until every rank has arrived (a no-op on one rank). */
int um_mpi_barrier(void);

/** Partition the context's mesh over the MPI ranks (collective; nothing on one
 * rank): primary_set NULL picks the largest set some map points into;
 * partitioner "metis" (k-way of the primary set's graph, on rank 0),
 * "ptscotch" (PT-Scotch k-way, every rank taking part; in builds with it),
 * "block" (contiguous ranges of the current numbering) or NULL (metis). A
 * partitioner that fails or leaves a part empty falls back to block, said in
 * um_partition_info's note. Call after declaring every set and map and before
 * the first loop. */
int um_distribute(um_context *ctx, const char *primary_set, const char *partitioner);
/** How a loop that increments through a map reaches elements other ranks own:
 * REDUNDANT (OP2's rule) runs the exec halo too, so every increment into an
 * owned element is computed on its owner; REVERSE (PETSc's SFReduce) runs only
 * the owned elements, then sends the increments that landed in halo copies to
 * their owners, which add them (less computing, one more message); AUTO picks
 * per loop by comparing the exec halo's work with the halo rows to send back.
 * Loops that also read the incremented dat, or write through a map otherwise
 * than INC, always run REDUNDANT, and so does every loop in reproducible mode
 * (um_set_reproducible). Nothing changes on one rank. */
typedef enum {
  UM_INCREMENTS_REDUNDANT = 0, /**< run the exec halo too (OP2)                        */
  UM_INCREMENTS_REVERSE,       /**< owned elements only, halo increments sent back     */
  UM_INCREMENTS_AUTO           /**< per loop, by the work and the rows to send         */
} um_increments;
/** The name of an increments mode ("redundant", "reverse", "auto"). */
const char *um_increments_name(um_increments m);
/** The increments mode of every loop of the context (default REDUNDANT). */
int um_set_increments(um_context *ctx, um_increments mode);
/** The increments mode of one loop, by name (overrides the context's). */
int um_loop_set_increments(um_context *ctx, const char *loop_name, um_increments mode);
/** How halo messages travel between ranks whose dats live on a device (CUDA
 * ranks; host backends always send from host memory):
 *   - HOST    rows packed on the device into pinned host buffers and sent with
 *             MPI (any MPI, any number of ranks on a GPU);
 *   - DEVICE  rows packed into device buffers and sent device to device by the
 *             backend's own transport (NCCL on CUDA), on a communication stream
 *             beside the compute stream: no host copy, no host wait, core
 *             elements run while the halo moves;
 *   - AUTO    the device transport when the backend has one, this build and
 *             machine can load it, every rank has a device of its own and all
 *             ranks are on one host, for exchanges of at least
 *             um_set_gpu_transport_min_bytes per rank; HOST otherwise.
 *
 * Set before um_distribute; um_partition_info says which was taken and why.
 * DEVICE where it cannot run is an error of um_distribute naming the reason. */
typedef enum {
  UM_TRANSPORT_AUTO = 0, /**< the device transport where it can run and pays off */
  UM_TRANSPORT_HOST,     /**< through pinned host buffers and MPI               */
  UM_TRANSPORT_DEVICE    /**< device to device by the backend's transport (NCCL) */
} um_transport;
/** The halo transport of the context (see um_transport); before um_distribute. */
int um_set_gpu_transport(um_context *ctx, um_transport t);
/** AUTO with the device transport open sends an exchange device to device
 * only when its halo rows average at least this many bytes per rank (the
 * same choice on every rank), and smaller ones through host memory: on the
 * H100 host it was measured on, an exchange of a small halo (76 KB) took
 * about 1 ms of device time through NCCL against 0.17 ms through host
 * memory, and NCCL's first exchange ~1 s to connect (docs/benchmarks.md,
 * "Several GPUs of one host"). 0: every exchange device to device. Before
 * um_distribute. */
#define UM_TRANSPORT_MIN_BYTES (1L << 20)
/** The size rule of UM_TRANSPORT_AUTO: bytes per rank from which an exchange
 * goes device to device (default UM_TRANSPORT_MIN_BYTES); before um_distribute. */
int um_set_gpu_transport_min_bytes(um_context *ctx, long bytes);
/* Automatic loop splitting, reproducible mode and per-loop tuning: um/transform.h */
#include "um/transform.h"

/** This rank's number: 0 when not distributed. */
int um_context_rank(const um_context *ctx);   /* 0 when not distributed */
/** The number of ranks the context is distributed over: 1 when not distributed. */
int um_context_nranks(const um_context *ctx); /* 1 when not distributed */
/** The partition of a distributed context: the primary set, the partitioner
 * that produced it (and why another one, if it fell back), the edge cut of the
 * primary set's graph and the imbalance (largest part / mean). */
typedef struct {
  int nranks;         /**< ranks the mesh is partitioned over                  */
  char primary[64];   /**< the primary set's name                              */
  char partitioner[32]; /**< the partitioner that produced the partition       */
  char note[512];   /**< what happened: fallbacks, disconnected parts ("" if none) */
  char transport[32];        /**< halo messages: "host" (MPI from host memory) or the backend's device
                                transport ("nccl") */
  char transport_note[256];  /**< why that one */
  long edge_cut;    /**< edges of the primary set's graph between parts          */
  double imbalance; /**< largest part / mean part                               */
  double seconds;   /**< partitioning and building the halos */
} um_partition_info;
/** Fill *out with the context's partition; UM_ERR_UNSUPPORTED when the context is not distributed. */
int um_partition_info_get(const um_context *ctx, um_partition_info *out);
/** What rank `rank` holds of set s (any rank's, known on every rank). */
int um_set_partition(const um_set *s, int rank, int *owned, int *exec_halo, int *nonexec_halo);
/** A map with global indices for every element of its from-set (collective when
 * distributed): out holds um_set_size(from) * arity entries. */
int um_map_fetch(um_context *ctx, const um_map *m, int *out, size_t bytes);

/* ---- timing and statistics ------------------------------------------------ */
/** The most backend counters a loop's statistics hold (um_loop_stats.counters). */
#define UM_MAX_COUNTERS 12
/** What the engine measured of one loop (by name) since the context began or
 * the last um_loop_stats_reset: calls, times, useful bytes, plan statistics,
 * the backend's counters, halo exchanges, splitting. */
typedef struct {
  const char *name;     /**< the loop's name (as passed to um_par_loop)   */
  long calls;           /**< calls of the loop                            */
  long compiled_calls;  /**< calls that ran host code compiled for the loop
                           (um_options.compile)                           */
  long simd_calls;      /**< of those, calls that ran its SIMD range
                           (um_options.compile_simd)                      */
  double seconds;       /**< total time inside the loop (GPU time when
                           device_timed)                                  */
  double host_seconds;  /**< wall-clock time the host spent in um_par_loop
                           (issuing work, building plans, compiling, and
                           waiting where a reduction must be read back)   */
  double bytes;         /**< useful bytes per call (GUIDE.md convention)   */
  int set_size;         /**< elements of the iteration set               */
  int indirect;         /**< 1 if any arg goes through a map               */
  int one_to_one;       /**< 1 if it writes through maps, only through one-to-one columns: run without plan,
                           colours or atomics (um_loop.one_to_one) */
  int has_plan;         /**< 1 if the loop used a plan; the plan statistics below are those of the last
                           plan used (0 for direct loops) */
  int block_size;       /**< plan: elements per block                    */
  int nblocks;          /**< plan: blocks (mini-partitions)              */
  int nblock_colours;   /**< plan: block colours                         */
  double mean_thread_colours; /**< plan: thread colours per block, mean  */
  int max_thread_colours;     /**< plan: thread colours per block, most  */
  double shared_bytes_mean;   /**< plan: shared memory per block (staged data), mean bytes */
  long shared_bytes_max;      /**< plan: shared memory per block, most bytes */
  double reuse_factor;        /**< plan: indirect accesses per distinct element staged */
  double cache_lines_mean;    /**< plan: cache lines touched per block, mean */
  int nplans;           /**< plans built for this loop name               */
  double plan_seconds;  /**< time spent building (and checking) its plans */
  /** Wall time of the loop's first call, after its argument checks to its return: tuning, statistics, plans,
   * compilation, uploads, the launch (or on the host the run) and a reduction's wait; the first cycle's cost
   * per loop. */
  double first_call_seconds;
  int device_timed;     /**< 1: seconds is device time (e.g. CUDA events),
                           run-time compilation excluded                 */
  /** The backend's own per-loop counters (names from its registration, e.g.
   * compile_seconds, modules, occupancy on cuda); see um_loop_stats_counter.
   * ncounters: entries used in counter_names and counters. */
  int ncounters;
  const char *counter_names[UM_MAX_COUNTERS]; /**< the counters' names          */
  double counters[UM_MAX_COUNTERS];           /**< the counters' values         */
  /** Distributed runs (0 otherwise), totals over the calls: dats exchanged,
   * messages and bytes sent, seconds spent on the exchange, and of those the
   * seconds that overlapped with core elements running. halo_exchanges: dats exchanged. */
  long halo_exchanges;
  long halo_messages;          /**< messages sent                               */
  double halo_bytes;           /**< bytes sent                                  */
  double halo_seconds;         /**< seconds spent on the exchange               */
  double halo_hidden_seconds;  /**< of those, seconds overlapped with core elements */
  int reverse_increments; /**< 1: the last call sent increments back to their owners (REVERSE) */
  /** Automatic loop splitting: the last call's variant ("off", "scatter",
   * "gather", "fused"); split_reason says why; parent: for the loops a split generates
   * (named "<loop>:contrib", "<loop>:inc<k>", "<loop>:gather<k>"), the loop they
   * belong to (NULL otherwise). temp_bytes: the engine's temporaries. */
  const char *split;
  const char *split_reason;    /**< why the loop ran as `split`                 */
  const char *parent;          /**< the loop a generated loop belongs to, or NULL */
  double temp_bytes;           /**< bytes of the engine's temporaries for the split */
  /** After um_loop_stats_across_ranks (0 before, and on one process): the
   * ranks timed and this loop's seconds on the fastest, average and slowest
   * rank (seconds above stay this rank's own). ranks_timed: the ranks timed. */
  int ranks_timed;
  /** @{ seconds on the fastest rank, averaged over the ranks, and on the slowest rank */
  double seconds_rank_min, seconds_rank_mean, seconds_rank_max;
  /** @} */
  /** @{ the fastest and the slowest rank (the lowest of equals); -1 before um_loop_stats_across_ranks */
  int rank_fastest, rank_slowest;
  /** @} */
} um_loop_stats;

/** Collective (every rank calls it, after the same loops): each loop's time on
 * the fastest, average and slowest rank, into um_loop_stats. The slowest rank's
 * time is the loop's time in the run; max/mean is its load imbalance. A no-op
 * on one process; UM_ERR_BACKEND if the ranks ran different loops. */
int um_loop_stats_across_ranks(um_context *ctx);

/** The number of loops (by name) with statistics. */
int um_loop_stats_count(const um_context *ctx);
/** A backend counter of a loop by name: 1 and *value if the backend keeps it, else 0. */
int um_loop_stats_counter(const um_loop_stats *s, const char *name, double *value);
/** The statistics of loop i (0 <= i < um_loop_stats_count), in the order loops first ran. */
int um_loop_stats_get(const um_context *ctx, int i, um_loop_stats *out);
/** Plans in the context's plan cache. */
int um_plan_cache_size(const um_context *ctx);
/** Reset counters (keeps plans). */
void um_loop_stats_reset(um_context *ctx);

/** The number of arguments of what loop i (as in um_loop_stats_get) last ran.
 * With um_loop_arg_get, um_loop_kernel and um_loop_set: its kernel, iteration
 * set and arguments (dats, maps, indices, access modes). Lets a tool describe the
 * loops' access patterns (umrun's JSON, --report). */
int um_loop_arg_count(const um_context *ctx, int i);
/** Argument j of loop i as it last ran. A gbl argument's data pointer is not
 * kept valid: read only its dim, type and access. */
int um_loop_arg_get(const um_context *ctx, int i, int j, um_arg *out);
/** The kernel loop i last ran, or NULL. */
const um_kernel *um_loop_kernel(const um_context *ctx, int i);
/** The set loop i last ran over, or NULL. */
um_set *um_loop_set(const um_context *ctx, int i);

#ifdef __cplusplus
}
#include <initializer_list>
/** C++: um_par_loop with the arguments as a braced list (what UM_PAR_LOOP expands to in C++). */
inline int um_par_loop_list(um_context *ctx, const um_kernel *kernel, const char *name, um_set *set,
                            std::initializer_list<um_arg> args) {
  return um_par_loop(ctx, kernel, name, set, (int)args.size(), args.begin());
}
#endif
#endif
