// Automatic loop splitting (engine/src/transform/split.c; um/um.h: um_context_set_split,
// um_loop_set_split, um_context_set_reproducible): a loop that increments through maps
// runs as "<loop>:contrib" then "<loop>:inc<i>" loops (scatter) or one
// "<loop>:gather". On seq, gather adds every target's contributions in the
// order the whole loop does (element, then argument), so it gives the unsplit
// loop's bits; scatter and OpenMP agree to round-off. Loops that also read the
// incremented dat are kept whole and say why. Reproducible mode gathers every
// such loop and sums floating-point global INC reductions exactly, so its bits
// depend neither on the backend, the thread count, the block size nor the layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "test_context.hpp"
#include "test_files.hpp"
#include "test_random_mesh.hpp"

extern "C" {
#include "um/backend.h"
#include "um/um.h"
extern const um_kernel tk_edge_kernel, tk_cell_kernel, tk_split_two_maps_kernel, tk_split_inc_rw_kernel,
    tk_split_inc_read_kernel, tk_split_minmax_kernel, tk_split_some_paths_kernel, tk_split_sum_kernel, tk_split_dsum_kernel,
    tk_split_signed_zero_kernel, tk_indirect_rw_kernel;
extern double tk_scale;
extern const um_backend_def um_backend_seq;
#include "um/report.h"
}

namespace {

using umtest::Mesh;
using umtest::random_mesh;

#define OK(call) ASSERT_EQ((call), UM_SUCCESS) << um_error_message(ctx)

// What a context runs with: backend, layout, the split mode (the context's), reproducible, threads, block size.
struct Cfg {
  const char *backend = "seq";
  um_layout layout = UM_AOS;
  um_split split = UM_SPLIT_OFF;
  int reproducible = 0;
  int threads = 2;
  int block = 64;
  const char *cache = nullptr;  // non-NULL: loops compiled for their arguments (hostc.compile wait), cached here
};

Cfg with(Cfg c, um_split s, int repro = 0) {
  c.split = s;
  c.reproducible = repro;
  return c;
}

struct Ctx {
  um_context *ctx = nullptr;
  explicit Ctx(const Cfg &c) {
    um_options o;
    um_options_default(&o);
    o.backend = c.backend;
    o.layout = c.layout;
    o.nthreads = c.threads;
    o.block_size = c.block;
    um_options_set(&o, "openmp.parallel_threshold", "0");  // OpenMP: colours and chunks on threads even on small sets
    o.check_plans = 1;
    if (c.cache) {
      um_options_set(&o, "hostc.compile", "wait");
      um_options_set(&o, "hostc.compile_after", "0");
      um_options_set(&o, "run.cache", c.cache);
    }
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS) << um_error_message(ctx);
    if (!ctx) return;
    EXPECT_EQ(um_context_set_split(ctx, c.split), UM_SUCCESS);
    EXPECT_EQ(um_context_set_reproducible(ctx, c.reproducible), UM_SUCCESS);
  }
  ~Ctx() { um_finalize(&ctx); }
  Ctx(const Ctx &) = delete;
  Ctx &operator=(const Ctx &) = delete;
  // the statistics of the loop named `name` (calls == -1: no such record)
  um_loop_stats stats(const std::string &name) const {
    um_loop_stats s;
    memset(&s, 0, sizeof s);
    s.calls = -1;
    for (int i = 0; i < um_loop_stats_count(ctx); i++) {
      um_loop_stats t;
      if (um_loop_stats_get(ctx, i, &t) == UM_SUCCESS && name == t.name) return t;
    }
    return s;
  }
  std::vector<std::string> loop_names() const {
    std::vector<std::string> n;
    um_loop_stats t;
    for (int i = 0; i < um_loop_stats_count(ctx); i++)
      if (um_loop_stats_get(ctx, i, &t) == UM_SUCCESS) n.push_back(t.name);
    return n;
  }
};

template <class T>
std::vector<T> fetch(um_context *ctx, um_dat *d) {
  std::vector<T> v((size_t)um_set_size(um_dat_set(d)) * (size_t)um_dat_dim(d));
  EXPECT_EQ(um_dat_fetch(ctx, d, v.data(), v.size() * sizeof(T)), UM_SUCCESS) << um_error_message(ctx);
  return v;
}

template <class T>
bool same_bits(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() && (a.empty() || memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}
template <class T>
bool same_bits(T a, T b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

template <class T>
void expect_close(const std::vector<T> &got, const std::vector<T> &want, double rel, const char *what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); i++)
    ASSERT_NEAR((double)got[i], (double)want[i], rel * (1.0 + std::fabs((double)want[i]))) << what << "[" << i << "]";
}

bool contains(const char *s, const char *part) { return s && strstr(s, part); }

// One output of a loop run whole, gathered and scattered: on seq the gather adds in the whole loop's order (the
// same bits); both split variants agree with the whole loop to round-off (doubles 1e-12, floats 1e-5).
template <class T>
void expect_split_output(bool seq, const std::vector<T> &whole, const std::vector<T> &gather,
                         const std::vector<T> &scatter, const char *what) {
  const double rel = sizeof(T) == sizeof(float) ? 1e-5 : 1e-12;
  if (seq) EXPECT_TRUE(same_bits(gather, whole)) << what;
  expect_close(gather, whole, rel, what);
  expect_close(scatter, whole, rel, what);
}

// ---- the Airfoil pattern: tk_edge (r INC at both ends of pedge, f float INC, a global sum and count),
// tk_cell (n INC at the four corners of pcell, global MAX and float MIN) ----
struct EdgeCell {
  std::vector<double> r, n;
  std::vector<float> f;
  double esum = 0, qmax = 0;
  float fmin = 0;
  int cnt = 0;
};

void run_edge_cell(um_context *ctx, const Mesh &m, EdgeCell *out, int reps = 2) {
  um_set *nodes, *edges, *cells;
  um_map *pedge, *pcell;
  um_dat *u, *w, *q, *r, *f, *n;
  OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
  OK(um_decl_set(ctx, m.nedge, "edges", &edges));
  OK(um_decl_set(ctx, m.ncell, "cells", &cells));
  OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
  OK(um_decl_map(ctx, cells, nodes, 4, m.cell.data(), "pcell", &pcell));
  OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.u.data(), "u", &u));
  OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, m.w.data(), "w", &w));
  OK(um_decl_dat(ctx, cells, 3, UM_DOUBLE, m.q.data(), "q", &q));
  OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.c.data(), "r", &r));
  OK(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f));
  OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, m.a.data(), "n", &n));
  double g[2] = {1.25, -0.5};
  out->esum = 0.5;
  out->cnt = 0;
  for (int rep = 0; rep < reps; rep++)
    OK(UM_PAR_LOOP(ctx, tk_edge_kernel, "tk_edge", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                   um_arg_dat(u, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, pedge, 2, UM_DOUBLE, UM_READ),
                   um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                   um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC), um_arg_gbl(&out->esum, 1, UM_DOUBLE, UM_INC),
                   um_arg_gbl(&out->cnt, 1, UM_INT, UM_INC), um_arg_gbl(g, 2, UM_DOUBLE, UM_READ)));
  out->qmax = -1;
  out->fmin = 1e30f;
  OK(UM_PAR_LOOP(ctx, tk_cell_kernel, "tk_cell", cells, um_arg_dat(q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                 um_arg_dat(n, 0, pcell, 3, UM_DOUBLE, UM_INC), um_arg_dat(n, 1, pcell, 3, UM_DOUBLE, UM_INC),
                 um_arg_dat(n, 2, pcell, 3, UM_DOUBLE, UM_INC), um_arg_dat(n, 3, pcell, 3, UM_DOUBLE, UM_INC),
                 um_arg_gbl(&out->qmax, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&out->fmin, 1, UM_FLOAT, UM_MIN)));
  out->r = fetch<double>(ctx, r);
  out->n = fetch<double>(ctx, n);
  out->f = fetch<float>(ctx, f);
}

void expect_same_bits(const EdgeCell &a, const EdgeCell &b) {
  EXPECT_TRUE(same_bits(a.r, b.r)) << "r (INC through pedge, idx 0 and 1)";
  EXPECT_TRUE(same_bits(a.n, b.n)) << "n (INC through pcell, idx 0..3)";
  EXPECT_TRUE(same_bits(a.f, b.f)) << "f (float INC)";
  EXPECT_TRUE(same_bits(a.esum, b.esum)) << "global sum " << a.esum << " " << b.esum;
  EXPECT_TRUE(same_bits(a.qmax, b.qmax)) << "global MAX";
  EXPECT_TRUE(same_bits(a.fmin, b.fmin)) << "global float MIN";
  EXPECT_EQ(a.cnt, b.cnt);
}

void expect_close(const EdgeCell &a, const EdgeCell &b) {
  expect_close(a.r, b.r, 1e-12, "r");
  expect_close(a.n, b.n, 1e-12, "n");
  expect_close(a.f, b.f, 1e-5, "f");
  EXPECT_NEAR(a.esum, b.esum, 1e-12 * std::fabs(b.esum));
  EXPECT_EQ(a.qmax, b.qmax);
  EXPECT_EQ(a.fmin, b.fmin);
  EXPECT_EQ(a.cnt, b.cnt);
}

// every mode on seq and openmp, AoS and SoA
struct Case {
  const char *backend;
  um_layout layout;
};
void PrintTo(const Case &c, std::ostream *os) { *os << c.backend << (c.layout == UM_SOA ? " soa" : " aos"); }
std::string case_name(const ::testing::TestParamInfo<Case> &i) {
  return std::string(i.param.backend) + (i.param.layout == UM_SOA ? "_soa" : "_aos");
}

class Split : public ::testing::TestWithParam<Case> {
 protected:
  Cfg base;
  void SetUp() override {
    if (um_backend_available(GetParam().backend) != 1) GTEST_SKIP() << GetParam().backend << " not built";
    base.backend = GetParam().backend;
    base.layout = GetParam().layout;
  }
  bool seq() const { return !strcmp(base.backend, "seq"); }
};

