/* Counted arithmetic per element of a kernel, from the kernel's source text
 * (um/report.h: um_kernel_ops).
 *
 * What is counted: binary + - * / and their compound assignments, and each
 * call of the math library, as each is written, outside array subscripts
 * (index arithmetic is address work, not arithmetic on the data). What is
 * followed: calls of functions and function-like macros defined in the same
 * source (their counts added at each call), and `for` loops whose trip count
 * is a constant (`for (int i = A; i < B; i++)`, A and B integer literals or
 * constants #defined in the source), whose bodies count that many times. Each
 * path through the branches (if / else, ?:) is followed: the count is the
 * fewest and the most operations of a path (equal when there are no branches
 * with different work); a return, break or continue ends a path (the fewest is
 * then a lower bound: what follows a break still runs). A loop whose trip count is
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
  int known;              /* when counted: 0, the count is unknown */
  struct ko_n {
    long lo, hi, out; /* fewest ops on a path to the end (KO_NONE: none gets there), most on any path, fewest on a
                         path that leaves early (return, break, continue; KO_NONE: none) */
  } ops;
} ko_func;
typedef struct ko_n ko_n;
#define KO_NONE LONG_MAX

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

/* um/kernel.h's accessors of a vector argument and its phase boundary (no arithmetic: an accessor's indices are
 * addresses, not counted), and its increments (one addition, and what the value added costs). */
static const char *const access_calls[] = {"UM_VEC_D", "UM_VEC_F", "UM_VEC_I", "um_phase", NULL};
static const char *const inc_calls[] = {"um_vec_inc_d", "um_vec_inc_f", "um_vec_inc_i", NULL};

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

static int unknown(ko_src *S, const char *fmt, const char *a, int alen) {
  if (S->why && S->whylen && !S->why[0]) snprintf(S->why, S->whylen, fmt, alen, a);
  return -1;
}

static int count_range(ko_src *S, const char *c, const char *end, int depth, ko_n *r);

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

/* ---- counts per path: a sum saturates; KO_NONE (no path) absorbs ---------------------------- */
static long add_ops(long a, long b) {
  if (a == KO_NONE || b == KO_NONE) return KO_NONE;
  return a > KO_NONE - 1 - b ? KO_NONE - 1 : a + b;
}
static long mul_ops(long t, long a) {
  if (a == KO_NONE) return KO_NONE;
  return t > 0 && a > (KO_NONE - 1) / t ? KO_NONE - 1 : t * a;
}
static long min_ops(long a, long b) { return a < b ? a : b; }
static long max_ops(long a, long b) { return a > b ? a : b; }

/* x after what r counted: one path through both */
static void ko_then(ko_n *r, ko_n x) {
  r->out = min_ops(r->out, add_ops(r->lo, x.out));
  r->lo = add_ops(r->lo, x.lo);
  r->hi = add_ops(r->hi, x.hi);
}
static void ko_plus(ko_n *r, long k) { ko_then(r, (ko_n){k, k, KO_NONE}); }
/* one of two branches */
static ko_n ko_either(ko_n a, ko_n b) { return (ko_n){min_ops(a.lo, b.lo), max_ops(a.hi, b.hi), min_ops(a.out, b.out)}; }
/* the path ends here (return, break, continue) */
static void ko_leave(ko_n *r) {
  r->out = min_ops(r->out, r->lo);
  r->lo = KO_NONE;
}

static int count_func(ko_src *S, ko_func *f, int depth, ko_n *r) {
  if (f->state == 2) {
    *r = f->ops;
    return f->known ? 0 : -1;
  }
  if (f->state == 1 || depth > 64)
    return unknown(S, "'%.*s' calls itself (recursion): its count is unbounded", f->name, (int)f->nlen);
  f->state = 1;
  const char *b = f->macro ? f->body : f->body + 1, *e = f->macro ? f->end : f->end - 1;
  ko_n body;
  f->known = count_range(S, b, e, depth + 1, &body) == 0;
  /* at the caller, a return inside ends the call, not the caller's path */
  f->ops = (ko_n){min_ops(body.lo, body.out), body.hi, KO_NONE};
  f->state = 2;
  *r = f->ops;
  return f->known ? 0 : -1;
}

