/* The descriptors of test_vec_kernels.c, for the tests written in C++. */
#ifndef UM_TEST_VEC_KERNELS_DECL_H
#define UM_TEST_VEC_KERNELS_DECL_H
#include "um/um.h"
#ifdef __cplusplus
extern "C" {
#endif
extern const um_kernel tv_sum_vec_kernel, tv_sum3_kernel, tv_sum1_kernel, tv_scatter_vec_kernel, tv_scatter3_kernel,
    tv_count_vec_kernel, tv_count3_kernel, tv_mixed_vec_kernel, tv_mixed3_kernel, tv_gather_whole_kernel, tv_scatter_whole_kernel;
#ifdef __cplusplus
}
#endif
#endif
