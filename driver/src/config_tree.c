/* The config tree: nodes, origins, dotted keys, setting and merging values
 * (um/config.h). Values given as text (--set, UM_OPTIONS) are turned into nodes by
 * config_set.c. The tree is the bottom of the config sources: it calls none of
 * them (config_parse.c and config_set.c call into it). */
#include "config_internal.h"

#include <ctype.h>
#include <stdio.h>

#include "array.h"

cnode *um__cfg_node_new(nkind k, int src, int line) {
  cnode *n = (cnode *)calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = k;
  n->src = src;
  n->line = line;
  return n;
}

void um__cfg_node_clear(cnode *n) {
  for (int i = 0; i < n->n; i++) {
    if (n->keys) free(n->keys[i]);
    cnode *k = n->kids[i];
    um__cfg_node_clear(k);
    free(k);
  }
  free(n->keys);
  free(n->kids);
  free(n->value);
  n->keys = NULL;
  n->kids = NULL;
  n->value = NULL;
  n->n = n->cap = n->kcap = 0;
}

void um__cfg_node_free(cnode *n) {
  if (!n) return;
  um__cfg_node_clear(n);
  free(n);
}

int um__cfg_node_append(cnode *p, const char *key, cnode *kid) {
  if (UM_GROW(p->kids, p->cap, p->n)) return UM_ERR_ALLOC;
  if (p->kind == N_MAP && UM_GROW(p->keys, p->kcap, p->n)) return UM_ERR_ALLOC;
  if (p->kind == N_MAP) {
    char *k = xstrdup(key);
    if (!k) return UM_ERR_ALLOC;
    p->keys[p->n] = k;
  }
  p->kids[p->n++] = kid;
  return UM_SUCCESS;
}

int um__cfg_map_find(const cnode *m, const char *seg, size_t len) {
  for (int i = 0; i < m->n; i++)
    if (strncmp(m->keys[i], seg, len) == 0 && m->keys[i][len] == '\0') return i;
  return -1;
}

int um__cfg_is_null(const cnode *n) {
  if (n->kind != N_SCALAR || n->quoted) return 0;
  const char *v = n->value;
  return !v || !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
         !strcmp(v, "NULL");
}

const char *um__cfg_kind_name(const cnode *n) {
  if (n->kind == N_MAP) return "mapping";
  if (n->kind == N_SEQ) return "sequence";
  return um__cfg_is_null(n) ? "null" : "scalar";
}

/* Deep copy; source indices are mapped through srcmap (NULL: identity). */
static cnode *node_copy(const cnode *n, const int *srcmap) {
  cnode *c = um__cfg_node_new(n->kind, srcmap ? srcmap[n->src] : n->src, n->line);
  if (!c) return NULL;
  c->quoted = n->quoted;
  c->read = n->read;
  if (n->value && !(c->value = xstrdup(n->value))) goto oom;
  for (int i = 0; i < n->n; i++) {
    cnode *k = node_copy(n->kids[i], srcmap);
    if (!k) goto oom;
    if (um__cfg_node_append(c, n->keys ? n->keys[i] : NULL, k)) {
      um__cfg_node_free(k);
      goto oom;
    }
  }
  return c;
oom:
  um__cfg_node_free(c);
  return NULL;
}


/* ---- sources / origins --------------------------------------------------------- */
int um__cfg_add_source(um_config *c, const char *label, int *idx) {
  for (int i = 0; i < c->nsrc; i++)
    if (!strcmp(c->srcs[i], label)) {
      *idx = i;
      return UM_SUCCESS;
    }
  if (UM_GROW(c->srcs, c->capsrc, c->nsrc)) return UM_ERR_ALLOC;
  if (!(c->srcs[c->nsrc] = xstrdup(label))) return UM_ERR_ALLOC;
  *idx = c->nsrc++;
  return UM_SUCCESS;
}

void um__cfg_origin_of(const um_config *c, const cnode *n, char *buf, size_t len) {
  const char *s = (n->src >= 0 && n->src < c->nsrc) ? c->srcs[n->src] : "?";
  if (n->line > 0)
    snprintf(buf, len, "%s:%d", s, n->line);
  else
    snprintf(buf, len, "%s", s);
}

/* ---- the object ------------------------------------------------------------- */
um_config *um__cfg_config_new(void) {
  um_config *c = (um_config *)calloc(1, sizeof *c);
  if (!c) return NULL;
  if (!(c->root = um__cfg_node_new(N_MAP, 0, 0))) {
    free(c);
    return NULL;
  }
  return c;
}

void um_config_free(um_config *cfg) {
  if (!cfg) return;
  um__cfg_node_free(cfg->root);
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
  *cfg = um__cfg_config_new();
  if (!*cfg) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory creating a config");
  return UM_SUCCESS;
}

