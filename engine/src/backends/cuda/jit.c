/* NVRTC compilation and the disk cache of compiled modules (see jit.h).
 *
 * Cache entries (module_cache.c: the format, its reader and writer) are one
 * file per key, named by a 128-bit hash of the key. The key is the whole input
 * of the compilation: a format version, the NVRTC version, the options, every
 * header's name and text, and the source. An entry that cannot be used
 * (corrupt, stale, or not a cache file um trusts) is removed and replaced by a
 * fresh compilation, never trusted. Entries are written to a temporary file
 * and renamed, so concurrent runs never see half a file. */
#include "jit.h"

#include <errno.h>
#include <nvrtc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "um/um.h"
#include "../../util/hash.h"
#include "um/safe_file.h"
#include "module_cache.h"


int umj_nvrtc_version(int *major, int *minor) {
  return nvrtcVersion(major, minor) == NVRTC_SUCCESS ? UM_SUCCESS : UM_ERR_BACKEND;
}

static int supported_archs(int *list, int cap) {
  int n = 0;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return 0;
  int *all = malloc((size_t)n * sizeof(int));
  if (!all) return 0;
  if (nvrtcGetSupportedArchs(all) != NVRTC_SUCCESS) n = 0;
  if (n > cap) n = cap;
  memcpy(list, all, (size_t)n * sizeof(int));
  free(all);
  return n;
}

int umj_arch_supported(int arch) {
  int list[256], n = supported_archs(list, 256);
  for (int i = 0; i < n; i++)
    if (list[i] == arch) return 1;
  return 0;
}

int umj_best_arch(int arch) {
  int list[256], n = supported_archs(list, 256), best = 0;
  for (int i = 0; i < n; i++)
    if (list[i] <= arch && list[i] > best) best = list[i];
  return best;
}

typedef struct {
  char *s;
  size_t len, cap;
} kbuf;

static int kput(kbuf *k, const void *p, size_t n) {
  if (k->len + n + 1 > k->cap) {
    size_t cap = k->cap ? k->cap : 8192;
    while (cap < k->len + n + 1) cap *= 2;
    char *s = realloc(k->s, cap);
    if (!s) return -1;
    k->s = s;
    k->cap = cap;
  }
  memcpy(k->s + k->len, p, n);
  k->len += n;
  k->s[k->len] = '\0';
  return 0;
}

static int kputs(kbuf *k, const char *s) { return kput(k, s, strlen(s) + 1); /* with the NUL: unambiguous */ }

/* Send `head` and then src with line numbers (and `tail`) to the request's log. */
static void log_numbered(const umj_request *rq, const char *head, const char *src, const char *tail) {
  if (!rq->log) return;
  size_t lines = 1;
  for (const char *p = src; *p; p++) lines += *p == '\n';
  const size_t cap = strlen(head) + strlen(src) + 8 * lines + strlen(tail) + 8;
  char *buf = malloc(cap);
  if (!buf) return;
  size_t k = (size_t)snprintf(buf, cap, "%s%5d  ", head, 1);
  int line = 1;
  for (const char *p = src; *p && k + 16 < cap; p++) {
    buf[k++] = *p;
    if (*p == '\n' && p[1]) k += (size_t)snprintf(buf + k, cap - k, "%5d  ", ++line);
  }
  snprintf(buf + k, cap - k, "\n%s", tail);
  rq->log(rq->log_user, buf);
  free(buf);
}

#define NVRTC_TRY(call, what)                                                                              \
  do {                                                                                                     \
    nvrtcResult r_ = (call);                                                                               \
    if (r_ != NVRTC_SUCCESS) {                                                                             \
      rc = um_format_error(err, errlen, UM_ERR_BACKEND, "NVRTC %s failed for loop '%s': %s", what, rq->name,          \
                nvrtcGetErrorString(r_));                                                                  \
      goto done;                                                                                           \
    }                                                                                                      \
  } while (0)

/* NVRTC's log and the numbered source of a kernel that did not compile, to the log. */
static void log_failure(const umj_request *rq, const char *why, const char *optlist, const char *log) {
  const size_t hn = strlen(log ? log : "") + 1024;
  char *head = malloc(hn);
  if (head) {
    snprintf(head, hn,
             "um cuda: NVRTC could not compile the kernel of loop '%s' (%s, options %s):\n%s\n"
             "--- generated source ---\n",
             rq->name, why, optlist, log ? log : "");
    log_numbered(rq, head, rq->source, "");
    free(head);
  }
}

/* cuda.dump: the numbered source of a kernel compiled for arch, and NVRTC's log when it said something. */
static void log_compiled(const umj_request *rq, const char *arch, const char *log) {
  char head[512];
  snprintf(head, sizeof head, "um cuda: loop '%s' compiled (%s); generated source:\n", rq->name, arch);
  const char *lg = log && *log ? log : "";
  char *tail = malloc(strlen(lg) + 16);
  if (tail) sprintf(tail, "%s%s", *lg ? "NVRTC log:\n" : "", lg);
  log_numbered(rq, head, rq->source, tail ? tail : "");
  free(tail);
}