// INC through one map twice (idx 0 and 1) and through four corners: gather on seq gives the unsplit
// loop's bits; scatter and OpenMP agree to round-off; the statistics say what ran.
TEST_P(Split, IncThroughOneMapTwice) {
  const Mesh m = random_mesh(300, 1000, 200, 11u);
  EdgeCell whole, gather, scatter;
  {
    Ctx c(with(base, UM_SPLIT_OFF));
    run_edge_cell(c.ctx, m, &whole);
    EXPECT_STREQ(c.stats("tk_edge").split, "off");
  }
  if (HasFatalFailure()) return;
  {
    Ctx c(with(base, UM_SPLIT_GATHER));
    run_edge_cell(c.ctx, m, &gather);
    if (HasFatalFailure()) return;
    for (const char *l : {"tk_edge", "tk_cell"}) {
      const um_loop_stats s = c.stats(l);
      EXPECT_STREQ(s.split, "gather") << l << ": " << (s.split_reason ? s.split_reason : "");
      EXPECT_EQ(c.stats(std::string(l) + ":contrib").calls, s.calls) << l;
      EXPECT_EQ(c.stats(std::string(l) + ":gather").calls, s.calls) << l;
    }
    EXPECT_EQ(c.stats("tk_edge").calls, 2);
  }
  {
    Ctx c(with(base, UM_SPLIT_SCATTER));
    run_edge_cell(c.ctx, m, &scatter);
    if (HasFatalFailure()) return;
    EXPECT_STREQ(c.stats("tk_edge").split, "scatter");
    for (const char *l : {"tk_edge:contrib", "tk_edge:inc3", "tk_edge:inc4", "tk_edge:inc5"})
      EXPECT_EQ(c.stats(l).calls, 2) << l;
    for (const char *l : {"tk_cell:inc1", "tk_cell:inc2", "tk_cell:inc3", "tk_cell:inc4"})
      EXPECT_EQ(c.stats(l).calls, 1) << l;
    EXPECT_EQ(c.stats("tk_edge:gather").calls, -1) << "scatter makes no gather";
  }
  EXPECT_NE(whole.qmax, -1) << "the loops did something";
  if (seq()) expect_same_bits(gather, whole);  // element order, then argument order: the same additions
  expect_close(gather, whole);
  expect_close(scatter, whole);
}

// tk_split_two_maps's mesh: edges -> nodes (pedge) and edges -> cells (pecell, from ecell); w on the edges, x and
// n on the nodes, c0 (double) and c1 (float) on the cells.
struct TwoMaps {
  um_set *nodes = nullptr, *edges = nullptr, *cells = nullptr;
  um_map *pedge = nullptr, *pec = nullptr;
  um_dat *w = nullptr, *x = nullptr, *n = nullptr, *c0 = nullptr, *c1 = nullptr;
  void declare(um_context *ctx, const Mesh &m, const std::vector<int> &ecell) {
    OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
    OK(um_decl_set(ctx, m.nedge, "edges", &edges));
    OK(um_decl_set(ctx, m.ncell, "cells", &cells));
    OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
    OK(um_decl_map(ctx, edges, cells, 2, ecell.data(), "pecell", &pec));
    OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, m.w.data(), "w", &w));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.x.data(), "x", &x));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.v.data(), "n", &n));
    OK(um_decl_dat(ctx, cells, 1, UM_DOUBLE, m.q.data(), "c0", &c0));
    OK(um_decl_dat(ctx, cells, 1, UM_FLOAT, nullptr, "c1", &c1));
  }
};

// INC through two maps of one set (edges -> nodes and edges -> cells), a float dat among them.
TEST_P(Split, IncThroughTwoMaps) {
  const Mesh m = random_mesh(150, 600, 120, 5u);
  std::vector<int> ecell(2 * (size_t)m.nedge);
  for (size_t i = 0; i < ecell.size(); i++) ecell[i] = (int)((i * 7919u + 13u) % (size_t)m.ncell);
  struct Out {
    std::vector<double> n, c0;
    std::vector<float> c1;
  };
  auto run = [&](um_split mode, Out *o) {
    Ctx c(with(base, mode));
    um_context *ctx = c.ctx;
    TwoMaps t;
    t.declare(ctx, m, ecell);
    if (HasFatalFailure()) return;
    um_set *edges = t.edges;
    um_map *pedge = t.pedge, *pec = t.pec;
    um_dat *w = t.w, *x = t.x, *n = t.n, *c0 = t.c0, *c1 = t.c1;
    for (int rep = 0; rep < 3; rep++)
      OK(UM_PAR_LOOP(ctx, tk_split_two_maps_kernel, "two_maps", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                     um_arg_dat(x, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(x, 1, pedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(n, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(n, 1, pedge, 2, UM_DOUBLE, UM_INC),
                     um_arg_dat(c0, 0, pec, 1, UM_DOUBLE, UM_INC), um_arg_dat(c1, 1, pec, 1, UM_FLOAT, UM_INC)));
    const um_loop_stats s = c.stats("two_maps");
    EXPECT_STREQ(s.split, um_split_name(mode)) << (s.split_reason ? s.split_reason : "");
    if (mode == UM_SPLIT_SCATTER)
      for (int i = 3; i <= 6; i++) EXPECT_EQ(c.stats("two_maps:inc" + std::to_string(i)).calls, 3) << i;
    if (mode == UM_SPLIT_GATHER) EXPECT_EQ(c.stats("two_maps:gather").calls, 3);
    // temporaries: one row per edge for each of the four increments (2 + 2 + 1 doubles, 1 float)
    if (mode != UM_SPLIT_OFF) EXPECT_EQ(s.temp_bytes, (double)m.nedge * (5 * 8 + 4));
    o->n = fetch<double>(ctx, n);
    o->c0 = fetch<double>(ctx, c0);
    o->c1 = fetch<float>(ctx, c1);
  };
  Out whole, gather, scatter;
  run(UM_SPLIT_OFF, &whole);
  run(UM_SPLIT_GATHER, &gather);
  run(UM_SPLIT_SCATTER, &scatter);
  if (HasFatalFailure()) return;
  expect_split_output(seq(), whole.n, gather.n, scatter.n, "n");
  expect_split_output(seq(), whole.c0, gather.c0, scatter.c0, "c0");
  expect_split_output(seq(), whole.c1, gather.c1, scatter.c1, "c1");
  EXPECT_NE(whole.c1, std::vector<float>(whole.c1.size(), 0.0f)) << "the float increments did something";
}

// RW through a map on another dat than the one incremented: split, the contribution loop kept coloured.
TEST_P(Split, IncWithRwOfAnotherDat) {
  const Mesh m = random_mesh(200, 700, 1, 3u);
  std::vector<double> w(m.nedge);
  for (int e = 0; e < m.nedge; e++) w[e] = 0.5 * (double)((e * 37) % 9 - 4);  // exact sums in any order
  struct Out {
    std::vector<double> r, v;
  };
  auto run = [&](um_split mode, Out *o) {
    Ctx c(with(base, mode));
    um_context *ctx = c.ctx;
    um_set *nodes, *edges;
    um_map *pedge;
    um_dat *dw, *r, *v;
    OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
    OK(um_decl_set(ctx, m.nedge, "edges", &edges));
    OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
    OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, w.data(), "w", &dw));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, nullptr, "r", &r));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, nullptr, "v", &v));
    for (int rep = 0; rep < 2; rep++)
      OK(UM_PAR_LOOP(ctx, tk_split_inc_rw_kernel, "inc_rw", edges, um_arg_dat(dw, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                     um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                     um_arg_dat(v, 0, pedge, 2, UM_DOUBLE, UM_RW)));
    const um_loop_stats s = c.stats("inc_rw");
    EXPECT_STREQ(s.split, um_split_name(mode)) << (s.split_reason ? s.split_reason : "");
    if (mode != UM_SPLIT_OFF && !seq())  // the RW through a map still needs the contribution loop's colours
      EXPECT_EQ(c.stats("inc_rw:contrib").has_plan, 1);
    o->r = fetch<double>(ctx, r);
    o->v = fetch<double>(ctx, v);
  };
  Out whole, gather, scatter;
  run(UM_SPLIT_OFF, &whole);
  run(UM_SPLIT_GATHER, &gather);
  run(UM_SPLIT_SCATTER, &scatter);
  if (HasFatalFailure()) return;
  for (const Out *o : {&gather, &scatter}) {
    EXPECT_TRUE(same_bits(o->r, whole.r)) << "r";
    EXPECT_TRUE(same_bits(o->v, whole.v)) << "v";
  }
  double vsum = 0;
  for (size_t i = 0; i < whole.v.size(); i += 2) vsum += std::fabs(whole.v[i]);
  EXPECT_GT(vsum, 0) << "the RW did something";
}

// INC and READ of the same dat through a map: the result would depend on the order elements run in, so the loop is
// refused in every mode (um_par_loop's argument check), before any split is considered.
TEST_P(Split, IncAndReadOfOneDatIsRefused) {
  const Mesh m = random_mesh(100, 300, 1, 4u);
  for (int repro : {0, 1})
    for (um_split mode : {UM_SPLIT_OFF, UM_SPLIT_GATHER, UM_SPLIT_SCATTER}) {
      SCOPED_TRACE(std::string(um_split_name(mode)) + (repro ? " reproducible" : ""));
      Ctx c(with(base, mode, repro));
      um_context *ctx = c.ctx;
      um_set *nodes, *edges;
      um_map *pedge;
      um_dat *r;
      OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
      OK(um_decl_set(ctx, m.nedge, "edges", &edges));
      OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
      OK(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, m.a.data(), "r", &r));
      EXPECT_EQ(UM_PAR_LOOP(ctx, tk_split_inc_read_kernel, "inc_read", edges,
                            um_arg_dat(r, 1, pedge, 1, UM_DOUBLE, UM_READ), um_arg_dat(r, 0, pedge, 1, UM_DOUBLE, UM_INC)),
                UM_ERR_ARG);
      EXPECT_TRUE(contains(um_error_message(ctx), "dat 'r' is incremented by arg 1 (through a map) and read by arg 0"))
          << um_error_message(ctx);
      EXPECT_EQ(um_context_temp_count(ctx), 0);
    }
}

