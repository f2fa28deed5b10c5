/* Config output: unread-key warnings, the table of options in effect with
 * their origins, and YAML emission (um/config.h). */
#include "config_internal.h"

#include <limits.h>
#include <stdio.h>
#include <yaml.h>

#include "array.h"

/* ---- reporting ---------------------------------------------------------------------- */
typedef int (*leaf_fn)(const um_config *c, const char *path, const cnode *n, void *u);

static int is_scalar_seq(const cnode *n) {
  if (n->kind != N_SEQ) return 0;
  for (int i = 0; i < n->n; i++)
    if (n->kids[i]->kind != N_SCALAR) return 0;
  return 1;
}

/* Visit leaves depth-first in file order: a scalar, and an empty mapping or sequence below the top
 * (`foo: {}`); `inline_seqs`: a sequence of scalars is one leaf too. Returns non-zero to stop. */
static int walk(const um_config *c, const cnode *n, sbuf *path, int inline_seqs, leaf_fn fn,
                void *u) {
  if (n->kind == N_SCALAR || (inline_seqs && is_scalar_seq(n)) || (n->n == 0 && (inline_seqs || path->n)))
    return fn(c, sb_str(path), n, u);
  size_t mark = path->n;
  for (int i = 0; i < n->n; i++) {
    if (mark) sb_addc(path, '.');
    if (n->kind == N_MAP) {
      sb_add(path, n->keys[i]);
    } else {
      char ix[16];
      snprintf(ix, sizeof ix, "%d", i);
      sb_add(path, ix);
    }
    int stop = walk(c, n->kids[i], path, inline_seqs, fn, u);
    path->n = mark;
    if (path->s) path->s[mark] = '\0';
    if (stop) return stop;
  }
  return 0;
}

typedef struct {
  um_config_unread_fn fn;
  void *user;
  int count;
  char **read; /* the keys read (present and read by a getter), for suggestions */
  int nread, capread;
} unread_ctx;

static int read_leaf(const um_config *c, const char *path, const cnode *n, void *u) {
  (void)c;
  unread_ctx *x = (unread_ctx *)u;
  if (!n->read || UM_GROW(x->read, x->capread, x->nread)) return 0; /* out of memory: fewer suggestions */
  if ((x->read[x->nread] = xstrdup(path)) != NULL) x->nread++;
  return 0;
}

/* Does key lie below path ("params" for "params.tolerance")? */
static int below(const char *path, const char *key) {
  const size_t n = strlen(path);
  return !strncmp(key, path, n) && key[n] == '.';
}

/* An empty mapping or sequence is known when something was read from it (um_config_size, um_config_keys) or
 * a getter asked for a key below it (params: {} where params.tolerance is read). */
static int empty_known(const um_config *c, const char *path, const cnode *n, const unread_ctx *x) {
  if (n->kind == N_SCALAR) return 0;
  for (int i = 0; i < c->ndefs; i++)
    if (below(path, c->defs[i].key)) return 1;
  for (int i = 0; i < x->nread; i++)
    if (below(path, x->read[i])) return 1;
  return 0;
}

static void closer(const char *path, const char *key, int *bestd, const char **sugg) {
  const int d = um__cfg_edit_distance(path, key);
  if (d < *bestd && um__cfg_close_enough(path, key, d)) {
    *bestd = d;
    *sugg = key;
  }
}

const char *um_config_closest(const char *key, const char *const *keys, int n) {
  const char *sugg = NULL;
  int bestd = INT_MAX;
  for (int i = 0; key && i < n; i++) {
    if (keys[i] && !strcmp(keys[i], key)) return NULL; /* the key itself: nothing to suggest */
    if (keys[i]) closer(key, keys[i], &bestd, &sugg);
  }
  return sugg;
}

/* The suggestion is the closest key a getter asked for: present in the
 * config and read, or absent (its default used). */
static int unread_leaf(const um_config *c, const char *path, const cnode *n, void *u) {
  unread_ctx *x = (unread_ctx *)u;
  if (n->read || empty_known(c, path, n, x)) return 0;
  char org[256];
  um__cfg_origin_of(c, n, org, sizeof org);
  const char *sugg = NULL;
  int bestd = INT_MAX;
  for (int i = 0; i < c->ndefs; i++) closer(path, c->defs[i].key, &bestd, &sugg);
  for (int i = 0; i < x->nread; i++) closer(path, x->read[i], &bestd, &sugg);
  x->count++;
  return x->fn ? x->fn(path, org, sugg, x->user) : 0;
}

