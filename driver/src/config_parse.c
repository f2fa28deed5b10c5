/* Config loading: YAML text and files into a config tree (um/config.h).
 *
 * Parsing uses libyaml's event API (not its document loader) so that aliases
 * can be refused before they expand, nesting depth is bounded, and every
 * libyaml error (reader, scanner, parser, memory) reaches the user with its
 * own text and position. Calls go one way: config_parse.c builds nodes with
 * config_tree.c and calls nothing that calls it back (config_set.c parses --set
 * flow values through um__cfg_parse_text). */
#include "config_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <yaml.h>

#include "hash.h"
#include "um/safe_file.h"

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
    case YAML_PARSER_ERROR: {
      /* a tab where indentation is expected: libyaml says only "found character that cannot start any token" */
      size_t at = y->problem_mark.index, ls = at;
      while (ls > 0 && ls <= p->len && p->text[ls - 1] != '\n') ls--;
      int tab = 0;
      for (size_t i = ls; i <= at && i < p->len; i++) tab |= p->text[i] == '\t';
      if (tab)
        return um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
                               "%s:%lu:%lu: YAML syntax error: %s; the line holds a tab: YAML indents with spaces "
                               "only, replace the tab by spaces",
                               p->where, (unsigned long)y->problem_mark.line + 1,
                               (unsigned long)y->problem_mark.column + 1, problem);
    }
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

/* The keys of one mapping being parsed, hashed (open addressing, FNV-1a):
 * the duplicate-key check is linear in the number of keys (a linear search
 * per key made 80,000 keys take 11 s). */
typedef struct {
  int *slot; /* index into the mapping's keys + 1; 0 empty */
  size_t cap;
} key_index;

static size_t key_hash(const char *k, size_t len) { return (size_t)um_fnv1a(UM_FNV_OFFSET, k, len); }

/* Index of key k in m (through ix), or -1. */
static int key_find(const key_index *ix, const cnode *m, const char *k, size_t len) {
  if (!ix->cap) return -1;
  for (size_t h = key_hash(k, len) & (ix->cap - 1);; h = (h + 1) & (ix->cap - 1)) {
    const int s = ix->slot[h];
    if (!s) return -1;
    if (strncmp(m->keys[s - 1], k, len) == 0 && m->keys[s - 1][len] == '\0') return s - 1;
  }
}

/* Add key number i of m; grows at half full. 0, or -1 when out of memory. */
static int key_add(key_index *ix, const cnode *m, int i) {
  if (2 * (size_t)(i + 1) > ix->cap) {
    size_t cap = ix->cap ? 2 * ix->cap : 16;
    while (2 * (size_t)(i + 1) > cap) cap *= 2;
    int *slot = (int *)calloc(cap, sizeof *slot);
    if (!slot) return -1;
    free(ix->slot);
    ix->slot = slot;
    ix->cap = cap;
    for (int j = 0; j < i; j++) {
      size_t h = key_hash(m->keys[j], strlen(m->keys[j])) & (cap - 1);
      while (slot[h]) h = (h + 1) & (cap - 1);
      slot[h] = j + 1;
    }
  }
  size_t h = key_hash(m->keys[i], strlen(m->keys[i])) & (ix->cap - 1);
  while (ix->slot[h]) h = (h + 1) & (ix->cap - 1);
  ix->slot[h] = i + 1;
  return 0;
}

/* An explicit YAML tag (!foo, !!str) on the node that starts with e: refused, as aliases are (a um config's
 * values are read by their keys' types, which a tag would silently not change). UM_SUCCESS where none. */
static int refuse_tag(pctx *p, const yaml_event_t *e) {
  const yaml_char_t *tag = e->type == YAML_SCALAR_EVENT           ? e->data.scalar.tag
                           : e->type == YAML_MAPPING_START_EVENT  ? e->data.mapping_start.tag
                           : e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.tag
                                                                  : NULL;
  if (!tag) return UM_SUCCESS;
  const char *t = (const char *)tag, *core = "tag:yaml.org,2002:";
  const int is_core = !strncmp(t, core, strlen(core));
  return um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
                         "%s:%d:%lu: YAML tag '%s%.100s' is not supported in um configs; remove it (each key "
                         "reads its value as its own type: umrun --help lists them)",
                         p->where, MARK_LINE(e), MARK_COL(e), is_core ? "!!" : "", is_core ? t + strlen(core) : t);
}

/* A mapping's key (the event e) checked: a plain scalar, not empty, without NUL or '.', not given before in n
 * (ix: its keys). UM_SUCCESS, or the error told in p->err. */
