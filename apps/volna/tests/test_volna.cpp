// Volna's deck reader, formula parser, meshes and kernels.
#include <gtest/gtest.h>
#include <cmath>
#include <string>
extern "C" {
#include "volna.h"
}
TEST(VolnaExpr, Parses) {
  vl_expr *e = nullptr;
  char err[512];
  ASSERT_EQ(vl_expr_parse("return 1+2*x;", "d.vln", 1, &e, err, sizeof err), 0) << err;
  EXPECT_EQ(vl_expr_eval(e, 3, 0, 0), 7.0f);
  vl_expr_free(e);
}
