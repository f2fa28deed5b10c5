/* Config getters: typed values with defaults (recorded for printing), choices
 * with suggestions, and the tree's structure (um/config.h). */
#include "config_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "array.h"

static int ieq(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
  return *a == *b;
}

static void mark_read(cnode *n) {
  n->read = 1;
  for (int i = 0; i < n->n; i++) mark_read(n->kids[i]);
}

/* ---- getters ------------------------------------------------------------------------ */
static void note_default(um_config *c, const char *key, const char *value) {
  for (int i = 0; i < c->ndefs; i++)
    if (!strcmp(c->defs[i].key, key)) {
      char *v = value ? xstrdup(value) : NULL;
      if (value && !v) return;
      free(c->defs[i].value);
      c->defs[i].value = v;
      return;
    }
  if (UM_GROW(c->defs, c->capdefs, c->ndefs)) return; /* only used for printing: drop silently */
  char *k = xstrdup(key), *v = value ? xstrdup(value) : NULL;
  if (!k || (value && !v)) {
    free(k);
    free(v);
    return;
  }
  c->defs[c->ndefs].key = k;
  c->defs[c->ndefs].value = v;
  c->ndefs++;
}

/* Scalar at key, marked read; *out NULL if absent or null. */
static int get_scalar(um_config *c, const char *key, const char *what, cnode **out, char *err,
                      size_t errlen) {
  cnode *n;
  *out = NULL;
  if (!c) return um_format_error(err, errlen, UM_ERR_ARG, "config getter: cfg is NULL");
  int rc = um__cfg_lookup(c, key, &n, err, errlen);
  if (rc || !n) return rc;
  if (n->kind != N_SCALAR) {
    char org[256];
    um__cfg_origin_of(c, n, org, sizeof org);
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: expected %s, but it is a %s (from %s); give a single value, e.g. %s: ...", key,
                what, um__cfg_kind_name(n), org, key);
  }
  n->read = 1;
  if (!um__cfg_is_null(n)) *out = n;
  return UM_SUCCESS;
}

static int bad_value(const um_config *c, const cnode *n, const char *key, const char *what,
                     const char *hint, char *err, size_t errlen) {
  char org[256];
  um__cfg_origin_of(c, n, org, sizeof org);
  return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: expected %s, got '%.200s' (from %s); %s", key, what,
              n->value, org, hint);
}

int um_config_get_string(um_config *cfg, const char *key, const char *def, const char **out,
                         char *err, size_t errlen) {
  cnode *n;
  if (!out) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_get_string: out is NULL");
  *out = def;
  int rc = get_scalar(cfg, key, "a string", &n, err, errlen);
  if (rc) return rc;
  if (n)
    *out = n->value;
  else
    note_default(cfg, key, def);
  return UM_SUCCESS;
}

static int parse_ll(const char *s, long long *v) {
  const char *p = s;
  int neg = 0;
  if (*p == '+' || *p == '-') neg = *p++ == '-';
  int base = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p += 2;
  }
  if (!*p) return 0;
  for (const char *q = p; *q; q++) /* digits only: strtoull would take a second "0x", blanks, a sign */
    if (base == 16 ? !isxdigit((unsigned char)*q) : !isdigit((unsigned char)*q)) return 0;
  char *end;
  errno = 0;
  unsigned long long u = strtoull(p, &end, base);
  if (*end || errno == ERANGE) return errno == ERANGE ? -1 : 0;
  if (neg ? u > (unsigned long long)LLONG_MAX + 1ULL : u > (unsigned long long)LLONG_MAX) return -1;
  *v = neg ? (u == (unsigned long long)LLONG_MAX + 1ULL ? LLONG_MIN : -(long long)u) : (long long)u;
  return 1;
}

int um_config_get_long(um_config *cfg, const char *key, long long def, long long *out, char *err,
                       size_t errlen) {
  cnode *n;
  if (!out) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_get_long: out is NULL");
  *out = def;
  int rc = get_scalar(cfg, key, "an integer", &n, err, errlen);
  if (rc) return rc;
  if (!n) {
    char b[32];
    snprintf(b, sizeof b, "%lld", def);
    note_default(cfg, key, b);
    return UM_SUCCESS;
  }
  long long v;
  int ok = parse_ll(n->value, &v);
  if (ok < 0)
    return bad_value(cfg, n, key, "a 64-bit integer", "the value is out of range", err, errlen);
  if (!ok)
    return bad_value(cfg, n, key, "an integer", "write a whole number, e.g. 256", err, errlen);
  *out = v;
  return UM_SUCCESS;
}

