// Tests of validation references (engine/src/io/validate.c) through the C API.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" {
#include "um/validate.h"
}

#ifndef UM_TEST_DATA_DIR
#define UM_TEST_DATA_DIR "tests/data"
#endif

namespace {

std::string data(const char *name) {
  return std::string(UM_TEST_DATA_DIR) + "/config/" + name;
}

struct Ref {
  um_ref *r = nullptr;
  char err[1024] = "";
  ~Ref() { um_ref_free(r); }
  int load(const std::string &p) { return um_ref_load(p.c_str(), &r, err, sizeof err); }
  int load_string(const char *y) {
    return um_ref_load_string(y, "inline.ref.yaml", &r, err, sizeof err);
  }
};

struct Result {
  um_validation_result res{};
  std::string report;
  ~Result() { um_validation_result_free(&res); }
  int run(const um_ref *ref, const char *app, std::initializer_list<const char *> names,
          std::initializer_list<double> values) {
    std::vector<const char *> n(names);
    std::vector<double> v(values);
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    um_validation_result_free(&res);
    int rc = um_validate(ref, app, (int)n.size(), n.data(), v.data(), f, &res);
    fclose(f);
    report.assign(buf, len);
    free(buf);
    return rc;
  }
};

const char *kHeader = "app: demo\ncase: tiny\nprovenance: {code: hand, command: none}\nmetrics:\n";

}  // namespace

TEST(Validate, LoadGoodReference) {
  Ref r;
  ASSERT_EQ(r.load(data("airfoil_good.ref.yaml")), UM_SUCCESS) << r.err;
  EXPECT_STREQ(r.r->app, "airfoil");
  EXPECT_STREQ(r.r->case_name, "test");
  EXPECT_EQ(r.r->path, data("airfoil_good.ref.yaml"));
  ASSERT_EQ(r.r->nmetrics, 3);
  EXPECT_STREQ(r.r->metrics[0].name, "rms_1000");
  EXPECT_DOUBLE_EQ(r.r->metrics[0].value, 1.060114637578e-04);
  EXPECT_TRUE(r.r->metrics[0].has_rel_tol);
  EXPECT_FALSE(r.r->metrics[0].has_abs_tol);
  EXPECT_TRUE(r.r->metrics[1].has_abs_tol);
  EXPECT_EQ(r.r->metrics[1].abs_tol, 0.0);
  EXPECT_EQ(r.r->metrics[1].line, 11);
  EXPECT_STREQ(um_ref_provenance(r.r, "command"), "./airfoil_seq");
  EXPECT_STREQ(um_ref_provenance(r.r, "date"), "2024-01-01");
  EXPECT_EQ(um_ref_provenance(r.r, "nope"), nullptr);
  EXPECT_EQ(r.r->nprovenance, 5);
}

TEST(Validate, PassPrintsTableAndProvenance) {
  Ref r;
  ASSERT_EQ(r.load(data("airfoil_good.ref.yaml")), UM_SUCCESS) << r.err;
  Result v;
  EXPECT_EQ(v.run(r.r, "airfoil", {"ncell", "rms_1000", "mass", "extra"},
                  {720000, 1.060114637578e-04 * (1 + 5e-8), 2.4, 1.0}),
            UM_SUCCESS)
      << v.report;
  EXPECT_EQ(v.res.pass, 1);
  EXPECT_EQ(v.res.npass, 3);
  EXPECT_EQ(v.res.nfail, 0);
  EXPECT_EQ(v.res.nmissing, 0);
  EXPECT_EQ(v.res.nextra, 1);
  ASSERT_EQ(v.res.nmetrics, 3);
  EXPECT_STREQ(v.res.metrics[0].name, "rms_1000");  // reference order
  EXPECT_NEAR(v.res.metrics[0].rel_err, 5e-8, 1e-12);
  EXPECT_EQ(v.res.metrics[1].got, 720000.0);
  EXPECT_EQ(v.res.metrics[1].rel_err, 0.0);
  for (const char *s : {"metric", "reference", "got", "rel err", "tolerance", "PASS", "rms_1000",
                        "OP2-Common", "./airfoil_seq", "extra", "validation PASSED"})
    EXPECT_NE(v.report.find(s), std::string::npos) << s << "\n" << v.report;
  EXPECT_EQ(v.report.find("FAIL"), std::string::npos) << v.report;
}

