// Tests of the plan builder (engine/src/plan): property tests on random meshes
// (fixed blocks and blocks given by the caller), a hand-computed mesh,
// corrupted plans, bad inputs, allocation failures, and a timing print for an
// Airfoil-sized res_calc plan. The plan cache: test_plan_cache.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

extern "C" {
#include "plan.h"
}

namespace {

struct PlanPtr {
  um_plan *p = nullptr;
  ~PlanPtr() { um_plan_free(p); }
};

struct Mesh {
  int set_size = 0;
  std::vector<std::vector<int>> maps;  // maps[m]: set_size * arity
  std::vector<int> arity, to_size;
  std::vector<um_plan_arg> args;

  int add_map(int ar, int to, std::mt19937 &rng) {
    std::uniform_int_distribution<int> d(0, to - 1);
    std::vector<int> m((size_t)set_size * ar);
    for (auto &v : m) v = d(rng);
    return add_map_data(ar, to, std::move(m));
  }
  int add_map_data(int ar, int to, std::vector<int> m) {
    maps.push_back(std::move(m));
    arity.push_back(ar);
    to_size.push_back(to);
    return (int)maps.size() - 1;
  }
  void add_arg(int dat_id, int map_id, int idx, int dim, int esize, um_access acc) {
    um_plan_arg a{};
    a.map = nullptr;  // resolved in input(): vectors may still grow
    a.arity = map_id >= 0 ? arity[map_id] : 0;
    a.idx = idx;
    a.to_size = map_id >= 0 ? to_size[map_id] : 0;
    a.dat_id = dat_id;
    a.map_id = map_id;
    a.dim = dim;
    a.esize = esize;
    a.acc = acc;
    args.push_back(a);
  }
  um_plan_input input(int block_size) {
    for (auto &a : args) a.map = a.map_id >= 0 ? maps[a.map_id].data() : nullptr;
    um_plan_input in{};
    in.set_size = set_size;
    in.block_size = block_size;
    in.nargs = (int)args.size();
    in.args = args.data();
    return in;
  }
};

bool writes(um_access a) { return a == UM_INC || a == UM_RW || a == UM_WRITE; }
int target(const um_plan_arg &a, int e) { return a.map[(size_t)e * a.arity + a.idx]; }
long long tkey(int dat, int t) { return ((long long)dat << 32) | (unsigned)t; }

// Independent verification of a plan, written without looking at the builder.
void verify_plan(const um_plan *p, const um_plan_input &in) {
  ASSERT_NE(p, nullptr);
  const int n = in.set_size, bs = in.block_size;
  const int nb = in.block_offset ? in.nblocks : (n + bs - 1) / bs;
  ASSERT_EQ(p->nblocks, nb);
  for (int b = 0; b <= nb; b++)  // the caller's blocks, or block_size consecutive elements
    ASSERT_EQ(p->block_offset[b], in.block_offset ? in.block_offset[b] : std::min(b * bs, n)) << "offset " << b;
  // every element in exactly one block
  std::vector<int> cover(n, 0), block_of(n, -1);
  ASSERT_EQ(p->block_offset[0], 0);
  for (int b = 0; b < nb; b++) {
    ASSERT_LT(p->block_offset[b], p->block_offset[b + 1]);
    ASSERT_LE(p->block_offset[b + 1] - p->block_offset[b], bs);
    for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++) {
      ASSERT_LT(e, n);
      cover[e]++;
      block_of[e] = b;
    }
  }
  for (int e = 0; e < n; e++) ASSERT_EQ(cover[e], 1) << "element " << e;

  // inds: one per distinct (dat_id, map_id)
  std::map<std::pair<int, int>, int> inds;
  for (int a = 0; a < in.nargs; a++) {
    const um_plan_arg &x = in.args[a];
    if (!x.map) {
      ASSERT_EQ(p->arg_ind[a], -1);
      continue;
    }
    auto key = std::make_pair(x.dat_id, x.map_id);
    if (inds.count(key))
      ASSERT_EQ(p->arg_ind[a], inds[key]);
    else
      inds[key] = p->arg_ind[a];
    ASSERT_EQ(p->ind_dim[p->arg_ind[a]], x.dim);
  }
  ASSERT_EQ(p->ninds, (int)inds.size());

