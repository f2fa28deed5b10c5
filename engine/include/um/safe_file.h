/** @file um/safe_file.h
 * Writing output files safely: the one helper every writer of the tree uses
 * (HDF5 meshes and fields, XDMF, reordering files, the CUDA module cache,
 * umrun's --json / --csv, sweep files, Airfoil's text mesh).
 *
 *  - A file is written under a unique temporary name in its own folder
 *    ("<path>.tmp.XXXXXX", mkstemp), so two runs writing the same file never
 *    touch each other's temporary, and renamed over `<path>` only when every
 *    byte was written, flushed and closed without error: `<path>` is either the
 *    old file or the complete new one, never half of either.
 *  - On any failure the temporary is removed and the message says what failed
 *    and why (disk full, no permission, no such folder), from errno.
 *  - Live temporaries are listed in a small process-wide table (the one piece
 *    of global state, owned by this file: a signal handler can reach nothing
 *    else). A program that installs um_safe_cleanup_on_signals() (umrun does;
 *    the library never installs handlers) removes them on the signals that
 *    end a process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
 *    SIGPIPE, SIGXCPU), then dies of the signal as it would have; child
 *    process groups registered with um_safe_group_register are stopped first.
 *  - What stands at the path decides how it is written (docs/reliability.md,
 *    "the output rule"): a symbolic link is followed and its target replaced
 *    (the link stays); a character device or a FIFO (/dev/null, /dev/stdout, a
 *    named pipe) is written in place by um_safe_open, never replaced, and a
 *    FIFO that no process reads is an error, not a hang; a folder, a block
 *    device or a socket is refused, and so is a device or FIFO for writers that
 *    need a file of their own (um_safe_open_name: HDF5). Nothing is ever
 *    renamed over what is not a regular file.
 *  - Appends (CSV rows) go in one write() of the whole block; a short or
 *    failed write is rolled back (ftruncate to the old size) and reported.
 */
#ifndef UM_SAFE_FILE_H
#define UM_SAFE_FILE_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An output file being written (um_safe_open / um_safe_open_name until
 * um_safe_commit or um_safe_abort). */
typedef struct {
  char *path; /**< where the file ends up                        */
  char *tmp;  /**< the temporary being written ("<path>.tmp.XXXXXX") */
  FILE *f;    /**< open on tmp (um_safe_open), or NULL (um_safe_open_name) */
  int slot;   /**< its entry in the signal-cleanup table, or -1      */
  int in_place; /**< 1: a character device or FIFO, written in place (tmp NULL) */
} um_safe_file;

/** mkdir -p: dir and every folder above it (0777 less the umask); 0, or -1 with
 * a message naming the folder that could not be made and why. */
int um_make_dirs(const char *dir, char *err, size_t errlen);

/** Where compiled code is cached (cuda.cache, run.cache): the setting's folder;
 * "off", "0" or "none": no cache (out ""); empty or NULL: $XDG_CACHE_HOME/um,
 * else $HOME/.cache/um (else ""). Returns 0, or -1 (out "") when the folder's
 * path does not fit in n bytes: never a truncated path. */
int um_cache_dir(const char *setting, char *out, size_t n);

/** The folder for temporary files, one policy for every user of it (umrun's field folder, --suite's and
 * --repeat's folders, the host compiler's private folder): $TMPDIR when it is set to an absolute path of an
 * existing folder this process can write in; else "/tmp". When $TMPDIR is set but passed over, why (n bytes; may be
 * NULL) says why in one phrase, for a warning that adds "; using /tmp": "$TMPDIR ('/scratch/job1') does not exist
 * (No such file or directory)" (or "is not an absolute path", "is not a folder", "is not writable (Permission
 * denied)"); else why is "". Returns $TMPDIR's value (valid until the environment changes) or "/tmp". */
const char *um_temp_dir(char *why, size_t n);

/** Create the temporary for `path` (a symlink's target) and open it for
 * writing (sf->f); a character device or FIFO at the path is opened in place
 * (sf->in_place, no temporary). Returns 0, or -1 with the reason in err. */
int um_safe_open(um_safe_file *sf, const char *path, char *err, size_t errlen);
/** The same, for writers that open the file themselves (HDF5): the temporary
 * exists (empty) and is closed; write sf->tmp, then um_safe_commit. */
int um_safe_open_name(um_safe_file *sf, const char *path, char *err, size_t errlen);
/** Finish: flush, sync and close sf->f (if open), then rename the temporary
 * over the path. Returns 0; or -1 with the reason in err, the temporary
 * removed and `<path>` as it was. sf is released either way. */
int um_safe_commit(um_safe_file *sf, char *err, size_t errlen);
/** Give up: close, remove the temporary, release sf. Safe to call twice. */
void um_safe_abort(um_safe_file *sf);

/** Append n bytes to `path` (created if absent) in one write; a failure leaves
 * the file as it was. `header` (may be NULL) is written first when the file is
 * new or empty. Returns 0 or -1 with the reason in err. */
int um_safe_append(const char *path, const char *header, const void *data, size_t n, char *err, size_t errlen);

