// Tests of checkpoints (um/checkpoint.h): which dats a checkpoint saves and why, the file written and read back,
// and the checks a restart relies on (a value of another size, another format version).
#include <gtest/gtest.h>

#include <hdf5.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

extern "C" {
#include "um/checkpoint.h"
#include "um/um.h"
#include "test_kernels.h"
}

namespace fs = std::filesystem;

namespace {

const int N = 10;

struct Mesh {
  um_set *s = nullptr;
  um_dat *a = nullptr, *b = nullptr, *c = nullptr;
};

class Checkpoint : public ::testing::Test {
 protected:
  std::string dir;
  void SetUp() override {
    char tmpl[] = "/tmp/um_checkpoint_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  static um_context *context() {
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    um_context *ctx = nullptr;
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    return ctx;
  }
  static Mesh declare(um_context *ctx) {
    Mesh m;
    EXPECT_EQ(um_decl_set(ctx, N, "cells", &m.s), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, m.s, 1, UM_DOUBLE, nullptr, "a", &m.a), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, m.s, 1, UM_DOUBLE, nullptr, "b", &m.b), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, m.s, 1, UM_DOUBLE, nullptr, "c", &m.c), UM_SUCCESS);
    return m;
  }
  // b = cbrt(a): a read, b overwritten whole
  static int cbrt_loop(um_context *ctx, const Mesh &m) {
    um_arg args[2] = {um_arg_dat(m.a, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                      um_arg_dat(m.b, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)};
    return um_par_loop(ctx, &cbrt_of_kernel, "cbrt_of", m.s, 2, args);
  }
  static std::vector<um_checkpoint_dat> plan(um_context *ctx) {
    std::vector<um_checkpoint_dat> p((size_t)um_dat_count(ctx));
    int n = 0;
    EXPECT_EQ(um_checkpoint_plan(ctx, p.data(), &n), UM_SUCCESS);
    EXPECT_EQ(n, (int)p.size());
    return p;
  }
};

TEST_F(Checkpoint, PlanSavesWhatTheStepsReadAndSkipsTheRest) {
  um_context *ctx = context();
  Mesh m = declare(ctx);
  std::vector<double> v(N, 8.0);
  ASSERT_EQ(um_checkpoint_mark(ctx), UM_SUCCESS);
  // step 1: a overwritten whole (um_dat_update) before the loop reads it; b overwritten by the loop
  ASSERT_EQ(um_dat_update(ctx, m.a, v.data(), v.size() * sizeof(double)), UM_SUCCESS);
  ASSERT_EQ(cbrt_loop(ctx, m), UM_SUCCESS);
  ASSERT_EQ(um_checkpoint_step(ctx), UM_SUCCESS);
  auto p = plan(ctx);
  EXPECT_FALSE(p[0].saved) << p[0].reason;
  EXPECT_NE(std::string(p[0].reason).find("overwrites it whole"), std::string::npos) << p[0].reason;
  EXPECT_FALSE(p[1].saved);
  EXPECT_NE(std::string(p[1].reason).find("loop 'cbrt_of'"), std::string::npos) << p[1].reason;
  EXPECT_FALSE(p[2].saved);
  EXPECT_NE(std::string(p[2].reason).find("not changed since the set-up"), std::string::npos) << p[2].reason;
  // step 2: the loop reads a before anything overwrites it: a is needed
  ASSERT_EQ(cbrt_loop(ctx, m), UM_SUCCESS);
  ASSERT_EQ(um_checkpoint_step(ctx), UM_SUCCESS);
  p = plan(ctx);
  EXPECT_TRUE(p[0].saved) << p[0].reason;
  EXPECT_FALSE(p[1].saved) << p[1].reason;
  EXPECT_FALSE(p[2].saved) << p[2].reason;
  um_finalize(&ctx);
}

