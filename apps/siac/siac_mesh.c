/* SIAC's meshes (siac_mesh.h): the uniform mesh, Gmsh files, refinement, the
 * kernel scale and the periodic neighbourhoods found with a hash grid. */
#include "siac_mesh.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "um/gmsh.h"

/* n x size bytes, or NULL (overflow or no memory) */
static void *sm_alloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  return malloc(n ? n * size : 1);
}

void siac_mesh_free(siac_mesh *m) {
  if (!m) return;
  free(m->xy);
  free(m->tri);
  memset(m, 0, sizeof *m);
}

static int sm_new(siac_mesh *m, long long nnodes, long long ncells, const char *what, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  if (nnodes > INT_MAX / 2 || ncells > INT_MAX / 6)
    return snprintf(err, errlen, "%s: %lld nodes and %lld cells do not fit the mesh's int arrays: use a smaller "
                    "mesh", what, nnodes, ncells), -1;
  m->nnodes = (int)nnodes;
  m->ncells = (int)ncells;
  m->xy = sm_alloc(2 * (size_t)nnodes, sizeof(double));
  m->tri = sm_alloc(3 * (size_t)ncells, sizeof(int));
  if (!m->xy || !m->tri) {
    siac_mesh_free(m);
    return snprintf(err, errlen, "%s: out of memory for %lld nodes and %lld cells", what, nnodes, ncells), -1;
  }
  return 0;
}

/* twice the signed area of triangle (a, b, c) */
static double sm_orient(const double *a, const double *b, const double *c) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static double sm_len2(const double *a, const double *b) {
  return (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]);
}

double siac_tri_orient(const double *xy, const int *t, int *degenerate) {
  const double *a = xy + 2 * (size_t)t[0], *b = xy + 2 * (size_t)t[1], *p = xy + 2 * (size_t)t[2];
  const double o = sm_orient(a, b, p), l2 = fmax(sm_len2(a, b), fmax(sm_len2(b, p), sm_len2(p, a)));
  *degenerate = !(fabs(o) > SIAC_DEGENERATE * l2) || t[0] == t[1] || t[1] == t[2] || t[0] == t[2];
  return o;
}

int siac_areas_tile(double area, long long n) {
  return fabs(area - 1.0) <= 1e-9 + 1e-14 * (double)n; /* each area's rounding (coordinates in [0,1]), the sum's */
}

int siac_mesh_uniform(int n, siac_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  if (n < 1 || n > 20000)
    return snprintf(err, errlen, "uniform mesh: n = %d squares a side; take 1 <= n <= 20000", n), -1;
  if (sm_new(m, (long long)(n + 1) * (n + 1), 2LL * n * n, "uniform mesh", err, errlen)) return -1;
  for (int j = 0; j <= n; j++)
    for (int i = 0; i <= n; i++) {
      double *p = m->xy + 2 * ((size_t)j * (n + 1) + i);
      p[0] = (double)i / n;
      p[1] = (double)j / n;
    }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      const int v00 = j * (n + 1) + i, v10 = v00 + 1, v01 = v00 + n + 1, v11 = v01 + 1;
      int *t = m->tri + 6 * ((size_t)j * n + i);
      t[0] = v00, t[1] = v10, t[2] = v11; /* lower right, ccw */
      t[3] = v00, t[4] = v11, t[5] = v01; /* upper left, ccw */
    }
  return 0;
}

/* a triangle by its sorted nodes, for the repeat check */
typedef struct {
  int v[3], cell;
} sm_tri;

static int sm_cmp_tri(const void *x, const void *y) {
  const sm_tri *p = x, *q = y;
  for (int k = 0; k < 3; k++)
    if (p->v[k] != q->v[k]) return p->v[k] < q->v[k] ? -1 : 1;
  return (p->cell > q->cell) - (p->cell < q->cell);
}

/* The triangles of a Gmsh mesh (counter-clockwise, none degenerate) must tile the periodic unit square: no
 * triangle twice (its three nodes, in any order), and their areas sum to 1 within round-off (a hole or an
 * overlap: another sum). 0, or -1 with the reason in err. */
