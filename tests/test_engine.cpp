// The engine's C API: declarations, checks on bad input (each a clear error,
// never a crash), layouts, fetch/update, plan cache and loop statistics.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <cmath>
#include <random>

extern "C" {
#include "um/report.h"
#include "um/backend.h"
#include "um/exec.h"
#include "um/kernel.h"
#include "um/um.h"
}
#include "test_context.hpp"
#include "test_kernels.h"

namespace {

struct Ctx {
  um_context *ctx = nullptr;
  explicit Ctx(const char *b = "seq", um_layout l = UM_AOS) {
    um_options o;
    um_options_default(&o);
    o.backend = b;
    o.layout = l;
    o.check_plans = 1;
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  }
  ~Ctx() { um_finalize(&ctx); }
  std::string msg() const { return um_error_message(ctx); }
};

TEST(Engine, InitFinalizeAndAutoBackend) {
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, nullptr), UM_SUCCESS);
  const std::string b = um_context_backend(ctx);
  if (um_backend_available("cuda"))
    EXPECT_EQ(b, "cuda") << "auto picks the GPU when there is one";
  else
    EXPECT_TRUE(b == "openmp" || b == "seq");
  EXPECT_EQ(um_context_on_host(ctx), b == "cuda" ? 0 : 1) << b;  // where the kernels run
  EXPECT_EQ(um_context_on_host(nullptr), 0);
  EXPECT_EQ(um_finalize(&ctx), UM_SUCCESS);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(um_finalize(&ctx), UM_SUCCESS);  // idempotent
}

// um_prefetch on a host backend: the data already lives where the kernels run; nothing to copy, no error.
// run.layout soa (or auto) applies to the dats that can be SoA: a row wider than a loop can gather into registers
// (UM_MAX_SCRATCH_DIM doubles) stays AoS and its loops run; asking for it SoA by name is refused, saying why.
TEST(Engine, ADatTooWideForSoAStaysAoSUnderTheContextsLayout) {
  for (um_layout layout : {UM_SOA, UM_LAYOUT_AUTO}) {
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    o.layout = layout;
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    um_set *s = nullptr;
    um_dat *w = nullptr, *b = nullptr, *n = nullptr;
    std::vector<double> wide(5 * 100);
    for (size_t i = 0; i < wide.size(); i++) wide[i] = (double)(i % 100 == 0 ? 8 * (i / 100 + 1) : -1);
    ASSERT_EQ(um_decl_set(ctx, 5, "s", &s), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, s, 100, UM_DOUBLE, wide.data(), "wide", &w), UM_SUCCESS) << um_error_message(ctx);
    ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, nullptr, "b", &b), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, s, 2, UM_DOUBLE, nullptr, "narrow", &n), UM_SUCCESS);
    EXPECT_EQ(um_dat_storage_layout(w), UM_AOS);
    EXPECT_EQ(um_dat_storage_layout(n), UM_SOA); /* the others as asked */
    ASSERT_EQ(UM_PAR_LOOP(ctx, cbrt_of_kernel, "wide_read", s, um_arg_dat(w, -1, UM_ID, 100, UM_DOUBLE, UM_READ),
                          um_arg_dat(b, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)),
              UM_SUCCESS)
        << um_error_message(ctx);
    std::vector<double> got(5);
    ASSERT_EQ(um_dat_fetch(ctx, b, got.data(), got.size() * sizeof(double)), UM_SUCCESS);
    for (int e = 0; e < 5; e++) EXPECT_NEAR(got[e], std::cbrt(8.0 * (e + 1)), 1e-14);
    EXPECT_EQ(um_dat_set_layout(ctx, w, UM_SOA), UM_ERR_ARG);
    EXPECT_NE(std::string(um_error_message(ctx)).find("too wide for SoA"), std::string::npos) << um_error_message(ctx);
    um_finalize(&ctx);
  }
}

TEST(Engine, PrefetchOnTheHostCopiesNothing) {
  EXPECT_EQ(um_prefetch(nullptr, nullptr), UM_ERR_ARG);
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  um_set *s;
  um_dat *d;
  std::vector<double> v(100, 2.0);
  ASSERT_EQ(um_decl_set(ctx, 100, "s", &s), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, v.data(), "d", &d), UM_SUCCESS);
  double bytes = -1;
  EXPECT_EQ(um_prefetch(ctx, &bytes), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(bytes, 0);
  EXPECT_EQ(um_prefetch(ctx, nullptr), UM_SUCCESS);
  um_finalize(&ctx);
}

// Issue 55: reproducible math (um_cbrt's portable version) is each loop's context's, handed to its kernels by
// um_exec_range: two contexts of different settings running at once on two threads never share it, and host
// code outside a loop keeps the thread's own setting.
TEST(Engine, ReproMathIsEachContextsOwn) {
  const int n = 2000;
  std::vector<double> x(n);
  for (int i = 0; i < n; i++) x[i] = 0.001 + 0.37 * i;
  auto run = [&](int repro, std::vector<double> *out) {
    um_context *ctx = umtest::make_ctx("seq");
    um_set *s;
    um_dat *a, *b;
    EXPECT_EQ(um_context_set_reproducible(ctx, repro), UM_SUCCESS);
    EXPECT_EQ(um_decl_set(ctx, n, "s", &s), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, x.data(), "a", &a), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, nullptr, "b", &b), UM_SUCCESS);
    const um_arg args[2] = {um_arg_dat(a, -1, nullptr, 1, UM_DOUBLE, UM_READ),
                            um_arg_dat(b, -1, nullptr, 1, UM_DOUBLE, UM_WRITE)};
    for (int k = 0; k < 200; k++) EXPECT_EQ(um_par_loop(ctx, &cbrt_of_kernel, "cbrt", s, 2, args), UM_SUCCESS);
    out->assign(n, 0.0);
    EXPECT_EQ(um_dat_fetch(ctx, b, out->data(), n * sizeof(double)), UM_SUCCESS);
    um_finalize(&ctx);
  };
  std::vector<double> soft, libm;
  std::thread other(run, 1, &soft);
  run(0, &libm);
  other.join();
  int diff = 0;
  for (int i = 0; i < n; i++) {
    EXPECT_EQ(soft[i], um_soft_cbrt(x[i])) << i;
    EXPECT_EQ(libm[i], std::cbrt(x[i])) << i;
    diff += soft[i] != libm[i];
  }
  EXPECT_GT(diff, 0) << "the two versions differ somewhere on these values";
  um_kernel_repro_math = 0;
  std::vector<double> again;
  run(1, &again);
  EXPECT_EQ(um_kernel_repro_math, 0) << "the thread's setting is back after the loop";
  EXPECT_EQ(um_cbrt(x[1]), std::cbrt(x[1]));
}

TEST(Engine, UnavailableBackendIsAnErrorNotASwitch) {
  if (um_backend_available("cuda")) GTEST_SKIP() << "a GPU is present: the CUDA backend is available";
  um_options o;
  um_options_default(&o);
  o.backend = "cuda";
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_UNSUPPORTED);
  ASSERT_NE(ctx, nullptr);
  EXPECT_NE(std::string(um_error_message(ctx)).find("openmp"), std::string::npos) << um_error_message(ctx);
  um_finalize(&ctx);
}

