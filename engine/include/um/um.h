/* um: parallel loops over unstructured meshes (public C API).
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

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes --------------------------------------------------------- */
typedef enum {
  UM_SUCCESS = 0,
  UM_ERR_ARG = 1,          /* bad argument to an API call                  */
  UM_ERR_ALLOC = 2,        /* out of memory                                */
  UM_ERR_IO = 3,           /* file missing, unreadable or malformed        */
  UM_ERR_CONFIG = 4,       /* bad configuration value or file              */
  UM_ERR_UNSUPPORTED = 5,  /* feature or backend not built / not available */
  UM_ERR_BACKEND = 6,      /* failure inside a backend (CUDA, OpenMP, ...) */
  UM_ERR_VALIDATION = 7,   /* a result failed validation                   */
  UM_ERR_PLAN = 8,         /* plan construction or plan check failed       */
  UM_ERR_INTERNAL = 9      /* bug: please report                           */
} um_error;

const char *um_error_name(int code);
/* Seconds on a monotonic clock (for intervals): the one timer of the engine, apps and runner. */
double um_wtime(void);
/* For functions that report through a caller's buffer: format the message into
 * err (if err != NULL and errlen > 0) and return code. */
int um_format_error(char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- enums ----------------------------------------------------------------*/
typedef enum { UM_READ = 0, UM_WRITE, UM_RW, UM_INC, UM_MIN, UM_MAX } um_access;
typedef enum { UM_DOUBLE = 0, UM_FLOAT, UM_INT } um_type;
typedef enum { UM_AOS = 0, UM_SOA, UM_LAYOUT_AUTO } um_layout;
typedef enum { UM_BACKEND_SEQ = 0, UM_BACKEND_OPENMP, UM_BACKEND_CUDA, UM_BACKEND_AUTO } um_backend;
typedef enum {
  UM_STRATEGY_AUTO = 0,
  UM_STRATEGY_COLOURED,     /* CPU: blocks of one block colour in parallel */
  UM_STRATEGY_ATOMICS,      /* CUDA */
  UM_STRATEGY_GLOBAL,       /* CUDA: global element colouring */
  UM_STRATEGY_HIERARCHICAL  /* CUDA: block + thread colouring, staging */
} um_strategy;

/* GPU device profiles (CUDA backend): shared memory, multiprocessors and
 * bandwidth of a GPU generation; plans are sized from the profile. */
typedef enum {
  UM_PROFILE_AUTO = 0, /* the GPU the run finds */
  UM_PROFILE_P100,
  UM_PROFILE_V100,
  UM_PROFILE_A100,
  UM_PROFILE_H100,
  UM_PROFILE_H200
} um_profile;

const char *um_access_name(um_access a);
const char *um_type_name(um_type t);
size_t um_type_size(um_type t);
const char *um_layout_name(um_layout l);
const char *um_backend_name(um_backend b);
const char *um_strategy_name(um_strategy s);
/* Parse names ("double", "soa", "openmp", ...); return UM_ERR_ARG if unknown. */
int um_type_parse(const char *s, um_type *out);
int um_layout_parse(const char *s, um_layout *out);
int um_backend_parse(const char *s, um_backend *out);
int um_strategy_parse(const char *s, um_strategy *out);

/* ---- objects ------------------------------------------------------------- */
typedef struct um_context um_context;
typedef struct um_set um_set;
typedef struct um_map um_map;
typedef struct um_dat um_dat;

/* Execution options, fixed at um_init (layout and block size may also be set
 * per dat / per loop later). */
typedef struct {
  um_backend backend;     /* UM_BACKEND_AUTO: CUDA if present, else OpenMP/seq */
  um_strategy strategy;   /* UM_STRATEGY_AUTO: backend's default               */
  um_layout layout;       /* default layout of dats declared from now on       */
  int block_size;         /* plan mini-partition size (elements), > 0          */
  int nthreads;           /* OpenMP threads, 0 = runtime default               */
  int parallel_threshold; /* OpenMP: loops over fewer elements run on one thread
                             (same plan and colour order); 0 = always parallel */
  int check_plans;        /* 1: verify every plan after building it            */
  int verbose;            /* 0 quiet, 1 info, 2 debug                          */
  um_profile profile;     /* CUDA: device profile (AUTO: the GPU found)        */
  int staging;            /* CUDA: 0 the profile's default, 1 stage only
                             incremented data in shared memory, 2 all indirect
                             data, 3 none (atomics straight to the dat)        */
} um_options;

/* Defaults: backend AUTO, strategy AUTO, layout AOS, block_size 256, checks off,
 * parallel_threshold 4096. */
void um_options_default(um_options *opts);

int um_init(um_context **ctx, const um_options *opts);
int um_finalize(um_context **ctx); /* frees everything; *ctx set to NULL */

/* The message of the last error (empty string if none) and clearing it. */
const char *um_error_message(const um_context *ctx);
void um_error_clear(um_context *ctx);

/* Backend actually in use after AUTO resolution, and whether it was compiled in. */
um_backend um_context_backend(const um_context *ctx);
um_strategy um_context_strategy(const um_context *ctx);
int um_backend_available(um_backend b);
/* Why a backend is not available (empty string when it is): not compiled into
 * this build, or (CUDA) no usable device, with the runtime's reason. Returns
 * um_backend_available(b). */
int um_backend_status(um_backend b, char *why, size_t n);
const um_options *um_context_options(const um_context *ctx);

/* Declarations. Names must be unique per kind; data is copied. */
int um_decl_set(um_context *ctx, int size, const char *name, um_set **set);
int um_decl_map(um_context *ctx, um_set *from, um_set *to, int arity, const int *data,
                const char *name, um_map **map);
int um_decl_dat(um_context *ctx, um_set *set, int dim, um_type type, const void *data,
                const char *name, um_dat **dat);
/* A global constant readable by kernels (see um/kernel.h, UM_CONST). The value
 * is copied now and published to devices; call again to change it. */
int um_decl_const(um_context *ctx, const char *name, int dim, um_type type, const void *data);

/* Lookup and introspection. */
um_set *um_find_set(const um_context *ctx, const char *name);
um_map *um_find_map(const um_context *ctx, const char *name);
um_dat *um_find_dat(const um_context *ctx, const char *name);
const char *um_set_name(const um_set *s);
int um_set_size(const um_set *s);
const char *um_map_name(const um_map *m);
int um_map_arity(const um_map *m);
um_set *um_map_from(const um_map *m);
um_set *um_map_to(const um_map *m);
const int *um_map_data(const um_map *m); /* from->size * arity, 0-based */
const char *um_dat_name(const um_dat *d);
um_set *um_dat_set(const um_dat *d);
int um_dat_dim(const um_dat *d);
um_type um_dat_type(const um_dat *d);
um_layout um_dat_layout(const um_dat *d);
int um_set_count(const um_context *ctx);
int um_map_count(const um_context *ctx);
int um_dat_count(const um_context *ctx);
um_set *um_set_at(const um_context *ctx, int i);
um_map *um_map_at(const um_context *ctx, int i);
um_dat *um_dat_at(const um_context *ctx, int i);

/* Change a dat's storage layout (contents preserved). UM_LAYOUT_AUTO is
 * resolved at the first loop that uses the dat: SoA if only ever accessed
 * directly, AoS otherwise. */
int um_dat_set_layout(um_context *ctx, um_dat *dat, um_layout layout);

/* Copy a dat back to the host, always as AoS (size * dim values), and the
 * reverse. `bytes` must equal size*dim*sizeof(type). */
int um_dat_fetch(um_context *ctx, const um_dat *dat, void *out, size_t bytes);
int um_dat_update(um_context *ctx, um_dat *dat, const void *in, size_t bytes);

/* ---- arguments ----------------------------------------------------------- */
#define UM_ID NULL /* map for direct access */

typedef enum { UM_ARG_DAT = 0, UM_ARG_GBL } um_arg_kind;

typedef struct {
  um_arg_kind kind;
  um_dat *dat;     /* UM_ARG_DAT                                    */
  um_map *map;     /* NULL: direct                                  */
  int idx;         /* map index, 0 <= idx < arity (-1 when direct)  */
  int dim;         /* declared dim, checked against the dat's       */
  um_type type;    /* declared type, checked against the dat's      */
  um_access acc;
  void *gbl;       /* UM_ARG_GBL: user memory of dim values         */
} um_arg;

um_arg um_arg_dat(um_dat *dat, int idx, um_map *map, int dim, um_type type, um_access acc);
um_arg um_arg_gbl(void *data, int dim, um_type type, um_access acc);

/* ---- kernels -------------------------------------------------------------- */
/* Describes one user kernel: produced by UM_KERNEL_DEFINE in um/kernel.h. */
struct um_exec;
typedef struct um_kernel {
  const char *name;     /* function name in the kernel header          */
  int nargs;            /* number of pointer parameters                */
  /* Host entry: runs elements [begin, end) of the iteration set,
   * with arguments resolved by the engine (see um/exec.h). */
  void (*range)(struct um_exec *x, int begin, int end);
  const char *source;   /* text of the kernel header (for JIT backends), may be NULL */
  const char *source_name;
} um_kernel;

int um_par_loop(um_context *ctx, const um_kernel *kernel, const char *name, um_set *set,
                int nargs, const um_arg *args);

/* Convenience: UM_PAR_LOOP(ctx, kernel, "name", set, arg, arg, ...) */
#ifndef __cplusplus
#define UM_PAR_LOOP(ctx, kernel, name, set, ...)                                         \
  um_par_loop((ctx), &(kernel), (name), (set),                                           \
              (int)(sizeof((um_arg[]){__VA_ARGS__}) / sizeof(um_arg)), (um_arg[]){__VA_ARGS__})
#else
#define UM_PAR_LOOP(ctx, kernel, name, set, ...) \
  um_par_loop_list((ctx), &(kernel), (name), (set), {__VA_ARGS__})
#endif

/* Per-loop options (0 / AUTO keep the context's). */
int um_loop_set_block_size(um_context *ctx, const char *loop_name, int block_size);
int um_loop_set_strategy(um_context *ctx, const char *loop_name, um_strategy strategy);

/* Wait for all outstanding device work (no-op on CPU backends). */
int um_sync(um_context *ctx);

/* ---- timing and statistics ------------------------------------------------ */
typedef struct {
  const char *name;
  long calls;
  double seconds;       /* total time inside the loop (GPU time when
                           device_timed)                                  */
  double host_seconds;  /* wall-clock time the host spent in um_par_loop
                           (issuing work, building plans, compiling, and
                           waiting where a reduction must be read back)   */
  double bytes;         /* useful bytes per call (GUIDE.md convention)   */
  int set_size;
  int indirect;         /* 1 if any arg goes through a map               */
  /* plan statistics of the last plan used (0 for direct loops) */
  int has_plan;
  int block_size;
  int nblocks;
  int nblock_colours;
  double mean_thread_colours;
  int max_thread_colours;
  double shared_bytes_mean;
  long shared_bytes_max;
  double reuse_factor;
  double cache_lines_mean;
  int nplans;           /* plans built for this loop name               */
  double plan_seconds;  /* time spent building (and checking) its plans */
  int device_timed;     /* 1: seconds is GPU time (CUDA events), run-time
                           compilation excluded                          */
  double compile_seconds; /* run-time compilation and module loading    */
  int modules;          /* kernels compiled or loaded for this loop     */
  int modules_cached;   /*   of which from the disk cache               */
  double occupancy;     /* theoretical occupancy of the loop's kernel on the
                           GPU (resident warps per SM / the SM's maximum, from
                           the CUDA occupancy calculator with its block size
                           and shared memory); 0 = not known (CPU backends)  */
} um_loop_stats;

int um_loop_stats_count(const um_context *ctx);
int um_loop_stats_get(const um_context *ctx, int i, um_loop_stats *out);
int um_plan_cache_size(const um_context *ctx);
/* Reset counters (keeps plans). */
void um_loop_stats_reset(um_context *ctx);

#ifdef __cplusplus
}
#include <initializer_list>
inline int um_par_loop_list(um_context *ctx, const um_kernel *kernel, const char *name, um_set *set,
                            std::initializer_list<um_arg> args) {
  return um_par_loop(ctx, kernel, name, set, (int)args.size(), args.begin());
}
#endif
#endif
