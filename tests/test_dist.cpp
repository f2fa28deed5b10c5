// Distributed memory without MPI: owners and per-rank layouts (engine/src/distributed/partition.h)
// checked against brute force on small meshes, for many rank counts and partitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "distributed/partition.h"
#include "distributed/transport.h"
#include "um/um.h"

namespace {

// An N x N grid of quads: nodes, cells, interior edges (edge -> 2 cells, 2 nodes), boundary
// edges (-> 1 cell), cells -> 4 nodes; and a cells -> cells neighbour map (self loops at the boundary).
struct Grid {
  int N;
  std::vector<int> size;  // nodes, cells, edges, bedges
  std::vector<int> cell_nodes, edge_cells, edge_nodes, bedge_cells, cell_cells;
  std::vector<umd_map> maps;
  umd_mesh mesh;
  explicit Grid(int n) : N(n) {
    auto node = [&](int i, int j) { return j * (N + 1) + i; };
    auto cell = [&](int i, int j) { return j * N + i; };
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++) {
        cell_nodes.insert(cell_nodes.end(), {node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)});
        const int c = cell(i, j);
        cell_cells.insert(cell_cells.end(), {i > 0 ? cell(i - 1, j) : c, i + 1 < N ? cell(i + 1, j) : c,
                                             j > 0 ? cell(i, j - 1) : c, j + 1 < N ? cell(i, j + 1) : c});
      }
    int nedge = 0, nb = 0;
    for (int j = 0; j < N; j++)
      for (int i = 0; i <= N; i++) {  // vertical edges
        if (i == 0 || i == N) {
          bedge_cells.push_back(cell(i == 0 ? 0 : N - 1, j));
          nb++;
        } else {
          edge_cells.insert(edge_cells.end(), {cell(i - 1, j), cell(i, j)});
          edge_nodes.insert(edge_nodes.end(), {node(i, j), node(i, j + 1)});
          nedge++;
        }
      }
    for (int j = 0; j <= N; j++)
      for (int i = 0; i < N; i++) {  // horizontal edges
        if (j == 0 || j == N) {
          bedge_cells.push_back(cell(i, j == 0 ? 0 : N - 1));
          nb++;
        } else {
          edge_cells.insert(edge_cells.end(), {cell(i, j - 1), cell(i, j)});
          edge_nodes.insert(edge_nodes.end(), {node(i, j), node(i + 1, j)});
          nedge++;
        }
      }
    size = {(N + 1) * (N + 1), N * N, nedge, nb};
    maps = {{1, 0, 4, cell_nodes.data()},
            {2, 1, 2, edge_cells.data()},
            {2, 0, 2, edge_nodes.data()},
            {3, 1, 1, bedge_cells.data()},
            {1, 1, 4, cell_cells.data()}};
    mesh = {4, size.data(), (int)maps.size(), maps.data()};
  }
};

struct Owners {
  std::vector<int *> o;
  explicit Owners(int nsets) : o(nsets, nullptr) {}
  ~Owners() {
    for (int *p : o) free(p);
  }
};