// Global MIN and MAX inside a split loop: the right values (and the increments too).
TEST_P(Split, MinAndMaxInASplitLoop) {
  const Mesh m = random_mesh(120, 500, 1, 8u);
  double mn0 = 1e300, mx0 = -1e300;
  std::vector<double> r0(m.nnode, 0.0);
  for (int e = 0; e < m.nedge; e++) {
    const double d = m.x[2 * (size_t)m.edge[2 * e + 1]] - m.x[2 * (size_t)m.edge[2 * e]];
    mn0 = std::min(mn0, d);
    mx0 = std::max(mx0, d);
    r0[m.edge[2 * e]] += d;
    r0[m.edge[2 * e + 1]] -= d;
  }
  for (int repro : {0, 1})
    for (um_split mode : {UM_SPLIT_OFF, UM_SPLIT_GATHER, UM_SPLIT_SCATTER}) {
      SCOPED_TRACE(std::string(um_split_name(mode)) + (repro ? " reproducible" : ""));
      Ctx c(with(base, mode, repro));
      um_context *ctx = c.ctx;
      um_set *nodes, *edges;
      um_map *pedge;
      um_dat *x, *rd;
      OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
      OK(um_decl_set(ctx, m.nedge, "edges", &edges));
      OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
      OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.x.data(), "x", &x));
      OK(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, nullptr, "r", &rd));
      double mn = 1e300, mx = -1e300;
      OK(UM_PAR_LOOP(ctx, tk_split_minmax_kernel, "minmax", edges, um_arg_dat(x, 0, pedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(x, 1, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(rd, 0, pedge, 1, UM_DOUBLE, UM_INC),
                     um_arg_dat(rd, 1, pedge, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&mn, 1, UM_DOUBLE, UM_MIN),
                     um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX)));
      EXPECT_STREQ(c.stats("minmax").split, repro ? "gather" : um_split_name(mode));
      EXPECT_EQ(mn, mn0);
      EXPECT_EQ(mx, mx0);
      EXPECT_LT(mn, 0);
      EXPECT_GT(mx, 0);
      // MIN then MAX again from values that are not the start: the user's value takes part
      double mn2 = -1e300, mx2 = 1e300;
      OK(UM_PAR_LOOP(ctx, tk_split_minmax_kernel, "minmax", edges, um_arg_dat(x, 0, pedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(x, 1, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(rd, 0, pedge, 1, UM_DOUBLE, UM_INC),
                     um_arg_dat(rd, 1, pedge, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&mn2, 1, UM_DOUBLE, UM_MIN),
                     um_arg_gbl(&mx2, 1, UM_DOUBLE, UM_MAX)));
      EXPECT_EQ(mn2, -1e300);
      EXPECT_EQ(mx2, 1e300);
      std::vector<double> r = fetch<double>(ctx, rd);
      for (int i = 0; i < m.nnode; i++) ASSERT_NEAR(r[i], 2 * r0[i], 1e-12 * (1 + std::fabs(r0[i]))) << i;
    }
}

// One dat incremented through two maps of one set, and one loop name run on two different dats in turn
// (two shapes of the loop, each with its own inverse maps, sharing the temporaries).
TEST_P(Split, OneDatThroughTwoMapsAndTwoShapes) {
  const Mesh m = random_mesh(160, 700, 1, 14u);
  std::vector<int> pedge2(m.edge.rbegin(), m.edge.rend());  // another edges -> nodes map
  struct Out {
    std::vector<double> r, s;
    std::vector<float> f;
    double sum[2];
  };
  auto run = [&](um_split mode, Out *o) {
    Ctx c(with(base, mode));
    um_context *ctx = c.ctx;
    um_set *nodes, *edges;
    um_map *p1, *p2;
    um_dat *u, *w, *r, *s, *f;
    OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
    OK(um_decl_set(ctx, m.nedge, "edges", &edges));
    OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &p1));
    OK(um_decl_map(ctx, edges, nodes, 2, pedge2.data(), "pedge2", &p2));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.u.data(), "u", &u));
    OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, m.w.data(), "w", &w));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.c.data(), "r", &r));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.v.data(), "s", &s));
    OK(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f));
    double g[2] = {0.75, 1.5};
    for (int rep = 0; rep < 4; rep++) {
      um_dat *t = rep % 2 ? s : r;  // r, s, r, s
      int cnt = 0;
      o->sum[rep % 2] = 0;
      OK(UM_PAR_LOOP(ctx, tk_edge_kernel, "tk_edge", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                     um_arg_dat(u, 0, p1, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, p2, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(t, 0, p1, 2, UM_DOUBLE, UM_INC), um_arg_dat(t, 1, p2, 2, UM_DOUBLE, UM_INC),
                     um_arg_dat(f, 1, p1, 1, UM_FLOAT, UM_INC), um_arg_gbl(&o->sum[rep % 2], 1, UM_DOUBLE, UM_INC),
                     um_arg_gbl(&cnt, 1, UM_INT, UM_INC), um_arg_gbl(g, 2, UM_DOUBLE, UM_READ)));
      EXPECT_EQ(cnt, m.nedge);
    }
    EXPECT_STREQ(c.stats("tk_edge").split, um_split_name(mode));
    if (mode != UM_SPLIT_OFF) EXPECT_EQ(c.stats("tk_edge:contrib").calls, 4);
    if (mode != UM_SPLIT_OFF) EXPECT_EQ(um_context_temp_count(ctx), 3) << "the two shapes share the temporaries";
    o->r = fetch<double>(ctx, r);
    o->s = fetch<double>(ctx, s);
    o->f = fetch<float>(ctx, f);
  };
  Out whole, gather, scatter;
  run(UM_SPLIT_OFF, &whole);
  run(UM_SPLIT_GATHER, &gather);
  run(UM_SPLIT_SCATTER, &scatter);
  if (HasFatalFailure()) return;
  expect_split_output(seq(), whole.r, gather.r, scatter.r, "r");
  expect_split_output(seq(), whole.s, gather.s, scatter.s, "s");
  expect_split_output(seq(), whole.f, gather.f, scatter.f, "f");
  for (const Out *o : {&gather, &scatter}) {
    EXPECT_NEAR(o->sum[0], whole.sum[0], 1e-12 * std::fabs(whole.sum[0]));
    EXPECT_NEAR(o->sum[1], whole.sum[1], 1e-12 * std::fabs(whole.sum[1]));
  }
  EXPECT_FALSE(same_bits(whole.r, whole.s));
}

// A loop's globals may live at other addresses on every call (a caller's stack): each call's own are read
// and reduced into (READ, MIN and MAX ones are passed to the contribution loop as they are).
TEST_P(Split, GlobalsAtOtherAddressesOnEveryCall) {
  const Mesh m = random_mesh(100, 400, 1, 12u);
  auto run = [&](um_split mode, int repro, std::vector<double> *r_out, std::vector<double> *mm) {
    Ctx c(with(base, mode, repro));
    um_context *ctx = c.ctx;
    um_set *nodes, *edges;
    um_map *pedge;
    um_dat *u, *w, *r, *f, *x, *rd;
    OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
    OK(um_decl_set(ctx, m.nedge, "edges", &edges));
    OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.u.data(), "u", &u));
    OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, m.w.data(), "w", &w));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.c.data(), "r", &r));
    OK(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.x.data(), "x", &x));
    OK(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, nullptr, "rd", &rd));
    std::vector<std::vector<double>> g = {{1.25, -0.5}, {-3.0, 2.0}, {0.5, 0.75}};  // three addresses
    for (auto &gg : g) {
      std::vector<double> sum(1, 0.0);
      std::vector<int> cnt(1, 0);
      OK(UM_PAR_LOOP(ctx, tk_edge_kernel, "tk_edge", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                     um_arg_dat(u, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, pedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                     um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC), um_arg_gbl(sum.data(), 1, UM_DOUBLE, UM_INC),
                     um_arg_gbl(cnt.data(), 1, UM_INT, UM_INC), um_arg_gbl(gg.data(), 2, UM_DOUBLE, UM_READ)));
      mm->push_back(sum[0]);
      EXPECT_EQ(cnt[0], m.nedge);
    }
    // MIN and MAX: the first call's results are more extreme than the second call's
    std::vector<double> xs(m.x);
    for (int call = 0; call < 2; call++) {
      if (call) {
        for (double &v : xs) v *= 0.25;
        OK(um_dat_update(ctx, x, xs.data(), xs.size() * sizeof(double)));
      }
      std::vector<double> mn(1 + call, 1e300), mx(1 + call, -1e300);  // new addresses
      OK(UM_PAR_LOOP(ctx, tk_split_minmax_kernel, "minmax", edges, um_arg_dat(x, 0, pedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(x, 1, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(rd, 0, pedge, 1, UM_DOUBLE, UM_INC),
                     um_arg_dat(rd, 1, pedge, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&mn[call], 1, UM_DOUBLE, UM_MIN),
                     um_arg_gbl(&mx[call], 1, UM_DOUBLE, UM_MAX)));
      mm->push_back(mn[call]);
      mm->push_back(mx[call]);
    }
    *r_out = fetch<double>(ctx, r);
  };
  std::vector<double> r0, mm0;
  run(UM_SPLIT_OFF, 0, &r0, &mm0);
  for (int repro : {0, 1})
    for (um_split mode : {UM_SPLIT_GATHER, UM_SPLIT_SCATTER}) {
      SCOPED_TRACE(std::string(um_split_name(mode)) + (repro ? " reproducible" : ""));
      std::vector<double> r, mm;
      run(mode, repro, &r, &mm);
      if (HasFatalFailure()) return;
      if (seq() && mode == UM_SPLIT_GATHER) EXPECT_TRUE(same_bits(r, r0));
      expect_close(r, r0, 1e-12, "r");
      expect_close(mm, mm0, 1e-12, "sums, MIN and MAX");
    }
  EXPECT_NE(mm0[3], mm0[5]) << "the MIN differs between the calls";
}

// Iteration sets of 0 and 1 elements (and a target set of 0 rows under an empty loop).
TEST_P(Split, EmptyAndOneElementSets) {
  for (int nedge : {0, 1})
    for (int nnode : {0, 2}) {
      if (nedge && !nnode) continue;
      const Mesh m = random_mesh(nnode, nedge, nnode ? 1 : 0, 21u);
      EdgeCell whole;
      for (int repro : {0, 1})
        for (um_split mode : {UM_SPLIT_OFF, UM_SPLIT_GATHER, UM_SPLIT_SCATTER}) {
          SCOPED_TRACE("nedge " + std::to_string(nedge) + " nnode " + std::to_string(nnode) + " " +
                       um_split_name(mode) + (repro ? " reproducible" : ""));
          Ctx c(with(base, mode, repro));
          EdgeCell got;
          run_edge_cell(c.ctx, m, &got);
          if (HasFatalFailure()) return;
          EXPECT_STREQ(c.stats("tk_edge").split, repro ? "gather" : um_split_name(mode));
          if (mode == UM_SPLIT_OFF && !repro) {
            whole = got;
            continue;
          }
          EXPECT_EQ(got.cnt, 2 * nedge);
          if (seq() || nedge == 0) expect_same_bits(got, whole);
          else expect_close(got, whole);
        }
      if (nedge == 0) {  // nothing ran: the dats are as declared, the sum the user's
        EXPECT_EQ(whole.esum, 0.5);
        for (float v : whole.f) EXPECT_EQ(v, 0.0f);
      } else {
        EXPECT_NE(whole.esum, 0.5);
      }
    }
}

