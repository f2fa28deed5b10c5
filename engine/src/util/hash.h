/* 64-bit FNV-1a: the one hash of the tree (plan cache keys, map fingerprints in
 * reorder files, JIT cache file names). */
#ifndef UM_UTIL_HASH_H
#define UM_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define UM_FNV_OFFSET 14695981039346656037ULL /* 0xcbf29ce484222325 */
#define UM_FNV_PRIME 1099511628211ULL         /* 0x100000001b3 */

/* Continue hash h over n bytes (start with h = UM_FNV_OFFSET). */
static inline uint64_t um_fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= UM_FNV_PRIME;
  }
  return h;
}

#endif
