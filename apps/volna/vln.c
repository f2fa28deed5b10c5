/* Volna's .vln decks, read as upstream's parser (volna_init/paramFileParser.hpp)
 * reads them: one statement per line, '#' starts a comment.
 *
 *   Time { end = R  dtmax = R }
 *   Mesh Rectangle xmin xmax ymin ymax nx ny  |  Mesh "file.msh"
 *   PhysicalParams { g = R }      NumericalParams { cfl = R }
 *   Init { <timer> } (Eta|U|V|Bathymetry|BathyRelative) { <formula> }
 *   Init { <timer> } GaussianLandslide { A = R  V = R  lx = R  ly = R }
 *   (OutputTime|OutputConservedQuantities|OutputSimulation|OutputMaxElevation|OutputMaxSpeed) { <timer> } "name"
 *   OutputLocation { <timer> } "name" { x = R  y = R }
 *   <timer> := any of istart = N  istep = N  iend = N  start = R  step = R  end = R
 *              (a timer that could never run, or a value with no meaning, is refused at its key's line:
 *              finish_timer; step = R makes istep void, as upstream's pre-processor does)
 * One Mesh statement; every R a float (Volna computes in single precision: beyond 3.4e38 refused at its line); no
 * NUL byte anywhere; a leading UTF-8 byte order mark skipped. Upstream's old Init eta|U|V|... { } (which upstream
 * refuses too) is named as such.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "volna.h"
#include "um/um.h"
#include "um/safe_file.h"

#define VL_DECK_MAX_BYTES (16 << 20)
#define VL_MAX_EVENTS 1024

const char *vl_event_name(int kind) {
  static const char *const names[VL_NEVENT_KINDS] = {
      "Init Eta", "Init U", "Init V", "Init Bathymetry", "Init BathyRelative", "Init GaussianLandslide",
      "OutputTime", "OutputConservedQuantities", "OutputLocation", "OutputSimulation", "OutputMaxElevation",
      "OutputMaxSpeed"};
  return kind >= 0 && kind < VL_NEVENT_KINDS ? names[kind] : "unknown";
}

typedef struct {
  const char *s, *p, *end;
  const char *name;
  int line;
  char *err;
  size_t errlen;
  int failed;
} lexer;

static int vlfail(lexer *L, int line, const char *fmt, va_list ap) {
  if (L->failed) return -1;
  L->failed = 1;
  char what[768];
  vsnprintf(what, sizeof what, fmt, ap);
  snprintf(L->err, L->errlen, "%s:%d: %s", L->name, line, what);
  return -1;
}

static int lfail(lexer *L, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlfail(L, L->line, fmt, ap);
  va_end(ap);
  return -1;
}

/* blanks and comments, not newlines */
static void blanks(lexer *L) {
  while (L->p < L->end) {
    if (*L->p == ' ' || *L->p == '\t' || *L->p == '\r') L->p++;
    else if (*L->p == '#')
      while (L->p < L->end && *L->p != '\n') L->p++;
    else break;
  }
}

/* blanks, comments and newlines */
static void space(lexer *L) {
  for (;;) {
    blanks(L);
    if (L->p < L->end && *L->p == '\n') L->p++, L->line++;
    else return;
  }
}

static void show(const lexer *L, char *buf, size_t n) {
  size_t k = 0;
  const char *q = L->p;
  if (q >= L->end) {
    snprintf(buf, n, "the end of the deck");
    return;
  }
  buf[k++] = '\'';
  while (q < L->end && *q != '\n' && !isspace((unsigned char)*q) && k + 3 < n && k < 24)
    buf[k++] = isprint((unsigned char)*q) ? *q : '?', q++;
  buf[k++] = '\'';
  buf[k] = 0;
}

