// The CUDA backend without a GPU: the code generator's decisions, NVRTC
// compilation of every loop of every app (and of the test kernels) for every
// strategy x layout and every architecture in UM_CUDA_ARCHITECTURES, the disk
// cache of compiled modules, and the behaviour of a build with CUDA on a
// machine without a GPU.
#include <algorithm>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

extern "C" {
#include "airfoil.h"
#include "backends/cuda/codegen.h"
#include "um/safe_file.h"
#include "backends/cuda/jit.h"
#include "apps_table.h"
#include "builtin_apps.h"
#include "lulesh/lulesh.h"
#include "um/config.h"
#include "um/cuda.h"
#include "um/um.h"
}
#include "test_cuda_workload.hpp"
#include "test_vec_workload.hpp"

namespace {

// ---- decisions ------------------------------------------------------------------

// A loop description with its names, execution, threads per block and counts set, its arguments zero for the
// tests to fill in.
umc_loop loop_frame(const char *loop, const char *kernel, const char *header, umc_exec exec, int threads, int nargs,
                    int ndats, int nmaps) {
  umc_loop L;
  memset(&L, 0, sizeof L);
  L.loop_name = loop;
  L.kernel_name = kernel;
  L.header_name = header;
  L.exec = exec;
  L.block_threads = threads;
  L.nargs = nargs;
  L.ndats = ndats;
  L.nmaps = nmaps;
  return L;
}

// res_calc's argument list (Airfoil): x via pedge, q, adt via pecell (READ), res via pecell (INC)
umc_loop res_calc_like(umc_exec exec, int soa) {
  umc_loop L = loop_frame("res_calc", "res_calc", "airfoil_kernels.h", exec, 256, 8, 4, 2);
  const int dat[8] = {0, 0, 1, 1, 2, 2, 3, 3}, map[8] = {0, 0, 1, 1, 1, 1, 1, 1}, dim[8] = {2, 2, 4, 4, 1, 1, 4, 4};
  for (int a = 0; a < 8; a++) {
    umc_arg &x = L.args[a];
    x.indirect = 1;
    x.acc = a >= 6 ? UM_INC : UM_READ;
    x.type = UM_DOUBLE;
    x.dim = dim[a];
    x.soa = soa && dim[a] > 1;
    x.stride = a < 2 ? 721801 : 720000;
    x.dat = dat[a];
    x.map = map[a];
    x.arity = 2;
    x.idx = a % 2;
    x.ind = dat[a];  // one ind per dat: (x, pedge), (q, pecell), (adt, pecell), (res, pecell)
  }
  L.ninds = 4;
  for (int i = 0; i < 4; i++) {
    L.inds[i].dat = i;
    L.inds[i].map = i == 0 ? 0 : 1;
    L.inds[i].tlist = i == 0 ? 0 : 1;  // q, adt, res share pecell's lists
    L.inds[i].dim = dim[2 * i];
    L.inds[i].type = UM_DOUBLE;
    L.inds[i].soa = soa && dim[2 * i] > 1;
    L.inds[i].stride = i == 0 ? 721801 : 720000;
  }
  return L;
}

std::string generate(const umc_loop &L, umc_decisions &D) {
  char err[512] = "";
  EXPECT_EQ(umc_decide(&L, &D, err, sizeof err), UM_SUCCESS) << err;
  char *src = nullptr;
  EXPECT_EQ(umc_generate(&L, &D, &src, err, sizeof err), UM_SUCCESS) << err;
  std::string s = src ? src : "";
  free(src);
  return s;
}

bool has(const std::string &s, const std::string &what) { return s.find(what) != std::string::npos; }

TEST(CudaCodegen, AtomicsIncrementInRegistersThenAtomicAdd) {
  umc_loop L = res_calc_like(UMC_EXEC_FLAT, 0);
  umc_decisions D;
  std::string src = generate(L, D);
  for (int a = 0; a < 6; a++) EXPECT_EQ(D.pass[a], UMC_PASS_GLOBAL) << "READ AoS arg " << a;
  for (int a = 6; a < 8; a++) {
    EXPECT_EQ(D.pass[a], UMC_PASS_REG_INC);
    EXPECT_EQ(D.apply[a], UMC_APPLY_ATOMIC);
    EXPECT_EQ(D.reg_values[a], 4) << "a dim-4 increment lives in 4 registers";
  }
  EXPECT_TRUE(has(src, "double r6[4];")) << src;
  EXPECT_TRUE(has(src, "if (r6[c] != 0) atomicAdd(&p.d3[(size_t)(t1_0) * 4 + (c)], r6[c]);"))
      << "zero increments stay out of the atomics unit: " << src;
  EXPECT_TRUE(has(src, "const int2 mr1 = active ? *(const int2 *)(p.m1 + (size_t)e * 2) : make_int2(0, 0);"))
      << "both entries of a map row in one 8-byte load: " << src;
  EXPECT_TRUE(has(src, "const int t1_1 = mr1.y;")) << src;
  EXPECT_TRUE(has(src, "res_calc(a0, a1, a2, a3, a4, a5, r6, r7);")) << src;
  EXPECT_TRUE(has(src, "__launch_bounds__(256)"));
  EXPECT_FALSE(has(src, "um_reduce")) << "no global reduction, no reduction kernel";
  EXPECT_FALSE(D.has_reduction);
}

// The kernel is named after its loop (profilers show um_loop_res_calc, not um_loop), its name made a C identifier
// (a generated loop's "res_calc:contrib" is um_loop_res_calc_contrib), and the launch finds it by the same name.
TEST(CudaCodegen, KernelsAreNamedAfterTheirLoop) {
  umc_loop L = res_calc_like(UMC_EXEC_FLAT, 0);
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_TRUE(has(src, "__launch_bounds__(256) um_loop_res_calc(const um_params p)")) << src;
  char sym[UMC_SYMBOL_MAX];
  umc_kernel_symbol("res_calc:contrib", 0, sym, sizeof sym);
  EXPECT_STREQ(sym, "um_loop_res_calc_contrib");
  umc_kernel_symbol("eos r2/x", 1, sym, sizeof sym);
  EXPECT_STREQ(sym, "um_reduce_eos_r2_x");
  umc_kernel_symbol(nullptr, 0, sym, sizeof sym);
  EXPECT_STREQ(sym, "um_loop");
  std::string longname(300, 'a');
  umc_kernel_symbol(longname.c_str(), 0, sym, sizeof sym);
  EXPECT_EQ(strlen(sym), strlen("um_loop_") + UMC_SYMBOL_NAME) << "a long name is cut, never overflows";
  L.loop_name = "update:gather";
  src = generate(L, D);
  EXPECT_TRUE(has(src, " um_loop_update_gather(const um_params p)")) << src;
}

TEST(CudaCodegen, SoAIsStagedInRegistersWithTheStrideAsAConstant) {
  umc_loop L = res_calc_like(UMC_EXEC_FLAT, 1);
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_EQ(D.pass[0], UMC_PASS_REG) << "x is SoA: gathered into registers";
  EXPECT_EQ(D.reg_values[0], 2);
  EXPECT_EQ(D.pass[4], UMC_PASS_GLOBAL) << "adt has dim 1: SoA and AoS agree, passed by pointer";
  EXPECT_EQ(D.reg_values[4], 0);
  EXPECT_TRUE(has(src, "r2[c] = p.d1[(size_t)(c) * 720000 + (size_t)(t1_0)];")) << src;
  EXPECT_TRUE(has(src, "r0[c] = p.d0[(size_t)(c) * 721801 + (size_t)(t0_0)];")) << src;
  EXPECT_TRUE(has(src, "atomicAdd(&p.d3[(size_t)(c) * 720000 + (size_t)(t1_1)], r7[c]);")) << src;
}

TEST(CudaCodegen, GlobalColouringAddsWithoutAtomics) {
  umc_loop L = res_calc_like(UMC_EXEC_GLOBAL, 0);
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_EQ(D.apply[6], UMC_APPLY_PLAIN);
  EXPECT_FALSE(has(src, "atomicAdd")) << src;
  EXPECT_TRUE(has(src, "p.perm[p.start + i]")) << "elements of a colour come from the permuted list";
  EXPECT_TRUE(has(src, "p.d3[(size_t)(t1_0) * 4 + (c)] += r6[c];")) << src;
}

TEST(CudaCodegen, HierarchicalStagesOnlyIncrementedDataByDefault) {
  umc_loop L = res_calc_like(UMC_EXEC_HIER, 0);
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_FALSE(D.ind_staged[0]);
  EXPECT_FALSE(D.ind_staged[1]);
  EXPECT_FALSE(D.ind_staged[2]);
  EXPECT_TRUE(D.ind_staged[3]) << "res (INC) is staged";
  EXPECT_FALSE(D.ind_load[3]) << "INC-only data is zero-filled, not loaded";
  EXPECT_EQ(D.ind_writeback[3], 1) << "and added back";
  EXPECT_TRUE(D.colour_loop);
  EXPECT_FALSE(D.kernel_in_colour_loop) << "INC only: the kernel runs once, increments go by colour";
  EXPECT_EQ(D.apply[6], UMC_APPLY_COLOURED);
  EXPECT_EQ(D.nlocs, 2) << "res through pecell index 0 and 1: two local-index arrays";
  EXPECT_TRUE(D.loc_short) << "256 threads x 2 indices fit 16 bits";
  EXPECT_TRUE(has(src, "s0[l0 * 4 + c] += r6[c];")) << src;
  EXPECT_TRUE(has(src, "__syncthreads();")) << src;
  EXPECT_TRUE(has(src, "p.d3[(size_t)tg0[j] * 4 + (l - j * 4)] += s0[l];")) << src;
  EXPECT_FALSE(has(src, "atomicAdd")) << src;
}

TEST(CudaCodegen, HierarchicalStageAllLoadsReadData) {
  umc_loop L = res_calc_like(UMC_EXEC_HIER, 0);
  L.stage_all = 1;
  umc_decisions D;
  std::string src = generate(L, D);
  for (int i = 0; i < 4; i++) EXPECT_TRUE(D.ind_staged[i]) << i;
  EXPECT_TRUE(D.ind_load[0]) << "READ data is loaded";
  EXPECT_EQ(D.ind_writeback[0], 0) << "and never written back";
  EXPECT_EQ(D.pass[2], UMC_PASS_SHARED);
  EXPECT_EQ(D.ntlists, 2);
  EXPECT_TRUE(D.tlist_used[0] && D.tlist_used[1]);
  EXPECT_EQ(D.nlocs, 4) << "(pedge lists, idx 0/1) and (pecell lists, idx 0/1)";
  EXPECT_TRUE(has(src, "double *a2 = s1 + l2 * 4;")) << src;
}

TEST(CudaCodegen, RWThroughAMapRunsTheKernelByThreadColour) {
  umc_loop L = res_calc_like(UMC_EXEC_HIER, 0);
  L.args[6].acc = UM_RW;
  L.args[7].acc = UM_RW;
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_TRUE(D.kernel_in_colour_loop);
  EXPECT_FALSE(D.ind_staged[3]) << "not all-INC: staged only with stage_all";
  L.stage_all = 1;
  src = generate(L, D);
  EXPECT_TRUE(D.ind_load[3]);
  EXPECT_EQ(D.ind_writeback[3], 2) << "loaded and written: stored back";
  umc_loop F = res_calc_like(UMC_EXEC_FLAT, 0);
  F.args[6].acc = UM_WRITE;
  char err[256] = "";
  EXPECT_EQ(umc_decide(&F, &D, err, sizeof err), UM_ERR_UNSUPPORTED);
  EXPECT_TRUE(has(err, "WRITE through a map")) << err;
}

// A loop that writes through one-to-one map columns only (LULESH's region loops): one thread per element,
// RW and WRITE through the map allowed, increments plain adds; no permutation, no colours, no atomics.
TEST(CudaCodegen, OneToOneMapsWriteWithoutColoursOrAtomics) {
  umc_loop L = res_calc_like(UMC_EXEC_FLAT, 0);
  L.one_to_one = 1;
  L.args[6].acc = UM_RW;
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_EQ(D.apply[7], UMC_APPLY_PLAIN);
  EXPECT_FALSE(has(src, "atomicAdd")) << src;
  EXPECT_FALSE(has(src, "p.perm")) << src;
  EXPECT_FALSE(D.colour_loop);
  EXPECT_TRUE(has(src, "one-to-one maps")) << src;
  EXPECT_TRUE(has(src, "p.d3[(size_t)(t1_1) * 4 + (c)] += r7[c];")) << src;
}

TEST(CudaCodegen, StagedAtomicsNeedNoColours) {
  umc_loop L = res_calc_like(UMC_EXEC_HIER, 1);
  L.block_atomics = 1;
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_FALSE(D.colour_loop) << "no thread colours";
  EXPECT_TRUE(D.ind_staged[3]);
  EXPECT_EQ(D.ind_writeback[3], 3) << "written back with atomics (no block colours either)";
  EXPECT_EQ(D.apply[6], UMC_APPLY_BLOCK_ATOMIC);
  EXPECT_TRUE(has(src, "atomicAdd(&s0[l0 * 4 + c], r6[c]);")) << src;
  EXPECT_TRUE(has(src, "atomicAdd(&p.d3[(size_t)c * 720000 + (size_t)tg0[j]], s0[j * 4 + c]);")) << src;
  EXPECT_FALSE(has(src, "um_co")) << "no thread-colour offsets";
  L.args[6].acc = UM_RW;
  char err[256] = "";
  EXPECT_EQ(umc_decide(&L, &D, err, sizeof err), UM_ERR_UNSUPPORTED);
}

// A flat (atomics-less, one launch) loop of nargs arguments over one dat, for the tests to fill in.
umc_loop flat_loop(const char *name, const char *header, int nargs) {
  return loop_frame(name, name, header, UMC_EXEC_FLAT, 128, nargs, 1, 0);
}

TEST(CudaCodegen, GlobalsAndTheParameterBlock) {
  umc_loop L = flat_loop("update", "airfoil_kernels.h", 4);
  L.args[0] = umc_arg{0, 0, UM_RW, UM_DOUBLE, 4, 0, 100, 0, -1, 0, -1, -1};
  L.args[1] = umc_arg{1, 0, UM_INC, UM_DOUBLE, 1, 0, 0, -1, -1, 0, -1, -1};
  L.args[2] = umc_arg{1, 0, UM_MIN, UM_INT, 3, 0, 0, -1, -1, 0, -1, -1};
  L.args[3] = umc_arg{1, 0, UM_READ, UM_FLOAT, 1, 0, 0, -1, -1, 0, -1, -1};
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_TRUE(D.has_reduction);
  EXPECT_EQ(D.pass[1], UMC_PASS_GBL_REDUCE);
  EXPECT_EQ(D.pass[3], UMC_PASS_GBL_READ);
  EXPECT_TRUE(has(src, "um_reduce")) << src;
  EXPECT_TRUE(has(src, "alignas(8) int g2[3];")) << "MIN starts from the user's value";
  EXPECT_FALSE(has(src, " g1[")) << "SUM starts from zero: no initial value";
  int last = -1, gbl = 0;
  for (int f = 0; f < D.nfields; f++) {
    const umc_field &F = D.fields[f];
    EXPECT_GT(F.offset, last) << "fields in order";
    EXPECT_EQ(F.offset % (F.bytes >= 8 || F.kind == UMC_F_GBL ? 8 : 4), 0) << "field " << f << " aligned";
    last = F.offset;
    if (F.kind == UMC_F_GBL) gbl++;
  }
  EXPECT_EQ(gbl, 2);
  EXPECT_EQ(D.param_bytes % 8, 0);
  L.block_threads = 2048;
  char err[256] = "";
  EXPECT_EQ(umc_decide(&L, &D, err, sizeof err), UM_ERR_ARG);
  EXPECT_TRUE(has(err, "1024")) << err;
}

// Issue 15, fault 5: the generated reductions propagate NaN as the host's
// um__combine does (a NaN on either side wins); NVRTC compiles them in the
// CudaNvrtc tests (Jacobi's MAX, LULESH's MIN), the GPU runs them in
// CudaReductions.PropagateNaNLikeTheHostBackends.
TEST(CudaCodegen, ReductionsPropagateNaN) {
  umc_loop L = flat_loop("minmax", "k.h", 3);
  L.args[0] = umc_arg{0, 0, UM_READ, UM_DOUBLE, 1, 0, 100, 0, -1, 0, -1, -1};
  L.args[1] = umc_arg{1, 0, UM_MIN, UM_DOUBLE, 1, 0, 0, -1, -1, 0, -1, -1};
  L.args[2] = umc_arg{1, 0, UM_MAX, UM_FLOAT, 1, 0, 0, -1, -1, 0, -1, -1};
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_TRUE(has(src, "__forceinline__ bool um_isnan(T x) { return x != x; }")) << src;
  EXPECT_TRUE(has(src, "OP == 1 ? ((b < a || um_isnan(b)) ? b : a) : ((b > a || um_isnan(b)) ? b : a)")) << src;
  EXPECT_FALSE(has(src, "(b < a ? b : a)")) << "the NaN-dropping form is gone";
  EXPECT_TRUE(has(src, "um_block_reduce<1>")) << src;
  EXPECT_TRUE(has(src, "um_block_reduce<2>")) << src;
}

// um_reduce folds whole partial rows of sums per thread (one contiguous row read, several rows in flight) for
// reductions up to UMC_REDUCE_ROW_MAX values, and value by value above that. MIN and MAX leave no rows: each
// block adds its value by an atomic on the row's ordered keys, and um_reduce reads the keys and resets them.
TEST(CudaCodegen, ReduceKernelFoldsWholeRows) {
  umc_loop L = flat_loop("sums", "k.h", 5);
  L.args[0] = umc_arg{0, 0, UM_READ, UM_DOUBLE, 1, 0, 100, 0, -1, 0, -1, -1};
  L.args[1] = umc_arg{1, 0, UM_INC, UM_DOUBLE, 3, 0, 0, -1, -1, 0, -1, -1};
  L.args[2] = umc_arg{1, 0, UM_INC, UM_DOUBLE, UMC_REDUCE_ROW_MAX + 4, 0, 0, -1, -1, 0, -1, -1};
  L.args[3] = umc_arg{1, 0, UM_MAX, UM_DOUBLE, UMC_REDUCE_ROW_MAX + 4, 0, 0, -1, -1, 0, -1, -1};
  L.args[4] = umc_arg{1, 0, UM_MIN, UM_FLOAT, 2, 0, 0, -1, -1, 0, -1, -1};
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_TRUE(has(src, "const double *row = p.part1 + (size_t)k * 3;")) << src;
  EXPECT_TRUE(has(src, "v[c] = um_op<0>(v[c], row[c]);")) << src;
  EXPECT_TRUE(has(src, "p.part2[(size_t)k * " + std::to_string(UMC_REDUCE_ROW_MAX + 4) + " + c]")) << src;
  EXPECT_TRUE(has(src, "__launch_bounds__(" + std::to_string(UMC_REDUCE_THREADS) + ") um_reduce")) << src;
  EXPECT_TRUE(has(src, "if (tid == 0) um_atomic_red<2>(p.part3 + c, v);")) << src;
  EXPECT_TRUE(has(src, "if (tid == 0) um_atomic_red<1>(p.part4 + c, v);")) << src;
  EXPECT_FALSE(has(src, "p.part3[(size_t)")) << "no partial rows for MAX";
  EXPECT_TRUE(has(src, "long long *key = (long long *)p.part3 + c;")) << src;
  EXPECT_TRUE(has(src, "*key = " + std::to_string(umc_red_identity_key(UM_MAX, UM_DOUBLE)) + "LL;")) << src;
  EXPECT_TRUE(has(src, "int *key = (int *)p.part4 + c;")) << src;
  EXPECT_TRUE(has(src, "*key = 2147483647LL;")) << "a float MIN resets to the largest key";
}

TEST(CudaCodegen, DirectAoSDataMovesThroughSharedMemoryCoalesced) {
  umc_loop L = loop_frame("update", "update", "airfoil_kernels.h", UMC_EXEC_FLAT, 256, 4, 4, 0);
  L.args[0] = umc_arg{0, 0, UM_READ, UM_DOUBLE, 4, 0, 100, 0, -1, 0, -1, -1};
  L.args[1] = umc_arg{0, 0, UM_WRITE, UM_DOUBLE, 4, 0, 100, 1, -1, 0, -1, -1};
  L.args[2] = umc_arg{0, 0, UM_RW, UM_DOUBLE, 4, 1, 100, 2, -1, 0, -1, -1};  // SoA: registers
  L.args[3] = umc_arg{0, 0, UM_READ, UM_DOUBLE, 1, 0, 100, 3, -1, 0, -1, -1}; // dim 1: already coalesced
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_EQ(D.pass[0], UMC_PASS_SHARED_DIRECT);
  EXPECT_EQ(D.pass[1], UMC_PASS_SHARED_DIRECT);
  EXPECT_EQ(D.pass[2], UMC_PASS_REG);
  EXPECT_EQ(D.pass[3], UMC_PASS_GLOBAL);
  EXPECT_EQ(D.direct_shared_bytes, 2 * 256 * 4 * 8);
  EXPECT_TRUE(has(src, "__shared__ double sd0[1024];")) << src;
  EXPECT_TRUE(has(src, "sd0[l] = p.d0[(size_t)um_d0 * 4 + l];")) << "READ data is loaded in one sweep: " << src;
  EXPECT_FALSE(has(src, "sd1[l] = p.d1")) << "WRITE data is not loaded";
  EXPECT_TRUE(has(src, "p.d1[(size_t)um_d0 * 4 + l] = sd1[l];")) << "and stored in one sweep: " << src;
  EXPECT_FALSE(has(src, "p.d0[(size_t)um_d0 * 4 + l] = sd0[l];")) << "READ data is not stored";
  // at 1024 threads a dim-4 double slice is 32 KB: only the first fits the budget
  L.block_threads = 1024;
  src = generate(L, D);
  EXPECT_EQ(D.pass[0], UMC_PASS_SHARED_DIRECT);
  EXPECT_EQ(D.pass[1], UMC_PASS_GLOBAL);
  // element colouring permutes elements: no contiguous slice to move
  L.exec = UMC_EXEC_GLOBAL;
  src = generate(L, D);
  EXPECT_EQ(D.pass[0], UMC_PASS_GLOBAL);
}

// run.split fused (variant B): one kernel per block colour in two phases. Phase 1 stages only the data it reads,
// runs the kernel and parks each element's increments in shared memory (by thread); after a barrier, phase 2
// stages only the targets (from the additive identity, where phase 1's data was) and adds the contributions by
// thread colour; then the targets go back to the dat as in the hierarchical scheme.
TEST(CudaCodegen, FusedSplitStagesEachPhasesOwnData) {
  umc_loop L = res_calc_like(UMC_EXEC_HIER, 0);
  L.stage_all = 1;
  L.fused = 1;
  umc_decisions D;
  const std::string src = generate(L, D);
  EXPECT_TRUE(D.fused);
  EXPECT_EQ(D.contrib_bytes, 2 * 256 * 4 * 8) << "res at both cells: 4 doubles a thread each";
  for (int i = 0; i < 3; i++) EXPECT_TRUE(D.ind_load[i]) << "READ data is staged for phase 1: ind " << i;
  EXPECT_FALSE(D.ind_load[3]) << "res is staged for phase 2 only";
  EXPECT_TRUE(has(src, "double *sc6 = (double *)um_sp;")) << src;
  EXPECT_TRUE(has(src, "sc6[tid * 4 + c] = r6[c];")) << src;
  EXPECT_TRUE(has(src, "sc7[tid * 4 + c] = r7[c];")) << src;
  EXPECT_FALSE(has(src, "+= r6[c]")) << "the increments leave the registers before the barrier: " << src;
  const size_t x = src.find("staged: dat slot 0"), kernel = src.find("res_calc(a0"), barrier = src.find("um_sp = um_p2;"),
               res = src.find("staged: dat slot 3"), add = src.find("+= sc6[tid * 4 + c];"),
               back = src.find("p.d3[(size_t)tg3[j] * 4 + (l - j * 4)] += s3[l];");
  ASSERT_NE(x, std::string::npos) << src;
  ASSERT_NE(res, std::string::npos) << src;
  ASSERT_NE(add, std::string::npos) << src;
  ASSERT_NE(back, std::string::npos) << src;
  EXPECT_LT(x, kernel) << "x staged before the kernel";
  EXPECT_LT(kernel, barrier);
  EXPECT_LT(barrier, res) << "res staged after phase 1, where phase 1's data was";
  EXPECT_LT(res, add);
  EXPECT_LT(add, back);
  EXPECT_TRUE(has(src, "s3[l] = -0.0;")) << "targets start at -0.0: " << src;
  EXPECT_FALSE(has(src, "atomicAdd")) << src;
}

TEST(CudaCodegen, FusedSplitIsRefusedWhereItCannotRun) {
  char err[512] = "";
  umc_decisions D;
  umc_loop L = res_calc_like(UMC_EXEC_FLAT, 0);
  L.fused = 1;
  EXPECT_EQ(umc_decide(&L, &D, err, sizeof err), UM_ERR_ARG);
  EXPECT_TRUE(has(err, "hierarchical colouring")) << err;
  L = res_calc_like(UMC_EXEC_HIER, 0);
  L.fused = 1;
  L.args[4].acc = UM_RW;  // adt through pecell
  EXPECT_EQ(umc_decide(&L, &D, err, sizeof err), UM_ERR_UNSUPPORTED);
  EXPECT_TRUE(has(err, "arg 4: RW through a map") && has(err, "adds only increments")) << err;
  L = res_calc_like(UMC_EXEC_HIER, 0);
  L.fused = 1;
  L.args[4].dat = L.args[6].dat;  // res also read through pecell: its staged copy is loaded
  L.args[5].dat = L.args[6].dat;
  L.args[4].dim = L.args[5].dim = 4;
  L.args[4].ind = L.args[5].ind = 3;
  L.ninds = 4;
  EXPECT_NE(umc_decide(&L, &D, err, sizeof err), UM_SUCCESS) << "res read and incremented";
}

// ---- one dat reached by several arguments of a loop ------------------------------------------------------

// An argument of dat slot `dat`: direct (map -1) or through map slot `map` (arity 2, index idx, staging list ind).
umc_arg dat_arg(um_access acc, int dim, int soa, int dat, int map = -1, int idx = 0, int ind = -1) {
  umc_arg x;
  memset(&x, 0, sizeof x);
  x.acc = acc;
  x.type = UM_DOUBLE;
  x.dim = dim;
  x.soa = soa && dim > 1;
  x.stride = 1000;
  x.dat = dat;
  x.map = map;
  x.indirect = map >= 0;
  x.arity = map >= 0 ? 2 : 0;
  x.idx = idx;
  x.ind = ind;
  return x;
}

// A hierarchical loop's staging lists: one per (dat, map) of its indirect args, in argument order (describe_inds).
void add_inds(umc_loop &L) {
  L.ninds = 0;
  for (int a = 0; a < L.nargs; a++) {
    umc_arg &x = L.args[a];
    if (!x.indirect || x.vec) continue;
    int i = 0;
    while (i < L.ninds && !(L.inds[i].dat == x.dat && L.inds[i].map == x.map)) i++;
    if (i == L.ninds) L.inds[L.ninds++] = umc_ind{x.dat, x.map, x.map, x.dim, x.type, x.soa, x.stride};
    x.ind = i;
  }
}

// A dat incremented directly and through a map in one loop (core/args.c allows it): element e's own row can be
// another element's map target at the same time under every strategy, so every increment of the dat is an atomic
// add to the dat (codegen_decide.c, mixed_inc): the direct one from registers (not a shared slice stored back with
// `=`, not a plain read-modify-write), the map's as atomics (global colouring and one-to-one maps too), or
// hierarchical: the staged sums back by atomics. A dat incremented only through maps keeps its plain adds.
TEST(CudaCodegen, ADatIncrementedDirectlyAndThroughAMapIsAddedAtomically) {
  struct V {
    umc_exec exec;
    int block_atomics, one_to_one;
  } variants[] = {{UMC_EXEC_FLAT, 0, 0},
                  {UMC_EXEC_FLAT, 0, 1},
                  {UMC_EXEC_GLOBAL, 0, 0},
                  {UMC_EXEC_HIER, 0, 0},
                  {UMC_EXEC_HIER, 1, 0}};
  for (const V &v : variants)
    for (int dim : {1, 2})
      for (int soa : {0, 1}) {
        SCOPED_TRACE(std::string(umc_exec_name(v.exec)) + (v.block_atomics ? " block atomics" : "") +
                     (v.one_to_one ? " one-to-one" : "") + " dim " + std::to_string(dim) + (soa ? " SoA" : " AoS"));
        umc_loop L = loop_frame("nb", "k_nb", "k.h", v.exec, 256, 3, 1, 1);
        L.block_atomics = v.block_atomics;
        L.one_to_one = v.one_to_one;
        L.args[0] = dat_arg(UM_INC, dim, soa, 0);
        L.args[1] = dat_arg(UM_INC, dim, soa, 0, 0, 0);
        L.args[2] = dat_arg(UM_INC, dim, soa, 0, 0, 1);
        if (v.exec == UMC_EXEC_HIER) add_inds(L);
        umc_decisions D;
        const std::string src = generate(L, D);
        EXPECT_EQ(D.pass[0], UMC_PASS_REG_INC) << src;
        EXPECT_EQ(D.apply[0], UMC_APPLY_ATOMIC) << src;
        const std::string row = dim == 1 ? "(size_t)(e)"
                                : soa    ? "(size_t)(c) * 1000 + (size_t)(e)"
                                         : "(size_t)(e) * 2 + (c)";
        EXPECT_TRUE(has(src, "if (r0[c] != 0) atomicAdd(&p.d0[" + row + "], r0[c]);")) << src;
        EXPECT_FALSE(has(src, "sd0")) << "no shared slice stored back over the atomics: " << src;
        if (v.exec != UMC_EXEC_HIER) {
          EXPECT_EQ(D.apply[1], UMC_APPLY_ATOMIC) << src;
          EXPECT_FALSE(has(src, "] += r1[c]")) << src;
        } else {
          EXPECT_EQ(D.ind_writeback[0], 3) << "the staged sums go back by atomics: " << src;
          EXPECT_TRUE(has(src, "atomicAdd(&p.d0[")) << src;
          EXPECT_FALSE(has(src, "] += s0[")) << src;
        }
      }
  // a vector INC argument of such a dat is atomic under colours too; a dat incremented only through maps is not
  umc_loop L = loop_frame("nb", "k_nb", "k.h", UMC_EXEC_GLOBAL, 256, 3, 2, 1);
  L.args[0] = dat_arg(UM_INC, 1, 0, 0);
  L.args[1] = dat_arg(UM_INC, 1, 0, 0, 0, UM_ALL);
  L.args[1].vec = 1;
  L.args[2] = dat_arg(UM_INC, 1, 0, 1, 0, 0);
  umc_decisions D;
  const std::string src = generate(L, D);
  EXPECT_EQ(D.apply[1], UMC_APPLY_ATOMIC) << src;
  EXPECT_TRUE(has(src, ", 1};")) << "the um_vec's atomic flag: " << src;
  EXPECT_EQ(D.apply[2], UMC_APPLY_PLAIN) << "dat 1 is incremented only through the map: " << src;
}

// A dat passed directly twice (INC / INC, RW / RW): one copy for both arguments, so that they alias as on the host.
// AoS: one shared-memory slice sd<first arg>, loaded and stored once; SoA, RW: one register array; SoA INC / INC:
// a register array each, both added by the one thread; AoS under global colouring: both point into the dat.
TEST(CudaCodegen, DirectArgsOfOneDatShareOneCopy) {
  for (um_access acc : {UM_INC, UM_RW})
    for (umc_exec exec : {UMC_EXEC_FLAT, UMC_EXEC_HIER}) {
      SCOPED_TRACE(std::string(um_access_name(acc)) + " " + umc_exec_name(exec));
      umc_loop L = loop_frame("dup", "k_dup", "k.h", exec, 256, 3, 2, 1);
      L.args[0] = dat_arg(acc, 2, 0, 0);
      L.args[1] = dat_arg(acc, 2, 0, 0);
      L.args[2] = dat_arg(UM_READ, 1, 0, 1, 0, 0); // an indirect READ: a plan for the hierarchical scheme
      if (exec == UMC_EXEC_HIER) add_inds(L);
      umc_decisions D;
      std::string src = generate(L, D);
      EXPECT_EQ(D.pass[0], UMC_PASS_SHARED_DIRECT);
      EXPECT_EQ(D.pass[1], UMC_PASS_SHARED_DIRECT);
      EXPECT_EQ(D.copy_of[0], -1);
      EXPECT_EQ(D.copy_of[1], 0);
      EXPECT_EQ(D.direct_shared_bytes, 256 * 2 * 8) << "one slice";
      EXPECT_TRUE(has(src, "double *a1 = sd0 + (e - um_d0) * 2;")) << src;
      EXPECT_FALSE(has(src, "sd1")) << src;
      EXPECT_TRUE(has(src, "sd0[l] = p.d0[(size_t)um_d0 * 2 + l];")) << src;
      const std::string store = "p.d0[(size_t)um_d0 * 2 + l] = sd0[l];";
      ASSERT_TRUE(has(src, store)) << src;
      EXPECT_EQ(src.find(store), src.rfind(store)) << "stored once: " << src;
      // SoA
      L.args[0].soa = L.args[1].soa = 1;
      src = generate(L, D);
      if (acc == UM_RW) {
        EXPECT_EQ(D.pass[1], UMC_PASS_REG);
        EXPECT_EQ(D.copy_of[1], 0);
        EXPECT_TRUE(has(src, "::k_dup(r0, r0, ")) << src;
        EXPECT_FALSE(has(src, "r1[")) << src;
      } else {
        EXPECT_EQ(D.pass[1], UMC_PASS_REG_INC);
        EXPECT_EQ(D.copy_of[1], -1);
        EXPECT_TRUE(has(src, "::k_dup(r0, r1, ")) << src;
      }
    }
  umc_loop L = loop_frame("dup", "k_dup", "k.h", UMC_EXEC_GLOBAL, 256, 3, 2, 1);
  L.args[0] = dat_arg(UM_RW, 2, 0, 0);
  L.args[1] = dat_arg(UM_RW, 2, 0, 0);
  L.args[2] = dat_arg(UM_READ, 1, 0, 1, 0, 0);
  umc_decisions D;
  generate(L, D);
  EXPECT_EQ(D.pass[0], UMC_PASS_GLOBAL);
  EXPECT_EQ(D.pass[1], UMC_PASS_GLOBAL);
}

// A dat written (RW / WRITE) through two maps with hierarchical staging of all indirect data: a staged copy per
// (dat, map) would be stored back over the other's writes, so the dat is not staged (the kernel runs by thread
// colour on the dat); a dat read through two maps, or RW through one, is still staged.
TEST(CudaCodegen, ADatWrittenThroughTwoMapsIsNotStaged) {
  for (um_access acc : {UM_RW, UM_WRITE}) {
    umc_loop L = loop_frame("rw2", "k_rw2", "k.h", UMC_EXEC_HIER, 256, 2, 1, 2);
    L.stage_all = 1;
    L.args[0] = dat_arg(acc, 1, 0, 0, 0, 0);
    L.args[1] = dat_arg(acc, 1, 0, 0, 1, 0);
    add_inds(L);
    ASSERT_EQ(L.ninds, 2);
    umc_decisions D;
    std::string src = generate(L, D);
    EXPECT_FALSE(D.ind_staged[0]) << src;
    EXPECT_FALSE(D.ind_staged[1]) << src;
    EXPECT_EQ(D.pass[0], UMC_PASS_GLOBAL);
    EXPECT_EQ(D.pass[1], UMC_PASS_GLOBAL);
    EXPECT_TRUE(D.kernel_in_colour_loop);
    EXPECT_FALSE(has(src, "staged: ")) << src;
    L.args[1].map = 0; // RW through one map at two indices: one staged copy, as before
    L.args[1].idx = 1;
    add_inds(L);
    src = generate(L, D);
    EXPECT_TRUE(D.ind_staged[0]) << src;
    EXPECT_EQ(D.ind_writeback[0], 2) << src;
  }
  umc_loop L = loop_frame("r2", "k_r2", "k.h", UMC_EXEC_HIER, 256, 2, 1, 2);
  L.stage_all = 1;
  L.args[0] = dat_arg(UM_READ, 1, 0, 0, 0, 0);
  L.args[1] = dat_arg(UM_READ, 1, 0, 0, 1, 0);
  add_inds(L);
  umc_decisions D;
  generate(L, D);
  EXPECT_TRUE(D.ind_staged[0] && D.ind_staged[1]) << "read through two maps: staged";
}

// Arguments of more than UM_MAX_SCRATCH_DIM (64) values a row are passed wherever they need no copy in registers
// (pointers into the dat, a shared slice that fits; not staged through maps); where they would need registers
// (SoA, increments through a map under atomics or hierarchical colouring) the refusal says what the limit is for.
TEST(CudaCodegen, WideArgumentsGoByPointerAndTheLimitIsExplained) {
  for (umc_exec exec : {UMC_EXEC_FLAT, UMC_EXEC_GLOBAL, UMC_EXEC_HIER}) {
    SCOPED_TRACE(umc_exec_name(exec));
    umc_loop L = loop_frame("big", "k_big", "k.h", exec, 256, 4, 3, 1);
    L.stage_all = 1;
    L.args[0] = dat_arg(UM_READ, 100, 0, 0, 0, 0);
    L.args[1] = dat_arg(UM_RW, 100, 0, 1);
    L.args[2] = dat_arg(UM_WRITE, 1, 0, 2);
    L.args[3] = dat_arg(exec == UMC_EXEC_FLAT ? UM_READ : UM_RW, 100, 0, 0, 0, 1);
    if (exec == UMC_EXEC_HIER) add_inds(L);
    umc_decisions D;
    const std::string src = generate(L, D);
    EXPECT_EQ(D.pass[0], UMC_PASS_GLOBAL) << src;
    EXPECT_EQ(D.pass[1], UMC_PASS_GLOBAL) << "a dim-100 slice of 256 threads is over the shared budget";
    EXPECT_EQ(D.pass[3], UMC_PASS_GLOBAL) << src;
    if (exec == UMC_EXEC_HIER) EXPECT_FALSE(D.ind_staged[0]) << src;
  }
  umc_loop L = loop_frame("big", "k_big", "k.h", UMC_EXEC_GLOBAL, 256, 1, 1, 1);
  L.args[0] = dat_arg(UM_INC, 100, 0, 0, 0, 0);
  umc_decisions D;
  const std::string src = generate(L, D);
  EXPECT_EQ(D.pass[0], UMC_PASS_GLOBAL) << "global colouring: the kernel adds in place: " << src;
  char err[512] = "";
  L.exec = UMC_EXEC_FLAT;
  EXPECT_EQ(umc_decide(&L, &D, err, sizeof err), UM_ERR_UNSUPPORTED);
  EXPECT_TRUE(has(err, "arg 0: dim 100: increments through a map are held in registers") && has(err, "at most 64"))
      << err;
  L.args[0] = dat_arg(UM_READ, 100, 1, 0);
  EXPECT_EQ(umc_decide(&L, &D, err, sizeof err), UM_ERR_UNSUPPORTED);
  EXPECT_TRUE(has(err, "SoA data is gathered into registers")) << err;
}

// Names in the generated source: a loop, kernel or header name with "*" "/" cannot end the header comment early;
// a header name an #include "..." cannot spell is refused with a message.
TEST(CudaCodegen, NamesCannotBreakTheGeneratedSource) {
  umc_loop L = res_calc_like(UMC_EXEC_FLAT, 0);
  L.loop_name = "odd*/name /*x";
  umc_decisions D;
  const std::string src = generate(L, D);
  EXPECT_TRUE(has(src, "loop 'odd* /name / *x'")) << src;
  EXPECT_EQ(src.find("*/"), src.find(" * generated code: do not edit */") + 31) << "one comment, ended once: " << src;
  char err[512] = "";
  char *out = nullptr;
  for (const char *bad : {"a\"b.h", "a\\b.h", "a\nb.h"}) {
    L.header_name = bad;
    ASSERT_EQ(umc_decide(&L, &D, err, sizeof err), UM_SUCCESS) << err;
    EXPECT_EQ(umc_generate(&L, &D, &out, err, sizeof err), UM_ERR_ARG) << bad;
    EXPECT_EQ(out, nullptr);
    EXPECT_TRUE(has(err, "kernel header name") && has(err, "#include")) << err;
  }
}

// ---- NVRTC: every loop of every app ---------------------------------------------------

std::vector<int> archs() {
  std::vector<int> v;
  std::stringstream s(UM_CUDA_TEST_ARCHS);
  std::string a;
  while (std::getline(s, a, ';'))
    if (!a.empty()) v.push_back(std::atoi(a.c_str()));
  return v;
}

struct Variant {
  um_strategy strategy;
  int staging;
  int layout;
  const char *name;
};

// Compiles every distinct kernel of every loop recorded on ctx; returns how many. NVRTC's assembler (ptxas) takes
// half the time or more of a big kernel's compile and checks what the front end cannot (e.g. the static shared
// memory of AoS staging), so it runs on the newest architecture for each strategy's AoS kernel; every other kernel
// is compiled to PTX (the whole front end and code generator, for that architecture) with NVRTC's fastest-compile
// setting (um_cuda_gen_options.quick).
int compile_all(um_context *ctx, const std::vector<std::string> &loops, bool newest_arch_only = false,
                std::vector<int> layouts = {(int)UM_AOS, (int)UM_SOA, (int)UM_LAYOUT_AUTO}) {
  std::vector<Variant> variants;
  const struct {
    um_strategy s;
    int staging;
    const char *name;
  } strategies[] = {{UM_STRATEGY_ATOMICS, 3, "atomics"},        {UM_STRATEGY_ATOMICS, 1, "atomics-staged"},
                    {UM_STRATEGY_GLOBAL, 0, "global"},          {UM_STRATEGY_HIERARCHICAL, 1, "hier-inc"},
                    {UM_STRATEGY_HIERARCHICAL, 2, "hier-all"}};
  for (auto &st : strategies)
    for (int layout : layouts) variants.push_back({st.s, st.staging, layout, st.name});
  std::set<std::string> seen;
  int compiled = 0;
  for (const std::string &loop : loops)
    for (const Variant &v : variants) {
      um_cuda_gen_options o;
      um_cuda_gen_options_default(&o);
      o.strategy = v.strategy;
      o.staging = v.staging;  // um_cuda_gen_options keeps its numbers: 1 inc, 2 all, 3 none
      o.layout = v.layout;
      o.warp_combine = 1;  // cuda's default: atomics pair increments where the maps pair columns
      char *src = nullptr;
      EXPECT_EQ(um_cuda_generate_loop(ctx, loop.c_str(), &o, &src), UM_SUCCESS) << loop << " " << v.name << " "
                                                                               << um_layout_name((um_layout)v.layout) << ": "
                                                                               << um_error_message(ctx);
      if (!src) continue;
      std::string s(src);
      free(src);
      std::vector<int> as = archs();
      if (newest_arch_only && !as.empty()) as = {as.back()};
      for (int arch : as) {
        if (!seen.insert(std::to_string(arch) + s).second) continue;  // same kernel as another variant
        o.arch = arch;
        o.ptx = !(arch == as.back() && v.layout == (int)UM_AOS);
        o.quick = o.ptx;  // NVRTC's fastest compile (-Ofc=max): 1.8x less time, the same front end and checks
        double secs = 0;
        size_t bytes = 0;
        EXPECT_EQ(um_cuda_compile_loop(ctx, loop.c_str(), &o, &secs, &bytes), UM_SUCCESS)
            << loop << " " << v.name << " " << um_layout_name((um_layout)v.layout) << " sm_" << arch << ": "
            << um_error_message(ctx);
        EXPECT_GT(bytes, 0u);
        compiled++;
      }
    }
  return compiled;
}

um_context *seq_context() {
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  return ctx;
}

// Runs a registered app on ctx from a config text (its loops are then recorded on ctx).
bool run_app(um_context *ctx, const char *app, const std::string &yaml) {
  char err[512] = "";
  um_config *cfg = nullptr;
  if (um_config_load_string(yaml.c_str(), "test", &cfg, err, sizeof err) != UM_SUCCESS) {
    ADD_FAILURE() << yaml << ": " << err;
    return false;
  }
  um_app_run r;
  memset(&r, 0, sizeof r);
  r.ctx = ctx;
  r.cfg = cfg;
  r.log = std::tmpfile();
  um_run_args args = {};
  args.apps = um_builtin_apps; /* the apps umrun runs, found as umrun finds them */
  args.n_apps = um_builtin_app_count;
  um_runner runner;
  if (umrun_runner_init(&runner, &args, "test_cuda_codegen")) {
    ADD_FAILURE() << "no built-in apps";
    return false;
  }
  r.app = um_app_find(&runner, app);
  r.runner = &runner;
  const int rc = r.app->run(&r);
  fclose(r.log);
  um_config_free(cfg);
  if (rc != UM_SUCCESS) ADD_FAILURE() << yaml << ": " << um_error_message(ctx);
  return rc == UM_SUCCESS;
}

// Runs the app's config on seq, then compiles every loop it recorded (at least min_loops of them) in every strategy
// x layout for the newest architecture (an app's kernels are the same C for all); returns the kernels compiled.
int compile_app_loops(const char *app, const std::string &yaml, size_t min_loops) {
  um_context *ctx = seq_context();
  int n = 0;
  if (run_app(ctx, app, yaml)) {
    std::vector<std::string> loops;
    for (int i = 0; i < um_loop_stats_count(ctx); i++) {
      um_loop_stats st;
      EXPECT_EQ(um_loop_stats_get(ctx, i, &st), UM_SUCCESS);
      loops.push_back(st.name);
    }
    EXPECT_GE(loops.size(), min_loops) << yaml;
    n = compile_all(ctx, loops, true);
  }
  um_finalize(&ctx);
  return n;
}

TEST(CudaNvrtc, ArchitecturesAreSupported) {
  int major = 0, minor = 0;
  ASSERT_EQ(um_cuda_nvrtc_version(&major, &minor), UM_SUCCESS);
  EXPECT_GE(major, 12);
  for (int a : archs()) EXPECT_TRUE(um_cuda_arch_supported(a)) << "sm_" << a;
  EXPECT_FALSE(um_cuda_arch_supported(1)) << "sm_1 does not exist";
}

// A small Airfoil mesh declared on ctx and one iteration run, so its loops are recorded.
void airfoil_one_iteration(um_context *ctx, airfoil *a, airfoil_mesh *m) {
  char err[256];
  ASSERT_EQ(airfoil_mesh_generate(4, 6, 1, m, err, sizeof err), 0) << err;
  ASSERT_EQ(airfoil_set_constants(ctx), UM_SUCCESS);
  ASSERT_EQ(airfoil_decl_mesh(ctx, m, a), UM_SUCCESS) << um_error_message(ctx);
  ASSERT_EQ(airfoil_decl_flow(ctx, a), UM_SUCCESS) << um_error_message(ctx);
  double rms = 0;
  ASSERT_EQ(airfoil_iteration(ctx, a, &rms), UM_SUCCESS) << um_error_message(ctx);
}

TEST(CudaNvrtc, EveryAirfoilLoopCompiles) {
  um_context *ctx = seq_context();
  airfoil a{};
  airfoil_mesh m{};
  airfoil_one_iteration(ctx, &a, &m);
  if (HasFatalFailure()) return;
  // the fused step: update_adt, update_save_adt, and the second update on an iteration whose rms is not read
  for (int quiet : {0, 1}) {
    a.rms_unread = quiet;
    ASSERT_EQ(airfoil_step_fused(ctx, &a, 0), UM_SUCCESS) << um_error_message(ctx);
  }
  // params.scheme=cells: both stages, the second with and without the rms, and the last
  ASSERT_EQ(airfoil_decl_cells(ctx, &a), UM_SUCCESS) << um_error_message(ctx);
  for (int k : {0, 1, 2}) {
    a.rms_unread = k == 1;
    ASSERT_EQ(airfoil_step_cells(ctx, &a, k == 2), UM_SUCCESS) << um_error_message(ctx);
  }
  const std::vector<std::string> loops = {"save_soln", "adt_calc", "res_calc", "bres_calc", "update",
                                          "update_adt", "update_save_adt", "update_save_adt_no_rms",
                                          "cells_stage1", "cells_stage2", "cells_stage2_no_rms",
                                          "cells_stage2_last"};
  int n = compile_all(ctx, loops);
  EXPECT_GE(n, (int)(loops.size() * archs().size()));
  RecordProperty("kernels_compiled", n);
  airfoil_mesh_free(&m);
  um_finalize(&ctx);
}

TEST(CudaNvrtc, EveryJacobiLoopCompiles) {
  um_context *ctx = seq_context();
  ASSERT_TRUE(run_app(ctx, "jacobi", "app: jacobi\nmesh: {generator: grid, N: 6}\nrun: {iterations: 3}\n"));
  const std::vector<std::string> loops = {"degree", "gather", "relax", "max_error"};
  int n = compile_all(ctx, loops);
  EXPECT_GE(n, (int)(loops.size() * archs().size()));
  RecordProperty("kernels_compiled", n);
  um_finalize(&ctx);
}

TEST(CudaNvrtc, EveryLuleshLoopCompiles) {
  int n = 0;
  for (int fused : {0, 1, 2}) /* 2: fused with params.eos merged_q */
    for (lulesh_forces f : {LULESH_FORCES_INC, LULESH_FORCES_GATHER}) {
      if (fused == 2 && f == LULESH_FORCES_GATHER) continue;
      um_context *ctx = seq_context();
      lulesh_params p;
      lulesh_params_default(&p);
      p.size = 3;
      p.regions = 2; /* region 2 repeats its EOS (cost): the same kernel as region 1 */
      p.forces = f;
      p.fused = fused > 0;
      p.eos_merged = fused == 2 ? LULESH_EOS_MERGED_Q : fused && f == LULESH_FORCES_GATHER; /* eos_constraints */
      lulesh_state *s = nullptr;
      char err[512] = "";
      ASSERT_EQ(lulesh_setup(ctx, &p, &s, err, sizeof err), UM_SUCCESS) << err;
      int done = 0;
      ASSERT_EQ(lulesh_step(ctx, s, &done, err, sizeof err), UM_SUCCESS) << err;
      std::vector<std::string> loops;
      if (fused == 2)
        loops = {"q_eos_constraints"};
      else if (fused && f == LULESH_FORCES_INC)
        loops = {"volume_force", "nodal_update", "kinematics_gradients", "monoq", "eos_r1",
                 "volume_constraints"};
      else if (fused)
        loops = {"volume_force_corners", "gather_force", "eos_constraints"};
      else if (f == LULESH_FORCES_INC)
        loops = {"force_zero", "integrate_stress", "hourglass", "acceleration", "symm_x", "symm_y", "symm_z",
                 "velocity", "position", "kinematics", "monoq_gradients", "update_volume", "time_constraints"};
      else
        loops = {"stress_corners", "hourglass_corners", "gather_forces"};
      n += compile_all(ctx, loops);
      lulesh_state_free(&s);
      um_finalize(&ctx);
    }
  EXPECT_GE(n, 25 * (int)archs().size());
  RecordProperty("kernels_compiled", n);
}

// LULESH of size^3 elements (default parameters) set up on ctx and stepped once: its loops recorded.
void lulesh_one_step(um_context *ctx, int size, lulesh_state **s, int strips = 0) {
  lulesh_params p;
  lulesh_params_default(&p);
  p.size = size;
  p.strips = strips;
  char err[512] = "";
  ASSERT_EQ(lulesh_setup(ctx, &p, s, err, sizeof err), UM_SUCCESS) << err;
  int done = 0;
  ASSERT_EQ(lulesh_step(ctx, *s, &done, err, sizeof err), UM_SUCCESS) << err;
}

// Reproducible mode compiles LULESH's loops with UM_REPRO_MATH: um_cbrt is then the portable cube root, the host's.
TEST(CudaNvrtc, ReproducibleLuleshLoopsCompileWithThePortableMath) {
  um_context *ctx = seq_context();
  ASSERT_EQ(um_context_set_reproducible(ctx, 1), UM_SUCCESS);
  lulesh_state *s = nullptr;
  lulesh_one_step(ctx, 3, &s);
  if (HasFatalFailure()) return;
  um_cuda_gen_options o;
  um_cuda_gen_options_default(&o);
  char *src = nullptr;
  ASSERT_EQ(um_cuda_generate_loop(ctx, "volume_force", &o, &src), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(std::string(src).rfind("#define UM_REPRO_MATH 1\n", 0), 0u) << "the define comes first";
  free(src);
  EXPECT_GE(compile_all(ctx, {"volume_force"}, true), 1);
  lulesh_state_free(&s);
  um_finalize(&ctx);
}

// Reproducible mode splits miniAero's face fluxes; the left cell's contributions, declared um_arg_minus of the
// right's, are stored only where the launch passes their address (um_loop.drop: NULL once the declaration is
// checked). The contribution kernel says so and compiles in every strategy and layout.
TEST(CudaNvrtc, ContributionsDeclaredMinusAreStoredOnlyWhereNotDropped) {
  um_context *ctx = seq_context();
  ASSERT_TRUE(run_app(ctx, "miniaero",
                      "app: miniaero\nparams: {problem: sod, nx: 4, ny: 2, nz: 2, dt: 1e-6, second_order: true}\n"
                      "run: {iterations: 2, reproducible: true}\n"));
  um_cuda_gen_options o;
  um_cuda_gen_options_default(&o);
  char *src = nullptr;
  ASSERT_EQ(um_cuda_generate_loop(ctx, "flux_faces:contrib", &o, &src), UM_SUCCESS) << um_error_message(ctx);
  const std::string s(src);
  free(src);
  size_t guards = 0;
  for (size_t at = s.find("!= nullptr"); at != std::string::npos; at = s.find("!= nullptr", at + 1)) guards++;
  EXPECT_EQ(guards, 1u) << "one guarded store (arg 10, the left cell's), the right's stored as always:\n" << s;
  EXPECT_NE(s.find("unless dropped (um_arg_minus)"), std::string::npos) << s;
  EXPECT_GE(compile_all(ctx, {"flux_faces:contrib"}, true), 1);
  um_finalize(&ctx);
}

TEST(CudaNvrtc, EveryMiniaeroLoopCompiles) {
  // every kernel: first order inviscid and viscous, second order viscous on the flat plate (every
  // boundary kind; gradients by cells and by faces), with both collection schemes (the loops a run records). The kernels are the same C
  // for every architecture, so only the newest one is compiled here (the other apps cover the rest).
  const char *cases[] = {
      "params: {problem: sod, nx: 4, ny: 2, nz: 2, dt: 1e-6}",
      "params: {problem: flat_plate, lx: 2, ly: 0.002, nx: 4, ny: 3, nz: 2, dt: 3e-8, viscous: true}",
      "params: {problem: flat_plate, lx: 2, ly: 0.002, nx: 4, ny: 3, nz: 2, dt: 3e-8, second_order: true, viscous: true}",
      "params: {problem: flat_plate, lx: 2, ly: 0.002, nx: 4, ny: 3, nz: 2, dt: 3e-8, second_order: true, viscous: true, "
      "gradients: faces}"};
  int n = 0;
  for (const char *scheme : {"inc", "slots"})
    for (const char *c : cases) {
      if (std::string(scheme) == "slots" && std::string(c).find("gradients") != std::string::npos) continue;
      std::string yaml = std::string("app: miniaero\n") + c + "\nrun: {iterations: 1}\n";
      yaml.insert(yaml.find('}'), std::string(", scheme: ") + scheme);
      n += compile_app_loops("miniaero", yaml, 5);
    }
  RecordProperty("kernels_compiled", n);
}

TEST(CudaNvrtc, EverySiacLoopCompiles) {
  // both searches: the neighbourhood map (a thread per cell, and a thread per point) and the hash grid (per element
  // with 2 threads a cell: whole-dat READ and INC; per point with 2 threads a point: INC through a map); the newest
  // architecture (the kernels are the same C for all)
  const char *cases[] = {"params: {n: 8, degree: 1}", "params: {n: 8, degree: 1, point_threads: point}",
                         "params: {n: 10, degree: 1, search: grid, element_threads: 2}",
                         "params: {n: 10, degree: 1, search: grid, point_split: 2}"};
  int n = 0;
  for (const char *c : cases) n += compile_app_loops("siac", std::string("app: siac\n") + c + "\n", 4);
  RecordProperty("kernels_compiled", n);
}

TEST(CudaNvrtc, EveryVolnaLoopCompiles) {
  // a deck with every event kind: each Init formula becomes a kernel generated from the parsed expression
  // (Eta, U, V, Bathymetry, BathyRelative), plus the landslide, the maxima and a gauge; 2 steps
  const char *deck =
      "Time { end = 1 }\n"
      "Mesh Rectangle -2 2 -1 1 4 2\n"
      "PhysicalParams { g = 9.81 }\n"
      "NumericalParams { cfl = .45 }\n"
      "Init { istart = 0 iend = 0 } Bathymetry { return -1 + .1*exp(-x*x-y*y) - (x > 1 ? .05 : 0);}\n"
      "Init { istart = 0 iend = 0 } Eta { return .01*sqrt(g)*cos(x)*(t < 1 && y >= -1);}\n"
      "Init { istart = 0 iend = 0 } U { return pow(fabs(x), 1.5)*.01;}\n"
      "Init { istart = 0 iend = 0 } V { return !(y > 0)*atan2(y, x)*.001;}\n"
      "Init { istart = 0 istep = 1 } BathyRelative { return .01*t*exp(-(x-t)*(x-t));}\n"
      "Init { istart = 0 iend = 0 } GaussianLandslide { A = .1 V = 1 lx = 1 ly = 1 }\n"
      "OutputLocation { istep = 1 } \"g1\" { x = 0.3 y = 0.2 }\n"
      "OutputMaxElevation { istep = 1 } \"maxel\"\n"
      "OutputMaxSpeed { istep = 1 } \"maxsp\"\n";
  const char *path = "volna_every_event.vln";
  FILE *f = std::fopen(path, "w");
  ASSERT_NE(f, nullptr);
  std::fputs(deck, f);
  std::fclose(f);
  um_context *ctx = seq_context();
  ASSERT_TRUE(run_app(ctx, "volna", std::string("app: volna\nmesh: {file: ") + path + "}\nparams: {max_steps: 2}\n"));
  std::vector<std::string> loops;
  int formulas = 0;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    um_loop_stats st;
    ASSERT_EQ(um_loop_stats_get(ctx, i, &st), UM_SUCCESS);
    loops.push_back(st.name);
    if (std::string(st.name).find("_formula") != std::string::npos) formulas++;
  }
  EXPECT_EQ(formulas, 5) << "initEta/U/V/Bathymetry/BathyRelative_formula";
  EXPECT_GE(loops.size(), 15u);
  // the generated formula kernel: the expression as float C (exact literals, float functions)
  char *src = nullptr;
  um_cuda_gen_options o;
  um_cuda_gen_options_default(&o);
  ASSERT_EQ(um_cuda_generate_loop(ctx, "initBathymetry_formula", &o, &src), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_NE(std::string(src).find("vl_formula_0("), std::string::npos) << src;
  EXPECT_NE(std::string(src).find("arg 3: READ int[1] global"), std::string::npos)
      << "a bathymetry formula takes the update's first-time flag (initBathymetry_update in its own pass): " << src;
  EXPECT_EQ(std::find(loops.begin(), loops.end(), "initBathymetry_update"), loops.end()) << "no separate update loop";
  free(src);
  int n = compile_all(ctx, loops, true);
  EXPECT_GE(n, (int)loops.size());
  RecordProperty("kernels_compiled", n);
  um_finalize(&ctx);
  std::remove(path);
}

TEST(CudaNvrtc, EveryBookleafLoopCompiles) {
  // upstream's Sod deck on 8 x 4 elements, with hourglass filters (kappaall) so the corrector's force
  // with the filter runs too; every corner -> node scheme, fused and not, Eulerian (the ALE remap's loops
  // too) and with sub-zonal pressures (pmeritall). The loops a run records; newest arch only, as for miniAero.
  const char *deck =
      "&CONTROL\n time_end=1.0\n dt_initial=1.0e-3\n kappaall=0.01\n/\n&EOS\n eos_type(1)='ideal gas'\n"
      " eos_param(1,1)=1.4\n/\n&MESH\n region_typ(1)='LIN1'\n region_dim(1,:)=8,4\n region_side(1,1,:)=1,1\n"
      " region_side(1,2,:)=1,2\n region_side(1,3,:)=1,3\n region_side(1,4,:)=1,4\n"
      " segment_typ(:)='LINE','LINE','LINE','LINE'\n segment_bc(:)='SLIPY','SLIPX','SLIPY','SLIPX'\n"
      " segment_pos(1,:)=0.0,0.0,100.0,0.0\n segment_pos(2,:)=100.0,0.0,100.0,25.0\n"
      " segment_pos(3,:)=100.0,25.0,0.0,25.0\n segment_pos(4,:)=0.0,25.0,0.0,0.0\n/\n"
      "&INDICATORS\n region_type(1)='background'\n region_name(1)='air'\n region_type(2)='shape'\n"
      " region_name(2)='helium'\n region_value(2)=1\n material_type(1)='background'\n material_name(1)='gas'\n/\n"
      "&INITIAL_CONDITIONS\n thermodynamic_type(1)='region'\n thermodynamic_value(1)=1\n density(1)=1.0\n"
      " energy(1)=2.5\n thermodynamic_type(2)='region'\n thermodynamic_value(2)=2\n density(2)=0.125\n"
      " energy(2)=2.0\n/\n&SHAPES\n shape_type(1)='rectangle'\n shape_param(1,:)=50.0,-10.0,150.0,50.0\n/\n";
  char path[] = "/tmp/um_bookleaf_deckXXXXXX";
  const int fd = mkstemp(path);  // the name; each variant below writes its deck there
  ASSERT_GE(fd, 0);
  close(fd);
  int n = 0;
  // Eulerian with the fused state passes and viscosity and increments; Lagrangian with sub-zonal pressures, upstream's loops
  // one by one and corner passes; Eulerian, one by one, the nodes gathering (plain getforce, getacc_gather).
  // The fewest loops each run records (seq runs of the same deck, counted with umrun).
  struct Variant {
    const char *scheme, *fused, *visc;
    bool eulerian;
    size_t loops;
  };
  for (const Variant &v : {Variant{"inc", "true", "fused", true, 27}, Variant{"upstream", "false", "loops", false, 17},
                           Variant{"gather", "false", "loops", true, 31}}) {
    std::string text(deck);
    if (v.eulerian) text += "&ALE\n zeul=.TRUE.\n/\n";
    else text.replace(text.find(" kappaall"), 0, " pmeritall=0.5\n");
    FILE *g = fopen(path, "w");
    fputs(text.c_str(), g);
    fclose(g);
    um_context *ctx = seq_context();
    std::string yaml = std::string("app: bookleaf\nmesh: {file: ") + path + "}\nparams: {scheme: " + v.scheme +
                       ", fused: " + v.fused + ", visc: " + v.visc + "}\nrun: {iterations: 2}\n";
    ASSERT_TRUE(run_app(ctx, "bookleaf", yaml));
    std::vector<std::string> loops;
    for (int i = 0; i < um_loop_stats_count(ctx); i++) {
      um_loop_stats st;
      ASSERT_EQ(um_loop_stats_get(ctx, i, &st), UM_SUCCESS);
      loops.push_back(st.name);
    }
    // (the controlling element is looked for, with one kernel, bl_argfind, only for the limit that set dt on a
    // printed step: getdt_cfl_element or getdt_div_element)
    EXPECT_GE(loops.size(), v.loops) << yaml;
    n += compile_all(ctx, loops, true);
    um_finalize(&ctx);
  }
  {  // a second material, partly in the shape: mixed cells (the components' loops, mix_*)
    std::string text(deck);
    text.replace(text.find("/\n&MESH"), 0, " eos_type(2)='ideal gas'\n eos_param(1,2)=1.2\n");
    text.replace(text.find("/\n&INITIAL_CONDITIONS"), 0, " material_type(2)='shape'\n material_name(2)='he'\n material_value(2)=1\n");
    text.replace(text.find("/\n&SHAPES"), 0, " thermodynamic_type(3)='material'\n thermodynamic_value(3)=2\n density(3)=0.125\n energy(3)=2.0\n");
    FILE *g = fopen(path, "w");
    fputs(text.c_str(), g);
    fclose(g);
    um_context *ctx = seq_context();
    ASSERT_TRUE(run_app(ctx, "bookleaf", std::string("app: bookleaf\nmesh: {file: ") + path + "}\nrun: {iterations: 2}\n"));
    std::vector<std::string> loops;
    for (int i = 0; i < um_loop_stats_count(ctx); i++) {
      um_loop_stats st;
      ASSERT_EQ(um_loop_stats_get(ctx, i, &st), UM_SUCCESS);
      loops.push_back(st.name);
    }
    EXPECT_EQ(std::count_if(loops.begin(), loops.end(), [](const std::string &l) { return l.rfind("mix_", 0) == 0; }), 7)
        << "mix_eos, mix_cs2, mix_force, mix_state_predictor, mix_force_corrector, mix_cnf, mix_state_corrector";
    n += compile_all(ctx, loops, true);
    um_finalize(&ctx);
  }
  unlink(path);
  RecordProperty("kernels_compiled", n);
}

TEST(CudaNvrtc, EveryTestKernelCompiles) {
  um_context *ctx = seq_context();
  tcw::Mesh m = tcw::random_mesh(50, 120, 40, 7);
  tcw::Result res;
  tcw::run_all(ctx, m, &res, 1);
  std::vector<double> a(100, 1.5);  // MIN and MAX of double, float and int: the atomics of each type
  double d[26] = {0};
  float f[2] = {0, 0};
  int k[2] = {0, 0};
  um_set *s = nullptr;
  um_dat *ad = nullptr;
  ASSERT_EQ(um_decl_set(ctx, 100, "minmax_set", &s), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, a.data(), "minmax_a", &ad), UM_SUCCESS);
  ASSERT_EQ(UM_PAR_LOOP(ctx, tk_minmax_types_kernel, "tk_minmax_types", s, um_arg_dat(ad, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                        um_arg_gbl(d, 3, UM_DOUBLE, UM_MIN), um_arg_gbl(d + 3, 3, UM_DOUBLE, UM_MAX),
                        um_arg_gbl(f, 1, UM_FLOAT, UM_MIN), um_arg_gbl(f + 1, 1, UM_FLOAT, UM_MAX),
                        um_arg_gbl(k, 1, UM_INT, UM_MIN), um_arg_gbl(k + 1, 1, UM_INT, UM_MAX),
                        um_arg_gbl(d + 6, 20, UM_DOUBLE, UM_MAX)),
            UM_SUCCESS);
  std::vector<std::string> loops = tcw::loop_names();
  loops.push_back("tk_minmax_types");
  int n = compile_all(ctx, loops);
  EXPECT_GE(n, (int)(loops.size() * archs().size()));
  RecordProperty("kernels_compiled", n);
  um_finalize(&ctx);
}

// ---- kernels from source text alone (their host range does nothing: only their loops' CUDA code is compiled) --

void no_range(um_exec *, int, int) {}

um_kernel source_kernel(const char *name, int nargs, const char *source, const char *header) {
  um_kernel k;
  memset(&k, 0, sizeof k);
  k.name = name;
  k.nargs = nargs;
  k.range = no_range;
  k.source = source;
  k.source_name = header;
  return k;
}

const char kTwiceSource[] =
    "#include <um/kernel.h>\n"
    "UM_KERNEL void cg_mixed(double *self, double *n0, double *n1) {\n"
    "  self[0] += 1.0; n0[0] += 10.0; n1[0] += 100.0;\n}\n"
    "UM_KERNEL void cg_dup_inc(double *a, double *b) { a[0] += 1.0; a[1] += 2.0; b[0] += 3.0; b[1] += 4.0; }\n"
    "UM_KERNEL void cg_dup_rw(double *a, double *b) { a[0] = 2.0 * a[0] + 1.0; b[1] = b[0] + b[1]; }\n"
    "UM_KERNEL void cg_rw2(double *a, double *b) { a[0] += 1.0; b[0] += 2.0; }\n"
    "UM_KERNEL void cg_big(const double *a, double *b, double *z) { z[0] = a[99] + b[99]; b[0] += 1.0; }\n";

// The loops whose dat is reached twice (a direct increment beside increments through a map, dim 1 and 2; one dat
// passed directly twice, INC and RW; a dat RW through two maps) and a loop of dim-100 rows compile in every
// strategy x layout (dim 100: AoS and the layout chosen per dat, which keeps rows that wide AoS).
TEST(CudaNvrtc, LoopsReachingOneDatTwiceAndWideRowsCompile) {
  um_context *ctx = seq_context();
  const um_kernel mixed = source_kernel("cg_mixed", 3, kTwiceSource, "cg_twice.h");
  const um_kernel dup_inc = source_kernel("cg_dup_inc", 2, kTwiceSource, "cg_twice.h");
  const um_kernel dup_rw = source_kernel("cg_dup_rw", 2, kTwiceSource, "cg_twice.h");
  const um_kernel rw2 = source_kernel("cg_rw2", 2, kTwiceSource, "cg_twice.h");
  const um_kernel big = source_kernel("cg_big", 3, kTwiceSource, "cg_twice.h");
  const int n = 300;
  std::vector<int> m2(2 * n), m1(2 * n);
  for (int e = 0; e < n; e++) {
    m2[2 * e] = (e + 1) % n, m2[2 * e + 1] = (e * 7 + 3) % n;
    m1[2 * e] = (e * 11 + 5) % n, m1[2 * e + 1] = e;
  }
  um_set *cells;
  um_map *nb, *nb2;
  um_dat *q1, *q2, *w1, *w2;
  ASSERT_EQ(um_decl_set(ctx, n, "cg_cells", &cells), UM_SUCCESS);
  ASSERT_EQ(um_decl_map(ctx, cells, cells, 2, m2.data(), "cg_nb", &nb), UM_SUCCESS);
  ASSERT_EQ(um_decl_map(ctx, cells, cells, 2, m1.data(), "cg_nb2", &nb2), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, cells, 1, UM_DOUBLE, nullptr, "cg_q1", &q1), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, cells, 2, UM_DOUBLE, nullptr, "cg_q2", &q2), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, cells, 100, UM_DOUBLE, nullptr, "cg_w1", &w1), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, cells, 100, UM_DOUBLE, nullptr, "cg_w2", &w2), UM_SUCCESS);
  for (um_dat *q : {q1, q2}) {
    const int d = q == q1 ? 1 : 2;
    ASSERT_EQ(UM_PAR_LOOP(ctx, mixed, d == 1 ? "cg_mixed1" : "cg_mixed2", cells,
                          um_arg_dat(q, -1, UM_ID, d, UM_DOUBLE, UM_INC), um_arg_dat(q, 0, nb, d, UM_DOUBLE, UM_INC),
                          um_arg_dat(q, 1, nb, d, UM_DOUBLE, UM_INC)),
              UM_SUCCESS)
        << um_error_message(ctx);
  }
  ASSERT_EQ(UM_PAR_LOOP(ctx, dup_inc, "cg_dup_inc", cells, um_arg_dat(q2, -1, UM_ID, 2, UM_DOUBLE, UM_INC),
                        um_arg_dat(q2, -1, UM_ID, 2, UM_DOUBLE, UM_INC)),
            UM_SUCCESS);
  ASSERT_EQ(UM_PAR_LOOP(ctx, dup_rw, "cg_dup_rw", cells, um_arg_dat(q2, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                        um_arg_dat(q2, -1, UM_ID, 2, UM_DOUBLE, UM_RW)),
            UM_SUCCESS);
  ASSERT_EQ(UM_PAR_LOOP(ctx, rw2, "cg_rw2", cells, um_arg_dat(q1, 0, nb, 1, UM_DOUBLE, UM_RW),
                        um_arg_dat(q1, 0, nb2, 1, UM_DOUBLE, UM_RW)),
            UM_SUCCESS);
  ASSERT_EQ(UM_PAR_LOOP(ctx, big, "cg_big", cells, um_arg_dat(w1, 0, nb, 100, UM_DOUBLE, UM_READ),
                        um_arg_dat(w2, -1, UM_ID, 100, UM_DOUBLE, UM_RW),
                        um_arg_dat(q1, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)),
            UM_SUCCESS);
  const std::vector<std::string> loops = {"cg_mixed1", "cg_mixed2", "cg_dup_inc", "cg_dup_rw", "cg_rw2"};
  EXPECT_GE(compile_all(ctx, loops, true), (int)loops.size());
  EXPECT_GE(compile_all(ctx, {"cg_big"}, true, {(int)UM_AOS, (int)UM_LAYOUT_AUTO}), 1);
  um_cuda_gen_options o;
  um_cuda_gen_options_default(&o);
  o.strategy = UM_STRATEGY_HIERARCHICAL;
  o.staging = 2;
  char *src = nullptr;
  ASSERT_EQ(um_cuda_generate_loop(ctx, "cg_rw2", &o, &src), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_FALSE(has(src, "staged: ")) << src;
  free(src);
  o.layout = UM_SOA;
  EXPECT_EQ(um_cuda_generate_loop(ctx, "cg_big", &o, &src), UM_ERR_UNSUPPORTED);
  EXPECT_TRUE(has(um_error_message(ctx), "dim 100: SoA data is gathered into registers")) << um_error_message(ctx);
  um_finalize(&ctx);
}

// What NVRTC says about a loop's kernel reaches the log whole (cuda.dump at verbose 2, and a failed compile's
// numbered source, both far longer than 2048 bytes), and says nothing of the engine's own code: no warning from
// um/kernel.h or from um_reduce's scratch (a loop whose reductions are all MIN / MAX); C99's restrict and _Bool
// in a kernel header compile.
TEST(CudaNvrtc, TheLogIsWholeAndHoldsOnlyTheUsersProblems) {
  std::string log;
  um_options opt;
  um_options_default(&opt);
  opt.backend = "seq";
  opt.verbose = 2;
  opt.log = [](void *user, um_log_level, const char *msg) { *(std::string *)user += std::string(msg) + "\n"; };
  opt.log_user = &log;
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &opt), UM_SUCCESS);
  static const char good[] = "#include <um/kernel.h>\n"
                             "UM_KERNEL void cg_c99(const double *restrict a, double *mn, double *mx) {\n"
                             "  _Bool big = a[0] > 1.0;\n  if (big) mx[0] = a[0] > mx[0] ? a[0] : mx[0];\n"
                             "  mn[0] = a[0] < mn[0] ? a[0] : mn[0];\n}\n";
  static const char bad[] = "#include <um/kernel.h>\nUM_KERNEL void cg_bad(double *a) { a[0] = not_declared; }\n";
  const um_kernel kgood = source_kernel("cg_c99", 3, good, "cg_c99.h");
  const um_kernel kbad = source_kernel("cg_bad", 1, bad, "cg_bad.h");
  um_set *s;
  um_dat *d;
  std::vector<double> a(64, 2.0);
  ASSERT_EQ(um_decl_set(ctx, 64, "cg_s", &s), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, a.data(), "cg_a", &d), UM_SUCCESS);
  double mn = 1e300, mx = -1e300;
  ASSERT_EQ(UM_PAR_LOOP(ctx, kgood, "cg_c99", s, um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                        um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX)),
            UM_SUCCESS);
  ASSERT_EQ(UM_PAR_LOOP(ctx, kbad, "cg_bad", s, um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_RW)), UM_SUCCESS);
  um_cuda_gen_options o;
  um_cuda_gen_options_default(&o);
  o.arch = archs().back();
  o.ptx = 1;
  log.clear();
  EXPECT_EQ(um_cuda_compile_loop(ctx, "cg_c99", &o, nullptr, nullptr), UM_SUCCESS) << um_error_message(ctx);
  char *src = nullptr;
  ASSERT_EQ(um_cuda_generate_loop(ctx, "cg_c99", &o, &src), UM_SUCCESS);
  const std::string good_src = src;
  free(src);
  EXPECT_GT(log.size(), 2048u);
  EXPECT_TRUE(has(good_src, "um_reduce_cg_c99")) << good_src;
  const size_t lines = std::count(good_src.begin(), good_src.end(), '\n');
  char last[32];
  snprintf(last, sizeof last, "%5zu  }", lines);
  EXPECT_TRUE(has(log, last)) << "the dump's last line (" << last << ") is in the log: " << log;
  EXPECT_FALSE(has(log, "warning")) << log;
  EXPECT_FALSE(has(log, "NVRTC log")) << "NVRTC had nothing to say: " << log;
  log.clear();
  EXPECT_EQ(um_cuda_compile_loop(ctx, "cg_bad", &o, nullptr, nullptr), UM_ERR_BACKEND);
  ASSERT_EQ(um_cuda_generate_loop(ctx, "cg_bad", &o, &src), UM_SUCCESS);
  const std::string bad_src = src;
  free(src);
  EXPECT_TRUE(has(log, "not_declared")) << log;
  snprintf(last, sizeof last, "%5zu  }", (size_t)std::count(bad_src.begin(), bad_src.end(), '\n'));
  EXPECT_TRUE(has(log, last)) << "the failed compile's numbered source, whole: " << log;
  EXPECT_FALSE(has(log, "warning")) << log;
  um_finalize(&ctx);
}

