// The config layer's inputs (driver/src/config_*.c): what --set and UM_OPTIONS may hold, numbers read
// strictly, unknown empty mappings, merge keys, and YAML written that loads again.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" {
#include "um/config.h"
}

namespace {

struct Cfg {
  um_config *c = nullptr;
  char err[1024] = "";
  explicit Cfg(const char *yaml) {
    EXPECT_EQ(um_config_load_string(yaml, "test", &c, err, sizeof err), UM_SUCCESS) << err;
  }
  ~Cfg() { um_config_free(c); }
};

int collect(const char *key, const char *origin, const char *sugg, void *user) {
  (void)origin;
  static_cast<std::vector<std::string> *>(user)->push_back(std::string(key) + (sugg ? std::string("~") + sugg : ""));
  return 0;
}

std::string yaml_of(const um_config *c) {
  char *buf = nullptr, err[256];
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  EXPECT_EQ(um_config_write_yaml(c, f, err, sizeof err), UM_SUCCESS) << err;
  fclose(f);
  std::string s(buf, len);
  free(buf);
  return s;
}

}  // namespace

// UM_OPTIONS: only a value that starts with '{' or '[' runs to its closing bracket
TEST(ConfigInput, BracketsGroupSpacesOnlyAtAValuesStart) {
  Cfg c("run: {backend: seq}\n");
  char err[512];
  ASSERT_EQ(um_config_apply_options_string(c.c, "output.dir=a{b run.iterations=5 a.l=x[y", "UM_OPTIONS", err,
                                           sizeof err),
            UM_SUCCESS)
      << err;
  const char *s = nullptr;
  ASSERT_EQ(um_config_get_string(c.c, "output.dir", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "a{b");
  int n = 0;
  ASSERT_EQ(um_config_get_int(c.c, "run.iterations", 0, &n, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(n, 5);
  ASSERT_EQ(um_config_get_string(c.c, "a.l", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "x[y");
  ASSERT_EQ(um_config_apply_options_string(c.c, "a.m={p: [1, 2], q: 3} a.n=4", "UM_OPTIONS", err, sizeof err),
            UM_SUCCESS)
      << err;
  EXPECT_EQ(um_config_kind(c.c, "a.m"), UM_CONFIG_MAPPING);
  EXPECT_EQ(um_config_apply_options_string(c.c, "run.iterations=7 a.o={p: 1 a.q=2", "UM_OPTIONS", err, sizeof err),
            UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("UM_OPTIONS: unclosed '{' or '['"), std::string::npos) << err;
  ASSERT_EQ(um_config_get_int(c.c, "run.iterations", 0, &n, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(n, 5);  // nothing of the refused string applied
}

// --set and UM_OPTIONS hold what a config file may: UTF-8 text without control characters
TEST(ConfigInput, ValuesMustBeUtf8WithoutControlCharacters) {
  Cfg c("run: {backend: seq}\n");
  char err[512];
  EXPECT_EQ(um_config_set_assignment(c.c, "run.label=a\xff" "b", "--set", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("--set: run.label: the value holds the byte 0xFF, which is not UTF-8, at offset 1"),
            std::string::npos)
      << err;
  EXPECT_EQ(um_config_apply_options_string(c.c, "params.x=a\x01z", "UM_OPTIONS", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("UM_OPTIONS: params.x: the value holds the character U+0001"), std::string::npos)
      << err;
  EXPECT_EQ(um_config_apply_options_string(c.c, "params.y='a\x7fz'", "UM_OPTIONS", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_EQ(um_config_set(c.c, "run.z", "\xed\xa0\x80", "--set", err, sizeof err), UM_ERR_CONFIG);  // a surrogate
  EXPECT_EQ(um_config_set(c.c, "run.w", "\xc0\xaf", "--set", err, sizeof err), UM_ERR_CONFIG);      // overlong
  EXPECT_EQ(um_config_set_assignment(c.c, "run.\xfe=1", "--set", err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("a key holds the byte 0xFE"), std::string::npos) << err;
  ASSERT_EQ(um_config_set(c.c, "run.label", "\xc3\xa9t\xc3\xa9 \xe2\x80\x94 ok\tx", "--set", err, sizeof err),
            UM_SUCCESS)
      << err;
  Cfg again(yaml_of(c.c).c_str());  // what is accepted is written and read back
  const char *s = nullptr;
  ASSERT_EQ(um_config_get_string(again.c, "run.label", nullptr, &s, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(s, "\xc3\xa9t\xc3\xa9 \xe2\x80\x94 ok\tx");
}

// an empty mapping or sequence nobody asked for is an unknown key; one below keys that were read is not
TEST(ConfigInput, EmptyMappingsAndSequencesAreCheckedForUnknownKeys) {
  Cfg c("params: {tolerance: 1.0e-3}\nmesh: {}\nsweep: []\n");
  char err[256];
  ASSERT_EQ(um_config_set(c.c, "foo", "{}", "--set", err, sizeof err), UM_SUCCESS) << err;
  ASSERT_EQ(um_config_set(c.c, "params.toleranse", "[]", "--set", err, sizeof err), UM_SUCCESS) << err;
  double d = 0;
  int n = 0;
  ASSERT_EQ(um_config_get_double(c.c, "params.tolerance", 0, &d, err, sizeof err), UM_SUCCESS);
  ASSERT_EQ(um_config_get_int(c.c, "mesh.N", 16, &n, err, sizeof err), UM_SUCCESS);  // mesh: {} is the app's
  ASSERT_EQ(um_config_size(c.c, "sweep", &n, err, sizeof err), UM_SUCCESS);        // sweep: [] was read
  std::vector<std::string> keys;
  EXPECT_EQ(um_config_unread(c.c, collect, &keys), 2);
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0], "params.toleranse~params.tolerance");  // in the tree's order
  EXPECT_EQ(keys[1], "foo");
}

// numbers are read strictly: one base prefix, no value silently below the doubles
TEST(ConfigInput, NumbersAreReadStrictly) {
  Cfg c("a: 0x0x3\nb: 0x1F\nc: 1e-400\nd: 4.9e-324\ne: 0e-400\nf: 1.0e-300\ng: -0x10\nh: 0x\ni: 12 3\n");
  char err[512];
  long long l = 0;
  EXPECT_EQ(um_config_get_long(c.c, "a", 0, &l, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("a: expected an integer, got '0x0x3'"), std::string::npos) << err;
  ASSERT_EQ(um_config_get_long(c.c, "b", 0, &l, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(l, 31);
  ASSERT_EQ(um_config_get_long(c.c, "g", 0, &l, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(l, -16);
  EXPECT_EQ(um_config_get_long(c.c, "h", 0, &l, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_EQ(um_config_get_long(c.c, "i", 0, &l, err, sizeof err), UM_ERR_CONFIG);
  double d = 1;
  EXPECT_EQ(um_config_get_double(c.c, "c", 0, &d, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("c: expected a number in double range, got '1e-400' (from test:3)"),
            std::string::npos)
      << err;
  EXPECT_EQ(um_config_get_double(c.c, "d", 0, &d, err, sizeof err), UM_ERR_CONFIG);  // a denormal
  ASSERT_EQ(um_config_get_double(c.c, "e", 1, &d, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(d, 0.0);
  ASSERT_EQ(um_config_get_double(c.c, "f", 0, &d, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(d, 1.0e-300);
}

// merge keys are refused as aliases are; a key YAML would read as null, a boolean or a number is written quoted
TEST(ConfigInput, MergeKeysRefusedAndOddKeysWrittenQuoted) {
  um_config *c = nullptr;
  char err[512];
  EXPECT_EQ(um_config_load_string("params:\n  <<: {tolerance: 1}\n", "m.yaml", &c, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::string(err).find("m.yaml:2:3: merge key '<<' is not supported"), std::string::npos) << err;
  ASSERT_EQ(um_config_load_string("params:\n  '<<': 1\n", "q.yaml", &c, err, sizeof err), UM_SUCCESS) << err;
  um_config_free(c);
  Cfg k("a: {'~': 1, 'yes': 2, '12': 3, '1e3': 4, 'null': 5, plain: 6}\n");
  const std::string y = yaml_of(k.c);
  Cfg again(y.c_str());
  int n = 0;
  const char *const keys[] = {"a.~", "a.yes", "a.12", "a.1e3", "a.null", "a.plain"};
  for (int i = 0; i < 6; i++) {
    ASSERT_EQ(um_config_get_int(again.c, keys[i], 0, &n, err, sizeof err), UM_SUCCESS) << keys[i] << ": " << err;
    EXPECT_EQ(n, i + 1) << keys[i] << "\n" << y;
  }
}
