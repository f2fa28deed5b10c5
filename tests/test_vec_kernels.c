/* Defines the vector-argument tests' kernel descriptors, with the header's embedded text. */
#include "test_vec_kernels.h"

extern const char test_vec_kernels_source[];
#define TV(fn, n) UM_KERNEL_DEFINE(fn, n, test_vec_kernels_source, "test_vec_kernels.h")
TV(tv_sum_vec, 2);
TV(tv_sum3, 4);
TV(tv_sum1, 3);
TV(tv_scatter_vec, 2);
TV(tv_scatter3, 4);
TV(tv_count_vec, 2);
TV(tv_count3, 6);
TV(tv_mixed_vec, 4);
TV(tv_mixed3, 8);
TV(tv_gather_whole, 3);
TV(tv_scatter_whole, 3);
