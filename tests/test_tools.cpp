// umrun's tools: the JSON reader that --compare and --report use, the kernel
// operation estimate, and the engine's record of what each loop ran.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "json.h"
#include "tools.h"
#include "um/report.h"
#include "um/um.h"
}
#include "test_kernels.h"
#include "test_vec_kernels_decl.h"

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

// --suite --repeat rewrites a run's JSON: what uj_write prints reads back the same, and uj_set_num replaces
// a number or adds the key
TEST(Json, WritesWhatItReadsAndSetsNumbers) {
  uj *v = parse(R"({"a": 0.1, "b": [true, null, "q\"\n\u0001"], "o": {"k": 3}, "e": []})");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(uj_set_num(const_cast<uj *>(uj_get(v, "o")), "k", 2.5), 0);
  EXPECT_EQ(uj_set_num(const_cast<uj *>(uj_get(v, "o")), "new", 7), 0);
  EXPECT_EQ(uj_set_num(v, "nan", NAN), 0);                          // not finite: null
  EXPECT_NE(uj_set_num(const_cast<uj *>(uj_get(v, "b")), "x", 1), 0);  // not an object
  char *text = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ASSERT_NE(f, nullptr);
  uj_write(f, v);
  fclose(f);
  uj *w = parse(std::string(text, len));
  ASSERT_NE(w, nullptr) << text;
  EXPECT_EQ(uj_getn(w, "a", 0), 0.1);  // 17 digits: the same double
  EXPECT_TRUE(uj_is_true(uj_at(uj_get(w, "b"), 0)));
  EXPECT_EQ(uj_at(uj_get(w, "b"), 1)->kind, UJ_NULL);
  EXPECT_STREQ(uj_str(uj_at(uj_get(w, "b"), 2), ""), "q\"\n\x01");
  EXPECT_EQ(uj_getn(uj_get(w, "o"), "k", 0), 2.5);
  EXPECT_EQ(uj_getn(uj_get(w, "o"), "new", 0), 7);
  EXPECT_EQ(uj_get(w, "nan")->kind, UJ_NULL);
  EXPECT_EQ(uj_len(uj_get(w, "e")), 0);
  free(text);
  uj_free(v);
  uj_free(w);
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

