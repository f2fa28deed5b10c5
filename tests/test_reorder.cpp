// Mesh reordering (um/reorder.h): permutations are bijections, every map stays
// consistent, Airfoil gives the same physics with and without each reordering
// (compared after undoing the permutation) on the CPU backends and layouts,
// partitioning raises locality on a shuffled mesh, the parts of a partition
// become the plan's blocks, HDF5 save/load round trip (parts included), and
// clear errors for bad inputs. Prints (does not assert) the time to
// reorder the 720K-cell Airfoil mesh.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <hdf5.h>

extern "C" {
#include "airfoil.h"
#include "internal.h"  // um_set's parts, the loops' plans
#include "um/hdf5io.h"
#include "um/reorder.h"
#include "um/um.h"
}

namespace {

#define OK(call) ASSERT_EQ((call), UM_SUCCESS) << um_error_message(ctx)

struct AfRun {
  um_context *ctx = nullptr;
  airfoil a{};
  airfoil_mesh m{};
  AfRun(int I, int J, const char *b = "seq", um_layout l = UM_AOS, int bs = 64) {
    um_options o;
    um_options_default(&o);
    o.backend = b;
    o.layout = l;
    o.block_size = bs;
    o.check_plans = 1;
    um_options_set(&o, "openmp.parallel_threshold", "0");
    o.nthreads = 2;
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    char err[256];
    EXPECT_EQ(airfoil_mesh_generate(I, J, 1, &m, err, sizeof err), 0) << err;
    EXPECT_EQ(airfoil_set_constants(ctx), UM_SUCCESS);
    EXPECT_EQ(airfoil_decl_mesh(ctx, &m, &a), UM_SUCCESS) << um_error_message(ctx);
    EXPECT_EQ(airfoil_decl_flow(ctx, &a), UM_SUCCESS) << um_error_message(ctx);
  }
  ~AfRun() {
    airfoil_mesh_free(&m);
    um_finalize(&ctx);
  }
  std::vector<double> original(um_dat *d) {
    std::vector<double> v((size_t)um_set_size(um_dat_set(d)) * um_dat_dim(d));
    EXPECT_EQ(um_dat_fetch_original_order(ctx, d, v.data(), v.size() * sizeof(double)), UM_SUCCESS)
        << um_error_message(ctx);
    return v;
  }
  std::vector<int> map_copy(const um_map *m) {
    const int *p = um_map_data(m);
    return std::vector<int>(p, p + (size_t)um_set_size(um_map_from(m)) * um_map_arity(m));
  }
};

bool is_bijection(const int *p, int n) {
  std::vector<char> seen(n, 0);
  for (int i = 0; i < n; i++) {
    if (p[i] < 0 || p[i] >= n || seen[p[i]]) return false;
    seen[p[i]] = 1;
  }
  return true;
}

// A random shuffle of every set, applied by hand (um_reordering_set_perm).
void shuffle_all(um_context *ctx, unsigned seed) {
  um_reordering *r = nullptr;
  OK(um_reordering_create(ctx, &r));
  std::mt19937 g(seed);
  for (int i = 0; i < um_set_count(ctx); i++) {
    um_set *s = um_set_at(ctx, i);
    std::vector<int> p(um_set_size(s));
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), g);
    OK(um_reordering_set_perm(ctx, r, s, p.data(), (int)p.size()));
  }
  OK(um_reorder_apply(ctx, r, nullptr));
  um_reordering_free(&r);
}

// |got - ref| <= 1e-12 * max |ref| over the component (a sum taken in another
// order differs by rounding, which near-zero values show as large relative errors)
void expect_close(const std::vector<double> &got, const std::vector<double> &ref, int dim, const char *what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  for (int c = 0; c < dim; c++) {
    double scale = 0;
    for (size_t i = c; i < ref.size(); i += dim) scale = std::max(scale, std::fabs(ref[i]));
    ASSERT_GT(scale, 0) << what << ": reference is zero, the test would prove nothing";
    for (size_t i = c; i < ref.size(); i += dim)
      ASSERT_NEAR(got[i], ref[i], 1e-12 * scale) << what << " element " << i / dim << " component " << c;
  }
}

std::vector<int> parts_of(const um_set *s) {
  if (!s->part_offset) return {};
  return std::vector<int>(s->part_offset, s->part_offset + s->nparts + 1);
}

// The plan res_calc ran with last (NULL if none).
const um_plan *last_plan(um_context *ctx, const char *loop) {
  for (int i = 0; i < ctx->nloops; i++)
    if (std::string(ctx->loops[i].name) == loop) return ctx->loops[i].last_plan;
  return nullptr;
}

std::vector<int> block_offsets(const um_plan *p) {
  return p ? std::vector<int>(p->block_offset, p->block_offset + p->nblocks + 1) : std::vector<int>{};
}

class ReorderMethod : public ::testing::TestWithParam<um_reorder_method> {};

