// The plan cache (engine/src/plan/plan_cache.c): keys compared over the loop's
// signature only, duplicates and bad keys refused, growth, clearing and dropping.
#include <gtest/gtest.h>

#include <cstring>

extern "C" {
#include "plan.h"
}
namespace {
um_plan *tiny_plan() {  // a direct loop over 4 elements: a real plan to own
  um_plan_input in;
  std::memset(&in, 0, sizeof in);
  in.set_size = 4;
  in.block_size = 2;
  um_plan *p = nullptr;
  EXPECT_EQ(um_plan_build(&in, &p, nullptr, 0), UM_SUCCESS);
  return p;
}
}  // namespace

TEST(PlanCache, FindInsertClearDrop) {
  int set, dat0, dat1, map0;  // objects whose addresses identify them
  um_plan_cache *c = um_plan_cache_create();
  ASSERT_NE(c, nullptr);
  um_plan_key k;
  memset(&k, 0xAB, sizeof k);  // garbage in padding and unused args
  k.set = &set;
  k.nargs = 2;
  k.block_size = 256;
  k.strategy = 1;
  k.size = 1000;
  k.begin = 0;
  k.arg[0].dat = &dat0;
  k.arg[0].map = &map0;
  k.arg[0].idx = 1;
  k.arg[0].acc = UM_INC;
  k.arg[1].dat = &dat1;
  k.arg[1].map = nullptr;
  k.arg[1].idx = -1;
  k.arg[1].acc = UM_READ;
  EXPECT_EQ(um_plan_cache_find(c, &k), nullptr);
  um_plan *p = tiny_plan();
  ASSERT_EQ(um_plan_cache_insert(c, &k, p), UM_SUCCESS);
  EXPECT_EQ(um_plan_cache_count(c), 1);

  um_plan_key q;  // the same signature, other garbage in unused entries
  memset(&q, 0x11, sizeof q);
  q.set = &set;
  q.nargs = 2;
  q.block_size = 256;
  q.strategy = 1;
  q.size = 1000;
  q.begin = 0;
  q.arg[0] = k.arg[0];
  q.arg[1].dat = &dat1;
  q.arg[1].map = nullptr;
  q.arg[1].idx = -1;
  q.arg[1].acc = UM_READ;
  EXPECT_EQ(um_plan_cache_find(c, &q), p);

  // any field of the first nargs args, or of the key, makes a different loop
  auto differs = [&](void (*edit)(um_plan_key &, int *), const char *what) {
    um_plan_key d = q;
    edit(d, &dat0);
    EXPECT_EQ(um_plan_cache_find(c, &d), nullptr) << what;
  };
  differs([](um_plan_key &d, int *) { d.block_size = 128; }, "block_size");
  differs([](um_plan_key &d, int *) { d.strategy = 2; }, "strategy");
  differs([](um_plan_key &d, int *) { d.nargs = 1; }, "nargs");
  differs([](um_plan_key &d, int *) { d.size = 999; }, "size (the range planned)");
  differs([](um_plan_key &d, int *) { d.begin = 10; }, "begin (where the range starts)");
  differs([](um_plan_key &d, int *o) { d.set = o; }, "set");
  differs([](um_plan_key &d, int *) { d.arg[0].idx = 0; }, "idx");
  differs([](um_plan_key &d, int *) { d.arg[0].acc = UM_RW; }, "acc");
  differs([](um_plan_key &d, int *) { d.arg[1].map = &d; }, "map");
  differs([](um_plan_key &d, int *) { d.arg[1].dat = &d; }, "dat");

  // duplicate key: refused, the new plan is freed (ownership taken)
  EXPECT_EQ(um_plan_cache_insert(c, &q, tiny_plan()), UM_ERR_ARG);
  EXPECT_EQ(um_plan_cache_count(c), 1);
  // bad key: refused
  um_plan_key bad = q;
  bad.nargs = 49;
  EXPECT_EQ(um_plan_cache_insert(c, &bad, tiny_plan()), UM_ERR_ARG);
  EXPECT_EQ(um_plan_cache_find(c, &bad), nullptr);
  EXPECT_EQ(um_plan_cache_insert(nullptr, &q, tiny_plan()), UM_ERR_ARG);

  // many keys: growth
  for (int bs = 1; bs <= 40; bs++) {
    um_plan_key d = q;
    d.block_size = bs;
    ASSERT_EQ(um_plan_cache_insert(c, &d, tiny_plan()), UM_SUCCESS);
  }
  EXPECT_EQ(um_plan_cache_count(c), 41);
  {
    um_plan_key d = q;
    d.block_size = 17;
    EXPECT_NE(um_plan_cache_find(c, &d), nullptr);
  }
  // drop by object: a key with map0 in its first nargs args
  um_plan_key other = q;
  other.nargs = 1;
  other.arg[0].map = &dat1;  // does not use map0
  other.arg[1].map = &map0;  // beyond nargs: must not count
  ASSERT_EQ(um_plan_cache_insert(c, &other, tiny_plan()), UM_SUCCESS);
  EXPECT_EQ(um_plan_cache_drop(c, &map0), 41);
  EXPECT_EQ(um_plan_cache_count(c), 1);
  EXPECT_NE(um_plan_cache_find(c, &other), nullptr);
  EXPECT_EQ(um_plan_cache_find(c, &q), nullptr);
  um_plan_cache_clear(c);
  EXPECT_EQ(um_plan_cache_count(c), 0);
  EXPECT_EQ(um_plan_cache_find(c, &other), nullptr);
  ASSERT_EQ(um_plan_cache_insert(c, &q, tiny_plan()), UM_SUCCESS);
  um_plan_cache_destroy(c);  // frees the remaining plan
  um_plan_cache_destroy(nullptr);
  EXPECT_EQ(um_plan_cache_count(nullptr), 0);
}

// ---- timing sanity (printed, not asserted) ----------------------------------------

// Airfoil res_calc on a periodic nx x ny quad grid: 2*nx*ny edges, nx*ny nodes and cells.