// cuda.warp_combine: the column pairs found along the element order (grid quadrilaterals: the next cell's
// columns 0 and 3 are this cell's 1 and 2; none on random maps, with a block of threads not a whole number of
// warps, or outside flat atomics), and the kernels that shuffle them compile for every architecture, AoS and SoA.
TEST(CudaCodegen, WarpCombinePairsColumnsAlongTheElementOrder) {
  auto cells_loop = [](umc_exec exec, int threads) {
    umc_loop L = loop_frame("tk_cell", "tk_cell", "test_cuda_kernels.h", exec, threads, 5, 2, 1);
    L.args[0].dat = 0, L.args[0].dim = 3, L.args[0].acc = UM_READ, L.args[0].type = UM_DOUBLE, L.args[0].map = -1;
    for (int a = 1; a < 5; a++) {
      umc_arg &x = L.args[a];
      x.indirect = 1, x.acc = UM_INC, x.type = UM_DOUBLE, x.dim = 3, x.dat = 1, x.map = 0, x.arity = 4, x.idx = a - 1;
    }
    return L;
  };
  const umtest::Mesh grid = umtest::grid_mesh(37, 9, 3), rnd = umtest::random_mesh(400, 10, 333, 5);
  const int *gd[1] = {grid.cell.data()}, *rd[1] = {rnd.cell.data()};
  umc_loop L = cells_loop(UMC_EXEC_FLAT, 128);
  ASSERT_EQ(umc_find_pairs(&L, gd, 0, grid.ncell, 2), 2) << "along x: nothing two apart";
  ASSERT_EQ(L.npair_levels, 1) << "rows along x: the next cell only";
  const umc_pair_level &l1 = L.pair_levels[0];
  EXPECT_EQ(l1.offset, 1);
  ASSERT_EQ(l1.npairs, 2);
  std::set<std::pair<int, int>> found{{l1.recv[0], l1.donor[0]}, {l1.recv[1], l1.donor[1]}};
  EXPECT_TRUE(found.count({2, 1})) << "column 1 receives the next cell's column 0";
  EXPECT_TRUE(found.count({3, 4})) << "column 2 receives the next cell's column 3";
  umc_decisions D;
  std::string src = generate(L, D);
  EXPECT_TRUE(has(src, "const int nt = __shfl_down_sync(0xffffffffu, t0_0, 1);")) << src;
  EXPECT_TRUE(has(src, "const int take = active && um_next && nt == t0_1;")) << src;
  // numbered in strips two rows high (cell (i, j) then (i, j + 1)): y neighbours 1 apart (even cells), x
  // neighbours 2 apart (every cell): two levels, the x pairs (every row) first
  const umtest::Mesh strips = umtest::grid_mesh(37, 10, 3, true);
  const int *sd[1] = {strips.cell.data()};
  umc_loop T = cells_loop(UMC_EXEC_FLAT, 128);
  EXPECT_EQ(umc_find_pairs(&T, sd, 0, 370, 2), 5) << "x: (1, 0), (2, 3); y: (3, 0), (2, 1); the corner: (1, 3)";
  ASSERT_EQ(T.npair_levels, 2);
  EXPECT_EQ(T.pair_levels[0].offset, 2) << "x pairs hold for every cell: first";
  EXPECT_EQ(T.pair_levels[0].npairs, 2);
  EXPECT_EQ(T.pair_levels[1].offset, 1);
  EXPECT_EQ(T.pair_levels[1].npairs, 3) << "y pairs (even cells) and the shared corner (odd cells)";
  std::string tsrc = generate(T, D);
  EXPECT_TRUE(has(tsrc, "const int nt = __shfl_down_sync(0xffffffffu, t0_0, 2);")) << tsrc;
  EXPECT_TRUE(has(tsrc, "&& um_lane + 2 < 32")) << tsrc;
  const size_t combine = src.find("cuda.warp_combine");
  ASSERT_NE(combine, std::string::npos) << src;
  for (int a = 1; a < 5; a++)  // every corner's atomics after the shuffles, none inside the element's call
    EXPECT_GT(src.find("if (r" + std::to_string(a) + "[c] != 0) atomicAdd("), combine) << a << ": " << src;
  umc_loop R = cells_loop(UMC_EXEC_FLAT, 128);
  EXPECT_EQ(umc_find_pairs(&R, rd, 0, rnd.ncell, 2), 0) << "random corners: no pairs";
  EXPECT_FALSE(has(generate(R, D), "__shfl")) << "no pairs, no shuffles";
  umc_loop O = cells_loop(UMC_EXEC_FLAT, 100);
  EXPECT_EQ(umc_find_pairs(&O, gd, 0, grid.ncell, 2), 0) << "100 threads: the last warp is partial";
  umc_loop H = cells_loop(UMC_EXEC_HIER, 128);
  EXPECT_EQ(umc_find_pairs(&H, gd, 0, grid.ncell, 2), 0) << "hierarchical blocks colour, not shuffle";
  umc_loop S = cells_loop(UMC_EXEC_FLAT, 128);
  EXPECT_EQ(umc_find_pairs(&S, gd, 0, 40, 2), 0) << "under 64 elements: not worth sampling";

  // the test kernels recorded on a grid: tk_edge's r (the next edge's first node is this one's second) and
  // tk_cell's n are paired, and the kernels compile
  um_context *ctx = seq_context();
  tcw::Result res;
  tcw::run_all(ctx, umtest::grid_mesh(70, 5, 11), &res, 1);
  int compiled = 0;
  for (const char *loop : {"tk_edge", "tk_cell"})
    for (int layout : {(int)UM_AOS, (int)UM_SOA}) {
      um_cuda_gen_options o;
      um_cuda_gen_options_default(&o);
      o.strategy = UM_STRATEGY_ATOMICS;
      o.staging = 3;
      o.layout = layout;
      o.warp_combine = 1;
      char *s = nullptr;
      ASSERT_EQ(um_cuda_generate_loop(ctx, loop, &o, &s), UM_SUCCESS) << um_error_message(ctx);
      EXPECT_TRUE(s && has(s, "__shfl_down_sync")) << loop << ": " << (s ? s : "");
      free(s);
      for (int arch : archs()) {
        o.arch = arch;
        size_t bytes = 0;
        EXPECT_EQ(um_cuda_compile_loop(ctx, loop, &o, nullptr, &bytes), UM_SUCCESS)
            << loop << " sm_" << arch << ": " << um_error_message(ctx);
        compiled += bytes > 0;
      }
    }
  EXPECT_EQ(compiled, 4 * (int)archs().size());
  um_finalize(&ctx);

  // LULESH's volume_force (hexahedra numbered along x): four pairs of the force's eight corners
  um_context *lctx = seq_context();
  lulesh_state *st = nullptr;
  lulesh_one_step(lctx, 6, &st);
  if (HasFatalFailure()) return;
  um_cuda_gen_options o;
  um_cuda_gen_options_default(&o);
  o.strategy = UM_STRATEGY_ATOMICS;
  o.staging = 3;
  o.warp_combine = 1;
  char *s = nullptr;
  ASSERT_EQ(um_cuda_generate_loop(lctx, "volume_force", &o, &s), UM_SUCCESS) << um_error_message(lctx);
  std::string vf = s ? s : "";
  free(s);
  size_t pairs = 0;
  for (size_t at = vf.find("const int nt = "); at != std::string::npos; at = vf.find("const int nt = ", at + 1)) pairs++;
  EXPECT_EQ(pairs, 4u) << vf;
  lulesh_state_free(&st);
  um_finalize(&lctx);

  // numbered in strips (params.numbering: strips): x pairs two apart (4), then y pairs one apart (4, even elements)
  // and the edge an odd element shares with the next (2); the kernel compiles
  lctx = seq_context();
  lulesh_one_step(lctx, 6, &st, 1);
  o.warp_combine = 2;
  if (HasFatalFailure()) return;
  ASSERT_EQ(um_cuda_generate_loop(lctx, "volume_force", &o, &s), UM_SUCCESS) << um_error_message(lctx);
  vf = s ? s : "";
  free(s);
  size_t two = 0, one = 0;
  for (size_t at = vf.find("const int nt = "); at != std::string::npos; at = vf.find("const int nt = ", at + 1)) {
    const std::string stmt = vf.substr(at, vf.find(';', at) - at);  // "... __shfl_down_sync(mask, t0_3, 2)"
    (stmt.compare(stmt.size() - 3, 3, " 2)") == 0 ? two : one)++;
  }
  EXPECT_EQ(two, 4u) << vf;
  EXPECT_EQ(one, 6u) << vf;
  EXPECT_LT(vf.find(", 2) && um_lane + 2 < 32"), vf.find(", 1) && um_lane + 1 < 32")) << "the offset-2 level first";
  for (int arch : archs()) {
    o.arch = arch;
    EXPECT_EQ(um_cuda_compile_loop(lctx, "volume_force", &o, nullptr, nullptr), UM_SUCCESS) << um_error_message(lctx);
  }
  lulesh_state_free(&st);
  um_finalize(&lctx);
}

