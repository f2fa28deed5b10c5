// Compiled host loops (engine/src/backends/host/hostc.c, um_options.compile): every
// access mode of the CUDA tests' workload compiled per loop gives the generic
// range's results bit for bit on seq and OpenMP, AoS and SoA; modules come back
// from the cache; constants follow um_decl_const; and a compiler that is
// missing or fails, or a constant never published, is an error in WAIT mode
// and a warning (the generic code runs) in AUTO mode.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_cuda_workload.hpp"
#include "test_files.hpp"
#include "test_planted.hpp"

namespace {

using umtest::has;
using umtest::TempDir;
namespace fs = std::filesystem;

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
  EXPECT_EQ(um_options_set(&o, "openmp.parallel_threshold", "0"), UM_SUCCESS);  // OpenMP: colours and chunks even on the small meshes
  o.block_size = 64;
  EXPECT_EQ(um_options_set(&o, "hostc.compile", um_compile_name(mode)), UM_SUCCESS);
  EXPECT_EQ(um_options_set(&o, "hostc.compile_after", "0"), UM_SUCCESS);
  EXPECT_EQ(um_options_set(&o, "run.cache", cache.c_str()), UM_SUCCESS);
  return o;
}

// calls, compiled calls and SIMD calls of every loop the workload ran
void count_calls(um_context *ctx, long *calls, long *compiled, long *simd = nullptr) {
  *calls = *compiled = 0;
  if (simd) *simd = 0;
  um_loop_stats s;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    ASSERT_EQ(um_loop_stats_get(ctx, i, &s), UM_SUCCESS);
    *calls += s.calls;
    *compiled += s.compiled_calls;
    if (simd) *simd += s.simd_calls;
  }
}

using tcw::expect_same;
using tcw::same_bits;

// Runs the workload with options o; returns its calls and compiled calls.
void run(const um_options &o, const tcw::Mesh &m, tcw::Result *res, long *calls, long *compiled,
         std::string *err = nullptr, long *simd = nullptr) {
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  tcw::run_all(ctx, m, res, 3);
  count_calls(ctx, calls, compiled, simd);
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
    // the SIMD range wherever a loop has one (tk_gather: indirect reads, a direct increment)
    um_options o = options(cs.backend, cs.layout, UM_COMPILE_WAIT, shared_cache());
    ASSERT_EQ(um_options_set(&o, "hostc.compile_simd", "on"), UM_SUCCESS);
    tcw::Result vec;
    long simd = 0;
    run(o, m, &vec, &calls, &compiled, nullptr, &simd);
    if (HasFatalFailure()) return;
    EXPECT_EQ(compiled, calls);
    EXPECT_GT(simd, 0) << "a loop with only indirect reads has a SIMD range";
    EXPECT_LT(simd, calls) << "loops that increment through a map or reduce have none";
    expect_same(vec, ref);
  }
}

// A SIMD range and its scalar one: the same bits on every element count
// around the group size (whole groups, a remainder, fewer elements than one
// group), AoS and SoA; auto mode times both on the first calls and keeps one.
// The edge loop of tk_simd over n edges, calls times, with options o; out and
// acc fetched into got, the loop's SIMD calls into *simd. kind: its second argument reads x through the
// first one's map at the other entry (0), at the same entry (1), or through a second map of the same arity (2).
void run_edges(const um_options &o, int n, int calls, int kind, std::vector<double> *got, long *simd) {
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  const int nn = n / 2 + 3;
  um_set *nodes, *edges;
  um_map *pe, *pe2;
  um_dat *x, *w, *out, *acc;
  std::vector<int> emap(2 * (size_t)n), emap2(2 * (size_t)n);
  for (int e = 0; e < n; e++) {
    emap[2 * e] = (e * 7) % nn, emap[2 * e + 1] = (e * 3 + 1) % nn;
    emap2[2 * e] = (e * 5 + 2) % nn, emap2[2 * e + 1] = (e * 11 + 4) % nn;
  }
  std::vector<double> xv(2 * (size_t)nn), wv(n), av(n, 0.5);
  for (int i = 0; i < 2 * nn; i++) xv[i] = std::sin(0.37 * i) * 3.0;
  for (int e = 0; e < n; e++) wv[e] = std::cos(0.11 * e);
  TCW_OK(um_decl_set(ctx, nn, "nodes", &nodes));
  TCW_OK(um_decl_set(ctx, n, "edges", &edges));
  TCW_OK(um_decl_map(ctx, edges, nodes, 2, emap.data(), "pedge", &pe));
  TCW_OK(um_decl_map(ctx, edges, nodes, 2, emap2.data(), "pedge2", &pe2));
  TCW_OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, xv.data(), "x", &x));
  TCW_OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, wv.data(), "w", &w));
  TCW_OK(um_decl_dat(ctx, edges, 2, UM_DOUBLE, nullptr, "out", &out));
  TCW_OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, av.data(), "acc", &acc));
  tk_scale = 1.5;
  TCW_OK(um_decl_const(ctx, "tk_scale", 1, UM_DOUBLE, &tk_scale));
  const um_arg second = kind == 0   ? um_arg_dat(x, 1, pe, 2, UM_DOUBLE, UM_READ)
                        : kind == 1 ? um_arg_dat(x, 0, pe, 2, UM_DOUBLE, UM_READ)
                                    : um_arg_dat(x, 1, pe2, 2, UM_DOUBLE, UM_READ);
  for (int it = 0; it < calls; it++)
    TCW_OK(UM_PAR_LOOP(ctx, tk_simd_kernel, "tk_simd", edges, um_arg_dat(x, 0, pe, 2, UM_DOUBLE, UM_READ), second,
                       um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                       um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE),
                       um_arg_dat(acc, -1, UM_ID, 1, UM_DOUBLE, UM_INC)));
  long all, compiled;
  count_calls(ctx, &all, &compiled, simd);
  EXPECT_EQ(all, calls);
  um_option_value mode;
  ASSERT_EQ(um_options_get(&o, "hostc.compile", &mode), UM_SUCCESS);
  if (mode.s && !strcmp(mode.s, "wait")) EXPECT_EQ(compiled, calls) << "wait: every call runs compiled code";
  got->assign(3 * (size_t)n, 0.0);
  TCW_OK(um_dat_fetch(ctx, out, got->data(), 2 * (size_t)n * sizeof(double)));
  TCW_OK(um_dat_fetch(ctx, acc, got->data() + 2 * (size_t)n, (size_t)n * sizeof(double)));
  um_finalize(&ctx);
}
void run_simd(const um_options &o, int n, int calls, std::vector<double> *got, long *simd) {
  run_edges(o, n, calls, 0, got, simd);
}

