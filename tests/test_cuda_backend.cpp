// The CUDA backend on a GPU (every test skips itself without one): every
// strategy x layout x block size gives seq's results on random data; Airfoil's
// loops match seq; every output element is written (poisoned outputs); data
// stays consistent across host updates, layout changes and constant changes;
// clear errors for block sizes that do not fit; vector arguments (um_arg_vec) give
// the same results as per-index arguments in every strategy; loops reaching one dat
// twice (directly and through a map, twice directly, through two maps) match seq.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "airfoil.h"
#include "um/cuda.h"
#include "um/exec.h"
#include "um/um.h"
}
#include "backend_matrix.hpp"
#include "test_cuda_workload.hpp"
#include "test_vec_workload.hpp"

namespace {

#define NEED_GPU()                                                                      \
  do {                                                                                  \
    if (!um_backend_available("cuda")) GTEST_SKIP() << "no GPU on this machine"; \
  } while (0)

// A cuda case of the backend matrix (tests/backend_matrix.hpp): strategy, cuda.staging (1 incremented data,
// 2 all indirect data, 3 none), layout, block size.
struct Case : bm::Case {
  Case(um_strategy s, int staging, um_layout l, int bs) : bm::Case{"cuda", s, staging, l, bs} {}
  explicit Case(const bm::Case &c) : bm::Case(c) {}
};

using bm::case_name;
using bm::expect_close;

um_options cuda_options(const Case &c) { return bm::case_options(c); }

// strategies x layouts x block sizes on cuda (bm::matrix).
std::vector<Case> cuda_matrix(std::vector<bm::Strategy> strategies, std::vector<um_layout> layouts,
                              std::vector<int> block_sizes) {
  std::vector<Case> v;
  for (const bm::Case &c : bm::matrix({"cuda"}, strategies, layouts, block_sizes)) v.emplace_back(c);
  return v;
}

// The test workload on seq: the reference the GPU runs are compared with.
void seq_reference(const tcw::Mesh &m, tcw::Result *ref) {
  bm::with_context(bm::case_options(bm::seq_case()), [&](um_context *ctx) { tcw::run_all(ctx, m, ref); });
}

// The test workload on o's backend (on cuda: checked to run on the GPU).
void run_workload(const tcw::Mesh &m, const um_options &o, tcw::Result *res) {
  bm::with_context(o, [&](um_context *ctx) {
    if (std::strcmp(o.backend, "cuda") == 0) {
      ASSERT_STREQ(um_context_backend(ctx), "cuda");
      EXPECT_EQ(um_context_on_host(ctx), 0);  // the kernels run on the GPU
    }
    tcw::run_all(ctx, m, res);
  });
}

// got against seq's ref: what every backend workload computes (bm::expect_matches_seq), then this workload's own
// outputs (direct INC s and acc, the float MIN fmin).
void compare_with_seq(const tcw::Mesh &m, const tcw::Result &got, const tcw::Result &ref) {
  bm::expect_matches_seq(got, ref);
  expect_close(got.s, ref.s, "direct INC s");
  expect_close(got.acc, ref.acc, "direct INC acc");
  EXPECT_EQ(got.fmin, ref.fmin);
  if (m.nnode > 1) EXPECT_NE(ref.mn, 1e30) << "the reductions did something";
}

class CudaMatchesSeq : public ::testing::TestWithParam<Case> {};

TEST_P(CudaMatchesSeq, RandomMeshes) {
  NEED_GPU();
  const Case cs = GetParam();
  const int shapes[][3] = {{1000, 3001, 777}, {4099, 20000, 3000}, {37, 200, 50}, {1, 1, 1}, {0, 0, 0}, {5, 0, 3}};
  for (auto &sh : shapes) {
    SCOPED_TRACE("nodes " + std::to_string(sh[0]) + " edges " + std::to_string(sh[1]));
    tcw::Mesh m = tcw::random_mesh(sh[0], sh[0] ? sh[1] : 0, sh[0] ? sh[2] : 0, 42u + (unsigned)sh[0]);
    bm::run_and_compare_with_seq<tcw::Result>(
        cs, [&](const um_options &o, tcw::Result *res) { run_workload(m, o, res); },
        [&](const tcw::Result &got, const tcw::Result &ref) { compare_with_seq(m, got, ref); });
    if (HasFatalFailure()) return;
  }
}

std::vector<Case> all_cases() {
  return cuda_matrix({{UM_STRATEGY_ATOMICS, 3}, {UM_STRATEGY_ATOMICS, 1}, {UM_STRATEGY_ATOMICS, 2}, {UM_STRATEGY_GLOBAL, 1},
                      {UM_STRATEGY_HIERARCHICAL, 1}, {UM_STRATEGY_HIERARCHICAL, 2}},
                     {UM_AOS, UM_SOA, UM_LAYOUT_AUTO}, {1, 7, 64, 256, 512, 1024});
}

INSTANTIATE_TEST_SUITE_P(All, CudaMatchesSeq, ::testing::ValuesIn(all_cases()),
                         [](const auto &info) { return case_name(info.param); });

// ---- cuda.warp_combine: increments paired by warp shuffles on grid meshes ------------------------------------
// Grids whose rows end inside a warp (37 cells), at a warp's end (64) and span many warps (300), numbered along
// rows (one level of pairs) or in strips two rows high (two levels, offsets 2 and 1, and an odd last row): atomics
// with pairs (block sizes that are whole warps) and without (7 threads, or the option off) give seq's results.
TEST(CudaWarpCombine, GridMeshesMatchSeq) {
  NEED_GPU();
  for (int nx : {37, 64, 300, -37, -300}) {  // negative: the cells numbered in strips two rows high
    SCOPED_TRACE("grid " + std::to_string(nx) + " x 7");
    tcw::Mesh m = umtest::grid_mesh(std::abs(nx), 7, 17u + (unsigned)std::abs(nx), nx < 0);
    tcw::Result ref;
    seq_reference(m, &ref);
    if (HasFatalFailure()) return;
    for (const char *combine : {"1", "2", "0"})
      for (um_layout l : {UM_AOS, UM_SOA})
        for (int bs : {7, 32, 64, 256, 1024}) {
          SCOPED_TRACE(std::string("warp_combine ") + combine + " " + um_layout_name(l) + " block " + std::to_string(bs));
          um_options o = cuda_options({UM_STRATEGY_ATOMICS, 3, l, bs});
          ASSERT_EQ(um_options_set_backend(&o, "cuda.warp_combine", combine), UM_SUCCESS);
          um_context *ctx = nullptr;
          ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
          tcw::Result got;
          tcw::run_all(ctx, m, &got);
          um_finalize(&ctx);
          if (HasFatalFailure()) return;
          expect_close(got.r, ref.r, "INC r (edges along rows: paired)");
          expect_close(got.n, ref.n, "INC n (cell corners: two pairs)");
          for (int i = 0; i < m.nnode; i++) ASSERT_NEAR(got.f[i], ref.f[i], 1e-5 * (1 + std::fabs(ref.f[i]))) << "f";
          expect_close(got.s, ref.s, "direct INC s");
          EXPECT_NEAR(got.esum, ref.esum, 1e-12 * (1 + std::fabs(ref.esum)));
          EXPECT_EQ(got.cnt, ref.cnt);
          EXPECT_EQ(got.qmax, ref.qmax);
        }
  }
}

// ---- run.split fused (variant B: the split inside each launch) --------------------------------
// Every strategy (fused runs hierarchical colouring whatever the strategy) x staging x layout x block size: the
// test workload with run.split=fused gives the unsplit loops' results (1e-12; floats 1e-5) on random meshes, and
// the loops that increment through maps say they ran fused.
class CudaFusedSplit : public ::testing::TestWithParam<Case> {};

TEST_P(CudaFusedSplit, MatchesTheUnsplitLoops) {
  NEED_GPU();
  const Case cs = GetParam();
  const int shapes[][3] = {{1000, 3001, 777}, {4099, 20000, 3000}, {37, 200, 50}, {1, 1, 1}, {0, 0, 0}};
  for (auto &sh : shapes) {
    SCOPED_TRACE("nodes " + std::to_string(sh[0]) + " edges " + std::to_string(sh[1]));
    tcw::Mesh m = tcw::random_mesh(sh[0], sh[0] ? sh[1] : 0, sh[0] ? sh[2] : 0, 7u + (unsigned)sh[0]);
    tcw::Result ref, got;
    for (int fused : {0, 1}) {
      um_options o = cuda_options(cs);
      um_context *ctx = nullptr;
      ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
      ASSERT_EQ(um_context_set_split(ctx, fused ? UM_SPLIT_FUSED : UM_SPLIT_OFF), UM_SUCCESS);
      tcw::run_all(ctx, m, fused ? &got : &ref);
      for (const char *l : {"tk_edge", "tk_cell"}) {
        for (int i = 0; i < um_loop_stats_count(ctx); i++) {
          um_loop_stats s;
          ASSERT_EQ(um_loop_stats_get(ctx, i, &s), UM_SUCCESS);
          if (std::string(s.name) == l) EXPECT_STREQ(s.split, fused ? "fused" : "off") << l << ": " << s.split_reason;
        }
      }
      um_finalize(&ctx);
      if (HasFatalFailure()) return;
    }
    expect_close(got.r, ref.r, "INC r (fused)");
    expect_close(got.n, ref.n, "INC n, arity 4 (fused)");
    expect_close(got.s, ref.s, "direct INC s");
    expect_close(got.v, ref.v, "indirect RW v (kept whole)");
    expect_close(got.vw, ref.vw, "indirect WRITE vw");
    expect_close(got.acc, ref.acc, "INC acc");
    for (int i = 0; i < m.nnode; i++) ASSERT_NEAR(got.f[i], ref.f[i], 1e-5 * (1 + std::fabs(ref.f[i]))) << "float INC";
    EXPECT_NEAR(got.esum, ref.esum, 1e-12 * (1 + std::fabs(ref.esum)));
    EXPECT_EQ(got.cnt, ref.cnt);
    EXPECT_EQ(got.qmax, ref.qmax);
    EXPECT_EQ(got.fmin, ref.fmin);
  }
}

std::vector<Case> fused_cases() {
  return cuda_matrix({{UM_STRATEGY_ATOMICS, 3}, {UM_STRATEGY_GLOBAL, 1}, {UM_STRATEGY_HIERARCHICAL, 1},
                      {UM_STRATEGY_HIERARCHICAL, 2}},
                     {UM_AOS, UM_SOA}, {7, 64, 256});
}

INSTANTIATE_TEST_SUITE_P(All, CudaFusedSplit, ::testing::ValuesIn(fused_cases()),
                         [](const auto &info) { return case_name(info.param); });

// ---- vector arguments: every target of a map row as one um_vec -------------------------------
// Every strategy (atomics: atomicAdd through um_vec_inc_*; global and hierarchical colouring: plain
// adds, the colours including every target of the row) x layout: the vector loops equal the same loops
// written with one argument per map index, and the serial reference (the values are small integers, so
// every order of the sums gives the same bits).
class CudaVecArgs : public ::testing::TestWithParam<Case> {};

TEST_P(CudaVecArgs, MatchPerIndexArgsAndTheSerialReference) {
  NEED_GPU();
  const Case c = GetParam();
  const um_options o = cuda_options(c);
  for (int arity : {3, 60}) {
    const tvw::Mesh m = tvw::make(3000, arity, 40 + arity);
    um_context *x = nullptr;  // each arity in a context of its own (the names repeat)
    ASSERT_EQ(um_init(&x, &o), UM_SUCCESS) << um_error_message(x);
    tvw::Decl D = tvw::declare(x, m);
    EXPECT_EQ(tvw::sum(x, D, m, true, c.layout, "v"), tvw::sum_reference(m)) << "vector READ, arity " << arity;
    EXPECT_EQ(tvw::scatter(x, D, m, true, c.layout, "v"), tvw::scatter_reference(m)) << "vector INC, arity " << arity;
    if (arity == 3) {
      EXPECT_EQ(tvw::sum(x, D, m, false, c.layout, "p"), tvw::sum_reference(m));
      EXPECT_EQ(tvw::scatter(x, D, m, false, c.layout, "p"), tvw::scatter_reference(m));
      std::vector<int> cv, cp;
      std::vector<float> hv, hp;
      tvw::count(x, D, m, true, "v", &cv, &hv);
      tvw::count(x, D, m, false, "p", &cp, &hp);
      EXPECT_EQ(cv, cp) << "int increments through um_vec_inc_i";
      EXPECT_EQ(hv, hp) << "float increments through um_vec_inc_f";
      EXPECT_EQ(tvw::mixed(x, D, m, true, c.layout, "v"), tvw::mixed(x, D, m, false, c.layout, "p"));
      // whole-dat arguments (um_arg_whole): READ, and INC (atomics whatever the strategy), twice
      const tvw::Whole w = tvw::make_whole(m, 37, 5);
      EXPECT_EQ(tvw::gather_whole(x, D.cells, m, w, c.layout, "w"), tvw::gather_whole_reference(m, w));
      EXPECT_EQ(tvw::scatter_whole(x, D.cells, m, w, c.layout, "w", 2), tvw::scatter_whole_reference(m, w, 2));
    }
    um_finalize(&x);
  }
}

std::vector<Case> vec_cases() {
  return cuda_matrix({{UM_STRATEGY_ATOMICS, 3}, {UM_STRATEGY_ATOMICS, 1}, {UM_STRATEGY_GLOBAL, 1},
                      {UM_STRATEGY_HIERARCHICAL, 1}, {UM_STRATEGY_HIERARCHICAL, 2}},
                     {UM_AOS, UM_SOA}, {64, 256});
}

INSTANTIATE_TEST_SUITE_P(All, CudaVecArgs, ::testing::ValuesIn(vec_cases()),
                         [](const auto &info) { return case_name(info.param); });

// ---- Airfoil ------------------------------------------------------------------------------

struct AirfoilRun {
  um_context *ctx = nullptr;
  airfoil a{};
  airfoil_mesh m{};
  AirfoilRun(const um_options &o, int I, int J) {
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    char err[256];
    EXPECT_EQ(airfoil_mesh_generate(I, J, 1, &m, err, sizeof err), 0) << err;
    EXPECT_EQ(airfoil_set_constants(ctx), UM_SUCCESS);
    EXPECT_EQ(airfoil_decl_mesh(ctx, &m, &a), UM_SUCCESS) << um_error_message(ctx);
    EXPECT_EQ(airfoil_decl_flow(ctx, &a), UM_SUCCESS) << um_error_message(ctx);
  }
  ~AirfoilRun() {
    airfoil_mesh_free(&m);
    um_finalize(&ctx);
  }
  std::vector<double> get(um_dat *d) {
    std::vector<double> v((size_t)um_set_size(um_dat_set(d)) * um_dat_dim(d));
    EXPECT_EQ(um_dat_fetch(ctx, d, v.data(), v.size() * sizeof(double)), UM_SUCCESS) << um_error_message(ctx);
    return v;
  }
  std::vector<double> run(int iters) {
    std::vector<double> rms;
    for (int i = 0; i < iters; i++) {
      double r = 0;
      EXPECT_EQ(airfoil_iteration(ctx, &a, &r), UM_SUCCESS) << um_error_message(ctx);
      rms.push_back(r);
    }
    return rms;
  }
};

class CudaAirfoil : public ::testing::TestWithParam<Case> {};

TEST_P(CudaAirfoil, MatchesSeq) {
  NEED_GPU();
  const Case cs = GetParam();
  um_options so;
  um_options_default(&so);
  so.backend = "seq";
  AirfoilRun ref(so, 60, 40);
  AirfoilRun got(cuda_options(cs), 60, 40);
  std::vector<double> r1 = ref.run(5), r2 = got.run(5);
  for (size_t i = 0; i < r1.size(); i++) EXPECT_NEAR(r2[i], r1[i], 1e-10 * r1[i]) << "rms of iteration " << i + 1;
  expect_close(got.get(got.a.p_q), ref.get(ref.a.p_q), "q", 1e-11);
  expect_close(got.get(got.a.p_adt), ref.get(ref.a.p_adt), "adt", 1e-11);
  expect_close(got.get(got.a.p_qold), ref.get(ref.a.p_qold), "qold", 1e-11);
}

// Airfoil's fused step (params.fused: update + adt_calc, update + save_soln + adt_calc) or its cells scheme
// (params.scheme=cells: each cell gathers its sides' fluxes, no increments; iteration 2's rms unread) on the GPU
// against the five loops on seq: the same arithmetic; atomics change only the order of sums, and the GPU's
// contracted multiply-adds the last bits.
static void step_matches_seq(const Case &c, bool cells) {
  um_options so;
  um_options_default(&so);
  so.backend = "seq";
  AirfoilRun ref(so, 60, 40), got(cuda_options(c), 60, 40);
  std::vector<double> r1 = ref.run(5);
  if (cells) ASSERT_EQ(airfoil_decl_cells(got.ctx, &got.a), UM_SUCCESS) << um_error_message(got.ctx);
  for (int i = 1; i <= 5; i++) {
    double r = 0;
    got.a.rms_unread = cells && i == 2;
    ASSERT_EQ(cells ? airfoil_step_cells(got.ctx, &got.a, i == 5) : airfoil_step_fused(got.ctx, &got.a, i == 5),
              UM_SUCCESS)
        << um_error_message(got.ctx);
    if (got.a.rms_unread) continue;
    ASSERT_EQ(airfoil_rms(got.ctx, &got.a, &r), UM_SUCCESS) << um_error_message(got.ctx);
    EXPECT_NEAR(r, r1[(size_t)i - 1], 1e-10 * r1[(size_t)i - 1]) << "rms of iteration " << i;
  }
  expect_close(got.get(got.a.p_q), ref.get(ref.a.p_q), "q", 1e-11);
  expect_close(got.get(got.a.p_adt), ref.get(ref.a.p_adt), "adt", 1e-11);
  if (!cells) expect_close(got.get(got.a.p_qold), ref.get(ref.a.p_qold), "qold", 1e-11);
}

TEST_P(CudaAirfoil, FusedStepMatchesSeq) {
  NEED_GPU();
  step_matches_seq(GetParam(), false);
}

TEST_P(CudaAirfoil, CellsSchemeMatchesSeq) {
  NEED_GPU();
  step_matches_seq(GetParam(), true);
}

// The backend fills in the theoretical occupancy of each loop's kernel (from the
// CUDA occupancy calculator): a fraction in (0, 1] for Airfoil's res_calc.
TEST(CudaOccupancy, AirfoilResCalcHasTheoreticalOccupancy) {
  NEED_GPU();
  for (um_strategy st : {UM_STRATEGY_GLOBAL, UM_STRATEGY_HIERARCHICAL}) {
    AirfoilRun got(cuda_options({st, 1, UM_SOA, 128}), 60, 40);
    got.run(1);
    int found = 0;
    for (int i = 0; i < um_loop_stats_count(got.ctx); i++) {
      um_loop_stats s;
      ASSERT_EQ(um_loop_stats_get(got.ctx, i, &s), UM_SUCCESS);
      if (std::string(s.name) != "res_calc") continue;
      found = 1;
      double occ = 0;
      ASSERT_TRUE(um_loop_stats_counter(&s, "occupancy", &occ)) << "the cuda backend counts occupancy";
      EXPECT_GT(occ, 0.0) << um_strategy_name(st);
      EXPECT_LE(occ, 1.0) << um_strategy_name(st);
      std::printf("res_calc %s: theoretical occupancy %.3f\n", um_strategy_name(st), occ);
    }
    EXPECT_TRUE(found);
  }
}

std::vector<Case> airfoil_cases() {
  return cuda_matrix({{UM_STRATEGY_ATOMICS, 3}, {UM_STRATEGY_ATOMICS, 1}, {UM_STRATEGY_GLOBAL, 1},
                      {UM_STRATEGY_HIERARCHICAL, 1}, {UM_STRATEGY_HIERARCHICAL, 2}},
                     {UM_AOS, UM_SOA, UM_LAYOUT_AUTO}, {128});
}

INSTANTIATE_TEST_SUITE_P(All, CudaAirfoil, ::testing::ValuesIn(airfoil_cases()),
                         [](const auto &info) { return case_name(info.param); });

// Airfoil with run.split=fused against seq: the residuals and the flow (res_calc and bres_calc fused).
TEST(CudaFusedSplit, AirfoilMatchesSeq) {
  NEED_GPU();
  um_options so;
  um_options_default(&so);
  so.backend = "seq";
  for (um_layout l : {UM_AOS, UM_SOA}) {
    SCOPED_TRACE(um_layout_name(l));
    AirfoilRun ref(so, 60, 40);
    AirfoilRun got(cuda_options({UM_STRATEGY_HIERARCHICAL, 1, l, 128}), 60, 40);
    ASSERT_EQ(um_context_set_split(got.ctx, UM_SPLIT_FUSED), UM_SUCCESS);
    std::vector<double> r1 = ref.run(5), r2 = got.run(5);
    for (size_t i = 0; i < r1.size(); i++) EXPECT_NEAR(r2[i], r1[i], 1e-10 * r1[i]) << "rms of iteration " << i + 1;
    expect_close(got.get(got.a.p_q), ref.get(ref.a.p_q), "q", 1e-11);
    for (int i = 0; i < um_loop_stats_count(got.ctx); i++) {
      um_loop_stats s;
      ASSERT_EQ(um_loop_stats_get(got.ctx, i, &s), UM_SUCCESS);
      const std::string n = s.name;
      if (n == "res_calc" || n == "bres_calc") EXPECT_STREQ(s.split, "fused") << n << ": " << s.split_reason;
    }
  }
}

// Every element a loop WRITEs directly is written: the backend fills such dats
// with NaN before each loop (UM_CUDA_POISON), and the residuals stay finite.
TEST(CudaPoison, EveryOutputElementIsWritten) {
  NEED_GPU();
  setenv("UM_CUDA_POISON", "1", 1);
  for (auto sv : {std::make_pair(UM_STRATEGY_ATOMICS, 3), std::make_pair(UM_STRATEGY_ATOMICS, 1),
                  std::make_pair(UM_STRATEGY_GLOBAL, 1), std::make_pair(UM_STRATEGY_HIERARCHICAL, 1)}) {
    const um_strategy s = sv.first;
    AirfoilRun run(cuda_options({s, sv.second, UM_SOA, 96}), 30, 20);
    std::vector<double> rms = run.run(3);
    for (double r : rms) EXPECT_TRUE(std::isfinite(r) && r > 0) << um_strategy_name(s) << ": rms " << r;
    for (um_dat *d : {run.a.p_q, run.a.p_qold, run.a.p_adt, run.a.p_res})
      for (double x : run.get(d)) ASSERT_TRUE(std::isfinite(x)) << um_dat_name(d) << " holds poison";
  }
  unsetenv("UM_CUDA_POISON");
}

// ---- data on the device ---------------------------------------------------------------------

TEST(CudaData, HostUpdatesLayoutChangesAndConstants) {
  NEED_GPU();
  tcw::Mesh m = tcw::random_mesh(300, 900, 200, 5);
  um_options so;
  um_options_default(&so);
  so.backend = "seq";
  for (um_options o : {so, cuda_options({UM_STRATEGY_HIERARCHICAL, 1, UM_AOS, 64})}) {
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    tcw::Result r0;
    tcw::run_all(ctx, m, &r0);
    um_dat *u = um_find_dat(ctx, "u"), *r = um_find_dat(ctx, "r"), *w = um_find_dat(ctx, "w"),
           *f = um_find_dat(ctx, "f");
    um_map *pedge = um_find_map(ctx, "pedge");
    um_set *edges = um_find_set(ctx, "edges");
    // the host writes u, r is turned to SoA after living on the GPU, the constant changes
    std::vector<double> u2(m.u.size());
    for (size_t i = 0; i < u2.size(); i++) u2[i] = 2.0 * m.u[i] - 0.5;
    ASSERT_EQ(um_dat_update(ctx, u, u2.data(), u2.size() * sizeof(double)), UM_SUCCESS);
    ASSERT_EQ(um_dat_set_layout(ctx, r, UM_SOA), UM_SUCCESS) << um_error_message(ctx);
    tk_scale = -3.0;
    ASSERT_EQ(um_decl_const(ctx, "tk_scale", 1, UM_DOUBLE, &tk_scale), UM_SUCCESS) << um_error_message(ctx);
    double esum = 0, g[2] = {1.0, 1.0};
    int cnt = 0;
    ASSERT_EQ(UM_PAR_LOOP(ctx, tk_edge_kernel, "tk_edge", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(u, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, pedge, 2, UM_DOUBLE, UM_READ),
                          um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                          um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC), um_arg_gbl(&esum, 1, UM_DOUBLE, UM_INC),
                          um_arg_gbl(&cnt, 1, UM_INT, UM_INC), um_arg_gbl(g, 2, UM_DOUBLE, UM_READ)),
              UM_SUCCESS)
        << um_error_message(ctx);
    std::vector<double> rr(2 * (size_t)m.nnode);
    ASSERT_EQ(um_dat_fetch(ctx, r, rr.data(), rr.size() * sizeof(double)), UM_SUCCESS);
    // expected: r0.r plus one more pass of the edge loop with the new u
    std::vector<double> want = r0.r;
    for (int e = 0; e < m.nedge; e++)
      for (int i = 0; i < 2; i++) {
        int a = m.edge[2 * e], b = m.edge[2 * e + 1];
        double d = m.w[e] * (u2[2 * b + i] - u2[2 * a + i]);
        want[2 * a + i] += d;
        want[2 * b + i] -= d;
      }
    expect_close(rr, want, "r after a host update and a layout change", 1e-11);
    double sum[2] = {0, 0}, mn = 1e30, mx = -1e30;
    int isum = 0;
    um_set *nodes = um_find_set(ctx, "nodes");
    ASSERT_EQ(UM_PAR_LOOP(ctx, tk_direct_kernel, "tk_direct", nodes,
                          um_arg_dat(um_find_dat(ctx, "a"), -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                          um_arg_dat(um_find_dat(ctx, "b"), -1, UM_ID, 3, UM_DOUBLE, UM_WRITE),
                          um_arg_dat(um_find_dat(ctx, "c"), -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                          um_arg_dat(um_find_dat(ctx, "k"), -1, UM_ID, 1, UM_INT, UM_READ),
                          um_arg_dat(um_find_dat(ctx, "s"), -1, UM_ID, 2, UM_DOUBLE, UM_INC),
                          um_arg_gbl(sum, 2, UM_DOUBLE, UM_INC), um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN),
                          um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&isum, 1, UM_INT, UM_INC)),
              UM_SUCCESS)
        << um_error_message(ctx);
    std::vector<double> s(2 * (size_t)m.nnode);
    ASSERT_EQ(um_dat_fetch(ctx, um_find_dat(ctx, "s"), s.data(), s.size() * sizeof(double)), UM_SUCCESS);
    for (int i = 0; i < m.nnode; i++)  // s = v + a0 + 1.5 a1 (first pass) + a0 - 3 a1 (constant changed)
      ASSERT_NEAR(s[2 * i + 1], m.v[2 * i + 1] + 1.5 * m.a[3 * i + 1] - 3.0 * m.a[3 * i + 1], 1e-12)
          << "the kernel saw the new constant (" << o.backend << ")";
    um_finalize(&ctx);
  }
}

