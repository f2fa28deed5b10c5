/* um: run configuration, a tree of YAML mappings / sequences / scalars.
 *
 * Parsing uses libyaml's event API (not its document loader) so that aliases
 * can be refused before they expand, nesting depth is bounded, and every
 * libyaml error (reader, scanner, parser, memory) reaches the user with its
 * own text and position. */
#include "um/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- nodes ------------------------------------------------------------------ */
typedef enum { N_SCALAR = 0, N_MAP, N_SEQ } nkind;

typedef struct cnode cnode;
struct cnode {
  nkind kind;
  char *value; /* N_SCALAR: text (NUL-terminated)                     */
  int quoted;  /* N_SCALAR: quoted / block style, so never null      */
  int read;    /* read by a getter (or um_config_mark_read)          */
  int src;     /* index into um_config.srcs                          */
  int line;    /* 1-based line in the source, 0 if none              */
  int n, cap;
  char **keys;  /* N_MAP: n keys                                       */
  cnode **kids; /* N_MAP, N_SEQ: n children                            */
};

typedef struct {
  char *key;
  char *value; /* default as text, NULL if the default was NULL */
} deflt;

struct um_config {
  cnode *root;
  char **srcs; /* origin labels: "file configs/x.yaml", "UM_OPTIONS", ... */
  int nsrc, capsrc;
  deflt *defs; /* keys looked up by getters and not found */
  int ndefs, capdefs;
};

/* ---- small helpers ----------------------------------------------------------- */
static char *xstrndup(const char *s, size_t n) {
  char *d = (char *)malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}
static char *xstrdup(const char *s) {
  return xstrndup(s, strlen(s));
}

static int ieq(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
  return *a == *b;
}

/* Growable string. On allocation failure `oom` is set and appends are dropped. */
typedef struct {
  char *s;
  size_t n, cap;
  int oom;
} sbuf;

static void sb_addn(sbuf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = (char *)realloc(b->s, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}
static void sb_add(sbuf *b, const char *s) {
  sb_addn(b, s, strlen(s));
}
static void sb_addc(sbuf *b, char c) {
  sb_addn(b, &c, 1);
}
static const char *sb_str(const sbuf *b) {
  return b->s ? b->s : "";
}

static cnode *node_new(nkind k, int src, int line) {
  cnode *n = (cnode *)calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = k;
  n->src = src;
  n->line = line;
  return n;
}

static void node_clear(cnode *n) {
  for (int i = 0; i < n->n; i++) {
    if (n->keys) free(n->keys[i]);
    cnode *k = n->kids[i];
    node_clear(k);
    free(k);
  }
  free(n->keys);
  free(n->kids);
  free(n->value);
  n->keys = NULL;
  n->kids = NULL;
  n->value = NULL;
  n->n = n->cap = 0;
}

static void node_free(cnode *n) {
  if (!n) return;
  node_clear(n);
  free(n);
}

/* Append child (takes ownership of kid; key copied for maps). */
static int node_append(cnode *p, const char *key, cnode *kid) {
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 4;
    cnode **kids = (cnode **)realloc(p->kids, (size_t)cap * sizeof *kids);
    if (!kids) return UM_ERR_ALLOC;
    p->kids = kids;
    if (p->kind == N_MAP) {
      char **keys = (char **)realloc(p->keys, (size_t)cap * sizeof *keys);
      if (!keys) return UM_ERR_ALLOC;
      p->keys = keys;
    }
    p->cap = cap;
  }
  if (p->kind == N_MAP) {
    char *k = xstrdup(key);
    if (!k) return UM_ERR_ALLOC;
    p->keys[p->n] = k;
  }
  p->kids[p->n++] = kid;
  return UM_SUCCESS;
}

static int map_find(const cnode *m, const char *seg, size_t len) {
  for (int i = 0; i < m->n; i++)
    if (strncmp(m->keys[i], seg, len) == 0 && m->keys[i][len] == '\0') return i;
  return -1;
}

static int is_null(const cnode *n) {
  if (n->kind != N_SCALAR || n->quoted) return 0;
  const char *v = n->value;
  return !v || !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
         !strcmp(v, "NULL");
}

static const char *kind_name(const cnode *n) {
  if (n->kind == N_MAP) return "mapping";
  if (n->kind == N_SEQ) return "sequence";
  return is_null(n) ? "null" : "scalar";
}

/* Deep copy; source indices are mapped through srcmap (NULL: identity). */
static cnode *node_copy(const cnode *n, const int *srcmap) {
  cnode *c = node_new(n->kind, srcmap ? srcmap[n->src] : n->src, n->line);
  if (!c) return NULL;
  c->quoted = n->quoted;
  c->read = n->read;
  if (n->value && !(c->value = xstrdup(n->value))) goto oom;
  for (int i = 0; i < n->n; i++) {
    cnode *k = node_copy(n->kids[i], srcmap);
    if (!k) goto oom;
    if (node_append(c, n->keys ? n->keys[i] : NULL, k)) {
      node_free(k);
      goto oom;
    }
  }
  return c;
oom:
  node_free(c);
  return NULL;
}

static void mark_read(cnode *n) {
  n->read = 1;
  for (int i = 0; i < n->n; i++) mark_read(n->kids[i]);
}

