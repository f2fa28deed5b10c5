// Per-loop auto-tuning (engine/src/tune/tune.c; um/um.h: um_context_set_tune,
// um_loop_tune_info). A tuned loop tries its settings at its first call on
// copies of its outputs, so (1) the trials change no result: the tuned run
// equals, bit for bit, an untuned run given the chosen settings per loop
// (every access mode: direct WRITE/RW/INC, INC and RW and WRITE through maps,
// global INC/MIN/MAX); (2) run.tune once stores the choice and a later run on
// the same mesh reads it (another mesh does not); (3) a setting that fails is
// skipped and says why; (4) a loop too slow for the trials' budget tries fewer
// settings. The trials are not counted as calls. (5) The cache file is found, not named: a FIFO, a link, another
// user's file or a bad line never hangs or fails a run, and a bad line is noted once with the file and line.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_cuda_workload.hpp"

extern "C" {
#include "um/backend.h"
extern const um_backend_def um_backend_seq;
}

namespace {

using Infos = std::map<std::string, um_tune_info>;

// The tune records of every loop of ctx that run.tune looked at.
Infos infos_of(const um_context *ctx) {
  Infos out;
  um_loop_stats s;
  um_tune_info t;
  for (int i = 0; i < um_loop_stats_count(ctx); i++)
    if (um_loop_stats_get(ctx, i, &s) == UM_SUCCESS && um_loop_tune_info(ctx, i, &t)) out[s.name] = t;
  return out;
}

// The chosen settings of a tuned run as per-loop settings of ctx (an untuned run that replays them).
void apply_choices(um_context *ctx, const Infos &in) {
  for (const auto &kv : in) {
    const um_tune_info &t = kv.second;
    if (t.chosen < 0) continue;
    const um_tune_trial &c = t.trial[t.chosen];
    ASSERT_EQ(um_loop_set_strategy(ctx, kv.first.c_str(), c.strategy), UM_SUCCESS) << um_error_message(ctx);
    ASSERT_EQ(um_loop_set_block_size(ctx, kv.first.c_str(), c.block_size), UM_SUCCESS);
    ASSERT_EQ(um_loop_set_split(ctx, kv.first.c_str(), c.split), UM_SUCCESS);
    ASSERT_EQ(um_loop_set_variant(ctx, kv.first.c_str(), c.variant), UM_SUCCESS) << um_error_message(ctx);
  }
}

// A test backend on top of seq (its block size changes how it runs every loop, as a GPU's does): a run with
// block size 512 fails; a run of "tk_direct" sleeps `sleep_s`.
double sleep_s = 0;
int flaky_run(um_context *ctx, void *state, um_loop *loop) {
  if (loop->block_size == 512) return um_error_set(ctx, UM_ERR_BACKEND, "flaky: block size 512 refused\n  [detail]");
  if (sleep_s > 0 && !strcmp(loop->name, "tk_direct"))
    std::this_thread::sleep_for(std::chrono::duration<double>(sleep_s));
  return um_backend_seq.exec.run(ctx, state, loop);
}
const char *const flaky_variants[] = {"plain", "the other one", nullptr};  // kernel variants it ignores
um_backend_def make_flaky() {
  um_backend_def b = um_backend_seq;
  b.name = "flaky";
  b.priority = -100;
  b.description = "seq, refusing block size 512 (tests)";
  b.caps.block_sized = 2;
  b.exec.run = flaky_run;
  b.variants = flaky_variants;
  return b;
}
const um_backend_def flaky_backend = make_flaky();
const um_backend_def *const flaky_list[1] = {&flaky_backend};

struct Outcome {
  tcw::Result res;
  Infos infos;
  std::map<std::string, long> calls;
  std::vector<std::string> log;  // the run's warnings
};

void collect_log(void *user, um_log_level, const char *msg) {
  static_cast<std::vector<std::string> *>(user)->push_back(msg);
}

// The workload (tcw::run_all, 3 edge loops) on `backend` with tune mode t (cache: run.cache), replaying
// `replay`'s choices as per-loop settings when given.
void run(const char *backend, um_tune t, const std::string &cache, const tcw::Mesh &m, Outcome *out,
         const Infos *replay = nullptr, int reproducible = 0) {
  um_options o;
  um_options_default(&o);
  o.backend = backend;
  o.extra_backends = flaky_list;
  o.nextra_backends = 1;
  o.nthreads = 2;
  o.block_size = 64;
  um_options_set(&o, "openmp.parallel_threshold", "0");
  o.log = collect_log;
  o.log_user = &out->log;
  um_options_set(&o, "run.cache", cache.c_str());
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(um_context_set_tune(ctx, t), UM_SUCCESS);
  EXPECT_EQ(um_context_set_reproducible(ctx, reproducible), UM_SUCCESS);
  if (replay) apply_choices(ctx, *replay);
  tcw::run_all(ctx, m, &out->res, 3);
  out->infos = infos_of(ctx);
  um_loop_stats s;
  for (int i = 0; i < um_loop_stats_count(ctx); i++)
    if (um_loop_stats_get(ctx, i, &s) == UM_SUCCESS) out->calls[s.name] = s.calls;
  um_finalize(&ctx);
}

std::string temp_dir() {
  char d[] = "/tmp/um-tune-XXXXXX";
  return mkdtemp(d) ? d : "";
}
void remove_dir(const std::string &d) {
  std::remove((d + "/tune.txt").c_str());
  rmdir(d.c_str());
}

class Tune : public ::testing::TestWithParam<const char *> {
 protected:
  void SetUp() override {
    if (um_backend_available(GetParam()) != 1) GTEST_SKIP() << GetParam() << " not built";
  }
};

// The trials change no result, the chosen settings replayed untuned give the same bits, and trials are no calls.
TEST_P(Tune, TrialsChangeNoResultAndTheChoiceReplays) {
  const tcw::Mesh m = tcw::random_mesh(400, 1200, 300, 3u);
  Outcome tuned, replay, plain;
  run(GetParam(), UM_TUNE_ALWAYS, "off", m, &tuned);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(tuned.infos.count("tk_edge")) << "run.tune looked at every loop";
  EXPECT_EQ(tuned.infos.size(), tcw::loop_names().size());
  const um_tune_info &e = tuned.infos["tk_edge"];
  EXPECT_EQ(e.state, 1) << e.note;  // whole against split at least
  ASSERT_GE(e.ntrials, 2);
  ASSERT_GE(e.chosen, 0);
  // every setting timed, but those a loaded machine's slow trials left over the budget (UM_TUNE_BUDGET_SECONDS)
  const auto over_budget = [&e](int k) { return !strcmp(e.trial[k].note, "not tried: over the budget"); };
  for (int k = 0; k < e.ntrials; k++)
    if (!over_budget(k)) EXPECT_GE(e.trial[k].seconds, 0) << k << ": " << e.trial[k].note;
  EXPECT_EQ(e.trial[0].split, UM_SPLIT_OFF) << "the configured setting (whole) comes first";
  bool split_tried = false;
  for (int k = 0; k < e.ntrials; k++) split_tried |= e.trial[k].split == UM_SPLIT_GATHER;
  EXPECT_TRUE(split_tried) << "tk_edge increments through a map: its gather was tried";
  for (int k = 1; k < e.ntrials; k++)
    if (!over_budget(k)) EXPECT_GE(e.trial[k].seconds, e.trial[e.chosen].seconds) << "the fastest kept";
  const um_tune_info &d = tuned.infos["tk_direct"];  // direct: no strategy; a CPU's block size shapes only plans
  EXPECT_EQ(d.state, 0);
  EXPECT_EQ(std::string(d.note).rfind("nothing to tune", 0), 0u) << d.note;
  EXPECT_EQ(tuned.calls["tk_edge"], 3) << "trials are not calls";
  EXPECT_EQ(tuned.calls["tk_direct"], 1);
  run(GetParam(), UM_TUNE_OFF, "off", m, &replay, &tuned.infos);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(replay.infos.empty()) << "run.tune off looks at no loop";
  tcw::expect_same(tuned.res, replay.res);
  // and the results are the workload's: the default run agrees to round-off (another order of sums)
  run(GetParam(), UM_TUNE_OFF, "off", m, &plain);
  ASSERT_EQ(plain.res.r.size(), tuned.res.r.size());
  for (size_t i = 0; i < plain.res.r.size(); i++) EXPECT_NEAR(tuned.res.r[i], plain.res.r[i], 1e-12 * (1 + std::fabs(plain.res.r[i])));
  EXPECT_EQ(tuned.res.cnt, plain.res.cnt) << "every edge counted once per call, trials not";
}

// Reproducible mode fixes the increments' order, so whatever tuning keeps (block sizes, strategies; the split
// stays the gather), a tuned run gives the bits of an untuned one, and of seq's.
TEST_P(Tune, ReproducibleRunsKeepTheirBits) {
  const tcw::Mesh m = tcw::random_mesh(500, 1500, 300, 8u);
  Outcome tuned, plain, ref;
  run(GetParam(), UM_TUNE_ALWAYS, "off", m, &tuned, nullptr, 1);
  run(GetParam(), UM_TUNE_OFF, "off", m, &plain, nullptr, 1);
  run("seq", UM_TUNE_OFF, "off", m, &ref, nullptr, 1);
  if (HasFatalFailure()) return;
  const um_tune_info &e = tuned.infos["tk_edge"];
  for (int k = 0; k < e.ntrials; k++) EXPECT_NE(e.trial[k].split, UM_SPLIT_OFF) << "reproducible: never whole";
  tcw::expect_same(tuned.res, plain.res);
  tcw::expect_same(tuned.res, ref.res);
}

INSTANTIATE_TEST_SUITE_P(Backends, Tune, ::testing::Values("seq", "openmp"));

// run.tune once: the choice is stored and read back by the next run on the same mesh (no trials), not by a run
// on another mesh; always measures again.
TEST(TuneCache, OnceStoresTheChoiceForThisMesh) {
  const std::string dir = temp_dir();
  ASSERT_FALSE(dir.empty());
  const tcw::Mesh m = tcw::random_mesh(300, 900, 200, 5u), other = tcw::random_mesh(300, 900, 200, 6u);
  Outcome first, second, moved, again;
  run("seq", UM_TUNE_ONCE, dir, m, &first);
  run("seq", UM_TUNE_ONCE, dir, m, &second);
  run("seq", UM_TUNE_ONCE, dir, other, &moved);
  run("seq", UM_TUNE_ALWAYS, dir, m, &again);
  std::ifstream f(dir + "/tune.txt");
  std::stringstream text;
  text << f.rdbuf();
  remove_dir(dir);
  if (HasFatalFailure()) return;
  const um_tune_info &a = first.infos["tk_edge"], &b = second.infos["tk_edge"];
  EXPECT_EQ(a.state, 1) << a.note;
  EXPECT_EQ(b.state, 2) << b.note;
  EXPECT_NE(std::string(b.note).find("from the cache (" + dir + "/tune.txt:"), std::string::npos) << b.note;
  EXPECT_TRUE(second.log.empty()) << "a good cache file gives no note: " << second.log[0];
  EXPECT_EQ(b.chosen, a.chosen);
  ASSERT_EQ(b.ntrials, a.ntrials);
  for (int k = 0; k < a.ntrials; k++) EXPECT_NEAR(b.trial[k].seconds, a.trial[k].seconds, 1e-5 * a.trial[k].seconds + 1e-12);
  EXPECT_EQ(b.seconds, 0) << "no trials ran";
  tcw::expect_same(second.res, first.res);  // the same settings from the first call on
  EXPECT_EQ(moved.infos["tk_edge"].state, 1) << "another mesh is tuned anew: " << moved.infos["tk_edge"].note;
  EXPECT_EQ(again.infos["tk_edge"].state, 1) << "always measures: " << again.infos["tk_edge"].note;
  EXPECT_NE(text.str().find("# tk_edge\n"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().rfind("# um run.tune:", 0), 0u) << "the file says what its lines are";
}

// Big meshes (maps over 65536 entries) are told apart by a sample of their maps: the same mesh hits, another
// of the same sizes misses.
TEST(TuneCache, BigMeshesToldApart) {
  const std::string dir = temp_dir();
  ASSERT_FALSE(dir.empty());
  const tcw::Mesh m = tcw::random_mesh(20000, 40000, 17000, 5u), other = tcw::random_mesh(20000, 40000, 17000, 6u);
  Outcome first, second, moved;
  run("seq", UM_TUNE_ONCE, dir, m, &first);
  run("seq", UM_TUNE_ONCE, dir, m, &second);
  run("seq", UM_TUNE_ONCE, dir, other, &moved);
  remove_dir(dir);
  if (HasFatalFailure()) return;
  EXPECT_EQ(first.infos["tk_edge"].state, 1) << first.infos["tk_edge"].note;
  EXPECT_EQ(second.infos["tk_edge"].state, 2) << second.infos["tk_edge"].note;
  EXPECT_EQ(moved.infos["tk_edge"].state, 1) << moved.infos["tk_edge"].note;
}

// A setting that fails in its trial is not kept; its error is its note; the run goes on without an error.
TEST(TuneFailures, AFailingSettingIsSkippedAndSaysWhy) {
  const tcw::Mesh m = tcw::random_mesh(300, 900, 200, 9u);
  Outcome tuned, ref;
  run("flaky", UM_TUNE_ALWAYS, "off", m, &tuned);
  run("seq", UM_TUNE_OFF, "off", m, &ref);
  if (HasFatalFailure()) return;
  const um_tune_info &d = tuned.infos["tk_direct"];
  EXPECT_EQ(d.state, 1) << d.note;
  int refused = -1;
  for (int k = 0; k < d.ntrials; k++)
    if (d.trial[k].block_size == 512) refused = k;
  ASSERT_GE(refused, 0) << "block size 512 was listed";
  EXPECT_LT(d.trial[refused].seconds, 0);
  EXPECT_STREQ(d.trial[refused].note, "flaky: block size 512 refused") << "its error's first line";
  EXPECT_NE(d.chosen, refused);
  // then the backend's kernel variant, tried with the best setting of the first round
  const um_tune_trial &last = d.trial[d.ntrials - 1];
  EXPECT_EQ(last.variant, 1) << "the variant comes last";
  int best = -1;
  for (int k = 0; k + 1 < d.ntrials; k++)
    if (d.trial[k].seconds >= 0 && (best < 0 || d.trial[k].seconds < d.trial[best].seconds)) best = k;
  ASSERT_GE(best, 0);
  EXPECT_EQ(last.block_size, d.trial[best].block_size) << "with the best block size";
  EXPECT_GE(last.seconds, 0) << last.note;
  for (int k = 0; k + 1 < d.ntrials; k++) EXPECT_EQ(d.trial[k].variant, 0);
  tcw::expect_same(tuned.res, ref.res);  // seq underneath: the block size changes no bit
}

// Kernel variants by name; a variant the backend does not have is refused, naming what it has.
TEST(TuneVariants, NamesAndRefusals) {
  um_options o;
  um_options_default(&o);
  o.backend = "flaky";
  o.extra_backends = flaky_list;
  o.nextra_backends = 1;
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_STREQ(um_backend_variant_name(ctx, 0), "plain");
  EXPECT_STREQ(um_backend_variant_name(ctx, 1), "the other one");
  EXPECT_EQ(um_backend_variant_name(ctx, 2), nullptr);
  EXPECT_EQ(um_loop_set_variant(ctx, "x", 1), UM_SUCCESS);
  EXPECT_EQ(um_loop_set_variant(ctx, "x", 2), UM_ERR_ARG);
  EXPECT_NE(std::string(um_error_message(ctx)).find("has no kernel variant 2 (it has 2)"), std::string::npos)
      << um_error_message(ctx);
  um_finalize(&ctx);
  o.backend = "seq";
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  EXPECT_STREQ(um_backend_variant_name(ctx, 0), "default") << "a backend without variants has its default";
  EXPECT_EQ(um_loop_set_variant(ctx, "x", 1), UM_ERR_ARG);
  um_finalize(&ctx);
}

// A loop whose settings would take longer than the trials' budget (UM_TUNE_BUDGET_SECONDS) tries fewer.
TEST(TuneFailures, ASlowLoopTriesWhatTheBudgetAllows) {
  const tcw::Mesh m = tcw::random_mesh(100, 300, 60, 4u);
  Outcome tuned;
  sleep_s = 0.4 * UM_TUNE_BUDGET_SECONDS / 2.0; // a setting's three runs take 1.2 budget-halves: not every one fits
  run("flaky", UM_TUNE_ALWAYS, "off", m, &tuned);
  sleep_s = 0;
  if (HasFatalFailure()) return;
  const um_tune_info &d = tuned.infos["tk_direct"];
  int skipped = 0;
  for (int k = 0; k < d.ntrials; k++) skipped += !strcmp(d.trial[k].note, "not tried: over the budget");
  EXPECT_GE(skipped, 1) << d.note;
  EXPECT_LT(d.seconds, 2.5 * UM_TUNE_BUDGET_SECONDS) << "the trials kept near the budget";
  EXPECT_EQ(tuned.calls["tk_direct"], 1);
}

// ---- the cache file as found: whatever stands at <cache>/tune.txt, a run neither hangs nor fails ----------------
std::string read_text(const std::string &path) {
  std::ifstream f(path);
  std::stringstream t;
  t << f.rdbuf();
  return t.str();
}
void write_text(const std::string &path, const std::string &text) { std::ofstream(path) << text; }

// The lines of the run's log that mention `what`.
int notes_with(const Outcome &o, const std::string &what) {
  int n = 0;
  for (const auto &l : o.log) n += l.find(what) != std::string::npos;
  return n;
}
std::string all_notes(const Outcome &o) {
  std::string s;
  for (const auto &l : o.log) s += l + "\n";
  return s;
}

// A run that hangs is killed (SIGALRM), never waited for.
struct HangGuard {
  HangGuard() { alarm(300); }
  ~HangGuard() { alarm(0); }
};

// The cache's folder with tune.txt as the test makes it, removed with whatever is in it.
struct CacheDir {
  std::string dir = temp_dir(), file = dir + "/tune.txt";
  ~CacheDir() {
    for (const char *f : {"/tune.txt", "/target.txt"}) unlink((dir + f).c_str());
    rmdir(dir.c_str());
  }
};

// A FIFO at tune.txt (no writer): not read (no hang), not written, one note naming it; the run tunes.
TEST(TuneCacheFile, AFifoIsNotReadAndDoesNotHang) {
  CacheDir c;
  ASSERT_EQ(mkfifo(c.file.c_str(), 0600), 0);
  const tcw::Mesh m = tcw::random_mesh(200, 600, 100, 5u);
  Outcome o;
  {
    HangGuard g;
    run("seq", UM_TUNE_ONCE, c.dir, m, &o);
  }
  if (HasFatalFailure()) return;
  EXPECT_EQ(o.infos["tk_edge"].state, 1) << o.infos["tk_edge"].note;
  EXPECT_EQ(notes_with(o, "the tuning cache is not read: '" + c.file + "' is not a regular file"), 1) << all_notes(o);
}

// tune.txt a symbolic link to /dev/zero: not read (no hang, no endless line), not written through.
TEST(TuneCacheFile, ALinkToDevZeroIsNotReadNorWritten) {
  CacheDir c;
  ASSERT_EQ(symlink("/dev/zero", c.file.c_str()), 0);
  const tcw::Mesh m = tcw::random_mesh(200, 600, 100, 5u);
  Outcome o;
  {
    HangGuard g;
    run("seq", UM_TUNE_ONCE, c.dir, m, &o);
  }
  if (HasFatalFailure()) return;
  EXPECT_EQ(o.infos["tk_edge"].state, 1) << o.infos["tk_edge"].note;
  EXPECT_EQ(notes_with(o, "is not read: '" + c.file + "' is a symbolic link"), 1) << all_notes(o);
  EXPECT_GE(notes_with(o, "it is a symbolic link, and a cache file is never written through a link"), 1)
      << all_notes(o);
}

// An append never goes through a link planted at tune.txt: its target keeps its bytes.
TEST(TuneCacheFile, AnAppendNeverGoesThroughALink) {
  CacheDir c;
  write_text(c.dir + "/target.txt", "precious\n");
  ASSERT_EQ(symlink((c.dir + "/target.txt").c_str(), c.file.c_str()), 0);
  const tcw::Mesh m = tcw::random_mesh(200, 600, 100, 5u);
  Outcome o;
  run("seq", UM_TUNE_ONCE, c.dir, m, &o);
  if (HasFatalFailure()) return;
  EXPECT_EQ(read_text(c.dir + "/target.txt"), "precious\n");
  EXPECT_EQ(o.infos["tk_edge"].state, 1) << o.infos["tk_edge"].note;
  EXPECT_GE(notes_with(o, "cannot append to '" + c.file + "': it is a symbolic link"), 1) << all_notes(o);
}

// A file of another user's is neither trusted nor appended to (as root, the only user that can make one here).
TEST(TuneCacheFile, AnotherUsersFileIsIgnored) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  CacheDir c;
  const tcw::Mesh m = tcw::random_mesh(200, 600, 100, 5u);
  Outcome first, second;
  run("seq", UM_TUNE_ONCE, c.dir, m, &first);
  ASSERT_EQ(chown(c.file.c_str(), 65534, 65534), 0);
  const std::string before = read_text(c.file);
  run("seq", UM_TUNE_ONCE, c.dir, m, &second);
  if (HasFatalFailure()) return;
  EXPECT_EQ(second.infos["tk_edge"].state, 1) << "not from another user's file: " << second.infos["tk_edge"].note;
  EXPECT_EQ(notes_with(second, "is not read: '" + c.file + "' belongs to another user"), 1) << all_notes(second);
  EXPECT_EQ(read_text(c.file), before) << "not appended to";
}

// tune.txt at its 16 MiB bound (never read again): this run's choices are not added to it (one note says so), so it
// never grows past the bound.
TEST(TuneCacheFile, AFileAtItsBoundIsNotAppendedTo) {
  CacheDir c;
  {
    std::ofstream f(c.file);
    const std::string comment = "# " + std::string(1021, 'x') + "\n";  // 1 KiB a line
    for (int i = 0; i < 16 * 1024; i++) f << comment;
  }
  const uintmax_t size = std::filesystem::file_size(c.file);
  const tcw::Mesh m = tcw::random_mesh(200, 600, 100, 5u);
  Outcome o;
  run("seq", UM_TUNE_ONCE, c.dir, m, &o);
  if (HasFatalFailure()) return;
  EXPECT_EQ(o.infos["tk_edge"].state, 1) << o.infos["tk_edge"].note;
  EXPECT_EQ(std::filesystem::file_size(c.file), size) << "appended to a file at its bound";
  EXPECT_EQ(notes_with(o, "holds the 16 MiB a tuning cache may: this run's choices are not added to it"), 1)
      << all_notes(o);
}

// tune.txt's line for `loop` (its number from 1 in *n), split into fields ("#" and the name dropped).
std::vector<std::string> line_fields(const std::string &text, const std::string &loop, int *n) {
  std::istringstream in(text);
  std::string l;
  std::vector<std::string> f;
  for (int i = 1; std::getline(in, l); i++)
    if (l.size() > loop.size() && l.compare(l.size() - loop.size() - 2, std::string::npos, "# " + loop) == 0) {
      std::istringstream w(l.substr(0, l.size() - loop.size() - 2));
      f.clear();
      for (std::string x; w >> x;) f.push_back(x);
      *n = i;
    }
  return f;
}
std::string join(const std::vector<std::string> &f) {
  std::string s;
  for (const auto &x : f) s += (s.empty() ? "" : " ") + x;
  return s;
}
// "s:b:sp:v:sec" with field i replaced
std::string with_field(const std::string &trial, int i, const std::string &v) {
  std::vector<std::string> p;
  std::stringstream in(trial);
  for (std::string x; std::getline(in, x, ':');) p.push_back(x);
  p.at(i) = v;
  return p[0] + ":" + p[1] + ":" + p[2] + ":" + p[3] + ":" + p[4];
}

// A first run of the flaky backend (kernel variants; block size 512 refused) stores tk_direct's choice; the line is
// rewritten by `forge` (fields: key chosen n trial...); the next run must tune tk_direct again, succeed, and note the
// line once, with the file and the line's number, saying `why`.
void forged_line_is_skipped(const std::function<std::string(std::vector<std::string>)> &forge, const std::string &why) {
  CacheDir c;
  const tcw::Mesh m = tcw::random_mesh(300, 900, 200, 9u);
  Outcome first, second, ref;
  run("flaky", UM_TUNE_ONCE, c.dir, m, &first);
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_EQ(first.infos["tk_direct"].state, 1) << first.infos["tk_direct"].note;
  std::string text = read_text(c.file);
  int n = 0;
  const std::vector<std::string> f = line_fields(text, "tk_direct", &n);
  ASSERT_GE(f.size(), 5u) << text;
  const std::string old_line = join(f), new_line = forge(f);
  const size_t at = text.find(old_line);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, text.find('\n', at) - at, new_line);
  write_text(c.file, text);
  run("flaky", UM_TUNE_ONCE, c.dir, m, &second);
  run("seq", UM_TUNE_OFF, "off", m, &ref);
  if (::testing::Test::HasFatalFailure()) return;
  SCOPED_TRACE("line " + std::to_string(n) + ": " + new_line);
  EXPECT_EQ(second.infos["tk_direct"].state, 1) << "tuned again: " << second.infos["tk_direct"].note;
  const std::string where = c.file + ":" + std::to_string(n) + ": ";
  EXPECT_EQ(notes_with(second, where), 1) << "one note naming the file and the line:\n" << all_notes(second);
  EXPECT_EQ(notes_with(second, why), 1) << all_notes(second);
  EXPECT_EQ(second.infos["tk_edge"].state, 2) << "the good lines still count: " << second.infos["tk_edge"].note;
  tcw::expect_same(second.res, ref.res);
}

