/* Compiled host loops: each loop's range generated for its arguments and
 * compiled with a C compiler at run time, then loaded with dlopen.
 *
 * UM_KERNEL_DEFINE's range function works for any arguments: per element it
 * builds every pointer from run-time descriptors (is there a map? its arity?
 * the row size?), and a global the kernel reduces into lives in memory the
 * compiler must assume any store may touch. Here the engine writes the range
 * OP2's code generator would write for this one loop: dims, map arities and
 * slots, layouts and access modes are constants, a global is a local array
 * (kept in registers), and the kernel is inlined into it. The kernel text is
 * the one the CUDA backend compiles (kernel->source, with um/kernel.h);
 * UM_HOST_COMPILED gives the module its own copies of the UM_CONST constants,
 * filled from um_decl_const as they change, all in one section so that a
 * constant the app never published is found before the code runs.
 *
 * The results are the generic range's, bit for bit: the same operations in the
 * same element order (the compiler flags default to the build's -O3; flags
 * that reassociate, such as -ffast-math, are the user's choice).
 *
 * Modes (hostc.compile): AUTO compiles a loop in the background once it
 * has run compile_after seconds and keeps running the generic range until the
 * compiler is done (a failed compile is a warning); WAIT compiles before the
 * loop's first call (a failed compile is an error). Compiled modules are kept
 * in the cache folder under a hash of everything that shapes them (the kernel
 * text, the arguments' shapes, the compiler and flags): a later run, or
 * another rank, loads them. A lock file lets one process of several compile a
 * module while the others wait for it (they run the generic range). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hostc.h"
#include "core/option_tables.h"
#include "hostc_cache.h"
#include "hostc_gen.h"
#include "um/build_config.h"
#include "util/array.h"
#include "util/cache_dir.h"
#include "util/hash.h"
#include "um/safe_file.h"
#include "util/strbuf.h"

extern char **environ;
extern const char um_kernel_h_source[]; /* um/kernel.h, embedded by CMake */

#define HC_MAX_JOBS 2         /* compilers one process runs at a time */
#define HC_STOP_GRACE_S 2.0   /* a compiler told to stop and still running this long later is killed */
#define HC_PATH 1024
#define HC_ABI "um-hostc-5" /* bump when the generated code changes (4: vectors' um_vec; 5: the READ check) */

enum { HC_NEW, HC_QUEUED, HC_RUNNING, HC_ELSEWHERE, HC_READY, HC_FAILED };

typedef struct {
  uint64_t key;
  int state;
  pid_t pid;
  double started;          /* clock at the compile's start */
  char name[64];           /* the loop, for messages */
  char so[HC_PATH];        /* the module in the cache */
  char work[HC_PATH];      /* private folder of the source, headers, compiler log and output */
  int locked;              /* 1: this process made the module's lock */
  int required;            /* 1: the kernel has no range of its own (declared from source): compiled or failed */
  int lock_slot;           /* the lock's entry in the signal-cleanup table, or -1 */
  int work_slot;           /* the work folder's, or -1 */
  int group_slot;          /* the compiler's process group's, or -1 */
  char *source;            /* generated code, until written */
  char *ksource; /* the kernel header with its READ check (um__hostc_kernel_text), until written */
  char reads[256]; /* the parameters that check makes const (a write through one: its message; "and N more") */
  void *handle;
  int fd;                  /* the descriptor the loaded module was verified through, open while it is loaded, or -1 */
  um_compiled_range fn;
  um_compiled_range fn_simd; /* NULL: the loop has no SIMD range */
  unsigned const_gen;      /* constants copied at this generation */
  int consts_bad;          /* 1: loaded, but the app's constants did not match its kernel header when there were */
  int consts_bad_n;        /* consts_bad_n of them: bound again once the app declares another (um_decl_const) */
  void **cptr;             /* per context constant: its copy in the module, or NULL */
  int ncptr;
} hc_entry;

typedef struct um_hostc {
  hc_entry **e;
  int n, cap;
  int running;
  int pending;             /* 1: some entry is queued, compiling or compiled by another process */
  char cache[HC_PATH - 96]; /* "" : a private folder, removed at the end */
  int private_cache;
  char cc[256];
  char cc_path[HC_PATH];   /* the compiler as found (PATH searched), the program started */
  char cc_id[HC_PATH + 96]; /* its path, inode, size and time, in the cache key */
  int no_load;             /* 1: /proc does not show descriptors: no module can be loaded as checked */
  char cflags[256];
  char cpu[256];           /* this CPU's model and features, in the cache key */
  int warned;              /* one warning per context for failed compiles */
} um_hostc;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


/* The work folder and everything in it (the compiler's temporaries too: it runs with TMPDIR there). */
static void remove_work(hc_entry *e) {
  um_safe_dir_unregister(e->work_slot);
  e->work_slot = -1;
  if (e->work[0]) um_cache_remove_tree(e->work, 2);
  e->work[0] = '\0';
}

/* ---- settings ------------------------------------------------------------ */

/* The host compiler's settings as the context's options say (hostc.compile not set: off, the library's
 * default), read at the first loop into ctx->hostc_set. */
