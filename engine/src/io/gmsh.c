/* Gmsh ASCII format 2 reader (um/gmsh.h): nodes in double, first-order
 * triangles with their physical tag; lines and points checked and skipped. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "um/gmsh.h"
#include "um/safe_file.h"
#include "checked.h"

#define GM_MAX_BYTES ((size_t)1 << 31)
#define GM_CONVERT "export it with `-format msh22` (gmsh in.msh -format msh22 -save -o out.msh)"

void um_gmsh_free(um_gmsh_mesh *m) {
  if (!m) return;
  free(m->xy);
  free(m->node_id);
  free(m->tri);
  free(m->tri_tag);
  free(m->tri_id);
  free(m->tri_line);
  memset(m, 0, sizeof *m);
}

/* the text, one line at a time (CR LF taken as LF) */
typedef struct {
  const char *p, *end;
  int line;
} gm_reader;

static int gm_line(gm_reader *r, char *buf, size_t n) {
  if (r->p >= r->end) return 0;
  const char *q = memchr(r->p, '\n', (size_t)(r->end - r->p));
  if (!q) q = r->end;
  size_t k = (size_t)(q - r->p);
  if (k >= n) k = n - 1;
  memcpy(buf, r->p, k);
  buf[k] = 0;
  if (k && buf[k - 1] == '\r') buf[k - 1] = 0;
  r->p = q < r->end ? q + 1 : q;
  r->line++;
  return 1;
}

static const char *gm_type_name(long type) {
  switch (type) {
  case 1: return "line";
  case 2: return "triangle";
  case 3: return "quadrangle";
  case 4: return "tetrahedron";
  case 5: return "hexahedron";
  case 6: return "prism";
  case 7: return "pyramid";
  case 8: return "second-order line";
  case 9: return "second-order triangle";
  case 10: return "second-order quadrangle";
  case 11: return "second-order tetrahedron";
  case 15: return "point";
  case 16: return "8-node quadrangle";
  default: return "element";
  }
}

typedef struct {
  int id, index, line;
} gm_id;

/* by id, then file order */
static int gm_cmp_id(const void *a, const void *b) {
  const gm_id *x = a, *y = b;
  return x->id != y->id ? (x->id < y->id ? -1 : 1) : (x->index > y->index) - (x->index < y->index);
}

