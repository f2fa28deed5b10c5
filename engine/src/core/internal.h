/* Everything the engine's core sources share (not installed): errors, object
 * layouts, the backend interface and core-private helpers. */
#ifndef UM_INTERNAL_H
#define UM_INTERNAL_H

#include <stddef.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "error.h"
#include "objects.h"

/* The whole map from `from` to `to` (objects.h: um_map.whole), made at its first use: whole-dat arguments
 * (um_arg_whole) run as vector arguments through it. */
int um__whole_map(um_context *ctx, um_set *from, um_set *to, um_map **out);
/* context.c: um_decl_map's checks and record; keep (or keep32, 32-bit): a map declared by blocks (its global
 * targets, taken over; no local rows until um_distribute); take: the caller's local rows, taken over
 * (context_blocks.c, um_decl_map_take). */
int um__decl_map(um_context *ctx, um_set *from, um_set *to, int arity, const int *data, const char *name,
                 um_map **out, long long *keep, int *keep32, int *take);
/* Resolve AUTO layouts for the dats of a loop and convert storage if needed. */
int um__resolve_layouts(um_context *ctx, const um_loop *loop);
int um__dat_convert(um_context *ctx, um_dat *d, um_layout to);
/* Whether a row of dim values of esize bytes can be SoA: a loop gathers an SoA row into registers
 * (UM_EXEC_STAGE_BYTES, um/exec.h). */
static inline int um__dat_soa_fits(int dim, size_t esize) { return (size_t)dim * esize <= UM_EXEC_STAGE_BYTES; }
/* UM_ERR_ARG: dat `name` of dim values a row asked for SoA where it does not fit (um__dat_soa_fits), saying why. */
int um__dat_soa_refused(um_context *ctx, const char *name, int dim);
/* n x dim values of esize bytes, AoS -> SoA (to_soa) or back; the SoA side has columns of `rows` values */
void um__transpose(char *dst, const char *src, size_t n, size_t rows, int dim, size_t esize, int to_soa, int nthreads);
/* The calling thread's part [*b, *e) of [0, n) in a parallel region: equal static ranges in thread order (the
 * whole range outside one, or without OpenMP). */
static inline void um__thread_range(size_t n, size_t *b, size_t *e) {
#ifdef _OPENMP
  const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
  *b = n / nt * t + (t < n % nt ? t : n % nt);
  *e = *b + n / nt + (t < n % nt);
#else
  *b = 0, *e = n;
#endif
}
/* memcpy over nthreads threads (large copies: the pages touched in parallel). */
void um__copy(void *dst, const void *src, size_t bytes, int nthreads);
/* Make the host copy of d current (asks the backend if it holds newer values). */
int um__dat_to_host(um_context *ctx, um_dat *d);
/* The host copy of d changed: other copies are stale. */
void um__dat_host_changed(um_dat *d);
/* 1: d is a contribution temporary whose row fits a host backend's staging (UM_EXEC_STAGE_BYTES): a host backend
 * with contrib_store stages it from -0.0 and stores it (exec.c, hostc_gen.c), so the core does not set it first
 * (split.c); wider ones are set by the core and incremented in place. */
int um__contrib_staged(const um_dat *d);
/* the host copy's rows were moved (another layout, order or rank), not written: it is the only current copy */
void um__dat_host_moved(um_dat *d);
/* dst op= src over dim values (INC: +, MIN, MAX), the one combination rule. */
void um__combine(void *dst, const void *src, int dim, um_type t, um_access acc);
/* Plan for elements [begin, begin + n) of the loop's set with its args, block
 * size and strategy; the plan numbers them from 0 (element begin + i is i). */
int um__get_plan(um_context *ctx, um_loop *loop, int begin, int n, const um_plan **plan);

/* reduction.c: lazy reductions. um__reduction_finish: after loop's call, arg i (a lazy reduction) holds the
 * call's result (loop->red[i], combined across ranks) or, deferred, will find it in its buffer later. */
void um__reduction_finish(const um_loop *loop, int i, long call);
const char *um__reduction_name(const struct um_reduction *r);
/* 1 if every global reduction of the loop is a lazy one with a buffer (the backend may defer them) */
int um__reductions_all_lazy(const um_loop *loop);
void um__reductions_free(um_context *ctx);
/* a um_arg_reduction argument: the handle is this context's and the argument still says what it was made with */
int um__reduction_check(um_context *ctx, const char *loop, int i, const um_arg *a);
/* Check argument i of loop `loop` over `set` (its dat, map, index, dim, type and
 * access); the message names the loop and the argument (args.c). */
