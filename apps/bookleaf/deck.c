/* BookLeaf's input deck: BookLeaf_F90's Fortran namelists (&CONTROL, &EOS,
 * &CUTOFF, &MESH, &INDICATORS, &INITIAL_CONDITIONS, &SHAPES, &ALE) read as the
 * Fortran runtime reads them: `key = values`, `key(i) = ...`, array sections
 * `key(1,:)`, `key(2:3,1)`, `key(1:4:2)`, repeat counts `3*0.0`, null values
 * (`a,,b`, `2*`: the element keeps its value), quoted strings, logicals, `!`
 * comments, `$NAME ... $END`, a title or note line between the groups; values
 * fill the section in column-major order. Every entry has upstream's extents
 * and default. Errors say file:line: key: what. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bookleaf.h"
#include "um/um.h"
#include "um/safe_file.h"

#define DECK_MAX_BYTES (4 << 20)

typedef enum { T_REAL, T_INT, T_STR, T_LOG } vtype;
typedef struct {
  const char *group, *name;
  vtype type;
  int rank, ext[3];
  size_t off;
} var;

#define V0(g, n, t, f) {g, n, t, 0, {1, 1, 1}, offsetof(bl_deck, f)}
#define V1(g, n, t, f) {g, n, t, 1, {BL_LN, 1, 1}, offsetof(bl_deck, f)}
#define V2(g, n, t, f, e1, e2) {g, n, t, 2, {e1, e2, 1}, offsetof(bl_deck, f)}

static const var vars[] = {
    V0("CONTROL", "time_start", T_REAL, time_start), V0("CONTROL", "time_end", T_REAL, time_end),
    V0("CONTROL", "dt_initial", T_REAL, dt_initial), V0("CONTROL", "dt_g", T_REAL, dt_g),
    V0("CONTROL", "dt_min", T_REAL, dt_min), V0("CONTROL", "dt_max", T_REAL, dt_max),
    V0("CONTROL", "cfl_sf", T_REAL, cfl_sf), V0("CONTROL", "div_sf", T_REAL, div_sf),
    V1("CONTROL", "zdtnotreg", T_LOG, zdtnotreg), V1("CONTROL", "zmidlength", T_LOG, zmidlength),
    V0("CONTROL", "visc", T_STR, visc), V0("CONTROL", "cvisc1", T_REAL, cvisc1),
    V0("CONTROL", "cvisc2", T_REAL, cvisc2), V0("CONTROL", "kappaall", T_REAL, kappaall),
    V1("CONTROL", "kappareg", T_REAL, kappareg), V0("CONTROL", "pmeritall", T_REAL, pmeritall),
    V1("CONTROL", "pmeritreg", T_REAL, pmeritreg),
    V0("CUTOFF", "ccut", T_REAL, ccut), V0("CUTOFF", "zcut", T_REAL, zcut), V0("CUTOFF", "zerocut", T_REAL, zerocut),
    V0("CUTOFF", "pcut", T_REAL, pcut), V0("CUTOFF", "dencut", T_REAL, dencut), V0("CUTOFF", "accut", T_REAL, accut),
    V1("EOS", "eos_type", T_STR, eos_type), V2("EOS", "eos_param", T_REAL, eos_param, BL_NEOS, BL_LN),
    {"MESH", "region_side", T_INT, 3, {BL_LN, 4, BL_LN}, offsetof(bl_deck, region_side)},
    V2("MESH", "region_dim", T_INT, region_dim, BL_LN, 2), V1("MESH", "region_material", T_INT, region_material),
    V1("MESH", "region_om", T_REAL, region_om), V1("MESH", "region_tol", T_REAL, region_tol),
    V1("MESH", "region_typ", T_STR, region_typ), V2("MESH", "segment_pos", T_REAL, segment_pos, BL_LN, 8),
    V1("MESH", "segment_typ", T_STR, segment_typ), V1("MESH", "segment_bc", T_STR, segment_bc),
    V0("MESH", "max_seg", T_INT, max_seg), V0("MESH", "max_subseg", T_INT, max_subseg),
    V1("INDICATORS", "region_type", T_STR, region_type), V1("INDICATORS", "region_value", T_INT, region_value),
    V1("INDICATORS", "region_name", T_STR, region_name), V1("INDICATORS", "material_type", T_STR, material_type),
    V1("INDICATORS", "material_name", T_STR, material_name),
    V1("INDICATORS", "material_value", T_INT, material_value),
    V1("INITIAL_CONDITIONS", "thermodynamic_type", T_STR, thermodynamic_type),
    V1("INITIAL_CONDITIONS", "thermodynamic_value", T_INT, thermodynamic_value),
    V1("INITIAL_CONDITIONS", "thermodynamic_energy_scale", T_STR, thermodynamic_energy_scale),
    V1("INITIAL_CONDITIONS", "density", T_REAL, density), V1("INITIAL_CONDITIONS", "energy", T_REAL, energy),
    V1("INITIAL_CONDITIONS", "kinematic_type", T_STR, kinematic_type),
    V1("INITIAL_CONDITIONS", "kinematic_geometry", T_STR, kinematic_geometry),
    V1("INITIAL_CONDITIONS", "kinematic_value", T_INT, kinematic_value),
    V2("INITIAL_CONDITIONS", "kinematic_param", T_REAL, kinematic_param, 3, BL_LN),
    V1("SHAPES", "shape_type", T_STR, shape_type), V2("SHAPES", "shape_param", T_REAL, shape_param, BL_LN, 5),
    V0("ALE", "zeul", T_LOG, zeul), V0("ALE", "npatch", T_INT, npatch), V0("ALE", "ale_sf", T_REAL, ale_sf),
    V0("ALE", "adv_type", T_INT, adv_type),
};
#define NVARS ((int)(sizeof vars / sizeof vars[0]))
_Static_assert(sizeof(((bl_deck *)0)->lines) / sizeof(int) >= sizeof vars / sizeof vars[0],
               "bl_deck.lines needs one entry per namelist variable");
_Static_assert(sizeof(((bl_deck *)0)->entry_lines) / sizeof(((bl_deck *)0)->entry_lines[0]) >=
                   sizeof vars / sizeof vars[0],
               "bl_deck.entry_lines needs one row per namelist variable");
static const char *const groups[] = {"CONTROL", "CUTOFF", "EOS", "MESH", "INDICATORS", "INITIAL_CONDITIONS",
                                     "SHAPES", "ALE"};

static size_t elem_size(vtype t) {
  return t == T_REAL ? sizeof(double) : t == T_STR ? BL_SLEN : sizeof(int);
}

void bl_deck_default(bl_deck *d) {
  memset(d, 0, sizeof *d);
  d->time_start = 0.0;
  d->time_end = 1.0;
  d->dt_initial = 1.0e-5;
  d->dt_g = 1.02;
  d->dt_min = 1.0e-8;
  d->dt_max = 1.0e-1;
  d->cfl_sf = 0.5;
  d->div_sf = 0.25;
  d->cvisc1 = 0.5;
  d->cvisc2 = 0.75;
  strcpy(d->visc, "EDGE");
  d->ccut = 1.0e-6;
  d->zcut = 1.0e-8;
  d->zerocut = 1.0e-40;
  d->pcut = 1.0e-8;
  d->dencut = 1.0e-6;
  d->accut = 1.0e-6;
  for (int i = 0; i < BL_LN; i++) {
    d->eos_param[i][0] = 0.0;
    d->region_om[i] = 1.0;
    d->region_tol[i] = 1.0e-12;
    d->region_material[i] = -1;
    strcpy(d->segment_bc[i], "FREE");
    strcpy(d->region_type[i], "UNKNOWN");
    strcpy(d->material_type[i], "UNKNOWN");
    strcpy(d->region_name[i], "UNKNOWN");
    strcpy(d->material_name[i], "UNKNOWN");
    d->region_value[i] = d->material_value[i] = -1;
    strcpy(d->thermodynamic_type[i], "UNKNOWN");
    strcpy(d->kinematic_type[i], "UNKNOWN");
    d->thermodynamic_value[i] = d->kinematic_value[i] = -1;
    strcpy(d->thermodynamic_energy_scale[i], "NONE");
    strcpy(d->kinematic_geometry[i], "UNKNOWN");
    d->density[i] = -1.0;
    d->energy[i] = -1.0;
    strcpy(d->shape_type[i], "UNKNOWN");
  }
  d->max_seg = 50;
  d->max_subseg = 5;
  d->ale_sf = 0.5;
  d->adv_type = 1;
}

int bl_deck_line(const bl_deck *d, const char *key) {
  for (int v = 0; v < NVARS; v++)
    if (strcmp(vars[v].name, key) == 0) return d->lines[v];
  return 0;
}

/* The dimension of a variable that numbers its entries (its first of extent BL_LN), -1: a scalar or none. */
static int entry_dim(const var *v) {
  for (int k = 0; k < v->rank; k++)
    if (v->ext[k] == BL_LN) return k;
  return -1;
}