static int check_key(pctx *p, const yaml_event_t *e, const key_index *ix, const cnode *n) {
  int rc = UM_SUCCESS;
  int kline = MARK_LINE(e);
  unsigned long kcol = MARK_COL(e);
  if (e->type != YAML_SCALAR_EVENT) {
    rc = um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
              "%s:%d:%lu: a key must be a plain name, not a %s; write 'name: value'", p->where,
              kline, kcol,
              e->type == YAML_ALIAS_EVENT           ? "alias"
              : e->type == YAML_MAPPING_START_EVENT ? "mapping"
                                                   : "sequence");
    return rc;
  }
  const char *k = (const char *)e->data.scalar.value;
  size_t klen = e->data.scalar.length;
  if (klen == 0 || strlen(k) != klen || memchr(k, '.', klen) ||
      (e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(k, "~"))) {
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
    return rc;
  }
  if ((rc = refuse_tag(p, e))) return rc;
  if (e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(k, "<<"))
    return um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
                           "%s:%d:%lu: merge key '<<' is not supported in um configs; write the keys out instead",
                           p->where, kline, kcol);
  int dup = key_find(ix, n, k, klen);
  if (dup >= 0) {
    rc = um_format_error(p->err, p->errlen, UM_ERR_CONFIG,
              "%s:%d:%lu: duplicate key '%.200s' (first given at line %d); remove one of them",
              p->where, kline, kcol, k, n->kids[dup]->line);
    return rc;
  }
  return UM_SUCCESS;
}

/* Build the node that starts with *ev (consumed, deleted here). */
static int parse_node(pctx *p, yaml_event_t *ev, int depth, cnode **out) {
  int rc = UM_SUCCESS;
  cnode *n = NULL;
  *out = NULL;
  if ((rc = refuse_tag(p, ev))) {
    yaml_event_delete(ev);
    return rc;
  }
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
      n = um__cfg_node_new(N_SCALAR, p->src, MARK_LINE(ev));
      if (!n ||
          !(n->value = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length))) {
        um__cfg_node_free(n);
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
  n = um__cfg_node_new(ismap ? N_MAP : N_SEQ, p->src, MARK_LINE(ev));
  yaml_event_delete(ev);
  if (!n) return um_format_error(p->err, p->errlen, UM_ERR_ALLOC, "%s: out of memory", p->where);
  key_index ix = {NULL, 0};

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
      if (um__cfg_node_append(n, NULL, kid)) {
        um__cfg_node_free(kid);
        rc = um_format_error(p->err, p->errlen, UM_ERR_ALLOC, "%s: out of memory", p->where);
        goto fail;
      }
      continue;
    }
    /* mapping: key then value */
    const int kline = MARK_LINE(&e);
    if ((rc = check_key(p, &e, &ix, n))) {
      yaml_event_delete(&e);
      goto fail;
    }
    const char *k = (const char *)e.data.scalar.value;
    const size_t klen = e.data.scalar.length;
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
    rc = um__cfg_node_append(n, key, kid);
    free(key);
    if (!rc && key_add(&ix, n, n->n - 1)) rc = UM_ERR_ALLOC;
    if (rc) {
      um__cfg_node_free(kid);
      rc = um_format_error(p->err, p->errlen, UM_ERR_ALLOC, "%s: out of memory", p->where);
      goto fail;
    }
  }
  free(ix.slot);
  *out = n;
  return UM_SUCCESS;
fail:
  free(ix.slot);
  um__cfg_node_free(n);
  return rc;
}

int um__cfg_parse_text(const char *text, size_t len, const char *where, int src, cnode **out,
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
    um__cfg_node_free(root);
    return rc;
  }
  *out = root;
  return UM_SUCCESS;
}

/* Load text as a config whose top level is a mapping. */
static int load_text(const char *text, size_t len, const char *where, const char *label,
                     um_config **cfg, char *err, size_t errlen) {
  int rc, src;
  if (len > UM_CONFIG_MAX_BYTES)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                           "%s: %zu bytes, larger than the %d bytes a config may have; is this a config file?", where,
                           len, UM_CONFIG_MAX_BYTES);
  cnode *root = NULL;
  um_config *c = um__cfg_config_new();
  if (!c) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory loading %s", where);
  if ((rc = um__cfg_add_source(c, label, &src))) {
    um_config_free(c);
    return um_format_error(err, errlen, rc, "out of memory loading %s", where);
  }
  if ((rc = um__cfg_parse_text(text, len, where, src, &root, err, errlen))) {
    um_config_free(c);
    return rc;
  }
  if (root && um__cfg_is_null(root)) {
    um__cfg_node_free(root);
    root = NULL;
  }
  if (root && root->kind != N_MAP) {
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
              "%s:%d: the top level must be a mapping of 'key: value' lines, but it is a %s", where,
              root->line, um__cfg_kind_name(root));
    um__cfg_node_free(root);
    um_config_free(c);
    return rc;
  }
  if (root) {
    um__cfg_node_free(c->root);
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
  char why[512];
  unsigned long long size = 0;
  FILE *f = um_read_open(path, 0, &size, why, sizeof why); /* a regular file (a FIFO never hangs) */
  if (!f)
    return um_format_error(err, errlen, UM_ERR_IO,
                "cannot open config file '%s': %s; check the path (relative paths start from "
                "the current directory)",
                path, why);
  if (size > UM_CONFIG_MAX_BYTES) {
    fclose(f);
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                           "%s: %llu bytes, larger than the %d bytes a config may have; is this a config file?",
                           path, size, UM_CONFIG_MAX_BYTES);
  }
  sbuf b = {0};
  char chunk[8192];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && b.n <= UM_CONFIG_MAX_BYTES) sb_addn(&b, chunk, got);
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

