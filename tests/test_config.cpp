// Tests of the config reader (engine/src/io/config.c) through its C API.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "um/config.h"
}

#ifndef UM_TEST_DATA_DIR
#define UM_TEST_DATA_DIR "tests/data"
#endif

namespace {

std::string data(const char *name) {
  return std::string(UM_TEST_DATA_DIR) + "/config/" + name;
}

// Owns a config; fails the test with the message if loading fails.
struct Cfg {
  um_config *c = nullptr;
  char err[1024] = "";
  ~Cfg() { um_config_free(c); }
  int load_file(const std::string &p) {
    return um_config_load_file(p.c_str(), &c, err, sizeof err);
  }
  int load(const char *yaml, const char *name = "test") {
    return um_config_load_string(yaml, name, &c, err, sizeof err);
  }
};

std::string print(const um_config *c) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  um_config_print(c, f);
  fclose(f);
  std::string s(buf, len);
  free(buf);
  return s;
}

struct Unread {
  std::string key, origin, suggestion;
};
int collect(const char *key, const char *origin, const char *sugg, void *user) {
  static_cast<std::vector<Unread> *>(user)->push_back({key, origin, sugg ? sugg : ""});
  return 0;
}

}  // namespace

TEST(Config, LoadGoodFile) {
  Cfg c;
  ASSERT_EQ(c.load_file(data("good.yaml")), UM_SUCCESS) << c.err;
  char err[512];
  const char *s;
  int i, b;
  double d;
  ASSERT_EQ(um_config_get_string(c.c, "run.backend", "seq", &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "openmp");
  ASSERT_EQ(um_config_get_int(c.c, "run.block_size", 256, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 128);
  ASSERT_EQ(um_config_get_bool(c.c, "run.check_plans", 0, &b, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(b, 1);
  ASSERT_EQ(um_config_get_double(c.c, "run.tolerance", 0.0, &d, err, sizeof err), UM_SUCCESS);
  EXPECT_DOUBLE_EQ(d, 1.0e-12);
  ASSERT_EQ(um_config_get_string(c.c, "params.name", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "naca 0012");
  // sequences: size and items by index
  int n = -1;
  ASSERT_EQ(um_config_size(c.c, "mesh.dims", &n, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(n, 2);
  ASSERT_EQ(um_config_get_int(c.c, "mesh.dims.1", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 8);
  EXPECT_EQ(um_config_kind(c.c, "mesh.dims"), UM_CONFIG_SEQUENCE);
  EXPECT_EQ(um_config_kind(c.c, "mesh"), UM_CONFIG_MAPPING);
  EXPECT_EQ(um_config_kind(c.c, "mesh.I"), UM_CONFIG_SCALAR);
  EXPECT_EQ(um_config_kind(c.c, "mesh.K"), UM_CONFIG_ABSENT);
  // origins: file and line of the key
  char org[256];
  ASSERT_EQ(um_config_origin(c.c, "run.block_size", org, sizeof org), UM_SUCCESS);
  EXPECT_EQ(std::string(org), "file " + data("good.yaml") + ":4");
}

TEST(Config, DefaultsForAbsentAndNullKeys) {
  Cfg c;
  ASSERT_EQ(c.load("run:\n  backend:\n  name: ~\n"), UM_SUCCESS) << c.err;
  char err[512];
  const char *s;
  int i;
  EXPECT_EQ(um_config_get_int(c.c, "run.block_size", 256, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 256);
  EXPECT_EQ(um_config_get_int(c.c, "nothing.here.at_all", 7, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 7);
  EXPECT_EQ(um_config_get_string(c.c, "run.backend", "auto", &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "auto");  // `backend:` is null -> default
  EXPECT_EQ(um_config_get_string(c.c, "run.name", "x", &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "x");
  EXPECT_EQ(um_config_kind(c.c, "run.name"), UM_CONFIG_NULL);
  EXPECT_TRUE(um_config_has(c.c, "run.name"));
  EXPECT_FALSE(um_config_has(c.c, "run.other"));
  // a quoted empty string is a value, not null
  ASSERT_EQ(um_config_set(c.c, "run.name", "''", "--set", err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(um_config_get_string(c.c, "run.name", "x", &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "");
  // defaults used are listed by um_config_print
  std::string p = print(c.c);
  EXPECT_NE(p.find("run.block_size"), std::string::npos) << p;
  EXPECT_NE(p.find("[default]"), std::string::npos) << p;
}

TEST(Config, MissingFileIsIoErrorNamingPath) {
  Cfg c;
  EXPECT_EQ(c.load_file("/nonexistent/dir/run.yaml"), UM_ERR_IO);
  EXPECT_EQ(c.c, nullptr);
  EXPECT_NE(std::string(c.err).find("/nonexistent/dir/run.yaml"), std::string::npos) << c.err;
}

TEST(Config, MalformedYamlReportsLineAndColumn) {
  Cfg c;
  EXPECT_EQ(c.load_file(data("malformed.yaml")), UM_ERR_CONFIG);
  EXPECT_EQ(c.c, nullptr);
  std::string e = c.err;
  EXPECT_NE(e.find(data("malformed.yaml") + ":4:"), std::string::npos) << e;
  EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << e;

  Cfg d;  // unclosed flow sequence, libyaml's text is passed on
  EXPECT_EQ(d.load("a: 1\nb: [1, 2\nc: 3\n", "inline"), UM_ERR_CONFIG);
  EXPECT_NE(std::string(d.err).find("inline:"), std::string::npos) << d.err;
  EXPECT_NE(std::string(d.err).find("flow sequence"), std::string::npos) << d.err;
}

TEST(Config, StructuralErrors) {
  const char *cases[][2] = {
      {"- a\n- b\n", "top level"},       // not a mapping
      {"just a scalar\n", "top level"},  // not a mapping
      {"run:\n  a: 1\n  a: 2\n", "duplicate key 'a'"},
      {"run.backend: seq\n", "contains '.'"},
      {"base: &b {x: 1}\nother: *b\n", "alias"},
      {"run: {iterations: !foo 2}\n", "YAML tag '!foo' is not supported"},      // a local tag, dropped before
      {"mesh: {I: !!str 20}\n", "YAML tag '!!str' is not supported"},        // a core tag, on a value
      {"!!str run: {iterations: 2}\n", "YAML tag '!!str' is not supported"},  // on a key
      {"run: !!map {iterations: 2}\n", "YAML tag '!!map' is not supported"},  // on a mapping
      {"l: !!seq [1, 2]\n", "YAML tag '!!seq' is not supported"},             // on a sequence
      {"a: 1\n---\nb: 2\n", "more than one YAML document"},
      {"? [1, 2]\n: x\n", "key must be"},
  };
  for (auto &tc : cases) {
    Cfg c;
    EXPECT_EQ(c.load(tc[0]), UM_ERR_CONFIG) << tc[0];
    EXPECT_NE(std::string(c.err).find(tc[1]), std::string::npos) << tc[0] << " -> " << c.err;
    EXPECT_EQ(c.c, nullptr);
  }
  Cfg ok;  // empty documents are empty configs
  EXPECT_EQ(ok.load(""), UM_SUCCESS) << ok.err;
  Cfg ok2;
  EXPECT_EQ(ok2.load("# only a comment\n"), UM_SUCCESS) << ok2.err;
}

TEST(Config, NestingDepthIsLimited) {
  std::string deep;
  for (int i = 0; i < 200; i++) deep += "[";
  Cfg c;
  EXPECT_EQ(c.load(("a: " + deep + "\n").c_str()), UM_ERR_CONFIG);
  EXPECT_NE(std::string(c.err).find("nested deeper"), std::string::npos) << c.err;
  std::string ok;
  for (int i = 0; i < 10; i++) ok += std::string(2 * i, ' ') + "k" + std::to_string(i) + ":\n";
  ok += std::string(20, ' ') + "leaf: 1\n";
  Cfg d;
  ASSERT_EQ(d.load(ok.c_str()), UM_SUCCESS) << d.err;
  int v = 0;
  char err[256];
  EXPECT_EQ(um_config_get_int(d.c, "k0.k1.k2.k3.k4.k5.k6.k7.k8.k9.leaf", 0, &v, err, sizeof err),
            UM_SUCCESS)
      << err;
  EXPECT_EQ(v, 1);
}

TEST(Config, GarbageNeverCrashes) {
  // Deterministic pseudo-random bytes and mutations of a valid file: every
  // input must either load or fail with a message, never crash or leak.
  const char *valid = "run:\n  backend: seq\n  list: [1, {a: 'x'}, \"y\"]\nmesh: {I: 4}\n";
  unsigned s = 12345u;
  auto rnd = [&s]() { return s = s * 1103515245u + 12345u, (s >> 16) & 0x7fff; };
  const char alphabet[] = ":-[]{}&*!|>'\"#%@`,?\n \t\\abc01.~";
  for (int it = 0; it < 3000; it++) {
    std::string in;
    if (it % 2) {
      in = valid;
      int nmut = 1 + rnd() % 4;
      for (int m = 0; m < nmut; m++)
        in[rnd() % in.size()] = alphabet[rnd() % (sizeof alphabet - 1)];
    } else {
      int len = rnd() % 64;
      for (int k = 0; k < len; k++)
        in.push_back(it % 4 == 0 ? (char)(1 + rnd() % 255)
                                 : alphabet[rnd() % (sizeof alphabet - 1)]);
    }
    Cfg c;
    int rc = c.load(in.c_str(), "fuzz");
    if (rc == UM_SUCCESS) {
      ASSERT_NE(c.c, nullptr);
      print(c.c);  // also exercise printing and the unread walk
      um_config_unread(c.c, nullptr, nullptr);
    } else {
      EXPECT_EQ(rc, UM_ERR_CONFIG) << in;
      EXPECT_GT(std::strlen(c.err), 0u);
    }
  }
}

TEST(Config, TypedGetterErrorsNameKeyAndOrigin) {
  Cfg c;
  ASSERT_EQ(c.load_file(data("bad_int.yaml")), UM_SUCCESS) << c.err;
  char err[512];
  int i = -1;
  EXPECT_EQ(um_config_get_int(c.c, "run.block_size", 256, &i, err, sizeof err), UM_ERR_CONFIG);
  std::string e = err;
  EXPECT_NE(e.find("run.block_size: expected an integer, got '12x' (from file " +
                   data("bad_int.yaml") + ":3)"),
            std::string::npos)
      << e;

  Cfg d;
  ASSERT_EQ(d.load("a:\n  m: {x: 1}\n  f: 1.5\n  b: maybe\n  big: 99999999999\n  d: 1.0e\n", "t"),
            UM_SUCCESS);
  EXPECT_EQ(um_config_get_int(d.c, "a.m", 0, &i, err, sizeof err), UM_ERR_CONFIG);  // mapping
  EXPECT_NE(std::string(err).find("a.m: expected an integer, but it is a mapping (from t:2)"),
            std::string::npos)
      << err;
  EXPECT_EQ(um_config_get_int(d.c, "a.f", 0, &i, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("got '1.5'"), std::string::npos) << err;
  EXPECT_EQ(um_config_get_int(d.c, "a.big", 0, &i, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("a.big"), std::string::npos) << err;
  long long ll = 0;
  EXPECT_EQ(um_config_get_long(d.c, "a.big", 0, &ll, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(ll, 99999999999LL);
  int b = -1;
  EXPECT_EQ(um_config_get_bool(d.c, "a.b", 0, &b, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("a.b: expected true or false, got 'maybe' (from t:4)"),
            std::string::npos)
      << err;
  double x;
  EXPECT_EQ(um_config_get_double(d.c, "a.d", 0, &x, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("a.d: expected a number, got '1.0e' (from t:6)"),
            std::string::npos)
      << err;
  // going through a scalar is an error, not a silent default
  EXPECT_EQ(um_config_get_int(d.c, "a.f.x", 0, &i, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("'a.f' is a single value"), std::string::npos) << err;
  // malformed keys are programming errors
  EXPECT_EQ(um_config_get_int(d.c, "a..f", 0, &i, err, sizeof err), UM_ERR_ARG);
  EXPECT_EQ(um_config_get_int(d.c, "", 0, &i, err, sizeof err), UM_ERR_ARG);
}

TEST(Config, ParsesNumbersAndBooleans) {
  Cfg c;
  ASSERT_EQ(c.load("i: [-42, '+7', 0x1F]\nd: [1.5e3, .inf, -.inf, .nan, -2]\n"
                   "b: [true, False, YES, no, on, OFF, 1, 0]\n"),
            UM_SUCCESS)
      << c.err;
  char err[256];
  int i;
  const int ie[] = {-42, 7, 31};
  for (int k = 0; k < 3; k++) {
    ASSERT_EQ(um_config_get_int(c.c, ("i." + std::to_string(k)).c_str(), 0, &i, err, sizeof err),
              UM_SUCCESS)
        << err;
    EXPECT_EQ(i, ie[k]);
  }
  double d;
  ASSERT_EQ(um_config_get_double(c.c, "d.0", 0, &d, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(d, 1500.0);
  ASSERT_EQ(um_config_get_double(c.c, "d.1", 0, &d, err, sizeof err), UM_SUCCESS);
  EXPECT_TRUE(std::isinf(d) && d > 0);
  ASSERT_EQ(um_config_get_double(c.c, "d.2", 0, &d, err, sizeof err), UM_SUCCESS);
  EXPECT_TRUE(std::isinf(d) && d < 0);
  ASSERT_EQ(um_config_get_double(c.c, "d.3", 0, &d, err, sizeof err), UM_SUCCESS);
  EXPECT_TRUE(std::isnan(d));
  ASSERT_EQ(um_config_get_double(c.c, "d.4", 0, &d, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(d, -2.0);
  const int be[] = {1, 0, 1, 0, 1, 0, 1, 0};
  for (int k = 0; k < 8; k++) {
    int b = -1;
    ASSERT_EQ(um_config_get_bool(c.c, ("b." + std::to_string(k)).c_str(), 0, &b, err, sizeof err),
              UM_SUCCESS)
        << err;
    EXPECT_EQ(b, be[k]) << k;
  }
}

TEST(Config, ChoiceErrorsListAllowedValues) {
  Cfg c;
  ASSERT_EQ(c.load_file(data("bad_int.yaml")), UM_SUCCESS) << c.err;
  static const char *const backends[] = {"auto", "seq", "openmp", "cuda"};
  char err[512];
  int idx = 99;
  EXPECT_EQ(um_config_get_choice(c.c, "run.backend", "auto", backends, 4, &idx, err, sizeof err),
            UM_ERR_CONFIG);
  std::string e = err;
  EXPECT_NE(e.find("run.backend: unknown value 'cuad'; expected one of: auto, seq, openmp, cuda"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("file " + data("bad_int.yaml") + ":2"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'cuda'?"), std::string::npos) << e;

  ASSERT_EQ(um_config_set(c.c, "run.backend", "OpenMP", "--set", err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(um_config_get_choice(c.c, "run.backend", "auto", backends, 4, &idx, err, sizeof err),
            UM_SUCCESS)
      << err;
  EXPECT_EQ(idx, 2);  // case-insensitive
  EXPECT_EQ(um_config_get_choice(c.c, "run.strategy", "seq", backends, 4, &idx, err, sizeof err),
            UM_SUCCESS);
  EXPECT_EQ(idx, 1);  // absent -> default's index
  EXPECT_EQ(um_config_get_choice(c.c, "run.strategy", "bogus", backends, 4, &idx, err, sizeof err),
            UM_ERR_ARG);
}

TEST(Config, PrecedenceFileThenEnvThenSet) {
  Cfg c;
  ASSERT_EQ(c.load_file(data("good.yaml")), UM_SUCCESS) << c.err;
  char err[512];
  // UM_OPTIONS-style string overrides the file ...
  ASSERT_EQ(um_config_apply_options_string(c.c, "run.backend=seq  mesh.I=40 run.new='a b'",
                                           "UM_OPTIONS", err, sizeof err),
            UM_SUCCESS)
      << err;
  // ... and --set overrides UM_OPTIONS
  ASSERT_EQ(um_config_set(c.c, "mesh.I", "80", "--set", err, sizeof err), UM_SUCCESS) << err;
  const char *s;
  int i;
  ASSERT_EQ(um_config_get_string(c.c, "run.backend", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "seq");
  ASSERT_EQ(um_config_get_int(c.c, "mesh.I", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 80);
  ASSERT_EQ(um_config_get_int(c.c, "mesh.J", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 10);  // untouched: still from the file
  ASSERT_EQ(um_config_get_string(c.c, "run.new", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "a b");
  char org[256];
  um_config_origin(c.c, "run.backend", org, sizeof org);
  EXPECT_STREQ(org, "UM_OPTIONS");
  um_config_origin(c.c, "mesh.I", org, sizeof org);
  EXPECT_STREQ(org, "--set");
  um_config_origin(c.c, "mesh.J", org, sizeof org);
  EXPECT_EQ(std::string(org), "file " + data("good.yaml") + ":9");

  // print: file order kept (an overridden key stays where the file had it), with origins
  std::string p = print(c.c);
  size_t pb = p.find("run.backend"), pi = p.find("mesh.I"), pn = p.find("run.new");
  ASSERT_NE(pb, std::string::npos);
  ASSERT_NE(pi, std::string::npos);
  ASSERT_NE(pn, std::string::npos);
  EXPECT_LT(pb, pi) << p;
  EXPECT_LT(pb, pn) << p;
  EXPECT_NE(p.find("[UM_OPTIONS]"), std::string::npos) << p;
  EXPECT_NE(p.find("[--set]"), std::string::npos) << p;
  EXPECT_NE(p.find("mesh.dims"), std::string::npos) << p;
  EXPECT_NE(p.find("[4, 8]"), std::string::npos) << p;
}

TEST(Config, DefaultsMergedUnderFileAndEnvVariable) {
  Cfg def, file;
  ASSERT_EQ(
      def.load("run: {backend: auto, block_size: 256, verbose: 0}\nparams: ~\n", "default config"),
      UM_SUCCESS)
      << def.err;
  ASSERT_EQ(file.load_file(data("good.yaml")), UM_SUCCESS) << file.err;
  char err[512];
  ASSERT_EQ(um_config_merge(def.c, file.c, err, sizeof err), UM_SUCCESS) << err;
  setenv("UM_TEST_OPTIONS_VAR", "run.verbose=2", 1);
  ASSERT_EQ(um_config_apply_env(def.c, "UM_TEST_OPTIONS_VAR", err, sizeof err), UM_SUCCESS) << err;
  unsetenv("UM_TEST_OPTIONS_VAR");
  EXPECT_EQ(um_config_apply_env(def.c, "UM_TEST_OPTIONS_VAR", err, sizeof err), UM_SUCCESS);
  int i;
  const char *s;
  ASSERT_EQ(um_config_get_int(def.c, "run.block_size", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 128);  // file beats default
  ASSERT_EQ(um_config_get_int(def.c, "run.verbose", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 2);  // env beats default
  ASSERT_EQ(um_config_get_string(def.c, "run.backend", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "openmp");
  char org[256];
  um_config_origin(def.c, "run.verbose", org, sizeof org);
  EXPECT_STREQ(org, "UM_TEST_OPTIONS_VAR");
  um_config_origin(def.c, "run.block_size", org, sizeof org);
  EXPECT_EQ(std::string(org), "file " + data("good.yaml") + ":4");
  // params was null in the defaults: the file's mapping replaces it
  int n = 0;
  ASSERT_EQ(um_config_keys(def.c, "params", &n, nullptr, 0, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(n, 3);
}

TEST(Config, OptionsStringQuotingAndErrors) {
  Cfg c;
  ASSERT_EQ(c.load("run: {backend: seq}\n"), UM_SUCCESS);
  char err[512];
  ASSERT_EQ(um_config_apply_options_string(c.c,
                                           " a.x=\"two words\" 'a.y=3 4' a.z='{not: a map}' "
                                           "a.w={p: 1} a.v=[1, 2] a.u=x=y a.t={q: 'x, y'} ",
                                           "UM_OPTIONS", err, sizeof err),
            UM_SUCCESS)
      << err;
  const char *s;
  ASSERT_EQ(um_config_get_string(c.c, "a.x", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "two words");
  ASSERT_EQ(um_config_get_string(c.c, "a.y", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "3 4");
  ASSERT_EQ(um_config_get_string(c.c, "a.z", nullptr, &s, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_STREQ(s, "{not: a map}");  // fully quoted value: a string
  EXPECT_EQ(um_config_kind(c.c, "a.w"), UM_CONFIG_MAPPING);
  int i;
  ASSERT_EQ(um_config_get_int(c.c, "a.w.p", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 1);
  ASSERT_EQ(um_config_get_int(c.c, "a.v.1", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 2);
  ASSERT_EQ(um_config_get_string(c.c, "a.u", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "x=y");
  ASSERT_EQ(um_config_get_string(c.c, "a.t.q", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "x, y");  // quotes inside a flow value are YAML's

  // malformed entries name themselves; nothing is applied
  EXPECT_EQ(um_config_apply_options_string(c.c, "run.backend=cuda run.block_size", "UM_OPTIONS",
                                           err, sizeof err),
            UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("UM_OPTIONS: entry 'run.block_size' has no '='"),
            std::string::npos)
      << err;
  ASSERT_EQ(um_config_get_string(c.c, "run.backend", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "seq");
  EXPECT_EQ(um_config_apply_options_string(c.c, "=3", "UM_OPTIONS", err, sizeof err),
            UM_ERR_CONFIG);
  EXPECT_EQ(um_config_apply_options_string(c.c, "a.q='open", "UM_OPTIONS", err, sizeof err),
            UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("unterminated"), std::string::npos) << err;
  EXPECT_EQ(um_config_apply_options_string(c.c, "a..b=1", "UM_OPTIONS", err, sizeof err),
            UM_ERR_CONFIG);
  EXPECT_EQ(um_config_apply_options_string(c.c, "a.b=[1,", "UM_OPTIONS", err, sizeof err),
            UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("a.b"), std::string::npos) << err;
  EXPECT_EQ(um_config_apply_options_string(c.c, "   ", "UM_OPTIONS", err, sizeof err), UM_SUCCESS);
  // --set style single assignment keeps spaces
  ASSERT_EQ(um_config_set_assignment(c.c, "run.title=a b  c", "--set", err, sizeof err),
            UM_SUCCESS);
  ASSERT_EQ(um_config_get_string(c.c, "run.title", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "a b  c");
  EXPECT_EQ(um_config_set_assignment(c.c, "run.title", "--set", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("'run.title' has no '='"), std::string::npos) << err;
}

TEST(Config, SetRefusesChangesOfKind) {
  Cfg c;
  ASSERT_EQ(c.load("mesh:\n  I: 4\n  dims: [1, 2]\nrun: {backend: seq}\n", "f"), UM_SUCCESS);
  char err[512];
  EXPECT_EQ(um_config_set(c.c, "mesh", "40", "--set", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("mesh: cannot replace a mapping (from f:1)"), std::string::npos)
      << err;
  EXPECT_EQ(um_config_set(c.c, "mesh.I.x", "1", "--set", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("'mesh.I' is a single value"), std::string::npos) << err;
  EXPECT_EQ(um_config_set(c.c, "mesh.dims.5", "1", "--set", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_EQ(um_config_set(c.c, "mesh.dims", "3", "--set", err, sizeof err), UM_ERR_CONFIG);
  // allowed: sequence item, whole sequence, mapping merged key by key, new subtree
  EXPECT_EQ(um_config_set(c.c, "mesh.dims.1", "5", "--set", err, sizeof err), UM_SUCCESS) << err;
  int i;
  ASSERT_EQ(um_config_get_int(c.c, "mesh.dims.1", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 5);
  EXPECT_EQ(um_config_set(c.c, "mesh.dims", "[7, 8, 9]", "--set", err, sizeof err), UM_SUCCESS);
  int n;
  ASSERT_EQ(um_config_size(c.c, "mesh.dims", &n, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(um_config_set(c.c, "mesh", "{J: 6}", "--set", err, sizeof err), UM_SUCCESS) << err;
  ASSERT_EQ(um_config_get_int(c.c, "mesh.I", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 4);
  ASSERT_EQ(um_config_get_int(c.c, "mesh.J", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 6);
  EXPECT_EQ(um_config_set(c.c, "a.b.c.d", "deep", "--set", err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(um_config_kind(c.c, "a.b.c"), UM_CONFIG_MAPPING);
}

TEST(Config, UnreadKeysAreReportedWithSuggestions) {
  Cfg c;
  ASSERT_EQ(c.load_file(data("typo.yaml")), UM_SUCCESS) << c.err;
  char err[256];
  const char *s;
  int i;
  ASSERT_EQ(um_config_get_string(c.c, "run.backend", "auto", &s, err, sizeof err), UM_SUCCESS);
  ASSERT_EQ(um_config_get_int(c.c, "run.block_size", 256, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 256);  // the misspelt key did not set it
  std::vector<Unread> u;
  EXPECT_EQ(um_config_unread(c.c, collect, &u), 2);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].key, "run.blok_size");
  EXPECT_EQ(u[0].origin, "file " + data("typo.yaml") + ":3");
  EXPECT_EQ(u[0].suggestion, "run.block_size");
  EXPECT_EQ(u[1].key, "mesh.I");
  EXPECT_EQ(u[1].suggestion, "");

  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  EXPECT_EQ(um_config_warn_unread(c.c, f), 2);
  fclose(f);
  std::string w(buf, len);
  free(buf);
  EXPECT_NE(w.find("unknown key 'run.blok_size' (file " + data("typo.yaml") + ":3) was never read"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("did you mean 'run.block_size'?"), std::string::npos) << w;

  // reading, or marking a subtree read, clears the warning
  ASSERT_EQ(um_config_get_int(c.c, "mesh.I", 0, &i, err, sizeof err), UM_SUCCESS);
  ASSERT_EQ(um_config_mark_read(c.c, "run", err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(um_config_unread(c.c, nullptr, nullptr), 0);
}

// Issue 26: the suggestion comes from every key a getter asked for, present
// and read ones included (run.block_size set in the file, run.blocksize from
// --set), not only the absent keys whose defaults were used.
TEST(Config, UnreadKeySuggestionFromAKeyThatWasRead) {
  Cfg c;
  ASSERT_EQ(c.load("run: {block_size: 64, backend: seq}\n"), UM_SUCCESS) << c.err;
  char err[256];
  ASSERT_EQ(um_config_set_assignment(c.c, "run.blocksize=128", "--set", err, sizeof err), UM_SUCCESS) << err;
  ASSERT_EQ(um_config_set_assignment(c.c, "params.zzz=1", "--set", err, sizeof err), UM_SUCCESS) << err;
  int i;
  const char *s;
  ASSERT_EQ(um_config_get_int(c.c, "run.block_size", 256, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 64);
  ASSERT_EQ(um_config_get_string(c.c, "run.backend", "auto", &s, err, sizeof err), UM_SUCCESS);
  std::vector<Unread> u;
  EXPECT_EQ(um_config_unread(c.c, collect, &u), 2);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].key, "run.blocksize");
  EXPECT_EQ(u[0].origin, "--set");
  EXPECT_EQ(u[0].suggestion, "run.block_size");
  EXPECT_EQ(u[1].key, "params.zzz");
  EXPECT_EQ(u[1].suggestion, "");  // nothing read is close
}

// um_config_closest: the same rule as the unread keys' suggestion, over a table of keys (umrun --sweep, --suite --set)
TEST(Config, ClosestKeyOfATable) {
  const char *keys[] = {"run.block_size", "run.backend", "params.tolerance"};
  const char *s = um_config_closest("run.blok_size", keys, 3);
  ASSERT_NE(s, nullptr);
  EXPECT_STREQ(s, "run.block_size");
  s = um_config_closest("params.toleranc", keys, 3);
  ASSERT_NE(s, nullptr);
  EXPECT_STREQ(s, "params.tolerance");
  EXPECT_EQ(um_config_closest("params.zzz", keys, 3), nullptr); // nothing close
  EXPECT_EQ(um_config_closest("run.backend", keys, 3), nullptr); // the key itself: no suggestion
  EXPECT_EQ(um_config_closest("run.blok_size", nullptr, 0), nullptr);
}

TEST(Config, KeysOfAMappingForAppParams) {
  Cfg c;
  ASSERT_EQ(c.load_file(data("good.yaml")), UM_SUCCESS) << c.err;
  char err[256];
  int n = -1;
  ASSERT_EQ(um_config_keys(c.c, "params", &n, nullptr, 0, err, sizeof err), UM_SUCCESS);
  ASSERT_EQ(n, 3);
  std::vector<const char *> k(n);
  ASSERT_EQ(um_config_keys(c.c, "params", &n, k.data(), n, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(k[0], "gam");
  EXPECT_STREQ(k[1], "name");
  EXPECT_STREQ(k[2], "iters");
  const char *two[2];
  ASSERT_EQ(um_config_keys(c.c, "", &n, two, 2, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(n, 3);  // total reported even if cap is smaller
  EXPECT_STREQ(two[0], "run");
  EXPECT_STREQ(two[1], "mesh");
  EXPECT_EQ(um_config_keys(c.c, "nothing", &n, nullptr, 0, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(n, 0);
  EXPECT_EQ(um_config_keys(c.c, "mesh.I", &n, nullptr, 0, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("mesh.I: expected a mapping"), std::string::npos) << err;
  EXPECT_EQ(um_config_keys(c.c, "mesh.dims", &n, nullptr, 0, err, sizeof err), UM_ERR_CONFIG);
  // listing does not mark anything read
  EXPECT_EQ(um_config_unread(c.c, nullptr, nullptr), 11);
}

TEST(Config, WriteYamlRoundTrips) {
  Cfg c;
  ASSERT_EQ(c.load_file(data("good.yaml")), UM_SUCCESS) << c.err;
  char err[256];
  ASSERT_EQ(um_config_set(c.c, "run.note", "'has: colon # and hash'", "--set", err, sizeof err),
            UM_SUCCESS);
  ASSERT_EQ(um_config_set(c.c, "run.empty", "", "--set", err, sizeof err), UM_SUCCESS);
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ASSERT_EQ(um_config_write_yaml(c.c, f, err, sizeof err), UM_SUCCESS) << err;
  fclose(f);
  std::string y(buf, len);
  free(buf);
  Cfg d;
  ASSERT_EQ(d.load(y.c_str(), "dump"), UM_SUCCESS) << d.err << "\n" << y;
  const char *s;
  ASSERT_EQ(um_config_get_string(d.c, "run.note", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "has: colon # and hash");
  ASSERT_EQ(um_config_get_string(d.c, "params.name", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "naca 0012");
  EXPECT_EQ(um_config_kind(d.c, "run.empty"), UM_CONFIG_NULL);
  int i;
  ASSERT_EQ(um_config_get_int(d.c, "mesh.dims.1", 0, &i, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(i, 8);
}

TEST(Config, NullArgumentsAreArgErrors) {
  char err[128];
  um_config *c = nullptr;
  EXPECT_EQ(um_config_load_file(nullptr, &c, err, sizeof err), UM_ERR_ARG);
  EXPECT_EQ(um_config_load_string(nullptr, "x", &c, err, sizeof err), UM_ERR_ARG);
  EXPECT_EQ(um_config_load_string("a: 1", "x", nullptr, err, sizeof err), UM_ERR_ARG);
  EXPECT_EQ(um_config_set(nullptr, "a", "1", nullptr, err, sizeof err), UM_ERR_ARG);
  int i;
  EXPECT_EQ(um_config_get_int(nullptr, "a", 0, &i, err, sizeof err), UM_ERR_ARG);
  EXPECT_EQ(um_config_load_string("a: 1", "x", &c, nullptr, 0), UM_SUCCESS);  // no err buffer
  EXPECT_EQ(um_config_get_int(c, "a.b", 0, &i, nullptr, 0), UM_ERR_CONFIG);
  um_config_free(c);
  um_config_free(nullptr);
}

// ---- limits: configs parse in linear time, with a size limit; messages say what is wrong -----------

#include <chrono>
#include <fstream>

#include "test_files.hpp"

namespace {
using umtest::has;
using umtest::TempDir;
}  // namespace

TEST(ConfigLimits, LargeConfigsParseInLinearTime) {
  // 300,000 keys in one mapping: the quadratic duplicate check took minutes
  // (80,000 keys: 11 s); linear takes well under a second. The bound is generous
  // (a complexity check, not a benchmark).
  std::string y;
  y.reserve(300000 * 16);
  for (int i = 0; i < 300000; i++) y += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  um_config *cfg = nullptr;
  char err[1024] = "";
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(um_config_load_string(y.c_str(), "big", &cfg, err, sizeof err), UM_SUCCESS) << err;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 30.0);
  um_config_free(cfg);
  // a duplicate is still found, wherever it is
  y += "k123456: again\n";
  EXPECT_EQ(um_config_load_string(y.c_str(), "big", &cfg, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "duplicate key 'k123456' (first given at line 123457)")) << err;
}

TEST(ConfigLimits, ConfigsOverTheSizeLimitAreRefusedWithAClearMessage) {
  TempDir t("cfgsize");
  const std::string path = t / "huge.yaml";
  {
    std::ofstream o(path);
    std::string line(1023, '#');
    for (int i = 0; i < (UM_CONFIG_MAX_BYTES >> 10) + 1; i++) o << line << "\n";
  }
  um_config *cfg = nullptr;
  char err[1024] = "";
  EXPECT_EQ(um_config_load_file(path.c_str(), &cfg, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "larger than")) << err;
  EXPECT_EQ(cfg, nullptr);
}

TEST(ConfigLimits, AYamlTabGetsAHint) {
  um_config *cfg = nullptr;
  char err[1024] = "";
  EXPECT_EQ(um_config_load_string("run:\n\tbackend: seq\n", "tabbed.yaml", &cfg, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_TRUE(has(err, "tab")) << err;
  EXPECT_TRUE(has(err, "tabbed.yaml:2")) << err;
}