// um/kernel.h's vector accessors are reads (their indices addresses, as a subscript's), an increment one
// addition besides its value's cost, um_phase nothing
TEST(Tools, KernelOperationsOfVectorArguments) {
  const char *src =
      "#include <um/kernel.h>\n"
      "UM_KERNEL void k(const um_vec *a, const um_vec *b, double *y) {\n"
      "  y[0] = UM_VEC_D(a, 1 + 1, 2 * 0) * 2.0;\n"
      "  um_phase();\n"
      "  um_vec_inc_d(b, 1 + 1, 0, y[0] * 3.0);\n"
      "  um_vec_inc_d(b, 0, 0, UM_VEC_D(a, 0, 1 - 1));\n"
      "}\n";
  // * 2.0 (1); the first increment: its addition and * 3.0 (2); the second: its addition (1)
  EXPECT_EQ(um_kernel_op_estimate(src, "k"), 4);
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

// Issue 61: a count per path. Both branches of an if were added (BookLeaf's EOS topped the roofline); now the
// shortest and the longest path through the branches are counted apart, and the longest is the estimate.
TEST(Tools, KernelOperationsPerPath) {
  const char *src =
      "#include <um/kernel.h>\n"
      "UM_KERNEL double sq(double v) { if (v < 0) return 0.0; return v * v * v; }\n"
      "UM_KERNEL void branches(const double *a, double *r) {\n"
      "  r[0] = a[0] + 1.0;\n"                                   // 1
      "  if (a[1] > 0) { r[1] = a[1] * a[2] * a[3]; } else r[1] = a[1] / 2.0;\n"  // 2 or 1
      "  r[2] = a[0] > 0 ? a[0] * a[0] : -a[0];\n"              // 1 or 0
      "  r[3] = sq(a[4]);\n"                                    // 0 or 2
      "}\n"
      "UM_KERNEL void early(const double *a, double *r) {\n"
      "  for (int i = 0; i < 4; i++) { if (a[i] == 0) break; r[i] = a[i] * 2.0 + 1.0; }\n"
      "}\n"
      "UM_KERNEL void same(const double *a, double *r) { if (a[0] > 0) r[0] = a[0] + 1; else r[0] = a[0] - 1; }\n";
  long lo = -2, hi = -2, ops = -2;
  char why[256];
  ASSERT_EQ(um_kernel_ops_paths(src, "branches", &lo, &hi, why, sizeof why), 0) << why;
  EXPECT_EQ(lo, 1 + 1 + 0 + 0);
  EXPECT_EQ(hi, 1 + 2 + 1 + 2);
  ASSERT_EQ(um_kernel_ops(src, "branches", &ops, why, sizeof why), 0) << why;
  EXPECT_EQ(ops, hi);  // the estimate is the longest path, not both branches summed (1 + 3 + 1 + 2 = 7)
  // a break ends the path: the fewest is a lower bound (0: the first element may be 0); 4 trips x 2 the most
  ASSERT_EQ(um_kernel_ops_paths(src, "early", &lo, &hi, why, sizeof why), 0) << why;
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 8);
  ASSERT_EQ(um_kernel_ops_paths(src, "same", &lo, &hi, why, sizeof why), 0) << why;
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 1);
  // BookLeaf's EOS picks one equation of state per element: its paths differ
  ASSERT_EQ(um_kernel_ops_paths(bookleaf_kernels_source, "bl_eos", &lo, &hi, why, sizeof why), 0) << why;
  EXPECT_LT(lo, hi);
  EXPECT_EQ(um_kernel_ops_paths(src, "absent", &lo, &hi, why, sizeof why), -1);
  EXPECT_EQ(lo, -1);
  EXPECT_EQ(hi, -1);
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
  // kinematics_gradients_q: lu_collect_vec twice (0), the volume, the characteristic length, the mid-plane
  // differences twice, lu_kinematics_planes, lu_gradients_elem; kinematics_gradients: delv besides (1)
  const auto n = [](const char *fn) { return um_kernel_op_estimate(lulesh_kernels_source, fn); };
  EXPECT_EQ(n("lu_collect_vec"), 0);
  EXPECT_EQ(n("lu_kinematics_gradients_q"), n("lu_elem_volume") + n("lu_char_length") + 2 * n("lu_mid_planes") +
                                                 n("lu_kinematics_planes") + n("lu_gradients_elem"));
  EXPECT_EQ(n("lu_kinematics_gradients"), n("lu_kinematics_gradients_q") + 1);
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

