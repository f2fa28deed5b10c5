// Airfoil's loops against values dumped from upstream OP2 Airfoil on the same
// tiny mesh (apps/airfoil/tests/data/loops_I4_J6_iter3.txt), on every CPU backend and
// layout; and the HDF5 round trip of a whole Airfoil run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "airfoil.h"
#include "um/hdf5io.h"
#include "um/um.h"
}

namespace {

using Dump = std::map<std::string, std::vector<double>>;  // name -> values in cell order

Dump load_dump(const std::string &path) {
  Dump d;
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string name;
    int idx;
    s >> name >> idx;
    double v;
    while (s >> v) d[name].push_back(v);
  }
  return d;
}

struct AirfoilRun {
  um_context *ctx = nullptr;
  airfoil a{};
  airfoil_mesh m{};
  AirfoilRun(const char *b, um_layout l, int bs) {
    um_options o;
    um_options_default(&o);
    o.backend = b;
    o.layout = l;
    o.block_size = bs;
    o.check_plans = 1;
    um_options_set(&o, "openmp.parallel_threshold", "0");
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    char err[256];
    EXPECT_EQ(airfoil_mesh_generate(4, 6, 1, &m, err, sizeof err), 0) << err;
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
    EXPECT_EQ(um_dat_fetch(ctx, d, v.data(), v.size() * sizeof(double)), UM_SUCCESS);
    return v;
  }
};

// |got - ref| <= 1e-12 * max|ref| (residuals cancel to near zero in places)
void expect_match(const std::vector<double> &got, const std::vector<double> &ref, const char *what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  double scale = 0;
  for (double r : ref) scale = std::max(scale, std::fabs(r));
  ASSERT_GT(scale, 0) << what << ": reference is all zero, the test would prove nothing";
  for (size_t i = 0; i < ref.size(); i++)
    ASSERT_NEAR(got[i], ref[i], 1e-12 * scale) << what << " value " << i << " (cell " << i / 4 << ")";
}

struct Case {
  const char *b;
  um_layout l;
  int bs;
};

class AirfoilLoops : public ::testing::TestWithParam<Case> {};

TEST_P(AirfoilLoops, MatchUpstreamDump) {
  const Case c = GetParam();
  if (!um_backend_available(c.b)) GTEST_SKIP();
  Dump d = load_dump(std::string(UM_TEST_DATA_DIR) + "/loops_I4_J6_iter3.txt");
  ASSERT_EQ(d["q_start"].size(), 72u * 4);
  AirfoilRun r(c.b, c.l, c.bs);
  um_context *ctx = r.ctx;
  ASSERT_EQ(um_dat_update(ctx, r.a.p_q, d["q_start"].data(), d["q_start"].size() * sizeof(double)), UM_SUCCESS);
  ASSERT_EQ(airfoil_save_soln(ctx, &r.a), UM_SUCCESS) << um_error_message(ctx);
  expect_match(r.get(r.a.p_qold), d["qold_after_save_soln"], "qold after save_soln");
  ASSERT_EQ(airfoil_adt_calc(ctx, &r.a), UM_SUCCESS) << um_error_message(ctx);
  expect_match(r.get(r.a.p_adt), d["adt_after_adt_calc"], "adt after adt_calc");
  ASSERT_EQ(airfoil_res_calc(ctx, &r.a), UM_SUCCESS) << um_error_message(ctx);
  expect_match(r.get(r.a.p_res), d["res_after_res_calc"], "res after res_calc");
  ASSERT_EQ(airfoil_bres_calc(ctx, &r.a), UM_SUCCESS) << um_error_message(ctx);
  expect_match(r.get(r.a.p_res), d["res_after_bres_calc"], "res after bres_calc");
  double rms = 0;
  ASSERT_EQ(airfoil_update(ctx, &r.a, &rms), UM_SUCCESS) << um_error_message(ctx);
  expect_match(r.get(r.a.p_q), d["q_after_update"], "q after update");
  for (double v : r.get(r.a.p_res)) ASSERT_EQ(v, 0.0) << "update clears the residual";
  ASSERT_EQ(d["rms_sum_after_update"].size(), 1u);
  EXPECT_NEAR(rms, d["rms_sum_after_update"][0], 1e-12 * d["rms_sum_after_update"][0]);
}

