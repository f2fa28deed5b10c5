/* Writing output files safely (see safe_file.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* syscall(SYS_getdents64): the signal handler lists a folder without malloc */
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "um/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

/* ---- the table of live temporaries (reached from the signal handler) ---------- */
#define SLOTS 64
#define SLOT_PATH 4096
static char slot_path[SLOTS][SLOT_PATH];
static atomic_int slot_used[SLOTS]; /* 0 free, 1 being filled, 2 live */

/* A free entry of a table the signal handler reads, filled with path: its index, or -1 (too long,
 * or the table is full). */
static int table_take(char (*paths)[SLOT_PATH], atomic_int *used, int n, const char *path) {
  size_t len = strlen(path);
  if (len >= SLOT_PATH) return -1;
  for (int i = 0; i < n; i++) {
    int expect = 0;
    if (atomic_compare_exchange_strong(&used[i], &expect, 1)) {
      memcpy(paths[i], path, len + 1);
      atomic_store(&used[i], 2);
      return i;
    }
  }
  return -1;
}

/* not listed (-1): removed on failure, not on a signal */
static int slot_take(const char *tmp) { return table_take(slot_path, slot_used, SLOTS, tmp); }

static void slot_free(int i) {
  if (i >= 0 && i < SLOTS) atomic_store(&slot_used[i], 0);
}

/* ---- private folders removed on a signal (umrun's temporary field folders) ------ */
#define DIR_SLOTS 8
static char dir_path[DIR_SLOTS][SLOT_PATH];
static atomic_int dir_used[DIR_SLOTS];

int um_safe_dir_register(const char *dir) {
  if (!dir || !*dir) return -1;
  return table_take(dir_path, dir_used, DIR_SLOTS, dir);
}

void um_safe_dir_unregister(int slot) { if (slot >= 0 && slot < DIR_SLOTS) atomic_store(&dir_used[slot], 0); }

/* ---- single files removed on a signal (the host compiler's locks) -------------- */
#define FILE_SLOTS 16
static char file_path[FILE_SLOTS][SLOT_PATH];
static atomic_int file_used[FILE_SLOTS];

int um_safe_file_register(const char *path) {
  if (!path || !*path) return -1;
  return table_take(file_path, file_used, FILE_SLOTS, path);
}

void um_safe_file_unregister(int slot) { if (slot >= 0 && slot < FILE_SLOTS) atomic_store(&file_used[slot], 0); }

/* Async-signal-safe removal of a folder and the plain files in it (and in
 * folders within, `depth` levels): open, getdents64, unlinkat, close only. */
void um__remove_dir_at(int parent, const char *name, int depth); /* also for cache_dir.c */
void um__remove_dir_at(int parent, const char *name, int depth) {
#ifdef __linux__
  int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    char buf[4096];
    for (;;) {
      long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        struct {
          unsigned long long ino;
          long long off;
          unsigned short reclen;
          unsigned char type;
          char name[];
        } *d = (void *)(buf + off);
        off += d->reclen;
        if (!strcmp(d->name, ".") || !strcmp(d->name, "..")) continue;
        if (unlinkat(fd, d->name, 0) != 0 && errno == EISDIR && depth > 0) um__remove_dir_at(fd, d->name, depth - 1);
      }
    }
    close(fd);
  }
#else
  (void)depth;
#endif
  unlinkat(parent, name, AT_REMOVEDIR);
}

/* ---- child process groups stopped on a signal (umrun's suite and sweep runs) ---------- */
#define GROUP_SLOTS 8
static atomic_int group_pid[GROUP_SLOTS]; /* 0: free; > 0: a child that leads its own process group */
static atomic_int group_grace_ms[GROUP_SLOTS];
static atomic_int stopping; /* a signal is being handled: a second one kills the groups at once */

int um_safe_group_register(int pgid, double grace_s) {
  if (pgid <= 0) return -1;
  const int ms = grace_s > 0 && grace_s < 3600 ? (int)(grace_s * 1000) : 0;
  for (int i = 0; i < GROUP_SLOTS; i++) {
    int expect = 0;
    if (atomic_compare_exchange_strong(&group_pid[i], &expect, -1)) { /* -1: taken, not yet listed */
      atomic_store(&group_grace_ms[i], ms);
      atomic_store(&group_pid[i], pgid);
      return i;
    }
  }
  return -1;
}