/* ---- sources / origins --------------------------------------------------------- */
static int add_source(um_config *c, const char *label, int *idx) {
  for (int i = 0; i < c->nsrc; i++)
    if (!strcmp(c->srcs[i], label)) {
      *idx = i;
      return UM_SUCCESS;
    }
  if (c->nsrc == c->capsrc) {
    int cap = c->capsrc ? 2 * c->capsrc : 4;
    char **s = (char **)realloc(c->srcs, (size_t)cap * sizeof *s);
    if (!s) return UM_ERR_ALLOC;
    c->srcs = s;
    c->capsrc = cap;
  }
  if (!(c->srcs[c->nsrc] = xstrdup(label))) return UM_ERR_ALLOC;
  *idx = c->nsrc++;
  return UM_SUCCESS;
}

static void origin_of(const um_config *c, const cnode *n, char *buf, size_t len) {
  const char *s = (n->src >= 0 && n->src < c->nsrc) ? c->srcs[n->src] : "?";
  if (n->line > 0)
    snprintf(buf, len, "%s:%d", s, n->line);
  else
    snprintf(buf, len, "%s", s);
}

/* ---- the object ------------------------------------------------------------- */
static um_config *config_new(void) {
  um_config *c = (um_config *)calloc(1, sizeof *c);
  if (!c) return NULL;
  if (!(c->root = node_new(N_MAP, 0, 0))) {
    free(c);
    return NULL;
  }
  return c;
}

void um_config_free(um_config *cfg) {
  if (!cfg) return;
  node_free(cfg->root);
  for (int i = 0; i < cfg->nsrc; i++) free(cfg->srcs[i]);
  free(cfg->srcs);
  for (int i = 0; i < cfg->ndefs; i++) {
    free(cfg->defs[i].key);
    free(cfg->defs[i].value);
  }
  free(cfg->defs);
  free(cfg);
}

int um_config_create(um_config **cfg, char *err, size_t errlen) {
  if (!cfg) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_create: cfg is NULL");
  *cfg = config_new();
  if (!*cfg) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory creating a config");
  return UM_SUCCESS;
}

/* ---- YAML parsing ---------------------------------------------------------------- */
typedef struct {
  yaml_parser_t parser;
  const char *where;         /* name for error positions: path or origin name */
  const unsigned char *text; /* input, for reader-error line numbers          */
  size_t len;
  int src;
  char *err;
  size_t errlen;
} pctx;

static int yaml_fail(pctx *p) {
  yaml_parser_t *y = &p->parser;
  const char *problem = y->problem ? y->problem : "unknown problem";
  switch (y->error) {
    case YAML_MEMORY_ERROR:
      return um_format_error(p->err, p->errlen, UM_ERR_ALLOC, "%s: out of memory while parsing YAML",
                  p->where);
    case YAML_READER_ERROR: {
      size_t off = y->problem_offset, line = 1, col = 1;
      for (size_t i = 0; i < off && i < p->len; i++) {
        if (p->text[i] == '\n') {
          line++;
          col = 1;
        } else {
          col++;
        }
      }
      if (y->problem_value >= 0)
        return um_format_error(
            p->err, p->errlen, UM_ERR_CONFIG,
            "%s:%zu:%zu: cannot read YAML: %s (byte 0x%02X at offset %zu); a config must be "
            "UTF-8 text without control characters",
            p->where, line, col, problem, (unsigned)y->problem_value & 0xFFu, off);
      return um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
                  "%s:%zu:%zu: cannot read YAML: %s (offset %zu); a config must be UTF-8 text",
                  p->where, line, col, problem, off);
    }
    case YAML_SCANNER_ERROR:
    case YAML_PARSER_ERROR:
      if (y->context)
        return um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
                    "%s:%lu:%lu: YAML syntax error: %s (%s at line %lu, column %lu); check the "
                    "indentation, the ':' after each key and that quotes and brackets are closed",
                    p->where, (unsigned long)y->problem_mark.line + 1,
                    (unsigned long)y->problem_mark.column + 1, problem, y->context,
                    (unsigned long)y->context_mark.line + 1,
                    (unsigned long)y->context_mark.column + 1);
      return um_format_error(
          p->err, p->errlen, UM_ERR_CONFIG,
          "%s:%lu:%lu: YAML syntax error: %s; check the indentation, the ':' after each key "
          "and that quotes and brackets are closed",
          p->where, (unsigned long)y->problem_mark.line + 1,
          (unsigned long)y->problem_mark.column + 1, problem);
    default:
      return um_format_error(p->err, p->errlen, UM_ERR_CONFIG, "%s: YAML error: %s", p->where, problem);
  }
}

static int next_event(pctx *p, yaml_event_t *ev) {
  if (!yaml_parser_parse(&p->parser, ev)) {
    memset(ev, 0, sizeof *ev); /* nothing to delete */
    return yaml_fail(p);
  }
  return UM_SUCCESS;
}

#define MARK_LINE(ev) \
  ((int)((ev)->start_mark.line + 1 > INT_MAX ? INT_MAX : (ev)->start_mark.line + 1))
#define MARK_COL(ev) ((unsigned long)(ev)->start_mark.column + 1)

