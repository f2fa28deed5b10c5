/* The backend registry: the built-in list (backend_list.h) plus the extra
 * backends a caller hands to um_init. Selection by name, or "auto" by
 * priority among the available ones; the rest of the core never names a
 * backend. It lives in the core because the core calls it; backends only
 * register (one line each in backend_list.h, or a table given to um_init). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "internal.h"

#define UM_BACKEND(sym) extern const um_backend_def um_backend_##sym;
#define UM_BACKEND_MISSING(name, how)
#include "backend_list.h"
#undef UM_BACKEND
#undef UM_BACKEND_MISSING

static const um_backend_def *const builtin[] = {
#define UM_BACKEND(sym) &um_backend_##sym,
#define UM_BACKEND_MISSING(name, how)
#include "backend_list.h"
#undef UM_BACKEND
#undef UM_BACKEND_MISSING
};
#define NBUILTIN ((int)(sizeof builtin / sizeof builtin[0]))

typedef struct {
  const char *name, *how;
} missing_backend;
static const missing_backend missing[] = {
#define UM_BACKEND(sym)
#define UM_BACKEND_MISSING(name, how) {#name, how},
#include "backend_list.h"
#undef UM_BACKEND
#undef UM_BACKEND_MISSING
    {NULL, NULL}};

static int is_available(const um_backend_def *b, char *why, size_t n) {
  if (why && n) why[0] = '\0';
  return b->available ? b->available(why, n) : 1;
}

const um_backend_def *um__backend_find(const char *name, const um_options *o) {
  if (!name) return NULL;
  if (o)
    for (int i = 0; i < o->nextra_backends; i++)
      if (o->extra_backends[i] && strcasecmp(o->extra_backends[i]->name, name) == 0) return o->extra_backends[i];
  for (int i = 0; i < NBUILTIN; i++)
    if (strcasecmp(builtin[i]->name, name) == 0) return builtin[i];
  return NULL;
}

const um_backend_def *um__backend_best(const um_options *o) {
  const um_backend_def *best = NULL;
  const int nextra = o ? o->nextra_backends : 0;
  for (int i = 0; i < NBUILTIN + nextra; i++) {
    const um_backend_def *b = i < NBUILTIN ? builtin[i] : o->extra_backends[i - NBUILTIN];
    if (b && (!best || b->priority > best->priority) && is_available(b, NULL, 0)) best = b;
  }
  return best;
}

int um__backend_missing(const char *name) {
  for (int i = 0; missing[i].name; i++)
    if (name && strcasecmp(missing[i].name, name) == 0) return 1;
  return 0;
}

int um__backend_status(const char *name, const um_options *o, char *why, size_t n) {
  if (why && n) why[0] = '\0';
  const um_backend_def *b = um__backend_find(name, o);
  if (b) {
    char reason[400] = "";
    if (is_available(b, reason, sizeof reason)) return 1;
    if (why && n) snprintf(why, n, "%s", reason[0] ? reason : "it is not available on this machine");
    return 0;
  }
  for (int i = 0; missing[i].name; i++)
    if (name && strcasecmp(missing[i].name, name) == 0) {
      if (why && n) snprintf(why, n, "this build of um has no %s backend (%s)", missing[i].name, missing[i].how);
      return 0;
    }
  if (why && n) {
    int k = snprintf(why, n, "no backend named '%s'; this build knows:", name ? name : "(null)");
    for (int i = 0; i < um_backend_count() && k >= 0 && (size_t)k < n; i++)
      k += snprintf(why + k, n - (size_t)k, "%s %s", i ? "," : "", um_backend_at(i));
  }
  return 0;
}

/* ---- public queries over the built-in list ----------------------------------- */

static int nmissing(void) { return (int)(sizeof missing / sizeof missing[0]) - 1; }
int um_backend_count(void) { return NBUILTIN + nmissing(); }

const char *um_backend_at(int i) {
  /* built-in by decreasing priority, then the missing ones */
  if (i < 0 || i >= um_backend_count()) return NULL;
  if (i >= NBUILTIN) return missing[i - NBUILTIN].name;
  int taken[NBUILTIN > 0 ? NBUILTIN : 1];
  memset(taken, 0, sizeof taken);
  const um_backend_def *pick = NULL;
  for (int k = 0; k <= i; k++) {
    int best = -1;
    for (int j = 0; j < NBUILTIN; j++)
      if (!taken[j] && (best < 0 || builtin[j]->priority > builtin[best]->priority)) best = j;
    taken[best] = 1;
    pick = builtin[best];
  }
  return pick->name;
}

int um_backend_status(const char *name, char *why, size_t n) { return um__backend_status(name, NULL, why, n); }
int um_backend_available(const char *name) { return um__backend_status(name, NULL, NULL, 0); }
const char *um_backend_auto(void) {
  const um_backend_def *b = um__backend_best(NULL);
  return b ? b->name : "seq";
}

static const um_option *option_list(const char *backend, int *count) {
  const um_backend_def *b = um__backend_find(backend, NULL);
  *count = 0;
  if (!b || !b->options) return NULL;
  while (b->options[*count].key) (*count)++;
  return b->options;
}

int um_backend_option_count(const char *backend) {
  int n;
  option_list(backend, &n);
  return n;
}

int um_backend_option_at(const char *backend, int i, const char **key, const char **def, const char **choices,
                         const char **help) {
  int n;
  const um_option *o = option_list(backend, &n);
  if (i < 0 || i >= n) return UM_ERR_ARG;
  const size_t bn = strlen(backend);
  /* without the "<backend>." prefix; a choice's values as text ("a|b|c", its range_hint) */
  if (key) *key = !strncmp(o[i].key, backend, bn) && o[i].key[bn] == '.' ? o[i].key + bn + 1 : o[i].key;
  if (def) *def = o[i].def ? o[i].def : "";
  if (choices) *choices = o[i].type == UM_OPT_CHOICE ? o[i].range_hint : NULL;
  if (help) *help = o[i].help;
  return UM_SUCCESS;
}

void um__backend_env_name(const char *full, char *env, size_t n) {
  size_t k = (size_t)snprintf(env, n, "UM_");
  for (size_t i = 0; full[i] && k + 1 < n; i++, k++) {
    env[k] = full[i] == '.' ? '_' : (char)toupper((unsigned char)full[i]);
    env[k + 1] = '\0';
  }
}

int um__backend_env_check(const um_backend_def *b, const um_options *o, char *err, size_t len) {
  for (int k = 0; b && b->options && b->options[k].key; k++) {
    const um_option *opt = &b->options[k];
    int set = 0;
    for (int i = 0; o && i < o->nsettings && !set; i++) set = !strcasecmp(o->settings[i].key, opt->key);
    char env[128], why[700];
    um__backend_env_name(opt->key, env, sizeof env);
    const char *v = set ? NULL : getenv(env);
    um_option_value parsed;
    if (v && um_option_parse(opt, v, &parsed, why, sizeof why)) {
      snprintf(err, len, "the environment variable %s='%.200s' (the setting %s): %s; correct it or unset it", env, v,
               opt->key, why);
      return UM_ERR_ARG;
    }
  }
  return UM_SUCCESS;
}
