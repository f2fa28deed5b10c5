// Global numbers past INT_MAX (one process): a set declared by blocks may have more than 2^31 - 1 elements over
// its ranks while each rank's part stays an int. The 64-bit paths that need no global-sized allocation: the block
// ranges, the refusals where a whole set or one rank's block cannot hold the count, an HDF5 set size stored in 64
// bits, and the rows of an output written at a global offset past INT_MAX (a sparse file: only the block's bytes).
// The distributed paths (declaring by blocks, the tiling check, the partitioners' refusals) are in
// test_mpi_blocks.cpp. Also the 64-bit forms of the output helpers: um_rows_to_blocks64's keys,
// um_hdf5_write_blocks64's set sizes, um_hdf5_rows' row counts, um_xdmf_write's counts.
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

// um_rows_to_blocks64: keys are 64-bit global numbers (um_rows_to_blocks' int keys cannot hold one past INT_MAX);
// on one process the block is the whole numbering, and a key outside it is named in its 64 bits.
TEST(Global64, RowsToBlocksTakes64BitKeys) {
  um_context *ctx = make_ctx("seq");
  const long long keys[3] = {2, 0, 1};
  const char rows[3] = {'c', 'a', 'b'};
  char out[3] = {0, 0, 0};
  ASSERT_EQ(um_rows_to_blocks64(ctx, 3, keys, rows, 1, 3, out, sizeof out), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(std::string(out, 3), "abc");
  const long long bad[3] = {2, kBig, 1};  // as an int: -1294967296
  EXPECT_EQ(um_rows_to_blocks64(ctx, 3, bad, rows, 1, 3, out, sizeof out), UM_ERR_ARG);
  EXPECT_TRUE(has(um_error_message(ctx), "row 1 is numbered 3000000000, outside [0, 3)")) << um_error_message(ctx);
  // a numbering past INT_MAX: this process's block would be all of it (refused before anything is touched)
  EXPECT_EQ(um_rows_to_blocks64(ctx, 1, keys, rows, 1, kBig, out, 1), UM_ERR_ARG);
  um_finalize(&ctx);
}

// um_hdf5_write_blocks64: a set size past INT_MAX is written as a 64-bit integer (one within it as OP2's int);
// um_hdf5_rows.rows is 64-bit, and a dataset whose block would pass an int on this many ranks is refused before
// any file is made, saying how many ranks it takes.
TEST(Global64, BlocksWriterStoresSetSizesPastIntMaxIn64Bits) {
  static_assert(sizeof(((um_hdf5_rows *)nullptr)->rows) == sizeof(long long), "um_hdf5_rows.rows is 64-bit");
  TempDir t("global64_blocks");
  const std::string file = t / "b.h5";
  um_context *ctx = make_ctx("seq");
  const char *sets[] = {"cells", "nodes"};
  const long long sizes[] = {kBig, 4};
  const double x[4] = {1, 2, 3, 4};
  const um_hdf5_rows rows[] = {{"node_x", 4, 1, UM_DOUBLE, 0, x}};
  ASSERT_EQ(um_hdf5_write_blocks64(ctx, file.c_str(), 2, sets, sizes, 1, rows), UM_SUCCESS) << um_error_message(ctx);
  const um_hdf5_rows big[] = {{"p_big", kBig, 1, UM_INT, 0, x}};
  const std::string none = t / "none.h5";
  EXPECT_EQ(um_hdf5_write_blocks64(ctx, none.c_str(), 2, sets, sizes, 1, big), UM_ERR_ARG);
  EXPECT_TRUE(has(um_error_message(ctx), "dataset 'p_big' has 3000000000 rows: on 1 ranks a rank's block passes "
                                         "2147483647 (an int); run on at least 2 ranks"))
      << um_error_message(ctx);
  FILE *left = std::fopen(none.c_str(), "rb");
  EXPECT_EQ(left, nullptr) << "no file on a refusal";
  if (left) std::fclose(left);
  um_finalize(&ctx);

  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  for (int i = 0; i < 2; i++) {
    hid_t d = H5Dopen2(f, sets[i], H5P_DEFAULT);
    ASSERT_GE(d, 0) << sets[i];
    hid_t ty = H5Dget_type(d);
    EXPECT_EQ(H5Tget_size(ty), i == 0 ? 8u : 4u) << sets[i] << ": 64-bit past INT_MAX, OP2's int within it";
    long long v = -1;
    EXPECT_GE(H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v), 0);
    EXPECT_EQ(v, sizes[i]) << sets[i];
    H5Tclose(ty), H5Dclose(d);
  }
  H5Fclose(f);
}

// The XDMF description of a mesh past INT_MAX elements: its counts and dimensions in full (no HDF5 file to probe:
// the default number types).
TEST(Global64, XdmfCountsPastIntMax) {
  TempDir t("global64_xdmf");
  const std::string xmf = t / "big.xmf";
  char err[512] = "";
  const long long cells = kBig, nodes = 2 * kBig + 1;
  ASSERT_EQ(um_xdmf_write(xmf.c_str(), "none.h5", "x", nodes, 3, "hex", cells, 8, nullptr, nullptr, 0, err,
                          sizeof err),
            UM_SUCCESS)
      << err;
  std::FILE *f = std::fopen(xmf.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string text;
  char buf[4096];
  for (size_t k; (k = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, k);
  std::fclose(f);
  EXPECT_TRUE(has(text, "NumberOfElements=\"3000000000\" NodesPerElement=\"8\"")) << text;
  EXPECT_TRUE(has(text, "Dimensions=\"3000000000 8\"")) << text;
  EXPECT_TRUE(has(text, "Dimensions=\"6000000001 3\"")) << text;
  EXPECT_EQ(um_xdmf_write(xmf.c_str(), "none.h5", "x", -kBig, 3, "hex", cells, 8, nullptr, nullptr, 0, err,
                          sizeof err),
            UM_ERR_ARG);
  EXPECT_TRUE(has(err, "nnodes (-3000000000)")) << err;
}