TEST(Engine, CpuRejectsGpuStrategies) {
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  o.strategy = UM_STRATEGY_ATOMICS;
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(um_error_message(ctx)).find("cuda"), std::string::npos);
  um_finalize(&ctx);
}

TEST(Engine, BadBlockSize) {
  um_options o;
  um_options_default(&o);
  o.block_size = 0;
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("block size"), std::string::npos);
  um_finalize(&ctx);
}

TEST(Engine, NamesParseAndPrint) {
  // backends are looked up by name in the registry, in any case
  EXPECT_TRUE(um_backend_available("SEQ"));
  char why[512];
  EXPECT_FALSE(um_backend_status("cuad", why, sizeof why));
  EXPECT_NE(std::string(why).find("no backend named 'cuad'"), std::string::npos) << why;
  EXPECT_NE(std::string(why).find("seq"), std::string::npos) << why;
  um_layout l;
  EXPECT_EQ(um_layout_parse("soa", &l), UM_SUCCESS);
  EXPECT_EQ(l, UM_SOA);
  EXPECT_EQ(um_layout_parse("aosoa", &l), UM_ERR_ARG);
  um_strategy s;
  EXPECT_EQ(um_strategy_parse("hierarchical", &s), UM_SUCCESS);
  EXPECT_EQ(um_strategy_parse("fast", &s), UM_ERR_ARG);
  EXPECT_STREQ(um_access_name(UM_INC), "INC");
  EXPECT_EQ(um_type_size(UM_FLOAT), sizeof(float));
  EXPECT_STREQ(um_error_name(UM_ERR_PLAN), "UM_ERR_PLAN");
}

TEST(Engine, MapIndexOutOfRangeIsRejected) {
  Ctx c;
  um_set *a, *b;
  um_map *m;
  ASSERT_EQ(um_decl_set(c.ctx, 3, "a", &a), UM_SUCCESS);
  ASSERT_EQ(um_decl_set(c.ctx, 2, "b", &b), UM_SUCCESS);
  int bad[] = {0, 1, 1, 0, 2, 1};
  EXPECT_EQ(um_decl_map(c.ctx, a, b, 2, bad, "m", &m), UM_ERR_ARG);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(c.msg().find("map 'm'"), std::string::npos) << c.msg();
  EXPECT_NE(c.msg().find("entry 4 (element 2, index 0) is 2"), std::string::npos) << c.msg();
  int neg[] = {0, -1, 1, 0, 1, 1};
  EXPECT_EQ(um_decl_map(c.ctx, a, b, 2, neg, "m", &m), UM_ERR_ARG);
  int good[] = {0, 1, 1, 0, 1, 1};
  EXPECT_EQ(um_decl_map(c.ctx, a, b, 2, good, "m", &m), UM_SUCCESS);
  EXPECT_EQ(um_map_arity(m), 2);
  EXPECT_EQ(um_decl_map(c.ctx, a, b, 2, good, "m", &m), UM_ERR_ARG) << "duplicate name";
  EXPECT_EQ(um_decl_map(c.ctx, a, b, 0, good, "m0", &m), UM_ERR_ARG) << "arity 0";
}

TEST(Engine, DeclarationErrors) {
  Ctx c;
  um_set *s;
  um_dat *d;
  EXPECT_EQ(um_decl_set(c.ctx, -1, "neg", &s), UM_ERR_ARG);
  EXPECT_EQ(um_decl_set(c.ctx, 4, "", &s), UM_ERR_ARG);
  ASSERT_EQ(um_decl_set(c.ctx, 4, "s", &s), UM_SUCCESS);
  um_set *dup = s;
  EXPECT_EQ(um_decl_set(c.ctx, 4, "s", &dup), UM_ERR_ARG);
  EXPECT_EQ(dup, nullptr) << "a failed declaration leaves no object behind";
  EXPECT_EQ(um_decl_dat(c.ctx, s, 0, UM_DOUBLE, nullptr, "d", &d), UM_ERR_ARG);
  EXPECT_EQ(um_decl_dat(c.ctx, nullptr, 1, UM_DOUBLE, nullptr, "d", &d), UM_ERR_ARG);
  EXPECT_EQ(um_decl_dat(c.ctx, s, 1, UM_DOUBLE, nullptr, "d", &d), UM_SUCCESS);
  double zero[4];
  ASSERT_EQ(um_dat_fetch(c.ctx, d, zero, sizeof zero), UM_SUCCESS);
  for (double z : zero) EXPECT_EQ(z, 0.0) << "a dat declared without data starts at zero";
  EXPECT_EQ(um_dat_fetch(c.ctx, d, zero, 3 * sizeof(double)), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("24 bytes"), std::string::npos) << c.msg();
  EXPECT_EQ(um_find_dat(c.ctx, "d"), d);
  EXPECT_EQ(um_find_set(c.ctx, "nope"), nullptr);
  double k = 2.0;
  EXPECT_EQ(um_decl_const(c.ctx, "k", 1, UM_DOUBLE, &k), UM_SUCCESS);
  EXPECT_EQ(um_decl_const(c.ctx, "k", 2, UM_DOUBLE, &k), UM_ERR_ARG) << "redeclared with another shape";
}

struct Loop : ::testing::Test {
  Ctx c;
  um_set *nodes = nullptr, *edges = nullptr, *other = nullptr;
  um_map *pedge = nullptr, *pother = nullptr;
  um_dat *u = nullptr, *w = nullptr, *r = nullptr, *f = nullptr, *onother = nullptr;
  void SetUp() override {
    int e[] = {0, 1, 1, 2, 2, 0};
    int o[] = {0, 0, 0};
    ASSERT_EQ(um_decl_set(c.ctx, 3, "nodes", &nodes), UM_SUCCESS);
    ASSERT_EQ(um_decl_set(c.ctx, 3, "edges", &edges), UM_SUCCESS);
    ASSERT_EQ(um_decl_set(c.ctx, 1, "other", &other), UM_SUCCESS);
    ASSERT_EQ(um_decl_map(c.ctx, edges, nodes, 2, e, "pedge", &pedge), UM_SUCCESS);
    ASSERT_EQ(um_decl_map(c.ctx, edges, other, 1, o, "pother", &pother), UM_SUCCESS);
    double uu[] = {1, 2, 3, 4, 5, 6}, ww[] = {1, 1, 1};
    ASSERT_EQ(um_decl_dat(c.ctx, nodes, 2, UM_DOUBLE, uu, "u", &u), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(c.ctx, edges, 1, UM_DOUBLE, ww, "w", &w), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(c.ctx, nodes, 2, UM_DOUBLE, nullptr, "r", &r), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(c.ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(c.ctx, other, 2, UM_DOUBLE, nullptr, "onother", &onother), UM_SUCCESS);
  }
  int run(um_arg a0, um_arg a1, um_arg a2, um_arg a3, um_arg a4, um_arg a5) {
    double s = 0;
    int cnt = 0;
    return UM_PAR_LOOP(c.ctx, edge_inc_kernel, "edge_inc", edges, a0, a1, a2, a3, a4, a5,
                       um_arg_gbl(&s, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&cnt, 1, UM_INT, UM_INC));
  }
  um_arg W() { return um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ); }
  um_arg U(int i) { return um_arg_dat(u, i, pedge, 2, UM_DOUBLE, UM_READ); }
  um_arg R(int i) { return um_arg_dat(r, i, pedge, 2, UM_DOUBLE, UM_INC); }
  um_arg F() { return um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC); }
};

