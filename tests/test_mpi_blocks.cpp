// A mesh declared by blocks (um_decl_set_block / um_decl_map_block: no rank holds the whole mesh) against the same
// mesh declared whole, both distributed with the block partitioner: the same counts and local order on every rank,
// the same local maps, bit-identical loops and reductions, and reductions equal to one process; blocks that do not
// tile and declarations that mix the two fail on every rank alike. Part of um_mpi_tests (ctest: 1 to 4 ranks).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#define OMPI_SKIP_MPICXX 1  // the C API only (no C++ bindings to link)
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "airfoil.h"
#include "jacobi/jacobi.h"
#include "lulesh/lulesh.h"
#include "test_kernels.h"
#include "test_mpi_same.hpp"
#include "um/backend.h"
#include "um/hdf5io.h"
#include "um/um.h"

extern "C" int um__dist_l2g(um_context *ctx, const um_set *s, const long long **l2g); // distributed/dist.h
extern "C" int um_test_halo_stale(const um_dat *d); // test_gmap.c
extern "C" void um_test_set_halo_stale(um_dat *d, int stale);

namespace {

struct QuadMesh {  // N x N quads: cells -> 4 nodes; interior edges -> 2 cells and -> their 2 nodes
  int N, nnode, ncell, nedge;
  std::vector<int> cell_nodes, edge_cells, edge_nodes;
  explicit QuadMesh(int n) : N(n), nnode((n + 1) * (n + 1)), ncell(n * n) {
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++) {
        const int a = j * (N + 1) + i;
        cell_nodes.insert(cell_nodes.end(), {a, a + 1, a + N + 2, a + N + 1});
        if (i + 1 < N) {
          edge_cells.insert(edge_cells.end(), {j * N + i, j * N + i + 1});
          edge_nodes.insert(edge_nodes.end(), {a + 1, a + N + 2});
        }
        if (j + 1 < N) {
          edge_cells.insert(edge_cells.end(), {j * N + i, (j + 1) * N + i});
          edge_nodes.insert(edge_nodes.end(), {a + N + 1, a + N + 2});
        }
      }
    nedge = (int)edge_cells.size() / 2;
  }
};

// Where rank q's block of n elements begins: the block partitioner's ranges (element i on rank i * P / n), or
// skewed ones (rank q from n q^2 / P^2: homes that are not the owners).
long long block_begin(long long n, int q, int P, bool skew) {
  if (q >= P) return n;
  return skew ? n * q * q / ((long long)P * P) : (n * q + P - 1) / P;
}

struct Block {
  long long b = 0;
  int n = 0;
};
Block my_block(long long n, bool skew, int shrink) {
  const int P = um_mpi_size(), q = um_mpi_rank();
  Block k;
  k.b = block_begin(n, q, P, skew);
  k.n = (int)(block_begin(n, q + 1, P, skew) - k.b);
  if (shrink == 1 && q == P - 1 && k.n > 0) k.n--;  // the last element declared by nobody
  if (shrink == 2 && q == 0 && k.n > 0) k.n--;      // a gap before rank 1's block
  return k;
}

template <typename T>
std::vector<T> rows(const std::vector<T> &v, const Block &k, int dim) {
  return std::vector<T>(v.begin() + k.b * dim, v.begin() + (k.b + k.n) * dim);
}
std::vector<long long> map_rows(const std::vector<int> &v, const Block &k, int ar) {
  std::vector<long long> r;
  for (long long i = k.b * ar; i < (k.b + k.n) * ar; i++) r.push_back(v[i]);
  return r;
}

struct Variant {              // what a mesh is declared and run with
  const char *primary = "cells";
  bool en_first = false;      // edge_nodes declared before cell_nodes: nodes placed through the edges
  bool extra = false;         // a set no map connects (the block split), with a dat
  const char *backend = "seq";
  bool soa = false;
  um_increments incs = UM_INCREMENTS_REDUNDANT;
  const char *partitioner = "block";
  int rows32 = 0; // maps handed over as 32-bit rows (um_decl_map_block_take_i32): 1 everywhere, 2 on
      // the even ranks alone (the others 64-bit)
};

struct BMesh {
  um_context *ctx = nullptr;
  um_set *extra = nullptr;
  um_dat *xd = nullptr;
  um_set *nodes = nullptr, *cells = nullptr, *edges = nullptr;
  um_map *ec = nullptr, *cn = nullptr, *en = nullptr;
  um_dat *q = nullptr, *w = nullptr, *u = nullptr, *r = nullptr, *f = nullptr, *nu = nullptr, *nr = nullptr,
         *nf = nullptr, *nv = nullptr;
  ~BMesh() { um_finalize(&ctx); }
  // blocks: declared by blocks (cells on the block partitioner's ranges, nodes and edges skewed); returns
  // um_distribute's code (distribute) or 0
  int build(const QuadMesh &g, bool blocks, bool distribute, int shrink = 0, const Variant &v = Variant()) {
    um_options o;
    um_options_default(&o);
    o.backend = v.backend;
    o.block_size = 16;
    EXPECT_EQ(um_options_set(&o, "openmp.parallel_threshold", "0"), 0);
    if (v.soa) o.layout = UM_SOA;
    EXPECT_EQ(um_init(&ctx, &o), 0);
    EXPECT_EQ(um_context_set_increments(ctx, v.incs), 0);
    std::vector<double> qv(3 * g.ncell), wv(g.nedge), uv(2 * g.ncell), nuv(2 * g.nnode);
    for (int c = 0; c < g.ncell; c++) {
      for (int k = 0; k < 3; k++) qv[3 * c + k] = std::sin(0.1 * c + k);
      uv[2 * c] = std::cos(0.3 * c), uv[2 * c + 1] = 0.01 * c;
    }
    for (int e = 0; e < g.nedge; e++) wv[e] = 1.0 + 0.001 * e;
    for (int v = 0; v < g.nnode; v++) nuv[2 * v] = std::sin(0.2 * v), nuv[2 * v + 1] = 0.3 - 0.02 * v;
    const int nx = 5;  // the extra set: fewer elements than some rank counts
    std::vector<double> xv(nx);
    for (int i = 0; i < nx; i++) xv[i] = 10.0 + i;
    // the primary set on the block partitioner's ranges, the others skewed
    auto blk = [&](int n, const char *name, int sh) {
      return blocks ? my_block(n, strcmp(name, v.primary) != 0, sh) : Block{0, n};
    };
    const Block bc = blk(g.ncell, "cells", shrink), bn = blk(g.nnode, "nodes", 0), be = blk(g.nedge, "edges", 0);
    const Block bx = blk(nx, "extra", 0);
    auto set = [&](int n, const Block &k, const char *name, um_set **out) {
      if (blocks) EXPECT_EQ(um_decl_set_block(ctx, n, k.b, k.n, name, out), 0) << um_error_message(ctx);
      else EXPECT_EQ(um_decl_set(ctx, n, name, out), 0) << um_error_message(ctx);
    };
    auto map = [&](um_set *from, um_set *to, int ar, const std::vector<int> &data, const Block &k, const char *name,
                   um_map **out) {
      if (blocks && (v.rows32 == 1 || (v.rows32 == 2 && um_mpi_rank() % 2 == 0))) {
        int *t = (int *)malloc(sizeof(int) * ((size_t)k.n * ar + 1));
        std::memcpy(t, data.data() + k.b * ar, sizeof(int) * (size_t)k.n * ar);
        EXPECT_EQ(um_decl_map_block_take_i32(ctx, from, to, ar, t, name, out), 0) << um_error_message(ctx);
      } else if (blocks)
        EXPECT_EQ(um_decl_map_block(ctx, from, to, ar, map_rows(data, k, ar).data(), name, out), 0) << um_error_message(ctx);
      else
        EXPECT_EQ(um_decl_map(ctx, from, to, ar, data.data(), name, out), 0) << um_error_message(ctx);
    };
    set(g.nnode, bn, "nodes", &nodes);
    set(g.ncell, bc, "cells", &cells);
    set(g.nedge, be, "edges", &edges);
    if (v.extra) set(nx, bx, "extra", &extra);
    map(edges, cells, 2, g.edge_cells, be, "edge_cells", &ec);
    if (v.en_first) map(edges, nodes, 2, g.edge_nodes, be, "edge_nodes", &en);
    map(cells, nodes, 4, g.cell_nodes, bc, "cell_nodes", &cn);
    if (!v.en_first) map(edges, nodes, 2, g.edge_nodes, be, "edge_nodes", &en);
    if (v.extra) EXPECT_EQ(um_decl_dat(ctx, extra, 1, UM_DOUBLE, rows(xv, bx, 1).data(), "xd", &xd), 0);
    EXPECT_EQ(um_decl_dat(ctx, cells, 3, UM_DOUBLE, rows(qv, bc, 3).data(), "q", &q), 0);
    EXPECT_EQ(um_decl_dat(ctx, edges, 1, UM_DOUBLE, rows(wv, be, 1).data(), "w", &w), 0);
    EXPECT_EQ(um_decl_dat(ctx, cells, 2, UM_DOUBLE, rows(uv, bc, 2).data(), "u", &u), 0);
    EXPECT_EQ(um_decl_dat(ctx, cells, 2, UM_DOUBLE, nullptr, "r", &r), 0);
    EXPECT_EQ(um_decl_dat(ctx, cells, 1, UM_FLOAT, nullptr, "f", &f), 0);
    EXPECT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, rows(nuv, bn, 2).data(), "nu", &nu), 0);
    EXPECT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, nullptr, "nr", &nr), 0);
    EXPECT_EQ(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "nf", &nf), 0);
    EXPECT_EQ(um_decl_dat(ctx, nodes, 3, UM_DOUBLE, nullptr, "nv", &nv), 0);
    return distribute ? um_distribute(ctx, v.primary, v.partitioner) : 0;
  }
  // increments through edge->cell and edge->node with global sums, corner increments with a MAX, RW through a map
  void step(double red[5]) {
    double s1 = 0, s2 = 0, mx = -1e300;
    int c1 = 0, c2 = 0;
    ASSERT_EQ(UM_PAR_LOOP(ctx, edge_inc_kernel, "edge_inc", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(u, 0, ec, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, ec, 2, UM_DOUBLE, UM_READ),
                          um_arg_dat(r, 0, ec, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, ec, 2, UM_DOUBLE, UM_INC),
                          um_arg_dat(f, 0, ec, 1, UM_FLOAT, UM_INC), um_arg_gbl(&s1, 1, UM_DOUBLE, UM_INC),
                          um_arg_gbl(&c1, 1, UM_INT, UM_INC)),
              0)
        << um_error_message(ctx);
    ASSERT_EQ(UM_PAR_LOOP(ctx, edge_inc_kernel, "edge_node_inc", edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(nu, 0, en, 2, UM_DOUBLE, UM_READ), um_arg_dat(nu, 1, en, 2, UM_DOUBLE, UM_READ),
                          um_arg_dat(nr, 0, en, 2, UM_DOUBLE, UM_INC), um_arg_dat(nr, 1, en, 2, UM_DOUBLE, UM_INC),
                          um_arg_dat(nf, 0, en, 1, UM_FLOAT, UM_INC), um_arg_gbl(&s2, 1, UM_DOUBLE, UM_INC),
                          um_arg_gbl(&c2, 1, UM_INT, UM_INC)),
              0)
        << um_error_message(ctx);
    ASSERT_EQ(UM_PAR_LOOP(ctx, cell_inc_kernel, "cell_inc", cells, um_arg_dat(q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                          um_arg_dat(nv, 0, cn, 3, UM_DOUBLE, UM_INC), um_arg_dat(nv, 1, cn, 3, UM_DOUBLE, UM_INC),
                          um_arg_dat(nv, 2, cn, 3, UM_DOUBLE, UM_INC), um_arg_dat(nv, 3, cn, 3, UM_DOUBLE, UM_INC),
                          um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX)),
              0)
        << um_error_message(ctx);
    ASSERT_EQ(UM_PAR_LOOP(ctx, indirect_rw_kernel, "indirect_rw", edges, um_arg_dat(u, 0, ec, 2, UM_DOUBLE, UM_RW),
                          um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ)),
              0)
        << um_error_message(ctx);
    red[0] = s1, red[1] = s2, red[2] = mx, red[3] = c1, red[4] = c2;
  }
};

