/** @file um/loop.h
 * Kernels and parallel loops: um_par_loop, per-loop settings, waiting for the device.
 * Part of the public API: include um/um.h. */
#ifndef UM_LOOP_H
#define UM_LOOP_H

#include "um/args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- kernels -------------------------------------------------------------- */
struct um_exec;
/** Describes one user kernel: produced by UM_KERNEL_DEFINE in um/kernel.h. */
typedef struct um_kernel {
  const char *name;     /**< function name in the kernel header          */
  int nargs;            /**< number of pointer parameters                */
  /** Host entry: runs elements [begin, end) of the iteration set,
   * with arguments resolved by the engine (see um/exec.h). NULL for a kernel
   * declared from source alone (um_decl_kernel): host backends then always run
   * the loop's range compiled from `source` (whatever hostc.compile says), the
   * CUDA backend compiles it with NVRTC as it does every kernel. */
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
 * pass to um_par_loop. UM_ERR_ARG without a name, without both a range function
 * and a source, or nargs outside 1..UM_MAX_ARGS (48).
 *
 * A kernel from source alone (range NULL; source: a kernel header's text, with
 * `#include "um/kernel.h"`, defining the UM_KERNEL function `name`; the Python
 * package's kernels): host backends compile each loop's range for its arguments
 * before its first call (the compiler's message in the loop's error when it
 * fails, UM_ERR_BACKEND), vector and whole-dat arguments included; the CUDA backend
 * compiles it with NVRTC. Backends that compile neither host code nor source refuse such a
 * kernel here (UM_ERR_UNSUPPORTED). */
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

/** Per-loop block size, 1 .. UM_MAX_BLOCK_SIZE (0 keeps the context's). */
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
/** The host bytes of this rank's mesh: every map's rows and every dat's allocated rows (halos included). */
double um_context_mesh_bytes(const um_context *ctx);

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