TEST_F(Loop, CorrectLoopRunsAndCountsStats) {
  ASSERT_EQ(run(W(), U(0), U(1), R(0), R(1), F()), UM_SUCCESS) << c.msg();
  ASSERT_EQ(run(W(), U(0), U(1), R(0), R(1), F()), UM_SUCCESS) << c.msg();
  float fv[3];
  ASSERT_EQ(um_dat_fetch(c.ctx, f, fv, sizeof fv), UM_SUCCESS);
  EXPECT_EQ(fv[0], 2.0f);  // node 0 is the first end of edge 0 only, two calls
  ASSERT_EQ(um_loop_stats_count(c.ctx), 1);
  um_loop_stats st;
  ASSERT_EQ(um_loop_stats_get(c.ctx, 0, &st), UM_SUCCESS);
  EXPECT_STREQ(st.name, "edge_inc");
  EXPECT_EQ(st.calls, 2);
  EXPECT_EQ(st.set_size, 3);
  EXPECT_TRUE(st.indirect);
  // useful bytes: w 3*8, u 3*2*8 once, r 2*(3*2*8) (INC), f 2*(3*4), map 3*2*4
  EXPECT_DOUBLE_EQ(st.bytes, 24 + 48 + 96 + 24 + 24);
}

// Edges -> nodes (arity 2, conn) with edge_inc_kernel's dats: u and r (dim 2) and f (float) on the nodes, w on the
// edges; loop() runs edge_inc reading u through column ucol, incrementing r through r0 and r1, f through 0.
struct EdgeMesh {
  um_context *ctx;
  um_set *e = nullptr, *n = nullptr;
  um_map *m = nullptr;
  um_dat *u = nullptr, *r = nullptr, *w = nullptr, *f = nullptr;
  double s = 0;
  int cnt = 0;
  EdgeMesh(um_context *c, int ne, int nn, const int *conn) : ctx(c) {
    EXPECT_EQ(um_decl_set(ctx, ne, "edges", &e), UM_SUCCESS);
    EXPECT_EQ(um_decl_set(ctx, nn, "nodes", &n), UM_SUCCESS);
    EXPECT_EQ(um_decl_map(ctx, e, n, 2, conn, "m", &m), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, n, 2, UM_DOUBLE, nullptr, "u", &u), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, n, 2, UM_DOUBLE, nullptr, "r", &r), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, e, 1, UM_DOUBLE, nullptr, "w", &w), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, n, 1, UM_FLOAT, nullptr, "f", &f), UM_SUCCESS);
  }
  int loop(const char *name, int ucol = 0, int ucol2 = 1, int r0 = 0, int r1 = 1) {
    return UM_PAR_LOOP(ctx, edge_inc_kernel, name, e, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                       um_arg_dat(u, ucol, m, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, ucol2, m, 2, UM_DOUBLE, UM_READ),
                       um_arg_dat(r, r0, m, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, r1, m, 2, UM_DOUBLE, UM_INC),
                       um_arg_dat(f, 0, m, 1, UM_FLOAT, UM_INC), um_arg_gbl(&s, 1, UM_DOUBLE, UM_INC),
                       um_arg_gbl(&cnt, 1, UM_INT, UM_INC));
  }
};

// Useful bytes count the distinct rows a loop reaches through each map column it uses (a map's count is
// kept per set of columns, so loops sharing a map share it): rows no column names are not counted.
TEST(Engine, UsefulBytesCountDistinctTargetsPerColumnSet) {
  Ctx c;
  const int conn[] = {0, 1, 1, 2, 2, 3, 0, 3};  // column 0 reaches {0,1,2}, column 1 {1,2,3}, both {0..3}
  EdgeMesh g(c.ctx, 4, 10, conn);
  auto loop = [&](const char *name, int ucol, int r0, int r1) { return g.loop(name, ucol, ucol, r0, r1); };
  ASSERT_EQ(loop("both", 0, 0, 1), UM_SUCCESS) << c.msg();
  ASSERT_EQ(loop("second", 1, 1, 1), UM_SUCCESS) << c.msg();
  ASSERT_EQ(loop("first", 0, 0, 0), UM_SUCCESS) << c.msg();
  um_loop_stats st;
  ASSERT_EQ(um_loop_stats_get(c.ctx, 0, &st), UM_SUCCESS);
  // w 4*8; u through column 0: 3 rows * 16; r through both: 2 * 4 rows * 16; f column 0: 2 * 3 * 4; map 4*2*4
  EXPECT_DOUBLE_EQ(st.bytes, 32 + 48 + 128 + 24 + 32) << st.name;
  ASSERT_EQ(um_loop_stats_get(c.ctx, 1, &st), UM_SUCCESS);
  EXPECT_DOUBLE_EQ(st.bytes, 32 + 48 + 96 + 24 + 32) << st.name;  // u and r through column 1: 3 rows each
  ASSERT_EQ(um_loop_stats_get(c.ctx, 2, &st), UM_SUCCESS);
  EXPECT_DOUBLE_EQ(st.bytes, 32 + 48 + 96 + 24 + 32) << st.name;  // column 0 only: 3 rows each
}

