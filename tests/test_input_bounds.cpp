// Sizes read from inputs are bounded before anything is allocated: a set or dat whose size product
// overflows, an HDF5 dataset whose extent claims more values than the file stores, a reordering file
// whose permutations do not fit the sets. Each is refused with a message that names the count.
#include <gtest/gtest.h>

#include <hdf5.h>

#include <climits>
#include <cstring>
#include <string>

extern "C" {
#include "um/hdf5io.h"
#include "um/reorder.h"
#include "um/um.h"
}

#include "test_context.hpp"
#include "test_files.hpp"

namespace {

#define OK(call) ASSERT_EQ((call), UM_SUCCESS) << um_error_message(ctx)

using umtest::has;
using umtest::TempDir;

using umtest::make_ctx;

hid_t dataset(hid_t f, const char *name, hid_t type, int rank, const hsize_t *dims, const void *data,
              const hsize_t *chunk = nullptr) {
  hid_t sp = H5Screate_simple(rank, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (chunk) H5Pset_chunk(dcpl, rank, chunk);
  hid_t d = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  EXPECT_GE(d, 0) << name;
  if (data) EXPECT_GE(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
  H5Pclose(dcpl);
  H5Sclose(sp);
  return d;
}

void set_dataset(hid_t f, const char *name, int size) {
  hsize_t one = 1;
  H5Dclose(dataset(f, name, H5T_NATIVE_INT, 1, &one, &size));
}

}  // namespace

// ---- size products are overflow-checked ------------------------------------------------------------

TEST(SizeLimits, DeclaringADatWhoseSizeOverflowsIsAnError) {
  um_context *ctx = make_ctx("seq");
  um_set *s;
  OK(um_decl_set(ctx, INT_MAX, "huge", &s));
  um_dat *d = nullptr;
  EXPECT_EQ(um_decl_dat(ctx, s, INT_MAX, UM_DOUBLE, nullptr, "d", &d), UM_ERR_ARG);
  EXPECT_EQ(d, nullptr);
  EXPECT_TRUE(has(um_error_message(ctx), "size overflow")) << um_error_message(ctx);
  um_map *m = nullptr;
  EXPECT_EQ(um_decl_map(ctx, s, s, INT_MAX, nullptr, "m", &m), UM_ERR_ARG);  // 2^62 entries: no data given
  EXPECT_EQ(m, nullptr);
  um_finalize(&ctx);
}

// ---- HDF5 inputs: extents checked against the bytes stored -----------------------------------------

// A dataset whose extent claims more values than the file stores (a 2 KB file
// claimed a dat of exabytes) is refused before anything is allocated, with the
// count named.
TEST(HdfInput, HdfDatasetsClaimingMoreThanTheFileStoresAreRefused) {
  TempDir t("h5extent");
  const std::string file = t / "m.h5";
  hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  set_dataset(f, "cells", 1000);
  set_dataset(f, "huge", INT_MAX);
  hsize_t dims[2] = {1000, 1u << 30}, chunk[2] = {1, 1024};
  H5Dclose(dataset(f, "p_wide", H5T_NATIVE_DOUBLE, 2, dims, nullptr, chunk));  // never written: no storage
  hsize_t mdims[2] = {1000, 4};
  H5Dclose(dataset(f, "pmap", H5T_NATIVE_INT, 2, mdims, nullptr));  // contiguous, never written
  hsize_t odims[2] = {INT_MAX, INT_MAX}, ochunk[2] = {1, 64};
  H5Dclose(dataset(f, "p_overflow", H5T_NATIVE_UCHAR, 2, odims, nullptr, ochunk));
  H5Fclose(f);

  um_context *ctx = make_ctx("seq");
  um_set *cells, *huge;
  OK(um_hdf5_read_set(ctx, file.c_str(), "cells", &cells));
  OK(um_hdf5_read_set(ctx, file.c_str(), "huge", &huge));
  um_dat *d = nullptr;
  EXPECT_EQ(um_hdf5_read_dat(ctx, file.c_str(), cells, "p_wide", &d), UM_ERR_IO);
  EXPECT_TRUE(has(um_error_message(ctx), "implausible")) << um_error_message(ctx);
  um_map *m = nullptr;
  EXPECT_EQ(um_hdf5_read_map(ctx, file.c_str(), cells, cells, "pmap", &m), UM_ERR_IO);
  EXPECT_TRUE(has(um_error_message(ctx), "stores only 0 bytes")) << um_error_message(ctx);
  EXPECT_EQ(um_hdf5_read_dat_expect(ctx, file.c_str(), huge, INT_MAX, UM_INT, "p_overflow", &d), UM_ERR_IO);
  EXPECT_TRUE(has(um_error_message(ctx), "overflow") || has(um_error_message(ctx), "implausible"))
      << um_error_message(ctx);
  um_finalize(&ctx);
}

// ---- reordering files: permutation sizes checked against the sets ----------------------------------

// fault 3: a reordering file's permutation sizes are checked against the sets
// (and the bytes stored) before allocating.
TEST(ReorderFile, ReorderFileSizesAreBoundedBeforeAllocating) {
  TempDir t("reorder");
  const std::string file = t / "r.h5";
  hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  auto attr_str = [](hid_t loc, const char *name, const char *v) {
    hid_t sp = H5Screate(H5S_SCALAR), ty = H5Tcopy(H5T_C_S1);
    H5Tset_size(ty, strlen(v));
    hid_t a = H5Acreate2(loc, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, ty, v);
    H5Aclose(a);
    H5Tclose(ty);
    H5Sclose(sp);
  };
  attr_str(f, "method", "gps");
  attr_str(f, "map", "m");
  attr_str(f, "map_hash", "0");
  hsize_t one = 1;
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(f, "format_version", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
  int v = UM_REORDER_FILE_VERSION;
  H5Awrite(a, H5T_NATIVE_INT, &v);
  H5Aclose(a);
  H5Sclose(sp);
  (void)one;
  hsize_t dim = 2000000000ull, chunk = 1024;
  hid_t d = dataset(f, "perm_nodes", H5T_NATIVE_INT, 1, &dim, nullptr, &chunk);
  attr_str(d, "set", "nodes");
  H5Dclose(d);
  H5Fclose(f);

  um_context *ctx = make_ctx("seq");
  um_set *nodes;
  OK(um_decl_set(ctx, 10, "nodes", &nodes));
  um_reordering *r = nullptr;
  EXPECT_NE(um_reordering_load(ctx, file.c_str(), &r, nullptr), UM_SUCCESS);
  EXPECT_EQ(r, nullptr);
  EXPECT_TRUE(has(um_error_message(ctx), "set 'nodes' has 10 elements but the file's permutation has 2000000000"))
      << um_error_message(ctx);
  um_finalize(&ctx);
}
