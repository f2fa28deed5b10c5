/* um: validation of run results against validation/<app>/<case>.ref.yaml.
 * Reference files are read with the config reader (um/config.h), so YAML
 * errors carry file:line:column and value errors the line they come from. */
#include "um/validate.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "um/config.h"
#include "um/safe_file.h"

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
  for (int i = 0; i < ref->nfields; i++) {
    free(ref->fields[i].name);
    free(ref->fields[i].file);
    free(ref->fields[i].path);
  }
  free(ref->fields);
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

/* The folder of `file` joined with `rel` (or rel itself if absolute). */
static char *resolve_path(const char *file, const char *rel) {
  if (rel[0] == '/') return dupstr(rel);
  const char *slash = strrchr(file, '/');
  size_t dl = slash ? (size_t)(slash - file) + 1 : 0, rl = strlen(rel);
  char *p = (char *)malloc(dl + rl + 1);
  if (!p) return NULL;
  memcpy(p, file, dl);
  memcpy(p + dl, rel, rl + 1);
  return p;
}

static int parse_fields(um_config *cfg, const char *file, um_ref *r, char *err, size_t errlen) {
  static const char *const fkeys[] = {"name", "file", "rel_tol", "floor"};
  const char *const example = "{name: q, file: q.txt, rel_tol: 1.0e-6, floor: 1.0e-12}";
  int rc, n;
  char e2[512], key[128], where[256];
  um_config_kind_t fk = um_config_kind(cfg, "fields");
  if (fk != UM_CONFIG_SEQUENCE)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                 "%s:%d: 'fields' is a %s; give a list, e.g. fields: [%s]", file,
                 origin_line(cfg, "fields"), kind_word(fk), example);
  if ((rc = um_config_size(cfg, "fields", &n, e2, sizeof e2)))
    return um_format_error(err, errlen, rc, "%s: %s", file, e2);
  if (n == 0)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                 "%s:%d: 'fields' is empty; list at least one field, or leave the key out", file,
                 origin_line(cfg, "fields"));
  r->fields = (um_ref_field *)calloc((size_t)n, sizeof *r->fields);
  if (!r->fields) return um_format_error(err, errlen, UM_ERR_ALLOC, "%s: out of memory", file);
  for (int i = 0; i < n; i++) {
    um_ref_field *f = &r->fields[i];
    char base[64];
    snprintf(base, sizeof base, "fields.%d", i);
    f->line = origin_line(cfg, base);
    um_config_kind_t k = um_config_kind(cfg, base);
    if (k != UM_CONFIG_MAPPING)
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                   "%s:%d: fields[%d] is a %s; each field is a mapping like %s", file, f->line, i,
                   kind_word(k), example);
    snprintf(key, sizeof key, "%s.name", base);
    snprintf(where, sizeof where, "fields[%d]: ", i);
    if ((rc = req_string(cfg, file, where, key, "name",
                         "every field needs name, file and rel_tol (floor is optional)", &f->name,
                         err, errlen)))
      return rc;
    r->nfields = i + 1;
    snprintf(where, sizeof where, "fields[%d] (%.100s): ", i, f->name);
    if ((rc = check_keys(cfg, file, where, base, fkeys, 4, "name, file, rel_tol, floor", err,
                         errlen)))
      return rc;
    for (int j = 0; j < i; j++)
      if (!strcmp(r->fields[j].name, f->name))
        return um_format_error(err, errlen, UM_ERR_CONFIG,
                     "%s:%d: %sname '%s' is used twice (also fields[%d], line %d); field names "
                     "must be unique",
                     file, f->line, where, f->name, j, r->fields[j].line);
    int has;
    snprintf(key, sizeof key, "%s.rel_tol", base);
    if ((rc = opt_number(cfg, file, where, key, "rel_tol", 1, &f->rel_tol, &has, err, errlen)))
      return rc;
    if (!has)
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                   "%s:%d: %smissing 'rel_tol'; give the relative tolerance of each value, e.g. "
                   "rel_tol: 1.0e-6 (and floor: the magnitude below which values are not compared)",
                   file, f->line, where);
    snprintf(key, sizeof key, "%s.floor", base);
    if ((rc = opt_number(cfg, file, where, key, "floor", 1, &f->floor, &has, err, errlen)))
      return rc;
    if (!has) f->floor = 0.0;
    snprintf(key, sizeof key, "%s.file", base);
    if ((rc = req_string(cfg, file, where, key, "file",
                         "give the reference file, relative to this .ref.yaml's folder", &f->file,
                         err, errlen)))
      return rc;
    if (!(f->path = resolve_path(file, f->file)))
      return um_format_error(err, errlen, UM_ERR_ALLOC, "%s: out of memory", file);
    /* checked now, before any run: a regular file (a FIFO or a device such as
     * /dev/zero is refused at once, not read without end after the run) */
    char whybuf[512];
    const char *why = um_read_check(f->path, UM_FIELD_MAX_BYTES, whybuf, sizeof whybuf) ? whybuf : NULL;
    if (why)
      return um_format_error(err, errlen, UM_ERR_IO,
                   "%s:%d: %scannot read reference file '%s' (file: %s, relative to the folder of "
                   "the .ref.yaml unless absolute): %s; fix the path or add the file",
                   file, f->line, where, f->path, f->file, why);
  }
  return UM_SUCCESS;
}