// Dats and maps of 16 MB or more, once a run has copied 64 MB, go to the GPU through pinned staging buffers filled
// by several host threads (cuda.upload_threads): the same results, bit for bit, as plain copies (global colouring:
// the same order of increments), chunk boundaries falling inside rows (odd sizes), and some bytes were staged.
TEST(CudaData, LargeUploadsThroughPinnedStagingGiveTheSameBits) {
  NEED_GPU();
  tcw::Mesh m = tcw::random_mesh(1500001, 2500003, 700001, 11);
  tcw::Result res[2];
  double staged[2] = {0, 0};
  for (int t = 0; t < 2; t++) {
    um_options o = cuda_options({UM_STRATEGY_GLOBAL, 3, UM_AOS, 256});
    o.check_plans = 0;
    ASSERT_EQ(um_options_set_backend(&o, "cuda.upload_threads", t ? "3" : "0"), UM_SUCCESS);
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    tcw::run_all(ctx, m, &res[t], 1);
    um_loop_stats st;
    double v;
    for (int i = 0; i < um_loop_stats_count(ctx); i++)
      if (um_loop_stats_get(ctx, i, &st) == UM_SUCCESS && um_loop_stats_counter(&st, "upload_staged_bytes", &v))
        staged[t] += v;
    um_finalize(&ctx);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(staged[0], 0) << "cuda.upload_threads=0 copies the plain way";
  EXPECT_GT(staged[1], 32e6) << "large dats and maps went through the staging buffers";
  tcw::expect_same(res[1], res[0]);
}

// um_prefetch (run.prefetch): every dat and map on the GPU before the first loop, the same results bit for bit as
// copying at each loop's first call; the loops then copy nothing but the dat the host changed in between.
TEST(CudaData, PrefetchCopiesEveryDatAndMapBeforeTheLoops) {
  NEED_GPU();
  tcw::Mesh m = tcw::random_mesh(20011, 60013, 9001, 5);
  tcw::Result res[2];
  double up[2][6] = {{0}};
  const std::vector<std::string> names = tcw::loop_names();
  for (int t = 0; t < 2; t++) {
    um_options o = cuda_options({UM_STRATEGY_GLOBAL, 3, UM_AOS, 256}); // a fixed order of increments
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    tcw::run_all(ctx, m, &res[t], 2, t == 1);
    um_loop_stats st;
    for (int i = 0; i < um_loop_stats_count(ctx); i++) {
      ASSERT_EQ(um_loop_stats_get(ctx, i, &st), UM_SUCCESS);
      for (size_t j = 0; j < names.size(); j++)
        if (names[j] == st.name) EXPECT_TRUE(um_loop_stats_counter(&st, "upload_bytes", &up[t][j])) << st.name;
    }
    um_finalize(&ctx);
    if (HasFatalFailure()) return;
  }
  // per node 25 doubles, an int and a float, and pperm's row; per edge w, acc and pedge; per cell q and pcell
  const double want = 212.0 * m.nnode + 32.0 * m.nedge + 40.0 * m.ncell;
  EXPECT_EQ(res[1].prefetched, want) << "every dat and map, each once";
  EXPECT_EQ(res[0].prefetched, -1);
  double before = 0;
  for (int j = 0; j < 6; j++) before += up[0][j];
  EXPECT_GT(before, 0.5 * want) << "without it, the loops copy their data";
  EXPECT_EQ(up[1][0], 16.0 * m.nnode) << "tk_direct copies c again, changed on the host after the prefetch";
  for (int j = 1; j < 6; j++) EXPECT_EQ(up[1][j], 0) << names[j] << " found its data on the GPU";
  tcw::expect_same(res[1], res[0]);
}

TEST(CudaErrors, BlockSizesThatDoNotFit) {
  NEED_GPU();
  tcw::Mesh m = tcw::random_mesh(2000, 6000, 100, 3);
  {
    um_options o = cuda_options({UM_STRATEGY_HIERARCHICAL, 1, UM_AOS, 2048});
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    um_set *nodes, *edges;
    um_map *pedge;
    um_dat *x;
    ASSERT_EQ(um_decl_set(ctx, m.nnode, "nodes", &nodes), UM_SUCCESS);
    ASSERT_EQ(um_decl_set(ctx, m.nedge, "edges", &edges), UM_SUCCESS);
    ASSERT_EQ(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.x.data(), "x", &x), UM_SUCCESS);
    um_dat *acc;
    ASSERT_EQ(um_decl_dat(ctx, edges, 2, UM_DOUBLE, nullptr, "acc", &acc), UM_SUCCESS);
    um_dat *k;
    ASSERT_EQ(um_decl_dat(ctx, nodes, 1, UM_INT, m.k.data(), "k", &k), UM_SUCCESS);
    um_dat *r;
    ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, nullptr, "r", &r), UM_SUCCESS);
    double g[2] = {1, 1}, es = 0;
    int cnt = 0;
    um_dat *w, *f;
    ASSERT_EQ(um_decl_dat(ctx, edges, 1, UM_DOUBLE, m.w.data(), "w", &w), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f), UM_SUCCESS);
    int rc = UM_PAR_LOOP(ctx, tk_edge_kernel, "tk_edge", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                         um_arg_dat(x, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(x, 1, pedge, 2, UM_DOUBLE, UM_READ),
                         um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                         um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC), um_arg_gbl(&es, 1, UM_DOUBLE, UM_INC),
                         um_arg_gbl(&cnt, 1, UM_INT, UM_INC), um_arg_gbl(g, 2, UM_DOUBLE, UM_READ));
    EXPECT_EQ(rc, UM_ERR_ARG);
    EXPECT_NE(std::string(um_error_message(ctx)).find("at most 1024"), std::string::npos) << um_error_message(ctx);
    um_finalize(&ctx);
  }
  {
    // staging all data of a wide dat: a 1024-element block needs more shared memory than any GPU has
    um_options o = cuda_options({UM_STRATEGY_HIERARCHICAL, 2, UM_AOS, 1024});
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    um_set *nodes, *edges;
    um_map *pedge;
    ASSERT_EQ(um_decl_set(ctx, m.nnode, "nodes", &nodes), UM_SUCCESS);
    ASSERT_EQ(um_decl_set(ctx, m.nedge, "edges", &edges), UM_SUCCESS);
    ASSERT_EQ(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge), UM_SUCCESS);
    // tk_indirect_rw on a dim-2 dat uses little; use a dim-64 version through tk_gather's shape instead:
    std::vector<double> wide(64 * (size_t)m.nnode, 1.0);
    um_dat *big, *k, *acc;
    ASSERT_EQ(um_decl_dat(ctx, nodes, 64, UM_DOUBLE, wide.data(), "big", &big), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 1, UM_INT, m.k.data(), "k", &k), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, edges, 2, UM_DOUBLE, nullptr, "acc", &acc), UM_SUCCESS);
    int rc = UM_PAR_LOOP(ctx, tk_gather_kernel, "wide_gather", edges, um_arg_dat(big, 0, pedge, 64, UM_DOUBLE, UM_READ),
                         um_arg_dat(big, 1, pedge, 64, UM_DOUBLE, UM_READ), um_arg_dat(k, 0, pedge, 1, UM_INT, UM_READ),
                         um_arg_dat(acc, -1, UM_ID, 2, UM_DOUBLE, UM_INC));
    EXPECT_EQ(rc, UM_ERR_UNSUPPORTED);
    std::string msg = um_error_message(ctx);
    EXPECT_NE(msg.find("wide_gather"), std::string::npos) << msg;
    EXPECT_NE(msg.find("bytes of shared memory"), std::string::npos) << msg;
    um_finalize(&ctx);
  }
}