TEST(Validate, FailAndMissingMetric) {
  Ref r;
  ASSERT_EQ(r.load(data("airfoil_good.ref.yaml")), UM_SUCCESS) << r.err;
  Result v;
  EXPECT_EQ(v.run(r.r, "airfoil", {"rms_1000", "ncell"}, {1.060114637578e-04 * (1 + 2e-7), 720001}),
            UM_ERR_VALIDATION);
  EXPECT_EQ(v.res.pass, 0);
  EXPECT_EQ(v.res.npass, 0);
  EXPECT_EQ(v.res.nfail, 3);
  EXPECT_EQ(v.res.nmissing, 1);
  EXPECT_FALSE(v.res.metrics[0].pass);
  EXPECT_TRUE(v.res.metrics[0].produced);
  EXPECT_FALSE(v.res.metrics[2].produced);  // mass
  EXPECT_TRUE(std::isnan(v.res.metrics[2].got));
  EXPECT_NE(v.report.find("not produced by the run"), std::string::npos) << v.report;
  EXPECT_NE(v.report.find("validation FAILED"), std::string::npos) << v.report;
  EXPECT_NE(std::string(v.res.message).find("3 of 3"), std::string::npos) << v.res.message;

  // JSON: non-finite numbers become null
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  EXPECT_EQ(um_validation_write_json(r.r, &v.res, f), UM_SUCCESS);
  fclose(f);
  std::string j(buf, len);
  free(buf);
  EXPECT_NE(j.find("\"name\": \"mass\", \"ref\": 2, \"got\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"pass\": false"), std::string::npos) << j;
  EXPECT_NE(j.find("\"command\": \"./airfoil_seq\""), std::string::npos) << j;
}

TEST(Validate, WrongAppIsAnError) {
  Ref r;
  ASSERT_EQ(r.load(data("airfoil_good.ref.yaml")), UM_SUCCESS) << r.err;
  Result v;
  EXPECT_EQ(v.run(r.r, "aero", {"ncell"}, {720000}), UM_ERR_CONFIG);
  EXPECT_EQ(v.res.pass, 0);
  std::string m = v.res.message;
  EXPECT_NE(m.find("'airfoil'"), std::string::npos) << m;
  EXPECT_NE(m.find("'aero'"), std::string::npos) << m;
  // duplicate names from the run are a programming error
  Result w;
  EXPECT_EQ(w.run(r.r, "airfoil", {"ncell", "ncell"}, {1, 2}), UM_ERR_ARG);
}

TEST(Validate, ToleranceBoundaries) {
  // Values chosen to be exact in binary so the boundary is exact.
  std::string y = std::string(kHeader) +
                  "  - {name: a, value: 1.0, abs_tol: 0.5}\n"
                  "  - {name: r, value: 2.0, rel_tol: 0.25}\n"
                  "  - {name: both, value: 4.0, rel_tol: 0.125, abs_tol: 1.0}\n"
                  "  - {name: exact, value: 720000, abs_tol: 0}\n"
                  "  - {name: zero, value: 0, rel_tol: 0.5}\n";
  Ref r;
  ASSERT_EQ(r.load_string(y.c_str()), UM_SUCCESS) << r.err;
  auto check = [&](double a, double rr, double both, double exact, double zero, int npass) {
    Result v;
    v.run(r.r, "demo", {"a", "r", "both", "exact", "zero"}, {a, rr, both, exact, zero});
    EXPECT_EQ(v.res.npass, npass) << v.report;
    return v.res.npass;
  };
  // exactly on every boundary: pass (|d| <= tol)
  check(1.5, 2.5, 5.0, 720000, 0.0, 5);
  check(0.5, 1.5, 3.0, 720000, 0.0, 5);
  // just beyond: fail
  check(std::nextafter(1.5, 2.0), 2.0, 4.0, 720000, 0.0, 4);
  check(1.0, std::nextafter(2.5, 3.0), 4.0, 720000, 0.0, 4);
  check(1.0, 2.0, std::nextafter(5.0, 6.0), 720000, 0.0, 4);  // both: the larger (abs 1.0) counts
  check(1.0, 2.0, 4.0, 720001, 0.0, 4);                       // abs_tol 0: exact only
  check(1.0, 2.0, 4.0, 720000, 1e-300, 4);                    // rel_tol of a zero reference
  // NaN and infinity never pass
  check(NAN, 2.0, 4.0, 720000, 0.0, 4);
  check(1.0, INFINITY, 4.0, 720000, 0.0, 4);

  Result v;
  v.run(r.r, "demo", {"a", "r", "both", "exact", "zero"}, {1, 2, 4, 720000, 1e-300});
  EXPECT_TRUE(std::isinf(v.res.metrics[4].rel_err));
}

