// Issue 15 (hardening): each test here failed before its fix. Bad input gives
// a clear error, never a crash or a huge allocation; outputs are never half
// written; NaN is never hidden. The runner-level tests are in CMakeLists.txt
// (umrun.*), the Airfoil reader's in apps/airfoil/tests.
#include <gtest/gtest.h>

#include <hdf5.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "um/app.h"
#include "um/safe_file.h"
#include "um/config.h"
#include "um/hdf5io.h"
#include "um/report.h"
#include "um/reorder.h"
#include "um/um.h"
}
#include "test_kernels.h"

#include "test_files.hpp"

namespace fs = std::filesystem;

namespace {

#define OK(call) ASSERT_EQ((call), UM_SUCCESS) << um_error_message(ctx)

using umtest::has;
using umtest::slurp;
using umtest::TempDir;

um_context *make_ctx(const char *backend, int nthreads = 0, int bs = 256) {
  um_options o;
  um_options_default(&o);
  o.backend = backend;
  o.nthreads = nthreads;
  o.block_size = bs;
  o.parallel_threshold = 0;
  um_context *ctx = nullptr;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
  return ctx;
}

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

// ---- fault 2: size products are overflow-checked -----------------------------------------------

TEST(Hardening, DeclaringADatWhoseSizeOverflowsIsAnError) {
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

// A dataset whose extent claims more values than the file stores (a 2 KB file
// claimed a dat of exabytes) is refused before anything is allocated, with the
// count named.
TEST(Hardening, HdfDatasetsClaimingMoreThanTheFileStoresAreRefused) {
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

// fault 3: a reordering file's permutation sizes are checked against the sets
// (and the bytes stored) before allocating.
TEST(Hardening, ReorderFileSizesAreBoundedBeforeAllocating) {
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

// ---- fault 5: NaN propagates through MIN / MAX / INC on every backend ---------------------------

namespace {
struct NanResult {
  int rc;
  double mn, mx, sum;
  std::string msg;
};

NanResult run_nan(const char *backend, int nthreads, int nan_at) {
  um_context *ctx = make_ctx(backend, nthreads, 256);
  NanResult r{-1, 0, 0, 0, ""};
  const int n = 100000;
  std::vector<double> a(n);
  for (int i = 0; i < n; i++) a[i] = (double)((i * 7919) % n) - 5000.0;
  if (nan_at >= 0) a[nan_at] = NAN;
  um_set *s;
  um_dat *d;
  EXPECT_EQ(um_decl_set(ctx, n, "s", &s), UM_SUCCESS);
  EXPECT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, a.data(), "a", &d), UM_SUCCESS);
  r.mn = 1e300;
  r.mx = -1e300;
  r.sum = 0;
  r.rc = UM_PAR_LOOP(ctx, nan_minmax_kernel, "nan_minmax", s, um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                     um_arg_gbl(&r.mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&r.mx, 1, UM_DOUBLE, UM_MAX),
                     um_arg_gbl(&r.sum, 1, UM_DOUBLE, UM_INC));
  r.msg = um_error_message(ctx);
  um_finalize(&ctx);
  return r;
}
}  // namespace

TEST(Hardening, NaNPropagatesThroughMinMaxAndIncOnEveryHostBackend) {
  for (const char *b : {"seq", "openmp"}) {
    if (!um_backend_available(b)) continue;
    for (int nan_at : {0, 54321, 99999}) {
      NanResult r = run_nan(b, 4, nan_at);
      EXPECT_TRUE(std::isnan(r.mn)) << b << " NaN at " << nan_at << ": min " << r.mn;
      EXPECT_TRUE(std::isnan(r.mx)) << b << " NaN at " << nan_at << ": max " << r.mx;
      EXPECT_TRUE(std::isnan(r.sum)) << b << " NaN at " << nan_at << ": sum " << r.sum;
      // fault 6: the engine's divergence check stops the run where it was first seen
      EXPECT_EQ(r.rc, UM_ERR_DIVERGED) << b;
      EXPECT_TRUE(has(r.msg, "loop 'nan_minmax', call 1")) << r.msg;
    }
    NanResult ok = run_nan(b, 4, -1);
    EXPECT_EQ(ok.rc, UM_SUCCESS) << ok.msg;
    EXPECT_EQ(ok.mn, -5000.0);
    EXPECT_EQ(ok.mx, 100000.0 - 5001.0);
  }
}

// ---- fault 6: divergence is an error that says where ----------------------------------------------

TEST(Hardening, AReductionThatBecomesInfiniteStopsTheRun) {
  um_context *ctx = make_ctx("seq");
  um_set *s;
  um_dat *d;
  std::vector<double> a(10, 1e307);
  OK(um_decl_set(ctx, 10, "s", &s));
  OK(um_decl_dat(ctx, s, 1, UM_DOUBLE, a.data(), "a", &d));
  double mn = 0, mx = 0, sum = 0;
  for (int call = 1; call <= 2; call++) {
    if (call == 1) sum = 0;  // the first call ends finite (1e308), the second overflows (2e308)
    int rc = UM_PAR_LOOP(ctx, nan_minmax_kernel, "sum_up", s, um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                         um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX),
                         um_arg_gbl(&sum, 1, UM_DOUBLE, UM_INC));
    if (call == 1) EXPECT_EQ(rc, UM_SUCCESS) << um_error_message(ctx);
    else {
      EXPECT_EQ(rc, UM_ERR_DIVERGED);
      EXPECT_TRUE(has(um_error_message(ctx), "loop 'sum_up', call 2")) << um_error_message(ctx);
      EXPECT_TRUE(std::isinf(sum));
    }
  }
  EXPECT_STREQ(um_error_name(UM_ERR_DIVERGED), "UM_ERR_DIVERGED");
  um_finalize(&ctx);
}

TEST(Hardening, ANonFiniteMetricStopsTheRunAndIsWrittenAsJsonNull) {
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

// ---- faults 7, 8: outputs are written through unique temporaries -------------------------------

TEST(Hardening, SafeFilesUseUniqueTemporariesAndRenameWhenComplete) {
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
// old file whole, no temporary behind, and says why; the same for an append.
TEST(Hardening, AFailedWriteOrAppendLeavesTheOldFileAndNoTemporary) {
  TempDir t("full");
  const std::string out = t / "out.json", csv = t / "rows.csv";
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
    _exit(bad);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << "bits: 1 commit succeeded, 2 no reason, 4 append succeeded, 8 no rollback note";
  EXPECT_EQ(slurp(out), "old");
  EXPECT_EQ(slurp(csv), "h\nrow1\n");
  EXPECT_EQ(t.count_tmp(), 0);
}

// A process killed (SIGTERM, SIGINT) in the middle of a write leaves no
// temporary behind (a killed write left 37-114 MB .tmp files).
TEST(Hardening, AKilledWriteLeavesNoTemporary) {
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
TEST(Hardening, ASignalStopsTheRegisteredChildGroupsFirst) {
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

// ---- fault 4: configs parse in linear time, with a size limit ------------------------------------

TEST(Hardening, LargeConfigsParseInLinearTime) {
  // 300,000 keys in one mapping: the quadratic duplicate check took minutes
  // (80,000 keys: 11 s); linear takes well under a second. The bound is generous
  // (a complexity check, not a benchmark).
  std::string y;
  y.reserve(300000 * 16);
  for (int i = 0; i < 300000; i++) y += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  um_config *cfg = nullptr;
  char err[1024] = "";
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(um_config_load_string(y.c_str(), "big", &cfg, err, sizeof err), UM_SUCCESS) << err;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 30.0);
  um_config_free(cfg);
  // a duplicate is still found, wherever it is
  y += "k123456: again\n";
  EXPECT_EQ(um_config_load_string(y.c_str(), "big", &cfg, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "duplicate key 'k123456' (first given at line 123457)")) << err;
}

TEST(Hardening, ConfigsOverTheSizeLimitAreRefusedWithAClearMessage) {
  TempDir t("cfgsize");
  const std::string path = t / "huge.yaml";
  {
    std::ofstream o(path);
    std::string line(1023, '#');
    for (int i = 0; i < (UM_CONFIG_MAX_BYTES >> 10) + 1; i++) o << line << "\n";
  }
  um_config *cfg = nullptr;
  char err[1024] = "";
  EXPECT_EQ(um_config_load_file(path.c_str(), &cfg, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "larger than")) << err;
  EXPECT_EQ(cfg, nullptr);
}

// ---- fault 11: messages that say what is wrong ------------------------------------------------

TEST(Hardening, AYamlTabGetsAHint) {
  um_config *cfg = nullptr;
  char err[1024] = "";
  EXPECT_EQ(um_config_load_string("run:\n\tbackend: seq\n", "tabbed.yaml", &cfg, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "tab")) << err;
  EXPECT_TRUE(has(err, "tabbed.yaml:2")) << err;
}
