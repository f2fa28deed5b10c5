/* Named ranges for the profilers (NVTX): each loop call is a range named after the loop, and the stages inside
 * it are ranges named "exchange" (halos), "plan" (the plan builder), "compile" (a kernel compiled at run time)
 * and "upload" (dats and maps copied to the device), so that Nsight Systems shows a step's timeline by loop and
 * Nsight Compute selects one loop's kernels by its range (ncu --nvtx --nvtx-include "res_calc/"; docs/cuda.md).
 *
 * Built with NVTX where the CUDA toolkit ships its header-only nvtx3 (UM_HAVE_NVTX): with no tool attached a
 * push or pop is a call through a pointer that does nothing; without NVTX they are empty. Ranges nest per
 * thread and every push has its pop on every path (UM_TRACE_CALL). */
#ifndef UM_TRACE_H
#define UM_TRACE_H

#ifdef UM_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
static inline void um_trace_push(const char *name) { nvtxRangePushA(name); }
static inline void um_trace_pop(void) { nvtxRangePop(); }
#else
static inline void um_trace_push(const char *name) { (void)name; }
static inline void um_trace_pop(void) {}
#endif

/* rc = call, inside a range named `name` (a stage) */
#define UM_TRACE_CALL(name, rc, call) \
  do {                                \
    um_trace_push(name);              \
    (rc) = (call);                    \
    um_trace_pop();                   \
  } while (0)
#endif
