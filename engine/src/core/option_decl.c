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
    {um_transform_options, &um_transform_noptions},
    {um_tune_options, &um_tune_noptions},
    {um_distributed_options, &um_distributed_noptions},
};
#define NTABLES ((int)(sizeof tables / sizeof tables[0]))

int um_option_count(void) {
  int n = 0;
  for (int t = 0; t < NTABLES; t++) n += *tables[t].n;
  return n;
}

const um_option *um_option_at(int i) {
  for (int t = 0; i >= 0 && t < NTABLES; t++) {
    if (i < *tables[t].n) return &tables[t].t[i];
    i -= *tables[t].n;
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

const char *um_option_nearest(const char *key) {
  static __thread char buf[160];
  const char *best = NULL;
  int bd = INT_MAX;
  if (!key) return NULL;
  for (int i = 0; i < um_option_count(); i++) {
    const int d = distance(key, um_option_at(i)->key);
    if (d < bd) bd = d, best = um_option_at(i)->key;
  }
  for (int b = 0; b < um_backend_count(); b++) /* the backends' own settings, "<backend>.<key>" */
    for (int k = 0; k < um_backend_option_count(um_backend_at(b)); k++) {
      const char *bk;
      char name[160];
      um_backend_option_at(um_backend_at(b), k, &bk, NULL, NULL, NULL);
      snprintf(name, sizeof name, "%s.%s", um_backend_at(b), bk);
      const int d = distance(key, name);
      if (d < bd) bd = d, snprintf(buf, sizeof buf, "%s", name), best = buf;
    }
  const size_t n = strlen(key);
  return best && bd <= (int)(n / 3 > 2 ? n / 3 : 2) ? best : NULL;
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
  if (err && len)
    snprintf(err, len, "%s = '%s': %s (declared by the engine's %s options; default %s)", o->key, text, allowed,
             o->component ? o->component : "", o->def ? o->def : "none");
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

/* "<backend>.<key>": a backend's own setting (um_backend_option), kept as text in um_options. */
static int apply_backend(um_options *opts, const char *key, const char *value, int *found, char *err, size_t len) {
  const char *dot = strchr(key, '.');
  *found = 0;
  if (!dot) return UM_ERR_ARG;
  for (int b = 0; b < um_backend_count(); b++) {
    const char *name = um_backend_at(b);
    if (strlen(name) != (size_t)(dot - key) || strncmp(name, key, strlen(name))) continue;
    for (int k = 0; k < um_backend_option_count(name); k++) {
      const char *bk, *choices;
      um_backend_option_at(name, k, &bk, NULL, &choices, NULL);
      if (strcmp(bk, dot + 1)) continue;
      *found = 1;
      if (choices) {
        int ok = 0;
        const size_t n = strlen(value);
        for (const char *c = choices; *c;) {
          const char *bar = strchr(c, '|');
          const size_t m = bar ? (size_t)(bar - c) : strlen(c);
          if (m == n && !strncasecmp(c, value, n)) ok = 1;
          c += m + (bar ? 1 : 0);
        }
        if (!ok) {
          if (err && len) snprintf(err, len, "%s = '%s': expected one of %s (declared by the %s backend)", key, value,
                                   choices, name);
          return UM_ERR_ARG;
        }
      }
      if (!opts) {
        if (err && len) snprintf(err, len, "%s is a backend setting, fixed at um_init: set it in um_options", key);
        return UM_ERR_ARG;
      }
      if (um_options_set_backend(opts, key, value)) {
        if (err && len) snprintf(err, len, "%s = '%s': too long, or too many backend settings", key, value);
        return UM_ERR_ARG;
      }
      return UM_SUCCESS;
    }
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
    int found = 0;
    const int rc = apply_backend(opts, key, value, &found, err, len);
    if (found) return rc;
    const char *near = um_option_nearest(key);
    if (err && len) {
      if (near) snprintf(err, len, "unknown option '%s': did you mean '%s'?", key, near);
      else snprintf(err, len, "unknown option '%s' (the engine's options: um_option_count / um_option_at, or "
                              "docs/options.md)", key);
    }
    return UM_ERR_ARG;
  }
  um_option_value v;
  const int rc = um_option_parse(o, value, &v, err, len);
  return rc ? rc : um_option_apply_value(opts, ctx, o, &v, err, len);
}

/* Every default of the options applied to um_options (the declarations are the only place they are written). */
void um__options_defaults(um_options *opts) {
  for (int i = 0; i < um_option_count(); i++) {
    const um_option *o = um_option_at(i);
    if (!o->to_options || !o->def || (o->flags & UM_OPT_CONFIG_DEFAULT)) continue;
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