// A dat read through two maps counts the distinct rows of both together (one bitmap, each map read once, and not
// read on once every row is counted).
TEST(Engine, UsefulBytesCountDistinctTargetsOverSeveralMaps) {
  const int conn[] = {0, 1, 1, 2, 2, 3, 0, 3};
  struct Case {
    int nodes;
    int conn2[8];
    int ucol2;
    double u_rows;
  } cases[] = {{10, {5, 6, 6, 7, 7, 8, 8, 9}, 1, 7},  // u: column 0 of m {0,1,2} and column 1 of m2 {6,7,8,9}
               {4, {3, 3, 2, 2, 1, 1, 0, 0}, 0, 4}};  // column 0 of m2 reaches every node first
  for (const Case &k : cases) {
    Ctx c;
    EdgeMesh g(c.ctx, 4, k.nodes, conn);
    um_map *m2 = nullptr;
    ASSERT_EQ(um_decl_map(c.ctx, g.e, g.n, 2, k.conn2, "m2", &m2), UM_SUCCESS) << c.msg();
    ASSERT_EQ(UM_PAR_LOOP(c.ctx, edge_inc_kernel, "two_maps", g.e, um_arg_dat(g.w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(g.u, k.ucol2, m2, 2, UM_DOUBLE, UM_READ),
                          um_arg_dat(g.u, 0, g.m, 2, UM_DOUBLE, UM_READ), um_arg_dat(g.r, 0, g.m, 2, UM_DOUBLE, UM_INC),
                          um_arg_dat(g.r, 1, g.m, 2, UM_DOUBLE, UM_INC), um_arg_dat(g.f, 0, g.m, 1, UM_FLOAT, UM_INC),
                          um_arg_gbl(&g.s, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&g.cnt, 1, UM_INT, UM_INC)),
              UM_SUCCESS)
        << c.msg();
    um_loop_stats st;
    ASSERT_EQ(um_loop_stats_get(c.ctx, 0, &st), UM_SUCCESS);
    // w 4*8; u its rows * 16; r through both columns of m: 2 * 4 rows * 16; f column 0: 2 * 3 * 4; maps 2 * 4*2*4
    EXPECT_DOUBLE_EQ(st.bytes, 32 + k.u_rows * 16 + 128 + 24 + 64) << k.nodes << " nodes";
  }
}

TEST_F(Loop, PlanIsBuiltOncePerLoopSignature) {
  um_context *ctx = c.ctx;
  um_options o;
  um_options_default(&o);
  um_finalize(&c.ctx);
  o.backend = um_backend_available("openmp") ? "openmp" : "seq";
  ASSERT_EQ(um_init(&c.ctx, &o), UM_SUCCESS);
  (void)ctx;
  SetUp();
  for (int i = 0; i < 3; i++) ASSERT_EQ(run(W(), U(0), U(1), R(0), R(1), F()), UM_SUCCESS) << c.msg();
  if (std::string(o.backend) == "openmp") {
    EXPECT_EQ(um_plan_cache_size(c.ctx), 1);
    ASSERT_EQ(run(W(), U(1), U(0), R(1), R(0), F()), UM_SUCCESS);  // another signature
    EXPECT_EQ(um_plan_cache_size(c.ctx), 2);
    um_loop_stats st;
    ASSERT_EQ(um_loop_stats_get(c.ctx, 0, &st), UM_SUCCESS);
    EXPECT_EQ(st.nplans, 2);
    EXPECT_TRUE(st.has_plan);
    EXPECT_EQ(st.nblocks, 1);
  }
}

// um/kernel.h's portable cube root and exponential: within 3 and 1 ulp of the C library's over the range of
// doubles, exact where they must be; um_cbrt / um_exp are the library's unless reproducible mode is on.
double ulps(double a, double b) {
  if (a == b) return 0;
  return std::fabs(a - b) / (std::nextafter(std::fabs(b), INFINITY) - std::fabs(b));
}
TEST(KernelMath, PortableCbrtAndExpAreCloseToTheLibrary) {
  std::mt19937 g(5);
  std::uniform_real_distribution<double> U(0.5, 1.0), X(-745.0, 709.0);
  double worst_c = 0, worst_e = 0;
  for (int i = 0; i < 200000; i++) {
    const double x = std::ldexp(U(g), (int)(g() % 2000) - 1000) * (g() % 2 ? 1 : -1), y = X(g);
    worst_c = std::max(worst_c, ulps(um_soft_cbrt(x), std::cbrt(x)));
    worst_e = std::max(worst_e, ulps(um_soft_exp(y), std::exp(y)));
  }
  EXPECT_LE(worst_c, 3.0);
  EXPECT_LE(worst_e, 1.0);
  EXPECT_EQ(um_soft_cbrt(27.0), 3.0);
  EXPECT_EQ(um_soft_cbrt(-8.0), -2.0);
  EXPECT_EQ(um_soft_exp(0.0), 1.0);
  EXPECT_TRUE(std::signbit(um_soft_cbrt(-0.0)));
  EXPECT_TRUE(std::isinf(um_soft_cbrt(INFINITY)) && std::isinf(um_soft_exp(710.0)));
  EXPECT_EQ(um_soft_exp(-746.0), 0.0);
  EXPECT_TRUE(std::isnan(um_soft_exp(NAN)) && std::isnan(um_soft_cbrt(NAN)));
  // read through volatile: the compiler may not fold one side's call at compile time (correctly rounded) and
  // leave the other to the library (within an ulp), which happens at -O0
  volatile double xv = 0.7316;
  volatile float fv = -1.5f;
  const double x = xv;
  const float f = fv;
  um_kernel_repro_math = 0;
  EXPECT_EQ(um_cbrt(x), std::cbrt(x));
  um_kernel_repro_math = 1;
  EXPECT_EQ(um_cbrt(x), um_soft_cbrt(x));
  EXPECT_EQ(um_exp(x), um_soft_exp(x));
  EXPECT_EQ(um_expf(f), (float)um_soft_exp(-1.5));
  um_kernel_repro_math = 0;
  EXPECT_EQ(um_expf(f), expf(f));
}

// Writes through one-to-one map columns never meet: such a loop runs without a plan (no colours, no
// atomics) and gives the answers of the sequential backend; one shared target, or one dat written
// through two columns, makes it an ordinary conflicting loop again.
TEST(OneToOne, WritesThroughOneToOneColumnsNeedNoPlan) {
  const char *backends[] = {"seq", "openmp"};
  std::vector<double> want_r, want_r2;
  for (const char *b : backends) {
    if (!um_backend_available(b)) continue;
    Ctx c(b);
    um_set *nodes, *edges;
    um_map *pedge, *pshared;
    um_dat *u, *w, *r, *r2, *f, *g;
    int e[] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 3}; // columns 0 {0,1,2,3,4} and 1 {1,2,0,4,3}: each one to one
    int sh[] = {0, 1, 2, 3, 0};               // target 0 twice
    ASSERT_EQ(um_decl_set(c.ctx, 5, "nodes", &nodes), UM_SUCCESS);
    ASSERT_EQ(um_decl_set(c.ctx, 5, "edges", &edges), UM_SUCCESS);
    ASSERT_EQ(um_decl_map(c.ctx, edges, nodes, 2, e, "pedge", &pedge), UM_SUCCESS);
    ASSERT_EQ(um_decl_map(c.ctx, edges, nodes, 1, sh, "pshared", &pshared), UM_SUCCESS);
    double uu[10], ww[5] = {1, 2, 3, 4, 5};
    for (int i = 0; i < 10; i++) uu[i] = 0.5 * i + 1;
    ASSERT_EQ(um_decl_dat(c.ctx, nodes, 2, UM_DOUBLE, uu, "u", &u), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(c.ctx, edges, 1, UM_DOUBLE, ww, "w", &w), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(c.ctx, nodes, 2, UM_DOUBLE, nullptr, "r", &r), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(c.ctx, nodes, 2, UM_DOUBLE, nullptr, "r2", &r2), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(c.ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(c.ctx, nodes, 1, UM_FLOAT, nullptr, "g", &g), UM_SUCCESS);
    double s = 0;
    int cnt = 0;
    auto loop = [&](const char *name, um_arg r0, um_arg r1, um_arg ff) {
      return UM_PAR_LOOP(c.ctx, edge_inc_kernel, name, edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                         um_arg_dat(u, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, pedge, 2, UM_DOUBLE, UM_READ),
                         r0, r1, ff, um_arg_gbl(&s, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&cnt, 1, UM_INT, UM_INC));
    };
    // r through column 0, r2 through column 1, f through column 0: no two edges write one row
    for (int k = 0; k < 2; k++)
      ASSERT_EQ(loop("one", um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r2, 1, pedge, 2, UM_DOUBLE, UM_INC),
                     um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC)),
                UM_SUCCESS)
          << c.msg();
    EXPECT_EQ(um_plan_cache_size(c.ctx), 0) << b;
    // r through both columns (rows meet), and g through a column with a shared target: ordinary loops
    ASSERT_EQ(loop("two", um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                   um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC)),
              UM_SUCCESS)
        << c.msg();
    ASSERT_EQ(loop("shared", um_arg_dat(r2, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r2, 0, pedge, 2, UM_DOUBLE, UM_INC),
                   um_arg_dat(g, 0, pshared, 1, UM_FLOAT, UM_INC)),
              UM_SUCCESS)
        << c.msg();
    if (std::string(b) == "openmp") EXPECT_EQ(um_plan_cache_size(c.ctx), 2) << "the two conflicting loops are coloured";
    int flags[3] = {-1, -1, -1};
    for (int i = 0; i < um_loop_stats_count(c.ctx); i++) {
      um_loop_stats st;
      ASSERT_EQ(um_loop_stats_get(c.ctx, i, &st), UM_SUCCESS);
      const std::string n = st.name;
      flags[n == "one" ? 0 : n == "two" ? 1 : 2] = st.one_to_one;
    }
    EXPECT_EQ(flags[0], 1);
    EXPECT_EQ(flags[1], 0);
    EXPECT_EQ(flags[2], 0);
    std::vector<double> rv(10), r2v(10);
    ASSERT_EQ(um_dat_fetch(c.ctx, r, rv.data(), rv.size() * sizeof(double)), UM_SUCCESS);
    ASSERT_EQ(um_dat_fetch(c.ctx, r2, r2v.data(), r2v.size() * sizeof(double)), UM_SUCCESS);
    if (want_r.empty()) {
      want_r = rv, want_r2 = r2v;
      double any = 0;
      for (double v : rv) any += v != 0;
      EXPECT_GT(any, 0) << "the loops added something";
    } else {
      EXPECT_EQ(rv, want_r) << b << " against seq";
      EXPECT_EQ(r2v, want_r2) << b << " against seq";
    }
  }
}