// A kernel that increments only on some paths: the temporaries start from zero on every call.
TEST_P(Split, IncrementsOnSomePathsOnly) {
  const Mesh m = random_mesh(90, 400, 1, 9u);
  std::vector<double> w(m.nedge);
  for (int e = 0; e < m.nedge; e++) w[e] = (e % 3 == 0 ? -1.0 : 1.0) * m.w[e];  // (-1, -0.1] or [0.1, 1)
  auto run = [&](um_split mode, int repro, std::vector<double> *out) {
    Ctx c(with(base, mode, repro));
    um_context *ctx = c.ctx;
    um_set *nodes, *edges;
    um_map *pedge;
    um_dat *dw, *r;
    OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
    OK(um_decl_set(ctx, m.nedge, "edges", &edges));
    OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
    OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, w.data(), "w", &dw));
    OK(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, m.a.data(), "r", &r));
    for (int rep = 0; rep < 3; rep++)
      OK(UM_PAR_LOOP(ctx, tk_split_some_paths_kernel, "some_paths", edges,
                     um_arg_dat(dw, -1, UM_ID, 1, UM_DOUBLE, UM_READ), um_arg_dat(r, 0, pedge, 1, UM_DOUBLE, UM_INC),
                     um_arg_dat(r, 1, pedge, 1, UM_DOUBLE, UM_INC)));
    *out = fetch<double>(ctx, r);
  };
  std::vector<double> whole, gather, scatter, repro;
  run(UM_SPLIT_OFF, 0, &whole);
  run(UM_SPLIT_GATHER, 0, &gather);
  run(UM_SPLIT_SCATTER, 0, &scatter);
  run(UM_SPLIT_OFF, 1, &repro);
  if (HasFatalFailure()) return;
  // by hand: three calls
  std::vector<double> want(m.a.begin(), m.a.begin() + m.nnode);
  for (int rep = 0; rep < 3; rep++)
    for (int e = 0; e < m.nedge; e++) {
      if (w[e] > 0) want[m.edge[2 * e]] += w[e];
      if (w[e] < -0.5) want[m.edge[2 * e + 1]] += w[e] * w[e];
    }
  expect_close(whole, want, 1e-12, "whole");
  if (seq()) {
    EXPECT_TRUE(same_bits(gather, whole));
    EXPECT_TRUE(same_bits(repro, whole));
    EXPECT_TRUE(same_bits(whole, want)) << "seq adds in element order, as done here";
  }
  expect_close(gather, whole, 1e-12, "gather");
  expect_close(scatter, whole, 1e-12, "scatter");
  expect_close(repro, whole, 1e-12, "reproducible");
}

// The signed-zero tests' loop: r (dim 2) incremented at both ends of pedge, f (float) at the second end, by
// tk_split_signed_zero, in a context of the mode's split, reproducible mode and compiled loops.
struct SplitMode {
  um_split split;
  int repro, compiled;
};
std::string mode_name(const SplitMode &md) {
  return std::string(um_split_name(md.split)) + (md.repro ? " reproducible" : "") + (md.compiled ? " compiled" : "");
}
// base in the mode; compiled loops cached in dir (which must outlive the context)
Cfg mode_cfg(const Cfg &base, const SplitMode &md, const std::string &dir) {
  Cfg c = with(base, md.split, md.repro);
  if (md.compiled) c.cache = dir.c_str();
  return c;
}
struct ZeroLoop {
  um_dat *dw = nullptr, *r = nullptr, *f = nullptr;
  um_set *edges = nullptr;
  um_map *pedge = nullptr;
  void declare(um_context *ctx, const Mesh &m, const std::vector<double> &w, const std::vector<double> &r0,
               const float *f0, bool compiled) {
    um_set *nodes;
    if (compiled) OK(um_decl_const(ctx, "tk_scale", 1, UM_DOUBLE, &tk_scale));  // the kernel header's constant
    OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
    OK(um_decl_set(ctx, m.nedge, "edges", &edges));
    OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
    OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, w.data(), "w", &dw));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, r0.data(), "r", &r));
    OK(um_decl_dat(ctx, nodes, 1, UM_FLOAT, f0, "f", &f));
  }
  void run(um_context *ctx, const char *name) {
    OK(UM_PAR_LOOP(ctx, tk_split_signed_zero_kernel, name, edges, um_arg_dat(dw, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                   um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                   um_arg_dat(f, 1, pedge, 1, UM_FLOAT, UM_INC)));
  }
};

// Signed zeros: a target the loop adds only zeros to keeps the sign IEEE addition gives it, -0.0 if it was -0.0
// and every addend is -0.0 (or there is none), else +0.0, whatever the order of the additions; so every mode,
// backend and layout gives the bits of the sequential adds. Increments start from -0.0 (x + -0.0 is x): from
// +0.0, a split loop's contributions and SoA's staged rows would turn such -0.0 targets into +0.0.
TEST_P(Split, SignedZeroTargetsKeepTheirSign) {
  const Mesh m = random_mesh(80, 300, 1, 17u);
  std::vector<double> w(m.nedge), r0(2 * (size_t)m.nnode);
  std::vector<float> f0(m.nnode);
  for (int e = 0; e < m.nedge; e++) w[e] = e % 5 == 0 ? 0.0 : -0.0;
  for (int i = 0; i < m.nnode; i++) {
    for (int c = 0; c < 2; c++) r0[2 * i + c] = (i + c) % 2 ? 0.0 : -0.0;
    f0[i] = i % 3 ? -0.0f : 0.0f;
  }
  // by hand: the kernel's additions in element order
  std::vector<double> want_r = r0;
  std::vector<float> want_f = f0;
  for (int e = 0; e < m.nedge; e++) {
    const int a = m.edge[2 * e], b = m.edge[2 * e + 1];
    want_r[2 * a] += w[e];
    want_r[2 * a + 1] -= w[e];
    want_f[b] += (float)w[e];
  }
  int neg = 0, pos = 0;
  for (double v : want_r) (std::signbit(v) ? neg : pos)++;
  for (float v : want_f) (std::signbit(v) ? neg : pos)++;
  ASSERT_GT(neg, 10) << "some targets end -0.0";
  ASSERT_GT(pos, 10) << "some targets end +0.0";
  umtest::TempDir cache("split_signed_zero");
  const std::string dir = cache.dir.string();
  for (SplitMode md : {SplitMode{UM_SPLIT_OFF, 0, 0}, SplitMode{UM_SPLIT_GATHER, 0, 0}, SplitMode{UM_SPLIT_SCATTER, 0, 0},
                       SplitMode{UM_SPLIT_OFF, 1, 0}, SplitMode{UM_SPLIT_OFF, 0, 1}, SplitMode{UM_SPLIT_GATHER, 0, 1}}) {
    SCOPED_TRACE(mode_name(md));
    Ctx c(mode_cfg(base, md, dir));
    um_context *ctx = c.ctx;
    ZeroLoop z;
    z.declare(ctx, m, w, r0, f0.data(), md.compiled);
    if (HasFatalFailure()) return;
    z.run(ctx, "signed_zero");
    if (HasFatalFailure()) return;
    um_dat *r = z.r, *f = z.f;
    EXPECT_STREQ(c.stats("signed_zero").split, md.repro ? "gather" : um_split_name(md.split));
    if (md.compiled) EXPECT_EQ(c.stats(md.split ? "signed_zero:contrib" : "signed_zero").compiled_calls, 1);
    const std::vector<double> got_r = fetch<double>(ctx, r);
    const std::vector<float> got_f = fetch<float>(ctx, f);
    ASSERT_EQ(got_r.size(), want_r.size());
    for (size_t i = 0; i < got_r.size(); i++)
      ASSERT_TRUE(same_bits(got_r[i], want_r[i])) << "r[" << i / 2 << "][" << i % 2 << "] is " << got_r[i]
                                                  << ", the sequential adds give " << want_r[i];
    ASSERT_EQ(got_f.size(), want_f.size());
    for (size_t i = 0; i < got_f.size(); i++)
      ASSERT_TRUE(same_bits(got_f[i], want_f[i])) << "f[" << i << "] is " << got_f[i]
                                                  << ", the sequential adds give " << want_f[i];
  }
}

// A contribution temporary's rows are written by the contribution loop, never read: the host backends stage each
// row from -0.0 and store it (contrib_store: the core does not clear the temporaries first). Rows poisoned with NaN
// between two calls change nothing: the second call gives the bits of the whole loop run twice, generic and
// compiled, gathered and reproducible.
TEST_P(Split, ContributionRowsAreWrittenNotRead) {
  const Mesh m = random_mesh(90, 320, 1, 23u);
  std::vector<double> w(m.nedge), r0(2 * (size_t)m.nnode, 0.25);
  for (int e = 0; e < m.nedge; e++) w[e] = 0.125 * (e % 7) - 0.3;
  umtest::TempDir cache("split_contrib_store");
  const std::string dir = cache.dir.string();
  std::vector<double> whole;
  for (SplitMode md : {SplitMode{UM_SPLIT_OFF, 0, 0}, SplitMode{UM_SPLIT_GATHER, 0, 0}, SplitMode{UM_SPLIT_GATHER, 0, 1},
                       SplitMode{UM_SPLIT_OFF, 1, 0}, SplitMode{UM_SPLIT_OFF, 1, 1}}) {
    SCOPED_TRACE(mode_name(md));
    Ctx c(mode_cfg(base, md, dir));
    um_context *ctx = c.ctx;
    ZeroLoop z;
    z.declare(ctx, m, w, r0, nullptr, md.compiled);
    if (HasFatalFailure()) return;
    for (int rep = 0; rep < 2; rep++) {
      for (int t = 0; rep && t < um_context_temp_count(ctx); t++) {  // poison every contribution row
        um_dat *d = um_context_temp_at(ctx, t);
        std::vector<double> nan((size_t)um_set_size(um_dat_set(d)) * (size_t)um_dat_dim(d) *
                                    um_type_size(um_dat_type(d)) / sizeof(double),
                                std::numeric_limits<double>::quiet_NaN());
        OK(um_dat_update(ctx, d, nan.data(), nan.size() * sizeof(double)));
      }
      z.run(ctx, "contrib_store");
      if (HasFatalFailure()) return;
    }
    const bool split = md.split != UM_SPLIT_OFF || md.repro;
    EXPECT_STREQ(c.stats("contrib_store").split, split ? "gather" : "off");
    if (split) EXPECT_GT(um_context_temp_count(ctx), 0);
    if (md.compiled) EXPECT_EQ(c.stats("contrib_store:contrib").compiled_calls, 2);
    const std::vector<double> got = fetch<double>(ctx, z.r);
    for (double v : got) ASSERT_FALSE(std::isnan(v)) << "a contribution row was read";
    if (whole.empty()) whole = got;
    else if (seq()) EXPECT_TRUE(same_bits(got, whole));
    else expect_close(got, whole, 1e-12, "r");
  }
}

// Tests run on the GPU too where there is one (cuda skips itself without).
class SplitEveryBackend : public Split {};

