/* Setting config values from text: --set key=value, UM_OPTIONS strings and variables
 * (um/config.h). Text that starts with '{', '[' or a quote is parsed as a YAML flow
 * value (config_parse.c); the node is put at its key by config_tree.c. Calls go one way:
 * config_set.c -> config_parse.c -> config_tree.c. */
#include "config_internal.h"

#include <ctype.h>
#include <stdio.h>

#include "array.h"

/* The offset of the first character YAML does not allow in a stream (a byte that is not UTF-8, a control
 * character other than tab and line ends, a surrogate, U+FFFE/FFFF: libyaml's reader refuses these in a file),
 * its code point (or byte) in *cp; -1 when the text is clean. */
static long bad_char(const char *text, unsigned long *cp) {
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; s[i];) {
    const unsigned char c = s[i];
    const int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    unsigned long u = n == 1 ? c : n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
    int k = 1;
    for (; k < n && (s[i + k] & 0xC0) == 0x80; k++) u = (u << 6) | (s[i + k] & 0x3Fu);
    const int overlong = (n == 2 && u < 0x80) || (n == 3 && u < 0x800) || (n == 4 && u < 0x10000);
    const int not_utf8 = !n || k < n || overlong || u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF);
    *cp = not_utf8 ? c : u;
    if (not_utf8 || u == 0xFFFE || u == 0xFFFF || (u < 0x20 && u != '\t' && u != '\n' && u != '\r') ||
        (u >= 0x7F && u <= 0x9F && u != 0x85))
      return (long)i;
    i += (size_t)n;
  }
  return -1;
}

/* Text a config may hold (what a file's reader accepts), or an error naming the key and the character. */
static int check_text(const char *origin, const char *key, const char *what, const char *text, char *err,
                      size_t errlen) {
  unsigned long cp = 0;
  const long at = bad_char(text, &cp);
  if (at < 0) return UM_SUCCESS;
  char ch[40];
  if ((unsigned char)text[at] >= 0x80 && cp == (unsigned char)text[at]) /* not UTF-8: the byte */
    snprintf(ch, sizeof ch, "the byte 0x%02lX, which is not UTF-8,", cp);
  else
    snprintf(ch, sizeof ch, "the character U+%04lX", cp);
  if (!strcmp(what, "key")) /* the key itself is not printable: not repeated */
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                           "%s: a key holds %s at offset %ld; a key must be UTF-8 text without control characters",
                           origin, ch, at);
  return um_format_error(err, errlen, UM_ERR_CONFIG,
                         "%s: %s: the value holds %s at offset %ld; a config value must be UTF-8 text without "
                         "control characters",
                         origin, key, ch, at);
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
    int rc = um__cfg_parse_text(b, (size_t)(e - b), c->srcs[src], src, &n, err, errlen);
    if (rc) return rc;
    if (!n) n = um__cfg_node_new(N_SCALAR, src, 0);
    if (!n) return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
    um__cfg_set_src_line(n, src);
    *out = n;
    return UM_SUCCESS;
  }
  cnode *n = um__cfg_node_new(N_SCALAR, src, 0);
  if (!n || !(n->value = force_string ? xstrdup(value) : xstrndup(b, (size_t)(e - b)))) {
    um__cfg_node_free(n);
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
  if ((rc = check_text(origin ? origin : "--set", key, "key", key, err, errlen)) ||
      (rc = check_text(origin ? origin : "--set", key, "value", value, err, errlen)))
    return rc;
  if ((rc = um__cfg_add_source(c, origin ? origin : "--set", &src)))
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
  return um__cfg_set_node(c, key, val, err, errlen);
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
      } else if (eq_unq >= 0 && (depth > 0 || b.n == (size_t)eq_unq + 1) && (*p == '{' || *p == '[')) {
        depth++; /* a value that starts with '{' or '[' is a flow value: its spaces do not end the entry */
      } else if (eq_unq >= 0 && depth > 0 && (*p == '}' || *p == ']')) {
        depth--;
      }
      if (eq_unq >= 0) unquoted_after++;
      sb_addc(&b, *p++);
    }
    if (b.oom || depth > 0) {
      rc = b.oom ? um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory")
                 : um_format_error(err, errlen, UM_ERR_CONFIG,
                                   "%s: unclosed '{' or '[' in the value of entry '%.60s'; close it (a value that "
                                   "starts with '{' or '[' is a YAML flow value and runs to its closing bracket)",
                                   o, sb_str(&b));
      free(b.s);
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
    int kok = um__cfg_key_ok(b.s);
    b.s[eq] = '=';
    if (!kok) {
      rc = um_format_error(err, errlen, UM_ERR_CONFIG,
                "%s: invalid key in entry '%s'; use dot-separated names such as run.backend", o,
                b.s);
      free(b.s);
      goto done;
    }
    if (UM_GROW(toks, cap, ntok)) {
      free(b.s);
      rc = um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory");
      goto done;
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