/** Would an output at `path` be written (before a run, to refuse it early)?
 * in_place_ok: the writer is a stream (um_safe_open) that may write a device
 * or FIFO in place. Returns 0, or -1 with the reason in err. */
int um_safe_check(const char *path, int in_place_ok, char *err, size_t errlen);

/** The descriptor an output path names when it is this process's stdout, stderr or open file N
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N): N, written in place into the open stream
 * (whatever it is: a terminal, a pipe, a regular file the shell redirected it to, appended at the
 * stream's offset, never replaced); -1 for any other path. */
int um_safe_fd_path(const char *path);

/** "the disk is full", "permission denied (is the folder writable?)", ...: a
 * hint for the errno of a failed write, for messages. */
const char *um_safe_why(int eno);

/* ---- reading --------------------------------------------------------------- */
/** Open a file for reading. Every file um reads (configs, suites, references and their
 * field files, meshes, decks, results files, HDF5 inputs) is opened
 * non-blocking (a FIFO never hangs), checked with fstat to be a regular file
 * of at most max_bytes (0: any size), then switched back to blocking. On
 * failure err holds the reason as a phrase for the caller's message ("it is a
 * FIFO (named pipe), not a regular file; ...", "it holds N bytes, more than
 * the M such a file may hold", or the system's reason), errno is set.
 * Returns the file open for reading (*size: its size in bytes, if size is not
 * NULL), or NULL on failure. */
FILE *um_read_open(const char *path, unsigned long long max_bytes, unsigned long long *size, char *err,
                   size_t errlen);
/** The same check only, for files another library opens (HDF5): 0 or -1. */
int um_read_check(const char *path, unsigned long long max_bytes, char *err, size_t errlen);
/** The whole file, NUL-terminated (malloc'ed; *len its length), or NULL. */
char *um_read_all(const char *path, unsigned long long max_bytes, size_t *len, char *err, size_t errlen);

/* ---- cache files ------------------------------------------------------------ */
/** um_safe_append for a file in a cache folder (run.tune's tune.txt): never through a symbolic link (O_NOFOLLOW),
 * never onto anything but a regular file owned by this user (checked with fstat on the open file), created with
 * mode 0600. 0, or -1 with the reason in err; a caller treats a failure as a missed speed-up, never as an error of
 * the run. (Reading cache files: util/cache_dir.h, um_cache_open_read.) */
int um_cache_append(const char *path, const char *header, const void *data, size_t n, char *err, size_t errlen);

/** Install handlers for the signals that end a process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
 * SIGALRM, SIGPIPE, SIGXCPU; one a program inherited as ignored stays ignored) that remove every live temporary,
 * restore the default action and re-raise the signal; and ignore SIGXFSZ, so that a write past the process's file
 * size limit (ulimit -f) fails with EFBIG, which the writers report, instead of killing the process mid-write. For
 * programs (umrun), never called by the library. */
void um_safe_cleanup_on_signals(void);
/** Those signals, into *set (emptied first): what a program blocks around a fork whose child it registers. */
void um_safe_stop_signals(sigset_t *set);
/** What those handlers write on stderr, once, after the clean-up and before the program dies of the signal:
 * "WHO: stopped by SIGINT (Ctrl-C): WHAT" (or SIGTERM, SIGHUP, ...), so that an interrupted program says
 * what happened. Copied (who under 128 bytes, what under 1024; longer, or NULL: nothing is written). */
void um_safe_signal_message(const char *who, const char *what);
/** A child that leads its own process group (umrun's suite and sweep runs: setpgid) which those
 * handlers stop before they remove the temporaries: the group gets the same signal, and what has not
 * ended grace_s seconds later gets SIGKILL (at once on a second signal); then the program dies of the
 * signal, leaving no run behind to write into its outputs. Returns its slot (-1: the table is full, not
 * listed); register it with the signals blocked around fork, unregister it when the child was reaped. */
int um_safe_group_register(int pgid, double grace_s);
/** Unregister the group of `slot` (from um_safe_group_register); -1: nothing to do. */
void um_safe_group_unregister(int slot);
/** Stop the process group that the child pgid leads, from the program (not a handler): SIGTERM to the group,
 * SIGKILL to what is left grace_s seconds later; returns once the leader is reaped and no process of the
 * group is left, or 5 s after the SIGKILL. The group stays registered: the caller unregisters it. */
void um_safe_group_stop(int pgid, double grace_s);
/** A private folder (umrun's temporary field folder) that those handlers remove
 * with the files in it; returns its slot (-1: the table is full, not listed),
 * unregistered when the program removes it itself (um_safe_dir_unregister). */
int um_safe_dir_register(const char *dir);
/** Unregister the folder of `slot` (from um_safe_dir_register) when the program
 * removes it itself; -1: nothing to do. */
void um_safe_dir_unregister(int slot);
/** A file (a compile lock) that those handlers remove; returns its slot (-1:
 * not listed), unregistered when the program removes it itself. */
int um_safe_file_register(const char *path);
/** Unregister the file of `slot` (from um_safe_file_register); -1: nothing to do. */
void um_safe_file_unregister(int slot);
/** Number of live temporaries (for tests). */
int um_safe_live_count(void);

#ifdef __cplusplus
}
#endif
#endif
