// SIAC's meshes (siac_mesh.h): uniform, refined and Gmsh meshes, the kernel scale and the periodic
// neighbourhoods, checked against hand counts and a brute-force O(N^2) search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "siac_mesh.h"

namespace {

const std::string data = UM_TEST_DATA_DIR;

double area2(const siac_mesh &m, int c) {  // twice the signed area
  const double *a = &m.xy[2 * m.tri[3 * c]], *b = &m.xy[2 * m.tri[3 * c + 1]], *p = &m.xy[2 * m.tri[3 * c + 2]];
  return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
}

// total area; every cell counter-clockwise and not degenerate
double check_cells(const siac_mesh &m) {
  double sum = 0;
  for (int c = 0; c < m.ncells; c++) {
    const double a = area2(m, c);
    EXPECT_GT(a, 0) << "cell " << c << " is not counter-clockwise";
    sum += 0.5 * a;
  }
  return sum;
}

void check_in_square(const siac_mesh &m) {
  for (int i = 0; i < m.nnodes; i++)
    for (int k = 0; k < 2; k++) {
      EXPECT_GE(m.xy[2 * i + k], 0.0) << "node " << i;
      EXPECT_LE(m.xy[2 * i + k], 1.0) << "node " << i;
    }
}

size_t distinct_nodes(const siac_mesh &m) {
  std::set<std::pair<double, double>> s;
  for (int i = 0; i < m.nnodes; i++) s.insert({m.xy[2 * i], m.xy[2 * i + 1]});
  return s.size();
}

// the predicate as siac_mesh.h states it, written again from the header's formula
struct Box {
  double b[2], w[2], g[2];
};
std::vector<Box> boxes(const siac_mesh &m) {
  std::vector<Box> out(m.ncells);
  for (int c = 0; c < m.ncells; c++)
    for (int k = 0; k < 2; k++) {
      double lo = 1e300, hi = -1e300, g = 0;
      for (int j = 0; j < 3; j++) {
        const double v = m.xy[2 * m.tri[3 * c + j] + k];
        lo = std::min(lo, v), hi = std::max(hi, v), g += v;
      }
      out[c].b[k] = 0.5 * (lo + hi), out[c].w[k] = 0.5 * (hi - lo), out[c].g[k] = g / 3.0;
    }
  return out;
}
bool meet(const Box &C, const Box &T, double reach) {
  for (int k = 0; k < 2; k++) {
    const double dg = T.g[k] - C.g[k];
    const double s = dg > 0.5 ? -1.0 : dg < -0.5 ? 1.0 : 0.0;
    if (!(std::fabs((T.b[k] - C.b[k]) + s) <= (T.w[k] + C.w[k]) + reach)) return false;
  }
  return true;
}

struct Nbr {
  int arity = 0, *nbr = nullptr, *count = nullptr;
  ~Nbr() {
    free(nbr);
    free(count);
  }
  std::vector<int> row(int c) const { return std::vector<int>(nbr + (size_t)c * arity, nbr + (size_t)c * arity + count[c]); }
};

struct Mesh {
  siac_mesh m{};
  ~Mesh() { siac_mesh_free(&m); }
};

}  // namespace