int bl_deck_entry_line(const bl_deck *d, const char *key, int entry) {
  for (int v = 0; v < NVARS; v++)
    if (strcmp(vars[v].name, key) == 0)
      return entry_dim(&vars[v]) >= 0 && entry >= 1 && entry <= BL_LN ? d->entry_lines[v][entry - 1] : 0;
  return 0;
}

/* ---- the scanner ------------------------------------------------------- */

typedef struct {
  const char *s, *end, *name;
  int line;
  char *err;
  size_t errlen;
  int *seen[NVARS]; /* per entry, the line that set each element (0: not set): a second setting is an error */
  int group_line[sizeof groups / sizeof groups[0]]; /* the line of each namelist read (0: not yet) */
} scan;

static int fail(scan *sc, int line, const char *key, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (key)
    return um_format_error(sc->err, sc->errlen, UM_ERR_CONFIG, "%s:%d: %s: %s", sc->name, line, key, msg);
  return um_format_error(sc->err, sc->errlen, UM_ERR_CONFIG, "%s:%d: %s", sc->name, line, msg);
}

/* Skip white space, commas (when `commas`) and comments. */
static void skip(scan *sc, int commas) {
  while (sc->s < sc->end) {
    char c = *sc->s;
    if (c == '\n') sc->line++, sc->s++;
    else if (isspace((unsigned char)c) || (commas && c == ',')) sc->s++;
    else if (c == '!') {
      while (sc->s < sc->end && *sc->s != '\n') sc->s++;
    } else break;
  }
}

