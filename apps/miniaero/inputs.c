/* miniAero's inputs: upstream's miniaero.inp deck (nine entries separated by
 * white space) and the checks every input source goes through. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "miniaero.h"
#include "um/um.h"
#include "um/safe_file.h"

#define MA_INP_MAX_BYTES (1 << 20) /* a deck is a few lines; refuse anything huge */
#define MA_MIN_WIDTH 1e-30          /* a cell's width: its volume (width^3) and areas stay far from underflow */
#define MA_MAX_WIDTH 1e30           /* ... and from overflow */

void ma_inputs_default(ma_inputs *in) {
  memset(in, 0, sizeof *in);
  in->problem = MA_SOD;
  in->lx = in->ly = in->lz = 1.0;
  in->nx = in->ny = in->nz = 10;
  in->steps = 1;
  in->dt = 5e-8;
  in->output_results = 0;
  in->output_frequency = 10;
}

const char *ma_problem_name(int problem) {
  static const char *const names[] = {"sod", "flat_plate", "ramp"};
  return problem >= 0 && problem < 3 ? names[problem] : "unknown";
}

const char *ma_bc_name(int kind) {
  static const char *const names[] = {"extrapolate", "tangent", "inflow", "noslip"};
  return kind >= 0 && kind < MA_NBC ? names[kind] : "unknown";
}

/* the entries of a deck, in order */
typedef enum { E_INT, E_DOUBLE } entry_type;
typedef struct {
  const char *name;
  entry_type type;
  size_t offset;
  int line; /* upstream's layout: which line of the deck the entry sits on */
  int flag; /* 1: a switch upstream reads as 0 or 1 */
} entry;

static const entry entries[] = {
    {"problem_type", E_INT, offsetof(ma_inputs, problem), 1, 0},
    {"lx", E_DOUBLE, offsetof(ma_inputs, lx), 2, 0},
    {"ly", E_DOUBLE, offsetof(ma_inputs, ly), 2, 0},
    {"lz", E_DOUBLE, offsetof(ma_inputs, lz), 2, 0},
    {"ramp_angle", E_DOUBLE, offsetof(ma_inputs, angle), 2, 0},
    {"nx", E_INT, offsetof(ma_inputs, nx), 3, 0},
    {"ny", E_INT, offsetof(ma_inputs, ny), 3, 0},
    {"nz", E_INT, offsetof(ma_inputs, nz), 3, 0},
    {"ntimesteps", E_INT, offsetof(ma_inputs, steps), 4, 0},
    {"dt", E_DOUBLE, offsetof(ma_inputs, dt), 5, 0},
    {"output_results", E_INT, offsetof(ma_inputs, output_results), 6, 1},
    {"output_frequency", E_INT, offsetof(ma_inputs, output_frequency), 7, 0},
    {"second_order_space", E_INT, offsetof(ma_inputs, second_order), 8, 1},
    {"viscous", E_INT, offsetof(ma_inputs, viscous), 9, 1},
};
#define NENTRIES ((int)(sizeof entries / sizeof entries[0]))

static const char *layout_hint =
    "a miniaero.inp holds, separated by white space: problem_type (0 Sod, 1 flat plate, 2 ramp) / lx ly lz "
    "ramp_angle / nx ny nz / ntimesteps / dt / output_results / output_frequency / second_order_space (0|1) / "
    "viscous (0|1)";

int ma_inputs_parse(const char *text, const char *origin, ma_inputs *in, char *err, size_t errlen) {
  ma_inputs_default(in);
  const char *p = text;
  int line = 1;
  for (int e = 0; e < NENTRIES; e++) {
    while (*p && isspace((unsigned char)*p)) line += *p++ == '\n';
    const entry *E = &entries[e];
    if (!*p)
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                             "%s:%d: the deck ends before entry %d (%s); it has %d of the %d entries. %s", origin,
                             line, e + 1, E->name, e, NENTRIES, layout_hint);
    const char *start = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    char tok[64];
    const size_t len = (size_t)(p - start);
    snprintf(tok, sizeof tok, "%.*s", (int)(len < sizeof tok - 1 ? len : sizeof tok - 1), start);
    char *end = NULL;
    errno = 0;
    void *dst = (char *)in + E->offset;
    if (E->type == E_INT) {
      const long v = strtol(tok, &end, 10);
      if (len >= sizeof tok - 1 || end == tok || *end || errno || v < INT_MIN || v > INT_MAX)
        return um_format_error(err, errlen, UM_ERR_CONFIG, "%s:%d: entry %d (%s): expected an integer, got '%s'. %s",
                               origin, line, e + 1, E->name, tok, layout_hint);
      if (E->flag && v != 0 && v != 1)
        return um_format_error(err, errlen, UM_ERR_CONFIG, "%s:%d: entry %d (%s): %ld is not a switch: use 0 (off) or "
                               "1 (on). %s", origin, line, e + 1, E->name, v, layout_hint);
      *(int *)dst = (int)v;
    } else {
      const double v = strtod(tok, &end);
      if (len >= sizeof tok - 1 || end == tok || *end || errno == ERANGE || !isfinite(v))
        return um_format_error(err, errlen, UM_ERR_CONFIG, "%s:%d: entry %d (%s): expected a number, got '%s'. %s",
                               origin, line, e + 1, E->name, tok, layout_hint);
      *(double *)dst = v;
    }
  }
  return ma_inputs_check(in, origin, err, errlen);
}