template <typename T>
std::vector<T> fetch(um_context *ctx, um_dat *d) {
  std::vector<T> v((size_t)um_set_size(um_dat_set(d)) * um_dat_dim(d));
  EXPECT_EQ(um_dat_fetch(ctx, d, v.data(), v.size() * sizeof(T)), 0) << um_error_message(ctx);
  return v;
}

// The same partition on every rank: counts of every rank, this rank's local -> global order and local maps.
void expect_same_layout(const BMesh &a, const BMesh &b) {
  const std::vector<std::pair<um_set *, um_set *>> sets = {{a.nodes, b.nodes}, {a.cells, b.cells}, {a.edges, b.edges}};
  for (const auto &s : sets) {
    EXPECT_EQ(um_set_size(s.first), um_set_size(s.second));
    for (int q = 0; q < um_context_nranks(a.ctx); q++) {
      int x[3], y[3];
      ASSERT_EQ(um_set_partition(s.first, q, &x[0], &x[1], &x[2]), 0);
      ASSERT_EQ(um_set_partition(s.second, q, &y[0], &y[1], &y[2]), 0);
      EXPECT_EQ(std::vector<int>(x, x + 3), std::vector<int>(y, y + 3)) << um_set_name(s.first) << " on rank " << q;
    }
    int o, e, n;
    ASSERT_EQ(um_set_partition(s.first, um_context_rank(a.ctx), &o, &e, &n), 0);
    const long long *la = nullptr, *lb = nullptr;
    ASSERT_EQ(um__dist_l2g(a.ctx, s.first, &la), 0);
    ASSERT_EQ(um__dist_l2g(b.ctx, s.second, &lb), 0);
    ASSERT_EQ(la == nullptr, lb == nullptr);
    if (la)
      EXPECT_EQ(std::vector<long long>(la, la + o + e + n), std::vector<long long>(lb, lb + o + e + n))
          << um_set_name(s.first);
  }
  const std::vector<std::pair<um_map *, um_map *>> maps = {{a.ec, b.ec}, {a.cn, b.cn}, {a.en, b.en}};
  for (const auto &m : maps) {
    int o, e, n;
    ASSERT_EQ(um_set_partition(um_map_from(m.first), um_context_rank(a.ctx), &o, &e, &n), 0);
    const size_t len = (size_t)(o + e + n) * um_map_arity(m.first);
    const int *x = um_map_data(m.first), *y = um_map_data(m.second);
    EXPECT_EQ(std::vector<int>(x, x + len), std::vector<int>(y, y + len)) << um_map_name(m.first);
  }
}

template <typename T>
void expect_same_bits(const std::vector<T> &x, const std::vector<T> &y, const char *what) {
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); i++)
    ASSERT_EQ(std::memcmp(&x[i], &y[i], sizeof(T)), 0) << what << "[" << i << "]: " << x[i] << " vs " << y[i];
}

Variant variant(int k) {
  Variant v;
  if (k == 1) {  // nodes placed through the edges, a set no map connects, SoA, reverse increments, openmp
    v.en_first = true, v.extra = true, v.soa = true, v.incs = UM_INCREMENTS_REVERSE;
    v.backend = um_backend_available("openmp") ? "openmp" : "seq";
  } else if (k == 2) {  // nodes primary: cells and edges placed from their first node
    v.primary = "nodes", v.extra = true, v.incs = UM_INCREMENTS_AUTO;
  } else if (k == 3) {  // nodes primary, SoA: the cells' blocks start before their nodes' (not core rows first)
    v.primary = "nodes", v.soa = true;
  }
  return v;
}