void um_safe_group_unregister(int slot) { if (slot >= 0 && slot < GROUP_SLOTS) atomic_store(&group_pid[slot], 0); }

static void signal_groups(int sig) {
  for (int i = 0; i < GROUP_SLOTS; i++) {
    const int pid = atomic_load(&group_pid[i]);
    if (pid > 0) kill(-pid, sig), kill(pid, sig);
  }
}

/* 1 while the group led by pid has a process in it (its leader, once ended, is reaped here and leaves it). */
static int group_alive(int pid) {
  waitpid(pid, NULL, WNOHANG);
  return kill(-pid, 0) == 0 || errno != ESRCH;
}

/* Async-signal-safe (kill, waitpid, poll): the registered groups get the signal; what has not ended
 * (the leader reaped, no process left in its group) within the longest grace period gets SIGKILL, and
 * is waited for 5 s more. A second signal while this runs: SIGKILL at once. */
static void stop_groups(int sig) {
  const int again = atomic_exchange(&stopping, 1);
  int grace = 0, any = 0;
  for (int i = 0; i < GROUP_SLOTS; i++)
    if (atomic_load(&group_pid[i]) > 0) {
      const int g = atomic_load(&group_grace_ms[i]);
      grace = g > grace ? g : grace, any = 1;
    }
  if (!any) return;
  if (again) grace = 0;
  signal_groups(again ? SIGKILL : sig);
  for (int waited = 0, killed = again; waited <= grace + 5000; waited += 20) {
    int alive = 0;
    for (int i = 0; i < GROUP_SLOTS; i++) {
      const int pid = atomic_load(&group_pid[i]);
      if (pid <= 0) continue;
      alive |= group_alive(pid);
    }
    if (!alive) return;
    if (waited >= grace && !killed) signal_groups(SIGKILL), killed = 1;
    poll(NULL, 0, 20);
  }
}

void um_safe_group_stop(int pgid, double grace_s) {
  if (pgid <= 0) return;
  const int grace = grace_s > 0 && grace_s < 3600 ? (int)(grace_s * 1000) : 0;
  kill(-pgid, SIGTERM), kill(pgid, SIGTERM);
  for (int waited = 0, killed = 0; waited <= grace + 5000 && group_alive(pgid); waited += 5) {
    if (waited >= grace && !killed) kill(-pgid, SIGKILL), kill(pgid, SIGKILL), killed = 1;
    poll(NULL, 0, 5);
  }
}

int um_safe_live_count(void) {
  int n = 0;
  for (int i = 0; i < SLOTS; i++) n += atomic_load(&slot_used[i]) == 2;
  return n;
}

/* What the handlers say before the program dies of the signal (um_safe_signal_message): written once. */
#define NOTE_LEN 1024
static char note_who[128], note_what[NOTE_LEN];
static atomic_int note_set, note_said;

void um_safe_signal_message(const char *who, const char *what) {
  atomic_store(&note_set, 0);
  if (!who || !what || strlen(who) >= sizeof note_who || strlen(what) >= sizeof note_what) return;
  memcpy(note_who, who, strlen(who) + 1);
  memcpy(note_what, what, strlen(what) + 1);
  atomic_store(&note_set, 1);
}

/* The signals that end a process, which the handlers below clean up after, each with the name they say. */
static const struct {
  int sig;
  const char *name;
} stop_sigs[] = {{SIGINT, "SIGINT (Ctrl-C)"},
                 {SIGTERM, "SIGTERM"},
                 {SIGHUP, "SIGHUP"},
                 {SIGQUIT, "SIGQUIT"},
                 {SIGUSR1, "SIGUSR1"},
                 {SIGUSR2, "SIGUSR2"},
                 {SIGALRM, "SIGALRM"},
                 {SIGPIPE, "SIGPIPE (the reader of its output went away)"},
                 {SIGXCPU, "SIGXCPU (the CPU time limit, ulimit -t)"}};
enum { NSTOP = sizeof stop_sigs / sizeof stop_sigs[0] };