// run.split fused (variant B) for the loops that increment through maps: Airfoil's res_calc and bres_calc, the
// test kernels tk_edge (two dats, a float, globals) and tk_cell (four corners), in hierarchical colouring,
// staging increments or all, AoS and SoA, every architecture.
TEST(CudaNvrtc, FusedSplitCompiles) {
  um_context *actx = seq_context(), *ctx = actx;
  airfoil a{};
  airfoil_mesh m{};
  airfoil_one_iteration(ctx, &a, &m);
  if (HasFatalFailure()) return;
  um_context *tctx = seq_context();  // the test kernels on their own context (their sets have Airfoil's names)
  tcw::Mesh tm = tcw::random_mesh(50, 120, 40, 7);
  tcw::Result res;
  tcw::run_all(tctx, tm, &res, 1);
  int n = 0;
  for (const char *loop : {"res_calc", "bres_calc", "tk_edge", "tk_cell"})
    for (int staging : {1, 2}) {
      um_context *ctx = loop[0] == 't' ? tctx : actx;
      for (int layout : {(int)UM_AOS, (int)UM_SOA}) {
        um_cuda_gen_options o;
        um_cuda_gen_options_default(&o);
        o.strategy = UM_STRATEGY_HIERARCHICAL;
        o.staging = staging;
        o.layout = layout;
        o.fused = 1;
        char *src = nullptr;
        ASSERT_EQ(um_cuda_generate_loop(ctx, loop, &o, &src), UM_SUCCESS) << loop << ": " << um_error_message(ctx);
        EXPECT_TRUE(has(src, "um_sp = um_p2;")) << loop << ": the fused kernel: " << src;
        free(src);
        for (int arch : archs()) {
          o.arch = arch;
          size_t bytes = 0;
          EXPECT_EQ(um_cuda_compile_loop(ctx, loop, &o, nullptr, &bytes), UM_SUCCESS)
              << loop << " staging " << staging << " " << um_layout_name((um_layout)layout) << " sm_" << arch << ": "
              << um_error_message(ctx);
          n++;
        }
      }
    }
  {  // fused whatever the strategy: atomics give the same hierarchical two-phase kernel
    um_cuda_gen_options o;
    um_cuda_gen_options_default(&o);
    o.strategy = UM_STRATEGY_ATOMICS;
    o.fused = 1;
    char *src = nullptr;
    ASSERT_EQ(um_cuda_generate_loop(ctx, "res_calc", &o, &src), UM_SUCCESS) << um_error_message(ctx);
    EXPECT_TRUE(has(src, "um_sp = um_p2;") && !has(src, "atomicAdd")) << src;
    free(src);
  }
  RecordProperty("kernels_compiled", n);
  airfoil_mesh_free(&m);
  um_finalize(&actx);
  um_finalize(&tctx);
}

