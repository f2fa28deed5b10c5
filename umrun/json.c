/* JSON reader (see json.h): recursive descent over the whole text in memory. */
#include "json.h"
#include "um/report.h"
#include "um/safe_file.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *s, *end, *origin;
  int depth;
  char *err;
  size_t errlen;
} parser;

static int fail(parser *p, const char *at, const char *fmt, ...) {
  int line = 1, col = 1;
  for (const char *c = p->s; c < at && c < p->end; c++) {
    if (*c == '\n') line++, col = 1;
    else col++;
  }
  if (p->err && p->errlen) {
    int n = snprintf(p->err, p->errlen, "%s:%d:%d: ", p->origin, line, col);
    if (n >= 0 && (size_t)n < p->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return -1;
}

static void skip_ws(parser *p, const char **c) {
  while (*c < p->end && (**c == ' ' || **c == '\t' || **c == '\n' || **c == '\r')) (*c)++;
}

static void free_inner(uj *v) {
  if (!v) return;
  free(v->str);
  for (int i = 0; i < v->n; i++) {
    free_inner(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  memset(v, 0, sizeof *v);
}

void uj_free(uj *v) {
  free_inner(v);
  free(v);
}

static int hex4(const char *c, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char h = c[i];
    v <<= 4;
    if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
    else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* *c at the opening quote; the decoded string (escapes resolved) in *out */
static int parse_string(parser *p, const char **c, char **out) {
  const char *start = *c;
  const char *q = *c + 1;
  size_t cap = 0;
  for (const char *t = q; t < p->end && *t != '"'; t++) {
    if (*t == '\\') t++;
    cap++;
  }
  char *buf = malloc(cap * 4 + 1), *o = buf;
  if (!buf) return fail(p, start, "out of memory reading a string");
  for (;;) {
    if (q >= p->end) {
      free(buf);
      return fail(p, start, "a string that is never closed (a '\"' is missing)");
    }
    unsigned char ch = (unsigned char)*q;
    if (ch == '"') break;
    if (ch < 0x20) {
      free(buf);
      return fail(p, q, "a control character (0x%02x) inside a string: write it as an escape", ch);
    }
    if (ch != '\\') {
      *o++ = (char)ch;
      q++;
      continue;
    }
    if (q + 1 >= p->end) {
      free(buf);
      return fail(p, q, "a string ends in the middle of an escape");
    }
    char e = q[1];
    q += 2;
    switch (e) {
      case '"': *o++ = '"'; break;
      case '\\': *o++ = '\\'; break;
      case '/': *o++ = '/'; break;
      case 'b': *o++ = '\b'; break;
      case 'f': *o++ = '\f'; break;
      case 'n': *o++ = '\n'; break;
      case 'r': *o++ = '\r'; break;
      case 't': *o++ = '\t'; break;
      case 'u': {
        unsigned cp;
        if (p->end - q < 4 || hex4(q, &cp)) {
          free(buf);
          return fail(p, q - 2, "\\u must be followed by four hexadecimal digits");
        }
        q += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && p->end - q >= 6 && q[0] == '\\' && q[1] == 'u') {
          unsigned lo;
          if (!hex4(q + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            q += 6;
          }
        }
        if (cp == 0) cp = 0xFFFD; /* keep strings NUL-terminated */
        o += put_utf8(o, cp);
        break;
      }
      default:
        free(buf);
        return fail(p, q - 2, "unknown escape '\\%c' in a string", e);
    }
  }
  *o = '\0';
  *out = buf;
  *c = q + 1;
  return 0;
}

static int parse_value(parser *p, const char **c, uj *v);

static int grow(parser *p, const char *at, uj *v, int *cap, int with_keys) {
  if (v->n < *cap) return 0;
  if (*cap > (1 << 26)) return fail(p, at, "too many entries");
  int nc = *cap ? *cap * 2 : 8;
  uj *ni = realloc(v->items, (size_t)nc * sizeof *ni);
  if (!ni) return fail(p, at, "out of memory");
  v->items = ni;
  if (with_keys) {
    char **nk = realloc(v->keys, (size_t)nc * sizeof *nk);
    if (!nk) return fail(p, at, "out of memory");
    v->keys = nk;
  }
  *cap = nc;
  return 0;
}

static int parse_container(parser *p, const char **c, uj *v, int is_obj) {
  const char *open = *c;
  if (++p->depth > UJ_MAX_DEPTH) return fail(p, open, "nested deeper than %d levels", UJ_MAX_DEPTH);
  v->kind = is_obj ? UJ_OBJ : UJ_ARR;
  const char close = is_obj ? '}' : ']';
  int cap = 0;
  (*c)++;
  skip_ws(p, c);
  if (*c < p->end && **c == close) {
    (*c)++;
    p->depth--;
    return 0;
  }
  for (;;) {
    skip_ws(p, c);
    if (grow(p, *c, v, &cap, is_obj)) return -1;
    uj *item = &v->items[v->n];
    memset(item, 0, sizeof *item);
    if (is_obj) {
      if (*c >= p->end || **c != '"') return fail(p, *c, "expected a key in double quotes");
      char *key = NULL;
      if (parse_string(p, c, &key)) return -1;
      v->keys[v->n] = key;
      v->n++;
      skip_ws(p, c);
      if (*c >= p->end || **c != ':') return fail(p, *c, "expected ':' after the key \"%.60s\"", key);
      (*c)++;
      skip_ws(p, c);
    } else {
      v->n++;
    }
    if (parse_value(p, c, item)) return -1;
    skip_ws(p, c);
    if (*c < p->end && **c == ',') {
      (*c)++;
      continue;
    }
    if (*c < p->end && **c == close) {
      (*c)++;
      p->depth--;
      return 0;
    }
    return fail(p, *c, "expected ',' or '%c'", close);
  }
}

static int parse_value(parser *p, const char **c, uj *v) {
  skip_ws(p, c);
  if (*c >= p->end) return fail(p, *c, "the text ends where a value was expected");
  const char ch = **c;
  if (ch == '{' || ch == '[') return parse_container(p, c, v, ch == '{');
  if (ch == '"') {
    v->kind = UJ_STR;
    return parse_string(p, c, &v->str);
  }
  static const struct { const char *word; uj_kind kind; double num; } words[] = {
      {"null", UJ_NULL, 0}, {"true", UJ_BOOL, 1}, {"false", UJ_BOOL, 0}};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(words[i].word);
    if ((size_t)(p->end - *c) >= n && !strncmp(*c, words[i].word, n)) {
      v->kind = words[i].kind;
      v->num = words[i].num;
      *c += n;
      return 0;
    }
  }
  /* a number, as RFC 8259 spells it */
  const char *q = *c;
  if (q < p->end && *q == '-') q++;
  if (q >= p->end || *q < '0' || *q > '9') return fail(p, *c, "expected a value (object, array, string, number, true, false or null)");
  if (*q == '0') q++;
  else while (q < p->end && *q >= '0' && *q <= '9') q++;
  if (q < p->end && *q == '.') {
    q++;
    if (q >= p->end || *q < '0' || *q > '9') return fail(p, q, "expected a digit after the decimal point");
    while (q < p->end && *q >= '0' && *q <= '9') q++;
  }
  if (q < p->end && (*q == 'e' || *q == 'E')) {
    q++;
    if (q < p->end && (*q == '+' || *q == '-')) q++;
    if (q >= p->end || *q < '0' || *q > '9') return fail(p, q, "expected a digit in the exponent");
    while (q < p->end && *q >= '0' && *q <= '9') q++;
  }
  char buf[128];
  size_t n = (size_t)(q - *c);
  if (n >= sizeof buf) return fail(p, *c, "a number of more than %zu characters", sizeof buf - 1);
  memcpy(buf, *c, n);
  buf[n] = '\0';
  v->kind = UJ_NUM;
  v->num = strtod(buf, NULL);
  *c = q;
  return 0;
}

int uj_parse(const char *text, size_t len, const char *origin, uj **out, char *err, size_t errlen) {
  *out = NULL;
  parser p = {text, text + len, origin ? origin : "(json)", 0, err, errlen};
  uj *v = calloc(1, sizeof *v);
  if (!v) return fail(&p, text, "out of memory");
  const char *c = text;
  if (parse_value(&p, &c, v)) {
    uj_free(v);
    return -1;
  }
  skip_ws(&p, &c);
  if (c != p.end) {
    uj_free(v);
    return fail(&p, c, "unexpected text after the end of the JSON value");
  }
  *out = v;
  return 0;
}

char *uj_read_file(const char *path, size_t max, size_t *len_out, char *err, size_t errlen) {
  char why[512];
  unsigned long long size = 0;
  FILE *f = um_read_open(path, 0, &size, why, sizeof why); /* a regular file: a FIFO never hangs */
  if (!f) {
    snprintf(err, errlen, "cannot open '%s': %s", path, why);
    return NULL;
  }
  if (size >= max) {
    fclose(f);
    snprintf(err, errlen, "'%s' is larger than %zu MiB: not a umrun results file", path, max >> 20);
    return NULL;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 1 >= cap) { /* room for the terminating NUL too */
      if (cap >= max) {
        fclose(f);
        free(buf);
        snprintf(err, errlen, "'%s' is larger than %zu MiB: not a umrun results file", path, max >> 20);
        return NULL;
      }
      cap = cap ? cap * 2 : 65536;
      char *nb = realloc(buf, cap);
      if (!nb) {
        fclose(f);
        free(buf);
        snprintf(err, errlen, "out of memory reading '%s'", path);
        return NULL;
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - 1 - len, f);
    len += got;
    if (got == 0) break;
  }
  const int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    snprintf(err, errlen, "cannot read '%s'", path);
    return NULL;
  }
  buf[len] = '\0';
  *len_out = len;
  return buf;
}

int uj_parse_file(const char *path, uj **out, char *err, size_t errlen) {
  *out = NULL;
  size_t len = 0;
  char *buf = uj_read_file(path, UJ_MAX_BYTES, &len, err, errlen);
  if (!buf) return -1;
  int rc = uj_parse(buf, len, path, out, err, errlen);
  free(buf);
  return rc;
}

const uj *uj_get(const uj *obj, const char *key) {
  if (!obj || obj->kind != UJ_OBJ || !key) return NULL;
  for (int i = 0; i < obj->n; i++)
    if (!strcmp(obj->keys[i], key)) return &obj->items[i];
  return NULL;
}
const uj *uj_at(const uj *arr, int i) {
  if (!arr || (arr->kind != UJ_ARR && arr->kind != UJ_OBJ) || i < 0 || i >= arr->n) return NULL;
  return &arr->items[i];
}
int uj_len(const uj *arr) { return arr && (arr->kind == UJ_ARR || arr->kind == UJ_OBJ) ? arr->n : 0; }
const char *uj_str(const uj *v, const char *def) { return v && v->kind == UJ_STR ? v->str : def; }
double uj_num(const uj *v, double def) { return v && (v->kind == UJ_NUM || v->kind == UJ_BOOL) ? v->num : def; }
int uj_is_true(const uj *v) { return v && v->kind == UJ_BOOL && v->num != 0; }
const char *uj_gets(const uj *obj, const char *key, const char *def) { return uj_str(uj_get(obj, key), def); }
double uj_getn(const uj *obj, const char *key, double def) { return uj_num(uj_get(obj, key), def); }

/* ---- writing (umrun --suite --repeat rewrites a run's loops with their median) -------------- */
/* JSON text: escapes as the run files' (um_json_string: a byte of no UTF-8 sequence as U+FFFD, so the file parses) */
static void write_str(FILE *f, const char *s) { um_json_string(f, s); }

void uj_write(FILE *f, const uj *v) {
  if (!v) {
    fputs("null", f);
    return;
  }
  switch (v->kind) {
  case UJ_NULL: fputs("null", f); break;
  case UJ_BOOL: fputs(v->num != 0 ? "true" : "false", f); break;
  case UJ_NUM:
    if (isfinite(v->num)) fprintf(f, "%.17g", v->num);
    else fputs("null", f);
    break;
  case UJ_STR: write_str(f, v->str ? v->str : ""); break;
  case UJ_ARR:
  case UJ_OBJ:
    fputc(v->kind == UJ_ARR ? '[' : '{', f);
    for (int i = 0; i < v->n; i++) {
      if (i) fputs(", ", f);
      if (v->kind == UJ_OBJ) {
        write_str(f, v->keys[i]);
        fputs(": ", f);
      }
      uj_write(f, &v->items[i]);
    }
    fputc(v->kind == UJ_ARR ? ']' : '}', f);
    break;
  }
}

int uj_rename(uj *obj, const char *key, const char *to) {
  if (!obj || obj->kind != UJ_OBJ || !key || !to) return -1;
  for (int i = 0; i < obj->n; i++)
    if (!strcmp(obj->keys[i], key)) {
      char *k = strdup(to);
      if (!k) return -1;
      free(obj->keys[i]);
      obj->keys[i] = k;
      return 0;
    }
  return 1;
}

int uj_set_num(uj *obj, const char *key, double value) {
  if (!obj || obj->kind != UJ_OBJ || !key) return -1;
  for (int i = 0; i < obj->n; i++)
    if (!strcmp(obj->keys[i], key)) {
      free_inner(&obj->items[i]);
      obj->items[i].kind = isfinite(value) ? UJ_NUM : UJ_NULL;
      obj->items[i].num = isfinite(value) ? value : 0;
      return 0;
    }
  uj *items = realloc(obj->items, (size_t)(obj->n + 1) * sizeof *items);
  if (!items) return -1;
  obj->items = items;
  char **keys = realloc(obj->keys, (size_t)(obj->n + 1) * sizeof *keys);
  if (!keys) return -1;
  obj->keys = keys;
  char *k = strdup(key);
  if (!k) return -1;
  memset(&obj->items[obj->n], 0, sizeof obj->items[0]);
  obj->items[obj->n].kind = isfinite(value) ? UJ_NUM : UJ_NULL;
  obj->items[obj->n].num = isfinite(value) ? value : 0;
  obj->keys[obj->n++] = k;
  return 0;
}
