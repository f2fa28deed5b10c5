// Vector arguments (um_arg_vec, idx UM_ALL): every target of a map row as one `const um_vec *`.
// Each loop is compared with the same loop written with one argument per map index and with a
// serial reference (the values are small integers, so every order of the sums gives the same
// bits): READ and INC, arity 3 and 60 (beyond the 48-argument limit), AoS and SoA, seq and
// coloured OpenMP; the plan's colourings and its checker; argument checks; splitting, compiled
// host loops and statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "plan.h"
#include "um/exec.h"
#include "um/transform.h"
#include "um/um.h"
}
#include "test_vec_workload.hpp"

namespace {

struct Ctx {
  um_context *ctx = nullptr;
  // compiled: every loop's host code compiled before its first call (hostc.compile wait, a private cache)
  explicit Ctx(const char *backend, int threads = 4, int block_size = 16, um_strategy strategy = UM_STRATEGY_AUTO,
               bool compiled = false) {
    um_options o;
    um_options_default(&o);
    o.backend = backend;
    o.strategy = strategy;
    o.nthreads = strcmp(backend, "openmp") == 0 ? threads : 0;
    um_options_set(&o, "openmp.parallel_threshold", "0");  // always parallel: the colouring must carry the loop
    o.block_size = block_size;
    o.check_plans = 1;  // every plan proven by the checker
    if (compiled) {
      um_options_set(&o, "hostc.compile", "wait");
      um_options_set(&o, "run.cache", "off");
    }
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << (ctx ? um_error_message(ctx) : "");
  }
  ~Ctx() { um_finalize(&ctx); }
  std::string msg() const { return um_error_message(ctx); }
};

std::vector<const char *> host_backends() {
  std::vector<const char *> v = {"seq"};
  if (um_backend_available("openmp")) v.push_back("openmp");
  return v;
}

const um_loop_stats *stats_of(um_context *ctx, const std::string &name, um_loop_stats *s) {
  for (int i = 0; i < um_loop_stats_count(ctx); i++)
    if (um_loop_stats_get(ctx, i, s) == UM_SUCCESS && name == s->name) return s;
  ADD_FAILURE() << "no statistics for loop " << name;
  return nullptr;
}

TEST(VecArgs, ArgVecIsArgDatWithEveryIndex) {
  um_arg a = um_arg_vec(nullptr, nullptr, 3, UM_FLOAT, UM_INC);
  EXPECT_EQ(a.kind, UM_ARG_DAT);
  EXPECT_EQ(a.idx, UM_ALL);
  EXPECT_EQ(UM_ALL, -2);
  EXPECT_EQ(a.dim, 3);
  EXPECT_EQ(a.type, UM_FLOAT);
  EXPECT_EQ(a.acc, UM_INC);
}

TEST(VecArgs, ReadEqualsPerIndexArgsArity3) {
  const tvw::Mesh m = tvw::make(300, 3, 11);
  const std::vector<double> ref = tvw::sum_reference(m);
  for (const char *b : host_backends())
    for (um_layout l : {UM_AOS, UM_SOA}) {
      Ctx c(b);
      tvw::Decl D = tvw::declare(c.ctx, m);
      const std::vector<double> v = tvw::sum(c.ctx, D, m, true, l, "v"), p = tvw::sum(c.ctx, D, m, false, l, "p");
      EXPECT_EQ(v, p) << b << " " << um_layout_name(l) << ": vector READ differs from per-index READ";
      EXPECT_EQ(v, ref) << b << " " << um_layout_name(l);
    }
}

TEST(VecArgs, ReadArity60BeyondTheArgumentLimit) {
  const tvw::Mesh m = tvw::make(200, 60, 5);
  ASSERT_GT(m.arity, UM_MAX_ARGS);
  const std::vector<double> ref = tvw::sum_reference(m);
  for (const char *b : host_backends())
    for (um_layout l : {UM_AOS, UM_SOA}) {
      Ctx c(b);
      tvw::Decl D = tvw::declare(c.ctx, m);
      const std::vector<double> v = tvw::sum(c.ctx, D, m, true, l, "v"), p = tvw::sum(c.ctx, D, m, false, l, "p");
      EXPECT_EQ(v, p) << b << " " << um_layout_name(l) << ": one vector arg vs 60 loops of one index each";
      EXPECT_EQ(v, ref) << b << " " << um_layout_name(l);
    }
}

TEST(VecArgs, IncMatchesTheSerialReferenceOnSeqAndColouredOpenMP) {
  for (int arity : {3, 60}) {
    const tvw::Mesh m = tvw::make(400, arity, 17 + arity);
    const std::vector<double> ref = tvw::scatter_reference(m);
    for (const char *b : host_backends())
      for (um_layout l : {UM_AOS, UM_SOA}) {
        Ctx c(b);
        tvw::Decl D = tvw::declare(c.ctx, m);
        const std::vector<double> v = tvw::scatter(c.ctx, D, m, true, l, "v");
        EXPECT_EQ(v, ref) << b << " " << um_layout_name(l) << " arity " << arity
                          << ": a vector INC adds into the existing values, once per reference";
        if (arity == 3) EXPECT_EQ(tvw::scatter(c.ctx, D, m, false, l, "p"), ref) << b << " per-index form";
        um_loop_stats s;
        if (stats_of(c.ctx, "scatter_v", &s)) {
          if (!strcmp(b, "openmp")) {  // blocks of 16 whose rows overlap: one colour would race
            EXPECT_EQ(s.has_plan, 1) << "OpenMP runs increments through maps by block colour";
            EXPECT_GT(s.nblock_colours, 1) << "block colours must include every target of the row";
            EXPECT_GT(s.max_thread_colours, 1) << "thread colours must include every target of the row";
          }
        }
      }
  }
}

TEST(VecArgs, IntAndFloatIncrementsRaceFree) {
  const tvw::Mesh m = tvw::make(500, 3, 23);
  std::vector<int> rc(m.n, 0);
  for (int t : m.map) rc[t]++;
  for (const char *b : host_backends()) {
    Ctx c(b, 8);
    tvw::Decl D = tvw::declare(c.ctx, m);
    std::vector<int> cv, cp;
    std::vector<float> hv, hp;
    tvw::count(c.ctx, D, m, true, "v", &cv, &hv);
    tvw::count(c.ctx, D, m, false, "p", &cp, &hp);
    EXPECT_EQ(cv, rc) << b;
    EXPECT_EQ(cv, cp) << b;
    EXPECT_EQ(hv, hp) << b;
    for (int i = 0; i < m.n; i++) EXPECT_EQ(hv[i], 0.5f * (float)rc[i]) << b << " target " << i;
  }
}

// strategy atomics on OpenMP: a loop whose only writes through maps are vector increments runs in chunks without a
// plan, each increment a compare-and-swap; the sums of small integers are exact in any order, so the results must
// equal the serial reference, and a lost update (a race) shows as a wrong count
// many threads, many increments on few targets: 40 000 rows of 60 over 16 targets (150 000 each), so that
// increments that were not atomic would lose updates (loop count_v: every int and float count checked)
void count_on_few_targets(um_context *ctx) {
  tvw::Mesh m;
  m.n = 40000, m.arity = 60;
  m.map.resize((size_t)m.n * m.arity);
  m.q.assign(2 * (size_t)m.n, 1.0);
  for (size_t i = 0; i < m.map.size(); i++) m.map[i] = (int)((i * 7) % 16);
  std::vector<int> rc(m.n, 0);
  for (int t : m.map) rc[t]++;
  tvw::Decl D = tvw::declare(ctx, m);
  std::vector<int> cv;
  std::vector<float> hv;
  tvw::count(ctx, D, m, true, "v", &cv, &hv);
  EXPECT_EQ(cv, rc) << "every increment counted once";
  for (int i = 0; i < m.n; i++) ASSERT_EQ(hv[i], 0.5f * (float)rc[i]) << "target " << i;
}

TEST(VecArgs, OpenMPAtomicsRunVectorIncrementsWithoutAPlan) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "no OpenMP backend in this build";
  for (int arity : {3, 60}) {
    const tvw::Mesh m = tvw::make(400, arity, 41 + arity);
    const std::vector<double> ref = tvw::scatter_reference(m);
    for (um_layout l : {UM_AOS, UM_SOA}) {
      Ctx c("openmp", 4, 16, UM_STRATEGY_ATOMICS);
      tvw::Decl D = tvw::declare(c.ctx, m);
      EXPECT_EQ(tvw::scatter(c.ctx, D, m, true, l, "v"), ref) << um_layout_name(l) << " arity " << arity;
      um_loop_stats s;
      if (stats_of(c.ctx, "scatter_v", &s)) EXPECT_EQ(s.has_plan, 0) << "atomics: no plan, no colours";
    }
  }
  Ctx c("openmp", 8, 64, UM_STRATEGY_ATOMICS);
  count_on_few_targets(c.ctx);
}

