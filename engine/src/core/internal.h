/* Everything the engine's core sources share (not installed): errors, object
 * layouts, the backend interface and core-private helpers. */
#ifndef UM_INTERNAL_H
#define UM_INTERNAL_H

#include "error.h"
#include "objects.h"

/* Resolve AUTO layouts for the dats of a loop and convert storage if needed. */
int um__resolve_layouts(um_context *ctx, const um_loop *loop);
int um__dat_convert(um_context *ctx, um_dat *d, um_layout to);
/* Make the host copy of d current (asks the backend if it holds newer values). */
int um__dat_to_host(um_context *ctx, um_dat *d);
/* The host copy of d changed: other copies are stale. */
void um__dat_host_changed(um_dat *d);
/* dst op= src over dim values (INC: +, MIN, MAX), the one combination rule. */
void um__combine(void *dst, const void *src, int dim, um_type t, um_access acc);
/* Plan for elements [begin, begin + n) of the loop's set with its args, block
 * size and strategy; the plan numbers them from 0 (element begin + i is i). */
int um__get_plan(um_context *ctx, um_loop *loop, int begin, int n, const um_plan **plan);

/* Compiled host loops (hostc.c): set loop->compiled when the loop's range is
 * compiled for its arguments (starting or advancing its compile as the
 * context's compile mode says; loop_seconds: the loop's time so far; memo: the
 * loop record's memo of its module and of the range chosen, kept by hostc.c);
 * um__hostc_timed: the call's time, for choosing between the scalar and SIMD
 * ranges; and free them with the context (a compile still running is stopped). */
int um__hostc_range(um_context *ctx, um_loop *loop, double loop_seconds, um_hostc_memo *memo);
void um__hostc_timed(um_hostc_memo *memo, double seconds);
void um__hostc_free(um_context *ctx);

/* The registry (backends/registry.c): find a backend by name among the built-in
 * ones and the context's extra ones; NULL if none. */
const um_backend_def *um__backend_find(const char *name, const um_options *o);
/* The available backend of highest priority among built-in and extra ones. */
const um_backend_def *um__backend_best(const um_options *o);
/* 1 if name is a backend this build knows but was built without. */
int um__backend_missing(const char *name);
/* Why name is unknown or unavailable (for messages). */
int um__backend_status(const char *name, const um_options *o, char *why, size_t n);

#endif
