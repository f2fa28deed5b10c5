/* Error recording: one message per context, with the trail of UM_CHECKs. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static const char *const error_names[] = {
    "UM_SUCCESS", "UM_ERR_ARG",        "UM_ERR_ALLOC",   "UM_ERR_IO",   "UM_ERR_CONFIG",
    "UM_ERR_UNSUPPORTED", "UM_ERR_BACKEND", "UM_ERR_VALIDATION", "UM_ERR_PLAN", "UM_ERR_INTERNAL",
    "UM_ERR_DIVERGED", "UM_ERR_STOPPED"};

const char *um_error_name(int code) {
  if (code < 0 || code >= (int)(sizeof error_names / sizeof error_names[0])) return "UM_ERR_UNKNOWN";
  return error_names[code];
}

static const char *basename_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

int um_backend_verror(um_context *ctx, int code, const char *file, int line, const char *fmt, va_list ap) {
  if (!ctx) return code;
  int n = vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
  if (n < 0) n = 0;
  if ((size_t)n < sizeof ctx->errmsg)
    snprintf(ctx->errmsg + n, sizeof ctx->errmsg - (size_t)n, "\n  [%s, %s:%d]", um_error_name(code),
             basename_of(file), line);
  return code;
}

int um_backend_error(um_context *ctx, int code, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  um_backend_verror(ctx, code, file, line, fmt, ap);
  va_end(ap);
  return code;
}

int um_error_set(um_context *ctx, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (ctx) vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
  va_end(ap);
  return code;
}

void um_backend_log(um_context *ctx, um_log_level level, const char *fmt, ...) {
  if (!ctx || !ctx->opts.log || (int)level > (level == UM_LOG_WARNING ? 0 : ctx->opts.verbose)) return;
  char msg[2048], *big = NULL; /* a longer text (NVRTC's log with the numbered source, cuda.dump) whole, allocated */
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  const int n = vsnprintf(msg, sizeof msg, fmt, ap);
  if (n >= (int)sizeof msg && (big = malloc((size_t)n + 1)) != NULL) vsnprintf(big, (size_t)n + 1, fmt, again);
  va_end(again);
  va_end(ap);
  ctx->opts.log(ctx->opts.log_user, level, big ? big : msg);
  free(big);
}

int um_backend_trace(um_context *ctx, int code, const char *file, int line) {
  if (!ctx) return code;
  size_t n = strlen(ctx->errmsg);
  if (n + 64 < sizeof ctx->errmsg)
    snprintf(ctx->errmsg + n, sizeof ctx->errmsg - n, " <- %s:%d", basename_of(file), line);
  return code;
}

const char *um_error_message(const um_context *ctx) { return ctx ? ctx->errmsg : ""; }
void um_error_clear(um_context *ctx) {
  if (ctx) ctx->errmsg[0] = '\0';
}

int um_format_error(char *err, size_t errlen, int code, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}