// Issue 15, fault 5: NaN propagates through MIN / MAX / INC on the GPU as on
// the host backends (blocks, warps and the final um_reduce), wherever it is.
TEST(CudaReductions, PropagateNaNLikeTheHostBackends) {
  NEED_GPU();
  for (int nan_at : {-1, 0, 54321, 99999}) {
    um_options o = cuda_options({UM_STRATEGY_AUTO, 0, UM_AOS, 256});
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    const int n = 100000;
    std::vector<double> a(n);
    for (int i = 0; i < n; i++) a[i] = (double)((i * 7919) % n) - 5000.0;
    if (nan_at >= 0) a[nan_at] = NAN;
    um_set *s;
    um_dat *d;
    ASSERT_EQ(um_decl_set(ctx, n, "s", &s), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, a.data(), "a", &d), UM_SUCCESS);
    double mn = 1e300, mx = -1e300, sum = 0;
    float fmx = -1e30f;
    int rc = UM_PAR_LOOP(ctx, tk_nan_minmax_kernel, "tk_nan_minmax", s, um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                         um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX),
                         um_arg_gbl(&sum, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&fmx, 1, UM_FLOAT, UM_MAX));
    if (rc == UM_SUCCESS) rc = um_sync(ctx);
    if (nan_at < 0) {
      EXPECT_EQ(rc, UM_SUCCESS) << um_error_message(ctx);
      EXPECT_EQ(mn, -5000.0);
      EXPECT_EQ(mx, 100000.0 - 5001.0);
    } else {
      EXPECT_EQ(rc, UM_ERR_DIVERGED) << "NaN at " << nan_at << ": " << um_error_message(ctx);
      EXPECT_TRUE(std::isnan(mn)) << "NaN at " << nan_at << ": min " << mn;
      EXPECT_TRUE(std::isnan(mx)) << "NaN at " << nan_at << ": max " << mx;
      EXPECT_TRUE(std::isnan(fmx)) << "NaN at " << nan_at << ": float max " << fmx;
      EXPECT_TRUE(std::isnan(sum)) << "NaN at " << nan_at << ": sum " << sum;
    }
    um_finalize(&ctx);
  }
}

