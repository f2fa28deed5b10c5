/* Volna's meshes: the Mesh Rectangle generator and Gmsh ASCII files, with the
 * connectivity and geometry upstream's pre-processor (volna_init/mesh.hpp,
 * volna2hdf5 with no-reorder) computes, in the same numbering and in float:
 *   cells     as generated / as read
 *   edges     sorted by their two node numbers (smaller first, then larger)
 *   edge -> cells  (larger cell number, smaller one); a boundary edge: its cell twice
 *   cell -> edges, cell -> cells  in increasing edge number (a missing neighbour: the cell itself)
 *   normals   unit, pointing away from the edge's first (larger-numbered) cell */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "volna.h"
#include "checked.h"
#include "um/gmsh.h"

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

/* Sorts t[0..n) by cmp, whose first key is lo (0 <= lo < nlo): a stable counting sort on lo, then each run of one
 * lo sorted by cmp (insertion for the few entries a node has, qsort for a large fan). The order is cmp's, so the
 * result is qsort's wherever cmp orders every pair (ties of whole entries do not occur here); it is linear in n
 * where qsort of a 2.4M-cell mesh's 7.2M sides was most of its set-up. -1 if out of memory. */
static int sort_by_lo(tracked *t, size_t n, int nlo, int (*cmp)(const void *, const void *)) {
  size_t *off = calloc((size_t)nlo + 2, sizeof *off);
  tracked *tmp = um_array_alloc(n ? n : 1, sizeof *tmp);
  if (!off || !tmp) {
    free(off);
    free(tmp);
    return -1;
  }
  for (size_t i = 0; i < n; i++) off[t[i].lo + 2]++;
  for (int k = 0; k < nlo; k++) off[k + 2] += off[k + 1];
  for (size_t i = 0; i < n; i++) tmp[off[t[i].lo + 1]++] = t[i];
  for (int k = 0; k < nlo; k++) {
    tracked *b = tmp + off[k];
    const size_t nb = off[k + 1] - off[k];
    if (nb > 32) {
      qsort(b, nb, sizeof *b, cmp);
      continue;
    }
    for (size_t i = 1; i < nb; i++) {
      const tracked x = b[i];
      size_t j = i;
      for (; j > 0 && cmp(&b[j - 1], &x) > 0; j--) b[j] = b[j - 1];
      b[j] = x;
    }
  }
  memcpy(t, tmp, n * sizeof *t);
  free(off);
  free(tmp);
  return 0;
}

/* The cells' centres and areas, and the mesh's smallest x; a degenerate triangle refused (-1, the message in
 * err). */
static int cell_geometry(vl_mesh *m, const char *name, const int *cell_line, char *err, size_t errlen) {
  const int nc = m->ncells;
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
      if (cell_line)
        return snprintf(err, errlen,
                        "%s:%d: a degenerate triangle (nodes %d %d %d at (%g, %g) (%g, %g) (%g, %g), area 0): fix "
                        "the mesh (remove the element or move its nodes)",
                        name, cell_line[c], v[0] + 1, v[1] + 1, v[2] + 1, p1[0], p1[1], p2[0], p2[1], p3[0], p3[1]),
               -1;
      return snprintf(err, errlen, "%s: cell %d is a degenerate triangle (area 0): fix the mesh", name, c), -1;
    }
  }
  return 0;
}

/* The same triangle twice (its three nodes, in any order) refused: a boundary one passes the edge check, each of
 * its edges with two cells. 0, or -1 with the message in err. */
static int check_repeated_triangles(const vl_mesh *m, const char *name, const int *cell_line, char *err,
                                    size_t errlen) {
  const int nc = m->ncells;
  tracked *tr = um_array_alloc((size_t)nc, sizeof *tr);
  if (!tr) {
    return snprintf(err, errlen, "out of memory for the connectivity of %d cells", nc), -1;
  }
  for (int c = 0; c < nc; c++) {
    int a = m->cell_nodes[3 * (size_t)c], b = m->cell_nodes[3 * (size_t)c + 1], d = m->cell_nodes[3 * (size_t)c + 2], x;
    if (a > b) x = a, a = b, b = x;
    if (b > d) x = b, b = d, d = x;
    if (a > b) x = a, a = b, b = x;
    tr[c].lo = a, tr[c].hi = b, tr[c].a = d, tr[c].cell = c, tr[c].b = 0;
  }
  if (sort_by_lo(tr, (size_t)nc, m->nnodes, cmp_triple)) {
    free(tr);
    return snprintf(err, errlen, "out of memory for the connectivity of %d cells", nc), -1;
  }
  for (int i = 1; i < nc; i++)
    if (tr[i].lo == tr[i - 1].lo && tr[i].hi == tr[i - 1].hi && tr[i].a == tr[i - 1].a) {
      int c1 = tr[i - 1].cell < tr[i].cell ? tr[i - 1].cell : tr[i].cell, c2 = tr[i - 1].cell ^ tr[i].cell ^ c1;
      const int lo = tr[i].lo, mid = tr[i].hi, hi = tr[i].a;
      free(tr);
      if (cell_line)
        return snprintf(err, errlen, "%s:%d: this triangle (nodes %d %d %d) repeats the one at line %d: remove one",
                        name, cell_line[c2], lo + 1, mid + 1, hi + 1, cell_line[c1]), -1;
      return snprintf(err, errlen, "%s: cell %d repeats cell %d (nodes %d %d %d): remove one", name, c2, c1, lo + 1,
                      mid + 1, hi + 1), -1;
    }
  free(tr);
  return 0;
}

