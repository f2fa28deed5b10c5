// Every backend x layout x block size gives the results of seq (AoS) on random
// data: direct and indirect loops, READ/WRITE/RW/INC, global SUM/MIN/MAX.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "um/um.h"
}
#include "backend_matrix.hpp"
#include "test_kernels.h"
#include "test_random_mesh.hpp"

namespace {

using umtest::Mesh;
using umtest::random_mesh;

struct Result {
  std::vector<double> b, c, r, n, v, vw;
  std::vector<float> f;
  double sum[2], mn, mx, esum, qmax;
  int isum, cnt;
};

#define OK(call) ASSERT_EQ((call), UM_SUCCESS) << um_error_message(ctx)

// The workload on ctx: direct, indirect, coloured and reduction loops; their outputs fetched into res.
void workload(um_context *ctx, const Mesh &m, Result *res) {
  um_set *nodes, *edges, *cells;
  um_map *pedge, *pcell, *pperm;
  OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
  OK(um_decl_set(ctx, m.nedge, "edges", &edges));
  OK(um_decl_set(ctx, m.ncell, "cells", &cells));
  OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
  OK(um_decl_map(ctx, cells, nodes, 4, m.cell.data(), "pcell", &pcell));
  OK(um_decl_map(ctx, nodes, nodes, 1, m.perm.data(), "pperm", &pperm));
  // the random map has repeats, so plain RW through it is coloured too
  um_dat *u, *w, *q, *a, *b, *c, *k, *r, *f, *n, *v, *vw;
  OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.u.data(), "u", &u));
  OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, m.w.data(), "w", &w));
  OK(um_decl_dat(ctx, cells, 3, UM_DOUBLE, m.q.data(), "q", &q));
  OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, m.a.data(), "a", &a));
  std::vector<double> poison(3 * (size_t)m.nnode, -777.0);
  OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, poison.data(), "b", &b));
  OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.c.data(), "c", &c));
  OK(um_decl_dat(ctx, nodes, 1, UM_INT, m.k.data(), "k", &k));
  OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.c.data(), "r", &r));
  OK(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f));
  OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, nullptr, "n", &n));
  OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.v.data(), "v", &v));
  OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, poison.data(), "vw", &vw));

  res->sum[0] = 0.5;
  res->sum[1] = -0.25;
  res->mn = 1e30;
  res->mx = -1e30;
  res->isum = 3;
  OK(UM_PAR_LOOP(ctx, direct_ops_kernel, "direct_ops", nodes, um_arg_dat(a, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                 um_arg_dat(b, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE), um_arg_dat(c, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                 um_arg_dat(k, -1, UM_ID, 1, UM_INT, UM_READ), um_arg_gbl(res->sum, 2, UM_DOUBLE, UM_INC),
                 um_arg_gbl(&res->mn, 1, UM_DOUBLE, UM_MIN), um_arg_gbl(&res->mx, 1, UM_DOUBLE, UM_MAX),
                 um_arg_gbl(&res->isum, 1, UM_INT, UM_INC)));
  res->esum = 0;
  res->cnt = 0;
  for (int rep = 0; rep < 2; rep++)
    OK(UM_PAR_LOOP(ctx, edge_inc_kernel, "edge_inc", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                   um_arg_dat(u, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, pedge, 2, UM_DOUBLE, UM_READ),
                   um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                   um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC), um_arg_gbl(&res->esum, 1, UM_DOUBLE, UM_INC),
                   um_arg_gbl(&res->cnt, 1, UM_INT, UM_INC)));
  res->qmax = -1;
  OK(UM_PAR_LOOP(ctx, cell_inc_kernel, "cell_inc", cells, um_arg_dat(q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                 um_arg_dat(n, 0, pcell, 3, UM_DOUBLE, UM_INC), um_arg_dat(n, 1, pcell, 3, UM_DOUBLE, UM_INC),
                 um_arg_dat(n, 2, pcell, 3, UM_DOUBLE, UM_INC), um_arg_dat(n, 3, pcell, 3, UM_DOUBLE, UM_INC),
                 um_arg_gbl(&res->qmax, 1, UM_DOUBLE, UM_MAX)));
  // RW through the edge map (repeats: must be coloured), and WRITE through an injective map
  OK(UM_PAR_LOOP(ctx, indirect_rw_kernel, "indirect_rw", edges, um_arg_dat(v, 1, pedge, 2, UM_DOUBLE, UM_RW),
                 um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ)));
  um_dat *kd;
  std::vector<double> kk(m.k.begin(), m.k.end());
  OK(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, kk.data(), "kd", &kd));
  OK(UM_PAR_LOOP(ctx, indirect_write_kernel, "indirect_write", nodes, um_arg_dat(vw, 0, pperm, 3, UM_DOUBLE, UM_WRITE),
                 um_arg_dat(kd, -1, UM_ID, 1, UM_DOUBLE, UM_READ)));

  auto fetch = [&](um_dat *d, std::vector<double> &out, int dim) {
    out.resize((size_t)m.nnode * dim);
    OK(um_dat_fetch(ctx, d, out.data(), out.size() * sizeof(double)));
  };
  fetch(b, res->b, 3);
  fetch(c, res->c, 2);
  fetch(r, res->r, 2);
  fetch(n, res->n, 3);
  fetch(v, res->v, 2);
  fetch(vw, res->vw, 3);
  res->f.resize(m.nnode);
  OK(um_dat_fetch(ctx, f, res->f.data(), res->f.size() * sizeof(float)));
}