static int sm_check_tiling(const um_gmsh_mesh *g, const char *path, char *err, size_t errlen) {
  sm_tri *t = sm_alloc((size_t)g->ntris, sizeof *t);
  if (!t) return snprintf(err, errlen, "%s: out of memory for %d triangles", path, g->ntris), -1;
  double area = 0;
  for (int c = 0; c < g->ntris; c++) {
    const int *n = g->tri + 3 * (size_t)c;
    int degenerate;
    area += 0.5 * siac_tri_orient(g->xy, n, &degenerate);
    int lo = n[0], mid = n[1], hi = n[2], x;
    if (lo > mid) x = lo, lo = mid, mid = x;
    if (mid > hi) x = mid, mid = hi, hi = x;
    if (lo > mid) x = lo, lo = mid, mid = x;
    t[c] = (sm_tri){{lo, mid, hi}, c};
  }
  qsort(t, (size_t)g->ntris, sizeof *t, sm_cmp_tri);
  for (int i = 1; i < g->ntris; i++)
    if (!memcmp(t[i].v, t[i - 1].v, sizeof t[i].v)) {
      const int c1 = t[i - 1].cell, c2 = t[i].cell; /* c1 < c2: sorted by cell last */
      snprintf(err, errlen, "%s:%d: triangle %d (nodes with Gmsh ids %d %d %d) repeats triangle %d at line %d: "
               "remove one", path, g->tri_line[c2], g->tri_id[c2], g->node_id[t[i].v[0]], g->node_id[t[i].v[1]],
               g->node_id[t[i].v[2]], g->tri_id[c1], g->tri_line[c1]);
      free(t);
      return -1;
    }
  free(t);
  if (!siac_areas_tile(area, g->ntris))
    return snprintf(err, errlen, "%s: the %d triangles' areas sum to %.12g, not 1: they do not tile the periodic unit "
                    "square [0,1]^2 (%s); mesh the whole square (scripts/siac-meshes.sh)", path, g->ntris, area,
                    area < 1 ? "a hole: triangles are missing" : "triangles overlap"), -1;
  return 0;
}

int siac_mesh_read(const char *path, siac_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  um_gmsh_mesh g;
  if (um_gmsh_read(path, &g, err, errlen)) return -1;
  int rc = -1;
  /* the node's line in $Nodes: the reader keeps element lines only, so name the node by its Gmsh id */
  for (int i = 0; i < g.nnodes; i++)
    for (int k = 0; k < 2; k++) {
      double *v = &g.xy[2 * (size_t)i + k];
      if (!(*v >= -SIAC_NODE_TOL && *v <= 1.0 + SIAC_NODE_TOL)) {
        snprintf(err, errlen, "%s: node %d (Gmsh id %d) at (%.17g, %.17g) lies outside the unit square [0,1]^2: "
                 "SIAC filters dG solutions on the periodic unit square; mesh [0,1]^2 (scripts/siac-meshes.sh) or "
                 "scale the mesh into it", path, i + 1, g.node_id[i], g.xy[2 * (size_t)i], g.xy[2 * (size_t)i + 1]);
        goto out;
      }
      *v = *v < 0 ? 0 : *v > 1 ? 1 : *v;
    }
  for (int c = 0; c < g.ntris; c++) {
    int *t = g.tri + 3 * (size_t)c;
    const double *a = g.xy + 2 * (size_t)t[0], *b = g.xy + 2 * (size_t)t[1], *p = g.xy + 2 * (size_t)t[2];
    int degenerate;
    const double o = siac_tri_orient(g.xy, t, &degenerate);
    if (degenerate) {
      snprintf(err, errlen, "%s:%d: triangle %d (nodes with Gmsh ids %d %d %d at (%g, %g) (%g, %g) (%g, %g)) is "
               "degenerate (area %g): fix the mesh (remove the element or move its nodes)", path, g.tri_line[c],
               g.tri_id[c], g.node_id[t[0]], g.node_id[t[1]], g.node_id[t[2]], a[0], a[1], b[0], b[1], p[0], p[1],
               0.5 * fabs(o));
      goto out;
    }
    if (o < 0) { /* clockwise: swap two corners */
      const int x = t[1];
      t[1] = t[2], t[2] = x;
    }
  }
  if (sm_check_tiling(&g, path, err, errlen) || sm_new(m, g.nnodes, g.ntris, path, err, errlen)) goto out;
  memcpy(m->xy, g.xy, 2 * (size_t)g.nnodes * sizeof(double));
  memcpy(m->tri, g.tri, 3 * (size_t)g.ntris * sizeof(int));
  if (siac_mesh_conforming(m, path, g.node_id, g.tri_line, err, errlen)) {
    siac_mesh_free(m);
    goto out;
  }
  rc = 0;
out:
  um_gmsh_free(&g);
  return rc;
}

