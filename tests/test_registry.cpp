// The backend registry and the loop pipeline, from the outside: a backend
// defined here (no edit to the engine) is registered through um_options, picked
// by name or by priority, runs loops through um/backend.h, declares its own
// settings and counters, and leaves global reductions to core, which combines
// its partial results into the user's values once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "test_kernels.h"
#include "um/backend.h"
#include "um/um.h"

namespace {

// ---- a backend written against um/backend.h alone ----------------------------------

struct MockState {
  int runs = 0;
  long elements = 0;
  std::string mode;
};

// Runs the range in two halves, the second half first, each half with its own
// exec descriptors and its own reduction partials, handed to core separately.
int mock_run(um_context *ctx, void *state, um_loop *loop) {
  MockState *S = static_cast<MockState *>(state);
  S->runs++;
  const int mid = loop->begin + (loop->end - loop->begin) / 2;
  const int halves[2][2] = {{mid, loop->end}, {loop->begin, mid}};
  for (const auto &h : halves) {
    um_exec x;
    um_exec_init(&x, loop);
    um_exec_gbl_init(&x, loop);
    if (h[1] > h[0]) loop->kernel->range(&x, h[0], h[1]);
    um_exec_reduce(loop, &x);
  }
  S->elements += loop->end - loop->begin;
  um_backend_counter_add(ctx, loop->id, 0, (double)(loop->end - loop->begin));
  um_backend_counter_set(ctx, loop->id, 1, 0.5);
  return UM_SUCCESS;
}

int mock_init(um_context *ctx, void **state) {
  MockState *S = new MockState;
  S->mode = um_backend_option_value(ctx, "mode");
  *state = S;
  return UM_SUCCESS;
}

void mock_finalize(um_context *, void *state) { delete static_cast<MockState *>(state); }

int mock_strategy(um_context *ctx, void *, um_strategy want, um_strategy *out) {
  if (want != UM_STRATEGY_AUTO && want != UM_STRATEGY_COLOURED)
    return um_error_set(ctx, UM_ERR_UNSUPPORTED, "the mock backend runs strategy coloured only, not %s",
                            um_strategy_name(want));
  *out = UM_STRATEGY_COLOURED;
  return UM_SUCCESS;
}

int mock_unavailable(char *why, size_t n) {
  snprintf(why, n, "the mock device is switched off");
  return 0;
}

const um_option mock_options[] = {
    UM_BACKEND_CHOICE("mock", "mode", "halves", "halves|whole", "how the range is cut", "halves", "whole"), {}};
const char *const mock_counters[] = {"elements_run", "constant", nullptr};

um_backend_def make_mock(int priority) {
  um_backend_def d;
  std::memset(&d, 0, sizeof d);
  d.name = "mock";
  d.priority = priority;
  d.description = "a backend defined in a test";
  d.options = mock_options;
  d.counters = mock_counters;
  d.exec.init = mock_init;
  d.exec.finalize = mock_finalize;
  d.exec.strategy = mock_strategy;
  d.exec.run = mock_run;
  return d;
}

// ---- one loop of every access mode, on any backend -----------------------------------

struct Result {
  std::vector<double> b, c;
  double sum[2], mn, mx;
  int isum;
};

constexpr int N = 1001;

int run_direct_ops(um_context *ctx, Result *r) {
  std::vector<double> a(3 * N), c(2 * N);
  std::vector<int> k(N);
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < 3; j++) a[3 * i + j] = std::sin(0.37 * i + j) + 0.01 * j;
    c[2 * i] = std::cos(0.11 * i);
    c[2 * i + 1] = 0.25 * i - 3.0;
    k[i] = i % 7 - 3;
  }
  um_set *s;
  um_dat *da, *db, *dc, *dk;
  int rc = um_decl_set(ctx, N, "elems", &s);
  if (!rc) rc = um_decl_dat(ctx, s, 3, UM_DOUBLE, a.data(), "a", &da);
  if (!rc) rc = um_decl_dat(ctx, s, 3, UM_DOUBLE, nullptr, "b", &db);
  if (!rc) rc = um_decl_dat(ctx, s, 2, UM_DOUBLE, c.data(), "c", &dc);
  if (!rc) rc = um_decl_dat(ctx, s, 1, UM_INT, k.data(), "k", &dk);
  if (rc) return rc;
  // the user's starting values: INC adds to them, MIN/MAX compare with them
  r->sum[0] = 1.5;
  r->sum[1] = -2.0;
  r->mn = 1e300;
  r->mx = -1e300;
  r->isum = 100;
  for (int it = 0; it < 2 && !rc; it++)
    rc = UM_PAR_LOOP(ctx, direct_ops_kernel, "direct_ops", s, um_arg_dat(da, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                     um_arg_dat(db, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE), um_arg_dat(dc, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                     um_arg_dat(dk, -1, UM_ID, 1, UM_INT, UM_READ), um_arg_gbl(r->sum, 2, UM_DOUBLE, UM_INC),
                     um_arg_gbl(&r->mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&r->mx, 1, UM_DOUBLE, UM_MAX),
                     um_arg_gbl(&r->isum, 1, UM_INT, UM_INC));
  if (rc) return rc;
  r->b.resize(3 * N);
  r->c.resize(2 * N);
  rc = um_dat_fetch(ctx, db, r->b.data(), r->b.size() * sizeof(double));
  if (!rc) rc = um_dat_fetch(ctx, dc, r->c.data(), r->c.size() * sizeof(double));
  return rc;
}

Result on(const char *backend, const um_backend_def *extra = nullptr, int row_align = 1,
          um_layout layout = UM_AOS) {
  um_options o;
  um_options_default(&o);
  o.backend = backend;
  o.row_align = row_align;
  o.layout = layout;
  const um_backend_def *list[1] = {extra};
  if (extra) {
    o.extra_backends = list;
    o.nextra_backends = 1;
  }
  um_context *ctx = nullptr;
  Result r;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(run_direct_ops(ctx, &r), UM_SUCCESS) << um_error_message(ctx);
  um_finalize(&ctx);
  return r;
}

TEST(Registry, BackendDefinedInATestRunsLoopsAndCoreCombinesItsReductions) {
  const um_backend_def mock = make_mock(5);
  const Result ref = on("seq");
  const Result got = on("mock", &mock);
  ASSERT_EQ(got.b.size(), ref.b.size());
  for (size_t i = 0; i < ref.b.size(); i++) ASSERT_EQ(got.b[i], ref.b[i]) << "b[" << i << "]";
  for (size_t i = 0; i < ref.c.size(); i++) ASSERT_EQ(got.c[i], ref.c[i]) << "c[" << i << "]";
  // partials summed in another order: equal to rounding; integers exactly
  EXPECT_NEAR(got.sum[0], ref.sum[0], 1e-12 * (1 + std::fabs(ref.sum[0])));
  EXPECT_NEAR(got.sum[1], ref.sum[1], 1e-12 * (1 + std::fabs(ref.sum[1])));
  EXPECT_EQ(got.mn, ref.mn);
  EXPECT_EQ(got.mx, ref.mx);
  EXPECT_EQ(got.isum, ref.isum);
  // the user's starting value was added once per loop, not once per partial
  int ksum = 0;
  for (int i = 0; i < N; i++) ksum += i % 7 - 3;
  EXPECT_EQ(got.isum, 100 + 2 * ksum);
}

TEST(Registry, AutoPicksTheHighestPriorityAvailableBackend) {
  const um_backend_def high = make_mock(1000), low = make_mock(-5);
  um_backend_def off = make_mock(2000);
  off.available = mock_unavailable;
  for (const um_backend_def *d : std::initializer_list<const um_backend_def *>{&high, &low, &off}) {
    um_options o;
    um_options_default(&o);
    const um_backend_def *list[1] = {d};
    o.extra_backends = list;
    o.nextra_backends = 1;
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    if (d == &high) EXPECT_STREQ(um_context_backend(ctx), "mock");
    else EXPECT_STRNE(um_context_backend(ctx), "mock") << "priority " << d->priority;
    um_finalize(&ctx);
  }
  // asked for by name, the unavailable one says why (never a silent switch)
  um_options o;
  um_options_default(&o);
  const um_backend_def *list[1] = {&off};
  o.extra_backends = list;
  o.nextra_backends = 1;
  o.backend = "mock";
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(um_error_message(ctx)).find("switched off"), std::string::npos) << um_error_message(ctx);
  um_finalize(&ctx);
}