/* Build the node that starts with *ev (consumed, deleted here). */
static int parse_node(pctx *p, yaml_event_t *ev, int depth, cnode **out) {
  int rc = UM_SUCCESS;
  cnode *n = NULL;
  *out = NULL;
  switch (ev->type) {
    case YAML_ALIAS_EVENT:
      rc =
          um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
               "%s:%d:%lu: alias '*%s' is not supported in um configs; write the value out instead",
               p->where, MARK_LINE(ev), MARK_COL(ev),
               ev->data.alias.anchor ? (const char *)ev->data.alias.anchor : "");
      yaml_event_delete(ev);
      return rc;
    case YAML_SCALAR_EVENT:
      n = node_new(N_SCALAR, p->src, MARK_LINE(ev));
      if (!n ||
          !(n->value = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length))) {
        node_free(n);
        yaml_event_delete(ev);
        return um_format_error(p->err, p->errlen, UM_ERR_ALLOC, "%s: out of memory", p->where);
      }
      n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
      yaml_event_delete(ev);
      *out = n;
      return UM_SUCCESS;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      break;
    default:
      rc = um_format_error(p->err, p->errlen, UM_ERR_CONFIG, "%s:%d:%lu: unexpected YAML event %d", p->where,
                MARK_LINE(ev), MARK_COL(ev), (int)ev->type);
      yaml_event_delete(ev);
      return rc;
  }

  int ismap = ev->type == YAML_MAPPING_START_EVENT;
  if (depth > UM_CONFIG_MAX_DEPTH) {
    rc = um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
              "%s:%d:%lu: mappings/sequences nested deeper than %d levels; flatten the config",
              p->where, MARK_LINE(ev), MARK_COL(ev), UM_CONFIG_MAX_DEPTH);
    yaml_event_delete(ev);
    return rc;
  }
  n = node_new(ismap ? N_MAP : N_SEQ, p->src, MARK_LINE(ev));
  yaml_event_delete(ev);
  if (!n) return um_format_error(p->err, p->errlen, UM_ERR_ALLOC, "%s: out of memory", p->where);

  for (;;) {
    yaml_event_t e;
    if ((rc = next_event(p, &e))) goto fail;
    if (e.type == (ismap ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT)) {
      yaml_event_delete(&e);
      break;
    }
    if (!ismap) {
      cnode *kid;
      if ((rc = parse_node(p, &e, depth + 1, &kid))) goto fail;
      if (node_append(n, NULL, kid)) {
        node_free(kid);
        rc = um_format_error(p->err, p->errlen, UM_ERR_ALLOC, "%s: out of memory", p->where);
        goto fail;
      }
      continue;
    }
    /* mapping: key then value */
    int kline = MARK_LINE(&e);
    unsigned long kcol = MARK_COL(&e);
    if (e.type != YAML_SCALAR_EVENT) {
      rc = um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
                "%s:%d:%lu: a key must be a plain name, not a %s; write 'name: value'", p->where,
                kline, kcol,
                e.type == YAML_ALIAS_EVENT           ? "alias"
                : e.type == YAML_MAPPING_START_EVENT ? "mapping"
                                                     : "sequence");
      yaml_event_delete(&e);
      goto fail;
    }
    const char *k = (const char *)e.data.scalar.value;
    size_t klen = e.data.scalar.length;
    if (klen == 0 || strlen(k) != klen || memchr(k, '.', klen) ||
        (e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(k, "~"))) {
      if (klen == 0 || !strcmp(k, "~"))
        rc = um_format_error(p->err, p->errlen, UM_ERR_CONFIG, "%s:%d:%lu: empty key; give every value a name",
                  p->where, kline, kcol);
      else if (strlen(k) != klen)
        rc = um_format_error(p->err, p->errlen, UM_ERR_CONFIG, "%s:%d:%lu: key contains a NUL character",
                  p->where, kline, kcol);
      else
        rc = um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
                  "%s:%d:%lu: key '%.200s' contains '.', which separates levels of dotted keys; "
                  "nest it instead ('a:' then '  b: ...' for a.b)",
                  p->where, kline, kcol, k);
      yaml_event_delete(&e);
      goto fail;
    }
    int dup = map_find(n, k, klen);
    if (dup >= 0) {
      rc = um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
                "%s:%d:%lu: duplicate key '%.200s' (first given at line %d); remove one of them",
                p->where, kline, kcol, k, n->kids[dup]->line);
      yaml_event_delete(&e);
      goto fail;
    }
    char *key = xstrndup(k, klen);
    yaml_event_delete(&e);
    if (!key) {
      rc = um_format_error(p->err, p->errlen, UM_ERR_ALLOC, "%s: out of memory", p->where);
      goto fail;
    }
    cnode *kid = NULL;
    if ((rc = next_event(p, &e)) || (rc = parse_node(p, &e, depth + 1, &kid))) {
      free(key);
      goto fail;
    }
    kid->line = kline; /* the key's line is where a reader looks */
    rc = node_append(n, key, kid);
    free(key);
    if (rc) {
      node_free(kid);
      rc = um_format_error(p->err, p->errlen, UM_ERR_ALLOC, "%s: out of memory", p->where);
      goto fail;
    }
  }
  *out = n;
  return UM_SUCCESS;
fail:
  node_free(n);
  return rc;
}

/* Parse a whole stream holding at most one document. *out is NULL for an
 * empty stream. */