TEST_P(ReorderMethod, PermutationsAreBijectionsAndMapsStayConsistent) {
  AfRun r(50, 75);
  um_context *ctx = r.ctx;
  int nm = um_map_count(ctx);
  std::vector<std::vector<int>> before;
  for (int i = 0; i < nm; i++) before.push_back(r.map_copy(um_map_at(ctx, i)));
  std::vector<double> x0 = r.original(r.a.p_x);
  std::vector<int> bound0(um_set_size(r.a.bedges));
  OK(um_dat_fetch(ctx, r.a.p_bound, bound0.data(), bound0.size() * sizeof(int)));

  um_reorder_stats st{};
  OK(um_reorder(ctx, GetParam(), r.a.pecell, nullptr, &st));
  EXPECT_GE(st.compute_seconds, 0.0);
  if (GetParam() == UM_REORDER_PARTITION) {
    EXPECT_EQ(st.nparts, (int)std::ceil(um_set_size(r.a.edges) / (64 * 0.9)));
    EXPECT_LE(st.max_part_size, 64);
    EXPECT_GT(st.edgecut, 0);
  }
  int changed = 0;
  for (int i = 0; i < um_set_count(ctx); i++) {
    um_set *s = um_set_at(ctx, i);
    const int *p = um_set_permutation(s);
    ASSERT_NE(p, nullptr) << "every Airfoil set is connected to edges/cells: " << um_set_name(s);
    EXPECT_TRUE(is_bijection(p, um_set_size(s))) << um_set_name(s);
    for (int e = 0; e < um_set_size(s); e++) changed += p[e] != e;
  }
  EXPECT_GT(changed, 0) << "the reordering changed nothing";
  // map[new e][k] == perm_to[old_map[old e][k]] for every map
  for (int i = 0; i < nm; i++) {
    um_map *m = um_map_at(ctx, i);
    const int *pf = um_set_permutation(um_map_from(m)), *pt = um_set_permutation(um_map_to(m));
    const int *now = um_map_data(m);
    int ar = um_map_arity(m);
    for (int e = 0; e < um_set_size(um_map_from(m)); e++)
      for (int k = 0; k < ar; k++)
        ASSERT_EQ(now[(size_t)pf[e] * ar + k], pt[before[i][(size_t)e * ar + k]])
            << "map " << um_map_name(m) << " element " << e << " index " << k;
  }
  // dats come back in declaration order
  EXPECT_EQ(r.original(r.a.p_x), x0);
  std::vector<int> bound1(bound0.size());
  OK(um_dat_fetch_original_order(ctx, r.a.p_bound, bound1.data(), bound1.size() * sizeof(int)));
  EXPECT_EQ(bound1, bound0);
}

INSTANTIATE_TEST_SUITE_P(Methods, ReorderMethod, ::testing::Values(UM_REORDER_GPS, UM_REORDER_PARTITION),
                         [](const ::testing::TestParamInfo<um_reorder_method> &i) {
                           return std::string(um_reorder_method_name(i.param));
                         });

TEST(Reorder, GpsOrdersIterationSetByTargets) {
  AfRun r(20, 30);
  um_context *ctx = r.ctx;
  OK(um_reorder(ctx, UM_REORDER_GPS, r.a.pecell, nullptr, nullptr));
  // edges sorted lexicographically by their (sorted) cells; bedges by their cell
  const int *ec = um_map_data(r.a.pecell);
  for (int e = 1; e < um_set_size(r.a.edges); e++) {
    int a0 = std::min(ec[2 * e - 2], ec[2 * e - 1]), a1 = std::max(ec[2 * e - 2], ec[2 * e - 1]);
    int b0 = std::min(ec[2 * e], ec[2 * e + 1]), b1 = std::max(ec[2 * e], ec[2 * e + 1]);
    ASSERT_TRUE(a0 < b0 || (a0 == b0 && a1 <= b1)) << "edge " << e;
  }
  const int *bc = um_map_data(r.a.pbecell);
  for (int e = 1; e < um_set_size(r.a.bedges); e++) ASSERT_LE(bc[e - 1], bc[e]) << "bedge " << e;
}

