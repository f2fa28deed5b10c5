/* Named ranges for the profilers (NVTX): each loop call is a range named after the loop, and the stages inside
 * it are ranges named "exchange" (halos), "plan" (the plan builder), "compile" (a kernel compiled at run time)
 * and "upload" (dats and maps copied to the device), so that Nsight Systems shows a step's timeline by loop and
 * Nsight Compute selects one loop's kernels by its range (ncu --nvtx --nvtx-include "res_calc/"; docs/cuda.md).
 *
 * Built with NVTX where the CUDA toolkit ships its header-only nvtx3 (UM_HAVE_NVTX): with no tool attached a
 * push or pop is a call through a pointer that does nothing; without NVTX they are empty. Ranges nest per
 * thread and every push has its pop on every path (UM_TRACED). */
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

/* The value of `call`, evaluated inside a range named `name` (a loop, a stage): the comma operator pushes
 * before the call's evaluation, um_trace_end pops after it. */
static inline int um_trace_end(int rc) {
  um_trace_pop();
  return rc;
}
#define UM_TRACED(name, call) (um_trace_push(name), um_trace_end(call))
#endif
