// The vector-argument workload (test_vec_kernels.h), shared by the host tests (test_vec_args.cpp) and
// the GPU test (test_cuda_backend.cpp): a cell-to-cell map of any arity with repeated targets, values
// that are small integers (every sum is exact, so any order gives the same bits), and each loop run
// with one vector argument or with one argument per map index.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
#include "um/um.h"
}
#include "test_vec_kernels_decl.h"

namespace tvw {

struct Mesh {
  int n = 0, arity = 0;
  std::vector<int> map;   // n * arity
  std::vector<double> q;  // n * 2, small integers
};

inline Mesh make(int n, int arity, unsigned seed) {
  Mesh m;
  m.n = n;
  m.arity = arity;
  unsigned s = seed;
  auto next = [&s]() { return s = s * 1103515245u + 12345u, (s >> 8) & 0xffffff; };
  for (int e = 0; e < n; e++)
    for (int j = 0; j < arity; j++)  // a neighbourhood around e, sometimes a target twice in one row
      m.map.push_back(j % 7 == 6 ? m.map.back() : (int)((e + (int)(next() % 41) - 20 + n) % n));
  for (int i = 0; i < 2 * n; i++) m.q.push_back((double)((int)(next() % 17) - 8));
  return m;
}

struct Decl {
  um_set *cells = nullptr;
  um_map *nbr = nullptr;
};

inline Decl declare(um_context *ctx, const Mesh &m) {
  Decl d;
  EXPECT_EQ(um_decl_set(ctx, m.n, "cells", &d.cells), UM_SUCCESS) << um_error_message(ctx);
  EXPECT_EQ(um_decl_map(ctx, d.cells, d.cells, m.arity, m.map.data(), "nbr", &d.nbr), UM_SUCCESS)
      << um_error_message(ctx);
  return d;
}

inline um_dat *dat(um_context *ctx, um_set *s, int dim, um_type t, const void *v, const std::string &name,
                   um_layout layout) {
  um_dat *d = nullptr;
  EXPECT_EQ(um_decl_dat(ctx, s, dim, t, v, name.c_str(), &d), UM_SUCCESS) << um_error_message(ctx);
  if (d) EXPECT_EQ(um_dat_set_layout(ctx, d, layout), UM_SUCCESS) << um_error_message(ctx);
  return d;
}

template <typename T> std::vector<T> fetch(um_context *ctx, um_dat *d, int n) {
  std::vector<T> v((size_t)n);
  EXPECT_EQ(um_dat_fetch(ctx, d, v.data(), v.size() * sizeof(T)), UM_SUCCESS) << um_error_message(ctx);
  return v;
}

// out[e] = sum_j (j + 1) * q[map[e][j]]: one vector READ arg, or per map index (arity 3: one loop;
// else one loop per index, out RW)
inline std::vector<double> sum(um_context *ctx, const Decl &D, const Mesh &m, bool vec, um_layout layout,
                               const std::string &tag) {
  um_dat *q = dat(ctx, D.cells, 2, UM_DOUBLE, m.q.data(), "q_" + tag, layout);
  um_dat *out = dat(ctx, D.cells, 2, UM_DOUBLE, nullptr, "out_" + tag, layout);
  const std::string name = "sum_" + tag;
  if (vec) {
    um_arg a[2] = {um_arg_vec(q, D.nbr, 2, UM_DOUBLE, UM_READ), um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
    EXPECT_EQ(um_par_loop(ctx, &tv_sum_vec_kernel, name.c_str(), D.cells, 2, a), UM_SUCCESS) << um_error_message(ctx);
  } else if (m.arity == 3) {
    um_arg a[4] = {um_arg_dat(q, 0, D.nbr, 2, UM_DOUBLE, UM_READ), um_arg_dat(q, 1, D.nbr, 2, UM_DOUBLE, UM_READ),
                   um_arg_dat(q, 2, D.nbr, 2, UM_DOUBLE, UM_READ), um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_WRITE)};
    EXPECT_EQ(um_par_loop(ctx, &tv_sum3_kernel, name.c_str(), D.cells, 4, a), UM_SUCCESS) << um_error_message(ctx);
  } else {
    for (int j = 0; j < m.arity; j++) {
      double w = j + 1;
      um_arg a[3] = {um_arg_dat(q, j, D.nbr, 2, UM_DOUBLE, UM_READ), um_arg_dat(out, -1, UM_ID, 2, UM_DOUBLE, UM_RW),
                     um_arg_gbl(&w, 1, UM_DOUBLE, UM_READ)};
      EXPECT_EQ(um_par_loop(ctx, &tv_sum1_kernel, name.c_str(), D.cells, 3, a), UM_SUCCESS) << um_error_message(ctx);
    }
  }
  return fetch<double>(ctx, out, 2 * m.n);
}

inline std::vector<double> sum_reference(const Mesh &m) {
  std::vector<double> r(2 * (size_t)m.n, 0.0);
  for (int e = 0; e < m.n; e++)
    for (int j = 0; j < m.arity; j++)
      for (int c = 0; c < 2; c++) r[2 * e + c] += (j + 1) * m.q[2 * (size_t)m.map[(size_t)e * m.arity + j] + c];
  return r;
}

// acc (starting at 100 + e) += (j + 1) * q[e] at every target j of e's row
inline std::vector<double> scatter(um_context *ctx, const Decl &D, const Mesh &m, bool vec, um_layout layout,
                                   const std::string &tag) {
  std::vector<double> init(2 * (size_t)m.n);
  for (size_t i = 0; i < init.size(); i++) init[i] = 100.0 + (double)i;
  um_dat *q = dat(ctx, D.cells, 2, UM_DOUBLE, m.q.data(), "sq_" + tag, layout);
  um_dat *acc = dat(ctx, D.cells, 2, UM_DOUBLE, init.data(), "acc_" + tag, layout);
  const std::string name = "scatter_" + tag;
  if (vec) {
    um_arg a[2] = {um_arg_dat(q, -1, UM_ID, 2, UM_DOUBLE, UM_READ), um_arg_vec(acc, D.nbr, 2, UM_DOUBLE, UM_INC)};
    EXPECT_EQ(um_par_loop(ctx, &tv_scatter_vec_kernel, name.c_str(), D.cells, 2, a), UM_SUCCESS)
        << um_error_message(ctx);
  } else {
    um_arg a[4] = {um_arg_dat(q, -1, UM_ID, 2, UM_DOUBLE, UM_READ), um_arg_dat(acc, 0, D.nbr, 2, UM_DOUBLE, UM_INC),
                   um_arg_dat(acc, 1, D.nbr, 2, UM_DOUBLE, UM_INC), um_arg_dat(acc, 2, D.nbr, 2, UM_DOUBLE, UM_INC)};
    EXPECT_EQ(um_par_loop(ctx, &tv_scatter3_kernel, name.c_str(), D.cells, 4, a), UM_SUCCESS)
        << um_error_message(ctx);
  }
  return fetch<double>(ctx, acc, 2 * m.n);
}

inline std::vector<double> scatter_reference(const Mesh &m) {
  std::vector<double> r(2 * (size_t)m.n);
  for (size_t i = 0; i < r.size(); i++) r[i] = 100.0 + (double)i;
  for (int e = 0; e < m.n; e++)
    for (int j = 0; j < m.arity; j++)
      for (int c = 0; c < 2; c++) r[2 * (size_t)m.map[(size_t)e * m.arity + j] + c] += (j + 1) * m.q[2 * (size_t)e + c];
  return r;
}

// every target counts its references (int) and sums 0.5f per reference (float)
inline void count(um_context *ctx, const Decl &D, const Mesh &m, bool vec, const std::string &tag,
                  std::vector<int> *cnt, std::vector<float> *half) {
  um_dat *c = dat(ctx, D.cells, 1, UM_INT, nullptr, "cnt_" + tag, UM_AOS);
  um_dat *h = dat(ctx, D.cells, 1, UM_FLOAT, nullptr, "half_" + tag, UM_AOS);
  const std::string name = "count_" + tag;
  if (vec) {
    um_arg a[2] = {um_arg_vec(c, D.nbr, 1, UM_INT, UM_INC), um_arg_vec(h, D.nbr, 1, UM_FLOAT, UM_INC)};
    EXPECT_EQ(um_par_loop(ctx, &tv_count_vec_kernel, name.c_str(), D.cells, 2, a), UM_SUCCESS) << um_error_message(ctx);
  } else {
    um_arg a[6];
    for (int j = 0; j < 3; j++) {
      a[j] = um_arg_dat(c, j, D.nbr, 1, UM_INT, UM_INC);
      a[3 + j] = um_arg_dat(h, j, D.nbr, 1, UM_FLOAT, UM_INC);
    }
    EXPECT_EQ(um_par_loop(ctx, &tv_count3_kernel, name.c_str(), D.cells, 6, a), UM_SUCCESS) << um_error_message(ctx);
  }
  *cnt = fetch<int>(ctx, c, m.n);
  *half = fetch<float>(ctx, h, m.n);
}

// a vector READ, a vector INC and a per-index INC in one loop (arity 3 for the per-index form)
inline std::vector<double> mixed(um_context *ctx, const Decl &D, const Mesh &m, bool vec, um_layout layout,
                                 const std::string &tag) {
  um_dat *q = dat(ctx, D.cells, 2, UM_DOUBLE, m.q.data(), "mq_" + tag, layout);
  um_dat *res = dat(ctx, D.cells, 2, UM_DOUBLE, nullptr, "mres_" + tag, layout);
  um_dat *r0 = dat(ctx, D.cells, 1, UM_DOUBLE, nullptr, "mr0_" + tag, layout);
  const std::string name = "mixed_" + tag;
  if (vec) {
    um_arg a[4] = {um_arg_dat(q, -1, UM_ID, 2, UM_DOUBLE, UM_READ), um_arg_vec(q, D.nbr, 2, UM_DOUBLE, UM_READ),
                   um_arg_vec(res, D.nbr, 2, UM_DOUBLE, UM_INC), um_arg_dat(r0, 0, D.nbr, 1, UM_DOUBLE, UM_INC)};
    EXPECT_EQ(um_par_loop(ctx, &tv_mixed_vec_kernel, name.c_str(), D.cells, 4, a), UM_SUCCESS) << um_error_message(ctx);
  } else {
    um_arg a[8] = {um_arg_dat(q, -1, UM_ID, 2, UM_DOUBLE, UM_READ),  um_arg_dat(q, 0, D.nbr, 2, UM_DOUBLE, UM_READ),
                   um_arg_dat(q, 1, D.nbr, 2, UM_DOUBLE, UM_READ),   um_arg_dat(q, 2, D.nbr, 2, UM_DOUBLE, UM_READ),
                   um_arg_dat(res, 0, D.nbr, 2, UM_DOUBLE, UM_INC),  um_arg_dat(res, 1, D.nbr, 2, UM_DOUBLE, UM_INC),
                   um_arg_dat(res, 2, D.nbr, 2, UM_DOUBLE, UM_INC),  um_arg_dat(r0, 0, D.nbr, 1, UM_DOUBLE, UM_INC)};
    EXPECT_EQ(um_par_loop(ctx, &tv_mixed3_kernel, name.c_str(), D.cells, 8, a), UM_SUCCESS) << um_error_message(ctx);
  }
  std::vector<double> v = fetch<double>(ctx, res, 2 * m.n), w = fetch<double>(ctx, r0, m.n);
  v.insert(v.end(), w.begin(), w.end());
  return v;
}

// Whole-dat arguments (um_arg_whole): a table on a set of its own (ntab rows, dim 2, small integers) and
// each cell's four picks, any rows of it.
struct Whole {
  int ntab = 0;
  std::vector<int> pick;   // n * 4
  std::vector<double> tab; // ntab * 2
};

inline Whole make_whole(const Mesh &m, int ntab, unsigned seed) {
  Whole w;
  w.ntab = ntab;
  unsigned s = seed;
  auto next = [&s]() { return s = s * 1103515245u + 12345u, (s >> 8) & 0xffffff; };
  for (int e = 0; e < 4 * m.n; e++) w.pick.push_back(e % 5 == 4 ? 0 : (int)(next() % (unsigned)ntab));
  for (int i = 0; i < 2 * ntab; i++) w.tab.push_back((double)((int)(next() % 13) - 6));
  return w;
}

// out[e] = sum_j (j + 1) tab[pick[e][j]], then the table's size as the kernel saw it (dim 3)
inline std::vector<double> gather_whole(um_context *ctx, um_set *cells, const Mesh &m, const Whole &w,
                                        um_layout layout, const std::string &tag) {
  um_set *tabs = nullptr;
  EXPECT_EQ(um_decl_set(ctx, w.ntab, ("tab_" + tag).c_str(), &tabs), UM_SUCCESS) << um_error_message(ctx);
  um_dat *pick = dat(ctx, cells, 4, UM_INT, w.pick.data(), "pick_" + tag, UM_AOS);
  um_dat *tab = dat(ctx, tabs, 2, UM_DOUBLE, w.tab.data(), "t_" + tag, layout);
  um_dat *out = dat(ctx, cells, 3, UM_DOUBLE, nullptr, "gw_" + tag, layout);
  um_arg a[3] = {um_arg_dat(pick, -1, UM_ID, 4, UM_INT, UM_READ), um_arg_whole(tab, 2, UM_DOUBLE, UM_READ),
                 um_arg_dat(out, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE)};
  EXPECT_EQ(um_par_loop(ctx, &tv_gather_whole_kernel, ("gather_whole_" + tag).c_str(), cells, 3, a), UM_SUCCESS)
      << um_error_message(ctx);
  return fetch<double>(ctx, out, 3 * m.n);
}

inline std::vector<double> gather_whole_reference(const Mesh &m, const Whole &w) {
  std::vector<double> r;
  for (int e = 0; e < m.n; e++) {
    for (int c = 0; c < 2; c++) {
      double s = 0;
      for (int j = 0; j < 4; j++) s += (j + 1) * w.tab[2 * (size_t)w.pick[4 * (size_t)e + j] + c];
      r.push_back(s);
    }
    r.push_back(w.ntab);
  }
  return r;
}

// tab (starting at 50 + i) += (j + 1) q[e] at each of e's picks; `calls` times
inline std::vector<double> scatter_whole(um_context *ctx, um_set *cells, const Mesh &m, const Whole &w,
                                         um_layout layout, const std::string &tag, int calls = 1) {
  um_set *tabs = nullptr;
  EXPECT_EQ(um_decl_set(ctx, w.ntab, ("stab_" + tag).c_str(), &tabs), UM_SUCCESS) << um_error_message(ctx);
  std::vector<double> init(2 * (size_t)w.ntab);
  for (size_t i = 0; i < init.size(); i++) init[i] = 50.0 + (double)i;
  um_dat *pick = dat(ctx, cells, 4, UM_INT, w.pick.data(), "spick_" + tag, UM_AOS);
  um_dat *q = dat(ctx, cells, 2, UM_DOUBLE, m.q.data(), "wq_" + tag, layout);
  um_dat *tab = dat(ctx, tabs, 2, UM_DOUBLE, init.data(), "st_" + tag, layout);
  um_arg a[3] = {um_arg_dat(pick, -1, UM_ID, 4, UM_INT, UM_READ), um_arg_dat(q, -1, UM_ID, 2, UM_DOUBLE, UM_READ),
                 um_arg_whole(tab, 2, UM_DOUBLE, UM_INC)};
  for (int k = 0; k < calls; k++)
    EXPECT_EQ(um_par_loop(ctx, &tv_scatter_whole_kernel, ("scatter_whole_" + tag).c_str(), cells, 3, a), UM_SUCCESS)
        << um_error_message(ctx);
  return fetch<double>(ctx, tab, 2 * w.ntab);
}

inline std::vector<double> scatter_whole_reference(const Mesh &m, const Whole &w, int calls = 1) {
  std::vector<double> r(2 * (size_t)w.ntab);
  for (size_t i = 0; i < r.size(); i++) r[i] = 50.0 + (double)i;
  for (int k = 0; k < calls; k++)
    for (int e = 0; e < m.n; e++)
      for (int j = 0; j < 4; j++)
        for (int c = 0; c < 2; c++) r[2 * (size_t)w.pick[4 * (size_t)e + j] + c] += (j + 1) * m.q[2 * (size_t)e + c];
  return r;
}

}  // namespace tvw