// um_arg_minus: tk_edge's r2 -= d is minus its r1 += d. Declared, a gathered loop stores r1's contributions only
// (after its first call, which stores both and checks them) and the gather reads them negated: the same bits as
// without the declaration, generic and compiled, gathered and reproducible, with contributions that change from
// call to call (the global g). r2's temporary, poisoned after the first call, is never written again.
TEST_P(SplitEveryBackend, MinusArgumentIsStoredOnceWithTheSameBits) {
  const Mesh m = random_mesh(120, 500, 1, 29u);
  umtest::TempDir cache("split_minus");
  const std::string dir = cache.dir.string();
  for (SplitMode md : {SplitMode{UM_SPLIT_GATHER, 0, 0}, SplitMode{UM_SPLIT_OFF, 1, 0}, SplitMode{UM_SPLIT_GATHER, 0, 1},
                       SplitMode{UM_SPLIT_OFF, 1, 1}}) {
    if (md.compiled && !strcmp(base.backend, "cuda")) continue;  // compiled host loops: the host backends'
    std::vector<double> r[2];
    double cbytes[2] = {0, 0};
    for (int minus = 0; minus < 2; minus++) {
      SCOPED_TRACE(mode_name(md) + (minus ? " minus" : ""));
      Ctx c(mode_cfg(base, md, dir));
      um_context *ctx = c.ctx;
      um_set *nodes, *edges;
      um_map *pedge;
      um_dat *u, *w, *dr, *f;
      if (md.compiled) OK(um_decl_const(ctx, "tk_scale", 1, UM_DOUBLE, &tk_scale));
      OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
      OK(um_decl_set(ctx, m.nedge, "edges", &edges));
      OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
      OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.u.data(), "u", &u));
      OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, m.w.data(), "w", &w));
      OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.c.data(), "r", &dr));
      OK(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f));
      const um_arg r2 = um_arg_dat(dr, 1, pedge, 2, UM_DOUBLE, UM_INC);
      double esum = 0;
      int cnt = 0;
      um_dat *t4 = nullptr;
      for (int rep = 0; rep < 3; rep++) {
        double g[2] = {1.25 + rep, -0.5 * rep};  // other contributions on every call
        OK(UM_PAR_LOOP(ctx, tk_edge_kernel, "tk_edge", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                       um_arg_dat(u, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, pedge, 2, UM_DOUBLE, UM_READ),
                       um_arg_dat(dr, 0, pedge, 2, UM_DOUBLE, UM_INC), minus ? um_arg_minus(r2, 0) : r2,
                       um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC), um_arg_gbl(&esum, 1, UM_DOUBLE, UM_INC),
                       um_arg_gbl(&cnt, 1, UM_INT, UM_INC), um_arg_gbl(g, 2, UM_DOUBLE, UM_READ)));
        for (int t = 0; !rep && t < um_context_temp_count(ctx); t++)
          if (!strcmp(um_dat_name(um_context_temp_at(ctx, t)), "tk_edge:temp4")) t4 = um_context_temp_at(ctx, t);
        ASSERT_NE(t4, nullptr) << "arg 4's contributions have a temporary";
        if (!rep) {  // poisoned: a row stored again would show
          std::vector<double> nan(2 * (size_t)m.nedge, std::numeric_limits<double>::quiet_NaN());
          OK(um_dat_update(ctx, t4, nan.data(), nan.size() * sizeof(double)));
        }
      }
      const um_loop_stats s = c.stats("tk_edge");
      EXPECT_STREQ(s.split, "gather");
      EXPECT_EQ(contains(s.split_reason, "arg 4 read as minus arg 3's (um_arg_minus)"), minus == 1) << s.split_reason;
      if (md.compiled) EXPECT_EQ(c.stats("tk_edge:contrib").compiled_calls, 3);
      cbytes[minus] = c.stats("tk_edge:contrib").bytes;
      const std::vector<double> t = fetch<double>(ctx, t4);
      size_t nans = 0;
      for (double v : t) nans += std::isnan(v);
      EXPECT_EQ(nans, minus ? t.size() : 0) << "arg 4's contributions stored after the first call";
      r[minus] = fetch<double>(ctx, dr);
      for (double v : r[minus]) ASSERT_FALSE(std::isnan(v));
    }
    EXPECT_TRUE(same_bits(r[1], r[0])) << mode_name(md);
    EXPECT_EQ(cbytes[0] - cbytes[1], 2.0 * m.nedge * 2 * sizeof(double)) << "the contribution loop's bytes a call";
  }
}

// A declaration that does not hold (tk_cell's corners: 0.25 q, 0.5 q, -0.125 q, q^2; the third declared minus the
// first) is found at the first call
// with contributions not all zero: the loop keeps storing both, with the bits of the undeclared loop. Calls whose
// contributions are all zero check nothing (-0 - 0 is -(+0) whatever the kernel does): here the first `zeros` calls
// run with q = 0, fewer than the limit of such calls and more.
TEST_P(Split, MinusDeclarationThatDoesNotHoldIsIgnored) {
  const Mesh m = random_mesh(100, 300, 80, 31u);
  for (int zeros : {0, 3, 9}) {
  SCOPED_TRACE("calls with q = 0 first: " + std::to_string(zeros));
  std::vector<double> n[2];
  for (int minus = 0; minus < 2; minus++) {
    Ctx c(with(base, UM_SPLIT_GATHER));
    um_context *ctx = c.ctx;
    um_set *nodes, *cells;
    um_map *pcell;
    um_dat *q, *dn;
    OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
    OK(um_decl_set(ctx, m.ncell, "cells", &cells));
    OK(um_decl_map(ctx, cells, nodes, 4, m.cell.data(), "pcell", &pcell));
    OK(um_decl_dat(ctx, cells, 3, UM_DOUBLE, m.q.data(), "q", &q));
    OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, m.a.data(), "n", &dn));
    const um_arg n2 = um_arg_dat(dn, 2, pcell, 3, UM_DOUBLE, UM_INC);  // -= 0.125 q: with q = 0, -0.0 = -(+0.0)
    const std::vector<double> q0(m.q.size(), 0.0);
    for (int rep = 0; rep < zeros + 2; rep++) {
      OK(um_dat_update(ctx, q, (rep < zeros ? q0 : m.q).data(), m.q.size() * sizeof(double)));
      double qmax = -1;
      float fmin = 1e30f;
      OK(UM_PAR_LOOP(ctx, tk_cell_kernel, "tk_cell", cells, um_arg_dat(q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                     um_arg_dat(dn, 0, pcell, 3, UM_DOUBLE, UM_INC), um_arg_dat(dn, 1, pcell, 3, UM_DOUBLE, UM_INC),
                     minus ? um_arg_minus(n2, 0) : n2, um_arg_dat(dn, 3, pcell, 3, UM_DOUBLE, UM_INC),
                     um_arg_gbl(&qmax, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&fmin, 1, UM_FLOAT, UM_MIN)));
    }
    const um_loop_stats s = c.stats("tk_cell");
    EXPECT_STREQ(s.split, "gather");
    EXPECT_FALSE(contains(s.split_reason, "um_arg_minus")) << s.split_reason;
    n[minus] = fetch<double>(ctx, dn);
  }
  EXPECT_TRUE(same_bits(n[1], n[0]));
  }
}

// The context's mode, a loop's own, and run.split=off.
TEST_P(Split, PerLoopModeBeatsTheContextsAndOffKeepsEverythingWhole) {
  const Mesh m = random_mesh(60, 200, 40, 2u);
  {
    Ctx c(with(base, UM_SPLIT_OFF));
    ASSERT_EQ(um_loop_set_split(c.ctx, "tk_edge", UM_SPLIT_GATHER), UM_SUCCESS);
    EdgeCell got;
    run_edge_cell(c.ctx, m, &got);
    EXPECT_STREQ(c.stats("tk_edge").split, "gather");
    EXPECT_STREQ(c.stats("tk_cell").split, "off");
    EXPECT_EQ(c.stats("tk_cell:contrib").calls, -1);
  }
  {
    Ctx c(with(base, UM_SPLIT_SCATTER));
    ASSERT_EQ(um_loop_set_split(c.ctx, "tk_edge", UM_SPLIT_OFF), UM_SUCCESS);
    ASSERT_EQ(um_loop_set_split(c.ctx, "tk_cell", UM_SPLIT_GATHER), UM_SUCCESS);
    EdgeCell got;
    run_edge_cell(c.ctx, m, &got);
    EXPECT_STREQ(c.stats("tk_edge").split, "off");
    EXPECT_TRUE(contains(c.stats("tk_edge").split_reason, "off")) << c.stats("tk_edge").split_reason;
    EXPECT_STREQ(c.stats("tk_cell").split, "gather");
    EXPECT_EQ(c.stats("tk_edge:contrib").calls, -1);
    EXPECT_EQ(c.stats("tk_cell:contrib").calls, 1);
  }
  {  // off: no generated loop, no temporary
    Ctx c(with(base, UM_SPLIT_OFF));
    EdgeCell got;
    run_edge_cell(c.ctx, m, &got);
    for (const std::string &n : c.loop_names()) EXPECT_EQ(n.find(':'), std::string::npos) << n;
    for (const char *l : {"tk_edge", "tk_cell"}) {
      const um_loop_stats s = c.stats(l);
      EXPECT_STREQ(s.split, "off");
      EXPECT_EQ(s.temp_bytes, 0);
      EXPECT_EQ(s.parent, nullptr);
    }
    EXPECT_EQ(um_context_temp_count(c.ctx), 0);
  }
  {  // auto (the default) keeps loops whole on a CPU backend, saying so
    um_options o;
    um_options_default(&o);
    o.backend = base.backend;
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    EdgeCell got;
    run_edge_cell(ctx, m, &got);
    um_loop_stats s;
    for (int i = 0; i < um_loop_stats_count(ctx); i++) {
      ASSERT_EQ(um_loop_stats_get(ctx, i, &s), UM_SUCCESS);
      EXPECT_STREQ(s.split, "off") << s.name;
      EXPECT_TRUE(contains(s.split_reason, "auto: kept whole")) << s.name << ": " << s.split_reason;
    }
    um_finalize(&ctx);
  }
}

// run.split fused (variant B, the split inside each launch) needs a backend that has it (CUDA): the host
// backends gather instead and say so, with the gathered loop's bits.
TEST_P(Split, FusedGathersOnABackendWithoutIt) {
  const Mesh m = random_mesh(60, 200, 40, 8u);
  EdgeCell gather, fused;
  {
    Ctx c(with(base, UM_SPLIT_GATHER));
    run_edge_cell(c.ctx, m, &gather);
  }
  {
    Ctx c(with(base, UM_SPLIT_FUSED));
    run_edge_cell(c.ctx, m, &fused);
    if (HasFatalFailure()) return;
    for (const char *l : {"tk_edge", "tk_cell"}) {
      const um_loop_stats s = c.stats(l);
      EXPECT_STREQ(s.split, "gather") << l;
      EXPECT_TRUE(contains(s.split_reason, "run.split: fused, but the ") &&
                  contains(s.split_reason, " backend has no fused split: gather"))
          << l << ": " << s.split_reason;
      EXPECT_EQ(c.stats(std::string(l) + ":gather").calls, s.calls) << l;
    }
  }
  expect_same_bits(fused, gather);
}

