/* Counted arithmetic per element of a kernel, from the kernel's source text
 * (um/report.h: um_kernel_ops).
 *
 * What is counted: binary + - * / and their compound assignments, and each
 * call of the math library, as each is written, outside array subscripts
 * (index arithmetic is address work, not arithmetic on the data). What is
 * followed: calls of functions and function-like macros defined in the same
 * source (their counts added at each call), and `for` loops whose trip count
 * is a constant (`for (int i = A; i < B; i++)`, A and B integer literals or
 * constants #defined in the source), whose bodies count that many times. Both
 * branches of an if or a ?: count (an upper bound). A loop whose trip count is
 * known only at run time, a while or do loop, a call of a function whose source
 * is not there, or a recursion make the count unknown, with the reason: a count
 * that cannot be computed is never reported as a number. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "um/report.h"

#define KO_MAX_FUNCS 512

typedef struct {
  const char *name; /* into the source */
  size_t nlen;
  const char *body, *end; /* a function: its '{' and one past its '}'; a macro: its replacement text */
  int macro;              /* 1: a function-like macro, 2: an object-like macro (a constant) */
  int state;              /* 0: not counted yet, 1: being counted, 2: counted */
  long ops;               /* when counted; -1: unknown */
} ko_func;

typedef struct {
  const char *src;
  ko_func f[KO_MAX_FUNCS];
  int n;
  char *why;
  size_t whylen;
} ko_src;

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int word_is(const char *w, size_t n, const char *s) { return strlen(s) == n && !strncmp(w, s, n); }

static int in_list(const char *w, size_t n, const char *const *list) {
  for (int i = 0; list[i]; i++)
    if (word_is(w, n, list[i])) return 1;
  return 0;
}

/* Words after which an operator is unary (a cast or a declaration), and words
 * that look like calls but are not. */
static const char *const type_words[] = {"double", "float", "int", "char", "void", "const", "unsigned", "long", "short",
                                         "return", "if", "else", "for", "while", "do", "sizeof", "static", "bool",
                                         "size_t", "case", "switch", "inline", "UM_KERNEL", "UM_CONST", NULL};
static const char *const math_calls[] = {"sqrt", "pow", "exp", "log", "log10", "fabs", "fmin", "fmax", "sin", "cos",
                                         "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "cbrt",
                                         "sqrtf", "fabsf", "fminf", "fmaxf", "expf", "logf", "powf", "sinf", "cosf",
                                         "copysign", "hypot", "floor", "ceil", "fmod", "round", "trunc", "erf",
                                         "erfc", "exp2", "log2", "rsqrt",
                                         /* um/kernel.h's: the library's, or their portable twins (one call) */
                                         "um_cbrt", "um_exp", "um_expf", "um_soft_cbrt", "um_soft_exp", NULL};

/* Past blanks and comments. */
static const char *skip_blank(const char *c, const char *end) {
  while (c < end) {
    if (isspace((unsigned char)*c)) c++;
    else if (c + 1 < end && c[0] == '/' && c[1] == '/') {
      while (c < end && *c != '\n') c++;
    } else if (c + 1 < end && c[0] == '/' && c[1] == '*') {
      const char *e = strstr(c + 2, "*/");
      c = e && e + 2 <= end ? e + 2 : end;
    } else
      break;
  }
  return c;
}

/* One past the end of a preprocessor line at c (its '#'), continuations included. */
static const char *pp_line_end(const char *c, const char *end) {
  while (c < end && *c != '\n') c += (c[0] == '\\' && c + 1 < end && c[1] == '\n') ? 2 : 1;
  return c;
}

/* The bracket matching the one at c ('(' '[' '{'), skipping comments; NULL if none before end. */
static const char *matching(const char *c, const char *end) {
  const char open = *c, close = open == '(' ? ')' : open == '[' ? ']' : '}';
  int depth = 0;
  for (; c < end; c++) {
    const char *s = skip_blank(c, end);
    if (s != c) {
      c = s - 1;
      continue;
    }
    if (*c == open) depth++;
    else if (*c == close && --depth == 0) return c;
  }
  return NULL;
}

static ko_func *find(ko_src *S, const char *w, size_t n, int macro_kind) {
  for (int i = 0; i < S->n; i++)
    if (S->f[i].nlen == n && !strncmp(S->f[i].name, w, n) && (macro_kind < 0 || S->f[i].macro == macro_kind))
      return &S->f[i];
  return NULL;
}