// CPU backends know no GPU occupancy: the stats say 0, the plan table has no
// occupancy column and the JSON no occupancy key (their output stays as it was).
TEST_F(Loop, CpuReportsHaveNoOccupancy) {
  um_options o;
  um_options_default(&o);
  um_finalize(&c.ctx);
  o.backend = um_backend_available("openmp") ? "openmp" : "seq";
  o.strategy = UM_STRATEGY_COLOURED;
  ASSERT_EQ(um_init(&c.ctx, &o), UM_SUCCESS);
  SetUp();
  ASSERT_EQ(run(W(), U(0), U(1), R(0), R(1), F()), UM_SUCCESS) << c.msg();
  um_loop_stats st;
  ASSERT_EQ(um_loop_stats_get(c.ctx, 0, &st), UM_SUCCESS);
  EXPECT_EQ(st.ncounters, 0) << "CPU backends keep no counters";
  EXPECT_FALSE(um_loop_stats_counter(&st, "occupancy", nullptr));
  char *buf = nullptr;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  ASSERT_NE(f, nullptr);
  um_report_plans(c.ctx, f);
  um_report_counters(c.ctx, f);
  um_report_loops_json(c.ctx, f);
  fclose(f);
  std::string out(buf, n);
  free(buf);
  EXPECT_EQ(out.find("occupancy"), std::string::npos) << out;
  EXPECT_NE(out.find("\"name\": \"edge_inc\""), std::string::npos) << out;
}

TEST_F(Loop, ArgDimMismatch) {
  EXPECT_EQ(run(W(), um_arg_dat(u, 0, pedge, 3, UM_DOUBLE, UM_READ), U(1), R(0), R(1), F()), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("arg 1: declared dim 3 but dat 'u' has dim 2"), std::string::npos) << c.msg();
}

TEST_F(Loop, ArgTypeMismatch) {
  EXPECT_EQ(run(W(), U(0), U(1), R(0), R(1), um_arg_dat(f, 0, pedge, 1, UM_DOUBLE, UM_INC)), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("declared type double but dat 'f' holds float"), std::string::npos) << c.msg();
}

TEST_F(Loop, DirectDatOnWrongSet) {
  EXPECT_EQ(run(um_arg_dat(r, -1, UM_ID, 1, UM_DOUBLE, UM_READ), U(0), U(1), R(0), R(1), F()), UM_ERR_ARG);
  um_dat *wn;
  ASSERT_EQ(um_decl_dat(c.ctx, nodes, 1, UM_DOUBLE, nullptr, "wn", &wn), UM_SUCCESS);
  EXPECT_EQ(run(um_arg_dat(wn, -1, UM_ID, 1, UM_DOUBLE, UM_READ), U(0), U(1), R(0), R(1), F()), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("lives on set 'nodes' but the loop runs over 'edges'"), std::string::npos) << c.msg();
}

TEST_F(Loop, MapToWrongSet) {
  EXPECT_EQ(run(W(), um_arg_dat(u, 0, pother, 2, UM_DOUBLE, UM_READ), U(1), R(0), R(1), F()), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("map 'pother' leads to set 'other', but dat 'u' lives on 'nodes'"), std::string::npos)
      << c.msg();
}

TEST_F(Loop, MapIndexOutOfArity) {
  EXPECT_EQ(run(W(), U(0), U(2), R(0), R(1), F()), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("index 2 outside map 'pedge' of arity 2"), std::string::npos) << c.msg();
}

TEST_F(Loop, WrongArgCountAndAccess) {
  double s = 0;
  EXPECT_EQ(UM_PAR_LOOP(c.ctx, edge_inc_kernel, "edge_inc", edges, W(), U(0)), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("takes 8 arguments but the loop passes 2"), std::string::npos) << c.msg();
  EXPECT_EQ(run(W(), U(0), U(1), R(0), R(1), um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_MIN)), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("only for global args"), std::string::npos) << c.msg();
  EXPECT_EQ(run(W(), U(0), U(1), R(0), R(1), um_arg_gbl(&s, 1, UM_DOUBLE, UM_WRITE)), UM_ERR_ARG);
  // an access mode outside the enum: refused (a global's result was dropped silently, exit 0)
  EXPECT_EQ(run(W(), U(0), U(1), R(0), R(1), um_arg_gbl(&s, 1, UM_DOUBLE, (um_access)42)), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("global arg of unknown access mode 42"), std::string::npos) << c.msg();
  EXPECT_EQ(run(W(), U(0), U(1), R(0), R(1), um_arg_dat(f, 0, pedge, 1, UM_FLOAT, (um_access)-1)), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("unknown access mode -1"), std::string::npos) << c.msg();
  EXPECT_EQ(run(W(), U(0), U(1), R(0), R(1), um_arg_gbl(nullptr, 1, UM_DOUBLE, UM_INC)), UM_ERR_ARG);
  EXPECT_EQ(run(W(), um_arg_dat(nullptr, 0, pedge, 2, UM_DOUBLE, UM_READ), U(1), R(0), R(1), F()), UM_ERR_ARG);
  EXPECT_EQ(um_par_loop(c.ctx, nullptr, "x", edges, 0, nullptr), UM_ERR_ARG);
  EXPECT_EQ(um_par_loop(c.ctx, &edge_inc_kernel, "x", nullptr, 0, nullptr), UM_ERR_ARG);
}

