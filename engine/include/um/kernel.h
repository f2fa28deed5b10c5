/** @file um/kernel.h
 * Kernels written once: include at the top of an app's kernel header.
 *
 * A kernel is a plain function with one pointer per argument, written once and
 * valid both as C (host backends) and as CUDA device code (the CUDA backend
 * compiles the same header text with NVRTC):
 *
 * @code
 *   #include <um/kernel.h>
 *   UM_CONST double gam;                      // a global constant
 *   UM_KERNEL void update(const double *qold, double *q, double *res, double *rms) {...}
 * @endcode
 *
 * In one C file of the app, for each kernel:
 *
 * @code
 *   UM_KERNEL_DEFINE(update, 4, app_kernels_source, "airfoil_kernels.h")
 * @endcode
 * defines `update_kernel`, the um_kernel descriptor passed to um_par_loop.
 * Constants declared with UM_CONST must be defined once in the app
 * (UM_CONST_DEFINE(double, gam)) and published with um_decl_const() whenever
 * they change.
 */
#ifndef UM_KERNEL_H
#define UM_KERNEL_H

/** What a kernel receives for a vector argument (um_arg_vec, or um_arg_dat with
 * idx UM_ALL): every target of the element's map row at once. Declare the
 * parameter `const um_vec *v`; read target j < v->n, component c with
 * UM_VEC_D(v, j, c) (UM_VEC_F, UM_VEC_I for float and int dats); add to an INC
 * vector argument with um_vec_inc_d(v, j, c, x) (_f, _i), which is atomic where
 * the backend needs it (CUDA atomics; OpenMP under strategy atomics). The same
 * on the host and on the GPU (device pointers there). */
typedef struct um_vec {
  const int *idx; /**< this element's map row: n target indices              */
  char *base;     /**< the dat's storage                                      */
  int n;          /**< the map's arity                                        */
  /** target j, component c is element idx[j]*es + c*cs of base: AoS es = dim,
   * cs = 1; SoA es = 1, cs = the dat's rows. es: the stride between targets */
  int es;
  int cs;         /**< the stride between components                         */
  int atomic;     /**< 1: increments must be atomic (CUDA atomics, OpenMP strategy atomics), else 0 */
} um_vec;
/** Target j, component c of a vector argument of doubles (an lvalue). */
#define UM_VEC_D(v, j, c) \
  (((double *)(v)->base)[(size_t)(v)->idx[j] * (size_t)(v)->es + (size_t)(c) * (size_t)(v)->cs])
/** Target j, component c of a vector argument of floats (an lvalue). */
#define UM_VEC_F(v, j, c) \
  (((float *)(v)->base)[(size_t)(v)->idx[j] * (size_t)(v)->es + (size_t)(c) * (size_t)(v)->cs])
/** Target j, component c of a vector argument of ints (an lvalue). */
#define UM_VEC_I(v, j, c) \
  (((int *)(v)->base)[(size_t)(v)->idx[j] * (size_t)(v)->es + (size_t)(c) * (size_t)(v)->cs])

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define UM_KERNEL static __device__ __forceinline__
#define UM_CONST __constant__
#define UM_DEVICE 1
#ifndef restrict
/** C99's `restrict` in kernel headers under NVRTC's C++ (not a C++ word): __restrict__ */
#define restrict __restrict__
#endif
#ifndef _Bool
/** C99's `_Bool` in kernel headers under NVRTC's C++ (not a C++ word): bool */
#define _Bool bool
#endif
#elif defined(UM_HOST_COMPILED)
/* Host code the engine generates and compiles per loop (engine/src/backends/host/hostc.c):
 * the module holds its own copy of each constant, filled from um_decl_const;
 * all of them sit in one section so the engine can tell that every one was
 * published. Every kernel function is inlined, helpers too, as on the GPU:
 * the compiler then sees each element's whole arithmetic (BookLeaf's limiter,
 * a helper called four times, 1.3x on one loop) and the same bits. */
#include <math.h>
#define UM_KERNEL static inline __attribute__((always_inline))
#define UM_CONST __attribute__((section("um_consts"), aligned(8)))
#define UM_CONST_DEFINE(type, name) type name
#define UM_DEVICE 0
#else
#include <math.h>
/** Marks a kernel function: `static inline` on the host, `static __device__
 * __forceinline__` when NVRTC compiles the kernel header for the GPU. */
#define UM_KERNEL static inline
/** Marks a global constant a kernel reads (`UM_CONST double gam;`): `extern` on
 * the host, `__constant__` on the GPU. Define it once with UM_CONST_DEFINE and
 * publish its value with um_decl_const. */
#define UM_CONST extern
/** Defines a constant declared with UM_CONST, once, in one C file of the app:
 * UM_CONST_DEFINE(double, gam). */
#define UM_CONST_DEFINE(type, name) type name
/** 1 when the kernel header is compiled as CUDA device code, 0 on the host. */
#define UM_DEVICE 0

#include "um/exec.h"