static int parse_ref(um_config *cfg, const char *file, um_ref *r, char *err, size_t errlen) {
  static const char *const top[] = {"app", "case", "provenance", "metrics", "fields", "description"};
  static const char *const mkeys[] = {"name", "value", "rel_tol", "abs_tol"};
  int rc, n;
  char e2[512], key[128], where[256];

  if ((rc = check_keys(cfg, file, "", "", top, 6, "app, case, provenance, metrics, fields, description",
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

  /* metrics (optional when fields are given) */
  um_config_kind_t mk = um_config_kind(cfg, "metrics");
  um_config_kind_t fk = um_config_kind(cfg, "fields");
  if (mk == UM_CONFIG_ABSENT && fk == UM_CONFIG_ABSENT)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                 "%s: 'metrics' is missing (and there are no 'fields'); give a list, e.g. metrics: "
                 "[{name: rms, value: 1.0e-4, rel_tol: 1.0e-7}], and/or fields: [{name: q, file: "
                 "q.txt, rel_tol: 1.0e-6}]",
                 file);
  if (mk == UM_CONFIG_ABSENT) return parse_fields(cfg, file, r, err, errlen);
  if (mk != UM_CONFIG_SEQUENCE)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                 "%s: 'metrics' is a %s; give a list, e.g. metrics: [{name: rms, value: 1.0e-4, "
                 "rel_tol: 1.0e-7}]",
                 file, kind_word(mk));
  if ((rc = um_config_size(cfg, "metrics", &n, e2, sizeof e2)))
    return um_format_error(err, errlen, rc, "%s: %s", file, e2);
  if (n == 0)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                 "%s:%d: 'metrics' is empty; list at least one metric, or leave the key out when "
                 "the reference checks fields only", file,
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
  return fk == UM_CONFIG_ABSENT ? UM_SUCCESS : parse_fields(cfg, file, r, err, errlen);
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
  char why[512];
  if (um_read_check(path, 0, why, sizeof why)) /* a regular file; its size is the config loader's to bound */
    return um_format_error(err, errlen, UM_ERR_IO,
                 "cannot open validation reference '%s': %s; references live in "
                 "validation/<app>/<case>.ref.yaml",
                 path, why);
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
static void free_fields(um_validation_result *res) {
  if (res->fields)
    for (int i = 0; i < res->nfields; i++) {
      free(res->fields[i].name);
      free(res->fields[i].ref_path);
      free(res->fields[i].got_path);
    }
  free(res->fields);
  res->fields = NULL;
  res->nfields = res->nfields_pass = res->nfields_fail = res->nfields_missing = res->nfields_extra = 0;
}

void um_validation_result_free(um_validation_result *res) {
  if (!res) return;
  if (res->metrics)
    for (int i = 0; i < res->nmetrics; i++) free(res->metrics[i].name);
  free(res->metrics);
  res->metrics = NULL;
  res->nmetrics = 0;
  free_fields(res);
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
    if (res->nmetrics)
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
    if (ref->nfields == 0)
      fprintf(report, "  %s\n", res->message);
    else if (res->nmetrics) /* the verdict comes after the fields (um_validate_fields) */
      fprintf(report, "  %d of %d metrics within tolerance\n", res->npass, res->nmetrics);
  }
  return res->pass ? UM_SUCCESS : UM_ERR_VALIDATION;
}

/* ---- fields: text files compared value by value ----------------------------------- */

/* Next line of f into *buf (getline: any length); 1 = a line, 0 = end, -1 = read error. */
static int next_line(FILE *f, char **buf, size_t *cap) {
  errno = 0;
  ssize_t n = getline(buf, cap, f);
  if (n >= 0) return 1;
  return ferror(f) ? -1 : 0;
}

static int count_tokens(const char *s) {
  int n = 0;
  for (;;) {
    while (*s && isspace((unsigned char)*s)) s++;
    if (!*s) return n;
    n++;
    while (*s && !isspace((unsigned char)*s)) s++;
  }
}

/* The next token at *s, NUL-terminated in place; *s moves past it. */
static char *next_token(char **s) {
  char *p = *s;
  while (*p && isspace((unsigned char)*p)) p++;
  char *t = p;
  while (*p && !isspace((unsigned char)*p)) p++;
  if (*p) *p++ = '\0';
  *s = p;
  return t;
}

/* The whole token is a number (strtod). */
static int parse_number(const char *t, double *v) {
  char *end;
  *v = strtod(t, &end);
  return end != t && *end == '\0';
}

/* Text that strtod reads as NaN or infinity ("nan", "-inf", "Infinity", ...). */
static int nonfinite_text(const char *t) {
  const char *p = t + (*t == '+' || *t == '-');
  double v;
  return (*p == 'n' || *p == 'N' || *p == 'i' || *p == 'I') && parse_number(t, &v) && !isfinite(v);
}

/* a ranks before b in the worst list: failing first, then larger rel_err. */
static int worse(const um_field_entry *a, const um_field_entry *b) {
  if (a->pass != b->pass) return !a->pass;
  return a->rel_err > b->rel_err;
}

static void keep_worst(um_field_result *res, int k, const um_field_entry *e) {
  if (k <= 0 || (e->pass && !(e->rel_err > 0))) return;
  int pos = res->nworst;
  while (pos > 0 && worse(e, &res->worst[pos - 1])) pos--;
  if (pos >= k) return;
  int last = res->nworst < k ? res->nworst : k - 1;
  memmove(&res->worst[pos + 1], &res->worst[pos], (size_t)(last - pos) * sizeof *e);
  res->worst[pos] = *e;
  if (res->nworst < k) res->nworst++;
}

static void compare_pair(um_field_result *res, int k, long line, int column, const char *g,
                         const char *r) {
  um_field_entry e;
  e.line = line;
  e.column = column;
  e.ref = e.got = NAN;
  e.rel_err = 0;
  e.pass = 1;
  res->ncompared++;
  if (!strcmp(g, r) && !nonfinite_text(g)) return; /* identical text */
  int gn = parse_number(g, &e.got), rn = parse_number(r, &e.ref);
  if (!gn) e.got = NAN;
  if (!rn) e.ref = NAN;
  if (!gn || !rn || !isfinite(e.got) || !isfinite(e.ref)) {
    e.rel_err = INFINITY;
    e.pass = 0;
  } else {
    double m = fmax(fabs(e.got), fabs(e.ref));
    if (m > res->floor) {
      e.rel_err = fabs(e.got - e.ref) / m;
      e.pass = e.rel_err <= res->rel_tol;
    }
  }
  if (!(e.rel_err <= res->max_rel_err)) res->max_rel_err = e.rel_err;
  if (!e.pass) res->nfailing++;
  if (!e.pass || e.rel_err > 0) {
    snprintf(e.ref_text, sizeof e.ref_text, "%s", r);
    snprintf(e.got_text, sizeof e.got_text, "%s", g);
    keep_worst(res, k, &e);
  }
}

static void field_summary(um_field_result *res, const char *first_bad_line) {
  const size_t n = sizeof res->message;
  if (res->nlines_got != res->nlines_ref)
    snprintf(res->message, n,
             "the run's file has %ld lines, the reference has %ld (%ld values compared on the "
             "common lines, %ld failing)",
             res->nlines_got, res->nlines_ref, res->ncompared, res->nfailing);
  else if (res->nbad_lines)
    snprintf(res->message, n, "%s (%ld lines with a different number of values; %ld of %ld values compared failing)",
             first_bad_line, res->nbad_lines, res->nfailing, res->ncompared);
  else if (res->nfailing) {
    const um_field_entry *w = &res->worst[0];
    if (res->nworst > 0)
      snprintf(res->message, n,
               "%ld of %ld values out of tolerance (rel_tol %g, floor %g); worst at line %ld, "
               "column %d: reference %s, got %s, rel err %.3e",
               res->nfailing, res->ncompared, res->rel_tol, res->floor, w->line, w->column,
               w->ref_text, w->got_text, w->rel_err);
    else
      snprintf(res->message, n, "%ld of %ld values out of tolerance (rel_tol %g, floor %g)",
               res->nfailing, res->ncompared, res->rel_tol, res->floor);
  } else
    snprintf(res->message, n, "%ld values within rel_tol %g (floor %g), max rel err %.3e",
             res->ncompared, res->rel_tol, res->floor, res->max_rel_err);
}

int um_field_compare_files(const char *got, const char *ref, double rel_tol, double floor_value,
                           int worst_k, um_field_result *res, char *err, size_t errlen) {
  if (!res)
    return um_format_error(err, errlen, UM_ERR_ARG, "um_field_compare_files: res is NULL");
  memset(res, 0, sizeof *res);
  res->produced = 1;
  res->rel_tol = rel_tol;
  res->floor = floor_value;
  int rc = UM_SUCCESS;
  if (!got || !ref)
    rc = um_format_error(err, errlen, UM_ERR_ARG, "um_field_compare_files: %s path is NULL",
                         got ? "the reference" : "the run's");
  else if (!(rel_tol >= 0) || !(floor_value >= 0) || !isfinite(rel_tol) || !isfinite(floor_value))
    rc = um_format_error(err, errlen, UM_ERR_ARG,
                         "um_field_compare_files: rel_tol %g and floor %g must be finite and >= 0",
                         rel_tol, floor_value);
  if (rc) {
    snprintf(res->message, sizeof res->message, "%s", err ? err : "bad arguments");
    return rc;
  }
  const int k = worst_k < 0 ? UM_FIELD_WORST_DEFAULT
                            : worst_k > UM_FIELD_WORST_MAX ? UM_FIELD_WORST_MAX : worst_k;
  char why[512] = "";
  FILE *fg = um_read_open(got, UM_FIELD_MAX_BYTES, NULL, why, sizeof why);
  FILE *fr = fg ? um_read_open(ref, UM_FIELD_MAX_BYTES, NULL, why, sizeof why) : NULL;
  if (!fg || !fr) {
    const int gbad = !fg;
    rc = um_format_error(res->message, sizeof res->message, UM_ERR_IO,
                         "cannot open %s '%s': %s", gbad ? "the run's field file" : "the reference field file",
                         gbad ? got : ref, why);
    if (err && errlen) snprintf(err, errlen, "%s", res->message);
    if (fg) fclose(fg);
    if (fr) fclose(fr);
    return rc;
  }
  char *lg = NULL, *lr = NULL, bad[256] = "";
  size_t cg = 0, cr = 0;
  for (;;) {
    int hg = next_line(fg, &lg, &cg), hr = next_line(fr, &lr, &cr);
    if (hg < 0 || hr < 0) {
      rc = um_format_error(res->message, sizeof res->message, UM_ERR_IO,
                           "reading %s '%s' after line %ld: %s",
                           hg < 0 ? "the run's field file" : "the reference field file",
                           hg < 0 ? got : ref, hg < 0 ? res->nlines_got : res->nlines_ref,
                           strerror(errno ? errno : EIO));
      if (err && errlen) snprintf(err, errlen, "%s", res->message);
      break;
    }
    if (!hg && !hr) break;
    res->nlines_got += hg;
    res->nlines_ref += hr;
    if (!hg || !hr) continue; /* one file is longer: count its lines */
    const long line = res->nlines_ref;
    int ng = count_tokens(lg), nr = count_tokens(lr);
    if (ng != nr) {
      if (!res->nbad_lines++)
        snprintf(bad, sizeof bad, "line %ld: the run's file has %d values, the reference has %d",
                 line, ng, nr);
      continue;
    }
    char *pg = lg, *pr = lr;
    for (int c = 1; c <= ng; c++) {
      char *tg = next_token(&pg), *tr = next_token(&pr);
      compare_pair(res, k, line, c, tg, tr);
    }
  }
  free(lg);
  free(lr);
  fclose(fg);
  fclose(fr);
  if (rc) return rc;
  res->pass = res->nlines_got == res->nlines_ref && !res->nbad_lines && !res->nfailing;
  field_summary(res, bad);
  return res->pass ? UM_SUCCESS : UM_ERR_VALIDATION;
}

static void field_tol_text(char *buf, size_t len, const um_field_result *f) {
  if (f->floor > 0)
    snprintf(buf, len, "rel %.3g, floor %.3g", f->rel_tol, f->floor);
  else
    snprintf(buf, len, "rel %.3g", f->rel_tol);
}

static void print_fields(FILE *report, const um_ref *ref, const um_validation_result *res,
                         int nnames, const char *const *names) {
  int w = 5;
  for (int i = 0; i < res->nfields; i++) {
    int l = (int)strlen(res->fields[i].name);
    if (l > w) w = l;
  }
  fprintf(report, "  %-*s  %12s  %9s  %11s  %-24s  %s\n", w, "field", "values", "failing",
          "max rel err", "tolerance", "result");
  for (int i = 0; i < res->nfields; i++) {
    const um_field_result *f = &res->fields[i];
    char tol[64], mx[16];
    field_tol_text(tol, sizeof tol, f);
    if (f->produced)
      snprintf(mx, sizeof mx, "%.2e", f->max_rel_err);
    else
      snprintf(mx, sizeof mx, "-");
    fprintf(report, "  %-*s  %12ld  %9ld  %11s  %-24s  %s\n", w, f->name, f->ncompared,
            f->nfailing, mx, tol,
            f->pass       ? "PASS"
            : f->produced ? "FAIL"
                          : "FAIL (not produced by the run)");
    if (!f->produced) continue;
    if (!f->pass && (!f->nfailing || f->nbad_lines || f->nlines_got != f->nlines_ref)) {
      /* what is not in the worst entries: structure, or a file that could not be read */
      fprintf(report, "    %s: ", f->name);
      print_oneline(report, f->message);
      fputc('\n', report);
    }
    for (int j = 0; j < f->nworst; j++) {
      const um_field_entry *e = &f->worst[j];
      fprintf(report, "    %s line %ld, column %d: reference %s, got %s, rel err %.3e%s\n",
              j ? "     " : "worst", e->line, e->column, e->ref_text, e->got_text, e->rel_err,
              e->pass ? "" : " FAIL");
    }
    fprintf(report, "    run's file %s, reference %s\n", f->got_path ? f->got_path : "-",
            f->ref_path ? f->ref_path : "-");
  }
  if (res->nfields_extra) {
    fprintf(report, "  note: fields not in the reference (not checked):");
    for (int j = 0; j < nnames; j++) {
      int found = 0;
      for (int i = 0; i < ref->nfields && !found; i++) found = !strcmp(names[j], ref->fields[i].name);
      if (!found) fprintf(report, " %s", names[j]);
    }
    fputc('\n', report);
  }
}

int um_validate_fields(const um_ref *ref, int nfields, const char *const *names,
                       const char *const *paths, FILE *report, um_validation_result *res) {
  if (!res) return UM_ERR_ARG;
  if (!ref || nfields < 0 || (nfields > 0 && (!names || !paths)))
    return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                 "um_validate_fields: NULL reference or field arrays");
  for (int i = 0; i < nfields; i++) {
    if (!names[i] || !paths[i])
      return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                   "um_validate_fields: field %d has a NULL %s", i, names[i] ? "path" : "name");
    for (int j = 0; j < i; j++)
      if (!strcmp(names[i], names[j]))
        return um_format_error(res->message, sizeof res->message, UM_ERR_ARG,
                     "um_validate_fields: the run registers field '%s' twice; give each field once",
                     names[i]);
  }
  free_fields(res);
  res->fields =
      (um_field_result *)calloc((size_t)(ref->nfields ? ref->nfields : 1), sizeof *res->fields);
  if (!res->fields)
    return um_format_error(res->message, sizeof res->message, UM_ERR_ALLOC,
                 "um_validate_fields: out of memory");
  res->nfields = ref->nfields;
  for (int i = 0; i < ref->nfields; i++) {
    const um_ref_field *rf = &ref->fields[i];
    um_field_result *f = &res->fields[i];
    int at = -1;
    for (int j = 0; j < nfields && at < 0; j++)
      if (!strcmp(names[j], rf->name)) at = j;
    if (at >= 0) {
      char e2[512];
      um_field_compare_files(paths[at], rf->path, rf->rel_tol, rf->floor, UM_FIELD_WORST_DEFAULT,
                             f, e2, sizeof e2); /* an unreadable file fails the field, as said in f->message */
    } else {
      memset(f, 0, sizeof *f);
      f->rel_tol = rf->rel_tol;
      f->floor = rf->floor;
      f->max_rel_err = NAN;
      snprintf(f->message, sizeof f->message,
               "not produced by the run: the app registered no field '%s' (um_app_field)", rf->name);
      res->nfields_missing++;
    }
    f->name = dupstr(rf->name);
    f->ref_path = dupstr(rf->path);
    f->got_path = at >= 0 ? dupstr(paths[at]) : NULL;
    if (!f->name || !f->ref_path || (at >= 0 && !f->got_path)) {
      free_fields(res);
      return um_format_error(res->message, sizeof res->message, UM_ERR_ALLOC,
                   "um_validate_fields: out of memory");
    }
    if (f->pass)
      res->nfields_pass++;
    else
      res->nfields_fail++;
  }
  for (int j = 0; j < nfields; j++) {
    int found = 0;
    for (int i = 0; i < ref->nfields && !found; i++) found = !strcmp(names[j], ref->fields[i].name);
    if (!found) res->nfields_extra++;
  }
  res->pass = res->nfail == 0 && res->nfields_fail == 0;
  if (res->pass)
    snprintf(res->message, sizeof res->message,
             "validation PASSED: %d of %d metrics and %d of %d fields within tolerance of %s",
             res->npass, res->nmetrics, res->nfields_pass, res->nfields, ref->path);
  else
    snprintf(res->message, sizeof res->message,
             "validation FAILED: %d of %d metrics (%d not produced) and %d of %d fields (%d not "
             "produced) failed against %s",
             res->nfail, res->nmetrics, res->nmissing, res->nfields_fail, res->nfields,
             res->nfields_missing, ref->path);
  if (report) {
    if (res->nfields) print_fields(report, ref, res, nfields, names);
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
  fprintf(f, ", \"nfields_pass\": %d, \"nfields_fail\": %d, \"nfields_missing\": %d, \"nfields_extra\": %d",
          res->nfields_pass, res->nfields_fail, res->nfields_missing, res->nfields_extra);
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
  fputs("], \"fields\": [", f);
  for (int i = 0; i < res->nfields && res->fields; i++) {
    const um_field_result *fr = &res->fields[i];
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    json_str(f, fr->name);
    fputs(", \"reference\": ", f);
    json_str(f, fr->ref_path);
    fputs(", \"file\": ", f);
    if (fr->got_path)
      json_str(f, fr->got_path);
    else
      fputs("null", f);
    fputs(", \"rel_tol\": ", f);
    json_num(f, fr->rel_tol);
    fputs(", \"floor\": ", f);
    json_num(f, fr->floor);
    fprintf(f, ", \"produced\": %s, \"lines\": %ld, \"lines_ref\": %ld, \"compared\": %ld, "
               "\"failing\": %ld, \"bad_lines\": %ld, \"max_rel_err\": ",
            fr->produced ? "true" : "false", fr->nlines_got, fr->nlines_ref, fr->ncompared,
            fr->nfailing, fr->nbad_lines);
    json_num(f, fr->produced ? fr->max_rel_err : NAN);
    fprintf(f, ", \"pass\": %s, \"message\": ", fr->pass ? "true" : "false");
    json_str(f, fr->message);
    fputs(", \"worst\": [", f);
    for (int j = 0; j < fr->nworst; j++) {
      const um_field_entry *e = &fr->worst[j];
      fprintf(f, "%s{\"line\": %ld, \"column\": %d, \"ref\": ", j ? ", " : "", e->line, e->column);
      json_num(f, e->ref);
      fputs(", \"got\": ", f);
      json_num(f, e->got);
      fputs(", \"rel_err\": ", f);
      json_num(f, e->rel_err);
      fputs(", \"ref_text\": ", f);
      json_str(f, e->ref_text);
      fputs(", \"got_text\": ", f);
      json_str(f, e->got_text);
      fprintf(f, ", \"pass\": %s}", e->pass ? "true" : "false");
    }
    fputs("]}", f);
  }
  fputs("]}\n", f);
  return ferror(f) ? UM_ERR_IO : UM_SUCCESS;
}