TEST(Registry, TheBackendOwnsItsStrategyRuleSettingsAndCounters) {
  const um_backend_def mock = make_mock(5);
  const um_backend_def *list[1] = {&mock};
  um_options o;
  um_options_default(&o);
  o.backend = "mock";
  o.extra_backends = list;
  o.nextra_backends = 1;
  o.strategy = UM_STRATEGY_ATOMICS;
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(um_error_message(ctx)).find("coloured only"), std::string::npos) << um_error_message(ctx);
  um_finalize(&ctx);

  o.strategy = UM_STRATEGY_AUTO;
  ASSERT_EQ(um_options_set_backend(&o, "mock.mode", "sideways"), UM_SUCCESS);
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("use one of halves, whole"), std::string::npos) << um_error_message(ctx);
  um_finalize(&ctx);

  ASSERT_EQ(um_options_set_backend(&o, "mock.mode", "whole"), UM_SUCCESS);
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(static_cast<MockState *>(um_context_backend_state(ctx))->mode, "whole");
  EXPECT_EQ(um_loop_set_strategy(ctx, "direct_ops", UM_STRATEGY_GLOBAL), UM_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(um_error_message(ctx)).find("loop 'direct_ops'"), std::string::npos) << um_error_message(ctx);
  Result r;
  ASSERT_EQ(run_direct_ops(ctx, &r), UM_SUCCESS) << um_error_message(ctx);
  um_loop_stats s;
  ASSERT_EQ(um_loop_stats_get(ctx, 0, &s), UM_SUCCESS);
  EXPECT_EQ(s.calls, 2);
  ASSERT_EQ(s.ncounters, 2);
  double v = 0;
  ASSERT_TRUE(um_loop_stats_counter(&s, "elements_run", &v));
  EXPECT_EQ(v, 2.0 * N);
  ASSERT_TRUE(um_loop_stats_counter(&s, "constant", &v));
  EXPECT_EQ(v, 0.5);
  EXPECT_FALSE(um_loop_stats_counter(&s, "occupancy", &v));
  EXPECT_EQ(static_cast<MockState *>(um_context_backend_state(ctx))->runs, 2);
  um_finalize(&ctx);
}

