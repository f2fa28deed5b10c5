/* Volna's meshes: the Mesh Rectangle generator and Gmsh ASCII files, with the
 * connectivity and geometry upstream's pre-processor (volna_init/mesh.hpp,
 * volna2hdf5 with no-reorder) computes, in the same numbering and in float:
 *   cells     as generated / as read
 *   edges     sorted by their two node numbers (smaller first, then larger)
 *   edge -> cells  (larger cell number, smaller one); a boundary edge: its cell twice
 *   cell -> edges, cell -> cells  in increasing edge number (a missing neighbour: the cell itself)
 *   normals   unit, pointing away from the edge's first (larger-numbered) cell */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "volna.h"
#include "checked.h"
#include "um/safe_file.h"

#define VL_MSH_MAX_BYTES ((size_t)1 << 31)

void vl_mesh_free(vl_mesh *m) {
  free(m->node_xy);
  free(m->cell_nodes);
  free(m->cell_cells);
  free(m->cell_edges);
  free(m->edge_cells);
  free(m->is_boundary);
  free(m->cell_xy);
  free(m->cell_area);
  free(m->edge_normal);
  free(m->edge_length);
  memset(m, 0, sizeof *m);
}

static void *xalloc(size_t n, size_t size) {
  size_t b;
  if (um_size_mul(n ? n : 1, size, &b)) return NULL;
  return malloc(b);
}

typedef struct {
  int lo, hi; /* sorted node numbers */
  int a, b;   /* node numbers in the cell's order */
  int cell;
} tracked;

static int cmp_tracked(const void *x, const void *y) {
  const tracked *p = x, *q = y;
  if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
  if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
  return p->cell < q->cell ? -1 : p->cell > q->cell; /* upstream's sort leaves ties unordered; nothing depends on it */
}

static float orient2d(const float *a, const float *b, const float *c) {
  return (a[0] - c[0]) * (b[1] - c[1]) - (a[1] - c[1]) * (b[0] - c[0]);
}

/* by (lo, hi, a): a cell's sorted node triple, for the duplicate check */
static int cmp_triple(const void *x, const void *y) {
  const tracked *p = x, *q = y;
  if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
  if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return (p->cell > q->cell) - (p->cell < q->cell);
}