/* ---- refinement ---------------------------------------------------------------------- */

static int sm_cmp_edge(const void *x, const void *y) {
  const siac_edge *p = x, *q = y;
  if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
  if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
  return (p->slot > q->slot) - (p->slot < q->slot);
}

siac_edge *siac_mesh_edges(const siac_mesh *m) {
  const size_t n3 = 3 * (size_t)m->ncells;
  siac_edge *e = sm_alloc(n3, sizeof *e);
  for (size_t s = 0; e && s < n3; s++) {
    const int a = m->tri[s], b = m->tri[s - s % 3 + (s % 3 + 1) % 3];
    e[s] = (siac_edge){a < b ? a : b, a < b ? b : a, (int)s, a < b};
  }
  if (e) qsort(e, n3, sizeof *e, sm_cmp_edge);
  return e;
}

int siac_mesh_refine(const siac_mesh *in, siac_mesh *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  const size_t n3 = 3 * (size_t)in->ncells;
  siac_edge *e = siac_mesh_edges(in);
  int *mid = sm_alloc(n3, sizeof(int)); /* slot 3c + j: the midpoint of edge (j, j+1) of cell c */
  if (!e || !mid) {
    free(e), free(mid);
    return snprintf(err, errlen, "refine: out of memory for %d cells", in->ncells), -1;
  }
  long long ne = 0; /* distinct edges */
  for (size_t s = 0; s < n3; s++) ne += !s || e[s].lo != e[s - 1].lo || e[s].hi != e[s - 1].hi;
  if (sm_new(out, in->nnodes + ne, 4LL * in->ncells, "refine", err, errlen)) {
    free(e), free(mid);
    return -1;
  }
  for (size_t s = 0, k = (size_t)in->nnodes; s < n3; s++) {
    if (s && (e[s].lo != e[s - 1].lo || e[s].hi != e[s - 1].hi)) k++;
    mid[e[s].slot] = (int)k;
  }
  memcpy(out->xy, in->xy, 2 * (size_t)in->nnodes * sizeof(double));
  for (size_t s = 0; s < n3; s++) {
    const int a = e[s].lo, b = e[s].hi, k = mid[e[s].slot];
    out->xy[2 * (size_t)k] = 0.5 * (in->xy[2 * (size_t)a] + in->xy[2 * (size_t)b]);
    out->xy[2 * (size_t)k + 1] = 0.5 * (in->xy[2 * (size_t)a + 1] + in->xy[2 * (size_t)b + 1]);
  }
  for (int c = 0; c < in->ncells; c++) {
    const int *v = in->tri + 3 * (size_t)c, *md = mid + 3 * (size_t)c; /* md: 01, 12, 20 */
    int *t = out->tri + 12 * (size_t)c;
    const int kids[12] = {v[0], md[0], md[2], md[0], v[1], md[1], md[2], md[1], v[2], md[0], md[1], md[2]};
    memcpy(t, kids, sizeof kids);
  }
  free(e), free(mid);
  return 0;
}

/* ---- geometry ---------------------------------------------------------------------------- */

void siac_mesh_cellxy(const siac_mesh *m, double *cellxy) {
  for (int c = 0; c < m->ncells; c++)
    for (int j = 0; j < 3; j++) {
      const double *p = m->xy + 2 * (size_t)m->tri[3 * (size_t)c + j];
      cellxy[6 * (size_t)c + 2 * j] = p[0];
      cellxy[6 * (size_t)c + 2 * j + 1] = p[1];
    }
}

/* cell c's bounding box: lo[2], hi[2] */
static void sm_box(const siac_mesh *m, int c, double *lo, double *hi) {
  const int *t = m->tri + 3 * (size_t)c;
  for (int k = 0; k < 2; k++) {
    const double a = m->xy[2 * (size_t)t[0] + k], b = m->xy[2 * (size_t)t[1] + k], d = m->xy[2 * (size_t)t[2] + k];
    lo[k] = fmin(a, fmin(b, d));
    hi[k] = fmax(a, fmax(b, d));
  }
}