// The core's side of run.split fused on a backend that has it: seq with fused_split set, which records what each
// loop asked for and runs it whole (the CUDA backend's two-phase kernel is tested in test_cuda_*.cpp). The loops
// that increment through maps are handed over whole with um_loop.fused set (no generated loops, no
// temporaries), the others without it; a loop that also updates through a map (RW) gathers, saying why; the
// per-loop table says which loops ran fused.
std::vector<std::string> fused_seen;
int fused_run(um_context *ctx, void *state, um_loop *loop) {
  fused_seen.push_back(std::string(loop->name) + (loop->fused ? " fused" : " whole"));
  return um_backend_seq.exec.run(ctx, state, loop);
}

TEST(SplitFused, TheBackendRunsTheLoopWholeWithFusedSet) {
  um_backend_def fb = um_backend_seq;
  fb.name = "seqfused";
  fb.priority = -100;
  fb.caps.fused_split = 1;
  fb.exec.run = fused_run;
  const um_backend_def *const list[1] = {&fb};
  auto init = [&](um_split mode) {
    um_context *ctx = umtest::make_ctx_on(list);
    if (ctx) EXPECT_EQ(um_context_set_split(ctx, mode), UM_SUCCESS);
    return ctx;
  };
  const Mesh m = random_mesh(60, 200, 40, 4u);
  EdgeCell whole, fused;
  std::string table;
  for (um_split mode : {UM_SPLIT_OFF, UM_SPLIT_FUSED}) {
    um_context *ctx = init(mode);
    ASSERT_NE(ctx, nullptr);
    fused_seen.clear();
    run_edge_cell(ctx, m, mode ? &fused : &whole, 1);
    if (mode == UM_SPLIT_FUSED) {
      const std::vector<std::string> want = {"tk_edge fused", "tk_cell fused"};
      EXPECT_EQ(fused_seen, want);
      um_loop_stats s;
      for (int i = 0; i < um_loop_stats_count(ctx); i++) {
        ASSERT_EQ(um_loop_stats_get(ctx, i, &s), UM_SUCCESS);
        const std::string n = s.name;
        EXPECT_EQ(n.find(':'), std::string::npos) << n << ": no generated loops";
        EXPECT_STREQ(s.split, "fused") << n;
        EXPECT_TRUE(contains(s.split_reason, "run.split: fused (")) << n << ": " << s.split_reason;
        EXPECT_EQ(s.temp_bytes, 0) << n << ": no temporaries";
      }
      EXPECT_EQ(um_context_temp_count(ctx), 0);
      char *buf = nullptr;
      size_t len = 0;
      FILE *f = open_memstream(&buf, &len);
      ASSERT_NE(f, nullptr);
      um_report_loops(ctx, f, 0);
      fclose(f);
      table = buf ? buf : "";
      free(buf);
    }
    um_finalize(&ctx);
  }
  expect_same_bits(fused, whole);  // the backend ran the loops whole
  EXPECT_TRUE(contains(table.c_str(), "fused: 2 loops split inside their launches")) << table;
  EXPECT_TRUE(contains(table.c_str(), "  split\n")) << "the split column: " << table;
  {  // INC and an RW of another dat through a map: gathered, and why
    um_context *ctx = init(UM_SPLIT_FUSED);
    ASSERT_NE(ctx, nullptr);
    um_set *nodes, *edges;
    um_map *pedge;
    um_dat *dw, *r, *v;
    std::vector<double> r0(2 * (size_t)m.nnode, 0.0), v0(2 * (size_t)m.nnode, 0.0);
    OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
    OK(um_decl_set(ctx, m.nedge, "edges", &edges));
    OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
    OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, m.w.data(), "w", &dw));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, r0.data(), "r", &r));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, v0.data(), "v", &v));
    fused_seen.clear();
    OK(UM_PAR_LOOP(ctx, tk_split_inc_rw_kernel, "inc_rw", edges, um_arg_dat(dw, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                   um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                   um_arg_dat(v, 0, pedge, 2, UM_DOUBLE, UM_RW)));
    const std::vector<std::string> want = {"inc_rw:contrib whole"};
    EXPECT_EQ(fused_seen, want);
    for (int i = 0; i < um_loop_stats_count(ctx); i++) {
      um_loop_stats s;
      ASSERT_EQ(um_loop_stats_get(ctx, i, &s), UM_SUCCESS);
      if (std::string(s.name) != "inc_rw") continue;
      EXPECT_STREQ(s.split, "gather");
      EXPECT_TRUE(contains(s.split_reason, "run.split: fused, but arg 3 is RW through a map")) << s.split_reason;
    }
    um_finalize(&ctx);
  }
}

// A kernel variant is chosen per kernel: the contribution loop is another kernel than its parent's whole loop (stores,
// no atomics), so it runs with its own record's variant, not the parent's; seq with three variants, recording
// which each loop was handed.
std::vector<std::pair<std::string, int>> variant_seen;
int variant_run(um_context *ctx, void *state, um_loop *loop) {
  variant_seen.emplace_back(loop->name, loop->variant);
  return um_backend_seq.exec.run(ctx, state, loop);
}

TEST(SplitVariants, TheContributionLoopRunsItsOwnVariant) {
  static const char *const variants[] = {"as compiled", "one more", "two more", nullptr};
  um_backend_def vb = um_backend_seq;
  vb.name = "seqvariants";
  vb.priority = -100;
  vb.variants = variants;
  vb.exec.run = variant_run;
  const um_backend_def *const list[1] = {&vb};
  const Mesh m = random_mesh(50, 160, 1, 31u);
  std::vector<double> w(m.nedge, 0.5), r0(2 * (size_t)m.nnode, 0.0);
  std::vector<float> f0(m.nnode, 0.0f);
  using Seen = std::vector<std::pair<std::string, int>>;
  for (um_split mode : {UM_SPLIT_OFF, UM_SPLIT_GATHER}) {
    SCOPED_TRACE(um_split_name(mode));
    um_context *ctx = umtest::make_ctx_on(list);
    ASSERT_NE(ctx, nullptr);
    OK(um_context_set_split(ctx, mode));
    ZeroLoop z;
    z.declare(ctx, m, w, r0, f0.data(), false);
    OK(um_loop_set_variant(ctx, "tuned", 2));
    variant_seen.clear();
    z.run(ctx, "tuned");
    if (mode == UM_SPLIT_OFF) {
      EXPECT_EQ(variant_seen, (Seen{{"tuned", 2}}));
    } else {
      ASSERT_FALSE(variant_seen.empty());
      EXPECT_EQ(variant_seen[0], Seen::value_type("tuned:contrib", 0)) << "not the parent's variant 2";
      OK(um_loop_set_variant(ctx, "tuned:contrib", 1));
      variant_seen.clear();
      z.run(ctx, "tuned");
      ASSERT_FALSE(variant_seen.empty());
      EXPECT_EQ(variant_seen[0], Seen::value_type("tuned:contrib", 1)) << "its own, set by name";
    }
    um_finalize(&ctx);
  }
  // run.tune times the loop as it runs, split included: its variant trials reach the contribution loop
  um_context *ctx = umtest::make_ctx_on(list);
  ASSERT_NE(ctx, nullptr);
  OK(um_context_set_split(ctx, UM_SPLIT_GATHER));
  OK(um_context_set_tune(ctx, UM_TUNE_ALWAYS));
  ZeroLoop z;
  z.declare(ctx, m, w, r0, f0.data(), false);
  variant_seen.clear();
  z.run(ctx, "timed");
  for (int v : {1, 2})
    EXPECT_NE(std::find(variant_seen.begin(), variant_seen.end(), Seen::value_type("timed:contrib", v)), variant_seen.end())
        << "variant " << v << " was tried on the contribution loop";
  um_finalize(&ctx);
}