int vl_mesh_finish(vl_mesh *m, const char *name, const int *cell_line, char *err, size_t errlen) {
  const int nc = m->ncells;
  const size_t n3 = 3 * (size_t)nc;
  tracked *tf = xalloc(n3, sizeof *tf);
  m->cell_cells = xalloc(n3, sizeof(int));
  m->cell_edges = xalloc(n3, sizeof(int));
  m->cell_xy = xalloc(2 * (size_t)nc, sizeof(float));
  m->cell_area = xalloc((size_t)nc, sizeof(float));
  if (!tf || !m->cell_cells || !m->cell_edges || !m->cell_xy || !m->cell_area) {
    free(tf);
    return snprintf(err, errlen, "out of memory for the connectivity of %d cells", nc), -1;
  }
  /* geometry of cells first: a degenerate triangle stops here */
  m->xmin = INFINITY;
  for (int i = 0; i < m->nnodes; i++)
    if (m->node_xy[2 * (size_t)i] < m->xmin) m->xmin = m->node_xy[2 * (size_t)i];
  for (int c = 0; c < nc; c++) {
    const int *v = m->cell_nodes + 3 * (size_t)c;
    const float *p1 = m->node_xy + 2 * (size_t)v[0], *p2 = m->node_xy + 2 * (size_t)v[1],
                *p3 = m->node_xy + 2 * (size_t)v[2];
    const float third = 1.0f / 3.0f; /* upstream: center /= 3. (Eigen multiplies by the inverse) */
    m->cell_xy[2 * (size_t)c] = (p1[0] + p2[0] + p3[0]) * third;
    m->cell_xy[2 * (size_t)c + 1] = (p1[1] + p2[1] + p3[1]) * third;
    m->cell_area[c] = 0.5f * fabsf(orient2d(p1, p2, p3));
    if (!(m->cell_area[c] > 0.0f) || v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) {
      free(tf);
      if (cell_line)
        return snprintf(err, errlen,
                        "%s:%d: a degenerate triangle (nodes %d %d %d at (%g, %g) (%g, %g) (%g, %g), area 0): fix "
                        "the mesh (remove the element or move its nodes)",
                        name, cell_line[c], v[0] + 1, v[1] + 1, v[2] + 1, p1[0], p1[1], p2[0], p2[1], p3[0], p3[1]),
               -1;
      return snprintf(err, errlen, "%s: cell %d is a degenerate triangle (area 0): fix the mesh", name, c), -1;
    }
  }
  for (int c = 0; c < nc; c++)
    for (int j = 0; j < 3; j++) {
      tracked *t = &tf[3 * (size_t)c + j];
      t->a = m->cell_nodes[3 * (size_t)c + j];
      t->b = m->cell_nodes[3 * (size_t)c + (j + 1) % 3];
      t->lo = t->a < t->b ? t->a : t->b;
      t->hi = t->a < t->b ? t->b : t->a;
      t->cell = c;
      m->cell_cells[3 * (size_t)c + j] = -1;
      m->cell_edges[3 * (size_t)c + j] = -1;
    }
  qsort(tf, n3, sizeof *tf, cmp_tracked);
  /* count edges, check that no edge has three cells */
  int ne = 0;
  for (size_t i = 0; i < n3;) {
    size_t k = 1;
    while (i + k < n3 && tf[i + k].lo == tf[i].lo && tf[i + k].hi == tf[i].hi) k++;
    if (k > 2) {
      const int c = tf[i + 2].cell, lo = tf[i].lo, hi = tf[i].hi;
      free(tf);
      return snprintf(err, errlen,
                      "%s%s%d: the edge between nodes %d and %d belongs to %zu triangles (at most 2 in a surface "
                      "mesh): fix the mesh",
                      name, cell_line ? ":" : ": cell ", cell_line ? cell_line[c] : c, lo + 1, hi + 1, k),
             -1;
    }
    ne++;
    i += k;
  }
  /* the same triangle twice (its three nodes, in any order): a boundary one
   * passes the edge check above, each of its edges with two cells */
  tracked *tr = xalloc((size_t)nc, sizeof *tr);
  if (!tr) {
    free(tf);
    return snprintf(err, errlen, "out of memory for the connectivity of %d cells", nc), -1;
  }
  for (int c = 0; c < nc; c++) {
    int a = m->cell_nodes[3 * (size_t)c], b = m->cell_nodes[3 * (size_t)c + 1], d = m->cell_nodes[3 * (size_t)c + 2], x;
    if (a > b) x = a, a = b, b = x;
    if (b > d) x = b, b = d, d = x;
    if (a > b) x = a, a = b, b = x;
    tr[c].lo = a, tr[c].hi = b, tr[c].a = d, tr[c].cell = c, tr[c].b = 0;
  }
  qsort(tr, (size_t)nc, sizeof *tr, cmp_triple);
  for (int i = 1; i < nc; i++)
    if (tr[i].lo == tr[i - 1].lo && tr[i].hi == tr[i - 1].hi && tr[i].a == tr[i - 1].a) {
      int c1 = tr[i - 1].cell < tr[i].cell ? tr[i - 1].cell : tr[i].cell, c2 = tr[i - 1].cell ^ tr[i].cell ^ c1;
      const int lo = tr[i].lo, mid = tr[i].hi, hi = tr[i].a;
      free(tf);
      free(tr);
      if (cell_line)
        return snprintf(err, errlen, "%s:%d: this triangle (nodes %d %d %d) repeats the one at line %d: remove one",
                        name, cell_line[c2], lo + 1, mid + 1, hi + 1, cell_line[c1]), -1;
      return snprintf(err, errlen, "%s: cell %d repeats cell %d (nodes %d %d %d): remove one", name, c2, c1, lo + 1,
                      mid + 1, hi + 1), -1;
    }
  free(tr);
  m->nedges = ne;
  m->edge_cells = xalloc(2 * (size_t)ne, sizeof(int));
  m->is_boundary = xalloc((size_t)ne, sizeof(int));
  m->edge_normal = xalloc(2 * (size_t)ne, sizeof(float));
  m->edge_length = xalloc((size_t)ne, sizeof(float));
  if (!m->edge_cells || !m->is_boundary || !m->edge_normal || !m->edge_length) {
    free(tf);
    return snprintf(err, errlen, "out of memory for %d edges", ne), -1;
  }
  int e = 0;
  for (size_t i = 0; i < n3; e++) {
    const tracked *t = &tf[i];
    const int interior = i + 1 < n3 && tf[i + 1].lo == t->lo && tf[i + 1].hi == t->hi;
    int left = t->cell, right = -1;
#define ADD(arr, c, v)                                                   \
  do {                                                                   \
    int *s_ = m->arr + 3 * (size_t)(c);                                  \
    int k_ = 0;                                                          \
    while (s_[k_] != -1) k_++;                                           \
    s_[k_] = (v);                                                        \
  } while (0)
    ADD(cell_edges, t->cell, e);
    if (interior) {
      const int other = tf[i + 1].cell;
      ADD(cell_edges, other, e);
      ADD(cell_cells, t->cell, other);
      ADD(cell_cells, other, t->cell);
      left = t->cell > other ? t->cell : other;
      right = t->cell > other ? other : t->cell;
    }
#undef ADD
    m->edge_cells[2 * (size_t)e] = left;
    m->edge_cells[2 * (size_t)e + 1] = right < 0 ? left : right;
    m->is_boundary[e] = right < 0;
    /* geometry as upstream: p1, p2 in the first cell's order (the sign is fixed below) */
    const float *p1 = m->node_xy + 2 * (size_t)t->a, *p2 = m->node_xy + 2 * (size_t)t->b;
    const float dx = p2[0] - p1[0], dy = p2[1] - p1[1];
    const float len = sqrtf(dx * dx + dy * dy);
    const float cx = (p1[0] + p2[0]) * 0.5f, cy = (p1[1] + p2[1]) * 0.5f;
    const float inv = 1.0f / len; /* upstream: normal.normalize(), Eigen 2 multiplies by the inverse norm */
    float nx = -dy * inv, ny = dx * inv;
    const float orienter = (cx - m->cell_xy[2 * (size_t)left]) * nx + (cy - m->cell_xy[2 * (size_t)left + 1]) * ny;
    if (orienter <= 0.0f) nx = -nx, ny = -ny;
    m->edge_normal[2 * (size_t)e] = nx;
    m->edge_normal[2 * (size_t)e + 1] = ny;
    m->edge_length[e] = len;
    i += interior ? 2 : 1;
  }
  free(tf);
  for (size_t i = 0; i < n3; i++)
    if (m->cell_cells[i] < 0) m->cell_cells[i] = (int)(i / 3);
  return 0;
}

