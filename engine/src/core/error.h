/* Errors inside the engine: stored in the context with a file:line trail. */
#ifndef UM_CORE_ERROR_H
#define UM_CORE_ERROR_H

#include <stdarg.h>
#include <stdio.h>
#include "um/um.h"

#define UM_ERRMSG_LEN 4096

/* Record an error (message formatted from fmt) and return code. */
int um__error(um_context *ctx, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
int um__verror(um_context *ctx, int code, const char *file, int line, const char *fmt, va_list ap);
/* Append " <- file:line" to the stored message and return code: used by UM_CHECK. */
int um__trace(um_context *ctx, int code, const char *file, int line);

#define UM_ERROR(ctx, code, ...) um__error((ctx), (code), __FILE__, __LINE__, __VA_ARGS__)
/* Propagate a failing call's error code, recording where it passed. */
#define UM_CHECK(ctx, call)                                                        \
  do {                                                                             \
    int um__rc = (call);                                                           \
    if (um__rc != UM_SUCCESS) return um__trace((ctx), um__rc, __FILE__, __LINE__); \
  } while (0)

/* Messages for the person running go through um_backend_log (um/backend.h). */

#endif