// A SIMD range against its scalar range and the generic one: the same bits on
// element counts around the group size (whole groups, a remainder, fewer than
// one group), AoS and SoA, seq and OpenMP.
TEST(HostCompile, SimdRangeGivesTheScalarRangesBits) {
  for (const char *backend : {"seq", "openmp"})
    for (um_layout layout : {UM_AOS, UM_SOA})
      for (int n : {1, 7, 8, 9, 63, 64, 1001}) {
        if (um_backend_available(backend) != 1) continue;
        SCOPED_TRACE(std::string(backend) + " " + um_layout_name(layout) + " edges " + std::to_string(n));
        std::vector<double> got[3];
        long simd[3] = {0, 0, 0};
        for (int mode = 0; mode < 3; mode++) {  // generic, compiled scalar, compiled SIMD
          um_options o = options(backend, layout, mode ? UM_COMPILE_WAIT : UM_COMPILE_OFF, shared_cache());
          ASSERT_EQ(um_options_set(&o, "hostc.compile_simd", mode == 2 ? "on" : "off"), UM_SUCCESS);
          run_simd(o, n, 3, &got[mode], &simd[mode]);
          if (HasFatalFailure()) return;
        }
        EXPECT_EQ(simd[0], 0);
        EXPECT_EQ(simd[1], 0) << "compile_simd -1: scalar ranges only";
        EXPECT_EQ(simd[2], 3) << "compile_simd 1: every call runs the SIMD range";
        EXPECT_TRUE(same_bits(got[1], got[0])) << "compiled scalar against generic";
        EXPECT_TRUE(same_bits(got[2], got[0])) << "SIMD against generic";
        EXPECT_FALSE(std::isnan(got[0][0])) << "the loop wrote its output";
      }
}

// Arguments that share a map get one map pointer and one load per entry in the generated code (hostc.c
// same_map / same_target). Three loops of one kernel with equal argument shapes but different sharing --
// the two reads through one map at two entries, at the same entry, and through two different maps of the
// same arity -- each compile their own module (one cache, in that order: a module keyed without the sharing
// would be found for the next loop and read the wrong rows) and give the generic code's bits, scalar and SIMD.

TEST(HostCompile, ArgumentsSharingAMapOrNotEachGetTheirModule) {
  TempDir cache("hostc_sharing");
  for (um_layout layout : {UM_AOS, UM_SOA})
    for (int simd : {-1, 1}) {
      std::vector<double> ref[3];
      for (int kind = 0; kind < 3; kind++) {
        SCOPED_TRACE(std::string(um_layout_name(layout)) + (simd > 0 ? " simd" : " scalar") + " sharing " +
                     std::to_string(kind));
        long simd_calls = 0;
        run_edges(options("seq", layout, UM_COMPILE_OFF, cache.dir.string()), 301, 3, kind, &ref[kind], &simd_calls);
        if (HasFatalFailure()) return;
        um_options o = options("seq", layout, UM_COMPILE_WAIT, cache.dir.string());
        ASSERT_EQ(um_options_set(&o, "hostc.compile_simd", simd > 0 ? "on" : "off"), UM_SUCCESS);
        std::vector<double> got;
        run_edges(o, 301, 3, kind, &got, &simd_calls);
        if (HasFatalFailure()) return;
        EXPECT_EQ(simd_calls, simd > 0 ? 3 : 0) << "the range asked for ran";
        EXPECT_TRUE(same_bits(got, ref[kind])) << "compiled against generic";
      }
      EXPECT_FALSE(same_bits(ref[0], ref[1])) << "the three loops read different rows";
      EXPECT_FALSE(same_bits(ref[0], ref[2]));
    }
}