int vl_mesh_rectangle(float xmin, float xmax, float ymin, float ymax, int nx, int ny, vl_mesh *m, char *err,
                      size_t errlen) {
  memset(m, 0, sizeof *m);
  if (nx < 1 || ny < 1 || (double)nx * ny * 2 > (double)INT_MAX / 4)
    return snprintf(err, errlen, "Mesh Rectangle %d x %d: each count must be >= 1 and the cells fit an int", nx, ny), -1;
  m->nnodes = (nx + 1) * (ny + 1);
  m->ncells = 2 * nx * ny;
  m->node_xy = xalloc(2 * (size_t)m->nnodes, sizeof(float));
  m->cell_nodes = xalloc(3 * (size_t)m->ncells, sizeof(int));
  if (!m->node_xy || !m->cell_nodes) {
    vl_mesh_free(m);
    return snprintf(err, errlen, "out of memory for a %d x %d rectangle", nx, ny), -1;
  }
  /* nodes row by row (y outer), as upstream numbers them */
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++) {
      float *p = m->node_xy + 2 * ((size_t)j * (nx + 1) + i);
      p[0] = xmin + i * (xmax - xmin) / (float)nx;
      p[1] = ymin + j * (ymax - ymin) / (float)ny;
    }
  /* two triangles per square, x outer, y inner */
  int c = 0;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      int *v = m->cell_nodes + 3 * (size_t)c;
      v[0] = j * (nx + 1) + i, v[1] = (j + 1) * (nx + 1) + i, v[2] = (j + 1) * (nx + 1) + i + 1;
      v[3] = j * (nx + 1) + i, v[4] = j * (nx + 1) + i + 1, v[5] = (j + 1) * (nx + 1) + i + 1;
      c += 2;
    }
  if (vl_mesh_finish(m, "Mesh Rectangle", NULL, err, errlen)) {
    vl_mesh_free(m);
    return -1;
  }
  return 0;
}

