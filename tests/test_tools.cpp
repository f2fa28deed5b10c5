// umrun's tools: the JSON reader that --compare and --report use, the kernel
// operation estimate, and the engine's record of what each loop ran.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

extern "C" {
#include "json.h"
#include "tools.h"
#include "um/report.h"
#include "um/um.h"
}
#include "test_kernels.h"

extern "C" {  // the apps' kernel headers as they are embedded (apps/<app>/CMakeLists.txt)
extern const char airfoil_kernels_source[], jacobi_kernels_source[], lulesh_kernels_source[],
    miniaero_kernels_source[], bookleaf_kernels_source[];
}

namespace {
uj *parse(const std::string &s, std::string *err = nullptr) {
  char e[512] = "";
  uj *v = nullptr;
  if (uj_parse(s.data(), s.size(), "t.json", &v, e, sizeof e) != 0) {
    if (err) *err = e;
    return nullptr;
  }
  return v;
}
}  // namespace

TEST(Json, ReadsEveryKind) {
  uj *v = parse(R"({"a": 1.5e3, "b": [true, false, null], "s": "x\"\\\/\u00e9\n", "o": {"k": -0}, "e": [], "f": {}})");
  ASSERT_NE(v, nullptr);
  EXPECT_DOUBLE_EQ(uj_getn(v, "a", 0), 1500.0);
  EXPECT_EQ(uj_len(uj_get(v, "b")), 3);
  EXPECT_TRUE(uj_is_true(uj_at(uj_get(v, "b"), 0)));
  EXPECT_FALSE(uj_is_true(uj_at(uj_get(v, "b"), 1)));
  EXPECT_EQ(uj_at(uj_get(v, "b"), 2)->kind, UJ_NULL);
  EXPECT_TRUE(std::isnan(uj_num(uj_at(uj_get(v, "b"), 2), NAN)));  // null reads as the default
  EXPECT_STREQ(uj_gets(v, "s", ""), "x\"\\/\xc3\xa9\n");
  EXPECT_EQ(uj_getn(uj_get(v, "o"), "k", 1), 0.0);
  EXPECT_EQ(uj_len(uj_get(v, "e")), 0);
  EXPECT_EQ(uj_get(v, "missing"), nullptr);
  EXPECT_STREQ(uj_gets(v, "a", "def"), "def");  // a number is not a string
  uj_free(v);
}

TEST(Json, SurrogatePairsAndNulEscapes) {
  uj *v = parse(R"(["\ud83d\ude00", "a\u0000b"])");
  ASSERT_NE(v, nullptr);
  EXPECT_STREQ(uj_str(uj_at(v, 0), ""), "\xf0\x9f\x98\x80");
  EXPECT_EQ(std::strlen(uj_str(uj_at(v, 1), "")), 5u);  // NUL replaced: strings stay C strings
  uj_free(v);
}

