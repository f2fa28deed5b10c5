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
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

/* The seal of the `size` bytes in buf: 1 it is key's and whole; -1 why says what is wrong. */
static int check_seal(const char *so, const unsigned char *buf, unsigned long long size, uint64_t key, char *why,
                      size_t n) {
  const unsigned char *seal = buf + size - SEAL_BYTES;
  const uint64_t body = size - SEAL_BYTES;
  if (memcmp(seal, SEAL_MAGIC, 8) != 0) snprintf(why, n, "'%s' carries no seal (cut short, or not written by um)", so);
  else if (get64(seal + 8) != key) snprintf(why, n, "'%s' was compiled for another loop (its key differs)", so);
  else if (get64(seal + 16) != body) snprintf(why, n, "'%s' does not have the size its seal records", so);
  else if (get64(seal + 24) != um_fnv1a(UM_FNV_OFFSET, buf, (size_t)body))
    snprintf(why, n, "'%s' does not match its checksum (changed after it was compiled)", so);
  else return 1;
  return -1;
}

int hcc_verify(const char *so, uint64_t key, int *fd_out, char *why, size_t n) {
  unsigned long long size = 0;
  char how[600];
  *fd_out = -1;
  /* O_RDONLY | O_NOFOLLOW | O_CLOEXEC, then fstat: a regular file of the user's, writable by nobody else */
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
  else rc = check_seal(so, buf, size, key, why, n);
  free(buf);
  if (rc == 1) *fd_out = fd; /* these bytes, and no others, are what hcc_dlopen loads */
  else close(fd);
  return rc;
}

/* The descriptor's own name in /proc: what dlopen opens is the file the descriptor holds, whatever happened to the
 * path since. -1 when /proc does not show this descriptor as that file (not mounted: nothing is loaded by path). */
static int fd_name(int fd, char *name, size_t n) {
  struct stat a, b;
  snprintf(name, n, "/proc/self/fd/%d", fd);
  if (fstat(fd, &a) != 0 || stat(name, &b) != 0) return -1;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino ? 0 : -1;
}

int hcc_proc_usable(void) {
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  char name[64];
  const int ok = fd >= 0 && fd_name(fd, name, sizeof name) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

void *hcc_dlopen(int fd, const char *so, char *why, size_t n) {
  char name[64];
  if (fd_name(fd, name, sizeof name) != 0) {
    snprintf(why, n, "cannot load %s through the descriptor it was checked on (is /proc mounted?)", so);
    return NULL;
  }
  /* The caller keeps fd open while the module is loaded: no other module is opened under this name meanwhile
   * (dlopen would hand back the loaded one for a name it knows). */
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) snprintf(why, n, "cannot load %s: %s", so, dlerror());
  return h;
}

int hcc_seal(const char *so, uint64_t key, char *why, size_t n) {
  int fd = open(so, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      (unsigned long long)st.st_size > MODULE_MAX) {
    snprintf(why, n, "cannot seal the compiled module '%s': %s", so,
             fd < 0 ? strerror(errno) : S_ISREG(st.st_mode) && st.st_uid != geteuid() ? "it belongs to another user"
                                                                                      : "not a file");
    if (fd >= 0) close(fd);
    return -1;
  }
  /* its mode is the user's alone, whatever the umask made it (a group-writable module is never loaded) */
  unsigned char *buf = fchmod(fd, 0700) == 0 ? malloc((size_t)st.st_size + 1) : NULL;
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

/* This host and PID namespace as 16 hex digits (the host name, the boot id, the PID namespace's inode): work
 * folders and locks carry it, and only those of this host and namespace are judged by their PID. */
static void this_tag(char *out, size_t n) {
  char host[256] = "", boot[64] = "";
  if (gethostname(host, sizeof host) != 0) host[0] = '\0';
  host[sizeof host - 1] = '\0';
  int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    const ssize_t r = read(fd, boot, sizeof boot - 1);
    boot[r > 0 ? r : 0] = '\0';
    close(fd);
  }
  struct stat ns;
  const unsigned long long ino = stat("/proc/self/ns/pid", &ns) == 0 ? (unsigned long long)ns.st_ino : 0;
  uint64_t k = um_fnv1a(UM_FNV_OFFSET, host, strlen(host) + 1);
  k = um_fnv1a(um_fnv1a(k, boot, strlen(boot) + 1), &ino, sizeof ino);
  snprintf(out, n, "%016llx", (unsigned long long)k);
}

