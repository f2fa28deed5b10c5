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
#include "bucket.h"
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

/* ---- the connectivity over the host's threads ---------------------------------------------------------------
 * The cells' sides are bucketed by their lower node and sorted within a bucket by (upper node, side): a stable
 * counting sort over the threads (um_bucket_sort, bucket.h), the order a sort of the sides by (lower, upper, cell)
 * gives -- two sides of one edge are of two cells once no triangle is degenerate (checked first). Each bucket then numbers
 * its edges from its first (the buckets' counts added up in node order), each cell orders its own: the arrays are
 * the same bits for any thread count, and an error names what the serial scan in sorted order met first. */

/* side s: its cell's nodes s % 3 and the next, in the cell's order */
static void side_nodes(const vl_mesh *m, int s, int *a, int *b) {
  const int *v = m->cell_nodes + 3 * (size_t)(s / 3);
  *a = v[s % 3];
  *b = v[(s % 3 + 1) % 3];
}

static float orient2d(const float *a, const float *b, const float *c) {
  return (a[0] - c[0]) * (b[1] - c[1]) - (a[1] - c[1]) * (b[0] - c[0]);
}

/* Cell c's centre and area; 0 if it is a degenerate triangle. */
static int one_cell_geometry(vl_mesh *m, int c) {
  const int *v = m->cell_nodes + 3 * (size_t)c;
  const float *p1 = m->node_xy + 2 * (size_t)v[0], *p2 = m->node_xy + 2 * (size_t)v[1],
              *p3 = m->node_xy + 2 * (size_t)v[2];
  const float third = 1.0f / 3.0f; /* upstream: center /= 3. (Eigen multiplies by the inverse) */
  m->cell_xy[2 * (size_t)c] = (p1[0] + p2[0] + p3[0]) * third;
  m->cell_xy[2 * (size_t)c + 1] = (p1[1] + p2[1] + p3[1]) * third;
  m->cell_area[c] = 0.5f * fabsf(orient2d(p1, p2, p3));
  return m->cell_area[c] > 0.0f && v[0] != v[1] && v[1] != v[2] && v[0] != v[2];
}

/* The cells' centres and areas over the threads, and the mesh's smallest x (of the cells' nodes: a node no cell
 * uses is not part of the mesh, and it would move GaussianLandslide's floor); a degenerate triangle refused (the
 * first: -1, the message in err). */
static int cell_geometry(vl_mesh *m, int nthreads, const char *name, const int *cell_line, char *err,
                         size_t errlen) {
  (void)nthreads; /* unused in a build without OpenMP */
  const int nc = m->ncells;
  m->xmin = INFINITY;
  for (size_t i = 0; i < 3 * (size_t)nc; i++) {
    const float x = m->node_xy[2 * (size_t)m->cell_nodes[i]];
    if (x < m->xmin) m->xmin = x;
  }
  int c = nc;
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(min : c)
  for (int i = 0; i < nc; i++)
    if (!one_cell_geometry(m, i) && i < c) c = i;
  if (c == nc) return 0;
  const int *v = m->cell_nodes + 3 * (size_t)c;
  const float *p1 = m->node_xy + 2 * (size_t)v[0], *p2 = m->node_xy + 2 * (size_t)v[1],
              *p3 = m->node_xy + 2 * (size_t)v[2];
  if (cell_line)
    return snprintf(err, errlen,
                    "%s:%d: a degenerate triangle (nodes %d %d %d at (%g, %g) (%g, %g) (%g, %g), area 0): fix "
                    "the mesh (remove the element or move its nodes)",
                    name, cell_line[c], v[0] + 1, v[1] + 1, v[2] + 1, p1[0], p1[1], p2[0], p2[1], p3[0], p3[1]),
           -1;
  return snprintf(err, errlen, "%s: cell %d is a degenerate triangle (area 0): fix the mesh", name, c), -1;
}

/* The first position in sorted order (the buckets [off[n], off[n + 1]) of idx) whose cell repeats the one before
 * it (its sorted nodes lo, mid, top), or the count. */
static int first_repeat(const int *lo, const int *mid, const int *top, const int *off, const int *idx, int nkeys,
                        int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
  int first = off[nkeys];
#pragma omp parallel for schedule(dynamic, 4096) num_threads(nthreads) reduction(min : first)
  for (int k = 0; k < nkeys; k++)
    for (int i = off[k] + 1; i < off[k + 1]; i++) {
      const int x = idx[i - 1], y = idx[i];
      if (lo[x] == lo[y] && mid[x] == mid[y] && top[x] == top[y]) {
        if (i < first) first = i;
        break;
      }
    }
  return first;
}

