/* The CUDA backend's disk cache of compiled modules (see module_cache.h).
 *
 * Entry (one file per key, named by jit.c from a 128-bit hash of the key):
 *   "UMJIT001" | u64 key bytes | u64 image bytes | u64 FNV-1a of the image | key | image   (little-endian)
 * The key is the whole input of the compilation. A file whose sizes, key or checksum do not match is corrupt or
 * stale: the caller replaces it by a fresh compilation, never trusts it. The file is opened as a cache file
 * (util/cache_dir.h: non-blocking, no link followed, a regular file of the user's own, writable by nobody else, of
 * bounded size), and the sizes its header claims must be the file's before anything is allocated. */
#include "module_cache.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../util/cache_dir.h"
#include "../../util/hash.h"
#include "um/safe_file.h"

#define MAGIC "UMJIT001"
#define HEADER 32

static uint64_t rd64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static void wr64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++, v >>= 8) p[i] = (unsigned char)(v & 0xff);
}

static int read_all(int fd, unsigned char *p, size_t n) {
  while (n) {
    const ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r, n -= (size_t)r;
  }
  return 0;
}

int umj_cache_read(const char *path, const void *key, size_t klen, void **image, size_t *bytes) {
  *image = NULL;
  *bytes = 0;
  unsigned long long size = 0;
  const int fd = um_cache_open_read(path, HEADER + klen + UMJ_CACHE_IMAGE_MAX, &size, NULL, 0);
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  int rc = -1;
  unsigned char hdr[HEADER], *kb = NULL, *img = NULL, extra;
  if (size < HEADER || read_all(fd, hdr, HEADER) != 0 || memcmp(hdr, MAGIC, 8) != 0) goto done;
  const uint64_t kl = rd64(hdr + 8), il = rd64(hdr + 16), sum = rd64(hdr + 24);
  /* the sizes the header claims must be the file's: nothing is allocated for bytes that are not there */
  if (kl != klen || il == 0 || il > UMJ_CACHE_IMAGE_MAX || size != HEADER + kl + il) goto done;
  kb = malloc(klen ? klen : 1);
  img = malloc((size_t)il + 1);
  if (!kb || !img || read_all(fd, kb, klen) != 0 || (klen && memcmp(kb, key, klen) != 0)) goto done;
  if (read_all(fd, img, (size_t)il) != 0 || read(fd, &extra, 1) != 0) goto done; /* (bytes past the claim) */
  if (um_fnv1a(UM_FNV_OFFSET, img, (size_t)il) != sum) goto done;
  img[il] = '\0';
  *image = img;
  *bytes = (size_t)il;
  img = NULL;
  rc = 1;
done:
  close(fd);
  free(kb);
  free(img);
  return rc;
}

int umj_cache_write(const char *path, const void *key, size_t klen, const void *image, size_t bytes) {
  struct stat st;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && unlink(path) != 0) return -1; /* a link itself, not its target */
  um_safe_file sf;
  if (um_safe_open(&sf, path, NULL, 0) != 0) return -1;
  if (sf.in_place) { /* (something that is not a file appeared meanwhile) */
    um_safe_abort(&sf);
    return -1;
  }
  unsigned char hdr[HEADER];
  memcpy(hdr, MAGIC, 8);
  wr64(hdr + 8, klen);
  wr64(hdr + 16, bytes);
  wr64(hdr + 24, um_fnv1a(UM_FNV_OFFSET, image, bytes));
  const int ok = fwrite(hdr, 1, HEADER, sf.f) == HEADER && fwrite(key, 1, klen, sf.f) == klen &&
                 fwrite(image, 1, bytes, sf.f) == bytes;
  if (!ok) {
    um_safe_abort(&sf);
    return -1;
  }
  return um_safe_commit(&sf, NULL, 0);
}
