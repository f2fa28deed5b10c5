// Lazy reductions (um_decl_reduction / um_arg_reduction / um_reduction_get) on every backend here: the handle
// holds the last call's result, equal to an eager global reset before that call; a loop mixing lazy and
// eager globals; the errors (no call yet, wrong size, bad declarations) and the divergence check at the read.
// On CUDA the lazy calls are deferred (the result lands in a mapped buffer; no wait in um_par_loop), also with
// cuda.graphs (recorded, launched at the read's sync): both must give the eager values bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "um/exec.h"
#include "um/um.h"
}
#include "test_cuda_workload.hpp"

namespace {

struct Vals {
  double sum[2] = {0, 0}, mn = INFINITY, mx = -INFINITY;
  int isum = 0;
  bool operator==(const Vals &o) const {
    return sum[0] == o.sum[0] && sum[1] == o.sum[1] && mn == o.mn && mx == o.mx && isum == o.isum;
  }
};

struct LRun {
  um_context *ctx = nullptr;
  um_set *s = nullptr;
  um_dat *a = nullptr, *b = nullptr, *c = nullptr, *k = nullptr, *sd = nullptr;
  LRun(const std::string &backend, double poison = 0) {
    um_options o;
    um_options_default(&o);
    const bool graphs = backend == "cuda+graphs";
    o.backend = graphs ? "cuda" : backend.c_str();
    if (graphs) EXPECT_EQ(um_options_set_backend(&o, "cuda.graphs", "1"), UM_SUCCESS);
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    const int n = 3000;
    std::mt19937 g(5);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> av(3 * n), cv(2 * n);
    std::vector<int> kv(n);
    for (auto &x : av) x = u(g);
    for (auto &x : cv) x = u(g);
    for (auto &x : kv) x = (int)(g() % 7);
    if (poison != 0) av[3 * 1234] = poison;
    EXPECT_EQ(um_decl_set(ctx, n, "nodes", &s), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, s, 3, UM_DOUBLE, av.data(), "a", &a), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, s, 3, UM_DOUBLE, nullptr, "b", &b), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, s, 2, UM_DOUBLE, cv.data(), "c", &c), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, s, 1, UM_INT, kv.data(), "k", &k), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, s, 2, UM_DOUBLE, nullptr, "s", &sd), UM_SUCCESS);
  }
  ~LRun() { um_finalize(&ctx); }
  int loop(um_arg sum, um_arg mn, um_arg mx, um_arg isum) {
    return UM_PAR_LOOP(ctx, tk_direct_kernel, "tk_direct", s, um_arg_dat(a, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                       um_arg_dat(b, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE), um_arg_dat(c, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                       um_arg_dat(k, -1, UM_ID, 1, UM_INT, UM_READ), um_arg_dat(sd, -1, UM_ID, 2, UM_DOUBLE, UM_INC),
                       sum, mn, mx, isum);
  }
  Vals eager() {
    Vals v;
    EXPECT_EQ(loop(um_arg_gbl(v.sum, 2, UM_DOUBLE, UM_INC), um_arg_gbl(&v.mn, 1, UM_DOUBLE, UM_MIN),
                   um_arg_gbl(&v.mx, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&v.isum, 1, UM_INT, UM_INC)),
              UM_SUCCESS)
        << um_error_message(ctx);
    return v;
  }
};

std::vector<std::string> backends() {
  std::vector<std::string> v;
  for (const char *b : {"seq", "openmp", "cuda"})
    if (um_backend_available(b)) v.push_back(b);
  if (um_backend_available("cuda")) v.push_back("cuda+graphs");
  return v;
}

class LazyReduction : public ::testing::TestWithParam<std::string> {};

TEST_P(LazyReduction, HoldsTheLastCallsResultAsAnEagerGlobalWould) {
  LRun eager(GetParam()), lazy(GetParam());
  um_reduction *hs, *hmn, *hmx, *hi;
  ASSERT_EQ(um_decl_reduction(lazy.ctx, 2, UM_DOUBLE, UM_INC, "sum", &hs), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(lazy.ctx, 1, UM_DOUBLE, UM_MIN, "mn", &hmn), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(lazy.ctx, 1, UM_DOUBLE, UM_MAX, "mx", &hmx), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(lazy.ctx, 1, UM_INT, UM_INC, "isum", &hi), UM_SUCCESS);
  Vals e1 = eager.eager(), e2 = eager.eager();
  EXPECT_NE(e1.sum[1], e2.sum[1]) << "c changes between calls, so the two calls' sums differ";
  for (int call = 0; call < 2; call++)
    ASSERT_EQ(lazy.loop(um_arg_reduction(hs), um_arg_reduction(hmn), um_arg_reduction(hmx), um_arg_reduction(hi)),
              UM_SUCCESS)
        << um_error_message(lazy.ctx);
  Vals l;
  ASSERT_EQ(um_reduction_get(lazy.ctx, hs, l.sum, sizeof l.sum), UM_SUCCESS) << um_error_message(lazy.ctx);
  ASSERT_EQ(um_reduction_get(lazy.ctx, hmn, &l.mn, sizeof l.mn), UM_SUCCESS);
  ASSERT_EQ(um_reduction_get(lazy.ctx, hmx, &l.mx, sizeof l.mx), UM_SUCCESS);
  ASSERT_EQ(um_reduction_get(lazy.ctx, hi, &l.isum, sizeof l.isum), UM_SUCCESS);
  EXPECT_TRUE(l == e2) << "lazy " << l.sum[0] << " " << l.sum[1] << " " << l.mn << " " << l.mx << " " << l.isum
                       << ", eager second call " << e2.sum[0] << " " << e2.sum[1] << " " << e2.mn << " " << e2.mx
                       << " " << e2.isum;
  // a third call mixing lazy and eager globals: both delivered, the lazy one as the eager run's third call
  Vals e3 = eager.eager(), m;
  ASSERT_EQ(lazy.loop(um_arg_reduction(hs), um_arg_gbl(&m.mn, 1, UM_DOUBLE, UM_MIN), um_arg_reduction(hmx),
                      um_arg_gbl(&m.isum, 1, UM_INT, UM_INC)),
            UM_SUCCESS)
      << um_error_message(lazy.ctx);
  EXPECT_EQ(m.mn, e3.mn);
  EXPECT_EQ(m.isum, e3.isum);
  ASSERT_EQ(um_reduction_get(lazy.ctx, hs, m.sum, sizeof m.sum), UM_SUCCESS);
  ASSERT_EQ(um_reduction_get(lazy.ctx, hmx, &m.mx, sizeof m.mx), UM_SUCCESS);
  EXPECT_EQ(m.sum[0], e3.sum[0]);
  EXPECT_EQ(m.sum[1], e3.sum[1]);
  EXPECT_EQ(m.mx, e3.mx);
  // the data the loops wrote agree too (the lazy calls ran, in order)
  std::vector<double> ce(2 * 3000), cl(2 * 3000);
  ASSERT_EQ(um_dat_fetch(eager.ctx, eager.c, ce.data(), ce.size() * sizeof(double)), UM_SUCCESS);
  ASSERT_EQ(um_dat_fetch(lazy.ctx, lazy.c, cl.data(), cl.size() * sizeof(double)), UM_SUCCESS);
  EXPECT_EQ(ce, cl);
}

// A result read while later loops are still queued (on CUDA without graphs the read waits for an event after
// its own loop only): the first call's value, not a later one's, though the later calls changed the data.
TEST_P(LazyReduction, AResultReadWhileLaterLoopsAreQueuedIsItsOwnCalls) {
  LRun eager(GetParam()), lazy(GetParam());
  um_reduction *first, *later, *mn, *mx, *isum;
  ASSERT_EQ(um_decl_reduction(lazy.ctx, 2, UM_DOUBLE, UM_INC, "first", &first), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(lazy.ctx, 2, UM_DOUBLE, UM_INC, "later", &later), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(lazy.ctx, 1, UM_DOUBLE, UM_MIN, "mn", &mn), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(lazy.ctx, 1, UM_DOUBLE, UM_MAX, "mx", &mx), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(lazy.ctx, 1, UM_INT, UM_INC, "isum", &isum), UM_SUCCESS);
  std::vector<Vals> e;
  for (int call = 0; call < 6; call++) e.push_back(eager.eager());
  // every reduction of each call lazy: each call is deferred on CUDA
  for (int call = 0; call < 6; call++)
    ASSERT_EQ(lazy.loop(um_arg_reduction(call ? later : first), um_arg_reduction(mn), um_arg_reduction(mx),
                        um_arg_reduction(isum)),
              UM_SUCCESS)
        << um_error_message(lazy.ctx);
  double s1[2], s6[2], m6 = 0;
  ASSERT_EQ(um_reduction_get(lazy.ctx, first, s1, sizeof s1), UM_SUCCESS) << um_error_message(lazy.ctx);
  EXPECT_EQ(s1[0], e[0].sum[0]);
  EXPECT_EQ(s1[1], e[0].sum[1]) << "the first call's sum, not a later call's";
  EXPECT_NE(s1[1], e[5].sum[1]) << "the calls' sums differ, so the check above can fail";
  ASSERT_EQ(um_reduction_get(lazy.ctx, later, s6, sizeof s6), UM_SUCCESS);
  ASSERT_EQ(um_reduction_get(lazy.ctx, mn, &m6, sizeof m6), UM_SUCCESS);
  EXPECT_EQ(s6[1], e[5].sum[1]);
  EXPECT_EQ(m6, e[5].mn);
  ASSERT_EQ(um_reduction_get(lazy.ctx, first, s1, sizeof s1), UM_SUCCESS) << "read again: the same value";
  EXPECT_EQ(s1[1], e[0].sum[1]);
}

TEST_P(LazyReduction, ReadingANonFiniteResultIsDivergence) {
  LRun r(GetParam(), NAN);
  um_reduction *hs, *hmn, *hmx, *hi;
  ASSERT_EQ(um_decl_reduction(r.ctx, 2, UM_DOUBLE, UM_INC, "sum", &hs), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(r.ctx, 1, UM_DOUBLE, UM_MIN, "mn", &hmn), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(r.ctx, 1, UM_DOUBLE, UM_MAX, "mx", &hmx), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(r.ctx, 1, UM_INT, UM_INC, "isum", &hi), UM_SUCCESS);
  ASSERT_EQ(r.loop(um_arg_reduction(hs), um_arg_reduction(hmn), um_arg_reduction(hmx), um_arg_reduction(hi)),
            UM_SUCCESS)
      << "a lazy reduction is checked when read, not at the call";
  double sum[2];
  EXPECT_EQ(um_reduction_get(r.ctx, hs, sum, sizeof sum), UM_ERR_DIVERGED);
  const std::string msg = um_error_message(r.ctx);
  EXPECT_NE(msg.find("tk_direct"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'sum'"), std::string::npos) << msg;
  EXPECT_TRUE(std::isnan(sum[0])) << "the value is delivered all the same";
  int isum = 0;
  EXPECT_EQ(um_reduction_get(r.ctx, hi, &isum, sizeof isum), UM_SUCCESS) << "integers cannot diverge";
}

INSTANTIATE_TEST_SUITE_P(Backends, LazyReduction, ::testing::ValuesIn(backends()), [](const auto &info) {
  std::string n = info.param;
  for (auto &ch : n)
    if (ch == '+') ch = '_';
  return n;
});

TEST(LazyReductionErrors, DeclarationsAndReadsAreChecked) {
  um_context *ctx = nullptr;
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  um_reduction *r = nullptr;
  EXPECT_EQ(um_decl_reduction(ctx, 0, UM_DOUBLE, UM_INC, "z", &r), UM_ERR_ARG);
  EXPECT_EQ(um_decl_reduction(ctx, UM_MAX_SCRATCH_DIM + 1, UM_DOUBLE, UM_INC, "z", &r), UM_ERR_ARG);
  EXPECT_EQ(um_decl_reduction(ctx, 1, UM_DOUBLE, UM_READ, "z", &r), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("UM_INC, UM_MIN or UM_MAX"), std::string::npos)
      << um_error_message(ctx);
  EXPECT_EQ(um_decl_reduction(ctx, 1, UM_DOUBLE, UM_INC, nullptr, &r), UM_ERR_ARG);
  ASSERT_EQ(um_decl_reduction(ctx, 2, UM_DOUBLE, UM_INC, "z", &r), UM_SUCCESS);
  double v[2];
  EXPECT_EQ(um_reduction_get(ctx, r, v, sizeof v), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("no loop has reduced into it yet"), std::string::npos)
      << um_error_message(ctx);
  EXPECT_EQ(um_reduction_get(ctx, r, v, sizeof v[0]), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("2 x double"), std::string::npos) << um_error_message(ctx);
  // a handle of another context, or an argument changed after um_arg_reduction, is refused by the loop
  LRun other("seq");
  um_reduction *sum = nullptr, *mn = nullptr, *mx = nullptr, *is = nullptr;
  ASSERT_EQ(um_decl_reduction(other.ctx, 2, UM_DOUBLE, UM_INC, "sum", &sum), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(other.ctx, 1, UM_DOUBLE, UM_MIN, "mn", &mn), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(other.ctx, 1, UM_DOUBLE, UM_MAX, "mx", &mx), UM_SUCCESS);
  ASSERT_EQ(um_decl_reduction(other.ctx, 1, UM_INT, UM_INC, "is", &is), UM_SUCCESS);
  um_reduction *foreign = nullptr;
  ASSERT_EQ(um_decl_reduction(ctx, 1, UM_DOUBLE, UM_MIN, "foreign", &foreign), UM_SUCCESS);
  EXPECT_EQ(other.loop(um_arg_reduction(sum), um_arg_reduction(foreign), um_arg_reduction(mx), um_arg_reduction(is)),
            UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(other.ctx)).find("belongs to another context"), std::string::npos)
      << um_error_message(other.ctx);
  um_arg changed = um_arg_reduction(mn);
  changed.acc = UM_MAX;
  EXPECT_EQ(other.loop(um_arg_reduction(sum), changed, um_arg_reduction(mx), um_arg_reduction(is)), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(other.ctx)).find("was changed after um_arg_reduction"), std::string::npos)
      << um_error_message(other.ctx);
  EXPECT_EQ(um_reduction_get(other.ctx, foreign, v, sizeof v[0]), UM_ERR_ARG);
  um_finalize(&ctx);
}

}  // namespace
