// NaN and infinity are never hidden: NaN propagates through MIN / MAX / INC reductions on every host
// backend, and a reduction that becomes NaN or infinite stops the run (UM_ERR_DIVERGED) naming the loop
// and the call where it was first seen.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

extern "C" {
#include "um/um.h"
}
#include "test_kernels.h"

#include "test_context.hpp"
#include "test_files.hpp"

namespace {

#define OK(call) ASSERT_EQ((call), UM_SUCCESS) << um_error_message(ctx)

using umtest::has;

using umtest::make_ctx;

}  // namespace

// ---- NaN propagates through MIN / MAX / INC on every backend ---------------------------------------

namespace {
struct NanResult {
  int rc;
  double mn, mx, sum;
  std::string msg;
};

NanResult run_nan(const char *backend, int nthreads, int nan_at) {
  um_context *ctx = make_ctx(backend, nthreads, 256);
  NanResult r{-1, 0, 0, 0, ""};
  const int n = 100000;
  std::vector<double> a(n);
  for (int i = 0; i < n; i++) a[i] = (double)((i * 7919) % n) - 5000.0;
  if (nan_at >= 0) a[nan_at] = NAN;
  um_set *s;
  um_dat *d;
  EXPECT_EQ(um_decl_set(ctx, n, "s", &s), UM_SUCCESS);
  EXPECT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, a.data(), "a", &d), UM_SUCCESS);
  r.mn = 1e300;
  r.mx = -1e300;
  r.sum = 0;
  r.rc = UM_PAR_LOOP(ctx, nan_minmax_kernel, "nan_minmax", s, um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                     um_arg_gbl(&r.mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&r.mx, 1, UM_DOUBLE, UM_MAX),
                     um_arg_gbl(&r.sum, 1, UM_DOUBLE, UM_INC));
  r.msg = um_error_message(ctx);
  um_finalize(&ctx);
  return r;
}
}  // namespace

TEST(NonFinite, NaNPropagatesThroughMinMaxAndIncOnEveryHostBackend) {
  for (const char *b : {"seq", "openmp"}) {
    if (!um_backend_available(b)) continue;
    for (int nan_at : {0, 54321, 99999}) {
      NanResult r = run_nan(b, 4, nan_at);
      EXPECT_TRUE(std::isnan(r.mn)) << b << " NaN at " << nan_at << ": min " << r.mn;
      EXPECT_TRUE(std::isnan(r.mx)) << b << " NaN at " << nan_at << ": max " << r.mx;
      EXPECT_TRUE(std::isnan(r.sum)) << b << " NaN at " << nan_at << ": sum " << r.sum;
      // the engine's divergence check stops the run where it was first seen
      EXPECT_EQ(r.rc, UM_ERR_DIVERGED) << b;
      EXPECT_TRUE(has(r.msg, "loop 'nan_minmax', call 1")) << r.msg;
    }
    NanResult ok = run_nan(b, 4, -1);
    EXPECT_EQ(ok.rc, UM_SUCCESS) << ok.msg;
    EXPECT_EQ(ok.mn, -5000.0);
    EXPECT_EQ(ok.mx, 100000.0 - 5001.0);
  }
}

// ---- divergence is an error that says where --------------------------------------------------------

TEST(NonFinite, AReductionThatBecomesInfiniteStopsTheRun) {
  um_context *ctx = make_ctx("seq");
  um_set *s;
  um_dat *d;
  std::vector<double> a(10, 1e307);
  OK(um_decl_set(ctx, 10, "s", &s));
  OK(um_decl_dat(ctx, s, 1, UM_DOUBLE, a.data(), "a", &d));
  double mn = 0, mx = 0, sum = 0;
  for (int call = 1; call <= 2; call++) {
    if (call == 1) sum = 0;  // the first call ends finite (1e308), the second overflows (2e308)
    int rc = UM_PAR_LOOP(ctx, nan_minmax_kernel, "sum_up", s, um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                         um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX),
                         um_arg_gbl(&sum, 1, UM_DOUBLE, UM_INC));
    if (call == 1) EXPECT_EQ(rc, UM_SUCCESS) << um_error_message(ctx);
    else {
      EXPECT_EQ(rc, UM_ERR_DIVERGED);
      EXPECT_TRUE(has(um_error_message(ctx), "loop 'sum_up', call 2")) << um_error_message(ctx);
      EXPECT_TRUE(std::isinf(sum));
    }
  }
  EXPECT_STREQ(um_error_name(UM_ERR_DIVERGED), "UM_ERR_DIVERGED");
  um_finalize(&ctx);
}
