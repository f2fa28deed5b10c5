/* umrun --suite: the suite file (validation/suite.yaml): its cases, their axes (backends x
 * strategies x layouts x reorderings x block sizes x ranks), read and checked. */
#include <strings.h>
#include "suite_internal.h"
#include "options.h"
#include "draw.h"
#include "paths.h"

/* ---- the suite file ------------------------------------------------------------ */
void suite_free_strs(char **v, int n) {
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

void suite_free(suite_file *s) {
  for (int i = 0; i < s->ncases; i++) {
    suite_case *c = &s->cases[i];
    free(c->name);
    free(c->config);
    free(c->draw);
    free(c->app);
    suite_free_strs(c->tags, c->ntags);
    suite_free_strs(c->sets, c->nsets);
    for (int a = 0; a < AXES; a++) suite_free_strs(c->axis[a], c->naxis[a]);
  }
  free(s->cases);
  suite_free_strs(s->sets, s->nsets);
  free(s->path);
}

/* a sequence of scalars (or one scalar) at key into a malloc'ed array */
static int read_list(um_config *cfg, const char *key, char ***out, int *n, char *err, size_t len) {
  *out = NULL;
  *n = 0;
  um_config_kind_t k = um_config_kind(cfg, key);
  if (k == UM_CONFIG_ABSENT || k == UM_CONFIG_NULL) return 0;
  int cnt = 1;
  if (k == UM_CONFIG_SEQUENCE && um_config_size(cfg, key, &cnt, err, len)) return -1;
  if (k == UM_CONFIG_MAPPING) {
    char where[256] = "";
    um_config_origin(cfg, key, where, sizeof where);
    snprintf(err, len, "%s (%s): expected a list of values, e.g. [a, b], not a mapping", key, where);
    return -1;
  }
  char **v = calloc((size_t)cnt + 1, sizeof *v);
  if (!v) return snprintf(err, len, "out of memory"), -1;
  for (int i = 0; i < cnt; i++) {
    char ik[512];
    if (k == UM_CONFIG_SEQUENCE) snprintf(ik, sizeof ik, "%s.%d", key, i);
    else snprintf(ik, sizeof ik, "%s", key);
    const char *s = NULL;
    if (um_config_kind(cfg, ik) != UM_CONFIG_SCALAR || um_config_get_string(cfg, ik, NULL, &s, err, len) || !s) {
      char where[256] = "";
      um_config_origin(cfg, ik, where, sizeof where);
      if (!err[0]) snprintf(err, len, "%s (%s): expected a plain value", ik, where);
      suite_free_strs(v, i);
      return -1;
    }
    v[i] = strdup(s);
  }
  *out = v;
  *n = cnt;
  return 0;
}

static int check_keys(um_config *cfg, const char *key, const char *const *allowed, char *err, size_t len) {
  int n = 0;
  if (um_config_keys(cfg, key, &n, NULL, 0, err, len)) return -1;
  const char **names = calloc((size_t)n + 1, sizeof *names);
  if (!names) return -1;
  um_config_keys(cfg, key, &n, names, n, err, len);
  for (int i = 0; i < n; i++) {
    int ok = 0;
    for (int j = 0; allowed[j]; j++) ok |= !strcmp(names[i], allowed[j]);
    if (!ok) {
      char full[600], where[256] = "";
      snprintf(full, sizeof full, "%s%s%s", key ? key : "", key && *key ? "." : "", names[i]);
      um_config_origin(cfg, full, where, sizeof where);
      size_t l = (size_t)snprintf(err, len, "%s (%s): unknown key; known here:", full, where);
      for (int j = 0; allowed[j] && l < len; j++) l += (size_t)snprintf(err + l, len - l, " %s", allowed[j]);
      free(names);
      return -1;
    }
  }
  free(names);
  return 0;
}

static int valid_name(const char *s) {
  if (!s || !*s || strlen(s) > 100) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
          *s == '-' || *s == '.'))
      return 0;
  return 1;
}