// The same many increments on few targets through compiled host code: the module takes the run's um_vec, whose
// atomic flag OpenMP's atomics set (a module that ignored it would lose updates)
TEST(VecArgs, CompiledHostLoopsIncrementAtomicallyUnderOpenMPAtomics) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "no OpenMP backend in this build";
  Ctx c("openmp", 8, 64, UM_STRATEGY_ATOMICS, true);
  count_on_few_targets(c.ctx);
  um_loop_stats s;
  if (stats_of(c.ctx, "count_v", &s)) {
    EXPECT_EQ(s.has_plan, 0) << "atomics: no plan, no colours";
    EXPECT_EQ(s.compiled_calls, 1);
  }
}

// run.reproducible keeps the colours under atomics (a vector argument is never split, so only the colours keep its
// sums in a fixed order)
TEST(VecArgs, OpenMPAtomicsKeepColoursInReproducibleMode) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "no OpenMP backend in this build";
  const tvw::Mesh m = tvw::make(400, 60, 59);
  Ctx c("openmp", 4, 16, UM_STRATEGY_ATOMICS);
  ASSERT_EQ(um_context_set_reproducible(c.ctx, 1), UM_SUCCESS) << c.msg();
  tvw::Decl D = tvw::declare(c.ctx, m);
  EXPECT_EQ(tvw::scatter(c.ctx, D, m, true, UM_AOS, "v"), tvw::scatter_reference(m));
  um_loop_stats s;
  if (stats_of(c.ctx, "scatter_v", &s)) EXPECT_EQ(s.has_plan, 1) << "reproducible: coloured";
}

// a per-index INC beside the vector one: the loop stays coloured under atomics, with the same results
TEST(VecArgs, OpenMPAtomicsKeepColoursForPerIndexIncrements) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "no OpenMP backend in this build";
  const tvw::Mesh m = tvw::make(300, 3, 37);
  Ctx c("openmp", 4, 16, UM_STRATEGY_ATOMICS), plain("openmp");
  tvw::Decl D = tvw::declare(c.ctx, m), P = tvw::declare(plain.ctx, m);
  EXPECT_EQ(tvw::mixed(c.ctx, D, m, true, UM_AOS, "v"), tvw::mixed(plain.ctx, P, m, true, UM_AOS, "v"));
  um_loop_stats s;
  if (stats_of(c.ctx, "mixed_v", &s)) EXPECT_EQ(s.has_plan, 1) << "a per-index INC needs the colouring";
}

// the run's atomics on OpenMP: the statistics say what each loop ran (vector increments by atomics, per-index
// increments by colours, a loop that writes nothing through a map none), and the log says once per loop, not per
// call, that per-index increments ran coloured; under run.reproducible atomics run coloured by that mode's rule,
// said by the statistics, not warned about
TEST(VecArgs, OpenMPAtomicsSayWhatEachLoopRan) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "no OpenMP backend in this build";
  const tvw::Mesh m = tvw::make(300, 3, 61);
  std::vector<std::string> warnings;
  auto context = [&](int reproducible) {
    um_options o;
    um_options_default(&o);
    o.backend = "openmp";
    o.strategy = UM_STRATEGY_ATOMICS;
    o.nthreads = 4;
    o.block_size = 16;
    um_options_set(&o, "openmp.parallel_threshold", "0");
    o.log = [](void *user, um_log_level level, const char *msg) {
      if (level == UM_LOG_WARNING) ((std::vector<std::string> *)user)->push_back(msg);
    };
    o.log_user = &warnings;
    um_context *ctx = nullptr;
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << (ctx ? um_error_message(ctx) : "");
    if (reproducible) EXPECT_EQ(um_context_set_reproducible(ctx, 1), UM_SUCCESS) << um_error_message(ctx);
    return ctx;
  };
  um_context *ctx = context(0);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(um_context_strategy(ctx), UM_STRATEGY_ATOMICS) << "the run's strategy";
  tvw::Decl D = tvw::declare(ctx, m);
  EXPECT_EQ(tvw::scatter(ctx, D, m, true, UM_AOS, "v"), tvw::scatter_reference(m));
  tvw::sum(ctx, D, m, true, UM_AOS, "v");
  um_dat *q = tvw::dat(ctx, D.cells, 2, UM_DOUBLE, m.q.data(), "sq_p", UM_AOS);
  um_dat *acc = tvw::dat(ctx, D.cells, 2, UM_DOUBLE, nullptr, "acc_p", UM_AOS);
  um_arg a[4] = {um_arg_dat(q, -1, UM_ID, 2, UM_DOUBLE, UM_READ), um_arg_dat(acc, 0, D.nbr, 2, UM_DOUBLE, UM_INC),
                 um_arg_dat(acc, 1, D.nbr, 2, UM_DOUBLE, UM_INC), um_arg_dat(acc, 2, D.nbr, 2, UM_DOUBLE, UM_INC)};
  for (int call = 0; call < 3; call++)
    ASSERT_EQ(um_par_loop(ctx, &tv_scatter3_kernel, "scatter_p", D.cells, 4, a), UM_SUCCESS) << um_error_message(ctx);
  um_loop_stats s;
  if (stats_of(ctx, "scatter_v", &s)) {
    EXPECT_EQ(s.strategy, UM_STRATEGY_ATOMICS) << "vector increments ran by atomics";
    EXPECT_EQ(s.has_plan, 0);
  }
  if (stats_of(ctx, "scatter_p", &s)) {
    EXPECT_EQ(s.strategy, UM_STRATEGY_COLOURED) << "per-index increments ran by the plan's colours";
    EXPECT_EQ(s.has_plan, 1);
  }
  if (stats_of(ctx, "sum_v", &s)) EXPECT_EQ(s.strategy, UM_STRATEGY_AUTO) << "nothing written through a map: none";
  ASSERT_EQ(warnings.size(), 1u) << "one warning, for the loop that ran coloured, not one per call";
  EXPECT_NE(warnings[0].find("'scatter_p' runs coloured, not by atomics"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("um_arg_vec"), std::string::npos) << warnings[0];
  um_finalize(&ctx);
  warnings.clear();
  ctx = context(1);
  ASSERT_NE(ctx, nullptr);
  D = tvw::declare(ctx, m);
  EXPECT_EQ(tvw::scatter(ctx, D, m, true, UM_AOS, "v"), tvw::scatter_reference(m));
  if (stats_of(ctx, "scatter_v", &s)) {
    EXPECT_EQ(s.strategy, UM_STRATEGY_COLOURED) << "run.reproducible keeps the colours";
    EXPECT_EQ(s.has_plan, 1);
  }
  for (const std::string &w : warnings)  // (it warns that a vector argument's sums are never split: another matter)
    EXPECT_EQ(w.find("runs coloured"), std::string::npos) << "reproducible mode's colours are its rule: " << w;
  um_finalize(&ctx);
}