int um_config_unread(const um_config *cfg, um_config_unread_fn fn, void *user) {
  if (!cfg) return 0;
  unread_ctx x = {fn, user, 0, NULL, 0, 0};
  sbuf path = {0};
  walk(cfg, cfg->root, &path, 0, read_leaf, &x);
  path.n = 0;
  if (path.s) path.s[0] = '\0';
  walk(cfg, cfg->root, &path, 0, unread_leaf, &x);
  free(path.s);
  for (int i = 0; i < x.nread; i++) free(x.read[i]);
  free(x.read);
  return x.count;
}

static int warn_one(const char *key, const char *origin, const char *sugg, void *user) {
  FILE *f = (FILE *)user;
  if (sugg)
    fprintf(
        f,
        "warning: unknown key '%s' (%s) was never read \xE2\x80\x94 misspelt? did you mean '%s'?\n",
        key, origin, sugg);
  else
    fprintf(f, "warning: unknown key '%s' (%s) was never read \xE2\x80\x94 misspelt?\n", key,
            origin);
  return 0;
}

int um_config_warn_unread(const um_config *cfg, FILE *f) {
  if (!f) return um_config_unread(cfg, NULL, NULL);
  return um_config_unread(cfg, warn_one, f);
}

static void add_scalar_text(sbuf *b, const cnode *n) {
  if (um__cfg_is_null(n)) {
    sb_add(b, "~");
    return;
  }
  if (n->quoted && !*n->value) {
    sb_add(b, "''");
    return;
  }
  for (const char *p = n->value; *p; p++) {
    if (*p == '\n')
      sb_add(b, "\\n");
    else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
      char x[8];
      snprintf(x, sizeof x, "\\x%02X", (unsigned)(unsigned char)*p);
      sb_add(b, x);
    } else
      sb_addc(b, *p);
  }
}

static void value_text(sbuf *b, const cnode *n) {
  if (n->kind == N_SCALAR) {
    add_scalar_text(b, n);
    return;
  }
  sb_add(b, n->kind == N_MAP ? "{" : "[");
  for (int i = 0; i < n->n; i++) {
    if (i) sb_add(b, ", ");
    add_scalar_text(b, n->kids[i]);
  }
  sb_add(b, n->kind == N_MAP ? "}" : "]");
}

typedef struct {
  FILE *f;
  int pass; /* 0: measure, 1: print */
  int kw, vw;
} print_ctx;

static int print_leaf(const um_config *c, const char *path, const cnode *n, void *u) {
  print_ctx *x = (print_ctx *)u;
  sbuf v = {0};
  value_text(&v, n);
  int kl = (int)strlen(path), vl = (int)v.n;
  if (x->pass == 0) {
    if (kl > x->kw) x->kw = kl;
    if (vl > x->vw) x->vw = vl;
  } else {
    char org[256];
    um__cfg_origin_of(c, n, org, sizeof org);
    fprintf(x->f, "  %-*s = %-*s  [%s]\n", x->kw, path, x->vw, sb_str(&v), org);
  }
  free(v.s);
  return 0;
}

/* A default is printed unless the key has since been given a value. */
static int default_shown(const um_config *c, int i) {
  um_config_kind_t k = um_config_kind(c, c->defs[i].key);
  return c->defs[i].value && (k == UM_CONFIG_ABSENT || k == UM_CONFIG_NULL);
}

void um_config_print(const um_config *cfg, FILE *f) {
  if (!cfg || !f) return;
  print_ctx x = {f, 0, 0, 0};
  sbuf path = {0};
  if (cfg->root->n) walk(cfg, cfg->root, &path, 1, print_leaf, &x);
  for (int i = 0; i < cfg->ndefs; i++) {
    if (!default_shown(cfg, i)) continue;
    int kl = (int)strlen(cfg->defs[i].key), vl = (int)strlen(cfg->defs[i].value);
    if (kl > x.kw) x.kw = kl;
    if (vl > x.vw) x.vw = vl;
  }
  if (x.kw > 40) x.kw = 40;
  if (x.vw > 30) x.vw = 30;
  x.pass = 1;
  if (cfg->root->n) walk(cfg, cfg->root, &path, 1, print_leaf, &x);
  free(path.s);
  for (int i = 0; i < cfg->ndefs; i++) {
    if (!default_shown(cfg, i)) continue;
    fprintf(f, "  %-*s = %-*s  [default]\n", x.kw, cfg->defs[i].key, x.vw, cfg->defs[i].value);
  }
}

typedef struct {
  um_config_each_fn fn;
  void *user;
  int n, stop;
} each_ctx;

