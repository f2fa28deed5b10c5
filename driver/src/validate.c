/* um: validation of run results against validation/<app>/<case>.ref.yaml.
 * Reference files are read with the config reader (um/config.h), so YAML
 * errors carry file:line:column and value errors the line they come from. */
#include "um/validate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "um/config.h"

static char *dupstr(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *d = (char *)malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

void um_ref_free(um_ref *ref) {
  if (!ref) return;
  free(ref->path);
  free(ref->app);
  free(ref->case_name);
  free(ref->description);
  for (int i = 0; i < ref->nprovenance; i++) {
    free(ref->provenance[i].key);
    free(ref->provenance[i].value);
  }
  free(ref->provenance);
  for (int i = 0; i < ref->nmetrics; i++) free(ref->metrics[i].name);
  free(ref->metrics);
  free(ref);
}

const char *um_ref_provenance(const um_ref *ref, const char *key) {
  if (!ref || !key) return NULL;
  for (int i = 0; i < ref->nprovenance; i++)
    if (!strcmp(ref->provenance[i].key, key)) return ref->provenance[i].value;
  return NULL;
}

/* Line number of key's origin ("file x:12" -> 12), 0 if unknown. */
static int origin_line(const um_config *cfg, const char *key) {
  char org[512];
  if (um_config_origin(cfg, key, org, sizeof org)) return 0;
  const char *c = strrchr(org, ':');
  return c ? atoi(c + 1) : 0;
}

static const char *kind_word(um_config_kind_t k) {
  switch (k) {
    case UM_CONFIG_NULL:
      return "empty";
    case UM_CONFIG_SCALAR:
      return "single value";
    case UM_CONFIG_MAPPING:
      return "mapping";
    case UM_CONFIG_SEQUENCE:
      return "sequence";
    default:
      return "missing";
  }
}

/* Every key of the mapping at `key` must be in `allowed`. */
static int check_keys(const um_config *cfg, const char *file, const char *where, const char *key,
                      const char *const *allowed, int nallowed, const char *allowed_text, char *err,
                      size_t errlen) {
  int n = 0, rc;
  char e2[512];
  if ((rc = um_config_keys(cfg, key, &n, NULL, 0, e2, sizeof e2)))
    return um_format_error(err, errlen, rc, "%s: %s", file, e2);
  if (n == 0) return UM_SUCCESS;
  const char **names = (const char **)malloc((size_t)n * sizeof *names);
  if (!names) return um_format_error(err, errlen, UM_ERR_ALLOC, "%s: out of memory", file);
  um_config_keys(cfg, key, &n, names, n, NULL, 0);
  for (int i = 0; i < n; i++) {
    int ok = 0;
    for (int j = 0; j < nallowed && !ok; j++) ok = !strcmp(names[i], allowed[j]);
    if (!ok) {
      char full[512];
      snprintf(full, sizeof full, "%s%s%s", key, *key ? "." : "", names[i]);
      rc = um_format_error(err, errlen, UM_ERR_CONFIG, "%s:%d: %sunknown key '%s'; allowed keys are: %s",
                 file, origin_line(cfg, full), where, names[i], allowed_text);
      break;
    }
  }
  free(names);
  return rc;
}

/* A required, non-empty string at key; copied into *out. */
static int req_string(um_config *cfg, const char *file, const char *where, const char *key,
                      const char *field, const char *hint, char **out, char *err, size_t errlen) {
  const char *s = NULL;
  char e2[512];
  int rc = um_config_get_string(cfg, key, NULL, &s, e2, sizeof e2);
  if (rc) return um_format_error(err, errlen, rc, "%s: %s%s", file, where, e2);
  if (!s || !*s)
    return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: %smissing '%s'; %s", file, where, field, hint);
  if (!(*out = dupstr(s))) return um_format_error(err, errlen, UM_ERR_ALLOC, "%s: out of memory", file);
  return UM_SUCCESS;
}

/* An optional finite number (>= 0 if nonneg). *has = 0 if absent. */
static int opt_number(um_config *cfg, const char *file, const char *where, const char *key,
                      const char *field, int nonneg, double *out, int *has, char *err,
                      size_t errlen) {
  char e2[512];
  *has = 0;
  um_config_kind_t k = um_config_kind(cfg, key);
  if (k == UM_CONFIG_ABSENT || k == UM_CONFIG_NULL) return UM_SUCCESS;
  int rc = um_config_get_double(cfg, key, 0.0, out, e2, sizeof e2);
  if (rc) return um_format_error(err, errlen, rc, "%s: %s%s", file, where, e2);
  if (!isfinite(*out))
    return um_format_error(err, errlen, UM_ERR_CONFIG, "%s:%d: %s'%s' must be a finite number", file,
                 origin_line(cfg, key), where, field);
  if (nonneg && *out < 0)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                 "%s:%d: %s'%s' is negative (%g); a tolerance must be >= 0", file,
                 origin_line(cfg, key), where, field, *out);
  *has = 1;
  return UM_SUCCESS;
}

