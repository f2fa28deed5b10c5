// Tests of validation references (engine/src/io/validate.c) through the C API.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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

// ---- fields: text files compared value by value ---------------------------------------------

namespace {

// A private temporary folder, removed with its files.
struct TmpDir {
  std::string path;
  TmpDir() {
    const char *t = getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/um_test_fields_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) path = buf.data();
  }
  ~TmpDir() {
    if (!path.empty()) std::filesystem::remove_all(path);
  }
  std::string write(const std::string &name, const std::string &text) const {
    std::string p = path + "/" + name;
    FILE *f = fopen(p.c_str(), "w");
    if (f) {
      fputs(text.c_str(), f);
      fclose(f);
    }
    return p;
  }
};

struct Compare {
  um_field_result res{};
  char err[1024] = "";
  int rc = -1;
  Compare(const TmpDir &d, const std::string &got, const std::string &ref, double rel_tol,
          double floor, int k = 5) {
    std::string g = d.write("got.txt", got), r = d.write("ref.txt", ref);
    rc = um_field_compare_files(g.c_str(), r.c_str(), rel_tol, floor, k, &res, err, sizeof err);
  }
  std::string msg() const { return res.message; }
};

std::string json_of(const um_ref *ref, const um_validation_result *res) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  um_validation_write_json(ref, res, f);
  fclose(f);
  std::string j(buf, len);
  free(buf);
  return j;
}

}  // namespace

TEST(ValidateFields, IdenticalFilesPass) {
  TmpDir d;
  ASSERT_FALSE(d.path.empty());
  const char *text = "1 2.5 abc\n-3e-5   0\t7\n\n0.125\n";
  Compare c(d, text, text, 0.0, 0.0);
  EXPECT_EQ(c.rc, UM_SUCCESS) << c.msg();
  EXPECT_EQ(c.res.pass, 1);
  EXPECT_EQ(c.res.ncompared, 7);
  EXPECT_EQ(c.res.nfailing, 0);
  EXPECT_EQ(c.res.nlines_got, 4);
  EXPECT_EQ(c.res.nlines_ref, 4);
  EXPECT_EQ(c.res.max_rel_err, 0.0);
  EXPECT_EQ(c.res.nworst, 0);
  // the same numbers in another spelling and spacing compare as numbers
  Compare s(d, "1.0 2.50 abc\n-0.00003 0.0 7e0\n\n1.25e-1\n", text, 0.0, 0.0);
  EXPECT_EQ(s.rc, UM_SUCCESS) << s.msg();
}

TEST(ValidateFields, ValueOffIsTheWorstWithLineAndColumn) {
  TmpDir d;
  const std::string ref = "1.0 2.0 3.0\n4.0 5.0 6.0\n7.0 8.0 9.0\n";
  // line 1 column 1 off by 1e-6 (passes), line 2 column 3 by 1e-3 (fails),
  // line 3 column 2 by 2e-4 (fails, less)
  const std::string got = "1.000001 2.0 3.0\n4.0 5.0 6.006\n7.0 8.0016 9.0\n";
  Compare c(d, got, ref, 1e-4, 0.0);
  EXPECT_EQ(c.rc, UM_ERR_VALIDATION) << c.msg();
  EXPECT_EQ(c.res.pass, 0);
  EXPECT_EQ(c.res.ncompared, 9);
  EXPECT_EQ(c.res.nfailing, 2);
  ASSERT_EQ(c.res.nworst, 3);
  EXPECT_EQ(c.res.worst[0].line, 2);
  EXPECT_EQ(c.res.worst[0].column, 3);
  EXPECT_EQ(c.res.worst[0].ref, 6.0);
  EXPECT_EQ(c.res.worst[0].got, 6.006);
  EXPECT_NEAR(c.res.worst[0].rel_err, 0.006 / 6.006, 1e-12);
  EXPECT_FALSE(c.res.worst[0].pass);
  EXPECT_EQ(c.res.worst[1].line, 3);
  EXPECT_EQ(c.res.worst[1].column, 2);
  EXPECT_EQ(c.res.worst[2].line, 1);  // the passing one comes last
  EXPECT_TRUE(c.res.worst[2].pass);
  EXPECT_NEAR(c.res.max_rel_err, 0.006 / 6.006, 1e-12);
  EXPECT_NE(c.msg().find("2 of 9 values"), std::string::npos) << c.msg();
  EXPECT_NE(c.msg().find("line 2, column 3: reference 6.0, got 6.006"), std::string::npos) << c.msg();
  // K bounds what is kept
  Compare one(d, got, ref, 1e-4, 0.0, 1);
  EXPECT_EQ(one.res.nworst, 1);
  EXPECT_EQ(one.res.worst[0].line, 2);
  // a looser tolerance passes
  Compare loose(d, got, ref, 1e-3, 0.0);
  EXPECT_EQ(loose.rc, UM_SUCCESS) << loose.msg();
}

