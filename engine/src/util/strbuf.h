/* A growable string built by printf-style appends: the code generators' buffer
 * (the CUDA backend's kernels, the compiled host loops). On out of memory it
 * stops growing and sets oom; the caller checks once at the end. */
#ifndef UM_UTIL_STRBUF_H
#define UM_UTIL_STRBUF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char *s;
  size_t len, cap;
  int oom;
} um_strbuf;

void um_strbuf_printf(um_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void um_strbuf_free(um_strbuf *b);

#ifdef __cplusplus
}
#endif
#endif
