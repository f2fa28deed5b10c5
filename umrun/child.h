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

/* mkdir -p; on failure err says which folder and why: "'<folder>': <reason>" */
int umrun_mkdirs(const char *dir, char *err, size_t errlen);
#endif
