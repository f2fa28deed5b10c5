// Compiled host loops (engine/src/core/hostc.c, um_options.compile): every
// access mode of the CUDA tests' workload compiled per loop gives the generic
// range's results bit for bit on seq and OpenMP, AoS and SoA; modules come back
// from the cache; constants follow um_decl_const; and a compiler that is
// missing or fails, or a constant never published, is an error in WAIT mode
// and a warning (the generic code runs) in AUTO mode.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "test_cuda_workload.hpp"
#include "test_files.hpp"

namespace {

using umtest::has;
using umtest::TempDir;

// One cache for the whole binary: every case of a shape compiles it once.
const std::string &shared_cache() {
  static TempDir dir("hostc_cache");
  static const std::string path = dir.dir.string();
  return path;
}

struct Logged {
  std::string warnings;
};

void capture(void *user, um_log_level level, const char *msg) {
  if (level == UM_LOG_WARNING) static_cast<Logged *>(user)->warnings += std::string(msg) + "\n";
}

um_options options(const char *backend, um_layout layout, um_compile mode, const std::string &cache) {
  um_options o;
  um_options_default(&o);
  o.backend = backend;
  o.layout = layout;
  o.nthreads = 2;
  o.parallel_threshold = 0;  // OpenMP: colours and chunks even on the small meshes
  o.block_size = 64;
  o.compile = mode;
  o.compile_after = 0;
  snprintf(o.cache, sizeof o.cache, "%s", cache.c_str());
  return o;
}

// calls and compiled calls of every loop the workload ran
void count_calls(um_context *ctx, long *calls, long *compiled) {
  *calls = *compiled = 0;
  um_loop_stats s;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    ASSERT_EQ(um_loop_stats_get(ctx, i, &s), UM_SUCCESS);
    *calls += s.calls;
    *compiled += s.compiled_calls;
  }
}