int um__check_arg(um_context *ctx, const char *loop, const um_set *set, int i, const um_arg *a);
/* um_arg_minus: each declaration's partner present, INC, undeclared; the arg an INC through one map index, floating point */
int um__check_minus(um_context *ctx, const char *loop, int nargs, const um_arg *args);
/* A declared name: 1 .. UM_MAX_NAME printable bytes (what: "set", "loop", ...). */
int um__check_name(um_context *ctx, const char *what, const char *name);
/* A kernel's name: as um__check_name, and a C identifier where the kernel has source (compiled code calls it). */
int um__check_kernel_name(um_context *ctx, const um_kernel *k);
int um__check_aliases(um_context *ctx, const char *loop, int nargs, const um_arg *args);
/* The partner of args[i]'s um_arg_minus declaration: the arg of the same dat and map at index minus - 1, or -1 */
int um__minus_partner(const um_arg *args, int nargs, int i);
/* Useful bytes of one call of a loop (GUIDE.md's convention). */
double um__useful_bytes(const um_loop *loop);
/* A loop record's useful bytes per call, counted at the first time they are asked for (statistics, split auto). */
double um__loop_rec_bytes(um_loop_rec *r);
/* Find or add the record of the loop of that name (NULL: out of memory). */
um_loop_rec *um__loop_record(um_context *ctx, const char *name);
/* Component c of dim values of type t at p as a double (0 for int: the divergence checks of eager globals
 * in loop.c and of lazy reductions in reduction.c look at floating-point values only). */
static inline double um__gbl_value(const void *p, um_type t, int c) {
  return t == UM_DOUBLE ? ((const double *)p)[c] : t == UM_FLOAT ? (double)((const float *)p)[c] : 0.0;
}
/* A loop's strategy, block size and split mode: its record's (run.tune's choice, a per-loop setting) where it
 * has one, else the context's. The one rule for prepare (loop.c), run.tune's trials and the split decision. */
static inline um_strategy um__rec_strategy(const um_context *ctx, const um_loop_rec *rec) {
  return rec->strategy != UM_STRATEGY_AUTO ? rec->strategy : ctx->strategy;
}
/* The strategy a call of the loop runs with: its own (loop->strategy, resolved), but where the backend's atomics
 * take vector increments only (um_backend_caps.atomics_vec_only), a loop that writes through maps per
 * index, or any under run.reproducible, runs atomics by its colours. Increments to a whole dat keep theirs. What
 * prepare (loop.c) runs and the loop statistics' strategy say. */
static inline um_strategy um__strategy_run(const um_context *ctx, const um_loop *loop) {
  if (loop->strategy != UM_STRATEGY_ATOMICS || !ctx->backend->caps.atomics_vec_only || !loop->has_conflicts ||
      loop->one_to_one || loop->has_whole_inc)
    return loop->strategy;
  return um_loop_vec_incs_only(loop) && !ctx->reproducible ? UM_STRATEGY_ATOMICS : UM_STRATEGY_COLOURED;
}
/* The strategy a call of the loop reports it ran with (um_loop_stats.strategy) when it ran with s: UM_STRATEGY_AUTO
 * where nothing it writes through a map can meet (no conflicts, one-to-one columns), else s. */
static inline um_strategy um__strategy_reported(const um_loop *loop, um_strategy s) {
  return loop->has_conflicts && !loop->one_to_one ? s : UM_STRATEGY_AUTO;
}
static inline int um__rec_block_size(const um_context *ctx, const um_loop_rec *rec) {
  return rec->block_size > 0 ? rec->block_size : ctx->opts.block_size;
}
static inline um_split um__rec_split(const um_context *ctx, const um_loop_rec *rec) {
  return rec->split ? (um_split)(rec->split - 1) : ctx->split;
}

/* Checkpoints (io/checkpoint.c): what a loop call, a fetch or an update does to the dats, recorded once
 * um_checkpoint_mark started the steps (a no-op before, and while ctx->ck_quiet). */
void um__ck_loop(um_context *ctx, const struct um_loop *loop);
static inline void um__ck_read(um_context *ctx, const um_dat *d) {
  if (ctx->ck_tracking && !ctx->ck_quiet && !d->ck_first) ((um_dat *)d)->ck_first = 1;
}
static inline void um__ck_overwrite(um_context *ctx, um_dat *d) {
  if (!ctx->ck_tracking || ctx->ck_quiet) return;
  if (!d->ck_first) d->ck_first = 2;
  d->ck_written = 1;
}

/* The registry (core/registry.c): find a backend by name among the built-in
 * ones and the context's extra ones; NULL if none. */
const um_backend_def *um__backend_find(const char *name, const um_options *o);
/* The available backend of highest priority among built-in and extra ones. */
const um_backend_def *um__backend_best(const um_options *o);
/* 1 if name is a backend this build knows but was built without. */
int um__backend_missing(const char *name);
/* Why name is unknown or unavailable (for messages). */
int um__backend_status(const char *name, const um_options *o, char *why, size_t n);
/* The environment variable of a backend's setting: "cuda.dump" -> UM_CUDA_DUMP, into env (n bytes). */
void um__backend_env_name(const char *full, char *env, size_t n);
/* The settings of b that its environment variables give (o sets none of them: o's value comes first), each
 * checked against its declaration as a config value is: UM_SUCCESS, or UM_ERR_ARG naming the variable in err. */
int um__backend_env_check(const um_backend_def *b, const um_options *o, char *err, size_t len);

#endif
