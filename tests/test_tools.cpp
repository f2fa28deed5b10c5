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
  EXPECT_EQ(um_kernel_op_estimate(src, "k"), 6);
  EXPECT_EQ(um_kernel_op_estimate(src, "other"), 2);
  EXPECT_EQ(um_kernel_op_estimate(src, "absent"), -1);
  EXPECT_EQ(um_kernel_op_estimate(nullptr, "k"), -1);
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
