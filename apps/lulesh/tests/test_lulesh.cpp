// LULESH on um: the generated mesh against upstream's construction rules, and
// whole runs against upstream LULESH 2.0's results (validation/lulesh/README.md
// says how those numbers were produced) on every CPU backend, layout and force
// scheme; results that must not depend on regions, cost or reordering.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "lulesh/lulesh.h"
#include "lulesh/lulesh_kernels.h"
#include "um/reorder.h"
#include "um/um.h"
#include "um/validate.h"
}

namespace {

// Upstream LULESH 2.0's results, read from validation/lulesh/<case>.ref.yaml (whose
// README says how they were produced).
struct Upstream {
  int cycles = -1;
  double energy = 0, sym_max_abs = 0, sym_total_abs = 0;
};

Upstream upstream(const char *case_name) {
  const std::string path = std::string(UM_SOURCE_DIR_FOR_TESTS) + "/validation/lulesh/" + case_name + ".ref.yaml";
  um_ref *ref = nullptr;
  char err[512] = "";
  Upstream u;
  EXPECT_EQ(um_ref_load(path.c_str(), &ref, err, sizeof err), UM_SUCCESS) << err;
  for (int i = 0; ref && i < ref->nmetrics; i++) {
    const std::string n = ref->metrics[i].name;
    const double v = ref->metrics[i].value;
    if (n == "iterations") u.cycles = (int)v;
    if (n == "origin_energy") u.energy = v;
    if (n == "sym_max_abs_diff") u.sym_max_abs = v;
    if (n == "sym_total_abs_diff") u.sym_total_abs = v;
  }
  um_ref_free(ref);
  EXPECT_GT(u.cycles, 0) << path;
  EXPECT_GT(u.energy, 0) << path;
  return u;
}

struct LuRun {
  um_context *ctx = nullptr;
  lulesh_state *s = nullptr;
  lulesh_result res{};
  std::string err;
};

// Runs LULESH to the end (or the cap) on a fresh context; returns the final e in
// upstream's element numbering through `e` when given.
LuRun run_lulesh(const lulesh_params &p, const char *b, um_layout l, int block, std::vector<double> *e = nullptr,
                 um_reorder_method reorder = UM_REORDER_NONE, um_strategy strategy = UM_STRATEGY_AUTO,
                 int staging = 0) {
  LuRun r;
  um_options o;
  um_options_default(&o);
  o.backend = b;
  o.layout = l;
  o.block_size = block;
  o.strategy = strategy;
  static const char *const staging_names[] = {"auto", "inc", "all", "none"};
  if (staging) um_options_set_backend(&o, "cuda.staging", staging_names[staging]);
  o.nthreads = std::string(b) == "openmp" ? 2 : 0; /* the same on every machine, and no oversubscription
                                                  when ctest runs tests in parallel on many cores */
  o.check_plans = 1;
  um_options_set(&o, "openmp.parallel_threshold", "0");
  EXPECT_EQ(um_init(&r.ctx, &o), UM_SUCCESS) << um_error_message(r.ctx);
  char err[1024] = "";
  if (lulesh_setup(r.ctx, &p, &r.s, err, sizeof err) != UM_SUCCESS) {
    r.err = err;
    return r;
  }
  if (reorder != UM_REORDER_NONE)
    EXPECT_EQ(um_reorder(r.ctx, reorder, um_find_map(r.ctx, "elem_nodes"), nullptr, nullptr), UM_SUCCESS)
        << um_error_message(r.ctx);
  int done = 0;
  while (!done) {
    if (lulesh_step(r.ctx, r.s, &done, err, sizeof err) != UM_SUCCESS) {
      r.err = err;
      return r;
    }
  }
  EXPECT_EQ(lulesh_finish(r.ctx, r.s, &r.res, err, sizeof err), UM_SUCCESS) << err;
  if (e) {
    e->resize((size_t)um_set_size(um_find_set(r.ctx, "elems")));
    EXPECT_EQ(um_dat_fetch_original_order(r.ctx, um_find_dat(r.ctx, "e"), e->data(), e->size() * sizeof(double)),
              UM_SUCCESS);
  }
  return r;
}

void free_run(LuRun &r) {
  lulesh_state_free(&r.s);
  um_finalize(&r.ctx);
}

lulesh_params params(int size) {
  lulesh_params p;
  lulesh_params_default(&p);
  p.size = size;
  return p;
}

}  // namespace