TEST(SiacMesh, UniformCountsAreaOrientation) {
  Mesh u;
  char err[512] = "";
  ASSERT_EQ(siac_mesh_uniform(8, &u.m, err, sizeof err), 0) << err;
  EXPECT_EQ(u.m.ncells, 2 * 8 * 8);
  EXPECT_EQ(u.m.nnodes, 9 * 9);
  EXPECT_NEAR(check_cells(u.m), 1.0, 1e-14);
  for (int c = 0; c < u.m.ncells; c++) EXPECT_NEAR(0.5 * area2(u.m, c), 1.0 / 128, 1e-15);
  check_in_square(u.m);
  EXPECT_DOUBLE_EQ(siac_mesh_h(&u.m), 1.0 / 8);
  std::vector<double> cxy(6 * u.m.ncells);
  siac_mesh_cellxy(&u.m, cxy.data());
  EXPECT_EQ(cxy[6 * 5 + 2], u.m.xy[2 * u.m.tri[3 * 5 + 1]]);
  EXPECT_EQ(cxy[6 * 5 + 5], u.m.xy[2 * u.m.tri[3 * 5 + 2] + 1]);
  siac_mesh_free(&u.m);
  siac_mesh_free(&u.m);  // twice is safe
  EXPECT_NE(siac_mesh_uniform(0, &u.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("n = 0"), std::string::npos) << err;
  EXPECT_EQ(u.m.xy, nullptr);
}

TEST(SiacMesh, RefineKeepsAreaFourTimesCellsNoDuplicateNodes) {
  Mesh u, r, rr;
  char err[512] = "";
  ASSERT_EQ(siac_mesh_uniform(5, &u.m, err, sizeof err), 0) << err;
  ASSERT_EQ(siac_mesh_refine(&u.m, &r.m, err, sizeof err), 0) << err;
  EXPECT_EQ(r.m.ncells, 4 * u.m.ncells);
  EXPECT_EQ(r.m.nnodes, 11 * 11);  // refining n x n gives the 2n x 2n node lattice
  EXPECT_EQ(distinct_nodes(r.m), (size_t)r.m.nnodes);
  EXPECT_NEAR(check_cells(r.m), 1.0, 1e-13);
  EXPECT_NEAR(siac_mesh_h(&r.m), 0.1, 1e-15);
  for (int c = 0; c < u.m.ncells; c++) {  // the four children of a cell cover it
    double kids = 0;
    for (int j = 0; j < 4; j++) kids += area2(r.m, 4 * c + j);
    EXPECT_NEAR(kids, area2(u.m, c), 1e-15);
  }
  ASSERT_EQ(siac_mesh_refine(&r.m, &rr.m, err, sizeof err), 0) << err;
  EXPECT_EQ(rr.m.ncells, 16 * u.m.ncells);
  EXPECT_EQ(distinct_nodes(rr.m), (size_t)rr.m.nnodes);
  // an unstructured mesh: V - E + F = 1 for a disc, so nodes after = nodes + edges before
  Mesh g, gr;
  ASSERT_EQ(siac_mesh_read((data + "/siac_high_tiny.msh").c_str(), &g.m, err, sizeof err), 0) << err;
  ASSERT_EQ(siac_mesh_refine(&g.m, &gr.m, err, sizeof err), 0) << err;
  EXPECT_EQ(gr.m.nnodes, g.m.nnodes + (g.m.nnodes + g.m.ncells - 1));
  EXPECT_EQ(distinct_nodes(gr.m), (size_t)gr.m.nnodes);
  EXPECT_NEAR(check_cells(gr.m), 1.0, 1e-12);
}

TEST(SiacMesh, ReadsTheTinyGmshMeshes) {
  for (const char *kind : {"low", "high"}) {
    Mesh g;
    char err[512] = "";
    const std::string path = data + "/siac_" + kind + "_tiny.msh";
    ASSERT_EQ(siac_mesh_read(path.c_str(), &g.m, err, sizeof err), 0) << err;
    EXPECT_GE(g.m.ncells, 300) << kind;
    EXPECT_LE(g.m.ncells, 800) << kind;
    EXPECT_NEAR(check_cells(g.m), 1.0, 1e-12) << kind;
    check_in_square(g.m);
    EXPECT_GT(siac_mesh_h(&g.m), 0.0);
    EXPECT_LT(siac_mesh_h(&g.m), 0.3);
  }
}

TEST(SiacMesh, ReadErrorsSayWhatAndWhere) {
  char err[512] = "";
  Mesh g;
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string &name, const std::string &text) {
    std::ofstream(dir + name) << text;
    return dir + name;
  };
  const std::string head = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n";
  // clockwise triangles are turned; a node outside the square is named; a degenerate triangle too
  std::string p = write("cw.msh", head + "3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n2\n1 2 2 1 1 1 3 2\n2 2 2 1 1 1 4 3\n$EndElements\n");
  ASSERT_EQ(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0) << err;
  EXPECT_NEAR(check_cells(g.m), 1.0, 1e-15);
  siac_mesh_free(&g.m);
  p = write("out.msh", head + "3 1.5 1 0\n4 0 1 0\n$EndNodes\n$Elements\n1\n1 2 2 1 1 1 2 3\n$EndElements\n");
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("node 3 (Gmsh id 3) at (1.5, 1) lies outside the unit square"), std::string::npos) << err;
  EXPECT_EQ(g.m.xy, nullptr);
  p = write("deg.msh", head + "3 0.5 0 0\n4 0 1 0\n$EndNodes\n$Elements\n1\n7 2 2 1 1 1 2 3\n$EndElements\n");
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("deg.msh:13: triangle 7 (nodes with Gmsh ids 1 2 3"), std::string::npos) << err;
  EXPECT_NE(std::string(err).find("degenerate"), std::string::npos) << err;
  p = write("v4.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n");
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("-format msh22"), std::string::npos) << err;
}