TEST(Reorder, PartitionGroupsTargetsBySharingBlocks) {
  // a chain of 20 cells joined by 19 edges, in scrambled order; block 12 with
  // margin 0.1 gives 2 parts: two runs of edges, cells private to the first
  // part, then those private to the second, the one shared cell last
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, nullptr), UM_SUCCESS);
  const int nc = 20, ne = 19;
  std::vector<int> cperm(nc), eperm(ne), ec;
  std::iota(cperm.begin(), cperm.end(), 0);
  std::iota(eperm.begin(), eperm.end(), 0);
  std::mt19937 g(5);
  std::shuffle(cperm.begin(), cperm.end(), g);
  std::shuffle(eperm.begin(), eperm.end(), g);
  for (int e = 0; e < ne; e++) {
    ec.push_back(cperm[eperm[e]]);
    ec.push_back(cperm[eperm[e] + 1]);
  }
  um_set *edges, *cells;
  um_map *emap;
  OK(um_decl_set(ctx, ne, "edges", &edges));
  OK(um_decl_set(ctx, nc, "cells", &cells));
  OK(um_decl_map(ctx, edges, cells, 2, ec.data(), "ecell", &emap));
  um_reorder_options o;
  um_reorder_options_default(&o);
  o.block_size = 12;
  um_reorder_stats st{};
  OK(um_reorder(ctx, UM_REORDER_PARTITION, emap, &o, &st));
  EXPECT_EQ(st.nparts, 2);
  EXPECT_EQ(st.edgecut, 1);
  // edges come part by part (old order inside a part): some k splits them so
  // that the cells of edges [0, k) other than the shared one (numbered last)
  // all come before those of edges [k, ne)
  const int *m = um_map_data(emap);
  bool found = false;
  for (int k = 1; k < ne && !found; k++) {
    int max_first = -1, min_second = nc;
    for (int e = 0; e < ne; e++)
      for (int j = 0; j < 2; j++) {
        int c = m[2 * e + j];
        if (c == nc - 1) continue;
        if (e < k) max_first = std::max(max_first, c);
        else min_second = std::min(min_second, c);
      }
    found = max_first + 1 == min_second;
  }
  EXPECT_TRUE(found) << "no split of the edges into two parts with private cells numbered part by part";
  int refs_last = 0;
  for (int i = 0; i < 2 * ne; i++) refs_last += m[i] == nc - 1;
  EXPECT_EQ(refs_last, 2) << "the cell shared by the two parts is numbered last";
  um_finalize(&ctx);
}

struct SameCase {
  um_reorder_method method;
  const char *b;
  um_layout l;
};

class ReorderSamePhysics : public ::testing::TestWithParam<SameCase> {};

TEST_P(ReorderSamePhysics, AirfoilResultUnchangedAfterUndo) {
  SameCase c = GetParam();
  if (!um_backend_available(c.b)) GTEST_SKIP() << "backend not built";
  const int iters = 5;
  std::vector<double> q_ref, res_ref;
  double rms_ref = 0;
  {
    AfRun r(50, 75, "seq", UM_AOS);
    um_context *ctx = r.ctx;
    for (int i = 0; i < iters; i++) OK(airfoil_iteration(ctx, &r.a, &rms_ref));
    q_ref = r.original(r.a.p_q);
    res_ref = r.original(r.a.p_adt);
  }
  AfRun r(50, 75, c.b, c.l);
  um_context *ctx = r.ctx;
  OK(um_reorder(ctx, c.method, r.a.pecell, nullptr, nullptr));
  double rms = 0;
  for (int i = 0; i < iters; i++) OK(airfoil_iteration(ctx, &r.a, &rms));
  std::vector<double> q = r.original(r.a.p_q), adt = r.original(r.a.p_adt);
  expect_close(q, q_ref, 4, "q");
  expect_close(adt, res_ref, 1, "adt");
  EXPECT_NEAR(rms, rms_ref, 1e-12 * rms_ref);
  // partition: the parts (made for the context's block size 64) were res_calc's blocks
  std::vector<int> parts = parts_of(r.a.edges);
  EXPECT_EQ(parts.empty(), c.method != UM_REORDER_PARTITION);
  if (c.method == UM_REORDER_PARTITION) EXPECT_EQ(r.a.edges->part_block_size, 64);
  if (std::string(c.b) == "openmp") {  // the backend that builds plans
    const um_plan *p = last_plan(ctx, "res_calc");
    ASSERT_NE(p, nullptr);
    if (c.method == UM_REORDER_PARTITION) EXPECT_EQ(block_offsets(p), parts);
    else EXPECT_EQ(p->nblocks, (um_set_size(r.a.edges) + 63) / 64);
  }
}

std::vector<SameCase> same_cases() {
  std::vector<SameCase> v;
  for (um_reorder_method m : {UM_REORDER_GPS, UM_REORDER_PARTITION})
    for (const char *b : {"seq", "openmp"})
      for (um_layout l : {UM_AOS, UM_SOA}) v.push_back({m, b, l});
  return v;
}

INSTANTIATE_TEST_SUITE_P(MethodsBackendsLayouts, ReorderSamePhysics, ::testing::ValuesIn(same_cases()),
                         [](const ::testing::TestParamInfo<SameCase> &i) {
                           return std::string(um_reorder_method_name(i.param.method)) + "_" +
                                  std::string(i.param.b) + "_" + um_layout_name(i.param.l);
                         });

// res_calc's plan statistics on a randomly shuffled mesh, then reordered.
um_loop_stats res_calc_stats(um_reorder_method method, int shuffle) {
  AfRun r(50, 75, "openmp", UM_AOS, 256);  // plans are built by the openmp backend
  um_context *ctx = r.ctx;
  um_loop_stats s{};
  if (shuffle) shuffle_all(ctx, 12345);
  if (method != UM_REORDER_NONE) EXPECT_EQ(um_reorder(ctx, method, r.a.pecell, nullptr, nullptr), UM_SUCCESS);
  EXPECT_EQ(airfoil_adt_calc(ctx, &r.a), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(airfoil_res_calc(ctx, &r.a), UM_SUCCESS) << um_error_message(ctx);
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    um_loop_stats t;
    EXPECT_EQ(um_loop_stats_get(ctx, i, &t), UM_SUCCESS);
    if (std::string(t.name) == "res_calc") s = t;
  }
  return s;
}