// Every invariant of partition.h, by brute force over the global mesh.
void check_layouts(const umd_mesh &m, int *const *owner, int P) {
  std::vector<std::vector<int>> owned_by(m.nsets);
  for (int s = 0; s < m.nsets; s++) owned_by[s].assign(m.size[s], 0);
  for (int r = 0; r < P; r++) {
    std::vector<umd_layout> L(m.nsets);
    char err[256];
    ASSERT_EQ(umd_build_layout(&m, owner, r, L.data(), err, sizeof err), 0) << err;
    std::vector<std::vector<int>> g2l(m.nsets);
    for (int s = 0; s < m.nsets; s++) {
      const umd_layout &l = L[s];
      const int total = l.owned + l.exec + l.nonexec;
      g2l[s].assign(m.size[s], -1);
      for (int i = 0; i < total; i++) {
        const int g = l.l2g[i];
        ASSERT_TRUE(g >= 0 && g < m.size[s]);
        ASSERT_EQ(g2l[s][g], -1) << "set " << s << ": global " << g << " twice on rank " << r;
        g2l[s][g] = i;
        if (i < l.owned) {
          ASSERT_EQ(owner[s][g], r) << "set " << s << " local " << i << " is not owned by rank " << r;
          owned_by[s][g]++;
        } else {
          ASSERT_NE(owner[s][g], r) << "a halo element of set " << s << " is owned by rank " << r;
        }
      }
      // every element the rank owns is in its owned range
      for (int g = 0; g < m.size[s]; g++)
        if (owner[s][g] == r) ASSERT_TRUE(g2l[s][g] >= 0 && g2l[s][g] < l.owned);
      ASSERT_LE(l.core_begin + l.core, l.owned);
      if (l.core_begin > 0) // the owned kept ascending where their core elements are one run of them
        for (int i = 1; i < l.owned; i++) ASSERT_LT(l.l2g[i - 1], l.l2g[i]);
      // halos sorted by (owner, global) within exec and within non-exec
      for (int part = 0; part < 2; part++) {
        const int lo = l.owned + (part ? l.exec : 0), hi = part ? total : l.owned + l.exec;
        for (int i = lo + 1; i < hi; i++) {
          const int a = l.l2g[i - 1], b = l.l2g[i];
          ASSERT_TRUE(owner[s][a] < owner[s][b] || (owner[s][a] == owner[s][b] && a < b));
        }
      }
    }
    for (int k = 0; k < m.nmaps; k++) {
      const umd_map &mp = m.maps[k];
      const umd_layout &F = L[mp.from];
      for (int g = 0; g < m.size[mp.from]; g++) {
        bool reaches_owned = false, all_owned = true;
        for (int a = 0; a < mp.arity; a++) {
          const int t = mp.data[(size_t)g * mp.arity + a];
          reaches_owned |= owner[mp.to][t] == r;
          all_owned &= owner[mp.to][t] == r;
        }
        const int l = g2l[mp.from][g];
        // exec halo complete: an element of another rank reaching an owned element is in it
        if (owner[mp.from][g] != r && reaches_owned)
          ASSERT_TRUE(l >= F.owned && l < F.owned + F.exec) << "map " << k << " element " << g << " rank " << r;
        // coverage: every target of an owned or exec element is held locally
        if (l >= 0 && l < F.owned + F.exec)
          for (int a = 0; a < mp.arity; a++) ASSERT_GE(g2l[mp.to][mp.data[(size_t)g * mp.arity + a]], 0);
        // core elements read no halo
        if (l >= F.core_begin && l < F.core_begin + F.core)
          ASSERT_TRUE(all_owned) << "core element " << g << " of set " << mp.from;
      }
    }
    // exec elements reach an owned element through some map; non-exec ones are reached by owned/exec ones
    for (int s = 0; s < m.nsets; s++) {
      const umd_layout &l = L[s];
      for (int i = l.owned; i < l.owned + l.exec; i++) {
        bool ok = false;
        for (int k = 0; k < m.nmaps; k++)
          if (m.maps[k].from == s)
            for (int a = 0; a < m.maps[k].arity; a++)
              ok |= owner[m.maps[k].to][m.maps[k].data[(size_t)l.l2g[i] * m.maps[k].arity + a]] == r;
        ASSERT_TRUE(ok);
      }
      for (int i = l.owned + l.exec; i < l.owned + l.exec + l.nonexec; i++) {
        bool ok = false;
        for (int k = 0; k < m.nmaps && !ok; k++) {
          const umd_map &mp = m.maps[k];
          if (mp.to != s) continue;
          const umd_layout &F = L[mp.from];
          for (int j = 0; j < F.owned + F.exec && !ok; j++)
            for (int a = 0; a < mp.arity; a++) ok |= mp.data[(size_t)F.l2g[j] * mp.arity + a] == l.l2g[i];
        }
        ASSERT_TRUE(ok) << "non-exec element " << l.l2g[i] << " of set " << s << " is reached by nothing on rank " << r;
      }
    }
    umd_layout_free(L.data(), m.nsets);
  }
  for (int s = 0; s < m.nsets; s++)
    for (int g = 0; g < m.size[s]; g++) ASSERT_EQ(owned_by[s][g], 1) << "set " << s << " element " << g;
}