// MIN and MAX reductions combine the CUDA blocks by atomics on ordered keys (codegen.c, um_atomic_red): the
// results equal seq's bit for bit for double (rows of 3 and 20), float and int, negative values included, over
// several block sizes; the user's starting value takes part; a second call starts afresh (um_reduce reset the
// row), and so does a call where the user's value wins. Signed zeros: the GPU's min is -0.0 and its max 0.0
// whatever the blocks' order (seq keeps the first zero it meets: not compared there).
TEST(CudaReductions, MinMaxAtomicsGiveTheHostsResults) {
  NEED_GPU();
  struct R {
    double dmn[3], dmx[3];
    float fmn, fmx;
    int imn, imx;
    double wmx[20];
  };
  auto run = [](const char *backend, int bs, const std::vector<double> &a, R r0) {
    um_options o;
    um_options_default(&o);
    o.backend = backend;
    o.block_size = bs;
    um_context *ctx = nullptr;
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    um_set *s;
    um_dat *d;
    EXPECT_EQ(um_decl_set(ctx, (int)a.size(), "s", &s), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, a.data(), "a", &d), UM_SUCCESS);
    std::vector<R> out;
    for (int call = 0; call < 3; call++) {
      R r = r0;
      if (call == 2) r.dmn[0] = -1e300, r.imx = 1 << 30;  // the user's values win
      EXPECT_EQ(UM_PAR_LOOP(ctx, tk_minmax_types_kernel, "tk_minmax_types", s,
                            um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_READ), um_arg_gbl(r.dmn, 3, UM_DOUBLE, UM_MIN),
                            um_arg_gbl(r.dmx, 3, UM_DOUBLE, UM_MAX), um_arg_gbl(&r.fmn, 1, UM_FLOAT, UM_MIN),
                            um_arg_gbl(&r.fmx, 1, UM_FLOAT, UM_MAX), um_arg_gbl(&r.imn, 1, UM_INT, UM_MIN),
                            um_arg_gbl(&r.imx, 1, UM_INT, UM_MAX), um_arg_gbl(r.wmx, 20, UM_DOUBLE, UM_MAX)),
                UM_SUCCESS)
          << um_error_message(ctx);
      out.push_back(r);
      if (call == 0) {  // the next call's data: all above the first call's minimum
        std::vector<double> b(a.size());
        for (size_t i = 0; i < a.size(); i++) b[i] = a[i] + 1000.0;
        EXPECT_EQ(um_dat_update(ctx, d, b.data(), b.size() * sizeof(double)), UM_SUCCESS);
      }
    }
    um_finalize(&ctx);
    return out;
  };
  const int n = 150000;
  std::vector<double> a(n);
  for (int i = 0; i < n; i++) a[i] = (double)((i * 7919) % n - n / 2) * 0.37;
  R r0;
  for (int c = 0; c < 3; c++) r0.dmn[c] = 1e300, r0.dmx[c] = -1e300;
  r0.fmn = 1e30f, r0.fmx = -1e30f, r0.imn = 1 << 30, r0.imx = -(1 << 30);
  for (double &w : r0.wmx) w = -1e300;
  const std::vector<R> want = run("seq", 64, a, r0);
  ASSERT_EQ(want.size(), 3u);
  EXPECT_EQ(want[1].dmn[0], want[0].dmn[0] + 1000.0) << "the second call's data moved up";
  for (int bs : {32, 96, 256, 1024}) {
    const std::vector<R> got = run("cuda", bs, a, r0);
    ASSERT_EQ(got.size(), 3u);
    for (int call = 0; call < 3; call++) {
      SCOPED_TRACE("block " + std::to_string(bs) + " call " + std::to_string(call));
      const R &g = got[call], &w = want[call];
      for (int c = 0; c < 2; c++) {
        EXPECT_EQ(g.dmn[c], w.dmn[c]);
        EXPECT_EQ(g.dmx[c], w.dmx[c]);
      }
      EXPECT_EQ(g.dmn[2], 0.0);
      EXPECT_TRUE(std::signbit(g.dmn[2])) << "min of -0.0 and 0.0 is -0.0";
      EXPECT_EQ(g.dmx[2], 0.0);
      EXPECT_FALSE(std::signbit(g.dmx[2])) << "max of -0.0 and 0.0 is 0.0";
      EXPECT_EQ(g.fmn, w.fmn);
      EXPECT_EQ(g.fmx, w.fmx);
      EXPECT_EQ(g.imn, w.imn);
      EXPECT_EQ(g.imx, w.imx);
      for (int c = 0; c < 20; c++) EXPECT_EQ(g.wmx[c], w.wmx[c]) << "component " << c;
    }
  }
  EXPECT_EQ(want[2].dmn[0], -1e300);
  EXPECT_EQ(want[2].imx, 1 << 30);
}