static void read_settings(um_context *ctx) {
  um_option_value v;
  um_compile c = UM_COMPILE_OFF;
  if (ctx->hostc_set.read) return;
  if (um_options_get(&ctx->opts, "hostc.compile", &v) == UM_SUCCESS && v.s) um_compile_parse(v.s, &c);
  ctx->hostc_set.mode = (int)c;
  ctx->hostc_set.simd = um_options_get(&ctx->opts, "hostc.compile_simd", &v) == UM_SUCCESS ? v.i : 1;
  ctx->hostc_set.after = um_options_get(&ctx->opts, "hostc.compile_after", &v) == UM_SUCCESS ? v.d : 0.05;
  ctx->hostc_set.read = 1;
}
static um_compile compile_mode(um_context *ctx) {
  read_settings(ctx);
  return (um_compile)ctx->hostc_set.mode;
}

/* The cache folder in h->cache: run.cache (or the default) when it can be trusted (util/cache_dir.h), else a
 * private folder for this run, with a warning that says why. */
static void open_cache(um_context *ctx, um_hostc *h) {
  char why[1024] = "";
  um_option_value cache;
  if (um_options_get(&ctx->opts, "run.cache", &cache)) cache.s = NULL;
  if (um_cache_dir(cache.s, h->cache, sizeof h->cache) != 0)
    snprintf(why, sizeof why, "the cache folder's path is longer than the %zu characters it may have",
             sizeof h->cache - 1);
  else if (h->cache[0] && um_cache_dir_ready(h->cache, why, sizeof why) == 0) {
    hcc_clean_litter(h->cache);
    return;
  }
  if (why[0])
    um_backend_log(ctx, UM_LOG_WARNING, "um: run.cache: %s; compiled loops are kept for this run only", why);
  h->private_cache = 1;
  const int made = hcc_private_dir(h->cache, sizeof h->cache, why, sizeof why);
  if (why[0]) /* $TMPDIR passed over (for /tmp), or no folder at all */
    um_backend_log(ctx, UM_LOG_WARNING, "um: hostc: %s; %s", why,
                   made == 0 ? "compiling in /tmp instead" : "no loop is compiled (the generic code runs them)");
}

static um_hostc *state(um_context *ctx) {
  if (ctx->hostc) return ctx->hostc;
  um_hostc *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  um_option_value cc, cflags;
  if (um_options_get(&ctx->opts, "hostc.cc", &cc) || (cc.s && !cc.s[0])) cc.s = NULL;
  if (um_options_get(&ctx->opts, "hostc.cflags", &cflags) || (cflags.s && !cflags.s[0])) cflags.s = NULL;
  snprintf(h->cc, sizeof h->cc, "%s", cc.s ? cc.s : UM_C_COMPILER_PATH);
  if (!cc.s && access(h->cc, X_OK) != 0) snprintf(h->cc, sizeof h->cc, "%s", "cc"); /* um moved elsewhere */
  snprintf(h->cflags, sizeof h->cflags, "%s", cflags.s ? cflags.s : UM_HOSTC_DEFAULT_CFLAGS);
  hcc_cpu_id(h->cpu, sizeof h->cpu);
  hcc_compiler_id(h->cc, h->cc_path, sizeof h->cc_path, h->cc_id, sizeof h->cc_id);
  open_cache(ctx, h);
  if ((h->no_load = !hcc_proc_usable()))
    um_backend_log(ctx, UM_LOG_WARNING, "um: hostc: /proc is not mounted, and a compiled module is loaded only "
                   "through the descriptor it was checked on (/proc/self/fd): the loops run their generic code");
  ctx->hostc = h;
  return h;
}

/* Everything that shapes the module: its interface, the compiler (the program run: path, inode, size, time) and flags,
 * um/kernel.h, the kernel text, and each argument's shape. */
static uint64_t loop_key(const um_hostc *h, const um_loop *loop) {
  uint64_t k = UM_FNV_OFFSET;
  const char *strs[] = {HC_ABI, h->cc_id, h->cflags, h->cpu, um_kernel_h_source, loop->kernel->name,
                        loop->kernel->source, loop->kernel->source_name ? loop->kernel->source_name : ""};
  for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) k = um_fnv1a(k, strs[i], strlen(strs[i]) + 1);
  const int repro = loop->set->ctx->reproducible; /* UM_REPRO_MATH: um_cbrt / um_exp portable */
  k = um_fnv1a(k, &repro, sizeof repro);
  return um__hostc_hash_shapes(k, loop);
}

/* ---- compiling ------------------------------------------------------------ */

/* The environment of the compiler: this process's, with TMPDIR in the work folder (its temporaries go there and
 * leave with it). NULL when out of memory; free the array and *own (the one string made here). */
static char **compiler_env(const char *work, char **own) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 2, sizeof *env);
  const size_t len = strlen(work) + 8;
  char *tmpdir = malloc(len);
  if (!env || !tmpdir) {
    free(env);
    free(tmpdir);
    return NULL;
  }
  snprintf(tmpdir, len, "TMPDIR=%s", work);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "TMPDIR=", 7) != 0) env[k++] = environ[i];
  env[k++] = tmpdir;
  env[k] = NULL;
  *own = tmpdir;
  return env;
}