// Automatic loop splitting in the reports: the JSON names each loop's variant, why, its parent
// (the loops a split generates) and the temporaries; the per-loop table lists the generated loops
// under their parent and counts their time once (inside the parent's).
namespace {
struct SplitCtx {
  um_context *ctx = nullptr;
  um_set *nodes = nullptr, *edges = nullptr;
  um_map *pedge = nullptr;
  um_dat *u = nullptr, *w = nullptr, *r = nullptr, *f = nullptr, *q = nullptr;
  SplitCtx(um_split mode, const char *backend) {
    um_options o;
    um_options_default(&o);
    o.backend = backend;
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    EXPECT_EQ(um_context_set_split(ctx, mode), UM_SUCCESS);
    const int e[] = {0, 1, 1, 2, 2, 0};
    const double uu[] = {1, 2, 3, 4, 5, 6}, ww[] = {1, 1, 1};
    EXPECT_EQ(um_decl_set(ctx, 3, "nodes", &nodes), UM_SUCCESS);
    EXPECT_EQ(um_decl_set(ctx, 3, "edges", &edges), UM_SUCCESS);
    EXPECT_EQ(um_decl_map(ctx, edges, nodes, 2, e, "pedge", &pedge), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, uu, "u", &u), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, edges, 1, UM_DOUBLE, ww, "w", &w), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, nullptr, "r", &r), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "f", &f), UM_SUCCESS);
    EXPECT_EQ(um_decl_dat(ctx, edges, 2, UM_DOUBLE, uu, "q", &q), UM_SUCCESS);
  }
  ~SplitCtx() { um_finalize(&ctx); }
  // edge_inc increments r and f through pedge: it can be split. With keep, the loop increments r through a vector
  // argument instead (every target of pedge as one): it is kept whole, and says why.
  int run(const char *name, bool keep) {
    if (keep)
      return UM_PAR_LOOP(ctx, tv_scatter_vec_kernel, name, edges, um_arg_dat(q, -1, UM_ID, 2, UM_DOUBLE, UM_READ),
                         um_arg_vec(r, pedge, 2, UM_DOUBLE, UM_INC));
    double s = 0;
    int cnt = 0;
    um_dat *src = keep ? r : u;
    return UM_PAR_LOOP(ctx, edge_inc_kernel, name, edges, um_arg_dat(w, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                       um_arg_dat(src, 0, pedge, 2, UM_DOUBLE, UM_READ), um_arg_dat(u, 1, pedge, 2, UM_DOUBLE, UM_READ),
                       um_arg_dat(r, 0, pedge, 2, UM_DOUBLE, UM_INC), um_arg_dat(r, 1, pedge, 2, UM_DOUBLE, UM_INC),
                       um_arg_dat(f, 0, pedge, 1, UM_FLOAT, UM_INC), um_arg_gbl(&s, 1, UM_DOUBLE, UM_INC),
                       um_arg_gbl(&cnt, 1, UM_INT, UM_INC));
  }
  std::string report(void (*fn)(const um_context *, FILE *)) const {
    char *buf = nullptr;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    fn(ctx, fp);
    fclose(fp);
    std::string s(buf, n);
    free(buf);
    return s;
  }
  std::string table(double total) const {
    char *buf = nullptr;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    um_report_loops(ctx, fp, total);
    fclose(fp);
    std::string s(buf, n);
    free(buf);
    return s;
  }
};

std::vector<std::string> lines_of(const std::string &s) {
  std::vector<std::string> v;
  size_t b = 0;
  for (size_t e; (e = s.find('\n', b)) != std::string::npos; b = e + 1) v.push_back(s.substr(b, e - b));
  return v;
}

// The per-loop table's rows: name (as printed), time, share ("(x)" for a generated loop).
struct TableRow {
  std::string name, share;
  double seconds;
};
std::vector<TableRow> table_rows(const std::string &t) {
  std::vector<TableRow> rows;
  bool in = false;
  for (const std::string &l : lines_of(t)) {
    if (l.rfind("loop ", 0) == 0) {
      in = true;
      continue;
    }
    if (!in || l.rfind("all loops", 0) == 0) {
      if (in) break;
      continue;
    }
    TableRow r;
    r.name = l.substr(0, 20);
    r.name.erase(r.name.find_last_not_of(' ') + 1);
    char share[32] = "";
    long calls = 0;
    if (sscanf(l.c_str() + 20, "%ld %lf %31s", &calls, &r.seconds, share) != 3) continue;
    r.share = share;
    rows.push_back(r);
  }
  return rows;
}
}  // namespace

