/* Airfoil's mesh checked once after reading (every reader): finite coordinates, cells of non-zero area, boundary
 * codes 1 or 2, no edge from a node to itself and no edge twice. Over the host's threads (um_context_host_threads):
 * each check names the element a serial scan names first, the duplicated edges in the order of a sort of the edges
 * by (lower node, upper node, number) -- a stable counting sort by the lower node (um_bucket_sort, bucket.h), each
 * node's few edges then sorted, where a qsort of the 5.8M edges of the 2.88M-cell mesh took 0.6 s on one thread. */
#include <math.h>
#include <stdlib.h>
#include "airfoil.h"
#include "bucket.h"

typedef struct {
  const int *e, *b; /* the edges' and the boundary edges' nodes */
  int ne;
} edge_list;

static void edge_nodes(const edge_list *l, int i, int *lo, int *hi) {
  const int *p = i < l->ne ? l->e + 2 * (size_t)i : l->b + 2 * (size_t)(i - l->ne);
  *lo = p[0] < p[1] ? p[0] : p[1];
  *hi = p[0] < p[1] ? p[1] : p[0];
}

/* The first position in [i, o1) (a lower node's edges, sorted) of an edge joining its node to itself or of the
 * first of two joining the same nodes; o1 if none. */
static int bucket_fault(const int *lower, const int *upper, const int *idx, int i, int o1) {
  for (; i < o1; i++) {
    const int hi = upper[idx[i]];
    if (lower[idx[i]] == hi || (i + 1 < o1 && upper[idx[i + 1]] == hi)) return i;
  }
  return o1;
}

int airfoil_first_bad_edge(const int *e, int ne, const int *b, int nb, int nn, int nthreads, int *second) {
  const edge_list l = {e, b, ne};
  const int n = ne + nb;
  int *lower = malloc(sizeof(int) * ((size_t)n + 1)), *upper = malloc(sizeof(int) * ((size_t)n + 1)),
      *idx = malloc(sizeof(int) * ((size_t)n + 1)), *off = malloc(sizeof(int) * ((size_t)nn + 1)), first = n, rc = -2;
  if (nthreads < 1) nthreads = 1;
  if (lower && upper && idx && off) {
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int i = 0; i < n; i++) edge_nodes(&l, i, &lower[i], &upper[i]);
    if (!um_bucket_sort(lower, upper, NULL, (size_t)n, nn, nthreads, off, idx)) {
#pragma omp parallel for schedule(dynamic, 4096) num_threads(nthreads) reduction(min : first)
      for (int k = 0; k < nn; k++) {
        const int f = bucket_fault(lower, upper, idx, off[k], off[k + 1]);
        if (f < off[k + 1] && f < first) first = f;
      }
      rc = -1;
    }
  }
  if (rc == -1 && first < n) {
    rc = idx[first];
    *second = lower[rc] == upper[rc] ? -1 : idx[first + 1];
  }
  free(lower);
  free(upper);
  free(idx);
  free(off);
  return rc;
}

/* The first cell (of nc, nodes pc) of zero or non-finite area (shoelace: adt_calc and res_calc need it non-zero),
 * or nc. */
static int first_flat_cell(const double *x, const int *pc, int nc, int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
  int first = nc;
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(min : first)
  for (int c = 0; c < nc; c++) {
    const int *q = pc + 4 * (size_t)c;
    double area = 0;
    for (int k = 0; k < 4; k++) {
      const double *p0 = x + 2 * (size_t)q[k], *p1 = x + 2 * (size_t)q[(k + 1) % 4];
      area += p0[0] * p1[1] - p1[0] * p0[1];
    }
    area *= 0.5;
    if ((!(fabs(area) > 0) || !isfinite(area)) && c < first) first = c;
  }
  return first;
}

static int first_infinite_node(const double *x, int nn, int nthreads) {
  (void)nthreads; /* unused in a build without OpenMP */
  int first = nn;
#pragma omp parallel for schedule(static) num_threads(nthreads) reduction(min : first)
  for (int i = 0; i < nn; i++)
    if ((!isfinite(x[2 * (size_t)i]) || !isfinite(x[2 * (size_t)i + 1])) && i < first) first = i;
  return first;
}