// By default the first calls alternate the two ranges, timed; then one stays.
TEST(HostCompile, AutoTimesBothRangesThenKeepsOne) {
  um_options o = options("seq", UM_AOS, UM_COMPILE_WAIT, shared_cache());
  um_option_value simd_mode;
  ASSERT_EQ(um_options_get(&o, "hostc.compile_simd", &simd_mode), UM_SUCCESS);
  ASSERT_STREQ(simd_mode.s, "auto") << "timed choice by default";
  std::vector<double> got;
  long simd = 0;
  const int calls = 20;
  run_simd(o, 5000, calls, &got, &simd);
  // six timed calls alternate the ranges (three each), then one range runs the rest
  EXPECT_TRUE(simd == 3 || simd == calls - 3) << simd << " SIMD calls of " << calls;
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
  ASSERT_EQ(um_options_set(&o, "hostc.compile_after", "0"), UM_SUCCESS);
  run(o, m, &b, &calls, &compiled);
  EXPECT_EQ(compiled, calls) << "every loop found its module in the cache on its first call";
  expect_same(b, a);
  // and with a threshold no loop reaches, nothing is even looked at
  TempDir empty("hostc_none");
  o = options("seq", UM_AOS, UM_COMPILE_AUTO, empty.dir.string());
  ASSERT_EQ(um_options_set(&o, "hostc.compile_after", "1e6"), UM_SUCCESS);
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
    ASSERT_EQ(um_options_set(&o, "hostc.cc", "/nonexistent/um-test-cc"), UM_SUCCESS);
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
      EXPECT_TRUE(has(msg, "tk_indirect_write") && has(msg, "um-test-cc") && has(msg, "hostc.compile")) << msg;
    } else {
      tcw::run_all(ctx, m, &got, 3);
      count_calls(ctx, &calls, &compiled);
      EXPECT_EQ(compiled, 0);
      EXPECT_TRUE(has(log.warnings, "generic host code") && has(log.warnings, "cannot start the compiler") &&
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
  EXPECT_TRUE(has(msg, "tk_gather") && has(msg, "error") && has(msg, "kept 7 days)")) << msg;
  um_finalize(&ctx);
  // the log is kept beside the module the compile was for, out of its work folder (removed): a later process's
  // sweep of the litter leaves it; once a week old, the sweep removes it
  const size_t at = msg.find("(log: "), end = msg.find(", kept 7 days)");
  ASSERT_TRUE(at != std::string::npos && end != std::string::npos) << msg;
  const fs::path log = msg.substr(at + 6, end - at - 6);
  EXPECT_EQ(log.parent_path(), cache.dir);
  std::string text;
  std::getline(std::ifstream(log), text, '\0');
  EXPECT_TRUE(has(text, "error")) << log;
  for (auto &e : fs::directory_iterator(cache.dir))
    EXPECT_FALSE(has(e.path().filename().string(), "work-")) << "left behind: " << e.path();
  run(options("seq", UM_AOS, UM_COMPILE_WAIT, cache.dir.string()), m, &got, &calls, &compiled); // sweeps
  EXPECT_TRUE(fs::exists(log)) << "a later process removed the log of a failed compile";
  fs::last_write_time(log, fs::file_time_type::clock::now() - std::chrono::hours(24 * 8));
  run(options("seq", UM_AOS, UM_COMPILE_WAIT, cache.dir.string()), m, &got, &calls, &compiled);
  EXPECT_FALSE(fs::exists(log)) << "a log 8 days old was kept";
}

// A kernel that writes through a parameter its loop passes as READ: the compiler's error, naming the parameter, at
// the kernel's own line (the check compiles a copy of the kernel with its READ parameters const), and the dat
// unchanged; a kernel that declares a READ parameter without const and only reads it (hands it to a helper, points
// at it) compiles as before; a kernel with a range of its own keeps it in AUTO with a warning that says so.
TEST(HostCompile, AWriteThroughAReadArgumentIsAnError) {
  TempDir cache("hostc_read");
  for (const char *backend : {"seq", "openmp"}) {
    SCOPED_TRACE(backend);
    um_options o = options(backend, UM_AOS, UM_COMPILE_OFF, cache.dir.string());
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    um_set *s;
    um_dat *x, *y, *z;
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
    ASSERT_EQ(um_decl_set(ctx, 8, "s", &s), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, v, "x", &x), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, v, "z", &z), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, nullptr, "y", &y), UM_SUCCESS);
    const um_kernel *k = nullptr;
    const char *wsrc = "#include \"um/kernel.h\"\n/* w */\nUM_KERNEL void w(double *a, double *b,\n"
                       "                      double *c) {\n  b[0] = a[0] + c[0];\n  c[0] += 1.0;\n}\n";
    const um_kernel writes = {"w", 3, nullptr, wsrc, "w.h", nullptr};
    ASSERT_EQ(um_decl_kernel(ctx, &writes, &k), UM_SUCCESS);
    EXPECT_EQ(UM_PAR_LOOP(ctx, *k, "w", s, um_arg_dat(x, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE),
                          um_arg_dat(z, -1, UM_ID, 1, UM_DOUBLE, UM_READ)),
              UM_ERR_BACKEND);
    const std::string msg = um_error_message(ctx);
    EXPECT_TRUE(has(msg, "loop 'w'") &&
                has(msg, "writes through one of a (argument 0), c (argument 2), which its loop "
                         "passes as READ") &&
                has(msg, "w.h: w with its READ parameters const:6:"))
        << msg;
    ASSERT_EQ(um_dat_fetch(ctx, z, out, sizeof out), UM_SUCCESS);
    for (int i = 0; i < 8; i++) EXPECT_EQ(out[i], v[i]);
    const char *rsrc = "#include \"um/kernel.h\"\nstatic inline double first(double *p) { return p[0]; }\n"
                       "UM_KERNEL void r(double *a, double *b) { double *p = a; b[0] = first(a) + p[0]; }\n";
    const um_kernel reads = {"r", 2, nullptr, rsrc, "r.h", nullptr};
    ASSERT_EQ(um_decl_kernel(ctx, &reads, &k), UM_SUCCESS);
    ASSERT_EQ(UM_PAR_LOOP(ctx, *k, "r", s, um_arg_dat(x, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)),
              UM_SUCCESS)
        << um_error_message(ctx);
    ASSERT_EQ(um_dat_fetch(ctx, y, out, sizeof out), UM_SUCCESS);
    for (int i = 0; i < 8; i++) EXPECT_EQ(out[i], 2.0 * v[i]);
    um_finalize(&ctx);
  }
  // an app's kernel (a range of its own) whose header writes through a READ parameter: AUTO warns and keeps the
  // generic code (the app's own kernel, which does not write it here), WAIT fails the loop
  long calls, compiled;
  um_kernel bad = tk_direct_kernel;
  std::string text = bad.source;
  const size_t at = text.find("const double *a");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "double *a");
  const size_t body = text.find("c[0] = 0.5 * c[0] + a[0];");
  ASSERT_NE(body, std::string::npos);
  text.insert(body, "a[1] = 0.0;\n  ");
  bad.source = text.c_str();
  for (um_compile mode : {UM_COMPILE_AUTO, UM_COMPILE_WAIT}) {
    SCOPED_TRACE(um_compile_name(mode));
    um_options o = options("seq", UM_AOS, mode, cache.dir.string());
    Logged log;
    o.log = capture;
    o.log_user = &log;
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    um_set *nodes;
    ASSERT_EQ(um_decl_set(ctx, 4, "nodes", &nodes), UM_SUCCESS);
    um_dat *a, *b, *c, *k, *sd;
    double va[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, zero[12] = {0}, got_a[12];
    int vk[4] = {1, 2, 3, 4};
    ASSERT_EQ(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, va, "a", &a), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, zero, "b", &b), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, zero, "c", &c), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 1, UM_INT, vk, "k", &k), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, zero, "s", &sd), UM_SUCCESS);
    const double scale = 1.0;
    ASSERT_EQ(um_decl_const(ctx, "tk_scale", 1, UM_DOUBLE, &scale), UM_SUCCESS);
    double sum[2] = {0, 0}, mn = 1e30, mx = -1e30;
    int isum = 0;
    int rc = UM_SUCCESS;
    for (int call = 0; call < 2000 && rc == UM_SUCCESS && !has(log.warnings, "tk_direct"); call++) {
      if (call) usleep(10000); // AUTO: the compile runs in the background; its failure is said at a later call
      rc = UM_PAR_LOOP(ctx, bad, "tk_direct", nodes, um_arg_dat(a, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                       um_arg_dat(b, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE), um_arg_dat(c, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                       um_arg_dat(k, -1, UM_ID, 1, UM_INT, UM_READ), um_arg_dat(sd, -1, UM_ID, 2, UM_DOUBLE, UM_INC),
                       um_arg_gbl(sum, 2, UM_DOUBLE, UM_INC), um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN),
                       um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&isum, 1, UM_INT, UM_INC));
    }
    const std::string msg = mode == UM_COMPILE_WAIT ? um_error_message(ctx) : log.warnings;
    if (mode == UM_COMPILE_WAIT)
      EXPECT_EQ(rc, UM_ERR_BACKEND);
    else
      EXPECT_EQ(rc, UM_SUCCESS) << um_error_message(ctx);
    EXPECT_TRUE(has(msg, "tk_direct") && has(msg, "writes through a (argument 0), which its loop passes as READ"))
        << msg;
    ASSERT_EQ(um_dat_fetch(ctx, a, got_a, sizeof got_a), UM_SUCCESS);
    for (int i = 0; i < 12; i++) EXPECT_EQ(got_a[i], va[i]);
    count_calls(ctx, &calls, &compiled);
    EXPECT_EQ(compiled, 0);
    um_finalize(&ctx);
  }
}