/* for (...) at w (its '(' at p): its trips times its body */
static int count_for(ko_src *S, const char *w, const char *p, const char *end, int depth, ko_n *r, const char **next) {
  const char *close = matching(p, end);
  if (!close) return unknown(S, "a for loop without its ')' in '%.*s'", w, 0);
  const char *be = statement_end(close + 1, end);
  const long t = trips(S, p + 1, close);
  if (t < 0)
    return unknown(S, "a loop 'for (%.*s)' runs a number of times known only at run time", p + 1,
                   (int)(close - p - 1) > 80 ? 80 : (int)(close - p - 1));
  ko_n body;
  if (count_range(S, close + 1, be, depth, &body)) return -1;
  /* a path that leaves the body leaves in the first trip at the earliest */
  ko_then(r, t > 0 ? (ko_n){mul_ops(t, body.lo), mul_ops(t, body.hi), body.out} : (ko_n){0, 0, KO_NONE});
  *next = be;
  return 0;
}

/* if (cond) A [else B] at w (its '(' at p): the condition, then one of the branches */
static int count_if(ko_src *S, const char *p, const char *end, int depth, ko_n *r, const char **next) {
  const char *close = matching(p, end);
  if (!close) return unknown(S, "an if without its ')'%.*s", "", 0);
  ko_n cond, a, b = {0, 0, KO_NONE};
  if (count_range(S, p + 1, close, depth, &cond)) return -1;
  const char *ae = statement_end(close + 1, end), *e = ae;
  if (count_range(S, close + 1, ae, depth, &a)) return -1;
  size_t n;
  const char *t = token(ae, end, &n);
  if (n == 4 && !strncmp(t, "else", 4)) {
    e = statement_end(t + 4, end);
    if (count_range(S, t + 4, e, depth, &b)) return -1;
  }
  ko_then(r, cond);
  ko_then(r, ko_either(a, b));
  *next = e;
  return 0;
}

/* One past the end of the expression from c at its bracket depth: a ',' ';' or a closing bracket. */
static const char *expression_end(const char *c, const char *end, int stop_at_colon) {
  int nested = 0; /* ?: inside */
  for (c = skip_blank(c, end); c < end; c = skip_blank(c + 1, end)) {
    if (*c == '(' || *c == '[' || *c == '{') {
      const char *m = matching(c, end);
      if (!m) return end;
      c = m;
    } else if (*c == ')' || *c == ']' || *c == '}' || *c == ';' || (*c == ',' && !stop_at_colon))
      return c;
    else if (*c == '?')
      nested++;
    else if (*c == ':' && stop_at_colon && nested-- == 0)
      return c;
  }
  return end;
}

/* cond ? X : Y at q (its '?'; the condition counted already): one of the two */
static int count_choice(ko_src *S, const char *q, const char *end, int depth, ko_n *r, const char **next) {
  const char *colon = expression_end(q + 1, end, 1);
  if (colon >= end || *colon != ':') return unknown(S, "a '?' without its ':'%.*s", "", 0);
  const char *e = expression_end(colon + 1, end, 0);
  ko_n x, y;
  if (count_range(S, q + 1, colon, depth, &x) || count_range(S, colon + 1, e, depth, &y)) return -1;
  ko_then(r, ko_either(x, y));
  *next = e;
  return 0;
}

/* a call of w (its '(' at p): a math function (1), a function or function-like macro of the source (its count) */
static int count_call(ko_src *S, const char *w, size_t n, int depth, ko_n *r) {
  ko_func *f;
  if (in_list(w, n, math_calls)) {
    ko_plus(r, 1);
    return 0;
  }
  if ((f = find(S, w, n, 0)) == NULL && (f = find(S, w, n, 1)) == NULL)
    return unknown(S, "it calls '%.*s', whose source is not in the kernel's source", w, (int)n);
  ko_n k;
  if (count_func(S, f, depth, &k)) return -1;
  ko_then(r, k);
  return 0;
}

