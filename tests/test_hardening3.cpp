// Issue 25 (hardening 3): each test here failed before its fix. Outputs never
// replace what is not theirs; every file um reads is a regular file of bounded
// size, checked before the run; runs that cannot advance stop. The runner-level
// tests are in CMakeLists.txt (umrun.*, check_hardening3.cmake).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <set>
#include <thread>
#include <vector>

extern "C" {
#include "airfoil/naca0012.h"
#include "bookleaf/bookleaf.h"
#include "miniaero/miniaero.h"
#include "um/safe_file.h"
#include "um/config.h"
#include "um/hdf5io.h"
#include "um/reorder.h"
#include "um/um.h"
#include "um/validate.h"
#include "volna/volna.h"
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

// ---- fault 1: an output never replaces what is not its own ------------------------------------

// A symlinked output: the link's target gets the new content, the link stays a
// link (before: the link was replaced by a file, its target kept the old text).
TEST(Hardening3, AnOutputThroughASymlinkReplacesItsTargetNotTheLink) {
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
TEST(Hardening3, ACharacterDeviceIsWrittenInPlaceNeverReplaced) {
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
TEST(Hardening3, AFifoIsWrittenInPlaceOrRefusedWithoutHanging) {
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
  for (int i = 0; i < 200 && rc != 0; i++) {  // until the reader has opened its end
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
TEST(Hardening3, AFolderAtTheOutputPathIsRefusedEvenWhenItAppearsLate) {
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
TEST(Hardening3, DevStdoutIsWrittenWhereItStands) {
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

// ---- fault 2: no string from a results file, config or deck becomes markup -------------------

extern "C" {
#include "json.h"
#include "tools.h"
}

namespace {
// every string field of a results file holds this: an element, an event handler
// and quotes that would close an attribute
const std::string kMarkup = R"(<script>alert(1)</script><img src=x onerror=alert(2)>\"' onmouseover=alert(3) x=\"&amp;)";

std::string results_with_markup() {
  const std::string P = "\"" + kMarkup + "\"";
  std::string loop = R"({"name": )" + P + R"(, "iteration_set": )" + P +
                     R"(, "args": [{"pattern": )" + P + R"(, "map": )" + P +
                     R"(}], "set_size": 100, "bytes_per_call": 8000, "calls": 10, "seconds": 0.001, "ops_estimate": 20,
       "plan": {"block_size": 256, "blocks": 1, "block_colours": 1, "thread_colours_mean": 1, "thread_colours_max": 1,
                "reuse_factor": 1, "shared_bytes_mean": 0}})";
  std::string run = R"({"app": )" + P + R"(, "backend": )" + P + R"(, "strategy": )" + P + R"(, "layout": )" + P +
                    R"(, "reorder": )" + P + R"(, "status": "ok", "loops": [)" + loop + R"(],
       "mesh": {"sets": [{"name": )" + P + R"(, "size": 100}], "maps": [{"name": )" + P + R"(, "from": )" + P +
                    R"(, "to": )" + P + R"(, "arity": 2}]},
       "device": {"name": )" + P + R"(, "copy_gb_per_s": 100}})";
  std::string c = R"({"id": )" + P + R"(, "case": )" + P + R"(, "app": )" + P + R"(, "config": )" + P +
                  R"(, "backend": )" + P + R"(, "strategy": )" + P + R"(, "layout": )" + P + R"(, "reorder": )" + P +
                  R"(, "block_size_axis": 64, "status": "pass", "message": )" + P + R"(, "run": )" + run + "}";
  return R"({"format": "um-suite-results-1", "suite": )" + P + R"(, "started": )" + P +
         R"(, "um": {"commit": )" + P + R"(, "version": )" + P + R"(},
     "machine": {"host": )" + P + R"(, "cpu": )" + P + R"(, "host_copy_gb_per_s": 50,
                 "gpu": {"name": )" + P + R"(, "compute_capability": )" + P + R"(, "driver": )" + P +
         R"(, "cuda_runtime": )" + P + R"(, "copy_gb_per_s": 100}},
     "summary": {"runs": 2, "pass": 2}, "cases": [)" + c + ", " + c + "]}";
}

// The tags of a page, and the attributes each carries: a minimal HTML tokenizer
// (comments and the style element's text skipped), enough to see every element
// and attribute the page creates.
struct Tag {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;
};
std::vector<Tag> parse_tags(const std::string &h) {
  std::vector<Tag> tags;
  size_t i = 0;
  while ((i = h.find('<', i)) != std::string::npos) {
    if (!h.compare(i, 4, "<!--")) {
      i = h.find("-->", i);
      continue;
    }
    size_t j = i + 1;
    const bool closing = j < h.size() && h[j] == '/';
    if (closing) j++;
    size_t k = j;
    while (k < h.size() && (isalnum((unsigned char)h[k]) || h[k] == '!')) k++;
    Tag t;
    t.name = h.substr(j, k - j);
    for (auto &ch : t.name) ch = (char)tolower((unsigned char)ch);
    // attributes: name[=value] with quoted or bare values, up to '>'
    while (k < h.size() && h[k] != '>') {
      while (k < h.size() && (isspace((unsigned char)h[k]) || h[k] == '/')) k++;
      size_t a = k;
      while (k < h.size() && !isspace((unsigned char)h[k]) && h[k] != '=' && h[k] != '>') k++;
      std::string an = h.substr(a, k - a), av;
      if (k < h.size() && h[k] == '=') {
        k++;
        if (h[k] == '"' || h[k] == '\'') {
          char q = h[k++];
          size_t e = h.find(q, k);
          av = h.substr(k, e - k);
          k = e + 1;
        } else {
          size_t e = k;
          while (e < h.size() && !isspace((unsigned char)h[e]) && h[e] != '>') e++;
          av = h.substr(k, e - k);
          k = e;
        }
      }
      if (!an.empty()) t.attrs.push_back({an, av});
    }
    tags.push_back(t);
    if (t.name == "style" && !closing) k = h.find("</style>", k);
    i = k;
  }
  return tags;
}
}  // namespace

// Before: the app name went raw into text and into id/href attributes, so a
// results file received from another machine put a <script> element in the page.
TEST(Hardening3, AReportOfAResultsFileFullOfMarkupRendersItAsText) {
  TempDir t("report");
  const std::string res = t / "results.json", page = t / "report.html";
  { std::ofstream(res) << results_with_markup(); }
  std::vector<std::string> args = {"--report", page, res};
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  ASSERT_EQ(umrun_report_main((int)argv.size(), argv.data()), 0);
  const std::string h = slurp(page), md = slurp(t / "report.md");
  ASSERT_TRUE(has(h, "</html>"));
  const std::set<std::string> allowed = {"!doctype", "html", "head", "meta", "title", "style", "body", "h1", "h2",
                                         "h3",       "p",    "code", "em",   "table", "tr",    "th",   "td", "a",
                                         "svg",      "text", "line", "rect", "circle",
                                         // the page's own: scrolling boxes, <details> rows, the glossary
                                         "div", "details", "summary", "dl", "dt", "dd"};
  int nanchors = 0;
  for (const Tag &tag : parse_tags(h)) {
    EXPECT_TRUE(allowed.count(tag.name)) << "an element from the input: <" << tag.name << ">";
    for (auto &[an, av] : tag.attrs) {
      std::string low = an;
      for (auto &ch : low) ch = (char)tolower((unsigned char)ch);
      EXPECT_FALSE(low.rfind("on", 0) == 0) << "an event handler attribute: " << an << "=" << av;
      EXPECT_FALSE(has(low, "src")) << an;
      if (low == "href") {
        nanchors++;
        EXPECT_TRUE(av.size() > 1 && av[0] == '#' && av.find_first_not_of(
            "#abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos)
            << "href=" << av;
      }
      if (low == "id") EXPECT_EQ(av.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"),
                                 std::string::npos) << "id=" << av;
    }
  }
  EXPECT_GT(nanchors, 0);
  EXPECT_TRUE(has(h, "&lt;script&gt;alert(1)&lt;/script&gt;")) << "the markup is shown as text";
  // the markdown beside it: markdown passes HTML through, so no tag survives there either
  ASSERT_FALSE(md.empty());
  for (size_t i = md.find('<'); i != std::string::npos; i = md.find('<', i + 1))
    ADD_FAILURE() << "raw '<' in the markdown: " << md.substr(i, 40);
  EXPECT_TRUE(has(md, "&lt;script&gt;"));
}

// ---- fault 4: every file um reads is a regular file, checked before it is read -----------------

// A FIFO (no writer: opening it for reading would wait for ever) and /dev/zero
// (reading it never ends) given to every reader of the tree: each refuses at
// once, saying it is not a regular file. Before: the reference's field file
// /dev/zero grew memory to 6.5 GB, a FIFO hung the config, suite, --validate
// and mesh readers. The readers run in a child with an alarm: a hang fails.
TEST(Hardening3, EveryReaderRefusesAFifoOrADeviceAtOnce) {
  TempDir t("readers");
  const std::string fifo = t / "in.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  { std::ofstream(t / "ref_fifo.ref.yaml") << "app: jacobi\ncase: x\nprovenance: {code: c, command: c}\n"
                                              "fields:\n  - {name: u, file: in.fifo, rel_tol: 1.0e-6}\n"; }
  { std::ofstream(t / "ref_zero.ref.yaml") << "app: jacobi\ncase: x\nprovenance: {code: c, command: c}\n"
                                              "fields:\n  - {name: u, file: /dev/zero, rel_tol: 1.0e-6}\n"; }
  { std::ofstream(t / "u.txt") << "1 2 3\n"; }
  pid_t pid = fork();
  if (pid == 0) {
    alarm(20);
    int bad = 0;
    char err[2048];
    auto refused = [&](int failed, int bit) {
      if (!failed || !has(err, "not a regular file")) {
        fprintf(stderr, "reader %d: %s\n", bit, failed ? err : "accepted the input");
        bad |= 1 << bit;
      }
    };
    for (const std::string &in : {fifo, std::string("/dev/zero")}) {
      um_config *cfg = nullptr;
      err[0] = 0;
      refused(um_config_load_file(in.c_str(), &cfg, err, sizeof err) != 0, 0);
      um_ref *ref = nullptr;
      err[0] = 0;
      refused(um_ref_load(in.c_str(), &ref, err, sizeof err) != 0, 1);
      size_t len;
      err[0] = 0;
      refused(uj_read_file(in.c_str(), 1 << 20, &len, err, sizeof err) == nullptr, 2);
      um_field_result fr;
      err[0] = 0;
      refused(um_field_compare_files((t / "u.txt").c_str(), in.c_str(), 1e-6, 0, 4, &fr, err, sizeof err) != 0, 3);
      airfoil_mesh am;
      err[0] = 0;
      refused(airfoil_mesh_read_text(in.c_str(), &am, err, sizeof err) != 0, 4);
      vl_mesh vm;
      err[0] = 0;
      refused(vl_mesh_gmsh(in.c_str(), &vm, err, sizeof err) != 0, 5);
      vl_deck vd;
      err[0] = 0;
      refused(vl_deck_read(in.c_str(), &vd, err, sizeof err) != 0, 6);
      bl_deck bd;
      err[0] = 0;
      refused(bl_deck_read(&bd, in.c_str(), err, sizeof err) != 0, 7);
      ma_inputs mi;
      err[0] = 0;
      refused(ma_inputs_read(in.c_str(), &mi, err, sizeof err) != 0, 8);
      um_options o;
      um_options_default(&o);
      o.backend = "seq";
      um_context *ctx = nullptr;
      if (um_init(&ctx, &o) == UM_SUCCESS) {
        um_set *s = nullptr;
        snprintf(err, sizeof err, "%s", um_hdf5_read_set(ctx, in.c_str(), "cells", &s) ? um_error_message(ctx) : "");
        refused(s == nullptr && err[0], 9);
        um_reordering *r = nullptr;
        snprintf(err, sizeof err, "%s", um_reordering_load(ctx, in.c_str(), &r, nullptr) ? um_error_message(ctx) : "");
        refused(r == nullptr && err[0], 10);
        um_finalize(&ctx);
      }
    }
    // a reference whose field file is a FIFO or a device is refused when it is loaded, before any run
    for (const char *r : {"ref_fifo.ref.yaml", "ref_zero.ref.yaml"}) {
      um_ref *ref = nullptr;
      err[0] = 0;
      refused(um_ref_load((t / r).c_str(), &ref, err, sizeof err) != 0, 11);
      um_ref_free(ref);
    }
    _exit(bad);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st)) << "a reader hung (killed by signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(st), 0) << "bit k: reader k accepted a FIFO or /dev/zero or said something else (stderr)";
}

// ---- fault 5: the thread count is bounded ------------------------------------------------------

// Before: nthreads 100000 died with SIGSEGV inside libgomp, 30,000 took 18 s and 1.6 GB.
TEST(Hardening3, ThreadCountsAreBoundedWithTheLimitNamed) {
  const int max = um_threads_max();
  EXPECT_GE(max, UM_THREADS_PER_CORE);
  for (int n : {max + 1, 100000, INT_MAX}) {
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    o.nthreads = n;
    um_context *ctx = nullptr;
    EXPECT_EQ(um_init(&ctx, &o), UM_ERR_ARG) << n;
    EXPECT_TRUE(has(um_error_message(ctx), "at most " + std::to_string(max))) << um_error_message(ctx);
    um_finalize(&ctx);
  }
  um_options o;
  um_options_default(&o);
  o.nthreads = max;
  o.backend = "seq";
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  um_finalize(&ctx);
}

// ---- fault 6: a run that cannot reach its end time stops ----------------------------------------

extern "C" {
#include "um/app.h"
}

// The stall rule every time-stepping app calls (volna, bookleaf, lulesh). Before:
// Volna with cfl = 1e-30 and BookLeaf with dt = 1e-300 looped for ever.
TEST(Hardening3, TheStallRuleStopsStepsThatCannotReachTheEndTime) {
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

// ---- fault 8: invalid meshes and decks are refused ----------------------------------------------

namespace {
std::string gmsh(const std::string &elements, int n) {
  return "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n" +
         std::to_string(n) + "\n" + elements + "$EndElements\n";
}
}  // namespace

// Before: a duplicated boundary triangle ran to exit 0 (each of its edges had two
// cells, so the edge check passed); a huge $Elements count said "the number of
// elements expected".
TEST(Hardening3, AGmshMeshWithARepeatedTriangleOrAnImpossibleCountIsRefused) {
  char err[1024] = "";
  vl_mesh m;
  const std::string ok = gmsh("1 2 2 0 1 1 2 3\n2 2 2 0 1 1 3 4\n", 2);
  ASSERT_EQ(vl_mesh_gmsh_parse(ok.c_str(), ok.size(), "ok.msh", &m, err, sizeof err), 0) << err;
  vl_mesh_free(&m);
  // the repeated triangle's edges each have two cells (itself and its copy): no edge check can see it
  const std::string dup = gmsh("1 2 2 0 1 1 2 3\n2 2 2 0 1 2 3 1\n", 2);
  EXPECT_NE(vl_mesh_gmsh_parse(dup.c_str(), dup.size(), "dup.msh", &m, err, sizeof err), 0);
  EXPECT_TRUE(has(err, "dup.msh:14: this triangle (nodes 1 2 3) repeats the one at line 13")) << err;
  const std::string huge = gmsh("1 2 2 0 1 1 2 3\n", 0).replace(gmsh("", 0).find("$Elements\n0") + 10, 1, "99999999999");
  EXPECT_NE(vl_mesh_gmsh_parse(huge.c_str(), huge.size(), "huge.msh", &m, err, sizeof err), 0);
  EXPECT_TRUE(has(err, "$Elements claims 99999999999 elements, more than the file can hold")) << err;
}

// Before: the last of two settings won silently (the YAML configs refuse duplicates).
TEST(Hardening3, ABookLeafDeckThatSetsAGroupOrAnEntryTwiceIsRefused) {
  char err[1024] = "";
  bl_deck d;
  bl_deck_default(&d);
  const std::string ok = "&CONTROL\n time_end=1.0\n/\n";
  ASSERT_EQ(bl_deck_parse(&d, ok.c_str(), ok.size(), "ok", err, sizeof err), UM_SUCCESS) << err;
  const std::string key = "&CONTROL\n time_end=1.0\n dt_max=0.1\n time_end=2.0\n/\n";
  bl_deck_default(&d);
  EXPECT_EQ(bl_deck_parse(&d, key.c_str(), key.size(), "key", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "key:4") && has(err, "time_end") && has(err, "set twice in the deck (also at line 2)")) << err;
  const std::string group = "&CONTROL\n time_end=1.0\n/\n&MESH\n/\n&CONTROL\n dt_max=0.1\n/\n";
  bl_deck_default(&d);
  EXPECT_EQ(bl_deck_parse(&d, group.c_str(), group.size(), "group", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "group:6") && has(err, "namelist &CONTROL appears twice (first at line 1)")) << err;
}
