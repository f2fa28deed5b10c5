/* The code caches' trust boundary (see cache_dir.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "cache_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void um__remove_dir_at(int parent, const char *name, int depth); /* safe_file.c */

static int say(char *why, size_t n, const char *fmt, ...) {
  if (why && n) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* mkdir -p with 0700 for the folders made here. */
static int make_private(const char *dir, char *why, size_t n) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
    return say(why, n, "the path '%.200s...' is longer than the system allows", dir);
  for (char *p = buf + 1;; p++)
    if (*p == '/' || !*p) {
      const char c = *p;
      *p = '\0';
      if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
        if (why && n) snprintf(why, n, "cannot make the folder '%s': %s", buf, strerror(errno));
        return -1;
      }
      if (!(*p = c)) break;
    }
  return 0;
}

/* A folder above the cache: owned by the user or root; writable by others (or a group not the user's own)
 * only with the sticky bit (/tmp), where nobody can rename or replace what others own. */
static int ancestor_ok(const char *path, const struct stat *st, char *why, size_t n) {
  const uid_t me = geteuid();
  if (st->st_uid != me && st->st_uid != 0)
    return say(why, n, "the folder '%s' above it belongs to another user (anyone who owns a folder above the "
                       "cache can replace the cache)", path);
  const int sticky = (st->st_mode & S_ISVTX) != 0;
  const int group_w = (st->st_mode & S_IWGRP) && st->st_gid != getegid();
  if (!sticky && ((st->st_mode & S_IWOTH) || group_w))
    return say(why, n, "the folder '%s' above it is writable by group or others (mode 0%o) and not sticky", path,
               (unsigned)(st->st_mode & 07777));
  return 0;
}

int um_cache_dir_ready(const char *dir, char *why, size_t n) {
  if (!dir || !*dir) return say(why, n, "no cache folder");
  if (make_private(dir, why, n) != 0) return -1;
  struct stat st;
  if (lstat(dir, &st) != 0) {
    if (why && n) snprintf(why, n, "the cache folder '%s': %s", dir, strerror(errno));
    return -1;
  }
  if (S_ISLNK(st.st_mode))
    return say(why, n, "the cache folder '%s' is a symbolic link; name the folder itself", dir);
  if (!S_ISDIR(st.st_mode)) return say(why, n, "the cache folder '%s' is not a folder", dir);
  if (st.st_uid != geteuid())
    return say(why, n, "the cache folder '%s' belongs to another user: um loads compiled code only from a folder "
                       "of the user who runs it", dir);
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return say(why, n, "the cache folder '%s' is writable by group or others (mode 0%o): chmod go-w it, or name "
                       "a private folder", dir, (unsigned)(st.st_mode & 07777));
  char real[PATH_MAX];
  if (!realpath(dir, real)) {
    if (why && n) snprintf(why, n, "the cache folder '%s': %s", dir, strerror(errno));
    return -1;
  }
  for (char *slash = strrchr(real, '/'); slash; slash = strrchr(real, '/')) {
    *slash = '\0'; /* up one folder */
    const char *above = real[0] ? real : "/";
    if (stat(above, &st) != 0) break;
    if (ancestor_ok(above, &st, why, n) != 0) {
      if (why && n) { /* name the cache too */
        char tail[256];
        snprintf(tail, sizeof tail, " (cache '%.200s')", dir);
        strncat(why, tail, n - strlen(why) - 1);
      }
      return -1;
    }
    if (!real[0]) break;
  }
  return 0;
}

int um_cache_open_read(const char *path, unsigned long long max_bytes, unsigned long long *size, char *why,
                       size_t n) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP) say(why, n, "'%s' is a symbolic link (cache files are never read through links)", path);
    else if (why && n) snprintf(why, n, "'%s': %s", path, strerror(e));
    errno = e;
    return -1;
  }
  struct stat st;
  const char *bad = NULL;
  if (fstat(fd, &st) != 0) bad = "cannot be examined";
  else if (!S_ISREG(st.st_mode)) bad = "is not a regular file";
  else if (st.st_uid != geteuid()) bad = "belongs to another user";
  else if (st.st_mode & (S_IWGRP | S_IWOTH)) bad = "is writable by group or others";
  else if (max_bytes && (unsigned long long)st.st_size > max_bytes) bad = "is larger than such a file may be";
  if (bad) {
    close(fd);
    if (why && n) snprintf(why, n, "'%s' %s", path, bad);
    errno = EPERM;
    return -1;
  }
  const int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  if (size) *size = (unsigned long long)st.st_size;
  return fd;
}

int um_cache_create(const char *path, char *why, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int e = errno;
    if (why && n) snprintf(why, n, "cannot create '%s': %s", path, strerror(e));
    errno = e;
  }
  return fd;
}

void um_cache_remove_tree(const char *dir, int depth) {
  struct stat st;
  if (!dir || !*dir || lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) return;
  um__remove_dir_at(AT_FDCWD, dir, depth);
}

int um_cache_pid_dead(long pid) { return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }
