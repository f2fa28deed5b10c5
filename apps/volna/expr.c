/* Volna formulas: recursive-descent parser -> tree -> stack program (host)
 * and C text (generated device kernels). See expr.h. */
#include "expr.h"
#include "um/kernel.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define VL_MAX_NODES 4096 /* a formula longer than this is not a formula */
#define VL_MAX_DEPTH 200  /* nesting */
#define VL_MAX_STACK 256

typedef enum {
  N_NUM, N_X, N_Y, N_T, N_G,
  N_NEG, N_NOT, N_CALL1,                                  /* unary */
  N_ADD, N_SUB, N_MUL, N_DIV, N_LT, N_LE, N_GT, N_GE, N_EQ, N_NE, N_AND, N_OR, N_CALL2, /* binary */
  N_SEL                                                   /* c ? a : b */
} node_kind;

enum { F_EXP, F_LOG, F_LOG10, F_SQRT, F_SIN, F_COS, F_TAN, F_ASIN, F_ACOS, F_ATAN, F_SINH, F_COSH, F_TANH, F_FABS,
       F_ABS, F_FLOOR, F_CEIL, F_POW, F_ATAN2, F_FMIN, F_FMAX, F_FMOD, F_COUNT };
static const char *const fn_names[F_COUNT] = {"exp",  "log",  "log10", "sqrt", "sin",   "cos",  "tan",  "asin",
                                              "acos", "atan", "sinh",  "cosh", "tanh",  "fabs", "abs",  "floor",
                                              "ceil", "pow",  "atan2", "fmin", "fmax",  "fmod"};
static const char *const fn_c[F_COUNT] = {"um_expf", "logf",  "log10f", "sqrtf", "sinf",   "cosf",  "tanf",  "asinf",
                                          "acosf", "atanf", "sinhf",  "coshf", "tanhf",  "fabsf", "fabsf", "floorf",
                                          "ceilf", "powf",  "atan2f", "fminf", "fmaxf",  "fmodf"};
#define FN_FIRST_BINARY F_POW

typedef struct {
  int kind, fn, a, b, c; /* children (node indices) */
  float v;
} node;

struct vl_expr {
  node *nodes;
  int nnodes, root;
  int uses_t;
  float g;
  /* the program: postfix code */
  int *code; /* opcode = node kind, fn in the high bits; numbers index `nums` */
  float *nums;
  int ncode, nnums, max_stack;
};

/* ---- parser ------------------------------------------------------------------ */

typedef struct {
  const char *s, *p, *file;
  int line0, col0; /* where the formula starts in its file */
  int depth;
  vl_expr *e;
  char *err;
  size_t errlen;
  int failed;
} parser;

static void where(const parser *P, const char *at, int *line, int *col) {
  *line = P->line0;
  const char *bol = P->s;
  for (const char *q = P->s; q < at; q++)
    if (*q == '\n') (*line)++, bol = q + 1;
  *col = (int)(at - bol) + (bol == P->s ? P->col0 : 1);
}

static int fail(parser *P, const char *at, const char *fmt, ...) {
  if (P->failed) return -1;
  P->failed = 1;
  int line, col;
  where(P, at, &line, &col);
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  /* the token found, printed safely */
  char tok[24];
  int n = 0;
  for (const char *q = at; *q && *q != '\n' && n < 16; q++) tok[n++] = isprint((unsigned char)*q) ? *q : '?';
  tok[n] = 0;
  snprintf(P->err, P->errlen, "%s:%d:%d: in the formula: %s (found %s%s%s); a formula is a C expression of x, y, t "
           "and g, e.g. { return -1 + .1*exp(-(x*x+y*y)); }",
           P->file ? P->file : "formula", line, col, what, *at ? "'" : "the end of the formula", tok, *at ? "'" : "");
  return -1;
}