// UM_<BACKEND>_<KEY> is checked against the setting's declaration as a config value is, and a value the
// options give comes first.
TEST(Registry, EnvironmentSettingsAreCheckedAgainstTheirDeclaration) {
  const um_backend_def mock = make_mock(5);
  const um_backend_def *list[1] = {&mock};
  um_options o;
  um_options_default(&o);
  o.backend = "mock";
  o.extra_backends = list;
  o.nextra_backends = 1;
  um_context *ctx = nullptr;
  setenv("UM_MOCK_MODE", "sideways", 1);
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_ARG);
  const std::string msg = um_error_message(ctx);
  EXPECT_NE(msg.find("UM_MOCK_MODE='sideways'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("use one of halves, whole"), std::string::npos) << msg;
  um_finalize(&ctx);
  setenv("UM_MOCK_MODE", "whole", 1);
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(static_cast<MockState *>(um_context_backend_state(ctx))->mode, "whole");
  um_finalize(&ctx);
  setenv("UM_MOCK_MODE", "sideways", 1); /* the options' own value comes first: the variable is not used */
  ASSERT_EQ(um_options_set_backend(&o, "mock.mode", "halves"), UM_SUCCESS);
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(static_cast<MockState *>(um_context_backend_state(ctx))->mode, "halves");
  um_finalize(&ctx);
  unsetenv("UM_MOCK_MODE");
}

// Dats may allocate more rows than their set has elements (alignment now, halos
// with MPI): backends stride by the allocated rows, so results do not change.
TEST(DataModel, RowsBeyondTheSetSizeChangeNoResult) {
  const um_backend_def mock = make_mock(5);
  for (um_layout l : {UM_AOS, UM_SOA}) {
    const Result ref = on("seq", nullptr, 1, l);
    for (const char *b : {"seq", "openmp", "mock"}) {
      if (std::string(b) == "openmp" && !um_backend_available("openmp")) continue;
      const Result got = on(b, &mock, 64, l);
      for (size_t i = 0; i < ref.b.size(); i++) ASSERT_EQ(got.b[i], ref.b[i]) << b << " b[" << i << "]";
      for (size_t i = 0; i < ref.c.size(); i++) ASSERT_EQ(got.c[i], ref.c[i]) << b << " c[" << i << "]";
      EXPECT_EQ(got.isum, ref.isum) << b;
      EXPECT_EQ(got.mn, ref.mn) << b;
    }
  }
  um_options o;
  um_options_default(&o);
  o.row_align = 64;
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  um_set *s;
  um_dat *d;
  ASSERT_EQ(um_decl_set(ctx, 100, "s", &s), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 2, UM_DOUBLE, nullptr, "d", &d), UM_SUCCESS);
  EXPECT_EQ(um_dat_rows(d), 128);
  int core = -1, eh = -1, nh = -1;
  um_set_ranges(s, &core, &eh, &nh);
  EXPECT_EQ(core, 100) << "one rank: every owned element is core";
  EXPECT_EQ(eh, 0);
  EXPECT_EQ(nh, 0);
  um_finalize(&ctx);
  o.row_align = 0;
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_ARG);
  um_finalize(&ctx);
}