INSTANTIATE_TEST_SUITE_P(CpuBackends, AirfoilLoops,
                         ::testing::Values(Case{"seq", UM_AOS, 256}, Case{"seq", UM_SOA, 256},
                                           Case{"openmp", UM_AOS, 8}, Case{"openmp", UM_SOA, 16},
                                           Case{"openmp", UM_LAYOUT_AUTO, 3}),
                         [](const auto &info) {
                           return std::string(std::string(info.param.b)) + "_" + um_layout_name(info.param.l) +
                                  "_bs" + std::to_string(info.param.bs);
                         });

// The fused step against the five loops, 7 iterations on each CPU backend and layout: the same bits of rms
// at every iteration whose rms is read, of q, qold, res and adt after iterations 4 and 7 (each ends a chain
// with a plain update; iteration 5 starts a new one). quiet: the rms is left unread (a->rms_unread) except on
// iterations 3, 4 and 7, so those run update_save_adt_no_rms.
static void fused_against_five_loops(bool quiet) {
  for (const char *b : {"seq", "openmp"})
    for (um_layout l : {UM_AOS, UM_SOA}) {
      if (!um_backend_available(b)) continue;
      AirfoilRun u(b, l, 16), f(b, l, 16);
      for (int i = 1; i <= 7; i++) {
        double ru = 0, rf = 0;
        ASSERT_EQ(airfoil_iteration(u.ctx, &u.a, &ru), UM_SUCCESS) << um_error_message(u.ctx);
        f.a.rms_unread = quiet && i != 3 && i != 4 && i != 7;
        ASSERT_EQ(airfoil_step_fused(f.ctx, &f.a, i == 4 || i == 7), UM_SUCCESS) << um_error_message(f.ctx);
        if (!f.a.rms_unread) {
          ASSERT_EQ(airfoil_rms(f.ctx, &f.a, &rf), UM_SUCCESS) << um_error_message(f.ctx);
          EXPECT_GT(ru, 0);
          EXPECT_EQ(rf, ru) << b << " " << um_layout_name(l) << ": rms of iteration " << i;
        }
        if (i == 4 || i == 7) {  // after a last step, adt is the second stage's (as the five loops leave it)
          EXPECT_EQ(f.get(f.a.p_adt), u.get(u.a.p_adt)) << b << " adt after iteration " << i;
          EXPECT_EQ(f.get(f.a.p_q), u.get(u.a.p_q)) << b << " q after iteration " << i;
          EXPECT_EQ(f.get(f.a.p_qold), u.get(u.a.p_qold)) << b << " qold after iteration " << i;
          EXPECT_EQ(f.get(f.a.p_res), u.get(u.a.p_res)) << b << " res after iteration " << i;
        }
      }
      long summed = 0, unsummed = 0;
      for (int i = 0; i < um_loop_stats_count(f.ctx); i++) {
        um_loop_stats st;
        ASSERT_EQ(um_loop_stats_get(f.ctx, i, &st), UM_SUCCESS);
        if (std::string(st.name) == "update_save_adt") summed = (long)st.calls;
        if (std::string(st.name) == "update_save_adt_no_rms") unsummed = (long)st.calls;
        if (std::string(st.name) == "save_soln") EXPECT_EQ(st.calls, 2) << "once per chain (two chains)";
      }
      // iterations 1-3 and 5-6 end with an update_save_adt, the quiet ones (1, 2, 5, 6) without the sum
      EXPECT_EQ(summed, quiet ? 1 : 5);
      EXPECT_EQ(unsummed, quiet ? 4 : 0);
    }
}