TEST(Validate, BadReferenceFiles) {
  {
    Ref r;
    EXPECT_EQ(r.load(data("ref_missing_value.ref.yaml")), UM_ERR_CONFIG);
    std::string e = r.err;
    EXPECT_NE(
        e.find(data("ref_missing_value.ref.yaml") + ":6: metrics[1] (ncell): missing 'value'"),
        std::string::npos)
        << e;
    EXPECT_EQ(r.r, nullptr);
  }
  {
    Ref r;
    EXPECT_EQ(r.load(data("ref_no_tol.ref.yaml")), UM_ERR_CONFIG);
    EXPECT_NE(std::string(r.err).find("metrics[0] (rms_1000): no tolerance"), std::string::npos)
        << r.err;
  }
  {
    Ref r;
    EXPECT_EQ(r.load(data("ref_not_mapping.ref.yaml")), UM_ERR_CONFIG);
    EXPECT_NE(std::string(r.err).find("must be a mapping"), std::string::npos) << r.err;
  }
  {
    Ref r;
    EXPECT_EQ(r.load(data("does_not_exist.ref.yaml")), UM_ERR_IO);
    EXPECT_NE(std::string(r.err).find("does_not_exist.ref.yaml"), std::string::npos) << r.err;
  }
  const char *cases[][2] = {
      // body, expected message fragment
      {"app: demo\ncase: t\nmetrics: [{name: a, value: 1, rel_tol: 0}]\n",
       "'provenance' is missing"},
      {"app: demo\ncase: t\nprovenance: x\nmetrics: [{name: a, value: 1, rel_tol: 0}]\n",
       "'provenance' is a single value"},
      {"app: demo\ncase: t\nprovenance: {code: c}\nmetrics: [{name: a, value: 1, rel_tol: 0}]\n",
       "provenance has no 'command'"},
      {"case: t\nprovenance: {code: c, command: d}\nmetrics: [{name: a, value: 1, rel_tol: 0}]\n",
       "missing 'app'"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\n", "'metrics' is missing"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrics: []\n",
       "'metrics' is empty"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrics: {a: 1}\n",
       "'metrics' is a mapping"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrics: [3]\n",
       "metrics[0] is a single value"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrics: [{value: 1, rel_tol: 0}]\n",
       "metrics[0]: missing 'name'"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrics: [{name: a, value: x1, "
       "rel_tol: 0}]\n",
       "metrics[0] (a): metrics.0.value: expected a number, got 'x1'"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrics: [{name: a, value: 1, "
       "rel_tol: -1}]\n",
       "'rel_tol' is negative"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrics: [{name: a, value: 1, "
       "abs_tol: 0, rel_tl: 1}]\n",
       "metrics[0] (a): unknown key 'rel_tl'"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrics:\n  - {name: a, value: 1, "
       "abs_tol: 0}\n  - {name: a, value: 2, abs_tol: 0}\n",
       "name 'a' is used twice"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrcs: []\n",
       "unknown key 'metrcs'"},
      {"app: demo\ncase: t\nprovenance: {code: c, command: d}\nmetrics: [{name: a, value: .nan, "
       "abs_tol: 0}]\n",
       "'value' must be a finite number"},
      {"app: [demo]\ncase: t\nprovenance: {code: c, command: d}\nmetrics: [{name: a, value: 1, "
       "abs_tol: 0}]\n",
       "app: expected a string, but it is a sequence"},
  };
  for (auto &tc : cases) {
    Ref r;
    EXPECT_EQ(r.load_string(tc[0]), UM_ERR_CONFIG) << tc[0];
    EXPECT_NE(std::string(r.err).find("inline.ref.yaml"), std::string::npos) << r.err;
    EXPECT_NE(std::string(r.err).find(tc[1]), std::string::npos) << tc[0] << "\n -> " << r.err;
    EXPECT_EQ(r.r, nullptr);
  }
}

TEST(Validate, BadArguments) {
  Ref r;
  ASSERT_EQ(r.load(data("airfoil_good.ref.yaml")), UM_SUCCESS) << r.err;
  um_validation_result res;
  EXPECT_EQ(um_validate(nullptr, "airfoil", 0, nullptr, nullptr, nullptr, &res), UM_ERR_ARG);
  EXPECT_EQ(um_validate(r.r, "airfoil", 1, nullptr, nullptr, nullptr, &res), UM_ERR_ARG);
  EXPECT_EQ(um_validate(r.r, "airfoil", 0, nullptr, nullptr, nullptr, nullptr), UM_ERR_ARG);
  // no metrics at all: everything missing, report may be NULL
  EXPECT_EQ(um_validate(r.r, "airfoil", 0, nullptr, nullptr, nullptr, &res), UM_ERR_VALIDATION);
  EXPECT_EQ(res.nmissing, 3);
  um_validation_result_free(&res);
  um_validation_result_free(&res);  // idempotent
}