// A dat declared without data holds the zeros it was allocated with until something writes it: a device
// backend then zeroes its first copy instead of uploading this one (um_dat_host_zeros). Moves keep it, writes
// end it: a loop's WRITE/RW/INC argument, um_dat_update.
TEST(DataModel, HostZerosLastUntilTheDatIsWritten) {
  um_options o;
  um_options_default(&o);
  o.layout = UM_SOA;  // declared dats are transposed (a move)
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  std::vector<double> a(3 * N, 1.0), c(2 * N, 2.0), u(2 * N, 0.5);
  std::vector<int> k(N, 1);
  um_set *s;
  um_dat *da, *db, *dc, *dk, *dz, *du;
  ASSERT_EQ(um_decl_set(ctx, N, "elems", &s), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 3, UM_DOUBLE, a.data(), "a", &da), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 3, UM_DOUBLE, nullptr, "b", &db), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 2, UM_DOUBLE, c.data(), "c", &dc), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_INT, k.data(), "k", &dk), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 2, UM_DOUBLE, nullptr, "z", &dz), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 2, UM_DOUBLE, nullptr, "u", &du), UM_SUCCESS);
  EXPECT_FALSE(um_dat_host_zeros(da));
  EXPECT_TRUE(um_dat_host_zeros(db));
  EXPECT_TRUE(um_dat_host_zeros(dz));
  ASSERT_EQ(um_dat_set_layout(ctx, dz, UM_AOS), UM_SUCCESS);
  EXPECT_TRUE(um_dat_host_zeros(dz)) << "a layout change moves rows, writes none";
  double sum[2] = {0, 0}, mn = 1e300, mx = -1e300;
  int isum = 0;
  ASSERT_EQ(UM_PAR_LOOP(ctx, direct_ops_kernel, "direct_ops", s, um_arg_dat(da, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                        um_arg_dat(db, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE), um_arg_dat(dc, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                        um_arg_dat(dk, -1, UM_ID, 1, UM_INT, UM_READ), um_arg_gbl(sum, 2, UM_DOUBLE, UM_INC),
                        um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX),
                        um_arg_gbl(&isum, 1, UM_INT, UM_INC)),
            UM_SUCCESS);
  EXPECT_FALSE(um_dat_host_zeros(db)) << "written by a loop";
  EXPECT_TRUE(um_dat_host_zeros(dz)) << "no loop wrote it";
  EXPECT_TRUE(um_dat_host_zeros(du));
  ASSERT_EQ(um_dat_update(ctx, du, u.data(), u.size() * sizeof(double)), UM_SUCCESS);
  EXPECT_FALSE(um_dat_host_zeros(du)) << "written by um_dat_update";
  um_finalize(&ctx);
}

TEST(Registry, ListsBuiltInBackendsByPriority) {
  ASSERT_GE(um_backend_count(), 3);  // seq and openmp, and cuda built or not
  bool seq = false, cuda = false;
  for (int i = 0; i < um_backend_count(); i++) {
    seq |= std::string(um_backend_at(i)) == "seq";
    cuda |= std::string(um_backend_at(i)) == "cuda";
  }
  EXPECT_TRUE(seq);
  EXPECT_TRUE(cuda) << "a backend not built is still known, so asking for it says how to build it";
  EXPECT_TRUE(um_backend_available(um_backend_auto()));
  EXPECT_EQ(um_backend_option_count("seq"), 0);
}

}  // namespace