static void skip(parser *P) {
  for (;;) {
    while (isspace((unsigned char)*P->p)) P->p++;
    if (P->p[0] == '/' && P->p[1] == '*') {
      const char *q = strstr(P->p + 2, "*/");
      P->p = q ? q + 2 : P->p + strlen(P->p);
    } else if (P->p[0] == '/' && P->p[1] == '/') {
      while (*P->p && *P->p != '\n') P->p++;
    } else return;
  }
}

static int accept(parser *P, const char *tok) {
  skip(P);
  size_t n = strlen(tok);
  if (strncmp(P->p, tok, n) != 0) return 0;
  /* '<' must not take the first half of '<=' etc.; '|'/'&' alone are not operators */
  if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '=') && P->p[1] == '=') return 0;
  P->p += n;
  return 1;
}

static int add_node(parser *P, int kind, int a, int b, int c, float v) {
  vl_expr *e = P->e;
  if (e->nnodes >= VL_MAX_NODES) return fail(P, P->p, "the formula is too long (more than %d terms)", VL_MAX_NODES);
  node *n = &e->nodes[e->nnodes];
  n->kind = kind, n->a = a, n->b = b, n->c = c, n->v = v, n->fn = 0;
  return e->nnodes++;
}

static int parse_expr(parser *P);

static int parse_primary(parser *P) {
  skip(P);
  const char *at = P->p;
  if (isdigit((unsigned char)*at) || (*at == '.' && isdigit((unsigned char)at[1]))) {
    char *end;
    float v = strtof(at, &end);
    if (end == at) return fail(P, at, "a number expected");
    if (*end == 'f' || *end == 'F') end++;
    if (isalpha((unsigned char)*end) || *end == '_' || *end == '.') return fail(P, at, "a malformed number");
    if (!isfinite(v)) return fail(P, at, "a number too large for a float (upstream computes in single precision)");
    P->p = end;
    return add_node(P, N_NUM, -1, -1, -1, v);
  }
  if (isalpha((unsigned char)*at) || *at == '_') {
    const char *q = at;
    while (isalnum((unsigned char)*q) || *q == '_') q++;
    size_t n = (size_t)(q - at);
    char id[32];
    if (n >= sizeof id) return fail(P, at, "unknown name");
    memcpy(id, at, n);
    id[n] = 0;
    P->p = q;
    if (!strcmp(id, "x")) return add_node(P, N_X, -1, -1, -1, 0);
    if (!strcmp(id, "y")) return add_node(P, N_Y, -1, -1, -1, 0);
    if (!strcmp(id, "t")) {
      P->e->uses_t = 1;
      return add_node(P, N_T, -1, -1, -1, 0);
    }
    if (!strcmp(id, "g")) return add_node(P, N_G, -1, -1, -1, 0);
    if (!strcmp(id, "M_PI") || !strcmp(id, "pi")) return add_node(P, N_NUM, -1, -1, -1, (float)M_PI);
    for (int f = 0; f < F_COUNT; f++) {
      if (strcmp(id, fn_names[f]) != 0) continue;
      if (!accept(P, "(")) return fail(P, P->p, "'(' expected after the function %s", id);
      int a = parse_expr(P), b = -1;
      if (a < 0) return -1;
      if (f >= FN_FIRST_BINARY) {
        if (!accept(P, ",")) return fail(P, P->p, "',' expected: %s takes two arguments", id);
        b = parse_expr(P);
        if (b < 0) return -1;
      }
      if (!accept(P, ")")) return fail(P, P->p, "')' expected to close %s(", id);
      int k = add_node(P, b < 0 ? N_CALL1 : N_CALL2, a, b, -1, 0);
      if (k >= 0) P->e->nodes[k].fn = f;
      return k;
    }
    return fail(P, at, "unknown name '%s': the variables are x, y, t and g, the functions exp, log, log10, sqrt, "
                "sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, fabs, abs, floor, ceil, pow, atan2, fmin, "
                "fmax, fmod",
                id);
  }
  if (accept(P, "(")) {
    int a = parse_expr(P);
    if (a < 0) return -1;
    if (!accept(P, ")")) return fail(P, P->p, "')' expected");
    return a;
  }
  return fail(P, at, "a number, a variable, a function or '(' expected");
}