class Blocks : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(Blocks, SameLayoutAndBitsAsTheWholeDeclaration) {
  const QuadMesh g(std::get<0>(GetParam()));  // 1: fewer cells (and edges: none) than ranks
  const Variant v = variant(std::get<1>(GetParam()));
  BMesh one, whole, blk;
  ASSERT_EQ(one.build(g, false, false, 0, v), 0);
  ASSERT_EQ(whole.build(g, false, true, 0, v), 0) << um_error_message(whole.ctx);
  ASSERT_EQ(blk.build(g, true, true, 0, v), 0) << um_error_message(blk.ctx);
  EXPECT_EQ(um_context_nranks(blk.ctx), um_mpi_size());
  expect_same_layout(whole, blk);
  if (um_mpi_size() > 1) {
    um_partition_info pi;
    ASSERT_EQ(um_partition_info_get(blk.ctx, &pi), 0);
    EXPECT_STREQ(pi.partitioner, "block");
    EXPECT_STREQ(pi.primary, v.primary);
    um_partition_info pw;  // the graph built from the blocks' rows: the whole declaration's edge cut
    ASSERT_EQ(um_partition_info_get(whole.ctx, &pw), 0);
    EXPECT_EQ(pi.edge_cut, pw.edge_cut) << pi.note;
    EXPECT_EQ(pi.imbalance, pw.imbalance);
  }
  if (v.extra) {
    expect_same_bits(fetch<double>(whole.ctx, whole.xd), fetch<double>(blk.ctx, blk.xd), "xd");
    for (int q = 0; q < um_context_nranks(blk.ctx); q++) {
      int x[3], y[3];
      ASSERT_EQ(um_set_partition(whole.extra, q, &x[0], &x[1], &x[2]), 0);
      ASSERT_EQ(um_set_partition(blk.extra, q, &y[0], &y[1], &y[2]), 0);
      EXPECT_EQ(std::vector<int>(x, x + 3), std::vector<int>(y, y + 3)) << "extra on rank " << q;
    }
  }
  for (int it = 0; it < 3; it++) {
    double r1[5], r2[5], r3[5];
    one.step(r1);
    whole.step(r2);
    blk.step(r3);
    for (int k = 0; k < 5; k++) EXPECT_EQ(std::memcmp(&r2[k], &r3[k], sizeof(double)), 0) << "reduction " << k;
    EXPECT_EQ(r1[2], r3[2]);  // MAX and the counts: exactly one process's
    EXPECT_EQ(r1[3], r3[3]);
    EXPECT_EQ(r1[4], r3[4]);
    for (int k = 0; k < 2; k++) EXPECT_NEAR(r1[k], r3[k], 1e-12 * (1 + std::fabs(r1[k])));
  }
  const std::vector<std::pair<um_dat *, um_dat *>> dd = {{whole.r, blk.r},   {whole.u, blk.u},   {whole.nr, blk.nr},
                                                         {whole.nv, blk.nv}, {whole.nu, blk.nu}, {whole.q, blk.q}};
  const std::vector<um_dat *> od = {one.r, one.u, one.nr, one.nv, one.nu, one.q};
  for (size_t i = 0; i < dd.size(); i++) {
    const std::vector<double> x = fetch<double>(whole.ctx, dd[i].first), y = fetch<double>(blk.ctx, dd[i].second);
    expect_same_bits(x, y, um_dat_name(dd[i].first));
    const std::vector<double> z = fetch<double>(one.ctx, od[i]);
    for (size_t j = 0; j < z.size(); j++) ASSERT_NEAR(y[j], z[j], 1e-12 * (1 + std::fabs(z[j]))) << um_dat_name(od[i]);
  }
  expect_same_bits(fetch<float>(whole.ctx, whole.f), fetch<float>(blk.ctx, blk.f), "f");
  expect_same_bits(fetch<float>(whole.ctx, whole.nf), fetch<float>(blk.ctx, blk.nf), "nf");
  std::vector<int> m(4 * (size_t)g.ncell);  // the global view of a map (its gather order built now)
  ASSERT_EQ(um_map_fetch(blk.ctx, blk.cn, m.data(), m.size() * sizeof(int)), 0) << um_error_message(blk.ctx);
  EXPECT_EQ(m, g.cell_nodes);
}

INSTANTIATE_TEST_SUITE_P(Sizes, Blocks, ::testing::Combine(::testing::Values(7, 16, 2, 1), ::testing::Values(0, 1, 2)));

// PT-Scotch's parts of the graph each rank builds from its block's rows: every element owned once, the loops those
// of one process.
// The map of global numbers to local indices the distribution uses, in each of its forms (dense, paged, hash) against
// a plain array: tests/test_gmap.c.
extern "C" int um_test_gmap_forms(char *err, size_t errlen);
TEST(GlobalMap, EveryFormAgreesWithAnArray) {
  char err[256] = "";
  EXPECT_EQ(um_test_gmap_forms(err, sizeof err), 0) << err;
}

// Two steps on one process and on a distributed mesh: the same MAX and counts, sums and dats within rounding.
void expect_loops_of_one_process(BMesh &one, BMesh &dist) {
  for (int it = 0; it < 2; it++) {
    double r1[5], r3[5];
    one.step(r1);
    dist.step(r3);
    EXPECT_EQ(r1[2], r3[2]);
    EXPECT_EQ(r1[3], r3[3]);
    EXPECT_EQ(r1[4], r3[4]);
    for (int k = 0; k < 2; k++) EXPECT_NEAR(r1[k], r3[k], 1e-12 * (1 + std::fabs(r1[k])));
  }
  for (auto pr : {std::make_pair(one.r, dist.r), std::make_pair(one.nr, dist.nr), std::make_pair(one.nv, dist.nv),
                  std::make_pair(one.u, dist.u), std::make_pair(one.nu, dist.nu)}) {
    const std::vector<double> x = fetch<double>(one.ctx, pr.first), y = fetch<double>(dist.ctx, pr.second);
    for (size_t j = 0; j < x.size(); j++) ASSERT_NEAR(y[j], x[j], 1e-12 * (1 + std::fabs(x[j]))) << um_dat_name(pr.first);
  }
}

TEST(BlocksPtscotch, PartitionsTheDistributedGraph) {
  if (!um_mpi_partitioner_built("ptscotch")) GTEST_SKIP() << "no PT-Scotch";
  const QuadMesh g(9);
  Variant v;
  v.partitioner = "ptscotch";
  BMesh one, blk;
  ASSERT_EQ(one.build(g, false, false, 0, v), 0);
  ASSERT_EQ(blk.build(g, true, true, 0, v), 0) << um_error_message(blk.ctx);
  const int P = um_mpi_size();
  if (P > 1) {
    um_partition_info pi;
    ASSERT_EQ(um_partition_info_get(blk.ctx, &pi), 0);
    EXPECT_STREQ(pi.partitioner, "ptscotch") << pi.note;
    EXPECT_GT(pi.edge_cut, 0);
    EXPECT_LT(pi.edge_cut, 2 * g.nedge);
    for (um_set *s : {blk.cells, blk.nodes, blk.edges}) {
      long long sum = 0;
      for (int q = 0; q < P; q++) {
        int o, e, n;
        ASSERT_EQ(um_set_partition(s, q, &o, &e, &n), 0);
        if (s == blk.cells) EXPECT_GT(o, 0) << "rank " << q;
        sum += o;
      }
      EXPECT_EQ(sum, um_set_size(s)) << um_set_name(s);
    }
  }
  expect_loops_of_one_process(one, blk);
}

// "ranges": no partitioner, every set as declared. By blocks, each rank owns exactly the blocks it declared (here
// skewed ones for the nodes and edges: homes the block partitioner would not pick); declared whole, each set is
// split into the block partitioner's ranges of its own numbering. Either way the loops are those of one process.
class Ranges : public ::testing::TestWithParam<std::tuple<int, bool, int>> {};
TEST_P(Ranges, EveryRankOwnsItsDeclaredRangesAndTheLoopsAreOneProcesss) {
  const QuadMesh g(std::get<0>(GetParam()));
  const bool blocks = std::get<1>(GetParam());
  Variant v = variant(std::get<2>(GetParam()));
  v.partitioner = "ranges";
  BMesh one, rg;
  ASSERT_EQ(one.build(g, false, false, 0, v), 0);
  ASSERT_EQ(rg.build(g, blocks, true, 0, v), 0) << um_error_message(rg.ctx);
  const int P = um_mpi_size();
  if (P > 1) {
    um_partition_info pi;
    ASSERT_EQ(um_partition_info_get(rg.ctx, &pi), 0);
    EXPECT_STREQ(pi.partitioner, "ranges") << pi.note;
    EXPECT_EQ(pi.edge_cut, -1);
  }
  const std::vector<std::pair<um_set *, int>> sets = {{rg.cells, g.ncell}, {rg.nodes, g.nnode}, {rg.edges, g.nedge}};
  for (const auto &s : sets) {
    const bool skew = blocks && strcmp(um_set_name(s.first), v.primary) != 0;
    for (int q = 0; q < P; q++) {
      int o, e, n;
      ASSERT_EQ(um_set_partition(s.first, q, &o, &e, &n), 0);
      const long long want = block_begin(s.second, q + 1, P, skew) - block_begin(s.second, q, P, skew);
      EXPECT_EQ(o, want) << um_set_name(s.first) << " on rank " << q;
    }
  }
  expect_loops_of_one_process(one, rg);
  std::vector<int> m(4 * (size_t)g.ncell);
  ASSERT_EQ(um_map_fetch(rg.ctx, rg.cn, m.data(), m.size() * sizeof(int)), 0) << um_error_message(rg.ctx);
  EXPECT_EQ(m, g.cell_nodes);
}
INSTANTIATE_TEST_SUITE_P(Sizes, Ranges,
                         ::testing::Combine(::testing::Values(7, 2), ::testing::Bool(), ::testing::Values(0, 1)));