TEST(Reorder, PartitionAndGpsRaiseLocalityOfAShuffledMesh) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "needs the openmp backend (plans)";
  um_loop_stats shuffled = res_calc_stats(UM_REORDER_NONE, 1);
  um_loop_stats part = res_calc_stats(UM_REORDER_PARTITION, 1);
  um_loop_stats gps = res_calc_stats(UM_REORDER_GPS, 1);
  std::printf("[ reorder  ] res_calc, 50x75 mesh shuffled, block 256: reuse %.2f / %.2f / %.2f, "
              "cache lines per block %.0f / %.0f / %.0f (shuffled / partition / gps)\n",
              shuffled.reuse_factor, part.reuse_factor, gps.reuse_factor, shuffled.cache_lines_mean,
              part.cache_lines_mean, gps.cache_lines_mean);
  ASSERT_TRUE(shuffled.has_plan && part.has_plan && gps.has_plan);
  EXPECT_GT(part.reuse_factor, 1.5 * shuffled.reuse_factor);
  EXPECT_LT(part.cache_lines_mean, 0.7 * shuffled.cache_lines_mean);
  EXPECT_GT(gps.reuse_factor, 1.5 * shuffled.reuse_factor);
  EXPECT_LT(gps.cache_lines_mean, 0.7 * shuffled.cache_lines_mean);
}

TEST(Reorder, PartitionPartsAreThePlanBlocks) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "needs the openmp backend (plans)";
  AfRun r(50, 75, "openmp", UM_AOS, 256);
  um_context *ctx = r.ctx;
  um_reorder_stats st{};
  OK(um_reorder(ctx, UM_REORDER_PARTITION, r.a.pecell, nullptr, &st));
  // the iteration set (pecell's from-set) has the parts, in its new numbering; no other set has any
  const int ne = um_set_size(r.a.edges);
  std::vector<int> parts = parts_of(r.a.edges);
  ASSERT_FALSE(parts.empty());
  EXPECT_EQ(r.a.edges->part_block_size, 256);
  EXPECT_EQ(r.a.edges->nparts, st.nparts);  // no empty METIS part on this mesh
  EXPECT_EQ(parts.front(), 0);
  EXPECT_EQ(parts.back(), ne);
  int largest = 0;
  for (size_t k = 1; k < parts.size(); k++) {
    ASSERT_GE(parts[k] - parts[k - 1], 1) << "part " << k - 1;
    largest = std::max(largest, parts[k] - parts[k - 1]);
  }
  EXPECT_EQ(largest, st.max_part_size);
  EXPECT_LE(largest, (int)(256 * 0.9 * 1.02) + 1);
  for (um_set *s : {r.a.nodes, r.a.cells, r.a.bedges}) EXPECT_EQ(s->part_offset, nullptr) << um_set_name(s);

  // res_calc's plan (checked: AfRun sets check_plans) has the parts as its blocks
  OK(airfoil_adt_calc(ctx, &r.a));
  OK(airfoil_res_calc(ctx, &r.a));
  const um_plan *p = last_plan(ctx, "res_calc");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->nblocks, r.a.edges->nparts);
  EXPECT_EQ(block_offsets(p), parts);
  for (int b = 0; b < p->nblocks; b++) ASSERT_LE(p->block_offset[b + 1] - p->block_offset[b], 256);
  um_loop_stats ls{};
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    OK(um_loop_stats_get(ctx, i, &ls));
    if (std::string(ls.name) == "res_calc") break;
  }
  EXPECT_EQ(ls.nblocks, r.a.edges->nparts);
  // another block size for the loop: the parts do not fit it, fixed blocks again
  OK(um_loop_set_block_size(ctx, "res_calc", 128));
  OK(airfoil_res_calc(ctx, &r.a));
  p = last_plan(ctx, "res_calc");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->nblocks, (ne + 127) / 128);
  EXPECT_EQ(p->block_offset[1], 128);
}

