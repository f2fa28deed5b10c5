// output.dir made, claimed and taken away again (umrun/outdir.c): a failed run takes away only the empty folders
// it made, never one another run has claimed, and a run whose folder went away before its claim makes it again.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

#include "test_files.hpp"

extern "C" {
#include "runner.h"
}

namespace fs = std::filesystem;

namespace {

struct OneRun { // one run's settings, with output.dir
  run_settings s;
  std::string dir;
  explicit OneRun(const std::string &d) : dir(d) {
    std::memset(&s, 0, sizeof s);
    s.outdir = dir.c_str();
    s.outdir_fd = -1;
  }
  int make() {
    char err[4096] = "";
    const int rc = umrun_make_outdir(nullptr, &s, err, sizeof err);
    if (rc) ADD_FAILURE() << err;
    return rc;
  }
  void release() { // the run's end: its claim given up
    if (s.outdir_fd >= 0) close(s.outdir_fd);
    s.outdir_fd = -1;
  }
  ~OneRun() { release(); }
};

TEST(OutputDir, AFailedRunTakesAwayTheEmptyFoldersItMadeAndNoMore) {
  umtest::TempDir t("outdir_made");
  OneRun a(t / "new/deeper/out");
  ASSERT_EQ(a.make(), 0);
  EXPECT_TRUE(fs::is_directory(a.dir));
  EXPECT_GE(a.s.outdir_fd, 0); // claimed
  fs::create_directory(a.dir + "/checkpoints"); // made empty by the checkpoint check: goes too
  a.release();
  umrun_remove_made_dirs(&a.s);
  EXPECT_FALSE(fs::exists(t / "new")); // the first folder it made, and those in it
  EXPECT_TRUE(fs::is_directory(t.dir)); // not the one that was there
}

TEST(OutputDir, AFolderThatWasThereStays) {
  umtest::TempDir t("outdir_there");
  fs::create_directories(t / "out");
  OneRun a(t / "out");
  ASSERT_EQ(a.make(), 0);
  a.release();
  umrun_remove_made_dirs(&a.s);
  EXPECT_TRUE(fs::is_directory(t / "out"));
}

TEST(OutputDir, AFolderWithFilesStays) {
  umtest::TempDir t("outdir_files");
  OneRun a(t / "made/out");
  ASSERT_EQ(a.make(), 0);
  std::ofstream(a.dir + "/results.0") << "x\n";
  a.release();
  umrun_remove_made_dirs(&a.s);
  EXPECT_TRUE(fs::exists(a.dir + "/results.0"));
}

// Two runs on one output.dir, the first refused after it made the folder: the second, which claimed the folder
// meanwhile, keeps it (before, the first took it away under the second, whose outputs then failed).
TEST(OutputDir, AFailedRunLeavesAFolderAnotherRunClaimed) {
  umtest::TempDir t("outdir_shared");
  OneRun first(t / "made/out"), second(t / "made/out");
  ASSERT_EQ(first.make(), 0);
  first.release(); // refused: its claim goes first, then its folders
  ASSERT_EQ(second.make(), 0);
  EXPECT_GE(second.s.outdir_fd, 0);
  umrun_remove_made_dirs(&first.s);
  EXPECT_TRUE(fs::is_directory(second.dir));
  // a parent that is another run's output.dir stays too
  OneRun inner(t / "made2/a/b"), outer(t / "made2/a");
  ASSERT_EQ(inner.make(), 0);
  ASSERT_EQ(outer.make(), 0);
  inner.release();
  umrun_remove_made_dirs(&inner.s);
  EXPECT_FALSE(fs::exists(inner.dir));
  EXPECT_TRUE(fs::is_directory(outer.dir));
}

// A folder made by a run that then took it away again before this run's claim: made again, and claimed.
TEST(OutputDir, MadeAgainWhenItWentAwayBeforeTheClaim) {
  umtest::TempDir t("outdir_again");
  OneRun a(t / "out");
  ASSERT_EQ(a.make(), 0);
  a.release();
  fs::remove(t / "out");
  ASSERT_EQ(a.make(), 0);
  EXPECT_TRUE(fs::is_directory(a.dir));
  EXPECT_GE(a.s.outdir_fd, 0);
}

TEST(OutputDir, AFolderAnotherRunHoldsIsSharedWithAWarning) {
  umtest::TempDir t("outdir_held");
  OneRun a(t / "out"), b(t / "out");
  ASSERT_EQ(a.make(), 0);
  testing::internal::CaptureStderr();
  ASSERT_EQ(b.make(), 0);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(umtest::has(said, "is the output.dir of another umrun running now")) << said;
  EXPECT_LT(b.s.outdir_fd, 0);
}

TEST(OutputDir, NoneIsMadeWithoutOutputDir) {
  run_settings s;
  std::memset(&s, 0, sizeof s);
  char err[256] = "";
  EXPECT_EQ(umrun_make_outdir(nullptr, &s, err, sizeof err), 0);
  EXPECT_EQ(s.outdir_fd, -1);
  umrun_remove_made_dirs(&s); // nothing made, nothing taken
}

} // namespace
