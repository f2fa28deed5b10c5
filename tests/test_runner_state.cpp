// The runner's state (umrun/apps_table.h, um/app.h): made from um_run_args by um_run_main, passed explicitly;
// two runners side by side share nothing, and a NULL runner reads as one with no apps.
#include <gtest/gtest.h>

#include <cstring>

extern "C" {
#include "apps_table.h"
#include "um/run.h"
}

namespace {

int noop_run(um_app_run *) { return UM_SUCCESS; }
const um_app alpha = {"alpha", "the first", noop_run, nullptr, 0, nullptr};
const um_app beta = {"Beta", "the second", noop_run, nullptr, 0, nullptr};
const um_app nameless = {nullptr, "no name", noop_run, nullptr, 0, nullptr};

TEST(RunnerState, MadeFromItsArgumentsAndReadThroughIt) {
  const um_app *apps[] = {&alpha, &beta};
  um_run_args args = {};
  args.apps = apps;
  args.n_apps = 2;
  args.default_config = "app: alpha\n";
  um_runner r;
  ASSERT_EQ(umrun_runner_init(&r, &args, "/opt/x/bin/myprog"), 0);
  EXPECT_STREQ(r.prog, "myprog");
  EXPECT_STREQ(r.default_config, "app: alpha\n");
  EXPECT_STREQ(r.default_config_name, "embedded default config");
  EXPECT_EQ(um_app_count(&r), 2);
  EXPECT_EQ(um_app_at(&r, 0), &alpha);
  EXPECT_EQ(um_app_at(&r, 1), &beta);
  EXPECT_EQ(um_app_at(&r, 2), nullptr);
  EXPECT_EQ(um_app_at(&r, -1), nullptr);
  EXPECT_EQ(um_app_find(&r, "BETA"), &beta);  // names ignore case
  EXPECT_EQ(um_app_find(&r, "gamma"), nullptr);
  EXPECT_EQ(um_app_find(&r, nullptr), nullptr);

  const um_app *one[] = {&beta};  // a second runner: its own apps, the first's unchanged
  um_run_args args2 = {};
  args2.apps = one;
  args2.n_apps = 1;
  args2.default_config_name = "mine";
  um_runner r2;
  ASSERT_EQ(umrun_runner_init(&r2, &args2, nullptr), 0);
  EXPECT_STREQ(r2.prog, "umrun");
  EXPECT_EQ(r2.default_config, nullptr);
  EXPECT_STREQ(r2.default_config_name, "mine");
  EXPECT_EQ(um_app_find(&r2, "alpha"), nullptr);
  EXPECT_EQ(um_app_find(&r, "alpha"), &alpha);

  EXPECT_EQ(um_app_count(nullptr), 0);  // no runner: no apps
  EXPECT_EQ(um_app_at(nullptr, 0), nullptr);
  EXPECT_EQ(um_app_find(nullptr, "alpha"), nullptr);
}

TEST(RunnerState, NoAppsOrAnAppWithoutANameIsRefused) {
  um_runner r;
  ::testing::internal::CaptureStderr();
  EXPECT_NE(umrun_runner_init(&r, nullptr, "prog"), 0);
  um_run_args args = {};
  EXPECT_NE(umrun_runner_init(&r, &args, "prog"), 0);
  const um_app *apps[] = {&alpha, &nameless};
  args.apps = apps;
  args.n_apps = 2;
  EXPECT_NE(umrun_runner_init(&r, &args, "prog"), 0);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("was given no apps"), std::string::npos) << err;
  EXPECT_NE(err.find("app 1 of 2 has no name or no run function"), std::string::npos) << err;
  EXPECT_EQ(um_app_count(&r), 0);
}

}  // namespace