static int parse_unary(parser *P) {
  if (++P->depth > VL_MAX_DEPTH) return fail(P, P->p, "the formula nests too deeply");
  int r;
  if (accept(P, "-")) {
    int a = parse_unary(P);
    r = a < 0 ? -1 : add_node(P, N_NEG, a, -1, -1, 0);
  } else if (accept(P, "+")) {
    r = parse_unary(P);
  } else if (accept(P, "!")) {
    int a = parse_unary(P);
    r = a < 0 ? -1 : add_node(P, N_NOT, a, -1, -1, 0);
  } else {
    r = parse_primary(P);
  }
  P->depth--;
  return r;
}

typedef struct {
  const char *tok;
  int kind;
} binop;

static int parse_level(parser *P, int level);

static const binop levels[][4] = {
    {{"||", N_OR}, {NULL, 0}},
    {{"&&", N_AND}, {NULL, 0}},
    {{"==", N_EQ}, {"!=", N_NE}, {NULL, 0}},
    {{"<=", N_LE}, {">=", N_GE}, {"<", N_LT}, {">", N_GT}},
    {{"+", N_ADD}, {"-", N_SUB}, {NULL, 0}},
    {{"*", N_MUL}, {"/", N_DIV}, {NULL, 0}},
};
#define NLEVELS 6

static int parse_level(parser *P, int level) {
  if (level == NLEVELS) return parse_unary(P);
  int a = parse_level(P, level + 1);
  while (a >= 0) {
    int kind = -1;
    for (int i = 0; i < 4 && levels[level][i].tok; i++)
      if (accept(P, levels[level][i].tok)) {
        kind = levels[level][i].kind;
        break;
      }
    if (kind < 0) break;
    int b = parse_level(P, level + 1);
    if (b < 0) return -1;
    a = add_node(P, kind, a, b, -1, 0);
  }
  skip(P);
  if (a >= 0 && level == NLEVELS - 1 && *P->p == '%')
    return fail(P, P->p, "'%%' is not supported on float values; use fmod(a, b)");
  return a;
}

static int parse_expr(parser *P) {
  if (++P->depth > VL_MAX_DEPTH) return fail(P, P->p, "the formula nests too deeply");
  int c = parse_level(P, 0);
  if (c >= 0 && accept(P, "?")) {
    int a = parse_expr(P);
    if (a < 0) return -1;
    if (!accept(P, ":")) return fail(P, P->p, "':' expected in 'c ? a : b'");
    int b = parse_expr(P);
    if (b < 0) return -1;
    c = add_node(P, N_SEL, c, a, b, 0);
  }
  P->depth--;
  return c;
}

/* ---- program ------------------------------------------------------------------- */

static int emit(vl_expr *e, int k, int depth) {
  const node *n = &e->nodes[k];
  int d = depth;
  switch (n->kind) {
  case N_NUM: e->code[e->ncode++] = N_NUM | (e->nnums << 8); e->nums[e->nnums++] = n->v; return d + 1;
  case N_X: case N_Y: case N_T: case N_G: e->code[e->ncode++] = n->kind; return d + 1;
  default: break;
  }
  int m = emit(e, n->a, d), top = m;
  if (n->b >= 0) {
    int m2 = emit(e, n->b, d + 1);
    if (m2 > top) top = m2;
  }
  if (n->c >= 0) {
    int m3 = emit(e, n->c, d + 2);
    if (m3 > top) top = m3;
  }
  e->code[e->ncode++] = n->kind | (n->fn << 8);
  if (top > e->max_stack) e->max_stack = top;
  return top;
}

int vl_expr_parse(const char *text, const char *file, int line, vl_expr **out, char *err, size_t errlen) {
  return vl_expr_parse_at(text, file, line, 1, out, err, errlen);
}