TEST(CudaDevice, DescribesTheGpuAndMeasuresCopyBandwidth) {
  NEED_GPU();
  um_options o = cuda_options({UM_STRATEGY_AUTO, 0, UM_AOS, 256});
  ASSERT_EQ(um_options_set_backend(&o, "cuda.profile", "p100"), UM_SUCCESS);
  std::string err;
  o.log = [](void *user, um_log_level, const char *m) { *(std::string *)user += m; };
  o.log_user = &err;
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  std::string d = um_cuda_device(ctx);
  EXPECT_NE(d.find("sm_"), std::string::npos) << d;
  EXPECT_NE(d.find("profile p100"), std::string::npos) << d;
  EXPECT_NE(err.find("warning"), std::string::npos) << "a P100 profile on a newer GPU warns: " << err;
  double gbs = 0;
  ASSERT_EQ(um_cuda_copy_bandwidth(ctx, &gbs), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_GT(gbs, 10.0);
  RecordProperty("copy_gbs", std::to_string(gbs));
  std::printf("device: %s\ndevice-to-device copy: %.0f GB/s\n", d.c_str(), gbs);
  um_finalize(&ctx);
}

// Per-loop tuning on the GPU (run.tune, tune.c): the trials run on device copies of the loop's outputs and
// restore them, so a tuned run matches seq to round-off (INC applied once a call, counts exact) whatever was
// tried; in reproducible mode (no atomics order) the tuned run and an untuned one given its choices per loop
// give the same bits. The knobs the GPU has are listed: several strategies, block sizes and split variants.
um_context *tune_ctx(int reproducible, um_tune t) {
  um_options o;
  um_options_default(&o);
  o.backend = "cuda";
  o.block_size = 128;
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  if (ctx) EXPECT_EQ(um_context_set_reproducible(ctx, reproducible), UM_SUCCESS);
  if (ctx) EXPECT_EQ(um_context_set_tune(ctx, t), UM_SUCCESS);
  return ctx;
}

TEST(CudaTune, TrialsChangeNoResultAndReproducibleChoicesReplayBitForBit) {
  NEED_GPU();
  const tcw::Mesh m = tcw::random_mesh(3000, 9000, 2000, 17u);
  tcw::Result ref, got, repro, replay;
  {
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    tcw::run_all(ctx, m, &ref, 3);
    um_finalize(&ctx);
  }
  um_context *ctx = tune_ctx(0, UM_TUNE_ALWAYS);
  ASSERT_NE(ctx, nullptr);
  tcw::run_all(ctx, m, &got, 3);
  um_tune_info e;
  int edge = -1;
  um_loop_stats st;
  for (int i = 0; i < um_loop_stats_count(ctx); i++)
    if (um_loop_stats_get(ctx, i, &st) == UM_SUCCESS && !strcmp(st.name, "tk_edge")) edge = i;
  ASSERT_GE(edge, 0);
  ASSERT_EQ(um_loop_tune_info(ctx, edge, &e), 1);
  EXPECT_EQ(e.state, 1) << e.note;
  EXPECT_GE(e.ntrials, 9) << "strategies x block sizes, then split variants: " << e.note;
  bool fused = false, gather = false;
  for (int k = 0; k < e.ntrials; k++) {
    fused |= e.trial[k].split == UM_SPLIT_FUSED;
    gather |= e.trial[k].split == UM_SPLIT_GATHER;
    EXPECT_TRUE(e.trial[k].seconds > 0 || e.trial[k].note[0]) << k;
  }
  EXPECT_TRUE(fused && gather) << "both split variants tried";
  ASSERT_GE(e.ntrials, 2);
  EXPECT_EQ(e.trial[e.ntrials - 2].variant, 1) << "the kernel variants (one, two more blocks per SM) tried last";
  EXPECT_EQ(e.trial[e.ntrials - 1].variant, 2);
  ASSERT_EQ(um_loop_stats_get(ctx, edge, &st), UM_SUCCESS);
  EXPECT_EQ(st.calls, 3) << "trials are not calls";
  double regs = 0;
  EXPECT_TRUE(um_loop_stats_counter(&st, "registers", &regs));
  EXPECT_GT(regs, 0) << "registers per thread of its kernel";
  um_finalize(&ctx);
  expect_close(got.r, ref.r, "INC r");
  expect_close(got.n, ref.n, "INC n (arity 4)");
  expect_close(got.v, ref.v, "indirect RW v");
  expect_close(got.c, ref.c, "direct RW c");
  expect_close(got.s, ref.s, "direct INC s");
  EXPECT_EQ(got.cnt, ref.cnt) << "each edge once a call: the trials added nothing";
  EXPECT_NEAR(got.esum, ref.esum, 1e-12 * (1 + std::fabs(ref.esum)));
  // reproducible: tuned, then untuned with the tuned choices per loop: the same bits
  ctx = tune_ctx(1, UM_TUNE_ALWAYS);
  ASSERT_NE(ctx, nullptr);
  tcw::run_all(ctx, m, &repro, 3);
  std::vector<std::pair<std::string, um_tune_trial>> choices;
  um_tune_info t;
  for (int i = 0; i < um_loop_stats_count(ctx); i++)
    if (um_loop_stats_get(ctx, i, &st) == UM_SUCCESS && um_loop_tune_info(ctx, i, &t) && t.chosen >= 0)
      choices.emplace_back(st.name, t.trial[t.chosen]);
  um_finalize(&ctx);
  ctx = tune_ctx(1, UM_TUNE_OFF);
  ASSERT_NE(ctx, nullptr);
  for (const auto &c : choices) {
    ASSERT_EQ(um_loop_set_strategy(ctx, c.first.c_str(), c.second.strategy), UM_SUCCESS) << um_error_message(ctx);
    ASSERT_EQ(um_loop_set_block_size(ctx, c.first.c_str(), c.second.block_size), UM_SUCCESS);
    ASSERT_EQ(um_loop_set_split(ctx, c.first.c_str(), c.second.split), UM_SUCCESS);
    ASSERT_EQ(um_loop_set_variant(ctx, c.first.c_str(), c.second.variant), UM_SUCCESS);
  }
  tcw::run_all(ctx, m, &replay, 3);
  um_finalize(&ctx);
  EXPECT_FALSE(choices.empty());
  tcw::expect_same(repro, replay);
}

// ---- one dat reached twice in a loop (codegen_decide.c) ------------------------------------------------------
// A direct increment beside increments through a map (dim 1 and 2), one dat passed directly twice (INC / INC,
// RW / RW) and a dat RW through two maps give seq's results in every strategy, staging and layout. Before, the
// direct increment raced the map's atomics (lost sums), the two direct copies were stored over each other, and
// hierarchical staging of all data stored two staged copies of the RW dat over each other. The kernels come from
// source text for the GPU; seq runs the same arithmetic through range functions (every value an integer: exact).
const char kTwiceSource[] =
    "#include <um/kernel.h>\n"
    "UM_KERNEL void tw_mixed1(double *s, double *a, double *b) { s[0] += 1.0; a[0] += 10.0; b[0] += 100.0; }\n"
    "UM_KERNEL void tw_mixed2(double *s, double *a, double *b) {\n"
    "  for (int c = 0; c < 2; c++) { s[c] += 1.0 + c; a[c] += 10.0; b[c] += 100.0; }\n}\n"
    "UM_KERNEL void tw_dup_inc(double *a, double *b) { a[0] += 1.0; a[1] += 2.0; b[0] += 3.0; b[1] += 4.0; }\n"
    "UM_KERNEL void tw_dup_rw(double *a, double *b) { a[0] = 2.0 * a[0] + 1.0; b[1] = b[0] + b[1]; }\n"
    "UM_KERNEL void tw_rw2(double *a, double *b) { a[0] += 1.0; b[0] += 2.0; }\n";

void tw_mixed1(double *const *p) { p[0][0] += 1.0, p[1][0] += 10.0, p[2][0] += 100.0; }
void tw_mixed2(double *const *p) {
  for (int c = 0; c < 2; c++) p[0][c] += 1.0 + c, p[1][c] += 10.0, p[2][c] += 100.0;
}
void tw_dup_inc(double *const *p) { p[0][0] += 1.0, p[0][1] += 2.0, p[1][0] += 3.0, p[1][1] += 4.0; }
void tw_dup_rw(double *const *p) { p[0][0] = 2.0 * p[0][0] + 1.0, p[1][1] = p[1][0] + p[1][1]; }
void tw_rw2(double *const *p) { p[0][0] += 1.0, p[1][0] += 2.0; }

// The host range of a kernel F of N double arguments, as UM_KERNEL_DEFINE's (SoA rows staged and scattered).
template <int N, void (*F)(double *const *)> void tw_range(um_exec *x, int begin, int end) {
  void *p[UM_MAX_ARGS];
  for (int e = begin; e < end; e++) {
    um_exec_args(x, e, p);
    double *d[N];
    for (int i = 0; i < N; i++) d[i] = (double *)p[i];
    F(d);
    if (x->nsoa_write) um_exec_scatter(x, e);
  }
}

um_kernel tw_kernel(const char *name, int nargs, void (*range)(um_exec *, int, int)) {
  um_kernel k;
  memset(&k, 0, sizeof k);
  k.name = name;
  k.nargs = nargs;
  k.range = range;
  k.source = kTwiceSource;
  k.source_name = "tw_kernels.h";
  return k;
}

struct TwiceResult {
  std::vector<double> q1, q2, d2, r1;
};

// The four loops on a fresh context from o, twice each, on n cells with two maps of arity 2 onto the cells.
void run_twice_loops(const um_options &o, int n, TwiceResult *res) {
  static const um_kernel mixed1 = tw_kernel("tw_mixed1", 3, tw_range<3, tw_mixed1>),
                         mixed2 = tw_kernel("tw_mixed2", 3, tw_range<3, tw_mixed2>),
                         dup_inc = tw_kernel("tw_dup_inc", 2, tw_range<2, tw_dup_inc>),
                         dup_rw = tw_kernel("tw_dup_rw", 2, tw_range<2, tw_dup_rw>),
                         rw2 = tw_kernel("tw_rw2", 2, tw_range<2, tw_rw2>);
  bm::with_context(o, [&](um_context *ctx) {
    std::vector<int> ma(2 * n), mb(2 * n);
    std::vector<double> v1(n), v2(2 * n);
    for (int e = 0; e < n; e++) {
      ma[2 * e] = (e + 1) % n, ma[2 * e + 1] = (int)((e * 7LL + 3) % n);
      mb[2 * e] = (int)((e * 13LL + 5) % n), mb[2 * e + 1] = e;
      v1[e] = e % 17;
      v2[2 * e] = e % 5, v2[2 * e + 1] = e % 3;
    }
    um_set *cells;
    um_map *pa, *pb;
    um_dat *q1, *q2, *d2, *r1;
    ASSERT_EQ(um_decl_set(ctx, n, "cells", &cells), UM_SUCCESS);
    ASSERT_EQ(um_decl_map(ctx, cells, cells, 2, ma.data(), "pa", &pa), UM_SUCCESS);
    ASSERT_EQ(um_decl_map(ctx, cells, cells, 2, mb.data(), "pb", &pb), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, cells, 1, UM_DOUBLE, v1.data(), "q1", &q1), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, cells, 2, UM_DOUBLE, v2.data(), "q2", &q2), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, cells, 2, UM_DOUBLE, v2.data(), "d2", &d2), UM_SUCCESS);
    ASSERT_EQ(um_decl_dat(ctx, cells, 1, UM_DOUBLE, v1.data(), "r1", &r1), UM_SUCCESS);
    for (int rep = 0; rep < 2; rep++) {
      ASSERT_EQ(UM_PAR_LOOP(ctx, mixed1, "tw_mixed1", cells, um_arg_dat(q1, -1, UM_ID, 1, UM_DOUBLE, UM_INC),
                            um_arg_dat(q1, 0, pa, 1, UM_DOUBLE, UM_INC), um_arg_dat(q1, 1, pa, 1, UM_DOUBLE, UM_INC)),
                UM_SUCCESS)
          << um_error_message(ctx);
      ASSERT_EQ(UM_PAR_LOOP(ctx, mixed2, "tw_mixed2", cells, um_arg_dat(q2, -1, UM_ID, 2, UM_DOUBLE, UM_INC),
                            um_arg_dat(q2, 0, pa, 2, UM_DOUBLE, UM_INC), um_arg_dat(q2, 1, pa, 2, UM_DOUBLE, UM_INC)),
                UM_SUCCESS)
          << um_error_message(ctx);
      ASSERT_EQ(UM_PAR_LOOP(ctx, dup_inc, "tw_dup_inc", cells, um_arg_dat(d2, -1, UM_ID, 2, UM_DOUBLE, UM_INC),
                            um_arg_dat(d2, -1, UM_ID, 2, UM_DOUBLE, UM_INC)),
                UM_SUCCESS)
          << um_error_message(ctx);
      ASSERT_EQ(UM_PAR_LOOP(ctx, dup_rw, "tw_dup_rw", cells, um_arg_dat(d2, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                            um_arg_dat(d2, -1, UM_ID, 2, UM_DOUBLE, UM_RW)),
                UM_SUCCESS)
          << um_error_message(ctx);
      ASSERT_EQ(UM_PAR_LOOP(ctx, rw2, "tw_rw2", cells, um_arg_dat(r1, 0, pa, 1, UM_DOUBLE, UM_RW),
                            um_arg_dat(r1, 0, pb, 1, UM_DOUBLE, UM_RW)),
                UM_SUCCESS)
          << um_error_message(ctx);
    }
    res->q1.resize(n), res->r1.resize(n), res->q2.resize(2 * n), res->d2.resize(2 * n);
    ASSERT_EQ(um_dat_fetch(ctx, q1, res->q1.data(), res->q1.size() * sizeof(double)), UM_SUCCESS);
    ASSERT_EQ(um_dat_fetch(ctx, q2, res->q2.data(), res->q2.size() * sizeof(double)), UM_SUCCESS);
    ASSERT_EQ(um_dat_fetch(ctx, d2, res->d2.data(), res->d2.size() * sizeof(double)), UM_SUCCESS);
    ASSERT_EQ(um_dat_fetch(ctx, r1, res->r1.data(), res->r1.size() * sizeof(double)), UM_SUCCESS);
  });
}

