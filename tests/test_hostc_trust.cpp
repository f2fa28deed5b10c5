// The compiled host loops' cache as a trust boundary, the parts a runner-level check cannot pin down
// (docs/reliability.md §13): a module is loaded through the descriptor it was verified on, never by its path again;
// a module's mode is the user's alone whatever the umask; work folders and locks of other hosts and PID namespaces
// are left alone; a module of another user's is never sealed.
//
// A binary of its own: it interposes dlopen (defined here, it is the one the engine calls) to play the attacker at
// the one moment that matters, between the check and the load, deterministically: armed, it swaps the folder above
// the cache for one of planted modules just before the real dlopen and swaps it back after.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

extern "C" {
#include "backends/host/hostc_cache.h"
}
#include "test_cuda_workload.hpp"
#include "test_files.hpp"
#include "test_planted.hpp"

namespace fs = std::filesystem;

namespace {

// The attacker: when armed, a module's dlopen finds `planted` where `home` (the folder above the cache) was.
struct Swapper {
  bool armed = false;
  fs::path home, planted, aside;
  int swaps = 0;
  std::vector<std::string> names;  // what the engine asked dlopen for
};
Swapper swapper;

bool module_name(const char *name) {
  return name && (std::strstr(name, "/host-") || std::strncmp(name, "/proc/self/fd/", 14) == 0);
}

}  // namespace

extern "C" void *dlopen(const char *name, int flags) {
  using real_dlopen = void *(*)(const char *, int);
  static const real_dlopen real = reinterpret_cast<real_dlopen>(dlsym(RTLD_NEXT, "dlopen"));
  const bool swap = swapper.armed && module_name(name);
  if (swap) {  // renamed between the engine's check and the load, as a user who owns a folder above could
    swapper.names.push_back(name);
    if (rename(swapper.home.c_str(), swapper.aside.c_str()) == 0) {
      if (rename(swapper.planted.c_str(), swapper.home.c_str()) == 0) swapper.swaps++;
      else rename(swapper.aside.c_str(), swapper.home.c_str());
    }
  }
  void *h = real(name, flags);
  if (swap && fs::exists(swapper.aside)) {
    rename(swapper.home.c_str(), swapper.planted.c_str());
    rename(swapper.aside.c_str(), swapper.home.c_str());
  }
  return h;
}

