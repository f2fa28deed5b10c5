/* The device as the CUDA backend reports it: um_context_device_info's description and the copy
 * benchmark (um_cuda_copy_bandwidth: device-to-device copies timed with CUDA events, the median, measured
 * once per context). Calls go one way: this file calls device_data.c (cu_dalloc), timing.c (cu_sync)
 * and cuda_error.c; none of them calls it. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"
#include "um/cuda.h"

int um_cuda_copy_bandwidth(um_context *ctx, double *gbs) {
  if (!ctx || !gbs) return UM_ERR_ARG;
  if (strcmp(um_context_backend(ctx), "cuda") != 0 || !ST(ctx))
    return UM_BACKEND_ERROR(ctx, UM_ERR_UNSUPPORTED, "um_cuda_copy_bandwidth: the context does not run on the CUDA backend");
  cu_state *S = ST(ctx);
  if (S->copy_gbs > 0) {
    *gbs = S->copy_gbs;
    return UM_SUCCESS;
  }
  UM_BACKEND_CHECK(ctx, cu_sync(ctx, NULL));
  const size_t bytes = (size_t)256 << 20;
  void *a = NULL, *b = NULL;
  UM_BACKEND_CHECK(ctx, cu_dalloc(ctx, &a, bytes, "the copy benchmark", "a"));
  int rc = cu_dalloc(ctx, &b, bytes, "the copy benchmark", "b");
  cudaEvent_t e0 = NULL, e1 = NULL;
  float ms[20];
  const int reps = 20;
  if (rc == UM_SUCCESS && (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess))
    rc = UM_BACKEND_ERROR(ctx, UM_ERR_BACKEND, "CUDA: cannot create events for the copy benchmark");
  if (rc == UM_SUCCESS) {
    cudaMemsetAsync(a, 1, bytes, S->stream);
    for (int i = 0; i < 3; i++) cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, S->stream);
    for (int i = 0; i < reps && rc == UM_SUCCESS; i++) {
      cudaEventRecord(e0, S->stream);
      cudaMemcpyAsync(i % 2 ? a : b, i % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice, S->stream);
      cudaEventRecord(e1, S->stream);
      cudaError_t e = cudaEventSynchronize(e1);
      if (e == cudaSuccess) e = cudaEventElapsedTime(&ms[i], e0, e1);
      if (e != cudaSuccess) rc = cu_fail(ctx, e, __FILE__, __LINE__, "timing the copy benchmark");
    }
  }
  if (rc == UM_SUCCESS) {
    for (int i = 1; i < reps; i++) /* sort for the median */
      for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
        float t = ms[j];
        ms[j] = ms[j - 1];
        ms[j - 1] = t;
      }
    double med = 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    S->copy_gbs = 2.0 * (double)bytes / (1e-3 * med) * 1e-9;
    *gbs = S->copy_gbs;
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  return rc;
}

/* FP64 fused multiply-adds per multiprocessor and clock, by compute capability (NVIDIA's tables): the data-centre
 * chips (P100 6.0, V100 7.0, A100 8.0: 32; H100/H200 9.0, B200 10.0: 64), the others 1/64 of their FP32 rate (2). */
static int fp64_per_sm(int major, int minor) {
  if (major == 6 && minor == 0) return 32;
  if (major == 7 && minor == 0) return 32;
  if (major == 8 && minor == 0) return 32;
  if (major == 9 && minor == 0) return 64;
  if (major == 10 && minor == 0) return 64;
  return 2;
}

/* The device's peak FP64 rate in GFLOP/s (0: the clock cannot be read). */
static double peak_fp64(const cu_state *S) {
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, S->device) != cudaSuccess || khz <= 0) {
    cudaGetLastError();
    return 0;
  }
  return (double)S->prop.multiProcessorCount * fp64_per_sm(S->prop.major, S->prop.minor) * 2.0 * khz * 1e-6;
}

/* um_context_device_info on the CUDA backend (the copy bandwidth measured once). */
int cu_device_info(um_context *ctx, void *state, um_device_info *out) {
  const cu_state *S = state;
  if (!S) return UM_ERR_UNSUPPORTED;
  snprintf(out->name, sizeof out->name, "%s", S->prop.name);
  snprintf(out->compute_capability, sizeof out->compute_capability, "%d.%d", S->prop.major, S->prop.minor);
  out->multiprocessors = S->prop.multiProcessorCount;
  out->memory_bytes = (double)S->prop.totalGlobalMem;
  int dv = 0, rv = 0;
  cudaDriverGetVersion(&dv);
  cudaRuntimeGetVersion(&rv);
  snprintf(out->driver, sizeof out->driver, "%d.%d", dv / 1000, dv % 1000 / 10);
  snprintf(out->runtime, sizeof out->runtime, "%d.%d", rv / 1000, rv % 1000 / 10);
  snprintf(out->profile, sizeof out->profile, "%s", S->profile ? S->profile->name : "");
  out->peak_fp64_gflops = peak_fp64(S);
  double gbs = 0;
  if (um_cuda_copy_bandwidth(ctx, &gbs) == UM_SUCCESS) out->copy_gbs = gbs;
  else um_error_clear(ctx);
  return UM_SUCCESS;
}