// Regions are drawn from rand() after srand(0); ours must be glibc's sequence.
TEST(LuleshRand, MatchesTheCLibraryWhereItIsGlibc) {
#ifdef __GLIBC__
  lulesh_rand g;
  for (unsigned seed : {0u, 1u, 12345u}) {
    lulesh_srand(&g, seed);
    srand(seed);
    for (int i = 0; i < 100000; i++) ASSERT_EQ(lulesh_rand_next(&g), rand()) << "seed " << seed << ", draw " << i;
  }
#else
  GTEST_SKIP() << "not glibc: nothing to compare with";
#endif
}

TEST(LuleshMesh, MatchesUpstreamsConstruction) {
  lulesh_params p = params(3);
  lulesh_mesh m;
  char err[256];
  ASSERT_EQ(lulesh_mesh_build(&p, &m, err, sizeof err), 0) << err;
  const int nx = 3, en = 4;
  EXPECT_EQ(m.nelem, 27);
  EXPECT_EQ(m.nnode, 64);
  // element 0's nodes in upstream's local order (bottom face counter-clockwise, then top)
  const int e0[8] = {0, 1, en + 1, en, en * en, en * en + 1, en * en + en + 1, en * en + en};
  for (int k = 0; k < 8; k++) EXPECT_EQ(m.elem_nodes[k], e0[k]) << "corner " << k;
  // the box is [0, 1.125]^3; node (col, row, plane) at 1.125 * index / nx
  EXPECT_DOUBLE_EQ(m.coord[3 * (m.nnode - 1) + 0], 1.125);
  EXPECT_DOUBLE_EQ(m.coord[3 * 1 + 0], 1.125 / nx);
  double vol = 0, mass = 0;
  for (int i = 0; i < m.nelem; i++) vol += m.volo[i];
  for (int i = 0; i < m.nnode; i++) mass += m.nodal_mass[i];
  EXPECT_NEAR(vol, 1.125 * 1.125 * 1.125, 1e-13);
  EXPECT_NEAR(mass, vol, 1e-13);
  // symmetry lists: every node of plane d = 0 exactly once
  for (int d = 0; d < 3; d++) {
    std::set<int> seen(m.symm[d], m.symm[d] + m.nsymm);
    EXPECT_EQ((int)seen.size(), en * en);
    for (int n : seen) EXPECT_EQ(m.coord[3 * n + d], 0.0) << "plane " << d << " node " << n;
  }
  // face neighbours and boundary bits: interior faces read the neighbour across the
  // face, minus faces on a symmetry plane, plus faces free
  for (int z = 0; z < nx; z++)
    for (int y = 0; y < nx; y++)
      for (int x = 0; x < nx; x++) {
        const int i = (z * nx + y) * nx + x, bc = m.elem_bc[i];
        const int *f = m.elem_faces + 6 * i;
        EXPECT_EQ(bc & LU_XI_M, x == 0 ? LU_XI_M_SYMM : 0);
        EXPECT_EQ(bc & LU_XI_P, x == nx - 1 ? LU_XI_P_FREE : 0);
        EXPECT_EQ(bc & LU_ETA_M, y == 0 ? LU_ETA_M_SYMM : 0);
        EXPECT_EQ(bc & LU_ETA_P, y == nx - 1 ? LU_ETA_P_FREE : 0);
        EXPECT_EQ(bc & LU_ZETA_M, z == 0 ? LU_ZETA_M_SYMM : 0);
        EXPECT_EQ(bc & LU_ZETA_P, z == nx - 1 ? LU_ZETA_P_FREE : 0);
        if (x > 0) EXPECT_EQ(f[0], i - 1);
        if (x < nx - 1) EXPECT_EQ(f[1], i + 1);
        if (y > 0) EXPECT_EQ(f[2], i - nx);
        if (y < nx - 1) EXPECT_EQ(f[3], i + nx);
        if (z > 0) EXPECT_EQ(f[4], i - nx * nx);
        if (z < nx - 1) EXPECT_EQ(f[5], i + nx * nx);
        for (int k = 0; k < 6; k++) EXPECT_TRUE(f[k] >= 0 && f[k] < m.nelem);
      }
  // the blast sits in element 0: e = 3.948746e7 (nx / 45)^3
  EXPECT_DOUBLE_EQ(m.einit, 3.948746e+7 * std::pow(nx / 45.0, 3));
  lulesh_mesh_free(&m);
}