static int word(lexer *L, char *w, size_t n) {
  blanks(L);
  size_t k = 0;
  while (L->p < L->end && (isalnum((unsigned char)*L->p) || *L->p == '_')) {
    if (k + 1 >= n) return lfail(L, "a name too long");
    w[k++] = *L->p++;
  }
  w[k] = 0;
  return (int)k;
}

static int expect(lexer *L, char c, const char *context) {
  blanks(L);
  if (L->p < L->end && *L->p == c) {
    L->p++;
    return 0;
  }
  char got[40];
  show(L, got, sizeof got);
  return lfail(L, "'%c' expected %s, found %s", c, context, got);
}

static int peek(lexer *L, char c) {
  blanks(L);
  return L->p < L->end && *L->p == c;
}

static int real(lexer *L, double *v, const char *what) {
  blanks(L);
  char buf[64];
  size_t k = 0;
  const char *q = L->p;
  while (q < L->end && k + 1 < sizeof buf && (isalnum((unsigned char)*q) || *q == '.' || *q == '-' || *q == '+')) {
    if ((*q == '-' || *q == '+') && k > 0 && buf[k - 1] != 'e' && buf[k - 1] != 'E') break;
    buf[k++] = *q++;
  }
  buf[k] = 0;
  char *e;
  errno = 0;
  double x = strtod(buf, &e);
  if (k == 0 || *e || errno == ERANGE || !isfinite(x)) {
    char got[40];
    show(L, got, sizeof got);
    return lfail(L, "%s: a number expected, found %s", what, got);
  }
  L->p = q;
  *v = x;
  return 0;
}

/* a real that a float holds: Volna computes in single precision, so 1e39 (a double) would be inf */
static int real_float(lexer *L, double *v, const char *what) {
  if (real(L, v, what)) return -1;
  if (!isfinite((float)*v))
    return lfail(L, "%s = %g: too large for a float (Volna computes in single precision: at most 3.4e38)", what, *v);
  return 0;
}

static int uint_(lexer *L, unsigned *v, const char *what) {
  double x;
  if (real(L, &x, what)) return -1;
  if (x < 0 || x != floor(x) || x > (double)INT_MAX)
    return lfail(L, "%s = %.17g: a whole number from 0 to %d expected", what, x, INT_MAX);
  *v = (unsigned)x;
  return 0;
}

static int quoted(lexer *L, char *s, size_t n, const char *what) {
  if (expect(L, '"', what)) return -1;
  size_t k = 0;
  while (L->p < L->end && *L->p != '"' && *L->p != '\n') {
    if (k + 1 >= n) return lfail(L, "%s: the name is longer than %zu characters", what, n - 1);
    s[k++] = *L->p++;
  }
  s[k] = 0;
  return expect(L, '"', "to close the name");
}

/* name = value pairs inside { }: calls set(key, value) */
typedef int (*kv_fn)(lexer *L, void *obj, const char *key);

static int block(lexer *L, const char *stmt, void *obj, kv_fn set) {
  char ctx[96];
  snprintf(ctx, sizeof ctx, "after %s", stmt);
  if (expect(L, '{', ctx)) return -1;
  for (;;) {
    space(L);
    if (peek(L, '}')) {
      L->p++;
      return 0;
    }
    char key[32];
    int n = word(L, key, sizeof key);
    if (n < 0) return -1;
    if (n == 0) {
      char got[40];
      show(L, got, sizeof got);
      return lfail(L, "%s: a setting 'name = value' or '}' expected, found %s", stmt, got);
    }
    snprintf(ctx, sizeof ctx, "after '%s' in %s", key, stmt);
    if (expect(L, '=', ctx)) return -1;
    if (set(L, obj, key)) return -1;
  }
}