/* the index of the node with Gmsh id `id`, or -1 */
static int gm_find(const gm_id *ids, long n, long id) {
  long lo = 0, hi = n - 1;
  while (lo <= hi) {
    const long mid = lo + (hi - lo) / 2;
    if (ids[mid].id == id) return ids[mid].index;
    if (ids[mid].id < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* ids (n of `what` in `section`) sorted by id; an id given twice refused at its second line (the first such line in
 * the file) with the first's: 0, or -1 with why */
static int gm_unique(gm_id *ids, long n, const char *name, const char *what, const char *section, char *err,
                     size_t errlen) {
  qsort(ids, (size_t)n, sizeof *ids, gm_cmp_id);
  long at = -1;
  for (long i = 1; i < n; i++)
    if (ids[i].id == ids[i - 1].id && (at < 0 || ids[i].index < ids[at].index)) at = i;
  if (at < 0) return 0;
  return snprintf(err, errlen, "%s:%d: %s id %d appears twice in %s (first at line %d): give each %s its own id", name,
                  ids[at].line, what, ids[at].id, section, ids[at - 1].line, what),
         -1;
}

/* only blanks left */
static int gm_blank(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  return !*s;
}

/* A '$' line among the `count` lines of `section` (`kind` lines), after `done` of them: the count is wrong. */
static int gm_short(const gm_reader *r, const char *name, const char *section, long count, long done, const char *kind,
                    const char *line, char *err, size_t errlen) {
  return snprintf(err, errlen, "%s:%d: %s says %ld but '%.40s' comes after %ld %s lines: fix the count", name, r->line,
                  section, count, line, done, kind),
         -1;
}

/* After the `count` lines of `section`: its end line ($EndNodes, $EndElements) must come next. 0, or -1 with why
 * (more lines of the kind: the count is too small). */
static int gm_end(gm_reader *r, const char *name, const char *section, long count, const char *kind, char *line,
                  size_t ln, char *err, size_t errlen) {
  char end[32];
  snprintf(end, sizeof end, "$End%s", section + 1);
  const size_t k = strlen(end);
  if (!gm_line(r, line, ln))
    return snprintf(err, errlen, "%s:%d: the file ends before %s (after the %ld %s lines %s counts)", name, r->line,
                    end, count, kind, section),
           -1;
  if (!strncmp(line, end, k) && gm_blank(line + k)) return 0;
  if (line[0] != '$')
    return snprintf(err, errlen,
                    "%s:%d: %s says %ld but more %s lines follow: fix the count (or remove the extra "
                    "lines)",
                    name, r->line, section, count, kind),
           -1;
  return snprintf(err, errlen, "%s:%d: %s expected after the %ld %s lines %s counts, found '%.40s'", name, r->line, end,
                  count, kind, section, line),
         -1;
}

/* the integers of a line (at most max); -1 when something else follows or one is out of int range */
static int gm_ints(const char *s, long *v, int max) {
  int k = 0;
  while (k < max) {
    char *q;
    errno = 0;
    const long x = strtol(s, &q, 10);
    if (q == s) break;
    if (errno || x < INT_MIN || x > INT_MAX) return -1;
    v[k++] = x;
    s = q;
  }
  while (isspace((unsigned char)*s)) s++;
  return *s ? -1 : k;
}

/* room for one more triangle */
static int gm_grow(um_gmsh_mesh *m, size_t *cap) {
  if ((size_t)m->ntris < *cap) return 0;
  const size_t nc = *cap ? 2 * *cap : 1024;
  int *t = realloc(m->tri, nc * 3 * sizeof(int));
  if (!t) return -1;
  m->tri = t;
  int **arrs[3] = {&m->tri_tag, &m->tri_id, &m->tri_line};
  for (int i = 0; i < 3; i++) {
    int *a = realloc(*arrs[i], nc * sizeof(int));
    if (!a) return -1;
    *arrs[i] = a;
  }
  *cap = nc;
  return 0;
}

static int gm_format(gm_reader *r, const char *name, char *line, size_t ln, char *err, size_t errlen) {
  double ver;
  int ft, ds;
  if (!gm_line(r, line, ln) || sscanf(line, "%lf %d %d", &ver, &ft, &ds) != 3)
    return snprintf(err, errlen, "%s:%d: '$MeshFormat': 'version file-type data-size' expected: not a Gmsh mesh "
                    "file, or a damaged one", name, r->line), -1;
  if (ft != 0)
    return snprintf(err, errlen, "%s:%d: a binary Gmsh file: this reader takes ASCII files, format 2; " GM_CONVERT,
                    name, r->line), -1;
  if (ver < 2.0 || ver >= 3.0)
    return snprintf(err, errlen, "%s:%d: Gmsh format %g: this reader takes format 2 (ASCII); " GM_CONVERT, name,
                    r->line, ver), -1;
  return 0;
}

/* node i of nn from its line: 0, or -1 with why */
static int gm_node(const gm_reader *r, const char *name, um_gmsh_mesh *m, gm_id *ids, long i, long nn, const char *line,
                   char *err, size_t errlen) {
  long id;
  double x, y, z;
  char tail;
  if (sscanf(line, "%ld %lf %lf %lf %c", &id, &x, &y, &z, &tail) != 4 || id < 1 || id > INT_MAX)
    return snprintf(err, errlen, "%s:%d: node %ld of %ld: 'id x y z' expected (id >= 1)", name, r->line, i + 1, nn), -1;
  if (!isfinite(x) || !isfinite(y) || !isfinite(z))
    return snprintf(err, errlen,
                    "%s:%d: node %ld at (%g, %g, %g): coordinates must be finite numbers; fix the "
                    "mesh",
                    name, r->line, id, x, y, z),
           -1;
  ids[i].id = (int)id;
  ids[i].index = (int)i;
  ids[i].line = r->line;
  m->node_id[i] = (int)id;
  m->xy[2 * i] = x;
  m->xy[2 * i + 1] = y;
  return 0;
}

static int gm_nodes(gm_reader *r, const char *name, um_gmsh_mesh *m, gm_id **ids_out, char *line, size_t ln,
                    char *err, size_t errlen) {
  if (m->xy) return snprintf(err, errlen, "%s:%d: a second $Nodes section: a Gmsh format 2 mesh has one", name, r->line), -1;
  long nn;
  char *e;
  if (!gm_line(r, line, ln) || (nn = strtol(line, &e, 10), e == line) || nn < 1)
    return snprintf(err, errlen, "%s:%d: '$Nodes': the number of nodes (>= 1) expected", name, r->line), -1;
  if (nn > INT_MAX / 4 || (size_t)nn > (size_t)(r->end - r->p) / 8 + 1) /* a node line: at least 8 characters */
    return snprintf(err, errlen, "%s:%d: $Nodes claims %ld nodes, more than the file can hold (%zu bytes follow; a "
                    "node takes a line of at least 8): fix the count", name, r->line, nn,
                    (size_t)(r->end - r->p)), -1;
  m->nnodes = (int)nn;
  m->xy = um_array_alloc(2 * (size_t)nn, sizeof(double));
  m->node_id = um_array_alloc((size_t)nn, sizeof(int));
  gm_id *ids = *ids_out = um_array_alloc((size_t)nn, sizeof *ids);
  if (!m->xy || !m->node_id || !ids) return snprintf(err, errlen, "%s: out of memory for %ld nodes", name, nn), -1;
  for (long i = 0; i < nn; i++) {
    if (!gm_line(r, line, ln))
      return snprintf(err, errlen, "%s:%d: the file ends after %ld of %ld nodes", name, r->line, i, nn), -1;
    if (line[0] == '$') return gm_short(r, name, "$Nodes", nn, i, "node", line, err, errlen);
    if (gm_node(r, name, m, ids, i, nn, line, err, errlen)) return -1;
  }
  if (gm_unique(ids, nn, name, "node", "$Nodes", err, errlen)) return -1;
  return gm_end(r, name, "$Nodes", nn, "node", line, ln, err, errlen);
}

/* the nodes of the element types read: lines (boundary), triangles, points (corners); 0 for any other */
static int gm_type_nodes(long type) { return type == 1 ? 2 : type == 2 ? 3 : type == 15 ? 1 : 0; }

/* One element line, its integers v[0..k): a triangle appended, a line or point checked (its node count, its nodes
 * defined) and counted. 0, or -1 with why. */
static int gm_element(const gm_reader *r, const char *name, um_gmsh_mesh *m, const gm_id *ids, const long *v, int k,
                      size_t *cap, char *err, size_t errlen) {
  const long type = v[1], ntags = v[2];
  const int nv = k - 3 - (int)ntags, want = gm_type_nodes(type);
  const long *nodes = v + 3 + ntags;
  const char *what = type == 2 ? "triangle" : type == 1 ? "line element" : "point element";
  if (!want)
    return snprintf(err, errlen,
                    "%s:%d: element %ld is a %s (Gmsh type %ld): meshes are triangles only; mesh the "
                    "surface with first-order triangles (no Recombine, Mesh.ElementOrder = 1) or remove the "
                    "element",
                    name, r->line, v[0], gm_type_name(type), type),
           -1;
  if (nv != want)
    return snprintf(err, errlen, "%s:%d: %s %ld has %d nodes, %d expected", name, r->line, what, v[0], nv, want), -1;
  int t[3];
  for (int j = 0; j < nv; j++) {
    t[j] = gm_find(ids, m->nnodes, nodes[j]);
    if (t[j] < 0)
      return snprintf(err, errlen, "%s:%d: %s %ld refers to node %ld, which $Nodes does not define", name, r->line,
                      what, v[0], nodes[j]),
             -1;
  }
  if (type != 2) {
    m->nskipped++;
    return 0;
  }
  if (gm_grow(m, cap)) return snprintf(err, errlen, "%s: out of memory for %d triangles", name, m->ntris), -1;
  memcpy(m->tri + 3 * (size_t)m->ntris, t, sizeof t);
  m->tri_tag[m->ntris] = ntags > 0 ? (int)v[3] : 0;
  m->tri_id[m->ntris] = (int)v[0];
  m->tri_line[m->ntris] = r->line;
  m->ntris++;
  return 0;
}

/* the ne element lines, each element's id and line into eids */
static int gm_element_lines(gm_reader *r, const char *name, um_gmsh_mesh *m, const gm_id *ids, long ne, gm_id *eids,
                            char *line, size_t ln, char *err, size_t errlen) {
  size_t cap = 0;
  for (long i = 0; i < ne; i++) {
    if (!gm_line(r, line, ln))
      return snprintf(err, errlen, "%s:%d: the file ends after %ld of %ld elements", name, r->line, i, ne), -1;
    if (line[0] == '$') return gm_short(r, name, "$Elements", ne, i, "element", line, err, errlen);
    long v[64];
    const int k = gm_ints(line, v, 64);
    if (k < 3 || v[2] < 0 || 3 + v[2] > k)
      return snprintf(err, errlen, "%s:%d: element %ld: 'id type ntags tags... nodes...' expected", name, r->line,
                      i + 1), -1;
    eids[i].id = (int)v[0];
    eids[i].index = (int)i;
    eids[i].line = r->line;
    if (gm_element(r, name, m, ids, v, k, &cap, err, errlen)) return -1;
  }
  return 0;
}

static int gm_elements(gm_reader *r, const char *name, um_gmsh_mesh *m, const gm_id *ids, char *line, size_t ln,
                       char *err, size_t errlen) {
  if (!ids) return snprintf(err, errlen, "%s:%d: $Elements before $Nodes: put $Nodes first", name, r->line), -1;
  long ne;
  char *e;
  if (!gm_line(r, line, ln) || (ne = strtol(line, &e, 10), e == line) || ne < 0)
    return snprintf(err, errlen, "%s:%d: '$Elements': the number of elements (>= 0) expected", name, r->line), -1;
  if (ne > INT_MAX / 4 || (size_t)ne > (size_t)(r->end - r->p) / 6 + 1) /* an element line: at least 6 characters */
    return snprintf(err, errlen,
                    "%s:%d: $Elements claims %ld elements, more than the file can hold (%zu bytes "
                    "follow; an element takes a line of at least 6): fix the count",
                    name, r->line, ne, (size_t)(r->end - r->p)),
           -1;
  gm_id *eids = um_array_alloc((size_t)ne + 1, sizeof *eids);
  if (!eids) return snprintf(err, errlen, "%s: out of memory for %ld elements", name, ne), -1;
  int rc = gm_element_lines(r, name, m, ids, ne, eids, line, ln, err, errlen);
  if (!rc) rc = gm_unique(eids, ne, name, "element", "$Elements", err, errlen);
  if (!rc) rc = gm_end(r, name, "$Elements", ne, "element", line, ln, err, errlen);
  free(eids);
  return rc;
}

int um_gmsh_parse(const char *text, size_t n, const char *name, um_gmsh_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  gm_reader r = {text, text + n, 0};
  char line[4096];
  int have_format = 0, rc = -1, seen_elements = 0;
  gm_id *ids = NULL; /* node ids with their index, sorted by id */
  while (gm_line(&r, line, sizeof line)) {
    if (!strncmp(line, "$MeshFormat", 11)) {
      if (gm_format(&r, name, line, sizeof line, err, errlen)) goto out;
      have_format = 1;
    } else if (!strncmp(line, "$Nodes", 6)) {
      if (gm_nodes(&r, name, m, &ids, line, sizeof line, err, errlen)) goto out;
    } else if (!strncmp(line, "$Elements", 9)) {
      if (seen_elements) {
        snprintf(err, errlen, "%s:%d: a second $Elements section: a Gmsh format 2 mesh has one", name, r.line);
        goto out;
      }
      seen_elements = 1;
      if (gm_elements(&r, name, m, ids, line, sizeof line, err, errlen)) goto out;
    }
  }
  if (!have_format) {
    snprintf(err, errlen, "%s: no $MeshFormat section: not a Gmsh mesh file (write one with gmsh -2 -format msh22)",
             name);
    goto out;
  }
  if (!m->ntris) {
    snprintf(err, errlen, "%s: no triangles in the mesh ($Elements with Gmsh type 2): mesh the surface (gmsh -2)", name);
    goto out;
  }
  rc = 0;
out:
  free(ids);
  if (rc) um_gmsh_free(m);
  return rc;
}

int um_gmsh_read(const char *path, um_gmsh_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  char why[512];
  size_t n = 0;
  char *buf = um_read_all(path, GM_MAX_BYTES, &n, why, sizeof why); /* a regular file: a FIFO never hangs */
  if (!buf) return snprintf(err, errlen, "%s: cannot open the mesh: %s", path, why), -1;
  const int rc = um_gmsh_parse(buf, n, path, m, err, errlen);
  free(buf);
  return rc;
}