static int each_leaf(const um_config *c, const char *path, const cnode *n, void *u) {
  each_ctx *x = (each_ctx *)u;
  sbuf v = {0};
  value_text(&v, n);
  char org[256];
  um__cfg_origin_of(c, n, org, sizeof org);
  x->n++;
  x->stop = x->fn ? x->fn(path, sb_str(&v), org, n->read, x->user) : 0;
  free(v.s);
  return x->stop;
}

int um_config_each(const um_config *cfg, um_config_each_fn fn, void *user) {
  if (!cfg) return 0;
  each_ctx x = {fn, user, 0, 0};
  sbuf path = {0};
  if (cfg->root->n) walk(cfg, cfg->root, &path, 1, each_leaf, &x);
  free(path.s);
  for (int i = 0; i < cfg->ndefs && !x.stop; i++) {
    if (!default_shown(cfg, i)) continue;
    x.n++;
    x.stop = fn ? fn(cfg->defs[i].key, cfg->defs[i].value, "default", 1, user) : 0;
  }
  return x.n;
}

/* ---- YAML output -------------------------------------------------------------------- */
static int emit(yaml_emitter_t *e, yaml_event_t *ev) {
  return yaml_emitter_emit(e, ev) ? 0 : 1;
}

static int emit_scalar(yaml_emitter_t *e, const char *s, int quoted) {
  yaml_event_t ev;
  if (!yaml_scalar_event_initialize(
          &ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
          quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE))
    return 1;
  return emit(e, &ev);
}

/* A key a YAML reader would take for null, a boolean or a number when written plain ("~", "yes", "1e3"):
 * written quoted, so that the output loads again as the same key. */
static int key_needs_quotes(const char *k) {
  static const char *const words[] = {"~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no",
                                      "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On",
                                      "ON", "off", "Off", "OFF", ".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF",
                                      "+.inf", "+.Inf", "+.INF", ".nan", ".NaN", ".NAN"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (!strcmp(k, words[i])) return 1;
  char *end = NULL;
  (void)strtod(k, &end);
  return !*k || (end != k && !*end);
}

static int emit_node(yaml_emitter_t *e, const cnode *n) {
  yaml_event_t ev;
  if (n->kind == N_SCALAR) return emit_scalar(e, um__cfg_is_null(n) ? "~" : n->value, n->quoted);
  if (n->kind == N_MAP) {
    if (!yaml_mapping_start_event_initialize(
            &ev, NULL, NULL, 1, n->n ? YAML_BLOCK_MAPPING_STYLE : YAML_FLOW_MAPPING_STYLE) ||
        emit(e, &ev))
      return 1;
    for (int i = 0; i < n->n; i++)
      if (emit_scalar(e, n->keys[i], key_needs_quotes(n->keys[i])) || emit_node(e, n->kids[i])) return 1;
    if (!yaml_mapping_end_event_initialize(&ev) || emit(e, &ev)) return 1;
    return 0;
  }
  if (!yaml_sequence_start_event_initialize(
          &ev, NULL, NULL, 1,
          is_scalar_seq(n) ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE) ||
      emit(e, &ev))
    return 1;
  for (int i = 0; i < n->n; i++)
    if (emit_node(e, n->kids[i])) return 1;
  if (!yaml_sequence_end_event_initialize(&ev) || emit(e, &ev)) return 1;
  return 0;
}

int um_config_write_yaml(const um_config *cfg, FILE *f, char *err, size_t errlen) {
  if (!cfg || !f) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_write_yaml: NULL argument");
  yaml_emitter_t e;
  yaml_event_t ev;
  if (!yaml_emitter_initialize(&e))
    return um_format_error(err, errlen, UM_ERR_ALLOC, "cannot initialise the YAML emitter");
  yaml_emitter_set_output_file(&e, f);
  yaml_emitter_set_unicode(&e, 1);
  yaml_emitter_set_width(&e, -1);
  int bad = !yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) || emit(&e, &ev) ||
            !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) || emit(&e, &ev) ||
            emit_node(&e, cfg->root) || !yaml_document_end_event_initialize(&ev, 1) ||
            emit(&e, &ev) || !yaml_stream_end_event_initialize(&ev) || emit(&e, &ev);
  int rc = UM_SUCCESS;
  if (bad)
    rc = um_format_error(err, errlen, e.error == YAML_WRITER_ERROR ? UM_ERR_IO : UM_ERR_INTERNAL,
              "cannot write the config as YAML: %s", e.problem ? e.problem : "emitter error");
  yaml_emitter_delete(&e);
  return rc;
}
