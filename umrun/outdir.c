/* output.dir: made, claimed for the run, and after a failed run its empty folders taken away again. Several
 * umruns may share an output.dir or its parents (a suite's runs, a sweep, a user's jobs side by side): a run takes
 * away only folders it made, only while they are empty, and never one another run has claimed; a run whose folder
 * another took away meanwhile makes it again. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "runner.h"

/* output.dir's folders this run creates (s->made_dir, and s->made_top the first that did not exist) */
static void note_made_dirs(run_settings *s, const char *dir) {
  char *made_dir = s->made_dir, *made_top = s->made_top;
  made_dir[0] = made_top[0] = '\0';
  struct stat st;
  if (snprintf(made_dir, sizeof s->made_dir, "%s", dir) >= (int)sizeof s->made_dir || stat(dir, &st) == 0) {
    made_dir[0] = '\0';
    return;
  }
  char p[4096];
  snprintf(p, sizeof p, "%s", dir);
  snprintf(made_top, sizeof s->made_top, "%s", p);
  for (char *slash; (slash = strrchr(p, '/')) && slash > p;) { /* up while the parent does not exist either */
    *slash = '\0';
    if (stat(p, &st) == 0) break;
    snprintf(made_top, sizeof s->made_top, "%s", p);
  }
}

/* A folder taken away if empty and no other umrun has claimed it: flock'ed while it goes, so that a run claiming
 * it at that moment gets the lock only after and finds it gone (claim_outdir). 0: removed. */
static int rmdir_unclaimed(const char *p, const char *sub) {
  const int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  int rc = -1;
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
    char q[4200];
    if (sub && snprintf(q, sizeof q, "%s/%s", p, sub) < (int)sizeof q) rmdir(q); /* if empty */
    rc = rmdir(p);
  }
  close(fd);
  return rc;
}

void umrun_remove_made_dirs(run_settings *s) {
  char *made_dir = s->made_dir, *made_top = s->made_top;
  if (!made_dir[0]) return;
  char p[4096];
  snprintf(p, sizeof p, "%s", made_dir);
  /* checkpoints/: umrun_ckpt_dir_check's, if empty */
  for (const char *sub = "checkpoints"; rmdir_unclaimed(p, sub) == 0 && strcmp(p, made_top) != 0; sub = NULL) {
    char *slash = strrchr(p, '/');
    if (!slash || slash == p) break;
    *slash = '\0';
  }
  made_dir[0] = '\0';
}

/* The flock that marks output.dir as this run's. 1: the folder went away before it was claimed (another run that
 * had made it failed and took it away): make it again. 0: claimed; or held by another umrun (a warning: their files
 * would mix); or on a file system without flock on folders (some network ones), where nothing is said. */
static int claim_outdir(const um_runner *r, run_settings *s) {
  const int fd = open(s->outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  int rc = flock(fd, LOCK_EX | LOCK_NB), held = rc != 0 && errno == EWOULDBLOCK;
  if (held) { /* a failed run takes its empty folder away under the lock for a moment; a running one holds it */
    nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
    rc = flock(fd, LOCK_EX | LOCK_NB), held = rc != 0 && errno == EWOULDBLOCK;
  }
  struct stat at_fd, at_path;
  if (fstat(fd, &at_fd) == 0 && (at_fd.st_nlink == 0 || stat(s->outdir, &at_path) != 0 ||
                                 at_fd.st_ino != at_path.st_ino || at_fd.st_dev != at_path.st_dev))
    return close(fd), 1;
  if (rc == 0) return s->outdir_fd = fd, 0;
  if (held)
    umrun_err(r,
              "warning: output.dir '%s' is the output.dir of another umrun running now: each run's files replace "
              "the other's, so the folder may end with files of both; give each run its own output.dir "
              "(--set output.dir=...)\n",
              s->outdir);
  return close(fd), 0;
}

/* A relative output.dir that could not be made: where it is relative to, and what is wrong there (the current
 * folder read-only, or gone), after err's reason. */
static void say_relative(const char *outdir, char *err, size_t len) {
  if (outdir[0] == '/') return;
  char cwd[4096], why[600] = "";
  if (!getcwd(cwd, sizeof cwd))
    snprintf(why, sizeof why, "the current folder, which no longer exists (%s)", strerror(errno));
  else if (access(cwd, W_OK) != 0)
    snprintf(why, sizeof why, "the current folder '%.500s', which is not writable (%s)", cwd, strerror(errno));
  else
    return;
  const size_t n = strlen(err);
  if (n + 1 < len)
    snprintf(err + n, len - n,
             "; output.dir '%s' is relative to %s: run from another folder, or give a writable "
             "one with --set output.dir=PATH",
             outdir, why);
}

int umrun_make_outdir(const um_runner *r, run_settings *s, char *err, size_t len) {
  s->outdir_fd = -1;
  if (!s->outdir || !*s->outdir) return 0;
  note_made_dirs(s, s->outdir);
  for (int tries = 1;; tries++) { /* another run's failure may take a shared parent or the folder away meanwhile */
    const int rc = umrun_mkdirs(s->outdir, err, len);
    if (!rc && !claim_outdir(r, s)) return 0;
    if (tries == 5 && rc) return say_relative(s->outdir, err, len), rc;
    if (tries == 5)
      return snprintf(err, len, "'%s': it went away each time it was made (other runs removing it)", s->outdir), -1;
  }
}