/* Async-signal-safe (write only): "WHO: stopped by SIGxxx: WHAT" on stderr, once. */
static void say_signal(int sig) {
  if (!atomic_load(&note_set) || atomic_exchange(&note_said, 1)) return;
  const char *name = "a signal";
  for (int k = 0; k < NSTOP; k++)
    if (stop_sigs[k].sig == sig) name = stop_sigs[k].name;
  const char *parts[] = {"\n", note_who, ": stopped by ", name, ": ", note_what, "\n"};
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
    ssize_t left = (ssize_t)strlen(parts[k]);
    const char *p = parts[k];
    while (left > 0) {
      const ssize_t w = write(STDERR_FILENO, p, (size_t)left);
      if (w <= 0) return;
      p += w, left -= w;
    }
  }
}

/* Async-signal-safe: kill, waitpid and poll (stop_groups), unlink, unlinkat, write, sigaction and raise only. */
static void on_signal(int sig) {
  stop_groups(sig); /* first: a child still running could write into what is removed next */
  for (int i = 0; i < SLOTS; i++)
    if (atomic_load(&slot_used[i]) == 2) unlink(slot_path[i]);
  for (int i = 0; i < FILE_SLOTS; i++)
    if (atomic_load(&file_used[i]) == 2) unlink(file_path[i]);
  for (int i = 0; i < DIR_SLOTS; i++)
    if (atomic_load(&dir_used[i]) == 2) um__remove_dir_at(AT_FDCWD, dir_path[i], 4);
  say_signal(sig); /* after the clean-up: what it says is then true */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
  raise(sig);
}

void um_safe_stop_signals(sigset_t *set) {
  sigemptyset(set);
  for (int k = 0; k < NSTOP; k++) sigaddset(set, stop_sigs[k].sig);
}

void um_safe_cleanup_on_signals(void) {
  struct sigaction xfsz;
  if (sigaction(SIGXFSZ, NULL, &xfsz) == 0 && xfsz.sa_handler == SIG_DFL) signal(SIGXFSZ, SIG_IGN); /* EFBIG */
  for (int k = 0; k < NSTOP; k++) {
    const int sig = stop_sigs[k].sig;
    struct sigaction old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue; /* nohup: stay ignored */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NODEFER;
    sigaction(sig, &sa, NULL);
  }
}

/* ---- messages ------------------------------------------------------------------ */
const char *um_safe_why(int eno) {
  switch (eno) {
  case ENOSPC: /* at a file's creation most often out of inodes, while df -h shows room */
    return "the disk is full, or out of inodes: see df -h and df -i; free space or write elsewhere";
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
  sf->in_place = 0;
}

/* ---- what stands at an output path ------------------------------------------------- */
const char *um__file_kind(mode_t m); /* also for safe_read.c */
const char *um__file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
#ifdef S_ISSOCK
  if (S_ISSOCK(m)) return "a socket";
#endif
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

/* Follow the symbolic links at `path` to where the file really is (or will
 * be: a dangling link names a file to create). Returns a malloc'ed path, or
 * NULL with errno (ELOOP: a loop of links). *exists says whether something
 * stands there, *st what. */
static char *resolve_target(const char *path, int *exists, struct stat *st) {
  char *cur = strdup(path);
  if (!cur) return NULL;
  for (int hop = 0; hop < 40; hop++) {
    if (lstat(cur, st) != 0) {
      if (errno != ENOENT) {
        int e = errno;
        free(cur);
        errno = e;
        return NULL;
      }
      *exists = 0;
      return cur;
    }
    if (!S_ISLNK(st->st_mode)) {
      *exists = 1;
      return cur;
    }
    char link[4096];
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0 || (size_t)n >= sizeof link - 1) {
      int e = n < 0 ? errno : ENAMETOOLONG;
      free(cur);
      errno = e;
      return NULL;
    }
    link[n] = '\0';
    if (strncmp(link, "pipe:", 5) == 0 || strncmp(link, "socket:", 7) == 0 || strncmp(link, "anon_inode:", 11) == 0) {
      /* /proc/self/fd/N of a pipe: not a name in the file system; what it
       * stands for is opened through the link itself */
      if (stat(cur, st) != 0) {
        int e = errno;
        free(cur);
        errno = e;
        return NULL;
      }
      *exists = 1;
      return cur;
    }
    char *next;
    const char *slash = strrchr(cur, '/');
    if (link[0] == '/' || !slash) {
      next = strdup(link);
    } else {
      const size_t dl = (size_t)(slash - cur) + 1;
      next = malloc(dl + (size_t)n + 1);
      if (next) {
        memcpy(next, cur, dl);
        memcpy(next + dl, link, (size_t)n + 1);
      }
    }
    free(cur);
    if (!next) return NULL;
    cur = next;
  }
  free(cur);
  errno = ELOOP;
  return NULL;
}

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: this process's open
 * file N, written where it stands (a log it is redirected to is appended to,
 * never replaced); -1 for other paths. */