// One dat incremented through one argument and read or written through another, one of them through a map: an
// element could see rows other elements are adding to, so the loop is refused; increments alone are not.
TEST_F(Loop, ADatIncrementedAndReadThroughMapsIsRefused) {
  EXPECT_EQ(run(W(), um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_READ), U(1), R(0), R(1), F()), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("dat 'r' is incremented by arg 3 (through a map) and read by arg 1 (through a map)"),
            std::string::npos) << c.msg();
  EXPECT_EQ(run(W(), U(0), U(1), R(0), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_WRITE), F()), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("dat 'r' is incremented by arg 3 (through a map) and written by arg 4"), std::string::npos)
      << c.msg();
  ASSERT_EQ(run(W(), U(0), U(1), R(0), R(1), F()), UM_SUCCESS) << c.msg(); // increments of one dat: sums commute
}

// Names of 1 .. UM_MAX_NAME printable bytes: a longer one (split temporaries and checkpoint datasets are named
// after them) or one with a control character is refused where it is declared or first used.
TEST_F(Loop, NamesAreBoundedAndPrintable) {
  const std::string longest(UM_MAX_NAME, 'L'), over(UM_MAX_NAME + 1, 'L');
  double g = 0;
  int cnt = 0;
  EXPECT_EQ(UM_PAR_LOOP(c.ctx, edge_inc_kernel, longest.c_str(), edges, W(), U(0), U(1), R(0), R(1), F(),
                        um_arg_gbl(&g, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&cnt, 1, UM_INT, UM_INC)),
            UM_SUCCESS)
      << c.msg();
  EXPECT_EQ(UM_PAR_LOOP(c.ctx, edge_inc_kernel, over.c_str(), edges, W(), U(0), U(1), R(0), R(1), F(),
                        um_arg_gbl(&g, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&cnt, 1, UM_INT, UM_INC)),
            UM_ERR_ARG);
  EXPECT_NE(c.msg().find("a name of 129 bytes; names are at most 128"), std::string::npos) << c.msg();
  EXPECT_EQ(um_loop_set_block_size(c.ctx, over.c_str(), 64), UM_ERR_ARG);
  um_set *s = nullptr;
  EXPECT_EQ(um_decl_set(c.ctx, 4, "two\nlines", &s), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("set 'two...': its name has a control character (byte 3, code 10)"), std::string::npos)
      << c.msg();
  um_reduction *r = nullptr;
  EXPECT_EQ(um_decl_reduction(c.ctx, 1, UM_DOUBLE, UM_INC, over.c_str(), &r), UM_ERR_ARG);
  // a kernel with source is called by its name in compiled code: a C identifier
  const um_kernel odd = {"not an identifier", 1, nullptr, "void x(double *y) {}\n", "x.h", nullptr};
  const um_kernel *k = nullptr;
  EXPECT_EQ(um_decl_kernel(c.ctx, &odd, &k), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("must be a C identifier"), std::string::npos) << c.msg();
}

// A reduction handle passed twice to one loop, a dat handed to another context, an unknown strategy: refused.
TEST_F(Loop, OneLoopOneReductionArgAndOwnDats) {
  um_reduction *sum = nullptr;
  ASSERT_EQ(um_decl_reduction(c.ctx, 1, UM_DOUBLE, UM_INC, "sum", &sum), UM_SUCCESS);
  int cnt = 0;
  EXPECT_EQ(UM_PAR_LOOP(c.ctx, edge_inc_kernel, "edge_inc", edges, W(), U(0), U(1), R(0), R(1), F(),
                        um_arg_reduction(sum), um_arg_gbl(&cnt, 1, UM_INT, UM_INC)),
            UM_SUCCESS)
      << c.msg();
  const um_kernel two = {"two", 2, edge_inc_kernel.range, nullptr, nullptr, nullptr};
  EXPECT_EQ(UM_PAR_LOOP(c.ctx, two, "two", edges, um_arg_reduction(sum), um_arg_reduction(sum)), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("reduction 'sum' is passed as arg 0 and arg 1"), std::string::npos) << c.msg();
  um_reduction *again = nullptr;
  EXPECT_EQ(um_decl_reduction(c.ctx, 1, UM_DOUBLE, UM_INC, "sum", &again), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("reduction 'sum' is declared already"), std::string::npos) << c.msg();
  Ctx other("seq");
  std::vector<double> buf(2 * 64);
  EXPECT_EQ(um_dat_fetch(other.ctx, u, buf.data(), 0), UM_ERR_ARG);
  EXPECT_NE(other.msg().find("dat 'u' belongs to another context"), std::string::npos) << other.msg();
  EXPECT_EQ(um_loop_set_strategy(c.ctx, "edge_inc", (um_strategy)99), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("unknown strategy 99"), std::string::npos) << c.msg();
  EXPECT_EQ(um_loop_set_block_size(c.ctx, "edge_inc", UM_MAX_BLOCK_SIZE + 1), UM_ERR_ARG);
  EXPECT_EQ(um_loop_set_block_size(c.ctx, "edge_inc", UM_MAX_BLOCK_SIZE), UM_SUCCESS) << c.msg();
  EXPECT_EQ(run(W(), U(0), U(1), R(0), R(1), F()), UM_SUCCESS) << c.msg();
}

// The accessors take NULL (a lookup that found nothing, passed on): no crash.
TEST(Engine, AccessorsTakeNull) {
  EXPECT_EQ(um_set_size(nullptr), 0);
  EXPECT_STREQ(um_set_name(nullptr), "");
  EXPECT_STREQ(um_dat_name(nullptr), "");
  EXPECT_STREQ(um_map_name(nullptr), "");
  EXPECT_EQ(um_dat_dim(nullptr), 0);
  EXPECT_EQ(um_map_arity(nullptr), 0);
  EXPECT_EQ(um_dat_set(nullptr), nullptr);
  EXPECT_EQ(um_set_count(nullptr), 0);
  EXPECT_EQ(um_dat_at(nullptr, 0), nullptr);
}

// A context whose um_init failed is returned for its message: anything declared or run in it is refused with
// that message (a loop reached the backend it does not have and crashed).
TEST(Engine, AContextWhoseInitFailedRefusesWork) {
  for (int why = 0; why < 2; why++) {
    um_options o;
    um_options_default(&o);
    if (why) o.backend = "nosuch";
    else o.block_size = UM_MAX_BLOCK_SIZE + 1;
    um_context *ctx = nullptr;
    ASSERT_NE(um_init(&ctx, &o), UM_SUCCESS);
    ASSERT_NE(ctx, nullptr);
    const std::string first = um_error_message(ctx);
    um_set *s = nullptr;
    EXPECT_EQ(um_decl_set(ctx, 3, "s", &s), UM_ERR_ARG);
    const std::string msg = um_error_message(ctx);
    EXPECT_NE(msg.find("this context's um_init failed (" + first.substr(0, first.find('\n')) + ")"), std::string::npos)
        << msg;
    EXPECT_EQ(um_loop_set_strategy(ctx, "x", UM_STRATEGY_COLOURED), UM_ERR_ARG);
    const um_kernel k = {"k", 1, edge_inc_kernel.range, nullptr, nullptr, nullptr};
    double g = 0;
    EXPECT_EQ(UM_PAR_LOOP(ctx, k, "k", s, um_arg_gbl(&g, 1, UM_DOUBLE, UM_INC)), UM_ERR_ARG);
    EXPECT_EQ(um_finalize(&ctx), UM_SUCCESS);
  }
}