static int parse_text(const char *text, size_t len, const char *where, int src, cnode **out,
                      char *err, size_t errlen) {
  pctx p;
  yaml_event_t ev;
  int rc;
  cnode *root = NULL;
  *out = NULL;
  memset(&p, 0, sizeof p);
  p.where = where;
  p.text = (const unsigned char *)text;
  p.len = len;
  p.src = src;
  p.err = err;
  p.errlen = errlen;
  if (!yaml_parser_initialize(&p.parser))
    return um_format_error(err, errlen, UM_ERR_ALLOC, "%s: cannot initialise the YAML parser", where);
  yaml_parser_set_input_string(&p.parser, p.text, len);

  if ((rc = next_event(&p, &ev))) goto done; /* STREAM-START */
  yaml_event_delete(&ev);
  if ((rc = next_event(&p, &ev))) goto done;
  if (ev.type == YAML_STREAM_END_EVENT) {
    yaml_event_delete(&ev);
    goto done;
  }
  yaml_event_delete(&ev); /* DOCUMENT-START */
  if ((rc = next_event(&p, &ev))) goto done;
  if ((rc = parse_node(&p, &ev, 1, &root))) goto done;
  if ((rc = next_event(&p, &ev))) goto done; /* DOCUMENT-END */
  yaml_event_delete(&ev);
  if ((rc = next_event(&p, &ev))) goto done;
  if (ev.type != YAML_STREAM_END_EVENT) {
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
              "%s:%d:%lu: more than one YAML document ('---'); keep one document per config", where,
              MARK_LINE(&ev), MARK_COL(&ev));
  }
  yaml_event_delete(&ev);
done:
  yaml_parser_delete(&p.parser);
  if (rc) {
    node_free(root);
    return rc;
  }
  *out = root;
  return UM_SUCCESS;
}

/* Load text as a config whose top level is a mapping. */
static int load_text(const char *text, size_t len, const char *where, const char *label,
                     um_config **cfg, char *err, size_t errlen) {
  int rc, src;
  cnode *root = NULL;
  um_config *c = config_new();
  if (!c) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory loading %s", where);
  if ((rc = add_source(c, label, &src))) {
    um_config_free(c);
    return um_format_error(err, errlen, rc, "out of memory loading %s", where);
  }
  if ((rc = parse_text(text, len, where, src, &root, err, errlen))) {
    um_config_free(c);
    return rc;
  }
  if (root && is_null(root)) {
    node_free(root);
    root = NULL;
  }
  if (root && root->kind != N_MAP) {
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
              "%s:%d: the top level must be a mapping of 'key: value' lines, but it is a %s", where,
              root->line, kind_name(root));
    node_free(root);
    um_config_free(c);
    return rc;
  }
  if (root) {
    node_free(c->root);
    c->root = root;
  }
  c->root->src = src;
  *cfg = c;
  return UM_SUCCESS;
}

int um_config_load_string(const char *yaml, const char *origin_name, um_config **cfg, char *err,
                          size_t errlen) {
  if (!cfg) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_load_string: cfg is NULL");
  *cfg = NULL;
  if (!yaml) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_load_string: yaml is NULL");
  const char *name = origin_name ? origin_name : "<string>";
  return load_text(yaml, strlen(yaml), name, name, cfg, err, errlen);
}

int um_config_load_file(const char *path, um_config **cfg, char *err, size_t errlen) {
  if (!cfg) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_load_file: cfg is NULL");
  *cfg = NULL;
  if (!path || !*path) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_load_file: no path given");
  FILE *f = fopen(path, "rb");
  if (!f)
    return um_format_error(err, errlen, UM_ERR_IO,
                "cannot open config file '%s': %s; check the path (relative paths start from "
                "the current directory)",
                path, strerror(errno));
  sbuf b = {0};
  char chunk[8192];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) sb_addn(&b, chunk, got);
  int rerr = ferror(f);
  fclose(f);
  if (rerr) {
    free(b.s);
    return um_format_error(err, errlen, UM_ERR_IO, "cannot read config file '%s'; is it a regular file?",
                path);
  }
  if (b.oom) {
    free(b.s);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory reading config file '%s'", path);
  }
  sbuf label = {0};
  sb_add(&label, "file ");
  sb_add(&label, path);
  int rc = label.oom ? um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory")
                     : load_text(sb_str(&b), b.n, path, label.s, cfg, err, errlen);
  free(label.s);
  free(b.s);
  return rc;
}

/* ---- dotted keys ---------------------------------------------------------------- */
/* Check a dotted key: non-empty components, at most UM_CONFIG_MAX_DEPTH. */
static int key_ok(const char *key) {
  if (!key || !*key) return 0;
  int depth = 1;
  const char *s = key;
  for (;;) {
    const char *dot = strchr(s, '.');
    size_t len = dot ? (size_t)(dot - s) : strlen(s);
    if (len == 0) return 0;
    if (!dot) break;
    if (++depth > UM_CONFIG_MAX_DEPTH) return 0;
    s = dot + 1;
  }
  return 1;
}

/* Sequence index from a key component; -1 if not a non-negative integer. */
static int seg_index(const char *seg, size_t len) {
  if (len == 0 || len > 9) return -1;
  int v = 0;
  for (size_t i = 0; i < len; i++) {
    if (!isdigit((unsigned char)seg[i])) return -1;
    v = v * 10 + (seg[i] - '0');
  }
  return v;
}

/* Find the node at key. *out = NULL if absent (or under a null value).
 * Going through a non-null scalar, or a bad sequence index, is an error. */