int hcc_work_dir(const char *cache, char *out, size_t n, char *why, size_t wn) {
  char tag[20];
  this_tag(tag, sizeof tag);
  if (snprintf(out, n, "%s/work-%ld-%s-XXXXXX", cache, (long)getpid(), tag) >= (int)n) {
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

/* The lock's owner (PID, host and, from this version on, tag) as written in it; -1: unreadable. */
static long lock_owner(const char *lock, char *host, size_t hn, char *tag, size_t tn) {
  int fd = um_cache_open_read(lock, 4096, NULL, NULL, 0);
  if (fd < 0) return -1;
  char buf[512];
  ssize_t r = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (r <= 0) return -1;
  buf[r] = '\0';
  long pid = -1;
  char h[256] = "", t[20] = "";
  if (sscanf(buf, "%ld %255s %19s", &pid, h, t) < 2 || pid <= 0) return -1;
  snprintf(host, hn, "%s", h);
  snprintf(tag, tn, "%s", t);
  return pid;
}

static void this_host(char *h, size_t n) {
  if (gethostname(h, n) != 0) snprintf(h, n, "?");
  h[n - 1] = '\0';
}

/* 1 the lock is live (its owner runs, or cannot be asked and the lock is recent); 0 stale or gone. Its owner can
 * be asked only on this host, in this PID namespace (the tag; a lock without one: the host alone). */
static int lock_live(const char *lock, char *holder, size_t hn) {
  struct stat st;
  if (lstat(lock, &st) != 0) return 0;
  char host[256] = "", me[256], tag[20] = "", mytag[20];
  this_host(me, sizeof me);
  this_tag(mytag, sizeof mytag);
  const long pid = lock_owner(lock, host, sizeof host, tag, sizeof tag);
  if (pid > 0 && !strcmp(host, me) && (!tag[0] || !strcmp(tag, mytag))) {
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
      char me[256], tag[20], line[320];
      this_host(me, sizeof me);
      this_tag(tag, sizeof tag);
      snprintf(line, sizeof line, "%ld %s %s\n", (long)getpid(), me, tag);
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

/* Is the work folder `name` litter: "work-<pid>-<tag>-XXXXXX" of this host and PID namespace whose process is
 * gone; or one of the earlier "work-<pid>-XXXXXX" (no tag: of any host) last changed over a day ago. */
static int work_litter(const char *path, const char *name, const char *mytag) {
  char *end;
  const long pid = strtol(name + 5, &end, 10);
  if (*end != '-' || pid <= 0) return 0;
  const char *tag = end + 1, *dash = strchr(tag, '-');
  if (dash && dash - tag == 16 && strspn(tag, "0123456789abcdef") == 16)
    return !strncmp(tag, mytag, 16) && um_cache_pid_dead(pid);
  struct stat st;
  return !dash && strlen(tag) == 6 && lstat(path, &st) == 0 && difftime(time(NULL), st.st_mtime) > 86400;
}

/* Is `path` (name nm, len characters) a failed compile's log (hcc_keep_log) of this user's, HCC_LOG_KEEP_DAYS old? */
static int old_log(const char *path, const char *nm, size_t len) {
  struct stat st;
  return len > 9 && !strncmp(nm, "host-", 5) && !strcmp(nm + len - 4, ".log") && lstat(path, &st) == 0 &&
         S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
         difftime(time(NULL), st.st_mtime) > 86400.0 * HCC_LOG_KEEP_DAYS;
}

void hcc_clean_litter(const char *cache) {
  DIR *d = opendir(cache);
  if (!d) return;
  char path[4096], tag[20];
  this_tag(tag, sizeof tag);
  for (struct dirent *de; (de = readdir(d));) {
    const char *nm = de->d_name;
    const size_t len = strlen(nm);
    if (snprintf(path, sizeof path, "%s/%s", cache, nm) >= (int)sizeof path) continue;
    if (!strncmp(nm, "work-", 5) && work_litter(path, nm, tag)) um_cache_remove_tree(path, 2);
    else if (len > 8 && !strcmp(nm + len - 8, ".so.lock") && !strncmp(nm, "host-", 5) && !lock_live(path, NULL, 0)) {
      struct stat st;
      if (lstat(path, &st) == 0 && st.st_uid == geteuid()) unlink(path);
    } else if (old_log(path, nm, len))
      unlink(path);
  }
  closedir(d);
}

/* ---- a failed compile's log ------------------------------------------------------------------------------------ */

/* The line of buf that holds at. */
static const char *line_start(const char *buf, const char *at) {
  while (at > buf && at[-1] != '\n') at--;
  return at;
}

/* A write through a const pointer in the compiler's words: GCC's "assignment of read-only location" (increment,
 * decrement), clang's "read-only variable is not assignable", "cannot assign to ... const-qualified type". */
static int read_only_error(const char *line, size_t len) {
  const char *e = strstr(line, "error:");
  if (!e || (size_t)(e - line) >= len) return 0;
  const char *words[] = {"read-only", "const-qualified"};
  for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
    const char *f = strstr(e, words[w]);
    if (f && (size_t)(f - line) < len) return 1;
  }
  return 0;
}

/* In buf, a line of the check's copy (its file name ends in mark) with a read-only error that the kernel itself does
 * not have (the same ":line:col: error: ..." on a line outside the copy), or NULL. */
static const char *read_write(const char *buf, const char *mark) {
  const size_t ml = strlen(mark);
  for (const char *at = strstr(buf, mark); at; at = strstr(at + ml, mark)) {
    const char *from = line_start(buf, at), *rest = at + ml;
    const size_t len = strcspn(from, "\n"), rl = strcspn(rest, "\n");
    if (rest[0] != ':' || !read_only_error(from, len)) continue;
    int also = 0; /* the kernel's own error, repeated by the copy */
    for (const char *o = strchr(buf, '\n'); o && !also; o = strchr(o + 1, '\n')) {
      const char *l = o + 1, *m = strstr(l, mark);
      const size_t ol = strcspn(l, "\n");
      also = ol > rl && !memcmp(l + ol - rl, rest, rl) && (!m || (size_t)(m - l) > ol);
    }
    if (!also) return from;
  }
  return NULL;
}

int hcc_log_excerpt(const char *work, const char *mark, char *out, size_t n) {
  enum { LOG_MAX = 1 << 16 };
  char p[4096];
  snprintf(p, sizeof p, "%s/cc.log", work);
  out[0] = '\0';
  FILE *f = fopen(p, "r");
  char *buf = f ? malloc(LOG_MAX) : NULL; /* not on the stack: compiles run on threads of a small stack too */
  if (!buf) {
    if (f) fclose(f);
    return 0;
  }
  buf[0] = '\n'; /* every line follows a new line */
  const size_t got = fread(buf + 1, 1, LOG_MAX - 2, f);
  fclose(f);
  buf[got + 1] = '\0';
  const char *at = mark ? read_write(buf, mark) : NULL, *err = strstr(buf, "error:");
  const char *from = at ? at : err ? line_start(buf, err) : buf + 1; /* else from the first error */
  snprintf(out, n, "%s", from);
  int lines = 0;
  for (char *c = out; *c; c++)
    if (*c == '\n' && ++lines == 6) {
      c[1] = '\0';
      break;
    }
  for (size_t k = strlen(out); k > 0 && (out[k - 1] == '\n' || out[k - 1] == ' '); k--) out[k - 1] = '\0';
  free(buf);
  return at != NULL;
}

/* The log's place beside module `so` ("...so" -> "...log"). */
static int log_path(const char *so, char *out, size_t n) {
  const size_t len = strlen(so);
  return len > 3 && !strcmp(so + len - 3, ".so") && snprintf(out, n, "%.*s.log", (int)(len - 3), so) < (int)n ? 0 : -1;
}

int hcc_keep_log(const char *work, const char *so, char *out, size_t n) {
  char from[4096];
  snprintf(from, sizeof from, "%s/cc.log", work);
  if (log_path(so, out, n) == 0 && rename(from, out) == 0) return 0; /* a link at out is replaced, never followed */
  snprintf(out, n, "%s", from);
  return -1;
}

void hcc_drop_log(const char *so) {
  char p[4096];
  if (log_path(so, p, sizeof p) == 0) unlink(p);
}

/* ---- the compiler, the private folder, the disk -------------------------------------------------------------- */

void hcc_cpu_id(char *out, size_t n) {
  snprintf(out, n, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[8192];
  uint64_t k = UM_FNV_OFFSET;
  int got = 0;
  while (got < 2 && fgets(line, sizeof line, f)) {
    if (!strncmp(line, "model name", 10) || !strncmp(line, "flags", 5) || !strncmp(line, "Features", 8) ||
        !strncmp(line, "CPU part", 8)) {
      k = um_fnv1a(k, line, strlen(line));
      got++;
    } else if (line[0] == '\n' && got) break; /* the first processor's block ends */
  }
  fclose(f);
  if (got) snprintf(out, n, "cpu-%016llx", (unsigned long long)k);
}

void hcc_compiler_id(const char *cc, char *path, size_t pn, char *id, size_t idn) {
  struct stat st;
  int found = 0;
  snprintf(path, pn, "%s", cc);
  if (strchr(cc, '/')) found = stat(cc, &st) == 0;
  else { /* as posix_spawnp would search PATH */
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", env && *env ? env : "/usr/local/bin:/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save))
      found = snprintf(path, pn, "%s/%s", *d ? d : ".", cc) < (int)pn && stat(path, &st) == 0 &&
              S_ISREG(st.st_mode) && access(path, X_OK) == 0;
    if (!found) snprintf(path, pn, "%s", cc); /* spawning it fails and says so */
  }
  if (found)
    snprintf(id, idn, "%s %llu %llu %lld %lld.%09ld", path, (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  else snprintf(id, idn, "%s ?", cc);
}

int hcc_private_dir(char *out, size_t n, char *why, size_t wn) {
  const char *tries[2] = {um_temp_dir(why, wn), "/tmp"}; /* why: a $TMPDIR missing, relative or not writable */
  for (int i = 0; i < 2; i++) {
    if (i && !strcmp(tries[0], tries[1])) break;
    char how[1024];
    if (um_cache_parent_ok(tries[i], how, sizeof how) != 0) { /* it exists, but others could change it */
      if (!why[0]) snprintf(why, wn, "$TMPDIR ('%s') is not private enough to compile in: %s", tries[i], how);
      continue;
    }
    if (snprintf(out, n, "%s/um-hostc-XXXXXX", tries[i]) < (int)n && mkdtemp(out)) return 0;
    if (!why[0]) snprintf(why, wn, "cannot make a folder in '%s': %s", tries[i], strerror(errno));
  }
  out[0] = '\0';
  return -1;
}

void hcc_disk_note(const char *dir, int err, char *out, size_t n) {
  struct statvfs vfs;
  out[0] = '\0';
  const int known = statvfs(dir, &vfs) == 0;
  const unsigned long long avail = known ? (unsigned long long)vfs.f_bavail * vfs.f_frsize : 0;
  if (err != ENOSPC && err != EDQUOT && !(known && avail < (1ull << 20))) return;
  snprintf(out, n, " (%s: %llu KiB free on the disk of %s; free some space, or set run.cache to a folder on another "
           "disk)", strerror(err == EDQUOT ? EDQUOT : ENOSPC), avail / 1024, dir);
}