void run_case(const Grid &G, int primary, int P, const std::vector<int> &primary_owner) {
  Owners O(G.mesh.nsets);
  O.o[primary] = (int *)malloc(sizeof(int) * (size_t)std::max(1, G.size[primary]));
  std::copy(primary_owner.begin(), primary_owner.end(), O.o[primary]);
  char err[256];
  ASSERT_EQ(umd_derive_owners(&G.mesh, primary, P, O.o.data(), err, sizeof err), 0) << err;
  for (int s = 0; s < G.mesh.nsets; s++)
    for (int g = 0; g < G.size[s]; g++) ASSERT_TRUE(O.o[s][g] >= 0 && O.o[s][g] < P);
  check_layouts(G.mesh, O.o.data(), P);
}

std::vector<int> blocks(int n, int P) {
  std::vector<int> p(n);
  umd_block_partition(n, P, p.data());
  return p;
}

}  // namespace

TEST(DistPartition, BlocksOfCellsAnyRankCount) {
  Grid G(5);
  for (int P : {1, 2, 3, 4, 5, 7}) run_case(G, 1, P, blocks(G.size[1], P));
}

TEST(DistPartition, NodesAsPrimary) {
  Grid G(4);
  for (int P : {2, 3, 5}) run_case(G, 0, P, blocks(G.size[0], P));
}

TEST(DistPartition, OneElementPerRankAndMoreRanksThanElements) {
  Grid G(3);                                       // 9 cells
  run_case(G, 1, 9, blocks(G.size[1], 9));         // one cell per rank
  run_case(G, 1, 13, blocks(G.size[1], 13));       // more ranks than cells: some own no cell
  run_case(G, 3, 20, blocks(G.size[3], 20));       // boundary edges primary, 20 ranks > 12 bedges
}

TEST(DistPartition, UnevenAndInterleavedPartitions) {
  Grid G(6);
  std::vector<int> uneven(G.size[1], 0);
  uneven[G.size[1] - 1] = 1;  // rank 1 owns one corner cell, rank 2 nothing of the primary set
  run_case(G, 1, 3, uneven);
  std::vector<int> stripes(G.size[1]);
  for (int c = 0; c < G.size[1]; c++) stripes[c] = c % 4;  // every cell on a boundary between ranks
  run_case(G, 1, 4, stripes);
}

TEST(DistPartition, RankWithoutBoundaryElements) {
  Grid G(8);
  // rank 1 owns the inner 4 x 4 cells: none of its cells has a boundary edge
  std::vector<int> p(G.size[1], 0);
  for (int j = 2; j < 6; j++)
    for (int i = 2; i < 6; i++) p[j * 8 + i] = 1;
  run_case(G, 1, 2, p);
}

TEST(DistPartition, GraphAndEdgeCut) {
  Grid G(4);
  int *xadj = nullptr, *adj = nullptr;
  char err[256];
  ASSERT_EQ(umd_graph(&G.mesh, 1, &xadj, &adj, err, sizeof err), 0) << err;
  // an interior cell shares a node with its 8 neighbours
  const int c = 1 * 4 + 1;
  std::set<int> nb(adj + xadj[c], adj + xadj[c + 1]);
  EXPECT_EQ(nb.size(), 8u);
  EXPECT_EQ(nb.count(c), 0u);
  for (int p = 0; p < G.size[1]; p++)  // symmetric
    for (int j = xadj[p]; j < xadj[p + 1]; j++) {
      const int q = adj[j];
      EXPECT_TRUE(std::find(adj + xadj[q], adj + xadj[q + 1], p) != adj + xadj[q + 1]);
    }
  std::vector<int> part = blocks(G.size[1], 2);  // two halves of rows: cut between rows 1 and 2
  EXPECT_EQ(umd_edge_cut(G.size[1], xadj, adj, part.data()), 4 + 2 * 3);
  free(xadj);
  free(adj);
}