static int lookup(const um_config *c, const char *key, cnode **out, char *err, size_t errlen) {
  *out = NULL;
  if (!key_ok(key))
    return um_format_error(err, errlen, UM_ERR_ARG,
                "invalid config key '%.200s': use at most %d dot-separated, non-empty names "
                "such as run.backend",
                key ? key : "(null)", UM_CONFIG_MAX_DEPTH);
  char org[256];
  cnode *cur = c->root;
  const char *s = key;
  for (;;) {
    const char *dot = strchr(s, '.');
    size_t len = dot ? (size_t)(dot - s) : strlen(s);
    size_t plen = (size_t)(s - key) ? (size_t)(s - key) - 1 : 0; /* parent prefix */
    cnode *next = NULL;
    if (cur->kind == N_MAP) {
      int i = map_find(cur, s, len);
      if (i < 0) return UM_SUCCESS;
      next = cur->kids[i];
    } else if (cur->kind == N_SEQ) {
      int i = seg_index(s, len);
      if (i < 0) {
        origin_of(c, cur, org, sizeof org);
        return um_format_error(err, errlen, UM_ERR_CONFIG,
                    "%s: '%.*s' is a sequence (from %s); address its items by index, e.g. %.*s.0",
                    key, (int)plen, key, org, (int)plen, key);
      }
      if (i >= cur->n) return UM_SUCCESS;
      next = cur->kids[i];
    } else {
      if (is_null(cur)) return UM_SUCCESS;
      origin_of(c, cur, org, sizeof org);
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                  "%s: '%.*s' is a single value ('%.100s', from %s), it has no key '%.*s'; "
                  "check the key's spelling and nesting",
                  key, (int)plen, key, cur->value, org, (int)len, s);
    }
    cur = next;
    if (!dot) break;
    s = dot + 1;
  }
  *out = cur;
  return UM_SUCCESS;
}

/* ---- merging / setting -------------------------------------------------------------- */
/* Merge src into dst (dst keeps its place in the tree). Takes ownership of src. */
static int merge_into(um_config *c, cnode *dst, cnode *src, const char *path, char *err,
                      size_t errlen) {
  int rc = UM_SUCCESS;
  if (dst->kind == N_MAP && src->kind == N_MAP) {
    for (int i = 0; i < src->n; i++) {
      cnode *kid = src->kids[i];
      int j = map_find(dst, src->keys[i], strlen(src->keys[i]));
      if (j >= 0) {
        sbuf sub = {0};
        if (*path) {
          sb_add(&sub, path);
          sb_addc(&sub, '.');
        }
        sb_add(&sub, src->keys[i]);
        src->kids[i] = NULL;
        rc = merge_into(c, dst->kids[j], kid, sb_str(&sub), err, errlen);
        free(sub.s);
      } else {
        if ((rc = node_append(dst, src->keys[i], kid)))
          rc = um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory setting %s", path);
        else
          src->kids[i] = NULL;
      }
      if (rc) break;
    }
    /* free what is left of src (moved children are NULL) */
    for (int i = 0; i < src->n; i++) {
      free(src->keys[i]);
      node_free(src->kids[i]);
    }
    free(src->keys);
    free(src->kids);
    free(src->value);
    free(src);
    return rc;
  }
  int same = dst->kind == src->kind && dst->kind != N_MAP;
  if (same || is_null(dst)) {
    int read = dst->read;
    node_clear(dst);
    *dst = *src; /* move contents */
    dst->read = dst->read || read;
    free(src);
    return UM_SUCCESS;
  }
  char o1[256], o2[256];
  origin_of(c, dst, o1, sizeof o1);
  origin_of(c, src, o2, sizeof o2);
  const char *p = *path ? path : "(top level)";
  if (dst->kind == N_MAP)
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
              "%s: cannot replace a mapping (from %s) by a %s (from %s); set one of its keys "
              "instead, e.g. %s.<key>=value",
              p, o1, kind_name(src), o2, p);
  else
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
              "%s: cannot replace a %s (from %s) by a %s (from %s); give a %s", p, kind_name(dst),
              o1, kind_name(src), o2, kind_name(dst));
  node_free(src);
  return rc;
}

static void set_src_line(cnode *n, int src) {
  n->src = src;
  n->line = 0;
  for (int i = 0; i < n->n; i++) set_src_line(n->kids[i], src);
}

/* Put val at key (takes ownership of val). */
static int set_node(um_config *c, const char *key, cnode *val, char *err, size_t errlen) {
  char org[256];
  int rc;
  if (!key_ok(key)) {
    node_free(val);
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                "invalid key '%.200s': use at most %d dot-separated, non-empty names such as "
                "run.backend",
                key ? key : "(null)", UM_CONFIG_MAX_DEPTH);
  }
  cnode *cur = c->root;
  const char *s = key;
  for (;;) {
    const char *dot = strchr(s, '.');
    size_t len = dot ? (size_t)(dot - s) : strlen(s);
    size_t plen = (size_t)(s - key) ? (size_t)(s - key) - 1 : 0;
    size_t pathlen = (size_t)(s - key) + len;
    if (cur->kind == N_SCALAR) {
      if (!is_null(cur)) {
        origin_of(c, cur, org, sizeof org);
        node_free(val);
        return um_format_error(err, errlen, UM_ERR_CONFIG,
                    "cannot set %s: '%.*s' is a single value ('%.100s', from %s), not a mapping; "
                    "check the key",
                    key, (int)plen, key, cur->value, org);
      }
      node_clear(cur); /* a null becomes a mapping */
      cur->kind = N_MAP;
      cur->src = val->src;
      cur->line = 0;
    }
    cnode *next = NULL;
    if (cur->kind == N_MAP) {
      int i = map_find(cur, s, len);
      if (i >= 0) {
        next = cur->kids[i];
      } else {
        char *k = xstrndup(s, len);
        cnode *nn = dot ? node_new(N_MAP, val->src, 0) : val;
        if (!k || !nn || node_append(cur, k, nn)) {
          free(k);
          if (nn != val) node_free(nn);
          node_free(val);
          return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory setting %s", key);
        }
        free(k);
        if (!dot) return UM_SUCCESS;
        next = nn;
      }
    } else { /* N_SEQ */
      int i = seg_index(s, len);
      if (i < 0 || i >= cur->n) {
        origin_of(c, cur, org, sizeof org);
        node_free(val);
        if (cur->n == 0)
          return um_format_error(err, errlen, UM_ERR_CONFIG,
                      "cannot set %s: '%.*s' is an empty sequence (from %s); set the whole "
                      "sequence instead, e.g. %.*s=[...]",
                      key, (int)plen, key, org, (int)plen, key);
        return um_format_error(err, errlen, UM_ERR_CONFIG,
                    "cannot set %s: '%.*s' is a sequence of %d items (from %s); use an index "
                    "0..%d or set the whole sequence, e.g. %.*s=[...]",
                    key, (int)plen, key, cur->n, org, cur->n - 1, (int)plen, key);
      }
      next = cur->kids[i];
    }
    if (!dot) {
      char *path = xstrndup(key, pathlen);
      if (!path) {
        node_free(val);
        return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory setting %s", key);
      }
      rc = merge_into(c, next, val, path, err, errlen);
      free(path);
      return rc;
    }
    cur = next;
    s = dot + 1;
  }
}