// The generator over threads: each node and element computed alone, the same mesh bit for bit for any count.
TEST(LuleshMesh, SameMeshForAnyThreadCount) {
  lulesh_params p = params(7);
  lulesh_mesh one;
  char err[256];
  p.threads = 1;
  ASSERT_EQ(lulesh_mesh_build(&p, &one, err, sizeof err), 0) << err;
  const size_t ne = (size_t)one.nelem, nn = (size_t)one.nnode;
  for (int nt : {2, 3, 16}) {
    lulesh_mesh m;
    p.threads = nt;
    ASSERT_EQ(lulesh_mesh_build(&p, &m, err, sizeof err), 0) << err;
    ASSERT_EQ(m.nelem, one.nelem);
    EXPECT_EQ(memcmp(m.coord, one.coord, sizeof(double) * 3 * nn), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.elem_nodes, one.elem_nodes, sizeof(int) * 8 * ne), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.elem_faces, one.elem_faces, sizeof(int) * 6 * ne), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.elem_bc, one.elem_bc, sizeof(int) * ne), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.volo, one.volo, sizeof(double) * ne), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.elem_mass, one.elem_mass, sizeof(double) * ne), 0) << nt << " threads";
    EXPECT_EQ(memcmp(m.nodal_mass, one.nodal_mass, sizeof(double) * nn), 0) << nt << " threads";
    lulesh_mesh_free(&m);
  }
  lulesh_mesh_free(&one);
}

TEST(LuleshMesh, RegionsPartitionTheElementsWithUpstreamsCosts) {
  lulesh_params p = params(12);
  lulesh_mesh m;
  char err[256];
  ASSERT_EQ(lulesh_mesh_build(&p, &m, err, sizeof err), 0) << err;
  ASSERT_EQ(m.nregions, 11);
  std::vector<int> owner(m.nelem, -1);
  for (int r = 0; r < m.nregions; r++)
    for (int i = 0; i < m.region_size[r]; i++) {
      const int e = m.region_elems[r][i];
      ASSERT_EQ(owner[e], -1) << "element " << e << " in two regions";
      owner[e] = r;
      if (i) EXPECT_LT(m.region_elems[r][i - 1], e) << "region lists ascend";
    }
  for (int e = 0; e < m.nelem; e++) EXPECT_GE(owner[e], 0) << "element " << e << " in no region";
  // with balance 1, region r is drawn with weight r + 1: the last regions are the largest
  EXPECT_GT(m.region_size[10], m.region_size[0]);
  // cost 1: the cheaper half once, then 1 + cost, the last (nr + 15) / 20 regions 10 (1 + cost)
  const int reps[11] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 20};
  for (int r = 0; r < 11; r++) EXPECT_EQ(m.region_rep[r], reps[r]) << "region " << r;
  lulesh_mesh_free(&m);

  p.regions = 1;
  ASSERT_EQ(lulesh_mesh_build(&p, &m, err, sizeof err), 0) << err;
  EXPECT_EQ(m.region_size[0], m.nelem);
  EXPECT_EQ(m.region_rep[0], 2) << "upstream's formula makes a lone region a costly one: 1 + cost";
  lulesh_mesh_free(&m);
}

