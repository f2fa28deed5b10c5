// Outputs are written safely (um/safe_file.h): through a unique temporary renamed into place when complete,
// never half written, never left behind by a failed write or a signal; and never replacing what is not
// their own (a symlink's target is written, a device, FIFO or /dev/stdout in place, a folder refused).
// The runner's end-to-end checks of the same: umrun.outputs_not_replaced, umrun.outputs_written_safely.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "um/safe_file.h"
}

#include "test_files.hpp"

namespace fs = std::filesystem;

namespace {

using umtest::has;
using umtest::slurp;
using umtest::TempDir;

int write_through(const std::string &path, const std::string &text, std::string *err) {
  um_safe_file sf;
  char e[2048] = "";
  if (um_safe_open(&sf, path.c_str(), e, sizeof e)) return *err = e, -1;
  fputs(text.c_str(), sf.f);
  int rc = um_safe_commit(&sf, e, sizeof e);
  *err = e;
  return rc;
}

}  // namespace

// ---- unique temporaries, renamed when complete; failures and signals leave nothing behind ----------

TEST(SafeFile, SafeFilesUseUniqueTemporariesAndRenameWhenComplete) {
  TempDir t("safe");
  const std::string out = t / "out.json";
  { std::ofstream(out) << "old"; }
  um_safe_file a, b;
  char err[2048] = "";
  ASSERT_EQ(um_safe_open(&a, out.c_str(), err, sizeof err), 0) << err;
  ASSERT_EQ(um_safe_open(&b, out.c_str(), err, sizeof err), 0) << err;
  EXPECT_STRNE(a.tmp, b.tmp) << "two writers of one file share a temporary";
  EXPECT_EQ(um_safe_live_count(), 2);
  fputs("first", a.f);
  fputs("second", b.f);
  EXPECT_EQ(slurp(out), "old") << "the old file stays until the new one is complete";
  ASSERT_EQ(um_safe_commit(&a, err, sizeof err), 0) << err;
  EXPECT_EQ(slurp(out), "first");
  um_safe_abort(&b);
  EXPECT_EQ(slurp(out), "first");
  EXPECT_EQ(t.count_tmp(), 0);
  EXPECT_EQ(um_safe_live_count(), 0);
  // a folder that does not exist: the reason, not a guess
  EXPECT_NE(um_safe_open(&a, (t / "no/such/dir/x").c_str(), err, sizeof err), 0);
  EXPECT_TRUE(has(err, "does not exist")) << err;
}

// A write that fails (here: the file size limit, as a full disk) leaves the
// old file whole, no temporary behind, and says why; the same for an append,
// and an append that made its file removes it again.
TEST(SafeFile, AFailedWriteOrAppendLeavesTheOldFileAndNoTemporary) {
  TempDir t("full");
  const std::string out = t / "out.json", csv = t / "rows.csv", fresh = t / "new.csv";
  { std::ofstream(out) << "old"; }
  { std::ofstream(csv) << "h\nrow1\n"; }
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &rl);
    char err[2048] = "";
    um_safe_file sf;
    int bad = 0;
    if (um_safe_open(&sf, out.c_str(), err, sizeof err) != 0) _exit(10);
    std::string big(100000, 'x');
    fputs(big.c_str(), sf.f);
    if (um_safe_commit(&sf, err, sizeof err) == 0) bad |= 1;
    if (!has(err, "file size limit")) bad |= 2;
    if (um_safe_append(csv.c_str(), "h\n", big.data(), big.size(), err, sizeof err) == 0) bad |= 4;
    if (!has(err, "left as it was")) bad |= 8;
    if (um_safe_append(fresh.c_str(), "h\n", big.data(), big.size(), err, sizeof err) == 0) bad |= 16;
    if (!has(err, "the new file was removed")) bad |= 32;
    _exit(bad);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << "bits: 1 commit succeeded, 2 no reason, 4 append succeeded, 8 no rollback note, "
                                   "16 a new file's append succeeded, 32 no removal note";
  EXPECT_EQ(slurp(out), "old");
  EXPECT_EQ(slurp(csv), "h\nrow1\n");
  EXPECT_FALSE(std::filesystem::exists(fresh)) << "a file the failed append made is left";
  EXPECT_EQ(t.count_tmp(), 0);
}