static int set_time(lexer *L, void *obj, const char *key) {
  vl_deck *d = obj;
  double v;
  if (!strcmp(key, "end")) {
    if (real_float(L, &v, "Time end")) return -1;
    if (!(v > 0)) return lfail(L, "Time end = %g: must be > 0 (the run starts at t = 0)", v);
    d->final_time = (float)v;
  } else if (!strcmp(key, "dtmax")) {
    if (real_float(L, &v, "Time dtmax")) return -1;
    if (!(v > 0)) return lfail(L, "Time dtmax = %g: must be > 0", v);
    d->dtmax = (float)v;
  } else return lfail(L, "Time: unknown setting '%s'; Time has end and dtmax", key);
  return 0;
}

static int set_phys(lexer *L, void *obj, const char *key) {
  vl_deck *d = obj;
  double v;
  if (strcmp(key, "g")) return lfail(L, "PhysicalParams: unknown setting '%s'; PhysicalParams has g", key);
  if (real_float(L, &v, "PhysicalParams g")) return -1;
  if (!(v > 0)) return lfail(L, "PhysicalParams g = %g: the gravity must be > 0", v);
  d->g = (float)v;
  return 0;
}

static int set_num(lexer *L, void *obj, const char *key) {
  vl_deck *d = obj;
  double v;
  if (strcmp(key, "cfl")) return lfail(L, "NumericalParams: unknown setting '%s'; NumericalParams has cfl", key);
  if (real(L, &v, "NumericalParams cfl")) return -1;
  if (!(v > 0 && v <= 1)) return lfail(L, "NumericalParams cfl = %g: must be in (0, 1]", v);
  d->cfl = (float)v;
  return 0;
}

/* A timer's block as it is read: the line of each key given (0: not given), for finish_timer's errors */
enum { K_ISTART, K_ISTEP, K_IEND, K_START, K_STEP, K_END, K_N };
#define VL_ISTEP_NEG UINT_MAX /* istep = -1, refused in finish_timer (upstream's parser refuses it) */
typedef struct {
  vl_timer *t;
  int line[K_N];
  int stmt; /* the statement's line */
} timer_keys;

static int set_timer(lexer *L, void *obj, const char *key) {
  static const char *const keys[K_N] = {"istart", "istep", "iend", "start", "step", "end"};
  timer_keys *k = obj;
  vl_timer *t = k->t;
  int i = 0;
  while (i < K_N && strcmp(key, keys[i])) i++;
  if (i == K_N) return lfail(L, "unknown timer setting '%s'; a timer has istart, istep, iend, start, step, end", key);
  k->line[i] = L->line;
  double v;
  if (i == K_ISTEP) {
    const char *at = L->p;
    double x = 0;
    if (!real(L, &x, "istep") && x == -1) { /* the documentation's OutputMaxElevation { istep = -1 } */
      t->istep = VL_ISTEP_NEG;
      return 0;
    }
    L->p = at;
    return uint_(L, &t->istep, "istep");
  }
  if (i == K_ISTART) return uint_(L, &t->istart, "istart");
  if (i == K_IEND) return uint_(L, &t->iend, "iend");
  if (real_float(L, &v, key)) return -1;
  *(i == K_START ? &t->start : i == K_STEP ? &t->step : &t->end) = (float)v;
  return 0;
}

static int set_landslide(lexer *L, void *obj, const char *key) {
  vl_event *e = obj;
  double v;
  float *dst = !strcmp(key, "A") ? &e->A : !strcmp(key, "V") ? &e->v : !strcmp(key, "lx") ? &e->lx
             : !strcmp(key, "ly") ? &e->ly : NULL;
  if (!dst) return lfail(L, "GaussianLandslide: unknown setting '%s'; it has A, V, lx and ly", key);
  char what[40];
  snprintf(what, sizeof what, "GaussianLandslide %s", key);
  if (real_float(L, &v, what)) return -1;
  *dst = (float)v;
  return 0;
}

static int set_location(lexer *L, void *obj, const char *key) {
  vl_event *e = obj;
  double v;
  if (strcmp(key, "x") && strcmp(key, "y")) return lfail(L, "OutputLocation: unknown setting '%s'; it has x and y", key);
  if (real_float(L, &v, key[0] == 'x' ? "OutputLocation x" : "OutputLocation y")) return -1;
  if (key[0] == 'x') e->x = (float)v;
  else e->y = (float)v;
  return 0;
}

