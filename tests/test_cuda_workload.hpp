// The CUDA tests' workload: a random mesh and every test kernel of
// test_cuda_kernels.h run once on a context, results fetched. Used to record
// loops for code generation (on seq) and to compare the GPU with seq.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "test_random_mesh.hpp"

extern "C" {
#include "um/um.h"
extern const um_kernel tk_direct_kernel, tk_edge_kernel, tk_cell_kernel, tk_indirect_rw_kernel,
    tk_indirect_write_kernel, tk_gather_kernel, tk_nan_minmax_kernel, tk_simd_kernel,
    tk_minmax_types_kernel;
extern double tk_scale; /* the kernels' constant as the host backends see it */
}

namespace tcw {

using umtest::Mesh;
using umtest::random_mesh;

struct Result {
  std::vector<double> b, c, s, r, n, v, vw, acc;
  std::vector<float> f;
  double sum[2], mn, mx, esum, qmax;
  float fmin;
  int isum, cnt;
  double prefetched = -1; // run_all with prefetch: um_prefetch's bytes
};

#define TCW_OK(call) ASSERT_EQ((call), UM_SUCCESS) << um_error_message(ctx)

// Runs every test loop on ctx (reps times the edge loop); NaN-poisoned WRITE outputs.
// prefetch: um_prefetch after the declarations, then dat c given its values again (um_dat_update: its next loop,
// tk_direct, copies it again).
inline void run_all(um_context *ctx, const Mesh &m, Result *res, int reps = 2, bool prefetch = false) {
  um_set *nodes, *edges, *cells;
  um_map *pedge, *pcell, *pperm;
  TCW_OK(um_decl_set(ctx, m.nnode, "nodes", &nodes));
  TCW_OK(um_decl_set(ctx, m.nedge, "edges", &edges));
  TCW_OK(um_decl_set(ctx, m.ncell, "cells", &cells));
  TCW_OK(um_decl_map(ctx, edges, nodes, 2, m.edge.data(), "pedge", &pedge));
  TCW_OK(um_decl_map(ctx, cells, nodes, 4, m.cell.data(), "pcell", &pcell));
  TCW_OK(um_decl_map(ctx, nodes, nodes, 1, m.perm.data(), "pperm", &pperm));
  tk_scale = 1.5;
  TCW_OK(um_decl_const(ctx, "tk_scale", 1, UM_DOUBLE, &tk_scale));
  um_dat *u, *w, *q, *a, *b, *c, *s, *k, *r, *f, *n, *v, *vw, *x, *acc, *kd;
  std::vector<double> poison(3 * (size_t)m.nnode, std::nan(""));
  std::vector<double> zero(3 * (size_t)m.nnode, 0.0);
  TCW_OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.u.data(), "u", &u));
  TCW_OK(um_decl_dat(ctx, edges, 1, UM_DOUBLE, m.w.data(), "w", &w));
  TCW_OK(um_decl_dat(ctx, cells, 3, UM_DOUBLE, m.q.data(), "q", &q));
  TCW_OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, m.a.data(), "a", &a));
  TCW_OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, poison.data(), "b", &b));
  TCW_OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.c.data(), "c", &c));
  TCW_OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.v.data(), "s", &s));
  TCW_OK(um_decl_dat(ctx, nodes, 1, UM_INT, m.k.data(), "k", &k));
  TCW_OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.c.data(), "r", &r));
  TCW_OK(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f));
  TCW_OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, nullptr, "n", &n));
  TCW_OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.v.data(), "v", &v));
  TCW_OK(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, zero.data(), "vw", &vw));
  TCW_OK(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, m.x.data(), "x", &x));
  TCW_OK(um_decl_dat(ctx, edges, 2, UM_DOUBLE, nullptr, "acc", &acc));
  std::vector<double> kk(m.k.begin(), m.k.end());
  TCW_OK(um_decl_dat(ctx, nodes, 1, UM_DOUBLE, kk.data(), "kd", &kd));

  if (prefetch) {
    TCW_OK(um_prefetch(ctx, &res->prefetched));
    TCW_OK(um_dat_update(ctx, c, m.c.data(), m.c.size() * sizeof(double)));
  }
  res->sum[0] = 0.5;
  res->sum[1] = -0.25;
  res->mn = 1e30;
  res->mx = -1e30;
  res->isum = 3;
  TCW_OK(UM_PAR_LOOP(ctx, tk_direct_kernel, "tk_direct", nodes, um_arg_dat(a, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                     um_arg_dat(b, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE), um_arg_dat(c, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                     um_arg_dat(k, -1, UM_ID, 1, UM_INT, UM_READ), um_arg_dat(s, -1, UM_ID, 2, UM_DOUBLE, UM_INC),
                     um_arg_gbl(res->sum, 2, UM_DOUBLE, UM_INC), um_arg_gbl(&res->mn, 1, UM_DOUBLE, UM_MIN),
                     um_arg_gbl(&res->mx, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&res->isum, 1, UM_INT, UM_INC)));
  res->esum = 0;
  res->cnt = 0;
  double gread[2] = {1.25, -0.5};
  for (int rep = 0; rep < reps; rep++)
    TCW_OK(UM_PAR_LOOP(ctx, tk_edge_kernel, "tk_edge", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                       um_arg_dat(u, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, pedge, 2, UM_DOUBLE, UM_READ),
                       um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                       um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC), um_arg_gbl(&res->esum, 1, UM_DOUBLE, UM_INC),
                       um_arg_gbl(&res->cnt, 1, UM_INT, UM_INC), um_arg_gbl(gread, 2, UM_DOUBLE, UM_READ)));
  res->qmax = -1;
  res->fmin = 1e30f;
  TCW_OK(UM_PAR_LOOP(ctx, tk_cell_kernel, "tk_cell", cells, um_arg_dat(q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                     um_arg_dat(n, 0, pcell, 3, UM_DOUBLE, UM_INC), um_arg_dat(n, 1, pcell, 3, UM_DOUBLE, UM_INC),
                     um_arg_dat(n, 2, pcell, 3, UM_DOUBLE, UM_INC), um_arg_dat(n, 3, pcell, 3, UM_DOUBLE, UM_INC),
                     um_arg_gbl(&res->qmax, 1, UM_DOUBLE, UM_MAX), um_arg_gbl(&res->fmin, 1, UM_FLOAT, UM_MIN)));
  TCW_OK(UM_PAR_LOOP(ctx, tk_indirect_rw_kernel, "tk_indirect_rw", edges, um_arg_dat(v, 1, pedge, 2, UM_DOUBLE, UM_RW),
                     um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ)));
  TCW_OK(UM_PAR_LOOP(ctx, tk_indirect_write_kernel, "tk_indirect_write", nodes,
                     um_arg_dat(vw, 0, pperm, 3, UM_DOUBLE, UM_WRITE), um_arg_dat(kd, -1, UM_ID, 1, UM_DOUBLE, UM_READ)));
  TCW_OK(UM_PAR_LOOP(ctx, tk_gather_kernel, "tk_gather", edges, um_arg_dat(x, 0, pedge, 2, UM_DOUBLE, UM_READ),
                     um_arg_dat(x, 1, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(k, 0, pedge, 1, UM_INT, UM_READ),
                     um_arg_dat(acc, -1, UM_ID, 2, UM_DOUBLE, UM_INC)));

  auto fetch = [&](um_dat *d, std::vector<double> &out) {
    out.resize((size_t)um_set_size(um_dat_set(d)) * um_dat_dim(d));
    TCW_OK(um_dat_fetch(ctx, d, out.data(), out.size() * sizeof(double)));
  };
  fetch(b, res->b);
  fetch(c, res->c);
  fetch(s, res->s);
  fetch(r, res->r);
  fetch(n, res->n);
  fetch(v, res->v);
  fetch(vw, res->vw);
  fetch(acc, res->acc);
  res->f.resize(m.nnode);
  TCW_OK(um_dat_fetch(ctx, f, res->f.data(), res->f.size() * sizeof(float)));
}

template <class T>
inline bool same_bits(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
inline bool same_bits(const T &a, const T &b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Every output of run_all, bit for bit.
inline void expect_same(const tcw::Result &g, const tcw::Result &r) {
  EXPECT_TRUE(same_bits(g.b, r.b)) << "direct WRITE b";
  EXPECT_TRUE(same_bits(g.c, r.c)) << "direct RW c";
  EXPECT_TRUE(same_bits(g.s, r.s)) << "direct INC s";
  EXPECT_TRUE(same_bits(g.r, r.r)) << "INC r through a map";
  EXPECT_TRUE(same_bits(g.n, r.n)) << "INC n (arity 4)";
  EXPECT_TRUE(same_bits(g.v, r.v)) << "indirect RW v";
  EXPECT_TRUE(same_bits(g.vw, r.vw)) << "indirect WRITE vw";
  EXPECT_TRUE(same_bits(g.acc, r.acc)) << "direct INC acc";
  EXPECT_TRUE(same_bits(g.f, r.f)) << "float INC f";
  EXPECT_TRUE(same_bits(g.sum, r.sum)) << "gbl INC sum";
  EXPECT_TRUE(same_bits(g.mn, r.mn)) << "gbl MIN";
  EXPECT_TRUE(same_bits(g.mx, r.mx)) << "gbl MAX";
  EXPECT_TRUE(same_bits(g.esum, r.esum)) << "gbl INC esum";
  EXPECT_TRUE(same_bits(g.qmax, r.qmax)) << "gbl MAX qmax";
  EXPECT_TRUE(same_bits(g.fmin, r.fmin)) << "gbl float MIN";
  EXPECT_EQ(g.isum, r.isum);
  EXPECT_EQ(g.cnt, r.cnt);
}

// The loop names run_all runs.
inline std::vector<std::string> loop_names() {
  return {"tk_direct", "tk_edge", "tk_cell", "tk_indirect_rw", "tk_indirect_write", "tk_gather"};
}

}  // namespace tcw
