// The rules the runner applies to every app (um/app.h): a metric that is NaN or infinite stops the run
// and is written to JSON as null; a time step that cannot reach the end time stops the run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

extern "C" {
#include "um/app.h"
#include "um/report.h"
#include "um/um.h"
}

#include "test_context.hpp"
#include "test_files.hpp"

namespace {

using umtest::has;

using umtest::make_ctx;

}  // namespace

// ---- metrics: NaN or infinity stops the run, and is written as JSON null ---------------------------

TEST(AppMetrics, ANonFiniteMetricStopsTheRunAndIsWrittenAsJsonNull) {
  um_context *ctx = make_ctx("seq");
  um_app_run run;
  memset(&run, 0, sizeof run);
  run.ctx = ctx;
  EXPECT_EQ(um_app_metric(&run, "energy", 1.5), UM_SUCCESS);
  EXPECT_EQ(um_app_metric(&run, "energy", NAN), UM_ERR_DIVERGED);
  EXPECT_TRUE(has(um_error_message(ctx), "metric 'energy' is nan")) << um_error_message(ctx);
  EXPECT_EQ(um_app_metric(&run, "e2", INFINITY), UM_ERR_DIVERGED);
  char buf[256] = "";
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  um_json_number(f, NAN);
  fputc(' ', f);
  um_json_number(f, -INFINITY);
  fputc(' ', f);
  um_json_number(f, 0.25);
  fclose(f);
  EXPECT_STREQ(buf, "null null 0.25");
  um_finalize(&ctx);
}

// ---- a run that cannot reach its end time stops ----------------------------------------------------

// The stall rule every time-stepping app calls (volna, bookleaf, lulesh). Before:
// Volna with cfl = 1e-30 and BookLeaf with dt = 1e-300 looped for ever.
TEST(StallRule, TheStallRuleStopsStepsThatCannotReachTheEndTime) {
  char err[1024];
  // normal steps, a growing dt from a small start, and the app's own step limit pass
  EXPECT_EQ(um_step_check("app", 1, 0.0, 1e-3, 0, 20.0, 0, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(um_step_check("app", 2, 1e-12, 1e-12 * 1.02, 1e-12, 20.0, 0, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(um_step_check("app", 5, 1e-9, 1e-12, 1e-12, 20.0, 1000, err, sizeof err), UM_SUCCESS) << err;
  // a step that does not advance the time: t + dt == t
  EXPECT_EQ(um_step_check("volna", 12, 1.0, 1e-17, 1e-17, 4.0, 0, err, sizeof err), UM_ERR_DIVERGED);
  EXPECT_TRUE(has(err, "volna: step 12 at t = 1 with dt = 1.0000000000000001e-17 does not advance the time")) << err;
  // dt no longer growing, and too many steps still needed
  EXPECT_EQ(um_step_check("bookleaf", 2, 1e-300, 1e-300, 1e-300, 20.0, 0, err, sizeof err), UM_ERR_DIVERGED);
  EXPECT_TRUE(has(err, "bookleaf: step 2 at t = 1e-300 with dt = 1e-300") && has(err, "UM_APP_MAX_STEPS")) << err;
  // not a time step at all
  for (double dt : {0.0, -1.0, (double)NAN, (double)INFINITY}) {
    EXPECT_EQ(um_step_check("lulesh", 3, 0.5, dt, 1e-3, 1.0, 0, err, sizeof err), UM_ERR_DIVERGED) << dt;
    EXPECT_TRUE(has(err, "lulesh: step 3 at t = 0.5: dt =")) << err;
  }
}

// ---- text rows formatted on the host's threads ---------------------------------------------------------

namespace {
// row i: i, then i % 7 + 1 copies of 'x' (lines of different lengths), at most 32 bytes
size_t ragged_row(const void *data, size_t i, char *out) {
  const int base = *static_cast<const int *>(data);
  return (size_t)sprintf(out, "%zu %.*s\n", i + (size_t)base, (int)(i % 7 + 1), "xxxxxxx");
}
}  // namespace

TEST(AppText, RowsFormattedOnThreadsComeOutInOrder) {
  const int base = 10;
  for (int threads : {1, 3}) {
    um_context *ctx = make_ctx("openmp", threads);
    ASSERT_EQ(um_context_host_threads(ctx), threads);
    um_app_run run;
    memset(&run, 0, sizeof run);
    run.ctx = ctx;
    // fewer rows than a thread's share (one chunk), chunk edges, and many chunks of uneven lines
    for (size_t n : {(size_t)0, (size_t)1, (size_t)4095, (size_t)4096, (size_t)4097, (size_t)100003}) {
      std::string want;
      char line[64];
      for (size_t i = 0; i < n; i++) {
        ragged_row(&base, i, line);
        want += line;
      }
      size_t len = 12345;
      char *text = um_app_format_rows(&run, n, 32, ragged_row, &base, &len);
      ASSERT_NE(text, nullptr);
      EXPECT_EQ(len, want.size()) << n << " rows, " << threads << " threads";
      EXPECT_EQ(std::string(text, len), want) << n << " rows, " << threads << " threads";
      EXPECT_EQ(text[len], '\0');
      free(text);
    }
    um_finalize(&ctx);
  }
}