template <class T>
bool same_bits(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
bool same_bits(const T &a, const T &b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

void expect_same(const tcw::Result &g, const tcw::Result &r) {
  EXPECT_TRUE(same_bits(g.b, r.b)) << "direct WRITE b";
  EXPECT_TRUE(same_bits(g.c, r.c)) << "direct RW c";
  EXPECT_TRUE(same_bits(g.s, r.s)) << "direct INC s";
  EXPECT_TRUE(same_bits(g.r, r.r)) << "INC r through a map";
  EXPECT_TRUE(same_bits(g.n, r.n)) << "INC n (arity 4)";
  EXPECT_TRUE(same_bits(g.v, r.v)) << "indirect RW v";
  EXPECT_TRUE(same_bits(g.vw, r.vw)) << "indirect WRITE vw";
  EXPECT_TRUE(same_bits(g.acc, r.acc)) << "direct INC acc";
  EXPECT_TRUE(same_bits(g.f, r.f)) << "float INC f";
  EXPECT_TRUE(same_bits(g.sum, r.sum)) << "gbl INC sum";
  EXPECT_TRUE(same_bits(g.mn, r.mn)) << "gbl MIN";
  EXPECT_TRUE(same_bits(g.mx, r.mx)) << "gbl MAX";
  EXPECT_TRUE(same_bits(g.esum, r.esum)) << "gbl INC esum";
  EXPECT_TRUE(same_bits(g.qmax, r.qmax)) << "gbl MAX qmax";
  EXPECT_TRUE(same_bits(g.fmin, r.fmin)) << "gbl float MIN";
  EXPECT_EQ(g.isum, r.isum);
  EXPECT_EQ(g.cnt, r.cnt);
}

// Runs the workload with options o; returns its calls and compiled calls.
void run(const um_options &o, const tcw::Mesh &m, tcw::Result *res, long *calls, long *compiled,
         std::string *err = nullptr) {
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  tcw::run_all(ctx, m, res, 3);
  count_calls(ctx, calls, compiled);
  if (err) *err = um_error_message(ctx);
  um_finalize(&ctx);
}

struct Case {
  const char *backend;
  um_layout layout;
};

class HostCompiled : public ::testing::TestWithParam<Case> {};

TEST_P(HostCompiled, SameBitsAsTheGenericRange) {
  const Case cs = GetParam();
  if (um_backend_available(cs.backend) != 1) GTEST_SKIP() << cs.backend << " not built";
  for (auto sh : {std::vector<int>{1000, 3001, 777}, {37, 200, 50}, {1, 1, 1}}) {
    SCOPED_TRACE("nodes " + std::to_string(sh[0]));
    tcw::Mesh m = tcw::random_mesh(sh[0], sh[1], sh[2], 7u + (unsigned)sh[0]);
    tcw::Result ref, got;
    long calls, compiled;
    run(options(cs.backend, cs.layout, UM_COMPILE_OFF, shared_cache()), m, &ref, &calls, &compiled);
    if (HasFatalFailure()) return;
    EXPECT_EQ(compiled, 0) << "compile off compiles nothing";
    run(options(cs.backend, cs.layout, UM_COMPILE_WAIT, shared_cache()), m, &got, &calls, &compiled);
    if (HasFatalFailure()) return;
    EXPECT_GT(calls, 0);
    EXPECT_EQ(compiled, calls) << "wait: every call runs compiled code";
    expect_same(got, ref);
    if (sh[0] > 1) EXPECT_NE(ref.mn, 1e30) << "the reductions did something";
  }
}

INSTANTIATE_TEST_SUITE_P(All, HostCompiled,
                         ::testing::Values(Case{"seq", UM_AOS}, Case{"seq", UM_SOA}, Case{"openmp", UM_AOS},
                                           Case{"openmp", UM_SOA}),
                         [](const auto &info) {
                           return std::string(info.param.backend) + "_" + um_layout_name(info.param.layout);
                         });

TEST(HostCompile, ModulesComeBackFromTheCacheAndLeaveNothingBehind) {
  TempDir cache("hostc_reuse");
  tcw::Mesh m = tcw::random_mesh(300, 900, 200, 11u);
  tcw::Result a, b;
  long calls, compiled;
  run(options("seq", UM_AOS, UM_COMPILE_WAIT, cache.dir.string()), m, &a, &calls, &compiled);
  ASSERT_EQ(compiled, calls);
  int modules = 0;
  for (auto &e : std::filesystem::directory_iterator(cache.dir)) {
    const std::string f = e.path().filename().string();
    EXPECT_TRUE(has(f, "host-") && has(f, ".so") && !has(f, ".tmp") && !has(f, ".lock")) << "left behind: " << f;
    modules++;
  }
  EXPECT_EQ(modules, (int)tcw::loop_names().size()) << "one module per loop shape";
  // AUTO compiles a loop only after it ran compile_after seconds; a cached module is loaded at once
  um_options o = options("seq", UM_AOS, UM_COMPILE_AUTO, cache.dir.string());
  o.compile_after = 0;
  run(o, m, &b, &calls, &compiled);
  EXPECT_EQ(compiled, calls) << "every loop found its module in the cache on its first call";
  expect_same(b, a);
  // and with a threshold no loop reaches, nothing is even looked at
  TempDir empty("hostc_none");
  o = options("seq", UM_AOS, UM_COMPILE_AUTO, empty.dir.string());
  o.compile_after = 1e6;
  run(o, m, &b, &calls, &compiled);
  EXPECT_EQ(compiled, 0);
  EXPECT_TRUE(std::filesystem::is_empty(empty.dir));
}

TEST(HostCompile, AutoSwitchesToCompiledCodeWithoutChangingResults) {
  TempDir cache("hostc_auto");
  tcw::Mesh m = tcw::random_mesh(500, 1500, 300, 5u);
  tcw::Result ref, got;
  long calls, compiled;
  run(options("seq", UM_AOS, UM_COMPILE_OFF, cache.dir.string()), m, &ref, &calls, &compiled);
  // AUTO with a cold cache: the edge loop runs many times while its compile proceeds
  um_options o = options("seq", UM_AOS, UM_COMPILE_AUTO, cache.dir.string());
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  tcw::run_all(ctx, m, &got, 3);
  count_calls(ctx, &calls, &compiled);
  EXPECT_LT(compiled, calls) << "the first calls ran the generic code";
  um_finalize(&ctx);  // stops the compilers still running, removes their temporaries
  expect_same(got, ref);
  for (auto &e : std::filesystem::directory_iterator(cache.dir)) {
    const std::string f = e.path().filename().string();
    EXPECT_FALSE(has(f, ".tmp") || has(f, ".lock") || has(f, "work-")) << "left behind: " << f;
  }
}

// tk_direct reads the constant tk_scale: the compiled code must see every value published.
TEST(HostCompile, ConstantsFollowUmDeclConst) {
  TempDir cache("hostc_const");
  tcw::Mesh m = tcw::random_mesh(200, 600, 100, 3u);
  std::vector<double> s[2];
  for (int mode = 0; mode < 2; mode++) {
    um_options o = options("seq", UM_AOS, mode ? UM_COMPILE_WAIT : UM_COMPILE_OFF, cache.dir.string());
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    tcw::Result r;
    tcw::run_all(ctx, m, &r, 1);  // tk_scale = 1.5
    tk_scale = -4.25;
    ASSERT_EQ(um_decl_const(ctx, "tk_scale", 1, UM_DOUBLE, &tk_scale), UM_SUCCESS);
    um_set *nodes = um_find_set(ctx, "nodes");
    um_dat *a = um_find_dat(ctx, "a"), *b = um_find_dat(ctx, "b"), *c = um_find_dat(ctx, "c"),
           *k = um_find_dat(ctx, "k"), *sd = um_find_dat(ctx, "s");
    double sum[2] = {0, 0}, mn = 1e30, mx = -1e30;
    int isum = 0;
    ASSERT_EQ(UM_PAR_LOOP(ctx, tk_direct_kernel, "tk_direct", nodes, um_arg_dat(a, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                          um_arg_dat(b, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE),
                          um_arg_dat(c, -1, UM_ID, 2, UM_DOUBLE, UM_RW), um_arg_dat(k, -1, UM_ID, 1, UM_INT, UM_READ),
                          um_arg_dat(sd, -1, UM_ID, 2, UM_DOUBLE, UM_INC), um_arg_gbl(sum, 2, UM_DOUBLE, UM_INC),
                          um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX),
                          um_arg_gbl(&isum, 1, UM_INT, UM_INC)),
              UM_SUCCESS)
        << um_error_message(ctx);
    s[mode].resize(2 * (size_t)m.nnode);
    ASSERT_EQ(um_dat_fetch(ctx, sd, s[mode].data(), s[mode].size() * sizeof(double)), UM_SUCCESS);
    long calls, compiled;
    count_calls(ctx, &calls, &compiled);
    if (mode) EXPECT_EQ(compiled, calls);
    um_finalize(&ctx);
    tk_scale = 1.5;
  }
  EXPECT_TRUE(same_bits(s[1], s[0])) << "the second tk_direct used the new tk_scale in both";
}

TEST(HostCompile, AConstantNeverPublishedIsFound) {
  TempDir cache("hostc_unpublished");
  tcw::Mesh m = tcw::random_mesh(50, 100, 20, 9u);
  for (um_compile mode : {UM_COMPILE_WAIT, UM_COMPILE_AUTO}) {
    um_options o = options("seq", UM_AOS, mode, cache.dir.string());
    Logged log;
    o.log = capture;
    o.log_user = &log;
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    um_set *nodes;
    um_dat *a, *b, *c, *k, *s;
    ASSERT_EQ(um_decl_set(ctx, m.nnode, "nodes", &nodes), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, m.a.data(), "a", &a), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, nullptr, "b", &b), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.c.data(), "c", &c), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 1, UM_INT, m.k.data(), "k", &k), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.v.data(), "s", &s), UM_SUCCESS);
    double sum[2] = {0, 0}, mn = 1e30, mx = -1e30;
    int isum = 0;
    // tk_scale is never handed to um_decl_const
    int rc = UM_PAR_LOOP(ctx, tk_direct_kernel, "tk_direct", nodes, um_arg_dat(a, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                         um_arg_dat(b, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE), um_arg_dat(c, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                         um_arg_dat(k, -1, UM_ID, 1, UM_INT, UM_READ), um_arg_dat(s, -1, UM_ID, 2, UM_DOUBLE, UM_INC),
                         um_arg_gbl(sum, 2, UM_DOUBLE, UM_INC), um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN),
                         um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&isum, 1, UM_INT, UM_INC));
    const std::string msg = mode == UM_COMPILE_WAIT ? um_error_message(ctx) : log.warnings;
    if (mode == UM_COMPILE_WAIT) EXPECT_NE(rc, UM_SUCCESS);
    else EXPECT_EQ(rc, UM_SUCCESS) << um_error_message(ctx);
    EXPECT_TRUE(has(msg, "tk_direct") && has(msg, "never published") && has(msg, "um_decl_const")) << msg;
    long calls, compiled;
    count_calls(ctx, &calls, &compiled);
    EXPECT_EQ(compiled, 0);
    um_finalize(&ctx);
  }
}