// A process killed (SIGTERM, SIGINT) in the middle of a write leaves no
// temporary behind (a killed write left 37-114 MB .tmp files).
TEST(SafeFile, AKilledWriteLeavesNoTemporary) {
  TempDir t("kill");
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string out = t / "fields.h5";
    pid_t pid = fork();
    if (pid == 0) {
      um_safe_cleanup_on_signals();
      char err[2048];
      um_safe_file a, b;
      if (um_safe_open(&a, out.c_str(), err, sizeof err) || um_safe_open_name(&b, (out + ".xmf").c_str(), err, sizeof err))
        _exit(10);
      fputs("half of it", a.f);
      fflush(a.f);
      raise(sig);
      _exit(11);  // not reached
    }
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == sig) << "the process dies of the signal as it would have";
    EXPECT_EQ(t.count_tmp(), 0) << "signal " << sig;
    EXPECT_FALSE(fs::exists(out));
  }
}

// A program's child runs lead process groups of their own, listed with the signal handlers
// (um_safe_group_register): on the signal they get it too, one that ignores it is killed after the grace
// period, and only then are the temporaries removed and the program dies of the signal.
TEST(SafeFile, ASignalStopsTheRegisteredChildGroupsFirst) {
  TempDir t("groups");
  for (int sig : {SIGTERM, SIGINT}) {
    int pfd[2];
    ASSERT_EQ(pipe(pfd), 0);
    const std::string out = t / "results.json";
    pid_t pid = fork();
    if (pid == 0) {
      close(pfd[0]);
      um_safe_cleanup_on_signals();
      sigset_t block, old;
      sigemptyset(&block);
      sigaddset(&block, sig);
      sigprocmask(SIG_BLOCK, &block, &old);
      int kids[2];
      for (int k = 0; k < 2; k++) {
        if ((kids[k] = (int)fork()) == 0) {
          signal(sig, k ? SIG_IGN : SIG_DFL);  // the second ignores it: killed when the grace period is over
          sigprocmask(SIG_SETMASK, &old, nullptr);
          setpgid(0, 0);
          for (;;) pause();
        }
        setpgid(kids[k], kids[k]);
        if (um_safe_group_register(kids[k], 0.5) < 0) _exit(12);
      }
      sigprocmask(SIG_SETMASK, &old, nullptr);
      char err[2048];
      um_safe_file a;
      if (um_safe_open(&a, out.c_str(), err, sizeof err)) _exit(10);
      fputs("half of it", a.f);
      fflush(a.f);
      if (write(pfd[1], kids, sizeof kids) != (ssize_t)sizeof kids) _exit(11);
      for (;;) pause();
    }
    close(pfd[1]);
    int kids[2] = {0, 0};
    const ssize_t got = read(pfd[0], kids, sizeof kids);
    close(pfd[0]);
    ASSERT_EQ(got, (ssize_t)sizeof kids) << "the child could not start its runs";
    kill(pid, sig);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == sig) << "the process dies of the signal as it would have";
    for (int k : kids) {
      errno = 0;
      const int alive = kill(-k, 0) == 0 || errno != ESRCH;
      EXPECT_FALSE(alive) << "signal " << sig << ": the run in process group " << k << " outlived the program";
      if (alive) kill(-k, SIGKILL);
    }
    EXPECT_EQ(t.count_tmp(), 0) << "signal " << sig;
  }
}

// um_safe_group_stop (the host compiler's stop): it returns only once no process of the group is left, not
// merely its leader (a compiler driver's cc1 went on writing into a folder being removed), and a member
// that ignores SIGTERM is killed when the grace period is over.
TEST(SafeFile, StoppingAGroupWaitsForEveryProcessInIt) {
  for (int ignore : {0, 1}) {
    int pfd[2];
    ASSERT_EQ(pipe(pfd), 0);
    pid_t leader = fork();
    if (leader == 0) {
      setpgid(0, 0);
      close(pfd[0]);
      pid_t member = fork();  // stays in the leader's group: the grandchild
      if (member == 0) {
        if (ignore) signal(SIGTERM, SIG_IGN);
        if (write(pfd[1], "x", 1) != 1) _exit(11);
        for (;;) pause();
      }
      for (;;) pause();
    }
    setpgid(leader, leader);
    close(pfd[1]);
    char c;
    ASSERT_EQ(read(pfd[0], &c, 1), 1) << "the group's member did not start";
    close(pfd[0]);
    const auto t0 = std::chrono::steady_clock::now();
    um_safe_group_stop((int)leader, 0.3);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    errno = 0;
    const int alive = kill(-leader, 0) == 0 || errno != ESRCH;
    EXPECT_FALSE(alive) << "a process of the group outlived um_safe_group_stop (ignoring SIGTERM: " << ignore << ")";
    if (alive) kill(-leader, SIGKILL);
    EXPECT_EQ(waitpid(leader, nullptr, WNOHANG), -1) << "the leader was reaped";
    if (ignore) EXPECT_GE(s, 0.3) << "SIGKILL only once the grace period is over";
  }
}