namespace {

using umtest::has;
using umtest::TempDir;

void capture(void *user, um_log_level level, const char *msg) {
  if (level == UM_LOG_WARNING) *static_cast<std::string *>(user) += std::string(msg) + "\n";
}

um_options options(um_compile mode, const std::string &cache, std::string *warnings = nullptr) {
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  o.block_size = 64;
  EXPECT_EQ(um_options_set(&o, "hostc.compile", um_compile_name(mode)), UM_SUCCESS);
  EXPECT_EQ(um_options_set(&o, "hostc.compile_after", "0"), UM_SUCCESS);
  EXPECT_EQ(um_options_set(&o, "run.cache", cache.c_str()), UM_SUCCESS);
  if (warnings) {
    o.log = capture;
    o.log_user = warnings;
  }
  return o;
}

// Runs the workload; its calls and compiled calls.
void run(const um_options &o, const tcw::Mesh &m, tcw::Result *res, long *calls, long *compiled) {
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  tcw::run_all(ctx, m, res, 3);
  *calls = *compiled = 0;
  um_loop_stats s;
  for (int i = 0; i < um_loop_stats_count(ctx); i++) {
    ASSERT_EQ(um_loop_stats_get(ctx, i, &s), UM_SUCCESS);
    *calls += s.calls;
    *compiled += s.compiled_calls;
  }
  um_finalize(&ctx);
}


// Between the check and the load, the folder above the cache is swapped for one of planted modules under every
// module's name: the module loaded is still the one checked (a fresh compile's, then the cache's), never a planted
// one, and the results are the generic code's.
TEST(HostCompileTrust, TheModuleLoadedIsTheOneVerifiedWhateverHappensToItsPath) {
  TempDir t("hostc_swap");
  const tcw::Mesh m = tcw::random_mesh(120, 360, 60, 31u);
  tcw::Result ref, got;
  long calls, compiled;
  run(options(UM_COMPILE_OFF, (t.dir / "names").string()), m, &ref, &calls, &compiled);
  run(options(UM_COMPILE_WAIT, (t.dir / "names").string()), m, &got, &calls, &compiled);
  const std::vector<fs::path> names = modules_in(t.dir / "names");
  ASSERT_FALSE(names.empty());
  const fs::path home = t.dir / "home", planted = t.dir / "planted", marker = t.dir / "ran";
  fs::create_directories(home / "cache");
  fs::create_directories(planted / "cache");
  for (const fs::path &n : names) build_planted(planted / "cache" / n.filename(), marker);
  swapper.home = home;
  swapper.planted = planted;
  swapper.aside = t.dir / "aside";
  for (int pass = 0; pass < 2; pass++) {
    SCOPED_TRACE(pass ? "loaded from the cache" : "freshly compiled");
    swapper.armed = true;
    swapper.swaps = 0;
    swapper.names.clear();
    std::string warnings;
    run(options(UM_COMPILE_WAIT, (home / "cache").string(), &warnings), m, &got, &calls, &compiled);
    swapper.armed = false;
    EXPECT_GE(swapper.swaps, (int)names.size()) << "the folder was not swapped at each load";
    for (const std::string &n : swapper.names) EXPECT_EQ(n.rfind("/proc/self/fd/", 0), 0u) << "loaded by path: " << n;
    EXPECT_FALSE(fs::exists(marker)) << "a planted module ran: the load went by the path, not the checked file";
    fs::remove(marker);
    EXPECT_EQ(compiled, calls);
    tcw::expect_same(got, ref);
    EXPECT_EQ(warnings, "");
    EXPECT_EQ(modules_in(home / "cache").size(), names.size());
  }
}

// Under umask 002 the compiler makes its output group-writable: the module is made the user's alone before it is
// sealed, so the next run loads it (a group-writable module is never loaded: it would be compiled every run).
TEST(HostCompileTrust, AModuleIsTheUsersAloneWhateverTheUmask) {
  TempDir t("hostc_umask");
  const tcw::Mesh m = tcw::random_mesh(100, 300, 50, 32u);
  const std::string cache = (t.dir / "cache").string();
  fs::create_directories(cache);
  tcw::Result a, b;
  long calls, compiled;
  const mode_t old = umask(002);
  run(options(UM_COMPILE_WAIT, cache), m, &a, &calls, &compiled);
  umask(old);
  std::vector<fs::path> mods = modules_in(cache);
  ASSERT_FALSE(mods.empty());
  std::vector<ino_t> inodes;
  for (const fs::path &p : mods) {
    struct stat st;
    ASSERT_EQ(stat(p.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 077, 0u) << p << " has mode " << std::oct << (st.st_mode & 07777);
    inodes.push_back(st.st_ino);
  }
  std::string warnings;
  run(options(UM_COMPILE_WAIT, cache, &warnings), m, &b, &calls, &compiled);
  EXPECT_EQ(warnings, "") << "the second run did not take the first run's modules";
  EXPECT_EQ(compiled, calls);
  for (size_t i = 0; i < mods.size(); i++) {
    struct stat st;
    ASSERT_EQ(stat(mods[i].c_str(), &st), 0);
    EXPECT_EQ(st.st_ino, inodes[i]) << mods[i] << " was compiled again";
  }
}

// A work folder or a lock is judged by its PID only on the host and in the PID namespace that made it (its tag):
// another host's (or container's) work folder with a PID that is not running here stays, and so does its lock; this
// host's of a dead run go; an earlier version's untagged work folder goes once it is a day old.
TEST(HostCompileTrust, WorkFoldersAndLocksOfOtherHostsAreLeftAlone) {
  TempDir t("hostc_hosts");
  const std::string cache = t.dir.string();
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  ASSERT_GT(dead, 0);
  waitpid(dead, nullptr, 0);
  char work[4096], why[512];
  ASSERT_EQ(hcc_work_dir(cache.c_str(), work, sizeof work, why, sizeof why), 0) << why;
  const std::string mine = fs::path(work).filename().string(), me = "work-" + std::to_string(getpid()) + "-";
  ASSERT_EQ(mine.rfind(me, 0), 0u) << mine;
  const std::string tag = mine.substr(me.size(), 16), d = std::to_string(dead);
  ASSERT_EQ(tag.find_first_not_of("0123456789abcdef"), std::string::npos) << mine;
  const std::string other = tag == "0123456789abcdef" ? "fedcba9876543210" : "0123456789abcdef";
  const fs::path ours = t.dir / ("work-" + d + "-" + tag + "-AbC123"), theirs = t.dir / ("work-" + d + "-" + other + "-AbC123");
  const fs::path old_new = t.dir / ("work-" + d + "-XyZ789"), old_old = t.dir / ("work-" + d + "-QqQ456");
  fs::rename(work, ours);
  for (const fs::path &p : {theirs, old_new, old_old}) fs::create_directories(p / "um");
  fs::last_write_time(old_old, fs::file_time_type::clock::now() - std::chrono::hours(48));
  char host[256] = "";
  gethostname(host, sizeof host);
  const fs::path their_lock = t.dir / "host-0000000000000001.so.lock", our_lock = t.dir / "host-0000000000000002.so.lock";
  std::ofstream(their_lock) << dead << " " << host << " " << other << "\n";
  std::ofstream(our_lock) << dead << " " << host << " " << tag << "\n";
  EXPECT_EQ(hcc_lock_held(their_lock.c_str()), 1) << "another namespace's recent lock was judged by a PID of ours";
  EXPECT_EQ(hcc_lock_held(our_lock.c_str()), 0);
  hcc_clean_litter(cache.c_str());
  EXPECT_FALSE(fs::exists(ours)) << "this host's dead run's work folder was left";
  EXPECT_TRUE(fs::exists(theirs)) << "another host's work folder was removed while it may be compiling";
  EXPECT_TRUE(fs::exists(old_new)) << "a recent untagged work folder was removed";
  EXPECT_FALSE(fs::exists(old_old)) << "a day-old untagged work folder was left";
  EXPECT_TRUE(fs::exists(their_lock));
  EXPECT_FALSE(fs::exists(our_lock));
}

// A module is sealed (made loadable) only when it is the user's own file.
TEST(HostCompileTrust, AnotherUsersFileIsNeverSealed) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  TempDir t("hostc_seal");
  const fs::path so = t.dir / "module.so";
  std::ofstream(so) << "not a module of ours";
  ASSERT_EQ(chown(so.c_str(), 65534, 65534), 0);
  const uintmax_t size = fs::file_size(so);
  char why[512] = "";
  EXPECT_EQ(hcc_seal(so.c_str(), 42, why, sizeof why), -1);
  EXPECT_TRUE(has(why, "belongs to another user")) << why;
  EXPECT_EQ(fs::file_size(so), size) << "a seal was appended";
}

}  // namespace
