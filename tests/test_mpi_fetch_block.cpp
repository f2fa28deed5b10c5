// The global view by blocks (um_set_block, um_dat_fetch_block, um_dat_fetch_block_original_order,
// um_map_fetch_block) and the HDF5 writers that use it: each rank's block, put together in rank order, equals the
// whole array of um_dat_fetch / um_dat_fetch_original_order / um_map_fetch, for a mesh declared whole (with and
// without a reordering) and one declared by blocks; a file written by um_hdf5_write_mesh on P ranks has the bytes of
// the one process's file; a rank that cannot write stops every rank with one error. Part of um_mpi_tests (ctest:
// 1 to 4 ranks).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#define OMPI_SKIP_MPICXX 1 // the C API only (no C++ bindings to link)
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "um/hdf5io.h"
#include "um/reorder.h"
#include "um/um.h"

namespace {

// An N x N grid of quads: cells -> 4 nodes, with a double, a float and an int dat on cells and nodes.
struct Grid {
  int N, nnode, ncell;
  std::vector<int> cn;
  explicit Grid(int n) : N(n), nnode((n + 1) * (n + 1)), ncell(n * n) {
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++) {
        const int a = j * (N + 1) + i;
        cn.insert(cn.end(), {a, a + 1, a + N + 2, a + N + 1});
      }
  }
};

struct Mesh {
  um_context *ctx = nullptr;
  um_set *nodes = nullptr, *cells = nullptr;
  um_map *map = nullptr;
  um_dat *q = nullptr, *f = nullptr, *k = nullptr, *x = nullptr;
  ~Mesh() { um_finalize(&ctx); }
  // blocks: declared by blocks on the block partitioner's ranges; reorder: GPS renumbering before distributing
  void build(const Grid &g, bool blocks, bool reorder, bool distribute, const char *backend = "seq") {
    um_options o;
    um_options_default(&o);
    o.backend = backend;
    ASSERT_EQ(um_init(&ctx, &o), 0);
    const int P = distribute ? um_mpi_size() : 1, r = distribute ? um_mpi_rank() : 0;
    long long bn = 0, bc = 0;
    int nn = g.nnode, nc = g.ncell;
    if (blocks) {
      ASSERT_EQ(um_block_range(g.nnode, r, P, &bn, &nn), 0);
      ASSERT_EQ(um_block_range(g.ncell, r, P, &bc, &nc), 0);
      ASSERT_EQ(um_decl_set_block(ctx, g.nnode, bn, nn, "nodes", &nodes), 0) << um_error_message(ctx);
      ASSERT_EQ(um_decl_set_block(ctx, g.ncell, bc, nc, "cells", &cells), 0) << um_error_message(ctx);
      std::vector<long long> t(g.cn.begin() + 4 * bc, g.cn.begin() + 4 * (bc + nc));
      ASSERT_EQ(um_decl_map_block(ctx, cells, nodes, 4, t.data(), "cell_nodes", &map), 0) << um_error_message(ctx);
    } else {
      ASSERT_EQ(um_decl_set(ctx, g.nnode, "nodes", &nodes), 0);
      ASSERT_EQ(um_decl_set(ctx, g.ncell, "cells", &cells), 0);
      ASSERT_EQ(um_decl_map(ctx, cells, nodes, 4, g.cn.data(), "cell_nodes", &map), 0);
    }
    std::vector<double> qv(3 * (size_t)nc), xv(2 * (size_t)nn);
    std::vector<float> fv(nc);
    std::vector<int> kv(nc);
    for (int c = 0; c < nc; c++) {
      const long long gc = bc + c;
      for (int j = 0; j < 3; j++) qv[3 * c + j] = std::sin(0.1 * (double)gc + j);
      fv[c] = (float)(0.5 * (double)gc);
      kv[c] = (int)(7 * gc + 1);
    }
    for (int v = 0; v < nn; v++)
      xv[2 * v] = (double)((bn + v) % (g.N + 1)), xv[2 * v + 1] = (double)((bn + v) / (g.N + 1));
    ASSERT_EQ(um_decl_dat(ctx, cells, 3, UM_DOUBLE, qv.data(), "q", &q), 0);
    ASSERT_EQ(um_decl_dat(ctx, cells, 1, UM_FLOAT, fv.data(), "f", &f), 0);
    ASSERT_EQ(um_decl_dat(ctx, cells, 1, UM_INT, kv.data(), "k", &k), 0);
    ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, xv.data(), "x", &x), 0);
    if (reorder) ASSERT_EQ(um_reorder(ctx, UM_REORDER_GPS, map, nullptr, nullptr), 0) << um_error_message(ctx);
    if (distribute) ASSERT_EQ(um_distribute(ctx, "cells", "block"), 0) << um_error_message(ctx);
  }
};