static int parse_ref(um_config *cfg, const char *file, um_ref *r, char *err, size_t errlen) {
  static const char *const top[] = {"app", "case", "provenance", "metrics", "description"};
  static const char *const mkeys[] = {"name", "value", "rel_tol", "abs_tol"};
  int rc, n;
  char e2[512], key[128], where[256];

  if ((rc = check_keys(cfg, file, "", "", top, 5, "app, case, provenance, metrics, description",
                       err, errlen)))
    return rc;
  if ((rc = req_string(cfg, file, "", "app", "app",
                       "add 'app: <name>' naming the app this reference is for", &r->app, err,
                       errlen)) ||
      (rc = req_string(cfg, file, "", "case", "case",
                       "add 'case: <name>' naming the mesh / problem size", &r->case_name, err,
                       errlen)))
    return rc;
  if (um_config_has(cfg, "description")) {
    const char *d = NULL;
    if ((rc = um_config_get_string(cfg, "description", NULL, &d, e2, sizeof e2)))
      return um_format_error(err, errlen, rc, "%s: %s", file, e2);
    if (d && !(r->description = dupstr(d)))
      return um_format_error(err, errlen, UM_ERR_ALLOC, "%s: out of memory", file);
  }

  /* provenance */
  um_config_kind_t pk = um_config_kind(cfg, "provenance");
  if (pk != UM_CONFIG_MAPPING)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                 "%s: 'provenance' is %s%s; give a mapping with at least code and command, e.g. "
                 "provenance: {code: OP2-Common airfoil_seq, commit: <sha>, command: <how run>}",
                 file, pk == UM_CONFIG_ABSENT ? "" : "a ",
                 pk == UM_CONFIG_ABSENT ? "missing" : kind_word(pk));
  if ((rc = um_config_keys(cfg, "provenance", &n, NULL, 0, e2, sizeof e2)))
    return um_format_error(err, errlen, rc, "%s: %s", file, e2);
  if (n > 0) {
    const char **names = (const char **)malloc((size_t)n * sizeof *names);
    r->provenance = (um_ref_entry *)calloc((size_t)n, sizeof *r->provenance);
    if (!names || !r->provenance) {
      free(names);
      return um_format_error(err, errlen, UM_ERR_ALLOC, "%s: out of memory", file);
    }
    um_config_keys(cfg, "provenance", &n, names, n, NULL, 0);
    for (int i = 0; i < n && !rc; i++) {
      const char *v = NULL;
      snprintf(key, sizeof key, "provenance.%s", names[i]);
      if ((rc = um_config_get_string(cfg, key, "", &v, e2, sizeof e2))) {
        rc = um_format_error(err, errlen, rc, "%s: %s", file, e2);
        break;
      }
      r->provenance[i].key = dupstr(names[i]);
      r->provenance[i].value = dupstr(v ? v : "");
      r->nprovenance = i + 1;
      if (!r->provenance[i].key || !r->provenance[i].value)
        rc = um_format_error(err, errlen, UM_ERR_ALLOC, "%s: out of memory", file);
    }
    free(names);
    if (rc) return rc;
  }
  static const char *const need[] = {"code", "command"};
  for (int i = 0; i < 2; i++) {
    const char *v = um_ref_provenance(r, need[i]);
    if (!v || !*v)
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                   "%s:%d: provenance has no '%s'; say which upstream code produced the numbers "
                   "(code) and how it was run (command)",
                   file, origin_line(cfg, "provenance"), need[i]);
  }

  /* metrics */
  um_config_kind_t mk = um_config_kind(cfg, "metrics");
  if (mk != UM_CONFIG_SEQUENCE)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                 "%s: 'metrics' is %s%s; give a list, e.g. metrics: [{name: rms, value: 1.0e-4, "
                 "rel_tol: 1.0e-7}]",
                 file, mk == UM_CONFIG_ABSENT ? "" : "a ",
                 mk == UM_CONFIG_ABSENT ? "missing" : kind_word(mk));
  if ((rc = um_config_size(cfg, "metrics", &n, e2, sizeof e2)))
    return um_format_error(err, errlen, rc, "%s: %s", file, e2);
  if (n == 0)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                 "%s:%d: 'metrics' is empty; a reference must check at least one metric", file,
                 origin_line(cfg, "metrics"));
  r->metrics = (um_ref_metric *)calloc((size_t)n, sizeof *r->metrics);
  if (!r->metrics) return um_format_error(err, errlen, UM_ERR_ALLOC, "%s: out of memory", file);
  for (int i = 0; i < n; i++) {
    um_ref_metric *m = &r->metrics[i];
    char base[64];
    snprintf(base, sizeof base, "metrics.%d", i);
    m->line = origin_line(cfg, base);
    um_config_kind_t k = um_config_kind(cfg, base);
    if (k != UM_CONFIG_MAPPING)
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                   "%s:%d: metrics[%d] is a %s; each metric is a mapping like {name: rms, value: "
                   "1.0e-4, rel_tol: 1.0e-7}",
                   file, m->line, i, kind_word(k));
    /* name first, so later messages can show it */
    snprintf(key, sizeof key, "%s.name", base);
    snprintf(where, sizeof where, "metrics[%d]: ", i);
    if ((rc = req_string(cfg, file, where, key, "name",
                         "every metric needs name, value and rel_tol and/or abs_tol", &m->name, err,
                         errlen)))
      return rc;
    r->nmetrics = i + 1;
    snprintf(where, sizeof where, "metrics[%d] (%.100s): ", i, m->name);
    if ((rc = check_keys(cfg, file, where, base, mkeys, 4, "name, value, rel_tol, abs_tol", err,
                         errlen)))
      return rc;
    for (int j = 0; j < i; j++)
      if (!strcmp(r->metrics[j].name, m->name))
        return um_format_error(err, errlen, UM_ERR_CONFIG,
                     "%s:%d: %sname '%s' is used twice (also metrics[%d], line %d); metric names "
                     "must be unique",
                     file, m->line, where, m->name, j, r->metrics[j].line);
    int has;
    snprintf(key, sizeof key, "%s.value", base);
    if ((rc = opt_number(cfg, file, where, key, "value", 0, &m->value, &has, err, errlen)))
      return rc;
    if (!has)
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                   "%s:%d: %smissing 'value'; every metric needs name, value and rel_tol and/or "
                   "abs_tol",
                   file, m->line, where);
    snprintf(key, sizeof key, "%s.rel_tol", base);
    if ((rc = opt_number(cfg, file, where, key, "rel_tol", 1, &m->rel_tol, &m->has_rel_tol, err,
                         errlen)))
      return rc;
    snprintf(key, sizeof key, "%s.abs_tol", base);
    if ((rc = opt_number(cfg, file, where, key, "abs_tol", 1, &m->abs_tol, &m->has_abs_tol, err,
                         errlen)))
      return rc;
    if (!m->has_rel_tol && !m->has_abs_tol)
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                   "%s:%d: %sno tolerance; give rel_tol (relative to |value|) and/or abs_tol "
                   "(absolute), e.g. rel_tol: 1.0e-12 or abs_tol: 0 for exact counts",
                   file, m->line, where);
  }
  return UM_SUCCESS;
}