// Generated loops name their parent; the parent counts the temporaries' bytes.
TEST_P(Split, GeneratedLoopsNameTheirParent) {
  const Mesh m = random_mesh(60, 200, 40, 6u);
  for (um_split mode : {UM_SPLIT_GATHER, UM_SPLIT_SCATTER}) {
    Ctx c(with(base, mode));
    EdgeCell got;
    run_edge_cell(c.ctx, m, &got, 3);
    int generated = 0;
    for (const std::string &n : c.loop_names()) {
      const um_loop_stats s = c.stats(n);
      const size_t colon = n.find(':');
      if (colon == std::string::npos) {
        EXPECT_EQ(s.parent, nullptr) << n;
        continue;
      }
      generated++;
      ASSERT_NE(s.parent, nullptr) << n;
      EXPECT_EQ(std::string(s.parent), n.substr(0, colon)) << n;
      EXPECT_EQ(s.calls, c.stats(s.parent).calls) << n;
      EXPECT_EQ(s.temp_bytes, 0) << n;
    }
    EXPECT_EQ(generated, mode == UM_SPLIT_GATHER ? 4 : 2 + 3 + 4);
    // tk_edge: r at both ends (2 doubles each) and f (1 float) per edge; tk_cell: n at four corners (3 doubles)
    EXPECT_EQ(c.stats("tk_edge").temp_bytes, (double)m.nedge * (2 * 16 + 4));
    EXPECT_EQ(c.stats("tk_cell").temp_bytes, (double)m.ncell * (4 * 24));
    EXPECT_EQ(um_context_temp_count(c.ctx), 3 + 4);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Split,
                         ::testing::Values(Case{"seq", UM_AOS}, Case{"seq", UM_SOA}, Case{"openmp", UM_AOS},
                                           Case{"openmp", UM_SOA}),
                         case_name);

INSTANTIATE_TEST_SUITE_P(Backends, SplitEveryBackend,
                         ::testing::Values(Case{"seq", UM_AOS}, Case{"seq", UM_SOA}, Case{"openmp", UM_AOS},
                                           Case{"openmp", UM_SOA}, Case{"cuda", UM_AOS}, Case{"cuda", UM_SOA}),
                         case_name);

// ---- reproducible mode ----

struct Sums {
  EdgeCell ec;
  double sum = 0;
  float fsum = 0;
};

void run_reproducible(const Cfg &cfg, const Mesh &m, Sums *out) {
  Ctx c(cfg);
  um_context *ctx = c.ctx;
  run_edge_cell(ctx, m, &out->ec, 3);
  if (::testing::Test::HasFatalFailure()) return;
  um_set *nodes = um_find_set(ctx, "nodes");
  um_dat *a;
  std::vector<double> av(m.nnode);
  for (int i = 0; i < m.nnode; i++) av[i] = std::ldexp(m.a[i] - 0.5, (i * 13) % 61 - 30);  // wide range of scales
  OK(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, av.data(), "big", &a));
  out->sum = 0.25;
  out->fsum = 0.25f;
  OK(UM_PAR_LOOP(ctx, tk_split_sum_kernel, "sum", nodes, um_arg_dat(a, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                 um_arg_gbl(&out->sum, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&out->fsum, 1, UM_FLOAT, UM_INC)));
  EXPECT_STREQ(c.stats("tk_edge").split, "gather");
  EXPECT_STREQ(c.stats("tk_cell").split, "gather");
  EXPECT_TRUE(contains(c.stats("tk_edge").split_reason, "reproducible")) << c.stats("tk_edge").split_reason;
  EXPECT_STREQ(c.stats("sum").split, "off") << "nothing to split; the sums are still exact";
  EXPECT_EQ(c.stats("sum:contrib").calls, 1);
}

TEST(SplitReproducible, SameBitsOnEveryBackendThreadCountBlockSizeAndLayout) {
  const Mesh m = random_mesh(700, 2500, 500, 17u);
  Cfg ref;
  ref.reproducible = 1;
  Sums want;
  run_reproducible(ref, m, &want);
  if (HasFatalFailure()) return;
  for (const char *b : {"seq", "openmp"}) {
    if (um_backend_available(b) != 1) continue;
    for (um_layout l : {UM_AOS, UM_SOA})
      for (int threads : {1, 2, 3, 4})
        for (int block : {16, 64, 256}) {
          if (!strcmp(b, "seq") && threads > 1) continue;
          for (um_split mode : {UM_SPLIT_OFF, UM_SPLIT_SCATTER, UM_SPLIT_GATHER, UM_SPLIT_AUTO}) {
            if (threads != 2 && mode != UM_SPLIT_SCATTER) continue;  // run.split has no say: every mode once
            SCOPED_TRACE(std::string(b) + (l == UM_SOA ? " soa" : " aos") + " threads " + std::to_string(threads) +
                         " block " + std::to_string(block) + " run.split " + um_split_name(mode));
            Cfg c;
            c.backend = b;
            c.layout = l;
            c.threads = threads;
            c.block = block;
            c.split = mode;
            c.reproducible = 1;
            Sums got;
            run_reproducible(c, m, &got);
            if (HasFatalFailure()) return;
            expect_same_bits(got.ec, want.ec);
            EXPECT_TRUE(same_bits(got.sum, want.sum)) << got.sum << " " << want.sum;
            EXPECT_TRUE(same_bits(got.fsum, want.fsum)) << got.fsum << " " << want.fsum;
          }
        }
  }
  // without reproducible mode the same global sum is rounded along the way (the test can tell them apart)
  bool differs = false;
  for (const char *b : {"seq", "openmp"})
    for (int block : {16, 256}) {
      if (um_backend_available(b) != 1) continue;
      Cfg c;
      c.backend = b;
      c.block = block;
      Ctx x(c);
      um_context *ctx = x.ctx;
      um_set *nodes;
      um_dat *a;
      OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
      std::vector<double> av(m.nnode);
      for (int i = 0; i < m.nnode; i++) av[i] = std::ldexp(m.a[i] - 0.5, (i * 13) % 61 - 30);
      OK(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, av.data(), "big", &a));
      double sum = 0.25;
      float fsum = 0.25f;
      OK(UM_PAR_LOOP(ctx, tk_split_sum_kernel, "sum", nodes, um_arg_dat(a, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                     um_arg_gbl(&sum, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&fsum, 1, UM_FLOAT, UM_INC)));
      EXPECT_NEAR(sum, want.sum, 1e-9 * std::fabs(want.sum));
      differs |= !same_bits(sum, want.sum);
    }
  EXPECT_TRUE(differs) << "plain sums should round differently from the exact sum somewhere";
}

// A direct loop's global sum of the given values (reproducible or not), and its return code.
int sum_of(const Cfg &cfg, const std::vector<double> &v, double *sum, float *fsum = nullptr) {
  Ctx c(cfg);
  um_context *ctx = c.ctx;
  um_set *s;
  um_dat *a;
  EXPECT_EQ(um_decl_set(ctx, (int)v.size(), "s", &s), UM_SUCCESS);
  EXPECT_EQ(um_decl_dat(ctx, s, 1, UM_DOUBLE, v.data(), "a", &a), UM_SUCCESS);
  *sum = 0;
  if (!fsum)  // the double sum alone (values beyond the float range)
    return UM_PAR_LOOP(ctx, tk_split_dsum_kernel, "sum", s, um_arg_dat(a, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                       um_arg_gbl(sum, 1, UM_DOUBLE, UM_INC));
  *fsum = 0;
  return UM_PAR_LOOP(ctx, tk_split_sum_kernel, "sum", s, um_arg_dat(a, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                     um_arg_gbl(sum, 1, UM_DOUBLE, UM_INC), um_arg_gbl(fsum, 1, UM_FLOAT, UM_INC));
}

TEST(SplitReproducible, ExactSumsDoNotDependOnTheOrder) {
  std::vector<double> v = {1e16, 1.0, -1e16};
  std::sort(v.begin(), v.end());
  bool naive_wrong = false;
  do {
    for (const char *b : {"seq", "openmp"}) {
      if (um_backend_available(b) != 1) continue;
      Cfg c;
      c.backend = b;
      c.block = 1;  // openmp: one element per chunk
      c.reproducible = 1;
      double s;
      float f;
      ASSERT_EQ(sum_of(c, v, &s, &f), UM_SUCCESS);
      EXPECT_TRUE(same_bits(s, 1.0)) << b << ": " << v[0] << " " << v[1] << " " << v[2] << " -> " << s;
      EXPECT_TRUE(same_bits(f, 1.0f)) << b << ": " << f;
      c.reproducible = 0;
      ASSERT_EQ(sum_of(c, v, &s), UM_SUCCESS);
      naive_wrong |= s != 1.0;
    }
  } while (std::next_permutation(v.begin(), v.end()));
  EXPECT_TRUE(naive_wrong) << "plain summation loses the 1 in some order";
  Cfg c;
  c.reproducible = 1;
  double s;
  // cancellation across the whole range: the sum is the smallest subnormal; two 1e308 overflow a plain sum
  const double tiny = std::numeric_limits<double>::denorm_min();
  ASSERT_EQ(sum_of(c, {1e308, 1e308, tiny, -1e308, -1e308}, &s), UM_SUCCESS);
  EXPECT_TRUE(same_bits(s, tiny)) << s;
  // rounded once: 1 + 2^-53 + 2^-53 is 1 + 2^-52 (in order, each 2^-53 would round away)
  ASSERT_EQ(sum_of(c, {1.0, std::ldexp(1.0, -53), std::ldexp(1.0, -53)}, &s), UM_SUCCESS);
  EXPECT_TRUE(same_bits(s, 1.0 + std::ldexp(1.0, -52))) << s;
  ASSERT_EQ(sum_of(c, {1.0, std::ldexp(1.0, -53), std::ldexp(1.0, -80)}, &s), UM_SUCCESS);
  EXPECT_TRUE(same_bits(s, 1.0 + std::ldexp(1.0, -52))) << "above the tie: rounds up";
  ASSERT_EQ(sum_of(c, {-3.5, 1.25, -0.75}, &s), UM_SUCCESS);
  EXPECT_TRUE(same_bits(s, -3.0)) << "negative sums: " << s;
  ASSERT_EQ(sum_of(c, {}, &s), UM_SUCCESS);
  EXPECT_TRUE(same_bits(s, 0.0)) << "an empty set";
  // many values: 0.1 (inexact in binary) 10000 times, exact against the same sum in another order
  std::vector<double> many(10000);
  for (size_t i = 0; i < many.size(); i++) many[i] = (i % 2 ? 0.1 : -0.3) * (double)(i % 7 + 1);
  double s1, s2;
  ASSERT_EQ(sum_of(c, many, &s1), UM_SUCCESS);
  std::reverse(many.begin(), many.end());
  ASSERT_EQ(sum_of(c, many, &s2), UM_SUCCESS);
  EXPECT_TRUE(same_bits(s1, s2)) << s1 << " " << s2;
}

TEST(SplitReproducible, NonFiniteContributions) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (const char *b : {"seq", "openmp"}) {
    if (um_backend_available(b) != 1) continue;
    SCOPED_TRACE(b);
    Cfg c;
    c.backend = b;
    c.reproducible = 1;
    double s;
    float f;
    // a global that becomes non-finite stops the run (UM_ERR_DIVERGED), holding the value
    EXPECT_EQ(sum_of(c, {1.0, nan, 2.0}, &s, &f), UM_ERR_DIVERGED);
    EXPECT_TRUE(std::isnan(s)) << s;
    EXPECT_TRUE(std::isnan(f)) << f;
    EXPECT_EQ(sum_of(c, {1.0, inf, 2.0}, &s, &f), UM_ERR_DIVERGED);
    EXPECT_EQ(s, inf);
    EXPECT_EQ(f, (float)inf);
    EXPECT_EQ(sum_of(c, {1e308, inf, 1e308, -1e308}, &s), UM_ERR_DIVERGED);
    EXPECT_EQ(s, inf);
    EXPECT_EQ(sum_of(c, {1e308, 1e308}, &s), UM_ERR_DIVERGED) << "a finite sum beyond the range rounds to inf";
    EXPECT_EQ(s, inf);
    EXPECT_EQ(sum_of(c, {-inf, 1.0}, &s), UM_ERR_DIVERGED);
    EXPECT_EQ(s, -inf);
    EXPECT_EQ(sum_of(c, {inf, 1.0, -inf}, &s), UM_ERR_DIVERGED);
    EXPECT_TRUE(std::isnan(s)) << "inf - inf: " << s;
    EXPECT_EQ(sum_of(c, {1.0, 2.0}, &s), UM_SUCCESS);
    EXPECT_EQ(s, 3.0);
  }
}

// ---- errors and names ----
TEST(SplitApi, UnknownModesAreRefused) {
  Cfg cfg;
  Ctx c(cfg);
  EXPECT_EQ(um_context_set_split(c.ctx, (um_split)5), UM_ERR_ARG);
  EXPECT_TRUE(contains(um_error_message(c.ctx), "split mode 5 is unknown")) << um_error_message(c.ctx);
  EXPECT_EQ(um_context_set_split(c.ctx, (um_split)-1), UM_ERR_ARG);
  EXPECT_EQ(um_loop_set_split(c.ctx, "res_calc", (um_split)7), UM_ERR_ARG);
  EXPECT_TRUE(contains(um_error_message(c.ctx), "loop 'res_calc': split mode 7 is unknown")) << um_error_message(c.ctx);
  EXPECT_EQ(um_context_set_split(nullptr, UM_SPLIT_GATHER), UM_ERR_ARG);
  EXPECT_EQ(um_loop_set_split(nullptr, "x", UM_SPLIT_GATHER), UM_ERR_ARG);
  EXPECT_EQ(um_loop_set_split(c.ctx, nullptr, UM_SPLIT_GATHER), UM_ERR_ARG);
  EXPECT_EQ(um_context_set_reproducible(nullptr, 1), UM_ERR_ARG);
  EXPECT_EQ(um_context_reproducible(nullptr), 0);
  EXPECT_EQ(um_context_reproducible(c.ctx), 0);
  EXPECT_EQ(um_context_set_reproducible(c.ctx, 5), UM_SUCCESS);
  EXPECT_EQ(um_context_reproducible(c.ctx), 1);
  for (um_split s : {UM_SPLIT_OFF, UM_SPLIT_SCATTER, UM_SPLIT_GATHER, UM_SPLIT_AUTO, UM_SPLIT_FUSED})
    EXPECT_EQ(um_context_set_split(c.ctx, s), UM_SUCCESS) << s;
  EXPECT_STREQ(um_split_name(UM_SPLIT_OFF), "off");
  EXPECT_STREQ(um_split_name(UM_SPLIT_SCATTER), "scatter");
  EXPECT_STREQ(um_split_name(UM_SPLIT_GATHER), "gather");
  EXPECT_STREQ(um_split_name(UM_SPLIT_AUTO), "auto");
  EXPECT_STREQ(um_split_name(UM_SPLIT_FUSED), "fused");
  EXPECT_STREQ(um_split_name((um_split)9), "unknown");
}

// um_arg_minus declarations that cannot hold are refused by the loop, naming the loop, the arg and what to do.
TEST(SplitApi, MinusDeclarationsAreChecked) {
  const Mesh m = random_mesh(30, 80, 20, 3u);
  std::vector<int> ecell(2 * (size_t)m.nedge);
  for (size_t i = 0; i < ecell.size(); i++) ecell[i] = (int)(i % (size_t)m.ncell);
  Cfg cfg;
  Ctx c(cfg);
  um_context *ctx = c.ctx;
  TwoMaps t;
  t.declare(ctx, m, ecell);
  if (HasFatalFailure()) return;
  um_set *edges = t.edges;
  um_map *pedge = t.pedge, *pec = t.pec;
  um_dat *w = t.w, *x = t.x, *n = t.n, *c0 = t.c0, *c1 = t.c1;
  const um_arg aw = um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ), ax0 = um_arg_dat(x, 0, pedge, 2, UM_DOUBLE, UM_READ),
               ax1 = um_arg_dat(x, 1, pedge, 2, UM_DOUBLE, UM_READ), an0 = um_arg_dat(n, 0, pedge, 2, UM_DOUBLE, UM_INC),
               an1 = um_arg_dat(n, 1, pedge, 2, UM_DOUBLE, UM_INC), ac0 = um_arg_dat(c0, 0, pec, 1, UM_DOUBLE, UM_INC),
               ac1 = um_arg_dat(c1, 1, pec, 1, UM_FLOAT, UM_INC);
  struct Bad {
    um_arg a[7];
    const char *says;
  } bad[] = {
      {{um_arg_minus(aw, 0), ax0, ax1, an0, an1, ac0, ac1}, "arg 0: um_arg_minus declares an INC of a dat through one map index, but this argument is direct"},
      {{aw, ax0, um_arg_minus(ax1, 0), an0, an1, ac0, ac1}, "arg 2: um_arg_minus declares an INC of a dat through one map index, but this argument is READ"},
      {{aw, ax0, ax1, an0, um_arg_minus(an1, 1), ac0, ac1}, "the partner's index must be another index of map 'pedge' (0..1, not this argument's 1)"},
      {{aw, ax0, ax1, an0, um_arg_minus(an1, 2), ac0, ac1}, "the partner's index must be another index of map 'pedge'"},
      {{aw, ax0, ax1, an0, um_arg_minus(an1, -1), ac0, ac1}, "the partner's index must be another index"},
      {{aw, ax0, ax1, an0, an1, ac0, um_arg_minus(ac1, 0)}, "names the argument incrementing dat 'c1' through map 'pecell' at index 0, but the loop has none"},
      {{aw, ax0, ax1, um_arg_minus(an0, 1), um_arg_minus(an1, 0), ac0, ac1}, "but it is itself declared minus another"},
  };
  for (const Bad &b : bad) {
    EXPECT_EQ(UM_PAR_LOOP(ctx, tk_split_two_maps_kernel, "two_maps", edges, b.a[0], b.a[1], b.a[2], b.a[3], b.a[4], b.a[5],
                          b.a[6]),
              UM_ERR_ARG)
        << b.says;
    EXPECT_TRUE(contains(um_error_message(ctx), b.says)) << um_error_message(ctx);
    EXPECT_TRUE(contains(um_error_message(ctx), "loop 'two_maps'")) << um_error_message(ctx);
  }
  OK(UM_PAR_LOOP(ctx, tk_split_two_maps_kernel, "two_maps", edges, aw, ax0, ax1, an0, um_arg_minus(an1, 0), ac0, ac1));
}

// A loop with nothing to split (no increment through a map) runs whole, saying so.
TEST(SplitApi, NothingToSplit) {
  Cfg cfg;
  cfg.split = UM_SPLIT_GATHER;
  double s;
  Ctx c(cfg);
  um_context *ctx = c.ctx;
  um_set *set;
  um_dat *a;
  const std::vector<double> v = {1, 2, 3};
  OK(um_decl_set(ctx, 3, "s", &set));
  OK(um_decl_dat(ctx, set, 1, UM_DOUBLE, v.data(), "a", &a));
  float f = 0;
  s = 0;
  OK(UM_PAR_LOOP(ctx, tk_split_sum_kernel, "sum", set, um_arg_dat(a, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                 um_arg_gbl(&s, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&f, 1, UM_FLOAT, UM_INC)));
  EXPECT_EQ(s, 6.0);
  EXPECT_STREQ(c.stats("sum").split, "off");
  EXPECT_TRUE(contains(c.stats("sum").split_reason, "nothing to split")) << c.stats("sum").split_reason;
  EXPECT_EQ(c.stats("sum:contrib").calls, -1);
}

// Reproducible mode fixes the order of increments, not of writes: a loop that updates a dat (RW) through a map whose
// elements share targets says that its results follow the strategy's order; through a one-to-one map it says nothing.
TEST(SplitReproducible, WritesThroughSharedTargetsAreNamed) {
  for (int shared : {1, 0}) {
    std::string log;
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    o.log = [](void *user, um_log_level level, const char *m) {
      if (level == UM_LOG_WARNING) *(std::string *)user += std::string(m) + "\n";
    };
    o.log_user = &log;
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    OK(um_context_set_reproducible(ctx, 1));
    um_set *cells, *nodes;
    um_map *m;
    um_dat *v, *a;
    const std::vector<int> rows = shared ? std::vector<int>{0, 1, 0, 1} : std::vector<int>{0, 1, 2, 3};
    const std::vector<double> av = {1, 2, 3, 4}, vv(8, 0.0);
    OK(um_decl_set(ctx, 4, "cells", &cells));
    OK(um_decl_set(ctx, 4, "nodes", &nodes));
    OK(um_decl_map(ctx, cells, nodes, 1, rows.data(), "c2n", &m));
    OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, vv.data(), "v", &v));
    OK(um_decl_dat(ctx, cells, 1, UM_DOUBLE, av.data(), "a", &a));
    for (int call = 0; call < 2; call++)  // said once, at the first call
      OK(UM_PAR_LOOP(ctx, tk_indirect_rw_kernel, "rw", cells, um_arg_dat(v, 0, m, 2, UM_DOUBLE, UM_RW),
                     um_arg_dat(a, -1, UM_ID, 1, UM_DOUBLE, UM_READ)));
    const std::string want = "in loop 'rw', arg 0 updates (RW) dat 'v' through map 'c2n', whose elements share targets";
    if (shared) {
      EXPECT_NE(log.find(want), std::string::npos) << log;
      EXPECT_EQ(log.find(want), log.rfind(want)) << log;
    } else {
      EXPECT_EQ(log.find("share targets"), std::string::npos) << log;
    }
    um_finalize(&ctx);
  }
}