// Each rank's share of the partition's quality (its own rows of the graph, so no rank builds the whole graph):
// the cut edges' ends summed over the parts are twice the whole graph's edge cut, and each part's components are
// those of a search over the whole graph; rows of a range are the whole graph's rows.
TEST(DistPartition, PartQualityFromEachPartsRowsMatchesTheWholeGraph) {
  Grid G(12);
  const int n = G.size[1], P = 4;
  std::vector<int> part(n);
  for (int c = 0; c < n; c++) part[c] = (c / 12) % 3;  // stripes of rows: parts 0, 1, 2 each fall in 4 pieces
  part[5 * 12 + 5] = 1;                                  // and one cell of part 1 alone inside part 2's stripe
  // part 3 is empty
  int *xadj = nullptr, *adj = nullptr;
  char err[256];
  ASSERT_EQ(umd_graph(&G.mesh, 1, &xadj, &adj, err, sizeof err), 0) << err;
  long ends = 0;
  for (int q = 0; q < P; q++) {
    long e = -1;
    int ncomp = -1;
    ASSERT_EQ(umd_part_quality(&G.mesh, 1, part.data(), q, &e, &ncomp, err, sizeof err), 0) << err;
    ends += e;
    // components of part q over the whole graph
    std::vector<int> seen(n, 0), stack;
    int want = 0;
    for (int v = 0; v < n; v++) {
      if (part[v] != q || seen[v]) continue;
      want++;
      stack.push_back(v);
      seen[v] = 1;
      while (!stack.empty()) {
        const int x = stack.back();
        stack.pop_back();
        for (int j = xadj[x]; j < xadj[x + 1]; j++)
          if (part[adj[j]] == q && !seen[adj[j]]) seen[adj[j]] = 1, stack.push_back(adj[j]);
      }
    }
    EXPECT_EQ(ncomp, want) << "part " << q;
  }
  EXPECT_EQ(ends, 2 * umd_edge_cut(n, xadj, adj, part.data()));
  int c3 = -1;
  long e3 = -1;
  ASSERT_EQ(umd_part_quality(&G.mesh, 1, part.data(), 3, &e3, &c3, err, sizeof err), 0);
  EXPECT_EQ(c3, 0);
  EXPECT_EQ(e3, 0);
  // rows of [40, 90): the whole graph's rows 40..89
  int *rx = nullptr, *ra = nullptr;
  ASSERT_EQ(umd_graph_rows(&G.mesh, 1, nullptr, 0, 40, 90, &rx, &ra, err, sizeof err), 0) << err;
  for (int r = 0; r < 50; r++) {
    ASSERT_EQ(rx[r + 1] - rx[r], xadj[40 + r + 1] - xadj[40 + r]) << "row " << 40 + r;
    EXPECT_TRUE(std::equal(ra + rx[r], ra + rx[r + 1], adj + xadj[40 + r])) << "row " << 40 + r;
  }
  free(rx), free(ra), free(xadj), free(adj);
}

// A primary set large enough for the threaded build (65536 elements or more): every cell's neighbours are the
// cells around it (sharing a node), each once, never itself, and the graph is symmetric.
TEST(DistPartition, GraphOfALargeGridIsExact) {
  Grid G(300);
  int *xadj = nullptr, *adj = nullptr;
  char err[256];
  ASSERT_EQ(umd_graph(&G.mesh, 1, &xadj, &adj, err, sizeof err), 0) << err;
  const int N = 300;
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      const int c = j * N + i;
      std::set<int> want;
      for (int dj = -1; dj <= 1; dj++)
        for (int di = -1; di <= 1; di++)
          if ((di || dj) && i + di >= 0 && i + di < N && j + dj >= 0 && j + dj < N) want.insert((j + dj) * N + i + di);
      const std::set<int> got(adj + xadj[c], adj + xadj[c + 1]);
      ASSERT_EQ((size_t)(xadj[c + 1] - xadj[c]), got.size()) << "cell " << c << ": a neighbour listed twice";
      ASSERT_EQ(got, want) << "cell " << c;
    }
  for (int p = 0; p < G.size[1]; p += 97)  // symmetric (a sample)
    for (int j = xadj[p]; j < xadj[p + 1]; j++) {
      const int q = adj[j];
      EXPECT_TRUE(std::find(adj + xadj[q], adj + xadj[q + 1], p) != adj + xadj[q + 1]);
    }
  free(xadj);
  free(adj);
}

// The halo transport of GPU ranks (mpi.gpu_transport): what auto takes, and why, from every rank's facts.
namespace {
struct Ranks {
  std::vector<int> usable;
  std::vector<const char *> why, host, dev;
  char note[256] = "";
  int choose(int want, const char *name = "nccl") {
    return umd_choose_transport(want, name, (int)usable.size(), usable.data(), why.data(), host.data(), dev.data(),
                                note, sizeof note);
  }
};
Ranks four() {
  Ranks r;
  r.usable = {1, 1, 1, 1};
  r.why = {"", "", "", ""};
  r.host = {"h", "h", "h", "h"};
  r.dev = {"gpu0", "gpu1", "gpu2", "gpu3"};
  return r;
}
}  // namespace