  // staging lists = sorted set of referenced targets; local indices round-trip
  double refs = 0, staged = 0;
  for (int i = 0; i < p->ninds; i++) {
    ASSERT_EQ(p->ind_offset[i][0], 0);
    for (int b = 0; b < nb; b++) {
      std::set<int> want;
      for (int a = 0; a < in.nargs; a++)
        if (p->arg_ind[a] == i)
          for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++) want.insert(target(in.args[a], e));
      std::vector<int> got(p->ind_targets[i] + p->ind_offset[i][b], p->ind_targets[i] + p->ind_offset[i][b + 1]);
      ASSERT_EQ(got, std::vector<int>(want.begin(), want.end())) << "ind " << i << " block " << b;
      for (int a = 0; a < in.nargs; a++)
        if (p->arg_ind[a] == i)
          for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++) {
            int l = p->loc[a][e];
            ASSERT_GE(l, 0);
            ASSERT_LT(l, (int)got.size());
            ASSERT_EQ(got[l], target(in.args[a], e)) << "arg " << a << " element " << e;
          }
    }
    staged += p->ind_offset[i][nb];
  }
  for (int a = 0; a < in.nargs; a++)
    if (in.args[a].map) refs += n;

  // thread colours: no two elements of one colour in a block write the same (dat, target);
  // greedy: colour c > 32k means colours 32k..c-1 each hold an earlier conflicting element
  for (int b = 0; b < nb; b++) {
    std::map<int, std::unordered_map<long long, int>> owner;  // colour -> (dat,t) -> element
    int maxc = -1;
    for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++) {
      int c = p->thread_colour[e];
      ASSERT_GE(c, 0);
      ASSERT_LT(c, p->nthread_colours[b]);
      maxc = std::max(maxc, c);
      for (int a = 0; a < in.nargs; a++) {
        const um_plan_arg &x = in.args[a];
        if (!x.map || !writes(x.acc)) continue;
        auto it = owner[c].find(tkey(x.dat_id, target(x, e)));
        if (it != owner[c].end()) {
          ASSERT_EQ(it->second, e) << "block " << b << " colour " << c;
        }
        owner[c][tkey(x.dat_id, target(x, e))] = e;
      }
    }
    ASSERT_EQ(p->nthread_colours[b], maxc + 1);
    for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++) {
      int c = p->thread_colour[e];
      for (int c2 = c - c % 32; c2 < c; c2++) {
        bool found = false;
        for (int a = 0; a < in.nargs && !found; a++) {
          const um_plan_arg &x = in.args[a];
          if (!x.map || !writes(x.acc)) continue;
          auto it = owner[c2].find(tkey(x.dat_id, target(x, e)));
          found = it != owner[c2].end() && it->second < e;
        }
        ASSERT_TRUE(found) << "element " << e << " could have had thread colour " << c2;
      }
    }
  }
  // block colours
  std::map<int, std::unordered_map<long long, int>> bowner;
  int maxbc = -1;
  for (int b = 0; b < nb; b++) {
    int c = p->block_colour[b];
    ASSERT_GE(c, 0);
    maxbc = std::max(maxbc, c);
    for (int e = p->block_offset[b]; e < p->block_offset[b + 1]; e++)
      for (int a = 0; a < in.nargs; a++) {
        const um_plan_arg &x = in.args[a];
        if (!x.map || !writes(x.acc)) continue;
        long long k = tkey(x.dat_id, target(x, e));
        auto it = bowner[c].find(k);
        if (it != bowner[c].end()) {
          ASSERT_EQ(it->second, b) << "block colour " << c;
        }
        bowner[c][k] = b;
      }
  }
  ASSERT_EQ(p->nblock_colours, maxbc + 1);
  std::vector<int> per_colour(p->nblock_colours, 0);  // greedy colours are contiguous
  for (int b = 0; b < nb; b++) per_colour[p->block_colour[b]]++;
  for (int c = 0; c < p->nblock_colours; c++) ASSERT_GT(per_colour[c], 0) << "block colour " << c << " unused";
  // block map
  ASSERT_EQ(p->colour_offset[0], 0);
  ASSERT_EQ(p->colour_offset[p->nblock_colours], nb);
  std::vector<int> seen(nb, 0);
  for (int c = 0; c < p->nblock_colours; c++)
    for (int j = p->colour_offset[c]; j < p->colour_offset[c + 1]; j++) {
      int b = p->block_order[j];
      ASSERT_EQ(p->block_colour[b], c);
      if (j > p->colour_offset[c]) {
        ASSERT_LT(p->block_order[j - 1], b);
      }
      seen[b]++;
    }
  for (int b = 0; b < nb; b++) ASSERT_EQ(seen[b], 1);

  // stats, recomputed
  const um_plan_stats &s = p->stats;
  ASSERT_EQ(s.nblocks, nb);
  ASSERT_EQ(s.nblock_colours, p->nblock_colours);
  if (nb == 0) {
    EXPECT_EQ(s.mean_thread_colours, 0.0);
    EXPECT_EQ(s.reuse_factor, 0.0);
    EXPECT_EQ(s.shared_bytes_max, 0);
    return;
  }
  double tc = 0, sh = 0, shi = 0, lines = 0;
  long shmax = 0, shimax = 0;
  int tcmax = 0;
  for (int b = 0; b < nb; b++) {
    tc += p->nthread_colours[b];
    tcmax = std::max(tcmax, p->nthread_colours[b]);
    long bytes = 0, ibytes = 0;
    for (int i = 0; i < p->ninds; i++) {
      long w = (long)p->ind_dim[i] * p->ind_esize[i];
      long cnt = p->ind_offset[i][b + 1] - p->ind_offset[i][b];
      bytes += cnt * w;
      bool all_inc = true;
      for (int a = 0; a < in.nargs; a++)
        if (p->arg_ind[a] == i && in.args[a].acc != UM_INC) all_inc = false;
      if (all_inc) ibytes += cnt * w;
      std::set<long long> ls;
      for (int j = p->ind_offset[i][b]; j < p->ind_offset[i][b + 1]; j++)
        for (long long byte = (long long)p->ind_targets[i][j] * w; byte < (long long)(p->ind_targets[i][j] + 1) * w;
             byte++)
          ls.insert(byte / 32);
      lines += (double)ls.size();
    }
    sh += bytes;
    shi += ibytes;
    shmax = std::max(shmax, bytes);
    shimax = std::max(shimax, ibytes);
  }
  EXPECT_DOUBLE_EQ(s.mean_thread_colours, tc / nb);
  EXPECT_EQ(s.max_thread_colours, tcmax);
  EXPECT_DOUBLE_EQ(s.shared_bytes_mean, sh / nb);
  EXPECT_EQ(s.shared_bytes_max, shmax);
  EXPECT_DOUBLE_EQ(s.shared_inc_bytes_mean, shi / nb);
  EXPECT_EQ(s.shared_inc_bytes_max, shimax);
  EXPECT_DOUBLE_EQ(s.cache_lines_mean, lines / nb);
  if (staged > 0) {
    EXPECT_DOUBLE_EQ(s.reuse_factor, refs / staged);
    EXPECT_GE(s.reuse_factor, 1.0);
  } else {
    EXPECT_EQ(s.reuse_factor, 0.0);
  }
  EXPECT_LE(s.shared_bytes_mean, (double)s.shared_bytes_max);
  EXPECT_GE(s.mean_thread_colours, 1.0);
}