TEST(Engine, ZeroSizeSetsRunNothing) {
  for (const char *b : {"seq", "openmp"}) {
    if (!um_backend_available(b)) continue;
    Ctx c(b);
    EdgeMesh g(c.ctx, 0, 0, nullptr);
    g.s = 5;
    g.cnt = 7;
    ASSERT_EQ(g.loop("edge_inc"), UM_SUCCESS) << c.msg();
    EXPECT_EQ(g.s, 5);
    EXPECT_EQ(g.cnt, 7);
    EXPECT_EQ(um_dat_fetch(c.ctx, g.u, nullptr, 0), UM_SUCCESS);
  }
}

TEST(Engine, LayoutsRoundTripThroughFetchAndUpdate) {
  Ctx c;
  um_set *s;
  um_dat *d;
  ASSERT_EQ(um_decl_set(c.ctx, 5, "s", &s), UM_SUCCESS);
  std::vector<double> v(15);
  for (int i = 0; i < 15; i++) v[i] = i * 1.5 - 3;
  ASSERT_EQ(um_decl_dat(c.ctx, s, 3, UM_DOUBLE, v.data(), "d", &d), UM_SUCCESS);
  for (um_layout l : {UM_SOA, UM_AOS, UM_LAYOUT_AUTO, UM_SOA}) {
    ASSERT_EQ(um_dat_set_layout(c.ctx, d, l), UM_SUCCESS);
    EXPECT_EQ(um_dat_layout(d), l);
    std::vector<double> out(15);
    ASSERT_EQ(um_dat_fetch(c.ctx, d, out.data(), out.size() * sizeof(double)), UM_SUCCESS);
    EXPECT_EQ(out, v) << um_layout_name(l);
  }
  std::vector<double> w(15, 0.0);
  w[4] = 9;
  ASSERT_EQ(um_dat_update(c.ctx, d, w.data(), w.size() * sizeof(double)), UM_SUCCESS);
  ASSERT_EQ(um_dat_set_layout(c.ctx, d, UM_AOS), UM_SUCCESS);
  std::vector<double> out(15);
  ASSERT_EQ(um_dat_fetch(c.ctx, d, out.data(), out.size() * sizeof(double)), UM_SUCCESS);
  EXPECT_EQ(out, w);
}

// A dat declared without data changes layout without moving its zeros; a large one (past the size a transpose
// goes over the host's threads) round-trips exactly, values and zeros, through both layouts.
TEST(Engine, LayoutsOfZerosAndLargeDats) {
  Ctx c;
  um_set *s;
  um_dat *z, *d;
  const int n = 70000; /* 70000 x 3 doubles: 1.7 MB, over the threads' threshold */
  ASSERT_EQ(um_decl_set(c.ctx, n, "s", &s), UM_SUCCESS);
  std::vector<double> v(3 * (size_t)n);
  for (size_t i = 0; i < v.size(); i++) v[i] = (double)i * 0.25 - 7;
  ASSERT_EQ(um_decl_dat(c.ctx, s, 3, UM_DOUBLE, nullptr, "z", &z), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(c.ctx, s, 3, UM_DOUBLE, v.data(), "d", &d), UM_SUCCESS);
  std::vector<double> out(v.size());
  for (um_layout l : {UM_AOS, UM_SOA, UM_AOS}) {
    ASSERT_EQ(um_dat_set_layout(c.ctx, z, l), UM_SUCCESS);
    ASSERT_EQ(um_dat_set_layout(c.ctx, d, l), UM_SUCCESS);
    EXPECT_EQ(um_dat_layout(z), l);
    ASSERT_EQ(um_dat_fetch(c.ctx, z, out.data(), out.size() * sizeof(double)), UM_SUCCESS);
    EXPECT_EQ(out, std::vector<double>(v.size(), 0.0)) << um_layout_name(l);
    ASSERT_EQ(um_dat_fetch(c.ctx, d, out.data(), out.size() * sizeof(double)), UM_SUCCESS);
    EXPECT_EQ(out, v) << um_layout_name(l);
  }
  ASSERT_EQ(um_dat_update(c.ctx, z, v.data(), v.size() * sizeof(double)), UM_SUCCESS); /* no longer zeros */
  ASSERT_EQ(um_dat_set_layout(c.ctx, z, UM_SOA), UM_SUCCESS);
  ASSERT_EQ(um_dat_fetch(c.ctx, z, out.data(), out.size() * sizeof(double)), UM_SUCCESS);
  EXPECT_EQ(out, v);
}

// A dat taken over (um_decl_dat_take) keeps the caller's buffer as its storage when its rows are the set's, and
// holds what um_decl_dat then um_dat_set_layout give, for every context layout and each layout of the buffer; with
// padded rows (run.row_align) it is copied. A taken map keeps its buffer; an entry out of range is named.
TEST(Engine, TakenDatsAndMapsKeepTheirBuffers) {
  const int n = 5, dim = 3;
  std::vector<double> v(n * dim);
  for (int i = 0; i < n * dim; i++) v[i] = i * 0.5 - 2;
  for (um_layout ctxl : {UM_AOS, UM_SOA, UM_LAYOUT_AUTO})
    for (um_layout l : {UM_AOS, UM_SOA, UM_LAYOUT_AUTO})
      for (int align : {1, 4}) {
        um_options o;
        um_options_default(&o);
        o.backend = "seq", o.layout = ctxl, o.row_align = align;
        um_context *ctx = nullptr;
        ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
        um_set *s;
        um_dat *d, *ref;
        ASSERT_EQ(um_decl_set(ctx, n, "s", &s), UM_SUCCESS);
        double *buf = (double *)malloc(sizeof(double) * n * dim);
        for (int i = 0; i < n; i++)
          for (int c = 0; c < dim; c++) buf[l == UM_AOS ? i * dim + c : c * n + i] = v[i * dim + c];
        ASSERT_EQ(um_decl_dat_take(ctx, s, dim, UM_DOUBLE, buf, l, "d", &d), UM_SUCCESS) << um_error_message(ctx);
        EXPECT_EQ(um_dat_host_data(d) == buf, align == 1) << "a copy only for padded rows";
        ASSERT_EQ(um_decl_dat(ctx, s, dim, UM_DOUBLE, v.data(), "ref", &ref), UM_SUCCESS);
        ASSERT_EQ(um_dat_set_layout(ctx, ref, l), UM_SUCCESS);
        EXPECT_EQ(um_dat_layout(d), um_dat_layout(ref));
        std::vector<double> out(v.size());
        ASSERT_EQ(um_dat_fetch(ctx, d, out.data(), out.size() * sizeof(double)), UM_SUCCESS);
        EXPECT_EQ(out, v) << um_layout_name(ctxl) << " " << um_layout_name(l) << " align " << align;
        EXPECT_EQ(um_decl_dat_take(ctx, s, dim, UM_DOUBLE, malloc(8), l, "d", &d), UM_ERR_ARG) << "duplicate name";
        um_finalize(&ctx);
      }
  Ctx c;
  um_set *a, *b;
  um_map *m;
  const int na = 300000; /* over the size the check goes over the threads */
  ASSERT_EQ(um_decl_set(c.ctx, na, "a", &a), UM_SUCCESS);
  ASSERT_EQ(um_decl_set(c.ctx, 2, "b", &b), UM_SUCCESS);
  int *e = (int *)malloc(sizeof(int) * 2 * na);
  for (int i = 0; i < 2 * na; i++) e[i] = i % 2;
  e[2 * na - 3] = 2, e[2 * na - 1] = -1;
  EXPECT_EQ(um_decl_map_take(c.ctx, a, b, 2, e, "m", &m), UM_ERR_ARG); /* e freed */
  EXPECT_NE(c.msg().find("entry 599997 (element 299998, index 1) is 2"), std::string::npos) << c.msg();
  e = (int *)malloc(sizeof(int) * 2 * na);
  for (int i = 0; i < 2 * na; i++) e[i] = (i / 2 + i) % 2;
  ASSERT_EQ(um_decl_map_take(c.ctx, a, b, 2, e, "m", &m), UM_SUCCESS);
  EXPECT_EQ(um_map_data(m), e);
  EXPECT_EQ(um_map_data(m)[2 * na - 1], 0);
}