// Vector arguments (um_arg_vec): a vector READ, a vector INC (double, float, int) and per-index args beside
// them, arity 3 and 60, in every strategy x layout and architecture.
TEST(CudaNvrtc, EveryVectorArgLoopCompiles) {
  um_context *ctx = seq_context();
  std::vector<std::string> loops;
  for (int arity : {3, 60}) {
    const tvw::Mesh m = tvw::make(50, arity, 3);
    um_context *x = arity == 3 ? ctx : seq_context();
    tvw::Decl D = tvw::declare(x, m);
    tvw::sum(x, D, m, true, UM_AOS, "v");
    tvw::scatter(x, D, m, true, UM_SOA, "v");
    if (arity == 3) {
      std::vector<int> c;
      std::vector<float> h;
      tvw::count(x, D, m, true, "v", &c, &h);
      tvw::mixed(x, D, m, true, UM_AOS, "v");
      const tvw::Whole w = tvw::make_whole(m, 20, 1);  // whole-dat arguments (um_arg_whole), READ and INC
      tvw::gather_whole(x, D.cells, m, w, UM_AOS, "w");
      tvw::scatter_whole(x, D.cells, m, w, UM_SOA, "w");
      loops = {"sum_v", "scatter_v", "count_v", "mixed_v", "gather_whole_w", "scatter_whole_w"};
      EXPECT_GE(compile_all(x, loops), (int)(loops.size() * archs().size()));
    } else {
      EXPECT_GE(compile_all(x, {"sum_v", "scatter_v"}), 2 * (int)archs().size());
      um_finalize(&x);
    }
  }
  um_finalize(&ctx);
}