// A new output is made as open(2) would make it: 0666 less the umask (it was 0644 whatever the umask: a private
// umask 077 still gave files others could read).
TEST(SafeFile, ANewOutputFollowsTheUmask) {
  TempDir t("umask");
  const mode_t old = umask(077);
  std::string err;
  const int rc = write_through(t / "private.json", "x", &err);
  umask(022);
  const int rc2 = write_through(t / "usual.json", "x", &err);
  umask(old);
  ASSERT_EQ(rc, 0) << err;
  ASSERT_EQ(rc2, 0) << err;
  EXPECT_EQ(fs::status(t / "private.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(fs::status(t / "usual.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
}

// ---- an output never replaces what is not its own ------------------------------------------------

// A symlinked output: the link's target gets the new content, the link stays a
// link (before: the link was replaced by a file, its target kept the old text).
TEST(SafeFile, AnOutputThroughASymlinkReplacesItsTargetNotTheLink) {
  TempDir t("symlink");
  const std::string target = t / "real.json", link = t / "link.json";
  { std::ofstream(target) << "old"; }
  chmod(target.c_str(), 0640);
  fs::create_symlink("real.json", link);  // relative, as ln -s makes them
  std::string err;
  ASSERT_EQ(write_through(link, "new", &err), 0) << err;
  EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced by a file";
  EXPECT_EQ(slurp(target), "new");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read)
      << "a replaced file keeps its permissions";
  // the same for a writer that opens the temporary itself (HDF5)
  um_safe_file sf;
  char e[2048] = "";
  ASSERT_EQ(um_safe_open_name(&sf, link.c_str(), e, sizeof e), 0) << e;
  { std::ofstream(sf.tmp) << "h5"; }
  ASSERT_EQ(um_safe_commit(&sf, e, sizeof e), 0) << e;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(target), "h5");
  // a dangling link: its target is created, the link stays
  const std::string dangling = t / "dangling.json";
  fs::create_symlink(t / "made.json", dangling);
  ASSERT_EQ(write_through(dangling, "made", &err), 0) << err;
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_EQ(slurp(t / "made.json"), "made");
  // a loop of links is said, not followed forever
  fs::create_symlink("loop_b", t / "loop_a");
  fs::create_symlink("loop_a", t / "loop_b");
  EXPECT_NE(write_through(t / "loop_a", "x", &err), 0);
  EXPECT_TRUE(has(err, "symbolic link")) << err;
  EXPECT_EQ(t.count_tmp(), 0);
}