// params.fused: each update fused with the adt_calc after it (and save_soln) does the same arithmetic as the
// five loops, also when the rms is read between steps and when a last step ends the chain and a new one starts.
TEST(Airfoil, FusedStepGivesTheBitsOfTheFiveLoops) { fused_against_five_loops(false); }

// Iterations whose rms nobody reads (a->rms_unread: umrun's 99 in 100) skip the sum and its reduction: the same
// fields, and the rms of the iterations that sum it is the five loops' rms.
TEST(Airfoil, UnreadRmsChangesNoBit) { fused_against_five_loops(true); }

// params.scheme=cells: each cell gathers its sides' fluxes (no increments), two loops an iteration. On one thread
// the sides are added in the edge loops' order, so against the fused edge step on seq: the same bits of the rms
// at every iteration whose rms is read (quiet ones skip the sum) and of q and adt after each last step (4 and 7;
// iteration 5 starts a new chain). The C-mesh's wake cut (nodes duplicated along it) is part of this mesh.
TEST(Airfoil, CellsSchemeGivesTheBitsOfTheEdgeScheme) {
  for (um_layout l : {UM_AOS, UM_SOA}) {
    AirfoilRun e("seq", l, 16), c("seq", l, 16);
    ASSERT_EQ(airfoil_decl_cells(c.ctx, &c.a), UM_SUCCESS) << um_error_message(c.ctx);
    for (int i = 1; i <= 7; i++) {
      const int last = i == 4 || i == 7;
      e.a.rms_unread = c.a.rms_unread = i != 3 && !last;
      ASSERT_EQ(airfoil_step_fused(e.ctx, &e.a, last), UM_SUCCESS) << um_error_message(e.ctx);
      ASSERT_EQ(airfoil_step_cells(c.ctx, &c.a, last), UM_SUCCESS) << um_error_message(c.ctx);
      if (!c.a.rms_unread) {
        double re = 0, rc = 0;
        ASSERT_EQ(airfoil_rms(e.ctx, &e.a, &re), UM_SUCCESS);
        ASSERT_EQ(airfoil_rms(c.ctx, &c.a, &rc), UM_SUCCESS);
        EXPECT_GT(re, 0);
        EXPECT_EQ(rc, re) << um_layout_name(l) << ": rms of iteration " << i;
      }
      if (last) {
        EXPECT_EQ(c.get(c.a.p_q), e.get(e.a.p_q)) << um_layout_name(l) << " q after iteration " << i;
        EXPECT_EQ(c.get(c.a.p_adt), e.get(e.a.p_adt)) << um_layout_name(l) << " adt after iteration " << i;
      }
    }
    int stage1 = 0, quiet = 0, last = 0, summed = 0;
    for (int i = 0; i < um_loop_stats_count(c.ctx); i++) {
      um_loop_stats st;
      ASSERT_EQ(um_loop_stats_get(c.ctx, i, &st), UM_SUCCESS);
      const std::string n = st.name;
      EXPECT_TRUE(n == "adt_calc" || n.rfind("cells_stage", 0) == 0) << "the cells scheme ran " << n;
      if (n == "cells_stage1") stage1 = (int)st.calls;
      if (n == "cells_stage2_no_rms") quiet = (int)st.calls;
      if (n == "cells_stage2_last") last = (int)st.calls;
      if (n == "cells_stage2") summed = (int)st.calls;
    }
    EXPECT_EQ(stage1, 7);
    EXPECT_EQ(last, 2);
    EXPECT_EQ(quiet, 4);  // 1, 2, 5, 6
    EXPECT_EQ(summed, 1);  // 3
  }
}

