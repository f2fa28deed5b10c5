/** @file um/options.h
 * Execution options (um_options), fixed at um_init.
 * Part of the public API: include um/um.h. */
#ifndef UM_OPTIONS_H
#define UM_OPTIONS_H

#include "um/base.h"

#ifdef __cplusplus
extern "C" {
#endif

struct um_backend_def;
/** The most component settings ("<component>.<key>" = value) one um_options holds. */
#define UM_MAX_SETTINGS 32

/** Compiled host loops (the setting hostc.compile): off; compiled in the background
 * once a loop has run hostc.compile_after seconds, the kernel's own range running
 * meanwhile; or compiled before a loop's first call (a failed compile is then
 * an error, not a warning). */
typedef enum {
  UM_COMPILE_OFF = 0, /**< never compile                                  */
  UM_COMPILE_AUTO,    /**< in the background, once a loop is busy enough  */
  UM_COMPILE_WAIT     /**< before a loop's first call                     */
} um_compile;
/** The compiler flags of compiled host loops unless hostc.cflags says
 * otherwise: this machine's instruction set (the cache key names the CPU), no
 * contraction into FMA and no errno from sqrt, so the results stay those of
 * the generic range, bit for bit. */
#define UM_HOSTC_DEFAULT_CFLAGS "-O3 -march=native -ffp-contract=off -fno-math-errno -fno-trapping-math -fopenmp-simd -Werror=incompatible-pointer-types"
/** Elements per group of the SIMD range of a compiled host loop (hostc.compile_simd). */
#define UM_HOSTC_LANES 8
/** The name of a um_compile value ("off", "auto", "wait"). */
const char *um_compile_name(um_compile c);
/** Parse "off", "auto" or "wait" into *out; UM_ERR_ARG if unknown. */
int um_compile_parse(const char *s, um_compile *out);

/** The largest block size (um_options.block_size, um_loop_set_block_size, run.block_size). */
#define UM_MAX_BLOCK_SIZE (1 << 20)

/** Execution options, fixed at um_init (layout and block size may also be set
 * per dat / per loop later). Start from um_options_default. */
typedef struct {
  const char *backend;    /**< a registered backend's name ("seq", "openmp",
                             "cuda", ...) or NULL / "auto": the available
                             backend of highest priority                      */
  um_strategy strategy;   /**< UM_STRATEGY_AUTO: the backend's default           */
  um_layout layout;       /**< default layout of dats declared from now on       */
  int block_size;         /**< plan mini-partition size (elements), 1 .. UM_MAX_BLOCK_SIZE */
  int nthreads;           /**< OpenMP threads, 0 = runtime default; at most um_threads_max() */
  int check_plans;        /**< 1: verify every plan after building it            */
  int verbose;            /**< 0 quiet, 1 info, 2 debug (messages to log)        */
  int row_align;          /**< dats allocate their rows rounded up to a multiple
                             of this (>= 1; SoA columns start aligned)         */
  um_log_fn log;          /**< where messages go (NULL: dropped)                 */
  void *log_user;         /**< passed to log as its first argument               */
  /** The settings of the components that declare their own keys, as text,
   * "<component>.<key>" = value: the host compiler's (hostc.compile, hostc.cc,
   * ...), the OpenMP backend's (openmp.parallel_threshold), run.cache, each
   * backend's (cuda.profile, ...). Set them with um_options_set (checked
   * against the declaration, um/option_decl.h) or um_options_set_backend (text,
   * checked at um_init); the component reads them with um_options_get (the
   * declared type and default). nsettings: the entries in use. */
  int nsettings;
  /** The settings themselves (nsettings of them). */
  struct {
    char key[64];    /**< "<component>.<key>", e.g. "hostc.compile" */
    char value[512]; /**< its value as text                          */
  } settings[UM_MAX_SETTINGS];
  /** Backends defined by the caller, offered besides the built-in ones (a test,
   * an experimental backend): see um/backend.h. The tables must outlive the
   * contexts that use them; the list itself is read only by um_init. */
  const struct um_backend_def *const *extra_backends;
  int nextra_backends;    /**< entries of extra_backends                         */
  /** Halo transports defined by the caller (a test, an experimental transport), offered after the built-in
   * ones (docs/transports.md: the table, um_transport_def, is the distributed layer's,
   * engine/src/distributed/transport.h). um_init keeps the list in the context, where um_distribute looks its
   * transport up: the list and its tables must outlive the contexts that use them. */
  const struct um_transport_def *const *extra_transports;
  int nextra_transports;  /**< entries of extra_transports                       */
} um_options;

/** Defaults: backend auto, strategy AUTO, layout AOS, block_size 256, checks off,
 * row_align 1, no log, no settings (each component's declared default). */
void um_options_default(um_options *opts);
/** The most threads a context may run: UM_THREADS_PER_CORE x the cores online
 * (more only adds start-up cost and memory; 100,000 crashed libgomp). */
#define UM_THREADS_PER_CORE 8
/** UM_THREADS_PER_CORE x the cores online: the largest um_options.nthreads um_init accepts. */
int um_threads_max(void);

/** Set (or replace) the setting "<component>.<key>" = value as text; UM_ERR_ARG if the key is
 * malformed, the value too long or the table full (checked against its declaration at um_init). */
int um_options_set_backend(um_options *opts, const char *key, const char *value);
/** Set one declared option before um_init, checked against its declaration (type, choices, range):
 * um_options_set(&o, "hostc.compile", "wait"). um_option_apply(opts, NULL, key, value, NULL, 0). */
int um_options_set(um_options *opts, const char *key, const char *value);

#ifdef __cplusplus
}
#endif
#endif