TEST(Tools, SplitLoopsInJsonAndTables) {
  for (um_split mode : {UM_SPLIT_SCATTER, UM_SPLIT_GATHER}) {
    SCOPED_TRACE(um_split_name(mode));
    // openmp (where built) plans the scatters: the plan table lists them
    const char *backend = mode == UM_SPLIT_SCATTER && um_backend_available("openmp") ? "openmp" : "seq";
    SplitCtx c(mode, backend);
    for (int i = 0; i < 3; i++) ASSERT_EQ(c.run("edge_inc", false), UM_SUCCESS) << um_error_message(c.ctx);
    ASSERT_EQ(c.run("edge_keep", true), UM_SUCCESS) << um_error_message(c.ctx);
    // the JSON: every loop carries the split fields; generated loops name their parent
    std::string js = "{\"loops\": " + c.report(um_report_loops_json) + "}", err;
    uj *v = parse(js, &err);
    ASSERT_NE(v, nullptr) << err << "\n" << js;
    const uj *loops = uj_get(v, "loops");
    int generated = 0;
    for (int i = 0; i < uj_len(loops); i++) {
      const uj *l = uj_at(loops, i);
      const std::string name = uj_gets(l, "name", "?");
      SCOPED_TRACE(name);
      for (const char *key : {"split", "split_reason", "parent", "temp_bytes", "calls", "seconds", "args"})
        EXPECT_NE(uj_get(l, key), nullptr) << key << " missing in " << js;
      const char *parent = umrun_loop_parent(l);
      if (name == "edge_inc") {
        EXPECT_STREQ(uj_gets(l, "split", ""), um_split_name(mode));
        EXPECT_NE(std::string(uj_gets(l, "split_reason", "")).find(um_split_name(mode)), std::string::npos);
        EXPECT_EQ(uj_get(l, "parent")->kind, UJ_NULL);
        // one temporary per INC-through-a-map argument (r twice, f once), 3 edges with no halo
        EXPECT_DOUBLE_EQ(uj_getn(l, "temp_bytes", 0), 3 * (2 * 8 + 2 * 8 + 1 * 4));
      } else if (name == "edge_keep") {
        EXPECT_STREQ(uj_gets(l, "split", ""), "off");
        const std::string why = uj_gets(l, "split_reason", "");
        EXPECT_EQ(why.rfind("kept whole", 0), 0u) << why;
        EXPECT_DOUBLE_EQ(uj_getn(l, "temp_bytes", -1), 0);
      } else {
        ASSERT_NE(parent, nullptr) << "a generated loop names its parent";
        EXPECT_STREQ(parent, "edge_inc");
        EXPECT_EQ(name.rfind("edge_inc:", 0), 0u);
        EXPECT_EQ(uj_get(l, "split_reason")->kind, UJ_NULL);
        EXPECT_EQ(uj_getn(l, "calls", 0), 3);
        generated++;
      }
    }
    EXPECT_EQ(generated, mode == UM_SPLIT_SCATTER ? 4 : 2) << "contrib and one scatter per argument, or one gather";
    // umrun's order: each loop of the app, then its generated loops
    std::vector<int> idx(uj_len(loops)), depth(uj_len(loops));
    ASSERT_EQ(umrun_loop_order(loops, idx.data(), depth.data()), uj_len(loops));
    EXPECT_STREQ(uj_gets(uj_at(loops, idx[0]), "name", ""), "edge_inc");
    for (int k = 1; k <= generated; k++) EXPECT_EQ(depth[k], 1);
    EXPECT_STREQ(uj_gets(uj_at(loops, idx[generated + 1]), "name", ""), "edge_keep");
    uj_free(v);

    // the table: generated loops indented under their parent, their share in parentheses; the total
    // is the parent loops' alone, so (total = 0: of the loops' sum) the shares of the loops of the
    // app make 100% and "all loops" is their sum
    const std::string t = c.table(0);
    const std::vector<TableRow> rows = table_rows(t);
    ASSERT_EQ(rows.size(), (size_t)(2 + generated)) << t;
    EXPECT_EQ(rows[0].name, "edge_inc");
    EXPECT_EQ(rows[generated + 1].name, "edge_keep");
    double share = 0, seconds = 0, parts = 0;
    for (size_t k = 0; k < rows.size(); k++) {
      const bool gen = k >= 1 && k <= (size_t)generated;
      if (gen) {
        EXPECT_EQ(rows[k].name.rfind("  :", 0), 0u) << rows[k].name;
        EXPECT_EQ(rows[k].share.front(), '(') << t;
        parts += rows[k].seconds;
      } else {
        share += std::stod(rows[k].share);
        seconds += rows[k].seconds;
      }
    }
    EXPECT_NEAR(share, 100.0, 0.02) << t;
    EXPECT_LE(parts, rows[0].seconds + 2e-4) << "the generated loops' time is inside their parent's\n" << t;
    double all = -1;
    for (const std::string &l : lines_of(t))
      if (l.rfind("all loops", 0) == 0) all = std::stod(l.substr(20));
    EXPECT_NEAR(all, seconds, 2e-4) << t;
    EXPECT_NE(t.find("  split\n"), std::string::npos) << "the split column's header\n" << t;
    EXPECT_NE(t.find(std::string("  ") + um_split_name(mode) + "\n"), std::string::npos) << t;
    EXPECT_NE(t.find("\nsplit: 1 loop ran as the loops indented under it"), std::string::npos) << t;
    EXPECT_NE(t.find("kept whole (asked to split):\n  edge_keep: arg 1 passes every target of map 'pedge'"),
              std::string::npos) << t;
    for (const std::string &l : lines_of(t)) EXPECT_LE(l.size(), 120u) << l;
    // a wall time longer than the loops': the app's loops' shares stay within 100%
    const std::vector<TableRow> rows2 = table_rows(c.table(2 * seconds + 1e-3));
    double share2 = 0;
    for (const TableRow &r : rows2)
      if (r.share.front() != '(') share2 += std::stod(r.share);
    EXPECT_LE(share2, 100.0);
    // the other tables list generated loops under their parent too (named in full where the parent
    // has no row, as in the plan table: only the scatters use plans)
    const std::string ops = c.report(um_report_ops);
    EXPECT_NE(ops.find("\nedge_inc "), std::string::npos) << ops;
    EXPECT_NE(ops.find("\n  :contrib "), std::string::npos) << ops;
    const std::string plans = c.report(um_report_plans);
    if (!strcmp(backend, "openmp")) EXPECT_NE(plans.find("\n  edge_inc:inc3 "), std::string::npos) << plans;
  }
}