static int ident(scan *sc, char *out, size_t n) {
  size_t k = 0;
  if (sc->s >= sc->end || !(isalpha((unsigned char)*sc->s))) return 0;
  while (sc->s < sc->end && (isalnum((unsigned char)*sc->s) || *sc->s == '_')) {
    if (k + 1 < n) out[k++] = (char)tolower((unsigned char)*sc->s);
    sc->s++;
  }
  out[k] = 0;
  return 1;
}

/* Does an assignment `name =` or `name(` start here? (without consuming) */
static int at_assignment(const scan *sc) {
  const char *p = sc->s;
  if (p >= sc->end || !isalpha((unsigned char)*p)) return 0;
  while (p < sc->end && (isalnum((unsigned char)*p) || *p == '_')) p++;
  while (p < sc->end && (*p == ' ' || *p == '\t')) p++;
  return p < sc->end && (*p == '=' || *p == '(');
}

/* ---- values ------------------------------------------------------------ */

static int parse_int(const char *t, int *out) {
  char *e;
  errno = 0;
  long v = strtol(t, &e, 10);
  if (*t == 0 || *e || errno || v < -2147483647L || v > 2147483647L) return -1;
  *out = (int)v;
  return 0;
}

/* A real as Fortran's list-directed input reads it: 1.5, 1.5e3, 1.5d3; -1: not a number, -2: not finite (nan, inf:
 * strtod takes them; no deck means them, and they would stop the run late or not at all). */
