/* The host compiler's cache files (hostc_cache.c): sealed modules, compile
 * locks, private work folders, and the litter of runs that died. The folder
 * itself is trusted first (util/cache_dir.h). */
#ifndef UM_CORE_HOSTC_CACHE_H
#define UM_CORE_HOSTC_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define HCC_LOCK_STALE_S 300 /* a lock whose owner cannot be asked is stale after this long */
#define HCC_LOG_KEEP_DAYS 7 /* a failed compile's log is removed by a later um process once this many days old */

/* Is the module at `so` the one compiled for `key`, whole, and the user's own? 1 yes, and *fd is the descriptor
 * it was checked through (O_RDONLY | O_NOFOLLOW, fstat: a regular file of the user's, writable by nobody else;
 * the seal and checksum read from it): load exactly that with hcc_dlopen, never the path again. 0 there is no
 * module; -1 there is one but it is not (truncated, swapped, not sealed, not ours): why says which, and the caller
 * removes it and compiles again. */
int hcc_verify(const char *so, uint64_t key, int *fd, char *why, size_t n);

/* dlopen the file behind the verified descriptor fd, through /proc/self/fd/<fd> (the path `so` is for messages):
 * the handle, or NULL with why (also when /proc does not show the descriptor: nothing is loaded by path). Keep fd
 * open while the module is loaded. */
void *hcc_dlopen(int fd, const char *so, char *why, size_t n);

/* 1 when /proc shows this process's descriptors (hcc_dlopen can work), else 0. */
int hcc_proc_usable(void);

/* Seal a freshly compiled module of the user's own: make it 0700 (whatever the umask made it), append its key,
 * size and checksum, then flush it to disk. 0, or -1 with why (also for a file of another user's). */
int hcc_seal(const char *so, uint64_t key, char *why, size_t n);

/* A private work folder "<cache>/work-<pid>-<tag>-XXXXXX" (0700) into out, tag: 16 hex digits of this host
 * name, boot id and PID namespace. 0 or -1 (why). */
int hcc_work_dir(const char *cache, char *out, size_t n, char *why, size_t wn);

/* Write text into a new file (never through a link, never over a file). 0 or -1. */
int hcc_write_new(const char *path, const char *text);

/* Take the compile lock at `lock` (the owner's PID and host written in it):
 * 1 go ahead (*made 1: the lock is ours, *slot its signal-cleanup slot; *made
 * 0: no lock could be made, compile without); 0 a live process holds it,
 * holder says which. A lock whose process has died on this host, or that is
 * older than HCC_LOCK_STALE_S (or dated in the future), is taken over. */
int hcc_lock_take(const char *lock, int *slot, int *made, char *holder, size_t hn);

/* 1 while a live process holds the lock, 0 when it is free or stale. */
int hcc_lock_held(const char *lock);

/* Remove the lock taken with hcc_lock_take. */
void hcc_lock_drop(const char *lock, int *slot);

/* Remove what runs that died left in the cache: their work folders, locks
 * and temporaries (only those of processes of this host and PID namespace
 * that are gone; a work folder of an earlier version's, without its tag,
 * once it is a day old), and the logs of failed compiles (hcc_keep_log) once
 * they are HCC_LOG_KEEP_DAYS days old. */
void hcc_clean_litter(const char *cache);

/* The first lines of the compiler's log in the work folder into out (6 lines at most): from the first error in the
 * READ check's copy (its file name ends in `mark`) that says a read-only location is written and that the kernel
 * itself does not have, where there is one (1), else from the first error (0; mark NULL: no copy). */
int hcc_log_excerpt(const char *work, const char *mark, char *out, size_t n);

/* Keep the log of a failed compile out of its work folder (removed next): moved to the module's path `so` with
 * ".log" for ".so", where a later um process leaves it for HCC_LOG_KEEP_DAYS days; a later successful compile of
 * the module removes it (hcc_drop_log). 0 moved (out: where), or -1 (out: the log in the work folder: keep the
 * folder). */
int hcc_keep_log(const char *work, const char *so, char *out, size_t n);
void hcc_drop_log(const char *so);

/* A fingerprint of this CPU (model name and feature flags of the first
 * processor in /proc/cpuinfo) into out: modules built with -march=native are
 * kept per CPU, so a cache folder shared by unlike machines never hands one a
 * module with instructions it lacks. */
void hcc_cpu_id(char *out, size_t n);

/* The compiler `cc` as the run will start it: its path (cc itself, or found in
 * PATH as posix_spawnp would) into path, and its identity (path, device,
 * inode, size, modification time) into id, for the cache key. */
void hcc_compiler_id(const char *cc, char *path, size_t pn, char *id, size_t idn);

/* A private folder for this run's modules when the cache is off or not
 * trusted: "um-hostc-XXXXXX" in $TMPDIR if the path to it passes the cache
 * folder rules (um_cache_parent_ok), else in /tmp if that does; 0, or -1
 * with why (no folder: nothing is compiled). why also says why $TMPDIR was
 * passed over when /tmp served. */
int hcc_private_dir(char *out, size_t n, char *why, size_t wn);

/* Into out: "" or, when err is ENOSPC or EDQUOT or the disk of dir has under
 * 1 MiB free, a phrase naming the cause and the free space. */
void hcc_disk_note(const char *dir, int err, char *out, size_t n);

#endif
