/** @file um/context.h
 * A context: creating and freeing it, its errors, what it runs on, and the registry of backends.
 * Part of the public API: include um/um.h. */
#ifndef UM_CONTEXT_H
#define UM_CONTEXT_H

#include "um/options.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/** Threads for the host's own passes over whole sets (mesh generation, plan inputs, layout transposes: the
 * set-up): run.threads when set, else OpenMP's default shared among the ranks of the run (at least 1; 1 without
 * OpenMP). The passes that use it give the same result for any count. */
int um_context_host_threads(const um_context *ctx);
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
/** The backend's setting i: key (without the "<backend>." prefix), default ("" for none),
 * allowed values ("a|b|c", or NULL for any) and help text. Any out pointer may be NULL.
 * The declarations themselves (type, choices, help) are listed by um_option_count / um_option_at
 * (component: the backend's name). */
int um_backend_option_at(const char *backend, int i, const char **key, const char **def, const char **choices,
                         const char **help);

#ifdef __cplusplus
}
#endif
#endif