TEST(ValidateFields, FloorBoundary) {
  TmpDir d;
  // max(|a|,|b|) = 3e-9: under a floor of 1e-8 both are noise; over 1e-10 the rel err is 2/3
  EXPECT_EQ(Compare(d, "1e-9\n", "3e-9\n", 1e-6, 1e-8).rc, UM_SUCCESS);
  EXPECT_EQ(Compare(d, "1e-9\n", "3e-9\n", 1e-6, 1e-10).rc, UM_ERR_VALIDATION);
  // exactly on the floor: passes (compared only when max > floor); zero against -zero too
  EXPECT_EQ(Compare(d, "0.5 -0\n", "0.25 0\n", 0.0, 0.5).rc, UM_SUCCESS);
  EXPECT_EQ(Compare(d, "0.5\n", "0.25\n", 0.0, 0.25).rc, UM_ERR_VALIDATION);
  // exactly on rel_tol: passes (values exact in binary: |0.75-1|/1 = 0.25)
  EXPECT_EQ(Compare(d, "0.75\n", "1\n", 0.25, 0.0).rc, UM_SUCCESS);
  EXPECT_EQ(Compare(d, "0.75\n", "1\n", std::nextafter(0.25, 0.0), 0.0).rc, UM_ERR_VALIDATION);
}

TEST(ValidateFields, LineCountMismatch) {
  TmpDir d;
  Compare c(d, "1\n2\n3\n", "1\n2\n", 0.0, 0.0);
  EXPECT_EQ(c.rc, UM_ERR_VALIDATION);
  EXPECT_EQ(c.res.nlines_got, 3);
  EXPECT_EQ(c.res.nlines_ref, 2);
  EXPECT_EQ(c.res.ncompared, 2);
  EXPECT_NE(c.msg().find("the run's file has 3 lines, the reference has 2"), std::string::npos) << c.msg();
  Compare e(d, "", "1\n", 0.0, 0.0);
  EXPECT_EQ(e.rc, UM_ERR_VALIDATION);
  EXPECT_NE(e.msg().find("has 0 lines, the reference has 1"), std::string::npos) << e.msg();
}

TEST(ValidateFields, FieldCountMismatchNamesTheLine) {
  TmpDir d;
  Compare c(d, "1 2 3\n4 5\n6 7 8\n9\n", "1 2 3\n4 5 6\n6 7 8\n9 1\n", 0.0, 0.0);
  EXPECT_EQ(c.rc, UM_ERR_VALIDATION);
  EXPECT_EQ(c.res.nbad_lines, 2);
  EXPECT_EQ(c.res.ncompared, 6);  // lines 1 and 3
  EXPECT_EQ(c.res.nfailing, 0);
  EXPECT_NE(c.msg().find("line 2: the run's file has 2 values, the reference has 3"), std::string::npos)
      << c.msg();
}

TEST(ValidateFields, NonNumericMismatchFails) {
  TmpDir d;
  Compare c(d, "abc 1.0 x\n", "abd 1.0 2\n", 1.0, 0.0);
  EXPECT_EQ(c.rc, UM_ERR_VALIDATION);
  EXPECT_EQ(c.res.nfailing, 2);
  ASSERT_EQ(c.res.nworst, 2);
  EXPECT_EQ(c.res.worst[0].column, 1);
  EXPECT_STREQ(c.res.worst[0].got_text, "abc");
  EXPECT_STREQ(c.res.worst[0].ref_text, "abd");
  EXPECT_TRUE(std::isinf(c.res.worst[0].rel_err));
  EXPECT_TRUE(std::isnan(c.res.worst[0].got));
  EXPECT_EQ(c.res.worst[1].column, 3);
  EXPECT_EQ(c.res.worst[1].ref, 2.0);
  // a number with trailing text is not a number
  EXPECT_EQ(Compare(d, "1.0x\n", "1.0\n", 1.0, 0.0).rc, UM_ERR_VALIDATION);
}