TEST_F(Checkpoint, WrittenAndReadBackWithValuesAndTexts) {
  um_context *ctx = context();
  Mesh m = declare(ctx);
  std::vector<double> v(N);
  for (int i = 0; i < N; i++) v[i] = 1.0 + i * i;
  ASSERT_EQ(um_checkpoint_mark(ctx), UM_SUCCESS);
  ASSERT_EQ(cbrt_loop(ctx, m), UM_SUCCESS); // a read first: saved once it changes
  ASSERT_EQ(um_dat_update(ctx, m.a, v.data(), v.size() * sizeof(double)), UM_SUCCESS);
  ASSERT_EQ(um_checkpoint_step(ctx), UM_SUCCESS);
  double t = 1.25;
  long step = 7;
  const um_checkpoint_value values[] = {{"t", &t, sizeof t}, {"step", &step, sizeof step}};
  const um_checkpoint_text texts[] = {{"app", "test"}, {"physics", "params.x = 1\n"}};
  const um_checkpoint_content content = {values, 2, texts, 2};
  const std::string file = dir + "/ck.h5";
  um_checkpoint_cost cost;
  ASSERT_EQ(um_checkpoint_write(ctx, file.c_str(), &content, &cost), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(cost.saved, 1);
  EXPECT_EQ(cost.skipped, 2);
  um_finalize(&ctx);

  um_context *c2 = context();
  Mesh m2 = declare(c2);
  um_checkpoint_file *f = nullptr;
  ASSERT_EQ(um_checkpoint_open(c2, file.c_str(), &f), UM_SUCCESS) << um_error_message(c2);
  EXPECT_STREQ(um_checkpoint_text_get(f, "app"), "test");
  EXPECT_STREQ(um_checkpoint_text_get(f, "physics"), "params.x = 1\n");
  EXPECT_EQ(um_checkpoint_text_get(f, "nothing"), nullptr);
  double t2 = 0;
  long step2 = 0;
  EXPECT_EQ(um_checkpoint_value_get(c2, f, "t", &t2, sizeof t2), UM_SUCCESS);
  EXPECT_EQ(um_checkpoint_value_get(c2, f, "step", &step2, sizeof step2), UM_SUCCESS);
  EXPECT_EQ(t2, 1.25);
  EXPECT_EQ(step2, 7);
  EXPECT_EQ(um_checkpoint_value_has(f, "step"), 1);
  EXPECT_EQ(um_checkpoint_value_has(f, "nothing"), 0);
  EXPECT_EQ(um_checkpoint_value_has(f, "app"), 0); // a text (meta/), not a value
  EXPECT_EQ(um_checkpoint_value_has(nullptr, "step"), 0);
  int small = 0; // another size: another version of the app
  EXPECT_EQ(um_checkpoint_value_get(c2, f, "t", &small, sizeof small), UM_ERR_IO);
  EXPECT_NE(std::string(um_error_message(c2)).find("value 't' is 8 bytes where this run keeps 4"), std::string::npos)
      << um_error_message(c2);
  EXPECT_EQ(um_checkpoint_verify(c2, f), UM_SUCCESS) << um_error_message(c2);
  ASSERT_EQ(um_checkpoint_restore(c2, f, &cost), UM_SUCCESS) << um_error_message(c2);
  EXPECT_EQ(cost.saved, 1);
  um_checkpoint_close(f);
  std::vector<double> got(N);
  ASSERT_EQ(um_dat_fetch(c2, m2.a, got.data(), got.size() * sizeof(double)), UM_SUCCESS);
  EXPECT_EQ(got, v);
  um_finalize(&c2);
}

TEST_F(Checkpoint, AnotherFormatVersionAndAMissingMarkerAreRefused) {
  um_context *ctx = context();
  Mesh m = declare(ctx);
  ASSERT_EQ(um_checkpoint_mark(ctx), UM_SUCCESS);
  ASSERT_EQ(cbrt_loop(ctx, m), UM_SUCCESS);
  ASSERT_EQ(um_checkpoint_step(ctx), UM_SUCCESS);
  const std::string file = dir + "/ck.h5";
  ASSERT_EQ(um_checkpoint_write(ctx, file.c_str(), nullptr, nullptr), UM_SUCCESS) << um_error_message(ctx);
  // the marker says format 2
  hid_t fid = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(fid, 0);
  hid_t d = H5Dopen2(fid, "um_checkpoint", H5P_DEFAULT);
  const int two = 2;
  ASSERT_GE(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &two), 0);
  H5Dclose(d);
  H5Fclose(fid);
  um_checkpoint_file *f = nullptr;
  EXPECT_EQ(um_checkpoint_open(ctx, file.c_str(), &f), UM_ERR_CONFIG);
  EXPECT_EQ(f, nullptr);
  EXPECT_NE(std::string(um_error_message(ctx)).find("is of format 2; this um reads format 1"), std::string::npos)
      << um_error_message(ctx);
  // no marker at all: a writing that did not finish, or another program's file
  fid = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(H5Ldelete(fid, "um_checkpoint", H5P_DEFAULT), 0);
  H5Fclose(fid);
  EXPECT_EQ(um_checkpoint_open(ctx, file.c_str(), &f), UM_ERR_IO);
  EXPECT_NE(std::string(um_error_message(ctx)).find("is not a complete um checkpoint"), std::string::npos)
      << um_error_message(ctx);
  um_finalize(&ctx);
}

// A dat the file's list says was saved, whose dataset is gone (the other datasets' checksums still match): the
// restore and the scan refuse the file, naming the dat.
TEST_F(Checkpoint, ASavedDatMissingFromTheFileIsRefused) {
  um_context *ctx = context();
  Mesh m = declare(ctx);
  std::vector<double> v(N, 2.5);
  ASSERT_EQ(um_checkpoint_mark(ctx), UM_SUCCESS);
  ASSERT_EQ(cbrt_loop(ctx, m), UM_SUCCESS);
  ASSERT_EQ(um_dat_update(ctx, m.a, v.data(), v.size() * sizeof(double)), UM_SUCCESS);
  ASSERT_EQ(um_checkpoint_step(ctx), UM_SUCCESS);
  const std::string file = dir + "/ck.h5";
  um_checkpoint_cost cost;
  ASSERT_EQ(um_checkpoint_write(ctx, file.c_str(), nullptr, &cost), UM_SUCCESS) << um_error_message(ctx);
  ASSERT_EQ(cost.saved, 1); // a
  um_finalize(&ctx);
  hid_t fid = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(fid, 0);
  ASSERT_GE(H5Ldelete(fid, "dats/a", H5P_DEFAULT), 0);
  H5Fclose(fid);

  um_context *c2 = context();
  declare(c2);
  um_checkpoint_file *f = nullptr;
  ASSERT_EQ(um_checkpoint_open(c2, file.c_str(), &f), UM_SUCCESS) << um_error_message(c2);
  EXPECT_EQ(um_checkpoint_verify(c2, f), UM_ERR_IO);
  EXPECT_EQ(um_checkpoint_restore(c2, f, &cost), UM_ERR_IO);
  EXPECT_NE(std::string(um_error_message(c2)).find("says dat 'a' was saved, and it has no dataset 'dats/a'"),
            std::string::npos)
      << um_error_message(c2);
  um_checkpoint_close(f);
  um_finalize(&c2);
}

} // namespace