// "ranges" keeps each rank's owned rows where they were declared (dist_ranges.c): the same layout, local maps, dat
// rows (halo rows once the first loop has exchanged them) and loops to the bit as the general steps of a
// distribution by blocks (UM_TEST_RANGES_GENERAL=1). Variants 2 and 3 (nodes primary) start a rank's cells with rows that are not core,
// so that the core rows move down in the maps' and dats' buffers (AoS, and SoA in 3).
class RangesInstall : public ::testing::TestWithParam<std::tuple<int, int>> {};
TEST_P(RangesInstall, TheGeneralStepsToTheByte) {
  const QuadMesh g(std::get<0>(GetParam()));
  Variant v = variant(std::get<1>(GetParam()));
  v.partitioner = "ranges";
  BMesh kept, general;
  ASSERT_EQ(kept.build(g, true, true, 0, v), 0) << um_error_message(kept.ctx);
  setenv("UM_TEST_RANGES_GENERAL", "1", 1);
  const int rc = general.build(g, true, true, 0, v);
  unsetenv("UM_TEST_RANGES_GENERAL");
  ASSERT_EQ(rc, 0) << um_error_message(general.ctx);
  expect_same_layout(kept, general);
  for (um_set *s : {kept.nodes, kept.cells, kept.edges}) {
    um_set *t = um_find_set(general.ctx, um_set_name(s));
    int a[4], b[4];
    um_set_ranges(s, &a[0], &a[1], &a[2]);
    um_set_ranges(t, &b[0], &b[1], &b[2]);
    a[3] = um_set_core_begin(s), b[3] = um_set_core_begin(t);
    EXPECT_EQ(std::vector<int>(a, a + 4), std::vector<int>(b, b + 4)) << um_set_name(s);
  }
  // a block of a grid numbered row by row: its first cells and edges read the nodes of the rank before, the middle
  // ones none, so on the last rank the owned keep their order, the core a run inside them
  const int P = um_mpi_size(), rank = um_context_rank(kept.ctx);
  if (P > 1 && rank == P - 1 && std::get<0>(GetParam()) == 9)
    EXPECT_GT(std::max(um_set_core_begin(kept.cells), um_set_core_begin(kept.edges)), 0);
  const std::vector<std::pair<um_dat *, um_dat *>> dats = {{kept.q, general.q},   {kept.w, general.w},
                                                          {kept.u, general.u},   {kept.r, general.r},
                                                          {kept.nu, general.nu}, {kept.nv, general.nv}};
  // rows: the owned (halos 0) or every row this rank holds (halos 1); ranges leaves the halo rows for the first
  // loop that reads them to exchange, so they are compared after a step
  auto same_rows = [&](const std::vector<std::pair<um_dat *, um_dat *>> &pairs, bool halos) {
    for (const auto &d : pairs) {
      if (v.soa && um_dat_dim(d.first) > 1) continue; // SoA: the stride is the padded rows; the loops compare
      int o, e, n;
      ASSERT_EQ(um_set_partition(um_dat_set(d.first), um_context_rank(kept.ctx), &o, &e, &n), 0);
      const size_t len = (size_t)(halos ? o + e + n : o) * um_dat_dim(d.first) * sizeof(double);
      const char *x = (const char *)um_dat_host_data(d.first), *y = (const char *)um_dat_host_data(d.second);
      EXPECT_EQ(std::memcmp(x, y, len), 0) << um_dat_name(d.first) << (halos ? ", halo rows too" : "");
    }
  };
  same_rows(dats, false);
  // the same halos left for the first loop to exchange: a loop that exchanges runs its core elements apart (loop.c),
  // which moves the increments' order under OpenMP
  for (const auto &d : dats) um_test_set_halo_stale(d.second, um_test_halo_stale(d.first));
  EXPECT_TRUE(um_mpi_size() == 1 || um_test_halo_stale(kept.q)) << "ranges exchanges the halo rows of q later";
  double r1[5], r2[5];
  kept.step(r1), general.step(r2);
  same_rows({{kept.q, general.q}, {kept.w, general.w}, {kept.u, general.u}, {kept.nu, general.nu}}, true);
  kept.step(r1), general.step(r2);
  EXPECT_EQ(std::memcmp(r1, r2, sizeof r1), 0);
  for (const auto &d : dats) expect_same_bits(fetch<double>(kept.ctx, d.first), fetch<double>(general.ctx, d.second), um_dat_name(d.first));
}
INSTANTIATE_TEST_SUITE_P(Sizes, RangesInstall, ::testing::Combine(::testing::Values(9, 2), ::testing::Values(0, 1, 2, 3)));

// The non-exec halo's targets through the hashed map of global numbers (a span too wide to mark, which these meshes
// never have: UM_TEST_RANGES_HASH forces it): the same layout and rows as the general steps.
TEST(RangesInstallHashed, TheGeneralStepsToTheByte) {
  const QuadMesh g(9);
  Variant v = variant(1);
  v.partitioner = "ranges";
  BMesh kept, general;
  setenv("UM_TEST_RANGES_HASH", "1", 1);
  const int rc = kept.build(g, true, true, 0, v);
  unsetenv("UM_TEST_RANGES_HASH");
  ASSERT_EQ(rc, 0) << um_error_message(kept.ctx);
  setenv("UM_TEST_RANGES_GENERAL", "1", 1);
  const int rg = general.build(g, true, true, 0, v);
  unsetenv("UM_TEST_RANGES_GENERAL");
  ASSERT_EQ(rg, 0) << um_error_message(general.ctx);
  expect_same_layout(kept, general);
  double r1[5], r2[5];
  for (int it = 0; it < 2; it++) kept.step(r1), general.step(r2);
  EXPECT_EQ(std::memcmp(r1, r2, sizeof r1), 0);
  for (um_dat *d : {kept.q, kept.u, kept.nu})
    expect_same_bits(fetch<double>(kept.ctx, d), fetch<double>(general.ctx, um_find_dat(general.ctx, um_dat_name(d))),
                     um_dat_name(d));
}

// Maps handed over as 32-bit rows (um_decl_map_block_take_i32) against the same maps as 64-bit rows: with "ranges"
// the local rows are made in the 32-bit buffer (dist_ranges.c), through the general steps and with "block" the rows
// are widened first; the same layout, local maps, dat rows and loops to the bit every way.
class Rows32 : public ::testing::TestWithParam<std::tuple<int, int, int>> {};
TEST_P(Rows32, TheLayoutAndBitsOf64BitRows) {
  const QuadMesh g(std::get<0>(GetParam()));
  Variant v = variant(std::get<1>(GetParam()));
  const int way = std::get<2>(GetParam()); // 0: ranges in place, 1: ranges through the general steps, 2: block
  v.partitioner = way == 2 ? "block" : "ranges";
  BMesh wide, narrow;
  if (way == 1) setenv("UM_TEST_RANGES_GENERAL", "1", 1);
  ASSERT_EQ(wide.build(g, true, true, 0, v), 0) << um_error_message(wide.ctx);
  v.rows32 = 1;
  int rc = narrow.build(g, true, true, 0, v);
  ASSERT_EQ(rc, 0) << um_error_message(narrow.ctx);
  // some ranks' rows 32-bit, the others' 64-bit: "ranges" sends records of one width agreed by all (8 bytes here)
  BMesh mixed;
  v.rows32 = 2;
  rc = mixed.build(g, true, true, 0, v);
  unsetenv("UM_TEST_RANGES_GENERAL");
  ASSERT_EQ(rc, 0) << um_error_message(mixed.ctx);
  double r1[5], r2[5], r3[5];
  for (BMesh *b : {&narrow, &mixed}) {
    expect_same_layout(*b, wide);
    for (int it = 0; it < 2; it++) b->step(b == &narrow ? r1 : r3);
  }
  for (int it = 0; it < 2; it++) wide.step(r2);
  EXPECT_EQ(std::memcmp(r1, r2, sizeof r1), 0);
  EXPECT_EQ(std::memcmp(r3, r2, sizeof r3), 0);
  for (BMesh *b : {&narrow, &mixed})
    for (um_dat *d : {b->q, b->u, b->r, b->nu, b->nv})
      expect_same_bits(fetch<double>(b->ctx, d), fetch<double>(wide.ctx, um_find_dat(wide.ctx, um_dat_name(d))),
                       um_dat_name(d));
}
INSTANTIATE_TEST_SUITE_P(Sizes, Rows32, ::testing::Combine(::testing::Values(9, 2), ::testing::Values(0, 2, 3),
                                                           ::testing::Values(0, 1, 2)));

