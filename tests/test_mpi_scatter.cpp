// A mesh read whole on rank 0 and sent out by blocks (um_mpi_scatter_block, um_mpi_bcast_bytes): every rank gets
// exactly the block partitioner's rows of rank 0's array, a bad argument on one rank fails every rank alike; Volna's
// and BookLeaf's blocks sent from a whole mesh are those rows of the whole mesh (and, for a regular BookLeaf deck,
// the bits of the block each rank generates alone). Part of um_mpi_tests (ctest: 1 to 4 ranks).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "bookleaf/bookleaf_mesh.h"
#include "test_mpi_same.hpp"
#include "um/hdf5io.h"
#include "um/um.h"
#include "volna/volna.h"

namespace {
// The byte of row i, column k of a test array.
unsigned char cell_byte(long long i, size_t k) { return (unsigned char)((i * 31 + (long long)k * 7 + 3) & 0xff); }
} // namespace

TEST(MpiScatter, EachRankGetsTheBlockPartitionersRowsOfRankZerosArray) {
  const int q = um_mpi_rank(), P = um_mpi_size();
  for (long long gsize : {0LL, 1LL, 5LL, 1001LL})
    for (size_t row : {size_t(3), size_t(24)}) {
      std::vector<unsigned char> whole;
      if (q == 0) {
        whole.resize((size_t)gsize * row + 1);
        for (long long i = 0; i < gsize; i++)
          for (size_t k = 0; k < row; k++) whole[(size_t)i * row + k] = cell_byte(i, k);
      }
      long long begin = 0;
      int count = 0;
      ASSERT_EQ(um_block_range(gsize, q, P, &begin, &count), UM_SUCCESS);
      std::vector<unsigned char> mine((size_t)count * row + 1, 0xee);
      ASSERT_EQ(um_mpi_scatter_block(q == 0 ? whole.data() : nullptr, gsize, row, mine.data()), UM_SUCCESS);
      for (int i = 0; i < count; i++)
        for (size_t k = 0; k < row; k++)
          ASSERT_EQ(mine[(size_t)i * row + k], cell_byte(begin + i, k))
              << "row " << begin + i << " of " << gsize << " on rank " << q << " of " << P;
      EXPECT_EQ(mine[(size_t)count * row], 0xee) << "written past this rank's block";
    }
}

TEST(MpiScatter, ABadArgumentOnOneRankFailsEveryRankAlike) {
  const int q = um_mpi_rank(), P = um_mpi_size();
  std::vector<double> whole(100, 1.0), mine(100, 0.0);
  // the last rank forgets its buffer (NULL for a block of rows): every rank returns UM_ERR_ARG, none hangs
  double *buf = q == P - 1 ? nullptr : mine.data();
  EXPECT_EQ(um_mpi_scatter_block(q == 0 ? whole.data() : nullptr, 100, sizeof(double), buf), UM_ERR_ARG);
  // a size that does not fit the int numbers of a set, on every rank
  EXPECT_EQ(um_mpi_scatter_block(whole.data(), 1LL << 33, sizeof(double), mine.data()), UM_ERR_ARG);
  // the next scatter still works: the failed ones left no message behind
  EXPECT_EQ(um_mpi_scatter_block(q == 0 ? whole.data() : nullptr, 100, sizeof(double), mine.data()), UM_SUCCESS);
}

TEST(MpiScatter, BroadcastBytesSendsRankZerosBuffer) {
  const int q = um_mpi_rank();
  char buf[37];
  std::memset(buf, q == 0 ? 'a' : 'z', sizeof buf);
  ASSERT_EQ(um_mpi_bcast_bytes(buf, sizeof buf), UM_SUCCESS);
  for (char c : buf) EXPECT_EQ(c, 'a');
  EXPECT_EQ(um_mpi_bcast_bytes(nullptr, 4), UM_ERR_ARG);
  EXPECT_EQ(um_mpi_bcast_bytes(nullptr, 0), UM_SUCCESS);
}