int vl_expr_parse_at(const char *text, const char *file, int line, int col, vl_expr **out, char *err, size_t errlen) {
  *out = NULL;
  vl_expr *e = calloc(1, sizeof *e);
  if (!e) return snprintf(err, errlen, "out of memory parsing a formula"), -1;
  e->g = 9.81f;
  e->nodes = malloc(sizeof(node) * VL_MAX_NODES);
  if (!e->nodes) {
    free(e);
    return snprintf(err, errlen, "out of memory parsing a formula"), -1;
  }
  parser P = {text, text, file, line, col, 0, e, err, errlen, 0};
  skip(&P);
  const char *q = P.p;
  if (!strncmp(q, "return", 6) && !isalnum((unsigned char)q[6]) && q[6] != '_') P.p += 6;
  skip(&P);
  int root = -1;
  if (!*P.p) fail(&P, P.p, "an empty formula");
  else root = parse_expr(&P);
  if (root >= 0) {
    accept(&P, ";");
    skip(&P);
    if (*P.p) root = fail(&P, P.p, "the formula should end here (one expression, optionally 'return ...;')");
  }
  if (root < 0) {
    vl_expr_free(e);
    return -1;
  }
  e->root = root;
  e->code = malloc(sizeof(int) * (size_t)e->nnodes);
  e->nums = malloc(sizeof(float) * (size_t)e->nnodes);
  if (!e->code || !e->nums) {
    vl_expr_free(e);
    return snprintf(err, errlen, "out of memory compiling a formula"), -1;
  }
  int top = emit(e, root, 0);
  if (top > e->max_stack) e->max_stack = top;
  if (e->max_stack > VL_MAX_STACK) {
    vl_expr_free(e);
    return snprintf(err, errlen, "%s:%d: the formula nests too deeply", file ? file : "formula", line), -1;
  }
  *out = e;
  return 0;
}

void vl_expr_free(vl_expr *e) {
  if (!e) return;
  free(e->nodes);
  free(e->code);
  free(e->nums);
  free(e);
}

void vl_expr_set_g(vl_expr *e, float g) { e->g = g; }
int vl_expr_uses_t(const vl_expr *e) { return e->uses_t; }
int vl_expr_size(const vl_expr *e) { return e->ncode; }

static float call1(int f, float a) {
  switch (f) {
  case F_EXP: return um_expf(a); /* expf; in reproducible mode the same bits as the GPU's (um/kernel.h) */
  case F_LOG: return logf(a);
  case F_LOG10: return log10f(a);
  case F_SQRT: return sqrtf(a);
  case F_SIN: return sinf(a);
  case F_COS: return cosf(a);
  case F_TAN: return tanf(a);
  case F_ASIN: return asinf(a);
  case F_ACOS: return acosf(a);
  case F_ATAN: return atanf(a);
  case F_SINH: return sinhf(a);
  case F_COSH: return coshf(a);
  case F_TANH: return tanhf(a);
  case F_FABS: case F_ABS: return fabsf(a);
  case F_FLOOR: return floorf(a);
  default: return ceilf(a);
  }
}

static float call2(int f, float a, float b) {
  switch (f) {
  case F_POW: return powf(a, b);
  case F_ATAN2: return atan2f(a, b);
  case F_FMIN: return fminf(a, b);
  case F_FMAX: return fmaxf(a, b);
  default: return fmodf(a, b);
  }
}