TEST(ValidateFields, NonFiniteOutputNeverPasses) {
  TmpDir d;
  EXPECT_EQ(Compare(d, "nan\n", "1.0\n", 1e9, 1e9).rc, UM_ERR_VALIDATION);
  EXPECT_EQ(Compare(d, "1.0\n", "nan\n", 1e9, 1e9).rc, UM_ERR_VALIDATION);
  EXPECT_EQ(Compare(d, "inf\n", "1e308\n", 1e9, 1e9).rc, UM_ERR_VALIDATION);
  EXPECT_EQ(Compare(d, "1e999\n", "1.0\n", 1e9, 1e9).rc, UM_ERR_VALIDATION);  // overflows to inf
  // even when the reference holds the same text (a reference with NaN is broken)
  Compare same(d, "1 nan\n", "1 nan\n", 1e9, 1e9);
  EXPECT_EQ(same.rc, UM_ERR_VALIDATION);
  ASSERT_EQ(same.res.nworst, 1);
  EXPECT_EQ(same.res.worst[0].column, 2);
  EXPECT_EQ(Compare(d, "-Infinity\n", "-Infinity\n", 1e9, 1e9).rc, UM_ERR_VALIDATION);
  // text that starts like "nan" but is not a number compares as text
  EXPECT_EQ(Compare(d, "name\n", "name\n", 0, 0).rc, UM_SUCCESS);
}

TEST(ValidateFields, LongLinesAndMissingFiles) {
  TmpDir d;
  std::string line;
  for (int i = 0; i < 50000; i++) line += std::to_string(i) + ".5 ";
  std::string bad = line;
  bad.replace(bad.find(" 49999.5"), 8, " 49999.6");
  Compare c(d, bad + "\n", line + "\n", 1e-9, 0.0);
  EXPECT_EQ(c.rc, UM_ERR_VALIDATION);
  EXPECT_EQ(c.res.ncompared, 50000);
  ASSERT_GE(c.res.nworst, 1);
  EXPECT_EQ(c.res.worst[0].column, 50000);

  um_field_result res;
  char err[512] = "";
  std::string ok = d.write("ok.txt", "1\n");
  std::string none = d.path + "/none.txt";
  EXPECT_EQ(um_field_compare_files(none.c_str(), ok.c_str(), 0, 0, 5, &res, err, sizeof err), UM_ERR_IO);
  EXPECT_NE(std::string(err).find("the run's field file '" + none + "'"), std::string::npos) << err;
  EXPECT_EQ(um_field_compare_files(ok.c_str(), none.c_str(), 0, 0, 5, &res, err, sizeof err), UM_ERR_IO);
  EXPECT_NE(std::string(err).find("reference field file"), std::string::npos) << err;
  EXPECT_EQ(um_field_compare_files(ok.c_str(), ok.c_str(), -1, 0, 5, &res, err, sizeof err), UM_ERR_ARG);
  EXPECT_EQ(um_field_compare_files(nullptr, ok.c_str(), 0, 0, 5, &res, err, sizeof err), UM_ERR_ARG);
}

