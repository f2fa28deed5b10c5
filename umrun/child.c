#include "child.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "um/um.h"
#include "um/safe_file.h"

int umrun_mkdirs(const char *dir, char *err, size_t errlen) { return um_make_dirs(dir, err, errlen); }

static int run(const char *const *argv, const char *log_path, double timeout_s, const char *tmpdir,
               umrun_child_result *r, int self);

int umrun_run_child(const char *const *argv, const char *log_path, double timeout_s, umrun_child_result *r) {
  return run(argv, log_path, timeout_s, NULL, r, 1);
}

int umrun_run_program(const char *const *argv, const char *log_path, double timeout_s, umrun_child_result *r) {
  return run(argv, log_path, timeout_s, NULL, r, 0);
}

int umrun_run_in(const char *const *argv, int self, const char *log_path, double timeout_s, const char *tmpdir,
                 umrun_child_result *r) {
  return run(argv, log_path, timeout_s, tmpdir, r, self);
}

int umrun_probe_writable(const char *dir, char *why, size_t len) {
  char p[4200];
  if (snprintf(p, sizeof p, "%s/.umrun-probe-XXXXXX", dir) >= (int)sizeof p)
    return snprintf(why, len, "the path is too long"), -1;
  int fd = mkstemp(p);
  if (fd < 0) return snprintf(why, len, "%s", strerror(errno)), -1;
  close(fd);
  unlink(p);
  return 0;
}

const char *umrun_temp_dir(const char *who) {
  char why[1200];
  const char *dir = um_temp_dir(why, sizeof why);
  if (why[0]) {
    fflush(stdout); /* what was printed before comes first where both streams go to one file */
    fprintf(stderr, "%s: warning: %s; using /tmp\n", who, why);
    setenv("TMPDIR", dir, 1); /* said once: the host compiler and the child runs take /tmp */
  }
  return dir;
}

/* Remove a folder and everything in it (not following links). */
int umrun_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlink(path);
  DIR *d = opendir(path);
  int rc = 0;
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char p[4096];
      if (snprintf(p, sizeof p, "%s/%s", path, e->d_name) >= (int)sizeof p) {
        rc = -1;
        continue;
      }
      rc |= umrun_remove_tree(p);
    }
    closedir(d);
  }
  return rmdir(path) | rc;
}

static int run(const char *const *argv, const char *log_path, double timeout_s, const char *tmpdir,
               umrun_child_result *r, int self) {
  memset(r, 0, sizeof *r);
  r->exit_code = -1;
  fflush(stdout);
  fflush(stderr);
  const double t0 = um_wtime();
  /* the signals that stop umrun are blocked until the child's group is registered with their handlers
   * (um_safe_group_register): on one, the run is stopped with umrun, never left behind */
  sigset_t block, old;
  um_safe_stop_signals(&block);
  sigprocmask(SIG_BLOCK, &block, &old);
  pid_t pid = fork();
  if (pid < 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    return -1;
  }
  if (pid == 0) {
    /* umrun's handlers (on the standard signals of um_safe_stop_signals) are not the child's; an ignored signal
     * stays ignored */
    for (int sig = 1; sig < 32; sig++) {
      struct sigaction sa;
      if (sigismember(&block, sig) == 1 && sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
        signal(sig, SIG_DFL);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    setpgid(0, 0); /* its own group: a timeout ends whatever it started too */
    if (tmpdir) setenv("TMPDIR", tmpdir, 1); /* its temporaries where the caller removes them, whatever happens */
    if (log_path) {
      FILE *lf = freopen(log_path, "w", stdout);
      if (lf) dup2(fileno(stdout), STDERR_FILENO);
    }
    if (self) execv("/proc/self/exe", (char *const *)argv);
    execvp(argv[0], (char *const *)argv);
    fprintf(stderr, "umrun: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  const int slot = um_safe_group_register(pid, UMRUN_KILL_GRACE_S);
  sigprocmask(SIG_SETMASK, &old, NULL);
  int st = 0, killed = 0;
  for (;;) {
    pid_t w = waitpid(pid, &st, timeout_s > 0 ? WNOHANG : 0);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      um_safe_group_unregister(slot);
      return -1;
    }
    if (timeout_s > 0 && um_wtime() - t0 > timeout_s && !r->timed_out) {
      /* SIGTERM first: umrun removes its temporaries and field folder on it;
       * what has not ended UMRUN_KILL_GRACE_S later is killed */
      r->timed_out = 1;
      kill(-pid, SIGTERM);
      kill(pid, SIGTERM);
    }
    if (r->timed_out && !killed && um_wtime() - t0 > timeout_s + UMRUN_KILL_GRACE_S) {
      killed = 1;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
    }
    if (timeout_s > 0) {
      struct timespec ts = {0, 20 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
  um_safe_group_unregister(slot);
  r->seconds = um_wtime() - t0;
  if (WIFEXITED(st)) r->exit_code = WEXITSTATUS(st);
  else if (WIFSIGNALED(st)) r->signal = WTERMSIG(st);
  return 0;
}