void build_and_verify(Mesh &m, int bs, PlanPtr &pp, const std::vector<int> *offsets = nullptr) {
  um_plan_input in = m.input(bs);
  if (offsets) {
    in.block_offset = offsets->data();
    in.nblocks = (int)offsets->size() - 1;
  }
  char err[512] = "";
  ASSERT_EQ(um_plan_build(&in, &pp.p, err, sizeof err), UM_SUCCESS) << err;
  ASSERT_EQ(um_plan_check(pp.p, &in, err, sizeof err), UM_SUCCESS) << err;
  verify_plan(pp.p, in);
}

// A random loop: maps of arity 1..8, several indirect args with mixed access
// modes (two args sharing an ind; one dat written through two maps), a direct arg.
Mesh random_loop(int set_size, unsigned seed) {
  std::mt19937 rng(seed);
  Mesh m;
  m.set_size = set_size;
  std::uniform_int_distribution<int> ar(1, 8);
  int to_a = 1 + (int)(rng() % 300), to_b = 1 + (int)(rng() % 50);
  int ma = m.add_map(ar(rng), to_a, rng);
  int mb = m.add_map(ar(rng), to_b, rng);
  int mc = m.add_map(ar(rng), to_b, rng);  // a second map into set B
  const um_access accs[] = {UM_READ, UM_WRITE, UM_RW, UM_INC};
  auto acc = [&] { return accs[rng() % 4]; };
  auto idx = [&](int map) { return (int)(rng() % (unsigned)m.arity[map]); };
  m.add_arg(0, ma, idx(ma), 2, 8, UM_READ);            // dat 0 on A
  m.add_arg(1, ma, 0, 1, 8, UM_INC);                   // dat 1 on A: two args share an ind
  m.add_arg(1, ma, m.arity[ma] - 1, 1, 8, acc());
  m.add_arg(2, mb, idx(mb), 3, 4, acc());              // dat 2 on B through two maps
  m.add_arg(2, mc, idx(mc), 3, 4, UM_INC);
  m.add_arg(3, mb, idx(mb), 4, 8, UM_READ);            // dat 3 on B, same map as dat 2
  m.add_arg(4, -1, 0, 5, 8, UM_RW);                    // direct
  return m;
}

}  // namespace

// ---- property tests ---------------------------------------------------------

TEST(PlanProperty, RandomMeshes) {
  const int sizes[] = {0, 1, 2, 7, 63, 64, 65, 257, 1000, 3001};
  const int blocks[] = {1, 7, 64, 256};
  unsigned seed = 1;
  for (int n : sizes)
    for (int bs : blocks) {
      SCOPED_TRACE("set_size " + std::to_string(n) + " block_size " + std::to_string(bs));
      Mesh m = random_loop(n, seed++);
      PlanPtr pp;
      build_and_verify(m, bs, pp);
      if (HasFatalFailure()) return;
    }
}

// Random blocks of 1..bs elements, as a partition reordering gives (ends at n).
static std::vector<int> random_offsets(int n, int bs, std::mt19937 &rng) {
  std::vector<int> off{0};
  std::uniform_int_distribution<int> len(1, bs);
  while (off.back() < n) off.push_back(std::min(n, off.back() + len(rng)));
  return off;
}

TEST(PlanProperty, RandomMeshesGivenBlocks) {
  const int sizes[] = {0, 1, 2, 7, 63, 65, 257, 1000, 3001};
  const int blocks[] = {1, 7, 64, 256};
  unsigned seed = 500;
  for (int n : sizes)
    for (int bs : blocks) {
      SCOPED_TRACE("set_size " + std::to_string(n) + " block_size " + std::to_string(bs));
      std::mt19937 rng(seed);
      Mesh m = random_loop(n, seed++);
      std::vector<int> off = random_offsets(n, bs, rng);
      PlanPtr pp;
      build_and_verify(m, bs, pp, &off);
      if (HasFatalFailure()) return;
    }
}

TEST(PlanProperty, RandomArityAndAccessMix) {
  for (unsigned seed = 100; seed < 140; seed++) {
    std::mt19937 rng(seed);
    Mesh m;
    m.set_size = (int)(rng() % 2000);
    int nmaps = 1 + (int)(rng() % 3);
    for (int k = 0; k < nmaps; k++) m.add_map(1 + (int)(rng() % 8), 1 + (int)(rng() % 500), rng);
    int nargs = 1 + (int)(rng() % 12);
    for (int a = 0; a < nargs; a++) {
      int map = (int)(rng() % (unsigned)(nmaps + 1)) - 1;  // -1: direct
      // a dat lives on one map's target set, so its args agree on to_size and dim
      int dat = map >= 0 ? 1000 * map + (int)(rng() % 3) : 100 + a;
      int dim = 1 + dat % 3;
      m.add_arg(dat, map, map >= 0 ? (int)(rng() % (unsigned)m.arity[map]) : 0, dim, 8,
                (um_access)(rng() % 4));
    }
    static const int bss[] = {1, 7, 64, 256};
    int bs = bss[seed % 4];
    SCOPED_TRACE("seed " + std::to_string(seed));
    PlanPtr pp;
    build_and_verify(m, bs, pp);
    if (HasFatalFailure()) return;
  }
}

