// The runner's option table (umrun/options.c, issue 27): every runner key is
// declared once with its type, default, choices and range; the typed reads take
// them from the table and refuse a key that is not declared.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "options.h"
#include "um/config.h"
#include "um/um.h"

namespace {

struct Cfg {
  um_config *c = nullptr;
  explicit Cfg(const char *yaml) {
    char err[512];
    EXPECT_EQ(um_config_load_string(yaml, "test", &c, err, sizeof err), UM_SUCCESS) << err;
  }
  ~Cfg() { um_config_free(c); }
};

TEST(Options, UndeclaredKeyIsRefusedByEveryRead) {
  Cfg cfg("run: {not_declared: 3, blok_size: 64}\nmpi: {nothing: 1}\n");
  char err[512] = "";
  int i = 0;
  long long l = 0;
  double d = 0;
  const char *s = nullptr;
  um_config_kind_t k;
  EXPECT_EQ(umrun_opt_int(cfg.c, "run.not_declared", &i, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_NE(std::strstr(err, "'run.not_declared'"), nullptr) << err;
  EXPECT_NE(std::strstr(err, "umrun/options.c"), nullptr) << err;
  EXPECT_EQ(umrun_opt_int(cfg.c, "run.blok_size", &i, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_EQ(umrun_opt_long(cfg.c, "mpi.nothing", &l, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_EQ(umrun_opt_double(cfg.c, "run.compile_afterwards", &d, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_EQ(umrun_opt_bool(cfg.c, "output.hdf6", &i, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_EQ(umrun_opt_string(cfg.c, "validation.ref", &s, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_EQ(umrun_opt_choice(cfg.c, "run.layouts", &i, nullptr, err, sizeof err), UM_ERR_INTERNAL);
  const char *const list[] = {"a", "b"};
  EXPECT_EQ(umrun_opt_choice_in(cfg.c, "run.backends", list, 2, &i, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_EQ(umrun_opt_kind(cfg.c, "run.not_declared", &k, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_NE(std::strstr(err, "'run.not_declared'"), nullptr) << err;
  // the apps' keys are documented in the table but never the runner's to read
  EXPECT_EQ(umrun_opt_int(cfg.c, "run.iterations", &i, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_EQ(umrun_opt_string(cfg.c, "mesh.file", &s, err, sizeof err), UM_ERR_INTERNAL);
  // nothing undeclared was marked read: the config still reports the keys as unknown
  EXPECT_EQ(um_config_unread(cfg.c, [](const char *, const char *, const char *, void *) { return 0; }, nullptr), 3);
}

TEST(Options, ReadAsAnotherTypeIsRefused) {
  Cfg cfg("run: {block_size: 64}\n");
  char err[512] = "";
  double d = 0;
  const char *s = nullptr;
  int i = 0;
  EXPECT_EQ(umrun_opt_double(cfg.c, "run.block_size", &d, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_NE(std::strstr(err, "declared as int"), nullptr) << err;
  EXPECT_EQ(umrun_opt_string(cfg.c, "run.layout", &s, err, sizeof err), UM_ERR_INTERNAL);
  // a choice whose list comes at run time is read with umrun_opt_choice_in
  EXPECT_EQ(umrun_opt_choice(cfg.c, "run.backend", &i, nullptr, err, sizeof err), UM_ERR_INTERNAL);
}

TEST(Options, DefaultsChoicesAndRangesComeFromTheTable) {
  Cfg cfg("run: {layout: soa}\n");
  char err[512] = "";
  int bs = 0, idx = -1, on = 1;
  const char *name = nullptr, *s = "x";
  double d = 0;
  long long l = 0;
  EXPECT_EQ(umrun_opt_int(cfg.c, "run.block_size", &bs, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(bs, 256);
  EXPECT_EQ(umrun_opt_choice(cfg.c, "run.layout", &idx, &name, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(idx, 1);
  EXPECT_STREQ(name, "soa");
  EXPECT_EQ(umrun_opt_choice(cfg.c, "run.reorder", &idx, &name, err, sizeof err), UM_SUCCESS);
  EXPECT_STREQ(name, "none");
  EXPECT_EQ(umrun_opt_bool(cfg.c, "output.hdf5", &on, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(on, 0);
  EXPECT_EQ(umrun_opt_double(cfg.c, "mpi.deadline_s", &d, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(d, 60.0);
  EXPECT_EQ(umrun_opt_long(cfg.c, "mpi.gpu_transport_min_bytes", &l, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(l, 1048576LL);
  EXPECT_STREQ(um_option_find("mpi.gpu_transport_min_bytes")->def, "1048576"); /* declared once, by distributed/ */
  EXPECT_EQ(umrun_opt_string(cfg.c, "output.dir", &s, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(s, nullptr);

  Cfg bad("run: {block_size: 0, row_align: 5000, layout: sao}\nmpi: {deadline_s: 0.5}\n");
  EXPECT_EQ(umrun_opt_int(bad.c, "run.block_size", &bs, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_STREQ(err, "run.block_size = 0: use 1 .. 1048576 (typically 64 .. 1024) (from test:1)");
  EXPECT_EQ(umrun_opt_int(bad.c, "run.row_align", &bs, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_STREQ(err, "run.row_align = 5000: use 1 .. 4096 (from test:1)");
  EXPECT_EQ(umrun_opt_double(bad.c, "mpi.deadline_s", &d, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_STREQ(err, "mpi.deadline_s = 0.5: use 1 .. 86400 seconds (default 60) (from test:2)");
  EXPECT_EQ(umrun_opt_choice(bad.c, "run.layout", &idx, nullptr, err, sizeof err), UM_ERR_CONFIG);
  EXPECT_NE(std::strstr(err, "expected one of: aos, soa, auto"), nullptr) << err;
}

TEST(Options, PerLoopKeysAndListItems) {
  Cfg cfg("mpi: {loops: {res_calc: reverse}}\nsplit: {update: on}\nsweep: [\"run.layout=aos,soa\"]\n");
  char err[512] = "";
  int idx = -1;
  const char *s = nullptr;
  um_config_kind_t k;
  EXPECT_EQ(umrun_opt_kind(cfg.c, "mpi.loops", &k, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(k, UM_CONFIG_MAPPING);
  EXPECT_EQ(umrun_opt_choice(cfg.c, "mpi.loops.res_calc", &idx, nullptr, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(idx, (int)UM_INCREMENTS_REVERSE);
  EXPECT_EQ(umrun_opt_choice(cfg.c, "split.update", &idx, nullptr, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(idx, 4); // on
  EXPECT_EQ(umrun_opt_kind(cfg.c, "sweep", &k, err, sizeof err), UM_SUCCESS);
  EXPECT_EQ(k, UM_CONFIG_SEQUENCE);
  EXPECT_EQ(umrun_opt_string(cfg.c, "sweep.0", &s, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_STREQ(s, "run.layout=aos,soa");
  EXPECT_EQ(umrun_opt_string(cfg.c, "sweep.x", &s, err, sizeof err), UM_ERR_INTERNAL);
  EXPECT_EQ(umrun_opt_choice(cfg.c, "mpi.loops.a.b", &idx, nullptr, err, sizeof err), UM_ERR_INTERNAL);
  const um_option *o = umrun_opt_first_set(cfg.c, UM_OPT_NEEDS_MPI);
  ASSERT_NE(o, nullptr);
  EXPECT_STREQ(o->key, "mpi.loops.<loop>");
  Cfg none("run: {block_size: 64}\nmpi: {deadline_s: 5}\n");
  EXPECT_EQ(umrun_opt_first_set(none.c, UM_OPT_NEEDS_MPI), nullptr); // deadline_s is fine without MPI
}

// The table itself: unique keys, help on every line, defaults that parse, lie in
// their range and are among their choices; the choices in the order of the
// engine's enums the index is cast to; and the engine's API defaults the same.
TEST(Options, TableIsConsistent) {
  std::set<std::string> keys;
  for (int i = 0; i < umrun_option_count(); i++) {
    const um_option *o = umrun_option_at(i);
    SCOPED_TRACE(o->key);
    EXPECT_TRUE(keys.insert(o->key).second) << "declared twice";
    ASSERT_NE(o->help, nullptr);
    EXPECT_GT(std::strlen(o->help), 5u);
    if (o->type == UM_OPT_APP) continue;
    EXPECT_EQ(umrun_option_find(o->key) == o || std::strchr(o->key, '<'), true);
    if (o->type == UM_OPT_CHOICE) {
      EXPECT_TRUE(o->choices || o->range_hint) << "a choice without choices says what its values are";
      if (o->choices && o->def) {
        bool found = false;
        for (int c = 0; o->choices[c]; c++) found = found || !std::strcmp(o->choices[c], o->def);
        EXPECT_TRUE(found) << "default " << o->def << " is not among the choices";
      }
    }
    if ((o->type == UM_OPT_INT || o->type == UM_OPT_LONG || o->type == UM_OPT_DOUBLE)) {
      ASSERT_NE(o->def, nullptr);
      char *end = nullptr;
      const double v = std::strtod(o->def, &end);
      EXPECT_EQ(*end, '\0') << "default does not parse";
      if (o->flags & UM_OPT_RANGE) {
        EXPECT_GE(v, o->min);
        EXPECT_LE(v, o->max);
        EXPECT_NE(o->range_hint, nullptr);
      }
    }
    if (o->type == UM_OPT_BOOL) EXPECT_TRUE(!std::strcmp(o->def, "false") || !std::strcmp(o->def, "true"));
  }
  const um_option *st = umrun_option_find("run.strategy");
  for (int i = 0; st->choices[i]; i++) EXPECT_STREQ(st->choices[i], um_strategy_name((um_strategy)i));
  const um_option *inc = umrun_option_find("mpi.increments");
  for (int i = 0; inc->choices[i]; i++) EXPECT_STREQ(inc->choices[i], um_increments_name((um_increments)i));
  const um_option *sp = umrun_option_find("run.split");
  for (int i = 0; i < 4; i++) EXPECT_STREQ(sp->choices[i], um_split_name((um_split)i));
  const um_option *lay = umrun_option_find("run.layout");
  EXPECT_STREQ(lay->choices[UM_AOS], "aos");
  EXPECT_STREQ(lay->choices[UM_SOA], "soa");
  um_options d;
  um_options_default(&d);
  EXPECT_EQ(atoi(umrun_option_find("run.block_size")->def), d.block_size);
  um_option_value setting;
  ASSERT_EQ(um_options_get(&d, "openmp.parallel_threshold", &setting), UM_SUCCESS);
  EXPECT_EQ(atoi(umrun_option_find("openmp.parallel_threshold")->def), setting.i);
  EXPECT_EQ(atoi(umrun_option_find("run.row_align")->def), d.row_align);
  EXPECT_EQ(atoi(umrun_option_find("run.threads")->def), d.nthreads);
  ASSERT_EQ(um_options_get(&d, "hostc.compile_after", &setting), UM_SUCCESS);
  EXPECT_EQ(std::strtod(umrun_option_find("hostc.compile_after")->def, nullptr), setting.d);
  ASSERT_EQ(um_options_get(&d, "hostc.compile", &setting), UM_SUCCESS);
  EXPECT_EQ(setting.s, nullptr) << "a library caller compiles nothing unless it asks (UM_OPT_CONFIG_DEFAULT)";
  EXPECT_EQ(d.nsettings, 0) << "defaults are read from the declarations, not stored";
  EXPECT_STREQ(umrun_option_find("run.layout")->def, um_layout_name(d.layout));
  EXPECT_STREQ(umrun_option_find("run.strategy")->def, um_strategy_name(d.strategy));
  EXPECT_STREQ(umrun_option_find("run.backend")->def, d.backend);
}

// The engine's declarations (um/option_decl.h, issue 55): each component declares the keys it reads, the
// runner's table places them, and um_option_apply sets them by key with messages naming the key.
TEST(EngineOptions, DeclaredOnceAndAppliedByKey) {
  std::set<std::string> keys;
  for (int i = 0; i < um_option_count(); i++) {
    const um_option *o = um_option_at(i);
    SCOPED_TRACE(o->key);
    EXPECT_TRUE(keys.insert(o->key).second) << "declared twice";
    EXPECT_NE(o->component, nullptr);
    EXPECT_EQ(um_option_find(o->key), o);
    if (um_backend_option_count(o->component)) continue; // a backend's own: the backends' section, not the table
    const um_option *r = umrun_option_find(o->key);
    ASSERT_NE(r, nullptr) << "not in the runner's table";
    EXPECT_STREQ(r->help, o->help);
    EXPECT_EQ(r->def == nullptr, o->def == nullptr);
    if (o->def) EXPECT_STREQ(r->def, o->def);
  }
  EXPECT_STREQ(um_option_find("run.split")->component, "transform");
  EXPECT_STREQ(um_option_find("run.tune")->component, "tune");
  EXPECT_STREQ(um_option_find("hostc.compile")->component, "hostc");
  EXPECT_STREQ(um_option_find("run.compile")->renamed_to, "hostc.compile");
  EXPECT_STREQ(um_option_find("openmp.parallel_threshold")->component, "openmp");
  EXPECT_STREQ(um_option_find("mpi.gpu_transport")->component, "distributed");
  EXPECT_EQ(um_option_at(um_option_count()), nullptr);

  um_options o;
  um_options_default(&o);
  char err[512] = "";
  EXPECT_EQ(um_option_apply(&o, nullptr, "run.block_size", "128", err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(o.block_size, 128);
  EXPECT_EQ(um_option_apply(&o, nullptr, "run.layout", "soa", err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(o.layout, UM_SOA);
  um_option_value v;
  EXPECT_EQ(um_option_apply(&o, nullptr, "hostc.compile_simd", "off", err, sizeof err), UM_SUCCESS) << err;
  ASSERT_EQ(um_options_get(&o, "hostc.compile_simd", &v), UM_SUCCESS);
  EXPECT_STREQ(v.s, "off");
  EXPECT_EQ(um_option_apply(&o, nullptr, "run.compile", "wait", err, sizeof err), UM_SUCCESS) << err; // earlier spelling
  ASSERT_EQ(um_options_get(&o, "hostc.compile", &v), UM_SUCCESS);
  EXPECT_STREQ(v.s, "wait");
  EXPECT_EQ(um_options_set(&o, "openmp.parallel_threshold", "10"), UM_SUCCESS);
  ASSERT_EQ(um_options_get(&o, "openmp.parallel_threshold", &v), UM_SUCCESS);
  EXPECT_EQ(v.i, 10);
  EXPECT_EQ(um_options_set(&o, "openmp.parallel_threshold", "-1"), UM_ERR_ARG) << "checked against the declaration";
  EXPECT_EQ(um_options_set(&o, "hostc.compile_after", "0.05"), UM_SUCCESS);
  ASSERT_EQ(um_options_get(&o, "hostc.compile_after", &v), UM_SUCCESS);
  EXPECT_EQ(v.d, 0.05);
  char near[64];
  EXPECT_STREQ(um_option_nearest("hostc.compil", near, sizeof near), "hostc.compile");
  EXPECT_EQ(um_option_nearest("zzzzzzzzzzzz", near, sizeof near), nullptr);
  EXPECT_EQ(um_option_apply(&o, nullptr, "run.backend", "seq", err, sizeof err), UM_SUCCESS) << err;
  EXPECT_STREQ(o.backend, "seq");
  EXPECT_EQ(um_option_apply(&o, nullptr, "run.blok_size", "64", err, sizeof err), UM_ERR_ARG);
  EXPECT_STREQ(err, "unknown option 'run.blok_size': did you mean 'run.block_size'?");
  EXPECT_EQ(um_option_apply(&o, nullptr, "run.layout", "sao", err, sizeof err), UM_ERR_ARG);
  EXPECT_STREQ(err, "run.layout = 'sao': use one of aos, soa, auto (declared by the engine's core options; default aos)");
  EXPECT_EQ(um_option_apply(&o, nullptr, "run.block_size", "0", err, sizeof err), UM_ERR_ARG);
  EXPECT_NE(std::strstr(err, "use 1 .. 1048576"), nullptr) << err;
  EXPECT_EQ(um_option_apply(&o, nullptr, "run.split", "gather", err, sizeof err), UM_ERR_ARG);
  EXPECT_NE(std::strstr(err, "after um_init"), nullptr) << err;
  EXPECT_EQ(o.block_size, 128) << "a refused value changes nothing";

  um_context *ctx = nullptr;
  um_options_default(&o);
  o.backend = "seq";
  ASSERT_EQ(um_init(&ctx, &o), UM_SUCCESS);
  EXPECT_EQ(um_option_apply(nullptr, ctx, "run.reproducible", "true", err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(um_context_reproducible(ctx), 1);
  EXPECT_EQ(um_option_apply(nullptr, ctx, "run.tune", "once", err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(um_option_apply(nullptr, ctx, "run.split", "on", err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(um_option_apply(nullptr, ctx, "run.block_size", "64", err, sizeof err), UM_ERR_ARG);
  EXPECT_NE(std::strstr(err, "fixed at um_init"), nullptr) << err;
  um_finalize(&ctx);
}

TEST(Options, HelpAndMarkdownListEveryOption) {
  char *help = nullptr, *md = nullptr;
  size_t nh = 0, nm = 0;
  FILE *f = open_memstream(&help, &nh);
  umrun_options_help(f);
  fclose(f);
  f = open_memstream(&md, &nm);
  umrun_options_markdown(f, nullptr);
  fclose(f);
  for (int i = 0; i < umrun_option_count(); i++) {
    const um_option *o = umrun_option_at(i);
    if (!o->renamed_to) EXPECT_NE(std::strstr(help, (std::string("  ") + o->key + " ").c_str()), nullptr) << o->key;
    EXPECT_NE(std::strstr(md, (std::string("| `") + o->key + "` |").c_str()), nullptr) << o->key;
  }
  EXPECT_NE(std::strstr(help, "run.block_size      elements per mini-partition (plan block) (default 256)"), nullptr);
  free(help);
  free(md);
}

} // namespace

// ---- an app's own options (um_app.options, read with um_app_int etc.) ----------------------------
namespace {

const char *const scheme_choices[] = {"inc", "upstream", nullptr};
const um_option test_app_options[] = {
    {.key = "mesh.N", .type = UM_OPT_INT, .def = "32", .min = 2, .max = 4000, .range_hint = "use 2..4000",
     .flags = UM_OPT_RANGE, .help = "cells per side"},
    {.key = "params.dt", .type = UM_OPT_DOUBLE, .help = "time step (default: the deck's)"},
    {.key = "params.scheme", .type = UM_OPT_CHOICE, .def = "inc", .choices = scheme_choices,
     .help = "how increments reach the nodes"},
    {.key = "params.name", .type = UM_OPT_STRING, .def = "plain", .help = "a name"},
    {.key = "params.fused", .type = UM_OPT_BOOL, .def = "true", .help = "fuse loops"},
};
int test_app_run(um_app_run *) { return UM_SUCCESS; }
const um_app test_app = {.name = "optapp", .description = "options test", .run = test_app_run,
                         .options = test_app_options,
                         .noptions = (int)(sizeof test_app_options / sizeof test_app_options[0])};

struct AppRun {
  um_context *ctx = nullptr;
  Cfg cfg;
  um_app_run r;
  explicit AppRun(const char *yaml) : cfg(yaml) {
    um_options o;
    um_options_default(&o);
    o.backend = "seq";
    EXPECT_EQ(um_init(&ctx, &o), UM_SUCCESS);
    std::memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.cfg = cfg.c;
    r.app = &test_app;
  }
  ~AppRun() { um_finalize(&ctx); }
  std::string msg() const { return um_error_message(ctx); }
};

}  // namespace

TEST(AppOptions, DefaultsChoicesAndValuesComeFromTheTable) {
  AppRun a("params: {scheme: upstream}\n");
  int n = 0, fused = 0, pick = -1;
  const char *name = nullptr, *choice = nullptr;
  EXPECT_EQ(um_app_int(&a.r, "mesh.N", &n), UM_SUCCESS);
  EXPECT_EQ(n, 32);
  EXPECT_EQ(um_app_bool(&a.r, "params.fused", &fused), UM_SUCCESS);
  EXPECT_EQ(fused, 1);
  EXPECT_EQ(um_app_string(&a.r, "params.name", &name), UM_SUCCESS);
  EXPECT_STREQ(name, "plain");
  EXPECT_EQ(um_app_choice(&a.r, "params.scheme", &pick, &choice), UM_SUCCESS);
  EXPECT_EQ(pick, 1);
  EXPECT_STREQ(choice, "upstream");
}

TEST(AppOptions, NoDefaultKeepsTheValueFromTheAppsInput) {
  AppRun absent("mesh: {N: 8}\n");
  double dt = 5e-8; /* e.g. from the deck */
  EXPECT_EQ(um_app_double(&absent.r, "params.dt", &dt), UM_SUCCESS);
  EXPECT_EQ(dt, 5e-8);
  AppRun given("params: {dt: 1.0e-3}\n");
  EXPECT_EQ(um_app_double(&given.r, "params.dt", &dt), UM_SUCCESS);
  EXPECT_EQ(dt, 1e-3);
}

TEST(AppOptions, BadValuesAreConfigErrorsNamingTheKey) {
  AppRun a("mesh: {N: 1}\nparams: {scheme: sideways}\n");
  int n = 0, pick = 0;
  EXPECT_EQ(um_app_int(&a.r, "mesh.N", &n), UM_ERR_CONFIG);
  EXPECT_NE(a.msg().find("mesh.N = 1: use 2..4000"), std::string::npos) << a.msg();
  EXPECT_EQ(um_app_choice(&a.r, "params.scheme", &pick, nullptr), UM_ERR_CONFIG);
  EXPECT_NE(a.msg().find("sideways"), std::string::npos) << a.msg();
}

TEST(AppOptions, UndeclaredKeysAndWrongTypesAreRefused) {
  AppRun a("params: {undeclared: 3}\nrun: {block_size: 64}\n");
  int i = 0;
  double d = 0;
  EXPECT_EQ(um_app_int(&a.r, "params.undeclared", &i), UM_ERR_INTERNAL);
  EXPECT_NE(a.msg().find("app 'optapp' reads the option 'params.undeclared'"), std::string::npos) << a.msg();
  // the runner's keys are not the app's: an app reads only what it declared
  EXPECT_EQ(um_app_int(&a.r, "run.block_size", &i), UM_ERR_INTERNAL);
  EXPECT_EQ(um_app_double(&a.r, "mesh.N", &d), UM_ERR_INTERNAL);
  EXPECT_NE(a.msg().find("declared as int"), std::string::npos) << a.msg();
  int present = -1;
  EXPECT_EQ(um_app_has(&a.r, "params.dt", &present), UM_SUCCESS);
  EXPECT_EQ(present, 0);
  EXPECT_EQ(um_app_has(&a.r, "params.undeclared", &present), UM_ERR_INTERNAL);
  // after an app's read, the runner's own reads use the runner's table again
  char err[512] = "";
  EXPECT_EQ(umrun_opt_int(a.r.cfg, "run.block_size", &i, err, sizeof err), UM_SUCCESS) << err;
  EXPECT_EQ(i, 64);
}

TEST(AppOptions, ARunWithoutItsAppIsRefused) {
  AppRun a("mesh: {N: 8}\n");
  a.r.app = nullptr;
  int n = 0;
  EXPECT_EQ(um_app_int(&a.r, "mesh.N", &n), UM_ERR_INTERNAL);
  EXPECT_NE(a.msg().find("run->app unset"), std::string::npos) << a.msg();
}