static vl_event *new_event(lexer *L, vl_deck *d, int kind, int line) {
  if (d->nevents >= VL_MAX_EVENTS) {
    lfail(L, "more than %d events", VL_MAX_EVENTS);
    return NULL;
  }
  vl_event *ev = realloc(d->events, sizeof *ev * (size_t)(d->nevents + 1));
  if (!ev) {
    lfail(L, "out of memory");
    return NULL;
  }
  d->events = ev;
  vl_event *e = &ev[d->nevents++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->line = line;
  /* upstream's Timer(): start 0, end and step "infinite", istart 0, iend INT_MAX, istep 1 */
  e->timer.start = 0;
  e->timer.end = e->timer.step = 3.402823466e+38; /* FLT_MAX, upstream's INFTY */
  e->timer.istart = 0;
  e->timer.iend = INT_MAX;
  e->timer.istep = 1;
  return e;
}

/* finish_timer's error at the line of the keys concerned (mask of 1 << K_*): the last of those given, else the
 * statement's */
static int tfail(lexer *L, const timer_keys *k, unsigned mask, const char *fmt, ...) {
  int line = 0;
  for (int i = 0; i < K_N; i++)
    if ((mask >> i & 1) && k->line[i] > line) line = k->line[i];
  va_list ap;
  va_start(ap, fmt);
  vlfail(L, line ? line : k->stmt, fmt, ap);
  va_end(ap);
  return -1;
}

/* After the timer's block: a timer that could never fire, or a value with no meaning, refused at its line with what
 * to write. Upstream's timers (sp/volna_event.cpp timer_happens and processEvents, as process_events runs them): an
 * event runs at iteration 0 (t = 0) if istart = 0 and start = 0; later at iteration n (time t) with istart <= n <
 * iend and start <= t < end (a timer reaching iend or end is removed before its next check), when the steps since
 * it last ran (counted from iteration 0) equal istep, or the time since then reaches step, or always for step = -1.
 * Upstream's pre-processor (sp/volna2hdf5 volna2hdf5.cpp) sets istep = INT_MAX when step is given: istep is then
 * void and not checked (upstream's parser refuses a negative istep whatever step is). */
static int finish_timer(lexer *L, timer_keys *k) {
  vl_timer *t = k->t;
  const int by_time = t->step != 3.402823466e+38;
  if (t->istep == VL_ISTEP_NEG)
    return by_time ? tfail(L, k, 1u << K_ISTEP,
                           "istep = -1: a whole number of steps >= 1 expected (upstream's parser refuses it too); "
                           "with step = %g given, istep is void (upstream's pre-processor): remove istep = -1",
                           t->step)
                   : tfail(L, k, 1u << K_ISTEP,
                           "istep = -1: a whole number of steps >= 1 expected; upstream's -1 convention is step = -1 "
                           "(the event runs every step; OutputMaxElevation and OutputMaxSpeed write their file "
                           "once, at the end): write step = -1");
  if (!by_time && t->istep == 0)
    return tfail(L, k, 1u << K_ISTEP,
                 "istep = 0: the event would run at iteration 0 only (the steps since it last ran are counted from "
                 "1); write istep = 1 (every step), istep = N (every N-th) or istart = 0 iend = 0 (once, at the "
                 "start)");
  if (by_time && !(t->step > 0) && t->step != -1)
    return tfail(L, k, 1u << K_STEP,
                 "step = %g: the time between two runs of the event must be > 0 seconds; the one other value is "
                 "upstream's step = -1 (every step; OutputMaxElevation and OutputMaxSpeed then write once, at the "
                 "end); for every step write istep = 1",
                 t->step);
  if (t->start < 0)
    return tfail(L, k, 1u << K_START, "start = %g: the run starts at t = 0; write start = 0 or leave it out", t->start);
  if (t->start > t->end || (t->start > 0 && t->start == t->end))
    return tfail(L, k, 1u << K_START | 1u << K_END,
                 "start = %g, end = %g: the event would never run (it runs at t = 0 if start = 0, then while start "
                 "<= t < end); write start < end",
                 t->start, t->end);
  if (t->istart > t->iend || (t->istart > 0 && t->istart == t->iend))
    return tfail(L, k, 1u << K_ISTART | 1u << K_IEND,
                 "istart = %u, iend = %u: the event would never run (it runs at iteration 0 if istart = 0, then "
                 "while istart <= iteration < iend); write istart < iend, or istart = 0 iend = 0 for once at the "
                 "start",
                 t->istart, t->iend);
  if (!by_time && t->istart > 0 && (t->istart > t->istep || t->istep >= t->iend))
    return tfail(L, k, 1u << K_ISTART | 1u << K_ISTEP | 1u << K_IEND,
                 "istart = %u with istep = %u%s: the event would never run: as upstream Volna's, its timer counts "
                 "the steps since the event last ran from iteration 0, so it runs at iteration 0 if istart = 0, "
                 "else first at iteration istep (then every istep), while iteration < iend; write istart = 0, or "
                 "istart <= istep < iend (e.g. istart = %u istep = %u: first at iteration %u), or a time window "
                 "(start = <seconds> step = <seconds>)",
                 t->istart, t->istep, t->istep >= t->iend ? " and iend not above it" : "", t->istart, t->istart,
                 t->istart);
  if (!by_time && t->start > 0)
    return tfail(L, k, 1u << K_START | 1u << K_ISTEP,
                 "start = %g with istep = %u and no step: the event would run only if the first %u time step%s reach "
                 "t = start, and else never: as upstream Volna's, its timer counts the steps since the event last "
                 "ran from iteration 0 (where t = 0 < start, so it does not run there) and compares them with istep "
                 "at iteration %u alone (then the count goes past istep); write a time window, start = %g step = "
                 "<seconds> (or step = -1: every step from t = start), or an iteration window (istart = N istep = N)",
                 t->start, t->istep, t->istep, t->istep == 1 ? "" : "s", t->istep, t->start);
  if (by_time && t->step >= t->end && !(t->istart == 0 && t->start == 0))
    return tfail(L, k, 1u << K_STEP | 1u << K_END,
                 "step = %g, end = %g: the event would never run: it runs when the time since it last ran (from t = "
                 "0) reaches step, and only while t < end, and not at t = 0 (istart = %u, start = %g); write step < "
                 "end",
                 t->step, t->end, t->istart, t->start);
  if (by_time) t->istep = INT_MAX;
  return 0;
}

/* upstream's old form, Init eta|U|V|BathyRelative|Bathymetry { formula }: its grammar reads it, then Volna stops */
static int old_init(lexer *L) {
  static const char *const old[] = {"eta", "U", "V", "BathyRelative", "Bathymetry"};
  blanks(L);
  for (int k = 0; k < 5; k++) {
    const size_t len = strlen(old[k]);
    const char *q = L->p + len;
    if ((size_t)(L->end - L->p) <= len || strncmp(L->p, old[k], len) || isalnum((unsigned char)*q) || *q == '_')
      continue;
    while (q < L->end && (*q == ' ' || *q == '\t')) q++;
    if (q < L->end && *q == '{')
      return lfail(L,
                   "Init %s { ... }: upstream's old form of initial values, which upstream Volna refuses too "
                   "(\"Unsupported method of specifiying initial values: please use Init events\"); write it as "
                   "an Init event: Init { istart = 0 iend = 0 } %s { ... }",
                   old[k], k ? old[k] : "Eta");
  }
  return 0;
}

static int init_event(lexer *L, vl_deck *d, int line) {
  vl_timer timer;
  vl_event tmp;
  memset(&tmp, 0, sizeof tmp);
  if (old_init(L)) return -1;
  /* timer first, into a scratch event */
  vl_event *e = new_event(L, d, VL_INIT_ETA, line);
  if (!e) return -1;
  timer_keys k = {&e->timer, {0}, line};
  if (block(L, "Init", &k, set_timer) || finish_timer(L, &k)) return -1;
  timer = e->timer;
  (void)timer;
  char what[40];
  int n = word(L, what, sizeof what);
  if (n < 0) return -1;
  static const char *const vars[] = {"Eta", "U", "V", "Bathymetry", "BathyRelative", "GaussianLandslide"};
  int kind = -1;
  for (int k = 0; k < 6; k++)
    if (!strcmp(what, vars[k])) kind = k;
  if (kind < 0) {
    if (!strcmp(what, "Bore"))
      return lfail(L, "Init Bore is not supported by this port (none of the supported decks uses it); use Init Eta "
                      "and Init U formulas instead");
    return lfail(L, "Init: '%s' is not something to initialise; use Eta, U, V, Bathymetry, BathyRelative or "
                    "GaussianLandslide", n ? what : "(nothing)");
  }
  e = &d->events[d->nevents - 1];
  e->kind = kind;
  e->post_update = 0;
  if (kind == VL_INIT_GAUSSIAN_LANDSLIDE) return block(L, "GaussianLandslide", e, set_landslide);
  if (peek(L, '"'))
    return lfail(L, "Init %s from the file given: reading initial values from files is not supported by this port; "
                    "give the values as a formula, Init { ... } %s { return <expression of x, y, t>; }",
                 what, what);
  if (expect(L, '{', "before the formula")) return -1;
  const char *start = L->p;
  int fline = L->line;
  const char *bol = start;
  while (bol > L->s && bol[-1] != '\n') bol--;
  const int fcol = (int)(start - bol) + 1;
  while (L->p < L->end && *L->p != '}') {
    if (*L->p == '\n') L->line++;
    L->p++;
  }
  if (L->p >= L->end) {
    L->line = fline;
    return lfail(L, "Init %s: the formula has no closing '}'", what);
  }
  size_t len = (size_t)(L->p - start);
  L->p++;
  e->formula_text = malloc(len + 1);
  if (!e->formula_text) return lfail(L, "out of memory");
  memcpy(e->formula_text, start, len);
  e->formula_text[len] = 0;
  if (vl_expr_parse_at(e->formula_text, L->name, fline, fcol, &e->formula, L->err, L->errlen)) {
    L->failed = 1;
    return -1;
  }
  return 0;
}

static int output_event(lexer *L, vl_deck *d, int kind, int line) {
  vl_event *e = new_event(L, d, kind, line);
  if (!e) return -1;
  e->post_update = 1;
  timer_keys k = {&e->timer, {0}, line};
  if (block(L, vl_event_name(kind), &k, set_timer) || finish_timer(L, &k)) return -1;
  if (quoted(L, e->stream, sizeof e->stream, "before the output's name")) return -1;
  if (kind == VL_OUT_LOCATION) {
    if (!peek(L, '{'))
      return lfail(L, "OutputLocation \"%s\": the point is missing; write OutputLocation { ... } \"%s\" { x = .. y = .. }",
                   e->stream, e->stream);
    return block(L, "OutputLocation", e, set_location);
  }
  if (peek(L, '{')) { /* upstream allows an empty { } */
    L->p++;
    space(L);
    return expect(L, '}', "(an output's options block is empty)");
  }
  return 0;
}

static int statement(lexer *L, vl_deck *d) {
  char w[64];
  const int line = L->line;
  int n = word(L, w, sizeof w);
  if (n < 0) return -1;
  if (n == 0) {
    char got[40];
    show(L, got, sizeof got);
    return lfail(L, "a statement expected, found %s", got);
  }
  if (!strcmp(w, "Time")) return block(L, "Time", d, set_time);
  if (!strcmp(w, "PhysicalParams")) return block(L, "PhysicalParams", d, set_phys);
  if (!strcmp(w, "NumericalParams")) return block(L, "NumericalParams", d, set_num);
  if (!strcmp(w, "Mesh")) {
    if (d->mesh_line)
      return lfail(L, "a second Mesh statement (the first is at line %d): a deck has one mesh; remove one",
                   d->mesh_line);
    d->mesh_line = line;
    if (peek(L, '"')) {
      d->rectangle = 0;
      if (quoted(L, d->mesh_file, sizeof d->mesh_file, "before the mesh file")) return -1;
      size_t k = strlen(d->mesh_file);
      if (k < 4 || strcmp(d->mesh_file + k - 4, ".msh"))
        return lfail(L, "Mesh \"%s\": a Gmsh file ending in .msh expected", d->mesh_file);
      return 0;
    }
    if (word(L, w, sizeof w) < 0) return -1;
    if (strcmp(w, "Rectangle"))
      return lfail(L, "Mesh: 'Rectangle xmin xmax ymin ymax nx ny' or \"file.msh\" expected, found '%s'", w);
    double v[4];
    static const char *const names[] = {"xmin", "xmax", "ymin", "ymax"};
    char what[48];
    for (int k = 0; k < 4; k++) {
      snprintf(what, sizeof what, "Mesh Rectangle %s", names[k]);
      if (real_float(L, &v[k], what)) return -1;
    }
    unsigned nx = 0, ny = 0;
    if (uint_(L, &nx, "Mesh Rectangle nx") || uint_(L, &ny, "Mesh Rectangle ny")) return -1;
    d->xmin = (float)v[0], d->xmax = (float)v[1], d->ymin = (float)v[2], d->ymax = (float)v[3];
    d->nx = (int)nx, d->ny = (int)ny;
    d->rectangle = 1;
    if (!(d->xmax > d->xmin) || !(d->ymax > d->ymin))
      return lfail(L, "Mesh Rectangle %g %g %g %g: needs xmin < xmax and ymin < ymax (the cells would be degenerate "
                      "triangles)", v[0], v[1], v[2], v[3]);
    if (!isfinite(d->xmax - d->xmin) || !isfinite(d->ymax - d->ymin))
      return lfail(L,
                   "Mesh Rectangle %g %g %g %g: the width or height is too large for a float (Volna computes in "
                   "single precision)",
                   v[0], v[1], v[2], v[3]);
    if (nx < 1 || ny < 1) return lfail(L, "Mesh Rectangle: nx = %u, ny = %u: each must be >= 1", nx, ny);
    if ((double)nx * ny * 2 > (double)INT_MAX / 4)
      return lfail(L, "Mesh Rectangle %u x %u: too many cells for this build (int indices)", nx, ny);
    return 0;
  }
  if (!strcmp(w, "Init")) return init_event(L, d, line);
  static const struct {
    const char *name;
    int kind;
  } outs[] = {{"OutputTime", VL_OUT_TIME},           {"OutputConservedQuantities", VL_OUT_CONSERVED},
              {"OutputLocation", VL_OUT_LOCATION},   {"OutputSimulation", VL_OUT_SIMULATION},
              {"OutputMaxElevation", VL_OUT_MAX_ELEVATION}, {"OutputMaxSpeed", VL_OUT_MAX_SPEED}};
  for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++)
    if (!strcmp(w, outs[k].name)) return output_event(L, d, outs[k].kind, line);
  if (!strcmp(w, "BoundaryCondition"))
    return lfail(L, "BoundaryCondition: Volna 9bab009 ignores boundary conditions (every boundary is a reflective "
                    "wall); remove the line");
  return lfail(L, "unknown statement '%s'; a Volna deck has Time, Mesh, PhysicalParams, NumericalParams, Init and "
                  "Output* statements (OutputTime, OutputConservedQuantities, OutputLocation, OutputSimulation, "
                  "OutputMaxElevation, OutputMaxSpeed)", w);
}

