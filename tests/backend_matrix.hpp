// The backend matrix shared by the backend tests (test_backends.cpp: seq and OpenMP; test_cuda_backend.cpp:
// CUDA): one case (backend x strategy x staging x layout x block size), the matrix of cases, the options
// of a case, its test name, a context made from them, and the comparison of a run with seq's
// (expect_matches_seq: the results both workloads share).
#ifndef UM_TESTS_BACKEND_MATRIX_HPP
#define UM_TESTS_BACKEND_MATRIX_HPP
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "um/um.h"
}

namespace bm {

// One cell of the matrix. strategy and staging matter on cuda only (the host backends take the default).
struct Case {
  const char *backend;
  um_strategy strategy;
  int staging;  // cuda.staging: 0 auto, 1 incremented data, 2 all indirect data, 3 none
  um_layout layout;
  int block_size;
};

inline bool on_cuda(const Case &c) { return std::strcmp(c.backend, "cuda") == 0; }

// The test's name: <backend>_<layout>_bs<n> on the host; <strategy>[_stageinc|_stageall]_<layout>_bs<n> on cuda.
inline std::string case_name(const Case &c) {
  std::string s;
  if (on_cuda(c)) {
    s = um_strategy_name(c.strategy);
    if (c.strategy == UM_STRATEGY_HIERARCHICAL || c.strategy == UM_STRATEGY_ATOMICS)
      s += c.staging == 2 ? "_stageall" : c.staging == 3 ? "" : "_stageinc";
  } else {
    s = c.backend;
  }
  return s + "_" + um_layout_name(c.layout) + "_bs" + std::to_string(c.block_size);
}

// The options of a case: its backend, layout and block size with the plans checked; on cuda its strategy and
// staging; on the host every block runs in parallel however small the mesh.
inline um_options case_options(const Case &c) {
  um_options o;
  um_options_default(&o);
  o.backend = c.backend;
  o.layout = c.layout;
  o.block_size = c.block_size;
  o.check_plans = 1;
  if (on_cuda(c)) {
    o.strategy = c.strategy;
    static const char *const staging[] = {"auto", "inc", "all", "none"};
    EXPECT_EQ(um_options_set_backend(&o, "cuda.staging", staging[c.staging]), UM_SUCCESS);
  } else {
    um_options_set(&o, "openmp.parallel_threshold", "0");  // small test meshes still run on all threads
  }
  return o;
}

// The reference every run is compared with: seq, AoS, block size 256.
inline Case seq_case() { return {"seq", UM_STRATEGY_AUTO, 0, UM_AOS, 256}; }

// A strategy with its cuda.staging.
using Strategy = std::pair<um_strategy, int>;

// backends x strategies x layouts x block sizes, in that nesting order; skip_unavailable: leave out the
// backends not built (the cuda tests keep their cases and skip themselves without a GPU).
inline std::vector<Case> matrix(std::vector<const char *> backends, std::vector<Strategy> strategies,
                                std::vector<um_layout> layouts, std::vector<int> block_sizes,
                                bool skip_unavailable = false) {
  std::vector<Case> v;
  for (const char *b : backends)
    for (const Strategy &st : strategies)
      for (um_layout l : layouts)
        for (int bs : block_sizes) {
          if (skip_unavailable && !um_backend_available(b)) continue;
          v.push_back({b, st.first, st.second, l, bs});
        }
  return v;
}

// body(ctx) on a fresh context made from o (a fatal failure when it cannot be made), then the context goes.
template <class Body> void with_context(const um_options &o, Body body) {
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  body(ctx);
  um_finalize(&ctx);
}

// Element by element within tol (relative); a NaN is an element never written.
inline void expect_close(const std::vector<double> &x, const std::vector<double> &y, const char *what,
                         double tol = 1e-12) {
  ASSERT_EQ(x.size(), y.size()) << what;
  for (size_t i = 0; i < x.size(); i++) {
    ASSERT_FALSE(std::isnan(x[i])) << what << "[" << i << "] was never written (still NaN)";
    ASSERT_NEAR(x[i], y[i], tol * (1 + std::fabs(y[i]))) << what << "[" << i << "]";
  }
}

inline void expect_close(const std::vector<float> &x, const std::vector<float> &y, const char *what) {
  ASSERT_EQ(x.size(), y.size()) << what;
  for (size_t i = 0; i < x.size(); i++) ASSERT_NEAR(x[i], y[i], 1e-5 * (1 + std::fabs(y[i]))) << what << "[" << i << "]";
}

// got against seq's ref for what every backend workload computes (test_backends.cpp's Result and
// test_cuda_workload.hpp's tcw::Result both have these members): the outputs within rounding (b direct WRITE,
// c direct RW, r and n INC through maps, v indirect RW, vw indirect WRITE, f float INC), the sums within
// rounding, min/max and the integer reductions exactly. Each test then checks the members of its own.
template <class Result> void expect_matches_seq(const Result &got, const Result &ref) {
  expect_close(got.b, ref.b, "direct WRITE b");
  expect_close(got.c, ref.c, "direct RW c");
  expect_close(got.r, ref.r, "INC r");
  expect_close(got.n, ref.n, "INC n (arity 4)");
  expect_close(got.v, ref.v, "indirect RW v");
  expect_close(got.vw, ref.vw, "indirect WRITE vw");
  expect_close(got.f, ref.f, "float INC");
  EXPECT_NEAR(got.sum[0], ref.sum[0], 1e-12 * (1 + std::fabs(ref.sum[0])));
  EXPECT_NEAR(got.sum[1], ref.sum[1], 1e-12 * (1 + std::fabs(ref.sum[1])));
  EXPECT_EQ(got.mn, ref.mn);
  EXPECT_EQ(got.mx, ref.mx);
  EXPECT_EQ(got.isum, ref.isum);
  EXPECT_EQ(got.cnt, ref.cnt);
  EXPECT_EQ(got.qmax, ref.qmax);
  EXPECT_NEAR(got.esum, ref.esum, 1e-12 * (1 + std::fabs(ref.esum)));
}

// run(options, result) on seq and on the case, then compare(got, ref): the "run on X, compare with seq" step.
template <class Result, class Run, class Compare>
void run_and_compare_with_seq(const Case &c, Run run, Compare compare) {
  Result ref, got;
  run(case_options(seq_case()), &ref);
  if (::testing::Test::HasFatalFailure()) return;
  run(case_options(c), &got);
  if (::testing::Test::HasFatalFailure()) return;
  compare(got, ref);
}

}  // namespace bm
#endif
