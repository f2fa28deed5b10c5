// The primary set's partitioners and their fallback chain (engine/src/distributed/dist_choose.c, dist_geom.c), on
// a mesh declared whole and one declared by blocks: rcb and sfc give valid parts of the block partitioner's sizes,
// the same whatever rank holds which element; a partitioner made to fail or to overrun its budget (the test hook
// UM_TEST_PARTITION_FAULT), a mesh without coordinates, a disconnected mesh and more ranks than elements all end
// in a partition every rank agrees on, with words saying which partitioner was used and why. Part of
// um_mpi_tests (ctest: 1 to 4 ranks).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define OMPI_SKIP_MPICXX 1  // the C API only (no C++ bindings to link)
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "test_mpi_same.hpp"
#include "um/um.h"

extern "C" int um__dist_l2g(um_context *ctx, const um_set *s, const long long **l2g); // distributed/dist.h

namespace {

// k islands of W x H quads side by side, sharing no node (k > 1: a disconnected mesh); cells -> 4 nodes; node
// coordinates x (2-D), island j shifted by (W + 2) j.
struct Islands {
  int k, W, H, ncell = 0, nnode = 0;
  std::vector<int> cn;
  std::vector<double> x;
  Islands(int k_, int w, int h) : k(k_), W(w), H(h) {
    for (int j = 0; j < k; j++) {
      const int base = nnode;
      for (int b = 0; b <= H; b++)
        for (int a = 0; a <= W; a++) x.insert(x.end(), {(double)(a + (W + 2) * j), (double)b});
      nnode += (W + 1) * (H + 1);
      for (int b = 0; b < H; b++)
        for (int a = 0; a < W; a++) {
          const int n0 = base + b * (W + 1) + a;
          cn.insert(cn.end(), {n0, n0 + 1, n0 + W + 2, n0 + W + 1});
        }
      ncell += W * H;
    }
  }
};

long long lo_of(long long n, int q, int P) { return n * q / P; }  // the block partitioner's ranges

struct Fault {  // the test hook, for this scope
  explicit Fault(const char *v) { setenv("UM_TEST_PARTITION_FAULT", v, 1); }
  ~Fault() { unsetenv("UM_TEST_PARTITION_FAULT"); }
};

struct PMesh {
  um_context *ctx = nullptr;
  um_set *nodes = nullptr, *cells = nullptr;
  um_map *cn = nullptr;
  um_dat *x = nullptr, *q = nullptr;
  um_partition_info info{};
  ~PMesh() { um_finalize(&ctx); }
  // Declared whole or by blocks (every set on the block partitioner's ranges), with node coordinates or none;
  // returns um_distribute's code (info filled when it succeeded on several ranks).
  int build(const Islands &g, bool blocks, const char *partitioner, bool coords = true, double budget = -1,
            const char *coords_dat = nullptr) {
    ctx = seq_context();
    if (budget >= 0) EXPECT_EQ(um_context_set_partition_budget(ctx, budget), 0);
    if (coords_dat) EXPECT_EQ(um_context_set_partition_coords(ctx, coords_dat), 0);
    const int P = um_mpi_size(), r = um_mpi_rank();
    const bool b = blocks && P > 1;
    auto lo = [&](int n, int q) { return b ? lo_of(n, q, P) : (q > r ? n : 0); };  // whole: [0, n) on every rank
    const long long c0 = lo(g.ncell, r), c1 = lo(g.ncell, r + 1), n0 = lo(g.nnode, r), n1 = lo(g.nnode, r + 1);
    if (b) {
      EXPECT_EQ(um_decl_set_block(ctx, g.nnode, n0, (int)(n1 - n0), "nodes", &nodes), 0) << um_error_message(ctx);
      EXPECT_EQ(um_decl_set_block(ctx, g.ncell, c0, (int)(c1 - c0), "cells", &cells), 0) << um_error_message(ctx);
      std::vector<long long> rows(g.cn.begin() + 4 * c0, g.cn.begin() + 4 * c1);
      EXPECT_EQ(um_decl_map_block(ctx, cells, nodes, 4, rows.data(), "cell_nodes", &cn), 0) << um_error_message(ctx);
    } else {
      EXPECT_EQ(um_decl_set(ctx, g.nnode, "nodes", &nodes), 0);
      EXPECT_EQ(um_decl_set(ctx, g.ncell, "cells", &cells), 0);
      EXPECT_EQ(um_decl_map(ctx, cells, nodes, 4, g.cn.data(), "cell_nodes", &cn), 0);
    }
    std::vector<double> qv;
    for (long long c = c0; c < c1; c++) qv.push_back(0.5 * (double)c);
    if (coords) EXPECT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, g.x.data() + 2 * n0, "x", &x), 0);
    EXPECT_EQ(um_decl_dat(ctx, cells, 1, UM_DOUBLE, qv.data(), "q", &q), 0);
    const int rc = um_distribute(ctx, "cells", partitioner);
    if (rc == 0 && P > 1) EXPECT_EQ(um_partition_info_get(ctx, &info), 0);
    return rc;
  }
  std::vector<int> owned() const {  // cells owned by each rank
    std::vector<int> v;
    for (int q = 0; q < um_context_nranks(ctx); q++) {
      int o = 0;
      EXPECT_EQ(um_set_partition(cells, q, &o, nullptr, nullptr), 0);
      v.push_back(o);
    }
    return v;
  }
  // every cell owned once, its value where it was (the global view), every part non-empty (unless fewer cells
  // than ranks)
  void expect_valid(const Islands &g) const {
    const std::vector<int> o = owned();
    long long sum = 0;
    int empty = 0;
    for (int v : o) sum += v, empty += v == 0;
    EXPECT_EQ(sum, g.ncell);
    if (g.ncell >= um_mpi_size()) EXPECT_EQ(empty, 0) << info.note;
    std::vector<double> all(g.ncell);
    ASSERT_EQ(um_dat_fetch(ctx, q, all.data(), all.size() * sizeof(double)), 0) << um_error_message(ctx);
    for (int c = 0; c < g.ncell; c++) ASSERT_EQ(all[c], 0.5 * c);
  }
  bool noted(const char *what) const { return std::strstr(info.note, what) != nullptr; }
};

