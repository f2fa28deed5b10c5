/* The fuzzer's input as the file the reader under test opens (the harnesses that read by path). */
#ifndef UM_FUZZ_FILE_H
#define UM_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>

/* 0, or -1 when the file cannot be created (the harness then skips the input) */
static inline int fuzz_write_file(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  fwrite(data, 1, size, f);
  fclose(f);
  return 0;
}

#endif
