/* The host compiler's cache files (hostc_cache.c): sealed modules, compile
 * locks, private work folders, and the litter of runs that died. The folder
 * itself is trusted first (util/cache_dir.h). */
#ifndef UM_CORE_HOSTC_CACHE_H
#define UM_CORE_HOSTC_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define HCC_LOCK_STALE_S 300 /* a lock whose owner cannot be asked is stale after this long */

/* Is the module at `so` the one compiled for `key`, whole? 1 yes; 0 there is no
 * module; -1 there is one but it is not (truncated, swapped, not sealed, not
 * ours): why says which, and the caller removes it and compiles again. */
int hcc_verify(const char *so, uint64_t key, char *why, size_t n);

/* Seal a freshly compiled module: append its key, size and checksum, then
 * flush it to disk. 0, or -1 with why. */
int hcc_seal(const char *so, uint64_t key, char *why, size_t n);

/* A private work folder "<cache>/work-<pid>-XXXXXX" (0700) into out. 0 or -1 (why). */
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
 * and temporaries (only those of processes of this host that are gone). */
void hcc_clean_litter(const char *cache);

#endif