// Every rank's block (n rows of `row` bytes) put together in rank order, on every rank.
std::vector<char> together(const std::vector<char> &mine) {
  const int P = um_mpi_size();
  std::vector<int> cnt(P), dis(P);
  int n = (int)mine.size();
  MPI_Allgather(&n, 1, MPI_INT, cnt.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int tot = 0;
  for (int q = 0; q < P; q++) dis[q] = tot, tot += cnt[q];
  std::vector<char> all(tot);
  MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), cnt.data(), dis.data(), MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

size_t row_bytes(um_dat *d) { return (size_t)um_dat_dim(d) * um_type_size(um_dat_type(d)); }

void expect_blocks_equal_whole(Mesh &m, um_dat *d, bool original) {
  long long b = -1;
  int n = -1;
  ASSERT_EQ(um_set_block(m.ctx, um_dat_set(d), &b, &n), 0);
  long long eb = 0;
  int en = 0;
  ASSERT_EQ(um_block_range(um_set_size(um_dat_set(d)), um_context_rank(m.ctx), um_context_nranks(m.ctx), &eb, &en), 0);
  EXPECT_EQ(b, eb);
  EXPECT_EQ(n, en);
  std::vector<char> mine((size_t)n * row_bytes(d)), whole((size_t)um_set_size(um_dat_set(d)) * row_bytes(d));
  if (original) {
    ASSERT_EQ(um_dat_fetch_block_original_order(m.ctx, d, mine.data(), mine.size()), 0) << um_error_message(m.ctx);
    ASSERT_EQ(um_dat_fetch_original_order(m.ctx, d, whole.data(), whole.size()), 0) << um_error_message(m.ctx);
  } else {
    ASSERT_EQ(um_dat_fetch_block(m.ctx, d, mine.data(), mine.size()), 0) << um_error_message(m.ctx);
    ASSERT_EQ(um_dat_fetch(m.ctx, d, whole.data(), whole.size()), 0) << um_error_message(m.ctx);
  }
  EXPECT_TRUE(together(mine) == whole) << "dat " << um_dat_name(d) << (original ? " (original order)" : "");
}

void expect_map_blocks_equal_whole(Mesh &m, const Grid &g) {
  long long b = 0;
  int n = 0;
  ASSERT_EQ(um_set_block(m.ctx, m.cells, &b, &n), 0);
  std::vector<int> mine(4 * (size_t)n), whole(4 * (size_t)um_set_size(m.cells));
  ASSERT_EQ(um_map_fetch_block(m.ctx, m.map, mine.data(), mine.size() * sizeof(int)), 0) << um_error_message(m.ctx);
  ASSERT_EQ(um_map_fetch(m.ctx, m.map, whole.data(), whole.size() * sizeof(int)), 0) << um_error_message(m.ctx);
  std::vector<char> bytes((const char *)mine.data(), (const char *)(mine.data() + mine.size()));
  const std::vector<char> all = together(bytes);
  EXPECT_EQ(0, memcmp(all.data(), whole.data(), all.size()));
  EXPECT_EQ(all.size(), whole.size() * sizeof(int));
  // in the declared order: the grid's own map, whatever the reordering and the partition
  ASSERT_EQ(um_map_fetch_block_original_order(m.ctx, m.map, mine.data(), mine.size() * sizeof(int)), 0)
      << um_error_message(m.ctx);
  const std::vector<char> decl =
      together(std::vector<char>((const char *)mine.data(), (const char *)(mine.data() + mine.size())));
  ASSERT_EQ(decl.size(), g.cn.size() * sizeof(int));
  EXPECT_EQ(0, memcmp(decl.data(), g.cn.data(), decl.size())) << "map in the declared order";
  // 64-bit targets (um_map_fetch_block64, for a to-set past INT_MAX): the int blocks widened, in both orders
  std::vector<long long> wide(mine.size());
  const size_t wbytes = wide.size() * sizeof(long long);
  ASSERT_EQ(um_map_fetch_block_original_order64(m.ctx, m.map, wide.data(), wbytes), 0) << um_error_message(m.ctx);
  EXPECT_EQ(wide, std::vector<long long>(mine.begin(), mine.end())) << "64-bit targets in the declared order";
  ASSERT_EQ(um_map_fetch_block(m.ctx, m.map, mine.data(), mine.size() * sizeof(int)), 0) << um_error_message(m.ctx);
  ASSERT_EQ(um_map_fetch_block64(m.ctx, m.map, wide.data(), wbytes), 0) << um_error_message(m.ctx);
  EXPECT_EQ(wide, std::vector<long long>(mine.begin(), mine.end())) << "64-bit targets";
  EXPECT_NE(um_map_fetch_block64(m.ctx, m.map, wide.data(), mine.size() * sizeof(int) + 8), 0) << "the int size";
}

void expect_all_blocks(Mesh &m, const Grid &g, bool reordered) {
  for (um_dat *d : {m.q, m.f, m.k, m.x}) {
    expect_blocks_equal_whole(m, d, false);
    expect_blocks_equal_whole(m, d, true);
  }
  expect_map_blocks_equal_whole(m, g);
  if (reordered) { // the declared order is the grid's: q's first row that of cell 0 wherever GPS put it
    long long b = 0;
    int n = 0;
    ASSERT_EQ(um_set_block(m.ctx, m.cells, &b, &n), 0);
    std::vector<float> f(n);
    ASSERT_EQ(um_dat_fetch_block_original_order(m.ctx, m.f, f.data(), f.size() * sizeof(float)), 0);
    for (int c = 0; c < n; c++) EXPECT_EQ(f[c], (float)(0.5 * (double)(b + c))) << "cell " << b + c;
  }
}

class FetchBlock : public ::testing::TestWithParam<std::tuple<bool, bool, int>> {};

TEST_P(FetchBlock, BlocksPutTogetherAreTheWholeArray) {
  const bool blocks = std::get<0>(GetParam()), reorder = std::get<1>(GetParam());
  Grid g(std::get<2>(GetParam()));
  Mesh m;
  m.build(g, blocks, reorder, true);
  if (HasFatalFailure()) return;
  expect_all_blocks(m, g, reorder);
}

// whole / by blocks, reordered (a whole declaration only: a mesh declared by blocks is not reordered), grid sizes
// (2 x 2: fewer cells than some rank counts)
INSTANTIATE_TEST_SUITE_P(Mpi, FetchBlock,
                         ::testing::Values(std::make_tuple(false, false, 9), std::make_tuple(false, true, 9),
                                           std::make_tuple(true, false, 9), std::make_tuple(true, false, 2),
                                           std::make_tuple(false, true, 1)));

// Rows wide enough that the distribution pulls each dat and a fetch by blocks moves it in several rounds (about 4 MB
// of rows a rank a round: 16384 rows of 1280 bytes are 21 MB), partitioned by rcb so that rows change ranks: every
// row comes back to its block in the declared numbering, on every rank (2 to 4 ranks: 2 to 4 rounds).
TEST(FetchBlockMpi, WideRowsMovedInRoundsComeBackAsDeclared) {
  const Grid g(128);
  const int W = 160, P = um_mpi_size(), r = um_mpi_rank();
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  um_context *ctx = nullptr;
  ASSERT_EQ(um_init(&ctx, &o), 0);
  long long bn = 0, bc = 0;
  int nn = 0, nc = 0;
  ASSERT_EQ(um_block_range(g.nnode, r, P, &bn, &nn), 0);
  ASSERT_EQ(um_block_range(g.ncell, r, P, &bc, &nc), 0);
  um_set *nodes = nullptr, *cells = nullptr;
  um_map *map = nullptr;
  um_dat *x = nullptr, *w = nullptr;
  ASSERT_EQ(um_decl_set_block(ctx, g.nnode, bn, nn, "nodes", &nodes), 0) << um_error_message(ctx);
  ASSERT_EQ(um_decl_set_block(ctx, g.ncell, bc, nc, "cells", &cells), 0) << um_error_message(ctx);
  std::vector<long long> t(g.cn.begin() + 4 * bc, g.cn.begin() + 4 * (bc + nc));
  ASSERT_EQ(um_decl_map_block(ctx, cells, nodes, 4, t.data(), "cell_nodes", &map), 0) << um_error_message(ctx);
  std::vector<double> xv(2 * (size_t)nn), wv((size_t)W * nc);
  for (int v = 0; v < nn; v++)
    xv[2 * v] = (double)((bn + v) % (g.N + 1)), xv[2 * v + 1] = (double)((bn + v) / (g.N + 1));
  for (int c = 0; c < nc; c++)
    for (int j = 0; j < W; j++) wv[(size_t)W * c + j] = 1000.0 * (double)(bc + c) + j;
  ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, xv.data(), "x", &x), 0);
  ASSERT_EQ(um_decl_dat(ctx, cells, W, UM_DOUBLE, wv.data(), "w", &w), 0);
  wv = std::vector<double>();
  ASSERT_EQ(um_distribute(ctx, "cells", "rcb"), 0) << um_error_message(ctx);
  std::vector<double> mine((size_t)W * nc, -1.0);
  ASSERT_EQ(um_dat_fetch_block(ctx, w, mine.data(), mine.size() * sizeof(double)), 0) << um_error_message(ctx);
  long long bad = 0;
  for (int c = 0; c < nc; c++)
    for (int j = 0; j < W; j++) bad += mine[(size_t)W * c + j] != 1000.0 * (double)(bc + c) + j;
  EXPECT_EQ(bad, 0) << "rank " << r << " of " << P;
  std::vector<double> nx(2 * (size_t)nn);
  ASSERT_EQ(um_dat_fetch_block(ctx, x, nx.data(), nx.size() * sizeof(double)), 0) << um_error_message(ctx);
  for (int v = 0; v < nn; v++) EXPECT_EQ(nx[2 * v + 1], (double)((bn + v) / (g.N + 1))) << "node " << bn + v;
  um_finalize(&ctx);
}