int umj_compile(const umj_request *rq, umj_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  double t0 = um_wtime();
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return um_format_error(err, errlen, UM_ERR_BACKEND, "NVRTC does not report its version: is libnvrtc installed correctly?");
  char arch_opt[64];
  snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%d", rq->ptx ? "compute" : "sm", rq->arch);
  const char *opts[5];
  int nopts = 0;
  opts[nopts++] = arch_opt;
  opts[nopts++] = "-lineinfo";
  opts[nopts++] = "--std=c++17";
  if (rq->no_fma) opts[nopts++] = "--fmad=false";
  if (rq->quick && rq->ptx && (major > 12 || (major == 12 && minor >= 8))) opts[nopts++] = "-Ofc=max";
  char optlist[256] = ""; /* for messages */
  for (int i = 0; i < nopts; i++)
    snprintf(optlist + strlen(optlist), sizeof optlist - strlen(optlist), "%s%s", i ? " " : "", opts[i]);

  /* the cache key: everything the compilation depends on */
  kbuf key = {0};
  char ver[64];
  snprintf(ver, sizeof ver, "um-cuda-jit 1; nvrtc %d.%d", major, minor);
  int kok = kputs(&key, ver) == 0;
  for (int i = 0; i < nopts && kok; i++) kok = kputs(&key, opts[i]) == 0;
  for (int i = 0; i < rq->nheaders && kok; i++)
    kok = kputs(&key, rq->header_names[i]) == 0 && kputs(&key, rq->header_sources[i]) == 0;
  if (kok) kok = kputs(&key, rq->source) == 0;
  if (!kok) {
    free(key.s);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory building the cache key of loop '%s'", rq->name);
  }
  const int use_cache = rq->cache_dir && *rq->cache_dir;
  if (use_cache) {
    unsigned long long h1 = um_fnv1a(UM_FNV_OFFSET, key.s, key.len);
    unsigned long long h2 = um_fnv1a(0x9E3779B97F4A7C15ull, key.s, key.len);
    snprintf(out->cache_file, sizeof out->cache_file, "%s/%016llx%016llx.%s", rq->cache_dir, h1, h2,
             rq->ptx ? "ptx" : "cubin");
    int hit = umj_cache_read(out->cache_file, key.s, key.len, &out->image, &out->bytes);
    if (hit == 1) {
      free(key.s);
      out->from_cache = 1;
      out->log = calloc(1, 1);
      out->seconds = um_wtime() - t0;
      if (rq->dump) {
        char head[1400];
        snprintf(head, sizeof head, "um cuda: loop '%s': module from the cache %s; generated source:\n", rq->name,
                 out->cache_file);
        log_numbered(rq, head, rq->source, "");
      }
      return UM_SUCCESS;
    }
    if (hit < 0) {
      out->cache_rebuilt = 1;
      remove(out->cache_file);
    }
  }

  int rc = UM_SUCCESS;
  nvrtcProgram prog = NULL;
  int have_prog = 0;
  NVRTC_TRY(nvrtcCreateProgram(&prog, rq->source, "um_loop.cu", rq->nheaders, rq->header_sources,
                               rq->header_names),
            "nvrtcCreateProgram");
  have_prog = 1;
  nvrtcResult cr = nvrtcCompileProgram(prog, nopts, opts);
  size_t logn = 0;
  if (nvrtcGetProgramLogSize(prog, &logn) == NVRTC_SUCCESS && logn > 0) {
    out->log = malloc(logn + 1);
    if (out->log && nvrtcGetProgramLog(prog, out->log) != NVRTC_SUCCESS) out->log[0] = '\0';
    if (out->log) out->log[logn] = '\0';
  }
  if (!out->log) out->log = calloc(1, 1);
  if (cr != NVRTC_SUCCESS) {
    if (rq->log) log_failure(rq, nvrtcGetErrorString(cr), optlist, out->log);
    rc = um_format_error(err, errlen, UM_ERR_BACKEND,
              "NVRTC could not compile the kernel of loop '%s' for %s (%s); the generated source and the full "
              "log were sent to the log (umrun prints it on stderr). Log:\n%s",
              rq->name, arch_opt + 19, nvrtcGetErrorString(cr), out->log ? out->log : "");
    goto done;
  }
  if (rq->dump) log_compiled(rq, arch_opt + 19, out->log);
  size_t n = 0;
  if (rq->ptx) {
    NVRTC_TRY(nvrtcGetPTXSize(prog, &n), "nvrtcGetPTXSize");
  } else {
    NVRTC_TRY(nvrtcGetCUBINSize(prog, &n), "nvrtcGetCUBINSize");
  }
  out->image = malloc(n + 1);
  if (!out->image) {
    rc = um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory for the %zu-byte module of loop '%s'", n, rq->name);
    goto done;
  }
  if (rq->ptx) {
    NVRTC_TRY(nvrtcGetPTX(prog, out->image), "nvrtcGetPTX");
  } else {
    NVRTC_TRY(nvrtcGetCUBIN(prog, out->image), "nvrtcGetCUBIN");
  }
  ((char *)out->image)[n] = '\0';
  out->bytes = n;
  char derr[64];
  if (use_cache && um_make_dirs(rq->cache_dir, derr, sizeof derr) == 0) umj_cache_write(out->cache_file, key.s, key.len, out->image, n);
done:
  if (have_prog) nvrtcDestroyProgram(&prog);
  free(key.s);
  out->seconds = um_wtime() - t0;
  if (rc != UM_SUCCESS) {
    free(out->image);
    out->image = NULL;
  }
  return rc;
}

void umj_result_free(umj_result *r) {
  free(r->image);
  free(r->log);
  r->image = NULL;
  r->log = NULL;
}