// run.tune on OpenMP tries atomics where they change how a loop runs (vector increments only), not elsewhere
TEST(VecArgs, TuneTriesOpenMPAtomicsOnVectorIncrementsOnly) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "no OpenMP backend in this build";
  const tvw::Mesh m = tvw::make(400, 3, 53);
  const std::vector<double> ref = tvw::scatter_reference(m);
  um_options o;
  um_options_default(&o);
  o.backend = "openmp";
  o.nthreads = 4;
  um_options_set(&o, "openmp.parallel_threshold", "0");
  um_options_set(&o, "run.cache", "off");  // nothing stored
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << (ctx ? um_error_message(ctx) : "");
  ASSERT_EQ(um_context_set_tune(ctx, UM_TUNE_ALWAYS), UM_SUCCESS);
  tvw::Decl D = tvw::declare(ctx, m);
  EXPECT_EQ(tvw::scatter(ctx, D, m, true, UM_AOS, "v"), ref) << "the trials change no result";
  EXPECT_EQ(tvw::scatter(ctx, D, m, false, UM_AOS, "p"), ref);
  std::map<std::string, std::vector<um_strategy>> tried;
  um_loop_stats st;
  um_tune_info t;
  for (int i = 0; i < um_loop_stats_count(ctx); i++)
    if (um_loop_stats_get(ctx, i, &st) == UM_SUCCESS && um_loop_tune_info(ctx, i, &t))
      for (int k = 0; k < t.ntrials; k++) tried[st.name].push_back(t.trial[k].strategy);
  auto has = [&](const char *loop, um_strategy s) {
    const std::vector<um_strategy> &v = tried[loop];
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  EXPECT_TRUE(has("scatter_v", UM_STRATEGY_ATOMICS)) << "a vector INC loop tries atomics";
  EXPECT_TRUE(has("scatter_v", UM_STRATEGY_COLOURED));
  EXPECT_FALSE(has("scatter_p", UM_STRATEGY_ATOMICS)) << "per-index INCs: atomics would run coloured, a twin trial";
  EXPECT_TRUE(has("scatter_p", UM_STRATEGY_COLOURED));
  um_finalize(&ctx);
}

TEST(VecArgs, VectorAndPerIndexArgsInOneLoop) {
  const tvw::Mesh m = tvw::make(300, 3, 31);
  for (const char *b : host_backends())
    for (um_layout l : {UM_AOS, UM_SOA}) {
      Ctx c(b);
      tvw::Decl D = tvw::declare(c.ctx, m);
      const std::vector<double> v = tvw::mixed(c.ctx, D, m, true, l, "v"), p = tvw::mixed(c.ctx, D, m, false, l, "p");
      EXPECT_EQ(v, p) << b << " " << um_layout_name(l);
    }
}

