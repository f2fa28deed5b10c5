/* The host compiler's cache files (see hostc_cache.h).
 *
 * A module in the cache is the compiler's output followed by a 32-byte seal:
 * "umhostc1", the module's key, the size of what precedes the seal and its
 * FNV-1a checksum (little-endian). A loader accepts nothing else: a module cut
 * short by a crash or a full disk, one renamed from another key, or one planted
 * by hand is a miss that is removed and compiled again, never loaded. */
#define _GNU_SOURCE
#include "hostc_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/cache_dir.h"
#include "util/hash.h"
#include "um/safe_file.h"

#define SEAL_MAGIC "umhostc1"
#define SEAL_BYTES 32
#define MODULE_MAX (1ull << 30) /* no module of one loop comes near a GiB */

static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++, v >>= 8) p[i] = (unsigned char)(v & 0xff);
}

static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static int read_all(int fd, unsigned char *p, size_t n) {
  while (n) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r, n -= (size_t)r;
  }
  return 0;
}

static int write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w, n -= (size_t)w;
  }
  return 0;
}

int hcc_verify(const char *so, uint64_t key, char *why, size_t n) {
  unsigned long long size = 0;
  char how[600];
  int fd = um_cache_open_read(so, MODULE_MAX, &size, how, sizeof how);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    snprintf(why, n, "%s", how);
    return -1;
  }
  int rc = -1;
  unsigned char *buf = size > SEAL_BYTES ? malloc((size_t)size) : NULL;
  if (size <= SEAL_BYTES) snprintf(why, n, "'%s' holds %llu bytes: too short to be a module", so, size);
  else if (!buf) snprintf(why, n, "out of memory checking '%s'", so);
  else if (read_all(fd, buf, (size_t)size) != 0) snprintf(why, n, "cannot read '%s': %s", so, strerror(errno));
  else {
    const unsigned char *seal = buf + size - SEAL_BYTES;
    const uint64_t body = size - SEAL_BYTES;
    if (memcmp(seal, SEAL_MAGIC, 8) != 0) snprintf(why, n, "'%s' carries no seal (cut short, or not written by um)", so);
    else if (get64(seal + 8) != key) snprintf(why, n, "'%s' was compiled for another loop (its key differs)", so);
    else if (get64(seal + 16) != body) snprintf(why, n, "'%s' does not have the size its seal records", so);
    else if (get64(seal + 24) != um_fnv1a(UM_FNV_OFFSET, buf, (size_t)body))
      snprintf(why, n, "'%s' does not match its checksum (changed after it was compiled)", so);
    else rc = 1;
  }
  free(buf);
  close(fd);
  return rc;
}

int hcc_seal(const char *so, uint64_t key, char *why, size_t n) {
  int fd = open(so, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (unsigned long long)st.st_size > MODULE_MAX) {
    snprintf(why, n, "cannot seal the compiled module '%s': %s", so, fd < 0 ? strerror(errno) : "not a file");
    if (fd >= 0) close(fd);
    return -1;
  }
  unsigned char *buf = malloc((size_t)st.st_size + 1);
  int ok = buf && read_all(fd, buf, (size_t)st.st_size) == 0;
  unsigned char seal[SEAL_BYTES];
  if (ok) {
    memcpy(seal, SEAL_MAGIC, 8);
    put64(seal + 8, key);
    put64(seal + 16, (uint64_t)st.st_size);
    put64(seal + 24, um_fnv1a(UM_FNV_OFFSET, buf, (size_t)st.st_size));
    ok = lseek(fd, 0, SEEK_END) == st.st_size && write_all(fd, seal, sizeof seal) == 0 && fsync(fd) == 0;
  }
  const int e = errno;
  free(buf);
  ok = (close(fd) == 0) && ok;
  if (!ok) snprintf(why, n, "cannot seal the compiled module '%s': %s", so, um_safe_why(e));
  return ok ? 0 : -1;
}

int hcc_work_dir(const char *cache, char *out, size_t n, char *why, size_t wn) {
  if (snprintf(out, n, "%s/work-%ld-XXXXXX", cache, (long)getpid()) >= (int)n) {
    snprintf(why, wn, "the cache folder's path '%.200s...' is too long", cache);
    return -1;
  }
  if (!mkdtemp(out)) {
    snprintf(why, wn, "cannot make a work folder in %s: %s", cache, strerror(errno));
    return -1;
  }
  return 0;
}