TEST(DistTransport, AutoTakesTheDeviceOnlyWhenEveryRankHasItsOwnGpuOnOneHost) {
  const int AUTO = UM_TRANSPORT_AUTO, HOST = UM_TRANSPORT_HOST, DEV = UM_TRANSPORT_DEVICE;
  Ranks r = four();
  EXPECT_EQ(r.choose(AUTO), DEV);
  EXPECT_NE(std::string(r.note).find("own GPU"), std::string::npos) << r.note;
  EXPECT_EQ(r.choose(DEV), DEV);
  EXPECT_EQ(r.choose(HOST), HOST);
  EXPECT_NE(std::string(r.note).find("asked for"), std::string::npos) << r.note;
  EXPECT_EQ(r.choose(AUTO, nullptr), HOST);  // a backend without a device transport
  EXPECT_NE(std::string(r.note).find("no device-to-device"), std::string::npos) << r.note;
  EXPECT_EQ(r.choose(DEV, nullptr), -1);
  r.dev[3] = "gpu1";  // ranks 1 and 3 share a GPU
  EXPECT_EQ(r.choose(AUTO), HOST);
  EXPECT_NE(std::string(r.note).find("ranks 1 and 3 share one GPU"), std::string::npos) << r.note;
  EXPECT_EQ(r.choose(DEV), -1);
  EXPECT_NE(std::string(r.note).find("mpi.gpu_transport nccl cannot run"), std::string::npos) << r.note;
  r = four();
  r.usable[2] = 0;
  r.why[2] = "libnccl.so.2: cannot open shared object file";
  EXPECT_EQ(r.choose(AUTO), HOST);
  EXPECT_NE(std::string(r.note).find("rank 2 cannot use nccl: libnccl.so.2"), std::string::npos) << r.note;
  EXPECT_EQ(r.choose(DEV), -1);
  r = four();
  r.host[2] = "other";  // two hosts: auto keeps to host staging, asked for it runs (NCCL spans hosts)
  r.dev[2] = "gpu0";    // the same device identity on another host is another device
  EXPECT_EQ(r.choose(AUTO), HOST);
  EXPECT_NE(std::string(r.note).find("different hosts"), std::string::npos) << r.note;
  r.dev[2] = "gpu9";
  EXPECT_EQ(r.choose(DEV), DEV);
}

// Extra transports come with a context's options (um_options.extra_transports), not a process-wide setting: a
// context offers them after the list's, another context does not see them, and lookups without a context see
// the list alone.
TEST(DistTransport, ExtraTransportsAreTheContextsOwn) {
  um_transport_def mine{};
  mine.name = "test-extra";
  mine.device = 1;
  mine.backends = "seq";
  const um_transport_def *const list[1] = {&mine};
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  o.extra_transports = list;
  o.nextra_transports = 1;
  um_context *with = nullptr, *without = nullptr;
  ASSERT_EQ(um_init(&with, &o), UM_SUCCESS) << um_error_message(with);
  o.extra_transports = nullptr;
  o.nextra_transports = 0;
  ASSERT_EQ(um_init(&without, &o), UM_SUCCESS) << um_error_message(without);
  EXPECT_EQ(um__transport_find(with, "TEST-EXTRA"), &mine);  // names ignore case
  EXPECT_EQ(um__transport_for_backend(with, "seq"), &mine);
  EXPECT_EQ(um__transport_find(without, "test-extra"), nullptr);
  EXPECT_EQ(um__transport_for_backend(without, "seq"), nullptr);
  EXPECT_EQ(um__transport_find(nullptr, "test-extra"), nullptr);
  for (int i = 0; i < um__transport_count(); i++) {  // the list's are every context's
    EXPECT_NE(um__transport_find(with, um__transport_at(i)), nullptr) << um__transport_at(i);
    EXPECT_NE(um__transport_find(without, um__transport_at(i)), nullptr) << um__transport_at(i);
    EXPECT_NE(um__transport_find(nullptr, um__transport_at(i)), nullptr) << um__transport_at(i);
  }
  um_finalize(&with);
  um_finalize(&without);
}