static int parse_real(const char *t, double *out) {
  char buf[128], *e;
  size_t n = strlen(t);
  if (n == 0 || n >= sizeof buf || strpbrk(t, "xX")) return -1; /* strtod's hexadecimal floats too */
  for (size_t i = 0; i <= n; i++) buf[i] = (t[i] == 'd' || t[i] == 'D') ? 'e' : t[i]; /* 1.0d0 */
  errno = 0;
  double v = strtod(buf, &e);
  if (*e || errno == ERANGE) return -1;
  if (!isfinite(v)) return -2;
  *out = v;
  return 0;
}

static int parse_log(const char *t, int *out) {
  char u[16];
  size_t n = strlen(t), k = 0;
  if (n >= sizeof u) return -1;
  for (size_t i = 0; i < n; i++) u[k++] = (char)toupper((unsigned char)t[i]);
  u[k] = 0;
  const char *p = u[0] == '.' ? u + 1 : u;
  if (p[0] == 'T') *out = 1;
  else if (p[0] == 'F') *out = 0;
  else return -1;
  return 0;
}

/* ---- assignments ------------------------------------------------------- */

/* A section: per subscript its first index, stride and count of elements (Fortran's lo:hi:stride). */
typedef struct {
  int lo[3], st[3], n[3];
} section;

/* One subscript: i, lo:hi or lo:hi:stride (lo and hi default to the extent's bounds, the stride to 1). */
static int parse_subscript(scan *sc, const var *v, const char *key, int k, char *tok, section *sec) {
  char *part[3] = {tok, NULL, NULL};
  int np = 1;
  for (char *p = tok; *p; p++)
    if (*p == ':') {
      if (np == 3) return fail(sc, sc->line, key, "bad subscript '%s' (lo:hi:stride at most)", tok);
      *p = 0, part[np++] = p + 1;
    }
  int lo = 1, hi = v->ext[k], st = 1;
  if ((np == 1 || part[0][0]) && parse_int(part[0], &lo)) return fail(sc, sc->line, key, "bad subscript '%s'", part[0]);
  if (np == 1) hi = lo;
  if (np > 1 && part[1][0] && parse_int(part[1], &hi)) return fail(sc, sc->line, key, "bad subscript '%s'", part[1]);
  if (np > 2 && part[2][0] && parse_int(part[2], &st)) return fail(sc, sc->line, key, "bad stride '%s'", part[2]);
  if (st == 0) return fail(sc, sc->line, key, "subscript %d has stride 0", k + 1);
  const long long n = ((long long)hi - lo + st) / st, last = lo + (n - 1) * (long long)st;
  if (n < 1) return fail(sc, sc->line, key, "subscript %d selects no element (%d:%d:%d)", k + 1, lo, hi, st);
  if (lo < 1 || lo > v->ext[k] || last < 1 || last > v->ext[k])
    return np == 1 ? fail(sc, sc->line, key, "index %d (dimension %d) is out of range: allowed 1 to %d", lo, k + 1,
                          v->ext[k])
                   : fail(sc, sc->line, key, "the section %d:%d:%d (dimension %d) is out of range: allowed 1 to %d", lo,
                          hi, st, k + 1, v->ext[k]);
  sec->lo[k] = lo, sec->st[k] = st, sec->n[k] = (int)n;
  return UM_SUCCESS;
}

