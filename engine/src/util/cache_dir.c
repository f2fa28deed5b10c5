/* The code caches' trust boundary (see cache_dir.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "cache_dir.h"
#include "um/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WALK_LINKS_MAX 40 /* links followed in one path, as the kernel's ELOOP */

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

/* 1 when nobody but the running user is in group `gid`: no other user has it as primary group (the passwd
 * database) and its member list names nobody else; 0 with the other member (or why it cannot be told) in who. */
static int group_private(gid_t gid, char *who, size_t wn) {
  const uid_t me = geteuid();
  char buf[16384], myname[256] = "";
  struct passwd pw, *pp = NULL;
  struct group gr, *gp = NULL;
  if (getpwuid_r(me, &pw, buf, sizeof buf, &pp) == 0 && pp) snprintf(myname, sizeof myname, "%s", pw.pw_name);
  if (getgrgid_r(gid, &gr, buf, sizeof buf, &gp) != 0 || !gp) {
    snprintf(who, wn, "nobody can tell: the group is not in the group database");
    return 0;
  }
  for (char **m = gr.gr_mem; m && *m; m++)
    if (strcmp(*m, myname) != 0) {
      snprintf(who, wn, "%s", *m);
      return 0;
    }
  int alone = 1;
  setpwent();
  while (alone && getpwent_r(&pw, buf, sizeof buf, &pp) == 0 && pp)
    if (pw.pw_gid == gid && pw.pw_uid != me) {
      snprintf(who, wn, "%s", pw.pw_name);
      alone = 0;
    }
  endpwent();
  return alone;
}

static const char *group_name(gid_t gid, char *out, size_t n) {
  char buf[16384];
  struct group gr, *gp = NULL;
  if (getgrgid_r(gid, &gr, buf, sizeof buf, &gp) == 0 && gp) snprintf(out, n, "%s", gr.gr_name);
  else snprintf(out, n, "%u", (unsigned)gid);
  return out;
}

/* A folder above the cache: owned by the user or root; writable by others only with the sticky bit (/tmp), where
 * nobody can rename or replace what others own; writable by its group (not sticky) only when nobody but the user
 * is in that group (a user-private group). */
static int ancestor_ok(const char *path, const struct stat *st, char *why, size_t n) {
  const uid_t me = geteuid();
  if (st->st_uid != me && st->st_uid != 0)
    return say(why, n, "the folder '%s' above it belongs to another user (anyone who owns a folder above the "
                       "cache can replace the cache)", path);
  if (st->st_mode & S_ISVTX) return 0;
  if (st->st_mode & S_IWOTH)
    return say(why, n, "the folder '%s' above it is writable by group or others (mode 0%o) and not sticky", path,
               (unsigned)(st->st_mode & 07777));
  char who[256], grp[64];
  if ((st->st_mode & S_IWGRP) && !group_private(st->st_gid, who, sizeof who))
    return say(why, n, "the folder '%s' above it is writable by its group '%s' (mode 0%o, not sticky), and others "
                       "are in that group (%s): chmod g-w it, or name a folder of your own", path,
               group_name(st->st_gid, grp, sizeof grp), (unsigned)(st->st_mode & 07777), who);
  return 0;
}

static int walk(const char *path, int last_too, int links, char *why, size_t n);

/* A symbolic link on the way (at `at`): the user's or root's (nobody else may replace it; the folder holding it is
 * checked as any folder on the way), and where it leads is walked as a path of its own. */
static int link_ok(const char *at, const struct stat *st, int links, char *why, size_t n) {
  if (st->st_uid != geteuid() && st->st_uid != 0)
    return say(why, n, "the symbolic link '%s' on the way to it belongs to another user (who can point it "
                       "elsewhere)", at);
  char *target = malloc(PATH_MAX), *full = malloc(PATH_MAX);
  if (!target || !full) {
    free(target);
    free(full);
    return say(why, n, "out of memory checking the link '%s'", at);
  }
  const ssize_t len = readlink(at, target, PATH_MAX - 1);
  int rc = len < 0 ? say(why, n, "the symbolic link '%s': %s", at, strerror(errno)) : 0;
  if (!rc) {
    target[len] = '\0';
    const int dir = (int)(strrchr(at, '/') - at); /* at is absolute: the folder holding the link */
    const int m = target[0] == '/' ? snprintf(full, PATH_MAX, "%s", target)
                                   : snprintf(full, PATH_MAX, "%.*s/%s", dir, at, target);
    rc = m < 0 || m >= PATH_MAX ? say(why, n, "the symbolic link '%s' leads to a path too long to check", at)
                                : walk(full, 1, links + 1, why, n);
  }
  free(target);
  free(full);
  return rc;
}