/* ---- Gmsh ASCII (format 2) ---------------------------------------------------------- */

typedef struct {
  const char *p, *end, *name;
  int line;
} rd;

static int next_line(rd *r, char *buf, size_t n) {
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

static const char *elem_name(int type) {
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
  case 15: return "point";
  default: return "element";
  }
}

typedef struct {
  int id, index;
} id_pair;

static int cmp_id(const void *a, const void *b) {
  const int x = ((const id_pair *)a)->id, y = ((const id_pair *)b)->id;
  return x < y ? -1 : x > y;
}

/* the index of node `id`, or -1 */
static int find_id(const id_pair *ids, long n, long id) {
  long lo = 0, hi = n - 1;
  while (lo <= hi) {
    const long mid = lo + (hi - lo) / 2;
    if (ids[mid].id == id) return ids[mid].index;
    if (ids[mid].id < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

int vl_mesh_gmsh_parse(const char *text, size_t n, const char *name, vl_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  rd r = {text, text + n, name, 0};
  char line[4096];
  int have_format = 0, *lines = NULL, rc = -1;
  id_pair *ids = NULL; /* node ids with their index, sorted by id */
  long nids = 0;
  size_t cap = 0;
  while (next_line(&r, line, sizeof line)) {
    if (!strncmp(line, "$MeshFormat", 11)) {
      if (!next_line(&r, line, sizeof line)) break;
      double ver;
      int ft, ds;
      if (sscanf(line, "%lf %d %d", &ver, &ft, &ds) != 3) {
        snprintf(err, errlen, "%s:%d: '$MeshFormat': 'version file-type data-size' expected", name, r.line);
        goto out;
      }
      if (ft != 0) {
        snprintf(err, errlen, "%s:%d: a binary Gmsh file: this reader takes ASCII files; save the mesh as ASCII "
                 "(gmsh -format msh2 -save_all ... or File > Export, ASCII)", name, r.line);
        goto out;
      }
      if (ver < 2.0 || ver >= 3.0) {
        snprintf(err, errlen, "%s:%d: Gmsh format %g: this reader takes format 2 (ASCII); convert with "
                 "gmsh file.msh -format msh2 -o out.msh -save", name, r.line, ver);
        goto out;
      }
      have_format = 1;
    } else if (!strncmp(line, "$Nodes", 6)) {
      if (m->node_xy) {
        snprintf(err, errlen, "%s:%d: a second $Nodes section: a Gmsh format 2 mesh has one", name, r.line);
        goto out;
      }
      long nn;
      char *e;
      if (!next_line(&r, line, sizeof line) || (nn = strtol(line, &e, 10), e == line) || nn < 1 || nn > INT_MAX / 4) {
        snprintf(err, errlen, "%s:%d: '$Nodes': the number of nodes (>= 1) expected", name, r.line);
        goto out;
      }
      if ((size_t)nn > (size_t)(r.end - r.p) / 8 + 1) { /* a node line has at least 8 characters */
        snprintf(err, errlen, "%s:%d: $Nodes claims %ld nodes, more than the file can hold", name, r.line, nn);
        goto out;
      }
      m->nnodes = (int)nn;
      m->node_xy = xalloc(2 * (size_t)nn, sizeof(float));
      ids = xalloc((size_t)nn, sizeof *ids);
      if (!m->node_xy || !ids) {
        snprintf(err, errlen, "%s: out of memory for %ld nodes", name, nn);
        goto out;
      }
      for (long i = 0; i < nn; i++) {
        int id;
        double x, y, z;
        if (!next_line(&r, line, sizeof line) || sscanf(line, "%d %lf %lf %lf", &id, &x, &y, &z) != 4 || id < 1) {
          snprintf(err, errlen, "%s:%d: node %ld of %ld: 'id x y z' expected (id >= 1)", name, r.line, i + 1, nn);
          goto out;
        }
        ids[i].id = id;
        ids[i].index = (int)i;
        m->node_xy[2 * i] = (float)x;
        m->node_xy[2 * i + 1] = (float)y;
      }
      nids = nn;
      qsort(ids, (size_t)nn, sizeof *ids, cmp_id);
      for (long i = 1; i < nn; i++)
        if (ids[i].id == ids[i - 1].id) {
          snprintf(err, errlen, "%s: node id %d appears twice in $Nodes", name, ids[i].id);
          goto out;
        }
    } else if (!strncmp(line, "$Elements", 9)) {
      if (!ids) {
        snprintf(err, errlen, "%s:%d: $Elements before $Nodes", name, r.line);
        goto out;
      }
      long ne;
      char *e;
      if (!next_line(&r, line, sizeof line) || (ne = strtol(line, &e, 10), e == line) || ne < 0) {
        snprintf(err, errlen, "%s:%d: '$Elements': the number of elements (>= 0) expected", name, r.line);
        goto out;
      }
      if (ne > INT_MAX / 4 || (size_t)ne > (size_t)(r.end - r.p) / 6 + 1) { /* an element line: at least 6 characters */
        snprintf(err, errlen, "%s:%d: $Elements claims %ld elements, more than the file can hold (%zu bytes follow; "
                 "an element takes a line of at least 6): fix the count", name, r.line, ne, (size_t)(r.end - r.p));
        goto out;
      }
      for (long i = 0; i < ne; i++) {
        if (!next_line(&r, line, sizeof line)) {
          snprintf(err, errlen, "%s:%d: the file ends after %ld of %ld elements", name, r.line, i, ne);
          goto out;
        }
        long v[64];
        int k = 0, range = 0;
        char *s = line;
        while (k < 64) {
          char *q;
          errno = 0;
          long x = strtol(s, &q, 10);
          if (q == s) break;
          if (errno || x < INT_MIN || x > INT_MAX) range = 1;
          v[k++] = x;
          s = q;
        }
        while (isspace((unsigned char)*s)) s++;
        if (range || k < 3 || *s || v[2] < 0 || 3 + v[2] > k) {
          snprintf(err, errlen, "%s:%d: element %ld: 'id type ntags tags... nodes...' expected", name, r.line, i + 1);
          goto out;
        }
        const int type = (int)v[1], nv = k - 3 - (int)v[2];
        const long *nodes = v + 3 + v[2];
        if (type == 1 || type == 15) continue; /* boundary lines and points: upstream keeps only walls */
        if (type != 2) {
          snprintf(err, errlen, "%s:%d: element %ld is a %s (Gmsh type %d): Volna meshes are triangles only; mesh "
                   "the surface with first-order triangles (no Recombine, Mesh.ElementOrder = 1) or remove the "
                   "element", name, r.line, v[0], elem_name(type), type);
          goto out;
        }
        if (nv != 3) {
          snprintf(err, errlen, "%s:%d: triangle %ld has %d nodes, 3 expected", name, r.line, v[0], nv);
          goto out;
        }
        if ((size_t)m->ncells == cap) {
          size_t nc = cap ? 2 * cap : 1024;
          int *cn = realloc(m->cell_nodes, nc * 3 * sizeof(int)), *ln;
          if (cn) m->cell_nodes = cn;
          ln = cn ? realloc(lines, nc * sizeof(int)) : NULL;
          if (!cn || !ln) {
            snprintf(err, errlen, "%s: out of memory", name);
            goto out;
          }
          lines = ln;
          cap = nc;
        }
        for (int j = 0; j < 3; j++) {
          const int k = find_id(ids, nids, nodes[j]);
          if (k < 0) {
            snprintf(err, errlen, "%s:%d: triangle %ld refers to node %ld, which $Nodes does not define", name,
                     r.line, v[0], nodes[j]);
            goto out;
          }
          m->cell_nodes[3 * (size_t)m->ncells + j] = k;
        }
        lines[m->ncells++] = r.line;
      }
    }
  }
  if (!have_format) {
    snprintf(err, errlen, "%s: no $MeshFormat section: not a Gmsh mesh file", name);
    goto out;
  }
  if (!m->ncells) {
    snprintf(err, errlen, "%s: no triangles in the mesh ($Elements with Gmsh type 2)", name);
    goto out;
  }
  rc = vl_mesh_finish(m, name, lines, err, errlen);
out:
  free(ids);
  free(lines);
  if (rc) vl_mesh_free(m);
  return rc;
}

int vl_mesh_gmsh(const char *path, vl_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  char why[512];
  FILE *f = um_read_open(path, 0, NULL, why, sizeof why); /* a regular file: a FIFO never hangs */
  if (!f) return snprintf(err, errlen, "%s: cannot open the mesh: %s", path, why), -1;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap || cap >= VL_MSH_MAX_BYTES) break;
    char *b = realloc(buf, 2 * cap + 1);
    if (!b) free(buf);
    buf = b;
    cap *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    free(buf);
    return snprintf(err, errlen, "%s: %s", path, bad ? "read error" : "out of memory"), -1;
  }
  buf[n] = 0;
  int rc = vl_mesh_gmsh_parse(buf, n, path, m, err, errlen);
  free(buf);
  return rc;
}

/* ---- Stoker's dam break ------------------------------------------------------------------ */

void vl_stoker_state(double g, double hl, double hr, double *hm, double *um, double *s) {
  /* middle state: u = 2 (cl - cm) (rarefaction) = (h - hr) sqrt(g (h + hr) / (2 h hr)) (shock); bisection */
  const double cl = sqrt(g * hl);
  double a = hr, b = hl;
  for (int it = 0; it < 200; it++) {
    const double h = 0.5 * (a + b);
    const double f = 2.0 * (cl - sqrt(g * h)) - (h - hr) * sqrt(g * (h + hr) / (2.0 * h * hr));
    if (f > 0) a = h;
    else b = h;
  }
  *hm = 0.5 * (a + b);
  *um = 2.0 * (cl - sqrt(g * *hm));
  *s = *hm * *um / (*hm - hr); /* mass across the shock */
}

void vl_stoker(double g, double hl, double hr, double x0, double x, double t, double *h, double *u) {
  double hm, um, s;
  vl_stoker_state(g, hl, hr, &hm, &um, &s);
  const double cl = sqrt(g * hl), cm = sqrt(g * hm);
  const double xi = t > 0 ? (x - x0) / t : (x < x0 ? -INFINITY : INFINITY);
  if (xi <= -cl) *h = hl, *u = 0;
  else if (xi <= um - cm) {
    const double c = (2.0 * cl - xi) / 3.0;
    *h = c * c / g, *u = 2.0 * (cl + xi) / 3.0;
  } else if (xi < s) *h = hm, *u = um;
  else *h = hr, *u = 0;
}
