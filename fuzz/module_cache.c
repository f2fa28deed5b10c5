/* Fuzz the CUDA module cache's entry reader (engine/src/backends/cuda/module_cache.c, CUDA-free): any bytes as an
 * entry give a hit (the image the header claims, checked) or a miss, never a crash, a hang, a leak or an
 * allocation of what a header merely claims; and any bytes as an image written as an entry read back the same. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/cuda/module_cache.h"
#include "fuzz_file.h"

static const char key[] = "um-cuda-jit 1; fuzz"; /* the seeds' key (fuzz/corpus/module_cache) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[96];
  snprintf(path, sizeof path, "/tmp/um_fuzz_module_%ld.cubin", (long)getpid());
  if (fuzz_write_file(path, data, size)) return 0;
  void *img = NULL;
  size_t n = 0;
  const int rc = umj_cache_read(path, key, sizeof key, &img, &n);
  if (rc == 1 && (n == 0 || n > size || ((const char *)img)[n] != '\0' || memcmp(img, data + size - n, n) != 0))
    abort(); /* a hit is the file's last n bytes */
  if (rc != 1 && img) abort();
  free(img);
  unlink(path);
  if (size && umj_cache_write(path, key, sizeof key, data, size) == 0) {
    if (umj_cache_read(path, key, sizeof key, &img, &n) != 1 || n != size || memcmp(img, data, size) != 0) abort();
    free(img);
  }
  unlink(path);
  return 0;
}