int vl_mesh_finish(vl_mesh *m, const char *name, const int *cell_line, char *err, size_t errlen) {
  const int nc = m->ncells;
  const size_t n3 = 3 * (size_t)nc;
  tracked *tf = um_array_alloc(n3, sizeof *tf);
  m->cell_cells = um_array_alloc(n3, sizeof(int));
  m->cell_edges = um_array_alloc(n3, sizeof(int));
  m->cell_xy = um_array_alloc(2 * (size_t)nc, sizeof(float));
  m->cell_area = um_array_alloc((size_t)nc, sizeof(float));
  if (!tf || !m->cell_cells || !m->cell_edges || !m->cell_xy || !m->cell_area) {
    free(tf);
    return snprintf(err, errlen, "out of memory for the connectivity of %d cells", nc), -1;
  }
  if (cell_geometry(m, name, cell_line, err, errlen)) { /* a degenerate triangle stops here */
    free(tf);
    return -1;
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
  if (sort_by_lo(tf, n3, m->nnodes, cmp_tracked)) {
    free(tf);
    return snprintf(err, errlen, "out of memory for the connectivity of %d cells", nc), -1;
  }
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
  if (check_repeated_triangles(m, name, cell_line, err, errlen)) {
    free(tf);
    return -1;
  }
  m->nedges = ne;
  m->edge_cells = um_array_alloc(2 * (size_t)ne, sizeof(int));
  m->is_boundary = um_array_alloc((size_t)ne, sizeof(int));
  m->edge_normal = um_array_alloc(2 * (size_t)ne, sizeof(float));
  m->edge_length = um_array_alloc((size_t)ne, sizeof(float));
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
  m->node_xy = um_array_alloc(2 * (size_t)m->nnodes, sizeof(float));
  m->cell_nodes = um_array_alloc(3 * (size_t)m->ncells, sizeof(int));
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

/* ---- Gmsh ASCII (format 2): the shared reader (um/gmsh.h), nodes in float --------- */

/* cells and nodes from what the reader read, then the connectivity; frees g */
static int from_gmsh(um_gmsh_mesh *g, const char *name, vl_mesh *m, char *err, size_t errlen) {
  m->nnodes = g->nnodes;
  m->ncells = g->ntris;
  m->node_xy = um_array_alloc(2 * (size_t)g->nnodes, sizeof(float));
  m->cell_nodes = um_array_alloc(3 * (size_t)g->ntris, sizeof(int));
  int rc = -1;
  if (!m->node_xy || !m->cell_nodes) {
    snprintf(err, errlen, "%s: out of memory for %d nodes and %d cells", name, g->nnodes, g->ntris);
  } else {
    for (size_t i = 0; i < 2 * (size_t)g->nnodes; i++) m->node_xy[i] = (float)g->xy[i];
    memcpy(m->cell_nodes, g->tri, 3 * (size_t)g->ntris * sizeof(int));
    rc = vl_mesh_finish(m, name, g->tri_line, err, errlen);
  }
  um_gmsh_free(g);
  if (rc) vl_mesh_free(m);
  return rc;
}

int vl_mesh_gmsh_parse(const char *text, size_t n, const char *name, vl_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  um_gmsh_mesh g;
  if (um_gmsh_parse(text, n, name, &g, err, errlen)) return -1;
  return from_gmsh(&g, name, m, err, errlen);
}

int vl_mesh_gmsh(const char *path, vl_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  um_gmsh_mesh g;
  if (um_gmsh_read(path, &g, err, errlen)) return -1;
  return from_gmsh(&g, path, m, err, errlen);
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