static int fd_path(const char *path) {
  if (!strcmp(path, "/dev/stdout")) return 1;
  if (!strcmp(path, "/dev/stderr")) return 2;
  const char *p = !strncmp(path, "/dev/fd/", 8) ? path + 8 : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
  if (!p || !*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 6) return -1;
  return atoi(p);
}

int um_safe_fd_path(const char *path) { return path ? fd_path(path) : -1; }

int um_safe_check(const char *path, int in_place_ok, char *err, size_t errlen) {
  if (!path || !*path) {
    if (err && errlen) snprintf(err, errlen, "no path given");
    return -1;
  }
  if (fd_path(path) >= 0) {
    if (in_place_ok && fcntl(fd_path(path), F_GETFL) >= 0) return 0;
    if (err && errlen)
      snprintf(err, errlen, "'%s' %s; give the path of a regular file", path,
               in_place_ok ? "is not open in this process" : "is an open stream of this process, not a file to replace");
    return -1;
  }
  int exists = 0;
  struct stat st;
  char *target = resolve_target(path, &exists, &st);
  if (!target) {
    int e = errno;
    if (err && errlen)
      snprintf(err, errlen, "'%s': %s%s", path, strerror(e),
               e == ELOOP ? " (a loop of symbolic links); fix the links" : "");
    return -1;
  }
  int rc = 0;
  if (exists && !S_ISREG(st.st_mode)) {
    const int streamable = S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode);
    if (!(streamable && in_place_ok)) {
      if (err && errlen)
        snprintf(err, errlen,
                 "'%s'%s%s%s is %s, not a regular file: um never replaces %s%s; give the path of a regular file", path,
                 strcmp(target, path) ? " (a link to '" : "", strcmp(target, path) ? target : "",
                 strcmp(target, path) ? "')" : "", um__file_kind(st.st_mode), S_ISDIR(st.st_mode) ? "a folder" : "it",
                 streamable ? " (this output is written through a temporary file renamed into place, which a device "
                              "or FIFO cannot take)"
                            : "");
      rc = -1;
    }
  }
  free(target);
  return rc;
}

/* A character device or a FIFO at the path: written in place, never
 * replaced. A FIFO is opened without blocking: no reader is an error, not a
 * hang. */
static int open_in_place(um_safe_file *sf, const char *path, const struct stat *st, char *err, size_t errlen) {
  int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (err && errlen) {
      if (e == ENXIO && S_ISFIFO(st->st_mode))
        snprintf(err, errlen, "cannot write '%s': it is a FIFO (named pipe) that no process reads; start its reader "
                              "first, or give the path of a regular file", path);
      else
        fail(err, errlen, "opening it (a device or FIFO, written in place) failed", path, e);
    }
    return -1;
  }
  struct stat now;
  int fl = fcntl(fd, F_GETFL);
  if (fstat(fd, &now) != 0 || (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT) || fl < 0 ||
      fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    close(fd);
    if (err && errlen) snprintf(err, errlen, "cannot write '%s': it changed while it was opened; try again", path);
    return -1;
  }
  sf->f = fdopen(fd, "w");
  if (!sf->f) {
    int e = errno;
    close(fd);
    fail(err, errlen, "opening it failed", path, e);
    return -1;
  }
  sf->in_place = 1;
  return 0;
}

