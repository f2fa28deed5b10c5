/* The registry of the engine's declared options (um/option_decl.h): the
 * components' tables in one list, parsing a value against its declaration,
 * and applying key=value to um_options or to a context. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "option_tables.h"

typedef struct {
  const um_option *t;
  const int *n;
} table;

static const table tables[] = {
    {um_core_options, &um_core_noptions},
    {um_hostc_options, &um_hostc_noptions},
    {um_openmp_options, &um_openmp_noptions},
    {um_transform_options, &um_transform_noptions},
    {um_tune_options, &um_tune_noptions},
    {um_distributed_options, &um_distributed_noptions},
};
#define NTABLES ((int)(sizeof tables / sizeof tables[0]))

/* The settings the registered backend b declares (its um_backend_def.options), and their number. */
static const um_option *backend_options(int b, int *n) {
  const um_backend_def *d = um__backend_find(um_backend_at(b), NULL);
  *n = 0;
  if (!d || !d->options) return NULL;
  while (d->options[*n].key) (*n)++;
  return d->options;
}

int um_option_count(void) {
  int n = 0, nb;
  for (int t = 0; t < NTABLES; t++) n += *tables[t].n;
  for (int b = 0; b < um_backend_count(); b++) n += (backend_options(b, &nb), nb);
  return n;
}

const um_option *um_option_at(int i) {
  for (int t = 0; i >= 0 && t < NTABLES; t++) {
    if (i < *tables[t].n) return &tables[t].t[i];
    i -= *tables[t].n;
  }
  for (int b = 0; i >= 0 && b < um_backend_count(); b++) { /* then every backend's own settings */
    int nb;
    const um_option *o = backend_options(b, &nb);
    if (i < nb) return &o[i];
    i -= nb;
  }
  return NULL;
}

/* Does `key` match the declared `pat` ("mpi.loops.<loop>": a "<...>" component matches any one component)? */
int um_option_key_matches(const char *pat, const char *key) {
  while (*pat && *key) {
    const char *pe = strchr(pat, '.'), *ke = strchr(key, '.');
    const size_t pn = pe ? (size_t)(pe - pat) : strlen(pat), kn = ke ? (size_t)(ke - key) : strlen(key);
    if (!kn) return 0;
    if (!(pat[0] == '<' && pat[pn - 1] == '>') && (pn != kn || strncmp(pat, key, pn))) return 0;
    if (!pe != !ke) return 0;
    if (!pe) return 1;
    pat = pe + 1;
    key = ke + 1;
  }
  return 0;
}

const um_option *um_option_find(const char *key) {
  if (!key) return NULL;
  for (int i = 0; i < um_option_count(); i++)
    if (um_option_key_matches(um_option_at(i)->key, key)) return um_option_at(i);
  return NULL;
}

static int distance(const char *a, const char *b) {
  const size_t n = strlen(a), m = strlen(b);
  if (n > 127 || m > 127) return INT_MAX;
  int prev[128], cur[128];
  for (size_t j = 0; j <= m; j++) prev[j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    cur[0] = (int)i;
    for (size_t j = 1; j <= m; j++) {
      const int sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      const int del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, sizeof(int) * (m + 1));
  }
  return prev[m];
}

const char *um_option_nearest(const char *key, char *buf, size_t n) {
  int bd = INT_MAX;
  if (buf && n) buf[0] = '\0';
  if (!key || !buf || !n) return NULL;
  for (int i = 0; i < um_option_count(); i++) {
    const um_option *o = um_option_at(i);
    if (o->renamed_to) continue; /* an earlier spelling: suggest the key it is now */
    const int d = distance(key, o->key);
    if (d < bd) bd = d, snprintf(buf, n, "%s", o->key);
  }
  const size_t kn = strlen(key);
  if (buf[0] && bd <= (int)(kn / 3 > 2 ? kn / 3 : 2)) return buf;
  buf[0] = '\0';
  return NULL;
}

static void list_choices(const um_option *o, char *buf, size_t n) {
  buf[0] = '\0';
  if (o->type == UM_OPT_CHOICE && !o->choices && !strcmp(o->key, "run.backend")) {
    snprintf(buf, n, "auto");
    for (int b = 0; b < um_backend_count(); b++) {
      const size_t l = strlen(buf);
      snprintf(buf + l, n - l, ", %s", um_backend_at(b));
    }
    return;
  }
  for (int i = 0; o->choices && o->choices[i]; i++) {
    const size_t l = strlen(buf);
    snprintf(buf + l, n - l, "%s%s", i ? ", " : "", o->choices[i]);
  }
}