TEST(Reorder, LaterReorderingReplacesOrKeepsParts) {
  // a later reordering that renumbers the edges drops their parts; one that
  // leaves them alone (only cells shuffled) keeps them
  {
    AfRun r(20, 30);
    um_context *ctx = r.ctx;
    OK(um_reorder(ctx, UM_REORDER_PARTITION, r.a.pecell, nullptr, nullptr));
    std::vector<int> parts = parts_of(r.a.edges);
    ASSERT_FALSE(parts.empty());
    um_reordering *q = nullptr;
    OK(um_reordering_create(ctx, &q));
    std::vector<int> p(um_set_size(r.a.cells));
    std::iota(p.rbegin(), p.rend(), 0);
    OK(um_reordering_set_perm(ctx, q, r.a.cells, p.data(), (int)p.size()));
    OK(um_reorder_apply(ctx, q, nullptr));
    um_reordering_free(&q);
    EXPECT_EQ(parts_of(r.a.edges), parts);
    OK(um_reorder(ctx, UM_REORDER_GPS, r.a.pecell, nullptr, nullptr));
    EXPECT_EQ(r.a.edges->part_offset, nullptr);
    EXPECT_EQ(r.a.edges->nparts, 0);
  }
  {
    // a second partition replaces the parts (other block size)
    AfRun r(20, 30);
    um_context *ctx = r.ctx;
    OK(um_reorder(ctx, UM_REORDER_PARTITION, r.a.pecell, nullptr, nullptr));
    um_reorder_options o;
    um_reorder_options_default(&o);
    o.block_size = 32;
    OK(um_reorder(ctx, UM_REORDER_PARTITION, r.a.pecell, &o, nullptr));
    EXPECT_EQ(r.a.edges->part_block_size, 32);
    std::vector<int> parts = parts_of(r.a.edges);
    ASSERT_FALSE(parts.empty());
    for (size_t k = 1; k < parts.size(); k++) ASSERT_LE(parts[k] - parts[k - 1], 32);
    // a hand-made reordering that renumbers the edges drops the parts a computed one had
    um_reordering *q = nullptr;
    OK(um_reorder_compute(ctx, UM_REORDER_PARTITION, r.a.pecell, &o, &q, nullptr));
    std::vector<int> id(um_set_size(r.a.edges));
    std::iota(id.begin(), id.end(), 0);
    OK(um_reordering_set_perm(ctx, q, r.a.edges, id.data(), (int)id.size()));
    OK(um_reorder_apply(ctx, q, nullptr));
    um_reordering_free(&q);
    EXPECT_EQ(r.a.edges->part_offset, nullptr);
  }
  {
    // a large imbalance can make a part bigger than the block: it is split into blocks that fit
    AfRun r(20, 30, "seq", UM_AOS, 16);
    um_context *ctx = r.ctx;
    um_reorder_options o;
    um_reorder_options_default(&o);
    o.margin = 0.0;
    o.imbalance = 3.0;
    um_reorder_stats st{};
    OK(um_reorder(ctx, UM_REORDER_PARTITION, r.a.pecell, &o, &st));
    std::vector<int> parts = parts_of(r.a.edges);
    ASSERT_FALSE(parts.empty());
    EXPECT_EQ(parts.back(), um_set_size(r.a.edges));
    for (size_t k = 1; k < parts.size(); k++) {
      ASSERT_GE(parts[k] - parts[k - 1], 1);
      ASSERT_LE(parts[k] - parts[k - 1], 16);
    }
    std::printf("[ reorder  ] imbalance 3, block 16: %d METIS parts (largest %d) -> %d blocks\n", st.nparts,
                st.max_part_size, r.a.edges->nparts);
  }
}

TEST(Reorder, ShuffleThenUndoGivesSameResult) {
  // a hand-built reordering composes with a computed one; results come back in declaration order
  std::vector<double> q_ref;
  double rms_ref = 0, rms = 0;
  {
    AfRun r(20, 30);
    um_context *ctx = r.ctx;
    for (int i = 0; i < 3; i++) OK(airfoil_iteration(ctx, &r.a, &rms_ref));
    q_ref = r.original(r.a.p_q);
  }
  AfRun r(20, 30);
  um_context *ctx = r.ctx;
  shuffle_all(ctx, 7);
  OK(um_reorder(ctx, UM_REORDER_PARTITION, r.a.pecell, nullptr, nullptr));
  for (int i = 0; i < 3; i++) OK(airfoil_iteration(ctx, &r.a, &rms));
  expect_close(r.original(r.a.p_q), q_ref, 4, "q");
  EXPECT_NEAR(rms, rms_ref, 1e-12 * rms_ref);
}