double siac_mesh_h(const siac_mesh *m) {
  double h = 0;
  for (int c = 0; c < m->ncells; c++) {
    double lo[2], hi[2];
    sm_box(m, c, lo, hi);
    h = fmax(h, fmax(hi[0] - lo[0], hi[1] - lo[1]));
  }
  return h;
}

/* ---- neighbourhoods ---------------------------------------------------------------------- */

typedef struct {
  double b[2], w[2], g[2]; /* box centre, box half-width, centroid */
} sm_cell;

/* the predicate of siac_neighbours (siac_mesh.h), symmetric bit for bit */
static int sm_meet(const sm_cell *C, const sm_cell *T, double reach) {
  for (int k = 0; k < 2; k++) {
    const double dg = T->g[k] - C->g[k];
    const double s = dg > 0.5 ? -1.0 : dg < -0.5 ? 1.0 : 0.0;
    if (!(fabs((T->b[k] - C->b[k]) + s) <= (T->w[k] + C->w[k]) + reach)) return 0;
  }
  return 1;
}

/* A cell's box centre, half-width and centroid from its vertices a, b, p (in the cell's order); returns its
 * diameter (the longest side). */
static double sm_cell_of(const double *a, const double *b, const double *p, sm_cell *c) {
  for (int k = 0; k < 2; k++) {
    const double lo = fmin(a[k], fmin(b[k], p[k])), hi = fmax(a[k], fmax(b[k], p[k]));
    c->b[k] = 0.5 * (lo + hi);
    c->w[k] = 0.5 * (hi - lo);
    c->g[k] = (a[k] + b[k] + p[k]) / 3.0;
  }
  return sqrt(fmax(sm_len2(a, b), fmax(sm_len2(b, p), sm_len2(p, a))));
}

static int sm_too_coarse(double reach, double diam, char *err, size_t errlen) {
  if (2 * reach + 2 * diam < 1) return 0;
  return snprintf(err, errlen, "neighbours: the mesh is too coarse for this degree: the stencil's reach %g "
                  "(W/2 = (3k+1)h/2) and the largest cell diameter %g give 2 reach + 2 diameter = %g >= 1, the "
                  "period, so a cell could meet two periodic images of one cell; use a finer mesh (more cells, "
                  "e.g. one more refinement), or a lower degree k where k > 1", reach, diam, 2 * reach + 2 * diam), -1;
}

/* Sort v[0..n) of distinct ints in [0, bound) (tmp: room for n). A row comes out of the search as ascending runs,
 * one a bin (a bin lists its cells in increasing number): a natural merge sort (adjacent runs merged pairwise,
 * pass after pass) costs ~2n a pass and log2(runs) passes; an LSD radix sort by bytes ~2n + 512 a pass and a pass
 * a byte of bound. The cheaper by that count: merging on short rows (a radix pass's fixed cost was over half the
 * search on ~100-entry rows), radix on long rows of many runs. */
static void sm_sort(int *v, size_t n, int *tmp, int bound) {
  if (n < 2) return;
  size_t runs = 1, mpasses = 0, rpasses = 0;
  for (size_t i = 1; i < n; i++) runs += v[i - 1] > v[i];
  while (((size_t)1 << mpasses) < runs) mpasses++;
  for (int shift = 0; shift < 31 && (bound - 1) >> shift; shift += 8) rpasses++;
  int *src = v, *dst = tmp;
  if (mpasses * 2 * n <= rpasses * (2 * n + 512)) {
    while (runs > 1) {
      size_t i = 0;
      runs = 0;
      while (i < n) { /* the run at i and the next, merged into dst */
        size_t a = i + 1;
        while (a < n && src[a - 1] < src[a]) a++;
        size_t b = a < n ? a + 1 : n;
        while (b < n && src[b - 1] < src[b]) b++;
        size_t p = i, q = a, o = i;
        while (p < a && q < b) dst[o++] = src[p] < src[q] ? src[p++] : src[q++];
        while (p < a) dst[o++] = src[p++];
        while (q < b) dst[o++] = src[q++];
        runs++, i = b;
      }
      int *x = src;
      src = dst, dst = x;
    }
  } else {
    for (int shift = 0; shift < 31 && (bound - 1) >> shift; shift += 8) {
      size_t at[257] = {0};
      for (size_t i = 0; i < n; i++) at[((unsigned)src[i] >> shift & 255u) + 1]++;
      for (int k = 0; k < 256; k++) at[k + 1] += at[k];
      for (size_t i = 0; i < n; i++) dst[at[(unsigned)src[i] >> shift & 255u]++] = src[i];
      int *x = src;
      src = dst, dst = x;
    }
  }
  if (src != v) memcpy(v, src, n * sizeof(int));
}