/* A run's time limit (defaults.timeout_s, a case's timeout_s): a finite number of seconds > 0; NaN, 0 or a
 * negative number would turn the limit off and let a hanging run hang the suite. */
static int read_timeout(um_config *cfg, const char *key, double def, double *out, char *err, size_t len) {
  if (um_config_get_double(cfg, key, def, out, err, len)) return -1;
  if (isfinite(*out) && *out > 0) return 0;
  char where[256] = "";
  um_config_origin(cfg, key, where, sizeof where);
  snprintf(err, len, "%s = %g (%s): use a finite number of seconds > 0 (e.g. 1800); a run past it is stopped as "
           "TIMEOUT", key, *out, where);
  return -1;
}

/* A case's app must be registered: refused before the suite runs anything. */
static int check_app(const um_runner *r, const char *app, char *err, size_t len) {
  if (app && um_app_find(r, app)) return 0;
  size_t l = (size_t)snprintf(err, len, "app '%.200s' is not a registered app; registered:", app ? app : "");
  for (int i = 0; i < um_app_count(r) && l < len; i++)
    l += (size_t)snprintf(err + l, len - l, " %s", um_app_at(r, i)->name);
  if (l < len) snprintf(err + l, len - l, " (umrun --list-apps)");
  return -1;
}

/* A set: list (key) that names the compiler or its flags: refused unless --allow-compiler (docs/reliability.md). */
static int refuse_compiler(um_config *cfg, const char *key, char *const *sets, int n, char *err, size_t len) {
  for (int j = 0; j < n; j++) {
    if (!umrun_names_compiler(sets[j])) continue;
    char item[300], where[256] = "";
    snprintf(item, sizeof item, "%s.%d", key, j);
    if (um_config_origin(cfg, item, where, sizeof where)) um_config_origin(cfg, key, where, sizeof where);
    snprintf(err, len, "%s (%s): '%s' names the compiler or its flags, a program um runs; give it on the command line "
                       "(umrun --suite ... --set %s) or pass --allow-compiler", key, where, sets[j], sets[j]);
    return -1;
  }
  return 0;
}

/* The case's matrix: its axes (k: "cases.<i>.matrix"), the rank counts checked. */
static int read_matrix(um_config *cfg, const char *k, suite_case *c, const char *name, char *err, size_t len) {
  static const char *const axes[] = {"backend", "strategy", "layout", "reorder", "block_size", "ranks", NULL};
  if (check_keys(cfg, k, axes, err, len)) return -1;
  for (int a = 0; a < AXES; a++) {
    char ak[700];
    snprintf(ak, sizeof ak, "%s.%s", k, axis_names[a]);
    if (read_list(cfg, ak, &c->axis[a], &c->naxis[a], err, len)) return -1;
    for (int i = 0; i < c->naxis[a]; i++) /* runs are named by their values: two alike would be one run twice */
      for (int j = i + 1; j < c->naxis[a]; j++)
        if (!strcasecmp(c->axis[a][i], c->axis[a][j])) {
          snprintf(err, len, "case '%s': matrix.%s lists '%s' twice; give each value once (--repeat N runs a case "
                   "N times)", name, axis_names[a], c->axis[a][i]);
          return -1;
        }
  }
  for (int v = 0; v < c->naxis[AXIS_RANKS]; v++) {
    char *end = NULL;
    const long n = strtol(c->axis[AXIS_RANKS][v], &end, 10);
    if (!end || *end || n < 1 || n > 4096) {
      snprintf(err, len, "case '%s': matrix.ranks entry '%s' is not a rank count (1, 2, 4, ...)", name,
               c->axis[AXIS_RANKS][v]);
      return -1;
    }
  }
  return 0;
}

/* The case's app: the config's, then app= in the suite's defaults.set and the case's set, then --set app=X;
 * its config file read now, its name checked before anything runs. */