TEST(Engine, ErrorMessageCarriesTrail) {
  Ctx c;
  um_set *s;
  EXPECT_EQ(um_decl_set(c.ctx, 1, nullptr, &s), UM_ERR_ARG);
  std::string m = c.msg();
  EXPECT_NE(m.find("without a name"), std::string::npos) << m;
  EXPECT_NE(m.find("UM_ERR_ARG"), std::string::npos) << m;
  EXPECT_NE(m.find(" <- context.c:"), std::string::npos) << m;
  um_error_clear(c.ctx);
  EXPECT_EQ(c.msg(), "");
}

// A kernel built at run time: its range reads its own data through x->kernel->user (e.g. a formula
// compiled from an input file); the context keeps the descriptor and its strings (um_decl_kernel).
struct Scale {
  double factor;
};
void scale_range(um_exec *x, int begin, int end) {
  const Scale *s = static_cast<const Scale *>(x->kernel->user);
  void *p[2];
  for (int e = begin; e < end; e++) {
    if (!x->nsoa) um_exec_args_aos(x, e, p, 2);
    else um_exec_args(x, e, p);
    const double *in = static_cast<const double *>(p[0]);
    double *out = static_cast<double *>(p[1]);
    out[0] = s->factor * in[0] + in[1];
    out[1] = -in[0];
    if (x->nsoa_write) um_exec_scatter(x, e);
  }
}

TEST(Engine, RunTimeKernelWithUserData) {
  for (const char *backend : {"seq", "openmp"})
    for (um_layout layout : {UM_AOS, UM_SOA}) {
      Ctx c(backend, layout);
      um_set *s = nullptr;
      um_dat *a = nullptr, *b = nullptr;
      const double av[6] = {1, 2, 3, 4, 5, 6};
      ASSERT_EQ(um_decl_set(c.ctx, 3, "points", &s), UM_SUCCESS);
      ASSERT_EQ(um_decl_dat(c.ctx, s, 2, UM_DOUBLE, av, "a", &a), UM_SUCCESS);
      ASSERT_EQ(um_decl_dat(c.ctx, s, 2, UM_DOUBLE, nullptr, "b", &b), UM_SUCCESS);
      Scale sc{10.0};
      std::string name = "scale_generated", src = "/* generated */", hdr = "scale.h";
      const um_kernel k = {name.c_str(), 2, scale_range, src.c_str(), hdr.c_str(), &sc};
      const um_kernel *kk = nullptr;
      ASSERT_EQ(um_decl_kernel(c.ctx, &k, &kk), UM_SUCCESS) << c.msg();
      name.assign("overwritten");  // the context holds its own copies of the strings
      src.assign("overwritten");
      EXPECT_STREQ(kk->name, "scale_generated");
      EXPECT_STREQ(kk->source, "/* generated */");
      EXPECT_STREQ(kk->source_name, "scale.h");
      EXPECT_EQ(kk->user, &sc);
      ASSERT_EQ(UM_PAR_LOOP(c.ctx, *kk, "scale", s, um_arg_dat(a, -1, UM_ID, 2, UM_DOUBLE, UM_READ),
                            um_arg_dat(b, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)),
                UM_SUCCESS)
          << c.msg();
      double bv[6];
      ASSERT_EQ(um_dat_fetch(c.ctx, b, bv, sizeof bv), UM_SUCCESS);
      for (int i = 0; i < 3; i++) {
        EXPECT_EQ(bv[2 * i], 10.0 * av[2 * i] + av[2 * i + 1]) << backend;
        EXPECT_EQ(bv[2 * i + 1], -av[2 * i]) << backend;
      }
      const um_kernel bad = {"bad", 0, scale_range, nullptr, nullptr, nullptr};
      EXPECT_EQ(um_decl_kernel(c.ctx, &bad, &kk), UM_ERR_ARG);
      EXPECT_NE(c.msg().find("1 to 48 arguments"), std::string::npos) << c.msg();
    }
}

}  // namespace

// The error rule (docs/architecture.md, "Errors: where the message goes"): an engine call with a
// context stores a message for every error, a NULL argument included.
TEST(Engine, ANullArgumentWithAContextLeavesAMessage) {
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, nullptr), UM_SUCCESS);
  double x = 0;
  EXPECT_EQ(um_dat_fetch(ctx, nullptr, &x, sizeof x), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("um_dat_fetch: a NULL or out-of-range argument"),
            std::string::npos)
      << um_error_message(ctx);
  EXPECT_EQ(um_dat_set_layout(ctx, nullptr, UM_SOA), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("um_dat_set_layout"), std::string::npos) << um_error_message(ctx);
  EXPECT_EQ(um_dat_fetch(nullptr, nullptr, &x, sizeof x), UM_ERR_ARG); // no context: a code only
  um_finalize(&ctx);
}

// ---- the thread count is bounded, the limit named -------------------------------------------------

#include <climits>

#include "test_files.hpp"

namespace {
using umtest::has;
}  // namespace

// Before: nthreads 100000 died with SIGSEGV inside libgomp, 30,000 took 18 s and 1.6 GB.
TEST(ThreadLimits, ThreadCountsAreBoundedWithTheLimitNamed) {
  const int max = um_threads_max();
  EXPECT_GE(max, UM_THREADS_PER_CORE);
  for (int n : {max + 1, 100000, INT_MAX}) {
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    o.nthreads = n;
    um_context *ctx = nullptr;
    EXPECT_EQ(um_init(&ctx, &o), UM_ERR_ARG) << n;
    EXPECT_TRUE(has(um_error_message(ctx), "at most " + std::to_string(max))) << um_error_message(ctx);
    um_finalize(&ctx);
  }
  um_options o;
  um_options_default(&o);
  o.nthreads = max;
  o.backend = "seq";
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  um_finalize(&ctx);
}