TEST(SiacNeighbours, UniformInteriorCellHandCount) {
  Mesh u;
  char err[512] = "";
  ASSERT_EQ(siac_mesh_uniform(20, &u.m, err, sizeof err), 0) << err;
  const double h = 1.0 / 20;
  // reach 1.5h: the grown box [x - 1.5h, x + 2.5h] meets the squares two columns either side: 5 x 5 squares,
  // 2 cells each; 0.4h: one either side (3 x 3); every cell alike, periodic images included
  struct {
    double reach;
    int count;
  } cases[] = {{1.5 * h, 50}, {0.4 * h, 18}, {2.7 * h, 98}};
  for (auto cs : cases) {
    Nbr n;
    ASSERT_EQ(siac_neighbours(&u.m, cs.reach, 0, &n.arity, &n.nbr, &n.count, err, sizeof err), 0) << err;
    EXPECT_EQ(n.arity, cs.count);
    const int interior = 2 * (10 * 20 + 10);  // square (10, 10)
    EXPECT_EQ(n.count[interior], cs.count) << "reach " << cs.reach;
    EXPECT_EQ(n.count[0], cs.count) << "a corner cell, through its periodic images";
    siac_nbr_stats st;
    siac_neighbour_stats(n.count, u.m.ncells, &st);
    EXPECT_EQ(st.min, cs.count);
    EXPECT_EQ(st.max, cs.count);
    EXPECT_DOUBLE_EQ(st.mean, cs.count);
    EXPECT_EQ(st.total, (long long)cs.count * u.m.ncells);
  }
  // the rows of corner cell 0 (square (0,0)) with reach 0.4h: squares i, j in {19, 0, 1}
  Nbr n;
  ASSERT_EQ(siac_neighbours(&u.m, 0.4 * h, 0, &n.arity, &n.nbr, &n.count, err, sizeof err), 0) << err;
  std::vector<int> want;
  for (int j : {0, 1, 19})
    for (int i : {0, 1, 19}) want.push_back(2 * (20 * j + i)), want.push_back(2 * (20 * j + i) + 1);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(n.row(0), want);
}