static int parse_section(scan *sc, const var *v, const char *key, section *sec) {
  for (int k = 0; k < 3; k++) sec->lo[k] = 1, sec->st[k] = 1, sec->n[k] = v->ext[k];
  skip(sc, 0);
  if (sc->s >= sc->end || *sc->s != '(') return UM_SUCCESS;
  if (v->rank == 0) return fail(sc, sc->line, key, "is a scalar, it takes no subscript");
  sc->s++;
  for (int k = 0;; k++) {
    if (k >= v->rank) return fail(sc, sc->line, key, "too many subscripts (it has %d)", v->rank);
    char tok[64];
    size_t n = 0;
    skip(sc, 0);
    while (sc->s < sc->end && *sc->s != ',' && *sc->s != ')' && *sc->s != '\n') {
      if (!isspace((unsigned char)*sc->s) && n + 1 < sizeof tok) tok[n++] = *sc->s;
      sc->s++;
    }
    tok[n] = 0;
    if (sc->s >= sc->end || *sc->s == '\n') return fail(sc, sc->line, key, "unterminated subscript");
    int rc = parse_subscript(sc, v, key, k, tok, sec);
    if (rc) return rc;
    char c = *sc->s++;
    if (c == ')') {
      if (k + 1 != v->rank) return fail(sc, sc->line, key, "%d subscripts given, it has %d", k + 1, v->rank);
      return UM_SUCCESS;
    }
  }
}

/* Whether the values of an assignment end here: the group's end (/, &END, $END), the next assignment, the file's end. */
static int values_end(const scan *sc) {
  if (sc->s >= sc->end) return 1;
  const char c = *sc->s;
  return c == '/' || c == '&' || c == '$' || at_assignment(sc);
}

/* Read one value token at sc->s (no separator): a quoted string, or a run of characters up to a separator; *star:
 * where an unquoted token's repeat count `r*` ends (-1: none), r*'string' included. */
static int value_token(scan *sc, char *tok, size_t n, int *quoted, int *star, int line, const char *key) {
  size_t k = 0;
  *quoted = 0, *star = -1;
  if (*sc->s != '\'' && *sc->s != '"') {
    while (sc->s < sc->end && !isspace((unsigned char)*sc->s) && *sc->s != ',' && *sc->s != '/' && *sc->s != '!') {
      if (k + 1 >= n) return fail(sc, line, key, "value too long");
      if (*sc->s == '*' && *star < 0) *star = (int)k;
      tok[k++] = *sc->s++;
      if (*star >= 0 && (size_t)*star + 1 == k && sc->s < sc->end && (*sc->s == '\'' || *sc->s == '"')) break;
    }
    tok[k] = 0;
    if (sc->s >= sc->end || (*sc->s != '\'' && *sc->s != '"')) return UM_SUCCESS;
  }
  const char q = *sc->s++; /* a quoted string, or r*'string' */
  *quoted = 1;
  for (;;) {
    if (sc->s >= sc->end || *sc->s == '\n') return fail(sc, line, key, "unterminated string");
    if (*sc->s == q) {
      if (sc->s + 1 < sc->end && sc->s[1] == q)
        sc->s++; /* '' inside a string */
      else {
        sc->s++;
        break;
      }
    }
    if (k + 1 < n) tok[k++] = *sc->s;
    sc->s++;
  }
  tok[k] = 0;
  return UM_SUCCESS;
}

static int store(scan *sc, bl_deck *d, const var *v, const char *key, size_t flat, const char *val, int quoted,
                 int line) {
  char *base = (char *)d + v->off + flat * elem_size(v->type);
  switch (v->type) {
  case T_REAL: {
    const int bad = quoted ? -1 : parse_real(val, (double *)base);
    if (bad == -2) return fail(sc, line, key, "'%s' is not a finite number", val);
    if (bad) return fail(sc, line, key, "expected a number, got '%s'", val);
    break;
  }
  case T_INT:
    if (quoted || parse_int(val, (int *)base)) return fail(sc, line, key, "expected an integer, got '%s'", val);
    break;
  case T_LOG:
    if (quoted || parse_log(val, (int *)base))
      return fail(sc, line, key, "expected a logical (.TRUE. or .FALSE.), got '%s'", val);
    break;
  case T_STR:
    if (strlen(val) >= BL_SLEN) return fail(sc, line, key, "string '%s' longer than %d characters", val, BL_SLEN - 1);
    strcpy(base, val);
    break;
  }
  return UM_SUCCESS;
}