int um_config_get_int(um_config *cfg, const char *key, int def, int *out, char *err,
                      size_t errlen) {
  cnode *n;
  if (!out) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_get_int: out is NULL");
  *out = def;
  int rc = get_scalar(cfg, key, "an integer", &n, err, errlen);
  if (rc) return rc;
  if (!n) {
    char b[32];
    snprintf(b, sizeof b, "%d", def);
    note_default(cfg, key, b);
    return UM_SUCCESS;
  }
  long long v;
  int ok = parse_ll(n->value, &v);
  if (ok < 0 || (ok > 0 && (v < INT_MIN || v > INT_MAX))) {
    char hint[96];
    snprintf(hint, sizeof hint, "give a value between %d and %d", INT_MIN, INT_MAX);
    return bad_value(cfg, n, key, "an integer in range", hint, err, errlen);
  }
  if (!ok)
    return bad_value(cfg, n, key, "an integer", "write a whole number, e.g. 256", err, errlen);
  *out = (int)v;
  return UM_SUCCESS;
}

/* Does the number's text have a nonzero digit before its exponent ("1e-400", not "0.0e5")? */
static int mantissa_nonzero(const char *s) {
  int hex = 0;
  for (const char *p = s; *p; p++) {
    if (*p == 'x' || *p == 'X') hex = 1;
    else if (hex ? (*p == 'p' || *p == 'P') : (*p == 'e' || *p == 'E')) break;
    else if ((*p >= '1' && *p <= '9') || (hex && isxdigit((unsigned char)*p) && *p != '0')) return 1;
  }
  return 0;
}

int um_config_get_double(um_config *cfg, const char *key, double def, double *out, char *err,
                         size_t errlen) {
  cnode *n;
  if (!out) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_get_double: out is NULL");
  *out = def;
  int rc = get_scalar(cfg, key, "a number", &n, err, errlen);
  if (rc) return rc;
  if (!n) {
    char b[40];
    snprintf(b, sizeof b, "%.15g", def); /* shortest text that reads back exactly */
    if (strtod(b, NULL) != def) snprintf(b, sizeof b, "%.17g", def);
    note_default(cfg, key, b);
    return UM_SUCCESS;
  }
  const char *s = n->value;
  const char *t = (*s == '+' || *s == '-') ? s + 1 : s;
  if (!strcmp(t, ".inf") || !strcmp(t, ".Inf") || !strcmp(t, ".INF")) {
    *out = *s == '-' ? -HUGE_VAL : HUGE_VAL;
    return UM_SUCCESS;
  }
  if (t == s && (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))) {
    *out = NAN;
    return UM_SUCCESS;
  }
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || isspace((unsigned char)*s))
    return bad_value(cfg, n, key, "a number", "write e.g. 0.5 or 1.0e-7", err, errlen);
  if (errno == ERANGE && isinf(v))
    return bad_value(cfg, n, key, "a number in double range", "give a smaller magnitude", err,
                     errlen);
  if ((v == 0 || fpclassify(v) == FP_SUBNORMAL) && mantissa_nonzero(s)) /* 1e-400: not a silent 0 */
    return bad_value(cfg, n, key, "a number in double range",
                     "its magnitude is below the smallest normal double (2.2250738585072014e-308): write 0, or a "
                     "larger magnitude", err, errlen);
  *out = v;
  return UM_SUCCESS;
}

int um_config_get_bool(um_config *cfg, const char *key, int def, int *out, char *err,
                       size_t errlen) {
  static const char *const yes[] = {"true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  cnode *n;
  if (!out) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_get_bool: out is NULL");
  *out = def ? 1 : 0;
  int rc = get_scalar(cfg, key, "true or false", &n, err, errlen);
  if (rc) return rc;
  if (!n) {
    note_default(cfg, key, def ? "true" : "false");
    return UM_SUCCESS;
  }
  for (int i = 0; i < 4; i++) {
    if (ieq(n->value, yes[i])) {
      *out = 1;
      return UM_SUCCESS;
    }
    if (ieq(n->value, no[i])) {
      *out = 0;
      return UM_SUCCESS;
    }
  }
  return bad_value(cfg, n, key, "true or false", "write true/false (or yes/no, on/off, 1/0)", err,
                   errlen);
}

int um__cfg_edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 127 || lb > 127) return INT_MAX;
  int row[128];
  for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    int prev = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int cur = row[j];
      int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
      int v = prev + cost;
      if (row[j] + 1 < v) v = row[j] + 1;
      if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
      row[j] = v;
      prev = cur;
    }
  }
  return row[lb];
}

int um__cfg_close_enough(const char *a, const char *b, int d) {
  size_t l = strlen(a) > strlen(b) ? strlen(a) : strlen(b);
  return d <= 2 || (size_t)d * 4 <= l;
}