static int case_app(const um_runner *r, const suite_file *S, suite_case *c, const char *app_override, const char *name,
                    const char *where, char *err, size_t len) {
  /* the app, from the config (for --only and the report), and the path checked now */
  um_config *cc = NULL;
  char cerr[2048] = "";
  if (um_config_load_file(c->config, &cc, cerr, sizeof cerr)) {
    snprintf(err, len, "case '%s' (%s): config: %s", name, where, cerr);
    return -1;
  }
  const char *app = NULL;
  if (um_config_get_string(cc, "app", "airfoil", &app, cerr, sizeof cerr) == 0) c->app = strdup(app);
  for (int j = 0; j < S->nsets; j++) /* the suite's defaults.set, then the case's own set, as the run applies them */
    if (!strncmp(S->sets[j], "app=", 4)) {
      free(c->app);
      c->app = strdup(S->sets[j] + 4);
    }
  for (int j = 0; j < c->nsets; j++)
    if (!strncmp(c->sets[j], "app=", 4)) {
      free(c->app);
      c->app = strdup(c->sets[j] + 4);
    }
  um_config_free(cc);
  if (app_override) { /* --set app=X, applied to every run after the case's own */
    free(c->app);
    c->app = strdup(app_override);
  }
  if (!c->app) c->app = strdup("airfoil");
  if (check_app(r, c->app, err, len)) { /* before anything runs: its name reaches files and pages */
    char why[1024];
    snprintf(why, sizeof why, "%s", err);
    snprintf(err, len, "case '%s' (%s): %s", name, where, why);
    return -1;
  }
  return 0;
}

/* A case's draw: (umrun --draw WHAT): plan, plan=LOOP, partition or partition=SET; absent: none. */
static int read_draw(um_config *cfg, const char *k, suite_case *c, const char *name, char *err, size_t len) {
  if (um_config_kind(cfg, k) == UM_CONFIG_ABSENT) return 0;
  const char *v = NULL;
  umrun_draw d;
  char why[1024];
  if (um_config_get_string(cfg, k, NULL, &v, err, len)) return -1;
  if (!v || umrun_draw_parse(&d, v, "picture.svg", why, sizeof why)) {
    snprintf(err, len, "case '%s': draw: %s", name, v ? why : "expected plan, plan=LOOP, partition or partition=SET");
    return -1;
  }
  c->draw = strdup(v);
  return c->draw ? 0 : -1;
}