/* ---- dotted keys ---------------------------------------------------------------- */
int um__cfg_key_ok(const char *key) {
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

int um__cfg_lookup(const um_config *c, const char *key, cnode **out, char *err, size_t errlen) {
  *out = NULL;
  if (!um__cfg_key_ok(key))
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
      int i = um__cfg_map_find(cur, s, len);
      if (i < 0) return UM_SUCCESS;
      next = cur->kids[i];
    } else if (cur->kind == N_SEQ) {
      int i = seg_index(s, len);
      if (i < 0) {
        um__cfg_origin_of(c, cur, org, sizeof org);
        return um_format_error(err, errlen, UM_ERR_CONFIG,
                    "%s: '%.*s' is a sequence (from %s); address its items by index, e.g. %.*s.0",
                    key, (int)plen, key, org, (int)plen, key);
      }
      if (i >= cur->n) return UM_SUCCESS;
      next = cur->kids[i];
    } else {
      if (um__cfg_is_null(cur)) return UM_SUCCESS;
      um__cfg_origin_of(c, cur, org, sizeof org);
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
      int j = um__cfg_map_find(dst, src->keys[i], strlen(src->keys[i]));
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
        if ((rc = um__cfg_node_append(dst, src->keys[i], kid)))
          rc = um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory setting %s", path);
        else
          src->kids[i] = NULL;
      }
      if (rc) break;
    }
    /* free what is left of src (moved children are NULL) */
    for (int i = 0; i < src->n; i++) {
      free(src->keys[i]);
      um__cfg_node_free(src->kids[i]);
    }
    free(src->keys);
    free(src->kids);
    free(src->value);
    free(src);
    return rc;
  }
  int same = dst->kind == src->kind && dst->kind != N_MAP;
  if (same || um__cfg_is_null(dst)) {
    int read = dst->read;
    um__cfg_node_clear(dst);
    *dst = *src; /* move contents */
    dst->read = dst->read || read;
    free(src);
    return UM_SUCCESS;
  }
  char o1[256], o2[256];
  um__cfg_origin_of(c, dst, o1, sizeof o1);
  um__cfg_origin_of(c, src, o2, sizeof o2);
  const char *p = *path ? path : "(top level)";
  if (dst->kind == N_MAP)
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
              "%s: cannot replace a mapping (from %s) by a %s (from %s); set one of its keys "
              "instead, e.g. %s.<key>=value",
              p, o1, um__cfg_kind_name(src), o2, p);
  else
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
              "%s: cannot replace a %s (from %s) by a %s (from %s); give a %s", p, um__cfg_kind_name(dst),
              o1, um__cfg_kind_name(src), o2, um__cfg_kind_name(dst));
  um__cfg_node_free(src);
  return rc;
}

void um__cfg_set_src_line(cnode *n, int src) {
  n->src = src;
  n->line = 0;
  for (int i = 0; i < n->n; i++) um__cfg_set_src_line(n->kids[i], src);
}

/* Put val at key (takes ownership of val). */
int um__cfg_set_node(um_config *c, const char *key, cnode *val, char *err, size_t errlen) {
  char org[256];
  int rc;
  if (!um__cfg_key_ok(key)) {
    um__cfg_node_free(val);
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
      if (!um__cfg_is_null(cur)) {
        um__cfg_origin_of(c, cur, org, sizeof org);
        um__cfg_node_free(val);
        return um_format_error(err, errlen, UM_ERR_CONFIG,
                    "cannot set %s: '%.*s' is a single value ('%.100s', from %s), not a mapping; "
                    "check the key",
                    key, (int)plen, key, cur->value, org);
      }
      um__cfg_node_clear(cur); /* a null becomes a mapping */
      cur->kind = N_MAP;
      cur->src = val->src;
      cur->line = 0;
    }
    cnode *next = NULL;
    if (cur->kind == N_MAP) {
      int i = um__cfg_map_find(cur, s, len);
      if (i >= 0) {
        next = cur->kids[i];
      } else {
        char *k = xstrndup(s, len);
        cnode *nn = dot ? um__cfg_node_new(N_MAP, val->src, 0) : val;
        if (!k || !nn || um__cfg_node_append(cur, k, nn)) {
          free(k);
          if (nn != val) um__cfg_node_free(nn);
          um__cfg_node_free(val);
          return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory setting %s", key);
        }
        free(k);
        if (!dot) return UM_SUCCESS;
        next = nn;
      }
    } else { /* N_SEQ */
      int i = seg_index(s, len);
      if (i < 0 || i >= cur->n) {
        um__cfg_origin_of(c, cur, org, sizeof org);
        um__cfg_node_free(val);
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
        um__cfg_node_free(val);
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

int um_config_merge(um_config *cfg, const um_config *over, char *err, size_t errlen) {
  if (!cfg || !over) return um_format_error(err, errlen, UM_ERR_ARG, "um_config_merge: NULL argument");
  int *map = (int *)malloc(((size_t)over->nsrc + 1) * sizeof *map);
  if (!map) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory merging configs");
  for (int i = 0; i < over->nsrc; i++)
    if (um__cfg_add_source(cfg, over->srcs[i], &map[i])) {
      free(map);
      return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory merging configs");
    }
  if (over->nsrc == 0) map[0] = 0;
  cnode *copy = node_copy(over->root, map);
  free(map);
  if (!copy) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory merging configs");
  return merge_into(cfg, cfg->root, copy, "", err, errlen);
}