static int finish_load(um_config *cfg, int rc, const char *file, um_ref **ref, char *err,
                       size_t errlen) {
  if (rc) return rc;
  um_ref *r = (um_ref *)calloc(1, sizeof *r);
  if (!r || !(r->path = dupstr(file))) {
    free(r);
    um_config_free(cfg);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "%s: out of memory", file);
  }
  rc = parse_ref(cfg, file, r, err, errlen);
  um_config_free(cfg);
  if (rc) {
    um_ref_free(r);
    return rc;
  }
  *ref = r;
  return UM_SUCCESS;
}

int um_ref_load(const char *path, um_ref **ref, char *err, size_t errlen) {
  um_config *cfg = NULL;
  if (!ref) return um_format_error(err, errlen, UM_ERR_ARG, "um_ref_load: ref is NULL");
  *ref = NULL;
  if (!path) return um_format_error(err, errlen, UM_ERR_ARG, "um_ref_load: path is NULL");
  FILE *f = fopen(path, "rb");
  if (!f)
    return um_format_error(err, errlen, UM_ERR_IO,
                 "cannot open validation reference '%s': %s; references live in "
                 "validation/<app>/<case>.ref.yaml",
                 path, strerror(errno));
  fclose(f);
  int rc = um_config_load_file(path, &cfg, err, errlen);
  return finish_load(cfg, rc, path, ref, err, errlen);
}