// ---- the cache as a trust boundary (docs/reliability.md, "The caches") ----

namespace fs = std::filesystem;


// The key-named modules of a run of the workload, compiled once into a private cache: where to plant.
std::vector<std::string> module_names(const tcw::Mesh &m) {
  TempDir c("hostc_names");
  tcw::Result r;
  long calls, compiled;
  run(options("seq", UM_AOS, UM_COMPILE_WAIT, c.dir.string()), m, &r, &calls, &compiled);
  std::vector<std::string> names;
  for (auto &p : modules_in(c.dir)) names.push_back(p.filename().string());
  return names;
}

// Plants, under every module name of the workload, a module whose constructor writes a marker (the first owned by
// nobody when root; `all_nobody`: every one), runs the workload compiled with that cache (mode `mode`), and checks
// that no planted constructor ran and the results are the generic code's. Returns the run's warnings.
std::string run_with_planted(const std::string &tag, unsigned seed, mode_t mode, bool all_nobody, fs::path *dir) {
  tcw::Mesh m = tcw::random_mesh(120, 360, 60, seed);
  const std::vector<std::string> names = module_names(m);
  EXPECT_FALSE(names.empty());
  *dir = fs::temp_directory_path() / ("um_test_" + tag + "_" + std::to_string(getpid()));
  fs::remove_all(*dir);
  fs::create_directories(*dir);
  const fs::path marker = dir->parent_path() / ("um_test_" + tag + "_ran_" + std::to_string(getpid()));
  fs::remove(marker);
  for (const std::string &n : names) {
    build_planted(*dir / n, marker);
    if (geteuid() == 0 && (all_nobody || &n == &names.front()))
      EXPECT_EQ(chown((*dir / n).c_str(), 65534, 65534), 0);  // nobody's
  }
  EXPECT_EQ(chmod(dir->c_str(), mode), 0);
  tcw::Result ref, got;
  long calls, compiled;
  run(options("seq", UM_AOS, UM_COMPILE_OFF, dir->string()), m, &ref, &calls, &compiled);
  um_options o = options("seq", UM_AOS, UM_COMPILE_WAIT, dir->string());
  Logged log;
  o.log = capture;
  o.log_user = &log;
  run(o, m, &got, &calls, &compiled);
  EXPECT_FALSE(fs::exists(marker)) << "a planted module's constructor ran";
  fs::remove(marker);
  EXPECT_EQ(compiled, calls) << "every loop ran compiled code of its own";
  expect_same(got, ref);
  return log.warnings;
}