// How each strategy passes a vector arg: a um_vec over the element's map row in the dat in place, never
// staged; increments atomic without colours, plain += with them (the kernel then runs by thread colour).
TEST(CudaCodegen, VectorArgsAreAUmVecOverTheMapRow) {
  for (umc_exec exec : {UMC_EXEC_FLAT, UMC_EXEC_GLOBAL, UMC_EXEC_HIER}) {
    for (int block_atomics : {0, 1}) {
      if (block_atomics && exec != UMC_EXEC_HIER) continue;
      umc_loop L = loop_frame("stencil", "tv_mixed_vec", "test_vec_kernels.h", exec, 128, 4, 3, 1);
      L.block_atomics = block_atomics;
      const int dat[4] = {0, 0, 1, 2}, dim[4] = {2, 2, 2, 1}, vec[4] = {0, 1, 1, 0};
      const um_access acc[4] = {UM_READ, UM_READ, UM_INC, UM_INC};
      for (int a = 0; a < 4; a++) {
        umc_arg &x = L.args[a];
        x.indirect = a > 0;
        x.vec = vec[a];
        x.acc = acc[a];
        x.type = UM_DOUBLE;
        x.dim = dim[a];
        x.soa = a == 2;  // the incremented vector dat in SoA: es 1, cs its rows
        x.stride = 1000;
        x.dat = dat[a];
        x.map = a > 0 ? 0 : -1;
        x.arity = a > 0 ? 60 : 0;
        x.idx = vec[a] ? UM_ALL : a == 3 ? 0 : -1;
        x.ind = -1;
      }
      if (exec == UMC_EXEC_HIER) {  // the per-index INC arg is the one staged ind
        L.ninds = 1;
        L.args[3].ind = 0;
        L.inds[0].dat = 2;
        L.inds[0].map = 0;
        L.inds[0].dim = 1;
        L.inds[0].type = UM_DOUBLE;
      }
      umc_decisions D;
      const std::string src = generate(L, D);
      const bool atomic = exec == UMC_EXEC_FLAT || block_atomics;
      EXPECT_EQ(D.pass[1], UMC_PASS_VEC);
      EXPECT_EQ(D.pass[2], UMC_PASS_VEC);
      EXPECT_EQ(D.apply[2], atomic ? UMC_APPLY_ATOMIC : UMC_APPLY_PLAIN) << umc_exec_name(exec);
      EXPECT_TRUE(has(src, "const um_vec v1 = {p.m0 + (size_t)e * 60, (char *)p.d0, 60, 2, 1, 0};")) << src;
      EXPECT_TRUE(has(src, std::string("const um_vec v2 = {p.m0 + (size_t)e * 60, (char *)p.d1, 60, 1, 1000, ") +
                               (atomic ? "1" : "0") + "};"))
          << src;
      EXPECT_TRUE(has(src, "tv_mixed_vec(a0, &v1, &v2, ")) << src;
      EXPECT_FALSE(has(src, "t0_-2")) << "no single map index for a vector arg: " << src;
      if (exec == UMC_EXEC_HIER && !block_atomics) {
        EXPECT_TRUE(D.colour_loop);
        EXPECT_TRUE(D.kernel_in_colour_loop) << "the kernel adds through the um_vec: one thread colour at a time";
      }
    }
  }
}

