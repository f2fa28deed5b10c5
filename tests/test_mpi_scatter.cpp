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

#include "bookleaf/bookleaf_mesh.h"
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