static void add(ko_src *S, const char *name, size_t n, const char *body, const char *end, int macro) {
  if (S->n >= KO_MAX_FUNCS || find(S, name, n, macro)) return; /* the first definition wins */
  ko_func *f = &S->f[S->n++];
  memset(f, 0, sizeof *f);
  f->name = name;
  f->nlen = n;
  f->body = body;
  f->end = end;
  f->macro = macro;
}

/* The functions (a ')' then a '{' after the name's '(') and macros of the source. */
static void index_source(ko_src *S) {
  const char *c = S->src, *end = S->src + strlen(S->src);
  int depth = 0, line_start = 1;
  while (c < end) {
    const char *s = skip_blank(c, end);
    if (s != c) {
      line_start |= memchr(c, '\n', (size_t)(s - c)) != NULL;
      c = s;
      continue;
    }
    if (*c == '#' && line_start) {
      const char *e = pp_line_end(c, end), *w = skip_blank(c + 1, e);
      if (!strncmp(w, "define", 6) && !is_ident(w[6])) {
        const char *name = skip_blank(w + 6, e), *q = name;
        while (q < e && is_ident(*q)) q++;
        if (q > name && q < e && *q == '(') { /* function-like: its text after the parameter list */
          const char *p = matching(q, e);
          if (p) add(S, name, (size_t)(q - name), p + 1, e, 1);
        } else if (q > name) {
          add(S, name, (size_t)(q - name), q, e, 2);
        }
      }
      c = e;
      continue;
    }
    line_start = 0;
    if (*c == '"' || *c == '\'') { /* literals: skipped whole */
      const char q = *c++;
      while (c < end && *c != q) c += *c == '\\' ? 2 : 1;
      c++;
      continue;
    }
    if (*c == '{') depth++;
    if (*c == '}') depth--;
    if (depth == 0 && (isalpha((unsigned char)*c) || *c == '_') && (c == S->src || !is_ident(c[-1]))) {
      const char *w = c;
      while (c < end && is_ident(*c)) c++;
      const char *p = skip_blank(c, end);
      if (p < end && *p == '(') {
        const char *close = matching(p, end);
        const char *b = close ? skip_blank(close + 1, end) : NULL;
        if (b && b < end && *b == '{') {
          const char *e = matching(b, end);
          if (e) {
            add(S, w, (size_t)(c - w), b, e + 1, 0);
            c = b; /* into the body: its braces are counted */
          }
        }
      }
      continue;
    }
    c++;
  }
}

static long unknown(ko_src *S, const char *fmt, const char *a, int alen) {
  if (S->why && S->whylen && !S->why[0]) snprintf(S->why, S->whylen, fmt, alen, a);
  return -1;
}

static long count_range(ko_src *S, const char *c, const char *end, int depth);