/* The compiler's output in the work folder. */
static void work_module(const hc_entry *e, char *p, size_t n) { snprintf(p, n, "%s/module.so", e->work); }

/* Write the sources into a new private work folder; 0, or -1 and why. */
static int write_work(hc_entry *e, const char *cache, char *why, size_t wn) {
  if (hcc_work_dir(cache, e->work, sizeof e->work, why, wn) != 0) return -1;
  e->work_slot = um_safe_dir_register(e->work);
  char p[HC_PATH + 64];
  snprintf(p, sizeof p, "%s/um", e->work);
  int ok = mkdir(p, 0700) == 0;
  snprintf(p, sizeof p, "%s/um/kernel.h", e->work);
  ok = ok && hcc_write_new(p, um_kernel_h_source) == 0;
  snprintf(p, sizeof p, "%s/kernels.h", e->work);
  ok = ok && hcc_write_new(p, e->ksource) == 0;
  snprintf(p, sizeof p, "%s/loop.c", e->work);
  ok = ok && hcc_write_new(p, e->source) == 0;
  free(e->ksource);
  e->ksource = NULL;
  if (!ok) {
    snprintf(why, wn, "cannot write the loop's source into %s: %s", e->work, strerror(errno));
    remove_work(e);
    return -1;
  }
  free(e->source);
  e->source = NULL;
  return 0;
}