// A module planted by another user in a cache others can write must never run: the folder is not trusted (a
// warning says why) and the run compiles into a private folder, results unchanged, nothing written there.
TEST(HostCompileCache, AModuleInACacheOthersCanWriteIsNotLoaded) {
  fs::path dir;
  const std::string warnings = run_with_planted("hostc_shared", 21u, 0777, true, &dir);
  EXPECT_TRUE(has(warnings, "run.cache") && has(warnings, "writable by group or others") && has(warnings, dir.string()))
      << warnings;
  for (auto &e : fs::directory_iterator(dir)) EXPECT_TRUE(has(e.path().filename().string(), ".so")) << e.path();
  fs::remove_all(dir);
}

// In the user's own cache, a module that is not the one um compiled and sealed (planted, swapped, owned by
// another user) is a miss: removed and compiled again, never loaded.
TEST(HostCompileCache, AModuleUmDidNotSealIsRebuiltNotLoaded) {
  fs::path dir;
  const std::string warnings = run_with_planted("hostc_unsealed", 22u, 0755, false, &dir);
  EXPECT_TRUE(has(warnings, "the cached module is not used") && has(warnings, "compiling it again")) << warnings;
  fs::remove_all(dir);
}

// What a crash or a full disk leaves: a module cut short. It is found before dlopen (which would die of SIGBUS),
// removed and compiled again; the next run loads the new one without a word.
TEST(HostCompileCache, ATruncatedModuleIsRebuiltNotLoaded) {
  TempDir cache("hostc_truncated");
  tcw::Mesh m = tcw::random_mesh(150, 450, 80, 23u);
  tcw::Result ref, got;
  long calls, compiled;
  run(options("seq", UM_AOS, UM_COMPILE_WAIT, cache.dir.string()), m, &ref, &calls, &compiled);
  std::vector<fs::path> mods = modules_in(cache.dir);
  ASSERT_FALSE(mods.empty());
  std::vector<uintmax_t> sizes;
  for (auto &p : mods) {
    sizes.push_back(fs::file_size(p));
    fs::resize_file(p, sizes.back() / 2);
  }
  for (int pass = 0; pass < 2; pass++) {
    SCOPED_TRACE(pass ? "the run after" : "the truncated modules");
    um_options o = options("seq", UM_AOS, UM_COMPILE_WAIT, cache.dir.string());
    Logged log;
    o.log = capture;
    o.log_user = &log;
    run(o, m, &got, &calls, &compiled);
    EXPECT_EQ(compiled, calls);
    expect_same(got, ref);
    if (pass == 0) EXPECT_TRUE(has(log.warnings, "carries no seal") || has(log.warnings, "checksum")) << log.warnings;
    else EXPECT_EQ(log.warnings, "");
  }
  for (size_t i = 0; i < mods.size(); i++) EXPECT_EQ(fs::file_size(mods[i]), sizes[i]) << mods[i];
}