TEST(FetchBlockMpi, NotDistributedTheBlockIsTheWholeSet) {
  Grid g(4);
  Mesh m;
  m.build(g, false, true, false);
  long long b = -1;
  int n = -1;
  ASSERT_EQ(um_set_block(m.ctx, m.cells, &b, &n), 0);
  EXPECT_EQ(b, 0);
  EXPECT_EQ(n, g.ncell);
  std::vector<double> q(3 * (size_t)n);
  EXPECT_NE(um_dat_fetch_block(m.ctx, m.q, q.data(), 8), 0); // the wrong size, said
  EXPECT_NE(std::string(um_error_message(m.ctx)).find("um_set_block gives the block"), std::string::npos);
  std::vector<double> w(q.size());
  ASSERT_EQ(um_dat_fetch_block_original_order(m.ctx, m.q, q.data(), q.size() * sizeof(double)), 0);
  ASSERT_EQ(um_dat_fetch_original_order(m.ctx, m.q, w.data(), w.size() * sizeof(double)), 0);
  EXPECT_EQ(q, w);
  std::vector<int> cn(g.cn.size());
  ASSERT_EQ(um_map_fetch_block_original_order(m.ctx, m.map, cn.data(), cn.size() * sizeof(int)), 0);
  EXPECT_EQ(cn, g.cn);
  std::vector<long long> wide(cn.size()); // one process: the int block widened
  ASSERT_EQ(um_map_fetch_block_original_order64(m.ctx, m.map, wide.data(), wide.size() * sizeof(long long)), 0)
      << um_error_message(m.ctx);
  EXPECT_EQ(wide, std::vector<long long>(g.cn.begin(), g.cn.end()));
}