float vl_expr_eval(const vl_expr *e, float x, float y, float t) {
  float st[VL_MAX_STACK + 2];
  int sp = 0;
  for (int i = 0; i < e->ncode; i++) {
    const int op = e->code[i] & 0xff, arg = e->code[i] >> 8;
    switch (op) {
    case N_NUM: st[sp++] = e->nums[arg]; break;
    case N_X: st[sp++] = x; break;
    case N_Y: st[sp++] = y; break;
    case N_T: st[sp++] = t; break;
    case N_G: st[sp++] = e->g; break;
    case N_NEG: st[sp - 1] = -st[sp - 1]; break;
    case N_NOT: st[sp - 1] = (float)(st[sp - 1] == 0.0f); break;
    case N_CALL1: st[sp - 1] = call1(arg, st[sp - 1]); break;
    case N_SEL: sp -= 2; st[sp - 1] = st[sp - 1] != 0.0f ? st[sp] : st[sp + 1]; break;
    default: {
      const float b = st[--sp], a = st[sp - 1];
      float r;
      switch (op) {
      case N_ADD: r = a + b; break;
      case N_SUB: r = a - b; break;
      case N_MUL: r = a * b; break;
      case N_DIV: r = a / b; break;
      case N_LT: r = (float)(a < b); break;
      case N_LE: r = (float)(a <= b); break;
      case N_GT: r = (float)(a > b); break;
      case N_GE: r = (float)(a >= b); break;
      case N_EQ: r = (float)(a == b); break;
      case N_NE: r = (float)(a != b); break;
      case N_AND: r = (float)(a != 0.0f && b != 0.0f); break;
      case N_OR: r = (float)(a != 0.0f || b != 0.0f); break;
      default: r = call2(arg, a, b); break;
      }
      st[sp - 1] = r;
    }
    }
  }
  return st[0];
}

/* The same program over n <= VL_EXPR_BLOCK points at once: one dispatch per instruction for the whole
 * block (each point's arithmetic is exactly vl_expr_eval's). ws: vl_expr_workspace(e) floats. */
void vl_expr_eval_block(const vl_expr *e, int n, const float *x, const float *y, float t, float *ws, float *out) {
  float(*st)[VL_EXPR_BLOCK] = (float(*)[VL_EXPR_BLOCK])ws;
  int sp = 0;
  for (int i = 0; i < e->ncode; i++) {
    const int op = e->code[i] & 0xff, arg = e->code[i] >> 8;
    float *r = st[sp - 1], *a = st[sp - 1], *b = st[sp];
    switch (op) {
    case N_NUM: { const float v = e->nums[arg]; r = st[sp++]; for (int k = 0; k < n; k++) r[k] = v; break; }
    case N_X: r = st[sp++]; for (int k = 0; k < n; k++) r[k] = x[k]; break;
    case N_Y: r = st[sp++]; for (int k = 0; k < n; k++) r[k] = y[k]; break;
    case N_T: r = st[sp++]; for (int k = 0; k < n; k++) r[k] = t; break;
    case N_G: r = st[sp++]; for (int k = 0; k < n; k++) r[k] = e->g; break;
    case N_NEG: for (int k = 0; k < n; k++) r[k] = -r[k]; break;
    case N_NOT: for (int k = 0; k < n; k++) r[k] = (float)(r[k] == 0.0f); break;
    case N_CALL1: for (int k = 0; k < n; k++) r[k] = call1(arg, r[k]); break;
    case N_SEL: {
      sp -= 2;
      float *c = st[sp - 1], *p = st[sp], *q = st[sp + 1];
      for (int k = 0; k < n; k++) c[k] = c[k] != 0.0f ? p[k] : q[k];
      break;
    }
    default:
      b = st[--sp], a = st[sp - 1];
      switch (op) {
      case N_ADD: for (int k = 0; k < n; k++) a[k] = a[k] + b[k]; break;
      case N_SUB: for (int k = 0; k < n; k++) a[k] = a[k] - b[k]; break;
      case N_MUL: for (int k = 0; k < n; k++) a[k] = a[k] * b[k]; break;
      case N_DIV: for (int k = 0; k < n; k++) a[k] = a[k] / b[k]; break;
      case N_LT: for (int k = 0; k < n; k++) a[k] = (float)(a[k] < b[k]); break;
      case N_LE: for (int k = 0; k < n; k++) a[k] = (float)(a[k] <= b[k]); break;
      case N_GT: for (int k = 0; k < n; k++) a[k] = (float)(a[k] > b[k]); break;
      case N_GE: for (int k = 0; k < n; k++) a[k] = (float)(a[k] >= b[k]); break;
      case N_EQ: for (int k = 0; k < n; k++) a[k] = (float)(a[k] == b[k]); break;
      case N_NE: for (int k = 0; k < n; k++) a[k] = (float)(a[k] != b[k]); break;
      case N_AND: for (int k = 0; k < n; k++) a[k] = (float)(a[k] != 0.0f && b[k] != 0.0f); break;
      case N_OR: for (int k = 0; k < n; k++) a[k] = (float)(a[k] != 0.0f || b[k] != 0.0f); break;
      default: for (int k = 0; k < n; k++) a[k] = call2(arg, a[k], b[k]); break;
      }
    }
  }
  for (int k = 0; k < n; k++) out[k] = st[0][k];
}