class CudaOneDatTwice : public ::testing::TestWithParam<Case> {};

TEST_P(CudaOneDatTwice, MatchesSeq) {
  NEED_GPU();
  for (int n : {1000, 40000}) {
    SCOPED_TRACE("cells " + std::to_string(n));
    bm::run_and_compare_with_seq<TwiceResult>(
        GetParam(), [&](const um_options &o, TwiceResult *res) { run_twice_loops(o, n, res); },
        [&](const TwiceResult &got, const TwiceResult &ref) {
          expect_close(got.q1, ref.q1, "q1: incremented directly and through a map (dim 1)");
          expect_close(got.q2, ref.q2, "q2: incremented directly and through a map (dim 2)");
          expect_close(got.d2, ref.d2, "d2: passed directly twice (INC, then RW)");
          expect_close(got.r1, ref.r1, "r1: RW through two maps");
        });
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(All, CudaOneDatTwice,
                         ::testing::ValuesIn(cuda_matrix({{UM_STRATEGY_ATOMICS, 3},
                                                          {UM_STRATEGY_ATOMICS, 1},
                                                          {UM_STRATEGY_GLOBAL, 1},
                                                          {UM_STRATEGY_HIERARCHICAL, 1},
                                                          {UM_STRATEGY_HIERARCHICAL, 2}},
                                                         {UM_AOS, UM_SOA}, {64, 256})),
                         [](const auto &info) { return case_name(info.param); });

}  // namespace

// ---- CUDA graphs (cuda.graphs) ---------------------------------------------------------------

double counter_of(um_context *ctx, const char *loop, const char *name) {
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    um_loop_stats s;
    if (um_loop_stats_get(ctx, i, &s) != UM_SUCCESS || std::string(s.name) != loop) continue;
    double v = 0;
    return um_loop_stats_counter(&s, name, &v) ? v : -1;
  }
  return -1;
}