TEST(LuleshMesh, BadParametersSayWhichAndWhy) {
  lulesh_mesh m;
  char err[512];
  lulesh_params p = params(0);
  EXPECT_EQ(lulesh_mesh_build(&p, &m, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("params.size = 0"), std::string::npos) << err;
  p = params(5);
  p.regions = 0;
  EXPECT_EQ(lulesh_mesh_build(&p, &m, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("params.regions"), std::string::npos) << err;
  p = params(5);
  p.regions = 200;
  p.balance = 16;
  EXPECT_EQ(lulesh_mesh_build(&p, &m, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("32-bit"), std::string::npos) << err;
  // the gather scheme numbers 8 corners per element with 32-bit indices
  p = params(700);
  p.forces = LULESH_FORCES_GATHER;
  lulesh_state *st = nullptr;
  EXPECT_EQ(lulesh_setup(nullptr, &p, &st, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("size <= 644"), std::string::npos) << err;
  EXPECT_EQ(st, nullptr);
}

// The whole run against upstream: iteration count exact, origin energy to 1e-12
// (our kernels follow upstream's arithmetic; only the order of the force sums
// differs between schemes and colourings), and the symmetry of plane 0 kept.
struct LuleshCase {
  const char *backend;
  um_layout layout;
  lulesh_forces forces;
  int block;
  int fused;
  um_strategy strategy = UM_STRATEGY_AUTO;
  int staging = 0; /* CUDA: 0 the profile's, 1 inc, 2 all, 3 none */
  int eos_merged = 0;
};

// What gtest prints for a case (its default prints the struct's bytes, pointer included: names that changed
// from one configure to the next in ctest's list).
void PrintTo(const LuleshCase &c, std::ostream *os) {
  *os << c.backend << " layout " << (int)c.layout << " forces " << (int)c.forces << " block " << c.block << " fused "
      << c.fused << " strategy " << (int)c.strategy << " staging " << c.staging << " eos " << c.eos_merged;
}

class LuleshVsUpstream : public ::testing::TestWithParam<LuleshCase> {};

TEST_P(LuleshVsUpstream, Size5And10) {
  const LuleshCase c = GetParam();
  if (!um_backend_available(c.backend)) GTEST_SKIP() << "backend not built, or no GPU";
  for (int size : {5, 10}) {
    lulesh_params p = params(size);
    p.forces = c.forces;
    p.fused = c.fused;
    p.eos_merged = c.eos_merged;
    LuRun r = run_lulesh(p, c.backend, c.layout, c.block, nullptr, UM_REORDER_NONE, c.strategy, c.staging);
    ASSERT_EQ(r.err, "");
    const Upstream u = upstream(size == 5 ? "s5" : "s10");
    EXPECT_EQ(r.res.cycles, u.cycles);
    EXPECT_NEAR(r.res.origin_energy, u.energy, 1e-12 * u.energy) << "size " << size;
    EXPECT_DOUBLE_EQ(r.res.time, 1.0e-2);
    EXPECT_LT(r.res.sym_max_rel, 1e-11) << "plane 0 lost its symmetry";
    free_run(r);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, LuleshVsUpstream,
    ::testing::Values(LuleshCase{"seq", UM_AOS, LULESH_FORCES_INC, 256, 1},
                      LuleshCase{"seq", UM_AOS, LULESH_FORCES_INC, 256, 0},
                      LuleshCase{"seq", UM_SOA, LULESH_FORCES_INC, 64, 1},
                      LuleshCase{"seq", UM_AOS, LULESH_FORCES_GATHER, 256, 0},
                      LuleshCase{"seq", UM_SOA, LULESH_FORCES_GATHER, 256, 1},
                      LuleshCase{"openmp", UM_AOS, LULESH_FORCES_INC, 32, 1},
                      LuleshCase{"openmp", UM_AOS, LULESH_FORCES_INC, 32, 0},
                      LuleshCase{"openmp", UM_SOA, LULESH_FORCES_INC, 256, 0},
                      LuleshCase{"openmp", UM_AOS, LULESH_FORCES_GATHER, 100, 1},
                      LuleshCase{"openmp", UM_LAYOUT_AUTO, LULESH_FORCES_GATHER, 256, 0},
                      LuleshCase{"openmp", UM_SOA, LULESH_FORCES_INC, 64, 1, UM_STRATEGY_AUTO, 0, 1},
                      LuleshCase{"openmp", UM_AOS, LULESH_FORCES_GATHER, 64, 1, UM_STRATEGY_AUTO, 0, LULESH_EOS_MERGED_Q},
                      // CUDA (skipped without a GPU): every strategy, both schemes, fused and not
                      LuleshCase{"cuda", UM_SOA, LULESH_FORCES_INC, 128, 1, UM_STRATEGY_ATOMICS, 3},
                      LuleshCase{"cuda", UM_AOS, LULESH_FORCES_GATHER, 256, 1, UM_STRATEGY_ATOMICS, 1},
                      LuleshCase{"cuda", UM_SOA, LULESH_FORCES_INC, 64, 0, UM_STRATEGY_GLOBAL, 1},
                      LuleshCase{"cuda", UM_SOA, LULESH_FORCES_INC, 320, 1, UM_STRATEGY_HIERARCHICAL, 1},
                      LuleshCase{"cuda", UM_AOS, LULESH_FORCES_GATHER, 96, 0, UM_STRATEGY_HIERARCHICAL, 2},
                      LuleshCase{"cuda", UM_LAYOUT_AUTO, LULESH_FORCES_INC, 256, 0, UM_STRATEGY_ATOMICS, 3},
                      LuleshCase{"cuda", UM_SOA, LULESH_FORCES_INC, 128, 1, UM_STRATEGY_ATOMICS, 3, 1},
                      LuleshCase{"cuda", UM_AOS, LULESH_FORCES_GATHER, 128, 1, UM_STRATEGY_HIERARCHICAL, 1, 1},
                      LuleshCase{"cuda", UM_SOA, LULESH_FORCES_INC, 128, 1, UM_STRATEGY_ATOMICS, 3, LULESH_EOS_MERGED_Q},
                      LuleshCase{"cuda", UM_AOS, LULESH_FORCES_INC, 96, 1, UM_STRATEGY_GLOBAL, 1, LULESH_EOS_MERGED_Q}),
    [](const ::testing::TestParamInfo<LuleshCase> &info) {
      return std::string(info.param.backend) + "_" + std::to_string(info.index);
    });

// Unfused sequential INC forces add in upstream's serial order, so the field is
// the same to the last bit as upstream's serial build.
TEST(LuleshRun, SequentialIncMatchesUpstreamSerialBitwise) {
  lulesh_params p = params(10);
  p.fused = 0;
  LuRun r = run_lulesh(p, "seq", UM_AOS, 256);
  ASSERT_EQ(r.err, "");
  const Upstream u = upstream("s10");
  EXPECT_EQ(r.res.cycles, u.cycles);
  EXPECT_EQ(r.res.origin_energy, u.energy);
  EXPECT_EQ(r.res.sym_max_abs, u.sym_max_abs);
  EXPECT_EQ(r.res.sym_total_abs, u.sym_total_abs);
  free_run(r);
}

// Regions, balance and cost change which loop an element's EOS runs in and how
// often it is repeated, never its result; the gather scheme and a reordering
// change only the order of sums.
TEST(LuleshRun, RegionsCostAndOrderingDoNotChangeTheAnswer) {
  std::vector<double> base, e;
  LuRun r0 = run_lulesh(params(6), "seq", UM_AOS, 256, &base);
  ASSERT_EQ(r0.err, "");
  const int cycles = r0.res.cycles;
  free_run(r0);
  const struct {
    int regions, balance, cost;
  } cases[] = {{1, 1, 1}, {4, 0, 3}, {21, 2, 2}, {50, 1, 0}};
  for (auto c : cases) {
    lulesh_params p = params(6);
    p.regions = c.regions;
    p.balance = c.balance;
    p.cost = c.cost;
    LuRun r = run_lulesh(p, "openmp", UM_AOS, 256, &e);
    ASSERT_EQ(r.err, "");
    EXPECT_EQ(r.res.cycles, cycles);
    ASSERT_EQ(e.size(), base.size());
    // openmp INC adds in a different order than seq: compare to rounding
    for (size_t i = 0; i < e.size(); i++)
      ASSERT_NEAR(e[i], base[i], 1e-9 * (std::fabs(base[i]) + 1e-3)) << "regions " << c.regions << " element " << i;
    free_run(r);
  }
  for (um_reorder_method m : {UM_REORDER_GPS, UM_REORDER_PARTITION}) {
    LuRun r = run_lulesh(params(6), "openmp", UM_AOS, 32, &e, m);
    ASSERT_EQ(r.err, "");
    EXPECT_EQ(r.res.cycles, cycles);
    for (size_t i = 0; i < e.size(); i++)
      ASSERT_NEAR(e[i], base[i], 1e-9 * (std::fabs(base[i]) + 1e-3)) << um_reorder_method_name(m) << " element " << i;
    free_run(r);
  }
}

// params.eos: merged runs every region's EOS and the volume constraints in one loop over the regions' elements:
// each element's arithmetic is the same and a minimum does not depend on the order, so the energies, the cycle
// count and the time are the region loops' bit for bit, on every CPU backend and for other region counts and
// costs; merged_q (each element's monotonic Q in the same loop, no monoq loop) too. Without the fused loops
// either is refused, saying why.
TEST(LuleshRun, MergedEosGivesTheBitsOfTheRegionLoops) {
  const struct {
    int regions, cost;
  } cases[] = {{11, 1}, {21, 2}, {1, 0}};
  for (const char *b : {"seq", "openmp"})
    for (auto c : cases) {
      if (!um_backend_available(b)) continue;
      lulesh_params p = params(6);
      p.regions = c.regions;
      p.cost = c.cost;
      std::vector<double> e_regions;
      LuRun r = run_lulesh(p, b, UM_SOA, 64, &e_regions);
      ASSERT_EQ(r.err, "");
      for (int merged : {1, LULESH_EOS_MERGED_Q}) {
        SCOPED_TRACE(std::string(b) + " regions " + std::to_string(c.regions) + " eos_merged " +
                     std::to_string(merged));
        std::vector<double> e_merged;
        p.eos_merged = merged;
        LuRun m = run_lulesh(p, b, UM_SOA, 64, &e_merged);
        ASSERT_EQ(m.err, "");
        EXPECT_EQ(m.res.cycles, r.res.cycles);
        EXPECT_EQ(m.res.time, r.res.time);
        EXPECT_EQ(m.res.dt, r.res.dt);
        EXPECT_EQ(e_merged, e_regions);
        const std::string fused = merged == 1 ? "eos_constraints" : "q_eos_constraints";
        int found = 0;
        for (int i = 0; i < um_loop_stats_count(m.ctx); i++) {
          um_loop_stats st;
          ASSERT_EQ(um_loop_stats_get(m.ctx, i, &st), UM_SUCCESS);
          EXPECT_NE(std::string(st.name).rfind("eos_r", 0), 0u) << "merged, yet " << st.name << " ran";
          if (merged == LULESH_EOS_MERGED_Q) EXPECT_NE(std::string(st.name), "monoq") << "its Q is in the EOS loop";
          found += std::string(st.name) == fused;
        }
        EXPECT_EQ(found, 1);
        free_run(m);
      }
      free_run(r);
    }
  for (int merged : {1, LULESH_EOS_MERGED_Q}) {
    lulesh_params p = params(5);
    p.eos_merged = merged;
    p.fused = 0;
    LuRun r = run_lulesh(p, "seq", UM_AOS, 64);
    EXPECT_NE(r.err.find("params.fused = true"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(merged == 1 ? "eos = merged " : "eos = merged_q "), std::string::npos) << r.err;
    free_run(r);
  }
}

// params.numbering: strips renumbers the elements in strips two rows high ((i, j), (i, j + 1), (i + 1, j) ...; an odd
// last row alone): the run is upstream numbering's to rounding (same cycles, energies read in upstream's order to
// 1e-12), element 1 is now (0, 1, 0), and the merged EOS set and the regions keep their elements in ascending order.
TEST(LuleshRun, StripsNumberingGivesTheSameRun) {
  for (int size : {6, 7})
    for (int merged : {0, 1, LULESH_EOS_MERGED_Q})
      for (const char *b : {"seq", "openmp"}) {
        if (!um_backend_available(b)) continue;
        SCOPED_TRACE(std::string(b) + " size " + std::to_string(size) + " eos_merged " + std::to_string(merged));
        lulesh_params p = params(size);
        p.eos_merged = merged;
        std::vector<double> e_rows, e_strips;
        LuRun r = run_lulesh(p, b, UM_SOA, 64, &e_rows);
        p.strips = 1;
        LuRun t = run_lulesh(p, b, UM_SOA, 64, &e_strips);
        ASSERT_EQ(r.err, "");
        ASSERT_EQ(t.err, "");
        EXPECT_EQ(t.res.cycles, r.res.cycles);
        EXPECT_NEAR(t.res.time, r.res.time, 1e-15);
        ASSERT_EQ(e_strips.size(), e_rows.size());
        for (size_t i = 0; i < e_rows.size(); i++)
          ASSERT_NEAR(e_strips[i], e_rows[i], 1e-12 * (1 + std::fabs(e_rows[i]))) << "element " << i;
        const um_map *en = um_find_map(t.ctx, "elem_nodes");
        ASSERT_NE(en, nullptr);
        EXPECT_EQ(um_map_data(en)[8 * 1], size + 1) << "element 1 is (0, 1, 0): its first node (0, 1, 0)";
        EXPECT_EQ(um_map_data(en)[8 * 2], 1) << "element 2 is (1, 0, 0)";
        for (int i = 0; i < um_map_count(t.ctx); i++) {  // eos_elems_map, region maps: ascending runs
          const um_map *m = um_map_at(t.ctx, i);
          const std::string name = um_map_name(m);
          if (name.rfind("eos_elems_map", 0) && name.rfind("region", 0)) continue;
          const int *d = um_map_data(m);
          int descents = 0;
          for (int k = 1; k < um_set_size(um_map_from(m)); k++) descents += d[k] < d[k - 1];
          EXPECT_LE(descents, merged ? 2 : 0) << name << ": in order (merged: one run per repetition count)";
        }
        if (merged == LULESH_EOS_MERGED_Q) {  // eos_faces renumbered with both sets: elem_faces through eos_elems_map
          const um_map *ef = um_find_map(t.ctx, "eos_faces"), *em = um_find_map(t.ctx, "eos_elems_map"),
                       *f = um_find_map(t.ctx, "elem_faces");
          ASSERT_TRUE(ef && em && f);
          for (int i = 0; i < um_set_size(um_map_from(ef)); i++)
            for (int k = 0; k < 6; k++)
              ASSERT_EQ(um_map_data(ef)[6 * i + k], um_map_data(f)[6 * um_map_data(em)[i] + k]) << i << " " << k;
        }
        free_run(r);
        free_run(t);
      }
}

TEST(LuleshRun, IterationCapStopsEarly) {
  lulesh_params p = params(10);
  p.max_cycles = 17;
  LuRun r = run_lulesh(p, "seq", UM_AOS, 256);
  ASSERT_EQ(r.err, "");
  EXPECT_EQ(r.res.cycles, 17);
  EXPECT_LT(r.res.time, 1.0e-2);
  EXPECT_GT(r.res.time, 0.0);
  free_run(r);
}

// A tangled mesh must stop the run with upstream's VolumeError, not run on.
TEST(LuleshRun, NegativeVolumeStopsTheRun) {
  lulesh_params p = params(4);
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  lulesh_state *s = nullptr;
  char err[1024] = "";
  ASSERT_EQ(lulesh_setup(ctx, &p, &s, err, sizeof err), UM_SUCCESS) << err;
  // fold the mesh: swap two nodes of the far corner element
  um_dat *coord = um_find_dat(ctx, "coord");
  std::vector<double> x(3 * (size_t)um_set_size(um_find_set(ctx, "nodes")));
  ASSERT_EQ(um_dat_fetch(ctx, coord, x.data(), x.size() * sizeof(double)), UM_SUCCESS);
  const int last = (int)x.size() / 3 - 1;
  x[3 * last + 0] = -5.0;
  x[3 * last + 1] = -5.0;
  x[3 * last + 2] = -5.0;
  ASSERT_EQ(um_dat_update(ctx, coord, x.data(), x.size() * sizeof(double)), UM_SUCCESS);
  int done = 0;
  EXPECT_EQ(lulesh_step(ctx, s, &done, err, sizeof err), UM_ERR_VALIDATION);
  EXPECT_NE(std::string(err).find("VolumeError"), std::string::npos) << err;
  lulesh_state_free(&s);
  um_finalize(&ctx);
}

// ---- the mesh by blocks ---------------------------------------------------------------------------------------

namespace {

// Every rank's block (lulesh_block_build) for P ranks, end to end, against the whole mesh, bit for bit: nodes,
// elements, symmetry planes, region lists, eos_elems' order and the gather scheme's corners.
void expect_blocks_are_the_whole_mesh(const lulesh_params &p, int P) {
  lulesh_mesh m;
  char err[256];
  ASSERT_EQ(lulesh_mesh_build(&p, &m, err, sizeof err), 0) << err;
  std::vector<double> coord, nmass, volo;
  std::vector<long long> en, ef, symm[3], corners, eos;
  std::vector<int> bits, bc, ncorner, eos_rep;
  std::vector<std::vector<long long>> regions(m.nregions);
  for (int q = 0; q < P; q++) {
    lulesh_block b;
    ASSERT_EQ(lulesh_block_build(&p, q, P, &b, err, sizeof err), 0) << err;
    ASSERT_EQ(b.node_first, (long long)coord.size() / 3) << "rank " << q << " of " << P;
    ASSERT_EQ(b.elem_first, (long long)volo.size());
    coord.insert(coord.end(), b.coord, b.coord + 3 * b.node_count);
    nmass.insert(nmass.end(), b.nodal_mass, b.nodal_mass + b.node_count);
    bits.insert(bits.end(), b.node_symm, b.node_symm + b.node_count);
    volo.insert(volo.end(), b.volo, b.volo + b.elem_count);
    bc.insert(bc.end(), b.elem_bc, b.elem_bc + b.elem_count);
    ASSERT_EQ(b.elem_nodes32 == nullptr, p.rows64 != 0) << "32-bit rows unless asked for 64";
    ASSERT_EQ(b.elem_faces32 == nullptr, p.rows64 != 0);
    if (p.rows64) {
      en.insert(en.end(), b.elem_nodes, b.elem_nodes + 8 * b.elem_count);
      ef.insert(ef.end(), b.elem_faces, b.elem_faces + 6 * b.elem_count);
    } else {
      ASSERT_TRUE(b.elem_nodes == nullptr && b.elem_faces == nullptr);
      en.insert(en.end(), b.elem_nodes32, b.elem_nodes32 + 8 * b.elem_count);
      ef.insert(ef.end(), b.elem_faces32, b.elem_faces32 + 6 * b.elem_count);
    }
    for (int d = 0; d < 3; d++) symm[d].insert(symm[d].end(), b.symm[d], b.symm[d] + b.symm_count);
    if (p.forces == LULESH_FORCES_GATHER) {
      corners.insert(corners.end(), b.node_corners, b.node_corners + 8 * b.node_count);
      ncorner.insert(ncorner.end(), b.node_ncorner, b.node_ncorner + b.node_count);
    }
    if (p.eos_merged) {
      eos.insert(eos.end(), b.eos_elems, b.eos_elems + b.eos_count);
      eos_rep.insert(eos_rep.end(), b.eos_rep, b.eos_rep + b.eos_count);
    }
    for (int r = 0; r < b.nregions && !p.eos_merged; r++) {
      ASSERT_EQ(b.region_size[r], m.region_size[r]);
      ASSERT_EQ(b.region_first[r], (long long)regions[r].size());
      regions[r].insert(regions[r].end(), b.region_elems[r], b.region_elems[r] + b.region_count[r]);
    }
    EXPECT_EQ(std::memcmp(&b.einit, &m.einit, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&b.dt_init, &m.dt_init, sizeof(double)), 0);
    lulesh_block_free(&b);
  }
  const size_t nn = (size_t)m.nnode, ne = (size_t)m.nelem;
  ASSERT_EQ(coord.size(), 3 * nn);
  ASSERT_EQ(volo.size(), ne);
  EXPECT_EQ(std::memcmp(coord.data(), m.coord, sizeof(double) * 3 * nn), 0);
  EXPECT_EQ(std::memcmp(nmass.data(), m.nodal_mass, sizeof(double) * nn), 0);
  EXPECT_EQ(std::memcmp(volo.data(), m.volo, sizeof(double) * ne), 0);
  EXPECT_EQ(std::memcmp(volo.data(), m.elem_mass, sizeof(double) * ne), 0);
  for (size_t i = 0; i < 8 * ne; i++) ASSERT_EQ(en[i], m.elem_nodes[i]) << "elem_nodes entry " << i;
  for (size_t i = 0; i < 6 * ne; i++) ASSERT_EQ(ef[i], m.elem_faces[i]) << "elem_faces entry " << i;
  for (size_t i = 0; i < ne; i++) ASSERT_EQ(bc[i], m.elem_bc[i]) << "elem_bc " << i;
  std::vector<int> want_bits(nn, 0);
  for (int d = 0; d < 3; d++) {
    ASSERT_EQ(symm[d].size(), (size_t)m.nsymm);
    for (int i = 0; i < m.nsymm; i++) ASSERT_EQ(symm[d][i], m.symm[d][i]) << "plane " << d << " entry " << i;
    for (int i = 0; i < m.nsymm; i++) want_bits[m.symm[d][i]] |= 1 << d;
  }
  EXPECT_TRUE(bits == want_bits);
  for (int r = 0; r < m.nregions && !p.eos_merged; r++) {
    ASSERT_EQ(regions[r].size(), (size_t)m.region_size[r]) << "region " << r;
    for (int i = 0; i < m.region_size[r]; i++) ASSERT_EQ(regions[r][i], m.region_elems[r][i]) << "region " << r;
  }
  if (p.eos_merged) { // every element, by its region's repetitions (descending), then by number
    std::vector<int> rep(ne);
    for (int r = 0; r < m.nregions; r++)
      for (int i = 0; i < m.region_size[r]; i++) rep[m.region_elems[r][i]] = m.region_rep[r];
    std::vector<std::pair<int, long long>> order;
    for (size_t e = 0; e < ne; e++) order.push_back({-rep[e], (long long)e});
    std::sort(order.begin(), order.end());
    ASSERT_EQ(eos.size(), ne);
    for (size_t i = 0; i < ne; i++) {
      ASSERT_EQ(eos[i], order[i].second) << "eos_elems " << i;
      ASSERT_EQ(eos_rep[i], -order[i].first) << "eos_rep " << i;
    }
  }
  if (p.forces == LULESH_FORCES_GATHER) { // node n's corners in element order, padded with the first
    std::vector<int> cnt(nn, 0);
    std::vector<long long> want(8 * nn);
    for (size_t e = 0; e < ne; e++)
      for (int j = 0; j < 8; j++) {
        const size_t n = (size_t)m.elem_nodes[8 * e + j];
        want[8 * n + cnt[n]++] = (long long)j * (long long)ne + (long long)e;
      }
    for (size_t n = 0; n < nn; n++)
      for (int k = cnt[n]; k < 8; k++) want[8 * n + k] = want[8 * n];
    EXPECT_TRUE(corners == want);
    EXPECT_TRUE(ncorner == cnt);
  }
  lulesh_mesh_free(&m);
}

}  // namespace

TEST(LuleshMeshBlocks, BlocksEndToEndAreTheWholeMesh) {
  for (int rows64 : {0, 1})
    for (int P : {1, 2, 3, 5, 7, 13, 64}) {
      SCOPED_TRACE("P = " + std::to_string(P) + (rows64 ? ", 64-bit rows" : ", 32-bit rows"));
      lulesh_params p = params(6);
      p.rows64 = rows64;
      expect_blocks_are_the_whole_mesh(p, P);
    }
}

TEST(LuleshMeshBlocks, RegionsSplitMidRunAndTheOtherVariants) {
  lulesh_params p = params(9); // 729 elements: runs of up to 2048 and many short ones, blocks cut inside them
  for (int P : {2, 3, 4, 11}) expect_blocks_are_the_whole_mesh(p, P);
  p.regions = 1;
  expect_blocks_are_the_whole_mesh(p, 3);
  p = params(7);
  p.forces = LULESH_FORCES_GATHER;
  for (int P : {2, 5}) expect_blocks_are_the_whole_mesh(p, P);
  p = params(8);
  p.eos_merged = 1;
  p.regions = 21;
  p.balance = 2;
  for (int P : {3, 6}) expect_blocks_are_the_whole_mesh(p, P);
}