TEST(PlanProperty, NoConflictsGiveColourZero) {
  std::mt19937 rng(7);
  Mesh m;
  m.set_size = 1000;
  int mp = m.add_map(3, 200, rng);
  m.add_arg(0, mp, 0, 2, 8, UM_READ);
  m.add_arg(0, mp, 2, 2, 8, UM_READ);
  m.add_arg(1, -1, 0, 1, 8, UM_WRITE);
  PlanPtr pp;
  build_and_verify(m, 64, pp);
  ASSERT_FALSE(HasFatalFailure());
  for (int e = 0; e < m.set_size; e++) ASSERT_EQ(pp.p->thread_colour[e], 0);
  for (int b = 0; b < pp.p->nblocks; b++) ASSERT_EQ(pp.p->block_colour[b], 0);
  EXPECT_EQ(pp.p->nblock_colours, 1);
  EXPECT_EQ(pp.p->stats.max_thread_colours, 1);
  EXPECT_EQ(pp.p->stats.shared_inc_bytes_max, 0);
}

TEST(PlanProperty, DirectLoopAndEmptySet) {
  for (int n : {0, 1, 5}) {
    Mesh m;
    m.set_size = n;
    m.add_arg(0, -1, 0, 4, 8, UM_RW);
    PlanPtr pp;
    build_and_verify(m, 2, pp);
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_EQ(pp.p->ninds, 0);
    EXPECT_NE(pp.p->block_offset, nullptr);
    EXPECT_NE(pp.p->colour_offset, nullptr);
    EXPECT_NE(pp.p->block_order, nullptr);
  }
  // empty set with an indirect INC arg into an empty target set
  Mesh m;
  m.set_size = 0;
  m.add_map_data(2, 0, {-1, -1});  // non-NULL map; no element reads it
  m.add_arg(0, 0, 1, 1, 8, UM_INC);
  PlanPtr pp;
  build_and_verify(m, 64, pp);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(pp.p->nblocks, 0);
  EXPECT_EQ(pp.p->nblock_colours, 0);
  EXPECT_EQ(pp.p->stats.cache_lines_mean, 0.0);
  EXPECT_NE(pp.p->loc[0], nullptr);
  EXPECT_NE(pp.p->ind_offset[0], nullptr);
}

// More than 32 thread colours and more than 32 block colours.
TEST(PlanProperty, ManyColoursAllIncrementTargetZero) {
  Mesh m;
  m.set_size = 100;
  m.add_map_data(1, 3, std::vector<int>(100, 0));
  m.add_arg(0, 0, 0, 1, 8, UM_INC);
  {  // one block: 100 thread colours
    PlanPtr pp;
    build_and_verify(m, 256, pp);
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_EQ(pp.p->nthread_colours[0], 100);
    for (int e = 0; e < 100; e++) EXPECT_EQ(pp.p->thread_colour[e], e);
    EXPECT_EQ(pp.p->nblock_colours, 1);
  }
  {  // blocks of one element: 100 block colours
    PlanPtr pp;
    build_and_verify(m, 1, pp);
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_EQ(pp.p->nblock_colours, 100);
    for (int b = 0; b < 100; b++) EXPECT_EQ(pp.p->block_colour[b], b);
  }
  {  // blocks of 7: 15 blocks (last one shorter), 7 or 2 thread colours each
    PlanPtr pp;
    build_and_verify(m, 7, pp);
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_EQ(pp.p->nblock_colours, 15);
    EXPECT_EQ(pp.p->nthread_colours[14], 2);
  }
}

TEST(PlanProperty, StarMesh) {
  // edges (0, i), i = 1..n: node 0 is incremented by every edge, others once
  const int n = 2000;
  std::vector<int> em;
  for (int i = 1; i <= n; i++) {
    em.push_back(0);
    em.push_back(i);
  }
  Mesh m;
  m.set_size = n;
  m.add_map_data(2, n + 1, em);
  m.add_arg(0, 0, 0, 2, 8, UM_READ);
  m.add_arg(0, 0, 1, 2, 8, UM_READ);
  m.add_arg(1, 0, 0, 1, 8, UM_INC);
  m.add_arg(1, 0, 1, 1, 8, UM_INC);
  for (int bs : {1, 7, 64, 256}) {
    PlanPtr pp;
    build_and_verify(m, bs, pp);
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_EQ(pp.p->nblock_colours, pp.p->nblocks);
    EXPECT_EQ(pp.p->stats.max_thread_colours, std::min(bs, n));
  }
}

// ---- hand-computed mesh -------------------------------------------------------

// Line mesh: nodes 0..6, edges e = (e, e+1), e = 0..5.
//   args: x  (dat 0, dim 2, double) via edge->node idx 0 and 1, READ   -> ind 0
//         res(dat 1, dim 1, double) via edge->node idx 0 and 1, INC    -> ind 1
//         a direct edge dat
Mesh line_mesh() {
  Mesh m;
  m.set_size = 6;
  m.add_map_data(2, 7, {0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6});
  m.add_arg(0, 0, 0, 2, 8, UM_READ);
  m.add_arg(0, 0, 1, 2, 8, UM_READ);
  m.add_arg(1, 0, 0, 1, 8, UM_INC);
  m.add_arg(1, 0, 1, 1, 8, UM_INC);
  m.add_arg(2, -1, 0, 1, 8, UM_WRITE);
  return m;
}