// um_map_set_read_only: a loop that writes, updates or increments through such a map is refused, one that reads
// through it runs.
TEST(ReadOnlyMaps, AWriteThroughOneIsRefusedAReadRuns) {
  const QuadMesh g(4);
  BMesh b;
  ASSERT_EQ(b.build(g, false, false), 0);
  ASSERT_EQ(um_map_set_read_only(b.cn), 0);
  double mx = -1e300;
  EXPECT_EQ(UM_PAR_LOOP(b.ctx, cell_inc_kernel, "cell_inc", b.cells, um_arg_dat(b.q, -1, UM_ID, 3, UM_DOUBLE, UM_READ),
                        um_arg_dat(b.nv, 0, b.cn, 3, UM_DOUBLE, UM_INC),
                        um_arg_dat(b.nv, 1, b.cn, 3, UM_DOUBLE, UM_INC),
                        um_arg_dat(b.nv, 2, b.cn, 3, UM_DOUBLE, UM_INC),
                        um_arg_dat(b.nv, 3, b.cn, 3, UM_DOUBLE, UM_INC), um_arg_gbl(&mx, 1, UM_DOUBLE, UM_MAX)),
            UM_ERR_ARG);
  const std::string msg = um_error_message(b.ctx);
  EXPECT_NE(msg.find("loop 'cell_inc', arg 1 (dat 'nv'): INC through map 'cell_nodes', which was declared read-only"),
            std::string::npos)
      << msg;
  EXPECT_EQ(UM_PAR_LOOP(b.ctx, indirect_write_kernel, "write_through", b.cells,
                        um_arg_dat(b.nu, 0, b.cn, 2, UM_DOUBLE, UM_WRITE),
                        um_arg_dat(b.nu, 1, b.cn, 2, UM_DOUBLE, UM_READ)),
            UM_ERR_ARG);
  EXPECT_EQ(UM_PAR_LOOP(b.ctx, indirect_write_kernel, "read_through", b.cells,
                        um_arg_dat(b.q, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE),
                        um_arg_dat(b.nu, 0, b.cn, 2, UM_DOUBLE, UM_READ)),
            0)
      << um_error_message(b.ctx);
  EXPECT_EQ(um_map_set_read_only(nullptr), UM_ERR_ARG);
}