/* the word at w (n long, c one past it): a statement (for, if, return, ...), a call or an operand */
static int count_word(ko_src *S, const char *w, size_t n, const char *end, int depth, int bracket, ko_n *r,
                      const char **next, int *prev) {
  const char *p = skip_blank(w + n, end);
  const int call = p < end && *p == '(';
  *next = w + n;
  *prev = 0;
  if (word_is(w, n, "for") && call) return count_for(S, w, p, end, depth, r, next);
  if (word_is(w, n, "if") && call) return count_if(S, p, end, depth, r, next);
  if ((word_is(w, n, "while") || word_is(w, n, "do") || word_is(w, n, "goto")) && !bracket)
    return unknown(S, "a '%.*s' loop runs a number of times known only at run time", w, (int)n);
  if (word_is(w, n, "return") || word_is(w, n, "break") || word_is(w, n, "continue")) {
    const char *e = statement_end(w + n, end);
    ko_n x;
    if (count_range(S, w + n, e, depth, &x)) return -1;
    ko_then(r, x);
    ko_leave(r);
    *next = e;
    return 0;
  }
  if (call && (in_list(w, n, access_calls) || in_list(w, n, inc_calls))) { /* past the call, its indices uncounted */
    const char *close = matching(p, end), *a = p + 1;
    if (!close) return unknown(S, "'%.*s' without its closing ')'", w, (int)n);
    if (in_list(w, n, inc_calls)) { /* (v, j, c, x): one addition, and what x costs */
      for (int k = 0; k < 3; k++) {
        a = expression_end(a, close, 0);
        if (a >= close || *a != ',') return unknown(S, "'%.*s' without its four arguments", w, (int)n);
        a++;
      }
      ko_n x;
      if (count_range(S, a, close, depth, &x)) return -1;
      ko_plus(r, 1);
      ko_then(r, x);
    }
    *next = close + 1;
    *prev = 1;
    return 0;
  }
  if (call && !in_list(w, n, type_words)) return count_call(S, w, n, depth, r);
  ko_func *m = find(S, w, n, 2); /* an object-like macro: its text, e.g. (1.0 / 3.0) */
  if (m && !bracket) {
    ko_n k;
    if (count_func(S, m, depth, &k)) return -1;
    ko_then(r, k);
  }
  *prev = !in_list(w, n, type_words);
  return 0;
}

static int count_range(ko_src *S, const char *c, const char *end, int depth, ko_n *r) {
  *r = (ko_n){0, 0, KO_NONE};
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
      if (count_word(S, w, (size_t)(c - w), end, depth, bracket, r, &c, &prev)) return -1;
      continue;
    }
    if (isdigit((unsigned char)*c) || (*c == '.' && c + 1 < end && isdigit((unsigned char)c[1]))) {
      while (c + 1 < end && (is_ident(c[1]) || c[1] == '.' || ((c[1] == '+' || c[1] == '-') && (*c == 'e' || *c == 'E'))))
        c++;
      c++;
      prev = 1;
      continue;
    }
    if (*c == '?' && !bracket) { /* one branch or the other */
      if (count_choice(S, c, end, depth, r, &c)) return -1;
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
      if (prev && !bracket) ko_plus(r, 1);
      c += c + 1 < end && c[1] == '=' ? 2 : 1;
      prev = 0;
      continue;
    }
    if (*c == '[') bracket++;
    if (*c == ']' && bracket > 0) bracket--;
    prev = *c == ')' || *c == ']';
    c++;
  }
  return 0;
}

int um_kernel_ops_paths(const char *source, const char *name, long *fewest, long *most, char *why, size_t whylen) {
  if (why && whylen) why[0] = '\0';
  if (fewest) *fewest = -1;
  if (most) *most = -1;
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
  ko_n n;
  const int bad = count_func(S, f, 0, &n);
  free(S);
  if (bad) return -1;
  if (fewest) *fewest = n.lo == KO_NONE ? 0 : n.lo;
  if (most) *most = n.hi;
  return 0;
}

int um_kernel_ops(const char *source, const char *name, long *ops, char *why, size_t whylen) {
  return um_kernel_ops_paths(source, name, NULL, ops, why, whylen);
}

int um_kernel_op_estimate(const char *source, const char *name) {
  long n = -1;
  if (um_kernel_ops(source, name, &n, NULL, 0)) return -1;
  return n > INT_MAX ? INT_MAX : (int)n;
}