// The cells scheme's results do not depend on the backend: no increments, each cell sums its own sides. openmp
// (any layout, block size) gives seq's q and adt bit for bit; the rms, a reduction over threads, to round-off.
TEST(Airfoil, CellsSchemeIsTheSameOnEveryCpuBackend) {
  if (!um_backend_available("openmp")) GTEST_SKIP();
  AirfoilRun s("seq", UM_AOS, 256);
  ASSERT_EQ(airfoil_decl_cells(s.ctx, &s.a), UM_SUCCESS) << um_error_message(s.ctx);
  for (int i = 1; i <= 6; i++) ASSERT_EQ(airfoil_step_cells(s.ctx, &s.a, i == 6), UM_SUCCESS);
  double rs = 0;
  ASSERT_EQ(airfoil_rms(s.ctx, &s.a, &rs), UM_SUCCESS);
  for (Case k : {Case{"openmp", UM_AOS, 8}, Case{"openmp", UM_SOA, 16}, Case{"openmp", UM_LAYOUT_AUTO, 3}}) {
    AirfoilRun o(k.b, k.l, k.bs);
    ASSERT_EQ(airfoil_decl_cells(o.ctx, &o.a), UM_SUCCESS) << um_error_message(o.ctx);
    for (int i = 1; i <= 6; i++) ASSERT_EQ(airfoil_step_cells(o.ctx, &o.a, i == 6), UM_SUCCESS);
    double ro = 0;
    ASSERT_EQ(airfoil_rms(o.ctx, &o.a, &ro), UM_SUCCESS);
    EXPECT_GT(rs, 0);
    EXPECT_NEAR(ro, rs, 1e-14 * rs) << um_layout_name(k.l) << " block " << k.bs;
    EXPECT_EQ(o.get(o.a.p_q), s.get(s.a.p_q)) << um_layout_name(k.l) << " block " << k.bs;
    EXPECT_EQ(o.get(o.a.p_adt), s.get(s.a.p_adt)) << um_layout_name(k.l) << " block " << k.bs;
  }
}

// An edge that is not a side of its cell (nor at the coordinates of one) cannot be gathered by the cell: a clear
// error naming the edge and the cell, before any loop runs; the first in the edges' order for any thread count (a
// later broken edge is another thread's).
TEST(Airfoil, CellsSchemeNamesAnEdgeThatIsNotASide) {
  AirfoilRun r("seq", UM_AOS, 16);
  for (int nt : {1, 2, 3}) {
    um_options o;
    um_options_default(&o);
    o.nthreads = nt < um_threads_max() ? nt : um_threads_max();
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    airfoil a{};
    airfoil_mesh m = r.m;
    std::vector<int> edge(r.m.edge, r.m.edge + 2 * r.m.nedge);
    for (int e : {r.m.nedge - 3, 9}) {
      const int *c1 = r.m.cell + 4 * r.m.ecell[2 * e];
      for (int n = 0; n < r.m.nnode; n++)  // a node of no corner of edge e's first cell
        if (n != c1[0] && n != c1[1] && n != c1[2] && n != c1[3]) {
          edge[2 * e] = n;
          break;
        }
    }
    m.edge = edge.data();
    ASSERT_EQ(airfoil_set_constants(ctx), UM_SUCCESS);
    ASSERT_EQ(airfoil_decl_mesh(ctx, &m, &a), UM_SUCCESS) << um_error_message(ctx);
    ASSERT_EQ(airfoil_decl_flow(ctx, &a), UM_SUCCESS);
    EXPECT_EQ(airfoil_decl_cells(ctx, &a), UM_ERR_IO);
    EXPECT_NE(std::string(um_error_message(ctx)).find("edge 9 (nodes"), std::string::npos) << um_error_message(ctx);
    EXPECT_NE(std::string(um_error_message(ctx)).find("params.scheme=edges"), std::string::npos);
    um_finalize(&ctx);
  }
}