int ma_inputs_read(const char *path, ma_inputs *in, char *err, size_t errlen) {
  char why[512];
  FILE *f = um_read_open(path, 0, NULL, why, sizeof why); /* a regular file: a FIFO never hangs */
  if (!f) return um_format_error(err, errlen, UM_ERR_IO, "cannot open the miniAero deck %s: %s", path, why);
  char *buf = malloc(MA_INP_MAX_BYTES + 1);
  if (!buf) {
    fclose(f);
    return um_format_error(err, errlen, UM_ERR_ALLOC, "out of memory reading %s", path);
  }
  const size_t n = fread(buf, 1, MA_INP_MAX_BYTES + 1, f);
  const int rerr = ferror(f);
  fclose(f);
  int rc;
  if (rerr) rc = um_format_error(err, errlen, UM_ERR_IO, "error reading the miniAero deck %s", path);
  else if (n > MA_INP_MAX_BYTES)
    rc = um_format_error(err, errlen, UM_ERR_CONFIG,
                         "%s is over %d bytes: not a miniaero.inp deck (nine numbers on nine lines)", path,
                         MA_INP_MAX_BYTES);
  else if (memchr(buf, 0, n))
    rc = um_format_error(err, errlen, UM_ERR_CONFIG, "%s holds a NUL byte: not a text deck", path);
  else {
    buf[n] = 0;
    rc = ma_inputs_parse(buf, path, in, err, errlen);
  }
  free(buf);
  return rc;
}

int ma_inputs_check(const ma_inputs *in, const char *where, char *err, size_t errlen) {
  if (in->problem < 0 || in->problem > 2)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                           "%s: problem type %d is unknown; miniAero has 0 (Sod shock tube), 1 (viscous flat plate), "
                           "2 (inviscid ramp)",
                           where, in->problem);
  if (in->nx < 1 || in->ny < 1 || in->nz < 1)
    return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: cells per direction %d x %d x %d: each must be >= 1", where,
                           in->nx, in->ny, in->nz);
  /* nx * ny fits a long long; compare with the bound over nz, so no product of three ints can overflow */
  if ((long long)in->nx * in->ny > (INT_MAX / 6) / in->nz)
    return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: %d x %d x %d cells is more than this build handles (%d)",
                           where, in->nx, in->ny, in->nz, INT_MAX / 6);
  if (!(in->lx > 0) || !(in->ly > 0) || !(in->lz > 0) || !isfinite(in->lx + in->ly + in->lz))
    return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: domain lengths %g x %g x %g: each must be > 0", where,
                           in->lx, in->ly, in->lz);
  /* a cell's volume, its faces' areas and their quotients must stay normal doubles: tiny cells underflow to a zero
   * volume (NaN after the first step), huge ones overflow */
  const double width[3] = {in->lx / in->nx, in->ly / in->ny, in->lz / in->nz};
  for (int d = 0; d < 3; d++)
    if (!(width[d] >= MA_MIN_WIDTH && width[d] <= MA_MAX_WIDTH))
      return um_format_error(err, errlen, UM_ERR_CONFIG,
                             "%s: cells %g x %g x %g wide (domain %g x %g x %g over %d x %d x %d cells): each width "
                             "must lie in [%g, %g] so that volumes and areas stay normal doubles; use lengths in "
                             "metres and fewer cells for a small domain",
                             where, width[0], width[1], width[2], in->lx, in->ly, in->lz, in->nx, in->ny, in->nz,
                             MA_MIN_WIDTH, MA_MAX_WIDTH);
  if (!(in->angle >= 0 && in->angle < 90))
    return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: ramp angle %g degrees: must be in [0, 90)", where,
                           in->angle);
  if (in->steps < 0)
    return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: %d time steps: must be >= 0", where, in->steps);
  if (!(in->dt > 0) || !isfinite(in->dt))
    return um_format_error(err, errlen, UM_ERR_CONFIG, "%s: time step dt = %g: must be > 0", where, in->dt);
  if ((in->second_order | in->viscous | in->output_results) & ~1)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                           "%s: second_order_space %d, viscous %d, output_results %d: each is a switch, 0 or 1", where,
                           in->second_order, in->viscous, in->output_results);
  if (in->output_frequency < 1)
    return um_format_error(err, errlen, UM_ERR_CONFIG,
                           "%s: output_frequency %d: must be >= 1 (a line every that many steps)", where,
                           in->output_frequency);
  return UM_SUCCESS;
}
