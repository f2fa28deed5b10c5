/* The CUDA backend's disk cache of compiled modules: the entry format's reader and writer (module_cache.c). No CUDA
 * here, so they are built in every build and fuzzed (fuzz/module_cache.c); jit.c names the entries and compiles on
 * a miss. */
#ifndef UM_CUDA_MODULE_CACHE_H
#define UM_CUDA_MODULE_CACHE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest module image an entry may hold (no loop's cubin or PTX comes near it). */
#define UMJ_CACHE_IMAGE_MAX (256ull << 20)

/* The entry at path for the key (klen bytes): 1 a hit (*image malloc'ed, NUL-terminated, *bytes its size), 0 no
 * entry, -1 an entry that cannot be used (cut short, stale, corrupt, or not a cache file um trusts: a link, a
 * FIFO, a device, another user's file, one too large); the caller removes it and compiles again. Never blocks,
 * and allocates no more than the key and the image the file really holds. */
int umj_cache_read(const char *path, const void *key, size_t klen, void **image, size_t *bytes);

/* Write the entry (a temporary renamed into place, util/safe_file.h); whatever stands at path that is not a
 * regular file (a planted link) is removed first, never written through. 0, or -1: only a missed speed-up. */
int umj_cache_write(const char *path, const void *key, size_t klen, const void *image, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