#define UM__P1(p) p[0]
#define UM__P2(p) p[0], p[1]
#define UM__P3(p) p[0], p[1], p[2]
#define UM__P4(p) p[0], p[1], p[2], p[3]
#define UM__P5(p) p[0], p[1], p[2], p[3], p[4]
#define UM__P6(p) p[0], p[1], p[2], p[3], p[4], p[5]
#define UM__P7(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6]
#define UM__P8(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]
#define UM__P9(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]
#define UM__P10(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]
#define UM__P11(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10]
#define UM__P12(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11]
#define UM__P13(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12]
#define UM__P14(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13]
#define UM__P15(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14]
#define UM__P16(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15]
#define UM__P17(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16]
#define UM__P18(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17]
#define UM__P19(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18]
#define UM__P20(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19]
#define UM__P21(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20]
#define UM__P22(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21]
#define UM__P23(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22]
#define UM__P24(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23]
#define UM__P25(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24]
#define UM__P26(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25]
#define UM__P27(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26]
#define UM__P28(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27]
#define UM__P29(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28]
#define UM__P30(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29]
#define UM__P31(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30]
#define UM__P32(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31]
#define UM__P33(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32]
#define UM__P34(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33]
#define UM__P35(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34]
#define UM__P36(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35]
#define UM__P37(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36]
#define UM__P38(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37]
#define UM__P39(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38]
#define UM__P40(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38], p[39]
#define UM__P41(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38], p[39], p[40]
#define UM__P42(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38], p[39], p[40], p[41]
#define UM__P43(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38], p[39], p[40], p[41], p[42]
#define UM__P44(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38], p[39], p[40], p[41], p[42], p[43]
#define UM__P45(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38], p[39], p[40], p[41], p[42], p[43], p[44]
#define UM__P46(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38], p[39], p[40], p[41], p[42], p[43], p[44], p[45]
#define UM__P47(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38], p[39], p[40], p[41], p[42], p[43], p[44], p[45], p[46]
#define UM__P48(p) p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35], p[36], p[37], p[38], p[39], p[40], p[41], p[42], p[43], p[44], p[45], p[46], p[47]

/** Defines `fn##_kernel`, the um_kernel descriptor of kernel `fn` that
 * um_par_loop takes, and its host range function (one pointer per argument
 * built by um_exec_args / um_exec_args_aos, the kernel called per element).
 * Use once per kernel in one C file of the app, followed by a semicolon:
 *
 *     UM_KERNEL_DEFINE(update, 4, app_kernels_source, "airfoil_kernels.h");
 *
 * @param fn      the kernel function (UM_KERNEL) in the kernel header
 * @param n       its number of pointer parameters, 1 .. UM_MAX_ARGS (48)
 * @param src     the kernel header's text (for JIT backends), or NULL
 * @param srcname the kernel header's file name */
