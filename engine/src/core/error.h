/* Errors inside the engine: stored in the context with a file:line trail. The functions and macros
 * are um/backend.h's (UM_BACKEND_ERROR, UM_BACKEND_CHECK); the core calls them by their short names. */
#ifndef UM_CORE_ERROR_H
#define UM_CORE_ERROR_H

#include <stdarg.h>
#include <stdio.h>
#include "um/backend.h"
#include "um/um.h"

#define UM_ERROR UM_BACKEND_ERROR
#define UM_CHECK UM_BACKEND_CHECK

/* An API function's first check: a context, and one whose um_init succeeded (a failed one is returned only so
 * that its message can be read; using it would reach a backend it does not have). */
int um__ctx_failed(struct um_context *ctx);
#define UM_CTX_OK(ctx)                             \
  do {                                             \
    if (!(ctx)) return UM_ERR_ARG;                 \
    if (um__ctx_init_failed(ctx)) return um__ctx_failed(ctx); \
  } while (0)
int um__ctx_init_failed(const struct um_context *ctx);

/* Messages for the person running go through um_backend_log (um/backend.h). */

#endif