// The workload on a fresh context made from o.
void run_all(const Mesh &m, const um_options &o, Result *res) {
  bm::with_context(o, [&](um_context *ctx) { workload(ctx, m, res); });
}

// The workload with o's backend, layout and block size on nthreads threads.
void run_all(const Mesh &m, const bm::Case &c, int nthreads, Result *res) {
  um_options o = bm::case_options(c);
  o.nthreads = nthreads;
  run_all(m, o, res);
}

// got against seq's ref: what every backend workload computes (bm::expect_matches_seq), then checks that the
// reductions ran (or, on an empty mesh, left their starting values) and that every output element was written.
void compare(const Mesh &m, const Result &got, const Result &ref) {
  bm::expect_matches_seq(got, ref);
  if (m.nnode > 0) {
    EXPECT_NE(ref.mn, 1e30);  // the reductions did something
    EXPECT_EQ(ref.isum, 3 + [&] { int s = 0; for (int x : m.k) s += x; return s; }());
    EXPECT_EQ(ref.cnt, 2 * m.nedge);
  } else {
    EXPECT_EQ(ref.mn, 1e30);  // nothing to reduce over: untouched
    EXPECT_EQ(ref.isum, 3);
  }
  for (double x : got.b) ASSERT_NE(x, -777.0) << "an output element was never written";
}

class BackendMatchesSeq : public ::testing::TestWithParam<bm::Case> {};

TEST_P(BackendMatchesSeq, RandomMeshes) {
  const bm::Case cs = GetParam();
  const int shapes[][3] = {{1000, 3001, 777}, {37, 200, 50}, {1, 1, 1}, {0, 0, 0}, {5, 0, 3}};
  for (auto &sh : shapes) {
    SCOPED_TRACE("nodes " + std::to_string(sh[0]) + " edges " + std::to_string(sh[1]));
    Mesh m = random_mesh(sh[0], sh[0] ? sh[1] : 0, sh[0] ? sh[2] : 0, 42u + (unsigned)sh[0]);
    bm::run_and_compare_with_seq<Result>(
        cs, [&](const um_options &o, Result *res) { run_all(m, o, res); },
        [&](const Result &got, const Result &ref) { compare(m, got, ref); });
    if (HasFatalFailure()) return;
  }
}

std::vector<bm::Case> all_cases() {
  return bm::matrix({"seq", "openmp"}, {{UM_STRATEGY_AUTO, 0}}, {UM_AOS, UM_SOA, UM_LAYOUT_AUTO}, {1, 7, 64, 256, 1024},
                    true);
}

INSTANTIATE_TEST_SUITE_P(All, BackendMatchesSeq, ::testing::ValuesIn(all_cases()),
                         [](const auto &info) { return bm::case_name(info.param); });

// Reductions under OpenMP combine per-block partials in block order: the same
// bits whatever the number of threads.
TEST(OpenMP, ReductionsIndependentOfThreadCount) {
  if (!um_backend_available("openmp")) GTEST_SKIP() << "OpenMP backend not built";
  Mesh m = random_mesh(5000, 20000, 3000, 7);
  Result r1, r2, r3;
  const bm::Case omp = {"openmp", UM_STRATEGY_AUTO, 0, UM_AOS, 64};
  run_all(m, omp, 1, &r1);
  run_all(m, omp, 2, &r2);
  run_all(m, omp, 3, &r3);
  EXPECT_EQ(r1.sum[0], r2.sum[0]);
  EXPECT_EQ(r1.sum[1], r3.sum[1]);
  EXPECT_EQ(r1.esum, r2.esum);
  EXPECT_EQ(r2.esum, r3.esum);
}

}  // namespace