/* a growable int list */
typedef struct {
  int *v;
  size_t n, cap;
} sm_ints;

static int sm_push(sm_ints *l, int x) {
  if (l->n == l->cap) {
    const size_t cap = l->cap ? 2 * l->cap : 4096;
    int *v = cap <= SIZE_MAX / sizeof(int) ? realloc(l->v, cap * sizeof(int)) : NULL;
    if (!v) return -1;
    l->v = v, l->cap = cap;
  }
  l->v[l->n++] = x;
  return 0;
}

/* the grid: cells listed by bin (counting sort of each cell's box-centre bin) */
typedef struct {
  int nb;         /* bins per side */
  int *start;     /* nb^2 + 1 */
  int *cells;     /* ncells, by bin */
  sm_cell *cl;    /* their boxes, in the same order (read contiguously) */
} sm_grid;

static int sm_bin(double x, int nb) {
  int i = (int)floor(x * nb);
  return i < 0 ? 0 : i >= nb ? nb - 1 : i;
}

static int sm_grid_build(const sm_cell *cl, int nc, double side, sm_grid *G) {
  long long nb = side > 0 ? (long long)floor(1.0 / side) : 1;
  const long long cap = (long long)ceil(sqrt(4.0 * nc)) + 1; /* at most ~4 bins a cell */
  if (nb > cap) nb = cap;
  if (nb < 1) nb = 1;
  G->nb = (int)nb;
  G->start = calloc((size_t)(nb * nb + 1), sizeof(int));
  G->cells = sm_alloc((size_t)nc, sizeof(int));
  G->cl = sm_alloc((size_t)nc, sizeof(sm_cell));
  int *bin = sm_alloc((size_t)nc, sizeof(int));
  if (!G->start || !G->cells || !G->cl || !bin) {
    free(bin);
    return -1;
  }
  for (int c = 0; c < nc; c++) {
    bin[c] = sm_bin(cl[c].b[1], G->nb) * G->nb + sm_bin(cl[c].b[0], G->nb);
    G->start[bin[c] + 1]++;
  }
  for (long long i = 0; i < nb * nb; i++) G->start[i + 1] += G->start[i];
  int *fill = sm_alloc((size_t)(nb * nb), sizeof(int));
  if (!fill) {
    free(bin);
    return -1;
  }
  memcpy(fill, G->start, (size_t)(nb * nb) * sizeof(int));
  for (int c = 0; c < nc; c++) { /* increasing cell number within a bin */
    G->cl[fill[bin[c]]] = cl[c];
    G->cells[fill[bin[c]]++] = c;
  }
  free(fill);
  free(bin);
  return 0;
}

/* the bins [lo, hi] of one axis (to be wrapped) that hold every position within r of centre; all of them
 * once when the range spans the grid. The margin (far above rounding, far below any cell) covers the
 * rounding of the predicate and of the bins near their edges. */
static int sm_range(double centre, double r, int nb, int *lo, int *hi) {
  const double margin = 1e-9;
  *lo = (int)floor((centre - r - margin) * nb);
  *hi = (int)floor((centre + r + margin) * nb);
  if (*hi - *lo + 1 >= nb) *lo = 0, *hi = nb - 1;
  return *hi - *lo + 1;
}

/* the search runs on OpenMP threads where the build has OpenMP */
#ifdef _OPENMP
#include <omp.h>
#define SM_OMP(x) _Pragma(#x)
static int sm_nthreads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }
static int sm_thread(void) { return omp_get_thread_num(); }
#else
#define SM_OMP(x)
static int sm_nthreads(int threads) { return (void)threads, 1; }
static int sm_thread(void) { return 0; }
#endif