double seconds_of(um_context *ctx, const char *loop) {
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    um_loop_stats s;
    if (um_loop_stats_get(ctx, i, &s) == UM_SUCCESS && std::string(s.name) == loop) return s.seconds;
  }
  return -1;
}

void expect_same_bits(const std::vector<double> &x, const std::vector<double> &y, const char *what) {
  ASSERT_EQ(x.size(), y.size()) << what;
  for (size_t i = 0; i < x.size(); i++)
    ASSERT_EQ(std::memcmp(&x[i], &y[i], sizeof(double)), 0) << what << "[" << i << "]: " << x[i] << " vs " << y[i];
}

// Airfoil with graphs gives the bits of plain launches with the coloured strategies (atomics add in a
// different order from run to run, with or without graphs: close there); the repeated steps are replayed
// (graph_calls), and every loop keeps its own device time.
TEST(CudaGraphs, AirfoilSameBitsAsPlainLaunches) {
  NEED_GPU();
  for (auto sv : {std::make_pair(UM_STRATEGY_ATOMICS, 3), std::make_pair(UM_STRATEGY_GLOBAL, 1),
                  std::make_pair(UM_STRATEGY_HIERARCHICAL, 1)}) {
    SCOPED_TRACE(um_strategy_name(sv.first));
    um_options plain = cuda_options({sv.first, sv.second, UM_SOA, 128});
    um_options graphs = plain;
    ASSERT_EQ(um_options_set_backend(&graphs, "cuda.graphs", "1"), UM_SUCCESS);
    ASSERT_EQ(um_options_set_backend(&graphs, "cuda.graph_min_kernels", "1"), UM_SUCCESS);  // every stage a graph
    AirfoilRun a(plain, 60, 40), b(graphs, 60, 40);
    const int iters = 6;
    std::vector<double> ra = a.run(iters), rb = b.run(iters);
    if (sv.first == UM_STRATEGY_ATOMICS) {
      expect_close(rb, ra, "rms", 1e-11);
      expect_close(b.get(b.a.p_q), a.get(a.a.p_q), "q", 1e-11);
    } else {
      expect_same_bits(rb, ra, "rms");
      expect_same_bits(b.get(b.a.p_q), a.get(a.a.p_q), "q");
      expect_same_bits(b.get(b.a.p_adt), a.get(a.a.p_adt), "adt");
    }
    EXPECT_EQ(counter_of(a.ctx, "res_calc", "graph_calls"), 0.0) << "graphs are off by default";
    // each iteration: save_soln, then two stages of adt_calc, res_calc, bres_calc, update, its rms lazy and read
    // at the end: one segment. The first is cut by compilations, the second's shape is kept, from the third on
    // the graph runs (res_calc twice in each)
    const double replayed = counter_of(b.ctx, "res_calc", "graph_calls");
    EXPECT_GE(replayed, 2.0 * (iters - 3)) << "res_calc ran inside replayed graphs";
    EXPECT_LE(replayed, 2.0 * iters);
    for (const char *l : {"save_soln", "adt_calc", "res_calc", "bres_calc", "update"})
      EXPECT_GT(seconds_of(b.ctx, l), 0.0) << l << " has device time under graphs";
  }
}