std::vector<char> file_bytes(const std::string &p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

// A shared folder name for this run (rank 0's pid), the same on every rank.
std::string run_dir() {
  int pid = (int)getpid();
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char d[256];
  snprintf(d, sizeof d, "/tmp/um_fetch_block_%d", pid);
  if (um_mpi_rank() == 0) mkdir(d, 0777);
  MPI_Barrier(MPI_COMM_WORLD);
  return d;
}

TEST(FetchBlockMpi, MeshFileByBlocksHasTheOneProcessBytes) {
  const std::string dir = run_dir();
  for (bool blocks : {false, true}) {
    Grid g(7);
    const std::string one = dir + "/one.h5", many = dir + "/many.h5";
    if (um_mpi_rank() == 0) { // the one process's file, from a context of its own that is not distributed
      Mesh s;
      s.build(g, false, false, false);
      ASSERT_EQ(um_hdf5_write_mesh(s.ctx, one.c_str()), 0) << um_error_message(s.ctx);
      ASSERT_EQ(um_hdf5_write_dat(s.ctx, one.c_str(), s.q), 0) << um_error_message(s.ctx); // replaced in place
    }
    Mesh m;
    m.build(g, blocks, false, true);
    ASSERT_EQ(um_hdf5_write_mesh(m.ctx, many.c_str()), 0) << um_error_message(m.ctx);
    ASSERT_EQ(um_hdf5_write_dat(m.ctx, many.c_str(), m.q), 0) << um_error_message(m.ctx);
    MPI_Barrier(MPI_COMM_WORLD);
    const std::vector<char> a = file_bytes(one), b = file_bytes(many);
    EXPECT_GT(a.size(), 1000u);
    EXPECT_TRUE(a == b) << "the file written on " << um_mpi_size() << " ranks differs from the one process's"
                        << (blocks ? " (declared by blocks)" : "");
    MPI_Barrier(MPI_COMM_WORLD);  // every rank has read both files before rank 0 writes the next
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (um_mpi_rank() == 0) {
    remove((dir + "/one.h5").c_str());
    remove((dir + "/many.h5").c_str());
    rmdir(dir.c_str());
  }
}

TEST(FetchBlockMpi, ARankThatCannotWriteStopsEveryRankWithOneError) {
  const std::string dir = run_dir(), path = dir + "/taken.h5";
  if (um_mpi_rank() == 0) mkdir(path.c_str(), 0777); // a folder where the file goes
  MPI_Barrier(MPI_COMM_WORLD);
  Grid g(5);
  Mesh m;
  m.build(g, false, false, true);
  const int rc = um_hdf5_write_mesh(m.ctx, path.c_str());
  EXPECT_EQ(rc, UM_ERR_IO);
  int lo = rc, hi = rc;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi);
  EXPECT_NE(std::string(um_error_message(m.ctx)).find("taken.h5"), std::string::npos) << um_error_message(m.ctx);
  MPI_Barrier(MPI_COMM_WORLD);
  if (um_mpi_rank() == 0) {
    rmdir(path.c_str());
    rmdir(dir.c_str());
  }
}

// um_in_turn_carry: a sum over the cells' q in the global order, each rank adding its block in turn, has the bits of
// the one-process sum (an order-sensitive sum: the values span 30 orders of magnitude), on every rank; a rank whose
// turn fails fails every rank with one code, and the ranks after it skip their turn.
struct CarryArg {
  std::vector<double> q;
  int turns = 0, fail_on = -1;
};
int add_in_order(um_context *, void *arg, void *state) {
  CarryArg *a = static_cast<CarryArg *>(arg);
  a->turns++;
  if (um_mpi_rank() == a->fail_on) return UM_ERR_IO;
  double *s = static_cast<double *>(state);
  for (double v : a->q) s[0] = s[0] + v, s[1] += 1;
  return UM_SUCCESS;
}

TEST(FetchBlockMpi, SumsCarriedInTurnHaveTheOneProcessBits) {
  Grid g(9);
  std::vector<double> whole(g.ncell);
  for (int c = 0; c < g.ncell; c++) whole[c] = std::pow(10.0, (c * 7) % 31 - 15) * (c % 3 ? 1.0 : -1.0) / 3.0;
  double serial[2] = {0.0, 0.0};
  for (double v : whole) serial[0] = serial[0] + v, serial[1] += 1;
  Mesh m;
  m.build(g, true, false, true);
  long long b = 0;
  int n = 0;
  ASSERT_EQ(um_set_block(m.ctx, m.cells, &b, &n), 0);
  CarryArg a;
  a.q.assign(whole.begin() + b, whole.begin() + b + n);
  double state[2] = {0.0, 0.0};
  ASSERT_EQ(um_in_turn_carry(m.ctx, add_in_order, &a, state, sizeof state), 0) << um_error_message(m.ctx);
  EXPECT_EQ(a.turns, 1);
  EXPECT_EQ(state[1], g.ncell);
  EXPECT_EQ(std::memcmp(&state[0], &serial[0], sizeof(double)), 0) << state[0] << " against " << serial[0];
  if (um_mpi_size() < 2) return;
  CarryArg f;
  f.fail_on = 0;
  double s2[2] = {0.0, 0.0};
  EXPECT_EQ(um_in_turn_carry(m.ctx, add_in_order, &f, s2, sizeof s2), UM_ERR_IO);
  EXPECT_EQ(f.turns, um_mpi_rank() == 0 ? 1 : 0); // the ranks after the failed one skip their turn
}

} // namespace