/* One cell's neighbours (the cell at position `at` of the grid), appended to *S in increasing cell number
 * (tmp: the sort's second buffer, grown as needed). Returns how many, or -1 out of memory. */
static long long sm_search(const sm_grid *G, int at, double wmax, double reach, int nc, sm_ints *S, int **tmp,
                           size_t *tmpcap) {
  const sm_cell *C = &G->cl[at];
  const int nb = G->nb;
  const size_t first = S->n;
  int xlo, xhi, ylo, yhi;
  sm_range(C->b[0], C->w[0] + wmax + reach, nb, &xlo, &xhi);
  sm_range(C->b[1], C->w[1] + wmax + reach, nb, &ylo, &yhi);
  for (int by = ylo; by <= yhi; by++)
    for (int bx = xlo; bx <= xhi; bx++) {
      const int ix = ((bx % nb) + nb) % nb, iy = ((by % nb) + nb) % nb, bin = iy * nb + ix;
      for (int q = G->start[bin]; q < G->start[bin + 1]; q++)
        if (sm_meet(C, &G->cl[q], reach) && sm_push(S, G->cells[q])) return -1;
    }
  const size_t n = S->n - first; /* at most nc: each cell is in one bin, each bin visited once */
  if (n > *tmpcap) {
    free(*tmp);
    *tmpcap = 2 * n;
    if (!(*tmp = sm_alloc(*tmpcap, sizeof(int)))) {
      *tmpcap = 0;
      return -1;
    }
  }
  sm_sort(S->v + first, n, *tmp, nc);
  return (long long)n;
}

int siac_neighbours(const siac_mesh *m, double reach, int threads, int *arity, int **nbr, int **count, char *err,
                    size_t errlen) {
  *arity = 0, *nbr = NULL, *count = NULL;
  const int nc = m->ncells;
  if (!(reach >= 0) || !isfinite(reach))
    return snprintf(err, errlen, "neighbours: reach %g must be finite and >= 0 (the app passes W/2 = (3k+1)h/2)",
                    reach), -1;
  if (nc < 1) return snprintf(err, errlen, "neighbours: the mesh has no cells"), -1;
  sm_cell *cl = sm_alloc((size_t)nc, sizeof *cl);
  if (!cl) return snprintf(err, errlen, "neighbours: out of memory for %d cells", nc), -1;
  double diam = 0, wmax = 0;
  for (int c = 0; c < nc; c++) {
    const int *t = m->tri + 3 * (size_t)c;
    const double *a = m->xy + 2 * (size_t)t[0], *b = m->xy + 2 * (size_t)t[1], *p = m->xy + 2 * (size_t)t[2];
    diam = fmax(diam, sm_cell_of(a, b, p, &cl[c]));
    wmax = fmax(wmax, fmax(cl[c].w[0], cl[c].w[1]));
  }
  if (sm_too_coarse(reach, diam, err, errlen)) {
    free(cl);
    return -1;
  }
  /* Each thread searches chunks of cells in bin order (neighbouring cells read neighbouring bins) into a list of
   * its own; then the rows are copied to their padded places. Every row is sorted, so the result does not
   * depend on the threads. */
  const int nt = sm_nthreads(threads);
  sm_grid G = {0, NULL, NULL, NULL};
  int *cnt = sm_alloc((size_t)nc, sizeof(int)), *who = sm_alloc((size_t)nc, sizeof(int)), *pad = NULL;
  size_t *off = sm_alloc((size_t)nc, sizeof(size_t));
  sm_ints *list = calloc((size_t)nt, sizeof *list);
  int rc = -1, most = 0, failed = 0;
  if (!cnt || !who || !off || !list || sm_grid_build(cl, nc, fmax(reach, 2 * wmax), &G)) {
    snprintf(err, errlen, "neighbours: out of memory for the grid of %d cells", nc);
    goto out;
  }
  SM_OMP(omp parallel num_threads(nt))
  {
    sm_ints *S = &list[sm_thread()];
    int *tmp = NULL;
    size_t tmpcap = 0;
    SM_OMP(omp for schedule(dynamic, 64))
    for (int at = 0; at < nc; at++) {
      int stop;
      SM_OMP(omp atomic read)
      stop = failed;
      if (stop) continue;
      const int c = G.cells[at];
      off[c] = S->n;
      const long long n = sm_search(&G, at, wmax, reach, nc, S, &tmp, &tmpcap);
      if (n < 0) {
        SM_OMP(omp atomic write)
        failed = 1;
        continue;
      }
      cnt[c] = (int)n, who[c] = sm_thread();
    }
    free(tmp);
  }
  if (failed) {
    snprintf(err, errlen, "neighbours: out of memory for the neighbour lists of %d cells", nc);
    goto out;
  }
  for (int c = 0; c < nc; c++) most = cnt[c] > most ? cnt[c] : most;
  /* the rows `most` apart, padded with their cell */
  if (!(pad = sm_alloc((size_t)nc * (size_t)most, sizeof(int)))) {
    snprintf(err, errlen, "neighbours: out of memory for %d cells x %d neighbours (the padded rows): the mesh's "
             "cell sizes vary too much for the global h, or the reach is too large", nc, most);
    goto out;
  }
  SM_OMP(omp parallel for num_threads(nt) schedule(static))
  for (int c = 0; c < nc; c++) {
    int *r = pad + (size_t)c * most;
    memcpy(r, list[who[c]].v + off[c], (size_t)cnt[c] * sizeof(int));
    for (int i = cnt[c]; i < most; i++) r[i] = c;
  }
  *arity = most, *nbr = pad, *count = cnt;
  cnt = NULL, pad = NULL;
  rc = 0;
out:
  for (int t = 0; list && t < nt; t++) free(list[t].v);
  free(list), free(cl), free(cnt), free(who), free(off), free(G.start), free(G.cells), free(G.cl), free(pad);
  return rc;
}

