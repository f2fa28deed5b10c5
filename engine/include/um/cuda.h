/** @file um/cuda.h
 * Entry points of the CUDA backend beyond the common API
 * (available in builds configured with -DUM_ENABLE_CUDA=ON; UM_HAVE_CUDA is
 * then defined).
 *
 * Code generation and NVRTC compilation need no GPU: a context running on any
 * backend (seq, say) remembers each loop's last argument list, and
 * um_cuda_generate_loop / um_cuda_compile_loop build the kernel the CUDA
 * backend would run for it, for any strategy, layout and architecture. The
 * CI uses this to compile every loop of every app with NVRTC.
 *
 * Settings of the backend (um_options_set_backend, config keys cuda.*, or the
 * environment UM_CUDA_<KEY>; umrun --help lists them):
 *   cuda.profile    auto | p100 | v100 | a100 | h100 | h200
 *   cuda.staging    auto | inc | all | none
 *   cuda.cache      directory of compiled modules (default $XDG_CACHE_HOME/um
 *                   or ~/.cache/um); "off" disables the disk cache
 *   cuda.dump=1     log every generated kernel (and the NVRTC log)
 *   cuda.poison=1   fill dats with NaN before every loop that WRITEs them
 *                   directly, to prove that every output element is written
 */
#ifndef UM_CUDA_H
#define UM_CUDA_H

#include <stddef.h>
#include "um/um.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What um_cuda_generate_loop / um_cuda_compile_loop build a loop's kernel for. */
typedef struct {
  um_strategy strategy; /**< ATOMICS, GLOBAL or HIERARCHICAL; AUTO: the context's (or hierarchical) */
  int layout;           /**< -1: the dats' own layouts; else UM_AOS, UM_SOA or UM_LAYOUT_AUTO       */
  int block_size;       /**< 0: the loop's                                                          */
  int staging;          /**< 1 stage incremented data in shared memory, 2 all indirect data, 3 none;
                           0: hierarchical 1, atomics 3                                         */
  int arch;             /**< um_cuda_compile_loop: e.g. 75 for sm_75                               */
  int ptx;              /**< um_cuda_compile_loop: 1 PTX for compute_<arch> (NVRTC without its assembler,
                           what a GPU newer than NVRTC knows is given); 0 a cubin for sm_<arch>     */
  int fused;            /**< 1: the loop's split fused into its launches (run.split fused, variant B);
                           0: as the loop last ran                                               */
  int warp_combine;     /**< atomics: pair increments by warp shuffles where the maps pair columns along the
                           element order, as cuda.warp_combine: 1 one element apart, 2 also two apart;
                           0: off                                                                */
  int quick;            /**< um_cuda_compile_loop with ptx 1: NVRTC's fastest compile (-Ofc=max, NVRTC 12.8
                           and later; else as 0), to check that the code compiles, not to run it; 0: the
                           optimised PTX a GPU would run                                          */
} um_cuda_gen_options;

/** Defaults: strategy AUTO, layout -1 (the dats'), block size 0 (the loop's), staging 0, arch 90. */
void um_cuda_gen_options_default(um_cuda_gen_options *o);

/** The CUDA source generated for a loop this context has run (by name). *source
 * is malloc'ed: free() it. */
int um_cuda_generate_loop(um_context *ctx, const char *loop_name, const um_cuda_gen_options *o, char **source);

/** Generate and compile it with NVRTC for sm_<o->arch> (no GPU needed; the disk
 * cache is not used). */
int um_cuda_compile_loop(um_context *ctx, const char *loop_name, const um_cuda_gen_options *o, double *seconds,
                         size_t *cubin_bytes);

/** NVRTC's version, and whether it can build machine code for sm_<arch>. */
int um_cuda_nvrtc_version(int *major, int *minor);
/** 1 if NVRTC can build machine code for sm_<arch> (e.g. 90), else 0. */
int um_cuda_arch_supported(int arch);

/** The device the context runs on and its profile (as um_context_device), e.g.
 * "NVIDIA H100 80GB HBM3 (sm_90, 132 multiprocessors, 227 KB shared memory per block), profile h100".
 * Empty when the context does not run on the CUDA backend. */
const char *um_cuda_device(const um_context *ctx);

/** Device-to-device copy bandwidth of the context's GPU, measured once (bytes
 * read plus bytes written per second, GB/s); UM_ERR_UNSUPPORTED off the CUDA backend. */
int um_cuda_copy_bandwidth(um_context *ctx, double *gbs);


#ifdef __cplusplus
}
#endif
#endif