int um_ref_load_string(const char *yaml, const char *origin_name, um_ref **ref, char *err,
                       size_t errlen) {
  um_config *cfg = NULL;
  if (!ref) return um_format_error(err, errlen, UM_ERR_ARG, "um_ref_load_string: ref is NULL");
  *ref = NULL;
  const char *name = origin_name ? origin_name : "<string>";
  int rc = um_config_load_string(yaml, name, &cfg, err, errlen);
  return finish_load(cfg, rc, name, ref, err, errlen);
}

/* ---- validation ------------------------------------------------------------------ */
void um_validation_result_free(um_validation_result *res) {
  if (!res) return;
  if (res->metrics)
    for (int i = 0; i < res->nmetrics; i++) free(res->metrics[i].name);
  free(res->metrics);
  res->metrics = NULL;
  res->nmetrics = 0;
}

static void tol_text(char *buf, size_t len, const um_metric_result *m) {
  if (m->has_rel_tol && m->has_abs_tol)
    snprintf(buf, len, "rel %.3g or abs %.3g", m->rel_tol, m->abs_tol);
  else if (m->has_rel_tol)
    snprintf(buf, len, "rel %.3g", m->rel_tol);
  else
    snprintf(buf, len, "abs %.3g", m->abs_tol);
}

static void print_oneline(FILE *f, const char *s) {
  for (; *s; s++) fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

int um_validate(const um_ref *ref, const char *app, int nmetrics, const char *const *names,
                const double *values, FILE *report, um_validation_result *res) {
  if (!res) return UM_ERR_ARG;
  memset(res, 0, sizeof *res);
  if (!ref || nmetrics < 0 || (nmetrics > 0 && (!names || !values)))
    return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                 "um_validate: NULL reference or metric arrays");
  if (app && strcmp(app, ref->app))
    return um_format_error(res->message, sizeof res->message, UM_ERR_CONFIG,
                 "reference %s is for app '%s', but this run is app '%s'; use a reference from "
                 "validation/%s/",
                 ref->path, ref->app, app, app);
  for (int i = 0; i < nmetrics; i++) {
    if (!names[i])
      return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                   "um_validate: metric name %d is NULL", i);
    for (int j = 0; j < i; j++)
      if (!strcmp(names[i], names[j]))
        return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                     "um_validate: the run reports metric '%s' twice; give each metric once",
                     names[i]);
  }
  res->metrics =
      (um_metric_result *)calloc((size_t)(ref->nmetrics ? ref->nmetrics : 1), sizeof *res->metrics);
  if (!res->metrics)
    return um_format_error(res->message, sizeof res->message, UM_ERR_ALLOC, "um_validate: out of memory");
  res->nmetrics = ref->nmetrics;
  for (int i = 0; i < ref->nmetrics; i++) {
    const um_ref_metric *rm = &ref->metrics[i];
    um_metric_result *m = &res->metrics[i];
    if (!(m->name = dupstr(rm->name))) {
      um_validation_result_free(res);
      return um_format_error(res->message, sizeof res->message, UM_ERR_ALLOC, "um_validate: out of memory");
    }
    m->ref = rm->value;
    m->rel_tol = rm->rel_tol;
    m->abs_tol = rm->abs_tol;
    m->has_rel_tol = rm->has_rel_tol;
    m->has_abs_tol = rm->has_abs_tol;
    m->got = m->abs_err = m->rel_err = NAN;
    for (int j = 0; j < nmetrics; j++)
      if (!strcmp(names[j], rm->name)) {
        m->produced = 1;
        m->got = values[j];
      }
    if (m->produced) {
      double d = fabs(m->got - m->ref);
      m->abs_err = d;
      m->rel_err = m->ref != 0.0 ? d / fabs(m->ref) : (d == 0.0 ? 0.0 : (double)INFINITY);
      m->pass =
          (m->has_abs_tol && d <= m->abs_tol) || (m->has_rel_tol && d <= m->rel_tol * fabs(m->ref));
    } else {
      res->nmissing++;
    }
    if (m->pass)
      res->npass++;
    else
      res->nfail++;
  }
  for (int j = 0; j < nmetrics; j++) {
    int found = 0;
    for (int i = 0; i < ref->nmetrics && !found; i++)
      found = !strcmp(names[j], ref->metrics[i].name);
    if (!found) res->nextra++;
  }
  res->pass = res->nfail == 0;
  if (res->pass)
    snprintf(res->message, sizeof res->message,
             "validation PASSED: %d of %d metrics within tolerance of %s", res->npass,
             res->nmetrics, ref->path);
  else
    snprintf(res->message, sizeof res->message,
             "validation FAILED: %d of %d metrics failed (%d not produced by the run) against %s",
             res->nfail, res->nmetrics, res->nmissing, ref->path);

  if (report) {
    int w = 6;
    for (int i = 0; i < res->nmetrics; i++) {
      int l = (int)strlen(res->metrics[i].name);
      if (l > w) w = l;
    }
    fprintf(report, "validation: app %s, case %s, reference %s\n", ref->app, ref->case_name,
            ref->path);
    for (int i = 0; i < ref->nprovenance; i++) {
      fprintf(report, "  %-9s ", ref->provenance[i].key);
      print_oneline(report, ref->provenance[i].value);
      fputc('\n', report);
    }
    fprintf(report, "  %-*s  %22s  %22s  %9s  %-22s  %s\n", w, "metric", "reference", "got",
            "rel err", "tolerance", "result");
    for (int i = 0; i < res->nmetrics; i++) {
      const um_metric_result *m = &res->metrics[i];
      char tol[64], got[32], rel[16];
      tol_text(tol, sizeof tol, m);
      if (m->produced) {
        snprintf(got, sizeof got, "%.13g", m->got);
        snprintf(rel, sizeof rel, "%.2e", m->rel_err);
      } else {
        snprintf(got, sizeof got, "-");
        snprintf(rel, sizeof rel, "-");
      }
      fprintf(report, "  %-*s  %22.13g  %22s  %9s  %-22s  %s\n", w, m->name, m->ref, got, rel, tol,
              m->pass       ? "PASS"
              : m->produced ? "FAIL"
                            : "FAIL (not produced by the run)");
    }
    if (res->nextra) {
      fprintf(report, "  note: metrics not in the reference (not checked):");
      for (int j = 0; j < nmetrics; j++) {
        int found = 0;
        for (int i = 0; i < ref->nmetrics && !found; i++)
          found = !strcmp(names[j], ref->metrics[i].name);
        if (!found) fprintf(report, " %s", names[j]);
      }
      fputc('\n', report);
    }
    fprintf(report, "  %s\n", res->message);
  }
  return res->pass ? UM_SUCCESS : UM_ERR_VALIDATION;
}