TEST(ValidateFields, ReferenceSyntaxAndPaths) {
  TmpDir d;
  std::string gold = d.write("q.gold", "1 2\n");
  std::string sub = d.path + "/sub";
  std::filesystem::create_directory(sub);
  const std::string head = "app: demo\ncase: t\nprovenance: {code: c, command: d}\n";
  // fields only (no metrics) is a valid reference; relative file next to the yaml, absolute as is
  d.write("sub/r.ref.yaml", head + "fields:\n  - {name: q, file: ../q.gold, rel_tol: 1.0e-6, floor: 1.0e-9}\n"
                                   "  - {name: p, file: " + gold + ", rel_tol: 0}\n");
  Ref r;
  ASSERT_EQ(r.load(sub + "/r.ref.yaml"), UM_SUCCESS) << r.err;
  EXPECT_EQ(r.r->nmetrics, 0);
  ASSERT_EQ(r.r->nfields, 2);
  EXPECT_STREQ(r.r->fields[0].name, "q");
  EXPECT_STREQ(r.r->fields[0].file, "../q.gold");
  EXPECT_EQ(std::string(r.r->fields[0].path), sub + "/../q.gold");
  EXPECT_EQ(r.r->fields[0].rel_tol, 1e-6);
  EXPECT_EQ(r.r->fields[0].floor, 1e-9);
  EXPECT_EQ(r.r->fields[0].line, 5);
  EXPECT_EQ(std::string(r.r->fields[1].path), gold);
  EXPECT_EQ(r.r->fields[1].floor, 0.0);

  // a missing file is an error at load: the reference file, the field's index and name, the path tried
  d.write("sub/m.ref.yaml", head + "metrics: [{name: a, value: 1, abs_tol: 0}]\n"
                                   "fields: [{name: q, file: nope.gold, rel_tol: 0}]\n");
  Ref m;
  EXPECT_EQ(m.load(sub + "/m.ref.yaml"), UM_ERR_IO);
  std::string e = m.err;
  for (std::string s : {sub + "/m.ref.yaml:", std::string("fields[0] (q)"), sub + "/nope.gold"})
    EXPECT_NE(e.find(s), std::string::npos) << s << "\n -> " << e;
  EXPECT_EQ(m.r, nullptr);
  // a folder is not a file
  d.write("sub/f.ref.yaml", head + "fields: [{name: q, file: ., rel_tol: 0}]\n");
  Ref f;
  EXPECT_EQ(f.load(sub + "/f.ref.yaml"), UM_ERR_IO);
  EXPECT_NE(std::string(f.err).find("directory"), std::string::npos) << f.err;

  const std::string fg = "fields: [{name: q, file: " + gold;
  const std::string cases[][2] = {
      {fg + ", rel_tol: 0, rel_tl: 1}]\n", "fields[0] (q): unknown key 'rel_tl'; allowed keys are: name, file, rel_tol, floor"},
      {fg + "}]\n", "fields[0] (q): missing 'rel_tol'"},
      {fg + ", rel_tol: 0, floor: -1}]\n", "fields[0] (q): 'floor' is negative"},
      {"fields: [{file: " + gold + ", rel_tol: 0}]\n", "fields[0]: missing 'name'"},
      {"fields: [{name: q, rel_tol: 0}]\n", "fields[0] (q): missing 'file'"},
      {"fields: []\n", "'fields' is empty"},
      {"fields: {q: 1}\n", "'fields' is a mapping"},
      {fg + ", rel_tol: 0}, {name: q, file: " + gold + ", rel_tol: 0}]\n", "name 'q' is used twice"},
      {"metrics: []\n" + fg + ", rel_tol: 0}]\n", "'metrics' is empty"},
  };
  for (auto &tc : cases) {
    Ref b;
    std::string y = head + tc[0];
    EXPECT_EQ(b.load_string(y.c_str()), UM_ERR_CONFIG) << y;
    EXPECT_NE(std::string(b.err).find(tc[1]), std::string::npos) << y << "\n -> " << b.err;
    EXPECT_EQ(b.r, nullptr);
  }
}

