/* Growable arrays: one helper for every "append, doubling the capacity" in the tree. */
#ifndef UM_UTIL_ARRAY_H
#define UM_UTIL_ARRAY_H

#include <stddef.h>
#include <stdlib.h>

/* Make room for element n of *arr (capacity *cap elements of elem bytes), doubling
 * from `first`. Returns 0, or -1 when out of memory (then *arr is unchanged). */
static inline int um__grow(void **arr, int *cap, int n, size_t elem, int first) {
  if (n < *cap) return 0;
  int nc = *cap > 0 ? *cap : (first > 0 ? first : 16);
  while (nc <= n) {
    if (nc > (1 << 29)) return -1;
    nc *= 2;
  }
  void *p = realloc(*arr, (size_t)nc * elem);
  if (!p) return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

/* UM_GROW(arr, cap, n): room for arr[n]; 0 on success, -1 when out of memory. */
#define UM_GROW(arr, cap, n) um__grow((void **)&(arr), &(cap), (n), sizeof *(arr), 16)

#endif
