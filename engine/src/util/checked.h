/* Overflow-checked sizes: the one helper through which every size product that
 * comes from a file, a config or an API call goes before it reaches malloc or
 * an offset (engine, driver and apps). Header only, no state. */
#ifndef UM_UTIL_CHECKED_H
#define UM_UTIL_CHECKED_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* *out = a * b; returns 0, or -1 (and *out = SIZE_MAX) when the product does
 * not fit a size_t. */
static inline int um_size_mul(size_t a, size_t b, size_t *out) {
  if (a != 0 && b > SIZE_MAX / a) {
    *out = SIZE_MAX;
    return -1;
  }
  *out = a * b;
  return 0;
}

/* *out = a * b * c (e.g. rows * dim * sizeof(type)); 0 or -1 as um_size_mul. */
static inline int um_size_mul3(size_t a, size_t b, size_t c, size_t *out) {
  size_t ab;
  if (um_size_mul(a, b, &ab)) {
    *out = SIZE_MAX;
    return -1;
  }
  return um_size_mul(ab, c, out);
}

/* *out = a + b; 0 or -1 as um_size_mul. */
static inline int um_size_add(size_t a, size_t b, size_t *out) {
  if (b > SIZE_MAX - a) {
    *out = SIZE_MAX;
    return -1;
  }
  *out = a + b;
  return 0;
}

/* malloc(n * size) with the product checked (NULL when it overflows); n = 0 allocates one
 * element, so a NULL return always means failure. */
static inline void *um_array_alloc(size_t n, size_t size) {
  size_t b;
  if (um_size_mul(n ? n : 1, size, &b)) return NULL;
  return malloc(b);
}

#endif