/* The next element of a section, in column-major order. */
typedef struct {
  section sec;
  int cnt[3], done;
} cursor;

/* Store one value in the cursor's element and move on. val NULL: a null value (`a,,b`, `2*`): the element keeps its
 * value and counts as not set; past the section's end it is ignored, as gfortran ignores trailing nulls. */
static int put(scan *sc, bl_deck *d, int vi, const char *key, cursor *c, const char *val, int quoted, int line) {
  const var *v = &vars[vi];
  if (c->done) return val ? fail(sc, line, key, "more values than the section has elements") : UM_SUCCESS;
  int idx[3], k = 0;
  for (int j = 0; j < 3; j++) idx[j] = c->sec.lo[j] + c->cnt[j] * c->sec.st[j];
  for (; k < 3 && ++c->cnt[k] == c->sec.n[k]; k++) c->cnt[k] = 0;
  c->done = k == 3;
  if (!val) return UM_SUCCESS;
  const size_t flat =
      (size_t)(idx[0] - 1) + (size_t)v->ext[0] * ((size_t)(idx[1] - 1) + (size_t)v->ext[1] * (size_t)(idx[2] - 1));
  const size_t nel = (size_t)v->ext[0] * (size_t)v->ext[1] * (size_t)v->ext[2];
  if (!sc->seen[vi] && !(sc->seen[vi] = calloc(nel, sizeof(int)))) return fail(sc, line, key, "out of memory");
  if (sc->seen[vi][flat]) { /* the YAML configs refuse duplicates too: the last one must not win silently */
    if (v->rank == 0)
      return fail(sc, line, key, "set twice in the deck (also at line %d); keep one", sc->seen[vi][flat]);
    return fail(sc, line, key, "element (%d,%d,%d) set twice in the deck (also at line %d); keep one", idx[0], idx[1],
                idx[2], sc->seen[vi][flat]);
  }
  sc->seen[vi][flat] = line;
  const int ed = entry_dim(v);
  if (ed >= 0) d->entry_lines[vi][idx[ed] - 1] = line;
  return store(sc, d, v, key, flat, val, quoted, line);
}

/* The values of one assignment into its section: separated by commas or blanks; a comma after a separator (or first)
 * is a null value, `r*` r of them; none at all (`key = /`) sets nothing. *nset: how many values were not null. */
static int read_values(scan *sc, bl_deck *d, int vi, const char *key, const section *sec, int *nset) {
  cursor c = {*sec, {0, 0, 0}, 0};
  int after_value = 0; /* a comma right after a value only separates it from the next */
  char tok[256];
  for (;;) {
    skip(sc, 0);
    if (values_end(sc)) return UM_SUCCESS;
    const int line = sc->line;
    int rc = UM_SUCCESS;
    if (*sc->s == ',') {
      sc->s++;
      if (!after_value) rc = put(sc, d, vi, key, &c, NULL, 0, line);
      after_value = 0;
      if (rc) return rc;
      continue;
    }
    int quoted, star, repeat = 1;
    rc = value_token(sc, tok, sizeof tok, &quoted, &star, line, key);
    if (rc) return rc;
    after_value = 1;
    const char *val = tok;
    if (star >= 0) {
      tok[star] = 0;
      if (parse_int(tok, &repeat) || repeat < 1) return fail(sc, line, key, "bad repeat count '%s'", tok);
      val = tok + star + 1;
    }
    const int null = star >= 0 && !quoted && !*val; /* r*: r null values */
    for (int r = 0; r < repeat && !(null && c.done); r++)
      if ((rc = put(sc, d, vi, key, &c, null ? NULL : val, quoted, line))) return rc;
    *nset += !null;
  }
}