TEST(Json, ErrorsSayWhereAndWhat) {
  std::string e;
  EXPECT_EQ(parse("{\"a\": 1,}", &e), nullptr);
  EXPECT_NE(e.find("t.json:1:9"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a key"), std::string::npos) << e;
  EXPECT_EQ(parse("[1, 2\n", &e), nullptr);
  EXPECT_NE(e.find("expected ',' or ']'"), std::string::npos) << e;
  EXPECT_EQ(parse("\"abc", &e), nullptr);
  EXPECT_NE(e.find("never closed"), std::string::npos) << e;
  EXPECT_EQ(parse("[01]", &e), nullptr);
  EXPECT_EQ(parse("[1.]", &e), nullptr);
  EXPECT_NE(e.find("decimal point"), std::string::npos) << e;
  EXPECT_EQ(parse("{} x", &e), nullptr);
  EXPECT_NE(e.find("after the end"), std::string::npos) << e;
  EXPECT_EQ(parse("nan", &e), nullptr);
  EXPECT_EQ(parse("[\"\t\"]", &e), nullptr);
  EXPECT_NE(e.find("control character"), std::string::npos) << e;
  std::string deep(200, '[');
  EXPECT_EQ(parse(deep, &e), nullptr);
  EXPECT_NE(e.find("nested deeper"), std::string::npos) << e;
}

TEST(Json, MissingFileNamesIt) {
  char e[512];
  uj *v = nullptr;
  EXPECT_NE(uj_parse_file("/nonexistent/r.json", &v, e, sizeof e), 0);
  EXPECT_NE(std::string(e).find("/nonexistent/r.json"), std::string::npos);
}

TEST(Tools, MetricAllowanceIsTheLargerTolerance) {
  uj *m = parse(R"({"ref": 200, "rel_tol": 1e-3, "abs_tol": 0.5})");
  EXPECT_DOUBLE_EQ(umrun_metric_allowance(m), 0.5);
  uj_free(m);
  m = parse(R"({"ref": 2000, "rel_tol": 1e-3, "abs_tol": null})");
  EXPECT_DOUBLE_EQ(umrun_metric_allowance(m), 2.0);
  uj_free(m);
  m = parse(R"({"ref": 1, "rel_tol": null, "abs_tol": null})");
  EXPECT_LT(umrun_metric_allowance(m), 0);
  uj_free(m);
}

TEST(Tools, KernelOperationEstimate) {
  const char *src =
      "#include <um/kernel.h>\n"
      "UM_KERNEL void other(const double *a, double *b) { b[0] = a[0] * a[1] * a[2]; }\n"
      "UM_KERNEL void k(const double *x, double *y) {\n"
      "  // a comment with - and * that does not count\n"
      "  double t = -x[0] * 2.0 + sqrt(x[1]); /* 2 binary ops + sqrt */\n"
      "  const double *p = x;\n"
      "  for (int i = 0; i < 3; i++) y[i] += t / p[i]; /* += and / */\n"
      "  y[0] -= 1e-3;\n"
      "}\n";
  // t = -x[0] * 2.0 + sqrt(x[1]): * and + and sqrt (the unary minus is not an operation) = 3;
  // the loop runs 3 times: (+= and /) x 3 = 6; y[0] -= 1e-3: 1. 3 + 6 + 1 = 10
  EXPECT_EQ(um_kernel_op_estimate(src, "k"), 10);
  // a[0] * a[1] * a[2]: 2
  EXPECT_EQ(um_kernel_op_estimate(src, "other"), 2);
  EXPECT_EQ(um_kernel_op_estimate(src, "absent"), -1);
  EXPECT_EQ(um_kernel_op_estimate(nullptr, "k"), -1);
}

// Issue 26, item 1: the count follows calls into helpers (functions and
// function-like macros of the same source) and multiplies loops with a constant
// trip count; what cannot be counted is unknown (-1, with the reason), never 0.
TEST(Tools, KernelOperationsFollowHelpersAndConstantLoops) {
  const char *src =
      "#include <um/kernel.h>\n"
      "#define NDIM 3\n"
      "#define DOT(a, b) ((a)[0] * (b)[0] + (a)[1] * (b)[1] + (a)[2] * (b)[2])\n"
      "UM_KERNEL double sq(double v) { return v * v; }\n"
      "UM_KERNEL double norm2(const double *a) { return sq(a[0]) + sq(a[1]) + sq(a[2]); }\n"
      "UM_KERNEL void helper_only(const double *a, double *r) { r[0] = norm2(a); }\n"
      "UM_KERNEL void nested(const double *a, double *r) {\n"
      "  for (int i = 0; i <= 1; i++)\n"
      "    for (int d = 0; d < NDIM; d++) r[i * NDIM + d] += a[d] * 2.0;\n"
      "}\n"
      "UM_KERNEL void by_macro(const double *a, const double *b, double *r) { r[0] = DOT(a, b) / 3.0; }\n"
      "UM_KERNEL void strided(double *r) { for (int i = 1; i < 8; i += 2) r[i] *= 0.5; }\n"
      "UM_KERNEL void copy(const double *a, double *r) { for (int i = 0; i < 4; i++) r[i] = a[i]; }\n"
      "UM_KERNEL void data_loop(const int *n, double *r) { for (int i = 0; i < n[0]; i++) r[0] += 1.0; }\n"
      "UM_KERNEL void calls_outside(double *r) { r[0] = external_helper(r[0]) + 1.0; }\n"
      "UM_KERNEL double rec(double v) { return v > 1 ? rec(v / 2) + 1 : v; }\n"
      "UM_KERNEL void calls_unknown_helper(double *r) { r[0] = sq(r[0]) + rec(r[0]); }\n";
  long ops = 0;
  char why[256];
  // sq: v * v = 1; norm2: three calls of sq (3) and two + (2) = 5; helper_only: norm2 = 5
  ASSERT_EQ(um_kernel_ops(src, "helper_only", &ops, why, sizeof why), 0) << why;
  EXPECT_EQ(ops, 5);
  // the inner loop runs NDIM = 3 times, the outer (0 <= i <= 1) 2: (+= and *) x 3 x 2 = 12
  // (i * NDIM + d is index arithmetic inside [ ], not counted)
  ASSERT_EQ(um_kernel_ops(src, "nested", &ops, why, sizeof why), 0) << why;
  EXPECT_EQ(ops, 12);
  // DOT: three * and two + = 5; then / 3.0: 6
  ASSERT_EQ(um_kernel_ops(src, "by_macro", &ops, why, sizeof why), 0) << why;
  EXPECT_EQ(ops, 6);
  // i = 1, 3, 5, 7: 4 trips of *= : 4
  ASSERT_EQ(um_kernel_ops(src, "strided", &ops, why, sizeof why), 0) << why;
  EXPECT_EQ(ops, 4);
  // a copy has no arithmetic: a computed 0, not an unknown
  ASSERT_EQ(um_kernel_ops(src, "copy", &ops, why, sizeof why), 0) << why;
  EXPECT_EQ(ops, 0);
  // unknown, each with its reason
  EXPECT_EQ(um_kernel_ops(src, "data_loop", &ops, why, sizeof why), -1);
  EXPECT_EQ(ops, -1);
  EXPECT_NE(std::string(why).find("known only at run time"), std::string::npos) << why;
  EXPECT_EQ(um_kernel_ops(src, "calls_outside", &ops, why, sizeof why), -1);
  EXPECT_NE(std::string(why).find("'external_helper'"), std::string::npos) << why;
  EXPECT_EQ(um_kernel_ops(src, "calls_unknown_helper", &ops, why, sizeof why), -1);
  EXPECT_NE(std::string(why).find("recursion"), std::string::npos) << why;
  EXPECT_EQ(um_kernel_op_estimate(src, "data_loop"), -1);
  EXPECT_EQ(um_kernel_ops(src, "absent", &ops, why, sizeof why), -1);
  EXPECT_NE(std::string(why).find("no definition of 'absent'"), std::string::npos) << why;
}

// Hand counts of the apps' own kernels, and the loops issue 26 found at 0.
TEST(Tools, KernelOperationsOfTheApps) {
  // Airfoil update: 1.0 / adt[0] (1), then 4 times: adti * res[n] (1), qold[n] - del (1),
  // rms[0] += del * del (2): 1 + 4 x 4 = 17
  EXPECT_EQ(um_kernel_op_estimate(airfoil_kernels_source, "update"), 17);
  // Airfoil adt_calc: rinv (1); uu, vv (2); c = sqrt(gam * gm1 * (rinv * q[3] - 0.5 * (uu * uu + vv * vv))):
  // 8 operators and sqrt (9); 4 faces of: dx (1), dy (1), sum += fabs(uu * dy - vv * dx) + c * sqrt(dx * dx +
  // dy * dy): +=, fabs, *, -, *, +, *, sqrt, *, +, * (11) = 13 x 4 = 52; sum / cfl (1): 12 + 52 + 1 = 65
  EXPECT_EQ(um_kernel_op_estimate(airfoil_kernels_source, "adt_calc"), 65);
  // Airfoil save_soln copies q: 0, computed
  EXPECT_EQ(um_kernel_op_estimate(airfoil_kernels_source, "save_soln"), 0);
  // Jacobi relax: s[0] / deg (1), unew - u[0] (1), du < 0 ? -du : du (0: unary minus),
  // sumdu2[0] += du * du (2) = 4
  EXPECT_EQ(um_kernel_op_estimate(jacobi_kernels_source, "relax"), 4);
  // LULESH lu_put8: o[i][d] + f[d][i] (1) for 8 nodes x 3 components = 24
  EXPECT_EQ(um_kernel_op_estimate(lulesh_kernels_source, "lu_put8"), 24);
  // the loops issue 26 found at 0: their kernels call helpers, whose counts now add up
  const int vf = um_kernel_op_estimate(lulesh_kernels_source, "lu_volume_force");
  EXPECT_GT(um_kernel_op_estimate(lulesh_kernels_source, "lu_volume_force_elem"), 0);
  EXPECT_EQ(vf, um_kernel_op_estimate(lulesh_kernels_source, "lu_volume_force_elem") + 24);  // + lu_put8
  // kinematics_gradients: lu_collect twice (0), lu_kinematics_elem, lu_gradients_elem
  EXPECT_EQ(um_kernel_op_estimate(lulesh_kernels_source, "lu_kinematics_gradients"),
            um_kernel_op_estimate(lulesh_kernels_source, "lu_kinematics_elem") +
                um_kernel_op_estimate(lulesh_kernels_source, "lu_gradients_elem"));
  EXPECT_GT(um_kernel_op_estimate(lulesh_kernels_source, "lu_kinematics_gradients"), 0);
  for (const char *k : {"ma_flux1_inc", "ma_flux1v_inc", "ma_flux2_inc", "ma_flux1_slot"})
    EXPECT_GT(um_kernel_op_estimate(miniaero_kernels_source, k), 0) << k;
  EXPECT_GT(um_kernel_op_estimate(bookleaf_kernels_source, "bl_scatter"), 0);
  EXPECT_GT(um_kernel_op_estimate(bookleaf_kernels_source, "bl_eos"), 0);
  // LULESH's EOS repeats its work rep[0] times (the cost model): known only at run time
  long ops = 0;
  char why[256];
  EXPECT_EQ(um_kernel_ops(lulesh_kernels_source, "lu_eos", &ops, why, sizeof why), -1);
  EXPECT_NE(std::string(why).find("rep[0]"), std::string::npos) << why;
}

TEST(Tools, LoopRecordsItsArguments) {
  um_context *ctx = nullptr;
  um_options o;
  um_options_default(&o);
  o.backend = "seq";
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  um_set *nodes, *edges;
  ASSERT_EQ(um_decl_set(ctx, 3, "nodes", &nodes), UM_SUCCESS);
  ASSERT_EQ(um_decl_set(ctx, 2, "edges", &edges), UM_SUCCESS);
  const int e2n[] = {0, 1, 1, 2};
  um_map *m;
  ASSERT_EQ(um_decl_map(ctx, edges, nodes, 2, e2n, "e2n", &m), UM_SUCCESS);
  double w[2] = {1, 2}, acc[6] = {0, 0, 0, 0, 0, 0};
  um_dat *dw, *dacc;
  ASSERT_EQ(um_decl_dat(ctx, edges, 1, UM_DOUBLE, w, "w", &dw), UM_SUCCESS);
  ASSERT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, acc, "acc", &dacc), UM_SUCCESS);
  um_arg args[] = {um_arg_dat(dacc, 1, m, 2, UM_DOUBLE, UM_RW), um_arg_dat(dw, -1, nullptr, 1, UM_DOUBLE, UM_READ)};
  ASSERT_EQ(um_par_loop(ctx, &indirect_rw_kernel, "update_nodes", edges, 2, args), UM_SUCCESS);
  ASSERT_EQ(um_loop_stats_count(ctx), 1);
  EXPECT_EQ(um_loop_arg_count(ctx, 0), 2);
  EXPECT_EQ(um_loop_set(ctx, 0), edges);
  EXPECT_EQ(um_loop_kernel(ctx, 0), &indirect_rw_kernel);
  um_arg a;
  ASSERT_EQ(um_loop_arg_get(ctx, 0, 0, &a), UM_SUCCESS);
  EXPECT_EQ(a.map, m);
  EXPECT_EQ(a.idx, 1);
  EXPECT_EQ(a.acc, UM_RW);
  ASSERT_EQ(um_loop_arg_get(ctx, 0, 1, &a), UM_SUCCESS);
  EXPECT_EQ(a.map, nullptr);
  EXPECT_EQ(a.gbl, nullptr);
  EXPECT_NE(um_loop_arg_get(ctx, 0, 2, &a), UM_SUCCESS);
  EXPECT_NE(um_loop_arg_get(ctx, 1, 0, &a), UM_SUCCESS);
  um_device_info dev;
  EXPECT_EQ(um_context_device_info(ctx, &dev), UM_ERR_UNSUPPORTED);  // a host backend has no device record
  EXPECT_STREQ(dev.name, "");
  // the JSON of the loop table carries the pattern of each argument
  char *buf = nullptr;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  um_report_loops_json(ctx, f);
  fclose(f);
  std::string js(buf, n);
  free(buf);
  EXPECT_NE(js.find("\"iteration_set\": \"edges\""), std::string::npos) << js;
  EXPECT_NE(js.find("\"pattern\": \"indirect update\""), std::string::npos) << js;
  EXPECT_NE(js.find("\"pattern\": \"direct read\""), std::string::npos) << js;
  um_finalize(&ctx);
}