// Volna's Mesh Rectangle made whole on every rank (the reference) and, on rank 0 alone, sent out by blocks: each
// rank's block is exactly its rows of the whole mesh (maps in global numbers), and no rank keeps the whole arrays.
TEST(BlocksVolna, BlocksSentFromRankZeroAreTheRowsOfTheWholeMesh) {
  const int q = um_mpi_rank(), P = um_mpi_size();
  char err[512] = "";
  vl_mesh ref, m;
  ASSERT_EQ(vl_mesh_rectangle(-10, 30, -10, 10, 16, 9, &ref, err, sizeof err), 0) << err;
  std::memset(&m, 0, sizeof m);
  if (q == 0) ASSERT_EQ(vl_mesh_rectangle(-10, 30, -10, 10, 16, 9, &m, err, sizeof err), 0) << err;
  vl_block b;
  ASSERT_EQ(vl_block_scatter(&m, &b, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(m.nnodes, ref.nnodes);
  EXPECT_EQ(m.ncells, ref.ncells);
  EXPECT_EQ(m.nedges, ref.nedges);
  EXPECT_EQ(std::memcmp(&m.xmin, &ref.xmin, sizeof m.xmin), 0);
  EXPECT_EQ(m.node_xy, nullptr) << "rank " << q << " keeps the whole mesh";
  EXPECT_EQ(m.cell_nodes, nullptr);
  const long long n[3] = {ref.nnodes, ref.ncells, ref.nedges};
  for (int s = 0; s < 3; s++) {
    long long begin = 0;
    int count = 0;
    ASSERT_EQ(um_block_range(n[s], q, P, &begin, &count), 0);
    EXPECT_EQ(b.first[s], begin);
    EXPECT_EQ(b.count[s], count);
  }
  for (int i = 0; i < b.count[0]; i++)
    for (int k = 0; k < 2; k++) EXPECT_EQ(b.node_xy[2 * i + k], ref.node_xy[2 * (b.first[0] + i) + k]);
  for (int i = 0; i < b.count[1]; i++) {
    const size_t c = (size_t)(b.first[1] + i);
    for (int k = 0; k < 3; k++) {
      EXPECT_EQ(b.cell_nodes[3 * i + k], ref.cell_nodes[3 * c + k]);
      EXPECT_EQ(b.cell_edges[3 * i + k], ref.cell_edges[3 * c + k]);
      EXPECT_EQ(b.cell_cells[3 * i + k], ref.cell_cells[3 * c + k]);
    }
    EXPECT_EQ(std::memcmp(b.cell_xy + 2 * i, ref.cell_xy + 2 * c, 2 * sizeof(float)), 0);
    EXPECT_EQ(std::memcmp(b.cell_area + i, ref.cell_area + c, sizeof(float)), 0);
  }
  for (int i = 0; i < b.count[2]; i++) {
    const size_t e = (size_t)(b.first[2] + i);
    EXPECT_EQ(b.edge_cells[2 * i], ref.edge_cells[2 * e]);
    EXPECT_EQ(b.edge_cells[2 * i + 1], ref.edge_cells[2 * e + 1]);
    EXPECT_EQ(b.is_boundary[i], ref.is_boundary[e]);
    EXPECT_EQ(std::memcmp(b.edge_normal + 2 * i, ref.edge_normal + 2 * e, 2 * sizeof(float)), 0);
    EXPECT_EQ(std::memcmp(b.edge_length + i, ref.edge_length + e, sizeof(float)), 0);
  }
  vl_block_free(&b);
  vl_mesh_free(&ref);
}

namespace {
std::string deck_path(const char *name) { return std::string(UM_SOURCE_DIR) + "/validation/bookleaf/decks/" + name; }

// Every array of two blocks equal, bit for bit (what: which optional arrays both hold).
void expect_same_block(const bl_block &a, const bl_block &b, int what) {
  ASSERT_EQ(a.nel, b.nel);
  ASSERT_EQ(a.nnd, b.nnd);
  ASSERT_EQ(a.count[0], b.count[0]);
  ASSERT_EQ(a.count[1], b.count[1]);
  EXPECT_EQ(a.nreg, b.nreg);
  EXPECT_EQ(a.nmat, b.nmat);
  EXPECT_EQ(std::memcmp(a.region_name, b.region_name, sizeof a.region_name), 0);
  const size_t ne = (size_t)a.count[0], nn = (size_t)a.count[1];
  struct {
    const void *x, *y;
    size_t bytes;
    const char *name;
  } arrays[] = {{a.elnd, b.elnd, 32 * ne, "elnd"},
                {a.elel, b.elel, 32 * ne, "elel"},
                {a.elfc, b.elfc, 16 * ne, "elfc"},
                {a.elreg, b.elreg, 4 * ne, "elreg"},
                {a.elmat, b.elmat, 4 * ne, "elmat"},
                {a.density, b.density, 8 * ne, "density"},
                {a.energy, b.energy, 8 * ne, "energy"},
                {a.cx, b.cx, 32 * ne, "cx"},
                {a.cy, b.cy, 32 * ne, "cy"},
                {a.ctype, b.ctype, 16 * ne, "ctype"},
                {a.indtype, b.indtype, 4 * nn, "indtype"},
                {a.x, b.x, 8 * nn, "x"},
                {a.y, b.y, 8 * nn, "y"},
                {a.u, b.u, 8 * nn, "u"},
                {a.v, b.v, 8 * nn, "v"},
                {a.visc, b.visc, what & BL_BLOCK_VISC ? 64 * ne : 0, "visc"},
                {a.ndel, b.ndel, what & BL_BLOCK_NODE_ELEMENTS ? 32 * nn : 0, "ndel"},
                {a.ndcorner, b.ndcorner, what & BL_BLOCK_NODE_ELEMENTS ? 16 * nn : 0, "ndcorner"}};
  for (const auto &r : arrays)
    if (r.bytes) EXPECT_EQ(std::memcmp(r.x, r.y, r.bytes), 0) << r.name << " differs on rank " << um_mpi_rank();
}
} // namespace

// A regular BookLeaf deck (Sod): the blocks rank 0 sends from the whole mesh are the bits of the blocks each rank
// generates alone (bl_block_build), every array, the fused viscosity's corners and the node -> element lists too.
TEST(BlocksBookLeaf, BlocksSentFromTheWholeMeshAreTheGeneratedBlocks) {
  const int q = um_mpi_rank(), P = um_mpi_size();
  std::unique_ptr<bl_deck> deck(new bl_deck()); // large (the namelist arrays): not on the stack
  bl_deck &d = *deck;
  char err[1024] = "";
  ASSERT_EQ(bl_deck_read(&d, deck_path("sod_sm_lag_small").c_str(), err, sizeof err), 0) << err;
  bl_mesh m;
  std::memset(&m, 0, sizeof m);
  if (q == 0) ASSERT_EQ(bl_mesh_build(&d, &m, err, sizeof err), 0) << err;
  const int what = BL_BLOCK_VISC | BL_BLOCK_NODE_ELEMENTS;
  bl_block sent, made;
  ASSERT_EQ(bl_block_scatter(q == 0 ? &m : nullptr, what, &sent, err, sizeof err), UM_SUCCESS) << err;
  bl_mesh_free(&m);
  EXPECT_EQ(sent.regular, 1);
  long long first[2], count[2];
  for (int s = 0; s < 2; s++) {
    int n = 0;
    ASSERT_EQ(um_block_range(s ? sent.nnd : sent.nel, q, P, &first[s], &n), 0);
    count[s] = n;
    EXPECT_EQ(sent.first[s], first[s]);
  }
  ASSERT_EQ(bl_block_build(&d, first, count, what, &made, err, sizeof err), 0) << err;
  ASSERT_EQ(made.regular, 1) << "the Sod deck is regular";
  expect_same_block(sent, made, what);
  bl_block_free(&sent);
  bl_block_free(&made);
}

// ---- bad input read by blocks: every rank fails at once with the first failing rank's reason ------------------

namespace {
// A path every rank agrees on (rank 0's temporary folder and PID).
std::string shared_file(const char *tag) {
  char buf[512] = "";
  if (um_mpi_rank() == 0)
    snprintf(buf, sizeof buf, "%s/um_scatter_%s_%ld.h5", ::testing::TempDir().c_str(), tag, (long)getpid());
  um_mpi_bcast_bytes(buf, sizeof buf);
  return buf;
}
} // namespace

// A map whose last row names a node past the stored node count: only the rank whose block holds that row sees it
// (each rank reads its rows). After um_hdf5_read_agree every rank has failed, with that rank's reason, at once.
TEST(BlocksHdf5Errors, AMapEntryOutOfRangeInOneRanksRowsFailsEveryRankWithItsReason) {
  const int q = um_mpi_rank(), P = um_mpi_size();
  const std::string file = shared_file("range");
  const int ncell = 12, nnode = 14;
  if (q == 0) {
    um_context *w = seq_context();
    ASSERT_NE(w, nullptr);
    um_set *cells, *nodes;
    um_map *pcell;
    std::vector<int> cn(4 * ncell);
    for (int i = 0; i < 4 * ncell; i++) cn[i] = (i / 4 + i % 4) % (nnode - 1); // nodes 0 .. nnode - 2
    cn[4 * ncell - 1] = nnode - 1; // the last row: the last node
    ASSERT_EQ(um_decl_set(w, ncell, "cells", &cells), 0);
    ASSERT_EQ(um_decl_set(w, nnode, "nodes", &nodes), 0);
    ASSERT_EQ(um_decl_map(w, cells, nodes, 4, cn.data(), "pcell", &pcell), 0);
    ASSERT_EQ(um_hdf5_write_mesh(w, file.c_str()), 0) << um_error_message(w);
    um_finalize(&w);
    w = seq_context();
    um_set *fewer;
    ASSERT_EQ(um_decl_set(w, nnode - 1, "nodes", &fewer), 0);
    ASSERT_EQ(um_hdf5_write_set(w, file.c_str(), fewer), 0) << um_error_message(w); // "nodes" now says 13
    um_finalize(&w);
  }
  ASSERT_EQ(um_mpi_agree_step(0, 60), 0); // the file is written
  um_context *ctx = seq_context();
  ASSERT_NE(ctx, nullptr);
  um_set *cells = nullptr, *nodes = nullptr;
  um_map *pcell = nullptr;
  int rc = um_hdf5_read_set_block(ctx, file.c_str(), "cells", &cells);
  if (!rc) rc = um_hdf5_read_set_block(ctx, file.c_str(), "nodes", &nodes);
  if (!rc) rc = um_hdf5_read_map_expect(ctx, file.c_str(), cells, nodes, 4, "pcell", &pcell);
  const int mine = rc;
  rc = um_hdf5_read_agree(ctx, rc, file.c_str());
  EXPECT_NE(rc, UM_SUCCESS) << "rank " << q << " goes on although a rank's rows are bad";
  long long begin = 0;
  int count = 0;
  ASSERT_EQ(um_block_range(ncell, q, P, &begin, &count), 0);
  const bool holds_bad_row = begin + count == ncell;
  EXPECT_EQ(mine != UM_SUCCESS, holds_bad_row) << "only the rank reading the last row sees it";
  const std::string msg = um_error_message(ctx);
  EXPECT_NE(msg.find("13"), std::string::npos) << msg; // the node count the entry is out of, on every rank
  if (!holds_bad_row)
    EXPECT_NE(msg.find("rank " + std::to_string(P - 1) + " of " + std::to_string(P) + " could not read its block"),
              std::string::npos)
        << msg;
  um_finalize(&ctx);
  ASSERT_EQ(um_mpi_agree_step(0, 60), 0);
  if (q == 0) std::remove(file.c_str());
}

// A rank that stopped before a step (a deck only it could not read) never arrives: um_mpi_agree_step gives up after
// its timeout on the ranks that wait (-1), rather than hang, and its messages never match a collective.
TEST(MpiAgreeStep, TheLargestStatusAndATimeoutWhereARankNeverComes) {
  const int q = um_mpi_rank(), P = um_mpi_size();
  EXPECT_EQ(um_mpi_agree_step(q == P - 1 ? 3 : 0, 60), 3); // the last rank's status, on every rank
  EXPECT_EQ(um_mpi_agree_step(0, 60), 0);
  if (P < 2) return;
  const int skipped = q == P - 1; // the last rank does not come to this step (it goes to the barrier below)
  if (!skipped) EXPECT_EQ(um_mpi_agree_step(0, 0.5), -1) << "rank " << q << " waits for a rank that never comes";
  ASSERT_EQ(um_mpi_barrier(), 0);
}