/* The same triangle twice (its three nodes, in any order) refused: a boundary one passes the edge check, each of
 * its edges with two cells. The cells sorted by their sorted nodes (lower, middle, top), then number. 0, or -1 with
 * the message in err. */
static int check_repeated_triangles(const vl_mesh *m, int nthreads, const char *name, const int *cell_line,
                                    char *err, size_t errlen) {
  const int nc = m->ncells;
  int *lo = um_array_alloc((size_t)nc + 1, sizeof *lo), *mid = um_array_alloc((size_t)nc + 1, sizeof *mid),
      *top = um_array_alloc((size_t)nc + 1, sizeof *top), *idx = um_array_alloc((size_t)nc + 1, sizeof *idx),
      *off = um_array_alloc((size_t)m->nnodes + 1, sizeof *off);
  int rc = !lo || !mid || !top || !idx || !off;
  if (!rc) {
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int c = 0; c < nc; c++) {
      int a = m->cell_nodes[3 * (size_t)c], b = m->cell_nodes[3 * (size_t)c + 1],
          d = m->cell_nodes[3 * (size_t)c + 2], x;
      if (a > b) x = a, a = b, b = x;
      if (b > d) x = b, b = d, d = x;
      if (a > b) x = a, a = b, b = x;
      lo[c] = a, mid[c] = b, top[c] = d;
    }
    rc = um_bucket_sort(lo, mid, top, (size_t)nc, m->nnodes, nthreads, off, idx) != 0;
  }
  const int i = rc ? nc : first_repeat(lo, mid, top, off, idx, m->nnodes, nthreads);
  if (rc) snprintf(err, errlen, "out of memory for the connectivity of %d cells", nc);
  else if (i < nc) {
    const int c1 = idx[i - 1] < idx[i] ? idx[i - 1] : idx[i], c2 = idx[i - 1] ^ idx[i] ^ c1;
    const int a = lo[c1] + 1, b = mid[c1] + 1, d = top[c1] + 1;
    if (cell_line)
      snprintf(err, errlen, "%s:%d: this triangle (nodes %d %d %d) repeats the one at line %d: remove one", name,
               cell_line[c2], a, b, d, cell_line[c1]);
    else
      snprintf(err, errlen, "%s: cell %d repeats cell %d (nodes %d %d %d): remove one", name, c2, c1, a, b, d);
    rc = 1;
  }
  free(lo), free(mid), free(top), free(idx), free(off);
  return rc ? -1 : 0;
}

/* The edges of bucket [i, o1) of side (its runs of one upper node): how many, or -1 - the position of the first
 * run of more than two sides. */
static int bucket_edges(const int *upper, const int *side, int i, int o1) {
  int ne = 0;
  while (i < o1) {
    const int h = upper[side[i]];
    int k = 1;
    while (i + k < o1 && upper[side[i + k]] == h) k++;
    if (k > 2) return -1 - i;
    ne++;
    i += k;
  }
  return ne;
}

/* The edges of bucket [i, o1), numbered from e: their cells and geometry, and on each side its edge and the cell
 * across it (-1: none; cell_order puts them in order). */
