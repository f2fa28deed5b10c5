/* Defines the CUDA tests' kernel descriptors, with the header's embedded text. */
#include "test_cuda_kernels.h"

extern const char test_cuda_kernels_source[];
UM_CONST_DEFINE(double, tk_scale);
#define TK(fn, n) UM_KERNEL_DEFINE(fn, n, test_cuda_kernels_source, "test_cuda_kernels.h")
TK(tk_direct, 9);
TK(tk_edge, 9);
TK(tk_cell, 7);
TK(tk_indirect_rw, 2);
TK(tk_indirect_write, 2);
TK(tk_gather, 4);
TK(tk_simd, 5);
TK(tk_nan_minmax, 5);
TK(tk_minmax_types, 8);
TK(tk_split_two_maps, 7);
TK(tk_split_inc_rw, 4);
TK(tk_split_inc_read, 2);
TK(tk_split_minmax, 6);
TK(tk_split_some_paths, 3);
TK(tk_split_sum, 3);
TK(tk_split_dsum, 2);
TK(tk_split_signed_zero, 4);
