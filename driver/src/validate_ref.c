/* um: validation references: validation/<app>/<case>.ref.yaml read into um_ref.
 * Reference files are read with the config reader (um/config.h), so YAML
 * errors carry file:line:column and value errors the line they come from.
 * The checks of results against a reference are in validate.c (metrics, JSON) and
 * validate_fields.c (field files). */
#include "validate_internal.h"

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

/* The reference's provenance: a mapping of text entries, with at least code and command. */
static int parse_provenance(um_config *cfg, const char *file, um_ref *r, char *err, size_t errlen) {
  int rc = UM_SUCCESS, n;
  char e2[512], key[128];
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

  if ((rc = parse_provenance(cfg, file, r, err, errlen))) return rc;

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