int suite_load(const um_runner *r, const char *path, const char *app_override, int allow_compiler, suite_file *S, char *err, size_t len) {
  memset(S, 0, sizeof *S);
  S->path = strdup(path);
  um_config *cfg = NULL;
  if (um_config_load_file(path, &cfg, err, len)) return -1;
  static const char *const top[] = {"suite", "description", "defaults", "cases", NULL};
  static const char *const defk[] = {"timeout_s", "set", NULL};
  static const char *const casek[] = {"name",      "config",      "tags",      "set",  "matrix",
                                      "timeout_s", "description", "same_bits", "draw", NULL};
  int rc = -1, n = 0;
  if (check_keys(cfg, NULL, top, err, len)) goto out;
  if (um_config_kind(cfg, "defaults") == UM_CONFIG_MAPPING && check_keys(cfg, "defaults", defk, err, len)) goto out;
  if (read_timeout(cfg, "defaults.timeout_s", 1800, &S->timeout_s, err, len)) goto out;
  if (read_list(cfg, "defaults.set", &S->sets, &S->nsets, err, len)) goto out;
  if (!allow_compiler && refuse_compiler(cfg, "defaults.set", S->sets, S->nsets, err, len)) goto out;
  if (um_config_kind(cfg, "cases") != UM_CONFIG_SEQUENCE || um_config_size(cfg, "cases", &n, err, len) || n == 0) {
    snprintf(err, len, "%s: expected 'cases:' with a list of cases (name, config, tags, set, matrix)", path);
    goto out;
  }
  S->cases = calloc((size_t)n, sizeof *S->cases);
  if (!S->cases) goto out;
  for (int i = 0; i < n; i++) {
    suite_case *c = &S->cases[i];
    S->ncases = i + 1;
    char k[600], where[256] = "";
    snprintf(k, sizeof k, "cases.%d", i);
    um_config_origin(cfg, k, where, sizeof where);
    if (um_config_kind(cfg, k) != UM_CONFIG_MAPPING) {
      snprintf(err, len, "%s (%s): each case is a mapping (name, config, tags, set, matrix)", k, where);
      goto out;
    }
    if (check_keys(cfg, k, casek, err, len)) goto out;
    const char *name = NULL, *config = NULL;
    snprintf(k, sizeof k, "cases.%d.name", i);
    if (um_config_get_string(cfg, k, NULL, &name, err, len)) goto out;
    if (!valid_name(name)) {
      snprintf(err, len, "cases.%d (%s): 'name' must be 1-100 letters, digits, '_', '-' or '.' (got '%s')", i, where,
               name ? name : "");
      goto out;
    }
    for (int j = 0; j < i; j++)
      if (!strcmp(S->cases[j].name, name)) {
        snprintf(err, len, "cases.%d (%s): the name '%s' is used twice", i, where, name);
        goto out;
      }
    c->name = strdup(name);
    snprintf(k, sizeof k, "cases.%d.config", i);
    if (um_config_get_string(cfg, k, NULL, &config, err, len)) goto out;
    if (!config || !*config) {
      snprintf(err, len, "case '%s' (%s): 'config' is missing (a umrun config file)", name, where);
      goto out;
    }
    char cpath[8200], cerr[8400];
    if (umrun_resolve_suite_config(path, config, cpath, sizeof cpath, cerr, sizeof cerr)) { /* as configs' inputs */
      snprintf(err, len, "case '%s' (%s): config: %s", name, where, cerr);
      goto out;
    }
    c->config = strdup(cpath);
    snprintf(k, sizeof k, "cases.%d.tags", i);
    if (read_list(cfg, k, &c->tags, &c->ntags, err, len)) goto out;
    snprintf(k, sizeof k, "cases.%d.set", i);
    if (read_list(cfg, k, &c->sets, &c->nsets, err, len)) goto out;
    for (int j = 0; j < c->nsets; j++)
      if (!strchr(c->sets[j], '=')) {
        snprintf(err, len, "case '%s': set entry '%s' is not key=value", name, c->sets[j]);
        goto out;
      }
    if (!allow_compiler && refuse_compiler(cfg, k, c->sets, c->nsets, err, len)) goto out;
    snprintf(k, sizeof k, "cases.%d.timeout_s", i);
    if (read_timeout(cfg, k, S->timeout_s, &c->timeout_s, err, len)) goto out;
    snprintf(k, sizeof k, "cases.%d.same_bits", i);
    if (um_config_get_bool(cfg, k, 0, &c->same_bits, err, len)) goto out;
    snprintf(k, sizeof k, "cases.%d.draw", i);
    if (read_draw(cfg, k, c, name, err, len)) goto out;
    snprintf(k, sizeof k, "cases.%d.matrix", i);
    if (um_config_kind(cfg, k) == UM_CONFIG_MAPPING && read_matrix(cfg, k, c, name, err, len)) goto out;
    if (case_app(r, S, c, app_override, name, where, err, len)) goto out;
  }
  rc = 0;
out:
  um_config_free(cfg);
  return rc;
}

int suite_has_tag(const suite_case *c, char **want, int nwant) {
  if (nwant == 0) return 1;
  for (int i = 0; i < nwant; i++)
    for (int j = 0; j < c->ntags; j++)
      if (!strcmp(want[i], c->tags[j])) return 1;
  return 0;
}