int um_config_get_choice(um_config *cfg, const char *key, const char *def,
                         const char *const *choices, int nchoices, int *index, char *err,
                         size_t errlen) {
  cnode *n;
  if (!index || !choices || nchoices <= 0)
    return um_format_error(err, errlen, UM_ERR_ARG, "um_config_get_choice(%s): no choices given",
                key ? key : "");
  *index = -1;
  int di = -1;
  if (def) {
    for (int i = 0; i < nchoices; i++)
      if (choices[i] && ieq(def, choices[i])) di = i;
    if (di < 0)
      return um_format_error(err, errlen, UM_ERR_ARG,
                  "um_config_get_choice(%s): default '%s' is not one of the choices",
                  key ? key : "", def);
  }
  int rc = get_scalar(cfg, key, "one of a list of names", &n, err, errlen);
  if (rc) return rc;
  if (!n) {
    *index = di;
    note_default(cfg, key, def);
    return UM_SUCCESS;
  }
  int best = -1, bestd = INT_MAX;
  for (int i = 0; i < nchoices; i++) {
    if (!choices[i]) continue;
    if (ieq(n->value, choices[i])) {
      *index = i;
      return UM_SUCCESS;
    }
    int d = um__cfg_edit_distance(n->value, choices[i]);
    if (d < bestd) {
      bestd = d;
      best = i;
    }
  }
  sbuf b = {0};
  for (int i = 0; i < nchoices; i++) {
    if (!choices[i]) continue;
    if (b.n) sb_add(&b, ", ");
    sb_add(&b, choices[i]);
  }
  char org[256];
  um__cfg_origin_of(cfg, n, org, sizeof org);
  if (best >= 0 && um__cfg_close_enough(n->value, choices[best], bestd))
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
              "%s: unknown value '%.200s'; expected one of: %s (from %s); did you mean '%s'?", key,
              n->value, sb_str(&b), org, choices[best]);
  else
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
              "%s: unknown value '%.200s'; expected one of: %s (from %s)", key, n->value,
              sb_str(&b), org);
  free(b.s);
  return rc;
}

/* ---- structure -------------------------------------------------------------------- */
int um_config_has(const um_config *cfg, const char *key) {
  return um_config_kind(cfg, key) != UM_CONFIG_ABSENT;
}

um_config_kind_t um_config_kind(const um_config *cfg, const char *key) {
  cnode *n;
  if (!cfg || um__cfg_lookup(cfg, key, &n, NULL, 0) || !n) return UM_CONFIG_ABSENT;
  if (n->kind == N_MAP) return UM_CONFIG_MAPPING;
  if (n->kind == N_SEQ) return UM_CONFIG_SEQUENCE;
  return um__cfg_is_null(n) ? UM_CONFIG_NULL : UM_CONFIG_SCALAR;
}

static int lookup_any(const um_config *c, const char *key, cnode **n, char *err, size_t errlen) {
  if (!key || !*key) {
    *n = c->root;
    return UM_SUCCESS;
  }
  return um__cfg_lookup(c, key, n, err, errlen);
}

int um_config_keys(const um_config *cfg, const char *key, int *n, const char **names, int cap,
                   char *err, size_t errlen) {
  cnode *m;
  if (!cfg || !n || (cap > 0 && !names))
    return um_format_error(err, errlen, UM_ERR_ARG, "um_config_keys: NULL argument");
  *n = 0;
  int rc = lookup_any(cfg, key, &m, err, errlen);
  if (rc || !m || um__cfg_is_null(m)) return rc;
  if (m->kind != N_MAP) {
    char org[256];
    um__cfg_origin_of(cfg, m, org, sizeof org);
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: expected a mapping of keys, but it is a %s (from %s); write '%s:' followed "
                "by indented 'name: value' lines",
                key, um__cfg_kind_name(m), org, key);
  }
  for (int i = 0; i < m->n && i < cap; i++) names[i] = m->keys[i];
  *n = m->n;
  m->read = 1; /* an empty mapping asked for is no unknown key */
  return UM_SUCCESS;
}

int um_config_size(const um_config *cfg, const char *key, int *n, char *err, size_t errlen) {
  cnode *m;
  if (!cfg || !n) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_size: NULL argument");
  *n = 0;
  int rc = lookup_any(cfg, key, &m, err, errlen);
  if (rc || !m || um__cfg_is_null(m)) return rc;
  if (m->kind == N_SCALAR) {
    char org[256];
    um__cfg_origin_of(cfg, m, org, sizeof org);
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: expected a sequence or mapping, but it is a single value ('%.100s', from %s); "
                "write a list, e.g. %s: [1, 2]",
                key, m->value, org, key);
  }
  *n = m->n;
  m->read = 1; /* an empty sequence or mapping asked for is no unknown key */
  return UM_SUCCESS;
}

int um_config_origin(const um_config *cfg, const char *key, char *buf, size_t len) {
  cnode *n;
  if (buf && len) buf[0] = '\0';
  if (!cfg || !buf || !len) return UM_ERR_ARG;
  int rc = lookup_any(cfg, key, &n, NULL, 0);
  if (rc) return rc;
  if (!n) return UM_ERR_CONFIG;
  um__cfg_origin_of(cfg, n, buf, len);
  return UM_SUCCESS;
}

int um_config_mark_read(um_config *cfg, const char *key, char *err, size_t errlen) {
  cnode *n;
  if (!cfg) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_mark_read: cfg is NULL");
  int rc = lookup_any(cfg, key, &n, err, errlen);
  if (rc || !n) return rc;
  mark_read(n);
  return UM_SUCCESS;
}