/* Turn the text of a value into a node. */
static int value_node(um_config *c, const char *value, int force_string, int src, cnode **out,
                      char *err, size_t errlen) {
  *out = NULL;
  const char *b = value, *e;
  while (*b && isspace((unsigned char)*b)) b++;
  e = b + strlen(b);
  while (e > b && isspace((unsigned char)e[-1])) e--;
  if (!force_string && (*b == '{' || *b == '[' || *b == '\'' || *b == '"')) {
    cnode *n = NULL;
    int rc = parse_text(b, (size_t)(e - b), c->srcs[src], src, &n, err, errlen);
    if (rc) return rc;
    if (!n) n = node_new(N_SCALAR, src, 0);
    if (!n) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
    set_src_line(n, src);
    *out = n;
    return UM_SUCCESS;
  }
  cnode *n = node_new(N_SCALAR, src, 0);
  if (!n || !(n->value = force_string ? xstrdup(value) : xstrndup(b, (size_t)(e - b)))) {
    node_free(n);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
  }
  n->quoted = force_string;
  *out = n;
  return UM_SUCCESS;
}

static int set_value(um_config *c, const char *key, const char *value, int force_string,
                     const char *origin, char *err, size_t errlen) {
  int src, rc;
  cnode *val;
  if ((rc = add_source(c, origin ? origin : "--set", &src)))
    return um_format_error(err, errlen, rc, "out of memory setting %s", key ? key : "");
  if ((rc = value_node(c, value, force_string, src, &val, err, errlen))) {
    if (rc == UM_ERR_CONFIG && err && errlen) {
      /* prefix the key: "run.x: --set:1:3: YAML syntax error ..." */
      sbuf b = {0};
      sb_add(&b, key);
      sb_add(&b, ": ");
      sb_add(&b, err);
      if (!b.oom) snprintf(err, errlen, "%s", b.s);
      free(b.s);
    }
    return rc;
  }
  return set_node(c, key, val, err, errlen);
}

int um_config_set(um_config *cfg, const char *dotted_key, const char *value, const char *origin,
                  char *err, size_t errlen) {
  if (!cfg || !dotted_key || !value)
    return um_format_error(err, errlen, UM_ERR_ARG, "um_config_set: cfg, key and value must not be NULL");
  return set_value(cfg, dotted_key, value, 0, origin, err, errlen);
}

int um_config_set_assignment(um_config *cfg, const char *assignment, const char *origin, char *err,
                             size_t errlen) {
  if (!cfg || !assignment)
    return um_format_error(err, errlen, UM_ERR_ARG, "um_config_set_assignment: NULL argument");
  const char *o = origin ? origin : "--set";
  const char *eq = strchr(assignment, '=');
  if (!eq)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: '%s' has no '='; write key=value, e.g. run.backend=seq", o, assignment);
  const char *kb = assignment, *ke = eq;
  while (kb < ke && isspace((unsigned char)*kb)) kb++;
  while (ke > kb && isspace((unsigned char)ke[-1])) ke--;
  if (kb == ke)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: '%s' has no key before '='; write key=value, e.g. run.backend=seq", o,
                assignment);
  char *key = xstrndup(kb, (size_t)(ke - kb));
  if (!key) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
  int rc = set_value(cfg, key, eq + 1, 0, o, err, errlen);
  free(key);
  return rc;
}

typedef struct {
  char *text;
  size_t eq;  /* position of the '=' that splits key and value */
  int forced; /* value entirely quoted: a string */
} opt_tok;