static void bucket_fill(vl_mesh *m, const int *upper, const int *side, int i, int o1, int e) {
  for (; i < o1; e++) {
    const int s = side[i];
    int a, b;
    side_nodes(m, s, &a, &b);
    const int interior = i + 1 < o1 && upper[side[i + 1]] == upper[s];
    int left = s / 3, right = -1;
    m->cell_edges[s] = e, m->cell_cells[s] = -1;
    if (interior) {
      const int s2 = side[i + 1], other = s2 / 3;
      m->cell_edges[s2] = e, m->cell_cells[s2] = s / 3, m->cell_cells[s] = other;
      left = s / 3 > other ? s / 3 : other;
      right = s / 3 > other ? other : s / 3;
    }
    m->edge_cells[2 * (size_t)e] = left;
    m->edge_cells[2 * (size_t)e + 1] = right < 0 ? left : right;
    m->is_boundary[e] = right < 0;
    /* geometry as upstream: p1, p2 in the first cell's order (the sign is fixed below) */
    const float *p1 = m->node_xy + 2 * (size_t)a, *p2 = m->node_xy + 2 * (size_t)b;
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
}

/* Cell c's edges in increasing number, its neighbours in the order of their edges, then itself. */
static void cell_order(vl_mesh *m, int c) {
  int *ce = m->cell_edges + 3 * (size_t)c, *cc = m->cell_cells + 3 * (size_t)c;
  int e[3] = {ce[0], ce[1], ce[2]}, n[3] = {cc[0], cc[1], cc[2]}, k = 0;
  for (int i = 1; i < 3; i++)
    for (int j = i; j > 0 && e[j] < e[j - 1]; j--) {
      const int x = e[j], y = n[j];
      e[j] = e[j - 1], n[j] = n[j - 1], e[j - 1] = x, n[j - 1] = y;
    }
  for (int j = 0; j < 3; j++) ce[j] = e[j];
  for (int j = 0; j < 3; j++)
    if (n[j] >= 0) cc[k++] = n[j];
  while (k < 3) cc[k++] = c;
}

/* The sides' upper nodes into upper, the sides sorted into side (the buckets' starts in off) and each bucket's
 * edges counted into ecnt[n + 1]; 0, or -1 (out of memory) or 1 (an edge of three cells) with the message in err. */
static int sort_sides(const vl_mesh *m, int nthreads, int *upper, int *side, int *off, int *ecnt, const char *name,
                      const int *cell_line, char *err, size_t errlen) {
  const int n3 = 3 * m->ncells, nn = m->nnodes;
  int *lower = um_array_alloc((size_t)n3 + 1, sizeof *lower), bad = n3;
  if (!lower) return snprintf(err, errlen, "out of memory for the connectivity of %d cells", m->ncells), -1;
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int s = 0; s < n3; s++) {
    int a, b;
    side_nodes(m, s, &a, &b);
    lower[s] = a < b ? a : b;
    upper[s] = a < b ? b : a;
  }
  const int rc = um_bucket_sort(lower, upper, NULL, (size_t)n3, nn, nthreads, off, side);
  free(lower);
  if (rc) return snprintf(err, errlen, "out of memory for the connectivity of %d cells", m->ncells), -1;
  ecnt[0] = 0;
#pragma omp parallel for schedule(dynamic, 4096) num_threads(nthreads) reduction(min : bad)
  for (int n = 0; n < nn; n++) {
    const int r = bucket_edges(upper, side, off[n], off[n + 1]);
    ecnt[n + 1] = r < 0 ? 0 : r;
    if (r < 0 && -1 - r < bad) bad = -1 - r;
  }
  if (bad == n3) return 0;
  int a, b, k = 3;
  side_nodes(m, side[bad], &a, &b);
  const int lo = a < b ? a : b, hi = a < b ? b : a;
  while (bad + k < off[lo + 1] && upper[side[bad + k]] == hi) k++;
  const int c = side[bad + 2] / 3;
  snprintf(err, errlen,
           "%s%s%d: the edge between nodes %d and %d belongs to %d triangles (at most 2 in a surface mesh): fix the "
           "mesh",
           name, cell_line ? ":" : ": cell ", cell_line ? cell_line[c] : c, lo + 1, hi + 1, k);
  return 1;
}

int vl_mesh_finish(vl_mesh *m, const char *name, const int *cell_line, char *err, size_t errlen) {
  return vl_mesh_finish_threads(m, 1, name, cell_line, err, errlen);
}

int vl_mesh_finish_threads(vl_mesh *m, int nthreads, const char *name, const int *cell_line, char *err,
                           size_t errlen) {
  const int nc = m->ncells, nn = m->nnodes;
  const size_t n3 = 3 * (size_t)nc;
  if (nthreads < 1) nthreads = 1;
  int *side = um_array_alloc(n3 + 1, sizeof *side), *upper = um_array_alloc(n3 + 1, sizeof *upper),
      *off = um_array_alloc((size_t)nn + 1, sizeof *off), *ecnt = um_array_alloc((size_t)nn + 1, sizeof *ecnt);
  m->cell_cells = um_array_alloc(n3, sizeof(int));
  m->cell_edges = um_array_alloc(n3, sizeof(int));
  m->cell_xy = um_array_alloc(2 * (size_t)nc, sizeof(float));
  m->cell_area = um_array_alloc((size_t)nc, sizeof(float));
  int rc = 0;
  if (!side || !upper || !off || !ecnt || !m->cell_cells || !m->cell_edges || !m->cell_xy || !m->cell_area)
    rc = (snprintf(err, errlen, "out of memory for the connectivity of %d cells", nc), -1);
  if (!rc) rc = cell_geometry(m, nthreads, name, cell_line, err, errlen); /* a degenerate triangle stops here */
  if (!rc) rc = sort_sides(m, nthreads, upper, side, off, ecnt, name, cell_line, err, errlen);
  if (!rc) rc = check_repeated_triangles(m, nthreads, name, cell_line, err, errlen);
  if (!rc) {
    um_prefix_sum(ecnt, nn + 1, nthreads);
    const int ne = m->nedges = ecnt[nn];
    m->edge_cells = um_array_alloc(2 * (size_t)ne, sizeof(int));
    m->is_boundary = um_array_alloc((size_t)ne, sizeof(int));
    m->edge_normal = um_array_alloc(2 * (size_t)ne, sizeof(float));
    m->edge_length = um_array_alloc((size_t)ne, sizeof(float));
    if (!m->edge_cells || !m->is_boundary || !m->edge_normal || !m->edge_length)
      rc = (snprintf(err, errlen, "out of memory for %d edges", ne), -1);
  }
  if (!rc) {
#pragma omp parallel num_threads(nthreads)
    {
#pragma omp for schedule(dynamic, 4096)
      for (int n = 0; n < nn; n++) bucket_fill(m, upper, side, off[n], off[n + 1], ecnt[n]);
#pragma omp for schedule(static)
      for (int c = 0; c < nc; c++) cell_order(m, c);
    }
  }
  free(side), free(upper), free(off), free(ecnt);
  return rc ? -1 : 0;
}

