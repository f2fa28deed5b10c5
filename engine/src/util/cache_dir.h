/* The code caches' trust boundary (docs/reliability.md, "The caches"): um
 * loads compiled code and settings from its cache folders only when nobody but
 * the running user could have put them there.
 *
 *  - A cache folder is trusted when it is a real folder (not a symbolic link)
 *    owned by the running user and writable by nobody else (mode & 022 == 0),
 *    and the path to it, walked as given, passes through folders owned by the
 *    user or root that are not writable by others unless sticky (/tmp), nor by
 *    a group with any member but the user, and through symbolic links owned by
 *    the user or root whose targets pass the same walk. Folders um makes for a
 *    cache are made 0700.
 *  - A cache file is read only when it is a regular file (never through a
 *    link), owned by the running user, writable by nobody else, and no larger
 *    than its bound; it is opened non-blocking (a FIFO never hangs).
 *  - A cache file is created only new (O_CREAT | O_EXCL | O_NOFOLLOW, 0600).
 */
#ifndef UM_UTIL_CACHE_DIR_H
#define UM_UTIL_CACHE_DIR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Make `dir` if it is missing (0700, with the folders above it) and check that
 * it can be trusted. 0 trusted; -1 with why ("... is writable by group or
 * others (mode 0777): ..."), a phrase that names the folder. */
int um_cache_dir_ready(const char *dir, char *why, size_t n);

/** Check that nobody but the user (and root) can change where `dir` leads, dir
 * itself included, by the walk above: for a folder um makes its own folder in
 * (a private one in $TMPDIR). 0, or -1 with why. */
int um_cache_parent_ok(const char *dir, char *why, size_t n);

/** Open a cache file for reading under the rules above: a file descriptor, or
 * -1 with why; errno ENOENT when there is no such file (a plain miss). *size,
 * if not NULL: its size in bytes. */
int um_cache_open_read(const char *path, unsigned long long max_bytes, unsigned long long *size, char *why,
                       size_t n);

/** Create a new cache file (O_CREAT | O_EXCL | O_NOFOLLOW, 0600), open for
 * writing; -1 with why (errno EEXIST when something is at the path). */
int um_cache_create(const char *path, char *why, size_t n);

/** Remove a cache work folder and everything in it, `depth` folders deep,
 * without following links (openat, unlinkat). Only a folder owned by the
 * running user is touched. */
void um_cache_remove_tree(const char *dir, int depth);

/** 1 when the process `pid` on this host is gone (kill(pid, 0) says ESRCH). */
int um_cache_pid_dead(long pid);

#ifdef __cplusplus
}
#endif
#endif