#define UM_KERNEL_DEFINE(fn, n, src, srcname)                                    \
  static void fn##_um_range(struct um_exec *x, int begin, int end) {             \
    void *p[n];                                                                  \
    if (!x->nsoa && !x->nvec) {                                                  \
      for (int e = begin; e < end; e++) {                                        \
        um_exec_args_aos(x, e, p, n);                                            \
        fn(UM__P##n(p));                                                         \
      }                                                                          \
    } else {                                                                     \
      for (int e = begin; e < end; e++) {                                        \
        um_exec_args(x, e, p);                                                   \
        fn(UM__P##n(p));                                                         \
        if (x->nsoa_write) um_exec_scatter(x, e);                                \
      }                                                                          \
    }                                                                            \
  }                                                                              \
  const um_kernel fn##_kernel = {#fn, n, fn##_um_range, src, srcname, NULL}

#endif /* host */

#if UM_DEVICE
#define UM__VEC_INC(T, M)                   \
  if (v->atomic) atomicAdd(&M(v, j, c), x); \
  else M(v, j, c) += x
#else
/* on the host v->atomic is set for OpenMP threads under strategy atomics: a compare-and-swap loop on the value */
#define UM__VEC_INC(T, M)                                                                         \
  if (v->atomic) {                                                                                \
    T *p_ = &M(v, j, c), o_, n_;                                                                  \
    __atomic_load(p_, &o_, __ATOMIC_RELAXED);                                                     \
    do n_ = o_ + x;                                                                               \
    while (!__atomic_compare_exchange(p_, &o_, &n_, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));      \
  } else                                                                                          \
    M(v, j, c) += x
#endif
/** Add x to target j, component c of a vector INC argument of doubles (atomic when v->atomic: atomicAdd on the
 * GPU, a compare-and-swap on OpenMP threads). */
UM_KERNEL void um_vec_inc_d(const um_vec *v, int j, int c, double x) { UM__VEC_INC(double, UM_VEC_D); }
/** Add x to target j, component c of a vector INC argument of floats (atomic when v->atomic, as _d). */
UM_KERNEL void um_vec_inc_f(const um_vec *v, int j, int c, float x) { UM__VEC_INC(float, UM_VEC_F); }
/** Add x to target j, component c of a vector INC argument of ints (atomic when v->atomic, as _d). */
UM_KERNEL void um_vec_inc_i(const um_vec *v, int j, int c, int x) { UM__VEC_INC(int, UM_VEC_I); }

/** A phase boundary in a kernel: the compiler issues no memory read written after it before it. A kernel that
 * reads its vector arguments in phases (one vector's targets, their results, then the next vector's) keeps the
 * values of one phase dead before the next phase's are read, instead of all reads hoisted to the start and all
 * their values live at once: fewer registers on the GPU. A hint to the compiler only: no fence, nothing between
 * threads; what was read before it is read again after it where used (a vector's map row, for one). No effect on
 * the results; nothing on the host. */
UM_KERNEL void um_phase(void) {
#if UM_DEVICE
  asm volatile("" ::: "memory");
#endif
}

/** @name Math with the same bits on the host and the GPU
 * um_cbrt and um_exp are C's cbrt and exp, except in reproducible mode (run.reproducible), where they are
 * um_soft_cbrt and um_soft_exp: a fixed sequence of +, -, *, / (correctly rounded everywhere), floor, frexp
 * and ldexp (exact), so the host and the GPU compute the same bits (neither contracts a*b+c into an FMA then:
 * the host build does not, the CUDA backend compiles without contraction in reproducible mode). Within 3 ulp
 * (cbrt) and 1 ulp (exp) of the C library's, whose last bits differ between glibc and CUDA's libdevice.
 * Outside reproducible mode the library's own are kept, so a port still matches its upstream code bit for
 * bit where it did (LULESH's serial run). Kernels whose results must agree between backends call um_cbrt /
 * um_exp (LULESH's hourglass volume, Volna's moving sea floor).
 * @{ */
/** The cube root of x by Newton's method (+-0, NaN and +-inf returned as they are). */
UM_KERNEL double um_soft_cbrt(double x) {
  if (x == 0.0 || x != x || x - x != 0.0) return x;
  int e = 0;
  double m = frexp(x < 0.0 ? -x : x, &e); /* |x| = m 2^e, m in [0.5, 1) */
  int r = e % 3;
  if (r < 0) r += 3;
  m = ldexp(m, r); /* [0.5, 4); e - r is a multiple of 3 */
  double y = 0.69 + 0.24 * m; /* within 7%, then Newton (quadratic): 6 steps reach the last bits */
  for (int k = 0; k < 6; k++) y = y - (y * y * y - m) / (3.0 * y * y);
  y = ldexp(y, (e - r) / 3);
  return x < 0.0 ? -y : y;
}
/** e to the power x by its series after x = k ln2 + r (NaN returned; +inf above 709.78, +0 below -745.14). */
UM_KERNEL double um_soft_exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return ldexp(1.0, 1024); /* +inf (overflows at run time: no compiler warning) */
  if (x < -745.1332191019412) return 0.0;
  const double k = floor(x * 1.4426950408889634 + 0.5);              /* x = k ln2 + r, |r| <= ln2 / 2 */
  const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10; /* ln2 in two parts */
  double p = 1.0 / 6227020800.0; /* 1/13!: the series to r^13 (truncation below 1e-17 relative) */
  const double inv_fact[13] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
                               1.0 / 5040.0,      1.0 / 720.0,      1.0 / 120.0,     1.0 / 24.0,     1.0 / 6.0,
                               0.5,               1.0,              1.0};
  for (int n = 0; n < 13; n++) p = p * r + inv_fact[n];
  return ldexp(p, (int)k);
}
#if UM_DEVICE || defined(UM_HOST_COMPILED)
/* the GPU's and the compiled host loops' modules are built per mode: UM_REPRO_MATH set in reproducible mode */
#ifdef UM_REPRO_MATH
#define UM__REPRO_MATH 1
#else
#define UM__REPRO_MATH 0
#endif
#else
/** 1 on this thread while a range of a loop of a context in reproducible mode runs: um_exec_range sets it
 * from its descriptor (um_exec.repro_math, the loop's context's setting) and restores it after, so that two
 * contexts of different settings never share it; the host's generic code takes um_soft_cbrt / um_soft_exp
 * then (also declared in um/exec.h) */
#ifdef __cplusplus
extern "C" __thread int um_kernel_repro_math;
#else
extern __thread int um_kernel_repro_math;
#endif
#define UM__REPRO_MATH um_kernel_repro_math
#endif
/** cbrt(x); um_soft_cbrt(x) in reproducible mode. */
UM_KERNEL double um_cbrt(double x) { return UM__REPRO_MATH ? um_soft_cbrt(x) : cbrt(x); }
/** exp(x); um_soft_exp(x) in reproducible mode. */
UM_KERNEL double um_exp(double x) { return UM__REPRO_MATH ? um_soft_exp(x) : exp(x); }
/** expf(x); in reproducible mode um_soft_exp in double, rounded to float (the same bits on host and GPU). */
UM_KERNEL float um_expf(float x) { return UM__REPRO_MATH ? (float)um_soft_exp((double)x) : expf(x); }
/** @} */
#endif