// A mesh written in OP2's HDF5 layout and read back gives the same run.
TEST(Airfoil, Hdf5MeshRoundTripGivesSameResiduals) {
  const std::string path = testing::TempDir() + "um_airfoil_roundtrip.h5";
  double rms_a = 0, rms_b = 0;
  {
    AirfoilRun r("seq", UM_AOS, 256);
    ASSERT_EQ(um_hdf5_write_mesh(r.ctx, path.c_str()), UM_SUCCESS) << um_error_message(r.ctx);
    for (int i = 0; i < 20; i++) ASSERT_EQ(airfoil_iteration(r.ctx, &r.a, &rms_a), UM_SUCCESS);
  }
  {
    um_options o;
    um_options_default(&o);
    o.backend = "seq";  // the same backend on both sides: bit-for-bit the same sums
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    airfoil a{};
    ASSERT_EQ(airfoil_set_constants(ctx), UM_SUCCESS);
    ASSERT_EQ(airfoil_decl_mesh_hdf5(ctx, path.c_str(), 0, &a), UM_SUCCESS) << um_error_message(ctx);
    ASSERT_EQ(airfoil_decl_flow(ctx, &a), UM_SUCCESS);
    EXPECT_EQ(um_set_size(a.cells), 72);
    for (int i = 0; i < 20; i++) ASSERT_EQ(airfoil_iteration(ctx, &a, &rms_b), UM_SUCCESS);
    um_finalize(&ctx);
  }
  EXPECT_GT(rms_a, 0);
  EXPECT_NEAR(rms_b, rms_a, 1e-14 * rms_a);
  std::remove(path.c_str());
}

TEST(Airfoil, MissingHdf5MeshIsAClearError) {
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, nullptr), UM_SUCCESS);
  airfoil a{};
  EXPECT_NE(airfoil_decl_mesh_hdf5(ctx, "/nonexistent/new_grid.h5", 0, &a), UM_SUCCESS);
  EXPECT_NE(std::string(um_error_message(ctx)).find("new_grid.h5"), std::string::npos) << um_error_message(ctx);
  um_finalize(&ctx);
}

}  // namespace

// The edge check names the fault that a sort of the edges by (lower node, upper node, number) meets first -- an
// edge from a node to itself, or the first of two joining the same nodes -- on any thread count.
// The first fault in the order of (lower node, upper node, number) -- an edge from a node to itself, or the first of
// two joining the same nodes -- with its other edge; -1 if none.
static int sorted_fault(const std::vector<int> &e, const std::vector<int> &b, int *second) {
  std::vector<std::array<int, 3>> s; // (lower, upper, number)
  const int ne = (int)e.size() / 2, n = ne + (int)b.size() / 2;
  for (int i = 0; i < n; i++) {
    const int *p = i < ne ? &e[2 * i] : &b[2 * (i - ne)];
    s.push_back({std::min(p[0], p[1]), std::max(p[0], p[1]), i});
  }
  std::sort(s.begin(), s.end());
  *second = -1;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i][0] == s[i][1]) return s[i][2];
    if (i + 1 < s.size() && s[i + 1][0] == s[i][0] && s[i + 1][1] == s[i][1]) return *second = s[i + 1][2], s[i][2];
  }
  return -1;
}