TEST(SiacNeighbours, HashGridMatchesBruteForceAndIsSymmetric) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const char *kind : {"low", "high"}) {
    Mesh g;
    char err[512] = "";
    ASSERT_EQ(siac_mesh_read((data + "/siac_" + std::string(kind) + "_tiny.msh").c_str(), &g.m, err, sizeof err), 0)
        << err;
    const std::vector<Box> bx = boxes(g.m);
    const double h = siac_mesh_h(&g.m);
    for (int trial = 0; trial < 12; trial++) {
      // random reach from 0 up to what the period allows (2 reach + 2 diameter < 1; diameter <= sqrt(2) h),
      // searched on 1 to 4 threads (the same rows whatever the number; one in a build without OpenMP)
      const double reach = trial == 0 ? 0.0 : unit(rng) * (0.5 - 1.5 * h);
      const int threads = 1 + trial % 4;
      Nbr n;
      ASSERT_EQ(siac_neighbours(&g.m, reach, threads, &n.arity, &n.nbr, &n.count, err, sizeof err), 0) << err;
      int most = 0;
      std::vector<std::set<int>> rows(g.m.ncells);
      for (int c = 0; c < g.m.ncells; c++) {
        std::vector<int> brute;
        for (int t = 0; t < g.m.ncells; t++)
          if (meet(bx[c], bx[t], reach)) brute.push_back(t);
        const std::vector<int> got = n.row(c);
        ASSERT_EQ(got, brute) << kind << " cell " << c << " reach " << reach << " threads " << threads;
        EXPECT_TRUE(std::binary_search(got.begin(), got.end(), c)) << "a cell is its own neighbour";
        for (int i = n.count[c]; i < n.arity; i++) EXPECT_EQ(n.nbr[(size_t)c * n.arity + i], c) << "padding";
        most = std::max(most, n.count[c]);
        rows[c] = std::set<int>(got.begin(), got.end());
      }
      EXPECT_EQ(n.arity, most);
      for (int c = 0; c < g.m.ncells; c++)
        for (int t : rows[c]) EXPECT_TRUE(rows[t].count(c)) << kind << ": " << t << " in N(" << c << ") but not back";
    }
  }
}

TEST(SiacNeighbours, TooCoarseSaysWhatToDo) {
  Mesh u;
  char err[512] = "";
  ASSERT_EQ(siac_mesh_uniform(8, &u.m, err, sizeof err), 0) << err;
  const double h = siac_mesh_h(&u.m);
  Nbr n;
  // degree 3: W = 10h, reach 5h = 0.625 on 8 x 8 squares: too coarse
  EXPECT_NE(siac_neighbours(&u.m, 5 * h, 0, &n.arity, &n.nbr, &n.count, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("too coarse for this degree"), std::string::npos) << err;
  EXPECT_NE(std::string(err).find("more cells"), std::string::npos) << err;
  EXPECT_NE(std::string(err).find("lower degree"), std::string::npos) << err;
  EXPECT_EQ(n.nbr, nullptr);
  // degree 1 (W = 4h, reach 2h) fits
  ASSERT_EQ(siac_neighbours(&u.m, 2 * h, 0, &n.arity, &n.nbr, &n.count, err, sizeof err), 0) << err;
  EXPECT_EQ(n.arity, 2 * 7 * 7);  // the grown box [x - 2h, x + 3h] touches 3 columns either side (exact in binary)
  Nbr bad;
  EXPECT_NE(siac_neighbours(&u.m, -1, 0, &bad.arity, &bad.nbr, &bad.count, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("reach -1 must be finite and >= 0"), std::string::npos) << err;
}

// A mesh must tile the periodic unit square: a repeated triangle or a hole is refused, naming the file
// (both ran to the end before, the hole with an error far above the intact mesh's).
TEST(SiacMesh, ARepeatedTriangleOrAHoleIsRefused) {
  char err[512] = "";
  Mesh g;
  const std::string dir = ::testing::TempDir();
  std::vector<std::string> written;
  auto write = [&](const std::string &name, const std::string &elements, int n) {
    const std::string path = dir + "siac_tiling_" + name;
    std::ofstream(path) << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n"
                           "5 0.5 0.5 0\n$EndNodes\n$Elements\n"
                        << n << "\n" << elements << "$EndElements\n";
    written.push_back(path);
    return path;
  };
  // four triangles around the centre node 5: the whole square
  const std::string fan = "1 2 2 1 1 1 2 5\n2 2 2 1 1 2 3 5\n3 2 2 1 1 3 4 5\n4 2 2 1 1 4 1 5\n";
  std::string p = write("ok.msh", fan, 4);
  ASSERT_EQ(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0) << err;
  EXPECT_NEAR(check_cells(g.m), 1.0, 1e-15);
  siac_mesh_free(&g.m);
  p = write("repeat.msh", fan + "9 2 2 1 1 5 2 3\n", 5);  // triangle 2 again, its nodes in another order
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("siac_tiling_repeat.msh:18: triangle 9 (nodes with Gmsh ids 2 3 5) repeats "
                                  "triangle 2 at line 15"), std::string::npos) << err;
  EXPECT_EQ(g.m.xy, nullptr);
  p = write("hole.msh", "1 2 2 1 1 1 2 5\n3 2 2 1 1 3 4 5\n", 2);  // half the triangles removed
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("siac_tiling_hole.msh: the 2 triangles' areas sum to 0.5, not 1: they do not tile "
                                  "the periodic unit square"), std::string::npos) << err;
  EXPECT_NE(std::string(err).find("a hole"), std::string::npos) << err;
  // an overlap: the fan and the square's two halves
  p = write("overlap.msh", fan + "5 2 2 1 1 1 2 3\n", 5);
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("areas sum to 1.5, not 1"), std::string::npos) << err;
  EXPECT_NE(std::string(err).find("overlap"), std::string::npos) << err;
  // the tiny Gmsh meshes of validation/siac with every other triangle removed
  for (const char *kind : {"low", "high"}) {
    std::ifstream in(data + "/siac_" + kind + "_tiny.msh");
    std::string text, line;
    int n = 0, el = -1;
    while (std::getline(in, line)) {
      if (el == -2) n = std::stoi(line), el = 0, line = "@COUNT@";
      else if (line == "$Elements") el = -2;
      else if (line == "$EndElements") el = -1;
      else if (el >= 0 && el++ % 2 && line.find(" 2 ") == line.find(' ')) continue;  // a triangle (type 2): dropped
      text += line + "\n";
    }
    ASSERT_GT(n, 0) << kind;
    int kept = 0;
    for (size_t at = text.find("@COUNT@\n") + 8; at < text.find("$EndElements"); at = text.find('\n', at) + 1) kept++;
    text.replace(text.find("@COUNT@"), 7, std::to_string(kept));
    const std::string path = dir + "siac_tiling_" + kind + "_holed.msh";
    std::ofstream(path) << text;
    written.push_back(path);
    EXPECT_NE(siac_mesh_read(path.c_str(), &g.m, err, sizeof err), 0) << kind;
    EXPECT_NE(std::string(err).find("do not tile the periodic unit square"), std::string::npos) << err;
  }
  for (const std::string &w : written) std::remove(w.c_str());
}

