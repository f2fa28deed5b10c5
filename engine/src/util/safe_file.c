/* Writing output files safely (see safe_file.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the table of live temporaries (reached from the signal handler) ---------- */
#define SLOTS 64
#define SLOT_PATH 4096
static char slot_path[SLOTS][SLOT_PATH];
static atomic_int slot_used[SLOTS]; /* 0 free, 1 being filled, 2 live */

static int slot_take(const char *tmp) {
  size_t n = strlen(tmp);
  if (n >= SLOT_PATH) return -1; /* not listed: removed on failure, not on a signal */
  for (int i = 0; i < SLOTS; i++) {
    int expect = 0;
    if (atomic_compare_exchange_strong(&slot_used[i], &expect, 1)) {
      memcpy(slot_path[i], tmp, n + 1);
      atomic_store(&slot_used[i], 2);
      return i;
    }
  }
  return -1;
}

static void slot_free(int i) {
  if (i >= 0 && i < SLOTS) atomic_store(&slot_used[i], 0);
}

int um_safe_live_count(void) {
  int n = 0;
  for (int i = 0; i < SLOTS; i++) n += atomic_load(&slot_used[i]) == 2;
  return n;
}

/* Async-signal-safe: unlink, sigaction and raise only. */
static void on_signal(int sig) {
  for (int i = 0; i < SLOTS; i++)
    if (atomic_load(&slot_used[i]) == 2) unlink(slot_path[i]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
  raise(sig);
}

void um_safe_cleanup_on_signals(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
    struct sigaction old;
    if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue; /* nohup: stay ignored */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NODEFER;
    sigaction(sigs[k], &sa, NULL);
  }
}

/* ---- messages ------------------------------------------------------------------ */
const char *um_safe_why(int eno) {
  switch (eno) {
  case ENOSPC: return "the disk is full; free space or write elsewhere";
#ifdef EDQUOT
  case EDQUOT: return "the disk quota is exhausted; free space or write elsewhere";
#endif
  case EFBIG: return "the file is too large for this file system or the process's file size limit (ulimit -f)";
  case EACCES:
  case EPERM: return "permission denied; make the folder writable or write elsewhere";
  case EROFS: return "the file system is read-only; write elsewhere";
  case ENOENT: return "the folder does not exist; create it or fix the path";
  case ENOTDIR: return "a part of the path is a file, not a folder; fix the path";
  case EISDIR: return "the path is a folder; give a file name";
  case ENAMETOOLONG: return "the path is too long";
  case EIO: return "an input/output error of the device";
  default: return "see the system's message";
  }
}

static void fail(char *err, size_t errlen, const char *what, const char *path, int eno) {
  if (err && errlen) snprintf(err, errlen, "cannot write '%s': %s: %s (%s)", path, what, strerror(eno), um_safe_why(eno));
}

static void release(um_safe_file *sf) {
  slot_free(sf->slot);
  sf->slot = -1;
  free(sf->path);
  free(sf->tmp);
  sf->path = sf->tmp = NULL;
  sf->f = NULL;
}

static int open_tmp(um_safe_file *sf, const char *path, int keep_open, char *err, size_t errlen) {
  memset(sf, 0, sizeof *sf);
  sf->slot = -1;
  if (!path || !*path) {
    if (err && errlen) snprintf(err, errlen, "cannot write a file: no path given");
    return -1;
  }
  size_t n = strlen(path);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    fail(err, errlen, "it is a folder", path, EISDIR);
    return -1;
  }
  sf->path = malloc(n + 1);
  sf->tmp = malloc(n + 12);
  if (!sf->path || !sf->tmp) {
    release(sf);
    fail(err, errlen, "allocating its name", path, ENOMEM);
    return -1;
  }
  memcpy(sf->path, path, n + 1);
  memcpy(sf->tmp, path, n);
  memcpy(sf->tmp + n, ".tmp.XXXXXX", 12);
  int fd = mkstemp(sf->tmp);
  if (fd < 0) {
    int e = errno;
    release(sf);
    fail(err, errlen, "creating a temporary file beside it failed", path, e);
    return -1;
  }
  fchmod(fd, 0644); /* mkstemp makes 0600; outputs are ordinary files */
  sf->slot = slot_take(sf->tmp);
  if (!keep_open) {
    close(fd);
    return 0;
  }
  sf->f = fdopen(fd, "w");
  if (!sf->f) {
    int e = errno;
    close(fd);
    unlink(sf->tmp);
    release(sf);
    fail(err, errlen, "opening its temporary file failed", path, e);
    return -1;
  }
  return 0;
}

int um_safe_open(um_safe_file *sf, const char *path, char *err, size_t errlen) {
  return open_tmp(sf, path, 1, err, errlen);
}

int um_safe_open_name(um_safe_file *sf, const char *path, char *err, size_t errlen) {
  return open_tmp(sf, path, 0, err, errlen);
}

int um_safe_commit(um_safe_file *sf, char *err, size_t errlen) {
  if (!sf->tmp) {
    if (err && errlen) snprintf(err, errlen, "um_safe_commit: no file open");
    return -1;
  }
  int e = 0;
  const char *what = NULL;
  if (sf->f) {
    if (fflush(sf->f) != 0 || ferror(sf->f)) {
      e = errno ? errno : EIO;
      what = "writing it failed";
    } else if (fsync(fileno(sf->f)) != 0 && errno != EINVAL && errno != EROFS) {
      e = errno;
      what = "flushing it to the disk failed";
    }
    if (fclose(sf->f) != 0 && !what) {
      e = errno;
      what = "closing it failed";
    }
    sf->f = NULL;
  }
  if (!what && rename(sf->tmp, sf->path) != 0) {
    e = errno;
    what = "renaming its temporary file into place failed";
  }
  if (what) {
    unlink(sf->tmp);
    fail(err, errlen, what, sf->path, e);
    release(sf);
    return -1;
  }
  release(sf);
  return 0;
}

void um_safe_abort(um_safe_file *sf) {
  if (!sf) return;
  if (sf->f) fclose(sf->f);
  sf->f = NULL;
  if (sf->tmp) unlink(sf->tmp);
  release(sf);
}

/* ---- appends ---------------------------------------------------------------------- */
static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (k == 0) {
      errno = EIO;
      return -1;
    }
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

int um_safe_append(const char *path, const char *header, const void *data, size_t n, char *err, size_t errlen) {
  if (!path || !*path) {
    if (err && errlen) snprintf(err, errlen, "cannot append to a file: no path given");
    return -1;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) {
    fail(err, errlen, "opening it to append failed", path, errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = errno ? errno : EISDIR;
    close(fd);
    fail(err, errlen, "it is not a regular file", path, S_ISDIR(st.st_mode) ? EISDIR : e);
    return -1;
  }
  const off_t old = st.st_size;
  int bad = 0, e = 0;
  if (old == 0 && header && *header && write_all(fd, header, strlen(header)) != 0) bad = 1, e = errno;
  if (!bad && n && write_all(fd, (const char *)data, n) != 0) bad = 1, e = errno;
  if (!bad && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) bad = 1, e = errno;
  if (bad && ftruncate(fd, old) != 0) { /* the rows that did get in are taken back */
  }
  if (close(fd) != 0 && !bad) bad = 1, e = errno;
  if (bad) {
    fail(err, errlen, "appending failed (the file was left as it was)", path, e);
    return -1;
  }
  return 0;
}