// A reordered context's mesh file (um_hdf5_write_mesh: the apps' HDF5 outputs) is in the declared numbering: the
// bytes of a file written before any reordering, not the reordered rows
TEST(Reorder, MeshFilesAreWrittenInTheDeclaredNumbering) {
  const std::string plain = testing::TempDir() + "um_reorder_plain.h5";
  const std::string shuffled = testing::TempDir() + "um_reorder_shuffled.h5";
  {
    AfRun r(20, 30);
    um_context *ctx = r.ctx;
    OK(um_hdf5_write_mesh(ctx, plain.c_str()));
  }
  AfRun r(20, 30);
  um_context *ctx = r.ctx;
  shuffle_all(ctx, 11);
  OK(um_reorder(ctx, UM_REORDER_GPS, r.a.pecell, nullptr, nullptr));
  OK(um_hdf5_write_mesh(ctx, shuffled.c_str()));
  std::ifstream a(plain, std::ios::binary), b(shuffled, std::ios::binary);
  const std::string fa((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>()),
      fb((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  ASSERT_GT(fa.size(), 1000u);
  EXPECT_TRUE(fa == fb) << "the reordered context's file differs from the declared mesh's";
  std::remove(plain.c_str()), std::remove(shuffled.c_str());
}

TEST(Reorder, Hdf5SaveLoadRoundTrip) {
  const std::string path = testing::TempDir() + "um_reorder_roundtrip.h5";
  std::vector<std::vector<int>> maps_computed;
  std::vector<int> parts_computed;
  {
    AfRun r(20, 30);
    um_context *ctx = r.ctx;
    um_reordering *p = nullptr;
    um_reorder_stats st{};
    OK(um_reorder_compute(ctx, UM_REORDER_PARTITION, r.a.pecell, nullptr, &p, &st));
    OK(um_reordering_save(ctx, p, path.c_str(), &st));
    OK(um_reorder_apply(ctx, p, &st));
    um_reordering_free(&p);
    for (int i = 0; i < um_map_count(ctx); i++) maps_computed.push_back(r.map_copy(um_map_at(ctx, i)));
    parts_computed = parts_of(r.a.edges);
    ASSERT_FALSE(parts_computed.empty());
  }
  {
    AfRun r(20, 30);
    um_context *ctx = r.ctx;
    um_reordering *p = nullptr;
    OK(um_reordering_load(ctx, path.c_str(), &p, nullptr));
    EXPECT_EQ(um_reordering_method(p), UM_REORDER_PARTITION);
    EXPECT_STREQ(um_reordering_map(p), "pecell");
    EXPECT_EQ(um_reordering_nsets(p), um_set_count(ctx));
    OK(um_reorder_apply(ctx, p, nullptr));
    um_reordering_free(&p);
    for (int i = 0; i < um_map_count(ctx); i++)
      EXPECT_EQ(r.map_copy(um_map_at(ctx, i)), maps_computed[i]) << um_map_name(um_map_at(ctx, i));
    EXPECT_EQ(parts_of(r.a.edges), parts_computed);
    EXPECT_EQ(r.a.edges->part_block_size, 64);
    EXPECT_EQ(r.a.cells->part_offset, nullptr);
  }
  // corrupt parts are refused: a part larger than the block size
  {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    hid_t d = H5Dopen2(f, "parts_edges", H5P_DEFAULT);
    ASSERT_GE(d, 0);
    std::vector<int> bad = parts_computed;
    bad[1] = bad[2] - 1;  // part 0 grows to nearly two parts, part 1 shrinks to one element
    ASSERT_GE(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, bad.data()), 0);
    H5Dclose(d);
    H5Fclose(f);
    AfRun r(20, 30);
    um_reordering *p = nullptr;
    EXPECT_EQ(um_reordering_load(r.ctx, path.c_str(), &p, nullptr), UM_ERR_IO);
    EXPECT_NE(std::string(um_error_message(r.ctx)).find("parts of set 'edges'"), std::string::npos)
        << um_error_message(r.ctx);
    EXPECT_EQ(p, nullptr);
  }
  // a file without parts (as older versions wrote) loads and applies, with no parts
  {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    ASSERT_GE(H5Ldelete(f, "parts_edges", H5P_DEFAULT), 0);
    H5Fclose(f);
    AfRun r(20, 30);
    um_context *ctx = r.ctx;
    um_reordering *p = nullptr;
    OK(um_reordering_load(ctx, path.c_str(), &p, nullptr));
    OK(um_reorder_apply(ctx, p, nullptr));
    um_reordering_free(&p);
    for (int i = 0; i < um_map_count(ctx); i++)
      EXPECT_EQ(r.map_copy(um_map_at(ctx, i)), maps_computed[i]) << um_map_name(um_map_at(ctx, i));
    EXPECT_EQ(r.a.edges->part_offset, nullptr);
  }
  std::remove(path.c_str());
}

// A reordering file of the first format (no format_version attribute: its map
// fingerprint was not FNV-1a) is refused, with what to do about it.
TEST(Reorder, FileWithoutFormatVersionIsRefused) {
  const std::string path = testing::TempDir() + "um_reorder_no_version.h5";
  AfRun r(4, 6);
  um_context *ctx = r.ctx;
  um_reordering *p = nullptr;
  OK(um_reorder_compute(ctx, UM_REORDER_GPS, r.a.pecell, nullptr, &p, nullptr));
  OK(um_reordering_save(ctx, p, path.c_str(), nullptr));
  um_reordering_free(&p);
  OK(um_reordering_load(ctx, path.c_str(), &p, nullptr));  // loads while the attribute is there
  um_reordering_free(&p);
  {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    ASSERT_GE(H5Adelete(f, "format_version"), 0);
    H5Fclose(f);
  }
  EXPECT_EQ(um_reordering_load(ctx, path.c_str(), &p, nullptr), UM_ERR_IO);
  const std::string msg = um_error_message(ctx);
  EXPECT_NE(msg.find("format version 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("delete"), std::string::npos) << msg;
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_EQ(p, nullptr);
  std::remove(path.c_str());
}

TEST(Reorder, BadInputsGiveClearErrors) {
  AfRun r(4, 6);
  um_context *ctx = r.ctx;
  um_reorder_method m;
  EXPECT_EQ(um_reorder_method_parse("metis", &m), UM_ERR_ARG);
  EXPECT_EQ(um_reorder_method_parse("partition", &m), UM_SUCCESS);
  EXPECT_EQ(m, UM_REORDER_PARTITION);

  EXPECT_EQ(um_reorder(ctx, (um_reorder_method)7, r.a.pecell, nullptr, nullptr), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("unknown reordering method"), std::string::npos);
  EXPECT_EQ(um_reorder(ctx, UM_REORDER_GPS, nullptr, nullptr, nullptr), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("needs a map"), std::string::npos);

  // a map from a set to itself
  std::vector<int> self(um_set_size(r.a.nodes));
  std::iota(self.begin(), self.end(), 0);
  um_map *selfmap = nullptr;
  OK(um_decl_map(ctx, r.a.nodes, r.a.nodes, 1, self.data(), "nodes_to_nodes", &selfmap));
  EXPECT_EQ(um_reorder(ctx, UM_REORDER_PARTITION, selfmap, nullptr, nullptr), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("to itself"), std::string::npos) << um_error_message(ctx);

  // a map of another context
  {
    AfRun other(4, 6);
    EXPECT_EQ(um_reorder(ctx, UM_REORDER_GPS, other.a.pecell, nullptr, nullptr), UM_ERR_ARG);
    EXPECT_NE(std::string(um_error_message(ctx)).find("another context"), std::string::npos);
  }
  // bad partition options
  um_reorder_options o;
  um_reorder_options_default(&o);
  o.margin = 1.0;
  EXPECT_EQ(um_reorder(ctx, UM_REORDER_PARTITION, r.a.pecell, &o, nullptr), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("margin"), std::string::npos);

  // hand-built permutations: wrong size, not a bijection
  um_reordering *p = nullptr;
  OK(um_reordering_create(ctx, &p));
  std::vector<int> bad(um_set_size(r.a.cells), 0);
  EXPECT_EQ(um_reordering_set_perm(ctx, p, r.a.cells, bad.data(), (int)bad.size() - 1), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("entries but the set has"), std::string::npos);
  EXPECT_EQ(um_reordering_set_perm(ctx, p, r.a.cells, bad.data(), (int)bad.size()), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("not a bijection"), std::string::npos);
  um_reordering_free(&p);

  // permutation files: missing, not HDF5, another mesh (sizes), same sizes but other numbering
  EXPECT_EQ(um_reordering_load(ctx, "/nonexistent/perm.h5", &p, nullptr), UM_ERR_IO);
  EXPECT_NE(std::string(um_error_message(ctx)).find("/nonexistent/perm.h5"), std::string::npos);
  const std::string txt = testing::TempDir() + "um_reorder_not_h5.h5";
  { std::ofstream(txt) << "hello\n"; }
  EXPECT_EQ(um_reordering_load(ctx, txt.c_str(), &p, nullptr), UM_ERR_IO);
  EXPECT_NE(std::string(um_error_message(ctx)).find("not an HDF5 file"), std::string::npos);
  std::remove(txt.c_str());

  const std::string big = testing::TempDir() + "um_reorder_big.h5";
  {
    AfRun r2(8, 6);
    um_reordering *q = nullptr;
    ASSERT_EQ(um_reorder_compute(r2.ctx, UM_REORDER_GPS, r2.a.pecell, nullptr, &q, nullptr), UM_SUCCESS);
    ASSERT_EQ(um_reordering_save(r2.ctx, q, big.c_str(), nullptr), UM_SUCCESS) << um_error_message(r2.ctx);
    um_reordering_free(&q);
  }
  AfRun r3(4, 6);
  EXPECT_EQ(um_reordering_load(r3.ctx, big.c_str(), &p, nullptr), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(r3.ctx)).find("elements but the file's permutation has"), std::string::npos)
      << um_error_message(r3.ctx);
  std::remove(big.c_str());

  const std::string shuffled = testing::TempDir() + "um_reorder_shuffled.h5";
  {
    AfRun r4(4, 6);
    shuffle_all(r4.ctx, 3);
    um_reordering *q = nullptr;
    ASSERT_EQ(um_reorder_compute(r4.ctx, UM_REORDER_GPS, r4.a.pecell, nullptr, &q, nullptr), UM_SUCCESS);
    ASSERT_EQ(um_reordering_save(r4.ctx, q, shuffled.c_str(), nullptr), UM_SUCCESS);
    um_reordering_free(&q);
  }
  EXPECT_EQ(um_reordering_load(r3.ctx, shuffled.c_str(), &p, nullptr), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(r3.ctx)).find("different map 'pecell'"), std::string::npos)
      << um_error_message(r3.ctx);
  // the context r (with its extra map nodes_to_nodes) loads a file without an extra set fine,
  // but a context with an extra set refuses it
  um_set *extra = nullptr;
  ASSERT_EQ(um_decl_set(r3.ctx, 3, "extra", &extra), UM_SUCCESS);
  AfRun r5(4, 6);
  {
    um_reordering *q = nullptr;
    ASSERT_EQ(um_reorder_compute(r5.ctx, UM_REORDER_GPS, r5.a.pecell, nullptr, &q, nullptr), UM_SUCCESS);
    ASSERT_EQ(um_reordering_save(r5.ctx, q, shuffled.c_str(), nullptr), UM_SUCCESS);
    um_reordering_free(&q);
  }
  EXPECT_EQ(um_reordering_load(r3.ctx, shuffled.c_str(), &p, nullptr), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(r3.ctx)).find("no permutation of set 'extra'"), std::string::npos)
      << um_error_message(r3.ctx);
  std::remove(shuffled.c_str());

  // reordering after a loop ran is refused
  double rms = 0;
  OK(airfoil_iteration(ctx, &r.a, &rms));
  EXPECT_EQ(um_reorder(ctx, UM_REORDER_GPS, r.a.pecell, nullptr, nullptr), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("before the first loop"), std::string::npos);
}

// Benchmark output, not a test of speed: the time to reorder Airfoil 720K.
// More than 128 parts: the two-level partition (coarse k-way, then each coarse
// part's subgraph). Parts within the block size, bijections, same physics, and
// the same result for the same seed.
TEST(Reorder, TwoLevelPartitionKeepsPartsAndPhysics) {
  const int iters = 3;
  std::vector<double> q_ref;
  double rms_ref = 0;
  {
    AfRun r(100, 150, "seq", UM_AOS, 64);
    um_context *ctx = r.ctx;
    for (int i = 0; i < iters; i++) OK(airfoil_iteration(ctx, &r.a, &rms_ref));
    q_ref = r.original(r.a.p_q);
  }
  const char *b = um_backend_available("openmp") ? "openmp" : "seq";
  std::vector<int> first_perm;
  for (int rep = 0; rep < 2; rep++) {
    AfRun r(100, 150, b, UM_AOS, 64);
    um_context *ctx = r.ctx;
    um_reorder_stats st{};
    OK(um_reorder(ctx, UM_REORDER_PARTITION, r.a.pecell, nullptr, &st));
    const int ne = um_set_size(r.a.edges);
    ASSERT_GT(st.nparts, 128) << "mesh too small to take the two-level path";
    EXPECT_TRUE(is_bijection(um_set_permutation(r.a.edges), ne));
    EXPECT_TRUE(is_bijection(um_set_permutation(r.a.cells), um_set_size(r.a.cells)));
    EXPECT_TRUE(is_bijection(um_set_permutation(r.a.nodes), um_set_size(r.a.nodes)));
    EXPECT_LE(st.max_part_size, 64);
    EXPECT_GT(st.edgecut, 0);
    std::vector<int> parts = parts_of(r.a.edges);
    ASSERT_FALSE(parts.empty());
    EXPECT_EQ(parts.front(), 0);
    EXPECT_EQ(parts.back(), ne);
    for (size_t k = 1; k < parts.size(); k++) {
      ASSERT_GE(parts[k] - parts[k - 1], 1) << "part " << k - 1;
      ASSERT_LE(parts[k] - parts[k - 1], 64) << "part " << k - 1;
    }
    std::vector<int> perm(um_set_permutation(r.a.edges), um_set_permutation(r.a.edges) + ne);
    if (rep == 0) first_perm = perm;
    else EXPECT_EQ(perm, first_perm) << "same seed, different partition";
    double rms = 0;
    for (int i = 0; i < iters; i++) OK(airfoil_iteration(ctx, &r.a, &rms));
    expect_close(r.original(r.a.p_q), q_ref, 4, "q");
    EXPECT_NEAR(rms, rms_ref, 1e-12 * rms_ref);
    if (std::string(b) == "openmp") {
      const um_plan *p = last_plan(ctx, "res_calc");
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(block_offsets(p), parts);
    }
  }
}

TEST(ReorderTiming, Airfoil720kPrintsTimes) {
  for (um_reorder_method m : {UM_REORDER_GPS, UM_REORDER_PARTITION}) {
    AfRun r(400, 600, "seq", UM_AOS, 256);
    um_context *ctx = r.ctx;
    ASSERT_EQ(um_set_size(r.a.cells), 720000);
    um_reorder_stats st{};
    OK(um_reorder(ctx, m, r.a.pecell, nullptr, &st));
    std::printf("[ reorder  ] Airfoil 720K (%d edges -> %d cells), %s: compute %.2f s, apply %.2f s",
                um_set_size(r.a.edges), um_set_size(r.a.cells), um_reorder_method_name(m), st.compute_seconds,
                st.apply_seconds);
    if (m == UM_REORDER_PARTITION)
      std::printf(" (%d parts, largest %d, edge cut %ld)", st.nparts, st.max_part_size, st.edgecut);
    std::printf("\n");
    EXPECT_TRUE(is_bijection(um_set_permutation(r.a.edges), um_set_size(r.a.edges)));
  }
}

}  // namespace