// A $Nodes count the file cannot hold is named as such (it said "the number of nodes (>= 1) expected").
TEST(SiacMesh, AnImpossibleNodeCountIsNamed) {
  char err[512] = "";
  Mesh g;
  const std::string path = ::testing::TempDir() + "siac_nodes_count.msh";
  std::ofstream(path) << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1000000000\n1 0 0 0\n2 1 0 0\n3 1 1 0\n"
                         "$EndNodes\n$Elements\n1\n1 2 2 1 1 1 2 3\n$EndElements\n";
  EXPECT_NE(siac_mesh_read(path.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("siac_nodes_count.msh:5: $Nodes claims 1000000000 nodes, more than the file can "
                                  "hold"), std::string::npos) << err;
  std::remove(path.c_str());
}

// The uniform mesh by blocks (siac_uniform_block_make): every block's nodes, cells, vertex coordinates and
// neighbourhoods, end to end, are the whole mesh's and siac_neighbours' rows bit for bit, for several block counts
// (cut anywhere: the block partitioner's ranges) and degrees.
TEST(SiacUniformBlocks, BlocksEndToEndAreTheWholeMesh) {
  struct Case {
    int n, k;
  } cases[] = {{9, 1}, {12, 2}, {15, 3}, {20, 1}};
  for (const Case &cs : cases) {
    siac_mesh m;
    char err[1024];
    ASSERT_EQ(siac_mesh_uniform(cs.n, &m, err, sizeof err), 0) << err;
    const double h = siac_mesh_h(&m), reach = 0.5 * (3 * cs.k + 1) * h;
    ASSERT_EQ(siac_uniform_h(cs.n), h);
    std::vector<double> cellxy(6 * (size_t)m.ncells);
    siac_mesh_cellxy(&m, cellxy.data());
    int arity = 0, *nbr = nullptr, *count = nullptr;
    ASSERT_EQ(siac_neighbours(&m, reach, 1, &arity, &nbr, &count, err, sizeof err), 0) << err;
    for (int P : {1, 2, 3, 7, 64}) {
      SCOPED_TRACE("n " + std::to_string(cs.n) + ", k " + std::to_string(cs.k) + ", P " + std::to_string(P));
      int most = 0, cells = 0, nodes = 0;
      for (int q = 0; q < P; q++) {
        const long long first[2] = {(long long)q * m.nnodes / P, (long long)q * m.ncells / P};
        const int cnt[2] = {(int)((long long)(q + 1) * m.nnodes / P - first[0]),
                            (int)((long long)(q + 1) * m.ncells / P - first[1])};
        siac_uniform_block b;
        ASSERT_EQ(siac_uniform_block_make(cs.n, reach, first, cnt, &b, err, sizeof err), 0) << err;
        ASSERT_EQ(std::memcmp(b.xy, m.xy + 2 * first[0], sizeof(double) * 2 * cnt[0]), 0);
        ASSERT_EQ(std::memcmp(b.cellxy, cellxy.data() + 6 * first[1], sizeof(double) * 6 * cnt[1]), 0);
        for (int i = 0; i < 3 * cnt[1]; i++) ASSERT_EQ(b.tri[i], m.tri[3 * first[1] + i]) << "tri entry " << i;
        most = std::max(most, b.most);
        siac_uniform_block_pad(&b, arity);
        for (int c = 0; c < cnt[1]; c++) {
          ASSERT_EQ(b.count[c], count[first[1] + c]) << "cell " << first[1] + c;
          for (int i = 0; i < arity; i++)
            ASSERT_EQ(b.nbr[(size_t)c * arity + i], nbr[(size_t)(first[1] + c) * arity + i]) << "cell " << first[1] + c;
        }
        cells += cnt[1], nodes += cnt[0];
        siac_uniform_block_free(&b);
      }
      EXPECT_EQ(most, arity);
      EXPECT_EQ(cells, m.ncells);
      EXPECT_EQ(nodes, m.nnodes);
    }
    free(nbr), free(count);
    siac_mesh_free(&m);
  }
  siac_uniform_block b;
  char err[1024];
  const long long first[2] = {0, 0};
  const int cnt[2] = {16, 18};
  EXPECT_NE(siac_uniform_block_make(3, 0.5 * 4 / 3.0, first, cnt, &b, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("too coarse"), std::string::npos) << err;
}

// The filter assumes a conforming tiling; what passed the area sum and the repeat check but is not one is refused,
// naming the nodes or the edge: a node given twice (two ids at one place), a node no triangle uses, an overlap and a
// hole of the same area (an edge run the same way twice), a hanging node (an inside edge of one triangle only).
TEST(SiacMesh, NonConformingGmshMeshesAreRefused) {
  char err[1024] = "";
  Mesh g;
  const std::string dir = ::testing::TempDir();
  std::vector<std::string> written;
  auto write = [&](const std::string &name, const std::string &nodes, int nn, const std::string &elements, int n) {
    const std::string path = dir + "siac_conforming_" + name;
    std::ofstream(path) << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n" << nn << "\n1 0 0 0\n2 1 0 0\n3 1 1 0\n"
                        << "4 0 1 0\n5 0.5 0.5 0\n" << nodes << "$EndNodes\n$Elements\n" << n << "\n" << elements
                        << "$EndElements\n";
    written.push_back(path);
    return path;
  };
  const std::string fan = "1 2 2 1 1 1 2 5\n2 2 2 1 1 2 3 5\n3 2 2 1 1 3 4 5\n4 2 2 1 1 4 1 5\n";
  std::string p = write("ok.msh", "", 5, fan, 4);
  ASSERT_EQ(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0) << err;
  siac_mesh_free(&g.m);
  p = write("dup.msh", "6 0.5 0.5 0\n", 6, "1 2 2 1 1 1 2 5\n2 2 2 1 1 2 3 5\n3 2 2 1 1 3 4 6\n4 2 2 1 1 4 1 6\n", 4);
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("siac_conforming_dup.msh: node 5 (Gmsh id 5) and node 6 (Gmsh id 6) are both at "
                                  "(0.5, 0.5): a node given twice"), std::string::npos) << err;
  EXPECT_NE(std::string(err).find("merge the duplicate nodes"), std::string::npos) << err;
  EXPECT_EQ(g.m.xy, nullptr);
  p = write("unused.msh", "6 0.25 0.25 0\n", 6, fan, 4);
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("node 6 (Gmsh id 6) at (0.25, 0.25) belongs to no triangle: remove it"),
            std::string::npos) << err;
  // the lower half twice (the fan's lower quarter and the half (1 2 3)) and the left quarter missing: areas sum to 1
  p = write("overlap_hole.msh", "", 5, "1 2 2 1 1 1 2 5\n2 2 2 1 1 1 2 3\n3 2 2 1 1 3 4 5\n", 3);
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("siac_conforming_overlap_hole.msh:15: the triangle there: its edge from node 1 (Gmsh id 1) "
                                  "(0, 0) to node 2 (Gmsh id 2) (1, 0) runs the same way in two triangles"),
            std::string::npos) << err;
  // two halves, the lower split at the diagonal's midpoint: node 5 hangs on the upper half's side
  p = write("hanging.msh", "", 5, "1 2 2 1 1 1 2 5\n2 2 2 1 1 2 3 5\n3 2 2 1 1 1 3 4\n", 3);
  EXPECT_NE(siac_mesh_read(p.c_str(), &g.m, err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("lies inside the square but is a side of one triangle only"), std::string::npos)
      << err;
  EXPECT_NE(std::string(err).find("not a conforming tiling"), std::string::npos) << err;
  for (const std::string &w : written) std::remove(w.c_str());
}