TEST(PlanHand, LineMeshBlockSize2) {
  // blocks {e0,e1} {e2,e3} {e4,e5}; targets per block (both inds) {0,1,2} {2,3,4} {4,5,6}.
  // thread colours: in each block the second edge shares a node with the first -> 0,1.
  // block colours: b0 -> 0; b1 shares node 2 with b0 -> 1; b2 shares node 4 with b1 only -> 0.
  // shared bytes: 3 targets * 16 B (x) + 3 * 8 B (res) = 72 per block; INC only: 24.
  // reuse: 6 edges * 4 indirect args = 24 references / (9 + 9) staged = 4/3.
  // cache lines (32 B): x, 16 B/target: b0 [0,48) -> 2, b1 [32,80) -> 2, b2 [64,112) -> 2;
  //   res, 8 B/target: b0 [0,24) -> 1, b1 [16,40) -> 2, b2 [32,56) -> 1; mean (3+4+3)/3 = 10/3.
  Mesh m = line_mesh();
  PlanPtr pp;
  build_and_verify(m, 2, pp);
  ASSERT_FALSE(HasFatalFailure());
  const um_plan *p = pp.p;
  EXPECT_EQ(p->nblocks, 3);
  EXPECT_EQ(p->ninds, 2);
  EXPECT_EQ(p->arg_ind[4], -1);
  EXPECT_EQ(p->loc[4], nullptr);
  EXPECT_EQ(p->ind_inc[p->arg_ind[0]], 0);
  EXPECT_EQ(p->ind_inc[p->arg_ind[2]], 1);
  EXPECT_EQ(std::vector<int>(p->loc[1], p->loc[1] + 6), (std::vector<int>{1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(std::vector<int>(p->thread_colour, p->thread_colour + 6), (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(std::vector<int>(p->block_colour, p->block_colour + 3), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(p->nblock_colours, 2);
  EXPECT_EQ(std::vector<int>(p->colour_offset, p->colour_offset + 3), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(std::vector<int>(p->block_order, p->block_order + 3), (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(p->stats.nblocks, 3);
  EXPECT_EQ(p->stats.nblock_colours, 2);
  EXPECT_DOUBLE_EQ(p->stats.mean_thread_colours, 2.0);
  EXPECT_EQ(p->stats.max_thread_colours, 2);
  EXPECT_DOUBLE_EQ(p->stats.shared_bytes_mean, 72.0);
  EXPECT_EQ(p->stats.shared_bytes_max, 72);
  EXPECT_DOUBLE_EQ(p->stats.shared_inc_bytes_mean, 24.0);
  EXPECT_EQ(p->stats.shared_inc_bytes_max, 24);
  EXPECT_DOUBLE_EQ(p->stats.reuse_factor, 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(p->stats.cache_lines_mean, 10.0 / 3.0);
}

TEST(PlanHand, LineMeshBlockSize4) {
  // blocks {e0..e3} {e4,e5} (last one shorter); targets {0..4} {4,5,6}.
  // thread colours b0: e0 0; e1 meets e0 at node 1 -> 1; e2 meets e1 (colour 1) at node 2 -> 0;
  //   e3 meets e2 (colour 0) at node 3 -> 1.  b1: e4 0, e5 1.
  // block colours: b0 0, b1 shares node 4 -> 1.
  // shared bytes: b0 5*16 + 5*8 = 120, b1 3*16 + 3*8 = 72 -> mean 96, max 120; INC 40 / 24 -> 32, 40.
  // reuse: 24 / (8 + 8) = 1.5.
  // cache lines: x b0 [0,80) -> 3, b1 [64,112) -> 2; res b0 [0,40) -> 2, b1 [32,56) -> 1; mean (5+3)/2 = 4.
  Mesh m = line_mesh();
  PlanPtr pp;
  build_and_verify(m, 4, pp);
  ASSERT_FALSE(HasFatalFailure());
  const um_plan *p = pp.p;
  EXPECT_EQ(p->nblocks, 2);
  EXPECT_EQ(std::vector<int>(p->block_offset, p->block_offset + 3), (std::vector<int>{0, 4, 6}));
  EXPECT_EQ(std::vector<int>(p->thread_colour, p->thread_colour + 6), (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(std::vector<int>(p->block_colour, p->block_colour + 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(p->nblock_colours, 2);
  EXPECT_DOUBLE_EQ(p->stats.shared_bytes_mean, 96.0);
  EXPECT_EQ(p->stats.shared_bytes_max, 120);
  EXPECT_DOUBLE_EQ(p->stats.shared_inc_bytes_mean, 32.0);
  EXPECT_EQ(p->stats.shared_inc_bytes_max, 40);
  EXPECT_DOUBLE_EQ(p->stats.reuse_factor, 1.5);
  EXPECT_DOUBLE_EQ(p->stats.cache_lines_mean, 4.0);
  EXPECT_DOUBLE_EQ(p->stats.mean_thread_colours, 2.0);
}

TEST(PlanHand, LineMeshGivenBlocks) {
  // blocks {e0} {e1,e2,e3} {e4,e5} (block_size 3); targets {0,1} {1..4} {4,5,6}.
  // thread colours: b0 e0 0; b1 e1 0, e2 1, e3 0; b2 e4 0, e5 1.
  // block colours: b0 0; b1 shares node 1 with b0 -> 1; b2 shares node 4 with b1 -> 0.
  Mesh m = line_mesh();
  std::vector<int> off{0, 1, 4, 6};
  PlanPtr pp;
  build_and_verify(m, 3, pp, &off);
  ASSERT_FALSE(HasFatalFailure());
  const um_plan *p = pp.p;
  EXPECT_EQ(p->nblocks, 3);
  EXPECT_EQ(p->block_size, 3);
  EXPECT_EQ(std::vector<int>(p->block_offset, p->block_offset + 4), off);
  EXPECT_EQ(std::vector<int>(p->ind_offset[0], p->ind_offset[0] + 4), (std::vector<int>{0, 2, 6, 9}));
  EXPECT_EQ(std::vector<int>(p->thread_colour, p->thread_colour + 6), (std::vector<int>{0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(std::vector<int>(p->nthread_colours, p->nthread_colours + 3), (std::vector<int>{1, 2, 2}));
  EXPECT_EQ(std::vector<int>(p->block_colour, p->block_colour + 3), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(p->stats.nblocks, 3);
  // the same blocks described by a zero-initialised input are the fixed ones
  um_plan_input in{};
  in.set_size = 6;
  in.block_size = 3;
  in.nargs = (int)m.args.size();
  in.args = m.args.data();
  um_plan *q = nullptr;
  ASSERT_EQ(um_plan_build(&in, &q, nullptr, 0), UM_SUCCESS);
  EXPECT_EQ(std::vector<int>(q->block_offset, q->block_offset + 3), (std::vector<int>{0, 3, 6}));
  // the check holds the plan to the input's blocks
  char err[512] = "";
  EXPECT_EQ(um_plan_check(q, &in, err, sizeof err), UM_SUCCESS) << err;
  in.block_offset = off.data();
  in.nblocks = 3;
  EXPECT_EQ(um_plan_check(q, &in, err, sizeof err), UM_ERR_PLAN);
  EXPECT_NE(std::string(err).find("2 blocks, the loop gives 3"), std::string::npos) << err;
  std::vector<int> off2{0, 2, 6};  // same count, other boundary
  in.block_offset = off2.data();
  in.nblocks = 2;
  in.block_size = 4;
  q->block_size = 4;
  EXPECT_EQ(um_plan_check(q, &in, err, sizeof err), UM_ERR_PLAN);
  EXPECT_NE(std::string(err).find("block 1 starts at element 3, the loop gives 2"), std::string::npos) << err;
  um_plan_free(q);
}

TEST(PlanHand, ReadOnlyArgOfWrittenIndDoesNotConflict) {
  // ind with idx 0 READ and idx 1 INC: edges (0,1), (1,2) conflict only through
  // their second node, which differs, so both get thread colour 0.
  Mesh m;
  m.set_size = 2;
  m.add_map_data(2, 3, {0, 1, 1, 2});
  m.add_arg(0, 0, 0, 1, 8, UM_READ);
  m.add_arg(0, 0, 1, 1, 8, UM_INC);
  PlanPtr pp;
  build_and_verify(m, 2, pp);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(pp.p->thread_colour[0], 0);
  EXPECT_EQ(pp.p->thread_colour[1], 0);
  EXPECT_EQ(pp.p->ind_inc[0], 0);
  // blocks of one: block 1 writes node 2 only, block 0 node 1 -> both colour 0
  PlanPtr pp1;
  build_and_verify(m, 1, pp1);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(pp1.p->nblock_colours, 1);
}

TEST(PlanHand, DatWrittenThroughTwoMaps) {
  // element 0 writes target 5 via map A, element 1 writes target 5 via map B
  Mesh m;
  m.set_size = 2;
  m.add_map_data(1, 6, {5, 0});
  m.add_map_data(1, 6, {1, 5});
  m.add_arg(0, 0, 0, 1, 8, UM_INC);
  m.add_arg(0, 1, 0, 1, 8, UM_WRITE);
  PlanPtr pp;
  build_and_verify(m, 2, pp);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(pp.p->ninds, 2);
  EXPECT_NE(pp.p->thread_colour[0], pp.p->thread_colour[1]);
  PlanPtr pp1;
  build_and_verify(m, 1, pp1);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(pp1.p->nblock_colours, 2);
}

// ---- corrupted plans are detected ---------------------------------------------

struct Corrupt : ::testing::Test {
  Mesh m = line_mesh();
  um_plan_input in{};
  PlanPtr pp;
  char err[512] = "";
  void SetUp() override {
    in = m.input(2);
    ASSERT_EQ(um_plan_build(&in, &pp.p, err, sizeof err), UM_SUCCESS) << err;
    ASSERT_EQ(um_plan_check(pp.p, &in, err, sizeof err), UM_SUCCESS) << err;
  }
  std::string check() {
    err[0] = 0;
    EXPECT_EQ(um_plan_check(pp.p, &in, err, sizeof err), UM_ERR_PLAN);
    return err;
  }
};

TEST_F(Corrupt, ThreadColourConflict) {
  pp.p->thread_colour[1] = 0;  // e0 and e1 both increment node 1
  std::string msg = check();
  EXPECT_NE(msg.find("thread colour conflict in block 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("elements 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("and 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("target 1 of dat 1"), std::string::npos) << msg;
}

TEST_F(Corrupt, BlockColourConflict) {
  // all blocks colour 0, with a consistent block map: b0 and b1 share node 2
  for (int b = 0; b < 3; b++) pp.p->block_colour[b] = 0;
  pp.p->nblock_colours = 1;
  pp.p->colour_offset[0] = 0;
  pp.p->colour_offset[1] = 3;
  for (int b = 0; b < 3; b++) pp.p->block_order[b] = b;
  std::string msg = check();
  EXPECT_NE(msg.find("block colour conflict: blocks 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("and 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("target 2 of dat 1"), std::string::npos) << msg;
}

TEST_F(Corrupt, BlockMapInconsistent) {
  pp.p->block_colour[1] = 0;
  std::string msg = check();
  EXPECT_NE(msg.find("block map lists block 1 under colour 1"), std::string::npos) << msg;
  pp.p->block_colour[1] = 1;
  std::swap(pp.p->block_order[0], pp.p->block_order[1]);
  msg = check();
  EXPECT_NE(msg.find("block map"), std::string::npos) << msg;
}

TEST_F(Corrupt, LocalIndex) {
  pp.p->loc[2][3] = 0;  // e3's node 3 is local 1 in block 1, local 0 is node 2
  std::string msg = check();
  EXPECT_NE(msg.find("arg 2 element 3 (block 1): local index 0 maps to target 2, but the map gives 3"),
            std::string::npos)
      << msg;
  pp.p->loc[2][3] = 7;
  msg = check();
  EXPECT_NE(msg.find("local index 7 outside [0, 3)"), std::string::npos) << msg;
}

TEST_F(Corrupt, TargetsUnsorted) {
  std::swap(pp.p->ind_targets[0][0], pp.p->ind_targets[0][1]);
  std::string msg = check();
  EXPECT_NE(msg.find("not sorted"), std::string::npos) << msg;
}

TEST_F(Corrupt, Blocks) {
  pp.p->block_offset[1] = 3;  // block 0 would have 3 > block_size elements
  std::string msg = check();
  EXPECT_NE(msg.find("block 0 has 3 elements"), std::string::npos) << msg;
}

TEST_F(Corrupt, ThreadColourOutOfRange) {
  pp.p->thread_colour[4] = 2;
  std::string msg = check();
  EXPECT_NE(msg.find("element 4 (block 2) has thread colour 2 outside [0, 2)"), std::string::npos) << msg;
}

TEST_F(Corrupt, WrongLoop) {
  Mesh other = line_mesh();
  other.maps[0][3] = 3;  // edge 1 = (1, 3)
  um_plan_input in2 = other.input(2);
  EXPECT_EQ(um_plan_check(pp.p, &in2, err, sizeof err), UM_ERR_PLAN);
  EXPECT_NE(std::string(err).find("map gives 3"), std::string::npos) << err;
  in2 = other.input(3);
  EXPECT_EQ(um_plan_check(pp.p, &in2, err, sizeof err), UM_ERR_PLAN);
  EXPECT_EQ(um_plan_check(nullptr, &in, err, sizeof err), UM_ERR_ARG);
}

// ---- bad inputs ---------------------------------------------------------------

TEST(PlanInput, Rejected) {
  Mesh m = line_mesh();
  um_plan *p = reinterpret_cast<um_plan *>(0x1);
  char err[512];
  auto build = [&](um_plan_input in) {
    err[0] = 0;
    p = reinterpret_cast<um_plan *>(0x1);
    int rc = um_plan_build(&in, &p, err, sizeof err);
    EXPECT_EQ(p, nullptr);
    return rc;
  };
  um_plan_input in = m.input(2);
  in.block_size = 0;
  EXPECT_EQ(build(in), UM_ERR_ARG);
  EXPECT_NE(std::string(err).find("block_size 0"), std::string::npos) << err;
  in.block_size = -5;
  EXPECT_EQ(build(in), UM_ERR_ARG);
  in = m.input(2);
  in.set_size = -1;
  EXPECT_EQ(build(in), UM_ERR_ARG);
  in = m.input(2);
  in.nargs = 49;
  EXPECT_EQ(build(in), UM_ERR_ARG);
  EXPECT_NE(std::string(err).find("nargs 49"), std::string::npos) << err;
  in.nargs = 2;
  in.args = nullptr;
  EXPECT_EQ(build(in), UM_ERR_ARG);
  EXPECT_EQ(um_plan_build(nullptr, &p, err, sizeof err), UM_ERR_ARG);
  in = m.input(2);
  EXPECT_EQ(um_plan_build(&in, nullptr, err, sizeof err), UM_ERR_ARG);

  // map entries outside [0, to_size)
  for (int bad : {-1, 7}) {
    Mesh mm = line_mesh();
    mm.maps[0][9] = bad;  // element 4, index 1
    EXPECT_EQ(build(mm.input(2)), UM_ERR_ARG);
    std::string msg = err;
    EXPECT_NE(msg.find("element 4 at index 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("is " + std::to_string(bad)), std::string::npos) << msg;
  }
  // idx outside the arity, MIN on an indirect arg, inconsistent args of one dat
  Mesh mi = line_mesh();
  mi.args[1].idx = 2;
  EXPECT_EQ(build(mi.input(2)), UM_ERR_ARG);
  EXPECT_NE(std::string(err).find("map index 2 outside [0, 2)"), std::string::npos) << err;
  Mesh mn = line_mesh();
  mn.args[2].acc = UM_MIN;
  EXPECT_EQ(build(mn.input(2)), UM_ERR_ARG);
  Mesh md = line_mesh();
  md.args[3].dim = 3;
  EXPECT_EQ(build(md.input(2)), UM_ERR_ARG);
  Mesh ma = line_mesh();
  ma.args[0].arity = 0;
  EXPECT_EQ(build(ma.input(2)), UM_ERR_ARG);
  // given blocks: each must hold 1..block_size elements, start at 0, end at set_size
  struct BadBlocks {
    std::vector<int> off;
    int nblocks, block_size;
    const char *msg;
  };
  const BadBlocks bad_blocks[] = {
      {{1, 3, 6}, 2, 3, "block_offset[0] is 1, must be 0"},
      {{0, 3, 2, 6}, 3, 4, "given block 1 is [3, 2) with -1 elements"},
      {{0, 3, 3, 6}, 3, 3, "given block 1 is [3, 3) with 0 elements"},
      {{0, 4, 6}, 2, 3, "given block 0 is [0, 4) with 4 elements; every block needs 1..3"},
      {{0, 2, 5}, 2, 3, "block_offset[2] (end of the last block) is 5 but set_size is 6"},
      {{0, 3, 6}, 1, 3, "1 blocks given for 6 elements of at most block_size 3"},
      {{0, 1, 2, 3, 4, 5, 6, 6}, 7, 3, "7 blocks given for 6 elements"},
  };
  for (const BadBlocks &bb : bad_blocks) {
    in = m.input(bb.block_size);
    in.block_offset = bb.off.data();
    in.nblocks = bb.nblocks;
    EXPECT_EQ(build(in), UM_ERR_ARG) << bb.msg;
    EXPECT_NE(std::string(err).find(bb.msg), std::string::npos) << err;
  }
  in = m.input(2);
  in.nblocks = 3;  // without block_offset
  EXPECT_EQ(build(in), UM_ERR_ARG);
  EXPECT_NE(std::string(err).find("nblocks is 3 but block_offset is NULL"), std::string::npos) << err;
  // NULL err buffer is allowed
  in = m.input(0);
  EXPECT_EQ(um_plan_build(&in, &p, nullptr, 0), UM_ERR_ARG);
  um_plan_free(nullptr);
}

// Every allocation failing in turn: UM_ERR_ALLOC, no plan (and, under ASan/LSan, no leak).
TEST(PlanInput, AllocationFailures) {
  Mesh m = random_loop(500, 42);
  um_plan_input in = m.input(64);
  char err[512];
  int failures = 0;
  for (int k = 0; k < 1000; k++) {
    um_plan *p = reinterpret_cast<um_plan *>(0x1);
    int rc = um_plan_build_fail_after(&in, k, &p, err, sizeof err);
    if (rc == UM_SUCCESS) {
      ASSERT_EQ(um_plan_check(p, &in, err, sizeof err), UM_SUCCESS) << err;
      um_plan_free(p);
      break;
    }
    ASSERT_EQ(rc, UM_ERR_ALLOC) << "allocation " << k << ": " << err;
    ASSERT_EQ(p, nullptr);
    EXPECT_NE(std::string(err).find("out of memory"), std::string::npos) << err;
    failures++;
  }
  EXPECT_GT(failures, 15);
  std::printf("[ info   ] %d allocation failure points exercised\n", failures);
  // with given blocks
  std::mt19937 rng(3);
  std::vector<int> off = random_offsets(500, 64, rng);
  in.block_offset = off.data();
  in.nblocks = (int)off.size() - 1;
  for (int k = 0; k < 1000; k++) {
    um_plan *p = reinterpret_cast<um_plan *>(0x1);
    int rc = um_plan_build_fail_after(&in, k, &p, err, sizeof err);
    if (rc == UM_SUCCESS) {
      ASSERT_EQ(um_plan_check(p, &in, err, sizeof err), UM_SUCCESS) << err;
      EXPECT_EQ(std::vector<int>(p->block_offset, p->block_offset + off.size()), off);
      um_plan_free(p);
      break;
    }
    ASSERT_EQ(rc, UM_ERR_ALLOC) << "allocation " << k << ": " << err;
    ASSERT_EQ(p, nullptr);
  }
}

// ---- plan cache -----------------------------------------------------------------

TEST(PlanTiming, AirfoilResCalcSized) {
  const int nx = 1200, ny = 600, ncell = nx * ny, nedge = 2 * ncell;
  std::vector<int> pedge((size_t)nedge * 2), pecell((size_t)nedge * 2);
  auto id = [&](int i, int j) { return ((j + ny) % ny) * nx + (i + nx) % nx; };
  int e = 0;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      // horizontal edge below cell (i,j): nodes (i,j),(i+1,j); cells (i,j-1),(i,j)
      pedge[2 * e] = id(i, j), pedge[2 * e + 1] = id(i + 1, j);
      pecell[2 * e] = id(i, j - 1), pecell[2 * e + 1] = id(i, j);
      e++;
      // vertical edge left of cell (i,j): nodes (i,j),(i,j+1); cells (i-1,j),(i,j)
      pedge[2 * e] = id(i, j), pedge[2 * e + 1] = id(i, j + 1);
      pecell[2 * e] = id(i - 1, j), pecell[2 * e + 1] = id(i, j);
      e++;
    }
  Mesh m;
  m.set_size = nedge;
  int mn = m.add_map_data(2, ncell, std::move(pedge));
  int mc = m.add_map_data(2, ncell, std::move(pecell));
  m.add_arg(0, mn, 0, 2, 8, UM_READ);  // x
  m.add_arg(0, mn, 1, 2, 8, UM_READ);
  m.add_arg(1, mc, 0, 4, 8, UM_READ);  // q
  m.add_arg(1, mc, 1, 4, 8, UM_READ);
  m.add_arg(2, mc, 0, 1, 8, UM_READ);  // adt
  m.add_arg(2, mc, 1, 1, 8, UM_READ);
  m.add_arg(3, mc, 0, 4, 8, UM_INC);   // res
  m.add_arg(3, mc, 1, 4, 8, UM_INC);
  um_plan_input in = m.input(256);
  char err[512] = "";
  um_plan *p = nullptr;
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(um_plan_build(&in, &p, err, sizeof err), UM_SUCCESS) << err;
  auto t1 = std::chrono::steady_clock::now();
  ASSERT_EQ(um_plan_check(p, &in, err, sizeof err), UM_SUCCESS) << err;
  auto t2 = std::chrono::steady_clock::now();
  double tb = std::chrono::duration<double>(t1 - t0).count(), tc = std::chrono::duration<double>(t2 - t1).count();
  std::printf("[ timing ] res_calc plan, %d edges, block 256: build %.3f s, check %.3f s; %d blocks, "
              "%d block colours, thread colours mean %.2f max %d, shared %.0f B/block, reuse %.2f, "
              "cache lines %.1f/block\n",
              nedge, tb, tc, p->nblocks, p->nblock_colours, p->stats.mean_thread_colours,
              p->stats.max_thread_colours, p->stats.shared_bytes_mean, p->stats.reuse_factor,
              p->stats.cache_lines_mean);
  EXPECT_EQ(p->ninds, 4);
  EXPECT_GT(p->stats.reuse_factor, 1.0);
  um_plan_free(p);
}