void siac_neighbour_stats(const int *count, int ncells, siac_nbr_stats *s) {
  memset(s, 0, sizeof *s);
  if (ncells < 1) return;
  s->min = INT_MAX;
  for (int c = 0; c < ncells; c++) {
    s->min = count[c] < s->min ? count[c] : s->min;
    s->max = count[c] > s->max ? count[c] : s->max;
    s->total += count[c];
  }
  s->mean = (double)s->total / ncells;
}

/* ---- the uniform mesh by blocks ---------------------------------------------------------------------------- */

/* Uniform node v's coordinates and cell c's nodes, as siac_mesh_uniform numbers them. */
static void su_node(int n, long long v, double *p) {
  p[0] = (double)(v % (n + 1)) / n;
  p[1] = (double)(v / (n + 1)) / n;
}

static void su_tri(int n, long long c, long long *t) {
  const long long sq = c / 2, j = sq / n, i = sq % n;
  const long long v00 = j * (n + 1) + i, v10 = v00 + 1, v01 = v00 + n + 1, v11 = v01 + 1;
  if (c % 2 == 0) t[0] = v00, t[1] = v10, t[2] = v11; /* lower right, ccw */
  else t[0] = v00, t[1] = v11, t[2] = v01;            /* upper left, ccw */
}

static double su_cell(int n, long long c, sm_cell *cl, double *xy6) {
  long long t[3];
  double v[3][2];
  su_tri(n, c, t);
  for (int j = 0; j < 3; j++) su_node(n, t[j], v[j]);
  if (xy6)
    for (int j = 0; j < 3; j++) xy6[2 * j] = v[j][0], xy6[2 * j + 1] = v[j][1];
  return sm_cell_of(v[0], v[1], v[2], cl);
}

double siac_uniform_h(int n) {
  double h = 0; /* siac_mesh_h: every cell's box is one square (fmax is exact: the order does not matter) */
  for (int i = 0; i < n; i++) h = fmax(h, (double)(i + 1) / n - (double)i / n);
  return h;
}

void siac_uniform_block_free(siac_uniform_block *b) {
  free(b->xy), free(b->tri), free(b->cellxy), free(b->nbr), free(b->count);
  memset(b, 0, sizeof *b);
}

/* The block's neighbourhoods: for each of its cells, the predicate of siac_neighbours over the cells of the
 * squares within reach (all of them where that window spans the period), in increasing cell number. */