/* Write the work folder and start the compiler; 0 on success, else -1 and why. */
static int start_compile(um_hostc *h, hc_entry *e, char *why, size_t wn) {
  if (write_work(e, h->cache, why, wn) != 0) return -1;
  /* argv: cc, the flags split at spaces, then what a loadable module needs */
  char flags[sizeof h->cflags], out[HC_PATH + 64], src[HC_PATH + 64], inc[HC_PATH + 64], log[HC_PATH + 64];
  snprintf(flags, sizeof flags, "%s", h->cflags);
  work_module(e, out, sizeof out);
  snprintf(src, sizeof src, "%s/loop.c", e->work);
  snprintf(inc, sizeof inc, "-I%s", e->work);
  snprintf(log, sizeof log, "%s/cc.log", e->work);
  char *argv[64];
  int n = 0;
  argv[n++] = h->cc;
  for (char *save = NULL, *t = strtok_r(flags, " \t", &save); t && n < 48; t = strtok_r(NULL, " \t", &save))
    argv[n++] = t;
  char *fixed[] = {"-fPIC", "-shared", "-Wl,-Bsymbolic", inc, "-o", out, src, "-lm"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[n++] = fixed[i];
  argv[n] = NULL;
  char *own = NULL;
  char **env = compiler_env(e->work, &own);
  posix_spawn_file_actions_t fa;
  if (!env || posix_spawn_file_actions_init(&fa) != 0) {
    free(env);
    free(own);
    snprintf(why, wn, "out of memory starting the compiler");
    remove_work(e);
    return -1;
  }
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  /* The compiler leads its own process group: stopping it stops what it started (cc1, as, ld), which would
   * otherwise go on writing into the work folder while it is removed. The stop signals are blocked from the
   * spawn until the group is listed for the signal handlers (um_safe_cleanup_on_signals); the child
   * gets this thread's mask back. */
  posix_spawnattr_t at;
  sigset_t stops, old;
  um_safe_stop_signals(&stops);
  pthread_sigmask(SIG_BLOCK, &stops, &old);
  int rc = posix_spawnattr_init(&at);
  if (rc == 0) {
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigmask(&at, &old);
    rc = posix_spawnp(&e->pid, h->cc_path, &fa, &at, argv, env);
    posix_spawnattr_destroy(&at);
  }
  if (rc == 0) e->group_slot = um_safe_group_register((int)e->pid, HC_STOP_GRACE_S);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  free(own);
  if (rc != 0) {
    const char *hint = rc == EAGAIN   ? "this user may start no more processes: see ulimit -u" /* not the compiler */
                       : rc == ENOMEM ? "out of memory"
                                      : "set hostc.cc to a C compiler";
    snprintf(why, wn, "cannot start the compiler '%s': %s (%s)", h->cc, strerror(rc), hint);
    remove_work(e);
    return -1;
  }
  e->started = now();
  e->state = HC_RUNNING;
  h->running++;
  h->pending = 1;
  return 0;
}

static void lock_path(const hc_entry *e, char *p, size_t n) { snprintf(p, n, "%s.lock", e->so); }

/* Take the module's lock: 1 taken, 0 another live process holds it (holder: which). */
static int take_lock(hc_entry *e, char *holder, size_t hn) {
  char p[HC_PATH + 16];
  lock_path(e, p, sizeof p);
  return hcc_lock_take(p, &e->lock_slot, &e->locked, holder, hn);
}

static void drop_lock(hc_entry *e) {
  char p[HC_PATH + 16];
  lock_path(e, p, sizeof p);
  if (e->locked) hcc_lock_drop(p, &e->lock_slot);
  e->locked = 0;
}

static int lock_held(const hc_entry *e) {
  char p[HC_PATH + 16];
  lock_path(e, p, sizeof p);
  return hcc_lock_held(p);
}

/* ---- loading -------------------------------------------------------------- */

typedef struct {
  char *p;
  size_t size;
} crange;

static int by_address(const void *a, const void *b) {
  const char *x = ((const crange *)a)->p, *y = ((const crange *)b)->p;
  return x < y ? -1 : x > y;
}

/* Find each context constant's copy in the module and check that they are all
 * of the module's constants, with the sizes the app declared. */
static int bind_consts(um_context *ctx, hc_entry *e, char *why, size_t n) {
  char *(*cb)(void) = (char *(*)(void))dlsym(e->handle, "um__consts_begin");
  char *(*ce)(void) = (char *(*)(void))dlsym(e->handle, "um__consts_end");
  if (!cb || !ce) return snprintf(why, n, "the module lacks its constants' bounds"), -1;
  char *begin = cb(), *end = ce();
  free(e->cptr);
  e->cptr = calloc((size_t)(ctx->nconsts > 0 ? ctx->nconsts : 1), sizeof *e->cptr);
  crange *r = calloc((size_t)(ctx->nconsts > 0 ? ctx->nconsts : 1), sizeof *r);
  if (!e->cptr || !r) {
    free(r);
    return snprintf(why, n, "out of memory"), -1;
  }
  e->ncptr = ctx->nconsts;
  int nr = 0;
  for (int i = 0; i < ctx->nconsts; i++) {
    const um_const *c = &ctx->consts[i];
    char *p = begin ? (char *)dlsym(e->handle, c->name) : NULL;
    if (!p || p < begin || p >= end) continue; /* not a constant of this kernel header */
    const size_t bytes = (size_t)c->dim * c->esize;
    e->cptr[i] = p;
    r[nr].p = p;
    r[nr++].size = bytes;
  }
  qsort(r, (size_t)nr, sizeof *r, by_address);
  char *cursor = begin;
  for (int i = 0; i < nr; i++) { /* each constant starts 8-aligned right after the one before */
    uintptr_t next = ((uintptr_t)cursor + 7u) & ~(uintptr_t)7u;
    if ((uintptr_t)r[i].p != next) break;
    cursor = r[i].p + r[i].size;
  }
  free(r);
  if (begin && cursor != end && ((((uintptr_t)cursor + 7u) & ~(uintptr_t)7u) != (uintptr_t)end || cursor > end))
    return snprintf(why, n,
                    "the kernel header's UM_CONST constants (%zu bytes) are not those the app declared with "
                    "um_decl_const (%zu bytes of them match): one was never published, or its size differs; "
                    "publish each one (um_decl_const; Python: ctx.decl_const) with the header's size, and the loop "
                    "runs compiled from its next call (one declared with another size cannot change: a new context)",
                    (size_t)(end - begin), (size_t)(cursor - begin)),
           -3;
  e->const_gen = ctx->const_gen - 1; /* copy before the first call */
  return 0;
}

/* Load the module verified through fd (hcc_verify), never its path again: e keeps fd while the module is loaded.
 * 0 loaded; -1 the module does not load (compile it again); -2 it loads but the app's constants do not match its
 * kernel header (no compile will help; kept loaded, bound again once the app declares another constant). */
static int load(um_context *ctx, hc_entry *e, int fd, char *why, size_t n) {
  e->consts_bad = 0;
  e->fd = fd;
  e->handle = hcc_dlopen(fd, e->so, why, n);
  if (!e->handle) return -1;
  e->fn = (um_compiled_range)dlsym(e->handle, "um__compiled_range");
  if (!e->fn) return snprintf(why, n, "%s has no range function", e->so), -1;
  e->fn_simd = (um_compiled_range)dlsym(e->handle, "um__compiled_range_simd");
  const int b = bind_consts(ctx, e, why, n);
  if (b == -3) e->consts_bad = 1, e->consts_bad_n = ctx->nconsts;
  if (b != 0) return b == -3 ? -2 : -1;
  e->state = HC_READY;
  return 0;
}

static void unload(hc_entry *e) {
  if (e->handle) dlclose(e->handle);
  e->handle = NULL;
  if (e->fd >= 0) close(e->fd);
  e->fd = -1;
}

static void sync_consts(um_context *ctx, hc_entry *e) {
  if (e->const_gen == ctx->const_gen) return;
  for (int i = 0; i < ctx->nconsts && i < e->ncptr; i++)
    if (e->cptr[i]) memcpy(e->cptr[i], ctx->consts[i].data, (size_t)ctx->consts[i].dim * ctx->consts[i].esize);
  e->const_gen = ctx->const_gen;
}

/* A compile or load failed: AUTO warns once and runs the generic range, WAIT fails the loop. */
static int failed(um_context *ctx, um_hostc *h, hc_entry *e, const char *why) {
  e->state = HC_FAILED;
  if (e->required)
    return UM_BACKEND_ERROR(ctx, UM_ERR_BACKEND, "loop '%s': %s: %s%s", e->name,
                            e->consts_bad ? "its compiled kernel cannot run yet" : "compiling its kernel failed", why,
                            e->consts_bad ? "" : " (a kernel declared from source alone runs as compiled host code "
                                                 "only: fix its source)");
  if (compile_mode(ctx) == UM_COMPILE_WAIT)
    return UM_BACKEND_ERROR(ctx, UM_ERR_BACKEND,
                    "loop '%s': compiling its host code failed: %s (hostc.compile: auto runs the generic code "
                    "instead; off never compiles)",
                    e->name, why);
  if (!h->warned++)
    um_backend_log(ctx, UM_LOG_WARNING,
                   "um: loop '%s' keeps its generic host code: %s (same results, slower; hostc.compile: off stops "
                   "trying)",
                   e->name, why);
  else um_backend_log(ctx, UM_LOG_INFO, "um: loop '%s' keeps its generic host code: %s", e->name, why);
  return UM_SUCCESS;
}

/* e's module from the cache, if it is there and whole: 1 done (*rc: loaded, or failed for good); 0 a miss (a
 * module that is not whole or not e's is removed, with a warning that says why). */
static int from_cache(um_context *ctx, um_hostc *h, hc_entry *e, int *rc) {
  char why[3 * HC_PATH];
  int fd = -1;
  const int v = hcc_verify(e->so, e->key, &fd, why, sizeof why);
  if (v == 0) return 0;
  if (v > 0) {
    const int l = load(ctx, e, fd, why, sizeof why);
    if (l == 0 || l == -2) {
      *rc = l == 0 ? UM_SUCCESS : failed(ctx, h, e, why);
      return 1;
    }
    unload(e);
  }
  um_backend_log(ctx, UM_LOG_WARNING, "um: loop '%s': the cached module is not used: %s; compiling it again", e->name,
                 why);
  /* a module that passed its seal is whole: one that would not load failed for this process (too few file
   * descriptors, no memory) and stays for the next run; a new compile replaces it */
  if (v < 0) unlink(e->so);
  return 0;
}

/* The compiler of e finished (or must be waited for): seal its module, move it into the cache and load it. */
static int finish(um_context *ctx, um_hostc *h, hc_entry *e, int block) {
  int status = 0;
  pid_t r;
  do r = waitpid(e->pid, &status, block ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == 0) return UM_SUCCESS; /* still compiling */
  h->running--;
  e->pid = 0;
  um_safe_group_unregister(e->group_slot); /* the driver ended after what it started */
  e->group_slot = -1;
  char out[HC_PATH + 64], why[5 * HC_PATH]; /* the compiler, its flags, the log and its excerpt */
  work_module(e, out, sizeof out);
  if (!(r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    drop_lock(e);
    char excerpt[900], disk[HC_PATH + 160], log[HC_PATH + 16];
    const int rd = hcc_log_excerpt(e->work, e->reads[0] ? UM_HOSTC_READ_MARK : NULL, excerpt, sizeof excerpt);
    hcc_disk_note(e->work, 0, disk, sizeof disk); /* a full disk: the compiler's own words seldom say so */
    const int kept = hcc_keep_log(e->work, e->so, log, sizeof log) == 0; /* else the work folder stays for it */
    char keep[64] = "kept while this process runs";
    if (kept)
      snprintf(keep, sizeof keep, h->private_cache ? "left in this run's folder" : "kept %d days", HCC_LOG_KEEP_DAYS);
    snprintf(why, sizeof why, "%s%s%s%s %s failed%s (log: %s, %s)%s%s", rd ? "the kernel writes through " : "",
             rd ? e->reads : "",
             rd ? ", which its loop passes as READ (on the CPU the dat would change, on a GPU a "
                  "copy): pass it as RW or WRITE, or write into a local copy; "
                : "",
             h->cc, h->cflags, disk, log, keep, excerpt[0] ? ":\n" : "", excerpt);
    if (kept)
      remove_work(e);
    else
      um_safe_dir_unregister(e->work_slot), e->work_slot = -1;
    return failed(ctx, h, e, why);
  }
  /* sealed, then opened and verified once; that descriptor is what is moved into the cache and loaded */
  int fd = -1, ok = hcc_seal(out, e->key, why, sizeof why) == 0 && hcc_verify(out, e->key, &fd, why, sizeof why) > 0;
  if (ok && rename(out, e->so) != 0) {
    snprintf(why, sizeof why, "cannot move the module into %s: %s", e->so, strerror(errno));
    ok = 0;
  }
  if (!ok) {
    char disk[HC_PATH + 160];
    hcc_disk_note(h->cache, errno, disk, sizeof disk);
    strncat(why, disk, sizeof why - strlen(why) - 1);
    if (fd >= 0) close(fd);
  }
  drop_lock(e);
  remove_work(e);
  if (ok) hcc_drop_log(e->so); /* an earlier failed compile's */
  if (!ok) return failed(ctx, h, e, why);
  const int l = load(ctx, e, fd, why, sizeof why);
  if (l != 0) {
    if (l == -1) unload(e);
    return failed(ctx, h, e, why);
  }
  um_backend_log(ctx, UM_LOG_INFO, "um: loop '%s' runs compiled host code (compiled in %.2f s: %s)", e->name,
                 now() - e->started, e->so);
  return UM_SUCCESS;
}

/* WAIT mode while another process compiles e's module (holder: which): wait for the module; take the lock over
 * and compile here when that process dies or its lock goes stale. */
static int wait_elsewhere(um_context *ctx, um_hostc *h, hc_entry *e, const char *holder) {
  char why[3 * HC_PATH], other[HC_PATH + 128];
  int rc = UM_SUCCESS, told = 0;
  for (const double t0 = now(); now() - t0 < HCC_LOCK_STALE_S; usleep(20000)) {
    if (from_cache(ctx, h, e, &rc)) return rc;
    if (!lock_held(e) && take_lock(e, other, sizeof other)) {
      if (start_compile(h, e, why, sizeof why) != 0) {
        drop_lock(e);
        return failed(ctx, h, e, why);
      }
      return finish(ctx, h, e, 1);
    }
    if (!told && now() - t0 > 2) {
      um_backend_log(ctx, UM_LOG_WARNING, "um: loop '%s' waits for its module, being compiled by %s", e->name, holder);
      told = 1;
    }
  }
  snprintf(why, sizeof why, "%s held the compile lock for %d s and left no module", holder, HCC_LOCK_STALE_S);
  return failed(ctx, h, e, why);
}

/* Start e's compile, or queue it behind the running ones; WAIT: compile now. */
static int begin(um_context *ctx, um_hostc *h, hc_entry *e, int block) {
  char why[3 * HC_PATH], holder[HC_PATH + 128];
  int rc = UM_SUCCESS;
  if (!h->cache[0]) return failed(ctx, h, e, "no folder to compile in (cache and $TMPDIR not writable)");
  if (from_cache(ctx, h, e, &rc)) return rc; /* compiled before (an earlier run, another rank) */
  if (!block && h->running >= HC_MAX_JOBS) {
    e->state = HC_QUEUED;
    h->pending = 1;
    return UM_SUCCESS;
  }
  if (!h->private_cache && !take_lock(e, holder, sizeof holder)) {
    if (block) return wait_elsewhere(ctx, h, e, holder);
    e->state = HC_ELSEWHERE;
    h->pending = 1;
    return UM_SUCCESS;
  }
  if (start_compile(h, e, why, sizeof why) != 0) {
    drop_lock(e);
    return failed(ctx, h, e, why);
  }
  return block ? finish(ctx, h, e, 1) : UM_SUCCESS;
}

static hc_entry *find_or_add(um_hostc *h, const um_loop *loop, uint64_t key) {
  for (int i = 0; i < h->n; i++)
    if (h->e[i]->key == key) return h->e[i];
  if (UM_GROW(h->e, h->cap, h->n)) return NULL;
  hc_entry *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->key = key;
  e->lock_slot = e->work_slot = e->group_slot = e->fd = -1;
  snprintf(e->name, sizeof e->name, "%s", loop->name);
  snprintf(e->so, sizeof e->so, "%s/host-%016llx.so", h->cache, (unsigned long long)key);
  e->required = !loop->kernel->range;
  h->e[h->n++] = e;
  return e;
}

/* Advance the compiles in flight (cheap when none are). */
static int poll_all(um_context *ctx, um_hostc *h) {
  for (int i = 0; i < h->n; i++) {
    hc_entry *e = h->e[i];
    if (e->state == HC_RUNNING) UM_BACKEND_CHECK(ctx, finish(ctx, h, e, 0));
    else if (e->state == HC_ELSEWHERE) {
      int rc = UM_SUCCESS;
      if (from_cache(ctx, h, e, &rc)) UM_BACKEND_CHECK(ctx, rc);
      else if (!lock_held(e)) e->state = HC_QUEUED; /* its compiler's process died: compile it here */
    }
  }
  for (int i = 0; i < h->n && h->running < HC_MAX_JOBS; i++)
    if (h->e[i]->state == HC_QUEUED) UM_BACKEND_CHECK(ctx, begin(ctx, h, h->e[i], 0));
  h->pending = 0;
  for (int i = 0; i < h->n; i++) {
    const int st = h->e[i]->state;
    h->pending |= st == HC_QUEUED || st == HC_RUNNING || st == HC_ELSEWHERE;
  }
  return UM_SUCCESS;
}

/* A quick fingerprint of the loop's kernel and argument shapes (no text hashed):
 * while a loop keeps it, its entry is found without computing the key. */
static uint64_t quick_shape(const um_loop *loop) {
  uint64_t k = um_fnv1a(UM_FNV_OFFSET, &loop->kernel, sizeof loop->kernel);
  k = um_fnv1a(k, &loop->kernel->source, sizeof loop->kernel->source);
  return um__hostc_hash_shapes(k, loop);
}

/* Which range the loop's next call runs: the scalar one without a SIMD range
 * (or with compile_simd -1); the SIMD one with compile_simd 1; otherwise the
 * first HC_TRIALS calls alternate the two and the faster call wins. Both give
 * the same bits, so ranks that choose differently still agree. */
#define HC_TRIALS 6
static um_compiled_range choose(um_context *ctx, const hc_entry *e, um_hostc_memo *m) {
  m->ran = 0;
  read_settings(ctx);
  if (!e->fn_simd || ctx->hostc_set.simd == 0) return e->fn; /* off, auto, on: 0, 1, 2 */
  if (ctx->hostc_set.simd == 2) m->ran = 1;
  else if (m->pick >= 0) m->ran = m->pick;
  else m->ran = m->trials & 1;
  return m->ran ? e->fn_simd : e->fn;
}

static void memo_timed(um_hostc_memo *m, double seconds) {
  if (m->ran < 0 || m->pick >= 0) return;
  if (m->trials < 2 || seconds < m->best[m->ran]) m->best[m->ran] = seconds;
  if (++m->trials >= HC_TRIALS) m->pick = m->best[1] < m->best[0];
}

void um__hostc_timed(um_context *ctx, const um_loop *loop, double seconds) {
  um_hostc_memo *m = &ctx->loops[loop->id].hostc;
  if (m->ran >= 0) m->seconds += seconds;
}

int um__hostc_range(um_context *ctx, um_loop *loop) {
  um_loop_rec *r = &ctx->loops[loop->id];
  um_hostc_memo *m = &r->hostc;
  const long call = ctx->call_serial; /* a later piece of this call: the same */
  loop->compiled = NULL;
  if (m->call == call) { /* a later piece of the call: the range its first piece ran */
    loop->compiled = m->fn;
    return UM_SUCCESS;
  }
  if (m->call) memo_timed(m, m->seconds); /* the last call's time, its pieces summed */
  m->call = call;
  m->fn = NULL;
  m->seconds = 0;
  m->ran = -1;
  const double loop_seconds = r->seconds;
  const um_compile mode = compile_mode(ctx);
  const int required = !loop->kernel->range; /* declared from source (um_decl_kernel): compiled, whatever the mode */
  if ((mode == UM_COMPILE_OFF && !required) || !ctx->backend->caps.host_code || !loop->kernel->source)
    return UM_SUCCESS;
  const int block = mode == UM_COMPILE_WAIT || required;
  const double after = ctx->hostc_set.after;
  if (!block && !ctx->hostc && loop_seconds < after) return UM_SUCCESS;
  um_hostc *h = state(ctx);
  if (!h) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory compiling loop '%s'", loop->name);
  if (h->no_load && !required) return UM_SUCCESS; /* said once, when h was made */
  if (h->pending) UM_BACKEND_CHECK(ctx, poll_all(ctx, h));
  const uint64_t shape = quick_shape(loop);
  hc_entry *e = m->last && m->shape == shape ? (hc_entry *)m->last : NULL;
  if (!e) {
    e = find_or_add(h, loop, loop_key(h, loop));
    if (!e) return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory compiling loop '%s'", loop->name);
    if (e != m->last) m->trials = 0, m->pick = -1; /* another module: choose its range again */
    m->last = e;
    m->shape = shape;
  }
  um_setup_begin(ctx, UM_SETUP_COMPILE); /* what the set-up waits for: a compile, a module loaded */
  if (e->state == HC_NEW && (block || loop_seconds >= after)) {
    if (!e->source) e->source = um__hostc_generate(loop); /* kept from a try that ran out of memory after it */
    if (!e->ksource) e->ksource = um__hostc_kernel_text(loop, e->reads, sizeof e->reads);
    if (!e->source || !e->ksource)
      return UM_BACKEND_ERROR(ctx, UM_ERR_ALLOC, "out of memory generating host code for loop '%s'", loop->name);
    e->state = HC_QUEUED;
    UM_BACKEND_CHECK(ctx, begin(ctx, h, e, block));
  } else if (block && e->state != HC_READY && e->state != HC_FAILED) {
    if (e->state == HC_RUNNING) UM_BACKEND_CHECK(ctx, finish(ctx, h, e, 1));
    else UM_BACKEND_CHECK(ctx, begin(ctx, h, e, 1));
  }
  um_setup_end(ctx, UM_SETUP_COMPILE);
  if (e->state == HC_FAILED && e->consts_bad && e->consts_bad_n != ctx->nconsts) { /* a constant declared since */
    char why[512];
    const int b = bind_consts(ctx, e, why, sizeof why);
    if (b == 0) e->state = HC_READY, e->consts_bad = 0;
    else {
      e->consts_bad = b == -3, e->consts_bad_n = ctx->nconsts;
      UM_BACKEND_CHECK(ctx, failed(ctx, h, e, why));
    }
  }
  if (e->state != HC_READY && required && e->consts_bad) /* its error was returned when found */
    return UM_BACKEND_ERROR(ctx, UM_ERR_BACKEND,
                            "loop '%s': kernel '%s' waits for its UM_CONST constants: publish them (um_decl_const; "
                            "Python: ctx.decl_const) with the sizes its header declares",
                            loop->name, loop->kernel->name);
  if (e->state != HC_READY && required) /* failed before (its error was returned then) */
    return UM_BACKEND_ERROR(ctx, UM_ERR_BACKEND, "loop '%s': kernel '%s' has no host code: its compile failed",
                            loop->name, loop->kernel->name);
  if (e->state != HC_READY) return UM_SUCCESS;
  sync_consts(ctx, e);
  loop->compiled = m->fn = choose(ctx, e, m);
  r = &ctx->loops[loop->id];
  r->compiled_calls++;
  if (m->ran == 1) r->simd_calls++;
  return UM_SUCCESS;
}

void um__hostc_free(um_context *ctx) {
  um_hostc *h = ctx->hostc;
  if (!h) return;
  for (int i = 0; i < h->n; i++) {
    hc_entry *e = h->e[i];
    if (e->state == HC_RUNNING && e->pid > 0) { /* the run ends first: stop its compiler, leave nothing half-made */
      um_safe_group_stop((int)e->pid, HC_STOP_GRACE_S);
      um_safe_group_unregister(e->group_slot);
      e->group_slot = -1;
    }
    drop_lock(e);
    if (e->state != HC_FAILED) remove_work(e);
    else um_safe_dir_unregister(e->work_slot); /* kept for its log */
    unload(e);
    if (h->private_cache) unlink(e->so);
    free(e->source);
    free(e->ksource);
    free(e->cptr);
    free(e);
  }
  if (h->private_cache && h->cache[0]) rmdir(h->cache);
  free(h->e);
  free(h);
  ctx->hostc = NULL;
}

/* ---- the options the host compiler reads (um/option_decl.h): declared here, once ------------------------------ */

/* A text setting no longer than the buffer the host compiler copies it into (255 characters). */
static int set_program(um_options *o, const um_option *d, const um_option_value *v, char *err, size_t len) {
  if (v->s && strlen(v->s) > 255) {
    if (err && len) snprintf(err, len, "%s is %zu characters long: at most 255", d->key, strlen(v->s));
    return UM_ERR_ARG;
  }
  return um_option_to_setting(o, d, v, err, len);
}

/* The earlier spelling of a key (run.compile ...), still read: um_option_apply and the runner apply it
 * to the key it is now. */
#define RENAMED(old, now)                                                                                          \
  {.key = old, .type = UM_OPT_STRING, .renamed_to = now, .component = "hostc",                                     \
   .help = "the earlier spelling of " now ", still read (with a note)"}

const um_option um_hostc_options[] = {
    {.key = "hostc.compile", .type = UM_OPT_CHOICE, .def = "auto", .choices = UM_CHOICES("auto", "wait", "off"),
     .flags = UM_OPT_CONFIG_DEFAULT, /* a library caller that sets nothing: off (it asks for compiling) */
     .help = "CPU backends: each loop's host code generated for its\n"
             "arguments and compiled with a C compiler at run time (OP2's per-loop\n"
             "code, same results bit for bit). auto: in the background once a loop has\n"
             "run hostc.compile_after seconds, the generic code running meanwhile;\n"
             "wait: before each loop's first call (a failed compile is an error)",
     .component = "hostc", .to_options = um_option_to_setting},
    {.key = "hostc.compile_after", .type = UM_OPT_DOUBLE, .def = "0.05", .min = 0, .max = 1e6,
     .range_hint = "use 0 .. 1e6 seconds", .flags = UM_OPT_RANGE | UM_OPT_HINT_DEFAULT,
     .help = "hostc.compile auto: seconds a loop runs before it is compiled", .component = "hostc",
     .to_options = um_option_to_setting},
    {.key = "hostc.compile_simd", .type = UM_OPT_CHOICE, .def = "auto", .choices = UM_CHOICES("off", "auto", "on"),
     .help = "a loop whose indirect and global arguments are all read (and\n"
             "none a vector argument) also gets a SIMD range (elements in groups,\n"
             "same bits); auto: its\n"
             "first calls time both ranges and the faster one stays",
     .component = "hostc", .to_options = um_option_to_setting},
    {.key = "hostc.cc", .type = UM_OPT_STRING,
     .help = "the compiler (default: the one um was built with); a program um\n"
             "runs, so only --set names it (a config or UM_OPTIONS: --allow-compiler)",
     .component = "hostc", .to_options = set_program},
    {.key = "hostc.cflags", .type = UM_OPT_STRING,
     .help = "its flags (default '" UM_HOSTC_DEFAULT_CFLAGS "':\n"
             "this CPU, same bits as the generic code; e.g. -ffast-math changes them);\n"
             "like hostc.cc, only from --set unless --allow-compiler",
     .component = "hostc", .to_options = set_program},
    RENAMED("run.compile", "hostc.compile"),
    RENAMED("run.compile_after", "hostc.compile_after"),
    RENAMED("run.compile_simd", "hostc.compile_simd"),
    RENAMED("run.cc", "hostc.cc"),
    RENAMED("run.cflags", "hostc.cflags"),
};
const int um_hostc_noptions = (int)(sizeof um_hostc_options / sizeof um_hostc_options[0]);