// Links planted where the compiler's work folder and temporaries used to be (names another user could predict)
// write nothing outside the cache: the work folder is made by mkdtemp, its files only created new.
TEST(HostCompileCache, PlantedLinksWriteNothingOutsideTheCache) {
  tcw::Mesh m = tcw::random_mesh(100, 300, 50, 24u);
  const std::vector<std::string> names = module_names(m);
  TempDir cache("hostc_links"), outside("hostc_victim");
  const fs::path victim = outside.dir / "victim.txt";
  std::ofstream(victim) << "precious\n";
  for (const std::string &n : names) {
    const std::string key = n.substr(5, 16);
    const fs::path work = cache.dir / ("work-" + key + "-" + std::to_string(getpid()));
    fs::create_directories(work / "um");
    for (const char *f : {"loop.c", "kernels.h", "cc.log", "um/kernel.h"}) fs::create_symlink(victim, work / f);
    fs::create_symlink(victim, cache.dir / (n + ".tmp." + std::to_string(getpid())));
  }
  tcw::Result ref, got;
  long calls, compiled;
  run(options("seq", UM_AOS, UM_COMPILE_OFF, cache.dir.string()), m, &ref, &calls, &compiled);
  run(options("seq", UM_AOS, UM_COMPILE_WAIT, cache.dir.string()), m, &got, &calls, &compiled);
  EXPECT_EQ(compiled, calls);
  expect_same(got, ref);
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "precious\n") << "a planted link was written through";
  EXPECT_TRUE(fs::is_regular_file(victim));
}

// A lock left by a run that died (its PID gone), or dated in the future, does not hold the next run: the lock is
// taken over at once; a dead run's work folder is cleaned away.
TEST(HostCompileCache, LocksOfDeadRunsAreTakenOverAndTheirLitterRemoved) {
  tcw::Mesh m = tcw::random_mesh(100, 300, 50, 25u);
  const std::vector<std::string> names = module_names(m);
  TempDir cache("hostc_locks");
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  ASSERT_GT(dead, 0);
  waitpid(dead, nullptr, 0);
  char host[256] = "";
  gethostname(host, sizeof host);
  for (size_t i = 0; i < names.size(); i++) {
    const fs::path lock = cache.dir / (names[i] + ".lock");
    if (i % 2 == 0) std::ofstream(lock) << dead << " " << host << "\n";
    else {
      std::ofstream(lock) << "garbage";
      fs::last_write_time(lock, fs::file_time_type::clock::now() + std::chrono::hours(24 * 365));
    }
  }
  const fs::path litter = cache.dir / ("work-" + std::to_string(dead) + "-AbC123");  // untagged: a day old
  fs::create_directories(litter / "um");
  std::ofstream(litter / "loop.c") << "left";
  std::ofstream(litter / "um" / "kernel.h") << "left";
  fs::last_write_time(litter, fs::file_time_type::clock::now() - std::chrono::hours(48));
  tcw::Result ref, got;
  long calls, compiled;
  run(options("seq", UM_AOS, UM_COMPILE_OFF, cache.dir.string()), m, &ref, &calls, &compiled);
  const auto t0 = std::chrono::steady_clock::now();
  run(options("seq", UM_AOS, UM_COMPILE_WAIT, cache.dir.string()), m, &got, &calls, &compiled);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(waited, 200) << "the run waited for locks nobody holds";
  EXPECT_EQ(compiled, calls);
  expect_same(got, ref);
  EXPECT_FALSE(fs::exists(litter)) << "a dead run's work folder was left";
  for (auto &e : fs::directory_iterator(cache.dir)) {
    const std::string f = e.path().filename().string();
    EXPECT_FALSE(has(f, ".lock") || has(f, "work-")) << "left behind: " << f;
  }
}

}  // namespace