static int su_neighbours(int n, double reach, siac_uniform_block *b) {
  const long long R = (long long)ceil(reach * n) + 2, span = 2 * R + 1 >= n ? n : 2 * R + 1;
  const size_t cap = (size_t)(2 * span * span);
  int *tmp = sm_alloc(cap, sizeof(int));
  b->count = sm_alloc((size_t)b->cell_count, sizeof(int));
  b->nbr = sm_alloc((size_t)b->cell_count * cap, sizeof(long long));
  if (!tmp || !b->count || !b->nbr) return free(tmp), -1;
  for (int q = 0; q < b->cell_count; q++) {
    const long long c = b->cell_first + q, sq = c / 2, ci = sq % n, cj = sq / n;
    sm_cell C, T;
    su_cell(n, c, &C, NULL);
    int k = 0;
    for (long long dj = 0; dj < span; dj++)
      for (long long di = 0; di < span; di++) {
        const long long j = span == n ? dj : ((cj - R + dj) % n + n) % n;
        const long long i = span == n ? di : ((ci - R + di) % n + n) % n;
        for (int h = 0; h < 2; h++) {
          const long long t = 2 * (j * n + i) + h;
          su_cell(n, t, &T, NULL);
          if (sm_meet(&C, &T, reach)) tmp[k++] = (int)t;
        }
      }
    int *sorted = sm_alloc((size_t)k ? (size_t)k : 1, sizeof(int));
    if (!sorted) return free(tmp), -1;
    sm_sort(tmp, (size_t)k, sorted, (int)b->ncells);
    free(sorted);
    for (int i = 0; i < k; i++) b->nbr[(size_t)q * cap + (size_t)i] = tmp[i];
    b->count[q] = k;
    if (k > b->most) b->most = k;
  }
  b->cap = (int)cap;
  free(tmp);
  return 0;
}

int siac_uniform_block_make(int n, double reach, const long long first[2], const int count[2], siac_uniform_block *b,
                            char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  if (n < 1 || n > 20000)
    return snprintf(err, errlen, "uniform mesh: n = %d squares a side; take 1 <= n <= 20000", n), -1;
  b->n = n;
  b->nnodes = (long long)(n + 1) * (n + 1), b->ncells = 2LL * n * n;
  b->node_first = first[0], b->node_count = count[0], b->cell_first = first[1], b->cell_count = count[1];
  if (first[0] < 0 || count[0] < 0 || first[0] + count[0] > b->nnodes || first[1] < 0 || count[1] < 0 ||
      first[1] + count[1] > b->ncells)
    return snprintf(err, errlen, "uniform mesh: a block outside the %lld nodes or %lld cells", b->nnodes, b->ncells),
           -1;
  double diam = 0; /* the whole mesh's largest cell, as siac_neighbours checks it: O(cells), no memory */
  for (long long c = 0; c < b->ncells; c++) {
    sm_cell C;
    diam = fmax(diam, su_cell(n, c, &C, NULL));
  }
  if (sm_too_coarse(reach, diam, err, errlen)) return -1;
  b->xy = sm_alloc((size_t)count[0] ? 2 * (size_t)count[0] : 1, sizeof(double));
  b->tri = sm_alloc((size_t)count[1] ? 3 * (size_t)count[1] : 1, sizeof(long long));
  b->cellxy = sm_alloc((size_t)count[1] ? 6 * (size_t)count[1] : 1, sizeof(double));
  if (!b->xy || !b->tri || !b->cellxy || su_neighbours(n, reach, b)) {
    siac_uniform_block_free(b);
    return snprintf(err, errlen, "uniform mesh: out of memory for a block of %d cells", count[1]), -1;
  }
  for (int v = 0; v < count[0]; v++) su_node(n, first[0] + v, b->xy + 2 * (size_t)v);
  for (int q = 0; q < count[1]; q++) {
    sm_cell C;
    su_tri(n, first[1] + q, b->tri + 3 * (size_t)q);
    su_cell(n, first[1] + q, &C, b->cellxy + 6 * (size_t)q);
  }
  return 0;
}

void siac_uniform_block_pad(siac_uniform_block *b, int arity) {
  for (int q = 0; q < b->cell_count; q++) { /* rows `cap` apart -> `arity` apart (arity <= cap), padded with the cell */
    long long *to = b->nbr + (size_t)q * (size_t)arity;
    memmove(to, b->nbr + (size_t)q * (size_t)b->cap, sizeof(long long) * (size_t)b->count[q]);
    for (int i = b->count[q]; i < arity; i++) to[i] = b->cell_first + q;
  }
  b->cap = arity;
}