// the last setting (the kernel variant) chosen, with `field` set to `value`
std::function<std::string(std::vector<std::string>)> chosen_last_with(int field, const std::string &value) {
  return [field, value](std::vector<std::string> f) {
    f[1] = std::to_string(f.size() - 4);
    f.back() = with_field(f.back(), field, value);
    return join(f) + " # tk_direct";
  };
}

TEST(TuneCacheFile, AStrategyTheBackendLacksIsSkipped) {
  forged_line_is_skipped(chosen_last_with(0, "99"), "strategy 99 is not one the flaky backend offers");
}
TEST(TuneCacheFile, AGlobalStrategyOnTheHostIsSkipped) {
  forged_line_is_skipped(chosen_last_with(0, "3"), "strategy 3 is not one the flaky backend offers (global)");
}
TEST(TuneCacheFile, BlockSizeOneIsSkipped) {
  forged_line_is_skipped(chosen_last_with(1, "1"), "tried with a setting this loop does not list");
}
TEST(TuneCacheFile, AHugeBlockSizeIsSkipped) {
  forged_line_is_skipped(chosen_last_with(1, "2147483647"), "block size 2147483647 is outside run.block_size's bounds");
}
TEST(TuneCacheFile, ATruncatedLineIsSkipped) {
  forged_line_is_skipped(
      [](std::vector<std::string> f) {
        f.resize(f.size() - 2);  // its last setting and the comment cut off, and half of the one before
        f.back() = f.back().substr(0, 3);
        return join(f);
      },
      "setting 3: it is not strategy:block_size:split:variant:seconds (cut short?)");
}
TEST(TuneCacheFile, AVariantTheBackendLacksIsSkipped) {
  forged_line_is_skipped(chosen_last_with(3, "7"), "kernel variant 7 is not one the flaky backend has");
}

// A stored choice the backend refuses when it runs (flaky: block size 512) is tried once, then tuned again with a
// note naming the file, the line and the refusal: never a failed run.
TEST(TuneCacheFile, AChoiceTheBackendRefusesIsTunedAgain) {
  forged_line_is_skipped(
      [](std::vector<std::string> f) {
        for (size_t k = 3; k < f.size(); k++)
          if (f[k].find(":512:") != std::string::npos) {
            f[1] = std::to_string(k - 3);
            f[k] = with_field(f[k], 4, "1e-06");  // as if it had been the fastest
          }
        return join(f) + " # tk_direct";
      },
      "failed when tried (flaky: block size 512 refused); the loop is tuned again");
}

}  // namespace