TEST(VecArgs, BadArgumentsAreRejectedWithAMessage) {
  Ctx c("seq");
  const tvw::Mesh m = tvw::make(20, 4, 3);
  tvw::Decl D = tvw::declare(c.ctx, m);
  um_set *nodes = nullptr;
  ASSERT_EQ(um_decl_set(c.ctx, 10, "nodes", &nodes), UM_SUCCESS);
  std::vector<int> c2n(20 * 2, 1);
  um_map *cn = nullptr;
  ASSERT_EQ(um_decl_map(c.ctx, D.cells, nodes, 2, c2n.data(), "c2n", &cn), UM_SUCCESS);
  um_dat *q = tvw::dat(c.ctx, D.cells, 2, UM_DOUBLE, nullptr, "q", UM_AOS);
  um_dat *out = tvw::dat(c.ctx, D.cells, 2, UM_DOUBLE, nullptr, "out", UM_AOS);
  um_dat *xn = tvw::dat(c.ctx, nodes, 2, UM_DOUBLE, nullptr, "xn", UM_AOS);
  auto run = [&](um_arg v) {
    um_arg a[2] = {v, um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
    return um_par_loop(c.ctx, &tv_sum_vec_kernel, "bad", D.cells, 2, a);
  };
  for (um_access acc : {UM_RW, UM_WRITE, UM_MIN}) {
    EXPECT_EQ(run(um_arg_vec(q, D.nbr, 2, UM_DOUBLE, acc)), UM_ERR_ARG) << um_access_name(acc);
    EXPECT_NE(c.msg().find("loop 'bad', arg 0"), std::string::npos) << c.msg();
    if (acc != UM_MIN) {
      EXPECT_NE(c.msg().find("may only be READ or INC"), std::string::npos) << c.msg();
      EXPECT_NE(c.msg().find("um_arg_dat(dat, j, map"), std::string::npos) << "says what to do instead: " << c.msg();
    }
  }
  EXPECT_EQ(run(um_arg_vec(q, nullptr, 2, UM_DOUBLE, UM_READ)), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("no map was given"), std::string::npos) << c.msg();
  EXPECT_NE(c.msg().find("dat 'q'"), std::string::npos) << c.msg();
  EXPECT_EQ(run(um_arg_vec(q, cn, 2, UM_DOUBLE, UM_READ)), UM_ERR_ARG) << "dat on cells, map leads to nodes";
  EXPECT_NE(c.msg().find("map 'c2n', which leads to set 'nodes', but dat 'q' lives on 'cells'"), std::string::npos)
      << c.msg();
  um_arg a[2] = {um_arg_vec(xn, cn, 2, UM_DOUBLE, UM_READ), um_arg_dat(xn, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
  EXPECT_EQ(um_par_loop(c.ctx, &tv_sum_vec_kernel, "bad_set", nodes, 2, a), UM_ERR_ARG) << "loop over nodes";
  EXPECT_NE(c.msg().find("goes from set 'cells', but the loop runs over 'nodes'"), std::string::npos) << c.msg();
  EXPECT_EQ(run(um_arg_vec(q, D.nbr, 3, UM_DOUBLE, UM_READ)), UM_ERR_ARG) << "dim checked as for other args";
  EXPECT_EQ(run(um_arg_vec(q, D.nbr, 2, UM_FLOAT, UM_READ)), UM_ERR_ARG) << "type checked as for other args";
  EXPECT_EQ(run(um_arg_dat(q, 7, D.nbr, 2, UM_DOUBLE, UM_READ)), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("or UM_ALL"), std::string::npos) << "a bad index names the vector form: " << c.msg();
  EXPECT_EQ(run(um_arg_vec(q, D.nbr, 2, UM_DOUBLE, UM_READ)), UM_SUCCESS) << c.msg();
}

TEST(VecArgs, LoopsWithVectorArgsAreNeverSplit) {
  Ctx c("seq");
  ASSERT_EQ(um_context_set_split(c.ctx, UM_SPLIT_SCATTER), UM_SUCCESS);
  const tvw::Mesh m = tvw::make(100, 5, 9);
  tvw::Decl D = tvw::declare(c.ctx, m);
  EXPECT_EQ(tvw::scatter(c.ctx, D, m, true, UM_AOS, "v"), tvw::scatter_reference(m));
  um_loop_stats s;
  if (stats_of(c.ctx, "scatter_v", &s)) {
    EXPECT_STREQ(s.split, "off");
    ASSERT_NE(s.split_reason, nullptr);
    EXPECT_NE(std::string(s.split_reason).find("vector argument"), std::string::npos) << s.split_reason;
  }
}

// hostc.compile wait: loops with vector arguments (a map row's, a whole dat's; READ and INC) run compiled host code
// with the generic range's results, on seq, coloured OpenMP and OpenMP atomics (the um_vec's atomic flag is the
// run's); a whole dat's size is read at run time (tables of two sizes)
TEST(VecArgs, CompiledHostLoopsRunVectorArguments) {
  struct Case {
    const char *backend;
    um_strategy strategy;
  };
  std::vector<Case> cases = {{"seq", UM_STRATEGY_AUTO}};
  if (um_backend_available("openmp")) {
    cases.push_back({"openmp", UM_STRATEGY_AUTO});
    cases.push_back({"openmp", UM_STRATEGY_ATOMICS});
  }
  for (int arity : {60, 3})
    for (const Case &k : cases)
      for (um_layout l : {UM_AOS, UM_SOA}) {
        const std::string what = std::string(k.backend) + " " + um_strategy_name(k.strategy) + " " +
                                 um_layout_name(l) + " arity " + std::to_string(arity);
        const tvw::Mesh m = tvw::make(300, arity, 4);
        const tvw::Whole w = tvw::make_whole(m, 29, 3), w2 = tvw::make_whole(m, 41, 5);
        Ctx c(k.backend, 2, 16, k.strategy, true);
        um_context *ctx = c.ctx;
        tvw::Decl D = tvw::declare(ctx, m);
        EXPECT_EQ(tvw::sum(ctx, D, m, true, l, "v"), tvw::sum_reference(m)) << what;
        EXPECT_EQ(tvw::gather_whole(ctx, D.cells, m, w, l, "g"), tvw::gather_whole_reference(m, w)) << what;
        EXPECT_EQ(tvw::gather_whole(ctx, D.cells, m, w2, l, "g2"), tvw::gather_whole_reference(m, w2)) << what;
        EXPECT_EQ(tvw::scatter(ctx, D, m, true, l, "w"), tvw::scatter_reference(m)) << what;
        EXPECT_EQ(tvw::scatter_whole(ctx, D.cells, m, w, l, "sw", 2), tvw::scatter_whole_reference(m, w, 2)) << what;
        if (arity == 3)  // a vector READ, a vector INC and a per-index INC through one map: one map pointer
          EXPECT_EQ(tvw::mixed(ctx, D, m, true, l, "x"), tvw::mixed(ctx, D, m, false, l, "y")) << what;
        um_loop_stats s;
        for (const char *n : {"sum_v", "gather_whole_g", "gather_whole_g2", "scatter_w", "mixed_x"})
          if ((arity == 3 || strcmp(n, "mixed_x")) && stats_of(ctx, n, &s))
            EXPECT_EQ(s.compiled_calls, 1) << what << ": " << n;
        if (stats_of(ctx, "scatter_whole_sw", &s)) EXPECT_EQ(s.compiled_calls, 2) << what;
      }
}

TEST(VecArgs, UsefulBytesCountEveryTargetOfTheRowAndTheMap) {
  Ctx c("seq");
  const tvw::Mesh m = tvw::make(100, 60, 8);
  tvw::Decl D = tvw::declare(c.ctx, m);
  tvw::sum(c.ctx, D, m, true, UM_AOS, "v");
  std::vector<char> seen(m.n, 0);
  double touched = 0;
  for (int t : m.map) touched += !seen[t]++;
  const double expect = (double)m.n * m.arity * sizeof(int) + touched * 2 * sizeof(double) + m.n * 2 * sizeof(double);
  um_loop_stats s;
  if (stats_of(c.ctx, "sum_v", &s)) EXPECT_DOUBLE_EQ(s.bytes, expect);
}

// ---- the plan: a vector INC arg conflicts through every target of its row ----

struct PlanIn {
  std::vector<int> map;
  um_plan_arg arg[2];
  um_plan_input in;
  PlanIn(int n, int arity, int to, um_access acc) {
    unsigned s = 7;
    for (int i = 0; i < n * arity; i++) map.push_back((int)((s = s * 1103515245u + 12345u) >> 9) % to);
    memset(arg, 0, sizeof arg);
    arg[0].map = map.data();
    arg[0].arity = arity;
    arg[0].idx = UM_PLAN_ALL;
    arg[0].to_size = to;
    arg[0].dim = 2;
    arg[0].esize = 8;
    arg[0].acc = acc;
    memset(&in, 0, sizeof in);
    in.set_size = n;
    in.block_size = 32;
    in.nargs = 1;
    in.args = arg;
  }
};

TEST(VecArgs, PlanColoursEveryTargetAndTheCheckerSeesThem) {
  PlanIn P(1000, 60, 5000, UM_INC);
  um_plan *p = nullptr;
  char err[512] = "";
  ASSERT_EQ(um_plan_build(&P.in, &p, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(um_plan_check(p, &P.in, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(p->arg_ind[0], -1) << "a vector arg is never staged";
  EXPECT_EQ(p->ninds, 0);
  EXPECT_GT(p->nblock_colours, 1);
  // proven here too, independently: no two elements of one block and thread colour, and no two blocks of one
  // block colour, share a target through any index of their rows
  std::vector<long long> owner(5000, -1);
  for (int b = 0; b < p->nblocks; b++)
    for (int c = 0; c < p->nthread_colours[b]; c++) {
      std::fill(owner.begin(), owner.end(), -1);
      for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++) {
        if (p->thread_colour[e] != c) continue;
        for (int j = 0; j < 60; j++) {
          const int t = P.map[(size_t)e * 60 + j];
          EXPECT_TRUE(owner[t] == -1 || owner[t] == e) << "block " << b << " colour " << c << " target " << t;
          owner[t] = e;
        }
      }
    }
  for (int c = 0; c < p->nblock_colours; c++) {
    std::fill(owner.begin(), owner.end(), -1);
    for (int k = p->colour_offset[c]; k < p->colour_offset[c + 1]; k++) {
      const int b = p->block_order[k];
      for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++)
        for (int j = 0; j < 60; j++) {
          const int t = P.map[(size_t)e * 60 + j];
          EXPECT_TRUE(owner[t] == -1 || owner[t] == b) << "block colour " << c << " target " << t;
          owner[t] = b;
        }
    }
  }
  // a plan that ignores the row's other targets must fail the check
  std::vector<int> tc(p->thread_colour, p->thread_colour + p->set_size), ntc(p->nthread_colours,
                                                                            p->nthread_colours + p->nblocks);
  for (int e = 0; e < p->set_size; e++) p->thread_colour[e] = 0;
  for (int b = 0; b < p->nblocks; b++) p->nthread_colours[b] = 1;
  EXPECT_EQ(um_plan_check(p, &P.in, err, sizeof err), UM_ERR_PLAN);
  EXPECT_NE(std::string(err).find("thread colour conflict"), std::string::npos) << err;
  std::copy(tc.begin(), tc.end(), p->thread_colour);
  std::copy(ntc.begin(), ntc.end(), p->nthread_colours);
  EXPECT_EQ(um_plan_check(p, &P.in, err, sizeof err), UM_SUCCESS) << err;
  um_plan_free(p);
}

TEST(VecArgs, PlanOfAVectorReadNeedsNoColours) {
  PlanIn P(1000, 60, 500, UM_READ);
  um_plan *p = nullptr;
  char err[512] = "";
  ASSERT_EQ(um_plan_build(&P.in, &p, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(um_plan_check(p, &P.in, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(p->nblock_colours, 1);
  EXPECT_EQ(p->stats.max_thread_colours, 1);
  um_plan_free(p);
  P.map[5] = 500;  // outside the target set, at an index other than 0
  EXPECT_EQ(um_plan_build(&P.in, &p, err, sizeof err), UM_ERR_ARG);
  EXPECT_NE(std::string(err).find("index 5"), std::string::npos) << "every index of a vector arg is checked: " << err;
}

}  // namespace

// ---- whole-dat arguments (um_arg_whole): every row of a dat, the rows picked by the kernel -------------------

TEST(WholeArgs, ArgWholeIsArgDatWithNoMap) {
  um_arg a = um_arg_whole(nullptr, 2, UM_DOUBLE, UM_READ);
  EXPECT_EQ(a.kind, UM_ARG_DAT);
  EXPECT_EQ(a.idx, UM_WHOLE);
  EXPECT_EQ(a.map, nullptr);
  EXPECT_EQ(a.dim, 2);
}

// READ and INC on a table of another set, AoS and SoA, seq and OpenMP under every strategy it has (INC runs
// by atomics without a plan whatever the strategy), repeated calls (the kernel's row is the same one each time)
TEST(WholeArgs, GatherAndScatterMatchTheSerialReference) {
  const tvw::Mesh m = tvw::make(700, 3, 71);
  const tvw::Whole w = tvw::make_whole(m, 37, 5);
  const std::vector<double> g = tvw::gather_whole_reference(m, w), s = tvw::scatter_whole_reference(m, w, 3);
  for (const char *b : host_backends())
    for (um_strategy st : {UM_STRATEGY_AUTO, UM_STRATEGY_ATOMICS})
      for (um_layout l : {UM_AOS, UM_SOA}) {
        if (!strcmp(b, "seq") && st == UM_STRATEGY_ATOMICS) continue;
        Ctx c(b, 4, 16, st);
        tvw::Decl D = tvw::declare(c.ctx, m);
        const std::string what = std::string(b) + " " + um_strategy_name(st) + " " + um_layout_name(l);
        EXPECT_EQ(tvw::gather_whole(c.ctx, D.cells, m, w, l, "g"), g) << what;
        EXPECT_EQ(tvw::scatter_whole(c.ctx, D.cells, m, w, l, "s", 3), s) << what;
        um_loop_stats ls;
        if (stats_of(c.ctx, "scatter_whole_s", &ls)) EXPECT_EQ(ls.has_plan, 0) << what << ": no plan can colour it";
        if (stats_of(c.ctx, "gather_whole_g", &ls)) EXPECT_EQ(ls.calls, 1) << what;
      }
}

// many threads adding to few rows: 20 000 elements x 4 picks over 37 rows, values 1, so lost updates would show
TEST(WholeArgs, OpenMPIncrementsAreAtomicAndReproducibleModeRunsThemInOrder) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "no OpenMP backend in this build";
  tvw::Mesh m = tvw::make(20000, 3, 3);
  m.q.assign(2 * (size_t)m.n, 1.0);
  const tvw::Whole w = tvw::make_whole(m, 37, 9);
  const std::vector<double> ref = tvw::scatter_whole_reference(m, w);
  for (int repro : {0, 1}) {
    Ctx c("openmp", 8, 64);
    ASSERT_EQ(um_context_set_reproducible(c.ctx, repro), UM_SUCCESS) << c.msg();
    tvw::Decl D = tvw::declare(c.ctx, m);
    EXPECT_EQ(tvw::scatter_whole(c.ctx, D.cells, m, w, UM_AOS, "s"), ref) << "reproducible " << repro;
    um_loop_stats ls;
    if (stats_of(c.ctx, "scatter_whole_s", &ls)) EXPECT_EQ(ls.has_plan, 0);
  }
}

// run.tune has one setting to try for a whole-dat INC loop (it runs by atomics whatever the strategy)
TEST(WholeArgs, TuneTriesOneStrategyForWholeIncrements) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "no OpenMP backend in this build";
  const tvw::Mesh m = tvw::make(500, 3, 13);
  const tvw::Whole w = tvw::make_whole(m, 21, 4);
  um_options o;
  um_options_default(&o);
  o.backend = "openmp";
  o.nthreads = 4;
  um_options_set(&o, "openmp.parallel_threshold", "0");
  um_options_set(&o, "run.cache", "off");
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS) << (ctx ? um_error_message(ctx) : "");
  ASSERT_EQ(um_context_set_tune(ctx, UM_TUNE_ALWAYS), UM_SUCCESS);
  tvw::Decl D = tvw::declare(ctx, m);
  EXPECT_EQ(tvw::scatter_whole(ctx, D.cells, m, w, UM_AOS, "s"), tvw::scatter_whole_reference(m, w))
      << "the trials change no result";
  um_loop_stats st;
  um_tune_info t;
  for (int i = 0; i < um_loop_stats_count(ctx); i++)
    if (um_loop_stats_get(ctx, i, &st) == UM_SUCCESS && std::string(st.name) == "scatter_whole_s" &&
        um_loop_tune_info(ctx, i, &t))
      for (int k = 0; k < t.ntrials; k++)
        for (int j = 0; j < k; j++)
          EXPECT_FALSE(t.trial[k].strategy != t.trial[j].strategy) << "a second strategy was tried";
  um_finalize(&ctx);
}

TEST(WholeArgs, BadArgumentsSayWhatToDo) {
  const tvw::Mesh m = tvw::make(50, 3, 1);
  Ctx c("seq");
  tvw::Decl D = tvw::declare(c.ctx, m);
  um_dat *q = tvw::dat(c.ctx, D.cells, 2, UM_DOUBLE, m.q.data(), "q", UM_AOS);
  um_dat *out = tvw::dat(c.ctx, D.cells, 2, UM_DOUBLE, nullptr, "out", UM_AOS);
  um_arg with_map[2] = {um_arg_dat(q, UM_WHOLE, D.nbr, 2, UM_DOUBLE, UM_READ),
                        um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
  EXPECT_EQ(um_par_loop(c.ctx, &tv_sum_vec_kernel, "with_map", D.cells, 2, with_map), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("takes no map"), std::string::npos) << c.msg();
  um_arg written[2] = {um_arg_whole(q, 2, UM_DOUBLE, UM_RW), um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
  EXPECT_EQ(um_par_loop(c.ctx, &tv_sum_vec_kernel, "written", D.cells, 2, written), UM_ERR_ARG);
  EXPECT_NE(c.msg().find("may only be READ or INC"), std::string::npos) << c.msg();
  um_arg wrong_dim[2] = {um_arg_whole(q, 3, UM_DOUBLE, UM_READ), um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
  EXPECT_EQ(um_par_loop(c.ctx, &tv_sum_vec_kernel, "wrong_dim", D.cells, 2, wrong_dim), UM_ERR_ARG);
  // the whole map is not one of the context's maps (nothing lists, writes or reorders it)
  const int nmaps = um_map_count(c.ctx);
  um_arg ok[2] = {um_arg_whole(q, 2, UM_DOUBLE, UM_READ), um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
  EXPECT_EQ(um_par_loop(c.ctx, &tv_sum_vec_kernel, "ok", D.cells, 2, ok), UM_SUCCESS) << c.msg();
  EXPECT_EQ(um_map_count(c.ctx), nmaps);
  // tv_sum_vec over the whole dat: out = sum over every row i of (i + 1) q[i]
  double s0 = 0;
  for (int i = 0; i < m.n; i++) s0 += (i + 1) * m.q[2 * (size_t)i];
  EXPECT_EQ(tvw::fetch<double>(c.ctx, out, 2 * m.n)[0], s0);
}

// increments to a whole dat beside a per-index increment through a map: OpenMP has atomics for neither together,
// so it refuses the loop, saying what to do; seq runs it
TEST(WholeArgs, OpenMPRefusesWholeIncrementsBesidePerIndexOnes) {
  const tvw::Mesh m = tvw::make(300, 3, 23);
  for (const char *b : host_backends()) {
    Ctx c(b);
    tvw::Decl D = tvw::declare(c.ctx, m);
    um_dat *q = tvw::dat(c.ctx, D.cells, 2, UM_DOUBLE, m.q.data(), "q", UM_AOS);
    um_dat *res = tvw::dat(c.ctx, D.cells, 2, UM_DOUBLE, nullptr, "res", UM_AOS);
    um_dat *r0 = tvw::dat(c.ctx, D.cells, 1, UM_DOUBLE, nullptr, "r0", UM_AOS);
    um_arg a[4] = {um_arg_dat(q, -1, UM_ID, 2, UM_DOUBLE, UM_READ), um_arg_vec(q, D.nbr, 2, UM_DOUBLE, UM_READ),
                   um_arg_whole(res, 2, UM_DOUBLE, UM_INC), um_arg_dat(r0, 0, D.nbr, 1, UM_DOUBLE, UM_INC)};
    const int rc = um_par_loop(c.ctx, &tv_mixed_vec_kernel, "mixed_whole", D.cells, 4, a);
    if (!strcmp(b, "seq")) {
      EXPECT_EQ(rc, UM_SUCCESS) << c.msg();
    } else {
      EXPECT_EQ(rc, UM_ERR_UNSUPPORTED);
      EXPECT_NE(c.msg().find("which no plan can colour"), std::string::npos) << c.msg();
      EXPECT_NE(c.msg().find("um_arg_vec"), std::string::npos) << c.msg();
    }
  }
}

// a whole-dat loop is kept whole by run.split (as every loop with vector arguments) and its useful bytes count
// the table once
TEST(WholeArgs, NeverSplitAndTheTableCountsOnce) {
  const tvw::Mesh m = tvw::make(400, 3, 17);
  const tvw::Whole w = tvw::make_whole(m, 40, 2);
  Ctx c("seq");
  ASSERT_EQ(um_context_set_split(c.ctx, UM_SPLIT_SCATTER), UM_SUCCESS) << c.msg();
  tvw::Decl D = tvw::declare(c.ctx, m);
  EXPECT_EQ(tvw::scatter_whole(c.ctx, D.cells, m, w, UM_AOS, "s"), tvw::scatter_whole_reference(m, w));
  um_loop_stats ls;
  if (stats_of(c.ctx, "scatter_whole_s", &ls)) {
    EXPECT_STREQ(ls.split, "off");
    ASSERT_NE(ls.split_reason, nullptr);
    EXPECT_NE(std::string(ls.split_reason).find("whole-dat argument"), std::string::npos) << ls.split_reason;
    // pick (4 ints) and q (2 doubles) per cell, the table (2 doubles a row) read and written once
    EXPECT_DOUBLE_EQ(ls.bytes, 400.0 * (16 + 16) + 2 * 40.0 * 16);
  }
}