// A mesh that comes with a solution (params.solution) is checked whole, and a clockwise triangle is refused rather
// than turned (the coefficients follow its corners' order); the meshes SIAC makes pass.
TEST(SiacMesh, ASolutionsMeshIsCheckedWhole) {
  char err[1024] = "";
  Mesh u, f;
  ASSERT_EQ(siac_mesh_uniform(4, &u.m, err, sizeof err), 0) << err;
  EXPECT_EQ(siac_mesh_check(&u.m, "sol.h5", err, sizeof err), 0) << err;
  ASSERT_EQ(siac_mesh_refine(&u.m, &f.m, err, sizeof err), 0) << err;
  EXPECT_EQ(siac_mesh_check(&f.m, "sol.h5", err, sizeof err), 0) << err;
  auto refused = [&](const char *what, const std::string &expect) {
    EXPECT_NE(siac_mesh_check(&u.m, "sol.h5", err, sizeof err), 0) << what;
    EXPECT_NE(std::string(err).find(expect), std::string::npos) << what << ": " << err;
  };
  std::swap(u.m.tri[4], u.m.tri[5]);  // cell 1 clockwise
  refused("clockwise", "sol.h5: triangle 1 (nodes 0 5 6) is clockwise (inverted)");
  std::swap(u.m.tri[4], u.m.tri[5]);
  const double x = u.m.xy[2 * 7];
  u.m.xy[2 * 7] = NAN;
  refused("nan", "sol.h5: node 7 at (nan, 0.25) is not a finite point of the unit square");
  u.m.xy[2 * 7] = 1.5;
  refused("outside", "node 7 at (1.5, 0.25) is outside the unit square");
  u.m.xy[2 * 7] = x;
  const int t = u.m.tri[7];
  u.m.tri[7] = 99;
  refused("index", "triangle 2 names node 99 of 25");
  u.m.tri[7] = u.m.tri[6];
  refused("degenerate", "triangle 2 (nodes 1 1 7) is degenerate");
  u.m.tri[7] = t;
  u.m.ncells--;  // the last triangle missing: a hole
  refused("hole", "the 31 triangles' areas sum to 0.96875, not 1");
  u.m.ncells = 0;
  refused("empty", "sol.h5: 0 triangles and 25 nodes: an empty mesh");
}
