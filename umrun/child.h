/* Running umrun as a child process (--sweep, --suite): the same program
 * (/proc/self/exe, else argv0 on the PATH) with an argument vector, never a
 * shell; its stdout and stderr go to a log file. */
#ifndef UMRUN_CHILD_H
#define UMRUN_CHILD_H
#include <stddef.h>

typedef struct {
  int exit_code;   /* the child's exit status; -1 when it did not exit normally */
  int signal;      /* the signal that ended it, 0 if none                       */
  int timed_out;   /* 1: killed after timeout_s                                 */
  double seconds;  /* wall time                                                 */
} umrun_child_result;

/* Run argv (argv[0] = this program's argv0, NULL-terminated), output to
 * log_path; timeout_s > 0 kills the child's process group after that long.
 * Returns 0 when the child was started (its outcome in *r), -1 when not. */
int umrun_run_child(const char *const *argv, const char *log_path, double timeout_s, umrun_child_result *r);
/* The same for another program found on the PATH (argv[0], e.g. mpirun). */
int umrun_run_program(const char *const *argv, const char *log_path, double timeout_s, umrun_child_result *r);

/* The same with a choice of program (self: this umrun) and, with tmpdir, the
 * child's TMPDIR set to that folder (the suite gives each run its own and
 * removes it after the run, so a run killed on its timeout leaves nothing in
 * /tmp). On the timeout the process group gets SIGTERM (umrun removes its
 * temporaries on it), then SIGKILL UMRUN_KILL_GRACE_S seconds later. */
#define UMRUN_KILL_GRACE_S 5.0
int umrun_run_in(const char *const *argv, int self, const char *log_path, double timeout_s, const char *tmpdir,
                 umrun_child_result *r);
/* Can a file be created in `dir`? Tried (a temporary created and removed), so
 * permissions, a read-only file system and root's rights all answer truly.
 * 0, or -1 with the system's reason in why. */
int umrun_probe_writable(const char *dir, char *why, size_t len);
/* The folder umrun makes its temporary folders in (um_temp_dir): $TMPDIR, or /tmp when $TMPDIR is set but cannot
 * serve (missing, relative, not a writable folder), after one warning on stderr that names it and why:
 * "<who>: warning: $TMPDIR ('/scratch/job1') does not exist (No such file or directory); using /tmp". Then
 * TMPDIR is set to /tmp, so that what comes after in this process (the host compiler's folder) and its children
 * take /tmp without saying it again: call it before the run starts threads. */
const char *umrun_temp_dir(const char *who);
/* rm -r, not following links: 0, or -1 if something stayed. */
int umrun_remove_tree(const char *path);

/* mkdir -p; on failure err says which folder and why: "'<folder>': <reason>" */
int umrun_mkdirs(const char *dir, char *err, size_t errlen);
#endif