static int bad_value(const um_option *o, const char *text, const char *allowed, char *err, size_t len) {
  const int backend = o->component && um__backend_find(o->component, NULL);
  if (err && len)
    snprintf(err, len, "%s = '%s': %s (declared by the %s%s %s; default %s)", o->key, text, allowed,
             backend ? "" : "engine's ", o->component ? o->component : "", backend ? "backend" : "options",
             o->def && *o->def ? o->def : "none");
  return UM_ERR_ARG;
}

int um_option_parse(const um_option *o, const char *text, um_option_value *v, char *err, size_t len) {
  if (!o || !text || !v) return UM_ERR_ARG;
  memset(v, 0, sizeof *v);
  char *end = NULL;
  char allowed[512];
  errno = 0;
  switch (o->type) {
    case UM_OPT_BOOL:
      if (!strcasecmp(text, "true") || !strcasecmp(text, "yes") || !strcasecmp(text, "on") || !strcmp(text, "1"))
        v->i = 1;
      else if (!strcasecmp(text, "false") || !strcasecmp(text, "no") || !strcasecmp(text, "off") || !strcmp(text, "0"))
        v->i = 0;
      else
        return bad_value(o, text, "use true or false (also yes/no, on/off, 1/0)", err, len);
      return UM_SUCCESS;
    case UM_OPT_INT:
    case UM_OPT_LONG: {
      const long long x = strtoll(text, &end, 10);
      if (end == text || *end || errno || (o->type == UM_OPT_INT && (x < INT_MIN || x > INT_MAX)))
        return bad_value(o, text, o->type == UM_OPT_INT ? "use an integer" : "use an integer (a size in bytes)", err,
                         len);
      if ((o->flags & UM_OPT_RANGE) && (x < o->min || x > o->max))
        return bad_value(o, text, o->range_hint ? o->range_hint : "out of range", err, len);
      v->i = (int)x;
      v->l = x;
      return UM_SUCCESS;
    }
    case UM_OPT_DOUBLE: {
      const double x = strtod(text, &end);
      if (end == text || *end) return bad_value(o, text, "use a number", err, len);
      if ((o->flags & UM_OPT_RANGE) && !(x >= o->min && x <= o->max))
        return bad_value(o, text, o->range_hint ? o->range_hint : "out of range", err, len);
      v->d = x;
      return UM_SUCCESS;
    }
    case UM_OPT_CHOICE:
      if (!o->choices && !strcmp(o->key, "run.backend")) { /* the registered backends, known at run time */
        if (!strcmp(text, "auto")) return v->s = "auto", UM_SUCCESS;
        for (int b = 0; b < um_backend_count(); b++)
          if (!strcmp(text, um_backend_at(b))) return v->i = b + 1, v->s = um_backend_at(b), UM_SUCCESS;
      }
      for (int i = 0; o->choices && o->choices[i]; i++)
        if (!strcasecmp(text, o->choices[i])) return v->i = i, v->s = o->choices[i], UM_SUCCESS;
      list_choices(o, allowed, sizeof allowed);
      {
        char say[600];
        snprintf(say, sizeof say, "use one of %s", allowed);
        return bad_value(o, text, say, err, len);
      }
    default:
      v->s = text;
      return UM_SUCCESS;
  }
}

int um_option_apply_value(um_options *opts, um_context *ctx, const um_option *o, const um_option_value *v, char *err,
                          size_t len) {
  if (!o || !v) return UM_ERR_ARG;
  if (o->to_options && opts) return o->to_options(opts, o, v, err, len);
  if (o->to_context && ctx) return o->to_context(ctx, o, v, err, len);
  if (err && len) {
    if (o->to_options)
      snprintf(err, len, "%s is fixed at um_init: set it in um_options (um_option_apply(&opts, NULL, ...)) before "
                         "um_init", o->key);
    else if (o->to_context)
      snprintf(err, len, "%s is a setting of the context: apply it after um_init (um_option_apply(NULL, ctx, ...))",
               o->key);
    else
      snprintf(err, len, "%s is read by its caller (e.g. passed to um_distribute), not set on options or context",
               o->key);
  }
  return UM_ERR_ARG;
}

int um_option_apply(um_options *opts, um_context *ctx, const char *key, const char *value, char *err, size_t len) {
  if (err && len) err[0] = '\0';
  if (!key || !value) {
    if (err && len) snprintf(err, len, "um_option_apply: a NULL key or value");
    return UM_ERR_ARG;
  }
  const um_option *o = um_option_find(key);
  if (!o) {
    char nearbuf[160];
    const char *near = um_option_nearest(key, nearbuf, sizeof nearbuf);
    if (err && len) {
      if (near) snprintf(err, len, "unknown option '%s': did you mean '%s'?", key, near);
      else snprintf(err, len, "unknown option '%s' (the engine's options: um_option_count / um_option_at, or "
                              "docs/options.md)", key);
    }
    return UM_ERR_ARG;
  }
  if (o->renamed_to) { /* an earlier spelling: the key it is now */
    const um_option *now = um_option_find(o->renamed_to);
    if (now) o = now;
  }
  um_option_value v;
  const int rc = um_option_parse(o, value, &v, err, len);
  return rc ? rc : um_option_apply_value(opts, ctx, o, &v, err, len);
}

