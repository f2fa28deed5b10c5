// Global numbers past INT_MAX (one process): a set declared by blocks may have more than 2^31 - 1 elements over
// its ranks while each rank's part stays an int. The 64-bit paths that need no global-sized allocation: the block
// ranges, the refusals where a whole set or one rank's block cannot hold the count, an HDF5 set size stored in 64
// bits, and the rows of an output written at a global offset past INT_MAX (a sparse file: only the block's bytes).
// The distributed paths (declaring by blocks, the tiling check, the partitioners' refusals) are in
// test_mpi_blocks.cpp.
#include <gtest/gtest.h>

#include <hdf5.h>

#include <climits>
#include <cstdio>
#include <string>

extern "C" {
#include "io/h5_writer.h"
#include "um/distributed.h"
#include "um/hdf5io.h"
#include "um/um.h"
}

#include "test_context.hpp"
#include "test_files.hpp"

namespace {

using umtest::has;
using umtest::make_ctx;
using umtest::TempDir;

constexpr long long kBig = 3000000000LL;  // past INT_MAX (2147483647)

}  // namespace

TEST(Global64, BlockRangesOfSetsPastIntMaxAreExact) {
  long long b = -1;
  int n = -1;
  ASSERT_EQ(um_block_range(kBig, 0, 2, &b, &n), UM_SUCCESS);
  EXPECT_EQ(b, 0);
  EXPECT_EQ(n, 1500000000);
  ASSERT_EQ(um_block_range(kBig, 1, 2, &b, &n), UM_SUCCESS);
  EXPECT_EQ(b, 1500000000LL);
  EXPECT_EQ(n, 1500000000);
  // 3 ranks: element i on rank floor(3 i / G); the blocks tile [0, G) with no gap
  long long at = 0;
  for (int r = 0; r < 3; r++) {
    ASSERT_EQ(um_block_range(kBig + 1, r, 3, &b, &n), UM_SUCCESS);
    EXPECT_EQ(b, at) << "rank " << r;
    at = b + n;
  }
  EXPECT_EQ(at, kBig + 1);
  // 2^40 elements on 1024 ranks: every block 2^30, the last beginning at 1023 * 2^30
  ASSERT_EQ(um_block_range(1LL << 40, 1023, 1024, &b, &n), UM_SUCCESS);
  EXPECT_EQ(b, 1023LL << 30);
  EXPECT_EQ(n, 1 << 30);
  // 2^60 elements on 2^30 ranks: rank * gsize passes 2^63 (2^90), the range does not
  ASSERT_EQ(um_block_range(1LL << 60, (1 << 30) - 1, 1 << 30, &b, &n), UM_SUCCESS);
  EXPECT_EQ(b, ((1LL << 30) - 1) << 30);
  EXPECT_EQ(n, 1 << 30);
}

TEST(Global64, ABlockPastIntMaxIsRefused) {
  long long b = 7;
  int n = 7;
  EXPECT_EQ(um_block_range(kBig, 0, 1, &b, &n), UM_ERR_ARG);  // one rank would hold all 3e9
  EXPECT_EQ(um_block_range(1LL << 62, 0, 1 << 30, &b, &n), UM_ERR_ARG);  // 2^32 a rank
  EXPECT_EQ(n, 7) << "nothing written on a refusal";
}

TEST(Global64, OneProcessCannotDeclareASetPastIntMax) {
  um_context *ctx = make_ctx("seq");
  um_set *s = nullptr;
  EXPECT_EQ(um_decl_set_block(ctx, kBig, 0, INT_MAX, "cells", &s), UM_ERR_ARG);
  EXPECT_EQ(s, nullptr);
  EXPECT_TRUE(has(um_error_message(ctx), "[0, 2147483647) of 3000000000 elements")) << um_error_message(ctx);
  EXPECT_TRUE(has(um_error_message(ctx), "run on more ranks")) << um_error_message(ctx);
  EXPECT_EQ(um_decl_set_block(ctx, -1, 0, 0, "cells", &s), UM_ERR_ARG);
  EXPECT_TRUE(has(um_error_message(ctx), "global size -1: it must be 0 or more")) << um_error_message(ctx);
  um_finalize(&ctx);
}