int um_config_apply_options_string(um_config *cfg, const char *s, const char *origin, char *err,
                                   size_t errlen) {
  if (!cfg) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_apply_options_string: cfg is NULL");
  if (!s) return UM_SUCCESS;
  const char *o = origin ? origin : "options";
  opt_tok *toks = NULL;
  int ntok = 0, cap = 0, rc = UM_SUCCESS;
  const char *p = s;
  for (;;) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) break;
    const char *start = p;
    sbuf b = {0};
    long eq_unq = -1, eq_any = -1;
    int quote_sections = 0, unquoted_after = 0, depth = 0;
    while (*p && (depth > 0 || !isspace((unsigned char)*p))) {
      if (*p == '\'' || *p == '"') {
        char q = *p++;
        int literal = depth > 0; /* inside {...} / [...]: quotes are YAML's */
        if (eq_unq >= 0 && literal)
          unquoted_after++;
        else if (eq_unq >= 0)
          quote_sections++;
        if (literal) sb_addc(&b, q);
        while (*p && *p != q) {
          if (!literal && q == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\')) p++;
          if (*p == '=' && eq_any < 0) eq_any = (long)b.n;
          sb_addc(&b, *p++);
        }
        if (!*p) {
          rc = um_format_error(err, errlen, UM_ERR_CONFIG,
                    "%s: unterminated %c quote in entry starting '%.60s'; close the quote", o, q,
                    start);
          free(b.s);
          goto done;
        }
        if (literal) sb_addc(&b, q);
        p++; /* closing quote */
        continue;
      }
      if (*p == '=' && eq_unq < 0) {
        eq_unq = (long)b.n;
        if (eq_any < 0) eq_any = eq_unq;
        sb_addc(&b, *p++);
        continue;
      }
      if (*p == '\\' && p[1] && depth == 0) {
        p++; /* escaped character */
      } else if (eq_unq >= 0 && (*p == '{' || *p == '[')) {
        depth++; /* spaces inside a flow value do not end the entry */
      } else if (eq_unq >= 0 && depth > 0 && (*p == '}' || *p == ']')) {
        depth--;
      }
      if (eq_unq >= 0) unquoted_after++;
      sb_addc(&b, *p++);
    }
    if (b.oom) {
      free(b.s);
      rc = um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
      goto done;
    }
    long eq = eq_unq >= 0 ? eq_unq : eq_any;
    if (eq < 0 || eq == 0) {
      rc = um_format_error(err, errlen, UM_ERR_CONFIG,
                eq < 0 ? "%s: entry '%s' has no '='; write key=value pairs separated by spaces, "
                         "e.g. \"run.backend=seq mesh.I=40\""
                       : "%s: entry '%s' has no key before '='; write key=value pairs separated "
                         "by spaces, e.g. \"run.backend=seq mesh.I=40\"",
                o, sb_str(&b));
      free(b.s);
      goto done;
    }
    b.s[eq] = '\0';
    int kok = key_ok(b.s);
    b.s[eq] = '=';
    if (!kok) {
      rc = um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: invalid key in entry '%s'; use dot-separated names such as run.backend", o,
                b.s);
      free(b.s);
      goto done;
    }
    if (ntok == cap) {
      int nc = cap ? 2 * cap : 8;
      opt_tok *t = (opt_tok *)realloc(toks, (size_t)nc * sizeof *t);
      if (!t) {
        free(b.s);
        rc = um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
        goto done;
      }
      toks = t;
      cap = nc;
    }
    toks[ntok].text = b.s;
    toks[ntok].eq = (size_t)eq;
    toks[ntok].forced = eq_unq >= 0 && quote_sections > 0 && unquoted_after == 0;
    ntok++;
  }
  for (int i = 0; i < ntok && !rc; i++) {
    char *t = toks[i].text;
    t[toks[i].eq] = '\0';
    rc = set_value(cfg, t, t + toks[i].eq + 1, toks[i].forced, o, err, errlen);
  }
done:
  for (int i = 0; i < ntok; i++) free(toks[i].text);
  free(toks);
  return rc;
}

int um_config_apply_env(um_config *cfg, const char *var, char *err, size_t errlen) {
  if (!cfg || !var) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_apply_env: NULL argument");
  const char *v = getenv(var);
  if (!v || !*v) return UM_SUCCESS;
  return um_config_apply_options_string(cfg, v, var, err, errlen);
}

int um_config_merge(um_config *cfg, const um_config *over, char *err, size_t errlen) {
  if (!cfg || !over) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_merge: NULL argument");
  int *map = (int *)malloc(((size_t)over->nsrc + 1) * sizeof *map);
  if (!map) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory merging configs");
  for (int i = 0; i < over->nsrc; i++)
    if (add_source(cfg, over->srcs[i], &map[i])) {
      free(map);
      return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory merging configs");
    }
  if (over->nsrc == 0) map[0] = 0;
  cnode *copy = node_copy(over->root, map);
  free(map);
  if (!copy) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory merging configs");
  return merge_into(cfg, cfg->root, copy, "", err, errlen);
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
  if (c->ndefs == c->capdefs) {
    int cap = c->capdefs ? 2 * c->capdefs : 8;
    deflt *d = (deflt *)realloc(c->defs, (size_t)cap * sizeof *d);
    if (!d) return; /* only used for printing: drop silently */
    c->defs = d;
    c->capdefs = cap;
  }
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
  int rc = lookup(c, key, &n, err, errlen);
  if (rc || !n) return rc;
  if (n->kind != N_SCALAR) {
    char org[256];
    origin_of(c, n, org, sizeof org);
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: expected %s, but it is a %s (from %s); give a single value, e.g. %s: ...", key,
                what, kind_name(n), org, key);
  }
  n->read = 1;
  if (!is_null(n)) *out = n;
  return UM_SUCCESS;
}