// A whole-dat argument (um_arg_whole): the um_vec's row is the whole map's one row for every element, n the
// table's size; its increments are atomic (a thread per element).
TEST(CudaCodegen, WholeDatArgsShareOneRow) {
  umc_loop L = loop_frame("scatter_whole", "tv_scatter_whole", "test_vec_kernels.h", UMC_EXEC_FLAT, 128, 3, 3, 1);
  for (int a = 0; a < 3; a++) {
    umc_arg &x = L.args[a];
    x.acc = a == 2 ? UM_INC : UM_READ;
    x.type = a == 0 ? UM_INT : UM_DOUBLE;
    x.dim = a == 0 ? 4 : 2;
    x.dat = a;
    x.map = a == 2 ? 0 : -1;
    x.ind = -1;
    x.idx = a == 2 ? UM_ALL : -1;
    x.indirect = x.vec = x.whole = a == 2;
    x.arity = a == 2 ? 5000 : 0;
  }
  umc_decisions D;
  const std::string src = generate(L, D);
  EXPECT_EQ(D.pass[2], UMC_PASS_VEC);
  EXPECT_EQ(D.apply[2], UMC_APPLY_ATOMIC);
  EXPECT_TRUE(has(src, "const um_vec v2 = {p.m0, (char *)p.d2, 5000, 2, 1, 1};")) << src;
  EXPECT_FALSE(has(src, "p.m0 + (size_t)e")) << src;
}

