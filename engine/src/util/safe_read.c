/* Reading input files safely (see safe_file.h: um_read_check, um_read_open, um_read_all): regular files only, never
 * blocking on a FIFO, within a size bound. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "um/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *um__file_kind(mode_t m); /* safe_file.c */

/* ---- reading ------------------------------------------------------------------------ */
static int read_fd(const char *path, unsigned long long max_bytes, unsigned long long *size, char *err, size_t errlen) {
  if (!path || !*path) {
    if (err && errlen) snprintf(err, errlen, "no path given");
    errno = EINVAL;
    return -1;
  }
  /* non-blocking: opening a FIFO must not wait for a writer */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (err && errlen) snprintf(err, errlen, "%s", strerror(e));
    errno = e;
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    if (err && errlen) snprintf(err, errlen, "%s", strerror(e));
    errno = e;
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    if (err && errlen)
      snprintf(err, errlen, "it is %s, not a regular file; um reads inputs from regular files only",
               um__file_kind(st.st_mode));
    errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    return -1;
  }
  if (max_bytes && (unsigned long long)st.st_size > max_bytes) {
    close(fd);
    if (err && errlen)
      snprintf(err, errlen, "it holds %llu bytes, more than the %llu such a file may hold",
               (unsigned long long)st.st_size, max_bytes);
    errno = EFBIG;
    return -1;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    int e = errno;
    close(fd);
    if (err && errlen) snprintf(err, errlen, "%s", strerror(e));
    errno = e;
    return -1;
  }
  if (size) *size = (unsigned long long)st.st_size;
  return fd;
}

FILE *um_read_open(const char *path, unsigned long long max_bytes, unsigned long long *size, char *err, size_t errlen) {
  int fd = read_fd(path, max_bytes, size, err, errlen);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    int e = errno;
    close(fd);
    if (err && errlen) snprintf(err, errlen, "%s", strerror(e));
    errno = e;
  }
  return f;
}

int um_read_check(const char *path, unsigned long long max_bytes, char *err, size_t errlen) {
  int fd = read_fd(path, max_bytes, NULL, err, errlen);
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

char *um_read_all(const char *path, unsigned long long max_bytes, size_t *len, char *err, size_t errlen) {
  unsigned long long size = 0;
  FILE *f = um_read_open(path, max_bytes, &size, err, errlen);
  if (!f) return NULL;
  /* the size fstat gave, and no more: a file that grows while it is read is cut there */
  char *buf = malloc((size_t)size + 1);
  if (!buf) {
    fclose(f);
    if (err && errlen) snprintf(err, errlen, "out of memory (%llu bytes)", size);
    errno = ENOMEM;
    return NULL;
  }
  size_t n = fread(buf, 1, (size_t)size, f);
  const int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    if (err && errlen) snprintf(err, errlen, "a read error");
    errno = EIO;
    return NULL;
  }
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}
