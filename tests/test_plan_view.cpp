// um_loop_plan_view (um/stats.h): the last plan of a loop as umrun --draw reads it. Its counts are the loop's plan
// statistics, its blocks tile the planned elements, and its colours are a colouring: no two blocks of one block
// colour, and no two elements of one thread colour in a block, write one target. A loop without a plan has no view.
// um_set_holders (um/distributed.h) on one process: rank 0 owns every element.
#include <gtest/gtest.h>

#include <set>
#include <vector>

extern "C" {
#include "um/um.h"
}
#include "test_kernels.h"

namespace {

struct Chain {  // N edges; edge e writes (RW) node (e + 1) / 2: pairs of edges share a node, across block ends too
  um_context *ctx = nullptr;
  um_set *edges = nullptr, *nodes = nullptr;
  um_map *m = nullptr;
  um_dat *v = nullptr, *a = nullptr;
  std::vector<int> conn;
  std::vector<double> vv, aa;
  explicit Chain(int n) : conn(n), aa(n, 1.0) {
    um_options o;
    um_options_default(&o);
    o.backend = um_backend_available("openmp") ? "openmp" : "seq";
    o.nthreads = 2;
    o.block_size = 16;
    um_options_set(&o, "openmp.parallel_threshold", "0");
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    for (int e = 0; e < n; e++) conn[e] = (e + 1) / 2;
    const int nn = n / 2 + 1;
    vv.assign(2 * nn, 0.0);
    EXPECT_EQ(um_decl_set(ctx, n, "edges", &edges), UM_SUCCESS);
    EXPECT_EQ(um_decl_set(ctx, nn, "nodes", &nodes), UM_SUCCESS);
    EXPECT_EQ(um_decl_map(ctx, edges, nodes, 1, conn.data(), "edge_node", &m), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, vv.data(), "v", &v), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, edges, 1, UM_DOUBLE, aa.data(), "a", &a), UM_SUCCESS);
  }
  ~Chain() { um_finalize(&ctx); }
};

TEST(PlanView, IsTheLoopsPlanAndAColouring) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "no openmp backend: seq runs loops without plans";
  const int n = 1000;
  Chain c(n);
  ASSERT_EQ(UM_PAR_LOOP(c.ctx, indirect_rw_kernel, "rw", c.edges, um_arg_dat(c.v, 0, c.m, 2, UM_DOUBLE, UM_RW),
                        um_arg_dat(c.a, -1, UM_ID, 1, UM_DOUBLE, UM_READ)),
            UM_SUCCESS)
      << um_error_message(c.ctx);
  um_loop_stats st;
  um_plan_view pv;
  ASSERT_EQ(um_loop_stats_get(c.ctx, 0, &st), UM_SUCCESS);
  ASSERT_TRUE(st.has_plan);
  ASSERT_EQ(um_loop_plan_view(c.ctx, 0, &pv), UM_SUCCESS);
  EXPECT_EQ(pv.begin, 0);
  EXPECT_EQ(pv.size, n);
  EXPECT_EQ(pv.nblocks, st.nblocks);
  EXPECT_EQ(pv.nblock_colours, st.nblock_colours);
  EXPECT_EQ(pv.max_thread_colours, st.max_thread_colours);
  EXPECT_EQ(pv.block_size, 16);
  EXPECT_GE(pv.nblock_colours, 2) << "blocks that share a node across their ends need two colours";
  ASSERT_EQ(pv.block_offset[0], 0);
  ASSERT_EQ(pv.block_offset[pv.nblocks], n);
  std::vector<std::set<int>> written(pv.nblock_colours);  // targets written by each block colour so far
  for (int b = 0; b < pv.nblocks; b++) {
    ASSERT_LT(pv.block_offset[b], pv.block_offset[b + 1]);
    ASSERT_GE(pv.block_colour[b], 0);
    ASSERT_LT(pv.block_colour[b], pv.nblock_colours);
    std::set<int> mine;
    std::vector<std::set<int>> by_thread(pv.nthread_colours[b]);
    for (int q = pv.block_offset[b]; q < pv.block_offset[b + 1]; q++) {
      const int t = pv.thread_colour[q], node = c.conn[q];
      ASSERT_GE(t, 0);
      ASSERT_LT(t, pv.nthread_colours[b]);
      EXPECT_TRUE(by_thread[t].insert(node).second) << "two elements of thread colour " << t << " write " << node;
      mine.insert(node);
    }
    for (int node : mine)
      EXPECT_TRUE(written[pv.block_colour[b]].insert(node).second)
          << "two blocks of block colour " << pv.block_colour[b] << " write node " << node;
  }
}

TEST(PlanView, NoPlanNoView) {
  Chain c(64);
  um_dat *b = nullptr;
  std::vector<double> bb(64);
  ASSERT_EQ(um_decl_dat(c.ctx, c.edges, 1, UM_DOUBLE, bb.data(), "b", &b), UM_SUCCESS);
  ASSERT_EQ(UM_PAR_LOOP(c.ctx, cbrt_of_kernel, "direct", c.edges, um_arg_dat(c.a, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                        um_arg_dat(b, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)),
            UM_SUCCESS)
      << um_error_message(c.ctx);
  um_plan_view pv;
  EXPECT_EQ(um_loop_plan_view(c.ctx, 0, &pv), UM_ERR_UNSUPPORTED);
  EXPECT_EQ(um_loop_plan_view(c.ctx, 1, &pv), UM_ERR_ARG);
  EXPECT_EQ(um_loop_plan_view(c.ctx, 0, nullptr), UM_ERR_ARG);
}

TEST(SetHolders, OneProcessOwnsEverything) {
  Chain c(40);
  std::vector<unsigned char> role(um_context_nranks(c.ctx) * 40, 9);
  ASSERT_EQ(um_set_holders(c.ctx, c.edges, role.data(), role.size()), UM_SUCCESS);
  for (unsigned char r : role) EXPECT_EQ(r, UM_HELD_OWNED);
  EXPECT_EQ(um_set_holders(c.ctx, c.edges, role.data(), role.size() - 1), UM_ERR_ARG) << "role too small";
  EXPECT_EQ(um_set_holders(c.ctx, nullptr, role.data(), role.size()), UM_ERR_ARG);
}

}  // namespace