// OP2 stores a set's size as one int; a 64-bit one (um's writer past INT_MAX) is read as such: a whole read
// refuses it, a read by blocks says how many ranks it takes.
TEST(Global64, AnHdf5SetSizePastIntMaxIsReadIn64Bits) {
  TempDir t("global64_set");
  const std::string file = t / "m.h5";
  hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t one = 1;
  hid_t sp = H5Screate_simple(1, &one, NULL);
  hid_t d = H5Dcreate2(f, "cells", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(H5Dwrite(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &kBig), 0);
  H5Dclose(d), H5Sclose(sp), H5Fclose(f);

  um_context *ctx = make_ctx("seq");
  um_set *s = nullptr;
  EXPECT_EQ(um_hdf5_read_set(ctx, file.c_str(), "cells", &s), UM_ERR_UNSUPPORTED);
  EXPECT_TRUE(has(um_error_message(ctx), "has 3000000000 elements: a set read whole holds at most 2147483647"))
      << um_error_message(ctx);
  EXPECT_EQ(um_hdf5_read_set_block(ctx, file.c_str(), "cells", &s), UM_ERR_UNSUPPORTED);
  EXPECT_TRUE(has(um_error_message(ctx), "on 1 ranks a rank's block passes 2147483647 elements (an int); run on at "
                                         "least 2 ranks"))
      << um_error_message(ctx);
  EXPECT_EQ(s, nullptr);
  um_finalize(&ctx);
}

// The writer's hyperslab of a block that begins past INT_MAX: the rows land at their 64-bit global offset of a
// dataset of 3e9 rows (space allocated, never filled: a sparse file of a few blocks on disk).
TEST(Global64, OutputRowsLandAtGlobalOffsetsPastIntMax) {
  TempDir t("global64_rows");
  const std::string file = t / "rows.h5";
  um_context *ctx = make_ctx("seq");
  writer w;
  ASSERT_EQ(um__h5w_begin(ctx, &w, file.c_str(), 0, "a test file"), UM_SUCCESS) << um_error_message(ctx);
  hsize_t dims[2] = {(hsize_t)kBig, 1};
  hid_t did;
  ASSERT_EQ(um__h5w_dataset(ctx, &w, "p_big", 2, dims, H5T_NATIVE_UCHAR, nullptr, 0, "dat 'p_big'", &did), UM_SUCCESS)
      << um_error_message(ctx);
  H5Dclose(did);
  ASSERT_EQ(um__h5w_pause(ctx, &w, "a test file"), UM_SUCCESS) << um_error_message(ctx);
  const unsigned char rows[4] = {11, 22, 33, 44};
  const long long at = (1LL << 31) + 7;  // past INT_MAX: an int offset would wrap negative
  slab s = {&w, "p_big", "dat 'p_big'", H5T_NATIVE_UCHAR, rows, at, 4, 1};
  ASSERT_EQ(um__h5w_rows(ctx, &s), UM_SUCCESS) << um_error_message(ctx);
  ASSERT_EQ(um__h5w_commit(ctx, &w, "a test file"), UM_SUCCESS) << um_error_message(ctx);
  um_finalize(&ctx);

  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  hid_t d = H5Dopen2(f, "p_big", H5P_DEFAULT);
  hid_t fs = H5Dget_space(d);
  hsize_t got_dims[2] = {0, 0};
  H5Sget_simple_extent_dims(fs, got_dims, NULL);
  EXPECT_EQ(got_dims[0], (hsize_t)kBig);
  hsize_t start[2] = {(hsize_t)at - 1, 0}, cnt[2] = {6, 1};
  hid_t ms = H5Screate_simple(2, cnt, NULL);
  ASSERT_GE(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL), 0);
  unsigned char back[6] = {0, 0, 0, 0, 0, 0};
  ASSERT_GE(H5Dread(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, back), 0);
  for (int i = 0; i < 4; i++) EXPECT_EQ(back[1 + i], rows[i]) << "row " << at + i;
  H5Sclose(ms), H5Sclose(fs), H5Dclose(d), H5Fclose(f);
  std::remove(file.c_str());
}