static int assignment(scan *sc, bl_deck *d, const char *group) {
  char key[64];
  const int line = sc->line;
  if (!ident(sc, key, sizeof key)) {
    char c = *sc->s;
    return fail(sc, line, NULL, "&%s: expected an entry name, found '%c'", group, c);
  }
  int vi = -1;
  for (int v = 0; v < NVARS; v++)
    if (strcmp(vars[v].group, group) == 0 && strcmp(vars[v].name, key) == 0) vi = v;
  if (vi < 0) {
    for (int v = 0; v < NVARS; v++)
      if (strcmp(vars[v].name, key) == 0)
        return fail(sc, line, key, "unknown key in namelist &%s (it belongs to &%s)", group, vars[v].group);
    return fail(sc, line, key, "unknown key in namelist &%s", group);
  }
  section sec;
  int rc = parse_section(sc, &vars[vi], key, &sec), nset = 0;
  if (rc) return rc;
  skip(sc, 0);
  if (sc->s >= sc->end || *sc->s != '=') return fail(sc, sc->line, key, "expected '=' after the name");
  sc->s++;
  rc = read_values(sc, d, vi, key, &sec, &nset);
  if (!rc && nset) d->lines[vi] = line; /* the line error messages name: the last that set something */
  return rc;
}

/* A line outside the groups, which gfortran skips (a title, a note): refused where it holds '=', '&' or '$' before
 * any '!' comment, as an entry outside its group or a group's header would be skipped silently. */
static int text_line(scan *sc) {
  const char *eol = memchr(sc->s, '\n', (size_t)(sc->end - sc->s));
  if (!eol) eol = sc->end;
  for (const char *p = sc->s; p < eol && *p != '!'; p++)
    if (*p == '=' || *p == '&' || *p == '$')
      return fail(sc, sc->line, NULL,
                  "'%.*s' is outside the namelist groups: a title or note line is skipped, but not one with '%c' (an "
                  "entry outside its group? a group opens with &NAME and ends with /)",
                  (int)(eol - sc->s > 60 ? 60 : eol - sc->s), sc->s, *p);
  sc->s = eol;
  return UM_SUCCESS;
}

/* One group, from its &NAME (or $NAME) to its / (or &END, $END). */
static int group(scan *sc, bl_deck *d) {
  const char open = *sc->s++;
  char g[64];
  const int gline = sc->line;
  if (!ident(sc, g, sizeof g)) return fail(sc, gline, NULL, "expected a namelist name after '%c'", open);
  for (char *p = g; *p; p++) *p = (char)toupper((unsigned char)*p);
  size_t gi = 0;
  while (gi < sizeof groups / sizeof groups[0] && strcmp(groups[gi], g)) gi++;
  if (gi == sizeof groups / sizeof groups[0])
    return fail(sc, gline, NULL,
                "unknown namelist &%s (BookLeaf reads &CONTROL, &EOS, &CUTOFF, &MESH, &INDICATORS, "
                "&INITIAL_CONDITIONS, &SHAPES, &ALE)",
                g);
  if (sc->group_line[gi])
    return fail(sc, gline, NULL, "namelist &%s appears twice (first at line %d); merge them into one", g,
                sc->group_line[gi]);
  sc->group_line[gi] = gline;
  for (;;) {
    skip(sc, 1);
    if (sc->s >= sc->end) return fail(sc, gline, NULL, "namelist &%s is not closed by '/'", g);
    if (*sc->s == '/') {
      sc->s++;
      return UM_SUCCESS;
    }
    if (*sc->s == '&' || *sc->s == '$') { /* &END, $END */
      const char *save = sc->s;
      char e[8];
      sc->s++;
      if (ident(sc, e, sizeof e) && strcmp(e, "end") == 0) return UM_SUCCESS;
      sc->s = save;
      return fail(sc, sc->line, NULL, "namelist &%s is not closed by '/' before the next '%c'", g, *save);
    }
    int rc = assignment(sc, d, g);
    if (rc) return rc;
  }
}