// Segments whose structure changes between steps, parameters that change (a global READ passed
// by value), host updates and constants in between: graphs give the bits of plain launches.
TEST(CudaGraphs, ChangingSequencesParametersAndHostUpdates) {
  NEED_GPU();
  tcw::Mesh m = tcw::random_mesh(700, 2500, 400, 11);
  std::vector<std::vector<double>> out[2];
  for (int with = 0; with < 2; with++) {
    um_options o = cuda_options({UM_STRATEGY_HIERARCHICAL, 1, UM_AOS, 64});
    if (with) ASSERT_EQ(um_options_set_backend(&o, "cuda.graphs", "1"), UM_SUCCESS);
    if (with) ASSERT_EQ(um_options_set_backend(&o, "cuda.graph_min_kernels", "2"), UM_SUCCESS);
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    tcw::Result r0;
    tcw::run_all(ctx, m, &r0);
    if (HasFatalFailure()) return;
    um_dat *u = um_find_dat(ctx, "u"), *r = um_find_dat(ctx, "r"), *w = um_find_dat(ctx, "w"), *f = um_find_dat(ctx, "f"),
           *v = um_find_dat(ctx, "v"), *x = um_find_dat(ctx, "x"), *k = um_find_dat(ctx, "k"),
           *acc = um_find_dat(ctx, "acc"), *q = um_find_dat(ctx, "q"), *n = um_find_dat(ctx, "n");
    um_map *pedge = um_find_map(ctx, "pedge"), *pcell = um_find_map(ctx, "pcell");
    um_set *edges = um_find_set(ctx, "edges"), *cells = um_find_set(ctx, "cells");
    auto two_loops = [&]() {  // a segment of two loops without a read-back
      TCW_OK(UM_PAR_LOOP(ctx, tk_indirect_rw_kernel, "tk_indirect_rw", edges, um_arg_dat(v, 1, pedge, 2, UM_DOUBLE, UM_RW),
                         um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ)));
      TCW_OK(UM_PAR_LOOP(ctx, tk_gather_kernel, "tk_gather", edges, um_arg_dat(x, 0, pedge, 2, UM_DOUBLE, UM_READ),
                         um_arg_dat(x, 1, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(k, 0, pedge, 1, UM_INT, UM_READ),
                         um_arg_dat(acc, -1, UM_ID, 2, UM_DOUBLE, UM_INC)));
    };
    for (int step = 0; step < 9; step++) {
      two_loops();
      if (HasFatalFailure()) return;
      if (step % 3 == 1) {  // another shape of segment now and then
        double qmax = -1;
        float fmin = 1e30f;
        TCW_OK(UM_PAR_LOOP(ctx, tk_cell_kernel, "tk_cell", cells, um_arg_dat(q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                           um_arg_dat(n, 0, pcell, 3, UM_DOUBLE, UM_INC), um_arg_dat(n, 1, pcell, 3, UM_DOUBLE, UM_INC),
                           um_arg_dat(n, 2, pcell, 3, UM_DOUBLE, UM_INC), um_arg_dat(n, 3, pcell, 3, UM_DOUBLE, UM_INC),
                           um_arg_gbl(&qmax, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&fmin, 1, UM_FLOAT, UM_MIN)));
      }
      if (step == 5) {  // the host writes u and a constant changes between segments
        std::vector<double> u2(m.u.size());
        for (size_t i = 0; i < u2.size(); i++) u2[i] = 0.5 * m.u[i] + 0.25;
        TCW_OK(um_dat_update(ctx, u, u2.data(), u2.size() * sizeof(double)));
        tk_scale = -2.0;
        TCW_OK(um_decl_const(ctx, "tk_scale", 1, UM_DOUBLE, &tk_scale));
      }
      double esum = 0, g[2] = {0.5 + step, -0.25 * step};  // a READ global that changes every step
      int cnt = 0;
      TCW_OK(UM_PAR_LOOP(ctx, tk_edge_kernel, "tk_edge", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                         um_arg_dat(u, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, pedge, 2, UM_DOUBLE, UM_READ),
                         um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                         um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC), um_arg_gbl(&esum, 1, UM_DOUBLE, UM_INC),
                         um_arg_gbl(&cnt, 1, UM_INT, UM_INC), um_arg_gbl(g, 2, UM_DOUBLE, UM_READ)));
      out[with].push_back({esum, (double)cnt});
    }
    // steps that never read a result back: segments end where the step's first loop begins again
    const double before = counter_of(ctx, "tk_indirect_rw", "graph_calls");
    for (int step = 0; step < 24; step++) {
      two_loops();
      if (HasFatalFailure()) return;
    }
    if (with) EXPECT_GE(counter_of(ctx, "tk_indirect_rw", "graph_calls") - before, 12.0) << "steps without a read-back replayed";
    for (um_dat *d : {r, v, acc, n}) {
      std::vector<double> h((size_t)um_set_size(um_dat_set(d)) * um_dat_dim(d));
      TCW_OK(um_dat_fetch(ctx, d, h.data(), h.size() * sizeof(double)));
      out[with].push_back(h);
    }
    if (with) EXPECT_GE(counter_of(ctx, "tk_gather", "graph_calls"), 4.0) << "the repeated segment was replayed";
    tk_scale = 1.5;
    um_finalize(&ctx);
  }
  ASSERT_EQ(out[0].size(), out[1].size());
  for (size_t i = 0; i < out[0].size(); i++) expect_same_bits(out[1][i], out[0][i], "results with and without graphs");
}