/* Walk `path` as given, one component at a time (lstat each): the root and every folder on the way pass
 * ancestor_ok (the last one too when last_too), every symbolic link passes link_ok. A relative path is walked from
 * the current folder. */
static int walk(const char *path, int last_too, int links, char *why, size_t n) {
  if (links > WALK_LINKS_MAX) return say(why, n, "the path '%s' follows more than %d links", path, WALK_LINKS_MAX);
  char buf[PATH_MAX];
  size_t len = 0;
  if (path[0] != '/') {
    if (!getcwd(buf, sizeof buf)) return say(why, n, "the current folder: %s", strerror(errno));
    len = strlen(buf);
    if (len > 1) buf[len++] = '/';
  }
  if (len + strlen(path) >= sizeof buf) return say(why, n, "the path '%.200s...' is too long to check", path);
  memcpy(buf + len, path, strlen(path) + 1);
  struct stat st;
  if (lstat("/", &st) != 0 || ancestor_ok("/", &st, why, n) != 0) return -1;
  for (char *p = buf + 1; *p;) {
    char *end = p + strcspn(p, "/");
    const char c = *end;
    *end = '\0';
    const int last = !c || !end[strspn(end + 1, "/") + 1]; /* only slashes after it */
    if (lstat(buf, &st) != 0) return say(why, n, "'%s': %s", buf, strerror(errno));
    if (S_ISLNK(st.st_mode) && link_ok(buf, &st, links, why, n) != 0) return -1;
    if (S_ISDIR(st.st_mode) && (!last || last_too) && ancestor_ok(buf, &st, why, n) != 0) return -1;
    if (last) break;
    *end = c;
    p = end + 1;
  }
  return 0;
}

/* The path is walked as given, not as realpath() resolves it: every folder and link on the way is checked where it
 * is, so nobody but the user (and root) can rename, replace or repoint any of them, and the path keeps leading to
 * the folder checked here for as long as the run uses it. (Opening the folder once and working relative to its
 * descriptor would also do, but the compiler is handed paths; a module is loaded through the descriptor that was
 * verified, hostc_cache.c.) */
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
  if (walk(dir, 0, 0, why, n) != 0) {
    if (why && n) { /* name the cache too */
      char tail[256];
      snprintf(tail, sizeof tail, " (cache '%.200s')", dir);
      strncat(why, tail, n - strlen(why) - 1);
    }
    return -1;
  }
  return 0;
}

int um_cache_parent_ok(const char *dir, char *why, size_t n) {
  if (!dir || !*dir) return say(why, n, "no folder");
  return walk(dir, 1, 0, why, n);
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

/* ---- folders made, and the cache folder named (um/safe_file.h) ---------------------- */
int um_make_dirs(const char *dir, char *err, size_t errlen) {
  char buf[4096];
  if (!dir || !*dir || snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
    snprintf(err, errlen, "'%.64s...': the path is empty or too long", dir ? dir : "");
    return -1;
  }
  for (char *p = buf + 1;; p++)
    if (*p == '/' || !*p) {
      char c = *p;
      *p = '\0';
      if (mkdir(buf, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "'%.1024s': %s", buf, strerror(errno));
        return -1;
      }
      if (!(*p = c)) break;
    }
  return 0;
}

int um_cache_dir(const char *setting, char *out, size_t n) {
  int len;
  if (setting && *setting) {
    if (!strcmp(setting, "off") || !strcmp(setting, "0") || !strcmp(setting, "none")) len = snprintf(out, n, "%s", "");
    else len = snprintf(out, n, "%s", setting);
  } else {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    struct stat st;
    if (xdg && xdg[0] == '/') len = snprintf(out, n, "%s/um", xdg); /* relative: ignored, as the XDG spec says */
    else if (home && home[0] == '/' && stat(home, &st) == 0 && S_ISDIR(st.st_mode)) /* a home folder that is there */
      len = snprintf(out, n, "%s/.cache/um", home);
    else
      len = snprintf(out, n, "%s", ""); /* a relative or missing HOME (a service account's /nonexistent): none */
  }
  if (len >= 0 && (size_t)len < n) return 0;
  if (n) out[0] = '\0'; /* never a sibling folder with a truncated name */
  return -1;
}