int vl_deck_parse(const char *text, size_t n, const char *name, const char *dir, vl_deck *d, char *err,
                  size_t errlen) {
  memset(d, 0, sizeof *d);
  snprintf(d->file, sizeof d->file, "%s", name);
  snprintf(d->dir, sizeof d->dir, "%s", dir ? dir : ".");
  d->final_time = 3.402823466e+38;
  d->dtmax = 3.402823466e+38;
  d->g = 9.81f;
  d->cfl = 0.9f; /* upstream's default (Simulation()) */
  lexer L = {text, text, text + n, name, 1, err, errlen, 0};
  if (n >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) L.s = L.p = text + 3; /* a UTF-8 byte order mark */
  const char *nul = memchr(text, 0, n); /* anywhere: a formula's text would end there */
  if (nul) {
    for (const char *q = text; q < nul; q++) L.line += *q == '\n';
    return vl_deck_free(d), lfail(&L, "a NUL byte in the deck: is it a text file? (remove the byte)");
  }
  int have_mesh = 0, have_time = 0;
  for (;;) {
    space(&L);
    if (L.p >= L.end) break;
    const char *before = L.p;
    char w[16] = "";
    size_t k = 0;
    while (before + k < L.end && k + 1 < sizeof w && isalpha((unsigned char)before[k])) w[k] = before[k], k++;
    w[k] = 0;
    if (statement(&L, d)) return vl_deck_free(d), -1;
    if (!strcmp(w, "Mesh")) have_mesh = 1;
    if (!strcmp(w, "Time")) have_time = 1;
    blanks(&L);
    if (L.p < L.end && *L.p != '\n') {
      char got[40];
      show(&L, got, sizeof got);
      lfail(&L, "one statement per line: unexpected %s after the statement", got);
      return vl_deck_free(d), -1;
    }
  }
  L.line = 1;
  if (!have_mesh)
    return vl_deck_free(d), lfail(&L, "the deck has no Mesh statement; add 'Mesh Rectangle xmin xmax ymin ymax nx ny' "
                                      "or 'Mesh \"file.msh\"'");
  if (!have_time || !(d->final_time < 3.4e38))
    return vl_deck_free(d), lfail(&L, "the deck has no end time; add 'Time { end = <seconds> }'");
  for (int i = 0; i < d->nevents; i++)
    if (d->events[i].formula) vl_expr_set_g(d->events[i].formula, d->g);
  return 0;
}

int vl_deck_read(const char *path, vl_deck *d, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  char why[512];
  FILE *f = um_read_open(path, 0, NULL, why, sizeof why); /* a regular file: a FIFO never hangs */
  if (!f) return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: cannot open the Volna deck: %s", path, why), -1;
  char *buf = malloc(VL_DECK_MAX_BYTES + 1);
  if (!buf) return fclose(f), snprintf(err, errlen, "out of memory reading %s", path), -1;
  size_t n = fread(buf, 1, VL_DECK_MAX_BYTES + 1, f);
  int bad = ferror(f);
  fclose(f);
  if (bad || n > VL_DECK_MAX_BYTES) {
    free(buf);
    return snprintf(err, errlen, "%s: %s", path, bad ? "read error" : "larger than 16 MiB: not a Volna deck"), -1;
  }
  buf[n] = 0;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  int rc = vl_deck_parse(buf, n, path, dir, d, err, errlen);
  free(buf);
  return rc;
}

void vl_deck_free(vl_deck *d) {
  for (int i = 0; i < d->nevents; i++) {
    vl_expr_free(d->events[i].formula);
    free(d->events[i].formula_text);
  }
  free(d->events);
  d->events = NULL;
  d->nevents = 0;
}