size_t vl_expr_workspace(const vl_expr *e) { return (size_t)(e->max_stack + 2) * VL_EXPR_BLOCK; }

/* ---- C text ----------------------------------------------------------------------- */

typedef struct {
  char *buf;
  size_t len, n;
} out_t;

static void put(out_t *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *dst = o->n < o->len ? o->buf + o->n : NULL;
  int k = vsnprintf(dst, dst ? o->len - o->n : 0, fmt, ap);
  va_end(ap);
  if (k > 0) o->n += (size_t)k;
}

static void to_c(const vl_expr *e, int k, out_t *o) {
  const node *n = &e->nodes[k];
  static const char *const ops[] = {[N_ADD] = "+", [N_SUB] = "-", [N_MUL] = "*", [N_DIV] = "/",
                                    [N_LT] = "<",  [N_LE] = "<=", [N_GT] = ">",  [N_GE] = ">=",
                                    [N_EQ] = "==", [N_NE] = "!="};
  switch (n->kind) {
  case N_NUM: put(o, "%.9ef", (double)n->v); return; /* 9 digits: the float exactly */
  case N_X: put(o, "x"); return;
  case N_Y: put(o, "y"); return;
  case N_T: put(o, "t"); return;
  case N_G: put(o, "%.9ef", (double)e->g); return;
  case N_NEG: put(o, "(-"); to_c(e, n->a, o); put(o, ")"); return;
  case N_NOT: put(o, "((float)("); to_c(e, n->a, o); put(o, " == 0.0f))"); return;
  case N_CALL1: case N_CALL2:
    put(o, "%s(", fn_c[n->fn]);
    to_c(e, n->a, o);
    if (n->kind == N_CALL2) put(o, ", "), to_c(e, n->b, o);
    put(o, ")");
    return;
  case N_SEL:
    put(o, "(("); to_c(e, n->a, o); put(o, ") != 0.0f ? ("); to_c(e, n->b, o); put(o, ") : (");
    to_c(e, n->c, o); put(o, "))");
    return;
  case N_AND: case N_OR:
    put(o, "((float)(("); to_c(e, n->a, o); put(o, ") != 0.0f %s (", n->kind == N_AND ? "&&" : "||");
    to_c(e, n->b, o); put(o, ") != 0.0f))");
    return;
  case N_LT: case N_LE: case N_GT: case N_GE: case N_EQ: case N_NE:
    put(o, "((float)("); to_c(e, n->a, o); put(o, " %s ", ops[n->kind]); to_c(e, n->b, o); put(o, "))");
    return;
  default:
    put(o, "("); to_c(e, n->a, o); put(o, " %s ", ops[n->kind]); to_c(e, n->b, o); put(o, ")");
  }
}

size_t vl_expr_to_c(const vl_expr *e, char *buf, size_t len) {
  out_t o = {buf, len, 0};
  if (len) buf[0] = 0;
  to_c(e, e->root, &o);
  return o.n;
}
