/* The CUDA error wrapper (cu_fail, behind the CU() macro of cuda_internal.h): the call that failed,
 * CUDA's own text and name, and what to do about it. Every file of the backend calls it; it calls
 * none of them. */
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdio.h>

#include "cuda_internal.h"

int cu_fail(um_context *ctx, cudaError_t e, const char *file, int line, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *hint = "";
  if (e == cudaErrorMemoryAllocation) hint = "; the GPU is out of memory: use a smaller mesh";
  else if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
    hint = "; run on the CPU with backend openmp";
  return um_backend_error(ctx, UM_ERR_BACKEND, file, line, "CUDA: %s failed: %s (%s)%s", what, cudaGetErrorString(e),
                   cudaGetErrorName(e), hint);
}
