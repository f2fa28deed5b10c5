// Jacobi's shuffled grid by blocks: every rank's block (jacobi_grid_generate), end to end, is the whole grid bit for
// bit, for rank counts that cut the node and edge numberings at awkward places; and the grid is the graph it says.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <utility>
#include <vector>

extern "C" {
#include "jacobi/jacobi.h"
}

TEST(JacobiGridBlocks, BlocksEndToEndAreTheWholeGrid) {
  const int N = 11;
  char err[256];
  jacobi_grid w;
  ASSERT_EQ(jacobi_grid_generate(N, 3, 0, 1, &w, err, sizeof err), 0) << err;
  ASSERT_EQ(w.nnode, 144);
  ASSERT_EQ(w.nedge, 264);
  for (int P : {2, 3, 5, 7, 17, 150}) {
    std::vector<double> x, u;
    std::vector<int> bnd;
    std::vector<long long> edge;
    for (int q = 0; q < P; q++) {
      jacobi_grid g;
      ASSERT_EQ(jacobi_grid_generate(N, 3, q, P, &g, err, sizeof err), 0) << err;
      ASSERT_EQ(g.node_first, (long long)u.size()) << "rank " << q << " of " << P;
      ASSERT_EQ(g.edge_first, (long long)edge.size() / 2);
      x.insert(x.end(), g.x, g.x + 2 * g.node_count);
      u.insert(u.end(), g.u, g.u + g.node_count);
      bnd.insert(bnd.end(), g.bnd, g.bnd + g.node_count);
      edge.insert(edge.end(), g.edge, g.edge + 2 * g.edge_count);
      jacobi_grid_free(&g);
    }
    ASSERT_EQ(u.size(), (size_t)w.nnode) << P << " ranks";
    ASSERT_EQ(edge.size(), 2 * (size_t)w.nedge);
    EXPECT_EQ(std::memcmp(x.data(), w.x, sizeof(double) * 2 * w.nnode), 0) << P << " ranks";
    EXPECT_EQ(std::memcmp(u.data(), w.u, sizeof(double) * w.nnode), 0) << P << " ranks";
    EXPECT_EQ(std::memcmp(bnd.data(), w.bnd, sizeof(int) * w.nnode), 0) << P << " ranks";
    EXPECT_EQ(std::memcmp(edge.data(), w.edge, sizeof(long long) * 2 * w.nedge), 0) << P << " ranks";
  }
  // the grid graph: every edge joins two nodes one step apart, each pair once
  std::set<std::pair<long long, long long>> seen;
  for (long long k = 0; k < w.nedge; k++) {
    const long long a = w.edge[2 * k], b = w.edge[2 * k + 1];
    const double dx = (w.x[2 * a] - w.x[2 * b]) * N, dy = (w.x[2 * a + 1] - w.x[2 * b + 1]) * N;
    EXPECT_NEAR(dx * dx + dy * dy, 1.0, 1e-12) << "edge " << k;
    EXPECT_TRUE(seen.insert({std::min(a, b), std::max(a, b)}).second) << "edge " << k << " twice";
  }
  jacobi_grid_free(&w);
}
