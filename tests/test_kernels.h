/* Kernels used by the engine tests (compiled as C in test_kernels.c). */
#ifndef UM_TEST_KERNELS_H
#define UM_TEST_KERNELS_H
#include "um/um.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const um_kernel cbrt_of_kernel;      /* 2 args: b = um_cbrt(a) */
extern const um_kernel direct_ops_kernel;   /* 8 args, see test_kernels.c */
extern const um_kernel edge_inc_kernel;     /* 8 args */
extern const um_kernel indirect_rw_kernel;  /* 2 args */
extern const um_kernel indirect_write_kernel; /* 2 args */
extern const um_kernel cell_inc_kernel;     /* 6 args */
extern const um_kernel nan_minmax_kernel;   /* 4 args: a READ, gbl MIN, MAX, INC */
#ifdef __cplusplus
}
#endif
#endif
