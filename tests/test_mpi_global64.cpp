// Sets declared by blocks past INT_MAX elements, on 2 or more ranks, without allocating anything of the global
// size: each rank declares a block of a few elements of a set of 3e9 (the blocks do not tile it, so um_distribute
// refuses them, naming the 64-bit range), maps into it take 64-bit targets, the global size is 64-bit, and the graph
// partitioners (int numbering: METIS's idx_t and PT-Scotch's SCOTCH_Num are 32-bit here) refuse such a set with what
// to use instead; rows reach their blocks by 64-bit keys (um_rows_to_blocks64). Part of um_mpi_tests (ctest: 1 to 4
// ranks).
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "test_mpi_same.hpp"
#include "um/um.h"

extern "C" int umd_graph_fits(const char *name, const char *set, long long n, char *why, size_t wl);  // dist_impl.h

namespace {

constexpr long long kBig = 3000000000LL;  // past INT_MAX (2147483647)

bool has(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(Global64Blocks, ASetPastIntMaxIsDeclaredByBlocksWith64BitNumbers) {
  if (um_mpi_size() == 1) GTEST_SKIP() << "one rank: a block is the whole set (test_global64.cpp: refused)";
  um_context *ctx = seq_context();
  ASSERT_NE(ctx, nullptr);
  const int q = um_mpi_rank(), P = um_mpi_size();
  const long long b = q * (kBig / P);  // rank q: [q G / P, q G / P + 2): far apart (on 4 ranks, past INT_MAX)
  um_set *cells = nullptr, *edges = nullptr;
  ASSERT_EQ(um_decl_set_block(ctx, kBig + 5, b, 2, "cells", &cells), UM_SUCCESS) << um_error_message(ctx);
  ASSERT_EQ(um_decl_set_block(ctx, kBig, b, 2, "edges", &edges), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(um_set_gsize(cells), kBig + 5);
  EXPECT_EQ(um_set_size(cells), -1) << "the int size cannot hold 3e9";
  EXPECT_EQ(um_set_decl_rows(cells), 2);
  // targets past INT_MAX are taken as they are; one at the global size is refused with it named
  const std::vector<long long> t = {0, kBig + 4, INT_MAX + 1LL, kBig - 1};
  um_map *m = nullptr;
  ASSERT_EQ(um_decl_map_block(ctx, edges, cells, 2, t.data(), "pecell", &m), UM_SUCCESS) << um_error_message(ctx);
  const std::vector<long long> bad = {1, kBig + 5, 2, 3};
  EXPECT_EQ(um_decl_map_block(ctx, edges, cells, 2, bad.data(), "pbad", &m), UM_ERR_ARG);
  EXPECT_TRUE(has(um_error_message(ctx), "is 3000000005, outside the to-set 'cells' of global size 3000000005"))
      << um_error_message(ctx);
  // the tiling check compares 64-bit ranges (rank 1 declares [G / P, G / P + 2) of cells, which should begin at 2)
  const int rc = um_distribute(ctx, "cells", "rcb");
  const std::string msg = um_error_message(ctx), b1 = std::to_string(kBig / P);
  EXPECT_EQ(rc, UM_ERR_ARG) << msg;
  EXPECT_TRUE(has(msg, "the blocks of set 'cells' do not tile [0, 3000000005) in rank order: rank 1 declares [" + b1 +
                           ", " + std::to_string(kBig / P + 2) + "), which should begin at 2"))
      << msg;
  expect_same_everywhere(rc, msg);
  um_finalize(&ctx);
}

TEST(Global64Blocks, GraphPartitionersRefuseASetPastIntMax) {
  char why[256] = "";
  EXPECT_EQ(umd_graph_fits("ptscotch", "cells", INT_MAX, why, sizeof why), 1);
  EXPECT_EQ(umd_graph_fits("metis", "cells", INT_MAX, why, sizeof why), 1);
  EXPECT_STREQ(why, "") << "nothing said when it fits";
  EXPECT_EQ(umd_graph_fits("ptscotch", "cells", kBig, why, sizeof why), 0);
  EXPECT_TRUE(has(why, "set 'cells' has 3000000000 elements: PT-Scotch as built here takes at most 2147483647 ("))
      << why;
  EXPECT_TRUE(has(why, "); use mpi.partitioner rcb")) << why;
  EXPECT_EQ(umd_graph_fits("metis", "cells", INT_MAX + 1LL, why, sizeof why), 0);
  EXPECT_TRUE(has(why, "set 'cells' has 2147483648 elements: METIS as built here takes at most 2147483647 (its "
                       "idx_t is 32-bit); use mpi.partitioner rcb"))
      << why;
}

// um_rows_to_blocks64 on 1 to 4 ranks: each rank sends the rows of the numbers congruent to it mod P (in reverse
// order) by 64-bit keys; every block receives its rows in place, the bytes the int keys give; a key past INT_MAX
// outside the numbering is refused on every rank, named in its 64 bits.
TEST(Global64Blocks, RowsReachTheirBlocksBy64BitKeys) {
  um_context *ctx = seq_context();
  ASSERT_NE(ctx, nullptr);
  const int q = um_mpi_rank(), P = um_mpi_size();
  const long long G = 5LL * P + 3;
  long long b = 0;
  int c = 0;
  ASSERT_EQ(um_block_range(G, q, P, &b, &c), UM_SUCCESS);
  um_set *cells = nullptr;
  ASSERT_EQ(um_decl_set_block(ctx, G, b, c, "cells", &cells), UM_SUCCESS) << um_error_message(ctx);
  if (P > 1) ASSERT_EQ(um_distribute(ctx, "cells", "block"), UM_SUCCESS) << um_error_message(ctx);
  std::vector<long long> keys, rows;
  std::vector<int> ikeys;
  for (long long g = G - 1; g >= 0; g--)
    if (g % P == q) keys.push_back(g), ikeys.push_back((int)g), rows.push_back(10 * g + 1);
  const int n = (int)keys.size();
  std::vector<long long> out(c + 1, -1), iout(c + 1, -1);
  const size_t bytes = sizeof(long long) * (size_t)c;
  ASSERT_EQ(um_rows_to_blocks64(ctx, n, keys.data(), rows.data(), sizeof(long long), G, out.data(), bytes),
            UM_SUCCESS)
      << um_error_message(ctx);
  ASSERT_EQ(um_rows_to_blocks(ctx, n, ikeys.data(), rows.data(), sizeof(long long), G, iout.data(), bytes), UM_SUCCESS)
      << um_error_message(ctx);
  for (int i = 0; i < c; i++) EXPECT_EQ(out[i], 10 * (b + i) + 1) << "element " << b + i;
  EXPECT_EQ(out, iout);
  if (q == 0) keys[0] = kBig;  // rank 0's first row: outside [0, G), past INT_MAX
  const int rc = um_rows_to_blocks64(ctx, n, keys.data(), rows.data(), sizeof(long long), G, out.data(), bytes);
  const std::string msg = um_error_message(ctx);
  EXPECT_EQ(rc, UM_ERR_ARG);
  EXPECT_TRUE(has(msg, "row 0 is numbered 3000000000, outside [0, " + std::to_string(G) + ")")) << msg;
  expect_same_everywhere(rc, msg);
  um_finalize(&ctx);
}