int hcc_write_new(const char *path, const char *text) {
  int fd = um_cache_create(path, NULL, 0);
  if (fd < 0) return -1;
  int ok = write_all(fd, text, strlen(text)) == 0;
  ok = (close(fd) == 0) && ok;
  return ok ? 0 : -1;
}

/* ---- locks ------------------------------------------------------------------ */

/* The lock's owner (PID and host) as written in it; -1: unreadable. */
static long lock_owner(const char *lock, char *host, size_t hn) {
  int fd = um_cache_open_read(lock, 4096, NULL, NULL, 0);
  if (fd < 0) return -1;
  char buf[512];
  ssize_t r = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (r <= 0) return -1;
  buf[r] = '\0';
  long pid = -1;
  char h[256] = "";
  if (sscanf(buf, "%ld %255s", &pid, h) != 2 || pid <= 0) return -1;
  snprintf(host, hn, "%s", h);
  return pid;
}

static void this_host(char *h, size_t n) {
  if (gethostname(h, n) != 0) snprintf(h, n, "?");
  h[n - 1] = '\0';
}

/* 1 the lock is live (its owner runs, or cannot be asked and the lock is recent); 0 stale or gone. */
static int lock_live(const char *lock, char *holder, size_t hn) {
  struct stat st;
  if (lstat(lock, &st) != 0) return 0;
  char host[256] = "", me[256];
  this_host(me, sizeof me);
  const long pid = lock_owner(lock, host, sizeof host);
  if (pid > 0 && !strcmp(host, me)) {
    if (holder) snprintf(holder, hn, "process %ld (lock %s)", pid, lock);
    return !um_cache_pid_dead(pid);
  }
  const double age = difftime(time(NULL), st.st_mtime);
  if (holder && pid > 0) snprintf(holder, hn, "process %ld on %s (lock %s)", pid, host, lock);
  else if (holder) snprintf(holder, hn, "another process (lock %s)", lock);
  return age >= -60 && age < HCC_LOCK_STALE_S;
}

int hcc_lock_held(const char *lock) { return lock_live(lock, NULL, 0); }

int hcc_lock_take(const char *lock, int *slot, int *made, char *holder, size_t hn) {
  *slot = -1;
  *made = 0;
  for (int tries = 0; tries < 3; tries++) {
    int fd = um_cache_create(lock, NULL, 0);
    if (fd >= 0) {
      char me[256], line[320];
      this_host(me, sizeof me);
      snprintf(line, sizeof line, "%ld %s\n", (long)getpid(), me);
      const int ok = write_all(fd, line, strlen(line)) == 0;
      close(fd);
      if (!ok) {
        unlink(lock);
        return 1; /* no lock to honour: compile anyway */
      }
      *slot = um_safe_file_register(lock);
      *made = 1;
      return 1;
    }
    if (errno != EEXIST) return 1;
    if (lock_live(lock, holder, hn)) return 0;
    unlink(lock); /* its process died, or it is too old (or dated in the future) to be anyone's */
  }
  return 1;
}

void hcc_lock_drop(const char *lock, int *slot) {
  um_safe_file_unregister(*slot);
  *slot = -1;
  unlink(lock);
}

/* ---- litter ------------------------------------------------------------------ */

/* "work-<pid>-XXXXXX": the PID of the run that made it. */
static long work_pid(const char *name) {
  char *end;
  long pid = strtol(name + 5, &end, 10);
  return *end == '-' ? pid : -1;
}

void hcc_clean_litter(const char *cache) {
  DIR *d = opendir(cache);
  if (!d) return;
  char path[4096];
  for (struct dirent *de; (de = readdir(d));) {
    const char *nm = de->d_name;
    const size_t len = strlen(nm);
    if (snprintf(path, sizeof path, "%s/%s", cache, nm) >= (int)sizeof path) continue;
    if (!strncmp(nm, "work-", 5) && um_cache_pid_dead(work_pid(nm))) um_cache_remove_tree(path, 2);
    else if (len > 8 && !strcmp(nm + len - 8, ".so.lock") && !strncmp(nm, "host-", 5) && !lock_live(path, NULL, 0)) {
      struct stat st;
      if (lstat(path, &st) == 0 && st.st_uid == geteuid()) unlink(path);
    }
  }
  closedir(d);
}