TEST(ValidateFields, ValidateAppendsFieldsToTheResult) {
  TmpDir d;
  std::string gold = d.write("u.gold", "0.5 0.25\n1 2\n");
  std::string good = d.write("u.txt", "0.5 0.25\n1 2\n");
  std::string off = d.write("u_off.txt", "0.5 0.25\n1 2.5\n");
  d.write("r.ref.yaml", std::string(kHeader) + "  - {name: n, value: 4, abs_tol: 0}\n"
                        "fields:\n  - {name: u, file: u.gold, rel_tol: 1.0e-6}\n");
  Ref r;
  ASSERT_EQ(r.load(d.path + "/r.ref.yaml"), UM_SUCCESS) << r.err;
  auto run = [&](Result &v, double n, std::vector<const char *> names, std::vector<const char *> paths) {
    v.run(r.r, "demo", {"n"}, {n});
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = um_validate_fields(r.r, (int)names.size(), names.data(), paths.data(), f, &v.res);
    fclose(f);
    v.report.append(buf, len);
    free(buf);
    return rc;
  };
  {
    Result v;
    EXPECT_EQ(run(v, 4, {"u", "extra"}, {good.c_str(), good.c_str()}), UM_SUCCESS) << v.report;
    EXPECT_EQ(v.res.pass, 1);
    EXPECT_EQ(v.res.nfields, 1);
    EXPECT_EQ(v.res.nfields_pass, 1);
    EXPECT_EQ(v.res.nfields_extra, 1);
    EXPECT_EQ(v.res.fields[0].ncompared, 4);
    EXPECT_EQ(std::string(v.res.fields[0].got_path), good);
    for (const char *s : {"field", "max rel err", "PASS", "fields not in the reference (not checked): extra",
                          "validation PASSED: 1 of 1 metrics and 1 of 1 fields"})
      EXPECT_NE(v.report.find(s), std::string::npos) << s << "\n" << v.report;
    std::string j = json_of(r.r, &v.res);
    EXPECT_NE(j.find("\"fields\": [{\"name\": \"u\""), std::string::npos) << j;
    EXPECT_NE(j.find("\"compared\": 4, \"failing\": 0"), std::string::npos) << j;
  }
  {  // a value off: the field fails, the table shows the worst entry, JSON has it
    Result v;
    EXPECT_EQ(run(v, 4, {"u"}, {off.c_str()}), UM_ERR_VALIDATION) << v.report;
    EXPECT_EQ(v.res.pass, 0);
    EXPECT_EQ(v.res.nfail, 0);  // the metrics passed
    EXPECT_EQ(v.res.nfields_fail, 1);
    EXPECT_NE(v.report.find("line 2, column 2: reference 2, got 2.5, rel err 2.000e-01 FAIL"), std::string::npos)
        << v.report;
    EXPECT_NE(v.report.find("validation FAILED"), std::string::npos) << v.report;
    std::string j = json_of(r.r, &v.res);
    EXPECT_NE(j.find("\"worst\": [{\"line\": 2, \"column\": 2, \"ref\": 2, \"got\": 2.5, \"rel_err\": 0.2"),
              std::string::npos)
        << j;
    EXPECT_NE(j.find("\"pass\": false"), std::string::npos) << j;
  }
  {  // the run produced no field: missing, a failure; JSON writes null for what is unknown
    Result v;
    EXPECT_EQ(run(v, 4, {}, {}), UM_ERR_VALIDATION) << v.report;
    EXPECT_EQ(v.res.nfields_missing, 1);
    EXPECT_FALSE(v.res.fields[0].produced);
    EXPECT_NE(v.report.find("FAIL (not produced by the run)"), std::string::npos) << v.report;
    std::string j = json_of(r.r, &v.res);
    EXPECT_NE(j.find("\"file\": null"), std::string::npos) << j;
    EXPECT_NE(j.find("\"max_rel_err\": null"), std::string::npos) << j;
  }
  {  // metrics failing fail the whole even when the fields pass
    Result v;
    EXPECT_EQ(run(v, 5, {"u"}, {good.c_str()}), UM_ERR_VALIDATION) << v.report;
    EXPECT_EQ(v.res.nfields_pass, 1);
    EXPECT_EQ(v.res.pass, 0);
  }
  {  // a file the run registered but did not write fails its field
    Result v;
    std::string gone = d.path + "/gone.txt";
    EXPECT_EQ(run(v, 4, {"u"}, {gone.c_str()}), UM_ERR_VALIDATION) << v.report;
    EXPECT_NE(std::string(v.res.fields[0].message).find("cannot open the run's field file"), std::string::npos)
        << v.res.fields[0].message;
  }
  Result v;
  const char *n[] = {"u", "u"}, *p[] = {good.c_str(), good.c_str()};
  EXPECT_EQ(um_validate_fields(r.r, 2, n, p, nullptr, &v.res), UM_ERR_ARG);
  EXPECT_EQ(um_validate_fields(r.r, 1, nullptr, p, nullptr, &v.res), UM_ERR_ARG);
}