// A kernel declared from its source alone (um_decl_kernel without a range, as the Python package declares
// them): compiled before its first call whatever hostc.compile says; a compile error is the loop's error with
// the compiler's message, and again at the next call, until a mended source is declared; vector arguments run
// compiled too.
TEST(HostCompile, KernelsFromSourceAloneAlwaysRunCompiled) {
  TempDir cache("hostc_source");
  for (const char *backend : {"seq", "openmp"}) {
    SCOPED_TRACE(backend);
    um_options o = options(backend, UM_AOS, UM_COMPILE_OFF, cache.dir.string());
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    um_set *s;
    um_dat *x, *y;
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
    ASSERT_EQ(um_decl_set(ctx, 8, "s", &s), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, v, "x", &x), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, nullptr, "y", &y), UM_SUCCESS);
    const um_kernel none = {"twice", 2, nullptr, nullptr, "twice.h", nullptr};
    const um_kernel *k = nullptr;
    EXPECT_EQ(um_decl_kernel(ctx, &none, &k), UM_ERR_ARG) << "neither a range nor a source";
    const um_kernel src = {"twice", 2, nullptr,
                           "#include \"um/kernel.h\"\nUM_KERNEL void twice(const double *x, double *y) { y[0] = 2.0 * x[0]; }\n",
                           "twice.h", nullptr};
    ASSERT_EQ(um_decl_kernel(ctx, &src, &k), UM_SUCCESS) << um_error_message(ctx);
    ASSERT_EQ(UM_PAR_LOOP(ctx, *k, "twice", s, um_arg_dat(x, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)),
              UM_SUCCESS)
        << um_error_message(ctx);
    ASSERT_EQ(um_dat_fetch(ctx, y, out, sizeof out), UM_SUCCESS);
    for (int i = 0; i < 8; i++) EXPECT_EQ(out[i], 2.0 * v[i]);
    long calls, compiled;
    count_calls(ctx, &calls, &compiled);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(compiled, 1) << "hostc.compile off: a kernel from source still runs compiled";

    const um_kernel bad = {"broken", 1, nullptr,
                           "#include \"um/kernel.h\"\nUM_KERNEL void broken(double *y) { y[0] = not_declared_here; }\n",
                           "broken.h", nullptr};
    ASSERT_EQ(um_decl_kernel(ctx, &bad, &k), UM_SUCCESS);
    EXPECT_EQ(UM_PAR_LOOP(ctx, *k, "broken", s, um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)), UM_ERR_BACKEND);
    std::string msg = um_error_message(ctx);
    EXPECT_TRUE(has(msg, "loop 'broken'") && has(msg, "not_declared_here") && has(msg, "fix its source")) << msg;
    // called again (a notebook's next cell): the same error, not a call through no code at all
    EXPECT_EQ(UM_PAR_LOOP(ctx, *k, "broken", s, um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)), UM_ERR_BACKEND);
    EXPECT_TRUE(has(um_error_message(ctx), "its compile failed")) << um_error_message(ctx);
    // the source mended, declared under the same name, runs under the same loop name
    const um_kernel mended = {"broken", 1, nullptr,
                              "#include \"um/kernel.h\"\nUM_KERNEL void broken(double *y) { y[0] = 3.0; }\n",
                              "broken.h", nullptr};
    ASSERT_EQ(um_decl_kernel(ctx, &mended, &k), UM_SUCCESS);
    ASSERT_EQ(UM_PAR_LOOP(ctx, *k, "broken", s, um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)), UM_SUCCESS)
        << um_error_message(ctx);
    ASSERT_EQ(um_dat_fetch(ctx, y, out, sizeof out), UM_SUCCESS);
    for (int i = 0; i < 8; i++) EXPECT_EQ(out[i], 3.0);

    // a dat of another type than the kernel's parameter (float data, a double *): refused by the compile (the
    // default flags make the pointer mismatch an error), never run on bytes read as the wrong type
    float vf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    um_dat *xf;
    ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_FLOAT, vf, "xf", &xf), UM_SUCCESS);
    const um_kernel dbl = {"twice_d", 2, nullptr,
                           "#include \"um/kernel.h\"\nUM_KERNEL void twice_d(const double *x, double *y) { y[0] = 2.0 * x[0]; }\n",
                           "twice_d.h", nullptr};
    ASSERT_EQ(um_decl_kernel(ctx, &dbl, &k), UM_SUCCESS);
    EXPECT_EQ(UM_PAR_LOOP(ctx, *k, "twice_d", s, um_arg_dat(xf, -1, UM_ID, 1, UM_FLOAT, UM_READ),
                          um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)),
              UM_ERR_BACKEND);
    msg = um_error_message(ctx);
    EXPECT_TRUE(has(msg, "loop 'twice_d'") && has(msg, "incompatible")) << msg;

    std::vector<int> ring = {1, 2, 3, 4, 5, 6, 7, 0};
    um_map *m;
    ASSERT_EQ(um_decl_map(ctx, s, s, 1, ring.data(), "ring", &m), UM_SUCCESS);
    const um_kernel vec = {"gather", 2, nullptr,
                           "#include \"um/kernel.h\"\nUM_KERNEL void gather(const um_vec *a, double *y) { y[0] = UM_VEC_D(a, 0, 0); }\n",
                           "gather.h", nullptr};
    ASSERT_EQ(um_decl_kernel(ctx, &vec, &k), UM_SUCCESS);
    ASSERT_EQ(UM_PAR_LOOP(ctx, *k, "gather", s, um_arg_vec(x, m, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)),
              UM_SUCCESS)
        << um_error_message(ctx);  // a vector argument that only reads: compiled
    ASSERT_EQ(um_dat_fetch(ctx, y, out, sizeof out), UM_SUCCESS);
    for (int i = 0; i < 8; i++) EXPECT_EQ(out[i], v[ring[i]]);
    const um_kernel vinc = {"spread", 2, nullptr,
                            "#include \"um/kernel.h\"\nUM_KERNEL void spread(const double *x, const um_vec *a) { "
                            "um_vec_inc_d(a, 0, 0, x[0]); }\n",
                            "spread.h", nullptr};
    ASSERT_EQ(um_decl_kernel(ctx, &vinc, &k), UM_SUCCESS);
    ASSERT_EQ(UM_PAR_LOOP(ctx, *k, "spread", s, um_arg_dat(x, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_vec(y, m, 1, UM_DOUBLE, UM_INC)),
              UM_SUCCESS)
        << um_error_message(ctx);  // and one that increments
    ASSERT_EQ(um_dat_fetch(ctx, y, out, sizeof out), UM_SUCCESS);
    for (int i = 0; i < 8; i++) EXPECT_EQ(out[ring[i]], v[ring[ring[i]]] + v[i]) << i;  // y was x through the ring

    // a call that compiles but then fails (its reduction diverges), the kernel mended under the same name: the
    // next call runs the mended kernel, not the failed call's module
    const um_kernel nan = {"mean", 2, nullptr,
                           "#include \"um/kernel.h\"\nUM_KERNEL void mean(const double *x, double *g) { g[0] += x[0] / (x[0] - x[0]); }\n",
                           "mean.h", nullptr};
    double g = 0;
    ASSERT_EQ(um_decl_kernel(ctx, &nan, &k), UM_SUCCESS);
    EXPECT_EQ(UM_PAR_LOOP(ctx, *k, "mean", s, um_arg_dat(x, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_gbl(&g, 1, UM_DOUBLE, UM_INC)),
              UM_ERR_DIVERGED);
    const um_kernel mean = {"mean", 2, nullptr,
                            "#include \"um/kernel.h\"\nUM_KERNEL void mean(const double *x, double *g) { g[0] += x[0] / 8; }\n",
                            "mean.h", nullptr};
    ASSERT_EQ(um_decl_kernel(ctx, &mean, &k), UM_SUCCESS);
    g = 0;
    ASSERT_EQ(UM_PAR_LOOP(ctx, *k, "mean", s, um_arg_dat(x, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_gbl(&g, 1, UM_DOUBLE, UM_INC)),
              UM_SUCCESS)
        << um_error_message(ctx);
    EXPECT_EQ(g, 4.5);

    // the loop statistics reset after one call, the kernel mended under the same name: the next call runs the
    // mended kernel (the memo was keyed on the record's call count, which the reset set back)
    const um_kernel twice2 = {"apply", 2, nullptr,
                              "#include \"um/kernel.h\"\nUM_KERNEL void apply(const double *x, double *y) { y[0] = 2.0 * x[0]; }\n",
                              "apply.h", nullptr};
    const um_kernel thrice = {"apply", 2, nullptr,
                              "#include \"um/kernel.h\"\nUM_KERNEL void apply(const double *x, double *y) { y[0] = 3.0 * x[0]; }\n",
                              "apply.h", nullptr};
    for (const um_kernel *kk : {&twice2, &thrice}) {
      ASSERT_EQ(um_decl_kernel(ctx, kk, &k), UM_SUCCESS);
      ASSERT_EQ(UM_PAR_LOOP(ctx, *k, "apply", s, um_arg_dat(x, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                            um_arg_dat(y, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)),
                UM_SUCCESS)
          << um_error_message(ctx);
      ASSERT_EQ(um_dat_fetch(ctx, y, out, sizeof out), UM_SUCCESS);
      EXPECT_EQ(out[7], (kk == &thrice ? 3.0 : 2.0) * v[7]);
      um_loop_stats_reset(ctx);
    }
    um_finalize(&ctx);
  }
}