int bl_deck_parse(bl_deck *d, const char *text, size_t len, const char *name, char *err, size_t errlen) {
  scan sc = {text, text + len, name, 1, err, errlen, {NULL}, {0}};
  snprintf(d->file, sizeof d->file, "%s", name);
  int rc = len && memchr(text, 0, len)
               ? um_format_error(err, errlen, UM_ERR_CONFIG, "%s: not a text file (a NUL byte)", name)
               : UM_SUCCESS;
  for (skip(&sc, 0); !rc && sc.s < sc.end; skip(&sc, 0))
    rc = *sc.s == '&' || *sc.s == '$' ? group(&sc, d) : text_line(&sc);
  for (int v = 0; v < NVARS; v++) free(sc.seen[v]);
  return rc;
}

int bl_deck_read(bl_deck *d, const char *path, char *err, size_t errlen) {
  bl_deck_default(d);
  char why[512];
  FILE *f = um_read_open(path, 0, NULL, why, sizeof why); /* a regular file: a FIFO never hangs */
  if (!f) return um_format_error(err, errlen, UM_ERR_IO, "cannot open the deck %s: %s", path, why);
  char *buf = malloc(DECK_MAX_BYTES + 1);
  if (!buf) {
    fclose(f);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory reading %s", path);
  }
  size_t n = fread(buf, 1, DECK_MAX_BYTES + 1, f);
  const int bad = ferror(f);
  fclose(f);
  int rc;
  if (bad) rc = um_format_error(err, errlen, UM_ERR_IO, "error reading the deck %s", path);
  else if (n > DECK_MAX_BYTES)
    rc = um_format_error(err, errlen, UM_ERR_CONFIG, "%s: larger than %d bytes; not a BookLeaf deck", path,
                         DECK_MAX_BYTES);
  else rc = bl_deck_parse(d, buf, n, path, err, errlen);
  free(buf);
  return rc;
}

int bl_deck_check_values(const bl_deck *d, const char *file, char *err, size_t errlen) {
  const struct {
    const char *key;
    double v;
    int strict; /* > 0: cfl_sf and the dts, where 0 would make every dt 0 */
  } pos[] = {{"cvisc1", d->cvisc1, 0},
             {"cvisc2", d->cvisc2, 0},
             {"cfl_sf", d->cfl_sf, 1},
             {"div_sf", d->div_sf, 0},
             {"dt_initial", d->dt_initial, 1},
             {"dt_max", d->dt_max, 1},
             {"dt_g", d->dt_g, 1},
             {"ccut", d->ccut, 0},
             {"zcut", d->zcut, 0},
             {"zerocut", d->zerocut, 0},
             {"pcut", d->pcut, 0},
             {"dencut", d->dencut, 0},
             {"accut", d->accut, 0}}; /* the cut-offs: upstream's rationalise refuses them < 0 */
  for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
    if (!(pos[i].v >= 0.0) || (pos[i].strict && !(pos[i].v > 0.0)))
      return snprintf(err, errlen, "%s:%d: %s = %g: must be %s (after the params.* overrides)", file,
                      bl_deck_line(d, pos[i].key), pos[i].key, pos[i].v, pos[i].strict ? "> 0" : ">= 0"),
             UM_ERR_CONFIG;
  const int over_max = d->dt_min > d->dt_max;
  const char *k = over_max ? "dt_max" : "dt_initial";
  if (over_max || d->dt_min > d->dt_initial) /* the first step would stop the run: dt < dt_min */
    return snprintf(err, errlen,
                    "%s:%d: dt_min = %g is above %s = %g (line %d): no step could be taken (after the "
                    "params.* overrides)",
                    file, bl_deck_line(d, "dt_min"), d->dt_min, k, over_max ? d->dt_max : d->dt_initial,
                    bl_deck_line(d, k)),
           UM_ERR_CONFIG;
  return UM_SUCCESS;
}