// split auto on a device times a loop whole and split only where the split's one-off cost, its inverse map
// built on the host (about 30 ns an entry), is at most 10 calls of the whole loop: a "device" that runs seq and
// reports each call at a set time, well under its copy bandwidth, at occupancy 0.125.
double slow_device_seconds = 1e-3;
int slow_device_run(um_context *ctx, void *state, um_loop *loop) {
  const int rc = um_backend_seq.exec.run(ctx, state, loop);
  um_backend_loop_time(ctx, loop->id, slow_device_seconds);
  um_backend_counter_set(ctx, loop->id, 0, 0.125);
  return rc;
}
int slow_device_info(um_context *, void *, um_device_info *out) {
  memset(out, 0, sizeof *out);
  out->copy_gbs = 1e6;
  return UM_SUCCESS;
}
const char *const slow_device_counters[] = {"occupancy", nullptr};
um_backend_def make_slow_device() {
  um_backend_def d;
  memset(&d, 0, sizeof d);
  d.name = "slowdev";
  d.priority = -100;
  d.caps.ranges = 1;
  d.description = "seq, reported as a slow device (tests)";
  d.counters = slow_device_counters;
  d.exec.strategy = um_backend_seq.exec.strategy;
  d.exec.run = slow_device_run;
  d.extras.gather = um_backend_seq.extras.gather;
  d.extras.device_info = slow_device_info;
  return d;
}
const um_backend_def slow_device = make_slow_device();
const um_backend_def *const slow_device_list[1] = {&slow_device};

TEST(SplitAuto, TimedOnlyWhereTheInverseMapCostsAFewCalls) {
  const Mesh m = random_mesh(20000, 40000, 100, 11);
  const double trial = 40000.0 * 3 * 30e-9;  // tk_edge increments through 3 args: 3.6 ms
  for (const double per : {trial / 5, trial / 20}) {
    slow_device_seconds = per;
    um_options o;
    um_options_default(&o);
    o.backend = "slowdev";
    o.extra_backends = slow_device_list;
    o.nextra_backends = 1;
    um_context *ctx = nullptr;
    ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    EdgeCell got;
    run_edge_cell(ctx, m, &got, 8);
    um_loop_stats s;
    bool seen = false;
    for (int i = 0; i < um_loop_stats_count(ctx); i++) {
      ASSERT_EQ(um_loop_stats_get(ctx, i, &s), UM_SUCCESS);
      if (strcmp(s.name, "tk_edge") != 0) continue;
      seen = true;
      if (per > trial / 10)
        EXPECT_TRUE(contains(s.split_reason, "auto: measured")) << per << ": " << s.split_reason;
      else
        EXPECT_TRUE(contains(s.split_reason, "auto: kept whole") && contains(s.split_reason, "inverse map"))
            << per << ": " << s.split_reason;
    }
    EXPECT_TRUE(seen);
    EXPECT_EQ(um_context_temp_count(ctx) > 0, per > trial / 10) << "temporaries only where the split was timed";
    um_finalize(&ctx);
  }
}

}  // namespace