static int bad_value(const um_config *c, const cnode *n, const char *key, const char *what,
                     const char *hint, char *err, size_t errlen) {
  char org[256];
  origin_of(c, n, org, sizeof org);
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
  if (!isxdigit((unsigned char)*p) || (base == 10 && !isdigit((unsigned char)*p))) return 0;
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

/* Edit distance (case-insensitive), capped inputs. */
static int edit_distance(const char *a, const char *b) {
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

static int close_enough(const char *a, const char *b, int d) {
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
    int d = edit_distance(n->value, choices[i]);
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
  origin_of(cfg, n, org, sizeof org);
  if (best >= 0 && close_enough(n->value, choices[best], bestd))
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
  if (!cfg || lookup(cfg, key, &n, NULL, 0) || !n) return UM_CONFIG_ABSENT;
  if (n->kind == N_MAP) return UM_CONFIG_MAPPING;
  if (n->kind == N_SEQ) return UM_CONFIG_SEQUENCE;
  return is_null(n) ? UM_CONFIG_NULL : UM_CONFIG_SCALAR;
}

static int lookup_any(const um_config *c, const char *key, cnode **n, char *err, size_t errlen) {
  if (!key || !*key) {
    *n = c->root;
    return UM_SUCCESS;
  }
  return lookup(c, key, n, err, errlen);
}

int um_config_keys(const um_config *cfg, const char *key, int *n, const char **names, int cap,
                   char *err, size_t errlen) {
  cnode *m;
  if (!cfg || !n || (cap > 0 && !names))
    return um_format_error(err, errlen, UM_ERR_ARG, "um_config_keys: NULL argument");
  *n = 0;
  int rc = lookup_any(cfg, key, &m, err, errlen);
  if (rc || !m || is_null(m)) return rc;
  if (m->kind != N_MAP) {
    char org[256];
    origin_of(cfg, m, org, sizeof org);
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: expected a mapping of keys, but it is a %s (from %s); write '%s:' followed "
                "by indented 'name: value' lines",
                key, kind_name(m), org, key);
  }
  for (int i = 0; i < m->n && i < cap; i++) names[i] = m->keys[i];
  *n = m->n;
  return UM_SUCCESS;
}

int um_config_size(const um_config *cfg, const char *key, int *n, char *err, size_t errlen) {
  cnode *m;
  if (!cfg || !n) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_size: NULL argument");
  *n = 0;
  int rc = lookup_any(cfg, key, &m, err, errlen);
  if (rc || !m || is_null(m)) return rc;
  if (m->kind == N_SCALAR) {
    char org[256];
    origin_of(cfg, m, org, sizeof org);
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: expected a sequence or mapping, but it is a single value ('%.100s', from %s); "
                "write a list, e.g. %s: [1, 2]",
                key, m->value, org, key);
  }
  *n = m->n;
  return UM_SUCCESS;
}

int um_config_origin(const um_config *cfg, const char *key, char *buf, size_t len) {
  cnode *n;
  if (buf && len) buf[0] = '\0';
  if (!cfg || !buf || !len) return UM_ERR_ARG;
  int rc = lookup_any(cfg, key, &n, NULL, 0);
  if (rc) return rc;
  if (!n) return UM_ERR_CONFIG;
  origin_of(cfg, n, buf, len);
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

/* ---- reporting ---------------------------------------------------------------------- */
typedef int (*leaf_fn)(const um_config *c, const char *path, const cnode *n, void *u);

static int is_scalar_seq(const cnode *n) {
  if (n->kind != N_SEQ) return 0;
  for (int i = 0; i < n->n; i++)
    if (n->kids[i]->kind != N_SCALAR) return 0;
  return 1;
}

/* Visit leaves depth-first in file order. `inline_seqs`: a sequence of
 * scalars, and an empty mapping, is one leaf. Returns non-zero to stop. */
static int walk(const um_config *c, const cnode *n, sbuf *path, int inline_seqs, leaf_fn fn,
                void *u) {
  if (n->kind == N_SCALAR || (inline_seqs && (is_scalar_seq(n) || n->n == 0)))
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
} unread_ctx;

static int unread_leaf(const um_config *c, const char *path, const cnode *n, void *u) {
  unread_ctx *x = (unread_ctx *)u;
  if (n->read) return 0;
  char org[256];
  origin_of(c, n, org, sizeof org);
  const char *sugg = NULL;
  int bestd = INT_MAX;
  for (int i = 0; i < c->ndefs; i++) {
    int d = edit_distance(path, c->defs[i].key);
    if (d < bestd && close_enough(path, c->defs[i].key, d)) {
      bestd = d;
      sugg = c->defs[i].key;
    }
  }
  x->count++;
  return x->fn ? x->fn(path, org, sugg, x->user) : 0;
}

int um_config_unread(const um_config *cfg, um_config_unread_fn fn, void *user) {
  if (!cfg) return 0;
  unread_ctx x = {fn, user, 0};
  sbuf path = {0};
  walk(cfg, cfg->root, &path, 0, unread_leaf, &x);
  free(path.s);
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
  if (is_null(n)) {
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
    origin_of(c, n, org, sizeof org);
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

static int emit_node(yaml_emitter_t *e, const cnode *n) {
  yaml_event_t ev;
  if (n->kind == N_SCALAR) return emit_scalar(e, is_null(n) ? "~" : n->value, n->quoted);
  if (n->kind == N_MAP) {
    if (!yaml_mapping_start_event_initialize(
            &ev, NULL, NULL, 1, n->n ? YAML_BLOCK_MAPPING_STYLE : YAML_FLOW_MAPPING_STYLE) ||
        emit(e, &ev))
      return 1;
    for (int i = 0; i < n->n; i++)
      if (emit_scalar(e, n->keys[i], 0) || emit_node(e, n->kids[i])) return 1;
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
