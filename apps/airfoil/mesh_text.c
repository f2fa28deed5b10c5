/*
 * mesh_text.c -- OP2 new_grid.dat text format for the Airfoil mesh (see naca0012.h).
 *
 * The reader is line oriented and strict: one record per line, exactly the
 * expected number of fields, integers and finite numbers only, every index in
 * range, nothing but blank lines after the last record.  Any problem is
 * reported as "<file>:<line>: <what was wrong>" and the mesh is left empty.
 * Numbers are parsed with strtol/strtod, i.e. in the "C" locale unless the
 * program has changed LC_NUMERIC.
 */
#include "naca0012.h"
#include "um/um.h"
#include "checked.h"
#include "um/safe_file.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------------------
 * line reader: whole lines of any length, NUL-terminated, '\n' stripped
 * ------------------------------------------------------------------------- */
typedef struct {
  FILE *fp;
  char *buf;
  size_t cap, len, pos; /* buffer holds [pos, len) not yet returned */
  int eof, ioerr;
  long line;            /* number of the line last returned (1-based) */
  size_t linelen;       /* its length in bytes */
} line_reader;

/* Returns the next line, or NULL at end of file (or on a read error / out of
 * memory: check ioerr). */
static char *next_line(line_reader *r) {
  for (;;) {
    char *start = r->buf != NULL ? r->buf + r->pos : NULL;
    char *nl = r->len > r->pos ? memchr(start, '\n', r->len - r->pos) : NULL;
    if (nl != NULL) {
      *nl = '\0';
      r->linelen = (size_t)(nl - start);
      r->pos = (size_t)(nl - r->buf) + 1;
      r->line++;
      return start;
    }
    if (r->eof) {
      if (r->pos < r->len) { /* last line without '\n'; there is room for the NUL */
        r->buf[r->len] = '\0';
        r->linelen = r->len - r->pos;
        r->pos = r->len;
        r->line++;
        return start;
      }
      return NULL;
    }
    /* compact, grow if full (keep one byte for a final NUL), read more */
    if (r->pos > 0) {
      memmove(r->buf, r->buf + r->pos, r->len - r->pos);
      r->len -= r->pos;
      r->pos = 0;
    }
    if (r->cap - r->len < 2) {
      size_t ncap = r->cap ? 2 * r->cap : (size_t)1 << 20;
      char *nb = realloc(r->buf, ncap);
      if (nb == NULL) {
        r->ioerr = ENOMEM;
        return NULL;
      }
      r->buf = nb;
      r->cap = ncap;
    }
    size_t got = fread(r->buf + r->len, 1, r->cap - r->len - 1, r->fp);
    r->len += got;
    if (got == 0) {
      if (ferror(r->fp)) {
        r->ioerr = errno ? errno : EIO;
        return NULL;
      }
      r->eof = 1;
    }
  }
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Split a line into at most maxtok tokens.  Returns the number of tokens on the
 * line, counting at most maxtok + 1 (so "too many" is detectable). */
static int split_tokens(char *s, char **tok, int maxtok) {
  int n = 0;
  for (;;) {
    while (is_space(*s)) s++;
    if (*s == '\0') return n;
    if (n == maxtok) return n + 1;
    tok[n++] = s;
    while (*s != '\0' && !is_space(*s)) s++;
    if (*s != '\0') *s++ = '\0';
  }
}

static int parse_int(const char *t, int *out) {
  char *end;
  errno = 0;
  long v = strtol(t, &end, 10);
  if (end == t || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) return -1;
  *out = (int)v;
  return 0;
}

static int parse_double(const char *t, double *out) {
  char *end;
  double v = strtod(t, &end);
  if (end == t || *end != '\0' || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

typedef struct {
  const char *path;
  unsigned long long file_bytes; /* the file's size, to bound the header's counts */
  line_reader rd;
  char *err;
  size_t errlen;
} reader_ctx;

/* Fetch the line holding record `what` number k (0-based) of n, split into
 * exactly nfields tokens.  Reports and returns -1 on any problem. */
static int get_record(reader_ctx *cx, const char *what, int k, int n, int nfields,
                      const char *layout, char **tok) {
  char *line = next_line(&cx->rd);
  if (line == NULL) {
    if (cx->rd.ioerr)
      um_format_error(cx->err, cx->errlen, 0, "%s:%ld: read error: %s", cx->path, cx->rd.line + 1,
              strerror(cx->rd.ioerr));
    else
      um_format_error(cx->err, cx->errlen, 0,
              "%s:%ld: unexpected end of file: expected %d %s records, found only %d "
              "(file truncated?)", cx->path, cx->rd.line + 1, n, what, k);
    return -1;
  }
  if (strlen(line) != cx->rd.linelen) {
    um_format_error(cx->err, cx->errlen, 0, "%s:%ld: line contains a NUL byte (not a text mesh file?)",
            cx->path, cx->rd.line);
    return -1;
  }
  int nt = split_tokens(line, tok, nfields);
  if (nt != nfields) {
    um_format_error(cx->err, cx->errlen, 0, "%s:%ld: %s %d of %d: expected %d fields '%s', found %s%d",
            cx->path, cx->rd.line, what, k, n, nfields, layout, nt > nfields ? "more than " : "",
            nt > nfields ? nfields : nt);
    return -1;
  }
  return 0;
}

static int get_ints(reader_ctx *cx, const char *what, int k, int n, int nfields,
                    const char *layout, int *out) {
  char *tok[8];
  if (get_record(cx, what, k, n, nfields, layout, tok) != 0) return -1;
  for (int f = 0; f < nfields; f++)
    if (parse_int(tok[f], &out[f]) != 0) {
      um_format_error(cx->err, cx->errlen, 0, "%s:%ld: %s %d: field %d '%.40s' is not an integer (of int range)",
              cx->path, cx->rd.line, what, k, f + 1, tok[f]);
      return -1;
    }
  return 0;
}

static int check_index(reader_ctx *cx, const char *what, int k, int field, const char *target,
                       int v, int limit) {
  if (v >= 0 && v < limit) return 0;
  um_format_error(cx->err, cx->errlen, 0, "%s:%ld: %s %d: field %d: %s index %d out of range [0, %d)",
          cx->path, cx->rd.line, what, k, field, target, v, limit);
  return -1;
}

static void *alloc_array(size_t count, size_t size) {
  size_t bytes;
  if (count == 0) count = 1;
  if (um_size_mul(count, size, &bytes)) return NULL;
  return malloc(bytes);
}

static int read_body(reader_ctx *cx, airfoil_mesh *m) {
  int v[4];
  if (get_ints(cx, "header", 0, 1, 4, "nnode ncell nedge nbedge", v) != 0) return -1;
  const char *names[4] = {"nnode", "ncell", "nedge", "nbedge"};
  for (int f = 0; f < 4; f++)
    if (v[f] < (f < 2 ? 1 : 0)) {
      um_format_error(cx->err, cx->errlen, 0, "%s:%ld: header: %s = %d is invalid (must be >= %d)", cx->path,
              cx->rd.line, names[f], v[f], f < 2 ? 1 : 0);
      return -1;
    }
  /* The counts decide the allocations, so they are checked against the file
   * before anything is allocated: every record takes at least 4 bytes (a node,
   * "x y\n") or 8 bytes (a cell, edge or boundary edge, "a b c d\n"). */
  const unsigned long long minbytes[4] = {4, 8, 8, 8};
  unsigned long long need = 0;
  for (int f = 0; f < 4; f++) {
    if ((unsigned long long)v[f] * minbytes[f] > cx->file_bytes) {
      um_format_error(cx->err, cx->errlen, 0,
                      "%s:%ld: header: %s = %d is implausible: %d records need at least %llu bytes but the file has "
                      "%llu (wrong header, or a truncated file?)",
                      cx->path, cx->rd.line, names[f], v[f], v[f], (unsigned long long)v[f] * minbytes[f],
                      cx->file_bytes);
      return -1;
    }
    need += (unsigned long long)v[f] * minbytes[f];
  }
  if (need > cx->file_bytes) {
    um_format_error(cx->err, cx->errlen, 0,
                    "%s:%ld: header: nnode %d, ncell %d, nedge %d, nbedge %d need at least %llu bytes of records but "
                    "the file has %llu (wrong header, or a truncated file?)",
                    cx->path, cx->rd.line, v[0], v[1], v[2], v[3], need, cx->file_bytes);
    return -1;
  }
  m->nnode = v[0];
  m->ncell = v[1];
  m->nedge = v[2];
  m->nbedge = v[3];
  m->x = alloc_array(2 * (size_t)m->nnode, sizeof(double));
  m->cell = alloc_array(4 * (size_t)m->ncell, sizeof(int));
  m->edge = alloc_array(2 * (size_t)m->nedge, sizeof(int));
  m->ecell = alloc_array(2 * (size_t)m->nedge, sizeof(int));
  m->bedge = alloc_array(2 * (size_t)m->nbedge, sizeof(int));
  m->becell = alloc_array((size_t)m->nbedge, sizeof(int));
  m->bound = alloc_array((size_t)m->nbedge, sizeof(int));
  if (!m->x || !m->cell || !m->edge || !m->ecell || !m->bedge || !m->becell || !m->bound) {
    um_format_error(cx->err, cx->errlen, 0, "%s:1: out of memory for %d nodes, %d cells, %d edges, %d bedges",
            cx->path, m->nnode, m->ncell, m->nedge, m->nbedge);
    return -1;
  }

  for (int k = 0; k < m->nnode; k++) {
    char *tok[2];
    if (get_record(cx, "node", k, m->nnode, 2, "x y", tok) != 0) return -1;
    for (int f = 0; f < 2; f++)
      if (parse_double(tok[f], &m->x[2 * (size_t)k + f]) != 0) {
        um_format_error(cx->err, cx->errlen, 0, "%s:%ld: node %d: coordinate %d '%.40s' is not a finite number",
                cx->path, cx->rd.line, k, f + 1, tok[f]);
        return -1;
      }
  }
  for (int k = 0; k < m->ncell; k++) {
    int *c = m->cell + 4 * (size_t)k;
    if (get_ints(cx, "cell", k, m->ncell, 4, "n0 n1 n2 n3", c) != 0) return -1;
    for (int f = 0; f < 4; f++)
      if (check_index(cx, "cell", k, f + 1, "node", c[f], m->nnode) != 0) return -1;
  }
  for (int k = 0; k < m->nedge; k++) {
    if (get_ints(cx, "edge", k, m->nedge, 4, "n0 n1 c0 c1", v) != 0) return -1;
    for (int f = 0; f < 2; f++)
      if (check_index(cx, "edge", k, f + 1, "node", v[f], m->nnode) != 0) return -1;
    for (int f = 2; f < 4; f++)
      if (check_index(cx, "edge", k, f + 1, "cell", v[f], m->ncell) != 0) return -1;
    m->edge[2 * (size_t)k] = v[0];
    m->edge[2 * (size_t)k + 1] = v[1];
    m->ecell[2 * (size_t)k] = v[2];
    m->ecell[2 * (size_t)k + 1] = v[3];
  }
  for (int k = 0; k < m->nbedge; k++) {
    if (get_ints(cx, "bedge", k, m->nbedge, 4, "n0 n1 cell bound", v) != 0) return -1;
    for (int f = 0; f < 2; f++)
      if (check_index(cx, "bedge", k, f + 1, "node", v[f], m->nnode) != 0) return -1;
    if (check_index(cx, "bedge", k, 3, "cell", v[2], m->ncell) != 0) return -1;
    m->bedge[2 * (size_t)k] = v[0];
    m->bedge[2 * (size_t)k + 1] = v[1];
    if (v[3] != 1 && v[3] != 2) {
      um_format_error(cx->err, cx->errlen, 0,
                      "%s:%ld: bedge %d: field 4: boundary code %d is neither 1 (wall) nor 2 (far field)", cx->path,
                      cx->rd.line, k, v[3]);
      return -1;
    }
    m->becell[k] = v[2];
    m->bound[k] = v[3];
  }
  /* only blank lines may follow */
  char *line;
  while ((line = next_line(&cx->rd)) != NULL) {
    char *s = line;
    while (is_space(*s)) s++;
    if (*s != '\0' || strlen(line) != cx->rd.linelen) {
      um_format_error(cx->err, cx->errlen, 0,
              "%s:%ld: unexpected data after the last of the %d boundary edges "
              "(wrong counts in the header?)", cx->path, cx->rd.line, m->nbedge);
      return -1;
    }
  }
  if (cx->rd.ioerr) {
    um_format_error(cx->err, cx->errlen, 0, "%s:%ld: read error: %s", cx->path, cx->rd.line + 1,
            strerror(cx->rd.ioerr));
    return -1;
  }
  return 0;
}

int airfoil_mesh_read_text(const char *path, airfoil_mesh *m, char *err, size_t errlen) {
  if (m == NULL || path == NULL) {
    um_format_error(err, errlen, 0, "airfoil_mesh_read_text: %s is NULL", m == NULL ? "mesh" : "path");
    return 1;
  }
  memset(m, 0, sizeof *m);
  char why[512];
  FILE *fp = um_read_open(path, 0, NULL, why, sizeof why); /* a regular file: a FIFO never hangs */
  if (fp == NULL) {
    um_format_error(err, errlen, 0, "%s: cannot open mesh file: %s", path, why);
    return 1;
  }
  reader_ctx cx;
  memset(&cx, 0, sizeof cx);
  cx.path = path;
  struct stat st;
  if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
    um_format_error(err, errlen, 0, "%s: not a regular file (a text mesh file is expected)", path);
    fclose(fp);
    return 1;
  }
  cx.file_bytes = (unsigned long long)st.st_size;
  cx.rd.fp = fp;
  cx.err = err;
  cx.errlen = errlen;
  int rc = read_body(&cx, m);
  free(cx.rd.buf);
  fclose(fp);
  if (rc != 0) {
    airfoil_mesh_free(m);
    return 1;
  }
  return 0;
}

/* ---------------------------------------------------------------------------
 * writer: the same layout and number formats as upstream's naca0012.m
 * ------------------------------------------------------------------------- */
int airfoil_mesh_write_text(const char *path, const airfoil_mesh *m, char *err, size_t errlen) {
  if (m == NULL || path == NULL) {
    um_format_error(err, errlen, 0, "airfoil_mesh_write_text: %s is NULL", m == NULL ? "mesh" : "path");
    return 1;
  }
  if (m->nnode < 0 || m->ncell < 0 || m->nedge < 0 || m->nbedge < 0 ||
      (m->nnode > 0 && !m->x) || (m->ncell > 0 && !m->cell) ||
      (m->nedge > 0 && (!m->edge || !m->ecell)) ||
      (m->nbedge > 0 && (!m->bedge || !m->becell || !m->bound))) {
    um_format_error(err, errlen, 0, "%s: not written: the mesh is inconsistent (negative count or missing array)",
            path);
    return 1;
  }
  um_safe_file sf; /* a temporary beside path, renamed into place when complete */
  char why[1200];
  if (um_safe_open(&sf, path, why, sizeof why) != 0) {
    um_format_error(err, errlen, 0, "%s", why);
    return 1;
  }
  FILE *fp = sf.f;
  char *iobuf = malloc((size_t)1 << 20);
  if (iobuf) setvbuf(fp, iobuf, _IOFBF, (size_t)1 << 20);
  int bad = fprintf(fp, " %d %d %d %d \n", m->nnode, m->ncell, m->nedge, m->nbedge) < 0;
  for (int n = 0; n < m->nnode && !bad; n++)
    bad = fprintf(fp, " %f %f \n", m->x[2 * (size_t)n], m->x[2 * (size_t)n + 1]) < 0;
  for (int n = 0; n < m->ncell && !bad; n++) {
    const int *c = m->cell + 4 * (size_t)n;
    bad = fprintf(fp, " %d %d %d %d \n", c[0], c[1], c[2], c[3]) < 0;
  }
  for (int n = 0; n < m->nedge && !bad; n++)
    bad = fprintf(fp, " %d %d %d %d \n", m->edge[2 * (size_t)n], m->edge[2 * (size_t)n + 1],
                  m->ecell[2 * (size_t)n], m->ecell[2 * (size_t)n + 1]) < 0;
  for (int n = 0; n < m->nbedge && !bad; n++)
    bad = fprintf(fp, " %d %d %d %d \n", m->bedge[2 * (size_t)n], m->bedge[2 * (size_t)n + 1],
                  m->becell[n], m->bound[n]) < 0;
  if (bad) {
    int saved = errno;
    um_safe_abort(&sf);
    free(iobuf);
    um_format_error(err, errlen, 0, "%s: error writing mesh file: %s (%s)", path, strerror(saved), um_safe_why(saved));
    return 1;
  }
  bad = um_safe_commit(&sf, why, sizeof why);
  free(iobuf);
  if (bad) {
    um_format_error(err, errlen, 0, "%s", why);
    return 1;
  }
  return 0;
}