// rcb and sfc: the partitioner asked for, exactly the block partitioner's part sizes (so an imbalance of at most
// ceil(N/P) / (N/P)), every element owned once, and the same parts and local order from a whole declaration and
// from one by blocks (the points and global numbers decide, not which rank holds what).
TEST(GeometricPartitioners, ValidBalancedAndTheSameFromWholeAndBlocks) {
  const int P = um_mpi_size();
  if (P < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  const Islands g(1, 12, 7);
  for (const char *part : {"rcb", "sfc"}) {
    PMesh w, b;
    ASSERT_EQ(w.build(g, false, part), 0) << um_error_message(w.ctx);
    ASSERT_EQ(b.build(g, true, part), 0) << um_error_message(b.ctx);
    for (const PMesh *m : {&w, &b}) {
      EXPECT_STREQ(m->info.partitioner, part) << m->info.note;
      EXPECT_TRUE(m->noted("coordinates: centroids of dat 'x' through map 'cell_nodes'")) << m->info.note;
      m->expect_valid(g);
      const std::vector<int> o = m->owned();
      for (int q = 0; q < P; q++) EXPECT_EQ(o[q], lo_of(g.ncell, q + 1, P) - lo_of(g.ncell, q, P)) << part << " " << q;
      const double mean = (double)g.ncell / P, largest = (double)((g.ncell + P - 1) / P);
      EXPECT_LE(m->info.imbalance, largest / mean + 1e-12);
      EXPECT_GT(m->info.edge_cut, 0);
    }
    EXPECT_EQ(w.info.edge_cut, b.info.edge_cut) << part;
    for (um_set *s : {w.cells, w.nodes}) {
      um_set *t = s == w.cells ? b.cells : b.nodes;
      int o, e, n;
      ASSERT_EQ(um_set_partition(s, um_mpi_rank(), &o, &e, &n), 0);
      const long long *la = nullptr, *lb = nullptr;
      ASSERT_EQ(um__dist_l2g(w.ctx, s, &la), 0);
      ASSERT_EQ(um__dist_l2g(b.ctx, t, &lb), 0);
      EXPECT_EQ(std::vector<long long>(la, la + o + e + n), std::vector<long long>(lb, lb + o + e + n))
          << part << " " << um_set_name(s);
    }
  }
  if (P == 2) {  // 12 x 7 cells: rcb cuts along x between columns 5 and 6, each cell there sees 3 across (2 at the ends)
    PMesh m;
    ASSERT_EQ(m.build(g, false, "rcb"), 0);
    EXPECT_EQ(m.info.edge_cut, 3 * 7 - 2);
  }
}

// A partitioner made to fail, or to overrun its budget: the next of the chain (rcb, then block), said why; on the
// whole declaration and on one by blocks. The overrun hook counts the call as having taken the budget + 1 s (no
// race: the next candidates, timed for real, have 30 s for 90 cells). A METIS made to hang is left behind once the
// budget is spent (a test that waited for it would run into ctest's timeout).
TEST(PartitionFallback, FailureAndOverrunGiveWayToTheChain) {
  if (um_mpi_size() < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  const Islands g(1, 10, 9);
  for (bool blocks : {false, true}) {
    const char *graph = blocks ? "ptscotch" : "metis";
    if (!um_mpi_partitioner_built(graph)) continue;
    {
      Fault f((std::string(graph) + ":fail").c_str());
      PMesh m;
      ASSERT_EQ(m.build(g, blocks, graph), 0) << um_error_message(m.ctx);
      EXPECT_STREQ(m.info.partitioner, "rcb") << m.info.note;
      EXPECT_TRUE(m.noted((std::string(graph) + " failed: made to fail by UM_TEST_PARTITION_FAULT").c_str())) << m.info.note;
      EXPECT_TRUE(m.noted("partitioned by rcb instead")) << m.info.note;
      m.expect_valid(g);
      expect_same_everywhere(0, m.info.note);
    }
    {
      Fault f((std::string(graph) + ":overrun").c_str());
      PMesh m;
      ASSERT_EQ(m.build(g, blocks, graph, true, 30), 0) << um_error_message(m.ctx);
      EXPECT_STREQ(m.info.partitioner, "rcb") << m.info.note;
      EXPECT_TRUE(m.noted("over mpi.partition_budget_s = 30 s: its parts discarded")) << m.info.note;
      m.expect_valid(g);
    }
    {
      Fault f((std::string(graph) + ":fail,rcb:fail").c_str());  // both: the blocks
      PMesh m;
      ASSERT_EQ(m.build(g, blocks, graph), 0) << um_error_message(m.ctx);
      EXPECT_STREQ(m.info.partitioner, "block") << m.info.note;
      EXPECT_TRUE(m.noted("rcb failed: made to fail")) << m.info.note;
      m.expect_valid(g);
    }
    {
      Fault f("sfc:overrun");  // sfc's chain: rcb next
      PMesh m;
      ASSERT_EQ(m.build(g, blocks, "sfc", true, 30), 0) << um_error_message(m.ctx);
      EXPECT_STREQ(m.info.partitioner, "rcb") << m.info.note;
      EXPECT_TRUE(m.noted("sfc took")) << m.info.note;
    }
    {
      Fault f((std::string(graph) + ":overrun").c_str());  // no budget: an overrun hook does nothing
      PMesh m;
      ASSERT_EQ(m.build(g, blocks, graph, true, 0), 0) << um_error_message(m.ctx);
      EXPECT_STREQ(m.info.partitioner, graph) << m.info.note;
    }
  }
  if (um_mpi_partitioner_built("metis")) {  // a METIS that would not return for an hour: cut short at the budget
    Fault f("metis:hang,rcb:fail");  // (then block, which no budget limits: nothing else depends on the clock)
    PMesh h;
    ASSERT_EQ(h.build(g, false, "metis", true, 0.3), 0) << um_error_message(h.ctx);
    EXPECT_STREQ(h.info.partitioner, "block") << h.info.note;
    EXPECT_TRUE(h.noted("metis failed: still running after mpi.partition_budget_s = 0.3 s")) << h.info.note;
    h.expect_valid(g);
  }
  PMesh m;  // METIS needs the whole graph: a mesh declared by blocks goes on to rcb
  ASSERT_EQ(m.build(g, true, "metis"), 0) << um_error_message(m.ctx);
  EXPECT_STREQ(m.info.partitioner, "rcb") << m.info.note;
  EXPECT_TRUE(m.noted("METIS needs the whole graph on one rank")) << m.info.note;
}

// No coordinates: rcb and sfc give way to block, said why; a named coordinate dat that cannot serve is an error,
// the same on every rank; so are a bad budget and an unknown partitioner.
TEST(PartitionFallback, NoCoordinatesAndBadSettings) {
  if (um_mpi_size() < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  const Islands g(1, 8, 8);
  for (bool blocks : {false, true}) {
    for (const char *part : {"rcb", "sfc"}) {
      PMesh m;
      ASSERT_EQ(m.build(g, blocks, part, false), 0) << um_error_message(m.ctx);
      EXPECT_STREQ(m.info.partitioner, "block") << m.info.note;
      EXPECT_TRUE(m.noted((std::string(part) + " failed: no coordinates").c_str())) << m.info.note;
      m.expect_valid(g);
    }
    PMesh bad;
    const int rc = bad.build(g, blocks, "rcb", true, -1, "q");  // one double per cell: not coordinates
    const std::string msg = um_error_message(bad.ctx);
    EXPECT_EQ(rc, UM_ERR_CONFIG) << msg;
    EXPECT_NE(msg.find("mpi.partition_coords: dat 'q' (1 values of type double on set 'cells') cannot place"),
              std::string::npos) << msg;
    expect_same_everywhere(rc, msg);
    PMesh none;
    EXPECT_EQ(none.build(g, blocks, "rcb", true, -1, "nothing"), UM_ERR_CONFIG);
    EXPECT_NE(std::string(um_error_message(none.ctx)).find("no dat named 'nothing'"), std::string::npos);
    PMesh unknown;
    EXPECT_EQ(unknown.build(g, blocks, "parmetis"), UM_ERR_CONFIG);
    EXPECT_NE(std::string(um_error_message(unknown.ctx)).find("mpi.partitioner = 'parmetis'"), std::string::npos);
  }
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, nullptr), 0);
  EXPECT_EQ(um_context_set_partition_budget(ctx, -1), UM_ERR_ARG);
  EXPECT_EQ(um_context_set_partition_budget(ctx, 0), 0);
  EXPECT_EQ(um_context_set_partition_coords(ctx, std::string(100, 'x').c_str()), UM_ERR_ARG);
  um_finalize(&ctx);
}

// P + 1 islands on P ranks: some part holds pieces of two islands whatever the partitioner (pigeonhole), so every
// candidate of the chain leaves a part not connected; the run still ends with a valid partition, the one with
// the fewest such parts, and says so.
TEST(PartitionFallback, DisconnectedMeshEndsWithTheFewestDisconnectedParts) {
  const int P = um_mpi_size();
  if (P < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  const Islands g(P + 1, 5, 4);
  for (bool blocks : {false, true})
    for (const char *part : {"auto", "metis", "ptscotch", "rcb", "sfc", "block"}) {
      if (!um_mpi_partitioner_built(part) || (blocks && !strcmp(part, "metis"))) continue;
      PMesh m;
      ASSERT_EQ(m.build(g, blocks, part), 0) << um_error_message(m.ctx);
      m.expect_valid(g);
      EXPECT_TRUE(m.noted("parts are not connected (more halo, same results)")) << part << ": " << m.info.note;
      if (strcmp(part, "block")) EXPECT_TRUE(m.noted("parts not connected")) << part << ": " << m.info.note;
      expect_same_everywhere(0, std::string(m.info.partitioner) + m.info.note);
    }
}

// Fewer cells than ranks: every partitioner ends with the blocks (some ranks own nothing), said why.
TEST(PartitionFallback, MoreRanksThanElements) {
  const int P = um_mpi_size();
  if (P < 2) GTEST_SKIP() << "one rank: um_distribute does nothing";
  const Islands g(1, P - 1, 1);
  for (bool blocks : {false, true})
    for (const char *part : {"auto", "metis", "ptscotch", "rcb", "sfc", "block"}) {
      if (!um_mpi_partitioner_built(part)) continue;
      PMesh m;
      ASSERT_EQ(m.build(g, blocks, part), 0) << um_error_message(m.ctx);
      EXPECT_STREQ(m.info.partitioner, "block") << part << ": " << m.info.note;
      m.expect_valid(g);
      if (!strcmp(part, "rcb") || !strcmp(part, "sfc"))
        EXPECT_TRUE(m.noted((std::string(part) + " left 1 of " + std::to_string(P) + " parts empty").c_str()))
            << m.info.note;
      else if (!strcmp(part, "ptscotch") || (!blocks && !strcmp(part, "metis")))
        EXPECT_TRUE(m.noted("fewer elements")) << part << ": " << m.info.note;
    }
}

}  // namespace