/* The process's umask, read without changing it (/proc/self/status's Umask line; else set and set back). */
static mode_t process_umask(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[128];
  long m = -1;
  while (f && m < 0 && fgets(line, sizeof line, f))
    if (!strncmp(line, "Umask:", 6)) m = strtol(line + 6, NULL, 8);
  if (f) fclose(f);
  if (m >= 0) return (mode_t)m;
  const mode_t old = umask(022);
  umask(old);
  return old;
}

static int open_tmp(um_safe_file *sf, const char *path, int keep_open, char *err, size_t errlen) {
  memset(sf, 0, sizeof *sf);
  sf->slot = -1;
  if (!path || !*path) {
    if (err && errlen) snprintf(err, errlen, "cannot write a file: no path given");
    return -1;
  }
  const int fdn = fd_path(path);
  if (fdn >= 0) { /* this process's stdout, stderr or open file N: written where it stands */
    if (!keep_open || um_safe_check(path, 1, err, errlen)) {
      if (!keep_open) um_safe_check(path, 0, err, errlen);
      return -1;
    }
    fflush(fdn == 1 ? stdout : fdn == 2 ? stderr : NULL); /* what the program printed comes first */
    int fd = dup(fdn);
    if (fd < 0 || !(sf->f = fdopen(fd, "w")) || !(sf->path = strdup(path))) {
      int e = errno;
      if (sf->f) fclose(sf->f);
      else if (fd >= 0) close(fd);
      sf->f = NULL;
      fail(err, errlen, "opening it failed", path, e);
      return -1;
    }
    sf->in_place = 1;
    return 0;
  }
  int exists = 0;
  struct stat st;
  char *target = resolve_target(path, &exists, &st); /* a symlink: its target is written, the link stays */
  if (!target) {
    fail(err, errlen, errno == ELOOP ? "following its symbolic links failed" : "looking at it failed", path, errno);
    return -1;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    int rc = -1;
    if (keep_open && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
      rc = open_in_place(sf, path, &st, err, errlen);
      if (rc == 0 && !(sf->path = strdup(path))) {
        fclose(sf->f);
        sf->f = NULL;
        fail(err, errlen, "allocating its name", path, ENOMEM);
        rc = -1;
      }
    } else if (S_ISDIR(st.st_mode)) {
      fail(err, errlen, "it is a folder", path, EISDIR);
    } else {
      um_safe_check(path, keep_open, err, errlen);
    }
    free(target);
    if (rc) sf->in_place = 0;
    return rc;
  }
  size_t n = strlen(target);
  sf->path = target;
  sf->tmp = malloc(n + 12);
  if (!sf->tmp) {
    release(sf);
    fail(err, errlen, "allocating its name", path, ENOMEM);
    return -1;
  }
  memcpy(sf->tmp, target, n);
  memcpy(sf->tmp + n, ".tmp.XXXXXX", 12);
  int fd = mkstemp(sf->tmp);
  if (fd < 0) {
    int e = errno;
    release(sf);
    fail(err, errlen, "creating a temporary file beside it failed", path, e);
    return -1;
  }
  /* mkstemp makes 0600; outputs are ordinary files (0666 less the umask, as open would make them), and a file
   * replaced keeps its permissions */
  fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~process_umask()));
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
  if (!sf->path || (!sf->tmp && !sf->in_place)) {
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
  if (!what && !sf->in_place) {
    /* never rename over what is not a regular file (it may have appeared while the file was written) */
    struct stat st;
    if (lstat(sf->path, &st) == 0 && !S_ISREG(st.st_mode)) {
      e = S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
      what = S_ISDIR(st.st_mode) ? "a folder appeared at its path; it was not replaced"
                                 : "something that is not a regular file appeared at its path; it was not replaced";
    } else if (rename(sf->tmp, sf->path) != 0) {
      e = errno;
      what = "renaming its temporary file into place failed";
    }
  }
  if (what) {
    if (sf->tmp) unlink(sf->tmp);
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

/* The file at path opened to append (non-blocking while it is opened: a FIFO that no process reads is an error,
 * not a hang), *st what it is; cache: never through a symbolic link, created 0600, a regular file of this user's
 * only; *created: 1 when this call made the file. The descriptor, or -1 with the reason in err. */
static int open_append(const char *path, int cache, struct stat *st, int *created, char *err, size_t errlen) {
  const int flags = O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (cache ? O_NOFOLLOW : 0);
  int fd = open(path, flags);
  *created = 0;
  for (int tries = 0; fd < 0 && errno == ENOENT && tries < 3; tries++) { /* made here, or by another just now */
    fd = open(path, flags | O_CREAT | O_EXCL, cache ? 0600 : 0644);
    if (fd >= 0)
      *created = 1;
    else if (errno == EEXIST)
      fd = open(path, flags);
  }
  if (fd < 0 && errno == ENOENT && !cache) fd = open(path, flags | O_CREAT, 0644); /* a link to a file to be made */
  if (fd < 0) {
    int e = errno;
    struct stat ls;
    if (cache && e == ELOOP && lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode)) {
      if (err && errlen)
        snprintf(err, errlen, "cannot append to '%s': it is a symbolic link, and a cache file is never written "
                              "through a link; remove the link", path);
    } else if (e == ENXIO && stat(path, &ls) == 0 && S_ISFIFO(ls.st_mode)) {
      if (err && errlen)
        snprintf(err, errlen, "cannot append to '%s': it is a FIFO (named pipe) that no process reads; start its "
                              "reader first, or give the path of a regular file", path);
    } else {
      fail(err, errlen, "opening it to append failed", path, e);
    }
    return -1;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fstat(fd, st) != 0 || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    int e = errno;
    close(fd);
    fail(err, errlen, "looking at it failed", path, e);
    return -1;
  }
  const int in_place = !cache && (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode));
  if (!S_ISREG(st->st_mode) && !in_place) {
    close(fd);
    if (err && errlen)
      snprintf(err, errlen, "cannot append to '%s': it is %s, not a regular file; %s", path, um__file_kind(st->st_mode),
               cache ? "remove it (a cache file is rewritten when it is missing)" : "give the path of a regular file");
    return -1;
  }
  if (cache && st->st_uid != geteuid()) {
    close(fd);
    if (err && errlen)
      snprintf(err, errlen, "cannot append to '%s': it belongs to user id %lu, not to this user (%lu), and a cache "
                            "file is only written when it is the user's own; remove it",
               path, (unsigned long)st->st_uid, (unsigned long)geteuid());
    return -1;
  }
  return fd;
}