// A compiler that cannot run, and kernel text that does not compile.
TEST(HostCompile, CompilerFailuresAreErrorsInWaitAndWarningsInAuto) {
  TempDir cache("hostc_fail");
  tcw::Mesh m = tcw::random_mesh(100, 300, 50, 4u);
  tcw::Result ref, got;
  long calls, compiled;
  run(options("seq", UM_AOS, UM_COMPILE_OFF, cache.dir.string()), m, &ref, &calls, &compiled);
  for (um_compile mode : {UM_COMPILE_WAIT, UM_COMPILE_AUTO}) {
    SCOPED_TRACE(um_compile_name(mode));
    um_options o = options("seq", UM_AOS, mode, cache.dir.string());
    snprintf(o.cc, sizeof o.cc, "%s", "/nonexistent/um-test-cc");
    Logged log;
    o.log = capture;
    o.log_user = &log;
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    if (mode == UM_COMPILE_WAIT) {
      um_set *nodes;
      ASSERT_EQ(um_decl_set(ctx, 4, "nodes", &nodes), UM_SUCCESS);
      um_dat *d;
      double v[4] = {1, 2, 3, 4};
      ASSERT_EQ(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, v, "kd", &d), UM_SUCCESS);
      double a3[12] = {0};
      um_dat *vw;
      ASSERT_EQ(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, a3, "vw", &vw), UM_SUCCESS);
      std::vector<int> id = {0, 1, 2, 3};
      um_map *pm;
      ASSERT_EQ(um_decl_map(ctx, nodes, nodes, 1, id.data(), "pperm", &pm), UM_SUCCESS);
      int rc = UM_PAR_LOOP(ctx, tk_indirect_write_kernel, "tk_indirect_write", nodes,
                           um_arg_dat(vw, 0, pm, 3, UM_DOUBLE, UM_WRITE), um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_READ));
      EXPECT_NE(rc, UM_SUCCESS);
      const std::string msg = um_error_message(ctx);
      EXPECT_TRUE(has(msg, "tk_indirect_write") && has(msg, "um-test-cc") && has(msg, "run.compile")) << msg;
    } else {
      tcw::run_all(ctx, m, &got, 3);
      count_calls(ctx, &calls, &compiled);
      EXPECT_EQ(compiled, 0);
      EXPECT_TRUE(has(log.warnings, "generic host code") && has(log.warnings, "cannot run the compiler") &&
                  has(log.warnings, "um-test-cc"))
          << log.warnings;
      EXPECT_EQ(log.warnings.find("um: loop"), log.warnings.rfind("um: loop")) << "one warning per run: " << log.warnings;
      expect_same(got, ref);
    }
    um_finalize(&ctx);
  }
  // kernel text that the compiler rejects: the error quotes the compiler's log
  um_kernel bad = tk_gather_kernel;
  bad.source = "#include \"um/kernel.h\"\nUM_KERNEL void tk_gather(double *a) { this does not compile; }\n";
  um_options o = options("seq", UM_AOS, UM_COMPILE_WAIT, cache.dir.string());
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  um_set *nodes, *edges;
  ASSERT_EQ(um_decl_set(ctx, m.nnode, "nodes", &nodes), UM_SUCCESS);
  ASSERT_EQ(um_decl_set(ctx, m.nedge, "edges", &edges), UM_SUCCESS);
  um_map *pedge;
  ASSERT_EQ(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge), UM_SUCCESS);
  um_dat *x, *k, *acc;
  ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.x.data(), "x", &x), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, nodes, 1, UM_INT, m.k.data(), "k", &k), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, edges, 2, UM_DOUBLE, nullptr, "acc", &acc), UM_SUCCESS);
  int rc = UM_PAR_LOOP(ctx, bad, "tk_gather", edges, um_arg_dat(x, 0, pedge, 2, UM_DOUBLE, UM_READ),
                       um_arg_dat(x, 1, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(k, 0, pedge, 1, UM_INT, UM_READ),
                       um_arg_dat(acc, -1, UM_ID, 2, UM_DOUBLE, UM_INC));
  EXPECT_NE(rc, UM_SUCCESS);
  const std::string msg = um_error_message(ctx);
  EXPECT_TRUE(has(msg, "tk_gather") && has(msg, "cc.log") && has(msg, "error")) << msg;
  um_finalize(&ctx);
}

}  // namespace