int vl_mesh_rectangle(float xmin, float xmax, float ymin, float ymax, int nx, int ny, vl_mesh *m, char *err,
                      size_t errlen) {
  return vl_mesh_rectangle_threads(xmin, xmax, ymin, ymax, nx, ny, 1, m, err, errlen);
}

int vl_mesh_rectangle_threads(float xmin, float xmax, float ymin, float ymax, int nx, int ny, int nthreads,
                              vl_mesh *m, char *err, size_t errlen) {
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
  if (nthreads < 1) nthreads = 1;
  /* nodes row by row (y outer), as upstream numbers them */
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++) {
      float *p = m->node_xy + 2 * ((size_t)j * (nx + 1) + i);
      p[0] = xmin + i * (xmax - xmin) / (float)nx;
      p[1] = ymin + j * (ymax - ymin) / (float)ny;
    }
  /* two triangles per square, x outer, y inner */
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      int *v = m->cell_nodes + 6 * ((size_t)i * ny + j);
      v[0] = j * (nx + 1) + i, v[1] = (j + 1) * (nx + 1) + i, v[2] = (j + 1) * (nx + 1) + i + 1;
      v[3] = j * (nx + 1) + i, v[4] = j * (nx + 1) + i + 1, v[5] = (j + 1) * (nx + 1) + i + 1;
    }
  if (vl_mesh_finish_threads(m, nthreads, "Mesh Rectangle", NULL, err, errlen)) {
    vl_mesh_free(m);
    return -1;
  }
  return 0;
}

/* ---- Gmsh ASCII (format 2): the shared reader (um/gmsh.h), nodes in float --------- */

/* cells and nodes from what the reader read, then the connectivity; frees g */
static int from_gmsh(um_gmsh_mesh *g, const char *name, int nthreads, vl_mesh *m, char *err, size_t errlen) {
  m->nnodes = g->nnodes;
  m->ncells = g->ntris;
  m->node_xy = um_array_alloc(2 * (size_t)g->nnodes, sizeof(float));
  m->cell_nodes = um_array_alloc(3 * (size_t)g->ntris, sizeof(int));
  int rc = -1;
  size_t i = 0;
  if (!m->node_xy || !m->cell_nodes) {
    snprintf(err, errlen, "%s: out of memory for %d nodes and %d cells", name, g->nnodes, g->ntris);
  } else {
    for (; i < 2 * (size_t)g->nnodes && isfinite(m->node_xy[i] = (float)g->xy[i]); i++) {}
    memcpy(m->cell_nodes, g->tri, 3 * (size_t)g->ntris * sizeof(int));
    if (i < 2 * (size_t)g->nnodes) /* finite in double (the reader checks), not in float */
      snprintf(err, errlen,
               "%s: node %zu (Gmsh id %d) at (%g, %g): too large for a float (Volna computes in single "
               "precision: at most 3.4e38); fix the mesh",
               name, i / 2 + 1, g->node_id[i / 2], g->xy[i & ~(size_t)1], g->xy[i | 1]);
    else
      rc = vl_mesh_finish_threads(m, nthreads, name, g->tri_line, err, errlen);
  }
  um_gmsh_free(g);
  if (rc) vl_mesh_free(m);
  return rc;
}

int vl_mesh_gmsh_parse(const char *text, size_t n, const char *name, vl_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  um_gmsh_mesh g;
  if (um_gmsh_parse(text, n, name, &g, err, errlen)) return -1;
  return from_gmsh(&g, name, 1, m, err, errlen);
}

int vl_mesh_gmsh(const char *path, vl_mesh *m, char *err, size_t errlen) {
  return vl_mesh_gmsh_threads(path, 1, m, err, errlen);
}

int vl_mesh_gmsh_threads(const char *path, int nthreads, vl_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  um_gmsh_mesh g;
  if (um_gmsh_read(path, &g, err, errlen)) return -1;
  return from_gmsh(&g, path, nthreads, m, err, errlen);
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
