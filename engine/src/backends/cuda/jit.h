/* Run-time compilation of generated kernels with NVRTC, and the disk cache of
 * compiled modules. Needs NVRTC but no GPU and no driver. */
#ifndef UM_CUDA_JIT_H
#define UM_CUDA_JIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *name;  /* for messages: the loop */
  const char *source;
  int nheaders;
  const char *const *header_names;
  const char *const *header_sources;
  int arch;          /* e.g. 90 for sm_90 */
  int ptx;           /* 1: PTX for compute_<arch> (the driver finishes it), 0: a cubin for sm_<arch> */
  const char *cache_dir; /* NULL or "": no disk cache */
  int dump;          /* log the source and the NVRTC log */
  int no_fma;        /* 1: --fmad=false (no a*b+c contracted into one rounding: closer to the host's results) */
  int quick;         /* with ptx: NVRTC's fastest compile (-Ofc=max, NVRTC 12.8 and later), for compile checks */
  /* where diagnostics go (compile errors with the numbered source, dumps); NULL: nowhere */
  void (*log)(void *user, const char *text);
  void *log_user;
} umj_request;

typedef struct {
  void *image;       /* cubin, or NUL-terminated PTX; malloc'ed */
  size_t bytes;
  char *log;         /* NVRTC log (may be empty); malloc'ed */
  int from_cache;    /* 1: loaded from the disk cache */
  int cache_rebuilt; /* 1: a corrupt or stale cache entry was found and replaced */
  double seconds;    /* compile (or cache read) time */
  char cache_file[1024];
} umj_result;

/* Compile (or fetch from the cache). UM_SUCCESS, or an error code with a
 * message in err; on a compile error the log and the numbered source go to
 * rq->log and the log is also in err (truncated to errlen). */
int umj_compile(const umj_request *rq, umj_result *out, char *err, size_t errlen);
void umj_result_free(umj_result *r);

/* "13.0" */
int umj_nvrtc_version(int *major, int *minor);
/* 1 if NVRTC can build sm_<arch> machine code. */
int umj_arch_supported(int arch);
/* Highest architecture NVRTC supports that is <= arch (0 if none). */
int umj_best_arch(int arch);



#ifdef __cplusplus
}
#endif
#endif