// The edge check names the fault that a sort of the edges by (lower node, upper node, number) meets first, on any
// thread count: the generated mesh spoilt at random, and fans (a few nodes with thousands of edges each).
TEST(AirfoilMeshCheck, FirstBadEdgeAsSortedForAnyThreadCount) {
  airfoil_mesh m;
  char err[256];
  ASSERT_EQ(airfoil_mesh_generate(40, 60, 1, &m, err, sizeof err), 0) << err;
  std::mt19937 rng(64);
  for (int trial = 0; trial < 80; trial++) {
    std::vector<int> e(m.edge, m.edge + 2 * m.nedge), b(m.bedge, m.bedge + 2 * m.nbedge);
    const int nn = trial < 60 ? m.nnode : 3000;
    if (trial >= 60) { // a fan: each edge from one of a few nodes, its other end anywhere (repeats by chance)
      for (size_t i = 0; i < e.size(); i += 2) e[i] = (int)(rng() % 5), e[i + 1] = 5 + (int)(rng() % (nn - 5));
      for (size_t i = 0; i < b.size(); i += 2) b[i] = (int)(rng() % nn), b[i + 1] = (int)(rng() % 5);
      e.resize(trial % 2 ? 2 * 2000 : 2 * 40), b.resize(trial % 4 < 2 ? 2 : 0);
    }
    for (int f = 0; f < (trial && trial < 60 ? 1 + trial % 4 : 0); f++) {
      const int i = (int)(rng() % m.nedge), j = (int)(rng() % m.nedge), k = (int)(rng() % m.nbedge);
      switch (rng() % 4) {
        case 0: e[2 * i + 1] = e[2 * i]; break;                         // to itself
        case 1: e[2 * i] = e[2 * j + 1], e[2 * i + 1] = e[2 * j]; break; // twice, reversed
        case 2: b[2 * k] = e[2 * j], b[2 * k + 1] = e[2 * j + 1]; break; // a boundary edge an edge too
        default: b[2 * k + 1] = b[2 * k];
      }
    }
    int want2 = -1;
    const int want = sorted_fault(e, b, &want2), ne = (int)e.size() / 2, nb = (int)b.size() / 2;
    for (int nt : {1, 2, 4}) {
      int second = -7;
      EXPECT_EQ(airfoil_first_bad_edge(e.data(), ne, b.data(), nb, nn, nt, &second), want) << trial << " " << nt;
      if (want >= 0) EXPECT_EQ(second, want2) << trial << " " << nt;
    }
  }
  airfoil_mesh_free(&m);
}

// Issue 15, fault 11: a broken mesh (NaN coordinates, a degenerate cell, a
// duplicated edge, an unknown boundary code) is reported as such, naming the
// element, once after reading, whatever the reader; it used to run and be
// reported as "the run diverged".
TEST(AirfoilMeshCheck, NamesTheBrokenElement) {
  struct Case {
    const char *what;
    void (*spoil)(airfoil_mesh *);
    const char *expect;
  } cases[] = {
      {"nan", [](airfoil_mesh *m) { m->x[2 * 3] = NAN; }, "node 3 has coordinates (nan"},
      {"degenerate", [](airfoil_mesh *m) { for (int k = 0; k < 4; k++) m->cell[4 * 5 + k] = m->cell[4 * 5]; },
       "cell 5 (nodes"},
      {"duplicate", [](airfoil_mesh *m) { m->edge[2 * 7] = m->edge[2 * 2]; m->edge[2 * 7 + 1] = m->edge[2 * 2 + 1]; },
       "a duplicated edge"},
      {"bound", [](airfoil_mesh *m) { m->bound[1] = 3; }, "boundary edge 1 has boundary code 3"},
  };
  for (const Case &c : cases) {
    airfoil_mesh m;
    char err[256];
    ASSERT_EQ(airfoil_mesh_generate(4, 6, 1, &m, err, sizeof err), 0) << err;
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    airfoil a;
    ASSERT_EQ(airfoil_decl_mesh(ctx, &m, &a), UM_SUCCESS) << um_error_message(ctx);
    EXPECT_EQ(airfoil_check_mesh(ctx, &a), UM_SUCCESS) << c.what << ": the generated mesh is fine: "
                                                       << um_error_message(ctx);
    um_finalize(&ctx);
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    c.spoil(&m);
    ASSERT_EQ(airfoil_decl_mesh(ctx, &m, &a), UM_SUCCESS) << um_error_message(ctx);
    EXPECT_EQ(airfoil_check_mesh(ctx, &a), UM_ERR_IO) << c.what;
    EXPECT_NE(std::string(um_error_message(ctx)).find(c.expect), std::string::npos)
        << c.what << ": " << um_error_message(ctx);
    um_finalize(&ctx);
    airfoil_mesh_free(&m);
  }
}
