/* A growable string (strbuf.h). */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void um_strbuf_printf(um_strbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    size_t room = b->cap - b->len;
    va_list ap;
    va_start(ap, fmt);
    int n = b->s ? vsnprintf(b->s + b->len, room, fmt, ap) : -2;
    va_end(ap);
    if (n >= 0 && (size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    size_t need = b->len + (n > 0 ? (size_t)n : 0) + 1, cap = b->cap ? b->cap : 4096;
    while (cap < need) cap *= 2;
    if (cap == b->cap) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->oom = 1;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
}

void um_strbuf_free(um_strbuf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}