/* An integer constant: a literal, or an object-like macro of the source whose text is one. */
static int constant(ko_src *S, const char *w, size_t n, long *v) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return 0;
  memcpy(buf, w, n);
  buf[n] = '\0';
  if (isdigit((unsigned char)buf[0])) {
    char *e = NULL;
    *v = strtol(buf, &e, 0);
    while (e && (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')) e++;
    return e && !*e;
  }
  ko_func *m = find(S, w, n, 2);
  if (!m) return 0;
  const char *t = skip_blank(m->body, m->end), *te = t;
  while (te < m->end && is_ident(*te)) te++;
  return te > t && skip_blank(te, m->end) == m->end && constant(S, t, (size_t)(te - t), v);
}

/* A token of [c, e): an identifier or number (*n its length), or one character. */
static const char *token(const char *c, const char *e, size_t *n) {
  c = skip_blank(c, e);
  const char *t = c;
  if (c < e && is_ident(*c))
    while (t < e && is_ident(*t)) t++;
  else if (c < e)
    t = c + 1;
  *n = (size_t)(t - c);
  return c;
}

/* Trips of `for (init; cond; step)` in [h, he) (inside the parentheses), or -1. */
static long trips(ko_src *S, const char *h, const char *he) {
  const char *s1 = memchr(h, ';', (size_t)(he - h));
  const char *s2 = s1 ? memchr(s1 + 1, ';', (size_t)(he - s1 - 1)) : NULL;
  if (!s2) return -1;
  size_t n;
  /* init: [type] v = A */
  const char *t = token(h, s1, &n), *var = NULL;
  size_t vn = 0;
  while (t < s1 && n && in_list(t, n, type_words)) t = token(t + n, s1, &n);
  if (!(t < s1 && is_ident(*t))) return -1;
  var = t;
  vn = n;
  t = token(t + n, s1, &n);
  if (!(n == 1 && *t == '=')) return -1;
  t = token(t + 1, s1, &n);
  long a, b;
  if (!constant(S, t, n, &a) || skip_blank(t + n, s1) != s1) return -1;
  /* cond: v < B | v <= B */
  t = token(s1 + 1, s2, &n);
  if (!(n == vn && !strncmp(t, var, vn))) return -1;
  t = skip_blank(t + n, s2);
  int le = 0;
  if (t < s2 && *t == '<') {
    t++;
    if (t < s2 && *t == '=') le = 1, t++;
  } else
    return -1;
  t = token(t, s2, &n);
  if (!constant(S, t, n, &b) || skip_blank(t + n, s2) != s2) return -1;
  /* step: v++ | ++v | v += K */
  long step = 0;
  t = token(s2 + 1, he, &n);
  if (n == 1 && *t == '+' && t + 1 < he && t[1] == '+') {
    t = token(t + 2, he, &n);
    if (n == vn && !strncmp(t, var, vn) && skip_blank(t + n, he) == he) step = 1;
  } else if (n == vn && !strncmp(t, var, vn)) {
    const char *o = skip_blank(t + n, he);
    if (o + 1 < he && o[0] == '+' && o[1] == '+' && skip_blank(o + 2, he) == he) step = 1;
    else if (o + 1 < he && o[0] == '+' && o[1] == '=') {
      t = token(o + 2, he, &n);
      if (!constant(S, t, n, &step) || skip_blank(t + n, he) != he) step = 0;
    }
  }
  if (step <= 0) return -1;
  const long span = b - a + (le ? 1 : 0);
  return span > 0 ? (span + step - 1) / step : 0;
}

/* One past the end of the statement starting at c. */
static const char *statement_end(const char *c, const char *end) {
  size_t n;
  c = token(c, end, &n);
  if (c >= end) return end;
  if (*c == '{') {
    const char *e = matching(c, end);
    return e ? e + 1 : end;
  }
  if ((n == 3 && !strncmp(c, "for", 3)) || (n == 5 && !strncmp(c, "while", 5)) || (n == 2 && !strncmp(c, "if", 2))) {
    const char *p = skip_blank(c + n, end);
    const char *close = p < end && *p == '(' ? matching(p, end) : NULL;
    if (!close) return end;
    const char *e = statement_end(close + 1, end);
    if (n == 2) {
      const char *t = token(e, end, &n);
      if (n == 4 && !strncmp(t, "else", 4)) e = statement_end(t + 4, end);
    }
    return e;
  }
  for (c = skip_blank(c, end); c < end; c = skip_blank(c + 1, end)) { /* a ';' outside brackets */
    if (*c == '(' || *c == '[' || *c == '{') {
      c = matching(c, end);
      if (!c) return end;
    } else if (*c == ';')
      return c + 1;
  }
  return end;
}

static long add_ops(long a, long b) { return a > LONG_MAX - b ? LONG_MAX : a + b; }

static long count_func(ko_src *S, ko_func *f, int depth) {
  if (f->state == 2) return f->ops;
  if (f->state == 1 || depth > 64) return unknown(S, "'%.*s' calls itself (recursion): its count is unbounded", f->name,
                                                  (int)f->nlen);
  f->state = 1;
  const char *b = f->macro ? f->body : f->body + 1, *e = f->macro ? f->end : f->end - 1;
  f->ops = count_range(S, b, e, depth + 1);
  f->state = 2;
  return f->ops;
}

static long count_range(ko_src *S, const char *c, const char *end, int depth) {
  long ops = 0;
  int prev = 0;    /* the previous token ends an operand: identifier, number, ')' or ']' */
  int bracket = 0; /* inside [ ]: index arithmetic, not counted */
  while (c < end) {
    const char *s = skip_blank(c, end);
    if (s != c) {
      c = s;
      continue;
    }
    if (*c == '#') { /* a #define or #undef inside a body: indexed with the source, not code here */
      c = pp_line_end(c, end);
      continue;
    }
    if (*c == '"' || *c == '\'') {
      const char q = *c++;
      while (c < end && *c != q) c += *c == '\\' ? 2 : 1;
      c++;
      prev = 1;
      continue;
    }
    if (isalpha((unsigned char)*c) || *c == '_') {
      const char *w = c;
      while (c < end && is_ident(*c)) c++;
      const size_t n = (size_t)(c - w);
      const char *p = skip_blank(c, end);
      const int call = p < end && *p == '(';
      if (word_is(w, n, "for") && call) {
        const char *close = matching(p, end);
        if (!close) return unknown(S, "a for loop without its ')' in '%.*s'", w, 0);
        const char *be = statement_end(close + 1, end);
        const long t = trips(S, p + 1, close);
        if (t < 0) return unknown(S, "a loop 'for (%.*s)' runs a number of times known only at run time", p + 1,
                                  (int)(close - p - 1) > 80 ? 80 : (int)(close - p - 1));
        const long body = count_range(S, close + 1, be, depth);
        if (body < 0) return -1;
        ops = add_ops(ops, t > 0 && body > LONG_MAX / t ? LONG_MAX : t * body);
        c = be;
        prev = 0;
        continue;
      }
      if ((word_is(w, n, "while") || word_is(w, n, "do") || word_is(w, n, "goto")) && !bracket)
        return unknown(S, "a '%.*s' loop runs a number of times known only at run time", w, (int)n);
      if (call && !in_list(w, n, type_words)) {
        ko_func *f;
        if (in_list(w, n, math_calls)) {
          ops = add_ops(ops, 1);
        } else if ((f = find(S, w, n, 0)) != NULL || (f = find(S, w, n, 1)) != NULL) {
          const long k = count_func(S, f, depth);
          if (k < 0) return -1;
          ops = add_ops(ops, k);
        } else {
          return unknown(S, "it calls '%.*s', whose source is not in the kernel's source", w, (int)n);
        }
        prev = 0;
        continue;
      }
      ko_func *m = find(S, w, n, 2); /* an object-like macro: its text, e.g. (1.0 / 3.0) */
      if (m && !bracket) {
        const long k = count_func(S, m, depth);
        if (k < 0) return -1;
        ops = add_ops(ops, k);
      }
      prev = !in_list(w, n, type_words);
      continue;
    }
    if (isdigit((unsigned char)*c) || (*c == '.' && c + 1 < end && isdigit((unsigned char)c[1]))) {
      while (c + 1 < end && (is_ident(c[1]) || c[1] == '.' || ((c[1] == '+' || c[1] == '-') && (*c == 'e' || *c == 'E'))))
        c++;
      c++;
      prev = 1;
      continue;
    }
    if ((*c == '+' || *c == '-') && c + 1 < end && c[1] == *c) { /* ++ -- */
      c += 2;
      continue;
    }
    if (*c == '-' && c + 1 < end && c[1] == '>') {
      c += 2;
      prev = 0;
      continue;
    }
    if (*c == '+' || *c == '-' || *c == '*' || *c == '/') {
      if (prev && !bracket) ops = add_ops(ops, 1);
      c += c + 1 < end && c[1] == '=' ? 2 : 1;
      prev = 0;
      continue;
    }
    if (*c == '[') bracket++;
    if (*c == ']' && bracket > 0) bracket--;
    prev = *c == ')' || *c == ']';
    c++;
  }
  return ops;
}

int um_kernel_ops(const char *source, const char *name, long *ops, char *why, size_t whylen) {
  if (why && whylen) why[0] = '\0';
  if (ops) *ops = -1;
  if (!source || !name || !*name) {
    if (why && whylen) snprintf(why, whylen, "the kernel's source is not known");
    return -1;
  }
  ko_src *S = calloc(1, sizeof *S); /* ~40 KB: not on the stack */
  if (!S) {
    if (why && whylen) snprintf(why, whylen, "out of memory");
    return -1;
  }
  S->src = source;
  S->why = why;
  S->whylen = whylen;
  index_source(S);
  ko_func *f = find(S, name, strlen(name), 0);
  if (!f) {
    if (why && whylen) snprintf(why, whylen, "no definition of '%s' in the kernel's source", name);
    free(S);
    return -1;
  }
  const long n = count_func(S, f, 0);
  free(S);
  if (n < 0) return -1;
  if (ops) *ops = n;
  return 0;
}

int um_kernel_op_estimate(const char *source, const char *name) {
  long n = -1;
  if (um_kernel_ops(source, name, &n, NULL, 0)) return -1;
  return n > INT_MAX ? INT_MAX : (int)n;
}