TEST(CudaNvrtc, UnknownLoopAndKernelWithoutSource) {
  um_context *ctx = seq_context();
  char *src = nullptr;
  EXPECT_EQ(um_cuda_generate_loop(ctx, "nope", nullptr, &src), UM_ERR_ARG);
  EXPECT_TRUE(has(um_error_message(ctx), "no loop named 'nope'")) << um_error_message(ctx);
  um_finalize(&ctx);
}

// ---- the disk cache ------------------------------------------------------------------

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/um_cuda_cache_XXXXXX";
    path = mkdtemp(t) ? t : "";
  }
  ~TempDir() {
    if (!path.empty()) (void)!std::system(("rm -rf '" + path + "'").c_str());
  }
};

const char *kSource =
    "extern \"C\" __global__ void um_loop(double *x) { x[threadIdx.x] *= 2.0; }\n";

umj_request request(const std::string &dir, const char *src, int arch) {
  umj_request rq;
  memset(&rq, 0, sizeof rq);
  rq.name = "cache_test";
  rq.source = src;
  rq.arch = arch;
  rq.cache_dir = dir.c_str();
  return rq;
}

TEST(CudaJitCache, HitsCorruptAndStaleEntries) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const int arch = archs().front();
  const std::string sub = dir.path + "/sub";
  umj_request rq = request(sub, kSource, arch);
  umj_result r1, r2, r3, r4;
  char err[2048] = "";
  ASSERT_EQ(umj_compile(&rq, &r1, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_FALSE(r1.from_cache);
  ASSERT_EQ(umj_compile(&rq, &r2, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_TRUE(r2.from_cache) << "second compilation comes from " << r2.cache_file;
  ASSERT_EQ(r1.bytes, r2.bytes);
  EXPECT_EQ(memcmp(r1.image, r2.image, r1.bytes), 0);
  // corrupt the module: one byte flipped near the end
  {
    std::fstream f(r2.cache_file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    char c = 0x5a;
    f.write(&c, 1);
  }
  ASSERT_EQ(umj_compile(&rq, &r3, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_FALSE(r3.from_cache);
  EXPECT_TRUE(r3.cache_rebuilt) << "a corrupt entry is detected and rebuilt";
  EXPECT_EQ(memcmp(r1.image, r3.image, r1.bytes), 0);
  // truncated file, and a file of the same name holding another key (stale)
  { std::ofstream f(r3.cache_file, std::ios::binary | std::ios::trunc); f << "UMJIT00"; }
  umj_result_free(&r3);
  ASSERT_EQ(umj_compile(&rq, &r3, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_TRUE(r3.cache_rebuilt);
  std::string other = std::string(kSource) + "// another kernel\n";
  umj_request rq2 = request(sub, other.c_str(), arch);
  ASSERT_EQ(umj_compile(&rq2, &r4, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_NE(std::string(r4.cache_file), std::string(r1.cache_file)) << "another source, another entry";
  // copy the other entry over this key's file: a key mismatch, so stale
  {
    std::ifstream in(r4.cache_file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(r1.cache_file, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  umj_result_free(&r3);
  ASSERT_EQ(umj_compile(&rq, &r3, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_TRUE(r3.cache_rebuilt) << "an entry for another key is never used";
  EXPECT_EQ(memcmp(r1.image, r3.image, r1.bytes), 0);
  for (umj_result *r : {&r1, &r2, &r3, &r4}) umj_result_free(r);
}

TEST(CudaHalo, RowKernelsCompileForEveryArchitectureWithEveryEntryPoint) {
  // the kernels that pack and unpack halo rows on the GPU (distributed runs): each name the backend looks up
  // is an entry of the module, and the 8-byte copies move 64-bit words (no value split in two)
  const char *names[] = UMC_HALO_KERNEL_NAMES;
  for (int arch : archs()) {
    umj_request rq = request(std::string(), umc_halo_source(), arch);
    rq.ptx = 1;
    umj_result r;
    char err[2048] = "";
    ASSERT_EQ(umj_compile(&rq, &r, err, sizeof err), UM_SUCCESS) << "sm_" << arch << ": " << err;
    const std::string ptx((const char *)r.image);
    for (int k = 0; k < UMC_HALO_KERNELS; k++)
      EXPECT_TRUE(has(ptx, std::string(".entry ") + names[k])) << "sm_" << arch << ": no entry " << names[k];
    EXPECT_TRUE(has(ptx, "ld.global.nc.u64") || has(ptx, "ld.global.u64")) << ptx;
    EXPECT_TRUE(has(ptx, "add.f64") || has(ptx, "add.rn.f64")) << "um_rows_add_d adds doubles";
    umj_result_free(&r);
  }
}

TEST(CudaJitCache, FmaOffIsItsOwnModuleWithoutFusedMultiplyAdds) {
  // cuda.fma=0 compiles with --fmad=false: a*b+c stays a rounded multiply and an add (as on the host)
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const char *src =
      "extern \"C\" __global__ void um_loop(double *x, const double *y, const double *z) {\n"
      "  const int i = threadIdx.x; x[i] = x[i] * y[i] + z[i]; }\n";
  umj_request rq = request(dir.path, src, archs().front());
  rq.ptx = 1;  // PTX text, to read the instructions
  umj_result with, without;
  char err[2048] = "";
  ASSERT_EQ(umj_compile(&rq, &with, err, sizeof err), UM_SUCCESS) << err;
  rq.no_fma = 1;
  ASSERT_EQ(umj_compile(&rq, &without, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_FALSE(without.from_cache) << "the option is part of the cache key";
  EXPECT_NE(std::string(with.cache_file), std::string(without.cache_file));
  const std::string a((const char *)with.image), b((const char *)without.image);
  EXPECT_TRUE(has(a, "fma.rn.f64")) << a;
  EXPECT_FALSE(has(b, "fma.rn.f64")) << b;
  EXPECT_TRUE(has(b, "mul.rn.f64") && has(b, "add.rn.f64")) << b;
  umj_result_free(&with);
  umj_result_free(&without);
}

TEST(CudaJitCache, CompileErrorShowsTheLog) {
  const std::string none;
  umj_request rq = request(none, "extern \"C\" __global__ void um_loop() { this is not CUDA; }\n", archs().front());
  umj_result r;
  char err[2048] = "";
  std::string printed;
  rq.log = [](void *user, const char *text) { *(std::string *)user += text; };
  rq.log_user = &printed;
  EXPECT_EQ(umj_compile(&rq, &r, err, sizeof err), UM_ERR_BACKEND);
  EXPECT_TRUE(has(err, "cache_test")) << err;
  EXPECT_TRUE(has(err, "error")) << "the NVRTC log is in the message: " << err;
  EXPECT_TRUE(has(printed, "this is not CUDA")) << "the numbered source goes to the log: " << printed;
  EXPECT_TRUE(has(printed, "    1  extern")) << "with line numbers: " << printed;
  umj_result_free(&r);
}

TEST(CudaJitCache, LocationFromTheSetting) {
  char dir[1024];
  um_cache_dir("/tmp/somewhere", dir, sizeof dir);
  EXPECT_STREQ(dir, "/tmp/somewhere");
  um_cache_dir("off", dir, sizeof dir);
  EXPECT_STREQ(dir, "");
  um_cache_dir(nullptr, dir, sizeof dir);
  EXPECT_TRUE(has(dir, "/um")) << dir;
}

// Backend settings come from the options, else the environment UM_<BACKEND>_<KEY>,
// else the declared default; unknown keys and values are refused at um_init.
TEST(CudaOptions, SettingsFromOptionsEnvironmentOrDefault) {
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  ASSERT_EQ(um_options_set_backend(&o, "cuda.profile", "h200"), UM_SUCCESS);
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << "a setting of another backend is harmless: " << um_error_message(ctx);
  um_finalize(&ctx);
  ASSERT_EQ(um_options_set_backend(&o, "cuda.profil", "h200"), UM_SUCCESS);
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_ARG);
  EXPECT_TRUE(has(um_error_message(ctx), "cuda.profile")) << "lists the keys it has: " << um_error_message(ctx);
  um_finalize(&ctx);
  um_options_default(&o);
  o.backend = "seq";
  ASSERT_EQ(um_options_set_backend(&o, "cuda.staging", "most"), UM_SUCCESS);
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_ARG);
  EXPECT_TRUE(has(um_error_message(ctx), "use one of auto, inc, all, none")) << um_error_message(ctx);
  um_finalize(&ctx);
  EXPECT_EQ(um_options_set_backend(&o, "noprefix", "1"), UM_ERR_ARG);
  int n = um_backend_option_count("cuda");
  bool cache = false;
  for (int i = 0; i < n; i++) {
    const char *key, *def, *choices, *help;
    ASSERT_EQ(um_backend_option_at("cuda", i, &key, &def, &choices, &help), UM_SUCCESS);
    cache |= std::string(key) == "cache";
  }
  EXPECT_TRUE(cache);
}

// ---- without a GPU ----------------------------------------------------------------------

TEST(CudaNoGpu, AutoFallsBackAndCudaSaysWhy) {
  if (um_backend_available("cuda")) GTEST_SKIP() << "a GPU is present";
  um_options o;
  um_options_default(&o);
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_STRNE(um_context_backend(ctx), "cuda");
  um_finalize(&ctx);
  o.backend = "cuda";
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_UNSUPPORTED);
  EXPECT_TRUE(has(um_error_message(ctx), "backend openmp")) << um_error_message(ctx);
  um_finalize(&ctx);
}

}  // namespace