int um_options_set(um_options *opts, const char *key, const char *value) {
  if (!opts) return UM_ERR_ARG;
  return um_option_apply(opts, NULL, key, value, NULL, 0);
}

/* 1 if v is o's declared default for a library caller; a backend's setting never (kept even when it is the
 * default: it overrides UM_<BACKEND>_<KEY>). */
static int is_default(const um_option *o, const um_option_value *v) {
  um_option_value d;
  if (!o->def || (o->flags & UM_OPT_CONFIG_DEFAULT) || (o->component && um__backend_find(o->component, NULL)) ||
      um_option_parse(o, o->def, &d, NULL, 0) != UM_SUCCESS)
    return 0;
  return d.i == v->i && d.l == v->l && d.d == v->d && (d.s == v->s || (d.s && v->s && !strcmp(d.s, v->s)));
}

int um_option_to_setting(um_options *opts, const um_option *o, const um_option_value *v, char *err, size_t len) {
  char text[64];
  const char *t = text;
  if (!opts || !o || !v) return UM_ERR_ARG;
  switch (o->type) {
    case UM_OPT_INT: snprintf(text, sizeof text, "%d", v->i); break;
    case UM_OPT_LONG: snprintf(text, sizeof text, "%lld", v->l); break;
    case UM_OPT_DOUBLE: snprintf(text, sizeof text, "%.17g", v->d); break;
    case UM_OPT_BOOL: t = v->i ? "true" : "false"; break;
    default: t = v->s; break;
  }
  if (!t) return UM_SUCCESS; /* a string left unset: the declared default */
  if (is_default(o, v)) {
    for (int i = 0; i < opts->nsettings; i++) /* the default: nothing to keep (um_options_get reads it) */
      if (!strcmp(opts->settings[i].key, o->key)) {
        opts->settings[i] = opts->settings[--opts->nsettings];
        break;
      }
    return UM_SUCCESS;
  }
  if (um_options_set_backend(opts, o->key, t)) {
    if (err && len) snprintf(err, len, "%s = '%.200s': too long (at most %zu characters), or too many settings", o->key,
                             t, sizeof opts->settings[0].value - 1);
    return UM_ERR_ARG;
  }
  return UM_SUCCESS;
}

int um_options_get(const um_options *opts, const char *key, um_option_value *v) {
  if (!key || !v) return UM_ERR_ARG;
  memset(v, 0, sizeof *v);
  const um_option *o = um_option_find(key);
  if (o && o->renamed_to) o = um_option_find(o->renamed_to);
  if (!o) return UM_ERR_ARG;
  const char *text = NULL;
  for (int i = 0; opts && i < opts->nsettings && !text; i++)
    if (!strcmp(opts->settings[i].key, o->key)) text = opts->settings[i].value;
  for (int i = 0; opts && !text && i < um_option_count(); i++) { /* set under an earlier spelling */
    const um_option *r = um_option_at(i);
    if (!r->renamed_to || strcmp(r->renamed_to, o->key)) continue;
    for (int k = 0; k < opts->nsettings && !text; k++)
      if (!strcmp(opts->settings[k].key, r->key)) text = opts->settings[k].value;
  }
  if (!text && (!o->def || (o->flags & UM_OPT_CONFIG_DEFAULT))) return UM_SUCCESS;
  return um_option_parse(o, text ? text : o->def, v, NULL, 0);
}

/* Every default of the options applied to um_options (the declarations are the only place they are written). */
void um__options_defaults(um_options *opts) {
  for (int i = 0; i < um_option_count(); i++) {
    const um_option *o = um_option_at(i);
    if (!o->to_options || !o->def || (o->flags & UM_OPT_CONFIG_DEFAULT)) continue;
    if (o->to_options == um_option_to_setting) continue; /* a setting: its default is read from the declaration */
    um_option_value v;
    if (um_option_parse(o, o->def, &v, NULL, 0) == UM_SUCCESS) o->to_options(opts, o, &v, NULL, 0);
  }
}

int um__context_defaults(um_context *ctx) {
  for (int i = 0; i < um_option_count(); i++) {
    const um_option *o = um_option_at(i);
    if (!o->to_context || !o->def || (o->flags & UM_OPT_CONFIG_DEFAULT)) continue;
    um_option_value v;
    int rc = um_option_parse(o, o->def, &v, NULL, 0);
    if (!rc) rc = o->to_context(ctx, o, &v, NULL, 0);
    if (rc) return rc;
  }
  return UM_SUCCESS;
}