// The exec halo does not follow a read-only map: declared whole (the block partitioner), by blocks (block) and by
// blocks with ranges, the cells (whose one map, to the nodes, is read-only) have no exec halo on any rank, the
// edges the same exec halo as with the map undeclared; the loops (increments through the edges' maps, a read
// through the cells' map) give the undeclared map's bits and one process's values.
class ReadOnly : public ::testing::TestWithParam<std::tuple<int, int>> {};
TEST_P(ReadOnly, TheExecHaloLeavesTheMapAndTheLoopsAreTheSame) {
  const QuadMesh g(std::get<0>(GetParam()));
  const int way = std::get<1>(GetParam()); // 0: whole, block; 1: by blocks, block; 2: by blocks, ranges
  Variant v;
  v.partitioner = way == 2 ? "ranges" : "block";
  BMesh one, ro, all;
  ASSERT_EQ(one.build(g, false, false, 0, v), 0);
  ASSERT_EQ(ro.build(g, way > 0, false, 0, v), 0);
  ASSERT_EQ(all.build(g, way > 0, false, 0, v), 0);
  ASSERT_EQ(um_map_set_read_only(ro.cn), 0);
  ASSERT_EQ(um_distribute(ro.ctx, v.primary, v.partitioner), 0) << um_error_message(ro.ctx);
  ASSERT_EQ(um_distribute(all.ctx, v.primary, v.partitioner), 0) << um_error_message(all.ctx);
  const int P = um_mpi_size();
  int cells_exec_all = 0;
  for (int q = 0; q < P; q++) {
    int a[3], b[3];
    ASSERT_EQ(um_set_partition(ro.cells, q, &a[0], &a[1], &a[2]), 0);
    ASSERT_EQ(um_set_partition(all.cells, q, &b[0], &b[1], &b[2]), 0);
    EXPECT_EQ(a[0], b[0]) << "the cells owned by rank " << q;
    EXPECT_EQ(a[1], 0) << "the cells' exec halo on rank " << q;
    cells_exec_all += b[1];
    ASSERT_EQ(um_set_partition(ro.edges, q, &a[0], &a[1], &a[2]), 0);
    ASSERT_EQ(um_set_partition(all.edges, q, &b[0], &b[1], &b[2]), 0);
    EXPECT_EQ(std::vector<int>(a, a + 2), std::vector<int>(b, b + 2)) << "the edges on rank " << q;
  }
  if (P > 1 && g.N > 2) EXPECT_GT(cells_exec_all, 0) << "the undeclared map gives the cells an exec halo";
  if (P > 1) EXPECT_EQ(um_map_set_read_only(ro.en), UM_ERR_ARG) << "after um_distribute";
  for (BMesh *m : {&one, &ro, &all}) {
    double s1 = 0;
    int c1 = 0;
    for (int it = 0; it < 2; it++) {
      ASSERT_EQ(UM_PAR_LOOP(
                    m->ctx, edge_inc_kernel, "edge_inc", m->edges, um_arg_dat(m->w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                    um_arg_dat(m->u, 0, m->ec, 2, UM_DOUBLE, UM_READ),
                    um_arg_dat(m->u, 1, m->ec, 2, UM_DOUBLE, UM_READ), um_arg_dat(m->r, 0, m->ec, 2, UM_DOUBLE, UM_INC),
                    um_arg_dat(m->r, 1, m->ec, 2, UM_DOUBLE, UM_INC), um_arg_dat(m->f, 0, m->ec, 1, UM_FLOAT, UM_INC),
                    um_arg_gbl(&s1, 1, UM_DOUBLE, UM_INC), um_arg_gbl(&c1, 1, UM_INT, UM_INC)),
                0)
          << um_error_message(m->ctx);
      ASSERT_EQ(UM_PAR_LOOP(m->ctx, indirect_write_kernel, "read_through", m->cells,
                            um_arg_dat(m->q, -1, UM_ID, 3, UM_DOUBLE, UM_WRITE),
                            um_arg_dat(m->nu, 0, m->cn, 2, UM_DOUBLE, UM_READ)),
                0)
          << um_error_message(m->ctx);
      ASSERT_EQ(UM_PAR_LOOP(m->ctx, indirect_rw_kernel, "indirect_rw", m->edges,
                            um_arg_dat(m->u, 0, m->ec, 2, UM_DOUBLE, UM_RW),
                            um_arg_dat(m->w, -1, UM_ID, 1, UM_DOUBLE, UM_READ)),
                0)
          << um_error_message(m->ctx);
    }
  }
  for (um_dat *d : {ro.q, ro.r, ro.u}) {
    const std::vector<double> x = fetch<double>(ro.ctx, d);
    expect_same_bits(x, fetch<double>(all.ctx, um_find_dat(all.ctx, um_dat_name(d))), um_dat_name(d));
    const std::vector<double> y = fetch<double>(one.ctx, um_find_dat(one.ctx, um_dat_name(d)));
    for (size_t i = 0; i < x.size(); i++)
      EXPECT_NEAR(x[i], y[i], 1e-12 * (1 + std::fabs(y[i]))) << um_dat_name(d) << "[" << i << "]";
  }
  expect_same_bits(fetch<double>(ro.ctx, ro.q), fetch<double>(one.ctx, one.q), "q (a read through the map)");
}
INSTANTIATE_TEST_SUITE_P(Ways, ReadOnly, ::testing::Combine(::testing::Values(7, 2), ::testing::Values(0, 1, 2)));

// 32-bit rows with an entry outside the to-set, or into a set of more than INT_MAX elements: refused where they
// are declared, saying which entry or which set, and the rows freed.
TEST(BlocksErrors, Rows32OutsideTheSetOrIntoAHugeSetAreRefused) {
  um_context *ctx = seq_context();
  ASSERT_NE(ctx, nullptr);
  const int P = um_mpi_size(), q = um_mpi_rank();
  um_set *a, *big;
  um_map *m;
  const long long b0 = block_begin(10, q, P, false), b1 = block_begin(10, q + 1, P, false);
  const int n = (int)(b1 - b0);
  ASSERT_EQ(um_decl_set_block(ctx, 10, b0, n, "a", &a), 0) << um_error_message(ctx);
  int *t = (int *)malloc(sizeof(int) * ((size_t)n + 1));
  for (int i = 0; i < n; i++) t[i] = (int)((b0 + i + 1) % 10);
  if (n) t[n - 1] = 10; // one past the set's end
  if (n) {
    EXPECT_EQ(um_decl_map_block_take_i32(ctx, a, a, 1, t, "next", &m), UM_ERR_ARG);
    const std::string msg = um_error_message(ctx);
    EXPECT_NE(msg.find("map 'next' (a -> a, arity 1): entry " + std::to_string(n - 1) + " (row " + std::to_string(n - 1) +
                       " of this rank's block) is 10, outside the to-set 'a' of global size 10"),
              std::string::npos)
        << msg;
  } else {
    free(t);
  }
  if (P > 1) { // one rank: a block is the whole set, and 3e9 elements do not fit one
    const long long G = 3000000000LL;
    ASSERT_EQ(um_decl_set_block(ctx, G, q == P - 1 ? G - 1 : q, 1, "big", &big), 0) << um_error_message(ctx);
    int *u = (int *)malloc(sizeof(int) * ((size_t)n + 1));
    for (int i = 0; i < n; i++) u[i] = 0;
    EXPECT_EQ(um_decl_map_block_take_i32(ctx, a, big, 1, u, "a_big", &m), UM_ERR_ARG);
    const std::string msg = um_error_message(ctx);
    EXPECT_NE(msg.find("its to-set 'big' has 3000000000 elements: hand its rows over as 64-bit numbers"), std::string::npos)
        << msg;
  }
  um_finalize(&ctx);
}

// A halo declared wrong (um_decl_set_halo_block, um_decl_map_halo_block): refused where it is declared, saying
// which entry and why, the lists freed (ASan: no leak); a right one taken.
static long long *ll_list(std::initializer_list<long long> v) {
  long long *p = (long long *)malloc(sizeof(long long) * (v.size() + 1));
  size_t i = 0;
  for (long long x : v) p[i++] = x;
  return p;
}
TEST(BlocksErrors, HalosDeclaredWrongAreRefused) {
  if (um_mpi_size() == 1) GTEST_SKIP() << "one rank: no halo";
  um_context *ctx = seq_context();
  ASSERT_NE(ctx, nullptr);
  const int P = um_mpi_size(), q = um_mpi_rank();
  um_set *a;
  um_map *m;
  const long long b0 = block_begin(100, q, P, false), b1 = block_begin(100, q + 1, P, false);
  const int n = (int)(b1 - b0);
  ASSERT_EQ(um_decl_set_block(ctx, 100, b0, n, "a", &a), 0) << um_error_message(ctx);
  long long *rows = (long long *)malloc(sizeof(long long) * ((size_t)n + 1));
  for (int i = 0; i < n; i++) rows[i] = (b0 + i + 1) % 100;
  ASSERT_EQ(um_decl_map_block_take(ctx, a, a, 1, rows, "next", &m), 0) << um_error_message(ctx);
  const long long out = q == 0 ? 99 : 0, out2 = q == 0 ? 98 : 1; // outside this rank's block (ascending: out2 > out
      // only where q > 0)
  auto refused = [&](int rc, const std::string &want) {
    EXPECT_EQ(rc, UM_ERR_ARG);
    const std::string msg = um_error_message(ctx);
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
  };
  refused(um_decl_set_halo_block(a, 1, ll_list({b0}), 0, nullptr),
          "exec halo entry 0 is " + std::to_string(b0) + ", in this rank's own block");
  refused(um_decl_set_halo_block(a, 1, ll_list({100}), 0, nullptr), "exec halo entry 0 is 100, outside the set");
  refused(um_decl_set_halo_block(a, 0, nullptr, 2, ll_list({out, out})),
          "non-exec halo entry 1 is " + std::to_string(out) + ", not above the entry before it");
  refused(um_decl_set_halo_block(a, 1, ll_list({out}), 1, ll_list({out})),
          "element " + std::to_string(out) + " is declared in both its exec and its non-exec halo");
  refused(um_decl_map_halo_block(m, ll_list({0})), "map 'next': its halo rows are declared before its from-set's halo");
  ASSERT_EQ(um_decl_set_halo_block(a, 1, ll_list({out}), 1, ll_list({q == 0 ? out2 : out2 + 1})), 0)
      << um_error_message(ctx);
  refused(um_decl_set_halo_block(a, 0, nullptr, 0, nullptr), "set 'a': its halo is declared twice");
  refused(um_decl_map_halo_block(m, ll_list({100})), "map 'next': halo row 0 (exec element " + std::to_string(out) +
                                                         " of set 'a') has entry 100, outside the to-set 'a'");
  EXPECT_EQ(um_decl_map_halo_block(m, ll_list({(out + 1) % 100})), 0) << um_error_message(ctx);
  um_finalize(&ctx);
}

TEST(BlocksErrors, BlocksThatDoNotTileFailOnEveryRankAlike) {
  if (um_mpi_size() == 1) GTEST_SKIP() << "one rank: a block is the whole set";
  const QuadMesh g(5);
  BMesh b;
  const int rc = b.build(g, true, true, 1);
  const std::string msg = um_error_message(b.ctx);
  EXPECT_EQ(rc, UM_ERR_ARG) << msg;
  EXPECT_NE(msg.find("blocks of set 'cells' do not tile [0, 25) in rank order: rank " + std::to_string(um_mpi_size() - 1) + ", the last"), std::string::npos) << msg;
  expect_same_everywhere(rc, msg);
  BMesh gap;
  const int rc2 = gap.build(g, true, true, 2);
  const std::string msg2 = um_error_message(gap.ctx);
  EXPECT_EQ(rc2, UM_ERR_ARG) << msg2;
  const std::string b1 = std::to_string(block_begin(25, 1, um_mpi_size(), false)),
                    end0 = std::to_string(block_begin(25, 1, um_mpi_size(), false) - 1);
  EXPECT_NE(msg2.find("do not tile [0, 25) in rank order: rank 1 declares [" + b1 + ", "), std::string::npos) << msg2;
  EXPECT_NE(msg2.find("which should begin at " + end0 + " (where the previous rank's ends)"), std::string::npos) << msg2;
  expect_same_everywhere(rc2, msg2);
}

TEST(BlocksErrors, MixedDeclarationsAndLoopsBeforeDistributingAreRefused) {
  um_context *ctx = seq_context();
  ASSERT_NE(ctx, nullptr);
  const int P = um_mpi_size(), q = um_mpi_rank();
  um_set *a, *b, *c;
  const long long b0 = block_begin(10, q, P, false), b1 = block_begin(10, q + 1, P, false);
  ASSERT_EQ(um_decl_set_block(ctx, 10, b0, (int)(b1 - b0), "a", &a), 0) << um_error_message(ctx);
  if (P == 1) EXPECT_EQ(um_decl_set_block(ctx, 10, 0, 9, "part", &c), UM_ERR_ARG);  // one rank: the whole set
  ASSERT_EQ(um_decl_set(ctx, 4, "b", &b), 0);
  if (P > 1) {
    um_map *m;
    std::vector<int> t(4, 0);
    EXPECT_EQ(um_decl_map(ctx, b, a, 1, t.data(), "b_a", &m), UM_ERR_ARG);  // a plain map into a block set
    um_dat *d, *e;
    ASSERT_EQ(um_decl_dat(ctx, a, 1, UM_DOUBLE, nullptr, "d", &d), 0);
    ASSERT_EQ(um_decl_dat(ctx, a, 1, UM_DOUBLE, nullptr, "e", &e), 0);
    EXPECT_EQ(UM_PAR_LOOP(ctx, cbrt_of_kernel, "early", a, um_arg_dat(d, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(e, -1, UM_ID, 1, UM_DOUBLE, UM_WRITE)),
              UM_ERR_ARG);
    EXPECT_NE(std::string(um_error_message(ctx)).find("call um_distribute before the first loop"), std::string::npos)
        << um_error_message(ctx);
    std::vector<double> all(10);  // no whole view yet
    EXPECT_EQ(um_dat_fetch(ctx, d, all.data(), all.size() * sizeof(double)), UM_ERR_ARG);
    EXPECT_EQ(um_dat_update(ctx, d, all.data(), all.size() * sizeof(double)), UM_ERR_ARG);
  }
  const int rc = um_distribute(ctx, "a", "block");
  const std::string msg = um_error_message(ctx);
  if (P > 1) {
    EXPECT_EQ(rc, UM_ERR_ARG);
    EXPECT_NE(msg.find("declare every set by blocks, or none"), std::string::npos) << msg;
    expect_same_everywhere(rc, msg);
  } else {
    EXPECT_EQ(rc, 0) << msg;
  }
  um_finalize(&ctx);
}

}  // namespace

// ---- an app's generator by blocks ------------------------------------------------------------------------------

namespace {
// This rank's block of Airfoil's generated mesh (I x J), checked and declared by blocks (rows32: its maps' rows
// 32-bit).
void declare_generated_block(um_context *ctx, int I, int J, airfoil *a, int rows32 = 0) {
  long long gsize[4], first[4], count[4];
  ASSERT_EQ(airfoil_mesh_counts(I, J, gsize), 0);
  for (int s = 0; s < 4; s++) {
    int n = 0;
    ASSERT_EQ(um_block_range(gsize[s], um_mpi_rank(), um_mpi_size(), &first[s], &n), 0);
    count[s] = n;
  }
  airfoil_block b;
  char err[256];
  ASSERT_EQ(airfoil_block_generate(I, J, 1, first, count, rows32, &b, err, sizeof err), 0) << err;
  EXPECT_EQ(airfoil_check_block(ctx, &b), 0) << um_error_message(ctx);
  const int rc = airfoil_decl_mesh_block(ctx, &b, a);
  airfoil_block_free(&b);
  ASSERT_EQ(rc, 0) << um_error_message(ctx);
}
}  // namespace

// Airfoil's NACA0012 mesh generated by blocks (each rank makes only its rows: airfoil_block_generate) against the
// same mesh generated whole on every rank, both partitioned by the block partitioner: after 20 iterations the
// same rms and the same bits of q on every rank count; by blocks with 64-bit and with 32-bit map rows.
TEST(BlocksAirfoil, GeneratedByBlocksGivesTheBitsOfTheWholeMesh) {
  const int I = 20, J = 30, P = um_mpi_size(), q = um_mpi_rank();
  std::vector<double> qv[3];
  double rms[3] = {0, 0, 0};
  for (int blocks = 0; blocks < 3; blocks++) {
    um_context *ctx = seq_context();
    ASSERT_NE(ctx, nullptr);
    airfoil a;
    std::memset(&a, 0, sizeof a);
    char err[256];
    ASSERT_EQ(airfoil_set_constants(ctx), 0);
    if (blocks) {
      ASSERT_NO_FATAL_FAILURE(declare_generated_block(ctx, I, J, &a, blocks == 2));
    } else {
      airfoil_mesh m;
      ASSERT_EQ(airfoil_mesh_generate(I, J, 1, &m, err, sizeof err), 0) << err;
      ASSERT_EQ(airfoil_decl_mesh(ctx, &m, &a), 0);
      airfoil_mesh_free(&m);
    }
    ASSERT_EQ(airfoil_decl_flow(ctx, &a), 0);
    ASSERT_EQ(um_distribute(ctx, "cells", "block"), 0) << um_error_message(ctx);
    for (int it = 0; it < 20; it++) ASSERT_EQ(airfoil_iteration(ctx, &a, &rms[blocks]), 0) << um_error_message(ctx);
    qv[blocks].resize(4 * (size_t)um_set_size(a.cells));
    ASSERT_EQ(um_dat_fetch(ctx, a.p_q, qv[blocks].data(), qv[blocks].size() * sizeof(double)), 0);
    um_finalize(&ctx);
  }
  for (int k = 1; k < 3; k++) {
    EXPECT_EQ(std::memcmp(&rms[0], &rms[k], sizeof(double)), 0) << rms[0] << " vs " << rms[k] << " on " << P << " ranks";
    EXPECT_EQ(qv[0].size(), qv[k].size());
    EXPECT_TRUE(qv[0] == qv[k]) << "q differs between the mesh generated whole and by blocks (" << (k == 2 ? 32 : 64)
                                << "-bit rows) on " << P << " ranks";
  }
  EXPECT_GT(rms[0], 0.0);
}

// ---- OP2's HDF5 layout read by blocks --------------------------------------------------------------------------

namespace {
// A path every rank agrees on (rank 0's temporary folder and PID), for a file rank 0 writes.
std::string shared_path(const char *tag) {
  char buf[512] = "";
  if (um_mpi_rank() == 0) snprintf(buf, sizeof buf, "%s/um_blocks_%s_%ld.h5", ::testing::TempDir().c_str(), tag,
                                   (long)getpid());
  MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
  return buf;
}
}  // namespace

// Airfoil's mesh written whole by rank 0 in OP2's layout, then read by blocks (each rank its hyperslabs:
// um_hdf5_read_set_block and the map and dat readers) gives the bits of the mesh generated by blocks.
TEST(BlocksHdf5, AirfoilReadByBlocksGivesTheBitsOfTheGenerator) {
  const int I = 20, J = 30, P = um_mpi_size(), q = um_mpi_rank();
  const std::string file = shared_path("airfoil");
  if (q == 0) {
    um_context *w = seq_context();
    airfoil a;
    std::memset(&a, 0, sizeof a);
    airfoil_mesh m;
    char err[256];
    ASSERT_EQ(airfoil_mesh_generate(I, J, 1, &m, err, sizeof err), 0) << err;
    ASSERT_EQ(airfoil_decl_mesh(w, &m, &a), 0);
    airfoil_mesh_free(&m);
    ASSERT_EQ(um_hdf5_write_mesh(w, file.c_str()), 0) << um_error_message(w);
    um_finalize(&w);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double rms[2] = {0, 0};
  std::vector<double> qv[2];
  for (int from_file = 0; from_file < 2; from_file++) {
    um_context *ctx = seq_context();
    airfoil a;
    std::memset(&a, 0, sizeof a);
    ASSERT_EQ(airfoil_set_constants(ctx), 0);
    if (from_file) {
      ASSERT_EQ(airfoil_decl_mesh_hdf5(ctx, file.c_str(), 1, &a), 0) << um_error_message(ctx);
      long long b = 0;
      int n = 0;
      ASSERT_EQ(um_block_range(um_set_size(a.cells), q, P, &b, &n), 0);
      EXPECT_EQ(um_set_decl_rows(a.cells), P > 1 ? n : um_set_size(a.cells)) << "each rank holds only its block";
    } else {
      ASSERT_NO_FATAL_FAILURE(declare_generated_block(ctx, I, J, &a));
    }
    ASSERT_EQ(airfoil_decl_flow(ctx, &a), 0);
    ASSERT_EQ(um_distribute(ctx, "cells", "block"), 0) << um_error_message(ctx);
    for (int it = 0; it < 20; it++) ASSERT_EQ(airfoil_iteration(ctx, &a, &rms[from_file]), 0) << um_error_message(ctx);
    qv[from_file].resize(4 * (size_t)um_set_size(a.cells));
    ASSERT_EQ(um_dat_fetch(ctx, a.p_q, qv[from_file].data(), qv[from_file].size() * sizeof(double)), 0);
    um_finalize(&ctx);
  }
  EXPECT_EQ(std::memcmp(&rms[0], &rms[1], sizeof(double)), 0) << rms[0] << " vs " << rms[1];
  EXPECT_TRUE(qv[0] == qv[1]) << "q read by blocks differs from q generated by blocks on " << P << " ranks";
  MPI_Barrier(MPI_COMM_WORLD);
  if (q == 0) std::remove(file.c_str());
}

// A file whose map has more rows than its from-set's stored size: the same clear error on every rank (each
// reads the shapes), not a hang or a rank that goes on alone.
TEST(BlocksHdf5, SizesThatDisagreeFailOnEveryRank) {
  const std::string file = shared_path("bad");
  if (um_mpi_rank() == 0) {
    um_context *w = seq_context();
    um_set *cells, *nodes, *cells4;
    um_map *pcell;
    std::vector<int> cn(5 * 4);
    for (int i = 0; i < 20; i++) cn[i] = (i * 3) % 10;
    ASSERT_EQ(um_decl_set(w, 5, "cells", &cells), 0);
    ASSERT_EQ(um_decl_set(w, 10, "nodes", &nodes), 0);
    ASSERT_EQ(um_decl_map(w, cells, nodes, 4, cn.data(), "pcell", &pcell), 0);
    ASSERT_EQ(um_hdf5_write_mesh(w, file.c_str()), 0) << um_error_message(w);
    um_finalize(&w);
    w = seq_context();
    ASSERT_EQ(um_decl_set(w, 4, "cells", &cells4), 0);
    ASSERT_EQ(um_hdf5_write_set(w, file.c_str(), cells4), 0) << um_error_message(w);  // "cells" now says 4
    um_finalize(&w);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  um_context *ctx = seq_context();
  um_set *cells = nullptr, *nodes = nullptr;
  um_map *pcell = nullptr;
  ASSERT_EQ(um_hdf5_read_set_block(ctx, file.c_str(), "cells", &cells), 0) << um_error_message(ctx);
  ASSERT_EQ(um_hdf5_read_set_block(ctx, file.c_str(), "nodes", &nodes), 0) << um_error_message(ctx);
  EXPECT_EQ(um_hdf5_read_map_expect(ctx, file.c_str(), cells, nodes, 4, "pcell", &pcell), UM_ERR_IO);
  EXPECT_NE(std::string(um_error_message(ctx)).find("has 5 rows but the from-set 'cells' has size 4"),
            std::string::npos)
      << um_error_message(ctx);
  um_finalize(&ctx);
  MPI_Barrier(MPI_COMM_WORLD);
  if (um_mpi_rank() == 0) std::remove(file.c_str());
}

namespace {
// LULESH with p on a seq context, its nodes partitioned by `partitioner` (general: through the general steps of a
// distribution by blocks, UM_TEST_RANGES_GENERAL=1) to its end: the result and every element's e.
void run_lulesh(const lulesh_params &p, const char *partitioner, bool general, lulesh_result *res,
                std::vector<double> *ev) {
  um_context *ctx = seq_context();
  ASSERT_NE(ctx, nullptr);
  char err[512] = "";
  lulesh_state *s = nullptr;
  ASSERT_EQ(lulesh_setup(ctx, &p, &s, err, sizeof err), 0) << err;
  if (general) setenv("UM_TEST_RANGES_GENERAL", "1", 1);
  const int rc = um_distribute(ctx, "nodes", partitioner);
  unsetenv("UM_TEST_RANGES_GENERAL");
  ASSERT_EQ(rc, 0) << um_error_message(ctx);
  int done = 0;
  while (!done) ASSERT_EQ(lulesh_step(ctx, s, &done, err, sizeof err), 0) << err;
  ASSERT_EQ(lulesh_finish(ctx, s, res, err, sizeof err), 0) << err;
  um_dat *e = um_find_dat(ctx, "e");
  ASSERT_NE(e, nullptr);
  ev->resize((size_t)p.size * p.size * p.size);
  ASSERT_EQ(um_dat_fetch(ctx, e, ev->data(), ev->size() * sizeof(double)), 0);
  lulesh_state_free(&s);
  um_finalize(&ctx);
}
}  // namespace

// LULESH's cube generated by blocks (each rank replays the region sequence and keeps its rows: lulesh_block_build)
// against the same cube generated whole on every rank, both partitioned by the block partitioner on the nodes (umrun's
// primary set; the generator's node blocks are the block partitioner's ranges, its other sets follow them): after 40 cycles
// the same time step, origin energy and bits of e on every rank count, for the default loops, the unfused loops
// with the gather scheme (symmetry-plane sets, corners) and the merged EOS (eos_elems).
TEST(BlocksLulesh, GeneratedByBlocksGivesTheBitsOfTheWholeMesh) {
  const int P = um_mpi_size();
  for (int variant = 0; variant < 3; variant++) {
    lulesh_params p;
    lulesh_params_default(&p);
    p.size = 7;
    p.max_cycles = 40;
    if (variant == 1) p.fused = 0, p.forces = LULESH_FORCES_GATHER;
    if (variant == 2) p.eos_merged = LULESH_EOS_MERGED_Q;
    std::vector<double> ev[2];
    lulesh_result res[2];
    for (int blocks = 0; blocks < 2; blocks++) {
      p.by_blocks = blocks;
      ASSERT_NO_FATAL_FAILURE(run_lulesh(p, "block", false, &res[blocks], &ev[blocks]));
    }
    EXPECT_EQ(res[0].cycles, res[1].cycles);
    EXPECT_EQ(std::memcmp(&res[0].dt, &res[1].dt, sizeof(double)), 0) << "variant " << variant << ", " << P << " ranks";
    EXPECT_EQ(std::memcmp(&res[0].origin_energy, &res[1].origin_energy, sizeof(double)), 0)
        << res[0].origin_energy << " vs " << res[1].origin_energy << " (variant " << variant << ", " << P << " ranks)";
    EXPECT_TRUE(ev[0] == ev[1]) << "e differs between the cube generated whole and by blocks (variant " << variant
                                << ", " << P << " ranks)";
    EXPECT_GT(res[0].origin_energy, 0.0);
  }
}

// LULESH's cube by blocks with "ranges", the rows kept in place (dist_ranges.c) against the general steps
// (UM_TEST_RANGES_GENERAL=1): its elements' halos hold exec and non-exec rows from the same neighbour, so the halo
// lists' order within a neighbour shows; after 20 cycles the same time step, origin energy and bits of e.
TEST(RangesInstallLulesh, TheGeneralStepsBits) {
  std::vector<double> ev[2];
  lulesh_result res[2];
  lulesh_params p;
  lulesh_params_default(&p);
  p.size = 7;
  p.max_cycles = 20;
  p.by_blocks = 1;
  for (int general = 0; general < 2; general++)
    ASSERT_NO_FATAL_FAILURE(run_lulesh(p, "ranges", general, &res[general], &ev[general]));
  EXPECT_EQ(res[0].cycles, res[1].cycles);
  EXPECT_EQ(std::memcmp(&res[0].dt, &res[1].dt, sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(&res[0].origin_energy, &res[1].origin_energy, sizeof(double)), 0)
      << res[0].origin_energy << " vs " << res[1].origin_energy;
  EXPECT_TRUE(ev[0] == ev[1]) << "e differs between ranges kept in place and the general steps";
  EXPECT_GT(res[0].origin_energy, 0.0);
}

// Jacobi's shuffled grid generated by blocks (jacobi_grid_generate: each rank keeps the rows of its node and edge
// numbers) against the whole grid on every rank, both partitioned by the block partitioner: the same u, bit for
// bit, after 300 sweeps, and the same max |du| and sum du^2.
TEST(BlocksJacobi, GeneratedByBlocksGivesTheBitsOfTheWholeGrid) {
  const int N = 13, P = um_mpi_size(), q = um_mpi_rank();
  std::vector<double> uv[2];
  double maxdu[2] = {0, 0}, sum[2] = {0, 0};
  for (int blocks = 0; blocks < 2; blocks++) {
    um_context *ctx = seq_context();
    ASSERT_NE(ctx, nullptr);
    jacobi_grid g;
    char err[256];
    ASSERT_EQ(jacobi_grid_generate(N, 7, blocks ? q : 0, blocks ? P : 1, &g, err, sizeof err), 0) << err;
    jacobi_mesh m;
    ASSERT_EQ(jacobi_decl(ctx, &g, blocks, &m), 0) << um_error_message(ctx);
    jacobi_grid_free(&g);
    ASSERT_EQ(um_distribute(ctx, "nodes", "block"), 0) << um_error_message(ctx);
    ASSERT_EQ(jacobi_degree(ctx, &m), 0) << um_error_message(ctx);
    for (int it = 0; it < 300; it++) ASSERT_EQ(jacobi_sweep(ctx, &m, &maxdu[blocks], &sum[blocks]), 0);
    uv[blocks].resize((size_t)(N + 1) * (N + 1));
    ASSERT_EQ(um_dat_fetch(ctx, m.u, uv[blocks].data(), uv[blocks].size() * sizeof(double)), 0);
    um_finalize(&ctx);
  }
  EXPECT_EQ(std::memcmp(&maxdu[0], &maxdu[1], sizeof(double)), 0) << maxdu[0] << " vs " << maxdu[1] << " on " << P;
  EXPECT_EQ(std::memcmp(&sum[0], &sum[1], sizeof(double)), 0) << sum[0] << " vs " << sum[1] << " on " << P;
  EXPECT_TRUE(uv[0] == uv[1]) << "u differs between the grid generated whole and by blocks on " << P << " ranks";
  EXPECT_GT(maxdu[0], 0.0);
}