// Results files: a loop's generated loops come after it even when listed before it, a generated
// loop whose parent is absent comes last on its own, and a name given twice does not overflow.
TEST(Tools, LoopOrderOfResultsFiles) {
  uj *v = parse(R"({"loops": [{"name": "a:contrib", "parent": "a"}, {"name": "b"}, {"name": "a"},
                  {"name": "z:gather", "parent": "z"}, {"name": "a:gather", "parent": "a"}, {"name": "a"},
                  {"name": "c", "parent": null}, {"name": "d", "parent": ""}]})");
  ASSERT_NE(v, nullptr);
  const uj *loops = uj_get(v, "loops");
  std::vector<int> idx(uj_len(loops), -1), depth(uj_len(loops), -1);
  const int n = umrun_loop_order(loops, idx.data(), depth.data());
  ASSERT_LE(n, uj_len(loops));
  std::string got;
  for (int k = 0; k < n; k++)
    got += std::string(depth[k] ? ">" : "") + uj_gets(uj_at(loops, idx[k]), "name", "?") + " ";
  EXPECT_EQ(got, "b a >a:contrib >a:gather a c d z:gather ");
  uj_free(v);
}

// What docs/architecture.md says of the variants, on a mesh whose elements share targets in every
// order: gathered on one rank, a loop gives the bits of the sequential unsplit loop; reproducible
// mode gives the same bits on seq and openmp, AoS and SoA.
namespace {
struct Bits {
  std::vector<double> r;
  std::vector<float> f;
  double sum = 0;
  bool operator==(const Bits &o) const {
    return r.size() == o.r.size() && !memcmp(r.data(), o.r.data(), r.size() * sizeof(double)) &&
           f.size() == o.f.size() && !memcmp(f.data(), o.f.data(), f.size() * sizeof(float)) &&
           !memcmp(&sum, &o.sum, sizeof sum);
  }
};

Bits run_mesh(const char *backend, um_layout layout, um_split mode, bool reproducible) {
  const int nn = 500, ne = 4000;
  std::vector<int> e2n(2 * ne);
  std::vector<double> u(2 * nn), w(ne);
  unsigned x = 12345;
  auto rnd = [&x]() { return x = x * 1103515245u + 12345u, (x >> 8) & 0xffffff; };
  for (int i = 0; i < 2 * ne; i++) e2n[i] = (int)(rnd() % nn);
  for (int i = 0; i < 2 * nn; i++) u[i] = 1e-3 * (double)rnd() / 7.0;
  for (int i = 0; i < ne; i++) w[i] = 1.0 + (double)rnd() / 3e6;
  um_options o;
  um_options_default(&o);
  o.backend = backend;
  o.layout = layout;
  o.nthreads = 2;
  um_options_set(&o, "openmp.parallel_threshold", "0"); // openmp: threads even on this small set
  um_context *ctx = nullptr;
  Bits b;
  EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  EXPECT_EQ(um_context_set_split(ctx, mode), UM_SUCCESS);
  EXPECT_EQ(um_context_set_reproducible(ctx, reproducible), UM_SUCCESS);
  um_set *nodes, *edges;
  um_map *m;
  um_dat *du, *dw, *dr, *df;
  EXPECT_EQ(um_decl_set(ctx, nn, "nodes", &nodes), UM_SUCCESS);
  EXPECT_EQ(um_decl_set(ctx, ne, "edges", &edges), UM_SUCCESS);
  EXPECT_EQ(um_decl_map(ctx, edges, nodes, 2, e2n.data(), "pedge", &m), UM_SUCCESS);
  EXPECT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, u.data(), "u", &du), UM_SUCCESS);
  EXPECT_EQ(um_decl_dat(ctx, edges, 1, UM_DOUBLE, w.data(), "w", &dw), UM_SUCCESS);
  EXPECT_EQ(um_decl_dat(ctx, nodes, 2, UM_DOUBLE, nullptr, "r", &dr), UM_SUCCESS);
  EXPECT_EQ(um_decl_dat(ctx, nodes, 1, UM_FLOAT, nullptr, "f", &df), UM_SUCCESS);
  for (int it = 0; it < 3; it++) {
    double s = 0;
    int cnt = 0;
    EXPECT_EQ(UM_PAR_LOOP(ctx, edge_inc_kernel, "edge_inc", edges, um_arg_dat(dw, -1, UM_ID, 1, UM_DOUBLE, UM_READ),
                          um_arg_dat(du, 0, m, 2, UM_DOUBLE, UM_READ), um_arg_dat(du, 1, m, 2, UM_DOUBLE, UM_READ),
                          um_arg_dat(dr, 0, m, 2, UM_DOUBLE, UM_INC), um_arg_dat(dr, 1, m, 2, UM_DOUBLE, UM_INC),
                          um_arg_dat(df, 0, m, 1, UM_FLOAT, UM_INC), um_arg_gbl(&s, 1, UM_DOUBLE, UM_INC),
                          um_arg_gbl(&cnt, 1, UM_INT, UM_INC)),
              UM_SUCCESS)
        << um_error_message(ctx);
    b.sum += s;
    EXPECT_EQ(cnt, ne);
  }
  b.r.resize(2 * nn);
  b.f.resize(nn);
  EXPECT_EQ(um_dat_fetch(ctx, dr, b.r.data(), b.r.size() * sizeof(double)), UM_SUCCESS);
  EXPECT_EQ(um_dat_fetch(ctx, df, b.f.data(), b.f.size() * sizeof(float)), UM_SUCCESS);
  um_loop_stats st;
  EXPECT_EQ(um_loop_stats_get(ctx, 0, &st), UM_SUCCESS);
  EXPECT_STREQ(st.split, reproducible || mode == UM_SPLIT_GATHER ? "gather"
                         : mode == UM_SPLIT_SCATTER               ? "scatter"
                                                                  : "off");
  um_finalize(&ctx);
  return b;
}
}  // namespace

TEST(Tools, GatherIsSequentialBitsAndReproducibleIsEverywhere) {
  const Bits whole = run_mesh("seq", UM_AOS, UM_SPLIT_OFF, false);
  EXPECT_TRUE(run_mesh("seq", UM_AOS, UM_SPLIT_GATHER, false) == whole) << "gathered on one rank: the sequential bits";
  EXPECT_TRUE(run_mesh("seq", UM_SOA, UM_SPLIT_GATHER, false) == whole);
  const Bits rep = run_mesh("seq", UM_AOS, UM_SPLIT_OFF, true);
  EXPECT_TRUE(rep.r == whole.r && rep.f == whole.f) << "reproducible: the increments gathered in the sequential order";
  const char *omp = um_backend_available("openmp") ? "openmp" : "seq";
  for (um_layout l : {UM_AOS, UM_SOA}) {
    EXPECT_TRUE(run_mesh(omp, l, UM_SPLIT_OFF, true) == rep) << omp << " " << (l == UM_AOS ? "aos" : "soa");
    EXPECT_TRUE(run_mesh(omp, l, UM_SPLIT_SCATTER, true) == rep) << "reproducible overrides run.split";
  }
}