// A character device at the path is written in place and stays a device
// (before: `--json` onto a node made by mknod c 1 3 left a regular file there).
TEST(SafeFile, ACharacterDeviceIsWrittenInPlaceNeverReplaced) {
  TempDir t("chardev");
  std::vector<std::string> devs = {t / "null_link"};
  fs::create_symlink("/dev/null", devs[0]);
  if (mknod((t / "null_node").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) devs.push_back(t / "null_node");  // root
  for (const auto &d : devs) {
    std::string err;
    ASSERT_EQ(write_through(d, "{\"x\": 1}\n", &err), 0) << d << ": " << err;
    struct stat st;
    ASSERT_EQ(stat(d.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << d << " is no longer a character device";
    // an HDF5 writer needs a file of its own: refused, with the reason
    um_safe_file sf;
    char e[2048] = "";
    EXPECT_NE(um_safe_open_name(&sf, d.c_str(), e, sizeof e), 0) << d;
    EXPECT_TRUE(has(e, "character device") && has(e, "not a regular file")) << e;
    EXPECT_NE(um_safe_check(d.c_str(), 0, e, sizeof e), 0);
    EXPECT_EQ(um_safe_check(d.c_str(), 1, e, sizeof e), 0) << e;
    // CSV rows are appended in place too
    EXPECT_EQ(um_safe_append(d.c_str(), "h\n", "r\n", 2, e, sizeof e), 0) << e;
  }
  EXPECT_TRUE(fs::is_symlink(devs[0]));
  EXPECT_EQ(t.count_tmp(), 0);
}

// A FIFO: written in place when a process reads it; without a reader the
// write is refused at once (no hang), and the FIFO stays a FIFO.
TEST(SafeFile, AFifoIsWrittenInPlaceOrRefusedWithoutHanging) {
  TempDir t("fifo");
  const std::string fifo = t / "pipe.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  std::string got;
  std::thread reader([&] {
    int fd = open(fifo.c_str(), O_RDONLY);
    char buf[256];
    ssize_t n;
    while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0) got.append(buf, (size_t)n);
    if (fd >= 0) close(fd);
  });
  std::string err;
  int rc = -1;
  for (int i = 0; i < 3000 && rc != 0; i++) {  // until the reader has opened its end (30 s on a loaded machine)
    rc = write_through(fifo, "through the pipe", &err);
    if (rc) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  reader.join();
  EXPECT_EQ(rc, 0) << err;
  EXPECT_EQ(got, "through the pipe");
  // no reader: refused with the reason, quickly
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_NE(write_through(fifo, "x", &err), 0);
  EXPECT_TRUE(has(err, "no process reads")) << err;
  char e[2048] = "";
  EXPECT_NE(um_safe_append(fifo.c_str(), "h\n", "r\n", 2, e, sizeof e), 0);
  EXPECT_TRUE(has(e, "no process reads")) << e;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  struct stat st;
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(t.count_tmp(), 0);
}

// A folder is never replaced, also one that appears while the file is written.
TEST(SafeFile, AFolderAtTheOutputPathIsRefusedEvenWhenItAppearsLate) {
  TempDir t("dir");
  const std::string out = t / "out.json";
  std::string err;
  fs::create_directory(out);
  EXPECT_NE(write_through(out, "x", &err), 0);
  EXPECT_TRUE(has(err, "folder")) << err;
  fs::remove(out);
  um_safe_file sf;
  char e[2048] = "";
  ASSERT_EQ(um_safe_open(&sf, out.c_str(), e, sizeof e), 0) << e;
  fputs("late", sf.f);
  fs::create_directory(out);
  fs::create_directory(out + "/keep");
  EXPECT_NE(um_safe_commit(&sf, e, sizeof e), 0);
  EXPECT_TRUE(has(e, "folder appeared")) << e;
  EXPECT_TRUE(fs::is_directory(out + "/keep"));
  EXPECT_EQ(t.count_tmp(), 0);
}

// /dev/stdout redirected to a log: the output is appended to the log where the
// process writes, the log is not replaced by a file holding only the output.
TEST(SafeFile, DevStdoutIsWrittenWhereItStands) {
  TempDir t("stdout");
  const std::string log = t / "run.log";
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 1) < 0) _exit(10);
    printf("log line\n");
    std::string err;
    if (write_through("/dev/stdout", "{json}\n", &err)) _exit(11);
    printf("after\n");
    fflush(stdout);
    _exit(0);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0);
  EXPECT_EQ(slurp(log), "log line\n{json}\nafter\n");
  EXPECT_EQ(t.count_tmp(), 0);
}

// ---- the folder for temporary files: one policy for every user of $TMPDIR --------------------------

// $TMPDIR that cannot serve (missing, relative, a file) gives /tmp and the reason; a usable one is kept as it is.
TEST(TempFolder, AStaleTmpdirGivesTmpWithTheReason) {
  TempDir t("tmpdir");
  const char *had = getenv("TMPDIR");
  const std::string keep = had ? had : "";
  std::ofstream(t / "file") << "x";
  struct Case {
    std::string value, dir, why;
  } cases[] = {{"", "/tmp", ""},
               {t / "gone", "/tmp", "$TMPDIR ('" + (t / "gone") + "') does not exist (No such file or directory)"},
               {"relative/tmp", "/tmp", "$TMPDIR ('relative/tmp') is not an absolute path"},
               {t / "file", "/tmp", "$TMPDIR ('" + (t / "file") + "') is not a folder"},
               {t.dir.string(), t.dir.string(), ""}};
  for (const Case &c : cases) {
    setenv("TMPDIR", c.value.c_str(), 1);
    char why[2048] = "junk";
    EXPECT_EQ(std::string(um_temp_dir(why, sizeof why)), c.dir) << c.value;
    EXPECT_EQ(std::string(why), c.why) << c.value;
  }
  unsetenv("TMPDIR");
  EXPECT_STREQ(um_temp_dir(nullptr, 0), "/tmp");
  if (had) setenv("TMPDIR", keep.c_str(), 1);
}