static int edge_fault(um_context *ctx, const airfoil *a, int nthreads) {
  const int nn = um_set_size(a->nodes), ne = um_set_size(a->edges), nb = um_set_size(a->bedges);
  const int *pe = um_map_data(a->pedge), *pb = um_map_data(a->pbedge);
  int j = -1;
  const int i = airfoil_first_bad_edge(pe, ne, pb, nb, nn, nthreads, &j);
  if (i == -2) return um_error_set(ctx, UM_ERR_ALLOC, "out of memory checking the Airfoil mesh");
  if (i < 0) return UM_SUCCESS;
  const int *p = i < ne ? pe + 2 * (size_t)i : pb + 2 * (size_t)(i - ne);
  const int lo = p[0] < p[1] ? p[0] : p[1], hi = p[0] < p[1] ? p[1] : p[0];
  if (j < 0)
    return um_error_set(ctx, UM_ERR_IO, "mesh: %s %d joins node %d to itself; fix the mesh",
                        i < ne ? "edge" : "boundary edge", i < ne ? i : i - ne, lo);
  return um_error_set(ctx, UM_ERR_IO, "mesh: %s %d and %s %d both join nodes %d and %d (a duplicated edge); fix the mesh",
                      i < ne ? "edge" : "boundary edge", i < ne ? i : i - ne, j < ne ? "edge" : "boundary edge",
                      j < ne ? j : j - ne, lo, hi);
}

int airfoil_host_mesh_fetch(um_context *ctx, const airfoil *a, airfoil_host_mesh *h) {
  const int nn = um_set_size(a->nodes), nb = um_set_size(a->bedges);
  h->x = malloc(sizeof(double) * 2 * (size_t)(nn ? nn : 1));
  h->bound = malloc(sizeof(int) * (size_t)(nb ? nb : 1));
  int rc = !h->x || !h->bound ? um_error_set(ctx, UM_ERR_ALLOC, "out of memory for the Airfoil mesh's coordinates")
                              : UM_SUCCESS;
  if (!rc) rc = um_dat_fetch(ctx, a->p_x, h->x, sizeof(double) * 2 * (size_t)nn);
  if (!rc) rc = um_dat_fetch(ctx, a->p_bound, h->bound, sizeof(int) * (size_t)nb);
  if (rc) airfoil_host_mesh_free(h);
  return rc;
}

void airfoil_host_mesh_free(airfoil_host_mesh *h) {
  free(h->x), free(h->bound);
  h->x = NULL, h->bound = NULL;
}

int airfoil_check_mesh(um_context *ctx, const airfoil *a) {
  airfoil_host_mesh h = {NULL, NULL};
  int rc = airfoil_host_mesh_fetch(ctx, a, &h);
  if (!rc) rc = airfoil_check_mesh_host(ctx, a, &h);
  airfoil_host_mesh_free(&h);
  return rc;
}

int airfoil_check_mesh_host(um_context *ctx, const airfoil *a, const airfoil_host_mesh *h) {
  const int nn = um_set_size(a->nodes), nc = um_set_size(a->cells), nb = um_set_size(a->bedges),
            nthreads = um_context_host_threads(ctx);
  const double *x = h->x;
  const int *bound = h->bound;
  int rc = UM_SUCCESS;
  const int i = first_infinite_node(x, nn, nthreads);
  if (i < nn)
    rc = um_error_set(ctx, UM_ERR_IO, "mesh: node %d has coordinates (%g, %g), which are not finite; fix the mesh", i,
                      x[2 * (size_t)i], x[2 * (size_t)i + 1]);
  const int *pc = um_map_data(a->pcell);
  const int c = rc ? nc : first_flat_cell(x, pc, nc, nthreads);
  if (c < nc) {
    const int *q = pc + 4 * (size_t)c;
    double area = 0;
    for (int k = 0; k < 4; k++) {
      const double *p0 = x + 2 * (size_t)q[k], *p1 = x + 2 * (size_t)q[(k + 1) % 4];
      area += p0[0] * p1[1] - p1[0] * p0[1];
    }
    rc = um_error_set(ctx, UM_ERR_IO, "mesh: cell %d (nodes %d %d %d %d) has area %g: it is degenerate; fix the mesh",
                      c, q[0], q[1], q[2], q[3], area * 0.5);
  }
  for (int b = 0; !rc && b < nb; b++)
    if (bound[b] != 1 && bound[b] != 2)
      rc = um_error_set(ctx, UM_ERR_IO, "mesh: boundary edge %d has boundary code %d, neither 1 (wall) nor 2 (far field)",
                        b, bound[b]);
  if (!rc) rc = edge_fault(ctx, a, nthreads); /* no edge twice, interior or boundary */
  return rc;
}
