// A random unstructured mesh for the engine tests: random edge->node and
// cell->node maps (repeats allowed), an injective node->node map and random
// data, all from one seed.
#pragma once
#include <algorithm>
#include <random>
#include <vector>

namespace umtest {

struct Mesh {
  int nnode, nedge, ncell;
  std::vector<int> edge, cell, perm;  // edge->node (2), cell->node (4), injective node->node
  std::vector<double> u, w, q, a, c, v, x;
  std::vector<int> k;
};

inline Mesh random_mesh(int nnode, int nedge, int ncell, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> U(0.1, 1.0);
  std::uniform_int_distribution<int> N(0, nnode > 0 ? nnode - 1 : 0);
  Mesh m{nnode, nedge, ncell, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  for (int e = 0; e < 2 * nedge; e++) m.edge.push_back(N(g));
  for (int e = 0; e < 4 * ncell; e++) m.cell.push_back(N(g));
  for (int i = 0; i < nnode; i++) m.perm.push_back(i);
  std::shuffle(m.perm.begin(), m.perm.end(), g);
  for (int i = 0; i < 2 * nnode; i++) m.u.push_back(U(g));
  for (int i = 0; i < nedge; i++) m.w.push_back(U(g));
  for (int i = 0; i < 3 * ncell; i++) m.q.push_back(U(g));
  for (int i = 0; i < 3 * nnode; i++) m.a.push_back(U(g));
  for (int i = 0; i < 2 * nnode; i++) m.c.push_back(U(g));
  for (int i = 0; i < 2 * nnode; i++) m.v.push_back(U(g));
  for (int i = 0; i < 2 * nnode; i++) m.x.push_back(U(g));
  for (int i = 0; i < nnode; i++) m.k.push_back((int)(g() % 7));
  return m;
}

// A structured grid of nx x ny quadrilaterals with random data: cells numbered along rows, each cell's nodes
// (i,j), (i+1,j), (i+1,j+1), (i,j+1); edges the rows' horizontal sides in order. A cell's right side is the next
// cell's left side (but at a row's end), as in LULESH's hexahedra: cuda.warp_combine pairs those columns.
// strips: the cells numbered in strips two rows high instead, (i, j) then (i, j + 1) (a last odd row alone): y
// neighbours one apart, x neighbours two apart.
inline Mesh grid_mesh(int nx, int ny, unsigned seed, bool strips = false) {
  Mesh m = random_mesh((nx + 1) * (ny + 1), nx * (ny + 1), nx * ny, seed);
  auto node = [nx](int i, int j) { return j * (nx + 1) + i; };
  m.edge.clear();
  m.cell.clear();
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i < nx; i++) m.edge.insert(m.edge.end(), {node(i, j), node(i + 1, j)});
  auto cell = [&](int i, int j) {
    m.cell.insert(m.cell.end(), {node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)});
  };
  for (int j = 0; j < ny; j += strips ? 2 : 1)
    for (int i = 0; i < nx; i++)
      for (int dj = 0; dj < (strips ? 2 : 1) && j + dj < ny; dj++) cell(i, j + dj);
  return m;
}

}  // namespace umtest
