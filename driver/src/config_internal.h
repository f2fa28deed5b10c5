/* What the config sources share (config_parse.c, config_tree.c, config_set.c, config_get.c,
 * config_print.c): the node tree, the config object and small string helpers.
 * Private to the driver. */
#ifndef UM_CONFIG_INTERNAL_H
#define UM_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "um/config.h"

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
  int n, cap;   /* children; capacity of kids                         */
  int kcap;     /* N_MAP: capacity of keys (grown apart from kids)    */
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
static inline char *xstrndup(const char *s, size_t n) {
  char *d = (char *)malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}
static inline char *xstrdup(const char *s) {
  return xstrndup(s, strlen(s));
}
/* Growable string. On allocation failure `oom` is set and appends are dropped. */
typedef struct {
  char *s;
  size_t n, cap;
  int oom;
} sbuf;

static inline void sb_addn(sbuf *b, const char *s, size_t n) {
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
static inline void sb_add(sbuf *b, const char *s) {
  sb_addn(b, s, strlen(s));
}
static inline void sb_addc(sbuf *b, char c) {
  sb_addn(b, &c, 1);
}
static inline const char *sb_str(const sbuf *b) {
  return b->s ? b->s : "";
}

/* ---- nodes and sources (config_tree.c) ----------------------------------------- */
cnode *um__cfg_node_new(nkind k, int src, int line);
void um__cfg_node_clear(cnode *n);
void um__cfg_node_free(cnode *n);
/* Append child (takes ownership of kid; key copied for maps). */
int um__cfg_node_append(cnode *p, const char *key, cnode *kid);
/* Index of key seg[0..len) in mapping m, or -1. */
int um__cfg_map_find(const cnode *m, const char *seg, size_t len);
int um__cfg_is_null(const cnode *n);
const char *um__cfg_kind_name(const cnode *n);
/* Index of the origin label in c->srcs, added if new. */
int um__cfg_add_source(um_config *c, const char *label, int *idx);
/* "file configs/x.yaml:12", "--set", ...: where node n came from. */
void um__cfg_origin_of(const um_config *c, const cnode *n, char *buf, size_t len);
um_config *um__cfg_config_new(void);
/* Check a dotted key: non-empty components, at most UM_CONFIG_MAX_DEPTH. */
int um__cfg_key_ok(const char *key);
/* Find the node at key. *out = NULL if absent (or under a null value).
 * Going through a non-null scalar, or a bad sequence index, is an error. */
int um__cfg_lookup(const um_config *c, const char *key, cnode **out, char *err, size_t errlen);
/* Put val at key (takes ownership of val); used by config_set.c. */
int um__cfg_set_node(um_config *c, const char *key, cnode *val, char *err, size_t errlen);
/* Give n and its children source src, line unknown (a value set from text). */
void um__cfg_set_src_line(cnode *n, int src);

/* ---- YAML (config_parse.c) ------------------------------------------------------- */
/* Parse a whole stream holding at most one document. *out is NULL for an
 * empty stream. */
int um__cfg_parse_text(const char *text, size_t len, const char *where, int src, cnode **out, char *err,
                       size_t errlen);

/* ---- suggestions (config_get.c) ---------------------------------------------------- */
/* Edit distance (case-insensitive), capped inputs. */
int um__cfg_edit_distance(const char *a, const char *b);
/* Is distance d between a and b small enough to suggest b for a? */
int um__cfg_close_enough(const char *a, const char *b, int d);

#endif