static int append_file(const char *path, int cache, const char *header, const void *data, size_t n, char *err,
                       size_t errlen) {
  if (!path || !*path) {
    if (err && errlen) snprintf(err, errlen, "cannot append to a file: no path given");
    return -1;
  }
  struct stat st;
  int created = 0;
  int fd = open_append(path, cache, &st, &created, err, errlen);
  if (fd < 0) return -1;
  const int in_place = S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode); /* written as they are, nothing to roll back */
  const off_t old = in_place ? 0 : st.st_size;
  int bad = 0, e = 0;
  char last = '\n'; /* a last line without its newline is ended first, so the rows do not join it */
  const int rfd = old > 0 ? open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) : -1;
  if (rfd >= 0 && pread(rfd, &last, 1, old - 1) == 1 && last != '\n' && write_all(fd, "\n", 1) != 0) bad = 1, e = errno;
  if (rfd >= 0) close(rfd);
  if (!bad && old == 0 && header && *header && write_all(fd, header, strlen(header)) != 0) bad = 1, e = errno;
  if (!bad && n && write_all(fd, (const char *)data, n) != 0) bad = 1, e = errno;
  if (!bad && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) bad = 1, e = errno;
  if (bad && !in_place && !created && ftruncate(fd, old) != 0) bad = 1; /* the rows that did get in are taken back */
  if (close(fd) != 0 && !bad) bad = 1, e = errno;
  if (bad && created) unlink(path); /* a file this call made goes again */
  if (bad) {
    fail(err, errlen,
         in_place  ? "appending failed"
         : created ? "writing it failed (the new file was removed)"
                   : "appending failed (the file was left as it was)",
         path, e);
    return -1;
  }
  return 0;
}

int um_safe_append(const char *path, const char *header, const void *data, size_t n, char *err, size_t errlen) {
  return append_file(path, 0, header, data, n, err, errlen);
}

int um_cache_append(const char *path, const char *header, const void *data, size_t n, char *err, size_t errlen) {
  return append_file(path, 1, header, data, n, err, errlen);
}