/* ---- JSON ----------------------------------------------------------------------- */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void json_num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.17g", v);
  else
    fputs("null", f);
}

int um_validation_write_json(const um_ref *ref, const um_validation_result *res, FILE *f) {
  if (!ref || !res || !f) return UM_ERR_ARG;
  fputs("{\"app\": ", f);
  json_str(f, ref->app);
  fputs(", \"case\": ", f);
  json_str(f, ref->case_name);
  fputs(", \"reference\": ", f);
  json_str(f, ref->path);
  fputs(", \"provenance\": {", f);
  for (int i = 0; i < ref->nprovenance; i++) {
    if (i) fputs(", ", f);
    json_str(f, ref->provenance[i].key);
    fputs(": ", f);
    json_str(f, ref->provenance[i].value);
  }
  fprintf(f, "}, \"pass\": %s, \"npass\": %d, \"nfail\": %d, \"nmissing\": %d, \"nextra\": %d",
          res->pass ? "true" : "false", res->npass, res->nfail, res->nmissing, res->nextra);
  fputs(", \"metrics\": [", f);
  for (int i = 0; i < res->nmetrics && res->metrics; i++) {
    const um_metric_result *m = &res->metrics[i];
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    json_str(f, m->name);
    fputs(", \"ref\": ", f);
    json_num(f, m->ref);
    fputs(", \"got\": ", f);
    json_num(f, m->produced ? m->got : NAN);
    fputs(", \"abs_err\": ", f);
    json_num(f, m->abs_err);
    fputs(", \"rel_err\": ", f);
    json_num(f, m->rel_err);
    fputs(", \"rel_tol\": ", f);
    json_num(f, m->has_rel_tol ? m->rel_tol : NAN);
    fputs(", \"abs_tol\": ", f);
    json_num(f, m->has_abs_tol ? m->abs_tol : NAN);
    fprintf(f, ", \"produced\": %s, \"pass\": %s}", m->produced ? "true" : "false",
            m->pass ? "true" : "false");
  }
  fputs("]}\n", f);
  return ferror(f) ? UM_ERR_IO : UM_SUCCESS;
}
